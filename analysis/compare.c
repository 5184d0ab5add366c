// SPDX-License-Identifier: GPL-2.0-only
/*
 * Judging runs against a baseline: per run its figures with their
 * within-run intervals, per group the worst case from the pooled block
 * maxima, per metric a test between the groups and a verdict (Holm over the
 * metrics).  The runs are loaded by analysis/compare_load.c; the run and
 * group objects of the document are written by analysis/compare_json.c.
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/compare_int.h"
#include "lib/error.h"
#include "lib/json.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/samples.h"
#include "lib/sort.h"
#include "workloads/rkind.h"

/* ---- options ---------------------------------------------------------- */

void lw_cmp_opts_default(struct lw_cmp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->alpha = 0.05;
	o->practical = 0.05;
	o->conf = 0.95;
	o->resamples = 2000;
	o->seed = 1;
	o->block_ns = LW_NSEC_PER_SEC;
	o->horizon_ns = 3600 * LW_NSEC_PER_SEC;
	o->min_blocks = LW_EVT_MIN_BLOCKS;
	o->model = LW_EVT_GEV;
}

int lw_cmp_add_threshold(struct lw_cmp_opts *o, uint64_t ns)
{
	for (size_t i = 0; i < o->nthr; i++)
		if (o->thr[i] == ns)
			return 0;
	if (o->nthr == LW_CMP_MAX_THRESHOLDS)
		return error("at most %d thresholds", LW_CMP_MAX_THRESHOLDS);
	o->thr[o->nthr++] = ns;
	/* kept ascending: the table reads better */
	for (size_t i = o->nthr - 1; i > 0 && o->thr[i] < o->thr[i - 1]; i--) {
		uint64_t t = o->thr[i];
		o->thr[i] = o->thr[i - 1];
		o->thr[i - 1] = t;
	}
	return 0;
}


/* ---- per-run computations ------------------------------------------- */

double lw_cmp_median(const struct lw_dist *d)
{
	return d->n ? (double)lw_dist_percentile(d, 50) : NAN;
}

/* Has the run maxima to take blocks of @block_ns from? */
int lw_cmp_bmax_usable(const struct lw_cprobe *cp, uint64_t block_ns)
{
	return cp->nb && block_ns >= cp->bmax_ns && block_ns % cp->bmax_ns == 0;
}

/* Why a run has no block maxima of @block_ns (into @why), or 0. */
static int bmax_missing(const struct lw_cprobe *cp, uint64_t block_ns, char *why, size_t len)
{
	char w[32], b[32];

	if (!cp->nb) {
		snprintf(why, len, "no time series (a run imported from a histogram)");
		return 1;
	}
	if (!lw_cmp_bmax_usable(cp, block_ns)) {
		snprintf(why, len, "the run keeps its largest latency per %s only (a long run): "
			 "--block %s is not a multiple of it", lw_format_duration(cp->bmax_ns, w, sizeof(w)),
			 lw_format_duration(block_ns, b, sizeof(b)));
		return 1;
	}
	return 0;
}

static int block_maxima(const struct lw_cprobe *cp, uint64_t block_ns, struct pcache *pc)
{
	size_t m = (size_t)(block_ns / cp->bmax_ns), nblk;
	uint64_t *sorted;

	pc->nbm = 0;
	if (!lw_cmp_bmax_usable(cp, block_ns))
		return 0;	/* bmax_missing() says why */
	/* the last stretch holds the last sample and may be partial: left out */
	nblk = (cp->nb - 1) / m;
	pc->bm = malloc((nblk ? nblk : 1) * sizeof(*pc->bm));
	sorted = malloc((nblk ? nblk : 1) * sizeof(*sorted));
	if (!pc->bm || !sorted) {
		free(sorted);
		return error("out of memory");
	}
	for (size_t j = 0; j < nblk; j++) {
		uint64_t mx = 0;

		for (size_t i = j * m; i < (j + 1) * m; i++)
			if (cp->bmax[i] > mx)
				mx = cp->bmax[i];
		if (!mx)
			continue;	/* no sample in the whole block */
		sorted[pc->nbm] = mx - 1;
		pc->bm[pc->nbm++] = (double)(mx - 1);
	}
	lw_sort_u64(sorted, pc->nbm);
	if (lw_dist_from_sorted(&pc->bmd, sorted, pc->nbm) < 0) {
		free(sorted);
		return -1;
	}
	free(sorted);
	return 0;
}

/*
 * The run's own figures with their within-run intervals and the variance of
 * their logs: a moving-block bootstrap (blocks of the run, struct lw_bseries,
 * drawn with replacement, so that bursts stay whole), or, for a run
 * without time order (imported histogram, stored run), the bootstrap of
 * independent samples (order statistics drawn from Beta), labelled so.
 */
static int within_run(struct pcache *pc, const struct lw_cmp_opts *o, uint64_t ident)
{
	const struct lw_cprobe *cp = pc->cp;
	const struct lw_dist *d = &cp->d;
	unsigned R = o->resamples < LW_BOOT_MAX_RESAMPLES ? o->resamples : LW_BOOT_MAX_RESAMPLES;
	double *rep[LW_NPCT + 1] = { 0 }, *buf = NULL;
	struct lw_rng rng = { 0 };
	int ret = -1;

	for (int k = 0; k < NST; k++) {
		pc->val[k] = pc->lo[k] = pc->hi[k] = NAN;
		pc->wvar[k] = 0;
	}
	pc->val[ST_BLOCKMAX] = lw_cmp_median(&pc->bmd);
	if (!d->n)
		return 0;
	for (int k = 0; k < LW_NPCT; k++)
		pc->val[k] = (double)lw_dist_percentile(d, lw_pct[k]);
	pc->val[ST_MEAN] = lw_dist_mean(d);
	if (R < 20)
		R = 20;
	for (int k = 0; k <= LW_NPCT; k++)
		if (!(rep[k] = malloc(R * sizeof(double)))) {
			error("out of memory");
			goto out;
		}
	if (lw_rng_stream(&rng, o->seed, ident, cp->probe, 200) < 0)
		goto out;
	if (cp->bs.nblk >= 2 && cp->bs.n == d->n) {
		/* a resample as counts over the buckets: values known to 1/256
		 * of a power of two (the figure itself is exact), O(buckets of
		 * the blocks drawn) a resample */
		const struct lw_bseries *bs = &cp->bs;
		uint64_t *cnt = calloc(LW_BOOT_NBUCKETS, sizeof(*cnt));

		pc->ci_method = "block bootstrap";
		if (!cnt) {
			error("out of memory");
			goto out;
		}
		for (unsigned r = 0; r < R; r++) {
			uint64_t m = 0, acc = 0, rank[LW_NPCT];
			double sum = 0;
			size_t v = 0;

			memset(cnt, 0, LW_BOOT_NBUCKETS * sizeof(*cnt));
			for (size_t j = 0; j < bs->nblk; j++) {
				size_t b = lw_rng_index(&rng, bs->nblk);

				const struct lw_bblock *k = &bs->blk[b];

				for (uint32_t i = 0; i < k->n; i++) {
					cnt[k->key[i]] += k->cnt[i];
					m += k->cnt[i];
				}
				sum += k->sum;
			}
			if (!m) {
				for (int k = 0; k <= LW_NPCT; k++)
					rep[k][r] = NAN;
				continue;
			}
			for (int k = 0; k < LW_NPCT; k++)
				rank[k] = lw_pct_rank(m, lw_pct[k]);
			for (int k = 0; k < LW_NPCT; k++) {
				while (acc + cnt[v] < rank[k])
					acc += cnt[v++];
				rep[k][r] = lw_boot_value((uint32_t)v);
			}
			rep[LW_NPCT][r] = sum / (double)m;
		}
		free(cnt);
	} else {
		double se = sqrt(lw_dist_var(d) / (double)d->n);

		pc->ci_method = "bootstrap of independent samples (the run has no time order)";
		for (unsigned r = 0; r < R; r++) {
			for (int k = 0; k < LW_NPCT; k++)
				rep[k][r] = (double)lw_boot_percentile(d, lw_pct[k], &rng);
			rep[LW_NPCT][r] = pc->val[ST_MEAN] + se * lw_rng_normal(&rng);
		}
	}
	free(buf);
	if (!(buf = malloc(R * sizeof(double)))) {
		error("out of memory");
		goto out;
	}
	for (int k = 0; k <= LW_NPCT; k++) {
		double mean, var;
		size_t n = 0;

		/* the log's variance, then the interval */
		for (unsigned r = 0; r < R; r++)
			if (rep[k][r] > 0)
				buf[n++] = log(rep[k][r]);
		lw_mean_var(buf, n, &mean, &var);
		pc->wvar[k] = var;
		n = 0;
		for (unsigned r = 0; r < R; r++)
			if (isfinite(rep[k][r]))
				rep[k][n++] = rep[k][r];
		lw_interval(rep[k], n, o->conf, &pc->lo[k], &pc->hi[k]);
	}
	/* a figure read off a histogram is known to its bucket only */
	for (int k = 0; k < LW_NPCT; k++)
		if (pc->val[k] > 0 && d->resolution_ns > 1) {
			double q = (double)d->resolution_ns / pc->val[k];

			if (q * q / 12 > pc->wvar[k])
				pc->wvar[k] = q * q / 12;
		}
	ret = 0;
out:
	for (int k = 0; k <= LW_NPCT; k++)
		free(rep[k]);
	free(buf);
	lw_rng_free(&rng);
	return ret;
}

