// SPDX-License-Identifier: GPL-2.0
/*
 * Many byte-exact TCP streams at once, for the stress and fault selftests
 * (framing and pattern: hpcc_stream.h).
 *
 *   hpcc_stress sink PORT [-n COUNT] [-c CC] [-t IDLE]
 *	Accepts streams on PORT (IPv4 and IPv6), checks every byte against
 *	the pattern of the stream's id, answers each with its byte count and
 *	SHA-256. With -n, exits after COUNT streams with ids 0..COUNT-1 and
 *	prints the SHA-256 of their digests in id order; without, runs until
 *	SIGTERM/SIGINT. The listener uses CC (default cubic), so that only the
 *	clients' sockets are counted as hpcc flows.
 *
 *   hpcc_stress flows ADDR PORT N BYTES [-c CC] [-i FIRST] [-d FILE] [-t IDLE]
 *	N concurrent connections, all established before any data: prints
 *	"connected N" and waits for a line on stdin; sends each its stream
 *	(BYTES + (id % 64) * 257 bytes), keeps them open, prints "sent ..."
 *	and waits for another line; then FIN, checks every reply, closes.
 *
 *   hpcc_stress churn ADDR PORT COUNT BYTES [-c CC] [-i FIRST] [-d FILE] [-t SECS]
 *	COUNT short connections one after the other, each carrying one
 *	stream of BYTES bytes, checked by its reply.
 *
 *   hpcc_stress stream ADDR PORT [-c CC] [-i ID]
 *	One stream sent as fast as the connection takes it until a line (or
 *	EOF) on stdin; prints "connected LOCALPORT" first.
 *
 * Clients print a summary with the SHA-256 of their own per-stream digests
 * in id order (-d FILE: those digests, 32 bytes each, for the caller to
 * compare with the sink's). Every mode exits 0 only if every stream
 * arrived complete and byte-exact.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/resource.h>

#include "hpcc_stream.h"

#define MAX_EVENTS	256

static const char *opt_cc;
static const char *opt_file;
static unsigned int opt_first, opt_count;
static double opt_idle = 60;
/* set by a signal: a lock-free atomic, as C11 allows a handler to write */
static atomic_int stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void raise_nofile(unsigned int n)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return;
	if (r.rlim_cur < n + 64) {
		r.rlim_cur = n + 64;
		if (r.rlim_max < r.rlim_cur)
			r.rlim_max = r.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &r))
			perror("hpcc_stress: setrlimit(RLIMIT_NOFILE)");
	}
}

static int write_digests(const uint8_t (*d)[32], unsigned int n)
{
	FILE *f;

	if (!opt_file)
		return 0;
	f = fopen(opt_file, "w");
	if (!f || fwrite(d, 32, n, f) != n || fclose(f)) {
		perror("hpcc_stress: digest file");
		return -1;
	}
	return 0;
}

static void digest_of_digests(const uint8_t (*d)[32], unsigned int n,
			      char hex[65])
{
	struct sha256 s;
	uint8_t out[32];

	sha256_init(&s);
	sha256_update(&s, d, (size_t)n * 32);
	sha256_final(&s, out);
	hex32(out, hex);
}

/* ---- sink ---------------------------------------------------------------- */

struct sconn {
	int fd;
	unsigned int hdr_got;
	struct hs_hdr hdr;
	uint32_t id;
	uint64_t len, got;
	uint64_t bad_at;	/* first differing byte + 1, 0: none */
	struct pattern pat;
	struct sha256 sha;
};

