/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `latwatt analyze` adds for power and budgets: the power summary
 * (measured, or estimated from the trace when RUN/power is absent), the
 * idle-state residency, and the budgets of the board checked against it all.
 */
#ifndef LW_VERDICT_H
#define LW_VERDICT_H

#include <jansson.h>
#include <stdio.h>

/*
 * Adds "power", "idle" and "budgets" ({"board", "broken", "results"}) to the
 * analysis document @doc of the run @rundir, with the board @board (NULL:
 * the run's own).  Prints them to @out when not NULL.  Returns the number of
 * broken budgets, or -1 after error() (unknown board, unreadable files).
 */
int lw_analysis_power_budgets(const char *rundir, const char *board, json_t *doc, FILE *out);

#endif
