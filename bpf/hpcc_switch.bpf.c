// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_switch.bpf.c - HPCC++ stamping at a Linux router's egress port.
 *
 * SEC("tc") runs at clsact egress: a valid probe gets one struct hpcc_hop
 * describing this port (or HPCC_F_OVERFLOW when the room is used up),
 * everything else leaves byte-identical.
 *
 * clsact egress runs before the qdisc enqueue and has no way to the
 * device's qdisc, so the queue state comes from tracing programs on the
 * qdisc tracepoints. Each publishes a snapshot {backlog, sent bytes, time}
 * of the tx queue's root qdisc under a sequence counter; the tc program
 * reads the snapshot(s) of its egress device:
 *  - tp_btf/qdisc_enqueue, tp_btf/qdisc_dequeue (both exist in 6.1): every
 *    enqueue and dequeue of a qdisc that queues;
 *  - tp_btf/net_dev_start_xmit: lockless qdiscs (pfifo_fast: per-CPU
 *    stats) transmit straight from an empty queue without either
 *    tracepoint (the bypass path of __dev_xmit_skb), so their sent bytes
 *    are also published on every transmit. Qdiscs with a lock run
 *    __qdisc_run after a bypass, which fires qdisc_dequeue.
 * A snapshot is taken right after the event that changed the stats, so
 * (backlog, bytes) stay exact until the next event: the tc program stamps
 * ts_ns = now with them.
 *
 * The tracepoints are global; they only publish for devices that have a
 * hpcc_port_cfg entry (and, if set, the entry's network namespace).
 *
 * Edge ports (HPCC_PORT_F_EDGE) face outside the telemetry domain: what
 * leaves through one carries no records (a probe or response has them
 * removed instead of stamped), and SEC("tc") hpcc_edge_in on its ingress
 * drops the probes coming in and removes the records of the responses
 * coming in. So nothing stamped inside leaves, an outside probe is
 * neither stamped inside nor answered, and no sender inside acts on
 * records from outside.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "hpcc_stamp.h"
#include "hpcc_parse.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);			/* egress ifindex */
	__type(value, struct hpcc_port_cfg);
} hpcc_port_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);			/* ifindex */
	__type(value, struct hpcc_qsnap_dev);
} hpcc_qsnap SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, HPCC_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} hpcc_counters SEC(".maps");

/* Only its per-CPU addresses matter: they give the per-CPU offsets used to
 * sum a qdisc's per-CPU stats (see hpcc_pcpu_init()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} hpcc_pcpu_probe SEC(".maps");

/* Scratch copy of a payload whose records an edge port removes (either
 * version: the larger).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hpcc_probe_v2);
} hpcc_strip_buf SEC(".maps");

/* The domain's MAC keys, by key_id (wire version 2): "hpcc-probe key". */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, HPCC_MAC_KEYS);
	__type(key, __u32);
	__type(value, struct hpcc_mac_key);
} hpcc_mac_keys SEC(".maps");

/* HPCC_PORT_F_QOS ports: the class's state (hpcc_maps.h). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);			/* ifindex */
	__type(value, struct hpcc_qos_state);
} hpcc_qos SEC(".maps");

/* Zero template to create a hpcc_qsnap entry (too big for the stack). */
static const struct hpcc_qsnap_dev hpcc_qsnap_zero;

/* Zero template to create a hpcc_qos entry. */
static const struct hpcc_qos_state hpcc_qos_zero;

/* What an edge port leaves of the records: zeros. */
static const struct hpcc_hop_v2 hpcc_no_hops[HPCC_MAX_HOPS];

/* Per-CPU area offsets (__per_cpu_offset[]), found once. */
__u64 hpcc_pcpu_off[HPCC_MAX_CPUS];
__u32 hpcc_pcpu_n;

#define barrier()	asm volatile("" ::: "memory")
#define READ_ONCE_U32(x) (*(volatile __u32 *)&(x))
#define READ_ONCE_U64(x) (*(volatile __u64 *)&(x))
#define WRITE_ONCE_U64(x, v) (*(volatile __u64 *)&(x) = (v))
#define WRITE_ONCE_U32(x, v) (*(volatile __u32 *)&(x) = (v))

#define HPCC_SNAP_RETRIES	4

/* A kernel pointer as a number (privileged programs may do this): lets
 * us do address arithmetic the verifier does not allow on typed pointers
 * and read the result with bpf_probe_read_kernel().
 */
static __always_inline __u64 hpcc_ptr_u64(const void *p)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), &p);
	return v;
}

/* per_cpu_ptr(p, cpu) == p + __per_cpu_offset[cpu] for every dynamic
 * per-CPU allocation. Neither __per_cpu_offset nor nr_cpu_ids can be
 * assumed in kallsyms (CONFIG_KALLSYMS_ALL=n) and 6.1's BTF has no
 * percpu type tags for bpf_per_cpu_ptr() on q->cpu_qstats, so take the
 * offsets from our own per-CPU map: its raw per-CPU pointer is
 * bpf_array.pptrs[0], and bpf_map_lookup_percpu_elem() (5.19+) returns
 * the per-CPU addresses; it returns NULL past nr_cpu_ids.
 */
