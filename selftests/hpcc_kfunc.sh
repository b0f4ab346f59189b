#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bpf_hpcc_report() from a tc program on a live hpcc flow (hpcc_kfunc_test).
. "$(dirname "$0")/lib.sh"

require module
# T = 1 ms for hand-computed U; a long telemetry timeout so the flow is
# still in telemetry mode when userspace reads it (lo's RTT is a few us).
# max_stage 5 and the draft's EWMA over T: the hand-computed U = 0.6 takes
# the additive branch.
cleanup_trap params_restore
# the probe schedule and the line-rate start of the draft (one probe per
# RTT, the first on the first ACK; W = B T), which the hand-computed
# reports follow; deliv_cap off: the flow sends a few KB over lo, and
# whether its rate samples hold the additive step is the host's timing
# (held on the debug kernel, where the same bytes take longer)
params_set base_rtt=1000 telemetry_timeout=1000 max_stage=5 ewma_rtts=1 \
	expected_flows=16 probe_first=0 probe_cost=0 start_hold=0 first_share=0 \
	deliv_cap=0
"$HERE/hpcc_kfunc_test"
rc=$?
sed 's/^/# /' /proc/net/tcp_hpcc_stat
exit $rc
