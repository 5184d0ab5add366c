/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The state of a run as its files show it, beside what its manifest says.
 *
 * The manifest records what the run wrote: samples.written (records of
 * RUN/samples), each workload's records.written (RUN/NAME.records), each
 * power rail's samples (RUN/power), the intervals of RUN/monitor and the
 * trace bytes of each CPU (RUN/trace.dat, when it is there: a run may be
 * brought back without it).  A file that holds less than that
 * was cut after the run (a copy interrupted, a full disk): the run is
 * truncated, whatever the manifest says, and what is there is analyzed.
 *
 *   complete    the run ran its course, every file holds what it wrote
 *   incomplete  the run stopped early (a signal, an error), its files whole
 *   running     the manifest says running and its writer is alive (or
 *               names none: a run from before the writer was recorded)
 *   killed      the manifest says running and its writer is gone (SIGKILL,
 *               a crash, a reboot; lib/writer.h), or `latwatt cleanup`
 *               marked it so
 *   truncated   a file holds less than the manifest says was written
 *
 * The analysis reads the run through its manifest with this status in
 * place (lw_run_state_apply()), so every reader takes the files as they are
 * (whole records, a partial last one left out) and analysis.json's
 * run.status says it.
 */
#ifndef LW_RUNSTATE_H
#define LW_RUNSTATE_H

#include <jansson.h>

#include "lib/rundir.h"

struct lw_samples_reader;

struct lw_run_state {
	const char *status;		/* one of the above */
	char manifest_status[32];	/* what manifest.json says */
	char reason[1024];		/* why, in words; "" when complete */
	/* The files that hold less than the run wrote:
	 * [{"file", "unit" ("records", "samples", "intervals", "bytes"),
	 *   "found", "expected", "partial_bytes", "rail" (power only)}];
	 * NULL when none. */
	json_t *truncated;
};

/* The state of the run @rd.  0, or -1 after error() (out of memory). */
int lw_run_state(const struct lw_rundir *rd, struct lw_run_state *st);
void lw_run_state_free(struct lw_run_state *st);
/* Put @st in manifest @m (in memory only): "status", "status_reason", and,
 * when they are not what @m said, "manifest_status" and
 * "manifest_status_reason" (what it said) and "truncated".  lw_run_state()
 * of a manifest so changed reads what it said from there. */
void lw_run_state_apply(const struct lw_run_state *st, json_t *m);

/* The flags to read RUN/samples of a run with manifest @m with
 * (lib/samples.h): a run that did not complete may end in part of a
 * record, left out with a warning, or quietly where its status says so
 * already (truncated). */
unsigned lw_run_samples_flags(const json_t *m);
/* RUN/samples at @path opened with those flags (and @extra), read no further
 * than the records the manifest says were written when its count is final
 * (a run that ended, by its course or a signal); a killed or running run's
 * count lags its file. */
struct lw_samples_reader *lw_run_samples_open(const char *path, const json_t *m, unsigned extra);

#endif
