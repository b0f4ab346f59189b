// SPDX-License-Identifier: GPL-2.0
/*
 * `hpcc-probe host attach|detach DEV`: hpcc_host on DEV's tc
 * ingress, pinned under PIN_ROOT/host/DEV.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hpcc_flowcount.h"
#include "hpcc_maps.h"
#include "probe.h"
#include "hpcc_host.skel.h"

const char *host_usage =
	"Usage: " PROG " [-n NETNS] host attach DEV [--probe-dscp N] [--response-dscp N]\n"
	"                  [--reflect-rate N] [--reflect-burst N]\n"
	"                  [--peer-rate N] [--peer-burst N] [--rx-window]\n"
	"                  [--flow-epoch MS]\n"
	"       " PROG " [-n NETNS] host detach DEV\n"
	"\n"
	"Attach hpcc_host (probe reflector, response delivery to tcp_hpcc)\n"
	"to DEV's tc ingress; pinned under " PIN_ROOT "/host/DEV.\n"
	"DSCPs default to tcp_hpcc's probe_dscp/response_dscp parameters when\n"
	"the module is loaded, else 7/3. Probes are answered only for a\n"
	"connection of this host, and at most:\n"
	"  --reflect-rate N   probes/s, all of DEV's together (default 100000;\n"
	"                     0: no limit)\n"
	"  --reflect-burst N  probes at once beyond the rate (default 1000)\n"
	"  --peer-rate N      probes/s from one source address (default 25000;\n"
	"                     0: no per-peer limit)\n"
	"  --peer-burst N     probes at once from one source (default 250)\n"
	"  --rx-window        receiver-based HPCC: answer a probe that asks for\n"
	"                     a window with the window tcp_hpcc computes from its\n"
	"                     records (needs the module loaded here)\n"
	"  --flow-epoch MS    count the connections whose probes arrive over\n"
	"                     epochs of MS ms and put that N in each v2\n"
	"                     response (default 100; 0: not counted)\n";

/* What `host attach` was told; DSCPs -1 when not given. */
struct host_opts {
	const char *dev;
	int probe, resp;
	__u32 rate, burst;
	__u32 peer_rate, peer_burst;
	bool rx_window;
	__u32 flow_epoch_us;
};

/* --reflect-rate / --reflect-burst @s: 0..2^32-1 (@min: its least). */
static __u32 host_parse_count(const char *opt, const char *s, __u32 min)
{
	__u32 v;

	if (parse_u32(s, &v) || v < min)
		usage_err("host ", "bad %s '%s': expected an integer %u..%u",
			  opt, s, min, UINT32_MAX);
	return v;
}

/* Parse attach's options into @o: 1 when the help was printed. */
static int host_attach_args(int argc, char **argv, struct host_opts *o)
{
	static const struct option lo[] = {
		{ "probe-dscp", required_argument, NULL, 'p' },
		{ "response-dscp", required_argument, NULL, 'r' },
		{ "reflect-rate", required_argument, NULL, 'R' },
		{ "reflect-burst", required_argument, NULL, 'B' },
		{ "peer-rate", required_argument, NULL, 'P' },
		{ "peer-burst", required_argument, NULL, 'b' },
		{ "rx-window", no_argument, NULL, 'w' },
		{ "flow-epoch", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	o->probe = -1;
	o->resp = -1;
	o->rate = HPCC_REFLECT_RATE_DEFAULT;
	o->burst = HPCC_REFLECT_BURST_DEFAULT;
	o->peer_rate = HPCC_PEER_RATE_DEFAULT;
	o->peer_burst = HPCC_PEER_BURST_DEFAULT;
	o->flow_epoch_us = HPCC_FC_EPOCH_US_DEFAULT;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->probe = parse_dscp("--probe-dscp", optarg);
			break;
		case 'r':
			o->resp = parse_dscp("--response-dscp", optarg);
			break;
		case 'R':
			o->rate = host_parse_count("--reflect-rate", optarg, 0);
			break;
		case 'B':
			o->burst = host_parse_count("--reflect-burst", optarg,
						    1);
			break;
		case 'P':
			o->peer_rate = host_parse_count("--peer-rate", optarg,
							0);
			break;
		case 'b':
			o->peer_burst = host_parse_count("--peer-burst",
							 optarg, 1);
			break;
		case 'w':
			o->rx_window = true;
			break;
		case 'e':
			o->flow_epoch_us = host_parse_count("--flow-epoch",
							    optarg, 0);
			if (o->flow_epoch_us > 60000)
				usage_err("host ", "bad --flow-epoch '%s': expected 0..60000 ms",
					  optarg);
			o->flow_epoch_us *= 1000;
			break;
		case 'h':
			fputs(host_usage, stdout);
			return 1;
		default:
			usage_err("host ", "bad option");
		}
	}
	o->dev = attach_dev(argc, argv, "host ");
	return 0;
}

