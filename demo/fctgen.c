// SPDX-License-Identifier: GPL-2.0
/*
 * fctgen: a small TCP flow generator for the demo (static, no libraries).
 *
 *   fctgen now
 *       print CLOCK_MONOTONIC in seconds (the common clock of every demo tool)
 *   fctgen server [-p PORT] [-C CC]
 *       accept connections forever (with congestion control CC, which
 *       accepted sockets inherit); each one starts with an 8-byte
 *       big-endian size S: read S bytes (S = ~0: until EOF), answer 1 byte,
 *       then wait for the peer to close
 *   fctgen client -d ADDR[,ADDR...] [-p PORT] [-C CC] [--t0 T0] [--tag TAG]
 *          [--seed N] [--drain SEC] [--samples FILE] [--sample-ms MS]
 *          [--max-rate MBIT] [--info FILE] [--trace FILE]
 *          [--trace-ms MS] MODE
 *     MODE, one of:
 *       --long DUR [--at S]       one flow that sends from T0+S for DUR s;
 *                                 TCP_INFO samples every MS (default 100)
 *                                 ms go to FILE as
 *                                 tag,id,t,bytes_acked,rtt_us,cwnd,retrans
 *       --burst N,SIZE,AT[,EVERY,COUNT]
 *                                 N flows of SIZE bytes at T0+AT (and COUNT
 *                                 times in all, EVERY s apart), to the
 *                                 destinations in turn
 *       --poisson LOAD,MBIT,DUR   Poisson arrivals for DUR s of WebSearch-
 *                                 sized flows offering LOAD (0..1) of a
 *                                 MBIT link per destination, each flow to a
 *                                 random destination (seeded)
 *     Every flow is a new connection using congestion control CC
 *     (setsockopt TCP_CONGESTION), TCP_NODELAY and, with --max-rate,
 *     SO_MAX_PACING_RATE (the stack paces the flow at MBIT at most: the
 *     bench's "paced" reference). A flow's FCT runs from just
 *     before connect() to the arrival of the server's 1-byte answer.
 *     With --info FILE, each sized flow's TCP_INFO when it ends (what
 *     held it: time busy and limited by the receive window or the send
 *     buffer, in us; its last cwnd, RTTs, rates in bytes/s), one row:
 *       tag,id,busy_us,rwnd_us,sndbuf_us,retrans,cwnd,rtt_us,min_rtt_us,
 *       segs_out,delivery_Bps,pacing_Bps
 *     With --trace FILE, every sized flow's TCP_INFO every MS (default 2)
 *     ms while it is open, from one sampler thread:
 *       tag,id,t,bytes_acked,unacked,cwnd,rtt_us,pacing_Bps,delivery_Bps,
 *       notsent_bytes
 *     (unacked in segments; notsent: written but not yet sent).
 *     Flows still running DRAIN s (default 10) after the last start are
 *     reported unfinished. At the end, one CSV row per flow on stdout:
 *       tag,id,dst,size,start,end,fct,status
 *     with times in seconds since T0 (default: the program's start), end and
 *     fct -1 and status != ok when the flow did not complete.
 *
 * The WebSearch flow-size CDF is the one of the DCTCP paper as distributed
 * with the HPCC ns-3 simulator (traffic_gen/WebSearch_distribution.txt),
 * sampled piecewise-linearly.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <linux/tcp.h>	/* struct tcp_info with tcpi_bytes_acked */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "flowcdf.h"

#define UNBOUNDED UINT64_MAX
#define CHUNK (64 * 1024)

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	struct timespec ts;

	if (t <= now())
		return;
	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void die(const char *msg)
{
	fprintf(stderr, "fctgen: %s\n", msg);
	exit(2);
}

/* ---- seeded RNG and the WebSearch CDF (flowcdf.h, shared with sim/) ------ */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	return flowcdf_rng_next(&rng_state);
}

/* uniform in [0, 1) */
static double rng_unit(void)
{
	return flowcdf_rng_unit(&rng_state);
}

static double ws_mean(void)
{
	return flowcdf_mean(&flowcdf_websearch);
}

static uint64_t ws_sample(void)
{
	return flowcdf_sample(&flowcdf_websearch, rng_unit());
}

/* ---- client ---------------------------------------------------------------- */

