/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * hpcc_parse.h - the one set of packet helpers shared by hpcc_switch.bpf.c
 * and hpcc_host.bpf.c: locate the headers of an HPCC probe/response,
 * classify it, and rewrite DSCP and payload with checksums kept valid.
 *
 * Include after vmlinux.h, bpf_helpers.h and hpcc_wire.h.
 *
 * Headers are read with direct packet access, every access bounds-checked.
 * The HPCC payload is read with bpf_skb_load_bytes() and written with
 * bpf_skb_store_bytes(), which also work when the payload sits in page
 * fragments and when the skb is a clone. Packets that are not HPCC
 * candidates are never written.
 *
 * Packet header layouts are declared here rather than taken from vmlinux.h:
 * vmlinux.h types carry preserve_access_index, and CO-RE relocations on
 * wire formats are pointless (and bitfields would need special reads).
 */
#ifndef _HPCC_PARSE_H
#define _HPCC_PARSE_H

#include "hpcc_maps.h"

#ifndef TC_ACT_OK
#define TC_ACT_OK		0
#define TC_ACT_SHOT		2
#define TC_ACT_REDIRECT		7
#endif

/* A #define in 6.1's uapi (an enum only later), so not in its vmlinux.h */
#ifndef BPF_F_CURRENT_NETNS
#define BPF_F_CURRENT_NETNS	(-1L)
#endif

#define HPCC_ETH_P_IP		0x0800
#define HPCC_ETH_P_IPV6		0x86DD
#define HPCC_ETH_P_8021Q	0x8100
#define HPCC_ETH_P_8021AD	0x88A8
#define HPCC_IPPROTO_TCP	6
#define HPCC_IP_MF		0x2000
#define HPCC_IP_OFFSET		0x1FFF

#define HPCC_ETH_HLEN		14
#define HPCC_VLAN_HLEN		4
#define HPCC_MAX_VLAN_TAGS	2	/* 802.1ad + 802.1Q (QinQ) */

struct hpcc_eth {
	__u8 dst[6];
	__u8 src[6];
	__be16 proto;
} __attribute__((packed));

struct hpcc_vlan {
	__be16 tci;
	__be16 proto;		/* the EtherType after the tag */
};

struct hpcc_iph {
	__u8 ver_ihl;
	__u8 tos;
	__be16 tot_len;
	__be16 id;
	__be16 frag_off;
	__u8 ttl;
	__u8 protocol;
	__sum16 check;
	__be32 saddr;
	__be32 daddr;
};

struct hpcc_ip6h {
	__be32 vtc_flow;	/* version 4, traffic class 8, flow label 20 */
	__be16 payload_len;
	__u8 nexthdr;
	__u8 hop_limit;
	__u8 saddr[16];
	__u8 daddr[16];
};

struct hpcc_tcph {
	__be16 source;
	__be16 dest;
	__be32 seq;
	__be32 ack_seq;
	__u8 doff_res;		/* data offset in the high nibble */
	__u8 flags;		/* CWR ECE URG ACK PSH RST SYN FIN */
	__be16 window;
	__sum16 check;
	__be16 urg_ptr;
};

/* Where things are in an HPCC candidate. Offsets from skb->data: the
 * Ethernet header, or the IP header on a raw IP device.
 */
struct hpcc_pkt {
	__u32 l3_off;
	__u32 l4_off;
	__u32 pay_off;		/* TCP payload: struct hpcc_probe */
	__u32 pay_len;		/* as claimed by the IP header */
	__u8 ipv6;
	__u8 dscp;
	__u8 eth;		/* MAC addresses at offsets 0 and 6 */
};

/* What the start of a packet is, from the packet and skb->protocol. */
enum hpcc_link {
	HPCC_LINK_NONE = 0,	/* neither fits: no IP packet of ours */
	HPCC_LINK_ETH,		/* an Ethernet header */
	HPCC_LINK_RAW_IP,	/* the IP header (tun, wireguard, ipip...) */
	HPCC_LINK_EITHER,	/* both fit: the device's config decides */
};

