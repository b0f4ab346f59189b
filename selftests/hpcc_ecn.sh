#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ECN (Documentation/tcp_hpcc.rst, "Dynamics", compete_ecn) on the
# telemetry loop's topology (topo.sh) with dctcp's RED-ECN marking above
# K at R2's port towards H2 (30 KB at 150 Mbit/s, about half of B T as on
# the bench; scaled with the link, so that dctcp's queue stays under
# compete_queue's 4 B T on the debug kernel's slower link too, but at
# least 6 packets, or the queue telemetry shows beside dctcp is mostly
# none and CE never counts; RED's burst scaled with K keeps its average
# as quick on both links):
#   1. negotiation (the ecn parameter, TCP_CONG_NEEDS_ECN): hpcc's data
#      carry ECT(0) to an hpcc receiver, which agrees to ECN, and none to
#      a cubic receiver, which refuses it (as Linux refuses a SYN that
#      carries ECT, and as tcp_ecn=0 says).
#   2. the receiver's echo, with CE on 2% of the packets at random (netem
#      ecn) so that each mark stands alone: an RFC 3168 sender (cubic,
#      tcp_ecn=1) gets ECE on about one ACK per CE packet from an hpcc
#      receiver (per packet, as dctcp's receiver) and on every ACK of a
#      round trip from a cubic receiver (ECE until CWR).
#   3. hpcc alone on the marking port, with telemetry: the law keeps the
#      queue under K, and CE never turns the flow loss-based.
#   4. hpcc beside dctcp: CE in every report turns the flow loss-based
#      (CompeteEntered); with compete_ecn 0 it does not.
# Every transfer checks its bytes.
. "$(dirname "$0")/lib.sh"
. "$HERE/stress_lib.sh"
. "$HERE/topo.sh"

require probe module
K=$((BOTTLENECK_MBIT * 200 > 9000 ? BOTTLENECK_MBIT * 200 : 9000))
tmp=/tmp/hpcc_ecn.$$
topo_names e$$
cleanup_trap topo_restore
mkdir -p $tmp
params_set compete_ecn=1
topo_up || { echo "# topology setup failed"; exit 1; }
# marking red|netem: dctcp's RED-ECN, or CE on 2% of ECT packets at random
marking() {
	case $1 in
	red) $TC -n $R2 qdisc replace dev r2h2 parent 1:1 red limit 600000 \
		min $K max $((K + 1500)) avpkt 1500 burst $((K / 1500 + 1)) probability 1.0 \
		ecn bandwidth ${BOTTLENECK_MBIT}mbit ;;
	netem) $TC -n $R2 qdisc replace dev r2h2 parent 1:1 netem loss 2% ecn ;;
	esac
}
# RED-ECN from section 3 on: its K, a few packets on the debug kernel's
# link, would drop most of section 1's transfer without ECN
$TC -n $R2 qdisc replace dev r2h2 root handle 1: tbf rate ${BOTTLENECK_MBIT}mbit \
	burst $BOTTLENECK_BURST limit 600k ||
	{ echo "# bottleneck setup failed"; exit 1; }
dd if=/dev/urandom of=$tmp/src bs=1M count=$((WORK_DIV > 1 ? 2 : 8)) status=none
# beside dctcp, 8 MB on every kernel: the competition mode needs 50 T of
# standing queue, and the debug kernel's noisier queue takes more tries;
# 16 MB with compete_ecn 1 on the stock kernels, where hpcc sometimes
# took 26 Mbit/s beside dctcp without 50 T of marks in a row and 8 MB
# ended in 2.6 s, before any (RED marked 447 packets; 704-2090 where it
# entered)
dd if=/dev/urandom of=$tmp/src8 bs=1M count=8 status=none
src16=$tmp/src8
if [ "$WORK_DIV" -eq 1 ]; then
	src16=$tmp/src16
	dd if=/dev/urandom of=$src16 bs=1M count=16 status=none
fi
# the long neighbour: sparse, never read to its end
dd if=/dev/zero of=$tmp/long bs=1M count=0 seek=1024 status=none

