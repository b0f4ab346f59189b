// SPDX-License-Identifier: GPL-2.0
/*
 * Mutated telemetry with the LIVE nonce of a real hpcc flow:
 *
 *   hpcc_live_fuzz -s ADDR -p PORT -i DEV [-n MIN_ACCEPTED] [-g GROUPS]
 *                  [-t MAX_SECS] [-S SEED]
 *
 * Connects to an hpcc_stress sink at ADDR:PORT twice, an hpcc flow that
 * carries a pattern stream the whole time and a cubic connection, and
 * attaches progs/live_fuzz.bpf.c to DEV's tc egress. Each probe of the
 * hpcc flow is answered there with the next group of reports queued here:
 * up to three malformed ones (size, version, room, nhops, flags, OVERFLOW,
 * a wrong or zero nonce, the cubic socket), then one well-formed report
 * with random hop records (nhops 0..8; capacities 0, 1, huge, random;
 * queues up to 4 GiB; timestamps repeating, going backwards, jumping past
 * 2^32 ns; byte counters standing, going backwards, wrapping past 2^64,
 * jumping past 2^50), which carries the live nonce and so reaches the
 * window law, sometimes followed by its replay. Every return code is
 * compared with the one the kfunc's rules give for that report.
 *
 * Every GROUPS groups (an epoch) the program waits until the flow has
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
 *    t_us; R <= B_2; R = min(W / T, B_2) within the fixed point's 1e-6;
 *    U finite as above; hops 2.
 *
 * At the end the kernel's counters must agree with the return codes
 * (ReportsAccepted and each Reject* by exactly the counts seen here;
 * ReportsUsed + ReportsNoCapacity = accepted; ReportsNoCapacity = the
 * accepted reports without a capacity), and the flow's stream must have
 * arrived byte-exact (the sink's SHA-256 and byte count). Prints TAP
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

static int tap_n, tap_failed;

static void tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* ---- what each report should get back ------------------------------------ */

enum { RC_OK, RC_MSGSIZE, RC_PROTO, RC_RANGE, RC_BADMSG, RC_2BIG, RC_NOTSUPP,
       RC_STALE, RC_OTHER, RC_MAX };
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
	if (h->version != HPCC_WIRE_VERSION)
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

/* ---- the generator --------------------------------------------------------- */

static uint64_t seed;

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

static unsigned int pct(void)
{
	return rnd() % 100;
}

/* what the well-formed reports said last, per hop index */
static struct {
	uint32_t switch_id, port_id, rate;
	uint64_t ts, tx;
} prev[HPCC_MAX_HOPS];

static uint32_t gen_rate(unsigned int i)
{
	static const uint32_t sane[] = { 100, 1000, 10000, 100000, 400000 };
	unsigned int p = pct();

	if (p < 40 && prev[i].rate)
		return prev[i].rate;
	if (p < 65)
		return sane[rnd() % 5];
	if (p < 75)
		return 0;
	if (p < 78)
		return 1;
	if (p < 80)
		return 2 + rnd() % 98;
	if (p < 90)
		return UINT32_MAX;
	return (uint32_t)rnd();
}

static uint32_t gen_qlen(void)
{
	unsigned int p = pct();

	if (p < 30)
		return 0;
	if (p < 60)
		return rnd() % 200000;
	if (p < 80)
		return UINT32_MAX;
	return (uint32_t)rnd();
}

static uint64_t gen_ts(uint64_t last)
{
	unsigned int p = pct();

	if (p < 40)
		return last + 1000 + rnd() % 5000000;		/* 1 us - 5 ms */
	if (p < 50)
		return last;					/* dt = 0 */
	if (p < 65)
		return last - rnd() % (1ULL << 40);		/* backwards */
	if (p < 75)
		return last + (1ULL << 32) + rnd() % (1ULL << 40); /* > 2^32 */
	if (p < 90)
		return rnd();
	return last + 1;
}

static uint64_t gen_tx(uint64_t last)
{
	unsigned int p = pct();

	if (p < 40)
		return last + rnd() % 10000000;
	if (p < 50)
		return last;
	if (p < 60)
		return last - 1 - rnd() % (1ULL << 40);		/* backwards */
	if (p < 70)
		return UINT64_MAX - rnd() % 1000000;		/* wraps next */
	if (p < 80)
		return last + (1ULL << 50) + rnd() % (1ULL << 60); /* > 2^50 */
	return rnd();
}

