/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The HPCC++ probe/response wire format, shared by tcp_hpcc.ko, the tc BPF
 * programs in bpf/, the hpcc-probe helper and the simulation. The BPF maps'
 * types and counters, which are not on the wire, are in hpcc_maps.h.
 *
 * This is the single definition of the format; Documentation/tcp_hpcc.rst has
 * the byte diagram and the reasoning behind each field width.
 *
 * A probe is a TCP segment of the flow it measures (same addresses, same
 * ports, so ECMP hashes it onto the data path) marked with the probe DSCP and
 * carrying NO control flags: Linux TCP silently discards a segment without
 * ACK/SYN/RST after the checksum check and before sequence validation, so a
 * receiver without the reflector never takes a probe into its byte stream.
 * The TCP payload is struct hpcc_probe: a header and room for HPCC_MAX_HOPS
 * hop records, pre-allocated by the sender, filled in order by switches.
 * A response is the same packet turned around by the receiver's tc program,
 * with HPCC_F_RESPONSE set and the response DSCP.
 *
 * All multi-byte fields are big-endian on the wire.
 */
#ifndef _HPCC_WIRE_H
#define _HPCC_WIRE_H

#if defined(__KERNEL__)
#include <linux/types.h>
#include <linux/errno.h>
#elif defined(__VMLINUX_H__)
/* BPF programs: the types come from vmlinux.h, which has no errno values;
 * these are every errno the wire check and the kfuncs return.
 */
#ifndef EINVAL
#define ENOENT		2
#define E2BIG		7
#define ENOMEM		12
#define EBUSY		16
#define EINVAL		22
#define ERANGE		34
#define ENODATA		61
#define EBADMSG		74
#define EMSGSIZE	90
#define EPROTONOSUPPORT	93
#define EOPNOTSUPP	95
#define ENOBUFS		105
#define ESTALE		116
#define ENOKEY		126
#define EKEYREJECTED	129
#endif
#else
#include <linux/types.h>
#include <errno.h>
#endif

#include "hpcc_siphash.h"

#define HPCC_WIRE_VERSION	1	/* what a sender emits by default */
#define HPCC_WIRE_V1		1
#define HPCC_WIRE_V2		2	/* Documentation/design-wire-v2.rst */
#define HPCC_MAX_HOPS		8

/* hpcc_hdr.flags; version 1 knows only the first two. */
#define HPCC_F_RESPONSE		0x01	/* turned around by the receiver */
#define HPCC_F_OVERFLOW		0x02	/* a hop found no room left */
#define HPCC_F_WANT_WINDOW	0x04	/* v2: sender takes a receiver window */
#define HPCC_F_WINDOW		0x08	/* v2: a window record, no hops */
#define HPCC_F_MAC		0x10	/* v2: records carry SipHash tags */
#define HPCC_F_ANON		0x20	/* v2: records anonymised (ratios) */
#define HPCC_F_STRIPPED		0x40	/* v2: a domain edge removed records */
#define HPCC_F_KNOWN		(HPCC_F_RESPONSE | HPCC_F_OVERFLOW)
/* What version 2 implements so far: the other v2 flags are defined for
 * the wire but refused (-EBADMSG, bad_flags) until they are implemented,
 * so that no program acts on a record whose meaning it does not know.
 */
#define HPCC_F2_KNOWN		(HPCC_F_KNOWN | HPCC_F_MAC | HPCC_F_ANON | \
				 HPCC_F_WANT_WINDOW | HPCC_F_WINDOW)

/* Domain keys for the MAC: key_id 0 or 1, two live at once for rotation. */
#define HPCC_MAC_KEYS		2
#define HPCC_MAC_KEY_LEN	16

/* Default DSCPs, from RFC 2474's pool 2 (xxxx11: experimental or local
 * use, the one pool RFC 8436 left so) with class selector (precedence) 0:
 * 7 (000111) for probes, 3 (000011) for responses. Precedence 0 gets no
 * treatment above best effort from networks that classify by class
 * selector or by the RFC 1349 TOS bits; Documentation/tcp_hpcc.rst,
 * "DSCPs", has the reasons.
 */
