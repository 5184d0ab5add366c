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

#include "analysis/checks.h"
#include "analysis/summary.h"
#include "analysis/tracepass.h"
#include "analysis/verdict.h"
#include "lib/rundir.h"

struct lw_board;

struct lw_analyze_opts {
	const char *board;		/* NULL: the run's own */
	uint64_t threshold_ns;		/* the summary's "over" threshold */
	int have_threshold;		/* 0: the run's cyclic --threshold */
	int trace;			/* run the trace pass (when RUN has a trace) */
	struct lw_tracepass_opts tp;	/* its options (tp.board is set here) */
	const char *const *budgets;	/* budget rules asked of this analysis (--budget) */
	size_t nbudgets;
	enum lw_judge judge;		/* latency figures judged on (--judge) */
};

void lw_analyze_opts_default(struct lw_analyze_opts *o);

/*
 * Analyze the run @rd into *@doc (the caller owns it), with the latency
 * summary left in @sum (the caller frees it with lw_summary_free(); on
 * error it is freed here), and judge it: the document's "checks" and
 * "verdict" (lw_analysis_judge()).  Returns the verdict's exit status (0,
 * 1 or 2, lw_verdict_exit()), or -1 after error() with *@doc NULL.  A
 * failing part that leaves the rest meaningful (the trace pass, the workload
 * records) is reported with error(), named in the document's "problems" and
 * flagged by *@partial = 1: the verdict is then never PASS.
 * The run's status in @rd's manifest (in memory) becomes the one its files
 * show (analysis/runstate.h): "truncated" when a file holds less than the
 * manifest says was written, "killed" when its writer is gone, and what is
 * there is analyzed.
 */
int lw_analyze_run(const struct lw_rundir *rd, const struct lw_analyze_opts *o,
		   struct lw_summary *sum, json_t **doc, int *partial);

/*
 * The checks of the analysis document @doc of a run with manifest @m:
 * board @b's budgets (may be NULL), the run's own (the manifest's
 * "budgets": `run --budget`, its scenario's), @budgets asked of this
 * analysis or view (@origin says by whom: "--budget"), and the threshold
 * the summary counted samples over (the document's "threshold_ns").
 * Appended to @out; -1 after error() (a malformed rule).
 */
int lw_analysis_checks(const json_t *doc, const json_t *m, const struct lw_board *b,
		       const char *const *budgets, size_t nbudgets, const char *origin,
		       struct lw_checks *out);
/* Store @cs (suite "budgets") as the document's "checks", and the verdict
 * built from them as its "verdict" (also in *@v when not NULL). */
void lw_analysis_judge(json_t *doc, const struct lw_checks *cs, struct lw_run_verdict *v);


#endif
