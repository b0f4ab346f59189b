# SPDX-License-Identifier: GPL-2.0
# The telemetry-loop topology, sourced (after lib.sh) by the tests that
# need four namespaces; their names end in the test's SUFFIX (topo_names),
# so that no two runs share one:
#
#   $H1 (sender) --- $R1 ============ $R2 --- $H2 (receiver)
#   10.1.1.1      .254  10.1.2.1  .2  .254    10.1.3.1
#
# R1 and R2 forward; probes are stamped on R1's port towards R2 (r1r2,
# pfifo, declared 1gbit) and R2's port towards H2 (r2h2, the tbf
# bottleneck at BOTTLENECK_MBIT). netem on R1's port towards H1 (r1h1)
# gives the base RTT; H1 paces through fq. The devices: h1r1, r1h1, r1r2,
# r2r1, r2h2, h2r2.
BOTTLENECK_MBIT=${BOTTLENECK_MBIT:-$((150 / WORK_DIV))}
BOTTLENECK_BURST=${BOTTLENECK_BURST:-64k}
DELAY_MS=${DELAY_MS:-2}
H1=

topo_names() {		# SUFFIX
	H1=h1$1 R1=r1$1 R2=r2$1 H2=h2$1
}

topo_up() {
	local ns
	for ns in $H1 $R1 $R2 $H2; do
		$IP netns add $ns && $IP -n $ns link set lo up || return 1
	done
	veth_link $H1 h1r1 10.1.1.1/24 $R1 r1h1 10.1.1.254/24 &&
	veth_link $R1 r1r2 10.1.2.1/24 $R2 r2r1 10.1.2.2/24 &&
	veth_link $R2 r2h2 10.1.3.254/24 $H2 h2r2 10.1.3.1/24 &&
	$IP -n $H1 route add default via 10.1.1.254 &&
	$IP -n $H2 route add default via 10.1.3.254 &&
	$IP -n $R1 route add 10.1.3.0/24 via 10.1.2.2 &&
	$IP -n $R2 route add 10.1.1.0/24 via 10.1.2.1 &&
	$IP netns exec $R1 sysctl -qw net.ipv4.ip_forward=1 &&
	$IP netns exec $R2 sysctl -qw net.ipv4.ip_forward=1 &&
	# no offloads that would merge or split what the qdiscs account
	$TC -n $R1 qdisc add dev r1r2 root pfifo limit 1000 &&
	# a 64 KB bucket: under TCG tbf's watchdog fires late, and a 15 KB
	# bucket then delivers only 55-75% of the rate to a paced sender
	$TC -n $R2 qdisc add dev r2h2 root tbf rate ${BOTTLENECK_MBIT}mbit \
		burst $BOTTLENECK_BURST limit 600k &&
	$TC -n $R1 qdisc add dev r1h1 root netem delay ${DELAY_MS}ms limit 10000 &&
	# senders pace (hpcc, bbr): fq's EDT pacing, as operators deploy them;
	# TCP's per-burst hrtimer pacing loses a third of the rate under TCG
	$TC -n $H1 qdisc add dev h1r1 root fq
}

# topo_restore: a test's cleanup on this topology (cleanup_trap
# topo_restore): the process it runs in the background ($bgpid), the
# namespaces, its parameters, its $tmp
topo_restore() {
	[ -z "${bgpid:-}" ] || kill "$bgpid" 2>/dev/null
	topo_down
	params_restore
	[ -z "${tmp:-}" ] || rm -rf "$tmp"
}

# the receiver's servers first (they outlive their clients), then the
# namespaces
topo_down() {
	[ -z "$H1" ] || {
		$IP netns pids $H2 2>/dev/null | xargs -r kill
		ns_down $H1 $R1 $R2 $H2
	}
}

r1_stamp() {
	./probe/hpcc-probe -n $R1 switch attach r1r2 --rate 1gbit --switch-id 1 >/dev/null
}

r2_stamp() {
	./probe/hpcc-probe -n $R2 switch attach r2h2 --rate ${BOTTLENECK_MBIT}mbit --switch-id 2 >/dev/null
}

# telemetry on: reflector/deliverer on both hosts, stamping on both routers
topo_telemetry_up() {
	./probe/hpcc-probe -n $H1 host attach h1r1 >/dev/null &&
	./probe/hpcc-probe -n $H2 host attach h2r2 >/dev/null &&
	r1_stamp && r2_stamp
}
