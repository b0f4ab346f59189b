// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc-probe - attach, inspect and exercise the HPCC++ tc programs.
 *
 *   hpcc-probe [-n NETNS] [-v] host attach|detach DEV ...
 *   hpcc-probe [-n NETNS] [-v] switch attach|detach DEV ...
 *   hpcc-probe [-n NETNS] status | flows | trace DEST[:PORT]
 *
 * Attachments outlive the tool: the programs, maps and tracing links are
 * pinned in bpffs, one directory per host device and one switch instance
 * per network namespace:
 *   /sys/fs/bpf/tcp_hpcc/host/DEV/          the initial network namespace
 *   /sys/fs/bpf/tcp_hpcc/switch/
 *   /sys/fs/bpf/tcp_hpcc/netns/COOKIE/host/DEV/   any other namespace,
 *   /sys/fs/bpf/tcp_hpcc/netns/COOKIE/switch/     by its netns cookie
 * DEV is the device's name with ':' for '.' (bpffs refuses '.').
 * The tc filters themselves sit at handle 0x4850 ("HP"), priority 1 of
 * the device's clsact hook.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/pkt_sched.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hpcc_maps.h"
#include "probe.h"
#include "hpcc_host.skel.h"
#include "hpcc_switch.skel.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE		71
#endif
#ifndef ARPHRD_IP6GRE
#define ARPHRD_IP6GRE		823
#endif
#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC		0xcafe4a11
#endif
#ifndef TC_H_CLSACT
#define TC_H_CLSACT		TC_H_INGRESS
#define TC_H_MIN_INGRESS	0xFFF2U
#define TC_H_MIN_EGRESS		0xFFF3U
#endif

#define BPFFS		"/sys/fs/bpf"
#define PIN_ROOT	BPFFS "/tcp_hpcc"
#define TC_HANDLE	0x4850		/* "HP" */
#define TC_PRIO		1

/* Pin names inside an instance directory. */
#define PIN_HOST_PROG	"hpcc_host"
#define PIN_SW_PROG	"hpcc_switch"
#define PIN_CFG_HOST	"hpcc_host_cfg"
#define PIN_CFG_PORT	"hpcc_port_cfg"
#define PIN_QSNAP	"hpcc_qsnap"
#define PIN_COUNTERS	"hpcc_counters"

int verbose;
static char netns_name[PATH_MAX];	/* -n, for messages */

/* ------------------------------------------------------------ messages */

void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void warnmsg(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, PROG ": warning: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void usage_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see '" PROG " %s--help')\n", cmd ? cmd : "");
	exit(2);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (!verbose)
		return 0;
	if (level == LIBBPF_DEBUG && verbose < 2)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static const char *vhint(void)
{
	return verbose ? "" : " (run with -v for libbpf's log)";
}

/* -------------------------------------------------------- capabilities */

static bool have_cap(int cap)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &h, d))
		return geteuid() == 0;
	return d[cap / 32].effective & (1U << (cap % 32));
}

void need_bpf_caps(void)
{
	if (!have_cap(CAP_NET_ADMIN) ||
	    !(have_cap(CAP_BPF) || have_cap(CAP_SYS_ADMIN)))
		die("must run as root (CAP_NET_ADMIN and CAP_BPF)");
}

void need_raw_caps(void)
{
	if (!have_cap(CAP_NET_RAW))
		die("must run as root (CAP_NET_RAW)");
}

/* ---------------------------------------------------- the module, sysfs */

/* HPCC_PROBE_ROOT=DIR reads the module's sysfs and procfs files under DIR
 * instead of / (tests use it to fake a loaded module).
 */
