// SPDX-License-Identifier: GPL-2.0
/*
 * tc egress program for the kfunc selftest. On lo it catches the probes
 * tcp_hpcc sends for the test flow and, instead of letting switches and a
 * reflector answer, calls bpf_hpcc_report() itself: on the first probe with
 * every malformed variant, for a socket that is not hpcc, with a valid
 * report and with a replay; on the second probe with a valid report whose
 * telemetry the test has chosen. Return codes go to `result`.
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "hpcc_wire.h"
#include "hpcc_parse.h"	/* TC_ACT_*, BPF_F_CURRENT_NETNS */

#define ETH_P_IP	0x0800

extern int bpf_hpcc_report(struct tcp_sock *tp, void *report,
			   __u32 report__sz) __ksym;

enum {
	R_SIZE, R_VERSION, R_HOPS, R_NOT_RESPONSE, R_NONCE, R_NOT_HPCC,
	R_OVERFLOW, R_VALID1, R_REPLAY, R_VALID2, R_MAX
};

/* set by the test */
__u16 client_port;			/* hpcc flow, host order */
__u16 server_port;
struct hpcc_hop hops1[2], hops2[2];	/* wire order */
__u8 nhops;

/* read by the test */
int result[R_MAX];
int probes_seen;
__u64 probe_ns[2];
__u32 probe_seq[2];
int lookups_failed;

static struct hpcc_probe buf;

static int report(struct __sk_buff *skb, struct bpf_sock_tuple *t,
		  __u32 size)
{
	struct bpf_sock *sk;
	struct tcp_sock *tp;
	int ret = -1000;

	sk = bpf_skc_lookup_tcp(skb, t, sizeof(t->ipv4), BPF_F_CURRENT_NETNS,
				0);
	if (!sk) {
		lookups_failed++;
		return ret;
	}
	tp = bpf_skc_to_tcp_sock(sk);
	if (tp)
		ret = bpf_hpcc_report(tp, &buf, size < sizeof(buf) ?
				      sizeof(buf) - 32 : sizeof(buf));
	else
		lookups_failed++;
	bpf_sk_release(sk);
	return ret;
}

SEC("tc")
int kfunc_test(struct __sk_buff *skb)
{
	struct bpf_sock_tuple to_client = {}, to_server = {};
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct tcphdr *th = (void *)(ip + 1);
	__u32 off = sizeof(*eth) + sizeof(*ip) + sizeof(*th);
	__u32 nonce;

	if ((void *)(th + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->protocol != IPPROTO_TCP || ip->ihl != 5 ||
	    th->source != bpf_htons(client_port) ||
	    (ip->tos >> 2) != HPCC_DSCP_PROBE_DEFAULT)
		return TC_ACT_OK;
	if (bpf_skb_load_bytes(skb, off, &buf, sizeof(buf)))
		return TC_ACT_OK;
	probes_seen++;
	if (probes_seen == 1 || probes_seen == 2) {
		int k = probes_seen == 2;

		probe_ns[k] = bpf_ktime_get_ns();
		probe_seq[k] = bpf_ntohl(th->seq);
	}

	/* as a response to the client would arrive: from server to client */
	to_client.ipv4.saddr = ip->daddr;
	to_client.ipv4.daddr = ip->saddr;
	to_client.ipv4.sport = th->dest;
	to_client.ipv4.dport = th->source;
	/* the server's socket (not hpcc) */
	to_server.ipv4.saddr = ip->saddr;
	to_server.ipv4.daddr = ip->daddr;
	to_server.ipv4.sport = th->source;
	to_server.ipv4.dport = th->dest;

	buf.hdr.flags = HPCC_F_RESPONSE;
	nonce = buf.hdr.nonce;
	if (probes_seen == 1) {
		result[R_SIZE] = report(skb, &to_client, sizeof(buf) - 32);
		buf.hdr.version = 3;	/* 2 exists now, at its own length */
		result[R_VERSION] = report(skb, &to_client, sizeof(buf));
		buf.hdr.version = HPCC_WIRE_VERSION;
		buf.hdr.nhops = HPCC_MAX_HOPS + 1;
		result[R_HOPS] = report(skb, &to_client, sizeof(buf));
		buf.hdr.nhops = 0;
		buf.hdr.flags = 0;
		result[R_NOT_RESPONSE] = report(skb, &to_client, sizeof(buf));
		buf.hdr.flags = HPCC_F_RESPONSE;
		buf.hdr.nonce = nonce ^ bpf_htonl(0x10);
		result[R_NONCE] = report(skb, &to_client, sizeof(buf));
		buf.hdr.nonce = nonce;
		result[R_NOT_HPCC] = report(skb, &to_server, sizeof(buf));
		/* a full probe whose path had more hops than room */
		buf.hdr.nhops = HPCC_MAX_HOPS;
		buf.hdr.flags = HPCC_F_RESPONSE | HPCC_F_OVERFLOW;
		result[R_OVERFLOW] = report(skb, &to_client, sizeof(buf));
		buf.hdr.flags = HPCC_F_RESPONSE;
		buf.hdr.nhops = nhops;
		__builtin_memcpy(buf.hop, hops1, sizeof(hops1));
		result[R_VALID1] = report(skb, &to_client, sizeof(buf));
		result[R_REPLAY] = report(skb, &to_client, sizeof(buf));
	} else if (probes_seen == 2) {
		buf.hdr.nhops = nhops;
		__builtin_memcpy(buf.hop, hops2, sizeof(hops2));
		result[R_VALID2] = report(skb, &to_client, sizeof(buf));
	}
	return TC_ACT_SHOT;
}

char _license[] SEC("license") = "GPL";
