// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_host.bpf.c - HPCC++ at an end host, tc clsact ingress.
 *
 * Receiver: a valid probe is turned into a response in place (MACs,
 * addresses and ports swapped, HPCC_F_RESPONSE, response DSCP, fresh TTL)
 * and sent back out of the device it came in on. Ethernet devices (with
 * in-band VLAN tags or not) and raw IP devices (tun, wireguard, ipip...)
 * alike; see hpcc_link_of(). Only a probe of a connection of this host
 * (its 4-tuple finds a connected TCP socket) is answered, at most at the
 * reflection rate; the others are dropped and counted: no open reflector.
 * Sender: a valid response is handed to tcp_hpcc.ko through its kfunc
 * bpf_hpcc_report() for the local socket it belongs to, then dropped so
 * TCP never sees it.
 * Both act only on a probe or response whose TCP checksum is right.
 * Malformed HPCC candidates, and those with a wrong checksum, are dropped
 * (TCP would discard a segment without ACK/SYN/RST anyway); everything
 * else passes byte-identical.
 *
 * Works with plain `tc filter add dev X ingress bpf da obj hpcc_host.bpf.o
 * sec tc`: the config map has defaults when unset, and the kfunc is weak.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_core_read.h>
#include "hpcc_stamp.h"
#include "hpcc_parse.h"
#include "hpcc_flowcount.h"

char LICENSE[] SEC("license") = "GPL";

/* struct tcp_sock comes from vmlinux.h: libbpf 1.1 rejects the prototype
 * against the module's BTF if it is only forward-declared.
 */
extern int bpf_hpcc_report(struct tcp_sock *tp, const void *report,
			   __u32 report__sz) __ksym __weak;
extern int bpf_hpcc_rx_window(struct tcp_sock *tp, void *probe,
			      __u32 probe__sz, void *state,
			      __u32 state__sz) __ksym __weak;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hpcc_host_cfg);
} hpcc_host_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, HPCC_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} hpcc_counters SEC(".maps");

/* The reflection limit's state (struct hpcc_reflect_tb). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hpcc_reflect_tb);
} hpcc_reflect_tb SEC(".maps");

/* The per-peer reflection limit's state (struct hpcc_peer_key). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, HPCC_REFLECT_PEERS);
	__type(key, struct hpcc_peer_key);
	__type(value, struct hpcc_reflect_tb);
} hpcc_reflect_peer SEC(".maps");

/* The domain's MAC keys, by key_id (wire version 2), for the receiver's
 * tag: written by "hpcc-probe key set" (the namespace's host key map,
 * shared by its host instances).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, HPCC_MAC_KEYS);
	__type(key, __u32);
	__type(value, struct hpcc_mac_key);
} hpcc_mac_keys SEC(".maps");

/* Rx-HPCC: the receiver's state of each connection it computes windows
 * for (struct hpcc_rx_blob), freed with the socket.
 */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct hpcc_rx_blob);
} hpcc_rx_flows SEC(".maps");

/* Receiver-measured N: the flows whose probes this device answers
 * (struct hpcc_flowcount).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hpcc_flowcount);
} hpcc_flowcount SEC(".maps");

/* Scratch copy of a response for the kfunc (keeps it off the stack);
 * either version, so the larger.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hpcc_probe_v2);
} hpcc_report_buf SEC(".maps");

#define HPCC_TB_RETRIES		4
#define HPCC_NSEC_PER_SEC	1000000000ULL

/* READ_ONCE() of a u64 other CPUs change: one load, never torn, never
 * merged with another by the compiler.
 */
static __always_inline __u64 hpcc_read_once_u64(const __u64 *p)
{
	__u64 v;

	asm volatile("%0 = *(u64 *)(%1 + 0)" : "=r"(v) : "r"(p));
	return v;
}

/* Is tcp_hpcc.ko there? Its BTF has the wire types (the kfunc takes a
 * struct hpcc_probe): a CO-RE type-existence check is resolved by libbpf
 * against vmlinux and module BTFs at load time. With the module absent
 * the branch calling the unresolved weak kfunc is dead code, which the
 * 6.1 verifier removes before rejecting kfunc id 0. The obvious
 * `if (!bpf_hpcc_report)` needs ld_imm64 of a kfunc address, which 6.1
 * rejects as soon as the kfunc does resolve (supported from 6.3).
 */
