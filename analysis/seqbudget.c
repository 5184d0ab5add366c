// SPDX-License-Identifier: GPL-2.0-only
/* Sequential designs against budgets (analysis/seqbudget.h). */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/evt.h"
#include "analysis/seqbudget.h"
#include "lib/error.h"

const char *lw_bseq_decision_name(enum lw_bseq_decision d)
{
	static const char *const names[] = { "continue", "FAIL", "PASS", "undecided" };

	return (unsigned)d < sizeof(names) / sizeof(names[0]) ? names[d] : "?";
}

void lw_bseq_opts_default(struct lw_bseq_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->block_ns = 1000000000ULL;
	o->horizon_ns = 3600 * 1000000000ULL;
	o->min_blocks = LW_EVT_MIN_BLOCKS;
	o->resamples = 2000;
	o->seed = 1;
}

/* The return level of @m blocks of the fit to @x: GEV by probability-weighted
 * moments, or, when that fit finds a bounded tail (shape < 0) and @light is
 * 0, Gumbel (shape 0) by maximum likelihood: a PASS takes the tail no
 * lighter than Gumbel's.  NAN when neither fits. */
static double level_of(const double *x, size_t n, double m, int light)
{
	struct lw_evt_fit f;
	int q = lw_set_quiet(1), ret;

	ret = lw_evt_fit_gev_pwm(x, n, &f);
	if (ret == 0 && f.shape < 0 && !light)
		ret = lw_evt_fit_gumbel_ml(x, n, &f);
	lw_set_quiet(q);
	return ret < 0 ? NAN : lw_evt_return_level(&f, m);
}

/* The bootstrap percentile bounds of level_of(): in two stages when the
 * blocks come from several runs (@runlen: each run's count, @nruns of them),
 * as compare's worst case of a group: runs drawn with replacement, then each
 * drawn run's blocks with replacement, the fit repeated, so that the bounds
 * hold the run-to-run spread as well as the spread inside a run. */
static int boot_bounds(const double *x, size_t n, const size_t *runlen, size_t nruns, double m,
		       int light, double alpha, unsigned resamples, struct lw_rng *rng,
		       double *lo, double *hi)
{
	size_t maxlen = n, *off = calloc(nruns + 1, sizeof(*off));
	double *rs, *lv = malloc((resamples + 1) * sizeof(*lv));
	size_t nl = 0;

	for (size_t r = 0; r < nruns; r++) {
		off[r + 1] = off[r] + runlen[r];
		if (!r || runlen[r] > maxlen)
			maxlen = runlen[r];
	}
	rs = malloc((nruns > 1 ? maxlen * nruns : n) * sizeof(*rs));
	if (!rs || !lv || !off) {
		free(rs);
		free(lv);
		free(off);
		return error("out of memory");
	}
	for (unsigned b = 0; b < resamples; b++) {
		size_t k = 0;
		double l;

		if (nruns > 1) {
			for (size_t r = 0; r < nruns; r++) {
				size_t d = lw_rng_index(rng, nruns);

				for (size_t i = 0; i < runlen[d]; i++)
					rs[k++] = x[off[d] + lw_rng_index(rng, runlen[d])];
			}
		} else {
			for (; k < n; k++)
				rs[k] = x[lw_rng_index(rng, n)];
		}
		l = k >= 3 ? level_of(rs, k, m, light) : NAN;
		if (isfinite(l))
			lv[nl++] = l;
	}
	*lo = *hi = NAN;
	/* resamples that could not be fitted (all equal) are left out; most
	 * must fit */
	if (nl * 2 > resamples)
		lw_interval(lv, nl, 1 - 2 * alpha, lo, hi);
	free(rs);
	free(lv);
	free(off);
	return 0;
}

