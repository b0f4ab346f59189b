/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The HPCC++ window law of draft-pan-tsvwg-hpccplus section 4.2
 * (MeasureInflight, ComputeWind, NewAck) in integer fixed point.
 *
 * Pure C with no kernel headers, no floating point and no division wider
 * than 32 bits, so the very same code runs in tcp_hpcc.ko and in the
 * userspace unit tests (tests/unit/), where it is checked against a
 * double-precision model of the draft's pseudocode.
 *
 * Fixed-point scales (see Documentation/tcp_hpcc.rst):
 *   U, u', eta     HPCC_U_SHIFT: 1.0 == 1 << 20, saturating at HPCC_U_MAX
 *   W, Wc, W_ai    bytes << HPCC_W_SHIFT (1/256 byte resolution)
 *   T, ts          nanoseconds
 *   B              Mbit/s, as carried on the wire
 *
 * Userspace compiles it too, so it keeps <stdint.h>'s types (uint64_t, not
 * u64; scripts/lint.sh checks it --strict but for PREFER_KERNEL_TYPES).
 */
#ifndef _HPCC_LAW_H
#define _HPCC_LAW_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#include <linux/limits.h>
#ifndef UINT64_MAX
#define UINT64_MAX	U64_MAX
#endif
#ifndef UINT32_MAX
#define UINT32_MAX	U32_MAX
#endif
#else
#include <stdbool.h>
#include <stdint.h>
#ifndef BIT_ULL
#define BIT_ULL(nr)	(1ULL << (nr))
#endif
#endif

#define HPCC_LAW_MAX_HOPS	8

#define HPCC_U_SHIFT		20
#define HPCC_U_ONE		BIT_ULL(HPCC_U_SHIFT)
/* 2^20 times overloaded is as bad as it gets; keeps every product < 2^63. */
#define HPCC_U_MAX		(HPCC_U_ONE << 20)

#define HPCC_W_SHIFT		8
/* Largest window the law represents: 2^32 bytes (4 GiB). */
#define HPCC_W_LIMIT		BIT_ULL(32 + HPCC_W_SHIFT)

/* Largest base RTT the law accepts: 2^30 ns (about 1.07 s). */
#define HPCC_T_LIMIT_NS		BIT_ULL(30)

/*
 * A hop sample is ignored, and only remembered, when it is this far from the
 * previous one: a clock gap above 2^32 ns (4.3 s: the flow was idle or probes
 * were lost) or a byte count that went backwards (a counter reset, which
 * reads as a huge unsigned delta). Normal wrap-around of the counters is
 * handled by unsigned subtraction.
 */
#define HPCC_MAX_GAP_NS		BIT_ULL(32)
#define HPCC_MAX_DTX_BYTES	BIT_ULL(50)

/*
 * Nor when the bytes it sent since the previous one exceed 16 times what its
 * capacity allows in that time (txRate / B, HPCC_U_SHIFT). A tbf's bucket
 * and the stamps' clock put a genuine sample within a few times B but for
 * the rare pair a few microseconds apart; a larger one mostly pairs two
 * counters that are not the same port's, as when a forged
 * record (a lying receiver's, lent to its other flows by path_share) comes
 * between two genuine ones: its tx_bytes of 0 against the port's count
 * read as the port's whole history sent in one interval (u' in the
 * thousands, every flow to that peer cut to w_min while the link idled).
 */
#define HPCC_TX_U_MAX		(16ULL << HPCC_U_SHIFT)

/* B is in Mbit/s; B bytes/ns = rate_mbps / 8000. */
#define HPCC_MBPS_PER_BYTE_NS	8000ULL

