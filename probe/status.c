// SPDX-License-Identifier: GPL-2.0
/*
 * `hpcc-probe status`: every attachment in every network
 * namespace it can find, the programs' counters, tcp_hpcc's state.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hpcc_maps.h"
#include "probe.h"
#include "status.h"

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

/* A network namespace we can enter to look at devices and filters. */
struct nsent {
	char label[300];
	__u64 cookie;
	int fd;
};

#define MAX_NS	256

/* The namespaces status looks into, and the one it came from. */
struct ns_set {
	struct nsent ns[MAX_NS];
	int n;
	int home;
};

static void ns_add(struct ns_set *set, const char *path, const char *label)
{
	struct nsent *e;
	int fd;

	if (set->n == MAX_NS)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (setns(fd, CLONE_NEWNET)) {
		close(fd);
		return;
	}
	e = &set->ns[set->n++];
	e->fd = fd;
	e->cookie = netns_cookie();
	snprintf(e->label, sizeof(e->label), "%s", label);
	setns(set->home, CLONE_NEWNET);
}

static struct nsent *ns_find(struct ns_set *set, __u64 cookie)
{
	int i;

	for (i = 0; i < set->n; i++)
		if (set->ns[i].cookie == cookie)
			return &set->ns[i];
	return NULL;
}

/* init's namespace, the named ones (ip netns) and the current one. */
static struct ns_set *ns_collect(void)
{
	char path[PATH_MAX], label[300], init[64];
	struct ns_set *set;
	struct dirent *e;
	__u64 here;
	DIR *d;

	set = calloc(1, sizeof(*set));
	if (!set)
		die("out of memory");
	set->home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (set->home < 0)
		die("cannot open /proc/self/ns/net: %s", strerror(errno));
	here = netns_cookie();
	if (init_ns_path("net", init, sizeof(init)))
		ns_add(set, init, "netns init");
	else if (in_root_netns())
		ns_add(set, "/proc/self/ns/net", "netns init");
	d = opendir("/run/netns");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", e->d_name);
		snprintf(label, sizeof(label), "netns %s", e->d_name);
		ns_add(set, path, label);
	}
	if (d)
		closedir(d);
	if (!ns_find(set, here))
		ns_add(set, "/proc/self/ns/net", "netns current");
	return set;
}

static void ns_free(struct ns_set *set)
{
	int i;

	for (i = 0; i < set->n; i++)
		close(set->ns[i].fd);
	close(set->home);
	free(set);
}


static void gather_counters(const char *dir, struct st_counters *c)
{
	int fd = pinned_fd(dir, PIN_COUNTERS);

	c->err = 0;
	if (fd < 0 || read_counters(fd, c->v))
		c->err = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
}

static struct st_inst *inst_new(struct status *st, const struct st_ns *ns)
{
	struct st_inst *i;

	i = realloc(st->inst, (st->n + 1) * sizeof(*i));
	if (!i)
		die("out of memory");
	st->inst = i;
	i = &st->inst[st->n++];
	memset(i, 0, sizeof(*i));
	i->ns = *ns;
	return i;
}

/* Where a filter stands: @have the device, @cur the program there. */
static enum st_state filter_state(bool in_ns, bool have, __u32 cur, __u32 id)
{
	if (!in_ns)
		return ST_UNKNOWN;
	if (!have)
		return ST_GONE;
	return cur && cur == id ? ST_ATTACHED : ST_NOT_ATTACHED;
}

