#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kselftest-style runner: runs TEST_PROGS (or the tests named) in order,
# each under the timeout from ./settings, nesting its TAP output behind
# "# ". Exit status 4 from a test is a skip. Exits 0 when nothing failed.
cd "$(dirname "$0")/.." || exit 1
timeout=$(sed -n 's/^timeout=//p' selftests/settings)
progs=${*:-$(sed -n 's/^TEST_PROGS := //p' selftests/Makefile)}
rcfile=$(mktemp)
n=0
failed=0
set -- $progs
echo "TAP version 13"
echo "1..$#"
for t; do
	n=$((n + 1))
	echo "# selftests: hpcc: $t"
	{
		timeout "${timeout:-600}" "./selftests/$t" 2>&1
		echo $? >"$rcfile"
	} | sed 's/^/# /'
	rc=$(cat "$rcfile")
	case $rc in
	0) echo "ok $n selftests: hpcc: $t" ;;
	4) echo "ok $n selftests: hpcc: $t # SKIP" ;;
	124) failed=$((failed + 1))
	   echo "not ok $n selftests: hpcc: $t # TIMEOUT ${timeout}s" ;;
	*) failed=$((failed + 1))
	   echo "not ok $n selftests: hpcc: $t # exit=$rc" ;;
	esac
done
rm -f "$rcfile"
[ "$failed" -eq 0 ]