enum hpcc_class {
	HPCC_PKT_OTHER = 0,	/* not HPCC: leave it alone */
	HPCC_PKT_PROBE,
	HPCC_PKT_RESPONSE,
	HPCC_PKT_MALFORMED,	/* an HPCC candidate failing validation */
};

#define HPCC_IP4_CSUM_OFF	10	/* offsetof(struct hpcc_iph, check) */
#define HPCC_TCP_CSUM_OFF	16	/* offsetof(struct hpcc_tcph, check) */

/* Make the first @len bytes linear if they are in the packet but not in
 * the linear area. The pull changes no packet byte; it only happens for
 * the rare skb whose headers sit in fragments.
 */
/* skb->data / skb->data_end loaded with one instruction each: left to
 * itself clang may compute &skb->data_end once and reuse it, and the
 * verifier refuses a load through a modified ctx pointer.
 */
static __always_inline void *hpcc_data(struct __sk_buff *skb)
{
	void *d;

	asm volatile("%0 = *(u32 *)(%1 + %2)" : "=r"(d)
		     : "r"(skb), "i"(offsetof(struct __sk_buff, data)));
	return d;
}

static __always_inline void *hpcc_data_end(struct __sk_buff *skb)
{
	void *d;

	asm volatile("%0 = *(u32 *)(%1 + %2)" : "=r"(d)
		     : "r"(skb), "i"(offsetof(struct __sk_buff, data_end)));
	return d;
}

static __always_inline int hpcc_need_linear(struct __sk_buff *skb, __u32 len)
{
	if (hpcc_data(skb) + len <= hpcc_data_end(skb))
		return 0;
	if (skb->len < len)
		return -1;
	return bpf_skb_pull_data(skb, len) ? -1 : 0;
}

/* The link layer, told from the packet itself. tc hands a program the
 * packet from its link-layer header: an Ethernet header on Ethernet
 * devices (veth, VLAN devices, bridges...), nothing on L3 devices (tun,
 * wireguard, ipip, sit, ip6tnl, gre with a fixed remote), where it starts
 * at the IP header. skb->protocol is set either way, so:
 *  - Ethernet fits when the EtherType at offset 12 is skb->protocol (true
 *    of every Ethernet frame at tc, in-band VLAN tags included);
 *  - raw IP fits when skb->protocol is IPv4/IPv6 and the first nibble is
 *    that IP version.
 * Both fit by coincidence only (a destination MAC starting with 0x4X/0x6X,
 * an IPv4 source in 8.0.0.0/16...): then the device's config, which
 * hpcc-probe sets from the device type, decides, and without config it is
 * Ethernet, as before raw IP devices were supported. Costs no map lookup
 * when the packet alone tells.
 */
static __always_inline enum hpcc_link hpcc_link_of(struct __sk_buff *skb)
{
	void *data = hpcc_data(skb), *data_end = hpcc_data_end(skb);
	__be16 proto = skb->protocol;
	bool eth = false, ip;
	__u8 v;

	if (data + 1 > data_end)
		return HPCC_LINK_NONE;
	v = *(__u8 *)data >> 4;
	ip = (proto == bpf_htons(HPCC_ETH_P_IP) && v == 4) ||
	     (proto == bpf_htons(HPCC_ETH_P_IPV6) && v == 6);
	if (data + HPCC_ETH_HLEN <= data_end)
		eth = ((struct hpcc_eth *)data)->proto == proto;
	if (eth)
		return ip ? HPCC_LINK_EITHER : HPCC_LINK_ETH;
	return ip ? HPCC_LINK_RAW_IP : HPCC_LINK_NONE;
}

/* The link layer of hpcc_parse(): @raw_ip, the packet starts at its IP
 * header; else at an Ethernet header and up to HPCC_MAX_VLAN_TAGS VLAN
 * tags. Sets the ethertype (host order) and the L3 offset.
 */
