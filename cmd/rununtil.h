/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latwatt run --until-decided: one run, lengthened until its latency
 * budgets are decided.
 *
 * The run is cut into stretches of --look-every (10 s), counted from its
 * start.  After each stretch ends (from the third on; at once when a sample
 * breaks a maximum), the stretches so far are judged as --repeat auto
 * judges runs against budgets (analysis/seqbudget.h), each stretch standing
 * for a run: a percentile's budget on the stretches' shares of samples
 * over its limit (the method of batch means: stretches long enough to be
 * nearly independent though the samples inside are not), a maximum's on
 * the extreme-value fit to the 1 s block maxima of the stretches, a count
 * (missed periods) broken by what a stretch measured.  The alpha of each look is spent from --alpha
 * over at most -d / --look-every looks (Lan-DeMets, --spending): a false
 * verdict at any look at most --alpha.  Decided, the run ends (complete,
 * "decided: ..."); else it runs to -d and is undecided.
 *
 * What the looks cannot judge live (xruns, dropped frames, power, samples
 * over the threshold, dropped samples) is judged when the run ends, on the
 * whole run's analysis: such a budget broken makes the decision FAIL.
 * The looks judge raw figures (the host's share of a spike on a virtual
 * machine is known only from the trace, after the run).
 *
 * The looks and the decision go to the manifest's "sequential"; the
 * decision line to stdout; the exit status: 1 FAIL, 0 PASS or undecided.
 */
#ifndef LW_RUNUNTIL_H
#define LW_RUNUNTIL_H

#include <jansson.h>

#include "cmd/runopts.h"

struct lw_board;
struct lw_run;
struct lw_until;

/* Does board @b or @o (--budget, the scenario's) give a budget the looks
 * can judge?  0, or -1 after error() (before anything is made). */
int lw_until_check(const struct lw_run_opts *o, const struct lw_board *b);
/* Ready the looks of a run with options @o, board @b, its manifest @m
 * (with the run's "budgets" recorded) and set @run->looker; NULL after
 * error(). */
struct lw_until *lw_until_start(const struct lw_run_opts *o, const struct lw_board *b,
				struct lw_run *run);
/* After lw_run_execute() gave @ret: the whole run's other budgets judged,
 * the decision recorded in the manifest and printed; the exit status. */
int lw_until_finish(struct lw_until *u, struct lw_run *run, int ret);
void lw_until_free(struct lw_until *u);

#endif
