#!/usr/bin/env bash
# The end-to-end demonstration (make demo), its CI smoke test and the
# benchmark (make bench):
#
#   scripts/demo.sh [--smoke | --long] [--out DIR] [--no-deps] [--ccs "cubic dctcp bbr hpcc"]
#                   [--scenarios "many rttfair ..."] [--reps N]
#                   [--hpcc-settings "wire_version=2 wire_version=2+rx_window=1"]
#
#   (default)  all four scenarios (long flows, incast, staggered joins and
#              leaves, WebSearch mix), 3 repetitions of the first two, for
#              cubic, dctcp, bbr and hpcc: about 8 minutes on 2 cores
#   --smoke    one short repetition of the long-flows scenario (< 2 min)
#   --long     longer runs and 5 repetitions (3 for stagger and the sweep)
#              of every scenario, including issue 11's (many flows, RTT
#              fairness, parking lot, against cubic and dctcp, link
#              jitter), the paced reference (demo/README.md) in long and
#              jlong and the burst-alone one in incast: about 90 minutes
#              on 2 cores (88 on 2026-12-05); also writes
#              Documentation/bench-results.md (with --scenarios or --reps:
#              OUT/bench-results.md, the committed report stays whole)
#   --scenarios, --reps  passed to demo/scenarios.sh: a subset, fewer
#              repetitions (validating a scenario: --smoke --scenarios X)
#   --hpcc-settings  passed to demo/scenarios.sh: hpcc once per module
#              parameter setting, side by side (labels hpcc.SETTING)
#   --hpcc-net S  passed to demo/scenarios.sh: the network's settings,
#              applied to every hpcc run before the scenario's and
#              --hpcc-settings' (default wire_version=2+fair_pull=1000+
#              fair_slack=500+deliv_free=500; "default": the module's
#              defaults)
#   --law-trace MS  passed to demo/scenarios.sh: hpcc runs also write the
#              law's state of each sender's flows every MS ms, as it
#              changes (OUT/raw/SCENARIO/hpcc*/rN/law.csv)
#   --flow-trace MS  passed to demo/scenarios.sh: every sized flow's
#              TCP_INFO every MS ms while it is open
#              (OUT/raw/SCENARIO/CC/rN/trace.csv)
#   --veth-reorder  passed to demo/scenarios.sh: no RPS on the topology's
#              veths, whose per-CPU backlogs then reorder a flow's packets
#   --paced-pct P  passed to demo/scenarios.sh: the paced reference's flows
#              offer P% of the link between them (default 90)
#
# Installs missing Debian packages (scripts/deps.sh build vm bench), builds
# the module, the BPF programs, hpcc-probe (if its sources exist) and the
# demo's tools (demo/), runs demo/scenarios.sh in one qemu VM
# (scripts/vm-run.sh), keeps its console in OUT/console.log, and analyses
# it with demo/analyze.py: OUT/table.txt (printed), OUT/summary.csv,
# OUT/slowdown.csv, OUT/raw/ (every sample), OUT/plots/*.png.
# OUT defaults to out/demo-YYYYmmdd-HHMMSS (out/smoke-..., out/bench-...).
# Exit status: non-zero if the build, the VM run or the analysis failed,
# or if a configuration did not run as asked (a CC not available, a
# setting or a scenario's setup that failed: NOT AS ASKED in the table);
# the numbers themselves are reported, never asserted.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=demo out= deps=1 ccs= scens= reps= settings= net= law_trace= flow_trace= reorder= paced_pct=
while (($#)); do
	case $1 in
	--smoke) mode=smoke; shift ;;
	--long) mode=long; shift ;;
	--out) out=${2:?}; shift 2 ;;
	--no-deps) deps=0; shift ;;
	--ccs) ccs=${2:?}; shift 2 ;;
	--scenarios) scens=${2:?}; shift 2 ;;
	--reps) reps=${2:?}; shift 2 ;;
	--hpcc-settings) settings=${2:?}; shift 2 ;;
	--hpcc-net) net=${2:?}; shift 2 ;;
	--law-trace) law_trace=${2:?}; shift 2 ;;
	--flow-trace) flow_trace=${2:?}; shift 2 ;;
	--veth-reorder) reorder=1; shift ;;
	--paced-pct) paced_pct=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "demo.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
