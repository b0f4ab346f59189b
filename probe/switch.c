// SPDX-License-Identifier: GPL-2.0
/*
 * switch.c - `hpcc-probe switch attach|detach DEV`: hpcc_switch on
 * DEV's tc egress, one instance per network namespace, pinned under
 * PIN_ROOT/switch.
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
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hpcc_maps.h"
#include "probe.h"
#include "hpcc_switch.skel.h"

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
		usage_err("switch attach ", "bad rate '%s': must be at least "
			  "1 Mbit/s", s);
	if (mb > (double)UINT32_MAX)
		usage_err("switch attach ", "bad rate '%s': must be at most "
			  "%u Mbit/s", s, UINT32_MAX);
	if (fabs(mb - round(mb)) > 1e-6)
		warnmsg("rate %s is %.3f Mbit/s: hops carry whole Mbit/s, "
			"using %.0f", s, mb, round(mb));
	return (__u32)round(mb);
bad:
	usage_err("switch attach ", "bad rate '%s': expected a number with "
		  "an optional tc unit (bit, kbit, mbit, gbit, tbit, bps, "
		  "kbps...), e.g. 100mbit or 10gbit", s ? s : "");
}

const char *switch_usage =
	"Usage: " PROG " [-n NETNS] switch attach DEV --rate RATE "
	"[--switch-id N] [--port-id N]\n"
	"                  [--probe-dscp N] [--response-dscp N]\n"
	"       " PROG " [-n NETNS] switch detach DEV | --all\n"
	"\n"
	"Stamp HPCC probes leaving DEV (tc egress) with DEV's queue state.\n"
	"One hpcc_switch instance per network namespace, pinned under\n"
	PIN_ROOT "/switch (or .../netns/COOKIE/switch); further ports\n"
	"join it.\n"
	"  --rate RATE      link capacity, tc syntax: 100mbit, 10gbit, 1.5gbit,\n"
	"                   400000kbit; a bare number is bit/s; >= 1mbit\n"
	"  --switch-id N    default: the instance's existing ports' id, else\n"
	"                   the namespace's lowest non-loopback IPv4 address\n"
	"                   as a 32-bit number, else a hash of the hostname\n"
	"  --port-id N      default: DEV's ifindex\n"
	"  --all            (detach) every port, then unload the instance\n";

/* Drop the config of ports whose device is gone or no longer carries our
 * filter (deleted device, clsact removed by hand): the config only means
 * something where the program runs, and a new device could inherit the
 * ifindex. Returns how many were dropped.
 */
static int sw_prune(struct sw *s)
{
	__u32 keys[256], key, *prev = NULL;
	char name[IF_NAMESIZE];
	int n = 0, i, pruned = 0;

	while (n < 256 && !bpf_map_get_next_key(s->cfg, prev, &key)) {
		keys[n] = key;
		prev = &keys[n++];
	}
	for (i = 0; i < n; i++) {
		bool gone = !if_indextoname(keys[i], name);

		if (!gone && tc_prog_id(keys[i], BPF_TC_EGRESS) == s->prog_id)
			continue;
		bpf_map_delete_elem(s->cfg, &keys[i]);
		bpf_map_delete_elem(s->qsnap, &keys[i]);
		warnmsg("dropped the config of port %s (ifindex %u): %s",
			gone ? "?" : name, keys[i], gone ? "device gone" :
			"no hpcc_switch filter on its egress any more");
		pruned++;
	}
	return pruned;
}

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

/* Default switch id: the lowest non-loopback IPv4 address of the namespace
 * (like a router id), else FNV-1a of the hostname. @how says which.
 */
static __u32 default_switch_id(char *how, size_t len)
{
	struct ifaddrs *ifa, *i;
	__u32 best = 0, a;
	char host[256] = "";

	if (!getifaddrs(&ifa)) {
		for (i = ifa; i; i = i->ifa_next) {
			if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
			    (i->ifa_flags & IFF_LOOPBACK))
				continue;
			a = ntohl(((struct sockaddr_in *)i->ifa_addr)->
				  sin_addr.s_addr);
			if ((a >> 24) == 127 || !a)
				continue;
			if (!best || a < best)
				best = a;
		}
		freeifaddrs(ifa);
	}
	if (best) {
		struct in_addr in = { .s_addr = htonl(best) };

		snprintf(how, len, "from IPv4 address %s", inet_ntoa(in));
		return best;
	}
	gethostname(host, sizeof(host) - 1);
	snprintf(how, len, "from hostname '%s'", host);
	return fnv1a(host);
}

