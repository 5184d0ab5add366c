/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Budgets, the bring-up verdict: every budget of a board checked against a
 * run's analysis (RUN/analysis.json).  Each budget names a figure of the
 * metric registry (lib/metrics.h) and is read by its summary reader,
 * lw_metric_summary(): a latency statistic (probes.<probe>.all.<stat>_ns; a
 * budget without a probe applies to every probe in the analysis), audio
 * xruns, dropped frames, deadline misses, average power, energy per audio
 * period.
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
