#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# HPCC under QoS queuing: the telemetry loop (topo.sh) with R2's port
# towards H2 an htb of two classes at half the port each (ceil: the port),
# hpcc's data (DSCP 10) in 1:10 by a u32 filter, everything else in 1:20.
#  qos:   the switch stamps hpcc's class (switch attach --qos), hpcc and a
#         bulk cubic flow (1:20) together;
#  port:  the switch stamps the whole port (no --qos), the same flows;
#  alone: the class stamped, hpcc alone (the scheduler is work-conserving:
#         hpcc must get the port, not its guarantee).
# Each QOS_REPS times; goodput (iperf3's receiver) and the mean backlog of
# hpcc's class printed, means asserted.
. "$(dirname "$0")/lib.sh"
. "$HERE/stress_lib.sh"
. "$HERE/topo.sh"

PORT_MBIT=$((10 / WORK_DIV))
[ "$PORT_MBIT" -ge 2 ] || PORT_MBIT=2
CLASS_MBIT=$((PORT_MBIT / 2))
QOS_REPS=${QOS_REPS:-3}
require probe module
restore() {
	topo_down
	params_restore
}
topo_names q$$
cleanup_trap restore
# the law's own response to each stamp mode: with the whole port stamped,
# the competition mode ("Dynamics") would take cubic's queue for a
# loss-based neighbour and hide the difference behind the class's rate
params_set compete_rtts=0
topo_up || { echo "# topology setup failed"; exit 1; }
$TC -n $R2 qdisc del dev r2h2 root &&
$TC -n $R2 qdisc add dev r2h2 root handle 1: htb default 20 &&
$TC -n $R2 class add dev r2h2 parent 1: classid 1:1 htb rate ${PORT_MBIT}mbit \
	burst 64k &&
$TC -n $R2 class add dev r2h2 parent 1:1 classid 1:10 htb \
	rate ${CLASS_MBIT}mbit ceil ${PORT_MBIT}mbit burst 64k &&
$TC -n $R2 class add dev r2h2 parent 1:1 classid 1:20 htb \
	rate ${CLASS_MBIT}mbit ceil ${PORT_MBIT}mbit burst 64k &&
$TC -n $R2 qdisc add dev r2h2 parent 1:10 handle 10: bfifo limit 300k &&
$TC -n $R2 qdisc add dev r2h2 parent 1:20 handle 20: bfifo limit 300k &&
$TC -n $R2 filter add dev r2h2 parent 1: protocol ip u32 \
	match ip dsfield 0x28 0xfc flowid 1:10 ||
	{ echo "# htb setup failed"; exit 1; }
attach_hosts() {
	./probe/hpcc-probe -n $H1 host attach h1r1 >/dev/null &&
	./probe/hpcc-probe -n $H2 host attach h2r2 >/dev/null && r1_stamp
}
check "hpcc-probe attaches hosts and R1" attach_hosts

# stamp MODE: R2's port stamped as the class (qos) or the port (port)
stamp() {
	./probe/hpcc-probe -n $R2 switch detach r2h2 >/dev/null 2>&1
	if [ "$1" = qos ]; then
		./probe/hpcc-probe -n $R2 switch attach r2h2 --rate ${PORT_MBIT}mbit \
			--switch-id 2 --qos 1:10,${CLASS_MBIT}mbit,10 >/dev/null
	else
		./probe/hpcc-probe -n $R2 switch attach r2h2 --rate ${PORT_MBIT}mbit \
			--switch-id 2 >/dev/null
	fi
}

# cstat HANDLE FIELD: a counter (backlog, bytes) of child qdisc HANDLE
cstat() {
	$TC -n $R2 -s -j qdisc show dev r2h2 |
		sed 's/},{/}\n{/g' | grep "\"handle\":\"$1\"" |
		sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" | head -n1
}

