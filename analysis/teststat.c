// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "analysis/teststat.h"
#include "lib/error.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* GSL's Mersenne twister, seeded with 32 bits of the mixed seed (all the
 * generator takes, and the same on 32- and 64-bit machines). */
int lw_rng_seed(struct lw_rng *r, uint64_t seed)
{
	uint64_t x = seed;

	r->g = gsl_rng_alloc(gsl_rng_mt19937);
	if (!r->g)
		return error("out of memory for a random number generator");
	x = splitmix64(&x);
	gsl_rng_set(r->g, (unsigned long)((x ^ (x >> 32)) & 0xffffffffULL));
	return 0;
}

int lw_rng_stream(struct lw_rng *r, uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t x = seed;

	x = splitmix64(&x) ^ (a * 0x9e3779b97f4a7c15ULL);
	x = splitmix64(&x) ^ (b * 0xc2b2ae3d27d4eb4fULL);
	x = splitmix64(&x) ^ (c * 0x165667b19e3779f9ULL);
	return lw_rng_seed(r, x);
}

void lw_rng_free(struct lw_rng *r)
{
	if (r->g)
		gsl_rng_free(r->g);
	r->g = NULL;
}

uint64_t lw_rng_next(struct lw_rng *r)
{
	uint64_t hi = gsl_rng_get(r->g) & 0xffffffffULL;

	return hi << 32 | (gsl_rng_get(r->g) & 0xffffffffULL);
}

double lw_rng_uniform(struct lw_rng *r)
{
	return gsl_rng_uniform_pos(r->g);
}

size_t lw_rng_index(struct lw_rng *r, size_t n)
{
	return n > 1 ? (size_t)gsl_rng_uniform_int(r->g, (unsigned long)n) : 0;
}

double lw_rng_normal(struct lw_rng *r)
{
	return gsl_ran_ugaussian(r->g);
}

double lw_rng_gamma(struct lw_rng *r, double shape)
{
	return gsl_ran_gamma(r->g, shape, 1);
}

double lw_rng_beta(struct lw_rng *r, double a, double b)
{
	return gsl_ran_beta(r->g, a, b);
}

static int dist_alloc(struct lw_dist *d, size_t k)
{
	memset(d, 0, sizeof(*d));
	d->v = malloc((k ? k : 1) * sizeof(*d->v));
	d->cum = malloc((k ? k : 1) * sizeof(*d->cum));
	if (!d->v || !d->cum) {
		lw_dist_free(d);
		return error("out of memory for a distribution of %zu values", k);
	}
	return 0;
}

int lw_dist_push(struct lw_dist *d, size_t *cap, uint64_t v, uint64_t c)
{
	if (d->k && v <= d->v[d->k - 1])
		return error("distribution: values are not ascending");
	if (d->k == *cap) {
		size_t nc = *cap ? *cap * 2 : 1024;
		uint64_t *nv = realloc(d->v, nc * sizeof(*nv)), *ncum;

		if (nv)
			d->v = nv;
		ncum = nv ? realloc(d->cum, nc * sizeof(*ncum)) : NULL;
		if (!nv || !ncum)
			return error("out of memory for a distribution of %zu values", nc);
		d->cum = ncum;
		*cap = nc;
	}
	d->n += c;
	d->v[d->k] = v;
	d->cum[d->k++] = d->n;
	d->sum += (long double)v * c;
	d->sumsq += (long double)v * v * c;
	return 0;
}

void lw_dist_fit(struct lw_dist *d)
{
	size_t k = d->k ? d->k : 1;
	uint64_t *nv = realloc(d->v, k * sizeof(*nv)), *ncum;

	if (nv)
		d->v = nv;
	ncum = realloc(d->cum, k * sizeof(*ncum));
	if (ncum)
		d->cum = ncum;
}

