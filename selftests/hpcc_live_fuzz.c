// SPDX-License-Identifier: GPL-2.0
/*
 * Mutated telemetry with the LIVE nonce of real hpcc flows:
 *
 *   hpcc_live_fuzz -s ADDR -p PORT -i DEV [-n MIN_ACCEPTED] [-g GROUPS]
 *                  [-t MAX_SECS] [-S SEED]
 *
 * Connects to an hpcc_stress sink at ADDR:PORT with LF_FLOWS hpcc flows,
 * each carrying a pattern stream the whole time, and a cubic connection,
 * and attaches progs/live_fuzz.bpf.c to DEV's tc egress. A thread per
 * flow fuzzes it (the flows run side by side: one report per probe, one
 * probe per ACK, so a single flow waits on its RTT most of the time).
 * Each probe of a flow is answered there with the next group of reports
 * queued here for it:
 * up to three malformed ones (size, version, room, nhops, flags, OVERFLOW,
 * a wrong or zero nonce, the cubic socket), then one well-formed report
 * with random hop records (nhops 0..8; capacities 0, 1, huge, random;
 * queues up to 4 GiB; timestamps repeating, going backwards, jumping past
 * 2^32 ns; byte counters standing, going backwards, wrapping past 2^64,
 * jumping past 2^50), which carries the live nonce and so reaches the
 * window law, sometimes followed by its replay. Every return code is
 * compared with the one the kfunc's rules give for that report.
 *
 * Every GROUPS groups (an epoch) the flow's thread waits until it has
 * consumed the last report (it probes again only after that; the probe
 * finds the queue empty) and checks the flow in /proc/net/tcp_hpcc:
 *
 *  - after random reports, what holds whatever the telemetry said:
 *    mss <= W, Wc <= 2^32 bytes (the law's w_min and its representable
 *    limit); R <= the capacity of the last report that had one (the law
 *    caps the pacing rate at min_i B_i of the report it used; exact);
 *    U <= 2^20 (saturation; u_permille <= 2^20 * 1000); incStage <=
 *    max_stage; hops <= 8;
 *  - then two sane reports of one path (B_1 = 100 Gbit/s, B_2 chosen per
 *    epoch from 10 Mbit/s to 40 Gbit/s, same switches and ports, 0.2-2 ms
 *    apart, at most 1.2 times the link's bytes): the second is usable, so
 *    the law recomputes W within its bounds for that path, and after it:
 *    mss <= W <= max(mss, 4 B_2 T) (+1 byte of rounding), T the flow's
 *    t_us; R <= B_2; R = min(W / T, B_2) within the fixed point's 1e-6
 *    (unless LossReductions or LossUndone moved meanwhile: a loss scales
 *    W by loss_beta, its undo back, and both leave R to the next
 *    report); U finite as above; hops 2.
 *
 * At the end the kernel's counters must agree with the return codes
 * (ReportsAccepted and each Reject* by exactly the counts seen here;
 * ReportsUsed + ReportsNoCapacity = accepted; ReportsNoCapacity = the
 * accepted reports without a capacity), and every flow's stream must
 * have arrived byte-exact (the sink's SHA-256 and byte count). The seed
 * of each flow's generator is printed; -S reproduces a run's reports.
 * LF_DEBUG=1 in the environment dumps /proc/net/tcp_hpcc with each
 * settled check that fails. Prints TAP
 * lines without a plan (the calling script adds its own and the plan).
 */
#define _GNU_SOURCE
#include <linux/pkt_cls.h>
#include <net/if.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <bpf/libbpf.h>

#include "hpcc_stream.h"
#include "hpcc_wire.h"
#include "progs/live_fuzz.h"
#include "live_fuzz.skel.h"
#include "tap.h"

/* ---- what each report should get back ------------------------------------ */

enum {
	RC_OK, RC_MSGSIZE, RC_PROTO, RC_RANGE, RC_BADMSG, RC_2BIG, RC_NOTSUPP,
	RC_STALE, RC_OTHER, RC_MAX
};
static const int x_errno[RC_MAX] = { 0, -EMSGSIZE, -EPROTONOSUPPORT, -ERANGE,
	-EBADMSG, -E2BIG, -EOPNOTSUPP, -ESTALE, 1 };
static const char *const x_name[RC_MAX] = { "accepted", "EMSGSIZE",
	"EPROTONOSUPPORT", "ERANGE", "EBADMSG", "E2BIG", "EOPNOTSUPP",
	"ESTALE", "other" };
static const char *const x_stat[RC_MAX] = { "ReportsAccepted", "RejectSize",
	"RejectVersion", "RejectHops", "RejectFlags", "RejectOverflow",
	"RejectNotHpcc", "RejectNonce", NULL };

static int x_of(int rc)
{
	for (int i = 0; i < RC_OTHER; i++)
		if (x_errno[i] == rc)
			return i;
	return RC_OTHER;
}

