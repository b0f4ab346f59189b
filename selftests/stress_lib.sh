# SPDX-License-Identifier: GPL-2.0
# Shared by the stress and fault selftests (after lib.sh): a time scale for
# slow kernels, bounded polling, flow and counter helpers.

# HPCC_DEBUG_KERNEL=1 (KASAN, lockdep, kmemleak: several times slower)
# only stretches time limits; no assertion depends on it.
case ${HPCC_DEBUG_KERNEL:-0} in
1) SLOW=6 ;;
*) SLOW=1 ;;
esac

# scaled SECONDS: SECONDS stretched for a debug kernel
scaled() {
	echo $(($1 * SLOW))
}

# poll SECONDS COMMAND...: run COMMAND until it succeeds, at most SECONDS
# (scaled) long; its status is the last run's.
poll() {
	local end=$(($(date +%s) + $(scaled "$1")))
	shift
	while ! "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.05
	done
}

# hpcc flows listed in NS's /proc/net/tcp_hpcc
flow_count() {
	$IP netns exec "$1" awk 'NR > 1' /proc/net/tcp_hpcc | wc -l
}

no_flows() {		# NS...
	local ns
	for ns; do
		[ "$(flow_count "$ns")" -eq 0 ] || return 1
	done
}

# flow_field NS PORT COLUMN: a column of the flow whose local or remote
# port is PORT in NS's /proc/net/tcp_hpcc (columns: local remote mode w
# wc u stage bottleneck rate t age probe_rtt hops unanswered)
flow_field() {
	$IP netns exec "$1" awk -v p=":$2" -v c="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		substr($1, length($1) - length(p) + 1) == p ||
		substr($2, length($2) - length(p) + 1) == p {
			print $(col[c]); exit }' /proc/net/tcp_hpcc
}

flow_mode_is() {	# NS PORT MODE
	[ "$(flow_field "$1" "$2" mode)" = "$3" ]
}

stat_grew() {		# NAME BASE
	[ "$(hpcc_stat "$1")" -gt "$2" ]
}

# sha256 of a file, or of stdin
sha() {
	sha256sum "$@" | cut -d' ' -f1
}

# A field NAME=VALUE from a line of key=value words.
kv() {			# NAME LINE
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n1
}
