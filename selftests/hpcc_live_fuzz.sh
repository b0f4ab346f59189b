#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Mutated reports with the LIVE nonce of a real hpcc flow (hpcc_live_fuzz
# and progs/live_fuzz.bpf.c; what is asserted and why: the top of
# hpcc_live_fuzz.c). At least 10000 well-formed but wild reports reach the
# window law of a flow that carries a checked stream between two
# namespaces, thousands of malformed ones are refused, every return code
# is the predicted one, the kernel's counters agree with them, the flow's
# state stays within the law's bounds, and its data arrives byte-exact.
. "$(dirname "$0")/lib.sh"
. "$HERE/stress_lib.sh"

require hpcc_live_fuzz hpcc_stress module
MIN=${FUZZ_MIN_REPORTS:-10000}
a=fuzzA$$ b=fuzzB$$
tmp=/tmp/fuzz.$$
sink=
cleanup() {
	[ -z "$sink" ] || { kill $sink 2>/dev/null; wait $sink 2>/dev/null; }
	ns_del $a $b
	rm -rf $tmp
	params_restore
}
cleanup_trap cleanup
# The bounds asserted are the window law's. Wild queues would switch the
# flow to loss-based competition ("Dynamics"), where W and R are Reno's:
# the mode's own checks are in hpcc_forge.sh and the unit tests.
# W and R after a flow's sane pair are that pair's only if no sibling's
# report follows: the fuzzer gives the flows' one port different
# capacities, which no real port does, and path_share would pass them on
# (its own checks: hpcc_path_share.sh and the unit tests).
params_set compete_rtts=0 path_share=0
mkdir -p $tmp
ns_pair $a $b
$TC -n $a qdisc add dev veth0 root fq
# The reports keep the flow's window small, often a segment or two: the
# receiver's delayed ACKs would then space the ACKs, and so the probes
# (one per ACK after each report), by tens of ms. ACK every segment.
$IP -n $b route change 10.0.0.0/24 dev veth1 proto kernel scope link \
	src 10.0.0.2 quickack 1

$IP netns exec $b "$HERE/hpcc_stress" sink 7500 -t $(scaled 300) >$tmp/sink 2>$tmp/sink.err &
sink=$!
poll 10 sh -c "$IP netns exec $b cat /proc/net/tcp6 | grep -q ':1D4C .* 0A '" ||
	echo "# the sink is not listening"

t0=$(date +%s)
$IP netns exec $a "$HERE/hpcc_live_fuzz" -s 10.0.0.2 -p 7500 -i veth0 \
	-n $MIN -t $(scaled 400) ${FUZZ_SEED:+-S $FUZZ_SEED} >$tmp/out 2>&1
rc=$?
cat $tmp/out
echo "# hpcc_live_fuzz exited $rc after $(($(date +%s) - t0)) s"
# its TAP lines are ours: go on numbering after them
tap_n=$(grep -cE '^(not )?ok [0-9]+' $tmp/out)
tap_failed=$(grep -cE '^not ok [0-9]+' $tmp/out)
tap_passed=$((tap_n - tap_failed))
check "hpcc_live_fuzz ran to the end (exit $rc)" \
	sh -c "test $rc -eq 0 -o $tap_failed -gt 0 && ! grep -q '^Bail out' $tmp/out"

kill $sink
poll 20 sh -c "! kill -0 $sink 2>/dev/null"
wait $sink
sink=
echo "# $(cat $tmp/sink)"
sed 's/^/# sink: /' $tmp/sink.err | head -n 5
check "the receiver: all five streams (4 hpcc, 1 cubic) complete, every byte the pattern's" \
	sh -c "grep -q 'streams=5 .* bad=0 errors=0 ' $tmp/sink"
check "no flow state left after the flow closed" poll 30 no_flows $a $b
tap_done
