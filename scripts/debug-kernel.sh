#!/usr/bin/env bash
# Build (once) a debug kernel for the VM tests from Debian's linux-source-6.1:
# `make defconfig kvm_guest.config` plus scripts/debug-kernel.config (KASAN,
# lockdep, kmemleak, UBSAN, BTF; everything the tests use built in).
#
# usage: scripts/debug-kernel.sh [--dir] [--force]
#   (no option)  build unless cached; print the cache directory
#   --dir        print the cache directory if it is built, else fail
#   --force      rebuild even if cached
#
# The cache lives outside the clone, keyed by a hash of the fragment, this
# script, the linux-source-6.1 version and the compiler and pahole versions:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/tcp_hpcc/debug-kernel/KEY/
#     bzImage                the kernel
#     kernel.release         its `uname -r`
#     tree/                  in-tree build, objects pruned: KDIR for external
#                            modules (vmlinux with BTF, Module.symvers, scripts,
#                            tools/bpf/resolve_btfids/resolve_btfids)
#     modules/lib/modules/RELEASE/  modules.builtin* for mkinitramfs.sh
#     config, build.log
# It is built in a temporary directory beside it and renamed into place, so
# an interrupted build never leaves a half cache.
# Env: DEBUG_KERNEL_JOBS (default: nproc); DEBUG_KERNEL_KEEP_FAILED=1 keeps a
# failed build's directory for inspection (the next run removes it).
set -euo pipefail

# All in a function: bash reads a script as it runs, and this one runs for
# 20 minutes; an edit meanwhile must not change what the rest does.
main() {
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
me=debug-kernel
die() { echo "$me: $*" >&2; exit 1; }

want_dir_only= force=
while (($#)); do
	case $1 in
	--dir) want_dir_only=1; shift ;;
	--force) force=1; shift ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done

fragment=$here/debug-kernel.config
tarball=/usr/src/linux-source-6.1.tar.xz
cache_root=${XDG_CACHE_HOME:-${HOME:?}/.cache}/tcp_hpcc/debug-kernel

src_version=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) || src_version=
# The module must be built by the compiler (and pahole) that built the tree.
key=$({
	cat "$fragment" "${BASH_SOURCE[0]}"
	echo "linux-source-6.1 $src_version"
	gcc -dumpfullversion 2>/dev/null || true
	pahole --version 2>/dev/null || true
} | sha256sum | cut -c1-16)
dest=$cache_root/$key

if [[ -n $want_dir_only ]]; then
	[[ -f $dest/kernel.release ]] ||
		die "no debug kernel built for this tree (key $key): run scripts/debug-kernel.sh (make debug-kernel)"
	echo "$dest"
	exit 0
fi
if [[ -f $dest/kernel.release && -z $force ]]; then
	echo "$dest"
	exit 0
fi

"$here/deps.sh" debug >&2 || die "missing packages (scripts/deps.sh debug)"
[[ -r $tarball ]] || die "$tarball missing: apt-get install linux-source-6.1"
[[ -n $src_version ]] || die "linux-source-6.1 is not installed: apt-get install linux-source-6.1"