static __always_inline bool hpcc_have_module(void)
{
	return bpf_core_type_exists(struct hpcc_probe);
}

static __always_inline void hpcc_swap(struct __sk_buff *skb, __u32 off,
				      __u32 half, void *a, void *b)
{
	/* a and b are 2*half bytes of scratch; swap two adjacent fields. */
	if (bpf_skb_load_bytes(skb, off, a, half) ||
	    bpf_skb_load_bytes(skb, off + half, b, half))
		return;
	bpf_skb_store_bytes(skb, off, b, half, 0);
	bpf_skb_store_bytes(skb, off + half, a, half, 0);
}

/*
 * A v2 probe with HPCC_F_MAC: seal its response (hpcc_mac_resp_tag(),
 * hpcc_wire.h) in place of the last record's tag. @pay is the probe's
 * payload as it came, @nh its response header's first word. Without the
 * key here the tag is left as it is, counted: the sender rejects it.
 */
static __always_inline int hpcc_seal(struct __sk_buff *skb,
				     const struct hpcc_pkt *p,
				     const struct hpcc_probe_v2 *pay,
				     const struct hpcc_hdr_word *nh)
{
	struct hpcc_hdr_v2 h2 = pay->hdr;
	struct hpcc_mac_key *mk;
	struct hpcc_sipkey k;
	__u8 last[8] = {}, tag[8];
	__u32 id = h2.key_id, slot;

	mk = id < HPCC_MAC_KEYS ? bpf_map_lookup_elem(&hpcc_mac_keys, &id) :
				  NULL;
	if (!mk || !(mk->flags & HPCC_KEY_F_SET)) {
		hpcc_count(&hpcc_counters, HPCC_CNT_REFLECT_NO_KEY);
		return 0;
	}
	h2.flags = nh->flags;
	slot = hpcc_mac_resp_slot(h2.nhops);
	if (slot >= HPCC_MAX_HOPS)
		return -1;
	/* 6.1's verifier loses the bound above on the 64-bit spill of slot
	 * ("R2 unbounded memory access"): a mask on the whole register, in
	 * asm so that the compiler cannot drop it as redundant.
	 */
	_Static_assert(HPCC_MAX_HOPS == 8, "the mask below is HPCC_MAX_HOPS - 1");
	asm volatile("%0 &= 7" : "+r"(slot));
	if (h2.nhops)
		__builtin_memcpy(last, &pay->hop[slot].tag, 8);
	hpcc_sipkey_of(&k, mk->key);
	hpcc_put_be64_wire(tag, hpcc_mac_resp_tag(&k, &h2, last));
	hpcc_count(&hpcc_counters, HPCC_CNT_REFLECT_SEALED);
	return hpcc_write_payload(skb, p, sizeof(h2) + slot *
				  sizeof(struct hpcc_hop_v2) +
				  HPCC_HOP_V2_TAG_OFF,
				  (void *)&pay->hop[slot].tag, tag, 8);
}

/* Address a probe back to its sender: MACs, addresses and ports
 * swapped (both checksums' sums unchanged), the response DSCP and a
 * fresh TTL (folded into the IPv4 header checksum).
 */
static __always_inline int hpcc_turn_around(struct __sk_buff *skb,
					    const struct hpcc_pkt *p,
					    __u8 resp_dscp)
{
	__u8 a[16], b[16];
	__u32 addr_off, alen;

	if (p->eth)
		hpcc_swap(skb, 0, 6, a, b);			/* MACs */
	if (p->ipv6) {
		addr_off = p->l3_off + offsetof(struct hpcc_ip6h, saddr);
		alen = 16;
	} else {
		addr_off = p->l3_off + offsetof(struct hpcc_iph, saddr);
		alen = 4;
	}
	if (bpf_skb_load_bytes(skb, addr_off, a, alen) ||
	    bpf_skb_load_bytes(skb, addr_off + alen, b, alen) ||
	    bpf_skb_store_bytes(skb, addr_off, b, alen, 0) ||
	    bpf_skb_store_bytes(skb, addr_off + alen, a, alen, 0))
		return -1;
	hpcc_swap(skb, p->l4_off, 2, a, b);			/* ports */

	if (hpcc_set_dscp(skb, p, resp_dscp) ||
	    hpcc_set_ttl(skb, p, HPCC_RESP_TTL))
		return -1;
	return 0;
}

/* Turn a probe into its response and send it back: the flags byte's
 * change is folded into the TCP checksum.
 */
