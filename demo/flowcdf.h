/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flow sizes for the demo's flow generator (demo/fctgen.c) and the ns-3
 * model (sim/): the seeded RNG and the flow-size CDFs, in one place, so
 * that the same seed gives both the same schedule.
 *
 * CDFs: the HPCC paper's, as distributed with its ns-3 simulator
 * (traffic_gen/WebSearch_distribution.txt: the DCTCP paper's web search;
 * traffic_gen/FbHdp_distribution.txt: Facebook Hadoop), sampled
 * piecewise-linearly between the points.
 */
#ifndef _FLOWCDF_H
#define _FLOWCDF_H

#include <stddef.h>
#include <stdint.h>

/* splitmix64 */
static inline uint64_t flowcdf_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static inline double flowcdf_rng_unit(uint64_t *state)
{
	return (flowcdf_rng_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

struct flowcdf {
	const char *name;
	const double *size;	/* bytes, ascending, size[0] = 0 */
	const double *pct;	/* cumulative %, pct[0] = 0, pct[n-1] = 100 */
	size_t n;
};

static const double flowcdf_ws_size[] = { 0, 10000, 20000, 30000, 50000, 80000,
	200000, 1000000, 2000000, 5000000, 10000000, 30000000 };
static const double flowcdf_ws_pct[] = { 0, 15, 20, 30, 40, 53, 60, 70, 80, 90,
	97, 100 };
static const double flowcdf_fb_size[] = { 0, 100, 200, 300, 350, 400, 500, 600,
	700, 1000, 2000, 7000, 30000, 50000, 80000, 120000, 300000, 1000000,
	2000000, 10000000 };
static const double flowcdf_fb_pct[] = { 0, 1, 2, 5, 15, 20, 30, 40, 50, 60, 67,
	70, 72, 82, 87, 90, 95, 97.5, 99, 100 };

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

static const struct flowcdf flowcdf_websearch = {
	"websearch", flowcdf_ws_size, flowcdf_ws_pct,
	ARRAY_SIZE(flowcdf_ws_size) };
static const struct flowcdf flowcdf_fbhadoop = {
	"fbhadoop", flowcdf_fb_size, flowcdf_fb_pct,
	ARRAY_SIZE(flowcdf_fb_size) };

static inline double flowcdf_mean(const struct flowcdf *c)
{
	double m = 0;
	size_t i;

	for (i = 1; i < c->n; i++)
		m += (c->pct[i] - c->pct[i - 1]) / 100 *
		     (c->size[i] + c->size[i - 1]) / 2;
	return m;
}

/* A flow size for u uniform in [0, 1); at least 64 bytes. */
static inline uint64_t flowcdf_sample(const struct flowcdf *c, double u)
{
	double s = c->size[c->n - 1];
	size_t i;

	u *= 100;
	for (i = 1; i < c->n; i++)
		if (u < c->pct[i]) {
			s = c->size[i - 1] + (u - c->pct[i - 1]) /
				(c->pct[i] - c->pct[i - 1]) *
				(c->size[i] - c->size[i - 1]);
			break;
		}
	return s < 64 ? 64 : (uint64_t)s;
}

#endif /* _FLOWCDF_H */
