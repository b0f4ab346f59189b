// SPDX-License-Identifier: GPL-2.0
/*
 * host.c - `hpcc-probe host attach|detach DEV`: hpcc_host on DEV's tc
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

#include "hpcc_maps.h"
#include "probe.h"
#include "hpcc_host.skel.h"

const char *host_usage =
	"Usage: " PROG " [-n NETNS] host attach DEV [--probe-dscp N] "
	"[--response-dscp N]\n"
	"       " PROG " [-n NETNS] host detach DEV\n"
	"\n"
	"Attach hpcc_host (probe reflector, response delivery to tcp_hpcc)\n"
	"to DEV's tc ingress; pinned under " PIN_ROOT "/host/DEV.\n"
	"DSCPs default to tcp_hpcc's probe_dscp/response_dscp parameters when\n"
	"the module is loaded, else 45/46.\n";

int cmd_host_attach(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "probe-dscp", required_argument, NULL, 'p' },
		{ "response-dscp", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct hpcc_host_cfg cfg = {};
	struct hpcc_host *skel;
	struct modinfo m;
	int probe = -1, resp = -1, ifindex, c, err;
	char dir[PATH_MAX], name[IF_NAMESIZE];
	const char *dev;
	__u32 zero = 0, id;
	bool raw_ip;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'p': probe = parse_dscp("--probe-dscp", optarg); break;
		case 'r': resp = parse_dscp("--response-dscp", optarg); break;
		case 'h': fputs(host_usage, stdout); return 0;
		default: usage_err("host ", "bad option");
		}
	}
	if (optind + 1 != argc)
		usage_err("host ", "host attach takes one device");
	dev = argv[optind];
	check_ifname("host ", dev);
	need_bpf_caps();
	ifindex = dev_index(dev);
	raw_ip = dev_raw_ip(dev, ifindex);

	module_info(&m);
	if (m.loaded && !m.btf)
		die("tcp_hpcc is loaded without BTF (%s missing): its kfunc is "
		    "not registered and no response could be delivered; "
		    "rebuild the module with BTF", "/sys/kernel/btf/tcp_hpcc");
	dscp_defaults(&probe, &resp, "host attach");
	check_dscps(probe, resp, "host attach ");

	ensure_bpffs();
	lock_pins();
	host_dir(dev_name(dev, ifindex, name), dir, sizeof(dir));
	if (exists(dir)) {
		id = pinned_prog_id(dir, PIN_HOST_PROG);
		if (id && id == tc_prog_id(ifindex, BPF_TC_INGRESS))
			die("hpcc_host is already attached to %s (detach it "
			    "first: " PROG " host detach %s)", dev, dev);
		warnmsg("removing stale pins %s (no matching filter on %s)",
			dir, dev);
		rm_pin_dir(dir);
	}

	skel = hpcc_host__open_and_load();
	if (!skel)
		die("cannot load hpcc_host: %s%s", strerror(errno), vhint());
	cfg.probe_dscp = probe;
	cfg.resp_dscp = resp;
	cfg.flags = HPCC_CFG_F_DSCP | (raw_ip ? HPCC_CFG_F_RAW_IP : 0);
	if (bpf_map__update_elem(skel->maps.hpcc_host_cfg, &zero, sizeof(zero),
				 &cfg, sizeof(cfg), 0))
		die("cannot write hpcc_host_cfg: %s", strerror(errno));

	err = mkdir_p(dir);
	if (!err) {
		const struct pin_map maps[] = {
			{ skel->maps.hpcc_host_cfg, PIN_CFG_HOST },
			{ skel->maps.hpcc_counters, PIN_COUNTERS },
			{ skel->maps.hpcc_report_buf, "hpcc_report_buf" },
		};

		err = pin_objects(dir, skel->progs.hpcc_host, PIN_HOST_PROG,
				  maps, ARRAY_SIZE(maps));
	}
	if (err) {
		rm_pin_dir(dir);
		die("cannot pin under %s: %s", dir, strerror(-err));
	}
	/* Somebody else's filter at our handle and priority? */
	if (tc_prog_id(ifindex, BPF_TC_INGRESS)) {
		rm_pin_dir(dir);
		die("%s ingress already has a filter at handle 0x%x priority "
		    "%d", dev, TC_HANDLE, TC_PRIO);
	}
	{
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = BPF_TC_INGRESS);
		LIBBPF_OPTS(bpf_tc_opts, o, .handle = TC_HANDLE,
			    .priority = TC_PRIO,
			    .prog_fd = bpf_program__fd(skel->progs.hpcc_host));

		err = bpf_tc_hook_create(&hook);
		if (!err || err == -EEXIST)
			err = bpf_tc_attach(&hook, &o);
		if (err) {
			rm_pin_dir(dir);
			tc_clsact_gc(ifindex);
			die("cannot attach hpcc_host to %s ingress: %s", dev,
			    strerror(-err));
		}
	}
	hpcc_host__destroy(skel);

	printf("host: hpcc_host attached to %s ingress (probe_dscp %d, "
	       "response_dscp %d%s), pinned at %s\n", dev, probe, resp,
	       raw_ip ? ", raw IP device" : "", dir);
	if (!m.loaded)
		warnmsg("tcp_hpcc is not loaded: probes are reflected, but "
			"responses to local flows are dropped (counted as "
			"no_module); load the module, then detach and attach "
			"again to deliver them");
	return 0;
}

int cmd_host_detach(int argc, char **argv)
{
	char dir[PATH_MAX], name[IF_NAMESIZE];
	const char *dev;
	int ifindex, i, refcnt, gone;
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
		warnmsg("no hpcc_host filter left on %s ingress: removing the "
			"pins", dev);
	rm_pin_dir(dir);
	/* The program holds a reference on tcp_hpcc (its kfunc) until the
	 * kernel's deferred free: wait for it so that rmmod right after
	 * us works.
	 */
	for (i = 0, gone = 0; refcnt > 0 && i < 200 && gone < 10; i++) {
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
	printf("host: hpcc_host detached from %s\n", dev);
	return 0;
}

