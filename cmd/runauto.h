/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latwatt run --repeat auto: the baseline loaded once, a look after each
 * complete run (analysis/sequential.h), and the "sequential" object of
 * RUN/repeat.json.
 */
#ifndef LW_RUNAUTO_H
#define LW_RUNAUTO_H

#include <jansson.h>

#include "analysis/compare.h"
#include "analysis/seqbudget.h"
#include "analysis/sequential.h"
#include "cmd/runopts.h"

struct lw_board;

struct lw_auto {
	struct lw_seq_design d;
	struct lw_cmp_opts co;
	struct lw_crun *runs;		/* the baseline's, then the runs so far */
	size_t nbase, n;
	json_t *seq;			/* the "sequential" object */
	struct lw_seq_look last;	/* the last look */
	struct lw_seq_state st;		/* the sequence: st.final once stopped */
	/* without --against: against the budgets (analysis/seqbudget.h) */
	int budgets;
	const struct lw_board *board;	/* the run's board (its budgets) */
	struct lw_bseq sb;
	enum lw_bseq_decision sbdec;	/* the last look's */
	unsigned sbruns;		/* runs at the last look (0: none yet) */
	char sbline[320];		/* what the last look found */
};

/* The design from @o and the baseline loaded (before anything is
 * measured: a baseline that cannot be read refuses the run); without
 * --against, the budgets of board @b and of @o (--budget, the scenario's),
 * refused when there is none.  0 or -1. */
int lw_auto_prepare(struct lw_auto *a, const struct lw_run_opts *o, const struct lw_board *b);
/* The run that just completed at @path: loaded, and looked at when there
 * are enough.  1 decided, 0 not yet, -1 after error(). */
int lw_auto_look(struct lw_auto *a, const char *path);
/* How it ended into a->seq (@ret: the repeats' status, LW_EXIT_OK when they
 * ran to the decision or to --max-runs); prints the decision line; the exit
 * status. */
int lw_auto_finish(struct lw_auto *a, int ret);
void lw_auto_free(struct lw_auto *a);

#endif
