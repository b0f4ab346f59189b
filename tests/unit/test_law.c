// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of hpcc_law.h: the division-free quotient, hand-computed cases
 * from the draft's equations, hostile inputs, and a randomised comparison of
 * the fixed-point law against a double-precision model of the draft's
 * pseudocode (section 4.2) with the same documented edge rules.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hpcc_law.h"
#include "tap.h"

#define W(bytes)	((uint64_t)(bytes) << HPCC_W_SHIFT)
#define UFIX(x)		((uint64_t)llround((x) * HPCC_U_ONE))

static double u_of(uint64_t u)
{
	return (double)u / HPCC_U_ONE;
}

static double w_of(uint64_t w)
{
	return (double)w / (1 << HPCC_W_SHIFT);
}

static int near(double got, double want, double rel)
{
	if (want == 0)
		return fabs(got) < 1e-9;
	return fabs(got - want) <= rel * fabs(want);
}

/* xorshift64*: deterministic, seedable */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static double rnd01(void)
{
	return (rnd() >> 11) * (1.0 / 9007199254740992.0);
}

static double rnd_log(double lo, double hi)
{
	return exp(log(lo) + rnd01() * (log(hi) - log(lo)));
}

/* ---- hpcc_qdiv ---------------------------------------------------------- */

static void test_qdiv(void)
{
	double worst = 0;
	int i, sat_ok;

	for (i = 0; i < 1000000; i++) {
		uint64_t n = rnd() >> (rnd() % 64);
		uint64_t d = (rnd() >> (rnd() % 64)) | 1;
		unsigned int sh = rnd() % 32;
		long double exact = (long double)n * powl(2, sh) / d;
		uint64_t q = hpcc_qdiv(n, d, sh);
		double rel;

		if (exact >= 1.8e19L) {
			if (q != UINT64_MAX && exact >= 1.8447e19L)
				worst = 1;
			continue;
		}
		/* integer rounding (<= 0.5) plus the relative error */
		if (fabsl((long double)q - exact) > 0.5L + exact / (1 << 27))
			worst = 1;
		if (exact < (1 << 28))
			continue;
		rel = (double)(fabsl((long double)q - exact) / exact);
		if (rel > worst)
			worst = rel;
	}
	tap_ok(worst < 1.0 / (1 << 27),
	       "qdiv: 1e6 random quotients within 0.5 + 2^-27 relative "
	       "(worst relative %.3g above 2^28)",
	       worst);
	sat_ok = hpcc_qdiv(1, 0, 0) == UINT64_MAX &&
		 hpcc_qdiv(0, 0, 0) == 0 &&
		 hpcc_qdiv(UINT64_MAX, 1, 1) == UINT64_MAX &&
		 hpcc_qdiv(1, UINT64_MAX, 0) == 0 &&
		 hpcc_qdiv(6, 3, 0) == 2 && hpcc_qdiv(1, 3, 0) == 0 &&
		 hpcc_qdiv(2, 3, 0) == 1 &&
		 hpcc_qdiv(1ULL << 40, 1, 23) >= (1ULL << 63) - (1ULL << 32) &&
		 hpcc_qdiv(1ULL << 40, 1, 25) == UINT64_MAX;
	tap_ok(sat_ok, "qdiv: exact small cases, d == 0 and overflow saturate");
	for (i = 0, worst = 0; i < 200000; i++) {
		uint32_t d = (uint32_t)rnd() | 0x80000000U;
		long double exact = powl(2, 63) / d;
		double rel = (double)fabsl((hpcc_recip32(d) - exact) / exact);

		if (rel > worst)
			worst = rel;
	}
	tap_ok(worst < 1.0 / (1 << 28),
	       "recip32: worst relative error %.3g < 2^-28", worst);
}

/* ---- hand-computed cases ------------------------------------------------ */

static struct hpcc_law_cfg cfg_10us(void)
{
	struct hpcc_law_cfg c = {
		.t_ns = 10000,			/* T = 10 us */
		.eta = UFIX(0.95),
		.max_stage = 5,
		.ewma_rtts = 1,
		.w_ai = W(100),
		.w_min = W(1000),
		.w_max = W(1000000),
	};
	return c;
}

static struct hpcc_sample hop(uint64_t ts, uint64_t tx, uint32_t q,
			      uint32_t mbps, uint32_t id)
{
	struct hpcc_sample h = {
		.ts_ns = ts, .tx_bytes = tx, .qlen = q, .rate_mbps = mbps,
		.switch_id = id, .port_id = 1,
	};
	return h;
}

