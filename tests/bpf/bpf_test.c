// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_test - tests for bpf/hpcc_switch.bpf.o and bpf/hpcc_host.bpf.o on the
 * running kernel, printing TAP.
 *
 *   bpf_test           unit tests (BPF_PROG_TEST_RUN) + qdisc traffic tests
 *   bpf_test --unit    unit tests only
 *   bpf_test --switch  the switch program's unit tests only
 *   bpf_test --qos     those and the QoS port traffic case
 *   bpf_test --upgrade DIR [DIR_RX]
 *                      v1 objects in DIR, v2 objects from before Rx-HPCC
 *                      in DIR_RX (tests/bpf/upgrade.sh builds them from
 *                      earlier commits) against v2 packets
 *   bpf_test --bench   ns/packet table (bpf_prog_test_run, repeat=100000)
 *
 * Module-dependent cases (tcp_hpcc.ko's kfunc) run where the module is
 * loaded and are reported "# SKIP" elsewhere. Needs root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/if_packet.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/filter.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "hpcc_maps.h"
#include "hpcc_flowcount.h"
#include "pkt.h"
#include "hpcc_switch.skel.h"
#include "hpcc_host.skel.h"
#include "noop.skel.h"
#include "tap.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

/* ------------------------------------------------------------------ TAP */

static char t_diag[4096];

/* Accumulate a diagnostic printed only if the current case fails. */
static void diag(const char *fmt, ...)
{
	size_t n = strlen(t_diag);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t_diag + n, sizeof(t_diag) - n, fmt, ap);
	va_end(ap);
}

static void tap(bool ok, const char *fmt, ...)
{
	char name[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (!tap_ok(ok, "%s", name)) {
		char *line = strtok(t_diag, "\n");

		for (; line; line = strtok(NULL, "\n"))
			tap_diag("%s", line);
		fflush(stdout);
	}
	t_diag[0] = 0;
}

/* A case not run: what was gathered for it goes. */
static void skip_case(const char *name, const char *why)
{
	t_diag[0] = 0;
	tap_skip(name, why);
}

/* Check helper: records a diagnostic, returns the condition. */
#define CHECK(cond, ...) ({						\
	bool __c = (cond);						\
	if (!__c) {							\
		diag("%s:%d: %s: ", __FILE__, __LINE__, #cond);		\
		diag(__VA_ARGS__);					\
		diag("\n");						\
	}								\
	__c;								\
})

/* ------------------------------------------------------------ utilities */

static int ncpus;
/* bpf_test --qos (the QoS benchmark) also prints what the qdisc
 * tracepoints cost per event: a measurement, not an assertion.
 */
static bool qos_bench;

/* HPCC_DEBUG_KERNEL=1: the VM's init on the debug kernel (KASAN, lockdep)
 * says so; workloads there shrink, assertions stay.
 */
static bool debug_kernel(void)
{
	const char *d = getenv("HPCC_DEBUG_KERNEL");

	return d && !strcmp(d, "1");
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void counters_read(int map_fd, uint64_t *out)
{
	uint64_t vals[ncpus];
	uint32_t i;
	int c;

	for (i = 0; i < HPCC_CNT_MAX; i++) {
		out[i] = 0;
		if (bpf_map_lookup_elem(map_fd, &i, vals))
			continue;
		for (c = 0; c < ncpus; c++)
			out[i] += vals[c];
	}
}

/* Counter deltas since *before; true if exactly the counters in @want
 * (terminated by -1) moved, each by one.
 */
static bool counters_moved(int map_fd, const uint64_t *before,
			   const int *want)
{
	uint64_t now[HPCC_CNT_MAX];
	bool ok = true;
	int i, j;

	counters_read(map_fd, now);
	for (i = 0; i < HPCC_CNT_MAX; i++) {
		uint64_t exp = 0, d = now[i] - before[i];

		for (j = 0; want[j] >= 0; j++)
			if (want[j] == i)
				exp++;
		if (d != exp) {
			diag("counter %s moved by %llu, expected %llu\n",
			     hpcc_counter_name(i), (unsigned long long)d,
			     (unsigned long long)exp);
			ok = false;
		}
	}
	return ok;
}

struct run {
	struct pkt out;
	int retval;
	int err;
};

static void run_prog(int prog_fd, const struct pkt *in, struct run *r)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = in->b,
		.data_size_in = in->len,
		.repeat = 1,
	);

	r->out = *in;
	memset(r->out.b, 0, sizeof(r->out.b));
	opts.data_out = r->out.b;
	opts.data_size_out = sizeof(r->out.b);
	r->err = bpf_prog_test_run_opts(prog_fd, &opts);
	r->retval = opts.retval;
	r->out.len = opts.data_size_out;
	if (r->err)
		diag("test_run: %s\n", strerror(errno));
}

static bool same_bytes(const struct pkt *a, const struct pkt *b)
{
	uint32_t i;

	if (a->len != b->len) {
		diag("length %u != %u\n", a->len, b->len);
		return false;
	}
	for (i = 0; i < a->len; i++)
		if (a->b[i] != b->b[i]) {
			diag("byte %u differs: %02x != %02x\n", i, a->b[i],
			     b->b[i]);
			return false;
		}
	return true;
}

/* Bytes equal except in the listed [off, off+len) ranges. */
static bool same_except(const struct pkt *a, const struct pkt *b,
			const uint32_t (*skip)[2], int nskip)
{
	uint32_t i;
	int s;

	if (a->len != b->len) {
		diag("length %u != %u\n", a->len, b->len);
		return false;
	}
	for (i = 0; i < a->len; i++) {
		bool skipped = false;

		for (s = 0; s < nskip; s++)
			if (i >= skip[s][0] && i < skip[s][0] + skip[s][1])
				skipped = true;
		if (!skipped && a->b[i] != b->b[i]) {
			diag("byte %u differs: %02x != %02x\n", i, a->b[i],
			     b->b[i]);
			return false;
		}
	}
	return true;
}

static void probe_init(struct hpcc_probe *pr, uint8_t nhops)
{
	int i;

	memset(pr, 0, sizeof(*pr));
	pr->hdr.version = HPCC_WIRE_VERSION;
	pr->hdr.room = HPCC_MAX_HOPS;
	pr->hdr.nhops = nhops;
	pr->hdr.nonce = htonl(0xdecafbad);
	pr->hdr.send_ns = htobe64(123456789);
	for (i = 0; i < nhops; i++) {
		pr->hop[i].switch_id = htonl(100 + i);
		pr->hop[i].tx_bytes = htobe64(1000 + i);
	}
}

static void probe_frame(struct pkt *k, bool v6, const struct hpcc_probe *pr,
			uint32_t paylen, uint8_t dscp)
{
	struct pkt_opts o = {
		.v6 = v6,
		.dscp = dscp,
		.ecn = 2,
		.payload = pr,
		.paylen = paylen,
	};

	pkt_build(k, &o);
}

static const struct hpcc_probe *payload_of(const struct pkt *k)
{
	return (const void *)(k->b + k->pay);
}

static uint8_t dscp_of(const struct pkt *k)
{
	if (k->v6)
		return (get16(k->b + k->l3) >> 6) & 0x3f;
	return k->b[k->l3 + 1] >> 2;
}

static uint8_t ecn_of(const struct pkt *k)
{
	if (k->v6)
		return (get16(k->b + k->l3) >> 4) & 3;
	return k->b[k->l3 + 1] & 3;
}

static bool csums_ok(const struct pkt *k)
{
	bool ok = true;

	if (!k->v6 && !ip4_csum_ok(k)) {
		diag("bad IPv4 header checksum\n");
		ok = false;
	}
	if (!tcp_csum_ok(k)) {
		diag("bad TCP checksum\n");
		ok = false;
	}
	return ok;
}

/* ---------------------------------------------------------- switch tests */

#define LO_IFINDEX	1	/* test_run's skb->dev: the netns loopback */

static struct hpcc_switch *sw;
static int sw_prog, sw_cnt;

static void port_cfg_set(uint32_t ifindex, uint32_t switch_id,
			 uint32_t rate, int port_id)
{
	struct hpcc_port_cfg c = {
		.switch_id = switch_id,
		.rate_mbps = rate,
	};

	if (port_id >= 0) {
		c.port_id = port_id;
		c.flags |= HPCC_PORT_F_PORT_ID;
	}
	bpf_map_update_elem(bpf_map__fd(sw->maps.hpcc_port_cfg), &ifindex,
			    &c, BPF_ANY);
}

/* A fake queue snapshot for ifindex 1, as the tracepoints would write. */
static void qsnap_set(uint32_t backlog, uint64_t bytes)
{
	struct hpcc_qsnap_dev *d = calloc(1, sizeof(*d));
	uint32_t k = LO_IFINDEX;

	d->root = 0xffff888012340000ull;
	d->ntxq = 1;
	d->q[0].seq = 2;
	d->q[0].backlog = backlog;
	d->q[0].bytes = bytes;
	d->q[0].root = d->root;
	bpf_map_update_elem(bpf_map__fd(sw->maps.hpcc_qsnap), &k, d, BPF_ANY);
	free(d);
}

static void qsnap_clear(void)
{
	uint32_t k = LO_IFINDEX;

	bpf_map_delete_elem(bpf_map__fd(sw->maps.hpcc_qsnap), &k);
}

/* Check one stamped hop against expectations. */
static bool hop_ok(const struct hpcc_hop *h, uint32_t sid, uint32_t port,
		   uint32_t rate, uint32_t qlen, uint64_t tx, uint64_t t0,
		   uint64_t t1)
{
	uint64_t ts = be64toh(h->ts_ns);
	bool ok = true;

	ok &= CHECK(ntohl(h->switch_id) == sid, "switch_id %u",
		    ntohl(h->switch_id));
	ok &= CHECK(ntohl(h->port_id) == port, "port_id %u",
		    ntohl(h->port_id));
	ok &= CHECK(ntohl(h->rate_mbps) == rate, "rate %u",
		    ntohl(h->rate_mbps));
	ok &= CHECK(ntohl(h->qlen) == qlen, "qlen %u", ntohl(h->qlen));
	ok &= CHECK(be64toh(h->tx_bytes) == tx, "tx_bytes %llu",
		    (unsigned long long)be64toh(h->tx_bytes));
	ok &= CHECK(ts >= t0 && ts <= t1, "ts %llu not in [%llu, %llu]",
		    (unsigned long long)ts, (unsigned long long)t0,
		    (unsigned long long)t1);
	return ok;
}

static void test_switch_stamp(bool v6)
{
	uint64_t before[HPCC_CNT_MAX], t0, t1;
	struct hpcc_probe pr;
	struct pkt in;
	struct run r;
	const struct hpcc_probe *o;
	uint32_t skip[3][2];
	bool ok = true;

	port_cfg_set(LO_IFINDEX, 7, 25000, v6 ? 4242 : -1);
	qsnap_set(3000, 0x1122334455ull);
	probe_init(&pr, 0);
	probe_frame(&in, v6, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	counters_read(sw_cnt, before);
	t0 = mono_ns();
	run_prog(sw_prog, &in, &r);
	t1 = mono_ns();
	o = payload_of(&r.out);
	ok &= CHECK(!r.err && r.retval == TC_ACT_OK, "retval %d", r.retval);
	ok &= CHECK(o->hdr.nhops == 1, "nhops %u", o->hdr.nhops);
	ok &= CHECK(o->hdr.flags == 0, "flags %#x", o->hdr.flags);
	ok &= hop_ok(&o->hop[0], 7, v6 ? 4242 : LO_IFINDEX, 25000, 3000,
		     0x1122334455ull, t0, t1);
	ok &= csums_ok(&r.out);
	/* Only nhops, hop[0] and the TCP checksum may change. */
	skip[0][0] = in.pay + 2;
	skip[0][1] = 1;
	skip[1][0] = in.pay + sizeof(struct hpcc_hdr);
	skip[1][1] = sizeof(struct hpcc_hop);
	skip[2][0] = in.l4 + 16;
	skip[2][1] = 2;
	ok &= same_except(&in, &r.out, skip, 3);
	ok &= counters_moved(sw_cnt, before,
			     (int[]){ HPCC_CNT_SWITCH_STAMPED, -1 });
	tap(ok, "switch stamps an IPv%d probe (fields, nhops, checksums)",
	    v6 ? 6 : 4);
}

/* ------------------------------------------------- QoS ports (HPCC_PORT_F_QOS) */

#define QOS_CLASSID	0x00010010u	/* 1:10 */

static void qos_cfg_set(bool qos)
{
	struct hpcc_port_cfg c = {
		.switch_id = 3, .rate_mbps = 10000,
		.flags = qos ? HPCC_PORT_F_QOS : 0,
		.qos_classid = QOS_CLASSID, .qos_rate_mbps = 4000,
		.qos_dscp = 10,
	};
	uint32_t k = LO_IFINDEX;

	bpf_map_update_elem(bpf_map__fd(sw->maps.hpcc_port_cfg), &k, &c,
			    BPF_ANY);
}

static void qos_state_set(uint64_t enq, uint64_t deq, uint64_t soj)
{
	struct hpcc_qos_state st = { .enq_bytes = enq, .deq_bytes = deq,
				     .sojourn_ns = soj, .sojourn_len = 1500 };
	uint32_t k = LO_IFINDEX;

	bpf_map_update_elem(bpf_map__fd(sw->maps.hpcc_qos), &k, &st, BPF_ANY);
}

/* One run of the switch with an skb context: the priority it leaves. */
static uint32_t run_prio(const struct pkt *in, struct run *r)
{
	struct __sk_buff ctx = { .ifindex = LO_IFINDEX };
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = in->b,
		.data_size_in = in->len,
		.ctx_in = &ctx,
		.ctx_size_in = sizeof(ctx),
		.ctx_out = &ctx,
		.ctx_size_out = sizeof(ctx),
		.repeat = 1,
	);

	r->out = *in;
	memset(r->out.b, 0, sizeof(r->out.b));
	opts.data_out = r->out.b;
	opts.data_size_out = sizeof(r->out.b);
	r->err = bpf_prog_test_run_opts(sw_prog, &opts);
	r->retval = opts.retval;
	r->out.len = opts.data_size_out;
	if (r->err)
		diag("test_run: %s\n", strerror(errno));
	return ctx.priority;
}

/* One QoS stamp: root backlog @root, class counters @enq/@deq, last
 * sample's sojourn @soj ns; expects @rate, @qlen, tx_bytes @deq and the
 * class's priority.
 */
static bool qos_stamp_ok(uint32_t root, uint64_t enq, uint64_t deq,
			 uint64_t soj, uint32_t rate, uint32_t qlen)
{
	uint64_t before[HPCC_CNT_MAX], t0, t1;
	struct hpcc_probe pr;
	struct pkt in;
	struct run r;
	uint32_t prio;
	bool ok = true;

	qsnap_set(root, 777);
	qos_state_set(enq, deq, soj);
	probe_init(&pr, 0);
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	counters_read(sw_cnt, before);
	t0 = mono_ns();
	prio = run_prio(&in, &r);
	t1 = mono_ns();
	ok &= CHECK(!r.err && r.retval == TC_ACT_OK, "retval %d", r.retval);
	ok &= hop_ok(&payload_of(&r.out)->hop[0], 3, LO_IFINDEX, rate, qlen,
		     deq, t0, t1);
	ok &= CHECK(prio == QOS_CLASSID, "priority %#x", prio);
	ok &= csums_ok(&r.out);
	ok &= counters_moved(sw_cnt, before,
			     (int[]){ HPCC_CNT_QOS_STAMPED,
				      HPCC_CNT_SWITCH_STAMPED, -1 });
	return ok;
}

static void test_switch_qos(void)
{
	uint64_t before[HPCC_CNT_MAX];
	struct hpcc_probe pr;
	struct pkt in;
	struct run r;
	uint32_t k = LO_IFINDEX, prio;
	bool ok;

	qos_cfg_set(true);
	/* Other classes hold 3000 of the root's 9000: B is the class's
	 * 4000 Mbit/s, qlen 2 ms at 4000 Mbit/s = 1000000 bytes less the
	 * sample's own 1500.
	 */
	ok = qos_stamp_ok(9000, 11000, 5000, 2000000, 4000, 998500);
	tap(ok, "QoS port, other classes queued: B = the class's rate, qlen = "
	    "sojourn x B, tx_bytes = the class's, probe put in the class");
	/* The class alone is queued: the port's rate, the same sojourn. */
	ok = qos_stamp_ok(6000, 11000, 5000, 2000000, 10000, 2498500);
	/* More class bytes than the root holds (a drop inside): alone. */
	ok &= qos_stamp_ok(4000, 11000, 5000, 2000000, 10000, 2498500);
	/* A sojourn shorter than the packet's own time at B: queue 0. */
	ok &= qos_stamp_ok(6000, 11000, 5000, 1000, 10000, 0);
	tap(ok, "QoS port, only the class queued: B = the port's rate "
	    "(work-conserving), qlen = sojourn x B");
	/* The class has nothing queued: a stale sample says nothing. */
	ok = qos_stamp_ok(9000, 5000, 5000, 2000000, 4000, 0);
	ok &= qos_stamp_ok(0, 5000, 6000, 2000000, 10000, 0);
	/* 10 s at 10 Gbit/s is more than 32 bits of bytes: saturated. */
	ok &= qos_stamp_ok(6000, 11000, 5000, 10000000000ull, 10000,
			   0xffffffffu);
	tap(ok, "QoS port, class empty: qlen 0; huge sojourn saturates");

	/* No class state yet: qlen and tx_bytes 0, counted. */
	bpf_map_delete_elem(bpf_map__fd(sw->maps.hpcc_qos), &k);
	qsnap_set(500, 777);
	probe_init(&pr, 0);
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	counters_read(sw_cnt, before);
	prio = run_prio(&in, &r);
	ok = hop_ok(&payload_of(&r.out)->hop[0], 3, LO_IFINDEX, 4000, 0, 0, 0,
		    UINT64_MAX);
	ok &= CHECK(prio == QOS_CLASSID, "priority %#x", prio);
	ok &= counters_moved(sw_cnt, before,
			     (int[]){ HPCC_CNT_QOS_NO_STATE,
				      HPCC_CNT_SWITCH_STAMPED, -1 });
	tap(ok, "QoS port without class state: queue 0, counted");

	/* A response is not stamped, but goes to the class too. */
	probe_init(&pr, 1);
	pr.hdr.flags = HPCC_F_RESPONSE;
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN,
		    HPCC_DSCP_RESPONSE_DEFAULT);
	prio = run_prio(&in, &r);
	ok = same_bytes(&in, &r.out);
	ok &= CHECK(prio == QOS_CLASSID, "priority %#x", prio);
	tap(ok, "QoS port: a response passes unchanged, in the class");

	/* Without HPCC_PORT_F_QOS: the port as before, priority kept. */
	qos_cfg_set(false);
	qos_state_set(11000, 5000, 2000000);
	qsnap_set(9000, 777);
	probe_init(&pr, 0);
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	prio = run_prio(&in, &r);
	ok = hop_ok(&payload_of(&r.out)->hop[0], 3, LO_IFINDEX, 10000, 9000,
		    777, 0, UINT64_MAX);
	ok &= CHECK(prio == 0, "priority %#x", prio);
	tap(ok, "port without QoS: the root's backlog and rate, priority "
	    "untouched");
	bpf_map_delete_elem(bpf_map__fd(sw->maps.hpcc_qos), &k);
	qsnap_clear();
}

static void test_switch_ipopts(void)
{
	struct pkt_opts po = { .dscp = HPCC_DSCP_PROBE_DEFAULT,
			       .ip_opt_words = 3, .paylen = HPCC_PROBE_LEN };
	struct hpcc_probe pr;
	struct pkt in;
	struct run r;
	bool ok = true;

	port_cfg_set(LO_IFINDEX, 9, 100, -1);
	probe_init(&pr, 2);
	po.payload = &pr;
	pkt_build(&in, &po);
	run_prog(sw_prog, &in, &r);
	ok &= CHECK(payload_of(&r.out)->hdr.nhops == 3, "nhops %u",
		    payload_of(&r.out)->hdr.nhops);
	ok &= CHECK(ntohl(payload_of(&r.out)->hop[2].switch_id) == 9, "sid");
	ok &= CHECK(ntohl(payload_of(&r.out)->hop[1].switch_id) == 101,
		    "earlier hop kept");
	ok &= csums_ok(&r.out);
	tap(ok, "switch skips IPv4 options via ihl (ihl=8)");
}

static void test_switch_two_hops(void)
{
	struct hpcc_probe pr;
	struct pkt in;
	struct run r1, r2;
	const struct hpcc_probe *o;
	uint64_t t0, t1;
	bool ok = true;

	probe_init(&pr, 0);
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	t0 = mono_ns();
	port_cfg_set(LO_IFINDEX, 1, 10000, 11);
	qsnap_set(100, 1000);
	run_prog(sw_prog, &in, &r1);
	port_cfg_set(LO_IFINDEX, 2, 40000, 22);
	qsnap_set(200, 2000);
	run_prog(sw_prog, &r1.out, &r2);
	t1 = mono_ns();
	o = payload_of(&r2.out);
	ok &= CHECK(o->hdr.nhops == 2, "nhops %u", o->hdr.nhops);
	ok &= hop_ok(&o->hop[0], 1, 11, 10000, 100, 1000, t0, t1);
	ok &= hop_ok(&o->hop[1], 2, 22, 40000, 200, 2000, t0, t1);
	ok &= CHECK(be64toh(o->hop[0].ts_ns) <= be64toh(o->hop[1].ts_ns),
		    "hop order");
	ok &= csums_ok(&r2.out);
	tap(ok, "two switches stamp in order");
}