/* The kfunc's rules, in its order (hpcc_wire_check(), bpf_hpcc_report(),
 * hpcc_stash_report()). *live: the probe's nonce is still unanswered.
 */
static int expect(const struct lf_entry *e, int *live)
{
	const struct hpcc_hdr *h = &e->p.hdr;

	if (e->size != LF_SZ_FULL)
		return RC_MSGSIZE;
	/* a known version at the other's length: the length is wrong */
	if (h->version == HPCC_WIRE_V2)
		return RC_MSGSIZE;
	if (h->version != HPCC_WIRE_V1)
		return RC_PROTO;
	if (h->room != HPCC_MAX_HOPS || h->nhops > h->room)
		return RC_RANGE;
	if (h->flags & ~HPCC_F_KNOWN)
		return RC_BADMSG;
	if (!(h->flags & HPCC_F_RESPONSE))
		return RC_BADMSG;
	if (h->flags & HPCC_F_OVERFLOW)
		return RC_2BIG;
	if (e->flags & LF_CUBIC)
		return RC_NOTSUPP;
	/* a XOR of 0 would be the live nonce: never queued */
	if (!*live || (e->flags & (LF_NONCE_XOR | LF_NONCE_RAW)))
		return RC_STALE;
	*live = 0;
	return RC_OK;
}

/* ---- per flow ------------------------------------------------------------ */

struct fz {
	int idx;			/* in the BPF program's arrays */
	int fd, lport;
	unsigned int mss;
	uint64_t seed;
	/* what the well-formed reports said last, per hop index */
	struct {
		uint32_t switch_id, port_id, rate;
		uint64_t ts, tx;
	} prev[HPCC_MAX_HOPS];
	/* the queue */
	int expected[LF_RING];
	uint32_t queued, checked;	/* entries given to / checked from BPF */
	unsigned long n_rc[RC_MAX], n_mismatch, n_accepted_nocap;
	uint32_t last_cap;		/* capacity of the last report with one */
	uint64_t settle_ts, settle_tx;
	double quiet_secs;
	unsigned long epochs, groups;
	int stalled;
	/* checks */
	unsigned long n_checks_a, n_checks_b, bad_a, bad_b, loss_w;
	/* the data */
	pthread_t sender, fuzzer;
	struct pattern pat;
	struct sha256 sha;
	uint64_t sent;
	int send_err;
};

static struct live_fuzz_bpf *skel;
static struct fz flows[LF_FLOWS];
static atomic_ulong total_accepted;
static atomic_int stop_fuzz, stop_data;
static unsigned long min_accepted = 10000, max_stage_param = 100;
static int groups = 100;
static double max_secs = 300, stall_limit = 30, t_start;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- the generator --------------------------------------------------------- */

static uint64_t rnd(struct fz *z)
{
	z->seed ^= z->seed << 13;
	z->seed ^= z->seed >> 7;
	z->seed ^= z->seed << 17;
	return z->seed;
}

static unsigned int pct(struct fz *z)
{
	return rnd(z) % 100;
}

static uint32_t gen_rate(struct fz *z, unsigned int i)
{
	static const uint32_t sane[] = { 100, 1000, 10000, 100000, 400000 };
	unsigned int p = pct(z);

	if (p < 40 && z->prev[i].rate)
		return z->prev[i].rate;
	if (p < 65)
		return sane[rnd(z) % 5];
	if (p < 75)
		return 0;
	if (p < 78)
		return 1;
	if (p < 80)
		return 2 + rnd(z) % 98;
	if (p < 90)
		return UINT32_MAX;
	return (uint32_t)rnd(z);
}

static uint32_t gen_qlen(struct fz *z)
{
	unsigned int p = pct(z);

	if (p < 30)
		return 0;
	if (p < 60)
		return rnd(z) % 200000;
	if (p < 80)
		return UINT32_MAX;
	return (uint32_t)rnd(z);
}

static uint64_t gen_ts(struct fz *z, uint64_t last)
{
	unsigned int p = pct(z);

	if (p < 40)
		return last + 1000 + rnd(z) % 5000000;		/* 1 us - 5 ms */
	if (p < 50)
		return last;					/* dt = 0 */
	if (p < 65)
		return last - rnd(z) % (1ULL << 40);		/* backwards */
	if (p < 75)
		return last + (1ULL << 32) + rnd(z) % (1ULL << 40); /* > 2^32 */
	if (p < 90)
		return rnd(z);
	return last + 1;
}

static uint64_t gen_tx(struct fz *z, uint64_t last)
{
	unsigned int p = pct(z);

	if (p < 40)
		return last + rnd(z) % 10000000;
	if (p < 50)
		return last;
	if (p < 60)
		return last - 1 - rnd(z) % (1ULL << 40);	/* backwards */
	if (p < 70)
		return UINT64_MAX - rnd(z) % 1000000;		/* wraps next */
	if (p < 80)
		return last + (1ULL << 50) + rnd(z) % (1ULL << 60); /* > 2^50 */
	return rnd(z);
}