static void gather_host(struct st_inst *in, const char *dir, const char *dev)
{
	struct st_host *h = &in->host;
	struct hpcc_host_cfg cfg = {};
	__u32 zero = 0, cur = 0;
	bool in_ns = in->ns.entered;
	int ifindex = in_ns ? (int)if_nametoindex(dev) : 0;
	int fd = pinned_fd(dir, PIN_CFG_HOST);

	snprintf(h->dev, sizeof(h->dev), "%s", dev);
	h->prog_id = pinned_prog_id(dir, PIN_HOST_PROG);
	h->probe_dscp = HPCC_DSCP_PROBE_DEFAULT;
	h->resp_dscp = HPCC_DSCP_RESPONSE_DEFAULT;
	if (fd >= 0 && !bpf_map_lookup_elem(fd, &zero, &cfg) &&
	    (cfg.flags & HPCC_CFG_F_DSCP)) {
		h->probe_dscp = cfg.probe_dscp;
		h->resp_dscp = cfg.resp_dscp;
	}
	if (fd >= 0)
		close(fd);
	h->has_reflect = cfg.flags & HPCC_CFG_F_REFLECT;
	h->reflect_rate = cfg.reflect_rate;
	h->reflect_burst = cfg.reflect_burst;
	h->raw_ip = cfg.flags & HPCC_CFG_F_RAW_IP;
	h->rx_window = cfg.flags & HPCC_CFG_F_RX_WINDOW;
	h->has_flow_epoch = cfg.flags & HPCC_CFG_F_FLOW_EPOCH;
	h->flow_epoch_us = cfg.flow_epoch_us;
	h->has_peer = cfg.flags & HPCC_CFG_F_PEER;
	h->peer_rate = cfg.peer_rate;
	h->peer_burst = cfg.peer_burst;
	if (ifindex)
		cur = tc_prog_id(ifindex, BPF_TC_INGRESS);
	h->ingress = filter_state(in_ns, ifindex, cur, h->prog_id);
	gather_counters(dir, &in->cnt);
}

/* The queue snapshot the tracing programs keep for port @p. */
static void gather_qsnap(const struct sw *s, struct st_port *p)
{
	struct hpcc_qsnap_dev *d;
	__u32 n, i, found = 0;
	__u64 ts = 0;

	p->qsnap = QS_NONE;
	d = calloc(1, sizeof(*d));
	if (!d || bpf_map_lookup_elem(s->qsnap, &p->ifindex, d)) {
		free(d);
		return;
	}
	p->mq = d->flags & HPCC_QSNAP_F_MQ;
	n = p->mq ? d->ntxq : 1;
	for (i = 0; i < n && i < HPCC_MAX_TXQ; i++) {
		if (d->q[i].root != d->root)
			continue;
		p->backlog += d->q[i].backlog;
		p->bytes += d->q[i].bytes;
		if (d->q[i].ts_ns > ts)
			ts = d->q[i].ts_ns;
		found++;
	}
	free(d);
	p->qsnap = found ? QS_OK : QS_STALE;
	p->age_ns = (long long)(now_ns() - ts);
}

static void gather_port(const struct sw *s, struct st_port *p, bool in_ns)
{
	bool have = in_ns && if_indextoname(p->ifindex, p->name);
	__u32 cur = 0, icur = 0;

	if (!have)
		p->name[0] = 0;
	snprintf(p->qkind, sizeof(p->qkind), "?");
	if (have) {
		cur = tc_prog_id(p->ifindex, BPF_TC_EGRESS);
		icur = tc_prog_id(p->ifindex, BPF_TC_INGRESS);
		nl_root_qdisc(p->ifindex, p->qkind, sizeof(p->qkind));
	}
	p->egress = filter_state(in_ns, have, cur, s->prog_id);
	p->ingress = filter_state(in_ns, have, icur, s->edge_prog_id);
	if (!(p->cfg.flags & HPCC_PORT_F_EDGE))
		gather_qsnap(s, p);
}

static void gather_switch(struct st_inst *in, const char *dir)
{
	struct st_switch *w = &in->sw;
	struct sw s = SW_CLOSED;
	__u32 key, *prev = NULL;
	struct hpcc_port_cfg cfg;
	struct dirent *e;
	DIR *d;

	in->is_switch = true;
	snprintf(w->dir, sizeof(w->dir), "%s", dir);
	if (sw_open(dir, &s)) {
		sw_close(&s);
		w->broken = true;
		return;
	}
	d = opendir(dir);
	while (d && (e = readdir(d)))
		w->links += !strncmp(e->d_name, "link_", 5);
	if (d)
		closedir(d);
	w->prog_id = s.prog_id;
	while (!bpf_map_get_next_key(s.cfg, prev, &key)) {
		if (!bpf_map_lookup_elem(s.cfg, &key, &cfg)) {
			struct st_port *p;

			p = realloc(w->ports, (w->nports + 1) * sizeof(*p));
			if (!p)
				die("out of memory");
			w->ports = p;
			p = &w->ports[w->nports++];
			memset(p, 0, sizeof(*p));
			p->ifindex = key;
			p->cfg = cfg;
			gather_port(&s, p, in->ns.entered);
		}
		prev = &key;
	}
	gather_counters(dir, &in->cnt);
	sw_close(&s);
}

