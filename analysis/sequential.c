// SPDX-License-Identifier: GPL-2.0-only
/* Sequential designs: alpha spent over the looks (analysis/sequential.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "analysis/sequential.h"
#include "lib/error.h"
#include "lib/json.h"
#include "lib/sort.h"

static const char *const spend_names[] = {
	[LW_SEQ_POCOCK] = "pocock",
	[LW_SEQ_OBF] = "obrien-fleming",
	[LW_SEQ_NAIVE] = "naive",
};

static const char *const decision_names[] = {
	[LW_SEQ_CONTINUE] = "continue",
	[LW_SEQ_DIFFERENT] = "different",
	[LW_SEQ_NO_CHANGE] = "no change that matters",
	[LW_SEQ_UNDECIDED] = "undecided",
};

void lw_seq_design_default(struct lw_seq_design *d)
{
	d->spend = LW_SEQ_POCOCK;
	d->alpha = 0.05;
	d->practical = 0.05;
	d->min_runs = 3;
	d->max_runs = 10;
	d->metrics = NULL;
	d->nmetrics = 0;
}

int lw_seq_design_check(const struct lw_seq_design *d)
{
	if (!(d->alpha > 0 && d->alpha < 1))
		return error("sequential design: alpha %g is not in (0, 1)", d->alpha);
	if (!(d->practical >= 0))
		return error("sequential design: practical change %g is negative", d->practical);
	if (d->min_runs < 1 || d->max_runs < d->min_runs)
		return error("sequential design: the fewest runs (%u) must be at least 1 and at most "
			     "the most (%u)", d->min_runs, d->max_runs);
	if ((unsigned)d->spend >= sizeof(spend_names) / sizeof(spend_names[0]))
		return error("sequential design: unknown spending function");
	return 0;
}

const char *lw_seq_spend_name(enum lw_seq_spend s)
{
	return (unsigned)s < sizeof(spend_names) / sizeof(spend_names[0]) ? spend_names[s] : "?";
}

int lw_seq_spend_by_name(const char *name)
{
	/* the naive one is the tests' contrast, not a choice */
	for (int s = 0; s < LW_SEQ_NAIVE; s++)
		if (!strcmp(name, spend_names[s]))
			return s;
	if (!strcmp(name, "obf"))
		return LW_SEQ_OBF;
	return -1;
}

const char *lw_seq_decision_name(enum lw_seq_decision d)
{
	return (unsigned)d < sizeof(decision_names) / sizeof(decision_names[0]) ?
	       decision_names[d] : "?";
}

double lw_seq_spent(enum lw_seq_spend s, double alpha, double t)
{
	if (!(t > 0))
		return 0;
	if (t > 1)
		t = 1;
	switch (s) {
	case LW_SEQ_POCOCK:
		return alpha * log1p((M_E - 1) * t);
	case LW_SEQ_OBF:
		return 2 * gsl_cdf_ugaussian_Q(gsl_cdf_ugaussian_Qinv(alpha / 2) / sqrt(t));
	case LW_SEQ_NAIVE:
		return alpha;
	}
	return 0;
}

double lw_seq_alpha_at(const struct lw_seq_design *d, unsigned runs)
{
	double n = (double)d->max_runs;

	if (runs < d->min_runs || runs > d->max_runs)
		return 0;
	if (d->spend == LW_SEQ_NAIVE)
		return d->alpha;
	if (runs == d->min_runs)
		return lw_seq_spent(d->spend, d->alpha, (double)runs / n);
	return lw_seq_spent(d->spend, d->alpha, (double)runs / n) -
	       lw_seq_spent(d->spend, d->alpha, (double)(runs - 1) / n);
}

/* A tested metric's change and interval on the relative scale, from its
 * between-run test: the interval holding 1 - 2 @tail (t quantile of upper
 * tail @tail).  0: no events on either side (nothing to compare); 1. */