static void gen_hops(struct fz *z, struct hpcc_probe *p, unsigned int nhops)
{
	for (unsigned int i = 0; i < nhops; i++) {
		struct hpcc_hop *h = &p->hop[i];

		if (!z->prev[i].switch_id || pct(z) < 15) {
			z->prev[i].switch_id = pct(z) < 50 ? i + 1 : (uint32_t)rnd(z);
			z->prev[i].port_id = pct(z) < 50 ? 100 + i : (uint32_t)rnd(z);
		}
		z->prev[i].rate = gen_rate(z, i);
		z->prev[i].ts = gen_ts(z, z->prev[i].ts);
		z->prev[i].tx = gen_tx(z, z->prev[i].tx);
		h->switch_id = htonl(z->prev[i].switch_id);
		h->port_id = htonl(z->prev[i].port_id);
		h->rate_mbps = htonl(z->prev[i].rate);
		h->qlen = htonl(gen_qlen(z));
		h->ts_ns = htobe64(z->prev[i].ts);
		h->tx_bytes = htobe64(z->prev[i].tx);
	}
}

static void gen_valid(struct fz *z, struct lf_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->p.hdr.version = HPCC_WIRE_VERSION;
	e->p.hdr.flags = HPCC_F_RESPONSE;
	e->p.hdr.room = HPCC_MAX_HOPS;
	e->p.hdr.nhops = rnd(z) % (HPCC_MAX_HOPS + 1);
	e->p.hdr.send_ns = htobe64(rnd(z));
	gen_hops(z, &e->p, e->p.hdr.nhops);
	/* bytes past nhops are not hop records: garbage there too */
	for (unsigned int i = e->p.hdr.nhops; i < HPCC_MAX_HOPS; i++)
		if (pct(z) < 20)
			memset(&e->p.hop[i], rnd(z), sizeof(e->p.hop[i]));
}

/* A report with one to three defects (most are structural). */
static void gen_mutant(struct fz *z, struct lf_entry *e)
{
	unsigned int n = 1 + rnd(z) % 3;

	gen_valid(z, e);
	while (n--) {
		switch (rnd(z) % 11) {
		case 0:
			e->size = rnd(z) & 1 ? LF_SZ_SHORT : LF_SZ_HDR;
			break;
		case 1:
			e->p.hdr.version = 2 + rnd(z) % 254;
			break;
		case 2:
			e->p.hdr.room = rnd(z) % 256;
			if (e->p.hdr.room == HPCC_MAX_HOPS)
				e->p.hdr.room = 0;
			break;
		case 3:
			e->p.hdr.nhops = HPCC_MAX_HOPS + 1 +
					 rnd(z) % (255 - HPCC_MAX_HOPS);
			break;
		case 4:
			e->p.hdr.flags |= 4 << (rnd(z) % 6);
			break;
		case 5:
			e->p.hdr.flags &= ~HPCC_F_RESPONSE;
			break;
		case 6:
		case 7:
			e->p.hdr.flags |= HPCC_F_OVERFLOW;
			break;
		case 8:
			e->flags = (e->flags & ~LF_NONCE_RAW) | LF_NONCE_XOR;
			e->p.hdr.nonce = (uint32_t)rnd(z) | 0x100;
			break;
		case 9:
			e->flags = (e->flags & ~LF_NONCE_XOR) | LF_NONCE_RAW;
			e->p.hdr.nonce = 0;
			break;
		case 10:
			e->flags |= LF_CUBIC;
			break;
		}
	}
}

/* ---- the queue ----------------------------------------------------------- */

static uint32_t bpf_tail(struct fz *z)
{
	return __atomic_load_n(&skel->bss->tail[z->idx], __ATOMIC_ACQUIRE);
}

static uint64_t bpf_idle(struct fz *z)
{
	return __atomic_load_n(&skel->bss->probes_idle[z->idx], __ATOMIC_ACQUIRE);
}

/* Compare the return codes of everything the program has taken. */
static void check_rcs(struct fz *z)
{
	uint32_t t = bpf_tail(z);

	for (; z->checked != t; z->checked++) {
		uint32_t idx = z->checked & (LF_RING - 1);
		int rc = skel->bss->rc[z->idx][idx], x = x_of(rc);

		z->n_rc[x]++;
		if (x == RC_OK)
			atomic_fetch_add(&total_accepted, 1);
		if (x != z->expected[idx]) {
			if (z->n_mismatch < 5) {
				pthread_mutex_lock(&out_lock);
				printf("# flow %d entry %u: kfunc returned %d, expected %s\n",
				       z->idx, z->checked, rc,
				       x_name[z->expected[idx]]);
				pthread_mutex_unlock(&out_lock);
			}
			z->n_mismatch++;
		}
	}
}

/* Queue one probe's entries, published together (the program must see a
 * group whole: its expected codes assume one probe's nonce throughout),
 * waiting for room. 0, or -1 if the flow stopped taking them.
 */
