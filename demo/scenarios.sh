#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The demo's experiments, run INSIDE the VM from /hpcc (scripts/demo.sh):
#
#   demo/scenarios.sh [--profile smoke|demo|long] [--ccs "cubic dctcp bbr hpcc [paced] [alone] [fairshare]"]
#                     [--hpcc-settings "S1 S2..."]
#                     [--scenarios "long incast stagger websearch ..."] [--reps N]
#
# Builds demo/topo_dc.sh's topology, then for each scenario, repetition and
# congestion control (in that nesting, so that slow drifts of the emulator
# spread over all CCs) runs the scenario with demo/fctgen and samples the
# bottleneck with demo/qsample. Raw data goes to the console as
#   @@csv FILE@@ ROW
# lines (FILE relative to the output folder; its first row is the header),
# which demo/analyze.py extracts; progress lines start with "# demo:".
#
# Scenarios (durations per profile below):
#   long      3 long flows s1,s2,s3 -> d1 for LONG_DUR s
#   incast    1 long flow s1 -> d1; INCAST_BURSTS bursts, 1 s apart from
#             t=2 s, of INCAST_FLOWS (16) x 64 KB flows, their connections
#             spread over s1..s3 (6, 5, 5)
#   stagger   s1 -> d1 over [0,D]; s2 joins at D/6 and leaves at 5D/6; s3
#             joins at D/3 and leaves at 2D/3 (D = STAGGER_DUR)
#   websearch s1..s3 -> d1,d2: Poisson WebSearch-sized flows offering
#             WS_LOAD of each bottleneck for WS_DUR s (+ up to WS_DRAIN s)
#   many      MANY_FLOWS (32) long flows starting together, s1..s3 -> d1,
#             for MANY_DUR s
#   rttfair   2 long flows to d1 for RTTF_DUR s: s1 (base RTT ~4.6 ms) and
#             s2, whose netem delay is RTTF_DELAY_MS (base RTT ~5x s1's)
#   parking   r1 -> r2 becomes a second bottleneck (dc_second_bottleneck):
#             "two" s1 -> d1 crosses r1r2 and r2d1, "one1" s2 -> d2 only
#             r1r2, "one2" s4 -> d1 only r2d1; PARK_DUR s
#   vscubic   the CC under test (s1 -> d1) against one cubic flow (s2 ->
#             d1) on the drop-tail bottleneck, VS_DUR s
#   vsdctcp   the CC under test against one dctcp flow on the RED-ECN
#             bottleneck (dctcp's marking; tcp_ecn=1 on every host)
#   jlong, jwebsearch
#             long and websearch with netem delay jitter on every link
#             (dc_jitter: JITTER_PCT% of the base RTT peak to peak per
#             path, without reordering)
#   sweep     hpcc only: the long scenario once per module parameter
#             setting in SWEEP (default, then one parameter changed each),
#             labelled hpcc.NAME=VALUE; parameters restored after each run
# dctcp runs use RED ECN marking on the bottlenecks and tcp_ecn=1 on the
# hosts; the other CCs a drop-tail buffer (tcp_ecn=2, the default).
# "paced" is a reference, not a congestion control: cubic with each flow
# capped (SO_MAX_PACING_RATE, fq on the senders for those runs only) so
# that the 3 flows offer PACED_PCT% of the link. It runs in long and jlong
# only (in the long profile by default): the queue a smooth sender below
# the link's rate meets, i.e. what the emulator's and the links' timing
# alone put in the bottleneck, at the utilisation it reached.
# "alone" is the incast's reference: cubic's bursts without the long
# flow (incast only; in the long profile by default), i.e. the FCT the
# emulator gives a burst that has the link to itself, against the
# physical floor (the burst's wire bytes at the link rate plus one RTT).
# "fairshare" is the incast's other reference: demo/fairshare.bpf.c, a
# BPF congestion control that paces every flow with bytes unsent at the
# link's rate over their number, known exactly at every ACK (incast only;
# in the long profile by default): what a perfect fair share reaches here.
set -u
cd "$(dirname "$0")/.." || exit 1
. ./scripts/lib/netns.sh	# $IP, $TC, veth_link(), qstat(), wait_port()...
. ./scripts/lib/module.sh	# load_module(), set_param(), hpcc_stat()...
. ./demo/topo_dc.sh