static int rel_interval(const json_t *m, double tail, double *rel, double *lo, double *hi)
{
	const json_t *rt = json_object_get(m, "runs_test");
	double diff = lw_jnum(rt, "diff", NAN), se = lw_jnum(rt, "se", NAN);
	double df = lw_jnum(rt, "df", NAN), base = lw_jnum(rt, "rate_base", NAN), q;
	int rate = !strcmp(lw_jstr(rt, "scale", ""), "rate");

	*rel = *lo = *hi = NAN;
	if (!isfinite(diff) || !isfinite(se))
		return 1;
	q = se > 0 && df > 0 ? gsl_cdf_tdist_Qinv(tail, df) * se : 0;
	if (!rate) {
		*rel = expm1(diff);
		*lo = expm1(diff - q);
		*hi = expm1(diff + q);
		return 1;
	}
	if (base > 0) {
		*rel = diff / base;
		*lo = (diff - q) / base;
		*hi = (diff + q) / base;
		return 1;
	}
	if (diff == 0 && se == 0)
		return 0;	/* no event in any run of either side */
	/* events against none: no relative change can be within anything */
	*rel = *lo = *hi = diff < 0 ? -INFINITY : INFINITY;
	return 1;
}

/* The smallest change the metric's test finds with power 0.8 at @alpha
 * (two-sided), as a fraction. */
static double min_detectable(const json_t *m, double alpha)
{
	const json_t *rt = json_object_get(m, "runs_test");
	struct lw_runs_test t = { .ok = 1, .se = lw_jnum(rt, "se", NAN), .df = lw_jnum(rt, "df", NAN) };
	double mdc = lw_runs_mdc(&t, alpha, LW_SEQ_POWER), base = lw_jnum(rt, "rate_base", NAN);

	if (!strcmp(lw_jstr(rt, "scale", ""), "rate"))
		return base > 0 ? mdc / base : NAN;
	return expm1(mdc);
}

static void take(struct lw_seq_look *l, const json_t *m, double tail, double mdc_alpha)
{
	snprintf(l->metric, sizeof(l->metric), "%s", lw_jstr(m, "name", "?"));
	l->verdict = NULL;
	rel_interval(m, tail, &l->rel, &l->lo, &l->hi);
	l->mdc = min_detectable(m, mdc_alpha);
}

/* Does the comparison's metric @name answer to @w ("cyclic.p99", or "p99"
 * of every probe)? */
static int matches(const char *name, const char *w)
{
	size_t ln = strlen(name), lw = strlen(w);

	return !strcmp(name, w) || (ln > lw && name[ln - lw - 1] == '.' && !strcmp(name + ln - lw, w));
}

/* Is @m among the metrics @d decides on (all when it names none)? */
static int chosen(const struct lw_seq_design *d, const json_t *m)
{
	if (!d->nmetrics)
		return 1;
	for (size_t i = 0; i < d->nmetrics; i++)
		if (matches(lw_jstr(m, "name", ""), d->metrics[i]))
			return 1;
	return 0;
}

int lw_seq_check_metrics(const struct lw_seq_design *d, const json_t *doc)
{
	const json_t *ms = json_object_get(json_array_get(json_object_get(doc, "comparisons"), 0),
					   "metrics"), *m;
	size_t i;

	for (size_t k = 0; k < d->nmetrics; k++) {
		int found = 0;

		json_array_foreach(ms, i, m)
			found |= matches(lw_jstr(m, "name", ""), d->metrics[k]);
		if (!found)
			return error("'%s' is not a metric of this comparison (e.g. p99, "
				     "cyclic.p99.9, cyclic.over:100us, xruns)", d->metrics[k]);
	}
	return 0;
}

struct judged {
	const json_t *m;
	double p, adj;
};

static int cmp_p(const void *a, const void *b)
{
	double x = ((const struct judged *)a)->p, y = ((const struct judged *)b)->p;

	return x < y ? -1 : x > y;
}

/* A judged metric's verdict at @alpha from its Holm-adjusted p @adj (over
 * the metrics decided on): LW_WORSE, LW_BETTER or LW_NSD. */
static const char *verdict_at(const json_t *m, double adj, double alpha, double practical)
{
	const json_t *j = json_object_get(m, "judged_on");
	double v = lw_jnum(j, "value", NAN);

	/* a change from nothing: any change matters (analysis/compare.c) */
	if (!strcmp(lw_jstr(j, "stat", ""), "change"))
		practical = 0;
	if (!(adj < alpha) || !(fabs(v) > practical))
		return LW_NSD;
	return v > 0 ? LW_WORSE : LW_BETTER;
}