static __always_inline int hpcc_reflect(struct __sk_buff *skb,
					const struct hpcc_pkt *p,
					const struct hpcc_hdr *h, __u8 resp_dscp,
					const struct hpcc_probe_v2 *pay)
{
	struct hpcc_hdr_word ow, nw;
	struct hpcc_hdr nh;

	if (hpcc_turn_around(skb, p, resp_dscp))
		return -1;
	ow = hpcc_hdr_word_of(h);
	hpcc_respond_hdr(h, &nh);
	nw = hpcc_hdr_word_of(&nh);
	if (hpcc_write_payload(skb, p, 0, &ow, &nw, sizeof(nw)))
		return -1;
	if (h->version == HPCC_WIRE_V2 && (h->flags & HPCC_F_MAC))
		return hpcc_seal(skb, p, pay, &nw);
	return 0;
}

static __always_inline __u32 hpcc_report_counter(int ret)
{
	switch (ret) {
	case 0:
		return HPCC_CNT_RESP_DELIVERED;
	case -EOPNOTSUPP:
		return HPCC_CNT_NOT_HPCC;
	case -ESTALE:
		return HPCC_CNT_BAD_NONCE;
	case -ENOBUFS:
		return HPCC_CNT_NO_FLOW_STATE;
	case -EINVAL:
		return HPCC_CNT_BAD_SOCKET;
	case -EKEYREJECTED:
		return HPCC_CNT_REJECT_MAC;
	case -ENOKEY:
		return HPCC_CNT_MAC_MISSING;
	default:
		return HPCC_CNT_KFUNC_OTHER;
	}
}

/* The socket lookup's tuple of candidate @p into @t (its length in
 * @tlen): 0, or -1 if the packet could not be read. A probe travels
 * sender -> us and a response peer -> us: as an incoming packet's tuple
 * either is exactly what the lookup wants.
 */
static __always_inline int hpcc_tuple(struct __sk_buff *skb,
				      const struct hpcc_pkt *p,
				      struct bpf_sock_tuple *t, __u32 *tlen)
{
	if (p->ipv6) {
		if (bpf_skb_load_bytes(skb, p->l3_off +
				       offsetof(struct hpcc_ip6h, saddr),
				       &t->ipv6.saddr, 32) ||
		    bpf_skb_load_bytes(skb, p->l4_off, &t->ipv6.sport, 4))
			return -1;
		*tlen = sizeof(t->ipv6);
	} else {
		if (bpf_skb_load_bytes(skb, p->l3_off +
				       offsetof(struct hpcc_iph, saddr),
				       &t->ipv4.saddr, 8) ||
		    bpf_skb_load_bytes(skb, p->l4_off, &t->ipv4.sport, 4))
			return -1;
		*tlen = sizeof(t->ipv4);
	}
	return 0;
}

/* Is probe @p one of a connection of ours? Its destination must be a
 * local address and port with a connected TCP socket whose peer is the
 * probe's source: one established-table lookup, which also finds
 * listeners, request and timewait sockets (no connection to measure).
 * So a probe to a closed port, to an address this host does not own, or
 * with a spoofed source is refused, and a response can only go to the
 * peer of a live connection. The tc hook runs before netfilter: this is
 * the policy probes get (Documentation/tcp_hpcc.rst, "Reflection").
 * 0, or the counter of the refusal.
 */
static __always_inline __u32 hpcc_reflect_conn(struct __sk_buff *skb,
					       const struct hpcc_pkt *p)
{
	struct bpf_sock_tuple t = {};
	struct bpf_sock *sk;
	__u32 tlen, cnt = 0;

	if (hpcc_tuple(skb, p, &t, &tlen))
		return HPCC_CNT_WRITE_FAIL;
	sk = bpf_skc_lookup_tcp(skb, &t, tlen, BPF_F_CURRENT_NETNS, 0);
	if (!sk)
		return HPCC_CNT_REFLECT_NO_SOCKET;
	if (sk->state == BPF_TCP_LISTEN || !bpf_skc_to_tcp_sock(sk))
		cnt = HPCC_CNT_REFLECT_NO_CONN;
	bpf_sk_release(sk);
	return cnt;
}

/* One generic cell rate algorithm step on @tb: may one more probe go
 * now, at @rate probes/s (non-zero) with @burst (non-zero) at once? The
 * slot is updated with a cmpxchg, and a probe that cannot get in after
 * HPCC_TB_RETRIES tries is refused as over the rate.
 */
