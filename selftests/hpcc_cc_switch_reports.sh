#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TCP_CONGESTION switched back and forth (hpcc, cubic, bbr, dctcp, reno) on
# both ends of live connections between two namespaces WHILE telemetry
# reports arrive: hpcc_host on both ends reflects probes and hands the
# responses to bpf_hpcc_report(), hpcc_switch on both ends' egress stamps
# a hop (so the law runs on them too), and TCP_CC_INFO, TCP_INFO,
# sock_diag dumps (hpcc_ccswitch) and `ss -ti` read the flows throughout.
# Asserted: ReportsAccepted and ReportsUsed grew during the switching,
# every switch, read and dump succeeded, every stream in both directions
# arrived byte-exact, and no flow state is left afterwards.
. "$(dirname "$0")/lib.sh"
. "$HERE/stress_lib.sh"

require probe hpcc_ccswitch module
secs=${HPCC_SWITCH_SECONDS:-10}
conns=${HPCC_SWITCH_CONNS:-4}
a=ccswA$$ b=ccswB$$
tmp=/tmp/ccsw.$$
ss_pid=
cleanup() {
	[ -z "$ss_pid" ] || { kill $ss_pid 2>/dev/null; wait $ss_pid 2>/dev/null; }
	ns_down $a $b
	rm -rf $tmp
}
cleanup_trap cleanup
mkdir -p $tmp
ns_pair $a $b
# qdiscs with a backlog to stamp (veth has none), and fq for the pacers
$TC -n $a qdisc add dev veth0 root fq
$TC -n $b qdisc add dev veth1 root fq
check "telemetry on both ends: host programs, egress stamped" \
	sh -c "./probe/hpcc-probe -n $a host attach veth0 >/dev/null &&
	       ./probe/hpcc-probe -n $b host attach veth1 >/dev/null &&
	       ./probe/hpcc-probe -n $a switch attach veth0 --rate 1gbit --switch-id 1 >/dev/null &&
	       ./probe/hpcc-probe -n $b switch attach veth1 --rate 1gbit --switch-id 2 >/dev/null"

# `ss -ti` in A for as long as the switching runs
ss_loop() {
	local runs=0 bad=0 hpcc=0
	while [ ! -e $tmp/done ]; do
		if $IP netns exec $a ss -tin >$tmp/ss.out 2>&1; then
			grep -q hpcc $tmp/ss.out && hpcc=$((hpcc + 1))
		else
			bad=$((bad + 1))
			sed 's/^/# ss: /' $tmp/ss.out | head -n 5
		fi
		runs=$((runs + 1))
	done
	echo "$runs $bad $hpcc" >$tmp/ss.count
}
ss_loop &
ss_pid=$!

acc0=$(hpcc_stat ReportsAccepted) used0=$(hpcc_stat ReportsUsed)
# the C program's own reading window is from its first switch to its stop
# at least $secs seconds and until the counts checked below were reached,
# at most 120 (scaled)
"$HERE/hpcc_ccswitch" -a $a -b $b -s 10.0.0.2 -p 7200 -n $conns -t $secs \
	-T $(scaled 120) -m 1000 -r 50 \
	hpcc cubic hpcc bbr hpcc dctcp hpcc reno >$tmp/out 2>$tmp/err
rc=$?
touch $tmp/done
poll 60 test -e $tmp/ss.count
wait $ss_pid
ss_pid=
sed 's/^/# /' $tmp/out
sed 's/^/# error: /' $tmp/err
set -- $(cat $tmp/ss.count 2>/dev/null) 0 0 0
ss_runs=$1 ss_bad=$2 ss_hpcc=$3
echo "# ss -ti in A: $ss_runs runs, $ss_bad failed, $ss_hpcc showed an hpcc socket"
echo "# whole run: ReportsAccepted +$(($(hpcc_stat ReportsAccepted) - acc0)), ReportsUsed +$(($(hpcc_stat ReportsUsed) - used0))"

field() {	# NAME: the number after NAME in the program's output
	awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' $tmp/out | head -n1
}
check "every switch, TCP_CC_INFO, TCP_INFO and sock_diag call succeeded (exit $rc, errors $(field errors))" \
	test $rc -eq 0 -a "$(field errors)" = 0
acc=$(field reports_accepted_during) used=$(field reports_used_during)
check "reports accepted by the kfunc while the switching ran (+$acc >= 50)" test "${acc:-0}" -ge 50
check "reports used by the law while the switching ran (+$used)" test "${used:-0}" -gt 0
for what in switches:1000 cc_info:10000 diag_dumps_a:50 diag_dumps_b:50 diag_hpcc_info:10; do
	n=$(field ${what%:*})
	check "${what%:*} ran at least ${what#*:} times ($n)" test "${n:-0}" -ge ${what#*:}
done
check "ss -ti ran throughout, every run succeeded ($ss_runs runs)" \
	test "$ss_runs" -ge 3 -a "$ss_bad" -eq 0
check "every stream in both directions arrived byte-exact ($(field intact) of $((2 * conns)))" \
	test "$(field intact)" = $((2 * conns))
check "sha256 of all streams: senders' == receivers'" \
	test "$(field sha256_sent)" = "$(field sha256_received)" -a -n "$(field sha256_sent)"
check "no flow state left after the connections closed" poll 30 no_flows $a $b
check "hpcc still registered" \
	grep -qw hpcc /proc/sys/net/ipv4/tcp_available_congestion_control
tap_done
