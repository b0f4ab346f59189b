#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tcp_hpcc loaded and unloaded 100 times, four ways:
#  - plain: insmod, rmmod at once;
#  - flows: hpcc connections carrying checked streams, rmmod right after
#    the last one closed (retried only while the kernel says the module is
#    busy, and a bounded number of times);
#  - programs: the receiver's hpcc_host attached once while the module is
#    absent (it then does not reference it: refcnt 0 after each insmod);
#    each cycle attaches the sender's hpcc_host (its kfunc call pins the
#    module: refcnt exactly 1 once the flows are gone), runs a flow whose
#    reports reach the kfunc, then rmmod must be refused as busy while it
#    is attached and succeed at the first try after `host detach`; every
#    fifth cycle stamps the sender's port too (hpcc_switch, no kfunc);
#  - programs first: plain cycles under the receiver's hpcc_host, which
#    predates the module and so never pins it.
# After every cycle the module must be gone (sysfs, BTF, the list of
# congestion controls), loadable again, and the kernel log since the
# cycle began free of reports. Ends with the module loaded again if it
# was loaded at the start.
. "$(dirname "$0")/lib.sh"
. "$HERE/stress_lib.sh"

[ -r "$HPCC_KO" ] || tap_skip_all "no $HPCC_KO (run make)"
require probe hpcc_stress
# 100 in all on both kernels; the debug kernel's are mostly plain, since
# every program cycle loads and verifies a BPF object (seconds there)
if [ "$WORK_DIV" -eq 1 ]; then
	PLAIN=${CYCLES_PLAIN:-40} FLOWS=${CYCLES_FLOWS:-30}
	PROGS=${CYCLES_PROGS:-20} PROGS_FIRST=${CYCLES_PROGS_FIRST:-10}
else
	PLAIN=${CYCLES_PLAIN:-70} FLOWS=${CYCLES_FLOWS:-20}
	PROGS=${CYCLES_PROGS:-6} PROGS_FIRST=${CYCLES_PROGS_FIRST:-4}
fi

klog_check=$(command -v klog-check.sh) || klog_check=./scripts/klog-check.sh
[ -x "$klog_check" ] || tap_skip_all "no klog-check.sh"

was_loaded=0
if module_loaded; then
	was_loaded=1
	# an earlier test's sockets may still be closing
	poll 30 rmmod tcp_hpcc 2>/dev/null ||
		tap_skip_all "tcp_hpcc is in use (refcnt $(cat /sys/module/tcp_hpcc/refcnt))"
fi

n1=cycA$$ n2=cycB$$
tmp=/tmp/cycles.$$
sink=
cleanup() {
	[ -z "$sink" ] || { kill $sink 2>/dev/null; wait $sink 2>/dev/null; }
	ns_down $n1 $n2
	rm -rf $tmp
	if [ $was_loaded = 1 ] && ! module_loaded; then
		insmod "$HPCC_KO" || echo "# could not load tcp_hpcc again"
	fi
}
cleanup_trap cleanup
mkdir -p $tmp
ns_pair $n1 $n2
$TC -n $n1 qdisc add dev veth0 root fq

# A stream sink for the whole run (cubic: it never holds the module).
$IP netns exec $n2 "$HERE/hpcc_stress" sink 7300 -t $(scaled 600) \
	>$tmp/sink 2>$tmp/sink.err &
sink=$!
poll 10 sh -c "$IP netns exec $n2 cat /proc/net/tcp6 | grep -q ':1C84 .* 0A '" ||
	echo "# the sink is not listening"

refcnt() {
	cat /sys/module/tcp_hpcc/refcnt 2>/dev/null || echo none
}
is_loaded() {
	module_loaded && [ -e /sys/kernel/btf/tcp_hpcc ] &&
		grep -qw hpcc /proc/sys/net/ipv4/tcp_available_congestion_control
}
is_gone() {
	! module_loaded && ! [ -e /sys/kernel/btf/tcp_hpcc ] &&
		! grep -qw hpcc /proc/sys/net/ipv4/tcp_available_congestion_control
}
# rmmod, its message in $tmp/rmmod; 0 on success
try_rmmod() {
	rmmod tcp_hpcc >$tmp/rmmod 2>&1
}
# the kernel said "busy": EAGAIN/EWOULDBLOCK (references held)
rmmod_busy() {
	grep -qiE 'temporarily unavailable|in use|busy' $tmp/rmmod
}
# rmmod, retried only while busy, at most 500 times; refusals in $tries
rmmod_retry() {
	tries=0
	while ! try_rmmod; do
		rmmod_busy || return 1
		tries=$((tries + 1))
		[ $tries -lt 500 ] || return 1
	done
}