/* Block maxima per CPU: of 100 ms (where the run keeps them that fine),
 * whose median varies between runs less than the maximum does (see
 * cpu_metrics()). */
#define CPU_BLOCK_NS (100 * LW_NSEC_PER_MSEC)

/* The figures of each CPU of a probe measured on two or more, as of the
 * probe (no worst-case estimate); their within-run spread from the
 * bootstrap of independent samples (a CPU's samples keep no time order). */
static int cpu_fill(struct pcache *pc, const struct lw_cmp_opts *o, uint64_t ident)
{
	const struct lw_cprobe *cp = pc->cp;

	if (cp->ncpu < 2)
		return 0;
	pc->cpu = calloc(cp->ncpu, sizeof(*pc->cpu));
	if (!pc->cpu)
		return error("out of memory");
	pc->ncpu = cp->ncpu;
	for (size_t j = 0; j < cp->ncpu; j++) {
		struct pcache *c = &pc->cpu[j];

		c->cp = &cp->cpu[j];
		c->bm_block_ns = lw_cmp_bmax_usable(c->cp, CPU_BLOCK_NS) ? CPU_BLOCK_NS : o->block_ns;
		if (block_maxima(c->cp, c->bm_block_ns, c) < 0 ||
		    within_run(c, o, ident + 0x9e3779b97f4a7c15ULL * (uint64_t)(c->cp->cpu_id + 1)) < 0)
			return -1;
	}
	return 0;
}

static void pcache_free(struct pcache *pc)
{
	free(pc->bm);
	lw_dist_free(&pc->bmd);
	lw_evt_est_free(&pc->evt);
	for (size_t j = 0; j < pc->ncpu; j++)
		pcache_free(&pc->cpu[j]);
	free(pc->cpu);
}

/* Bootstrap streams are keyed by the run's identity (so a run gets the same
 * intervals whatever it is compared with); a run named twice gets a second
 * stream, or its two copies would be resampled in lockstep. */
static int rcache_fill(struct rcache *rc, const struct lw_crun *r, const struct lw_cmp_opts *o,
		       const struct rcache *before, size_t nbefore)
{
	rc->r = r;
	rc->ident = lw_crun_ident(r);
	for (size_t i = 0; i < nbefore; i++)
		if (before[i].ident == rc->ident) {
			rc->ident += 0x9e3779b97f4a7c15ULL;
			i = (size_t)-1;		/* again, against every earlier one */
		}
	rc->p = calloc(r->np ? r->np : 1, sizeof(*rc->p));
	if (!rc->p)
		return error("out of memory");
	rc->np = r->np;
	for (size_t i = 0; i < r->np; i++) {
		const struct lw_cprobe *cp = &r->p[i];
		struct pcache *pc = &rc->p[i];
		struct lw_rng rng = { 0 };
		int ret;

		pc->cp = cp;
		pc->bm_block_ns = o->block_ns;
		if (block_maxima(cp, o->block_ns, pc) < 0 || within_run(pc, o, rc->ident) < 0 ||
		    cpu_fill(pc, o, rc->ident) < 0)
			return -1;
		if (bmax_missing(cp, o->block_ns, pc->evt.reason, sizeof(pc->evt.reason)))
			continue;
		if (lw_rng_stream(&rng, o->seed, rc->ident, cp->probe, 100) < 0)
			return -1;
		ret = lw_evt_estimate(pc->bm, pc->nbm, o->model,
				      (double)o->horizon_ns / (double)o->block_ns, o->resamples, o->conf,
				      o->min_blocks, &rng, &pc->evt);
		lw_rng_free(&rng);
		if (ret < 0)
			return -1;
	}
	return 0;
}

static void rcache_free(struct rcache *rc)
{
	if (!rc->p)
		return;
	for (size_t i = 0; i < rc->np; i++)
		pcache_free(&rc->p[i]);
	free(rc->p);
	rc->p = NULL;
}

const struct pcache *lw_cmp_rc_probe(const struct rcache *rc, unsigned probe)
{
	for (size_t i = 0; i < rc->np; i++)
		if (rc->p[i].cp->probe == probe)
			return &rc->p[i];
	return NULL;
}

/* Does every run of the group have @probe? */
int lw_cmp_group_has(const struct gview *g, unsigned probe)
{
	for (size_t i = 0; i < g->n; i++)
		if (!lw_cmp_rc_probe(&g->rc[i], probe))
			return 0;
	return g->n > 0;
}

/*
 * The worst case of a group: one extreme-value fit to the block maxima of
 * all its runs pooled; its interval from a two-stage bootstrap (runs drawn
 * with replacement, then each drawn run's block maxima with replacement, the
 * fit repeated), so that it holds the run-to-run spread as well as the
 * spread inside a run.
 */
int lw_cmp_group_evt(const struct gview *g, unsigned probe, const struct lw_cmp_opts *o,
		     uint64_t key, struct lw_evt_est *est)
{
	double m = (double)o->horizon_ns / (double)o->block_ns, *pool, *bs = NULL, *lv = NULL;
	size_t np = 0, maxn = 0;
	struct lw_rng rng = { 0 };
	int ret = -1;

	memset(est, 0, sizeof(*est));
	for (size_t i = 0; i < g->n; i++) {
		const struct pcache *pc = lw_cmp_rc_probe(&g->rc[i], probe);

		np += pc->nbm;
		if (bmax_missing(pc->cp, o->block_ns, est->reason, sizeof(est->reason)))
			return 0;
	}
	pool = malloc((np ? np : 1) * sizeof(*pool));
	if (!pool)
		return error("out of memory");
	np = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct pcache *pc = lw_cmp_rc_probe(&g->rc[i], probe);

		memcpy(pool + np, pc->bm, pc->nbm * sizeof(*pool));
		np += pc->nbm;
	}
	if (lw_rng_stream(&rng, o->seed, key, probe, 300) < 0)
		goto out;
	if (lw_evt_estimate(pool, np, o->model, m, o->resamples, o->conf, o->min_blocks, &rng,
			    est) < 0)
		goto out;
	if (!est->ok || g->n < 2) {
		ret = 0;
		goto out;
	}
	/* two stages: runs, then blocks inside each */
	for (size_t i = 0; i < g->n; i++)
		maxn += lw_cmp_rc_probe(&g->rc[i], probe)->nbm;
	bs = malloc(maxn * g->n * sizeof(*bs));
	lv = malloc((o->resamples ? o->resamples : 1) * sizeof(*lv));
	if (!bs || !lv) {
		error("out of memory");
		goto out;
	}
	{
		size_t nl = 0;

		for (unsigned r = 0; r < o->resamples; r++) {
			struct lw_evt_fit f;
			size_t k = 0;
			int q;

			for (size_t i = 0; i < g->n; i++) {
				const struct pcache *pc = lw_cmp_rc_probe(&g->rc[lw_rng_index(&rng, g->n)], probe);

				for (size_t j = 0; j < pc->nbm; j++)
					bs[k++] = pc->bm[lw_rng_index(&rng, pc->nbm)];
			}
			q = lw_set_quiet(1);	/* a resample without spread: no fit, left out */
			if (lw_evt_fit(o->model, bs, k, &f) == 0) {
				double l = lw_evt_return_level(&f, m);

				if (isfinite(l))
					lv[nl++] = l;
			}
			lw_set_quiet(q);
		}
		lw_interval(lv, nl, o->conf, &est->lo, &est->hi);
	}
	ret = 0;
