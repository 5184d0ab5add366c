/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sequential designs against budgets: `latwatt run --repeat auto` without
 * --against.  Runs are added one at a time; after each (from --min-runs on)
 * every budget of the run (the board's, the scenario's, --budget: the
 * checks of analysis/checks.h over each run's analysis document) is judged
 * over the runs so far at the look's alpha, alpha_r, spent from --alpha
 * over the looks as analysis/sequential.h spends it:
 *
 *  - FAIL as soon as a run breaks a count budget (xruns<1: what was
 *    measured broke it, no estimate involved) or a maximum budget (a sample
 *    above it was measured), or a latency budget is broken with confidence:
 *    the lower bound of its estimate at alpha_r / L (L latency budgets:
 *    Bonferroni over them, a false FAIL on any is within alpha_r) is above
 *    the limit;
 *  - PASS when no count budget is broken and, for every latency budget, the
 *    upper bound of its estimate at alpha_r is under the limit: for a
 *    maximum the return level of the extreme-value fit to the block maxima
 *    of the runs pooled (analysis/evt.h, as compare fits it: 1 s blocks,
 *    a horizon of 1 h; bounds from a two-stage bootstrap, the upper with
 *    the tail no lighter than Gumbel's: lw_bseq_max_bounds()), for a
 *    percentile with lw_bseq.exceed the share of samples over its limit
 *    (LW_BSEQ_EXCEED), for another figure the per-run figures' mean (of
 *    their logs; one-sided t, runs - 1 degrees of freedom);
 *  - else continue; after the last look, undecided.
 *
 * A false FAIL needs a bound that misses on its side at some look: at most
 * the sum of the alpha_r, alpha.  A false PASS needs the bound of a budget
 * the truth breaks to fall under it at some look: at most alpha as well
 * (PASS claims every budget met at once: an intersection-union test, no
 * correction over the budgets).
 *
 * Pure but for error(): tests/unit/test_seqbudget.c.
 */
#ifndef LW_SEQBUDGET_H
#define LW_SEQBUDGET_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/checks.h"

enum lw_bseq_kind {
	LW_BSEQ_COUNT,	/* a count (xruns, dropped_frames): any run above it fails */
	LW_BSEQ_MAX,	/* a latency maximum: extreme-value return level */
	LW_BSEQ_FIGURE,	/* a percentile or another per-run figure: the runs' mean */
	LW_BSEQ_EXCEED,	/* a percentile pNN < L judged as the share of samples at or
			 * over L against 1 - NN/100 (with lw_bseq.exceed) */
};

enum lw_bseq_decision { LW_BSEQ_CONTINUE, LW_BSEQ_FAIL, LW_BSEQ_PASS, LW_BSEQ_UNDECIDED };
const char *lw_bseq_decision_name(enum lw_bseq_decision d);	/* "continue", "FAIL" ... */

/* One budget over the runs so far. */
struct lw_bseq_budget {
	char name[96];		/* the check's: budget.cyclic.max */
	char rule[80];		/* cyclic.max<1000us */
	char probe[32];		/* "" for a figure of the run */
	char unit[8];
	double limit;
	int le;			/* <= (else <) */
	enum lw_bseq_kind kind;
	double worst;		/* largest measured over the runs (NAN: none) */
	unsigned worst_run;	/* its run, 1-based */
	int broken;		/* a run's check failed on what it measured */
	double *fig;		/* per-run measured figures (NAN-free) */
	size_t nfig;
	double q;		/* EXCEED: the share of samples allowed over the limit */
	double *exc;		/* EXCEED: each run's share over the limit */
	size_t nexc;
	uint64_t over, total;	/* EXCEED: samples over the limit, samples, all runs */
	double neff;		/* EXCEED: the independent samples @total is worth */
	double *bm;		/* block maxima of the runs, pooled (MAX), in @unit */
	size_t nbm;
	size_t *runlen;		/* blocks of each run with some, in order */
	size_t nruns;
	/* the last look's */
	double est, lo, hi;	/* estimate and one-sided bounds; NAN when none */
	const char *how;	/* "measured", "GEV, 1 h", "runs' mean" ... */
	char why[160];		/* why no bound */
};

struct lw_bseq_opts {
	uint64_t block_ns;	/* block maxima, 1 s */
	uint64_t horizon_ns;	/* return level horizon, 1 h */
	unsigned min_blocks;	/* LW_EVT_MIN_BLOCKS */
	unsigned resamples;	/* bootstrap, 2000 */
	uint64_t seed;
};
void lw_bseq_opts_default(struct lw_bseq_opts *o);

/* A run's samples of @probe at or over @limit_ns (over it when @le) into
 * @over, of @n, worth @neff independent samples (lw_bseq_neff(); @n when
 * they are); 0, 1 when unknown, -1 after error(). */
typedef int (*lw_bseq_exceed_fn)(void *ctx, const char *probe, double limit_ns, int le,
				 uint64_t *over, uint64_t *n, double *neff);
/* In the ascending @v of @n, the index of the first value counted over a
 * budget's limit @limit_ns: above it when @le (a <= budget), at or above
 * it otherwise; @n when none is. */
size_t lw_bseq_first_over(const uint64_t *v, size_t n, double limit_ns, int le);
/* A block of samples in time order, by the logs of their latencies
 * (log(ns + 1)): how many, their sum and the sum of their squares. */
struct lw_bseq_blk {
	double n, sum, sum2;
};
/* How many independent samples the @nb blocks @b are worth: their count
 * over the variance inflation of the blocks' means (the spread of the
 * means against what independent samples would give; at most their count,
 * at least one a block); their count when the logs do not vary or there
 * are fewer than 2 blocks. */
double lw_bseq_neff_blocks(const struct lw_bseq_blk *b, size_t nb);
/* The same for the @n latencies @v (ns, in time order) in 10 batches;
 * n when there are fewer than 200. */
double lw_bseq_neff(const uint64_t *v, size_t n);

struct lw_bseq {
	struct lw_bseq_opts o;
	/* set before the first run: a percentile's budget is judged on the
	 * share of each run's samples over its limit (LW_BSEQ_EXCEED), not on
	 * the runs' percentiles: pNN < L holds when fewer than 1 - NN/100 of
	 * the samples are at or over L, and the mean of the runs' shares is
	 * the share of all their samples (equal runs), where the mean of
	 * their percentiles falls under the percentile of all their samples
	 * when the runs differ (drift, or stretches of one run whose samples
	 * are correlated: tests/unit/test_seqbudget.c).  Bounds: the larger
	 * (upper) or smaller (lower) of the runs' shares' one-sided t bound
	 * and the Wilson bound of the share with the samples counted as the
	 * independent samples they are worth (correlated samples, spikes in
	 * bursts, are worth fewer). */
	lw_bseq_exceed_fn exceed;
	void *exceed_ctx;
	struct lw_bseq_budget *b;
	size_t n;
	unsigned runs;
	int stretches;		/* the units are stretches of one run, not runs
				 * (run --until-decided): said so in the lines */
};

/*
 * Add one run: its checks @cs (suite "budgets"; a run's first sets the
 * budgets, a later run's are matched by name) and, for maxima, its block
 * maxima per probe from @bmax(@ctx, probe, &values, &n) (values in ns,
 * owned by the caller; 0, or 1 when the probe has none), which may be NULL.
 * 0 or -1 after error().
 */
typedef int (*lw_bseq_bmax_fn)(void *ctx, const char *probe, const double **v, size_t *n);
int lw_bseq_add_run(struct lw_bseq *s, const struct lw_checks *cs, lw_bseq_bmax_fn bmax, void *ctx);

/* Judge the runs so far at @alpha (the look's); a line saying why into
 * @line ("cyclic max upper bound 412 us < 1000 us (GEV, 1 h)"). */
enum lw_bseq_decision lw_bseq_judge(struct lw_bseq *s, double alpha, char *line, size_t len);

/* The budgets as the last look left them: [{name, rule, kind, limit,
 * worst, estimate, lower, upper, method}]. */
json_t *lw_bseq_json(const struct lw_bseq *s);
void lw_bseq_free(struct lw_bseq *s);

/*
 * The bounds alone, for tests: the return level of @m blocks fitted to @x
 * (n block maxima; @nruns runs of @runlen[i] each, in order, or NULL and 0:
 * one) with its one-sided bootstrap percentile bounds (two stages over
 * several runs: runs, then blocks inside each, as compare's worst case), the
 * lower at @alpha_lo, the upper at @alpha_up.  The lower bound refits the
 * GEV (probability-weighted moments) to each resample; the upper takes the
 * tail no lighter than Gumbel's (a resample whose GEV fit finds a bounded
 * tail, shape < 0, is fitted with Gumbel by maximum likelihood instead): a
 * bound tail claimed from a few dozen blocks made the upper bound fall
 * under the true level far more often than alpha (tests/unit/
 * test_seqbudget.c).  0 with *ok 0 and the reason in @why when refused
 * (fewer than @min_blocks blocks); -1 out of memory.
 */
int lw_bseq_max_bounds(const double *x, size_t n, const size_t *runlen, size_t nruns, double m,
		       double alpha_lo, double alpha_up, unsigned resamples, unsigned min_blocks, uint64_t seed, double *est,
		       double *lo, double *hi, int *ok, char *why, size_t whylen);
/* The geometric mean of @x (n > 1, all > 0) and its one-sided t bounds at
 * @alpha each; -1 (no error) when it has none. */
int lw_bseq_mean_bounds(const double *x, size_t n, double alpha, double *est, double *lo,
		      double *hi);

#endif
