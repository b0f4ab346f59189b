// SPDX-License-Identifier: GPL-2.0
/*
 * HPCC++: High Precision Congestion Control for TCP.
 *
 * HPCC++ (draft-pan-tsvwg-hpccplus, draft-miao-tsv-hpcc-info) sizes each
 * flow's window from per-hop telemetry: every switch on the path reports its
 * egress queue length, transmitted bytes, a timestamp and the link capacity.
 * From two consecutive reports the sender knows each link's utilisation and
 * standing queue, takes the busiest link and moves its window W towards the
 * target utilisation eta in one step (multiplicative) or by W_ai (additive),
 * committing the reference window at most once per RTT, and paces at W/T.
 *
 * TSO and GRO make per-packet telemetry impractical for TCP, so telemetry
 * travels in probes: about once per RTT, while data is in flight, this
 * module sends a flagless TCP segment with the flow's 5-tuple, the probe
 * DSCP and a struct hpcc_probe payload (hpcc_wire.h). Linux routers stamp it
 * (bpf/hpcc_switch.bpf.c), the receiver's tc program turns it into a
 * response (bpf/hpcc_host.bpf.c), and the sender's tc program hands the
 * response to bpf_hpcc_report(), the kfunc registered here. The kfunc only
 * validates and stashes the report; the next ACK runs the window law.
 *
 * Without telemetry (no reflector, no stamping switch, reports stopped) a
 * flow behaves as Reno: slow start, AIMD and the usual loss response. So
 * choosing hpcc on a path without telemetry is safe.
 *
 * Concurrency: the kfunc runs in tc context on any CPU, without the socket
 * lock. It never reads icsk_ca_priv (a concurrent congestion control change
 * may be rewriting it); it finds the flow's state in an RCU hash table keyed
 * by the socket, and exchanges data with the ACK path only under flow->lock.
 * The state is unhashed in release() and freed after an RCU grace period.
 *
 * Documentation/tcp_hpcc.rst describes the design, scales and parameters.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/jhash.h>
#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/random.h>
#include <linux/rhashtable.h>
#include <linux/seq_file.h>
#include <linux/seqlock.h>
#include <linux/skbuff.h>
#include <linux/utsname.h>
#include <linux/inet_diag.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/tcp.h>

#include "hpcc_ctl.h"
#include "hpcc_maps.h"

/*
 * The kernel API differences between Debian 12's 6.1 and 6.12 (Debian 13's,
 * also packaged for Debian 12), each handled here once; Kbuild detects
 * them in the target's headers.
 */
#ifdef HPCC_CONG_CONTROL_ACK	/* 6.10: the ACK's sequence and flags too */
#define HPCC_CONG_CONTROL_ARGS	struct sock *sk, u32 ack, int flag, \
				const struct rate_sample *rs
#else
#define HPCC_CONG_CONTROL_ARGS	struct sock *sk, const struct rate_sample *rs
#endif

#ifdef HPCC_SEND_ACK_FLAGS	/* 6.10: __tcp_send_ack() takes flags */
#define hpcc_send_ack(sk, rcv_nxt)	__tcp_send_ack(sk, rcv_nxt, 0)
#else
#define hpcc_send_ack(sk, rcv_nxt)	__tcp_send_ack(sk, rcv_nxt)
#endif

#ifdef HPCC_BTF_KFUNCS		/* 6.9: kfunc sets marked BTF_SET8_KFUNCS */
#define HPCC_KFUNCS_START	BTF_KFUNCS_START
#define HPCC_KFUNCS_END		BTF_KFUNCS_END
#else
#define HPCC_KFUNCS_START	BTF_SET8_START
#define HPCC_KFUNCS_END		BTF_SET8_END
#endif

#ifndef __bpf_kfunc		/* 6.2 named the kfunc attributes */
#define __bpf_kfunc		noinline
#endif

/* ---- parameters ---------------------------------------------------------- */

/* Every parameter is an unsigned int with a range; writes outside it are
 * refused with a message naming the range, reads on the ACK path use
 * READ_ONCE so a concurrent write is seen whole.
 */
struct hpcc_param {
	unsigned int *val;
	unsigned int min, max;
};

static int hpcc_param_set(const char *val, const struct kernel_param *kp)
{
	const struct hpcc_param *p = kp->arg;
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v < p->min || v > p->max) {
		pr_err("tcp_hpcc: %s=%s refused: allowed %u..%u\n",
		       kp->name, strim((char *)val), p->min, p->max);
		return -EINVAL;
	}
	WRITE_ONCE(*p->val, v);
	return 0;
}

static int hpcc_param_get(char *buf, const struct kernel_param *kp)
{
	const struct hpcc_param *p = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*p->val));
}

static const struct kernel_param_ops hpcc_param_ops = {
	.set = hpcc_param_set,
	.get = hpcc_param_get,
};

