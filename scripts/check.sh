#!/usr/bin/env bash
# The whole test suite, as `make check` and .ci/run run it:
#   0. the static checks (scripts/lint.sh: cppcheck, checkpatch, function
#      length)
#   1. userspace unit tests of the window law and the controller (tests/unit)
#   2. BPF programs under BPF_PROG_TEST_RUN and netns on this kernel, and
#      10^6 hostile packets through each (tests/bpf)
#   3. hpcc-probe on this kernel, with golden outputs (tests/probe)
#   4. the kernel log scanner of the VM tests (tests/klog)
#   5. the module and the telemetry loop in a VM on Debian's 6.1 (selftests/),
#      every test's kernel log passed through the scanner; beside it the same
#      on Debian 12's 6.12 (make module KSERIES=6.12 builds build/KVER/tcp_hpcc.ko)
#   6. the demo's analysis code, fctgen's trace and the fair-share reference (tests/demo),
#      a short smoke run of the demo
#      and of the ns-3 model (sim/; the full demo, bench and sim-bench stay
#      out of the suite)
#   7. the selftests again on the debug kernel (KASAN, lockdep, PROVE_RCU,
#      kmemleak, UBSAN; scripts/debug-kernel.sh builds it once, 12-18
#      minutes on 2 cores, and caches it outside the clone)
# With --quick (make check-quick, for iteration) the VM runs on Debian's
# 6.1 only: no 6.12, no debug kernel.
# usage: scripts/check.sh [--quick]
# Each suite prints TAP; the last line counts every assertion of all suites:
# "N passed, N failed, N skipped". A suite that dies without a failing
# assertion counts as one failure.
set -uo pipefail
cd "$(dirname "$0")/.."

quick=
case ${1:-} in
--quick) quick=1 ;;
'') ;;
*) echo "check: unknown argument: $1 (usage: $0 [--quick])" >&2; exit 2 ;;
esac

passed=0 failed=0 skipped=0 failed_suites=()
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# count NAME RC: a suite's counts from its TAP output in $log/NAME and its
# exit status. Assertions at any nesting depth; the runner's own summary
# lines and kernel messages are not assertions.
count() {
	local name=$1 rc=$2 p f s
	p=$(grep -E '^(# )*ok [0-9]+ ' "$log/$name" | grep -v 'selftests: hpcc:' | grep -vc '# SKIP')
	s=$(grep -E '^(# )*(not )?ok [0-9]+ .*# SKIP' "$log/$name" | grep -vc 'selftests: hpcc:')
	f=$(grep -E '^(# )*not ok [0-9]+ ' "$log/$name" | grep -v 'selftests: hpcc:' | grep -vc '# SKIP')
	# exit status 4: the suite skipped itself (kselftest's KSFT_SKIP)
	if [[ $rc -ne 0 && $rc -ne 4 && $f -eq 0 ]]; then
		echo "=== $name: exit status $rc with no failing assertion: counted as a failure"
		f=1
	fi
	echo "=== $name: $p passed, $f failed, $s skipped (exit $rc)"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	((f == 0)) || failed_suites+=("$name")
}

# suite NAME COMMAND...: run, stream, count
suite() {
	local name=$1 rc
	shift
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$log/$name"
	rc=${PIPESTATUS[0]}
	count "$name" "$rc"
}

