/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The ABI between the tc BPF programs (bpf/hpcc_switch.bpf.c,
 * bpf/hpcc_host.bpf.c) and userspace (hpcc-probe, tests/bpf): the maps'
 * value types and the counters. Nothing here is on the wire (that is
 * hpcc_wire.h); all fields are in host byte order.
 */
#ifndef _HPCC_MAPS_H
#define _HPCC_MAPS_H

#include "hpcc_wire.h"

/* Host program config: map "hpcc_host_cfg", ARRAY, one entry, key 0.
 * An entry never written by userspace is all zero: defaults apply.
 */
#define HPCC_CFG_F_DSCP		0x0001	/* probe_dscp/resp_dscp are set */
#define HPCC_CFG_F_RAW_IP	0x0002	/* the device has no link-layer
					 * header (tun, wireguard, ipip...)
					 */
#define HPCC_CFG_F_REFLECT	0x0004	/* reflect_rate/_burst are set */
#define HPCC_CFG_F_PEER		0x0008	/* peer_rate/_burst are set */
#define HPCC_CFG_F_RX_WINDOW	0x0010	/* Rx-HPCC: answer a probe that asks
					 * for a window with one
					 */
#define HPCC_CFG_F_FLOW_EPOCH	0x0020	/* flow_epoch_us is set */

/* Probes the receiver turns around, per device, without configuration:
 * as many as a sender's namespace may send at most (tcp_hpcc's
 * probe_limit default), and a burst of 10 ms of them.
 */
#define HPCC_REFLECT_RATE_DEFAULT	100000	/* probes/s */
#define HPCC_REFLECT_BURST_DEFAULT	1000	/* probes */
/* And per peer (source address), so that one peer cannot take the
 * device's whole budget: a quarter of it, so at least four peers are
 * answered at the device rate while one floods. State for at most
 * HPCC_REFLECT_PEERS peers (an LRU hash; only peers with a connection to
 * this host get there, so its size bounds nothing an outsider controls).
 */
#define HPCC_PEER_RATE_DEFAULT		25000	/* probes/s */
#define HPCC_PEER_BURST_DEFAULT		250	/* probes */
#define HPCC_REFLECT_PEERS		4096

struct hpcc_host_cfg {
	__u8 probe_dscp;
	__u8 resp_dscp;
	__u16 flags;			/* HPCC_CFG_F_* */
	/* Reflection limit, a token bucket: at most reflect_rate probes/s
	 * (0: no limit) and reflect_burst (at least 1) at once. Was a
	 * reserved 0 in the 8-byte version of this struct.
	 */
	__u32 reflect_rate;
	__u32 reflect_burst;
	__u32 reserved;
	/* Per-peer reflection limit (HPCC_CFG_F_PEER), the same token
	 * bucket for each source address: peer_rate probes/s (0: no
	 * per-peer limit), peer_burst (at least 1). Appended: the struct
	 * was 16 bytes before.
	 */
	__u32 peer_rate;
	__u32 peer_burst;
	/* Receiver-measured N (hpcc_flowcount.h), HPCC_CFG_F_FLOW_EPOCH: the
	 * epoch in us (0: not counted, responses carry N 0); without the
	 * flag HPCC_FC_EPOCH_US_DEFAULT. Appended: 24 bytes before.
	 */
	__u32 flow_epoch_us;
	__u32 reserved2;
};

/* The reflection limit's state: map "hpcc_reflect_tb", ARRAY, one entry.
 * A generic cell rate algorithm: tat is the theoretical arrival time of
 * the next probe, in bpf_ktime_get_ns() time; a probe is reflected while
 * tat is at most (burst - 1) / rate ahead of now, and moves it on by
 * 1 / rate.
 */
struct hpcc_reflect_tb {
	__u64 tat;
};

/* The per-peer limit's state: map "hpcc_reflect_peer", LRU_HASH of
 * HPCC_REFLECT_PEERS, key the probe's source address (an IPv4 address
 * as ::ffff:a.b.c.d), value a struct hpcc_reflect_tb. A peer evicted
 * comes back with a full burst; the device limit still holds.
 */
struct hpcc_peer_key {
	__u8 addr[16];
};

/* Rx-HPCC (HPCC_CFG_F_RX_WINDOW): the receiver's state of each connection
 * it computes windows for, map "hpcc_rx_flows", SK_STORAGE. Opaque to BPF:
 * the module's struct hpcc_rx_flow (hpcc_ctl.h) fits in it (a
 * BUILD_BUG_ON), and its kfunc takes exactly this size.
 */