# count NS DEV U32-MATCH...: a counter of the packets arriving on DEV
count() {
	local ns=$1 dev=$2
	shift 2
	$TC -n $ns qdisc add dev $dev clsact 2>/dev/null
	$TC -n $ns filter del dev $dev ingress pref 1 2>/dev/null
	$TC -n $ns filter add dev $dev ingress pref 1 protocol ip u32 \
		match ip protocol 6 0xff "$@" action continue
}
counted() {	# NS DEV
	$TC -n $1 -s filter show dev $2 ingress |
		sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n1
}
# xfer PORT CC RECEIVER-CC [FILE]: FILE ($tmp/src) H1 -> H2, 0 if the
# bytes arrived
xfer() {
	local src=${4:-$tmp/src}
	local pid
	rm -f $tmp/dst
	$IP netns exec $H2 sysctl -qw net.ipv4.tcp_congestion_control=$3 ||
		return 1
	$IP netns exec $H2 ./selftests/hpcc_xfer recv "$1" $tmp/dst &
	pid=$!
	wait_port $H2 "$1"
	echo "# $($IP netns exec $H1 ./selftests/hpcc_xfer send 10.1.3.1 "$1" $src $2)"
	wait $pid
	[ "$(sha $src)" = "$(sha $tmp/dst)" ]
}

# --- 1. negotiation: ECT(0) on data (not SYN) only where ECN was agreed
ect() {	# the data packets H1 sent with ECT(0)
	counted $R1 r1h1
}
count $R1 r1h1 match u8 0x02 0x03 at 1 match u8 0x00 0x02 at 33
check "ecn: bytes intact, to a receiver with ECN" xfer 5201 hpcc hpcc
ect_on=$(ect)
count $R1 r1h1 match u8 0x02 0x03 at 1 match u8 0x00 0x02 at 33
$IP netns exec $H2 sysctl -qw net.ipv4.tcp_ecn=0
check "ecn: bytes intact, to a receiver without" xfer 5202 hpcc cubic
$IP netns exec $H2 sysctl -qw net.ipv4.tcp_ecn=2
ect_off=$(ect)
echo "# ECT(0) data packets: ${ect_on:-?} with ECN agreed, ${ect_off:-?} refused"
check "ecn: hpcc's data carry ECT(0) where ECN was agreed" \
	test "${ect_on:-0}" -gt 100
check "ecn: and none where the receiver refused it" test "${ect_off:-1}" -eq 0
$TC -n $R1 qdisc del dev r1h1 clsact

# --- 2. the receiver's echo, seen by an RFC 3168 sender
# echo_of RECEIVER-CC PORT: ECE ACKs and CE packets of one transfer
marking netem
# tcp_ecn_fallback 0: netem drops what is not ECT, the SYN among them (2%),
# and Linux retransmits a SYN without ECN (RFC 3168 6.1.1.1): a debug run
# had a transfer without a single CE
$IP netns exec $H1 sysctl -qw net.ipv4.tcp_ecn=1
$IP netns exec $H1 sysctl -qw net.ipv4.tcp_ecn_fallback=0
# one segment a packet: with TSO a round trip is a couple of ACKs
$IP -n $H1 link set dev h1r1 gso_max_segs 1
echo_of() {
	count $R1 r1r2 match u8 0x40 0x40 at 33
	count $H2 h2r2 match u8 0x03 0x03 at 1
	xfer $2 cubic $1 >&2 || return 1
	echo "$(counted $R1 r1r2) $(counted $H2 h2r2)"
}
set -- $(echo_of hpcc 5203)
hp_ece=${1:-0} hp_ce=${2:-0}
set -- $(echo_of cubic 5204)
cu_ece=${1:-0} cu_ce=${2:-0}
$TC -n $R1 qdisc del dev r1r2 clsact
$TC -n $H2 qdisc del dev h2r2 clsact
$IP netns exec $H1 sysctl -qw net.ipv4.tcp_ecn=2
$IP netns exec $H1 sysctl -qw net.ipv4.tcp_ecn_fallback=1
$IP -n $H1 link set dev h1r1 gso_max_segs 65535
marking red || { echo "# RED-ECN bottleneck setup failed"; exit 1; }
echo "# cubic -> hpcc receiver: $hp_ece ECE ACKs for $hp_ce CE packets; -> cubic receiver: $cu_ece for $cu_ce"
check "ecn: the transfers were marked (CE $hp_ce, $cu_ce)" \
	test "$hp_ce" -gt 5 -a "$cu_ce" -gt 5