#define HPCC_DSCP_PROBE_DEFAULT		7
#define HPCC_DSCP_RESPONSE_DEFAULT	3

/* One egress port's state, written by a switch as one snapshot. 32 bytes. */
struct hpcc_hop {
	__be32 switch_id;	/* operator-assigned node id */
	__be32 port_id;		/* egress port (ifindex on Linux routers) */
	__be32 rate_mbps;	/* link capacity B, Mbit/s; 0 = unknown */
	__be32 qlen;		/* egress queue backlog, bytes */
	__be64 ts_ns;		/* switch clock at the snapshot, ns */
	__be64 tx_bytes;	/* bytes this port has transmitted, wraps */
};

/* Probe/response header. 16 bytes. */
struct hpcc_hdr {
	__u8 version;		/* HPCC_WIRE_VERSION */
	__u8 flags;		/* HPCC_F_* */
	__u8 nhops;		/* hop records filled, 0..HPCC_MAX_HOPS */
	__u8 room;		/* hop records allocated: HPCC_MAX_HOPS */
	__be32 nonce;		/* per-flow value the response must echo */
	__be64 send_ns;		/* sender's clock when the probe left */
};

/* The whole TCP payload of a probe or response. */
struct hpcc_probe {
	struct hpcc_hdr hdr;
	struct hpcc_hop hop[HPCC_MAX_HOPS];
};

#define HPCC_PROBE_LEN	((__u32)sizeof(struct hpcc_probe))

/* ---- version 2 --------------------------------------------------------- */

/* Header, 24 bytes: version 1's 16, then T and the MAC key id. */
struct hpcc_hdr_v2 {
	__u8 version;		/* HPCC_WIRE_V2 */
	__u8 flags;		/* HPCC_F_* */
	__u8 nhops;
	__u8 room;		/* HPCC_MAX_HOPS */
	__be32 nonce;
	__be64 send_ns;
	__be32 t_us;		/* sender's T, us (Rx-HPCC; 0: not given) */
	__u8 key_id;		/* with HPCC_F_MAC: key[key_id] */
	__u8 flows[3];		/* a response's receiver-measured N, 24 bits
				 * (hpcc_flowcount.h); 0 when sent and when
				 * not measured
				 */
};

/* Hop record, 40 bytes: version 1's, then the SipHash tag (0 without
 * HPCC_F_MAC).
 */
struct hpcc_hop_v2 {
	struct hpcc_hop rec;
	__be64 tag;
};

struct hpcc_probe_v2 {
	struct hpcc_hdr_v2 hdr;
	struct hpcc_hop_v2 hop[HPCC_MAX_HOPS];
};

#define HPCC_PROBE_V2_LEN	((__u32)sizeof(struct hpcc_probe_v2))
#define HPCC_HOP_V2_TAG_OFF	((__u32)sizeof(struct hpcc_hop))

/*
 * Receiver-based HPCC (Rx-HPCC): a probe with HPCC_F_WANT_WINDOW says its
 * sender takes a window computed by the receiver; a receiver that runs the
 * law answers with HPCC_F_WINDOW set, no hop records (nhops 0) and this
 * record instead, and trims the payload to HPCC_WINDOW_LEN: 56 bytes
 * instead of 344. One length with or without HPCC_F_MAC (tag 0 without),
 * so that each program checks one constant.
 */
struct hpcc_window {
	__be64 w_bytes;		/* W the receiver computed, bytes */
	__be32 u;		/* its U, HPCC_U_SHIFT (1.0 == 1 << 20) */
	__be32 b_mbps;		/* the bottleneck's capacity B, Mbit/s */
	__be64 rsvd;		/* 0 when sent, ignored when received */
};

struct hpcc_window_resp {
	struct hpcc_hdr_v2 hdr;
	struct hpcc_window win;
	__be64 tag;		/* HPCC_F_MAC: hpcc_mac_window_tag() */
};

#define HPCC_WINDOW_LEN		((__u32)sizeof(struct hpcc_window_resp))