static void test_hand_cases(void)
{
	struct hpcc_law_cfg c = cfg_10us();
	struct hpcc_law s;
	struct hpcc_sample a[2], b[2];
	bool ok;

	/* B = 1000 Mbit/s = 0.125 B/ns, B*T = 1250 bytes */
	hpcc_law_start(&s, &c, W(10000), 0);
	a[0] = hop(0, 0, 500, 1000, 7);
	tap_ok(!hpcc_law_report(&s, &c, a, 1, 100, 200) && s.nhops == 1 &&
	       s.u == HPCC_U_ONE && s.w == W(10000),
	       "first report only records samples (U stays 1, W unchanged)");

	/* 625 B in 10 us = half rate; min(250, 500) / 1250 = 0.2: u = 0.7,
	 * tau = T so U = u; U < eta and stage 0 < 5: W = Wc + W_ai.
	 */
	b[0] = hop(10000, 625, 250, 1000, 7);
	ok = hpcc_law_report(&s, &c, b, 1, 100, 300);
	tap_ok(ok && near(u_of(s.u), 0.7, 1e-6) && s.w == W(10100) &&
	       s.wc == W(10100) && s.inc_stage == 1 &&
	       s.last_update_seq == 300,
	       "u' = qlen/(B T) + txRate/B = 0.7, AI: W = Wc + W_ai = 10100 "
	       "(U %.6f, W %.2f)", u_of(s.u), w_of(s.w));

	/* The interval was opened by the probe that left at 100, before the
	 * commit (lastUpdateSeq 300): W recomputed, Wc kept.
	 */
	a[0] = hop(12500, 625 + 312, 250, 1000, 7);
	hpcc_law_report(&s, &c, a, 1, 250, 400);
	tap_ok(s.wc == W(10100) && s.w == W(10200) && s.inc_stage == 1 &&
	       s.last_update_seq == 300,
	       "interval opened before the commit: W = Wc + W_ai, Wc kept");
	/* tau = T/4: U = 0.75 * 0.7 + 0.25 * (312/312.5 + 250/1250) */
	tap_ok(near(u_of(s.u), 0.75 * 0.7 + 0.25 * (312 / 312.5 + 0.2), 1e-6),
	       "EWMA with tau = T/4: U = %.6f", u_of(s.u));
	/* opened by the probe of 250, still before 300: no commit; the next
	 * one is opened by the probe of 300, which left with the new Wc
	 */
	b[0] = hop(22500, 1562, 250, 1000, 7);
	hpcc_law_report(&s, &c, b, 1, 300, 500);
	tap_ok(s.wc == W(10100) && s.last_update_seq == 300,
	       "interval opened at 250 < lastUpdateSeq 300: no commit");
	a[0] = hop(32500, 2187, 250, 1000, 7);
	hpcc_law_report(&s, &c, a, 1, 450, 600);
	tap_ok(s.wc == W(10200) && s.w == W(10200) && s.inc_stage == 2 &&
	       s.last_update_seq == 600,
	       "interval opened at 300 >= lastUpdateSeq: Wc committed (%.0f)",
	       w_of(s.wc));

	/* Overload: 1250 B in T plus a 1250 B standing queue: u = 2.0,
	 * tau = 2T clamped to T: U = 2; MD: W = Wc * eta / U + W_ai.
	 */
	hpcc_law_start(&s, &c, W(20000), 0);
	a[0] = hop(0, 0, 1250, 1000, 7);
	hpcc_law_report(&s, &c, a, 1, 1, 1);
	b[0] = hop(20000, 2500, 1250, 1000, 7);
	hpcc_law_report(&s, &c, b, 1, 10, 20);
	tap_ok(near(u_of(s.u), 2.0, 1e-6) &&
	       near(w_of(s.w), 20000 * 0.95 / 2.0 + 100, 1e-6) &&
	       s.wc == s.w && s.inc_stage == 0,
	       "tau clamped to T, MD: W = Wc / (U / eta) + W_ai = %.2f",
	       w_of(s.w));

	/* Two hops: the larger u' wins and its interval is tau. The first
	 * measurement replaces the start value; the next is averaged.
	 */
	hpcc_law_start(&s, &c, W(20000), 0);
	a[0] = hop(0, 0, 0, 10000, 1);
	a[1] = hop(0, 0, 0, 1000, 2);
	hpcc_law_report(&s, &c, a, 2, 1, 1);
	b[0] = hop(10000, 6250, 0, 10000, 1);	/* u' = 0.5 */
	b[1] = hop(5000, 500, 0, 1000, 2);	/* u' = 0.8, tau = T/2 */
	hpcc_law_report(&s, &c, b, 2, 1, 1);
	tap_ok(s.bottleneck == 1 && near(u_of(s.u), 0.8, 1e-6),
	       "first measurement: hop 2's u' 0.8 replaces U = 1 (U = %.6f)",
	       u_of(s.u));
	a[0] = hop(20000, 12500, 0, 10000, 1);	/* u' = 0.5 */
	a[1] = hop(10000, 1062, 0, 1000, 2);	/* u' = 0.9, tau = T/2 */
	hpcc_law_report(&s, &c, a, 2, 1, 1);
	tap_ok(s.bottleneck == 1 && near(u_of(s.u), 0.5 * 0.8 + 0.5 * 0.9, 1e-3),
	       "max over hops picks hop 2 (u' 0.9) and its tau: U = %.6f",
	       u_of(s.u));

	/* A 4-RTT horizon: tau = T weighs a report 1/4 */
	c.ewma_rtts = 4;
	b[0] = hop(30000, 18750, 0, 10000, 1);	/* u' = 0.5 */
	b[1] = hop(20000, 1062 + 625, 0, 1000, 2);	/* u' = 0.5, tau = T */
	hpcc_law_report(&s, &c, b, 2, 1, 1);
	tap_ok(near(u_of(s.u), 0.75 * (0.5 * 0.8 + 0.5 * 0.9) + 0.25 * 0.5, 1e-3),
	       "ewma_rtts 4: U = 3/4 U + 1/4 u = %.6f", u_of(s.u));

	/* A report 4 T after the last: ewma_span weighs its whole interval
	 * (2: only a falling one; 3: past half the horizon)
	 */
	for (int span = 0; span <= 3; span++) {
		struct hpcc_law t;

		c.ewma_span = span;
		hpcc_law_start(&t, &c, W(10000), 0);
		a[0] = hop(0, 0, 0, 1000, 3);
		hpcc_law_report(&t, &c, a, 1, 1, 1);
		a[0] = hop(10000, 1250, 0, 1000, 3);	/* u' = 1 */
		hpcc_law_report(&t, &c, a, 1, 1, 1);
		a[0] = hop(50000, 1250 + 1000, 0, 1000, 3); /* u' 0.2, 4 T */
		hpcc_law_report(&t, &c, a, 1, 1, 1);
		tap_ok(near(u_of(t.u), span ? 0.2 : 0.75 + 0.25 * 0.2, 1e-3),
		       "ewma_span %d: a sample over 4 T weighs %s (U = %.4f)",
		       span, span ? "1: U = u'" : "1/4, as one over T",
		       u_of(t.u));
		if (span == 3) {
			/* 3 T: (2 * 3 T - 4 T) / 4 T = 1/2, either way */
			a[0] = hop(80000, 2250 + 3750, 0, 1000, 3); /* u' 1 */
			hpcc_law_report(&t, &c, a, 1, 1, 1);
			tap_ok(near(u_of(t.u), 0.5 * 0.2 + 0.5, 1e-3),
			       "ewma_span 3: a sample over 3 T weighs 1/2 (U = %.4f)",
			       u_of(t.u));
			/* 2 T, half the horizon: the draft's 1/4 */
			a[0] = hop(100000, 6000 + 500, 0, 1000, 3); /* u' 0.2 */
			hpcc_law_report(&t, &c, a, 1, 1, 1);
			tap_ok(near(u_of(t.u), 0.75 * 0.6 + 0.25 * 0.2, 1e-3),
			       "ewma_span 3: a sample over 2 T weighs 1/4, as the draft's (U = %.4f)",
			       u_of(t.u));
		}
		if (span != 2)
			continue;
		a[0] = hop(90000, 2250 + 5000, 0, 1000, 3); /* u' 1, 4 T */
		hpcc_law_report(&t, &c, a, 1, 1, 1);
		tap_ok(near(u_of(t.u), 0.75 * 0.2 + 0.25, 1e-3),
		       "ewma_span 2: a rising sample over 4 T weighs 1/4 (U = %.4f)",
		       u_of(t.u));
	}
	c.ewma_span = 0;
	c.ewma_rtts = 1;

	/* maxStage: after 5 AI commits the next commit is MI even below eta */
	c.max_stage = 2;
	hpcc_law_start(&s, &c, W(10000), 0);
	a[0] = hop(0, 0, 0, 1000, 7);
	hpcc_law_report(&s, &c, a, 1, 1, 1);
	for (int i = 1; i <= 3; i++) {
		a[0] = hop(10000ULL * i, 625ULL * i, 0, 1000, 7); /* u = 0.5 */
		hpcc_law_report(&s, &c, a, 1, 10 * i, 10 * i);
	}
	tap_ok(near(w_of(s.w), 10200 * 0.95 / 0.5 + 100, 1e-6) &&
	       s.inc_stage == 0,
	       "after maxStage AI rounds: MI W = Wc * eta / U + W_ai = %.1f",
	       w_of(s.w));

	/* Counter wrap-around: same deltas across 2^64 */
	c = cfg_10us();
	hpcc_law_start(&s, &c, W(10000), 0);
	a[0] = hop(UINT64_MAX - 4999, UINT64_MAX - 99, 500, 1000, 7);
	hpcc_law_report(&s, &c, a, 1, 1, 1);
	b[0] = hop(5000, 525, 250, 1000, 7);
	hpcc_law_report(&s, &c, b, 1, 10, 20);
	tap_ok(near(u_of(s.u), 0.7, 1e-6),
	       "txBytes and ts wrapping past 2^64 give the same u = 0.7");
}