#define HPCC_RX_FLOW_BYTES	384

struct hpcc_rx_blob {
	__u64 w[HPCC_RX_FLOW_BYTES / 8];
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
#define HPCC_PORT_F_EDGE	0x0008	/* the port faces outside the domain:
					 * probes and responses crossing it
					 * lose their records, probes coming
					 * in are dropped (hpcc_edge_in on
					 * its ingress), nothing is stamped
					 */
/* Stamp hpcc's class (qos_*), not the whole port: "HPCC under QoS
 * queuing" in tcp_hpcc.rst.
 */
#define HPCC_PORT_F_QOS		0x0010
#define HPCC_PORT_F_ANON	0x0020	/* anonymised records (ratios only,
					 * hpcc_stamp_anon()), HPCC_F_ANON
					 */

struct hpcc_port_cfg {
	__u32 switch_id;
	__u32 port_id;
	__u32 rate_mbps;		/* link capacity stamped in each hop */
	__u8 probe_dscp;
	__u8 resp_dscp;
	__u16 flags;			/* HPCC_PORT_F_* */
	__u64 netns_cookie;		/* 0 = any namespace */
	/* HPCC_PORT_F_QOS (appended: older instances' entries are 24 bytes
	 * and refuse these, "switch detach --all" first):
	 */
	__u32 qos_classid;		/* hpcc's class (major:minor, tc's
					 * classid): probes and responses
					 * get it as skb->priority
					 */
	__u32 qos_rate_mbps;		/* its guaranteed rate */
	__u8 qos_dscp;			/* DSCP of its data (sampling) */
	__u8 qos_pad[7];
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

/* QoS class state of a HPCC_PORT_F_QOS port: map "hpcc_qos" (not pinned:
 * the instance's programs hold it), HASH, key __u32 ifindex, written by
 * the qdisc tracepoints under the root qdisc's lock, read by the tc
 * program. A packet is the class's when skb->priority is qos_classid (the
 * probes and responses the tc program put there) or its DSCP is qos_dscp.
 * Up to HPCC_QOS_SAMPLES class packets in the queue are sampled: an
 * enqueue takes a free slot of the ring (skb address, enqueue time), the
 * dequeue of the oldest sample frees it and publishes its sojourn. In a
 * standing queue the samples are thus spread over it, and the sojourn
 * published is that of a packet dequeued at most about 1/HPCC_QOS_SAMPLES
 * of a sojourn ago.
 */
#define HPCC_QOS_SAMPLES	16	/* a power of two */

struct hpcc_qos_state {
	__u64 enq_bytes;		/* class bytes enqueued (pkt_len) */
	__u64 deq_bytes;		/* class bytes dequeued, wraps */
	__u64 sojourn_ns;		/* sojourn of the last sample dequeued */
	__u64 sojourn_at;		/* when it was dequeued */
	__u32 sojourn_len;		/* its bytes (pkt_len) */
	__u32 pad;
	__u32 head, tail;		/* samples [head, tail), free running */
	__u64 mark_skb[HPCC_QOS_SAMPLES];	/* sample's skb address */
	__u64 mark_ns[HPCC_QOS_SAMPLES];	/* its enqueue time */
};

#define HPCC_QOS_MARK_MAX_NS	1000000000ull	/* the oldest sample is this
						 * old: it was dropped inside
						 * the qdisc, forget it
						 */

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
	/* host: a valid probe that is not answered (dropped). Appended. */
	HPCC_CNT_REFLECT_NO_SOCKET,	/* no socket for its 4-tuple: a closed
					 * port, an address not ours, a
					 * spoofed source
					 */
	HPCC_CNT_REFLECT_NO_CONN,	/* only a listener, a request or a
					 * timewait socket: no connection
					 */
	HPCC_CNT_REFLECT_LIMITED,	/* over the reflection rate */
	/* switch: edge ports (HPCC_PORT_F_EDGE). Appended. */
	HPCC_CNT_EDGE_STRIPPED,		/* a probe or response crossing the
					 * edge: its records removed
					 */
	HPCC_CNT_EDGE_PROBE_DROPPED,	/* a probe from outside: dropped */
	/* wire version 2, MAC. Appended. */
	HPCC_CNT_SWITCH_MAC_TAGGED,	/* a record stamped and tagged */
	HPCC_CNT_SWITCH_NO_KEY,		/* MAC asked, key_id not set here:
					 * stamped with tag 0 (the sender
					 * rejects the chain)
					 */
	HPCC_CNT_REJECT_MAC,		/* kfunc -EKEYREJECTED: bad chain */
	HPCC_CNT_MAC_MISSING,		/* kfunc -ENOKEY: untagged report,
					 * mac_required set
					 */
	/* switch: QoS ports (HPCC_PORT_F_QOS). Appended. */
	HPCC_CNT_QOS_STAMPED,		/* a hop of the class stamped */
	HPCC_CNT_QOS_NO_STATE,		/* no class state yet: sojourn 0 */
	HPCC_CNT_QOS_MARK_LOST,		/* a sample never left the qdisc
					 * (dropped inside): sampled again
					 */
	/* host: the per-peer reflection limit. Appended. */
	HPCC_CNT_REFLECT_PEER_LIMITED,	/* over its source's rate */
	/* host: the receiver's tag on a v2 response with MAC. Appended. */
	HPCC_CNT_REFLECT_SEALED,	/* response sealed under its key */
	HPCC_CNT_REFLECT_NO_KEY,	/* key_id not set here: reflected
					 * unsealed (the sender rejects it)
					 */
	/* host: Rx-HPCC (HPCC_CFG_F_RX_WINDOW). Appended. */
	HPCC_CNT_RX_WINDOW_SENT,	/* a window answered the probe */
	HPCC_CNT_RX_WINDOW_REFUSED,	/* the module gave none (its counters
					 * say why): records reflected
					 */
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
	case HPCC_CNT_REFLECT_NO_SOCKET: return "reflect_no_socket";
	case HPCC_CNT_REFLECT_NO_CONN:	return "reflect_no_conn";
	case HPCC_CNT_REFLECT_LIMITED:	return "reflect_limited";
	case HPCC_CNT_EDGE_STRIPPED:	return "edge_stripped";
	case HPCC_CNT_EDGE_PROBE_DROPPED: return "edge_probe_dropped";
	case HPCC_CNT_SWITCH_MAC_TAGGED: return "switch_mac_tagged";
	case HPCC_CNT_SWITCH_NO_KEY:	return "switch_no_key";
	case HPCC_CNT_REJECT_MAC:	return "reject_mac";
	case HPCC_CNT_MAC_MISSING:	return "mac_missing";
	case HPCC_CNT_QOS_STAMPED:	return "qos_stamped";
	case HPCC_CNT_QOS_NO_STATE:	return "qos_no_state";
	case HPCC_CNT_QOS_MARK_LOST:	return "qos_mark_lost";
	case HPCC_CNT_REFLECT_PEER_LIMITED: return "reflect_peer_limited";
	case HPCC_CNT_REFLECT_SEALED:	return "reflect_sealed";
	case HPCC_CNT_REFLECT_NO_KEY:	return "reflect_no_key";
	case HPCC_CNT_RX_WINDOW_SENT:	return "rx_window_sent";
	case HPCC_CNT_RX_WINDOW_REFUSED: return "rx_window_refused";
	}
	return "?";
}

