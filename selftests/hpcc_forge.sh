#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A lying receiver on the real module (threat model, "receiver"): on
# sender - router1 - router2 - receiver (topo.sh), hpcc_forge rewrites the
# records of every response the receiver sends for one connection.
#   idle lie (every hop idle at 4 Pbit/s): with the bounds (max_capacity
#     1000 Mbit/s here) the flow's R never exceeds 1 Gbit/s and W never
#     4 B T at that capacity; with the bounds off (the draft's: 0, 0,
#     1000) W runs past that, up to the law's limit: the attack works.
#   queue lie (a 4 GB queue at every hop): the flow is held at about one
#     MSS while the lie goes on; when the receiver stops answering, the
#     flow falls back to loss-based control with at least the initial
#     window and the window it had before telemetry as ssthresh, not
#     the 2 segments the lie left.
#   the queue lie again with the competition mode on: the flow turns
#     loss-based (CompeteEntered).
#   the idle lie beside two honest flows of the liar's host that share
#     its reports (path_share): no flow's U reads the forged byte counts
#     as a rate (ReportsImplausible counts the pairs).
# Every transfer checks its bytes (sha256). The shares a lying receiver
# takes beside honest flows are a benchmark: hpcc_forge_share.sh.
. "$(dirname "$0")/lib.sh"
. "$HERE/stress_lib.sh"
. "$HERE/topo.sh"

require probe hpcc_forge module
P=./probe/hpcc-probe
tmp=/tmp/hpcc_forge.$$
MAXCAP=1000		# Mbit/s: the bound under test
topo_names f$$
cleanup_trap topo_restore
mkdir -p $tmp
# the law's bounds alone: the competition mode (section 4) would take the
# queue lie's standing queue for a loss-based neighbour. max_growth 100
# (+10% a report), not the default x2: the idle lie takes W from the first
# report's B T to 4 B T of the flow's later T, which is a single jump of
# exactly x2 where the first report's T was twice the later one (6.12
# under TCG, now and then), so x2 would never have to hold it.
compete0=$(cat $PARAMS/compete_rtts)
deliv0=$(cat $PARAMS/deliv_cap)	# a bound too: off with the others in 2.
params_save deliv_cap
params_set wire_version=1 max_capacity=$MAXCAP max_growth=100 loss_beta=700 \
	compete_rtts=0
topo_up || { echo "# topology setup failed"; exit 1; }
check "hpcc-probe attaches hosts and routers" topo_telemetry_up
# 16 MB on every kernel. The debug kernel samples the flow every 0.5-1 s
# and answers a probe every 200 ms or so: 4 MB there (2.5 s) gave 11-13
# reports and a few samples, and a slower run fewer than the 6 reports
# the idle lie's checks need. The queue lie's flow must outlive its
# fallback by a few samples.
dd if=/dev/urandom of=$tmp/src bs=1M count=16 status=none

