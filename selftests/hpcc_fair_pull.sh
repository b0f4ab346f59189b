#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fair_pull on the real module: eight hpcc flows H1 -> H2 over the loop,
# wire version 2, so that H2's hpcc_host writes the number of flows it
# answers (N) into every response. With fair_pull a flow whose W is above
# eta B T / N on a full path gives up part of the excess (ReportsPulled);
# with fair_pull 0, or version 1 responses (no N), nothing is pulled.
# How much is tests/unit/test_ctl.c's; this is N travelling from the
# receiver's program through the kfunc to the controller.
. "$(dirname "$0")/lib.sh"
. "$HERE/stress_lib.sh"
. "$HERE/topo.sh"

require probe module
topo_names fp$$
cleanup_trap topo_restore
topo_up || { echo "# topology setup failed"; exit 1; }
check "hpcc-probe attaches hosts and routers" topo_telemetry_up
$IP netns exec $H2 iperf3 -s -D -p 5212
wait_port $H2 5212

# run WIRE PULL SECONDS: eight flows; sets pulled, used, timeouts, and
# lost and held probes (the counts a timeout's rules read). deliv_cap
# off: fair_pull acts only on a path at or above eta, and the debug
# kernel's flows, held to what they deliver, kept it below (0 pulled)
run() {
	local p0 u0 t0 l0 h0 lost held
	params_set wire_version=$1 fair_pull=$2 mac_key_id=0 mac_required=0 \
		deliv_cap=0
	p0=$(hpcc_stat ReportsPulled) u0=$(hpcc_stat ReportsUsed)
	t0=$(hpcc_stat TelemetryTimeouts) l0=$(hpcc_stat ProbesLost)
	h0=$(hpcc_stat ProbesLimited)
	$IP netns exec $H1 iperf3 -c 10.1.3.1 -p 5212 -t $3 -P 8 -C hpcc \
		>/dev/null 2>&1
	pulled=$(($(hpcc_stat ReportsPulled) - p0))
	used=$(($(hpcc_stat ReportsUsed) - u0))
	timeouts=$(($(hpcc_stat TelemetryTimeouts) - t0))
	lost=$(($(hpcc_stat ProbesLost) - l0))
	held=$(($(hpcc_stat ProbesLimited) - h0))
	echo "# wire_version $1 fair_pull $2: $used reports used, $pulled pulled, $timeouts telemetry timeouts ($lost probes lost, $held held)"
}

run 2 0 4
check "fair_pull 0 (the draft): reports used ($used), none pulled ($pulled)" \
	test "$used" -gt 0 -a "$pulled" -eq 0
# longer: the debug kernel's flows report a fifth as often (4 of 74
# reports pulled in 4 s there)
run 2 500 10
check "fair_pull 500, version 2: the receiver's N pulled W ($pulled of $used reports)" \
	test "$pulled" -gt 0 -a "$pulled" -le "$used"
check "fair_pull 500: no flow lost telemetry ($timeouts timeouts)" \
	test "$timeouts" -eq 0
run 1 500 4
check "fair_pull 500, version 1 (no N in responses): none pulled ($pulled)" \
	test "$used" -gt 0 -a "$pulled" -eq 0
tap_done
