/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc-probe: the declarations shared by its files.
 *
 * main.c dispatches to the commands, one file per object: host.c,
 * switch.c, status.c, trace.c, flows.c. They call the common layer, never
 * each other (switch_cfg.c, switch.c's command line, is switch.c's
 * alone): common.c (messages, capabilities, the module's sysfs files,
 * option values, formatting), netns.c (network namespaces), pins.c (bpffs,
 * pin directories), tc.c (our tc filters), nl.c (rtnetlink).
 */
#ifndef _HPCC_PROBE_H
#define _HPCC_PROBE_H

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#include <stdbool.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/types.h>
#include <bpf/libbpf.h>

#include "hpcc_wire.h"

#define PROG "hpcc-probe"

/*
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
#define BPFFS		"/sys/fs/bpf"
#define PIN_ROOT	BPFFS "/tcp_hpcc"
#define TC_HANDLE	0x4850		/* "HP" */
#define TC_PRIO		1

/* Pin names inside an instance directory. */
#define PIN_HOST_PROG	"hpcc_host"
#define PIN_SW_PROG	"hpcc_switch"
#define PIN_EDGE_PROG	"hpcc_edge_in"	/* edge ports' ingress */
#define PIN_CFG_HOST	"hpcc_host_cfg"
#define PIN_CFG_PORT	"hpcc_port_cfg"
#define PIN_QSNAP	"hpcc_qsnap"
#define PIN_COUNTERS	"hpcc_counters"

/* ------------------------------------------------------------ common.c */

extern int verbose;

/*
 * Messages: one line on stderr, "hpcc-probe: ...", after what stdout
 * holds so far. die() then exits with status 1; usage_err() adds "(see
 * 'hpcc-probe CMD--help')" and exits with status 2. Macros, as pr_err() is,
 * so that printf() checks each format against its arguments.
 */
void msg_flush(void);
const char *msg_cmd(const char *cmd);