const char *sys_path(const char *path)
{
	static char buf[4][PATH_MAX];
	static int i;
	const char *root = getenv("HPCC_PROBE_ROOT");

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s%s", root ? root : "", path);
	return buf[i];
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static int read_int_file(const char *path)
{
	FILE *f = fopen(path, "r");
	int v;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

void module_info(struct modinfo *m)
{
	m->loaded = exists(sys_path("/sys/module/tcp_hpcc"));
	m->btf = exists(sys_path("/sys/kernel/btf/tcp_hpcc"));
	m->probe_dscp = read_int_file(
		sys_path("/sys/module/tcp_hpcc/parameters/probe_dscp"));
	m->resp_dscp = read_int_file(
		sys_path("/sys/module/tcp_hpcc/parameters/response_dscp"));
}

/* ------------------------------------------------------------- parsing */

static int parse_u32(const char *s, __u32 *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > UINT32_MAX)
		return -1;
	*out = v;
	return 0;
}

int parse_dscp(const char *opt, const char *s)
{
	__u32 v;

	if (parse_u32(s, &v) || v < 1 || v > 63)
		usage_err(NULL, "bad DSCP '%s' for %s: expected 1..63", s, opt);
	return v;
}

/* The module's DSCPs when it is loaded, else the wire defaults. */
void dscp_defaults(int *probe, int *resp, const char *cmd)
{
	struct modinfo m;

	module_info(&m);
	if (*probe < 0)
		*probe = m.loaded && m.probe_dscp > 0 ? m.probe_dscp :
			 HPCC_DSCP_PROBE_DEFAULT;
	if (*resp < 0)
		*resp = m.loaded && m.resp_dscp > 0 ? m.resp_dscp :
			HPCC_DSCP_RESPONSE_DEFAULT;
	if (m.loaded && m.probe_dscp > 0 &&
	    (*probe != m.probe_dscp || *resp != m.resp_dscp))
		warnmsg("%s: DSCPs %d/%d differ from tcp_hpcc's probe_dscp=%d "
			"response_dscp=%d", cmd, *probe, *resp, m.probe_dscp,
			m.resp_dscp);
}

void check_dscps(int probe, int resp, const char *cmd)
{
	if (probe == resp)
		usage_err(cmd, "probe and response DSCP must differ (both %d)",
			  probe);
}

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

/* Could @name be an interface name? The kernel's dev_valid_name(): 1 to
 * IFNAMSIZ - 1 bytes, not "." or "..", no '/', ':' or whitespace (its
 * isspace() includes 0xa0). Names are parts of pin paths: one that is
 * not a name must never get that far.
 */
bool ifname_valid(const char *name)
{
	size_t n = strnlen(name, IF_NAMESIZE);
	const unsigned char *c;

	if (!n || n >= IF_NAMESIZE || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return false;
	for (c = (const unsigned char *)name; *c; c++)
		if (*c == '/' || *c == ':' || *c == 0xa0 || isspace(*c))
			return false;
	return true;
}

void check_ifname(const char *cmd, const char *name)
{
	if (!ifname_valid(name))
		usage_err(cmd, "bad device name '%s': an interface name has 1 "
			  "to %d bytes, no '/', ':' or whitespace, and is not "
			  "'.' or '..'", name, IF_NAMESIZE - 1);
}

static int dev_index(const char *dev)
{
	int ifindex = dev ? if_nametoindex(dev) : 0;

	if (!ifindex)
		die("unknown device '%s'%s%s", dev ? dev : "",
		    netns_name[0] ? " in network namespace " : "", netns_name);
	return ifindex;
}

/* Does @dev hand tc its packets from the IP header on (tun, wireguard,
 * ipip, sit, ip6tnl, gre, ppp) rather than from an Ethernet header? The
 * programs tell the two apart from the packet itself and need the device's
 * word only when a packet fits both (see hpcc_link_of()). Dies for other
 * link layers: the programs could not parse them.
 */
static bool dev_raw_ip(const char *dev, int ifindex)
{
	int type = nl_link_type(ifindex);

	switch (type) {
	case ARPHRD_ETHER:
	case ARPHRD_LOOPBACK:
		return false;
	case ARPHRD_NONE:
	case ARPHRD_RAWIP:
	case ARPHRD_TUNNEL:
	case ARPHRD_TUNNEL6:
	case ARPHRD_SIT:
	case ARPHRD_IPGRE:
	case ARPHRD_IP6GRE:
	case ARPHRD_PPP:
		return true;
	}
	if (type < 0)
		die("cannot read the link type of %s: %s", dev,
		    strerror(-type));
	die("%s has link type %d, neither Ethernet nor raw IP (tun, "
	    "wireguard, ipip, sit, ip6tnl, gre, ppp): the programs cannot "
	    "parse its packets", dev, type);
}

/* ----------------------------------------------------------- formatting */

const char *fmt_rate_bps(double bits, char *buf, size_t len)
{
	static const char *u[] = { "bit/s", "kbit/s", "Mbit/s", "Gbit/s",
				   "Tbit/s" };
	int i = 0;

	while (bits >= 1000. && i < 4) {
		bits /= 1000.;
		i++;
	}
	if (bits == floor(bits))
		snprintf(buf, len, "%.0f %s", bits, u[i]);
	else
		snprintf(buf, len, "%.*f %s", bits < 10 ? 2 : 1, bits, u[i]);
	return buf;
}

static const char *fmt_bytes(double b, char *buf, size_t len)
{
	static const char *u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int i = 0;

	while (b >= 1024. && i < 4) {
		b /= 1024.;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%.0f B", b);
	else
		snprintf(buf, len, "%.1f %s", b, u[i]);
	return buf;
}

const char *fmt_ns(long long ns, char *buf, size_t len)
{
	double a = ns < 0 ? -(double)ns : (double)ns;
	const char *sign = ns < 0 ? "-" : "";

	if (a < 1e3)
		snprintf(buf, len, "%s%.0f ns", sign, a);
	else if (a < 1e6)
		snprintf(buf, len, "%s%.1f us", sign, a / 1e3);
	else if (a < 1e9)
		snprintf(buf, len, "%s%.2f ms", sign, a / 1e6);
	else
		snprintf(buf, len, "%s%.2f s", sign, a / 1e9);
	return buf;
}

/* -------------------------------------------------- network namespaces */

static void enter_netns(const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("cannot open network namespace '%s' (%s): %s", name, path,
		    strerror(errno));
	if (setns(fd, CLONE_NEWNET))
		die("cannot enter network namespace '%s': %s", name,
		    strerror(errno));
	close(fd);
	snprintf(netns_name, sizeof(netns_name), "%s", name);
}

static __u64 netns_cookie(void)
{
	socklen_t l = sizeof(__u64);
	__u64 c = 0;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &c, &l))
		die("cannot read the network namespace cookie: %s",
		    strerror(errno));
	close(fd);
	return c;
}

/* A process in the initial namespaces: init, or kthreadd where init's
 * ns links are out of reach (ptrace rules of some sandboxes). NULL if
 * neither is readable.
 */
static const char *init_ns_path(const char *kind)
{
	static char buf[64];
	char comm[32] = "";
	FILE *f;

	snprintf(buf, sizeof(buf), "/proc/1/ns/%s", kind);
	if (!access(buf, R_OK) && exists(buf)) {
		struct stat st;

		if (!stat(buf, &st))
			return buf;
	}
	f = fopen("/proc/2/comm", "r");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
	}
	snprintf(buf, sizeof(buf), "/proc/2/ns/%s", kind);
	if (!strcmp(comm, "kthreadd\n")) {
		struct stat st;

		if (!stat(buf, &st))
			return buf;
	}
	return NULL;
}