/* The module has BUILD_BUG_ON()s for these (tcp_hpcc.c, init). */
#if !defined(__KERNEL__) && !defined(__VMLINUX_H__)
#include <assert.h>
static_assert(sizeof(struct hpcc_hop) == 32, "v1 hop record");
static_assert(sizeof(struct hpcc_hdr) == 16, "v1 header");
static_assert(sizeof(struct hpcc_probe) == 16 + 32 * HPCC_MAX_HOPS, "v1");
static_assert(sizeof(struct hpcc_hdr_v2) == 24, "v2 header");
static_assert(sizeof(struct hpcc_hop_v2) == 40, "v2 hop record");
static_assert(sizeof(struct hpcc_probe_v2) == 24 + 40 * HPCC_MAX_HOPS,
	      "v2 probe");
static_assert(sizeof(struct hpcc_window_resp) == 56, "v2 window response");
#endif

/* The payload length of a version, 0 for one we do not know. */
static inline __u32 hpcc_wire_len(__u8 version)
{
	if (version == HPCC_WIRE_V1)
		return HPCC_PROBE_LEN;
	if (version == HPCC_WIRE_V2)
		return HPCC_PROBE_V2_LEN;
	return 0;
}

/* A checked payload of version 2 with HPCC_F_WINDOW: a window response. */
static inline int hpcc_wire_is_window(const void *hdr)
{
	const __u8 *b = (const __u8 *)hdr;

	return b[0] == HPCC_WIRE_V2 && (b[1] & HPCC_F_WINDOW);
}

/* Structural check shared by the module, the BPF programs and hpcc-probe,
 * on the first 16 bytes (the same in both versions). Every reason has its
 * own errno so that each can be counted apart:
 *   -EMSGSIZE        buffer is neither one struct hpcc_probe, one struct
 *                    hpcc_probe_v2 nor one struct hpcc_window_resp, or
 *                    not the one of its version and flags
 *   -EPROTONOSUPPORT unknown version
 *   -ERANGE          room is not HPCC_MAX_HOPS or nhops exceeds room (a
 *                    window response: is not 0)
 *   -EBADMSG         flag bits unknown to (or not implemented in) the
 *                    version; a window response that is not a response
 *                    to a probe that asked for one
 */
static inline int hpcc_wire_check(const void *hdr, __u32 len)
{
	/* Byte reads: @hdr is a struct hpcc_hdr or a struct hpcc_hdr_v2. */
	const __u8 *b = (const __u8 *)hdr;
	__u8 version = b[0], flags = b[1], nhops = b[2], room = b[3];
	__u8 known;
	__u8 window;

	if (len != HPCC_PROBE_LEN && len != HPCC_PROBE_V2_LEN &&
	    len != HPCC_WINDOW_LEN)
		return -EMSGSIZE;
	if (version == HPCC_WIRE_V1)
		known = HPCC_F_KNOWN;
	else if (version == HPCC_WIRE_V2)
		known = HPCC_F2_KNOWN;
	else
		return -EPROTONOSUPPORT;
	window = version == HPCC_WIRE_V2 && (flags & HPCC_F_WINDOW) != 0;
	if (len != (window ? HPCC_WINDOW_LEN : hpcc_wire_len(version)))
		return -EMSGSIZE;
	if (room != HPCC_MAX_HOPS || nhops > room || (window && nhops))
		return -ERANGE;
	if (flags & ~known)
		return -EBADMSG;
	if (window && (flags & (HPCC_F_RESPONSE | HPCC_F_WANT_WINDOW)) !=
		      (HPCC_F_RESPONSE | HPCC_F_WANT_WINDOW))
		return -EBADMSG;
	return 0;
}

/* ---- the MAC chain (version 2, HPCC_F_MAC) ------------------------------ */

/*
 * tag_i = SipHash-2-4(key[key_id], nonce | send_ns | i | record_i | tag_i-1)
 * over the wire bytes: nonce (4), send_ns (8), i as a big-endian 32-bit
 * word (4), the 32 bytes of the record without its tag, the previous
 * record's tag as on the wire (8; zero for i = 0). 56 bytes, seven SipHash
 * words. The tag goes on the wire big-endian like every other field.
 */
