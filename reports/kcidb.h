/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Runs and comparisons as KCIDB I/O JSON, the format KernelCI's database
 * takes from labs (schema version 5.3, kept in doc/kcidb-io.schema.v5.3.json
 * with its source named).
 *
 * A kernel a run measured is a checkout (its release) and a build (its
 * release, version string and machine); each figure and judgement of a run
 * is a test of that build: the run's verdict ("latwatt.verdict": PASS, FAIL,
 * SKIP for no verdict, ERROR for a run that is not whole), its budgets
 * ("latwatt.budget.NAME", PASS/FAIL/SKIP with the measurement) and its key
 * figures (lw_run_metrics(): "latwatt.metrics.PROBE.STAT", DONE, with the
 * value in seconds, watts or a count).  A comparison adds its rules
 * ("latwatt.compare.NAME", the relative change in %) to the build of the
 * group they judge.  IDs are "ORIGIN:" and the run's host and start time
 * (with a lab job's id, when the run came from a lab), so exporting the
 * same run twice gives the same IDs.  Reads what views read: each run's
 * manifest.json and analysis.json, and the comparison document.
 */
#ifndef LW_KCIDB_H
#define LW_KCIDB_H

#include <jansson.h>

#include "reports/report.h"

#define LW_KCIDB_MAJOR 5
#define LW_KCIDB_MINOR 3
#define LW_KCIDB_ORIGIN "latwatt"	/* the default origin */

/* "ORIGIN" must match ^[a-z0-9_]+$ (KCIDB's origin): 0, or -1 after error(). */
int lw_kcidb_origin_check(const char *origin);

/* The document for the judged runs @runs (lw_rrun_judge() done: their
 * checks and verdict), none compared; NULL after error(). */
json_t *lw_kcidb_runs(const struct lw_rrun *runs, size_t n, const char *origin);
/* The document for the comparison @c: its runs (judged) as above, and the
 * comparison's rules @rules (lw_comparison_checks()) on the builds of the
 * groups they judge.  NULL after error(). */
json_t *lw_kcidb_comparison(const struct lw_comparison *c, const struct lw_checks *rules,
			    const char *origin);

/* A KCIDB path segment from @s: characters other than [A-Za-z0-9_-] become
 * '_', except that a '.' between two segments is kept when @dots (and the
 * '.' of a decimal number, p99.9, always becomes '_'). */
char *lw_kcidb_path(const char *s, int dots, char *buf, size_t len);

#endif
