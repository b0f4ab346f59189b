/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Receiver-measured N (draft-pan-tsvwg-hpccplus, "Receiver-based HPCC"):
 * how many HPCC flows share the receiver's last hop, counted by the
 * receiver as the distinct connections whose probes reach its device.
 * Every HPCC flow probes at least every telemetry_timeout - 2 RTTs, so an
 * epoch of a few of those sees each live flow once; flows of other
 * congestion controls do not probe and do not add to W_ai's share either.
 *
 * Pure C, no kernel headers: hpcc_host.bpf.c counts with it, the unit
 * tests and the ns-3 model run the very same code. The counter is a
 * bitmap per epoch, two epochs kept (the current one and the one before),
 * one bit per connection hash: a probe sets its bit and, when it was
 * clear, adds one to the epoch's count. N is the larger of the two
 * epochs' counts, so a new flow counts at once and a gone one within two
 * epochs. Hash collisions make N low by about N^2 / (2 * HPCC_FC_BITS):
 * 1 at 90 flows, 8 at 256 (no correction is applied). Concurrent CPUs:
 * atomic OR and add; the epoch switch is one compare-and-swap, and the
 * winner clears the slot of the new epoch, racing probes of the new epoch
 * that arrive meanwhile (they may lose their bit for one epoch).
 */
#ifndef _HPCC_FLOWCOUNT_H
#define _HPCC_FLOWCOUNT_H

#if !defined(__KERNEL__) && !defined(__VMLINUX_H__)
#include <linux/types.h>
#endif

#define HPCC_FC_BITS		4096
#define HPCC_FC_WORDS		(HPCC_FC_BITS / 64)
#define HPCC_FC_EPOCH_US_DEFAULT 100000	/* 100 ms: 20 RTTs of 5 ms */
#define HPCC_FC_MAX		0xffffffu	/* what the wire carries */

struct hpcc_flowcount {
	__u64 epoch;			/* the current epoch, now / epoch */
	__u32 count[2];			/* distinct flows, by epoch & 1 */
	__u64 bits[2][HPCC_FC_WORDS];
};

/* FNV-1a over the probe's addresses and ports (@len 12 or 36 bytes),
 * then MurmurHash3's finaliser: FNV's low bits, which pick the bit, mix
 * only the data's low bits.
 */
static inline __u32 hpcc_fc_hash(const __u8 *tuple, __u32 len)
{
	__u32 h = 2166136261u, i;

	for (i = 0; i < 36 && i < len; i++)
		h = (h ^ tuple[i]) * 16777619u;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	return h ^ (h >> 16);
}

/* Move @fc on to epoch @e, if it is newer: one CPU wins and clears the
 * slot that epoch reuses (both, if an epoch passed without probes).
 */
static inline void hpcc_fc_roll(struct hpcc_flowcount *fc, __u64 e)
{
	/* one plain read (clang 14's BPF backend has no atomic load); the
	 * compare-and-swap below decides
	 */
	__u64 old = fc->epoch;
	__u32 s, w;

	if (e <= old || __sync_val_compare_and_swap(&fc->epoch, old, e) != old)
		return;
	for (s = 0; s < 2; s++) {
		if (s != (e & 1) && e == old + 1)
			continue;
		for (w = 0; w < HPCC_FC_WORDS; w++)
			fc->bits[s][w] = 0;
		fc->count[s] = 0;
	}
}

/* A probe of connection hash @h arrived at @now (ns); epochs of
 * @epoch_ns (> 0).
 */
static inline void hpcc_fc_add(struct hpcc_flowcount *fc, __u64 now,
			       __u64 epoch_ns, __u32 h)
{
	__u64 e = now / epoch_ns, bit, old;
	__u32 s = e & 1, b = h % HPCC_FC_BITS;

	hpcc_fc_roll(fc, e);
	bit = 1ULL << (b % 64);
	old = __sync_fetch_and_or(&fc->bits[s][b / 64], bit);
	if (!(old & bit))
		__sync_fetch_and_add(&fc->count[s], 1);
}

/* N at @now: the larger count of the current and the previous epoch; 0
 * when no probe came in either.
 */
static inline __u32 hpcc_fc_flows(const struct hpcc_flowcount *fc,
				  __u64 now, __u64 epoch_ns)
{
	__u64 e = now / epoch_ns, cur = fc->epoch;
	__u32 a, b;

	if (e > cur + 1)
		return 0;
	a = fc->count[cur & 1];
	if (e == cur + 1)
		return a;
	b = fc->count[(cur + 1) & 1];
	a = a > b ? a : b;
	return a < HPCC_FC_MAX ? a : HPCC_FC_MAX;
}

#endif /* _HPCC_FLOWCOUNT_H */