static __always_inline int hpcc_parse_l2(struct __sk_buff *skb, bool raw_ip,
					 __u16 *proto, __u32 *l3_off)
{
	void *data = hpcc_data(skb), *data_end = hpcc_data_end(skb);
	struct hpcc_eth *eth = data;
	__u32 i;

	if (raw_ip) {
		*proto = bpf_ntohs(skb->protocol);
		*l3_off = 0;
		return 0;
	}
	if ((void *)(eth + 1) > data_end)
		return -1;
	*proto = bpf_ntohs(eth->proto);
	*l3_off = HPCC_ETH_HLEN;
	for (i = 0; i < HPCC_MAX_VLAN_TAGS; i++) {
		struct hpcc_vlan *vh;

		if (*proto != HPCC_ETH_P_8021Q &&
		    *proto != HPCC_ETH_P_8021AD)
			break;
		if (hpcc_need_linear(skb, *l3_off + sizeof(*vh)))
			return -1;
		data = hpcc_data(skb);
		data_end = hpcc_data_end(skb);
		vh = data + *l3_off;
		if ((void *)(vh + 1) > data_end)
			return -1;
		*proto = bpf_ntohs(vh->proto);
		*l3_off += sizeof(*vh);
	}
	return 0;
}

/* Cheap shape test done on every packet: is it a TCP segment with no
 * control flags (IPv4 without fragmentation, IPv6 without extension
 * headers)? Anything else is no HPCC candidate. @raw_ip: the packet
 * starts at its IP header, else at an Ethernet header, which may carry up
 * to HPCC_MAX_VLAN_TAGS in-band VLAN tags (tc sees the outer tag of a
 * QinQ frame offloaded, the inner one in the packet). Fills @p on
 * success.
 */
static __always_inline int hpcc_parse(struct __sk_buff *skb,
				      struct hpcc_pkt *p, bool raw_ip)
{
	void *data, *data_end;
	struct hpcc_tcph *th;
	__u32 l3_len, iphl, thl, l3_off, l4_off;
	__u16 proto;

	if (hpcc_parse_l2(skb, raw_ip, &proto, &l3_off))
		return -1;
	p->l3_off = l3_off;
	p->eth = !raw_ip;

	if (proto == HPCC_ETH_P_IP) {
		struct hpcc_iph *iph;

		if (hpcc_need_linear(skb, l3_off + sizeof(*iph)))
			return -1;
		data = hpcc_data(skb);
		data_end = hpcc_data_end(skb);
		iph = data + l3_off;
		if ((void *)(iph + 1) > data_end)
			return -1;
		if ((iph->ver_ihl >> 4) != 4 ||
		    iph->protocol != HPCC_IPPROTO_TCP ||
		    (iph->frag_off & bpf_htons(HPCC_IP_MF | HPCC_IP_OFFSET)))
			return -1;
		iphl = (iph->ver_ihl & 0x0f) * 4;
		l3_len = bpf_ntohs(iph->tot_len);
		if (iphl < sizeof(*iph) || l3_len < iphl)
			return -1;
		p->ipv6 = 0;
		p->dscp = iph->tos >> 2;
	} else if (proto == HPCC_ETH_P_IPV6) {
		struct hpcc_ip6h *ip6h;

		if (hpcc_need_linear(skb, l3_off + sizeof(*ip6h)))
			return -1;
		data = hpcc_data(skb);
		data_end = hpcc_data_end(skb);
		ip6h = data + l3_off;
		if ((void *)(ip6h + 1) > data_end)
			return -1;
		/* No extension headers: a probe's next header is TCP. */
		if ((bpf_ntohl(ip6h->vtc_flow) >> 28) != 6 ||
		    ip6h->nexthdr != HPCC_IPPROTO_TCP)
			return -1;
		iphl = sizeof(*ip6h);
		l3_len = sizeof(*ip6h) + bpf_ntohs(ip6h->payload_len);
		p->ipv6 = 1;
		p->dscp = (bpf_ntohl(ip6h->vtc_flow) >> 22) & 0x3f;
	} else {
		return -1;
	}

