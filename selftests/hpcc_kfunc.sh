#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bpf_hpcc_report() from a tc program on a live hpcc flow (hpcc_kfunc_test).
. "$(dirname "$0")/lib.sh"

module_loaded || load_module || skip_all "tcp_hpcc not loadable"
# T = 1 ms for hand-computed U; a long telemetry timeout so the flow is
# still in telemetry mode when userspace reads it (lo's RTT is a few us).
# max_stage 5: the hand-computed U = 0.6 takes the additive branch.
set_param base_rtt 1000
set_param telemetry_timeout 1000
set_param max_stage 5
"$HERE/hpcc_kfunc_test"
rc=$?
sed 's/^/# /' /proc/net/tcp_hpcc_stat
set_param base_rtt 0
set_param telemetry_timeout 8
set_param max_stage 0
exit $rc