/* ---- hostile inputs ----------------------------------------------------- */

static void test_hostile(void)
{
	struct hpcc_law_cfg c = cfg_10us();
	struct hpcc_law s;
	struct hpcc_sample a[HPCC_LAW_MAX_HOPS + 4], b[HPCC_LAW_MAX_HOPS + 4];
	uint64_t u0;
	int ok = 1, i;

	hpcc_law_start(&s, &c, W(10000), 0);
	a[0] = hop(1000, 1000, 100, 0, 7);		/* B = 0 */
	hpcc_law_report(&s, &c, a, 1, 1, 1);
	b[0] = hop(2000, 2000, 100, 0, 7);
	tap_ok(!hpcc_law_report(&s, &c, b, 1, 5, 5) && s.u == HPCC_U_ONE,
	       "B = 0: hop ignored, U unchanged");

	a[0] = hop(1000, 1000, 100, 1000, 7);
	hpcc_law_report(&s, &c, a, 1, 1, 1);
	u0 = s.u;
	tap_ok(!hpcc_law_report(&s, &c, a, 1, 5, 5) && s.u == u0,
	       "dt = 0: hop ignored");
	b[0] = hop(500, 2000, 100, 1000, 7);		/* clock backwards */
	tap_ok(!hpcc_law_report(&s, &c, b, 1, 5, 5) && s.u == u0,
	       "timestamp going backwards: hop ignored, sample remembered");
	a[0] = hop(1500, 100, 100, 1000, 7);		/* bytes backwards */
	tap_ok(!hpcc_law_report(&s, &c, a, 1, 5, 5) && s.u == u0,
	       "txBytes going backwards (counter reset): hop ignored");

	/* A forged record (tx_bytes 0) between two genuine ones: going back
	 * it is ignored; the genuine one after it would read as the port's
	 * whole count sent in one T (u' over 10000), also ignored, counted.
	 * A tbf's burst (4 B over T) is not.
	 */
	hpcc_law_start(&s, &c, W(10000), 0);
	a[0] = hop(10000, 13000000, 0, 1000, 7);
	hpcc_law_report(&s, &c, a, 1, 1, 1);
	a[0] = hop(20000, 13001000, 0, 1000, 7);	/* u' 0.8 */
	hpcc_law_report(&s, &c, a, 1, 1, 1);
	u0 = s.u;
	a[0] = hop(30000, 0, 0, 1000, 7);		/* forged */
	b[0] = hop(40000, 13002000, 0, 1000, 7);	/* genuine */
	ok = !hpcc_law_report(&s, &c, a, 1, 1, 1);
	ok &= !hpcc_law_report(&s, &c, b, 1, 1, 1);
	tap_ok(ok && s.u == u0 && s.implausible == 1,
	       "forged tx_bytes 0 between genuine samples: neither pair used, U kept (%.3f), one implausible",
	       u_of(s.u));
	b[0] = hop(50000, 13002000 + 5000, 0, 1000, 7);	/* 4 B */
	ok = hpcc_law_report(&s, &c, b, 1, 1, 1);
	tap_ok(ok && s.implausible == 1 && near(u_of(s.u), 4.0, 1e-3),
	       "a burst of 4 B over T is used (U %.3f)", u_of(s.u));
	ok = 1;
	b[0] = hop(1500 + HPCC_MAX_GAP_NS + 1, 200, 100, 1000, 7);
	tap_ok(!hpcc_law_report(&s, &c, b, 1, 5, 5),
	       "gap above HPCC_MAX_GAP_NS: stale previous sample ignored");
	a[0] = hop(1500 + HPCC_MAX_GAP_NS + 10001, 200, 100, 1000, 8);
	tap_ok(!hpcc_law_report(&s, &c, a, 1, 5, 5),
	       "switch id changed (path change): hop ignored");

	/* absurd qlen on a slow link: U saturates, W bottoms out at w_min */
	b[0] = hop(1500 + HPCC_MAX_GAP_NS + 20001, 200, UINT32_MAX, 1, 8);
	a[0] = hop(1500 + HPCC_MAX_GAP_NS + 30001, UINT64_MAX / 4, UINT32_MAX,
		   1, 8);
	c.t_ns = 1;
	hpcc_law_report(&s, &c, b, 1, 50, 50);
	hpcc_law_report(&s, &c, a, 1, 100, 100);
	tap_ok(s.u <= HPCC_U_MAX && s.w == c.w_min,
	       "absurd qlen/bytes: U saturates at HPCC_U_MAX, W = w_min");

	/* zero utilisation and maxStage 0: W = Wc * eta / 0 saturates */
	c = cfg_10us();
	c.max_stage = 0;
	hpcc_law_start(&s, &c, W(10000), 0);
	a[0] = hop(0, 0, 0, 1000, 7);
	b[0] = hop(10000, 0, 0, 1000, 7);
	hpcc_law_report(&s, &c, a, 1, 1, 1);
	hpcc_law_report(&s, &c, b, 1, 5, 5);
	tap_ok(s.u == 0 && s.w == c.w_max,
	       "idle path: U falls to 0, MI with U = 0 gives w_max");

	/* more hops than the law keeps: extra hops ignored, no overrun */
	for (i = 0; i < HPCC_LAW_MAX_HOPS + 4; i++) {
		a[i] = hop(0, 0, 0, 1000, i);
		b[i] = hop(10000, 625, 0, 1000, i);
	}
	hpcc_law_start(&s, &c, W(10000), 0);
	hpcc_law_report(&s, &c, a, HPCC_LAW_MAX_HOPS + 4, 1, 1);
	hpcc_law_report(&s, &c, b, HPCC_LAW_MAX_HOPS + 4, 5, 5);
	tap_ok(s.nhops == HPCC_LAW_MAX_HOPS, "nhops above 8 clamped to 8");

	/* random garbage never escapes the bounds */
	c = cfg_10us();
	hpcc_law_start(&s, &c, W(5000), 0);
	for (i = 0; i < 200000 && ok; i++) {
		unsigned int n = rnd() % (HPCC_LAW_MAX_HOPS + 2), j;

		for (j = 0; j < n; j++) {
			a[j].ts_ns = rnd() >> (rnd() % 64);
			a[j].tx_bytes = rnd() >> (rnd() % 64);
			a[j].qlen = (uint32_t)rnd();
			a[j].rate_mbps = (uint32_t)rnd() >> (rnd() % 32);
			a[j].switch_id = rnd() % 2;
			a[j].port_id = 0;
		}
		hpcc_law_report(&s, &c, a, n, (uint32_t)rnd(),
				(uint32_t)rnd());
		ok = s.w >= c.w_min && s.w <= c.w_max && s.wc >= c.w_min &&
		     s.wc <= c.w_max && s.u <= HPCC_U_MAX &&
		     s.nhops <= HPCC_LAW_MAX_HOPS;
	}
	tap_ok(ok, "200000 random garbage reports: W, Wc, U stay in bounds");
}

/* ---- the double-precision model of the draft ---------------------------- */

struct model {
	double U, W, Wc;
	unsigned int inc_stage, nhops, measured;
	uint32_t last_update_seq, prev_seq;
	struct hpcc_sample L[HPCC_LAW_MAX_HOPS];
};

