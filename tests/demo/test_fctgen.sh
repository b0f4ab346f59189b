#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fctgen --trace: every sized flow's TCP_INFO while it is open. Three
# flows of 300 KB over a veth pair between two network namespaces whose
# client side tbf holds to 20 Mbit/s (about 360 ms for the three),
# sampled every 2 ms. tbf, not netem: the kernels this runs on need not
# have sch_netem.
#
#   tests/demo/test_fctgen.sh    (TAP; root; needs demo/fctgen built)
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. scripts/lib/netns.sh

FCTGEN=demo/fctgen
[ "$(id -u)" -eq 0 ] || tap_skip_all "needs root (netns, tc)"
[ -x $FCTGEN ] || tap_skip_all "demo/fctgen not built (make demo-tools)"
C=fctgen-c.$$ S=fctgen-s.$$ dir=$(mktemp -d)
cleanup() {
	ns_kill_del $C $S
	rm -rf "$dir"
}
trap cleanup EXIT
ns_pair $C $S && $TC -n $C qdisc add dev veth0 root tbf rate 20mbit \
	burst 5k limit 100000 || tap_skip_all "cannot build the veth pair with tbf"
$IP netns exec $S $FCTGEN server -p 5000 &
wait_port $S 5000	# if not, the client fails below

SIZE=300000
tap_run $IP netns exec $C $FCTGEN client -d 10.0.0.2 -p 5000 --tag tr \
	--drain 5 --trace "$dir/trace" --trace-ms 2 --burst 3,$SIZE,0.05
tap_ran $rc "fctgen client exited 0"
tap_check "three flows of 300 KB completed" \
	test "$(printf '%s\n' "$out" | grep -c ',ok$')" -eq 3

# tag,id,t,bytes_acked,unacked,cwnd,rtt_us,pacing_Bps,delivery_Bps,notsent
tap_check "every row has the 10 fields, tag tr, id 0-2" \
	awk -F, 'NF != 10 || $1 != "tr" || $2 !~ /^[012]$/ { bad = 1 }
		END { exit bad || NR == 0 }' "$dir/trace"
tap_check "each flow sampled at least 10 times while open" \
	awk -F, '{ n[$2]++ } END { for (i = 0; i < 3; i++) if (n[i] < 10) exit 1 }' \
	"$dir/trace"
tap_check "bytes acked never fall and never pass the flow's bytes (+ 8 of header, + 1 of SYN)" \
	awk -F, -v max=$((SIZE + 9)) '$4 < last[$2] || $4 > max { bad = 1 }
		{ last[$2] = $4 } END { exit bad }' "$dir/trace"
tap_check "bytes acked grow over each flow's life" \
	awk -F, '!($2 in first) { first[$2] = $4 } { last[$2] = $4 }
		END { for (i = 0; i < 3; i++) if (last[i] - first[i] < 100000) exit 1 }' \
	"$dir/trace"
tap_check "srtt above 1 ms once data is acked: the tbf's queue is in it" \
	awk -F, '$4 > 20000 && $7 < 1000 { bad = 1 } END { exit bad }' "$dir/trace"
tap_check "cwnd grows from the initial window in slow start" \
	awk -F, '$6 > 10 { n++ } END { exit n == 0 }' "$dir/trace"
tap_check "bytes written and not yet sent: some rows above 0" \
	awk -F, '$10 > 0 { n++ } END { exit n == 0 }' "$dir/trace"
tap_done