/* Are we in the initial namespace of @kind ("net", "mnt")? If it cannot
 * be told, assume so unless -n took us elsewhere.
 */
static bool in_init_ns(const char *kind)
{
	const char *ref = init_ns_path(kind);
	char self[64];
	struct stat sa, sb;

	snprintf(self, sizeof(self), "/proc/self/ns/%s", kind);
	if (!ref || stat(self, &sa) || stat(ref, &sb))
		return !(netns_name[0] && !strcmp(kind, "net"));
	return sa.st_ino == sb.st_ino && sa.st_dev == sb.st_dev;
}

/* Is the current network namespace the initial one (the one whose pins go
 * straight under PIN_ROOT)?
 */
static bool in_root_netns(void)
{
	return in_init_ns("net");
}

/* Pin directory of the current network namespace. */
static const char *ns_pin_dir(void)
{
	static char dir[PATH_MAX];

	if (in_root_netns())
		snprintf(dir, sizeof(dir), "%s", PIN_ROOT);
	else
		snprintf(dir, sizeof(dir), "%s/netns/%llu", PIN_ROOT,
			 (unsigned long long)netns_cookie());
	return dir;
}

/* ----------------------------------------------------------- bpffs pins */

static bool is_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

/* Is there a bpffs at /sys/fs/bpf for us? Under `ip netns exec` we sit in
 * a private mount namespace whose fresh /sys has none: join init's mount
 * namespace (the network namespace stays ours), whose bpffs outlives us.
 * With @create, mount one when init has none either, as bpftool does.
 */