static void gen_hops(struct hpcc_probe *p, unsigned int nhops)
{
	for (unsigned int i = 0; i < nhops; i++) {
		struct hpcc_hop *h = &p->hop[i];

		if (!prev[i].switch_id || pct() < 15) {
			prev[i].switch_id = pct() < 50 ? i + 1 : (uint32_t)rnd();
			prev[i].port_id = pct() < 50 ? 100 + i : (uint32_t)rnd();
		}
		prev[i].rate = gen_rate(i);
		prev[i].ts = gen_ts(prev[i].ts);
		prev[i].tx = gen_tx(prev[i].tx);
		h->switch_id = htonl(prev[i].switch_id);
		h->port_id = htonl(prev[i].port_id);
		h->rate_mbps = htonl(prev[i].rate);
		h->qlen = htonl(gen_qlen());
		h->ts_ns = htobe64(prev[i].ts);
		h->tx_bytes = htobe64(prev[i].tx);
	}
}

static void gen_valid(struct lf_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->p.hdr.version = HPCC_WIRE_VERSION;
	e->p.hdr.flags = HPCC_F_RESPONSE;
	e->p.hdr.room = HPCC_MAX_HOPS;
	e->p.hdr.nhops = rnd() % (HPCC_MAX_HOPS + 1);
	e->p.hdr.send_ns = htobe64(rnd());
	gen_hops(&e->p, e->p.hdr.nhops);
	/* bytes past nhops are not hop records: garbage there too */
	for (unsigned int i = e->p.hdr.nhops; i < HPCC_MAX_HOPS; i++)
		if (pct() < 20)
			memset(&e->p.hop[i], rnd(), sizeof(e->p.hop[i]));
}

/* A report with one to three defects (most are structural). */
static void gen_mutant(struct lf_entry *e)
{
	unsigned int n = 1 + rnd() % 3;

	gen_valid(e);
	while (n--) {
		switch (rnd() % 11) {
		case 0: e->size = rnd() & 1 ? LF_SZ_SHORT : LF_SZ_HDR; break;
		case 1: e->p.hdr.version = 2 + rnd() % 254; break;
		case 2: e->p.hdr.room = rnd() % 256;
			if (e->p.hdr.room == HPCC_MAX_HOPS)
				e->p.hdr.room = 0;
			break;
		case 3: e->p.hdr.nhops = HPCC_MAX_HOPS + 1 +
					 rnd() % (255 - HPCC_MAX_HOPS);
			break;
		case 4: e->p.hdr.flags |= 4 << (rnd() % 6); break;
		case 5: e->p.hdr.flags &= ~HPCC_F_RESPONSE; break;
		case 6:
		case 7: e->p.hdr.flags |= HPCC_F_OVERFLOW; break;
		case 8: e->flags = (e->flags & ~LF_NONCE_RAW) | LF_NONCE_XOR;
			e->p.hdr.nonce = (uint32_t)rnd() | 0x100;
			break;
		case 9: e->flags = (e->flags & ~LF_NONCE_XOR) | LF_NONCE_RAW;
			e->p.hdr.nonce = 0;
			break;
		case 10: e->flags |= LF_CUBIC; break;
		}
	}
}

/* ---- the queue ----------------------------------------------------------- */

static struct live_fuzz_bpf *skel;
static int expected[LF_RING];
static uint32_t queued, checked;	/* entries given to / checked from BPF */
static unsigned long n_rc[RC_MAX], n_mismatch, n_accepted_nocap;
static uint32_t last_cap;		/* capacity of the last report with one */
static double stall_limit = 30;

static uint32_t bpf_tail(void)
{
	return __atomic_load_n(&skel->bss->tail, __ATOMIC_ACQUIRE);
}

/* Compare the return codes of everything the program has taken. */
static void check_rcs(void)
{
	uint32_t t = bpf_tail();

	for (; checked != t; checked++) {
		uint32_t idx = checked & (LF_RING - 1);
		int rc = skel->bss->rc[idx], x = x_of(rc);

		n_rc[x]++;
		if (x != expected[idx]) {
			if (n_mismatch < 10)
				printf("# entry %u: kfunc returned %d, expected %s\n",
				       checked, rc, x_name[expected[idx]]);
			n_mismatch++;
		}
	}
}