#define HPCC_MAC_MSG_LEN	56

static inline void hpcc_mac_msg(__u8 *m, const struct hpcc_hdr_v2 *h,
				__u32 i, const struct hpcc_hop *rec,
				const __u8 *prev_tag)
{
	const __u8 *n = (const __u8 *)&h->nonce;
	const __u8 *s = (const __u8 *)&h->send_ns;
	const __u8 *r = (const __u8 *)rec;
	__u32 j;

	for (j = 0; j < 4; j++)
		m[j] = n[j];
	for (j = 0; j < 8; j++)
		m[4 + j] = s[j];
	m[12] = (__u8)(i >> 24);
	m[13] = (__u8)(i >> 16);
	m[14] = (__u8)(i >> 8);
	m[15] = (__u8)i;
	for (j = 0; j < 32; j++)
		m[16 + j] = r[j];
	for (j = 0; j < 8; j++)
		m[48 + j] = prev_tag ? prev_tag[j] : 0;
}

static inline __u64 hpcc_mac_tag(const struct hpcc_sipkey *k,
				 const struct hpcc_hdr_v2 *h, __u32 i,
				 const struct hpcc_hop *rec,
				 const __u8 *prev_tag)
{
	__u8 m[HPCC_MAC_MSG_LEN];

	hpcc_mac_msg(m, h, i, rec, prev_tag);
	return hpcc_siphash24(k, m, HPCC_MAC_MSG_LEN);
}

static inline void hpcc_put_be64_wire(void *p, __u64 v)
{
	__u8 *b = (__u8 *)p;
	__u32 j;

	for (j = 0; j < 8; j++)
		b[j] = (__u8)(v >> (56 - 8 * j));
}

static inline __u64 hpcc_get_be64_wire(const void *p)
{
	const __u8 *b = (const __u8 *)p;

	return (__u64)b[0] << 56 | (__u64)b[1] << 48 | (__u64)b[2] << 40 |
	       (__u64)b[3] << 32 | (__u64)b[4] << 24 | (__u64)b[5] << 16 |
	       (__u64)b[6] << 8 | (__u64)b[7];
}

/*
 * The receiver's tag (a v2 response with HPCC_F_MAC): the receiver that
 * turns a probe around seals the response header, nhops and flags
 * included, to the chain: R = SipHash-2-4(key[key_id], nonce | send_ns |
 * 0xffffffff | the 24-byte response header, then 8 zero bytes | tag of
 * the last record (zero without records)), the same 56-byte message
 * layout as a record's with position 0xffffffff, which no record has. R
 * replaces the tag of the last record on the wire (of slot 0 without
 * records): the verifier recomputes that record's tag from the chain
 * and compares the wire with R over it. So a box without the key can no
 * longer cut trailing records (lower nhops) or change a flag of the
 * response; what it can still do on the forward path, before the
 * receiver seals, is in tcp_hpcc.rst ("Threat model").
 */
#define HPCC_MAC_RESP_POS	0xffffffffu

static inline __u32 hpcc_mac_resp_slot(__u8 nhops)
{
	return nhops ? (__u32)nhops - 1 : 0;
}

static inline __u64 hpcc_mac_resp_tag(const struct hpcc_sipkey *k,
				      const struct hpcc_hdr_v2 *h,
				      const __u8 *last_tag)
{
	struct hpcc_hop rec;
	const __u8 *src = (const __u8 *)h;
	__u8 *dst = (__u8 *)&rec;
	__u32 j;

	for (j = 0; j < sizeof(rec); j++)
		dst[j] = j < sizeof(*h) ? src[j] : 0;
	return hpcc_mac_tag(k, h, HPCC_MAC_RESP_POS, &rec, last_tag);
}

