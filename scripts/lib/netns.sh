# SPDX-License-Identifier: GPL-2.0
# Network namespaces, veth links and qdisc counters, for the selftests
# (selftests/lib.sh) and the demo (demo/scenarios.sh), sourced; POSIX sh,
# as root, in the VM from /hpcc (scripts/vm-run.sh --include
# scripts/lib:scripts/lib).

# iproute2, not the busybox applets
IP=/usr/sbin/ip
TC=/usr/sbin/tc
[ -x $IP ] || IP=/sbin/ip
[ -x $TC ] || TC=/sbin/tc

# ns_pair A B: namespaces A (10.0.0.1, fd00::1) and B (10.0.0.2, fd00::2)
# joined by a veth pair with a real qdisc on both ends.
ns_pair() {
	$IP netns add "$1"
	$IP netns add "$2"
	$IP link add veth0 netns "$1" type veth peer name veth1 netns "$2"
	$IP -n "$1" addr add 10.0.0.1/24 dev veth0
	$IP -n "$2" addr add 10.0.0.2/24 dev veth1
	$IP -n "$1" addr add fd00::1/64 dev veth0 nodad
	$IP -n "$2" addr add fd00::2/64 dev veth1 nodad
	$IP -n "$1" link set lo up
	$IP -n "$2" link set lo up
	$IP -n "$1" link set veth0 up
	$IP -n "$2" link set veth1 up
}

# ns_del NS...: delete the namespaces that exist
ns_del() {
	for ns_ in "$@"; do
		$IP netns del "$ns_" 2>/dev/null
	done
	true
}

# ns_kill_del NS...: end the processes in the namespaces, then delete them
# (a namespace with a process left in it outlives its deletion)
ns_kill_del() {
	for ns_ in "$@"; do
		$IP netns pids "$ns_" 2>/dev/null | xargs -r kill 2>/dev/null
	done
	ns_del "$@"
}

# veth_link NS1 DEV1 ADDR1 NS2 DEV2 ADDR2: a veth pair between two
# namespaces, addressed and up
veth_link() {
	$IP link add "$2" netns "$1" type veth peer name "$5" netns "$4" &&
	$IP -n "$1" addr add "$3" dev "$2" &&
	$IP -n "$4" addr add "$6" dev "$5" &&
	$IP -n "$1" link set "$2" up &&
	$IP -n "$4" link set "$5" up
}

# wait_socket NS STATE FIELD PORT: until a TCP socket in NS is in STATE
# (/proc/net/tcp's hex: 0A listening, 01 established) with PORT at the end
# of FIELD (2 the local address, 3 the remote one); 5 s
wait_socket() {
	for _ in $(seq 50); do
		$IP netns exec "$1" cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
			awk -v s="$2" -v a="$3" -v p="$(printf '%04X' "$4")" \
			'$4 == s && $a ~ ":" p "$" { f = 1 } END { exit !f }' &&
			return 0
		sleep 0.1
	done
	return 1
}

# wait_port NS PORT: until something listens on PORT in NS
wait_port() {
	wait_socket "$1" 0A 2 "$2"
}

# wait_connected NS PORT: until a connection to PORT in NS is established
wait_connected() {
	wait_socket "$1" 01 3 "$2"
}

# qstat NS DEV FIELD: a root qdisc counter (bytes|backlog); root only:
# with a tc program attached, clsact is listed too
qstat() {
	$TC -n "$1" -s -j qdisc show dev "$2" root |
		sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p" | head -n1
}
