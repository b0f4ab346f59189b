# SPDX-License-Identifier: GPL-2.0
# The demo's small datacenter, sourced by demo/scenarios.sh after
# scripts/lib/netns.sh (for $IP, $TC, veth_link(), ns_del...):
#
#   s1 10.0.1.1 --.                                 .-- d1 10.2.1.1
#   s2 10.0.2.1 ---- r1 ==== r1r2/r2r1 ==== r2 ----+
#   s3 10.0.3.1 --'     10.1.0.1    10.1.0.2   |    '-- d2 10.2.2.1
#                                                  '-- s4 10.3.0.1
#
#   r1 -> s_i  (r1s1..r1s3): netem DC_DELAY_MS, the base RTT (reverse path)
#   r1 -> r2   (r1r2): pfifo, a fast hop (declared 1 Gbit/s for telemetry);
#              for the parking lot (dc_second_bottleneck) a second
#              bottleneck like r2d_j
#   r2 -> s4   (r2s4): netem DC_DELAY_MS; s4 sends across r2d_j only
#   r2 -> d_j  (r2d1, r2d2): the bottlenecks: root tbf DC_RATE_MBIT, whose
#              child is drop-tail bfifo DC_BUF_BYTES, or, for ECN runs,
#              RED marking above DC_ECN_K bytes (the root never changes, so
#              telemetry attached to the port keeps seeing the same qdisc)
#   s_i -> r1, s4 -> r2 (the senders' egress): veth's noqueue, so hpcc and
#              bbr pace with TCP's internal hrtimer (fq here was tried and
#              not kept, experiments.rst); fq for the paced reference only
#              (dc_sender_fq)
# tbf's burst is DC_BURST: under TCG the qdisc watchdog fires milliseconds
# late, and with a 15k burst tbf then delivers only 55-75% of its rate
# (measured); 64k (5 ms at 100 Mbit/s) absorbs that lateness, at the price
# of sub-5 ms bursts when the timer is late.
DC_RATE_MBIT=${DC_RATE_MBIT:-100}
DC_BURST=${DC_BURST:-64k}
DC_DELAY_MS=${DC_DELAY_MS:-4}
DC_BUF_BYTES=${DC_BUF_BYTES:-500000}
DC_ECN_K=${DC_ECN_K:-30000}
DC_SENDERS="s1 s2 s3 s4"
DC_JITTER_LINKS=
DC_RECEIVERS="d1 d2"
DC_BOTTLENECKS="r2d1 r2d2"

dc_up() {
	local ns i j
	for ns in $DC_SENDERS r1 r2 $DC_RECEIVERS; do
		$IP netns add $ns || return 1
		$IP -n $ns link set lo up
	done
	for i in 1 2 3; do
		veth_link s$i s${i}r1 10.0.$i.1/24 r1 r1s$i 10.0.$i.254/24 || return 1
		$IP -n s$i route add default via 10.0.$i.254
		$TC -n r1 qdisc add dev r1s$i root netem delay ${DC_DELAY_MS}ms limit 10000 ||
			return 1
	done
	veth_link r1 r1r2 10.1.0.1/24 r2 r2r1 10.1.0.2/24 || return 1
	veth_link s4 s4r2 10.3.0.1/24 r2 r2s4 10.3.0.254/24 || return 1
	$IP -n s4 route add default via 10.3.0.254
	$TC -n r2 qdisc add dev r2s4 root netem delay ${DC_DELAY_MS}ms limit 10000 ||
		return 1
	for j in 1 2; do
		veth_link r2 r2d$j 10.2.$j.254/24 d$j d${j}r2 10.2.$j.1/24 || return 1
		$IP -n d$j route add default via 10.2.$j.254
		$TC -n r2 qdisc add dev r2d$j root handle 1: tbf rate ${DC_RATE_MBIT}mbit \
			burst $DC_BURST limit $DC_BUF_BYTES || return 1
	done
	$IP -n r1 route add 10.2.0.0/16 via 10.1.0.2
	$IP -n r1 route add 10.3.0.0/24 via 10.1.0.2
	$IP -n r2 route add 10.0.0.0/16 via 10.1.0.1
	$IP netns exec r1 sysctl -qw net.ipv4.ip_forward=1
	$IP netns exec r2 sysctl -qw net.ipv4.ip_forward=1
	$TC -n r1 qdisc add dev r1r2 root pfifo limit 1000
	[ "${DC_RPS:-1}" = 1 ] && { dc_rps || return 1; }
	return 0
}

