#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The tcp-hpcc-dkms kernel hook, installed as /etc/kernel/postinst.d/tcp-hpcc
# and /etc/kernel/header_postinst.d/tcp-hpcc: rebuild tcp_hpcc with DKMS
# when an update of kernel KVER kept its ABI name but changed its BTF.
#
# Module BTF is split BTF on the vmlinux BTF of the kernel build it was made
# for. A Debian kernel update that keeps the ABI name (the same
# /lib/modules/KVER) may change that BTF; DKMS's own hook, run before this
# one, finds tcp_hpcc already built for KVER and skips it, and the new
# kernel would reject the module's BTF (tcp_hpcc then refuses to load). So
# for the tcp-hpcc version DKMS has installed for KVER, this compares the
# BTF the installed module was made on (its modinfo btfbase,
# scripts/btf-id.sh) with the one a build would use now, and rebuilds and
# reinstalls the module where they differ. The image's hook sees a new 6.1
# image (its BTF comes from /boot/vmlinuz-KVER); the headers' hook sees new
# 6.12 headers (their vmlinux), which may be unpacked after the image.
# A failed rebuild is reported, not fatal: the kernel update goes on.
#
# usage: tcp-hpcc KVER [IMAGE]   (as the kernel packages run their hooks)
# Test overrides: DKMS, MODINFO, HPCC_MODULES (/lib/modules), HPCC_SRC (/usr/src).
set -u
kver=${1:-}
dkms=${DKMS:-dkms}
modinfo=${MODINFO:-modinfo}
mods=${HPCC_MODULES:-/lib/modules}
src=${HPCC_SRC:-/usr/src}
me="tcp-hpcc kernel hook"

[ -n "$kver" ] || exit 0
# The package removed but its hook (a conffile) kept, or no DKMS.
command -v "$dkms" >/dev/null 2>&1 || exit 0

for ver in $("$dkms" status -m tcp-hpcc -k "$kver" 2>/dev/null |
	sed -n 's|^tcp-hpcc/\([^,]*\), [^,]*, [^:]*: installed.*|\1|p'); do
	ko=
	for f in "$mods/$kver"/updates/dkms/tcp_hpcc.ko*; do
		[ -e "$f" ] && ko=$f && break
	done
	[ -n "$ko" ] || continue
	btf_id=$src/tcp-hpcc-$ver/scripts/btf-id.sh
	[ -x "$btf_id" ] || continue
	have=$("$modinfo" -F btfbase "$ko" 2>/dev/null)
	if ! want=$("$btf_id" -k "$kver" "$mods/$kver/build"); then
		echo "$me: $kver: cannot tell which BTF a build would use; tcp_hpcc left as it is" >&2
		continue
	fi
	[ "$have" = "$want" ] && continue
	echo "$me: $kver: the kernel's BTF changed since tcp_hpcc was built (same ABI name): rebuilding tcp-hpcc/$ver"
	if ! "$dkms" build -m tcp-hpcc -v "$ver" -k "$kver" --force ||
	   ! "$dkms" install -m tcp-hpcc -v "$ver" -k "$kver" --force; then
		echo "$me: $kver: rebuilding tcp-hpcc/$ver failed: tcp_hpcc will refuse to load on this kernel (tcp_hpcc(7))" >&2
	fi
done
exit 0
