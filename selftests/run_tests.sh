#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kselftest-style runner: runs TEST_PROGS (or the tests named) in order,
# each under the timeout from ./settings, nesting its TAP output behind
# "# ". Exit status 4 from a test is a skip. Exits 0 when nothing failed.
#
# Kernel log gate: the kernel messages a test produced (since a mark the
# runner writes to /dev/kmsg) go through klog-check.sh (scripts/, installed
# in the VM as /usr/bin/klog-check.sh); a report there (WARN, KASAN,
# lockdep, ...) fails the test, and is one more nested assertion after the
# test's own. On a kernel with kmemleak, a final scan for leaks of tcp_hpcc
# is one more top-level result.
cd "$(dirname "$0")/.." || exit 1
timeout=$(sed -n 's/^timeout=//p' selftests/settings)
# the debug kernel (vm-init.sh exports HPCC_DEBUG_KERNEL=1) loads a BPF
# object in minutes under TCG: three times the time there
[ "${HPCC_DEBUG_KERNEL:-0}" = 1 ] && timeout=$((${timeout:-600} * 3))
progs=${*:-$(sed -n 's/^TEST_PROGS := //p' selftests/Makefile)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

klog_check=$(command -v klog-check.sh) || klog_check=./scripts/klog-check.sh
[ -x "$klog_check" ] || klog_check=
kmemleak=/sys/kernel/debug/kmemleak
[ -w $kmemleak ] || kmemleak=

# The kernel log after the line ending in MARK (all of it if the ring
# buffer has wrapped past the mark).
log_since() {
	dmesg | awk -v m="$1" '
		{ line[NR] = $0 }
		substr($0, length($0) - length(m) + 1) == m { start = NR }
		END { for (i = start + 1; i <= NR; i++) print line[i] }'
}

set -- $progs
plan=$#
[ -z "$kmemleak" ] || plan=$((plan + 1))
echo "TAP version 13"
echo "1..$plan"
if [ -z "$klog_check" ]; then
	echo "# kernel log gate off: klog-check.sh not found"
elif ! dmesg | "$klog_check" >"$tmp/boot"; then
	# Not counted: the boot is not ours; but lockdep, for one, turns
	# itself off after its first report and then checks nothing.
	echo "# kernel reports before the first test (not counted):"
	sed 's/^/# /' "$tmp/boot"
fi
for t; do
	n=$((n + 1))
	echo "# selftests: hpcc: $t"
	mark="hpcc-gate: $$ begin $n $t"
	echo "$mark" >/dev/kmsg 2>/dev/null
	started=$(cut -d. -f1 /proc/uptime)
	{
		timeout "${timeout:-600}" "./selftests/$t" 2>&1
		echo $? >"$tmp/rc"
	} | tee "$tmp/out" | sed 's/^/# /'
	rc=$(cat "$tmp/rc")
	echo "# $t took $(($(cut -d. -f1 /proc/uptime) - started)) s"

	klog=ok note=
	if [ -n "$klog_check" ]; then
		# Numbered after the test's own assertions (its plan).
		sub=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$tmp/out" | tail -n1)
		[ -n "$sub" ] || sub=$(grep -cE '^(not )?ok [0-9]+' "$tmp/out")
		sub=$((sub + 1))
		if log_since "$mark" | "$klog_check" >"$tmp/klog"; then
			echo "# ok $sub - kernel log clean during $t"
		else
			klog=bad note=", kernel log"
			echo "# not ok $sub - kernel log clean during $t"
			sed 's/^/# /' "$tmp/klog"
		fi
	fi

	case $rc/$klog in
	0/ok) echo "ok $n selftests: hpcc: $t" ;;
	4/ok) echo "ok $n selftests: hpcc: $t # SKIP" ;;
	124/*) failed=$((failed + 1))
	   echo "not ok $n selftests: hpcc: $t # TIMEOUT ${timeout}s$note" ;;
	0/bad | 4/bad) failed=$((failed + 1))
	   echo "not ok $n selftests: hpcc: $t # kernel log" ;;
	*) failed=$((failed + 1))
	   echo "not ok $n selftests: hpcc: $t # exit=$rc$note" ;;
	esac
done

if [ -n "$kmemleak" ]; then
	n=$((n + 1))
	# kmemleak reports an object only once it is 5 s old and its checksum
	# held still between two scans (changing objects are in use), so:
	# scan, let the last test's objects age, scan again, read.
	if echo scan >$kmemleak && sleep 5 && echo scan >$kmemleak; then
		leaks=$(grep -c '^unreferenced object' $kmemleak)
		if [ -z "$klog_check" ]; then
			echo "ok $n kmemleak: $leaks unreferenced objects # SKIP klog-check.sh not found"
		elif "$klog_check" <$kmemleak >"$tmp/leaks"; then
			echo "ok $n kmemleak: no leak of tcp_hpcc ($leaks unreferenced objects elsewhere)"
		else
			failed=$((failed + 1))
			echo "not ok $n kmemleak: leaks of tcp_hpcc (or of code unloaded since)"
			sed 's/^/# /' "$tmp/leaks"
		fi
	else
		# kmemleak turns itself off on an internal error (see dmesg).
		failed=$((failed + 1))
		echo "not ok $n kmemleak: scan refused: $(dmesg | grep 'kmemleak:' | tail -n1)"
	fi
fi
[ "$failed" -eq 0 ]
