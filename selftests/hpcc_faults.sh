#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Telemetry faults under live hpcc transfers on topo.sh's topology
# (h1 - r1 - r2 - h2, names unique to this test), every transfer a
# pattern stream checked byte by byte and by SHA-256 on both ends:
#
# 1. routers: with a long transfer running, r1's stamping is detached
#    (the flow goes on with r2's hop alone), then r2's, the bottleneck's:
#    responses come back without a hop, so the law has nothing to use and
#    the flow must fall back to loss-based (mode reno, TelemetryTimeouts
#    and ReportsNoCapacity grow); both re-attached, it must return to hpcc
#    with 2 hops; r2's counters reset (hpcc-probe has no reset: detach and
#    attach) must leave the flow on telemetry.
# 2. a receiver without the reflector: the flow stays loss-based (no
#    telemetry ever), ProbesLost grows, ReportsAccepted does not, probes
#    back off to the cap (unanswered 6, never more) and every probe that
#    left is counted lost but the last.
# 3. probe loss: r1 drops a third of the probe-DSCP packets (u32 + gact
#    netrand): the flow keeps working on telemetry, every probe is
#    accounted for (sent = accepted + lost, give or take the one
#    outstanding), at least the dropped ones are counted lost, the
#    backoff never goes past its cap, and the flow leaves telemetry only
#    after 3 probes in a row brought nothing.
# 4. idle: a connection sends a file, idles 1 s (hundreds of RTTs), sends
#    it again, idles and closes. Idle is not lost telemetry: neither the
#    restart nor the FIN's ACK may count a TelemetryTimeout. With h2's
#    reflector detached during the idle, the restart's probes go
#    unanswered and telemetry ends once (bytes intact either way).
. "$(dirname "$0")/lib.sh"
BOTTLENECK_MBIT=${BOTTLENECK_MBIT:-50}
. "$HERE/stress_lib.sh"
. "$HERE/topo.sh"

require probe hpcc_stress hpcc_xfer module

topo_names f$$
tmp=/tmp/faults.$$
sink= cli=
cleanup() {
	exec 3>&-
	for p in $cli $sink; do
		kill $p 2>/dev/null
		wait $p 2>/dev/null
	done
	topo_down
	rm -rf $tmp
}
cleanup_trap cleanup
mkdir -p $tmp
topo_up || { echo "# topology setup failed"; exit 1; }
# a shorter buffer than topo.sh's: loss-based phases fill it, and the
# probe timeout grows with the RTT
$TC -n $R2 qdisc change dev r2h2 root tbf rate ${BOTTLENECK_MBIT}mbit \
	burst $BOTTLENECK_BURST limit 64k
check "telemetry on: hosts reflect and deliver, both routers stamp" topo_telemetry_up

$IP netns exec $H2 "$HERE/hpcc_stress" sink 7400 -t $(scaled 120) >$tmp/sink 2>$tmp/sink.err &
sink=$!
poll 10 sh -c "$IP netns exec $H2 cat /proc/net/tcp6 | grep -q ':1CE8 .* 0A '" ||
	echo "# the sink is not listening"

# start_stream NAME: an hpcc stream h1 -> h2 until stop_stream; its local
# port in $port
start_stream() {
	rm -f $tmp/ctl
	mkfifo $tmp/ctl
	nstream=$((nstream + 1))
	$IP netns exec $H1 "$HERE/hpcc_stress" stream 10.1.3.1 7400 -c hpcc \
		-i $nstream <$tmp/ctl >$tmp/$1 2>$tmp/$1.err &
	cli=$!
	exec 3>$tmp/ctl
	poll 20 grep -q '^connected' $tmp/$1
	port=$(awk '/^connected/ { print $2 }' $tmp/$1)
	echo "# stream $1 from port $port: $(head -n1 $tmp/$1)"
}
# stop_stream NAME: ends it; 0 if it arrived intact
stop_stream() {
	echo stop >&3
	exec 3>&-
	poll 120 sh -c "! kill -0 $cli 2>/dev/null"
	wait $cli
	rc=$?
	cli=
	sed -n 's/^stream /# stream /p' $tmp/$1
	sed 's/^/# error: /' $tmp/$1.err | head -n 5
	[ $rc -eq 0 ] && grep -q ' intact$' $tmp/$1
}
nstream=0
# centiseconds since boot
now_cs() {
	awk '{ printf "%d", $1 * 100 }' /proc/uptime
}
# the path's base RTT in ms (the smallest of a few pings): a probe
# timeout is at least 3 of them (3 srtt, srtt >= the base RTT)
rtt_ms=$($IP netns exec $H1 ping -c 5 -i 0.2 -q 10.1.3.1 | sed -n 's|.*= \([0-9.]*\)/.*|\1|p')
echo "# base RTT ${rtt_ms:-?} ms"
# most probes a flow can send in CS centiseconds with its backoff at the
# cap (one per 64 timeouts) after the 7 that get it there, had it started
# with 3 base RTTs as its timeout
backoff_bound() {	# CS
	awk -v cs="$1" -v r="${rtt_ms:-1}" 'BEGIN { printf "%d", 8 + cs * 10 / (64 * 3 * r) }'
}
field() {		# COLUMN of our flow
	flow_field $H1 $port "$1"
}
mode_hops() {		# MODE HOPS
	[ "$(field mode)" = "$1" ] && [ "$(field hops)" = "$2" ]
}

