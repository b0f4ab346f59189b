#!/usr/bin/env bash
# Build an uncompressed cpio initramfs for scripts/vm-run.sh:
# busybox + the real iproute2/bpftool/iperf3 (with their shared libraries),
# the kernel modules the tests need (dependencies from modules.dep,
# decompressed for busybox insmod), scripts/vm-init.sh as /init, the kernel
# log scanner scripts/klog-check.sh as /usr/bin/klog-check.sh, and --include
# paths under /hpcc.
#
# usage: scripts/mkinitramfs.sh -o OUT.cpio [--kver KVER] [--module NAME]...
#            [--include SRC[:DST]]... [--file SRC:/ABS/DST]...
#   --kver     kernel whose modules to ship (default: newest /boot/vmlinuz-6.1.*)
#   --moddir   that kernel's module tree (default: /lib/modules/KVER); it
#              needs modules.dep, and modules.builtin to skip built-ins
#   --module   extra module to ship and load at boot (with its dependencies)
#   --include  copy file/dir SRC to /hpcc/DST (default DST: basename of SRC)
#   --file     copy file SRC to absolute path DST in the image
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() { echo "mkinitramfs: $*" >&2; exit 1; }

# Loaded at boot, in this order (after their own dependencies). Built-in ones
# (e.g. ipv6, sch_fq_codel on Debian 6.1) are skipped silently.
modules=(
	veth ifb
	sch_tbf sch_netem sch_htb sch_fq_codel sch_fq sch_red sch_prio sch_ingress
	sch_codel sch_pie sch_sfq sch_ets sch_drr
	cls_bpf act_bpf cls_u32 cls_matchall act_mirred act_gact act_skbedit
	tcp_dctcp tcp_bbr
	inet_diag tcp_diag    # `ss -ti` needs sock_diag for TCP
	ipv6
)
# Must exist; ethtool is added only if installed. dash is /bin/sh: Debian's
# busybox-static ash runs its own applets (ip, tc, timeout...) before PATH,
# which would shadow iproute2 and coreutils in every `sh -c`.
bins=(dash bash ip tc ss bpftool iperf3 sha256sum timeout dd)
optional_bins=(ethtool)

kver= kmod= out= includes=() files=()
while (($#)); do
	case $1 in
	--kver) kver=${2:?}; shift 2 ;;
	--moddir) kmod=${2:?}; shift 2 ;;
	-o | --output) out=${2:?}; shift 2 ;;
	--module) modules+=("${2:?}"); shift 2 ;;
	--include) includes+=("${2:?}"); shift 2 ;;
	--file) files+=("${2:?}"); shift 2 ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done
