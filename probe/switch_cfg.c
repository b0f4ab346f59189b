// SPDX-License-Identifier: GPL-2.0
/*
 * `hpcc-probe switch attach|detach`'s command line: the usage, the options
 * (--rate in tc's syntax, the ids, the DSCPs, --edge, --qos), the default
 * switch id, and the port config they make. switch.c, which owns the instance
 * and the tc filters, is its only caller; it calls only the common layer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>

#include "hpcc_maps.h"
#include "probe.h"

/* Rates as tc(8) parses them: a number and an optional unit; a bare
 * number is bit/s, "bps" units are bytes/s (and, tc matching units
 * case-insensitively, so is "mbps").
 */
static const struct {
	const char *name;
	double scale;
} rate_units[] = {
	{ "bit", 1. },		{ "kibit", 1024. },
	{ "kbit", 1000. },	{ "mibit", 1048576. },
	{ "mbit", 1e6 },	{ "gibit", 1073741824. },
	{ "gbit", 1e9 },	{ "tibit", 1099511627776. },
	{ "tbit", 1e12 },	{ "bps", 8. },
	{ "kibps", 8. * 1024 },	{ "kbps", 8e3 },
	{ "mibps", 8. * 1048576 }, { "mbps", 8e6 },
	{ "gibps", 8. * 1073741824 }, { "gbps", 8e9 },
	{ "tibps", 8. * 1099511627776 }, { "tbps", 8e12 },
};

static __u32 parse_rate(const char *s)
{
	double bits, mb;
	size_t i;
	char *end;

	if (!s || !((*s >= '0' && *s <= '9') || *s == '.'))
		goto bad;
	errno = 0;
	bits = strtod(s, &end);
	if (end == s || errno || !isfinite(bits) ||
	    (end - s > 1 && (s[1] == 'x' || s[1] == 'X')))
		goto bad;
	if (*end) {
		for (i = 0; i < ARRAY_SIZE(rate_units); i++)
			if (!strcasecmp(end, rate_units[i].name))
				break;
		if (i == ARRAY_SIZE(rate_units))
			goto bad;
		bits *= rate_units[i].scale;
	}
	mb = bits / 1e6;
	if (mb < 1.)
		usage_err("switch attach ", "bad rate '%s': must be at least 1 Mbit/s",
			  s);
	if (mb > (double)UINT32_MAX)
		usage_err("switch attach ", "bad rate '%s': must be at most %u Mbit/s",
			  s, UINT32_MAX);
	if (fabs(mb - round(mb)) > 1e-6)
		warnmsg("rate %s is %.3f Mbit/s: hops carry whole Mbit/s, using %.0f",
			s, mb, round(mb));
	return (__u32)round(mb);
bad:
	usage_err("switch attach ", "bad rate '%s': expected a number with an optional tc unit (bit, kbit, mbit, gbit, tbit, bps, kbps...), e.g. 100mbit or 10gbit",
		  s ? s : "");
}