/* Everything pinned for one namespace directory. */
static void gather_ns_dir(struct status *st, struct ns_set *set,
			  const char *base, const struct nsent *ns,
			  struct st_ns *sn)
{
	char dir[PATH_MAX], name[NAME_MAX + 1];
	struct dirent *e;
	DIR *d;

	if (ns && setns(ns->fd, CLONE_NEWNET))
		ns = NULL;
	sn->entered = ns;
	snprintf(dir, sizeof(dir), "%s/host", base);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/host/%s", base, e->d_name);
		gather_host(inst_new(st, sn), dir,
			    pin_name_dev(e->d_name, name, sizeof(name)));
	}
	if (d)
		closedir(d);
	snprintf(dir, sizeof(dir), "%s/switch", base);
	if (exists(dir))
		gather_switch(inst_new(st, sn), dir);
	setns(set->home, CLONE_NEWNET);
}

static void gather_module(struct st_module *mod)
{
	struct modinfo m;
	char line[256];
	FILE *f;

	module_info(&m);
	mod->loaded = m.loaded;
	mod->btf = m.btf;
	mod->probe_dscp = m.probe_dscp;
	mod->resp_dscp = m.resp_dscp;
	if (!m.loaded)
		return;
	f = sys_fopen("/proc/net/tcp_hpcc_stat");
	if (!f)
		return;
	mod->have_stat = true;
	while (fgets(line, sizeof(line), f)) {
		struct st_stat s, *p;

		if (sscanf(line, "%127s %llu", s.name, &s.v) != 2)
			continue;
		p = realloc(mod->stat, (mod->nstat + 1) * sizeof(*p));
		if (!p)
			die("out of memory");
		mod->stat = p;
		p[mod->nstat++] = s;
	}
	fclose(f);
}

/* ------------------------------------------------------ configuration */