[[ -n $out ]] || die "-o OUT is required"
if [[ -z $kver ]]; then
	# Newest installed 6.1 kernel; never hard-code the Debian ABI number.
	kimg=$(ls -1 /boot/vmlinuz-6.1.* 2>/dev/null | sort -V | tail -n1) || true
	[[ -n $kimg ]] || die "no /boot/vmlinuz-6.1.* (apt-get install linux-image-amd64)"
	kver=${kimg#/boot/vmlinuz-}
fi
kmod=${kmod:-/lib/modules/$kver}
[[ -f $kmod/modules.dep ]] || die "$kmod/modules.dep missing"

root=$(mktemp -d "${TMPDIR:-/tmp}/mkinitramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT

# Merged-/usr layout, like the host, so ldd's /lib/... paths just work.
mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib,usr/lib64,usr/libexec/busybox} \
	"$root"/{dev,proc,sys,run,tmp,root,etc/vmrun,hpcc}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$root/$d"; done
# Without /dev/console in the archive the kernel warns and init starts with
# no stdio (vm-init.sh re-opens the console after mounting devtmpfs anyway).
if ((EUID == 0)); then
	mknod -m 600 "$root/dev/console" c 5 1
	mknod -m 666 "$root/dev/null" c 1 3
fi

# Copy a file to the same path inside the image (dereferencing symlinks).
put() { mkdir -p "$root$(dirname "$1")" && cp -L "$1" "$root$1"; }

# A binary plus every shared library ldd reports (the loader included).
add_bin() {
	local bin=$1 lib
	put "$bin"
	# Static binaries make ldd fail; that is fine.
	for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*' || true); do
		[[ -e $root$lib ]] || put "$lib"
	done
}

PATH=$PATH:/usr/sbin:/sbin
for b in "${bins[@]}"; do
	p=$(command -v "$b") || die "$b not installed"
	add_bin "$(readlink -f "$p")"
	# Keep the name callers expect even if the host path is a symlink.
	[[ -e $root$p ]] || { mkdir -p "$root$(dirname "$p")"; ln -s "$(readlink -f "$p")" "$root$p"; }
done
for b in "${optional_bins[@]}"; do
	if p=$(command -v "$b"); then add_bin "$(readlink -f "$p")"; fi
done

# busybox: applets live in a dir that comes LAST in PATH, so its `ip`/`tc`
# applets never shadow iproute2. /sbin/modprobe (the kernel's module
# autoloader) points at it directly.
bb=$(command -v busybox) || die "busybox not installed (apt-get install busybox-static)"
ldd "$bb" >/dev/null 2>&1 && die "$bb is dynamic; install busybox-static"
cp "$bb" "$root/usr/bin/busybox"
for a in $(busybox --list); do
	ln -s /usr/bin/busybox "$root/usr/libexec/busybox/$a"
done
ln -s dash "$root/usr/bin/sh"
[[ -e $root/usr/sbin/modprobe ]] || ln -s ../bin/busybox "$root/usr/sbin/modprobe"

# iproute2 data: netem delay distributions (tc looks in its LIBDIR) and tables.
for d in /usr/lib/x86_64-linux-gnu/tc /usr/lib/tc /etc/iproute2 /usr/share/iproute2; do
	if [[ -d $d ]]; then mkdir -p "$root$(dirname "$d")" && cp -a "$d" "$root$d"; fi
done
for f in /etc/protocols /etc/services; do if [[ -f $f ]]; then put "$f"; fi; done
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"

# --- kernel modules ---------------------------------------------------------
# Index modules.dep by normalized name (dashes as underscores, no suffix).
declare -A mpath mdeps builtin
while IFS= read -r line; do
	p=${line%%:*}; n=${p##*/}; n=${n%%.ko*}; n=${n//-/_}
	mpath[$n]=$p; mdeps[$n]=${line#*:}
done <"$kmod/modules.dep"
if [[ -f $kmod/modules.builtin ]]; then
	while IFS= read -r p; do
		n=${p##*/}; n=${n%%.ko*}; builtin[${n//-/_}]=1
	done <"$kmod/modules.builtin"
fi

# Depth-first: dependencies before dependents, each module once.
declare -A seen
order=()
visit() {
	local n=${1//-/_} d dn
	[[ -n ${seen[$n]:-} ]] && return 0
	seen[$n]=1
	if [[ -z ${mpath[$n]:-} ]]; then
		[[ -n ${builtin[$n]:-} ]] && return 0
		die "module $n not in $kmod (neither modular nor built-in)"
	fi
	for d in ${mdeps[$n]}; do
		dn=${d##*/}; dn=${dn%%.ko*}; visit "$dn"
	done
	order+=("$n")
}
for m in "${modules[@]}"; do visit "$m"; done

mroot=$root/lib/modules/$kver
mkdir -p "$mroot"
: >"$root/etc/vmrun/modules"
: >"$mroot/modules.dep"
for n in "${order[@]}"; do
	src=${mpath[$n]}; dst=${src%%.ko*}.ko
	mkdir -p "$mroot/$(dirname "$dst")"
	# busybox insmod cannot read compressed modules.
	case $src in
	*.ko) cp "$kmod/$src" "$mroot/$dst" ;;
	*.ko.xz) xz -dc "$kmod/$src" >"$mroot/$dst" ;;
	*.ko.zst) zstd -qdc "$kmod/$src" >"$mroot/$dst" ;;
	*.ko.gz) gzip -dc "$kmod/$src" >"$mroot/$dst" ;;
	*) die "unknown module format: $src" ;;
	esac
	deps=
	for d in ${mdeps[$n]}; do deps+=" ${d%%.ko*}.ko"; done
	echo "$dst:$deps" >>"$mroot/modules.dep"
	echo "$dst" >>"$root/etc/vmrun/modules"
done
# Let busybox modprobe resolve aliases (rtnl-link-veth, tcp-dctcp, ...) and
# treat built-ins as present.
awk 'NR==FNR { want[$0]=1; next } $1=="alias" && ($3 in want)' \
	<(printf '%s\n' "${order[@]}") "$kmod/modules.alias" >"$mroot/modules.alias"
for f in modules.builtin modules.builtin.modinfo; do
	if [[ -f $kmod/$f ]]; then cp "$kmod/$f" "$mroot/$f"; fi
done

# --- init, extra files, includes ------------------------------------------
install -m 755 "$here/vm-init.sh" "$root/init"
# The selftest runner's kernel log gate.
install -m 755 "$here/klog-check.sh" "$root/usr/bin/klog-check.sh"

for spec in "${files[@]}"; do
	src=${spec%%:*}; dst=${spec#*:}
	[[ $spec == *:* && $dst == /* && $dst != *..* ]] || die "--file needs SRC:/ABS/DST: $spec"
	[[ -r $src && ! -d $src ]] || die "--file: no such file: $src"
	mkdir -p "$root$(dirname "$dst")"
	cp -L "$src" "$root$dst"
done

for spec in "${includes[@]}"; do
	if [[ $spec == *:* ]]; then src=${spec%%:*}; dst=${spec#*:}; else src=$spec; dst=; fi
	[[ -e $src ]] || die "--include: no such file or directory: $src"
	[[ -n $dst ]] || dst=$(basename "$(readlink -f "$src")")
	dst=${dst#/}
	[[ -n $dst && /$dst/ != */../* ]] || die "--include: bad destination in $spec"
	mkdir -p "$root/hpcc/$(dirname "$dst")"
	rm -rf "${root:?}/hpcc/$dst"
	# -H: follow a symlink given on the command line, keep the ones inside.
	cp -RH --preserve=mode,timestamps "$src" "$root/hpcc/$dst"
done

# Uncompressed: the kernel unpacks it faster under TCG than it would gunzip.
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out"
