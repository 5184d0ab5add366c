/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A directory of repeats (latwatt run --repeat) as it is on disk: every
 * PARENT/run-NN directory and the state of each (analysis/runstate.h), for
 * RUN/repeat.json and for the groups compare and db take from it.
 *
 * The run is the unit of evidence: a group of repeats is its complete
 * runs.  A run that is not complete (interrupted, killed, truncated, still
 * running, never started) is listed with its state and left out of the
 * group, with a note naming it; a run cut short is not a repeat of the
 * others (a shorter sample of the same system, stopped at a moment chosen
 * by the signal, not by the design).
 */
#ifndef LW_REPEAT_H
#define LW_REPEAT_H

#include <jansson.h>
#include <stddef.h>

/* Every PARENT/run-* directory, in order, as
 * [{"run": "run-02", "status": "incomplete", "reason": "interrupted by SIGINT"}]
 * ("reason" only when there is one; "not started" for a directory with no
 * manifest).  NULL after error(). */
json_t *lw_repeat_runs(const char *parent);
/* 1 when the run at @path is complete (by its files, not only its
 * manifest), else 0 with its state in @why ("incomplete: interrupted by
 * SIGINT"); -1 after error() when it cannot be read. */
int lw_repeat_run_complete(const char *path, char *why, size_t len);

#endif
