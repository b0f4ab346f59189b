#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tcp_hpcc loads with BTF (and refuses BTF the kernel rejected), registers
# "hpcc", refuses bad parameters, is selectable by sysctl and by
# TCP_CONGESTION, and carries a 64 MiB stream over veth byte-exact (with no
# telemetry on the path: loss-based mode).
. "$(dirname "$0")/lib.sh"

[ -r "$HPCC_KO" ] || tap_skip_all "no $HPCC_KO (run make first)"
module_loaded && rmmod tcp_hpcc
a=modA$$ b=modB$$ tmp=/tmp/module.$$
orig=$(cat /proc/sys/net/ipv4/tcp_congestion_control)
cleanup() {
	ns_del $a $b
	sysctl -qw net.ipv4.tcp_congestion_control="$orig"
	rm -rf $tmp
}
cleanup_trap cleanup
mkdir -p $tmp

# BTF the kernel does not validate, as module BTF made for another build of
# it (an update that kept the ABI name): Debian's kernels would load the
# module without its kfunc (CONFIG_MODULE_ALLOW_BTF_MISMATCH), tcp_hpcc
# refuses; kernels without that option refuse it themselves.
check "a copy with BTF the kernel cannot validate" \
	./selftests/hpcc_btf_mangle "$HPCC_KO" $tmp/badbtf.ko
check "insmod of that copy is refused" sh -c "! insmod $tmp/badbtf.ko 2>/dev/null"
check "the refusal says the BTF was rejected" sh -c "dmesg | grep -Eq \
	'tcp_hpcc: the kernel rejected the module.s BTF|failed to validate module \[tcp_hpcc\] BTF'"
check "nothing of it stays loaded" test ! -e /sys/module/tcp_hpcc
dmesg | grep -E 'tcp_hpcc.*BTF|BTF mismatch' | sed 's/^/# /'
rm -f $tmp/badbtf.ko

check "insmod with eta=5 is refused" sh -c "! insmod $HPCC_KO eta=5 2>/dev/null"
check "the refusal names the allowed range" \
	sh -c "dmesg | grep -q 'eta=5 refused: allowed 500..1000'"
check "insmod tcp_hpcc.ko" insmod "$HPCC_KO"
check "module BTF present: kfunc bpf_hpcc_report in /sys/kernel/btf/tcp_hpcc" \
	sh -c "bpftool btf dump file /sys/kernel/btf/tcp_hpcc 2>/dev/null | grep -q \"FUNC 'bpf_hpcc_report'\""
check "hpcc listed in tcp_available_congestion_control" \
	grep -qw hpcc /proc/sys/net/ipv4/tcp_available_congestion_control

check "writing eta=2000 is refused" sh -c "! echo 2000 > $PARAMS/eta 2>/dev/null"
check "eta unchanged after the refused write" test "$(cat $PARAMS/eta)" = 950
check "writing max_stage=abc is refused" \
	sh -c "! echo abc > $PARAMS/max_stage 2>/dev/null"
check "writing probe_dscp=64 is refused" \
	sh -c "! echo 64 > $PARAMS/probe_dscp 2>/dev/null"
check "a valid write is taken (eta=900)" \
	sh -c "echo 900 > $PARAMS/eta && test \$(cat $PARAMS/eta) = 900"
set_param eta 950

mib=$((64 / WORK_DIV))
dd if=/dev/urandom of=$tmp/src bs=1M count=$mib status=none
want=$(sha256sum <$tmp/src | cut -d' ' -f1)

# selected by sysctl: namespaces inherit init_net's default at creation
check "sysctl net.ipv4.tcp_congestion_control=hpcc" \
	sysctl -qw net.ipv4.tcp_congestion_control=hpcc
ns_pair $a $b
$IP netns exec $b ./selftests/hpcc_xfer recv 5001 $tmp/dst &
wait_port $b 5001
out=$($IP netns exec $a ./selftests/hpcc_xfer send 10.0.0.2 5001 $tmp/src)
wait
echo "# $out"
check "sysctl default: the stream used hpcc" \
	sh -c "echo '$out' | grep -q 'cc=hpcc '"
check "$mib MiB over veth with hpcc: receiver sha256 matches" \
	test "$(sha256sum <$tmp/dst | cut -d' ' -f1)" = "$want"
sysctl -qw net.ipv4.tcp_congestion_control="$orig"
ns_del $a $b

# selected per socket, IPv6 this time
ns_pair $a $b
$IP netns exec $b ./selftests/hpcc_xfer recv 5002 $tmp/dst &
wait_port $b 5002
out=$($IP netns exec $a ./selftests/hpcc_xfer send fd00::2 5002 $tmp/src hpcc)
wait
echo "# $out"
check "TCP_CONGESTION=hpcc selects hpcc" \
	sh -c "echo '$out' | grep -q 'cc=hpcc '"
check "$mib MiB over IPv6 with TCP_CONGESTION=hpcc: sha256 matches" \
	test "$(sha256sum <$tmp/dst | cut -d' ' -f1)" = "$want"
sent=$(hpcc_stat ProbesSent)
accepted=$(hpcc_stat ReportsAccepted)
echo "# probes sent $sent, reports accepted $accepted"
check "probes went out, none came back as a report" \
	test "$sent" -gt 0 -a "$accepted" -eq 0
ns_del $a $b
tap_done
