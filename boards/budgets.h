/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Budgets, the bring-up verdict: every budget of a board checked against a
 * run's analysis (RUN/analysis.json).  What is read where:
 *
 *   latency          probes.<probe>.all.<stat>_ns (p99 -> p99_ns, p99.9 ->
 *                    p99.9_ns, mean -> mean_ns ...); a budget without a
 *                    probe applies to every probe in the analysis
 *   audio_xruns      xruns, summed over workloads.* of kind audio
 *   dropped_frames   dropped, summed over workloads.* of kind video
 *   deadline_misses  deadline_misses, else the sum of the two above
 *   average_power    power.total.average_w (lw_power_summarize())
 *   energy_per_audio_period
 *                    power.total.energy_j / the audio instances' periods,
 *                    else power.total.average_w * the first one's interval_ns
 *
 * A budget whose metric the run did not measure is reported with pass null
 * ("not measured") and is not counted as broken.
 */
#ifndef LW_BUDGETS_H
#define LW_BUDGETS_H

#include <jansson.h>
#include <stdio.h>

struct lw_board;

/* Fills *results with [{"name", "metric", "measured", "limit", "unit",
 * "pass"}] and returns how many budgets are broken (0: all met). */
int lw_budgets_check(const struct lw_board *b, const json_t *analysis, json_t **results);
/* One line per budget, then the verdict. */
void lw_budgets_print(FILE *out, const char *board, const json_t *results);

#endif