struct hpcc_pcpu_scan {
	__u64 raw;
	__u32 n;
};

static long hpcc_pcpu_slot(__u32 cpu, void *arg)
{
	struct hpcc_pcpu_scan *c = arg;
	__u32 zero = 0;
	void *v;

	if (cpu >= HPCC_MAX_CPUS)
		return 1;
	v = bpf_map_lookup_percpu_elem(&hpcc_pcpu_probe, &zero, cpu);
	if (!v)
		return 1;
	hpcc_pcpu_off[cpu] = hpcc_ptr_u64(v) - c->raw;
	c->n = cpu + 1;
	return 0;
}

static __always_inline __u32 hpcc_pcpu_init(void)
{
	struct hpcc_pcpu_scan c = {};
	__u32 zero = 0, n;
	__u64 arr;

	n = hpcc_pcpu_n;
	if (n)
		return n;
	arr = hpcc_ptr_u64(&hpcc_pcpu_probe);
	if (bpf_probe_read_kernel(&c.raw, sizeof(c.raw),
				  (void *)(arr + bpf_core_field_offset(
					struct bpf_array, pptrs))) || !c.raw)
		return 0;
	/* bpf_loop (5.17+): verified once, not once per possible CPU */
	bpf_loop(HPCC_MAX_CPUS, hpcc_pcpu_slot, &c, 0);
	if (c.n == HPCC_MAX_CPUS &&
	    bpf_map_lookup_percpu_elem(&hpcc_pcpu_probe, &zero, c.n))
		hpcc_count(&hpcc_counters, HPCC_CNT_QSTAT_CPU_RANGE);
	hpcc_pcpu_n = c.n;
	return c.n;
}

struct hpcc_cpu_sum {
	__u64 cq, cb, off_bl, off_by;
	__u64 bytes;
	__u32 backlog;
};

static long hpcc_cpu_stats(__u32 cpu, void *arg)
{
	struct hpcc_cpu_sum *c = arg;
	__u32 bl = 0;
	__u64 by = 0;

	if (cpu >= HPCC_MAX_CPUS)
		return 1;
	bpf_probe_read_kernel(&bl, sizeof(bl),
			      (void *)(c->cq + hpcc_pcpu_off[cpu] + c->off_bl));
	bpf_probe_read_kernel(&by, sizeof(by),
			      (void *)(c->cb + hpcc_pcpu_off[cpu] + c->off_by));
	c->backlog += bl;	/* per-CPU parts may be "negative" */
	c->bytes += by;
	return 0;
}

/* Backlog and sent bytes of one qdisc, as `tc -s qdisc` reports them:
 * per-CPU stats (lockless qdiscs) are summed over the CPUs.
 */
static __always_inline void hpcc_qdisc_stats(struct Qdisc *q, __u32 *backlog,
					     __u64 *bytes)
{
	struct hpcc_cpu_sum c = {};

	c.cq = (__u64)BPF_CORE_READ(q, cpu_qstats);
	c.cb = (__u64)BPF_CORE_READ(q, cpu_bstats);
	if (!c.cq || !c.cb) {
		*backlog = BPF_CORE_READ(q, qstats.backlog);
		/* u64_stats_t: on 64-bit a plain 8-byte counter. */
		*bytes = 0;
		bpf_probe_read_kernel(bytes, sizeof(*bytes),
				      __builtin_preserve_access_index(
					&q->bstats.bytes));
		return;
	}
	c.off_bl = bpf_core_field_offset(struct gnet_stats_queue, backlog);
	c.off_by = bpf_core_field_offset(struct gnet_stats_basic_sync, bytes);
	bpf_loop(hpcc_pcpu_init(), hpcc_cpu_stats, &c, 0);
	*backlog = c.backlog;
	*bytes = c.bytes;
}

/* Publish the stats of @q, the qdisc serving tx queue @txq (a kernel
 * address) of @dev, the port with @ifindex.
 */
static __always_inline void hpcc_publish(struct Qdisc *q, __u64 txq,
					 struct net_device *dev, __u32 ifindex)
{
	struct hpcc_qsnap_dev *d;
	struct hpcc_qsnap *s;
	__u64 root, bytes, tx0;
	__u32 slot = 0, flags = 0, backlog, seq, ntxq, i;

	root = (__u64)BPF_CORE_READ(dev, qdisc);
	if ((__u64)q != root) {
		/* mq and friends: a child qdisc per tx queue. */
		tx0 = (__u64)BPF_CORE_READ(dev, _tx);
		slot = (txq - tx0) / bpf_core_type_size(struct netdev_queue);
		if (slot >= HPCC_MAX_TXQ) {
			hpcc_count(&hpcc_counters, HPCC_CNT_QSTAT_TXQ_RANGE);
			return;
		}
		flags = HPCC_QSNAP_F_MQ;
	}