failures=0
fail_note() {		# CYCLE WHAT
	failures=$((failures + 1))
	[ $failures -le 10 ] && echo "# cycle $1: $2"
	return 0
}
klog_lines() {
	dmesg | wc -l
}
# the kernel log since line $1 has no report
klog_clean() {
	dmesg | tail -n +$(($1 + 1)) | "$klog_check" -C 3 >$tmp/klog && return 0
	sed 's/^/# /' $tmp/klog | head -n 40
	return 1
}

streams=0
# conns CYCLE N BYTES: N hpcc connections one after the other, checked
conns() {
	$IP netns exec $n1 "$HERE/hpcc_stress" churn 10.0.0.2 7300 $2 $3 \
		-c hpcc -i $(($1 * 16)) -t $(scaled 60) >$tmp/churn 2>&1 &&
		streams=$((streams + $2))
}

# $laps: seconds since the last call
lap() {
	local now=$(date +%s)
	laps=$((now - ${lap0:-$now}))
	lap0=$now
}
cycle=0
plain_ok=0 flows_ok=0 progs_ok=0 first_ok=0 busy_total=0 refused_ok=0
t0=$(date +%s)
lap

# ---- plain ------------------------------------------------------------------
i=0
while [ $i -lt $PLAIN ]; do
	cycle=$((cycle + 1)) i=$((i + 1))
	mark=$(klog_lines)
	ok=1
	insmod "$HPCC_KO" 2>$tmp/insmod || { fail_note $cycle "insmod: $(cat $tmp/insmod)"; ok=0; }
	is_loaded || { fail_note $cycle "not registered after insmod"; ok=0; }
	try_rmmod || { fail_note $cycle "rmmod: $(cat $tmp/rmmod)"; ok=0; }
	is_gone || { fail_note $cycle "still there after rmmod"; ok=0; }
	klog_clean $mark || { fail_note $cycle "kernel log"; ok=0; }
	[ $ok = 1 ] && plain_ok=$((plain_ok + 1))
done
lap
echo "# plain: $plain_ok of $PLAIN cycles clean ($laps s)"

# ---- flows --------------------------------------------------------------------
i=0
while [ $i -lt $FLOWS ]; do
	cycle=$((cycle + 1)) i=$((i + 1))
	mark=$(klog_lines)
	ok=1
	insmod "$HPCC_KO" 2>$tmp/insmod || { fail_note $cycle "insmod: $(cat $tmp/insmod)"; ok=0; }
	# 1 to 4 connections, 64 KB each
	k=$((1 + i % 4))
	conns $cycle $k 65536 || { fail_note $cycle "flows: $(cat $tmp/churn)"; ok=0; }
	if rmmod_retry; then
		busy_total=$((busy_total + tries))
	else
		fail_note $cycle "rmmod after $tries refusals: $(cat $tmp/rmmod)"
		ok=0
		poll 30 try_rmmod
	fi
	is_gone || { fail_note $cycle "still there after rmmod"; ok=0; }
	klog_clean $mark || { fail_note $cycle "kernel log"; ok=0; }
	[ $ok = 1 ] && flows_ok=$((flows_ok + 1))
done
lap
echo "# flows: $flows_ok of $FLOWS cycles clean; rmmod said busy $busy_total times in all ($laps s)"

# ---- programs attached after the module -------------------------------------
refcnt_is() {
	[ "$(refcnt)" = "$1" ]
}
# the receiver's reflector, loaded while the module is absent: reflection
# needs no module, and such a program holds no reference on it
./probe/hpcc-probe -n $n2 host attach veth1 >/dev/null 2>$tmp/attach ||
	echo "# host attach on the receiver: $(cat $tmp/attach)"
