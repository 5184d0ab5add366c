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
#include "analysis/sequential.h"
#include "cmd/runopts.h"

struct lw_auto {
	struct lw_seq_design d;
	struct lw_cmp_opts co;
	struct lw_crun *runs;		/* the baseline's, then the runs so far */
	size_t nbase, n;
	json_t *seq;			/* the "sequential" object */
	struct lw_seq_look last;	/* the last look */
	struct lw_seq_state st;		/* the sequence: st.final once stopped */
};

/* The design from @o and the baseline loaded (before anything is
 * measured: a baseline that cannot be read refuses the run).  0 or -1. */
int lw_auto_prepare(struct lw_auto *a, const struct lw_run_opts *o);
/* The run that just completed at @path: loaded, and looked at when there
 * are enough.  1 decided, 0 not yet, -1 after error(). */
int lw_auto_look(struct lw_auto *a, const char *path);
/* How it ended into a->seq (@ret: the repeats' status, LW_EXIT_OK when they
 * ran to the decision or to --max-runs); prints the decision line; the exit
 * status. */
int lw_auto_finish(struct lw_auto *a, int ret);
void lw_auto_free(struct lw_auto *a);

#endif
