#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# hpcc-setup (deploy/hpcc-setup) on this machine's kernel, as root, in a
# network namespace of its own (hpcc-setup -n): configuration parsing and
# errors, attach/detach/apply/stop against hpcc-probe, status comparing
# configured and attached, and the systemd generator's output.
# Prints TAP, ends with "# N passed, N failed"; cleans up on any exit.
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$PWD
export HPCC_PROBE=${HPCC_PROBE:-$TOP/probe/hpcc-probe}
tmp=$(mktemp -d)
ns=hpccsetup$$
export HPCC_STATE=$tmp/state
conf=$tmp/hpcc.conf
S=("$TOP/deploy/hpcc-setup" -c "$conf" -n "$ns")

. tests/lib/tap.sh
# tap OK(0/1) DESCRIPTION: on failure, the last run's status and output
tap() { tap_ran "$@"; }
run() { tap_run "$@"; }
has() { tap_has "$1"; }
# t DESC RC REGEX CMD...: exit RC and REGEX (may be empty) in the output
t() {
	local d=$1 want=$2 re=$3; shift 3
	run "$@"
	[ "$rc" -eq "$want" ] && { [ -z "$re" ] || has "$re"; }
	tap $? "$d"
}
cleanup() {
	"${S[@]}" stop >/dev/null 2>&1
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ "$(id -u)" -ne 0 ] || [ ! -x "$HPCC_PROBE" ]; then
	tap_skip_all "needs root and $HPCC_PROBE (make probe)"
fi
ip netns add "$ns" && ip -n "$ns" link add vt0 type veth peer name vt1 &&
	ip -n "$ns" link set vt0 up && ip -n "$ns" link set vt1 up &&
	tc -n "$ns" qdisc replace dev vt1 root tbf rate 1gbit burst 64kb latency 50ms || exit 1

# --- parsing
cat >"$conf" <<'C'
host vt0 probe-dscp 70
switch vt1
switch vt1 rate 10gbps
router vt0
host ../x
switch vt1 rate 10zbit
host vt0 colour blue
C
t "check: every bad line named with its number" 1 \
	'hpcc.conf:1: bad probe-dscp.*hpcc.conf:2: switch needs .rate.*:4: unknown keyword .router.*:5: .\.\./x. is not an interface name.*:6: bad rate.*:7: unknown option .colour.' \
	bash -c '"$@" 2>&1 | tr "\n" " "; exit ${PIPESTATUS[0]}' _ "${S[@]}" check
t "apply refuses a configuration with errors" 1 'not applying' "${S[@]}" apply
printf 'switch vt1 rate 1gbit\nswitch vt1 rate 2gbit\n' >"$conf"
t "a role configured twice on one device is an error" 1 'already configured on line 1' "${S[@]}" check
t "usage error: attach without a device" 2 'takes one device' "${S[@]}" attach
t "usage error: a device name that is a path" 2 'not an interface name' "${S[@]}" attach ../..

# --- attach, status
cat >"$conf" <<'C'
# a comment
host vt0            # trailing comment
switch vt1 rate 1.5gbit switch-id 7 port-id 21
host vt1 probe-dscp 45 response-dscp 46 reflect-rate 5000 reflect-burst 50
switch vt9 rate 100mbit
C
t "check: good file, absent device reported" 0 'vt9 is configured but not present.*no errors' \
	bash -c '"$@" 2>&1 | tr "\n" " "; exit ${PIPESTATUS[0]}' _ "${S[@]}" check
t "status before attach: NOT ATTACHED, exit 3" 3 'host vt0: NOT ATTACHED' "${S[@]}" status
t "apply attaches every present device" 0 'hpcc_switch attached to vt1' "${S[@]}" apply
t "status: all attached as configured, absent device told" 0 \
	'switch vt1: attached as configured \(rate 1500 Mbit/s, switch_id 7, port_id 21' "${S[@]}" status
has 'host vt1: attached as configured' && has 'switch vt9: not attached, device not present'
tap $? "status: host vt1 and vt9 lines"
P=(env HPCC_SETUP="$TOP/deploy/hpcc-setup" "$HPCC_PROBE" -n "$ns" status)
t "hpcc-probe status --config: hpcc-setup's verdicts, exit 0" 0 \
	"^configured in $conf \(hpcc-setup status\):\$" "${P[@]}" --config "$conf"
has '^  switch vt1: attached as configured' && has '^  host vt1: attached as configured'
tap $? "hpcc-probe status --config: one indented line per configured device"
run env HPCC_CONF="$conf" "${P[@]}"; [ $rc -eq 0 ] && has '^  host vt0: attached'
tap $? "hpcc-probe status: the configuration from \$HPCC_CONF"
t "hpcc-probe status: --config with --no-config is a usage error" 2 'exclude each other' \
	"${P[@]}" --no-config --config "$conf"
run env HPCC_CONF="$conf" "${P[@]}" --no-config; [ $rc -eq 0 ] && ! has 'configured in'
tap $? "hpcc-probe status --no-config: nothing of the configuration"
t "attach again replaces the attachment" 0 'hpcc_host attached to vt0' "${S[@]}" attach vt0
t "status still as configured after re-attach" 0 'host vt0: attached as configured' "${S[@]}" status

# --- a changed file
sed -i 's/reflect-rate 5000/reflect-rate 6000/' "$conf"
t "status: a changed reflection limit DIFFERS, exit 3" 3 \
	'host vt1: DIFFERS, configured: reflect 6000 burst 50 \(attached: 5000 burst 50\)' "${S[@]}" status