/*
 * The whole chain of a v2 probe/response with HPCC_F_MAC: 0 if every one
 * of its nhops records carries the tag key @k gives it (and, on a
 * response, the last record's tag slot the receiver's tag over it),
 * else -EKEYREJECTED. Binds each record to the probe (nonce, send_ns),
 * to its position and to every record before it, and a response's
 * header to all of them.
 */
static inline int hpcc_mac_verify(const struct hpcc_probe_v2 *p,
				  const struct hpcc_sipkey *k)
{
	const __u8 *prev = 0;
	__u8 last[8] = { 0 };
	__u32 i, n = p->hdr.nhops;
	__u8 resp = (p->hdr.flags & HPCC_F_RESPONSE) != 0;
	__u64 t;

	if (n > HPCC_MAX_HOPS)
		return -EKEYREJECTED;
	for (i = 0; i < n; i++) {
		const struct hpcc_hop_v2 *h = &p->hop[i];

		t = hpcc_mac_tag(k, &p->hdr, i, &h->rec, prev);
		if (resp && i == n - 1) {
			hpcc_put_be64_wire(last, t);
			break;
		}
		if (t != hpcc_get_be64_wire(&h->tag))
			return -EKEYREJECTED;
		prev = (const __u8 *)&h->tag;
	}
	if (resp &&
	    hpcc_mac_resp_tag(k, &p->hdr, last) !=
	    hpcc_get_be64_wire(&p->hop[hpcc_mac_resp_slot(n)].tag))
		return -EKEYREJECTED;
	return 0;
}

/* Seal response @p in memory as its receiver would (tests, simulation):
 * its records' chain already in place, HPCC_F_RESPONSE set.
 */
static inline void hpcc_mac_seal(struct hpcc_probe_v2 *p,
				 const struct hpcc_sipkey *k)
{
	__u8 last[8] = { 0 };
	__u32 j, s = hpcc_mac_resp_slot(p->hdr.nhops);
	__u8 *tag;

	if (s >= HPCC_MAX_HOPS)
		return;
	tag = (__u8 *)&p->hop[s].tag;
	if (p->hdr.nhops)
		for (j = 0; j < 8; j++)
			last[j] = tag[j];
	hpcc_put_be64_wire(tag, hpcc_mac_resp_tag(k, &p->hdr, last));
}

/*
 * The receiver's tag on a window response (Rx-HPCC with HPCC_F_MAC): two
 * links of the same 56-byte message as a record's, at positions no record
 * has: t1 over the response header (24 bytes, 8 zero) at 0xfffffffe, then
 * the tag over the window record (24 bytes, 8 zero) at 0xfffffffd chained
 * to t1. Binds the window, the flags and the header to this probe's nonce
 * and send_ns under the domain key; the receiver computed the window from
 * records whose chain it verified.
 */
#define HPCC_MAC_WHDR_POS	0xfffffffeu
#define HPCC_MAC_WREC_POS	0xfffffffdu

static inline __u64 hpcc_mac_window_tag(const struct hpcc_sipkey *k,
					const struct hpcc_window_resp *r)
{
	struct hpcc_hop rec = {};
	const __u8 *src = (const __u8 *)&r->hdr;
	__u8 *dst = (__u8 *)&rec, t1[8] = { 0 };
	__u32 j;

	for (j = 0; j < sizeof(rec); j++)
		dst[j] = j < sizeof(r->hdr) ? src[j] : 0;
	hpcc_put_be64_wire(t1,
			   hpcc_mac_tag(k, &r->hdr, HPCC_MAC_WHDR_POS, &rec, 0));
	src = (const __u8 *)&r->win;
	for (j = 0; j < sizeof(rec); j++)
		dst[j] = j < sizeof(r->win) ? src[j] : 0;
	return hpcc_mac_tag(k, &r->hdr, HPCC_MAC_WREC_POS, &rec, t1);
}

static inline int hpcc_mac_window_verify(const struct hpcc_window_resp *r,
					 const struct hpcc_sipkey *k)
{
	return hpcc_mac_window_tag(k, r) == hpcc_get_be64_wire(&r->tag) ?
	       0 : -EKEYREJECTED;
}

#endif /* _HPCC_WIRE_H */