const char *switch_usage =
	"Usage: " PROG " [-n NETNS] switch attach DEV --rate RATE [--switch-id N] [--port-id N]\n"
	"                  [--probe-dscp N] [--response-dscp N] [--anon]\n"
	"                  [--qos CLASSID,RATE,DSCP]\n"
	"       " PROG " [-n NETNS] switch attach DEV --edge [--rate RATE] ...\n"
	"       " PROG " [-n NETNS] switch detach DEV | --all\n"
	"\n"
	"Stamp HPCC probes leaving DEV (tc egress) with DEV's queue state.\n"
	"One hpcc_switch instance per network namespace, pinned under\n"
	PIN_ROOT "/switch (or .../netns/COOKIE/switch); further ports\n"
	"join it.\n"
	"  --rate RATE      link capacity, tc syntax: 100mbit, 10gbit, 1.5gbit,\n"
	"                   400000kbit; a bare number is bit/s; >= 1mbit\n"
	"  --edge           DEV faces outside the telemetry domain: nothing is\n"
	"                   stamped, probes and responses leaving or coming in\n"
	"                   lose their records, probes coming in are dropped\n"
	"                   (hpcc_edge_in on DEV's tc ingress); no --rate needed\n"
	"  --anon           anonymised records (version 2 probes): no capacity,\n"
	"                   the queue as drain time and the bytes as busy time\n"
	"                   (ratios); version 1 probes get empty records\n"
	"  --switch-id N    default: the instance's existing ports' id, else\n"
	"                   the namespace's lowest non-loopback IPv4 address\n"
	"                   as a 32-bit number, else a hash of the hostname\n"
	"  --port-id N      default: DEV's ifindex\n"
	"  --qos CLASSID,RATE,DSCP  DEV's root qdisc is classful (htb, drr,\n"
	"                   ets): stamp hpcc's class CLASSID (tc syntax, 1:10)\n"
	"                   whose data carry DSCP and whose guaranteed rate\n"
	"                   is RATE, not the whole port; probes and responses\n"
	"                   go to CLASSID (skb->priority). tcp_hpcc.rst, \"HPCC\n"
	"                   under QoS queuing\"\n"
	"  --all            (detach) every port, then unload the instance\n";


/* FNV-1a: a stable 32-bit value from a string. */
static __u32 fnv1a(const char *s)
{
	__u32 h = 2166136261U;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619U;
	}
	return h;
}

