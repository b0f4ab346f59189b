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
/* cwnd = HPCC_CWND_GAIN * W: the rate is R = W / T, paced; the window only
 * bounds inflight, with room for an RTT above T that is not queueing (host
 * and NIC delays), as the reference simulator bounds its rate-based flows
 * by the network's max RTT rather than their own base RTT.
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
/* ...and unanswered probes back off exponentially up to 2^6 timeouts. */
#define HPCC_PROBE_MAX_BACKOFF	6

/* The operator's parameters (tcp_hpcc's module parameters), as read once
 * for each use.
 */
struct hpcc_ctl_params {
	uint32_t eta_permille;		/* 500..1000 */
	uint32_t max_stage;
	uint32_t ewma_rtts;		/* >= 1 */
	uint32_t w_ai_bytes;		/* 0: BDP (1 - eta) / expected_flows */
	uint32_t expected_flows;	/* >= 1 */
	uint32_t base_rtt_us;		/* 0: the flow's min RTT */
	uint32_t telemetry_timeout;	/* RTTs without telemetry */
	/* Bounds on what a report can do to a flow (security: whoever
	 * answers a probe steers the flow). 0 in each: the draft, unbounded.
	 */
	uint32_t max_mbps;		/* largest capacity a hop may claim */
	uint32_t max_growth;		/* W's increase per report, per mille */
	uint32_t loss_beta;		/* W's factor on a loss, per mille */
};

/* What the controller reads of the TCP connection. */
struct hpcc_tcp_view {
	uint32_t mss;			/* bytes, > 0 */
	uint32_t snd_nxt;
	uint32_t snd_una;
	uint32_t cwnd;			/* segments */
	uint32_t min_rtt_us;		/* ~0U: no sample yet */
	uint64_t srtt_ns;		/* smoothed RTT; a default without one */
	bool recovering;		/* in loss recovery (or CWR) */
};

/* A flow's controller state; owned by its ACK path. */
struct hpcc_ctl {
	struct hpcc_law law;
	uint64_t pacing_rate;		/* R = W / T, bytes/s, capped at B */
	uint64_t last_report_ns;	/* last report the law used */
	uint64_t next_probe_ns;		/* earliest time for the next probe */
	uint32_t t_us;			/* T in force */
	uint32_t unanswered;		/* probes lost in a row */
	uint32_t cwnd_before;		/* cwnd (segments) when telemetry began */
	uint32_t events;		/* HPCC_EV_* of the last report */
	bool telemetry;			/* the law owns cwnd and pacing */
	bool started;			/* telemetry has run before */
};

/* What a report's bounds did (hpcc_ctl.events), for the counters. */
#define HPCC_EV_CAPPED		0x01	/* a hop claimed more than max_mbps */
#define HPCC_EV_GROWTH_HELD	0x02	/* W grew more than max_growth
					 * allows, or at all in recovery
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

/* ---- consuming a report -------------------------------------------------- */

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
	c->eta = (uint32_t)hpcc_qdiv(p->eta_permille, 1000, HPCC_U_SHIFT);
	c->max_stage = p->max_stage;
	c->ewma_rtts = p->ewma_rtts;
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
hpcc_ctl_cap(struct hpcc_ctl *s, const struct hpcc_ctl_params *p,
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
			s->events |= HPCC_EV_CAPPED;
		}
	}
	return out;
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

	if (tv->recovering)
		most = w_before;
	else if (p->max_growth)
		most = w_before + hpcc_qdiv(w_before * p->max_growth, 1000, 0);
	else
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
	uint64_t t_ns, bdp, w_before;
	uint32_t bmin;

	s->events = 0;
	s->unanswered = 0;
	s->next_probe_ns = now;		/* the next probe on this very ACK */
	s->t_us = hpcc_ctl_t_us(p, tv->min_rtt_us);
	t_ns = (uint64_t)s->t_us * 1000;
	L = hpcc_ctl_cap(s, p, L, nhops, capped);
	bmin = hpcc_path_mbps(L, nhops);
	bdp = hpcc_bdp(bmin, t_ns);
	if (!bdp)
		return false;
	hpcc_ctl_law_cfg(p, tv->mss, bdp, t_ns, &c);
	if (!s->telemetry) {
		uint64_t w0;

		if (s->started)
			w0 = ((uint64_t)tv->cwnd * tv->mss) << HPCC_W_SHIFT;
		else
			w0 = hpcc_law_first_w(&c, L, nhops, bdp,
					      (uint64_t)(tv->snd_nxt -
							 tv->snd_una) <<
					      HPCC_W_SHIFT);
		hpcc_law_start(&s->law, &c, w0, tv->snd_nxt);
		s->telemetry = true;
		s->started = true;
		s->cwnd_before = tv->cwnd;
	}
	w_before = s->law.w;
	hpcc_law_report(&s->law, &c, L, nhops, probe_seq, tv->snd_nxt);
	hpcc_ctl_hold_growth(s, p, tv, &c, w_before);
	s->last_report_ns = now;
	s->pacing_rate = hpcc_pacing_rate(s->law.w, t_ns, bmin);
	return true;
}

