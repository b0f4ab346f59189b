#!/bin/bash
# deb-vm-test.sh [--keep | --boot-only] - the Debian packages of build/deb/ as they will be
# used: a Debian 12 root file system (mmdebstrap, Debian's archive as this
# machine's apt sources name it) with Debian's 6.1 kernel and headers; the
# packages installed into it (DKMS builds the module for 6.1); then the
# newest 6.12 kernel and headers installed (the kernel hooks make DKMS build
# it for 6.12); then the image booted under qemu (TCG) with systemd as init,
# once on each kernel, where a test unit checks: DKMS's builds, the module
# loaded at boot by modules-load.d with its BTF, hpcc selectable and used by
# a socket, hpcc.service and hpcc-attach@eth0 active, hpcc-setup status
# clean, and a device that appears later (a dummy) attached and detached by
# its unit; before the boots, the tcp-hpcc kernel hook in the root (nothing
# to do, then a forced rebuild); after them, the VM selftests of make check
# on each kernel with the module DKMS built in the image. Prints TAP and
# "N passed, N failed"; times each phase.
#
# --keep leaves the root directory beside the image; --boot-only boots the
# image of the last run again (after changing only the guest's checks).
#
# Cache: ~/.cache/tcp_hpcc/debvm/base-KEY.tar, the root file system before
# our packages (about 1 GB, a few minutes to make); delete it to remake.
# Nothing is installed on this machine but the tools (scripts/deps.sh debvm).
set -euo pipefail
cd "$(dirname "$0")/.."
me=deb-vm-test.sh
keep=0 boot_only=0
case ${1:-} in
--keep) keep=1 ;;
--boot-only) boot_only=1 ;;
"") ;;
*) echo "usage: $me [--keep | --boot-only]" >&2; exit 2 ;;
esac

die() { echo "$me: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root (mmdebstrap, chroot, mkfs)"
t0=$(date +%s)
phase_t=$t0
phase() {	# phase NAME: time of the phase that ends here
	local now; now=$(date +%s)
	echo "$me: [$((now - phase_t)) s] $1"
	times+=("$1: $((now - phase_t)) s")
	phase_t=$now
}
times=()

scripts/deps.sh debvm
ls build/deb/tcp-hpcc-dkms_*_all.deb build/deb/hpcc-probe_*_amd64.deb >/dev/null 2>&1 ||
	die "no packages in build/deb/: run 'make deb' first"
dkms_deb=$(ls build/deb/tcp-hpcc-dkms_*_all.deb | sort -V | tail -n1)
probe_deb=$(ls build/deb/hpcc-probe_*_amd64.deb | sort -V | tail -n1)

# The kernels: Debian's default (6.1, by its meta packages) and the newest
# 6.12 the archive has (no meta package in bookworm: by name).
k612=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' |
	awk '{print $1}' | sort -V | tail -n1)