/* Queue one probe's entries, published together (the program must see a
 * group whole: its expected codes assume one probe's nonce throughout),
 * waiting for room. 0, or -1 if the flow stopped taking them.
 */
static int push(const struct lf_entry *e, const int *x, int n)
{
	double t0 = hs_now();

	while (queued + n - bpf_tail() > LF_RING) {
		check_rcs();
		if (hs_now() - t0 > stall_limit)
			return -1;
		usleep(1000);
	}
	check_rcs();
	for (int k = 0; k < n; k++) {
		skel->bss->ring[(queued + k) & (LF_RING - 1)] = e[k];
		expected[(queued + k) & (LF_RING - 1)] = x[k];
	}
	queued += n;
	__atomic_store_n(&skel->bss->head, queued, __ATOMIC_RELEASE);
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
static int push_group(void)
{
	struct lf_entry e[6];
	int x[6], n = 0, live = 1, k, pre = rnd() % 4;

	for (k = 0; k < pre; k++) {
		gen_mutant(&e[n]);
		x[n] = expect(&e[n], &live);
		n++;
	}
	if (pct() >= 5) {
		gen_valid(&e[n]);
		x[n] = expect(&e[n], &live);
		if (x[n] == RC_OK) {
			uint32_t b = bmin_of(&e[n]);

			if (b)
				last_cap = b;
			else
				n_accepted_nocap++;
		}
		n++;
		if (pct() < 30) {
			e[n] = e[n - 1];
			x[n] = expect(&e[n], &live);
			n++;
		}
		if (pct() < 10) {
			gen_mutant(&e[n]);
			x[n] = expect(&e[n], &live);
			n++;
		}
	}
	if (!n) {
		gen_mutant(&e[n]);
		x[n] = expect(&e[n], &live);
		n++;
	}
	e[n - 1].flags |= LF_LAST;
	return push(e, x, n);
}

/* Two sane reports of a path with bottleneck b2 Mbit/s (see the top). */
static uint64_t settle_ts = 1ULL << 40, settle_tx;

static int push_settle(uint32_t b2)
{
	struct lf_entry e[2];
	uint64_t dt = 200000 + rnd() % 1800000;	/* 0.2 - 2 ms */
	uint64_t dtx = dt * b2 / 8000 * (rnd() % 121) / 100;
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
		e[k].p.hop[0].qlen = htonl(rnd() % 20000);
		e[k].p.hop[0].ts_ns = htobe64(settle_ts + k * dt);
		e[k].p.hop[0].tx_bytes = htobe64(settle_tx + k * dtx / 4);
		e[k].p.hop[1].switch_id = htonl(7002);
		e[k].p.hop[1].port_id = htonl(2);
		e[k].p.hop[1].rate_mbps = htonl(b2);
		e[k].p.hop[1].qlen = htonl(rnd() % 20000);
		e[k].p.hop[1].ts_ns = htobe64(settle_ts + 5000 + k * dt);
		e[k].p.hop[1].tx_bytes = htobe64(settle_tx + k * dtx);
		live = 1;
		x = expect(&e[k], &live);
		if (push(&e[k], &x, 1))
			return -1;
	}
	settle_ts += 10ULL * 1000000000;
	settle_tx += 1ULL << 36;
	last_cap = b2;
	return 0;
}

/* Until everything queued was taken and the flow probed again after that
 * (so it consumed the last report). 0, or -1 after stall_limit.
 */
static double quiet_secs;

static int wait_quiet(void)
{
	double t0 = hs_now();
	int ret = -1;
	uint64_t idle0;

	while (bpf_tail() != queued) {
		if (hs_now() - t0 > stall_limit)
			return -1;
		usleep(1000);
	}
	check_rcs();
	quiet_secs -= hs_now();
	idle0 = __atomic_load_n(&skel->bss->probes_idle, __ATOMIC_ACQUIRE);
	while (__atomic_load_n(&skel->bss->probes_idle, __ATOMIC_ACQUIRE) ==
	       idle0) {
		if (hs_now() - t0 > stall_limit)
			goto out;
		usleep(1000);
	}
	ret = 0;
out:
	quiet_secs += hs_now();
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
	int found = 0;

	snprintf(want, sizeof(want), ":%d", lport);
	while (p && fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%79s %*s %7s %llu %llu %llu %llu %llu %llu %llu %*s %*s %llu",
			   local, f->mode, &f->w, &f->wc, &f->u, &f->stage,
			   &f->bottleneck, &f->rate, &f->t_us, &f->hops) == 10 &&
		    strlen(local) > strlen(want) &&
		    !strcmp(local + strlen(local) - strlen(want), want))
			found = 1;
	}
	if (p)
		fclose(p);
	return found ? 0 : -1;
}