static int push(struct fz *z, const struct lf_entry *e, const int *x, int n)
{
	double t0 = hs_now();

	while (z->queued + n - bpf_tail(z) > LF_RING) {
		check_rcs(z);
		if (hs_now() - t0 > stall_limit)
			return -1;
		usleep(1000);
	}
	check_rcs(z);
	for (int k = 0; k < n; k++) {
		uint32_t i = (z->queued + k) & (LF_RING - 1);

		skel->bss->ring[z->idx][i] = e[k];
		z->expected[i] = x[k];
	}
	z->queued += n;
	__atomic_store_n(&skel->bss->head[z->idx], z->queued, __ATOMIC_RELEASE);
	return 0;
}

static uint32_t bmin_of(const struct lf_entry *e)
{
	uint32_t b = 0;

	for (unsigned int i = 0; i < e->p.hdr.nhops && i < HPCC_MAX_HOPS; i++) {
		uint32_t r = ntohl(e->p.hop[i].rate_mbps);

		if (r && (!b || r < b))
			b = r;
	}
	return b;
}

/* One probe's worth: [mutants] [valid [replay] [late mutant]]. */
static int push_group(struct fz *z)
{
	struct lf_entry e[6];
	int x[6], n = 0, live = 1, k, pre = rnd(z) % 4;

	for (k = 0; k < pre; k++) {
		gen_mutant(z, &e[n]);
		x[n] = expect(&e[n], &live);
		n++;
	}
	if (pct(z) >= 5) {
		gen_valid(z, &e[n]);
		x[n] = expect(&e[n], &live);
		if (x[n] == RC_OK) {
			uint32_t b = bmin_of(&e[n]);

			if (b)
				z->last_cap = b;
			else
				z->n_accepted_nocap++;
		}
		n++;
		if (pct(z) < 30) {
			e[n] = e[n - 1];
			x[n] = expect(&e[n], &live);
			n++;
		}
		if (pct(z) < 10) {
			gen_mutant(z, &e[n]);
			x[n] = expect(&e[n], &live);
			n++;
		}
	}
	if (!n) {
		gen_mutant(z, &e[n]);
		x[n] = expect(&e[n], &live);
		n++;
	}
	e[n - 1].flags |= LF_LAST;
	return push(z, e, x, n);
}

/* Two sane reports of a path with bottleneck b2 Mbit/s (see the top). */
static int push_settle(struct fz *z, uint32_t b2)
{
	struct lf_entry e[2];
	uint64_t dt = 200000 + rnd(z) % 1800000;	/* 0.2 - 2 ms */
	uint64_t dtx = dt * b2 / 8000 * (rnd(z) % 121) / 100;
	int live, x;

	for (int k = 0; k < 2; k++) {
		memset(&e[k], 0, sizeof(e[k]));
		e[k].p.hdr.version = HPCC_WIRE_VERSION;
		e[k].p.hdr.flags = HPCC_F_RESPONSE;
		e[k].p.hdr.room = HPCC_MAX_HOPS;
		e[k].p.hdr.nhops = 2;
		e[k].flags = LF_LAST;
		e[k].p.hop[0].switch_id = htonl(7001);
		e[k].p.hop[0].port_id = htonl(1);
		e[k].p.hop[0].rate_mbps = htonl(100000);
		e[k].p.hop[0].qlen = htonl(rnd(z) % 20000);
		e[k].p.hop[0].ts_ns = htobe64(z->settle_ts + k * dt);
		e[k].p.hop[0].tx_bytes = htobe64(z->settle_tx + k * dtx / 4);
		e[k].p.hop[1].switch_id = htonl(7002);
		e[k].p.hop[1].port_id = htonl(2);
		e[k].p.hop[1].rate_mbps = htonl(b2);
		e[k].p.hop[1].qlen = htonl(rnd(z) % 20000);
		e[k].p.hop[1].ts_ns = htobe64(z->settle_ts + 5000 + k * dt);
		e[k].p.hop[1].tx_bytes = htobe64(z->settle_tx + k * dtx);
		live = 1;
		x = expect(&e[k], &live);
		if (push(z, &e[k], &x, 1))
			return -1;
	}
	z->settle_ts += 10ULL * 1000000000;
	z->settle_tx += 1ULL << 36;
	z->last_cap = b2;
	return 0;
}

/* Until everything queued was taken and the flow probed again after that
 * (so it consumed the last report). 0, or -1 after stall_limit.
 */
static int wait_quiet(struct fz *z)
{
	double t0 = hs_now();
	uint64_t idle0;
	int ret = -1;

	while (bpf_tail(z) != z->queued) {
		if (hs_now() - t0 > stall_limit)
			return -1;
		usleep(1000);
	}
	check_rcs(z);
	z->quiet_secs -= hs_now();
	idle0 = bpf_idle(z);
	while (bpf_idle(z) == idle0) {
		if (hs_now() - t0 > stall_limit)
			goto out;
		usleep(1000);
	}
	ret = 0;
out:
	z->quiet_secs += hs_now();
	return ret;
}