int lw_bseq_max_bounds(const double *x, size_t n, const size_t *runlen, size_t nruns, double m,
		       double alpha_lo, double alpha_up, unsigned resamples, unsigned min_blocks, uint64_t seed, double *est, double *lo, double *hi,
		       int *ok, char *why, size_t whylen)
{
	struct lw_rng rng = { 0 };
	double l, h;
	int ret = 0;

	*est = *lo = *hi = NAN;
	*ok = 0;
	if (n < min_blocks || n < 3) {
		if (why)
			snprintf(why, whylen, "%zu blocks: at least %u are needed to extrapolate", n,
				 min_blocks);
		return 0;
	}
	*est = level_of(x, n, m, 1);
	if (!isfinite(*est)) {
		if (why)
			snprintf(why, whylen, "the block maxima cannot be fitted (they do not vary)");
		return 0;
	}
	if (lw_rng_stream(&rng, seed, n, 0, 400) < 0)
		return -1;
	/* lower: the GEV as fitted; upper: the tail no lighter than Gumbel's */
	if (boot_bounds(x, n, runlen, nruns, m, 1, alpha_lo, resamples, &rng, lo, &l) < 0 ||
	    boot_bounds(x, n, runlen, nruns, m, 0, alpha_up, resamples, &rng, &l, &h) < 0)
		ret = -1;
	lw_rng_free(&rng);
	*hi = h;
	*ok = ret == 0 && isfinite(*lo) && isfinite(*hi);
	if (ret == 0 && !*ok && why)
		snprintf(why, whylen, "too few of the bootstrap's resamples could be fitted");
	return ret;
}

int lw_bseq_mean_bounds(const double *x, size_t n, double alpha, double *est, double *lo,
		      double *hi)
{
	double s = 0, ss = 0, mean, sd, t;

	*est = *lo = *hi = NAN;
	if (n < 2)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0))
			return -1;
		s += log(x[i]);
	}
	mean = s / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (log(x[i]) - mean) * (log(x[i]) - mean);
	sd = sqrt(ss / (double)(n - 1));
	t = gsl_cdf_tdist_Qinv(alpha, (double)(n - 1));
	*est = exp(mean);
	*lo = exp(mean - t * sd / sqrt((double)n));
	*hi = exp(mean + t * sd / sqrt((double)n));
	return 0;
}

static enum lw_bseq_kind kind_of(const struct lw_check *c)
{
	if (!strcmp(c->unit, "count"))
		return LW_BSEQ_COUNT;
	if (!strcmp(c->unit, "us") && !strcmp(c->metric, "max"))
		return LW_BSEQ_MAX;
	return LW_BSEQ_FIGURE;
}

/* The share of samples a percentile "p99.9" leaves above it (0.001); 0
 * for a name that is not one. */
static double pct_share(const char *metric)
{
	char *end;
	double v;

	if (metric[0] != 'p' || !metric[1])
		return 0;
	v = strtod(metric + 1, &end);
	return *end || !(v > 0 && v < 100) ? 0 : 1 - v / 100;
}

/* "budget.cyclic.max" of rule "cyclic.max<...": the probe, when the rule has one. */
static void probe_of(const struct lw_check *c, char *buf, size_t len)
{
	size_t l = strlen(c->metric), k = strcspn(c->rule, "<");

	buf[0] = 0;
	if (k > l + 1 && c->rule[k - l - 1] == '.' && !strncmp(c->rule + k - l, c->metric, l))
		snprintf(buf, len, "%.*s", (int)(k - l - 1), c->rule);
}

static int append(double **v, size_t *n, const double *x, size_t k)
{
	double *nv = realloc(*v, (*n + k + 1) * sizeof(**v));

	if (!nv)
		return error("out of memory");
	*v = nv;
	memcpy(nv + *n, x, k * sizeof(*x));
	*n += k;
	return 0;
}

