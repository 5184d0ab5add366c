/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The metric registry: every figure of a run that a rule can name, defined
 * once.  `--fail-on` (analysis/failon.c), `report --budget`
 * (reports/budget.c) and board budgets (boards/) name figures through this
 * table and read them through its readers; doc/latwatt.1 (METRICS) lists
 * every name and tests/integration/docs.sh checks it does.
 *
 * A name is [PROBE "."] NAME; a NAME ending in ':' takes an argument
 * (over:50us, idle:C1, cause:irq).  Old spellings are aliases of an entry.
 *
 * The one rule grammar over these names is analysis/failon.h.  lib/ holds the
 * registry because boards/, analysis/ and reports/ all use it (boards/ may
 * not include analysis/: analysis/ already includes boards/).
 */
#ifndef LW_METRICS_H
#define LW_METRICS_H

#include <jansson.h>
#include <stddef.h>

enum lw_metric_unit {
	LW_MU_NS,		/* a latency; rules in ns, us, ms, s (bare: us) */
	LW_MU_COUNT,		/* a plain number */
	LW_MU_W,		/* power; rules in W or mW */
	LW_MU_UJ,		/* energy, microjoules */
	LW_MU_SHARE,		/* a fraction of time or of spikes, 0..1 */
	LW_MU_VERDICT,		/* only a comparison's verdict: NAME:worse */
};

/* Where a run's summary (analysis.json) holds the figure. */
enum lw_metric_from {
	LW_MF_NONE,		/* not in a run's summary: comparisons only */
	LW_MF_PROBE,		/* probes.PROBE.all.KEY (none when its count is 0) */
	LW_MF_MISSES,		/* deadline misses of the workloads of kind KEY
				 * (NULL: every workload, or analysis.deadline_misses) */
	LW_MF_POWER,		/* power.total.average_w, else total_mw, else the rails */
	LW_MF_ENERGY_PER_PERIOD,	/* power.total.energy_j / audio periods */
};

struct lw_metric {
	const char *name;		/* canonical; "over:" takes an argument */
	const char *arg;		/* what the argument is: "TIME" (prefix names) */
	const char *alias[3];		/* older spellings, still accepted */
	unsigned probe : 1;		/* a figure of each probe: [PROBE.]NAME */
	unsigned compared : 1;		/* a comparison document holds [PROBE.]NAME */
	int lower_better;		/* 1: lower is better; 0: neither direction */
	enum lw_metric_unit unit;
	enum lw_metric_from from;
	const char *key;		/* LW_MF_PROBE: key in "all"; LW_MF_MISSES: kind */
	const char *label;		/* words for checks and board budgets */
	const char *help;		/* one line for the man page */
};

extern const struct lw_metric lw_metrics[];
extern const size_t lw_nmetrics;

/* The entry named or aliased @name ("p99", "over:50us", "audio_xruns");
 * NULL when none.  "over:" alone is not a name. */
const struct lw_metric *lw_metric_find(const char *name);
/* The unit's short name: "ns", "count", "W", "uJ", "share", "". */
const char *lw_metric_unit_name(enum lw_metric_unit u);
/* Every name, "p50, p90, ... or any", for messages; @summary/@compared
 * keep only those a run's summary / a comparison holds. */
const char *lw_metric_names(char *buf, size_t len, int summary, int compared);

/* The names a run's summary holds (what --budget and board budgets take),
 * grouped by unit for a --help text: "STAT one of p50 ... min (us, or with
 * ns ms s), over ... (counts), power (mW, or W), energy_per_period (uJ)". */
const char *lw_metric_budget_help(char *buf, size_t len);

/* The figure @m of a run's analysis.json @an (of @probe for a probe's
 * figure), in the registry unit (ns, count, W, uJ); NAN when the run does
 * not hold it. */
double lw_metric_summary(const struct lw_metric *m, const json_t *an, const char *probe);

#endif