[ -n "$k612" ] || die "no linux-image-6.12.*+deb12-amd64 in the apt lists (apt-get update?)"
k612=${k612#linux-image-}
sources=/etc/apt/sources.list.d/debian.sources
[ -r "$sources" ] || sources=/etc/apt/sources.list

cache=${XDG_CACHE_HOME:-$HOME/.cache}/tcp_hpcc/debvm
mkdir -p "$cache"
run=$cache/run
root=$run/root
if [ $boot_only = 1 ]; then
	[ -s "$run/root.img" ] || die "no image of an earlier run in $run"
	k61=$(cd "$run" && ls vmlinuz-6.1.* | sed 's/^vmlinuz-//' | sort -V | tail -n1)
else
# What the guest needs before our packages: systemd, the 6.1 kernel with
# headers, and the packages' dependencies (so installing ours downloads
# nothing), openssl so that DKMS signs as on a real system, python3.
base_pkgs=systemd-sysv,udev,kmod,iproute2,procps,python3,openssl,initramfs-tools,
base_pkgs+=linux-image-amd64,linux-headers-amd64,dkms,pahole,binutils,libelf-dev,
base_pkgs+=zlib1g-dev,xz-utils,libc6-dev,gcc,make,linux-source-6.1,libbpf1
key=$(printf '%s\n' "$base_pkgs" "$k612" "$(cat "$sources")" v1 | sha256sum | cut -c1-12)
base=$cache/base-$key.tar
if [ ! -s "$base" ]; then
	echo "$me: making the base root file system ($base; the 6.12 packages fetched, not installed)"
	rm -rf "$cache"/base-*.tar "$base.tmp"
	mmdebstrap --variant=apt --format=tar --include="$base_pkgs" \
		--customize-hook='mkdir -p "$1/var/cache/hpcc-612"' \
		--customize-hook="chroot \"\$1\" apt-get install -y --download-only \
			-o Dir::Cache::archives=/var/cache/hpcc-612/ \
			linux-image-$k612 linux-headers-$k612 >/dev/null" \
		bookworm "$base.tmp" "$sources" >"$cache/mmdebstrap.log" 2>&1 ||
		{ tail -n 20 "$cache/mmdebstrap.log"; die "mmdebstrap failed (log: $cache/mmdebstrap.log)"; }
	mv "$base.tmp" "$base"
	phase "base root file system made (mmdebstrap)"
fi

umount_all() {
	local m
	for m in dev/pts dev proc sys; do
		mountpoint -q "$root/$m" && umount -l "$root/$m"
	done
	return 0
}
cleanup() {
	umount_all
	[ -n "${qpid:-}" ] && kill "$qpid" 2>/dev/null
	[ $keep = 1 ] || rm -rf "$root"
}
trap cleanup EXIT
umount_all
rm -rf "$run"
mkdir -p "$root"
tar -C "$root" -xf "$base"
phase "base unpacked"

mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
inchroot() { chroot "$root" env DEBIAN_FRONTEND=noninteractive \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

cp "$dkms_deb" "$probe_deb" "$root/tmp/"
# dpkg -i: the base has every dependency, so nothing is downloaded.
inchroot dpkg -i "/tmp/${dkms_deb##*/}" "/tmp/${probe_deb##*/}" \
	>"$run/install.log" 2>&1 || { tail -n 30 "$run/install.log"; die "installing the packages failed"; }
phase "tcp-hpcc-dkms and hpcc-probe installed (DKMS build for 6.1)"
# The operator's configuration, what the boot checks expect.
printf '# deb-vm-test.sh\nhost eth0\nswitch hs1 rate 1gbit switch-id 9\n' >"$root/etc/hpcc/hpcc.conf"
inchroot sh -c 'dpkg -i /var/cache/hpcc-612/*.deb' \
	>"$run/install-612.log" 2>&1 || { tail -n 30 "$run/install-612.log"; die "installing $k612 failed"; }
phase "linux-image-$k612 and headers installed (DKMS build for 6.12 by the kernel hooks)"
inchroot dkms status >"$run/dkms-status.txt" 2>&1 || true
cat "$run/dkms-status.txt"
k61=$(cd "$root/boot" && ls vmlinuz-6.1.* | sed 's/^vmlinuz-//' | sort -V | tail -n1)

# The kernel hook (an update that keeps the ABI name, see
# scripts/dkms-kernel-hook.sh): the modules DKMS just built were made on
# their kernels' BTF, so it does nothing; told the BTF changed (a btf-id.sh
# that says so), it rebuilds and reinstalls through DKMS, and the module is
# again made on the kernel's BTF.
ver=$(dpkg-deb -f "$dkms_deb" Version)
fake=/tmp/hook-src/tcp-hpcc-$ver/scripts
mkdir -p "$root$fake"
printf '#!/bin/sh\necho another-build\n' >"$root$fake/btf-id.sh"
chmod +x "$root$fake/btf-id.sh"
for kv in "$k61" "$k612"; do
	out=$(inchroot /etc/kernel/postinst.d/tcp-hpcc "$kv" 2>&1) && [ -z "$out" ] ||
		die "kernel hook on $kv, with nothing to do, said: $out"
	inchroot env HPCC_SRC=/tmp/hook-src /etc/kernel/postinst.d/tcp-hpcc "$kv" \
		>"$run/hook-$kv.log" 2>&1
	grep -q "rebuilding tcp-hpcc/$ver" "$run/hook-$kv.log" && ! grep -q failed "$run/hook-$kv.log" &&
		inchroot dkms status -m tcp-hpcc -k "$kv" | grep ': installed' >/dev/null ||
		{ tail -n 20 "$run/hook-$kv.log"; die "kernel hook on $kv: no rebuild (log: $run/hook-$kv.log)"; }
	have=$(inchroot sh -c "modinfo -F btfbase /lib/modules/$kv/updates/dkms/tcp_hpcc.ko*")
	want=$(inchroot /usr/src/tcp-hpcc-$ver/scripts/btf-id.sh -k "$kv")
	[ -n "$have" ] && [ "$have" = "$want" ] || die "$kv: rebuilt module's btfbase $have, kernel's $want"
done
rm -rf "${root:?}/tmp/hook-src"
phase "kernel hook: nothing to do, then a rebuild on both kernels"

# The guest's test: a unit that runs after everything else, prints TAP on
# the console and powers off.
install -m 0755 /dev/stdin "$root/usr/local/sbin/hpcc-vmtest" <<'EOF'
#!/bin/bash
exec >/dev/ttyS0 2>&1
echo
n=0 pass=0 fail=0
t() {	# t DESC CMD...
	local d=$1; shift
	n=$((n + 1))
	if out=$("$@" 2>&1); then pass=$((pass + 1)); echo "HPCCVM ok $n - $(uname -r): $d"
	else fail=$((fail + 1)); echo "HPCCVM not ok $n - $(uname -r): $d"
		echo "$out" | head -n 20 | sed 's/^/HPCCVM #   /'; fi
}
waitfor() { local i; for i in $(seq 1 60); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done; "$@"; }
kv=$(uname -r)
t "DKMS built and installed tcp-hpcc for this kernel" sh -c "dkms status 2>/dev/null | grep -F ', $kv, x86_64: installed' | grep -q '^tcp-hpcc/'"
t "DKMS built it for both kernels" sh -c "[ \$(dkms status 2>/dev/null | grep -c 'tcp-hpcc/.*: installed') -eq 2 ]"
# 6.12's DKMS build is xz-compressed (CONFIG_MODULE_COMPRESS_XZ), 6.1's not.
t "the module is in updates/dkms" sh -c "ls /lib/modules/$kv/updates/dkms/tcp_hpcc.ko*"
t "DKMS signed it (its MOK key)" sh -c "modinfo -F signer tcp_hpcc | grep -q 'DKMS module signing key'"
t "systemd-modules-load loaded tcp_hpcc at boot" sh -c 'systemctl is-active systemd-modules-load && grep -q "^tcp_hpcc " /proc/modules'
t "with its BTF (/sys/kernel/btf/tcp_hpcc)" test -e /sys/kernel/btf/tcp_hpcc
t "no BTF complaint in the kernel log" sh -c '! dmesg | grep -Ei "tcp_hpcc.*BTF|missing module BTF"'
t "made on this kernel's BTF (modinfo btfbase)" sh -c '[ "$(modinfo -F btfbase tcp_hpcc)" = "$(sha256sum </sys/kernel/btf/vmlinux | cut -d" " -f1)" ]'
t "the kernel hooks are installed" test -x /etc/kernel/postinst.d/tcp-hpcc -a -x /etc/kernel/header_postinst.d/tcp-hpcc
t "hpcc is available" sh -c 'grep -qw hpcc /proc/sys/net/ipv4/tcp_available_congestion_control'
t "the default is left alone (sysctl.d file commented)" sh -c '[ "$(sysctl -n net.ipv4.tcp_congestion_control)" != hpcc ]'
t "hpcc selectable as the default" sysctl -w net.ipv4.tcp_congestion_control=hpcc
t "a socket runs hpcc over loopback" python3 -c '
import socket, threading
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
def srv():
    c, _ = s.accept()
    while c.recv(65536): pass
threading.Thread(target=srv, daemon=True).start()
c = socket.create_connection(s.getsockname())
cc = c.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0")
assert cc == b"hpcc", cc
c.sendall(b"x" * (4 << 20)); c.close()'
sysctl -qw net.ipv4.tcp_congestion_control=cubic
t "hpcc.service active" systemctl is-active hpcc.service
t "hpcc-attach@eth0.service active" waitfor systemctl is-active hpcc-attach@eth0.service
t "hpcc-setup status: as configured" sh -c 'hpcc-setup status | tee /dev/stderr | grep -q "host eth0: attached as configured"'
t "hpcc-probe status: the host program on eth0, module with BTF" sh -c 'hpcc-probe status | grep -E "^host eth0 .*tc ingress attached" && hpcc-probe status | grep "module tcp_hpcc: loaded, BTF"'
t "hpcc-probe status: as configured (hpcc.conf)" sh -c 'hpcc-probe status | grep -x "  host eth0: attached as configured.*"'
ip link add hs1 type dummy
t "a device that appears later: its unit attaches it" waitfor systemctl is-active hpcc-attach@hs1.service
t "hpcc-setup status: switch hs1 as configured" sh -c 'hpcc-setup status; hpcc-setup status | grep -q "switch hs1: attached as configured (rate 1000 Mbit/s, switch_id 9"'
ip link del hs1
t "the device goes: its unit stops" waitfor sh -c '! systemctl is-active hpcc-attach@hs1.service'
t "hpcc-setup status clean again" hpcc-setup status
systemctl restart hpcc
# The restart of the PartOf units is its own job: wait for it.
t "systemctl restart hpcc re-attaches eth0" waitfor sh -c 'systemctl is-active hpcc-attach@eth0.service && hpcc-setup status'
t "no failed units" sh -c '[ -z "$(systemctl --failed --no-legend)" ] || { systemctl --failed; false; }'
echo "HPCCVM $kv: $pass passed, $fail failed"
echo "HPCCVM-DONE"
systemctl poweroff --no-block
EOF
cat >"$root/etc/systemd/system/hpcc-vmtest.service" <<'EOF'
[Unit]
Description=tcp_hpcc package test (deb-vm-test.sh)
# Not After=multi-user.target: the target is ordered after what it wants.
After=hpcc.service
[Service]
Type=idle
ExecStart=/usr/local/sbin/hpcc-vmtest
[Install]
WantedBy=multi-user.target
EOF
inchroot systemctl enable hpcc-vmtest.service >/dev/null 2>&1
echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' >"$root/etc/fstab"
echo hpccvm >"$root/etc/hostname"
# A machine id, so that the boot is not a first boot (systemd-firstboot
# would prompt on the console).
tr -d - </proc/sys/kernel/random/uuid >"$root/etc/machine-id"
ln -sf /dev/null "$root/etc/systemd/system/systemd-firstboot.service"
# No login prompt on the console the results are read from.
ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"
umount_all
cp "$root/boot/vmlinuz-$k61" "$root/boot/initrd.img-$k61" "$root/boot/vmlinuz-$k612" \
	"$root/boot/initrd.img-$k612" "$run/"
mkfs.ext4 -q -F -L hpccvm -d "$root" "$run/root.img" 6G
phase "image made (ext4, 6 GB sparse)"
fi

total_pass=0 total_fail=0
for kv in "$k61" "$k612"; do
	echo "$me: booting $kv (TCG, systemd)"
	log=$run/console-$kv.log
	# thread=single: 6.12 under multi-threaded TCG dies of "Oops: int3"
	# when a static key flips (scripts/vm-run.sh --tcg-single); no
	# cmpxchg16b: qemu 7.2 corrupts the flags after it (vm-run.sh)
	timeout 1200 qemu-system-x86_64 -accel tcg,thread=single -cpu qemu64,-cx16 \
		-m 2048 -smp 2 -no-reboot \
		-nodefaults -no-user-config -display none -serial stdio \
		-kernel "$run/vmlinuz-$kv" -initrd "$run/initrd.img-$kv" \
		-append "root=/dev/vda rw console=ttyS0 net.ifnames=0 panic=-1 quiet rcupdate.rcu_cpu_stall_timeout=300 watchdog_thresh=60" \
		-drive "file=$run/root.img,format=raw,if=virtio" \
		-nic user,model=virtio-net-pci </dev/null >"$log" 2>&1 || true
	grep -ao 'HPCCVM .*' "$log" | tr -d '\r' | sed 's/^HPCCVM //'
	if ! grep -aq HPCCVM-DONE "$log"; then
		echo "not ok - $kv: the test did not finish (console: $log)"
		tail -n 30 "$log"
		total_fail=$((total_fail + 1))
	fi
	np=$(grep -ao 'HPCCVM ok ' "$log" | wc -l || true)
	nf=$(grep -ao 'HPCCVM not ok ' "$log" | wc -l || true)
	total_pass=$((total_pass + np))
	total_fail=$((total_fail + nf))
	phase "booted and tested $kv"
done

# The selftests on what DKMS built in the image, not on the tree's module:
# the .ko (.ko.xz on 6.12) copied out of the image with debugfs, run by
# the same VM harness as make check on the same kernel (the image's
# kernels are the ones the host's apt lists name, as make check's).
vm_files=(--include selftests --include bpf --include probe
	--include tests/bpf/bpf_test:tests/bpf/bpf_test --include tests/lib:tests/lib
	--include scripts/lib:scripts/lib)
make -s tests >/dev/null || die "building the selftests failed"
for kv in "$k61" "$k612"; do
	ko=$run/dkms-$kv.ko
	rm -f "$ko" "$ko.xz"
	for f in tcp_hpcc.ko tcp_hpcc.ko.xz; do
		debugfs -R "dump /lib/modules/$kv/updates/dkms/$f ${ko}${f#tcp_hpcc.ko}" \
			"$run/root.img" >/dev/null 2>&1 || true
	done
	[ -s "$ko.xz" ] && xz -d -f "$ko.xz"
	if [ ! -s "$ko" ] || ! modinfo -F vermagic "$ko" | grep -q "^$kv "; then
		echo "not ok - $kv: no DKMS-built tcp_hpcc.ko for $kv in the image"
		total_fail=$((total_fail + 1))
		continue
	fi
	echo "ok - $kv: DKMS's tcp_hpcc.ko copied out of the image (srcversion $(modinfo -F srcversion "$ko"))"
	total_pass=$((total_pass + 1))
	[ -f "/boot/vmlinuz-$kv" ] || die "no /boot/vmlinuz-$kv on this machine (scripts/deps.sh vm 6.12)"
	single=()
	[[ $kv == 6.12.* ]] && single=(--tcg-single)
	log=$run/selftests-$kv.log
	echo "$me: selftests on the DKMS-built module for $kv (log: $log)"
	rc=0
	scripts/vm-run.sh --kver "$kv" "${single[@]}" --timeout 2400 \
		--include "$ko:tcp_hpcc.ko" "${vm_files[@]}" \
		-- ./selftests/run_tests.sh >"$log" 2>&1 || rc=$?
	# assertions at any depth, as scripts/check.sh counts them
	np=$(grep -aE '^(# )*ok [0-9]+ ' "$log" | grep -v 'selftests: hpcc:' | grep -vc '# SKIP' || true)
	nf=$(grep -aE '^(# )*not ok [0-9]+ ' "$log" | grep -v 'selftests: hpcc:' | grep -vc '# SKIP' || true)
	echo "$me: $kv, DKMS-built module: $np passed, $nf failed (exit $rc)"
	grep -aE '^(# )*not ok ' "$log" || true
	if [ "$rc" -ne 0 ] && [ "$nf" -eq 0 ]; then
		echo "not ok - $kv: the selftests on the DKMS-built module exited $rc (log: $log)"
		tail -n 20 "$log"
		nf=1
	fi
	total_pass=$((total_pass + np))
	total_fail=$((total_fail + nf))
	phase "selftests on the DKMS-built module for $kv"
done

echo "$me: times:"
printf '  %s\n' "${times[@]}"
echo "$me: total $(( $(date +%s) - t0 )) s (console logs in $run)"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