static bool find_bpffs(bool create)
{
	const char *p;
	int fd;

	if (is_bpffs(BPFFS))
		return true;
	if (!in_init_ns("mnt")) {
		p = init_ns_path("mnt");
		fd = p ? open(p, O_RDONLY | O_CLOEXEC) : -1;
		if (fd < 0 || setns(fd, CLONE_NEWNS)) {
			if (create)
				die("no bpffs at " BPFFS " in this mount "
				    "namespace and cannot join init's (%s): "
				    "pins would not outlive the command; use '"
				    PROG " -n NETNS ...' rather than 'ip netns "
				    "exec'", strerror(errno));
			if (fd >= 0)
				close(fd);
			return false;
		}
		close(fd);
		if (is_bpffs(BPFFS))
			return true;
	}
	if (!create)
		return false;
	mkdir(BPFFS, 0755);
	if (mount("bpf", BPFFS, "bpf", 0, "mode=0700"))
		die("no bpffs at " BPFFS " and cannot mount one: %s",
		    strerror(errno));
	return true;
}

static void ensure_bpffs(void)
{
	find_bpffs(true);
}

/* Serialise attach/detach runs: an exclusive flock on PIN_ROOT, which is
 * never removed, held until exit.
 */
static void lock_pins(void)
{
	int fd;

	if (mkdir(PIN_ROOT, 0700) && errno != EEXIST)
		die("cannot create " PIN_ROOT ": %s", strerror(errno));
	fd = open(PIN_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX))
		die("cannot lock " PIN_ROOT ": %s", strerror(errno));
}

static int mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	char *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

static const char *pin_path(const char *dir, const char *name)
{
	static char buf[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	if ((size_t)snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name) >=
	    sizeof(buf[i]))
		die("path too long: %s/%s", dir, name);
	return buf[i];
}

struct pin_map {
	struct bpf_map *map;
	const char *name;
};

/* Pin @prog as @prog_name and each of @maps under @dir: 0 or -errno. */
static int pin_objects(const char *dir, struct bpf_program *prog,
		       const char *prog_name, const struct pin_map *maps,
		       int n)
{
	int err = bpf_program__pin(prog, pin_path(dir, prog_name)), i;

	for (i = 0; !err && i < n; i++)
		err = bpf_map__pin(maps[i].map, pin_path(dir, maps[i].name));
	return err;
}

/* Is @dir a directory below PIN_ROOT, without "." or ".." components
 * that could lead out of it?
 */
static bool pin_dir_inside(const char *dir)
{
	const char *p = dir + strlen(PIN_ROOT);

	if (strncmp(dir, PIN_ROOT "/", strlen(PIN_ROOT) + 1))
		return false;
	while (*p == '/') {
		const char *end = strchrnul(p + 1, '/');
		size_t n = end - p - 1;

		if (!n || (n == 1 && p[1] == '.') ||
		    (n == 2 && p[1] == '.' && p[2] == '.'))
			return false;
		p = end;
	}
	return !*p;
}

/* Unpin everything in @dir, remove it and the parents it leaves empty up
 * to PIN_ROOT (excluded: it carries the lock).
 */
static void rm_pin_dir(const char *dir)
{
	char buf[PATH_MAX];
	struct dirent *e;
	DIR *d;
	char *slash;

	if (!pin_dir_inside(dir))
		die("refusing to remove %s: not a directory below " PIN_ROOT,
		    dir);
	d = opendir(dir);
	if (d) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				unlink(pin_path(dir, e->d_name));
		closedir(d);
	}
	snprintf(buf, sizeof(buf), "%s", dir);
	while (strlen(buf) > strlen(PIN_ROOT) && !rmdir(buf)) {
		slash = strrchr(buf, '/');
		if (!slash)
			break;
		*slash = 0;
	}
}