# ---- 1. router faults ---------------------------------------------------------
start_stream routers
check "a long hpcc transfer runs on telemetry from both routers" \
	poll 20 mode_hops hpcc 2

./probe/hpcc-probe -n $R1 switch detach --all >/dev/null
check "r1 detached mid-flow: the flow goes on with r2's hop alone (hpcc, 1 hop)" \
	poll 20 mode_hops hpcc 1

to0=$(hpcc_stat TelemetryTimeouts) nocap0=$(hpcc_stat ReportsNoCapacity)
./probe/hpcc-probe -n $R2 switch detach --all >/dev/null
check "r2 (the bottleneck) detached too: telemetry stops, the flow falls back to loss-based (reno)" \
	poll 20 flow_mode_is $H1 $port reno
to=$(($(hpcc_stat TelemetryTimeouts) - to0))
nocap=$(($(hpcc_stat ReportsNoCapacity) - nocap0))
check "TelemetryTimeouts grew (+$to)" test $to -gt 0
check "responses still came back, without a hop (ReportsNoCapacity +$nocap)" test $nocap -gt 0

used0=$(hpcc_stat ReportsUsed)
r1_stamp && r2_stamp
check "both routers re-attached: back to hpcc with 2 hops" poll 20 mode_hops hpcc 2
check "the law uses reports again (ReportsUsed +$(($(hpcc_stat ReportsUsed) - used0)))" \
	stat_grew ReportsUsed $used0

# the program id and switch_stamped of NS's switch instance in a saved
# `hpcc-probe status` (one run: it is slow on a debug kernel)
switch_prog() {		# FILE NS
	awk -v ns="$2" '/^switch \[/ && index($0, ns) { for (i = 1; i < NF; i++)
		if ($i == "prog" && $(i + 1) == "id") { sub(",", "", $(i + 2)); print $(i + 2); exit } }' "$1"
}
switch_stamped() {	# FILE NS
	awk -v ns="$2" '/^[^ ]/ { mine = /^switch \[/ && index($0, ns) }
		mine { for (i = 1; i < NF; i++) if ($i == "switch_stamped") { print $(i + 1); exit } }' "$1"
}
# every report used since r2 came back carried r2's stamp (2 hops): 50 of
# them and its counter is well above what a fresh instance shows
poll 30 stat_grew ReportsUsed $((used0 + 50))
./probe/hpcc-probe status >$tmp/status0 2>&1
./probe/hpcc-probe -n $R2 switch detach --all >/dev/null && r2_stamp
./probe/hpcc-probe status >$tmp/status1 2>&1
before=$(switch_stamped $tmp/status0 $R2) id0=$(switch_prog $tmp/status0 $R2)
after=$(switch_stamped $tmp/status1 $R2) id1=$(switch_prog $tmp/status1 $R2)
echo "# r2 reset: program $id0 -> $id1, switch_stamped $before -> $after"
reset_seen() {
	[ -n "$id0" ] && [ -n "$id1" ] && [ "$id0" != "$id1" ] &&
		[ -n "$before" ] && [ -n "$after" ] && [ "$after" -lt "$before" ]
}
check "r2's stamping reset by detach + attach: a new program, counters from zero" reset_seen
used0=$(hpcc_stat ReportsUsed)
check "after the reset the flow is on telemetry with r2's hop again (2 hops)" \
	poll 20 mode_hops hpcc 2
