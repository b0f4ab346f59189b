#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Rolling upgrade, design-wire-v2.rst's table: builds hpcc_switch and
# hpcc_host as they were before wire version 2 (REF, default: the parent
# of the commit that defined HPCC_WIRE_V2) into a temporary directory and
# runs `bpf_test --upgrade` on them: v2 probes and responses meeting v1
# routers and hosts. Root, on the machine's kernel (BPF_PROG_TEST_RUN).
cd "$(dirname "$0")" || exit 1
top=$(cd ../.. && pwd)
ref=${1:-$(git -C "$top" log --format=%H -S'define HPCC_WIRE_V2' -- hpcc_wire.h | tail -n1)^}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$top" archive "$ref" bpf hpcc_wire.h hpcc_maps.h hpcc_stamp.h |
	tar -x -C "$tmp" || exit 1
cp "$top/bpf/vmlinux.h" "$tmp/bpf/" 2>/dev/null
make -s -C "$tmp/bpf" hpcc_switch.bpf.o hpcc_host.bpf.o >&2 || exit 1
echo "# v1 objects from $(git -C "$top" rev-parse --short "$ref")"
exec ./bpf_test --upgrade "$tmp/bpf"
