// SPDX-License-Identifier: GPL-2.0
/*
 * lawsample: follow the law's state of this network namespace's hpcc
 * flows (/proc/net/tcp_hpcc) over time (static, no libraries).
 *
 *   lawsample [-i MS] [-t DUR] [--t0 T0]
 *
 * Every MS milliseconds (default 2) for DUR seconds (default 10), one read
 * of /proc/net/tcp_hpcc; a CSV row on stdout for each flow whose state
 * changed since the last read (a new report, W, Wc, U or stage):
 *   t,local,mode,w,wc,u_permille,stage,rate_Bps,t_us,age_us,hops
 * t in seconds since T0 (CLOCK_MONOTONIC seconds, as `fctgen now` prints;
 * default: the program's start). Only changes are kept so that a trace of
 * dozens of flows fits the console; rows are buffered and written at the
 * end (also on SIGTERM/SIGINT, which end the sampling early).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXFLOWS 4096
#define PROC_FLOWS "/proc/net/tcp_hpcc"

struct flow {
	char local[64];
	char state[160];	/* w wc u stage rate t_us, as last seen */
	unsigned long long age_us;
	int seen;
};

static struct flow flows[MAXFLOWS];
static int nflows;
static char *out;
static size_t out_len, out_cap;

static atomic_int stop;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop, 1);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int out_add(const char *s)
{
	size_t n = strlen(s);

	if (out_len + n + 1 > out_cap) {
		size_t cap = out_cap ? 2 * out_cap : 1 << 20;
		char *p = realloc(out, cap);

		if (!p)
			return -1;
		out = p;
		out_cap = cap;
	}
	memcpy(out + out_len, s, n + 1);
	out_len += n;
	return 0;
}

static struct flow *flow_get(const char *local)
{
	int i;

	for (i = 0; i < nflows; i++)
		if (!strcmp(flows[i].local, local))
			return &flows[i];
	if (nflows == MAXFLOWS)
		return NULL;
	snprintf(flows[nflows].local, sizeof(flows[0].local), "%s", local);
	return &flows[nflows++];
}

/* One line of /proc/net/tcp_hpcc: a row if the flow's state moved. */
static int line(const char *l, double t)
{
	char local[64], remote[64], mode[8], age[24], state[160], row[320];
	unsigned long long w, wc, u, rate, age_us;
	unsigned int stage, hop, t_us, hops;
	struct flow *f;
	int fresh;

	if (sscanf(l, "%63s %63s %7s %llu %llu %llu %u %u %llu %u %23s %*u %u",
		   local, remote, mode, &w, &wc, &u, &stage, &hop, &rate, &t_us,
		   age, &hops) != 12)
		return 0;	/* the header */
	age_us = strcmp(age, "-") ? strtoull(age, NULL, 10) : ~0ULL;
	snprintf(state, sizeof(state), "%s,%llu,%llu,%llu,%u,%llu,%u", mode,
		 w, wc, u, stage, rate, t_us);
	f = flow_get(local);
	if (!f)
		return 0;
	/* a new report: the age went down since the last read */
	fresh = !f->seen || age_us < f->age_us;
	f->age_us = age_us;
	if (f->seen && !fresh && !strcmp(state, f->state))
		return 0;
	f->seen = 1;
	snprintf(f->state, sizeof(f->state), "%s", state);
	snprintf(row, sizeof(row), "%.4f,%s,%s,%s,%u\n", t, local, state,
		 age_us == ~0ULL ? "-" : age, hops);
	return out_add(row);
}

static int read_flows(double t)
{
	static char buf[1 << 20];
	char *l, *end;
	ssize_t n;
	size_t len = 0;
	int fd;

	fd = open(PROC_FLOWS, O_RDONLY);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	if (n < 0)
		return -1;
	buf[len] = 0;
	for (l = buf; *l; l = end + 1) {
		end = strchr(l, '\n');
		if (!end)
			break;
		*end = 0;
		if (line(l, t))
			return -1;
	}
	return 0;
}

static int bad_usage(void)
{
	fprintf(stderr, "usage: lawsample [-i MS] [-t DUR] [--t0 T0]\n");
	return 2;
}

int main(int argc, char **argv)
{
	double interval = 0.002, dur = 10, t0 = 0, end, t;
	struct timespec ts;
	int i, err = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-i") && i + 1 < argc)
			interval = atof(argv[++i]) / 1000;
		else if (!strcmp(argv[i], "-t") && i + 1 < argc)
			dur = atof(argv[++i]);
		else if (!strcmp(argv[i], "--t0") && i + 1 < argc)
			t0 = atof(argv[++i]);
		else
			return bad_usage();
	}
	if (interval <= 0 || dur <= 0)
		return bad_usage();
	if (!t0)
		t0 = now();
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	ts.tv_sec = 0;
	ts.tv_nsec = (long)(interval * 1e9);
	for (end = now() + dur; !atomic_load(&stop) && (t = now()) < end;) {
		if (read_flows(t - t0)) {
			fprintf(stderr, "lawsample: %s: %s\n", PROC_FLOWS,
				strerror(errno ? errno : ENOMEM));
			err = 1;
			break;
		}
		nanosleep(&ts, NULL);
	}
	if (out_len)
		fwrite(out, 1, out_len, stdout);
	return err;
}