profile=demo
CCS=
# --hpcc-settings "S1 S2": every hpcc run once per module parameter setting
# (NAME=VALUE[+NAME=VALUE...], "default"; "fq" in a setting: fq on the
# senders for its runs), labelled hpcc.S, as the sweep does for the long
# scenario: variants side by side in every scenario
HPCC_SETTINGS=
# --hpcc-net S: every hpcc run's settings for this network, before its
# scenario's and --hpcc-settings' (default: wire version 2, which every
# router and receiver of the topology runs, the pull towards the receiver's
# N, and no delivery hold on an idle path for the flows it pulled down;
# "default": the module's own defaults)
HPCC_NET=wire_version=2+fair_pull=1000+fair_slack=500+deliv_free=500
SCENARIOS=
REPS=
# --law-trace MS: hpcc runs also follow the law's state of every flow of the
# senders s1..s3 (demo/lawsample, every MS ms) into law.csv
LAW_TRACE_MS=
# --flow-trace MS: every sized flow's TCP_INFO every MS ms while it is open
# (fctgen --trace) into trace.csv: what holds a flow back, over its life
FLOW_TRACE_MS=
# --veth-reorder: no RPS on the veths (topo_dc.sh, dc_rps): packets of a
# flow reorder between the CPUs' backlogs, as before 2026-11-28
DC_RPS=1
while [ $# -gt 0 ]; do
	case $1 in
	--profile) profile=$2; shift 2 ;;
	--ccs) CCS=$2; shift 2 ;;
	--scenarios) SCENARIOS=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--hpcc-settings) HPCC_SETTINGS=$2; shift 2 ;;
	--hpcc-net) HPCC_NET=$2; shift 2 ;;
	--law-trace) LAW_TRACE_MS=$2; shift 2 ;;
	--flow-trace) FLOW_TRACE_MS=$2; shift 2 ;;
	--veth-reorder) DC_RPS=0; shift ;;
	--paced-pct) PACED_PCT=$2; shift 2 ;;
	*) echo "scenarios.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

case $profile in
smoke)	: "${SCENARIOS:=long}" "${REPS:=1}"
	LONG_DUR=6 INCAST_DUR=6 INCAST_BURSTS=3 STAGGER_DUR=12 WS_DUR=10 WS_DRAIN=6
	MANY_DUR=8 RTTF_DUR=8 PARK_DUR=6 VS_DUR=6
	STAGGER_REPS=1 WS_REPS=1 SWEEP_REPS=1 ;;
demo)	: "${SCENARIOS:=long incast stagger websearch}" "${REPS:=3}"
	LONG_DUR=8 INCAST_DUR=6 INCAST_BURSTS=4 STAGGER_DUR=12 WS_DUR=12 WS_DRAIN=8
	MANY_DUR=10 RTTF_DUR=12 PARK_DUR=8 VS_DUR=8
	STAGGER_REPS=1 WS_REPS=2 SWEEP_REPS=1 ;;
long)	: "${SCENARIOS:=long incast stagger websearch many rttfair parking vscubic vsdctcp jlong jwebsearch sweep}" "${REPS:=5}"
	LONG_DUR=15 INCAST_DUR=8 INCAST_BURSTS=6 STAGGER_DUR=18 WS_DUR=30 WS_DRAIN=12
	MANY_DUR=15 RTTF_DUR=20 PARK_DUR=15 VS_DUR=15
	STAGGER_REPS=3 WS_REPS=5 SWEEP_REPS=3 ;;
*) echo "scenarios.sh: unknown profile $profile" >&2; exit 2 ;;
esac
[ -n "$CCS" ] || CCS="cubic dctcp bbr hpcc$([ $profile = long ] && echo ' paced alone fairshare')"
PACED_PCT=${PACED_PCT:-90}	# paced (--paced-pct): the 3 flows' pacing, % of the link
PACED_SCENARIOS="long jlong"	# their 3 long flows share PACED_PCT
ALONE_SCENARIOS="incast"	# the alone reference's
FAIRSHARE_SCENARIOS="incast"	# the fair-share reference's
WS_LOAD=${WS_LOAD:-0.5}
INCAST_FLOWS=${INCAST_FLOWS:-16}	# short flows per incast burst
MANY_FLOWS=${MANY_FLOWS:-32}	# long flows of "many"
# rttfair: s2's netem delay; base RTT = delay + ~0.57 ms here, so 22 ms
# gives ~22.6 ms, 4.9x s1's ~4.6 ms
RTTF_DELAY_MS=${RTTF_DELAY_MS:-$((5 * DC_DELAY_MS + 2))}
# hpcc's settings for rttfair's network, as an operator sets them for a
# network whose base RTTs differ (dctcp's K is such a setting): queue_t its
# largest base RTT, and the law's steps per time of it (tcp_hpcc.rst,
# "Steps per time"); RTTF_HPCC= runs the module's defaults
RTTF_HPCC=${RTTF_HPCC-queue_t=$(((RTTF_DELAY_MS + 1) * 1000))+law_time=1}
JITTER_PCT=${JITTER_PCT:-20}	# jlong, jwebsearch: path jitter, % of base RTT
# the sensitivity sweep: the draft's three parameters (eta, maxStage, and
# W_ai around the rule of thumb, about 400 B here: 100 Mbit/s * 5.3 ms *
# 0.05 / 8) and U's EWMA horizon
SWEEP=${SWEEP:-"default eta=900 eta=970 max_stage=0 max_stage=5 ewma_rtts=1 ewma_rtts=8 w_ai=50 w_ai=800"}
SAMPLE_MS=${SAMPLE_MS:-5}	# qdisc sampling period
TCPINFO_MS=${TCPINFO_MS:-50}	# TCP_INFO sampling period of long flows
LEAD=0.7			# s between scheduling a run and its t=0
MANY_LEAD=${MANY_LEAD:-4}	# "many": starting 32 fctgens takes seconds under TCG
MANY_SAMPLE_MS=${MANY_SAMPLE_MS:-100}	# "many": TCP_INFO period (32 samplers)
SEED=${SEED:-42}
FCTGEN=./demo/fctgen
QSAMPLE=./demo/qsample
LAWSAMPLE=./demo/lawsample
W=/tmp/demo
T_START=$SECONDS

