#!/bin/sh
# /init of the vm-run.sh initramfs (PID 1; /bin/sh is dash, busybox supplies
# mount/insmod/poweroff... from the last PATH entry).
# No `set -e`: if PID 1 exits the guest panics and the caller only sees 125.
# Our own messages start with "# " so TAP consumers treat them as comments.

# Real iproute2/coreutils first; busybox applets (incl. its ip/tc) last.
export PATH=/usr/sbin:/usr/bin:/usr/libexec/busybox
export HOME=/root TERM=dumb HPCC_VM=1

mount -t devtmpfs devtmpfs /dev 2>/dev/null
# The kernel may have started us without a console (no /dev/console node).
exec </dev/console >/dev/console 2>&1

say() { echo "# vm-init: $*"; }

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=755 tmpfs /run       # ip netns needs a writable /run/netns
mount -t tmpfs -o mode=1777 tmpfs /tmp      # iperf3 keeps its buffer file here
mount -t bpf bpf /sys/fs/bpf || say "no bpffs"
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
cmdline=" $(cat /proc/cmdline) "

# vm-run.sh under TCG: no static key or static call that the tests would
# flip changes for the whole run (Documentation/tcp_hpcc.rst, "Testing").
# The qdisc and xmit trace events are enabled (recording off) in two trace
# instances: two probes on each tracepoint keep its key on and its static
# call on the iterator, so the switch program's own probes come and go
# without patching the kernel's text. A clsact qdisc on a veth of ours
# keeps the tc ingress and egress keys on while the tests' come and go.
case $cmdline in
*" vmrun.pinkeys=1 "*)
	t=/sys/kernel/tracing
	mkdir $t/instances/vmrun-pin 2>/dev/null
	for i in $t $t/instances/vmrun-pin; do
		echo 0 >$i/tracing_on
		for e in qdisc/qdisc_enqueue qdisc/qdisc_dequeue net/net_dev_start_xmit; do
			echo 1 >$i/events/$e/enable 2>/dev/null || say "cannot pin $e in $i"
		done
	done
	;;
esac

# Serial lines without CR, so the host sees plain "\n" from userspace.
stty -onlcr 2>/dev/null
hostname vm
ip link set lo up

kver=$(uname -r)
while read -r m; do
	out=$(insmod "/lib/modules/$kver/$m" 2>&1) || case $out in
		*"File exists"*) ;;
		*) say "insmod $m failed: $out" ;;
		esac
done </etc/vmrun/modules

case $cmdline in
*" vmrun.pinkeys=1 "*)
	{ ip link add vmpin0 type veth peer name vmpin1 &&
	  tc qdisc add dev vmpin0 clsact; } 2>/dev/null || say "cannot pin the tc keys"
	;;
esac

marker=$(cat /etc/vmrun/marker 2>/dev/null || echo VMRUN-EXIT)

# vm-run.sh's KVM probe: only prove that the guest reaches userspace.
case $cmdline in
*" vmrun.probe=1 "*)
	printf '\n%s rc=0\n' "$marker"
	poweroff -f
	;;
esac

# Tests skip performance assertions on a debug kernel (KASAN, lockdep and
# kmemleak make it several times slower).
if [ -e /sys/kernel/debug/kmemleak ] || [ -e /proc/lockdep ]; then
	export HPCC_DEBUG_KERNEL=1
	say "debug kernel: HPCC_DEBUG_KERNEL=1"
fi

say "up after $(cut -d' ' -f1 /proc/uptime)s (kernel $kver)"
cd /hpcc || cd /
sh /etc/vmrun/cmd </dev/null
rc=$?
printf '\n%s rc=%d\n' "$marker" "$rc"
poweroff -f
# poweroff -f does not return; if it ever does, don't panic silently.
sleep 5