/* ---- the flow's state ------------------------------------------------------ */

struct flow {
	char mode[8];
	unsigned long long w, wc, u, stage, bottleneck, rate, t_us, hops;
};

static int read_flow(int lport, struct flow *f)
{
	char line[512], local[80], want[16];
	FILE *p = fopen("/proc/net/tcp_hpcc", "r");
	struct flow t;
	int found = 0;

	snprintf(want, sizeof(want), ":%d", lport);
	while (!found && p && fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%79s %*s %7s %llu %llu %llu %llu %llu %llu %llu %*s %*s %llu",
			   local, t.mode, &t.w, &t.wc, &t.u, &t.stage,
			   &t.bottleneck, &t.rate, &t.t_us, &t.hops) == 10 &&
		    strlen(local) > strlen(want) &&
		    !strcmp(local + strlen(local) - strlen(want), want)) {
			*f = t;
			found = 1;
		}
	}
	if (p)
		fclose(p);
	return found ? 0 : -1;
}

#define U_MAX_PERMILLE	(1048576ULL * 1000)	/* HPCC_U_MAX in per mille */
#define W_LIMIT_BYTES	(1ULL << 32)

static void bad(struct fz *z, unsigned long *count, const char *what,
		const struct flow *f, const char *fmt, ...)
{
	va_list ap;

	if (++*count > 3)
		return;
	pthread_mutex_lock(&out_lock);
	printf("# flow %d, %s out of bounds: mode %s W %llu Wc %llu U %llu/1000 stage %llu R %llu T %llu us hops %llu: ",
	       z->idx, what, f->mode, f->w, f->wc, f->u, f->stage, f->rate,
	       f->t_us, f->hops);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	pthread_mutex_unlock(&out_lock);
}

/* Bounds that hold after any report (see the top). */
static void check_any(struct fz *z, const struct flow *f, int started)
{
	unsigned int mss = z->mss;

	z->n_checks_a++;
	if (started && (f->w < mss || f->wc < mss))
		bad(z, &z->bad_a, "any", f, "W or Wc below mss %u", mss);
	else if (f->w > W_LIMIT_BYTES || f->wc > W_LIMIT_BYTES)
		bad(z, &z->bad_a, "any", f, "W or Wc above 2^32");
	else if (f->rate > (unsigned long long)z->last_cap * 125000)
		bad(z, &z->bad_a, "any", f, "R above the last capacity %u Mbit/s",
		    z->last_cap);
	else if (f->u > U_MAX_PERMILLE)
		bad(z, &z->bad_a, "any", f, "U above 2^20");
	else if (f->stage > max_stage_param)
		bad(z, &z->bad_a, "any", f, "stage above max_stage %lu",
		    max_stage_param);
	else if (f->hops > HPCC_MAX_HOPS)
		bad(z, &z->bad_a, "any", f, "more than 8 hops");
}

/* Bounds after the sane pair of a path with bottleneck b2 Mbit/s. A loss
 * in between (loss_w) scales W by loss_beta and leaves R for the next
 * report: then R is only held to B.
 */
static void check_settled(struct fz *z, const struct flow *f, uint32_t b2,
			  int loss_w)
{
	double t = f->t_us, cap = (double)b2 * 125000;
	double bdp = (double)b2 * t / 8, wmax, r_lo, r_hi;
	unsigned int mss = z->mss;

	z->n_checks_b++;
	if (bdp > (double)(1ULL << 30))
		bdp = (double)(1ULL << 30);
	wmax = 4 * bdp > mss ? 4 * bdp : mss;
	r_hi = (f->w + 1) * 1e6 / t * (1 + 1e-6) + 1;
	r_lo = f->w * 1e6 / t * (1 - 1e-6) - 1;
	if (r_hi > cap)
		r_hi = cap;
	if (r_lo > cap)
		r_lo = cap - 1;
	if (!f->t_us)
		bad(z, &z->bad_b, "settled", f, "T is 0");
	else if (f->w < mss)
		bad(z, &z->bad_b, "settled", f, "W below mss %u", mss);
	else if (f->w > wmax * (1 + 1e-6) + 1)
		bad(z, &z->bad_b, "settled", f, "W above max(mss, 4 B T) = %.0f (B %u Mbit/s)",
		    wmax, b2);
	else if (f->rate > cap)
		bad(z, &z->bad_b, "settled", f, "R above B = %.0f B/s", cap);
	else if (!loss_w && (f->rate > r_hi || f->rate < r_lo))
		bad(z, &z->bad_b, "settled", f, "R is not min(W / T, B): expected %.0f..%.0f",
		    r_lo, r_hi);
	else if (f->u > U_MAX_PERMILLE)
		bad(z, &z->bad_b, "settled", f, "U above 2^20");
	else if (f->stage > max_stage_param)
		bad(z, &z->bad_b, "settled", f, "stage above max_stage");
	else if (f->hops != 2)
		bad(z, &z->bad_b, "settled", f, "not the 2 hops of the sane reports");
}