check "and the law uses its reports (ReportsUsed grows)" poll 20 stat_grew ReportsUsed $used0
check "the long transfer arrived byte-exact through all of it" stop_stream routers

# ---- 2. no reflector at the receiver --------------------------------------------
./probe/hpcc-probe -n $H2 host detach h2r2 >/dev/null
lost0=$(hpcc_stat ProbesLost) sent0=$(hpcc_stat ProbesSent)
acc0=$(hpcc_stat ReportsAccepted)
: >$tmp/samples
sample() {
	local m=$(field mode)
	[ -z "$m" ] || echo "$m $(field age_us) $(field unanswered)" >>$tmp/samples
}
lost_at_least() {	# N: sample, and ProbesLost grew by N
	sample
	[ $(($(hpcc_stat ProbesLost) - lost0)) -ge "$1" ]
}
t0=$(now_cs)
start_stream noreflector
# 6 doublings of the probe timeout (up to 63 timeouts), then one probe
# per 64 timeouts: the 7th loss comes with unanswered at its cap
poll 120 lost_at_least 7
unans=$(field unanswered)
check "no reflector: the transfer arrived byte-exact" stop_stream noreflector
cs=$(($(now_cs) - t0))
lost=$(($(hpcc_stat ProbesLost) - lost0)) sent=$(($(hpcc_stat ProbesSent) - sent0))
acc=$(($(hpcc_stat ReportsAccepted) - acc0))
n=$(wc -l <$tmp/samples)
echo "# no reflector: probes sent $sent, lost $lost, reports accepted $acc;" \
	"$n samples of mode/age/unanswered: $(sort $tmp/samples | uniq -c | tr -s ' \n' ' ')"
check "the flow stayed loss-based, never had telemetry (reno, age '-' in all $n samples)" \
	awk '$1 != "reno" || $2 != "-" { bad++ } END { exit !(NR >= 2 && !bad) }' $tmp/samples
check "ProbesLost grew (+$lost)" test $lost -ge 7
check "ReportsAccepted did not (+$acc)" test $acc -eq 0
bound=$(backoff_bound $cs)
check "probes backed off: $sent in $((cs / 100)).$((cs % 100 / 10)) s, at most $bound with the timeout doubling to 64 times" \
	test $sent -le $bound
# /proc/net/tcp_hpcc's unanswered column is the count of probes lost in a
# row (the backoff exponent)
check "/proc/net/tcp_hpcc shows the backoff at its cap: unanswered $unans, never above 6" \
	sh -c "test '$unans' = 6 && awk '\$3 > 6 { exit 1 }' $tmp/samples"
check "every probe that left was counted lost but the last ($sent sent, $lost lost)" \
	test $((sent - lost)) -ge 0 -a $((sent - lost)) -le 1
./probe/hpcc-probe -n $H2 host attach h2r2 >/dev/null

# ---- 3. probe loss on r1 ----------------------------------------------------------
tos=$(printf '0x%x' $(($(cat $PARAMS/probe_dscp) << 2)))
$TC -n $R1 qdisc add dev r1h1 clsact
check "r1 drops one in three probe-DSCP packets (u32 tos $tos, gact netrand)" \
	$TC -n $R1 filter add dev r1h1 ingress protocol ip prio 1 u32 \
	match ip tos $tos 0xfc action gact pass random netrand drop 3
lost0=$(hpcc_stat ProbesLost) sent0=$(hpcc_stat ProbesSent)
acc0=$(hpcc_stat ReportsAccepted) used0=$(hpcc_stat ReportsUsed)
to0=$(hpcc_stat TelemetryTimeouts) nocap0=$(hpcc_stat ReportsNoCapacity)
: >$tmp/samples
sent_at_least() {	# N: sample, and ProbesSent grew by N
	sample
	[ $(($(hpcc_stat ProbesSent) - sent0)) -ge "$1" ]
}
t0=$(now_cs)
start_stream probeloss
poll 120 sent_at_least 120
check "with probes dropped: the transfer arrived byte-exact" stop_stream probeloss
cs=$(($(now_cs) - t0))
drops=$($TC -s -n $R1 filter show dev r1h1 ingress | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n1)
lost=$(($(hpcc_stat ProbesLost) - lost0)) sent=$(($(hpcc_stat ProbesSent) - sent0))
acc=$(($(hpcc_stat ReportsAccepted) - acc0)) used=$(($(hpcc_stat ReportsUsed) - used0))
to=$(($(hpcc_stat TelemetryTimeouts) - to0))
nocap=$(($(hpcc_stat ReportsNoCapacity) - nocap0))
n=$(wc -l <$tmp/samples)
hp=$(awk '$1 == "hpcc"' $tmp/samples | wc -l)
echo "# probe loss: sent $sent, dropped by r1 $drops, lost $lost, accepted $acc, used $used;" \
	"telemetry timeouts $to; mode hpcc in $hp of $n samples"