static int cmd_sink(int port)
{
	static uint8_t buf[1 << 16], want[1 << 16];
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 };
	struct epoll_event ev, evs[MAX_EVENTS];
	uint8_t (*digest)[32] = NULL;
	uint8_t *have = NULL;
	unsigned long done = 0, bad = 0, errors = 0;
	unsigned long long bytes = 0;
	const char *cc = opt_cc ? opt_cc : "cubic";
	int one = 1, lfd, ep, i;
	double last = hs_now();
	char hex[65];

	if (opt_count) {
		digest = calloc(opt_count, 32);
		have = calloc(opt_count, 1);
		if (!digest || !have)
			return 1;
	}
	raise_nofile(opt_count > 4096 ? 4096 : opt_count + 1024);
	a.sin6_port = htons(port);
	lfd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lfd < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(lfd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc)) ||
	    bind(lfd, (void *)&a, sizeof(a)) || listen(lfd, 4096)) {
		perror("hpcc_stress sink: listen");
		return 1;
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);

	while (!stop && (!opt_count || done < opt_count)) {
		int n = epoll_wait(ep, evs, MAX_EVENTS, 500);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (hs_now() - last > opt_idle) {
				fprintf(stderr, "hpcc_stress sink: nothing for %.0f s, %lu of %u streams done\n",
					opt_idle, done, opt_count);
				errors++;
				break;
			}
			continue;
		}
		last = hs_now();
		for (i = 0; i < n; i++) {
			struct sconn *c = evs[i].data.ptr;
			ssize_t r;

			if (!c) {	/* the listener */
				int fd;

				while ((fd = accept4(lfd, NULL, NULL,
						     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
					c = calloc(1, sizeof(*c));
					if (!c) {
						close(fd);
						errors++;
						continue;
					}
					c->fd = fd;
					ev.events = EPOLLIN;
					ev.data.ptr = c;
					epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
				}
				if (errno != EAGAIN && errno != ECONNABORTED) {
					perror("hpcc_stress sink: accept");
					errors++;
				}
				continue;
			}
			r = read(c->fd, buf, sizeof(buf));
			if (r < 0 && errno == EAGAIN)
				continue;
			if (r < 0) {
				fprintf(stderr, "hpcc_stress sink: stream %u after %llu bytes: %s\n",
					c->id, (unsigned long long)c->got,
					strerror(errno));
				errors++;
				goto drop;
			}
			if (r > 0) {
				uint8_t *p = buf;

				if (c->hdr_got < sizeof(c->hdr)) {
					size_t k = sizeof(c->hdr) - c->hdr_got;

					k = k < (size_t)r ? k : (size_t)r;
					memcpy((uint8_t *)&c->hdr + c->hdr_got, p, k);
					c->hdr_got += k;
					p += k;
					r -= k;
					if (c->hdr_got < sizeof(c->hdr))
						continue;
					if (be32toh(c->hdr.magic) != HS_MAGIC) {
						fprintf(stderr, "hpcc_stress sink: bad header\n");
						errors++;
						goto drop;
					}
					c->id = be32toh(c->hdr.id);
					c->len = be64toh(c->hdr.len);
					pattern_init(&c->pat, c->id);
					sha256_init(&c->sha);
				}
				if (!r)
					continue;
				pattern_fill(&c->pat, want, r);
				if (!c->bad_at && memcmp(p, want, r))
					c->bad_at = c->got + pattern_first_diff(p, want, r);
				sha256_update(&c->sha, p, r);
				c->got += r;
				bytes += r;
				continue;
			}
			/* EOF: answer and close */
			{
				struct hs_reply rep = { .magic = htobe32(HS_MAGIC) };
				uint32_t st = HS_OK;

				if (c->hdr_got < sizeof(c->hdr)) {
					fprintf(stderr, "hpcc_stress sink: EOF inside the header\n");
					errors++;
					goto drop;
				}
				if (c->len != HS_LEN_STREAM && c->got != c->len)
					st = HS_BAD_LENGTH;
				if (c->bad_at)
					st = HS_BAD_PATTERN;
				sha256_final(&c->sha, rep.sha256);
				rep.status = htobe32(st);
				rep.bytes = htobe64(c->got);
				if (write(c->fd, &rep, sizeof(rep)) != sizeof(rep)) {
					fprintf(stderr, "hpcc_stress sink: reply to stream %u: %s\n",
						c->id, strerror(errno));
					errors++;
				}
				if (st != HS_OK) {
					fprintf(stderr, "hpcc_stress sink: stream %u: %llu of %llu bytes, first wrong byte at %llu\n",
						c->id, (unsigned long long)c->got,
						(unsigned long long)c->len,
						(unsigned long long)c->bad_at - 1);
					bad++;
				}
				if (opt_count) {
					if (c->id >= opt_count || have[c->id]) {
						fprintf(stderr, "hpcc_stress sink: unexpected stream id %u\n",
							c->id);
						errors++;
					} else {
						memcpy(digest[c->id], rep.sha256, 32);
						have[c->id] = 1;
					}
				}
				done++;
			}
drop:
			epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
			close(c->fd);
			free(c);
		}
	}
	hex[0] = 0;
	if (opt_count) {
		for (unsigned int k = 0; k < opt_count; k++)
			if (!have[k]) {
				errors++;
				break;
			}
		digest_of_digests(digest, opt_count, hex);
	}
	printf("sink streams=%lu bytes=%llu bad=%lu errors=%lu digest=%s\n",
	       done, bytes, bad, errors, hex[0] ? hex : "-");
	fflush(stdout);
	return bad || errors;
}

