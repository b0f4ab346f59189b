// SPDX-License-Identifier: GPL-2.0
/*
 * An HPCC probe on the wire, as tcp_hpcc.ko sends them: a TCP
 * segment without control flags, the probe DSCP, struct hpcc_probe as
 * payload, a valid TCP checksum; and the test that a packet is the
 * response to it.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>

#include "probe.h"

#define TTL		64

_Static_assert(sizeof(struct ipv6hdr) + sizeof(struct tcphdr) +
	       sizeof(struct hpcc_probe) == PROBE_PKT_MAX,
	       "PROBE_PKT_MAX: the IPv6 probe");

/* One's complement sum, big-endian words. */
static __u32 csum_add(__u32 sum, const void *data, size_t len)
{
	const __u8 *p = data;

	while (len > 1) {
		sum += (p[0] << 8) | p[1];
		p += 2;
		len -= 2;
	}
	if (len)
		sum += p[0] << 8;
	return sum;
}

static __u16 csum_fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/* TCP checksum (host order) over pseudo-header + @seg; with the
 * checksum field filled in, a valid segment gives 0.
 */
static __u16 tcp_csum(int family, const union inet_addr *src,
		      const union inet_addr *dst, const void *seg, __u32 len)
{
	__u32 sum = 0;
	__u8 ph[4];

	if (family == AF_INET) {
		sum = csum_add(sum, &src->v4, 4);
		sum = csum_add(sum, &dst->v4, 4);
		ph[0] = 0;
		ph[1] = IPPROTO_TCP;
		ph[2] = len >> 8;
		ph[3] = len;
		sum = csum_add(sum, ph, 4);
	} else {
		__u32 l = htonl(len);

		sum = csum_add(sum, &src->v6, 16);
		sum = csum_add(sum, &dst->v6, 16);
		sum = csum_add(sum, &l, 4);
		ph[0] = 0;
		ph[1] = 0;
		ph[2] = 0;
		ph[3] = IPPROTO_TCP;
		sum = csum_add(sum, ph, 4);
	}
	sum = csum_add(sum, seg, len);
	return csum_fold(sum);
}

/* The IP header of a probe of @len bytes from @t, with DSCP @dscp. */
static void probe_ip_header(__u8 *pkt, const struct probe_tuple *t,
			    int dscp, size_t len)
{
	struct ipv6hdr *ip6 = (void *)pkt;
	struct iphdr *ip = (void *)pkt;
	__u32 vtc;

	if (t->family == AF_INET6) {
		vtc = htonl(6U << 28 | (__u32)(dscp << 2) << 20);
		memcpy(ip6, &vtc, sizeof(vtc));
		ip6->payload_len = htons(len - sizeof(*ip6));
		ip6->nexthdr = IPPROTO_TCP;
		ip6->hop_limit = TTL;
		ip6->saddr = t->src.v6;
		ip6->daddr = t->dst.v6;
		return;
	}
	ip->version = 4;
	ip->ihl = 5;
	ip->tos = dscp << 2;
	ip->tot_len = htons(len);
	ip->id = htons(rnd32());
	ip->frag_off = htons(0x4000);	/* DF */
	ip->ttl = TTL;
	ip->protocol = IPPROTO_TCP;
	ip->saddr = t->src.v4.s_addr;
	ip->daddr = t->dst.v4.s_addr;
	ip->check = htons(csum_fold(csum_add(0, ip, sizeof(*ip))));
}

/* Build the probe from @t with DSCP @dscp, @nonce and send time @send_ns
 * in @pkt (PROBE_PKT_MAX bytes, zeroed): its length.
 */
size_t probe_build(__u8 *pkt, const struct probe_tuple *t, int dscp,
		   __u32 nonce, __u64 send_ns)
{
	size_t hl = t->family == AF_INET ? sizeof(struct iphdr) :
					   sizeof(struct ipv6hdr);
	size_t len = hl + sizeof(struct tcphdr) + sizeof(struct hpcc_probe);
	struct hpcc_probe p = {};
	struct tcphdr *th;

	probe_ip_header(pkt, t, dscp, len);
	th = (void *)(pkt + hl);
	th->source = htons(t->sport);
	th->dest = htons(t->dport);
	th->seq = htonl(rnd32());
	th->doff = sizeof(*th) / 4;	/* and no flag at all */
	p.hdr.version = HPCC_WIRE_VERSION;
	p.hdr.room = HPCC_MAX_HOPS;
	p.hdr.nonce = htonl(nonce);
	p.hdr.send_ns = htobe64(send_ns);
	memcpy(pkt + hl + sizeof(*th), &p, sizeof(p));
	th->check = htons(tcp_csum(t->family, &t->src, &t->dst, th,
				   sizeof(*th) + sizeof(p)));
	return len;
}

