#!/bin/bash
# deps.sh [group...] - install the Debian packages a group needs, only if missing.
# Groups: build vm bench debug sim deb debvm 6.12 (default: build vm bench; debug: what
# scripts/debug-kernel.sh needs to build a kernel; sim: the ns-3 model in sim/;
# 6.12: Debian 12's 6.12 kernel and headers). Fast no-op when everything is present.
set -euo pipefail

me=deps.sh

# python3: resolve_btfids' libbpf build runs scripts/bpf_doc.py.
# libc6-dev: only a Recommends of gcc, but resolve_btfids is a userspace program.
# cppcheck: scripts/lint.sh (make lint), which takes checkpatch.pl from linux-source-6.1.
pkgs_build=(make gcc libc6-dev clang llvm libbpf-dev bpftool pahole libelf-dev zlib1g-dev
            linux-headers-amd64 linux-image-amd64 linux-source-6.1 xz-utils python3 cppcheck)
pkgs_vm=(qemu-system-x86 busybox-static iproute2 iperf3 cpio kmod ethtool)
pkgs_bench=(gnuplot-nox)
# make deb (scripts/deb.sh, with the build group); debvm: scripts/deb-vm-test.sh.
pkgs_deb=(debhelper dh-dkms dpkg-dev lintian)
pkgs_debvm=(mmdebstrap qemu-system-x86 e2fsprogs)
# pahole is what the "dwarves" package used to ship; kmod: depmod.
pkgs_debug=(make gcc libc6-dev linux-source-6.1 xz-utils bc bison flex libssl-dev libelf-dev
            zlib1g-dev pahole python3 kmod)
pkgs_sim=(g++ make libns3-dev gnuplot-nox)

# 6.12 (make module KSERIES=6.12, the VM suite on it): bookworm has a meta
# package for the headers (linux-headers-6.12-amd64) but none for the image,
# so the image and headers of one ABI by name: an installed pair if there
# is one, else the newest linux-image-6.12.N+deb12-amd64 in the apt lists.
newest_612() {
    apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' 2>/dev/null |
        awk '{ print $1 }' | sort -V | tail -n1
}
pkgs_612() {
    local k
    for k in $(printf '%s\n' /boot/vmlinuz-6.12.*+deb12-amd64 | sort -rV); do
        k=${k#/boot/vmlinuz-}
        if [ -e "/usr/src/linux-headers-$k/Makefile" ]; then
            echo "linux-image-$k linux-headers-$k"
            return
        fi
    done
    k=$(newest_612)
    if [ -z "$k" ] && [ "$(id -u)" -eq 0 ]; then
        apt-get update -qq >&2
        k=$(newest_612)
    fi
    [ -n "$k" ] || { echo "$me: no linux-image-6.12.*+deb12-amd64 in the apt lists (bookworm-security)" >&2; return 1; }
    k=${k#linux-image-}
    echo "linux-image-$k linux-headers-$k"
}

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(build vm bench)

want=()
for g in "${groups[@]}"; do
    case "$g" in
        build) want+=("${pkgs_build[@]}") ;;
        vm)    want+=("${pkgs_vm[@]}") ;;
        bench) want+=("${pkgs_bench[@]}") ;;
        deb)   want+=("${pkgs_deb[@]}") ;;
        debvm) want+=("${pkgs_debvm[@]}") ;;
        debug) want+=("${pkgs_debug[@]}") ;;
        sim)   want+=("${pkgs_sim[@]}") ;;
        6.12)  p612=$(pkgs_612) || exit 1
               read -r -a p612 <<<"$p612"
               want+=("${p612[@]}" pahole) ;;
        *) echo "$me: unknown group '$g' (known: build vm bench debug sim deb debvm 6.12)" >&2; exit 2 ;;
    esac
done

# One dpkg-query for all; packages dpkg never heard of print nothing (stderr muted).
installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${want[@]}" 2>/dev/null \
            | awk '$2 == "ii" { print $1 }' || true)
missing=()
for p in "${want[@]}"; do
    grep -qxF "$p" <<<"$installed" || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "$me: missing packages (need root): ${missing[*]}" >&2
    exit 1
fi

echo "$me: installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