t "apply re-attaches vt1's host program" 0 'reflect 6000/s burst 50' "${S[@]}" apply
sed -i 's/reflect-rate 6000 reflect-burst 50/reflect-rate 0/' "$conf"
t "apply: reflect-rate 0 is no limit" 0 'reflect unlimited' "${S[@]}" apply
t "status: no limit as configured" 0 'host vt1: attached as configured \(.*reflect unlimited' "${S[@]}" status
sed -i 's/reflect-rate 0/reflect-burst 0/' "$conf"
t "check: reflect-burst 0 is an error" 1 "bad reflect-burst '0'" "${S[@]}" check
sed -i 's/ reflect-burst 0//' "$conf"
t "apply: back to the default limit" 0 'reflect 100000/s burst 1000' "${S[@]}" apply
sed -i 's/rate 1.5gbit/rate 10gbit/' "$conf"
t "status: a changed rate DIFFERS, exit 3" 3 'switch vt1: DIFFERS, configured: rate 10000 Mbit/s \(attached: 1500\)' \
	"${S[@]}" status
t "hpcc-probe status: the changed rate DIFFERS too, exit 3" 3 '^  switch vt1: DIFFERS, configured: rate 10000' \
	"${P[@]}" --config "$conf"
t "apply re-attaches vt1" 0 'rate 10000 Mbit/s' "${S[@]}" apply
t "status as configured after apply" 0 'switch vt1: attached as configured \(rate 10000' "${S[@]}" status
sed -i '/^host vt0/d' "$conf"
t "status: an attachment no line asks for" 3 'host vt0: attached but not in' "${S[@]}" status
t "apply detaches it" 0 'hpcc_host detached from vt0|detached' "${S[@]}" apply
t "status clean again" 0 '' "${S[@]}" status
run "${S[@]}" status; ! has 'vt0'; tap $? "vt0 no longer attached"

# --- by hand, behind the tool's back
ip netns exec "$ns" tc filter del dev vt1 ingress
t "status: pins without a filter are BROKEN" 3 'host vt1: BROKEN' "${S[@]}" status
t "attach DEV repairs it" 0 '' "${S[@]}" attach vt1
t "status clean after repair" 0 'host vt1: attached as configured' "${S[@]}" status

# --- the device disappears
ip -n "$ns" link del vt0
t "detach of a vanished device succeeds" 0 'vt1 is gone' "${S[@]}" detach vt1
t "stop detaches the rest" 0 '' "${S[@]}" stop
run ls "$HPCC_STATE/netns/$ns"; [ -z "$out" ]; tap $? "no state left after stop"
ip -n "$ns" link add vt0 type veth peer name vt1 && ip -n "$ns" link set vt0 up &&
	ip -n "$ns" link set vt1 up
t "start attaches the configured devices present" 0 'hpcc_switch attached to vt1' "${S[@]}" start
t "start again leaves them alone" 0 '' "${S[@]}" start
run "${S[@]}" status; has 'switch vt1: attached as configured' && has 'host vt1: attached as configured'
tap $? "status after start"
t "stop after start" 0 '' "${S[@]}" stop

# --- an edge port: 'edge' instead of a rate, compared in status
ip -n "$ns" link add vt2 type veth peer name vt3 && ip -n "$ns" link set vt2 up
printf 'switch vt2 edge switch-id 9\n' >"$conf"
t "check: an edge port needs no rate" 0 'no errors' "${S[@]}" check
t "apply attaches vt2 as an edge port" 0 'hpcc_edge_in to its ingress.*edge port' "${S[@]}" apply
t "status: the edge port as configured" 0 'switch vt2: attached as configured \(rate 0 Mbit/s.*, edge\)' \
	"${S[@]}" status
printf 'switch vt2 rate 1gbit switch-id 9\n' >"$conf"
t "status: no longer configured as an edge: DIFFERS" 3 'switch vt2: DIFFERS, configured: rate 1000 Mbit/s \(attached: 0\) edge 0 \(attached: 1\)' \
	"${S[@]}" status
ip netns exec "$ns" tc filter del dev vt2 ingress
printf 'switch vt2 edge switch-id 9\n' >"$conf"
t "status: an edge port without its ingress filter is BROKEN" 3 'switch vt2: BROKEN' "${S[@]}" status
printf 'switch vt2\n' >"$conf"
t "check: a switch with neither rate nor edge is an error" 1 "switch needs 'rate RATE' \(or 'edge'\)" "${S[@]}" check
t "stop detaches the edge port" 0 '' "${S[@]}" stop

# --- the generator
printf 'host eth0\nswitch br-lan rate 10gbit\nhost eth0.100\n' >"$conf"
mkdir -p "$tmp/gen"
if command -v systemd-escape >/dev/null; then
	run env HPCC_CONF="$conf" HPCC_UNITDIR="$TOP/deploy" "$TOP/deploy/hpcc-setup" "$tmp/gen" "$tmp/gen.early" "$tmp/gen.late"
	run find "$tmp/gen" -name '*.service' -printf '%P\n'
	has '^sys-subsystem-net-devices-eth0.device.wants/hpcc-attach@eth0.service$' &&
		has '^sys-subsystem-net-devices-br\\x2dlan.device.wants/hpcc-attach@br\\x2dlan.service$' &&
		has '^sys-subsystem-net-devices-eth0.100.device.wants/hpcc-attach@eth0.100.service$'
	tap $? "generator: one wants link per device, names escaped"
fi

tap_done