	d = bpf_map_lookup_elem(&hpcc_qsnap, &ifindex);
	if (!d) {
		bpf_map_update_elem(&hpcc_qsnap, &ifindex, &hpcc_qsnap_zero,
				    BPF_NOEXIST);
		d = bpf_map_lookup_elem(&hpcc_qsnap, &ifindex);
		if (!d)
			return;
	}
	if (slot >= HPCC_MAX_TXQ)	/* for the verifier */
		return;
	s = &d->q[slot];

	/* Writers of one slot can race (lockless qdiscs enqueue without a
	 * lock): take the slot with a cmpxchg to an odd value. The stats are
	 * read inside, so a later writer always publishes later stats; a
	 * writer that cannot get in leaves the publication to the one inside
	 * (its stats read happens after ours changed them, or it is followed
	 * by another event).
	 */
	for (i = 0; i < HPCC_SNAP_RETRIES * 4; i++) {
		seq = READ_ONCE_U32(s->seq);
		if (!(seq & 1) &&
		    __sync_val_compare_and_swap(&s->seq, seq, seq + 1) == seq)
			break;
	}
	if (i == HPCC_SNAP_RETRIES * 4) {
		hpcc_count(&hpcc_counters, HPCC_CNT_QSTAT_CONTENDED);
		return;
	}
	barrier();
	hpcc_qdisc_stats(q, &backlog, &bytes);
	s->backlog = backlog;
	s->bytes = bytes;
	s->ts_ns = bpf_ktime_get_ns();
	s->root = root;
	barrier();
	__sync_fetch_and_add(&s->seq, 1);	/* atomic: after the stores */

	ntxq = BPF_CORE_READ(dev, real_num_tx_queues);
	if (d->root != root)
		d->root = root;
	if (d->flags != flags)
		d->flags = flags;
	if (d->ntxq != ntxq)
		d->ntxq = ntxq;
}

/* Port config for @dev if we watch it; NULL otherwise. */
static __always_inline struct hpcc_port_cfg *
hpcc_watched(struct net_device *dev, __u32 *ifindex)
{
	struct hpcc_port_cfg *cfg;

	if (!dev)
		return NULL;
	*ifindex = BPF_CORE_READ(dev, ifindex);
	cfg = bpf_map_lookup_elem(&hpcc_port_cfg, ifindex);
	if (!cfg || (cfg->flags & HPCC_PORT_F_EDGE))	/* stamps nothing */
		return NULL;
	if (cfg->netns_cookie &&
	    cfg->netns_cookie != BPF_CORE_READ(dev, nd_net.net, net_cookie)) {
		hpcc_count(&hpcc_counters, HPCC_CNT_QSTAT_OTHER_NETNS);
		return NULL;
	}
	return cfg;
}

/* The DSCP of @skb's IP header (at the qdisc: network_header is set);
 * 0xff for anything else (VLAN-tagged in the frame, ARP...).
 */
static __always_inline __u8 hpcc_skb_dscp(struct sk_buff *skb)
{
	unsigned char *head = BPF_CORE_READ(skb, head);
	__u16 nh = BPF_CORE_READ(skb, network_header);
	__be16 proto = BPF_CORE_READ(skb, protocol);
	__u8 b[2] = {};

	if (bpf_probe_read_kernel(b, sizeof(b), head + nh))
		return 0xff;
	if (proto == bpf_htons(HPCC_ETH_P_IP))
		return b[1] >> 2;
	if (proto == bpf_htons(HPCC_ETH_P_IPV6))
		return (__u8)(((b[0] & 0x0f) << 4) | (b[1] >> 4)) >> 2;
	return 0xff;
}

/* Is @skb hpcc's class on a QoS port: put there by the tc program
 * (probes, responses) or carrying the class's data DSCP?
 */
static __always_inline bool hpcc_qos_member(struct sk_buff *skb,
					    const struct hpcc_port_cfg *cfg)
{
	return BPF_CORE_READ(skb, priority) == cfg->qos_classid ||
	       hpcc_skb_dscp(skb) == cfg->qos_dscp;
}

static __always_inline struct hpcc_qos_state *hpcc_qos_state(__u32 ifindex)
{
	struct hpcc_qos_state *st;

	st = bpf_map_lookup_elem(&hpcc_qos, &ifindex);
	if (st)
		return st;
	bpf_map_update_elem(&hpcc_qos, &ifindex, &hpcc_qos_zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&hpcc_qos, &ifindex);
}

/* The bytes the qdisc accounts @skb for: qdisc_skb_cb(skb)->pkt_len, the
 * first word of skb->cb (what the root's bstats.bytes adds up).
 */
static __always_inline __u32 hpcc_skb_qlen(struct sk_buff *skb)
{
	__u32 len = 0;

	bpf_probe_read_kernel(&len, sizeof(len),
			      (void *)(hpcc_ptr_u64(skb) +
				       bpf_core_field_offset(struct sk_buff,
							     cb)));
	return len;
}

