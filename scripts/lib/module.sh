# SPDX-License-Identifier: GPL-2.0
# tcp_hpcc's module, parameters and counters, for the selftests
# (selftests/lib.sh) and the demo (demo/scenarios.sh), sourced; POSIX sh,
# as root, in the VM from /hpcc. HPCC_KO defaults to $TOP/tcp_hpcc.ko
# (TOP: the tree's top, default the current directory).

HPCC_KO=${HPCC_KO:-${TOP:-.}/tcp_hpcc.ko}
PARAMS=/sys/module/tcp_hpcc/parameters

module_loaded() {
	[ -d /sys/module/tcp_hpcc ]
}

load_module() {
	module_loaded || insmod "$HPCC_KO" "$@"
}

# set_param NAME VALUE: write a module parameter
set_param() {
	echo "$2" >"$PARAMS/$1"
}

# hpcc_stat NAME: a counter from /proc/net/tcp_hpcc_stat
hpcc_stat() {
	awk -v k="$1" '$1 == k { print $2 }' /proc/net/tcp_hpcc_stat
}