static void test_switch_overflow(bool v6)
{
	uint64_t before[HPCC_CNT_MAX];
	struct hpcc_probe pr;
	struct pkt in;
	struct run r, r2;
	uint32_t skip[2][2];
	bool ok = true;

	port_cfg_set(LO_IFINDEX, 5, 1000, -1);
	probe_init(&pr, HPCC_MAX_HOPS);
	probe_frame(&in, v6, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	counters_read(sw_cnt, before);
	run_prog(sw_prog, &in, &r);
	ok &= CHECK(r.retval == TC_ACT_OK, "retval %d", r.retval);
	ok &= CHECK(payload_of(&r.out)->hdr.flags == HPCC_F_OVERFLOW,
		    "flags %#x", payload_of(&r.out)->hdr.flags);
	ok &= CHECK(payload_of(&r.out)->hdr.nhops == HPCC_MAX_HOPS, "nhops");
	skip[0][0] = in.pay + 1;	/* flags */
	skip[0][1] = 1;
	skip[1][0] = in.l4 + 16;	/* TCP checksum */
	skip[1][1] = 2;
	ok &= same_except(&in, &r.out, skip, 2);
	ok &= csums_ok(&r.out);
	/* A second full switch changes nothing more. */
	run_prog(sw_prog, &r.out, &r2);
	ok &= same_bytes(&r.out, &r2.out);
	ok &= counters_moved(sw_cnt, before,
			     (int[]){ HPCC_CNT_SWITCH_OVERFLOW,
				      HPCC_CNT_SWITCH_OVERFLOW, -1 });
	tap(ok, "IPv%d probe with no room: overflow flag, nothing written past "
	    "the room", v6 ? 6 : 4);
}

static void test_switch_qsnap_mq(void)
{
	struct hpcc_qsnap_dev *d = calloc(1, sizeof(*d));
	uint32_t k = LO_IFINDEX, i;
	struct hpcc_probe pr;
	struct pkt in;
	struct run r;
	bool ok = true;

	port_cfg_set(LO_IFINDEX, 3, 100000, -1);
	d->root = 0xffff888000abc000ull;
	d->ntxq = 4;
	d->flags = HPCC_QSNAP_F_MQ;
	for (i = 0; i < 4; i++) {
		d->q[i].seq = 4;
		d->q[i].backlog = 1000 * (i + 1);
		d->q[i].bytes = 1000000ull * (i + 1);
		d->q[i].root = d->root;
	}
	d->q[2].root = 0xffff888000def000ull;	/* stale: an old root */
	d->q[5].root = d->root;			/* beyond ntxq */
	d->q[5].backlog = 99999;
	bpf_map_update_elem(bpf_map__fd(sw->maps.hpcc_qsnap), &k, d, BPF_ANY);
	probe_init(&pr, 0);
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	run_prog(sw_prog, &in, &r);
	ok &= CHECK(ntohl(payload_of(&r.out)->hop[0].qlen) == 1000 + 2000 + 4000,
		    "qlen %u", ntohl(payload_of(&r.out)->hop[0].qlen));
	ok &= CHECK(be64toh(payload_of(&r.out)->hop[0].tx_bytes) == 7000000,
		    "tx %llu", (unsigned long long)
		    be64toh(payload_of(&r.out)->hop[0].tx_bytes));
	tap(ok, "mq snapshot: per-queue slots of the current root are summed");

	/* A writer inside (odd seq) never gives a consistent copy. */
	d->flags = 0;
	d->q[0].seq = 5;
	bpf_map_update_elem(bpf_map__fd(sw->maps.hpcc_qsnap), &k, d, BPF_ANY);
	{
		uint64_t before[HPCC_CNT_MAX];

		counters_read(sw_cnt, before);
		run_prog(sw_prog, &in, &r);
		ok = counters_moved(sw_cnt, before,
				    (int[]){ HPCC_CNT_SWITCH_QSTATS_TORN,
					     HPCC_CNT_SWITCH_STAMPED, -1 });
		ok &= CHECK(payload_of(&r.out)->hdr.nhops == 1, "stamped");
		tap(ok, "snapshot being written: bounded retries, counted");
	}
	free(d);

	qsnap_clear();
	{
		uint64_t before[HPCC_CNT_MAX];

		counters_read(sw_cnt, before);
		run_prog(sw_prog, &in, &r);
		ok = counters_moved(sw_cnt, before,
				    (int[]){ HPCC_CNT_SWITCH_NO_QSTATS,
					     HPCC_CNT_SWITCH_STAMPED, -1 });
		ok &= CHECK(payload_of(&r.out)->hop[0].qlen == 0 &&
			    payload_of(&r.out)->hop[0].tx_bytes == 0,
			    "zero stats");
		tap(ok, "no queue snapshot: qlen/tx_bytes 0, counted");
	}
}

/* A malformed HPCC candidate must pass untouched and be counted. */
static void expect_untouched(int prog, int cnt_fd, const struct pkt *in,
			     int want_ret, int counter, const char *name)
{
	uint64_t before[HPCC_CNT_MAX];
	struct run r;
	bool ok = true;

	counters_read(cnt_fd, before);
	run_prog(prog, in, &r);
	if (r.err && errno == EINVAL && in->len < ETH_HLEN_ + 40) {
		/* Newer kernels refuse test_run frames shorter than the L3
		 * header their ethertype announces.
		 */
		skip_case(name, "kernel's test_run refuses this runt");
		return;
	}
	ok &= CHECK(!r.err && r.retval == want_ret, "retval %d", r.retval);
	if (want_ret == TC_ACT_OK)
		ok &= same_bytes(in, &r.out);
	ok &= counters_moved(cnt_fd, before,
			     counter >= 0 ? (int[]){ counter, -1 } :
					    (int[]){ -1 });
	tap(ok, "%s", name);
}

static void test_malformed(int prog, int cnt_fd, const char *who,
			   int want_ret)
{
	struct hpcc_probe pr;
	struct pkt in;
	char name[128];

	if (sw)
		port_cfg_set(LO_IFINDEX, 5, 1000, -1);
	probe_init(&pr, 1);
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN - 32,
		    HPCC_DSCP_PROBE_DEFAULT);
	snprintf(name, sizeof(name), "%s: short payload -> truncated", who);
	expect_untouched(prog, cnt_fd, &in, want_ret, HPCC_CNT_TRUNCATED, name);

	probe_frame(&in, true, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	in.len -= 100;		/* frame shorter than the IPv6 length says */
	snprintf(name, sizeof(name), "%s: cut frame -> truncated", who);
	expect_untouched(prog, cnt_fd, &in, want_ret, HPCC_CNT_TRUNCATED, name);

	probe_init(&pr, 1);
	pr.hdr.version = 2;
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	snprintf(name, sizeof(name), "%s: version 2 at v1's length -> "
		 "truncated", who);
	expect_untouched(prog, cnt_fd, &in, want_ret, HPCC_CNT_TRUNCATED, name);

	probe_init(&pr, 1);
	pr.hdr.version = 3;
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	snprintf(name, sizeof(name), "%s: bad version", who);
	expect_untouched(prog, cnt_fd, &in, want_ret, HPCC_CNT_BAD_VERSION,
			 name);

	probe_init(&pr, 1);
	pr.hdr.room = 4;
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	snprintf(name, sizeof(name), "%s: bad room", who);
	expect_untouched(prog, cnt_fd, &in, want_ret, HPCC_CNT_BAD_ROOM, name);

	probe_init(&pr, 1);
	pr.hdr.nhops = HPCC_MAX_HOPS + 1;
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	snprintf(name, sizeof(name), "%s: nhops > room", who);
	expect_untouched(prog, cnt_fd, &in, want_ret, HPCC_CNT_BAD_NHOPS,
			 name);

	probe_init(&pr, 1);
	pr.hdr.flags = 0x80;
	probe_frame(&in, true, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	snprintf(name, sizeof(name), "%s: unknown flag bits", who);
	expect_untouched(prog, cnt_fd, &in, want_ret, HPCC_CNT_BAD_FLAGS, name);

	probe_init(&pr, 1);
	pr.hdr.flags = HPCC_F_RESPONSE;
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	snprintf(name, sizeof(name), "%s: response flag with probe DSCP", who);
	expect_untouched(prog, cnt_fd, &in, want_ret, HPCC_CNT_BAD_DSCP, name);
}

static void test_non_probes(int prog, int cnt_fd, const char *who)
{
	struct hpcc_probe pr;
	struct pkt_opts o;
	struct pkt in;
	char name[128];

	probe_init(&pr, 0);

	o = (struct pkt_opts){ .dscp = HPCC_DSCP_PROBE_DEFAULT,
			       .tcp_flags = 0x10, .payload = &pr,
			       .paylen = HPCC_PROBE_LEN };
	pkt_build(&in, &o);
	snprintf(name, sizeof(name), "%s: TCP ACK with probe DSCP untouched",
		 who);
	expect_untouched(prog, cnt_fd, &in, TC_ACT_OK, -1, name);

	o.tcp_flags = 0x18;
	o.v6 = true;
	pkt_build(&in, &o);
	snprintf(name, sizeof(name), "%s: IPv6 TCP PSH|ACK untouched", who);
	expect_untouched(prog, cnt_fd, &in, TC_ACT_OK, -1, name);

	o = (struct pkt_opts){ .dscp = 0, .payload = &pr,
			       .paylen = HPCC_PROBE_LEN };
	pkt_build(&in, &o);
	snprintf(name, sizeof(name), "%s: flagless probe with DSCP 0 untouched",
		 who);
	expect_untouched(prog, cnt_fd, &in, TC_ACT_OK, HPCC_CNT_OTHER, name);

	o = (struct pkt_opts){ .dscp = HPCC_DSCP_PROBE_DEFAULT, .proto = 17,
			       .payload = &pr, .paylen = HPCC_PROBE_LEN };
	pkt_build(&in, &o);
	snprintf(name, sizeof(name), "%s: UDP with probe DSCP untouched", who);
	expect_untouched(prog, cnt_fd, &in, TC_ACT_OK, -1, name);

	o = (struct pkt_opts){ .v6 = true, .v6_hbh = true,
			       .dscp = HPCC_DSCP_PROBE_DEFAULT,
			       .payload = &pr, .paylen = HPCC_PROBE_LEN };
	pkt_build(&in, &o);
	snprintf(name, sizeof(name), "%s: IPv6 probe behind a hop-by-hop "
		 "header untouched", who);
	expect_untouched(prog, cnt_fd, &in, TC_ACT_OK, -1, name);

	/* ARP request */
	memset(&in, 0, sizeof(in));
	memset(in.b, 0xff, 6);
	memcpy(in.b + 6, pkt_mac_a, 6);
	put16(in.b + 12, 0x0806);
	put16(in.b + 14, 1);
	put16(in.b + 16, 0x0800);
	in.b[18] = 6;
	in.b[19] = 4;
	put16(in.b + 20, 1);
	in.len = 60;
	snprintf(name, sizeof(name), "%s: ARP untouched", who);
	expect_untouched(prog, cnt_fd, &in, TC_ACT_OK, -1, name);

	/* runts: bare Ethernet header, cut IPv4 header, cut TCP header */
	o = (struct pkt_opts){ .dscp = HPCC_DSCP_PROBE_DEFAULT, .payload = &pr,
			       .paylen = HPCC_PROBE_LEN };
	pkt_build(&in, &o);
	in.len = 14;
	snprintf(name, sizeof(name), "%s: 14-byte runt untouched", who);
	expect_untouched(prog, cnt_fd, &in, TC_ACT_OK, -1, name);
	in.len = 30;
	snprintf(name, sizeof(name), "%s: cut IPv4 header untouched", who);
	expect_untouched(prog, cnt_fd, &in, TC_ACT_OK, -1, name);
	in.len = 14 + 20 + 12;
	snprintf(name, sizeof(name), "%s: cut TCP header untouched", who);
	expect_untouched(prog, cnt_fd, &in, TC_ACT_OK, -1, name);
	o.v6 = true;
	pkt_build(&in, &o);
	in.len = 14 + 30;
	snprintf(name, sizeof(name), "%s: cut IPv6 header untouched", who);
	expect_untouched(prog, cnt_fd, &in, TC_ACT_OK, -1, name);
}

static void test_switch_misc(void)
{
	struct hpcc_probe pr;
	struct pkt in;
	uint32_t k = LO_IFINDEX;

	/* Responses cross switches untouched. */
	port_cfg_set(LO_IFINDEX, 5, 1000, -1);
	probe_init(&pr, 3);
	pr.hdr.flags = HPCC_F_RESPONSE;
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN,
		    HPCC_DSCP_RESPONSE_DEFAULT);
	expect_untouched(sw_prog, sw_cnt, &in, TC_ACT_OK,
			 HPCC_CNT_SWITCH_RESPONSE,
			 "switch: response passes untouched");

	bpf_map_delete_elem(bpf_map__fd(sw->maps.hpcc_port_cfg), &k);
	probe_init(&pr, 0);
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	expect_untouched(sw_prog, sw_cnt, &in, TC_ACT_OK,
			 HPCC_CNT_SWITCH_NO_CONFIG,
			 "switch: probe on a port without config untouched");

	/* Per-port DSCP: the default DSCP is then just another DSCP. */
	{
		struct hpcc_port_cfg c = { .switch_id = 1, .probe_dscp = 0x21,
					   .resp_dscp = 0x22,
					   .flags = HPCC_PORT_F_DSCP };
		struct run r;

		bpf_map_update_elem(bpf_map__fd(sw->maps.hpcc_port_cfg), &k,
				    &c, BPF_ANY);
		expect_untouched(sw_prog, sw_cnt, &in, TC_ACT_OK,
				 HPCC_CNT_OTHER,
				 "switch: configured DSCP, default-DSCP probe "
				 "untouched");
		probe_frame(&in, false, &pr, HPCC_PROBE_LEN, 0x21);
		run_prog(sw_prog, &in, &r);
		tap(CHECK(payload_of(&r.out)->hdr.nhops == 1, "nhops") &&
		    csums_ok(&r.out), "switch: configured probe DSCP stamped");
	}
}

/* The switch does not check checksums (the receiving host does): it
 * stamps a corrupted probe, and the incremental update keeps the sum as
 * wrong as it was, so the host still drops it.
 */
static void test_switch_bad_csum(void)
{
	uint64_t before[HPCC_CNT_MAX];
	struct hpcc_probe pr;
	struct pkt in;
	struct run r;
	bool ok = true;

	port_cfg_set(LO_IFINDEX, 8, 1000, -1);
	qsnap_set(500, 5000);
	probe_init(&pr, 1);
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	in.b[in.pay + sizeof(struct hpcc_hdr) + 3] ^= 0x20;
	counters_read(sw_cnt, before);
	run_prog(sw_prog, &in, &r);
	ok &= CHECK(!r.err && r.retval == TC_ACT_OK, "retval %d", r.retval);
	ok &= CHECK(payload_of(&r.out)->hdr.nhops == 2, "nhops %u",
		    payload_of(&r.out)->hdr.nhops);
	ok &= CHECK(!tcp_csum_ok(&r.out), "checksum became valid");
	ok &= CHECK(l4_csum(&r.out, 6) == l4_csum(&in, 6),
		    "checksum error changed: %#x -> %#x", l4_csum(&in, 6),
		    l4_csum(&r.out, 6));
	ok &= counters_moved(sw_cnt, before,
			     (int[]){ HPCC_CNT_SWITCH_STAMPED, -1 });
	tap(ok, "switch: a probe with a bad TCP checksum is stamped and stays "
	    "exactly as wrong");
}

static void test_switch_vlan(void)
{
	struct pkt_opts po = { .dscp = HPCC_DSCP_PROBE_DEFAULT,
			       .paylen = HPCC_PROBE_LEN, .vlans = 1 };
	struct hpcc_probe pr;
	struct pkt in;
	struct run r;
	uint32_t skip[3][2];
	bool ok;

	port_cfg_set(LO_IFINDEX, 12, 1000, -1);
	qsnap_set(700, 7000);
	probe_init(&pr, 0);
	po.payload = &pr;
	pkt_build(&in, &po);
	run_prog(sw_prog, &in, &r);
	ok = CHECK(!r.err && r.retval == TC_ACT_OK, "retval %d", r.retval);
	ok &= CHECK(payload_of(&r.out)->hdr.nhops == 1, "nhops %u",
		    payload_of(&r.out)->hdr.nhops);
	ok &= CHECK(ntohl(payload_of(&r.out)->hop[0].switch_id) == 12, "sid");
	ok &= csums_ok(&r.out);
	skip[0][0] = in.pay + 2;
	skip[0][1] = 1;
	skip[1][0] = in.pay + sizeof(struct hpcc_hdr);
	skip[1][1] = sizeof(struct hpcc_hop);
	skip[2][0] = in.l4 + 16;
	skip[2][1] = 2;
	ok &= same_except(&in, &r.out, skip, 3);
	tap(ok, "switch stamps a probe behind an in-band VLAN tag");
}

static void response_frame(struct pkt *k, bool v6, const struct hpcc_probe *pr,
			   const uint8_t *peer, const uint8_t *us,
			   uint16_t peer_port, uint16_t our_port);

/* The records of a probe or response, and its overflow flag: gone. */
static bool stripped(const struct pkt *in, const struct pkt *out)
{
	const struct hpcc_probe *p = payload_of(out);
	const uint8_t *r = (const uint8_t *)p->hop;
	uint32_t skip[3][2];
	bool ok = true;
	size_t i;

	for (i = 0; i < sizeof(p->hop); i++)
		if (r[i]) {
			diag("record byte %zu is %#x\n", i, r[i]);
			ok = false;
			break;
		}
	ok &= CHECK(p->hdr.nhops == 0, "nhops %u", p->hdr.nhops);
	ok &= CHECK(p->hdr.flags == (payload_of(in)->hdr.flags &
				     ~HPCC_F_OVERFLOW), "flags %#x",
		    p->hdr.flags);
	/* Nothing else: the header's flags and nhops, the room, the sum. */
	skip[0][0] = in->pay + 1;
	skip[0][1] = 2;
	skip[1][0] = in->pay + sizeof(struct hpcc_hdr);
	skip[1][1] = sizeof(p->hop);
	skip[2][0] = in->l4 + 16;
	skip[2][1] = 2;
	ok &= same_except(in, out, skip, 3);
	return ok;
}

/* An edge port (HPCC_PORT_F_EDGE): its egress removes the records of
 * whatever crosses it and stamps nothing; hpcc_edge_in, on its ingress,
 * drops probes and removes the records of responses. Anything else
 * passes as on any port.
 */
static void test_switch_edge(void)
{
	struct hpcc_port_cfg c = { .switch_id = 9, .rate_mbps = 1000,
				   .flags = HPCC_PORT_F_EDGE };
	int eprog = bpf_program__fd(sw->progs.hpcc_edge_in), v6;
	uint64_t before[HPCC_CNT_MAX];
	uint32_t k = LO_IFINDEX;
	struct hpcc_probe pr;
	struct pkt in;
	struct run r;
	char name[160];
	bool ok;

	bpf_map_update_elem(bpf_map__fd(sw->maps.hpcc_port_cfg), &k, &c,
			    BPF_ANY);
	qsnap_set(4000, 40000);
	for (v6 = 0; v6 <= 1; v6++) {
		/* Stamped inside (3 records) and junk past nhops. */
		probe_init(&pr, 3);
		memset(&pr.hop[5], 0x5a, sizeof(pr.hop[5]));
		probe_frame(&in, v6, &pr, HPCC_PROBE_LEN,
			    HPCC_DSCP_PROBE_DEFAULT);
		counters_read(sw_cnt, before);
		run_prog(sw_prog, &in, &r);
		ok = CHECK(!r.err && r.retval == TC_ACT_OK, "retval %d",
			   r.retval);
		ok &= stripped(&in, &r.out) && csums_ok(&r.out);
		ok &= counters_moved(sw_cnt, before,
				     (int[]){ HPCC_CNT_EDGE_STRIPPED, -1 });
		tap(ok, "switch, edge port: an IPv%d probe leaves without its "
		    "records (nor the port's own), junk past nhops too",
		    v6 ? 6 : 4);

		probe_init(&pr, HPCC_MAX_HOPS);
		pr.hdr.flags = HPCC_F_RESPONSE | HPCC_F_OVERFLOW;
		response_frame(&in, v6, &pr, v6 ? pkt_ip6_b : pkt_ip4_b,
			       v6 ? pkt_ip6_a : pkt_ip4_a, 5201, 40000);
		counters_read(sw_cnt, before);
		run_prog(sw_prog, &in, &r);
		ok = CHECK(!r.err && r.retval == TC_ACT_OK, "retval %d",
			   r.retval);
		ok &= stripped(&in, &r.out) && csums_ok(&r.out);
		ok &= counters_moved(sw_cnt, before,
				     (int[]){ HPCC_CNT_EDGE_STRIPPED, -1 });
		tap(ok, "switch, edge port: an IPv%d response with a full room "
		    "leaves with no records and no overflow flag", v6 ? 6 : 4);

		/* Coming in: a probe is dropped, a response stripped. */
		probe_init(&pr, 2);
		probe_frame(&in, v6, &pr, HPCC_PROBE_LEN,
			    HPCC_DSCP_PROBE_DEFAULT);
		snprintf(name, sizeof(name), "edge ingress: an IPv%d probe "
			 "from outside dropped (edge_probe_dropped)",
			 v6 ? 6 : 4);
		expect_untouched(eprog, sw_cnt, &in, TC_ACT_SHOT,
				 HPCC_CNT_EDGE_PROBE_DROPPED, name);
		pr.hdr.flags = HPCC_F_RESPONSE;
		response_frame(&in, v6, &pr, v6 ? pkt_ip6_b : pkt_ip4_b,
			       v6 ? pkt_ip6_a : pkt_ip4_a, 5201, 40000);
		counters_read(sw_cnt, before);
		run_prog(eprog, &in, &r);
		ok = CHECK(!r.err && r.retval == TC_ACT_OK, "retval %d",
			   r.retval);
		ok &= stripped(&in, &r.out) && csums_ok(&r.out);
		ok &= counters_moved(sw_cnt, before,
				     (int[]){ HPCC_CNT_EDGE_STRIPPED, -1 });
		tap(ok, "edge ingress: an IPv%d response from outside comes in "
		    "without its records", v6 ? 6 : 4);
	}

	/* A wrong sum stays exactly as wrong: the receiver still drops it. */
	probe_init(&pr, 2);
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	in.b[in.pay + sizeof(struct hpcc_hdr) + 3] ^= 0x20;
	run_prog(sw_prog, &in, &r);
	ok = CHECK(r.retval == TC_ACT_OK, "retval %d", r.retval);
	ok &= stripped(&in, &r.out);
	ok &= CHECK(l4_csum(&r.out, 6) == l4_csum(&in, 6),
		    "checksum error changed: %#x -> %#x", l4_csum(&in, 6),
		    l4_csum(&r.out, 6));
	tap(ok, "switch, edge port: a probe with a bad TCP checksum is "
	    "stripped and stays exactly as wrong");

	/* Malformed candidates and ordinary traffic pass as anywhere. */
	pr.hdr.version = 9;
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	expect_untouched(sw_prog, sw_cnt, &in, TC_ACT_OK, HPCC_CNT_BAD_VERSION,
			 "switch, edge port: a bad version passes untouched");
	expect_untouched(eprog, sw_cnt, &in, TC_ACT_OK, HPCC_CNT_BAD_VERSION,
			 "edge ingress: a bad version passes untouched");
	{
		static uint8_t junk[1000];
		struct pkt_opts o = { .tcp_flags = 0x10, .payload = junk,
				      .paylen = sizeof(junk),
				      .dscp = HPCC_DSCP_PROBE_DEFAULT };

		pkt_build(&in, &o);
		expect_untouched(sw_prog, sw_cnt, &in, TC_ACT_OK, -1,
				 "switch, edge port: TCP data untouched");
		expect_untouched(eprog, sw_cnt, &in, TC_ACT_OK, -1,
				 "edge ingress: TCP data untouched");
	}
	/* hpcc_edge_in fails closed: without the port's config, a probe
	 * coming in is still dropped.
	 */
	bpf_map_delete_elem(bpf_map__fd(sw->maps.hpcc_port_cfg), &k);
	probe_init(&pr, 0);
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	expect_untouched(eprog, sw_cnt, &in, TC_ACT_SHOT,
			 HPCC_CNT_EDGE_PROBE_DROPPED,
			 "edge ingress without the port's config: probes still "
			 "dropped (fails closed)");
	qsnap_clear();
}

/* ------------------------------------------------- wire version 2, MAC */

static const uint8_t mac_key0[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
				      0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
				      0xcc, 0xdd, 0xee, 0xff };
static const uint8_t mac_key1[16] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4,
				      5, 6, 7, 8, 9, 10, 11, 12 };

static void v2_init(struct hpcc_probe_v2 *p, uint8_t flags, uint8_t key_id)
{
	memset(p, 0, sizeof(*p));
	p->hdr.version = HPCC_WIRE_V2;
	p->hdr.room = HPCC_MAX_HOPS;
	p->hdr.flags = flags;
	p->hdr.key_id = key_id;
	p->hdr.nonce = htonl(0xdecafbad);
	p->hdr.send_ns = htobe64(123456789);
	p->hdr.t_us = htonl(20);
}

static void v2_frame(struct pkt *k, bool v6, const struct hpcc_probe_v2 *p,
		     uint8_t dscp)
{
	struct pkt_opts o = {
		.v6 = v6, .dscp = dscp, .ecn = 2,
		.payload = p, .paylen = HPCC_PROBE_V2_LEN,
	};

	pkt_build(k, &o);
}

static const struct hpcc_probe_v2 *payload_v2(const struct pkt *k)
{
	return (const void *)(k->b + k->pay);
}

/* Set (or with @key NULL clear) key @id in a hpcc_mac_keys map. */
static int mac_key_set(int map_fd, uint32_t id, const uint8_t *key)
{
	struct hpcc_mac_key v = {};

	if (key) {
		memcpy(v.key, key, sizeof(v.key));
		v.flags = HPCC_KEY_F_SET;
	}
	return bpf_map_update_elem(map_fd, &id, &v, BPF_ANY);
}