#define errmsg(fmt, ...)						\
	do {								\
		msg_flush();						\
		fprintf(stderr, PROG ": " fmt "\n", ##__VA_ARGS__);	\
	} while (0)

#define warnmsg(fmt, ...)	errmsg("warning: " fmt, ##__VA_ARGS__)

#define die(fmt, ...)							\
	do {								\
		errmsg(fmt, ##__VA_ARGS__);				\
		exit(1);						\
	} while (0)

#define usage_err(cmd, fmt, ...)					\
	do {								\
		errmsg(fmt " (see '" PROG " %s--help')", ##__VA_ARGS__,	\
		       msg_cmd(cmd));					\
		exit(2);						\
	} while (0)

/* " (run with -v for libbpf's log)" unless it runs with -v */
const char *vhint(void);

/* Capabilities: die with the standard message unless we have them. */
void need_bpf_caps(void);
void need_raw_caps(void);

/* tcp_hpcc.ko as seen through sysfs and procfs: HPCC_PROBE_ROOT=DIR
 * prefixes the paths (tests fake the module so).
 */
bool sys_exists(const char *path);
int sys_read_int(const char *path);
FILE *sys_fopen(const char *path);

struct modinfo {
	bool loaded;		/* /sys/module/tcp_hpcc */
	bool btf;		/* /sys/kernel/btf/tcp_hpcc */
	int probe_dscp;		/* its parameters, -1 if unreadable */
	int resp_dscp;
};

void module_info(struct modinfo *m);
bool exists(const char *path);

/* Option values. DSCPs: --probe-dscp / --response-dscp or the module's or
 * the defaults.
 */
int parse_u32(const char *s, __u32 *out);
int parse_dscp(const char *opt, const char *s);
void dscp_defaults(int *probe, int *resp, const char *cmd);
void check_dscps(int probe, int resp, const char *cmd);
/* Options of a command that takes only --help: true when help was shown. */
bool help_only(int argc, char **argv, const char *cmd, const char *usage);

/* Interface names: valid by the kernel's rules? check_ifname(): exit 2
 * with a usage message unless.
 */
bool ifname_valid(const char *name);
void check_ifname(const char *cmd, const char *name);
/* The one device of "CMD attach" (@cmd: "host " or "switch "). */
const char *attach_dev(int argc, char **argv, const char *cmd);
bool dev_raw_ip(const char *dev, int ifindex);

__u64 now_ns(void);		/* CLOCK_MONOTONIC */
__u32 rnd32(void);

/* Human units. */
const char *fmt_rate_bps(double bits, char *buf, size_t len);
const char *fmt_bytes(double b, char *buf, size_t len);
const char *fmt_ns(long long ns, char *buf, size_t len);
/* The reflection limit: "reflect N/s burst M", or "reflect unlimited". */
const char *fmt_peer(__u32 rate, __u32 burst, char *buf, size_t len);
const char *fmt_reflect(__u32 rate, __u32 burst, char *buf, size_t len);

/* ------------------------------------------------------------- netns.c */

void enter_netns(const char *name);
const char *netns_arg(void);
__u64 netns_cookie(void);
const char *init_ns_path(const char *kind, char *buf, size_t len);
bool in_init_ns(const char *kind);
bool in_root_netns(void);
const char *ns_pin_dir(char *buf, size_t len);
int dev_index(const char *dev);

/* -------------------------------------------------------------- pins.c */

bool find_bpffs(bool create);
void ensure_bpffs(void);
void lock_pins(void);
int mkdir_p(const char *path);
const char *pin_path(const char *dir, const char *name, char *buf,
		     size_t len);

struct pin_map {
	struct bpf_map *map;
	const char *name;
};

int pin_objects(const char *dir, struct bpf_program *prog,
		const char *prog_name, const struct pin_map *maps, int n);
void rm_pin_dir(const char *dir);
int pinned_fd(const char *dir, const char *name);
__u32 prog_id_of(int fd);
__u32 pinned_prog_id(const char *dir, const char *name);

const char *pin_name_dev(const char *name, char *buf, size_t len);
const char *dev_name(const char *dev, int ifindex, char buf[IF_NAMESIZE]);
const char *host_dir(const char *dev, char *buf, size_t len);
const char *switch_dir(char *buf, size_t len);
void keys_inherit(int map_fd);

/* The open pins of a switch instance. */
struct sw {
	int prog, cfg, qsnap;
	__u32 prog_id;
	int edge_prog;		/* -1: an instance older than edge mode */
	__u32 edge_prog_id;
};

#define SW_CLOSED	{ .prog = -1, .cfg = -1, .qsnap = -1, .edge_prog = -1 }
int sw_open(const char *dir, struct sw *s);
void sw_close(struct sw *s);

/* ---------------------------------------------------------------- tc.c */

__u32 tc_prog_id(int ifindex, enum bpf_tc_attach_point ap);
int tc_attach(int ifindex, enum bpf_tc_attach_point ap, int prog_fd);
int tc_slot_taken(const char *dev, int ifindex, enum bpf_tc_attach_point ap);
int tc_attach_named(const char *dev, int ifindex, enum bpf_tc_attach_point ap,
		    int prog_fd, const char *name);
void tc_clsact_gc(int ifindex);
int tc_detach(const char *dev, int ifindex, enum bpf_tc_attach_point ap,
	      __u32 id);

/* --------------------------------------------------------------- pkt.c */

union inet_addr {
	struct in_addr v4;
	struct in6_addr v6;
};

/* A probe's addresses and ports: from src:sport to dst:dport. */
struct probe_tuple {
	int family;
	union inet_addr src, dst;
	__u16 sport, dport;
};

/* Its IPv6 header, TCP header and struct hpcc_probe. */
#define PROBE_PKT_MAX	(40 + 20 + sizeof(struct hpcc_probe))

size_t probe_build(__u8 *pkt, const struct probe_tuple *t, int dscp,
		   __u32 nonce, __u64 send_ns);

/* What a response said, and how it came back. */
struct probe_resp {
	struct hpcc_probe p;
	__u64 rtt_ns;
	int ifindex;		/* where it arrived */
	int dscp;
	bool csum_ok;
};

#define PROBE_RESPONSE	1
#define PROBE_RST	2
int probe_match(const __u8 *pkt, size_t n, __u16 proto,
		const struct probe_tuple *t, __u32 nonce,
		struct probe_resp *r);

/* ---------------------------------------------------------------- nl.c */

/* rtnetlink queries in the current network namespace. */
int nl_root_qdisc(int ifindex, char *kind, size_t len);
int nl_filter_count(int ifindex, __u32 parent);
int nl_link_type(int ifindex);

/* ---------------------------------------------------------- switch_cfg.c */

/* What `switch attach` was told; DSCPs -1 when not given. Only switch.c
 * uses it.
 */
struct sw_opts {
	const char *dev, *rate;
	__u32 rate_mbps, sid, pid;
	bool have_sid, have_pid, edge, anon;
	int probe, resp;
	__u32 qos_classid, qos_mbps;	/* --qos; classid 0: not given */
	int qos_dscp;
};

int sw_attach_args(int argc, char **argv, struct sw_opts *o);
int sw_detach_args(int argc, char **argv, const char **dev);
__u32 default_switch_id(char *how, size_t len);
struct hpcc_port_cfg;
void sw_port_cfg(const struct sw_opts *o, bool raw_ip,
		 struct hpcc_port_cfg *cfg);

/* ------------------------------------------------------------ commands */

extern const char *host_usage;
extern const char *switch_usage;
int cmd_host_attach(int argc, char **argv);
int cmd_host_detach(int argc, char **argv);
int cmd_switch_attach(int argc, char **argv);
int cmd_switch_detach(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_flows(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_key(int argc, char **argv);

#endif
