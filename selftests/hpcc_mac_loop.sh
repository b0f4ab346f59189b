#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Wire version 2 with the MAC end to end on sender - router1 - router2 -
# receiver (topo.sh): keys set with `hpcc-probe key set` on both routers
# and both hosts, a real hpcc flow runs on telemetry, its reports are
# accepted and none refused; then router 2 holds the wrong key: its
# records fail the chain, every report is refused (RejectMac), the flow
# falls back to loss-based, and the bytes still arrive intact.
# The namespaces share one tcp_hpcc, so "the hosts' key" is the module's:
# `hpcc-probe key set` in a router's namespace writes it too, and the
# hosts' key is set last.
. "$(dirname "$0")/lib.sh"
. "$HERE/stress_lib.sh"
. "$HERE/topo.sh"

require probe module
[ -w $PARAMS/mac_key ] || tap_skip_all "tcp_hpcc without wire version 2"
KEY=00112233445566778899aabbccddeeff
BAD=ffeeddccbbaa99887766554433221100
P=./probe/hpcc-probe
tmp=/tmp/hpcc_mac_loop.$$
restore() {
	topo_down
	$P key del 0 >/dev/null 2>&1
	params_restore
	rm -rf $tmp
}
topo_names v$$
cleanup_trap restore
mkdir -p $tmp
params_set wire_version=2 mac_key_id=0 mac_required=0
topo_up || { echo "# topology setup failed"; exit 1; }
check "hpcc-probe attaches hosts and routers" topo_telemetry_up
check "key 0 set on both routers and both hosts" \
	sh -c "$P -n $R1 key set 0 $KEY && $P -n $R2 key set 0 $KEY &&
	       $P -n $H1 key set 0 $KEY && $P -n $H2 key set 0 $KEY"
$P -n $R1 key list | sed 's/^/# r1: /'
# 24 MB (8 on the debug kernel, whose flows run at a few Mbit/s)
MB=$((WORK_DIV > 1 ? 8 : 24))
dd if=/dev/urandom of=$tmp/src bs=1M count=$MB status=none

# xfer PORT: $MB MB H1 -> H2 with hpcc, H1's flow sampled every 0.1 s
# into $tmp/flows.PORT; 0 if the receiver's sha256 is the sender's
xfer() {
	rm -f $tmp/dst
	$IP netns exec $H2 ./selftests/hpcc_xfer recv "$1" $tmp/dst &
	wait_port $H2 "$1"
	: >$tmp/flows.$1
	(
		while [ ! -e $tmp/done.$1 ]; do
			$IP netns exec $H1 awk -v p=":$1" \
				'substr($2, length($2) - length(p) + 1) == p' \
				/proc/net/tcp_hpcc >>$tmp/flows.$1
			sleep 0.1
		done
	) &
	smp=$!
	out=$($IP netns exec $H1 ./selftests/hpcc_xfer send 10.1.3.1 "$1" $tmp/src hpcc)
	touch $tmp/done.$1
	wait
	echo "# $out"
	[ "$(sha $tmp/src)" = "$(sha $tmp/dst)" ]
}
modes() {	# PORT: how many samples in each mode
	awk '{ n[$3]++ } END { for (m in n) printf "%s %d ", m, n[m] }' $tmp/flows.$1
}

# --- every key right
acc0=$(hpcc_stat ReportsAccepted) rej0=$(hpcc_stat RejectMac)
nom0=$(hpcc_stat RejectNoMac) used0=$(hpcc_stat ReportsUsed)
check "right keys: $MB MB arrive byte-exact (sha256)" xfer 5400
acc=$(($(hpcc_stat ReportsAccepted) - acc0))
rej=$(($(hpcc_stat RejectMac) - rej0))
used=$(($(hpcc_stat ReportsUsed) - used0))
echo "# right keys: ReportsAccepted +$acc ReportsUsed +$used RejectMac +$rej RejectNoMac +$(($(hpcc_stat RejectNoMac) - nom0)); flow modes: $(modes 5400)"
check "right keys: tagged reports accepted (+$acc) and used (+$used)" \
	test "$acc" -gt 10 -a "$used" -gt 0
check "right keys: no chain refused (RejectMac +$rej)" test "$rej" -eq 0
check "right keys: the flow ran on telemetry (mode hpcc in at least 80% of the samples)" \
	awk '{ n++; if ($3 == "hpcc") h++ } END { exit !(n >= 3 && h * 10 >= n * 8) }' \
	$tmp/flows.5400
$P status 2>/dev/null | grep -E "switch_mac_tagged|RejectMac" | sed "s/^/# status: /"

# --- router 2 with the wrong key (which also set the module's: set the
# hosts' right one again)
check "router 2 gets the wrong key" \
	sh -c "$P -n $R2 key set 0 $BAD && $P -n $H1 key set 0 $KEY"
acc0=$(hpcc_stat ReportsAccepted) rej0=$(hpcc_stat RejectMac)
check "wrong key on router 2: $MB MB arrive byte-exact (sha256)" xfer 5401
acc=$(($(hpcc_stat ReportsAccepted) - acc0))
rej=$(($(hpcc_stat RejectMac) - rej0))
echo "# wrong key on r2: ReportsAccepted +$acc RejectMac +$rej; flow modes: $(modes 5401)"
check "wrong key: reports refused (RejectMac +$rej), none accepted (+$acc)" \
	test "$rej" -gt 0 -a "$acc" -eq 0
check "wrong key: the flow ran loss-based (mode reno in every sample)" \
	awk '{ n++; if ($3 == "reno") r++ } END { exit !(n >= 3 && r == n) }' \
	$tmp/flows.5401
tap_done
