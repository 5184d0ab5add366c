/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latwatt tune: the candidates a search judged, the Pareto front of their
 * worst-case latency against power, the recommendation, and what applies
 * it (a shell script, kernel command line words).  Pure but for error():
 * tests/unit/test_tune.c.
 */
#ifndef LW_TUNE_H
#define LW_TUNE_H

#include <jansson.h>

#include "analysis/seqbudget.h"
#include "lib/tuneknobs.h"

#define LW_TUNE_MAX_CANDS 64

struct lw_tune_cand {
	int level[LW_TK_N];		/* 0: as found */
	char name[160];			/* "as found", "irq", "irq + idle 1" */
	char why[640];			/* why it was tried */
	char done[LW_TK_N][256];	/* what setting each knob did ("" nothing to say) */
	char dir[64];			/* its runs, under the output: cand-NN */
	enum lw_bseq_decision dec;	/* against the budgets */
	char line[320];			/* the last budget look's line */
	char vs_best[320];		/* against the best so far ("" none) */
	int worse_than_best;		/* decided worse than it */
	int better_than_best;		/* decided better than it */
	unsigned runs;
	/* the first latency budget's figure (us): estimate and interval */
	char lat_name[96];		/* the budget's check: budget.cyclic.max */
	char lat_unit[8];
	double lat, lat_lo, lat_hi;	/* NAN when none */
	double power_w;			/* the runs' (geometric) mean; NAN when none */
	double power_lo, power_hi;	/* its two-sided interval at alpha; NAN: one run */
	char power_kind[16];		/* "measured", "estimated", "none" */
	int front;			/* on the Pareto front */
};

struct lw_tune_result {
	struct lw_tune_cand c[LW_TUNE_MAX_CANDS];
	int n;
	int recommended;		/* index, or -1: nothing met every budget */
	int best;			/* lowest latency upper bound found, or -1 */
	int undecided;			/* neither decided FAIL or PASS against the
					 * budgets nor decided worse than another */
};

/* "as found", or the knobs above 0 in words, joined with " + ". */
void lw_tune_cand_name(const int level[LW_TK_N], char *buf, size_t len);

/* Powers within this fraction of each other are one power, whatever their
 * intervals: a knob changed for nothing is a knob to maintain. */
#define LW_TUNE_POWER_TIE 0.01

/* The front (c[].front), the recommendation and the best (lowest latency
 * upper bound, then estimate).  The recommendation is the lowest power
 * among the candidates decided PASS, where one power is lower than another
 * only when their intervals do not overlap (a candidate of one run has
 * none: it is lower than nothing) and they differ by more than
 * LW_TUNE_POWER_TIE; powers not told apart are a tie, which goes to fewer
 * knobs changed, then to the one tried first (the order of power cost).
 * Power unknown ranks after known. */
void lw_tune_finish(struct lw_tune_result *r);

/* The shell script that applies @level on @s (every value quoted) and the
 * kernel command line words that set it at boot (knobs with no such form
 * named in a comment of the script).  0, or -1 after error(). */
int lw_tune_script(const struct lw_tune_sys *s, const int level[LW_TK_N], const char *title,
		   struct lw_sb *b);
int lw_tune_cmdline(const struct lw_tune_sys *s, const int level[LW_TK_N], struct lw_sb *b);
/* Where each run boots a kernel (@s->boots): the whole command line the
 * runs of @level boot with, @s->boot_base and the words of @level, into @b.
 * 0, or -1 after error(). */
int lw_tune_boot_line(const struct lw_tune_sys *s, const int level[LW_TK_N], struct lw_sb *b);

/* tune.json's document: {format, version, budgets, candidates[], front[],
 * recommended, best, verdict} */
json_t *lw_tune_json(const struct lw_tune_result *r, const struct lw_tune_sys *s,
		     const char *verdict);

#endif
