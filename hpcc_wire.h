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
 * these are every errno the wire check and bpf_hpcc_report() return.
 */
#ifndef EINVAL
#define E2BIG		7
#define EINVAL		22
#define ERANGE		34
#define EBADMSG		74
#define EMSGSIZE	90
#define EPROTONOSUPPORT	93
#define EOPNOTSUPP	95
#define ENOBUFS		105
#define ESTALE		116
#endif
#else
#include <linux/types.h>
#include <errno.h>
#endif

#define HPCC_WIRE_VERSION	1
#define HPCC_MAX_HOPS		8

/* hpcc_hdr.flags */
#define HPCC_F_RESPONSE		0x01	/* turned around by the receiver */
#define HPCC_F_OVERFLOW		0x02	/* a hop found no room left */
#define HPCC_F_KNOWN		(HPCC_F_RESPONSE | HPCC_F_OVERFLOW)

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

/* Structural check shared by the module, the BPF programs and hpcc-probe.
 * Every reason has its own errno so that each can be counted apart:
 *   -EMSGSIZE        buffer is not exactly one struct hpcc_probe
 *   -EPROTONOSUPPORT unknown version
 *   -ERANGE          room is not HPCC_MAX_HOPS or nhops exceeds room
 *   -EBADMSG         unknown flag bits
 */
static inline int hpcc_wire_check(const struct hpcc_hdr *h, __u32 len)
{
	if (len != HPCC_PROBE_LEN)
		return -EMSGSIZE;
	if (h->version != HPCC_WIRE_VERSION)
		return -EPROTONOSUPPORT;
	if (h->room != HPCC_MAX_HOPS || h->nhops > h->room)
		return -ERANGE;
	if (h->flags & ~HPCC_F_KNOWN)
		return -EBADMSG;
	return 0;
}

#endif /* _HPCC_WIRE_H */
