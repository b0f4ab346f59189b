#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# demo/fairshare.bpf.o, the bench's fair-share reference: registered as a
# congestion control, it paces each flow that has bytes unsent at its
# rate over the number of such flows, and counts none once they end.
# Four flows of 2 MB over a veth pair between two network namespaces,
# the client side's tbf at 100 Mbit/s (the rate fairshare is built for),
# sampled every 2 ms by fctgen --trace.
#
#   tests/demo/test_fairshare.sh    (TAP; root; needs make demo-tools)
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. scripts/lib/netns.sh

FCTGEN=demo/fctgen OBJ=demo/fairshare.bpf.o
RATE=$((12500000 * 1486 / 1500))	# FAIR_RATE_BPS
[ "$(id -u)" -eq 0 ] || tap_skip_all "needs root (netns, tc, bpf)"
[ -x $FCTGEN ] && [ -f $OBJ ] || tap_skip_all "demo/ not built (make demo-tools)"
grep -qw fairshare /proc/sys/net/ipv4/tcp_available_congestion_control &&
	tap_skip_all "a fairshare congestion control is registered already"
C=fairshare-c.$$ S=fairshare-s.$$ dir=$(mktemp -d)
cleanup() {
	ns_kill_del $C $S
	bpftool struct_ops unregister name fairshare >/dev/null 2>&1
	rm -rf "$dir"
}
trap cleanup EXIT
out=$(bpftool struct_ops register $OBJ 2>&1) ||
	tap_skip_all "this kernel does not take a BPF congestion control: $(echo "$out" | tail -n1)"
ns_pair $C $S && $TC -n $C qdisc add dev veth0 root tbf rate 100mbit \
	burst 20k limit 200000 || tap_skip_all "cannot build the veth pair with tbf"
$IP netns exec $S $FCTGEN server -p 5000 &
wait_port $S 5000	# if not, the client fails below

# the counter of flows with bytes unsent, from fairshare's .bss (the
# newest map of that name: an earlier registration's may not be freed yet)
active() {
	id=$(bpftool -j map show | python3 -c 'import json, sys
print(max(m["id"] for m in json.load(sys.stdin) if m.get("name") == "fairshar.bss"))')
	bpftool -j map dump id "$id" | python3 -c 'import json, sys
print(json.load(sys.stdin)[0]["formatted"]["value"][".bss"][0]["active"])'
}

tap_check "registered: no flow counted" test "$(active)" = 0
SIZE=2000000
tap_run $IP netns exec $C $FCTGEN client -d 10.0.0.2 -p 5000 -C fairshare \
	--tag fs --drain 10 --trace "$dir/trace" --trace-ms 2 --burst 4,$SIZE,0.05
tap_ran $rc "fctgen client exited 0"
tap_check "four flows of 2 MB completed" \
	test "$(printf '%s\n' "$out" | grep -c ',ok$')" -eq 4
# tag,id,dst,size,start,end,fct,status: the four together near the link
tap_check "the four together at 85% of 100 Mbit/s or more" \
	sh -c "printf '%s\n' \"\$1\" | awk -F, '\$8 == \"ok\" {
		if (s == \"\" || \$5 < s) s = \$5; if (\$6 > e) e = \$6 }
		END { exit !(4 * $SIZE * 8 / (e - s) >= 85e6) }'" - "$out"
tap_check "they end within 20% of each other's FCT" \
	sh -c "printf '%s\n' \"\$1\" | awk -F, '\$8 == \"ok\" {
		if (lo == \"\" || \$7 < lo) lo = \$7; if (\$7 > hi) hi = \$7 }
		END { exit !(hi <= 1.2 * lo) }'" - "$out"
# tag,id,t,bytes_acked,unacked,cwnd,rtt_us,pacing_Bps,delivery_Bps,notsent:
# at a time all four have bytes unsent, each paces at RATE / 4 (the
# count moves between an ACK and a sample: most, not all)
tap_check "with four flows unsent, at least 90% of samples pace at the rate / 4" \
	awk -F, -v r=$((RATE / 4)) '
		{ t = sprintf("%.3f", $3); n[t] += ($10 > 0); p[t, $2] = $8 }
		END {
			for (k in n) {
				if (n[k] != 4) continue
				for (i = 0; i < 4; i++) { all++; good += (p[k, i] == r) }
			}
			exit !(all >= 40 && good >= 0.9 * all)
		}' "$dir/trace"
tap_check "a flow alone with bytes unsent paces at the rate" \
	sh -c "$IP netns exec $C $FCTGEN client -d 10.0.0.2 -p 5000 -C fairshare \
		--tag one --drain 10 --trace $dir/one --trace-ms 2 --burst 1,$SIZE,0 >/dev/null &&
		awk -F, -v r=$RATE '\$10 > 0 { all++; good += (\$8 == r) }
			END { exit !(all >= 10 && good >= 0.9 * all) }' $dir/one"
tap_check "the flows ended: none counted" test "$(active)" = 0
tap_done
