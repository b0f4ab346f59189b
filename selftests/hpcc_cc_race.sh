#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# An unprivileged user's race: TCP_CC_INFO and sock_diag read a connection
# while TCP_CONGESTION switches it between hpcc and the stack's own
# congestion controls. ->get_info runs without the socket lock, so it must
# not follow anything out of icsk_ca_priv. A crash ends the VM (oops=panic);
# a KASAN report fails the kernel-log gate.
. "$(dirname "$0")/lib.sh"

require module
# long enough for 10000 switches; the debug kernel is several times slower
secs=${HPCC_RACE_SECONDS:-$([ "${HPCC_DEBUG_KERNEL:-0}" = 1 ] && echo 60 || echo 10)}
ns=ccrace$$
cleanup_trap 'ns_del $ns'
$IP netns add $ns
$IP -n $ns link set lo up
# bbr and dctcp leave non-zero words where hpcc keeps its flow pointer,
# cubic and reno zeros: the first two make a stale read fault.
out=$($IP netns exec $ns ./selftests/hpcc_cc_race "$secs" \
	hpcc bbr hpcc dctcp hpcc bbr hpcc dctcp hpcc cubic hpcc reno)
rc=$?
echo "# $out"
check "cc switches raced by TCP_CC_INFO and sock_diag: every call succeeded" \
	test $rc -eq 0
# The race needs the three to overlap many times to mean anything; a
# sock_diag dump is much slower than the other two.
for what in switches:10000 cc_info:10000 diag_dumps:100; do
	n=$(echo "$out" | awk -v k=${what%:*} '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }')
	check "${what%:*} ran at least ${what#*:} times ($n)" \
		test "${n:-0}" -ge ${what#*:}
done
check "hpcc still registered after the race" \
	grep -qw hpcc /proc/sys/net/ipv4/tcp_available_congestion_control
tap_done