# suite_pair NAME1 NAME2 CMD1... :: CMD2...: two VM suites side by side.
# A --tcg-single guest keeps one host core busy, and the machine has two.
# Each suite's output is printed whole once both have ended.
suite_pair() {
	local n1=$1 n2=$2 i p1 p2 rc1 rc2
	shift 2
	for ((i = 1; i <= $#; i++)); do
		[[ ${!i} == :: ]] && break
	done
	local -a c1=("${@:1:i-1}") c2=("${@:i+1}")
	echo "=== $n1 and $n2 side by side"
	"${c1[@]}" >"$log/$n1" 2>&1 &
	p1=$!
	"${c2[@]}" >"$log/$n2" 2>&1 &
	p2=$!
	wait "$p1"
	rc1=$?
	wait "$p2"
	rc2=$?
	echo "=== $n1: ${c1[*]}"
	cat "$log/$n1"
	count "$n1" "$rc1"
	echo "=== $n2: ${c2[*]}"
	cat "$log/$n2"
	count "$n2" "$rc2"
}

# A CI log is often read from its end only: repeat what each failed suite
# said last (for a VM, the guest's console) just before the count.
failure_tails() {
	local name
	for name in ${failed_suites[@]+"${failed_suites[@]}"}; do
		echo "=== $name failed: its failing assertions, then its last 40 lines"
		{ grep -E '^(# )*not ok [0-9]+ ' "$log/$name" | head -n 20
		  echo ...
		  tail -n 40 "$log/$name"; } | sed 's/^/|| /'
	done
}

scripts/deps.sh build vm bench sim 6.12 || exit 1
if ! make -s all tests; then
	echo "check: build failed"
	echo "0 passed, 1 failed"
	exit 1
fi

suite lint scripts/lint.sh
suite unit tests/unit/test_law
suite unit-ctl tests/unit/test_ctl
suite unit-siphash tests/unit/test_siphash
suite bpf tests/bpf/bpf_test
suite bpf-fuzz tests/bpf/bpf_fuzz
suite bpf-upgrade tests/bpf/upgrade.sh
[[ -x tests/probe/test_probe.sh ]] && suite probe tests/probe/test_probe.sh
suite klog tests/klog/test_klog.sh
suite deploy tests/deploy/test_setup.sh
suite kernel-hook tests/deploy/test_kernel_hook.sh
vm_files=(--include selftests --include bpf --include probe
	--include tests/bpf/bpf_test:tests/bpf/bpf_test --include tests/lib:tests/lib
	--include scripts/lib:scripts/lib)
# --tcg-single: under multi-threaded TCG, qemu 7.2 mis-executes kernel text
# that another vCPU patches (6.12's "Oops: int3" when a static key flips,
# hpcc or not; scripts/vm-run.sh). The stock kernels' runs take one host
# thread for both vCPUs; the debug kernel's keeps true parallelism.
vm61=(scripts/vm-run.sh --tcg-single --timeout 2400 --include tcp_hpcc.ko
	"${vm_files[@]}" -- ./selftests/run_tests.sh)
k612=$(make -s kver KSERIES=6.12 | sed -n 's/^KVER=\([^ ]*\) .*/\1/p')
if [[ -n $quick ]]; then
	suite vm "${vm61[@]}"
	echo "=== vm-6.12: left out (--quick)"
elif [[ -n $k612 ]] && make -s module KVER="$k612"; then
	suite_pair vm vm-6.12 "${vm61[@]}" :: \
		scripts/vm-run.sh --kver "$k612" --tcg-single --timeout 2400 \
		--include "build/$k612/tcp_hpcc.ko:tcp_hpcc.ko" "${vm_files[@]}" \
		-- ./selftests/run_tests.sh
else
	suite vm "${vm61[@]}"
	echo "=== vm-6.12: no 6.12 headers, or building build/$k612/tcp_hpcc.ko failed: counted as a failure"
	failed=$((failed + 1))
fi

suite analysis python3 tests/demo/test_analyze.py
suite fctgen tests/demo/test_fctgen.sh
suite fairshare tests/demo/test_fairshare.sh
suite demo-smoke sh -c 'scripts/demo.sh --smoke --no-deps >"$0" 2>&1 &&
	echo "ok 1 - demo smoke run: table, CSV and plots written" ||
	{ tail -20 "$0"; echo "not ok 1 - demo smoke run"; exit 1; }' "$log/smoke.out"
suite sim sim/test_sim.sh

# The debug kernel under TCG runs the suite at about a sixth of the stock
# kernel's pace: 30 minutes here, and half as much again on a slower
# machine, where one boot of it ran past a 40 minute timeout. Two boots,
# each with half of the tests and its own timeout (and its own kmemleak
# scan): a slow machine takes longer, a hung guest is still stopped, and
# a timeout says which half it was in. One after the other: each guest
# runs a thread per vCPU and keeps both host cores busy (side by side,
# every test took twice as long).
if [[ -n $quick ]]; then
	echo "=== vm-debug: left out (--quick)"
elif make -s module-debug; then
	read -ra progs <<<"$(sed -n 's/^TEST_PROGS := //p' selftests/Makefile)"
	half=$(((${#progs[@]} + 1) / 2))
	for i in 1 2; do
		suite vm-debug-$i scripts/vm-run.sh --kernel debug --timeout 2400 \
			--include build/debug/tcp_hpcc.ko:tcp_hpcc.ko "${vm_files[@]}" \
			-- ./selftests/run_tests.sh "${progs[@]:(i - 1) * half:half}"
	done
else
	echo "=== vm-debug: building the debug kernel or build/debug/tcp_hpcc.ko failed: counted as a failure"
	failed=$((failed + 1))
fi

failure_tails
echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
