// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/teststat.h"
#include "lib/error.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void lw_rng_seed(struct lw_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

void lw_rng_stream(struct lw_rng *r, uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t x = seed;

	x = splitmix64(&x) ^ (a * 0x9e3779b97f4a7c15ULL);
	x = splitmix64(&x) ^ (b * 0xc2b2ae3d27d4eb4fULL);
	x = splitmix64(&x) ^ (c * 0x165667b19e3779f9ULL);
	lw_rng_seed(r, x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t lw_rng_next(struct lw_rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

double lw_rng_uniform(struct lw_rng *r)
{
	/* 53 random bits, shifted half a step off zero: never 0, never 1 */
	return ((double)(lw_rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

double lw_rng_normal(struct lw_rng *r)
{
	/* Marsaglia's polar method; the second value is dropped to keep the
	 * generator stateless beyond its four words. */
	double u, v, s;

	do {
		u = 2 * lw_rng_uniform(r) - 1;
		v = 2 * lw_rng_uniform(r) - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);
	return u * sqrt(-2 * log(s) / s);
}

double lw_rng_gamma(struct lw_rng *r, double shape)
{
	/* Marsaglia and Tsang (2000); shape < 1 through Gamma(shape + 1) U^(1/shape) */
	double d, c, x, v, u;

	if (shape < 1)
		return lw_rng_gamma(r, shape + 1) * pow(lw_rng_uniform(r), 1 / shape);
	d = shape - 1.0 / 3;
	c = 1 / sqrt(9 * d);
	for (;;) {
		do {
			x = lw_rng_normal(r);
			v = 1 + c * x;
		} while (v <= 0);
		v = v * v * v;
		u = lw_rng_uniform(r);
		if (u < 1 - 0.0331 * x * x * x * x)
			return d * v;
		if (log(u) < 0.5 * x * x + d * (1 - v + log(v)))
			return d * v;
	}
}

double lw_rng_beta(struct lw_rng *r, double a, double b)
{
	double x = lw_rng_gamma(r, a), y = lw_rng_gamma(r, b);

	return x / (x + y);
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

double lw_normal_sf(double z)
{
	return 0.5 * erfc(z / M_SQRT2);
}

double lw_normal_p2(double z)
{
	double p = erfc(fabs(z) / M_SQRT2);

	return p > 1 ? 1 : p;
}

double lw_normal_quantile(double p)
{
	static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,
		-2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01,
		2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02,
		-1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01,
		-2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00,
		2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01,
		2.445134137142996e+00, 3.754408661907416e+00 };
	double q, r, x;

	if (p <= 0)
		return -INFINITY;
	if (p >= 1)
		return INFINITY;
	if (p < 0.02425 || p > 1 - 0.02425) {
		q = sqrt(-2 * log(p < 0.5 ? p : 1 - p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
		if (p > 0.5)
			x = -x;
	} else {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	}
	/* one Halley step against erfc */
	double e = 0.5 * erfc(-x / M_SQRT2) - p, u = e * sqrt(2 * M_PI) * exp(x * x / 2);

	return x - u / (1 + x * u / 2);
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void lw_interval(double *x, size_t n, double conf, double *lo, double *hi)
{
	double tail = (1 - conf) / 2;
	size_t l, h;

	if (!n) {
		*lo = *hi = NAN;
		return;
	}
	qsort(x, n, sizeof(*x), cmp_double);
	l = (size_t)floor(tail * (double)n);
	h = (size_t)ceil((1 - tail) * (double)n) - 1;
	if (h >= n)
		h = n - 1;
	if (l > h)
		l = h;
	*lo = x[l];
	*hi = x[h];
}

double lw_boot_p(const double *d, size_t n)
{
	double neg = 0, pos = 0, p;

	if (!n)
		return 1;
	for (size_t i = 0; i < n; i++) {
		if (d[i] < 0)
			neg += 1;
		else if (d[i] > 0)
			pos += 1;
		else {
			neg += 0.5;
			pos += 0.5;
		}
	}
	p = 2 * (neg < pos ? neg : pos) / (double)n;
	if (p < 1.0 / (double)n)
		p = 1.0 / (double)n;
	return p > 1 ? 1 : p;
}

static double binom_logpmf(uint64_t j, uint64_t n, double pi)
{
	return lgamma((double)n + 1) - lgamma((double)j + 1) - lgamma((double)(n - j) + 1) +
	       (double)j * log(pi) + (double)(n - j) * log1p(-pi);
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

double lw_welch_p(double ma, double va, uint64_t na, double mb, double vb, uint64_t nb)
{
	double se;

	if (na < 2 || nb < 2)
		return 1;
	se = sqrt(va / (double)na + vb / (double)nb);
	if (!(se > 0))
		return ma == mb ? 1 : 0;
	return lw_normal_p2((mb - ma) / se);
}
