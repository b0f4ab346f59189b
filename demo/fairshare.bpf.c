// SPDX-License-Identifier: GPL-2.0
/*
 * fairshare: the bench's fair-share reference, not a congestion control
 * for any real network. A BPF tcp_congestion_ops that knows what no sender
 * can: the bottleneck's rate and how many flows share it right now. The
 * demo's hosts are network namespaces of one kernel, so one counter
 * counts every flow of the bench that has data out; each paces at
 * FAIR_RATE_BPS / that count from the ACK after the count changed. Its
 * incast FCT is what a perfect fair share reaches on this emulator
 * (demo/analyze.py's fair-share ideal, measured instead of computed).
 *
 * Registered in the VM with "bpftool struct_ops register" by
 * demo/scenarios.sh for its "fairshare" runs; the rate is the bench's
 * bottleneck (demo/topo_dc.sh) less the Ethernet header that the
 * bottleneck counts and pacing does not.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

#ifndef FAIR_RATE_BPS
#define FAIR_RATE_BPS	(12500000ULL * 1486 / 1500)	/* 100 Mbit/s */
#endif
#define FAIR_RTT_US	5000		/* cwnd's room: 2 of these at R */
#define FAIR_MIN_CWND	4

__u32 active;				/* flows with data out, all hosts */

struct fair_ca {
	__u32 counted;
};

static __always_inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline void *inet_csk_ca(const struct sock *sk)
{
	return (void *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline void fair_set(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 n = active ? active : 1;
	__u64 rate = FAIR_RATE_BPS / n;
	__u64 cwnd = rate * 2 * FAIR_RTT_US / 1000000 /
		     (tp->mss_cache ? tp->mss_cache : 1);

	sk->sk_pacing_rate = rate;
	tp->snd_cwnd = cwnd > FAIR_MIN_CWND ? cwnd : FAIR_MIN_CWND;
}

/* icsk_ca_priv comes zeroed: not counted yet */
SEC("struct_ops/fair_init")
void BPF_PROG(fair_init, struct sock *sk)
{
	sk->sk_pacing_status = SK_PACING_NEEDED;
	fair_set(sk);
}

SEC("struct_ops/fair_release")
void BPF_PROG(fair_release, struct sock *sk)
{
	struct fair_ca *ca = (struct fair_ca *)inet_csk_ca(sk);

	if (ca->counted)
		__sync_fetch_and_sub(&active, 1);
}

/* Data leaves with nothing in flight: the flow shares the link again. */
SEC("struct_ops/fair_cwnd_event")
void BPF_PROG(fair_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct fair_ca *ca = (struct fair_ca *)inet_csk_ca(sk);

	if (ev != CA_EVENT_TX_START || ca->counted)
		return;
	ca->counted = 1;
	__sync_fetch_and_add(&active, 1);
	fair_set(sk);
}

/* Every ACK: the share of the flows counted now. A flow counts while it
 * has bytes not yet sent: one whose last bytes are in flight needs no
 * more of the link.
 */
SEC("struct_ops/fair_cong_control")
void BPF_PROG(fair_cong_control, struct sock *sk, const struct rate_sample *rs)
{
	struct fair_ca *ca = (struct fair_ca *)inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 unsent = tp->write_seq != tp->snd_nxt;

	if (ca->counted && !unsent) {
		ca->counted = 0;
		__sync_fetch_and_sub(&active, 1);
	} else if (!ca->counted && unsent) {
		ca->counted = 1;
		__sync_fetch_and_add(&active, 1);
	}
	fair_set(sk);
}

SEC("struct_ops/fair_ssthresh")
__u32 BPF_PROG(fair_ssthresh, struct sock *sk)
{
	return tcp_sk(sk)->snd_cwnd;
}

SEC("struct_ops/fair_undo_cwnd")
__u32 BPF_PROG(fair_undo_cwnd, struct sock *sk)
{
	return tcp_sk(sk)->snd_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops fairshare = {
	.init		= (void *)fair_init,
	.release	= (void *)fair_release,
	.cwnd_event	= (void *)fair_cwnd_event,
	.cong_control	= (void *)fair_cong_control,
	.ssthresh	= (void *)fair_ssthresh,
	.undo_cwnd	= (void *)fair_undo_cwnd,
	.name		= "fairshare",
};