static void test_switch_mac(void)
{
	int kfd = bpf_map__fd(sw->maps.hpcc_mac_keys), v6, i;
	uint64_t before[HPCC_CNT_MAX];
	struct hpcc_probe_v2 pr, cur;
	const struct hpcc_probe_v2 *o;
	struct hpcc_sipkey k;
	struct pkt in;
	struct run r;
	bool ok;

	qsnap_set(5000, 77777);
	mac_key_set(kfd, 0, mac_key0);
	mac_key_set(kfd, 1, mac_key1);
	hpcc_sipkey_of(&k, mac_key1);
	for (v6 = 0; v6 <= 1; v6++) {
		/* Three routers in turn, each with its own switch_id. */
		v2_init(&cur, HPCC_F_MAC, 1);
		ok = true;
		for (i = 0; i < 3; i++) {
			uint64_t want;

			port_cfg_set(LO_IFINDEX, 40 + i, 10000, -1);
			v2_frame(&in, v6, &cur, HPCC_DSCP_PROBE_DEFAULT);
			counters_read(sw_cnt, before);
			run_prog(sw_prog, &in, &r);
			o = payload_v2(&r.out);
			ok &= CHECK(!r.err && r.retval == TC_ACT_OK,
				    "retval %d", r.retval);
			ok &= CHECK(o->hdr.nhops == i + 1, "nhops %u",
				    o->hdr.nhops);
			ok &= csums_ok(&r.out);
			ok &= CHECK(ntohl(o->hop[i].rec.switch_id) ==
				    (uint32_t)(40 + i), "switch_id");
			ok &= CHECK(ntohl(o->hop[i].rec.qlen) == 5000, "qlen");
			/* The userspace model's tag, over what was stamped. */
			want = hpcc_mac_tag(&k, &o->hdr, i, &o->hop[i].rec,
					    i ? (const uint8_t *)
						&o->hop[i - 1].tag : NULL);
			ok &= CHECK(be64toh(o->hop[i].tag) == want,
				    "hop %d tag %016llx, model %016llx", i,
				    (unsigned long long)be64toh(o->hop[i].tag),
				    (unsigned long long)want);
			ok &= CHECK(!memcmp(&o->hop[i + 1], &cur.hop[i + 1],
					    sizeof(o->hop[0]) *
					    (HPCC_MAX_HOPS - i - 1)),
				    "bytes past the record changed");
			ok &= counters_moved(sw_cnt, before,
					     (int[]){ HPCC_CNT_SWITCH_STAMPED,
						      HPCC_CNT_SWITCH_MAC_TAGGED,
						      -1 });
			memcpy(&cur, o, sizeof(cur));
		}
		ok &= CHECK(hpcc_mac_verify(&cur, &k) == 0, "chain");
		tap(ok, "switch, v2 + MAC, IPv%d: three hops tagged, each tag "
		    "the userspace model's, the chain verifies", v6 ? 6 : 4);
	}

	/* v2 without MAC: a 40-byte record, tag 0. */
	v2_init(&pr, 0, 0);
	v2_frame(&in, false, &pr, HPCC_DSCP_PROBE_DEFAULT);
	counters_read(sw_cnt, before);
	run_prog(sw_prog, &in, &r);
	o = payload_v2(&r.out);
	ok = CHECK(o->hdr.nhops == 1 && o->hop[0].tag == 0 &&
		   ntohl(o->hop[0].rec.qlen) == 5000, "v2 record");
	ok &= csums_ok(&r.out);
	ok &= counters_moved(sw_cnt, before,
			     (int[]){ HPCC_CNT_SWITCH_STAMPED, -1 });
	tap(ok, "switch, v2 without MAC: stamped at v2 offsets, tag 0");

	/* MAC asked under a key this router does not have. */
	mac_key_set(kfd, 1, NULL);
	v2_init(&pr, HPCC_F_MAC, 1);
	v2_frame(&in, false, &pr, HPCC_DSCP_PROBE_DEFAULT);
	counters_read(sw_cnt, before);
	run_prog(sw_prog, &in, &r);
	o = payload_v2(&r.out);
	ok = CHECK(o->hdr.nhops == 1 && o->hop[0].tag == 0, "untagged");
	ok &= CHECK(hpcc_mac_verify(o, &k) == -EKEYREJECTED, "verifies");
	ok &= counters_moved(sw_cnt, before,
			     (int[]){ HPCC_CNT_SWITCH_STAMPED,
				      HPCC_CNT_SWITCH_NO_KEY, -1 });
	tap(ok, "switch, v2 + MAC without that key here: tag 0, counted "
	    "switch_no_key; the chain fails");
	v2_init(&pr, HPCC_F_MAC, 7);
	v2_frame(&in, false, &pr, HPCC_DSCP_PROBE_DEFAULT);
	counters_read(sw_cnt, before);
	run_prog(sw_prog, &in, &r);
	ok = counters_moved(sw_cnt, before,
			    (int[]){ HPCC_CNT_SWITCH_STAMPED,
				     HPCC_CNT_SWITCH_NO_KEY, -1 });
	tap(ok, "switch, v2 + MAC, key_id 7 (out of range): no key, counted");
	mac_key_set(kfd, 0, NULL);

	/* v2 with a flag not implemented yet: passed, bad_flags. */
	v2_init(&pr, HPCC_F_STRIPPED, 0);
	v2_frame(&in, false, &pr, HPCC_DSCP_PROBE_DEFAULT);
	expect_untouched(sw_prog, sw_cnt, &in, TC_ACT_OK, HPCC_CNT_BAD_FLAGS,
			 "switch, v2 with STRIPPED (not implemented): "
			 "untouched, bad_flags");

	/* Rx-HPCC: a probe that asks is stamped as any; a window response
	 * passes; an edge port does not let a window out.
	 */
	v2_init(&pr, HPCC_F_WANT_WINDOW, 0);
	v2_frame(&in, false, &pr, HPCC_DSCP_PROBE_DEFAULT);
	counters_read(sw_cnt, before);
	run_prog(sw_prog, &in, &r);
	o = payload_v2(&r.out);
	ok = CHECK(o->hdr.nhops == 1 && o->hdr.flags == HPCC_F_WANT_WINDOW,
		   "nhops %u flags %#x", o->hdr.nhops, o->hdr.flags);
	ok &= csums_ok(&r.out);
	ok &= counters_moved(sw_cnt, before,
			     (int[]){ HPCC_CNT_SWITCH_STAMPED, -1 });
	tap(ok, "switch, v2 probe asking for a window: stamped, flag kept");
	{
		struct hpcc_window_resp wr = {
			.hdr = { .version = HPCC_WIRE_V2,
				 .flags = HPCC_F_RESPONSE | HPCC_F_WINDOW |
					  HPCC_F_WANT_WINDOW,
				 .room = HPCC_MAX_HOPS, .nonce = 7 },
		};
		struct pkt_opts po = {
			.dscp = HPCC_DSCP_RESPONSE_DEFAULT, .payload = &wr,
			.paylen = HPCC_WINDOW_LEN,
		};
		struct hpcc_port_cfg ec = { .switch_id = 9, .rate_mbps = 1000,
					    .flags = HPCC_PORT_F_EDGE };
		const struct hpcc_window_resp *w;
		uint32_t lo = LO_IFINDEX;

		pkt_build(&in, &po);
		expect_untouched(sw_prog, sw_cnt, &in, TC_ACT_OK,
				 HPCC_CNT_SWITCH_RESPONSE,
				 "switch: a window response passes untouched");
		bpf_map_update_elem(bpf_map__fd(sw->maps.hpcc_port_cfg), &lo,
				    &ec, BPF_ANY);
		wr.win.w_bytes = htobe64(125000);
		wr.win.b_mbps = htonl(10000);
		wr.tag = 0x1122334455667788ULL;
		pkt_build(&in, &po);
		counters_read(sw_cnt, before);
		run_prog(sw_prog, &in, &r);
		w = (const void *)payload_v2(&r.out);
		ok = CHECK(r.retval == TC_ACT_OK && r.out.len == in.len,
			   "ret %d", r.retval);
		ok &= CHECK(w->hdr.flags == wr.hdr.flags && !w->win.w_bytes &&
			    !w->win.b_mbps && !w->tag, "window kept");
		ok &= csums_ok(&r.out);
		ok &= counters_moved(sw_cnt, before,
				     (int[]){ HPCC_CNT_EDGE_STRIPPED, -1 });
		tap(ok, "switch, edge port: a window response leaves the "
		    "domain zeroed (no W, U, B: the sender ignores it)");
		port_cfg_set(LO_IFINDEX, 3, 10000, -1);
	}

	/* An anonymised port: ratios only, HPCC_F_ANON; v1 gets nothing. */
	{
		struct hpcc_port_cfg c = { .switch_id = 5, .rate_mbps = 1000,
					   .flags = HPCC_PORT_F_ANON };
		const uint64_t tx = 0x123456789abull;
		uint32_t ki = LO_IFINDEX;
		struct hpcc_probe p1;
		uint64_t t0, t1;

		bpf_map_update_elem(bpf_map__fd(sw->maps.hpcc_port_cfg), &ki,
				    &c, BPF_ANY);
		qsnap_set(125000, tx);
		mac_key_set(kfd, 1, mac_key1);
		v2_init(&pr, HPCC_F_MAC, 1);
		v2_frame(&in, false, &pr, HPCC_DSCP_PROBE_DEFAULT);
		t0 = mono_ns();
		run_prog(sw_prog, &in, &r);
		t1 = mono_ns();
		o = payload_v2(&r.out);
		/* 125000 B at 1000 Mbit/s drain in 1 ms; tx bytes * 8 ns */
		ok = CHECK(o->hdr.flags == (HPCC_F_MAC | HPCC_F_ANON) &&
			   o->hdr.nhops == 1, "flags %#x", o->hdr.flags);
		ok &= hop_ok(&o->hop[0].rec, 5, LO_IFINDEX, 0, 1000000,
			     tx * 8, t0, t1);
		ok &= CHECK(hpcc_mac_verify(o, &k) == 0, "chain");
		ok &= csums_ok(&r.out);
		tap(ok, "switch, anonymised port, v2: rate 0, queue as drain "
		    "time (1 ms), bytes as busy time (x8 ns at 1 Gbit/s), "
		    "ANON set, tagged");
		probe_init(&p1, 0);
		probe_frame(&in, false, &p1, HPCC_PROBE_LEN,
			    HPCC_DSCP_PROBE_DEFAULT);
		run_prog(sw_prog, &in, &r);
		tap(hop_ok(&payload_of(&r.out)->hop[0], 5, LO_IFINDEX, 0, 0,
			   0, t0, mono_ns()) &&
		    payload_of(&r.out)->hdr.flags == 0,
		    "switch, anonymised port, v1: an empty record (rate, "
		    "queue, bytes 0), no flag");
		c.flags = 0;
		bpf_map_update_elem(bpf_map__fd(sw->maps.hpcc_port_cfg), &ki,
				    &c, BPF_ANY);
		mac_key_set(kfd, 1, NULL);
		qsnap_clear();
	}

	/* Edge port: every v2 record goes, the v2 header's tail stays. */
	{
		struct hpcc_port_cfg c = { .switch_id = 9, .rate_mbps = 1000,
					   .flags = HPCC_PORT_F_EDGE };
		uint32_t ki = LO_IFINDEX;

		bpf_map_update_elem(bpf_map__fd(sw->maps.hpcc_port_cfg), &ki,
				    &c, BPF_ANY);
		v2_init(&pr, HPCC_F_MAC, 1);
		pr.hdr.nhops = 3;
		for (i = 0; i < HPCC_MAX_HOPS; i++)
			memset(&pr.hop[i], 0x5a + i, sizeof(pr.hop[i]));
		v2_frame(&in, false, &pr, HPCC_DSCP_PROBE_DEFAULT);
		run_prog(sw_prog, &in, &r);
		o = payload_v2(&r.out);
		ok = CHECK(o->hdr.nhops == 0 && o->hdr.key_id == 1 &&
			   o->hdr.t_us == htonl(20), "header");
		for (i = 0; i < HPCC_MAX_HOPS; i++) {
			static const struct hpcc_hop_v2 z;

			ok &= CHECK(!memcmp(&o->hop[i], &z, sizeof(z)),
				    "record %d left", i);
		}
		ok &= csums_ok(&r.out);
		tap(ok, "switch, edge port: a v2 probe leaves without any of "
		    "its 8 records, checksum right");
	}
	qsnap_clear();
}

static void switch_tests(void)
{
	sw = hpcc_switch__open_and_load();
	tap(sw != NULL, "hpcc_switch.bpf.o loads (tc + 3 tracing programs)");
	if (!sw)
		return;
	sw_prog = bpf_program__fd(sw->progs.hpcc_switch);
	sw_cnt = bpf_map__fd(sw->maps.hpcc_counters);

	test_switch_stamp(false);
	test_switch_stamp(true);
	test_switch_ipopts();
	test_switch_two_hops();
	test_switch_overflow(false);
	test_switch_overflow(true);
	test_switch_qsnap_mq();
	test_switch_qos();
	test_switch_bad_csum();
	test_switch_vlan();
	test_malformed(sw_prog, sw_cnt, "switch", TC_ACT_OK);
	test_non_probes(sw_prog, sw_cnt, "switch");
	test_switch_misc();
	test_switch_edge();
	test_switch_mac();
	hpcc_switch__destroy(sw);
	sw = NULL;
}

/* ------------------------------------------------------------ host tests */

static struct hpcc_host *host;
static int host_prog, host_cnt;
static bool have_module;

/* Is bpf_hpcc_report in some module's BTF? */
static bool kfunc_present(void)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	bool found = false;
	struct dirent *de;
	DIR *dir;

	if (!vmlinux)
		return false;
	dir = opendir("/sys/kernel/btf");
	while (dir && !found && (de = readdir(dir))) {
		struct btf *b;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "vmlinux"))
			continue;
		b = btf__load_module_btf(de->d_name, vmlinux);
		if (!b)
			continue;
		found = btf__find_by_name_kind(b, "bpf_hpcc_report",
					       BTF_KIND_FUNC) > 0;
		btf__free(b);
	}
	if (dir)
		closedir(dir);
	btf__free(vmlinux);
	return found;
}

static void test_host_reflect(bool v6)
{
	uint64_t before[HPCC_CNT_MAX];
	struct hpcc_probe pr;
	struct pkt in;
	struct run r;
	const uint8_t *a = in.b, *b;
	uint32_t l3 = 14, alen = v6 ? 16 : 4, soff = v6 ? 8 : 12;
	bool ok = true;

	probe_init(&pr, 3);
	probe_frame(&in, v6, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	counters_read(host_cnt, before);
	run_prog(host_prog, &in, &r);
	b = r.out.b;
	ok &= CHECK(!r.err && r.retval == TC_ACT_REDIRECT, "retval %d",
		    r.retval);
	ok &= CHECK(!memcmp(b, a + 6, 6) && !memcmp(b + 6, a, 6), "MACs");
	ok &= CHECK(!memcmp(b + l3 + soff, a + l3 + soff + alen, alen) &&
		    !memcmp(b + l3 + soff + alen, a + l3 + soff, alen),
		    "addresses");
	ok &= CHECK(!memcmp(b + in.l4, a + in.l4 + 2, 2) &&
		    !memcmp(b + in.l4 + 2, a + in.l4, 2), "ports");
	ok &= CHECK(dscp_of(&r.out) == HPCC_DSCP_RESPONSE_DEFAULT, "dscp %#x",
		    dscp_of(&r.out));
	ok &= CHECK(ecn_of(&r.out) == 2, "ECN bits kept");
	ok &= CHECK(r.out.b[l3 + (v6 ? 7 : 8)] == 64, "fresh TTL");
	ok &= CHECK(payload_of(&r.out)->hdr.flags == HPCC_F_RESPONSE,
		    "flags %#x", payload_of(&r.out)->hdr.flags);
	ok &= CHECK(!memcmp(&payload_of(&r.out)->hdr.nonce, &pr.hdr.nonce,
			    sizeof(pr) - 4), "rest of the payload kept");
	ok &= CHECK(r.out.b[in.l4 + 13] == 0, "TCP flags still 0");
	ok &= csums_ok(&r.out);
	ok &= counters_moved(host_cnt, before,
			     (int[]){ HPCC_CNT_PROBE_REFLECTED, -1 });
	tap(ok, "host reflects an IPv%d probe (swaps, DSCP, checksums, "
	    "redirect)", v6 ? 6 : 4);
}

static void test_host_custom_dscp(void)
{
	struct hpcc_host_cfg c = { .probe_dscp = 0x11, .resp_dscp = 0x12,
				   .flags = HPCC_CFG_F_DSCP };
	struct hpcc_host_cfg zero = {};
	struct hpcc_probe pr;
	struct pkt in;
	struct run r;
	uint32_t k = 0;
	int fd = bpf_map__fd(host->maps.hpcc_host_cfg);
	bool ok = true;

	bpf_map_update_elem(fd, &k, &c, BPF_ANY);
	probe_init(&pr, 0);
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, 0x11);
	run_prog(host_prog, &in, &r);
	ok &= CHECK(r.retval == TC_ACT_REDIRECT, "retval %d", r.retval);
	ok &= CHECK(dscp_of(&r.out) == 0x12, "dscp %#x", dscp_of(&r.out));
	ok &= csums_ok(&r.out);
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	run_prog(host_prog, &in, &r);
	ok &= CHECK(r.retval == TC_ACT_OK && same_bytes(&in, &r.out),
		    "default DSCP no longer a probe");
	bpf_map_update_elem(fd, &k, &zero, BPF_ANY);
	tap(ok, "host config: custom probe/response DSCP");
}

/* Linux IPv4 forwarding sets skb->priority from the TOS byte
 * (net.ipv4.ip_forward_update_priority, 1 by default): net/ipv4/route.c's
 * ip_tos2prio[] on the RFC 1349 bits, then pfifo_fast's (and prio's
 * default) band from net/sched/sch_generic.c's prio2band[]. Band 0 is
 * served first; best-effort data (DSCP 0) is band 1.
 */
static int linux_fwd_band(uint8_t dscp)
{
	static const uint8_t tos2prio[16] = {
		0, 0, 0, 0, 2, 2, 2, 2, 6, 6, 6, 6, 4, 4, 4, 4
	};
	static const uint8_t prio2band[16] = {
		1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1
	};

	return prio2band[tos2prio[((dscp << 2) & 0x1e) >> 1]];
}

/* The default DSCPs, as the host program turns a probe around: from
 * RFC 2474's pool 2 (xxxx11, experimental or local use; pool 3, xxxx01,
 * went to Standards Action with RFC 8436), class selector (precedence) 0,
 * and never EF: a host that answers probes must not turn them into
 * expedited traffic inside the domain, whatever the domain's boundary
 * does to EF from outside. On a Linux router neither may get a band ahead
 * of best-effort data, and the probe must queue with the data it measures.
 */
static void test_host_dscp_defaults(void)
{
	uint8_t pd = HPCC_DSCP_PROBE_DEFAULT, rd;
	struct hpcc_probe pr;
	struct pkt in;
	struct run r;
	bool ok;

	probe_init(&pr, 1);
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, pd);
	run_prog(host_prog, &in, &r);
	rd = dscp_of(&r.out);
	ok = CHECK(r.retval == TC_ACT_REDIRECT, "retval %d", r.retval);
	ok &= CHECK(rd != 46, "the response is EF (46)");
	ok &= CHECK((pd & 3) == 3 && (rd & 3) == 3,
		    "probe %u / response %u: not both in pool 2 (xxxx11)",
		    pd, rd);
	ok &= CHECK(!(pd >> 3) && !(rd >> 3),
		    "probe %u / response %u: precedence %u / %u, not 0",
		    pd, rd, pd >> 3, rd >> 3);
	tap(ok, "host: default DSCPs (probe %u, response %u) from pool 2, "
	    "precedence 0, the response not EF", pd, rd);
	ok = CHECK(linux_fwd_band(pd) == linux_fwd_band(0),
		   "probe band %d, data band %d", linux_fwd_band(pd),
		   linux_fwd_band(0));
	ok &= CHECK(linux_fwd_band(rd) >= linux_fwd_band(0),
		    "response band %d ahead of data's %d",
		    linux_fwd_band(rd), linux_fwd_band(0));
	tap(ok, "Linux router (IPv4 forwarding, pfifo_fast/prio bands): the "
	    "probe queues with best-effort data (band %d), the response is "
	    "never ahead of it (band %d)", linux_fwd_band(pd),
	    linux_fwd_band(rd));
}

static void response_frame(struct pkt *k, bool v6, const struct hpcc_probe *pr,
			   const uint8_t *peer, const uint8_t *us,
			   uint16_t peer_port, uint16_t our_port)
{
	struct pkt_opts o = {
		.v6 = v6,
		.dscp = HPCC_DSCP_RESPONSE_DEFAULT,
		.payload = pr,
		.paylen = HPCC_PROBE_LEN,
		.saddr = peer,
		.daddr = us,
		.sport = peer_port,
		.dport = our_port,
	};

	pkt_build(k, &o);
}

/* Whether the module lists a flow of local port @lport in
 * /proc/net/tcp_hpcc (its flow table, which the kfunc looks responses
 * up in), in the current namespace.
 */
static bool flow_listed(uint16_t lport)
{
	char line[512], want[16];
	bool found = false;
	FILE *f = fopen("/proc/net/tcp_hpcc", "r");

	if (!f)
		return false;
	snprintf(want, sizeof(want), ":%u ", lport);
	while (!found && fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');

		/* the first column, "ADDR:PORT", ends with @want */
		found = sp && sp - line >= (long)strlen(want) - 1 &&
			!strncmp(sp - strlen(want) + 1, want, strlen(want));
	}
	fclose(f);
	return found;
}

/* Wait up to @ms for the module to list the flow of local port @lport. */
static bool flow_wait(uint16_t lport, int ms)
{
	uint64_t deadline = mono_ns() + ms * 1000000ull;

	while (!flow_listed(lport)) {
		if (mono_ns() >= deadline)
			return false;
		poll(NULL, 0, 1);
	}
	return true;
}

/* A connected TCP socket pair on a local address (@addr, 4 or 16 bytes;
 * NULL: loopback); returns the client fd.
 */
static int tcp_pair_at(bool v6, const uint8_t *addr, const char *cc,
		       uint16_t *cport, uint16_t *sport, int *lfd_out)
{
	struct sockaddr_storage ss = {};
	socklen_t sl;
	int lfd, cfd, one = 1;

	if (v6) {
		struct sockaddr_in6 *s6 = (void *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_loopback;
		if (addr)
			memcpy(&s6->sin6_addr, addr, 16);
		sl = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (void *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (addr)
			memcpy(&s4->sin_addr, addr, 4);
		sl = sizeof(*s4);
	}
	lfd = socket(ss.ss_family, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (void *)&ss, sl) || listen(lfd, 4))
		return -1;
	getsockname(lfd, (void *)&ss, &sl);
	*sport = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
			    ((struct sockaddr_in *)&ss)->sin_port);
	cfd = socket(ss.ss_family, SOCK_STREAM, 0);
	if (cc && setsockopt(cfd, IPPROTO_TCP, TCP_CONGESTION, cc,
			     strlen(cc))) {
		close(cfd);
		close(lfd);
		return -2;
	}
	if (connect(cfd, (void *)&ss, sl))
		return -1;
	getsockname(cfd, (void *)&ss, &sl);
	*cport = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
			    ((struct sockaddr_in *)&ss)->sin_port);
	*lfd_out = lfd;
	return cfd;
}

static int tcp_pair(bool v6, const char *cc, uint16_t *cport, uint16_t *sport,
		    int *lfd_out)
{
	return tcp_pair_at(v6, NULL, cc, cport, sport, lfd_out);
}

static void test_host_responses(void)
{
	static const uint8_t lo4[4] = { 127, 0, 0, 1 };
	static const uint8_t lo6[16] = { [15] = 1 };
	struct hpcc_probe pr;
	struct pkt in;
	uint16_t cport = 0, sport = 0;
	int cfd, lfd = -1, v6;

	probe_init(&pr, 2);
	pr.hdr.flags = HPCC_F_RESPONSE;

	/* Malformed responses are dropped and counted. */
	pr.hdr.version = 9;
	response_frame(&in, false, &pr, pkt_ip4_b, pkt_ip4_a, 5201, 40000);
	expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
			 HPCC_CNT_BAD_VERSION,
			 "host: response with wrong version dropped");
	pr.hdr.version = HPCC_WIRE_VERSION;
	pr.hdr.nhops = 12;
	response_frame(&in, true, &pr, pkt_ip6_b, pkt_ip6_a, 5201, 40000);
	expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
			 HPCC_CNT_BAD_NHOPS,
			 "host: response with bad hop count dropped");
	pr.hdr.nhops = 2;
	pr.hdr.flags = HPCC_F_RESPONSE | 0x40;
	response_frame(&in, false, &pr, pkt_ip4_b, pkt_ip4_a, 5201, 40000);
	expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
			 HPCC_CNT_BAD_FLAGS,
			 "host: response with bad flags dropped");
	pr.hdr.flags = HPCC_F_RESPONSE;
	response_frame(&in, false, &pr, pkt_ip4_b, pkt_ip4_a, 5201, 40000);
	in.len -= 8;
	expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
			 HPCC_CNT_TRUNCATED,
			 "host: truncated response dropped");
	probe_init(&pr, 0);
	probe_frame(&in, false, &pr, 20, HPCC_DSCP_PROBE_DEFAULT);
	expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
			 HPCC_CNT_TRUNCATED,
			 "host: truncated probe dropped");

	/* Valid responses nobody is waiting for (the fixture's connection
	 * is 40000 <-> 5201).
	 */
	probe_init(&pr, 2);
	pr.hdr.flags = HPCC_F_RESPONSE;
	response_frame(&in, false, &pr, pkt_ip4_b, pkt_ip4_a, 5299, 40099);
	expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
			 HPCC_CNT_NO_SOCKET,
			 "host: IPv4 response without socket: dropped, "
			 "no_socket");
	response_frame(&in, true, &pr, pkt_ip6_b, pkt_ip6_a, 5299, 40099);
	expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
			 HPCC_CNT_NO_SOCKET,
			 "host: IPv6 response without socket: dropped, "
			 "no_socket");

	/* Real sockets: the response comes from the server side (peer) to
	 * the client (us). Reaching the kfunc step proves the lookup tuple
	 * direction. The listener alone must not count as a connection.
	 */
	for (v6 = 0; v6 <= 1; v6++) {
		const uint8_t *lo = v6 ? lo6 : lo4;
		char name[160];

		cfd = tcp_pair(v6, "cubic", &cport, &sport, &lfd);
		if (cfd < 0) {
			tap(false, "host: IPv%d loopback TCP pair", v6 ? 6 : 4);
			continue;
		}
		response_frame(&in, v6, &pr, lo, lo, sport, cport);
		snprintf(name, sizeof(name),
			 "host: IPv%d response for a live cubic socket: %s",
			 v6 ? 6 : 4, have_module ? "not_hpcc" : "no_module");
		expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
				 have_module ? HPCC_CNT_NOT_HPCC :
					       HPCC_CNT_NO_MODULE, name);
		/* Tuple of a listener only (peer port not connected). */
		response_frame(&in, v6, &pr, lo, lo, 1, sport);
		snprintf(name, sizeof(name),
			 "host: IPv%d response matching only a listener: "
			 "no_socket", v6 ? 6 : 4);
		expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
				 HPCC_CNT_NO_SOCKET, name);
		close(cfd);
		close(lfd);
	}

	/* With the module: an hpcc socket and a nonce it never sent. */
	if (!have_module) {
		skip_case("host: response with a wrong nonce -> bad_nonce",
			  "tcp_hpcc.ko kfunc not loaded");
		return;
	}
	{
		const char *cc = getenv("HPCC_CC") ? getenv("HPCC_CC") : "hpcc";
		char buf[1 << 16];
		uint64_t before[HPCC_CNT_MAX], now[HPCC_CNT_MAX];
		struct run r;
		int afd, i;

		cfd = tcp_pair(false, cc, &cport, &sport, &lfd);
		if (cfd < 0) {
			skip_case("host: response with a wrong nonce -> "
				  "bad_nonce", "cannot select congestion "
				  "control (set HPCC_CC)");
			return;
		}
		/* Data in flight, and the flow in the module's table (what
		 * the kfunc looks the response up in).
		 */
		afd = accept(lfd, NULL, NULL);
		memset(buf, 'x', sizeof(buf));
		for (i = 0; i < 16; i++)
			send(cfd, buf, sizeof(buf), MSG_DONTWAIT);
		if (!flow_wait(cport, 2000))
			diag("port %u not in /proc/net/tcp_hpcc after 2 s\n",
			     cport);
		pr.hdr.nonce = htonl(0x0badf00d);
		response_frame(&in, false, &pr, lo4, lo4, sport, cport);
		counters_read(host_cnt, before);
		run_prog(host_prog, &in, &r);
		counters_read(host_cnt, now);
		if (now[HPCC_CNT_NO_FLOW_STATE] != before[HPCC_CNT_NO_FLOW_STATE])
			skip_case("host: response with a wrong nonce -> "
				  "bad_nonce", "flow has no per-flow state");
		else
			tap(r.retval == TC_ACT_SHOT &&
			    now[HPCC_CNT_BAD_NONCE] ==
			    before[HPCC_CNT_BAD_NONCE] + 1,
			    "host: response with a wrong nonce -> bad_nonce");
		close(afd);
		close(cfd);
		close(lfd);
	}
}

/* Empty a per-peer limit map: every peer starts with a full burst. */
static void peers_reset(int fd)
{
	struct hpcc_peer_key k, next;

	while (!bpf_map_get_next_key(fd, NULL, &next)) {
		k = next;
		if (bpf_map_delete_elem(fd, &k))
			break;
	}
}

/* Forget the reflections so far: the limit starts with a full burst. */
static void tb_reset(void)
{
	struct hpcc_reflect_tb tb = {};
	uint32_t k = 0;

	bpf_map_update_elem(bpf_map__fd(host->maps.hpcc_reflect_tb), &k, &tb,
			    BPF_ANY);
	peers_reset(bpf_map__fd(host->maps.hpcc_reflect_peer));
}

/* A probe from @saddr:@sport to @daddr:@dport (4 or 16 bytes each). */
static void probe_frame_at(struct pkt *k, bool v6, const struct hpcc_probe *pr,
			   const uint8_t *saddr, const uint8_t *daddr,
			   uint16_t sport, uint16_t dport)
{
	struct pkt_opts o = {
		.v6 = v6,
		.dscp = HPCC_DSCP_PROBE_DEFAULT,
		.payload = pr,
		.paylen = HPCC_PROBE_LEN,
		.saddr = saddr,
		.daddr = daddr,
		.sport = sport,
		.dport = dport,
	};

	pkt_build(k, &o);
}

/* Run @in through the host program: true if it came out reflected. */
static bool reflected(const struct pkt *in)
{
	struct run r;

	run_prog(host_prog, in, &r);
	return !r.err && r.retval == TC_ACT_REDIRECT;
}

/* No open reflector: a probe is answered only where this host has the
 * connection it claims to measure. Its destination must be a local
 * address, its destination port a connected socket's, and its source
 * that connection's peer; anything else (a closed port, an address the
 * host does not own, a spoofed source, a port with only a listener) is
 * dropped and counted, and nothing goes back to whoever the source
 * claims to be. Loopback sockets: test_run's packets arrive on lo.
 */
