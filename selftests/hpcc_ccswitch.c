// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control switched on live connections between two network
 * namespaces while telemetry reports arrive and readers look at the flows:
 *
 *   hpcc_ccswitch -a NS_A -b NS_B -s ADDR_B -p PORT [-n CONNS] [-t SECS]
 *                 [-T MAX_SECS] [-m MIN_SWITCHES] [-r MIN_REPORTS]
 *                 [-d DWELL_US] CC...
 *
 * CONNS connections from NS_A to ADDR_B:PORT in NS_B (both ends in this
 * process), each carrying a byte-exact pattern stream in both directions
 * (hpcc_stream.h: every byte compared, SHA-256 on both ends). For at least
 * SECS seconds, and until MIN_SWITCHES rounds (1000), MIN_REPORTS reports
 * accepted (50), 10000 TCP_CC_INFO reads, 50 dumps in each namespace and
 * 10 hpcc sockets dumped with their info, but no longer than MAX_SECS
 * (SECS * 10), one thread cycles TCP_CONGESTION through CC... on both ends of
 * every connection, dwelling a random 0..DWELL_US between rounds so that
 * some hpcc periods last long enough for a probe's response; one reads
 * TCP_CC_INFO and TCP_INFO round robin; one per namespace dumps TCP
 * sockets over sock_diag with INET_DIAG_INFO and INET_DIAG_CONG (as
 * `ss -ti`). The hpcc host programs on both ends reflect probes and hand
 * responses to bpf_hpcc_report() throughout.
 *
 * Prints the counts, ReportsAccepted and ReportsUsed of
 * /proc/net/tcp_hpcc_stat read while the switching ran, and both ends'
 * SHA-256 of all streams. Exit 0 only if every call succeeded and every
 * stream arrived intact.
 */
#define _GNU_SOURCE
#include <linux/rtnetlink.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>

#include "hpcc_diag.h"
#include "hpcc_stream.h"

#define MAX_CONNS	32

static atomic_int stop, errors;
static char **ccs;
static int nconns = 4, port, secs = 10, max_secs, dwell_us = 2000;
static unsigned long min_switches = 1000, min_reports = 50;
static int fds[2 * MAX_CONNS];		/* a0 b0 a1 b1 ... */
static unsigned long n_switch, n_info, n_tcpinfo, n_diag[2], n_diag_socks[2],
		     n_diag_hpcc[2], n_diag_hpcc_info[2];
static unsigned long n_cc[16];

static void fail(const char *what, int err)
{
	fprintf(stderr, "hpcc_ccswitch: %s: %s\n", what, strerror(err));
	atomic_fetch_add(&errors, 1);
	atomic_store(&stop, 1);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *switcher(void *arg)
{
	uint64_t seed = 0x1234567887654321ULL;
	unsigned int i = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		const char *name = ccs[i];

		for (int s = 0; s < 2 * nconns; s++)
			if (setsockopt(fds[s], IPPROTO_TCP, TCP_CONGESTION,
				       name, strlen(name))) {
				fail(name, errno);
				return NULL;
			}
		n_cc[i]++;
		n_switch++;
		if (!ccs[++i])
			i = 0;
		if (dwell_us)
			usleep(rnd(&seed) % (dwell_us + 1));
	}
	return NULL;
}

static void *info_reader(void *arg)
{
	uint64_t info[8];	/* room for any struct tcp_cc_info */
	struct tcp_info ti;
	unsigned long k = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		int fd = fds[k++ % (2 * nconns)];
		socklen_t len = sizeof(info);

		if (getsockopt(fd, IPPROTO_TCP, TCP_CC_INFO, &info, &len)) {
			fail("getsockopt(TCP_CC_INFO)", errno);
			return NULL;
		}
		n_info++;
		len = sizeof(ti);
		if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len)) {
			fail("getsockopt(TCP_INFO)", errno);
			return NULL;
		}
		n_tcpinfo++;
	}
	return NULL;
}

/* One namespace's sock_diag dumps; arg: the netlink socket, side 0/1. */
struct diag_arg {
	int nl, side;
};

