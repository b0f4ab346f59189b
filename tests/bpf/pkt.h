/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pkt.h - build test frames (Ethernet + IPv4/IPv6 + TCP/UDP) and check
 * their checksums independently of the BPF code under test.
 */
#ifndef _TESTS_BPF_PKT_H
#define _TESTS_BPF_PKT_H

#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <arpa/inet.h>

#define ETH_HLEN_	14
#define PKT_MAX		2048

struct pkt {
	uint8_t b[PKT_MAX];
	uint32_t len;
	/* offsets filled by the builder */
	uint32_t l3, l4, pay;
	bool v6;
};

struct pkt_opts {
	bool v6;
	uint8_t dscp;
	uint8_t ecn;
	uint8_t tcp_flags;
	uint8_t proto;		/* 0 = TCP */
	uint8_t ip_opt_words;	/* IPv4 options, 4-byte words (NOPs) */
	uint8_t tcp_opt_words;	/* TCP options, 4-byte words (NOPs) */
	uint8_t vlans;		/* in-band VLAN tags: 802.1ad first if
				 * several, then 802.1Q
				 */
	bool v6_hbh;		/* IPv6 hop-by-hop extension header */
	uint16_t sport, dport;
	const void *payload;
	uint32_t paylen;
	/* addresses: fixed defaults unless set */
	const uint8_t *saddr, *daddr;	/* 4 or 16 bytes */
};

static const uint8_t pkt_mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t pkt_mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };
static const uint8_t pkt_ip4_a[4] = { 10, 0, 0, 1 };
static const uint8_t pkt_ip4_b[4] = { 10, 0, 0, 2 };
static const uint8_t pkt_ip6_a[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
				       0, 0, 0, 0, 0, 0, 0, 1 };
static const uint8_t pkt_ip6_b[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
				       0, 0, 0, 0, 0, 0, 0, 2 };

static inline uint32_t csum_add_buf(uint32_t sum, const void *buf,
				    uint32_t len)
{
	const uint8_t *p = buf;
	uint32_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static inline uint16_t csum_fold_(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* L4 checksum over pseudo-header + segment; 0 result == valid when the
 * checksum field is included.
 */
static inline uint16_t l4_csum(const struct pkt *k, uint8_t proto)
{
	uint32_t sum = 0, l4len = k->len - k->l4;

	if (k->v6) {
		sum = csum_add_buf(sum, k->b + k->l3 + 8, 32);
		sum += l4len >> 16;
		sum += l4len & 0xffff;
	} else {
		sum = csum_add_buf(sum, k->b + k->l3 + 12, 8);
		sum += l4len;
	}
	sum += proto;
	sum = csum_add_buf(sum, k->b + k->l4, l4len);
	return csum_fold_(sum);
}

static inline bool ip4_csum_ok(const struct pkt *k)
{
	uint32_t hl = (k->b[k->l3] & 0x0f) * 4;

	return csum_fold_(csum_add_buf(0, k->b + k->l3, hl)) == 0;
}

static inline bool tcp_csum_ok(const struct pkt *k)
{
	return l4_csum(k, 6) == 0;
}

/* Build a frame; returns the total length. */
static inline uint32_t pkt_build(struct pkt *k, const struct pkt_opts *o)
{
	uint8_t proto = o->proto ? o->proto : 6;
	uint32_t l4hl = proto == 6 ? 20 + 4 * o->tcp_opt_words : 8;
	uint32_t l3hl, l4len, t;
	uint8_t *p;

	memset(k, 0, sizeof(*k));
	k->v6 = o->v6;
	memcpy(k->b, pkt_mac_b, 6);
	memcpy(k->b + 6, pkt_mac_a, 6);
	k->l3 = ETH_HLEN_;
	for (t = 0; t < o->vlans; t++) {
		put16(k->b + k->l3 - 2, t || o->vlans == 1 ? 0x8100 : 0x88a8);
		put16(k->b + k->l3, 100 + t);		/* TCI */
		k->l3 += 4;
	}
	put16(k->b + k->l3 - 2, o->v6 ? 0x86dd : 0x0800);
	l4len = l4hl + o->paylen;
	p = k->b + k->l3;
	if (o->v6) {
		uint32_t vtc = 6u << 28 | (uint32_t)(o->dscp << 2 | o->ecn) << 20 |
			       0x12345;
		uint32_t ext = o->v6_hbh ? 8 : 0;

		p[0] = vtc >> 24;
		p[1] = vtc >> 16;
		p[2] = vtc >> 8;
		p[3] = vtc;
		put16(p + 4, l4len + ext);
		p[6] = o->v6_hbh ? 0 : proto;
		p[7] = 61;
		memcpy(p + 8, o->saddr ? o->saddr : pkt_ip6_a, 16);
		memcpy(p + 24, o->daddr ? o->daddr : pkt_ip6_b, 16);
		l3hl = 40;
		if (o->v6_hbh) {
			/* next header TCP, length 0 (8 bytes), PadN */
			p[40] = proto;
			p[41] = 0;
			p[42] = 1;
			p[43] = 4;
		}
		l3hl += ext;
	} else {
		l3hl = 20 + 4 * o->ip_opt_words;
		p[0] = 0x40 | (l3hl / 4);
		p[1] = o->dscp << 2 | o->ecn;
		put16(p + 2, l3hl + l4len);
		put16(p + 4, 0x1234);
		put16(p + 6, 0x4000);	/* DF */
		p[8] = 61;
		p[9] = proto;
		memcpy(p + 12, o->saddr ? o->saddr : pkt_ip4_a, 4);
		memcpy(p + 16, o->daddr ? o->daddr : pkt_ip4_b, 4);
		memset(p + 20, 1, 4 * o->ip_opt_words);		/* NOPs */
		put16(p + 10, csum_fold_(csum_add_buf(0, p, l3hl)));
	}
	k->l4 = k->l3 + l3hl;
	k->pay = k->l4 + l4hl;
	p = k->b + k->l4;
	put16(p, o->sport ? o->sport : 40000);
	put16(p + 2, o->dport ? o->dport : 5201);
	if (proto == 6) {
		p[4] = 0x11;		/* seq */
		p[8] = 0x22;		/* ack_seq */
		p[12] = (l4hl / 4) << 4;
		p[13] = o->tcp_flags;
		put16(p + 14, 512);
		memset(p + 20, 1, l4hl - 20);			/* NOPs */
	} else {
		put16(p + 4, l4len);
	}
	if (o->paylen)
		memcpy(k->b + k->pay, o->payload, o->paylen);
	k->len = k->pay + o->paylen;
	if (proto == 6 || proto == 17) {
		uint32_t coff = proto == 6 ? 16 : 6;

		put16(p + coff, l4_csum(k, proto));
	}
	return k->len;
}

/* A frame built by pkt_build() without its Ethernet header: what a raw IP
 * device (a tun device with IFF_NO_PI) reads and writes.
 */
static inline void pkt_strip_eth(struct pkt *k)
{
	uint32_t eh = k->l3;

	memmove(k->b, k->b + eh, k->len - eh);
	k->len -= eh;
	k->l3 -= eh;
	k->l4 -= eh;
	k->pay -= eh;
}

#endif /* _TESTS_BPF_PKT_H */