struct model_cfg {
	double T, eta, w_ai, w_min, w_max;
	double qT;		/* T of the queue term; 0: T */
	unsigned int max_stage, ewma_rtts;
};

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * MeasureInflight, lines 1-10 of the draft, plus the documented edge rules.
 * Where two hops tie exactly (same u' to 1e-9, e.g. q/B equal on both) the
 * draft leaves the choice of tau open: the model then takes hop `tie`, the
 * one the fixed-point law chose.
 */
static int model_measure(struct model *m, const struct model_cfg *c,
			 const struct hpcc_sample *ack, unsigned int n,
			 unsigned int tie)
{
	double u = 0, tau = 0;
	int found = 0, near_tie;
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct hpcc_sample *L = &m->L[i];
		double B, txRate, up;
		uint64_t dt, dtx;

		if (i >= m->nhops || L->switch_id != ack[i].switch_id ||
		    L->port_id != ack[i].port_id || !ack[i].rate_mbps)
			continue;
		dt = ack[i].ts_ns - L->ts_ns;
		dtx = ack[i].tx_bytes - L->tx_bytes;
		if (!dt || dt > HPCC_MAX_GAP_NS || dtx > HPCC_MAX_DTX_BYTES)
			continue;
		B = ack[i].rate_mbps * 1e6 / 8 / 1e9;		/* bytes/ns */
		txRate = (double)dtx / (double)dt;
		if (txRate / B > (double)HPCC_TX_U_MAX / HPCC_U_ONE)
			continue;
		up = fmin(ack[i].qlen, L->qlen) / (B * (c->qT ? c->qT : c->T)) +
		     txRate / B;
		up = fmin(up, (double)HPCC_U_MAX / HPCC_U_ONE);
		/* hops within the fixed point's resolution (2^-20, and
		 * hpcc_qdiv()'s 2^-27) are a tie: take the law's
		 */
		near_tie = fabs(up - u) <= 1e-7 * u + 2.0 / HPCC_U_ONE;
		if (!found || (up > u && !(near_tie && i != tie)) ||
		    (near_tie && i == tie)) {
			u = up;
			tau = (double)dt;
		}
		found = 1;
	}
	memcpy(m->L, ack, n * sizeof(*ack));
	m->nhops = n;
	if (!found)
		return 0;
	tau = fmin(tau, c->T);
	if (m->measured)
		m->U = (1 - tau / (c->T * c->ewma_rtts)) * m->U +
		       tau / (c->T * c->ewma_rtts) * u;
	else
		m->U = u;
	m->measured = 1;
	return 1;
}

/* ComputeWind, lines 11-20 */
static void model_wind(struct model *m, const struct model_cfg *c,
		       int update_wc)
{
	double W;

	if (m->U >= c->eta || m->inc_stage >= c->max_stage) {
		W = m->U > 0 ? m->Wc / (m->U / c->eta) + c->w_ai : c->w_max;
		W = clampd(W, c->w_min, c->w_max);
		if (update_wc) {
			m->inc_stage = 0;
			m->Wc = W;
		}
	} else {
		W = clampd(m->Wc + c->w_ai, c->w_min, c->w_max);
		if (update_wc) {
			m->inc_stage++;
			m->Wc = W;
		}
	}
	m->W = W;
}

/* NewAck, lines 21-27, for a probe's report: commit when the probe that
 * opened the measured interval left at or after the last commit
 */
static long model_commits;

static void model_newack(struct model *m, const struct model_cfg *c,
			 const struct hpcc_sample *ack, unsigned int n,
			 uint32_t probe_seq, uint32_t snd_nxt, unsigned int tie)
{
	int commit = (int32_t)(m->prev_seq - m->last_update_seq) >= 0;
	int measured = model_measure(m, c, ack, n, tie);

	m->prev_seq = probe_seq;
	if (!measured)
		return;
	if (commit) {
		model_commits++;
		model_wind(m, c, 1);
		m->last_update_seq = snd_nxt;
	} else {
		model_wind(m, c, 0);
	}
}

static void test_random_vs_model(void)
{
	const int scenarios = 2000, steps = 100;
	double worst = 0, worst_u = 0;
	long total = 0, escaped = 0, md_steps = 0;
	int sc;

	for (sc = 0; sc < scenarios; sc++) {
		unsigned int nh = 1 + rnd() % HPCC_LAW_MAX_HOPS, i;
		double T = rnd_log(2e3, 50e6);		/* 2 us .. 50 ms */
		struct hpcc_sample L[HPCC_LAW_MAX_HOPS];
		struct hpcc_law_cfg c;
		struct model_cfg mc;
		struct hpcc_law s;
		struct model m;
		uint32_t seq = (uint32_t)rnd(), nxt;
		uint64_t bdp;

		memset(L, 0, sizeof(L));
		for (i = 0; i < nh; i++) {
			L[i].rate_mbps = (uint32_t)rnd_log(1, 400000);
			L[i].switch_id = i;
			L[i].port_id = 1;
			/* counters start anywhere, some about to wrap */
			L[i].ts_ns = rnd() % 4 ? rnd() : UINT64_MAX - rnd() %
				     1000000;
			L[i].tx_bytes = rnd() % 4 ? rnd() : UINT64_MAX -
					rnd() % 1000000;
			L[i].qlen = 0;
		}
		c.t_ns = (uint64_t)T;
		/* half the scenarios with a network-wide T of the queue term,
		 * within 5x of the flow's own
		 */
		c.q_t_ns = rnd() % 2 ? (uint64_t)(T * rnd_log(0.2, 5)) : 0;
		c.eta = UFIX(0.9 + 0.09 * rnd01());
		c.max_stage = rnd() % 6;
		c.ewma_rtts = 1 + rnd() % 8;
		c.hop_ewma = 0;	/* the double model is the draft's */
		c.rate_ewma = 0;
		c.ai_time = 0;
		c.law_time = 0;
		c.ewma_span = 0;	/* the draft: tau clamped to T */
		c.qmin_span = 0;	/* and min(qlen, prev qlen) always */
		c.first_qmin = 0;
		bdp = hpcc_bdp(hpcc_path_mbps(L, nh), c.t_ns);
		c.w_max = bdp > W(1500) ? bdp : W(1500);
		c.w_min = W(1500) < c.w_max ? W(1500) : c.w_max;
		c.w_ai = (c.w_max / 20) / (1 + rnd() % 64);

		mc.T = (double)c.t_ns;
		mc.qT = (double)c.q_t_ns;
		mc.eta = (double)c.eta / HPCC_U_ONE;
		mc.max_stage = c.max_stage;
		mc.ewma_rtts = c.ewma_rtts;
		mc.w_ai = w_of(c.w_ai);
		mc.w_min = w_of(c.w_min);
		mc.w_max = w_of(c.w_max);

		nxt = seq + 1000;
		hpcc_law_start(&s, &c, c.w_max, nxt);
		memset(&m, 0, sizeof(m));
		m.U = 1;
		m.W = m.Wc = w_of(s.w);
		m.last_update_seq = nxt;
		m.prev_seq = nxt;

		for (int k = 0; k < steps; k++) {
			double level = rnd_log(0.05, 3);

			for (i = 0; i < nh; i++) {
				double bpns = L[i].rate_mbps / 8000.0;
				uint64_t dt = (uint64_t)(T * rnd_log(0.05, 3))
					      + 1;
				double q = bpns * T * level * rnd01() * 2;

				L[i].ts_ns += dt;
				L[i].tx_bytes += (uint64_t)(bpns * dt *
						 fmin(1.0, level) * rnd01());
				L[i].qlen = q > 4e9 ? 4000000000U :
					    (uint32_t)q;
			}
			/* ACKs advance; about half the reports close an RTT */
			seq += (uint32_t)(rnd() % 3000);
			nxt = seq + 5000;
			hpcc_law_report(&s, &c, L, nh, seq, nxt);
			model_newack(&m, &mc, L, nh, seq, nxt, s.bottleneck);
			total++;
			if (s.w < c.w_min || s.w > c.w_max)
				escaped++;
			if (m.U >= mc.eta)
				md_steps++;
			worst = fmax(worst, fabs(w_of(s.w) - m.W) / m.W);
			worst_u = fmax(worst_u, fabs(u_of(s.u) - m.U));
		}
	}
	printf("# random model comparison: %ld steps, %ld with U >= eta, "
	       "max relative error of W %.3g, max absolute error of U %.3g\n", total, md_steps, worst,
	       worst_u);
	tap_ok(total >= 100000 && worst < 0.005,
	       "fixed-point W within 0.5%% of the double model over %ld random "
	       "steps (max %.3g%%)", total, worst * 100);
	tap_ok(worst_u < 1e-4, "U within 1e-4 of the model (max %.3g)", worst_u);
	tap_ok(model_commits > total / 10 && model_commits < total * 9 / 10,
	       "both NewAck branches compared: %ld of %ld reports committed Wc",
	       model_commits, total);
	tap_ok(escaped == 0, "W never left [w_min, w_max] (%ld escapes)",
	       escaped);
}

