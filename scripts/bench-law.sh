#!/usr/bin/env bash
# Instructions per window-law update (hpcc_law_report, the work of the ACK
# that consumes a telemetry report), counted by callgrind on the userspace
# build of hpcc_law.h at -O2. Repeatable: callgrind counts instructions.
set -euo pipefail
cd "$(dirname "$0")/.."
calls=${1:-100000}
command -v valgrind >/dev/null || { echo "bench-law: valgrind missing (apt-get install valgrind)" >&2; exit 1; }
bin=tests/unit/bench_law
out=$(mktemp)
trap 'rm -f "$out"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$calls" >/dev/null 2>&1
# inclusive cost of bench_report, the noinline wrapper around hpcc_law_report
ir=$(callgrind_annotate --inclusive=yes "$out" 2>/dev/null |
	awk '/bench_report/ && !n++ { gsub(",", "", $1); print $1 }')
[[ -n $ir ]] || { echo "bench-law: no callgrind data for bench_report" >&2; exit 1; }
echo "law update (2 hops): $((ir / calls)) instructions per report ($ir / $calls calls)"