say() { echo "# demo: +$((SECONDS - T_START))s $*"; }

# emit FILE SRC: SRC's rows as FILE's (FILE's header is its first row)
emit() {
	[ -s "$2" ] && sed "s|^|@@csv $1@@ |" "$2"
}
emit_row() {	# emit_row FILE ROW
	echo "@@csv $1@@ $2"
}

port_of() {
	case $1 in cubic) echo 5001 ;; dctcp) echo 5002 ;; bbr) echo 5003 ;;
	hpcc) echo 5004 ;; paced) echo 5005 ;; alone) echo 5006 ;; fairshare) echo 5007 ;;
	*) echo 5009 ;; esac
}

kernel_cc() {	# kernel_cc CC: the congestion control CC's sockets use
	case $1 in paced | alone) echo cubic ;; *) echo $1 ;; esac
}

server_cc() {	# server_cc CC: its receivers' (fairshare counts senders only)
	case $1 in fairshare) echo cubic ;; *) kernel_cc $1 ;; esac
}

# not_as_asked WHAT: a configuration that did not run as asked. Each is
# said at once, listed in the table's head (env.csv) and, at the end, in
# the exit status: a bench must not pass a missing column or a broken
# setup off as a result.
NOT_AS_ASKED=
not_as_asked() {
	echo "# demo: NOT AS ASKED: $*"
	NOT_AS_ASKED="$NOT_AS_ASKED$(echo "$*" | tr ',' ';')
"
}

add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a + b }'; }

cleanup() {
	# only the processes this script started
	[ -n "${SERVERS:-}" ] && kill $SERVERS 2>/dev/null
	dc_down
}
trap cleanup EXIT

# ---- setup ---------------------------------------------------------------------
rm -rf $W && mkdir -p $W
say "profile $profile, scenarios: $SCENARIOS; CCs: $CCS; $REPS repetitions"
for t in $FCTGEN $QSAMPLE $LAWSAMPLE; do
	[ -x $t ] || { echo "# demo: missing $t (make -C demo)"; exit 1; }
done

TEL=0 TEL_WHY=
if ! load_module; then
	TEL_WHY="tcp_hpcc.ko not loadable"
	echo " $CCS " | grep -q ' hpcc ' &&
		not_as_asked "hpcc: tcp_hpcc.ko not loadable: hpcc runs skipped"
	CCS=$(echo " $CCS " | sed 's/ hpcc / /; s/^ *//; s/ *$//')
fi
# fairshare: a BPF struct_ops, registered for the runs that ask for it;
# its rate is the bench's 100 Mbit/s (FAIR_RATE_BPS)
case " $CCS " in *" fairshare "*)
	if [ "$DC_RATE_MBIT" != 100 ]; then
		not_as_asked "fairshare: built for 100 Mbit/s, the bottlenecks run at $DC_RATE_MBIT"
	elif ! reg=$(bpftool struct_ops register demo/fairshare.bpf.o 2>&1); then
		not_as_asked "fairshare: not registered: $(echo "$reg" | tail -n1)"
	fi ;;
esac
avail=$(cat /proc/sys/net/ipv4/tcp_available_congestion_control)
say "congestion controls available: $avail"

dc_up || { echo "# demo: topology setup failed"; exit 1; }
dc_bottleneck droptail || { echo "# demo: bottleneck qdisc setup failed"; exit 1; }

if echo " $CCS " | grep -q ' hpcc '; then
	if [ ! -x ./probe/hpcc-probe ]; then
		TEL_WHY="probe/hpcc-probe not built"
	elif ! dc_telemetry_up >$W/tel.log 2>&1; then
		TEL_WHY="hpcc-probe attach failed: $(tail -n1 $W/tel.log)"
	else
		TEL=1
	fi
	if [ $TEL = 1 ]; then
		say "hpcc: telemetry attached on 6 hosts and 3 router ports"
	else
		not_as_asked "hpcc: telemetry unavailable ($TEL_WHY): hpcc runs" \
			"without telemetry, i.e. its Reno fallback, labelled hpcc-notel"
	fi
