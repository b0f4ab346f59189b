#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# hpcc-probe on this machine's kernel (no tcp_hpcc.ko needed), as root:
#
#   s --- r1 --- r2 --- d        four network namespaces, veth pairs
#  hs0  r1a r1b r2a r2b hd0      IPv4 10.91.{1,2,3}.0/24, IPv6 fd91:{1,2,3}::/64
#
# hpcc_switch on r1b and r2b (egress towards d), hpcc_host on hd0 (the
# receiver, reflects probes) and later hs0 (the sender). Covers attach and
# detach, pins, status counters, error messages, trace over 2 hops (IPv4,
# IPv6, queue seen under load) and flows against a faked module; then
# test_golden.sh, the exact text of every command (tests/probe/golden/).
# Prints TAP, ends with "# N passed, N failed"; cleans up on any exit.
#
#   tests/probe/test_probe.sh            (HPCC_PROBE=path to use another binary)
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
H=${HPCC_PROBE:-$TOP/probe/hpcc-probe}
. tests/lib/tap.sh
. scripts/lib/netns.sh		# qstat

# tap OK(0/1) DESCRIPTION: on failure, the last run's status and output
tap() { tap_ran "$@"; }
run() { tap_run "$@"; }
has() { tap_has "$1"; }
hasnt() { ! has "$1"; }
# expect_ok DESC CMD...: exit 0
expect_ok() { local d=$1; shift; run "$@"; tap $((rc != 0)) "$d"; }
# expect_err DESC RC REGEX CMD...: exit RC and REGEX in the output
expect_err() {
	local d=$1 want=$2 re=$3
	shift 3
	run "$@"
	[ "$rc" -eq "$want" ] && has "$re"
	tap $? "$d"
}
# ok_if DESC COMMAND...: a check on $out (or anything) that must succeed
ok_if() { local d=$1; shift; "$@"; tap $? "$d"; }

[ "$(id -u)" -eq 0 ] || tap_skip_all "needs root (netns, tc, bpf)"
if [ ! -x "$H" ]; then
	make -s -C probe >/dev/null 2>&1 || { run make -C probe; tap 1 "build probe/hpcc-probe"; tap_done; }
fi

P=hpt$$
S=$P-s R1=$P-r1 R2=$P-r2 D=$P-d
FAKE=$(mktemp -d)	# HPCC_PROBE_ROOT: a faked tcp_hpcc (sysfs, procfs)
NOMOD=$FAKE/none	# HPCC_PROBE_ROOT without tcp_hpcc, whatever is loaded
mkdir -p $NOMOD
# status compares with hpcc.conf when there is one: not this machine's
export HPCC_CONF=$FAKE/no-hpcc.conf