static void test_host_open_reflector(void)
{
	static const uint8_t lo4[4] = { 127, 0, 0, 1 };
	static const uint8_t lo6[16] = { [15] = 1 };
	static const uint8_t far4[4] = { 198, 51, 100, 7 };	/* TEST-NET-2 */
	static const uint8_t far6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 7 };
	static const uint8_t spoof4[4] = { 192, 0, 2, 66 };	/* TEST-NET-1 */
	static const uint8_t spoof6[16] = { 0x20, 0x01, 0x0d, 0xb8, 1,
					    [15] = 0x66 };
	uint64_t before[HPCC_CNT_MAX], now[HPCC_CNT_MAX];
	uint16_t cport = 0, sport = 0;
	struct hpcc_probe pr;
	struct pkt in;
	int v6, lfd, afd;
	bool ok;

	probe_init(&pr, 2);
	for (v6 = 0; v6 <= 1; v6++) {
		const uint8_t *lo = v6 ? lo6 : lo4;
		const char *ip = v6 ? "IPv6" : "IPv4";
		int cfd;

		cfd = tcp_pair(v6, "cubic", &cport, &sport, &lfd);
		if (cfd < 0) {
			tap(false, "host: %s loopback TCP pair", ip);
			continue;
		}
		afd = accept(lfd, NULL, NULL);

		probe_frame_at(&in, v6, &pr, lo, lo, cport, sport);
		counters_read(host_cnt, before);
		ok = CHECK(reflected(&in), "not reflected");
		ok &= counters_moved(host_cnt, before,
				     (int[]){ HPCC_CNT_PROBE_REFLECTED, -1 });
		tap(ok, "host: %s probe of a live connection reflected", ip);

		/* The listener's port, but no connection from this peer. */
		probe_frame_at(&in, v6, &pr, lo, lo, cport ^ 0x4000, sport);
		expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
				 HPCC_CNT_REFLECT_NO_CONN, v6 ?
				 "host: IPv6 probe to a port with only a "
				 "listener (no connection) dropped, "
				 "reflect_no_conn" :
				 "host: IPv4 probe to a port with only a "
				 "listener (no connection) dropped, "
				 "reflect_no_conn");
		close(afd);
		close(cfd);
		close(lfd);

		/* The connection is closed (a timewait socket is left), and
		 * nothing listens there any more.
		 */
		probe_frame_at(&in, v6, &pr, lo, lo, cport, sport);
		expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
				 HPCC_CNT_REFLECT_NO_CONN, v6 ?
				 "host: IPv6 probe of a closed connection "
				 "(timewait) dropped, reflect_no_conn" :
				 "host: IPv4 probe of a closed connection "
				 "(timewait) dropped, reflect_no_conn");
		probe_frame_at(&in, v6, &pr, lo, lo, cport ^ 0x2000, sport);
		expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
				 HPCC_CNT_REFLECT_NO_SOCKET, v6 ?
				 "host: IPv6 probe to a closed port dropped, "
				 "reflect_no_socket" :
				 "host: IPv4 probe to a closed port dropped, "
				 "reflect_no_socket");
		probe_frame_at(&in, v6, &pr, lo, v6 ? far6 : far4, 40000, 22);
		expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
				 HPCC_CNT_REFLECT_NO_SOCKET, v6 ?
				 "host: IPv6 probe for an address the host "
				 "does not own dropped, reflect_no_socket" :
				 "host: IPv4 probe for an address the host "
				 "does not own dropped, reflect_no_socket");
		cfd = tcp_pair(v6, "cubic", &cport, &sport, &lfd);
		if (cfd < 0)
			continue;
		afd = accept(lfd, NULL, NULL);
		/* A spoofed source: to the server's port it finds only the
		 * listener, to the client's port nothing.
		 */
		probe_frame_at(&in, v6, &pr, v6 ? spoof6 : spoof4, lo, cport,
			       sport);
		expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
				 HPCC_CNT_REFLECT_NO_CONN, v6 ?
				 "host: IPv6 probe with a spoofed source to a "
				 "live connection's server port dropped (no "
				 "response to a third party), reflect_no_conn" :
				 "host: IPv4 probe with a spoofed source to a "
				 "live connection's server port dropped (no "
				 "response to a third party), reflect_no_conn");
		probe_frame_at(&in, v6, &pr, v6 ? spoof6 : spoof4, lo, sport,
			       cport);
		expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
				 HPCC_CNT_REFLECT_NO_SOCKET, v6 ?
				 "host: IPv6 probe with a spoofed source to a "
				 "live connection's client port dropped, "
				 "reflect_no_socket" :
				 "host: IPv4 probe with a spoofed source to a "
				 "live connection's client port dropped, "
				 "reflect_no_socket");

		/* The default rate limit, without any configuration: a flood
		 * of probes for a live connection is reflected at most at the
		 * default rate plus the default burst.
		 */
		{
			/* The debug kernel under TCG runs a test_run in
			 * about a millisecond: below the default rate, so
			 * there the flood is a tenth and checks the counts.
			 */
			uint64_t t0, t1, n = debug_kernel() ? 3000 : 30000;
			uint64_t i, refl = 0;
			double bound;

			probe_frame_at(&in, v6, &pr, lo, lo, cport, sport);
			counters_read(host_cnt, before);
			t0 = mono_ns();
			for (i = 0; i < n; i++)
				refl += reflected(&in);
			t1 = mono_ns();
			counters_read(host_cnt, now);
			bound = (double)HPCC_PEER_RATE_DEFAULT * (t1 - t0) /
				1e9 + HPCC_PEER_BURST_DEFAULT + 1;
			printf("# %s: %llu of %llu probes reflected in %.1f ms "
			       "(default per-peer limit allows %.0f)\n", ip,
			       (unsigned long long)refl,
			       (unsigned long long)n, (t1 - t0) / 1e6, bound);
			ok = CHECK(refl <= bound, "%llu reflected, at most "
				   "%.0f allowed", (unsigned long long)refl,
				   bound);
			ok &= CHECK(now[HPCC_CNT_PROBE_REFLECTED] -
				    before[HPCC_CNT_PROBE_REFLECTED] == refl,
				    "probe_reflected");
			ok &= CHECK(now[HPCC_CNT_REFLECT_PEER_LIMITED] -
				    before[HPCC_CNT_REFLECT_PEER_LIMITED] ==
				    n - refl, "reflect_peer_limited %llu",
				    (unsigned long long)
				    (now[HPCC_CNT_REFLECT_PEER_LIMITED] -
				     before[HPCC_CNT_REFLECT_PEER_LIMITED]));
			ok &= CHECK(now[HPCC_CNT_REFLECT_LIMITED] ==
				    before[HPCC_CNT_REFLECT_LIMITED],
				    "reflect_limited moved");
			tap(ok, "host: %s probe flood for a live connection "
			    "held to the default per-peer reflection rate, the "
			    "rest counted reflect_peer_limited", ip);
			tb_reset();
		}
		close(afd);
		close(cfd);
		close(lfd);
	}
}

/* The reflection limit as configured (hpcc-probe host attach
 * --reflect-rate/--reflect-burst): the burst at once, then the rate;
 * rate 0 is no limit.
 */
static void test_host_reflect_rate(void)
{
	struct hpcc_host_cfg c = { .flags = HPCC_CFG_F_REFLECT |
					    HPCC_CFG_F_PEER,
				   .reflect_rate = 1000, .reflect_burst = 10 };
	struct hpcc_host_cfg zero = {};
	uint64_t before[HPCC_CNT_MAX], now[HPCC_CNT_MAX], t0, t1;
	int fd = bpf_map__fd(host->maps.hpcc_host_cfg), i, n = 500, refl;
	struct hpcc_probe pr;
	struct pkt in;
	uint32_t k = 0;
	double bound;
	bool ok;

	probe_init(&pr, 1);
	probe_frame(&in, false, &pr, HPCC_PROBE_LEN, HPCC_DSCP_PROBE_DEFAULT);
	tb_reset();
	bpf_map_update_elem(fd, &k, &c, BPF_ANY);
	counters_read(host_cnt, before);
	t0 = mono_ns();
	for (i = 0, refl = 0; i < n; i++)
		refl += reflected(&in);
	t1 = mono_ns();
	counters_read(host_cnt, now);
	bound = 10 + 1000.0 * (t1 - t0) / 1e9 + 1;
	printf("# rate 1000/s, burst 10: %d of %d reflected in %.1f ms\n",
	       refl, n, (t1 - t0) / 1e6);
	ok = CHECK(refl >= 10 && refl <= bound, "%d reflected, allowed "
		   "10..%.0f", refl, bound);
	ok &= CHECK(now[HPCC_CNT_REFLECT_LIMITED] -
		    before[HPCC_CNT_REFLECT_LIMITED] == (uint64_t)(n - refl),
		    "reflect_limited");
	tap(ok, "host: --reflect-rate 1000 --reflect-burst 10: the burst, "
	    "then the rate; the rest counted reflect_limited");

	c.reflect_rate = 0;
	bpf_map_update_elem(fd, &k, &c, BPF_ANY);
	for (i = 0, refl = 0; i < n; i++)
		refl += reflected(&in);
	tap(CHECK(refl == n, "%d of %d", refl, n),
	    "host: --reflect-rate 0: no limit");
	bpf_map_update_elem(fd, &k, &zero, BPF_ANY);
	tb_reset();
}

/* A connected pair on IPv4 loopback whose client is bound to @caddr: the
 * server's socket then has @caddr as its peer. The client's fd, or -1.
 */
static int tcp_pair_from(const uint8_t *caddr, uint16_t *cport,
			 uint16_t *sport, int *lfd_out, int *afd_out)
{
	struct sockaddr_in s = { .sin_family = AF_INET }, c = s;
	socklen_t sl = sizeof(s);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), cfd, one = 1;

	s.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	memcpy(&c.sin_addr, caddr, 4);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (void *)&s, sl) || listen(lfd, 4) ||
	    getsockname(lfd, (void *)&s, &sl))
		return -1;
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	if (cfd < 0 || bind(cfd, (void *)&c, sizeof(c)) ||
	    connect(cfd, (void *)&s, sizeof(s)))
		return -1;
	sl = sizeof(c);
	getsockname(cfd, (void *)&c, &sl);
	*cport = ntohs(c.sin_port);
	*sport = ntohs(s.sin_port);
	*lfd_out = lfd;
	*afd_out = accept(lfd, NULL, NULL);
	return cfd;
}

/* The per-peer limit (--peer-rate/--peer-burst): one peer flooding gets
 * its own burst and rate and no more, and leaves the device's budget to
 * the others; its refusals are counted apart. Without it (peer rate 0)
 * the same flood takes the device's whole burst and the second peer is
 * refused: what the per-device limit alone allowed.
 */
static void test_host_reflect_peer(void)
{
	static const uint8_t a[4] = { 127, 0, 0, 1 }, b[4] = { 127, 0, 0, 2 };
	struct hpcc_host_cfg c = { .flags = HPCC_CFG_F_REFLECT |
					    HPCC_CFG_F_PEER,
				   .reflect_rate = 1000, .reflect_burst = 40,
				   .peer_rate = 100, .peer_burst = 10 };
	struct hpcc_host_cfg zero = {};
	uint64_t before[HPCC_CNT_MAX], now[HPCC_CNT_MAX], t0, t1, t2;
	int fd = bpf_map__fd(host->maps.hpcc_host_cfg);
	int pfd = bpf_map__fd(host->maps.hpcc_reflect_peer);
	int lfd[2], afd[2], cfd[2], i, n = 200, ra, rb, rb0;
	uint16_t cport[2], sport[2];
	struct hpcc_peer_key pk = { .addr = { [10] = 0xff, [11] = 0xff,
					      127, 0, 0, 2 } };
	struct hpcc_reflect_tb tb;
	struct hpcc_probe pr;
	struct pkt ina, inb;
	uint32_t k = 0;
	double bound;
	bool ok;

	cfd[0] = tcp_pair_from(a, &cport[0], &sport[0], &lfd[0], &afd[0]);
	cfd[1] = tcp_pair_from(b, &cport[1], &sport[1], &lfd[1], &afd[1]);
	if (cfd[0] < 0 || cfd[1] < 0) {
		tap(false, "host: two loopback peers (127.0.0.1, 127.0.0.2)");
		return;
	}
	probe_init(&pr, 1);
	probe_frame_at(&ina, false, &pr, a, a, cport[0], sport[0]);
	probe_frame_at(&inb, false, &pr, b, a, cport[1], sport[1]);
	tb_reset();
	bpf_map_update_elem(fd, &k, &c, BPF_ANY);
	counters_read(host_cnt, before);
	t0 = mono_ns();
	for (i = 0, ra = 0; i < n; i++)
		ra += reflected(&ina);
	t1 = mono_ns();
	for (i = 0, rb = 0; i < 10; i++)
		rb += reflected(&inb);
	counters_read(host_cnt, now);
	bound = 10 + 100.0 * (t1 - t0) / 1e9 + 1;
	printf("# peer rate 100/s burst 10, device 1000/s burst 40: peer A "
	       "%d of %d reflected in %.1f ms (allowed %.0f), then peer B "
	       "%d of 10\n", ra, n, (t1 - t0) / 1e6, bound, rb);
	ok = CHECK(ra >= 10 && ra <= bound, "peer A: %d reflected", ra);
	ok &= CHECK(rb == 10, "peer B: %d of 10 reflected", rb);
	ok &= CHECK(now[HPCC_CNT_REFLECT_PEER_LIMITED] -
		    before[HPCC_CNT_REFLECT_PEER_LIMITED] ==
		    (uint64_t)(n - ra), "reflect_peer_limited");
	ok &= CHECK(now[HPCC_CNT_REFLECT_LIMITED] ==
		    before[HPCC_CNT_REFLECT_LIMITED], "reflect_limited moved");
	ok &= CHECK(!bpf_map_lookup_elem(pfd, &pk, &tb) && tb.tat,
		    "no state for ::ffff:127.0.0.2");
	tap(ok, "host: --peer-rate 100 --peer-burst 10: a flooding peer gets "
	    "its burst and rate, counted reflect_peer_limited; another peer "
	    "is still answered");

	/* The same flood without the per-peer limit: peer A takes the
	 * device's burst, and peer B gets only what the device's rate
	 * refills. The device's rate is 100/s here so that a slow kernel
	 * (the debug kernel under TCG: milliseconds per run) does not refill
	 * the bucket between packets; the bound counts the time either way.
	 */
	c.peer_rate = 0;
	c.reflect_rate = 100;
	tb_reset();
	bpf_map_update_elem(fd, &k, &c, BPF_ANY);
	counters_read(host_cnt, before);
	t0 = mono_ns();
	for (i = 0, ra = 0; i < n; i++)
		ra += reflected(&ina);
	t1 = mono_ns();
	for (i = 0, rb0 = 0; i < 10; i++)
		rb0 += reflected(&inb);
	t2 = mono_ns();
	counters_read(host_cnt, now);
	bound = 40 + 100.0 * (t2 - t0) / 1e9 + 1;
	printf("# --peer-rate 0, device 100/s burst 40: peer A %d of %d in "
	       "%.1f ms, then peer B %d of 10 in %.1f ms (both allowed %.0f)\n",
	       ra, n, (t1 - t0) / 1e6, rb0, (t2 - t1) / 1e6, bound);
	ok = CHECK(ra >= 40, "peer A: %d, not its device's burst", ra);
	ok &= CHECK(ra + rb0 <= bound, "A %d + B %d over the device's %.0f",
		    ra, rb0, bound);
	ok &= CHECK(now[HPCC_CNT_REFLECT_LIMITED] -
		    before[HPCC_CNT_REFLECT_LIMITED] ==
		    (uint64_t)(n + 10 - ra - rb0), "reflect_limited");
	ok &= CHECK(now[HPCC_CNT_REFLECT_PEER_LIMITED] ==
		    before[HPCC_CNT_REFLECT_PEER_LIMITED],
		    "reflect_peer_limited moved");
	tap(ok, "host: --peer-rate 0: one peer takes the device's burst, the "
	    "other gets what the device's rate refills (the per-device limit "
	    "alone), counted reflect_limited");
	bpf_map_update_elem(fd, &k, &zero, BPF_ANY);
	tb_reset();
	for (i = 0; i < 2; i++) {
		close(afd[i]);
		close(cfd[i]);
		close(lfd[i]);
	}
}

/* A v2 MAC probe from 127.0.0.1:@sport to 127.0.0.1:@dport with @n
 * records chained under @k (as routers holding the key stamp them).
 */
static void mac_probe_at(struct pkt *in, struct hpcc_probe_v2 *pr,
			 const struct hpcc_sipkey *k, int n, uint16_t sport,
			 uint16_t dport, uint8_t flags)
{
	static const uint8_t lo[4] = { 127, 0, 0, 1 };
	struct pkt_opts o = {
		.dscp = HPCC_DSCP_PROBE_DEFAULT, .payload = pr,
		.paylen = HPCC_PROBE_V2_LEN, .saddr = lo, .daddr = lo,
		.sport = sport, .dport = dport,
	};
	int i;

	v2_init(pr, HPCC_F_MAC, 1);
	for (i = 0; i < n; i++) {
		struct hpcc_hop_v2 *h = &pr->hop[i];

		h->rec.switch_id = htonl(i + 1);
		h->rec.rate_mbps = htonl(10000);
		h->rec.qlen = htonl(1000 * (i + 1));
		h->rec.ts_ns = htobe64(1000000 + i);
		hpcc_put_be64_wire(&h->tag, hpcc_mac_tag(k, &pr->hdr, i,
					&h->rec, i ? (const __u8 *)
					&pr->hop[i - 1].tag : NULL));
	}
	pr->hdr.nhops = n;
	pr->hdr.flags = flags;
	pkt_build(in, &o);
}

/* The receiver's tag: a MAC probe's response is sealed (header, nhops
 * and flags bound to the chain), so that a box without the key cannot
 * cut trailing records from it; without the key the response goes back
 * unsealed, counted, and does not verify.
 */
static void test_host_mac_seal(void)
{
	int kfd = bpf_map__fd(host->maps.hpcc_mac_keys), lfd, afd, cfd, n;
	uint64_t before[HPCC_CNT_MAX];
	uint16_t cport, sport;
	struct hpcc_probe_v2 pr, q;
	struct hpcc_sipkey k;
	struct pkt in;
	struct run r;
	bool ok;

	cfd = tcp_pair_from((const uint8_t[]){ 127, 0, 0, 1 }, &cport, &sport,
			    &lfd, &afd);
	if (cfd < 0) {
		tap(false, "host: loopback pair for the MAC tests");
		return;
	}
	hpcc_sipkey_of(&k, mac_key1);
	mac_key_set(kfd, 1, mac_key1);
	for (n = 0; n <= HPCC_MAX_HOPS + 1; n += 3) {
		mac_probe_at(&in, &pr, &k, n == 9 ? 8 : n, cport, sport,
			     HPCC_F_MAC);
		tb_reset();
		counters_read(host_cnt, before);
		run_prog(host_prog, &in, &r);
		memcpy(&q, payload_v2(&r.out), sizeof(q));
		ok = CHECK(!r.err && r.retval == TC_ACT_REDIRECT, "ret %d",
			   r.retval);
		ok &= CHECK(csums_ok(&r.out), "checksums");
		ok &= CHECK(q.hdr.flags == (HPCC_F_MAC | HPCC_F_RESPONSE),
			    "flags %#x", q.hdr.flags);
		ok &= CHECK(hpcc_mac_verify(&q, &k) == 0, "does not verify");
		ok &= counters_moved(host_cnt, before,
				     (int[]){ HPCC_CNT_PROBE_REFLECTED,
					      HPCC_CNT_REFLECT_SEALED, -1 });
		if (q.hdr.nhops) {
			q.hdr.nhops--;
			ok &= CHECK(hpcc_mac_verify(&q, &k) == -EKEYREJECTED,
				    "nhops - 1 verifies");
			q.hdr.nhops++;
		}
		q.hdr.flags |= HPCC_F_OVERFLOW;
		ok &= CHECK(hpcc_mac_verify(&q, &k) == -EKEYREJECTED,
			    "OVERFLOW set verifies");
		tap(ok, "host: MAC probe with %d records: response sealed "
		    "(reflect_sealed), verifies; with a record cut or a flag "
		    "changed it does not", q.hdr.nhops);
	}
	/* Plain v2 (no MAC): nothing sealed, the records' tags as they came. */
	mac_probe_at(&in, &pr, &k, 2, cport, sport, 0);
	tb_reset();
	counters_read(host_cnt, before);
	run_prog(host_prog, &in, &r);
	ok = CHECK(r.retval == TC_ACT_REDIRECT, "ret %d", r.retval);
	ok &= CHECK(!memcmp(payload_v2(&r.out)->hop, pr.hop, sizeof(pr.hop)),
		    "records changed");
	ok &= counters_moved(host_cnt, before,
			     (int[]){ HPCC_CNT_PROBE_REFLECTED, -1 });
	tap(ok, "host: v2 probe without MAC: reflected, not sealed");

	mac_key_set(kfd, 1, NULL);
	mac_probe_at(&in, &pr, &k, 3, cport, sport, HPCC_F_MAC);
	tb_reset();
	counters_read(host_cnt, before);
	run_prog(host_prog, &in, &r);
	memcpy(&q, payload_v2(&r.out), sizeof(q));
	ok = CHECK(r.retval == TC_ACT_REDIRECT && csums_ok(&r.out), "ret %d",
		   r.retval);
	ok &= CHECK(hpcc_mac_verify(&q, &k) == -EKEYREJECTED, "verifies");
	ok &= counters_moved(host_cnt, before,
			     (int[]){ HPCC_CNT_PROBE_REFLECTED,
				      HPCC_CNT_REFLECT_NO_KEY, -1 });
	tap(ok, "host: MAC probe, key not set on the receiver: reflected "
	    "unsealed (reflect_no_key), the sender's check rejects it");
	tb_reset();
	close(afd);
	close(cfd);
	close(lfd);
}

/* Rx-HPCC at the receiver: a probe that asks for a window, on a host
 * attached with --rx-window, is answered by the module's window: a
 * 56-byte payload, the frame trimmed, the IP length and both checksums
 * right, and the sender's side takes it as a response. Without the
 * module, without the mode, or when the module refuses (a bad chain),
 * the records go back as always, counted.
 */
static void rx_cfg(bool on)
{
	struct hpcc_host_cfg c = {};
	uint32_t zero = 0;

	if (on)
		c.flags = HPCC_CFG_F_RX_WINDOW;
	bpf_map_update_elem(bpf_map__fd(host->maps.hpcc_host_cfg), &zero, &c,
			    BPF_ANY);
}

/* Set (@hex) or delete (NULL) the module's key 1; false if impossible. */
static bool module_key1(const char *hex)
{
	FILE *f = fopen("/sys/module/tcp_hpcc/parameters/mac_key", "w");
	bool ok;

	if (!f)
		return false;
	ok = fprintf(f, hex ? "1 %s\n" : "1\n", hex) > 0;
	return fclose(f) == 0 && ok;
}