static __always_inline bool hpcc_gcra(struct hpcc_reflect_tb *tb, __u64 now,
				      __u64 rate, __u64 burst)
{
	__u64 ival = HPCC_NSEC_PER_SEC / rate, old, tat;
	__u32 i;

	for (i = 0; i < HPCC_TB_RETRIES; i++) {
		old = hpcc_read_once_u64(&tb->tat);
		tat = old > now ? old : now;
		if (tat - now > (burst - 1) * ival)
			return false;
		if (__sync_val_compare_and_swap(&tb->tat, old, tat + ival) ==
		    old)
			return true;
	}
	return false;
}

/* The reflection limit (struct hpcc_reflect_tb): may one more probe be
 * answered now? One rate for the device, whichever CPU the probe came
 * in on.
 */
static __always_inline bool hpcc_reflect_ok(const struct hpcc_host_cfg *cfg,
					    __u64 now)
{
	__u64 rate = HPCC_REFLECT_RATE_DEFAULT;
	__u64 burst = HPCC_REFLECT_BURST_DEFAULT;
	struct hpcc_reflect_tb *tb;
	__u32 zero = 0;

	if (cfg && (cfg->flags & HPCC_CFG_F_REFLECT)) {
		rate = cfg->reflect_rate;
		burst = cfg->reflect_burst;
	}
	if (!rate)
		return true;
	tb = bpf_map_lookup_elem(&hpcc_reflect_tb, &zero);
	return tb && hpcc_gcra(tb, now, rate, burst ? burst : 1);
}

/* The per-peer limit (struct hpcc_peer_key): the same, for the probe's
 * source address alone. A peer seen for the first time starts with a
 * full burst; if its slot cannot be created the probe is refused (the
 * LRU map evicts rather than fails, so this is an allocation failure).
 */
static __always_inline bool hpcc_peer_ok(struct __sk_buff *skb,
					 const struct hpcc_pkt *p,
					 const struct hpcc_host_cfg *cfg,
					 __u64 now)
{
	__u64 rate = HPCC_PEER_RATE_DEFAULT;
	__u64 burst = HPCC_PEER_BURST_DEFAULT;
	struct hpcc_reflect_tb *tb, fresh = {};
	struct hpcc_peer_key k = {};

	if (cfg && (cfg->flags & HPCC_CFG_F_PEER)) {
		rate = cfg->peer_rate;
		burst = cfg->peer_burst;
	}
	if (!rate)
		return true;
	if (!burst)
		burst = 1;
	if (p->ipv6) {
		if (bpf_skb_load_bytes(skb, p->l3_off +
				       offsetof(struct hpcc_ip6h, saddr),
				       k.addr, 16))
			return false;
	} else {
		k.addr[10] = 0xff;
		k.addr[11] = 0xff;
		if (bpf_skb_load_bytes(skb, p->l3_off +
				       offsetof(struct hpcc_iph, saddr),
				       &k.addr[12], 4))
			return false;
	}
	tb = bpf_map_lookup_elem(&hpcc_reflect_peer, &k);
	if (!tb) {
		bpf_map_update_elem(&hpcc_reflect_peer, &k, &fresh,
				    BPF_NOEXIST);
		tb = bpf_map_lookup_elem(&hpcc_reflect_peer, &k);
		if (!tb)
			return false;
	}
	return hpcc_gcra(tb, now, rate, burst);
}

/* Rx-HPCC: the module's window for probe @buf (it asked for one), written
 * over the first HPCC_WINDOW_LEN bytes of @buf: 0, or the kfunc's error
 * (then @buf's records are as they came, and are reflected instead).
 */
static __always_inline int hpcc_rx_window_for(struct __sk_buff *skb,
					      const struct hpcc_pkt *p,
					      struct hpcc_probe_v2 *buf)
{
	struct bpf_sock_tuple t = {};
	struct hpcc_rx_blob *st;
	struct bpf_sock *sk;
	struct tcp_sock *tp;
	__u32 tlen;
	int ret = -ENOENT;