cleanup() {
	for ns in $S $R1 $R2 $D; do
		ip netns list 2>/dev/null | grep -qw "$ns" || continue
		"$H" -n "$ns" switch detach --all >/dev/null 2>&1
		for dev in hs0 hd0 hx0 ht0 hv0.100 hv.1 hv-1; do
			"$H" -n "$ns" host detach $dev >/dev/null 2>&1
		done
		ip netns pids "$ns" | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	rm -rf "$FAKE"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

setup() {
	local ns
	for ns in $S $R1 $R2 $D; do
		ip netns add $ns && ip -n $ns link set lo up || return 1
	done
	ip link add hs0 netns $S type veth peer name r1a netns $R1 &&
	ip link add r1b netns $R1 type veth peer name r2a netns $R2 &&
	ip link add r2b netns $R2 type veth peer name hd0 netns $D || return 1
	addr() { ip -n $1 addr add $3 dev $2 && ip -n $1 addr add $4 dev $2 nodad &&
		 ip -n $1 link set $2 up; }
	addr $S hs0 10.91.1.1/24 fd91:1::1/64 &&
	addr $R1 r1a 10.91.1.2/24 fd91:1::2/64 &&
	addr $R1 r1b 10.91.2.1/24 fd91:2::1/64 &&
	addr $R2 r2a 10.91.2.2/24 fd91:2::2/64 &&
	addr $R2 r2b 10.91.3.1/24 fd91:3::1/64 &&
	addr $D hd0 10.91.3.2/24 fd91:3::2/64 || return 1
	for ns in $R1 $R2; do
		ip netns exec $ns sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv6.conf.all.forwarding=1 || return 1
	done
	ip -n $S route add default via 10.91.1.2 &&
	ip -n $S -6 route add default via fd91:1::2 &&
	ip -n $R1 route add 10.91.3.0/24 via 10.91.2.2 &&
	ip -n $R1 -6 route add fd91:3::/64 via fd91:2::2 &&
	ip -n $R2 route add 10.91.1.0/24 via 10.91.2.1 &&
	ip -n $R2 -6 route add fd91:1::/64 via fd91:2::1 &&
	ip -n $D route add default via 10.91.3.1 &&
	ip -n $D -6 route add default via fd91:3::1 || return 1
	# r1b gets a real queue; r2b keeps veth's noqueue (the warning case)
	ip netns exec $R1 tc qdisc replace dev r1b root pfifo || return 1
	# a probe belongs to a connection: listeners for trace's (80, 5201)
	for port in 80 5201; do
		ip netns exec $D iperf3 -s -D -p $port >/dev/null || return 1
	done
	ip netns exec $S iperf3 -s -D -p 80 >/dev/null
}

# ---------------------------------------------------------------- usage
expect_ok "--help" "$H" --help
ok_if "--help lists every command" grep -q "switch attach DEV --rate" <<<"$out"
expect_err "no command: usage error" 2 "no command" "$H"
expect_err "unknown command" 2 "unknown command 'frobnicate'" "$H" frobnicate
expect_ok "host attach --help" "$H" host attach --help
expect_ok "switch --help" "$H" switch --help
expect_ok "trace --help" "$H" trace --help
if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	expect_err "not root: one clear line" 1 \
		"^hpcc-probe: must run as root \(CAP_NET_ADMIN and CAP_BPF\)$" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$H" status
else
	tap 0 "not root # SKIP no setpriv --reuid (busybox)"
fi

run setup
tap $rc "netns topology s - r1 - r2 - d"
[ "$rc" -eq 0 ] || tap_done

# ----------------------------------------------------------------- host
expect_ok "host attach hd0 (receiver)" env HPCC_PROBE_ROOT=$NOMOD "$H" -n $D host attach hd0
ok_if "host attach warns that tcp_hpcc is missing" has "warning: tcp_hpcc is not loaded"
ok_if "default DSCPs 7/3" has "probe_dscp 7, response_dscp 3"
ok_if "pinned under /sys/fs/bpf/tcp_hpcc/netns/COOKIE/host/hd0" \
	has "pinned at /sys/fs/bpf/tcp_hpcc/netns/[0-9]+/host/hd0$"
pins=$(sed -n 's/.*pinned at //p' <<<"$out")
ok_if "pins: program and maps" test -e "$pins/hpcc_host" -a -e "$pins/hpcc_host_cfg" -a -e "$pins/hpcc_counters"
run ip netns exec $D tc filter show dev hd0 ingress
ok_if "tc: hpcc_host on hd0 ingress, handle 0x4850" has "handle 0x4850 hpcc_host"
expect_err "host attach twice: already attached" 1 "already attached to hd0" \
	"$H" -n $D host attach hd0
expect_err "host attach unknown device" 1 "unknown device 'nope0'" \
	"$H" -n $D host attach nope0
expect_err "host attach bad DSCP" 2 "bad DSCP '64'" \
	"$H" -n $D host attach hd0 --probe-dscp 64
expect_err "host attach equal DSCPs" 2 "must differ" \
	"$H" -n $D host attach hd0 --probe-dscp 20 --response-dscp 20
# ip netns exec hides bpffs behind a fresh /sys: the tool joins init's
# mount namespace and finds the same pins as with -n
expect_err "under ip netns exec: same pins (already attached)" 1 \
	"already attached to hd0" ip netns exec $D "$H" host attach hd0
expect_ok "status under ip netns exec" ip netns exec $D "$H" status
ok_if "status under ip netns exec: sees hd0" has "^host hd0 \[netns $D\]: .*tc ingress attached"

# --------------------------------------------------------------- switch
expect_err "switch attach without --rate" 2 "needs --rate" \
	"$H" -n $R1 switch attach r1b
for r in abc 0 0.5mbit -1mbit 5000tbit 10furlongs; do
	expect_err "switch attach --rate $r: bad rate" 2 "bad rate '$r'" \
		"$H" -n $R1 switch attach r1b --rate $r
done
expect_err "switch attach --switch-id x: bad id" 2 "bad switch id 'x'" \
	"$H" -n $R1 switch attach r1b --rate 1gbit --switch-id x
expect_err "switch attach --switch-id 2^32: bad id" 2 "bad switch id" \
	"$H" -n $R1 switch attach r1b --rate 1gbit --switch-id 4294967296
expect_err "switch attach --port-id -1: bad id" 2 "bad port id '-1'" \
	"$H" -n $R1 switch attach r1b --rate 1gbit --port-id -1
expect_err "switch attach unknown device" 1 "unknown device 'nope0'" \
	"$H" -n $R1 switch attach nope0 --rate 1gbit

expect_ok "switch attach r1b --rate 100mbit" "$H" -n $R1 switch attach r1b --rate 100mbit
ok_if "r1: switch id from the lowest IPv4 address (10.91.1.2)" \
	has "switch_id 173736194 \(from IPv4 address 10.91.1.2\)"
ok_if "r1b has pfifo: no noqueue warning" hasnt "noqueue"
expect_ok "switch attach r2b --rate 1.5gbit --switch-id 7 --port-id 21" \
	"$H" -n $R2 switch attach r2b --rate 1.5gbit --switch-id 7 --port-id 21
ok_if "1.5gbit is 1500 Mbit/s" has "rate 1500 Mbit/s"
ok_if "r2b is noqueue: warned, qdisc suggested" has "warning: r2b has no queue.*tc qdisc replace dev r2b"
expect_err "switch attach twice: already attached" 1 "already attached to r1b" \
	"$H" -n $R1 switch attach r1b --rate 100mbit
expect_ok "second port in r1 joins the instance (ip netns exec)" \
	ip netns exec $R1 "$H" switch attach r1a --rate 400000kbit
ok_if "second port: same switch id, 400 Mbit/s" \
	has "switch_id 173736194 \(this switch's other ports\).*rate 400 Mbit/s.*joined"
# counted in status, by namespace: other runs' pins may sit beside ours
run "$H" status
ok_if "one switch instance per namespace: 2 instances, links pinned" \
	bash -c '[ "$(grep -c "^switch \[netns $2\]: .*links 3/3$" <<<"$1")" -eq 1 ] &&
		 [ "$(grep -c "^switch \[netns $3\]: .*links 3/3$" <<<"$1")" -eq 1 ]' _ "$out" $R1 $R2

# ---------------------------------------------------------------- trace
# the first probes also wait for neighbour discovery on a fresh topology
expect_ok "trace 10.91.3.2 (IPv4)" "$H" -n $S trace 10.91.3.2 --timeout 5
ok_if "trace: 2 hops, no overflow, checksum ok" has "2 hops, overflow no, response_dscp 3, tcp checksum ok"
ok_if "trace: hop 1 = r1 (switch 173736194, port 3, 100 Mbit/s)" \
	has "^1 +173736194 +3 +100 Mbit/s +[0-9]+ +[0-9]+ +-$"
ok_if "trace: hop 2 = r2 (switch 7, port 21, 1.50 Gbit/s)" \
	has "^2 +7 +21 +1.50 Gbit/s +0 +0 +[0-9.-]+ [mun]?s$"
expect_ok "trace [fd91:3::2]:5201 --json (IPv6)" "$H" -n $S trace "[fd91:3::2]:5201" --json --timeout 5
ok_if "trace v6 json: 2 hops, port 5201, checksum ok" \
	has '"port":5201,.*"nhops":2,"overflow":false,"checksum_ok":true'
ok_if "trace v6 json: hop ids" has '"switch_id":173736194,"port_id":3,.*"switch_id":7,"port_id":21,"rate_mbps":1500'
expect_ok "trace fd91:3::2 --sport 40000 (bare IPv6)" "$H" -n $S trace fd91:3::2 --sport 40000
ok_if "trace: given source port used" has "from \[fd91:1::1\]:40000"

# the sender's own hpcc_host drops responses; the packet socket sees them first
expect_ok "host attach hs0 (sender, ip netns exec)" ip netns exec $S "$H" host attach hs0
expect_ok "trace with hpcc_host on the sender's ingress" "$H" -n $S trace 10.91.3.2
ok_if "trace: still 2 hops" has "2 hops"

# a queue: r1b shaped to 10mbit with room for 1 s of backlog, and 14 Mbit/s
# of UDP for 4 s: the backlog grows by 0.5 MB/s and stays below the limit
# while trace's handshake and then its probe wait in it
ip netns exec $R1 tc qdisc replace dev r1b root tbf rate 10mbit burst 10kb latency 1s
ip netns exec $S iperf3 -c 10.91.3.2 -p 5201 -u -b 14M -l 1400 -t 4 >/dev/null 2>&1 &
burst=$!
# until the backlog stands (at most 3 s of the burst's 4)
for i in $(seq 30); do
	[ "$(qstat $R1 r1b backlog)" -ge 300000 ] 2>/dev/null && break
	sleep 0.1
done
expect_ok "trace behind a burst (tbf 10mbit)" "$H" -n $S trace 10.91.3.2 --timeout 5 --json
wait $burst
qlen=$(grep -o '"hop":1,[^}]*' <<<"$out" | sed -n 's/.*"qlen":\([0-9]*\).*/\1/p')
ok_if "trace: hop 1 reports the backlog (qlen=${qlen:-?} > 100000)" test "${qlen:-0}" -gt 100000
txb=$(grep -o '"hop":1,[^}]*' <<<"$out" | sed -n 's/.*"tx_bytes":\([0-9]*\).*/\1/p')
ok_if "trace: hop 1 tx_bytes counts the burst (${txb:-?} > 0)" test "${txb:-0}" -gt 0

# errors
expect_err "trace: bad destination" 2 "bad destination 'example.com'" \
	"$H" -n $S trace example.com
expect_err "trace: bad port" 2 "bad destination '10.91.3.2:0'" \
	"$H" -n $S trace 10.91.3.2:0
expect_err "trace to a silent address: timeout" 1 "no connection to 10.91.3.99:80 within 0.3 s" \
	"$H" -n $S trace 10.91.3.99 --timeout 0.3
expect_err "trace to a port without a listener: refused, told why" 1 \
	"10.91.3.2:5300 refused the connection: hpcc_host answers only the probes of a connection" \
	"$H" -n $S trace 10.91.3.2:5300


# --------------------------------------------------------------- status
expect_ok "status" env HPCC_PROBE_ROOT=$NOMOD "$H" status
ok_if "status: receiver host, DSCPs, tc attached" \
	has "^host hd0 \[netns $D\]: prog id [0-9]+, probe_dscp 7, response_dscp 3, reflect 100000/s burst 1000, per peer 25000/s burst 250, tc ingress attached"
ok_if "status: sender host" has "^host hs0 \[netns $S\]: .*tc ingress attached"
ok_if "status: r1 instance with both ports" \
	bash -c 'grep -A30 "^switch \[netns '$R1'\]: .*links 3/3" <<<"$1" | grep -c "^  port r1[ab] .*tc egress attached" | grep -qx 2' _ "$out"
ok_if "status: r2 port config" has "port r2b \(ifindex [0-9]+\): switch_id 7, port_id 21, rate 1500 Mbit/s.*root qdisc noqueue"
ok_if "status: r1b queue snapshot" has "queue snapshot: backlog [0-9]+ B, sent [0-9]+ B"
ok_if "status: every counter by name" has "qstat_other_netns" && has "probe_reflected" && has "kfunc_other" &&
	has "reflect_no_socket" && has "reflect_no_conn" && has "reflect_limited"
hd0=$(sed -n "/^host hd0 /,/^[a-z]/p" <<<"$out")
refl=$(grep -o 'probe_reflected *[0-9]*' <<<"$hd0" | grep -o '[0-9]*$')
ok_if "status: hd0 reflected every probe (probe_reflected=${refl:-?} >= 5)" test "${refl:-0}" -ge 5
hs0=$(sed -n "/^host hs0 /,/^[a-z]/p" <<<"$out")
# the responses reach hs0 for trace's connections, which are not hpcc's
cnt() { grep -oE "(^|[[:space:]])$1 +[0-9]+" <<<"$2" | grep -o '[0-9]*$'; }
nos=$(( $(cnt no_module "$hs0") + $(cnt not_hpcc "$hs0") ))
ok_if "status: hs0 found trace's connections for its responses (no_module + not_hpcc=$nos >= 2)" \
	test "$nos" -ge 2
r2=$(sed -n "/^switch \[netns $R2\]/,/^[a-z]/p" <<<"$out")
st=$(grep -o 'switch_stamped *[0-9]*' <<<"$r2" | grep -o '[0-9]*$')
ok_if "status: r2 stamped every probe (switch_stamped=${st:-?} >= 5)" test "${st:-0}" -ge 5
ok_if "status: module not loaded" has "^module tcp_hpcc: not loaded$"

# status --json: one valid object, the same facts as the text just before
txt=$out
printf '%s\n' "$txt" >$FAKE/status.txt
expect_ok "status --json (stdout only)" sh -c '"$@" >"$0"' $FAKE/status.json \
	env HPCC_PROBE_ROOT=$NOMOD "$H" status --json
out=$(cat $FAKE/status.json)
ok_if "status --json: parses (python3 -m json.tool)" \
	python3 -m json.tool $FAKE/status.json /dev/null
ok_if "status --json: one line, one object" \
	test "$(wc -l <$FAKE/status.json)" -eq 1 -a "${out:0:1}" = "{"
run python3 tests/probe/status_json_match.py $FAKE/status.txt \
	$FAKE/status.json $S $R1 $R2 $D
tap $((rc != 0)) "status --json: hosts, switches, ports, counters as in the text (s r1 r2 d)"
ok_if "status --json: numbers are numbers" \
	python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))
