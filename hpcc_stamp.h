/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What a switch writes into a probe (one struct hpcc_hop, or the overflow
 * flag) and what a receiver changes when it turns a probe into a response:
 * the single definition, for bpf/hpcc_switch.bpf.c, bpf/hpcc_host.bpf.c and
 * the ns-3 model in sim/. The callers only do I/O: find the port's
 * counters, read and write packet bytes, fix checksums.
 *
 * BPF-friendly: no libc, no loops, only the types of hpcc_wire.h; byte
 * order by explicit byte stores, so the same code serves every caller
 * without htonl()/bpf_htonl()/cpu_to_be32().
 *
 * A stamp is one consistent snapshot of the egress port, taken where the
 * probe enters the port's queue (Linux: clsact egress, before the root
 * qdisc's enqueue):
 *   qlen      the root qdisc's backlog in bytes: the queue AHEAD of the
 *             probe, as of the last enqueue/dequeue;
 *   tx_bytes  the bytes the root qdisc has dequeued (sent) so far;
 *   ts_ns     the switch's clock now, in ns;
 *   rate_mbps the port's configured capacity B in Mbit/s (0: unknown);
 *   switch_id the operator's node id; port_id the configured id, else the
 *             egress ifindex (hpcc_stamp_port_id()).
 * On a QoS port (HPCC_PORT_F_QOS) the switch puts hpcc's class in qlen,
 * tx_bytes and rate_mbps instead (hpcc_switch.bpf.c, hpcc_qos_fill()).
 */
#ifndef _HPCC_STAMP_H
#define _HPCC_STAMP_H

#include "hpcc_maps.h"

static inline void hpcc_put_be32(void *p, __u32 v)
{
	__u8 *b = (__u8 *)p;

	b[0] = (__u8)(v >> 24);
	b[1] = (__u8)(v >> 16);
	b[2] = (__u8)(v >> 8);
	b[3] = (__u8)v;
}

static inline void hpcc_put_be64(void *p, __u64 v)
{
	hpcc_put_be32(p, (__u32)(v >> 32));
	hpcc_put_be32((__u8 *)p + 4, (__u32)v);
}

/* One egress port's snapshot, host byte order. */
struct hpcc_stamp_in {
	__u32 switch_id;
	__u32 port_id;
	__u32 rate_mbps;
	__u32 qlen;		/* root qdisc backlog, bytes */
	__u64 ts_ns;
	__u64 tx_bytes;		/* root qdisc bytes dequeued, wraps */
};

/* HPCC_PORT_F_PORT_ID: the configured port id; otherwise the ifindex. */
static inline __u32 hpcc_stamp_port_id(__u16 cfg_flags, __u32 cfg_port_id,
				       __u32 ifindex)
{
	return cfg_flags & HPCC_PORT_F_PORT_ID ? cfg_port_id : ifindex;
}

/* The hop record a port writes, in wire order. */
static inline void hpcc_stamp_fill(struct hpcc_hop *hop,
				   const struct hpcc_stamp_in *in)
{
	hpcc_put_be32(&hop->switch_id, in->switch_id);
	hpcc_put_be32(&hop->port_id, in->port_id);
	hpcc_put_be32(&hop->rate_mbps, in->rate_mbps);
	hpcc_put_be32(&hop->qlen, in->qlen);
	hpcc_put_be64(&hop->ts_ns, in->ts_ns);
	hpcc_put_be64(&hop->tx_bytes, in->tx_bytes);
}

/*
 * Anonymised telemetry (the draft's ratios-only records; a port with
 * HPCC_PORT_F_ANON, wire version 2 with HPCC_F_ANON): no capacity on the
 * wire; the queue as its drain time and the port's bytes as its
 * cumulative busy time, both in ns at the port's capacity B:
 *   qlen     = backlog * 8000 / B_mbps    (ns, saturating at 2^32 - 1)
 *   tx_bytes = tx_bytes * 8000 / B_mbps   (ns, wraps)
 * so that u = min(q) / T + d(busy) / d(ts) needs no B. The division is
 * exact (floor of the whole product) by splitting tx_bytes by B first.
 * A port without a capacity (B = 0) has neither: both 0. Version 1 has
 * no such records: its records at such a port are empty (rate, queue and
 * bytes 0, "unknown", which the law skips).
 */
