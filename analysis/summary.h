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

#include "lib/rundir.h"
#include "lib/stats.h"

#define LW_ANALYSIS_SCHEMA  "latwatt-analysis"
#define LW_ANALYSIS_VERSION 1
#define LW_HIST_BUCKET_NS   1000ULL	/* 1 us, as cyclictest */
#define LW_HIST_BUCKETS     10000	/* up to 10 ms; beyond is overflow */

struct lw_series {
	unsigned probe;
	int cpu;			/* -1: all CPUs */
	uint64_t *v;			/* latencies, ns */
	size_t n, cap;
	uint64_t missed, over, dropped;
	struct lw_hist hist;
	struct lw_stats stats;
};

struct lw_summary {
	struct lw_series *s;		/* sorted by probe then cpu; "all" rows have cpu -1 */
	size_t n;
	int from_histogram;		/* imported run: no samples */
	uint64_t threshold_ns;		/* 0: none */
};

/* Read the run's samples (or histogram) and compute everything. */
int lw_summary_load(struct lw_summary *sum, const struct lw_rundir *rd, uint64_t threshold_ns);
void lw_summary_free(struct lw_summary *sum);
/* The analysis.json document. */
json_t *lw_summary_json(const struct lw_summary *sum, const struct lw_rundir *rd);
void lw_summary_print(const struct lw_summary *sum, const struct lw_rundir *rd, FILE *out);
/* cyclictest-compatible histogram of one probe ("# Histogram" ...). */
int lw_summary_print_histogram(const struct lw_summary *sum, unsigned probe, FILE *out);

#endif