int lw_dist_from_sorted(struct lw_dist *d, const uint64_t *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!i || v[i] != v[i - 1])
			k++;
	if (dist_alloc(d, k) < 0)
		return -1;
	k = 0;
	for (size_t i = 0; i < n; i++) {
		if (i && v[i] < v[i - 1]) {
			lw_dist_free(d);
			return error("distribution: samples are not sorted");
		}
		if (!i || v[i] != v[i - 1])
			d->v[k++] = v[i];
		d->cum[k - 1] = i + 1;
		d->sum += v[i];
		d->sumsq += (long double)v[i] * v[i];
	}
	d->k = k;
	d->n = n;
	d->exact = 1;
	d->resolution_ns = 1;
	return 0;
}

int lw_dist_from_hist(struct lw_dist *d, const struct lw_hist *h)
{
	size_t k = 0;
	uint64_t c = 0;

	for (size_t b = 0; b < h->nbuckets; b++)
		k += h->count[b] != 0;
	if (dist_alloc(d, k + 1) < 0)
		return -1;
	k = 0;
	for (size_t b = 0; b < h->nbuckets; b++) {
		uint64_t edge = (b + 1) * h->bucket_ns - 1, x;

		if (!h->count[b])
			continue;
		x = edge > h->max ? h->max : edge;
		if (k && x <= d->v[k - 1])	/* the max capped two buckets: merge */
			k--;
		c += h->count[b];
		d->v[k] = x;
		d->cum[k++] = c;
		d->sumsq += (long double)x * x * h->count[b];
	}
	if (h->overflow) {
		/* beyond the last bucket only the largest is known */
		if (k && h->overflow_max <= d->v[k - 1])
			k--;
		c += h->overflow;
		d->v[k] = h->overflow_max;
		d->cum[k++] = c;
		d->sumsq += (long double)h->overflow_max * h->overflow_max * h->overflow;
	}
	d->k = k;
	d->n = c;
	d->sum = h->sum;	/* the true sum, kept by the histogram */
	d->exact = 0;
	d->resolution_ns = h->bucket_ns;
	return 0;
}

int lw_dist_merge(const struct lw_dist *a, const struct lw_dist *b, struct lw_dist *d)
{
	size_t i = 0, j = 0;
	uint64_t ca = 0, cb = 0;

	if (dist_alloc(d, a->k + b->k) < 0)
		return -1;
	while (i < a->k || j < b->k) {
		uint64_t v;

		if (j == b->k || (i < a->k && a->v[i] <= b->v[j]))
			v = a->v[i];
		else
			v = b->v[j];
		while (i < a->k && a->v[i] == v)
			ca = a->cum[i++];
		while (j < b->k && b->v[j] == v)
			cb = b->cum[j++];
		d->v[d->k] = v;
		d->cum[d->k++] = ca + cb;
	}
	d->n = a->n + b->n;
	d->exact = a->exact && b->exact;
	d->resolution_ns = a->resolution_ns > b->resolution_ns ? a->resolution_ns : b->resolution_ns;
	d->sum = a->sum + b->sum;
	d->sumsq = a->sumsq + b->sumsq;
	return 0;
}

void lw_dist_free(struct lw_dist *d)
{
	free(d->v);
	free(d->cum);
	memset(d, 0, sizeof(*d));
}

uint64_t lw_dist_at_rank(const struct lw_dist *d, uint64_t r)
{
	size_t lo = 0, hi = d->k - 1;

	/* the first index with cum >= r */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->cum[mid] >= r)
			hi = mid;
		else
			lo = mid + 1;
	}
	return d->v[lo];
}

uint64_t lw_pct_rank(uint64_t n, double q)
{
	double r = ceil(q / 100.0 * (double)n - 1e-9);
	uint64_t k = r < 1 ? 1 : (uint64_t)r;

	return k > n ? n : k;
}

uint64_t lw_dist_percentile(const struct lw_dist *d, double q)
{
	return d->n ? lw_dist_at_rank(d, lw_pct_rank(d->n, q)) : 0;
}

uint64_t lw_dist_count_above(const struct lw_dist *d, uint64_t x)
{
	size_t lo = 0, hi = d->k;

	/* the number of distinct values <= x */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return d->n - (lo ? d->cum[lo - 1] : 0);
}

