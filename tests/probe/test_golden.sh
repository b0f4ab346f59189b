#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Golden outputs of hpcc-probe, as root on this machine's kernel: every
# command (host/switch attach and detach, status, trace, flows), the help
# texts and the error cases, run on the topology of test_probe.sh
#
#   s --- r1 --- r2 --- d        hs0 r1a r1b r2a r2b hd0, 10.91.{1,2,3}.0/24
#
# Each run appends "$ hpcc-probe ARGS", its stdout, its stderr (lines
# prefixed "2> ") and "[exit N]" to tests/probe/golden/GROUP.out, after
# normalise.pl has replaced what changes from run to run (cookies, ids,
# times, counters, the nonce). The suite fails if a single line differs.
#
#   tests/probe/test_golden.sh                  compare (TAP)
#   HPCC_GOLDEN_UPDATE=1 tests/probe/test_golden.sh   rewrite the files
#
# It runs in a private mount namespace with its own bpffs on /sys/fs/bpf
# and tmpfs on /run/netns: whatever else is pinned or named on the machine
# stays out of status, and everything goes when the namespace does. So
# the tool is always called with -n here, never under 'ip netns exec'
# (which would take it to init's bpffs; test_probe.sh covers that).
# HPCC_PROBE_ROOT always points at a faked (or absent) tcp_hpcc.
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
H=${HPCC_PROBE:-$TOP/probe/hpcc-probe}
GOLD=$TOP/tests/probe/golden
unset HPCC_CONF		# status: hpcc.conf only where a run puts one
NORM=$TOP/tests/probe/normalise.pl
. tests/lib/tap.sh

tap() {	# tap OK(0/1) DESCRIPTION [DETAIL-FILE]
	tap_result "$1" "$2"
	[ "$1" -eq 0 ] || [ -z "${3:-}" ] || tap_diag <"$3"
}

[ "$(id -u)" -eq 0 ] || tap_skip_all "needs root (netns, tc, bpf)"
if [ ! -x "$H" ] && ! make -s -C probe >/dev/null 2>&1; then
	tap 1 "build probe/hpcc-probe"
	tap_done
fi
if [ -z "${HPCC_GOLDEN_NS:-}" ]; then
	HPCC_GOLDEN_NS=1 exec unshare -m -u --propagation private "$0" "$@"
	tap 1 "unshare -m -u (private mount and UTS namespaces)"
	tap_done
fi
# the hostname makes the switch id of a namespace without IPv4
if ! mount -t bpf bpf /sys/fs/bpf || ! mkdir -p /run/netns ||
   ! mount -t tmpfs -o mode=0755 tmpfs /run/netns ||
   ! hostname hpcc-golden; then
	tap 1 "a private bpffs, /run/netns and hostname"
	tap_done
fi

