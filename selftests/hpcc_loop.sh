#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The telemetry loop on sender - router1 - router2 - receiver: stamping,
# reflection, delivery to the module, hpcc-probe trace, hpcc's queue and
# goodput on a tbf bottleneck (cubic logged beside), and a receiver without
# the reflector.
. "$(dirname "$0")/lib.sh"
. "$HERE/stress_lib.sh"
. "$HERE/topo.sh"

require probe module
topo_names l$$
cleanup_trap topo_down
topo_up || { echo "# topology setup failed"; exit 1; }
check "hpcc-probe attaches hosts and routers" topo_telemetry_up
# trace's probes belong to a connection: a listener for them
$IP netns exec $H2 iperf3 -s -D -p 5200
wait_port $H2 5200

# --- trace: two hops, in order, with the routers' ids and ports
out=$($IP netns exec $H1 ./probe/hpcc-probe trace 10.1.3.1:5200 2>&1)
echo "$out" | sed 's/^/# /'
r1port=$($IP -n $R1 -o link show r1r2 | cut -d: -f1)
r2port=$($IP -n $R2 -o link show r2h2 | cut -d: -f1)
hops=$(echo "$out" | awk '$1 ~ /^[0-9]+$/ { print $1, $2, $3 }' | tr '\n' ' ')
check "trace: 2 hops, switch 1 port $r1port then switch 2 port $r2port" \
	test "$hops" = "1 1 $r1port 2 2 $r2port "

# --- stamped bytes agree with tc -s qdisc (idle port: exactly)
$IP netns exec $H2 iperf3 -s -D -1 -p 5201
wait_port $H2 5201
$IP netns exec $H1 iperf3 -c 10.1.3.1 -p 5201 -t 2 -C cubic >/dev/null
# port_quiet NS DEV: an empty queue, and nothing sent for 0.1 s
port_quiet() {
	local b0
	b0=$(qstat "$1" "$2" bytes)
	sleep 0.1
	[ "$(qstat "$1" "$2" backlog)" = 0 ] && [ "$(qstat "$1" "$2" bytes)" = "$b0" ]
}
poll 5 port_quiet $R2 r2h2 || echo "# r2h2 still busy after the cubic flow"
out=$($IP netns exec $H1 ./probe/hpcc-probe trace 10.1.3.1:5200 2>&1)
tc_bytes=$(qstat $R2 r2h2 bytes)
tc_backlog=$(qstat $R2 r2h2 backlog)
# table: hop switch_id port capacity(2 words) queue_bytes tx_bytes delta
st_bytes=$(echo "$out" | awk '$1 == 2 { print $7 }')
st_q=$(echo "$out" | awk '$1 == 2 { print $6 }')
echo "# idle bottleneck: stamped tx_bytes $st_bytes qlen $st_q; tc bytes $tc_bytes backlog $tc_backlog"
# the probe itself is counted by tc after it was stamped, and trace's
# RST that ends its connection (340 + 54 bytes); on a loaded emulator
# also a repeated ACK of its handshake (66), the server's SYN-ACK having
# timed out before it left
check "idle port: stamped tx_bytes == tc bytes before the probe" \
	test -n "$st_bytes" -a "$tc_bytes" -ge "$st_bytes" -a \
	$((tc_bytes - st_bytes)) -le 500
check "idle port: stamped qlen == tc backlog == 0" \
	test "$st_q" = 0 -a "$tc_backlog" = 0