int cmd_switch_attach(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "rate", required_argument, NULL, 'R' },
		{ "switch-id", required_argument, NULL, 's' },
		{ "port-id", required_argument, NULL, 'P' },
		{ "probe-dscp", required_argument, NULL, 'p' },
		{ "response-dscp", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct hpcc_port_cfg cfg = {}, old;
	struct hpcc_switch *skel = NULL;
	char dir[PATH_MAX], path[PATH_MAX];
	const char *dev, *rate_s = NULL;
	bool have_sid = false, have_pid = false, fresh, raw_ip;
	int probe = -1, resp = -1, ifindex, c, err;
	__u32 sid = 0, pid = 0, key, nkey;
	char how[128] = "given", qkind[64];
	struct sw s;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'R': rate_s = optarg; break;
		case 's':
			if (parse_u32(optarg, &sid))
				usage_err("switch attach ", "bad switch id '%s':"
					  " expected an integer 0..%u", optarg,
					  UINT32_MAX);
			have_sid = true;
			break;
		case 'P':
			if (parse_u32(optarg, &pid))
				usage_err("switch attach ", "bad port id '%s': "
					  "expected an integer 0..%u", optarg,
					  UINT32_MAX);
			have_pid = true;
			break;
		case 'p': probe = parse_dscp("--probe-dscp", optarg); break;
		case 'r': resp = parse_dscp("--response-dscp", optarg); break;
		case 'h': fputs(switch_usage, stdout); return 0;
		default: usage_err("switch ", "bad option");
		}
	}
	if (optind + 1 != argc)
		usage_err("switch ", "switch attach takes one device");
	dev = argv[optind];
	check_ifname("switch ", dev);
	if (!rate_s)
		usage_err("switch ", "switch attach needs --rate RATE (the "
			  "link capacity, e.g. 10gbit)");
	cfg.rate_mbps = parse_rate(rate_s);
	need_bpf_caps();
	ifindex = dev_index(dev);
	raw_ip = dev_raw_ip(dev, ifindex);
	dscp_defaults(&probe, &resp, "switch attach");
	check_dscps(probe, resp, "switch attach ");

	ensure_bpffs();
	lock_pins();
	switch_dir(dir, sizeof(dir));
	fresh = !exists(pin_path(dir, PIN_SW_PROG, path, sizeof(path)));
	if (!fresh) {
		if (sw_open(dir, &s))
			die("broken hpcc_switch instance at %s (remove it: "
			    PROG " switch detach --all)", dir);
		sw_prune(&s);
		key = ifindex;
		if (!bpf_map_lookup_elem(s.cfg, &key, &old))
			die("hpcc_switch is already attached to %s (detach it "
			    "first: " PROG " switch detach %s)", dev, dev);
		/* The switch id belongs to the instance: take the others'. */
		if (!have_sid && !bpf_map_get_next_key(s.cfg, NULL, &nkey) &&
		    !bpf_map_lookup_elem(s.cfg, &nkey, &old)) {
			sid = old.switch_id;
			have_sid = true;
			snprintf(how, sizeof(how), "this switch's other ports");
		}
	} else {
		if (exists(dir)) {
			warnmsg("removing stale pins %s", dir);
			rm_pin_dir(dir);
		}
		skel = hpcc_switch__open_and_load();
		if (!skel)
			die("cannot load hpcc_switch: %s%s", strerror(errno),
			    vhint());
		err = mkdir_p(dir);
#define ATTACH_PIN(p)							\
		if (!err) {						\
			skel->links.p = bpf_program__attach(skel->progs.p); \
			err = skel->links.p ? 0 : -errno;		\
			if (err)					\
				warnmsg("cannot attach " #p ": %s%s",	\
					strerror(-err), vhint());	\
		}							\
		if (!err)						\
			err = bpf_link__pin(skel->links.p,		\
					    pin_path(dir, "link_" #p, path,	\
						     sizeof(path)));
		ATTACH_PIN(hpcc_qdisc_enqueue)
		ATTACH_PIN(hpcc_qdisc_dequeue)
		ATTACH_PIN(hpcc_dev_start_xmit)
#undef ATTACH_PIN
		if (!err) {
			const struct pin_map maps[] = {
				{ skel->maps.hpcc_port_cfg, PIN_CFG_PORT },
				{ skel->maps.hpcc_qsnap, PIN_QSNAP },
				{ skel->maps.hpcc_counters, PIN_COUNTERS },
				{ skel->maps.hpcc_pcpu_probe, "hpcc_pcpu_probe" },
			};

			err = pin_objects(dir, skel->progs.hpcc_switch,
					  PIN_SW_PROG, maps, ARRAY_SIZE(maps));
		}
		if (err) {
			rm_pin_dir(dir);
			die("cannot set up hpcc_switch under %s: %s", dir,
			    strerror(-err));
		}
		if (sw_open(dir, &s)) {
			rm_pin_dir(dir);
			die("cannot reopen the pins under %s", dir);
		}
	}

	if (!have_sid)
		sid = default_switch_id(how, sizeof(how));
	cfg.switch_id = sid;
	cfg.port_id = have_pid ? pid : 0;
	cfg.probe_dscp = probe;
	cfg.resp_dscp = resp;
	cfg.flags = HPCC_PORT_F_DSCP | (have_pid ? HPCC_PORT_F_PORT_ID : 0) |
		    (raw_ip ? HPCC_PORT_F_RAW_IP : 0);
	cfg.netns_cookie = netns_cookie();
	key = ifindex;
	bpf_map_delete_elem(s.qsnap, &key);	/* an old device's snapshot */
	err = bpf_map_update_elem(s.cfg, &key, &cfg, BPF_ANY);
	if (err) {
		if (fresh)
			rm_pin_dir(dir);
		die("cannot write the port config: %s", strerror(errno));
	}
	if (tc_prog_id(ifindex, BPF_TC_EGRESS)) {
		bpf_map_delete_elem(s.cfg, &key);
		if (fresh)
			rm_pin_dir(dir);
		die("%s egress already has a filter at handle 0x%x priority %d",
		    dev, TC_HANDLE, TC_PRIO);
	}
	{
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = BPF_TC_EGRESS);
		LIBBPF_OPTS(bpf_tc_opts, o, .handle = TC_HANDLE,
			    .priority = TC_PRIO, .prog_fd = s.prog);

		err = bpf_tc_hook_create(&hook);
		if (!err || err == -EEXIST)
			err = bpf_tc_attach(&hook, &o);
		if (err) {
			bpf_map_delete_elem(s.cfg, &key);
			if (fresh)
				rm_pin_dir(dir);
			tc_clsact_gc(ifindex);
			die("cannot attach hpcc_switch to %s egress: %s", dev,
			    strerror(-err));
		}
	}
	if (skel)
		hpcc_switch__destroy(skel);

	printf("switch: hpcc_switch attached to %s egress: switch_id %u (%s), "
	       "port_id %u, rate %u Mbit/s, probe_dscp %d, response_dscp %d%s"
	       "%s\n", dev, sid, how, have_pid ? pid : (__u32)ifindex,
	       cfg.rate_mbps, probe, resp, raw_ip ? ", raw IP device" : "",
	       fresh ? "" : " (joined the namespace's instance)");
	if (!nl_root_qdisc(ifindex, qkind, sizeof(qkind)) &&
	    !strcmp(qkind, "noqueue"))
		warnmsg("%s has no queue (root qdisc noqueue): there is no "
			"backlog to measure and hops will report queue 0 and "
			"tx_bytes 0; add a qdisc, e.g. 'tc qdisc replace dev "
			"%s root fq_codel' or one shaped to the rate "
			"('... root tbf rate %s burst 64kb latency 50ms')",
			dev, dev, rate_s);
	return 0;
}

