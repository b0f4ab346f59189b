#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# path_share on the real module: eight hpcc flows H1 -> H2 over the loop
# (two stamping routers) run the law on each other's reports, and the
# flows that use another's report defer their own probes. With
# path_share 0 no report is shared (the draft's per-flow loop). When a
# report may be shared is tests/unit/test_ctl.c's; this is the module's
# per-namespace table under flows on several CPUs (on the debug kernel
# lockdep watches its seqlock from softirq and process context).
. "$(dirname "$0")/lib.sh"
. "$HERE/stress_lib.sh"
. "$HERE/topo.sh"

require probe module
topo_names ps$$
cleanup() {
	topo_down
	params_restore
}
cleanup_trap cleanup
topo_up || { echo "# topology setup failed"; exit 1; }
check "hpcc-probe attaches hosts and routers" topo_telemetry_up
$IP netns exec $H2 iperf3 -s -D -p 5210
wait_port $H2 5210

# run SHARE: eight flows for 4 s; sets shared, used, probes, timeouts
run() {
	local s0 u0 p0 t0
	params_set path_share=$1
	s0=$(hpcc_stat ReportsShared) u0=$(hpcc_stat ReportsUsed)
	p0=$(hpcc_stat ProbesSent) t0=$(hpcc_stat TelemetryTimeouts)
	$IP netns exec $H1 iperf3 -c 10.1.3.1 -p 5210 -t 4 -P 8 -C hpcc \
		>/dev/null 2>&1
	shared=$(($(hpcc_stat ReportsShared) - s0))
	used=$(($(hpcc_stat ReportsUsed) - u0))
	probes=$(($(hpcc_stat ProbesSent) - p0))
	timeouts=$(($(hpcc_stat TelemetryTimeouts) - t0))
	echo "# path_share $1: $probes probes, $used own reports used, $shared shared, $timeouts telemetry timeouts"
}

run 0
probes0=$probes used0=$used
check "path_share 0: own reports used ($used), none shared ($shared)" \
	test "$used" -gt 0 -a "$shared" -eq 0

run 1
check "path_share 1: the flows used each other's reports ($shared)" \
	test "$shared" -gt 0
check "path_share 1: no flow lost telemetry ($timeouts timeouts)" \
	test "$timeouts" -eq 0
# probes per run of the law: each shared report defers a flow's own probe
check "path_share 1: fewer probes per report used ($probes / $((used + shared)) < $probes0 / $used0)" \
	test $((probes * used0)) -lt $((probes0 * (used + shared)))
tap_done