	if (hpcc_tuple(skb, p, &t, &tlen))
		return -EINVAL;
	sk = bpf_skc_lookup_tcp(skb, &t, tlen, BPF_F_CURRENT_NETNS, 0);
	if (!sk)
		return -ENOENT;
	tp = sk->state != BPF_TCP_LISTEN ? bpf_skc_to_tcp_sock(sk) : NULL;
	if (tp) {
		st = bpf_sk_storage_get(&hpcc_rx_flows, tp, NULL,
					BPF_SK_STORAGE_GET_F_CREATE);
		ret = st ? bpf_hpcc_rx_window(tp, buf, HPCC_PROBE_V2_LEN, st,
					      sizeof(*st)) : -ENOMEM;
	}
	bpf_sk_release(sk);
	return ret;
}

/* Send window response @win (HPCC_WINDOW_LEN bytes, from the module) in
 * place of probe @p: addressed back, the payload replaced and the frame
 * trimmed to it, the IP length fixed, and the TCP checksum computed anew
 * over the segment as it now is.
 */
static __always_inline int hpcc_reflect_window(struct __sk_buff *skb,
					       const struct hpcc_pkt *p,
					       __u8 resp_dscp,
					       const void *win)
{
	__u32 l3_len = p->pay_off - p->l3_off + HPCC_WINDOW_LEN;
	__u32 csum_off = p->l4_off + HPCC_TCP_CSUM_OFF;
	__be16 old16, new16, zero = 0;
	__s64 sum;

	if (hpcc_turn_around(skb, p, resp_dscp) ||
	    bpf_skb_store_bytes(skb, p->pay_off, win, HPCC_WINDOW_LEN, 0) ||
	    bpf_skb_change_tail(skb, p->pay_off + HPCC_WINDOW_LEN, 0))
		return -1;
	if (p->ipv6) {
		new16 = bpf_htons(l3_len - sizeof(struct hpcc_ip6h));
		if (bpf_skb_store_bytes(skb, p->l3_off +
					offsetof(struct hpcc_ip6h, payload_len),
					&new16, 2, 0))
			return -1;
	} else {
		__u32 off = p->l3_off + offsetof(struct hpcc_iph, tot_len);

		new16 = bpf_htons(l3_len);
		if (bpf_skb_load_bytes(skb, off, &old16, 2) ||
		    bpf_skb_store_bytes(skb, off, &new16, 2, 0) ||
		    bpf_l3_csum_replace(skb, p->l3_off + HPCC_IP4_CSUM_OFF,
					old16, new16, 2))
			return -1;
	}
	if (bpf_skb_store_bytes(skb, csum_off, &zero, 2, 0))
		return -1;
	sum = hpcc_tcp_sum(skb, p, win, HPCC_WINDOW_LEN);
	if (sum < 0)
		return -1;
	new16 = (__be16)~hpcc_csum_fold(sum);
	return bpf_skb_store_bytes(skb, csum_off, &new16, 2, 0) ? -1 : 0;
}

/* A probe is answered only for a connection of ours, only within its
 * peer's rate (first, so that a peer over it spends none of the device's
 * budget), then the device's: 0, or the counter of the refusal.
 */
static __always_inline __u32 hpcc_admit(struct __sk_buff *skb,
					const struct hpcc_pkt *p,
					const struct hpcc_host_cfg *cfg)
{
	__u32 reason = hpcc_reflect_conn(skb, p);
	__u64 now;

	if (reason)
		return reason;
	now = bpf_ktime_get_ns();
	if (!hpcc_peer_ok(skb, p, cfg, now))
		return HPCC_CNT_REFLECT_PEER_LIMITED;
	if (!hpcc_reflect_ok(cfg, now))
		return HPCC_CNT_REFLECT_LIMITED;
	return 0;
}

/* Receiver-measured N: count admitted probe @p's connection and return
 * the device's N (0: counting off). Hashed on the probe's tuple.
 */
static __always_inline __u32 hpcc_count_flow(struct __sk_buff *skb,
					     const struct hpcc_pkt *p,
					     const struct hpcc_host_cfg *cfg)
{
	__u64 epoch_ns = HPCC_FC_EPOCH_US_DEFAULT * 1000ULL, now;
	struct bpf_sock_tuple t = {};
	struct hpcc_flowcount *fc;
	__u32 zero = 0, tlen;

	if (cfg && (cfg->flags & HPCC_CFG_F_FLOW_EPOCH))
		epoch_ns = cfg->flow_epoch_us * 1000ULL;
	fc = bpf_map_lookup_elem(&hpcc_flowcount, &zero);
	if (!epoch_ns || !fc || hpcc_tuple(skb, p, &t, &tlen))
		return 0;
	now = bpf_ktime_get_ns();
	hpcc_fc_add(fc, now, epoch_ns,
		    hpcc_fc_hash((const __u8 *)&t, p->ipv6 ? 36 : 12));
	return hpcc_fc_flows(fc, now, epoch_ns);
}

