/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * 2012), the MAC of wire version 2: one definition shared by the tc BPF
 * programs, tcp_hpcc.ko and the userspace tests, so that a tag computed on
 * a router and checked in the module cannot differ by implementation.
 *
 * Reference conventions: the 128-bit key is 16 bytes, k0 the first 8 read
 * little-endian, k1 the last 8; the message is read as little-endian 64-bit
 * words; the result is the 64-bit v0 ^ v1 ^ v2 ^ v3. tests/unit/test_siphash
 * checks all 64 vectors of the reference implementation (key 00..0f,
 * message 00..n-1). The kernel's lib/siphash uses the same conventions, but
 * a BPF program cannot call it, hence this header.
 *
 * BPF-friendly: no libc, byte loads only (any alignment, any endianness),
 * the loop is bounded by @len, which callers pass as a constant.
 */
#ifndef _HPCC_SIPHASH_H
#define _HPCC_SIPHASH_H

struct hpcc_sipkey {
	__u64 k0;
	__u64 k1;
};

static inline __u64 hpcc_rotl64(__u64 x, int b)
{
	return (x << b) | (x >> (64 - b));
}

static inline void hpcc_sipround(__u64 *v)
{
	v[0] += v[1];
	v[1] = hpcc_rotl64(v[1], 13);
	v[1] ^= v[0];
	v[0] = hpcc_rotl64(v[0], 32);
	v[2] += v[3];
	v[3] = hpcc_rotl64(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = hpcc_rotl64(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = hpcc_rotl64(v[1], 17);
	v[1] ^= v[2];
	v[2] = hpcc_rotl64(v[2], 32);
}

static inline __u64 hpcc_get_le64(const __u8 *b)
{
	return (__u64)b[0] | (__u64)b[1] << 8 | (__u64)b[2] << 16 |
	       (__u64)b[3] << 24 | (__u64)b[4] << 32 | (__u64)b[5] << 40 |
	       (__u64)b[6] << 48 | (__u64)b[7] << 56;
}

/* The key from its 16 wire/config bytes. */
static inline void hpcc_sipkey_of(struct hpcc_sipkey *k, const __u8 *b)
{
	k->k0 = hpcc_get_le64(b);
	k->k1 = hpcc_get_le64(b + 8);
}

static inline __u64 hpcc_siphash24(const struct hpcc_sipkey *k,
				   const __u8 *m, __u32 len)
{
	__u64 v[4], b = (__u64)len << 56, w;
	__u32 i, j, left = len & 7;

	v[0] = 0x736f6d6570736575ULL ^ k->k0;
	v[1] = 0x646f72616e646f6dULL ^ k->k1;
	v[2] = 0x6c7967656e657261ULL ^ k->k0;
	v[3] = 0x7465646279746573ULL ^ k->k1;
	for (i = 0; i + 8 <= len; i += 8) {
		w = hpcc_get_le64(m + i);
		v[3] ^= w;
		hpcc_sipround(v);
		hpcc_sipround(v);
		v[0] ^= w;
	}
	/* The tail, at most 7 bytes, in little-endian order. */
	for (j = 0; j < left; j++)
		b |= (__u64)m[i + j] << (8 * j);
	v[3] ^= b;
	hpcc_sipround(v);
	hpcc_sipround(v);
	v[0] ^= b;
	v[2] ^= 0xff;
	for (j = 0; j < 4; j++)
		hpcc_sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

#endif /* _HPCC_SIPHASH_H */