int lw_bseq_add_run(struct lw_bseq *s, const struct lw_checks *cs, lw_bseq_bmax_fn bmax, void *ctx)
{
	s->runs++;
	for (size_t i = 0; i < cs->n; i++) {
		const struct lw_check *c = &cs->c[i];
		struct lw_bseq_budget *b = NULL;

		if (strcmp(c->suite, "budgets") || !strcmp(c->metric, "threshold"))
			continue;
		for (size_t k = 0; k < s->n && !b; k++)
			if (!strcmp(s->b[k].name, c->name))
				b = &s->b[k];
		if (!b) {
			struct lw_bseq_budget *nb = realloc(s->b, (s->n + 1) * sizeof(*nb));

			if (!nb)
				return error("out of memory");
			s->b = nb;
			b = &s->b[s->n++];
			memset(b, 0, sizeof(*b));
			snprintf(b->name, sizeof(b->name), "%s", c->name);
			snprintf(b->rule, sizeof(b->rule), "%s", c->rule);
			snprintf(b->unit, sizeof(b->unit), "%s", c->unit);
			probe_of(c, b->probe, sizeof(b->probe));
			b->limit = c->limit;
			b->le = strstr(c->rule, "<=") != NULL;
			b->kind = kind_of(c);
			b->q = pct_share(c->metric);
			if (b->kind == LW_BSEQ_FIGURE && s->exceed && b->probe[0] && b->q > 0 &&
			    !strcmp(c->unit, "us"))
				b->kind = LW_BSEQ_EXCEED;
			b->worst = b->est = b->lo = b->hi = NAN;
		}
		/* what a run measured above the limit broke it: a count, a
		 * maximum, or a percentile known only to lie above it */
		if (c->result == LW_FAIL && (b->kind == LW_BSEQ_COUNT || b->kind == LW_BSEQ_MAX ||
					     isnan(c->measured)))
			b->broken = 1;
		if (b->kind == LW_BSEQ_EXCEED) {
			uint64_t over = 0, tot = 0;
			double ne = 0;
			int r = s->exceed(s->exceed_ctx, b->probe, b->limit * 1e3, b->le, &over, &tot,
					  &ne);

			if (r < 0)
				return -1;
			if (r == 0 && tot) {
				double f = (double)over / (double)tot;

				if (append(&b->exc, &b->nexc, &f, 1) < 0)
					return -1;
				b->over += over;
				b->total += tot;
				b->neff += ne > 0 && ne < (double)tot ? ne : (double)tot;
			}
		}
		if (!isnan(c->measured)) {
			if (isnan(b->worst) || c->measured > b->worst) {
				b->worst = c->measured;
				b->worst_run = s->runs;
			}
			if (append(&b->fig, &b->nfig, &c->measured, 1) < 0)
				return -1;
		}
		if (b->kind == LW_BSEQ_MAX && bmax && b->probe[0]) {
			const double *v = NULL;
			size_t n = 0;
			int r = bmax(ctx, b->probe, &v, &n);

			if (r < 0)
				return -1;
			if (r == 0 && n) {
				size_t at = b->nbm;

				size_t *nr = realloc(b->runlen, (b->nruns + 1) * sizeof(*nr));

				if (!nr)
					return error("out of memory");
				b->runlen = nr;
				b->runlen[b->nruns++] = n;
				if (append(&b->bm, &b->nbm, v, n) < 0)
					return -1;
				for (size_t k = at; k < b->nbm; k++)
					b->bm[k] /= 1e3;	/* ns to us */
			}
		}
	}
	return 0;
}

/* How near its limit a budget's upper bound is (1: at it). */
static double nearness(const struct lw_bseq_budget *b)
{
	return b->kind == LW_BSEQ_EXCEED ? b->hi / b->q : b->hi / b->limit;
}

static int met(const struct lw_bseq_budget *b, double v)
{
	return b->le ? v <= b->limit : v < b->limit;
}

/* What the units of the sequence are called. */
static const char *one(const struct lw_bseq *s)
{
	return s->stretches ? "stretch" : "run";
}

static const char *ones(const struct lw_bseq *s)
{
	return s->stretches ? "stretches" : "runs";
}

/* One-sided Wilson bound of a share @p of @nn independent samples at
 * @alpha: the upper (@up) or the lower. */
static double wilson(double p, double nn, double alpha, int up)
{
	double z = gsl_cdf_ugaussian_Pinv(1 - alpha);
	double c = (p + z * z / (2 * nn)) / (1 + z * z / nn);
	double h = z * sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / (1 + z * z / nn);

	return up ? c + h : c - h;
}

size_t lw_bseq_first_over(const uint64_t *v, size_t n, double limit_ns, int le)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t m = (lo + hi) / 2;

		if (le ? (double)v[m] > limit_ns : (double)v[m] >= limit_ns)
			hi = m;
		else
			lo = m + 1;
	}
	return lo;
}