/* Take port @ifindex out of the instance. */
static void sw_detach_port(struct sw *s, int ifindex)
{
	char name[IF_NAMESIZE] = "";
	__u32 key = ifindex;

	if (if_indextoname(ifindex, name)) {
		if (!tc_detach(name, ifindex, BPF_TC_EGRESS, s->prog_id))
			warnmsg("no hpcc_switch filter left on %s egress", name);
	}
	bpf_map_delete_elem(s->cfg, &key);
	bpf_map_delete_elem(s->qsnap, &key);
	printf("switch: hpcc_switch detached from %s\n",
	       name[0] ? name : "(device gone)");
}

int cmd_switch_detach(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct hpcc_port_cfg cfg;
	const char *dev = NULL;
	char dir[PATH_MAX];
	bool all = false, had, bpffs;
	__u32 key, next;
	int c, ifindex = 0;
	struct sw s;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'a': all = true; break;
		case 'h': fputs(switch_usage, stdout); return 0;
		default: usage_err("switch ", "bad option");
		}
	}
	if (all ? optind != argc : optind + 1 != argc)
		usage_err("switch ", "switch detach takes one device or --all");
	if (!all) {
		dev = argv[optind];
		check_ifname("switch ", dev);
	}
	need_bpf_caps();
	if (dev)
		ifindex = dev_index(dev);
	switch_dir(dir, sizeof(dir));
	bpffs = find_bpffs(false);
	if (bpffs && exists(PIN_ROOT))
		lock_pins();
	if (!bpffs || !exists(dir))
		die("hpcc_switch is not attached %s%s", dev ? "to " : "in this "
		    "network namespace", dev ? dev : "");
	if (sw_open(dir, &s)) {
		if (!all)
			die("broken hpcc_switch instance at %s (remove it: "
			    PROG " switch detach --all)", dir);
		rm_pin_dir(dir);
		printf("switch: removed the broken instance at %s\n", dir);
		return 0;
	}
	key = ifindex;
	had = dev && !bpf_map_lookup_elem(s.cfg, &key, &cfg);
	sw_prune(&s);
	if (all) {
		while (!bpf_map_get_next_key(s.cfg, NULL, &next))
			sw_detach_port(&s, next);
	} else if (!had) {
		die("hpcc_switch is not attached to %s", dev);
	} else if (bpf_map_lookup_elem(s.cfg, &key, &cfg)) {
		printf("switch: hpcc_switch detached from %s (its filter was "
		       "already gone)\n", dev);
	} else {
		sw_detach_port(&s, ifindex);
	}
	if (bpf_map_get_next_key(s.cfg, NULL, &next)) {
		rm_pin_dir(dir);
		printf("switch: no port left, hpcc_switch unloaded\n");
	}
	return 0;
}