W=$(mktemp -d)
chmod 755 "$W"
mkdir "$W/out"
cleanup() {
	for ns in s r1 r2 d x; do
		ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del $ns 2>/dev/null
	done
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Faked tcp_hpcc states for HPCC_PROBE_ROOT, $W/mod-NAME.
fake_module() {	# fake_module NAME [btf] [FLOWS-FILE-CONTENT]
	local m=$W/mod-$1
	mkdir -p $m/sys/module/tcp_hpcc/parameters $m/sys/kernel/btf $m/proc/net
	echo 12 >$m/sys/module/tcp_hpcc/parameters/probe_dscp
	echo 13 >$m/sys/module/tcp_hpcc/parameters/response_dscp
	[ "${2:-}" != btf ] || touch $m/sys/kernel/btf/tcp_hpcc
	printf 'Flows 3\nProbesSent 100\nReportsUsed 42\n' >$m/proc/net/tcp_hpcc_stat
	[ $# -lt 3 ] || printf '%s' "$3" >$m/proc/net/tcp_hpcc
}
mkdir -p $W/mod-none
fake_module fake btf 'local remote mode w_bytes wc_bytes u_permille stage bottleneck_hop rate_Bps t_us age_us probe_rtt_us hops unanswered
10.0.0.1:5201 10.0.0.2:40000 hpcc 1250000 1200000 953 2 1 1187500000 80 120 45 2 0
[fd00::1]:22 [fd00::2]:51234 reno 0 0 0 0 0 0 1000 - 0 0 0
10.0.0.1:5202 10.0.0.3:40001 hpcc 800 700 1500 1 0 12500 2000 3000000 1500000000 1 3
short line
'
fake_module nobtf
fake_module empty btf ''
fake_module badhdr btf 'flow w u
1 2 3
'
fake_module noflows btf 'local remote mode w_bytes
'
fake_module noproc btf
rm -f $W/mod-noproc/proc/net/*
fake_module noparams btf
rm -f $W/mod-noparams/sys/module/tcp_hpcc/parameters/*

# ---------------------------------------------------------- the harness
# normalise.pl names the pin directory of each namespace: netns/<d>
export HPCC_GOLDEN_COOKIES=$W/cookies
: >$HPCC_GOLDEN_COOKIES
netns_add() {	# netns_add NAME: create it, learn its cookie
	ip netns add $1 || return 1
	ip netns exec $1 perl -MSocket -e 'require "syscall.ph";
		socket(my $s, AF_UNIX, SOCK_DGRAM, 0) or die;
		my ($v, $l) = ("\0" x 8, pack("L", 8));	# SO_NETNS_COOKIE
		syscall(&SYS_getsockopt, fileno($s), SOL_SOCKET, 71, $v, $l) == 0
			or die "SO_NETNS_COOKIE: $!\n";
		print unpack("Q", $v), " '$1'\n"' >>$HPCC_GOLDEN_COOKIES
}

group=
group() { group=$1; touch "$W/out/$group.out"; }
note() { printf '# %s\n' "$*" >>"$W/out/$group.out"; }

# g [-m MODULE] [-s lines|blocks] [-u] ARGS...: run hpcc-probe ARGS with
# tcp_hpcc faked as $W/mod-MODULE (default: none), -u as nobody, and
# append the normalised transcript to the current group.
g() {
	local mod=none sort= wrap=() rc shown
	while :; do
		case ${1:-} in
		-m) mod=$2; shift 2 ;;
		-s) sort=$2; shift 2 ;;
		-u) wrap=(setpriv --reuid=65534 --regid=65534 --clear-groups); shift ;;
		*) break ;;
		esac
	done
	"${wrap[@]}" env HPCC_PROBE_ROOT=$W/mod-$mod "$H" "$@" >$W/o 2>$W/e
	rc=$?
	shown=hpcc-probe
	[ ${#wrap[@]} -eq 0 ] || shown="(as nobody) $shown"
	[ $mod = none ] || shown="(tcp_hpcc: $mod) $shown"
	{
		printf '$ %s' "$shown"
		[ $# -eq 0 ] || printf ' %q' "$@"
		printf '\n'
		perl "$NORM" $sort <$W/o
		perl "$NORM" $sort <$W/e | sed 's/^/2> /'
		echo "[exit $rc]"
		echo
	} >>"$W/out/$group.out"
}

# c DESCRIPTION COMMAND...: another command's output (pins, tc), sorted
c() {
	local d=$1
	shift
	{
		printf '$ (%s)\n' "$d"
		"$@" 2>&1 | perl "$NORM" lines
		echo
	} >>"$W/out/$group.out"
}
pins() { c "pins" find /sys/fs/bpf/tcp_hpcc -mindepth 1; }
tcf() {	# tcf NS DEV ingress|egress: the filters there, without ids
	c "tc -n $1 filter show dev $2 $3" sh -c \
		"tc -n $1 filter show dev $2 $3 | grep -o 'handle 0x[0-9a-f]* [a-z_]*'"
}
tcq() {	# tcq NS DEV: the kinds of DEV's qdiscs
	c "tc -n $1 qdisc show dev $2" sh -c \
		"tc -n $1 qdisc show dev $2 | grep -o '^qdisc [a-z_]*'"
}

# Where namespace NS pins: learnt from a host attach there.
ns_pins() { sed -n 's/.*pinned at \(.*\)\/host\/.*/\1/p' $W/o; }

setup() {
	local ns
	for ns in s r1 r2 d; do
		netns_add $ns && ip -n $ns link set lo up || return 1
	done
	ip link add hs0 netns s type veth peer name r1a netns r1 &&
	ip link add r1b netns r1 type veth peer name r2a netns r2 &&
	ip link add r2b netns r2 type veth peer name hd0 netns d || return 1
	addr() { ip -n $1 addr add $3 dev $2 && ip -n $1 addr add $4 dev $2 nodad &&
		 ip -n $1 link set $2 up; }
	addr s hs0 10.91.1.1/24 fd91:1::1/64 &&
	addr r1 r1a 10.91.1.2/24 fd91:1::2/64 &&
	addr r1 r1b 10.91.2.1/24 fd91:2::1/64 &&
	addr r2 r2a 10.91.2.2/24 fd91:2::2/64 &&
	addr r2 r2b 10.91.3.1/24 fd91:3::1/64 &&
	addr d hd0 10.91.3.2/24 fd91:3::2/64 || return 1
	for ns in r1 r2; do
		ip netns exec $ns sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv6.conf.all.forwarding=1 || return 1
	done
	ip -n s route add default via 10.91.1.2 &&
	ip -n s -6 route add default via fd91:1::2 &&
	ip -n r1 route add 10.91.3.0/24 via 10.91.2.2 &&
	ip -n r1 -6 route add fd91:3::/64 via fd91:2::2 &&
	ip -n r2 route add 10.91.1.0/24 via 10.91.2.1 &&
	ip -n r2 -6 route add fd91:1::/64 via fd91:2::1 &&
	ip -n d route add default via 10.91.3.1 &&
	ip -n d -6 route add default via fd91:3::1 || return 1
	# r1b gets a real queue; r2b keeps veth's noqueue (the warning case)
	tc -n r1 qdisc replace dev r1b root pfifo || return 1
	# a probe belongs to a connection: listeners for trace's (80, 5201)
	for ns in s d; do
		for port in 80 5201; do
			ip netns exec $ns iperf3 -s -D -p $port >/dev/null || return 1
		done
	done
}
vethpair() { ip -n $1 link add $2 type veth peer name $3 && ip -n $1 link set $2 up; }

out=$(setup 2>&1)
rc=$?
[ $rc -eq 0 ] || printf '%s\n' "$out" >$W/setup.err
tap $rc "netns topology s - r1 - r2 - d" $W/setup.err
[ $rc -eq 0 ] || tap_done

long=abcdefghijklmnop	# 16 bytes: one more than the kernel allows
badnames=(.. ../.. a/b . "$long" "a b" a:b "")

# ---------------------------------------------------------------- usage
group usage
g --help
g -h
g help
g
g frobnicate
g --frobnicate
g -n
g -n nonexistent status
g -n /nonexistent/ns status
g host
g host --help
g host -h
g host frobnicate
g host attach --help
g host detach --help
g host attach --frobnicate
g switch
g switch --help
g switch frobnicate
g switch attach -h
g switch detach --help
g switch detach --frobnicate
g status --help
g status extra
g status --frobnicate
g flows --help
g flows extra
g trace --help
g trace
g trace 10.0.0.1 10.0.0.2
g key
g key --help
g key set
g key set 2 00112233445566778899aabbccddeeff
g key set 0 0011
g key frobnicate 0

# ------------------------------------------------------------- not root
if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	group nonroot
	g -u status
	g -u host attach hd0
	g -u host detach hd0
	g -u switch attach r1b --rate 1gbit
	g -u switch detach --all
	g -u trace 10.91.3.2
	g -u -n d status
	g -u --help
	g -u -m fake flows
	g -u flows
else
	rm -f $W/out/nonroot.out
	nonroot_skip="no setpriv --reuid (busybox)"
fi

# ------------------------------------------------------- status, empty
group status
note "nothing attached"
g status
g -m fake status
g -m nobtf status
g -m noparams status
g -m noproc status
group json
note "nothing attached"
g -s json status --json
g -s json -m fake status --json
g -s json status --json --frobnicate
group status

# ----------------------------------------------------------------- host
group host
note "usage errors"
g -n d host attach
g -n d host attach hd0 hd1
g -n d host attach hd0 --probe-dscp 64
g -n d host attach hd0 --probe-dscp x
g -n d host attach hd0 --response-dscp 0
g -n d host attach hd0 --probe-dscp 20 --response-dscp 20
g -n d host attach hd0 --frobnicate
g -n d host detach
g -n d host detach hd0 hd1
for name in "${badnames[@]}"; do
	g -n d host attach "$name"
	g -n d host detach "$name"
done
g -n d host detach ../../1/host/hd0
note "unknown devices"
g -n d host attach nope0
g -n d host detach nope0
note "attach, no module loaded"
g -n d host attach hd0
g -n d host attach hd0
pins
tcf d hd0 ingress
note "the module: DSCPs, BTF"
g -m nobtf -n s host attach hs0
g -m fake -n s host attach hs0
g -m fake -n s host detach hs0
g -m fake -n s host attach hs0 --probe-dscp 20 --response-dscp 21
g -m fake -n s host detach hs0
g -m noparams -n s host attach hs0
g -n s host detach hs0
note "names with '.', '-' and '_': distinct pin directories"
vethpair d hv0.100 hv0p
vethpair d hv.1 hv.1p
vethpair d hv-1 hv-1p
vethpair d hv_1 hv_1p
g -n d host attach hv0.100
g -n d host attach hv.1
g -n d host attach hv-1
g -n d host attach hv_1 --probe-dscp 30 --response-dscp 31
g -n d host attach hv0.100
pins
g -n d host detach hv.1
g -n d host detach hv-1
g -n d host detach hv_1
g -n d host detach hv0.100
g -n d host detach hv0.100
pins
note "stale pins: the filter was removed by hand"
vethpair d hx0 hx1
g -n d host attach hx0
tc -n d qdisc del dev hx0 clsact
g -n d host attach hx0
tc -n d qdisc del dev hx0 clsact
g -n d host detach hx0
g -n d host detach hx0
note "the device is deleted while attached"
g -n d host attach hx0
ip -n d link del hx0
g -n d host detach hx0
note "somebody else's filter at our handle and priority"
vethpair d hy0 hy1
tc -n d qdisc add dev hy0 clsact
tc -n d filter add dev hy0 ingress prio 1 handle 0x4850 bpf da \
	obj bpf/hpcc_host.bpf.o sec tc
g -n d host attach hy0
g -n d host detach hy0
pins
ip -n d link del hy0
for dev in hv0.100 hv.1 hv-1 hv_1; do ip -n d link del $dev; done

# --------------------------------------------------------------- switch
group switch
note "usage errors"
g -n r1 switch attach r1b
g -n r1 switch attach --rate 1gbit
g -n r1 switch attach r1b r1a --rate 1gbit
for r in abc 0 0.5mbit 999999bit -1mbit 5000tbit 10furlongs 0x10mbit 1e3 \
	 inf nan .; do
	g -n r1 switch attach r1b --rate $r
done
g -n r1 switch attach r1b --rate 1gbit --switch-id x
g -n r1 switch attach r1b --rate 1gbit --switch-id 4294967296
g -n r1 switch attach r1b --rate 1gbit --switch-id -1
g -n r1 switch attach r1b --rate 1gbit --port-id -1
g -n r1 switch attach r1b --rate 1gbit --port-id 1x
g -n r1 switch attach r1b --rate 1gbit --probe-dscp 99
g -n r1 switch attach r1b --rate 1gbit --probe-dscp 7 --response-dscp 7
g -n r1 switch attach r1b --rate 1gbit --frobnicate
g -n r1 switch detach
g -n r1 switch detach r1b r1a
g -n r1 switch detach --all r1b
for name in "${badnames[@]}"; do
	g -n r1 switch attach "$name" --rate 1gbit
	g -n r1 switch detach "$name"
done
note "unknown devices, nothing attached"
g -n r1 switch attach nope0 --rate 1gbit
g -n r1 switch detach nope0
g -n r1 switch detach r1b
g -n r1 switch detach --all
note "attach"
g -n r1 switch attach r1b --rate 100mbit
g -n r2 switch attach r2b --rate 1.5gbit --switch-id 7 --port-id 21
g -n r1 switch attach r1b --rate 100mbit
pins
tcf r1 r1b egress

# ---------------------------------------------------------------- trace
group trace
note "2 hops: r1b (pfifo), r2b (noqueue)"
g -n s trace 10.91.3.2 --sport 40000 --timeout 5
g -n s trace 10.91.3.2:5201 --sport 40001 --json
g -n s trace "[fd91:3::2]:5201" --sport 40002 --json --timeout 5
g -n s trace fd91:3::2 --sport 40003
g -n s trace 10.91.3.2 --sport 40004 --dev hs0
g -n s trace 10.91.3.2 --sport 40005 --probe-dscp 7 --response-dscp 3
note "the sender's own hpcc_host drops responses: the packet socket sees them first"
g -n s host attach hs0
g -n s trace 10.91.3.2 --sport 40006
note "1 hop (r2b), none (r1a is no port yet)"
g -n r2 trace 10.91.3.2 --sport 40007 --timeout 5
g -n r1 trace 10.91.1.1 --sport 40008 --timeout 5
note "DSCPs the receiver does not use: its TCP drops the probe, no response"
g -n s trace 10.91.3.2 --sport 40009 --probe-dscp 20 --response-dscp 21
note "nobody there, no listener, no route"
g -n s trace 10.91.3.2:5300 --sport 40012
g -n s trace 10.91.3.99 --sport 40010 --timeout 0.3
g -n r2 trace 10.200.0.1 --sport 40011
g -n s trace 10.91.3.2 --dev nope0
note "usage errors"
for dst in example.com 10.91.3.2:0 10.91.3.2:65536 10.91.3.2:-1 10.91.3.2: \
	   "[fd91:3::2" "[fd91:3::2]x" "[10.91.3.2]:80" fd91:3::2:80; do
	g -n s trace "$dst" --sport 40100
done
g -n s trace 10.91.3.2 --timeout 0
g -n s trace 10.91.3.2 --timeout x
g -n s trace 10.91.3.2 --timeout 3601
g -n s trace 10.91.3.2 --sport 0
g -n s trace 10.91.3.2 --sport 65536
g -n s trace 10.91.3.2 --sport -1
g -n s trace 10.91.3.2 --probe-dscp 64
g -n s trace 10.91.3.2 --probe-dscp 9 --response-dscp 9
g -n s trace 10.91.3.2 --frobnicate
for name in ../.. a/b "$long" ""; do
	g -n s trace 10.91.3.2 --dev "$name"
done

# --------------------------------------------------------------- switch
group switch
note "a second port joins the namespace's instance"
g -n r1 switch attach r1a --rate 400000kbit
g -n r1 trace 10.91.1.1 --sport 40012 --timeout 5
note "rates: tc units, rounding"
vethpair r1 r1x r1y
g -n r1 switch attach r1x --rate 1.5mbit --port-id 0
g -n r1 switch detach r1x
g -n r1 switch attach r1x --rate 12.5mbps --switch-id 0
g -n r1 switch detach r1x
g -n r1 switch attach r1x --rate 1000000000
g -n r1 switch detach r1x
g -n r1 switch attach r1x --rate 4294967295mbit
g -n r1 switch detach r1x
note "somebody else's filter at our handle and priority (joining port)"
tc -n r1 qdisc add dev r1x clsact
tc -n r1 filter add dev r1x egress prio 1 handle 0x4850 bpf da \
	obj bpf/hpcc_host.bpf.o sec tc
g -n r1 switch attach r1x --rate 1gbit
g -n r1 switch detach r1x
ip -n r1 link del r1x
note "an edge port: no --rate needed, hpcc_edge_in on its ingress"
vethpair r1 r1x r1y
g -n r1 switch attach r1x --edge --port-id 9
tcf r1 r1x ingress
tcf r1 r1x egress
note "a host program cannot share an edge port's ingress, either way"
g -n r1 host attach r1x
g -n r1 switch detach r1x
tcf r1 r1x ingress
g -n r1 host attach r1x
g -n r1 switch attach r1x --edge
g -n r1 host detach r1x
ip -n r1 link del r1x

# ------------------------------------------------------ status, in use
group status
note "two hosts, two switch instances"
tc -n r1 qdisc replace dev r1b root tbf rate 10mbit burst 10kb latency 1s
ip netns exec s bash -c 'dd if=/dev/zero bs=1400 count=100 status=none >/dev/udp/10.91.3.99/9' 2>/dev/null
g -s blocks status
g -s blocks -m fake status
g -s blocks -n d status
group json
note "two hosts, two switch instances; the module faked"
g -s json -m fake status --json
group status

# ------------------------------------------- status against hpcc.conf
# hpcc-setup status gives the verdicts; relative paths keep $W out.
group config
export HPCC_SETUP=$TOP/deploy/hpcc-setup HPCC_STATE=$W/state
printf '%s\n' 'host hd0' 'switch r2b rate 1.5gbit switch-id 7 port-id 21' \
	'host nope0' >$W/hpcc.conf
note "as configured in d; in r2 the switch port, host hd0 absent there"
(cd $W && g -s blocks -n d status --config hpcc.conf)
(cd $W && g -s blocks -n r2 status --config hpcc.conf)
note "a rate that differs, a host program missing, one nobody asked for"
printf '%s\n' 'host r2b' 'switch r2b rate 10gbit switch-id 7' >$W/hpcc.conf
(cd $W && g -s blocks -n r2 status --config hpcc.conf)
printf '%s\n' 'switch r2b rate 1.5gbit' >$W/hpcc.conf
(cd $W && g -s blocks -n d status --config hpcc.conf)
note "errors in the file; no hpcc-setup; the default file, and --no-config"
printf '%s\n' 'router r2b' >$W/hpcc.conf
(cd $W && g -s blocks -n r2 status --config hpcc.conf)
(cd $W && HPCC_SETUP=/nonexistent/hpcc-setup g -s blocks -n r2 status --config hpcc.conf)
group json
note "against hpcc.conf: errors in it (exit 1), no hpcc-setup, a rate that differs (exit 3)"
(cd $W && g -s json -n r2 status --config hpcc.conf --json)
(cd $W && HPCC_SETUP=/nonexistent/hpcc-setup g -s json -n r2 status --config hpcc.conf --json)
printf '%s\n' 'host r2b' 'switch r2b rate 10gbit switch-id 7' >$W/hpcc.conf
(cd $W && g -s json -n r2 status --config hpcc.conf --json)
group config
mkdir -p $W/mod-none/etc/hpcc
printf '%s\n' 'host hd0' >$W/mod-none/etc/hpcc/hpcc.conf
g -s blocks -n d status --no-config
rm -r $W/mod-none/etc
unset HPCC_SETUP HPCC_STATE
group status
note "a host device deleted, a host filter removed by hand"
vethpair d hx0 hx1
g -n d host attach hx0
ip -n d link del hx0
tc -n s qdisc del dev hs0 clsact
g -s blocks status
g -n d host detach hx0
g -n s host detach hs0

# --------------------------------------------------------------- switch
group switch
note "stale ports: a device deleted, a filter removed by hand"
vethpair r2 rx0 rx1
g -n r2 switch attach rx0 --rate 1gbit
ip -n r2 link del rx0
tc -n r2 qdisc del dev r2b clsact
group status
g -s blocks status
group switch
g -s lines -n r2 switch detach r2b
g -n r2 switch detach --all
note "detach: one port, then the last"
g -n r1 switch detach r1b
g -n r1 switch detach r1b
tcq r1 r1b
g -n r1 switch detach r1a
g -n r1 switch detach r1a
pins
note "detach --all"
g -n r2 switch attach r2b --rate 1gbit
vethpair r2 rx0 rx1
g -n r2 switch attach rx0 --rate 2gbit
g -s lines -n r2 switch detach --all
pins
note "a fresh namespace: somebody else's filter, stale and broken pins"
netns_add x
vethpair x xh0 xh1
vethpair x xa0 xa1
vethpair x xb0 xb1
g -n x host attach xh0
xpins=$(ns_pins)
tc -n x qdisc add dev xa0 clsact
tc -n x filter add dev xa0 egress prio 1 handle 0x4850 bpf da \
	obj bpf/hpcc_host.bpf.o sec tc
g -n x switch attach xa0 --rate 1gbit
pins
tc -n x qdisc del dev xa0 clsact
g -n x switch attach xa0 --rate 1gbit
rm "$xpins/switch/hpcc_switch"
g -n x switch attach xb0 --rate 1gbit
g -n x switch detach xa0
tc -n x qdisc del dev xa0 clsact
rm "$xpins/switch/hpcc_qsnap"
g -n x switch attach xa0 --rate 1gbit
g -n x switch detach xb0
group status
g -s blocks status
group switch
g -n x switch detach --all
tc -n x qdisc del dev xb0 clsact
g -n x switch detach --all
g -n x host detach xh0
pins

# ------------------------------------------------------- status, the end
group status
note "pins of a namespace that is gone"
vethpair x xg0 xg1
g -n x host attach xg0
ip netns del x
g -s blocks status
group json
note "pins of a namespace that is gone"
g -s json status --json
group status
rm -r "$xpins"
note "everything detached"
g -n d host detach hd0
g status
g -n s trace 10.91.3.2:5201 --sport 40013

# ---------------------------------------------------------------- flows
group flows
g flows
g -m fake flows
g -m fake -n s flows
g -m empty flows
g -m badhdr flows
g -m noflows flows
g -m noproc flows

# ------------------------------------------------- raw IP devices (tun)
if ip -n d tuntap add dev ht0 mode tun 2>/dev/null &&
   ip -n r2 tuntap add dev rt0 mode tun 2>/dev/null; then
	group rawip
	g -n d host attach ht0
	g -n r2 switch attach rt0 --rate 1gbit
	g -s blocks status
	g -n d host detach ht0
	g -n r2 switch detach rt0
	ip -n d link del ht0
	ip -n r2 link del rt0
	# a link type the programs cannot parse: a tun turned infiniband
	if ip -n d tuntap add dev lt0 mode tun 2>/dev/null &&
	   ip netns exec d python3 -c '
import fcntl, os, struct
fd = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", b"lt0", 0x1001)) # TUNSETIFF
fcntl.ioctl(fd, 0x400454cd, 32)	# TUNSETLINK ARPHRD_INFINIBAND
' 2>/dev/null; then
		group linktype
		g -n d host attach lt0
		g -n d switch attach lt0 --rate 1gbit
	else
		linktype_skip="no TUNSETLINK (python3)"
	fi
else
	rawip_skip="no tun device"
	linktype_skip="no tun device"
fi

# -------------------------------------------------------------- compare
for f in usage nonroot host switch trace status config json flows rawip linktype; do
	skip=${f}_skip
	if [ -n "${!skip:-}" ]; then
		tap 0 "golden $f.out # SKIP ${!skip}"
		continue
	fi
	if [ -n "${HPCC_GOLDEN_UPDATE:-}" ]; then
		mkdir -p "$GOLD"
		cp "$W/out/$f.out" "$GOLD/$f.out"
		tap 0 "golden $f.out # SKIP rewritten (HPCC_GOLDEN_UPDATE)"
		continue
	fi
	diff -u "$GOLD/$f.out" "$W/out/$f.out" >$W/diff 2>&1
	tap $? "golden $f.out: $(grep -c '^\$ ' "$W/out/$f.out") runs, every line as expected" $W/diff
done
tap_done
