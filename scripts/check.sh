#!/usr/bin/env bash
# The whole test suite, as `make check` and .ci/run run it:
#   1. userspace unit tests of the window law (tests/unit)
#   2. BPF programs under BPF_PROG_TEST_RUN and netns on this kernel (tests/bpf)
#   3. hpcc-probe on this kernel (tests/probe)
#   4. the module and the telemetry loop in a VM on Debian's 6.1 (selftests/)
#   5. the demo's analysis code (tests/demo) and a short smoke run of the
#      demo itself (the full demo and benchmark stay out of the suite)
# Each suite prints TAP; the last line counts every assertion of all suites:
# "N passed, N failed, N skipped". A suite that dies without a failing
# assertion counts as one failure.
set -uo pipefail
cd "$(dirname "$0")/.."

passed=0 failed=0 skipped=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# suite NAME COMMAND...: run, stream, count
suite() {
	local name=$1 rc p f s
	shift
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$log/$name"
	rc=${PIPESTATUS[0]}
	# assertions at any nesting depth; the runner's own summary lines and
	# kernel messages are not assertions
	p=$(grep -E '^(# )*ok [0-9]+ ' "$log/$name" | grep -v 'selftests: hpcc:' | grep -vc '# SKIP')
	s=$(grep -E '^(# )*(not )?ok [0-9]+ .*# SKIP' "$log/$name" | grep -vc 'selftests: hpcc:')
	f=$(grep -E '^(# )*not ok [0-9]+ ' "$log/$name" | grep -v 'selftests: hpcc:' | grep -vc '# SKIP')
	if [[ $rc -ne 0 && $f -eq 0 ]]; then
		echo "=== $name: exit status $rc with no failing assertion: counted as a failure"
		f=1
	fi
	echo "=== $name: $p passed, $f failed, $s skipped (exit $rc)"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

scripts/deps.sh build vm bench || exit 1
if ! make -s all tests; then
	echo "check: build failed"
	echo "0 passed, 1 failed"
	exit 1
fi

suite unit tests/unit/test_law
suite bpf tests/bpf/bpf_test
[[ -x tests/probe/test_probe.sh ]] && suite probe tests/probe/test_probe.sh
suite vm scripts/vm-run.sh --timeout 1200 --include tcp_hpcc.ko \
	--include selftests --include bpf --include probe \
	--include tests/bpf/bpf_test:tests/bpf/bpf_test \
	-- ./selftests/run_tests.sh

suite analysis python3 tests/demo/test_analyze.py
suite demo-smoke sh -c 'scripts/demo.sh --smoke --no-deps >"$0" 2>&1 &&
	echo "ok 1 - demo smoke run: table, CSV and plots written" ||
	{ tail -20 "$0"; echo "not ok 1 - demo smoke run"; exit 1; }' "$log/smoke.out"

echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
