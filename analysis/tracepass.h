/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One streaming pass over RUN/trace.dat that joins it with RUN/samples:
 *
 *  - spike attribution (analysis/attrib.h) for every sample above its
 *    probe's threshold;
 *  - the idle state every sample's CPU was in at its expected time, hence
 *    the latency distribution conditioned on the idle state woken from;
 *  - NO_HZ effectiveness per CPU: ticks per second while idle and busy,
 *    tick_stop outcomes and the dependencies that kept the tick, and
 *    wake-ups from idle per second by source (timer function, IRQ, IPI,
 *    softirq, task), powertop-style.
 *
 * Memory: the spikes whose windows are open, the largest ones (--top),
 * totals per cause, per-CPU counters and a histogram per idle state; not the
 * trace, the samples nor every spike.  The samples are merged with the trace in time
 * order (analysis/sample_merge.h); each one's latency and idle state go to a
 * scratch file with no name in $TMPDIR (8 bytes a sample), over which the
 * exact percentiles are selected in a few passes.
 */
#ifndef LW_TRACEPASS_H
#define LW_TRACEPASS_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/rundir.h"

struct lw_board;

struct lw_tracepass_opts {
	/* Spike threshold per probe id (ns, analyze --spike-threshold); 0: the
	 * run's --threshold for that probe, else the smallest latency budget of
	 * @board that applies to it, else its p99.9 (noise: every gap). */
	uint64_t threshold_ns[16];
	const struct lw_board *board;	/* may be NULL */
	size_t top;		/* spikes listed in full (default 20) */
	/* deadline misses to match to the spikes (lw_misses_new()), or NULL */
	json_t *workloads;
};

/* Adds "spikes", "idle_latency" and "nohz" to @analysis (the document from
 * lw_summary_json(), whose per-probe p99.9 gives the last default
 * threshold).  "spikes" says, per probe that ran, the threshold used, where
 * it came from and how many samples lay above it ("thresholds").
 * Returns 0, 1 if the run has no trace.dat (nothing added), -1 on error. */
int lw_tracepass(const struct lw_rundir *rd, json_t *analysis, const struct lw_tracepass_opts *o);

/* Each audio xrun and dropped video frame in @workloads (the "workloads" of
 * an analysis) gets the cause of the spike behind it ("cause", "spike"), and
 * each workload a "miss_causes" count: lw_misses_new() indexes the misses
 * (NULL: out of memory), lw_misses_spike() is called for each spike (in any
 * order), lw_misses_finish() writes the causes and frees it. */
struct lw_misses;
/* The cause of a miss no spike explains. */
#define LW_MISS_UNEXPLAINED "no spike on its CPU in that period"
struct lw_misses *lw_misses_new(json_t *workloads);
void lw_misses_spike(struct lw_misses *ms, int cpu, uint64_t expected_ns, uint64_t latency_ns,
		     const char *cause);
void lw_misses_finish(struct lw_misses *ms);
void lw_misses_free(struct lw_misses *ms);	/* without writing */
void lw_misses_print(FILE *out, const json_t *analysis);

/* The text of those sections (@top spikes in full). */
void lw_tracepass_print(const json_t *analysis, FILE *out, size_t top);

#endif
