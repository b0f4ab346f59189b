# SPDX-License-Identifier: GPL-2.0
# Sourced by every selftest: TAP (tests/lib/tap.sh), namespaces and links
# (scripts/lib/netns.sh), the module (scripts/lib/module.sh). Tests run
# as root inside the VM (scripts/vm-run.sh, with --include
# tests/lib:tests/lib --include scripts/lib:scripts/lib), from /hpcc.

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
. "$TOP/tests/lib/tap.sh"
. "$TOP/scripts/lib/netns.sh"
. "$TOP/scripts/lib/module.sh"

# require WHAT...: skip the whole test unless each is there, in order:
# "probe" (probe/hpcc-probe), "module" (tcp_hpcc loaded, or loaded now),
# or the name of a helper program built in selftests/.
require() {
	local r
	for r; do
		case $r in
		probe) [ -x "$TOP/probe/hpcc-probe" ] ||
			tap_skip_all "no probe/hpcc-probe (run make)" ;;
		module) module_loaded || load_module ||
			tap_skip_all "tcp_hpcc not loadable" ;;
		*) [ -x "$HERE/$r" ] ||
			tap_skip_all "no selftests/$r (make -C selftests)" ;;
		esac
	done
}

# check DESCRIPTION COMMAND...: one TAP line from the command's status
check() {
	tap_check "$@"
}

# params_save NAME...: tcp_hpcc's parameters as they are now, for
# params_restore (a test's cleanup); a parameter saved once keeps its
# first value. params_set NAME=VALUE...: saved, then set.
hpcc_saved_params=
params_save() {
	local n
	for n; do
		case " $hpcc_saved_params " in
		*" $n="*) ;;
		*) hpcc_saved_params="$hpcc_saved_params $n=$(cat $PARAMS/$n)" ;;
		esac
	done
}
params_set() {
	local kv
	for kv; do
		params_save "${kv%%=*}"
		set_param "${kv%%=*}" "${kv#*=}"
	done
}
params_restore() {
	local kv
	for kv in $hpcc_saved_params; do
		set_param "${kv%%=*}" "${kv#*=}"
	done
}

# ns_down NS...: the namespaces deleted, after what hpcc-probe attached in
# them (hpcc_host on any device, the hpcc_switch instance): its pinned
# programs would outlive them, and hpcc_host's kfunc reference would keep
# tcp_hpcc loaded.
ns_down() {
	local ns dev
	for ns; do
		for dev in $($IP -n "$ns" -o link show 2>/dev/null |
			     awk -F': ' '{ sub(/@.*/, "", $2); print $2 }'); do
			./probe/hpcc-probe -n "$ns" host detach "$dev" >/dev/null 2>&1
		done
		./probe/hpcc-probe -n "$ns" switch detach --all >/dev/null 2>&1
	done
	ns_del "$@"
}

# cleanup_trap COMMAND: COMMAND when the test ends, also by run_tests.sh's
# timeout (TERM) or ^C: namespaces and pinned programs outlive the test
# otherwise, and sh (unlike bash) runs no EXIT trap on a signal.
cleanup_trap() {
	trap "$1" EXIT
	trap 'exit 143' TERM INT
}

# The debug kernel (KASAN, lockdep, kmemleak; vm-init.sh exports
# HPCC_DEBUG_KERNEL=1) under TCG forwards about a tenth of what the stock
# kernel does: links and transfers there are WORK_DIV times smaller. Only
# the workload shrinks; every assertion stays, but performance ones.
if [ "${HPCC_DEBUG_KERNEL:-0}" = 1 ]; then
	WORK_DIV=10
else
	WORK_DIV=1
fi

# perf_check DESCRIPTION COMMAND...: check, for a performance assertion;
# a skip on the debug kernel, where the emulator, not the law, sets the
# pace.
perf_check() {
	if [ "$WORK_DIV" -gt 1 ]; then
		tap_skip "$1" "performance, on the debug kernel"
		return 0
	fi
	check "$@"
}
