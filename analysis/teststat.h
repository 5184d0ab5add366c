/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Two-sample statistics for `latwatt compare` (GSL underneath): a seeded PRNG, latency
 * distributions as sorted distinct values with cumulative counts, the
 * Mann-Whitney U test with tie correction, a fast exact bootstrap of
 * nearest-rank percentiles, and a test of two event rates.
 *
 * Pure functions, no output except error(): everything here is unit-tested
 * against hand-computed values (tests/unit/test_teststat.c).
 */
#ifndef LW_TESTSTAT_H
#define LW_TESTSTAT_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "lib/stats.h"

/* GSL's Mersenne twister (gsl_rng_mt19937) seeded through splitmix64:
 * reproducible streams.  Seeding allocates (-1 after error()); free with
 * lw_rng_free(). */
struct lw_rng {
	gsl_rng *g;
};

int lw_rng_seed(struct lw_rng *r, uint64_t seed);
/* A stream derived from @seed and up to three indices (run, metric, ...),
 * so that results do not depend on the order things are computed in. */
int lw_rng_stream(struct lw_rng *r, uint64_t seed, uint64_t a, uint64_t b, uint64_t c);
void lw_rng_free(struct lw_rng *r);
uint64_t lw_rng_next(struct lw_rng *r);
double lw_rng_uniform(struct lw_rng *r);		/* in (0, 1) */
size_t lw_rng_index(struct lw_rng *r, size_t n);	/* uniform in [0, n) */
double lw_rng_normal(struct lw_rng *r);			/* N(0, 1) */
double lw_rng_gamma(struct lw_rng *r, double shape);	/* scale 1, shape > 0 */
double lw_rng_beta(struct lw_rng *r, double a, double b);

/*
 * A sample as its distinct values, ascending, with the cumulative count up
 * to and including each: a sorted array of every latency collapses into it
 * in one pass, and a histogram maps onto it bucket by bucket (each bucket at
 * its upper edge, as lw_hist_percentile() reports it).
 */
struct lw_dist {
	uint64_t *v;		/* distinct values, ascending */
	uint64_t *cum;		/* cum[i]: samples <= v[i] */
	size_t k;		/* distinct values */
	uint64_t n;		/* samples */
	int exact;		/* 1: every sample; 0: from a histogram */
	uint64_t resolution_ns;	/* 1 when exact, else the bucket width */
	long double sum, sumsq;	/* for the mean and variance */
};

int lw_dist_from_sorted(struct lw_dist *d, const uint64_t *sorted, size_t n);
int lw_dist_from_hist(struct lw_dist *d, const struct lw_hist *h);
/* The samples of @a and @b together into @out (allocated). */
int lw_dist_merge(const struct lw_dist *a, const struct lw_dist *b, struct lw_dist *out);
void lw_dist_free(struct lw_dist *d);
/* Built value by value: @v (above every value so far) seen @c times; *cap
 * is the arrays' capacity (0 at first, d zeroed).  lw_dist_fit() gives the
 * spare capacity back.  0, or -1 after error(). */
int lw_dist_push(struct lw_dist *d, size_t *cap, uint64_t v, uint64_t c);
void lw_dist_fit(struct lw_dist *d);
/* The value of 1-based rank @r (1 <= r <= n). */
uint64_t lw_dist_at_rank(const struct lw_dist *d, uint64_t r);
/* Nearest rank, as lw_percentile_sorted(): the rank is ceil(q/100 n). */
uint64_t lw_pct_rank(uint64_t n, double q);
uint64_t lw_dist_percentile(const struct lw_dist *d, double q);
/* Samples strictly above @x. */
uint64_t lw_dist_count_above(const struct lw_dist *d, uint64_t x);
double lw_dist_mean(const struct lw_dist *d);
double lw_dist_var(const struct lw_dist *d);		/* sample variance */

