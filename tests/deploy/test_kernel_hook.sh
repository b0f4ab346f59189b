#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Kernel updates that keep the ABI name: scripts/btf-id.sh (which vmlinux
# BTF a module was made on, which one a build would use now), the btfbase
# the build records in tcp_hpcc.ko, and the tcp-hpcc-dkms kernel hook
# (scripts/dkms-kernel-hook.sh) against a fake dkms and module tree.
# Needs no root; the checks on this machine's kernels and modules skip
# when those are not installed or built.
# Prints TAP, ends with "# N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
ID=$TOP/scripts/btf-id.sh
HOOK=$TOP/scripts/dkms-kernel-hook.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. tests/lib/tap.sh
# tap OK(0/1) DESCRIPTION: on failure, the last run's status and output
tap() { tap_ran "$@"; }
run() { tap_run "$@"; }
has() { tap_has "$1"; }

# Stand-ins for vmlinux BTF: a BTF header (magic 0xeB9F, version 1,
# hdr_len 24) and a distinguishing tail; raw, and as an ELF's .BTF.
fake_btf() {	# fake_btf FILE TAIL
	printf '\x9f\xeb\x01\x00\x18\x00\x00\x00%s' "$2" >"$1"
}
as_elf() {	# as_elf RAW ELF
	objcopy -I binary -O elf64-x86-64 --rename-section .data=.BTF "$1" "$2"
}
# A module with just a .modinfo (modinfo reads it like a real one).
fake_ko() {	# fake_ko FILE [BTFBASE]
	printf 'license=GPL\0%s' "${2:+btfbase=$2}" >"$tmp/modinfo" &&
		{ [ -z "${2:-}" ] || printf '\0' >>"$tmp/modinfo"; } &&
		objcopy -I binary -O elf64-x86-64 --rename-section .data=.modinfo \
			"$tmp/modinfo" "$1"
}