fi

# vscubic's and vsdctcp's competitor needs its server even when its CC is
# not among those under test
SERVER_CCS=$CCS
case " $SCENARIOS " in *" vscubic "*) SERVER_CCS="$SERVER_CCS cubic" ;; esac
case " $SCENARIOS " in *" vsdctcp "*) SERVER_CCS="$SERVER_CCS dctcp" ;; esac
SERVER_CCS=$(printf '%s\n' $SERVER_CCS | awk '!seen[$0]++')
SERVERS=
for d in $DC_RECEIVERS; do
	for cc in $SERVER_CCS; do
		$IP netns exec $d $FCTGEN server -p $(port_of $cc) -C $(server_cc $cc) &
		SERVERS="$SERVERS $!"
	done
done
for d in $DC_RECEIVERS; do
	for cc in $SERVER_CCS; do
		wait_port $d $(port_of $cc) || { echo "# demo: server $d/$cc not up"; exit 1; }
	done
done

# Base RTT on the idle path: minimum of ping (busybox) s1 -> d1.
rtt_ms=$($IP netns exec s1 ping -c 20 -i 0.05 -q 10.2.1.1 2>/dev/null |
	sed -n 's|.*= \([0-9.]*\)/.*|\1|p')
[ -n "$rtt_ms" ] || rtt_ms=$($IP netns exec s1 ping -c 10 -q 10.2.1.1 |
	sed -n 's|.*= \([0-9.]*\)/.*|\1|p')
say "idle path s1 -> d1: min RTT ${rtt_ms} ms (netem ${DC_DELAY_MS} ms)"

emit_row env.csv "key,value"
for kv in "profile,$profile" "kernel,$(uname -r)" "cpus,$(nproc)" \
	"rate_mbit,$DC_RATE_MBIT" "netem_delay_ms,$DC_DELAY_MS" \
	"buffer_bytes,$DC_BUF_BYTES" "ecn_k_bytes,$DC_ECN_K" "tbf_burst,$DC_BURST" \
	"base_rtt_ms,$rtt_ms" "sample_ms,$SAMPLE_MS" "tcpinfo_ms,$TCPINFO_MS" \
	"telemetry,$TEL" "telemetry_why,$(echo "$TEL_WHY" | tr ',' ';')" \
	"ccs,$CCS" "scenarios,$SCENARIOS" "reps,$REPS" "seed,$SEED" \
	"long_dur,$LONG_DUR" "incast_dur,$INCAST_DUR" "incast_bursts,$INCAST_BURSTS" \
	"incast_flows,$INCAST_FLOWS" "stagger_dur,$STAGGER_DUR" "ws_dur,$WS_DUR" "ws_drain,$WS_DRAIN" \
	"ws_load,$WS_LOAD" "many_flows,$MANY_FLOWS" "many_dur,$MANY_DUR" \
	"rttf_dur,$RTTF_DUR" "rttf_delay_ms,$RTTF_DELAY_MS" "rttf_hpcc,$RTTF_HPCC" "hpcc_net,$HPCC_NET" "park_dur,$PARK_DUR" \
	"vs_dur,$VS_DUR" "jitter_pct,$JITTER_PCT" "paced_pct,$PACED_PCT" "rps,$DC_RPS" "hpcc_params,$(cd /sys/module/tcp_hpcc/parameters 2>/dev/null &&
		for p in *; do v=$(cat $p 2>/dev/null) && printf '%s=%s ' $p "$v"; done)"; do
	emit_row env.csv "$kv"
done
emit_row runs.csv "scenario,cc,rep,seed,duration,telemetry,probes_sent,reports_used,flows,flows_ok,elapsed_s,reports_accepted,reorder,jitter,compete"

# ---- one run -------------------------------------------------------------------
# start_clients TAG NS ARGS...: one fctgen client in NS, outputs in $R
CLIENTS=
start_client() {
	local tag=$1 ns=$2
	shift 2
	[ -n "$FLOW_TRACE_MS" ] && set -- "$@" --trace $R/trace.$tag \
		--trace-ms $FLOW_TRACE_MS
	[ $cc = paced ] && set -- "$@" --max-rate \
		$(awk -v r=$DC_RATE_MBIT -v p=$PACED_PCT 'BEGIN { printf "%.3f", r * p / 100 / 3 }')
	$IP netns exec $ns $FCTGEN client -p $port -C $(kernel_cc $cc) --t0 $T0 --tag $tag \
		--samples $R/samples.$tag --sample-ms $TCPINFO_MS \
		--info $R/info.$tag "$@" \
		>$R/flows.$tag 2>>$R/err &
	CLIENTS="$CLIENTS $!"
}