/* One message of a dump: our connections' sockets counted, and those
 * running hpcc, with and without their info; an error fails the test.
 */
static int diag_msg(const struct nlmsghdr *h, void *arg)
{
	const struct diag_arg *d = arg;
	const struct inet_diag_msg *m = NLMSG_DATA(h);
	const struct rtattr *a;
	int alen, hpcc = 0, info = 0;

	if (h->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(h);

		fail("sock_diag dump", -e->error);
		return 1;
	}
	if (ntohs(m->id.idiag_sport) != port &&
	    ntohs(m->id.idiag_dport) != port)
		return 0;
	n_diag_socks[d->side]++;
	alen = h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
	for (a = (const struct rtattr *)(m + 1); RTA_OK(a, alen);
	     a = RTA_NEXT(a, alen)) {
		if (a->rta_type == INET_DIAG_CONG &&
		    !strcmp(RTA_DATA(a), "hpcc"))
			hpcc = 1;
		if (a->rta_type == INET_DIAG_BBRINFO)
			info = 1;
	}
	n_diag_hpcc[d->side] += hpcc;
	n_diag_hpcc_info[d->side] += hpcc && info;
	return 0;
}

static void *diag_reader(void *arg)
{
	struct diag_arg *d = arg;
	static char bufs[2][1 << 16];
	struct hpcc_diag_req req;
	unsigned long k = 0;
	const char *what;

	while (!atomic_load(&stop)) {
		/* both families: listeners and accepted sockets are IPv6 */
		hpcc_diag_req_init(&req, k++ & 1 ? AF_INET6 : AF_INET);
		switch (hpcc_diag_dump(d->nl, &req, bufs[d->side],
				       sizeof(bufs[0]), diag_msg, d, &what)) {
		case 0:
			break;
		case -1:
			fail(what, errno);
			return NULL;
		default:
			return NULL;
		}
		n_diag[d->side]++;
	}
	return NULL;
}

/* Both directions of every connection: a pattern stream out of each
 * socket, the peer's stream checked into it.
 */
struct end {
	int fd;
	struct pattern out, in;
	struct sha256 out_sha, in_sha;
	uint64_t sent, got, bad_at;
	unsigned int off, fill;
	int fin_sent, eof;
	uint8_t buf[16384];
	uint8_t out_digest[32], in_digest[32];
};

static struct end ends[2 * MAX_CONNS];

/* What came in on @e, checked against its peer's pattern; its EOF closes
 * the end if its FIN went out too. -1 on a read error.
 */
static int end_read(struct end *e, int *open_ends)
{
	static uint8_t rbuf[1 << 16];
	ssize_t r = read(e->fd, rbuf, sizeof(rbuf));

	if (r < 0 && errno != EAGAIN) {
		fail("read", errno);
		return -1;
	}
	if (r > 0) {
		static uint8_t want[1 << 16];

		pattern_fill(&e->in, want, r);
		if (!e->bad_at && memcmp(rbuf, want, r))
			e->bad_at = e->got + pattern_first_diff(rbuf, want, r);
		sha256_update(&e->in_sha, rbuf, r);
		e->got += r;
	} else if (!r && !e->eof) {
		e->eof = 1;
		if (e->fin_sent)
			(*open_ends)--;
	}
	return 0;
}

/* @e's stream out, as much as the socket takes; once stopped, its FIN
 * (and no more EPOLLOUT for it on @ep). -1 on a write error.
 */
static int end_write(struct end *e, int ep, int *open_ends)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = e };

	for (;;) {
		ssize_t w;

		if (e->off == e->fill && atomic_load(&stop)) {
			shutdown(e->fd, SHUT_WR);
			e->fin_sent = 1;
			if (e->eof)
				(*open_ends)--;
			epoll_ctl(ep, EPOLL_CTL_MOD, e->fd, &ev);
			return 0;
		}
		if (e->off == e->fill) {
			e->off = 0;
			e->fill = sizeof(e->buf);
			pattern_fill(&e->out, e->buf, e->fill);
			sha256_update(&e->out_sha, e->buf, e->fill);
		}
		w = write(e->fd, e->buf + e->off, e->fill - e->off);
		if (w < 0) {
			if (errno == EAGAIN)
				return 0;
			fail("write", errno);
			return -1;
		}
		e->off += w;
		e->sent += w;
	}
}

