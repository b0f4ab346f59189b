// SPDX-License-Identifier: GPL-2.0
/*
 * tc egress program for the MAC selftest (hpcc_mac.sh). On lo it catches
 * the probes tcp_hpcc sends for the test flow and answers them itself
 * through bpf_hpcc_report(), as a path of two routers holding the domain
 * key would, and as an on-path box without the key would tamper with
 * that: for probe k (1..3) it runs the cases the test put in cases[k-1],
 * in order, each on a fresh response to that probe, and leaves each
 * return code in res[k-1]. A rejected report changes nothing, so one
 * probe can take several refused reports before the one accepted.
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "hpcc_wire.h"
#include "hpcc_parse.h"	/* TC_ACT_*, BPF_F_CURRENT_NETNS */

#define ETH_P_IP	0x0800

extern int bpf_hpcc_report(struct tcp_sock *tp, void *report,
			   __u32 report__sz) __ksym;

/* What one report to the outstanding probe is. */
enum {
	C_END,		/* no more reports for this probe */
	C_VALID,	/* v2, tagged under key if the probe asked for MAC */
	C_QLEN,		/* C_VALID, then bit 20 of hop 2's qlen flipped */
	C_RATE,		/* C_VALID, then bit 12 of hop 2's rate_mbps flipped */
	C_WRONG_KEY,	/* tagged under another key */
	C_UNTAGGED,	/* v2 without HPCC_F_MAC, tags 0 */
	C_V1,		/* a version 1 response to the same probe */
	C_CUT,		/* C_VALID, then nhops 1: hop 2's record cut */
};

#define MAX_PROBES	3
#define MAX_CASES	6
#define NHOPS		2

/* set by the test */
__u16 client_port;			/* hpcc flow, host order */
struct hpcc_hop hops[MAX_PROBES][NHOPS];	/* wire order */
__u8 cases[MAX_PROBES][MAX_CASES];
struct hpcc_sipkey key;

/* read by the test */
int res[MAX_PROBES][MAX_CASES];
int probes_seen;
__u8 probe_version[MAX_PROBES], probe_flags[MAX_PROBES];
__u8 probe_key_id[MAX_PROBES];
int lookups_failed;

/* Cost of the kfunc (set bench to run it, on probe 3): ns for BENCH_N
 * calls (second pass) each of: 2 records untagged, 2 tagged, 8 untagged, 8 tagged, all
 * refused at the nonce (-ESTALE), which bpf_hpcc_report() checks after
 * the MAC: the tagged ones pay the whole verification, the untagged ones
 * everything else.
 */
#define BENCH_N		1024
__u32 bench;
__u64 bench_ns[4];
int bench_ret[4];

struct hpcc_probe_v2 buf;	/* the probe as it came, then each report */
struct hpcc_probe buf1;		/* a version 1 report */
/* Real .rodata: clang leaves an empty .rodata DATASEC in BTF otherwise,
 * which Debian 12's libbpf refuses.
 */
const volatile __u32 nhops_ro = HPCC_MAX_HOPS;

/* Tag records 0..n-1 of buf under key (@wrong: under key with k0 ^ 1). */
__noinline int mac_tags(__u32 n, __u32 wrong)
{
	struct hpcc_sipkey k = key;
	__u8 prev_zero[8] = {};
	__u64 t;
	__u32 i;

	if (wrong)
		k.k0 ^= 1;
	for (i = 0; i < HPCC_MAX_HOPS && i < n && i < nhops_ro; i++) {
		t = hpcc_mac_tag(&k, &buf.hdr, i, &buf.hop[i].rec,
				 i ? (const __u8 *)&buf.hop[i - 1].tag :
				     prev_zero);
		buf.hop[i].tag = bpf_cpu_to_be64(t);
	}
	/* and the receiver's seal (buf's flags already the response's) */
	if (buf.hdr.flags & HPCC_F_RESPONSE)
		hpcc_mac_seal(&buf, &k);
	return 0;
}

static __always_inline int report(struct __sk_buff *skb,
				  struct bpf_sock_tuple *t, void *rep,
				  int v1)
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
	if (!tp)
		lookups_failed++;
	else if (v1)
		ret = bpf_hpcc_report(tp, &buf1, HPCC_PROBE_LEN);
	else
		ret = bpf_hpcc_report(tp, &buf, HPCC_PROBE_V2_LEN);
	bpf_sk_release(sk);
	return ret;
}

static __always_inline void bench_build(__u32 n, int tagged)
{
	__u32 i;

	__builtin_memset(&buf.hop, 0, sizeof(buf.hop));
	buf.hdr.version = HPCC_WIRE_V2;
	buf.hdr.flags = HPCC_F_RESPONSE | (tagged ? HPCC_F_MAC : 0);
	buf.hdr.key_id = 0;
	buf.hdr.nhops = n;
	/* a nonce not outstanding: -ESTALE, checked after the MAC; the
	 * tags are over that nonce, so the chain verifies
	 */
	buf.hdr.nonce ^= bpf_htonl(0x10);
	for (i = 0; i < HPCC_MAX_HOPS; i++)
		buf.hop[i].rec = hops[0][i & 1];
	if (tagged)
		mac_tags(n, 0);
}

