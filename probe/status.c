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
	const unsigned int rows = (HPCC_CNT_MAX + 1) / 2;
	int fd = pinned_fd(dir, PIN_COUNTERS);
	__u64 cnt[HPCC_CNT_MAX];
	unsigned int i, j;

	if (fd < 0 || read_counters(fd, cnt)) {
		printf("  counters: unreadable (%s)\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	/* Two columns, in enum order down each column. */
	printf("  counters:\n");
	for (i = 0; i < rows; i++) {
		for (j = i; j < HPCC_CNT_MAX; j += rows)
			printf("    %-20s %12llu", hpcc_counter_name(j),
			       (unsigned long long)cnt[j]);
		printf("\n");
	}
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

/* Where a host device's filter stands. */
static const char *host_state(bool in_ns, int ifindex, __u32 cur, __u32 id)
{
	if (!in_ns)
		return "unknown (namespace not found)";
	if (!ifindex)
		return "GONE (device missing; " PROG " host detach removes the pins)";
	if (cur && cur == id)
		return "attached";
	return "NOT ATTACHED (filter removed; " PROG " host detach removes the pins)";
}

static void show_host(const char *dir, const char *dev, const char *label,
		      bool in_ns)
{
	struct hpcc_host_cfg cfg = {};
	__u32 zero = 0, id = pinned_prog_id(dir, PIN_HOST_PROG), cur = 0;
	int ifindex = in_ns ? (int)if_nametoindex(dev) : 0;
	int fd = pinned_fd(dir, PIN_CFG_HOST);
	int probe = HPCC_DSCP_PROBE_DEFAULT, resp = HPCC_DSCP_RESPONSE_DEFAULT;
	char lim[128] = "", plim[64];

	if (fd >= 0 && !bpf_map_lookup_elem(fd, &zero, &cfg) &&
	    (cfg.flags & HPCC_CFG_F_DSCP)) {
		probe = cfg.probe_dscp;
		resp = cfg.resp_dscp;
	}
	if (fd >= 0)
		close(fd);
	/* A program older than the limit has no such setting. */
	if (cfg.flags & HPCC_CFG_F_REFLECT) {
		fmt_reflect(cfg.reflect_rate, cfg.reflect_burst, lim,
			    sizeof(plim));
		strcat(lim, ", ");
	}
	if (cfg.flags & HPCC_CFG_F_PEER) {
		fmt_peer(cfg.peer_rate, cfg.peer_burst, plim, sizeof(plim));
		strcat(lim, plim);
		strcat(lim, ", ");
	}
	if (ifindex)
		cur = tc_prog_id(ifindex, BPF_TC_INGRESS);
	printf("host %s [%s]: prog id %u, probe_dscp %d, response_dscp %d, %s%stc ingress %s\n",
	       dev, label, id, probe, resp, lim,
	       cfg.flags & HPCC_CFG_F_RAW_IP ? "raw IP, " : "",
	       host_state(in_ns, ifindex, cur, id));
	print_counters(dir);
}

/* Where a switch port's filter stands. */
static const char *port_state(bool in_ns, bool have, __u32 cur, __u32 id)
{
	if (!in_ns)
		return "unknown (namespace not found)";
	if (!have)
		return "GONE (device missing; the next switch attach or detach here drops this port)";
	if (cur && cur == id)
		return "attached";
	return "NOT ATTACHED (the next switch attach or detach here drops this port)";
}

/* The queue snapshot the tracing programs keep for port @ifindex, whose
 * root qdisc is @qkind.
 */
static void show_qsnap(const struct sw *s, __u32 ifindex, const char *qkind)
{
	__u32 n, i, backlog = 0, found = 0;
	struct hpcc_qsnap_dev *d;
	__u64 bytes = 0, ts = 0;
	char b1[32], b2[32];
	bool mq;

	d = calloc(1, sizeof(*d));
	if (!d || bpf_map_lookup_elem(s->qsnap, &ifindex, d)) {
		printf("    queue snapshot: none yet%s\n",
		       !strcmp(qkind, "noqueue") ? " (noqueue: never)" : "");
		free(d);
		return;
	}
	mq = d->flags & HPCC_QSNAP_F_MQ;
	n = mq ? d->ntxq : 1;
	for (i = 0; i < n && i < HPCC_MAX_TXQ; i++) {
		if (d->q[i].root != d->root)
			continue;
		backlog += d->q[i].backlog;
		bytes += d->q[i].bytes;
		if (d->q[i].ts_ns > ts)
			ts = d->q[i].ts_ns;
		found++;
	}
	free(d);
	if (!found) {
		printf("    queue snapshot: none for the current root qdisc\n");
		return;
	}
	printf("    queue snapshot: backlog %u B, sent %llu B%s%s%s, %s old%s\n",
	       backlog, (unsigned long long)bytes, bytes >= 1024 ? " (" : "",
	       bytes >= 1024 ? fmt_bytes(bytes, b1, sizeof(b1)) : "",
	       bytes >= 1024 ? ")" : "",
	       fmt_ns((long long)(now_ns() - ts), b2, sizeof(b2)),
	       mq ? ", per tx queue" : "");
}

static void show_port(const struct sw *s, __u32 ifindex,
		      const struct hpcc_port_cfg *cfg, bool in_ns)
{
	char name[IF_NAMESIZE] = "", qkind[64] = "?", edge[128] = "";
	bool have = in_ns && if_indextoname(ifindex, name);
	__u32 cur = 0, icur = 0;

	if (have) {
		cur = tc_prog_id(ifindex, BPF_TC_EGRESS);
		icur = tc_prog_id(ifindex, BPF_TC_INGRESS);
		nl_root_qdisc(ifindex, qkind, sizeof(qkind));
	}
	/* An edge port: its ingress program too, before the egress state
	 * that ends the line.
	 */
	if (cfg->flags & HPCC_PORT_F_EDGE)
		snprintf(edge, sizeof(edge), "edge (tc ingress %s), ",
			 port_state(in_ns, have, icur, s->edge_prog_id));
	printf("  port %s (ifindex %u): switch_id %u, port_id %u, rate %u Mbit/s, probe_dscp %u, response_dscp %u, %s%s%sroot qdisc %s, tc egress %s\n",
	       have ? name : "?", ifindex, cfg->switch_id,
	       cfg->flags & HPCC_PORT_F_PORT_ID ? cfg->port_id : ifindex,
	       cfg->rate_mbps, cfg->probe_dscp, cfg->resp_dscp, edge,
	       cfg->flags & HPCC_PORT_F_ANON ? "anonymised, " : "",
	       cfg->flags & HPCC_PORT_F_RAW_IP ? "raw IP, " : "", qkind,
	       port_state(in_ns, have, cur, s->prog_id));
	if (cfg->flags & HPCC_PORT_F_QOS)
		printf("    qos: stamps class %x:%x (data DSCP %u), guaranteed %u Mbit/s\n",
		       cfg->qos_classid >> 16, cfg->qos_classid & 0xffff,
		       cfg->qos_dscp, cfg->qos_rate_mbps);
	if (!(cfg->flags & HPCC_PORT_F_EDGE))
		show_qsnap(s, ifindex, qkind);
}

static void show_switch(const char *dir, const char *label, bool in_ns)
{
	struct sw s = SW_CLOSED;
	__u32 key, *prev = NULL;
	struct hpcc_port_cfg cfg;
	struct dirent *e;
	int links = 0;
	DIR *d;

	if (sw_open(dir, &s)) {
		sw_close(&s);
		printf("switch [%s]: BROKEN instance at %s (" PROG " switch detach --all removes it)\n",
		       label, dir);
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
	sw_close(&s);
}

/* Everything pinned for one namespace directory. */
static int show_ns_dir(struct ns_set *set, const char *base,
		       const struct nsent *ns, const char *label)
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
			  label, ns);
		shown++;
	}
	if (d)
		closedir(d);
	snprintf(dir, sizeof(dir), "%s/switch", base);
	if (exists(dir)) {
		show_switch(dir, label, ns);
		shown++;
	}
	setns(set->home, CLONE_NEWNET);
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
	printf("module tcp_hpcc: loaded, BTF %s, probe_dscp %d, response_dscp %d\n",
	       m.btf ? "present" :
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
 * Returns hpcc-setup's exit status: 0 as configured, 3 if not, 1 if the
 * file has errors.
 */
static int show_config(const char *conf)
{
	char def[PATH_MAX], setup[PATH_MAX], self[PATH_MAX], line[1024];
	const char *root = getenv("HPCC_PROBE_ROOT"), *ns = netns_arg();
	int fds[2], st;
	ssize_t n;
	pid_t pid;
	FILE *f;

	if (!conf)
		conf = getenv("HPCC_CONF");
	if (!conf) {
		snprintf(def, sizeof(def), "%s/etc/hpcc/hpcc.conf",
			 root ? root : "");
		conf = def;
	}
	if (!exists(conf))
		return 0;
	printf("configured in %s (hpcc-setup status):\n", conf);
	if (!find_setup(setup, sizeof(setup))) {
		printf("  unknown: hpcc-setup not found (HPCC_SETUP, PATH)\n");
		return 1;
	}
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
			execl(setup, "hpcc-setup", "-c", conf, "-n", ns,
			      "status", (char *)NULL);
		else
			execl(setup, "hpcc-setup", "-c", conf, "status",
			      (char *)NULL);
		printf("cannot run %s: %s\n", setup, strerror(errno));
		_exit(1);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	while (f && fgets(line, sizeof(line), f))
		printf("  %s%s", line, strchr(line, '\n') ? "" : "\n");
	if (f)
		fclose(f);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return 1;
	return WEXITSTATUS(st);
}

static const char status_usage[] =
	"Usage: " PROG " status [--config FILE | --no-config]\n"
	"\n"
	"What is attached where (every network namespace), with the programs'\n"
	"counters and tcp_hpcc's statistics; then, if there is a configuration\n"
	"(hpcc.conf(5)), whether what it asks for is what is attached in this\n"
	"namespace: hpcc-setup status's verdicts.\n"
	"\n"
	"  --config FILE  the configuration (default $HPCC_CONF, else\n"
	"                 /etc/hpcc/hpcc.conf)\n"
	"  --no-config    attachments only\n"
	"\n"
	"Exit status: 0; with a configuration, 3 if what is attached differs\n"
	"from it, 1 if it has errors.\n";

/* Every namespace's pins: init's straight under PIN_ROOT, the others'
 * under PIN_ROOT/netns/COOKIE. How many instances were shown.
 */
static int show_pins(void)
{
	char base[PATH_MAX], label[400];
	struct ns_set *set;
	struct nsent *ns;
	struct dirent *e;
	int shown;
	DIR *d;

	set = ns_collect();
	ns = set->n && !strcmp(set->ns[0].label, "netns init") ? &set->ns[0] :
								 NULL;
	shown = show_ns_dir(set, PIN_ROOT, ns,
			    ns ? "netns init" : "netns init, cannot enter it");
	d = opendir(PIN_ROOT "/netns");
	while (d && (e = readdir(d))) {
		unsigned long long ck;
		char *end;

		ck = strtoull(e->d_name, &end, 10);
		if (e->d_name[0] == '.' || end == e->d_name)
			continue;
		ns = ns_find(set, ck);
		if (ns)
			snprintf(label, sizeof(label), "%s", ns->label);
		else
			snprintf(label, sizeof(label),
				 "netns cookie %llu, not found (gone or unnamed; rm -r " PIN_ROOT "/netns/%llu)",
				 ck, ck);
		snprintf(base, sizeof(base), PIN_ROOT "/netns/%s", e->d_name);
		shown += show_ns_dir(set, base, ns, label);
	}
	if (d)
		closedir(d);
	ns_free(set);
	return shown;
}

int cmd_status(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "no-config", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *conf = NULL;
	bool no_conf = false;
	int shown = 0, c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			conf = optarg;
			break;
		case 'N':
			no_conf = true;
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

	if (find_bpffs(false))
		shown = show_pins();
	if (!shown)
		printf("no hpcc programs attached (nothing pinned under " PIN_ROOT ")\n");
	show_module();
	return no_conf ? 0 : show_config(conf);
}