# dc_rps: steer each veth's received packets to one CPU per flow (RPS over
# all CPUs). A veth hands a packet to the backlog of the CPU that sent it,
# and the senders' pacing timers, ACK processing and tbf's watchdog run on
# either vCPU: without RPS two packets of a flow queued on two CPUs'
# backlogs can arrive swapped, which a NIC's ordered TX queue never does.
dc_rps() {
	local ns mask q
	mask=$(printf %x $(((1 << $(nproc)) - 1)))
	for ns in $DC_SENDERS r1 r2 $DC_RECEIVERS; do
		$IP netns exec $ns sh -c "for q in /sys/class/net/*/queues/rx-*/rps_cpus; do
			case \$q in */lo/*) continue ;; esac
			echo $mask >\$q || exit 1; done" || return 1
	done
}

dc_down() {
	ns_del $DC_SENDERS r1 r2 $DC_RECEIVERS
}

# dc_bottleneck droptail|ecn: the child qdisc of both bottleneck ports
# (and of r1r2 while it is the parking lot's second bottleneck)
DC_SECOND=0
dc_bottleneck() {
	local dev ns
	for dev in $DC_BOTTLENECKS $([ $DC_SECOND = 1 ] && echo r1r2); do
		ns=r2
		[ $dev = r1r2 ] && ns=r1
		dc_child $ns $dev $1 || return 1
	done
}

dc_child() {	# dc_child NS DEV droptail|ecn
	case $3 in
	droptail)
		$TC -n $1 qdisc replace dev $2 parent 1:1 bfifo limit $DC_BUF_BYTES ;;
	ecn)	# DCTCP-style: mark (nearly) everything above K; the
		# average follows the queue within ~20 packets
		$TC -n $1 qdisc replace dev $2 parent 1:1 \
			red limit $DC_BUF_BYTES min $DC_ECN_K \
			max $((DC_ECN_K + 1500)) avpkt 1500 burst 21 \
			probability 1.0 ecn bandwidth ${DC_RATE_MBIT}mbit ;;
	*) return 1 ;;
	esac
}

# dc_second_bottleneck on|off: r1 -> r2 becomes a bottleneck like r2d_j
# (tbf DC_RATE_MBIT, same child qdiscs) for the parking lot; off restores
# the fast hop. The telemetry's declared rate: dc_r1r2_rate.
dc_second_bottleneck() {
	if [ $1 = on ]; then
		$TC -n r1 qdisc replace dev r1r2 root handle 1: tbf \
			rate ${DC_RATE_MBIT}mbit burst $DC_BURST limit $DC_BUF_BYTES ||
			return 1
		DC_SECOND=1
	else
		$TC -n r1 qdisc del dev r1r2 root 2>/dev/null
		$TC -n r1 qdisc add dev r1r2 root pfifo limit 1000 || return 1
		DC_SECOND=0
	fi
}

# dc_r1r2_rate RATE: re-attach r1r2's telemetry declaring RATE, if it
# declares another (seconds under TCG: only for the runs that probe)
DC_R1R2_RATE=1gbit
dc_r1r2_rate() {
	[ "$1" = $DC_R1R2_RATE ] && return 0
	$IP netns exec r1 ./probe/hpcc-probe switch detach r1r2 >/dev/null &&
	$IP netns exec r1 ./probe/hpcc-probe switch attach r1r2 --rate $1 \
		--switch-id 1 >/dev/null && DC_R1R2_RATE=$1
}

# dc_sender_fq on|off: fq on every sender's egress (on), or veth's noqueue.
# The paced reference needs it: TCP's internal pacing, late under TCG,
# delivered 0.57-0.72 of the link when asked for 0.9; fq's EDT 0.73-0.92.
dc_sender_fq() {
	local ns_dev
	for ns_dev in s1:s1r1 s2:s2r1 s3:s3r1 s4:s4r2; do
		case $1 in
		on) $TC -n ${ns_dev%%:*} qdisc replace dev ${ns_dev#*:} root fq ;;
		off) $TC -n ${ns_dev%%:*} qdisc del dev ${ns_dev#*:} root 2>/dev/null; true ;;
		esac || return 1
	done
}

# dc_jitter on|off [PCT]: netem delay jitter on every link, in one
# direction at least: r1 -> r2 (data), r2 -> r1, d_j -> r2 (ACKs), r1 -> s_i
# and r2 -> s4 (ACKs, with the base RTT's delay). Not on the senders' own
# egress: TCP small queues allow only ~1 ms of data in a sender's qdisc, and
# under TCG netem's timer fires milliseconds late, so a netem there
# throttled cubic to 10-15% of the link (measured). Not on the tbf ports.
# A path s_i -> d_j -> s_i crosses 4 jittered egresses, each uniform in
# [D - J, D + J] with 8 J = PCT% of the base RTT (peak to peak); r1 -> s_i
# and r2 -> s4 lose the 3 J the others add, so the mean base RTT stays.
# netem's "rate" (far above the link's) makes each packet leave after the
# one before it, so jitter never reorders (without it netem's tfifo sorts
# by send time and reorders).
dc_jitter() {
	local pct=${2:-20} rtt_us j base ns dev ns_dev
	rtt_us=$(awk -v d=$DC_DELAY_MS 'BEGIN { printf "%d", d * 1000 + 570 }')
	j=$((rtt_us * pct / 800))	# 8 J = pct% of the RTT
	base=$((DC_DELAY_MS * 1000 - 3 * j))
	for ns_dev in r1:r1r2 r2:r2r1 d1:d1r2 d2:d2r2 r1:r1s1 r1:r1s2 r1:r1s3 r2:r2s4; do
		ns=${ns_dev%%:*} dev=${ns_dev#*:}
		case $1:$dev in
		on:r1s* | on:r2s4)
			$TC -n $ns qdisc replace dev $dev root netem delay ${base}us ${j}us \
				rate 10gbit limit 10000 ;;
		on:*)	$TC -n $ns qdisc replace dev $dev root netem delay ${j}us ${j}us \
				rate 10gbit limit 10000 ;;
		off:r1s* | off:r2s4)
			$TC -n $ns qdisc del dev $dev root 2>/dev/null
			$TC -n $ns qdisc add dev $dev root netem delay ${DC_DELAY_MS}ms \
				limit 10000 ;;
		off:r1r2)
			$TC -n $ns qdisc del dev $dev root 2>/dev/null
			$TC -n $ns qdisc add dev $dev root pfifo limit 1000 ;;
		off:*)	$TC -n $ns qdisc del dev $dev root 2>/dev/null; true ;;
		esac || return 1
	done
	DC_JITTER_LINKS=
	[ $1 = on ] && DC_JITTER_LINKS="J=${j}us D=${base}us"
	return 0
}

# dc_ecn 0|1|2: net.ipv4.tcp_ecn on every host (2 is the kernel default)
dc_ecn() {
	local ns
	for ns in $DC_SENDERS $DC_RECEIVERS; do
		$IP netns exec $ns sysctl -qw net.ipv4.tcp_ecn=$1 || return 1
	done
}

# HPCC++ telemetry: reflect/deliver on every host, stamp on the routers'
# egress ports towards the receivers. Fails if hpcc-probe is missing.
dc_telemetry_up() {
	local ns dev
	[ -x ./probe/hpcc-probe ] || return 1
	for ns in $DC_SENDERS; do
		dev=${ns}r1
		[ $ns = s4 ] && dev=s4r2
		$IP netns exec $ns ./probe/hpcc-probe host attach $dev || return 1
	done
	# receivers answer a probe that asks for a window (Rx-HPCC) with one;
	# senders ask only with rx_window=1 (--hpcc-settings)
	for ns in $DC_RECEIVERS; do
		$IP netns exec $ns ./probe/hpcc-probe host attach ${ns}r2 \
			--rx-window || return 1
	done
	$IP netns exec r1 ./probe/hpcc-probe switch attach r1r2 --rate 1gbit \
		--switch-id 1 || return 1
	$IP netns exec r2 ./probe/hpcc-probe switch attach r2d1 \
		--rate ${DC_RATE_MBIT}mbit --switch-id 2 || return 1
	$IP netns exec r2 ./probe/hpcc-probe switch attach r2d2 \
		--rate ${DC_RATE_MBIT}mbit --switch-id 2
}