/* ---- clients ------------------------------------------------------------- */

enum { C_CONNECTING, C_CONNECTED, C_SENDING, C_SENT, C_REPLY, C_DONE, C_FAILED };

struct cconn {
	int fd, state;
	uint32_t id;
	uint64_t len, sent;	/* pattern bytes */
	unsigned int hdr_sent, off, fill;
	struct hs_hdr hdr;
	struct pattern pat;
	struct sha256 sha;
	uint8_t digest[32];
	unsigned int rep_got;
	struct hs_reply rep;
	uint8_t *buf;
};

static size_t bufsz = 4096;

static void cconn_start(struct cconn *c, uint32_t id, uint64_t len)
{
	c->id = id;
	c->len = len;
	hs_hdr_make(&c->hdr, id, len);
	pattern_init(&c->pat, id);
	sha256_init(&c->sha);
}

/* Writes what the socket takes. 1: all sent, 0: more to do, -1: error. */
static int cconn_send(struct cconn *c)
{
	bool refilled = false;
	ssize_t w;

	while (c->hdr_sent < sizeof(c->hdr)) {
		w = write(c->fd, (uint8_t *)&c->hdr + c->hdr_sent,
			  sizeof(c->hdr) - c->hdr_sent);
		if (w < 0)
			return errno == EAGAIN ? 0 : -1;
		c->hdr_sent += w;
	}
	for (;;) {
		if (c->off == c->fill) {
			uint64_t left = c->len - c->sent;

			if (c->len != HS_LEN_STREAM && !left)
				return 1;
			/* An endless stream yields after a buffer: its caller
			 * polls stdin for "stop", and where the socket drains
			 * as fast as the pattern fills (the debug kernel's
			 * slow userspace) write() never says EAGAIN.
			 */
			if (c->len == HS_LEN_STREAM && refilled)
				return 0;
			refilled = true;
			c->fill = left < bufsz ? left : bufsz;
			c->off = 0;
			pattern_fill(&c->pat, c->buf, c->fill);
			sha256_update(&c->sha, c->buf, c->fill);
		}
		w = write(c->fd, c->buf + c->off, c->fill - c->off);
		if (w < 0)
			return errno == EAGAIN ? 0 : -1;
		c->off += w;
		c->sent += w;
	}
}

/* Reads the reply. 1: complete and EOF seen, 0: more to do, -1: error. */
static int cconn_reply(struct cconn *c)
{
	uint8_t extra;
	ssize_t r;

	while (c->rep_got < sizeof(c->rep)) {
		r = read(c->fd, (uint8_t *)&c->rep + c->rep_got,
			 sizeof(c->rep) - c->rep_got);
		if (r < 0)
			return errno == EAGAIN ? 0 : -1;
		if (!r) {
			errno = EPIPE;
			return -1;
		}
		c->rep_got += r;
	}
	r = read(c->fd, &extra, 1);
	if (r < 0)
		return errno == EAGAIN ? 0 : -1;
	if (r) {
		errno = EPROTO;
		return -1;
	}
	return 1;
}

/* Compares the reply with what was sent; 0 if the stream is intact. */
static int cconn_check(struct cconn *c, const char *who)
{
	sha256_final(&c->sha, c->digest);
	if (be32toh(c->rep.magic) != HS_MAGIC ||
	    be32toh(c->rep.status) != HS_OK ||
	    be64toh(c->rep.bytes) != c->sent ||
	    memcmp(c->rep.sha256, c->digest, 32)) {
		char a[65], b[65];

		hex32(c->digest, a);
		hex32(c->rep.sha256, b);
		fprintf(stderr, "hpcc_stress %s: stream %u: sent %llu bytes sha256 %s, receiver status %u, %llu bytes sha256 %s\n",
			who, c->id, (unsigned long long)c->sent, a,
			be32toh(c->rep.status),
			(unsigned long long)be64toh(c->rep.bytes), b);
		return -1;
	}
	return 0;
}