/* MODULE_PARM_DESC() spelled out, so that each argument is used once. */
#define HPCC_PARAM(name, def, lo, hi, desc)				\
	static unsigned int hpcc_##name = def;				\
	static struct hpcc_param hpcc_##name##_param = {		\
		&hpcc_##name, lo, hi					\
	};								\
	module_param_cb(name, &hpcc_param_ops, &hpcc_##name##_param, 0644); \
	__MODULE_INFO(parm, hpcc_##name##_desc,				\
		      #name ":" desc ", " __stringify(lo) ".." __stringify(hi)	\
		      ", default " __stringify(def))

HPCC_PARAM(eta, 950, 500, 1000, "target utilisation eta in per mille");
/* The draft suggests 5, the HPCC paper's simulations ran 0. With a commit
 * every other report, each additive-only round costs two RTTs after a dip.
 */
HPCC_PARAM(max_stage, 1, 0, 100,
	   "additive-increase rounds before a multiplicative step");
/* The draft averages per-packet telemetry over T; one report per RTT
 * leaves nothing to average over T, so U averages ewma_rtts reports.
 */
HPCC_PARAM(ewma_rtts, 4, 1, 64,
	   "EWMA horizon of U in base RTTs; 1: the draft's T");
/* The draft's U is an EWMA of the max over hops; noise on two loaded hops
 * biases that max upwards (Documentation, "The parking lot").
 */
HPCC_PARAM(hop_ewma, HPCC_DEF_HOP_EWMA, 0, 1,
	   "1: U is the max of each hop's own EWMA; 0: the draft's EWMA of the max");
/* Averaged with txRate, a queue that has drained since the flow cut for
 * it holds U up for ewma_rtts T; 1 averages txRate only (hop_ewma).
 */
HPCC_PARAM(rate_ewma, HPCC_DEF_RATE_EWMA, 0, 1,
	   "1: ewma_rtts averages U's txRate term only, its queue term is the last; 0: both");
/* W_ai per commit makes a flow's additive increase per second shrink with
 * its probe rate, which the probe budget ties to its sending rate.
 */
HPCC_PARAM(ai_time, HPCC_DEF_AI_TIME, 0, 1,
	   "1: W_ai per 2 base RTTs of telemetry while U < eta; 0: per commit");
HPCC_PARAM(ewma_span, HPCC_DEF_EWMA_SPAN, 0, 3,
	   "1: a sample weighs its interval up to ewma_rtts T; 2: only one below the average; 3: only past half of it; 0: up to T (draft)");
/* The draft's min(qlen, prev qlen) compares per-packet samples; probes
 * far apart (the budget, a burst's first probe) hide a new queue.
 */
HPCC_PARAM(qmin_span, HPCC_DEF_QMIN_SPAN, 0, 64,
	   "min(qlen, prev qlen) only for samples at most this many T apart; 0: always (draft)");
HPCC_PARAM(first_qmin, HPCC_DEF_FIRST_QMIN, 0, 1,
	   "1: a flow's first sample is no min(qlen, prev qlen) reference; 0: it is (draft)");
HPCC_PARAM(w_ai, 0, 0, 100000000,
	   "additive increase W_ai in bytes; 0: BDP * (1 - eta) / expected_flows");
HPCC_PARAM(expected_flows, 8, 1, 100000,
	   "N in the W_ai rule of thumb: concurrent flows expected per link");
HPCC_PARAM(base_rtt, 0, 0, 1000000,
	   "base RTT T in microseconds; 0: each flow's minimum RTT");
HPCC_PARAM(queue_t, 0, 0, 1000000,
	   "network-wide T of U's queue term in microseconds; 0: each flow's T");
/* With queue_t, a flow of a shorter T still cut once per commit, five
 * times as often as one of a five times longer T, for the same queue.
 */
HPCC_PARAM(law_time, HPCC_DEF_LAW_TIME, 0, 1,
	   "1: U's EWMA and W's steps per time of queue_t, not per commit; 0: per commit");
HPCC_PARAM(probe_dscp, HPCC_DSCP_PROBE_DEFAULT, 1, 63,
	   "DSCP of probes, as configured in the tc programs");
HPCC_PARAM(response_dscp, HPCC_DSCP_RESPONSE_DEFAULT, 1, 63,
	   "DSCP of responses, as configured in the tc programs");
HPCC_PARAM(telemetry_timeout, 8, 1, 1000,
	   "RTTs without telemetry before a flow falls back to loss-based");
/* Bounds on what whoever answers a probe can do to a flow; each 0 (1000
 * for loss_beta) is the draft's behaviour.
 */
HPCC_PARAM(max_capacity, 400000, 0, 4000000000,
	   "largest capacity B a hop may report, Mbit/s; 0: unbounded");
HPCC_PARAM(max_growth, 1000, 0, 100000,
	   "W's increase per report, per mille of W; 0: unbounded");
HPCC_PARAM(loss_beta, 700, 100, 1000,
	   "W's factor on a loss while telemetry runs, per mille; 1000: ignore loss");
HPCC_PARAM(loss_undo, HPCC_DEF_LOSS_UNDO, 0, 1,
	   "1: a loss TCP finds spurious gives loss_beta's cut back; 0: it stands");
/* The loop beyond the steady state (tcp_hpcc.rst, "Dynamics"); 0 in
 * each is the draft's behaviour.
 */
HPCC_PARAM(start_hold, HPCC_DEF_START_HOLD, 0, 1,
	   "1: a new flow keeps its initial window until its first report");
HPCC_PARAM(probe_first, HPCC_DEF_PROBE_FIRST, 0, 1,
	   "1: the first probe leaves with the first data");
HPCC_PARAM(first_share, HPCC_DEF_FIRST_SHARE, 0, 1024,
	   "a new flow's first W at most B T over this; 0: B T, the line rate");
HPCC_PARAM(first_bound, HPCC_DEF_FIRST_BOUND, 0, 1024,
	   "a new flow's first W at most this many times its delivery; 0: line rate");
HPCC_PARAM(first_crowd, HPCC_DEF_FIRST_CROWD, 0, 1,
	   "1: first_share cuts below its flight only a flow that started in a crowd");
HPCC_PARAM(probe_cost, HPCC_DEF_PROBE_COST, 0, 1000,
	   "probe and response bytes per mille of the data sent; 0: one per RTT");
HPCC_PARAM(probe_free, HPCC_DEF_PROBE_FREE, 0, 1000,
	   "U per mille below which probe_cost does not apply; 0: it always does");
HPCC_PARAM(compete_rtts, HPCC_DEF_COMPETE_RTTS, 0, 1000,
	   "base RTTs (T) of a standing queue before competing loss-based; 0: never");
HPCC_PARAM(compete_queue, HPCC_DEF_COMPETE_QUEUE, 1, 100000,
	   "standing queue for compete_rtts, per mille of the BDP");
HPCC_PARAM(compete_hold, HPCC_DEF_COMPETE_HOLD, 1, 100000,
	   "base RTTs competing before the law is tried again");
HPCC_PARAM(compete_ecn, HPCC_DEF_COMPETE_ECN, 0, 1,
	   "1: CE in every report is a standing queue; competing cuts as dctcp");
HPCC_PARAM(path_share, HPCC_DEF_PATH_SHARE, 0, 1,
	   "1: a flow also uses the reports of the host's other flows to its peer");
/* Read once, at load: the congestion control's flags are fixed while it
 * is registered.
 */
static bool hpcc_ecn = true;
module_param_named(ecn, hpcc_ecn, bool, 0444);
MODULE_PARM_DESC(ecn,
		 "negotiate ECN and echo CE per packet, as dctcp (at load only)");
HPCC_PARAM(probe_limit, 100000, 1, 10000000,
	   "probes per second a network namespace may send, all its flows together");
/* Wire version 2 (Documentation/design-wire-v2.rst): only once every
 * router and receiver on the paths runs it; a v1 receiver drops v2 probes.
 */
HPCC_PARAM(wire_version, 1, 1, 2, "wire version of the probes this host sends");
HPCC_PARAM(mac_key_id, 0, 0, 1,
	   "key id v2 probes ask routers to tag with (MAC if that key is set)");
HPCC_PARAM(mac_required, 0, 0, 1,
	   "refuse reports without a valid MAC chain");
/* Receiver-based HPCC (tcp_hpcc.rst, "Receiver-based HPCC"): the sender's
 * side; the receiver's is "hpcc-probe host attach --rx-window".
 */
HPCC_PARAM(rx_window, 0, 0, 1,
	   "1: v2 probes ask the receiver for a window (Rx-HPCC)");
HPCC_PARAM(receiver_flows, 0, 0, 1,
	   "1: W_ai's N is the receiver's count from the response; 0: expected_flows");
HPCC_PARAM(fair_pull, HPCC_DEF_FAIR_PULL, 0, 1000,
	   "per mille of W above the receiver's fair share given up per report; 0: none");
HPCC_PARAM(fair_slack, HPCC_DEF_FAIR_SLACK, 0, 4000,
	   "per mille above the fair share that fair_pull leaves alone");
HPCC_PARAM(fair_floor, HPCC_DEF_FAIR_FLOOR, 0, 1000,
	   "per mille of the receiver's fair share below which no W stays; 0: none");
HPCC_PARAM(deliv_cap, HPCC_DEF_DELIV_CAP, 0, 10000,
	   "cwnd grows to at most this per mille of the bytes delivered in a T; 0: unbounded");
HPCC_PARAM(deliv_free, HPCC_DEF_DELIV_FREE, 0, 1000,
	   "U per mille below which deliv_cap does not hold; 0: it always does");
HPCC_PARAM(deliv_ai, HPCC_DEF_DELIV_AI, 0, 1,
	   "1: deliv_cap holds W's growth but the additive step W_ai; 0: all of it");
HPCC_PARAM(cwnd_gain, HPCC_CWND_GAIN, 1, 8,
	   "cwnd = cwnd_gain W; the law's rate is paced at W / T");
HPCC_PARAM(cwnd_long, HPCC_DEF_CWND_LONG, 0, 1000000,
	   "KB a flow delivers before its cwnd is W (gain 1); 0: never");
HPCC_PARAM(queue_room, HPCC_DEF_QUEUE_ROOM, 0, 1,
	   "1: cwnd's room above W shrinks by the last report's queue; 0: none");
HPCC_PARAM(handoff, HPCC_DEF_HANDOFF, 0, 1000,
	   "per mille of a done flow's W for the host's young flows on its path; 0: none");

/*
 * The domain's MAC keys, as the routers' hpcc_mac_keys map holds them,
 * set by "hpcc-probe key set" through the write-only parameter mac_key:
 * "ID HEX32" sets key ID, "ID" deletes it. A parameter, not a kfunc fed by
 * a BPF program: the key must reach the module without a program loaded
 * for it, writing it needs root (0200, CAP_SYS_ADMIN on sysfs), it is
 * never readable back, and it survives the tc programs' reloads. Readers
 * are the kfunc (softirq) and the probe sender; the seqlock lets them
 * copy a key without a lock shared across CPUs.
 */
struct hpcc_mac_slot {
	struct hpcc_sipkey k;
	bool set;
};

static struct hpcc_mac_slot hpcc_mac_keys[HPCC_MAC_KEYS];
static DEFINE_SEQLOCK(hpcc_mac_lock);

/* A copy of key @id: true if it is set. */
static bool hpcc_mac_key(u32 id, struct hpcc_sipkey *k)
{
	unsigned int seq;
	bool set;

	if (id >= HPCC_MAC_KEYS)
		return false;
	do {
		seq = read_seqbegin(&hpcc_mac_lock);
		*k = hpcc_mac_keys[id].k;
		set = hpcc_mac_keys[id].set;
	} while (read_seqretry(&hpcc_mac_lock, seq));
	return set;
}

static int hpcc_mac_key_set(const char *val, const struct kernel_param *kp)
{
	u8 raw[HPCC_MAC_KEY_LEN];
	struct hpcc_sipkey k = {};
	char hex[2 * HPCC_MAC_KEY_LEN + 2];
	unsigned int id;
	int n;

	n = sscanf(val, "%u %33s", &id, hex);
	if (n < 1 || id >= HPCC_MAC_KEYS)
		return -EINVAL;
	if (n == 2) {
		if (strlen(hex) != 2 * HPCC_MAC_KEY_LEN ||
		    hex2bin(raw, hex, HPCC_MAC_KEY_LEN))
			return -EINVAL;
		hpcc_sipkey_of(&k, raw);
		memzero_explicit(raw, sizeof(raw));
		memzero_explicit(hex, sizeof(hex));
	}
	write_seqlock_bh(&hpcc_mac_lock);
	hpcc_mac_keys[id].k = k;
	hpcc_mac_keys[id].set = n == 2;
	write_sequnlock_bh(&hpcc_mac_lock);
	memzero_explicit(&k, sizeof(k));
	return 0;
}

static const struct kernel_param_ops hpcc_mac_key_ops = {
	.set = hpcc_mac_key_set,
};

module_param_cb(mac_key, &hpcc_mac_key_ops, NULL, 0200);
MODULE_PARM_DESC(mac_key,
		 "write-only: \"ID HEX32\" sets MAC key ID (0..1), \"ID\" deletes it");

/* ---- host-wide counters (/proc/net/tcp_hpcc_stat) ------------------------- */

enum hpcc_stat {
	HPCC_STAT_FLOWS,		/* flows that got per-flow state */
	HPCC_STAT_FLOWS_DEGRADED,	/* allocation failed: loss-based only */
	HPCC_STAT_PROBES_SENT,
	HPCC_STAT_PROBES_LOST,		/* no response within the timeout */
	HPCC_STAT_PROBES_LIMITED,	/* held back by probe_limit */
	HPCC_STAT_PROBE_ERRORS,		/* allocation or route failed */
	HPCC_STAT_REPORTS_ACCEPTED,
	HPCC_STAT_REPORTS_USED,		/* consumed by the window law */
	HPCC_STAT_REPORTS_NO_CAPACITY,	/* no hop reported B */
	HPCC_STAT_REJECT_SIZE,		/* -EMSGSIZE */
	HPCC_STAT_REJECT_VERSION,	/* -EPROTONOSUPPORT */
	HPCC_STAT_REJECT_HOPS,		/* -ERANGE */
	HPCC_STAT_REJECT_FLAGS,		/* -EBADMSG */
	HPCC_STAT_REJECT_SOCKET,	/* -EINVAL */
	HPCC_STAT_REJECT_NOT_HPCC,	/* -EOPNOTSUPP */
	HPCC_STAT_REJECT_NO_STATE,	/* -ENOBUFS */
	HPCC_STAT_REJECT_NONCE,		/* -ESTALE */
	HPCC_STAT_REJECT_OVERFLOW,	/* -E2BIG */
	HPCC_STAT_TELEMETRY_TIMEOUTS,	/* flows that fell back */
	HPCC_STAT_REPORTS_CAPPED,	/* a hop claimed above max_capacity */
	HPCC_STAT_REPORTS_GROWTH_HELD,	/* W held by max_growth or recovery */
	HPCC_STAT_LOSS_REDUCTIONS,	/* the safety net: W times loss_beta */
	HPCC_STAT_REJECT_MAC,		/* -EKEYREJECTED: the chain fails */
	HPCC_STAT_REJECT_NO_MAC,	/* -ENOKEY: untagged, mac_required */
	HPCC_STAT_COMPETE,		/* a standing queue: loss-based */
	HPCC_STAT_REPORTS_WINDOW,	/* a receiver's window applied */
	HPCC_STAT_RX_WINDOWS,		/* receiver: windows computed */
	HPCC_STAT_RX_NO_WINDOW,		/* receiver: refused (reason below) or
					 * no capacity: records reflected
					 */
	HPCC_STAT_RX_BUSY,		/* receiver: the flow's state in use */
	HPCC_STAT_REPORTS_FLOWS,	/* the receiver's N used for W_ai */
	HPCC_STAT_REPORTS_SHARED,	/* another flow's report used */
	HPCC_STAT_LOSS_UNDONE,		/* a spurious loss's cut taken back */
	HPCC_STAT_REPORTS_PULLED,	/* fair_pull: W towards the share */
	HPCC_STAT_REPORTS_DELIV_HELD,	/* deliv_cap held W's growth */
	HPCC_STAT_REPORTS_IMPLAUSIBLE,	/* a hop's txRate over 16 B: unused */
	HPCC_STAT_RX_CAPPED,		/* receiver: as ReportsCapped */
	HPCC_STAT_RX_IMPLAUSIBLE,	/* receiver: as ReportsImplausible */
	HPCC_STAT_HANDOFFS_GIVEN,	/* a finished flow's W to its path */
	HPCC_STAT_HANDOFFS_TAKEN,	/* a young flow took some of it */
	HPCC_STAT_MAX
};

static const char * const hpcc_stat_names[HPCC_STAT_MAX] = {
	"Flows", "FlowsDegraded", "ProbesSent", "ProbesLost",
	"ProbesLimited", "ProbeErrors", "ReportsAccepted", "ReportsUsed",
	"ReportsNoCapacity", "RejectSize", "RejectVersion", "RejectHops",
	"RejectFlags", "RejectSocket", "RejectNotHpcc", "RejectNoState",
	"RejectNonce", "RejectOverflow", "TelemetryTimeouts",
	"ReportsCapped", "ReportsGrowthHeld", "LossReductions",
	"RejectMac", "RejectNoMac", "CompeteEntered", "ReportsWindow",
	"RxWindows", "RxNoWindow", "RxBusy", "ReportsFlows",
	"ReportsShared", "LossUndone", "ReportsPulled", "ReportsDelivHeld",
	"ReportsImplausible", "RxCapped", "RxImplausible", "HandoffsGiven",
	"HandoffsTaken",
};

static DEFINE_PER_CPU(unsigned long [HPCC_STAT_MAX], hpcc_stats);

static void hpcc_count(enum hpcc_stat s)
{
	this_cpu_inc(hpcc_stats[s]);
}

/* ---- per-flow state ------------------------------------------------------ */

/*
 * What the kfunc hands the ACK path. The kfunc runs in tc context on any
 * CPU without the socket lock; it touches nothing of a flow but this, and
 * only under lock. pending and probe_nonce are also read without the lock
 * (READ_ONCE), so every write of them is a WRITE_ONCE.
 */
struct hpcc_mailbox {
	spinlock_t lock;		/* guards the whole mailbox */
	bool pending;			/* report[] holds an unconsumed report */
	u8 nhops;
	u32 seq;			/* probe_seq of the pending report */
	u32 probe_nonce;		/* outstanding probe, 0: none */
	u32 probe_seq;			/* snd_nxt when it left */
	u64 probe_sent_ns;
	u64 probe_rtt_ns;		/* probe to response, last report */
	bool window;			/* the pending report is a window */
	u32 flows;			/* its receiver-measured N, 0: none */
	struct hpcc_window_val win;	/* ...this one */
	struct hpcc_sample report[HPCC_MAX_HOPS];
};

/*
 * What get_info() and /proc/net/tcp_hpcc read without the socket lock,
 * published by the ACK path with WRITE_ONCE after each change.
 */
struct hpcc_flow_info {
	u64 w, wc;			/* bytes */
	u64 pacing_rate;		/* bytes/s, the last the law set */
	u64 last_report_ns;
	u64 u;				/* U, HPCC_U_SHIFT */
	u32 stage;
	u32 bottleneck;
	u32 nhops;
	u32 t_us;
	u32 unanswered;
	bool telemetry;
};

/* What does not fit icsk_ca_priv, in three parts by who may touch it. */
struct hpcc_flow {
	struct rhash_head node;
	struct sock *sk;		/* hash key; never dereferenced in tc */
	possible_net_t net;
	struct rcu_head rcu;

	struct hpcc_mailbox mb;		/* shared with the kfunc */
	struct hpcc_ctl ctl;		/* the ACK path's, socket lock held */
	struct hpcc_flow_info info;	/* for lockless readers */
	bool handed;			/* its W went to its path's pool */
};

/* icsk_ca_priv */
struct hpcc_ca {
	struct hpcc_flow *flow;		/* NULL: allocation failed, Reno only */
	u32 prior_cwnd;			/* for undo in loss-based mode */
	u32 prior_rcv_nxt;		/* the receiver's CE echo, as dctcp's */
	u32 ce_state;
};

static struct rhashtable hpcc_flows;
/* 680 bytes on x86-64: its own cache instead of kmalloc-1k */
static struct kmem_cache *hpcc_flow_cache;

static const struct rhashtable_params hpcc_flow_params = {
	.key_len = sizeof(struct sock *),
	.key_offset = offsetof(struct hpcc_flow, sk),
	.head_offset = offsetof(struct hpcc_flow, node),
	.automatic_shrinking = true,
};

static struct tcp_congestion_ops tcp_hpcc_ops;
static struct tcp_congestion_ops tcp_hpcc_noecn_ops;

static bool hpcc_is_ours(const struct tcp_congestion_ops *ops)
{
	return ops == &tcp_hpcc_ops || ops == &tcp_hpcc_noecn_ops;
}

static u64 hpcc_srtt_ns(const struct tcp_sock *tp)
{
	u32 srtt_us = tp->srtt_us >> 3;

	return (u64)(srtt_us ? srtt_us : USEC_PER_MSEC) * NSEC_PER_USEC;
}

static void hpcc_params(struct hpcc_ctl_params *p)
{
	p->eta_permille = READ_ONCE(hpcc_eta);
	p->max_stage = READ_ONCE(hpcc_max_stage);
	p->ewma_rtts = READ_ONCE(hpcc_ewma_rtts);
	p->hop_ewma = READ_ONCE(hpcc_hop_ewma);
	p->rate_ewma = READ_ONCE(hpcc_rate_ewma);
	p->ai_time = READ_ONCE(hpcc_ai_time);
	p->law_time = READ_ONCE(hpcc_law_time);
	p->ewma_span = READ_ONCE(hpcc_ewma_span);
	p->qmin_span = READ_ONCE(hpcc_qmin_span);
	p->first_qmin = READ_ONCE(hpcc_first_qmin);
	p->w_ai_bytes = READ_ONCE(hpcc_w_ai);
	p->expected_flows = READ_ONCE(hpcc_expected_flows);
	p->base_rtt_us = READ_ONCE(hpcc_base_rtt);
	p->queue_t_us = READ_ONCE(hpcc_queue_t);
	p->telemetry_timeout = READ_ONCE(hpcc_telemetry_timeout);
	p->max_mbps = READ_ONCE(hpcc_max_capacity);
	p->max_growth = READ_ONCE(hpcc_max_growth);
	p->loss_beta = READ_ONCE(hpcc_loss_beta);
	p->loss_undo = READ_ONCE(hpcc_loss_undo);
	p->start_hold = READ_ONCE(hpcc_start_hold);
	p->probe_first = READ_ONCE(hpcc_probe_first);
	p->first_share = READ_ONCE(hpcc_first_share);
	p->first_bound = READ_ONCE(hpcc_first_bound);
	p->first_crowd = READ_ONCE(hpcc_first_crowd);
	p->probe_cost = READ_ONCE(hpcc_probe_cost);
	p->probe_free = READ_ONCE(hpcc_probe_free);
	p->compete_rtts = READ_ONCE(hpcc_compete_rtts);
	p->compete_queue = READ_ONCE(hpcc_compete_queue);
	p->compete_hold = READ_ONCE(hpcc_compete_hold);
	p->compete_ecn = READ_ONCE(hpcc_compete_ecn);
	p->rx_window = READ_ONCE(hpcc_rx_window);
	p->receiver_flows = READ_ONCE(hpcc_receiver_flows);
	p->fair_pull = READ_ONCE(hpcc_fair_pull);
	p->fair_slack = READ_ONCE(hpcc_fair_slack);
	p->fair_floor = READ_ONCE(hpcc_fair_floor);
	p->deliv_cap = READ_ONCE(hpcc_deliv_cap);
	p->deliv_ai = READ_ONCE(hpcc_deliv_ai);
	p->deliv_free = READ_ONCE(hpcc_deliv_free);
	p->cwnd_gain = READ_ONCE(hpcc_cwnd_gain);
	p->cwnd_long_kb = READ_ONCE(hpcc_cwnd_long);
	p->queue_room = READ_ONCE(hpcc_queue_room);
	p->path_share = READ_ONCE(hpcc_path_share);
	p->handoff = READ_ONCE(hpcc_handoff);
}

static void hpcc_view(const struct sock *sk, struct hpcc_tcp_view *v)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	v->mss = max(tp->mss_cache, 1U);
	v->snd_nxt = tp->snd_nxt;
	v->snd_una = tp->snd_una;
	v->cwnd = tcp_snd_cwnd(tp);
	v->min_rtt_us = tcp_min_rtt(tp);
	v->srtt_ns = hpcc_srtt_ns(tp);
	v->recovering = inet_csk(sk)->icsk_ca_state >= TCP_CA_CWR;
	v->crowded = false;
	v->flows = 0;
	v->delivered = tp->bytes_acked;
}

