// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - `hpcc-probe status`: every attachment in every network
 * namespace it can find, the programs' counters, tcp_hpcc's state.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hpcc_maps.h"
#include "probe.h"

/* ------------------------------------------------------------- counters */

static int read_counters(int fd, __u64 *out)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *v;
	__u32 i;
	int c;

	if (ncpu <= 0)
		return -1;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < HPCC_CNT_MAX; i++) {
		out[i] = 0;
		/* A map pinned by an older program ends before counters
		 * appended since: they are 0 there.
		 */
		if (bpf_map_lookup_elem(fd, &i, v)) {
			if (i && errno == ENOENT)
				continue;
			free(v);
			return -1;
		}
		for (c = 0; c < ncpu; c++)
			out[i] += v[c];
	}
	free(v);
	return 0;
}

static void print_counters(const char *dir)
{
	__u64 cnt[HPCC_CNT_MAX];
	unsigned int i;
	int fd = pinned_fd(dir, PIN_COUNTERS);

	if (fd < 0 || read_counters(fd, cnt)) {
		printf("  counters: unreadable (%s)\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	/* Two columns, in enum order down each column. */
	printf("  counters:\n");
	for (i = 0; i < (HPCC_CNT_MAX + 1) / 2; i++) {
		unsigned int j = i + (HPCC_CNT_MAX + 1) / 2;

		printf("    %-20s %12llu", hpcc_counter_name(i),
		       (unsigned long long)cnt[i]);
		if (j < HPCC_CNT_MAX)
			printf("    %-20s %12llu", hpcc_counter_name(j),
			       (unsigned long long)cnt[j]);
		printf("\n");
	}
}

/* --------------------------------------------------------------- status */

/* A network namespace we can enter to look at devices and filters. */
struct nsent {
	char label[300];
	__u64 cookie;
	int fd;
};

#define MAX_NS	256
static struct nsent nss[MAX_NS];
static int n_nss, home_ns = -1;

static void ns_add(const char *path, const char *label)
{
	struct nsent *e;
	int fd;

	if (n_nss == MAX_NS)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (setns(fd, CLONE_NEWNET)) {
		close(fd);
		return;
	}
	e = &nss[n_nss++];
	e->fd = fd;
	e->cookie = netns_cookie();
	snprintf(e->label, sizeof(e->label), "%s", label);
	setns(home_ns, CLONE_NEWNET);
}

/* init's namespace, the named ones (ip netns) and the current one. */
static void ns_collect(void)
{
	char path[PATH_MAX], label[300], init[64];
	__u64 here;
	struct dirent *e;
	DIR *d;
	int i;

	home_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home_ns < 0)
		die("cannot open /proc/self/ns/net: %s", strerror(errno));
	here = netns_cookie();
	if (init_ns_path("net", init, sizeof(init)))
		ns_add(init, "netns init");
	else if (in_root_netns())
		ns_add("/proc/self/ns/net", "netns init");
	d = opendir("/run/netns");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", e->d_name);
		snprintf(label, sizeof(label), "netns %s", e->d_name);
		ns_add(path, label);
	}
	if (d)
		closedir(d);
	for (i = 0; i < n_nss; i++)
		if (nss[i].cookie == here)
			return;
	ns_add("/proc/self/ns/net", "netns current");
}

static struct nsent *ns_find(__u64 cookie)
{
	int i;

	for (i = 0; i < n_nss; i++)
		if (nss[i].cookie == cookie)
			return &nss[i];
	return NULL;
}