static void test_host_rx_window(void)
{
	uint8_t want = HPCC_F_WANT_WINDOW;
	uint64_t before[HPCC_CNT_MAX], before2[HPCC_CNT_MAX];
	const struct hpcc_window_resp *w;
	uint16_t cport, sport;
	struct hpcc_probe_v2 pr;
	struct hpcc_sipkey k;
	struct pkt in, resp;
	struct run r;
	uint32_t l3len;
	int lfd, afd, cfd;
	bool ok;

	cfd = tcp_pair_from((const uint8_t[]){ 127, 0, 0, 1 }, &cport, &sport,
			    &lfd, &afd);
	if (cfd < 0) {
		tap(false, "host: loopback pair for the Rx-HPCC tests");
		return;
	}
	hpcc_sipkey_of(&k, mac_key1);

	/* The mode off: a probe that asks gets its records. */
	rx_cfg(false);
	mac_probe_at(&in, &pr, &k, 2, cport, sport, want);
	tb_reset();
	counters_read(host_cnt, before);
	run_prog(host_prog, &in, &r);
	ok = CHECK(r.retval == TC_ACT_REDIRECT && r.out.len == in.len,
		   "ret %d len %u", r.retval, r.out.len);
	ok &= CHECK(payload_v2(&r.out)->hdr.flags == (want | HPCC_F_RESPONSE),
		    "flags %#x", payload_v2(&r.out)->hdr.flags);
	ok &= counters_moved(host_cnt, before,
			     (int[]){ HPCC_CNT_PROBE_REFLECTED, -1 });
	tap(ok, "host, Rx-HPCC off: a probe asking for a window gets its "
	    "records (WANT_WINDOW kept)");

	rx_cfg(true);
	if (!have_module) {
		tb_reset();
		counters_read(host_cnt, before);
		run_prog(host_prog, &in, &r);
		ok = CHECK(r.retval == TC_ACT_REDIRECT && r.out.len == in.len,
			   "ret %d len %u", r.retval, r.out.len);
		ok &= counters_moved(host_cnt, before,
				     (int[]){ HPCC_CNT_PROBE_REFLECTED,
					      HPCC_CNT_NO_MODULE, -1 });
		tap(ok, "host, Rx-HPCC on without tcp_hpcc: records reflected, "
		    "no_module counted");
		skip_case("host: Rx-HPCC windows", "tcp_hpcc not loaded");
		goto out;
	}

	/* The mode on: a window, 10 Gbit/s, T = 20 us: 4 B T = 100000 */
	tb_reset();
	counters_read(host_cnt, before);
	run_prog(host_prog, &in, &r);
	w = (const void *)payload_v2(&r.out);
	l3len = r.out.len - r.out.l3;
	ok = CHECK(!r.err && r.retval == TC_ACT_REDIRECT, "ret %d", r.retval);
	ok &= CHECK(r.out.len == in.pay + HPCC_WINDOW_LEN, "length %u",
		    r.out.len);
	ok &= CHECK(get16(r.out.b + r.out.l3 + 2) == l3len, "IP length %u",
		    get16(r.out.b + r.out.l3 + 2));
	ok &= csums_ok(&r.out);
	ok &= CHECK(w->hdr.flags == (want | HPCC_F_RESPONSE | HPCC_F_WINDOW) &&
		    !w->hdr.nhops && w->hdr.nonce == pr.hdr.nonce,
		    "flags %#x nhops %u", w->hdr.flags, w->hdr.nhops);
	ok &= CHECK(ntohl(w->win.b_mbps) == 10000 &&
		    be64toh(w->win.w_bytes) >= 1000 &&
		    be64toh(w->win.w_bytes) <= 100000 && !w->tag,
		    "B %u W %llu", ntohl(w->win.b_mbps),
		    (unsigned long long)be64toh(w->win.w_bytes));
	ok &= CHECK(dscp_of(&r.out) == HPCC_DSCP_RESPONSE_DEFAULT, "dscp");
	ok &= counters_moved(host_cnt, before,
			     (int[]){ HPCC_CNT_RX_WINDOW_SENT, -1 });
	tap(ok, "host, Rx-HPCC: a 56-byte window answers (W %llu, B %u "
	    "Mbit/s), frame trimmed, IP length and checksums right",
	    (unsigned long long)be64toh(w->win.w_bytes),
	    ntohl(w->win.b_mbps));

	/* The sender's side takes a window response as a response. */
	resp = r.out;
	memcpy(resp.b, r.out.b + 6, 6);
	memcpy(resp.b + 6, r.out.b, 6);
	counters_read(host_cnt, before);
	run_prog(host_prog, &resp, &r);
	ok = CHECK(r.retval == TC_ACT_SHOT, "ret %d", r.retval);
	/* the loopback pair is not on hpcc, or (default hpcc) its nonce is
	 * not this one: either way the kfunc had it
	 */
	counters_read(host_cnt, before2);
	ok &= CHECK(before2[HPCC_CNT_NOT_HPCC] - before[HPCC_CNT_NOT_HPCC] +
		    before2[HPCC_CNT_BAD_NONCE] - before[HPCC_CNT_BAD_NONCE] ==
		    1 && before2[HPCC_CNT_TRUNCATED] == before[HPCC_CNT_TRUNCATED]
		    && before2[HPCC_CNT_BAD_CSUM] == before[HPCC_CNT_BAD_CSUM],
		    "not handed to the kfunc");
	tap(ok, "host: a window response is handed to the module's kfunc as "
	    "a response (its length and checksum accepted)");

	/* With the MAC: the chain verified first, the window tagged. */
	if (!module_key1("deadbeef0102030405060708090a0b0c")) {
		skip_case("host: Rx-HPCC with MAC", "no mac_key parameter");
		goto out;
	}
	mac_probe_at(&in, &pr, &k, 3, cport, sport, want | HPCC_F_MAC);
	tb_reset();
	counters_read(host_cnt, before);
	run_prog(host_prog, &in, &r);
	w = (const void *)payload_v2(&r.out);
	ok = CHECK(r.retval == TC_ACT_REDIRECT &&
		   r.out.len == in.pay + HPCC_WINDOW_LEN, "ret %d len %u",
		   r.retval, r.out.len);
	ok &= CHECK(hpcc_mac_window_verify(w, &k) == 0, "tag");
	ok &= csums_ok(&r.out);
	ok &= counters_moved(host_cnt, before,
			     (int[]){ HPCC_CNT_RX_WINDOW_SENT, -1 });
	tap(ok, "host, Rx-HPCC with MAC: the window's tag verifies under "
	    "the domain key");
	/* hop 1's qlen changed after the routers tagged it */
	mac_probe_at(&in, &pr, &k, 3, cport, sport, want | HPCC_F_MAC);
	pr.hop[1].rec.qlen ^= htonl(1 << 20);
	{
		struct pkt_opts o = {
			.dscp = HPCC_DSCP_PROBE_DEFAULT, .payload = &pr,
			.paylen = HPCC_PROBE_V2_LEN,
			.saddr = (const uint8_t[]){ 127, 0, 0, 1 },
			.daddr = (const uint8_t[]){ 127, 0, 0, 1 },
			.sport = cport, .dport = sport,
		};

		pkt_build(&in, &o);
	}
	mac_key_set(bpf_map__fd(host->maps.hpcc_mac_keys), 1, mac_key1);
	tb_reset();
	counters_read(host_cnt, before);
	run_prog(host_prog, &in, &r);
	ok = CHECK(r.retval == TC_ACT_REDIRECT && r.out.len == in.len,
		   "ret %d len %u", r.retval, r.out.len);
	ok &= CHECK(!(payload_v2(&r.out)->hdr.flags & HPCC_F_WINDOW),
		    "a window");
	ok &= counters_moved(host_cnt, before,
			     (int[]){ HPCC_CNT_PROBE_REFLECTED,
				      HPCC_CNT_RX_WINDOW_REFUSED,
				      HPCC_CNT_REFLECT_SEALED, -1 });
	tap(ok, "host, Rx-HPCC: no window from a chain that does not verify: "
	    "records reflected (rx_window_refused)");
	mac_key_set(bpf_map__fd(host->maps.hpcc_mac_keys), 1, NULL);
	module_key1(NULL);
out:
	rx_cfg(false);
	tb_reset();
	close(afd);
	close(cfd);
	close(lfd);
}

/* Receiver-measured N: a version 2 response carries the number of
 * connections whose probes the device answered in the epoch (here 10 s,
 * so that the test does not straddle two), sealed with the header; an
 * epoch of 0 counts nothing; a version 1 response has no room for it.
 */
static uint32_t resp_flows(const struct run *r)
{
	const uint8_t *f = payload_v2(&r->out)->hdr.flows;

	return (uint32_t)f[0] << 16 | (uint32_t)f[1] << 8 | f[2];
}

static void flows_cfg(uint32_t epoch_us)
{
	struct hpcc_host_cfg c = { .flags = HPCC_CFG_F_FLOW_EPOCH,
				   .flow_epoch_us = epoch_us };
	uint32_t zero = 0;

	bpf_map_update_elem(bpf_map__fd(host->maps.hpcc_host_cfg), &zero, &c,
			    BPF_ANY);
}

#define FLOWS_EPOCH_US	4000000000U

/* Sleep past the end of the current epoch of @epoch_us if it is within
 * @margin_s seconds.
 */
static void epoch_wait(uint64_t epoch_us, unsigned int margin_s)
{
	uint64_t epoch_ns = epoch_us * 1000, now, left;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	left = epoch_ns - now % epoch_ns;
	if (left < (uint64_t)margin_s * 1000000000ULL)
		usleep(left / 1000 + 1000);
}

static void test_host_flows(void)
{
	struct hpcc_flowcount fc0 = {};
	uint16_t cport[4], sport[4];
	int lfd[4], afd[4], cfd[4], i, n = 0;
	struct hpcc_probe_v2 pr;
	struct hpcc_sipkey k;
	struct pkt in;
	struct run r;
	uint32_t zero = 0, got[5] = {};
	bool ok = true;

	for (i = 0; i < 4; i++) {
		cfd[i] = tcp_pair_from((const uint8_t[]){ 127, 0, 0, 1 },
				       &cport[i], &sport[i], &lfd[i], &afd[i]);
		if (cfd[i] < 0) {
			tap(false, "host: loopback pairs for the flow count");
			goto out;
		}
		n++;
	}
	bpf_map_update_elem(bpf_map__fd(host->maps.hpcc_flowcount), &zero,
			    &fc0, BPF_ANY);
	/* One epoch for all five probes: a boundary between them starts the
	 * count again (the debug kernel crossed a 10 s one). 4000 s, and
	 * not within 30 s of its end (bpf_ktime_get_ns() is CLOCK_MONOTONIC).
	 */
	flows_cfg(FLOWS_EPOCH_US);
	epoch_wait(FLOWS_EPOCH_US, 30);
	hpcc_sipkey_of(&k, mac_key1);
	mac_key_set(bpf_map__fd(host->maps.hpcc_mac_keys), 1, mac_key1);
	for (i = 0; i < 5; i++) {
		mac_probe_at(&in, &pr, &k, 2, cport[i % 4], sport[i % 4],
			     HPCC_F_MAC);
		tb_reset();
		run_prog(host_prog, &in, &r);
		ok &= CHECK(r.retval == TC_ACT_REDIRECT && csums_ok(&r.out),
			    "probe %d: ret %d", i, r.retval);
		got[i] = resp_flows(&r);
	}
	ok &= CHECK(got[0] == 1 && got[1] == 2 && got[2] == 3 && got[3] == 4 &&
		    got[4] == 4, "N %u %u %u %u %u", got[0], got[1], got[2],
		    got[3], got[4]);
	ok &= CHECK(hpcc_mac_verify(payload_v2(&r.out), &k) == 0,
		    "the seal does not verify with N");
	tap(ok, "host: responses carry the receiver's N: 1, 2, 3, 4, then 4 "
	    "again for a connection already counted; sealed with it");

	flows_cfg(0);
	mac_probe_at(&in, &pr, &k, 2, cport[0], sport[0], 0);
	tb_reset();
	run_prog(host_prog, &in, &r);
	tap(r.retval == TC_ACT_REDIRECT && !resp_flows(&r),
	    "host: flow epoch 0: not counted, N 0");
	mac_key_set(bpf_map__fd(host->maps.hpcc_mac_keys), 1, NULL);
	rx_cfg(false);
out:
	tb_reset();
	for (i = 0; i < n; i++) {
		close(afd[i]);
		close(cfd[i]);
		close(lfd[i]);
	}
}

/* Flip @mask in byte @off of a built frame, checksums left as they were. */
static void corrupt(struct pkt *k, uint32_t off, uint8_t mask)
{
	k->b[off] ^= mask;
}

/* Probes and responses are checked against their TCP checksum before the
 * host turns one around or hands one to the module: a corrupted or forged
 * one is dropped and counted, never reflected, never delivered.
 */
static void test_host_csum(void)
{
	struct pkt_opts po = { .dscp = HPCC_DSCP_PROBE_DEFAULT,
			       .paylen = HPCC_PROBE_LEN };
	struct hpcc_probe pr;
	struct pkt in;
	struct run r;
	char name[128];
	bool ok;
	int v6;

	for (v6 = 0; v6 <= 1; v6++) {
		probe_init(&pr, 2);
		probe_frame(&in, v6, &pr, HPCC_PROBE_LEN,
			    HPCC_DSCP_PROBE_DEFAULT);
		corrupt(&in, in.l4 + 16, 0x01);
		snprintf(name, sizeof(name), "host: IPv%d probe with a wrong TCP "
			 "checksum dropped, not reflected", v6 ? 6 : 4);
		expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
				 HPCC_CNT_BAD_CSUM, name);

		probe_frame(&in, v6, &pr, HPCC_PROBE_LEN,
			    HPCC_DSCP_PROBE_DEFAULT);
		corrupt(&in, in.pay + sizeof(struct hpcc_hdr) + 5, 0x80);
		snprintf(name, sizeof(name), "host: IPv%d probe with a flipped "
			 "hop bit dropped (bad_csum)", v6 ? 6 : 4);
		expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
				 HPCC_CNT_BAD_CSUM, name);

		pr.hdr.flags = HPCC_F_RESPONSE;
		response_frame(&in, v6, &pr, v6 ? pkt_ip6_b : pkt_ip4_b,
			       v6 ? pkt_ip6_a : pkt_ip4_a, 5201, 40000);
		in.b[in.l4 + 16] = 0;
		in.b[in.l4 + 17] = 0;
		snprintf(name, sizeof(name), "host: IPv%d response forged "
			 "without a checksum dropped, not delivered",
			 v6 ? 6 : 4);
		expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
				 HPCC_CNT_BAD_CSUM, name);

		response_frame(&in, v6, &pr, v6 ? pkt_ip6_b : pkt_ip4_b,
			       v6 ? pkt_ip6_a : pkt_ip4_a, 5201, 40000);
		corrupt(&in, in.pay + 4, 0x10);		/* nonce */
		snprintf(name, sizeof(name), "host: IPv%d response with a "
			 "corrupted nonce dropped (bad_csum)", v6 ? 6 : 4);
		expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
				 HPCC_CNT_BAD_CSUM, name);

		/* The pseudo-header: a changed address is caught too. */
		response_frame(&in, v6, &pr, v6 ? pkt_ip6_b : pkt_ip4_b,
			       v6 ? pkt_ip6_a : pkt_ip4_a, 5201, 40000);
		corrupt(&in, in.l3 + (v6 ? 8 + 15 : 12 + 3), 0x04);
		if (!v6) {	/* a router would fix the IP header's */
			put16(in.b + in.l3 + 10, 0);
			put16(in.b + in.l3 + 10, csum_fold_(
				csum_add_buf(0, in.b + in.l3, 20)));
		}
		snprintf(name, sizeof(name), "host: IPv%d response from a "
			 "changed source address dropped (bad_csum)",
			 v6 ? 6 : 4);
		expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
				 HPCC_CNT_BAD_CSUM, name);
	}

	/* Options on either header are summed where they are. */
	probe_init(&pr, 1);
	po.payload = &pr;
	po.tcp_opt_words = 3;
	po.ip_opt_words = 2;
	pkt_build(&in, &po);
	run_prog(host_prog, &in, &r);
	ok = CHECK(!r.err && r.retval == TC_ACT_REDIRECT, "retval %d",
		   r.retval);
	ok &= CHECK(payload_of(&r.out)->hdr.flags == HPCC_F_RESPONSE, "flags");
	ok &= csums_ok(&r.out);
	tap(ok, "host: probe with IPv4 and TCP options reflected, checksums "
	    "valid");
	po.v6 = true;
	po.tcp_opt_words = 10;		/* the most: a 60-byte TCP header */
	pkt_build(&in, &po);
	run_prog(host_prog, &in, &r);
	ok = CHECK(!r.err && r.retval == TC_ACT_REDIRECT, "retval %d",
		   r.retval);
	ok &= csums_ok(&r.out);
	tap(ok, "host: IPv6 probe with 40 bytes of TCP options reflected");
	corrupt(&in, in.l4 + 59, 0x02);		/* the last option byte */
	expect_untouched(host_prog, host_cnt, &in, TC_ACT_SHOT,
			 HPCC_CNT_BAD_CSUM, "host: IPv6 probe with a corrupted "
			 "TCP option dropped (bad_csum)");
}

/* In-band VLAN tags (a QinQ frame's inner tag, tagged frames sent on a
 * trunk): the tags stay, the MACs are swapped, the IP part as usual.
 */
static void test_host_vlan(void)
{
	struct pkt_opts po = { .dscp = HPCC_DSCP_PROBE_DEFAULT,
			       .paylen = HPCC_PROBE_LEN };
	struct hpcc_probe pr;
	struct pkt in;
	struct run r;
	uint32_t skip[5][2];
	bool ok;
	int n;

	probe_init(&pr, 1);
	po.payload = &pr;
	for (n = 1; n <= 2; n++) {
		po.vlans = n;
		po.v6 = n == 2;
		pkt_build(&in, &po);
		run_prog(host_prog, &in, &r);
		ok = CHECK(!r.err && r.retval == TC_ACT_REDIRECT, "retval %d",
			   r.retval);
		ok &= CHECK(!memcmp(r.out.b, in.b + 6, 6) &&
			    !memcmp(r.out.b + 6, in.b, 6), "MACs");
		ok &= CHECK(!memcmp(r.out.b + 12, in.b + 12, in.l3 - 12),
			    "VLAN tags changed");
		ok &= CHECK(payload_of(&r.out)->hdr.flags == HPCC_F_RESPONSE,
			    "flags");
		ok &= CHECK(dscp_of(&r.out) == HPCC_DSCP_RESPONSE_DEFAULT,
			    "dscp");
		ok &= csums_ok(&r.out);
		/* Nothing else moved: addresses, ports, DSCP/TTL (with the
		 * IPv4 checksum), flags and TCP checksum aside.
		 */
		skip[0][0] = 0;
		skip[0][1] = 12;
		skip[1][0] = in.l3;
		skip[1][1] = in.v6 ? 40 : 20;
		skip[2][0] = in.l4;
		skip[2][1] = 4;
		skip[3][0] = in.l4 + 16;
		skip[3][1] = 2;
		skip[4][0] = in.pay + 1;
		skip[4][1] = 1;
		ok &= same_except(&in, &r.out, skip, 5);
		tap(ok, "host: IPv%d probe behind %d in-band VLAN tag%s "
		    "reflected, tags kept", n == 2 ? 6 : 4, n, n > 1 ? "s" : "");
	}
	po.vlans = 3;
	po.v6 = false;
	pkt_build(&in, &po);
	expect_untouched(host_prog, host_cnt, &in, TC_ACT_OK, -1,
			 "host: probe behind 3 VLAN tags is no candidate");

	/* A destination MAC starting 0x46 also reads as an IPv4 header
	 * (version 4): without config the frame is Ethernet, as it is.
	 */
	po.vlans = 0;
	pkt_build(&in, &po);
	in.b[0] = 0x46;
	run_prog(host_prog, &in, &r);
	tap(CHECK(!r.err && r.retval == TC_ACT_REDIRECT, "retval %d",
		  r.retval) && csums_ok(&r.out),
	    "host: Ethernet frame to MAC 46:... reflected (ambiguous link "
	    "layer: Ethernet unless configured raw IP)");
}

static int host_fixture_up(void);
static void host_fixture_down(void);

static void host_tests(void)
{
	have_module = kfunc_present();
	printf("# tcp_hpcc kfunc %s\n", have_module ? "present" : "absent");
	host = hpcc_host__open_and_load();
	tap(host != NULL, "hpcc_host.bpf.o loads with the kfunc %s",
	    have_module ? "resolved" : "unresolved (weak)");
	if (!host)
		return;
	host_prog = bpf_program__fd(host->progs.hpcc_host);
	host_cnt = bpf_map__fd(host->maps.hpcc_counters);
	if (host_fixture_up()) {
		tap(false, "host: a network namespace with the connections "
		    "the test probes belong to");
		host_fixture_down();
		hpcc_host__destroy(host);
		host = NULL;
		return;
	}

	test_host_reflect(false);
	test_host_reflect(true);
	test_host_custom_dscp();
	test_host_dscp_defaults();
	test_host_responses();
	test_host_open_reflector();
	test_host_reflect_rate();
	test_host_reflect_peer();
	test_host_mac_seal();
	test_host_rx_window();
	test_host_flows();
	test_host_csum();
	test_host_vlan();
	test_malformed(host_prog, host_cnt, "host", TC_ACT_SHOT);
	test_non_probes(host_prog, host_cnt, "host");
	host_fixture_down();
	hpcc_host__destroy(host);
	host = NULL;
}

/* ------------------------------------------------- netns traffic tests */

static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc)
		diag("command failed (%d): %s\n", rc, cmd);
	return rc;
}

static char ns_name[64];
static int ns_fd = -1, ns_orig = -1;

static int ns_enter(void)
{
	return setns(ns_fd, CLONE_NEWNET);
}

static void ns_leave(void)
{
	setns(ns_orig, CLONE_NEWNET);
}

/* A fresh network namespace @prefix<pid>, ns_enter() ready. */
static int ns_create(const char *prefix)
{
	char path[128];

	snprintf(ns_name, sizeof(ns_name), "%s%d", prefix, getpid());
	if (sh("ip netns add %s", ns_name))
		return -1;
	snprintf(path, sizeof(path), "/run/netns/%s", ns_name);
	ns_fd = open(path, O_RDONLY);
	ns_orig = open("/proc/self/ns/net", O_RDONLY);
	if (ns_fd < 0 || ns_orig < 0)
		return -1;
	return 0;
}

static int ns_setup(int ntxq)
{
	if (ns_create("hpcct"))
		return -1;
	if (sh("ip -n %s link add hpv0 numtxqueues %d numrxqueues %d type veth "
	       "peer name hpv1", ns_name, ntxq, ntxq) ||
	    sh("ip netns exec %s sysctl -qw net.ipv6.conf.all.disable_ipv6=1",
	       ns_name) ||
	    sh("ip netns exec %s sysctl -qw "
	       "net.ipv6.conf.default.disable_ipv6=1", ns_name) ||
	    sh("ip -n %s link set hpv0 address 02:00:00:00:00:0a", ns_name) ||
	    sh("ip -n %s link set hpv1 address 02:00:00:00:00:0b", ns_name) ||
	    sh("ip -n %s link set hpv0 up && ip -n %s link set hpv1 up",
	       ns_name, ns_name))
		return -1;
	return 0;
}

/* ns_setup(1), with loopback up and the addresses of pkt.h's connection:
 * 10.0.0.1/24 on hpv0, 10.0.0.2/24 on hpv1.
 */
static int ns_setup_addrs(void)
{
	return ns_setup(1) ||
	       sh("ip -n %1$s link set lo up && "
		  "ip -n %1$s addr add 10.0.0.1/24 dev hpv0 && "
		  "ip -n %1$s addr add 10.0.0.2/24 dev hpv1", ns_name) ? -1 : 0;
}

static void ns_teardown(void)
{
	if (ns_fd >= 0)
		close(ns_fd);
	if (ns_orig >= 0)
		close(ns_orig);
	ns_fd = ns_orig = -1;
	if (ns_name[0]) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "ip netns del %s 2>/dev/null",
			 ns_name);
		if (system(cmd))
			fprintf(stderr, "# cannot delete netns %s\n", ns_name);
	}
	ns_name[0] = 0;
}

/* AF_PACKET socket on @dev; with @tcp_only, a classic BPF filter keeps
 * only IPv4/IPv6 TCP frames so the blast cannot fill the receive buffer.
 */
static int packet_sock(const char *dev, bool tcp_only)
{
	static struct sock_filter tcp[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x0800, 0, 2),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 23),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 6, 3, 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x86dd, 0, 3),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 20),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 6, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { .len = sizeof(tcp) / sizeof(tcp[0]),
				   .filter = tcp };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL) };
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));

	if (fd < 0)
		return -1;
	sll.sll_ifindex = if_nametoindex(dev);
	int sndbuf = 8 << 20;

	/* Queued frames hold socket memory until sent: room for a blast. */
	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf));
	if ((tcp_only && setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
				    sizeof(prog))) ||
	    bind(fd, (void *)&sll, sizeof(sll))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Root qdisc's "bytes" and "backlog" from `tc -s -j qdisc show`. */
static int tc_root_stats(uint64_t *bytes, uint64_t *backlog)
{
	char cmd[256], out[65536], *p;
	size_t n;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "ip netns exec %s tc -s -j qdisc show dev hpv0 root", ns_name);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	n = fread(out, 1, sizeof(out) - 1, f);
	pclose(f);
	out[n] = 0;
	p = strstr(out, "\"bytes\":");
	if (!p)
		return -1;
	*bytes = strtoull(p + 8, NULL, 10);
	p = strstr(out, "\"backlog\":");
	if (!p)
		return -1;
	*backlog = strtoull(p + 10, NULL, 10);
	return 0;
}

struct qcase {
	const char *name;
	int ntxq;
	const char *setup;	/* tc commands, %1$s = netns, %2$u = kbit */
	uint32_t kbit;		/* shaper rate on a stock kernel; 0 = none */
	bool delay_check;	/* the probe waited for the backlog at kbit */
	int flows;
	int frames;		/* 1042-byte frames blasted before the probe:
				 * below the queue limit, so the probe is not
				 * tail-dropped */
};

static const struct qcase qcases[] = {
	{ "tbf", 1,
	  "tc -n %1$s qdisc add dev hpv0 root handle 1: tbf rate %2$ukbit "
	  "burst 5kb limit 200kb", 10000, true, 1, 150 },
	{ "htb", 1,
	  "tc -n %1$s qdisc add dev hpv0 root handle 1: htb default 1 && "
	  "tc -n %1$s class add dev hpv0 parent 1: classid 1:1 htb "
	  "rate %2$ukbit burst 5kb && "
	  "tc -n %1$s qdisc add dev hpv0 parent 1:1 bfifo limit 200kb",
	  10000, true, 1, 150 },
	{ "fq_codel", 1,
	  "tc -n %1$s qdisc add dev hpv0 root fq_codel", 0, false, 4, 400 },
	{ "pfifo_fast", 1,
	  "tc -n %1$s qdisc add dev hpv0 root pfifo_fast", 0, false, 4, 400 },
	{ "mq+tbf", 4,
	  "tc -n %1$s qdisc add dev hpv0 root handle 1: mq && "
	  "for i in 1 2 3 4; do tc -n %1$s qdisc replace dev hpv0 parent 1:$i "
	  "tbf rate %2$ukbit burst 5kb limit 100kb || exit 1; done", 5000, false,
	  16, 150 },
	{ "mq+pfifo_fast", 4,
	  "tc -n %1$s qdisc add dev hpv0 root handle 1: mq && "
	  "for i in 1 2 3 4; do tc -n %1$s qdisc replace dev hpv0 parent 1:$i "
	  "pfifo_fast || exit 1; done", 0, false, 16, 400 },
};

static void blast(int fd, int flows, int count)
{
	struct pkt k;
	struct pkt_opts o = { .proto = 17, .paylen = 1000 };
	static uint8_t junk[1000];
	int i;

	o.payload = junk;
	for (i = 0; i < count; i++) {
		o.sport = 10000 + i % flows;
		pkt_build(&k, &o);
		send(fd, k.b, k.len, 0);	/* ENOBUFS on qdisc drop */
	}
}

/* A debug kernel (KASAN, lockdep) under TCG sends the blast slower than
 * 10 Mbit/s drains it: its shapers run at a tenth, so that the queue still
 * builds.
 */
static uint32_t shaper_kbit(const struct qcase *qc)
{
	return debug_kernel() ? qc->kbit / 10 : qc->kbit;
}

/* Empty a hash map keyed by u32 (an ifindex), so that the next case's
 * namespace, which may reuse the ifindex, starts from nothing.
 */
static void map_clear_u32(int fd)
{
	uint32_t k;

	while (!bpf_map_get_next_key(fd, NULL, &k))
		if (bpf_map_delete_elem(fd, &k))
			break;
}

/* Attach @prog_fd to @ifindex's tc hook @ap at handle 1, priority 1, the
 * clsact qdisc created if it is not there yet: 0 or a libbpf error. The
 * netns tests' one way to put a program on a device.
 */
static int tc_prog_attach(uint32_t ifindex, enum bpf_tc_attach_point ap,
			  int prog_fd)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = ap);
	LIBBPF_OPTS(bpf_tc_opts, o, .handle = 1, .priority = 1,
		    .prog_fd = prog_fd);

	bpf_tc_hook_create(&hook);	/* -EEXIST: the device has one */
	return bpf_tc_attach(&hook, &o);
}