double lw_dist_mean(const struct lw_dist *d)
{
	return d->n ? (double)(d->sum / d->n) : 0;
}

double lw_dist_var(const struct lw_dist *d)
{
	long double m;

	if (d->n < 2)
		return 0;
	m = d->sum / d->n;
	return (double)((d->sumsq - d->n * m * m) / (d->n - 1));
}

double lw_normal_p2(double z)
{
	double p = 2 * gsl_cdf_ugaussian_Q(fabs(z));

	return p > 1 ? 1 : p;
}

double lw_normal_quantile(double p)
{
	if (p <= 0)
		return -INFINITY;
	if (p >= 1)
		return INFINITY;
	return gsl_cdf_ugaussian_Pinv(p);
}

int lw_mwu(const struct lw_dist *a, const struct lw_dist *b, struct lw_mwu *o)
{
	size_t i = 0, j = 0;
	uint64_t below_a = 0;	/* samples of A below the current value */
	long double ub = 0, ties = 0, na = a->n, nb = b->n, n = na + nb, var;

	memset(o, 0, sizeof(*o));
	if (!a->n || !b->n)
		return error("mann-whitney: a sample is empty");
	while (i < a->k || j < b->k) {
		uint64_t x, ca = 0, cb = 0;

		if (j >= b->k || (i < a->k && a->v[i] <= b->v[j]))
			x = a->v[i];
		else
			x = b->v[j];
		if (i < a->k && a->v[i] == x) {
			ca = a->cum[i] - (i ? a->cum[i - 1] : 0);
			i++;
		}
		if (j < b->k && b->v[j] == x) {
			cb = b->cum[j] - (j ? b->cum[j - 1] : 0);
			j++;
		}
		ub += (long double)cb * (below_a + 0.5L * ca);
		if (ca + cb > 1) {
			long double t = ca + cb;
			ties += t * t * t - t;
		}
		below_a += ca;
	}
	o->u_b = (double)ub;
	o->u_a = (double)(na * nb - ub);
	o->mean = (double)(na * nb / 2);
	var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)));
	o->sd = var > 0 ? (double)sqrtl(var) : 0;
	o->ties = (double)ties;
	o->ps = (double)(ub / (na * nb));
	o->cliffs_delta = 2 * o->ps - 1;
	if (o->sd > 0) {
		double dev = fabs(o->u_b - o->mean) - 0.5;	/* continuity correction */

		if (dev < 0)
			dev = 0;
		o->z = (o->u_b >= o->mean ? dev : -dev) / o->sd;
		o->p = lw_normal_p2(o->z);
	} else {
		o->z = 0;	/* every value equal */
		o->p = 1;
	}
	return 0;
}

uint64_t lw_boot_percentile(const struct lw_dist *d, double q, struct lw_rng *r)
{
	uint64_t k = lw_pct_rank(d->n, q), j;
	double x;

	if (d->n == 1)
		return d->v[0];
	x = lw_rng_beta(r, (double)k, (double)(d->n - k + 1));
	j = (uint64_t)ceil(x * (double)d->n);
	if (j < 1)
		j = 1;
	if (j > d->n)
		j = d->n;
	return lw_dist_at_rank(d, j);
}

void lw_interval(double *x, size_t n, double conf, double *lo, double *hi)
{
	double tail = (1 - conf) / 2;

	if (!n) {
		*lo = *hi = NAN;
		return;
	}
	gsl_sort(x, 1, n);
	*lo = gsl_stats_quantile_from_sorted_data(x, 1, n, tail);
	*hi = gsl_stats_quantile_from_sorted_data(x, 1, n, 1 - tail);
}

static double binom_logpmf(uint64_t j, uint64_t n, double pi)
{
	return gsl_sf_lnchoose((unsigned)n, (unsigned)j) + (double)j * log(pi) +
	       (double)(n - j) * log1p(-pi);
}

