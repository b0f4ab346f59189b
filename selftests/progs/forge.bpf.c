// SPDX-License-Identifier: GPL-2.0
/*
 * tc egress program of hpcc_forge: a lying receiver. On the receiver's
 * device it rewrites every version 1 response to probes of one connection
 * (the server port, and the client port if given) after hpcc_host turned
 * it around: each record claims an idle path (FORGE_IDLE: capacity
 * 0xffffffff Mbit/s, no queue, no bytes sent) or a huge queue (FORGE_QUEUE:
 * qlen 0xffffffff). The TCP checksum follows the change, so the sender
 * takes the report: this is what a receiver can do through the telemetry
 * fields alone (the threat model's "receiver"; it would hold a MAC key).
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "hpcc_wire.h"

#define TC_ACT_OK		0
#define ETH_P_IP		0x0800
#define FORGE_IDLE		1
#define FORGE_QUEUE		2

/* set by userspace before load, host order */
const volatile __u32 mode;
const volatile __u16 server_port;
const volatile __u16 client_port;	/* 0: every client */
const volatile __u8 resp_dscp;

__u64 forged, passed;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct hpcc_probe);
} scratch SEC(".maps");

SEC("tc")
int forge(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct tcphdr *th = (void *)(ip + 1);
	__u32 off = sizeof(*eth) + sizeof(*ip), i, k0 = 0, k1 = 1;
	struct hpcc_probe *old, *new;
	__s64 diff;

	if ((void *)(th + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->protocol != IPPROTO_TCP || ip->ihl != 5 ||
	    (ip->tos >> 2) != resp_dscp ||
	    th->source != bpf_htons(server_port) ||
	    (client_port && th->dest != bpf_htons(client_port)) ||
	    th->doff != 5 ||
	    bpf_ntohs(ip->tot_len) != sizeof(*ip) + sizeof(*th) + HPCC_PROBE_LEN)
		return TC_ACT_OK;
	old = bpf_map_lookup_elem(&scratch, &k0);
	new = bpf_map_lookup_elem(&scratch, &k1);
	if (!old || !new ||
	    bpf_skb_load_bytes(skb, off + sizeof(*th), old, HPCC_PROBE_LEN))
		return TC_ACT_OK;
	if (old->hdr.version != HPCC_WIRE_V1 ||
	    !(old->hdr.flags & HPCC_F_RESPONSE)) {
		passed++;
		return TC_ACT_OK;
	}
	__builtin_memcpy(new, old, sizeof(*new));
	for (i = 0; i < HPCC_MAX_HOPS; i++) {
		if (i >= new->hdr.nhops)
			break;
		if (mode == FORGE_IDLE) {
			new->hop[i].rate_mbps = 0xffffffff;
			new->hop[i].qlen = 0;
			new->hop[i].tx_bytes = 0;
		} else {
			new->hop[i].qlen = 0xffffffff;
		}
	}
	/* the records only (the header is kept): bpf_csum_diff() takes 512
	 * bytes of both sides at most
	 */
	diff = bpf_csum_diff((__be32 *)old->hop, sizeof(old->hop),
			     (__be32 *)new->hop, sizeof(new->hop), 0);
	if (diff < 0 ||
	    bpf_skb_store_bytes(skb, off + sizeof(*th), new, HPCC_PROBE_LEN,
				0) ||
	    bpf_l4_csum_replace(skb, off + offsetof(struct tcphdr, check), 0,
				(__u32)diff, 0))
		return TC_ACT_OK;
	forged++;
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
