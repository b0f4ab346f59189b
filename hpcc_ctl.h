/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The HPCC++ controller around the window law (hpcc_law.h): which responses
 * are accepted, how a report is consumed (a new flow's first W, the law,
 * the pacing rate), when telemetry is given up for loss-based control, how
 * W becomes a congestion window, and when the next probe is due.
 *
 * Pure C with no kernel headers, like hpcc_law.h: tcp_hpcc.c and the
 * userspace tests (and the simulation model) run this very code; they add
 * only I/O: clocks, reading TCP's state, sending probes, counting. Hence
 * <stdint.h>'s types, not the kernel's (as in hpcc_law.h).
 *
 * Units: time in ns unless named _us; W in bytes << HPCC_W_SHIFT; rates in
 * bytes/s; windows handed to TCP in segments.
 */
#ifndef _HPCC_CTL_H
#define _HPCC_CTL_H

#include "hpcc_law.h"
#include "hpcc_wire.h"

/* Fewest segments in cwnd: one in flight plus one being acknowledged. */
#define HPCC_MIN_CWND		2
/* cwnd_gain's default: cwnd = 2 W. The rate is R = W / T, paced; the window
 * only bounds inflight, with room for an RTT above T that is not queueing
 * (host and NIC delays), as the reference simulator bounds its rate-based
 * flows by the network's max RTT rather than their own base RTT. 1 is the
 * draft's window-based sender: W in flight, what a flow holds once it has
 * delivered cwnd_long KB (a jitter-inflated RTT then holds back no more
 * than W to leave at once).
 */
#define HPCC_CWND_GAIN		2
/* Windows may grow to this many path BDPs to make up for an actual RTT
 * above T; pacing never exceeds the bottleneck capacity.
 */
#define HPCC_W_MAX_BDPS		4
/* T when base_rtt is auto and the flow has no RTT sample yet. */
#define HPCC_DEFAULT_T_US	1000
/* Largest T: the law's limit, HPCC_T_LIMIT_NS, in us. */
#define HPCC_T_LIMIT_US		((uint32_t)(HPCC_T_LIMIT_NS / 1000))
/* A lost probe is retried after this many RTTs... */
#define HPCC_PROBE_TIMEOUT_RTTS	3
/* ...never sooner than this... */
#define HPCC_PROBE_MIN_TIMEOUT_NS	200000ULL
/* ...and, on a path without telemetry, unanswered probes back off
 * exponentially up to 2^6 timeouts.
 */
#define HPCC_PROBE_MAX_BACKOFF	6
/* Telemetry is lost only after this many probes in a row brought the law
 * nothing (lost, or answered without a capacity): with 2, a third of the
 * probes dropped put the flow in loss-based mode in 16 of 26 samples.
 */
#define HPCC_TELEMETRY_MISSES	3

/* The operator's parameters (tcp_hpcc's module parameters), as read once
 * for each use.
 */
struct hpcc_ctl_params {
	uint32_t eta_permille;		/* 500..1000 */
	uint32_t max_stage;
	uint32_t ewma_rtts;		/* >= 1 */
	uint32_t w_ai_bytes;		/* 0: BDP (1 - eta) / expected_flows */
	uint32_t expected_flows;	/* >= 1 */
	uint32_t hop_ewma;		/* see struct hpcc_law_cfg */
	uint32_t rate_ewma;		/* see struct hpcc_law_cfg */
	uint32_t ai_time;		/* see struct hpcc_law_cfg */
	uint32_t law_time;		/* see struct hpcc_law_cfg */
	uint32_t ewma_span;		/* see struct hpcc_law_cfg */
	uint32_t qmin_span;		/* see struct hpcc_law_cfg */
	uint32_t first_qmin;		/* see struct hpcc_law_cfg */
	uint32_t base_rtt_us;		/* 0: the flow's min RTT */
	uint32_t queue_t_us;		/* T of U's queue term, network-wide
					 * (the draft's one T); 0: each
					 * flow's own T
					 */
	uint32_t telemetry_timeout;	/* RTTs without telemetry */
	/* Bounds on what a report can do to a flow (security: whoever
	 * answers a probe steers the flow). 0 in each: the draft, unbounded.
	 */
	uint32_t max_mbps;		/* largest capacity a hop may claim */
	uint32_t max_growth;		/* W's increase per report, per mille */
	uint32_t loss_beta;		/* W's factor on a loss, per mille */
	uint32_t loss_undo;		/* 1: the stack's undo of a spurious
					 * loss takes loss_beta's cut back
					 */
	/* The loop beyond the steady state (Documentation/tcp_hpcc.rst,
	 * "Dynamics"); 0 in each: the draft's behaviour.
	 */
	uint32_t start_hold;		/* 1: cwnd <= the initial window until
					 * the first report (or its loss)
					 */
	uint32_t probe_first;		/* 1: the first probe with the first
					 * data, not on the first ACK
					 */
	uint32_t probe_cost;		/* probe + response bytes per mille of
					 * the data sent between probes
					 */
	uint32_t probe_free;		/* U per mille below which the probe
					 * budget does not apply
					 */
	uint32_t compete_rtts;		/* T of a standing queue before
					 * loss-based competition
					 */
	uint32_t compete_queue;		/* standing queue, per mille of B T */
	uint32_t compete_hold;		/* RTTs competing before a trial */
	uint32_t compete_ecn;		/* 1: CE marks in every report are a
					 * standing queue too, and competing
					 * answers them as dctcp does
					 */
	uint32_t first_share;		/* a new flow's first W at most B T
					 * over this (0, 1: B T)
					 */
	uint32_t first_bound;		/* a new flow's first W at most this
					 * many times its bytes in flight
					 */
	uint32_t first_crowd;		/* 1: first_share cuts a flow below
					 * its flight only if it started in
					 * a crowd (hpcc_ctl_start())
					 */
	uint32_t rx_window;		/* 1: probes ask the receiver for a
					 * window (Rx-HPCC; wire version 2)
					 */
	uint32_t receiver_flows;	/* 1: W_ai's N from the response */
	uint32_t fair_pull;		/* per mille of W above the receiver's
					 * fair share given up per report on
					 * a full path (hpcc_ctl_fair_pull())
					 */
	uint32_t fair_slack;		/* per mille above the share that
					 * fair_pull leaves alone
					 */
	uint32_t fair_floor;		/* per mille of the receiver's fair
					 * share below which no W stays
					 * (hpcc_ctl_fair_floor())
					 */
	uint32_t path_share;		/* 1: a flow also runs the law on the
					 * reports of the host's other flows
					 * to its peer (hpcc_ctl_path_usable())
					 */
	uint32_t deliv_cap;		/* cwnd (gain W) grows to at most
					 * this per mille of what the flow
					 * delivers in a T
					 * (hpcc_ctl_deliv_hold())
					 */
	uint32_t deliv_ai;		/* 1: deliv_cap holds all growth but
					 * the additive step W_ai
					 */
	uint32_t deliv_free;		/* U per mille below which deliv_cap
					 * does not hold
					 */
	uint32_t cwnd_gain;		/* cwnd = cwnd_gain W; 0:
					 * HPCC_CWND_GAIN
					 */
	uint32_t cwnd_long_kb;		/* a flow that delivered more KB than
					 * this: cwnd = W; 0: never
					 */
	uint32_t queue_room;		/* 1: cwnd's room above W shrinks by
					 * the last report's queue
					 * (hpcc_ctl_cwnd())
					 */
	uint32_t handoff;		/* per mille of a finished flow's W
					 * left to the host's young flows on
					 * its path (hpcc_ctl_handoff_give())
					 */
};

/* The dynamics parameters' defaults (tcp_hpcc.c's module parameters). */
#define HPCC_DEF_START_HOLD	1
#define HPCC_DEF_PROBE_FIRST	1
#define HPCC_DEF_PROBE_COST	20
#define HPCC_DEF_PROBE_FREE	0
#define HPCC_DEF_COMPETE_RTTS	50
#define HPCC_DEF_COMPETE_QUEUE	4000
#define HPCC_DEF_COMPETE_HOLD	1000
#define HPCC_DEF_COMPETE_ECN	1
#define HPCC_DEF_FIRST_SHARE	16
#define HPCC_DEF_FIRST_BOUND	0
#define HPCC_DEF_FIRST_CROWD	1
#define HPCC_DEF_HOP_EWMA	1
#define HPCC_DEF_RATE_EWMA	0
#define HPCC_DEF_AI_TIME	0
#define HPCC_DEF_LAW_TIME	0
#define HPCC_DEF_EWMA_SPAN	0
#define HPCC_DEF_QMIN_SPAN	0
#define HPCC_DEF_FIRST_QMIN	0
#define HPCC_DEF_PATH_SHARE	1
#define HPCC_DEF_LOSS_UNDO	1
#define HPCC_DEF_FAIR_PULL	0
#define HPCC_DEF_FAIR_SLACK	0
#define HPCC_DEF_FAIR_FLOOR	0
#define HPCC_DEF_DELIV_CAP	3000
#define HPCC_DEF_DELIV_AI	1
#define HPCC_DEF_DELIV_FREE	0
#define HPCC_DEF_CWND_LONG	256
#define HPCC_DEF_HANDOFF	1000
#define HPCC_DEF_QUEUE_ROOM	1
/* Probe and response on the wire: the probe, TCP and IPv4 headers, a
 * link header's worth; probe_cost's unit of cost.
 */
#define HPCC_PROBE_WIRE_BYTES	(HPCC_PROBE_LEN + 54)

/* What the controller reads of the TCP connection. */
struct hpcc_tcp_view {
	uint32_t mss;			/* bytes, > 0 */
	uint32_t snd_nxt;
	uint32_t snd_una;
	uint32_t cwnd;			/* segments */
	uint32_t min_rtt_us;		/* ~0U: no sample yet */
	uint64_t srtt_ns;		/* smoothed RTT; a default without one */
	bool recovering;		/* in loss recovery (or CWR) */
	bool crowded;			/* started in a crowd: hpcc_ctl_crowded() */
	uint32_t flows;			/* the receiver's N in the response,
					 * bounded (hpcc_ctl_n()); 0: none
					 */
	uint64_t delivered;		/* bytes acknowledged (bytes_acked) */
};