static void *pump(void *arg)
{
	struct epoll_event ev, evs[64];
	int ep = epoll_create1(EPOLL_CLOEXEC), open_ends = 2 * nconns;

	(void)arg;
	for (int s = 0; s < 2 * nconns; s++) {
		struct end *e = &ends[s];

		e->fd = fds[s];
		pattern_init(&e->out, s);		/* my stream */
		pattern_init(&e->in, s ^ 1);		/* my peer's */
		sha256_init(&e->out_sha);
		sha256_init(&e->in_sha);
		ev.events = EPOLLIN | EPOLLOUT;
		ev.data.ptr = e;
		epoll_ctl(ep, EPOLL_CTL_ADD, e->fd, &ev);
	}
	while (open_ends) {
		int n = epoll_wait(ep, evs, 64, 200);

		for (int i = 0; i < n; i++) {
			struct end *e = evs[i].data.ptr;

			if ((evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) &&
			    end_read(e, &open_ends))
				return NULL;
			if ((evs[i].events & EPOLLOUT) && !e->fin_sent &&
			    end_write(e, ep, &open_ends))
				return NULL;
		}
	}
	close(ep);
	return NULL;
}

/* *@fd: a listener on PORT in this namespace; 0, or -1 */
static int make_listener(int *fd)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 };
	int one = 1;

	a.sin6_port = htons(port);
	*fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*fd < 0 || setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(*fd, (void *)&a, sizeof(a)) || listen(*fd, MAX_CONNS))
		return -1;
	return 0;
}