# ---------------------------------------------------------------- btf-id.sh
fake_btf "$tmp/a.btf" old-build
fake_btf "$tmp/b.btf" new-build
as_elf "$tmp/a.btf" "$tmp/a.elf"
as_elf "$tmp/b.btf" "$tmp/b.elf"
run "$ID" "$tmp/a.btf"; a=$out
[ $rc -eq 0 ] && [ ${#a} -eq 64 ]; tap $? "btf-id.sh: raw BTF named by a SHA-256"
run "$ID" "$tmp/a.elf"; [ $rc -eq 0 ] && [ "$out" = "$a" ]
tap $? "btf-id.sh: the same BTF as an ELF's .BTF section has the same name"
run "$ID" "$tmp/b.btf"; b=$out; [ $rc -eq 0 ] && [ "$b" != "$a" ]
tap $? "btf-id.sh: another build's BTF has another name"
run "$ID" "$TOP/Makefile"; [ $rc -eq 1 ] && has 'no BTF in'
tap $? "btf-id.sh: a file without BTF is an error"
objcopy -I binary -O elf64-x86-64 "$tmp/a.btf" "$tmp/nobtf.elf"
run "$ID" "$tmp/nobtf.elf"; [ $rc -eq 1 ] && has 'no \.BTF section'
tap $? "btf-id.sh: an ELF without .BTF is an error"
mkdir -p "$tmp/kdir"
cp "$tmp/a.elf" "$tmp/kdir/vmlinux"
run "$ID" -k 6.12.0-test "$tmp/kdir"; [ $rc -eq 0 ] && [ "$out" = "$a" ]
tap $? "btf-id.sh -k: headers that ship vmlinux are the base"
run "$ID" -k; [ $rc -eq 1 ] && has usage; tap $? "btf-id.sh -k without KVER: usage"

# This machine's kernels: the base a build would use is the BTF of the
# installed image (6.12's headers' vmlinux is the same BTF as its image).
k612=$(printf '%s\n' /usr/src/linux-headers-6.12.*-amd64 | sed 's|.*/linux-headers-||' |
	sort -V | tail -n1)
if [ -s "/usr/src/linux-headers-$k612/vmlinux" ] && [ -r "/boot/vmlinuz-$k612" ]; then
	run "$ID" -k "$k612" "/usr/src/linux-headers-$k612"; h=$out
	run "$ID" -k "$k612" "$tmp/nonexistent"
	[ $rc -eq 0 ] && [ ${#h} -eq 64 ] && [ "$out" = "$h" ]
	tap $? "$k612: the headers' vmlinux has the BTF of /boot/vmlinuz-$k612"
else
	tap_skip "6.12: the headers' vmlinux has the image's BTF" "no 6.12 headers and image"
fi
# The modules built here record the base they were made on.
checked=0
for ko in "$TOP/tcp_hpcc.ko" "$TOP"/build/6.*/tcp_hpcc.ko; do
	[ -e "$ko" ] || continue
	kver=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
	[ -r "/boot/vmlinuz-$kver" ] || continue
	have=$(modinfo -F btfbase "$ko")
	run "$ID" -k "$kver"
	[ $rc -eq 0 ] && [ "$have" = "$out" ]
	tap $? "${ko#"$TOP"/}: btfbase is the BTF of $kver's image"
	checked=1
done
[ $checked = 1 ] || tap_skip "built modules record their BTF base" "no tcp_hpcc.ko built (make module)"
# make check-quick builds no 6.12 module; the full check does
[ -r "/boot/vmlinuz-$k612" ] && [ ! -e "$TOP/build/$k612/tcp_hpcc.ko" ] &&
	tap_skip "build/$k612/tcp_hpcc.ko: btfbase is the BTF of $k612's image" \
		"not built (the full make check builds it)"

# ---------------------------------------------------------------- the hook
# A fake dkms: "status" from $tmp/dkms.status, every call logged, "build"
# fails when $tmp/dkms.fail exists.
K=6.1.0-99-amd64
mkdir -p "$tmp/bin" "$tmp/mods/$K/updates/dkms" "$tmp/src/tcp-hpcc-1.2/scripts"
cat >"$tmp/bin/dkms" <<EOF
#!/bin/sh
echo "dkms \$*" >>"$tmp/dkms.log"
case \$1 in
status) cat "$tmp/dkms.status" ;;
build) [ ! -e "$tmp/dkms.fail" ] ;;
esac
EOF
chmod +x "$tmp/bin/dkms"
ln -s "$ID" "$tmp/src/tcp-hpcc-1.2/scripts/btf-id.sh"
ln -s "$TOP/scripts/kbtf.sh" "$tmp/src/tcp-hpcc-1.2/scripts/kbtf.sh"
mkdir -p "$tmp/mods/$K/build"
ko=$tmp/mods/$K/updates/dkms/tcp_hpcc.ko
hook() {
	: >"$tmp/dkms.log"
	run env DKMS="$tmp/bin/dkms" HPCC_MODULES="$tmp/mods" HPCC_SRC="$tmp/src" \
		"$HOOK" "$@"
	log=$(cat "$tmp/dkms.log")
}
rebuilt() {
	grep -qx "dkms build -m tcp-hpcc -v 1.2 -k $K --force" <<<"$log" &&
		grep -qx "dkms install -m tcp-hpcc -v 1.2 -k $K --force" <<<"$log"
}

echo "tcp-hpcc/1.2, $K, x86_64: installed" >"$tmp/dkms.status"
cp "$tmp/a.elf" "$tmp/mods/$K/build/vmlinux"
fake_ko "$ko" "$a"
hook "$K" "/boot/vmlinuz-$K"
[ $rc -eq 0 ] && [ -z "$out" ] && ! rebuilt
tap $? "hook: the module was made on the kernel's BTF: nothing rebuilt, nothing said"

cp "$tmp/b.elf" "$tmp/mods/$K/build/vmlinux"
hook "$K" "/boot/vmlinuz-$K"
[ $rc -eq 0 ] && rebuilt && has "$K: the kernel's BTF changed .*rebuilding tcp-hpcc/1.2"
tap $? "hook: same ABI name, other BTF: dkms build --force and install --force"

fake_ko "$ko"
hook "$K"
[ $rc -eq 0 ] && rebuilt; tap $? "hook: a module without btfbase is rebuilt"

fake_ko "$ko" "$a"
cp "$tmp/mods/$K/updates/dkms/tcp_hpcc.ko" "$tmp/ko" && rm "$ko" &&
	xz -c "$tmp/ko" >"$ko.xz"
hook "$K"
[ $rc -eq 0 ] && rebuilt; tap $? "hook: a compressed module (6.12's .ko.xz) is read too"
rm -f "$ko.xz"
fake_ko "$ko" "$a"

touch "$tmp/dkms.fail"
hook "$K"
[ $rc -eq 0 ] && has 'rebuilding tcp-hpcc/1.2 failed' &&
	! grep -q 'dkms install' <<<"$log"
tap $? "hook: a failed rebuild is reported, not fatal to the kernel update"
rm -f "$tmp/dkms.fail"

echo "tcp-hpcc/1.2, $K, x86_64: built" >"$tmp/dkms.status"
hook "$K"
[ $rc -eq 0 ] && ! rebuilt; tap $? "hook: built but not installed for KVER: left to DKMS"
echo "other/3.0, $K, x86_64: installed" >"$tmp/dkms.status"
hook "$K"
[ $rc -eq 0 ] && ! rebuilt; tap $? "hook: only tcp-hpcc is looked at"
: >"$tmp/dkms.status"
hook "$K"
[ $rc -eq 0 ] && ! rebuilt; tap $? "hook: tcp-hpcc not in DKMS (removed, hook kept): nothing"
run env DKMS="$tmp/nonexistent" "$HOOK" "$K"
[ $rc -eq 0 ] && [ -z "$out" ]; tap $? "hook: no dkms: exit 0 quietly"
run env DKMS="$tmp/bin/dkms" "$HOOK"
[ $rc -eq 0 ]; tap $? "hook: no KVER: exit 0"

tap_done