/* A class packet enqueued: counted, and sampled if the ring has room
 * (after forgetting an oldest sample older than HPCC_QOS_MARK_MAX_NS: it
 * was dropped inside the qdisc). Runs under the root qdisc's lock, as the
 * dequeue does.
 */
static __always_inline void hpcc_qos_enqueue(struct hpcc_qos_state *st,
					     struct sk_buff *skb)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 h = st->head, t = st->tail;

	__sync_fetch_and_add(&st->enq_bytes, hpcc_skb_qlen(skb));
	if (t - h >= HPCC_QOS_SAMPLES &&
	    now - st->mark_ns[h & (HPCC_QOS_SAMPLES - 1)] >
	    HPCC_QOS_MARK_MAX_NS) {
		hpcc_count(&hpcc_counters, HPCC_CNT_QOS_MARK_LOST);
		st->head = ++h;
	}
	if (t - h >= HPCC_QOS_SAMPLES)
		return;
	st->mark_skb[t & (HPCC_QOS_SAMPLES - 1)] = hpcc_ptr_u64(skb);
	st->mark_ns[t & (HPCC_QOS_SAMPLES - 1)] = now;
	st->tail = t + 1;
}

/* A class packet dequeued: counted; if it is a sample, its sojourn
 * published and the samples before it (dropped inside the qdisc, or
 * overtaken) forgotten. The class is a FIFO, so it is almost always the
 * oldest.
 */
static __always_inline void hpcc_qos_dequeue(struct hpcc_qos_state *st,
					     struct sk_buff *skb, __u64 now)
{
	__u32 h = st->head, t = st->tail, i, k, len = hpcc_skb_qlen(skb);
	__u64 a = hpcc_ptr_u64(skb);

	__sync_fetch_and_add(&st->deq_bytes, len);
	for (i = 0; i < HPCC_QOS_SAMPLES; i++) {
		if (h + i == t)
			return;
		k = (h + i) & (HPCC_QOS_SAMPLES - 1);
		if (st->mark_skb[k] != a)
			continue;
		WRITE_ONCE_U64(st->sojourn_ns, now - st->mark_ns[k]);
		WRITE_ONCE_U64(st->sojourn_at, now);
		WRITE_ONCE_U32(st->sojourn_len, len);
		if (i)
			hpcc_count(&hpcc_counters, HPCC_CNT_QOS_MARK_LOST);
		st->head = h + i + 1;
		return;
	}
}

#define HPCC_QOS_BULK	8	/* skbs of one bulk dequeue looked at */

/* QoS port: account @skb (an enqueue) or the @packets skbs chained from
 * @skb (a dequeue: the qdisc may hand out a bulk, linked by skb->next).
 * When the root is empty after a dequeue, so is the class: the counts
 * are resynchronised (a packet dropped inside the qdisc is never
 * dequeued).
 */
static __always_inline void hpcc_qos_event(struct Qdisc *q,
					   const struct hpcc_port_cfg *cfg,
					   __u32 ifindex, struct sk_buff *skb,
					   int packets)
{
	struct hpcc_qos_state *st;
	__u64 now;
	int i;

	if (!skb)
		return;
	st = hpcc_qos_state(ifindex);
	if (!st)
		return;
	if (packets < 0) {
		if (hpcc_qos_member(skb, cfg))
			hpcc_qos_enqueue(st, skb);
		return;
	}
	now = bpf_ktime_get_ns();
	for (i = 0; i < HPCC_QOS_BULK && i < packets && skb; i++) {
		if (hpcc_qos_member(skb, cfg))
			hpcc_qos_dequeue(st, skb, now);
		skb = BPF_CORE_READ(skb, next);
	}
	if (!BPF_CORE_READ(q, qstats.backlog))
		WRITE_ONCE_U64(st->enq_bytes, READ_ONCE_U64(st->deq_bytes));
}

/* @packets: -1 for an enqueue of @skb, else a dequeue's count. */
static __always_inline void hpcc_qdisc_event(struct Qdisc *q,
					     const struct netdev_queue *txq,
					     struct sk_buff *skb, int packets)
{
	struct hpcc_port_cfg *cfg;
	struct net_device *dev;
	__u32 ifindex;

	dev = BPF_CORE_READ(txq, dev);
	cfg = hpcc_watched(dev, &ifindex);
	if (!cfg)
		return;
	if (cfg->flags & HPCC_PORT_F_QOS)
		hpcc_qos_event(q, cfg, ifindex, skb, packets);
	hpcc_publish(q, hpcc_ptr_u64(txq), dev, ifindex);
}

SEC("tp_btf/qdisc_enqueue")
int BPF_PROG(hpcc_qdisc_enqueue, struct Qdisc *q,
	     const struct netdev_queue *txq, struct sk_buff *skb)
{
	hpcc_qdisc_event(q, txq, skb, -1);
	return 0;
}