	/* Kept in a local so the verifier sees its bound (iphl <= 60). */
	l4_off = l3_off + iphl;
	if (hpcc_need_linear(skb, l4_off + sizeof(*th)))
		return -1;
	data = hpcc_data(skb);
	data_end = hpcc_data_end(skb);
	th = data + l4_off;
	if ((void *)(th + 1) > data_end)
		return -1;
	if (th->flags)
		return -1;
	thl = (th->doff_res >> 4) * 4;
	if (thl < sizeof(*th) || l3_len < iphl + thl)
		return -1;
	p->l4_off = l4_off;
	p->pay_off = l4_off + thl;
	p->pay_len = l3_len - iphl - thl;
	return 0;
}

/* Map a validation failure to its counter. */
static __always_inline __u32 hpcc_check_counter(int err,
						const struct hpcc_hdr *h)
{
	switch (err) {
	case -EMSGSIZE:
		return HPCC_CNT_TRUNCATED;
	case -EPROTONOSUPPORT:
		return HPCC_CNT_BAD_VERSION;
	case -ERANGE:
		return h->room != HPCC_MAX_HOPS ? HPCC_CNT_BAD_ROOM :
						  HPCC_CNT_BAD_NHOPS;
	default:
		return HPCC_CNT_BAD_FLAGS;
	}
}

/* Classify a packet hpcc_parse() accepted. @h receives the HPCC header
 * when the payload is there; on HPCC_PKT_MALFORMED, @reason gets the
 * counter index. The payload must be exactly the length of its version
 * (HPCC_PROBE_LEN, HPCC_PROBE_V2_LEN, HPCC_WINDOW_LEN for a version 2
 * window response) and really present in the frame;
 * @h gets the first 16 bytes, the same in both versions.
 */
static __always_inline enum hpcc_class
hpcc_classify(struct __sk_buff *skb, const struct hpcc_pkt *p,
	      __u8 probe_dscp, __u8 resp_dscp, struct hpcc_hdr *h,
	      __u32 *reason)
{
	__u32 len = p->pay_len;
	bool resp;
	int err;

	if (p->dscp != probe_dscp && p->dscp != resp_dscp)
		return HPCC_PKT_OTHER;

	__builtin_memset(h, 0, sizeof(*h));
	/* A frame shorter than its IP header claims is truncated too. */
	if (p->pay_off + len > skb->len)
		len = 0;
	if ((len == HPCC_PROBE_LEN || len == HPCC_PROBE_V2_LEN ||
	     len == HPCC_WINDOW_LEN) &&
	    bpf_skb_load_bytes(skb, p->pay_off, h, sizeof(*h)))
		len = 0;
	err = hpcc_wire_check(h, len);
	if (err) {
		*reason = hpcc_check_counter(err, h);
		return HPCC_PKT_MALFORMED;
	}
	resp = h->flags & HPCC_F_RESPONSE;
	if (resp ? p->dscp != resp_dscp : p->dscp != probe_dscp) {
		*reason = HPCC_CNT_BAD_DSCP;
		return HPCC_PKT_MALFORMED;
	}
	return resp ? HPCC_PKT_RESPONSE : HPCC_PKT_PROBE;
}

/* Rewrite the DSCP, keeping ECN bits and (IPv4) the header checksum. The
 * TCP pseudo-header does not cover TOS/traffic class.
 */
static __always_inline int hpcc_set_dscp(struct __sk_buff *skb,
					 const struct hpcc_pkt *p, __u8 dscp)
{
	__be16 old, new;
	__u16 w;

	/* IPv4: ver_ihl|tos; IPv6: version|traffic class|flow label top. */
	if (bpf_skb_load_bytes(skb, p->l3_off, &old, sizeof(old)))
		return -1;
	w = bpf_ntohs(old);
	if (p->ipv6)
		w = (w & ~0x0fc0) | ((__u16)(dscp & 0x3f) << 6);
	else
		w = (w & ~0x00fc) | ((__u16)(dscp & 0x3f) << 2);
	new = bpf_htons(w);
	if (new == old)
		return 0;
	if (bpf_skb_store_bytes(skb, p->l3_off, &new, sizeof(new), 0))
		return -1;
	if (!p->ipv6 &&
	    bpf_l3_csum_replace(skb, p->l3_off + HPCC_IP4_CSUM_OFF,
				old, new, sizeof(new)))
		return -1;
	return 0;
}