h = [h for h in o["hosts"] if h["dev"] == "hd0"][0]
p = [p for s in o["switches"] for p in s["ports"] if p["dev"] == "r2b"][0]
sys.exit(not (h["probe_dscp"] == 7 and h["reflect_rate"] == 100000 and
	      h["counters"]["probe_reflected"] >= 5 and p["rate_mbps"] == 1500
	      and p["port_id"] == 21 and p["tc_egress"] == "attached"))' \
	$FAKE/status.json
expect_ok "status --json --no-config: exit 0" \
	env HPCC_PROBE_ROOT=$NOMOD "$H" status --json --no-config

# an edge port: r2b faces d, "outside" for a while. Probes and responses
# crossing it lose their records, probes from d are dropped.
edge_cnt() {	# edge_cnt NAME: r2's counter NAME
	"$H" status 2>/dev/null | sed -n "/^switch \[netns $R2\]/,/^[a-z]/p" |
		grep -oE "(^|[[:space:]])$1 +[0-9]+" | grep -o '[0-9]*$'
}
expect_ok "switch detach r2b" "$H" -n $R2 switch detach r2b
expect_ok "switch attach r2b --edge" "$H" -n $R2 switch attach r2b --edge --switch-id 7 --port-id 21
ok_if "edge: hpcc_edge_in on r2b's ingress too" has "attached to r2b egress and hpcc_edge_in to its ingress.*edge port"
strip0=$(edge_cnt edge_stripped) drop0=$(edge_cnt edge_probe_dropped)
expect_ok "trace s -> d across the edge: answered" "$H" -n $S trace 10.91.3.2 --timeout 5
ok_if "trace across the edge: no records (r1's removed at r2b, r2b stamps none)" \
	has "response on hs0 after .*: 0 hops, overflow no"
