#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# btf-id.sh - name a vmlinux BTF by its SHA-256, the base tcp_hpcc's module
# BTF is split against (module BTF only fits the kernel build whose BTF it
# was made on). Kbuild records the one a build used in the module's modinfo
# (btfbase=); the tcp-hpcc-dkms kernel hook compares it with what a build
# would use now (scripts/dkms-kernel-hook.sh).
#
#   btf-id.sh FILE              the BTF in FILE: an ELF's .BTF section, or
#                               raw BTF (/sys/kernel/btf/vmlinux)
#   btf-id.sh -k KVER [KDIR]    the BTF a module build for kernel KVER would
#                               split against now: KDIR/vmlinux where the
#                               headers ship it (Debian's 6.12; KDIR default
#                               /lib/modules/KVER/build), else the vmlinux in
#                               /boot/vmlinuz-KVER (scripts/kbtf.sh, 6.1)
# Prints the hex digest; exit 1 with a message if there is no BTF.
set -eu
me=btf-id.sh
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "$me: $*" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/btf-id.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

btf_id() {
	[ -r "$1" ] || die "cannot read $1"
	if [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
		objcopy --dump-section .BTF="$tmp/btf" "$1" "$tmp/elf" 2>/dev/null &&
			[ -s "$tmp/btf" ] || die "$1 has no .BTF section"
		set -- "$tmp/btf"
	fi
	# struct btf_header starts with the magic 0xeB9F (little-endian here)
	[ "$(head -c 2 "$1" | od -An -tx1 | tr -d ' ')" = 9feb ] || die "no BTF in $1"
	sha256sum <"$1" | cut -d' ' -f1
}

case ${1:-} in
-k)
	[ $# -ge 2 ] && [ $# -le 3 ] || die "usage: $me -k KVER [KDIR]"
	kdir=${3:-/lib/modules/$2/build}
	if [ -s "$kdir/vmlinux" ]; then
		btf_id "$kdir/vmlinux"
	else
		KBTF_VMLINUX_ONLY=1 "$here/kbtf.sh" "$2" "$tmp/kbtf" >&2 ||
			die "no vmlinux BTF for $2"
		btf_id "$tmp/kbtf/vmlinux"
	fi
	;;
-* | '') die "usage: $me FILE | $me -k KVER [KDIR]" ;;
*)
	[ $# -eq 1 ] || die "usage: $me FILE | $me -k KVER [KDIR]"
	btf_id "$1"
	;;
esac
