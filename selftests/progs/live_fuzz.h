/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by hpcc_live_fuzz.c and progs/live_fuzz.bpf.c (after hpcc_wire.h). */
#ifndef _LIVE_FUZZ_H
#define _LIVE_FUZZ_H

#define LF_FLOWS	4	/* hpcc flows fuzzed at once */
#define LF_RING		256	/* entries per flow, a power of two */
#define LF_PER_PROBE	16	/* most kfunc calls per probe */

/* lf_entry.flags */
#define LF_LAST		0x01	/* the last call for this probe */
#define LF_CUBIC	0x02	/* report to the cubic connection's socket */
#define LF_NONCE_XOR	0x04	/* nonce: the live one ^ p.hdr.nonce */
#define LF_NONCE_RAW	0x08	/* nonce: p.hdr.nonce as is */

/* lf_entry.size */
#define LF_SZ_FULL	0	/* sizeof(struct hpcc_probe) */
#define LF_SZ_SHORT	1	/* one hop record short */
#define LF_SZ_HDR	2	/* the header only */

struct lf_entry {
	struct hpcc_probe p;	/* wire order; nonce filled in by the program */
	__u32 flags;
	__u32 size;
};

#endif
