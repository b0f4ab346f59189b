// SPDX-License-Identifier: GPL-2.0
/*
 * Drives hpcc_law_report() with a steady stream of 2-hop reports so that
 * `valgrind --tool=callgrind` can count the instructions of one update (the
 * work the ACK that consumes a report does): scripts/bench-law.sh divides
 * the inclusive count of hpcc_law_report by the number of calls.
 */
#include <stdio.h>
#include <stdlib.h>

#include "hpcc_law.h"

__attribute__((noinline)) bool
bench_report(struct hpcc_law *s, const struct hpcc_law_cfg *c,
	     const struct hpcc_sample *L, unsigned int n, uint32_t ack,
	     uint32_t nxt)
{
	return hpcc_law_report(s, c, L, n, ack, nxt);
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 100000, i;
	struct hpcc_law_cfg c = {
		.t_ns = 20000, .eta = 996147, .max_stage = 5,
		.w_ai = 80 << HPCC_W_SHIFT, .w_min = 1500 << HPCC_W_SHIFT,
		.w_max = 1000000ULL << HPCC_W_SHIFT,
	};
	struct hpcc_sample L[2] = {
		{ .rate_mbps = 100000, .switch_id = 1, .port_id = 1 },
		{ .rate_mbps = 25000, .switch_id = 2, .port_id = 3 },
	};
	struct hpcc_law s;
	uint32_t seq = 0;
	long updates = 0;

	hpcc_law_start(&s, &c, 62500 << HPCC_W_SHIFT, 0);
	for (i = 0; i < calls; i++) {
		/* 95% +- 10% load, queues of a few kB, one report per RTT */
		unsigned int j, load = 85 + (unsigned int)(i * 7919 % 21);

		for (j = 0; j < 2; j++) {
			L[j].ts_ns += c.t_ns;
			L[j].tx_bytes += (uint64_t)L[j].rate_mbps * c.t_ns /
					 8000 * load / 100;
			L[j].qlen = (uint32_t)(i * 104729 % 8000);
		}
		seq += 30000;
		updates += bench_report(&s, &c, L, 2, seq, seq + 60000);
	}
	printf("calls %ld updates %ld final W %llu U %llu\n", calls, updates,
	       (unsigned long long)(s.w >> HPCC_W_SHIFT),
	       (unsigned long long)s.u);
	return 0;
}