/* *@fd: a sock_diag socket in this namespace; 0, or -1 */
static int diag_socket(int *fd)
{
	*fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	return *fd < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *ns_a = NULL, *ns_b = NULL, *addr = NULL;
	struct diag_arg dg[2];
	pthread_t t[5];
	long long acc0, acc1, used0, used1;
	struct sha256 all_out, all_in;
	uint8_t d_out[32], d_in[32];
	char hex_out[65], hex_in[65];
	unsigned long long bytes = 0;
	int opt, lfd, intact = 0;
	double t0;

	while ((opt = getopt(argc, argv, "+a:b:s:p:n:t:T:m:r:d:")) != -1) {
		switch (opt) {
		case 'a':
			ns_a = optarg;
			break;
		case 'b':
			ns_b = optarg;
			break;
		case 's':
			addr = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'n':
			nconns = atoi(optarg);
			break;
		case 't':
			secs = atoi(optarg);
			break;
		case 'T':
			max_secs = atoi(optarg);
			break;
		case 'm':
			min_switches = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			min_reports = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			dwell_us = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	ccs = argv + optind;
	if (!ns_a || !ns_b || !addr || !port || optind >= argc ||
	    argc - optind > 16 || nconns < 1 || nconns > MAX_CONNS || secs < 1) {
usage:
		fprintf(stderr, "usage: hpcc_ccswitch -a NS_A -b NS_B -s ADDR_B -p PORT [-n CONNS] [-t SECS] [-T MAX_SECS] [-m MIN_SWITCHES] [-r MIN_REPORTS] [-d DWELL_US] CC...\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (max_secs < secs)
		max_secs = secs * 10;

	/* B: the listener and B's diag socket; A: the rest */
	if (hs_setns(ns_b) || make_listener(&lfd) || diag_socket(&dg[1].nl) ||
	    hs_setns(ns_a) || diag_socket(&dg[0].nl)) {
		perror("hpcc_ccswitch: namespaces");
		return 1;
	}
	dg[0].side = 0;
	dg[1].side = 1;
	for (int i = 0; i < nconns; i++) {
		fds[2 * i] = hs_connect(addr, port, NULL, 0);
		fds[2 * i + 1] = fds[2 * i] < 0 ? -1 :
				 accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fds[2 * i] < 0 || fds[2 * i + 1] < 0) {
			perror("hpcc_ccswitch: connection");
			return 1;
		}
	}
	close(lfd);
	for (int s = 0; s < 2 * nconns; s++)
		fcntl(fds[s], F_SETFL, O_NONBLOCK);

	t0 = hs_now();
	if (pthread_create(&t[0], NULL, pump, NULL) ||
	    pthread_create(&t[1], NULL, switcher, NULL) ||
	    pthread_create(&t[2], NULL, info_reader, NULL) ||
	    pthread_create(&t[3], NULL, diag_reader, &dg[0]) ||
	    pthread_create(&t[4], NULL, diag_reader, &dg[1])) {
		perror("hpcc_ccswitch: pthread_create");
		return 1;
	}
	/* the counters while the switching runs: from its first round on */
	while (!n_switch && !atomic_load(&stop))
		usleep(1000);
	acc0 = hs_stat("ReportsAccepted");
	used0 = hs_stat("ReportsUsed");
	while (!atomic_load(&stop) && hs_now() - t0 < max_secs &&
	       (hs_now() - t0 < secs || n_switch < min_switches ||
		n_info < 10000 || n_diag[0] < 50 || n_diag[1] < 50 ||
		n_diag_hpcc_info[0] + n_diag_hpcc_info[1] < 10 ||
		hs_stat("ReportsAccepted") - acc0 < (long long)min_reports))
		usleep(20000);
	acc1 = hs_stat("ReportsAccepted");
	used1 = hs_stat("ReportsUsed");
	atomic_store(&stop, 1);
	for (int i = 1; i < 5; i++)
		pthread_join(t[i], NULL);
	pthread_join(t[0], NULL);	/* after the FINs: every byte read */

	sha256_init(&all_out);
	sha256_init(&all_in);
	for (int s = 0; s < 2 * nconns; s++) {
		struct end *e = &ends[s];

		sha256_final(&e->out_sha, e->out_digest);
		sha256_final(&e->in_sha, e->in_digest);
		bytes += e->sent;
	}
	for (int s = 0; s < 2 * nconns; s++) {
		struct end *e = &ends[s], *peer = &ends[s ^ 1];

		/* the stream out of s, as sent and as its peer received it */
		sha256_update(&all_out, e->out_digest, 32);
		sha256_update(&all_in, peer->in_digest, 32);
		if (e->sent == peer->got && !peer->bad_at && e->sent &&
		    !memcmp(e->out_digest, peer->in_digest, 32))
			intact++;
		else
			fprintf(stderr, "hpcc_ccswitch: stream %d: sent %llu, received %llu, first wrong byte %llu\n",
				s, (unsigned long long)e->sent,
				(unsigned long long)peer->got,
				(unsigned long long)peer->bad_at - 1);
	}
	sha256_final(&all_out, d_out);
	sha256_final(&all_in, d_in);
	hex32(d_out, hex_out);
	hex32(d_in, hex_in);
	printf("seconds %.1f connections %d switches %lu", hs_now() - t0,
	       nconns, n_switch);
	for (int i = 0; ccs[i]; i++)
		printf(" %s:%lu", ccs[i], n_cc[i]);
	printf("\ncc_info %lu tcp_info %lu diag_dumps_a %lu diag_dumps_b %lu diag_socks %lu diag_hpcc %lu diag_hpcc_info %lu\n",
	       n_info, n_tcpinfo, n_diag[0], n_diag[1],
	       n_diag_socks[0] + n_diag_socks[1],
	       n_diag_hpcc[0] + n_diag_hpcc[1],
	       n_diag_hpcc_info[0] + n_diag_hpcc_info[1]);
	printf("reports_accepted_during %lld reports_used_during %lld\n",
	       acc0 < 0 || acc1 < 0 ? -1 : acc1 - acc0,
	       used0 < 0 || used1 < 0 ? -1 : used1 - used0);
	printf("streams %d intact %d bytes %llu errors %d\n", 2 * nconns,
	       intact, bytes, atomic_load(&errors));
	printf("sha256_sent %s\nsha256_received %s\n", hex_out, hex_in);
	return atomic_load(&errors) || intact != 2 * nconns;
}