static void show_host(const char *dir, const char *dev, const char *label,
		      bool in_ns)
{
	struct hpcc_host_cfg cfg = {};
	__u32 zero = 0, id = pinned_prog_id(dir, PIN_HOST_PROG), cur = 0;
	int ifindex = in_ns ? (int)if_nametoindex(dev) : 0;
	int fd = pinned_fd(dir, PIN_CFG_HOST);
	int probe = HPCC_DSCP_PROBE_DEFAULT, resp = HPCC_DSCP_RESPONSE_DEFAULT;

	if (fd >= 0 && !bpf_map_lookup_elem(fd, &zero, &cfg) &&
	    (cfg.flags & HPCC_CFG_F_DSCP)) {
		probe = cfg.probe_dscp;
		resp = cfg.resp_dscp;
	}
	if (fd >= 0)
		close(fd);
	if (ifindex)
		cur = tc_prog_id(ifindex, BPF_TC_INGRESS);
	printf("host %s [%s]: prog id %u, probe_dscp %d, response_dscp %d, "
	       "%stc ingress %s\n", dev, label, id, probe, resp,
	       cfg.flags & HPCC_CFG_F_RAW_IP ? "raw IP, " : "",
	       !in_ns ? "unknown (namespace not found)" :
	       !ifindex ? "GONE (device missing; " PROG " host detach "
			  "removes the pins)" :
	       cur && cur == id ? "attached" :
	       "NOT ATTACHED (filter removed; " PROG " host detach removes "
	       "the pins)");
	print_counters(dir);
}

static void show_port(const struct sw *s, __u32 ifindex,
		      const struct hpcc_port_cfg *cfg, bool in_ns)
{
	char name[IF_NAMESIZE] = "", qkind[64] = "?", b1[32], b2[32];
	struct hpcc_qsnap_dev *d;
	__u32 cur = 0, n, i, backlog = 0, found = 0;
	__u64 bytes = 0, ts = 0;
	struct timespec now;
	bool have = in_ns && if_indextoname(ifindex, name);

	if (have) {
		cur = tc_prog_id(ifindex, BPF_TC_EGRESS);
		nl_root_qdisc(ifindex, qkind, sizeof(qkind));
	}
	printf("  port %s (ifindex %u): switch_id %u, port_id %u, rate %u "
	       "Mbit/s, probe_dscp %u, response_dscp %u, %sroot qdisc %s, "
	       "tc egress %s\n", have ? name : "?", ifindex, cfg->switch_id,
	       cfg->flags & HPCC_PORT_F_PORT_ID ? cfg->port_id : ifindex,
	       cfg->rate_mbps, cfg->probe_dscp, cfg->resp_dscp,
	       cfg->flags & HPCC_PORT_F_RAW_IP ? "raw IP, " : "", qkind,
	       !in_ns ? "unknown (namespace not found)" :
	       !have ? "GONE (device missing; the next switch attach or "
		       "detach here drops this port)" :
	       cur && cur == s->prog_id ? "attached" : "NOT ATTACHED (the "
		       "next switch attach or detach here drops this port)");

	/* The queue snapshot the tracing programs keep for it. */
	d = calloc(1, sizeof(*d));
	if (!d || bpf_map_lookup_elem(s->qsnap, &ifindex, d)) {
		printf("    queue snapshot: none yet%s\n",
		       !strcmp(qkind, "noqueue") ? " (noqueue: never)" : "");
		free(d);
		return;
	}
	n = (d->flags & HPCC_QSNAP_F_MQ) ? d->ntxq : 1;
	for (i = 0; i < n && i < HPCC_MAX_TXQ; i++) {
		if (d->q[i].root != d->root)
			continue;
		backlog += d->q[i].backlog;
		bytes += d->q[i].bytes;
		if (d->q[i].ts_ns > ts)
			ts = d->q[i].ts_ns;
		found++;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!found)
		printf("    queue snapshot: none for the current root qdisc\n");
	else
		printf("    queue snapshot: backlog %u B, sent %llu B%s%s%s, "
		       "%s old%s\n", backlog, (unsigned long long)bytes,
		       bytes >= 1024 ? " (" : "",
		       bytes >= 1024 ? fmt_bytes(bytes, b1, sizeof(b1)) : "",
		       bytes >= 1024 ? ")" : "",
		       fmt_ns((long long)(now.tv_sec * 1000000000ULL +
					  now.tv_nsec - ts), b2, sizeof(b2)),
		       d->flags & HPCC_QSNAP_F_MQ ? ", per tx queue" : "");
	free(d);
}

