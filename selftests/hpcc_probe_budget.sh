#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# probe_limit is a rate per network namespace, honoured at any value (also
# below HZ): eight hpcc flows in one namespace must not take the probes of
# a flow in another, and a budget of 20 probes/s means 20, not one per
# jiffy. Probes held back by the budget are not counted as lost.
. "$(dirname "$0")/lib.sh"

require probe module
a1=budA1$$ a2=budA2$$ b1=budB1$$ b2=budB2$$
saved=$(cat $PARAMS/probe_limit)
cleanup() {
	ns_down $a1 $a2 $b1 $b2
	set_param probe_limit "$saved"
}
cleanup_trap cleanup
ns_pair $a1 $a2
ns_pair $b1 $b2
for ns in $a1 $b1; do ./probe/hpcc-probe -n $ns host attach veth0 || exit 1; done
for ns in $a2 $b2; do ./probe/hpcc-probe -n $ns host attach veth1 || exit 1; done

# reflected NS: probes the receiver in NS has turned into responses
# (status lists every namespace's objects: take the block naming NS)
reflected() {
	./probe/hpcc-probe status 2>/dev/null | awk -v ns="$1" '
		/^[^ ]/ { mine = index($0, ns) > 0 }
		mine { for (i = 1; i < NF; i++)
			if ($i == "probe_reflected") print $(i + 1) }' | head -n1
}

limit=20 secs=5
set_param probe_limit $limit
lost0=$(hpcc_stat ProbesLost)
$IP netns exec $a2 iperf3 -s -D -1 -p 5301
$IP netns exec $b2 iperf3 -s -D -1 -p 5302
wait_port $a2 5301
wait_port $b2 5302
$IP netns exec $a1 iperf3 -c 10.0.0.2 -p 5301 -t $secs -P 8 -C hpcc >/dev/null &
$IP netns exec $b1 iperf3 -c 10.0.0.2 -p 5302 -t $secs -P 1 -C hpcc >/dev/null &
wait
ra=$(reflected $a2) rb=$(reflected $b2)
lost=$(($(hpcc_stat ProbesLost) - lost0))
echo "# probe_limit $limit/s for ${secs}s: namespace A (8 flows) $ra probes, B (1 flow) $rb, lost $lost"
# the budget allows a 4 ms burst beyond the rate, and a connection's
# handshake and teardown add a little to the time it runs
most=$((limit * (secs + 1) + 2))
check "A's 8 flows stayed within $limit probes/s ($ra <= $most)" \
	test "${ra:-999999}" -le $most
check "B's flow had its own budget ($rb >= $((limit * secs / 2)))" \
	test "${rb:-0}" -ge $((limit * secs / 2))
check "B within its budget too ($rb <= $most)" test "${rb:-999999}" -le $most
check "held-back probes are not counted lost ($lost <= 9, one per flow)" \
	test "$lost" -le 9
tap_done
