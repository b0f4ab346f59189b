// SPDX-License-Identifier: GPL-2.0
/*
 * What every command uses: messages, capabilities, tcp_hpcc's
 * sysfs files, option values, interface names, human units.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <math.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "hpcc_maps.h"
#include "probe.h"

#ifndef ARPHRD_IP6GRE
#define ARPHRD_IP6GRE		823
#endif

int verbose;

/* ------------------------------------------------------------ messages */

/* Before a message on stderr: what is on stdout goes first. errno is
 * kept for the message's strerror().
 */
void msg_flush(void)
{
	int err = errno;

	fflush(stdout);
	errno = err;
}

/* usage_err()'s CMD: "" for none. */
const char *msg_cmd(const char *cmd)
{
	return cmd ? cmd : "";
}

const char *vhint(void)
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
static const char *sys_path(const char *path, char *buf, size_t len)
{
	const char *root = getenv("HPCC_PROBE_ROOT");

	snprintf(buf, len, "%s%s", root ? root : "", path);
	return buf;
}

bool exists(const char *path)
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

/* Does the module's file @path exist? */
bool sys_exists(const char *path)
{
	char buf[PATH_MAX];

	return exists(sys_path(path, buf, sizeof(buf)));
}

/* The number in the module's file @path, -1 if there is none. */
int sys_read_int(const char *path)
{
	char buf[PATH_MAX];

	return read_int_file(sys_path(path, buf, sizeof(buf)));
}

/* The module's file @path, open for reading, or NULL (errno). */
FILE *sys_fopen(const char *path)
{
	char buf[PATH_MAX];

	return fopen(sys_path(path, buf, sizeof(buf)), "r");
}

void module_info(struct modinfo *m)
{
	m->loaded = sys_exists("/sys/module/tcp_hpcc");
	m->btf = sys_exists("/sys/kernel/btf/tcp_hpcc");
	m->probe_dscp = sys_read_int("/sys/module/tcp_hpcc/parameters/probe_dscp");
	m->resp_dscp = sys_read_int("/sys/module/tcp_hpcc/parameters/response_dscp");
}

/* ------------------------------------------------------------- parsing */

int parse_u32(const char *s, __u32 *out)
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
		warnmsg("%s: DSCPs %d/%d differ from tcp_hpcc's probe_dscp=%d response_dscp=%d",
			cmd, *probe, *resp, m.probe_dscp,
			m.resp_dscp);
}

void check_dscps(int probe, int resp, const char *cmd)
{
	if (probe == resp)
		usage_err(cmd, "probe and response DSCP must differ (both %d)",
			  probe);
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
		usage_err(cmd, "bad device name '%s': an interface name has 1 to %d bytes, no '/', ':' or whitespace, and is not '.' or '..'",
			  name, IF_NAMESIZE - 1);
}

const char *attach_dev(int argc, char **argv, const char *cmd)
{
	if (optind + 1 != argc)
		usage_err(cmd, "%sattach takes one device", cmd);
	check_ifname(cmd, argv[optind]);
	return argv[optind];
}

/* Does @dev hand tc its packets from the IP header on (tun, wireguard,
 * ipip, sit, ip6tnl, gre, ppp) rather than from an Ethernet header? The
 * programs tell the two apart from the packet itself and need the device's
 * word only when a packet fits both (see hpcc_link_of()). Dies for other
 * link layers: the programs could not parse them.
 */
bool dev_raw_ip(const char *dev, int ifindex)
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
	die("%s has link type %d, neither Ethernet nor raw IP (tun, wireguard, ipip, sit, ip6tnl, gre, ppp): the programs cannot parse its packets",
	    dev, type);
}

/* ------------------------------------------------------- time, random */

__u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

__u32 rnd32(void)
{
	__u32 v;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (__u32)now_ns() ^ ((__u32)getpid() << 16);
	return v;
}

/* ----------------------------------------------------------- formatting */

const char *fmt_rate_bps(double bits, char *buf, size_t len)
{
	static const char * const u[] = { "bit/s", "kbit/s", "Mbit/s", "Gbit/s",
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

const char *fmt_bytes(double b, char *buf, size_t len)
{
	static const char * const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
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

/* The per-peer limit, worded apart from fmt_reflect()'s (scripts match
 * "reflect N/s burst M" for the device's).
 */
const char *fmt_peer(__u32 rate, __u32 burst, char *buf, size_t len)
{
	if (!rate)
		snprintf(buf, len, "per peer unlimited");
	else
		snprintf(buf, len, "per peer %u/s burst %u", rate,
			 burst ? burst : 1);
	return buf;
}

const char *fmt_reflect(__u32 rate, __u32 burst, char *buf, size_t len)
{
	if (!rate)
		snprintf(buf, len, "reflect unlimited");
	else
		snprintf(buf, len, "reflect %u/s burst %u", rate,
			 burst ? burst : 1);
	return buf;
}

/* Options of a command that takes only --help: true when help was shown.
 * Leaves optind at the first operand.
 */
bool help_only(int argc, char **argv, const char *cmd, const char *usage)
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