expect_err "trace d -> s: its probe is dropped where it comes in (r2b)" 1 \
	"no response from 10.91.1.1 within 1 s" "$H" -n $D trace 10.91.1.1
ok_if "edge counters: the probe and its response stripped, d's probe dropped" \
	test "$(( $(edge_cnt edge_stripped) - strip0 ))" -ge 2 -a \
	"$(( $(edge_cnt edge_probe_dropped) - drop0 ))" -ge 1
run "$H" status
ok_if "status: r2b an edge port, both filters attached" \
	has "port r2b \(ifindex [0-9]+\): .*edge \(tc ingress attached\), root qdisc noqueue, tc egress attached"
expect_ok "switch detach r2b (edge): both filters go" "$H" -n $R2 switch detach r2b
run ip netns exec $R2 tc filter show dev r2b ingress
ok_if "r2b: no filter left on its ingress" hasnt hpcc_edge_in
expect_ok "switch attach r2b as before" "$H" -n $R2 switch attach r2b --rate 1.5gbit --switch-id 7 --port-id 21

# ------------------------------------------ device names are not paths
# A pin directory is named after the device: a name that is no interface
# name must be refused before it becomes a path (../.. from one namespace
# reaches the pins of every other one, and /sys/fs/bpf itself).
long=abcdefghijklmnop	# 16 bytes: one more than the kernel allows
for name in .. ../.. a/b . "$long" "a b" "a:b" ""; do
	expect_err "host detach '$name': bad device name" 2 "bad device name '$name'" \
		"$H" -n $S host detach "$name"