struct flow {
	int id;
	const char *dst;
	uint64_t size;		/* UNBOUNDED for a long flow */
	double start;		/* scheduled, relative to t0 */
	double dur;		/* long flows: seconds of sending */
	/* results */
	uint64_t sent;
	double t_start, t_end;	/* absolute; t_end 0 = not finished */
	const char *status;
	pthread_t th;
	int fd;			/* open socket for --trace; -1: none */
};

static const char *cc_name;
static uint64_t max_rate;	/* SO_MAX_PACING_RATE, bytes/s; 0: none */
static int port = 5000;
static double t0;
static const char *tag = "flow";
static FILE *samples;
static FILE *info;
static FILE *trace;
static int sample_ms = 100;
static int trace_ms = 2;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static char zeros[CHUNK];

static int connect_to(const char *dst)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd, one = 1;

	if (inet_pton(AF_INET, dst, &a.sin_addr) != 1)
		return -1;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	if (cc_name && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc_name,
				  strlen(cc_name))) {
		perror("fctgen: TCP_CONGESTION");
		close(fd);
		return -2;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (max_rate && setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE,
				   &max_rate, sizeof(max_rate))) {
		perror("fctgen: SO_MAX_PACING_RATE");
		close(fd);
		return -3;
	}
	if (connect(fd, (void *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

static void sample(struct flow *f, int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (!samples || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return;
	pthread_mutex_lock(&out_lock);
	fprintf(samples, "%s,%d,%.4f,%llu,%u,%u,%u\n", tag, f->id, now() - t0,
		(unsigned long long)ti.tcpi_bytes_acked, ti.tcpi_rtt,
		ti.tcpi_snd_cwnd, ti.tcpi_total_retrans);
	pthread_mutex_unlock(&out_lock);
}

/* --trace, sized flows only: the sampler reads f->fd under out_lock;
 * run_flow() clears it under the same lock before it closes the socket
 */
static void trace_fd(struct flow *f, int fd)
{
	if (!trace || f->size == UNBOUNDED)
		return;
	pthread_mutex_lock(&out_lock);
	f->fd = fd;
	pthread_mutex_unlock(&out_lock);
}

static void trace_flows(struct flow *fl, int n)
{
	struct tcp_info ti;
	socklen_t len;
	double t = now() - t0;
	int i;

	pthread_mutex_lock(&out_lock);
	for (i = 0; i < n; i++) {
		struct flow *f = &fl[i];

		len = sizeof(ti);
		if (f->fd < 0 ||
		    getsockopt(f->fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
			continue;
		fprintf(trace, "%s,%d,%.4f,%llu,%u,%u,%u,%llu,%llu,%u\n", tag,
			f->id, t, (unsigned long long)ti.tcpi_bytes_acked,
			ti.tcpi_unacked, ti.tcpi_snd_cwnd, ti.tcpi_rtt,
			(unsigned long long)ti.tcpi_pacing_rate,
			(unsigned long long)ti.tcpi_delivery_rate,
			ti.tcpi_notsent_bytes);
	}
	pthread_mutex_unlock(&out_lock);
}

struct tracer {
	struct flow *fl;
	int n;
	atomic_int stop;
};

static void *run_tracer(void *arg)
{
	struct tracer *tr = arg;
	double next = now();

	while (!atomic_load(&tr->stop)) {
		trace_flows(tr->fl, tr->n);
		next += trace_ms / 1e3;
		if (next < now())	/* late (a stall): no catch-up burst */
			next = now() + trace_ms / 1e3;
		sleep_until(next);
	}
	return NULL;
}

static void flow_info(struct flow *f, int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (!info || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return;
	pthread_mutex_lock(&out_lock);
	fprintf(info, "%s,%d,%llu,%llu,%llu,%u,%u,%u,%u,%u,%llu,%llu\n", tag,
		f->id, (unsigned long long)ti.tcpi_busy_time,
		(unsigned long long)ti.tcpi_rwnd_limited,
		(unsigned long long)ti.tcpi_sndbuf_limited,
		ti.tcpi_total_retrans, ti.tcpi_snd_cwnd, ti.tcpi_rtt,
		ti.tcpi_min_rtt, ti.tcpi_segs_out,
		(unsigned long long)ti.tcpi_delivery_rate,
		(unsigned long long)ti.tcpi_pacing_rate);
	pthread_mutex_unlock(&out_lock);
}

static void be64_put(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = v & 0xff;
}

static uint64_t be64_get(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static int send_all(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w <= 0)
			return -1;
		p = (const char *)p + w;
		n -= w;
	}
	return 0;
}

/* A long flow: sends for its duration, sampled, then its FIN; -1 on error */
static int send_long(struct flow *f, int fd)
{
	double end = f->t_start + f->dur, next = f->t_start;
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	for (;;) {
		double t = now(), wait;
		ssize_t w;

		if (t >= end)
			break;
		if (t >= next) {
			sample(f, fd);
			next += sample_ms / 1e3;
			if (next < t)
				next = t + sample_ms / 1e3;
		}
		wait = (next < end ? next : end) - t;
		if (poll(&p, 1, (int)(wait * 1e3) + 1) <= 0)
			continue;
		w = send(fd, zeros, CHUNK, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w < 0 && errno != EAGAIN)
			return -1;
		if (w > 0)
			f->sent += w;
	}
	sample(f, fd);
	shutdown(fd, SHUT_WR);
	return 0;
}

/* A flow of a size: its bytes; -1 on error */
static int send_sized(struct flow *f, int fd)
{
	while (f->sent < f->size) {
		size_t n = f->size - f->sent < CHUNK ? f->size - f->sent : CHUNK;

		if (send_all(fd, zeros, n))
			return -1;
		f->sent += n;
	}
	return 0;
}

static void *run_flow(void *arg)
{
	struct flow *f = arg;
	unsigned char hdr[8];
	char c;
	int fd;

	f->t_start = now();
	fd = connect_to(f->dst);
	if (fd < 0) {
		f->status = fd == -2 ? "cc" : fd == -3 ? "pacing" : "connect";
		return NULL;
	}
	trace_fd(f, fd);
	be64_put(hdr, f->size);
	if (send_all(fd, hdr, sizeof(hdr)))
		goto err;
	if (f->size != UNBOUNDED ? send_sized(f, fd) : send_long(f, fd))
		goto err;
	if (recv(fd, &c, 1, 0) != 1)
		goto err;
	f->t_end = now();
	f->status = "ok";
	if (f->size != UNBOUNDED)
		flow_info(f, fd);
	trace_fd(f, -1);
	close(fd);
	return NULL;
err:
	f->status = "error";
	trace_fd(f, -1);
	close(fd);
	return NULL;
}

static int csv_split(char *s, const char **out, int max)
{
	int n = 0;

	while (n < max) {
		out[n++] = s;
		s = strchr(s, ',');
		if (!s)
			break;
		*s++ = 0;
	}
	return n;
}

/* The client's options (the comment at the top). */
struct client_opts {
	const char *dsts[64];
	int ndst, seed;
	double drain, at, long_dur;
	char *burst, *poisson;
};

static void parse_client(int argc, char **argv, struct client_opts *o)
{
	int i;

	for (i = 2; i < argc; i++) {
		const char *k = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			die("option without a value");
		i++;
		if (!strcmp(k, "-d")) {
			char *s = strdup(v);

			o->ndst = csv_split(s, o->dsts, 64);
		} else if (!strcmp(k, "-p")) {
			port = atoi(v);
		} else if (!strcmp(k, "-C")) {
			cc_name = v;
		} else if (!strcmp(k, "--max-rate")) {
			if (atof(v) <= 0)
				die("--max-rate needs a rate in Mbit/s above 0");
			max_rate = (uint64_t)(atof(v) * 1e6 / 8);
		} else if (!strcmp(k, "--t0")) {
			t0 = atof(v);
		} else if (!strcmp(k, "--tag")) {
			tag = v;
		} else if (!strcmp(k, "--seed")) {
			o->seed = atoi(v);
		} else if (!strcmp(k, "--drain")) {
			o->drain = atof(v);
		} else if (!strcmp(k, "--samples")) {
			samples = fopen(v, "w");
			if (!samples)
				die("cannot open the samples file");
		} else if (!strcmp(k, "--info")) {
			info = fopen(v, "w");
			if (!info)
				die("cannot open the info file");
		} else if (!strcmp(k, "--trace")) {
			trace = fopen(v, "w");
			if (!trace)
				die("cannot open the trace file");
		} else if (!strcmp(k, "--trace-ms")) {
			trace_ms = atoi(v) > 0 ? atoi(v) : 2;
		} else if (!strcmp(k, "--sample-ms")) {
			sample_ms = atoi(v) > 0 ? atoi(v) : 100;
		} else if (!strcmp(k, "--long")) {
			o->long_dur = atof(v);
		} else if (!strcmp(k, "--at")) {
			o->at = atof(v);
		} else if (!strcmp(k, "--burst")) {
			o->burst = strdup(v);
		} else if (!strcmp(k, "--poisson")) {
			o->poisson = strdup(v);
		} else {
			die("unknown client option (see the comment at the top of fctgen.c)");
		}
	}
}

/* The flows to run, in the order of their starts. */
struct flows {
	struct flow *fl;
	int n, cap;
};

static void flow_add(struct flows *fs, const char *dst, uint64_t size,
		     double start, double dur)
{
	if (fs->n == fs->cap) {
		fs->cap = fs->cap ? 2 * fs->cap : 64;
		fs->fl = realloc(fs->fl, fs->cap * sizeof(*fs->fl));
		if (!fs->fl)
			die("out of memory");
	}
	fs->fl[fs->n] = (struct flow){ .id = fs->n, .dst = dst, .size = size,
				       .start = start, .dur = dur,
				       .status = "unfinished", .fd = -1 };
	fs->n++;
}

/* --burst N,SIZE,AT[,EVERY,COUNT]; returns the last start */
static double plan_burst(struct flows *fs, const struct client_opts *o)
{
	const char *b[5];
	int nb = csv_split(o->burst, b, 5), n, count = 1, k, j;
	double every = 0, when;
	uint64_t size;

	if (nb != 3 && nb != 5)
		die("--burst N,SIZE,AT[,EVERY,COUNT]");
	n = atoi(b[0]);
	size = strtoull(b[1], NULL, 0);
	when = atof(b[2]);
	if (nb == 5) {
		every = atof(b[3]);
		count = atoi(b[4]);
	}
	for (k = 0; k < count; k++)
		for (j = 0; j < n; j++)
			flow_add(fs, o->dsts[j % o->ndst], size, when + k * every, 0);
	return when + (count - 1) * every;
}

/* --poisson LOAD,MBIT,DUR; returns the last start */
static double plan_poisson(struct flows *fs, const struct client_opts *o)
{
	const char *p[3];
	double load, rate, dur, mean_gap, t = 0, last = 0;

	if (csv_split(o->poisson, p, 3) != 3)
		die("--poisson LOAD,MBIT,DUR");
	load = atof(p[0]);
	rate = atof(p[1]) * 1e6 / 8;	/* bytes/s per destination */
	dur = atof(p[2]);
	if (load <= 0 || rate <= 0)
		die("--poisson: LOAD and MBIT must be > 0");
	/* ndst destinations, each offered LOAD of its link */
	mean_gap = ws_mean() / (load * rate * o->ndst);
	for (;;) {
		const char *dst;

		t += -log(1 - rng_unit()) * mean_gap;
		if (t >= dur)
			break;
		/* the destination's draw first, then the size's */
		dst = o->dsts[rng_next() % o->ndst];
		flow_add(fs, dst, ws_sample(), o->at + t, 0);
		last = o->at + t;
	}
	return last;
}

/* Each flow started on time in a thread of its own; all waited for, but
 * no longer than @drain s after the last start (@last).
 */
static void run_flows(struct flows *fs, double last, double drain)
{
	struct tracer tr = { fs->fl, fs->n, 0 };
	pthread_attr_t attr;
	pthread_t tracer;
	int i;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 128 * 1024);
	if (trace && pthread_create(&tracer, &attr, run_tracer, &tr))
		die("cannot start the trace thread");
	for (i = 0; i < fs->n; i++) {
		sleep_until(t0 + fs->fl[i].start);
		if (pthread_create(&fs->fl[i].th, &attr, run_flow, &fs->fl[i])) {
			fs->fl[i].status = "thread";
			fs->fl[i].th = 0;
		}
	}
	/* pthread_timedjoin_np takes a CLOCK_REALTIME deadline */
	for (i = 0; i < fs->n; i++) {
		double left = t0 + last + drain - now(), d;
		struct timespec ts;

		if (!fs->fl[i].th || left <= 0)
			continue;
		clock_gettime(CLOCK_REALTIME, &ts);
		d = ts.tv_sec + ts.tv_nsec / 1e9 + left;
		ts.tv_sec = (time_t)d;
		ts.tv_nsec = (long)((d - ts.tv_sec) * 1e9);
		pthread_timedjoin_np(fs->fl[i].th, NULL, &ts);
	}
	if (trace) {
		atomic_store(&tr.stop, 1);
		pthread_join(tracer, NULL);
	}
}

static void print_flows(const struct flows *fs)
{
	int i;

	pthread_mutex_lock(&out_lock);
	for (i = 0; i < fs->n; i++) {
		const struct flow *f = &fs->fl[i];
		int done = f->t_end > 0 && !strcmp(f->status, "ok");
		uint64_t size = f->size == UNBOUNDED ? f->sent : f->size;
		double st = f->t_start > 0 ? f->t_start - t0 : f->start;

		if (done)
			printf("%s,%d,%s,%llu,%.6f,%.6f,%.6f,ok\n", tag, f->id, f->dst,
			       (unsigned long long)size, st, f->t_end - t0,
			       f->t_end - f->t_start);
		else
			printf("%s,%d,%s,%llu,%.6f,-1,-1,%s\n", tag, f->id, f->dst,
			       (unsigned long long)size, st, f->status);
	}
	fflush(stdout);
	if (samples)
		fflush(samples);
	if (info)
		fflush(info);
	if (trace)
		fflush(trace);
}

static int do_client(int argc, char **argv)
{
	struct client_opts o = { .seed = 1, .drain = 10, .long_dur = -1 };
	struct flows fs = {};
	double last;

	parse_client(argc, argv, &o);
	if (!o.ndst)
		die("client needs -d ADDR");
	if (!t0)
		t0 = now();
	rng_state = 0x5eed0000ULL + (uint64_t)o.seed;
	if (o.long_dur > 0) {
		flow_add(&fs, o.dsts[0], UNBOUNDED, o.at, o.long_dur);
		last = o.at + o.long_dur;
	} else if (o.burst) {
		last = plan_burst(&fs, &o);
	} else if (o.poisson) {
		last = plan_poisson(&fs, &o);
	} else {
		die("client needs a mode: --long, --burst or --poisson");
	}
	run_flows(&fs, last, o.drain);
	print_flows(&fs);
	_exit(0);	/* unfinished flow threads may still be blocked */
}

/* ---- server ---------------------------------------------------------------- */

static void *serve(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char *buf = malloc(CHUNK);
	unsigned char hdr[8];
	uint64_t size, got = 0;
	size_t hn = 0;
	ssize_t n;
	char c = 1;

	while (hn < sizeof(hdr)) {
		n = recv(fd, hdr + hn, sizeof(hdr) - hn, 0);
		if (n <= 0)
			goto out;
		hn += n;
	}
	if (!buf)
		goto out;
	size = be64_get(hdr);
	while (got < size) {
		size_t want = size - got < CHUNK ? size - got : CHUNK;

		n = recv(fd, buf, want, 0);
		if (n < 0)
			goto out;
		if (n == 0)
			break;	/* EOF: the end of a long flow */
		got += n;
	}
	send(fd, &c, 1, MSG_NOSIGNAL);
	while (recv(fd, buf, CHUNK, 0) > 0)
		;
out:
	free(buf);
	close(fd);
	return NULL;
}

static int do_server(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	pthread_attr_t attr;
	int lfd, one = 1, i;

	for (i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-p"))
			port = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "-C"))
			cc_name = argv[i + 1];
		else
			break;
	}
	if (i != argc)
		die("usage: fctgen server [-p PORT] [-C CC]");
	a.sin_port = htons(port);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* accepted sockets inherit the listener's congestion control: the
	 * receiver side of DCTCP must be dctcp too (its ECE echo)
	 */
	if (cc_name && setsockopt(lfd, IPPROTO_TCP, TCP_CONGESTION, cc_name,
				  strlen(cc_name))) {
		perror("fctgen: TCP_CONGESTION");
		return 1;
	}
	if (lfd < 0 || bind(lfd, (void *)&a, sizeof(a)) || listen(lfd, 4096)) {
		perror("fctgen: listen");
		return 1;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 128 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (;;) {
		int fd = accept(lfd, NULL, NULL);
		pthread_t th;

		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (pthread_create(&th, &attr, serve, (void *)(intptr_t)fd))
			close(fd);
	}
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc >= 2 && !strcmp(argv[1], "now")) {
		printf("%.6f\n", now());
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "server"))
		return do_server(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "client"))
		return do_client(argc, argv);
	fprintf(stderr, "usage: fctgen now | server [-p PORT] [-C CC] | client ... (see the comment at the top of fctgen.c)\n");
	return 2;
}
