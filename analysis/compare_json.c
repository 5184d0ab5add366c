// SPDX-License-Identifier: GPL-2.0-only
/*
 * The comparison document's "runs" and "groups": each run as recorded
 * (system, its figures with their within-run intervals, threshold counts,
 * block maxima and worst case, workloads, power, idle residency, spike
 * causes), each group's figures from its runs.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "analysis/compare.h"
#include "analysis/compare_int.h"
#include "analysis/runstate.h"
#include "lib/error.h"
#include "lib/json.h"
#include "lib/samples.h"
#include "workloads/rkind.h"

/* ---- extras: workloads, power, idle, causes -------------------------- */

/* Sum of @key over the workloads of kind @kind (NULL: any kind) in @w;
 * 1 when at least one had it. */
static int sum_workloads(const json_t *w, const char *kind, const char *key, uint64_t *out)
{
	const char *name;
	json_t *v;
	int found = 0;

	*out = 0;
	json_object_foreach((json_t *)w, name, v) {
		const char *k = json_string_value(json_object_get(v, "kind"));
		json_t *x = json_object_get(v, key);

		if (kind && (!k || strcmp(k, kind)))
			continue;
		if (json_is_integer(x) && json_integer_value(x) >= 0) {
			*out += (uint64_t)json_integer_value(x);
			found = 1;
		}
	}
	return found;
}

/* Workloads as recorded in the manifest (or, failing that, analysis.json):
 * for each record kind, its misses under its metric's name in its records
 * under its total key (audio "xruns" in "periods", video "dropped_frames"
 * in "frames"); null when no workload of the kind recorded them. */
static json_t *workloads_json(const struct lw_crun *r)
{
	const json_t *w = json_object_get(r->manifest, "workloads");
	const struct lw_rkind *k;
	json_t *o;

	if (!json_is_object(w) || !json_object_size(w))
		w = json_object_get(r->analysis, "workloads");
	if (!json_is_object(w) || !json_object_size(w))
		return json_null();
	o = json_object();
	for (size_t i = 0; (k = lw_rkind_at(i)); i++) {
		uint64_t miss, total;
		int hm = sum_workloads(w, k->kind, k->miss_key, &miss);
		int ht = sum_workloads(w, k->kind, k->total_key, &total);

		json_object_set_new(o, k->metric, hm ? lw_jint(miss) : json_null());
		json_object_set_new(o, k->total_key, ht ? lw_jint(total) : json_null());
	}
	return o;
}

/* analysis.json "power": {"kind", "total": {"average_w", "energy_j", ...}}
 * as `analyze` writes it; a plain {"mean_w", "stddev_w", "samples"} too. */
static json_t *power_json(const struct lw_crun *r)
{
	const json_t *p = json_object_get(r->analysis, "power");
	const json_t *tot = json_object_get(p, "total");
	json_t *m = json_object_get(tot, "average_w");

	if (json_is_number(m))
		return json_pack("{s:O, s:O?, s:O?, s:O?}", "mean_w", m,
			"energy_j", json_object_get(tot, "energy_j"),
			"duration_s", json_object_get(tot, "duration_s"),
			"source", json_object_get(p, "kind"));
	m = json_object_get(p, "mean_w");
	if (!json_is_number(m))
		return json_null();
	return json_pack("{s:O, s:O?, s:O?, s:O?}", "mean_w", m,
		"stddev_w", json_object_get(p, "stddev_w"), "samples", json_object_get(p, "samples"),
		"source", json_object_get(p, "source"));
}

/* name -> fraction, from an object of numbers or an array of objects with
 * @key (the name) and @val (the fraction). */
static json_t *shares_json(const json_t *src, const char *key, const char *val)
{
	const char *k;
	json_t *v, *o;
	size_t i;

	if (json_is_object(src)) {
		o = json_object();
		json_object_foreach((json_t *)src, k, v)
			if (json_is_number(v))
				json_object_set_new(o, k, json_real(json_number_value(v)));
		return o;
	}
	if (!json_is_array(src))
		return json_null();
	o = json_object();
	json_array_foreach(src, i, v) {
		json_t *name = json_object_get(v, key), *x = json_object_get(v, val);

		if (json_is_string(name) && json_is_number(x))
			json_object_set_new(o, json_string_value(name), json_real(json_number_value(x)));
	}
	return o;
}

/* Idle residency per state, averaged over the CPUs: analysis.json "idle":
 * {"trace"|"sysfs": {"cpus": [{"states": [{"name", "residency"}], "active"}]}}
 * as `analyze` writes it (the traced residency preferred: it is exact), or
 * a plain {"residency": {STATE: fraction}}. */
