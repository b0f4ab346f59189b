// SPDX-License-Identifier: GPL-2.0
/*
 * `hpcc-probe flows`: tcp_hpcc's flows (/proc/net/tcp_hpcc),
 * formatted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

/* /proc/net/tcp_hpcc: a header naming the columns, then one line per
 * flow. Columns are found by name so that new ones do not break us.
 */
#define MAX_COLS	32

/* The columns shown, and their names in the header. */
enum { LOCAL, REMOTE, MODE, W, U, BN, RATE, AGE, PRTT, HOPS, NCOL };
static const char *const col_names[NCOL] = {
	"local", "remote", "mode", "w_bytes", "u_permille",
	"bottleneck_hop", "rate_Bps", "age_us", "probe_rtt_us", "hops",
};

/* A line split at blanks: the words. */
struct words {
	char *w[MAX_COLS];
	int n;
};

static void split(char *line, struct words *l)
{
	char *save, *t;

	l->n = 0;
	for (t = strtok_r(line, " \t\n", &save); t && l->n < MAX_COLS;
	     t = strtok_r(NULL, " \t\n", &save))
		l->w[l->n++] = t;
}

/* Column @k of flow @l (@idx: where each column is), NULL if it has none. */
static const char *col(const struct words *l, const int *idx, int k)
{
	return idx[k] >= 0 && idx[k] < l->n ? l->w[idx[k]] : NULL;
}

/* Column @k as a number in @v? */
static bool num(const struct words *l, const int *idx, int k,
		unsigned long long *v)
{
	const char *s = col(l, idx, k);
	char *end;

	if (!s)
		return false;
	*v = strtoull(s, &end, 10);
	return end != s;
}

/* Read the header of @f: where each column is in @idx, -1 if absent. */
static void flows_header(FILE *f, int *idx)
{
	char line[1024];
	struct words h;
	int i, j;

	if (!fgets(line, sizeof(line), f))
		die("/proc/net/tcp_hpcc is empty");
	split(line, &h);
	for (i = 0; i < NCOL; i++) {
		idx[i] = -1;
		for (j = 0; j < h.n && idx[i] < 0; j++)
			if (!strcmp(h.w[j], col_names[i]))
				idx[i] = j;
	}
	if (idx[LOCAL] < 0 || idx[REMOTE] < 0)
		die("/proc/net/tcp_hpcc: unexpected header");
}

/* One flow's line, formatted. */
static void flows_print(const struct words *l, const int *idx)
{
	char w[32] = "-", u[16] = "-", bn[16] = "-", rate[32] = "-",
	     age[32] = "-", prtt[32] = "-", hops[8] = "-";
	const char *mode = col(l, idx, MODE), *a = col(l, idx, AGE);
	unsigned long long v, nh = 0;

	if (num(l, idx, HOPS, &v)) {
		nh = v;
		snprintf(hops, sizeof(hops), "%llu", v);
	}
	if (num(l, idx, W, &v))
		fmt_bytes(v, w, sizeof(w));
	if (num(l, idx, U, &v))
		snprintf(u, sizeof(u), "%.1f%%", v / 10.);
	if (num(l, idx, BN, &v) && nh)
		snprintf(bn, sizeof(bn), "hop %llu", v + 1);
	if (num(l, idx, RATE, &v) && v)
		fmt_rate_bps(v * 8., rate, sizeof(rate));
	if (num(l, idx, PRTT, &v) && v)
		fmt_ns(v * 1000LL, prtt, sizeof(prtt));
	/* the module prints "-" for a flow that never had telemetry */
	if (a && !strcmp(a, "-"))
		snprintf(age, sizeof(age), "never");
	else if (num(l, idx, AGE, &v))
		fmt_ns(v * 1000LL, age, sizeof(age));
	printf("%-24s %-24s %-5s %10s %6s %10s %12s %10s %10s %4s\n",
	       l->w[idx[LOCAL]], l->w[idx[REMOTE]], mode ? mode : "-", w, u,
	       bn, rate, age, prtt, hops);
}

static const char flows_usage[] =
	"Usage: " PROG " [-n NETNS] flows\n\nThe tcp_hpcc flows of the network namespace (/proc/net/tcp_hpcc): window W, utilisation U, bottleneck hop, pacing rate, age of the last telemetry.\n";

int cmd_flows(int argc, char **argv)
{
	int idx[NCOL], flows = 0;
	struct modinfo m;
	char line[1024];
	struct words l;
	FILE *f;

	if (help_only(argc, argv, "flows ", flows_usage))
		return 0;
	if (optind != argc)
		usage_err("flows ", "flows takes no arguments");
	module_info(&m);
	if (!m.loaded)
		die("tcp_hpcc is not loaded (modprobe tcp_hpcc)");
	f = sys_fopen("/proc/net/tcp_hpcc");
	if (!f)
		die("cannot read /proc/net/tcp_hpcc: %s", strerror(errno));
	flows_header(f, idx);

	printf("%-24s %-24s %-5s %10s %6s %10s %12s %10s %10s %4s\n",
	       "LOCAL", "REMOTE", "MODE", "W", "U", "BOTTLENECK", "RATE",
	       "AGE", "PROBE_RTT", "HOPS");
	while (fgets(line, sizeof(line), f)) {
		split(line, &l);
		/* too short: not a flow */
		if (l.n <= idx[REMOTE] || l.n <= idx[LOCAL])
			continue;
		flows_print(&l, idx);
		flows++;
	}
	fclose(f);
	if (!flows)
		printf("(no tcp_hpcc flows in this network namespace)\n");
	return 0;
}
