# SPDX-License-Identifier: GPL-2.0
# Shared by the stress and fault selftests (after lib.sh): a time scale for
# slow kernels, bounded polling, flow and counter helpers, and topo.sh's
# topology with namespace names unique to the test.

# HPCC_DEBUG_KERNEL=1 (KASAN, lockdep, kmemleak: several times slower)
# only stretches time limits; no assertion depends on it.
case ${HPCC_DEBUG_KERNEL:-0} in
1) SLOW=6 ;;
*) SLOW=1 ;;
esac

# scaled SECONDS: SECONDS stretched for a debug kernel
scaled() {
	echo $(($1 * SLOW))
}

# poll SECONDS COMMAND...: run COMMAND until it succeeds, at most SECONDS
# (scaled) long; its status is the last run's.
poll() {
	local end=$(($(date +%s) + $(scaled "$1")))
	shift
	while ! "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.05
	done
}

# hpcc flows listed in NS's /proc/net/tcp_hpcc
flow_count() {
	$IP netns exec "$1" awk 'NR > 1' /proc/net/tcp_hpcc | wc -l
}

flows_at_least() {	# NS N
	[ "$(flow_count "$1")" -ge "$2" ]
}

no_flows() {		# NS...
	local ns
	for ns; do
		[ "$(flow_count "$ns")" -eq 0 ] || return 1
	done
}

# flow_field NS PORT COLUMN: a column of the flow whose local or remote
# port is PORT in NS's /proc/net/tcp_hpcc (columns: local remote mode w
# wc u stage bottleneck rate t age probe_rtt hops unanswered)
flow_field() {
	$IP netns exec "$1" awk -v p=":$2" -v c="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		substr($1, length($1) - length(p) + 1) == p ||
		substr($2, length($2) - length(p) + 1) == p {
			print $(col[c]); exit }' /proc/net/tcp_hpcc
}

flow_mode_is() {	# NS PORT MODE
	[ "$(flow_field "$1" "$2" mode)" = "$3" ]
}

stat_grew() {		# NAME BASE
	[ "$(hpcc_stat "$1")" -gt "$2" ]
}

# sha256 of a file, or of stdin
sha() {
	sha256sum "$@" | cut -d' ' -f1
}

# A field NAME=VALUE from a line of key=value words.
kv() {			# NAME LINE
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n1
}

# ---- topo.sh's topology with names ending in SUFFIX -------------------------
#
#   $H1 (sender) --- $R1 ============ $R2 --- $H2 (receiver)
#   10.1.1.1      .254  10.1.2.1  .2  .254    10.1.3.1
#
# Stamping on R1's port towards R2 (r1r2, pfifo, declared 1gbit) and R2's
# port towards H2 (r2h2, tbf at BOTTLENECK_MBIT); netem on R1's port towards
# H1 gives the base RTT; H1 paces through fq. Device names as in topo.sh.
BOTTLENECK_MBIT=${BOTTLENECK_MBIT:-150}
BOTTLENECK_BURST=${BOTTLENECK_BURST:-64k}
DELAY_MS=${DELAY_MS:-2}

topo_names() {		# SUFFIX
	H1=h1$1 R1=r1$1 R2=r2$1 H2=h2$1
}

topo_link() {		# NS1 DEV1 ADDR1 NS2 DEV2 ADDR2
	$IP link add "$2" netns "$1" type veth peer name "$5" netns "$4" &&
	$IP -n "$1" addr add "$3" dev "$2" &&
	$IP -n "$4" addr add "$6" dev "$5" &&
	$IP -n "$1" link set "$2" up &&
	$IP -n "$4" link set "$5" up
}

topo4_up() {
	local ns
	for ns in $H1 $R1 $R2 $H2; do
		$IP netns add $ns && $IP -n $ns link set lo up || return 1
	done
	topo_link $H1 h1r1 10.1.1.1/24 $R1 r1h1 10.1.1.254/24 &&
	topo_link $R1 r1r2 10.1.2.1/24 $R2 r2r1 10.1.2.2/24 &&
	topo_link $R2 r2h2 10.1.3.254/24 $H2 h2r2 10.1.3.1/24 &&
	$IP -n $H1 route add default via 10.1.1.254 &&
	$IP -n $H2 route add default via 10.1.3.254 &&
	$IP -n $R1 route add 10.1.3.0/24 via 10.1.2.2 &&
	$IP -n $R2 route add 10.1.1.0/24 via 10.1.2.1 &&
	$IP netns exec $R1 sysctl -qw net.ipv4.ip_forward=1 &&
	$IP netns exec $R2 sysctl -qw net.ipv4.ip_forward=1 &&
	$TC -n $R1 qdisc add dev r1r2 root pfifo limit 1000 &&
	$TC -n $R2 qdisc add dev r2h2 root tbf rate ${BOTTLENECK_MBIT}mbit \
		burst $BOTTLENECK_BURST limit 600k &&
	$TC -n $R1 qdisc add dev r1h1 root netem delay ${DELAY_MS}ms limit 10000 &&
	$TC -n $H1 qdisc add dev h1r1 root fq
}

# Detach through hpcc-probe first: its pinned programs would outlive the
# namespaces, and hpcc_host's kfunc reference would keep tcp_hpcc loaded.
topo4_down() {
	[ -n "$H1" ] || return 0
	./probe/hpcc-probe -n $H1 host detach h1r1 >/dev/null 2>&1
	./probe/hpcc-probe -n $H2 host detach h2r2 >/dev/null 2>&1
	./probe/hpcc-probe -n $R1 switch detach --all >/dev/null 2>&1
	./probe/hpcc-probe -n $R2 switch detach --all >/dev/null 2>&1
	ns_del $H1 $R1 $R2 $H2
}

r1_stamp() {
	./probe/hpcc-probe -n $R1 switch attach r1r2 --rate 1gbit --switch-id 1 >/dev/null
}

r2_stamp() {
	./probe/hpcc-probe -n $R2 switch attach r2h2 --rate ${BOTTLENECK_MBIT}mbit --switch-id 2 >/dev/null
}

topo4_telemetry_up() {
	./probe/hpcc-probe -n $H1 host attach h1r1 >/dev/null &&
	./probe/hpcc-probe -n $H2 host attach h2r2 >/dev/null &&
	r1_stamp && r2_stamp
}