# --- under load: the stamped queue is the port's backlog. UDP at 5 times
# a 10 Mbit/s tbf holds its 600k queue standing: it takes 0.5 s to drain,
# longer than a sender under a loaded emulator stalls. (The debug kernel
# sends UDP at some 2 Mbit/s: 1 Mbit/s there.)
$TC -n $R2 qdisc change dev r2h2 root tbf rate $((10 / WORK_DIV))mbit burst 15k limit 600k
$IP netns exec $H2 iperf3 -s -D -1 -p 5202
wait_port $H2 5202
$IP netns exec $H1 iperf3 -c 10.1.3.1 -p 5202 -t 240 -u -b 50M -l 1400 >/dev/null &
udp=$!
# queue_standing: wait up to 10 s for the UDP flow's standing queue (a
# slow emulator stalls its sender for seconds now and then)
queue_standing() {
	for j in $(seq 100); do
		[ "$(qstat $R2 r2h2 backlog)" -ge 300000 ] 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
qs=""
# a full 600k queue drains in 4.8 s at the debug kernel's 1 Mbit/s
wait_s=3
[ "$WORK_DIV" -eq 1 ] || wait_s=10
# A probe waits through the queue and is stamped as it leaves, so a sender
# stall while it waits leaves it a short queue to report: up to 16 probes,
# until 8 have gone and 3 saw the standing queue.
seen=0
for i in $(seq 16); do
	queue_standing || echo "# no standing queue before probe $i"
	b1=$(qstat $R2 r2h2 backlog)
	q=$($IP netns exec $H1 ./probe/hpcc-probe trace 10.1.3.1:5200 --timeout $wait_s 2>&1 |
		awk '$1 == 2 { print $6 }')
	b2=$(qstat $R2 r2h2 backlog)
	qs="$qs $b1:$q:$b2"
	[ "${q:-0}" -gt 100000 ] 2>/dev/null && seen=$((seen + 1))
	[ $i -ge 8 ] && [ $seen -ge 3 ] && break
done
kill -INT $udp 2>/dev/null	# iperf3 ends the test with its server
wait $udp
$TC -n $R2 qdisc change dev r2h2 root tbf rate ${BOTTLENECK_MBIT}mbit \
	burst $BOTTLENECK_BURST limit 600k
echo "# loaded bottleneck backlog before:stamped:after $qs"
# The stamps see the standing queue and never more than the qdisc can
# hold (limit 600k plus one packet). Whether each lies between the
# backlog read just before and after depends on how the queue moved in
# between, which a loaded emulator makes arbitrary; tests/bpf's qdisc
# cases compare stamps with tc exactly. A full drop-tail queue may drop a
# probe (no answer), but at least 3 must come back and see the queue.
check "loaded port: stamps see the standing queue, none above the qdisc limit" \
	sh -c "echo '$qs' | tr ' ' '\n' | awk -F: 'NF == 3 && \$2 != \"\" {
		n++; if (\$2 > 614400 + 1514) bad++; if (\$2 > 100000) seen++ }
		END { exit !(n >= 3 && seen >= 3 && !bad) }'"

# --- one long flow: hpcc against cubic on the same path
rtt=$($IP netns exec $H1 ping -c 5 -i 0.2 -q 10.1.3.1 | sed -n 's|.*= \([0-9.]*\)/.*|\1|p')
bdp=$(awk -v r="$rtt" -v b=$BOTTLENECK_MBIT 'BEGIN { printf "%d", b * 1e6 / 8 * r / 1e3 }')
echo "# base RTT ${rtt} ms, BDP $bdp bytes at $BOTTLENECK_MBIT Mbit/s"

# run CC PORT: goodput Mbit/s and time-averaged backlog of a flow
run() {
	$IP netns exec $H2 iperf3 -s -D -1 -p "$2"
	wait_port $H2 "$2"
	# the workload: an 8 s flow, its first 1.5 s unsampled, then up to
	# 50 samples of the backlog 0.1 s apart while it runs, and of the
	# flow's state at most every 0.5 s. A sample takes two seconds on the
	# debug kernel (a 30 s flow and 6 samples there), and up to a second
	# on a slow emulator, so the flow's state is paced by the clock, not
	# by a count of samples.
	local secs=8 samples=50 client last=-100 now
	[ "$WORK_DIV" -eq 1 ] || secs=30 samples=6
	$IP netns exec $H1 iperf3 -c 10.1.3.1 -p "$2" -t $secs -C "$1" -f m \
		>/tmp/iperf.$1 &
	client=$!
	sleep 1.5
	: >/tmp/backlog.$1
	: >/tmp/flows.$1
	for i in $(seq $samples); do
		kill -0 $client 2>/dev/null || break
		qstat $R2 r2h2 backlog >>/tmp/backlog.$1
		now=$(awk '{ printf "%d", $1 * 100 }' /proc/uptime)
		if [ $((now - last)) -ge 50 ]; then
			last=$now
			$IP netns exec $H1 cat /proc/net/tcp_hpcc |
				awk -v p="$2" '$2 ~ ":" p "$"' >>/tmp/flows.$1
		fi
		sleep 0.1
	done
	wait
	gp=$(awk '/receiver/ { print $(NF-2) }' /tmp/iperf.$1)
	q=$(awk '{ s += $1; n++ } END { printf "%d", n ? s / n : -1 }' /tmp/backlog.$1)
	echo "$gp $q"
}
sent0=$(hpcc_stat ProbesSent)
used0=$(hpcc_stat ReportsUsed)
set -- $(run hpcc 5204)
hpcc_gp=$1 hpcc_q=$2
sent=$(($(hpcc_stat ProbesSent) - sent0))
used=$(($(hpcc_stat ReportsUsed) - used0))
# cubic is only compared with (perf_check), which the debug kernel skips
if [ "$WORK_DIV" -eq 1 ]; then
	set -- $(run cubic 5203)
	cubic_gp=$1 cubic_q=$2
	echo "# cubic: goodput $cubic_gp Mbit/s, mean backlog $cubic_q bytes"