/* Epochs: random groups, check; a sane pair, check. Until the flows
 * together had min_accepted reports accepted and this one 3 epochs.
 */
static void *fuzzer(void *arg)
{
	static const uint32_t b2s[] = { 10, 100, 1000, 10000, 40000 };
	struct fz *z = arg;
	struct flow f = { .mode = "-" };
	long long loss0;
	int started = 0;

	while ((atomic_load(&total_accepted) < min_accepted || z->epochs < 3) &&
	       hs_now() - t_start < max_secs && !atomic_load(&stop_fuzz)) {
		uint32_t b2 = b2s[(z->epochs + z->idx) % 5];

		for (int g = 0; g < groups; g++, z->groups++)
			if (push_group(z))
				goto stall;
		if (wait_quiet(z))
			goto stall;
		if (!read_flow(z->lport, &f))
			check_any(z, &f, started);
		else
			bad(z, &z->bad_a, "any", &f, "flow not in /proc/net/tcp_hpcc");
		loss0 = hs_stat("LossReductions") + hs_stat("LossUndone");
		if (push_settle(z, b2) || wait_quiet(z))
			goto stall;
		started = 1;
		if (!read_flow(z->lport, &f)) {
			unsigned long before = z->bad_b;
			int loss = hs_stat("LossReductions") +
				   hs_stat("LossUndone") != loss0;

			z->loss_w += loss;
			check_settled(z, &f, b2, loss);
			if (getenv("LF_DEBUG") && z->bad_b != before) {
				FILE *pf = fopen("/proc/net/tcp_hpcc", "r");
				char line[512];

				pthread_mutex_lock(&out_lock);
				printf("# DEBUG flow %d port %d queued %u tail %u head %u probes %llu idle %llu\n",
				       z->idx, z->lport, z->queued, bpf_tail(z),
				       skel->bss->head[z->idx],
				       (unsigned long long)skel->bss->probes[z->idx],
				       (unsigned long long)bpf_idle(z));
				while (pf && fgets(line, sizeof(line), pf))
					printf("# DEBUG %s", line);
				if (pf)
					fclose(pf);
				pthread_mutex_unlock(&out_lock);
			}
		} else
			bad(z, &z->bad_b, "settled", &f, "flow not in /proc/net/tcp_hpcc");
		z->epochs++;
	}
	check_rcs(z);
	return NULL;
stall:
	z->stalled = 1;
	check_rcs(z);
	return NULL;
}

/* ---- the data ---------------------------------------------------------------- */

static void *sender(void *arg)
{
	static __thread uint8_t buf[1 << 15];
	struct fz *z = arg;

	while (!atomic_load(&stop_data)) {
		ssize_t off = 0;

		pattern_fill(&z->pat, buf, sizeof(buf));
		sha256_update(&z->sha, buf, sizeof(buf));
		while (off < (ssize_t)sizeof(buf)) {
			ssize_t w = write(z->fd, buf + off, sizeof(buf) - off);

			if (w < 0) {
				z->send_err = errno;
				return NULL;
			}
			off += w;
		}
		z->sent += sizeof(buf);
	}
	return NULL;
}

static unsigned long param(const char *name)
{
	char path[128];
	unsigned long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/tcp_hpcc/parameters/%s", name);
	f = fopen(path, "r");
	if (f && fscanf(f, "%lu", &v) != 1)
		v = 0;
	if (f)
		fclose(f);
	return v;
}