SEC("tp_btf/qdisc_dequeue")
int BPF_PROG(hpcc_qdisc_dequeue, struct Qdisc *q,
	     const struct netdev_queue *txq, int packets, struct sk_buff *skb)
{
	hpcc_qdisc_event(q, txq, skb, packets);
	return 0;
}

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(hpcc_dev_start_xmit, const struct sk_buff *skb,
	     const struct net_device *dev)
{
	struct net_device *d = (struct net_device *)dev;
	struct Qdisc *q;
	__u64 txq;
	__u32 ifindex;
	__u16 qm;

	if (!hpcc_watched(d, &ifindex))
		return 0;
	qm = BPF_CORE_READ(skb, queue_mapping);
	txq = (__u64)BPF_CORE_READ(d, _tx) +
	      (__u64)qm * bpf_core_type_size(struct netdev_queue);
	q = BPF_CORE_READ((struct netdev_queue *)txq, qdisc);
	/* Only lockless qdiscs can send without a qdisc tracepoint. */
	if (!q || !BPF_CORE_READ(q, cpu_bstats))
		return 0;
	hpcc_publish(q, txq, d, ifindex);
	return 0;
}

/* One consistent read of a slot; -1 if no consistent copy in retries
 * (the last copy is still returned).
 */
static __always_inline int hpcc_snap_read(struct hpcc_qsnap *s,
					  struct hpcc_qsnap *out)
{
	__u32 s1, s2, i;

	for (i = 0; i < HPCC_SNAP_RETRIES; i++) {
		s1 = READ_ONCE_U32(s->seq);
		barrier();
		out->backlog = READ_ONCE_U32(s->backlog);
		out->bytes = READ_ONCE_U64(s->bytes);
		out->root = READ_ONCE_U64(s->root);
		barrier();
		s2 = READ_ONCE_U32(s->seq);
		if (!(s1 & 1) && s1 == s2)
			return 0;
	}
	return -1;
}

struct hpcc_qsum {
	struct hpcc_qsnap_dev *d;
	__u64 root;
	__u64 bytes;
	__u32 backlog;
	__u32 found;
	__u32 torn;
};

static long hpcc_qsum_slot(__u32 i, void *arg)
{
	struct hpcc_qsum *c = arg;
	struct hpcc_qsnap snap = {};

	if (i >= HPCC_MAX_TXQ || !c->d)
		return 1;
	if (hpcc_snap_read(&c->d->q[i], &snap))
		c->torn++;
	if (snap.root == c->root) {
		c->backlog += snap.backlog;
		c->bytes += snap.bytes;
		c->found++;
	}
	return 0;
}

/* Backlog and sent bytes of the egress port: the root's snapshot, or the
 * sum of the per-tx-queue snapshots belonging to the current mq root.
 * bpf_loop (5.17+) keeps verification linear in HPCC_MAX_TXQ.
 */
static __always_inline int hpcc_port_qstats(__u32 ifindex, __u32 *qlen,
					    __u64 *tx)
{
	struct hpcc_qsum c = {};
	__u32 n;

	c.d = bpf_map_lookup_elem(&hpcc_qsnap, &ifindex);
	if (!c.d)
		return -1;
	c.root = READ_ONCE_U64(c.d->root);
	n = (c.d->flags & HPCC_QSNAP_F_MQ) ? c.d->ntxq : 1;
	if (n > HPCC_MAX_TXQ)
		n = HPCC_MAX_TXQ;
	if (c.root)
		bpf_loop(n, hpcc_qsum_slot, &c, 0);
	*qlen = c.backlog;
	*tx = c.bytes;
	if (!c.found)
		return -1;
	if (c.torn)
		hpcc_count(&hpcc_counters, HPCC_CNT_SWITCH_QSTATS_TORN);
	return 0;
}

/*
 * HPCC_PORT_F_QOS: what hop @in says about hpcc's class instead of the
 * port, @in->qlen holding the root's backlog on entry.
 *  B (rate_mbps): the port's rate when the other classes have nothing
 *      queued (root backlog = class backlog: the work-conserving
 *      scheduler gives the class the whole port), else the class's
 *      guaranteed rate;
 *  qlen: the sojourn of the last sampled class packet dequeued, as bytes
 *      at B (sojourn_ns * B / 8000), less that packet's own bytes (a
 *      shaped class holds a packet for its own tokens too: what waited
 *      ahead of it is the queue), so that qlen / (B * T) is the queuing
 *      part of the sojourn over T whatever B is; 0 while the class has
 *      nothing queued;
 *  tx_bytes: the bytes dequeued from the class.
 */
static __always_inline void hpcc_qos_fill(const struct hpcc_port_cfg *cfg,
					  __u32 ifindex,
					  struct hpcc_stamp_in *in)
{
	struct hpcc_qos_state *st;
	__u64 enq, deq, soj, cls, q;
	__u32 rate, len;

