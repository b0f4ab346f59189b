// SPDX-License-Identifier: GPL-2.0
/*
 * flows.c - `hpcc-probe flows`: tcp_hpcc's flows (/proc/net/tcp_hpcc),
 * formatted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "probe.h"

/* ---------------------------------------------------------------- flows */

/* /proc/net/tcp_hpcc: a header naming the columns, then one line per
 * flow. Columns are found by name so that new ones do not break us.
 */
#define MAX_COLS	32

static int col_of(char cols[][32], int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(cols[i], name))
			return i;
	return -1;
}

static const char flows_usage[] = "Usage: " PROG " [-n NETNS] flows\n\nThe "
	"tcp_hpcc flows of the network namespace "
	"(/proc/net/tcp_hpcc): window W, utilisation U,"
	" bottleneck hop, pacing rate, age of the last "
	"telemetry.\n";

int cmd_flows(int argc, char **argv)
{
	enum { LOCAL, REMOTE, MODE, W, U, BN, RATE, AGE, PRTT, HOPS, NCOL };
	static const char *want[NCOL] = {
		"local", "remote", "mode", "w_bytes", "u_permille",
		"bottleneck_hop", "rate_Bps", "age_us", "probe_rtt_us", "hops",
	};
	char cols[MAX_COLS][32], line[1024], *tok[MAX_COLS], *save, *t;
	int idx[NCOL], ncols = 0, n, i, flows = 0;
	struct modinfo m;
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
	if (!fgets(line, sizeof(line), f))
		die("/proc/net/tcp_hpcc is empty");
	for (t = strtok_r(line, " \t\n", &save); t && ncols < MAX_COLS;
	     t = strtok_r(NULL, " \t\n", &save))
		snprintf(cols[ncols++], sizeof(cols[0]), "%s", t);
	for (i = 0; i < NCOL; i++)
		idx[i] = col_of(cols, ncols, want[i]);
	if (idx[LOCAL] < 0 || idx[REMOTE] < 0)
		die("/proc/net/tcp_hpcc: unexpected header");

	printf("%-24s %-24s %-5s %10s %6s %10s %12s %10s %10s %4s\n",
	       "LOCAL", "REMOTE", "MODE", "W", "U", "BOTTLENECK", "RATE",
	       "AGE", "PROBE_RTT", "HOPS");
	while (fgets(line, sizeof(line), f)) {
		char w[32] = "-", u[16] = "-", bn[16] = "-", rate[32] = "-",
		     age[32] = "-", prtt[32] = "-", hops[8] = "-";
		unsigned long long v, nh = 0;
		const char *mode = "-";

		n = 0;
		for (t = strtok_r(line, " \t\n", &save); t && n < MAX_COLS;
		     t = strtok_r(NULL, " \t\n", &save))
			tok[n++] = t;
		if (n <= idx[REMOTE])
			continue;
#define COL(k) (idx[k] >= 0 && idx[k] < n ? tok[idx[k]] : NULL)
#define NUM(k) (COL(k) && sscanf(COL(k), "%llu", &v) == 1)
		if (COL(MODE))
			mode = COL(MODE);
		if (NUM(HOPS)) {
			nh = v;
			snprintf(hops, sizeof(hops), "%llu", v);
		}
		if (NUM(W))
			fmt_bytes(v, w, sizeof(w));
		if (NUM(U))
			snprintf(u, sizeof(u), "%.1f%%", v / 10.);
		if (NUM(BN) && nh)
			snprintf(bn, sizeof(bn), "hop %llu", v + 1);
		if (NUM(RATE) && v)
			fmt_rate_bps(v * 8., rate, sizeof(rate));
		if (NUM(PRTT) && v)
			fmt_ns(v * 1000LL, prtt, sizeof(prtt));
		/* the module prints "-" for a flow that never had telemetry */
		if (idx[AGE] >= 0 && idx[AGE] < n && !strcmp(tok[idx[AGE]], "-"))
			snprintf(age, sizeof(age), "never");
		else if (NUM(AGE))
			fmt_ns(v * 1000LL, age, sizeof(age));
#undef NUM
#undef COL
		printf("%-24s %-24s %-5s %10s %6s %10s %12s %10s %10s %4s\n",
		       tok[idx[LOCAL]], tok[idx[REMOTE]], mode, w, u, bn, rate,
		       age, prtt, hops);
		flows++;
	}
	fclose(f);
	if (!flows)
		printf("(no tcp_hpcc flows in this network namespace)\n");
	return 0;
}