#define U_MAX_PERMILLE	(1048576ULL * 1000)	/* HPCC_U_MAX in per mille */
#define W_LIMIT_BYTES	(1ULL << 32)

static unsigned long n_checks_a, n_checks_b, bad_a, bad_b;
static unsigned long max_stage_param = 100;

static void bad(unsigned long *count, const char *what, const struct flow *f,
		const char *fmt, ...)
{
	va_list ap;

	if (++*count > 5)
		return;
	printf("# %s out of bounds: mode %s W %llu Wc %llu U %llu/1000 stage %llu R %llu T %llu us hops %llu: ",
	       what, f->mode, f->w, f->wc, f->u, f->stage, f->rate, f->t_us,
	       f->hops);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Bounds that hold after any report (see the top). */
static void check_any(const struct flow *f, unsigned int mss, int started)
{
	n_checks_a++;
	if (started && (f->w < mss || f->wc < mss))
		bad(&bad_a, "any", f, "W or Wc below mss %u", mss);
	else if (f->w > W_LIMIT_BYTES || f->wc > W_LIMIT_BYTES)
		bad(&bad_a, "any", f, "W or Wc above 2^32");
	else if (f->rate > (unsigned long long)last_cap * 125000)
		bad(&bad_a, "any", f, "R above the last capacity %u Mbit/s",
		    last_cap);
	else if (f->u > U_MAX_PERMILLE)
		bad(&bad_a, "any", f, "U above 2^20");
	else if (f->stage > max_stage_param)
		bad(&bad_a, "any", f, "stage above max_stage %lu",
		    max_stage_param);
	else if (f->hops > HPCC_MAX_HOPS)
		bad(&bad_a, "any", f, "more than 8 hops");
}

/* Bounds after the sane pair of a path with bottleneck b2 Mbit/s. */
static void check_settled(const struct flow *f, unsigned int mss, uint32_t b2)
{
	double t = f->t_us, cap = (double)b2 * 125000;
	double bdp = (double)b2 * t / 8, wmax, r_lo, r_hi;

	n_checks_b++;
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
		bad(&bad_b, "settled", f, "T is 0");
	else if (f->w < mss)
		bad(&bad_b, "settled", f, "W below mss %u", mss);
	else if (f->w > wmax * (1 + 1e-6) + 1)
		bad(&bad_b, "settled", f, "W above max(mss, 4 B T) = %.0f (B %u Mbit/s)",
		    wmax, b2);
	else if (f->rate > cap)
		bad(&bad_b, "settled", f, "R above B = %.0f B/s", cap);
	else if (f->rate > r_hi || f->rate < r_lo)
		bad(&bad_b, "settled", f, "R is not min(W / T, B): expected %.0f..%.0f",
		    r_lo, r_hi);
	else if (f->u > U_MAX_PERMILLE)
		bad(&bad_b, "settled", f, "U above 2^20");
	else if (f->stage > max_stage_param)
		bad(&bad_b, "settled", f, "stage above max_stage");
	else if (f->hops != 2)
		bad(&bad_b, "settled", f, "not the 2 hops of the sane reports");
}

/* ---- the data ---------------------------------------------------------------- */

static atomic_int stop;
static int hfd;
static struct pattern pat;
static struct sha256 sha;
static uint64_t sent;
static int send_err;

static void *sender(void *arg)
{
	static uint8_t buf[1 << 15];

	(void)arg;
	while (!atomic_load(&stop)) {
		ssize_t w, off = 0;

		pattern_fill(&pat, buf, sizeof(buf));
		sha256_update(&sha, buf, sizeof(buf));
		while (off < (ssize_t)sizeof(buf)) {
			w = write(hfd, buf + off, sizeof(buf) - off);
			if (w < 0) {
				send_err = errno;
				return NULL;
			}
			off += w;
		}
		sent += sizeof(buf);
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

int main(int argc, char **argv)
{
	static const uint32_t b2s[] = { 10, 100, 1000, 10000, 40000 };
	const char *addr = NULL, *dev = NULL;
	int port = 0, opt, cfd, groups = 100, lport, started = 0, err;
	unsigned long min_accepted = 10000, epochs = 0, groups_done = 0;
	double max_secs = 300, t0;
	long long stat0[RC_MAX], used0, nocap0, lost0, stat1[RC_MAX];
	struct sockaddr_in local;
	socklen_t len = sizeof(local);
	unsigned int mss = 0;
	struct hs_hdr hdr;
	struct hs_reply rep;
	uint8_t digest[32];
	char hex[65], rhex[65];
	pthread_t th;
	struct flow f = { .mode = "-" };
	LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = 0x4c46, .priority = 1);

	seed = 0x9e3779b97f4a7c15ULL;
	while ((opt = getopt(argc, argv, "s:p:i:n:g:t:S:")) != -1) {
		switch (opt) {
		case 's': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'i': dev = optarg; break;
		case 'n': min_accepted = strtoul(optarg, NULL, 0); break;
		case 'g': groups = atoi(optarg); break;
		case 't': max_secs = atof(optarg); break;
		case 'S': seed = strtoull(optarg, NULL, 0) | 1; break;
		default: goto usage;
		}
	}
	if (!addr || !port || !dev || groups < 1) {
usage:
		fprintf(stderr, "usage: hpcc_live_fuzz -s ADDR -p PORT -i DEV [-n MIN_ACCEPTED] [-g GROUPS] [-t MAX_SECS] [-S SEED]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	printf("# seed 0x%llx\n", (unsigned long long)seed);
	max_stage_param = param("max_stage");

	skel = live_fuzz_bpf__open_and_load();
	if (!skel) {
		printf("Bail out! loading the tc program failed (is tcp_hpcc loaded, with BTF?)\n");
		return 1;
	}
	/* the flow under test and a cubic connection beside it */
	hfd = hs_connect(addr, port, "hpcc", 0);
	cfd = hs_connect(addr, port, "cubic", 0);
	if (hfd < 0 || cfd < 0 || getsockname(hfd, (void *)&local, &len)) {
		printf("Bail out! connections to the sink: %s\n", strerror(errno));
		return 1;
	}
	lport = ntohs(local.sin_port);
	len = sizeof(mss);
	getsockopt(hfd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len);
	skel->bss->client_port = lport;
	skel->bss->server_port = port;
	len = sizeof(local);
	getsockname(cfd, (void *)&local, &len);
	skel->bss->cubic_port = ntohs(local.sin_port);
	skel->bss->probe_dscp = param("probe_dscp");
	hs_hdr_make(&hdr, 2, 0);
	if (write(cfd, &hdr, sizeof(hdr)) != sizeof(hdr)) {
		printf("Bail out! cubic connection: %s\n", strerror(errno));
		return 1;
	}

	hook.ifindex = if_nametoindex(dev);
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		printf("Bail out! clsact on %s: %d\n", dev, err);
		return 1;
	}
	opts.prog_fd = bpf_program__fd(skel->progs.live_fuzz);
	err = bpf_tc_attach(&hook, &opts);
	tap_ok(!err, "tc program calling bpf_hpcc_report() on %s egress (flow port %d, mss %u)",
	       dev, lport, mss);
	if (err)
		return 1;

	for (int x = 0; x < RC_OTHER; x++)
		stat0[x] = hs_stat(x_stat[x]);
	used0 = hs_stat("ReportsUsed");
	nocap0 = hs_stat("ReportsNoCapacity");
	lost0 = hs_stat("ProbesLost");

	pattern_init(&pat, 1);
	sha256_init(&sha);
	hs_hdr_make(&hdr, 1, HS_LEN_STREAM);
	if (write(hfd, &hdr, sizeof(hdr)) != sizeof(hdr) ||
	    pthread_create(&th, NULL, sender, NULL)) {
		printf("Bail out! hpcc stream: %s\n", strerror(errno));
		return 1;
	}

	/* epochs: random groups, check; a sane pair, check */
	t0 = hs_now();
	err = 0;
	while (!err && (n_rc[RC_OK] < min_accepted || epochs < 10) &&
	       hs_now() - t0 < max_secs) {
		uint32_t b2 = b2s[epochs % 5];

		for (int g = 0; g < groups && !err; g++, groups_done++)
			err = push_group();
		if (err || (err = wait_quiet()))
			break;
		if (!read_flow(lport, &f))
			check_any(&f, mss, started);
		else
			bad(&bad_a, "any", &f, "flow not in /proc/net/tcp_hpcc");
		if ((err = push_settle(b2)) || (err = wait_quiet()))
			break;
		started = 1;
		if (!read_flow(lport, &f))
			check_settled(&f, mss, b2);
		else
			bad(&bad_b, "settled", &f, "flow not in /proc/net/tcp_hpcc");
		epochs++;
	}
	check_rcs();
	for (int x = 0; x < RC_OTHER; x++)
		stat1[x] = hs_stat(x_stat[x]);
	printf("# %.1f s waiting for the flow to probe again after its last report\n",
	       quiet_secs);
	printf("# %lu epochs, %lu random groups in %.1f s; kfunc calls %llu for %llu probes (%llu with nothing queued), ProbesLost +%lld\n",
	       epochs, groups_done, hs_now() - t0,
	       (unsigned long long)skel->bss->calls,
	       (unsigned long long)skel->bss->probes,
	       (unsigned long long)skel->bss->probes_idle,
	       hs_stat("ProbesLost") - lost0);
	for (int x = 0; x < RC_MAX; x++)
		printf("# return %-16s %lu\n", x_name[x], n_rc[x]);
	tap_ok(!err, "the flow kept probing: every queued report was taken (%s)",
	       err ? "stalled" : "no stall");
	tap_ok(n_rc[RC_OK] >= min_accepted,
	       "%lu live-nonce reports accepted into the window law (>= %lu), %u kfunc calls",
	       n_rc[RC_OK], min_accepted, checked);
	tap_ok(!n_mismatch && !n_rc[RC_OTHER],
	       "every return code is the one the kfunc's rules give (%lu mismatches)",
	       n_mismatch);
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
		       used, nocap, n_accepted_nocap);
		tap_ok(used + nocap == (long long)n_rc[RC_OK] &&
		       nocap == (long long)n_accepted_nocap,
		       "every accepted report was consumed once: used + without capacity = accepted");
	}
	tap_ok(n_checks_a >= 10 && !bad_a,
	       "after random reports: mss <= W <= 2^32, R <= last capacity, U finite (%lu checks, %lu out of bounds)",
	       n_checks_a, bad_a);
	tap_ok(n_checks_b >= 10 && !bad_b,
	       "after a sane pair: mss <= W <= max(mss, 4 B T), R = min(W / T, B) (%lu checks, %lu out of bounds)",
	       n_checks_b, bad_b);

	/* stop: the program now drops probes unanswered (the flow falls
	 * back to loss-based), the stream ends, the sink answers
	 */
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	bpf_tc_detach(&hook, &opts);
	shutdown(hfd, SHUT_WR);
	shutdown(cfd, SHUT_WR);
	len = 0;
	while (len < sizeof(rep)) {
		ssize_t r = read(hfd, (uint8_t *)&rep + len, sizeof(rep) - len);

		if (r <= 0)
			break;
		len += r;
	}
	sha256_final(&sha, digest);
	hex32(digest, hex);
	hex32(rep.sha256, rhex);
	printf("# stream: sent %llu bytes sha256 %s; receiver %llu bytes sha256 %s\n",
	       (unsigned long long)sent, hex,
	       len == sizeof(rep) ? (unsigned long long)be64toh(rep.bytes) : 0ULL,
	       len == sizeof(rep) ? rhex : "-");
	tap_ok(!send_err && len == sizeof(rep) &&
	       be32toh(rep.status) == HS_OK && be64toh(rep.bytes) == sent &&
	       !memcmp(rep.sha256, digest, 32) && sent > 0,
	       "the flow's data arrived intact (%llu bytes, sha256 equal on both ends)",
	       (unsigned long long)sent);
	close(hfd);
	close(cfd);
	live_fuzz_bpf__destroy(skel);
	return tap_failed ? 1 : 0;
}