static void qdisc_case(struct hpcc_switch *s, const struct qcase *qc)
{
	uint32_t kbit = shaper_kbit(qc);
	struct hpcc_port_cfg cfg = { .switch_id = 77, .rate_mbps = 10 };
	struct hpcc_probe pr;
	struct pkt probe, got;
	uint64_t cookie = 0, tx, sent = 0, backlog = 1, t_send, t_recv = 0;
	uint64_t ts, deadline;
	uint32_t ifindex, qlen;
	socklen_t cl = sizeof(cookie);
	int txfd = -1, rxfd = -1, sfd, err;
	bool ok = true, got_probe = false;
	char cmd[1024];

	if (ns_setup(qc->ntxq)) {
		tap(false, "qdisc %s: netns setup", qc->name);
		goto out;
	}
	snprintf(cmd, sizeof(cmd), qc->setup, ns_name, kbit);
	if (sh("%s 2>/tmp/hpcc_tc_err.txt", cmd)) {
		if (!system("grep -q 'kind is unknown' /tmp/hpcc_tc_err.txt")) {
			t_diag[0] = 0;
			skip_case(qc->name, "qdisc not in this kernel");
		} else {
			tap(false, "qdisc %s: tc setup", qc->name);
		}
		goto out;
	}
	ns_enter();
	ifindex = if_nametoindex("hpv0");
	sfd = socket(AF_INET, SOCK_DGRAM, 0);
	getsockopt(sfd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &cl);
	close(sfd);
	cfg.netns_cookie = cookie;
	bpf_map_update_elem(bpf_map__fd(s->maps.hpcc_port_cfg), &ifindex, &cfg,
			    BPF_ANY);
	err = tc_prog_attach(ifindex, BPF_TC_EGRESS,
			     bpf_program__fd(s->progs.hpcc_switch));
	txfd = packet_sock("hpv0", false);
	rxfd = packet_sock("hpv1", true);
	ns_leave();
	if (err || txfd < 0 || rxfd < 0) {
		tap(false, "qdisc %s: tc attach / sockets", qc->name);
		goto out;
	}

	/* Fill the queue, then the probe goes in behind it. */
	blast(txfd, qc->flows, qc->frames);
	probe_init(&pr, 0);
	probe_frame(&probe, false, &pr, HPCC_PROBE_LEN,
		    HPCC_DSCP_PROBE_DEFAULT);
	t_send = mono_ns();
	if (!CHECK(send(txfd, probe.b, probe.len, 0) == probe.len,
		   "probe send: %s", strerror(errno))) {
		tap(false, "qdisc %s: send probe", qc->name);
		goto out;
	}

	deadline = t_send + 10000000000ull;
	while (!got_probe && mono_ns() < deadline) {
		struct pollfd pfd = { .fd = rxfd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		while ((n = recv(rxfd, got.b, sizeof(got.b), 0)) > 0) {
			if ((uint32_t)n != probe.len || got.b[14 + 9] != 6)
				continue;
			t_recv = mono_ns();
			got.len = n;
			got.l3 = 14;
			got.l4 = 34;
			got.pay = 54;
			got.v6 = false;
			got_probe = true;
			break;
		}
	}
	if (!CHECK(got_probe, "probe not received")) {
		snprintf(cmd, sizeof(cmd), "tc -n %s -s qdisc show dev hpv0 | "
			 "sed 's/^/#   /'", ns_name);
		if (system(cmd))
			diag("tc -s failed\n");
		tap(false, "qdisc %s: probe crosses the port", qc->name);
		goto out;
	}
	/* Let the queue drain, then read what the qdisc says it sent. */
	for (deadline = mono_ns() + 5000000000ull; mono_ns() < deadline;) {
		if (!tc_root_stats(&sent, &backlog) && !backlog)
			break;
		usleep(20000);
	}
	qlen = ntohl(payload_of(&got)->hop[0].qlen);
	tx = be64toh(payload_of(&got)->hop[0].tx_bytes);
	ts = be64toh(payload_of(&got)->hop[0].ts_ns);
	printf("# %s: stamped qlen=%u tx_bytes=%llu; tc: sent=%llu "
	       "backlog=%llu; probe frame %u B; queueing %.1f ms\n", qc->name,
	       qlen, (unsigned long long)tx, (unsigned long long)sent,
	       (unsigned long long)backlog, probe.len,
	       (t_recv - ts) / 1e6);
	ok &= CHECK(payload_of(&got)->hdr.nhops == 1, "nhops %u",
		    payload_of(&got)->hdr.nhops);
	ok &= CHECK(ntohl(payload_of(&got)->hop[0].switch_id) == 77, "sid");
	ok &= CHECK(tcp_csum_ok(&got) && ip4_csum_ok(&got), "checksums");
	ok &= CHECK(ts >= t_send && ts <= t_recv, "ts within send..recv");
	ok &= CHECK(backlog == 0, "queue did not drain");
	/* Everything admitted before the probe was either sent or queued
	 * at stamp time, and everything drains: exact, no tolerance.
	 */
	ok &= CHECK(tx + qlen + probe.len == sent,
		    "tx_bytes %llu + qlen %u + probe %u != sent %llu",
		    (unsigned long long)tx, qlen, probe.len,
		    (unsigned long long)sent);
	if (qc->delay_check) {
		/* The probe waited for the stamped backlog at the
		 * bottleneck rate: at least 75% of it - 3 ms (timer slack),
		 * at most 250% + 3 ms, as a late shaper timer only adds
		 * delay (htb under qemu TCG waited 133% in one run, 189%
		 * with two other VMs beside it). The byte count above is
		 * the exact check; this one only catches a stamp far off.
		 */
		double want = qlen * 8.0 / (kbit * 1000.0) * 1e9;
		double got_ns = (double)(t_recv - ts);

		ok &= CHECK(qlen > 50000, "queue did not build (%u)", qlen);
		ok &= CHECK(got_ns > want * 0.75 - 3e6 &&
			    got_ns < want * 2.5 + 3e6,
			    "queueing %.1f ms, backlog implies %.1f ms",
			    got_ns / 1e6, want / 1e6);
	}
	tap(ok, "qdisc %s root: stamped qlen/tx_bytes agree with tc -s",
	    qc->name);
out:
	if (txfd >= 0)
		close(txfd);
	if (rxfd >= 0)
		close(rxfd);
	map_clear_u32(bpf_map__fd(s->maps.hpcc_port_cfg));
	map_clear_u32(bpf_map__fd(s->maps.hpcc_qsnap));
	ns_teardown();
}

/* Packets and bytes tc counts for hpv0's qdisc @handle (e.g. "10:", the
 * child of a class: tc of iproute2 6.1 has no JSON for classes).
 */
static int tc_child_stats(const char *handle, uint64_t *pkts,
			  uint64_t *bytes)
{
	char cmd[256], out[65536], key[64], *p, *q;
	size_t n;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "ip netns exec %s tc -s -j qdisc show dev hpv0", ns_name);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	n = fread(out, 1, sizeof(out) - 1, f);
	pclose(f);
	out[n] = 0;
	snprintf(key, sizeof(key), "\"handle\":\"%s\"", handle);
	p = strstr(out, key);
	q = p ? strstr(p, "\"bytes\":") : NULL;
	if (!q)
		return -1;
	*bytes = strtoull(q + 8, NULL, 10);
	q = strstr(p, "\"packets\":");
	if (!q)
		return -1;
	*pkts = strtoull(q + 10, NULL, 10);
	return 0;
}

/* @n 1042-byte UDP frames with @dscp, in bursts of 8 every @gap_us. The
 * bursts keep to a schedule from the first: a sleep that overshoots (a
 * slow emulator's timers) is made up by the next bursts, so the rate
 * stays above what the class drains.
 */
static void qos_send(int fd, uint8_t dscp, int n, unsigned int gap_us)
{
	struct pkt_opts o = { .proto = 17, .paylen = 1000,
			      .dscp = dscp, .sport = 20000 };
	static uint8_t junk[1000];
	uint64_t t0 = mono_ns(), due, now;
	struct pkt k;
	int i;

	o.payload = junk;
	pkt_build(&k, &o);
	for (i = 0; i < n; i++) {
		send(fd, k.b, k.len, 0);
		if (!gap_us || i % 8 != 7)
			continue;
		due = t0 + (uint64_t)(i / 8 + 1) * gap_us * 1000;
		now = mono_ns();
		if (now < due)
			usleep((due - now) / 1000);
	}
}

/* Send a probe on @txfd, return its stamped hop (zeroed if it did not
 * come through) and its queueing delay at the port in *@delay_ns.
 */
static bool qos_probe(int txfd, int rxfd, struct hpcc_hop *hop,
		      uint64_t *delay_ns)
{
	const struct hpcc_probe *pp;
	struct hpcc_probe pr;
	struct pkt probe, got;
	uint64_t deadline;
	ssize_t n;

	memset(hop, 0, sizeof(*hop));
	probe_init(&pr, 0);
	probe_frame(&probe, false, &pr, HPCC_PROBE_LEN,
		    HPCC_DSCP_PROBE_DEFAULT);
	if (send(txfd, probe.b, probe.len, 0) != (ssize_t)probe.len)
		return false;
	for (deadline = mono_ns() + 10000000000ull; mono_ns() < deadline;) {
		struct pollfd pfd = { .fd = rxfd, .events = POLLIN };

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		while ((n = recv(rxfd, got.b, sizeof(got.b), 0)) > 0) {
			if ((uint32_t)n != probe.len || got.b[14 + 9] != 6)
				continue;
			pp = (const void *)(got.b + 54);
			*hop = pp->hop[0];
			*delay_ns = mono_ns() - be64toh(hop->ts_ns);
			return pp->hdr.nhops == 1;
		}
	}
	return false;
}

static void qos_wait_drain(void)
{
	uint64_t sent, backlog = 1, deadline;

	for (deadline = mono_ns() + 20000000000ull; mono_ns() < deadline;) {
		if (!tc_root_stats(&sent, &backlog) && !backlog)
			return;
		usleep(20000);
	}
}

/* One phase of the QoS case: optionally a blast into the other class,
 * then class data (DSCP 10) in bursts faster than the class drains, then
 * a probe. Checks B and that the stamped sojourn is one of this phase.
 */
static bool qos_phase(int txfd, int rxfd, bool other, uint32_t want_rate,
		      unsigned int gap_us, uint64_t *tx)
{
	uint64_t t0, delay = 0, soj;
	struct hpcc_hop hop;
	uint32_t qlen, rate;
	bool ok = true;

	t0 = mono_ns();
	if (other)
		qos_send(txfd, 0, 300, 0);	/* 300 KB: 240 ms at the port */
	qos_send(txfd, 10, 60, gap_us);
	ok &= CHECK(qos_probe(txfd, rxfd, &hop, &delay), "probe lost");
	qlen = ntohl(hop.qlen);
	rate = ntohl(hop.rate_mbps);
	soj = rate ? (uint64_t)qlen * 8000 / rate : 0;
	*tx = be64toh(hop.tx_bytes);
	printf("# qos %s: B %u Mbit/s, qlen %u (sojourn %.2f ms), tx_bytes "
	       "%llu; the probe waited %.2f ms, phase %.2f ms\n",
	       other ? "both classes" : "class alone", rate, qlen, soj / 1e6,
	       (unsigned long long)*tx, delay / 1e6,
	       (be64toh(hop.ts_ns) - t0) / 1e6);
	ok &= CHECK(rate == want_rate, "B %u, expected %u", rate, want_rate);
	ok &= CHECK(qlen > 0, "no class queue stamped");
	/* The sample was enqueued and dequeued in this phase. */
	ok &= CHECK(soj <= be64toh(hop.ts_ns) - t0, "sojourn %llu ns older "
		    "than the phase", (unsigned long long)soj);
	return ok;
}

/* Run time and count of the two qdisc tracepoint programs (bpf_stats). */
static void qos_tp_stats(struct hpcc_switch *s, uint64_t *ns, uint64_t *cnt)
{
	int fds[2] = { bpf_program__fd(s->progs.hpcc_qdisc_enqueue),
		       bpf_program__fd(s->progs.hpcc_qdisc_dequeue) };
	int i;

	*ns = *cnt = 0;
	for (i = 0; i < 2; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (!bpf_obj_get_info_by_fd(fds[i], &info, &len)) {
			*ns += info.run_time_ns;
			*cnt += info.run_cnt;
		}
	}
}

/* What the QoS accounting adds to the qdisc tracepoints: ns per event
 * (an enqueue or a dequeue) with the port in QoS mode and without, the
 * same traffic (printed; the kernel's bpf_stats, timing included).
 */
static void qos_tp_cost(struct hpcc_switch *s, int txfd,
			struct hpcc_port_cfg *cfg, uint32_t ifindex)
{
	uint64_t ns0, c0, ns1, c1, ns2, c2;
	int st = bpf_enable_stats(BPF_STATS_RUN_TIME);

	if (st < 0)
		return;
	qos_tp_stats(s, &ns0, &c0);
	qos_send(txfd, 10, 200, 0);
	qos_wait_drain();
	qos_tp_stats(s, &ns1, &c1);
	cfg->flags &= ~HPCC_PORT_F_QOS;
	bpf_map_update_elem(bpf_map__fd(s->maps.hpcc_port_cfg), &ifindex, cfg,
			    BPF_ANY);
	qos_send(txfd, 10, 200, 0);
	qos_wait_drain();
	qos_tp_stats(s, &ns2, &c2);
	close(st);
	if (c1 > c0 && c2 > c1)
		printf("# qos: qdisc tracepoints %.0f ns/event in QoS mode, "
		       "%.0f without (%llu, %llu events)\n",
		       (double)(ns1 - ns0) / (c1 - c0),
		       (double)(ns2 - ns1) / (c2 - c1),
		       (unsigned long long)(c1 - c0),
		       (unsigned long long)(c2 - c1));
}

/* Two-class ports: hpcc's data (DSCP 10) in one class by a u32 filter,
 * the rest in the other, each class a bfifo with handle 10: and 20:.
 *  htb: two htb classes at half the port each (ceil: the port);
 *  ets: a tbf at the port's rate over an ets of two equal DRR bands
 *       (band 2:1 hpcc's, the priomap sends the rest to 2:2);
 *  drr: the same with a drr of two classes (a matchall after the u32
 *       sends the rest to 2:2: explicit prios, since a filter added
 *       without one goes before those already there).
 * %1$s the netns, %2$u the port's kbit, %3$u half of it.
 */
struct qos_case {
	const char *name;
	uint32_t classid;
	const char *setup;
};

static const struct qos_case qos_cases[] = {
	{ "htb 1:10/1:20", 0x10010,
	  "tc -n %1$s qdisc add dev hpv0 root handle 1: htb default 20 && "
	  "tc -n %1$s class add dev hpv0 parent 1: classid 1:1 htb "
	  "rate %2$ukbit burst 5kb && "
	  "tc -n %1$s class add dev hpv0 parent 1:1 classid 1:10 htb "
	  "rate %3$ukbit ceil %2$ukbit burst 5kb && "
	  "tc -n %1$s class add dev hpv0 parent 1:1 classid 1:20 htb "
	  "rate %3$ukbit ceil %2$ukbit burst 5kb && "
	  "tc -n %1$s qdisc add dev hpv0 parent 1:10 handle 10: bfifo "
	  "limit 400kb && "
	  "tc -n %1$s qdisc add dev hpv0 parent 1:20 handle 20: bfifo "
	  "limit 400kb && "
	  "tc -n %1$s filter add dev hpv0 parent 1: protocol ip u32 "
	  "match ip dsfield 0x28 0xfc flowid 1:10" },
	{ "tbf+ets 2:1/2:2", 0x20001,
	  "tc -n %1$s qdisc add dev hpv0 root handle 1: tbf rate %2$ukbit "
	  "burst 5kb limit 800kb && "
	  "tc -n %1$s qdisc add dev hpv0 parent 1:1 handle 2: ets bands 2 "
	  "quanta 1514 1514 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 && "
	  "tc -n %1$s qdisc add dev hpv0 parent 2:1 handle 10: bfifo "
	  "limit 400kb && "
	  "tc -n %1$s qdisc add dev hpv0 parent 2:2 handle 20: bfifo "
	  "limit 400kb && "
	  "tc -n %1$s filter add dev hpv0 parent 2: protocol ip u32 "
	  "match ip dsfield 0x28 0xfc flowid 2:1" },
	{ "tbf+drr 2:1/2:2", 0x20001,
	  "tc -n %1$s qdisc add dev hpv0 root handle 1: tbf rate %2$ukbit "
	  "burst 5kb limit 800kb && "
	  "tc -n %1$s qdisc add dev hpv0 parent 1:1 handle 2: drr && "
	  "tc -n %1$s class add dev hpv0 parent 2: classid 2:1 drr && "
	  "tc -n %1$s class add dev hpv0 parent 2: classid 2:2 drr && "
	  "tc -n %1$s qdisc add dev hpv0 parent 2:1 handle 10: bfifo "
	  "limit 400kb && "
	  "tc -n %1$s qdisc add dev hpv0 parent 2:2 handle 20: bfifo "
	  "limit 400kb && "
	  "tc -n %1$s filter add dev hpv0 parent 2: protocol ip prio 1 u32 "
	  "match ip dsfield 0x28 0xfc flowid 2:1 && "
	  "tc -n %1$s filter add dev hpv0 parent 2: protocol all prio 2 "
	  "matchall classid 2:2" },
};

/* The switch, told --qos CLASSID,5mbit,10 on a 10 Mbit/s port, must put
 * probes in hpcc's class (their DSCP would send them to the other), stamp
 * B = 5 while the other class is queued and 10 when hpcc's is alone, and
 * a sojourn of its own class.
 */
static void qos_netns_case(struct hpcc_switch *s, const struct qos_case *qc)
{
	uint32_t kbit = shaper_kbit(&qcases[0]), ifindex;
	struct hpcc_port_cfg cfg = {
		.switch_id = 78, .rate_mbps = 10, .flags = HPCC_PORT_F_QOS,
		.qos_classid = qc->classid, .qos_rate_mbps = 5, .qos_dscp = 10,
	};
	uint64_t cookie = 0, p10 = 0, b10 = 0, p20 = 0, b20 = 0, tx1 = 0,
		 tx2 = 0;
	unsigned int gap = kbit < 10000 ? 20000 : 2000;
	socklen_t cl = sizeof(cookie);
	int txfd = -1, rxfd = -1, sfd, err;
	bool ok = true;
	char cmd[1024];
	LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, tco, .handle = 1, .priority = 1);

	if (ns_setup(1)) {
		tap(false, "qos %s: netns setup", qc->name);
		goto out;
	}
	snprintf(cmd, sizeof(cmd), qc->setup, ns_name, kbit, kbit / 2);
	if (sh("(%s) 2>/tmp/hpcc_tc_err.txt", cmd)) {
		if (!system("grep -q 'kind is unknown' /tmp/hpcc_tc_err.txt")) {
			t_diag[0] = 0;
			skip_case(qc->name, "qdisc not in this kernel");
		} else {
			tap(false, "qos %s: tc setup", qc->name);
		}
		goto out;
	}
	ns_enter();
	ifindex = if_nametoindex("hpv0");
	sfd = socket(AF_INET, SOCK_DGRAM, 0);
	getsockopt(sfd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &cl);
	close(sfd);
	cfg.netns_cookie = cookie;
	bpf_map_update_elem(bpf_map__fd(s->maps.hpcc_port_cfg), &ifindex, &cfg,
			    BPF_ANY);
	hook.ifindex = ifindex;
	bpf_tc_hook_create(&hook);
	tco.prog_fd = bpf_program__fd(s->progs.hpcc_switch);
	err = bpf_tc_attach(&hook, &tco);
	txfd = packet_sock("hpv0", false);
	rxfd = packet_sock("hpv1", true);
	ns_leave();
	if (err || txfd < 0 || rxfd < 0) {
		tap(false, "qos %s: tc attach / sockets", qc->name);
		goto out;
	}
	ok &= qos_phase(txfd, rxfd, true, 5, gap * 2, &tx1);
	qos_wait_drain();
	/* Alone the class drains at the port's rate: send twice as fast. */
	ok &= qos_phase(txfd, rxfd, false, 10, gap, &tx2);
	qos_wait_drain();
	ok &= CHECK(!tc_child_stats("10:", &p10, &b10) &&
		    !tc_child_stats("20:", &p20, &b20), "tc -s qdisc");
	printf("# qos: class 1:10 sent %llu packets %llu bytes, 1:20 %llu "
	       "packets\n", (unsigned long long)p10, (unsigned long long)b10,
	       (unsigned long long)p20);
	/* 120 data frames and the 2 probes in hpcc's class, the blast in
	 * the other.
	 */
	ok &= CHECK(p10 == 122 && p20 == 300, "1:10 %llu, 1:20 %llu packets",
		    (unsigned long long)p10, (unsigned long long)p20);
	/* tx_bytes count the class only, before each probe. */
	ok &= CHECK(tx1 < tx2 && tx2 < b10, "tx_bytes %llu, %llu; class %llu",
		    (unsigned long long)tx1, (unsigned long long)tx2,
		    (unsigned long long)b10);
	ok &= CHECK(tx1 <= 60 * 1042, "phase 1 tx_bytes %llu past its data",
		    (unsigned long long)tx1);
	tap(ok, "qos %s: probes in the data's class, B = class rate / port "
	    "rate, a sojourn of the class", qc->name);
	if (qos_bench)
		qos_tp_cost(s, txfd, &cfg, ifindex);
out:
	if (txfd >= 0)
		close(txfd);
	if (rxfd >= 0)
		close(rxfd);
	map_clear_u32(bpf_map__fd(s->maps.hpcc_port_cfg));
	map_clear_u32(bpf_map__fd(s->maps.hpcc_qsnap));
	map_clear_u32(bpf_map__fd(s->maps.hpcc_qos));
	ns_teardown();
}

static int tcp_conn(bool v6, const uint8_t *c, uint16_t cport,
		    const uint8_t *s, uint16_t sport, int fds[3]);

/* Plain `tc filter ... obj` loads the host program, which reflects the
 * probe of a connection (10.0.0.1:40000 -> 10.0.0.2:5201, pkt.h's
 * defaults) end to end through a veth.
 */
