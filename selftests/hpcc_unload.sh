#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Last: the module unloads as soon as its last flows have closed. Their
# state is freed after an RCU grace period; module exit must wait for every
# such free, or kmem_cache_destroy() finds the flow cache still in use.
. "$(dirname "$0")/lib.sh"

module_loaded || tap_skip_all "tcp_hpcc not loaded"
ns1=unload1$$ ns2=unload2$$
cleanup_trap 'ns_del $ns1 $ns2; rm -f /tmp/unload.*'
ns_pair $ns1 $ns2
dd if=/dev/urandom of=/tmp/unload.src bs=64k count=4 status=none
flows=8
for i in $(seq $flows); do
	$IP netns exec $ns2 ./selftests/hpcc_xfer recv $((6000 + i)) /tmp/unload.dst$i &
done
for i in $(seq $flows); do
	wait_port $ns2 $((6000 + i))
done
for i in $(seq $flows); do
	$IP netns exec $ns1 ./selftests/hpcc_xfer send 10.0.0.2 $((6000 + i)) \
		/tmp/unload.src hpcc >/tmp/unload.out$i &
done
wait
check "$flows hpcc flows ran and closed" \
	test "$(cat /tmp/unload.out* | grep -c 'cc=hpcc ')" -eq $flows

# The senders' sockets are gone once they reach TIME_WAIT; rmmod is
# refused (EBUSY) only while one still holds the module.
mark=$(dmesg | wc -l)
tries=0
until rmmod tcp_hpcc 2>/dev/null; do
	tries=$((tries + 1))
	[ $tries -lt 500 ] || break
done
check "rmmod right after the last flow closed ($tries refusals first)" \
	sh -c '! [ -d /sys/module/tcp_hpcc ]'
dmesg | tail -n +$((mark + 1)) | sed 's/^/# /'
check "no 'still has objects' from the flow cache" \
	sh -c "! dmesg | tail -n +$((mark + 1)) | grep -q 'still has objects'"
check "hpcc gone from tcp_available_congestion_control" \
	sh -c "! grep -qw hpcc /proc/sys/net/ipv4/tcp_available_congestion_control"
tap_done