# forge_on MODE PORT: the lie on the receiver's egress for server PORT
forge_on() {
	rm -f $tmp/forge.out
	$IP netns exec $H2 "$HERE/hpcc_forge" h2r2 "$1" "$2" >$tmp/forge.out 2>&1 &
	bgpid=$!
	poll 10 grep -q attached $tmp/forge.out
}
# forge_off: the lie removed; its count in $forged
forge_off() {
	kill "$bgpid" 2>/dev/null
	wait "$bgpid"
	bgpid=
	forged=$(sed -n 's/^forged \([0-9]*\).*/\1/p' $tmp/forge.out)
	forged=${forged:-0}
}
# xfer PORT FILE [ACTION]: FILE H1 -> H2 with hpcc, H1's flow sampled
# every 0.1 s from /proc/net/tcp_hpcc and ss -ti into $tmp/flows.PORT and
# $tmp/ss.PORT; ACTION runs beside the transfer; 0 if the bytes arrived
xfer() {
	local pids
	rm -f $tmp/dst $tmp/done.$1
	$IP netns exec $H2 ./selftests/hpcc_xfer recv "$1" $tmp/dst &
	pids=$!
	wait_port $H2 "$1"
	: >$tmp/flows.$1
	: >$tmp/ss.$1
	(
		while [ ! -e $tmp/done.$1 ]; do
			f=$($IP netns exec $H1 awk -v p=":$1" \
				'substr($2, length($2) - length(p) + 1) == p' \
				/proc/net/tcp_hpcc)
			[ -z "$f" ] || echo "$f" >>$tmp/flows.$1
			# the ss line carries the flow's mode of this sample
			m=$(echo "$f" | awk '{ print $3 }')
			echo -n "mode:${m:-none} " >>$tmp/ss.$1
			$IP netns exec $H1 ss -tin "dport = :$1" 2>/dev/null |
				tr ' ' '\n' | grep -E '^(cwnd|ssthresh|retrans):' |
				tr '\n' ' ' >>$tmp/ss.$1
			echo >>$tmp/ss.$1
			sleep 0.1
		done
	) &
	pids="$pids $!"
	if [ -n "${3:-}" ]; then
		$3 &
		pids="$pids $!"
	fi
	out=$($IP netns exec $H1 ./selftests/hpcc_xfer send 10.1.3.1 "$1" "$2" hpcc)
	touch $tmp/done.$1
	# not a bare wait: the lie runs in the background until forge_off
	wait $pids
	echo "# $out"
	[ "$(sha "$2")" = "$(sha $tmp/dst)" ]
}
# wmax PORT: the largest W sampled in mode hpcc; bound: 4 B T at MAXCAP
wmax() {
	awk '$3 == "hpcc" && $4 > m { m = $4 } END { print m + 0 }' $tmp/flows.$1
}
within_bounds() {	# PORT: every sample R <= MAXCAP and W <= 4 MAXCAP T
	awk -v b=$((MAXCAP * 125000)) '
		$3 == "hpcc" { n++
			if ($9 > b || $4 > 4 * b * $10 / 1e6 + 1500) bad++ }
		END { exit !(n >= 1 && !bad) }' $tmp/flows.$1
}
past_bounds() {		# PORT: some sample W > 4 MAXCAP T
	awk -v b=$((MAXCAP * 125000)) '
		$3 == "hpcc" && $4 > 4 * b * $10 / 1e6 + 1500 { hit++ }
		END { exit !hit }' $tmp/flows.$1
}

# lied WHAT MODE PORT: $tmp/src through the lie MODE for server PORT
lied() {
	check "$1: the lie attached" forge_on $2 $3
	check "$1: bytes intact" xfer $3 $tmp/src
	forge_off
}

# --- 1. the idle lie, bounded
cap0=$(hpcc_stat ReportsCapped) used0=$(hpcc_stat ReportsUsed)
held0=$(hpcc_stat ReportsGrowthHeld)
lied "idle lie, bounds on" idle 5600
cap=$(($(hpcc_stat ReportsCapped) - cap0)) used=$(($(hpcc_stat ReportsUsed) - used0))
held=$(($(hpcc_stat ReportsGrowthHeld) - held0))
echo "# idle lie, bounds on: $forged responses forged, ReportsUsed +$used ReportsCapped +$cap ReportsGrowthHeld +$held, W max $(wmax 5600) B"
check "idle lie: forged reports reached the law (forged $forged, used +$used) and were capped (+$cap)" \
	test "$forged" -gt 5 -a "$used" -gt 5 -a "$cap" -gt 5
check "idle lie: max_growth held W's jump at least once (ReportsGrowthHeld +$held)" \
	test "$held" -ge 1
check "idle lie, bounds on: R <= $MAXCAP Mbit/s and W <= 4 B T in every sample" \
	within_bounds 5600