/* For the lockless readers: after every change of the controller. */
static void hpcc_publish(struct hpcc_flow *f)
{
	const struct hpcc_ctl *c = &f->ctl;
	struct hpcc_flow_info *i = &f->info;

	WRITE_ONCE(i->w, c->law.w >> HPCC_W_SHIFT);
	WRITE_ONCE(i->wc, c->law.wc >> HPCC_W_SHIFT);
	WRITE_ONCE(i->pacing_rate, c->pacing_rate);
	WRITE_ONCE(i->last_report_ns, c->last_report_ns);
	WRITE_ONCE(i->u, c->law.u);
	WRITE_ONCE(i->stage, c->law.inc_stage);
	WRITE_ONCE(i->bottleneck, c->law.bottleneck);
	WRITE_ONCE(i->nhops, c->law.nhops);
	WRITE_ONCE(i->t_us, c->t_us);
	WRITE_ONCE(i->unanswered, c->unanswered);
	WRITE_ONCE(i->telemetry, c->telemetry);
}

/* ---- probes ---------------------------------------------------------------- */

/*
 * probe_limit per second per network namespace, so that one tenant's flows
 * cannot use up another's. A generic cell rate algorithm: each probe moves
 * the namespace's theoretical arrival time on by 1 / probe_limit, and a
 * probe is allowed while that time is at most HPCC_PROBE_BURST_NS ahead of
 * now. Any rate is honoured, including those below HZ.
 */
#define HPCC_PROBE_BURST_NS	(4 * NSEC_PER_MSEC)

/*
 * path_share: the latest report a flow of this namespace used, per peer
 * (address and DSCP), in a small direct-mapped table: a collision only
 * costs the sharing; and handoff's pool of the peer's finished flows,
 * cleared when another peer takes the slot. Written and read on ACK paths
 * on any CPU (the pool also at release); readers retry on the seqlock,
 * writers disable BH so that a reader in softirq never spins on a writer
 * it interrupted. Part of hpcc_net, so that it lives as long as the
 * namespace's other per-net data.
 */
#define HPCC_PATH_SLOTS		32

struct hpcc_path_slot {
	seqlock_t lock;
	struct in6_addr peer;		/* v4: mapped */
	u32 dscp;
	struct hpcc_path_report r;
	struct hpcc_handoff_pool pool;
};

struct hpcc_net {
	atomic64_t probe_tat;		/* ns, ktime_get_ns() clock */
	atomic64_t last_start_ns;	/* the latest flow start (first_crowd),
					 * tcp_clock_ns(); 0: none
					 */
	struct hpcc_path_slot paths[HPCC_PATH_SLOTS];
};

static unsigned int hpcc_net_id __read_mostly;

static atomic64_t *hpcc_last_start(const struct sock *sk)
{
	struct hpcc_net *hn = net_generic(sock_net(sk), hpcc_net_id);

	return &hn->last_start_ns;
}

static void hpcc_path_key(const struct sock *sk, struct in6_addr *peer,
			  u32 *dscp)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		*peer = sk->sk_v6_daddr;
		*dscp = inet6_sk(sk)->tclass >> 2;
		return;
	}
#endif
	ipv6_addr_set_v4mapped(sk->sk_daddr, peer);
	*dscp = inet_sk(sk)->tos >> 2;
}

static struct hpcc_path_slot *hpcc_path_slot(const struct sock *sk,
					     struct in6_addr *peer, u32 *dscp)
{
	struct hpcc_net *hn = net_generic(sock_net(sk), hpcc_net_id);

	hpcc_path_key(sk, peer, dscp);
	return &hn->paths[jhash2(peer->s6_addr32, 4, *dscp) &
			  (HPCC_PATH_SLOTS - 1)];
}

/* The slot for this peer, under its lock: another peer's report and pool
 * are not this one's.
 */
static void hpcc_path_claim(struct hpcc_path_slot *slot,
			    const struct in6_addr *peer, u32 dscp)
{
	if (ipv6_addr_equal(&slot->peer, peer) && slot->dscp == dscp)
		return;
	memset(&slot->r, 0, sizeof(slot->r));
	memset(&slot->pool, 0, sizeof(slot->pool));
	slot->peer = *peer;
	slot->dscp = dscp;
}

/* A report this flow used becomes its peer's latest. */
static void hpcc_path_store(const struct sock *sk,
			    const struct hpcc_sample *L, unsigned int n,
			    u64 now)
{
	struct hpcc_path_slot *slot;
	struct in6_addr peer;
	u32 dscp;

	slot = hpcc_path_slot(sk, &peer, &dscp);
	write_seqlock_bh(&slot->lock);
	hpcc_path_claim(slot, &peer, dscp);
	hpcc_ctl_path_store(&slot->r, L, n, now);
	write_sequnlock_bh(&slot->lock);
}

