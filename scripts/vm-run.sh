#!/usr/bin/env bash
# Run a command as root inside a throw-away qemu VM booting Debian's 6.1
# kernel (or the debug kernel of scripts/debug-kernel.sh) with a busybox
# initramfs (the host kernel cannot load modules).
#
# usage: scripts/vm-run.sh [--kver KVER | --kernel debug | --kimage PATH
#            [--kver KVER] [--moddir DIR]] [--mem MB] [--timeout SEC]
#            [--tcg-single] [--include SRC[:DST]]... [--module NAME]...
#            -- COMMAND [ARGS...]
#   --kver     guest kernel (default: newest /boot/vmlinuz-6.1.*)
#   --kernel   debug: the cached debug kernel (KASAN, lockdep, kmemleak);
#              build it first with scripts/debug-kernel.sh
#   --kimage   boot this bzImage (its version from the image or --kver;
#              modules from --moddir, default /lib/modules/KVER)
#   --mem      guest RAM in MB (default 2048)
#   --timeout  kill the VM after SEC seconds (default 900) -> exit 124
#   --tcg-single  under TCG, one host thread runs both vCPUs in turn
#              (-accel tcg,thread=single) instead of one thread each:
#              Debian's 6.12 under multi-threaded TCG (qemu 7.2) dies of
#              "Oops: int3" when a static key flips while the other vCPU
#              runs the patched code (no tcp_hpcc needed: toggling a
#              tracepoint in tracefs does it); its guests need this
#   --include  copy file/dir SRC to /hpcc/DST in the guest (DST: basename)
#   --module   ship and load one more module from the guest kernel's tree
# COMMAND runs in /hpcc with stdin from /dev/null; the guest console is
# streamed to stdout. Exit status: COMMAND's, 124 on timeout, 125 if the
# guest died before reporting one (e.g. kernel panic).
# Env: VM_ACCEL=tcg|kvm skips KVM detection (default: kvm only if a probe
# boot with it succeeds; the verdict is cached in ~/.cache/tcp_hpcc/; a
# guest that KVM stops with "KVM internal error" runs again under TCG).
#      VM_APPEND="..." adds kernel parameters (e.g. loglevel=7 to see WARNs).
# Under TCG the guest gets longer RCU stall, soft lockup and hung task
# timeouts: emulation, more so of the debug kernel, is many times slower
# than the hardware those defaults were chosen for.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "vm-run: $*" >&2; exit 125; }

kver= kernel_kind=stock kimage= moddir= mem=2048 timeout=900 mk_args=() tcg=tcg
while (($#)); do
	case $1 in
	--kver) kver=${2:?}; shift 2 ;;
	--kernel) kernel_kind=${2:?}; shift 2 ;;
	--kimage) kimage=${2:?}; shift 2 ;;
	--moddir) moddir=${2:?}; shift 2 ;;
	--mem) mem=${2:?}; shift 2 ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	--tcg-single) tcg=tcg,thread=single; shift ;;
	--include | --module) mk_args+=("$1" "${2:?}"); shift 2 ;;
	--) shift; break ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1 (COMMAND goes after --)" ;;
	esac
