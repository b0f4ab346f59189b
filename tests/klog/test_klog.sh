#!/usr/bin/env bash
# TAP tests of scripts/klog-check.sh, the kernel log gate of the VM tests:
# fixture logs (a clean boot that must pass, one sample of every report kind
# that must fail, kmemleak reports with and without tcp_hpcc; the "ptrval"
# one is the debug VM's report of a test module's leak from its init) and single
# lines, under this machine's awk and under busybox awk as in the VM.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh

scanner=scripts/klog-check.sh
fixtures=tests/klog/fixtures

# FIXTURE EXIT FLAGGED NOT_SHOWN: FLAGGED must be printed as a flagged line
# ("N:"), NOT_SHOWN must not be printed at all ("-": no such check).
cases=(
	"clean-boot.log            0 -                                          -"
	"warn.log                  1 WARNING:.CPU:.1.PID:.213                   -"
	"bug-null.log              1 BUG:.kernel.NULL.pointer.dereference       -"
	"bug-null.log              1 Oops:.0000                                 -"
	"kernel-bug-at.log         1 kernel.BUG.at.mm/slub.c                    -"
	"gpf.log                   1 general.protection.fault                   -"
	"gpf.log                   1 KASAN:.null-ptr-deref                      -"
	"kasan.log                 1 BUG:.KASAN:.use-after-free                 -"
	"ubsan.log                 1 UBSAN:.shift-out-of-bounds                 -"
	"lockdep-circular.log      1 possible.circular.locking                  -"
	"lockdep-recursive.log     1 possible.recursive.locking                 -"
	"lockdep-inconsistent.log  1 inconsistent.lock.state                    -"
	"rcu-suspicious.log        1 suspicious.RCU.usage                       -"
	"lockdep-unlock-balance.log 1 bad.unlock.balance                        -"
	"lockdep-held-return.log   1 lock.held.when.returning                   -"
	"rcu-stall.log             1 rcu:.INFO:.rcu_preempt.detected.stalls     -"
	"rcu-self-stall.log        1 self-detected.stall                        -"
	"slab-still-has-objects.log 1 Slab.cache.still.has.objects              -"
	"slab-still-has-objects.log 1 Objects.remaining.in.tcp_hpcc_flow        -"
	"slub-redzone.log          1 Right.Redzone.overwritten                  -"
	"panic.log                 1 Kernel.panic.-.not.syncing                 -"
	"sleeping.log              1 sleeping.function.called.from.invalid      -"
	"hung-task.log             1 blocked.for.more.than.300.seconds          -"
	"soft-lockup.log           1 BUG:.soft.lockup                           -"
	"kmemleak-hpcc.log         1 unreferenced.object.0xffff888006d2a900     -"
	"kmemleak-unloaded.log     1 unreferenced.object.0xffff888006d2a900     -"
	"kmemleak-ptrval.log       1 unreferenced.object.0xffff88807f706000     -"
	"kmemleak-other.log        0 -                                          -"
	"kmemleak-mixed.log        1 unreferenced.object.0xffff888006d2a900     acpi_ps_alloc_op"
	"kmemleak-dmesg.log        1 kmemleak:.unreferenced.object              -"
)
# Lines that alone must be flagged, and lines that must not.
flagged_lines=(
	"[    1.0] WARNING: CPU: 0 PID: 1 at kernel/foo.c:1 foo+0x1/0x2"
	"Oops - BUG: 0000 [#1] SMP"
	"[    9.1] NMI watchdog: Watchdog detected hard LOCKUP on cpu 1"
	"<3>[    2.0] BUG: scheduling while atomic: swapper/0/0/0x00000002"
)
clean_lines=(
	"[    0.0] rcu: 	RCU lockdep checking is enabled."
	"[    0.0] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar"
	"[    5.9] kmemleak: 3 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"
	"[   15.6] tcp_hpcc: eta=5 refused: allowed 500..1000 (per mille)"
	"[    0.0] PM: hibernation: Registered nosave memory: [mem 0x00000000-0x00000fff]"
	"[    0.0] x86/fpu: Supporting XSAVE feature 0x001: 'x87 floating point registers'"
	"[    3.1] Oopsie-free boot, DEBUG enabled"
)

awks=(system)
if command -v busybox >/dev/null && busybox awk 'BEGIN { exit 0 }' 2>/dev/null; then
	awks+=(busybox)
fi
bbdir=$(mktemp -d)
trap 'rm -rf "$bbdir"' EXIT
ln -s "$(command -v busybox 2>/dev/null || echo /nonexistent)" "$bbdir/awk"

planned=$(((${#cases[@]} + ${#flagged_lines[@]} + ${#clean_lines[@]}) * 2 + 2))
echo "TAP version 13"
tap_plan $planned

# scan AWK: the scanner with `awk` from the system or from busybox.
scan() {
	if [[ $1 == busybox ]]; then
		PATH=$bbdir:$PATH "$scanner" "${@:2}"
	else
		"$scanner" "${@:2}"
	fi
}
have_awk() { [[ " ${awks[*]} " == *" $1 "* ]]; }

for a in system busybox; do
	for c in "${cases[@]}"; do
		read -r file want flagged hidden <<<"$c"
		desc="$a awk: $file exits $want${flagged/#-/}"
		have_awk "$a" || { tap_skip "$desc" "busybox not installed"; continue; }
		rc=0
		out=$(scan "$a" <"$fixtures/$file") || rc=$?
		why=
		((rc == want)) || why="exit $rc"
		# The patterns use "." for a space so they fit one word of the table.
		if [[ $flagged != - ]] && ! grep -qE "^[0-9]+:.*$flagged" <<<"$out"; then
			why+=" no flagged line matching '$flagged'"
		fi
		if [[ $hidden != - ]] && grep -q "$hidden" <<<"$out"; then
			why+=" printed '$hidden'"
		fi
		if [[ -z $why ]]; then tap_result 0 "$desc"; else
			tap_result 1 "$desc:$why"
			sed 's/^/# /' <<<"$out"
		fi
	done
	for l in "${flagged_lines[@]}"; do
		have_awk "$a" || { tap_skip "$a awk: flags '$l'" "busybox not installed"; continue; }
		if out=$(scan "$a" <<<"$l"); then tap_result 1 "$a awk: flags '$l'"; else
			tap_result 0 "$a awk: flags '$l'"
		fi
	done
	for l in "${clean_lines[@]}"; do
		have_awk "$a" || { tap_skip "$a awk: passes '$l'" "busybox not installed"; continue; }
		if out=$(scan "$a" <<<"$l"); then tap_result 0 "$a awk: passes '$l'"; else
			tap_result 1 "$a awk: passes '$l'"
			sed 's/^/# /' <<<"$out"
		fi
	done
done

# Context: -C 0 prints the flagged line only; -C 2 two lines either side.
out=$(scan system -C 0 <"$fixtures/warn.log") || true
if [[ $(grep -vc '^klog-check:' <<<"$out") == 1 ]]; then tap_result 0 "-C 0 prints only the flagged line"; else
	tap_result 1 "-C 0 prints only the flagged line"; sed 's/^/# /' <<<"$out"
fi
rc=0
scan system --bogus </dev/null >/dev/null 2>&1 || rc=$?
if ((rc == 2)); then tap_result 0 "an unknown option exits 2"; else tap_result 1 "an unknown option exits 2 (got $rc)"; fi
tap_done