out:
	free(pool);
	free(bs);
	free(lv);
	lw_rng_free(&rng);
	return ret;
}

/* ---- the metrics of one comparison ---------------------------------- */

static const char *verdict(int significant, double rel, double practical, int lower_better)
{
	if (!significant || !(fabs(rel) > practical))
		return LW_NSD;
	return (rel > 0) == lower_better ? LW_WORSE : LW_BETTER;
}

static double rel_change(double base, double v)
{
	if (!isfinite(base) || !isfinite(v))
		return NAN;
	if (base == 0)
		return v == 0 ? 0 : (v > 0 ? INFINITY : -INFINITY);
	return v / base - 1;
}

/* A metric object with the fields every metric has. */
static json_t *metric(const char *probe, const char *name, const char *kind, const char *unit,
		      double base, double v)
{
	char full[96];
	double rel = rel_change(base, v);
	json_t *m;

	snprintf(full, sizeof(full), "%s%s%s", probe ? probe : "", probe ? "." : "", name);
	m = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o}", "name", full, "kind", kind,
		      "unit", unit, "baseline", lw_jreal(base), "value", lw_jreal(v),
		      "change", lw_jreal(v - base), "rel", lw_jreal(rel));
	if (probe)
		json_object_set_new(m, "probe", json_string(probe));
	if (isinf(rel))
		json_object_set_new(m, "rel_infinite", json_true());
	return m;
}

static void set_verdict(json_t *m, const char *test, double p, const char *v, const char *note)
{
	json_object_set_new(m, "test", json_string(test));
	json_object_set_new(m, "p", lw_jreal(p));
	json_object_set_new(m, "verdict", json_string(v));
	if (note)
		json_object_set_new(m, "note", json_string(note));
}

static json_t *na_metric(json_t *m, const char *note)
{
	set_verdict(m, "none", NAN, LW_NA, note);
	json_object_set_new(m, "judged_on", json_null());
	json_object_set_new(m, "min_detectable", json_null());
	return m;
}

/*
 * "judged_on": the change a verdict is decided on, {"stat", "value",
 * "practical"}: stat is "rel" (value / baseline - 1) or "rate_rel" (the
 * same of rates); a verdict needs |value| > practical.  When the baseline
 * is 0 the relative change is infinite: the stat is then "change" (value -
 * baseline) and any change beyond 0 matters.
 */
static void judged_on(json_t *m, const char *stat, double value, double practical)
{
	if (isinf(value)) {
		stat = "change";
		value = lw_jnum(m, "change", NAN);
		practical = 0;
	}
	json_object_set_new(m, "judged_on", json_pack("{s:s, s:o, s:f}", "stat", stat,
			    "value", lw_jreal(value), "practical", practical));
}

struct cmpctx {
	const struct gview *a, *b;	/* baseline, run */
	const json_t *rj;		/* every run's object */
	size_t fa, fb;			/* first run of each group in rj */
	const struct lw_cmp_opts *o;
};

#define ONE_RUN_NOTE "too few runs for a verdict (one a side): each side's figures and " \
		     "within-run intervals only; repeat the runs (see repeats_needed)"

/* The tentative verdict of a between-run test (holm() decides significance),
 * what it was judged on, and the test for the smallest detectable change. */
static void judge(json_t *m, const struct lw_runs_test *t, const char *stat, double judged,
		  double practical, double rate_base)
{
	if (!t->ok) {
		set_verdict(m, "none", NAN, LW_NA, ONE_RUN_NOTE);
		json_object_set_new(m, "judged_on", json_null());
		json_object_set_new(m, "min_detectable", json_null());
		return;
	}
	set_verdict(m, !strcmp(t->method, "welch") ? "runs-welch" : "runs-prediction", t->p,
		    verdict(1, judged, practical, 1), NULL);
	judged_on(m, stat, judged, practical);
	json_object_set_new(m, "runs_test", json_pack("{s:s, s:o, s:o, s:o, s:s, s:o}",
		"method", t->method, "diff", lw_jreal(t->diff), "se", lw_jreal(t->se), "df", lw_jreal(t->df),
		"scale", rate_base >= 0 ? "rate" : "log", "rate_base", lw_jreal(rate_base)));
}

/* A figure judged on the log scale: percentiles, mean, block maxima, power. */
static void log_metric(json_t *ms, const struct cmpctx *c, unsigned probe, const char *name,
		       const char *kind, const char *unit, const double *x, size_t na, double wa,
		       const double *y, size_t nb, double wb)
{
	struct lw_runs_test t;
	double ma, va, mb, vb;
	json_t *m;

	lw_mean_var(x, na, &ma, &va);
	lw_mean_var(y, nb, &mb, &vb);
	m = metric(probe == UINT_MAX ? NULL : lw_probe_name(probe), name, kind, unit, exp(ma), exp(mb));
	json_object_set_new(m, "runs", json_pack("[I, I]", (json_int_t)na, (json_int_t)nb));
	lw_runs_test(x, na, y, nb, wa, wb, c->o->conf, &t);
	json_object_set_new(m, "ci_rel", t.ok ? lw_jpair(expm1(t.lo), expm1(t.hi)) : json_null());
	judge(m, &t, "rel", expm1(t.diff), c->o->practical, -1);
	json_array_append_new(ms, m);
}

static void stat_metric(json_t *ms, const struct cmpctx *c, unsigned probe, int k,
			const char *name, const char *kind)
{
	double x[LW_CMP_MAX_GROUP_RUNS], y[LW_CMP_MAX_GROUP_RUNS], wa, wb;
	size_t na = lw_cmp_group_logs(c->a, probe, k, x, &wa);
	size_t nb = lw_cmp_group_logs(c->b, probe, k, y, &wb);

	if (na != c->a->n || nb != c->b->n) {
		json_array_append_new(ms, na_metric(metric(lw_probe_name(probe), name, kind, "ns",
			NAN, NAN), "a run has no such figure"));
		return;
	}
	log_metric(ms, c, probe, name, kind, "ns", x, na, wa, y, nb, wb);
}

/* Events in exposures, one rate per run; a run's rate varies at least as a
 * Poisson count does (mean rate / exposure).  A group's figure is the mean
 * count per run ("baseline", "value"); the counts themselves are kept, per
 * run and in total ("per_run", "baseline_total", "total"). */
static void rate_metric(json_t *ms, const struct cmpctx *c, const char *probe, const char *name,
			const uint64_t *xa, const uint64_t *ea, size_t na,
			const uint64_t *xb, const uint64_t *eb, size_t nb)
{
	double ra[LW_CMP_MAX_GROUP_RUNS], rb[LW_CMP_MAX_GROUP_RUNS];
	double ca = 0, cb = 0, mea = 0, meb = 0, mra, mrb, v, rel;
	uint64_t ta = 0, tb = 0;
	json_t *pa = json_array(), *pb = json_array();
	struct lw_runs_test t;
	json_t *m;

	for (size_t i = 0; i < na; i++) {
		ra[i] = ea[i] ? (double)xa[i] / (double)ea[i] : 0;
		ca += (double)xa[i];
		ta += xa[i];
		mea += (double)ea[i];
		json_array_append_new(pa, lw_jint(xa[i]));
	}
	for (size_t i = 0; i < nb; i++) {
		rb[i] = eb[i] ? (double)xb[i] / (double)eb[i] : 0;
		cb += (double)xb[i];
		tb += xb[i];
		meb += (double)eb[i];
		json_array_append_new(pb, lw_jint(xb[i]));
	}
	ca /= (double)na;
	cb /= (double)nb;
	mea /= (double)na;
	meb /= (double)nb;
	lw_mean_var(ra, na, &mra, &v);
	lw_mean_var(rb, nb, &mrb, &v);
	rel = rel_change(mra, mrb);
	m = metric(probe, name, "count", "count", ca, cb);
	json_object_set_new(m, "runs", json_pack("[I, I]", (json_int_t)na, (json_int_t)nb));
	json_object_set_new(m, "baseline_total", lw_jint(ta));
	json_object_set_new(m, "total", lw_jint(tb));
	json_object_set_new(m, "per_run", json_pack("[o, o]", pa, pb));
	json_object_set_new(m, "baseline_rate", lw_jreal(mra));
	json_object_set_new(m, "rate", lw_jreal(mrb));
	json_object_set_new(m, "rate_rel", lw_jreal(rel));
	if (!(mea > 0) || !(meb > 0)) {
		json_array_append_new(ms, na_metric(m, "no exposure (periods, frames or time)"));
		return;
	}
	lw_runs_test(ra, na, rb, nb, mra / mea, mrb / meb, c->o->conf, &t);
	json_object_set_new(m, "ci_rel", t.ok && mra > 0 ? lw_jpair(t.lo / mra, t.hi / mra) : json_null());
	judge(m, &t, "rate_rel", rel, c->o->practical, mra);
	json_array_append_new(ms, m);
}

