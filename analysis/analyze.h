/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one analysis of a run, used by `latwatt analyze`, by `latwatt report`
 * for a run never analyzed, and by `latwatt compare` for such a run: the
 * latency summary, the trace pass (spikes and their causes, latency by idle
 * state, NO_HZ), the workloads and the causes of their misses, power
 * (measured, or estimated from the trace), idle residency, the PM QoS
 * trade-off and the board's budgets, all in one analysis document (what
 * RUN/analysis.json holds).
 */
#ifndef LW_ANALYZE_H
#define LW_ANALYZE_H

#include <jansson.h>
#include <stdio.h>

#include "analysis/summary.h"
#include "analysis/tracepass.h"
#include "lib/rundir.h"

struct lw_analyze_opts {
	const char *board;		/* NULL: the run's own */
	uint64_t threshold_ns;		/* the summary's "over" threshold */
	int have_threshold;		/* 0: the run's cyclic --threshold */
	int trace;			/* run the trace pass (when RUN has a trace) */
	struct lw_tracepass_opts tp;	/* its options (tp.board is set here) */
};

void lw_analyze_opts_default(struct lw_analyze_opts *o);

/*
 * Analyze the run @rd into *@doc (the caller owns it), with the latency
 * summary left in @sum (the caller frees it with lw_summary_free(); on
 * error it is freed here).  Returns the number of broken budgets (0 or
 * more), or -1 after error() with *@doc NULL.  A failing part that leaves
 * the rest meaningful (the trace pass, the workload records) is reported
 * with error() and flagged by *@partial = 1, the document still made.
 * The run's status in @rd's manifest (in memory) becomes the one its files
 * show (analysis/runstate.h): "truncated" when a file holds less than the
 * manifest says was written, and what is there is analyzed.
 */
int lw_analyze_run(const struct lw_rundir *rd, const struct lw_analyze_opts *o,
		   struct lw_summary *sum, json_t **doc, int *partial);

/* The power, idle, trade-off and budgets text of an analysis document. */
void lw_analysis_print_power(FILE *out, const json_t *doc);

#endif
