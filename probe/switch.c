// SPDX-License-Identifier: GPL-2.0
/*
 * `hpcc-probe switch attach|detach DEV`: hpcc_switch on
 * DEV's tc egress, one instance per network namespace, pinned under
 * PIN_ROOT/switch. The command line and the port config it makes are
 * switch_cfg.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hpcc_maps.h"
#include "probe.h"
#include "hpcc_switch.skel.h"

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
		if (!gone && s->edge_prog_id)
			tc_detach(name, keys[i], BPF_TC_INGRESS,
				  s->edge_prog_id);
		bpf_map_delete_elem(s->cfg, &keys[i]);
		bpf_map_delete_elem(s->qsnap, &keys[i]);
		warnmsg("dropped the config of port %s (ifindex %u): %s",
			gone ? "?" : name, keys[i], gone ? "device gone" :
			"no hpcc_switch filter on its egress any more");
		pruned++;
	}
	return pruned;
}

/* The value size of map @fd, 0 if unknown. */
static __u32 map_value_size(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.value_size;
}

/* Join the namespace's instance at @dir: its pins open in @s, its stale
 * ports dropped. Unless given, the switch id is the instance's (@how
 * says so).
 */
static void sw_join(const char *dir, struct sw *s, int ifindex,
		    struct sw_opts *o, char *how, size_t len)
{
	struct hpcc_port_cfg old;
	__u32 key = ifindex, other;

	if (sw_open(dir, s))
		die("broken hpcc_switch instance at %s (remove it: " PROG " switch detach --all)",
		    dir);
	sw_prune(s);
	/* The QoS fields were appended: an older instance's entries end
	 * before them and would drop them.
	 */
	if (o->qos_classid && map_value_size(s->cfg) < sizeof(old))
		die("this namespace's hpcc_switch instance predates --qos: detach it (" PROG " switch detach --all) and attach its ports again");
	if (!bpf_map_lookup_elem(s->cfg, &key, &old))
		die("hpcc_switch is already attached to %s (detach it first: " PROG " switch detach %s)",
		    o->dev, o->dev);
	/* The switch id belongs to the instance: take the others'. */
	if (!o->have_sid && !bpf_map_get_next_key(s->cfg, NULL, &other) &&
	    !bpf_map_lookup_elem(s->cfg, &other, &old)) {
		o->sid = old.switch_id;
		o->have_sid = true;
		snprintf(how, len, "this switch's other ports");
	}
}

/* Attach the qdisc tracing programs (the queue state), pin their links
 * at @dir: 0 or -errno.
 */
static int sw_pin_links(struct hpcc_switch *skel, const char *dir)
{
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
	} t[] = {
		{ skel->progs.hpcc_qdisc_enqueue, &skel->links.hpcc_qdisc_enqueue },
		{ skel->progs.hpcc_qdisc_dequeue, &skel->links.hpcc_qdisc_dequeue },
		{ skel->progs.hpcc_dev_start_xmit, &skel->links.hpcc_dev_start_xmit },
	};
	char name[NAME_MAX + 1], path[PATH_MAX];
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		const char *prog = bpf_program__name(t[i].prog);

		*t[i].link = bpf_program__attach(t[i].prog);
		if (!*t[i].link) {
			err = -errno;
			warnmsg("cannot attach %s: %s%s", prog, strerror(-err),
				vhint());
			return err;
		}
		snprintf(name, sizeof(name), "link_%s", prog);
		err = bpf_link__pin(*t[i].link,
				    pin_path(dir, name, path, sizeof(path)));
		if (err)
			return err;
	}
	return 0;
}

/* The namespace's instance, new at @dir: loaded, its tracing links, its
 * program and maps pinned, the pins open in @s. 0, or -1 when it could not
 * be set up (reported, nothing left behind).
 */