/* The sink's reply to a stream: 0 if it matches what was sent. */
static int finish_stream(int fd, const uint8_t digest[32], uint64_t sent,
			 char rhex[65], uint64_t *rbytes)
{
	struct hs_reply rep;
	size_t len = 0;

	shutdown(fd, SHUT_WR);
	while (len < sizeof(rep)) {
		ssize_t r = read(fd, (uint8_t *)&rep + len, sizeof(rep) - len);

		if (r <= 0)
			break;
		len += r;
	}
	strcpy(rhex, "-");
	*rbytes = 0;
	if (len != sizeof(rep))
		return -1;
	hex32(rep.sha256, rhex);
	*rbytes = be64toh(rep.bytes);
	return be32toh(rep.status) != HS_OK || *rbytes != sent ||
	       memcmp(rep.sha256, digest, 32) ? -1 : 0;
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 0x4c46, .priority = 1);
	const char *addr = NULL, *dev = NULL;
	int port = 0, opt, cfd, err, nstalled = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	long long stat0[RC_MAX], used0, nocap0, lost0, stat1[RC_MAX];
	unsigned long n_rc[RC_MAX] = {}, mismatches = 0, nocap_seen = 0;
	unsigned long checks_a = 0, checks_b = 0, bad_a = 0, bad_b = 0, loss_w = 0;
	unsigned long epochs = 0, ngroups = 0, intact = 0;
	unsigned long long sent_total = 0;
	double quiet = 0;
	struct sockaddr_in local;
	socklen_t len;
	struct hs_hdr hdr;

	while ((opt = getopt(argc, argv, "s:p:i:n:g:t:S:")) != -1) {
		switch (opt) {
		case 's':
			addr = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'i':
			dev = optarg;
			break;
		case 'n':
			min_accepted = strtoul(optarg, NULL, 0);
			break;
		case 'g':
			groups = atoi(optarg);
			break;
		case 't':
			max_secs = atof(optarg);
			break;
		case 'S':
			seed = strtoull(optarg, NULL, 0) | 1;
			break;
		default:
			goto usage;
		}
	}
	if (!addr || !port || !dev || groups < 1) {
usage:
		fprintf(stderr, "usage: hpcc_live_fuzz -s ADDR -p PORT -i DEV [-n MIN_ACCEPTED] [-g GROUPS] [-t MAX_SECS] [-S SEED]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	max_stage_param = param("max_stage");
	stall_limit = max_secs / 4;

	skel = live_fuzz_bpf__open_and_load();
	if (!skel)
		return tap_bail("loading the tc program failed (is tcp_hpcc loaded, with BTF?)");
	/* the flows under test and a cubic connection beside them */
	for (int i = 0; i < LF_FLOWS; i++) {
		struct fz *z = &flows[i];

		z->idx = i;
		z->seed = seed + 0x100000001b3ULL * i;
		z->settle_ts = 1ULL << 40;
		printf("# flow %d: seed 0x%llx\n", i, (unsigned long long)z->seed);
		len = sizeof(local);
		z->fd = hs_connect(addr, port, "hpcc", 0);
		if (z->fd < 0 || getsockname(z->fd, (void *)&local, &len))
			return tap_bail("connection to the sink: %s", strerror(errno));
		z->lport = ntohs(local.sin_port);
		len = sizeof(z->mss);
		getsockopt(z->fd, IPPROTO_TCP, TCP_MAXSEG, &z->mss, &len);
		skel->bss->client_port[i] = z->lport;
	}
	cfd = hs_connect(addr, port, "cubic", 0);
	len = sizeof(local);
	if (cfd < 0 || getsockname(cfd, (void *)&local, &len))
		return tap_bail("cubic connection: %s", strerror(errno));
	skel->bss->cubic_port = ntohs(local.sin_port);
	skel->bss->server_port = port;
	skel->bss->probe_dscp = param("probe_dscp");
	hs_hdr_make(&hdr, 0, 0);
	if (write(cfd, &hdr, sizeof(hdr)) != sizeof(hdr))
		return tap_bail("cubic connection: %s", strerror(errno));

	hook.ifindex = if_nametoindex(dev);
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		return tap_bail("clsact on %s: %d", dev, err);
	opts.prog_fd = bpf_program__fd(skel->progs.live_fuzz);
	err = bpf_tc_attach(&hook, &opts);
	tap_ok(!err, "tc program calling bpf_hpcc_report() on %s egress, %d hpcc flows (mss %u)",
	       dev, LF_FLOWS, flows[0].mss);
	if (err)
		return 1;

	for (int x = 0; x < RC_OTHER; x++)
		stat0[x] = hs_stat(x_stat[x]);
	used0 = hs_stat("ReportsUsed");
	nocap0 = hs_stat("ReportsNoCapacity");
	lost0 = hs_stat("ProbesLost");

	t_start = hs_now();
	for (int i = 0; i < LF_FLOWS; i++) {
		struct fz *z = &flows[i];

		pattern_init(&z->pat, 1 + i);
		sha256_init(&z->sha);
		hs_hdr_make(&hdr, 1 + i, HS_LEN_STREAM);
		if (write(z->fd, &hdr, sizeof(hdr)) != sizeof(hdr) ||
		    pthread_create(&z->sender, NULL, sender, z) ||
		    pthread_create(&z->fuzzer, NULL, fuzzer, z))
			return tap_bail("flow %d: %s", i, strerror(errno));
	}
	for (int i = 0; i < LF_FLOWS; i++) {
		pthread_join(flows[i].fuzzer, NULL);
		/* the others need not wait for a stalled flow */
		if (flows[i].stalled)
			atomic_store(&stop_fuzz, 1);
	}
	/* every flow quiet (its last report consumed): the counters are final */
	for (int x = 0; x < RC_OTHER; x++)
		stat1[x] = hs_stat(x_stat[x]);
	for (int i = 0; i < LF_FLOWS; i++) {
		struct fz *z = &flows[i];

		for (int x = 0; x < RC_MAX; x++)
			n_rc[x] += z->n_rc[x];
		mismatches += z->n_mismatch;
		nocap_seen += z->n_accepted_nocap;
		checks_a += z->n_checks_a;
		checks_b += z->n_checks_b;
		bad_a += z->bad_a;
		bad_b += z->bad_b;
		loss_w += z->loss_w;
		epochs += z->epochs;
		ngroups += z->groups;
		quiet += z->quiet_secs;
		nstalled += z->stalled;
		printf("# flow %d (port %d): %lu epochs, %lu reports accepted, %llu probes (%llu with nothing queued)%s\n",
		       i, z->lport, z->epochs, z->n_rc[RC_OK],
		       (unsigned long long)skel->bss->probes[i],
		       (unsigned long long)skel->bss->probes_idle[i],
		       z->stalled ? ", STALLED" : "");
	}
	printf("# %lu epochs, %lu random groups in %.1f s (%.1f s of it waiting for flows to probe after their last report);"
	       " kfunc calls %llu, ProbesLost +%lld\n",
	       epochs, ngroups, hs_now() - t_start, quiet,
	       (unsigned long long)skel->bss->calls,
	       hs_stat("ProbesLost") - lost0);
	for (int x = 0; x < RC_MAX; x++)
		printf("# return %-16s %lu\n", x_name[x], n_rc[x]);
	tap_ok(!nstalled, "the flows kept probing: every queued report was taken (%d stalled)",
	       nstalled);
	tap_ok(n_rc[RC_OK] >= min_accepted,
	       "%lu live-nonce reports accepted into the window law (>= %lu), %llu kfunc calls",
	       n_rc[RC_OK], min_accepted, (unsigned long long)skel->bss->calls);
	tap_ok(!mismatches && !n_rc[RC_OTHER],
	       "every return code is the one the kfunc's rules give (%lu mismatches)",
	       mismatches);
	{
		int all = 1;

		for (int x = 0; x < RC_OTHER; x++)
			all &= n_rc[x] > 0;
		tap_ok(all, "every reason was exercised at least once");
	}
	tap_ok(!skel->bss->lookups_failed, "socket lookups in the tc program: %llu failed",
	       (unsigned long long)skel->bss->lookups_failed);
	{
		int agree = 1;

		for (int x = 0; x < RC_OTHER; x++)
			if (stat1[x] - stat0[x] != (long long)n_rc[x]) {
				printf("# %s +%lld, return codes %lu\n", x_stat[x],
				       stat1[x] - stat0[x], n_rc[x]);
				agree = 0;
			}
		tap_ok(agree, "ReportsAccepted and every Reject* counter moved by exactly the return codes seen");
	}
	{
		long long used = hs_stat("ReportsUsed") - used0;
		long long nocap = hs_stat("ReportsNoCapacity") - nocap0;

		printf("# ReportsUsed +%lld ReportsNoCapacity +%lld (accepted without a capacity %lu)\n",
		       used, nocap, nocap_seen);
		tap_ok(used + nocap == (long long)n_rc[RC_OK] &&
		       nocap == (long long)nocap_seen,
		       "every accepted report was consumed once: used + without capacity = accepted");
	}
	tap_ok(checks_a >= 10 && !bad_a,
	       "after random reports: mss <= W <= 2^32, R <= last capacity, U finite (%lu checks, %lu out of bounds)",
	       checks_a, bad_a);
	tap_ok(checks_b >= 10 && !bad_b,
	       "after a sane pair: mss <= W <= max(mss, 4 B T), R = min(W / T, B) (%lu checks, %lu out of bounds;"
	       " R only <= B in %lu with a loss in between)", checks_b, bad_b, loss_w);

	/* stop: the program drops the probes unanswered from here on (the
	 * flows fall back to loss-based), the streams end, the sink answers
	 */
	atomic_store(&stop_data, 1);
	for (int i = 0; i < LF_FLOWS; i++)
		pthread_join(flows[i].sender, NULL);
	opts.flags = opts.prog_fd = opts.prog_id = 0;
	bpf_tc_detach(&hook, &opts);
	shutdown(cfd, SHUT_WR);
	for (int i = 0; i < LF_FLOWS; i++) {
		struct fz *z = &flows[i];
		uint8_t digest[32];
		char hex[65], rhex[65] = "-";
		uint64_t rbytes = 0;
		int bad_stream;

		sha256_final(&z->sha, digest);
		hex32(digest, hex);
		bad_stream = z->send_err ||
			     finish_stream(z->fd, digest, z->sent, rhex, &rbytes);
		printf("# stream %d: sent %llu bytes sha256 %s; receiver %llu bytes sha256 %s\n",
		       i, (unsigned long long)z->sent, hex,
		       (unsigned long long)rbytes, rhex);
		intact += !bad_stream && z->sent > 0;
		sent_total += z->sent;
		close(z->fd);
	}
	tap_ok(intact == LF_FLOWS,
	       "every flow's data arrived intact (%lu of %d streams, %llu bytes, sha256 equal on both ends)",
	       intact, LF_FLOWS, sent_total);
	close(cfd);
	live_fuzz_bpf__destroy(skel);
	/* no plan: hpcc_live_fuzz.sh numbers its own after these */
	return tap_failed ? KSFT_FAIL : KSFT_PASS;
}
