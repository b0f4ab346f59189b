// SPDX-License-Identifier: GPL-2.0
/*
 * tc egress program of hpcc_live_fuzz: on the senders' device it catches
 * the probes tcp_hpcc sends for LF_FLOWS live hpcc flows and answers each
 * one itself, with the reports userspace queued in that flow's ring: every
 * report gets the probe's own nonce (the live one: it passes the nonce
 * check and reaches the window law), or a wrong nonce where the entry asks
 * for it, and goes to bpf_hpcc_report() for the flow's socket, or for a
 * cubic connection's socket. The kfunc's return code of each goes to
 * `rc`. The probe itself is dropped: no other response can race with
 * ours. A probe that finds its ring empty is only counted (`probes_idle`):
 * that is how userspace knows that the flow consumed its last report (a
 * flow probes again only after its ACK path took the report) and is quiet.
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "hpcc_wire.h"

#define TC_ACT_OK		0
#define TC_ACT_SHOT		2
#define ETH_P_IP		0x0800
#define CURRENT_NETNS		(-1L)

#include "live_fuzz.h"

extern int bpf_hpcc_report(struct tcp_sock *tp, void *report,
			   __u32 report__sz) __ksym;

/* set by userspace, host order; a client port 0 is no flow */
__u16 client_port[LF_FLOWS];		/* the hpcc flows */
__u16 server_port;
__u16 cubic_port;			/* client port of the cubic connection */
__u8 probe_dscp;

/* queued by userspace: entries [tail, head) of each flow */
struct lf_entry ring[LF_FLOWS][LF_RING];
volatile __u32 head[LF_FLOWS];

/* written here; each flow's probes are serialised by its socket */
int rc[LF_FLOWS][LF_RING];
volatile __u32 tail[LF_FLOWS];
__u64 probes[LF_FLOWS], probes_idle[LF_FLOWS];
__u64 calls, lookups_failed;

/* the report being handed over, one per CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hpcc_probe);
} scratch SEC(".maps");

static __always_inline struct bpf_sock *lookup(struct __sk_buff *skb,
					       struct iphdr *ip, __u16 sport,
					       __u16 dport)
{
	struct bpf_sock_tuple t = {};

	/* as a response would arrive: from the server to the client */
	t.ipv4.saddr = ip->daddr;
	t.ipv4.daddr = ip->saddr;
	t.ipv4.sport = bpf_htons(sport);
	t.ipv4.dport = bpf_htons(dport);
	return bpf_skc_lookup_tcp(skb, &t, sizeof(t.ipv4), CURRENT_NETNS, 0);
}

SEC("tc")
int live_fuzz(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct tcphdr *th = (void *)(ip + 1);
	struct bpf_sock *sk_hpcc, *sk_cubic;
	struct tcp_sock *tp_hpcc, *tp_cubic;
	__u32 off = sizeof(*eth) + sizeof(*ip) + sizeof(*th);
	__u32 nonce, i, f, zero = 0;
	struct hpcc_probe *buf;
	__u16 sport;

	if ((void *)(th + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->protocol != IPPROTO_TCP || ip->ihl != 5 ||
	    th->dest != bpf_htons(server_port) ||
	    (ip->tos >> 2) != probe_dscp)
		return TC_ACT_OK;
	sport = bpf_ntohs(th->source);
	for (f = 0; f < LF_FLOWS; f++)
		if (client_port[f] && client_port[f] == sport)
			break;
	if (f >= LF_FLOWS)
		return TC_ACT_OK;
	if (bpf_skb_load_bytes(skb, off + 4, &nonce, sizeof(nonce)))
		return TC_ACT_OK;
	probes[f]++;
	if (tail[f] == head[f]) {
		probes_idle[f]++;
		return TC_ACT_SHOT;
	}
	buf = bpf_map_lookup_elem(&scratch, &zero);
	if (!buf)
		return TC_ACT_SHOT;

	sk_hpcc = lookup(skb, ip, server_port, sport);
	if (!sk_hpcc) {
		__sync_fetch_and_add(&lookups_failed, 1);
		return TC_ACT_SHOT;
	}
	sk_cubic = lookup(skb, ip, server_port, cubic_port);
	if (!sk_cubic) {
		__sync_fetch_and_add(&lookups_failed, 1);
		bpf_sk_release(sk_hpcc);
		return TC_ACT_SHOT;
	}
	tp_hpcc = bpf_skc_to_tcp_sock(sk_hpcc);
	tp_cubic = bpf_skc_to_tcp_sock(sk_cubic);
	if (!tp_hpcc || !tp_cubic) {
		__sync_fetch_and_add(&lookups_failed, 1);
		goto out;
	}

	for (i = 0; i < LF_PER_PROBE; i++) {
		__u32 t = tail[f], idx = t & (LF_RING - 1);
		struct lf_entry *e = &ring[f][idx];
		struct tcp_sock *tp;
		__u32 flags;
		int ret;

		if (t == head[f])
			break;
		__builtin_memcpy(buf, &e->p, sizeof(*buf));
		flags = e->flags;
		if (flags & LF_NONCE_XOR)
			buf->hdr.nonce = nonce ^ e->p.hdr.nonce;
		else if (!(flags & LF_NONCE_RAW))
			buf->hdr.nonce = nonce;
		tp = flags & LF_CUBIC ? tp_cubic : tp_hpcc;
		switch (e->size) {
		case LF_SZ_HDR:
			ret = bpf_hpcc_report(tp, buf, sizeof(buf->hdr));
			break;
		case LF_SZ_SHORT:
			ret = bpf_hpcc_report(tp, buf, sizeof(*buf) - 32);
			break;
		default:
			ret = bpf_hpcc_report(tp, buf, sizeof(*buf));
		}
		rc[f][idx] = ret;
		__sync_fetch_and_add(&calls, 1);
		tail[f] = t + 1;
		if (flags & LF_LAST)
			break;
	}
out:
	bpf_sk_release(sk_cubic);
	bpf_sk_release(sk_hpcc);
	return TC_ACT_SHOT;
}

char _license[] SEC("license") = "GPL";
