#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Receiver-based HPCC (Rx-HPCC) end to end on sender - router1 - router2 -
# receiver (topo.sh), wire version 2: the sender asks for windows
# (rx_window=1), the receiver computes them (host attach --rx-window), and
# the flow runs on windows alone, bytes intact. With the MAC the windows
# are tagged and verified, and a receiver refuses to compute a window from
# a chain that does not verify. Mixed pairs: a receiver not in the mode
# answers a probe that asks with its records (the sender runs the law
# itself); a sender that does not ask, or speaks version 1, gets records
# from a receiver in the mode. The namespaces share one tcp_hpcc: its
# Rx* counters are the receiver's, Reports* the sender's.
. "$(dirname "$0")/lib.sh"
. "$HERE/stress_lib.sh"
. "$HERE/topo.sh"

require probe module
[ -w $PARAMS/rx_window ] || tap_skip_all "tcp_hpcc without Rx-HPCC"
KEY=00112233445566778899aabbccddeeff
BAD=ffeeddccbbaa99887766554433221100
P=./probe/hpcc-probe
tmp=/tmp/hpcc_rx.$$
restore() {
	topo_down
	$P key del 0 >/dev/null 2>&1
	params_restore
	rm -rf $tmp
}
topo_names x$$
cleanup_trap restore
mkdir -p $tmp
params_set wire_version=2 rx_window=1 mac_key_id=0 mac_required=0
$P key del 0 >/dev/null 2>&1
topo_up || { echo "# topology setup failed"; exit 1; }
attach() {
	r1_stamp && r2_stamp && $P -n $H1 host attach h1r1 >/dev/null &&
		$P -n $H2 host attach h2r2 --rx-window >/dev/null
}
check "hpcc-probe attaches the routers, the sender, and the receiver with --rx-window" \
	attach
check "hpcc-probe status shows the receiver's mode" \
	sh -c "$P -n $H2 status | grep -q 'rx window'"
dd if=/dev/urandom of=$tmp/src bs=1M count=$((16 / WORK_DIV)) status=none

# hostcnt NS NAME: hpcc_host's counter NAME in NS
hostcnt() {
	$P -n "$1" status 2>/dev/null | awk -v n="$2" '
		{ for (i = 1; i < NF; i++) if ($i == n) s += $(i + 1) }
		END { print s + 0 }'
}

# xfer PORT: H1 -> H2 with hpcc, H1's flow sampled every 0.1 s into
# $tmp/flows.PORT; the counters' growth in $d_NAME; 0 if the bytes
# arrived intact (sha256)
STATS="ReportsAccepted ReportsUsed ReportsWindow RxWindows RxNoWindow RxCapped RejectMac RejectSize"
xfer() {
	local s
	for s in $STATS; do
		eval "b_$s=$(hpcc_stat $s)"
	done
	b_sent=$(hostcnt $H2 rx_window_sent)
	b_reflected=$(hostcnt $H2 probe_reflected)
	rm -f $tmp/dst $tmp/done.$1
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
	out=$($IP netns exec $H1 ./selftests/hpcc_xfer send 10.1.3.1 "$1" $tmp/src hpcc)
	touch $tmp/done.$1
	wait
	for s in $STATS; do
		eval "d_$s=\$((\$(hpcc_stat $s) - \$b_$s))"
	done
	d_sent=$(($(hostcnt $H2 rx_window_sent) - b_sent))
	d_reflected=$(($(hostcnt $H2 probe_reflected) - b_reflected))
	echo "# $out"
	echo "# accepted +$d_ReportsAccepted used +$d_ReportsUsed window +$d_ReportsWindow; receiver: RxWindows +$d_RxWindows RxNoWindow +$d_RxNoWindow RxCapped +$d_RxCapped, rx_window_sent +$d_sent probe_reflected +$d_reflected; RejectMac +$d_RejectMac RejectSize +$d_RejectSize"
	[ "$(sha $tmp/src)" = "$(sha $tmp/dst)" ]
}
on_telemetry() {	# PORT: on telemetry from the first report to the end
	awk '$3 == "hpcc" { h++ } $3 != "hpcc" && h { bad++ }
	     END { exit !(h >= 1 && !bad) }' $tmp/flows.$1
}
# the most the window may give: 4 BDPs at the bottleneck with T the
# flow's own, and at least one sample
w_bounded() {		# PORT
	awk -v b=$((BOTTLENECK_MBIT * 125000)) '
		$3 == "hpcc" { n++; if ($4 > 4 * b * $10 / 1e6 + 1500) bad++ }
		END { exit !(n >= 1 && !bad) }' $tmp/flows.$1
}

# --- 1. both in the mode, no MAC
check "Rx-HPCC: the bytes arrive intact (sha256)" xfer 5500
check "Rx-HPCC: the receiver computed windows (RxWindows +$d_RxWindows) and sent them (+$d_sent), refused none" \
	test "$d_RxWindows" -gt 10 -a "$d_sent" -eq "$d_RxWindows" -a \
	"$d_RxNoWindow" -eq 0
