/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Byte-exact streams for the stress and fault selftests: a deterministic
 * byte pattern per stream id (the receiver regenerates it and compares
 * every byte), SHA-256 on both ends, and the small framing the sink
 * (hpcc_stress sink) and its clients share:
 *
 *   client -> sink:  struct hs_hdr, then hdr.len pattern bytes of stream
 *                    hdr.id (HS_LEN_STREAM: until the client's FIN)
 *   sink -> client:  struct hs_reply after the client's FIN: the bytes
 *                    received, the receiver's SHA-256 of them, and whether
 *                    every byte was the pattern's.
 */
#ifndef _HPCC_STREAM_H
#define _HPCC_STREAM_H

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- SHA-256 (FIPS 180-4) ------------------------------------------------ */

struct sha256 {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
	unsigned int n;
};

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define SHA_ROR(x, n)	(((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(struct sha256 *s, const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 64; i++)
		w[i] = w[i - 16] + w[i - 7] +
		       (SHA_ROR(w[i - 15], 7) ^ SHA_ROR(w[i - 15], 18) ^
			(w[i - 15] >> 3)) +
		       (SHA_ROR(w[i - 2], 17) ^ SHA_ROR(w[i - 2], 19) ^
			(w[i - 2] >> 10));
	a = s->h[0]; b = s->h[1]; c = s->h[2]; d = s->h[3];
	e = s->h[4]; f = s->h[5]; g = s->h[6]; h = s->h[7];
	for (i = 0; i < 64; i++) {
		uint32_t t1 = h + (SHA_ROR(e, 6) ^ SHA_ROR(e, 11) ^ SHA_ROR(e, 25)) +
			      ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
		uint32_t t2 = (SHA_ROR(a, 2) ^ SHA_ROR(a, 13) ^ SHA_ROR(a, 22)) +
			      ((a & b) ^ (a & c) ^ (b & c));

		h = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
	s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

static void sha256_init(struct sha256 *s)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, iv, sizeof(iv));
	s->len = 0;
	s->n = 0;
}

static void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	s->len += len;
	if (s->n) {
		size_t k = 64 - s->n < len ? 64 - s->n : len;

		memcpy(s->buf + s->n, p, k);
		s->n += k;
		p += k;
		len -= k;
		if (s->n < 64)
			return;
		sha256_block(s, s->buf);
		s->n = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		sha256_block(s, p);
	memcpy(s->buf, p, len);
	s->n = len;
}

static void sha256_final(struct sha256 *s, uint8_t out[32])
{
	uint64_t bits = s->len * 8;
	uint8_t pad = 0x80;
	int i;

	sha256_update(s, &pad, 1);
	pad = 0;
	while (s->n != 56)
		sha256_update(s, &pad, 1);
	for (i = 7; i >= 0; i--) {
		pad = bits >> (8 * i);
		sha256_update(s, &pad, 1);
	}
	for (i = 0; i < 8; i++) {
		out[4 * i] = s->h[i] >> 24;
		out[4 * i + 1] = s->h[i] >> 16;
		out[4 * i + 2] = s->h[i] >> 8;
		out[4 * i + 3] = s->h[i];
	}
}

static inline void hex32(const uint8_t d[32], char out[65])
{
	for (int i = 0; i < 32; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

/* ---- the pattern: xorshift64* keyed by the stream id ---------------------- */

struct pattern {
	uint64_t x;		/* generator state */
	uint8_t word[8];	/* current output word */
	unsigned int used;	/* bytes of word already handed out */
};

static void pattern_init(struct pattern *p, uint64_t id)
{
	/* splitmix64 of the id: neighbouring ids give unrelated streams */
	uint64_t z = id * 0x9e3779b97f4a7c15ULL + 0x6a09e667f3bcc909ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	p->x = (z ^ (z >> 31)) | 1;
	p->used = 8;
}

static void pattern_fill(struct pattern *p, uint8_t *buf, size_t n)
{
	while (n) {
		if (p->used == 8) {
			uint64_t v;

			p->x ^= p->x >> 12;
			p->x ^= p->x << 25;
			p->x ^= p->x >> 27;
			v = htole64(p->x * 0x2545f4914f6cdd1dULL);
			memcpy(p->word, &v, 8);
			p->used = 0;
		}
		if (p->used == 0 && n >= 8) {
			/* whole words straight into the buffer */
			memcpy(buf, p->word, 8);
			p->used = 8;
			buf += 8;
			n -= 8;
			continue;
		}
		*buf++ = p->word[p->used++];
		n--;
	}
}

/* 1 + the offset of the first byte where @a and @b differ, 0 if none */
static inline uint64_t pattern_first_diff(const uint8_t *a, const uint8_t *b,
					  size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (a[k] != b[k])
			return k + 1;
	return 0;
}

/* ---- framing ------------------------------------------------------------- */

#define HS_MAGIC	0x48505331u	/* "HPS1" */
#define HS_LEN_STREAM	UINT64_MAX	/* until the client's FIN */

struct hs_hdr {
	uint32_t magic;		/* HS_MAGIC, big-endian */
	uint32_t id;		/* stream id, big-endian */
	uint64_t len;		/* pattern bytes that follow, big-endian */
};

#define HS_OK		0
#define HS_BAD_PATTERN	1	/* a byte differed from the pattern */
#define HS_BAD_LENGTH	2	/* fewer or more bytes than announced */

struct hs_reply {
	uint32_t magic;		/* HS_MAGIC, big-endian */
	uint32_t status;	/* HS_*, big-endian */
	uint64_t bytes;		/* pattern bytes received, big-endian */
	uint8_t sha256[32];	/* of those bytes */
};

/* ---- small helpers --------------------------------------------------------- */

static inline double hs_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* A counter from /proc/net/tcp_hpcc_stat (host-wide), -1 if absent. */
static inline long long hs_stat(const char *name)
{
	char line[128], key[64];
	long long v, found = -1;
	FILE *f = fopen("/proc/net/tcp_hpcc_stat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", key, &v) == 2 && !strcmp(key, name))
			found = v;
	if (f)
		fclose(f);
	return found;
}

/* Move the calling thread into network namespace NAME (/run/netns/NAME,
 * or a path). 0 or -1.
 */
static inline int hs_setns(const char *name)
{
	char path[256];
	int fd, err;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	err = setns(fd, CLONE_NEWNET);
	close(fd);
	return err;
}

/* A TCP socket connected (or, with nonblock, connecting) to ADDR:PORT, with
 * TCP_CONGESTION cc when cc is set. -1 with errno on failure.
 */
static inline int hs_connect(const char *addr, int port, const char *cc,
		      int nonblock)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	struct sockaddr *sa = (void *)&a4;
	socklen_t salen = sizeof(a4);
	int fd, err;

	a4.sin_port = a6.sin6_port = htons(port);
	if (inet_pton(AF_INET6, addr, &a6.sin6_addr) == 1) {
		sa = (void *)&a6;
		salen = sizeof(a6);
	} else if (inet_pton(AF_INET, addr, &a4.sin_addr) != 1) {
		errno = EINVAL;
		return -1;
	}
	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC |
		    (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0)
		return -1;
	if (cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc)))
		goto fail;
	if (connect(fd, sa, salen) && !(nonblock && errno == EINPROGRESS))
		goto fail;
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

/* The congestion control a socket uses, into buf[16]. */
static inline const char *hs_cc(int fd, char buf[16])
{
	socklen_t len = 16;

	memset(buf, 0, 16);
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, buf, &len))
		snprintf(buf, 16, "?");
	buf[15] = 0;
	return buf;
}

static inline void hs_hdr_make(struct hs_hdr *h, uint32_t id, uint64_t len)
{
	h->magic = htobe32(HS_MAGIC);
	h->id = htobe32(id);
	h->len = htobe64(len);
}

#endif /* _HPCC_STREAM_H */