start_client_as() {	# start_client_as CC TAG NS ARGS...: a competitor's flow
	local port cc=$1
	port=$(port_of $cc)
	shift
	start_client "$@"
}

# reorder_events: reordering the senders' TCP stacks detected (TcpExt
# TCPSACKReorder + TCPTSReorder + TCPRenoReorder over s1..s4)
reorder_events() {
	local ns
	for ns in $DC_SENDERS; do
		$IP netns exec $ns cat /proc/net/netstat
	done | awk '$1 == "TcpExt:" { if (!h) { for (i = 2; i <= NF; i++) n[i] = $i; h = 1; next }
		for (i = 2; i <= NF; i++) if (n[i] ~ /^TCP(SACK|TS|Reno)Reorder$/) s += $i; h = 0 }
		END { print s + 0 }'
}

event() {	# event T KIND FLOW
	echo "$1,$2,$3" >>$R/events
}

run_scenario() {	# scenario body: sets DUR, starts clients
	local i s
	case $scen in
	long | sweep | jlong)
		DUR=$LONG_DUR
		for i in 1 2 3; do
			start_client f$i s$i -d 10.2.1.1 --long $DUR
			event 0 join f$i
		done ;;
	incast)
		DUR=$INCAST_DUR
		[ $cc = alone ] || start_client long s1 -d 10.2.1.1 --long $DUR
		for i in 1 2 3; do
			n=$(((INCAST_FLOWS + 3 - i) / 3))
			start_client inc$i s$i -d 10.2.1.1 --drain 3 \
				--burst $n,65536,2,1,$INCAST_BURSTS
		done
		for i in $(seq 0 $((INCAST_BURSTS - 1))); do event $((2 + i)) burst inc; done ;;
	stagger)
		DUR=$STAGGER_DUR
		start_client f1 s1 -d 10.2.1.1 --long $DUR
		s=$(awk -v d=$DUR 'BEGIN { printf "%.3f %.3f %.3f %.3f", d/6, 2*d/3, d/3, d/3 }')
		set -- $s
		start_client f2 s2 -d 10.2.1.1 --at $1 --long $2
		start_client f3 s3 -d 10.2.1.1 --at $3 --long $4
		event 0 join f1
		event $1 join f2
		event $3 join f3
		event $(add $3 $4) leave f3
		event $(add $1 $2) leave f2
		event $DUR leave f1 ;;
	websearch | jwebsearch)
		DUR=$(add $WS_DUR $WS_DRAIN)
		for i in 1 2 3; do
			start_client ws$i s$i -d 10.2.1.1,10.2.2.1 --seed $((seed + i)) \
				--drain $WS_DRAIN --poisson \
				$(awk -v l=$WS_LOAD 'BEGIN { printf "%.4f", l / 3 }'),$DC_RATE_MBIT,$WS_DUR
		done ;;
	many)	# one shell per sender starts its fctgens: one "ip netns
		# exec" each would take longer than the lead under TCG
		DUR=$MANY_DUR
		for s in 1 2 3; do
			cmd=
			for i in $(seq $s 3 $MANY_FLOWS); do
				cmd="$cmd $FCTGEN client -p $port -C $cc --t0 $T0 --tag m$i"
				cmd="$cmd --samples $R/samples.m$i --sample-ms $MANY_SAMPLE_MS"
				cmd="$cmd -d 10.2.1.1 --long $DUR >$R/flows.m$i 2>>$R/err &"
				event 0 join m$i
			done
			$IP netns exec s$s sh -c "$cmd wait" &
			CLIENTS="$CLIENTS $!"
		done ;;
	rttfair)
		DUR=$RTTF_DUR
		start_client short s1 -d 10.2.1.1 --long $DUR
		start_client long s2 -d 10.2.1.1 --long $DUR ;;
	parking)
		DUR=$PARK_DUR
		start_client two s1 -d 10.2.1.1 --long $DUR
		start_client one1 s2 -d 10.2.2.1 --long $DUR
		start_client one2 s4 -d 10.2.1.1 --long $DUR ;;
	vscubic | vsdctcp)
		DUR=$VS_DUR
		start_client t s1 -d 10.2.1.1 --long $DUR
		start_client_as ${scen#vs} o s2 -d 10.2.1.1 --long $DUR ;;
	esac
}

# ccs_of SCEN: the CCs that run in SCEN (the references only in some)
ccs_of() {
	local ccs=" $CCS "
	case " $PACED_SCENARIOS " in *" $1 "*) ;; *) ccs=${ccs/ paced / } ;; esac
	case " $ALONE_SCENARIOS " in *" $1 "*) ;; *) ccs=${ccs/ alone / } ;; esac
	case " $FAIRSHARE_SCENARIOS " in *" $1 "*) ;; *) ccs=${ccs/ fairshare / } ;; esac
	echo $ccs
}