/* Map "hpcc_mac_keys": ARRAY of HPCC_MAC_KEYS, indexed by key_id, on
 * routers and hosts, written by "hpcc-probe key set". A slot without
 * HPCC_KEY_F_SET is no key.
 */
#define HPCC_KEY_F_SET		0x0001

struct hpcc_mac_key {
	__u8 key[HPCC_MAC_KEY_LEN];	/* SipHash-2-4 key, as given */
	__u32 flags;			/* HPCC_KEY_F_* */
	__u32 rsvd;
};

/* bpf/hpcc_parse.h's hpcc_dscps() reads probe_dscp and resp_dscp as a pair. */
#ifdef __cplusplus
#define HPCC_MAPS_ASSERT	static_assert
#else
#define HPCC_MAPS_ASSERT	_Static_assert
#endif
HPCC_MAPS_ASSERT(__builtin_offsetof(struct hpcc_host_cfg, resp_dscp) ==
	       __builtin_offsetof(struct hpcc_host_cfg, probe_dscp) + 1,
	       "hpcc_host_cfg: DSCP pair not adjacent");
HPCC_MAPS_ASSERT(__builtin_offsetof(struct hpcc_port_cfg, resp_dscp) ==
	       __builtin_offsetof(struct hpcc_port_cfg, probe_dscp) + 1,
	       "hpcc_port_cfg: DSCP pair not adjacent");

#endif /* _HPCC_MAPS_H */