/* The peer's latest report into @r; false: none for this peer. */
static bool hpcc_path_load(const struct sock *sk, struct hpcc_path_report *r)
{
	struct hpcc_path_slot *slot;
	struct in6_addr peer;
	unsigned int seq;
	bool found;
	u32 dscp;

	slot = hpcc_path_slot(sk, &peer, &dscp);
	do {
		seq = read_seqbegin(&slot->lock);
		found = ipv6_addr_equal(&slot->peer, &peer) &&
			slot->dscp == dscp;
		if (found)
			*r = slot->r;
	} while (read_seqretry(&slot->lock, seq));
	return found;
}

/*
 * handoff: the flow's W into its peer's pool, once: when its sending is
 * done (nothing in flight, nothing queued) or at its release once closed,
 * not when it changes congestion control. "In use": data sent within 4
 * RTTs (lsndtime is in jiffies; a FIN alone does not move it).
 */
static void hpcc_handoff_give(struct sock *sk, struct hpcc_flow *f, u64 now)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u64 srtt = hpcc_srtt_ns(tp);
	s32 recent = max_t(s32, nsecs_to_jiffies(4 * srtt), 2);
	bool sending = (s32)(tcp_jiffies32 - tp->lsndtime) <= recent;
	struct hpcc_path_slot *slot;
	struct hpcc_ctl_params p;
	struct in6_addr peer;
	bool given;
	u32 dscp;

	/* nothing to give: leave the slot to whichever peer holds it */
	if (!f->ctl.telemetry || !sending)
		return;
	hpcc_params(&p);
	if (!p.handoff)
		return;
	slot = hpcc_path_slot(sk, &peer, &dscp);
	write_seqlock_bh(&slot->lock);
	hpcc_path_claim(slot, &peer, dscp);
	given = hpcc_ctl_handoff_give(&slot->pool, &f->ctl, &p, sending, now,
				      srtt);
	write_sequnlock_bh(&slot->lock);
	if (given) {
		f->handed = true;
		hpcc_count(HPCC_STAT_HANDOFFS_GIVEN);
	}
}

/* handoff: a young flow takes from its peer's pool, if there is one. */
static void hpcc_handoff_take(struct sock *sk, struct hpcc_flow *f, u64 now)
{
	struct hpcc_path_slot *slot;
	struct in6_addr peer;
	unsigned int seq;
	bool pooled;
	u64 took = 0;
	u32 dscp;

	slot = hpcc_path_slot(sk, &peer, &dscp);
	do {
		seq = read_seqbegin(&slot->lock);
		pooled = slot->pool.w != 0;
	} while (read_seqretry(&slot->lock, seq));
	if (!pooled)
		return;
	write_seqlock_bh(&slot->lock);
	if (ipv6_addr_equal(&slot->peer, &peer) && slot->dscp == dscp)
		took = hpcc_ctl_handoff_take(&slot->pool, &f->ctl, now);
	write_sequnlock_bh(&slot->lock);
	if (took)
		hpcc_count(HPCC_STAT_HANDOFFS_TAKEN);
}

static bool hpcc_probe_budget(const struct sock *sk)
{
	struct hpcc_net *hn = net_generic(sock_net(sk), hpcc_net_id);
	u32 interval = NSEC_PER_SEC / READ_ONCE(hpcc_probe_limit);
	s64 now = ktime_get_ns(), tat, next;

	do {
		tat = atomic64_read(&hn->probe_tat);
		if (tat - now > HPCC_PROBE_BURST_NS)
			return false;
		next = max(tat, now) + interval;
	} while (atomic64_cmpxchg(&hn->probe_tat, tat, next) != tat);
	return true;
}

/* A flagless TCP segment: same 5-tuple as the flow, never GSO, payload one
 * struct hpcc_probe with empty hop room. The TCP checksum is complete so
 * that switches can update it incrementally.
 */
static struct sk_buff *hpcc_build_probe(struct sock *sk, u32 nonce, u64 now,
					bool want_window, u32 t_us)
{
	const struct inet_sock *inet = inet_sk(sk);
	bool v2 = READ_ONCE(hpcc_wire_version) == HPCC_WIRE_V2;
	u32 len = v2 ? HPCC_PROBE_V2_LEN : HPCC_PROBE_LEN;
	struct hpcc_sipkey k;
	struct hpcc_hdr *h;
	struct sk_buff *skb;
	struct tcphdr *th;
	u32 id;

	skb = alloc_skb(MAX_TCP_HEADER + len, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, MAX_TCP_HEADER);
	h = skb_put_zero(skb, len);
	h->version = v2 ? HPCC_WIRE_V2 : HPCC_WIRE_V1;
	h->room = HPCC_MAX_HOPS;
	h->nonce = cpu_to_be32(nonce);
	h->send_ns = cpu_to_be64(now);
	if (v2) {
		struct hpcc_hdr_v2 *h2 = (struct hpcc_hdr_v2 *)h;

		/* T for a receiver that computes the window */
		h2->t_us = cpu_to_be32(t_us);
		if (want_window)
			h2->flags |= HPCC_F_WANT_WINDOW;
		/* Ask for tags under the key this host holds. */
		id = READ_ONCE(hpcc_mac_key_id);
		if (hpcc_mac_key(id, &k)) {
			h2->flags |= HPCC_F_MAC;
			h2->key_id = id;
		}
		memzero_explicit(&k, sizeof(k));
	}

	th = skb_push(skb, sizeof(*th));
	skb_reset_transport_header(skb);
	memset(th, 0, sizeof(*th));
	th->source = inet->inet_sport;
	th->dest = inet->inet_dport;
	th->seq = htonl(tcp_sk(sk)->snd_nxt);
	th->doff = sizeof(*th) / 4;
	skb->ip_summed = CHECKSUM_NONE;
	skb->priority = sk->sk_priority;
	skb->mark = sk->sk_mark;
	skb_set_hash_from_sk(skb, sk);
	skb_set_owner_w(skb, sk);
	return skb;
}

static int hpcc_xmit_probe_v4(struct sock *sk, struct sk_buff *skb, u8 tos)
{
	const struct inet_sock *inet = inet_sk(sk);
	struct tcphdr *th = tcp_hdr(skb);

	th->check = tcp_v4_check(skb->len, inet->inet_saddr, inet->inet_daddr,
				 csum_partial(th, skb->len, 0));
	return __ip_queue_xmit(sk, skb, &inet_sk(sk)->cork.fl, tos);
}

#if IS_ENABLED(CONFIG_IPV6)
static int hpcc_xmit_probe_v6(struct sock *sk, struct sk_buff *skb, u8 tclass)
{
	struct ipv6_pinfo *np = inet6_sk(sk);
	struct tcphdr *th = tcp_hdr(skb);
	struct dst_entry *dst;
	struct flowi6 fl6 = {};
	int err;

	/* Use the route the data takes; without one, skip this probe. */
	dst = __sk_dst_check(sk, np->dst_cookie);
	if (!dst) {
		kfree_skb(skb);
		return -EHOSTUNREACH;
	}
	fl6.flowi6_proto = IPPROTO_TCP;
	fl6.daddr = sk->sk_v6_daddr;
	fl6.saddr = np->saddr;
	fl6.flowlabel = np->flow_label;
	fl6.flowi6_oif = sk->sk_bound_dev_if;
	fl6.flowi6_mark = sk->sk_mark;
	fl6.fl6_sport = inet_sk(sk)->inet_sport;
	fl6.fl6_dport = inet_sk(sk)->inet_dport;
	th->check = csum_ipv6_magic(&np->saddr, &sk->sk_v6_daddr, skb->len,
				    IPPROTO_TCP, csum_partial(th, skb->len, 0));
	rcu_read_lock();
	skb_dst_set_noref(skb, dst);
	err = ip6_xmit(sk, skb, &fl6, sk->sk_mark, rcu_dereference(np->opt),
		       tclass, sk->sk_priority);
	rcu_read_unlock();
	return err;
}
#endif

static bool hpcc_sk_is_v4(const struct sock *sk)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6)
		return ipv6_addr_v4mapped(&sk->sk_v6_daddr);
#endif
	return true;
}

/* Forget the outstanding probe: a late response to it is stale. */
static void hpcc_clear_nonce(struct hpcc_flow *f)
{
	spin_lock_bh(&f->mb.lock);
	WRITE_ONCE(f->mb.probe_nonce, 0);
	spin_unlock_bh(&f->mb.lock);
}

/* Send the flow's probe now (the outstanding one counts as lost). */
static void hpcc_send_probe(struct sock *sk, struct hpcc_flow *f, u64 now)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	/* the data's ECN codepoint: an AQM that marks ECT drops the rest */
	u8 tos = READ_ONCE(hpcc_probe_dscp) << 2 |
		 (inet_sk(sk)->tos & INET_ECN_MASK);
	u64 srtt = hpcc_srtt_ns(tp);
	struct hpcc_ctl_params p;
	struct sk_buff *skb;
	bool want;
	u32 nonce;
	int err;

	if (READ_ONCE(f->mb.probe_nonce)) {
		hpcc_count(HPCC_STAT_PROBES_LOST);
		hpcc_ctl_probe_lost(&f->ctl);
		WRITE_ONCE(f->info.unanswered, f->ctl.unanswered);
		hpcc_clear_nonce(f);
	}
	if (!hpcc_probe_budget(sk)) {
		hpcc_count(HPCC_STAT_PROBES_LIMITED);
		hpcc_ctl_probe_held(&f->ctl, now, srtt);
		return;
	}
	nonce = get_random_u32() | 1;
	hpcc_params(&p);
	want = READ_ONCE(hpcc_wire_version) == HPCC_WIRE_V2 &&
	       hpcc_ctl_want_window(&f->ctl, &p);
	skb = hpcc_build_probe(sk, nonce, now, want,
			       hpcc_ctl_t_us(&p, tcp_min_rtt(tp)));
	if (!skb) {
		hpcc_count(HPCC_STAT_PROBE_ERRORS);
		hpcc_ctl_probe_held(&f->ctl, now, srtt);
		return;
	}
	spin_lock_bh(&f->mb.lock);
	WRITE_ONCE(f->mb.probe_nonce, nonce);
	f->mb.probe_seq = tp->snd_nxt;
	f->mb.probe_sent_ns = now;
	spin_unlock_bh(&f->mb.lock);
	hpcc_ctl_probe_sent(&f->ctl, now, srtt, tp->snd_nxt);
	f->ctl.asking = want;

#if IS_ENABLED(CONFIG_IPV6)
	if (!hpcc_sk_is_v4(sk))
		err = hpcc_xmit_probe_v6(sk, skb, tos);
	else
#endif
		err = hpcc_xmit_probe_v4(sk, skb, tos);
	/* > 0: dropped or congested by a local qdisc, as data may be */
	if (err >= 0) {
		hpcc_count(HPCC_STAT_PROBES_SENT);
		return;
	}
	/* No route: the probe never left, so it cannot be lost either. */
	hpcc_count(HPCC_STAT_PROBE_ERRORS);
	hpcc_clear_nonce(f);
	hpcc_ctl_probe_held(&f->ctl, now, srtt);
}

