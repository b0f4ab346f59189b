#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Many hpcc flows with telemetry on: sender - router - receiver, the
# router's port towards the receiver stamped (hpcc_switch), the host
# programs on both ends (probes reflected, responses to the kfunc).
#
# 1. 1000 concurrent hpcc connections, all established before any data
#    and all alive while every one carries its pattern stream: the
#    sender's /proc/net/tcp_hpcc lists them all, reports are used by the
#    law, every stream arrives byte-exact (the receiver compares each byte
#    with the pattern; both ends' SHA-256 of every stream agree), Flows
#    grows by 1000, and no flow state is left once they are closed.
# 2. 5000 short hpcc connections (1000 on the debug kernel; STRESS_CONNS),
#    opened and closed as fast as 8 parallel workers can, each carrying
#    one checked stream: all succeed, Flows grows by exactly the number
#    opened, and no flow state is left afterwards. (The VM opens some
#    100-170 a second on the stock kernel under TCG and 20-30 on the debug
#    kernel.)
. "$(dirname "$0")/lib.sh"
. "$HERE/stress_lib.sh"

require probe hpcc_stress module

FLOWS=${STRESS_FLOWS:-1000}
FLOW_BYTES=${STRESS_FLOW_BYTES:-4096}	# + (id % 64) * 257 each
conns=5000
[ "$WORK_DIV" -eq 1 ] || conns=1000
CONNS=${STRESS_CONNS:-$conns}
WORKERS=${STRESS_WORKERS:-8}
CONN_BYTES=${STRESS_CONN_BYTES:-1000}

s=strs$$ r=strr$$ d=strd$$
tmp=/tmp/stress.$$
pids=""
cleanup() {
	local p
	exec 3>&- 2>/dev/null
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	for p in $pids; do
		wait "$p" 2>/dev/null
	done
	ns_down $s $r $d
	rm -rf "$tmp"
}
cleanup_trap cleanup
mkdir -p "$tmp"

# sender 10.2.1.1 -- 10.2.1.254 router 10.2.2.254 -- 10.2.2.1 receiver
for ns in $s $r $d; do
	$IP netns add $ns
	$IP -n $ns link set lo up
done
$IP link add veth0 netns $s type veth peer name rs netns $r
$IP link add rd netns $r type veth peer name veth1 netns $d
$IP -n $s addr add 10.2.1.1/24 dev veth0
$IP -n $r addr add 10.2.1.254/24 dev rs
$IP -n $r addr add 10.2.2.254/24 dev rd
$IP -n $d addr add 10.2.2.1/24 dev veth1
for l in "$s veth0" "$r rs" "$r rd" "$d veth1"; do
	set -- $l
	$IP -n $1 link set $2 up
done
$IP -n $s route add default via 10.2.1.254
$IP -n $d route add default via 10.2.2.254
$IP netns exec $r sysctl -qw net.ipv4.ip_forward=1
$TC -n $r qdisc add dev rd root pfifo limit 10000
$TC -n $s qdisc add dev veth0 root fq
# thousands of connections: room for their TIME_WAITs and ports
for ns in $s $d; do
	$IP netns exec $ns sysctl -qw net.ipv4.tcp_max_tw_buckets=100000
	$IP netns exec $ns sysctl -qw net.ipv4.ip_local_port_range="10000 65000"
done
check "telemetry on: host programs on both ends, router port stamped" \
	sh -c "./probe/hpcc-probe -n $s host attach veth0 >/dev/null &&
	       ./probe/hpcc-probe -n $d host attach veth1 >/dev/null &&
	       ./probe/hpcc-probe -n $r switch attach rd --rate 10gbit --switch-id 7 >/dev/null"

listening() {		# NS PORT
	$IP netns exec "$1" cat /proc/net/tcp6 | awk -v p="$(printf '%04X' "$2")" \
		'$4 == "0A" && $2 ~ ":" p "$" { f = 1 } END { exit !f }'
}
gone() {		# PID
	! kill -0 "$1" 2>/dev/null
}
has_line() {		# FILE PREFIX
	grep -q "^$2" "$1"
}
idle=$(scaled 60)

# ---- 1. FLOWS concurrent flows --------------------------------------------
flows0=$(hpcc_stat Flows) degr0=$(hpcc_stat FlowsDegraded)
acc0=$(hpcc_stat ReportsAccepted) used0=$(hpcc_stat ReportsUsed)
$IP netns exec $d "$HERE/hpcc_stress" sink 7000 -n $FLOWS -t $idle \
	>$tmp/sink1 2>$tmp/sink1.err &
sink=$!
pids="$pids $sink"
poll 10 listening $d 7000 || echo "# the sink is not listening"
mkfifo $tmp/ctl
$IP netns exec $s "$HERE/hpcc_stress" flows 10.2.2.1 7000 $FLOWS $FLOW_BYTES \
	-c hpcc -t $idle -d $tmp/flows.digests <$tmp/ctl >$tmp/flows 2>$tmp/flows.err &
cli=$!
pids="$pids $cli"
exec 3>$tmp/ctl
t0=$(date +%s)
poll 300 has_line $tmp/flows connected
sed 's/^/# /' $tmp/flows
n=$(flow_count $s)
echo "# /proc/net/tcp_hpcc of the sender with every connection open: $n flows"
check "$FLOWS hpcc connections established at once" \
	grep -q "^connected $FLOWS failed 0 " $tmp/flows
check "/proc/net/tcp_hpcc lists them all ($n >= $FLOWS)" test "$n" -ge $FLOWS