/* The samples of every run of a group, pooled (for the informational
 * Mann-Whitney of the distributions); *owned when it was built. */
static int pool_dist(const struct gview *g, unsigned probe, struct lw_dist *out, int *owned)
{
	*owned = 0;
	*out = lw_cmp_rc_probe(&g->rc[0], probe)->cp->d;
	for (size_t i = 1; i < g->n; i++) {
		struct lw_dist m;

		if (lw_dist_merge(out, &lw_cmp_rc_probe(&g->rc[i], probe)->cp->d, &m) < 0) {
			if (*owned)
				lw_dist_free(out);
			return -1;
		}
		if (*owned)
			lw_dist_free(out);
		*out = m;
		*owned = 1;
	}
	return 0;
}

/* Per run of @g: samples over @thr in samples, missed periods in periods,
 * or dropped samples in samples. */
enum cnt { CNT_OVER, CNT_MISSED, CNT_DROPPED };

static void probe_counts(const struct gview *g, unsigned probe, enum cnt what, uint64_t thr,
			 uint64_t *x, uint64_t *e)
{
	for (size_t i = 0; i < g->n; i++) {
		const struct lw_cprobe *cp = lw_cmp_rc_probe(&g->rc[i], probe)->cp;

		x[i] = what == CNT_OVER ? lw_dist_count_above(&cp->d, thr) :
		       what == CNT_MISSED ? cp->missed : cp->dropped;
		e[i] = cp->d.n + (what == CNT_MISSED ? cp->missed : what == CNT_DROPPED ? cp->dropped : 0);
	}
}

/* A figure some run of either group does not know, not a number to judge:
 * percentile @k in its histogram's overflow (@what 0), samples over @thr
 * the histogram cannot count (1).  1 with
 * @note naming the run. */
static int unknown_figure(const struct cmpctx *c, unsigned probe, int k, int what, uint64_t thr,
			  char *note, size_t len)
{
	const struct gview *g[2] = { c->a, c->b };

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < g[s]->n; i++) {
			const struct lw_cprobe *cp = lw_cmp_rc_probe(&g[s]->rc[i], probe)->cp;
			const char *run = g[s]->rc[i].r->label;
			uint64_t b;
			int known;

			if (what == 0 && (b = lw_cmp_hist_pct_bound(cp, k))) {
				snprintf(note, len, "not known: %s of %s is in its histogram's overflow "
					 "(%.0f us or more)", lw_stat_names[k], run, (double)b / 1e3);
				return 1;
			}
			if (what == 1 && cp->from_hist &&
			    (lw_hist_count_above(&cp->hist, thr, &known), !known)) {
				snprintf(note, len, "not known: the histogram of %s cannot count the "
					 "samples above %.0f us", run, (double)thr / 1e3);
				return 1;
			}
		}
	return 0;
}

/* The percentiles of @probe, each judged from the runs' figures, or n/a
 * (not known, too few samples beyond it). */
static void pct_metrics(json_t *ms, const struct cmpctx *c, unsigned probe)
{
	const char *pn = lw_probe_name(probe);
	size_t na = c->a->n, nb = c->b->n;
	char note[200];

	for (int k = 0; k < LW_NPCT; k++) {
		double tail = 1 - lw_pct[k] / 100;
		uint64_t fewest = UINT64_MAX;

		if (unknown_figure(c, probe, k, 0, 0, note, sizeof(note))) {
			json_array_append_new(ms, na_metric(metric(pn, lw_stat_names[k], "percentile", "ns",
				NAN, NAN), note));
			continue;
		}

		for (size_t i = 0; i < na + nb; i++) {
			uint64_t n = (i < na ? lw_cmp_rc_probe(&c->a->rc[i], probe) :
				      lw_cmp_rc_probe(&c->b->rc[i - na], probe))->cp->d.n;

			if (n < fewest)
				fewest = n;
		}
		if ((double)fewest * tail < 10) {
			double x[LW_CMP_MAX_GROUP_RUNS], y[LW_CMP_MAX_GROUP_RUNS], w, ma, mb, v;
			size_t nx = lw_cmp_group_logs(c->a, probe, k, x, &w);
			size_t ny = lw_cmp_group_logs(c->b, probe, k, y, &w);

			lw_mean_var(x, nx, &ma, &v);
			lw_mean_var(y, ny, &mb, &v);
			snprintf(note, sizeof(note), "fewer than 10 samples beyond %s in a run: not tested",
				 lw_stat_names[k]);
			json_array_append_new(ms, na_metric(metric(pn, lw_stat_names[k], "percentile", "ns",
				exp(ma), exp(mb)), note));
			continue;
		}
		stat_metric(ms, c, probe, k, lw_stat_names[k], "percentile");
	}
}

/* The largest latency (shown), the median of the block maxima (judged) and
 * the extrapolated worst case (shown) of @probe. */
static void extreme_metrics(json_t *ms, const struct cmpctx *c, unsigned probe, const json_t *ga,
			    const json_t *gb)
{
	const struct lw_cmp_opts *o = c->o;
	const char *pn = lw_probe_name(probe);
	size_t na = c->a->n, nb = c->b->n;
	json_t *m, *wa, *wb;
	char note[200];

	m = metric(pn, "max", "max", "ns", lw_jnum(json_object_get(json_object_get(ga, "probes"), pn),
		   "max_ns", NAN), lw_jnum(json_object_get(json_object_get(gb, "probes"), pn), "max_ns", NAN));
	json_array_append_new(ms, na_metric(m, "a single extreme is not tested: see blockmax and worst"));

	{
		size_t fewest = SIZE_MAX;

		for (size_t i = 0; i < na + nb; i++) {
			size_t n = (i < na ? lw_cmp_rc_probe(&c->a->rc[i], probe) :
				    lw_cmp_rc_probe(&c->b->rc[i - na], probe))->nbm;

			if (n < fewest)
				fewest = n;
		}
		if (fewest < 10) {
			snprintf(note, sizeof(note), "%zu blocks in a run: at least 10 needed", fewest);
			m = metric(pn, "blockmax", "block-maxima", "ns", NAN, NAN);
			json_object_set_new(m, "block_ns", lw_jint(o->block_ns));
			json_array_append_new(ms, na_metric(m, note));
		} else {
			stat_metric(ms, c, probe, ST_BLOCKMAX, "blockmax", "block-maxima");
			json_object_set_new(json_array_get(ms, json_array_size(ms) - 1), "block_ns",
					    lw_jint(o->block_ns));
		}
	}

	wa = json_object_get(json_object_get(json_object_get(ga, "probes"), pn), "worst_case");
	wb = json_object_get(json_object_get(json_object_get(gb, "probes"), pn), "worst_case");
	m = metric(pn, "worst", "worst-case", "ns", lw_jnum(wa, "return_level_ns", NAN),
		   lw_jnum(wb, "return_level_ns", NAN));
	json_object_set_new(m, "horizon_ns", lw_jint(o->horizon_ns));
	if (!json_is_true(json_object_get(wa, "estimated")) ||
	    !json_is_true(json_object_get(wb, "estimated"))) {
		snprintf(note, sizeof(note), "not extrapolated: %s: %s",
			 json_is_true(json_object_get(wa, "estimated")) ? "run" : "baseline",
			 json_string_value(json_object_get(json_is_true(json_object_get(wa, "estimated")) ?
				 wb : wa, "reason")) ?: "?");
		na_metric(m, note);
	} else {
		json_object_set_new(m, "ci_ns", json_pack("[O, O]", json_object_get(wa, "ci_ns"),
							  json_object_get(wb, "ci_ns")));
		na_metric(m, "an extrapolation: shown with each group's interval (runs and blocks "
			  "resampled), not judged; rules can judge it");
	}
	json_array_append_new(ms, m);
}