/* A flow's controller state; owned by its ACK path. */
struct hpcc_ctl {
	struct hpcc_law law;
	uint64_t pacing_rate;		/* R = W / T, bytes/s, capped at B */
	uint64_t last_report_ns;	/* last report the law used */
	uint64_t next_probe_ns;		/* earliest time for the next probe */
	uint32_t t_us;			/* T in force */
	uint32_t unanswered;		/* probes lost in a row */
	uint32_t misses;		/* probes in a row the law got nothing
					 * from: lost, or without capacity
					 */
	uint32_t cwnd_before;		/* cwnd (segments) when telemetry began */
	uint32_t events;		/* HPCC_EV_* of the last report */
	uint32_t probe_nxt;		/* snd_nxt when the last probe left */
	uint32_t standing;		/* reports in a row with a standing queue */
	uint32_t trial_cwnd;		/* cwnd when the law's trial began; 0:
					 * not in a trial
					 */
	uint64_t standing_ns;		/* when the standing queue was first seen */
	uint64_t queue_u;		/* the largest queue, U units, of the last
					 * report competition judged (kept
					 * through its hold: a standing queue
					 * is one that did not shrink since)
					 */
	uint64_t room_q;		/* the same of the last report the law
					 * used, for cwnd's room (queue_room)
					 */
	uint64_t compete_until_ns;	/* competing (loss-based) until then */
	uint32_t ecn_alpha;		/* CE-marked fraction of what was
					 * delivered, EWMA per round,
					 * HPCC_ECN_ALPHA_SHIFT
					 */
	uint32_t ecn_round_end;		/* snd_nxt when the round began */
	uint32_t ecn_delivered;		/* delivered when the round began */
	uint32_t ecn_delivered_ce;	/* delivered_ce when it began */
	uint32_t ecn_last_ce;		/* delivered_ce at the last ACK */
	uint64_t standing_q;		/* the queue then, U units */
	uint64_t idle_ns;		/* an ACK left nothing in flight */
	uint64_t restart_ns;		/* sent again after an RTT or more of
					 * idle (hpcc_ctl_tx_start())
					 */
	uint64_t start_ns;		/* the first data left; 0: not yet */
	uint64_t loss_w, loss_wc;	/* W, Wc before loss_beta's last cut;
					 * 0: nothing to undo
					 */
	uint64_t w_max;			/* the law's w_max on the path of the
					 * last report used; the undo's cap
					 */
	uint32_t b_mbps;		/* the path's B at that report */
	uint32_t deliv_bytes[2];	/* the best delivery rate sample of
					 * this report's interval [0] and of
					 * the one before [1]: bytes...
					 */
	uint32_t deliv_us[2];		/* ...over us; 0: no sample */
	uint32_t ecn_reports;		/* CE in each of the last reports,
					 * a bit each, the newest lowest
					 */
	bool ecn_marked;		/* CE echoed since the last report */
	bool ecn_counting;		/* alpha's first round has begun */
	bool telemetry;			/* the law owns cwnd and pacing */
	bool started;			/* telemetry has run before */
	bool probed;			/* a probe has left */
	bool awaiting;			/* the last probe is out, neither
					 * answered nor counted lost
					 */
	bool idle;			/* nothing in flight since idle_ns */
	bool competing;			/* loss-based beside a non-HPCC queue */
	bool asking;			/* the last probe asked for a window */
	bool window_refused;		/* asked, never answered: ask no more */
	bool windowed;			/* the last report was a window */
	bool crowd_before;		/* another flow of the host started
					 * shortly before this one
					 */
};

/* What a report's bounds did (hpcc_ctl.events), for the counters. */
#define HPCC_EV_CAPPED		0x01	/* a hop claimed more than max_mbps */
#define HPCC_EV_GROWTH_HELD	0x02	/* W grew more than max_growth
					 * allows, or at all in recovery
					 */
#define HPCC_EV_COMPETE		0x04	/* a standing queue: competing now;
					 * the caller leaves telemetry
					 * (hpcc_ctl_fallback())
					 */
#define HPCC_EV_WINDOW		0x08	/* a receiver's window was applied */
#define HPCC_EV_PULLED		0x10	/* fair_pull took W towards the share */
#define HPCC_EV_DELIV_HELD	0x20	/* deliv_cap held W's growth */
#define HPCC_EV_IMPLAUSIBLE	0x40	/* a hop sent more than its capacity
					 * allows (HPCC_TX_U_MAX): not used
					 */

/* ---- accepting a response ------------------------------------------------ */