nrun=0
total_runs=0
for scen in $SCENARIOS; do
	case $scen in stagger) r=$STAGGER_REPS ;; websearch) r=$WS_REPS ;;
	sweep) r=$SWEEP_REPS ;; *) r=$REPS ;; esac
	[ "$r" -gt "$REPS" ] && r=$REPS
	if [ $scen = sweep ]; then
		[ $TEL = 1 ] && total_runs=$((total_runs + r * $(echo $SWEEP | wc -w)))
	else
		total_runs=$((total_runs + r * $(ccs_of $scen | wc -w)))
		echo " $CCS " | grep -q ' hpcc ' && [ -n "$HPCC_SETTINGS" ] &&
			total_runs=$((total_runs + r * ($(echo $HPCC_SETTINGS | wc -w) - 1)))
	fi
done

# reports the law used: records, or receivers' windows (Rx-HPCC)
reports_used() {
	local u w s
	u=$(hpcc_stat ReportsUsed) w=$(hpcc_stat ReportsWindow)
	s=$(hpcc_stat ReportsShared)
	echo $((${u:-0} + ${w:-0} + ${s:-0}))
}

run_one() {	# scen cc rep
	local t_run=$SECONDS label=$cc qdevs="r2d1" f p0 u0 a0 c0 c1 p1 u1 a1 s0 s1 ok n snap qpid qdur
	local qpid1= ro0 ro1 jit=- fq=
	nrun=$((nrun + 1))
	[ $cc = hpcc ] && [ $TEL = 0 ] && label=hpcc-notel
	[ -n "$SETTING" ] && label=hpcc.$SETTING
	R=$W/$scen/$label/r$rep
	mkdir -p $R
	: >$R/events
	port=$(port_of $cc)
	seed=$((SEED + 1000 * rep))
	case $scen in
	parking) dc_second_bottleneck on || not_as_asked "$scen $label r$rep: second bottleneck setup failed"
		if [ $cc = hpcc ] && [ $TEL = 1 ]; then
			dc_r1r2_rate ${DC_RATE_MBIT}mbit ||
				not_as_asked "$scen $label r$rep: r1r2 telemetry failed"
		fi ;;
	rttfair) $TC -n r1 qdisc change dev r1s2 root netem delay ${RTTF_DELAY_MS}ms limit 10000 ;;
	jlong | jwebsearch) dc_jitter on $JITTER_PCT || not_as_asked "$scen $label r$rep: jitter setup failed"
		jit=$DC_JITTER_LINKS ;;
	esac
	{ [ $cc = paced ] || [ -n "$SENDER_FQ" ]; } && fq=1
	[ -n "$fq" ] && { dc_sender_fq on || not_as_asked "$scen $label r$rep: fq on the senders failed"; }
	case $scen:$cc in
	vscubic:*) dc_bottleneck droptail && dc_ecn 2 ;;
	vsdctcp:* | *:dctcp) dc_bottleneck ecn && dc_ecn 1 ;;
	*) dc_bottleneck droptail && dc_ecn 2 ;;
	esac
	case $scen in websearch | jwebsearch | parking) qdevs="r2d1 r2d2" ;; esac
	p0=0 u0=0 a0=0 c0=0 s0=0 i0=0
	if [ $cc = hpcc ] || [ $TEL = 1 ]; then
		p0=$(hpcc_stat ProbesSent) u0=$(reports_used) a0=$(hpcc_stat ReportsAccepted)
		c0=$(hpcc_stat CompeteEntered) s0=$(hpcc_stat ReportsShared)
		i0=$(hpcc_stat ReportsImplausible) h0=$(hpcc_stat HandoffsGiven)
		k0=$(hpcc_stat HandoffsTaken)
	fi
	ro0=$(reorder_events)

	T0=$(add $($FCTGEN now) $([ $scen = many ] && echo $MANY_LEAD || echo $LEAD))
	CLIENTS=
	case $scen in
	long | sweep | jlong) qdur=$LONG_DUR ;; incast) qdur=$INCAST_DUR ;;
	stagger) qdur=$STAGGER_DUR ;; websearch | jwebsearch) qdur=$(add $WS_DUR $WS_DRAIN) ;;
	many) qdur=$MANY_DUR ;; rttfair) qdur=$RTTF_DUR ;; parking) qdur=$PARK_DUR ;;
	vs*) qdur=$VS_DUR ;;
	esac
	$IP netns exec r2 $QSAMPLE -i $SAMPLE_MS -t $(add $qdur $(add $LEAD 1)) --t0 $T0 \
		$qdevs >$R/queue 2>>$R/err &
	qpid=$!
	if [ $scen = parking ]; then
		$IP netns exec r1 $QSAMPLE -i $SAMPLE_MS -t $(add $qdur $(add $LEAD 1)) --t0 $T0 \
			r1r2 >$R/queue.r1 2>>$R/err &
		qpid1=$!
	fi
	lpids=
	if [ $cc = hpcc ] && [ -n "$LAW_TRACE_MS" ]; then
		for h in s1 s2 s3; do
			$IP netns exec $h $LAWSAMPLE -i $LAW_TRACE_MS \
				-t $(add $qdur $(add $LEAD 1)) --t0 $T0 \
				>$R/law.$h 2>>$R/err &
			lpids="$lpids $!"
		done
	fi
	run_scenario
	snap=
	if [ $cc = hpcc ] && [ $TEL = 1 ]; then
		# one look at the module's view of s1's flows mid-run
		(sleep $(add $LEAD $(awk -v d=$DUR 'BEGIN { print d / 2 }'))
		 $IP netns exec s1 cat /proc/net/tcp_hpcc 2>/dev/null | head -n 6 |
			sed 's/^/# demo:   tcp_hpcc: /') &
		snap=$!
	fi
	wait $CLIENTS
	sleep 0.2
	kill $qpid $qpid1 $lpids 2>/dev/null
	wait $qpid $qpid1 $snap $lpids
	p1=0 u1=0 a1=0 c1=0 s1=0 i1=0
	if [ $cc = hpcc ] || [ $TEL = 1 ]; then
		p1=$(hpcc_stat ProbesSent) u1=$(reports_used) a1=$(hpcc_stat ReportsAccepted)
		c1=$(hpcc_stat CompeteEntered) s1=$(hpcc_stat ReportsShared)
		i1=$(hpcc_stat ReportsImplausible) h1=$(hpcc_stat HandoffsGiven)
		k1=$(hpcc_stat HandoffsTaken)
	fi
	ro1=$(reorder_events)
	case $scen in
	parking) dc_second_bottleneck off || not_as_asked "parking: restoring r1r2 failed"
		[ $TEL = 1 ] && { dc_r1r2_rate 1gbit || not_as_asked "parking: restoring r1r2's telemetry failed"; } ;;
	rttfair) $TC -n r1 qdisc change dev r1s2 root netem delay ${DC_DELAY_MS}ms limit 10000 ;;
	jlong | jwebsearch) dc_jitter off || not_as_asked "$scen: jitter removal failed" ;;
	esac
	[ -n "$fq" ] && { dc_sender_fq off || not_as_asked "$scen: removing fq from the senders failed"; }

	# files -> console
	local d=$scen/$label/r$rep
	emit_row $d/queue.csv "t,dev,backlog,qlen,drops,bytes,pkts,marks"
	emit $d/queue.csv $R/queue
	[ -n "$qpid1" ] && emit $d/queue.csv $R/queue.r1
	emit_row $d/flows.csv "tag,id,dst,size,start,end,fct,status"
	for f in $R/flows.*; do emit $d/flows.csv $f; done
	if ls $R/samples.* >/dev/null 2>&1; then
		emit_row $d/samples.csv "tag,id,t,bytes_acked,rtt_us,cwnd,retrans"
		for f in $R/samples.*; do emit $d/samples.csv $f; done
	fi
	if cat $R/info.* 2>/dev/null | grep -q .; then
		emit_row $d/info.csv "tag,id,busy_us,rwnd_us,sndbuf_us,retrans,cwnd,rtt_us,min_rtt_us,segs_out,delivery_Bps,pacing_Bps"
		for f in $R/info.*; do emit $d/info.csv $f; done
	fi
	if cat $R/trace.* 2>/dev/null | grep -q .; then
		emit_row $d/trace.csv "tag,id,t,bytes_acked,unacked,cwnd,rtt_us,pacing_Bps,delivery_Bps,notsent_bytes"
		for f in $R/trace.*; do emit $d/trace.csv $f; done
	fi
	if ls $R/law.* >/dev/null 2>&1; then
		emit_row $d/law.csv "host,t,local,mode,w,wc,u_permille,stage,rate_Bps,t_us,age_us,hops"
		for f in $R/law.*; do
			sed "s/^/${f##*.},/" $f >$f.rows && emit $d/law.csv $f.rows
		done
	fi
	emit_row $d/events.csv "t,kind,flow"
	emit $d/events.csv $R/events
	[ -s $R/err ] && sed 's/^/# demo:   stderr: /' $R/err | head -n 5
	n=$(cat $R/flows.* | wc -l)
	ok=$(cat $R/flows.* | grep -c ',ok$')
	emit_row runs.csv "$scen,$label,$rep,$seed,$DUR,$([ $cc = hpcc ] && echo $TEL || echo -),$((p1 - p0)),$((u1 - u0)),$n,$ok,$((SECONDS - t_run)),$((a1 - a0)),$((ro1 - ro0)),$jit,$((c1 - c0))"
	# progress: utilization, queue, drops of r2d1 over the run
	say "[$nrun/$total_runs] $scen $label rep $rep/$reps: $(awk -F, -v rate=$DC_RATE_MBIT -v dur=$DUR '
		$2 == "r2d1" && $1 >= 0 && $1 <= dur { if (!n++) { t0 = $1; b0 = $6; d0 = $5 }
			t1 = $1; b1 = $6; d1 = $5; if ($3 > mx) mx = $3 }
		END { if (n < 2) { print "no queue samples"; exit }
			printf "r2d1 util %.2f, max queue %d KB, drops %d", (b1 - b0) * 8 / ((t1 - t0) * rate * 1e6), mx / 1000, d1 - d0 }' $R/queue), flows $ok/$n ok ($((SECONDS - t_run)) s)"
	if [ $cc = hpcc ] && [ $TEL = 1 ]; then
		say "  hpcc: $((p1 - p0)) probes sent, $((u1 - u0)) reports used by the window law ($((${s1:-0} - ${s0:-0})) another flow's), $((${i1:-0} - ${i0:-0})) with an implausible hop, $((${h1:-0} - ${h0:-0})) flows' W handed off, $((${k1:-0} - ${k0:-0})) taken"
		[ $((u1 - u0)) -gt 0 ] ||
			not_as_asked "$scen $label r$rep: telemetry attached but no report used"
	fi
	rm -rf $R
}

