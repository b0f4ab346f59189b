/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The HPCC++ probe/response wire format and the types shared by
 * tcp_hpcc.ko, the tc BPF programs in bpf/ and the hpcc-probe helper.
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
/* BPF programs: the types come from vmlinux.h. */
#ifndef EINVAL
#define EMSGSIZE	90
#define EPROTONOSUPPORT	93
#define ERANGE		34
#define EBADMSG		74
#define EINVAL		22
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

/* Default DSCPs: unassigned in the IANA pool 1 registry (RFC 8436 leaves
 * xxxxx0 codepoints for standards action; these are local/experimental use).
 */
#define HPCC_DSCP_PROBE_DEFAULT		0x2d
#define HPCC_DSCP_RESPONSE_DEFAULT	0x2e

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

/*
 * BPF map value types and counters
 * (bpf/hpcc_switch.bpf.c, bpf/hpcc_host.bpf.c, tests/bpf, hpcc-probe).
 * Nothing below is on the wire; all fields are in host byte order.
 */

/* Host program config: map "hpcc_host_cfg", ARRAY, one entry, key 0.
 * An entry never written by userspace is all zero: defaults apply.
 */
#define HPCC_CFG_F_DSCP		0x0001	/* probe_dscp/resp_dscp are set */
#define HPCC_CFG_F_RAW_IP	0x0002	/* the device has no link-layer
					 * header (tun, wireguard, ipip...)
					 */

struct hpcc_host_cfg {
	__u8 probe_dscp;
	__u8 resp_dscp;
	__u16 flags;			/* HPCC_CFG_F_* */
	__u32 reserved;
};

/* Switch port config: map "hpcc_port_cfg", HASH, key __u32 egress ifindex.
 * A port without an entry passes probes untouched and publishes no queue
 * snapshots. ifindex is per network namespace: load one instance of the
 * switch object per router namespace, and set netns_cookie (SO_NETNS_COOKIE
 * of a socket in that namespace) so the global qdisc tracepoints ignore
 * devices of other namespaces that share the ifindex.
 */
#define HPCC_PORT_F_PORT_ID	0x0001	/* port_id is set, else the ifindex */
#define HPCC_PORT_F_DSCP	0x0002	/* probe_dscp/resp_dscp are set */
#define HPCC_PORT_F_RAW_IP	0x0004	/* as HPCC_CFG_F_RAW_IP */

struct hpcc_port_cfg {
	__u32 switch_id;
	__u32 port_id;
	__u32 rate_mbps;		/* link capacity stamped in each hop */
	__u8 probe_dscp;
	__u8 resp_dscp;
	__u16 flags;			/* HPCC_PORT_F_* */
	__u64 netns_cookie;		/* 0 = any namespace */
};

/* Queue snapshots: map "hpcc_qsnap", HASH, key __u32 ifindex, written by
 * the qdisc tracepoint programs of hpcc_switch.bpf.c, read by its tc
 * program. A device whose root qdisc serves every tx queue (tbf, htb,
 * fq_codel, pfifo_fast...) uses slot 0; an mq/mqprio root has a child per
 * tx queue and uses slot = tx queue index; the port's backlog and byte
 * count are then the sum of the slots that belong to the current root.
 */
#define HPCC_MAX_TXQ		64
#define HPCC_MAX_CPUS		128	/* per-CPU qdisc stats summed up to */

struct hpcc_qsnap {
	__u32 seq;			/* odd while a writer is inside */
	__u32 backlog;			/* qdisc backlog, bytes */
	__u64 bytes;			/* bytes dequeued (sent), wraps */
	__u64 ts_ns;			/* bpf_ktime_get_ns() at publish */
	__u64 root;			/* identity of dev->qdisc at publish */
};

#define HPCC_QSNAP_F_MQ		0x0001	/* slots are per tx queue */

struct hpcc_qsnap_dev {
	__u64 root;			/* identity of the current dev->qdisc */
	__u32 ntxq;			/* dev->real_num_tx_queues */
	__u32 flags;			/* HPCC_QSNAP_F_* */
	struct hpcc_qsnap q[HPCC_MAX_TXQ];
};

/* Counters: map "hpcc_counters", PERCPU_ARRAY of __u64, HPCC_CNT_MAX
 * entries, one instance per object. Each pass/drop reason has its own.
 */