static void netns_misc_tests(void)
{
	struct pkt probe, got;
	struct hpcc_probe pr;
	uint64_t deadline;
	int txfd = -1, rxfd, n, fds[3] = { -1, -1, -1 }, i;
	bool got_resp = false;
	const char *dir = getenv("HPCC_BPF_DIR") ? getenv("HPCC_BPF_DIR") :
						   HPCC_BPF_DIR;

	if (ns_setup_addrs()) {
		tap(false, "netns setup");
		goto out;
	}
	if (sh("tc -n %s qdisc add dev hpv1 clsact && tc -n %s filter add dev "
	       "hpv1 ingress bpf da obj %s/hpcc_host.bpf.o sec tc", ns_name,
	       ns_name, dir)) {
		tap(false, "plain tc filter add ... obj hpcc_host.bpf.o sec tc");
		goto out;
	}
	tap(true, "plain tc filter add ... obj hpcc_host.bpf.o sec tc");
	ns_enter();
	txfd = packet_sock("hpv0", true);	/* sends, receives on hpv0 */
	n = tcp_conn(false, pkt_ip4_a, 40000, pkt_ip4_b, 5201, fds);
	ns_leave();
	if (n) {
		tap(false, "veth: a connection 10.0.0.1:40000 -> 10.0.0.2:5201");
		goto out;
	}
	rxfd = txfd;
	probe_init(&pr, 1);
	probe_frame(&probe, false, &pr, HPCC_PROBE_LEN,
		    HPCC_DSCP_PROBE_DEFAULT);
	send(txfd, probe.b, probe.len, 0);
	for (deadline = mono_ns() + 3000000000ull;
	     !got_resp && mono_ns() < deadline;) {
		struct pollfd pfd = { .fd = rxfd, .events = POLLIN };

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		while ((n = recv(rxfd, got.b, sizeof(got.b), 0)) > 0) {
			got.len = n;
			got.l3 = 14;
			got.l4 = 34;
			got.pay = 54;
			got.v6 = false;
			if ((uint32_t)n == probe.len &&
			    payload_of(&got)->hdr.flags == HPCC_F_RESPONSE) {
				got_resp = true;
				break;
			}
		}
	}
	tap(got_resp && tcp_csum_ok(&got) &&
	    dscp_of(&got) == HPCC_DSCP_RESPONSE_DEFAULT &&
	    !memcmp(got.b, pkt_mac_a, 6),
	    "veth: the connection's probe reflected back out of the ingress "
	    "device");
out:
	if (txfd >= 0)
		close(txfd);
	for (i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	ns_teardown();
}

/* A connection @c (4 or 16 bytes):@cport -> @s:@sport in the current
 * namespace: fds[0] the client, fds[1] the listener, fds[2] the server's
 * end. 0, or -1 with everything closed.
 */
static int tcp_conn(bool v6, const uint8_t *c, uint16_t cport,
		    const uint8_t *s, uint16_t sport, int fds[3])
{
	struct sockaddr_storage cs = {}, ss = {};
	socklen_t sl;
	int one = 1;

	if (v6) {
		struct sockaddr_in6 *c6 = (void *)&cs, *s6 = (void *)&ss;

		c6->sin6_family = s6->sin6_family = AF_INET6;
		memcpy(&c6->sin6_addr, c, 16);
		memcpy(&s6->sin6_addr, s, 16);
		c6->sin6_port = htons(cport);
		s6->sin6_port = htons(sport);
		sl = sizeof(*c6);
	} else {
		struct sockaddr_in *c4 = (void *)&cs, *s4 = (void *)&ss;

		c4->sin_family = s4->sin_family = AF_INET;
		memcpy(&c4->sin_addr, c, 4);
		memcpy(&s4->sin_addr, s, 4);
		c4->sin_port = htons(cport);
		s4->sin_port = htons(sport);
		sl = sizeof(*c4);
	}
	fds[0] = socket(ss.ss_family, SOCK_STREAM, 0);
	fds[1] = socket(ss.ss_family, SOCK_STREAM, 0);
	fds[2] = -1;
	setsockopt(fds[0], SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fds[1], SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (!bind(fds[1], (void *)&ss, sl) && !listen(fds[1], 4) &&
	    !bind(fds[0], (void *)&cs, sl) && !connect(fds[0], (void *)&ss, sl))
		fds[2] = accept(fds[1], NULL, NULL);
	if (fds[2] >= 0)
		return 0;
	diag("connection: %s\n", strerror(errno));
	close(fds[0]);
	close(fds[1]);
	return -1;
}

/* The host unit tests run in a namespace of their own, where the probes
 * they build (pkt.h's 10.0.0.1:40000 -> 10.0.0.2:5201, and fd00::1 ->
 * fd00::2) belong to a connection: the host answers no other probe.
 * test_run's packets arrive on the current namespace's loopback.
 */
static int host_fds[2][3] = { { -1, -1, -1 }, { -1, -1, -1 } };

static int host_fixture_up(void)
{
	int i;

	if (ns_create("hpcch") ||
	    sh("ip -n %1$s link set lo up && "
	       "ip -n %1$s addr add 10.0.0.1/32 dev lo && "
	       "ip -n %1$s addr add 10.0.0.2/32 dev lo && "
	       "ip -n %1$s addr add fd00::1/128 dev lo nodad && "
	       "ip -n %1$s addr add fd00::2/128 dev lo nodad", ns_name) ||
	    ns_enter())
		return -1;
	/* A fresh namespace's IPv6 can take a moment to route. */
	for (i = 0; i < 40; i++) {
		t_diag[0] = 0;
		if (!tcp_conn(false, pkt_ip4_a, 40000, pkt_ip4_b, 5201,
			      host_fds[0]))
			break;
		usleep(50000);
	}
	for (; i < 40; i++) {
		t_diag[0] = 0;
		if (!tcp_conn(true, pkt_ip6_a, 40000, pkt_ip6_b, 5201,
			      host_fds[1]))
			return 0;
		usleep(50000);
	}
	return -1;
}

static void host_fixture_down(void)
{
	int i, j;

	for (i = 0; i < 2; i++)
		for (j = 0; j < 3; j++) {
			if (host_fds[i][j] >= 0)
				close(host_fds[i][j]);
			host_fds[i][j] = -1;
		}
	if (ns_orig >= 0)
		ns_leave();
	ns_teardown();
}

/* Responses that came back on @fd within @ms, to probes of @sport. */
static int count_responses(int fd, uint16_t sport, int ms)
{
	uint64_t deadline = mono_ns() + ms * 1000000ull;
	struct pkt got;
	int n, found = 0;

	while (mono_ns() < deadline) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (poll(&pfd, 1, 20) <= 0)
			continue;
		while ((n = recv(fd, got.b, sizeof(got.b), 0)) > 0) {
			got.len = n;
			got.l3 = 14;
			got.l4 = 34;
			got.pay = 54;
			if ((uint32_t)n == got.pay + HPCC_PROBE_LEN &&
			    get16(got.b + got.l4 + 2) == sport &&
			    payload_of(&got)->hdr.flags & HPCC_F_RESPONSE)
				found++;
		}
	}
	return found;
}

/* No open reflector, with real packets: hpcc_host on hpv1's ingress
 * (10.0.0.2), probes sent into hpv0 (10.0.0.1), responses read back on
 * hpv0. Only the probe of the namespace's connection 10.0.0.1:40000 ->
 * 10.0.0.2:5201 is answered.
 */
static void netns_reflector_tests(void)
{
	static const uint8_t us[4] = { 10, 0, 0, 2 }, peer[4] = { 10, 0, 0, 1 };
	static const uint8_t other[4] = { 10, 0, 0, 99 };
	static const uint8_t spoof[4] = { 10, 0, 0, 50 };
	static const struct {
		const char *what;
		const uint8_t *s, *d;
		uint16_t sport, dport;
		int want, cnt;
	} cases[] = {
		{ "the connection's probe reflected", peer, us, 40000, 5201, 1,
		  HPCC_CNT_PROBE_REFLECTED },
		{ "a probe to a closed port not reflected (reflect_no_socket)",
		  peer, us, 40000, 5300, 0, HPCC_CNT_REFLECT_NO_SOCKET },
		{ "a probe for an address the host does not own (10.0.0.99) "
		  "not reflected (reflect_no_socket)", peer, other, 40000, 5201,
		  0, HPCC_CNT_REFLECT_NO_SOCKET },
		{ "a probe from a spoofed source (10.0.0.50) to the "
		  "connection's port not reflected (reflect_no_conn)", spoof,
		  us, 40000, 5201, 0, HPCC_CNT_REFLECT_NO_CONN },
	};
	struct hpcc_host_cfg cfg = { .flags = HPCC_CFG_F_REFLECT |
					      HPCC_CFG_F_PEER,
				     .reflect_rate = 200, .reflect_burst = 5 };
	uint64_t before[HPCC_CNT_MAX], now[HPCC_CNT_MAX], t0, t1;
	struct hpcc_host *h = NULL;
	struct hpcc_probe pr;
	struct pkt probe;
	int fd = -1, fds[3] = { -1, -1, -1 }, err = -1, got, cnt = -1;
	uint32_t ifindex, zero = 0;
	double bound;
	size_t i;
	bool ok;

	if (ns_setup_addrs()) {
		tap(false, "veth reflector: netns");
		goto out;
	}
	ns_enter();
	ifindex = if_nametoindex("hpv1");
	h = hpcc_host__open_and_load();
	if (h)
		err = tc_prog_attach(ifindex, BPF_TC_INGRESS,
				     bpf_program__fd(h->progs.hpcc_host));
	fd = packet_sock("hpv0", true);
	if (!err)
		err = tcp_conn(false, peer, 40000, us, 5201, fds);
	ns_leave();
	if (err || fd < 0) {
		tap(false, "veth reflector: hpcc_host on hpv1, a connection");
		goto out;
	}
	probe_init(&pr, 1);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pkt_opts o = {
			.dscp = HPCC_DSCP_PROBE_DEFAULT, .payload = &pr,
			.paylen = HPCC_PROBE_LEN, .saddr = cases[i].s,
			.daddr = cases[i].d, .sport = cases[i].sport,
			.dport = cases[i].dport,
		};

		pkt_build(&probe, &o);
		cnt = bpf_map__fd(h->maps.hpcc_counters);
		counters_read(cnt, before);
		send(fd, probe.b, probe.len, 0);
		got = count_responses(fd, cases[i].sport, 300);
		ok = CHECK(got == cases[i].want, "%d responses", got);
		ok &= counters_moved(cnt, before, (int[]){ cases[i].cnt, -1 });
		tap(ok, "veth: %s", cases[i].what);
	}

	/* 300 probes of the connection as fast as they go: the burst of 5,
	 * then 200/s.
	 */
	bpf_map_update_elem(bpf_map__fd(h->maps.hpcc_host_cfg), &zero, &cfg,
			    BPF_ANY);
	probe_frame(&probe, false, &pr, HPCC_PROBE_LEN,
		    HPCC_DSCP_PROBE_DEFAULT);
	counters_read(cnt, before);
	t0 = mono_ns();
	for (i = 0; i < 300; i++)
		send(fd, probe.b, probe.len, 0);
	got = count_responses(fd, 40000, 300);
	t1 = mono_ns();
	counters_read(cnt, now);
	bound = 5 + 200.0 * (t1 - t0) / 1e9 + 1;
	printf("# veth, rate 200/s burst 5: %d responses to 300 probes in "
	       "%.0f ms (allowed %.0f)\n", got, (t1 - t0) / 1e6, bound);
	ok = CHECK(got >= 5 && got <= bound, "%d responses", got);
	ok &= CHECK(now[HPCC_CNT_PROBE_REFLECTED] -
		    before[HPCC_CNT_PROBE_REFLECTED] == (uint64_t)got,
		    "probe_reflected");
	ok &= CHECK(now[HPCC_CNT_REFLECT_LIMITED] -
		    before[HPCC_CNT_REFLECT_LIMITED] == 300 - (uint64_t)got,
		    "reflect_limited %llu", (unsigned long long)
		    (now[HPCC_CNT_REFLECT_LIMITED] -
		     before[HPCC_CNT_REFLECT_LIMITED]));
	tap(ok, "veth: a probe flood of the connection held to the configured "
	    "rate, the rest counted reflect_limited");
out:
	if (fd >= 0)
		close(fd);
	for (i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	hpcc_host__destroy(h);
	ns_teardown();
}

/* ---------------------------------------------- raw IP (L3) devices */

static int tun_open(const char *name)
{
	struct ifreq ifr = { .ifr_flags = IFF_TUN | IFF_NO_PI };
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The next TCP packet of ports @sport -> @dport the kernel sends out of
 * tun @fd within 2 s: 1, else 0. Other packets (IPv6 chatter) are skipped.
 */
static int tun_read(int fd, struct pkt *k, bool v6, uint16_t sport,
		    uint16_t dport)
{
	uint64_t deadline = mono_ns() + 2000000000ull;

	while (mono_ns() < deadline) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint32_t hl;
		ssize_t n;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = read(fd, k->b, sizeof(k->b));
		if (n < 40 || (k->b[0] >> 4) != (v6 ? 6 : 4))
			continue;
		hl = v6 ? 40 : (k->b[0] & 15) * 4u;
		if ((v6 ? k->b[6] : k->b[9]) != 6 || (uint32_t)n < hl + 20 ||
		    get16(k->b + hl) != sport || get16(k->b + hl + 2) != dport)
			continue;
		k->len = n;
		k->v6 = v6;
		k->l3 = 0;
		k->l4 = hl;
		k->pay = hl + (k->b[hl + 12] >> 4) * 4;
		return 1;
	}
	return 0;
}

/* Wait up to 2 s for counter @c of @fd to move from @before[c]. */
static void counter_wait(int fd, const uint64_t *before, int c)
{
	uint64_t now[HPCC_CNT_MAX], deadline = mono_ns() + 2000000000ull;

	do {
		counters_read(fd, now);
		if (now[c] != before[c])
			return;
		usleep(2000);
	} while (mono_ns() < deadline);
}

static const uint8_t l3_s4[4] = { 10, 93, 1, 2 };	/* behind tn0 */
static const uint8_t l3_d4[4] = { 10, 93, 2, 2 };	/* behind tn1 */
static const uint8_t l3_r4[4] = { 10, 93, 2, 1 };	/* tn1's own */
static const uint8_t l3_t4[4] = { 10, 93, 1, 1 };	/* tn0's own */
static const uint8_t l3_x4[4] = { 8, 0, 7, 1 };		/* reads as 0x0800 */
static const uint8_t l3_s6[16] = { 0xfd, 0x93, 0, 1, [15] = 2 };
static const uint8_t l3_d6[16] = { 0xfd, 0x93, 0, 2, [15] = 2 };
static const uint8_t l3_r6[16] = { 0xfd, 0x93, 0, 2, [15] = 1 };
static const uint8_t l3_t6[16] = { 0xfd, 0x93, 0, 1, [15] = 1 };

/* A probe (or response, @pr's flags) on a tun device: raw IP. */
static void l3_frame(struct pkt *k, bool v6, const struct hpcc_probe *pr,
		     const uint8_t *saddr, const uint8_t *daddr,
		     uint16_t sport, uint16_t dport)
{
	struct pkt_opts o = {
		.v6 = v6,
		.dscp = pr->hdr.flags & HPCC_F_RESPONSE ?
			HPCC_DSCP_RESPONSE_DEFAULT : HPCC_DSCP_PROBE_DEFAULT,
		.payload = pr,
		.paylen = HPCC_PROBE_LEN,
		.saddr = saddr,
		.daddr = daddr,
		.sport = sport,
		.dport = dport,
	};

	pkt_build(k, &o);
	pkt_strip_eth(k);
}

/* One namespace routing between two tun devices, a router and a host at
 * once: tn0 (10.93.1.1/24, fd93:1::1/64) and tn1 (10.93.2.1/24,
 * fd93:2::1/64), the test being the far side of both. hpcc_switch on
 * tn1's egress, hpcc_host on tn1's ingress. A probe written into tn0 is
 * forwarded and stamped on its way out of tn1; written back into tn1 it
 * is reflected; a response for a socket of the namespace written into
 * tn1 is delivered. None of it has an Ethernet header.
 */
static void l3_tests(void)
{
	struct hpcc_switch *s = NULL;
	struct hpcc_host *h = NULL;
	struct hpcc_port_cfg pcfg = { .switch_id = 93, .rate_mbps = 100,
				      .flags = HPCC_PORT_F_RAW_IP };
	struct hpcc_host_cfg hcfg = { .flags = HPCC_CFG_F_RAW_IP };
	uint64_t before[HPCC_CNT_MAX];
	struct hpcc_probe pr;
	struct pkt in, out, resp;
	uint32_t ifindex = 0, zero = 0, skip[5][2];
	uint16_t cport, sport;
	int t0 = -1, t1 = -1, err = -1, hc, sc, v6, cfd, lfd, fds[3], i;
	bool ok;

	if (access("/dev/net/tun", R_OK | W_OK)) {
		skip_case("raw IP devices (tun)", "no /dev/net/tun");
		return;
	}
	if (ns_create("hpccl") || ns_enter()) {
		tap(false, "raw IP: netns");
		goto out;
	}
	t0 = tun_open("tn0");
	t1 = tun_open("tn1");
	if (t0 < 0 || t1 < 0) {
		ns_leave();
		t_diag[0] = 0;
		skip_case("raw IP devices (tun)", "cannot create a tun device "
			  "(no tun driver?)");
		goto out;
	}
	ifindex = if_nametoindex("tn1");
	s = hpcc_switch__open_and_load();
	h = hpcc_host__open_and_load();
	if (s && h) {
		bpf_map_update_elem(bpf_map__fd(s->maps.hpcc_port_cfg),
				    &ifindex, &pcfg, BPF_ANY);
		bpf_map_update_elem(bpf_map__fd(h->maps.hpcc_host_cfg), &zero,
				    &hcfg, BPF_ANY);
		err = tc_prog_attach(ifindex, BPF_TC_EGRESS,
				     bpf_program__fd(s->progs.hpcc_switch)) ||
		      tc_prog_attach(ifindex, BPF_TC_INGRESS,
				     bpf_program__fd(h->progs.hpcc_host));
	}
	ns_leave();
	if (err || sh("ip -n %1$s link set lo up && "
		      "ip -n %1$s addr add 10.93.1.1/24 dev tn0 && "
		      "ip -n %1$s addr add 10.93.2.1/24 dev tn1 && "
		      "ip -n %1$s addr add fd93:1::1/64 dev tn0 nodad && "
		      "ip -n %1$s addr add fd93:2::1/64 dev tn1 nodad && "
		      "ip -n %1$s link set tn0 up && ip -n %1$s link set tn1 up "
		      "&& ip netns exec %1$s sysctl -qw net.ipv4.ip_forward=1 "
		      "net.ipv6.conf.all.forwarding=1 "
		      "net.ipv4.conf.all.rp_filter=0 "
		      "net.ipv4.conf.tn0.rp_filter=0", ns_name)) {
		tap(false, "raw IP: two tun devices, hpcc_switch on tn1 egress, "
		    "hpcc_host on tn1 ingress");
		goto out;
	}
	hc = bpf_map__fd(h->maps.hpcc_counters);
	sc = bpf_map__fd(s->maps.hpcc_counters);

	for (v6 = 0; v6 <= 1; v6++) {
		/* Across the L3 hop: stamped on the way out of tn1. */
		probe_init(&pr, 0);
		l3_frame(&in, v6, &pr, v6 ? l3_s6 : l3_s4, v6 ? l3_d6 : l3_d4,
			 40000, 5201);
		counters_read(sc, before);
		ok = CHECK(write(t0, in.b, in.len) == (ssize_t)in.len,
			   "write: %s", strerror(errno));
		ok &= CHECK(tun_read(t1, &out, v6, 40000, 5201),
			    "nothing came out of tn1");
		ok &= CHECK(out.len == in.len, "length %u", out.len);
		ok &= CHECK(payload_of(&out)->hdr.nhops == 1, "nhops %u",
			    payload_of(&out)->hdr.nhops);
		ok &= CHECK(ntohl(payload_of(&out)->hop[0].switch_id) == 93 &&
			    ntohl(payload_of(&out)->hop[0].port_id) == ifindex,
			    "hop");
		ok &= csums_ok(&out);
		/* Only TTL (and the IPv4 checksum), nhops, the hop and the
		 * TCP checksum changed: nothing was taken for a MAC header.
		 */
		skip[0][0] = v6 ? 7 : 8;
		skip[0][1] = 1;
		skip[1][0] = 10;
		skip[1][1] = v6 ? 0 : 2;
		skip[2][0] = in.pay + 2;
		skip[2][1] = 1;
		skip[3][0] = in.pay + sizeof(struct hpcc_hdr);
		skip[3][1] = sizeof(struct hpcc_hop);
		skip[4][0] = in.l4 + 16;
		skip[4][1] = 2;
		ok &= same_except(&in, &out, skip, 5);
		ok &= counters_moved(sc, before,
				     (int[]){ HPCC_CNT_SWITCH_STAMPED,
					      HPCC_CNT_SWITCH_NO_QSTATS, -1 });
		tap(ok, "raw IP: IPv%d probe forwarded through tun is stamped "
		    "at tn1's egress", v6 ? 6 : 4);

		/* A probe of the namespace's connection (tn0's address ->
		 * tn1's), carrying the hop just stamped, written into tn1:
		 * reflected out of it, the switch lets the response pass.
		 */
		ns_enter();
		err = tcp_conn(v6, v6 ? l3_t6 : l3_t4, 40010,
			       v6 ? l3_r6 : l3_r4, 5210, fds);
		ns_leave();
		if (err) {
			tap(false, "raw IP: a connection in the namespace");
			continue;
		}
		probe_init(&pr, 1);
		pr.hop[0] = payload_of(&out)->hop[0];
		l3_frame(&in, v6, &pr, v6 ? l3_t6 : l3_t4, v6 ? l3_r6 : l3_r4,
			 40010, 5210);
		counters_read(hc, before);
		ok = CHECK(write(t1, in.b, in.len) == (ssize_t)in.len,
			   "write: %s", strerror(errno));
		ok &= CHECK(tun_read(t1, &out, v6, 5210, 40010),
			    "no response out of tn1");
		for (i = 0; i < 3; i++)
			close(fds[i]);
		ok &= CHECK(out.len == in.len, "length %u", out.len);
		ok &= CHECK(!memcmp(out.b + (v6 ? 8 : 12),
				    v6 ? l3_r6 : l3_r4, v6 ? 16 : 4) &&
			    !memcmp(out.b + (v6 ? 24 : 16),
				    v6 ? l3_t6 : l3_t4, v6 ? 16 : 4),
			    "addresses");
		ok &= CHECK(payload_of(&out)->hdr.flags == HPCC_F_RESPONSE &&
			    payload_of(&out)->hdr.nhops == 1 &&
			    !memcmp(&payload_of(&out)->hop[0],
				    &payload_of(&in)->hop[0],
				    sizeof(struct hpcc_hop)), "payload");
		ok &= CHECK(dscp_of(&out) == HPCC_DSCP_RESPONSE_DEFAULT,
			    "dscp %#x", dscp_of(&out));
		ok &= CHECK(out.b[v6 ? 7 : 8] == 64, "TTL");
		ok &= csums_ok(&out);
		ok &= counters_moved(hc, before,
				     (int[]){ HPCC_CNT_PROBE_REFLECTED, -1 });
		tap(ok, "raw IP: IPv%d probe written into tn1 reflected out of "
		    "it", v6 ? 6 : 4);

		/* A response for a socket of the namespace: delivered (the
		 * lookup found the connection), or refused for a bad sum.
		 */
		ns_enter();
		cfd = tcp_pair_at(v6, v6 ? l3_r6 : l3_r4, "cubic", &cport,
				  &sport, &lfd);
		ns_leave();
		if (cfd < 0) {
			tap(false, "raw IP: TCP pair in the namespace");
			continue;
		}
		probe_init(&pr, 1);
		pr.hdr.flags = HPCC_F_RESPONSE;
		l3_frame(&resp, v6, &pr, v6 ? l3_r6 : l3_r4, v6 ? l3_r6 : l3_r4,
			 sport, cport);
		counters_read(hc, before);
		ok = CHECK(write(t1, resp.b, resp.len) == (ssize_t)resp.len,
			   "write: %s", strerror(errno));
		counter_wait(hc, before, have_module ? HPCC_CNT_NOT_HPCC :
						       HPCC_CNT_NO_MODULE);
		ok &= counters_moved(hc, before,
				     (int[]){ have_module ? HPCC_CNT_NOT_HPCC :
					      HPCC_CNT_NO_MODULE, -1 });
		tap(ok, "raw IP: IPv%d response for a live socket reaches the "
		    "kfunc step (%s)", v6 ? 6 : 4,
		    have_module ? "not_hpcc" : "no_module");
		resp.b[resp.pay + 8] ^= 1;
		counters_read(hc, before);
		ok = CHECK(write(t1, resp.b, resp.len) == (ssize_t)resp.len,
			   "write: %s", strerror(errno));
		counter_wait(hc, before, HPCC_CNT_BAD_CSUM);
		ok &= counters_moved(hc, before,
				     (int[]){ HPCC_CNT_BAD_CSUM, -1 });
		tap(ok, "raw IP: IPv%d response with a bad checksum dropped",
		    v6 ? 6 : 4);
		close(cfd);
		close(lfd);
	}

	/* From 8.0.0.0/16 an IPv4 packet's bytes 12-13 read as EtherType
	 * IPv4: the port's raw IP flag decides, and it is stamped.
	 */
	probe_init(&pr, 0);
	l3_frame(&in, false, &pr, l3_x4, l3_d4, 40001, 5201);
	ok = CHECK(write(t0, in.b, in.len) == (ssize_t)in.len, "write: %s",
		   strerror(errno));
	ok &= CHECK(tun_read(t1, &out, false, 40001, 5201),
		    "nothing came out of tn1");
	ok &= CHECK(payload_of(&out)->hdr.nhops == 1, "nhops %u",
		    payload_of(&out)->hdr.nhops);
	ok &= csums_ok(&out);
	tap(ok, "raw IP: a probe from 8.0.7.1 (looks like Ethernet too) is "
	    "stamped on a port configured raw IP");
out:
	if (t0 >= 0)
		close(t0);
	if (t1 >= 0)
		close(t1);
	hpcc_switch__destroy(s);
	hpcc_host__destroy(h);
	ns_teardown();
}

/* Records a probe or response carries: its nhops, and whether any byte
 * of its room is not zero.
 */
static bool no_records(const struct pkt *k)
{
	const struct hpcc_probe *p = payload_of(k);
	const uint8_t *r = (const uint8_t *)p->hop;
	size_t i;

	for (i = 0; i < sizeof(p->hop); i++)
		if (r[i]) {
			diag("record byte %zu is %#x\n", i, r[i]);
			return false;
		}
	return CHECK(p->hdr.nhops == 0, "nhops %u", p->hdr.nhops) &&
	       CHECK(!(p->hdr.flags & HPCC_F_OVERFLOW), "overflow flag");
}

/* A probe or response with @nhops records of switch 100 + i, as an
 * Ethernet frame to pkt.h's MAC b from MAC a.
 */
static void edge_frame(struct pkt *k, bool resp, uint8_t nhops,
		       const uint8_t *s, const uint8_t *d, uint16_t sport,
		       uint16_t dport)
{
	struct pkt_opts o = {
		.dscp = resp ? HPCC_DSCP_RESPONSE_DEFAULT :
			       HPCC_DSCP_PROBE_DEFAULT,
		.saddr = s, .daddr = d, .sport = sport, .dport = dport,
		.paylen = HPCC_PROBE_LEN,
	};
	struct hpcc_probe pr;

	probe_init(&pr, nhops);
	if (resp)
		pr.hdr.flags = HPCC_F_RESPONSE;
	o.payload = &pr;
	pkt_build(k, &o);
}

/* The next IPv4 TCP frame of ports @sport -> @dport that arrives on packet
 * socket @fd within 1 s: 1, else 0.
 */
static int veth_read(int fd, struct pkt *k, uint16_t sport, uint16_t dport)
{
	uint64_t deadline = mono_ns() + 1000000000ull;

	while (mono_ns() < deadline) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct sockaddr_ll sll;
		socklen_t sl = sizeof(sll);
		ssize_t n;

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		n = recvfrom(fd, k->b, sizeof(k->b), 0, (void *)&sll, &sl);
		if (n < 54 || sll.sll_pkttype == PACKET_OUTGOING ||
		    get16(k->b + 12) != 0x0800 || k->b[23] != 6)
			continue;
		k->len = n;
		k->v6 = false;
		k->l3 = 14;
		k->l4 = 14 + (k->b[14] & 15) * 4u;
		if (get16(k->b + k->l4) != sport ||
		    get16(k->b + k->l4 + 2) != dport)
			continue;
		k->pay = k->l4 + (k->b[k->l4 + 12] >> 4) * 4;
		return 1;
	}
	return 0;
}

/* Edge mode, with real packets: one namespace routing between veth e0,
 * an edge port (the domain's outside, 10.94.1.0/24, beyond it: its peer
 * e1), and veth i0, an inside port (10.94.2.0/24, beyond it: i1),
 * hpcc_switch on both egresses and hpcc_edge_in on e0's ingress. The
 * test writes and reads frames at e1 and i1. Nothing stamped inside may
 * leave through e0, and a probe coming in through e0 is neither stamped
 * inside nor answered.
 */