/* tcp_hpcc, if loaded, must have BTF: without it its kfunc is not
 * registered. Its DSCPs are the defaults.
 */
static void host_check_module(struct host_opts *o, struct modinfo *m)
{
	module_info(m);
	if (m->loaded && !m->btf)
		die("tcp_hpcc is loaded without BTF (%s missing): its kfunc is not registered and no response could be delivered; rebuild the module with BTF",
		    "/sys/kernel/btf/tcp_hpcc");
	if (o->rx_window && !m->loaded)
		warnmsg("--rx-window: tcp_hpcc is not loaded: probes asking for a window get their records until it is");
	dscp_defaults(&o->probe, &o->resp, "host attach");
	check_dscps(o->probe, o->resp, "host attach ");
}

/* Pins at @dir but no filter running them are left over: remove them. */
static void host_clear_stale(const char *dir, const char *dev, int ifindex)
{
	__u32 id;

	if (!exists(dir))
		return;
	id = pinned_prog_id(dir, PIN_HOST_PROG);
	if (id && id == tc_prog_id(ifindex, BPF_TC_INGRESS))
		die("hpcc_host is already attached to %s (detach it first: "
		    PROG " host detach %s)", dev, dev);
	warnmsg("removing stale pins %s (no matching filter on %s)", dir, dev);
	rm_pin_dir(dir);
}

/* hpcc_host, loaded and configured. */
static struct hpcc_host *host_load(const struct host_opts *o, bool raw_ip)
{
	struct hpcc_host_cfg cfg = {
		.probe_dscp = o->probe,
		.resp_dscp = o->resp,
		.flags = HPCC_CFG_F_DSCP | HPCC_CFG_F_REFLECT |
			 HPCC_CFG_F_PEER | (raw_ip ? HPCC_CFG_F_RAW_IP : 0) |
			 (o->rx_window ? HPCC_CFG_F_RX_WINDOW : 0) |
			 HPCC_CFG_F_FLOW_EPOCH,
		.flow_epoch_us = o->flow_epoch_us,
		.reflect_rate = o->rate,
		.reflect_burst = o->burst,
		.peer_rate = o->peer_rate,
		.peer_burst = o->peer_burst,
	};
	struct hpcc_host *skel;
	__u32 zero = 0;

	skel = hpcc_host__open_and_load();
	if (!skel)
		die("cannot load hpcc_host: %s%s", strerror(errno), vhint());
	if (bpf_map__update_elem(skel->maps.hpcc_host_cfg, &zero, sizeof(zero),
				 &cfg, sizeof(cfg), 0))
		die("cannot write hpcc_host_cfg: %s", strerror(errno));
	/* The domain's keys, if this namespace has them already. */
	keys_inherit(bpf_map__fd(skel->maps.hpcc_mac_keys));
	return skel;
}

/* Pin the program and its maps at @dir: 0 or -errno. */
static int host_pin(struct hpcc_host *skel, const char *dir)
{
	const struct pin_map maps[] = {
		{ skel->maps.hpcc_host_cfg, PIN_CFG_HOST },
		{ skel->maps.hpcc_counters, PIN_COUNTERS },
		{ skel->maps.hpcc_report_buf, "hpcc_report_buf" },
		{ skel->maps.hpcc_reflect_tb, "hpcc_reflect_tb" },
		{ skel->maps.hpcc_reflect_peer, "hpcc_reflect_peer" },
		{ skel->maps.hpcc_mac_keys, "hpcc_mac_keys" },
	};
	int err;

	err = mkdir_p(dir);
	if (err)
		return err;
	return pin_objects(dir, skel->progs.hpcc_host, PIN_HOST_PROG, maps,
			   ARRAY_SIZE(maps));
}