/* When a probe is due (hpcc_ctl_probe_due()), send it. */
static void hpcc_maybe_probe(struct sock *sk, struct hpcc_flow *f,
			     const struct rate_sample *rs, u64 now)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct hpcc_ctl_params p;

	hpcc_params(&p);
	/* In flight now, or up to this ACK: an ACK-clocked flow whose
	 * every ACK covers the whole flight is still sending.
	 */
	if (hpcc_ctl_probe_due(&f->ctl, &p, now, hpcc_srtt_ns(tp),
			       tp->packets_out || rs->prior_in_flight,
			       tp->snd_nxt))
		hpcc_send_probe(sk, f, now);
}

/* ---- the kfunc ------------------------------------------------------------- */

static void hpcc_count_reject(int err)
{
	switch (err) {
	case -EMSGSIZE:
		hpcc_count(HPCC_STAT_REJECT_SIZE);
		break;
	case -EPROTONOSUPPORT:
		hpcc_count(HPCC_STAT_REJECT_VERSION);
		break;
	case -ERANGE:
		hpcc_count(HPCC_STAT_REJECT_HOPS);
		break;
	case -EBADMSG:
		hpcc_count(HPCC_STAT_REJECT_FLAGS);
		break;
	case -EOPNOTSUPP:
		hpcc_count(HPCC_STAT_REJECT_NOT_HPCC);
		break;
	case -ENOBUFS:
		hpcc_count(HPCC_STAT_REJECT_NO_STATE);
		break;
	case -ESTALE:
		hpcc_count(HPCC_STAT_REJECT_NONCE);
		break;
	case -E2BIG:
		hpcc_count(HPCC_STAT_REJECT_OVERFLOW);
		break;
	case -EKEYREJECTED:
		hpcc_count(HPCC_STAT_REJECT_MAC);
		break;
	case -ENOKEY:
		hpcc_count(HPCC_STAT_REJECT_NO_MAC);
		break;
	default:
		hpcc_count(HPCC_STAT_REJECT_SOCKET);
	}
}

static int hpcc_stash_report(struct sock *sk, const void *p)
{
	struct hpcc_flow *f;
	int err = 0;

	rcu_read_lock();
	f = rhashtable_lookup(&hpcc_flows, &sk, hpcc_flow_params);
	if (!f) {
		/* Only compared, never dereferenced: ops may change under us. */
		err = hpcc_is_ours(READ_ONCE(inet_csk(sk)->icsk_ca_ops)) ?
		      -ENOBUFS : -EOPNOTSUPP;
		goto out;
	}
	spin_lock_bh(&f->mb.lock);
	if (!hpcc_ctl_nonce_matches(p, f->mb.probe_nonce)) {
		err = -ESTALE;
		goto unlock;
	}
	f->mb.window = hpcc_wire_is_window(p);
	f->mb.flows = hpcc_ctl_decode_flows(p);
	if (f->mb.window) {
		hpcc_ctl_decode_window(p, &f->mb.win);
		f->mb.nhops = 0;
	} else {
		f->mb.nhops = hpcc_ctl_decode(p, f->mb.report);
	}
	f->mb.seq = f->mb.probe_seq;
	WRITE_ONCE(f->mb.probe_rtt_ns, tcp_clock_ns() - f->mb.probe_sent_ns);
	WRITE_ONCE(f->mb.probe_nonce, 0);	/* one response per probe */
	WRITE_ONCE(f->mb.pending, true);
unlock:
	spin_unlock_bh(&f->mb.lock);
out:
	rcu_read_unlock();
	return err;
}

/*
 * The MAC of a checked response: a v2 response with HPCC_F_MAC must carry
 * a chain that verifies under the key it names (-EKEYREJECTED, also when
 * this host does not hold that key); any other response is accepted
 * unless mac_required (-ENOKEY). Costs one SipHash of 56 bytes per hop.
 */
static int hpcc_check_mac(const void *report)
{
	const struct hpcc_probe_v2 *p = report;
	struct hpcc_sipkey k;
	int err;

	if (p->hdr.version != HPCC_WIRE_V2 || !(p->hdr.flags & HPCC_F_MAC))
		return READ_ONCE(hpcc_mac_required) ? -ENOKEY : 0;
	if (!hpcc_mac_key(p->hdr.key_id, &k))
		return -EKEYREJECTED;
	if (hpcc_wire_is_window(report))
		err = hpcc_mac_window_verify(report, &k);
	else
		err = hpcc_mac_verify(p, &k);
	memzero_explicit(&k, sizeof(k));
	return err;
}

__diag_push();
__diag_ignore_all("-Wmissing-prototypes",
		  "Global functions as their definitions will be in BTF");

/**
 * bpf_hpcc_report - hand one HPCC++ response to the flow it belongs to
 * @tp: the local socket, from bpf_skc_lookup_tcp() + bpf_skc_to_tcp_sock()
 * @report: the response's TCP payload, a struct hpcc_probe or (wire
 *          version 2) struct hpcc_probe_v2, network order
 * @report__sz: its length, HPCC_PROBE_LEN, HPCC_PROBE_V2_LEN or (a
 *              receiver's window, Rx-HPCC) HPCC_WINDOW_LEN
 *
 * Validates the report and stashes it for the flow's next ACK. Writes
 * nothing to the socket. Return: 0, or -EINVAL (no socket), -EMSGSIZE,
 * -EPROTONOSUPPORT, -ERANGE, -EBADMSG (see hpcc_wire_check(); -EBADMSG also
 * for a probe that is not a response), -E2BIG (HPCC_F_OVERFLOW: the path has
 * more hops than the probe had room for, so the bottleneck may be one that
 * could not stamp), -EOPNOTSUPP (the socket does not use
 * hpcc), -ENOBUFS (hpcc without per-flow state), -ESTALE (the nonce does not
 * echo the flow's outstanding probe), -EKEYREJECTED (a v2 MAC chain that
 * does not verify), -ENOKEY (no MAC while mac_required is set). A rejected
 * report changes nothing.
 */
__bpf_kfunc int bpf_hpcc_report(struct tcp_sock *tp, void *report,
				u32 report__sz)
{
	int err;

	if (!tp || !report)
		err = -EINVAL;
	else
		err = hpcc_ctl_check_response(report, report__sz);
	if (!err)
		err = hpcc_check_mac(report);
	if (!err)
		err = hpcc_stash_report((struct sock *)tp, report);
	if (err)
		hpcc_count_reject(err);
	else
		hpcc_count(HPCC_STAT_REPORTS_ACCEPTED);
	return err;
}

/**
 * bpf_hpcc_rx_window - the receiver's side of Rx-HPCC: a window for a probe
 * @tp: the receiving socket the probe belongs to (as for bpf_hpcc_report())
 * @probe: the probe's TCP payload, a struct hpcc_probe_v2 that asks for a
 *         window (HPCC_F_WANT_WINDOW), network order; on success its first
 *         HPCC_WINDOW_LEN bytes are the response's payload
 * @probe__sz: HPCC_PROBE_V2_LEN
 * @state: the connection's receiver state, HPCC_RX_FLOW_BYTES of the
 *         socket's BPF local storage (zero when new)
 * @state__sz: HPCC_RX_FLOW_BYTES
 *
 * Runs the law on the probe's records (hpcc_ctl_rx_window()) with this
 * host's parameters and the sender's T, and writes the window response,
 * tagged when the probe asked for MACs. Return: 0, or -EINVAL (no socket,
 * wrong sizes), the wire check's errors, -EBADMSG (a response, or no
 * window asked for), -E2BIG (overflow), -EKEYREJECTED (the probe's chain
 * does not verify, or the key is not here), -ENOKEY (untagged while
 * mac_required), -EBUSY (another CPU is computing this connection's
 * window), -ENODATA (no hop gave a capacity). On any error nothing is
 * written: the caller reflects the records instead.
 */
/* What a probe must be for a window, beyond the wire check: a probe
 * that asks for one, from a path that fitted, its chain verified (the
 * window stands for its records).
 */
static int hpcc_rx_check(const struct hpcc_window_resp *r)
{
	struct hpcc_sipkey k;
	u8 flags = r->hdr.flags;
	int err;

	if ((flags & HPCC_F_RESPONSE) || !(flags & HPCC_F_WANT_WINDOW))
		return -EBADMSG;
	if (flags & HPCC_F_OVERFLOW)
		return -E2BIG;
	if (!(flags & HPCC_F_MAC))
		return READ_ONCE(hpcc_mac_required) ? -ENOKEY : 0;
	if (!hpcc_mac_key(r->hdr.key_id, &k))
		return -EKEYREJECTED;
	err = hpcc_mac_verify((const struct hpcc_probe_v2 *)r, &k);
	memzero_explicit(&k, sizeof(k));
	return err;
}

/* The window for checked probe @r, written over it (see the kfunc). */
static int hpcc_rx_compute(struct tcp_sock *tp, struct hpcc_window_resp *r,
			   struct hpcc_rx_flow *st)
{
	struct hpcc_sample L[HPCC_MAX_HOPS];
	struct hpcc_window_val out;
	struct hpcc_ctl_params p;
	struct hpcc_sipkey k;
	unsigned int n;
	u32 events;
	u64 tag = 0;
	bool ok;

	n = hpcc_ctl_decode(r, L);
	hpcc_params(&p);
	/* the N this host's program counted, written into the probe */
	p.expected_flows = hpcc_ctl_flows(&p, hpcc_ctl_decode_flows(r));
	/* One computation per connection at a time; a probe on another CPU
	 * meanwhile gets its records reflected.
	 */
	if (cmpxchg(&st->busy, 0, 1))
		return -EBUSY;
	ok = hpcc_ctl_rx_window(st, &p, L, n, be32_to_cpu(r->hdr.t_us),
				max(tp->mss_cache, 1U), ktime_get_ns(), &out,
				&events);
	/* the state's stores before the next computation's loads */
	smp_store_release(&st->busy, 0);
	if (events & HPCC_EV_CAPPED)
		hpcc_count(HPCC_STAT_RX_CAPPED);
	if (events & HPCC_EV_IMPLAUSIBLE)
		hpcc_count(HPCC_STAT_RX_IMPLAUSIBLE);
	if (!ok)
		return -ENODATA;
	r->hdr.flags |= HPCC_F_RESPONSE | HPCC_F_WINDOW;
	r->hdr.nhops = 0;
	r->win.w_bytes = cpu_to_be64(out.w_bytes);
	r->win.u = cpu_to_be32(out.u);
	r->win.b_mbps = cpu_to_be32(out.b_mbps);
	r->win.rsvd = 0;
	if (r->hdr.flags & HPCC_F_MAC) {
		if (!hpcc_mac_key(r->hdr.key_id, &k))
			return -EKEYREJECTED;
		tag = hpcc_mac_window_tag(&k, r);
		memzero_explicit(&k, sizeof(k));
	}
	r->tag = cpu_to_be64(tag);
	return 0;
}