# --- 2. the idle lie, the draft's unbounded behaviour
for kv in max_capacity=0 max_growth=0 loss_beta=1000 deliv_cap=0; do
	set_param ${kv%%=*} ${kv#*=}
done
cap0=$(hpcc_stat ReportsCapped)
lied "idle lie, bounds off" idle 5601
cap=$(($(hpcc_stat ReportsCapped) - cap0))
echo "# idle lie, bounds off: $forged responses forged, ReportsCapped +$cap, W max $(wmax 5601) B"
check "idle lie, max_capacity 0: no report capped (ReportsCapped +$cap)" \
	test "$cap" -eq 0
check "idle lie, bounds off: W runs past 4 B T at $MAXCAP Mbit/s (the attack works)" \
	past_bounds 5601
for kv in max_capacity=$MAXCAP max_growth=100 loss_beta=700 deliv_cap=$deliv0; do
	set_param ${kv%%=*} ${kv#*=}
done

# --- 3. the queue lie, then the receiver stops answering
# once the lie holds the flow (a sample on telemetry, and 1 s of it), the
# receiver stops answering; "quit" (amid a sample's line, as it may come)
# marks the samples after that
receiver_quits() {
	poll 60 grep -q " hpcc " $tmp/flows.5602
	sleep 1
	echo quit >>$tmp/ss.5602
	$P -n $H2 host detach h2r2 >/dev/null 2>&1
}
tmo0=$(hpcc_stat TelemetryTimeouts)
check "queue lie attached" forge_on queue 5602
check "queue lie, then no answers: bytes intact" \
	xfer 5602 $tmp/src receiver_quits
forge_off
tmo=$(($(hpcc_stat TelemetryTimeouts) - tmo0))
echo "# queue lie: $forged responses forged, W max $(wmax 5602) B, TelemetryTimeouts +$tmo"
# at least one sample on telemetry: an empty file must not pass
hsamples() {
	awk '$3 == "hpcc" { n++ } END { print n + 0 }' $tmp/flows.$1
}
check "queue lie: W held at about one MSS (<= 3000 B) in all $(hsamples 5602) samples on telemetry" \
	test "$forged" -gt 0 -a "$(hsamples 5602)" -ge 1 -a "$(wmax 5602)" -le 3000
# after the fallback: loss-based, cwnd and ssthresh at least the initial
# window (the window the flow had when telemetry began)
check "receiver gone: the flow fell back (TelemetryTimeouts +$tmo)" \
	test "$tmo" -ge 1
# the first loss-based sample after the receiver quit that shows the
# socket (the transfer may end first): later losses may lower ssthresh
# as any Reno's
sed -n '/quit/,$p' $tmp/ss.5602 | grep -m 3 '^mode:reno .*cwnd:' | sed 's/^/# after quit: /'
# A loss between the fallback and that sample (1 run in 19) halves
# ssthresh as Reno does: then at least half the initial window. The total
# retransmissions (ss's retrans:N/TOTAL) tell whether one came.
check "after the fallback: ssthresh >= 10 in the first sample in Reno, >= 5 after a loss since the quit (not the lie's 2)" \
	awk 'function total(   i, a) { for (i = 1; i <= NF; i++)
		if ($i ~ /^retrans:/) { split($i, a, "/"); return a[2] + 0 }
		return 0 }
	     /quit/ { q = 1; r0 = last }
	     { last = total() }
	     q && /^mode:reno .*cwnd:/ { for (i = 1; i <= NF; i++)
		if ($i ~ /^ssthresh:/) { split($i, a, ":"); s = a[2] }
		if (s != "") { lost = total() > r0; exit } }
	     END { exit !(s != "" && s >= (lost ? 5 : 10)) }' $tmp/ss.5602

# --- 4. the queue lie with the competition mode on (the default, if it is
# on): the lie's standing queue outlasts compete_rtts T, so the flow turns
# loss-based, as beside any loss-based TCP; the lie buys it no more than
# such a neighbour has
if [ "$compete0" -gt 0 ]; then
	set_param compete_rtts $compete0
	c0=$(hpcc_stat CompeteEntered)
	check "the receiver answers again" $P -n $H2 host attach h2r2
	lied "queue lie, competition on" queue 5603
	c=$(($(hpcc_stat CompeteEntered) - c0))
	echo "# queue lie, competition on: $forged responses forged, CompeteEntered +$c"
	check "queue lie, competition on: the flow went loss-based (CompeteEntered +$c)" \
		test "$c" -ge 1
else
	tap_skip "queue lie, competition on" "compete_rtts is 0"
fi

# --- 5. the idle lie beside two honest flows of the liar's host, which
# path_share lends the peer's latest report, the forged ones too: their
# records carry tx_bytes 0, and a genuine sample after a forged one of
# the same port read as the port's whole byte count sent in one interval
# (u' in the thousands; every flow to that peer sat at w_min with U near
# 18 while the queue was empty). Now that pair is no sample
# (ReportsImplausible). max_capacity at the bottleneck's rate bounds the
# liar's W to 4 B T, so a genuine queue reads as at most a few B T: a U
# of 16 or more in any sample is the flaw.
# crowd PORT...: $tmp/src from H1 to H2 on each PORT at once, H1's flows
# sampled every 0.1 s into $tmp/crowd; 0 if every copy arrived intact
crowd() {
	local p rpids="" spids="" sampler
	for p; do
		rm -f $tmp/dst.$p
		$IP netns exec $H2 ./selftests/hpcc_xfer recv "$p" $tmp/dst.$p &
		rpids="$rpids $!"
		wait_port $H2 "$p"
	done
	rm -f $tmp/crowd.done
	: >$tmp/crowd
	(
		while [ ! -e $tmp/crowd.done ]; do
			$IP netns exec $H1 cat /proc/net/tcp_hpcc >>$tmp/crowd
			sleep 0.1
		done
	) &
	sampler=$!
	for p; do
		$IP netns exec $H1 ./selftests/hpcc_xfer send 10.1.3.1 "$p" \
			$tmp/src hpcc >$tmp/out.$p &
		spids="$spids $!"
	done
	wait $spids
	touch $tmp/crowd.done
	wait $rpids $sampler
	for p; do
		echo "# $p: $(cat $tmp/out.$p)"
		[ "$(sha $tmp/src)" = "$(sha $tmp/dst.$p)" ] || return 1
	done
}
# u_max: the largest U (per mille) of any sample in mode hpcc, and how
# many such samples there were
u_max() {
	awk '$3 == "hpcc" { n++; if ($6 > m) m = $6 }
	     END { printf "%d %d\n", m, n }' $tmp/crowd
}
params_set path_share=1 max_capacity=$BOTTLENECK_MBIT compete_rtts=0
check "the receiver answers" sh -c "$P -n $H2 host detach h2r2 >/dev/null 2>&1;
	$P -n $H2 host attach h2r2 >/dev/null"
imp0=$(hpcc_stat ReportsImplausible) sh0=$(hpcc_stat ReportsShared)
check "liar beside honest flows: the lie attached" forge_on idle 5604
check "liar beside honest flows: bytes intact on all three" \
	crowd 5604 5605 5606
forge_off
imp=$(($(hpcc_stat ReportsImplausible) - imp0))
sh=$(($(hpcc_stat ReportsShared) - sh0))
set -- $(u_max)
echo "# liar beside honest flows: $forged responses forged, ReportsShared +$sh ReportsImplausible +$imp, U max $1 per mille in $2 samples"
check "liar beside honest flows: the host's reports were shared (+$sh)" \
	test "$forged" -gt 5 -a "$sh" -gt 0
check "liar beside honest flows: no U of 16 or more in $2 samples (max $1 per mille)" \
	test "$2" -ge 3 -a "$1" -lt 16000
tap_done