/* ---- hpcc_law_first_w ------------------------------------------------- */

/* Two flows of base RTTs 10 and 50 us behind one hop: a report of its
 * idle state, then one of a 1250 B queue at half the link's rate.
 */
static void two_flows_behind_a_queue(const struct hpcc_law_cfg *c1,
				     const struct hpcc_law_cfg *c5,
				     struct hpcc_law *s1, struct hpcc_law *s5)
{
	struct hpcc_sample a = hop(0, 0, 1250, 1000, 7);
	struct hpcc_sample b = hop(10000, 625, 1250, 1000, 7);

	hpcc_law_start(s1, c1, W(10000), 0);
	hpcc_law_start(s5, c5, W(50000), 0);
	hpcc_law_report(s1, c1, &a, 1, 1, 1);
	hpcc_law_report(s5, c5, &a, 1, 1, 1);
	hpcc_law_report(s1, c1, &b, 1, 2, 2);
	hpcc_law_report(s5, c5, &b, 1, 2, 2);
}

/* queue_t: flows of base RTTs 10 and 50 us read one queue as one U with a
 * network-wide T of the queue term, and as different Us without.
 */
static void test_queue_t(void)
{
	struct hpcc_law_cfg c1 = cfg_10us(), c5 = cfg_10us();
	struct hpcc_sample a = hop(0, 0, 1250, 1000, 7);
	struct hpcc_law s1, s5;

	c5.t_ns = 50000;
	two_flows_behind_a_queue(&c1, &c5, &s1, &s5);
	/* own T: 1250 B is 1 B T at 10 us, 0.2 B T at 50 us */
	tap_ok(near(u_of(s1.u), 1.5, 1e-6) && near(u_of(s5.u), 0.7, 1e-6),
	       "queue_t 0 (each flow's own T): a 1250 B queue is U 1.5 at T 10 us, "
	       "0.7 at 50 us (%.3f, %.3f)", u_of(s1.u), u_of(s5.u));

	c1.q_t_ns = c5.q_t_ns = 10000;
	two_flows_behind_a_queue(&c1, &c5, &s1, &s5);
	tap_ok(s1.u == s5.u && near(u_of(s1.u), 1.5, 1e-6),
	       "queue_t 10 us: both flows read U %.3f", u_of(s5.u));
	tap_ok(hpcc_law_first_w(&c5, &a, 1, W(50000), W(5000)) ==
	       hpcc_law_first_w(&c1, &a, 1, W(10000), W(5000)),
	       "queue_t: the first W behind a queue is the same step for both");
}

static void test_first_w(void)
{
	struct hpcc_law_cfg c = cfg_10us();
	struct hpcc_sample L[2];
	uint64_t w;

	/* B T = 1250 bytes at 1000 Mbit/s and T = 10 us */
	L[0] = hop(0, 0, 0, 1000, 1);
	L[1] = hop(0, 0, 0, 100, 2);
	tap_ok(hpcc_law_first_w(&c, L, 2, W(1250), W(300)) == W(1250),
	       "first W: no queue on the path, line rate as the draft says");

	/* 2500 B queued behind 1000 Mbit/s: U = 1 + 2; 600 B were in flight:
	 * W = 600 * 0.95 / 3 (W resolution 1/256 B)
	 */
	L[0].qlen = 2500;
	w = hpcc_law_first_w(&c, L, 2, W(1250), W(600));
	tap_ok(near(w_of(w), 600 * 0.95 / 3, 1e-5),
	       "first W behind a queue: inflight * eta / (1 + qlen / (B T)) "
	       "= %.2f", w_of(w));
	w = hpcc_law_first_w(&c, L, 2, W(1250), W(5000));
	tap_ok(near(w_of(w), 1250 * 0.95 / 3, 1e-5),
	       "first W: the inflight counts at most line rate (%.2f)",
	       w_of(w));

	/* the worst hop counts: 250 B at 100 Mbit/s is 2 B T there */
	L[0].qlen = 1250;
	L[1].qlen = 250;
	w = hpcc_law_first_w(&c, L, 2, W(1250), W(600));
	tap_ok(near(w_of(w), 600 * 0.95 / 3, 1e-5),
	       "first W: the hop with the most queue in its own B T sets U "
	       "(%.2f)", w_of(w));

	/* N flows with the queue's bytes in flight get about eta B T */
	L[0].qlen = 4 * 1250;
	L[1].qlen = 0;
	w = hpcc_law_first_w(&c, L, 2, W(1250), W(1250));
	tap_ok(near(5 * w_of(w), 1250 * 0.95, 1e-5),
	       "first W: 5 flows holding B T + a 4 B T queue start at eta B T "
	       "in all (%.2f)", 5 * w_of(w));

	/* hostile: no capacity is skipped, a huge queue saturates, no wrap */
	L[0] = hop(0, 0, UINT32_MAX, 0, 1);
	tap_ok(hpcc_law_first_w(&c, L, 1, W(1250), W(10)) == W(1250),
	       "first W: a hop without capacity is ignored");
	L[0] = hop(0, 0, UINT32_MAX, 1, 1);
	c.t_ns = 1;
	w = hpcc_law_first_w(&c, L, 1, HPCC_W_LIMIT, UINT64_MAX);
	tap_ok(w > 0 && w < HPCC_W_LIMIT,
	       "first W: a queue of 2^32 B on a 1 Mbit/s hop with T = 1 ns "
	       "gives a small positive W (%.3g bytes)", w_of(w));
	c = cfg_10us();
	tap_ok(hpcc_law_first_w(&c, L, 0, W(1250), W(10)) == W(1250),
	       "first W: no hops, line rate");
}