/* The whole distributions of @probe, every sample pooled: shown, not judged. */
static int distribution_metric(json_t *ms, const struct cmpctx *c, unsigned probe)
{
	const char *pn = lw_probe_name(probe);
	struct lw_dist da, db;
	int oa, ob;
	struct lw_mwu u;
	json_t *m;

	if (pool_dist(c->a, probe, &da, &oa) < 0)
		return -1;
	if (pool_dist(c->b, probe, &db, &ob) < 0) {
		if (oa)
			lw_dist_free(&da);
		return -1;
	}
	lw_mwu(&da, &db, &u);
	m = metric(pn, "distribution", "distribution", "ns", lw_cmp_median(&da), lw_cmp_median(&db));
	json_object_set_new(m, "u_b", lw_jreal(u.u_b));
	json_object_set_new(m, "z", lw_jreal(u.z));
	json_object_set_new(m, "mwu_p", lw_jreal(u.p));
	json_object_set_new(m, "cliffs_delta", lw_jreal(u.cliffs_delta));
	json_object_set_new(m, "prob_superiority", lw_jreal(u.ps));
	na_metric(m, "every sample pooled, shown, not judged: samples inside a run are dependent "
		  "(the percentiles are judged from per-run figures)");
	json_array_append_new(ms, m);
	if (oa)
		lw_dist_free(&da);
	if (ob)
		lw_dist_free(&db);
	return 0;
}

/* The counts of @probe: samples over each threshold, missed periods, dropped
 * samples, as rates over the runs. */
static void count_metrics(json_t *ms, const struct cmpctx *c, unsigned probe)
{
	const struct lw_cmp_opts *o = c->o;
	const char *pn = lw_probe_name(probe);
	uint64_t xa[LW_CMP_MAX_GROUP_RUNS], ea[LW_CMP_MAX_GROUP_RUNS];
	uint64_t xb[LW_CMP_MAX_GROUP_RUNS], eb[LW_CMP_MAX_GROUP_RUNS];
	size_t na = c->a->n, nb = c->b->n;
	json_t *m;
	char name[48], note[200];

	for (size_t t = 0; t < o->nthr; t++) {
		char d[32];

		snprintf(name, sizeof(name), "over:%s", lw_format_threshold(o->thr[t], d, sizeof(d)));
		if (unknown_figure(c, probe, -1, 1, o->thr[t], note, sizeof(note))) {
			m = metric(pn, name, "count", "count", NAN, NAN);
			json_object_set_new(m, "threshold_ns", lw_jint(o->thr[t]));
			json_array_append_new(ms, na_metric(m, note));
			continue;
		}
		probe_counts(c->a, probe, CNT_OVER, o->thr[t], xa, ea);
		probe_counts(c->b, probe, CNT_OVER, o->thr[t], xb, eb);
		rate_metric(ms, c, pn, name, xa, ea, na, xb, eb, nb);
		json_object_set_new(json_array_get(ms, json_array_size(ms) - 1), "threshold_ns",
				    lw_jint(o->thr[t]));
	}
	{
		int ka = 1, kb = 1;

		for (size_t i = 0; i < na; i++)
			ka &= lw_cmp_missed_known(c->a->rc[i].r, probe);
		for (size_t i = 0; i < nb; i++)
			kb &= lw_cmp_missed_known(c->b->rc[i].r, probe);
		if (!ka || !kb) {
			/* the side that counted them shows its count */
			uint64_t ta = 0, tb = 0;

			probe_counts(c->a, probe, CNT_MISSED, 0, xa, ea);
			probe_counts(c->b, probe, CNT_MISSED, 0, xb, eb);
			for (size_t i = 0; i < na; i++)
				ta += xa[i];
			for (size_t i = 0; i < nb; i++)
				tb += xb[i];
			m = metric(pn, "missed", "count", "count", ka ? (double)ta / (double)na : NAN,
				   kb ? (double)tb / (double)nb : NAN);
			json_object_set_new(m, "runs", json_pack("[I, I]", (json_int_t)na, (json_int_t)nb));
			json_object_set_new(m, "baseline_total", ka ? lw_jint(ta) : json_null());
			json_object_set_new(m, "total", kb ? lw_jint(tb) : json_null());
			json_array_append_new(ms, na_metric(m, !ka && !kb ? "unknown: the runs did not "
				"count missed periods (imported)" : !ka ? "unknown: the baseline did not "
				"count missed periods (imported)" : "unknown: the run did not count missed "
				"periods (imported)"));
		} else {
			probe_counts(c->a, probe, CNT_MISSED, 0, xa, ea);
			probe_counts(c->b, probe, CNT_MISSED, 0, xb, eb);
			rate_metric(ms, c, pn, "missed", xa, ea, na, xb, eb, nb);
		}
	}
	probe_counts(c->a, probe, CNT_DROPPED, 0, xa, ea);
	probe_counts(c->b, probe, CNT_DROPPED, 0, xb, eb);
	rate_metric(ms, c, pn, "dropped", xa, ea, na, xb, eb, nb);
}

static int probe_metrics(json_t *ms, const struct cmpctx *c, unsigned probe, const json_t *ga,
			 const json_t *gb)
{
	const char *pn = lw_probe_name(probe);
	size_t na = c->a->n, nb = c->b->n;
	int empty = 0;

	for (size_t i = 0; i < na; i++)
		empty |= !lw_cmp_rc_probe(&c->a->rc[i], probe)->cp->d.n;
	for (size_t i = 0; i < nb; i++)
		empty |= !lw_cmp_rc_probe(&c->b->rc[i], probe)->cp->d.n;
	if (empty) {
		json_array_append_new(ms, na_metric(metric(pn, "distribution", "distribution", "ns",
							   NAN, NAN), "a run has no samples"));
		return 0;
	}
	pct_metrics(ms, c, probe);
	stat_metric(ms, c, probe, ST_MEAN, "mean", "mean");
	extreme_metrics(ms, c, probe, ga, gb);
	if (distribution_metric(ms, c, probe) < 0)
		return -1;
	count_metrics(ms, c, probe);
	return 0;
}

/* ---- per CPU ------------------------------------------------------- */

/*
 * A change on one CPU is diluted in the figures over all CPUs: each CPU of
 * a probe measured on two or more is judged as well, in the same Holm
 * family as every other metric (so the chance of any false verdict stays
 * below alpha however many CPUs there are).  Per CPU, of two figures that
 * answer one question the one that varies less between runs is judged
 * (measured on this project's runs, bench/percpu-detection; doc/latwatt.1):
 * the tail by p99 (not the rates over the thresholds, shown), the extremes
 * by the median of the 100 ms block maxima (not the largest latency).
 * Shown in the document: the CPUs with a verdict, and the worst CPU of
 * each figure ("per_cpu" counts what was tested).
 */
#define CPU_PCT 2		/* p99 in lw_pct */
#define CPU_RATES_NOTE "shown per CPU, not judged: the rate over a threshold varies between runs " \
		       "2 to 7 times as much as p99, which answers the same question and is judged"

static const struct pcache *cpu_pc(const struct pcache *pc, int cpu)
{
	for (size_t j = 0; pc && j < pc->ncpu; j++)
		if (pc->cpu[j].cp->cpu_id == cpu)
			return &pc->cpu[j];
	return NULL;
}

/* Why @probe has no per-CPU figures in some run of either group, or NULL. */
static const char *cpu_missing(const struct cmpctx *c, unsigned probe)
{
	const struct gview *g[2] = { c->a, c->b };

	if (!lw_probe_wakeup(probe) && !lw_probe_gaps(probe))
		return "end-to-end latencies of a pipeline, not of one CPU";
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < g[s]->n; i++) {
			const struct lw_cprobe *cp = lw_cmp_rc_probe(&g[s]->rc[i], probe)->cp;

			if (cp->ncpu == 1)
				return "one CPU measured: its figures are those over all CPUs";
			if (!cp->ncpu)
				return cp->no_cpu ? cp->no_cpu : "the run has no per-CPU figures";
		}
	return NULL;
}

/* Does every run of @g have CPU @cpu with samples of @probe? */
static int cpu_in_group(const struct gview *g, unsigned probe, int cpu)
{
	for (size_t i = 0; i < g->n; i++) {
		const struct pcache *pc = cpu_pc(lw_cmp_rc_probe(&g->rc[i], probe), cpu);

		if (!pc || !pc->cp->d.n)
			return 0;
	}
	return 1;
}