static void edge_tests(void)
{
	static const uint8_t out4[4] = { 10, 94, 1, 2 }, in4[4] = { 10, 94, 2, 2 };
	struct hpcc_port_cfg pcfg = { .switch_id = 94, .rate_mbps = 100 };
	struct hpcc_port_cfg ecfg = { .switch_id = 94,
				      .flags = HPCC_PORT_F_EDGE };
	uint64_t before[HPCC_CNT_MAX];
	struct hpcc_switch *s = NULL;
	struct pkt in, out;
	uint32_t if0 = 0, if1 = 0;
	int fe = -1, fi = -1, err = -1, sc;
	int swp, ein;
	bool ok;

	/* MAC b on the router's side, MAC a beyond: pkt_build()'s frames
	 * written at e1 and i1 are for the router.
	 */
	if (ns_create("hpcce") ||
	    sh("ip -n %1$s link add e0 type veth peer name e1 && "
	       "ip -n %1$s link add i0 type veth peer name i1 && "
	       "ip -n %1$s link set e0 address 02:00:00:00:00:0b && "
	       "ip -n %1$s link set i0 address 02:00:00:00:00:0b && "
	       "ip -n %1$s link set e1 address 02:00:00:00:00:0a && "
	       "ip -n %1$s link set i1 address 02:00:00:00:00:0a && "
	       "ip -n %1$s addr add 10.94.1.1/24 dev e0 && "
	       "ip -n %1$s addr add 10.94.2.1/24 dev i0 && "
	       "for d in lo e0 e1 i0 i1; do ip -n %1$s link set $d up; done && "
	       "ip -n %1$s neigh add 10.94.1.2 lladdr 02:00:00:00:00:0a dev e0 && "
	       "ip -n %1$s neigh add 10.94.2.2 lladdr 02:00:00:00:00:0a dev i0 && "
	       "ip netns exec %1$s sysctl -qw net.ipv4.ip_forward=1 "
	       "net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.e0.rp_filter=0 "
	       "net.ipv4.conf.i0.rp_filter=0 "
	       "net.ipv6.conf.all.disable_ipv6=1 && "
	       /* what arrives at e1 and i1 is the test's, not forwarded */
	       "ip netns exec %1$s sysctl -qw net.ipv4.conf.e1.forwarding=0 "
	       "net.ipv4.conf.i1.forwarding=0", ns_name) ||
	    ns_enter()) {
		tap(false, "edge: netns with e0/e1, i0/i1");
		goto out;
	}
	if0 = if_nametoindex("e0");
	if1 = if_nametoindex("i0");
	s = hpcc_switch__open_and_load();
	if (s) {
		sc = bpf_map__fd(s->maps.hpcc_port_cfg);
		bpf_map_update_elem(sc, &if1, &pcfg, BPF_ANY);
		bpf_map_update_elem(sc, &if0, &ecfg, BPF_ANY);
		swp = bpf_program__fd(s->progs.hpcc_switch);
		ein = bpf_program__fd(s->progs.hpcc_edge_in);
		err = tc_prog_attach(if0, BPF_TC_EGRESS, swp) ||
		      tc_prog_attach(if1, BPF_TC_EGRESS, swp) ||
		      tc_prog_attach(if0, BPF_TC_INGRESS, ein);
	}
	fe = packet_sock("e1", true);
	fi = packet_sock("i1", true);
	ns_leave();
	if (err || fe < 0 || fi < 0) {
		tap(false, "edge: e0 (edge, hpcc_edge_in on its ingress) and "
		    "i0 (inside), hpcc_switch on both");
		goto out;
	}
	sc = bpf_map__fd(s->maps.hpcc_counters);

	/* In from outside: not stamped by the inside port, not passed on
	 * to be answered.
	 */
	edge_frame(&in, false, 0, out4, in4, 40000, 5201);
	counters_read(sc, before);
	ok = CHECK(send(fe, in.b, in.len, 0) == (ssize_t)in.len, "send: %s",
		   strerror(errno));
	if (veth_read(fi, &out, 40000, 5201))
		ok &= CHECK(false, "it went on inside, with %u hops",
			    payload_of(&out)->hdr.nhops);
	ok &= counters_moved(sc, before,
			     (int[]){ HPCC_CNT_EDGE_PROBE_DROPPED, -1 });
	tap(ok, "edge: a probe from outside is dropped at the edge port, "
	    "neither stamped inside nor answered (edge_probe_dropped)");

	/* Out of the domain: no records, neither one stamped inside before
	 * nor the edge port's own.
	 */
	edge_frame(&in, false, 1, in4, out4, 40001, 5201);
	counters_read(sc, before);
	ok = CHECK(send(fi, in.b, in.len, 0) == (ssize_t)in.len, "send: %s",
		   strerror(errno));
	ok &= CHECK(veth_read(fe, &out, 40001, 5201), "nothing came out of "
		    "e0");
	ok &= no_records(&out) && csums_ok(&out);
	ok &= counters_moved(sc, before,
			     (int[]){ HPCC_CNT_EDGE_STRIPPED, -1 });
	tap(ok, "edge: a probe leaving the domain carries no records, neither "
	    "the inside one it had nor the edge port's (edge_stripped)");

	edge_frame(&in, true, 2, in4, out4, 5202, 40002);
	ok = CHECK(send(fi, in.b, in.len, 0) == (ssize_t)in.len, "send: %s",
		   strerror(errno));
	ok &= CHECK(veth_read(fe, &out, 5202, 40002), "nothing came out of "
		    "e0");
	ok &= no_records(&out) && csums_ok(&out);
	tap(ok, "edge: a response leaving the domain carries no records");

	edge_frame(&in, true, 2, out4, in4, 5203, 40003);
	ok = CHECK(send(fe, in.b, in.len, 0) == (ssize_t)in.len, "send: %s",
		   strerror(errno));
	ok &= CHECK(veth_read(fi, &out, 5203, 40003), "nothing came out of "
		    "i0");
	ok &= no_records(&out) && csums_ok(&out);
	tap(ok, "edge: a response entering the domain carries no outside "
	    "records");
out:
	if (fe >= 0)
		close(fe);
	if (fi >= 0)
		close(fi);
	hpcc_switch__destroy(s);
	ns_teardown();
}

/* --qos: the QoS traffic case alone (with the switch unit tests). */
static void qos_tests(void)
{
	struct hpcc_switch *s = hpcc_switch__open_and_load();

	if (!s || hpcc_switch__attach(s))
		tap(false, "qos: load/attach hpcc_switch");
	else
		for (size_t i = 0; i < sizeof(qos_cases) / sizeof(qos_cases[0]);
		     i++)
			qos_netns_case(s, &qos_cases[i]);
	hpcc_switch__destroy(s);
}

static void netns_tests(void)
{
	struct hpcc_switch *s;

	if (system("command -v ip >/dev/null && command -v tc >/dev/null")) {
		skip_case("qdisc traffic tests", "ip/tc not installed");
		return;
	}
	/* One load for all qdisc cases, its maps emptied between them:
	 * loading takes minutes on the debug kernel under TCG.
	 */
	s = hpcc_switch__open_and_load();
	if (!s || hpcc_switch__attach(s))
		tap(false, "qdisc cases: load/attach hpcc_switch");
	else {
		for (size_t i = 0; i < sizeof(qcases) / sizeof(qcases[0]); i++)
			qdisc_case(s, &qcases[i]);
		for (size_t i = 0; i < sizeof(qos_cases) / sizeof(qos_cases[0]);
		     i++)
			qos_netns_case(s, &qos_cases[i]);
	}
	hpcc_switch__destroy(s);
	netns_misc_tests();
	netns_reflector_tests();
	l3_tests();
	edge_tests();
}

/* ------------------------------------------- rolling upgrade: v1 meets v2 */

/* Open and load an object of the previous release (version 1 only). */
static struct bpf_object *old_obj(const char *dir, const char *name,
				  int *prog, int *cnt)
{
	char path[512];
	struct bpf_object *o;

	snprintf(path, sizeof(path), "%s/%s.bpf.o", dir, name);
	o = bpf_object__open_file(path, NULL);
	if (!o || libbpf_get_error(o) || bpf_object__load(o)) {
		diag("cannot load %s\n", path);
		return NULL;
	}
	*prog = bpf_program__fd(bpf_object__find_program_by_name(o, name));
	*cnt = bpf_map__fd(bpf_object__find_map_by_name(o, "hpcc_counters"));
	return o;
}

/*
 * Design note design-wire-v2.rst, "How versions meet": the v1 programs of
 * @dir (built from the last release) against v2 probes and responses.
 * A v1 program sees a 344-byte payload as a wrong length: counted
 * truncated, not bad_version (the length is checked first). A v1 router
 * passes the probe untouched, and the chain of the v2 routers around it
 * still verifies (the report lacks that hop); a v1 host drops both.
 */
static void upgrade_rx_tests(const char *dir);

static int upgrade_tests(const char *dir, const char *dir_rx)
{
	struct bpf_object *osw, *oh;
	int osw_prog, osw_cnt, oh_prog, oh_cnt, kfd, i;
	uint64_t before[HPCC_CNT_MAX];
	struct hpcc_probe_v2 cur;
	const struct hpcc_probe_v2 *o;
	struct hpcc_sipkey k;
	struct pkt in;
	struct run r;
	bool ok;

	sw = hpcc_switch__open_and_load();
	osw = old_obj(dir, "hpcc_switch", &osw_prog, &osw_cnt);
	oh = old_obj(dir, "hpcc_host", &oh_prog, &oh_cnt);
	if (!sw || !osw || !oh)
		return tap_bail("cannot load the programs");
	sw_prog = bpf_program__fd(sw->progs.hpcc_switch);
	sw_cnt = bpf_map__fd(sw->maps.hpcc_counters);
	kfd = bpf_map__fd(sw->maps.hpcc_mac_keys);
	qsnap_set(3000, 4444);
	mac_key_set(kfd, 0, mac_key0);
	hpcc_sipkey_of(&k, mac_key0);
	{
		struct hpcc_port_cfg c = { .switch_id = 42, .rate_mbps = 1000 };
		uint32_t ki = LO_IFINDEX;

		bpf_map_update_elem(bpf_map__fd(
			bpf_object__find_map_by_name(osw, "hpcc_port_cfg")),
			&ki, &c, BPF_ANY);
	}

	/* v2 router, v1 router, v2 router; MAC asked. */
	v2_init(&cur, HPCC_F_MAC, 0);
	ok = true;
	for (i = 0; i < 3; i++) {
		v2_frame(&in, false, &cur, HPCC_DSCP_PROBE_DEFAULT);
		if (i == 1) {
			counters_read(osw_cnt, before);
			run_prog(osw_prog, &in, &r);
			ok &= CHECK(!r.err && r.retval == TC_ACT_OK,
				    "v1 router retval %d", r.retval);
			ok &= same_bytes(&in, &r.out);
			ok &= counters_moved(osw_cnt, before,
					     (int[]){ HPCC_CNT_TRUNCATED, -1 });
			continue;
		}
		port_cfg_set(LO_IFINDEX, 41 + i, 10000, -1);
		run_prog(sw_prog, &in, &r);
		ok &= CHECK(!r.err && r.retval == TC_ACT_OK, "retval %d",
			    r.retval);
		ok &= csums_ok(&r.out);
		memcpy(&cur, payload_v2(&r.out), sizeof(cur));
	}
	o = &cur;
	ok &= CHECK(o->hdr.nhops == 2, "nhops %u", o->hdr.nhops);
	ok &= CHECK(ntohl(o->hop[0].rec.switch_id) == 41 &&
		    ntohl(o->hop[1].rec.switch_id) == 43, "switch ids");
	ok &= CHECK(hpcc_mac_verify(o, &k) == 0, "chain");
	tap(ok, "upgrade: v1 router between two v2 routers passes a v2 probe "
	    "untouched, counted truncated; the report has 2 hops of 3 and "
	    "its chain verifies");

	/* v1 receiver: a v2 probe; v1 sender's host: a v2 response. */
	v2_frame(&in, false, &cur, HPCC_DSCP_PROBE_DEFAULT);
	expect_untouched(oh_prog, oh_cnt, &in, TC_ACT_SHOT, HPCC_CNT_TRUNCATED,
			 "upgrade: v1 receiver drops a v2 probe, counted "
			 "truncated (the sender counts it lost, runs "
			 "loss-based)");
	cur.hdr.flags |= HPCC_F_RESPONSE;
	v2_frame(&in, false, &cur, HPCC_DSCP_RESPONSE_DEFAULT);
	expect_untouched(oh_prog, oh_cnt, &in, TC_ACT_SHOT, HPCC_CNT_TRUNCATED,
			 "upgrade: v1 sender's host drops a v2 response, "
			 "counted truncated");
	/* v2 router, v1 probe: stamped as v1 (test_switch_* above). */
	mac_key_set(kfd, 0, NULL);
	bpf_object__close(oh);
	bpf_object__close(osw);
	if (dir_rx)
		upgrade_rx_tests(dir_rx);
	qsnap_clear();
	hpcc_switch__destroy(sw);
	sw = NULL;
	return tap_done();
}

/*
 * Rx-HPCC meets version 2 programs from before it (@dir): they know
 * neither WANT_WINDOW nor the window response. A router passes an asking
 * probe unstamped, counted bad_flags (the report lacks that hop: upgrade
 * routers first); a receiver drops it, bad_flags (the sender stops asking
 * after HPCC_RX_ASK_TRIES unanswered); a sender's host drops a window
 * response, truncated (a sender asks only with rx_window=1).
 */
static void upgrade_rx_tests(const char *dir)
{
	int osw_prog, osw_cnt, oh_prog, oh_cnt;
	struct bpf_object *osw, *oh;
	struct hpcc_probe_v2 cur;
	struct pkt in;

	osw = old_obj(dir, "hpcc_switch", &osw_prog, &osw_cnt);
	oh = old_obj(dir, "hpcc_host", &oh_prog, &oh_cnt);
	if (!osw || !oh) {
		tap(false, "upgrade: the objects from before Rx-HPCC load");
		return;
	}
	{
		struct hpcc_port_cfg c = { .switch_id = 42, .rate_mbps = 1000 };
		uint32_t ki = LO_IFINDEX;

		bpf_map_update_elem(bpf_map__fd(
			bpf_object__find_map_by_name(osw, "hpcc_port_cfg")),
			&ki, &c, BPF_ANY);
	}
	v2_init(&cur, HPCC_F_WANT_WINDOW, 0);
	v2_frame(&in, false, &cur, HPCC_DSCP_PROBE_DEFAULT);
	expect_untouched(osw_prog, osw_cnt, &in, TC_ACT_OK, HPCC_CNT_BAD_FLAGS,
			 "upgrade: a v2 router from before Rx-HPCC passes an "
			 "asking probe unstamped, counted bad_flags");
	expect_untouched(oh_prog, oh_cnt, &in, TC_ACT_SHOT, HPCC_CNT_BAD_FLAGS,
			 "upgrade: a v2 receiver from before Rx-HPCC drops an "
			 "asking probe, counted bad_flags");
	{
		struct hpcc_window_resp wr = {
			.hdr = { .version = HPCC_WIRE_V2,
				 .flags = HPCC_F_RESPONSE | HPCC_F_WINDOW |
					  HPCC_F_WANT_WINDOW,
				 .room = HPCC_MAX_HOPS },
		};
		struct pkt_opts po = {
			.dscp = HPCC_DSCP_RESPONSE_DEFAULT, .payload = &wr,
			.paylen = HPCC_WINDOW_LEN,
		};

		pkt_build(&in, &po);
		expect_untouched(oh_prog, oh_cnt, &in, TC_ACT_SHOT,
				 HPCC_CNT_TRUNCATED,
				 "upgrade: a v2 sender's host from before "
				 "Rx-HPCC drops a window response, counted "
				 "truncated");
	}
	bpf_object__close(oh);
	bpf_object__close(osw);
}

/* ------------------------------------------------------------ benchmark */

#define BENCH_REPEAT	100000

/* ns/run over @repeat runs of one packet (the kernel's own average). */
static double bench_repeat(int fd, const struct pkt *in, uint32_t repeat)
{
	static uint8_t out[PKT_MAX];
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = in->b,
		.data_size_in = in->len,
		.data_out = out,
		.data_size_out = sizeof(out),
		.repeat = repeat,
	);

	if (bpf_prog_test_run_opts(fd, &opts))
		return -1;
	return opts.duration;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of @n single runs on a fresh copy of @in each time: for the
 * stamping path, which a repeated run would only take once (the same skb
 * is reused and fills up). Includes the per-run timer overhead, so compare
 * with the no-op measured the same way. The median, not the mean: a
 * single run now and then takes an interrupt or a preemption, which on a
 * busy machine moved the mean by 50%.
 */
static double bench_fresh(int fd, const struct pkt *in, int n)
{
	double *v = calloc(n, sizeof(*v)), med;
	int i;

	if (!v)
		return -1;
	for (i = 0; i < n; i++)
		v[i] = bench_repeat(fd, in, 1);
	qsort(v, n, sizeof(*v), cmp_double);
	med = v[n / 2];
	free(v);
	return med;
}

/* The host program, in the unit tests' namespace (the probe belongs to a
 * connection there): its fast path, a response (dropped after the socket
 * lookup finds nothing: the packet is not changed, so repeat works), a
 * probe turned around (fresh skb each time; the limit set so high that it
 * never refuses, so its whole path is timed) and probes refused: no
 * socket, and over the rate (the bucket emptied beforehand).
 */
static void bench_host(const struct pkt *data, double f_noop,
		       double r_noop)
{
	struct hpcc_host_cfg cfg = { .flags = HPCC_CFG_F_REFLECT |
					      HPCC_CFG_F_PEER,
				     .reflect_rate = 1000000000,
				     .reflect_burst = 1000000 };
	struct hpcc_reflect_tb full = { .tat = ~0ull >> 2 };
	struct hpcc_host *h = hpcc_host__open_and_load();
	double r_data, r_resp, f_probe, r_nosock, r_limited, f_peer, r_plim;
	struct pkt probe, resp, stray;
	struct hpcc_probe pr;
	uint32_t zero = 0;
	int hfd;

	if (!h || host_fixture_up()) {
		fprintf(stderr, "cannot load hpcc_host or set up its "
			"namespace\n");
		host_fixture_down();
		hpcc_host__destroy(h);
		return;
	}
	hfd = bpf_program__fd(h->progs.hpcc_host);
	bpf_map_update_elem(bpf_map__fd(h->maps.hpcc_host_cfg), &zero, &cfg,
			    BPF_ANY);
	probe_init(&pr, 2);
	probe_frame(&probe, false, &pr, HPCC_PROBE_LEN,
		    HPCC_DSCP_PROBE_DEFAULT);
	probe_frame_at(&stray, false, &pr, pkt_ip4_a, pkt_ip4_b, 40001, 5201);
	pr.hdr.flags = HPCC_F_RESPONSE;
	response_frame(&resp, false, &pr, pkt_ip4_b, pkt_ip4_a, 5299, 40099);
	r_data = bench_repeat(hfd, data, BENCH_REPEAT);
	r_resp = bench_repeat(hfd, &resp, BENCH_REPEAT);
	f_probe = bench_fresh(hfd, &probe, 20000);	/* peer_rate 0: off */
	/* The per-peer limit on, so high it never refuses: its lookup and
	 * cmpxchg on every reflected probe; then over its rate.
	 */
	cfg.peer_rate = 1000000000;
	cfg.peer_burst = 1000000;
	bpf_map_update_elem(bpf_map__fd(h->maps.hpcc_host_cfg), &zero, &cfg,
			    BPF_ANY);
	f_peer = bench_fresh(hfd, &probe, 20000);
	cfg.peer_rate = 1;
	cfg.peer_burst = 1;
	bpf_map_update_elem(bpf_map__fd(h->maps.hpcc_host_cfg), &zero, &cfg,
			    BPF_ANY);
	r_plim = bench_repeat(hfd, &probe, BENCH_REPEAT);
	cfg.peer_rate = 0;
	bpf_map_update_elem(bpf_map__fd(h->maps.hpcc_host_cfg), &zero, &cfg,
			    BPF_ANY);
	r_nosock = bench_repeat(hfd, &stray, BENCH_REPEAT);
	bpf_map_update_elem(bpf_map__fd(h->maps.hpcc_reflect_tb), &zero,
			    &full, BPF_ANY);
	r_limited = bench_repeat(hfd, &probe, BENCH_REPEAT);
	printf("# %-44s %10.1f %+13.1f\n",
	       "host, TCP data 1400 B (repeat=100000)", r_data,
	       r_data - r_noop);
	printf("# %-44s %10.1f %+13.1f\n",
	       "host, response, no socket (repeat=100000)", r_resp,
	       r_resp - r_noop);
	printf("# %-44s %10.1f %+13.1f\n",
	       "host, probe reflected (fresh skb x20000)", f_probe,
	       f_probe - f_noop);
	printf("# %-44s %10.1f %+13.1f\n",
	       "host, probe reflected, per-peer limit on", f_peer,
	       f_peer - f_noop);
	printf("# %-44s %10.1f %+13.1f\n",
	       "host, probe refused: over its peer's rate", r_plim,
	       r_plim - r_noop);
	printf("# %-44s %10.1f %+13.1f\n",
	       "host, probe refused: no socket (repeat)", r_nosock,
	       r_nosock - r_noop);
	printf("# %-44s %10.1f %+13.1f\n",
	       "host, probe refused: over the rate (repeat)", r_limited,
	       r_limited - r_noop);
	host_fixture_down();
	hpcc_host__destroy(h);
}

static int bench(void)
{
	struct hpcc_switch *s = hpcc_switch__open_and_load();
	struct noop *np = noop__open_and_load();
	struct pkt probe, full, data;
	struct hpcc_probe pr;
	struct pkt_opts o;
	int sfd, nfd;
	double r_noop, r_data, r_full, f_noop, f_probe, f_data;

	if (!s || !np) {
		fprintf(stderr, "cannot load objects\n");
		return 1;
	}
	sw = s;
	sfd = bpf_program__fd(s->progs.hpcc_switch);
	nfd = bpf_program__fd(np->progs.hpcc_noop);
	port_cfg_set(LO_IFINDEX, 1, 100000, -1);
	qsnap_set(12345, 987654321);
	probe_init(&pr, 0);
	probe_frame(&probe, false, &pr, HPCC_PROBE_LEN,
		    HPCC_DSCP_PROBE_DEFAULT);
	probe_init(&pr, HPCC_MAX_HOPS);
	probe_frame(&full, false, &pr, HPCC_PROBE_LEN,
		    HPCC_DSCP_PROBE_DEFAULT);
	{
		static uint8_t junk[1400 - 54];

		o = (struct pkt_opts){ .tcp_flags = 0x10, .payload = junk,
				       .paylen = sizeof(junk) };
		pkt_build(&data, &o);
	}

	r_noop = bench_repeat(nfd, &data, BENCH_REPEAT);
	r_data = bench_repeat(sfd, &data, BENCH_REPEAT);
	r_full = bench_repeat(sfd, &full, BENCH_REPEAT);
	f_noop = bench_fresh(nfd, &probe, 20000);
	f_probe = bench_fresh(sfd, &probe, 20000);
	f_data = bench_fresh(sfd, &data, 20000);

	printf("# bench: bpf_prog_test_run, %d CPUs\n", ncpus);
	printf("# %-44s %10s %14s\n", "case", "ns/pkt", "vs no-op");
	printf("# %-44s %10.1f %14s\n", "no-op tc program (repeat=100000)",
	       r_noop, "-");
	printf("# %-44s %10.1f %+13.1f\n",
	       "switch, TCP data 1400 B (repeat=100000)", r_data,
	       r_data - r_noop);
	printf("# %-44s %10.1f %+13.1f\n",
	       "switch, probe, room full (repeat=100000)", r_full,
	       r_full - r_noop);
	printf("# %-44s %10.1f %14s\n", "no-op tc program (fresh skb x20000)",
	       f_noop, "-");
	printf("# %-44s %10.1f %+13.1f\n",
	       "switch, TCP data (fresh skb x20000)", f_data, f_data - f_noop);
	printf("# %-44s %10.1f %+13.1f\n",
	       "switch, probe stamped (fresh skb x20000)", f_probe,
	       f_probe - f_noop);
	{
		/* Wire version 2: the same stamp at v2 offsets, then with the
		 * MAC (one SipHash-2-4 of 56 bytes and, past the first hop,
		 * the previous tag loaded); first hop and fourth.
		 */
		int kfd = bpf_map__fd(s->maps.hpcc_mac_keys);
		struct hpcc_probe_v2 p2;
		struct pkt v2, v2m, v2m3;
		double f_v2, f_v2m, f_v2m3;

		mac_key_set(kfd, 0, mac_key0);
		v2_init(&p2, 0, 0);
		v2_frame(&v2, false, &p2, HPCC_DSCP_PROBE_DEFAULT);
		v2_init(&p2, HPCC_F_MAC, 0);
		v2_frame(&v2m, false, &p2, HPCC_DSCP_PROBE_DEFAULT);
		p2.hdr.nhops = 3;
		v2_frame(&v2m3, false, &p2, HPCC_DSCP_PROBE_DEFAULT);
		f_v2 = bench_fresh(sfd, &v2, 20000);
		f_v2m = bench_fresh(sfd, &v2m, 20000);
		f_v2m3 = bench_fresh(sfd, &v2m3, 20000);
		printf("# %-44s %10.1f %+13.1f\n",
		       "switch, v2 probe stamped, no MAC (fresh)", f_v2,
		       f_v2 - f_noop);
		printf("# %-44s %10.1f %+13.1f\n",
		       "switch, v2 probe stamped + MAC, hop 1", f_v2m,
		       f_v2m - f_noop);
		printf("# %-44s %10.1f %+13.1f\n",
		       "switch, v2 probe stamped + MAC, hop 4", f_v2m3,
		       f_v2m3 - f_noop);
		mac_key_set(kfd, 0, NULL);
	}
	{
		/* A QoS port: the class's state read, B chosen, sojourn
		 * turned into bytes, the priority set.
		 */
		double f_qos;

		qos_cfg_set(true);
		qos_state_set(11000, 5000, 2000000);
		f_qos = bench_fresh(sfd, &probe, 20000);
		printf("# %-44s %10.1f %+13.1f\n",
		       "switch, probe stamped, QoS port (fresh)", f_qos,
		       f_qos - f_noop);
	}
	{
		/* An edge port: its egress strips, its ingress drops. */
		struct hpcc_port_cfg e = { .switch_id = 1,
					   .flags = HPCC_PORT_F_EDGE };
		int efd = bpf_program__fd(s->progs.hpcc_edge_in);
		uint32_t k = LO_IFINDEX;
		double f_strip, r_drop, r_edata;

		bpf_map_update_elem(bpf_map__fd(s->maps.hpcc_port_cfg), &k,
				    &e, BPF_ANY);
		f_strip = bench_fresh(sfd, &full, 20000);
		r_drop = bench_repeat(efd, &probe, BENCH_REPEAT);
		r_edata = bench_repeat(efd, &data, BENCH_REPEAT);
		printf("# %-44s %10.1f %+13.1f\n",
		       "edge egress, probe stripped (fresh skb)", f_strip,
		       f_strip - f_noop);
		printf("# %-44s %10.1f %+13.1f\n",
		       "edge ingress, probe dropped (repeat)", r_drop,
		       r_drop - r_noop);
		printf("# %-44s %10.1f %+13.1f\n",
		       "edge ingress, TCP data 1400 B (repeat)", r_edata,
		       r_edata - r_noop);
	}
	hpcc_switch__destroy(s);
	sw = NULL;
	bench_host(&data, f_noop, r_noop);
	noop__destroy(np);
	return 0;
}

/* ----------------------------------------------------------------- main */

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_WARN && getenv("HPCC_TEST_VERBOSE"))
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_WARN) {
		/* keep verifier logs out of TAP output unless asked */
		return 0;
	}
	return 0;
}

int main(int argc, char **argv)
{
	bool unit_only = argc > 1 && !strcmp(argv[1], "--unit");

	ncpus = libbpf_num_possible_cpus();
	libbpf_set_print(libbpf_quiet);
	if (argc > 1 && !strcmp(argv[1], "--bench"))
		return bench();
	if (geteuid() != 0)
		return tap_skip_all("needs root");
	if (argc > 2 && !strcmp(argv[1], "--upgrade"))
		return upgrade_tests(argv[2], argc > 3 ? argv[3] : NULL);
	if (argc > 1 && !strcmp(argv[1], "--switch")) {
		switch_tests();
		return tap_done();
	}
	if (argc > 1 && !strcmp(argv[1], "--qos")) {
		qos_bench = true;
		switch_tests();
		qos_tests();
		return tap_done();
	}
	switch_tests();
	host_tests();
	if (!unit_only)
		netns_tests();
	return tap_done();
}
