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

# check DESCRIPTION COMMAND...: one TAP line from the command's status
check() {
	tap_check "$@"
}

# cleanup_trap COMMAND: COMMAND when the test ends, also by run_tests.sh's
# timeout (TERM) or ^C: namespaces and pinned programs outlive the test
# otherwise, and sh (unlike bash) runs no EXIT trap on a signal.
cleanup_trap() {
	trap "$1" EXIT
	trap 'exit 143' TERM INT
}
