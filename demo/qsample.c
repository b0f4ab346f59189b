// SPDX-License-Identifier: GPL-2.0
/*
 * qsample: sample the root qdisc of network devices over rtnetlink, much
 * faster than forking `tc -s qdisc` (static, no libraries).
 *
 *   qsample [-i MS] [-t DUR] [--t0 T0] DEV [DEV...]
 *
 * Every MS milliseconds (default 5) for DUR seconds (default 10), one dump
 * of this network namespace's qdiscs (RTM_GETQDISC); for each DEV, one CSV
 * row on stdout:
 *   t,dev,backlog_bytes,qlen_pkts,drops,sent_bytes,sent_pkts,marks
 * t in seconds since T0 (CLOCK_MONOTONIC seconds, as `fctgen now` prints;
 * default: the program's start). backlog/qlen/drops/bytes/packets are the
 * root qdisc's (a tbf root counts its child's backlog and drops too); marks
 * is the sum of the ECN marks of RED children (tc_red_xstats.marked) and
 * fq_codel children (ce_mark) on that device. Rows are buffered and written
 * at the end (also on SIGTERM/SIGINT, which end the sampling early), so
 * that the console is quiet while the experiment runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXDEV 8

struct devstat {
	uint64_t bytes, pkts, marks;
	uint32_t backlog, qlen, drops;
	int seen;
};

static int ndev;
static unsigned int ifindex[MAXDEV];
static const char *ifname[MAXDEV];
static struct devstat st[MAXDEV];

/* set by a signal: a lock-free atomic, as C11 allows a handler to write */
static atomic_int stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int dev_slot(unsigned int idx)
{
	int i;

	for (i = 0; i < ndev; i++)
		if (ifindex[i] == idx)
			return i;
	return -1;
}

static void parse_stats2(struct rtattr *nest, int root, const char *kind,
			 struct devstat *d)
{
	int len = RTA_PAYLOAD(nest);
	struct rtattr *a;

	for (a = RTA_DATA(nest); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (root && a->rta_type == TCA_STATS_BASIC &&
		    RTA_PAYLOAD(a) >= sizeof(struct gnet_stats_basic)) {
			struct gnet_stats_basic b;

			memcpy(&b, RTA_DATA(a), sizeof(b));
			d->bytes = b.bytes;
			d->pkts = b.packets;
		} else if (root && a->rta_type == TCA_STATS_QUEUE &&
			   RTA_PAYLOAD(a) >= sizeof(struct gnet_stats_queue)) {
			struct gnet_stats_queue q;

			memcpy(&q, RTA_DATA(a), sizeof(q));
			d->backlog = q.backlog;
			d->qlen = q.qlen;
			d->drops = q.drops;
		} else if (a->rta_type == TCA_STATS_APP) {
			if (!strcmp(kind, "red") &&
			    RTA_PAYLOAD(a) >= sizeof(struct tc_red_xstats)) {
				struct tc_red_xstats x;

				memcpy(&x, RTA_DATA(a), sizeof(x));
				d->marks += x.marked;
			} else if (!strcmp(kind, "fq_codel") &&
				   RTA_PAYLOAD(a) >= sizeof(struct tc_fq_codel_xstats)) {
				struct tc_fq_codel_xstats x;

				memcpy(&x, RTA_DATA(a), sizeof(x));
				if (x.type == TCA_FQ_CODEL_XSTATS_QDISC)
					d->marks += x.qdisc_stats.ce_mark +
						x.qdisc_stats.ecn_mark;
			}
		}
	}
}

/* one RTM_GETQDISC dump into st[] */
static int dump(int fd)
{
	static char buf[65536];
	struct {
		struct nlmsghdr n;
		struct tcmsg t;
	} req = {
		.n = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETQDISC,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.t = { .tcm_family = AF_UNSPEC },
	};
	int i;

	for (i = 0; i < ndev; i++) {
		st[i].seen = 0;
		st[i].marks = 0;
	}
	if (send(fd, &req, sizeof(req), 0) < 0)
		return -1;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			struct tcmsg *t = NLMSG_DATA(h);
			struct rtattr *a, *stats2 = NULL;
			char kind[32] = "";
			int len, slot;

			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -1;
			if (h->nlmsg_type != RTM_NEWQDISC)
				continue;
			slot = dev_slot(t->tcm_ifindex);
			if (slot < 0)
				continue;
			len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*t));
			for (a = (void *)((char *)t + NLMSG_ALIGN(sizeof(*t)));
			     RTA_OK(a, len); a = RTA_NEXT(a, len)) {
				if (a->rta_type == TCA_KIND)
					snprintf(kind, sizeof(kind), "%s",
						 (char *)RTA_DATA(a));
				else if (a->rta_type == TCA_STATS2)
					stats2 = a;
			}
			if (!stats2)
				continue;
			parse_stats2(stats2, t->tcm_parent == TC_H_ROOT, kind,
				     &st[slot]);
			if (t->tcm_parent == TC_H_ROOT)
				st[slot].seen = 1;
		}
	}
}