check "Rx-HPCC: the sender applied windows (+$d_ReportsWindow), no records (+$d_ReportsUsed)" \
	test "$d_ReportsWindow" -gt 10 -a "$d_ReportsUsed" -eq 0
check "Rx-HPCC: no window refused by the sender (RejectSize +$d_RejectSize)" \
	test "$d_RejectSize" -eq 0
check "Rx-HPCC: the routers' capacities are below max_capacity (RxCapped +$d_RxCapped)" \
	test "$d_RxCapped" -eq 0
check "Rx-HPCC: the flow ran on telemetry from its first window to the end" \
	on_telemetry 5500
check "Rx-HPCC: W never above 4 B T" w_bounded 5500
# router 1's port says 1 Gbit/s: above max_capacity 500, the receiver
# caps it in every window it computes, as a sender caps a report's
maxcap=$(cat $PARAMS/max_capacity)
set_param max_capacity 500
check "router 1 above max_capacity: the bytes arrive intact" xfer 5506
check "...every window computed with router 1 capped (RxCapped +$d_RxCapped, RxWindows +$d_RxWindows)" \
	test "$d_RxWindows" -gt 10 -a "$d_RxCapped" -ge "$d_RxWindows"
check "...W never above 4 B T" w_bounded 5506
set_param max_capacity "$maxcap"

# --- 2. with the MAC: keys everywhere, windows tagged and verified
check "key 0 set on both routers and both hosts" \
	sh -c "$P -n $R1 key set 0 $KEY && $P -n $R2 key set 0 $KEY &&
	       $P -n $H1 key set 0 $KEY && $P -n $H2 key set 0 $KEY"
check "Rx-HPCC with MAC: the bytes arrive intact" xfer 5501
check "Rx-HPCC with MAC: tagged windows computed (+$d_RxWindows), applied (+$d_ReportsWindow), none refused (RejectMac +$d_RejectMac)" \
	test "$d_RxWindows" -gt 10 -a "$d_ReportsWindow" -gt 10 -a \
	"$d_RejectMac" -eq 0 -a "$d_RxNoWindow" -eq 0
# router 2 tags with a wrong key (which also set the module's: the
# hosts' right one again): the receiver verifies the chain before it
# computes, refuses, and reflects the records, which the sender refuses
check "router 2 gets the wrong key" \
	sh -c "$P -n $R2 key set 0 $BAD && $P -n $H1 key set 0 $KEY"
check "wrong key on router 2: the bytes arrive intact" xfer 5502
check "wrong key: no window computed from the bad chain (RxWindows +$d_RxWindows, RxNoWindow +$d_RxNoWindow)" \
	test "$d_RxWindows" -eq 0 -a "$d_RxNoWindow" -gt 0
check "wrong key: the records reflected instead are refused (RejectMac +$d_RejectMac), none applied" \
	test "$d_RejectMac" -gt 0 -a "$d_ReportsWindow" -eq 0 -a \
	"$d_ReportsAccepted" -eq 0
$P key del 0 >/dev/null 2>&1
$P -n $R1 key del 0 >/dev/null 2>&1
$P -n $R2 key del 0 >/dev/null 2>&1
$P -n $H2 key del 0 >/dev/null 2>&1

# --- 3. mixed: the receiver not in the mode answers with records
check "the receiver re-attached without --rx-window" \
	sh -c "$P -n $H2 host detach h2r2 && $P -n $H2 host attach h2r2 >/dev/null"
check "asking sender, receiver not in the mode: bytes intact" xfer 5503
check "...the records come back and the sender runs the law (used +$d_ReportsUsed, windows +$d_ReportsWindow)" \
	test "$d_ReportsUsed" -gt 10 -a "$d_ReportsWindow" -eq 0 -a \
	"$d_RxWindows" -eq 0
check "...and the flow ran on telemetry from its first report to the end" \
	on_telemetry 5503

# --- 4. mixed: a sender that does not ask, a receiver in the mode
check "the receiver re-attached with --rx-window" \
	sh -c "$P -n $H2 host detach h2r2 && $P -n $H2 host attach h2r2 --rx-window >/dev/null"
set_param rx_window 0
check "sender not asking, receiver in the mode: bytes intact" xfer 5504
check "...records (used +$d_ReportsUsed), no window computed (+$d_RxWindows)" \
	test "$d_ReportsUsed" -gt 10 -a "$d_ReportsWindow" -eq 0 -a \
	"$d_RxWindows" -eq 0
# --- 5. a version 1 sender cannot ask: records
set_param rx_window 1
set_param wire_version 1
check "version 1 sender, receiver in the mode: bytes intact" xfer 5505
check "...version 1 records (used +$d_ReportsUsed), no window (+$d_RxWindows)" \
	test "$d_ReportsUsed" -gt 10 -a "$d_ReportsWindow" -eq 0 -a \
	"$d_RxWindows" -eq 0
sed 's/^/# /' /proc/net/tcp_hpcc_stat | grep -E 'Window|Rx'
tap_done