/* R = W / T in bytes/s against a double, up to W_LIMIT and 4 Pbit/s. */
static void test_pacing_rate(void)
{
	double worst = 0;
	int capped_ok = 1, i;

	for (i = 0; i < 100000; i++) {
		uint64_t w = (uint64_t)rnd_log(1, (double)HPCC_W_LIMIT - 1);
		uint64_t t = (uint64_t)rnd_log(1000, (double)HPCC_T_LIMIT_NS);
		uint32_t mbps = (uint32_t)rnd_log(1, 4294967295.0);
		double want = (double)w / 256 / t * 1e9;
		double cap = mbps * 125000.0;
		uint64_t got = hpcc_pacing_rate(w, t, mbps);

		if (want >= cap) {
			capped_ok &= got == (uint64_t)cap;
		} else if (fabs(got - want) > 1) {	/* whole bytes/s */
			double e = fabs(got - want) / want;

			if (e > worst)
				worst = e;
		}
	}
	tap_ok(worst < 1e-7,
	       "pacing rate W / T within 1 byte/s or 1e-7 of a double (max %.3g)",
	       worst);
	tap_ok(capped_ok, "pacing rate capped at B whenever W / T exceeds it");
	/* A hop claiming 40 Tbit/s, T = 100 us, W at 4 BDPs: W / T is 2e13
	 * bytes/s, where W / T * 10^9 as one product wraps.
	 */
	tap_ok(hpcc_pacing_rate(4ULL * 500000000 << HPCC_W_SHIFT, 100000,
				40000000) == 5000000000000ULL,
	       "40 Tbit/s hop, W = 4 BDP: R = B, no overflow");
	tap_ok(hpcc_pacing_rate(HPCC_W_LIMIT - 1, 1, 4294967295U) ==
	       4294967295ULL * 125000,
	       "largest W over T = 1 ns: R = B");
	tap_ok(hpcc_pacing_rate(1000 << HPCC_W_SHIFT, 0, 1000) == 125000000,
	       "T = 0 saturates at B");
}

/* hop_ewma: two hops whose u' alternate 0.5 and 1.5 out of phase, both
 * at 1.0 on average. The draft's EWMA of the max sees 1.5 every time; the
 * max of each hop's own EWMA stays near 1.
 */
static double hop_ewma_run(uint32_t hop_ewma)
{
	struct hpcc_law_cfg c = cfg_10us();
	struct hpcc_sample L[2];
	uint64_t tx[2] = { 0, 0 };
	struct hpcc_law s;
	int k;

	c.ewma_rtts = 4;
	c.hop_ewma = hop_ewma;
	hpcc_law_start(&s, &c, W(20000), 0);
	for (k = 0; k <= 40; k++) {
		/* 1 Gbit/s for T = 10 us is 1250 bytes: u' 0.5 or 1.5 */
		L[0] = hop(k * 10000ULL, tx[0], 0, 1000, 1);
		L[1] = hop(k * 10000ULL, tx[1], 0, 1000, 2);
		hpcc_law_report(&s, &c, L, 2, 1, 1);
		tx[0] += k & 1 ? 625 : 1875;
		tx[1] += k & 1 ? 1875 : 625;
	}
	return u_of(s.u);
}

static void test_hop_ewma(void)
{
	struct hpcc_law_cfg c = cfg_10us();
	struct hpcc_sample L[1];
	double draft = hop_ewma_run(0), per_hop = hop_ewma_run(1);
	struct hpcc_law s;

	tap_ok(near(draft, 1.5, 1e-3),
	       "hop_ewma 0: U = EWMA of the max = 1.5 (%.4f)", draft);
	tap_ok(per_hop > 1.0 && per_hop < 1.2,
	       "hop_ewma 1: U = max of the hops' EWMAs, near their mean 1 (%.4f)",
	       per_hop);

	/* a hop that changes (another switch) starts its average anew */
	c.ewma_rtts = 4;
	c.hop_ewma = 1;
	hpcc_law_start(&s, &c, W(20000), 0);
	L[0] = hop(0, 0, 0, 1000, 1);
	hpcc_law_report(&s, &c, L, 1, 1, 1);
	L[0] = hop(10000, 1250, 0, 1000, 1);	/* u' = 1 */
	hpcc_law_report(&s, &c, L, 1, 1, 1);
	L[0] = hop(20000, 1250, 0, 1000, 7);	/* another switch: no prev */
	hpcc_law_report(&s, &c, L, 1, 1, 1);
	L[0] = hop(30000, 1250 + 250, 0, 1000, 7);	/* u' = 0.2 */
	hpcc_law_report(&s, &c, L, 1, 1, 1);
	tap_ok(near(u_of(s.u), 0.2, 1e-3),
	       "hop_ewma 1: a new switch's first u' is taken as is (%.4f)",
	       u_of(s.u));

	/* ewma_span 2 on a hop's own average, samples 4 T apart: u' 0.25
	 * (rising: weighs 1/4), then a falling u' 0.2 replaces the average,
	 * then a rising u' 1 weighs 1/4
	 */
	c.ewma_span = 2;
	L[0] = hop(70000, 1500 + 1000, 0, 1000, 7);	/* u' = 0.25 */
	hpcc_law_report(&s, &c, L, 1, 1, 1);
	L[0] = hop(110000, 2500 + 1000, 0, 1000, 7);	/* u' = 0.2 */
	hpcc_law_report(&s, &c, L, 1, 1, 1);
	tap_ok(near(u_of(s.u), 0.2, 1e-3),
	       "hop_ewma, ewma_span 2: a falling u' over 4 T replaces the hop's average (%.4f)",
	       u_of(s.u));
	L[0] = hop(150000, 3500 + 5000, 0, 1000, 7);	/* u' = 1 */
	hpcc_law_report(&s, &c, L, 1, 1, 1);
	tap_ok(near(u_of(s.u), 0.75 * 0.2 + 0.25, 1e-3),
	       "hop_ewma, ewma_span 2: a rising u' over 4 T weighs 1/4 (%.4f)",
	       u_of(s.u));
	c.ewma_span = 0;

	/* a forged 4 GB queue: u' saturates; the average stays a value, never
	 * the "no average" mark, and bounded
	 */
	hpcc_law_start(&s, &c, W(20000), 0);
	L[0] = hop(0, 0, UINT32_MAX, 1000, 1);
	hpcc_law_report(&s, &c, L, 1, 1, 1);
	L[0] = hop(10000, 0, UINT32_MAX, 1000, 1);
	hpcc_law_report(&s, &c, L, 1, 1, 1);
	L[0] = hop(20000, 0, UINT32_MAX, 1000, 1);
	hpcc_law_report(&s, &c, L, 1, 1, 1);
	tap_ok(s.prev[0].u_avg == HPCC_HOP_U_MAX &&
	       s.u == HPCC_HOP_U_MAX && s.w == c.w_min,
	       "hop_ewma 1: a huge queue saturates the hop's average at %.0f, W at w_min (U %.1f, W %llu)",
	       u_of(HPCC_HOP_U_MAX), u_of(s.u),
	       (unsigned long long)(s.w >> HPCC_W_SHIFT));
}