static int sw_create(const char *dir, struct sw *s)
{
	char path[PATH_MAX];
	struct hpcc_switch *skel;
	int err;

	*s = (struct sw)SW_CLOSED;
	if (exists(dir)) {
		warnmsg("removing stale pins %s", dir);
		rm_pin_dir(dir);
	}
	skel = hpcc_switch__open_and_load();
	if (!skel)
		die("cannot load hpcc_switch: %s%s", strerror(errno), vhint());
	err = mkdir_p(dir);
	if (!err)
		err = sw_pin_links(skel, dir);
	if (!err) {
		const struct pin_map maps[] = {
			{ skel->maps.hpcc_port_cfg, PIN_CFG_PORT },
			{ skel->maps.hpcc_qsnap, PIN_QSNAP },
			{ skel->maps.hpcc_counters, PIN_COUNTERS },
			{ skel->maps.hpcc_pcpu_probe, "hpcc_pcpu_probe" },
			{ skel->maps.hpcc_mac_keys, "hpcc_mac_keys" },
		};

		err = pin_objects(dir, skel->progs.hpcc_switch, PIN_SW_PROG,
				  maps, ARRAY_SIZE(maps));
	}
	if (!err)
		err = bpf_program__pin(skel->progs.hpcc_edge_in,
				       pin_path(dir, PIN_EDGE_PROG, path,
						sizeof(path)));
	if (err) {
		errmsg("cannot set up hpcc_switch under %s: %s", dir,
		       strerror(-err));
		goto err_unpin;
	}
	if (sw_open(dir, s)) {
		errmsg("cannot reopen the pins under %s", dir);
		goto err_unpin;
	}
	/* The pins hold everything now. */
	hpcc_switch__destroy(skel);
	return 0;

err_unpin:
	sw_close(s);
	rm_pin_dir(dir);
	hpcc_switch__destroy(skel);
	return -1;
}

/* Can @o's port be an edge port of instance @s? 0, or -1 when not (said
 * why): the instance must have hpcc_edge_in, and DEV's ingress must be
 * free at our handle (an hpcc_host there would answer probes from
 * outside before they could be dropped).
 */
static int sw_edge_check(const struct sw *s, const struct sw_opts *o,
			 int ifindex)
{
	__u32 cur;

	if (s->edge_prog < 0 || !s->edge_prog_id) {
		errmsg("this namespace's hpcc_switch instance predates edge ports (no " PIN_EDGE_PROG " pinned): detach it (" PROG " switch detach --all) and attach its ports again");
		return -1;
	}
	cur = tc_prog_id(ifindex, BPF_TC_INGRESS);
	if (cur) {
		errmsg("%s ingress already has a filter at handle 0x%x priority %d (prog id %u; hpcc_host?): an edge port cannot also be a host device",
		       o->dev, TC_HANDLE, TC_PRIO, cur);
		return -1;
	}
	return 0;
}

/* What attach did, and a warning when the port has no queue to measure. */
static void sw_attach_report(const struct sw_opts *o, int ifindex,
			     const char *how, bool raw_ip, bool fresh)
{
	static const char edge[] =
		", edge port (records stripped both ways, probes from outside dropped)";
	char qkind[64];

	printf("switch: hpcc_switch attached to %s egress%s: switch_id %u (%s), port_id %u, rate %u Mbit/s, probe_dscp %d, response_dscp %d%s%s%s\n",
	       o->dev, o->edge ? " and hpcc_edge_in to its ingress" : "",
	       o->sid, how, o->have_pid ? o->pid : (__u32)ifindex,
	       o->rate_mbps, o->probe, o->resp,
	       o->edge ? edge : o->anon ? ", anonymised records" : "",
	       raw_ip ? ", raw IP device" : "",
	       fresh ? "" : " (joined the namespace's instance)");
	if (o->edge)
		return;		/* it measures nothing */
	if (o->qos_classid)
		printf("switch: %s stamps class %x:%x (data DSCP %d, guaranteed %u Mbit/s; the port's %u when the other classes have nothing queued)\n",
		       o->dev, o->qos_classid >> 16, o->qos_classid & 0xffff,
		       o->qos_dscp, o->qos_mbps, o->rate_mbps);
	if (o->qos_classid && !nl_root_qdisc(ifindex, qkind, sizeof(qkind)) &&
	    strcmp(qkind, "htb") && strcmp(qkind, "drr") &&
	    strcmp(qkind, "ets"))
		warnmsg("%s's root qdisc is %s: --qos expects htb, drr or ets at the root, with class %x:%x",
			o->dev, qkind, o->qos_classid >> 16,
			o->qos_classid & 0xffff);
	if (!nl_root_qdisc(ifindex, qkind, sizeof(qkind)) &&
	    !strcmp(qkind, "noqueue"))
		warnmsg("%s has no queue (root qdisc noqueue): there is no backlog to measure and hops will report queue 0 and tx_bytes 0; add a qdisc, e.g. 'tc qdisc replace dev %s root fq_codel' or one shaped to the rate ('... root tbf rate %s burst 64kb latency 50ms')",
			o->dev, o->dev, o->rate);
}

