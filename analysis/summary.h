/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Latency summary of a run: per probe, per CPU and over all CPUs, from every
 * sample in RUN/samples (exact percentiles), or from RUN/histogram.json for
 * runs imported from a histogram (bucket resolution, labelled).
 */
#ifndef LW_SUMMARY_H
#define LW_SUMMARY_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/hostadj.h"
#include "analysis/timeline.h"
#include "lib/rundir.h"
#include "lib/stats.h"

#define LW_ANALYSIS_SCHEMA  "latwatt-analysis"
#define LW_ANALYSIS_VERSION 2
#define LW_HIST_BUCKET_NS   1000ULL	/* 1 us, as cyclictest */
#define LW_HIST_BUCKETS     10000	/* up to 10 ms; beyond is overflow */

struct lw_series {
	unsigned probe;
	int cpu;			/* -1: all CPUs */
	uint64_t missed, over, dropped;
	/* Not known: missed periods (cyclictest does not count them), samples
	 * over the threshold (a histogram that cannot tell); then over is
	 * those surely above; dropped samples (a killed run's manifest has
	 * no probe totals). */
	int missed_unknown, over_unknown, dropped_unknown;
	struct lw_hist hist;
	struct lw_stats stats;
};

struct lw_summary {
	struct lw_series *s;		/* sorted by probe then cpu; "all" rows have cpu -1 */
	size_t n;
	int from_histogram;		/* imported or monitored run: no samples */
	int from_monitor;		/* RUN/monitor: interval histograms (lib/monitor.h) */
	json_t *over_time;		/* monitored run: per interval and probe, all CPUs */
	size_t ot_group, ot_fill;	/* intervals a histogram column holds, and its last */
	uint64_t threshold_ns;		/* 0: none */
	char *samples;			/* the samples file, read again for exact ranks */
	struct lw_timeline timeline;	/* latency over time, from the samples */
	unsigned samples_flags;		/* how it was opened (a killed run's partial end) */
	const struct lw_hostadj *adj;	/* the host's time taken off each spike, or NULL */
};

/*
 * Read the run's samples (or histogram) and compute everything.  Memory does
 * not grow with the number of samples: a first pass over RUN/samples counts
 * the 1 us histograms, further passes find the exact percentiles
 * (lw_rank_sel); no sample is kept.
 */
int lw_summary_load(struct lw_summary *sum, const struct lw_rundir *rd, uint64_t threshold_ns);
/* The same with the host's time taken off the samples @adj lists (the
 * kernel-attributable figures; @adj is kept, not copied: it must outlive
 * @sum).  A monitored or imported run has no samples to take it off. */
int lw_summary_load_adj(struct lw_summary *sum, const struct lw_rundir *rd, uint64_t threshold_ns,
			const struct lw_hostadj *adj);
void lw_summary_free(struct lw_summary *sum);
/* The samples of series @i at the 1-based ranks @rank[0 .. n-1] (exact, by
 * passes over the samples file); 0 or -1.  Not for runs from a histogram. */
int lw_summary_ranks(const struct lw_summary *sum, size_t i, const uint64_t *rank,
		     uint64_t *value, size_t n);
/* Series @i as its distinct values with cumulative counts (lw_dist, exact),
 * by passes over the samples file: memory grows with the distinct values,
 * not with the samples.  0 or -1. */
struct lw_dist;
int lw_summary_dist(const struct lw_summary *sum, size_t i, struct lw_dist *d);
/* The analysis.json document. */
json_t *lw_summary_json(const struct lw_summary *sum, const struct lw_rundir *rd);
/* A monitored run's maxima over time ("over_time" of the analysis), a row
 * per interval or group of intervals. */
void lw_summary_print_over_time(const json_t *ot, FILE *out);
/* cyclictest-compatible histogram of one probe ("# Histogram" ...). */
int lw_summary_print_histogram(const struct lw_summary *sum, unsigned probe, FILE *out);

#endif