/* rate_ewma: one hop at 1 Gbit/s, T = 10 us (B T = 1250 bytes), u' 0.8,
 * then a queue of 4 B T with u' 1 (U's queue term needs it in two
 * reports: min(qlen, prev qlen)), then drained, u' 0.8 again. U after the
 * queued report in @queued, after the drained one returned.
 */
static double rate_ewma_run(uint32_t rate_ewma, double *queued)
{
	static const uint32_t q[4] = { 0, 5000, 5000, 0 };
	static const uint64_t tx[4] = { 0, 1000, 2250, 3250 };
	struct hpcc_law_cfg c = cfg_10us();
	struct hpcc_sample L[1];
	struct hpcc_law s;
	int k;

	c.ewma_rtts = 4;
	c.hop_ewma = 1;
	c.rate_ewma = rate_ewma;
	hpcc_law_start(&s, &c, W(20000), 0);
	for (k = 0; k < 4; k++) {
		L[0] = hop(k * 10000ULL, tx[k], q[k], 1000, 1);
		hpcc_law_report(&s, &c, L, 1, 1, 1);
		if (k == 2)
			*queued = u_of(s.u);
	}
	return u_of(s.u);
}

static void test_rate_ewma(void)
{
	double q0, q1, both = rate_ewma_run(0, &q0), rate = rate_ewma_run(1, &q1);
	struct hpcc_law_cfg c = cfg_10us();
	struct hpcc_sample L[1];
	struct hpcc_law s;
	bool forged;

	/* both averaged: 0.8, then 0.75 x 0.8 + 0.25 x 5, then 1.85 x 0.75
	 * + 0.25 x 0.8
	 */
	tap_ok(near(q0, 1.85, 1e-3) && near(both, 1.5875, 1e-3),
	       "rate_ewma 0: a queue of 4 B T weighs a quarter, and still holds U above 1 once drained (%.4f, %.4f)",
	       q0, both);
	/* txRate averaged: 0.8, 0.85 (+ 4 of queue), 0.8375 */
	tap_ok(near(q1, 4.85, 1e-3) && near(rate, 0.8375, 1e-3),
	       "rate_ewma 1: the queue counts whole while it lasts, not once drained (%.4f, %.4f)",
	       q1, rate);

	/* a forged 4 GB queue in two reports: W at w_min at once, as in the
	 * draft, and nothing of it in the average: the next genuine report
	 * (no queue, u' 0.8) reads the txRate average alone
	 */
	c.ewma_rtts = 4;
	c.hop_ewma = 1;
	c.rate_ewma = 1;
	hpcc_law_start(&s, &c, W(20000), 0);
	L[0] = hop(0, 0, UINT32_MAX, 1000, 1);
	hpcc_law_report(&s, &c, L, 1, 1, 1);
	L[0] = hop(10000, 0, UINT32_MAX, 1000, 1);
	hpcc_law_report(&s, &c, L, 1, 1, 1);
	forged = s.u == HPCC_U_MAX && s.w == c.w_min && s.prev[0].u_avg == 0;
	L[0] = hop(20000, 1000, 0, 1000, 1);
	hpcc_law_report(&s, &c, L, 1, 1, 1);
	tap_ok(forged && near(u_of(s.u), 0.2, 1e-3),
	       "rate_ewma 1: a forged 4 GB queue sets W to w_min in one report and leaves no memory (U then %.4f)",
	       u_of(s.u));
}

/* The min filter's reach: U after a first report with no queue, a second
 * @gap_t T later with 4 B T of queue at u' 0.8 (1 Gbit/s, T = 10 us: B T
 * = 1250 bytes) and, with @third, a third 1 T after that with 8 B T.
 */
static double qmin_run(uint32_t qmin_span, uint32_t first_qmin,
		       unsigned int gap_t, bool third)
{
	struct hpcc_law_cfg c = cfg_10us();
	uint64_t ts = gap_t * 10000ULL;
	struct hpcc_sample L[1];
	struct hpcc_law s;

	c.qmin_span = qmin_span;
	c.first_qmin = first_qmin;
	hpcc_law_start(&s, &c, W(20000), 0);
	L[0] = hop(0, 0, 0, 1000, 1);
	hpcc_law_report(&s, &c, L, 1, 1, 1);
	L[0] = hop(ts, gap_t * 1000ULL, 5000, 1000, 1);
	hpcc_law_report(&s, &c, L, 1, 1, 1);
	if (third) {
		L[0] = hop(ts + 10000, gap_t * 1000ULL + 1000, 10000, 1000, 1);
		hpcc_law_report(&s, &c, L, 1, 1, 1);
	}
	return u_of(s.u);
}

static void test_qmin(void)
{
	double draft = qmin_run(0, 0, 3, false), near2 = qmin_run(2, 0, 1, false),
	       far2 = qmin_run(2, 0, 3, false), far4 = qmin_run(4, 0, 3, false),
	       first = qmin_run(0, 1, 1, false), later = qmin_run(0, 1, 1, true);

	tap_ok(near(draft, 0.8, 1e-3) && near(near2, 0.8, 1e-3),
	       "qmin_span 0 (draft), or samples within it: min(qlen, prev qlen) hides the new queue (U %.4f, %.4f)",
	       draft, near2);
	tap_ok(near(far2, 4.8, 1e-3) && near(far4, 0.8, 1e-3),
	       "qmin_span 2: a sample 3 T after the last counts its queue whole (U %.4f; qmin_span 4: %.4f)",
	       far2, far4);
	tap_ok(near(first, 4.8, 1e-3),
	       "first_qmin 1: the second report counts its queue whole (U %.4f)",
	       first);
	tap_ok(near(later, 4.8, 1e-3),
	       "first_qmin 1: from the second sample on, min(qlen, prev qlen) as the draft (U %.4f, not 8.8)",
	       later);
}

/* ai_time: Wc after @n reports @gap_t T apart on a 1 Gbit/s hop at u'
 * 0.2 (additive increase only) plus @qlen's queue term, each report's
 * probe sent after the last commit, so every other report commits.
 */
static uint64_t ai_time_run(uint32_t ai_time, unsigned int gap_t,
			    unsigned int n, uint32_t qlen)
{
	struct hpcc_law_cfg c = cfg_10us();
	struct hpcc_sample L[1];
	struct hpcc_law s;
	uint64_t ts = 0, tx = 0;
	unsigned int k;

	c.max_stage = 1000;
	c.ai_time = ai_time;
	hpcc_law_start(&s, &c, W(20000), 0);
	for (k = 0; k < n; k++) {
		L[0] = hop(ts, tx, qlen, 1000, 1);
		hpcc_law_report(&s, &c, L, 1, k, k + 1);
		ts += gap_t * 10000ULL;
		tx += gap_t * 250;	/* 1250 bytes a T: u' 0.2 */
	}
	return s.wc;
}

