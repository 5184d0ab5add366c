/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Extreme values: how bad the worst case gets beyond the observed maximum.
 *
 * The run is cut into blocks of equal time; the largest latency of each block
 * (block maxima) follows, for blocks long enough, a generalized extreme value
 * distribution (Fisher-Tippett-Gnedenko)
 *
 *	G(z) = exp(-(1 + shape (z - loc) / scale)^(-1/shape))
 *
 * (shape > 0: heavy tail, Frechet; = 0: Gumbel, exp(-exp(-(z - loc)/scale));
 * < 0: bounded, Weibull).  Two fits:
 *
 *   GEV by probability-weighted moments (Hosking, Wallis and Wood 1985):
 *	closed form, robust on the few dozen blocks a short run gives, where
 *	maximum likelihood of the shape is unstable.
 *   Gumbel by maximum likelihood (Newton on the profile equation of the
 *	scale): tighter intervals when the tail is known to be light.
 *
 * The return level for m blocks is the level a block maximum exceeds with
 * probability 1/m: the worst case expected once in m blocks (for a horizon H
 * and blocks of length B, m = H / B).  Its confidence interval comes from a
 * seeded nonparametric bootstrap of the blocks.  Fewer than a minimum number
 * of blocks (30 by default) is refused: no extrapolation.
 */
#ifndef LW_EVT_H
#define LW_EVT_H

#include <stddef.h>

#include "analysis/teststat.h"

#define LW_EVT_MIN_BLOCKS 30

enum lw_evt_model {
	LW_EVT_GEV,		/* GEV, probability-weighted moments */
	LW_EVT_GUMBEL,		/* Gumbel, maximum likelihood */
};

const char *lw_evt_model_name(enum lw_evt_model m);	/* "gev", "gumbel" */
int lw_evt_model_by_name(const char *name);		/* -1 when unknown */

struct lw_evt_fit {
	enum lw_evt_model model;
	double loc, scale, shape;	/* shape 0 for Gumbel; > 0 heavy tail */
};

/* Fit @x (n values, any order, not modified).  -1 after error() when the
 * values do not vary or the fit does not converge. */
int lw_evt_fit_gev_pwm(const double *x, size_t n, struct lw_evt_fit *f);
int lw_evt_fit_gumbel_ml(const double *x, size_t n, struct lw_evt_fit *f);
int lw_evt_fit(enum lw_evt_model m, const double *x, size_t n, struct lw_evt_fit *f);
/* The value with G(z) = F, 0 < F < 1. */
double lw_evt_quantile(const struct lw_evt_fit *f, double F);
/* Exceeded once in @m blocks on average: G(z) = 1 - 1/m (m > 1). */
double lw_evt_return_level(const struct lw_evt_fit *f, double m);

struct lw_evt_est {
	int ok;			/* 0: refused or failed, see reason */
	char reason[160];
	size_t blocks;
	struct lw_evt_fit fit;
	double level;		/* return level for m blocks */
	double lo, hi;		/* bootstrap percentile interval */
	double *boot;		/* the bootstrap replicates of the level (owned) */
	size_t nboot;
};

/*
 * Fit the block maxima @x (n of them), the return level for @m blocks and its
 * @conf interval from @resamples bootstrap resamples drawn from @rng.
 * Returns 0 with est->ok = 0 and a reason when there are fewer than
 * @min_blocks blocks or the fit fails (an estimate refused is not an error);
 * -1 only when out of memory.
 */
int lw_evt_estimate(const double *x, size_t n, enum lw_evt_model model, double m,
		    unsigned resamples, double conf, unsigned min_blocks, struct lw_rng *rng,
		    struct lw_evt_est *est);
void lw_evt_est_free(struct lw_evt_est *est);

#endif
