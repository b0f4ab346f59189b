#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The BPF unit suite (tests/bpf) on Debian's 6.1 with tcp_hpcc loaded: the
# programs' CO-RE objects load on 6.1, and the cases that need the module
# (kfunc resolved, a cubic socket refused, a wrong nonce counted) run.
. "$(dirname "$0")/lib.sh"

[ -x "$TOP/tests/bpf/bpf_test" ] || tap_skip_all "no tests/bpf/bpf_test (run make tests)"
require module
HPCC_BPF_DIR=$TOP/bpf exec "$TOP/tests/bpf/bpf_test"
