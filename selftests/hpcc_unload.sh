#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Last: with every test's sockets and programs gone, the module unloads.
. "$(dirname "$0")/lib.sh"

module_loaded || skip_all "tcp_hpcc not loaded"
sleep 1		# let TIME_WAIT-free closes finish releasing their state
check "rmmod tcp_hpcc" rmmod tcp_hpcc
check "hpcc gone from tcp_available_congestion_control" \
	sh -c "! grep -qw hpcc /proc/sys/net/ipv4/tcp_available_congestion_control"
tap_finish