mkdir -p "$cache_root"
# Leftovers of builds whose process is gone (killed hard, machine reset).
for stale in "$cache_root"/.tmp-* "$cache_root"/.old-*; do
	[[ -d $stale ]] || continue
	pid=${stale##*-}
	kill -0 "$pid" 2>/dev/null || rm -rf "$stale"
done
tmp=$cache_root/.tmp-$key-$$
rm -rf "$tmp"
mkdir -p "$tmp"
trap '[[ -n ${DEBUG_KERNEL_KEEP_FAILED:-} ]] || rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# A cached build of its own: no -n, -s or jobserver from a calling make.
unset MAKEFLAGS MFLAGS MAKELEVEL
log=$tmp/build.log
jobs=${DEBUG_KERNEL_JOBS:-$(nproc)}
start=$SECONDS
# Full output goes to the log; on failure show its end.
run() {
	echo "$me: $*" >>"$log"
	"$@" >>"$log" 2>&1 || {
		tail -n 40 "$log" >&2
		die "failed: $* (log above; full log was $log)"
	}
}

echo "$me: building linux-source-6.1 $src_version with debug options (key $key, -j$jobs; about 20 min on 2 cores)" >&2
echo "$me: log: $log" >&2
mkdir -p "$tmp/tree"
run tar -xf "$tarball" -C "$tmp/tree" --strip-components=1
tree=$tmp/tree
kmake() { run make -C "$tree" -j"$jobs" "$@"; }

# kernel/configs/ is where `make FOO.config` looks for fragments.
cp "$fragment" "$tree/kernel/configs/hpcc_debug.config"
kmake defconfig kvm_guest.config hpcc_debug.config

# Kconfig silently drops a symbol whose dependencies are unmet: insist on
# every line of the fragment.
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		if ! grep -qxF "$line" "$tree/.config"; then
			got=$(grep -E "^(# )?${line%%=*}[= ]" "$tree/.config" || echo "absent")
			echo "$me: wanted $line, got: $got" >&2
			bad=1
		fi
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		if grep -q "^$opt=" "$tree/.config"; then
			echo "$me: wanted $opt off, got: $(grep "^$opt=" "$tree/.config")" >&2
			bad=1
		fi
		;;
	esac
done <"$fragment"
((bad == 0)) || die "the configuration differs from $fragment (see above): fix the fragment"

echo "$me: configured; compiling ($(date +%T))" >&2
kmake all
kmake modules_install INSTALL_MOD_PATH="$tmp/modules" DEPMOD=/sbin/depmod
release=$(cat "$tree/include/config/kernel.release")
[[ -f $tmp/modules/lib/modules/$release/modules.builtin ]] ||
	die "modules_install wrote no modules.builtin for $release"
# The install's build/source links point into the temporary directory.
rm -f "$tmp/modules/lib/modules/$release"/{build,source}

readelf -S --wide "$tree/vmlinux" | grep -q ' \.BTF ' || die "vmlinux has no .BTF section"
[[ -x $tree/tools/bpf/resolve_btfids/resolve_btfids ]] || die "tree has no resolve_btfids"
[[ -s $tree/Module.symvers ]] || die "tree has no Module.symvers"

cp "$tree/arch/x86/boot/bzImage" "$tmp/bzImage"
cp "$tree/.config" "$tmp/config"

# Objects and their .cmd files are only needed to rebuild the kernel itself;
# external modules need vmlinux, Module.symvers, headers and the host tools.
find "$tree" \( -name '*.o' -o -name '.*.cmd' -o -name '*.a' -o -name '.tmp_vmlinux*' \
	-o -name 'vmlinux.bin*' -o -name '*.mod.c' \) -type f -delete
rm -rf "$tree/.git"

# The pruned tree must still build and link a module with BTF.
mkdir -p "$tmp/probe-mod"
cat >"$tmp/probe-mod/probe_mod.c" <<'EOF'
#include <linux/module.h>
static int __init probe_mod_init(void) { return 0; }
module_init(probe_mod_init);
MODULE_LICENSE("GPL");
EOF
echo 'obj-m := probe_mod.o' >"$tmp/probe-mod/Kbuild"
run make -C "$tree" M="$tmp/probe-mod" modules
readelf -S --wide "$tmp/probe-mod/probe_mod.ko" | grep -q ' \.BTF ' ||
	die "a module built against the pruned tree has no .BTF"
rm -rf "$tmp/probe-mod"

echo "$release" >"$tmp/kernel.release"
echo "$me: built $release in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s" | tee -a "$log" >&2
# Atomic publish; without --force a concurrent build that finished first wins.
old=$cache_root/.old-$key-$$
if [[ -n $force && -d $dest ]]; then mv -T "$dest" "$old"; fi
if ! mv -T "$tmp" "$dest" 2>/dev/null; then
	[[ -f $dest/kernel.release ]] || die "cannot move $tmp to $dest"
fi
rm -rf "$old"
echo "$dest"
}

main "$@"