# measured: about 1.0 and 4 ECE ACKs a CE packet
check "ecn: an hpcc receiver echoes CE per packet (ECE $hp_ece <= 1.5 x CE $hp_ce)" \
	test $((2 * hp_ece)) -le $((3 * hp_ce))
check "ecn: an RFC 3168 receiver echoes a round trip (ECE $cu_ece > 2 x CE $cu_ce)" \
	test "$cu_ece" -gt $((2 * cu_ce))

# --- 3. hpcc alone on the marking port, telemetry on
check "hpcc-probe attaches hosts and routers" topo_telemetry_up
c0=$(hpcc_stat CompeteEntered) u0=$(hpcc_stat ReportsUsed)
check "ecn: bytes intact, hpcc alone" xfer 5205 hpcc hpcc
c1=$(hpcc_stat CompeteEntered) u1=$(hpcc_stat ReportsUsed)
echo "# hpcc alone: ReportsUsed +$((u1 - u0)), CompeteEntered +$((c1 - c0))"
check "ecn: the law ran (ReportsUsed +$((u1 - u0)))" test $((u1 - u0)) -gt 5
check "ecn: alone, CE never turns hpcc loss-based" test "$c1" -eq "$c0"

# --- 4. beside dctcp
# beside PORT FILE: hpcc's transfer of FILE while dctcp sends beside it;
# the change in CompeteEntered
red_marked() {
	$TC -n $R2 -s qdisc show dev r2h2 | sed -n 's/^ *marked \([0-9]*\).*/\1/p' |
		head -n1
}
beside() {
	local c0 c1 m0 lp=$(($1 + 100))
	# dctcp's receiver: hpcc's, which echoes as dctcp's (a netns may
	# not make dctcp its default)
	$IP netns exec $H2 sysctl -qw net.ipv4.tcp_congestion_control=hpcc
	$IP netns exec $H2 ./selftests/hpcc_xfer recv $lp /dev/null &
	wait_port $H2 $lp
	$IP netns exec $H1 ./selftests/hpcc_xfer send 10.1.3.1 $lp $tmp/long dctcp \
		>/dev/null 2>&1 &
	bgpid=$!
	sleep 1
	c0=$(hpcc_stat CompeteEntered) m0=$(red_marked)
	xfer $1 hpcc hpcc $2 >&2 || echo "# bytes differ" >&2
	c1=$(hpcc_stat CompeteEntered)
	marked=$(($(red_marked) - m0))
	echo "$marked" >$tmp/marked
	echo "# RED (K $K B): $marked marked during the transfer" >&2
	kill $bgpid 2>/dev/null
	wait $bgpid 2>/dev/null
	bgpid=
	$IP netns pids $H2 | xargs -r kill 2>/dev/null
	echo $((c1 - c0))
}
# A performance assertion on the debug kernel: there hpcc entered
# competition in 2 runs of 5 (one miss had 78 RED marks, another 2291).
# Not the link's rate: on 6.1 with the debug kernel's 15 Mbit/s it
# entered in 3 runs of 3 (RED marked about 10000 packets in each), so the
# debug kernel's slower senders. hpcc_forge.sh still takes the compete
# path on the debug kernel.
n=$(beside 5206 $src16)
echo "# beside dctcp, compete_ecn 1: CompeteEntered +$n"
# The mode needs CE in every report for compete_rtts: a standing queue
# above K. Beside a second emulator, dctcp's sender once held none (RED
# marked 306 packets in 16 MB; 447 in another such run, 704-2090 where
# hpcc entered): the precondition missed, not the mode. Once more then,
# and the assertion on that run.
if [ "$n" -eq 0 ] && [ "$(cat $tmp/marked)" -lt 700 ]; then
	echo "# $(cat $tmp/marked) marks: no standing queue above K; once more"
	n=$(beside 5208 $src16)
	echo "# beside dctcp, compete_ecn 1, again: CompeteEntered +$n"
fi
perf_check "ecn: beside dctcp, CE in every report turns hpcc loss-based" \
	test "$n" -ge 1
params_set compete_ecn=0
n=$(beside 5207 $tmp/src8)
echo "# beside dctcp, compete_ecn 0: CompeteEntered +$n"
check "ecn: with compete_ecn 0 it does not" test "$n" -eq 0
tap_done
