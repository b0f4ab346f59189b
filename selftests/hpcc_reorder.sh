#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# loss_undo on the real module: R1 reorders H1's data (netem sends a
# share of the packets ahead of the others), nothing is lost, so every
# retransmission of the hpcc flows H1 -> H2 is spurious, and TCP undoes
# its own reduction when the DSACKs come back. loss_beta cut the law's W
# on each of those "losses"; with loss_undo 1 the undo takes the cut back
# (LossUndone), with 0 the cut stands. When and how much is
# tests/unit/test_ctl.c's; this is the stack calling the module's
# undo_cwnd on real DSACKs.
. "$(dirname "$0")/lib.sh"
. "$HERE/stress_lib.sh"
. "$HERE/topo.sh"

require probe module
topo_names ro$$
cleanup_trap topo_restore
topo_up || { echo "# topology setup failed"; exit 1; }
check "hpcc-probe attaches hosts and routers" topo_telemetry_up
# a quarter of the packets skip a 3 ms delay: they overtake up to 3 ms of
# the flow, more than RACK's reordering window of a quarter of min RTT
check "R1 reorders H1's data (netem reorder, no loss)" \
	$TC -n $R1 qdisc replace dev r1r2 root netem delay 3ms reorder 25% 50% \
	limit 10000
$IP netns exec $H2 iperf3 -s -D -p 5211
wait_port $H2 5211

# tcp_ext NAME: H1's TcpExt counter NAME
tcp_ext() {
	$IP netns exec $H1 cat /proc/net/netstat | awk -v k="$1" '
		$1 == "TcpExt:" && !h { for (i = 2; i <= NF; i++) n[i] = $i; h = 1; next }
		$1 == "TcpExt:" { for (i = 2; i <= NF; i++) if (n[i] == k) print $i }'
}

# run UNDO: four flows for 4 s; sets cuts, undone, dsacks, undos
run() {
	local c0 u0 d0 t0
	params_set loss_undo=$1
	c0=$(hpcc_stat LossReductions) u0=$(hpcc_stat LossUndone)
	d0=$(tcp_ext TCPDSACKRecv) t0=$(($(tcp_ext TCPFullUndo) + $(tcp_ext TCPPartialUndo) + $(tcp_ext TCPDSACKUndo)))
	$IP netns exec $H1 iperf3 -c 10.1.3.1 -p 5211 -t 4 -P 4 -C hpcc \
		>/dev/null 2>&1
	cuts=$(($(hpcc_stat LossReductions) - c0))
	undone=$(($(hpcc_stat LossUndone) - u0))
	dsacks=$(($(tcp_ext TCPDSACKRecv) - d0))
	undos=$(($(tcp_ext TCPFullUndo) + $(tcp_ext TCPPartialUndo) + $(tcp_ext TCPDSACKUndo) - t0))
	echo "# loss_undo $1: $cuts loss_beta cuts, $undone taken back; TCP: $dsacks DSACKs, $undos undos"
}

run 1
check "reordering only: TCP found retransmissions spurious ($dsacks DSACKs, $undos undos)" \
	test "$dsacks" -gt 0 -a "$undos" -gt 0
check "loss_undo 1: loss_beta cut W ($cuts) and the undos took cuts back ($undone)" \
	test "$cuts" -gt 0 -a "$undone" -gt 0 -a "$undone" -le "$cuts"
run 0
check "loss_undo 0: cuts ($cuts) stand, none taken back ($undone)" \
	test "$cuts" -gt 0 -a "$undone" -eq 0
tap_done