	st = bpf_map_lookup_elem(&hpcc_qos, &ifindex);
	if (!st) {
		hpcc_count(&hpcc_counters, HPCC_CNT_QOS_NO_STATE);
		in->rate_mbps = in->qlen ? cfg->qos_rate_mbps : cfg->rate_mbps;
		in->qlen = 0;
		in->tx_bytes = 0;
		return;
	}
	enq = READ_ONCE_U64(st->enq_bytes);
	deq = READ_ONCE_U64(st->deq_bytes);
	soj = READ_ONCE_U64(st->sojourn_ns);
	cls = enq - deq;
	if ((__s64)cls < 0)
		cls = 0;
	if (cls > in->qlen)
		cls = in->qlen;
	rate = in->qlen > cls ? cfg->qos_rate_mbps : cfg->rate_mbps;
	if (!cls)
		soj = 0;
	q = soj * rate / 8000;		/* ns x Mbit/s -> bytes */
	len = READ_ONCE_U32(st->sojourn_len);
	q = q > len ? q - len : 0;
	in->qlen = q > 0xffffffffull ? 0xffffffffu : (__u32)q;
	in->rate_mbps = rate;
	in->tx_bytes = deq;
	hpcc_count(&hpcc_counters, HPCC_CNT_QOS_STAMPED);
}

/*
 * Version 2 with HPCC_F_MAC: the tag of record @slot, hop already filled
 * in wire order, chained to the previous record's tag, under the key the
 * header names. No key for that id here: tag 0, counted; the sender's
 * check rejects the chain (a router never stamps what it cannot vouch
 * for as if it could).
 */
static __always_inline int hpcc_tag(struct __sk_buff *skb,
				    const struct hpcc_pkt *p, __u32 slot,
				    struct hpcc_hop_v2 *hop)
{
	struct hpcc_hdr_v2 h2;
	struct hpcc_mac_key *mk;
	struct hpcc_sipkey k;
	__u8 prev[8] = {};
	__u32 id;

	if (bpf_skb_load_bytes(skb, p->pay_off, &h2, sizeof(h2)))
		return -1;
	id = h2.key_id;
	mk = id < HPCC_MAC_KEYS ? bpf_map_lookup_elem(&hpcc_mac_keys, &id) :
				  NULL;
	if (!mk || !(mk->flags & HPCC_KEY_F_SET)) {
		hpcc_count(&hpcc_counters, HPCC_CNT_SWITCH_NO_KEY);
		return 0;
	}
	if (slot > 0 && slot < HPCC_MAX_HOPS &&
	    bpf_skb_load_bytes(skb, p->pay_off + sizeof(h2) +
			       (slot - 1) * sizeof(*hop) + HPCC_HOP_V2_TAG_OFF,
			       prev, sizeof(prev)))
		return -1;
	hpcc_sipkey_of(&k, mk->key);
	hpcc_put_be64(&hop->tag, hpcc_mac_tag(&k, &h2, slot, &hop->rec,
					      prev));
	hpcc_count(&hpcc_counters, HPCC_CNT_SWITCH_MAC_TAGGED);
	return 0;
}

static __always_inline int hpcc_stamp(struct __sk_buff *skb,
				      const struct hpcc_pkt *p,
				      const struct hpcc_hdr *h,
				      const struct hpcc_port_cfg *cfg,
				      __u32 ifindex)
{
	struct hpcc_hdr_word ow = hpcc_hdr_word_of(h), nw;
	struct hpcc_stamp_in in = {};
	struct hpcc_hop_v2 old = {}, hop = {};
	struct hpcc_hdr nh;
	__u32 slot, off, len;

	/* What to write is hpcc_stamp.h's, shared with the simulation. */
	switch (hpcc_stamp_next(h, &nh, &slot)) {
	case HPCC_STAMP_NOTHING:
		hpcc_count(&hpcc_counters, HPCC_CNT_SWITCH_OVERFLOW);
		return 0;
	case HPCC_STAMP_OVERFLOW:
		hpcc_count(&hpcc_counters, HPCC_CNT_SWITCH_OVERFLOW);
		nw = hpcc_hdr_word_of(&nh);
		return hpcc_write_payload(skb, p, 0, &ow, &nw, sizeof(nw));
	case HPCC_STAMP_HOP:
		break;
	}
	if (slot >= HPCC_MAX_HOPS)
		return -1;

	if (hpcc_port_qstats(ifindex, &in.qlen, &in.tx_bytes))
		hpcc_count(&hpcc_counters, HPCC_CNT_SWITCH_NO_QSTATS);
	in.switch_id = cfg->switch_id;
	in.port_id = hpcc_stamp_port_id(cfg->flags, cfg->port_id, ifindex);
	in.rate_mbps = cfg->rate_mbps;
	in.ts_ns = bpf_ktime_get_ns();
	if (cfg->flags & HPCC_PORT_F_QOS)
		hpcc_qos_fill(cfg, ifindex, &in);
	if (cfg->flags & HPCC_PORT_F_ANON) {
		hpcc_stamp_anon(&in, h->version == HPCC_WIRE_V2);
		if (h->version == HPCC_WIRE_V2)
			nh.flags |= HPCC_F_ANON;
	}
	hpcc_stamp_fill(&hop.rec, &in);

	/* Version 1: a 32-byte record after a 16-byte header; version 2: a
	 * 40-byte one, record and tag, after a 24-byte header.
	 */
	if (h->version == HPCC_WIRE_V2) {
		off = sizeof(struct hpcc_hdr_v2) +
		      slot * sizeof(struct hpcc_hop_v2);
		len = sizeof(struct hpcc_hop_v2);
		if ((h->flags & HPCC_F_MAC) && hpcc_tag(skb, p, slot, &hop))
			return -1;
	} else {
		off = sizeof(struct hpcc_hdr) + slot * sizeof(struct hpcc_hop);
		len = sizeof(struct hpcc_hop);
	}
	if (len == sizeof(struct hpcc_hop_v2)) {
		if (bpf_skb_load_bytes(skb, p->pay_off + off, &old,
				       sizeof(struct hpcc_hop_v2)) ||
		    hpcc_write_payload(skb, p, off, &old, &hop,
				       sizeof(struct hpcc_hop_v2)))
			return -1;
	} else {
		if (bpf_skb_load_bytes(skb, p->pay_off + off, &old,
				       sizeof(struct hpcc_hop)) ||
		    hpcc_write_payload(skb, p, off, &old, &hop,
				       sizeof(struct hpcc_hop)))
			return -1;
	}
	nw = hpcc_hdr_word_of(&nh);
	if (hpcc_write_payload(skb, p, 0, &ow, &nw, sizeof(nw)))
		return -1;
	hpcc_count(&hpcc_counters, HPCC_CNT_SWITCH_STAMPED);
	return 0;
}

