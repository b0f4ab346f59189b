#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Rolling upgrade, design-wire-v2.rst's table: builds hpcc_switch and
# hpcc_host as they were before wire version 2 (REF, default: the parent
# of the commit that defined HPCC_WIRE_V2) and before receiver-based HPCC
# (the parent of the commit that made WANT_WINDOW a known flag) into
# temporary directories and runs `bpf_test --upgrade` on them: v2 probes
# and responses meeting v1 routers and hosts, asking probes and windows
# meeting v2 ones that know neither. Root, on the machine's kernel
# (BPF_PROG_TEST_RUN).
cd "$(dirname "$0")" || exit 1
top=$(cd ../.. && pwd)
ref=${1:-$(git -C "$top" log --format=%H -S'define HPCC_WIRE_V2' -- hpcc_wire.h | tail -n1)^}
ref_rx=${2:-$(git -C "$top" log --format=%H -S'HPCC_F_WANT_WINDOW | HPCC_F_WINDOW)' -- hpcc_wire.h | tail -n1)^}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build() {	# REF DIR: the two programs as they were at REF
	mkdir -p "$2" &&
	git -C "$top" archive "$1" bpf $(git -C "$top" ls-tree --name-only "$1" hpcc_wire.h hpcc_maps.h hpcc_stamp.h hpcc_siphash.h) |
		tar -x -C "$2" || return 1
	cp "$top/bpf/vmlinux.h" "$2/bpf/" 2>/dev/null
	make -s -C "$2/bpf" hpcc_switch.bpf.o hpcc_host.bpf.o >&2
}
build "$ref" "$tmp/v1" || exit 1
build "$ref_rx" "$tmp/v2" || exit 1
echo "# v1 objects from $(git -C "$top" rev-parse --short "$ref"), v2 before Rx-HPCC from $(git -C "$top" rev-parse --short "$ref_rx")"
exec ./bpf_test --upgrade "$tmp/v1/bpf" "$tmp/v2/bpf"