# set_params NAME=VALUE[+NAME=VALUE...]: module parameters; "default": all
# the writable ones as they were at load time, and no sender fq. "fq" (not
# a parameter): fq on the senders' egress for the setting's runs
# (root reads and writes any file: a write-only one, mac_key, and one read
# at load only, ecn, are told by their modes)
PARAMS_AT_LOAD=$(cd $PARAMS 2>/dev/null && for p in *; do
	[ "$(stat -c %a $p)" = 644 ] && echo "$p=$(cat $p)"; done)
SENDER_FQ=
set_params() {
	local kv
	[ "$1" = default ] && SENDER_FQ=
	for kv in $([ "$1" = default ] && echo "$PARAMS_AT_LOAD" || echo "$1" | tr + ' '); do
		[ "$kv" = fq ] && { SENDER_FQ=1; continue; }
		set_param "${kv%%=*}" "${kv#*=}" ||
			{ not_as_asked "$scen ${SETTING:-default}: cannot set $kv"; return 1; }
	done
}

# hpcc_run SETTING: an hpcc run with the network's settings (HPCC_NET, and
# rttfair's RTTF_HPCC), then SETTING's ("" or "default": none); the
# load-time parameters back after it
hpcc_run() {
	local net=
	[ "$HPCC_NET" = default ] || net=$HPCC_NET
	[ $scen = rttfair ] && net=${net:+$net+}$RTTF_HPCC
	{ [ -z "$net" ] || set_params "$net"; } &&
		{ [ -z "$1" ] || [ "$1" = default ] || set_params "$1"; } && run_one
	set_params default
}