/* A version 2 response carries the receiver's N (hpcc_hdr_v2.flows): into
 * the packet and @buf (which the seal and the kfunc read). 0 or -1.
 */
static __always_inline int hpcc_put_flows(struct __sk_buff *skb,
					  const struct hpcc_pkt *p,
					  struct hpcc_probe_v2 *buf, __u32 n)
{
	__u8 old[4], new[4];

	__builtin_memcpy(old, &buf->hdr.key_id, 4);
	new[0] = old[0];
	new[1] = (__u8)(n >> 16);
	new[2] = (__u8)(n >> 8);
	new[3] = (__u8)n;
	__builtin_memcpy(&buf->hdr.key_id, new, 4);
	return hpcc_write_payload(skb, p, offsetof(struct hpcc_hdr_v2, key_id),
				  old, new, 4);
}

/* The @len bytes of payload of candidate @p into @buf (hpcc_pay_len()'s
 * lengths, a constant on each branch for 6.1's verifier): 0 or an error.
 */
static __always_inline int hpcc_load_payload(struct __sk_buff *skb,
					     const struct hpcc_pkt *p,
					     struct hpcc_probe_v2 *buf,
					     __u32 len)
{
	if (len == HPCC_PROBE_V2_LEN)
		return bpf_skb_load_bytes(skb, p->pay_off, buf,
					  HPCC_PROBE_V2_LEN);
	if (len == HPCC_WINDOW_LEN)
		return bpf_skb_load_bytes(skb, p->pay_off, buf,
					  HPCC_WINDOW_LEN);
	return bpf_skb_load_bytes(skb, p->pay_off, buf, HPCC_PROBE_LEN);
}

/* Rx-HPCC: answer probe @p (it asks for a window, @buf its payload) with
 * the module's window where this host runs the mode. Returns 0 when the
 * window is on its way, the counter of a failure (drop), or HPCC_CNT_MAX
 * when the records are to be reflected as always: no module, or a
 * refusal the module counted.
 */
static __always_inline __u32 hpcc_answer_window(struct __sk_buff *skb,
						const struct hpcc_pkt *p,
						__u8 resp_dscp,
						struct hpcc_probe_v2 *buf)
{
	if (!hpcc_have_module()) {
		hpcc_count(&hpcc_counters, HPCC_CNT_NO_MODULE);
		return HPCC_CNT_MAX;
	}
	if (hpcc_rx_window_for(skb, p, buf)) {
		hpcc_count(&hpcc_counters, HPCC_CNT_RX_WINDOW_REFUSED);
		return HPCC_CNT_MAX;
	}
	if (hpcc_reflect_window(skb, p, resp_dscp, buf)) {
		hpcc_count(&hpcc_counters, HPCC_CNT_WRITE_FAIL);
		return HPCC_CNT_WRITE_FAIL;
	}
	hpcc_count(&hpcc_counters, HPCC_CNT_RX_WINDOW_SENT);
	return 0;
}

/* Hand a response, its payload checked and copied to @buf, to the
 * module. Returns the counter to bump.
 */
static __always_inline __u32 hpcc_deliver(struct __sk_buff *skb,
					  const struct hpcc_pkt *p,
					  struct hpcc_probe_v2 *buf, __u32 len)
{
	struct bpf_sock_tuple t = {};
	struct bpf_sock *sk;
	struct tcp_sock *tp;
	__u32 tlen, cnt;
	int ret;

	if (hpcc_tuple(skb, p, &t, &tlen))
		return HPCC_CNT_WRITE_FAIL;
	sk = bpf_skc_lookup_tcp(skb, &t, tlen, BPF_F_CURRENT_NETNS, 0);
	if (!sk)
		return HPCC_CNT_NO_SOCKET;
	/* A listener or a request/timewait socket is no connection. */
	tp = sk->state != BPF_TCP_LISTEN ? bpf_skc_to_tcp_sock(sk) : NULL;
	if (!tp) {
		cnt = HPCC_CNT_NO_SOCKET;
	} else if (!hpcc_have_module()) {
		cnt = HPCC_CNT_NO_MODULE;
	} else {
		/* Its length, a constant on each branch. */
		if (len == HPCC_PROBE_V2_LEN)
			ret = bpf_hpcc_report(tp, buf, HPCC_PROBE_V2_LEN);
		else if (len == HPCC_WINDOW_LEN)
			ret = bpf_hpcc_report(tp, buf, HPCC_WINDOW_LEN);
		else
			ret = bpf_hpcc_report(tp, buf, HPCC_PROBE_LEN);
		cnt = hpcc_report_counter(ret);
	}
	bpf_sk_release(sk);
	return cnt;
}