/**
 * bpf_hpcc_rx_window - the receiver's side of Rx-HPCC: a window for a probe
 * @tp: the receiving socket the probe belongs to (as for bpf_hpcc_report())
 * @probe: the probe's TCP payload, a struct hpcc_probe_v2 that asks for a
 *         window (HPCC_F_WANT_WINDOW), network order; on success its first
 *         HPCC_WINDOW_LEN bytes are the response's payload
 * @probe__sz: HPCC_PROBE_V2_LEN
 * @state: the connection's receiver state, HPCC_RX_FLOW_BYTES of the
 *         socket's BPF local storage (zero when new)
 * @state__sz: HPCC_RX_FLOW_BYTES
 *
 * Runs the law on the probe's records (hpcc_ctl_rx_window()) with this
 * host's parameters and the sender's T, and writes the window response,
 * tagged when the probe asked for MACs. Return: 0, or -EINVAL (no socket,
 * wrong sizes), the wire check's errors, -EBADMSG (a response, or no
 * window asked for), -E2BIG (overflow), -EKEYREJECTED (the probe's chain
 * does not verify, or the key is not here), -ENOKEY (untagged while
 * mac_required), -EBUSY (another CPU is computing this connection's
 * window), -ENODATA (no hop gave a capacity). Every refusal is counted
 * (RxNoWindow, RxBusy); on one the payload may have been read but is
 * not changed, and the caller reflects the records instead.
 */
__bpf_kfunc int bpf_hpcc_rx_window(struct tcp_sock *tp, void *probe,
				   u32 probe__sz, void *state, u32 state__sz)
{
	int err;

	if (!tp || !probe || !state || probe__sz != HPCC_PROBE_V2_LEN ||
	    state__sz != HPCC_RX_FLOW_BYTES)
		err = -EINVAL;
	else
		err = hpcc_wire_check(probe, probe__sz);
	if (!err)
		err = hpcc_rx_check(probe);
	if (!err)
		err = hpcc_rx_compute(tp, probe, state);
	if (!err)
		hpcc_count(HPCC_STAT_RX_WINDOWS);
	else if (err == -EBUSY)
		hpcc_count(HPCC_STAT_RX_BUSY);
	else
		hpcc_count(HPCC_STAT_RX_NO_WINDOW);
	return err;
}

__diag_pop();

HPCC_KFUNCS_START(hpcc_kfunc_ids)
BTF_ID_FLAGS(func, bpf_hpcc_report)
BTF_ID_FLAGS(func, bpf_hpcc_rx_window)
HPCC_KFUNCS_END(hpcc_kfunc_ids)

static const struct btf_kfunc_id_set hpcc_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &hpcc_kfunc_ids,
};

/* ---- the controller on the ACK path --------------------------------------- */

static void hpcc_leave_telemetry(struct sock *sk, struct hpcc_flow *f)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 cwnd = tcp_snd_cwnd(tp), ssthresh;

	hpcc_ctl_fallback(&f->ctl, &cwnd, &ssthresh);
	hpcc_publish(f);
	tp->snd_ssthresh = ssthresh;
	tcp_snd_cwnd_set(tp, min(cwnd, tp->snd_cwnd_clamp));
}

/* What the report did, counted and published; competing leaves the law. */
static void hpcc_report_events(struct sock *sk, struct hpcc_flow *f)
{
	if (f->ctl.events & HPCC_EV_CAPPED)
		hpcc_count(HPCC_STAT_REPORTS_CAPPED);
	if (f->ctl.events & HPCC_EV_GROWTH_HELD)
		hpcc_count(HPCC_STAT_REPORTS_GROWTH_HELD);
	if (f->ctl.events & HPCC_EV_PULLED)
		hpcc_count(HPCC_STAT_REPORTS_PULLED);
	if (f->ctl.events & HPCC_EV_DELIV_HELD)
		hpcc_count(HPCC_STAT_REPORTS_DELIV_HELD);
	if (f->ctl.events & HPCC_EV_IMPLAUSIBLE)
		hpcc_count(HPCC_STAT_REPORTS_IMPLAUSIBLE);
	hpcc_publish(f);
	if (f->ctl.events & HPCC_EV_COMPETE) {
		hpcc_count(HPCC_STAT_COMPETE);
		hpcc_leave_telemetry(sk, f);
	}
}

/* Run NewAck on a stashed report, if there is one; true: there was. */
static bool hpcc_consume_report(struct sock *sk, struct hpcc_flow *f, u64 now)
{
	struct hpcc_sample L[HPCC_MAX_HOPS];
	struct hpcc_window_val win;
	struct hpcc_ctl_params p;
	struct hpcc_tcp_view v;
	unsigned int n;
	bool window, used;
	u32 seq, flows;

	if (!READ_ONCE(f->mb.pending))
		return false;
	spin_lock_bh(&f->mb.lock);
	n = f->mb.nhops;
	seq = f->mb.seq;
	window = f->mb.window;
	win = f->mb.win;
	flows = f->mb.flows;
	memcpy(L, f->mb.report, n * sizeof(L[0]));
	WRITE_ONCE(f->mb.pending, false);
	spin_unlock_bh(&f->mb.lock);

	hpcc_params(&p);
	hpcc_view(sk, &v);
	if (!f->ctl.started)
		v.crowded = hpcc_ctl_crowded(&f->ctl,
					     atomic64_read(hpcc_last_start(sk)),
					     v.srtt_ns);
	v.flows = hpcc_ctl_n(flows);
	if (p.receiver_flows && flows) {
		p.expected_flows = v.flows;
		hpcc_count(HPCC_STAT_REPORTS_FLOWS);
	}
	if (window)
		used = hpcc_ctl_window(&f->ctl, &p, &v, &win, now);
	else
		used = hpcc_ctl_report(&f->ctl, &p, &v, L, n, seq, now);
	if (used)
		hpcc_count(window ? HPCC_STAT_REPORTS_WINDOW :
			   HPCC_STAT_REPORTS_USED);
	else
		hpcc_count(HPCC_STAT_REPORTS_NO_CAPACITY);
	if (used && !window && p.path_share)
		hpcc_path_store(sk, L, n, now);
	hpcc_report_events(sk, f);
	return true;
}

/*
 * path_share: without a report of its own, run NewAck on the peer's
 * latest (hpcc_ctl_path_usable() says when). A separate frame: the copy
 * is 340 bytes.
 */
static noinline void hpcc_share_report(struct sock *sk, struct hpcc_flow *f,
				       u64 now)
{
	struct hpcc_path_report r;
	struct hpcc_ctl_params p;
	struct hpcc_tcp_view v;

	/* the cheap half of hpcc_ctl_path_usable() first */
	if (!f->ctl.telemetry ||
	    (s64)(now - f->ctl.last_report_ns) <
	    (s64)(hpcc_srtt_ns(tcp_sk(sk)) / 2))
		return;
	if (!hpcc_path_load(sk, &r))
		return;
	hpcc_params(&p);
	hpcc_view(sk, &v);
	if (!hpcc_ctl_path_usable(&f->ctl, &p, &r, now, v.srtt_ns))
		return;
	hpcc_count(HPCC_STAT_REPORTS_SHARED);
	hpcc_ctl_path_report(&f->ctl, &p, &v, &r, now);
	hpcc_report_events(sk, f);
}

static void hpcc_apply_law(struct sock *sk, struct hpcc_flow *f,
			   const struct hpcc_ctl_params *p)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tcp_snd_cwnd_set(tp, hpcc_ctl_cwnd(&f->ctl, p, tp->mss_cache,
					   tp->snd_cwnd_clamp,
					   tp->bytes_acked));
	WRITE_ONCE(sk->sk_pacing_rate, min(f->ctl.pacing_rate,
					   READ_ONCE(sk->sk_max_pacing_rate)));
}

/* Loss-based mode: Reno with packet conservation in recovery, and the
 * stack's own pacing rule (200% of cwnd/srtt in slow start, 120% after).
 */
static void hpcc_reno(struct sock *sk, const struct rate_sample *rs)
{
	const struct hpcc_flow *f = ((struct hpcc_ca *)inet_csk_ca(sk))->flow;
	struct tcp_sock *tp = tcp_sk(sk);
	u8 state = inet_csk(sk)->icsk_ca_state;
	u64 rate;

	if (state == TCP_CA_Recovery || state == TCP_CA_CWR) {
		u32 cwnd = hpcc_ctl_conserve_cwnd(tcp_snd_cwnd(tp),
						  tcp_packets_in_flight(tp),
						  rs->acked_sacked);

		tcp_snd_cwnd_set(tp, cwnd);
	} else if (rs->acked_sacked > 0) {
		tcp_reno_cong_avoid(sk, 0, rs->acked_sacked);
	}
	if (f) {
		struct hpcc_ctl_params p;

		hpcc_params(&p);
		tcp_snd_cwnd_set(tp, hpcc_ctl_start_cwnd(&f->ctl, &p,
							 tcp_snd_cwnd(tp)));
	}

	rate = hpcc_ctl_reno_pacing_rate(tp->mss_cache, tcp_snd_cwnd(tp),
					 tp->packets_out, hpcc_srtt_ns(tp),
					 tcp_in_slow_start(tp));
	WRITE_ONCE(sk->sk_pacing_rate, min(rate,
					   READ_ONCE(sk->sk_max_pacing_rate)));
}

static void hpcc_cong_control(HPCC_CONG_CONTROL_ARGS)
{
	struct hpcc_flow *f = ((struct hpcc_ca *)inet_csk_ca(sk))->flow;
	struct hpcc_ctl_params p;
	u64 now;

	if (!f) {
		hpcc_reno(sk, rs);
		return;
	}
	now = tcp_clock_ns();
	if (rs->delivered > 0 && rs->interval_us > 0)
		hpcc_ctl_deliv_sample(&f->ctl, (u64)rs->delivered *
				      tcp_sk(sk)->mss_cache, rs->interval_us);
	hpcc_ctl_ecn_ack(&f->ctl, tcp_sk(sk)->snd_una, tcp_sk(sk)->snd_nxt,
			 tcp_sk(sk)->delivered, tcp_sk(sk)->delivered_ce);
	if (!hpcc_consume_report(sk, f, now) && READ_ONCE(hpcc_path_share))
		hpcc_share_report(sk, f, now);
	hpcc_params(&p);
	if (hpcc_ctl_handoff_wanted(&f->ctl, &p, tcp_sk(sk)->bytes_acked))
		hpcc_handoff_take(sk, f, now);
	if (hpcc_ctl_telemetry_lost(&f->ctl, &p, now, hpcc_srtt_ns(tcp_sk(sk)),
				    tcp_sk(sk)->snd_nxt)) {
		hpcc_count(HPCC_STAT_TELEMETRY_TIMEOUTS);
		hpcc_leave_telemetry(sk, f);
	}
	if (f->ctl.telemetry)
		hpcc_apply_law(sk, f, &p);
	else
		hpcc_reno(sk, rs);
	hpcc_maybe_probe(sk, f, rs, now);
	if (!f->handed && !tcp_sk(sk)->packets_out && tcp_write_queue_empty(sk))
		hpcc_handoff_give(sk, f, now);
	hpcc_ctl_ack_done(&f->ctl, tcp_sk(sk)->packets_out, now);
}

/* A loss while competing with compete_ecn: Reno's half, not the cut for
 * CE that hpcc_ssthresh() gave (an RTO: CA_EVENT_LOSS; fast recovery:
 * hpcc_set_state())
 */
static void hpcc_loss_halves(struct sock *sk)
{
	const struct hpcc_flow *f = ((struct hpcc_ca *)inet_csk_ca(sk))->flow;
	struct tcp_sock *tp = tcp_sk(sk);
	struct hpcc_ctl_params p;

	if (!f)
		return;
	hpcc_params(&p);
	/* prior_cwnd: the window before this reduction, or before the CWR
	 * that it follows
	 */
	if (hpcc_ctl_ecn_competing(&f->ctl, &p))
		tp->snd_ssthresh = max(tp->prior_cwnd >> 1U, 2U);
}