done
(($#)) || die "no COMMAND (usage: $0 [options] -- COMMAND [ARGS...])"
[[ $mem =~ ^[0-9]+$ && $timeout =~ ^[0-9]+$ ]] || die "--mem/--timeout take integers"

# The version a bzImage announces in its header (kernel_version field).
bzimage_release() {
	local off
	[[ $(dd if="$1" bs=1 skip=$((0x202)) count=4 status=none) == HdrS ]] || return 1
	off=$(od -An -tu2 -j$((0x20e)) -N2 "$1" | tr -d ' ')
	dd if="$1" bs=1 skip=$((off + 0x200)) count=256 status=none | tr '\0' '\n' |
		head -n1 | cut -d' ' -f1
}

# kernel: what qemu boots; kconfig: its .config if known (for PVH).
kconfig=
case $kernel_kind in
stock)
	if [[ -n $kimage ]]; then
		kernel=$kimage
		[[ -r $kernel ]] || die "$kernel not readable"
		[[ -n $kver ]] || kver=$(bzimage_release "$kernel") ||
			die "cannot read the version of $kernel: give --kver"
	else
		if [[ -z $kver ]]; then
			kimg=$(ls -1 /boot/vmlinuz-6.1.* 2>/dev/null | sort -V | tail -n1) || true
			[[ -n $kimg ]] || die "no /boot/vmlinuz-6.1.* (apt-get install linux-image-amd64)"
			kver=${kimg#/boot/vmlinuz-}
		fi
		kernel=/boot/vmlinuz-$kver
		[[ -r $kernel ]] || die "$kernel not readable"
	fi
	kconfig=/boot/config-$kver
	;;
debug)
	[[ -z $kimage && -z $kver && -z $moddir ]] || die "--kernel debug takes no --kimage/--kver/--moddir"
	dkdir=$("$here/debug-kernel.sh" --dir) || die "no debug kernel (build it: scripts/debug-kernel.sh)"
	kver=$(cat "$dkdir/kernel.release")
	kernel=$dkdir/bzImage kconfig=$dkdir/config
	moddir=$dkdir/modules/lib/modules/$kver
	;;
*) die "--kernel takes debug or stock, not $kernel_kind" ;;
esac
mk_args+=(--kver "$kver")
[[ -z $moddir ]] || mk_args+=(--moddir "$moddir")
qemu=$(command -v qemu-system-x86_64) || die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vm-run.XXXXXX")
qpid=
cleanup() {
	# Stop qemu (via its `timeout` wrapper, which forwards the signal).
	if [[ -n $qpid ]] && kill -0 "$qpid" 2>/dev/null; then
		kill -TERM "$qpid" 2>/dev/null || true
	fi
	wait 2>/dev/null || true   # qemu, the console reader, the extractor
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# COMMAND as a shell script with every word single-quoted, so any argv
# survives the trip into the guest unchanged.
{
	printf 'exec'
	for a in "$@"; do printf " '%s'" "${a//\'/\'\\\'\'}"; done
	printf '\n'
} >"$tmp/cmd"
# Random marker: the command's own output cannot fake an exit status.
marker="@@vm-run-exit-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')@@"
echo "$marker" >"$tmp/marker"

# Boot the uncompressed ELF vmlinux via its PVH entry when we can: under TCG
# that skips SeaBIOS's real-mode boot path and the in-guest xz decompressor
# (about 3 s of a 6-7 s boot). Falls back to the bzImage otherwise.
extract_vmlinux() {
	local setup off len
	grep -qx 'CONFIG_PVH=y' "$kconfig" 2>/dev/null || return 1
	[[ $(dd if="$kernel" bs=1 skip=$((0x202)) count=4 status=none) == HdrS ]] || return 1
	# bzImage header: setup_sects, then payload offset/length past the setup.
	setup=$(od -An -tu1 -j$((0x1f1)) -N1 "$kernel" | tr -d ' ')
	((setup)) || setup=4
	off=$(od -An -tu4 -j$((0x248)) -N4 "$kernel" | tr -d ' ')
	len=$(od -An -tu4 -j$((0x24c)) -N4 "$kernel" | tr -d ' ')
	# Debian compresses with xz; the payload ends with a 4-byte size that
	# --single-stream ignores. Other formats: use the bzImage.
	dd if="$kernel" bs=1M iflag=skip_bytes,count_bytes status=none \
		skip=$(((setup + 1) * 512 + off)) count="$len" |
		xz -dc --single-stream >"$tmp/vmlinux" 2>/dev/null || return 1
	[[ $(head -c4 "$tmp/vmlinux") == $'\x7fELF' ]]
}
extract_vmlinux &
xpid=$!
"$here/mkinitramfs.sh" -o "$tmp/initramfs.cpio" \
	--file "$tmp/cmd:/etc/vmrun/cmd" --file "$tmp/marker:/etc/vmrun/marker" \
	${mk_args[@]+"${mk_args[@]}"} || die "initramfs build failed"
if wait "$xpid"; then kernel=$tmp/vmlinux; fi

append="console=ttyS0 quiet panic=-1 oops=panic"
# -nodefaults/-display none: no VGA, NIC or monitor to emulate; only ttyS0
# on stdio. stdin is /dev/null and stdout a pipe, so qemu never touches the
# terminal (it would set raw mode / O_NONBLOCK on a tty).
qemu_args=(-nodefaults -no-user-config -display none -serial stdio
	-m "$mem" -smp 2 -no-reboot -kernel "$kernel" -initrd "$tmp/initramfs.cpio")

# The marker line -> its rc, or nothing.
marker_rc() { tr -d '\r' <"$1" | sed -n "s/^$marker rc=\([0-9]\{1,3\}\)\$/\1/p" | tail -n1; }

# Wait for qemu (pid $1, output in $2); its exit status, or 199 after
# killing it when KVM stopped the guest on an instruction it cannot
# emulate (qemu then pauses the guest forever instead of exiting).
watch_kvm() {
	while kill -0 "$1" 2>/dev/null; do
		if grep -q 'KVM internal error' "$2" 2>/dev/null; then
			kill -TERM "$1" 2>/dev/null || true  # timeout forwards it
			wait "$1" 2>/dev/null || true
			return 199
		fi
		sleep 1
	done
	wait "$1"
}

# KVM only where a guest really boots with it (here: -cpu host aborts on an
# MSR, other models hang), so probe once per host/qemu/kernel and cache.
pick_accel() {
	if [[ -n ${VM_ACCEL:-} ]]; then echo "$VM_ACCEL"; return; fi
	if ! [[ -r /dev/kvm && -w /dev/kvm ]]; then echo tcg; return; fi
	local cache=${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/tcp_hpcc/kvm-verdict key verdict=tcg
	key="$(uname -r)|$("$qemu" --version | head -n1)|$kver|$(grep -m1 '^model name' /proc/cpuinfo | tr '\t' ' ')"
	# one line per key, "KEY<tab>VERDICT" (so no tab in KEY): the stock,
	# 6.12 and debug kernels alternate in one make check
	if [[ -f $cache ]]; then
		verdict=$(awk -F '\t' -v k="$key" '$1 == k { v = $2 } END { print v }' "$cache")
		if [[ $verdict == kvm || $verdict == tcg ]]; then echo "$verdict"; return; fi
		verdict=tcg
	fi
	echo "vm-run: probing KVM (once; cached in $cache)" >&2
	local rc=0
	timeout -k 5 30 "$qemu" "${qemu_args[@]}" -accel kvm -cpu host \
		-append "$append vmrun.probe=1" </dev/null >"$tmp/probe.log" 2>&1 &
	qpid=$!
	watch_kvm "$qpid" "$tmp/probe.log" || rc=$?
	qpid=
	if [[ $(marker_rc "$tmp/probe.log") == 0 ]]; then
		verdict=kvm
	elif [[ $rc == 124 || $rc == 137 || $rc == 199 ]]; then
		# Out of time or an emulation failure is no verdict: a busy host
		# (other VMs, builds), a slow-booting debug kernel, or a host
		# hypervisor that fails now and then (kvm-pvm: "KVM internal
		# error"); a cached "tcg" would run every later suite under the
		# emulator, several times slower.
		echo "vm-run: the KVM probe did not boot (rc $rc): tcg this once" >&2
		echo tcg
		return
	fi
	# Best effort (read-only HOME in CI is fine); rename so that concurrent
	# runs never read a half-written file.
	{ mkdir -p "$(dirname "$cache")" &&
		{ awk -F '\t' -v k="$key" 'NF == 2 && $1 != k' "$cache" 2>/dev/null
		  printf '%s\t%s\n' "$key" "$verdict"; } >"$cache.$$" &&
		mv -f "$cache.$$" "$cache"; } 2>/dev/null || rm -f "$cache.$$" 2>/dev/null || true
	echo "$verdict"
}
accel=$(pick_accel)
tcg_append=
# RCU stall after 300 s (the most it takes), soft lockup after 120 s, hung
# task after 300 s: reports of real hangs, not of a slow emulator.
tcg_append+=" rcupdate.rcu_cpu_stall_timeout=300 watchdog_thresh=60"
tcg_append+=" sysctl.kernel.hung_task_timeout_secs=300"
# Multi-threaded TCG (qemu 7.2) mis-executes a static key's patch site that
# the other vCPU runs while the key flips: 6.12 "Oops: int3", and on 6.1 a
# soft lockup of both vCPUs in the qdisc path once (hpcc_faults.sh's
# mid-flow switch detach); a CI run's VM died once mid-test without a
# report we could read. Under TCG, vm-init.sh therefore keeps the keys and
# static calls that the tests would flip (tracepoints of the switch
# program, tc ingress/egress) unchanged for the whole run.
tcg_append+=" vmrun.pinkeys=1"
# No CMPXCHG16B under TCG: qemu 7.2 computes the flags of its helper from
# a stale cc_op, so RFLAGS after it can hold the low 32 bits of an unrelated
# register (reserved bits and DF set; a user-space loop of add, load, xor,
# cmpxchg16b, pushf shows it 100000 times in 100000, hardware never). SLUB's
# per-CPU fast path runs exactly that sequence: an interrupt landing just
# after it saves the bad flags and IRET restores them, DF=1 included, and
# the kernel's string operations then run backwards. A CI run of 6.12 died
# of it (EFLAGS 3fba9e42 = the slab object | IF | ZF, in kmalloc). Without
# the feature the kernel uses its own emulation of the instruction.
tcg_cpu=qemu64,-cx16
[[ $accel == kvm || $accel == tcg ]] || die "VM_ACCEL must be tcg or kvm, not $accel"
append+=${VM_APPEND:+ $VM_APPEND}

# boot ACCEL: run the guest, console streamed live (minus serial CRs) and
# kept in $tmp/console.log; sets qrc. tee -p keeps logging even if our
# reader goes away (`vm-run.sh ... | head`).
boot() {
	local args=("${qemu_args[@]}") app=$append
	if [[ $1 == kvm ]]; then
		args+=(-accel kvm -cpu host)
	else
		args+=(-accel "$tcg" -cpu "$tcg_cpu")
		app+=$tcg_append
	fi
	rm -f "$tmp/console"
	mkfifo "$tmp/console"
	sed -u 's/\r//g' <"$tmp/console" | tee -p "$tmp/console.log" &
	reader=$!
	timeout -k 10 "$timeout" "$qemu" "${args[@]}" -append "$app" \
		</dev/null >"$tmp/console" 2>&1 &
	qpid=$!
	qrc=0
	if [[ $1 == kvm ]]; then
		watch_kvm "$qpid" "$tmp/console.log" || qrc=$?
	else
		wait "$qpid" || qrc=$?
	fi
	qpid=
	wait "$reader" || true
}

boot "$accel"
if [[ $accel == kvm && $qrc == 199 ]]; then
	# The probe booted, but the host's KVM failed later in the run.
	echo "vm-run: KVM stopped the guest (internal error): again under TCG" >&2
	boot tcg
fi

rc=$(marker_rc "$tmp/console.log")
if [[ -n $rc ]]; then
	exit "$rc"
elif ((qrc == 124 || qrc == 137)); then
	echo "vm-run: timed out after ${timeout}s" >&2
	exit 124
else
	echo "vm-run: guest ended without reporting an exit status (qemu rc=$qrc)" >&2
	exit 125
fi
