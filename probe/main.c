// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - hpcc-probe: attach, inspect and exercise the HPCC++ tc programs.
 *
 *   hpcc-probe [-n NETNS] [-v] host attach|detach DEV ...
 *   hpcc-probe [-n NETNS] [-v] switch attach|detach DEV ...
 *   hpcc-probe [-n NETNS] status | flows | trace DEST[:PORT]
 *
 * The commands are in one file each (host.c, switch.c, status.c, trace.c,
 * flows.c); this file parses the global options and dispatches.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "probe.h"

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (!verbose)
		return 0;
	if (level == LIBBPF_DEBUG && verbose < 2)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* ----------------------------------------------------------------- main */

static const char *main_usage =
	"Usage: " PROG " [-n NETNS] [-v] COMMAND [ARGS]\n"
	"\n"
	"Commands:\n"
	"  host attach DEV [--probe-dscp N] [--response-dscp N]\n"
	"  host detach DEV\n"
	"      hpcc_host on DEV's tc ingress: reflects probes, hands responses\n"
	"      to tcp_hpcc\n"
	"  switch attach DEV --rate RATE [--switch-id N] [--port-id N]\n"
	"                [--probe-dscp N] [--response-dscp N]\n"
	"  switch detach DEV | --all\n"
	"      hpcc_switch on DEV's tc egress: stamps probes with the port's\n"
	"      queue state (one instance per network namespace)\n"
	"  status\n"
	"      what is attached where, the programs' counters, the module's\n"
	"  trace DEST[:PORT] [--timeout SEC] [--sport N] [--dev DEV] [--json]\n"
	"      send one probe, print the hops of its response (PORT: 80)\n"
	"  flows\n"
	"      tcp_hpcc's flows: W, U, bottleneck hop, age of the telemetry\n"
	"\n"
	"Options:\n"
	"  -n, --netns NAME  work in network namespace NAME (/run/netns/NAME)\n"
	"                    or the one at path NAME, like ip -n ('ip netns\n"
	"                    exec NAME hpcc-probe ...' works as well)\n"
	"  -v, --verbose     libbpf's messages (twice: debug)\n"
	"  -h, --help        this text; '" PROG " COMMAND --help' per command\n"
	"\n"
	"Pins: " PIN_ROOT "/{host/DEV,switch} (initial namespace),\n"
	"      " PIN_ROOT "/netns/COOKIE/{host/DEV,switch} (others);\n"
	"      DEV with ':' for '.' (eth0.100: host/eth0:100).\n";

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *cmd, *sub;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt_long(argc, argv, "+n:vh", lo, NULL)) != -1) {
		switch (c) {
		case 'n': enter_netns(optarg); break;
		case 'v': verbose++; break;
		case 'h': fputs(main_usage, stdout); return 0;
		default: usage_err(NULL, "bad option");
		}
	}
	libbpf_set_print(libbpf_print);
	if (optind >= argc)
		usage_err(NULL, "no command");
	cmd = argv[optind];
	argc -= optind;
	argv += optind;
	optind = 0;	/* glibc: start over, forget the "+" of this parse */

	if (!strcmp(cmd, "help")) {
		fputs(main_usage, stdout);
		return 0;
	}
	if (!strcmp(cmd, "status"))
		return cmd_status(argc, argv);
	if (!strcmp(cmd, "flows"))
		return cmd_flows(argc, argv);
	if (!strcmp(cmd, "trace"))
		return cmd_trace(argc, argv);
	if (strcmp(cmd, "host") && strcmp(cmd, "switch"))
		usage_err(NULL, "unknown command '%s'", cmd);

	sub = argc > 1 ? argv[1] : "";
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help") || !*sub) {
		fputs(!strcmp(cmd, "host") ? host_usage : switch_usage,
		      *sub ? stdout : stderr);
		return *sub ? 0 : 2;
	}
	argc--;
	argv++;
	optind = 0;
	if (!strcmp(cmd, "host") && !strcmp(sub, "attach"))
		return cmd_host_attach(argc, argv);
	if (!strcmp(cmd, "host") && !strcmp(sub, "detach"))
		return cmd_host_detach(argc, argv);
	if (!strcmp(cmd, "switch") && !strcmp(sub, "attach"))
		return cmd_switch_attach(argc, argv);
	if (!strcmp(cmd, "switch") && !strcmp(sub, "detach"))
		return cmd_switch_detach(argc, argv);
	usage_err(!strcmp(cmd, "host") ? "host " : "switch ",
		  "unknown %s command '%s'", cmd, sub);
}