case $mode in
smoke) prefix=smoke profile=smoke vm_timeout=400 ;;
demo) prefix=demo profile=demo vm_timeout=1200 ;;
long) prefix=bench profile=long vm_timeout=10800 ;;
esac
# a chosen subset of scenarios may take longer than the smoke profile allows
[[ -n $scens && $mode != long ]] && vm_timeout=3000
out=${out:-out/$prefix-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
t0=$SECONDS
say() { echo "demo: +$((SECONDS - t0))s $*"; }

if ((deps)); then
	say "checking packages (scripts/deps.sh build vm bench)"
	scripts/deps.sh build vm bench
fi

say "building"
# `make all` includes probe/, which may not exist yet: fall back to the
# module and the BPF programs, and let the VM report hpcc's telemetry as
# unavailable.
if ! make -s all >"$out/build.log" 2>&1; then
	echo "demo: 'make all' failed (tail of $out/build.log below); building the module and bpf/ only"
	tail -n 5 "$out/build.log" | sed 's/^/  /'
	make -s module bpf >>"$out/build.log" 2>&1 ||
		echo "demo: WARNING: building the module failed: hpcc will be skipped"
fi
make -s -C demo >>"$out/build.log" 2>&1 || { echo "demo: building demo/ failed"; tail -n 20 "$out/build.log"; exit 1; }

includes=(--include demo --include scripts/lib:scripts/lib)
for p in tcp_hpcc.ko bpf probe; do
	if [[ -e $p ]]; then includes+=(--include "$p"); fi
done
args=(--profile "$profile")
[[ -n $ccs ]] && args+=(--ccs "$ccs")
[[ -n $settings ]] && args+=(--hpcc-settings "$settings")
[[ -n $net ]] && args+=(--hpcc-net "$net")
[[ -n $scens ]] && args+=(--scenarios "$scens")
[[ -n $reps ]] && args+=(--reps "$reps")
[[ -n $law_trace ]] && args+=(--law-trace "$law_trace")
[[ -n $flow_trace ]] && args+=(--flow-trace "$flow_trace")
[[ -n $reorder ]] && args+=(--veth-reorder)
[[ -n $paced_pct ]] && args+=(--paced-pct "$paced_pct")

# Other VMs on this host take CPU from ours: TCG then runs the guest slower
# and the results get noisier. Say so, and keep the host's load with the run.
# (pgrep -c prints 0 and fails when nothing matches: keep its output only)
others=$(pgrep -c -f '^[^ ]*qemu-system-x86_64 ' || true)
{
	echo "start: $(uptime)"
	echo "other qemu processes at start: ${others:-0}"
	echo "git: $(git describe --always --dirty 2>/dev/null || echo unknown)"
} >"$out/host.txt"
if [[ ${others:-0} -gt 0 ]]; then
	echo "demo: WARNING: $others other qemu process(es) running on this host: expect noisier numbers"
fi

say "running the scenarios in a VM (profile $profile; console: $out/console.log)"
set +e
scripts/vm-run.sh --timeout "$vm_timeout" "${includes[@]}" -- \
	./demo/scenarios.sh "${args[@]}" 2>&1 |
	tee "$out/console.log" | grep --line-buffered -v '^@@csv '
vm_rc=${PIPESTATUS[0]}
set -e
say "VM run finished (exit status $vm_rc)"
echo "end: $(uptime)" >>"$out/host.txt"

py=$(command -v python3) || { echo "demo: python3 missing (scripts/deps.sh build installs it)"; exit 1; }
an_args=()
if [[ $mode == long ]]; then
	if [[ -n $scens$reps ]]; then
		an_args+=(--bench-md "$out/bench-results.md")
	else
		an_args+=(--bench-md Documentation/bench-results.md)
	fi
fi
an_rc=0
"$py" demo/analyze.py "$out/console.log" "$out" "${an_args[@]}" || an_rc=$?

echo
say "done: artifacts in $out"
# (ls fails when a run made no plots: pipefail must not end the script)
(cd "$out" && { ls -d -- * plots/*.png 2>/dev/null || true; }) | grep -v '^plots$' | sed 's/^/  /'
if ((vm_rc != 0)); then
	if ((vm_rc == 3)); then
		echo "demo: some configurations did not run as asked (NOT AS ASKED in $out/table.txt): results are partial"
	else
		echo "demo: the VM run failed (exit status $vm_rc): results may be partial"
	fi
	exit 1
fi
exit $an_rc