echo go >&3
poll 600 has_line $tmp/flows sent
sed -n 's/^sent/# sent/p' $tmp/flows
n=$(flow_count $s)
used=$(($(hpcc_stat ReportsUsed) - used0))
acc=$(($(hpcc_stat ReportsAccepted) - acc0))
echo "# after the data, still open: $n flows; reports accepted $acc, used by the law $used"
check "all $FLOWS still alive after carrying their data ($n)" test "$n" -ge $FLOWS
check "ReportsUsed grew while they carried data (+$used)" test "$used" -gt 0

echo close >&3
exec 3>&-
poll 300 gone $cli
wait $cli
rc_cli=$?
poll 60 gone $sink
wait $sink
rc_sink=$?
pids=""
echo "# $(cat $tmp/flows | tail -n1)"
echo "# $(cat $tmp/sink1)"
sed 's/^/# sender: /' $tmp/flows.err | head -n 20
sed 's/^/# sink: /' $tmp/sink1.err | head -n 20
check "sender: every stream's reply matched what it sent (exit $rc_cli)" \
	sh -c "test $rc_cli -eq 0 && grep -q ' ok=$FLOWS failed=0 ' $tmp/flows"
check "receiver: $FLOWS streams, every byte the pattern's (exit $rc_sink)" \
	sh -c "test $rc_sink -eq 0 && grep -q 'streams=$FLOWS .* bad=0 errors=0 ' $tmp/sink1"
want=$(kv digest "$(cat $tmp/sink1)")
check "sha256 of all streams: sender's == receiver's ($want)" \
	test "$(kv digest "$(tail -n1 $tmp/flows)")" = "$want" -a \
	"$(sha $tmp/flows.digests)" = "$want"
check "no flow state left after they closed" poll 60 no_flows $s $d
flows=$(($(hpcc_stat Flows) - flows0)) degr=$(($(hpcc_stat FlowsDegraded) - degr0))
echo "# Flows +$flows, FlowsDegraded +$degr, in $(($(date +%s) - t0)) s"
check "Flows grew by exactly $FLOWS" test "$flows" -eq $FLOWS
check "no flow without state (FlowsDegraded +$degr)" test "$degr" -eq 0

# ---- 2. CONNS short connections from WORKERS workers ------------------------
flows0=$(hpcc_stat Flows) degr0=$(hpcc_stat FlowsDegraded)
sent0=$(hpcc_stat ProbesSent) acc0=$(hpcc_stat ReportsAccepted)
$IP netns exec $d "$HERE/hpcc_stress" sink 7001 -n $CONNS -t $idle \
	>$tmp/sink2 2>$tmp/sink2.err &
sink=$!
pids="$sink"
poll 10 listening $d 7001 || echo "# the sink is not listening"
per=$((CONNS / WORKERS))
t0=$(date +%s)
w=0
while [ $w -lt $WORKERS ]; do
	$IP netns exec $s "$HERE/hpcc_stress" churn 10.2.2.1 7001 $per $CONN_BYTES \
		-c hpcc -i $((w * per)) -t $idle -d $tmp/churn$w.digests \
		>$tmp/churn$w 2>$tmp/churn$w.err &
	pids="$pids $!"
	w=$((w + 1))
done
rcs=0
for p in $pids; do
	[ "$p" = "$sink" ] && continue
	poll 1200 gone $p
	wait $p || rcs=$((rcs + 1))
done
poll 60 gone $sink
wait $sink
rc_sink=$?
pids=""
secs=$(($(date +%s) - t0))
ok=0
w=0
while [ $w -lt $WORKERS ]; do
	echo "# worker $w: $(cat $tmp/churn$w)"
	sed 's/^/# worker: /' $tmp/churn$w.err | head -n 10
	ok=$((ok + $(kv ok "$(cat $tmp/churn$w)")))
	w=$((w + 1))
done
echo "# $(cat $tmp/sink2)"
sed 's/^/# sink: /' $tmp/sink2.err | head -n 20
echo "# $ok connections in $secs s ($((ok / (secs > 0 ? secs : 1))) per second)," \
	"probes sent $(($(hpcc_stat ProbesSent) - sent0)), reports accepted $(($(hpcc_stat ReportsAccepted) - acc0))"
check "$CONNS short hpcc connections, every one succeeded ($ok, $rcs workers failed)" \
	test "$ok" -eq $((per * WORKERS)) -a $rcs -eq 0
check "receiver: every stream complete and byte-exact (exit $rc_sink)" \
	sh -c "test $rc_sink -eq 0 && grep -q 'streams=$((per * WORKERS)) .* bad=0 errors=0 ' $tmp/sink2"
want=$(kv digest "$(cat $tmp/sink2)")
got=$(w=0; while [ $w -lt $WORKERS ]; do cat $tmp/churn$w.digests; w=$((w + 1)); done | sha)
check "sha256 of all streams: senders' == receiver's ($want)" test "$got" = "$want"
check "no flow state left after they closed" poll 60 no_flows $s $d
flows=$(($(hpcc_stat Flows) - flows0)) degr=$(($(hpcc_stat FlowsDegraded) - degr0))
echo "# Flows +$flows, FlowsDegraded +$degr"
check "Flows grew by exactly the $((per * WORKERS)) connections opened" \
	test "$flows" -eq $((per * WORKERS))
check "no flow without state (FlowsDegraded +$degr)" test "$degr" -eq 0
tap_done