check "r1 dropped probes ($drops)" test "${drops:-0}" -gt 0
check "every probe accounted for: sent $sent = accepted $acc + lost $lost (+1 outstanding)" \
	test $((sent - acc - lost)) -ge 0 -a $((sent - acc - lost)) -le 1
check "the dropped probes were counted lost ($lost >= $drops - 1)" \
	test $lost -ge $((${drops:-0} - 1))
check "telemetry kept flowing: $acc of $sent probes answered (2/3 expected), each report used ($used)" \
	test $((acc * 2)) -ge $sent -a $used -ge $((acc - 1)) -a $used -gt 0
check "the flow returned to hpcc after losses (mode hpcc in $hp of $n samples)" test $hp -gt 0
# telemetry ends only after 3 probes in a row brought nothing, and a used
# report starts the count anew: a lost probe here and there is no outage
check "each fallback took 3 probes that brought nothing: $to fallbacks, $lost lost, $nocap without capacity" \
	test $((to * 3)) -le $((lost + nocap))
bound=$(backoff_bound $cs)
check "backoff bounded, answers reset it: $sent probes in $((cs / 100)) s (at most $bound had it stuck at its cap)" \
	test $sent -gt $bound
$TC -n $R1 qdisc del dev r1h1 clsact

kill $sink
poll 20 sh -c "! kill -0 $sink 2>/dev/null"
wait $sink
sink=
echo "# $(cat $tmp/sink)"
check "the receiver saw every stream byte-exact" \
	sh -c "grep -q 'streams=$nstream .* bad=0 errors=0 ' $tmp/sink"

# --- 4. idle
dd if=/dev/urandom of=$tmp/src bs=256k count=8 status=none
cat $tmp/src $tmp/src >$tmp/src2
# first_copy_in: the receiver has the first copy
first_copy_in() {
	[ "$(stat -c %s $tmp/dst 2>/dev/null || echo 0)" -ge \
		"$(stat -c %s $tmp/src)" ]
}
# idle_xfer PORT [ACTION]: src, 1 s idle, src again, 1 s idle, FIN; ACTION
# runs as soon as the first copy has arrived (in the idle, on any
# kernel). Sets timeouts, and after (reports used from the first idle
# on); fails unless both copies arrived intact.
idle_xfer() {
	local t0 u0 pids
	t0=$(hpcc_stat TelemetryTimeouts) u0=$(hpcc_stat ReportsUsed)
	rm -f $tmp/dst $tmp/used1
	$IP netns exec $H2 "$HERE/hpcc_xfer" recv "$1" $tmp/dst &
	pids=$!
	wait_port $H2 "$1"
	(
		poll 60 first_copy_in || exit 1
		hpcc_stat ReportsUsed >$tmp/used1
		${2:-true}
	) &
	pids="$pids $!"
	echo "# $($IP netns exec $H1 timeout $(scaled 120) "$HERE/hpcc_xfer" \
		send 10.1.3.1 "$1" $tmp/src hpcc 1000)"
	wait $pids
	timeouts=$(($(hpcc_stat TelemetryTimeouts) - t0))
	after=$(($(hpcc_stat ReportsUsed) - $(cat $tmp/used1 || echo "$u0")))
	echo "# $after reports used after the first copy, $timeouts telemetry timeouts"
	[ "$(sha $tmp/src2)" = "$(sha $tmp/dst)" ]
}
detach_h2() {
	./probe/hpcc-probe -n $H2 host detach h2r2 >/dev/null
}
check "idling connection: both copies arrived intact" idle_xfer 7410
check "idle is not a telemetry timeout ($timeouts); the restart ran on reports ($after)" \
	test "$timeouts" -eq 0 -a "$after" -ge 5
check "reflector gone during the idle: both copies arrived intact" \
	idle_xfer 7411 detach_h2
check "reflector gone during the idle: telemetry timed out once ($timeouts)" \
	test "$timeouts" -eq 1
tap_done