static void wait_line(void)
{
	char line[64];

	if (!fgets(line, sizeof(line), stdin))
		clearerr(stdin);
}

static int cmd_flows(const char *addr, int port, unsigned int n, uint64_t bytes)
{
	struct epoll_event ev, evs[MAX_EVENTS];
	struct cconn *c = calloc(n, sizeof(*c));
	uint8_t (*digest)[32] = calloc(n, 32);
	unsigned int started = 0, inprog = 0, ok = 0, failed = 0, pending;
	unsigned long long total = 0;
	double t0 = hs_now(), last;
	char hex[65], ccbuf[16];
	int ep, i;

	if (!c || !digest)
		return 1;
	raise_nofile(n);
	ep = epoll_create1(EPOLL_CLOEXEC);

	/* 1. connect all, at most 64 handshakes at a time */
	pending = n;
	last = hs_now();
	while (pending && !stop) {
		while (started < n && inprog < 64) {
			struct cconn *k = &c[started];

			k->buf = malloc(bufsz);
			cconn_start(k, opt_first + started, bytes +
				    (uint64_t)((opt_first + started) % 64) * 257);
			k->fd = hs_connect(addr, port, opt_cc, 1);
			started++;
			if (k->fd < 0 || !k->buf) {
				perror("hpcc_stress flows: connect");
				k->state = C_FAILED;
				failed++;
				pending--;
				continue;
			}
			ev.events = EPOLLOUT;
			ev.data.ptr = k;
			epoll_ctl(ep, EPOLL_CTL_ADD, k->fd, &ev);
			inprog++;
		}
		int m = epoll_wait(ep, evs, MAX_EVENTS, 500);

		if (m <= 0) {
			if (hs_now() - last > opt_idle) {
				fprintf(stderr, "hpcc_stress flows: connects stalled\n");
				return 1;
			}
			continue;
		}
		last = hs_now();
		for (i = 0; i < m; i++) {
			struct cconn *k = evs[i].data.ptr;
			int err = 0;
			socklen_t len = sizeof(err);

			getsockopt(k->fd, SOL_SOCKET, SO_ERROR, &err, &len);
			epoll_ctl(ep, EPOLL_CTL_DEL, k->fd, NULL);
			inprog--;
			pending--;
			if (err) {
				fprintf(stderr, "hpcc_stress flows: connect %u: %s\n",
					k->id, strerror(err));
				k->state = C_FAILED;
				failed++;
				continue;
			}
			if (opt_cc && strcmp(hs_cc(k->fd, ccbuf), opt_cc)) {
				fprintf(stderr, "hpcc_stress flows: stream %u uses %s\n",
					k->id, ccbuf);
				k->state = C_FAILED;
				failed++;
				continue;
			}
			k->state = C_CONNECTED;
		}
	}
	printf("connected %u failed %u seconds %.1f\n", n - failed, failed,
	       hs_now() - t0);
	fflush(stdout);
	wait_line();

	/* 2. every stream's bytes, all connections kept open */
	t0 = hs_now();
	pending = 0;
	for (i = 0; i < (int)n; i++) {
		if (c[i].state != C_CONNECTED)
			continue;
		c[i].state = C_SENDING;
		ev.events = EPOLLOUT;
		ev.data.ptr = &c[i];
		epoll_ctl(ep, EPOLL_CTL_ADD, c[i].fd, &ev);
		pending++;
	}
	last = hs_now();
	while (pending && !stop) {
		int m = epoll_wait(ep, evs, MAX_EVENTS, 500);

		if (m <= 0) {
			if (hs_now() - last > opt_idle) {
				fprintf(stderr, "hpcc_stress flows: sending stalled, %u streams left\n",
					pending);
				return 1;
			}
			continue;
		}
		last = hs_now();
		for (i = 0; i < m; i++) {
			struct cconn *k = evs[i].data.ptr;
			int r = cconn_send(k);

			if (!r)
				continue;
			epoll_ctl(ep, EPOLL_CTL_DEL, k->fd, NULL);
			pending--;
			if (r < 0) {
				fprintf(stderr, "hpcc_stress flows: send %u: %s\n",
					k->id, strerror(errno));
				k->state = C_FAILED;
				failed++;
				continue;
			}
			k->state = C_SENT;
			total += k->sent;
		}
	}
	printf("sent %u streams %llu bytes seconds %.1f\n", n - failed, total,
	       hs_now() - t0);
	fflush(stdout);
	wait_line();

	/* 3. FIN, replies, close */
	pending = 0;
	for (i = 0; i < (int)n; i++) {
		if (c[i].state != C_SENT)
			continue;
		shutdown(c[i].fd, SHUT_WR);
		c[i].state = C_REPLY;
		ev.events = EPOLLIN;
		ev.data.ptr = &c[i];
		epoll_ctl(ep, EPOLL_CTL_ADD, c[i].fd, &ev);
		pending++;
	}
	last = hs_now();
	while (pending && !stop) {
		int m = epoll_wait(ep, evs, MAX_EVENTS, 500);

		if (m <= 0) {
			if (hs_now() - last > opt_idle) {
				fprintf(stderr, "hpcc_stress flows: replies stalled, %u left\n",
					pending);
				return 1;
			}
			continue;
		}
		last = hs_now();
		for (i = 0; i < m; i++) {
			struct cconn *k = evs[i].data.ptr;
			int r = cconn_reply(k);

			if (!r)
				continue;
			epoll_ctl(ep, EPOLL_CTL_DEL, k->fd, NULL);
			pending--;
			if (r < 0 || cconn_check(k, "flows")) {
				if (r < 0)
					fprintf(stderr, "hpcc_stress flows: reply %u: %s\n",
						k->id, strerror(errno));
				k->state = C_FAILED;
				failed++;
				continue;
			}
			memcpy(digest[k - c], k->digest, 32);
			k->state = C_DONE;
			ok++;
		}
	}
	for (i = 0; i < (int)n; i++)
		if (c[i].fd > 0)
			close(c[i].fd);
	digest_of_digests(digest, n, hex);
	printf("flows streams=%u ok=%u failed=%u bytes=%llu digest=%s\n", n, ok,
	       failed, total, hex);
	fflush(stdout);
	return write_digests(digest, n) || ok != n;
}