static json_t *idle_json(const struct lw_crun *r)
{
	const json_t *idle = json_object_get(r->analysis, "idle"), *cpus;

	cpus = json_object_get(json_object_get(idle, "trace"), "cpus");
	if (!json_array_size(cpus))
		cpus = json_object_get(json_object_get(idle, "sysfs"), "cpus");
	if (!json_array_size(cpus))
		cpus = json_object_get(idle, "cpus");
	json_t *c, *st, *o;
	size_t i, j, n;
	double active = 0;

	n = json_array_size(cpus);
	if (!n)
		return shares_json(json_object_get(idle, "residency"), NULL, NULL);
	o = json_object();
	json_array_foreach(cpus, i, c) {
		active += json_number_value(json_object_get(c, "active"));
		json_array_foreach(json_object_get(c, "states"), j, st) {
			const char *name = json_string_value(json_object_get(st, "name"));
			double x = json_number_value(json_object_get(st, "residency"));

			if (!name)
				continue;
			json_object_set_new(o, name, json_real(json_number_value(json_object_get(o, name)) +
							       x / (double)n));
		}
	}
	json_object_set_new(o, "active", json_real(active / (double)n));
	return o;
}

/* Spike causes: analysis.json "spikes": {"causes": [{"cause", "share"}]} as
 * the attribution writes it (or an object of cause -> share; or top-level). */
static json_t *causes_json(const struct lw_crun *r)
{
	const json_t *c = json_object_get(json_object_get(r->analysis, "spikes"), "causes");

	if (!c)
		c = json_object_get(r->analysis, "causes");
	return shares_json(c, "cause", "share");
}


/* ---- the run and group objects -------------------------------------- */

static json_t *wc_json(const struct lw_evt_est *e, const struct lw_cmp_opts *o, const char *spread)
{
	if (!e->ok)
		return json_pack("{s:b, s:s, s:I}", "estimated", 0, "reason", e->reason,
				 "blocks", (json_int_t)e->blocks);
	return json_pack("{s:b, s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:f, s:I, s:o, s:o, s:o, s:s}",
		"estimated", 1, "model", lw_evt_model_name(o->model),
		"method", o->model == LW_EVT_GEV ? "probability-weighted moments" : "maximum likelihood",
		"horizon_ns", (json_int_t)o->horizon_ns, "block_ns", (json_int_t)o->block_ns,
		"blocks", (json_int_t)e->blocks, "return_level_ns", lw_jreal(e->level),
		"ci_ns", lw_jpair(e->lo, e->hi), "confidence", o->conf,
		"resamples", (json_int_t)o->resamples,
		"loc_ns", lw_jreal(e->fit.loc), "scale_ns", lw_jreal(e->fit.scale), "shape", lw_jreal(e->fit.shape),
		"ci_spread", spread);
}

/* A run without samples (imported from a histogram): percentile @k is not
 * known when it lies in the histogram's overflow; its bound then, else 0. */
uint64_t lw_cmp_hist_pct_bound(const struct lw_cprobe *cp, int k)
{
	int ovf;

	if (!cp->from_hist || !cp->hist.total)
		return 0;
	lw_hist_percentile(&cp->hist, lw_pct[k], &ovf);
	return ovf ? cp->hist.overflow_from : 0;
}

/*
 * Whether a run counted its missed periods: an imported run did not
 * (cyclictest counts none), nor one whose analysis.json says null.  Unknown
 * is never taken for 0.
 */
int lw_cmp_missed_known(const struct lw_crun *r, unsigned probe)
{
	const json_t *all = json_object_get(json_object_get(json_object_get(r->analysis, "probes"),
							    lw_probe_name(probe)), "all");

	if (json_is_object(json_object_get(r->manifest, "imported")))
		return 0;
	return !all || !json_is_null(json_object_get(all, "missed_periods"));
}