static void test_ai_time(void)
{
	uint64_t per_t0 = ai_time_run(0, 1, 21, 0);
	uint64_t per_t1 = ai_time_run(1, 1, 21, 0);
	uint64_t gap0 = ai_time_run(0, 4, 21, 0);
	uint64_t gap1 = ai_time_run(1, 4, 21, 0);
	uint64_t far1 = ai_time_run(1, 40, 21, 0);
	/* a queue of 0.8 B T: u' 1.0 >= eta, W = 0.95 Wc + W_ai a commit */
	uint64_t busy0 = ai_time_run(0, 4, 21, 1000);
	uint64_t busy1 = ai_time_run(1, 4, 21, 1000);

	/* 21 reports: 20 measured, 10 commits */
	tap_ok(per_t0 == W(20000 + 1000) && per_t1 == per_t0,
	       "ai_time: a report every T, W_ai a commit either way (Wc %llu, %llu)",
	       (unsigned long long)(per_t0 >> HPCC_W_SHIFT),
	       (unsigned long long)(per_t1 >> HPCC_W_SHIFT));
	/* the first commit spans one report, 4 T: 2 W_ai; then 4 a commit,
	 * less the span's ns >> 10 truncation
	 */
	tap_ok(gap0 == per_t0 && gap1 > W(20000 + 3700) &&
	       gap1 <= W(20000 + 3800),
	       "ai_time: a report every 4 T, about 4 W_ai a commit (Wc %llu) against 1 (%llu)",
	       (unsigned long long)(gap1 >> HPCC_W_SHIFT),
	       (unsigned long long)(gap0 >> HPCC_W_SHIFT));
	tap_ok(far1 == W(20000 + HPCC_AI_TIME_MAX * 1000),
	       "ai_time: a report every 40 T, at most %d W_ai a commit (Wc %llu)",
	       HPCC_AI_TIME_MAX, (unsigned long long)(far1 >> HPCC_W_SHIFT));
	/* 10 commits from 20000 towards W_ai / 0.05 = 2000 bytes */
	tap_ok(busy1 == busy0 && busy0 < W(13000) && busy0 > W(12500),
	       "ai_time: U >= eta, a report every 4 T: one W_ai a commit (Wc %llu, %llu)",
	       (unsigned long long)(busy1 >> HPCC_W_SHIFT),
	       (unsigned long long)(busy0 >> HPCC_W_SHIFT));
}

/* law_time: the committed rate Wc / T of a flow of base RTT @t_ns behind
 * a 1 Gbit/s hop sending at 1 / @load_div of its capacity with a queue of
 * @qlen (U 1 / load_div + qlen / (B T'), T' = 50 us), after @reports
 * reports T apart, relative to its start at half the BDP; the probe of
 * each report left after the last commit.
 */
static double law_time_rate(uint32_t law_time, uint64_t t_ns,
			    unsigned int reports, uint32_t qlen,
			    unsigned int load_div)
{
	struct hpcc_law_cfg c = cfg_10us();
	uint64_t ts = 0, tx = 0, w0 = W(t_ns / 16);
	struct hpcc_sample L[1];
	struct hpcc_law s;
	unsigned int k;

	c.t_ns = t_ns;
	c.q_t_ns = 50000;
	c.law_time = law_time;
	c.max_stage = 0;
	c.w_ai = W(t_ns / 1000);	/* in proportion to T */
	c.w_min = W(1);
	c.w_max = W(10000000);
	hpcc_law_start(&s, &c, w0, 0);
	for (k = 0; k < reports; k++) {
		L[0] = hop(ts, tx, qlen, 1000, 1);
		hpcc_law_report(&s, &c, L, 1, k, k + 1);
		ts += t_ns;
		tx += t_ns / 8 / load_div;	/* 0.125 bytes per ns: B */
	}
	return (double)s.wc / (double)w0;
}

static void test_law_time(void)
{
	/* 1250 B: U 1.2 at T' 50 us, for 200 us: 20 reports of the 10 us
	 * flow (10 commits), 4 of the 50 us one (2 commits)
	 */
	double short0 = law_time_rate(0, 10000, 21, 1250, 1);
	double long0 = law_time_rate(0, 50000, 5, 1250, 1);
	double short1 = law_time_rate(1, 10000, 21, 1250, 1);
	double long1 = law_time_rate(1, 50000, 5, 1250, 1);
	double idle_short = law_time_rate(1, 10000, 21, 0, 2);
	double idle_long = law_time_rate(1, 50000, 5, 0, 2);
	struct hpcc_law_cfg c = cfg_10us();
	double worst = 0;
	struct hpcc_law s;

	tap_ok(long1 == long0,
	       "law_time: a flow whose T is queue_t takes the draft's steps (W x%.4f)",
	       long1);
	tap_ok(law_time_rate(1, 60000, 5, 1250, 1) ==
	       law_time_rate(0, 60000, 5, 1250, 1) &&
	       law_time_rate(1, 60000, 5, 0, 2) ==
	       law_time_rate(0, 60000, 5, 0, 2),
	       "law_time: a flow of a longer T than queue_t keeps the draft's law");
	tap_ok(short0 < long0 / 3,
	       "law_time 0: 200 us of U 1.2 cut the 10 us flow five times as often, to under a third of the 50 us flow's rate (x%.4f, x%.4f)",
	       short0, long0);
	tap_ok(near(short1, long1, 0.05),
	       "law_time 1: the same 200 us cut both flows' rates alike (x%.4f, x%.4f)",
	       short1, long1);
	tap_ok(idle_short > 2 && near(idle_short, idle_long, 0.1),
	       "law_time 1: at U 0.5 both rates grow alike, within 10%% (x%.4f, x%.4f)",
	       idle_short, idle_long);

	/* a fifth of a step against (eta / U)^(1/5) */
	c.law_time = 1;
	s.wc = W(100000);
	for (double u = 0.95 / 2; u <= 0.95 * 2; u *= 1.01) {
		s.u = UFIX(u);
		worst = fmax(worst, fabs(w_of(hpcc_law_mult(&s, &c,
							   HPCC_U_ONE / 5)) /
					 (100000 * pow(0.95 / u, 0.2)) - 1));
	}
	tap_ok(worst < 0.01,
	       "law_time: a fifth of a step within 1%% of Wc (eta / U)^(1/5) for U in [eta / 2, 2 eta] (worst %.2g)",
	       worst);

	/* hostile reports: any queue, rate and clock, U from 0 to its cap */
	c = cfg_10us();
	c.law_time = 1;
	c.q_t_ns = 50000;
	c.max_stage = 1;
	c.w_min = W(1);
	c.w_max = HPCC_W_LIMIT;
	hpcc_law_start(&s, &c, W(625), 0);
	for (int k = 0, bad = 0; k <= 100000; k++) {
		struct hpcc_sample L[1];

		L[0] = hop(rnd() % 4 ? k * 10000ULL + rnd() % 20000 : rnd(),
			   rnd() % 4 ? k * 1250ULL * (rnd() % 3) : rnd(),
			   (uint32_t)(rnd() % 4 ? rnd() % 100000 : rnd()),
			   rnd() % 8 ? 1000 : (uint32_t)rnd(), 1);
		hpcc_law_report(&s, &c, L, 1, k, k + 1);
		if (s.w < c.w_min || s.w > c.w_max || s.wc > c.w_max)
			bad++;
		if (k == 100000)
			tap_ok(!bad,
			       "law_time: 100000 hostile reports never take W out of [w_min, w_max] (%d did)",
			       bad);
	}
}

int main(void)
{
	test_qdiv();
	test_hand_cases();
	test_hostile();
	test_first_w();
	test_queue_t();
	test_pacing_rate();
	test_hop_ewma();
	test_rate_ewma();
	test_qmin();
	test_ai_time();
	test_law_time();
	test_random_vs_model();
	return tap_done();
}