/* One hop's telemetry, host byte order. */
struct hpcc_sample {
	uint64_t ts_ns;
	uint64_t tx_bytes;	/* anon: the port's busy time, ns */
	uint32_t qlen;		/* anon: the queue's drain time, ns */
	uint32_t rate_mbps;	/* anon: the capacity assumed (bounds only) */
	uint32_t switch_id;
	uint32_t port_id;
	uint32_t anon;		/* an anonymised record (HPCC_F_ANON) */
	/* the law's own, in prev[] only (in what was padding, so the
	 * receiver's state keeps its size): with hop_ewma, this hop's
	 * average u' (HPCC_U_SHIFT, up to HPCC_HOP_U_MAX) or HPCC_HOP_U_NONE
	 */
	uint32_t u_avg;
};

#define HPCC_AI_SPAN_SHIFT	10	/* ai_span in ns >> 10 */
#define HPCC_AI_TIME_MAX	8	/* ai_time: at most 8 W_ai a commit */
#define HPCC_HOP_U_NONE		UINT32_MAX
#define HPCC_HOP_U_MAX		(UINT32_MAX - 1)	/* u' of 4096 */

struct hpcc_law_cfg {
	uint64_t t_ns;		/* T, base RTT, 1..HPCC_T_LIMIT_NS */
	uint64_t q_t_ns;	/* T of U's queue term, the same for every
				 * flow of a network (the draft's one T);
				 * 0: t_ns, the flow's own
				 */
	uint32_t eta;		/* target utilisation, HPCC_U_SHIFT, > 0 */
	uint32_t max_stage;	/* additive-increase stages before MI */
	uint32_t ewma_rtts;	/* EWMA horizon of U in T, >= 1 (draft: 1) */
	uint32_t hop_ewma;	/* 1: U = max_i EWMA(u'_i); 0: EWMA(max_i u'_i) */
	uint32_t rate_ewma;	/* hop_ewma: 1: only txRate_i / B_i averaged */
	uint32_t ai_time;	/* 1: W_ai per 2 T of telemetry below eta */
	uint32_t law_time;	/* 1: the law steps per time of the T of U's
				 * queue term, not per commit
				 * (hpcc_law_step())
				 */
	uint32_t ewma_span;	/* 1: tau clamped to ewma_rtts T; 2: only
				 * for a sample below the average; 3: only
				 * past half of it; 0: to T
				 */
	uint32_t qmin_span;	/* min(qlen, prev qlen) only over at most this
				 * many T; 0: always (draft)
				 */
	uint32_t first_qmin;	/* 1: a flow's first sample is no min
				 * reference; 0: it is (draft)
				 */
	uint64_t w_ai;		/* additive increase, bytes << W_SHIFT */
	uint64_t w_min;		/* W bounds, bytes << W_SHIFT, */
	uint64_t w_max;		/* 0 < w_min <= w_max <= HPCC_W_LIMIT */
};

struct hpcc_law {
	uint64_t u;		/* U, EWMA of max normalised inflight */
	uint64_t w;		/* W, window in force */
	uint64_t wc;		/* Wc, reference window */
	uint32_t inc_stage;
	uint32_t last_update_seq;
	uint32_t prev_seq;	/* snd_nxt when prev[]'s probe left */
	uint32_t nhops;		/* samples in prev[] */
	uint32_t bottleneck;	/* hop that set u in the last update */
	uint32_t measured;	/* U holds a measurement, not the start 1 */
	uint32_t ai_span;	/* ai_time, law_time: tau since the last
				 * commit, ns >> 10
				 */
	uint32_t implausible;	/* hop samples over HPCC_TX_U_MAX; the
				 * caller counts and clears it
				 */
	struct hpcc_sample prev[HPCC_LAW_MAX_HOPS];
};