/* The namespace's lowest IPv4 address but loopback's, 0 if none. */
static __u32 lowest_ipv4(void)
{
	struct ifaddrs *ifa, *i;
	__u32 best = 0;

	if (getifaddrs(&ifa))
		return 0;
	for (i = ifa; i; i = i->ifa_next) {
		__u32 a;

		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
		    (i->ifa_flags & IFF_LOOPBACK))
			continue;
		a = ntohl(((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr);
		if ((a >> 24) == 127 || !a)
			continue;
		if (!best || a < best)
			best = a;
	}
	freeifaddrs(ifa);
	return best;
}

/* Default switch id: the lowest non-loopback IPv4 address of the namespace
 * (like a router id), else FNV-1a of the hostname. @how says which.
 */
__u32 default_switch_id(char *how, size_t len)
{
	__u32 best = lowest_ipv4();
	char host[256] = "";

	if (best) {
		struct in_addr in = { .s_addr = htonl(best) };
		char addr[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &in, addr, sizeof(addr));
		snprintf(how, len, "from IPv4 address %s", addr);
		return best;
	}
	gethostname(host, sizeof(host) - 1);
	snprintf(how, len, "from hostname '%s'", host);
	return fnv1a(host);
}

/* --switch-id or --port-id @s, a number 0..2^32-1. */
static __u32 sw_parse_id(const char *what, const char *s)
{
	__u32 v;

	if (parse_u32(s, &v))
		usage_err("switch attach ", "bad %s id '%s': expected an integer 0..%u",
			  what, s, UINT32_MAX);
	return v;
}

/* --qos CLASSID,RATE,DSCP into @o. */
static void sw_parse_qos(const char *arg, struct sw_opts *o)
{
	char buf[128], *rate, *dscp, *end;
	unsigned long maj, min;
	__u32 v;

	snprintf(buf, sizeof(buf), "%s", arg);
	rate = strchr(buf, ',');
	dscp = rate ? strchr(rate + 1, ',') : NULL;
	if (!dscp)
		usage_err("switch attach ", "bad --qos '%s': expected CLASSID,RATE,DSCP, e.g. 1:10,400mbit,10",
			  arg);
	*rate++ = 0;
	*dscp++ = 0;
	errno = 0;
	maj = strtoul(buf, &end, 16);
	min = *end == ':' ? strtoul(end + 1, &end, 16) : 0;
	if (errno || *end || !strchr(buf, ':') || !maj || !min ||
	    maj > 0xffff || min > 0xffff)
		usage_err("switch attach ", "bad --qos class '%s': expected MAJOR:MINOR in hex, both non-zero, as tc prints classids (1:10)",
			  buf);
	o->qos_classid = (__u32)(maj << 16 | min);
	o->qos_mbps = parse_rate(rate);
	/* The data's DSCP may be 0 (best effort), unlike a probe's. */
	if (parse_u32(dscp, &v) || v > 63)
		usage_err("switch attach ", "bad --qos DSCP '%s': expected 0..63",
			  dscp);
	o->qos_dscp = (int)v;
}

/* Parse attach's options into @o: 1 when the help was printed. */
int sw_attach_args(int argc, char **argv, struct sw_opts *o)
{
	static const struct option lo[] = {
		{ "rate", required_argument, NULL, 'R' },
		{ "switch-id", required_argument, NULL, 's' },
		{ "port-id", required_argument, NULL, 'P' },
		{ "probe-dscp", required_argument, NULL, 'p' },
		{ "response-dscp", required_argument, NULL, 'r' },
		{ "edge", no_argument, NULL, 'E' },
		{ "qos", required_argument, NULL, 'Q' },
		{ "anon", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->probe = -1;
	o->resp = -1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'R':
			o->rate = optarg;
			break;
		case 's':
			o->sid = sw_parse_id("switch", optarg);
			o->have_sid = true;
			break;
		case 'P':
			o->pid = sw_parse_id("port", optarg);
			o->have_pid = true;
			break;
		case 'p':
			o->probe = parse_dscp("--probe-dscp", optarg);
			break;
		case 'r':
			o->resp = parse_dscp("--response-dscp", optarg);
			break;
		case 'E':
			o->edge = true;
			break;
		case 'Q':
			sw_parse_qos(optarg, o);
			break;
		case 'A':
			o->anon = true;
			break;
		case 'h':
			fputs(switch_usage, stdout);
			return 1;
		default:
			usage_err("switch ", "bad option");
		}
	}
	o->dev = attach_dev(argc, argv, "switch ");
	/* An edge port stamps nothing: its capacity is not needed. */
	if (!o->rate && !o->edge)
		usage_err("switch ", "switch attach needs --rate RATE (the link capacity, e.g. 10gbit)");
	if (o->rate)
		o->rate_mbps = parse_rate(o->rate);
	if (o->qos_classid && (o->edge || o->qos_mbps > o->rate_mbps))
		usage_err("switch ", "--qos: not on an edge port, and the class's rate at most --rate");
	return 0;
}

/* The port's config as given (@o) or defaulted. */
void sw_port_cfg(const struct sw_opts *o, bool raw_ip,
		 struct hpcc_port_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->switch_id = o->sid;
	cfg->port_id = o->have_pid ? o->pid : 0;
	cfg->rate_mbps = o->rate_mbps;
	cfg->probe_dscp = o->probe;
	cfg->resp_dscp = o->resp;
	cfg->flags = HPCC_PORT_F_DSCP |
		     (o->have_pid ? HPCC_PORT_F_PORT_ID : 0) |
		     (raw_ip ? HPCC_PORT_F_RAW_IP : 0) |
		     (o->edge ? HPCC_PORT_F_EDGE : 0) |
		     (o->qos_classid ? HPCC_PORT_F_QOS : 0) |
		     (o->anon ? HPCC_PORT_F_ANON : 0);
	cfg->netns_cookie = netns_cookie();
	cfg->qos_classid = o->qos_classid;
	cfg->qos_rate_mbps = o->qos_mbps;
	cfg->qos_dscp = (__u8)(o->qos_classid ? o->qos_dscp : 0);
}

/* Parse detach's options: 1 when the help was printed. @dev is NULL for
 * --all.
 */
int sw_detach_args(int argc, char **argv, const char **dev)
{
	static const struct option lo[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	bool all = false;
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = true;
			break;
		case 'h':
			fputs(switch_usage, stdout);
			return 1;
		default:
			usage_err("switch ", "bad option");
		}
	}
	if (all ? optind != argc : optind + 1 != argc)
		usage_err("switch ", "switch detach takes one device or --all");
	*dev = all ? NULL : argv[optind];
	if (*dev)
		check_ifname("switch ", *dev);
	return 0;
}
