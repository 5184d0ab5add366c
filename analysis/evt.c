// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/evt.h"
#include "lib/error.h"
#include "lib/sort.h"

static const char *const model_names[] = { [LW_EVT_GEV] = "gev", [LW_EVT_GUMBEL] = "gumbel" };

const char *lw_evt_model_name(enum lw_evt_model m)
{
	return m <= LW_EVT_GUMBEL ? model_names[m] : "unknown";
}

int lw_evt_model_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(model_names) / sizeof(model_names[0]); i++)
		if (!strcmp(name, model_names[i]))
			return (int)i;
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Hosking's k is minus the usual shape; below |k| < 1e-7 the Gumbel limit. */
static int gev_pwm_sorted(const double *x, size_t n, struct lw_evt_fit *f)
{
	double b0 = 0, b1 = 0, b2 = 0, c, k, g, alpha, dn = (double)n;

	if (n < 3)
		return error("extreme-value fit: %zu block maxima, at least 3 needed", n);
	for (size_t j = 0; j < n; j++) {
		double r = (double)j;	/* (j + 1) - 1 */

		b0 += x[j];
		b1 += r / (dn - 1) * x[j];
		b2 += r * (r - 1) / ((dn - 1) * (dn - 2)) * x[j];
	}
	b0 /= dn;
	b1 /= dn;
	b2 /= dn;
	if (!(2 * b1 - b0 > 0) || 3 * b2 - b0 == 0)
		return error("extreme-value fit: the block maxima do not vary");
	c = (2 * b1 - b0) / (3 * b2 - b0) - M_LN2 / log(3);
	k = 7.8590 * c + 2.9554 * c * c;
	f->model = LW_EVT_GEV;
	if (fabs(k) < 1e-7) {
		alpha = (2 * b1 - b0) / M_LN2;
		f->loc = b0 - 0.57721566490153286 * alpha;
		f->scale = alpha;
		f->shape = 0;
		return 0;
	}
	if (k <= -1)
		return error("extreme-value fit: shape %.2f: the tail is too heavy for a finite mean", -k);
	g = tgamma(1 + k);
	alpha = (2 * b1 - b0) * k / (g * (1 - pow(2, -k)));
	f->loc = b0 + alpha * (g - 1) / k;
	f->scale = alpha;
	f->shape = -k;
	return 0;
}

int lw_evt_fit_gev_pwm(const double *x, size_t n, struct lw_evt_fit *f)
{
	double *s = malloc((n ? n : 1) * sizeof(*s));
	int ret;

	if (!s)
		return error("out of memory");
	memcpy(s, x, n * sizeof(*s));
	lw_qsort(s, n, sizeof(*s), cmp_double);
	ret = gev_pwm_sorted(s, n, f);
	free(s);
	return ret;
}

/* Weighted moments of y under w_i = exp(-(y_i - ymin) / beta). */
static void gumbel_terms(const double *y, size_t n, double ymin, double beta,
			 double *sw, double *m1, double *m2)
{
	long double w = 0, wy = 0, wyy = 0;

	for (size_t i = 0; i < n; i++) {
		long double e = expl(-(y[i] - ymin) / beta);

		w += e;
		wy += e * y[i];
		wyy += e * y[i] * y[i];
	}
	*sw = (double)w;
	*m1 = (double)(wy / w);
	*m2 = (double)(wyy / w);
}