static __always_inline void run_bench(struct __sk_buff *skb,
				      struct bpf_sock_tuple *t, __u32 nonce)
{
	struct bpf_sock *sk;
	struct tcp_sock *tp;
	__u64 t0;
	__u32 v, i;

	sk = bpf_skc_lookup_tcp(skb, t, sizeof(t->ipv4), BPF_F_CURRENT_NETNS,
				0);
	if (!sk)
		return;
	tp = bpf_skc_to_tcp_sock(sk);
	if (tp) {
		/* two passes, the first to warm the caches */
		for (v = 0; v < 8; v++) {
			buf.hdr.nonce = nonce;
			bench_build((v & 3) < 2 ? NHOPS : HPCC_MAX_HOPS,
				    v & 1);
			t0 = bpf_ktime_get_ns();
			for (i = 0; i < BENCH_N; i++)
				bench_ret[v & 3] = bpf_hpcc_report(tp, &buf,
							HPCC_PROBE_V2_LEN);
			bench_ns[v & 3] = bpf_ktime_get_ns() - t0;
		}
	}
	bpf_sk_release(sk);
}

SEC("tc")
int mac_test(struct __sk_buff *skb)
{
	struct bpf_sock_tuple to_client = {};
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct tcphdr *th = (void *)(ip + 1);
	__u32 off = sizeof(*eth) + sizeof(*ip) + sizeof(*th), k, j, len;
	__u8 asked, c;

	if ((void *)(th + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->protocol != IPPROTO_TCP || ip->ihl != 5 ||
	    th->source != bpf_htons(client_port) ||
	    (ip->tos >> 2) != HPCC_DSCP_PROBE_DEFAULT)
		return TC_ACT_OK;
	len = bpf_ntohs(ip->tot_len) - sizeof(*ip) - sizeof(*th);
	k = probes_seen++;
	if (k >= MAX_PROBES)
		return TC_ACT_SHOT;
	if (len == HPCC_PROBE_V2_LEN) {
		if (bpf_skb_load_bytes(skb, off, &buf, HPCC_PROBE_V2_LEN))
			return TC_ACT_SHOT;
	} else if (len == HPCC_PROBE_LEN) {
		/* a v1 probe: its 16-byte header is v2's first 16 */
		if (bpf_skb_load_bytes(skb, off, &buf, HPCC_PROBE_LEN))
			return TC_ACT_SHOT;
		buf.hdr.t_us = 0;
		buf.hdr.key_id = 0;
	} else {
		return TC_ACT_SHOT;
	}
	probe_version[k] = buf.hdr.version;
	probe_flags[k] = buf.hdr.flags;
	probe_key_id[k] = buf.hdr.key_id;
	asked = buf.hdr.flags & HPCC_F_MAC;

	to_client.ipv4.saddr = ip->daddr;
	to_client.ipv4.daddr = ip->saddr;
	to_client.ipv4.sport = th->dest;
	to_client.ipv4.dport = th->source;

	if (k == 2 && bench && asked) {
		__u32 nonce = buf.hdr.nonce;

		run_bench(skb, &to_client, nonce);
		buf.hdr.nonce = nonce;
	}
	for (j = 0; j < MAX_CASES; j++) {
		c = cases[k][j];
		if (c == C_END)
			break;
		if (c == C_V1) {
			__builtin_memset(&buf1, 0, sizeof(buf1));
			buf1.hdr.version = HPCC_WIRE_V1;
			buf1.hdr.flags = HPCC_F_RESPONSE;
			buf1.hdr.nhops = NHOPS;
			buf1.hdr.room = HPCC_MAX_HOPS;
			buf1.hdr.nonce = buf.hdr.nonce;
			buf1.hdr.send_ns = buf.hdr.send_ns;
			buf1.hop[0] = hops[k][0];
			buf1.hop[1] = hops[k][1];
			res[k][j] = report(skb, &to_client, &buf1, 1);
			continue;
		}
		__builtin_memset(&buf.hop, 0, sizeof(buf.hop));
		buf.hdr.version = HPCC_WIRE_V2;
		buf.hdr.flags = HPCC_F_RESPONSE;
		buf.hdr.nhops = NHOPS;
		buf.hop[0].rec = hops[k][0];
		buf.hop[1].rec = hops[k][1];
		if (asked && c != C_UNTAGGED) {
			buf.hdr.flags |= HPCC_F_MAC;
			mac_tags(NHOPS, c == C_WRONG_KEY);
		}
		/* the on-path box: after the routers tagged */
		if (c == C_QLEN)
			buf.hop[1].rec.qlen ^= bpf_htonl(1 << 20);
		if (c == C_RATE)
			buf.hop[1].rec.rate_mbps ^= bpf_htonl(1 << 12);
		if (c == C_CUT)
			buf.hdr.nhops = NHOPS - 1;
		res[k][j] = report(skb, &to_client, &buf, 0);
	}
	return TC_ACT_SHOT;
}

char _license[] SEC("license") = "GPL";