int cmd_host_attach(int argc, char **argv)
{
	char dir[PATH_MAX], name[IF_NAMESIZE], lim[64], plim[64];
	struct hpcc_host *skel;
	struct host_opts o;
	struct modinfo m;
	int ifindex, err;
	bool raw_ip;

	if (host_attach_args(argc, argv, &o))
		return 0;
	need_bpf_caps();
	ifindex = dev_index(o.dev);
	raw_ip = dev_raw_ip(o.dev, ifindex);
	host_check_module(&o, &m);

	ensure_bpffs();
	lock_pins();
	host_dir(dev_name(o.dev, ifindex, name), dir, sizeof(dir));
	host_clear_stale(dir, o.dev, ifindex);

	skel = host_load(&o, raw_ip);
	err = host_pin(skel, dir);
	if (err) {
		errmsg("cannot pin under %s: %s", dir, strerror(-err));
		goto err_unpin;
	}
	if (tc_slot_taken(o.dev, ifindex, BPF_TC_INGRESS))
		goto err_unpin;
	err = tc_attach_named(o.dev, ifindex, BPF_TC_INGRESS,
			      bpf_program__fd(skel->progs.hpcc_host), "hpcc_host");
	if (err)
		goto err_clsact;
	hpcc_host__destroy(skel);

	printf("host: hpcc_host attached to %s ingress (probe_dscp %d, response_dscp %d, %s, %s%s), pinned at %s\n",
	       o.dev, o.probe, o.resp, fmt_reflect(o.rate, o.burst, lim,
						   sizeof(lim)),
	       fmt_peer(o.peer_rate, o.peer_burst, plim, sizeof(plim)),
	       raw_ip ? ", raw IP device" : "", dir);
	if (!m.loaded)
		warnmsg("tcp_hpcc is not loaded: probes are reflected, but responses to local flows are dropped (counted as no_module); load the module, then detach and attach again to deliver them");
	return 0;

err_clsact:
	tc_clsact_gc(ifindex);
err_unpin:
	rm_pin_dir(dir);
	hpcc_host__destroy(skel);
	return 1;
}

/* The program holds a reference on tcp_hpcc (its kfunc) until the
 * kernel's deferred free: wait until program @id is gone or the module's
 * reference count fell below @refcnt, so that rmmod right after us works.
 */
static void host_wait_module_ref(__u32 id, int refcnt)
{
	int i, gone = 0;

	for (i = 0; refcnt > 0 && i < 200 && gone < 10; i++) {
		int now = sys_read_int("/sys/module/tcp_hpcc/refcnt");
		int fd;

		if (now < 0 || now < refcnt)
			break;
		/* Loaded before the module: no reference to wait for. */
		fd = id ? bpf_prog_get_fd_by_id(id) : -1;
		if (fd < 0)
			gone++;
		else
			close(fd);
		usleep(10000);
	}
}

int cmd_host_detach(int argc, char **argv)
{
	char dir[PATH_MAX], name[IF_NAMESIZE];
	int ifindex, refcnt;
	const char *dev;
	bool bpffs;
	__u32 id;

	if (help_only(argc, argv, "host ", host_usage))
		return 0;
	if (optind + 1 != argc)
		usage_err("host ", "host detach takes one device");
	dev = argv[optind];
	check_ifname("host ", dev);
	need_bpf_caps();
	ifindex = if_nametoindex(dev);
	host_dir(dev_name(dev, ifindex, name), dir, sizeof(dir));
	bpffs = find_bpffs(false);
	if (bpffs && exists(PIN_ROOT))
		lock_pins();
	if (!bpffs || !exists(dir)) {
		dev_index(dev);		/* dies on an unknown device */
		die("hpcc_host is not attached to %s", dev);
	}
	id = pinned_prog_id(dir, PIN_HOST_PROG);
	refcnt = sys_read_int("/sys/module/tcp_hpcc/refcnt");
	if (!ifindex)
		warnmsg("device %s is gone: removing its pins", dev);
	else if (!tc_detach(dev, ifindex, BPF_TC_INGRESS, id))
		warnmsg("no hpcc_host filter left on %s ingress: removing the pins",
			dev);
	rm_pin_dir(dir);
	host_wait_module_ref(id, refcnt);
	printf("host: hpcc_host detached from %s\n", dev);
	return 0;
}