fi
echo "# hpcc:  goodput $hpcc_gp Mbit/s, mean backlog $hpcc_q bytes ($((hpcc_q * 100 / bdp))% of BDP)"
# probe bytes on the wire: 14 + 20 + 20 + 272 per probe and per response
echo "# hpcc probes sent $sent, reports used $used; probe+response bytes per data byte:" \
	"$(awk -v n="$sent" -v g="$hpcc_gp" 'BEGIN { printf "%.5f", n * 2 * 326 / (g * 1e6 / 8 * 8) }')"
check "responses reach the module: reports used during the hpcc flow" \
	test "$used" -gt 10
# The issue's targets (85% of the link, backlog under 20% of the BDP) are
# performance and depend on how busy the emulator is: printed here, judged
# in the benchmark (make bench). Asserted is the behaviour, with margins
# far outside the emulator's noise: the law keeps the queue under half a
# BDP (cubic's, logged, usually fills the buffer: 350-400 KB; one run's
# cubic averaged 20 KB, and a fifth of cubic's then failed a 4 KB queue),
# and does not starve the flow.
sed 's/^/# flow: /' /tmp/flows.hpcc
echo "# measured: hpcc goodput $(awk -v g="$hpcc_gp" -v b=$BOTTLENECK_MBIT 'BEGIN { printf "%.0f", 100 * g / b }')% of the link (target 85%)," \
	"mean backlog $((hpcc_q * 100 / bdp))% of the BDP (target < 20%)"
perf_check "hpcc's mean backlog under half a BDP" \
	test "$hpcc_q" -ge 0 -a $((hpcc_q * 2)) -lt "$bdp"
# against cubic in the same run, not the link: a loaded emulator slows both
perf_check "hpcc's goodput above half of cubic's" \
	awk -v g="$hpcc_gp" -v c="$cubic_gp" 'BEGIN { exit !(g > c / 2) }'
check "the hpcc flow ran on telemetry (mode hpcc in every sample)" \
	awk '{ n++; if ($3 == "hpcc") h++ } END { exit !(n >= 2 && h == n) }' \
	/tmp/flows.hpcc
check "the law's pacing rate never above the bottleneck's B" \
	awk -v B=$((BOTTLENECK_MBIT * 125000)) \
	'{ n++; if ($9 > 0 && $9 <= B) ok++ } END { exit !(n >= 2 && ok == n) }' \
	/tmp/flows.hpcc

# --- a receiver without the reflector: intact stream, sender falls back
./probe/hpcc-probe -n $H2 host detach h2r2
dd if=/dev/urandom of=/tmp/src bs=1M count=$((WORK_DIV > 1 ? 2 : 16)) status=none
lost0=$(hpcc_stat ProbesLost)
$IP netns exec $H2 ./selftests/hpcc_xfer recv 5300 /tmp/dst &
wait_port $H2 5300
out=$($IP netns exec $H1 ./selftests/hpcc_xfer send 10.1.3.1 5300 /tmp/src hpcc)
wait
echo "# $out"
check "no reflector: receiver's sha256 matches" \
	test "$(sha256sum </tmp/src | cut -d' ' -f1)" = "$(sha256sum </tmp/dst | cut -d' ' -f1)"
check "no reflector: the sender noticed unanswered probes" \
	test "$(hpcc_stat ProbesLost)" -gt "$lost0"
rm -f /tmp/src /tmp/dst /tmp/iperf.* /tmp/backlog.* /tmp/flows.*
tap_done
