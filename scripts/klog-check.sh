#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# klog-check.sh: find kernel reports (WARN, BUG, Oops, KASAN, UBSAN, lockdep,
# RCU stalls, hung tasks, SLUB corruption, panics, kmemleak leaks of
# tcp_hpcc) in a kernel log.
#
# usage: klog-check.sh [-C LINES] <LOG
#   LOG: dmesg output (with or without timestamps) or the contents of
#   /sys/kernel/debug/kmemleak.
#   -C   lines of context around each flagged line (default 5); a kmemleak
#        report is always printed whole.
# Prints the flagged lines like `grep -n -C` (NUMBER: flagged, NUMBER- context,
# -- between groups) and a count; exit 1 if anything was flagged, 0 if not,
# 2 on a usage error. POSIX sh + awk: runs under busybox in the test VM.

context=5
while [ $# -gt 0 ]; do
	case $1 in
	-C) context=${2:?}; shift 2 ;;
	-h | --help) sed -n '3,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "klog-check: unknown argument: $1" >&2; exit 2 ;;
	esac
done
case $context in
'' | *[!0-9]*) echo "klog-check: -C takes a number" >&2; exit 2 ;;
esac

exec awk -v context="$context" '
# The message without syslog level, timestamp, caller id or kmemleak prefix.
function text(s) {
	sub(/^<[0-9]+>/, "", s)
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "", s)
	sub(/^\[ *[CT][0-9]+\] /, "", s)
	sub(/^kmemleak: /, "", s)
	return s
}

# Kernel reports: each is a bug or a hang, never expected in a test run.
function is_report(s) {
	return s ~ /WARNING:/ ||		# WARN(), lockdep and RCU headers
		s ~ /BUG:/ ||			# KASAN, sleeping in atomic, soft lockup, ...
		s ~ /kernel BUG at/ ||
		s ~ /^BUG [^ ]+ \(.*\): / ||	# SLUB debug: redzone, poison, double free
		s ~ /(^|[^A-Za-z])Oops([^A-Za-z]|$)/ ||
		s ~ /general protection fault/ ||
		s ~ /KASAN:/ ||
		s ~ /UBSAN:/ ||
		s ~ /possible circular locking dependency/ ||
		s ~ /possible recursive locking/ ||
		s ~ /possible irq lock inversion/ ||
		s ~ /inconsistent lock state/ ||
		s ~ /suspicious RCU usage/ ||
		s ~ /bad unlock balance/ ||
		s ~ /lock held when returning/ ||
		s ~ /held lock freed/ ||
		s ~ /rcu: INFO: rcu_/ ||
		s ~ /self-detected stall/ ||
		s ~ /detected stalls on CPU/ ||
		s ~ /blocked for more than [0-9]+ seconds/ ||	# hung task
		s ~ /hard LOCKUP/ ||
		s ~ /still has objects/ ||	# kmem_cache_destroy() with live objects
		s ~ /Objects remaining in/ ||
		s ~ /Kernel panic/ ||
		s ~ /sleeping function called from invalid context/
}

{ line[NR] = $0; msg[NR] = text($0) }

END {
	n = 0
	for (i = 1; i <= NR; i++) {
		if (msg[i] ~ /^unreferenced object 0x/) {
			# A kmemleak report: the header and its indented lines.
			j = i
			while (j < NR && msg[j + 1] ~ /^[ \t]/)
				j++
			# Only leaks of tcp_hpcc count: the emulator slows scans
			# enough for in-flight kernel objects to look unreferenced,
			# and leaks elsewhere in the kernel are not ours to fix.
			# A frame printed as a bare address is code that has been
			# unloaded since (a module, or its init text after load):
			# in the test VM tcp_hpcc is the only module, and kmemleak
			# reports after the last test has unloaded it.
			ours = 0
			for (k = i; k <= j; k++)
				if (msg[k] ~ /tcp_hpcc/ || msg[k] ~ /\] 0x[0-9a-f]+$/)
					ours = 1
			if (ours) {
				n++
				for (k = i; k <= j; k++)
					show[k] = 1
				flag[i] = 1
			}
			i = j
			continue
		}
		if (is_report(msg[i])) {
			n++
			flag[i] = 1
			for (k = i - context; k <= i + context; k++)
				show[k] = 1
		}
	}
	last = -1
	for (i = 1; i <= NR; i++) {
		if (!(i in show))
			continue
		if (last >= 0 && i > last + 1)
			print "--"
		print i ((i in flag) ? ":" : "-") line[i]
		last = i
	}
	if (n) {
		print "klog-check: " n " kernel report(s)"
		exit 1
	}
	exit 0
}'