/* The metrics appended since @from: named PROBE.cpuN.NAME, with "cpu". */
static void cpu_rename(json_t *ms, size_t from, const char *pn, int cpu)
{
	for (size_t i = from; i < json_array_size(ms); i++) {
		json_t *m = json_array_get(ms, i);
		const char *name = json_string_value(json_object_get(m, "name"));
		char full[128];

		snprintf(full, sizeof(full), "%s.cpu%d.%s", pn, cpu, name + strlen(pn) + 1);
		json_object_set_new(m, "name", json_string(full));
		json_object_set_new(m, "cpu", json_integer(cpu));
	}
}

/* The per-CPU metrics of @probe into @ms; its "per_cpu" entry into @pj. */
static void cpu_metrics(json_t *ms, const struct cmpctx *c, unsigned probe, json_t *pj)
{
	const char *pn = lw_probe_name(probe), *why = cpu_missing(c, probe);
	const struct lw_cprobe *cp0 = lw_cmp_rc_probe(&c->a->rc[0], probe)->cp;
	struct rcache va[LW_CMP_MAX_GROUP_RUNS], vb[LW_CMP_MAX_GROUP_RUNS];
	uint64_t xa[LW_CMP_MAX_GROUP_RUNS], ea[LW_CMP_MAX_GROUP_RUNS];
	uint64_t xb[LW_CMP_MAX_GROUP_RUNS], eb[LW_CMP_MAX_GROUP_RUNS];
	json_t *cpus = json_array(), *e;
	char note[200];

	e = json_pack("{s:s}", "probe", pn);
	json_array_append_new(pj, e);
	for (size_t j = 0; !why && j < cp0->ncpu; j++) {
		int cpu = cp0->cpu[j].cpu_id;
		struct gview ga = *c->a, gb = *c->b;
		struct cmpctx cc = *c;
		size_t from = json_array_size(ms), fewest = SIZE_MAX;
		uint64_t fewest_n = UINT64_MAX;

		if (!cpu_in_group(c->a, probe, cpu) || !cpu_in_group(c->b, probe, cpu))
			continue;	/* not measured in every run */
		for (size_t i = 0; i < c->a->n + c->b->n; i++) {
			const struct rcache *rc = i < c->a->n ? &c->a->rc[i] : &c->b->rc[i - c->a->n];
			struct rcache *v = i < c->a->n ? &va[i] : &vb[i - c->a->n];

			*v = *rc;
			v->p = (struct pcache *)cpu_pc(lw_cmp_rc_probe(rc, probe), cpu);
			v->np = 1;
			fewest = v->p->nbm < fewest ? v->p->nbm : fewest;
			fewest_n = v->p->cp->d.n < fewest_n ? v->p->cp->d.n : fewest_n;
		}
		ga.rc = va;
		gb.rc = vb;
		cc.a = &ga;
		cc.b = &gb;
		json_array_append_new(cpus, json_integer(cpu));

		if ((double)fewest_n * (1 - lw_pct[CPU_PCT] / 100) < 10) {
			snprintf(note, sizeof(note), "fewer than 10 samples beyond %s in a run: not tested",
				 lw_stat_names[CPU_PCT]);
			json_array_append_new(ms, na_metric(metric(pn, lw_stat_names[CPU_PCT], "percentile",
				"ns", NAN, NAN), note));
		} else {
			stat_metric(ms, &cc, probe, CPU_PCT, lw_stat_names[CPU_PCT], "percentile");
		}
		if (fewest < 10) {
			json_t *m = metric(pn, "blockmax", "block-maxima", "ns", NAN, NAN);

			snprintf(note, sizeof(note), "%zu blocks in a run: at least 10 needed", fewest);
			json_array_append_new(ms, na_metric(m, note));
		} else {
			stat_metric(ms, &cc, probe, ST_BLOCKMAX, "blockmax", "block-maxima");
		}
		json_object_set_new(json_array_get(ms, json_array_size(ms) - 1), "block_ns",
				    lw_jint(va[0].p->bm_block_ns));
		for (size_t t = 0; t < c->o->nthr; t++) {
			char name[48], d[32];
			json_t *m;

			snprintf(name, sizeof(name), "over:%s",
				 lw_format_threshold(c->o->thr[t], d, sizeof(d)));
			probe_counts(&ga, probe, CNT_OVER, c->o->thr[t], xa, ea);
			probe_counts(&gb, probe, CNT_OVER, c->o->thr[t], xb, eb);
			rate_metric(ms, &cc, pn, name, xa, ea, ga.n, xb, eb, gb.n);
			m = json_array_get(ms, json_array_size(ms) - 1);
			json_object_set_new(m, "threshold_ns", lw_jint(c->o->thr[t]));
			json_object_del(m, "runs_test");
			json_object_del(m, "ci_rel");
			na_metric(m, CPU_RATES_NOTE);
		}
		cpu_rename(ms, from, pn, cpu);
	}
	if (why)
		json_object_set_new(e, "note", json_string(why));
	json_object_set_new(e, "cpus", cpus);
}

/* The judged change of a metric, larger is worse; -inf when none. */
static double worseness(const json_t *m)
{
	double v = lw_jnum(json_object_get(m, "judged_on"), "value", NAN);

	if (!isfinite(v))
		v = lw_jnum(m, json_object_get(m, "rate_rel") ? "rate_rel" : "rel", NAN);
	return isnan(v) ? -INFINITY : v;
}

/* After Holm: of each per-CPU figure of a probe, only the CPUs with a
 * verdict and the worst CPU stay in @ms; "tested" and "shown" of each
 * probe's entry of @pj count them. */
static void cpu_prune(json_t *ms, json_t *pj)
{
	json_t *out = json_array(), *m, *e, *o;
	size_t i, k;

	json_array_foreach(ms, i, m) {
		const char *name = json_string_value(json_object_get(m, "name"));
		const char *pn = json_string_value(json_object_get(m, "probe"));
		const char *v = json_string_value(json_object_get(m, "verdict"));
		const char *stat;
		int keep = 1;

		if (!json_object_get(m, "cpu") || !pn || !(stat = strchr(name + strlen(pn) + 1, '.'))) {
			json_array_append(out, m);
			continue;
		}
		e = NULL;
		json_array_foreach(pj, k, o)
			if (!strcmp(json_string_value(json_object_get(o, "probe")), pn))
				e = o;
		if (!e) {	/* not made by cpu_metrics() */
			json_array_append(out, m);
			continue;
		}
		json_object_set_new(e, "tested", json_integer(json_integer_value(json_object_get(e,
				    "tested")) + (strcmp(v, LW_NA) != 0)));
		if (strcmp(v, LW_WORSE) && strcmp(v, LW_BETTER)) {
			/* the worst of this figure's CPUs (the first of equals) */
			size_t j;

			json_array_foreach(ms, j, o) {
				const char *on = json_string_value(json_object_get(o, "name"));
				const char *os;

				if (o == m || !json_object_get(o, "cpu") ||
				    strcmp(json_string_value(json_object_get(o, "probe")) ?: "", pn) ||
				    !(os = strchr(on + strlen(pn) + 1, '.')) || strcmp(os, stat))
					continue;
				if (worseness(o) > worseness(m) || (worseness(o) == worseness(m) && j < i)) {
					keep = 0;
					break;
				}
			}
		}
		if (keep) {
			json_array_append(out, m);
			json_object_set_new(e, "shown", json_integer(json_integer_value(json_object_get(e,
					    "shown")) + 1));
		}
	}
	json_array_clear(ms);
	json_array_extend(ms, out);
	json_decref(out);
	json_array_foreach(pj, k, e) {
		if (!json_object_get(e, "tested"))
			json_object_set_new(e, "tested", json_integer(0));
		if (!json_object_get(e, "shown"))
			json_object_set_new(e, "shown", json_integer(0));
	}
}

static uint64_t geti(const json_t *o, const char *k, int *have)
{
	json_t *v = json_object_get(o, k);

	*have = json_is_integer(v);
	return *have ? (uint64_t)json_integer_value(v) : 0;
}

/* A record kind's misses (xruns, dropped frames): events in exposures
 * (periods, frames; the run's duration in ms when those are unknown), one
 * rate per run. */
