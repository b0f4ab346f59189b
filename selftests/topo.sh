# SPDX-License-Identifier: GPL-2.0
# The telemetry-loop topology, sourced by the loop tests:
#
#   h1 (sender) --- r1 ============ r2 --- h2 (receiver)
#   10.1.1.1     .254  10.1.2.1  .2  .254   10.1.3.1
#
# r1 and r2 forward; probes are stamped on r1's port towards r2 (r1r2,
# pfifo, declared 1gbit) and r2's port towards h2 (r2h2, the tbf
# bottleneck). netem on r1's port towards h1 gives the base RTT; h1 paces
# through fq.
BOTTLENECK_MBIT=${BOTTLENECK_MBIT:-150}
BOTTLENECK_BURST=${BOTTLENECK_BURST:-64k}
DELAY_MS=${DELAY_MS:-2}

link() {	# link NS1 DEV1 ADDR1 NS2 DEV2 ADDR2
	$IP link add "$2" netns "$1" type veth peer name "$5" netns "$4"
	$IP -n "$1" addr add "$3" dev "$2"
	$IP -n "$4" addr add "$6" dev "$5"
	$IP -n "$1" link set "$2" up
	$IP -n "$4" link set "$5" up
}

topo_up() {
	local ns
	for ns in h1 r1 r2 h2; do
		$IP netns add $ns
		$IP -n $ns link set lo up
	done
	link h1 h1r1 10.1.1.1/24 r1 r1h1 10.1.1.254/24
	link r1 r1r2 10.1.2.1/24 r2 r2r1 10.1.2.2/24
	link r2 r2h2 10.1.3.254/24 h2 h2r2 10.1.3.1/24
	$IP -n h1 route add default via 10.1.1.254
	$IP -n h2 route add default via 10.1.3.254
	$IP -n r1 route add 10.1.3.0/24 via 10.1.2.2
	$IP -n r2 route add 10.1.1.0/24 via 10.1.2.1
	$IP netns exec r1 sysctl -qw net.ipv4.ip_forward=1
	$IP netns exec r2 sysctl -qw net.ipv4.ip_forward=1
	# no offloads that would merge or split what the qdiscs account
	$TC -n r1 qdisc add dev r1r2 root pfifo limit 1000
	# a 64 KB bucket: under TCG tbf's watchdog fires late, and a 15 KB
	# bucket then delivers only 55-75% of the rate to a paced sender
	$TC -n r2 qdisc add dev r2h2 root tbf rate ${BOTTLENECK_MBIT}mbit \
		burst $BOTTLENECK_BURST limit 600k
	$TC -n r1 qdisc add dev r1h1 root netem delay ${DELAY_MS}ms limit 10000
	# senders pace (hpcc, bbr): fq's EDT pacing, as operators deploy them;
	# TCP's per-burst hrtimer pacing loses a third of the rate under TCG
	$TC -n h1 qdisc add dev h1r1 root fq
}

# Detach through hpcc-probe first: its pinned programs would outlive the
# namespaces, and hpcc_host's kfunc reference would keep tcp_hpcc loaded.
topo_down() {
	./probe/hpcc-probe -n h1 host detach h1r1 >/dev/null 2>&1
	./probe/hpcc-probe -n h2 host detach h2r2 >/dev/null 2>&1
	./probe/hpcc-probe -n r1 switch detach --all >/dev/null 2>&1
	./probe/hpcc-probe -n r2 switch detach --all >/dev/null 2>&1
	ns_del h1 r1 r2 h2
}

# telemetry on: reflector/deliverer on both hosts, stamping on both routers
telemetry_up() {
	./probe/hpcc-probe -n h1 host attach h1r1 &&
	./probe/hpcc-probe -n h2 host attach h2r2 &&
	./probe/hpcc-probe -n r1 switch attach r1r2 --rate 1gbit --switch-id 1 &&
	./probe/hpcc-probe -n r2 switch attach r2h2 --rate ${BOTTLENECK_MBIT}mbit --switch-id 2
}

# a router port's root qdisc counter: qstat NS DEV FIELD (bytes|backlog);
# root only: with a tc program attached, clsact is listed too
qstat() {
	$TC -n "$1" -s -j qdisc show dev "$2" root |
		sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p" | head -n1
}