int lw_seq_judge(const struct lw_seq_design *d, unsigned runs, const json_t *doc,
		 struct lw_seq_look *out)
{
	const json_t *cmp = json_array_get(json_object_get(doc, "comparisons"), 0);
	const json_t *ms = json_object_get(cmp, "metrics"), *m;
	const json_t *best = NULL, *p99 = NULL, *small = NULL, *wide = NULL;
	double a = lw_seq_alpha_at(d, runs), bestp = INFINITY, widest = -1, smallest = INFINITY;
	double run_max = 0;
	struct judged *t;
	int best_worse = 0;
	size_t i, k = 0;

	memset(out, 0, sizeof(*out));
	out->runs = runs;
	out->alpha_k = a;
	out->rel = out->lo = out->hi = out->mdc = NAN;
	if (!json_is_array(ms))
		return error("sequential look: the comparison document holds no comparison");
	t = malloc((json_array_size(ms) + 1) * sizeof(*t));
	if (!t)
		return error("out of memory");
	/* the tested metrics decided on, Holm over them */
	json_array_foreach(ms, i, m)
		if (strcmp(lw_jstr(m, "verdict", LW_NA), LW_NA) && chosen(d, m) &&
		    json_is_object(json_object_get(m, "judged_on"))) {
			t[k].m = m;
			t[k++].p = lw_jnum(m, "p", NAN);
		}
	lw_qsort(t, k, sizeof(*t), cmp_p);
	for (i = 0; i < k; i++) {
		double adj = (double)(k - i) * t[i].p;

		if (!(adj <= 1))
			adj = 1;
		if (adj > run_max)
			run_max = adj;
		/* every metric: the comparison's own adjustment (Holm, the CPUs
		 * of one figure sharing one weight), else Holm over those named */
		t[i].adj = d->nmetrics ? run_max : lw_jnum(t[i].m, "p_adjusted", NAN);
	}
	out->tested = (unsigned)k;
	for (i = 0; i < k; i++) {
		const char *v = verdict_at(t[i].m, t[i].adj, a, d->practical);
		const char *name = lw_jstr(t[i].m, "name", "");
		double rel, lo, hi, w, md;
		int worse = !strcmp(v, LW_WORSE);

		m = t[i].m;
		if (strcmp(v, LW_NSD)) {
			/* a worse verdict words the decision before a better one */
			if (!best || (worse && !best_worse) || (worse == best_worse && t[i].adj < bestp)) {
				best = m;
				bestp = t[i].adj;
				best_worse = worse;
			}
		}
		md = min_detectable(m, a / (double)k);
		if (!strcmp(lw_jstr(json_object_get(m, "runs_test"), "scale", ""), "log") &&
		    md < smallest) {
			smallest = md;
			small = m;
		}
		if (!p99 && strlen(name) > 4 && !strcmp(name + strlen(name) - 4, ".p99"))
			p99 = m;
		if (!rel_interval(m, a, &rel, &lo, &hi))
			continue;
		if (!(lo >= -d->practical && hi <= d->practical))
			out->outside++;
		w = fmax(fabs(lo), fabs(hi));
		if (!(w <= widest)) {
			widest = w;
			wide = m;
		}
	}
	free(t);
	if (best) {
		out->decision = LW_SEQ_DIFFERENT;
		out->worse = best_worse;
		take(out, best, a / 2, a / (double)k);
		out->verdict = best_worse ? LW_WORSE : LW_BETTER;
	} else if (k && !out->outside) {
		out->decision = LW_SEQ_NO_CHANGE;
		take(out, wide ? wide : p99 ? p99 : small, a, a / (double)k);
	} else {
		out->decision = runs >= d->max_runs ? LW_SEQ_UNDECIDED : LW_SEQ_CONTINUE;
		if (p99 || small)
			take(out, p99 ? p99 : small, a / 2, a / (double)k);
	}
	return 0;
}