/* Edge: remove every record of candidate @p, which is valid: nhops 0,
 * the whole room zeroed (an outside sender may have written past nhops),
 * HPCC_F_OVERFLOW cleared (that the path inside was longer than the room
 * is inside state too). The TCP checksum follows by the difference of
 * the old payload and the new header, as zero records add nothing to a
 * one's complement sum; a wrong sum stays exactly as wrong.
 */
static __always_inline int hpcc_strip_len(struct __sk_buff *skb,
					  const struct hpcc_pkt *p,
					  struct hpcc_probe_v2 *old,
					  __u32 hlen, __u32 len)
{
	struct hpcc_hdr nh;
	__s64 diff;

	if (bpf_skb_load_bytes(skb, p->pay_off, old, len))
		return -1;
	__builtin_memcpy(&nh, old, sizeof(nh));
	nh.flags &= ~HPCC_F_OVERFLOW;
	nh.nhops = 0;
	/* The header's first 16 bytes change; version 2's last 8 stay. */
	diff = bpf_csum_diff((__be32 *)old, len, (__be32 *)&nh, sizeof(nh),
			     0);
	if (diff < 0)
		return -1;
	if (hlen > sizeof(nh))
		diff = bpf_csum_diff(0, 0, (__be32 *)&old->hdr.t_us,
				     sizeof(struct hpcc_hdr_v2) - sizeof(nh),
				     (__u32)diff);
	if (diff < 0 ||
	    bpf_skb_store_bytes(skb, p->pay_off, &nh, sizeof(nh), 0) ||
	    bpf_skb_store_bytes(skb, p->pay_off + hlen, hpcc_no_hops,
				len - hlen, 0) ||
	    bpf_l4_csum_replace(skb, p->l4_off + HPCC_TCP_CSUM_OFF, 0,
				(__u32)diff, 0))
		return -1;
	return 0;
}

static __always_inline int hpcc_strip(struct __sk_buff *skb,
				      const struct hpcc_pkt *p,
				      const struct hpcc_hdr *h)
{
	struct hpcc_probe_v2 *old;
	__u32 zero = 0;

	old = bpf_map_lookup_elem(&hpcc_strip_buf, &zero);
	if (!old)
		return -1;
	/* A receiver's window (Rx-HPCC) is the inside path's W, U and B:
	 * it goes as records do (zero: no capacity, the sender ignores it).
	 */
	if (hpcc_wire_is_window(h))
		return hpcc_strip_len(skb, p, old, sizeof(struct hpcc_hdr_v2),
				      HPCC_WINDOW_LEN);
	if (h->version == HPCC_WIRE_V2)
		return hpcc_strip_len(skb, p, old, sizeof(struct hpcc_hdr_v2),
				      HPCC_PROBE_V2_LEN);
	return hpcc_strip_len(skb, p, old, sizeof(struct hpcc_hdr),
			      HPCC_PROBE_LEN);
}

/* Edge port: the records of a probe or response crossing it go; if that
 * fails it does not cross.
 */
static __always_inline int hpcc_edge_strip(struct __sk_buff *skb,
					   const struct hpcc_pkt *p,
					   const struct hpcc_hdr *h)
{
	if (hpcc_strip(skb, p, h)) {
		hpcc_count(&hpcc_counters, HPCC_CNT_WRITE_FAIL);
		return TC_ACT_SHOT;
	}
	hpcc_count(&hpcc_counters, HPCC_CNT_EDGE_STRIPPED);
	return TC_ACT_OK;
}