static void event_metric(json_t *ms, const struct cmpctx *c, const char *name, const char *key,
			 const char *exposure)
{
	uint64_t x[2][LW_CMP_MAX_GROUP_RUNS], e[2][LW_CMP_MAX_GROUP_RUNS];
	size_t n[2] = { c->a->n, c->b->n }, first[2] = { c->fa, c->fb };
	int missing[2] = { 0, 0 };

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < n[s]; i++) {
			const json_t *r = json_array_get(c->rj, first[s] + i);
			const json_t *w = json_object_get(r, "workloads");
			int hx, he, hd;

			x[s][i] = geti(w, key, &hx);
			e[s][i] = geti(w, exposure, &he);
			if (!hx)
				missing[s] = 1;
			if (!he || !e[s][i])
				e[s][i] = geti(r, "duration_ns", &hd) / LW_NSEC_PER_MSEC;
		}
	if (missing[0] || missing[1]) {
		json_array_append_new(ms, na_metric(metric(NULL, name, "count", "count", NAN, NAN),
			missing[0] && missing[1] ? "not recorded" : missing[0] ?
			"not recorded in the baseline" : "not recorded in the run"));
		return;
	}
	rate_metric(ms, c, NULL, name, x[0], e[0], n[0], x[1], e[1], n[1]);
}

static void power_metric(json_t *ms, const struct cmpctx *c)
{
	double v[2][LW_CMP_MAX_GROUP_RUNS], fl[2] = { 0, 0 };
	size_t n[2] = { c->a->n, c->b->n }, first[2] = { c->fa, c->fb };
	int missing[2] = { 0, 0 };

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < n[s]; i++) {
			const json_t *p = json_object_get(json_array_get(c->rj, first[s] + i), "power");
			double w = lw_jnum(p, "mean_w", NAN), sd = lw_jnum(p, "stddev_w", NAN);
			double k = lw_jnum(p, "samples", NAN);

			if (!(w > 0)) {
				missing[s] = 1;
				continue;
			}
			v[s][i] = log(w);
			/* what the run's own average varies by, as a floor */
			if (sd > 0 && k > 1)
				fl[s] += sd * sd / (w * w * k) / (double)n[s];
		}
	if (missing[0] || missing[1]) {
		json_array_append_new(ms, na_metric(metric(NULL, "power", "power", "W", NAN, NAN),
						    "not recorded"));
		return;
	}
	log_metric(ms, c, UINT_MAX, "power", "power", "W", v[0], n[0], fl[0], v[1], n[1], fl[1]);
}

/* idle residency and spike causes: the groups' mean shares side by side,
 * neither direction better */
static void share_metrics(json_t *ms, const struct cmpctx *c, const char *key, const char *prefix)
{
	json_t *sum[2] = { json_object(), json_object() };
	size_t n[2] = { c->a->n, c->b->n }, first[2] = { c->fa, c->fb };
	int any = 0;
	const char *k;
	json_t *v;
	char name[96];

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < n[s]; i++) {
			const json_t *o = json_object_get(json_array_get(c->rj, first[s] + i), key);

			if (!json_is_object(o))
				continue;
			any = 1;
			json_object_foreach((json_t *)o, k, v) {
				double before = lw_jnum(sum[s], k, NAN);

				json_object_set_new(sum[s], k, json_real((isfinite(before) ? before : 0) +
						    json_number_value(v) / (double)n[s]));
			}
		}
	if (!any) {
		json_array_append_new(ms, na_metric(metric(NULL, prefix, "info", "fraction", NAN, NAN),
						    "not recorded"));
	} else {
		for (int pass = 0; pass < 2; pass++)
			json_object_foreach(sum[pass], k, v) {
				if (pass && json_object_get(sum[0], k))
					continue;
				snprintf(name, sizeof(name), "%s:%s", prefix, k);
				json_array_append_new(ms, na_metric(metric(NULL, name, "info", "fraction",
					lw_jnum(sum[0], k, NAN), lw_jnum(sum[1], k, NAN)),
					"informational: neither direction is better"));
			}
	}
	json_decref(sum[0]);
	json_decref(sum[1]);
}

struct tested {
	json_t *m;
	double p;
	double w;		/* its weight in Holm's family */
};

static int cmp_tested(const void *a, const void *b)
{
	const struct tested *x = a, *y = b;
	double u = x->p / x->w, v = y->p / y->w;

	return u < v ? -1 : u > v;
}

/* The statistic a per-CPU metric judges ("p99" of "cyclic.cpu1.p99"), or
 * NULL for a metric over all CPUs. */
static const char *cpu_stat(const json_t *m)
{
	const char *name = json_string_value(json_object_get(m, "name"));
	const char *pn = json_string_value(json_object_get(m, "probe"));

	if (!json_object_get(m, "cpu") || !pn || !name)
		return NULL;
	return strchr(name + strlen(pn) + 1, '.');
}

/*
 * Holm's step-down adjustment over the tested metrics of one comparison, so
 * that the chance of any verdict at all between two groups of runs of one
 * system stays below alpha (a comparison tests a dozen metrics or more).
 * Weighted (Holm 1979): the per-CPU metrics of one figure of a probe share
 * the weight of one metric (each CPU's p99 1/N of it with N CPUs), every
 * other metric weighs 1; a metric is significant while its p is below
 * alpha times its weight over the weight of those not yet rejected, so
 * judging per CPU costs the metrics over all CPUs little power however
 * many CPUs there are.  With equal weights this is Holm's own.
 * Adds "p_adjusted", turns verdicts whose adjusted p is not below alpha into
 * "no significant difference", and gives each tested metric the smallest
 * change it would have found (power 0.8 at alpha times its share of the
 * weight, the first step of Holm's) and the runs a side that would find a
 * --practical change at the spread seen (runs_needed()).
 */
/* The design's power at the spread observed: runs a side for the test to
 * find a @practical change with probability POWER at @alpha (normal
 * approximation, as lw_runs_needed()), one run's spread taken from the
 * standard error of the runs it had.  Null when it cannot be said. */
static json_t *runs_needed(const json_t *m, int rate, double base, double alpha, double practical)
{
	const json_t *rt = json_object_get(m, "runs_test"), *runs = json_object_get(m, "runs");
	double se = lw_jnum(rt, "se", NAN), na = (double)json_integer_value(json_array_get(runs, 0));
	double nb = (double)json_integer_value(json_array_get(runs, 1));
	double delta = rate ? practical * base : log1p(practical);

	if (!(se > 0) || !(na > 0) || !(nb > 0) || !(delta > 0))
		return json_null();
	return json_integer(lw_runs_needed(se / sqrt(1 / na + 1 / nb), delta, alpha, POWER));
}

static int holm(json_t *ms, double alpha, double practical)
{
	size_t n = json_array_size(ms), k = 0, i;
	struct tested *t = malloc((n ? n : 1) * sizeof(*t));
	double run_max = 0, left = 0, total;
	json_t *m;

	if (!t)
		return error("out of memory");
	json_array_foreach(ms, i, m) {
		json_t *p = json_object_get(m, "p");

		if (!strcmp(json_string_value(json_object_get(m, "verdict")), LW_NA) || !json_is_number(p))
			continue;
		t[k].m = m;
		t[k].w = 1;
		t[k++].p = json_number_value(p);
	}
	/* the CPUs of one figure of a probe share one weight */
	for (i = 0; i < k; i++) {
		const char *st = cpu_stat(t[i].m), *pn;
		size_t same = 0;

		if (!st)
			continue;
		pn = json_string_value(json_object_get(t[i].m, "probe"));
		for (size_t j = 0; j < k; j++) {
			const char *sj = cpu_stat(t[j].m);

			same += sj && !strcmp(sj, st) &&
				!strcmp(json_string_value(json_object_get(t[j].m, "probe")), pn);
		}
		t[i].w = 1.0 / (double)same;
	}
	for (i = 0; i < k; i++)
		left += t[i].w;
	total = left;
	lw_qsort(t, k, sizeof(*t), cmp_tested);
	for (i = 0; i < k; i++) {
		double adj = t[i].p * left / t[i].w, a = alpha * t[i].w / total;
		const json_t *rt = json_object_get(t[i].m, "runs_test");
		struct lw_runs_test rtest = { .ok = 1, .se = lw_jnum(rt, "se", NAN),
					      .df = lw_jnum(rt, "df", NAN) };
		double mdc = lw_runs_mdc(&rtest, a, POWER), base = lw_jnum(rt, "rate_base", NAN);
		int rate = !strcmp(json_string_value(json_object_get(rt, "scale")) ?: "", "rate");

		left -= t[i].w;
		if (adj > 1)
			adj = 1;
		if (adj > run_max)
			run_max = adj;
		json_object_set_new(t[i].m, "p_adjusted", json_real(run_max));
		if (!(run_max < alpha))
			json_object_set_new(t[i].m, "verdict", json_string(LW_NSD));
		json_object_set_new(t[i].m, "min_detectable", json_pack("{s:s, s:o, s:f, s:f, s:o}",
			"stat", rate ? "rate_rel" : "rel",
			"value", rate ? (base > 0 ? lw_jreal(mdc / base) : json_null()) : lw_jreal(expm1(mdc)),
			"power", POWER, "alpha", a,
			"runs_needed", runs_needed(t[i].m, rate, base, a, practical)));
	}
	free(t);
	return 0;
}