/*
 * The receiver's echo with the ecn parameter (TCP_CONG_NEEDS_ECN): ECE on
 * the ACKs of CE packets, not from the first CE until CWR, as dctcp's
 * receiver does (tcp_dctcp.h), so that a sender's count of marked packets
 * (hpcc_ctl_ecn_ack(), dctcp's alpha) is a fraction. An ACK held back by
 * delayed ACK leaves first with the state it acknowledges.
 */
static void hpcc_echo_ce(struct sock *sk, enum tcp_ca_event ev)
{
	struct hpcc_ca *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 ce = ev == CA_EVENT_ECN_IS_CE;

	if (ca->ce_state != ce) {
		if (inet_csk(sk)->icsk_ack.pending & ICSK_ACK_TIMER) {
			if (ca->ce_state)
				tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
			else
				tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
			hpcc_send_ack(sk, ca->prior_rcv_nxt);
		}
		inet_csk(sk)->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->ce_state = ce;
	if (ce)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

/* probe_first: a probe with the first data, and with the first data after
 * idle once one is due (TX_START: a segment sent with nothing in flight,
 * before it is queued; also every send of an ACK-clocked flow, which
 * hpcc_ctl_tx_start() tells from a restart).
 */
static void hpcc_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct hpcc_flow *f = ((struct hpcc_ca *)inet_csk_ca(sk))->flow;
	struct hpcc_ctl_params p;
	bool restart;
	u64 now;

	if (ev == CA_EVENT_ECN_IS_CE || ev == CA_EVENT_ECN_NO_CE) {
		hpcc_echo_ce(sk, ev);
		return;
	}
	if (ev == CA_EVENT_LOSS) {
		hpcc_loss_halves(sk);
		return;
	}
	if (ev != CA_EVENT_TX_START || !f)
		return;
	now = tcp_clock_ns();
	/* the flow's first data: its place among the host's starts */
	if (!f->ctl.start_ns && !f->ctl.started)
		hpcc_ctl_start(&f->ctl, now,
			       atomic64_xchg(hpcc_last_start(sk), now),
			       hpcc_srtt_ns(tcp_sk(sk)));
	restart = hpcc_ctl_tx_start(&f->ctl, now, hpcc_srtt_ns(tcp_sk(sk)));
	hpcc_params(&p);
	/* a stashed report answered the last probe: the first ACK uses it */
	if (hpcc_ctl_probe_first(&f->ctl, &p) ||
	    (restart && !READ_ONCE(f->mb.pending) &&
	     hpcc_ctl_probe_restart(&f->ctl, &p, now,
				    hpcc_srtt_ns(tcp_sk(sk)),
				    tcp_sk(sk)->snd_nxt)))
		hpcc_send_probe(sk, f, now);
}

/* ---- the rest of tcp_congestion_ops ---------------------------------------- */

static void hpcc_init(struct sock *sk)
{
	struct hpcc_ca *ca = inet_csk_ca(sk);
	struct hpcc_flow *f;

	ca->prior_cwnd = 0;
	ca->flow = NULL;
	ca->prior_rcv_nxt = tcp_sk(sk)->rcv_nxt;
	ca->ce_state = 0;
	/* TCP_CONG_NEEDS_ECN asked for ECN. A peer that refused it must get
	 * no ECT, which the stack sets after init for such a congestion
	 * control: the same operations without the flag, as dctcp_init()
	 * does with dctcp_reno.
	 */
	if (tcp_ca_needs_ecn(sk) && !(tcp_sk(sk)->ecn_flags & TCP_ECN_OK) &&
	    sk->sk_state != TCP_LISTEN && sk->sk_state != TCP_CLOSE)
		WRITE_ONCE(inet_csk(sk)->icsk_ca_ops, &tcp_hpcc_noecn_ops);
	/* Pace even without sch_fq, as tcp_bbr does. */
	cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED);

	f = kmem_cache_zalloc(hpcc_flow_cache, GFP_NOWAIT | __GFP_NOWARN);
	if (!f)
		goto degraded;
	f->sk = sk;
	write_pnet(&f->net, sock_net(sk));
	spin_lock_init(&f->mb.lock);
	if (rhashtable_insert_fast(&hpcc_flows, &f->node, hpcc_flow_params)) {
		kmem_cache_free(hpcc_flow_cache, f);
		goto degraded;
	}
	ca->flow = f;
	hpcc_count(HPCC_STAT_FLOWS);
	return;
degraded:
	/* Documented degraded mode: loss-based only, reports refused. */
	hpcc_count(HPCC_STAT_FLOWS_DEGRADED);
}

/* call_rcu(), not kfree_rcu(): on 6.1 rcu_barrier() in module exit does not
 * wait for kfree_rcu() batches, and kmem_cache_destroy() would find the
 * cache still in use.
 */
static void hpcc_flow_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(hpcc_flow_cache,
			container_of(head, struct hpcc_flow, rcu));
}

static void hpcc_release(struct sock *sk)
{
	struct hpcc_ca *ca = inet_csk_ca(sk);
	struct hpcc_flow *f = ca->flow;

	/* a socket reconnected after tcp_disconnect() asks for ECN again */
	if (inet_csk(sk)->icsk_ca_ops == &tcp_hpcc_noecn_ops)
		WRITE_ONCE(inet_csk(sk)->icsk_ca_ops, &tcp_hpcc_ops);
	if (!f)
		return;
	if (!f->handed && sk->sk_state == TCP_CLOSE)
		hpcc_handoff_give(sk, f, tcp_clock_ns());
	ca->flow = NULL;
	rhashtable_remove_fast(&hpcc_flows, &f->node, hpcc_flow_params);
	/* A kfunc or get_info() may still hold f under rcu_read_lock(). */
	call_rcu(&f->rcu, hpcc_flow_free_rcu);
}

static bool hpcc_telemetry_on(const struct sock *sk)
{
	const struct hpcc_flow *f = ((struct hpcc_ca *)inet_csk_ca(sk))->flow;

	return f && f->ctl.telemetry;
}

static u32 hpcc_ssthresh(struct sock *sk)
{
	struct hpcc_ca *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	ca->prior_cwnd = tcp_snd_cwnd(tp);
	/* With telemetry the law sizes the window, and a loss reduces W
	 * (loss_beta): the safety net against telemetry that is wrong.
	 */
	if (hpcc_telemetry_on(sk)) {
		struct hpcc_flow *f = ca->flow;
		struct hpcc_ctl_params p;

		hpcc_params(&p);
		hpcc_ctl_loss(&f->ctl, &p, tp->mss_cache);
		if (p.loss_beta < 1000)
			hpcc_count(HPCC_STAT_LOSS_REDUCTIONS);
		hpcc_publish(f);
		return hpcc_ctl_cwnd(&f->ctl, &p, tp->mss_cache,
				     tp->snd_cwnd_clamp, tp->bytes_acked);
	}
	/* competing beside a marking AQM: dctcp's cut, not Reno's half */
	if (ca->flow) {
		struct hpcc_ctl_params p;
		u32 cut;

		hpcc_params(&p);
		cut = hpcc_ctl_ecn_ssthresh(&ca->flow->ctl, &p,
					    tcp_snd_cwnd(tp));
		if (cut)
			return cut;
	}
	return tcp_reno_ssthresh(sk);
}

static u32 hpcc_undo_cwnd(struct sock *sk)
{
	struct hpcc_ca *ca = inet_csk_ca(sk);

	/* The loss was reordering: loss_beta's cut of W goes too. */
	if (hpcc_telemetry_on(sk)) {
		struct hpcc_ctl_params p;

		hpcc_params(&p);
		if (hpcc_ctl_loss_undo(&ca->flow->ctl, &p)) {
			hpcc_count(HPCC_STAT_LOSS_UNDONE);
			hpcc_publish(ca->flow);
		}
	}
	return max(tcp_snd_cwnd(tcp_sk(sk)), ca->prior_cwnd);
}

static void hpcc_set_state(struct sock *sk, u8 new_state)
{
	struct hpcc_flow *f = ((struct hpcc_ca *)inet_csk_ca(sk))->flow;
	struct tcp_sock *tp = tcp_sk(sk);

	if (new_state == TCP_CA_Recovery &&
	    inet_csk(sk)->icsk_ca_state != TCP_CA_Recovery)
		hpcc_loss_halves(sk);
	/* An RTO means the path is in trouble: fall back to loss-based. */
	if (new_state == TCP_CA_Loss && f && f->ctl.telemetry) {
		f->ctl.telemetry = false;
		hpcc_publish(f);
	}
	/* End of loss-based recovery (not undone) or of an ECN reduction
	 * (CWR, also when a TLP ends it in Disorder): Reno's cwnd = ssthresh,
	 * which tcp_end_cwnd_reduction() leaves to a cong_control; never
	 * above the window the reduction began with, where the flow left
	 * the law during it and slow-starts up to ssthresh
	 */
	if (new_state < TCP_CA_CWR && !hpcc_telemetry_on(sk) &&
	    (inet_csk(sk)->icsk_ca_state == TCP_CA_CWR ||
	     (inet_csk(sk)->icsk_ca_state == TCP_CA_Recovery &&
	      tp->undo_marker)) &&
	    tp->snd_ssthresh < TCP_INFINITE_SSTHRESH)
		tcp_snd_cwnd_set(tp, max(min(tp->snd_ssthresh, tp->prior_cwnd),
					 2U));
}

/*
 * TCP_CC_INFO / ss -ti reuse struct tcp_bbr_info (INET_DIAG_BBRINFO):
 *   bbr_bw_lo/hi     R, pacing rate from the law, bytes/s; 0 = loss-based
 *   bbr_min_rtt      T in use, us
 *   bbr_pacing_gain  U << 8 (ss prints U as a fraction)
 *   bbr_cwnd_gain    incStage << 8 (ss prints incStage)
 *
 * Called without the socket lock: tcp_getsockopt(TCP_CC_INFO) holds nothing
 * and inet_diag only rcu_read_lock(), while a TCP_CONGESTION switch may be
 * releasing this flow and rewriting icsk_ca_priv with another congestion
 * control's state. So never read ca->flow here: find the flow as the kfunc
 * does, in the RCU table, and read a racy but whole snapshot of it.
 */
static size_t hpcc_get_info(struct sock *sk, u32 ext, int *attr,
			    union tcp_cc_info *info)
{
	const struct hpcc_flow *f;
	u64 bw = 0;
	u32 u = 0;

	if (!(ext & (1 << (INET_DIAG_BBRINFO - 1))) &&
	    !(ext & (1 << (INET_DIAG_VEGASINFO - 1))))
		return 0;
	memset(&info->bbr, 0, sizeof(info->bbr));
	rcu_read_lock();
	f = rhashtable_lookup(&hpcc_flows, &sk, hpcc_flow_params);
	if (f && READ_ONCE(f->info.telemetry)) {
		bw = READ_ONCE(f->info.pacing_rate);
		u = min_t(u64, READ_ONCE(f->info.u) >> (HPCC_U_SHIFT - 8),
			  U32_MAX);
		info->bbr.bbr_min_rtt = READ_ONCE(f->info.t_us);
		info->bbr.bbr_cwnd_gain = READ_ONCE(f->info.stage) << 8;
	}
	rcu_read_unlock();
	info->bbr.bbr_bw_lo = (u32)bw;
	info->bbr.bbr_bw_hi = (u32)(bw >> 32);
	info->bbr.bbr_pacing_gain = u;
	*attr = INET_DIAG_BBRINFO;
	return sizeof(info->bbr);
}