/* hpcc-setup: $HPCC_SETUP, else beside this binary, else in PATH. */
static bool find_setup(char *buf, size_t len)
{
	const char *env = getenv("HPCC_SETUP"), *path = getenv("PATH");
	char self[PATH_MAX];
	ssize_t n;

	if (env) {
		snprintf(buf, len, "%s", env);
		return true;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		char *slash;

		self[n] = 0;
		slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			if (snprintf(buf, len, "%s/hpcc-setup", self) < (int)len &&
			    !access(buf, X_OK))
				return true;
		}
	}
	while (path && *path) {
		n = strcspn(path, ":");
		if (n && snprintf(buf, len, "%.*s/hpcc-setup", (int)n, path) < (int)len &&
		    !access(buf, X_OK))
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/*
 * What hpcc.conf(5) asks for against what is attached in this namespace.
 * hpcc-setup owns that file (it attaches from it), so its `status` gives
 * the verdicts, one per line, reading the attachments from this binary
 * (`status --no-config`). Nothing is said without a configuration file.
 * c->rc: hpcc-setup's exit status: 0 as configured, 3 if not, 1 if the
 * file has errors.
 */
static void run_setup(struct st_config *c, const char *setup)
{
	const char *ns = netns_arg();
	char self[PATH_MAX], *line = NULL;
	size_t cap = 0;
	int fds[2], st;
	ssize_t n;
	pid_t pid;
	FILE *f;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = 0;
	if (pipe(fds))
		die("pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		if (self[0])
			setenv("HPCC_PROBE", self, 1);
		if (ns)
			execl(setup, "hpcc-setup", "-c", c->file, "-n", ns,
			      "status", (char *)NULL);
		else
			execl(setup, "hpcc-setup", "-c", c->file, "status",
			      (char *)NULL);
		printf("cannot run %s: %s\n", setup, strerror(errno));
		_exit(1);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	while (f && (n = getline(&line, &cap, f)) > 0) {
		char **l = realloc(c->lines, (c->nlines + 1) * sizeof(*l));

		if (!l)
			die("out of memory");
		c->lines = l;
		if (line[n - 1] == '\n')
			line[n - 1] = 0;
		l[c->nlines++] = strdup(line);
	}
	free(line);
	if (f)
		fclose(f);
	c->rc = 1;
	if (waitpid(pid, &st, 0) >= 0 && WIFEXITED(st))
		c->rc = WEXITSTATUS(st);
}

static void gather_config(struct st_config *c, const char *conf)
{
	const char *root = getenv("HPCC_PROBE_ROOT");
	char setup[PATH_MAX];

	if (!conf)
		conf = getenv("HPCC_CONF");
	if (conf)
		snprintf(c->file, sizeof(c->file), "%s", conf);
	else
		snprintf(c->file, sizeof(c->file), "%s/etc/hpcc/hpcc.conf",
			 root ? root : "");
	if (!exists(c->file))
		return;
	c->present = true;
	c->setup_found = find_setup(setup, sizeof(setup));
	if (!c->setup_found) {
		c->rc = 1;
		return;
	}
	run_setup(c, setup);
}

static const char status_usage[] =
	"Usage: " PROG " status [--config FILE | --no-config] [--json]\n"
	"\n"
	"What is attached where (every network namespace), with the programs'\n"
	"counters and tcp_hpcc's statistics; then, if there is a configuration\n"
	"(hpcc.conf(5)), whether what it asks for is what is attached in this\n"
	"namespace: hpcc-setup status's verdicts.\n"
	"\n"
	"  --config FILE  the configuration (default $HPCC_CONF, else\n"
	"                 /etc/hpcc/hpcc.conf)\n"
	"  --no-config    attachments only\n"
	"  --json         the same as one JSON object (hpcc-probe(8))\n"
	"\n"
	"Exit status: 0; with a configuration, 3 if what is attached differs\n"
	"from it, 1 if it has errors.\n";

/* Every namespace's pins: init's straight under PIN_ROOT, the others'
 * under PIN_ROOT/netns/COOKIE.
 */
static void gather_pins(struct status *st)
{
	char base[PATH_MAX];
	struct ns_set *set;
	struct nsent *ns;
	struct dirent *e;
	struct st_ns sn;
	DIR *d;

	set = ns_collect();
	ns = set->n && !strcmp(set->ns[0].label, "netns init") ? &set->ns[0] :
								 NULL;
	memset(&sn, 0, sizeof(sn));
	sn.init_dir = true;
	snprintf(sn.name, sizeof(sn.name), "init");
	sn.cookie = ns ? ns->cookie : 0;
	gather_ns_dir(st, set, PIN_ROOT, ns, &sn);
	d = opendir(PIN_ROOT "/netns");
	while (d && (e = readdir(d))) {
		char *end;

		memset(&sn, 0, sizeof(sn));
		sn.cookie = strtoull(e->d_name, &end, 10);
		if (e->d_name[0] == '.' || end == e->d_name)
			continue;
		ns = ns_find(set, sn.cookie);
		if (ns)	/* "netns NAME" */
			snprintf(sn.name, sizeof(sn.name), "%s", ns->label + 6);
		snprintf(base, sizeof(base), PIN_ROOT "/netns/%s", e->d_name);
		gather_ns_dir(st, set, base, ns, &sn);
	}
	if (d)
		closedir(d);
	ns_free(set);
}

int cmd_status(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "no-config", no_argument, NULL, 'N' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct status st = {};
	const char *conf = NULL;
	bool no_conf = false, json = false;
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			conf = optarg;
			break;
		case 'N':
			no_conf = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(status_usage, stdout);
			return 0;
		default:
			usage_err("status ", "bad option");
		}
	}
	if (optind != argc)
		usage_err("status ", "status takes no arguments");
	if (conf && no_conf)
		usage_err("status ", "--config and --no-config exclude each other");
	need_bpf_caps();

	st.bpffs = find_bpffs(false);
	if (st.bpffs)
		gather_pins(&st);
	gather_module(&st.mod);
	if (!no_conf)
		gather_config(&st.conf, conf);
	if (json)
		status_print_json(&st);
	else
		status_print_text(&st);
	return st.conf.present ? st.conf.rc : 0;
}
