#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Wire version 2's MAC in bpf_hpcc_report() on a live hpcc flow over lo
# (hpcc_mac_test, one run per mode, its TAP nested behind "# "): the key
# set with `hpcc-probe key set`; a valid chain accepted, a bit flipped in
# a record's qlen or rate refused (-EKEYREJECTED, RejectMac), untagged v2
# accepted with mac_required=0 and refused with 1; the receiver's seal: a
# record cut from a sealed response refused (-ENOKEY, RejectNoMac),
# v1 accepted with mac_required=0. The on-path attack (one bit of qlen)
# first without a key, where it reaches the window, then with one.
. "$(dirname "$0")/lib.sh"

require probe module
[ -w $PARAMS/mac_key ] || tap_skip_all "tcp_hpcc without wire version 2"
KEY=00112233445566778899aabbccddeeff
tmp=/tmp/hpcc_mac.$$
restore() {
	./probe/hpcc-probe key del 0 >/dev/null 2>&1
	./probe/hpcc-probe key del 1 >/dev/null 2>&1
	params_restore
	rm -rf $tmp
}
cleanup_trap restore
mkdir -p $tmp
# as hpcc_kfunc.sh: T = 1 ms, hand-computed U, deliv_cap off
params_set base_rtt=1000 telemetry_timeout=1000 max_stage=5 ewma_rtts=1 \
	expected_flows=16 probe_first=0 probe_cost=0 start_hold=0 first_share=0 \
	deliv_cap=0 wire_version=2 mac_key_id=0 mac_required=0

run() {		# MODE [KEY]: one hpcc_mac_test run, its W in $w
	"$HERE/hpcc_mac_test" "$@" >$tmp/out 2>&1
	rc=$?
	sed 's/^/# /' $tmp/out
	w=$(sed -n 's/^W_after //p' $tmp/out)
	return $rc
}
delta() {	# NAME BASE
	echo $(($(hpcc_stat "$1") - $2))
}

# 1. No key anywhere: v2 probes go untagged, and the attack works.
./probe/hpcc-probe key del 0 >/dev/null 2>&1
./probe/hpcc-probe key del 1 >/dev/null 2>&1
rej0=$(hpcc_stat RejectMac)
run nomac
check "no key: untagged v2 accepted, tampered qlen accepted and lowers W (exit $rc)" \
	test $rc -eq 0
w_nomac=$w
check "no key: RejectMac unchanged (+$(delta RejectMac $rej0))" \
	test "$(delta RejectMac $rej0)" -eq 0

# 2. Key 0 set: chains verified, tampering refused.
check "hpcc-probe key set 0 HEX32 (module parameter written)" \
	./probe/hpcc-probe key set 0 $KEY
./probe/hpcc-probe key list >$tmp/list 2>&1
sed 's/^/# /' $tmp/list
check "hpcc-probe key list never prints the key" \
	sh -c "! grep -qi $KEY $tmp/list"
check "the key cannot be read back from the module" \
	sh -c "! cat $PARAMS/mac_key 2>/dev/null | grep -qi $KEY"
rej0=$(hpcc_stat RejectMac) acc0=$(hpcc_stat ReportsAccepted)
run mac $KEY
check "key set: valid chain accepted, flipped qlen/rate bit, foreign key and a cut record refused, v1 accepted (exit $rc)" \
	test $rc -eq 0
w_mac=$w
check "RejectMac grew by the 5 refused chains (+$(delta RejectMac $rej0))" \
	test "$(delta RejectMac $rej0)" -eq 5
echo "# attack (bit 20 of hop 2's qlen flipped in every response on the path): W without MAC $w_nomac, with MAC $w_mac (genuine 125390)"

# 3. mac_required=1: untagged refused.
set_param mac_required 1
nom0=$(hpcc_stat RejectNoMac)
run required $KEY
check "mac_required=1: untagged v2 and v1 refused with -ENOKEY, chain accepted (exit $rc)" \
	test $rc -eq 0
check "RejectNoMac grew by the 2 untagged reports (+$(delta RejectNoMac $nom0))" \
	test "$(delta RejectNoMac $nom0)" -eq 2
set_param mac_required 0

# 4. Deleting and malformed keys.
check "hpcc-probe key del 0" ./probe/hpcc-probe key del 0
check "deleting a key that is not set succeeds" \
	./probe/hpcc-probe key del 0
check "a malformed key is refused" \
	sh -c "! ./probe/hpcc-probe key set 0 0011 2>/dev/null && ! echo '2 $KEY' >$PARAMS/mac_key 2>/dev/null"
sed 's/^/# /' /proc/net/tcp_hpcc_stat | grep -E 'Reject(Mac|NoMac)|ReportsAccepted'
tap_done