int cmd_switch_attach(int argc, char **argv)
{
	char dir[PATH_MAX], path[PATH_MAX], how[128] = "given";
	struct sw s = SW_CLOSED;
	struct hpcc_port_cfg cfg;
	struct sw_opts o;
	bool fresh, raw_ip;
	int ifindex;
	__u32 key;

	if (sw_attach_args(argc, argv, &o))
		return 0;
	need_bpf_caps();
	ifindex = dev_index(o.dev);
	raw_ip = dev_raw_ip(o.dev, ifindex);
	dscp_defaults(&o.probe, &o.resp, "switch attach");
	check_dscps(o.probe, o.resp, "switch attach ");

	ensure_bpffs();
	lock_pins();
	switch_dir(dir, sizeof(dir));
	fresh = !exists(pin_path(dir, PIN_SW_PROG, path, sizeof(path)));
	if (!fresh)
		sw_join(dir, &s, ifindex, &o, how, sizeof(how));
	else if (sw_create(dir, &s))
		return 1;
	if (!o.have_sid)
		o.sid = default_switch_id(how, sizeof(how));
	sw_port_cfg(&o, raw_ip, &cfg);

	key = ifindex;
	bpf_map_delete_elem(s.qsnap, &key);	/* an old device's snapshot */
	if (bpf_map_update_elem(s.cfg, &key, &cfg, BPF_ANY)) {
		errmsg("cannot write the port config: %s", strerror(errno));
		goto err_instance;
	}
	if (tc_slot_taken(o.dev, ifindex, BPF_TC_EGRESS))
		goto err_port;
	if (o.edge && sw_edge_check(&s, &o, ifindex))
		goto err_port;
	/* An edge port's ingress first: its egress strips nothing until
	 * both are there.
	 */
	if (o.edge && tc_attach_named(o.dev, ifindex, BPF_TC_INGRESS,
				      s.edge_prog, "hpcc_edge_in"))
		goto err_clsact;
	if (tc_attach_named(o.dev, ifindex, BPF_TC_EGRESS, s.prog,
			    "hpcc_switch"))
		goto err_ingress;
	sw_close(&s);
	sw_attach_report(&o, ifindex, how, raw_ip, fresh);
	return 0;

err_ingress:
	if (o.edge)
		tc_detach(o.dev, ifindex, BPF_TC_INGRESS, s.edge_prog_id);
err_clsact:
	tc_clsact_gc(ifindex);
err_port:
	bpf_map_delete_elem(s.cfg, &key);
err_instance:
	if (fresh)
		rm_pin_dir(dir);
	sw_close(&s);
	return 1;
}

/* Take port @ifindex out of the instance. */
static void sw_detach_port(struct sw *s, int ifindex)
{
	char name[IF_NAMESIZE] = "";
	__u32 key = ifindex;

	if (if_indextoname(ifindex, name)) {
		if (s->edge_prog_id)
			tc_detach(name, ifindex, BPF_TC_INGRESS,
				  s->edge_prog_id);
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
	struct sw s = SW_CLOSED;
	struct hpcc_port_cfg cfg;
	int ifindex = 0;
	char dir[PATH_MAX];
	const char *dev;
	bool had, bpffs, empty;
	__u32 key, next;

	if (sw_detach_args(argc, argv, &dev))
		return 0;
	need_bpf_caps();
	if (dev)
		ifindex = dev_index(dev);
	switch_dir(dir, sizeof(dir));
	bpffs = find_bpffs(false);
	if (bpffs && exists(PIN_ROOT))
		lock_pins();
	if (!bpffs || !exists(dir))
		die("hpcc_switch is not attached %s%s",
		    dev ? "to " : "in this network namespace", dev ? dev : "");
	if (sw_open(dir, &s)) {
		if (dev)
			die("broken hpcc_switch instance at %s (remove it: " PROG " switch detach --all)",
			    dir);
		sw_close(&s);
		rm_pin_dir(dir);
		printf("switch: removed the broken instance at %s\n", dir);
		return 0;
	}
	key = ifindex;
	had = dev && !bpf_map_lookup_elem(s.cfg, &key, &cfg);
	sw_prune(&s);
	if (!dev) {
		while (!bpf_map_get_next_key(s.cfg, NULL, &next))
			sw_detach_port(&s, next);
	} else if (!had) {
		die("hpcc_switch is not attached to %s", dev);
	} else if (bpf_map_lookup_elem(s.cfg, &key, &cfg)) {
		printf("switch: hpcc_switch detached from %s (its filter was already gone)\n",
		       dev);
	} else {
		sw_detach_port(&s, ifindex);
	}
	empty = bpf_map_get_next_key(s.cfg, NULL, &next);
	sw_close(&s);
	if (empty) {
		rm_pin_dir(dir);
		printf("switch: no port left, hpcc_switch unloaded\n");
	}
	return 0;
}