static json_t *probe_json(const struct lw_crun *r, const struct pcache *pc,
			  const struct lw_cmp_opts *o)
{
	const struct lw_cprobe *cp = pc->cp;
	const struct lw_dist *d = &cp->d;
	json_t *pj = json_object(), *pcts = json_object(), *over = json_array();

	json_object_set_new(pj, "count", lw_jint(d->n));
	json_object_set_new(pj, "exact", json_boolean(d->exact));
	json_object_set_new(pj, "resolution_ns", lw_jint(d->resolution_ns));
	json_object_set_new(pj, "min_ns", d->n ? lw_jint(d->v[0]) : json_null());
	json_object_set_new(pj, "mean_ns", d->n ? lw_jreal(lw_dist_mean(d)) : json_null());
	json_object_set_new(pj, "mean_ci_ns", lw_jpair(pc->lo[ST_MEAN], pc->hi[ST_MEAN]));
	json_object_set_new(pj, "max_ns", d->n ? lw_jint(d->v[d->k - 1]) : json_null());
	json_object_set_new(pj, "missed_periods", lw_cmp_missed_known(r, cp->probe) ? lw_jint(cp->missed) :
			    json_null());
	json_object_set_new(pj, "dropped", lw_jint(cp->dropped));
	json_object_set_new(pj, "ci_method", lw_jstr_or_null(pc->ci_method));
	for (int k = 0; k < LW_NPCT; k++) {
		uint64_t bound = lw_cmp_hist_pct_bound(cp, k);
		json_t *e = json_pack("{s:o, s:o}",
			"value_ns", d->n && !bound ? lw_jint(lw_dist_percentile(d, lw_pct[k])) : json_null(),
			"ci_ns", lw_jpair(pc->lo[k], pc->hi[k]));

		if (bound)	/* in the histogram's overflow: at least this */
			json_object_set_new(e, "above_ns", lw_jint(bound));
		json_object_set_new(pcts, lw_stat_names[k], e);
	}
	json_object_set_new(pj, "percentiles", pcts);
	for (size_t t = 0; t < o->nthr; t++) {
		uint64_t c = lw_dist_count_above(d, o->thr[t]);
		int known = 1;

		if (cp->from_hist)
			c = lw_hist_count_above(&cp->hist, o->thr[t], &known);
		json_array_append_new(over, json_pack("{s:I, s:o, s:o}",
			"threshold_ns", (json_int_t)o->thr[t], "count", known ? lw_jint(c) : json_null(),
			"rate", d->n && known ? lw_jreal((double)c / (double)d->n) : json_null()));
		if (!known)
			json_object_set_new(json_array_get(over, json_array_size(over) - 1),
					    "at_least", lw_jint(c));
	}
	json_object_set_new(pj, "over", over);
	json_object_set_new(pj, "block_maxima", lw_cmp_bmax_usable(cp, o->block_ns) ?
		json_pack("{s:I, s:I, s:o}", "block_ns", (json_int_t)o->block_ns,
			  "blocks", (json_int_t)pc->nbm,
			  "median_ns", lw_jreal(lw_cmp_median(&pc->bmd))) : json_null());
	json_object_set_new(pj, "worst_case", wc_json(&pc->evt, o, "blocks of the run"));
	return pj;
}

json_t *lw_cmp_run_json(const struct rcache *rc, size_t index, size_t group,
			const struct lw_cmp_opts *o)
{
	const struct lw_crun *r = rc->r;
	const json_t *m = r->manifest, *sys = json_object_get(m, "system");
	const json_t *pre = json_object_get(sys, "preempt"), *nohz = json_object_get(sys, "nohz_full");
	json_t *j, *probes = json_object();
	char id[32];

	snprintf(id, sizeof(id), "%016" PRIx64, lw_crun_ident(r));
	j = json_pack("{s:I, s:I, s:s, s:s, s:o, s:o, s:s, s:s, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?,"
		      " s:o, s:O?, s:O?, s:O?, s:O?, s:O?}",
		"index", (json_int_t)index, "group", (json_int_t)group, "label", r->label,
		"source", r->db_id ? "db" : "directory",
		"path", lw_jstr_or_null(r->path),
		"db_id", r->db_id ? json_integer(r->db_id) : json_null(),
		"ident", id,
		"status", lw_manifest_status(m),
		"board", json_object_get(m, "board"),
		"hostname", json_object_get(sys, "hostname"),
		"kernel_release", json_object_get(json_object_get(sys, "kernel"), "release"),
		"kernel_version", json_object_get(json_object_get(sys, "kernel"), "version"),
		"preempt_model", json_object_get(pre, "model"),
		"rt", json_object_get(pre, "rt"),
		"nohz_full", json_is_string(nohz) && *json_string_value(nohz) ?
			json_incref((json_t *)nohz) : json_null(),
		"isolated", json_object_get(sys, "isolated"),
		"pm_qos", json_object_get(m, "pm_qos"),
		"cpus", json_object_get(m, "cpus"),
		"duration_ns", json_object_get(m, "duration_ns"),
		"start_utc", json_object_get(json_object_get(m, "start"), "utc"));
	for (size_t i = 0; i < r->np; i++)
		json_object_set_new(probes, lw_probe_name(r->p[i].probe), probe_json(r, &rc->p[i], o));
	json_object_set_new(j, "probes", probes);
	json_object_set_new(j, "workloads", workloads_json(r));
	json_object_set_new(j, "power", power_json(r));
	json_object_set_new(j, "idle", idle_json(r));
	json_object_set_new(j, "causes", causes_json(r));
	return j;
}