# run BULK: hpcc (DSCP 10) for 8 s, with a cubic flow in 1:20 if BULK is
# 1; prints "hpcc_mbit cubic_mbit mean_backlog_of_1:10"
run() {
	local secs=8 samples=40 p=$((5300 + n * 2))
	[ "$WORK_DIV" -eq 1 ] || secs=30 samples=10
	$IP netns exec $H2 iperf3 -s -D -1 -p $p
	wait_port $H2 $p
	if [ "$1" = 1 ]; then
		$IP netns exec $H2 iperf3 -s -D -1 -p $((p + 1))
		wait_port $H2 $((p + 1))
		$IP netns exec $H1 iperf3 -c 10.1.3.1 -p $((p + 1)) -t $((secs + 2)) \
			-C cubic -f m >/tmp/qos.cubic &
		sleep 1
	fi
	$IP netns exec $H1 iperf3 -c 10.1.3.1 -p $p -t $secs -C hpcc -S 0x28 \
		-f m >/tmp/qos.hpcc &
	sleep 1.5
	: >/tmp/qos.bl
	local b0 t0 b1 t1
	b0=$(cstat 10: bytes) t0=$(date +%s.%N)
	for i in $(seq $samples); do
		cstat 10: backlog >>/tmp/qos.bl
		sleep 0.1
	done
	b1=$(cstat 10: bytes) t1=$(date +%s.%N)
	# what R2 stamps for the class now, and the flow's state
	$IP netns exec $H1 ./probe/hpcc-probe trace 10.1.3.1:$p 2>&1 |
		awk '$1 == 2 { print "trace hop 2:", $0 }' >/tmp/qos.diag
	$IP netns exec $H1 cat /proc/net/tcp_hpcc |
		awk -v p=$p '$2 ~ ":" p "$" { print "flow:", $0 }' >>/tmp/qos.diag
	wait
	echo "$(awk '/receiver/ { print $(NF-2) }' /tmp/qos.hpcc)" \
	     "$( [ "$1" = 1 ] && awk '/receiver/ { print $(NF-2) }' /tmp/qos.cubic || echo 0)" \
	     "$(awk '{ s += $1; k++ } END { printf "%d", k ? s / k : -1 }' /tmp/qos.bl)" \
	     "$(awk -v b0="$b0" -v b1="$b1" -v t0="$t0" -v t1="$t1" \
		'BEGIN { printf "%.1f", (b1 - b0) * 8 / (t1 - t0) / 1e6 }')"
}

n=0
: >/tmp/qos.res
for rep in $(seq $QOS_REPS); do
	for mode in qos port alone alone-port; do
		n=$((n + 1))
		case $mode in
		alone) stamp qos; bulk=0 ;;
		alone-port) stamp port; bulk=0 ;;
		*) stamp $mode; bulk=1 ;;
		esac
		r=$(run $bulk)
		echo "# rep $rep $mode: hpcc cubic(Mbit/s) backlog(1:10, bytes) wire(1:10, Mbit/s): $r"
		echo "$mode $r" >>/tmp/qos.res
		sed 's/^/#   /' /tmp/qos.diag
		sleep 1
	done
done

# stats MODE COLUMN: "mean min max" of COLUMN (2 hpcc, 3 cubic, 4 backlog,
# 5 the class's bytes on the wire)
stats() {
	awk -v m=$1 -v c=$2 '$1 == m { s += $c; k++;
		if (k == 1 || $c < lo) lo = $c; if (k == 1 || $c > hi) hi = $c }
		END { printf "%.1f %.1f %.1f", k ? s / k : -1, lo, hi }' /tmp/qos.res
}
for mode in qos port alone alone-port; do
	echo "# $mode: hpcc $(stats $mode 2) Mbit/s, cubic $(stats $mode 3)" \
	     "Mbit/s, class backlog $(stats $mode 4) bytes, class on the wire" \
	     "$(stats $mode 5) Mbit/s (mean min max of $QOS_REPS);" \
	     "port $PORT_MBIT, class $CLASS_MBIT Mbit/s"
done
set -- $(stats qos 2) && q_gp=$1
set -- $(stats qos 4) && q_bl=$1
set -- $(stats port 2) && p_gp=$1
set -- $(stats alone 5) && a_gp=$1
check "every run measured" \
	awk 'NF != 5 || $2 == "" { bad++ } END { exit !(NR > 0 && !bad) }' \
	/tmp/qos.res
# The class's guarantee, minus the law's headroom (eta) and the
# emulator's slack: 0.8 of it.
perf_check "qos: hpcc gets its class's share beside cubic (>= 0.8 x $CLASS_MBIT)" \
	awk -v g="$q_gp" -v c=$CLASS_MBIT 'BEGIN { exit !(g >= 0.8 * c) }'
# 300k of queue at 5 Mbit/s is 480 ms: a near-zero queue is under 15 KB
perf_check "qos: hpcc's class queue stays near zero (< 15000 bytes)" \
	awk -v b="$q_bl" 'BEGIN { exit !(b >= 0 && b < 15000) }'
perf_check "qos: hpcc gets more than when the whole port is stamped" \
	awk -v q="$q_gp" -v p="$p_gp" 'BEGIN { exit !(q > p) }'
# on the wire (hpcc's goodput is at most 0.908 of it: eta and headers)
perf_check "alone: hpcc's class gets >= 0.9 of the port ($PORT_MBIT Mbit/s)" \
	awk -v g="$a_gp" -v p=$PORT_MBIT 'BEGIN { exit !(g >= 0.9 * p) }'
rm -f /tmp/qos.*
tap_done