static void show_switch(const char *dir, const char *label, bool in_ns)
{
	struct hpcc_port_cfg cfg;
	int links = 0;
	__u32 key, *prev = NULL;
	struct dirent *e;
	struct sw s;
	DIR *d;

	if (sw_open(dir, &s)) {
		printf("switch [%s]: BROKEN instance at %s (" PROG " switch "
		       "detach --all removes it)\n", label, dir);
		return;
	}
	d = opendir(dir);
	while (d && (e = readdir(d)))
		links += !strncmp(e->d_name, "link_", 5);
	if (d)
		closedir(d);
	printf("switch [%s]: prog id %u, qdisc tracing links %d/3%s\n", label,
	       s.prog_id, links, links == 3 ? "" : " (queue state missing)");
	while (!bpf_map_get_next_key(s.cfg, prev, &key)) {
		if (!bpf_map_lookup_elem(s.cfg, &key, &cfg))
			show_port(&s, key, &cfg, in_ns);
		prev = &key;
	}
	print_counters(dir);
	close(s.prog);
	close(s.cfg);
	close(s.qsnap);
}

/* Everything pinned for one namespace directory. */
static int show_ns_dir(const char *base, struct nsent *ns, const char *label)
{
	char dir[PATH_MAX], name[NAME_MAX + 1];
	struct dirent *e;
	int shown = 0;
	DIR *d;

	if (ns && setns(ns->fd, CLONE_NEWNET))
		ns = NULL;
	snprintf(dir, sizeof(dir), "%s/host", base);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/host/%s", base, e->d_name);
		show_host(dir, pin_name_dev(e->d_name, name, sizeof(name)),
			  label, ns != NULL);
		shown++;
	}
	if (d)
		closedir(d);
	snprintf(dir, sizeof(dir), "%s/switch", base);
	if (exists(dir)) {
		show_switch(dir, label, ns != NULL);
		shown++;
	}
	setns(home_ns, CLONE_NEWNET);
	return shown;
}

static void show_module(void)
{
	struct modinfo m;
	char line[256];
	FILE *f;

	module_info(&m);
	if (!m.loaded) {
		printf("module tcp_hpcc: not loaded\n");
		return;
	}
	printf("module tcp_hpcc: loaded, BTF %s, probe_dscp %d, "
	       "response_dscp %d\n", m.btf ? "present" :
	       "MISSING (kfunc not registered)", m.probe_dscp, m.resp_dscp);
	f = sys_fopen("/proc/net/tcp_hpcc_stat");
	if (!f)
		return;
	printf("  /proc/net/tcp_hpcc_stat:\n");
	while (fgets(line, sizeof(line), f)) {
		char name[128];
		unsigned long long v;

		if (sscanf(line, "%127s %llu", name, &v) == 2)
			printf("    %-20s %llu\n", name, v);
	}
	fclose(f);
}

static const char status_usage[] = "Usage: " PROG " status\n\nWhat is attached "
	"where (every network namespace), with the "
	"programs' counters and tcp_hpcc's statistics."
	"\n";

int cmd_status(int argc, char **argv)
{
	char base[PATH_MAX], label[400];
	struct dirent *e;
	struct nsent *ns;
	int shown = 0;
	DIR *d;

	if (help_only(argc, argv, "status ", status_usage))
		return 0;
	if (optind != argc)
		usage_err("status ", "status takes no arguments");
	need_bpf_caps();

	if (find_bpffs(false)) {
		ns_collect();
		/* init's namespace: pins straight under PIN_ROOT */
		ns = n_nss && !strcmp(nss[0].label, "netns init") ? &nss[0] :
		     NULL;
		shown += show_ns_dir(PIN_ROOT, ns, ns ? "netns init" :
				     "netns init, cannot enter it");
		d = opendir(PIN_ROOT "/netns");
		while (d && (e = readdir(d))) {
			unsigned long long ck;

			if (e->d_name[0] == '.' ||
			    sscanf(e->d_name, "%llu", &ck) != 1)
				continue;
			ns = ns_find(ck);
			if (ns)
				snprintf(label, sizeof(label), "%s", ns->label);
			else
				snprintf(label, sizeof(label), "netns cookie "
					 "%llu, not found (gone or unnamed; rm "
					 "-r " PIN_ROOT "/netns/%llu)", ck, ck);
			snprintf(base, sizeof(base), PIN_ROOT "/netns/%s",
				 e->d_name);
			shown += show_ns_dir(base, ns, label);
		}
		if (d)
			closedir(d);
	}
	if (!shown)
		printf("no hpcc programs attached (nothing pinned under "
		       PIN_ROOT ")\n");
	show_module();
	return 0;
}