/* What @skb on port skb->ifindex is: -1 for no candidate (the fast path,
 * not counted), else its class, with its headers in @p and @h, the port's
 * config in @cfg (NULL if none) and a failure's counter in @reason. The
 * port config is a hash lookup: only taken when the packet alone does not
 * tell its link layer, or for a candidate.
 */
static __always_inline int hpcc_port_classify(struct __sk_buff *skb,
					      struct hpcc_pkt *p,
					      struct hpcc_hdr *h,
					      struct hpcc_port_cfg **cfg,
					      __u32 *reason)
{
	__u32 ifindex = skb->ifindex;
	struct hpcc_dscps dscp;
	enum hpcc_link link;
	bool have_cfg = false;

	*cfg = NULL;
	link = hpcc_link_of(skb);
	if (link == HPCC_LINK_NONE)
		return -1;
	if (link == HPCC_LINK_EITHER) {
		*cfg = bpf_map_lookup_elem(&hpcc_port_cfg, &ifindex);
		have_cfg = true;
		link = *cfg && ((*cfg)->flags & HPCC_PORT_F_RAW_IP) ?
		       HPCC_LINK_RAW_IP : HPCC_LINK_ETH;
	}
	if (hpcc_parse(skb, p, link == HPCC_LINK_RAW_IP))
		return -1;
	if (!have_cfg)
		*cfg = bpf_map_lookup_elem(&hpcc_port_cfg, &ifindex);
	dscp = hpcc_dscps(*cfg && ((*cfg)->flags & HPCC_PORT_F_DSCP) ?
			  &(*cfg)->probe_dscp : NULL);
	return hpcc_classify(skb, p, dscp.probe, dscp.resp, h, reason);
}

SEC("tc")
int hpcc_switch(struct __sk_buff *skb)
{
	struct hpcc_port_cfg *cfg;
	struct hpcc_pkt p = {};
	struct hpcc_hdr h;
	__u32 reason = 0;
	int cls;

	/* Fast path: anything but a TCP segment without flags. */
	cls = hpcc_port_classify(skb, &p, &h, &cfg, &reason);
	switch (cls) {
	case -1:
		return TC_ACT_OK;
	case HPCC_PKT_OTHER:
		hpcc_count(&hpcc_counters, HPCC_CNT_OTHER);
		return TC_ACT_OK;
	case HPCC_PKT_MALFORMED:
		hpcc_count(&hpcc_counters, reason);
		return TC_ACT_OK;
	default:
		break;
	}
	/* Leaving the domain: records removed, nothing stamped. */
	if (cfg && (cfg->flags & HPCC_PORT_F_EDGE))
		return hpcc_edge_strip(skb, &p, &h);
	/* QoS port: into hpcc's class whatever their DSCP (htb, drr, ets
	 * take a priority naming one of their classes before any filter).
	 */
	if (cfg && (cfg->flags & HPCC_PORT_F_QOS))
		skb->priority = cfg->qos_classid;
	if (cls == HPCC_PKT_RESPONSE) {
		hpcc_count(&hpcc_counters, HPCC_CNT_SWITCH_RESPONSE);
		return TC_ACT_OK;
	}
	if (!cfg) {
		hpcc_count(&hpcc_counters, HPCC_CNT_SWITCH_NO_CONFIG);
		return TC_ACT_OK;
	}
	if (hpcc_stamp(skb, &p, &h, cfg, skb->ifindex))
		hpcc_count(&hpcc_counters, HPCC_CNT_WRITE_FAIL);
	return TC_ACT_OK;
}

/* An edge port's ingress: what comes in from outside the domain. A probe
 * is dropped: stamped inside and answered it would carry inside state
 * back out, and the domain cannot tell it from its own probes further
 * on. A response loses its records: they describe a path that is only
 * partly the domain's (an edge egress removed the inside ones), and no
 * sender inside should act on records from outside. The rest passes,
 * malformed candidates counted as on egress.
 */
SEC("tc")
int hpcc_edge_in(struct __sk_buff *skb)
{
	struct hpcc_port_cfg *cfg;
	struct hpcc_pkt p = {};
	struct hpcc_hdr h;
	__u32 reason = 0;
	int cls;

	cls = hpcc_port_classify(skb, &p, &h, &cfg, &reason);
	switch (cls) {
	case -1:
		return TC_ACT_OK;
	case HPCC_PKT_OTHER:
		hpcc_count(&hpcc_counters, HPCC_CNT_OTHER);
		return TC_ACT_OK;
	case HPCC_PKT_MALFORMED:
		hpcc_count(&hpcc_counters, reason);
		return TC_ACT_OK;
	default:
		break;
	}
	/* Attached to edge ports only, so it is one, whatever its config
	 * says now: it fails closed.
	 */
	if (cls == HPCC_PKT_PROBE) {
		hpcc_count(&hpcc_counters, HPCC_CNT_EDGE_PROBE_DROPPED);
		return TC_ACT_SHOT;
	}
	return hpcc_edge_strip(skb, &p, &h);
}