int lw_seq_look(const struct lw_seq_design *d, const struct lw_crun *runs, size_t nbase, size_t n,
		const struct lw_cmp_opts *o, struct lw_seq_look *out, json_t **doc)
{
	struct lw_cgroup g[2] = { { "baseline", 0, nbase }, { "runs", nbase, n } };
	struct lw_cmp_opts lo = *o;
	json_t *dj;
	int ret;

	if (lw_seq_design_check(d) < 0)
		return -1;
	if (n < d->min_runs || n > d->max_runs)
		return error("sequential look after %zu runs: looks are after %u to %u runs", n,
			     d->min_runs, d->max_runs);
	lo.alpha = lw_seq_alpha_at(d, (unsigned)n);
	lo.practical = d->practical;
	dj = lw_compare_groups(runs, g, 2, 0, &lo);
	if (!dj)
		return -1;
	ret = lw_seq_judge(d, (unsigned)n, dj, out);
	if (doc && !ret)
		*doc = dj;
	else
		json_decref(dj);
	return ret;
}

int lw_seq_next(const struct lw_seq_design *d, struct lw_seq_state *st,
		const struct lw_seq_look *l)
{
	if (st->stopped)
		return 1;
	if ((l->decision == LW_SEQ_DIFFERENT && l->worse) || l->decision == LW_SEQ_NO_CHANGE) {
		st->final = *l;
		st->stopped = 1;
		return 1;
	}
	if (l->decision == LW_SEQ_DIFFERENT && !st->have_better) {
		st->better = *l;
		st->have_better = 1;
	}
	if (l->runs >= d->max_runs || l->decision == LW_SEQ_UNDECIDED) {
		st->final = st->have_better ? st->better : *l;
		if (!st->have_better)
			st->final.decision = LW_SEQ_UNDECIDED;
		st->stopped = 1;
		return 1;
	}
	return 0;
}

json_t *lw_seq_look_json(const struct lw_seq_look *l)
{
	json_t *j = json_pack("{s:I, s:f, s:s, s:I, s:I}", "runs", (json_int_t)l->runs,
			      "alpha_k", l->alpha_k, "decision", lw_seq_decision_name(l->decision),
			      "tested", (json_int_t)l->tested, "outside_practical",
			      (json_int_t)l->outside);

	if (*l->metric) {
		json_object_set_new(j, "metric", json_string(l->metric));
		json_object_set_new(j, "verdict", lw_jstr_or_null(l->verdict));
		json_object_set_new(j, "rel", lw_jreal(l->rel));
		json_object_set_new(j, "ci_rel", isfinite(l->lo) && isfinite(l->hi) ?
				    lw_jpair(l->lo, l->hi) : json_null());
		json_object_set_new(j, "min_detectable", lw_jreal(l->mdc));
	}
	return j;
}

static void pct(double x, char *b, size_t len)
{
	if (isfinite(x))
		snprintf(b, len, "%.0f", 100 * x);
	else
		snprintf(b, len, "%s", isnan(x) ? "?" : x > 0 ? "inf" : "-inf");
}

void lw_seq_line(const struct lw_seq_look *l, char *buf, size_t len)
{
	char r[16], lo[16], hi[16], md[16];

	pct(fabs(l->rel), r, sizeof(r));
	pct(l->lo, lo, sizeof(lo));
	pct(l->hi, hi, sizeof(hi));
	if (l->mdc > 10)
		snprintf(md, sizeof(md), "more than 1000");	/* as compare words it */
	else
		pct(l->mdc, md, sizeof(md));
	switch (l->decision) {
	case LW_SEQ_DIFFERENT:
		snprintf(buf, len, "decided after %u runs: %s %s by %s %% [%s, %s]", l->runs,
			 l->metric, l->verdict, r, lo, hi);
		break;
	case LW_SEQ_NO_CHANGE:
		snprintf(buf, len, "decided after %u runs: no change that matters (all %u tested "
			 "metrics within the practical change; widest %s [%s, %s] %%)", l->runs,
			 l->tested, l->metric, lo, hi);
		break;
	case LW_SEQ_UNDECIDED:
		if (*l->metric && isfinite(l->mdc))
			snprintf(buf, len, "undecided after %u runs: the smallest change these runs "
				 "can detect is %s %% (%s)", l->runs, md, l->metric);
		else
			snprintf(buf, len, "undecided after %u runs: no metric could be tested",
				 l->runs);
		break;
	case LW_SEQ_CONTINUE:
		snprintf(buf, len, "after %u runs: not decided at alpha %.2g (%u of %u tested metrics "
			 "outside the practical change)", l->runs, l->alpha_k, l->outside, l->tested);
		break;
	}
}
