/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `hpcc-probe status`: what status.c gathers, and its two printers
 * (status_text.c, status_json.c). Gathering reads everything once; the
 * printers only format it.
 */
#ifndef HPCC_PROBE_STATUS_H
#define HPCC_PROBE_STATUS_H

#include <limits.h>
#include <stdbool.h>
#include <net/if.h>
#include <linux/types.h>

#include "hpcc_maps.h"

/* Where a tc filter stands. */
enum st_state {
	ST_UNKNOWN,		/* its namespace was not found */
	ST_GONE,		/* the device is missing */
	ST_NOT_ATTACHED,	/* the device is there, our filter is not */
	ST_ATTACHED,
};

/* The namespace of a pin directory. */
struct st_ns {
	char name[300];		/* "init", "d", "current"; "" if not found */
	__u64 cookie;
	bool entered;		/* found and entered: device states known */
	bool init_dir;		/* PIN_ROOT itself, init's directory */
};

struct st_counters {
	int err;		/* 0, or the errno that made them unreadable */
	__u64 v[HPCC_CNT_MAX];
};

struct st_host {
	char dev[NAME_MAX + 1];
	__u32 prog_id;
	int probe_dscp, resp_dscp;
	bool has_reflect;	/* a program older than the limit has none */
	__u32 reflect_rate, reflect_burst;
	bool has_peer;		/* nor, before it, the per-peer limit */
	__u32 peer_rate, peer_burst;
	bool raw_ip;
	bool rx_window;		/* Rx-HPCC windows (--rx-window) */
	bool has_flow_epoch;	/* --flow-epoch given (else the default) */
	__u32 flow_epoch_us;
	enum st_state ingress;
};

enum st_qsnap {
	QS_NONE,		/* none yet */
	QS_STALE,		/* none for the current root qdisc */
	QS_OK,
};

struct st_port {
	__u32 ifindex;
	char name[IF_NAMESIZE];	/* "" if the device is missing */
	char qkind[64];		/* its root qdisc's kind, "?" if unknown */
	struct hpcc_port_cfg cfg;
	enum st_state egress, ingress;	/* ingress: edge ports only */
	enum st_qsnap qsnap;	/* not for edge ports */
	__u32 backlog;
	__u64 bytes;
	long long age_ns;
	bool mq;
};

struct st_switch {
	bool broken;
	char dir[PATH_MAX];
	__u32 prog_id;
	int links;		/* qdisc tracing links, of 3 */
	struct st_port *ports;
	int nports;
};

/* One pinned object: a host device or a namespace's switch instance. */
struct st_inst {
	struct st_ns ns;
	bool is_switch;
	struct st_host host;
	struct st_switch sw;
	struct st_counters cnt;	/* not for a broken instance */
};

struct st_stat {
	char name[128];
	unsigned long long v;
};

struct st_module {
	bool loaded, btf;
	int probe_dscp, resp_dscp;
	bool have_stat;		/* /proc/net/tcp_hpcc_stat readable */
	struct st_stat *stat;
	int nstat;
};

/* hpcc-setup status against hpcc.conf(5). */
struct st_config {
	bool present;		/* a configuration file to compare with */
	char file[PATH_MAX];
	bool setup_found;
	char **lines;		/* its verdicts, without the newline */
	int nlines;
	int rc;			/* its exit status: 0, 3 differs, 1 errors */
};

struct status {
	bool bpffs;		/* found: pins were looked at */
	struct st_inst *inst;	/* in the order found */
	int n;
	struct st_module mod;
	struct st_config conf;
};

void status_print_text(const struct status *st);
void status_print_json(const struct status *st);
const char *st_state_name(enum st_state s);

#endif