static int pinned_fd(const char *dir, const char *name)
{
	return bpf_obj_get(pin_path(dir, name));
}

static __u32 prog_id_of(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.id;
}

static __u32 pinned_prog_id(const char *dir, const char *name)
{
	int fd = pinned_fd(dir, name);
	__u32 id = prog_id_of(fd);

	if (fd >= 0)
		close(fd);
	return id;
}

/* ------------------------------------------------------------------ tc */

/* Program id of the filter at our handle/priority, 0 if none. */
static __u32 tc_prog_id(int ifindex, enum bpf_tc_attach_point ap)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = ap);
	LIBBPF_OPTS(bpf_tc_opts, o, .handle = TC_HANDLE, .priority = TC_PRIO);

	if (bpf_tc_query(&hook, &o))
		return 0;
	return o.prog_id;
}

static const char *ap_name(enum bpf_tc_attach_point ap)
{
	return ap == BPF_TC_INGRESS ? "ingress" : "egress";
}

/* Remove the clsact qdisc if no filter is left on either side of it. */
static void tc_clsact_gc(int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);

	if (nl_filter_count(ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS)) ||
	    nl_filter_count(ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS)))
		return;
	bpf_tc_hook_destroy(&hook);
}

/* Detach our filter if it runs program @id. 1 if it did, 0 if absent. */
static int tc_detach(const char *dev, int ifindex,
		     enum bpf_tc_attach_point ap, __u32 id)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = ap);
	LIBBPF_OPTS(bpf_tc_opts, o, .handle = TC_HANDLE, .priority = TC_PRIO);
	__u32 cur = tc_prog_id(ifindex, ap);
	int err;

	if (!cur || cur != id)
		return 0;
	err = bpf_tc_detach(&hook, &o);
	if (err)
		die("cannot detach from %s %s: %s", dev, ap_name(ap),
		    strerror(-err));
	tc_clsact_gc(ifindex);
	return 1;
}

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

/* ----------------------------------------------------------------- host */

/* The pin directory name of interface @dev, and back. bpffs refuses '.'
 * in names (reserved for its own files), and VLAN devices are usually
 * called eth0.100: ':' stands for '.', and as no interface name contains
 * a ':' (dev_valid_name()) the spelling is one to one. Names without a
 * '.' are their own spelling, as before.
 */
static const char *dev_pin_name(const char *dev)
{
	static char buf[IF_NAMESIZE];
	char *c;

	snprintf(buf, sizeof(buf), "%s", dev);
	for (c = buf; *c; c++)
		if (*c == '.')
			*c = ':';
	return buf;
}

static const char *pin_name_dev(const char *name)
{
	static char buf[NAME_MAX + 1];
	char *c;

	snprintf(buf, sizeof(buf), "%s", name);
	for (c = buf; *c; c++)
		if (*c == ':')
			*c = '.';
	return buf;
}

/* The device's own name when @dev is one of its alternative names, so
 * that pins are found under one name whatever was typed.
 */
static const char *dev_name(const char *dev, int ifindex)
{
	static char name[IF_NAMESIZE];

	if (ifindex > 0 && if_indextoname(ifindex, name))
		return name;
	return dev;
}

/* Pin directory of hpcc_host on @dev, which must be a valid interface
 * name (check_ifname()): then it is one component, inside the namespace's
 * pin directory.
 */
static const char *host_dir(const char *dev)
{
	static char dir[PATH_MAX];

	if (!ifname_valid(dev))
		die("bad device name '%s'", dev);
	snprintf(dir, sizeof(dir), "%s/host/%s", ns_pin_dir(),
		 dev_pin_name(dev));
	return dir;
}