static struct tcp_congestion_ops tcp_hpcc_ops __read_mostly = {
	.flags		= TCP_CONG_NON_RESTRICTED,
	.name		= "hpcc",
	.owner		= THIS_MODULE,
	.init		= hpcc_init,
	.release	= hpcc_release,
	.cong_control	= hpcc_cong_control,
	.cwnd_event	= hpcc_cwnd_event,
	.ssthresh	= hpcc_ssthresh,
	.undo_cwnd	= hpcc_undo_cwnd,
	.set_state	= hpcc_set_state,
	.get_info	= hpcc_get_info,
};

/* A connection whose peer refused ECN: tcp_hpcc_ops without
 * TCP_CONG_NEEDS_ECN (filled in at load), never registered
 */
static struct tcp_congestion_ops tcp_hpcc_noecn_ops __read_mostly;

/* ---- /proc/net/tcp_hpcc and /proc/net/tcp_hpcc_stat ------------------------ */

static void hpcc_show_flow(struct seq_file *seq, const struct hpcc_flow *f,
			   u64 now)
{
	const struct hpcc_flow_info *i = &f->info;
	const struct sock *sk = f->sk;
	u64 last = READ_ONCE(i->last_report_ns);
	s64 age = (s64)(now - last);

	/* A snapshot of a live flow, field by field: fine for a status view.
	 * sk stays a socket during the walk's RCU section (TCP sockets are
	 * SLAB_TYPESAFE_BY_RCU), if perhaps another one by now.
	 */
	if (sk->sk_family == AF_INET6 && !ipv6_addr_v4mapped(&sk->sk_v6_daddr))
		seq_printf(seq, "[%pI6c]:%u [%pI6c]:%u", &sk->sk_v6_rcv_saddr,
			   sk->sk_num, &sk->sk_v6_daddr, ntohs(sk->sk_dport));
	else
		seq_printf(seq, "%pI4:%u %pI4:%u", &sk->sk_rcv_saddr,
			   sk->sk_num, &sk->sk_daddr, ntohs(sk->sk_dport));
	seq_printf(seq, " %s %llu %llu %llu %u %u %llu %u ",
		   READ_ONCE(i->telemetry) ? "hpcc" : "reno",
		   READ_ONCE(i->w), READ_ONCE(i->wc),
		   (READ_ONCE(i->u) * 1000) >> HPCC_U_SHIFT,
		   READ_ONCE(i->stage), READ_ONCE(i->bottleneck),
		   READ_ONCE(i->pacing_rate), READ_ONCE(i->t_us));
	/* "-": no telemetry yet; per-CPU clocks may put "now" a hair early */
	if (!last)
		seq_puts(seq, "-");
	else
		seq_printf(seq, "%llu", div_u64(max_t(s64, age, 0),
						NSEC_PER_USEC));
	seq_printf(seq, " %llu %u %u\n",
		   div_u64(READ_ONCE(f->mb.probe_rtt_ns), NSEC_PER_USEC),
		   READ_ONCE(i->nhops), READ_ONCE(i->unanswered));
}

#define HPCC_FLOWS_HEADER "local remote mode w_bytes wc_bytes u_permille stage bottleneck_hop rate_Bps t_us age_us probe_rtt_us hops unanswered\n"

static int hpcc_flows_show(struct seq_file *seq, void *v)
{
	struct net *net = seq_file_single_net(seq);
	struct rhashtable_iter iter;
	struct hpcc_flow *f;
	u64 now = tcp_clock_ns();

	seq_puts(seq, HPCC_FLOWS_HEADER);
	rhashtable_walk_enter(&hpcc_flows, &iter);
	rhashtable_walk_start(&iter);
	while ((f = rhashtable_walk_next(&iter))) {
		if (IS_ERR(f))
			continue;	/* -EAGAIN: a resize, keep walking */
		if (net_eq(read_pnet(&f->net), net))
			hpcc_show_flow(seq, f, now);
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
	return 0;
}

static int hpcc_stat_show(struct seq_file *seq, void *v)
{
	int i, cpu;

	for (i = 0; i < HPCC_STAT_MAX; i++) {
		unsigned long sum = 0;

		for_each_possible_cpu(cpu)
			sum += per_cpu(hpcc_stats[i], cpu);
		seq_printf(seq, "%s %lu\n", hpcc_stat_names[i], sum);
	}
	return 0;
}

static int __net_init hpcc_net_init(struct net *net)
{
	struct hpcc_net *hn = net_generic(net, hpcc_net_id);
	unsigned int i;

	for (i = 0; i < HPCC_PATH_SLOTS; i++)
		seqlock_init(&hn->paths[i].lock);
	if (!proc_create_net_single("tcp_hpcc", 0444, net->proc_net,
				    hpcc_flows_show, NULL) ||
	    !proc_create_net_single("tcp_hpcc_stat", 0444, net->proc_net,
				    hpcc_stat_show, NULL)) {
		remove_proc_entry("tcp_hpcc", net->proc_net);
		return -ENOMEM;
	}
	return 0;
}

static void __net_exit hpcc_net_exit(struct net *net)
{
	remove_proc_entry("tcp_hpcc_stat", net->proc_net);
	remove_proc_entry("tcp_hpcc", net->proc_net);
}

static struct pernet_operations hpcc_net_ops = {
	.init = hpcc_net_init,
	.exit = hpcc_net_exit,
	.id = &hpcc_net_id,
	.size = sizeof(struct hpcc_net),
};

/* ---- module ---------------------------------------------------------------- */

/*
 * Whether the kernel took this module's BTF. Module BTF is split BTF on top
 * of the vmlinux BTF of the kernel build it was made for; on another build
 * with the same release (a kernel update that kept the ABI name, a module
 * copied between machines) the kernel fails to validate it. Without
 * CONFIG_MODULE_ALLOW_BTF_MISMATCH that fails the load; with it (Debian's
 * kernels) the module loads without BTF and register_btf_kfunc_id_set()
 * only warns, so bpf_hpcc_report() would silently not exist. No exported
 * call tells a module whether it has BTF; /sys/kernel/btf/MODULE, created
 * when the kernel accepts the BTF and before the module's init runs, does.
 */
static bool hpcc_btf_accepted(void)
{
	struct kernfs_node *dir, *kn = NULL;

	if (!IS_ENABLED(CONFIG_SYSFS))
		return true;
	dir = kernfs_find_and_get(kernel_kobj->sd, "btf");
	if (dir) {
		kn = kernfs_find_and_get(dir, THIS_MODULE->name);
		kernfs_put(dir);
	}
	if (!kn)
		return false;
	kernfs_put(kn);
	return true;
}

static int __init hpcc_register(void)
{
	int err;

	BUILD_BUG_ON(sizeof(struct hpcc_ca) > ICSK_CA_PRIV_SIZE);
	BUILD_BUG_ON_NOT_POWER_OF_2(HPCC_PATH_SLOTS);
	BUILD_BUG_ON(sizeof(struct hpcc_hop) != 32);
	BUILD_BUG_ON(sizeof(struct hpcc_hdr) != 16);
	BUILD_BUG_ON(HPCC_PROBE_LEN != 16 + 32 * HPCC_MAX_HOPS);
	BUILD_BUG_ON(sizeof(struct hpcc_hdr_v2) != 24);
	BUILD_BUG_ON(sizeof(struct hpcc_hop_v2) != 40);
	BUILD_BUG_ON(HPCC_PROBE_V2_LEN != 24 + 40 * HPCC_MAX_HOPS);
	BUILD_BUG_ON(offsetof(struct hpcc_hdr_v2, nonce) !=
		     offsetof(struct hpcc_hdr, nonce));
	BUILD_BUG_ON(offsetof(struct hpcc_hdr_v2, send_ns) !=
		     offsetof(struct hpcc_hdr, send_ns));
	BUILD_BUG_ON(HPCC_MAX_HOPS > HPCC_LAW_MAX_HOPS);
	BUILD_BUG_ON(sizeof(struct hpcc_rx_flow) > HPCC_RX_FLOW_BYTES);
	BUILD_BUG_ON(HPCC_WINDOW_LEN != 24 + 24 + 8);
	BUILD_BUG_ON(HPCC_MAX_HOPS > U8_MAX);
	BUILD_BUG_ON(ARRAY_SIZE(hpcc_stat_names) != HPCC_STAT_MAX);
	/* bpf/hpcc_host.bpf.c detects this module by the type's presence */
	BTF_TYPE_EMIT(struct hpcc_probe);

	/* Without module BTF the kfunc would silently not exist. */
#if IS_ENABLED(CONFIG_DEBUG_INFO_BTF_MODULES)
	if (!THIS_MODULE->btf_data_size) {
		pr_err("tcp_hpcc: module has no BTF, so bpf_hpcc_report() cannot be registered; rebuild with the Makefile (pahole + resolve_btfids)\n");
		return -ENOKEY;
	}
	if (!hpcc_btf_accepted()) {
		pr_err("tcp_hpcc: the kernel rejected the module's BTF: built for another build of %s? Rebuild it against this kernel (dkms build --force; see tcp_hpcc(7))\n",
		       init_utsname()->release);
		return -ENOKEY;
	}
#else
	pr_err("tcp_hpcc: kernel lacks CONFIG_DEBUG_INFO_BTF_MODULES; the telemetry kfunc needs it\n");
	return -EOPNOTSUPP;
#endif
	hpcc_flow_cache = KMEM_CACHE(hpcc_flow, 0);
	if (!hpcc_flow_cache)
		return -ENOMEM;
	err = rhashtable_init(&hpcc_flows, &hpcc_flow_params);
	if (err)
		goto err_cache;
	err = register_btf_kfunc_id_set(BPF_PROG_TYPE_SCHED_CLS,
					&hpcc_kfunc_set);
	if (err) {
		pr_err("tcp_hpcc: registering the kfunc failed: %d\n", err);
		goto err_hash;
	}
	err = register_pernet_subsys(&hpcc_net_ops);
	if (err)
		goto err_hash;
	/* copied before registering, while it has no list links */
	tcp_hpcc_noecn_ops = tcp_hpcc_ops;
	if (hpcc_ecn)
		tcp_hpcc_ops.flags |= TCP_CONG_NEEDS_ECN;
	err = tcp_register_congestion_control(&tcp_hpcc_ops);
	if (err)
		goto err_net;
	pr_info("tcp_hpcc: registered, per-flow state %zu bytes\n",
		sizeof(struct hpcc_flow));
	return 0;

err_net:
	unregister_pernet_subsys(&hpcc_net_ops);
err_hash:
	rhashtable_destroy(&hpcc_flows);
err_cache:
	kmem_cache_destroy(hpcc_flow_cache);
	return err;
}

static void __exit hpcc_unregister(void)
{
	tcp_unregister_congestion_control(&tcp_hpcc_ops);
	unregister_pernet_subsys(&hpcc_net_ops);
	/* Every socket took a module reference, so the table is empty;
	 * flows released last may still wait for their grace period, and
	 * rcu_barrier() waits for their call_rcu() callbacks.
	 */
	rhashtable_destroy(&hpcc_flows);
	rcu_barrier();
	kmem_cache_destroy(hpcc_flow_cache);
}

module_init(hpcc_register);
module_exit(hpcc_unregister);

MODULE_AUTHOR("tcp_hpcc developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("HPCC++ High Precision Congestion Control for TCP");
/* The vmlinux BTF the module's BTF was made on (Kbuild, scripts/btf-id.sh) */
MODULE_INFO(btfbase, HPCC_BTF_BASE_ID);
