# SPDX-License-Identifier: GPL-2.0
# TAP output for the shell tests of every suite (tests/, selftests/, sim/),
# sourced; the C tests have tests/lib/tap.h, which prints the same. POSIX
# sh: the VM runs it under busybox and dash.
#
#   tap_check DESCRIPTION COMMAND...   one assertion: COMMAND's exit status
#   tap_result STATUS DESCRIPTION      one assertion: ok if STATUS is 0
#   tap_skip DESCRIPTION WHY           one assertion not run ("# SKIP WHY")
#   tap_diag [TEXT...]                 TEXT, or stdin, as "#   " detail lines
#   tap_plan N                         the plan first (else tap_done prints it)
#   tap_done                           the plan and the counts; exits 0 or 1
#   tap_skip_all WHY                   "1..0 # SKIP WHY"; exits 4
#
# For the suites that judge a command by its output:
#
#   tap_run COMMAND...                 its output (and stderr) in $out, its
#                                      exit status in $rc
#   tap_has REGEX                      $out matches REGEX (grep -E)
#   tap_ran STATUS DESCRIPTION         tap_result; on failure the last
#                                      tap_run's $rc and $out as detail
#
# Exit status as kselftest's: 0 passed, 1 failed, 4 skipped (KSFT_SKIP).
# scripts/check.sh counts the "ok N -" / "not ok N -" lines, at any depth
# of "# " nesting. A DESCRIPTION containing "# SKIP" counts as a skip.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

tap_n=0
tap_passed=0
tap_failed=0
tap_skipped=0
tap_planned=
out=
rc=0

tap_result() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		case $2 in
		*"# SKIP"*) tap_skipped=$((tap_skipped + 1)) ;;
		*) tap_passed=$((tap_passed + 1)) ;;
		esac
		echo "ok $tap_n - $2"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n - $2"
	fi
}

tap_check() {
	tap_desc_=$1
	shift
	if "$@"; then
		tap_result 0 "$tap_desc_"
	else
		tap_result 1 "$tap_desc_"
	fi
}

tap_skip() {
	tap_result 0 "$1 # SKIP $2"
}

tap_diag() {
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@" | sed 's/^/#   /'
	else
		sed 's/^/#   /'
	fi
}

tap_plan() {
	tap_planned=$1
	echo "1..$1"
}

tap_done() {
	if [ -z "$tap_planned" ]; then
		echo "1..$tap_n"
	elif [ "$tap_planned" -ne "$tap_n" ]; then
		echo "# planned $tap_planned, ran $tap_n"
		tap_failed=$((tap_failed + 1))
	fi
	echo "# $tap_passed passed, $tap_failed failed"
	[ "$tap_skipped" -eq 0 ] || echo "# $tap_skipped skipped"
	[ "$tap_failed" -eq 0 ] && exit $KSFT_PASS
	exit $KSFT_FAIL
}

tap_run() {
	out=$("$@" 2>&1)
	rc=$?
}

tap_has() {
	printf '%s\n' "$out" | grep -Eq -- "$1"
}

tap_ran() {
	tap_result "$1" "$2"
	[ "$1" -eq 0 ] || tap_diag "exit $rc; output:" "$out"
}

tap_skip_all() {
	echo "1..0 # SKIP $*"
	exit $KSFT_SKIP
}
