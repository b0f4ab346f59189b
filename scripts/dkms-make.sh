#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# dkms-make.sh KVER KDIR - DKMS's MAKE for tcp_hpcc (dkms.conf): build
# tcp_hpcc.ko for kernel KVER (headers in KDIR) with its module BTF, in the
# current directory, and fail unless the .ko has .BTF and resolved .BTF_ids.
set -eu
[ $# -eq 2 ] || { echo "usage: dkms-make.sh KVER KDIR" >&2; exit 2; }
kver=$1 kdir=$2

if [ -s "$kdir/vmlinux" ]; then
	# Headers with vmlinux (Debian 6.12): kbuild runs pahole and its own
	# resolve_btfids (linux-kbuild-X.Y) after linking the module.
	echo "dkms-make.sh: $kver: module BTF by kbuild (headers ship vmlinux)"
	make -C "$kdir" M="$PWD" modules
else
	# Debian 6.1: the top Makefile's BTF step (scripts/kbtf.sh), which
	# needs /boot/vmlinuz-$kver and linux-source-X.Y; no vmlinux.h here.
	echo "dkms-make.sh: $kver: module BTF by the Makefile (/boot/vmlinuz-$kver, linux-source)"
	KBTF_NO_VMLINUX_H=1 make KVER="$kver" KDIR="$kdir" module
fi

ko=tcp_hpcc.ko
readelf -S --wide "$ko" | grep -q ' \.BTF ' ||
	{ echo "dkms-make.sh: ERROR: $ko has no .BTF section (is pahole installed?)" >&2; exit 1; }
objcopy -O binary --only-section=.BTF_ids "$ko" .btf_ids.bin
if ! od -An -tx1 -v .btf_ids.bin | grep -q '[1-9a-f]'; then
	rm -f .btf_ids.bin
	echo "dkms-make.sh: ERROR: $ko .BTF_ids missing or unresolved" >&2
	exit 1
fi
rm -f .btf_ids.bin
echo "dkms-make.sh: $ko for $kver has module BTF"