#define HPCC_NS_PER_MBIT_BYTE	8000ULL	/* ns per byte at 1 Mbit/s */

static inline void hpcc_stamp_anon(struct hpcc_stamp_in *in, int v2)
{
	__u64 b = in->rate_mbps, q;

	in->rate_mbps = 0;
	if (!b || !v2) {
		in->qlen = 0;
		in->tx_bytes = 0;
		return;
	}
	q = (__u64)in->qlen * HPCC_NS_PER_MBIT_BYTE / b;
	in->qlen = q > 0xffffffffULL ? 0xffffffffU : (__u32)q;
	in->tx_bytes = in->tx_bytes / b * HPCC_NS_PER_MBIT_BYTE +
		       in->tx_bytes % b * HPCC_NS_PER_MBIT_BYTE / b;
}

enum hpcc_stamp_action {
	HPCC_STAMP_HOP,		/* write hop[slot], then the new header */
	HPCC_STAMP_OVERFLOW,	/* no room: write only the new header */
	HPCC_STAMP_NOTHING,	/* no room, already flagged: leave it */
};

/*
 * The overflow rule and the nhops increment, on the header's first 4 bytes
 * (version, flags, nhops, room: the word a BPF program rewrites with one
 * checksum update). @nw gets the header after this hop; @slot the hop
 * record to fill for HPCC_STAMP_HOP. A probe with room left gets one hop
 * and nhops + 1; a full one gets HPCC_F_OVERFLOW and nothing else (the
 * sender refuses such a report: the bottleneck may be the hop that could
 * not stamp).
 */
static inline enum hpcc_stamp_action
hpcc_stamp_next(const struct hpcc_hdr *h, struct hpcc_hdr *nw, __u32 *slot)
{
	nw->version = h->version;
	nw->flags = h->flags;
	nw->nhops = h->nhops;
	nw->room = h->room;
	*slot = h->nhops;
	if (h->nhops >= h->room || h->nhops >= HPCC_MAX_HOPS) {
		if (h->flags & HPCC_F_OVERFLOW)
			return HPCC_STAMP_NOTHING;
		nw->flags |= HPCC_F_OVERFLOW;
		return HPCC_STAMP_OVERFLOW;
	}
	nw->nhops = (__u8)(h->nhops + 1);
	return HPCC_STAMP_HOP;
}

/* Both steps on a probe held in memory (the simulation's switch). */
static inline enum hpcc_stamp_action
hpcc_stamp_probe(struct hpcc_probe *p, const struct hpcc_stamp_in *in)
{
	struct hpcc_hdr nw;
	enum hpcc_stamp_action a;
	__u32 slot;

	a = hpcc_stamp_next(&p->hdr, &nw, &slot);
	if (a == HPCC_STAMP_HOP)
		hpcc_stamp_fill(&p->hop[slot], in);
	p->hdr.flags = nw.flags;
	p->hdr.nhops = nw.nhops;
	return a;
}

/*
 * The receiver's change to the payload when it reflects a probe: only
 * HPCC_F_RESPONSE in the flags; the hop records and the nonce travel back
 * as they arrived. (On the packet it also swaps addresses, ports and MACs,
 * and sets the response DSCP and a fresh TTL, HPCC_RESP_TTL.)
 */
#define HPCC_RESP_TTL		64

static inline void hpcc_respond_hdr(const struct hpcc_hdr *h,
				    struct hpcc_hdr *nw)
{
	nw->version = h->version;
	nw->flags = (__u8)(h->flags | HPCC_F_RESPONSE);
	nw->nhops = h->nhops;
	nw->room = h->room;
}

#endif /* _HPCC_STAMP_H */
