/* SPDX-License-Identifier: GPL-2.0 */
/* hpcc-probe: declarations shared by hpcc-probe.c, trace.c and nl.c. */
#ifndef _HPCC_PROBE_H
#define _HPCC_PROBE_H

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define PROG "hpcc-probe"

extern int verbose;

/* One line on stderr, "hpcc-probe: ..."; die() exits with status 1. */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void warnmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Usage error: the message, then "see hpcc-probe CMD --help"; exit 2. */
void usage_err(const char *cmd, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/* Interface names: valid by the kernel's rules? check_ifname(): exit 2
 * with a usage message unless.
 */
bool ifname_valid(const char *name);
void check_ifname(const char *cmd, const char *name);

/* Capabilities: die with the standard message unless we have them. */
void need_bpf_caps(void);
void need_raw_caps(void);

/* tcp_hpcc.ko as seen through sysfs (HPCC_PROBE_ROOT prefixes the paths). */
struct modinfo {
	bool loaded;		/* /sys/module/tcp_hpcc */
	bool btf;		/* /sys/kernel/btf/tcp_hpcc */
	int probe_dscp;		/* its parameters, -1 if unreadable */
	int resp_dscp;
};
void module_info(struct modinfo *m);
const char *sys_path(const char *path);	/* static buffer */

/* DSCPs: --probe-dscp / --response-dscp or the module's or the defaults. */
int parse_dscp(const char *opt, const char *s);
void dscp_defaults(int *probe, int *resp, const char *cmd);
void check_dscps(int probe, int resp, const char *cmd);

/* Human units. */
const char *fmt_rate_bps(double bits, char *buf, size_t len);
const char *fmt_ns(long long ns, char *buf, size_t len);

/* nl.c: rtnetlink queries in the current network namespace. */
int nl_root_qdisc(int ifindex, char *kind, size_t len);
int nl_filter_count(int ifindex, __u32 parent);
int nl_link_type(int ifindex);

/* trace.c */
int cmd_trace(int argc, char **argv);

#endif
