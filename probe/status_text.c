// SPDX-License-Identifier: GPL-2.0
/*
 * `hpcc-probe status`: the text display of what status.c gathered.
 */
#include <stdio.h>
#include <string.h>

#include "hpcc_maps.h"
#include "probe.h"
#include "status.h"

static void print_counters(const struct st_counters *c)
{
	const unsigned int rows = (HPCC_CNT_MAX + 1) / 2;
	unsigned int i, j;

	if (c->err) {
		printf("  counters: unreadable (%s)\n", strerror(c->err));
		return;
	}
	/* Two columns, in enum order down each column. */
	printf("  counters:\n");
	for (i = 0; i < rows; i++) {
		for (j = i; j < HPCC_CNT_MAX; j += rows)
			printf("    %-20s %12llu", hpcc_counter_name(j),
			       (unsigned long long)c->v[j]);
		printf("\n");
	}
}

static const char *ns_label(const struct st_ns *ns, char *buf, size_t len)
{
	if (ns->entered)
		snprintf(buf, len, "netns %s", ns->name);
	else if (ns->init_dir)
		snprintf(buf, len, "netns init, cannot enter it");
	else
		snprintf(buf, len,
			 "netns cookie %llu, not found (gone or unnamed; rm -r " PIN_ROOT "/netns/%llu)",
			 (unsigned long long)ns->cookie,
			 (unsigned long long)ns->cookie);
	return buf;
}

/* Where a host device's filter stands. */
static const char *host_state(enum st_state s)
{
	switch (s) {
	case ST_UNKNOWN:
		return "unknown (namespace not found)";
	case ST_GONE:
		return "GONE (device missing; " PROG " host detach removes the pins)";
	case ST_ATTACHED:
		return "attached";
	default:
		return "NOT ATTACHED (filter removed; " PROG " host detach removes the pins)";
	}
}

static void print_host(const struct st_inst *in, const char *label)
{
	const struct st_host *h = &in->host;
	char lim[128] = "", plim[64];

	if (h->has_reflect) {
		fmt_reflect(h->reflect_rate, h->reflect_burst, lim,
			    sizeof(plim));
		strcat(lim, ", ");
	}
	if (h->has_peer) {
		fmt_peer(h->peer_rate, h->peer_burst, plim, sizeof(plim));
		strcat(lim, plim);
		strcat(lim, ", ");
	}
	printf("host %s [%s]: prog id %u, probe_dscp %d, response_dscp %d, %s%s%stc ingress %s\n",
	       h->dev, label, h->prog_id, h->probe_dscp, h->resp_dscp, lim,
	       h->raw_ip ? "raw IP, " : "",
	       h->rx_window ? "rx window, " : "", host_state(h->ingress));
	print_counters(&in->cnt);
}

/* Where a switch port's filter stands. */
static const char *port_state(enum st_state s)
{
	switch (s) {
	case ST_UNKNOWN:
		return "unknown (namespace not found)";
	case ST_GONE:
		return "GONE (device missing; the next switch attach or detach here drops this port)";
	case ST_ATTACHED:
		return "attached";
	default:
		return "NOT ATTACHED (the next switch attach or detach here drops this port)";
	}
}

static void print_qsnap(const struct st_port *p)
{
	char b1[32], b2[32];

	if (p->qsnap == QS_NONE) {
		printf("    queue snapshot: none yet%s\n",
		       !strcmp(p->qkind, "noqueue") ? " (noqueue: never)" : "");
		return;
	}
	if (p->qsnap == QS_STALE) {
		printf("    queue snapshot: none for the current root qdisc\n");
		return;
	}
	printf("    queue snapshot: backlog %u B, sent %llu B%s%s%s, %s old%s\n",
	       p->backlog, (unsigned long long)p->bytes,
	       p->bytes >= 1024 ? " (" : "",
	       p->bytes >= 1024 ? fmt_bytes(p->bytes, b1, sizeof(b1)) : "",
	       p->bytes >= 1024 ? ")" : "", fmt_ns(p->age_ns, b2, sizeof(b2)),
	       p->mq ? ", per tx queue" : "");
}