int lw_evt_fit_gumbel_ml(const double *x, size_t n, struct lw_evt_fit *f)
{
	double mean = 0, sd = 0, ymin = INFINITY, *y, beta, sw, m1, m2;
	int it;

	if (n < 3)
		return error("extreme-value fit: %zu block maxima, at least 3 needed", n);
	for (size_t i = 0; i < n; i++)
		mean += x[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		sd += (x[i] - mean) * (x[i] - mean);
	sd = sqrt(sd / (double)(n - 1));
	if (!(sd > 0))
		return error("extreme-value fit: the block maxima do not vary");
	y = malloc(n * sizeof(*y));
	if (!y)
		return error("out of memory");
	for (size_t i = 0; i < n; i++) {
		y[i] = (x[i] - mean) / sd;
		if (y[i] < ymin)
			ymin = y[i];
	}
	/* The likelihood equation of the scale, with mean(y) = 0:
	 *   g(beta) = beta + sum(y w) / sum(w) = 0,  w = exp(-y / beta);
	 * g' = 1 + var_w(y) / beta^2 > 0, so the root is unique: Newton from
	 * the moment estimate, kept positive. */
	beta = sqrt(6) / M_PI;
	for (it = 0; it < 100; it++) {
		double g, dg, step;

		gumbel_terms(y, n, ymin, beta, &sw, &m1, &m2);
		g = beta + m1;
		dg = 1 + (m2 - m1 * m1) / (beta * beta);
		step = g / dg;
		while (beta - step <= 0)
			step /= 2;
		beta -= step;
		if (fabs(step) < 1e-12 * beta)
			break;
	}
	if (it == 100 || !isfinite(beta)) {
		free(y);
		return error("extreme-value fit: the Gumbel likelihood did not converge");
	}
	gumbel_terms(y, n, ymin, beta, &sw, &m1, &m2);
	/* loc = -beta log(mean(exp(-y / beta))), with the ymin shift undone */
	f->model = LW_EVT_GUMBEL;
	f->loc = mean + sd * (ymin - beta * log(sw / (double)n));
	f->scale = sd * beta;
	f->shape = 0;
	free(y);
	return 0;
}

int lw_evt_fit(enum lw_evt_model m, const double *x, size_t n, struct lw_evt_fit *f)
{
	return m == LW_EVT_GUMBEL ? lw_evt_fit_gumbel_ml(x, n, f) : lw_evt_fit_gev_pwm(x, n, f);
}

double lw_evt_quantile(const struct lw_evt_fit *f, double F)
{
	double y = -log(F);	/* > 0 */

	if (f->shape == 0)
		return f->loc - f->scale * log(y);
	return f->loc + f->scale * (pow(y, -f->shape) - 1) / f->shape;
}

double lw_evt_return_level(const struct lw_evt_fit *f, double m)
{
	/* 1 - 1/m without cancellation for large m: -log(1 - 1/m) = log1p(-1/m) */
	double y = -log1p(-1 / m);

	if (f->shape == 0)
		return f->loc - f->scale * log(y);
	return f->loc + f->scale * (pow(y, -f->shape) - 1) / f->shape;
}

int lw_evt_estimate(const double *x, size_t n, enum lw_evt_model model, double m,
		    unsigned resamples, double conf, unsigned min_blocks, struct lw_rng *rng,
		    struct lw_evt_est *est)
{
	double *rs, *tmp, *sorted;
	uint32_t *cnt;
	size_t ok = 0;
	int q;

	memset(est, 0, sizeof(*est));
	est->blocks = n;
	if (n < min_blocks || n < 3) {
		snprintf(est->reason, sizeof(est->reason),
			 "%zu blocks: at least %u are needed to extrapolate", n, min_blocks);
		return 0;
	}
	if (!(m > 1)) {
		snprintf(est->reason, sizeof(est->reason), "the horizon is not longer than a block");
		return 0;
	}
	q = lw_set_quiet(1);
	if (lw_evt_fit(model, x, n, &est->fit) < 0) {
		lw_set_quiet(q);
		snprintf(est->reason, sizeof(est->reason), "%s", lw_last_error());
		return 0;
	}
	est->level = lw_evt_return_level(&est->fit, m);
	/* Resamples are drawn as counts over the sorted maxima and laid out in
	 * order: O(n) a resample, no sort (the PWM fit wants them sorted). */
	rs = malloc(n * sizeof(*rs));
	sorted = malloc(n * sizeof(*sorted));
	cnt = malloc(n * sizeof(*cnt));
	tmp = malloc((resamples ? resamples : 1) * sizeof(*tmp));
	est->boot = malloc((resamples ? resamples : 1) * sizeof(*est->boot));
	if (!rs || !sorted || !cnt || !tmp || !est->boot) {
		lw_set_quiet(q);
		free(rs);
		free(sorted);
		free(cnt);
		free(tmp);
		lw_evt_est_free(est);
		return error("out of memory");
	}
	memcpy(sorted, x, n * sizeof(*sorted));
	lw_qsort(sorted, n, sizeof(*sorted), cmp_double);
	for (unsigned b = 0; b < resamples; b++) {
		struct lw_evt_fit bf;
		size_t k = 0;
		int ret;

		memset(cnt, 0, n * sizeof(*cnt));
		for (size_t i = 0; i < n; i++)
			cnt[(size_t)(lw_rng_uniform(rng) * (double)n)]++;
		for (size_t i = 0; i < n; i++)
			for (uint32_t c = 0; c < cnt[i]; c++)
				rs[k++] = sorted[i];
		ret = model == LW_EVT_GEV ? gev_pwm_sorted(rs, n, &bf) : lw_evt_fit_gumbel_ml(rs, n, &bf);
		/* a resample that cannot be fitted (all equal) is left out */
		est->boot[b] = ret < 0 ? NAN : lw_evt_return_level(&bf, m);
		if (isfinite(est->boot[b]))
			tmp[ok++] = est->boot[b];
	}
	free(sorted);
	free(cnt);
	lw_set_quiet(q);
	est->nboot = resamples;
	free(rs);
	if (resamples && ok < resamples * 9 / 10) {
		snprintf(est->reason, sizeof(est->reason),
			 "only %zu of %u bootstrap fits succeeded: the fit is unstable", ok, resamples);
		free(tmp);
		return 0;
	}
	lw_interval(tmp, ok, conf, &est->lo, &est->hi);
	free(tmp);
	if (!isfinite(est->level)) {
		snprintf(est->reason, sizeof(est->reason), "the return level is not finite");
		return 0;
	}
	est->ok = 1;
	return 0;
}

void lw_evt_est_free(struct lw_evt_est *est)
{
	free(est->boot);
	est->boot = NULL;
	est->nboot = 0;
}