static int cmd_churn(const char *addr, int port, unsigned int n, uint64_t bytes)
{
	uint8_t (*digest)[32] = calloc(n, 32);
	struct timeval tv = { .tv_sec = (long)opt_idle };
	unsigned int ok = 0, failed = 0;
	unsigned long long total = 0;
	double t0 = hs_now();
	char hex[65], ccbuf[16];
	struct cconn c;

	if (!digest)
		return 1;
	uint8_t *buf = malloc(bufsz);

	if (!buf)
		return 1;
	for (unsigned int i = 0; i < n && !stop; i++) {
		int r;

		memset(&c, 0, sizeof(c));
		c.buf = buf;
		cconn_start(&c, opt_first + i, bytes);
		c.fd = hs_connect(addr, port, opt_cc, 0);
		if (c.fd < 0) {
			fprintf(stderr, "hpcc_stress churn: connect %u: %s\n",
				c.id, strerror(errno));
			failed++;
			continue;
		}
		setsockopt(c.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(c.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (opt_cc && strcmp(hs_cc(c.fd, ccbuf), opt_cc)) {
			fprintf(stderr, "hpcc_stress churn: stream %u uses %s\n",
				c.id, ccbuf);
			r = -1;
		} else {
			r = cconn_send(&c);
			if (r == 1) {
				shutdown(c.fd, SHUT_WR);
				r = cconn_reply(&c);
			}
			if (r != 1)
				fprintf(stderr, "hpcc_stress churn: stream %u: %s\n",
					c.id, strerror(errno));
			else if (cconn_check(&c, "churn"))
				r = -1;
		}
		close(c.fd);
		if (r != 1) {
			failed++;
			continue;
		}
		memcpy(digest[i], c.digest, 32);
		total += c.sent;
		ok++;
	}
	digest_of_digests(digest, n, hex);
	printf("churn conns=%u ok=%u failed=%u bytes=%llu seconds=%.1f digest=%s\n",
	       n, ok, failed, total, hs_now() - t0, hex);
	fflush(stdout);
	return write_digests(digest, n) || ok != n;
}

static int cmd_stream(const char *addr, int port)
{
	struct sockaddr_storage local;
	socklen_t len = sizeof(local);
	struct pollfd p[2];
	struct cconn c;
	double t0 = hs_now();
	char a[65], b[65], ccbuf[16];
	int r = 0;

	memset(&c, 0, sizeof(c));
	bufsz = 1 << 16;
	c.buf = malloc(bufsz);
	cconn_start(&c, opt_first, HS_LEN_STREAM);
	c.fd = hs_connect(addr, port, opt_cc, 0);
	if (c.fd < 0 || !c.buf || getsockname(c.fd, (void *)&local, &len)) {
		perror("hpcc_stress stream: connect");
		return 1;
	}
	fcntl(c.fd, F_SETFL, O_NONBLOCK);
	printf("connected %u cc %s\n",
	       ntohs(((struct sockaddr_in *)&local)->sin_port),
	       hs_cc(c.fd, ccbuf));
	fflush(stdout);
	p[0].fd = c.fd;
	p[0].events = POLLOUT;
	p[1].fd = 0;
	p[1].events = POLLIN;
	while (!stop) {
		if (poll(p, 2, 1000) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;		/* a line or EOF: stop sending */
		if (p[0].revents & POLLOUT) {
			r = cconn_send(&c);
			if (r < 0) {
				perror("hpcc_stress stream: send");
				return 1;
			}
		}
	}
	/* what the pattern generated but the socket did not take yet */
	fcntl(c.fd, F_SETFL, 0);
	while (c.hdr_sent < sizeof(c.hdr)) {
		ssize_t w = write(c.fd, (uint8_t *)&c.hdr + c.hdr_sent,
				  sizeof(c.hdr) - c.hdr_sent);

		if (w < 0) {
			perror("hpcc_stress stream: send");
			return 1;
		}
		c.hdr_sent += w;
	}
	while (c.off < c.fill) {
		ssize_t w = write(c.fd, c.buf + c.off, c.fill - c.off);

		if (w < 0) {
			perror("hpcc_stress stream: send");
			return 1;
		}
		c.off += w;
		c.sent += w;
	}
	shutdown(c.fd, SHUT_WR);
	r = cconn_reply(&c);
	if (r != 1) {
		perror("hpcc_stress stream: reply");
		return 1;
	}
	r = cconn_check(&c, "stream");
	hex32(c.digest, a);
	hex32(c.rep.sha256, b);
	printf("stream id=%u bytes=%llu seconds=%.1f sha256=%s receiver_bytes=%llu receiver_sha256=%s %s\n",
	       c.id, (unsigned long long)c.sent, hs_now() - t0, a,
	       (unsigned long long)be64toh(c.rep.bytes), b,
	       r ? "MISMATCH" : "intact");
	fflush(stdout);
	close(c.fd);
	return r ? 1 : 0;
}

static void die_usage(void)
{
	fprintf(stderr,
		"usage: hpcc_stress sink PORT [-n COUNT] [-c CC] [-t IDLE]\n"
		"       hpcc_stress flows ADDR PORT N BYTES [-c CC] [-i FIRST] [-d FILE] [-t IDLE]\n"
		"       hpcc_stress churn ADDR PORT COUNT BYTES [-c CC] [-i FIRST] [-d FILE] [-t SECS]\n"
		"       hpcc_stress stream ADDR PORT [-c CC] [-i ID]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode;
	char *pos[4];
	int npos = 0;

	if (argc < 2)
		die_usage();
	mode = argv[1];
	optind = 2;
	while (optind < argc) {
		int opt = getopt(argc, argv, "+n:c:i:d:t:");

		if (opt == -1) {
			if (npos == 4)
				die_usage();
			pos[npos++] = argv[optind++];
			continue;
		}
		switch (opt) {
		case 'n':
			opt_count = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			opt_cc = optarg;
			break;
		case 'i':
			opt_first = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			opt_file = optarg;
			break;
		case 't':
			opt_idle = atof(optarg);
			break;
		default:
			die_usage();
		}
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "sink") && npos == 1)
		return cmd_sink(atoi(pos[0]));
	if (!strcmp(mode, "flows") && npos == 4)
		return cmd_flows(pos[0], atoi(pos[1]), strtoul(pos[2], NULL, 0),
			     strtoull(pos[3], NULL, 0));
	if (!strcmp(mode, "churn") && npos == 4)
		return cmd_churn(pos[0], atoi(pos[1]), strtoul(pos[2], NULL, 0),
			     strtoull(pos[3], NULL, 0));
	if (!strcmp(mode, "stream") && npos == 2)
		return cmd_stream(pos[0], atoi(pos[1]));
	die_usage();
	return 2;
}