/* Reset the TTL / hop limit of a packet we originate (the reflected
 * response), keeping the IPv4 header checksum valid.
 */
static __always_inline int hpcc_set_ttl(struct __sk_buff *skb,
					const struct hpcc_pkt *p, __u8 ttl)
{
	__be16 old, new;
	__u32 off;

	if (p->ipv6) {
		off = p->l3_off + offsetof(struct hpcc_ip6h, hop_limit);
		return bpf_skb_store_bytes(skb, off, &ttl, 1, 0) ? -1 : 0;
	}
	/* ttl|protocol form one checksum word. */
	off = p->l3_off + offsetof(struct hpcc_iph, ttl);
	if (bpf_skb_load_bytes(skb, off, &old, sizeof(old)))
		return -1;
	new = old;
	*(__u8 *)&new = ttl;
	if (new == old)
		return 0;
	if (bpf_skb_store_bytes(skb, off, &new, sizeof(new), 0) ||
	    bpf_l3_csum_replace(skb, p->l3_off + HPCC_IP4_CSUM_OFF,
				old, new, sizeof(new)))
		return -1;
	return 0;
}

/* Overwrite @len bytes (a multiple of 4, at an even offset from the TCP
 * header) of the TCP payload and fold the difference into the TCP
 * checksum. bpf_l4_csum_replace() does the right thing for
 * CHECKSUM_PARTIAL skbs (the field then holds only the pseudo-header sum
 * and must not change); the addresses do not change, so no pseudo-header
 * flag. Under CHECKSUM_COMPLETE the payload delta and the checksum field
 * delta cancel, so skb->csum stays right without BPF_F_RECOMPUTE_CSUM.
 * @old must hold the bytes currently in the packet.
 */
static __always_inline int hpcc_write_payload(struct __sk_buff *skb,
					      const struct hpcc_pkt *p,
					      __u32 off, void *old, void *new,
					      __u32 len)
{
	__s64 diff;

	diff = bpf_csum_diff(old, len, new, len, 0);
	if (diff < 0)
		return -1;
	if (bpf_skb_store_bytes(skb, p->pay_off + off, new, len, 0))
		return -1;
	if (bpf_l4_csum_replace(skb, p->l4_off + HPCC_TCP_CSUM_OFF, 0,
				(__u32)diff, 0))
		return -1;
	return 0;
}

/* Fold a 32-bit partial sum, as bpf_csum_diff() returns it, to 16 bits. */
static __always_inline __u32 hpcc_csum_fold(__u64 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	return (sum & 0xffff) + (sum >> 16);
}

/* The payload length of a checked candidate with header @h: its
 * version's, or a window response's.
 */
static __always_inline __u32 hpcc_pay_len(const struct hpcc_hdr *h)
{
	if (h->version != HPCC_WIRE_V2)
		return HPCC_PROBE_LEN;
	return (h->flags & HPCC_F_WINDOW) ? HPCC_WINDOW_LEN : HPCC_PROBE_V2_LEN;
}

/* The one's complement sum of TCP segment @p with @paylen bytes of
 * payload @pay (one of the three lengths hpcc_pay_len() gives): the
 * pseudo-header, the TCP header with its options and checksum field as
 * they are in the packet, then @pay. Negative if the packet could not
 * be read.
 */
