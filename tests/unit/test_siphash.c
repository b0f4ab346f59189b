// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_siphash.h against the SipHash-2-4 reference vectors (the reference
 * implementation's vectors_sip64: key 00..0f, message 00..n-1, n = 0..63),
 * and the MAC chain of wire version 2 (hpcc_wire.h): a chain built hop by
 * hop verifies; any change to a tagged byte, the nonce, send_ns, the order
 * or the number of records, or the key, does not.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "tap.h"
#include "hpcc_wire.h"

static const __u64 vec[64] = {
	0x726fdb47dd0e0e31ULL, 0x74f839c593dc67fdULL, 0x0d6c8009d9a94f5aULL,
	0x85676696d7fb7e2dULL, 0xcf2794e0277187b7ULL, 0x18765564cd99a68dULL,
	0xcbc9466e58fee3ceULL, 0xab0200f58b01d137ULL, 0x93f5f5799a932462ULL,
	0x9e0082df0ba9e4b0ULL, 0x7a5dbbc594ddb9f3ULL, 0xf4b32f46226bada7ULL,
	0x751e8fbc860ee5fbULL, 0x14ea5627c0843d90ULL, 0xf723ca908e7af2eeULL,
	0xa129ca6149be45e5ULL, 0x3f2acc7f57c29bdbULL, 0x699ae9f52cbe4794ULL,
	0x4bc1b3f0968dd39cULL, 0xbb6dc91da77961bdULL, 0xbed65cf21aa2ee98ULL,
	0xd0f2cbb02e3b67c7ULL, 0x93536795e3a33e88ULL, 0xa80c038ccd5ccec8ULL,
	0xb8ad50c6f649af94ULL, 0xbce192de8a85b8eaULL, 0x17d835b85bbb15f3ULL,
	0x2f2e6163076bcfadULL, 0xde4daaaca71dc9a5ULL, 0xa6a2506687956571ULL,
	0xad87a3535c49ef28ULL, 0x32d892fad841c342ULL, 0x7127512f72f27cceULL,
	0xa7f32346f95978e3ULL, 0x12e0b01abb051238ULL, 0x15e034d40fa197aeULL,
	0x314dffbe0815a3b4ULL, 0x027990f029623981ULL, 0xcadcd4e59ef40c4dULL,
	0x9abfd8766a33735cULL, 0x0e3ea96b5304a7d0ULL, 0xad0c42d6fc585992ULL,
	0x187306c89bc215a9ULL, 0xd4a60abcf3792b95ULL, 0xf935451de4f21df2ULL,
	0xa9538f0419755787ULL, 0xdb9acddff56ca510ULL, 0xd06c98cd5c0975ebULL,
	0xe612a3cb9ecba951ULL, 0xc766e62cfcadaf96ULL, 0xee64435a9752fe72ULL,
	0xa192d576b245165aULL, 0x0a8787bf8ecb74b2ULL, 0x81b3e73d20b49b6fULL,
	0x7fa8220ba3b2eceaULL, 0x245731c13ca42499ULL, 0xb78dbfaf3a8d83bdULL,
	0xea1ad565322a1a0bULL, 0x60e61c23a3795013ULL, 0x6606d7e446282b93ULL,
	0x6ca4ecb15c5f91e1ULL, 0x9f626da15c9625f3ULL, 0xe51b38608ef25f57ULL,
	0x958a324ceb064572ULL,
};

static void put_be64(void *p, __u64 v)
{
	__u8 *b = p;
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (__u8)(v >> (56 - 8 * i));
}

/* What hpcc_switch does at hop i, in memory. */
static void stamp(struct hpcc_probe_v2 *p, const struct hpcc_sipkey *k,
		  __u32 sid)
{
	__u32 i = p->hdr.nhops;
	struct hpcc_hop_v2 *h = &p->hop[i];

	memset(h, 0, sizeof(*h));
	h->rec.switch_id = __builtin_bswap32(sid);
	h->rec.qlen = __builtin_bswap32(1000 * sid);
	h->rec.rate_mbps = __builtin_bswap32(10000);
	h->rec.ts_ns = __builtin_bswap64(123456789ULL * sid);
	put_be64(&h->tag, hpcc_mac_tag(k, &p->hdr, i, &h->rec,
				       i ? (const __u8 *)&p->hop[i - 1].tag :
					   NULL));
	p->hdr.nhops++;
}