/* A loss while the law runs (the safety net): W and Wc times loss_beta.
 * The law recovers from it at its own pace if telemetry was right.
 */
static inline void hpcc_ctl_loss(struct hpcc_ctl *s,
				 const struct hpcc_ctl_params *p, uint32_t mss)
{
	uint64_t w_min = (uint64_t)mss << HPCC_W_SHIFT;

	if (!s->telemetry || !p->loss_beta || p->loss_beta >= 1000)
		return;
	s->law.w = hpcc_qdiv(s->law.w * p->loss_beta, 1000, 0);
	s->law.wc = hpcc_qdiv(s->law.wc * p->loss_beta, 1000, 0);
	if (s->law.w < w_min)
		s->law.w = w_min;
	if (s->law.wc < w_min)
		s->law.wc = w_min;
}

/*
 * Leaving telemetry for loss-based control: the state from before
 * telemetry, so that telemetry that throttled the flow (to one MSS, say)
 * does not leave it crawling in congestion avoidance: slow start from at
 * least the initial window, up to the window it had before or has now.
 */
#define HPCC_INIT_CWND		10

static inline void hpcc_ctl_fallback(struct hpcc_ctl *s, uint32_t *cwnd,
				     uint32_t *ssthresh)
{
	uint32_t before = s->cwnd_before;

	s->telemetry = false;
	*ssthresh = *cwnd > before ? *cwnd : before;
	if (*ssthresh < HPCC_MIN_CWND)
		*ssthresh = HPCC_MIN_CWND;
	if (*cwnd < HPCC_INIT_CWND)
		*cwnd = HPCC_INIT_CWND;
}

/* ---- fallback and output ------------------------------------------------- */

/*
 * Telemetry has stopped: no report for telemetry_timeout RTTs (probes are
 * not retried faster than HPCC_PROBE_MIN_TIMEOUT_NS, so never sooner than
 * that many of those). Signed: the report may have been stamped with
 * another CPU's clock.
 */
static inline bool hpcc_ctl_telemetry_lost(const struct hpcc_ctl *s,
					   const struct hpcc_ctl_params *p,
					   uint64_t now, uint64_t srtt_ns)
{
	uint64_t rtt = srtt_ns > HPCC_PROBE_MIN_TIMEOUT_NS ?
		       srtt_ns : HPCC_PROBE_MIN_TIMEOUT_NS;

	return s->telemetry &&
	       (int64_t)(now - s->last_report_ns) >
	       (int64_t)(p->telemetry_timeout * rtt);
}

/* cwnd in segments from W: HPCC_CWND_GAIN * W, within [2, clamp]. */
static inline uint32_t hpcc_ctl_cwnd(const struct hpcc_ctl *s, uint32_t mss,
				     uint32_t clamp)
{
	uint64_t w = (s->law.w >> HPCC_W_SHIFT) * HPCC_CWND_GAIN;
	uint32_t cwnd = (uint32_t)(w < 0xffffffffU ? w : 0xffffffffU) /
			(mss ? mss : 1);

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

/* ---- probes -------------------------------------------------------------- */

/*
 * One probe per flow outstanding, sent while data is in flight: the next
 * goes out on the first ACK after the response, or after a timeout of a
 * few RTTs, backing off while probes stay unanswered (a receiver without
 * the reflector) so that such a path costs almost nothing.
 */
static inline bool hpcc_ctl_probe_due(const struct hpcc_ctl *s, uint64_t now,
				      bool sending)
{
	return sending && (int64_t)(now - s->next_probe_ns) >= 0;
}

/* The outstanding probe is overdue: it counts as lost, once. */
static inline void hpcc_ctl_probe_lost(struct hpcc_ctl *s)
{
	if (s->unanswered < HPCC_PROBE_MAX_BACKOFF)
		s->unanswered++;
}

/* A probe left: the next one after the (backed-off) timeout at the latest. */
static inline void hpcc_ctl_probe_sent(struct hpcc_ctl *s, uint64_t now,
				       uint64_t srtt_ns)
{
	uint64_t timeout = HPCC_PROBE_TIMEOUT_RTTS * srtt_ns;

	if (timeout < HPCC_PROBE_MIN_TIMEOUT_NS)
		timeout = HPCC_PROBE_MIN_TIMEOUT_NS;
	s->next_probe_ns = now + (timeout << s->unanswered);
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