done
for name in ../.. a/b "$long"; do
	expect_err "host attach '$name': bad device name" 2 "bad device name" \
		"$H" -n $S host attach "$name"
	expect_err "switch attach '$name': bad device name" 2 "bad device name" \
		"$H" -n $R1 switch attach "$name" --rate 1gbit
	expect_err "switch detach '$name': bad device name" 2 "bad device name" \
		"$H" -n $R1 switch detach "$name"
	expect_err "trace --dev '$name': bad device name" 2 "bad device name" \
		"$H" -n $S trace 10.91.3.2 --dev "$name"
done
dck=${pins%/host/hd0}; dck=${dck##*/}
expect_err "host detach of d's pins by a path from s: refused" 2 "bad device name" \
	"$H" -n $S host detach "../../$dck/host/hd0"
ok_if "d's hd0 pins are still there" test -e "$pins/hpcc_host" -a -e "$pins/hpcc_counters"
sdir=$(ls -d /sys/fs/bpf/tcp_hpcc/netns/*/host/hs0 2>/dev/null | head -n1)
sdir=${sdir%/host/hs0}
if command -v bpftool >/dev/null && [ -n "$sdir" ] &&
   bpftool map create "$sdir/canary" type array key 4 value 4 entries 1 name canary 2>/dev/null; then
	expect_err "host detach '..' from s: refused" 2 "bad device name" "$H" -n $S host detach ..
	ok_if "a pin beside s's host directory is still there" test -e "$sdir/canary"
	rm -f "$sdir/canary"
else
	tap 0 "pin beside s's host directory # SKIP no bpftool or no pins for s"
fi

# ------------------------------------- any interface name can be pinned
# bpffs refuses '.' in names, and a VLAN device's usual name has one. The
# pin directory spells it ':', which no interface name can contain.
if ip -n $D link add link hd0 name hv0.100 type vlan id 100 2>/dev/null; then
	vlan="VLAN device hv0.100"
else	# a kernel without 802.1Q: the name is what matters
	ip -n $D link add hv0.100 type veth peer name hv0p
	vlan="veth named hv0.100 (no 802.1Q in this kernel)"
fi
ip -n $D link set hv0.100 up
expect_ok "host attach hv0.100: $vlan" "$H" -n $D host attach hv0.100
ok_if "hv0.100 pinned as host/hv0:100" has "pinned at /sys/fs/bpf/tcp_hpcc/netns/[0-9]+/host/hv0:100$"
vpins=$(sed -n 's/.*pinned at //p' <<<"$out")
ok_if "hv0.100: program pinned" test -e "$vpins/hpcc_host"
run ip netns exec $D tc filter show dev hv0.100 ingress
ok_if "tc: hpcc_host on hv0.100 ingress" has "handle 0x4850 hpcc_host"
expect_err "host attach hv0.100 twice: already attached" 1 "already attached to hv0.100" \
	"$H" -n $D host attach hv0.100
expect_ok "status with hv0.100" "$H" status
ok_if "status: host hv0.100 attached, by its name" \
	has "^host hv0.100 \[netns $D\]: .*tc ingress attached"
# '.', '-' and '_' are all legal: distinct names, distinct directories
ip -n $D link add hv.1 type veth peer name hv.1p
ip -n $D link add hv-1 type veth peer name hv-1p
expect_ok "host attach hv.1" "$H" -n $D host attach hv.1
expect_ok "host attach hv-1" "$H" -n $D host attach hv-1
expect_ok "status with hv.1 and hv-1" "$H" status
ok_if "status: hv.1 and hv-1 both attached" \
	bash -c 'grep -q "^host hv\.1 .*tc ingress attached" <<<"$1" && grep -q "^host hv-1 .*tc ingress attached" <<<"$1"' _ "$out"
expect_ok "host detach hv.1" "$H" -n $D host detach hv.1
ok_if "hv-1 untouched by detaching hv.1" test "$(ip netns exec $D tc filter show dev hv-1 ingress | grep -c 0x4850)" -eq 1
expect_ok "host detach hv-1" "$H" -n $D host detach hv-1
if ip -n $D link property add dev hv-1 altname hvalt 2>/dev/null; then
	expect_ok "host attach by an alternative name (hvalt)" "$H" -n $D host attach hvalt
	ok_if "pinned under the device's own name, hv-1" has "/host/hv-1$"
	expect_ok "host detach by its own name (hv-1)" "$H" -n $D host detach hv-1
else
	tap 0 "alternative names # SKIP ip link property not supported"
fi
expect_ok "host detach hv0.100" "$H" -n $D host detach hv0.100
ok_if "hv0.100: pins removed" test -n "$vpins" -a ! -e "$vpins"
expect_err "host detach hv0.100 twice: not attached" 1 "hpcc_host is not attached to hv0.100" \
	"$H" -n $D host detach hv0.100
ip -n $D link del hv0.100; ip -n $D link del hv.1; ip -n $D link del hv-1

# counters pinned by an older program, before bad_csum was appended: the
# counters it has are shown, the newer ones as 0
zdir=${pins%/hd0}/hz0
if command -v bpftool >/dev/null && mkdir "$zdir" &&
   bpftool map create "$zdir/hpcc_counters" type percpu_array key 4 value 8 \
	entries $((27)) name hpcc_counters 2>/dev/null; then
	expect_ok "status with an older program's counters (27 entries)" "$H" status
	hz0=$(sed -n "/^host hz0 /,/^[a-z]/p" <<<"$out")
	ok_if "status: older counters readable, bad_csum 0" \
		bash -c 'grep -q "qstat_other_netns *0" <<<"$1" && grep -q "bad_csum *0" <<<"$1"' _ "$hz0"
else
	tap 0 "older counters # SKIP no bpftool"
fi
rm -rf "$zdir"

# device gone while attached
ip -n $D link add hx0 type veth peer name hx1 && ip -n $D link set hx0 up
expect_ok "host attach hx0" "$H" -n $D host attach hx0
ip -n $D link del hx0
expect_ok "status after hx0 was deleted" "$H" status
ok_if "status: hx0 reported GONE" has "^host hx0 .*tc ingress GONE"
expect_ok "host detach of a deleted device removes the pins" "$H" -n $D host detach hx0
ok_if "warned that the device is gone" has "device hx0 is gone"

# raw IP devices (tun here; wireguard, ipip, gre... alike): the programs
# are told so, for packets that would also read as Ethernet
if ip -n $D tuntap add dev ht0 mode tun 2>/dev/null &&
   ip -n $R2 tuntap add dev rt0 mode tun 2>/dev/null; then
	expect_ok "host attach ht0 (tun)" env HPCC_PROBE_ROOT=$NOMOD "$H" -n $D host attach ht0
	ok_if "host attach: ht0 is a raw IP device" has "response_dscp 3, reflect 100000/s burst 1000, per peer 25000/s burst 250, raw IP device\)"
	expect_ok "switch attach rt0 (tun)" "$H" -n $R2 switch attach rt0 --rate 1gbit
	ok_if "switch attach: rt0 is a raw IP device" has "response_dscp 3, raw IP device"
	expect_ok "status with raw IP devices" "$H" status
	ok_if "status: host ht0 raw IP" has "^host ht0 \[netns $D\]: .*response_dscp 3, reflect [^,]*, per peer [^,]*, raw IP, tc ingress attached"
	ok_if "status: port rt0 raw IP" has "^  port rt0 .*response_dscp 3, raw IP, root qdisc"
	ok_if "status: veth hd0 is not raw IP" bash -c '! grep -q "^host hd0 .*raw IP" <<<"$1"' _ "$out"
	expect_ok "host detach ht0" "$H" -n $D host detach ht0
	expect_ok "switch detach rt0" "$H" -n $R2 switch detach rt0
else
	tap 0 "raw IP devices # SKIP no tun device"
fi

# ------------------------------- a real hpcc flow (tcp_hpcc.ko loaded)
# Runs where the module is loaded (the VM: insmod tcp_hpcc.ko first).
if [ -d /sys/module/tcp_hpcc ] && [ -e /sys/kernel/btf/tcp_hpcc ] &&
   command -v iperf3 >/dev/null; then
	ip netns exec $R1 tc qdisc replace dev r1b root tbf rate 100mbit burst 64kb latency 20ms
	# the iperf3 server on 5201 (setup) serves this transfer
	ip netns exec $S iperf3 -c 10.91.3.2 -p 5201 -C hpcc -t 3 >/dev/null 2>&1 &
	iperf=$!
	telemetry="^10.91.1.1:[0-9]+ +10.91.3.2:5201 +hpcc .* 2$"
	# until the flow runs on telemetry (at most 2 s of its 3)
	for i in $(seq 20); do
		"$H" -n $S flows 2>/dev/null | grep -Eq "$telemetry" && break
		sleep 0.1
	done
	expect_ok "flows during an hpcc transfer" "$H" -n $S flows
	ok_if "flows: the transfer is in telemetry mode over 2 hops" has "$telemetry"
	wait $iperf
	expect_ok "status after the transfer" "$H" status
	hs0=$(sed -n "/^host hs0 /,/^[a-z]/p" <<<"$out")
	del=$(grep -o 'resp_delivered *[0-9]*' <<<"$hs0" | grep -o '[0-9]*$')
	ok_if "status: hs0 delivered responses to tcp_hpcc (resp_delivered=${del:-?} > 10)" \
		test "${del:-0}" -gt 10
	ok_if "status: tcp_hpcc_stat ReportsUsed" has "ReportsUsed +[1-9]"
else
	for t in "flows during an hpcc transfer" "status: resp_delivered"; do
		tap 0 "$t # SKIP tcp_hpcc.ko (with BTF) not loaded or no iperf3"
	done
fi

# ------------------------------------------------- faked tcp_hpcc module
mkdir -p $FAKE/sys/module/tcp_hpcc/parameters $FAKE/sys/kernel/btf $FAKE/proc/net
echo 12 >$FAKE/sys/module/tcp_hpcc/parameters/probe_dscp
echo 13 >$FAKE/sys/module/tcp_hpcc/parameters/response_dscp
cat >$FAKE/proc/net/tcp_hpcc <<'EOF'
local remote mode w_bytes wc_bytes u_permille stage bottleneck_hop rate_Bps t_us age_us probe_rtt_us hops unanswered
10.0.0.1:5201 10.0.0.2:40000 hpcc 1250000 1200000 953 2 1 1187500000 80 120 45 2 0
[fd00::1]:22 [fd00::2]:51234 reno 0 0 0 0 0 0 1000 - 0 0 0
EOF
printf 'Flows 3\nProbesSent 100\n' >$FAKE/proc/net/tcp_hpcc_stat

expect_err "flows without the module" 1 "tcp_hpcc is not loaded" \
	env HPCC_PROBE_ROOT=$NOMOD "$H" flows
expect_err "host attach, module without BTF: refused" 1 \
	"tcp_hpcc is loaded without BTF" env HPCC_PROBE_ROOT=$FAKE "$H" -n $S host attach hs0
touch $FAKE/sys/kernel/btf/tcp_hpcc
expect_ok "host detach hs0" "$H" -n $S host detach hs0
expect_ok "host attach hs0 with the module: its DSCPs" \
	env HPCC_PROBE_ROOT=$FAKE "$H" -n $S host attach hs0
ok_if "DSCPs from the module's parameters (12/13)" has "probe_dscp 12, response_dscp 13"
ok_if "no missing-module warning" hasnt "not loaded"
expect_ok "status with the module" env HPCC_PROBE_ROOT=$FAKE "$H" status
ok_if "status: module line, BTF" has "^module tcp_hpcc: loaded, BTF present, probe_dscp 12, response_dscp 13"
ok_if "status: tcp_hpcc_stat" has "ProbesSent +100"
ok_if "status: hs0 with the module's DSCPs" has "^host hs0 .*probe_dscp 12, response_dscp 13"
expect_ok "flows" env HPCC_PROBE_ROOT=$FAKE "$H" flows
ok_if "flows: hpcc flow formatted" \
	has "^10.0.0.1:5201 +10.0.0.2:40000 +hpcc +1.2 MiB +95.3% +hop 2 +9.50 Gbit/s +120.0 us +45.0 us +2$"
ok_if "flows: flow without telemetry" has "^\[fd00::1\]:22 +\[fd00::2\]:51234 +reno .* never +- +0$"

# --------------------------------------------------------------- detach
expect_ok "switch detach r1b" "$H" -n $R1 switch detach r1b
ok_if "r1 instance kept for r1a" hasnt "unloaded"
expect_err "switch detach r1b twice: not attached" 1 "hpcc_switch is not attached to r1b" \
	"$H" -n $R1 switch detach r1b
expect_err "switch detach unknown device" 1 "unknown device 'nope0'" \
	"$H" -n $R1 switch detach nope0
run ip netns exec $R1 tc qdisc show dev r1b
ok_if "r1b: clsact removed, tbf kept" bash -c '! grep -q clsact <<<"$1" && grep -q tbf <<<"$1"' _ "$out"
expect_ok "switch detach r1a: last port" "$H" -n $R1 switch detach r1a
ok_if "last port: instance unloaded" has "hpcc_switch unloaded"
expect_err "switch detach r1a twice: not attached" 1 "hpcc_switch is not attached to r1a" \
	"$H" -n $R1 switch detach r1a
# r2: a port whose device is deleted, another whose filter is removed by hand
ip -n $R2 link add rx0 type veth peer name rx1 && ip -n $R2 link set rx0 up
expect_ok "switch attach rx0 (r2, second port)" "$H" -n $R2 switch attach rx0 --rate 1gbit
ip -n $R2 link del rx0
ip netns exec $R2 tc qdisc del dev r2b clsact
expect_ok "status: both r2 ports stale" "$H" status
ok_if "status: deleted device reported GONE" has "port \? \(ifindex [0-9]+\):.*tc egress GONE"
ok_if "status: removed filter reported NOT ATTACHED" has "port r2b .*tc egress NOT ATTACHED"
expect_ok "switch detach r2b after its filter was removed" "$H" -n $R2 switch detach r2b
ok_if "stale ports dropped with a warning" has "dropped the config of port \? \(ifindex [0-9]+\): device gone"
ok_if "r2b: filter already gone, instance unloaded" \
	bash -c 'grep -q "already gone" <<<"$1" && grep -q "hpcc_switch unloaded" <<<"$1"' _ "$out"
expect_err "switch detach --all without an instance" 1 \
	"not attached in this network namespace" "$H" -n $R2 switch detach --all
"$H" -n $R2 switch attach r2b --rate 1gbit >/dev/null 2>&1
expect_ok "switch detach --all (r2)" "$H" -n $R2 switch detach --all
ok_if "--all: r2b detached, instance unloaded" \
	bash -c 'grep -q "detached from r2b" <<<"$1" && grep -q "unloaded" <<<"$1"' _ "$out"
expect_ok "host detach hd0" "$H" -n $D host detach hd0
expect_err "host detach hd0 twice: not attached" 1 "hpcc_host is not attached to hd0" \
	"$H" -n $D host detach hd0
run ip netns exec $D tc qdisc show dev hd0
ok_if "hd0: clsact removed" hasnt clsact
expect_ok "host detach hs0" "$H" -n $S host detach hs0
expect_ok "status after detaching everything" "$H" status
ok_if "status: none of the test namespaces left" hasnt "netns $P-"
expect_err "trace after detach: d's TCP drops the probe of its connection, no response" 1 \
	"no response from 10.91.3.2:5201 within 1 s \(is hpcc_host attached" "$H" -n $S trace 10.91.3.2:5201

# --------------------------------------------------------- golden outputs
# The exact text of every command, help and error message: test_golden.sh
# (its TAP nested under '# ', one assertion here).
run env HPCC_PROBE="$H" tests/probe/test_golden.sh
sed 's/^/# /' <<<"$out"
out=$(tail -n1 <<<"$out")
tap $rc "golden outputs (tests/probe/test_golden.sh, tests/probe/golden/)"

tap_done
