# SPDX-License-Identifier: GPL-2.0
# Shared by the selftests: TAP output (tests/lib/tap.sh), module and
# namespace helpers. Tests run as root inside the VM (scripts/vm-run.sh,
# with --include tests/lib:tests/lib), from /hpcc.

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
. "$TOP/tests/lib/tap.sh"
HPCC_KO=${HPCC_KO:-$TOP/tcp_hpcc.ko}
PARAMS=/sys/module/tcp_hpcc/parameters
# iproute2, not the busybox applets
IP=/usr/sbin/ip
TC=/usr/sbin/tc
[ -x $IP ] || IP=/sbin/ip
[ -x $TC ] || TC=/sbin/tc

# check DESCRIPTION COMMAND...: one TAP line from the command's status
check() {
	tap_check "$@"
}

module_loaded() {
	[ -d /sys/module/tcp_hpcc ]
}

load_module() {
	module_loaded || insmod "$HPCC_KO" "$@"
}

# set_param NAME VALUE: write a module parameter
set_param() {
	echo "$2" >"$PARAMS/$1"
}

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

ns_del() {
	local ns
	for ns in "$@"; do
		$IP netns del "$ns" 2>/dev/null
	done
	true
}

# wait_port NS PORT: until something listens on PORT in NS (5 s)
wait_port() {
	local i
	for i in $(seq 50); do
		$IP netns exec "$1" cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
			awk -v p="$(printf '%04X' "$2")" \
			'$4 == "0A" && $2 ~ ":" p "$" { f = 1 } END { exit !f }' &&
			return 0
		sleep 0.1
	done
	return 1
}

# stat NAME: a counter from /proc/net/tcp_hpcc_stat
hpcc_stat() {
	awk -v k="$1" '$1 == k { print $2 }' /proc/net/tcp_hpcc_stat
}