double lw_rate_test(uint64_t xa, uint64_t na, uint64_t xb, uint64_t nb)
{
	uint64_t x = xa + xb;
	double pi, lobs, p = 0;

	if (!x || !na || !nb)
		return 1;
	pi = (double)nb / ((double)na + (double)nb);
	if (x > 10000) {
		double mean = (double)x * pi, sd = sqrt((double)x * pi * (1 - pi));
		double dev = fabs((double)xb - mean) - 0.5;

		return lw_normal_p2((dev < 0 ? 0 : dev) / sd);
	}
	lobs = binom_logpmf(xb, x, pi);
	for (uint64_t j = 0; j <= x; j++) {
		double l = binom_logpmf(j, x, pi);

		/* outcomes no more likely than the observed one (relative slack
		 * for rounding, as R's binom.test) */
		if (l <= lobs + 1e-7)
			p += exp(l);
	}
	return p > 1 ? 1 : p;
}

void lw_mean_var(const double *x, size_t n, double *mean, double *var)
{
	*mean = n ? gsl_stats_mean(x, 1, n) : NAN;
	*var = n > 1 ? gsl_stats_variance_m(x, 1, n, *mean) : 0;
}

void lw_runs_test(const double *x, size_t na, const double *y, size_t nb, double floor_a,
		  double floor_b, double conf, struct lw_runs_test *t)
{
	double ma, va, mb, vb, tq;

	memset(t, 0, sizeof(*t));
	t->diff = t->se = t->df = t->p = t->lo = t->hi = NAN;
	if (!na || !nb)
		return;
	lw_mean_var(x, na, &ma, &va);
	lw_mean_var(y, nb, &mb, &vb);
	t->diff = mb - ma;
	if (!(floor_a >= 0))
		floor_a = 0;
	if (!(floor_b >= 0))
		floor_b = 0;
	if (na >= 2 && nb >= 2) {
		double qa, qb;

		va = va > floor_a ? va : floor_a;
		vb = vb > floor_b ? vb : floor_b;
		qa = va / (double)na;
		qb = vb / (double)nb;
		t->method = "welch";
		t->se = sqrt(qa + qb);
		t->df = (qa + qb) * (qa + qb) /
			(qa * qa / (double)(na - 1) + qb * qb / (double)(nb - 1));
		if (!isfinite(t->df))	/* no spread at all */
			t->df = (double)(na + nb - 2);
	} else if (na + nb >= 4) {
		/* one run against a set: the set's spread, for both */
		double v = na == 1 ? vb : va, f = floor_a > floor_b ? floor_a : floor_b;

		v = v > f ? v : f;
		t->method = "prediction";
		t->se = sqrt(v * (1 / (double)na + 1 / (double)nb));
		t->df = (double)(na + nb - 2);
	} else {
		return;		/* one run a side, or one and two */
	}
	t->ok = 1;
	if (!(t->se > 0)) {
		t->p = t->diff == 0 ? 1 : 0;
		t->lo = t->hi = t->diff;
		return;
	}
	t->p = 2 * gsl_cdf_tdist_Q(fabs(t->diff) / t->se, t->df);
	if (t->p > 1)
		t->p = 1;
	tq = gsl_cdf_tdist_Qinv((1 - conf) / 2, t->df);
	t->lo = t->diff - tq * t->se;
	t->hi = t->diff + tq * t->se;
}

double lw_runs_mdc(const struct lw_runs_test *t, double alpha, double power)
{
	if (!t->ok)
		return NAN;
	return (gsl_cdf_tdist_Qinv(alpha / 2, t->df) + gsl_cdf_tdist_Qinv(1 - power, t->df)) * t->se;
}

unsigned lw_runs_needed(double sd, double delta, double alpha, double power)
{
	double z = gsl_cdf_ugaussian_Qinv(alpha / 2) + gsl_cdf_ugaussian_Qinv(1 - power), n;

	if (!(sd > 0) || !(delta > 0))
		return 3;
	n = ceil(2 * (z * sd / delta) * (z * sd / delta));
	if (n < 3)
		return 3;
	return n > 1000 ? 1000 : (unsigned)n;
}