static const char *host_usage =
	"Usage: " PROG " [-n NETNS] host attach DEV [--probe-dscp N] "
	"[--response-dscp N]\n"
	"       " PROG " [-n NETNS] host detach DEV\n"
	"\n"
	"Attach hpcc_host (probe reflector, response delivery to tcp_hpcc)\n"
	"to DEV's tc ingress; pinned under " PIN_ROOT "/host/DEV.\n"
	"DSCPs default to tcp_hpcc's probe_dscp/response_dscp parameters when\n"
	"the module is loaded, else 45/46.\n";

static int cmd_host_attach(int argc, char **argv)
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
	const char *dev, *dir;
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
	dir = host_dir(dev_name(dev, ifindex));
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

/* Options of a command that takes only --help: true when help was shown.
 * Leaves optind at the first operand.
 */
static bool help_only(int argc, char **argv, const char *cmd,
		      const char *usage)
{
	static const struct option lo[] = {
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c != 'h')
			usage_err(cmd, "bad option");
		fputs(usage, stdout);
		return true;
	}
	return false;
}

static int cmd_host_detach(int argc, char **argv)
{
	const char *dev, *dir;
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
	dir = host_dir(dev_name(dev, ifindex));
	bpffs = find_bpffs(false);
	if (bpffs && exists(PIN_ROOT))
		lock_pins();
	if (!bpffs || !exists(dir)) {
		dev_index(dev);		/* dies on an unknown device */
		die("hpcc_host is not attached to %s", dev);
	}
	id = pinned_prog_id(dir, PIN_HOST_PROG);
	refcnt = read_int_file(sys_path("/sys/module/tcp_hpcc/refcnt"));
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
		int now = read_int_file(sys_path("/sys/module/tcp_hpcc/refcnt"));
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

/* --------------------------------------------------------------- switch */

static const char *switch_dir(void)
{
	static char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/switch", ns_pin_dir());
	return dir;
}

static const char *switch_usage =
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

/* The open pins of a switch instance. */
struct sw {
	int prog, cfg, qsnap;
	__u32 prog_id;
};

static int sw_open(const char *dir, struct sw *s)
{
	s->prog = pinned_fd(dir, PIN_SW_PROG);
	s->cfg = pinned_fd(dir, PIN_CFG_PORT);
	s->qsnap = pinned_fd(dir, PIN_QSNAP);
	s->prog_id = prog_id_of(s->prog);
	if (s->prog < 0 || s->cfg < 0 || s->qsnap < 0 || !s->prog_id)
		return -1;
	return 0;
}

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

static int cmd_switch_attach(int argc, char **argv)
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
	const char *dev, *dir, *rate_s = NULL;
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
	dir = switch_dir();
	fresh = !exists(pin_path(dir, PIN_SW_PROG));
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
					    pin_path(dir, "link_" #p));
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

static int cmd_switch_detach(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct hpcc_port_cfg cfg;
	const char *dev = NULL, *dir;
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
	dir = switch_dir();
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
	char path[PATH_MAX], label[300];
	__u64 here;
	struct dirent *e;
	DIR *d;
	int i;

	home_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home_ns < 0)
		die("cannot open /proc/self/ns/net: %s", strerror(errno));
	here = netns_cookie();
	if (init_ns_path("net"))
		ns_add(init_ns_path("net"), "netns init");
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
	char dir[PATH_MAX];
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
		show_host(dir, pin_name_dev(e->d_name), label, ns != NULL);
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
	f = fopen(sys_path("/proc/net/tcp_hpcc_stat"), "r");
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

static int cmd_status(int argc, char **argv)
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

/* ---------------------------------------------------------------- flows */

/* /proc/net/tcp_hpcc: a header naming the columns, then one line per
 * flow. Columns are found by name so that new ones do not break us.
 */
#define MAX_COLS	32

static int col_of(char cols[][32], int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(cols[i], name))
			return i;
	return -1;
}

static const char flows_usage[] = "Usage: " PROG " [-n NETNS] flows\n\nThe "
	"tcp_hpcc flows of the network namespace "
	"(/proc/net/tcp_hpcc): window W, utilisation U,"
	" bottleneck hop, pacing rate, age of the last "
	"telemetry.\n";

static int cmd_flows(int argc, char **argv)
{
	enum { LOCAL, REMOTE, MODE, W, U, BN, RATE, AGE, PRTT, HOPS, NCOL };
	static const char *want[NCOL] = {
		"local", "remote", "mode", "w_bytes", "u_permille",
		"bottleneck_hop", "rate_Bps", "age_us", "probe_rtt_us", "hops",
	};
	char cols[MAX_COLS][32], line[1024], *tok[MAX_COLS], *save, *t;
	int idx[NCOL], ncols = 0, n, i, flows = 0;
	struct modinfo m;
	FILE *f;

	if (help_only(argc, argv, "flows ", flows_usage))
		return 0;
	if (optind != argc)
		usage_err("flows ", "flows takes no arguments");
	module_info(&m);
	if (!m.loaded)
		die("tcp_hpcc is not loaded (modprobe tcp_hpcc)");
	f = fopen(sys_path("/proc/net/tcp_hpcc"), "r");
	if (!f)
		die("cannot read /proc/net/tcp_hpcc: %s", strerror(errno));
	if (!fgets(line, sizeof(line), f))
		die("/proc/net/tcp_hpcc is empty");
	for (t = strtok_r(line, " \t\n", &save); t && ncols < MAX_COLS;
	     t = strtok_r(NULL, " \t\n", &save))
		snprintf(cols[ncols++], sizeof(cols[0]), "%s", t);
	for (i = 0; i < NCOL; i++)
		idx[i] = col_of(cols, ncols, want[i]);
	if (idx[LOCAL] < 0 || idx[REMOTE] < 0)
		die("/proc/net/tcp_hpcc: unexpected header");

	printf("%-24s %-24s %-5s %10s %6s %10s %12s %10s %10s %4s\n",
	       "LOCAL", "REMOTE", "MODE", "W", "U", "BOTTLENECK", "RATE",
	       "AGE", "PROBE_RTT", "HOPS");
	while (fgets(line, sizeof(line), f)) {
		char w[32] = "-", u[16] = "-", bn[16] = "-", rate[32] = "-",
		     age[32] = "-", prtt[32] = "-", hops[8] = "-";
		unsigned long long v, nh = 0;
		const char *mode = "-";

		n = 0;
		for (t = strtok_r(line, " \t\n", &save); t && n < MAX_COLS;
		     t = strtok_r(NULL, " \t\n", &save))
			tok[n++] = t;
		if (n <= idx[REMOTE])
			continue;
#define COL(k) (idx[k] >= 0 && idx[k] < n ? tok[idx[k]] : NULL)
#define NUM(k) (COL(k) && sscanf(COL(k), "%llu", &v) == 1)
		if (COL(MODE))
			mode = COL(MODE);
		if (NUM(HOPS)) {
			nh = v;
			snprintf(hops, sizeof(hops), "%llu", v);
		}
		if (NUM(W))
			fmt_bytes(v, w, sizeof(w));
		if (NUM(U))
			snprintf(u, sizeof(u), "%.1f%%", v / 10.);
		if (NUM(BN) && nh)
			snprintf(bn, sizeof(bn), "hop %llu", v + 1);
		if (NUM(RATE) && v)
			fmt_rate_bps(v * 8., rate, sizeof(rate));
		if (NUM(PRTT) && v)
			fmt_ns(v * 1000LL, prtt, sizeof(prtt));
		/* the module prints "-" for a flow that never had telemetry */
		if (idx[AGE] >= 0 && idx[AGE] < n && !strcmp(tok[idx[AGE]], "-"))
			snprintf(age, sizeof(age), "never");
		else if (NUM(AGE))
			fmt_ns(v * 1000LL, age, sizeof(age));
#undef NUM
#undef COL
		printf("%-24s %-24s %-5s %10s %6s %10s %12s %10s %10s %4s\n",
		       tok[idx[LOCAL]], tok[idx[REMOTE]], mode, w, u, bn, rate,
		       age, prtt, hops);
		flows++;
	}
	fclose(f);
	if (!flows)
		printf("(no tcp_hpcc flows in this network namespace)\n");
	return 0;
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