i=0
while [ $i -lt $PROGS ]; do
	cycle=$((cycle + 1)) i=$((i + 1))
	mark=$(klog_lines)
	ok=1
	insmod "$HPCC_KO" 2>$tmp/insmod || { fail_note $cycle "insmod: $(cat $tmp/insmod)"; ok=0; }
	refcnt_is 0 || { fail_note $cycle "refcnt $(refcnt) after insmod"; ok=0; }
	./probe/hpcc-probe -n $n1 host attach veth0 >/dev/null 2>$tmp/attach ||
		{ fail_note $cycle "host attach: $(cat $tmp/attach)"; ok=0; }
	# every fifth cycle a stamping port too (it does not use the kfunc)
	[ $((i % 5)) = 1 ] && { ./probe/hpcc-probe -n $n1 switch attach veth0 --rate 1gbit \
		>/dev/null 2>$tmp/attach || { fail_note $cycle "switch attach: $(cat $tmp/attach)"; ok=0; }; }
	acc0=$(hpcc_stat ReportsAccepted)
	conns $cycle 2 262144 || { fail_note $cycle "flows: $(cat $tmp/churn)"; ok=0; }
	[ "$(hpcc_stat ReportsAccepted)" -gt "$acc0" ] ||
		{ fail_note $cycle "no report reached the kfunc"; ok=0; }
	# only the sender's program left holding it
	poll 30 refcnt_is 1 || { fail_note $cycle "refcnt $(refcnt), not the 1 program's"; ok=0; }
	if try_rmmod; then
		fail_note $cycle "rmmod succeeded with hpcc_host attached"
		ok=0
	elif rmmod_busy && module_loaded && refcnt_is 1; then
		refused_ok=$((refused_ok + 1))
	else
		fail_note $cycle "rmmod refused, but not as busy: $(cat $tmp/rmmod)"
		ok=0
	fi
	./probe/hpcc-probe -n $n1 host detach veth0 >/dev/null 2>$tmp/detach ||
		{ fail_note $cycle "host detach: $(cat $tmp/detach)"; ok=0; }
	[ $((i % 5)) = 1 ] && { ./probe/hpcc-probe -n $n1 switch detach --all \
		>/dev/null 2>$tmp/detach || { fail_note $cycle "switch detach: $(cat $tmp/detach)"; ok=0; }; }
	if ! module_loaded; then
		fail_note $cycle "the module went away before rmmod"
		ok=0
	elif ! try_rmmod; then
		fail_note $cycle "rmmod right after detach (refcnt $(refcnt)): $(cat $tmp/rmmod)"
		ok=0
		poll 30 try_rmmod
	fi
	is_gone || { fail_note $cycle "still there after rmmod"; ok=0; }
	klog_clean $mark || { fail_note $cycle "kernel log"; ok=0; }
	[ $ok = 1 ] && progs_ok=$((progs_ok + 1))
done
lap
echo "# programs: $progs_ok of $PROGS cycles clean, rmmod refused as busy while attached in $refused_ok ($laps s)"

# ---- under a program attached before the module -------------------------------
i=0
while [ $i -lt $PROGS_FIRST ]; do
	cycle=$((cycle + 1)) i=$((i + 1))
	mark=$(klog_lines)
	ok=1
	insmod "$HPCC_KO" 2>$tmp/insmod || { fail_note $cycle "insmod: $(cat $tmp/insmod)"; ok=0; }
	refcnt_is 0 || { fail_note $cycle "refcnt $(refcnt) with a program that predates the module"; ok=0; }
	try_rmmod || { fail_note $cycle "rmmod under a program loaded before the module: $(cat $tmp/rmmod)"; ok=0; }
	is_gone || { fail_note $cycle "still there after rmmod"; ok=0; }
	klog_clean $mark || { fail_note $cycle "kernel log"; ok=0; }
	[ $ok = 1 ] && first_ok=$((first_ok + 1))
done
./probe/hpcc-probe -n $n2 host detach veth1 >/dev/null 2>$tmp/detach ||
	echo "# host detach on the receiver: $(cat $tmp/detach)"
lap
echo "# programs first: $first_ok of $PROGS_FIRST cycles clean ($laps s)"

kill $sink
poll 30 sh -c "! kill -0 $sink 2>/dev/null"
wait $sink
sink=
echo "# $(cat $tmp/sink)"
sed 's/^/# sink: /' $tmp/sink.err | head -n 10
echo "# $cycle load/unload cycles in $(($(date +%s) - t0)) s, $streams checked streams"

check "$cycle load/unload cycles (>= 100)" test $cycle -ge 100
check "plain insmod/rmmod: $plain_ok of $PLAIN clean" test $plain_ok -eq $PLAIN
check "rmmod right after the last flow closed: $flows_ok of $FLOWS clean" test $flows_ok -eq $FLOWS
check "hpcc_host attached: rmmod refused as busy ($refused_ok of $PROGS), then succeeds after detach ($progs_ok clean)" \
	test $progs_ok -eq $PROGS -a $refused_ok -eq $PROGS
check "under hpcc_host attached before the module (it does not pin it): $first_ok of $PROGS_FIRST clean" \
	test $first_ok -eq $PROGS_FIRST
check "every stream of the flow cycles arrived byte-exact ($streams)" \
	sh -c "grep -q 'streams=$streams .* bad=0 errors=0 ' $tmp/sink"
check "the module loads again after all cycles" insmod "$HPCC_KO"
check "and registers hpcc, with its BTF" is_loaded
if [ $was_loaded = 0 ]; then
	rmmod tcp_hpcc
fi
tap_done