/* Rx-HPCC's window response: its one length, its flags, its tag. */
static void check_window(void)
{
	struct hpcc_window_resp r;
	struct hpcc_sipkey k;
	__u8 key[16] = { 0 };
	unsigned int i, bad = 0;

	memset(&r, 0, sizeof(r));
	r.hdr.version = HPCC_WIRE_V2;
	r.hdr.room = HPCC_MAX_HOPS;
	r.hdr.flags = HPCC_F_RESPONSE | HPCC_F_WANT_WINDOW | HPCC_F_WINDOW;
	tap_ok(HPCC_WINDOW_LEN == 56 &&
	       hpcc_wire_check(&r.hdr, HPCC_WINDOW_LEN) == 0,
	       "window response: 56 bytes, valid");
	tap_ok(hpcc_wire_check(&r.hdr, HPCC_PROBE_V2_LEN) == -EMSGSIZE,
	       "window flag at the probe's length: -EMSGSIZE");
	r.hdr.flags &= ~HPCC_F_WINDOW;
	tap_ok(hpcc_wire_check(&r.hdr, HPCC_WINDOW_LEN) == -EMSGSIZE,
	       "window length without the window flag: -EMSGSIZE");
	r.hdr.flags = HPCC_F_RESPONSE | HPCC_F_WINDOW;
	tap_ok(hpcc_wire_check(&r.hdr, HPCC_WINDOW_LEN) == -EBADMSG,
	       "a window nobody asked for: -EBADMSG");
	r.hdr.flags = HPCC_F_WANT_WINDOW | HPCC_F_WINDOW;
	tap_ok(hpcc_wire_check(&r.hdr, HPCC_WINDOW_LEN) == -EBADMSG,
	       "a window that is not a response: -EBADMSG");
	r.hdr.flags = HPCC_F_RESPONSE | HPCC_F_WANT_WINDOW | HPCC_F_WINDOW;
	r.hdr.nhops = 1;
	tap_ok(hpcc_wire_check(&r.hdr, HPCC_WINDOW_LEN) == -ERANGE,
	       "a window with hop records: -ERANGE");
	r.hdr.nhops = 0;
	r.hdr.version = HPCC_WIRE_V1;
	tap_ok(hpcc_wire_check(&r.hdr, HPCC_WINDOW_LEN) == -EMSGSIZE,
	       "version 1 at the window's length: -EMSGSIZE");
	r.hdr.version = HPCC_WIRE_V2;

	for (i = 0; i < sizeof(key); i++)
		key[i] = (__u8)(0x40 + i);
	hpcc_sipkey_of(&k, key);
	r.hdr.flags |= HPCC_F_MAC;
	r.hdr.nonce = 0x01020304;
	put_be64(&r.win.w_bytes, 125390);
	put_be64(&r.tag, hpcc_mac_window_tag(&k, &r));
	tap_ok(hpcc_mac_window_verify(&r, &k) == 0, "window tag verifies");
	for (i = 0; i < HPCC_WINDOW_LEN * 8; i++) {
		__u8 *b = (__u8 *)&r;

		b[i / 8] ^= (__u8)(1 << (i % 8));
		if (hpcc_mac_window_verify(&r, &k) != -EKEYREJECTED)
			bad++;
		b[i / 8] ^= (__u8)(1 << (i % 8));
	}
	tap_ok(!bad, "any bit of a window response flipped: -EKEYREJECTED");
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/*
 * --bench: ns per hpcc_mac_verify() of a 1..8-hop chain, the code the
 * kfunc runs (compiled here at the same -O2, natively), the median of 15
 * rounds of 100000 calls.
 */
static int bench(void)
{
	static const int hops[] = { 1, 2, 4, 8 };
	__u8 key[16] = { 1, 2, 3 };
	struct hpcc_probe_v2 p;
	struct hpcc_sipkey k;
	volatile int sink = 0;
	double v[15], t;
	int h, i, r, j;

	hpcc_sipkey_of(&k, key);
	for (h = 0; h < 4; h++) {
		memset(&p, 0, sizeof(p));
		p.hdr.version = HPCC_WIRE_V2;
		p.hdr.flags = HPCC_F_MAC;
		p.hdr.room = HPCC_MAX_HOPS;
		p.hdr.nonce = 0x78563412;
		for (i = 1; i <= hops[h]; i++)
			stamp(&p, &k, (__u32)i);
		/* a response, as the kfunc gets it: the receiver's seal too */
		p.hdr.flags |= HPCC_F_RESPONSE;
		hpcc_mac_seal(&p, &k);
		for (r = 0; r < 15; r++) {
			t = now_ns();
			for (i = 0; i < 100000; i++)
				sink += hpcc_mac_verify(&p, &k);
			v[r] = (now_ns() - t) / 100000;
		}
		for (r = 1; r < 15; r++)	/* insertion sort */
			for (j = r; j > 0 && v[j] < v[j - 1]; j--) {
				t = v[j];
				v[j] = v[j - 1];
				v[j - 1] = t;
			}
		printf("# hpcc_mac_verify, %d hop%s: %6.1f ns (median of 15)\n",
		       hops[h], hops[h] > 1 ? "s" : "", v[7]);
	}
	return sink != 0;
}

int main(int argc, char **argv)
{
	__u8 key[16], msg[64];
	struct hpcc_sipkey k, k2;
	struct hpcc_probe_v2 p, q;
	int i, bad = 0;
	__u32 b;

	if (argc > 1 && !strcmp(argv[1], "--bench"))
		return bench();
	for (i = 0; i < 16; i++)
		key[i] = (__u8)i;
	for (i = 0; i < 64; i++)
		msg[i] = (__u8)i;
	hpcc_sipkey_of(&k, key);
	for (i = 0; i < 64; i++) {
		__u64 got = hpcc_siphash24(&k, msg, (__u32)i);

		if (got != vec[i]) {
			tap_diag("len %d: %016llx, want %016llx", i,
				 (unsigned long long)got,
				 (unsigned long long)vec[i]);
			bad++;
		}
	}
	tap_ok(!bad, "SipHash-2-4: the 64 reference vectors");

	tap_ok(HPCC_PROBE_V2_LEN == 344 && HPCC_PROBE_LEN == 272,
	       "lengths: v1 272, v2 344");

	/* Both versions pass the structural check; lengths per version. */
	memset(&p, 0, sizeof(p));
	p.hdr.version = HPCC_WIRE_V2;
	p.hdr.room = HPCC_MAX_HOPS;
	p.hdr.flags = HPCC_F_MAC;
	tap_ok(hpcc_wire_check(&p.hdr,
			       HPCC_PROBE_V2_LEN) == 0, "v2 probe: valid");
	tap_ok(hpcc_wire_check(&p.hdr,
			       HPCC_PROBE_LEN) == -EMSGSIZE,
	       "v2 header, v1 length: -EMSGSIZE");
	p.hdr.version = HPCC_WIRE_V1;
	tap_ok(hpcc_wire_check(&p.hdr,
			       HPCC_PROBE_LEN) == -EBADMSG,
	       "v1 with the MAC flag: -EBADMSG");
	p.hdr.flags = 0;
	tap_ok(hpcc_wire_check(&p.hdr,
			       HPCC_PROBE_LEN) == 0, "v1 probe: valid");
	tap_ok(hpcc_wire_check(&p.hdr,
			       HPCC_PROBE_V2_LEN) == -EMSGSIZE,
	       "v1 header, v2 length: -EMSGSIZE");
	p.hdr.version = 3;
	tap_ok(hpcc_wire_check(&p.hdr,
			       HPCC_PROBE_V2_LEN) == -EPROTONOSUPPORT,
	       "version 3: -EPROTONOSUPPORT");
	p.hdr.version = HPCC_WIRE_V2;
	bad = 0;
	for (b = HPCC_F_WANT_WINDOW; b <= 0x80; b <<= 1) {
		p.hdr.flags = (__u8)b;
		if ((b == HPCC_F_MAC || b == HPCC_F_ANON ||
		     b == HPCC_F_WANT_WINDOW) !=
		    !hpcc_wire_check(&p.hdr, HPCC_PROBE_V2_LEN))
			bad++;
	}
	tap_ok(!bad,
	       "v2: MAC, ANON, WANT_WINDOW accepted, the others refused");
	check_window();

	/* A chain over three hops verifies. */
	memset(&p, 0, sizeof(p));
	p.hdr.version = HPCC_WIRE_V2;
	p.hdr.flags = HPCC_F_MAC;
	p.hdr.room = HPCC_MAX_HOPS;
	p.hdr.nonce = 0x78563412;
	p.hdr.send_ns = 0x1122334455667788ULL;
	for (i = 1; i <= 3; i++)
		stamp(&p, &k, (__u32)i);
	tap_ok(hpcc_mac_verify(&p, &k) == 0, "3-hop chain verifies");
	tap_ok(p.hop[0].tag != 0 && p.hop[1].tag != p.hop[0].tag,
	       "tags are set and differ");

	/* Every byte of every tagged record, and of the bound header. */
	bad = 0;
	for (i = 0; i < 3 * 40; i++) {
		q = p;
		((__u8 *)q.hop)[i] ^= 0x01;
		if (hpcc_mac_verify(&q, &k) != -EKEYREJECTED)
			bad++;
	}
	tap_ok(!bad, "any bit flipped in a record or tag: -EKEYREJECTED");
	q = p;
	q.hdr.nonce ^= 1;
	tap_ok(hpcc_mac_verify(&q, &k) == -EKEYREJECTED,
	       "replayed onto another nonce: rejected");
	q = p;
	q.hdr.send_ns ^= 1ULL << 40;
	tap_ok(hpcc_mac_verify(&q, &k) == -EKEYREJECTED,
	       "another send_ns: rejected");
	q = p;
	q.hop[0] = p.hop[1];
	q.hop[1] = p.hop[0];
	tap_ok(hpcc_mac_verify(&q, &k) == -EKEYREJECTED,
	       "records swapped: rejected");
	q = p;
	q.hop[0] = p.hop[1];
	q.hop[1] = p.hop[2];
	q.hdr.nhops = 2;
	tap_ok(hpcc_mac_verify(&q, &k) == -EKEYREJECTED,
	       "first record removed: rejected");
	q = p;
	q.hdr.nhops = 2;
	tap_ok(hpcc_mac_verify(&q, &k) == 0,
	       "last record cut (nhops-1): the rest still verifies (the tail "
	       "is not bound: the sender sees fewer hops)");
	key[3] ^= 0x80;
	hpcc_sipkey_of(&k2, key);
	tap_ok(hpcc_mac_verify(&p, &k2) == -EKEYREJECTED,
	       "another key: rejected");

	/* The response: the receiver seals header and chain. */
	p.hdr.flags |= HPCC_F_RESPONSE;
	q = p;
	tap_ok(hpcc_mac_verify(&q, &k) == -EKEYREJECTED,
	       "response without the receiver's tag: rejected");
	hpcc_mac_seal(&p, &k);
	tap_ok(hpcc_mac_verify(&p, &k) == 0, "sealed 3-hop response verifies");
	q = p;
	q.hdr.nhops = 2;
	tap_ok(hpcc_mac_verify(&q, &k) == -EKEYREJECTED,
	       "response: last record cut (nhops-1): rejected");
	q = p;
	q.hdr.nhops = 0;
	tap_ok(hpcc_mac_verify(&q, &k) == -EKEYREJECTED,
	       "response: every record cut (nhops 0): rejected");
	bad = 0;
	for (i = 0; i < (int)sizeof(p.hdr); i++) {
		q = p;
		((__u8 *)&q.hdr)[i] ^= 0x02;	/* keeps RESPONSE and MAC */
		if (hpcc_mac_verify(&q, &k) != -EKEYREJECTED)
			bad++;
	}
	tap_ok(!bad, "response: any header byte changed (flags, nhops, room, "
	       "t_us, key_id, reserved): rejected (%d not)", bad);
	q = p;
	q.hdr.nhops = 4;
	q.hop[3] = p.hop[2];
	tap_ok(hpcc_mac_verify(&q, &k) == -EKEYREJECTED,
	       "response: a record appended: rejected");
	tap_ok(hpcc_mac_verify(&p, &k2) == -EKEYREJECTED,
	       "response: another key: rejected");
	memset(&q, 0, sizeof(q));
	q.hdr.version = HPCC_WIRE_V2;
	q.hdr.flags = HPCC_F_MAC | HPCC_F_RESPONSE;
	q.hdr.room = HPCC_MAX_HOPS;
	hpcc_mac_seal(&q, &k);
	tap_ok(hpcc_mac_verify(&q, &k) == 0 && q.hop[0].tag,
	       "response without records: sealed in slot 0, verifies");
	return tap_done();
}