SETTING=
for scen in $SCENARIOS; do
	case $scen in
	long | incast | stagger | websearch | many | rttfair | parking | vscubic | vsdctcp | \
	jlong | jwebsearch) ;;
	sweep)	if [ $TEL = 0 ]; then
			not_as_asked "sweep: hpcc has no telemetry"
			continue
		fi ;;
	*) not_as_asked "unknown scenario $scen"; continue ;;
	esac
	case $scen in stagger) reps=$STAGGER_REPS ;; websearch) reps=$WS_REPS ;;
	sweep) reps=$SWEEP_REPS ;; *) reps=$REPS ;; esac
	[ "$reps" -gt "$REPS" ] && reps=$REPS
	for rep in $(seq 1 $reps); do
		if [ $scen = sweep ]; then
			cc=hpcc
			for SETTING in $SWEEP; do
				set_params "$SETTING" && run_one
				set_params default
			done
			SETTING=
			continue
		fi
		for cc in $(ccs_of $scen); do
			echo "$avail" | grep -qw $(kernel_cc $cc) ||
				{ not_as_asked "$scen $cc r$rep: $cc not available"; continue; }
			if [ $cc = hpcc ] && [ $TEL = 1 ]; then
				[ -n "$HPCC_SETTINGS" ] || hpcc_run ""
				for SETTING in $HPCC_SETTINGS; do
					hpcc_run "$SETTING"
				done
				SETTING=
				continue
			fi
			run_one
		done
	done
done
say "done: $nrun runs"
if [ -n "$NOT_AS_ASKED" ]; then
	n=0
	printf '%s' "$NOT_AS_ASKED" | while IFS= read -r what; do
		n=$((n + 1))
		emit_row env.csv "not_as_asked.$n,$what"
	done
	echo "# demo: $(printf '%s' "$NOT_AS_ASKED" | grep -c .) configuration(s) did not run as asked"
	exit 3
fi
