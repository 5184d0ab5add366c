/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `latwatt power estimate RUN`: RUN/power from RUN/trace.dat with the
 * board's energy model (power/model.h), and the traced idle accounting into
 * RUN/idle.json.  Analysis calls lw_power_analysis(), which estimates first
 * when RUN/power is absent, so measured and estimated power read alike, and
 * gives the idle residency with the power.
 */
#ifndef LW_POWER_ESTIMATE_H
#define LW_POWER_ESTIMATE_H

#include <jansson.h>
#include <stdint.h>

struct lw_board;
struct lw_pm_model;

/* Feed the power:cpu_idle and power:cpu_frequency events of a trace.dat to
 * @m; returns the number of events fed, or -1 after error(). */
long lw_pm_feed_trace(const char *trace_path, struct lw_pm_model *m);

/* Write RUN/power (refused when one exists, unless @force) with rails
 * sampled every @bin_ns.  0 or -1 after error(). */
int lw_power_estimate(const char *rundir, const struct lw_board *b, uint64_t bin_ns, int force);

/* What a run's power analysis gives: its power, then its idle residency. */
struct lw_run_power {
	json_t *power;	/* lw_power_summarize(); NULL: nothing to measure or estimate from */
	json_t *idle;	/* RUN/idle.json, with the trace's part an estimate added; NULL: none */
};

/*
 * The power of a run and its idle residency.  With a board, RUN/power is
 * estimated from RUN/trace.dat first when there is none (when there is no
 * trace either: an error with @need, else power NULL); without one, RUN/power
 * is read as it is.  0, or -1 after error() with nothing to free.
 */
int lw_power_analysis(const char *rundir, const struct lw_board *b, int need,
		      struct lw_run_power *out);

#endif