/* The rows, written at the end. */
struct rows {
	char *buf;
	size_t cap, used;
};

/* One row per device seen in the last dump, at @t s after T0; -1 when out
 * of memory.
 */
static int rows_add(struct rows *r, double t)
{
	int i;

	for (i = 0; i < ndev; i++) {
		if (!st[i].seen)
			continue;
		if (r->cap - r->used < 256) {
			char *more = realloc(r->buf, 2 * r->cap);

			if (!more)
				return -1;
			r->buf = more;
			r->cap *= 2;
		}
		r->used += snprintf(r->buf + r->used, r->cap - r->used,
				    "%.4f,%s,%u,%u,%u,%llu,%llu,%llu\n",
				    t, ifname[i], st[i].backlog, st[i].qlen,
				    st[i].drops, (unsigned long long)st[i].bytes,
				    (unsigned long long)st[i].pkts,
				    (unsigned long long)st[i].marks);
	}
	return 0;
}

static int bad_usage(void)
{
	fprintf(stderr, "usage: qsample [-i MS] [-t DUR] [--t0 T0] DEV...\n");
	return 2;
}

/* The options and the devices: 0, or the exit status. */
static int parse_args(int argc, char **argv, double *interval, double *dur,
		      double *t0)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-i") && i + 1 < argc) {
			*interval = atof(argv[++i]) / 1e3;
			continue;
		}
		if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			*dur = atof(argv[++i]);
			continue;
		}
		if (!strcmp(argv[i], "--t0") && i + 1 < argc) {
			*t0 = atof(argv[++i]);
			continue;
		}
		if (argv[i][0] == '-' || ndev == MAXDEV)
			return bad_usage();
		ifname[ndev] = argv[i];
		ifindex[ndev] = if_nametoindex(argv[i]);
		if (!ifindex[ndev]) {
			fprintf(stderr, "qsample: no device %s\n", argv[i]);
			return 1;
		}
		ndev++;
	}
	if (!ndev || *interval <= 0)
		return bad_usage();
	return 0;
}

/* A dump every @interval s for @dur s, or until a signal: 0, or the exit
 * status.
 */
static int sample(int fd, double interval, double dur, double t0,
		  struct rows *r)
{
	double next = now(), end = next + dur;

	while (next < end && !stop) {
		struct timespec ts;
		double t;

		ts.tv_sec = (time_t)next;
		ts.tv_nsec = (long)((next - ts.tv_sec) * 1e9);
		while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
						NULL) == EINTR)
			;
		if (stop)
			break;
		t = now();
		if (dump(fd)) {
			perror("qsample: dump");
			return 1;
		}
		if (rows_add(r, t - t0))
			return 1;
		next += interval;
		if (next < t)	/* fell behind (TCG): skip, do not burst */
			next = t + interval;
	}
	return 0;
}

int main(int argc, char **argv)
{
	double interval = 0.005, dur = 10, t0 = 0;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct rows r = { .cap = 1 << 20 };
	int fd, err;

	err = parse_args(argc, argv, &interval, &dur, &t0);
	if (err)
		return err;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0 || bind(fd, (void *)&sa, sizeof(sa))) {
		perror("qsample: netlink");
		return 1;
	}
	r.buf = malloc(r.cap);
	if (!r.buf)
		return 1;
	if (!t0)
		t0 = now();
	/* SIGTERM/SIGINT end the sampling early; the rows are still written */
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	err = sample(fd, interval, dur, t0, &r);
	if (err)
		return err;
	fwrite(r.buf, 1, r.used, stdout);
	free(r.buf);
	return 0;
}