static inline int hpcc_fls64(uint64_t x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/*
 * 2^63 / d for d in [2^31, 2^32): a 16-bit seed from one 32/32-bit division,
 * refined by one Newton-Raphson step to a relative error below 2^-28.
 */
static inline uint32_t hpcc_recip32(uint32_t d)
{
	const uint64_t two63 = 1ULL << 63;
	uint64_t x = (uint64_t)(0xffffffffU / (d >> 16)) << 15;
	uint64_t p = (uint64_t)d * x;

	/* x' = x + x * (2^63 - d * x) / 2^63, with |2^63 - d * x| < 2^49 */
	if (p <= two63)
		x += (x * ((two63 - p) >> 20)) >> 43;
	else
		x -= (x * ((p - two63) >> 20)) >> 43;
	return x > 0xffffffffU ? 0xffffffffU : (uint32_t)x;
}

/*
 * (n << shift) / d rounded to nearest, relative error below 2^-27, without a
 * 64-bit division. Saturates at UINT64_MAX, including for d == 0.
 */
static inline uint64_t hpcc_qdiv(uint64_t n, uint64_t d, unsigned int shift)
{
	int ln, ld, e;
	uint32_t n32, d32;
	uint64_t q;

	if (!n)
		return 0;
	if (!d)
		return UINT64_MAX;
	ln = hpcc_fls64(n);
	ld = hpcc_fls64(d);
	n32 = ln > 32 ? n >> (ln - 32) : n << (32 - ln);
	d32 = ld > 32 ? d >> (ld - 32) : d << (32 - ld);
	/* n32 / d32 is in (1/2, 2): q = (n32 / d32) << 63 is in (2^62, 2^64) */
	q = (uint64_t)n32 * hpcc_recip32(d32);
	e = ln - ld + (int)shift - 63;
	if (e >= 0) {
		if (e > 63 || q > (UINT64_MAX >> e))
			return UINT64_MAX;
		return q << e;
	}
	if (e < -64)
		return 0;
	q >>= -e - 1;
	return (q >> 1) + (q & 1);
}

static inline uint64_t hpcc_clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Whether two samples are of the same port, stamped the same way. */
static inline bool hpcc_same_hop(const struct hpcc_sample *a,
				 const struct hpcc_sample *b)
{
	return a->switch_id == b->switch_id && a->port_id == b->port_id &&
	       a->anon == b->anon;
}

/* The bottleneck's capacity min_i(B_i), Mbit/s; 0 when no hop reports B. */
static inline uint32_t hpcc_path_mbps(const struct hpcc_sample *L,
				      unsigned int nhops)
{
	uint32_t bmin = 0;
	unsigned int i;

	for (i = 0; i < nhops && i < HPCC_LAW_MAX_HOPS; i++)
		if (L[i].rate_mbps && (!bmin || L[i].rate_mbps < bmin))
			bmin = L[i].rate_mbps;
	return bmin;
}

/* Bottleneck BDP B * T in W units, for a capacity B in Mbit/s. */
static inline uint64_t hpcc_bdp(uint32_t mbps, uint64_t t_ns)
{
	return hpcc_qdiv((uint64_t)mbps * t_ns, HPCC_MBPS_PER_BYTE_NS,
			 HPCC_W_SHIFT);
}

/*
 * Pacing rate R = W / T in bytes/s, never above the bottleneck B (Mbit/s).
 * W is in 1/256 bytes, so R = W * (10^9 / 256) / T_ns, and 10^9 / 256 is
 * exactly 3906250 (< 2^22): with W at most HPCC_W_LIMIT (2^40) the product
 * stays below 2^62. (W / T in bytes/ns times 10^9 as one product wraps
 * once a hop claims some 35 Tbit/s.)
 */
#define HPCC_W_NS_TO_BYTES_S	3906250ULL	/* 10^9 >> HPCC_W_SHIFT */
#define HPCC_BYTES_S_PER_MBPS	125000ULL

static inline uint64_t hpcc_pacing_rate(uint64_t w, uint64_t t_ns,
					uint32_t bmin_mbps)
{
	uint64_t cap = (uint64_t)bmin_mbps * HPCC_BYTES_S_PER_MBPS;
	uint64_t r;

	w = w < HPCC_W_LIMIT ? w : HPCC_W_LIMIT;
	r = hpcc_qdiv(w * HPCC_W_NS_TO_BYTES_S, t_ns, 0);
	return r < cap ? r : cap;
}

/* qlen / (B T) in U units: a hop's queue as a share of its BDP. */
static inline uint64_t hpcc_queue_u(uint32_t qlen, uint32_t mbps,
				    uint64_t t_ns)
{
	return hpcc_qdiv((uint64_t)qlen * HPCC_MBPS_PER_BYTE_NS,
			 (uint64_t)mbps * t_ns, HPCC_U_SHIFT);
}

/* The same for a sample, anonymised (qlen is the drain time: qlen / T)
 * or not.
 */
static inline uint64_t hpcc_sample_queue_u(const struct hpcc_sample *x,
					   uint32_t qlen, uint64_t t_ns)
{
	if (x->anon)
		return hpcc_qdiv(qlen, t_ns, HPCC_U_SHIFT);
	return hpcc_queue_u(qlen, x->rate_mbps, t_ns);
}

/* The T that turns a queue into U: a network-wide one makes flows of
 * different base RTTs read one queue as the same U, so that the law's
 * fixed point (W_ai in proportion to each flow's own T) is rate-fair.
 */
static inline uint64_t hpcc_law_queue_t(const struct hpcc_law_cfg *c)
{
	return c->q_t_ns ? c->q_t_ns : c->t_ns;
}

/* Can the law use this sample's queue and rate? B known, or anonymised. */
static inline bool hpcc_sample_usable(const struct hpcc_sample *x)
{
	return x->rate_mbps || x->anon;
}

/*
 * A new flow's first W. The draft starts at line rate, w_line = B T: right on
 * an idle path, but flows that start together (incast) would each add a
 * full BDP to the queue they built. Where the first report shows a queue,
 * take the law's multiplicative step instead, from the window the flow has
 * in flight (w_sent, at most w_line), with U = max_i(1 + qlen_i / (B_i T)):
 * a link with a queue sends at its capacity, so that is its normalised
 * inflight. Summed over flows that hold the queue's bytes between them this
 * is about eta B T, as the law's own step would give.
 */
static inline uint64_t hpcc_law_first_w(const struct hpcc_law_cfg *c,
					const struct hpcc_sample *L,
					unsigned int nhops, uint64_t w_line,
					uint64_t w_sent)
{
	uint64_t q, qmax = 0;
	unsigned int i;

	for (i = 0; i < nhops && i < HPCC_LAW_MAX_HOPS; i++) {
		if (!hpcc_sample_usable(&L[i]) || !L[i].qlen)
			continue;
		q = hpcc_sample_queue_u(&L[i], L[i].qlen,
					hpcc_law_queue_t(c));
		if (q > qmax)
			qmax = q;
	}
	if (!qmax)
		return w_line;
	if (qmax > HPCC_U_MAX)
		qmax = HPCC_U_MAX;
	/* w_sent <= 2^40 and eta <= HPCC_U_ONE (the module caps it): no wrap */
	if (w_sent > w_line)
		w_sent = w_line;
	if (w_sent > HPCC_W_LIMIT)
		w_sent = HPCC_W_LIMIT;
	return hpcc_qdiv(w_sent * c->eta, HPCC_U_ONE + qmax, 0);
}

/* Start (or restart) the law with W = Wc = w_init, U = 1 as the reference
 * simulator does; the first report after this only records samples.
 */
static inline void hpcc_law_start(struct hpcc_law *s,
				  const struct hpcc_law_cfg *c,
				  uint64_t w_init, uint32_t snd_nxt)
{
	s->u = HPCC_U_ONE;
	s->w = hpcc_clamp(w_init, c->w_min, c->w_max);
	s->wc = s->w;
	s->inc_stage = 0;
	s->last_update_seq = snd_nxt;
	s->prev_seq = snd_nxt;
	s->nhops = 0;
	s->bottleneck = 0;
	s->measured = 0;
	s->ai_span = 0;
	s->implausible = 0;
}

/* The T of the law's time scale: the flow's own, or with law_time the
 * network-wide T of U's queue term where that is longer, so that flows of
 * different base RTTs average U over the same time and step W at the
 * same pace; a flow of a longer T than it keeps the draft's law.
 */
static inline uint64_t hpcc_law_time_t(const struct hpcc_law_cfg *c)
{
	uint64_t t = hpcc_law_queue_t(c);

	return c->law_time && t > c->t_ns ? t : c->t_ns;
}

/* The weight tau / (ewma_rtts T) of a sample interval, tau clamped to T
 * (the draft's tau <= T) or, with ewma_span, to ewma_rtts T: a report whose
 * probes were spaced out by the budget then weighs the time it covers.
 * ewma_span 2 does so only for a sample below the average (@falling): a
 * drained queue shows at once, noise above the average stays damped.
 * ewma_span 3 keeps the draft's weight up to half the horizon, then rises
 * to all of it at the horizon: max(min(tau, T), 2 tau - T') / T'. Reports
 * a few T apart weigh as the draft's; one after a budget's gap, whose
 * average is older than its horizon, replaces it.
 * T is hpcc_law_time_t().
 */
static inline uint64_t hpcc_ewma_weight(const struct hpcc_law_cfg *c,
					uint64_t tau, bool falling)
{
	uint64_t tau_in = tau;
	uint64_t t = hpcc_law_time_t(c);
	uint64_t horizon = t * (c->ewma_rtts ? c->ewma_rtts : 1);
	bool span = c->ewma_span == 1 || (c->ewma_span == 2 && falling);
	uint64_t most = span ? horizon : t, w;

	if (tau > most)
		tau = most;
	if (c->ewma_span == 3 && tau_in > horizon / 2) {
		uint64_t late = tau_in >= horizon ? horizon :
				2 * tau_in - horizon;

		if (late > tau)
			tau = late;
	}
	w = hpcc_qdiv(tau, horizon, HPCC_U_SHIFT);
	return w > HPCC_U_ONE ? HPCC_U_ONE : w;
}

/* hop_ewma: hop average @avg (HPCC_HOP_U_NONE: none yet) moved towards
 * u' = @ui over an interval @dt; a hop's first u' is taken as is.
 */
static inline uint32_t hpcc_hop_u_avg(const struct hpcc_law_cfg *c,
				      uint32_t avg, uint64_t ui, uint64_t dt)
{
	uint64_t w;

	if (ui > HPCC_HOP_U_MAX)
		ui = HPCC_HOP_U_MAX;
	if (avg == HPCC_HOP_U_NONE)
		return (uint32_t)ui;
	w = hpcc_ewma_weight(c, dt, ui < avg);
	return (uint32_t)((avg * (HPCC_U_ONE - w) + ui * w) >> HPCC_U_SHIFT);
}

/*
 * MeasureInflight. u'_i = min(qlen, prev qlen) / (B_i T) + txRate_i / B_i;
 * u = max_i u'_i with tau the sample interval of that hop, clamped to T
 * (ewma_span: to T'); U = (1 - tau/T') U + (tau/T') u with T' = ewma_rtts T:
 * the draft averages per-packet telemetry over T, but one report per RTT
 * leaves nothing to average within T. The first measured u replaces the
 * start value 1, so a longer horizon does not delay a new flow's first
 * reaction (with ewma_rtts 1 and tau = T both are the draft's). A hop
 * contributes only if it has a usable previous sample (same switch and
 * port, B known, 0 < dt <= HPCC_MAX_GAP_NS, bytes not gone backwards).
 * Where every u'_i is 0, the first usable hop gives tau, so that an idle
 * path still pulls U down (the draft's strict "u' > u" would leave U
 * frozen). Returns false when no hop was usable: the samples are only
 * remembered.
 *
 * hop_ewma (a departure, on by default; 0 is the draft's): each hop's u' is
 * averaged on its own, over the same horizon, and U is the max of those
 * averages. The EWMA of the max is biased upwards where two hops are
 * loaded and their noise is independent: the max picks each report's
 * worse one.
 *
 * rate_ewma (with hop_ewma; 0 by default): the hop's average holds
 * txRate_i / B_i only and u'_i is that plus the last queue term, so a
 * queue counts whole while it lasts and not once it has drained.
 *
 * qmin_span: the draft's min(qlen, prev qlen) filters one packet's noise
 * out of per-packet telemetry; between probes spaced more than qmin_span
 * T apart the previous qlen says nothing of this one's noise, and a first
 * probe that passed ahead of a burst hid the burst's queue from the next
 * report. Then qlen is taken as it is.
 *
 * first_qmin: a flow's first sample (after its law starts) is no min
 * reference for the next: probe_first's probe passed the bottleneck ahead
 * of the flow's own initial window, and its "no queue" hid the queue of
 * 32 new flows from their second reports.
 */
static inline bool hpcc_measure_inflight(struct hpcc_law *s,
					 const struct hpcc_law_cfg *c,
					 const struct hpcc_sample *L,
					 unsigned int nhops)
{
	uint32_t u_avg[HPCC_LAW_MAX_HOPS];
	uint64_t u = 0, tau = 0, w, span;
	bool found = false, first = !s->nhops;
	unsigned int i;

	if (nhops > HPCC_LAW_MAX_HOPS)
		nhops = HPCC_LAW_MAX_HOPS;
	for (i = 0; i < nhops; i++) {
		const struct hpcc_sample *p = &s->prev[i];
		uint64_t dt, dtx, ui, qterm, rterm;
		uint32_t minq;

		u_avg[i] = HPCC_HOP_U_NONE;
		if (i >= s->nhops || !hpcc_same_hop(p, &L[i]))
			continue;
		u_avg[i] = p->u_avg;	/* the same hop: its average goes on */
		if (!hpcc_sample_usable(&L[i]))
			continue;
		dt = L[i].ts_ns - p->ts_ns;
		dtx = L[i].tx_bytes - p->tx_bytes;
		if (!dt || dt > HPCC_MAX_GAP_NS || dtx > HPCC_MAX_DTX_BYTES)
			continue;
		minq = L[i].qlen;
		if (minq > p->qlen &&
		    (!c->qmin_span || dt <= (uint64_t)c->qmin_span * c->t_ns))
			minq = p->qlen;
		qterm = hpcc_sample_queue_u(&L[i], minq,
					    hpcc_law_queue_t(c));
		/* anonymised: d(busy) / d(ts), no B */
		if (L[i].anon)
			rterm = hpcc_qdiv(dtx, dt, HPCC_U_SHIFT);
		else
			rterm = hpcc_qdiv(dtx * HPCC_MBPS_PER_BYTE_NS,
					  (uint64_t)L[i].rate_mbps * dt,
					  HPCC_U_SHIFT);
		if (rterm > HPCC_TX_U_MAX) {
			s->implausible++;
			continue;
		}
		ui = qterm + rterm;
		if (ui > HPCC_U_MAX || ui < qterm)
			ui = HPCC_U_MAX;
		if (c->hop_ewma) {
			u_avg[i] = hpcc_hop_u_avg(c, u_avg[i],
						  c->rate_ewma ? rterm : ui, dt);
			ui = u_avg[i] + (c->rate_ewma ? qterm : 0);
			if (ui > HPCC_U_MAX)
				ui = HPCC_U_MAX;
		}
		if (!found || ui > u) {
			u = ui;
			tau = dt;
			s->bottleneck = i;
		}
		found = true;
	}
	for (i = 0; i < nhops; i++) {
		s->prev[i] = L[i];
		s->prev[i].u_avg = u_avg[i];
		if (first && c->first_qmin)
			s->prev[i].qlen = UINT32_MAX;
	}
	s->nhops = nhops;
	if (!found)
		return false;
	span = s->ai_span + (tau >> HPCC_AI_SPAN_SHIFT);
	s->ai_span = span > UINT32_MAX ? UINT32_MAX : (uint32_t)span;
	/* hop_ewma: u is already an average */
	w = c->hop_ewma ? HPCC_U_ONE : hpcc_ewma_weight(c, tau, u < s->u);
	if (!s->measured)
		w = HPCC_U_ONE;
	s->measured = 1;
	s->u = (s->u * (HPCC_U_ONE - w) + u * w) >> HPCC_U_SHIFT;
	return true;
}

/*
 * ai_time: W_ai for the telemetry time since the last commit, per 2 T
 * (one probe per T commits every other report: W_ai as before), at least
 * one W_ai, at most HPCC_AI_TIME_MAX. A flow that probes less often (the
 * probe budget spaces a slow flow's probes) commits less often; with
 * W_ai per commit its additive increase per second would shrink with its
 * rate, and the law's fairness comes only from the additive increase.
 * Only while U < eta: N flows k T apart would otherwise add N k / 2 W_ai
 * in each round of feedback, and 32 flows kept a queue of 3 BDPs.
 */
static inline uint64_t hpcc_law_w_ai(const struct hpcc_law *s,
				     const struct hpcc_law_cfg *c)
{
	uint64_t f;

	/* from 2^40 (HPCC_W_LIMIT) up W_ai alone reaches w_max */
	if (!c->ai_time || c->w_ai >= HPCC_W_LIMIT || s->u >= c->eta)
		return c->w_ai;
	f = hpcc_qdiv((uint64_t)s->ai_span << HPCC_AI_SPAN_SHIFT, 2 * c->t_ns,
		      HPCC_U_SHIFT);
	f = hpcc_clamp(f, HPCC_U_ONE, HPCC_AI_TIME_MAX * HPCC_U_ONE);
	/* w_ai < 2^40 and f <= 2^23: no wrap */
	return (c->w_ai * f) >> HPCC_U_SHIFT;
}

/*
 * law_time: the share f of a step that a commit takes: the telemetry time
 * since the last commit, at least the flow's own 2 T (one probe per T
 * commits every other report), over 2 T' with T' the network-wide T of
 * hpcc_law_time_t(); at most 1. A flow whose own T is T' (or longer) takes
 * whole steps, as the draft's; one of a fifth of T' commits five times as
 * often and takes a fifth of a step each time, so that per second both
 * cut and grow alike, and their fixed point (W_ai in proportion to T) stays
 * rate-fair under noise. Without law_time: 1, the draft's step per commit.
 * With ai_time as well, f scales the W_ai that ai_time has already scaled
 * by the flow's own spacing.
 */
static inline uint64_t hpcc_law_step(const struct hpcc_law *s,
				     const struct hpcc_law_cfg *c)
{
	uint64_t t = hpcc_law_time_t(c);
	uint64_t span = (uint64_t)s->ai_span << HPCC_AI_SPAN_SHIFT;

	if (t <= c->t_ns)	/* no law_time, or T' no longer than T */
		return HPCC_U_ONE;
	if (span < 2 * c->t_ns)
		span = 2 * c->t_ns;
	if (span >= 2 * t)
		return HPCC_U_ONE;
	return hpcc_qdiv(span, 2 * t, HPCC_U_SHIFT);
}

/*
 * Wc / (U / eta), the draft's multiplicative step, or with a share f < 1
 * of it (law_time) Wc (eta / U)^f: the mean of its two bounds for f in
 * [0, 1], the arithmetic (1 - f) Wc + f Wc eta / U above and the harmonic
 * Wc eta / (eta + f (U - eta)) below, within 1% of it for U between
 * eta / 2 and 2 eta and f = 1/5 (tests/unit/test_law.c).
 */
static inline uint64_t hpcc_law_mult(const struct hpcc_law *s,
				     const struct hpcc_law_cfg *c, uint64_t f)
{
	/* Wc <= HPCC_W_LIMIT (2^40), eta <= HPCC_U_ONE: no wrap */
	uint64_t n = s->wc * c->eta, full = hpcc_qdiv(n, s->u, 0), ub, a, h;

	if (f >= HPCC_U_ONE)
		return full;	/* U == 0 saturates to w_max */
	if (full > HPCC_W_LIMIT)
		full = HPCC_W_LIMIT;
	a = (s->wc * (HPCC_U_ONE - f) + full * f) >> HPCC_U_SHIFT;
	/* u <= HPCC_U_MAX (2^40) and f < 2^20: no wrap */
	if (s->u >= c->eta)
		ub = c->eta + (((s->u - c->eta) * f) >> HPCC_U_SHIFT);
	else
		ub = c->eta - (((c->eta - s->u) * f) >> HPCC_U_SHIFT);
	h = hpcc_qdiv(n, ub, 0);
	if (h > HPCC_W_LIMIT)
		h = HPCC_W_LIMIT;
	return (a + h) >> 1;
}

/* ComputeWind: multiplicative step towards eta, or additive increase for
 * up to max_stage rounds; Wc is committed only when update_wc. With a
 * share f of a step (law_time, hpcc_law_step()): (eta / U)^f and f W_ai.
 */
static inline uint64_t hpcc_compute_wind(struct hpcc_law *s,
					 const struct hpcc_law_cfg *c,
					 bool update_wc)
{
	uint64_t w, w_ai = hpcc_law_w_ai(s, c), f = hpcc_law_step(s, c);

	/* w_ai < 2^40 and f < 2^20, or w_ai alone reaches w_max */
	if (f < HPCC_U_ONE && w_ai < HPCC_W_LIMIT)
		w_ai = (w_ai * f) >> HPCC_U_SHIFT;
	if (s->u >= c->eta || s->inc_stage >= c->max_stage) {
		w = hpcc_law_mult(s, c, f);
		w = hpcc_clamp(w + w_ai < w ? UINT64_MAX : w + w_ai,
			       c->w_min, c->w_max);
		if (update_wc) {
			s->inc_stage = 0;
			s->wc = w;
		}
	} else {
		w = hpcc_clamp(s->wc + w_ai, c->w_min, c->w_max);
		if (update_wc) {
			s->inc_stage++;
			s->wc = w;
		}
	}
	if (update_wc)
		s->ai_span = 0;
	s->w = w;
	return w;
}

/*
 * NewAck for the report of a probe that left when snd_nxt was probe_seq.
 *
 * The draft commits Wc when the ACKed packet carrying the telemetry was sent
 * after the last commit (ack.seq > lastUpdateSeq), so that what commits Wc
 * measured the window Wc produced. A probe's telemetry spans the interval
 * since the previous probe: txRate over it, min(qlen, prev qlen) at both
 * ends. So Wc is committed only when the previous probe, which opened the
 * interval, left at or after the last commit (lastUpdateSeq = snd_nxt
 * then); with one probe per RTT that is every other report. The reports in
 * between recompute W from Wc without committing, as the draft's per-ACK
 * updates do. Committing on every report instead measures the window of
 * two reports ago against the last one's reference, and W oscillates.
 * Returns true when W was recomputed.
 */
static inline bool hpcc_law_report(struct hpcc_law *s,
				   const struct hpcc_law_cfg *c,
				   const struct hpcc_sample *L,
				   unsigned int nhops,
				   uint32_t probe_seq, uint32_t snd_nxt)
{
	bool update_wc = (int32_t)(s->prev_seq - s->last_update_seq) >= 0;
	bool measured = hpcc_measure_inflight(s, c, L, nhops);

	s->prev_seq = probe_seq;
	if (!measured)
		return false;
	if (update_wc)
		s->last_update_seq = snd_nxt;
	hpcc_compute_wind(s, c, update_wc);
	return true;
}

#endif /* _HPCC_LAW_H */
