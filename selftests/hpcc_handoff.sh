#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# handoff on the real module: six hpcc flows H1 -> H2 of 32 to 192 KB
# start together; those that end leave their W in the peer's pool and the
# young flows still sending take it. With handoff 0 nothing is given;
# flows past cwnd_long take nothing. How much a flow gives and takes is
# tests/unit/test_ctl.c's; this is the module's per-namespace pool under
# flows on several CPUs, given from the ACK path and from release (on the
# debug kernel lockdep watches its seqlock), with every stream intact.
. "$(dirname "$0")/lib.sh"
. "$HERE/stress_lib.sh"
. "$HERE/topo.sh"

require probe module
topo_names ho$$
SIZES="32 64 96 128 160 192"
cleanup() {
	topo_down
	params_restore
	for k in $SIZES; do rm -f /tmp/ho.src.$k /tmp/ho.dst.$k; done
	rm -f /tmp/ho.go
}
cleanup_trap cleanup
topo_up || { echo "# topology setup failed"; exit 1; }
check "hpcc-probe attaches hosts and routers" topo_telemetry_up
for k in $SIZES; do
	head -c $((k * 1024)) /dev/urandom >/tmp/ho.src.$k
done

# burst HANDOFF: the six flows at once, each connected before any sends
# (a slow emulator spawns them far apart, and a flow that connects after
# another ended is young and may take); sets given, taken, timeouts, intact
burst() {
	local g0 k0 t0 k port=5400
	params_set handoff=$1
	g0=$(hpcc_stat HandoffsGiven) k0=$(hpcc_stat HandoffsTaken)
	t0=$(hpcc_stat TelemetryTimeouts)
	for k in $SIZES; do
		port=$((port + 1))
		$IP netns exec $H2 ./selftests/hpcc_xfer recv $port /tmp/ho.dst.$k &
		wait_port $H2 $port
	done
	port=5400
	rm -f /tmp/ho.go
	for k in $SIZES; do
		port=$((port + 1))
		HPCC_XFER_GO=/tmp/ho.go $IP netns exec $H1 \
			./selftests/hpcc_xfer send 10.1.3.1 $port \
			/tmp/ho.src.$k hpcc >/dev/null &
	done
	port=5400
	for k in $SIZES; do
		port=$((port + 1))
		wait_connected $H1 $port
	done
	touch /tmp/ho.go
	wait
	intact=0
	for k in $SIZES; do
		[ "$(sha /tmp/ho.src.$k)" = "$(sha /tmp/ho.dst.$k)" ] &&
			intact=$((intact + 1))
	done
	given=$(($(hpcc_stat HandoffsGiven) - g0))
	taken=$(($(hpcc_stat HandoffsTaken) - k0))
	timeouts=$(($(hpcc_stat TelemetryTimeouts) - t0))
	echo "# handoff $1: $given flows' W given, $taken takes, $intact of 6 streams intact, $timeouts telemetry timeouts"
}

burst 0
check "handoff 0: nothing given ($given) or taken ($taken)" \
	test "$given" -eq 0 -a "$taken" -eq 0
check "handoff 0: every stream intact" test "$intact" -eq 6

# the flows end at different times; a run whose young flows all end
# before any report is retried (a slow emulator)
for try in 1 2 3; do
	burst 1000
	[ "$taken" -gt 0 ] && break
done
check "handoff 1000: the ending flows gave their W ($given of 6)" \
	test "$given" -ge 1 -a "$given" -le 6
check "handoff 1000: young flows took it ($taken takes)" test "$taken" -gt 0
check "handoff 1000: every stream intact" test "$intact" -eq 6
check "handoff 1000: no flow lost telemetry ($timeouts)" test "$timeouts" -eq 0

# only young flows take: with cwnd_long 1 KB every flow is past it at
# its first data ACK, long before the first flow ends, so the same burst
# gives and nobody takes
params_set cwnd_long=1
burst 1000
check "cwnd_long 1 KB: the ending flows still gave ($given)" \
	test "$given" -ge 1
check "cwnd_long 1 KB: flows past it took nothing ($taken takes)" \
	test "$taken" -eq 0
check "cwnd_long 1 KB: every stream intact" test "$intact" -eq 6
tap_done