/* With one run a side, how many runs a side would find a --practical change
 * of the percentiles and the mean: from what a run varies within itself, a
 * lower bound (runs also differ from one another). */
static unsigned repeats_needed(const struct cmpctx *c, const unsigned *probes, size_t np)
{
	unsigned need = 3;
	size_t tested = 0;

	for (size_t p = 0; p < np; p++)
		tested += LW_NPCT + 1;
	for (size_t p = 0; p < np; p++)
		for (int k = 0; k <= ST_MEAN; k++) {
			double x[LW_CMP_MAX_GROUP_RUNS], wa, wb;
			unsigned r;

			if (k < LW_NPCT && (double)lw_cmp_rc_probe(&c->a->rc[0], probes[p])->cp->d.n *
			    (1 - lw_pct[k] / 100) < 10)
				continue;
			lw_cmp_group_logs(c->a, probes[p], k, x, &wa);
			lw_cmp_group_logs(c->b, probes[p], k, x, &wb);
			r = lw_runs_needed(sqrt(wa > wb ? wa : wb), log1p(c->o->practical),
					   c->o->alpha / (double)(tested ? tested : 1), POWER);
			if (r > need)
				need = r;
		}
	return need;
}

static json_t *comparison_json(const struct cmpctx *c, const json_t *ga, const json_t *gb,
			       size_t ib, size_t ir)
{
	json_t *ms = json_array(), *cj, *pcpu = json_array();
	const struct lw_crun *r0 = c->a->rc[0].r;
	const struct lw_rkind *k;
	unsigned probes[LW_SAMPLE_MAX];
	size_t np = 0;
	struct lw_runs_test t;
	double one = 0;

	for (size_t i = 0; i < r0->np; i++)
		if (lw_cmp_group_has(c->a, r0->p[i].probe) && lw_cmp_group_has(c->b, r0->p[i].probe)) {
			if (probe_metrics(ms, c, r0->p[i].probe, ga, gb) < 0) {
				json_decref(ms);
				json_decref(pcpu);
				return NULL;
			}
			cpu_metrics(ms, c, r0->p[i].probe, pcpu);
			if (np < LW_SAMPLE_MAX)
				probes[np++] = r0->p[i].probe;
		}
	for (size_t i = 0; (k = lw_rkind_at(i)); i++)
		event_metric(ms, c, k->metric, k->metric, k->total_key);
	power_metric(ms, c);
	share_metrics(ms, c, "idle", "idle");
	share_metrics(ms, c, "causes", "cause");
	if (holm(ms, c->o->alpha, c->o->practical) < 0) {
		json_decref(ms);
		json_decref(pcpu);
		return NULL;
	}
	cpu_prune(ms, pcpu);
	lw_runs_test(&one, c->a->n, &one, c->b->n, 0, 0, 0.95, &t);
	cj = json_pack("{s:I, s:I, s:s, s:s, s:[I, I], s:b}", "run", (json_int_t)ir,
		       "baseline", (json_int_t)ib, "label", c->b->g->name,
		       "baseline_label", c->a->g->name,
		       "runs", (json_int_t)c->a->n, (json_int_t)c->b->n, "verdicts", t.ok);
	json_object_set_new(cj, "repeats_needed", t.ok ? json_null() :
			    json_integer(repeats_needed(c, probes, np)));
	json_object_set_new(cj, "metrics", ms);
	json_object_set_new(cj, "per_cpu", pcpu);
	return cj;
}

json_t *lw_compare_groups(const struct lw_crun *runs, const struct lw_cgroup *groups, size_t ng,
			  size_t baseline, const struct lw_cmp_opts *o)
{
	size_t n = 0, i;
	struct rcache *rc;
	struct gview *gv;
	json_t *doc = NULL, *rj = NULL, *gj = NULL, *cj = NULL, *thr;

	for (i = 0; i < ng; i++) {
		if (!groups[i].n || groups[i].first != n)
			return error("compare: group '%s' has no runs", groups[i].name), NULL;
		if (groups[i].n > LW_CMP_MAX_GROUP_RUNS)
			return error("compare: group '%s': at most %d runs", groups[i].name,
				     LW_CMP_MAX_GROUP_RUNS), NULL;
		n += groups[i].n;
	}
	if (ng < 2 || baseline >= ng) {
		error("compare: two runs or groups at least, and a baseline among them");
		return NULL;
	}
	rc = calloc(n, sizeof(*rc));
	gv = calloc(ng, sizeof(*gv));
	if (!rc || !gv) {
		error("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		if (rcache_fill(&rc[i], &runs[i], o, rc, i) < 0)
			goto out;
	rj = json_array();
	gj = json_array();
	for (size_t g = 0; g < ng; g++) {
		json_t *one;

		gv[g].g = &groups[g];
		gv[g].rc = rc + groups[g].first;
		gv[g].n = groups[g].n;
		for (i = 0; i < groups[g].n; i++)
			json_array_append_new(rj, lw_cmp_run_json(&rc[groups[g].first + i], groups[g].first + i,
							   g, o));
		if (lw_cmp_group_json(&gv[g], g, groups[g].first, o, &one) < 0)
			goto out;
		json_array_append_new(gj, one);
	}
	cj = json_array();
	for (size_t g = 0; g < ng; g++) {
		struct cmpctx c = { &gv[baseline], &gv[g], rj, groups[baseline].first, groups[g].first, o };
		json_t *one;

		if (g == baseline)
			continue;
		one = comparison_json(&c, json_array_get(gj, baseline), json_array_get(gj, g), baseline, g);
		if (!one)
			goto out;
		json_array_append_new(cj, one);
	}
	thr = json_array();
	for (i = 0; i < o->nthr; i++)
		json_array_append_new(thr, lw_jint(o->thr[i]));
	doc = json_pack("{s:s, s:i, s:{s:s, s:s}, s:{s:f, s:f, s:f, s:I, s:I, s:o, s:s, s:s, s:s,"
			" s:s, s:I, s:f, s:{s:s, s:I, s:I, s:I}}, s:I, s:O, s:O, s:O}",
		"schema", LW_COMPARISON_SCHEMA, "version", LW_COMPARISON_VERSION,
		"tool", "name", "latwatt", "version", LW_VERSION,
		"settings", "alpha", o->alpha, "practical", o->practical,
		"confidence", o->conf, "resamples", (json_int_t)o->resamples,
		"seed", (json_int_t)o->seed, "thresholds_ns", thr,
		"inference", "t test on per-run figures (log scale for latencies and power, rates for "
			     "counts; Welch, or the prediction of one run from a set), Holm over the metrics",
		"percentile_ci", "within a run: block bootstrap (100 ms blocks, doubled until a run has at most 1024; "
		"values to 1/256 of a power of two); a group: t interval over its runs",
		"percentile_rule", "nearest rank",
		"within_run_method", "block bootstrap",
		"boot_block_ns", (json_int_t)LW_BOOT_BLOCK_NS, "power", POWER,
		"evt", "model", lw_evt_model_name(o->model), "block_ns", (json_int_t)o->block_ns,
		"horizon_ns", (json_int_t)o->horizon_ns, "min_blocks", (json_int_t)o->min_blocks,
		"baseline", (json_int_t)baseline, "runs", rj, "groups", gj, "comparisons", cj);
	if (!doc)
		error("compare: cannot build the comparison document");
	else
		json_object_set_new(doc, "baseline_run", lw_jint(groups[baseline].first));
out:
	json_decref(rj);
	json_decref(gj);
	json_decref(cj);
	for (i = 0; rc && i < n; i++)
		rcache_free(&rc[i]);
	free(rc);
	free(gv);
	return doc;
}

json_t *lw_compare(const struct lw_crun *runs, size_t n, size_t baseline,
		   const struct lw_cmp_opts *o)
{
	struct lw_cgroup *g = calloc(n ? n : 1, sizeof(*g));
	json_t *doc;

	if (!g) {
		error("out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		g[i].name = runs[i].label;
		g[i].first = i;
		g[i].n = 1;
	}
	doc = lw_compare_groups(runs, g, n, baseline, o);
	free(g);
	return doc;
}
