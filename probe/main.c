// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc-probe: attach, inspect and exercise the HPCC++ tc programs.
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

static const char *main_usage =
	"Usage: " PROG " [-n NETNS] [-v] COMMAND [ARGS]\n"
	"\n"
	"Commands:\n"
	"  host attach DEV [--probe-dscp N] [--response-dscp N]\n"
	"                  [--reflect-rate N] [--reflect-burst N]\n"
	"  host detach DEV\n"
	"      hpcc_host on DEV's tc ingress: reflects the probes of its\n"
	"      connections, hands responses to tcp_hpcc\n"
	"  switch attach DEV --rate RATE [--switch-id N] [--port-id N]\n"
	"                [--probe-dscp N] [--response-dscp N] [--edge]\n"
	"  switch detach DEV | --all\n"
	"      hpcc_switch on DEV's tc egress: stamps probes with the port's\n"
	"      queue state (one instance per network namespace); an --edge\n"
	"      port faces outside: records crossing it go, probes coming in\n"
	"      are dropped\n"
	"  status [--config FILE | --no-config] [--json]\n"
	"      what is attached where, the programs' counters, the module's\n"
	"  trace DEST[:PORT] [--timeout SEC] [--sport N] [--dev DEV] [--json]\n"
	"      send one probe, print the hops of its response (PORT: 80)\n"
	"  flows\n"
	"      tcp_hpcc's flows: W, U, bottleneck hop, age of the telemetry\n"
	"  key set ID HEX32 | key del ID | key list\n"
	"      the domain's MAC keys (wire version 2) in this namespace's\n"
	"      switch instance and in tcp_hpcc; never printed\n"
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

struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
};

static const struct cmd host_cmds[] = {
	{ "attach", cmd_host_attach },
	{ "detach", cmd_host_detach },
	{}
};

static const struct cmd switch_cmds[] = {
	{ "attach", cmd_switch_attach },
	{ "detach", cmd_switch_detach },
	{}
};

/* `OBJECT SUBCOMMAND ...`: no subcommand prints the object's usage, as a
 * usage error.
 */
static int do_object(const char *obj, const char *usage,
		     const struct cmd *cmds, int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";
	const struct cmd *c;
	char hint[16];

	if (!*sub) {
		fputs(usage, stderr);
		return 2;
	}
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		fputs(usage, stdout);
		return 0;
	}
	optind = 0;
	for (c = cmds; c->name; c++)
		if (!strcmp(sub, c->name))
			return c->func(argc - 1, argv + 1);
	snprintf(hint, sizeof(hint), "%s ", obj);
	usage_err(hint, "unknown %s command '%s'", obj, sub);
}

static int do_host(int argc, char **argv)
{
	return do_object("host", host_usage, host_cmds, argc, argv);
}

static int do_switch(int argc, char **argv)
{
	return do_object("switch", switch_usage, switch_cmds, argc, argv);
}

static int do_help(int argc, char **argv)
{
	fputs(main_usage, stdout);
	return 0;
}

static const struct cmd cmds[] = {
	{ "host", do_host },
	{ "switch", do_switch },
	{ "status", cmd_status },
	{ "trace", cmd_trace },
	{ "flows", cmd_flows },
	{ "key", cmd_key },
	{ "help", do_help },
	{}
};

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const struct cmd *cmd;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt_long(argc, argv, "+n:vh", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			enter_netns(optarg);
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			return do_help(argc, argv);
		default:
			usage_err(NULL, "bad option");
		}
	}
	libbpf_set_print(libbpf_print);
	if (optind >= argc)
		usage_err(NULL, "no command");
	argc -= optind;
	argv += optind;
	optind = 0;	/* glibc: start over, forget the "+" of this parse */
	for (cmd = cmds; cmd->name; cmd++)
		if (!strcmp(argv[0], cmd->name))
			return cmd->func(argc, argv);
	usage_err(NULL, "unknown command '%s'", argv[0]);
}