/* The IP header of @pkt (@n bytes, @proto): from @t's destination to its
 * source, carrying TCP? The header's length, the packet's and the DSCP go
 * to @hl, @l3len and @dscp; false for anything else.
 */
static bool match_ip4(const __u8 *pkt, size_t n, __u16 proto,
		      const struct probe_tuple *t, __u32 *hl, __u32 *l3len,
		      int *dscp)
{
	const struct iphdr *ip = (const void *)pkt;

	if (proto != ETH_P_IP || n < sizeof(*ip) || ip->version != 4 ||
	    ip->protocol != IPPROTO_TCP)
		return false;
	*hl = ip->ihl * 4;
	*l3len = ntohs(ip->tot_len);
	if (*hl < sizeof(*ip) || *l3len < *hl || *l3len > n)
		return false;
	*dscp = ip->tos >> 2;
	return !memcmp(&ip->saddr, &t->dst.v4, 4) &&
	       !memcmp(&ip->daddr, &t->src.v4, 4);
}

static bool match_ip6(const __u8 *pkt, size_t n, __u16 proto,
		      const struct probe_tuple *t, __u32 *hl, __u32 *l3len,
		      int *dscp)
{
	const struct ipv6hdr *ip = (const void *)pkt;

	if (proto != ETH_P_IPV6 || n < sizeof(*ip) || ip->version != 6 ||
	    ip->nexthdr != IPPROTO_TCP)
		return false;
	*hl = sizeof(*ip);
	*l3len = *hl + ntohs(ip->payload_len);
	if (*l3len > n)
		return false;
	*dscp = (ip->priority << 4 | ip->flow_lbl[0] >> 4) >> 2;
	return !memcmp(&ip->saddr, &t->dst.v6, 16) &&
	       !memcmp(&ip->daddr, &t->src.v6, 16);
}

/* Is @pkt (from the network header, @n bytes) the answer to our probe?
 * PROBE_RESPONSE (and @r filled in), PROBE_RST (a TCP RST from the
 * receiver) or 0 for something else.
 */
int probe_match(const __u8 *pkt, size_t n, __u16 proto,
		const struct probe_tuple *t, __u32 nonce, struct probe_resp *r)
{
	__u32 hl, l3len, seglen, thl;
	const struct tcphdr *th;
	const __u8 *seg;
	int dscp;

	if (t->family == AF_INET ?
	    !match_ip4(pkt, n, proto, t, &hl, &l3len, &dscp) :
	    !match_ip6(pkt, n, proto, t, &hl, &l3len, &dscp))
		return 0;
	seg = pkt + hl;
	seglen = l3len - hl;
	th = (const void *)seg;
	if (seglen < sizeof(*th) || ntohs(th->source) != t->dport ||
	    ntohs(th->dest) != t->sport)
		return 0;
	if (th->rst)
		return PROBE_RST;
	thl = th->doff * 4;
	/* flags: everything in the 14th byte */
	if (thl < sizeof(*th) || thl > seglen || seg[13] ||
	    seglen - thl != HPCC_PROBE_LEN)
		return 0;
	memcpy(&r->p, seg + thl, sizeof(r->p));
	if (hpcc_wire_check(&r->p.hdr, seglen - thl) ||
	    !(r->p.hdr.flags & HPCC_F_RESPONSE) ||
	    ntohl(r->p.hdr.nonce) != nonce)
		return 0;
	r->dscp = dscp;
	/* the response's source is our destination: swap the pseudo-header */
	r->csum_ok = tcp_csum(t->family, &t->dst, &t->src, seg, seglen) == 0;
	return PROBE_RESPONSE;
}