enum hpcc_counter {
	/* A TCP segment without flags whose DSCP is not HPCC's; ordinary
	 * traffic leaves on the fast path and is not counted.
	 */
	HPCC_CNT_OTHER = 0,
	/* HPCC candidates (TCP, no flags, probe/response DSCP) that failed
	 * validation: passed untouched by the switch, dropped by the host.
	 */
	HPCC_CNT_TRUNCATED,		/* payload is not HPCC_PROBE_LEN */
	HPCC_CNT_BAD_VERSION,
	HPCC_CNT_BAD_ROOM,		/* room != HPCC_MAX_HOPS */
	HPCC_CNT_BAD_NHOPS,		/* nhops > room */
	HPCC_CNT_BAD_FLAGS,		/* unknown flag bits */
	HPCC_CNT_BAD_DSCP,		/* DSCP disagrees with HPCC_F_RESPONSE */
	HPCC_CNT_WRITE_FAIL,		/* a rewrite helper failed */
	/* host: receiver */
	HPCC_CNT_PROBE_REFLECTED,
	/* host: sender, every response is dropped after one of these */
	HPCC_CNT_RESP_DELIVERED,	/* kfunc returned 0 */
	HPCC_CNT_NO_SOCKET,		/* no established socket for tuple */
	HPCC_CNT_NOT_HPCC,		/* -EOPNOTSUPP: socket not on hpcc */
	HPCC_CNT_BAD_NONCE,		/* -ESTALE */
	HPCC_CNT_NO_FLOW_STATE,		/* -ENOBUFS */
	HPCC_CNT_BAD_SOCKET,		/* -EINVAL */
	HPCC_CNT_NO_MODULE,		/* tcp_hpcc.ko (its kfunc) absent */
	HPCC_CNT_KFUNC_OTHER,		/* any other kfunc return */
	/* switch: tc egress */
	HPCC_CNT_SWITCH_STAMPED,
	HPCC_CNT_SWITCH_OVERFLOW,	/* no room: HPCC_F_OVERFLOW set */
	HPCC_CNT_SWITCH_NO_CONFIG,	/* probe on a port without config */
	HPCC_CNT_SWITCH_RESPONSE,	/* response passed untouched */
	HPCC_CNT_SWITCH_NO_QSTATS,	/* no snapshot: qlen/tx_bytes 0 */
	HPCC_CNT_SWITCH_QSTATS_TORN,	/* no consistent read in retries */
	/* switch: qdisc tracepoints */
	HPCC_CNT_QSTAT_TXQ_RANGE,	/* tx queue >= HPCC_MAX_TXQ */
	HPCC_CNT_QSTAT_CPU_RANGE,	/* > HPCC_MAX_CPUS: partial sums */
	HPCC_CNT_QSTAT_CONTENDED,	/* slot busy: publish skipped */
	HPCC_CNT_QSTAT_OTHER_NETNS,	/* ifindex matched, netns did not */
	/* host: a probe or response whose TCP checksum is wrong (or was
	 * never filled in): dropped, neither reflected nor delivered.
	 * Appended, so that older pinned maps keep their indices.
	 */
	HPCC_CNT_BAD_CSUM,
	HPCC_CNT_MAX
};

static inline const char *hpcc_counter_name(unsigned int c)
{
	switch (c) {
	case HPCC_CNT_OTHER:		return "other";
	case HPCC_CNT_TRUNCATED:	return "truncated";
	case HPCC_CNT_BAD_VERSION:	return "bad_version";
	case HPCC_CNT_BAD_ROOM:		return "bad_room";
	case HPCC_CNT_BAD_NHOPS:	return "bad_nhops";
	case HPCC_CNT_BAD_FLAGS:	return "bad_flags";
	case HPCC_CNT_BAD_DSCP:		return "bad_dscp";
	case HPCC_CNT_WRITE_FAIL:	return "write_fail";
	case HPCC_CNT_PROBE_REFLECTED:	return "probe_reflected";
	case HPCC_CNT_RESP_DELIVERED:	return "resp_delivered";
	case HPCC_CNT_NO_SOCKET:	return "no_socket";
	case HPCC_CNT_NOT_HPCC:		return "not_hpcc";
	case HPCC_CNT_BAD_NONCE:	return "bad_nonce";
	case HPCC_CNT_NO_FLOW_STATE:	return "no_flow_state";
	case HPCC_CNT_BAD_SOCKET:	return "bad_socket";
	case HPCC_CNT_NO_MODULE:	return "no_module";
	case HPCC_CNT_KFUNC_OTHER:	return "kfunc_other";
	case HPCC_CNT_SWITCH_STAMPED:	return "switch_stamped";
	case HPCC_CNT_SWITCH_OVERFLOW:	return "switch_overflow";
	case HPCC_CNT_SWITCH_NO_CONFIG:	return "switch_no_config";
	case HPCC_CNT_SWITCH_RESPONSE:	return "switch_response";
	case HPCC_CNT_SWITCH_NO_QSTATS:	return "switch_no_qstats";
	case HPCC_CNT_SWITCH_QSTATS_TORN: return "switch_qstats_torn";
	case HPCC_CNT_QSTAT_TXQ_RANGE:	return "qstat_txq_range";
	case HPCC_CNT_QSTAT_CPU_RANGE:	return "qstat_cpu_range";
	case HPCC_CNT_QSTAT_CONTENDED:	return "qstat_contended";
	case HPCC_CNT_QSTAT_OTHER_NETNS: return "qstat_other_netns";
	case HPCC_CNT_BAD_CSUM:		return "bad_csum";
	}
	return "?";
}

#endif /* _HPCC_WIRE_H */
