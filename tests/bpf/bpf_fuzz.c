// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_fuzz - hostile packets through hpcc_host and hpcc_switch's tc
 * programs (BPF_PROG_TEST_RUN), each judged against a model of the wire
 * rules written here from Documentation/tcp_hpcc.rst, not from the BPF
 * code: valid probes and responses, the same mutated (truncated at every
 * length, bits flipped, bad versions, flags, hop counts, room, DSCPs,
 * checksums, IP and TCP options, IPv6, VLAN tags, raw IP frames) and
 * random bytes. For every packet and program it asserts the verdict, the
 * bytes that come out (untouched unless a valid probe was reflected or
 * stamped, or records stripped, and then exactly that) and which counter
 * moved; then that every reason was met. Prints TAP and the counts.
 *
 *   bpf_fuzz [--seed N] [--count N]    (root; defaults: seed 1, 10^6)
 *
 * A third of the packets meet the switch's port configured as an edge
 * (HPCC_PORT_F_EDGE): there valid candidates lose their records instead
 * of being stamped; every packet also goes through hpcc_edge_in, an edge
 * port's ingress, which drops valid probes and strips valid responses.
 *
 * The packets of one seed are always the same. Runs in a network
 * namespace of its own, with one IPv4 and one IPv6 connection (CONN4,
 * CONN6): half the valid probes are that connection's, which the host
 * reflects; the others find no socket (or only the server's listener) and
 * are refused. No socket matches a valid response, so each ends at the
 * socket lookup (no_socket). The reflection limit is off. Each packet is
 * a run of its own: a repeated run would reuse the skb, which the programs
 * change; 10^6 packets through the three programs took 60 s on 2 cores
 * beside two VMs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hpcc_maps.h"
#include "hpcc_flowcount.h"
#include "pkt.h"
#include "tap.h"
#include "hpcc_switch.skel.h"
#include "hpcc_host.skel.h"

#define LO_IFINDEX	1
#define SWITCH_ID	0x5357	/* "SW" */
#define RATE_MBPS	40000
#define QLEN		4321
#define TX_BYTES	0x1122334455ull
#define MAX_FAIL	8	/* packets shown per kind of failure */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The namespace's connections, client -> server. The clients' addresses
 * also fit raw IP frames that read as Ethernet (see gen_valid()).
 */
#define CONN_CPORT	40000
#define CONN_SPORT	5201
static const uint8_t conn4_c[4] = { 8, 0, 0, 1 };
static const uint8_t conn4_s[4] = { 10, 0, 0, 2 };
static const uint8_t conn6_c[16] = { 0xfd, 0, 0, 0, 0x86, 0xdd, [15] = 1 };
static const uint8_t conn6_s[16] = { 0xfd, [15] = 2 };

/* ------------------------------------------------------------ the PRNG */

static uint64_t rng_state;

static uint64_t rnd(void)		/* splitmix64 */
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rn(uint32_t n)		/* 0..n-1 */
{
	return n ? rnd() % n : 0;
}

static bool one_in(uint32_t n)
{
	return rn(n) == 0;
}

static void rnd_bytes(void *p, uint32_t n)
{
	uint8_t *b = p;

	while (n--)
		*b++ = rnd();
}

/* ------------------------------------------------------------ the model */

struct fcfg {
	bool raw_ip;		/* the device's config says raw IP */
	uint8_t pd, rd;		/* probe and response DSCP */
	bool edge;		/* the switch port is an edge port */
};

enum act {
	ACT_REFUSED,		/* BPF_PROG_TEST_RUN refuses the frame */
	ACT_PASS,		/* untouched, TC_ACT_OK */
	ACT_DROP,		/* host: TC_ACT_SHOT */
	ACT_REFLECT,		/* host: turned around, TC_ACT_REDIRECT */
	ACT_STAMP,		/* switch: one hop added */
	ACT_OVERFLOW,		/* switch: room full, overflow flag */
	ACT_STRIP,		/* edge: records removed */
};

/* Where the parts of a candidate are, by the rules. */
struct parsed {
	bool eth, v6;
	uint32_t l3, iphl, l4, thl, pay, seglen;
};

struct expect {
	enum act host, sw, ein;	/* ein: hpcc_edge_in */
	int host_cnt, sw_cnt, ein_cnt;	/* counter that moves by one, -1 none */
	int sw_cnt2;		/* and a second one of the switch's, -1 none */
	int host_cnt2;		/* and of the host's, -1 none */
	bool candidate;		/* counted (other included) */
	bool valid;		/* well-formed probe/response, sum right */
	struct parsed p;
};

/* One's complement sum of pseudo-header and segment, folded and
 * inverted: 0 for a right TCP checksum.
 */
static uint16_t tcp_residual(const uint8_t *b, const struct parsed *p)
{
	uint32_t sum;

	if (p->v6)
		sum = csum_add_buf(0, b + p->l3 + 8, 32);
	else
		sum = csum_add_buf(0, b + p->l3 + 12, 8);
	sum += p->seglen + 6;
	sum = csum_add_buf(sum, b + p->l4, p->seglen);
	return csum_fold_(sum);
}

static uint16_t ip4_residual(const uint8_t *b, const struct parsed *p)
{
	return csum_fold_(csum_add_buf(0, b + p->l3, p->iphl));
}

/* What skb->protocol eth_type_trans() gives a test_run frame. */
static uint16_t skb_proto(const uint8_t *b, uint32_t len)
{
	uint16_t t = get16(b + 12);

	if (t >= 0x600)
		return t;
	return len >= 16 && b[14] == 0xff && b[15] == 0xff ? 0x0001 : 0x0004;
}

/* The rules: Documentation/tcp_hpcc.rst, "Parsing and validation". */
static void model(const uint8_t *b, uint32_t len, const struct fcfg *c,
		  struct expect *e)
{
	uint32_t i, paylen, l3len;
	uint16_t sp, proto, dscp;
	const uint8_t *h;
	struct parsed *p = &e->p;
	bool eth, ip, resp, window;
	uint8_t v;

	memset(e, 0, sizeof(*e));
	e->host = e->sw = e->ein = ACT_PASS;
	e->host_cnt = e->sw_cnt = e->ein_cnt = e->sw_cnt2 = -1;
	e->host_cnt2 = -1;
	/* test_run wants an Ethernet header and, for IP, the IP header */
	if (len < 14) {
		e->host = e->sw = e->ein = ACT_REFUSED;
		return;
	}
	sp = skb_proto(b, len);
	if ((sp == 0x0800 && len - 14 < 20) ||
	    (sp == 0x86dd && len - 14 < 40)) {
		e->host = e->sw = e->ein = ACT_REFUSED;
		return;
	}

	/* The link layer. */
	v = b[0] >> 4;
	ip = (sp == 0x0800 && v == 4) || (sp == 0x86dd && v == 6);
	eth = get16(b + 12) == sp;
	if (!eth && !ip)
		return;
	p->eth = eth && (!ip || !c->raw_ip);
	if (p->eth) {
		p->l3 = 14;
		proto = get16(b + 12);
		for (i = 0; i < 2 && (proto == 0x8100 || proto == 0x88a8);
		     i++) {
			if (p->l3 + 4 > len)
				return;
			proto = get16(b + p->l3 + 2);
			p->l3 += 4;
		}
	} else {
		p->l3 = 0;
		proto = sp;
	}

	/* IP, then TCP without flags. */
	h = b + p->l3;
	if (proto == 0x0800) {
		if (p->l3 + 20 > len || h[0] >> 4 != 4 || h[9] != 6 ||
		    (get16(h + 6) & 0x3fff))
			return;
		p->iphl = (h[0] & 15) * 4;
		l3len = get16(h + 2);
		if (p->iphl < 20 || l3len < p->iphl)
			return;
		dscp = h[1] >> 2;
	} else if (proto == 0x86dd) {
		if (p->l3 + 40 > len || h[0] >> 4 != 6 || h[6] != 6)
			return;
		p->v6 = true;
		p->iphl = 40;
		l3len = 40 + get16(h + 4);
		dscp = (get16(h) >> 6) & 0x3f;
	} else {
		return;
	}
	p->l4 = p->l3 + p->iphl;
	if (p->l4 + 20 > len || b[p->l4 + 13])
		return;
	p->thl = (b[p->l4 + 12] >> 4) * 4;
	if (p->thl < 20 || l3len < p->iphl + p->thl)
		return;
	p->pay = p->l4 + p->thl;
	paylen = l3len - p->iphl - p->thl;

	/* A candidate: counted from here on. */
	e->candidate = true;
	if (dscp != c->pd && dscp != c->rd) {
		e->host_cnt = e->sw_cnt = e->ein_cnt = HPCC_CNT_OTHER;
		return;
	}
	e->host = ACT_DROP;
	h = b + p->pay;
	/* hpcc_wire_check()'s order: a length of neither version, then the
	 * version, then the length of that version (a version 2 header at
	 * version 1's length is truncated, not bad_version).
	 */
	/* A window response (Rx-HPCC) is version 2 with HPCC_F_WINDOW, its
	 * own length, no records, and answers a probe that asked.
	 */
	window = h[0] == HPCC_WIRE_V2 && (h[1] & HPCC_F_WINDOW);
	if ((paylen != HPCC_PROBE_LEN && paylen != HPCC_PROBE_V2_LEN &&
	     paylen != HPCC_WINDOW_LEN) || p->pay + paylen > len)
		e->host_cnt = HPCC_CNT_TRUNCATED;
	else if (!hpcc_wire_len(h[0]))
		e->host_cnt = HPCC_CNT_BAD_VERSION;
	else if (paylen != (window ? HPCC_WINDOW_LEN : hpcc_wire_len(h[0])))
		e->host_cnt = HPCC_CNT_TRUNCATED;
	else if (h[3] != HPCC_MAX_HOPS)
		e->host_cnt = HPCC_CNT_BAD_ROOM;
	else if (h[2] > h[3] || (window && h[2]))
		e->host_cnt = HPCC_CNT_BAD_NHOPS;
	else if (h[1] & ~(h[0] == HPCC_WIRE_V2 ? HPCC_F2_KNOWN : HPCC_F_KNOWN))
		e->host_cnt = HPCC_CNT_BAD_FLAGS;
	else if (window && (~h[1] & (HPCC_F_RESPONSE | HPCC_F_WANT_WINDOW)))
		e->host_cnt = HPCC_CNT_BAD_FLAGS;
	else if (dscp != ((h[1] & HPCC_F_RESPONSE) ? c->rd : c->pd))
		e->host_cnt = HPCC_CNT_BAD_DSCP;
	if (e->host_cnt >= 0) {
		e->sw_cnt = e->ein_cnt = e->host_cnt;
		return;
	}

	/* Well-formed. The switch acts on it as it is; an edge port, and
	 * an edge port's ingress, whatever its sum.
	 */
	p->seglen = p->thl + paylen;
	resp = h[1] & HPCC_F_RESPONSE;
	e->ein = resp ? ACT_STRIP : ACT_DROP;
	e->ein_cnt = resp ? HPCC_CNT_EDGE_STRIPPED :
			    HPCC_CNT_EDGE_PROBE_DROPPED;
	if (c->edge) {
		e->sw_cnt = HPCC_CNT_EDGE_STRIPPED;
		e->sw = ACT_STRIP;
	} else if (resp) {
		e->sw_cnt = HPCC_CNT_SWITCH_RESPONSE;
	} else if (h[2] == HPCC_MAX_HOPS) {
		e->sw_cnt = HPCC_CNT_SWITCH_OVERFLOW;
		e->sw = ACT_OVERFLOW;
	} else {
		e->sw_cnt = HPCC_CNT_SWITCH_STAMPED;
		e->sw = ACT_STAMP;
		/* v2 asking for a MAC: no key in the fuzzer's map, tag 0 */
		if (h[0] == HPCC_WIRE_V2 && (h[1] & HPCC_F_MAC))
			e->sw_cnt2 = HPCC_CNT_SWITCH_NO_KEY;
	}
	/* The host only with the right sum. */
	if (tcp_residual(b, p)) {
		e->host_cnt = HPCC_CNT_BAD_CSUM;
		return;
	}
	e->valid = true;
	if (resp) {
		e->host_cnt = HPCC_CNT_NO_SOCKET;	/* nobody here */
		return;
	}
	/* A probe: answered for the connection (either end of it); a probe
	 * to the server's port from anyone else finds only the listener.
	 */
	h = b + p->l3 + (p->v6 ? 8 : 12);
	i = p->v6 ? 16 : 4;
	sp = get16(b + p->l4);
	proto = get16(b + p->l4 + 2);
	if ((!memcmp(h, p->v6 ? conn6_c : conn4_c, i) &&
	     !memcmp(h + i, p->v6 ? conn6_s : conn4_s, i) &&
	     sp == CONN_CPORT && proto == CONN_SPORT) ||
	    (!memcmp(h, p->v6 ? conn6_s : conn4_s, i) &&
	     !memcmp(h + i, p->v6 ? conn6_c : conn4_c, i) &&
	     sp == CONN_SPORT && proto == CONN_CPORT)) {
		e->host_cnt = HPCC_CNT_PROBE_REFLECTED;
		e->host = ACT_REFLECT;
		/* v2 asking for a MAC: no key here, reflected unsealed */
		if (b[p->pay] == HPCC_WIRE_V2 && (b[p->pay + 1] & HPCC_F_MAC))
			e->host_cnt2 = HPCC_CNT_REFLECT_NO_KEY;
	} else if (!memcmp(h + i, p->v6 ? conn6_s : conn4_s, i) &&
		   proto == CONN_SPORT) {
		e->host_cnt = HPCC_CNT_REFLECT_NO_CONN;
	} else {
		e->host_cnt = HPCC_CNT_REFLECT_NO_SOCKET;
	}
}

/* --------------------------------------------------- expected outputs */

static void swap_bytes(uint8_t *a, uint8_t *b, uint32_t n)
{
	while (n--) {
		uint8_t t = *a;

		*a++ = *b;
		*b++ = t;
	}
}

/* The response a probe must become, checksum fields aside. */
static void expect_reflect(const uint8_t *in, uint32_t len,
			   const struct parsed *p, uint8_t rd, uint8_t *out)
{
	uint8_t *h = out + p->l3;

	memcpy(out, in, len);
	if (p->eth)
		swap_bytes(out, out + 6, 6);
	if (p->v6) {
		swap_bytes(h + 8, h + 24, 16);
		put16(h, (get16(h) & ~0x0fc0) | rd << 6);
		h[7] = 64;
	} else {
		swap_bytes(h + 12, h + 16, 4);
		h[1] = (h[1] & 3) | rd << 2;
		h[8] = 64;
	}
	swap_bytes(out + p->l4, out + p->l4 + 2, 2);
	out[p->pay + 1] |= HPCC_F_RESPONSE;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

/* Offset of record @n in the payload of a @version probe. */
static uint32_t hop_off(uint8_t version, uint32_t n)
{
	if (version == HPCC_WIRE_V2)
		return sizeof(struct hpcc_hdr_v2) +
		       n * sizeof(struct hpcc_hop_v2);
	return sizeof(struct hpcc_hdr) + n * sizeof(struct hpcc_hop);
}

/* The probe a switch must make of it, checksum and time stamp aside. */
static void expect_stamp(const uint8_t *in, uint32_t len,
			 const struct parsed *p, uint8_t *out)
{
	uint8_t n = in[p->pay + 2], *hop;
	bool v2 = in[p->pay] == HPCC_WIRE_V2;

	memcpy(out, in, len);
	out[p->pay + 2] = n + 1;
	hop = out + p->pay + hop_off(in[p->pay], n);
	if (v2)		/* no MAC asked: the tag is 0 */
		memset(hop + 32, 0, 8);
	put32(hop, SWITCH_ID);
	put32(hop + 4, LO_IFINDEX);
	put32(hop + 8, RATE_MBPS);
	put32(hop + 12, QLEN);
	put32(hop + 24, TX_BYTES >> 32);
	put32(hop + 28, (uint32_t)TX_BYTES);
}

/* What an edge port makes of it, checksum aside: no records, no overflow
 * flag.
 */
static void expect_strip(const uint8_t *in, uint32_t len,
			 const struct parsed *p, uint8_t *out)
{
	memcpy(out, in, len);
	out[p->pay + 1] &= ~HPCC_F_OVERFLOW;
	out[p->pay + 2] = 0;
	/* a window response's record and tag go as records do */
	memset(out + p->pay + hop_off(in[p->pay], 0), 0,
	       p->seglen - p->thl - hop_off(in[p->pay], 0));
}

/* Equal except in [a, a+an) and [b, b+bn)? */
static bool same_but(const uint8_t *x, const uint8_t *y, uint32_t len,
		     uint32_t a, uint32_t an, uint32_t b, uint32_t bn,
		     uint32_t *where)
{
	uint32_t i;

	for (i = 0; i < len; i++) {
		if ((i >= a && i < a + an) || (i >= b && i < b + bn))
			continue;
		if (x[i] != y[i]) {
			*where = i;
			return false;
		}
	}
	return true;
}

/* ----------------------------------------------------------- packets */

static struct fcfg cfg;
static const struct fcfg cfgs[3] = {
	{ .raw_ip = false, .pd = HPCC_DSCP_PROBE_DEFAULT,
	  .rd = HPCC_DSCP_RESPONSE_DEFAULT },
	{ .raw_ip = true, .pd = 10, .rd = 11 },
	{ .raw_ip = false, .pd = HPCC_DSCP_PROBE_DEFAULT,
	  .rd = HPCC_DSCP_RESPONSE_DEFAULT, .edge = true },
};

/* A valid probe or response: IPv4/IPv6, options, VLAN tags, padding; or
 * a raw IP one whose bytes 12-13 read as its own EtherType (it reaches
 * the programs through test_run, whose Ethernet parse then agrees).
 */
static void gen_valid(struct pkt *k, bool raw)
{
	static uint8_t sa[16], da[16];
	struct hpcc_probe pr;
	struct hpcc_probe_v2 pr2;
	bool v2 = one_in(4);
	struct pkt_opts o = {};
	uint32_t i;

	o.v6 = rn(2);
	if (!raw)	/* 3 tags: one more than the programs look behind */
		o.vlans = one_in(3) ? 1 + rn(2) + one_in(10) : 0;
	if (!o.v6 && one_in(4))
		o.ip_opt_words = rn(11);
	if (one_in(4))
		o.tcp_opt_words = rn(11);
	o.ecn = rn(4);
	o.sport = 1 + rn(65535);
	o.dport = 1 + rn(65535);
	rnd_bytes(sa, sizeof(sa));
	rnd_bytes(da, sizeof(da));
	if (raw && o.v6) {
		sa[4] = 0x86;
		sa[5] = 0xdd;
	} else if (raw) {
		sa[0] = 8;
		sa[1] = 0;
	}
	o.saddr = sa;
	o.daddr = da;
	memset(&pr, 0, sizeof(pr));
	pr.hdr.version = HPCC_WIRE_VERSION;
	pr.hdr.room = HPCC_MAX_HOPS;
	pr.hdr.nhops = rn(HPCC_MAX_HOPS + 1);
	pr.hdr.flags = rn(2) ? HPCC_F_RESPONSE : 0;
	if (!pr.hdr.flags && rn(2)) {	/* the connection's probe */
		o.saddr = o.v6 ? conn6_c : conn4_c;
		o.daddr = o.v6 ? conn6_s : conn4_s;
		o.sport = CONN_CPORT;
		o.dport = CONN_SPORT;
	}
	if (one_in(8))
		pr.hdr.flags |= HPCC_F_OVERFLOW;
	rnd_bytes(&pr.hdr.nonce, 12);
	for (i = 0; i < pr.hdr.nhops; i++)
		rnd_bytes(&pr.hop[i], sizeof(pr.hop[i]));
	o.dscp = pr.hdr.flags & HPCC_F_RESPONSE ? cfg.rd : cfg.pd;
	o.payload = &pr;
	o.paylen = HPCC_PROBE_LEN;
	if (v2) {	/* the same header, records and tags at v2's places */
		memset(&pr2, 0, sizeof(pr2));
		memcpy(&pr2.hdr, &pr.hdr, sizeof(pr.hdr));
		pr2.hdr.version = HPCC_WIRE_V2;
		rnd_bytes(&pr2.hdr.t_us, 8);
		for (i = 0; i < pr.hdr.nhops; i++)
			rnd_bytes(&pr2.hop[i], sizeof(pr2.hop[i]));
		o.payload = &pr2;
		o.paylen = HPCC_PROBE_V2_LEN;
		/* Rx-HPCC: a probe asking for a window, or the window */
		if (one_in(4))
			pr2.hdr.flags |= HPCC_F_WANT_WINDOW;
		if ((pr2.hdr.flags & HPCC_F_RESPONSE) && one_in(3)) {
			pr2.hdr.flags |= HPCC_F_WANT_WINDOW | HPCC_F_WINDOW;
			pr2.hdr.nhops = 0;
			rnd_bytes(&pr2.hop[0], HPCC_WINDOW_LEN -
				  sizeof(pr2.hdr));
			o.paylen = HPCC_WINDOW_LEN;
		}
	}
	pkt_build(k, &o);
	if (raw)
		pkt_strip_eth(k);
	if (one_in(8)) {		/* link-layer padding after the IP packet */
		uint32_t pad = 1 + rn(24);

		rnd_bytes(k->b + k->len, pad);
		k->len += pad;
	}
}

/* Make the checksums right again for what the headers now say, where
 * they say something that fits the frame.
 */
static void fix_csums(struct pkt *k)
{
	struct expect e;
	struct parsed *p = &e.p;

	model(k->b, k->len, &cfg, &e);		/* DSCP aside: structure */
	if (!e.candidate)
		return;
	if (!p->v6 && p->l3 + p->iphl <= k->len) {
		put16(k->b + p->l3 + 10, 0);
		put16(k->b + p->l3 + 10, ip4_residual(k->b, p));
	}
	p->seglen = (p->v6 ? 40u + get16(k->b + p->l3 + 4) :
		     get16(k->b + p->l3 + 2)) - p->iphl;
	if (p->l4 + p->seglen > k->len || p->seglen > 0xffff)
		return;
	put16(k->b + p->l4 + 16, 0);
	put16(k->b + p->l4 + 16, tcp_residual(k->b, p));
}

/* Header offsets of a packet gen_valid() built, for the mutations. */
static void mutate(struct pkt *k, bool raw)
{
	uint8_t *ip = k->b + k->l3, *th = k->b + k->l4, *pay = k->b + k->pay;
	uint32_t n, i;

	switch (rn(22)) {
	case 0:				/* cut anywhere */
		k->len = rn(k->len);
		break;
	case 1:				/* shorter payload, headers agree */
		n = 1 + rn(HPCC_PROBE_LEN);
		k->len = k->pay + HPCC_PROBE_LEN - n;
		if (k->v6)
			put16(ip + 4, get16(ip + 4) - n);
		else
			put16(ip + 2, get16(ip + 2) - n);
		fix_csums(k);
		break;
	case 2:				/* a few bits anywhere */
		for (n = 1 + rn(8), i = 0; i < n; i++)
			k->b[rn(k->len)] ^= 1 << rn(8);
		break;
	case 3:				/* a byte anywhere */
		k->b[rn(k->len)] = rnd();
		break;
	case 4:
		pay[0] = one_in(2) ? rnd() : HPCC_WIRE_VERSION + 1;
		break;
	case 5:
		pay[1] = one_in(2) ? (uint8_t)rnd() : pay[1] ^ 4 << rn(6);
		break;
	case 6:
		pay[2] = one_in(2) ? rnd() : HPCC_MAX_HOPS + 1 + rn(4);
		break;
	case 7:
		pay[3] = one_in(2) ? rnd() : rn(HPCC_MAX_HOPS);
		break;
	case 8:				/* another DSCP */
		n = one_in(2) ? rn(64) : (pay[1] & 1 ? cfg.pd : cfg.rd);
		if (one_in(4))
			n = cfgs[cfg.pd == cfgs[0].pd].pd;
		if (k->v6)
			put16(ip, (get16(ip) & ~0x0fc0) | n << 6);
		else
			ip[1] = (ip[1] & 3) | n << 2;
		break;
	case 9:				/* TCP checksum */
		if (one_in(3))
			put16(th + 16, 0);
		else if (one_in(2))
			put16(th + 16, rnd());
		else
			put16(th + 16, get16(th + 16) + 1);
		break;
	case 10:
		th[13] = 1 + rn(255);
		break;
	case 11:
		ip[k->v6 ? 6 : 9] = one_in(2) ? rnd() : 17;
		break;
	case 12:
		if (!k->v6)
			put16(ip + 6, get16(ip + 6) | (one_in(2) ? 0x2000 :
							1 + rn(0x1fff)));
		break;
	case 13:
		if (!k->v6)
			ip[0] = 0x40 | rn(16);
		else
			ip[0] = rn(16) << 4 | (ip[0] & 15);
		break;
	case 14:
		put16(ip + (k->v6 ? 4 : 2), one_in(2) ? rnd() :
		      get16(ip + (k->v6 ? 4 : 2)) + rn(64) - 32);
		break;
	case 15:
		th[12] = rn(16) << 4;
		break;
	case 16:			/* EtherType, VLAN TPIDs */
		if (!raw && k->l3 >= 14) {
			static const uint16_t t[] = { 0x0800, 0x86dd, 0x8100,
						      0x88a8, 0x0806, 0x0004 };

			put16(k->b + 12 + 4 * rn((k->l3 - 14) / 4 + 1),
			      one_in(4) ? rnd() : t[rn(6)]);
		}
		break;
	case 17:			/* a MAC that reads as an IP version */
		if (!raw)
			k->b[0] = (one_in(2) ? 0x40 : 0x60) | rn(16);
		break;
	case 18:			/* more bytes at the end */
		n = 1 + rn(200);
		rnd_bytes(k->b + k->len, n);
		k->len += n;
		break;
	case 19:			/* hop bytes changed, sum fixed: valid */
		rnd_bytes(pay + sizeof(struct hpcc_hdr) + rn(HPCC_MAX_HOPS) * 32,
			  32);
		fix_csums(k);
		break;
	case 20:			/* hop bytes changed, sum not fixed */
		pay[sizeof(struct hpcc_hdr) + rn(HPCC_PROBE_LEN - 16)] ^=
			1 << rn(8);
		break;
	default:			/* nonce or send time */
		pay[4 + rn(12)] ^= 1 + rn(255);
		break;
	}
}

/* Random bytes: all of it, behind an Ethernet/VLAN/IP start, or as the
 * payload of well-formed headers.
 */
static void gen_random(struct pkt *k)
{
	static const uint16_t types[] = { 0x0800, 0x86dd, 0x8100, 0x88a8 };

	memset(k, 0, sizeof(*k));
	switch (rn(3)) {
	case 0:
		k->len = rn(600);
		rnd_bytes(k->b, k->len);
		break;
	case 1:
		k->len = 14 + rn(600);
		rnd_bytes(k->b, k->len);
		put16(k->b + 12, types[rn(4)]);
		put16(k->b + 16, types[rn(2)]);
		k->l3 = get16(k->b + 12) >= 0x8100 ? 18 : 14;
		k->b[k->l3] = (one_in(2) ? 0x40 : 0x60) | rn(16);
		break;
	default: {
		struct pkt_opts o = { .v6 = rn(2), .vlans = rn(3) };
		static uint8_t junk[600];
		uint32_t pay = one_in(2) ? HPCC_PROBE_LEN : rn(sizeof(junk));

		rnd_bytes(junk, pay);
		junk[0] = one_in(2) ? HPCC_WIRE_VERSION : junk[0];
		junk[3] = one_in(2) ? HPCC_MAX_HOPS : junk[3];
		o.dscp = one_in(2) ? cfg.pd : one_in(2) ? cfg.rd : rn(64);
		o.payload = junk;
		o.paylen = pay;
		pkt_build(k, &o);
		if (!one_in(4))		/* else the sum is right */
			put16(k->b + k->l4 + 16, rnd());
		break;
	}
	}
}

/* ------------------------------------------------------------ running */

static int ncpus;

struct prog {
	const char *name;
	int fd, cnt_fd;
	int fc_fd;			/* the host's hpcc_flowcount */
	uint64_t now[HPCC_CNT_MAX];	/* counters after the last packet */
	uint64_t seen[HPCC_CNT_MAX];	/* moves this run, by counter */
	uint64_t refused, fast, runs;
	uint64_t bad_err, bad_verdict, bad_bytes, bad_count;
	uint64_t invalid_acted;		/* reflected/delivered, not valid */
};

static void counters(struct prog *g, uint64_t *out)
{
	static uint64_t vals[HPCC_CNT_MAX * 256];
	static uint32_t keys[HPCC_CNT_MAX];
	uint32_t n = HPCC_CNT_MAX, i, out_batch;
	int c;
	LIBBPF_OPTS(bpf_map_batch_opts, o);

	memset(out, 0, HPCC_CNT_MAX * sizeof(*out));
	if (bpf_map_lookup_batch(g->cnt_fd, NULL, &out_batch, keys, vals, &n,
				 &o) && errno != ENOENT)
		return;
	for (i = 0; i < n; i++)
		for (c = 0; c < ncpus; c++)
			out[keys[i]] += vals[i * ncpus + c];
}

/* The host's receiver-measured N (hpcc_flowcount.h), read whole. */
static void flowcount(struct prog *g, struct hpcc_flowcount *fc)
{
	uint32_t zero = 0;

	if (bpf_map_lookup_elem(g->fc_fd, &zero, fc))
		memset(fc, 0xff, sizeof(*fc));	/* matches no model */
}

/* A version 2 response carries N: count probe @in's connection into
 * @before the way the program must (at the epoch it moved the map to),
 * require the map to be exactly that, and put N into @want. The other
 * versions carry none: true.
 */
static bool expect_flows(const uint8_t *in, const struct parsed *p,
			 struct hpcc_flowcount *before,
			 const struct hpcc_flowcount *after, uint8_t *want)
{
	uint64_t now = after->epoch * (HPCC_FC_EPOCH_US_DEFAULT * 1000ULL);
	uint8_t *f = want + p->pay + offsetof(struct hpcc_hdr_v2, flows);
	uint32_t n, alen = p->v6 ? 32 : 8;
	uint8_t t[36];

	if (in[p->pay] != HPCC_WIRE_V2)
		return true;
	/* the tuple: addresses then ports, as the socket lookup takes them */
	memcpy(t, in + p->l3 + (p->v6 ? 8 : 12), alen);
	memcpy(t + alen, in + p->l4, 4);
	hpcc_fc_add(before, now, HPCC_FC_EPOCH_US_DEFAULT * 1000ULL,
		    hpcc_fc_hash(t, alen + 4));
	n = hpcc_fc_flows(before, now, HPCC_FC_EPOCH_US_DEFAULT * 1000ULL);
	f[0] = n >> 16;
	f[1] = n >> 8;
	f[2] = n;
	return !memcmp(before, after, sizeof(*before)) && n > 0;
}

static void show(const char *what, struct prog *g, uint64_t idx,
		 const struct pkt *k, const char *fmt, ...)
{
	uint64_t *n = !strcmp(what, "error") ? &g->bad_err :
		      !strcmp(what, "verdict") ? &g->bad_verdict :
		      !strcmp(what, "bytes") ? &g->bad_bytes :
		      !strcmp(what, "invalid") ? &g->invalid_acted :
		      &g->bad_count;
	va_list ap;
	uint32_t i;

	if ((*n)++ >= MAX_FAIL)
		return;
	printf("# %s: packet %llu (%s): ", g->name, (unsigned long long)idx,
	       what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n#   %u bytes:", k->len);
	for (i = 0; i < k->len && i < 96; i++)
		printf("%s%02x", i % 32 ? " " : "\n#   ", k->b[i]);
	printf("\n");
}

static int run(int fd, const struct pkt *in, struct pkt *out, int *ret)
{
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.data_in = in->b,
		.data_size_in = in->len,
		.repeat = 1,
	);
	int err;

	memset(out->b, 0, in->len + 64 < sizeof(out->b) ? in->len + 64 :
	       sizeof(out->b));
	o.data_out = out->b;
	o.data_size_out = sizeof(out->b);
	err = bpf_prog_test_run_opts(fd, &o);
	*ret = o.retval;
	out->len = o.data_size_out;
	return err ? -errno : 0;
}

enum which { P_HOST, P_SWITCH, P_EDGE_IN };

/* One packet through one program, judged. */
static void one(struct prog *g, enum which w, uint64_t idx,
		const struct pkt *in, const struct expect *e)
{
	static uint8_t want[PKT_MAX];
	bool host = w == P_HOST;
	enum act a = host ? e->host : w == P_SWITCH ? e->sw : e->ein;
	int cnt = host ? e->host_cnt : w == P_SWITCH ? e->sw_cnt : e->ein_cnt;
	int cnt2 = w == P_SWITCH ? e->sw_cnt2 : host ? e->host_cnt2 : -1;
	int ret, err, c, moved;
	uint64_t now[HPCC_CNT_MAX];
	const struct parsed *p = &e->p;
	static struct hpcc_flowcount fc_before, fc_after;
	struct pkt out;
	uint32_t at = 0;
	bool ok;

	if (host)
		flowcount(g, &fc_before);
	err = run(g->fd, in, &out, &ret);
	g->runs++;
	if (a == ACT_REFUSED) {
		if (err != -EINVAL)
			show("error", g, idx, in, "test_run should refuse it "
			     "(EINVAL), got %d, retval %d", err, ret);
		g->refused++;
		return;
	}
	if (err) {
		show("error", g, idx, in, "test_run: %s", strerror(-err));
		return;
	}
	if (!e->candidate)
		g->fast++;

	/* The verdict, among the allowed ones, and the one the rules give. */
	if (host ? ret != TC_ACT_OK && ret != TC_ACT_SHOT &&
		   ret != TC_ACT_REDIRECT :
	    w == P_EDGE_IN ? ret != TC_ACT_OK && ret != TC_ACT_SHOT :
	    ret != TC_ACT_OK)
		show("verdict", g, idx, in, "verdict %d is none of the "
		     "program's", ret);
	else if (ret != (a == ACT_DROP ? TC_ACT_SHOT : a == ACT_REFLECT ?
			 TC_ACT_REDIRECT : TC_ACT_OK))
		show("verdict", g, idx, in, "verdict %d, expected action %d",
		     ret, a);

	/* The bytes. */
	ok = out.len == in->len;
	switch (a) {
	case ACT_PASS:
		ok = ok && same_but(in->b, out.b, in->len, 0, 0, 0, 0, &at);
		break;
	case ACT_REFLECT:
		expect_reflect(in->b, in->len, p, cfg.rd, want);
		flowcount(g, &fc_after);
		ok = ok && expect_flows(in->b, p, &fc_before, &fc_after, want);
		ok = ok && same_but(want, out.b, in->len,
				    p->v6 ? 0 : p->l3 + 10, p->v6 ? 0 : 2,
				    p->l4 + 16, 2, &at) &&
		     !tcp_residual(out.b, p) &&
		     (p->v6 || ip4_residual(out.b, p) ==
			       ip4_residual(in->b, p));
		break;
	case ACT_STAMP:
		expect_stamp(in->b, in->len, p, want);
		ok = ok && same_but(want, out.b, in->len, p->l4 + 16, 2,
				    p->pay + hop_off(in->b[p->pay],
						     in->b[p->pay + 2]) + 16,
				    8, &at) &&
		     tcp_residual(out.b, p) == tcp_residual(in->b, p);
		break;
	case ACT_STRIP:
		expect_strip(in->b, in->len, p, want);
		ok = ok && same_but(want, out.b, in->len, p->l4 + 16, 2, 0, 0,
				    &at) &&
		     tcp_residual(out.b, p) == tcp_residual(in->b, p);
		break;
	case ACT_OVERFLOW:
		memcpy(want, in->b, in->len);
		want[p->pay + 1] |= HPCC_F_OVERFLOW;
		ok = ok && same_but(want, out.b, in->len, p->l4 + 16, 2, 0, 0,
				    &at) &&
		     tcp_residual(out.b, p) == tcp_residual(in->b, p);
		break;
	default:			/* dropped: nothing to look at */
		break;
	}
	if (!ok)
		show("bytes", g, idx, in, "output differs (length %u, first "
		     "difference at byte %u)", out.len, at);
	/* only a reflected probe counts its connection into N */
	if (host && a != ACT_REFLECT) {
		flowcount(g, &fc_after);
		if (memcmp(&fc_before, &fc_after, sizeof(fc_after)))
			show("count", g, idx, in, "the flow count moved");
	}

	/* Exactly the counter of the rules, by one. */
	counters(g, now);
	ok = true;
	moved = -1;
	for (c = 0; c < HPCC_CNT_MAX; c++) {
		uint64_t d = now[c] - g->now[c];

		if (d != (uint64_t)(c == cnt) + (c == cnt2))
			ok = false;
		if (d && moved < 0)
			moved = c;
		g->seen[c] += d;
	}
	memcpy(g->now, now, sizeof(now));
	if (!ok)
		show("count", g, idx, in, "counter %s moved, expected %s",
		     moved >= 0 ? hpcc_counter_name(moved) : "none",
		     cnt >= 0 ? hpcc_counter_name(cnt) : "none");
	/* Reflected or handed to the socket lookup: it had to be valid. */
	if (host && !e->valid && (ret == TC_ACT_REDIRECT ||
				  moved == HPCC_CNT_PROBE_REFLECTED ||
				  moved == HPCC_CNT_NO_SOCKET ||
				  moved == HPCC_CNT_REFLECT_NO_SOCKET ||
				  moved == HPCC_CNT_REFLECT_NO_CONN))
		show("invalid", g, idx, in, "acted on an invalid packet");
}

/* One connection client -> server (4 or 16 bytes each) on lo; its
 * sockets stay open until exit.
 */
static int conn_up(int fam, const uint8_t *c, const uint8_t *s)
{
	struct sockaddr_storage cs = {}, ss = {};
	socklen_t sl;
	int cfd, lfd, on = 1;

	cs.ss_family = ss.ss_family = fam;
	if (fam == AF_INET6) {
		memcpy(&((struct sockaddr_in6 *)&cs)->sin6_addr, c, 16);
		memcpy(&((struct sockaddr_in6 *)&ss)->sin6_addr, s, 16);
		((struct sockaddr_in6 *)&cs)->sin6_port = htons(CONN_CPORT);
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(CONN_SPORT);
		sl = sizeof(struct sockaddr_in6);
	} else {
		memcpy(&((struct sockaddr_in *)&cs)->sin_addr, c, 4);
		memcpy(&((struct sockaddr_in *)&ss)->sin_addr, s, 4);
		((struct sockaddr_in *)&cs)->sin_port = htons(CONN_CPORT);
		((struct sockaddr_in *)&ss)->sin_port = htons(CONN_SPORT);
		sl = sizeof(struct sockaddr_in);
	}
	lfd = socket(fam, SOCK_STREAM, 0);
	cfd = socket(fam, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (lfd < 0 || cfd < 0 || bind(lfd, (void *)&ss, sl) ||
	    listen(lfd, 4) || bind(cfd, (void *)&cs, sl) ||
	    connect(cfd, (void *)&ss, sl) || accept(lfd, NULL, NULL) < 0)
		return -1;
	return 0;
}

/* lo up with the connections' addresses, and the connections. */
static int conns_up(void)
{
	if (system("ip link set lo up && ip addr add 8.0.0.1/32 dev lo && "
		   "ip addr add 10.0.0.2/32 dev lo && "
		   "ip addr add fd00:0:86dd::1/128 dev lo nodad && "
		   "ip addr add fd00::2/128 dev lo nodad"))
		return -1;
	return conn_up(AF_INET, conn4_c, conn4_s) ||
	       conn_up(AF_INET6, conn6_c, conn6_s);
}

static void configure(struct hpcc_host *h, struct hpcc_switch *s)
{
	struct hpcc_host_cfg hc = {
		.probe_dscp = cfg.pd, .resp_dscp = cfg.rd,
		.flags = HPCC_CFG_F_DSCP | HPCC_CFG_F_REFLECT |
			 HPCC_CFG_F_PEER |
			 (cfg.raw_ip ? HPCC_CFG_F_RAW_IP : 0),
		.reflect_rate = 0,	/* no limit */
		.peer_rate = 0,		/* nor per peer */
	};
	struct hpcc_port_cfg pc = {
		.switch_id = SWITCH_ID, .rate_mbps = RATE_MBPS,
		.probe_dscp = cfg.pd, .resp_dscp = cfg.rd,
		.flags = HPCC_PORT_F_DSCP |
			 (cfg.raw_ip ? HPCC_PORT_F_RAW_IP : 0) |
			 (cfg.edge ? HPCC_PORT_F_EDGE : 0),
	};
	struct hpcc_qsnap_dev *d = calloc(1, sizeof(*d));
	uint32_t zero = 0, lo = LO_IFINDEX;

	bpf_map_update_elem(bpf_map__fd(h->maps.hpcc_host_cfg), &zero, &hc,
			    BPF_ANY);
	bpf_map_update_elem(bpf_map__fd(s->maps.hpcc_port_cfg), &lo, &pc,
			    BPF_ANY);
	d->root = 0xffff888012340000ull;
	d->ntxq = 1;
	d->q[0].seq = 2;
	d->q[0].backlog = QLEN;
	d->q[0].bytes = TX_BYTES;
	d->q[0].root = d->root;
	bpf_map_update_elem(bpf_map__fd(s->maps.hpcc_qsnap), &lo, d, BPF_ANY);
	free(d);
}

static void report(struct prog *g, uint64_t accepted, uint64_t rejected,
		   uint64_t other)
{
	int c;

	printf("# %s: %llu packets: refused by test_run %llu, fast path "
	       "(no candidate, not counted) %llu, other DSCP %llu, rejected "
	       "%llu, accepted %llu\n", g->name, (unsigned long long)g->runs,
	       (unsigned long long)g->refused, (unsigned long long)g->fast,
	       (unsigned long long)other, (unsigned long long)rejected,
	       (unsigned long long)accepted);
	for (c = 0; c < HPCC_CNT_MAX; c++)
		if (g->seen[c])
			printf("#   %-20s %10llu\n", hpcc_counter_name(c),
			       (unsigned long long)g->seen[c]);
}

static const int host_rejects[] = {
	HPCC_CNT_TRUNCATED, HPCC_CNT_BAD_VERSION, HPCC_CNT_BAD_ROOM,
	HPCC_CNT_BAD_NHOPS, HPCC_CNT_BAD_FLAGS, HPCC_CNT_BAD_DSCP,
	HPCC_CNT_BAD_CSUM,
};

int main(int argc, char **argv)
{
	uint64_t seed = 1, count = 1000000, i;
	struct timespec t0, t1;
	bool sweep = false;
	struct prog hp = { .name = "hpcc_host" }, sp = { .name = "hpcc_switch" };
	struct prog ep = { .name = "hpcc_edge_in" };
	uint64_t h_acc, h_rej = 0, s_acc, s_rej = 0, n_valid = 0;
	uint64_t e_acc, e_rej = 0;
	struct hpcc_switch *s;
	struct hpcc_host *h;
	/* valid ones: IPv4, IPv6, 0/1/2 VLAN tags, raw IP, IP/TCP options */
	uint64_t cov[8] = {};
	struct pkt k, base;
	struct expect e;
	uint32_t cut;
	size_t r;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--seed") && a + 1 < argc)
			seed = strtoull(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "--count") && a + 1 < argc)
			count = strtoull(argv[++a], NULL, 0);
		else {
			fprintf(stderr, "usage: %s [--seed N] [--count N]\n",
				argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid())
		return tap_skip_all("needs root");
	if (unshare(CLONE_NEWNET))
		return tap_skip_all("no network namespace: %s",
				    strerror(errno));
	if (conns_up()) {
		tap_ok(false, "the namespace's connections %s",
		       strerror(errno));
		return tap_done();
	}
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0 || ncpus > 256)
		return tap_skip_all("%d CPUs", ncpus);
	h = hpcc_host__open_and_load();
	s = hpcc_switch__open_and_load();
	tap_ok(h && s, "hpcc_host and hpcc_switch load");
	if (!h || !s)
		return tap_done();
	hp.fd = bpf_program__fd(h->progs.hpcc_host);
	hp.cnt_fd = bpf_map__fd(h->maps.hpcc_counters);
	hp.fc_fd = bpf_map__fd(h->maps.hpcc_flowcount);
	sp.fd = bpf_program__fd(s->progs.hpcc_switch);
	ep.fd = bpf_program__fd(s->progs.hpcc_edge_in);
	sp.cnt_fd = bpf_map__fd(s->maps.hpcc_counters);
	counters(&hp, hp.now);
	counters(&sp, sp.now);
	ep.cnt_fd = sp.cnt_fd;		/* one object, one counters map */
	memcpy(ep.now, sp.now, sizeof(ep.now));
	printf("# seed %llu (--seed N to change), %llu packets per program, "
	       "%d CPUs\n", (unsigned long long)seed,
	       (unsigned long long)count, ncpus);

	rng_state = seed;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < count; i++) {
		/* Two configurations, half the packets each: defaults, and
		 * other DSCPs on a device configured raw IP.
		 */
		if (i == 0 || i == count / 3 || i == count / 3 * 2) {
			cfg = cfgs[i == 0 ? 0 : i == count / 3 ? 1 : 2];
			configure(h, s);
		}
		/* Now and then every length of one valid packet; else 15%
		 * valid, 60% mutated, 25% random bytes.
		 */
		if (sweep) {
			k = base;
			k.len = cut++;
			if (cut > base.len)
				sweep = false;
		} else if (i % 20000 < 3000 && one_in(100)) {
			gen_valid(&base, one_in(4));
			k = base;
			cut = 1;
			k.len = 0;
			sweep = true;
		} else {
			r = rn(100);
			if (r < 15) {
				gen_valid(&k, one_in(5));
			} else if (r < 75) {
				bool raw = one_in(5);

				gen_valid(&k, raw);
				mutate(&k, raw);
				if (one_in(3))
					mutate(&k, raw);
				if (one_in(6))
					fix_csums(&k);
			} else {
				gen_random(&k);
			}
		}
		model(k.b, k.len, &cfg, &e);
		n_valid += e.valid;
		if (e.valid) {
			cov[e.p.v6]++;
			cov[2 + (e.p.eth ? (e.p.l3 - 14) / 4 : 3)]++;
			cov[6] += !e.p.v6 && e.p.iphl > 20;
			cov[7] += e.p.thl > 20;
		}
		one(&hp, P_HOST, i, &k, &e);
		one(&sp, P_SWITCH, i, &k, &e);
		memcpy(ep.now, sp.now, sizeof(ep.now));
		one(&ep, P_EDGE_IN, i, &k, &e);
		memcpy(sp.now, ep.now, sizeof(sp.now));
	}

	for (r = 0; r < ARRAY_SIZE(host_rejects); r++) {
		h_rej += hp.seen[host_rejects[r]];
		if (host_rejects[r] != HPCC_CNT_BAD_CSUM) {
			s_rej += sp.seen[host_rejects[r]];
			e_rej += ep.seen[host_rejects[r]];
		}
	}
	h_acc = hp.seen[HPCC_CNT_PROBE_REFLECTED] + hp.seen[HPCC_CNT_NO_SOCKET] +
		hp.seen[HPCC_CNT_REFLECT_NO_SOCKET] +
		hp.seen[HPCC_CNT_REFLECT_NO_CONN];
	s_acc = sp.seen[HPCC_CNT_SWITCH_STAMPED] +
		sp.seen[HPCC_CNT_SWITCH_OVERFLOW] +
		sp.seen[HPCC_CNT_SWITCH_RESPONSE] +
		sp.seen[HPCC_CNT_EDGE_STRIPPED];
	e_acc = ep.seen[HPCC_CNT_EDGE_STRIPPED] +
		ep.seen[HPCC_CNT_EDGE_PROBE_DROPPED];
	report(&hp, h_acc, h_rej, hp.seen[HPCC_CNT_OTHER]);
	report(&sp, s_acc, s_rej, sp.seen[HPCC_CNT_OTHER]);
	report(&ep, e_acc, e_rej, ep.seen[HPCC_CNT_OTHER]);
	printf("# valid packets: IPv4 %llu, IPv6 %llu; Ethernet without VLAN "
	       "tag %llu, with 1 %llu, with 2 %llu, raw IP %llu; with IPv4 "
	       "options %llu, with TCP options %llu\n",
	       (unsigned long long)cov[0], (unsigned long long)cov[1],
	       (unsigned long long)cov[2], (unsigned long long)cov[3],
	       (unsigned long long)cov[4], (unsigned long long)cov[5],
	       (unsigned long long)cov[6], (unsigned long long)cov[7]);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("# %.1f s\n", t1.tv_sec - t0.tv_sec +
	       (t1.tv_nsec - t0.tv_nsec) / 1e9);

	tap_ok(!hp.bad_err && !sp.bad_err && !ep.bad_err, "no program error "
	       "in %llu x 3 runs (test_run refused exactly the frames it "
	       "must: %llu)", (unsigned long long)count,
	       (unsigned long long)hp.refused);
	tap_ok(!hp.bad_verdict && !sp.bad_verdict && !ep.bad_verdict,
	       "every verdict allowed and the one the rules give (host %llu, "
	       "switch %llu, edge ingress %llu wrong)",
	       (unsigned long long)hp.bad_verdict,
	       (unsigned long long)sp.bad_verdict,
	       (unsigned long long)ep.bad_verdict);
	tap_ok(!hp.bad_bytes && !sp.bad_bytes && !ep.bad_bytes, "every output "
	       "as the rules give: untouched, or exactly reflected/stamped/"
	       "stripped with right checksums (host %llu, switch %llu, edge "
	       "ingress %llu wrong)", (unsigned long long)hp.bad_bytes,
	       (unsigned long long)sp.bad_bytes,
	       (unsigned long long)ep.bad_bytes);
	tap_ok(!hp.bad_count && !sp.bad_count && !ep.bad_count, "every packet "
	       "moved exactly the counter of its reason (host %llu, switch "
	       "%llu, edge ingress %llu wrong)",
	       (unsigned long long)hp.bad_count,
	       (unsigned long long)sp.bad_count,
	       (unsigned long long)ep.bad_count);
	tap_ok(!hp.invalid_acted && h_acc == n_valid,
	       "no invalid packet reflected or delivered: %llu acted on, "
	       "%llu valid", (unsigned long long)h_acc,
	       (unsigned long long)n_valid);
	tap_ok(h_rej + h_acc + hp.seen[HPCC_CNT_OTHER] + hp.fast + hp.refused ==
	       count && s_rej + s_acc + sp.seen[HPCC_CNT_OTHER] + sp.fast +
	       sp.refused == count && e_rej + e_acc + ep.seen[HPCC_CNT_OTHER] +
	       ep.fast + ep.refused == count,
	       "rejection reasons add up to the packets not accepted (host "
	       "%llu, switch %llu, edge ingress %llu)",
	       (unsigned long long)h_rej, (unsigned long long)s_rej,
	       (unsigned long long)e_rej);
	tap_ok(sp.seen[HPCC_CNT_EDGE_STRIPPED] > 1000 &&
	       ep.seen[HPCC_CNT_EDGE_STRIPPED] > 1000 &&
	       ep.seen[HPCC_CNT_EDGE_PROBE_DROPPED] > 1000,
	       "edge ports met often: stripped leaving %llu, coming in %llu; "
	       "probes dropped coming in %llu",
	       (unsigned long long)sp.seen[HPCC_CNT_EDGE_STRIPPED],
	       (unsigned long long)ep.seen[HPCC_CNT_EDGE_STRIPPED],
	       (unsigned long long)ep.seen[HPCC_CNT_EDGE_PROBE_DROPPED]);
	for (r = 0; r < ARRAY_SIZE(host_rejects); r++)
		tap_ok(hp.seen[host_rejects[r]] > 100 &&
		       (host_rejects[r] == HPCC_CNT_BAD_CSUM ||
			sp.seen[host_rejects[r]] > 100),
		       "reason %s met often (host %llu, switch %llu)",
		       hpcc_counter_name(host_rejects[r]),
		       (unsigned long long)hp.seen[host_rejects[r]],
		       (unsigned long long)sp.seen[host_rejects[r]]);
	tap_ok(hp.seen[HPCC_CNT_PROBE_REFLECTED] > 1000 &&
	       hp.seen[HPCC_CNT_REFLECT_NO_SOCKET] > 1000 &&
	       hp.seen[HPCC_CNT_REFLECT_NO_CONN] > 10 &&
	       hp.seen[HPCC_CNT_NO_SOCKET] > 1000 &&
	       sp.seen[HPCC_CNT_SWITCH_STAMPED] > 1000 &&
	       sp.seen[HPCC_CNT_SWITCH_OVERFLOW] > 100,
	       "valid probes and responses met often (reflected %llu, "
	       "refused: no socket %llu, only the listener %llu; "
	       "responses %llu, stamped %llu, overflow %llu)",
	       (unsigned long long)hp.seen[HPCC_CNT_PROBE_REFLECTED],
	       (unsigned long long)hp.seen[HPCC_CNT_REFLECT_NO_SOCKET],
	       (unsigned long long)hp.seen[HPCC_CNT_REFLECT_NO_CONN],
	       (unsigned long long)hp.seen[HPCC_CNT_NO_SOCKET],
	       (unsigned long long)sp.seen[HPCC_CNT_SWITCH_STAMPED],
	       (unsigned long long)sp.seen[HPCC_CNT_SWITCH_OVERFLOW]);
	tap_ok(cov[0] && cov[1] && cov[2] && cov[3] && cov[4] && cov[5] &&
	       cov[6] && cov[7], "valid packets of every shape met: IPv4, "
	       "IPv6, 0-2 VLAN tags, raw IP, IPv4 and TCP options");
	hpcc_host__destroy(h);
	hpcc_switch__destroy(s);
	return tap_done();
}