double lw_bseq_neff_blocks(const struct lw_bseq_blk *b, size_t nb)
{
	double n = 0, sum = 0, sum2 = 0, mean, var, bvar = 0, infl;

	for (size_t j = 0; j < nb; j++) {
		n += b[j].n;
		sum += b[j].sum;
		sum2 += b[j].sum2;
	}
	if (nb < 2 || !(n > 0))
		return n;
	mean = sum / n;
	var = sum2 / n - mean * mean;
	if (!(var > 1e-12))
		return n;
	/* a block mean of m independent samples varies as var / m */
	for (size_t j = 0; j < nb; j++)
		if (b[j].n > 0) {
			double d = b[j].sum / b[j].n - mean;

			bvar += b[j].n * d * d / (double)(nb - 1);
		}
	infl = bvar / var;
	if (infl < 1)
		infl = 1;
	if (infl > n / (double)nb)
		infl = n / (double)nb;
	return n / infl;
}

double lw_bseq_neff(const uint64_t *v, size_t n)
{
	enum { NB = 10 };
	struct lw_bseq_blk b[NB] = { 0 };
	size_t per = n / NB;

	if (n < 200)
		return (double)n;
	for (size_t i = 0; i < per * NB; i++) {
		double l = log((double)v[i] + 1);

		b[i / per].n += 1;
		b[i / per].sum += l;
		b[i / per].sum2 += l * l;
	}
	return lw_bseq_neff_blocks(b, NB) * (double)n / (double)(per * NB);
}

/* A percentile's budget as the share of samples over its limit. */
static int exceed_bounds(struct lw_bseq *s, struct lw_bseq_budget *b, double alpha_lo,
			 double alpha_up)
{
	double m = 0, v = 0, se, k = (double)b->nexc;

	b->how = s->stretches ? "stretches' shares over the limit" : "runs' shares over the limit";
	if (b->nexc < 2 || !b->total) {
		snprintf(b->why, sizeof(b->why), "%zu %s with samples: at least 2 are needed",
			 b->nexc, b->nexc == 1 ? one(s) : ones(s));
		return 0;
	}
	for (size_t i = 0; i < b->nexc; i++)
		m += b->exc[i] / k;
	for (size_t i = 0; i < b->nexc; i++)
		v += (b->exc[i] - m) * (b->exc[i] - m) / (k - 1);
	se = sqrt(v / k);
	b->est = (double)b->over / (double)b->total;
	b->hi = fmax(m + gsl_cdf_tdist_Pinv(1 - alpha_up, k - 1) * se,
		     wilson(b->est, b->neff, alpha_up, 1));
	b->lo = fmax(0, fmin(m - gsl_cdf_tdist_Pinv(1 - alpha_lo, k - 1) * se,
			     wilson(b->est, b->neff, alpha_lo, 0)));
	return 0;
}

/* The bounds of @b at @alpha (lower) and @alpha_up (upper). */
static int bounds(struct lw_bseq *s, struct lw_bseq_budget *b, double alpha_lo, double alpha_up)
{
	double e, l, h;
	int ok;

	b->est = b->lo = b->hi = NAN;
	b->why[0] = 0;
	b->how = NULL;
	if (b->kind == LW_BSEQ_MAX) {
		double m = (double)s->o.horizon_ns / (double)s->o.block_ns;

		b->how = "GEV";
		if (lw_bseq_max_bounds(b->bm, b->nbm, b->runlen, b->nruns, m, alpha_lo, alpha_up, s->o.resamples,
				       s->o.min_blocks, s->o.seed, &e, &l, &h, &ok, b->why,
				       sizeof(b->why)) < 0)
			return -1;
		if (ok) {
			b->est = e;
			b->lo = l;
			b->hi = h;
		}
		return 0;
	}
	if (b->kind == LW_BSEQ_EXCEED)
		return exceed_bounds(s, b, alpha_lo, alpha_up);
	b->how = s->stretches ? "stretches' mean" : "runs' mean";
	if (lw_bseq_mean_bounds(b->fig, b->nfig, alpha_up, &e, &l, &h) < 0) {
		snprintf(b->why, sizeof(b->why), "%zu %s with a positive figure: at least 2 "
			 "are needed", b->nfig, b->nfig == 1 ? one(s) : ones(s));
		return 0;
	}
	b->est = e;
	b->hi = h;
	lw_bseq_mean_bounds(b->fig, b->nfig, alpha_lo, &e, &l, &h);
	b->lo = l;
	return 0;
}

static void horizon_text(const struct lw_bseq_opts *o, char *buf, size_t len)
{
	double h = (double)o->horizon_ns / 1e9;

	if (h >= 3600 && fmod(h, 3600) == 0)
		snprintf(buf, len, "%g h", h / 3600);
	else if (h >= 60 && fmod(h, 60) == 0)
		snprintf(buf, len, "%g min", h / 60);
	else
		snprintf(buf, len, "%g s", h);
}

