// SPDX-License-Identifier: GPL-2.0
/*
 * `hpcc-probe status --json`: what status.c gathered as one JSON object
 * (hpcc-probe(8) lists its keys). Numbers are numbers; strings are
 * escaped, bytes outside ASCII as \u00XX (device names need not be
 * UTF-8).
 */
#include <stdio.h>
#include <string.h>

#include "hpcc_flowcount.h"
#include "hpcc_maps.h"
#include "probe.h"
#include "status.h"

const char *st_state_name(enum st_state s)
{
	switch (s) {
	case ST_UNKNOWN:
		return "unknown";
	case ST_GONE:
		return "gone";
	case ST_ATTACHED:
		return "attached";
	default:
		return "not_attached";
	}
}

static void jstr(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putchar('"');
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

/* "key": with the comma before it unless first */
static void jkey(const char *key, bool first)
{
	printf("%s\"%s\":", first ? "" : ",", key);
}

static void jbool(const char *key, bool v)
{
	jkey(key, false);
	fputs(v ? "true" : "false", stdout);
}

static void print_ns(const struct st_ns *ns)
{
	jkey("netns", false);
	printf("{\"name\":");
	if (ns->name[0] && (ns->entered || ns->init_dir))
		jstr(ns->name);
	else
		printf("null");
	printf(",\"cookie\":%llu,\"found\":%s}",
	       (unsigned long long)ns->cookie, ns->entered ? "true" : "false");
}

static void print_counters(const struct st_counters *c)
{
	unsigned int i;

	jkey("counters", false);
	if (c->err) {
		printf("null,\"counters_error\":");
		jstr(strerror(c->err));
		return;
	}
	putchar('{');
	for (i = 0; i < HPCC_CNT_MAX; i++) {
		jkey(hpcc_counter_name(i), !i);
		printf("%llu", (unsigned long long)c->v[i]);
	}
	putchar('}');
}

static void print_host(const struct st_inst *in)
{
	const struct st_host *h = &in->host;

	printf("{\"dev\":");
	jstr(h->dev);
	print_ns(&in->ns);
	printf(",\"prog_id\":%u,\"probe_dscp\":%d,\"response_dscp\":%d",
	       h->prog_id, h->probe_dscp, h->resp_dscp);
	if (h->has_reflect)
		printf(",\"reflect_rate\":%u,\"reflect_burst\":%u",
		       h->reflect_rate,
		       h->reflect_rate && !h->reflect_burst ? 1 :
							h->reflect_burst);
	else
		printf(",\"reflect_rate\":null,\"reflect_burst\":null");
	if (h->has_peer)
		printf(",\"peer_rate\":%u,\"peer_burst\":%u", h->peer_rate,
		       h->peer_rate && !h->peer_burst ? 1 : h->peer_burst);
	else
		printf(",\"peer_rate\":null,\"peer_burst\":null");
	jbool("raw_ip", h->raw_ip);
	jbool("rx_window", h->rx_window);
	printf(",\"flow_epoch_ms\":%u", (h->has_flow_epoch ? h->flow_epoch_us :
					  HPCC_FC_EPOCH_US_DEFAULT) / 1000);
	printf(",\"tc_ingress\":\"%s\"", st_state_name(h->ingress));
	print_counters(&in->cnt);
	putchar('}');
}

static void print_qsnap(const struct st_port *p)
{
	static const char *const name[] = {
		[QS_NONE] = "none", [QS_STALE] = "stale", [QS_OK] = "ok",
	};

	jkey("queue_snapshot", false);
	if (p->cfg.flags & HPCC_PORT_F_EDGE) {
		printf("null");
		return;
	}
	printf("{\"state\":\"%s\"", name[p->qsnap]);
	if (p->qsnap == QS_OK)
		printf(",\"backlog_bytes\":%u,\"sent_bytes\":%llu,\"age_ns\":%lld,\"per_txq\":%s",
		       p->backlog, (unsigned long long)p->bytes, p->age_ns,
		       p->mq ? "true" : "false");
	putchar('}');
}

static void print_port(const struct st_port *p, bool first)
{
	const struct hpcc_port_cfg *cfg = &p->cfg;
	bool edge = cfg->flags & HPCC_PORT_F_EDGE;

	printf("%s{\"dev\":", first ? "" : ",");
	if (p->name[0])
		jstr(p->name);
	else
		printf("null");
	printf(",\"ifindex\":%u,\"switch_id\":%u,\"port_id\":%u,\"rate_mbps\":%u,\"probe_dscp\":%u,\"response_dscp\":%u",
	       p->ifindex, cfg->switch_id,
	       cfg->flags & HPCC_PORT_F_PORT_ID ? cfg->port_id : p->ifindex,
	       cfg->rate_mbps, cfg->probe_dscp, cfg->resp_dscp);
	jbool("edge", edge);
	jbool("raw_ip", cfg->flags & HPCC_PORT_F_RAW_IP);
	jbool("anonymised", cfg->flags & HPCC_PORT_F_ANON);
	if (cfg->flags & HPCC_PORT_F_QOS)
		printf(",\"qos\":{\"classid\":\"%x:%x\",\"dscp\":%u,\"rate_mbps\":%u}",
		       cfg->qos_classid >> 16, cfg->qos_classid & 0xffff,
		       cfg->qos_dscp, cfg->qos_rate_mbps);
	else
		printf(",\"qos\":null");
	jkey("root_qdisc", false);
	if (strcmp(p->qkind, "?"))
		jstr(p->qkind);
	else
		printf("null");
	printf(",\"tc_egress\":\"%s\",\"tc_ingress\":", st_state_name(p->egress));
	if (edge)
		printf("\"%s\"", st_state_name(p->ingress));
	else
		printf("null");
	print_qsnap(p);
	putchar('}');
}

static void print_switch(const struct st_inst *in)
{
	const struct st_switch *w = &in->sw;
	int i;

	printf("{\"dir\":");
	jstr(w->dir);
	print_ns(&in->ns);
	jbool("broken", w->broken);
	if (w->broken) {
		printf(",\"prog_id\":null,\"qdisc_tracing_links\":null,\"ports\":[],\"counters\":null}");
		return;
	}
	printf(",\"prog_id\":%u,\"qdisc_tracing_links\":%d,\"ports\":[",
	       w->prog_id, w->links);
	for (i = 0; i < w->nports; i++)
		print_port(&w->ports[i], !i);
	putchar(']');
	print_counters(&in->cnt);
	putchar('}');
}

static void print_module(const struct st_module *m)
{
	int i;

	printf(",\"module\":{\"loaded\":%s", m->loaded ? "true" : "false");
	if (!m->loaded) {
		printf(",\"btf\":null,\"probe_dscp\":null,\"response_dscp\":null,\"stat\":null}");
		return;
	}
	jbool("btf", m->btf);
	printf(",\"probe_dscp\":%d,\"response_dscp\":%d,\"stat\":",
	       m->probe_dscp, m->resp_dscp);
	if (!m->have_stat) {
		printf("null}");
		return;
	}
	putchar('{');
	for (i = 0; i < m->nstat; i++) {
		if (i)
			putchar(',');
		jstr(m->stat[i].name);
		printf(":%llu", m->stat[i].v);
	}
	printf("}}");
}

static void print_config(const struct st_config *c)
{
	int i;

	printf(",\"config\":");
	if (!c->present) {
		printf("null");
		return;
	}
	printf("{\"file\":");
	jstr(c->file);
	jbool("setup_found", c->setup_found);
	printf(",\"exit\":%d", c->rc);
	jbool("as_configured", c->rc == 0);
	printf(",\"verdicts\":[");
	for (i = 0; i < c->nlines; i++) {
		if (i)
			putchar(',');
		jstr(c->lines[i]);
	}
	printf("]}");
}

void status_print_json(const struct status *st)
{
	bool first = true;
	int i;

	printf("{\"hosts\":[");
	for (i = 0; i < st->n; i++) {
		if (st->inst[i].is_switch)
			continue;
		if (!first)
			putchar(',');
		first = false;
		print_host(&st->inst[i]);
	}
	printf("],\"switches\":[");
	first = true;
	for (i = 0; i < st->n; i++) {
		if (!st->inst[i].is_switch)
			continue;
		if (!first)
			putchar(',');
		first = false;
		print_switch(&st->inst[i]);
	}
	putchar(']');
	print_module(&st->mod);
	print_config(&st->conf);
	printf("}\n");
}