SEC("tc")
int hpcc_host(struct __sk_buff *skb)
{
	struct hpcc_host_cfg *cfg;
	struct hpcc_dscps dscp;
	struct hpcc_pkt p = {};
	struct hpcc_probe_v2 *buf;
	struct hpcc_hdr h;
	__u32 zero = 0, reason = 0, len;
	enum hpcc_link link;
	enum hpcc_class cls;

	/* Fast path: anything but a TCP segment without flags. */
	link = hpcc_link_of(skb);
	if (link == HPCC_LINK_NONE)
		return TC_ACT_OK;
	cfg = bpf_map_lookup_elem(&hpcc_host_cfg, &zero);
	if (link == HPCC_LINK_EITHER)
		link = cfg && (cfg->flags & HPCC_CFG_F_RAW_IP) ?
		       HPCC_LINK_RAW_IP : HPCC_LINK_ETH;
	if (hpcc_parse(skb, &p, link == HPCC_LINK_RAW_IP))
		return TC_ACT_OK;

	dscp = hpcc_dscps(cfg && (cfg->flags & HPCC_CFG_F_DSCP) ?
			  &cfg->probe_dscp : NULL);

	cls = hpcc_classify(skb, &p, dscp.probe, dscp.resp, &h, &reason);
	if (cls == HPCC_PKT_OTHER) {
		hpcc_count(&hpcc_counters, HPCC_CNT_OTHER);
		return TC_ACT_OK;
	}
	if (cls == HPCC_PKT_MALFORMED) {
		hpcc_count(&hpcc_counters, reason);
		return TC_ACT_SHOT;
	}

	/* A well-formed probe or response: its checksum decides whether we
	 * act on it, checked on the very bytes the module would get.
	 */
	len = hpcc_pay_len(&h);
	buf = bpf_map_lookup_elem(&hpcc_report_buf, &zero);
	if (!buf || hpcc_load_payload(skb, &p, buf, len)) {
		hpcc_count(&hpcc_counters, HPCC_CNT_WRITE_FAIL);
		return TC_ACT_SHOT;
	}
	if (!hpcc_tcp_csum_ok(skb, &p, buf, len)) {
		hpcc_count(&hpcc_counters, HPCC_CNT_BAD_CSUM);
		return TC_ACT_SHOT;
	}
	if (cls == HPCC_PKT_RESPONSE) {
		hpcc_count(&hpcc_counters, hpcc_deliver(skb, &p, buf, len));
		return TC_ACT_SHOT;
	}
	reason = hpcc_admit(skb, &p, cfg);
	if (reason) {
		hpcc_count(&hpcc_counters, reason);
		return TC_ACT_SHOT;
	}
	if (len == HPCC_PROBE_V2_LEN &&
	    hpcc_put_flows(skb, &p, buf, hpcc_count_flow(skb, &p, cfg))) {
		hpcc_count(&hpcc_counters, HPCC_CNT_WRITE_FAIL);
		return TC_ACT_SHOT;
	}
	if (cfg && (cfg->flags & HPCC_CFG_F_RX_WINDOW) &&
	    (h.flags & HPCC_F_WANT_WINDOW) && len == HPCC_PROBE_V2_LEN) {
		reason = hpcc_answer_window(skb, &p, dscp.resp, buf);
		if (reason != HPCC_CNT_MAX)
			return reason ? TC_ACT_SHOT :
					bpf_redirect(skb->ifindex, 0);
	}
	if (hpcc_reflect(skb, &p, &h, dscp.resp, buf)) {
		hpcc_count(&hpcc_counters, HPCC_CNT_WRITE_FAIL);
		return TC_ACT_SHOT;
	}
	hpcc_count(&hpcc_counters, HPCC_CNT_PROBE_REFLECTED);
	return bpf_redirect(skb->ifindex, 0);
}
