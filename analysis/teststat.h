/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Two-sample statistics for `latwatt compare`: a seeded PRNG, latency
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

#include "lib/stats.h"

/* xoshiro256** seeded through splitmix64: fast, reproducible streams. */
struct lw_rng {
	uint64_t s[4];
};

void lw_rng_seed(struct lw_rng *r, uint64_t seed);
/* A stream derived from @seed and up to three indices (run, metric, ...),
 * so that results do not depend on the order things are computed in. */
void lw_rng_stream(struct lw_rng *r, uint64_t seed, uint64_t a, uint64_t b, uint64_t c);
uint64_t lw_rng_next(struct lw_rng *r);
double lw_rng_uniform(struct lw_rng *r);		/* in (0, 1) */
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
void lw_dist_free(struct lw_dist *d);
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

/* Upper tail of the standard normal, and the two-sided p of z. */
double lw_normal_sf(double z);
double lw_normal_p2(double z);
/* The standard normal quantile (Acklam's rational approximation refined by
 * one Newton step; |error| < 1e-12). */
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
/* Two-sided bootstrap p of "the difference is zero" from its replicates:
 * 2 min(P(d < 0) + P(d = 0)/2, P(d > 0) + P(d = 0)/2), at least 1/n. */
double lw_boot_p(const double *d, size_t n);

/*
 * Events in exposures (xruns in periods, samples over a threshold in
 * samples): is the rate in B different from the rate in A?  Conditional on
 * the total x = xa + xb, xb is Binomial(x, nb / (na + nb)) when the rates are
 * equal: the exact two-sided p (summing the outcomes no more likely than the
 * one observed) for x <= 10000, its normal approximation above.
 * p = 1 when there are no events.
 */
double lw_rate_test(uint64_t xa, uint64_t na, uint64_t xb, uint64_t nb);

/* Welch's test of two means from large samples (normal approximation). */
double lw_welch_p(double ma, double va, uint64_t na, double mb, double vb, uint64_t nb);

#endif