static __always_inline __s64 hpcc_tcp_sum(struct __sk_buff *skb,
					  const struct hpcc_pkt *p,
					  const void *pay, __u32 paylen)
{
	__be32 ph[10];		/* addresses, length, protocol */
	__u8 th[60];		/* the longest TCP header */
	__u32 thl = p->pay_off - p->l4_off, seglen;
	__s64 sum;

	if (thl < sizeof(struct hpcc_tcph) || thl > sizeof(th))
		return -1;
	seglen = thl + paylen;
	/* Pseudo-header: the length and protocol words sum the same for
	 * IPv4 (0, proto, len16) and IPv6 (len32, 0, 0, 0, proto).
	 */
	if (p->ipv6) {
		if (bpf_skb_load_bytes(skb, p->l3_off +
				       offsetof(struct hpcc_ip6h, saddr),
				       ph, 32))
			return -1;
		ph[8] = bpf_htonl(seglen);
		ph[9] = bpf_htonl(HPCC_IPPROTO_TCP);
		sum = bpf_csum_diff(NULL, 0, ph, 40, 0);
	} else {
		if (bpf_skb_load_bytes(skb, p->l3_off +
				       offsetof(struct hpcc_iph, saddr),
				       ph, 8))
			return -1;
		ph[2] = bpf_htonl(seglen);
		ph[3] = bpf_htonl(HPCC_IPPROTO_TCP);
		sum = bpf_csum_diff(NULL, 0, ph, 16, 0);
	}
	/* A constant-size load: 6.1's verifier refuses a variable length it
	 * cannot prove non-zero. The payload follows, so 60 bytes are there
	 * (a window response's 56 with the 20-byte header too).
	 */
	if (sum < 0 || bpf_skb_load_bytes(skb, p->l4_off, th, sizeof(th)))
		return -1;
	sum = bpf_csum_diff(NULL, 0, (__be32 *)th, thl, (__u32)sum);
	if (sum < 0)
		return -1;
	/* Constant sizes again, one per length. */
	if (paylen == HPCC_PROBE_V2_LEN)
		sum = bpf_csum_diff(NULL, 0, (__be32 *)pay, HPCC_PROBE_V2_LEN,
				    (__u32)sum);
	else if (paylen == HPCC_WINDOW_LEN)
		sum = bpf_csum_diff(NULL, 0, (__be32 *)pay, HPCC_WINDOW_LEN,
				    (__u32)sum);
	else
		sum = bpf_csum_diff(NULL, 0, (__be32 *)pay, HPCC_PROBE_LEN,
				    (__u32)sum);
	return sum;
}

/* Is the TCP checksum of candidate @p right? @pay holds its payload, the
 * @paylen bytes at p->pay_off (hpcc_pay_len()), loaded by the caller (so
 * that what is checked is what is used). A segment corrupted on the way,
 * or forged without filling the field in, fails. Only HPCC candidates
 * that passed hpcc_classify() get here, so ordinary traffic never pays
 * for it.
 */
static __always_inline bool hpcc_tcp_csum_ok(struct __sk_buff *skb,
					     const struct hpcc_pkt *p,
					     const void *pay, __u32 paylen)
{
	__s64 sum = hpcc_tcp_sum(skb, p, pay, paylen);

	return sum >= 0 && hpcc_csum_fold(sum) == 0xffff;
}

/* The first word of struct hpcc_hdr: version, flags, nhops, room. */
struct hpcc_hdr_word {
	__u8 version;
	__u8 flags;
	__u8 nhops;
	__u8 room;
};

/* The word as it is in the packet, the old side of a rewrite. */
static __always_inline struct hpcc_hdr_word
hpcc_hdr_word_of(const struct hpcc_hdr *h)
{
	struct hpcc_hdr_word w = {
		.version = h->version, .flags = h->flags,
		.nhops = h->nhops, .room = h->room,
	};

	return w;
}

struct hpcc_dscps {
	__u8 probe;
	__u8 resp;
};

/* The DSCPs a program matches: the pair its configuration holds (@pair:
 * probe_dscp, then resp_dscp) where the configuration sets them, else the
 * defaults, as tcp_hpcc's parameters have them.
 */
static __always_inline struct hpcc_dscps hpcc_dscps(const __u8 *pair)
{
	struct hpcc_dscps d = {
		HPCC_DSCP_PROBE_DEFAULT, HPCC_DSCP_RESPONSE_DEFAULT
	};

	if (pair) {
		d.probe = pair[0];
		d.resp = pair[1];
	}
	return d;
}

static __always_inline void hpcc_count(void *map, __u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(map, &idx);

	if (c)
		*c += 1;
}

#endif /* _HPCC_PARSE_H */
