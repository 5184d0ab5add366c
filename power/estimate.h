/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `latwatt power estimate RUN`: RUN/power from RUN/trace.dat with the
 * board's energy model (power/model.h), and the traced idle accounting into
 * RUN/idle.json.  Analysis calls lw_power_analysis(), which estimates first
 * when RUN/power is absent, so measured and estimated power read alike.
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

/* The power summary of a run (lw_power_summarize()), estimating from the
 * trace first when there is no RUN/power.  NULL after error(). */
json_t *lw_power_analysis(const char *rundir, const struct lw_board *b);

#endif