/* "cyclic max" of budget.cyclic.max, "xruns" of budget.xruns */
static void label(const struct lw_bseq_budget *b, char *buf, size_t len)
{
	const char *n = strncmp(b->name, "budget.", 7) ? b->name : b->name + 7;
	size_t pl = strlen(b->probe);

	if (pl && !strncmp(n, b->probe, pl) && n[pl] == '.')
		snprintf(buf, len, "%s %s", b->probe, n + pl + 1);
	else
		snprintf(buf, len, "%s", n);
}

static const char *unit_sp(const struct lw_bseq_budget *b)
{
	return strcmp(b->unit, "count") ? b->unit : "";
}

enum lw_bseq_decision lw_bseq_judge(struct lw_bseq *s, double alpha, char *line, size_t len)
{
	size_t nlat = 0, judged = 0;
	int all_met = 1;
	char lb[128], hz[32];
	const struct lw_bseq_budget *open = NULL;

	horizon_text(&s->o, hz, sizeof(hz));
	if (!s->n) {
		snprintf(line, len, "no budget was judged in the %s", ones(s));
		return LW_BSEQ_CONTINUE;
	}
	/* measured: no estimate, no error rate */
	for (size_t i = 0; i < s->n; i++) {
		const struct lw_bseq_budget *b = &s->b[i];

		if (b->broken) {
			label(b, lb, sizeof(lb));
			if (isnan(b->worst))
				snprintf(line, len, "%s broken by what a %s measured (%s)", lb, one(s),
					 b->rule);
			else
				snprintf(line, len, "%s %.10g%s%s in %s %u (%s)", lb, b->worst,
					 *unit_sp(b) ? " " : "", unit_sp(b), one(s), b->worst_run,
					 b->rule);
			return LW_BSEQ_FAIL;
		}
		nlat += b->kind != LW_BSEQ_COUNT && !isnan(b->worst);
		judged += !isnan(b->worst);
	}
	if (!judged) {
		snprintf(line, len, "no %s recorded a figure any budget names (%s%s)", one(s),
			 s->b[0].rule,
			 s->n > 1 ? " ..." : "");
		return LW_BSEQ_CONTINUE;
	}
	for (size_t i = 0; i < s->n; i++) {
		struct lw_bseq_budget *b = &s->b[i];

		if (b->kind == LW_BSEQ_COUNT || isnan(b->worst)) {
			/* a budget no run has a figure for is skipped, as analyze
			 * skips it (xruns without an audio workload) */
			b->how = isnan(b->worst) ? NULL : "measured";
			b->est = b->worst;
			if (isnan(b->worst))
				snprintf(b->why, sizeof(b->why), "not recorded in these %s",
					 ones(s));
			continue;
		}
		/* a false FAIL on any of the nlat: Bonferroni; a false PASS
		 * needs the one budget the truth breaks: alpha itself */
		if (bounds(s, b, alpha / (double)nlat, alpha) < 0) {
			snprintf(line, len, "%s", lw_last_error());
			return LW_BSEQ_CONTINUE;
		}
		if (b->kind == LW_BSEQ_EXCEED && !isnan(b->lo) && b->lo > b->q) {
			label(b, lb, sizeof(lb));
			snprintf(line, len, "%s: %.3g %% of samples %s %.10g %s, lower bound %.3g %% > "
				 "%.3g %% (%s)", lb, 100 * b->est, b->le ? "over" : "at or over",
				 b->limit, b->unit, 100 * b->lo, 100 * b->q, b->how);
			return LW_BSEQ_FAIL;
		}
		if (b->kind == LW_BSEQ_EXCEED) {
			if (isnan(b->hi) || !(b->hi < b->q)) {
				all_met = 0;
				if (!open)
					open = b;
			}
			continue;
		}
		if (!isnan(b->lo) && !met(b, b->lo)) {
			label(b, lb, sizeof(lb));
			snprintf(line, len, "%s lower bound %.4g %s %s %.10g %s (%s%s%s)", lb, b->lo,
				 b->unit, b->le ? ">" : ">=", b->limit, b->unit, b->how,
				 b->kind == LW_BSEQ_MAX ? ", " : "", b->kind == LW_BSEQ_MAX ? hz : "");
			return LW_BSEQ_FAIL;
		}
		if (isnan(b->hi) || !met(b, b->hi)) {
			all_met = 0;
			if (!open)
				open = b;
		}
	}
	if (all_met) {
		/* the budget nearest its limit, or the count when only counts */
		const struct lw_bseq_budget *w = NULL;

		for (size_t i = 0; i < s->n; i++)
			if (s->b[i].kind != LW_BSEQ_COUNT && !isnan(s->b[i].worst) &&
			    (!w || nearness(&s->b[i]) > nearness(w)))
				w = &s->b[i];
		if (!w) {
			for (size_t i = 0; i < s->n && !w; i++)
				if (!isnan(s->b[i].worst))
					w = &s->b[i];
			label(w, lb, sizeof(lb));
			snprintf(line, len, "%s %.10g %s %.10g in %u %s (%s)", lb, w->worst,
				 w->le ? "<=" : "<", w->limit, s->runs, s->runs == 1 ? one(s) : ones(s),
				 w->rule);
			return LW_BSEQ_PASS;
		}
		label(w, lb, sizeof(lb));
		if (w->kind == LW_BSEQ_EXCEED) {
			snprintf(line, len, "%s: %.3g %% of samples %s %.10g %s, upper bound %.3g %% "
				 "< %.3g %% (%s)", lb, 100 * w->est, w->le ? "over" : "at or over",
				 w->limit, w->unit, 100 * w->hi, 100 * w->q, w->how);
			return LW_BSEQ_PASS;
		}
		snprintf(line, len, "%s upper bound %.4g %s %s %.10g %s (%s%s%s)", lb, w->hi, w->unit,
			 w->le ? "<=" : "<", w->limit, w->unit, w->how,
			 w->kind == LW_BSEQ_MAX ? ", " : "", w->kind == LW_BSEQ_MAX ? hz : "");
		return LW_BSEQ_PASS;
	}
	label(open, lb, sizeof(lb));
	if (open->kind == LW_BSEQ_EXCEED && !isnan(open->hi))
		snprintf(line, len, "%s: %.3g %% of samples %s %.10g %s, upper bound %.3g %%, "
			 "%.3g %% allowed (%s)", lb, 100 * open->est, open->le ? "over" : "at or over",
			 open->limit, open->unit, 100 * open->hi, 100 * open->q, open->how);
	else if (isnan(open->hi))
		snprintf(line, len, "%s: no bound yet (%s); limit %.10g %s", lb, open->why,
			 open->limit, open->unit);
	else
		snprintf(line, len, "%s upper bound %.4g %s, limit %.10g %s (%s%s%s)", lb, open->hi,
			 open->unit, open->limit, open->unit, open->how,
			 open->kind == LW_BSEQ_MAX ? ", " : "", open->kind == LW_BSEQ_MAX ? hz : "");
	return LW_BSEQ_CONTINUE;
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *lw_bseq_json(const struct lw_bseq *s)
{
	static const char *const kinds[] = { "count", "max", "figure", "exceedance" };
	json_t *a = json_array();

	for (size_t i = 0; i < s->n; i++) {
		const struct lw_bseq_budget *b = &s->b[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:b, s:o, s:o, s:o}",
				      "name", b->name, "rule", b->rule, "kind", kinds[b->kind],
				      "unit", b->unit, "limit", num(b->limit), "worst", num(b->worst),
				      "broken", b->broken, "estimate", num(b->est),
				      "lower", num(b->lo), "upper", num(b->hi));

		json_object_set_new(o, "method", b->how ? json_string(b->how) : json_null());
		if (b->kind == LW_BSEQ_EXCEED)
			json_object_set_new(o, "share", json_pack("{s:f, s:I, s:I}", "allowed", b->q,
				"over", (json_int_t)b->over, "samples", (json_int_t)b->total));
		if (b->why[0])
			json_object_set_new(o, "no_bound", json_string(b->why));
		json_array_append_new(a, o);
	}
	return a;
}

void lw_bseq_free(struct lw_bseq *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->b[i].fig);
		free(s->b[i].exc);
		free(s->b[i].bm);
		free(s->b[i].runlen);
	}
	free(s->b);
	s->b = NULL;
	s->n = 0;
	s->runs = 0;
}
