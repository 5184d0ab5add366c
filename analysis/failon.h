/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one rule language over the metric registry (lib/metrics.h): the
 * --fail-on rules of `latwatt compare`/`analyze` (when does a comparison fail
 * CI) and the --budget rules of `latwatt report` (a run's own figures).
 *
 *   RULE   = METRIC OP BOUND | METRIC ":worse"
 *   METRIC = [PROBE "."] NAME                 (PROBE default: cyclic, else the first)
 *   NAME   = a name or alias of lib/metrics.c:lw_metrics[]: p50 | p90 | p99 | p99.9
 *          | p99.99 | mean | max | min | blockmax | worst | over:TIME | over | missed
 *          | dropped | distribution | xruns | dropped_frames | deadline_misses | power
 *          | energy_per_period | idle:STATE | cause:NAME | any
 *   OP     = ">" | ">=" | "<" | "<="
 *   BOUND  = [SIGN] NUMBER "%"     relative change from the baseline
 *          | SIGN NUMBER [UNIT]    change from the baseline
 *          | NUMBER [UNIT]         the run's own value
 *   SIGN   = "+" | "-";  UNIT = ns | us | ms | s (latencies; bare: us) | W | mW (power; bare: W)
 *
 *   p99>+10%   max>+20%   xruns>0   p99>150us   p99.9>+5us   over:50us>+50%   any:worse
 *
 * --fail-on takes the names a comparison holds; --budget takes the names a
 * run's summary holds, only "<" or "<=" a plain non-negative BOUND, and a
 * bare power there is in mW.
 *
 * Rules apply to every run compared against the baseline.  A rule that
 * cannot be judged is "undecided", never "pass": a verdict rule (any:worse,
 * METRIC:worse) where the comparison has no verdict (one run a side), a
 * figure that is unknown (not recorded, not extrapolated).
 */
#ifndef LW_FAILON_H
#define LW_FAILON_H

#include <jansson.h>
#include <stddef.h>

#include "lib/metrics.h"

enum lw_rule_op { LW_OP_GT, LW_OP_GE, LW_OP_LT, LW_OP_LE, LW_OP_WORSE };
enum lw_rule_kind {
	LW_RULE_VALUE,		/* the run's value */
	LW_RULE_CHANGE,		/* value - baseline */
	LW_RULE_REL,		/* value / baseline - 1 */
	LW_RULE_VERDICT,	/* the verdict is "worse" */
};

struct lw_rule {
	char text[128];
	char probe[128];			/* "" unless named */
	char name[128];			/* "p99", "over:50us", "xruns", "any" (canonical) */
	const struct lw_metric *m;	/* its entry in the registry */
	enum lw_rule_op op;
	enum lw_rule_kind kind;
	double bound;			/* ns, count, W, fraction; REL: 0.10 for 10 % */
	unsigned long long threshold_ns;	/* over:TIME */
};

/* A language of rules: what it accepts and how it words its errors. */
struct lw_rule_lang {
	const char *opt;		/* "--fail-on", "--budget" */
	const char *noun;		/* "metric", "statistic" */
	unsigned summary : 1;		/* judged on a run's summary (else on a comparison) */
	unsigned upper_only : 1;	/* only < and <= a plain non-negative value */
	unsigned mw : 1;		/* power bounds (and a bare power number) in mW, else W */
};

extern const struct lw_rule_lang lw_lang_failon, lw_lang_budget;

/* Parse @text as a rule of @lang.  -1 after error() of the form
 * "--fail-on 'p99>+10x': at 8: unknown unit 'x' for p99 (ns, us, ms, s or %)". */
int lw_rule_parse_lang(const struct lw_rule_lang *lang, const char *text, struct lw_rule *r);
/* A --fail-on rule. */
int lw_rule_parse(const char *text, struct lw_rule *r);

#define LW_RULE_UNDECIDED "undecided"
/* What a comparison needs for verdicts (analysis/compare.c's tests). */
#define LW_RULE_RUNS_NEEDED "verdicts need at least 2 runs a side (or 3 against 1): " \
			    "repeat the runs (latwatt run --repeat N)"

/*
 * Judge @rules against the comparison document @doc (analysis/compare.h):
 * appends "rules": [{"rule", "run", "metric", "value", "result":
 * "pass"|"fail"|"undecided", "detail", ...}] and "result": "regression"
 * (a rule failed), "pass" (none failed, one or more judged) or "undecided"
 * (no rule could be judged) to it, and returns how many failed.
 */
int lw_rules_eval(const struct lw_rule *rules, size_t n, json_t *doc);

#endif
