#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Benchmark (BENCH_PROGS, not part of the suite): how far a lying receiver
# moves its flow from its fair share through the telemetry fields alone,
# on the real module. Three long hpcc flows H1 -> H2 share the loop's tbf
# bottleneck (topo.sh); H2 answers f1's probes through hpcc_forge (an
# idle 4 Pbit/s path, or a 4 GB queue at every hop), with the report
# bounds on (max_capacity 1000 Mbit/s, max_growth 1000, loss_beta 700) and
# off (the draft's: 0, 0, 1000), and the idle lie once more with the
# senders' competition mode on (compete_rtts 3 T; the other cases 0). Each
# flow's goodput over
# the run's second
# half (iperf3's intervals) as a multiple of the fair share (their mean),
# FORGE_REPS runs per case (default 3): median [min-max]. FORGE_MAXCAP sets
# max_capacity for "bounds on" (Mbit/s, default 1000; the bottleneck is
# 150), FORGE_CASES the cases (default all, LIE:BOUNDS[:COMPETE_RTTS]).
# The guest's command sets them: scripts/vm-run.sh ... -- env
# FORGE_MAXCAP=150 ./selftests/hpcc_forge_share.sh
# Asserts only that
# each run moved its bytes; Documentation/tcp_hpcc.rst ("Threat model")
# has the results.
. "$(dirname "$0")/lib.sh"
. "$HERE/stress_lib.sh"
. "$HERE/topo.sh"

require probe hpcc_forge module
REPS=${FORGE_REPS:-3}
MAXCAP=${FORGE_MAXCAP:-1000}
CASES=${FORGE_CASES:-none:on idle:on idle:off queue:on queue:off idle:on:3}
DUR=${FORGE_DUR:-10}
tmp=/tmp/hpcc_forge_share.$$
topo_names g$$
cleanup_trap topo_restore
mkdir -p $tmp
params_save wire_version max_capacity max_growth loss_beta compete_rtts deliv_cap
deliv0=$(cat $PARAMS/deliv_cap)
topo_up || { echo "# topology setup failed"; exit 1; }
check "hpcc-probe attaches hosts and routers" topo_telemetry_up

bounds() {	# on|off
	if [ "$1" = on ]; then
		set_param max_capacity $MAXCAP && set_param max_growth 1000 &&
			set_param loss_beta 700 && set_param deliv_cap $deliv0
	else
		set_param max_capacity 0 && set_param max_growth 0 &&
			set_param loss_beta 1000 && set_param deliv_cap 0
	fi
}

# run LIE BOUNDS REP: one run; "f1 f2 f3" shares of the fair one on stdout
run() {
	local p pids="" out
	for p in 5610 5611 5612; do
		$IP netns exec $H2 iperf3 -s -D -1 -p $p
	done
	for p in 5610 5611 5612; do
		wait_port $H2 $p
	done
	bgpid=
	if [ "$1" != none ]; then
		$IP netns exec $H2 "$HERE/hpcc_forge" h2r2 "$1" 5610 \
			>$tmp/forge.out 2>&1 &
		bgpid=$!
		poll 10 grep -q attached $tmp/forge.out || return 1
	fi
	for p in 5610 5611 5612; do
		$IP netns exec $H1 iperf3 -c 10.1.3.1 -p $p -t $DUR -C hpcc -J \
			>$tmp/iperf.$p 2>&1 &
		pids="$pids $!"
	done
	wait $pids
	if [ -n "$bgpid" ]; then
		kill "$bgpid"
		wait "$bgpid"
		bgpid=
	fi
	# second half of the run: the intervals that start at DUR / 2 or later
	for p in 5610 5611 5612; do
		awk -v h=$((DUR / 2)) '
			/"intervals"/ { in_i = 1 }
			in_i && /"start":/ { gsub(/[,]/, ""); st = $2 }
			in_i && /"bits_per_second":/ && st >= h && !done[st]++ {
				gsub(/[,]/, ""); s += $2; n++ }
			/"end":/ && in_i && /\{/ { in_i = 0 }
			END { printf "%.0f\n", n ? s / n : 0 }' $tmp/iperf.$p
	done >$tmp/rates
	awk '{ r[NR] = $1; t += $1 }
	     END { if (t <= 0) exit 1; f = t / NR
		   printf "%.3f %.3f %.3f %.1f\n", r[1] / f, r[2] / f, r[3] / f,
			  t / 1e6 }' $tmp/rates
}

# the median [min-max] of column COL of FILE
spread() {
	sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c }
		END { printf "%.2f [%.2f-%.2f]", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

echo "# case: f1 / fair, f2 / fair, f3 / fair, total Mbit/s (median [min-max] of $REPS runs of $DUR s; bounds on: max_capacity $MAXCAP)"
# LIE:BOUNDS[:COMPETE_RTTS]; the last: the honest senders' competition
# mode (compete_rtts, "Dynamics") against the idle lie's standing queue
for c in $CASES; do
	lie=${c%%:*} b=${c#*:} comp=0
	case $b in *:*) comp=${b#*:} b=${b%%:*} ;; esac
	: >$tmp/case
	bounds $b
	set_param compete_rtts $comp
	for rep in $(seq $REPS); do
		if run $lie $b $rep >>$tmp/case; then
			:
		else
			echo "# $lie, bounds $b, run $rep: no result"
		fi
	done
	check "$lie lie, bounds $b, compete_rtts $comp: $REPS runs moved their bytes" \
		test "$(wc -l <$tmp/case)" -eq "$REPS"
	echo "# result $lie bounds-$b compete-$comp: f1 $(spread $tmp/case 1) f2 $(spread $tmp/case 2) f3 $(spread $tmp/case 3) total $(spread $tmp/case 4)"
done
tap_done