/* The logs of the runs' figure @k into @x, and the mean of their within-run
 * variances into *wv; how many runs had a positive figure. */
size_t lw_cmp_group_logs(const struct gview *g, unsigned probe, int k, double *x, double *wv)
{
	size_t n = 0;

	*wv = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct pcache *pc = lw_cmp_rc_probe(&g->rc[i], probe);

		if (!pc || !(pc->val[k] > 0))
			continue;
		x[n++] = log(pc->val[k]);
		*wv += pc->wvar[k];
	}
	if (n)
		*wv /= (double)n;
	return n;
}

/* A group's figure (geometric mean of its runs') and interval: from the
 * spread between its runs when it has two or more (t interval of the mean
 * log, the spread at least what a run varies within), else the run's
 * within-run interval. */
static json_t *group_stat(const struct gview *g, unsigned probe, int k, const struct lw_cmp_opts *o)
{
	double x[LW_CMP_MAX_GROUP_RUNS], wv, mean, var, lo, hi;
	size_t n = lw_cmp_group_logs(g, probe, k, x, &wv);
	uint64_t bound = 0;

	/* a run that does not know it (in its histogram's overflow): the
	 * group does not either; the lowest bound of its runs' */
	for (size_t i = 0; k >= 0 && k < LW_NPCT && i < g->n; i++) {
		uint64_t b = lw_cmp_hist_pct_bound(lw_cmp_rc_probe(&g->rc[i], probe)->cp, k);

		if (b && (!bound || b < bound))
			bound = b;
	}
	if (bound)
		return json_pack("{s:o, s:o, s:I}", "value_ns", json_null(), "ci_ns", json_null(),
				 "above_ns", (json_int_t)bound);
	if (!n)
		return json_pack("{s:o, s:o}", "value_ns", json_null(), "ci_ns", json_null());
	lw_mean_var(x, n, &mean, &var);
	if (n >= 2) {
		double t = gsl_cdf_tdist_Qinv((1 - o->conf) / 2, (double)(n - 1));
		double se = sqrt((var > wv ? var : wv) / (double)n);

		lo = exp(mean - t * se);
		hi = exp(mean + t * se);
		return json_pack("{s:o, s:o, s:s}", "value_ns", lw_jreal(exp(mean)), "ci_ns", lw_jpair(lo, hi),
				 "ci_spread", "between runs");
	}
	{
		const struct pcache *pc = lw_cmp_rc_probe(&g->rc[0], probe);

		return json_pack("{s:o, s:o, s:s}", "value_ns", lw_jreal(exp(mean)),
				 "ci_ns", lw_jpair(pc->lo[k], pc->hi[k]), "ci_spread", "within the run");
	}
}

int lw_cmp_group_json(const struct gview *g, size_t index, size_t first,
		      const struct lw_cmp_opts *o, json_t **out)
{
	json_t *j, *runs = json_array(), *probes = json_object();
	const struct lw_crun *r0 = g->rc[0].r;

	for (size_t i = 0; i < g->n; i++)
		json_array_append_new(runs, lw_jint(first + i));
	j = json_pack("{s:I, s:s, s:o, s:I}", "index", (json_int_t)index, "name", g->g->name,
		      "runs", runs, "count", (json_int_t)g->n);
	for (size_t pi = 0; pi < r0->np; pi++) {
		unsigned probe = r0->p[pi].probe;
		json_t *pj, *pcts = json_object();
		struct lw_evt_est e;
		double mx = 0;

		if (!lw_cmp_group_has(g, probe))
			continue;
		for (int k = 0; k < LW_NPCT; k++)
			json_object_set_new(pcts, lw_stat_names[k], group_stat(g, probe, k, o));
		for (size_t i = 0; i < g->n; i++) {
			const struct lw_dist *d = &lw_cmp_rc_probe(&g->rc[i], probe)->cp->d;

			if (d->n && (double)d->v[d->k - 1] > mx)
				mx = (double)d->v[d->k - 1];
		}
		if (lw_cmp_group_evt(g, probe, o, g->rc[0].ident ^ (uint64_t)index, &e) < 0) {
			json_decref(j);
			json_decref(pcts);
			return -1;
		}
		pj = json_pack("{s:o, s:o, s:o, s:o}", "percentiles", pcts,
			       "mean", group_stat(g, probe, ST_MEAN, o), "max_ns", lw_jreal(mx),
			       "worst_case", wc_json(&e, o, g->n >= 2 ?
					"runs, then blocks inside each run" : "blocks of the run"));
		lw_evt_est_free(&e);
		json_object_set_new(probes, lw_probe_name(probe), pj);
	}
	json_object_set_new(j, "probes", probes);
	*out = j;
	return 0;
}
