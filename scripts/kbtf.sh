#!/bin/bash
# kbtf.sh KVER OUTDIR - prepare, cached in OUTDIR, what module BTF needs for
# kernel KVER (Debian ships neither a vmlinux nor resolve_btfids):
#   OUTDIR/vmlinux         BTF base (raw BTF or ELF vmlinux with .BTF)
#   OUTDIR/resolve_btfids  built from the linux-source-X.Y tarball
#   OUTDIR/vmlinux.h       bpftool btf dump ... format c (not with KBTF_NO_VMLINUX_H=1)
# Each artefact is reused if present; delete it to rebuild. KBTF_VMLINUX_ONLY=1:
# OUTDIR/vmlinux only (scripts/btf-id.sh -k).
set -euo pipefail

me=kbtf.sh
die() { echo "$me: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: $me KVER OUTDIR"
kver=$1
mkdir -p "$2"
out=$(cd "$2" && pwd)
tmp=$(mktemp -d "$out/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# need CMD PACKAGE: fail with the Debian package to install.
need() { command -v "$1" >/dev/null || die "missing '$1': apt-get install $2 (or: make deps)"; }
need_file() { [ -e "$1" ] || die "missing $1: apt-get install $2 (or: make deps)"; }

# grep reads all of readelf's output: with -q it would stop at the match and
# readelf's SIGPIPE would fail the pipeline (pipefail).
has_btf_section() { readelf -S --wide "$1" 2>/dev/null | grep ' \.BTF ' >/dev/null; }

# --- vmlinux: the BTF base pahole/resolve_btfids/bpftool split module BTF against.
# The installed image first: after a kernel update that kept the ABI name
# the running kernel is the old build until the next boot, and a module
# built now is for the installed one. The running kernel's BTF only when
# its image is not there.
get_vmlinux() {
    local img=/boot/vmlinuz-$kver
    if [ ! -e "$img" ] && [ "$(uname -r)" = "$kver" ] && [ -r /sys/kernel/btf/vmlinux ]; then
        cat /sys/kernel/btf/vmlinux > "$tmp/vmlinux"
        mv "$tmp/vmlinux" "$out/vmlinux"
        return
    fi
    need_file "$img" "linux-image-$kver"
    need readelf binutils
    # bzImage = setup code + compressed ELF vmlinux: find the payload by its magic
    # and decompress from there (same idea as the kernel's scripts/extract-vmlinux).
    local magic cmd pkg off skipped=""
    while IFS='|' read -r magic cmd pkg; do
        command -v "${cmd%% *}" >/dev/null || { skipped+=" $pkg"; continue; }
        for off in $(LC_ALL=C grep -obUaP "$magic" "$img" | cut -d: -f1 | head -n 8); do
            # Trailing data after the stream makes some decompressors complain: judge by readelf.
            tail -c +$((off + 1)) "$img" | $cmd > "$tmp/vmlinux" 2>/dev/null || true
            if has_btf_section "$tmp/vmlinux"; then
                mv "$tmp/vmlinux" "$out/vmlinux"
                return
            fi
        done
    done <<'EOF'
\xfd7zXZ\x00|xz -dc --single-stream|xz-utils
\x1f\x8b\x08|gzip -dc|gzip
\x28\xb5\x2f\xfd|zstd -dc|zstd
EOF
    die "could not extract a vmlinux with a .BTF section from $img${skipped:+ (not tried, missing packages:$skipped)}"
}

# --- resolve_btfids: only the parts of the source tree its build touches.
build_resolve_btfids() {
    local series=${kver%%-*}        # 6.1.0-56-amd64 -> 6.1.0
    series=${series%.*}             # -> 6.1
    local tarball=/usr/src/linux-source-$series.tar.xz top=linux-source-$series
    need_file "$tarball" "linux-source-$series"
    need tar tar; need xz xz-utils; need make make; need gcc gcc
    need python3 python3           # libbpf's build runs scripts/bpf_doc.py
    need_file /usr/include/stdio.h libc6-dev
    need_file /usr/include/gelf.h libelf-dev
    need_file /usr/include/zlib.h zlib1g-dev

    local src=$out/src
    if [ ! -e "$src/.extracted" ]; then
        echo "$me: extracting resolve_btfids sources from $tarball"
        rm -rf "$src"; mkdir -p "$src"
        tar -xJf "$tarball" -C "$src" --strip-components=1 \
            "$top"/tools/bpf/resolve_btfids "$top"/tools/build "$top"/tools/scripts \
            "$top"/tools/include "$top"/tools/arch/x86/include \
            "$top"/tools/lib/bpf "$top"/tools/lib/subcmd \
            "$top"/tools/lib/{rbtree,zalloc,string,ctype,str_error_r}.c \
            "$top"/scripts/bpf_doc.py
        touch "$src/.extracted"
    fi
    echo "$me: building resolve_btfids"
    mkdir -p "$out/resolve_btfids.build"
    # Isolate from a calling make (jobserver fds, command-line variables).
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
        make -s -C "$src/tools/bpf/resolve_btfids" OUTPUT="$out/resolve_btfids.build/" \
        -j"$(nproc)" >/dev/null || die "resolve_btfids build failed"
    cp "$out/resolve_btfids.build/resolve_btfids" "$tmp/resolve_btfids"
    mv "$tmp/resolve_btfids" "$out/resolve_btfids"
}

[ -s "$out/vmlinux" ] || get_vmlinux
[ -z "${KBTF_VMLINUX_ONLY:-}" ] || exit 0
[ -x "$out/resolve_btfids" ] || build_resolve_btfids
# KBTF_NO_VMLINUX_H=1: only what module BTF needs (DKMS builds: no bpftool).
if [ -z "${KBTF_NO_VMLINUX_H:-}" ] && [ ! -s "$out/vmlinux.h" ]; then
    need bpftool bpftool
    bpftool btf dump file "$out/vmlinux" format c > "$tmp/vmlinux.h"
    mv "$tmp/vmlinux.h" "$out/vmlinux.h"
fi
