/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Checks: a budget, a threshold or a comparison rule judged against figures,
 * each one test case of the CI views (JUnit, LAVA, Markdown) and one line of
 * the verdict.
 *
 * A run's checks come from four places, judged by one evaluator over the
 * run's analysis document (what RUN/analysis.json holds), so that every view
 * shows the same results:
 *
 *   the board's budgets        boards/NAME.yaml "budgets:"
 *   the run's budgets          `run --budget RULE`, a scenario's "budget:"
 *                              (recorded in the manifest's "budgets")
 *   budgets asked of the view  `analyze --budget`, `report --budget`
 *   the threshold              `--threshold US` (the run's, or analyze's):
 *                              no sample of a wake-up probe above it
 *
 * A rule is "[PROBE.]STAT OP VALUE" of the budget language
 * (analysis/failon.h, lw_lang_budget).
 */
#ifndef LW_CHECKS_H
#define LW_CHECKS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct lw_board;
struct lw_rule;

/* The result of one check.  LW_SKIP: not judged (the figure was not
 * recorded, or nothing could decide it). */
enum lw_verdict { LW_PASS, LW_FAIL, LW_SKIP };

struct lw_check {
	char suite[32];		/* "budgets", "compare" */
	char name[96];		/* test case name: budget.cyclic.p99 */
	enum lw_verdict result;
	double measured, limit;	/* in @unit */
	char unit[8];		/* "us", "count", "mW", "%" */
	char message[256];	/* what failed, or why skipped */
	char metric[32];	/* budgets: the registry's name ("p99", "xruns"), or "threshold" */
	char rule[80];		/* budgets: "cyclic.p99<=100us", "xruns<1" */
	char origin[96];	/* budgets: "board rpi4", "scenario av-stress", "--budget" */
	int kernel;		/* judged on the kernel-attributable figure
				 * (@measured), not the raw one (@raw, in @unit) */
	double raw;
};

struct lw_checks {
	struct lw_check *c;
	size_t n, cap;
};

/*
 * What a run's latency figures (a probe's percentiles, mean, min, max and
 * samples over the threshold) are judged on: their kernel-attributable
 * twins (analysis.json "kernel_attributable": the host's time taken off
 * each spike) or the raw figures.  AUTO: kernel on a virtual machine
 * (sysinfo's hypervisor), raw elsewhere.  Counts that are not latencies
 * (missed periods, dropped samples, xruns, dropped frames) and power are
 * judged as they are; a figure with no twin (no trace analyzed) is judged
 * raw with no word of it.
 */
enum lw_judge { LW_JUDGE_AUTO, LW_JUDGE_KERNEL, LW_JUDGE_RAW };

/* "kernel" or "raw" of option @opt; -1 after error(). */
int lw_judge_parse(const char *opt, const char *arg, enum lw_judge *j);
/* Decide @j for the analysis document @an of a run whose manifest is @m
 * and record it as @an's "judge": {"on": "kernel"|"raw", "why"}.  The
 * evaluator below reads it: "kernel" only where @an holds
 * "kernel_attributable". */
void lw_checks_set_judge(json_t *an, const json_t *m, enum lw_judge j);
/* 1 when @an's "judge" says kernel, else 0. */
int lw_checks_judge_kernel(const json_t *an);
/* Judge again, with @an's "judge", each check of @cs that judges a latency
 * figure (keeping its name); -1 after error(). */
int lw_checks_rejudge(struct lw_checks *cs, const json_t *an);

/* Append @c (a name already there gets "-2", "-3"). */
int lw_checks_add(struct lw_checks *cs, const struct lw_check *c);
void lw_checks_free(struct lw_checks *cs);
size_t lw_checks_count(const struct lw_checks *cs, enum lw_verdict v);

/*
 * Judge the budget rule @r (parsed with lw_lang_budget) against the
 * analysis document @an: one check per probe it applies to (every probe of
 * the run when it names none), skipped where the run holds no figure.
 * @origin says where the rule comes from.  -1 after error().
 */
int lw_checks_rule(const struct lw_rule *r, const char *origin, const json_t *an,
		   struct lw_checks *out);
/* Parse @text as a budget rule and judge it. */
int lw_checks_rule_text(const char *text, const char *origin, const json_t *an,
			struct lw_checks *out);
/* Every budget of board @b; @suffix (or NULL) appended to the check names. */
int lw_checks_board(const struct lw_board *b, const json_t *an, const char *suffix,
		    struct lw_checks *out);
/* The threshold @ns: no sample of a wake-up probe (not a busy loop's gaps,
 * not a pipeline's end-to-end latency) above it. */
int lw_checks_threshold(uint64_t ns, const char *origin, const json_t *an,
			struct lw_checks *out);

/* A run that is not whole passes nothing: each check of @cs that held on
 * what the run measured becomes LW_SKIP, "not judged: the run is STATE;
 * held on what it measured: ...", when the analysis document @an says the
 * run is not complete (a failure stays one: what was measured broke it). */
void lw_checks_unjudged(struct lw_checks *cs, const json_t *an);

/* The checks of suite @suite as analysis.json's "checks" array, and back
 * (appended to @out; -1 after error() naming @what on a malformed entry). */
json_t *lw_checks_json(const struct lw_checks *cs, const char *suite);
int lw_checks_from_json(const json_t *a, const char *what, struct lw_checks *out);

#endif