/*
 * Mann-Whitney U of B against A, normal approximation with tie correction
 * and continuity correction (as scipy.stats.mannwhitneyu's asymptotic
 * method).  u_b counts pairs (a, b) with b > a, ties counting one half;
 * u_a = na nb - u_b.  Effect sizes: probability of superiority
 * P(B > A) + P(B = A) / 2 = u_b / (na nb), and Cliff's delta
 * P(B > A) - P(B < A) = 2 ps - 1 (positive: B tends to be larger).
 */
struct lw_mwu {
	double u_a, u_b;
	double mean, sd;	/* of U under H0 (sd tie-corrected) */
	double z;		/* signed: positive when B is larger */
	double p;		/* two-sided */
	double ps;		/* probability of superiority of B */
	double cliffs_delta;
	double ties;		/* sum of t^3 - t over tied groups */
};

int lw_mwu(const struct lw_dist *a, const struct lw_dist *b, struct lw_mwu *out);

/* The two-sided p of a standard normal z. */
double lw_normal_p2(double z);
/* The standard normal quantile (GSL). */
double lw_normal_quantile(double p);

/*
 * One bootstrap replicate of the nearest-rank q-percentile of @d: the value
 * that percentile would take in a resample of n draws with replacement.
 * With k = ceil(q/100 n), the k-th smallest of n uniform draws is
 * Beta(k, n - k + 1), so the resample's percentile is the original sample's
 * value of rank ceil(n Beta(k, n - k + 1)): exactly the distribution of a
 * full resample, drawn in O(log k) instead of O(n).
 */
uint64_t lw_boot_percentile(const struct lw_dist *d, double q, struct lw_rng *r);

/* Percentile interval of @x (sorted in place): [lo, hi] holding @conf. */
void lw_interval(double *x, size_t n, double conf, double *lo, double *hi);

/*
 * Events in exposures (xruns in periods, samples over a threshold in
 * samples): is the rate in B different from the rate in A?  Conditional on
 * the total x = xa + xb, xb is Binomial(x, nb / (na + nb)) when the rates are
 * equal: the exact two-sided p (summing the outcomes no more likely than the
 * one observed) for x <= 10000, its normal approximation above.
 * p = 1 when there are no events.
 */
double lw_rate_test(uint64_t xa, uint64_t na, uint64_t xb, uint64_t nb);

/*
 * The test of a comparison of groups of runs: one figure per run (the log of
 * a run's p99, or its rate of missed periods), so the samples inside a run
 * may be as dependent as they like - the run is the unit.  B against A:
 * diff = mean(y) - mean(x), Welch's t test (Welch-Satterthwaite degrees of
 * freedom) when both sides have two runs or more; when one side has a single
 * run, the other side's spread stands for both (the prediction of one new
 * run from a set, df = runs - 1, at least 2).  Each side's variance is at
 * least @floor_a / @floor_b (what a single run varies within itself, or a
 * Poisson count's variance), so that a few runs that happen to agree do not
 * make a small difference significant.  ok = 0 (no test) with too few runs.
 * t distribution from GSL.
 */
struct lw_runs_test {
	int ok;
	const char *method;	/* "welch", "prediction" */
	double diff, se, df, p;
	double lo, hi;		/* @conf interval of diff */
};

void lw_runs_test(const double *x, size_t na, const double *y, size_t nb, double floor_a,
		  double floor_b, double conf, struct lw_runs_test *t);
/* The smallest |diff| the test finds with probability @power at level
 * @alpha (two-sided): (t(1 - alpha/2) + t(power)) se.  NAN unless ok. */
double lw_runs_mdc(const struct lw_runs_test *t, double alpha, double power);
/* Runs a side for a two-sample test to find @delta when one run's figure
 * has standard deviation @sd (normal approximation), at least 3. */
unsigned lw_runs_needed(double sd, double delta, double alpha, double power);
/* Mean and sample variance of @x (variance 0 for one value). */
void lw_mean_var(const double *x, size_t n, double *mean, double *var);

#endif