static void print_port(const struct st_port *p)
{
	const struct hpcc_port_cfg *cfg = &p->cfg;
	char edge[128] = "";

	/* An edge port: its ingress program too, before the egress state
	 * that ends the line.
	 */
	if (cfg->flags & HPCC_PORT_F_EDGE)
		snprintf(edge, sizeof(edge), "edge (tc ingress %s), ",
			 port_state(p->ingress));
	printf("  port %s (ifindex %u): switch_id %u, port_id %u, rate %u Mbit/s, probe_dscp %u, response_dscp %u, %s%s%sroot qdisc %s, tc egress %s\n",
	       p->name[0] ? p->name : "?", p->ifindex, cfg->switch_id,
	       cfg->flags & HPCC_PORT_F_PORT_ID ? cfg->port_id : p->ifindex,
	       cfg->rate_mbps, cfg->probe_dscp, cfg->resp_dscp, edge,
	       cfg->flags & HPCC_PORT_F_ANON ? "anonymised, " : "",
	       cfg->flags & HPCC_PORT_F_RAW_IP ? "raw IP, " : "", p->qkind,
	       port_state(p->egress));
	if (cfg->flags & HPCC_PORT_F_QOS)
		printf("    qos: stamps class %x:%x (data DSCP %u), guaranteed %u Mbit/s\n",
		       cfg->qos_classid >> 16, cfg->qos_classid & 0xffff,
		       cfg->qos_dscp, cfg->qos_rate_mbps);
	if (!(cfg->flags & HPCC_PORT_F_EDGE))
		print_qsnap(p);
}

static void print_switch(const struct st_inst *in, const char *label)
{
	const struct st_switch *w = &in->sw;
	int i;

	if (w->broken) {
		printf("switch [%s]: BROKEN instance at %s (" PROG " switch detach --all removes it)\n",
		       label, w->dir);
		return;
	}
	printf("switch [%s]: prog id %u, qdisc tracing links %d/3%s\n", label,
	       w->prog_id, w->links,
	       w->links == 3 ? "" : " (queue state missing)");
	for (i = 0; i < w->nports; i++)
		print_port(&w->ports[i]);
	print_counters(&in->cnt);
}

static void print_module(const struct st_module *m)
{
	int i;

	if (!m->loaded) {
		printf("module tcp_hpcc: not loaded\n");
		return;
	}
	printf("module tcp_hpcc: loaded, BTF %s, probe_dscp %d, response_dscp %d\n",
	       m->btf ? "present" : "MISSING (kfunc not registered)",
	       m->probe_dscp, m->resp_dscp);
	if (!m->have_stat)
		return;
	printf("  /proc/net/tcp_hpcc_stat:\n");
	for (i = 0; i < m->nstat; i++)
		printf("    %-20s %llu\n", m->stat[i].name, m->stat[i].v);
}

void status_print_text(const struct status *st)
{
	const struct st_config *c = &st->conf;
	char label[400];
	int i;

	for (i = 0; i < st->n; i++) {
		ns_label(&st->inst[i].ns, label, sizeof(label));
		if (st->inst[i].is_switch)
			print_switch(&st->inst[i], label);
		else
			print_host(&st->inst[i], label);
	}
	if (!st->n)
		printf("no hpcc programs attached (nothing pinned under " PIN_ROOT ")\n");
	print_module(&st->mod);
	if (!c->present)
		return;
	printf("configured in %s (hpcc-setup status):\n", c->file);
	if (!c->setup_found)
		printf("  unknown: hpcc-setup not found (HPCC_SETUP, PATH)\n");
	for (i = 0; i < c->nlines; i++)
		printf("  %s\n", c->lines[i]);
}
