/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Latency over time at plot resolution: per probe and CPU, the run's span
 * cut into buckets that each keep their largest sample and when it
 * happened, so spikes survive decimation; and per probe its largest
 * samples.  Built in the same pass over RUN/samples as the summary, stored
 * in analysis.json as "timeline", drawn by the reports (which never read
 * the samples themselves).
 *
 * The buckets cover [t0, t0 + width * n); a sample past the end doubles the
 * width, merging neighbours, so one pass suffices whatever the run's length
 * (the manifest's span is only the first guess), and memory is n buckets a
 * series.
 */
#ifndef LW_TIMELINE_H
#define LW_TIMELINE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define LW_TIMELINE_BUCKETS 1000	/* per series */
#define LW_TIMELINE_TOP     10		/* largest samples kept per probe */

struct lw_tl_series {
	unsigned probe;
	int cpu;
	uint64_t *max;		/* per bucket, ns; UINT64_MAX: no sample */
	uint64_t *at;		/* its expected wake-up (CLOCK_MONOTONIC ns) */
};

struct lw_tl_top {
	uint64_t at, latency;
	int cpu;
};

struct lw_timeline {
	uint64_t t0, width;	/* the first bucket's start, and the width, ns */
	size_t nbuckets;
	struct lw_tl_series *s;
	size_t n;
	struct {
		struct lw_tl_top v[LW_TIMELINE_TOP];
		size_t n;
	} top[16];		/* per probe id */
	uint64_t first, last;	/* the earliest and latest sample, 0 when none */
};

/* An empty timeline of @n buckets over [@t0, @t0 + @span) (@span 0: one
 * second, grown as samples come). */
void lw_timeline_init(struct lw_timeline *tl, uint64_t t0, uint64_t span, size_t n);
/* One sample; -1 after error() (out of memory). */
int lw_timeline_add(struct lw_timeline *tl, unsigned probe, int cpu, uint64_t at,
		    uint64_t latency);
/* {"t0_ns", "bucket_ns", "probes": {NAME: {"cpus": [{"cpu", "points": [[t_ns, latency_ns],
 * …]}], "top": [{"cpu", "at_ns", "latency_ns"}]}}}, times from t0; NULL when
 * there was no sample. */
json_t *lw_timeline_json(const struct lw_timeline *tl);
void lw_timeline_free(struct lw_timeline *tl);

#endif

/*
 * Power over time at plot resolution, from RUN/power (@path): per rail, the
 * mean of its samples in each of at most @n buckets from @t0 (the run's
 * start), a gap recorded in a bucket breaking the line there.
 * {"bucket_ns", "rails": [{"name", "kind": "measured"|"estimated",
 *  "points": [[t_ns, mW, gap], …]}]} (gap 1: a gap before this point);
 * NULL after error().
 */
json_t *lw_power_timeline(const char *path, uint64_t t0, size_t n);