static inline uint32_t hpcc_get_be32(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

static inline uint64_t hpcc_get_be64(const void *p)
{
	return (uint64_t)hpcc_get_be32(p) << 32 |
	       hpcc_get_be32((const uint8_t *)p + 4);
}

/*
 * What a response must be before any flow state is looked at: one struct
 * hpcc_probe or struct hpcc_probe_v2 at its version's length
 * (hpcc_wire_check()), turned around by a receiver, and from a path that
 * fitted the probe's room (with HPCC_F_OVERFLOW set the bottleneck may be
 * a hop that could not stamp). 0 or a negative errno. Reads bytes: @p may
 * be either version.
 */
static inline int hpcc_ctl_check_response(const void *p, uint32_t len)
{
	const uint8_t *b = (const uint8_t *)p;
	int err = hpcc_wire_check(p, len);

	if (err)
		return err;
	if (!(b[1] & HPCC_F_RESPONSE))
		return -EBADMSG;
	if (b[1] & HPCC_F_OVERFLOW)
		return -E2BIG;
	return 0;
}

/* The response echoes the flow's outstanding probe (0: none outstanding).
 * The nonce is at byte 4 in both versions.
 */
static inline bool hpcc_ctl_nonce_matches(const void *p, uint32_t outstanding)
{
	return outstanding &&
	       hpcc_get_be32((const uint8_t *)p +
			     4) == outstanding;
}

/* The hop records of a checked response, either version, in host order;
 * returns how many.
 */
static inline unsigned int hpcc_ctl_decode(const void *p,
					   struct hpcc_sample *L)
{
	const uint8_t *b = (const uint8_t *)p;
	uint32_t off = sizeof(struct hpcc_hdr), step = sizeof(struct hpcc_hop);
	unsigned int i, n = b[2];
	bool anon = b[0] == HPCC_WIRE_V2 && (b[1] & HPCC_F_ANON);

	if (b[0] == HPCC_WIRE_V2) {
		off = sizeof(struct hpcc_hdr_v2);
		step = sizeof(struct hpcc_hop_v2);
	}
	if (n > HPCC_MAX_HOPS)
		n = HPCC_MAX_HOPS;
	for (i = 0; i < n; i++) {
		const uint8_t *h = b + off + i * step;

		L[i].switch_id = hpcc_get_be32(h);
		L[i].port_id = hpcc_get_be32(h + 4);
		L[i].rate_mbps = hpcc_get_be32(h + 8);
		L[i].qlen = hpcc_get_be32(h + 12);
		L[i].ts_ns = hpcc_get_be64(h + 16);
		L[i].tx_bytes = hpcc_get_be64(h + 24);
		/* ANON: a record without capacity is a ratio record */
		L[i].anon = anon && !L[i].rate_mbps;
	}
	return n;
}

/* The receiver's N in a version 2 response (hpcc_hdr_v2.flows; 0: none). */
static inline uint32_t hpcc_ctl_decode_flows(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	if (b[0] != HPCC_WIRE_V2)
		return 0;
	return (uint32_t)b[21] << 16 | (uint32_t)b[22] << 8 | b[23];
}

/*
 * The N of W_ai = W_init (1 - eta) / N for a report that carries the
 * receiver's N @n (receiver_flows): bounded like any report field, at
 * least 1 and at most expected_flows' largest value; expected_flows when
 * the mode is off or the receiver measured nothing. A lying receiver
 * moves W_ai only, which max_growth bounds per report.
 */
#define HPCC_FLOWS_MAX		100000

/* The receiver's N, bounded (0: none) */
static inline uint32_t hpcc_ctl_n(uint32_t n)
{
	return n < HPCC_FLOWS_MAX ? n : HPCC_FLOWS_MAX;
}

static inline uint32_t hpcc_ctl_flows(const struct hpcc_ctl_params *p,
				      uint32_t n)
{
	if (!p->receiver_flows || !n)
		return p->expected_flows;
	return hpcc_ctl_n(n);
}

/* ---- consuming a report -------------------------------------------------- */

/* A probe brought the law nothing; counted up to the number that ends
 * telemetry (it only has to reach it).
 */
static inline void hpcc_ctl_missed(struct hpcc_ctl *s)
{
	if (s->misses < HPCC_TELEMETRY_MISSES)
		s->misses++;
}

/* T, the base RTT the law normalises by, in us: within the law's limit,
 * which a path's own min RTT (a satellite, a stuck queue) can exceed.
 */
static inline uint32_t hpcc_ctl_t_us(const struct hpcc_ctl_params *p,
				     uint32_t min_rtt_us)
{
	uint32_t us = p->base_rtt_us ? p->base_rtt_us : min_rtt_us;

	if (!us || us == ~0U)
		return HPCC_DEFAULT_T_US;
	return us < HPCC_T_LIMIT_US ? us : HPCC_T_LIMIT_US;
}

static inline void hpcc_ctl_law_cfg(const struct hpcc_ctl_params *p,
				    uint32_t mss, uint64_t bdp, uint64_t t_ns,
				    struct hpcc_law_cfg *c)
{
	uint64_t w_mss = (uint64_t)mss << HPCC_W_SHIFT;

	if (bdp > HPCC_W_LIMIT / HPCC_W_MAX_BDPS)
		bdp = HPCC_W_LIMIT / HPCC_W_MAX_BDPS;
	c->t_ns = t_ns;
	c->q_t_ns = p->queue_t_us ?
		    (uint64_t)(p->queue_t_us < HPCC_T_LIMIT_US ?
			       p->queue_t_us : HPCC_T_LIMIT_US) * 1000 : 0;
	c->eta = (uint32_t)hpcc_qdiv(p->eta_permille, 1000, HPCC_U_SHIFT);
	c->max_stage = p->max_stage;
	c->ewma_rtts = p->ewma_rtts;
	c->hop_ewma = p->hop_ewma;
	c->rate_ewma = p->rate_ewma;
	c->ai_time = p->ai_time;
	c->law_time = p->law_time;
	c->ewma_span = p->ewma_span;
	c->qmin_span = p->qmin_span;
	c->first_qmin = p->first_qmin;
	c->w_min = w_mss;
	c->w_max = bdp * HPCC_W_MAX_BDPS > w_mss ? bdp * HPCC_W_MAX_BDPS : w_mss;
	if (p->w_ai_bytes)
		c->w_ai = (uint64_t)p->w_ai_bytes << HPCC_W_SHIFT;
	else	/* the draft's rule of thumb: W_init * (1 - eta) / N */
		c->w_ai = hpcc_qdiv((bdp * (HPCC_U_ONE - c->eta)) >>
				    HPCC_U_SHIFT,
				    p->expected_flows ? p->expected_flows : 1,
				    0);
}

/* A hop may not claim more capacity than the operator allows: a forged
 * capacity would otherwise set W (up to 4 BDPs of it) and R. An
 * anonymised hop claims none: it is taken at that largest capacity, for
 * the bounds only (the BDP that bounds W, the pacing cap); its U needs
 * no capacity. Returns the samples to use, capped, in @out.
 */
static inline const struct hpcc_sample *
hpcc_ctl_cap(uint32_t *events, const struct hpcc_ctl_params *p,
	     const struct hpcc_sample *L, unsigned int nhops,
	     struct hpcc_sample *out)
{
	unsigned int i;

	if (!p->max_mbps)
		return L;
	for (i = 0; i < nhops && i < HPCC_LAW_MAX_HOPS; i++) {
		out[i] = L[i];
		if (out[i].anon)
			out[i].rate_mbps = p->max_mbps;
		if (out[i].rate_mbps > p->max_mbps) {
			out[i].rate_mbps = p->max_mbps;
			*events |= HPCC_EV_CAPPED;
		}
	}
	return out;
}

/* The most W may reach in one report from w_before by max_growth;
 * UINT64_MAX: unbounded (max_growth 0, or a W beyond the law's limit).
 */
static inline uint64_t hpcc_ctl_growth_most(const struct hpcc_ctl_params *p,
					    uint64_t w_before)
{
	if (!p->max_growth || w_before > HPCC_W_LIMIT)
		return UINT64_MAX;
	/* 2^40 * 100000 < 2^57: no wrap */
	return w_before + hpcc_qdiv(w_before * p->max_growth, 1000, 0);
}

/* W and Wc may grow by at most max_growth per report, and not at all
 * while TCP recovers from a loss: telemetry that says "empty" while
 * packets are lost is not believed.
 */
static inline void hpcc_ctl_hold_growth(struct hpcc_ctl *s,
					const struct hpcc_ctl_params *p,
					const struct hpcc_tcp_view *tv,
					const struct hpcc_law_cfg *c,
					uint64_t w_before)
{
	uint64_t most;

	most = tv->recovering ? w_before : hpcc_ctl_growth_most(p, w_before);
	if (most == UINT64_MAX)
		return;
	if (most < c->w_min)
		most = c->w_min;
	if (s->law.w > most) {
		s->law.w = most;
		s->events |= HPCC_EV_GROWTH_HELD;
	}
	if (s->law.wc > most)
		s->law.wc = most;
}

/*
 * deliv_cap (a departure, per mille; 3000 by default, 0: the draft): cwnd,
 * gain x W (hpcc_ctl_gain()), may grow to at most deliv_cap per mille of
 * the bytes the flow delivers in a T, at the best delivery rate of this
 * report's interval and the one before (TCP's rate samples): W grows while
 * the flow's RTT is below deliv_cap T / 1000, whatever its gain. The law
 * reads U < eta as room for more; a window-bound flow whose RTT the path
 * inflates delivers less than W / T, and W grows with the inflation, not
 * with the room: in the VM with link jitter 3 flows paced at 1.76 B
 * together while the link ran at 0.93 of B, and sent at that rate when the
 * RTT came down. W is never lowered: only growth beyond what was delivered
 * is held. Counted against W (2 W in flight: a 3 T RTT), the hold left a
 * flow past cwnd_long (W in flight) 1.5 T: with link jitter the long
 * flows then grew by W_ai alone while the link ran at 0.82.
 *
 * Every ACK: keep the interval's best sample (no division: the rates are
 * compared by cross-multiplying). An app-limited sample counts only where
 * it is the best, as in tcp_bbr.c's filter: then it is a lower bound.
 */
static inline void hpcc_ctl_deliv_sample(struct hpcc_ctl *s, uint64_t bytes,
					 uint64_t us)
{
	if (!bytes || !us)
		return;
	if (bytes > UINT32_MAX)
		bytes = UINT32_MAX;
	if (us > UINT32_MAX)
		us = UINT32_MAX;
	if (s->deliv_us[0] &&
	    bytes * s->deliv_us[0] <= (uint64_t)s->deliv_bytes[0] * us)
		return;
	s->deliv_bytes[0] = (uint32_t)bytes;
	s->deliv_us[0] = (uint32_t)us;
}

/* Whether the flow has outlived its start: delivered cwnd_long KB. */
static inline bool hpcc_ctl_long(const struct hpcc_ctl_params *p,
				 uint64_t delivered)
{
	return p->cwnd_long_kb && delivered > (uint64_t)p->cwnd_long_kb << 10;
}

/* cwnd / W: cwnd_gain, 1 once the flow is long (hpcc_ctl_long()). */
static inline uint32_t hpcc_ctl_gain(const struct hpcc_ctl_params *p,
				     uint64_t delivered)
{
	if (hpcc_ctl_long(p, delivered))
		return 1;
	return p->cwnd_gain ? p->cwnd_gain : HPCC_CWND_GAIN;
}

/*
 * At a report the law used: the hold, then the next interval begins. With
 * deliv_ai the hold leaves the additive step W_ai through: the law's
 * fairness comes from it alone, and a flow whose delivery holds it (a
 * queue inflating its RTT beyond deliv_cap T / 1000) would keep its share
 * while the others grow: 32 flows started 0-100 ms apart in the ns-3 model
 * kept a Jain index of 0.87 with the whole growth held, 0.97 without.
 */
static inline void hpcc_ctl_deliv_hold(struct hpcc_ctl *s,
				       const struct hpcc_ctl_params *p,
				       const struct hpcc_tcp_view *tv,
				       const struct hpcc_law_cfg *c,
				       uint64_t w_before, uint64_t wc_before)
{
	uint64_t b = s->deliv_bytes[0], us = s->deliv_us[0], most, ai;

	if (s->deliv_us[1] && (!us || s->deliv_bytes[1] * us >
				       b * s->deliv_us[1])) {
		b = s->deliv_bytes[1];
		us = s->deliv_us[1];
	}
	s->deliv_bytes[1] = s->deliv_bytes[0];
	s->deliv_us[1] = s->deliv_us[0];
	s->deliv_bytes[0] = 0;
	s->deliv_us[0] = 0;
	if (!p->deliv_cap || !us)
		return;
	/* U <= HPCC_U_MAX = 2^40: no wrap */
	if (s->law.u * 1000 < ((uint64_t)p->deliv_free << HPCC_U_SHIFT))
		return;
	/* b < 2^32, T < 2^21 us: no wrap; capped, times deliv_cap fits */
	most = hpcc_qdiv(b * s->t_us, us, HPCC_W_SHIFT);
	if (most > HPCC_W_LIMIT)
		most = HPCC_W_LIMIT;
	most = hpcc_qdiv(most * p->deliv_cap,
			 1000 * hpcc_ctl_gain(p, tv->delivered), 0);
	if (most < c->w_min)
		most = c->w_min;
	ai = p->deliv_ai ? hpcc_law_w_ai(&s->law, c) : 0;
	/* W, Wc <= w_max <= HPCC_W_LIMIT = 2^40, and W_ai capped: no wrap */
	if (ai > HPCC_W_LIMIT)
		ai = HPCC_W_LIMIT;
	w_before += ai;
	wc_before += ai;
	if (s->law.w > most && s->law.w > w_before) {
		s->law.w = most > w_before ? most : w_before;
		s->events |= HPCC_EV_DELIV_HELD;
	}
	if (s->law.wc > most && s->law.wc > wc_before)
		s->law.wc = most > wc_before ? most : wc_before;
}

/* The largest queue on the path as a share of its hop's B T, U units;
 * an anonymised hop's queue is its drain time, read as the law reads it.
 */
static inline uint64_t hpcc_ctl_queue_u(const struct hpcc_law_cfg *c,
					const struct hpcc_sample *L,
					unsigned int nhops)
{
	uint64_t q, qmax = 0;
	unsigned int i;

	for (i = 0; i < nhops && i < HPCC_LAW_MAX_HOPS; i++) {
		if (!hpcc_sample_usable(&L[i]) || !L[i].qlen)
			continue;
		q = hpcc_sample_queue_u(&L[i], L[i].qlen, c->t_ns);
		if (q > qmax)
			qmax = q;
	}
	return qmax;
}

/*
 * Competition (compete_rtts > 0): HPCC flows drain a bottleneck's queue
 * within a few RTTs of backing off. A queue of at least compete_queue per
 * mille of B T that has not shrunk from one report to the next for
 * compete_rtts T (and HPCC_COMPETE_REPORTS reports) while the law runs is
 * held by traffic that does not back off (loss-based TCP beside us): a
 * time, not a count of reports, because a flow the law has throttled
 * probes seldom (probe_cost), and long enough that the law's own
 * transients (a burst of new flows, delay jitter) drain first. The flow
 * then competes loss-based (HPCC_EV_COMPETE: the caller leaves telemetry)
 * for compete_hold T; reports in between count nothing. Then a trial: the
 * law runs again and backs off; a queue that stays at the threshold
 * through HPCC_COMPETE_REPORTS reports of the trial did not drain when we
 * did, so the flow competes again at once, from the window it had. With
 * compete_ecn, CE echoed since the previous report counts as a standing
 * queue as well (below). Returns true when the report was taken by it (the
 * law must not run).
 */
#define HPCC_COMPETE_REPORTS	3

/* Half of B T plus the largest queue, in segments of @mss (>= 1). */
static inline uint64_t hpcc_ctl_share(const struct hpcc_law_cfg *c,
				      const struct hpcc_sample *L,
				      unsigned int nhops, uint32_t mss)
{
	uint32_t bmin = hpcc_path_mbps(L, nhops);
	uint64_t bytes = hpcc_bdp(bmin, c->t_ns) >> HPCC_W_SHIFT;
	uint32_t qmax = 0;
	unsigned int i;

	for (i = 0; i < nhops && i < HPCC_LAW_MAX_HOPS; i++)
		if (L[i].qlen > qmax)
			qmax = L[i].qlen;
	bytes = (bytes + qmax) / 2;
	if (bytes > 0xffffffffULL)
		bytes = 0xffffffffULL;
	return (uint32_t)bytes / (mss ? mss : 1);
}

/*
 * CE marks beside a marking AQM (compete_ecn). HPCC switches stamp, they do
 * not mark, and the law keeps the queue below any marking threshold: CE
 * echoed through compete_rtts T while the queue did not halve means a
 * queue that someone else holds above an AQM's threshold (dctcp beside us
 * on a RED-ECN port holds it near K, below compete_queue's 4 B T); the
 * law's own burst of new flows drains. A report counts as marked when CE
 * came since it or the three reports before: the law throttles the flow
 * to a few packets a report, of which the AQM marks a fraction. Competing
 * answers CE as dctcp does: per round of data, alpha = (1 - g) alpha + g F,
 * F the fraction of delivered packets whose ACK echoed CE; on CE cwnd times
 * (1 - alpha / 2) (Linux's tcp_dctcp.c). The counts are the TCP stack's
 * (tcp_sock.delivered, delivered_ce), so the echo it counts is the
 * receiver's: per packet from a receiver that echoes as dctcp does, and
 * one per CWR from an RFC 3168 receiver, where alpha tends to 1 and the
 * answer is Reno's.
 */
#define HPCC_ECN_ALPHA_SHIFT	10	/* alpha's scale: 1024 = all marked */
#define HPCC_ECN_G_SHIFT	4	/* alpha's gain: 1/16, dctcp's */
/* CE counts only where telemetry shows a queue of at least compete_queue
 * >> this (B T / 16 at the default): ECE is the receiver's word, not the
 * routers', and alone it must not move a flow off the law (mac_required
 * authenticates the queue, nothing authenticates ECE)
 */
#define HPCC_COMPETE_ECN_QUEUE_SHIFT	6

/* A report stands on CE when CE came since it or the three before: a flow
 * at w_min beside dctcp sends a few packets a report, and RED marks one
 * now and then (two reports left it at w_min for 1.7 s in the model)
 */
#define HPCC_COMPETE_ECN_REPORTS	4

/* Every ACK: the counts after it; once per round (snd_una past the round's
 * snd_nxt) alpha's step. One 32-bit division per round.
 */
static inline void hpcc_ctl_ecn_ack(struct hpcc_ctl *s, uint32_t snd_una,
				    uint32_t snd_nxt, uint32_t delivered,
				    uint32_t delivered_ce)
{
	uint32_t alpha = s->ecn_alpha, ce, n;

	if (!s->ecn_counting) {
		/* the baseline: what was counted before this flow's state */
		s->ecn_counting = true;
		s->ecn_last_ce = delivered_ce;
		goto round;
	}
	if (delivered_ce != s->ecn_last_ce) {
		s->ecn_marked = true;
		s->ecn_last_ce = delivered_ce;
	}
	if ((int32_t)(snd_una - s->ecn_round_end) < 0)
		return;
	ce = delivered_ce - s->ecn_delivered_ce;
	n = delivered - s->ecn_delivered;
	/* dctcp's min_not_zero(): a small alpha decays to 0, not to 15 */
	alpha -= alpha >> HPCC_ECN_G_SHIFT ? alpha >> HPCC_ECN_G_SHIFT : alpha;
	if (ce && n) {
		/* g F at alpha's scale, in 32 bits: ce <= n < 2^26; with
		 * F <= 1 alpha stays within 1 << HPCC_ECN_ALPHA_SHIFT
		 */
		if (ce > n)
			ce = n;
		while (n >= 1U << 26) {
			n >>= 1;
			ce >>= 1;
		}
		alpha += (ce << (HPCC_ECN_ALPHA_SHIFT - HPCC_ECN_G_SHIFT)) / n;
	}
	s->ecn_alpha = alpha;
round:
	s->ecn_round_end = snd_nxt;
	s->ecn_delivered = delivered;
	s->ecn_delivered_ce = delivered_ce;
}

/* Competing loss-based with compete_ecn: CE cuts as dctcp's does. */
static inline bool hpcc_ctl_ecn_competing(const struct hpcc_ctl *s,
					  const struct hpcc_ctl_params *p)
{
	return p->compete_ecn && s->competing && !s->telemetry;
}

/* ssthresh on CE while hpcc_ctl_ecn_competing(): cwnd times (1 - alpha /
 * 2), at least 2; 0 when Reno's halving applies. A loss halves, as in
 * dctcp (dctcp_react_to_loss()): the caller undoes this cut for one.
 */
static inline uint32_t hpcc_ctl_ecn_ssthresh(const struct hpcc_ctl *s,
					     const struct hpcc_ctl_params *p,
					     uint32_t cwnd)
{
	uint32_t cut;

	if (!hpcc_ctl_ecn_competing(s, p))
		return 0;
	cut = (uint32_t)(((uint64_t)cwnd * s->ecn_alpha) >>
			 (HPCC_ECN_ALPHA_SHIFT + 1));
	return cwnd - cut > 2 ? cwnd - cut : 2;
}

static inline bool hpcc_ctl_compete(struct hpcc_ctl *s,
				    const struct hpcc_ctl_params *p,
				    const struct hpcc_law_cfg *c,
				    const struct hpcc_sample *L,
				    unsigned int nhops, uint64_t q,
				    uint32_t mss, uint32_t cwnd, uint64_t now)
{
	uint64_t thresh, share;
	bool fire, marked;

	if (!p->compete_rtts) {
		s->competing = false;
		s->trial_cwnd = 0;
		return false;
	}
	thresh = hpcc_qdiv(p->compete_queue, 1000, HPCC_U_SHIFT);
	s->ecn_reports = (s->ecn_reports << 1 | s->ecn_marked) &
			 ((1U << HPCC_COMPETE_ECN_REPORTS) - 1);
	s->ecn_marked = false;
	marked = p->compete_ecn && s->ecn_reports &&
		 q >= thresh >> HPCC_COMPETE_ECN_QUEUE_SHIFT;
	if (s->competing) {
		if ((int64_t)(now - s->compete_until_ns) < 0) {
			s->last_report_ns = now;
			return true;
		}
		s->competing = false;	/* a trial of the law */
		s->trial_cwnd = cwnd ? cwnd : 1;
		s->standing = 0;
	}
	if (s->trial_cwnd) {
		/* in a trial: did the queue drain when the law backed off? */
		if (q < thresh && !marked) {
			s->trial_cwnd = 0;
			s->standing = 0;
		} else {
			s->standing++;
		}
		fire = s->standing >= HPCC_COMPETE_REPORTS;
	} else {
		/* standing: above the threshold and not draining, or above
		 * an AQM's marking threshold
		 */
		bool queued = q >= thresh && q >= s->queue_u;

		if (queued || marked) {
			if (!s->standing++) {
				s->standing_ns = now;
				s->standing_q = q;
			}
		} else {
			s->standing = 0;
		}
		fire = s->telemetry && s->standing >= HPCC_COMPETE_REPORTS &&
		       now - s->standing_ns >=
		       (uint64_t)p->compete_rtts * c->t_ns;
		if (fire && !queued && q < s->standing_q / 2) {
			/* CE alone from a queue that is draining: wait anew */
			fire = false;
			s->standing = 1;
			s->standing_ns = now;
			s->standing_q = q;
		}
	}
	s->queue_u = q;
	if (!fire)
		return false;
	s->competing = true;
	s->standing = 0;
	s->compete_until_ns = now + (uint64_t)p->compete_hold * c->t_ns;
	/* hpcc_ctl_fallback() slow-starts up to cwnd_before: half of what the
	 * path holds, B T plus the standing queue, as a fair share of two, or
	 * the window the flow had when its trial began
	 */
	share = hpcc_ctl_share(c, L, nhops, mss);
	s->cwnd_before = (uint32_t)(share > s->trial_cwnd ? share :
				    s->trial_cwnd);
	s->trial_cwnd = 0;
	s->telemetry = false;
	s->events |= HPCC_EV_COMPETE;
	s->last_report_ns = now;
	return true;
}

/*
 * first_crowd: a flow starts in a crowd when another flow of its host (its
 * network namespace) started within HPCC_CROWD_RTTS of it, before it or
 * after it (before its first report). The host keeps only its latest
 * start: the caller swaps the flow's own in at hpcc_ctl_start() and reads
 * the latest at the first report. Flows that start together are what
 * first_share is for; a flow that starts alone (a web search's short flow,
 * say) keeps the initial window it has in flight.
 */
#define HPCC_CROWD_RTTS		4

static inline bool hpcc_crowd_near(uint64_t a, uint64_t b, uint64_t srtt_ns)
{
	int64_t d = (int64_t)(a - b);

	if (d < 0)
		d = -d;
	return (uint64_t)d < HPCC_CROWD_RTTS * srtt_ns;
}

/* The flow's first data left at @now; @prev_ns the host's start before it
 * (0: none).
 */
static inline void hpcc_ctl_start(struct hpcc_ctl *s, uint64_t now,
				  uint64_t prev_ns, uint64_t srtt_ns)
{
	s->start_ns = now;
	s->crowd_before = prev_ns && hpcc_crowd_near(now, prev_ns, srtt_ns);
}

/* At the first report, @last_ns the host's latest start. */
static inline bool hpcc_ctl_crowded(const struct hpcc_ctl *s,
				    uint64_t last_ns, uint64_t srtt_ns)
{
	return s->crowd_before ||
	       (s->start_ns && last_ns != s->start_ns &&
		hpcc_crowd_near(last_ns, s->start_ns, srtt_ns));
}

/* Nothing for hpcc_ctl_loss_undo() to give back. */
static inline void hpcc_ctl_forget_cut(struct hpcc_ctl *s)
{
	s->loss_w = 0;
	s->loss_wc = 0;
}

/* The law's count of unused hop samples, as an event; the count cleared. */
static inline uint32_t hpcc_ctl_take_implausible(struct hpcc_law *law)
{
	if (!law->implausible)
		return 0;
	law->implausible = 0;
	return HPCC_EV_IMPLAUSIBLE;
}

/*
 * A new flow's first W: hpcc_law_first_w(), at most B T / first_share and
 * within first_bound times the bytes it has in flight; with first_crowd
 * the share cuts below its flight only a flow that started in a crowd. A
 * probe that left with the flow's first data (probe_first) passed the
 * bottleneck ahead of that data and of the other new flows' initial
 * windows: "no queue" in its report does not mean the path is idle, and
 * 16 new flows each taking the line rate at once fill the buffer;
 * first_share new flows starting together take one B T between them.
 * Within these bounds the law's own steps (max_growth per report) take W
 * to the line rate in a few reports where the path is idle.
 */
static inline uint64_t hpcc_ctl_first_w(const struct hpcc_ctl_params *p,
					const struct hpcc_law_cfg *c,
					const struct hpcc_sample *L,
					unsigned int nhops, uint64_t bdp,
					uint64_t sent, uint64_t srtt_ns,
					bool crowded)
{
	uint64_t w = hpcc_law_first_w(c, L, nhops, bdp, sent);
	uint64_t most, r = HPCC_U_ONE;

	if (p->first_share > 1) {
		most = hpcc_qdiv(bdp, p->first_share, 0);
		if (p->first_crowd && !crowded && most < sent)
			most = sent;
		if (w > most)
			w = most;
	}
	if (!p->first_bound || !sent)
		return w;
	/* R = W / T at most the rate the flow delivers: sent per srtt */
	if (srtt_ns > c->t_ns)
		r = hpcc_qdiv(c->t_ns, srtt_ns, HPCC_U_SHIFT);
	if (sent > HPCC_W_LIMIT)
		sent = HPCC_W_LIMIT;
	most = (sent * (p->first_bound < 1024 ? p->first_bound : 1024) *
		r) >> HPCC_U_SHIFT;
	return w < most ? w : most;
}

/*
 * fair_pull: the law's multiplicative steps keep every ratio between the
 * flows' windows, and W_ai alone pulls them together, by one W_ai per
 * report: 16 new flows beside a flow that already holds the link (an
 * incast) share what it leaves, and it left them 55-65% of the link
 * through their whole burst. With the receiver's N (a version 2
 * response's; meaningful where the receiver's link is the bottleneck,
 * whether or not receiver_flows sets W_ai by it), a flow whose W
 * is above its share eta B T / N (times 1 + fair_slack / 1000) of a path
 * at or above eta gives up fair_pull per mille of the excess per report,
 * W and Wc alike; the freed room shows as U below eta to the other
 * flows, whose law then takes it multiplicatively. Never below the share, never on a path
 * below eta, nothing with one flow. A pull to the share itself trims
 * the steady state's noise from above and the link runs below eta;
 * fair_slack leaves that noise alone. One 64-bit division per report.
 */
static inline void hpcc_ctl_fair_pull(struct hpcc_ctl *s,
				      const struct hpcc_ctl_params *p,
				      const struct hpcc_law_cfg *c,
				      uint64_t bdp, uint32_t flows)
{
	uint64_t fair;

	if (!p->fair_pull || flows < 2 || s->law.u < c->eta)
		return;
	/* the share eta B T / N, and fair_slack per mille above it kept */
	fair = (bdp * c->eta) >> HPCC_U_SHIFT;
	if (fair > HPCC_W_LIMIT)
		fair = HPCC_W_LIMIT;
	/* 2^40 * (1000 + 4000) < 2^53: no wrap */
	fair = hpcc_qdiv(fair * (1000 + p->fair_slack), (uint64_t)flows * 1000,
			 0);
	if (fair < c->w_min)
		fair = c->w_min;
	/* W, Wc <= HPCC_W_LIMIT = 2^40, fair_pull <= 1000: no wrap */
	if (s->law.w > fair) {
		s->law.w -= hpcc_qdiv((s->law.w - fair) * p->fair_pull, 1000, 0);
		s->events |= HPCC_EV_PULLED;
	}
	if (s->law.wc > fair)
		s->law.wc -= hpcc_qdiv((s->law.wc - fair) * p->fair_pull,
				       1000, 0);
}

/*
 * fair_floor: fair_pull's other half. With the receiver's N (a version 2
 * response's), no flow's W stays below fair_floor per mille of its share
 * eta B T / N after a report that shows the path without a queue (none
 * longer than the headroom (1 - eta) B T): the law's multiplicative steps
 * keep the ratios between windows, and an incast's flow that had seen the
 * queue at its peak sat at one packet beside siblings at three, and
 * finished 20-40 ms after them; the incast's long flow, cut to a 17th of
 * the link, regrew by W_ai. Only where the hop that sets U is the last,
 * the receiver's own link, whose flows N counts: a flow whose bottleneck
 * is an earlier hop shares it with flows to other receivers (the parking
 * lot's one-hop flow saw N 1 and took the shared link). Never at a flow's
 * first report: N there may not yet count the flows that start with it,
 * and 16 new flows each lifted to half the link filled the buffer. Never
 * into a queue, nor in loss recovery. At most eta B T with N >= 1, and at
 * most max_growth above W before the report, as the law's own step: a
 * forged N moves a flow no further than a forged U does.
 */
static inline void hpcc_ctl_fair_floor(struct hpcc_ctl *s,
				       const struct hpcc_ctl_params *p,
				       const struct hpcc_tcp_view *tv,
				       const struct hpcc_law_cfg *c,
				       unsigned int nhops, uint64_t q,
				       uint64_t bdp, uint64_t w_before)
{
	uint64_t floor, most;

	if (!p->fair_floor || !tv->flows || tv->recovering ||
	    !s->law.measured || s->law.bottleneck + 1 != nhops ||
	    q > HPCC_U_ONE - c->eta)
		return;
	floor = (bdp * c->eta) >> HPCC_U_SHIFT;
	if (floor > HPCC_W_LIMIT)
		floor = HPCC_W_LIMIT;
	/* 2^40 * 1000 < 2^53: no wrap */
	floor = hpcc_qdiv(floor * p->fair_floor, (uint64_t)tv->flows * 1000,
			  0);
	/* the growth bound holds for the lift as for the law's own step */
	most = hpcc_ctl_growth_most(p, w_before);
	if (floor > most)
		floor = most;
	floor = hpcc_clamp(floor, c->w_min, c->w_max);
	if (s->law.w < floor) {
		s->law.w = floor;
		s->events |= HPCC_EV_PULLED;
	}
	if (s->law.wc < floor)
		s->law.wc = floor;
}

/*
 * NewAck on an accepted report of the probe that left at snd_nxt =
 * probe_seq. A flow without telemetry starts the law first: a new flow at
 * line rate as the draft says, unless the path already queues
 * (hpcc_law_first_w()); a flow coming back from loss-based mode where it
 * is. Then the law within the bounds, and R = W / T capped at the
 * bottleneck. Returns false, changing nothing but the probe schedule, when
 * no hop reports a capacity.
 */
static inline bool hpcc_ctl_report(struct hpcc_ctl *s,
				   const struct hpcc_ctl_params *p,
				   const struct hpcc_tcp_view *tv,
				   const struct hpcc_sample *L,
				   unsigned int nhops, uint32_t probe_seq,
				   uint64_t now)
{
	struct hpcc_sample capped[HPCC_LAW_MAX_HOPS];
	struct hpcc_law_cfg c;
	uint64_t t_ns, bdp, q, w_before, wc_before;
	uint32_t bmin;

	s->events = 0;
	s->unanswered = 0;
	s->awaiting = false;
	s->next_probe_ns = now;		/* the next probe on this very ACK */
	s->t_us = hpcc_ctl_t_us(p, tv->min_rtt_us);
	t_ns = (uint64_t)s->t_us * 1000;
	L = hpcc_ctl_cap(&s->events, p, L, nhops, capped);
	bmin = hpcc_path_mbps(L, nhops);
	bdp = hpcc_bdp(bmin, t_ns);
	if (!bdp) {
		hpcc_ctl_missed(s);
		return false;
	}
	s->misses = 0;
	hpcc_ctl_law_cfg(p, tv->mss, bdp, t_ns, &c);
	q = hpcc_ctl_queue_u(&c, L, nhops);
	if (hpcc_ctl_compete(s, p, &c, L, nhops, q, tv->mss, tv->cwnd, now))
		return true;
	if (!s->telemetry) {
		uint64_t w0;

		uint64_t sent = (uint64_t)(tv->snd_nxt - tv->snd_una) <<
				HPCC_W_SHIFT;

		if (s->started)
			w0 = ((uint64_t)tv->cwnd * tv->mss) << HPCC_W_SHIFT;
		else
			w0 = hpcc_ctl_first_w(p, &c, L, nhops, bdp, sent,
					      tv->srtt_ns, tv->crowded);
		hpcc_law_start(&s->law, &c, w0, tv->snd_nxt);
		/* a cut of the law before fallback is not this law's */
		hpcc_ctl_forget_cut(s);
		s->telemetry = true;
		s->started = true;
		s->cwnd_before = tv->cwnd;
	}
	w_before = s->law.w;
	wc_before = s->law.wc;
	hpcc_law_report(&s->law, &c, L, nhops, probe_seq, tv->snd_nxt);
	s->events |= hpcc_ctl_take_implausible(&s->law);
	hpcc_ctl_hold_growth(s, p, tv, &c, w_before);
	hpcc_ctl_deliv_hold(s, p, tv, &c, w_before, wc_before);
	hpcc_ctl_fair_pull(s, p, &c, bdp, tv->flows);
	hpcc_ctl_fair_floor(s, p, tv, &c, nhops, q, bdp, w_before);
	s->room_q = q;
	s->w_max = c.w_max;
	s->b_mbps = bmin;
	s->last_report_ns = now;
	s->windowed = false;
	s->pacing_rate = hpcc_pacing_rate(s->law.w, t_ns, bmin);
	return true;
}

/* ---- a finished flow's window handed on ---------------------------------- */

/*
 * handoff (a departure, per mille; 1000 by default, 0: the draft): a flow
 * whose sending is done (nothing in flight, nothing queued) while its W
 * is in use leaves handoff per mille of W in a pool of its host's path
 * (per peer, as path_share), and the host's young flows on that path
 * (cwnd_long not yet delivered) take it, each up to the largest W given,
 * within two of the giver's RTTs; after that the pool is gone. RFC 9040's
 * ensemble sharing hands an ended connection's window on in the same way.
 * The path learns of the room only from later reports, a young flow gets
 * one every few RTTs (probe_cost), and at an incast's tail the last flows
 * sat at one MSS of W on a half-idle link (Documentation/tcp_hpcc.rst,
 * Dynamics, handoff). Only the host's own flows fill
 * the pool, at most once each, and a taker rises at most to the largest
 * W given: the pool never carries more than the host's flows had in use.
 */
struct hpcc_handoff_pool {
	uint64_t w;			/* W left, bytes << HPCC_W_SHIFT */
	uint64_t level;			/* the largest W given into it */
	uint64_t until_ns;		/* taken before then, or gone */
};

/* Into the pool: handoff per mille of W, if the flow's W is in use. */
static inline bool hpcc_ctl_handoff_give(struct hpcc_handoff_pool *pool,
					 const struct hpcc_ctl *s,
					 const struct hpcc_ctl_params *p,
					 bool sending, uint64_t now,
					 uint64_t srtt_ns)
{
	uint64_t w;

	if (!p->handoff || !s->telemetry || s->competing || !sending)
		return false;
	/* W <= HPCC_W_LIMIT = 2^40, handoff <= 1000: no wrap */
	w = hpcc_qdiv(s->law.w * (p->handoff < 1000 ? p->handoff : 1000),
		      1000, 0);
	if (!w)
		return false;
	if ((int64_t)(now - pool->until_ns) > 0) {
		pool->w = 0;
		pool->level = 0;
	}
	pool->w = pool->w + w < HPCC_W_LIMIT ? pool->w + w : HPCC_W_LIMIT;
	if (pool->level < w)
		pool->level = w;
	pool->until_ns = now + 2 * srtt_ns;
	return true;
}

/* Whether this flow may take from its path's pool: young, on the law. */
static inline bool hpcc_ctl_handoff_wanted(const struct hpcc_ctl *s,
					   const struct hpcc_ctl_params *p,
					   uint64_t delivered)
{
	return p->handoff && s->telemetry && !s->competing && s->b_mbps &&
	       !hpcc_ctl_long(p, delivered);
}

/* Out of the pool: W and Wc up to the pool's level, within the pool and
 * w_max, so that the law's next step starts from there. Returns the take.
 */
static inline uint64_t hpcc_ctl_handoff_take(struct hpcc_handoff_pool *pool,
					     struct hpcc_ctl *s, uint64_t now)
{
	uint64_t take, most = pool->level < s->w_max ? pool->level : s->w_max;

	if (!pool->w || (int64_t)(now - pool->until_ns) > 0 ||
	    s->law.w >= most)
		return 0;
	take = most - s->law.w;
	if (take > pool->w)
		take = pool->w;
	pool->w -= take;
	s->law.w += take;
	/* W, Wc <= w_max <= HPCC_W_LIMIT = 2^40: no wrap */
	s->law.wc = s->law.wc + take < s->w_max ? s->law.wc + take : s->w_max;
	s->pacing_rate = hpcc_pacing_rate(s->law.w, (uint64_t)s->t_us * 1000,
					  s->b_mbps);
	return take;
}

/* ---- receiver-based HPCC (Rx-HPCC) --------------------------------------- */

/* A window response's record, host order (struct hpcc_window). */
struct hpcc_window_val {
	uint64_t w_bytes;
	uint32_t u;
	uint32_t b_mbps;
};

static inline void hpcc_ctl_decode_window(const void *p,
					  struct hpcc_window_val *v)
{
	const uint8_t *w = (const uint8_t *)p + sizeof(struct hpcc_hdr_v2);

	v->w_bytes = hpcc_get_be64(w);
	v->u = hpcc_get_be32(w + 8);
	v->b_mbps = hpcc_get_be32(w + 12);
}

/*
 * The receiver's state for one connection it computes windows for (the
 * draft's receiver-based HPCC): the law on the records its probes bring
 * (int.L instead of ack.L). Lives in the receiving socket's BPF local
 * storage (hpcc_host.bpf.c); the module's kfunc owns @busy.
 */
struct hpcc_rx_flow {
	uint32_t busy;			/* a kfunc is computing: others wait */
	uint32_t started;		/* law holds this connection's state */
	struct hpcc_law law;
};

/*
 * The receiver's step on a probe that asked for a window: the law on its
 * records (capped as a sender caps a report), with the sender's T from
 * the probe (@t_us; 0: not given) and this host's parameters. The draft
 * commits Wc once T has passed since lastUpdateTime; as in the sender's
 * mode (hpcc_law_report()) the interval the telemetry spans must begin
 * that late, so the law gets time for sequence: arrival in 1024 ns units
 * for probe_seq and arrival + T for snd_nxt. A first probe starts the
 * law at the line rate, or at the law's step from it where the path
 * already queues (hpcc_law_first_w()). Fills @out and returns true, or
 * false when no hop reports a capacity (answer with the records then).
 * Sets HPCC_EV_CAPPED and HPCC_EV_IMPLAUSIBLE in @events for the caller
 * to count, as a sender counts its reports' (hpcc_ctl_report()).
 */
#define HPCC_RX_TIME_SHIFT	10	/* the law's "sequence": ns >> 10 */

static inline bool hpcc_ctl_rx_window(struct hpcc_rx_flow *st,
				      const struct hpcc_ctl_params *p,
				      const struct hpcc_sample *L,
				      unsigned int nhops, uint32_t t_us,
				      uint32_t mss, uint64_t now,
				      struct hpcc_window_val *out,
				      uint32_t *events)
{
	struct hpcc_sample capped[HPCC_LAW_MAX_HOPS];
	struct hpcc_law_cfg c;
	uint64_t t_ns, bdp;
	uint32_t bmin, at, t_q;

	*events = 0;
	if (!t_us || t_us > HPCC_T_LIMIT_US)
		t_us = t_us ? HPCC_T_LIMIT_US : HPCC_DEFAULT_T_US;
	t_ns = (uint64_t)t_us * 1000;
	L = hpcc_ctl_cap(events, p, L, nhops, capped);
	bmin = hpcc_path_mbps(L, nhops);
	bdp = hpcc_bdp(bmin, t_ns);
	if (!bdp)
		return false;
	hpcc_ctl_law_cfg(p, mss ? mss : 1, bdp, t_ns, &c);
	at = (uint32_t)(now >> HPCC_RX_TIME_SHIFT);
	t_q = (uint32_t)(t_ns >> HPCC_RX_TIME_SHIFT);
	if (!st->started) {
		hpcc_law_start(&st->law, &c,
			       hpcc_law_first_w(&c, L, nhops, bdp, bdp), at);
		st->started = 1;
	}
	hpcc_law_report(&st->law, &c, L, nhops, at, at + t_q);
	*events |= hpcc_ctl_take_implausible(&st->law);
	out->w_bytes = st->law.w >> HPCC_W_SHIFT;
	out->u = st->law.u < 0xffffffffULL ? (uint32_t)st->law.u : 0xffffffffU;
	out->b_mbps = bmin;
	return true;
}

/*
 * The sender's NewAck on a receiver's window: honoured as its own W would
 * be, within the same bounds as a report (a receiver gains no control in
 * this mode): B capped at max_mbps, W within [one MSS, 4 B T], a first
 * window at most the line rate B T and, where the window's U says the path
 * queues, the law's step from the flow's bytes in flight (as a first
 * report's; a new flow of an incast has little in flight), growth at most
 * max_growth per window and none in recovery, then R = W / T capped at B.
 * T is the sender's own. Returns false, changing nothing but the probe
 * schedule, when the window names no capacity.
 */
static inline bool hpcc_ctl_window(struct hpcc_ctl *s,
				   const struct hpcc_ctl_params *p,
				   const struct hpcc_tcp_view *tv,
				   const struct hpcc_window_val *win,
				   uint64_t now)
{
	struct hpcc_law_cfg c;
	uint64_t t_ns, bdp, w;
	uint32_t b = win->b_mbps;

	s->events = 0;
	s->unanswered = 0;
	s->awaiting = false;
	s->next_probe_ns = now;
	s->t_us = hpcc_ctl_t_us(p, tv->min_rtt_us);
	t_ns = (uint64_t)s->t_us * 1000;
	if (p->max_mbps && b > p->max_mbps) {
		b = p->max_mbps;
		s->events |= HPCC_EV_CAPPED;
	}
	bdp = hpcc_bdp(b, t_ns);
	if (!bdp) {
		hpcc_ctl_missed(s);
		return false;
	}
	s->misses = 0;
	hpcc_ctl_law_cfg(p, tv->mss, bdp, t_ns, &c);
	w = win->w_bytes < (HPCC_W_LIMIT >> HPCC_W_SHIFT) ?
	    win->w_bytes << HPCC_W_SHIFT : HPCC_W_LIMIT;
	w = hpcc_clamp(w, c.w_min, c.w_max);
	if (!s->telemetry) {
		uint64_t w0 = w < bdp ? w : bdp, sent, step;

		if (s->started) {
			w0 = ((uint64_t)tv->cwnd * tv->mss) << HPCC_W_SHIFT;
		} else if (win->u > c.eta) {
			/* the path queues: at most the law's step from what
			 * this flow has in flight, as for a first report
			 * (hpcc_law_first_w()); the receiver cannot know that
			 */
			sent = (uint64_t)(tv->snd_nxt - tv->snd_una) <<
			       HPCC_W_SHIFT;
			step = hpcc_qdiv(sent * c.eta, win->u, 0);
			if (step < w0)
				w0 = step;
		}
		hpcc_law_start(&s->law, &c, w0, tv->snd_nxt);
		/* a cut of the law before fallback is not this law's */
		hpcc_ctl_forget_cut(s);
		s->telemetry = true;
		s->started = true;
		s->cwnd_before = tv->cwnd;
	} else {
		uint64_t w_before = s->law.w, wc_before = s->law.wc;

		s->law.w = w;
		s->law.wc = w;
		hpcc_ctl_hold_growth(s, p, tv, &c, w_before);
		hpcc_ctl_deliv_hold(s, p, tv, &c, w_before, wc_before);
	}
	s->law.u = win->u;
	s->law.nhops = 0;
	s->room_q = 0;		/* the receiver's window says no queue */
	s->w_max = c.w_max;
	s->b_mbps = b;
	s->events |= HPCC_EV_WINDOW;
	s->windowed = true;
	s->last_report_ns = now;
	s->pacing_rate = hpcc_pacing_rate(s->law.w, t_ns, b);
	return true;
}

/* Probes with HPCC_F_WANT_WINDOW ask for no more once this many in a row
 * went unanswered before any report: a receiver of wire version 2 from
 * before Rx-HPCC drops them as bad_flags (and answers plain ones).
 */
#define HPCC_RX_ASK_TRIES	2

static inline bool hpcc_ctl_want_window(const struct hpcc_ctl *s,
					const struct hpcc_ctl_params *p)
{
	return p->rx_window && !s->window_refused;
}

/* A loss while the law runs (the safety net): W and Wc times loss_beta,
 * remembered for hpcc_ctl_loss_undo(). The law recovers from it at its
 * own pace if telemetry was right.
 */
static inline void hpcc_ctl_loss(struct hpcc_ctl *s,
				 const struct hpcc_ctl_params *p, uint32_t mss)
{
	uint64_t w_min = (uint64_t)mss << HPCC_W_SHIFT;

	if (!s->telemetry || !p->loss_beta || p->loss_beta >= 1000)
		return;
	s->loss_w = s->law.w;
	s->loss_wc = s->law.wc;
	s->law.w = hpcc_qdiv(s->law.w * p->loss_beta, 1000, 0);
	s->law.wc = hpcc_qdiv(s->law.wc * p->loss_beta, 1000, 0);
	if (s->law.w < w_min)
		s->law.w = w_min;
	if (s->law.wc < w_min)
		s->law.wc = w_min;
}

/* @now over loss_beta, but never below @now nor above @before or the
 * law's @w_max (0: none) for the path of the last report
 */
static inline uint64_t hpcc_loss_restore(uint64_t now, uint64_t before,
					 uint32_t loss_beta, uint64_t w_max)
{
	uint64_t w = hpcc_qdiv(now * 1000, loss_beta, 0);

	if (w > before)
		w = before;
	if (w_max && w > w_max)
		w = w_max;
	return w > now ? w : now;
}

/*
 * loss_undo: the stack found the loss spurious (DSACKs for every
 * retransmission, F-RTO, RACK): packets reordered on the way, not lost,
 * and TCP takes back its own cwnd reduction (tcp_undo_cwnd_reduction()).
 * The law takes back loss_beta's cut the same way: W and Wc over
 * loss_beta, so that reports used since keep their effect, and never
 * above what the cut began with nor above the last report's w_max (a
 * report since, on a smaller path, bounded W there). Without it a flow
 * that reordering cut to a few packets stays there until its reports
 * regrow it (a 64 KB incast flow at one MSS per RTT: 45 RTTs). Returns
 * true if W was given back.
 */
static inline bool hpcc_ctl_loss_undo(struct hpcc_ctl *s,
				      const struct hpcc_ctl_params *p)
{
	bool undone = p->loss_undo && s->telemetry && s->loss_w &&
		      p->loss_beta && p->loss_beta < 1000;

	if (undone) {
		s->law.w = hpcc_loss_restore(s->law.w, s->loss_w,
					     p->loss_beta, s->w_max);
		s->law.wc = hpcc_loss_restore(s->law.wc, s->loss_wc,
					      p->loss_beta, s->w_max);
	}
	hpcc_ctl_forget_cut(s);
	return undone;
}

/*
 * Leaving telemetry for loss-based control: the state from before
 * telemetry, so that telemetry that throttled the flow (to one MSS, say)
 * does not leave it crawling in congestion avoidance: slow start from at
 * least the initial window, up to the window it had before or has now.
 * The probes' backoff starts here: the misses that ended telemetry were
 * retried unbacked, and carrying their count over made a burst of probe
 * loss wait 3 << 4 = 48 RTTs for the next probe.
 */
#define HPCC_INIT_CWND		10

static inline void hpcc_ctl_fallback(struct hpcc_ctl *s, uint32_t *cwnd,
				     uint32_t *ssthresh)
{
	uint32_t before = s->cwnd_before;

	s->telemetry = false;
	s->unanswered = 0;
	*ssthresh = *cwnd > before ? *cwnd : before;
	if (*ssthresh < HPCC_MIN_CWND)
		*ssthresh = HPCC_MIN_CWND;
	if (*cwnd < HPCC_INIT_CWND)
		*cwnd = HPCC_INIT_CWND;
}

/* ---- fallback and output ------------------------------------------------- */

/* The end of an ACK's work: one that leaves nothing in flight starts an
 * idle period, unless one has begun.
 */
static inline void hpcc_ctl_ack_done(struct hpcc_ctl *s, bool in_flight,
				     uint64_t now)
{
	if (in_flight) {
		s->idle = false;
	} else if (!s->idle) {
		s->idle = true;
		s->idle_ns = now;
	}
}

/*
 * The flow sends with nothing in flight (the stack's CA_EVENT_TX_START).
 * After an RTT or more of idle that is a restart: true, and the wait for
 * a probe counts from now. Less (an ACK-clocked flow whose every ACK
 * covers its flight) was no idle.
 */
static inline bool hpcc_ctl_tx_start(struct hpcc_ctl *s, uint64_t now,
				     uint64_t srtt_ns)
{
	bool restart = s->idle &&
		       (int64_t)(now - s->idle_ns) >= (int64_t)srtt_ns;

	if (restart)
		s->restart_ns = now;
	s->idle = false;
	return restart;
}

/* cwnd in segments from W: cwnd_gain * W less the last report's queue in
 * B T (queue_room), at least W, within [2, clamp].
 */
static inline uint32_t hpcc_ctl_cwnd(const struct hpcc_ctl *s,
				     const struct hpcc_ctl_params *p,
				     uint32_t mss, uint32_t clamp,
				     uint64_t delivered)
{
	uint64_t g = (uint64_t)hpcc_ctl_gain(p, delivered) << HPCC_U_SHIFT;
	uint64_t w;
	uint32_t cwnd;

	/* queue_room: the room above W is for an RTT above T that is not
	 * queueing; a queue the last report saw is no room
	 */
	if (p->queue_room && g > HPCC_U_ONE)
		g -= s->room_q < g - HPCC_U_ONE ? s->room_q : g - HPCC_U_ONE;
	/* W < 2^32 bytes, g <= 8 << HPCC_U_SHIFT: no wrap */
	w = ((s->law.w >> HPCC_W_SHIFT) * g) >> HPCC_U_SHIFT;

	cwnd = (uint32_t)(w < 0xffffffffU ? w : 0xffffffffU) / (mss ? mss : 1);

	if (cwnd > clamp)
		cwnd = clamp;
	return cwnd < HPCC_MIN_CWND ? HPCC_MIN_CWND : cwnd;
}

/*
 * Loss-based mode's two rules of its own (tcp_hpcc.c's hpcc_reno(); Reno's
 * slow start and additive increase are the stack's, tcp_reno_cong_avoid()).
 * In recovery or CWR, packet conservation: cwnd at most what is in flight
 * plus what this ACK delivered (at least 1), never below HPCC_MIN_CWND.
 */
static inline uint32_t hpcc_ctl_conserve_cwnd(uint32_t cwnd,
					      uint32_t in_flight,
					      int32_t acked_sacked)
{
	uint32_t conserve = in_flight +
			    (acked_sacked > 1 ? (uint32_t)acked_sacked : 1);

	cwnd = cwnd < conserve ? cwnd : conserve;
	return cwnd > HPCC_MIN_CWND ? cwnd : HPCC_MIN_CWND;
}

/*
 * start_hold: a new flow keeps to the initial window until its first
 * report starts the law (which sets W from the path: line rate when idle,
 * the law's step when queued), instead of Reno's slow start into a queue
 * it cannot see. Released once the first probe is counted lost (a path
 * without HPCC), and never again after telemetry has run.
 */
static inline uint32_t hpcc_ctl_start_cwnd(const struct hpcc_ctl *s,
					   const struct hpcc_ctl_params *p,
					   uint32_t cwnd)
{
	if (!p->start_hold || s->started || s->competing || s->unanswered)
		return cwnd;
	return cwnd < HPCC_INIT_CWND ? cwnd : HPCC_INIT_CWND;
}

/* The stack's pacing rule: mss * max(cwnd, packets_out) / srtt, bytes/s,
 * x2 in slow start and x1.2 (1229 / 1024) after.
 */
static inline uint64_t hpcc_ctl_reno_pacing_rate(uint32_t mss, uint32_t cwnd,
						 uint32_t packets_out,
						 uint64_t srtt_ns,
						 bool slow_start)
{
	uint64_t rate = (uint64_t)mss *
			(cwnd > packets_out ? cwnd : packets_out) *
			1000000000ULL;

	rate = hpcc_qdiv(rate, srtt_ns, 0);
	return slow_start ? rate * 2 : (rate * 1229) >> 10;
}

/* ---- reports shared on a path -------------------------------------------- */

/*
 * path_share: the hop records of a report describe ports, not flows, so
 * any report of a path serves every flow that crosses the same ports. A
 * host keeps the latest accepted report per peer; a flow whose own last
 * report is half an RTT old runs the law on a newer one of its peer,
 * provided the report names the very hops of its own last report (with
 * ECMP another 5-tuple may take other ports), and then defers its own
 * probe: a path of many flows is probed about as often as one of few, and
 * a flow too small to afford its own probes (at w_min after an incast)
 * still gets a report per RTT. The same bounds apply as to its own.
 */
struct hpcc_path_report {
	uint64_t stamp_ns;		/* when the host accepted it; 0: none */
	uint32_t nhops;
	struct hpcc_sample L[HPCC_LAW_MAX_HOPS];
};

static inline bool hpcc_ctl_path_usable(const struct hpcc_ctl *s,
					const struct hpcc_ctl_params *p,
					const struct hpcc_path_report *r,
					uint64_t now, uint64_t srtt_ns)
{
	unsigned int i;

	if (!p->path_share || !s->telemetry || !s->law.measured ||
	    s->windowed || !r->stamp_ns || !r->nhops ||
	    r->nhops != s->law.nhops || r->nhops > HPCC_LAW_MAX_HOPS)
		return false;
	if ((int64_t)(r->stamp_ns - s->last_report_ns) <= 0 ||
	    (int64_t)(now - s->last_report_ns) < (int64_t)(srtt_ns / 2))
		return false;
	for (i = 0; i < r->nhops; i++)
		if (!hpcc_same_hop(&r->L[i], &s->law.prev[i]))
			return false;
	return true;
}

/*
 * NewAck on a usable path report (hpcc_ctl_path_usable()): the draft's
 * per-ACK form, the ACK's sequence (snd_una) in place of a probe's. The
 * flow's own probe, if out, keeps its timeout; otherwise the next one
 * waits two RTTs, by which time the path's next report has come.
 */
static inline bool hpcc_ctl_path_report(struct hpcc_ctl *s,
					const struct hpcc_ctl_params *p,
					const struct hpcc_tcp_view *tv,
					const struct hpcc_path_report *r,
					uint64_t now)
{
	uint64_t next = s->next_probe_ns;
	bool awaiting = s->awaiting;
	uint32_t unanswered = s->unanswered;
	bool used;

	used = hpcc_ctl_report(s, p, tv, r->L, r->nhops, tv->snd_una, now);
	s->awaiting = awaiting;
	s->unanswered = unanswered;
	s->next_probe_ns = awaiting ? next : now + 2 * tv->srtt_ns;
	return used;
}

/* A report the flow used: the path's latest, if it is newer. */
static inline void hpcc_ctl_path_store(struct hpcc_path_report *r,
				       const struct hpcc_sample *L,
				       unsigned int nhops, uint64_t now)
{
	unsigned int i;

	if (!nhops || nhops > HPCC_LAW_MAX_HOPS)
		return;
	for (i = 0; i < nhops; i++)
		r->L[i] = L[i];
	r->nhops = nhops;
	r->stamp_ns = now;
}

/* ---- probes -------------------------------------------------------------- */

/*
 * probe_cost: with the law running, the next probe waits until the flow
 * has sent HPCC_PROBE_WIRE_BYTES * 2 (probe and response) * 1000 /
 * probe_cost bytes since the last one, so that probing costs at most
 * probe_cost per mille of the flow's own traffic however many flows
 * share a link (one per RTT costs a flow of W bytes 326 / W on its path
 * and as much on the way back: 2% of a 100 Mbit/s link for 3 flows at
 * 4.6 ms, 18% for 32). A flow without an estimate yet probes at once.
 * Never longer than telemetry_timeout - 2 RTTs (half of it up to 4) after
 * the last report, so that the budget never makes telemetry time out.
 * Nor while U is below probe_free per mille: the path has room for the
 * probes, and a flow that a transient queue cut to a few packets (an
 * incast's long flow) then regrows in a few RTTs, not one report per 6
 * RTTs.
 */
static inline bool hpcc_ctl_probe_affordable(const struct hpcc_ctl *s,
					     const struct hpcc_ctl_params *p,
					     uint64_t now, uint64_t srtt_ns,
					     uint32_t snd_nxt)
{
	uint32_t need, most;

	if (!p->probe_cost || !s->telemetry || s->unanswered)
		return true;
	/* U <= HPCC_U_MAX = 2^40: no wrap */
	if (s->law.measured &&
	    s->law.u * 1000 < ((uint64_t)p->probe_free << HPCC_U_SHIFT))
		return true;
	need = HPCC_PROBE_WIRE_BYTES * 2 * 1000 / p->probe_cost;
	if (snd_nxt - s->probe_nxt >= need)
		return true;
	most = p->telemetry_timeout > 4 ? p->telemetry_timeout - 2 :
	       (p->telemetry_timeout + 1) / 2;
	return (int64_t)(now - s->last_report_ns) >= (int64_t)(most * srtt_ns);
}

/*
 * One probe per flow outstanding, sent while data is in flight: the next
 * goes out on the first ACK after the response, or after a timeout of a
 * few RTTs, backing off while probes stay unanswered on a path without
 * telemetry (a receiver without the reflector) so that such a path costs
 * almost nothing; within the probe budget.
 */
static inline bool hpcc_ctl_probe_due(const struct hpcc_ctl *s,
				      const struct hpcc_ctl_params *p,
				      uint64_t now, uint64_t srtt_ns,
				      bool sending, uint32_t snd_nxt)
{
	return sending && (int64_t)(now - s->next_probe_ns) >= 0 &&
	       hpcc_ctl_probe_affordable(s, p, now, srtt_ns, snd_nxt);
}

/*
 * Telemetry has stopped: no report for telemetry_timeout RTTs (probes are
 * not retried faster than HPCC_PROBE_MIN_TIMEOUT_NS, so never sooner than
 * that many of those), and either HPCC_TELEMETRY_MISSES probes in a row
 * brought nothing (a probe lost here and there is not an outage) or none
 * was out while the flow sent and none may go on this ACK (held by
 * probe_limit, or its send failed). A probe that may go now is no
 * outage: probe_cost holds one until telemetry_timeout - 2 RTTs after the
 * last report, and the ACK that sends it can come after the deadline
 * (ACKs a stall apart, or srtt shorter than when the hold began). A flow
 * with nothing in flight could not probe: its idle is not an outage, and
 * after a restart (hpcc_ctl_tx_start()) the wait for a probe counts from
 * the restart. Signed: the report may have been stamped with another
 * CPU's clock.
 */
static inline bool hpcc_ctl_telemetry_lost(const struct hpcc_ctl *s,
					   const struct hpcc_ctl_params *p,
					   uint64_t now, uint64_t srtt_ns,
					   uint32_t snd_nxt)
{
	uint64_t rtt = srtt_ns > HPCC_PROBE_MIN_TIMEOUT_NS ?
		       srtt_ns : HPCC_PROBE_MIN_TIMEOUT_NS;
	int64_t limit = (int64_t)(p->telemetry_timeout * rtt);

	if (!s->telemetry || (int64_t)(now - s->last_report_ns) <= limit)
		return false;
	if (s->misses >= HPCC_TELEMETRY_MISSES)
		return true;
	return !s->awaiting && !s->idle &&
	       (int64_t)(now - s->restart_ns) > limit &&
	       !hpcc_ctl_probe_due(s, p, now, srtt_ns, true, snd_nxt);
}

/* probe_first: the first probe leaves with the flow's first data (the
 * stack's CA_EVENT_TX_START), a round trip before the first ACK would send
 * it, so that the first report comes back with the first ACKs.
 */
static inline bool hpcc_ctl_probe_first(const struct hpcc_ctl *s,
					const struct hpcc_ctl_params *p)
{
	return p->probe_first && !s->probed && !s->started;
}

/* probe_first, after idle: on a restart (hpcc_ctl_tx_start()) with a
 * probe due, the probe leaves with the data, so that the restart's first
 * ACKs bring a report rather than the one from before the idle.
 */
static inline bool hpcc_ctl_probe_restart(const struct hpcc_ctl *s,
					  const struct hpcc_ctl_params *p,
					  uint64_t now, uint64_t srtt_ns,
					  uint32_t snd_nxt)
{
	return p->probe_first && s->telemetry &&
	       hpcc_ctl_probe_due(s, p, now, srtt_ns, true, snd_nxt);
}

/* The outstanding probe is overdue: it counts as lost, once. */
static inline void hpcc_ctl_probe_lost(struct hpcc_ctl *s)
{
	s->awaiting = false;
	hpcc_ctl_missed(s);
	if (s->unanswered < HPCC_PROBE_MAX_BACKOFF)
		s->unanswered++;
	if (s->asking && !s->started && s->unanswered >= HPCC_RX_ASK_TRIES)
		s->window_refused = true;
}

/* A probe left: the next one after the timeout at the latest, backed off
 * on a path without telemetry; with telemetry a lost probe is retried
 * within telemetry_timeout, before the flow would give up on the path.
 */
static inline void hpcc_ctl_probe_sent(struct hpcc_ctl *s, uint64_t now,
				       uint64_t srtt_ns, uint32_t snd_nxt)
{
	uint64_t timeout = HPCC_PROBE_TIMEOUT_RTTS * srtt_ns;

	s->probed = true;
	s->awaiting = true;
	s->probe_nxt = snd_nxt;
	if (timeout < HPCC_PROBE_MIN_TIMEOUT_NS)
		timeout = HPCC_PROBE_MIN_TIMEOUT_NS;
	if (!s->telemetry)
		timeout <<= s->unanswered;
	s->next_probe_ns = now + timeout;
}

/* A probe refused before it left (budget, memory, route): not a loss and
 * no reason to back off; retried an RTT later.
 */
static inline void hpcc_ctl_probe_held(struct hpcc_ctl *s, uint64_t now,
				       uint64_t srtt_ns)
{
	s->next_probe_ns = now + srtt_ns;
}

#endif /* _HPCC_CTL_H */
