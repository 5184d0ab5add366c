// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "analysis/summary.h"
#include "lib/error.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/samples.h"
#include "power/idle.h"
#include "power/power.h"

/* ---- runs ------------------------------------------------------------- */

struct lw_cprobe *lw_crun_add_probe(struct lw_crun *r, unsigned probe)
{
	struct lw_cprobe *p = realloc(r->p, (r->np + 1) * sizeof(*p));

	if (!p) {
		error("out of memory");
		return NULL;
	}
	r->p = p;
	p = &r->p[r->np++];
	memset(p, 0, sizeof(*p));
	p->probe = probe;
	return p;
}

const struct lw_cprobe *lw_crun_probe(const struct lw_crun *r, unsigned probe)
{
	for (size_t i = 0; i < r->np; i++)
		if (r->p[i].probe == probe)
			return &r->p[i];
	return NULL;
}

void lw_crun_free(struct lw_crun *r)
{
	for (size_t i = 0; i < r->np; i++) {
		lw_dist_free(&r->p[i].d);
		lw_hist_free(&r->p[i].hist);
		free(r->p[i].bmax);
	}
	free(r->p);
	free(r->label);
	free(r->path);
	json_decref(r->manifest);
	json_decref(r->analysis);
	memset(r, 0, sizeof(*r));
}

uint64_t lw_crun_ident(const struct lw_crun *r)
{
	char *s = json_dumps(r->manifest, JSON_COMPACT | JSON_SORT_KEYS);
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (const char *c = s ? s : ""; *c; c++) {
		h ^= (unsigned char)*c;
		h *= 0x100000001b3ULL;
	}
	free(s);
	return h;
}

/* No run spans more than this many 10 ms blocks (15 days): an expected time
 * further out is a corrupt record, not a reason to allocate gigabytes. */
#define MAX_BASE_BLOCKS (1UL << 27)

static int load_block_maxima(struct lw_crun *r, const char *path)
{
	struct lw_samples_reader *rd = lw_samples_open(path);
	struct lw_cprobe *by_id[LW_PROBE_MAX] = { 0 };
	struct lw_sample s;
	uint64_t start, rec = 0;
	int ret;

	if (!rd)
		return -1;
	start = lw_samples_start(rd);
	for (size_t i = 0; i < r->np; i++)
		if (r->p[i].probe < LW_PROBE_MAX)
			by_id[r->p[i].probe] = &r->p[i];
	while ((ret = lw_samples_next(rd, &s)) == 1) {
		struct lw_cprobe *p = s.probe < LW_PROBE_MAX ? by_id[s.probe] : NULL;
		uint64_t idx = s.expected_ns > start ? (s.expected_ns - start) / LW_BLOCK_BASE_NS : 0;
		uint64_t v = s.latency_ns < UINT64_MAX ? s.latency_ns + 1 : UINT64_MAX;

		rec++;
		if (!p)
			continue;	/* the summary already refused unknown probes */
		if (idx >= MAX_BASE_BLOCKS) {
			ret = error("%s: record %" PRIu64 ": expected time %" PRIu64
				    " is more than 15 days after the start", path, rec, s.expected_ns);
			break;
		}
		if (idx >= p->nb) {
			size_t nn = p->nb ? p->nb : 1024;
			uint64_t *b;

			while (nn <= idx)
				nn *= 2;
			b = realloc(p->bmax, nn * sizeof(*b));
			if (!b) {
				ret = error("out of memory");
				break;
			}
			memset(b + p->nb, 0, (nn - p->nb) * sizeof(*b));
			p->bmax = b;
			p->nb = nn;
		}
		if (v > p->bmax[idx])
			p->bmax[idx] = v;
	}
	lw_samples_close_reader(rd);
	if (ret < 0)
		return -1;
	/* trim the unused tail of the doubling */
	for (size_t i = 0; i < r->np; i++)
		while (r->p[i].nb && !r->p[i].bmax[r->p[i].nb - 1])
			r->p[i].nb--;
	return 0;
}

/* Power and idle residency when analysis.json does not have them (the run
 * was not analyzed): from RUN/power and the manifest's cpuidle counters, as
 * `analyze` would. */
static int derive_extras(struct lw_crun *r, const struct lw_rundir *rd)
{
	char file[PATH_MAX];
	json_t *idle;
	int q;

	if (!r->analysis && !(r->analysis = json_object()))
		return error("out of memory");
	lw_rundir_file(rd, "power", file, sizeof(file));
	if (!json_object_get(r->analysis, "power") && access(file, F_OK) == 0) {
		struct lw_power_data *d = lw_power_read(file);

		if (!d)
			return -1;
		json_object_set_new(r->analysis, "power", lw_power_summarize(d));
		lw_power_data_free(d);
	}
	if (!json_object_get(r->analysis, "idle")) {
		q = lw_set_quiet(1);	/* a run without cpuidle counters has no idle section */
		idle = lw_idle_summary(rd->path);
		lw_set_quiet(q);
		if (idle)
			json_object_set_new(r->analysis, "idle", idle);
	}
	if (!json_object_size(r->analysis)) {
		json_decref(r->analysis);
		r->analysis = NULL;
	}
	return 0;
}

int lw_crun_load_dir(struct lw_crun *r, const char *path)
{
	struct lw_rundir rd;
	struct lw_summary sum;
	char file[PATH_MAX];
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (lw_rundir_open(&rd, path) < 0)
		return -1;
	if (lw_summary_load(&sum, &rd, 0) < 0) {
		lw_rundir_close(&rd);
		return -1;
	}
	r->label = strdup(path);
	r->path = strdup(path);
	r->manifest = json_incref(rd.manifest);
	if (!r->label || !r->path) {
		error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < sum.n; i++) {
		struct lw_series *s = &sum.s[i];
		struct lw_cprobe *p;

		if (s->cpu >= 0)
			continue;
		p = lw_crun_add_probe(r, s->probe);
		if (!p)
			goto out;
		if (sum.from_histogram ? lw_dist_from_hist(&p->d, &s->hist) :
		    lw_summary_dist(&sum, i, &p->d))
			goto out;
		p->hist = s->hist;		/* taken over */
		s->hist.count = NULL;
		p->missed = s->missed;
		p->dropped = s->dropped;
	}
	if (!sum.from_histogram &&
	    load_block_maxima(r, lw_rundir_file(&rd, "samples", file, sizeof(file))) < 0)
		goto out;
	lw_rundir_file(&rd, "analysis.json", file, sizeof(file));
	if (access(file, F_OK) == 0 && !(r->analysis = lw_json_load(file)))
		goto out;
	if (derive_extras(r, &rd) < 0)
		goto out;
	ret = 0;
out:
	lw_summary_free(&sum);
	lw_rundir_close(&rd);
	if (ret < 0)
		lw_crun_free(r);
	return ret;
}

/* ---- options ---------------------------------------------------------- */

void lw_cmp_opts_default(struct lw_cmp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->alpha = 0.05;
	o->practical = 0.05;
	o->min_effect = 0.147;
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

char *lw_cmp_format_threshold(uint64_t ns, char *buf, size_t len)
{
	if (ns && ns % LW_NSEC_PER_MSEC == 0)
		snprintf(buf, len, "%" PRIu64 "ms", ns / (uint64_t)LW_NSEC_PER_MSEC);
	else if (ns && ns % LW_NSEC_PER_USEC == 0)
		snprintf(buf, len, "%" PRIu64 "us", ns / (uint64_t)LW_NSEC_PER_USEC);
	else
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	return buf;
}

static double dval(const json_t *o, const char *k);
static json_t *report_view(const json_t *runs, const json_t *cmps, size_t base);

/* ---- per-run computations ------------------------------------------- */

static const char *const pct_name[LW_NPCT] = { "p50", "p90", "p99", "p99.9", "p99.99" };

struct pcache {
	const struct lw_cprobe *cp;
	double *boot[LW_NPCT];		/* bootstrap replicates of each percentile */
	double *bm;			/* block maxima, ns, time order */
	size_t nbm;
	struct lw_dist bmd;		/* the same, as a distribution */
	struct lw_evt_est evt;
};

struct rcache {
	const struct lw_crun *r;
	struct pcache *p;		/* parallel to r->p */
	uint64_t ident;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int block_maxima(const struct lw_cprobe *cp, uint64_t block_ns, struct pcache *pc)
{
	size_t m = (size_t)(block_ns / LW_BLOCK_BASE_NS), nblk;
	uint64_t *sorted;

	pc->nbm = 0;
	if (!cp->nb || !m)
		return 0;
	/* the last 10 ms holds the last sample and may be partial: left out */
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
	qsort(sorted, pc->nbm, sizeof(*sorted), cmp_u64);
	if (lw_dist_from_sorted(&pc->bmd, sorted, pc->nbm) < 0) {
		free(sorted);
		return -1;
	}
	free(sorted);
	return 0;
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
	for (size_t i = 0; i < r->np; i++) {
		const struct lw_cprobe *cp = &r->p[i];
		struct pcache *pc = &rc->p[i];
		struct lw_rng rng;

		pc->cp = cp;
		for (int k = 0; k < LW_NPCT && cp->d.n; k++) {
			pc->boot[k] = malloc((o->resamples ? o->resamples : 1) * sizeof(double));
			if (!pc->boot[k])
				return error("out of memory");
			lw_rng_stream(&rng, o->seed, rc->ident, cp->probe, (uint64_t)k);
			for (unsigned b = 0; b < o->resamples; b++)
				pc->boot[k][b] = (double)lw_boot_percentile(&cp->d, lw_pct[k], &rng);
		}
		if (block_maxima(cp, o->block_ns, pc) < 0)
			return -1;
		if (!cp->nb) {
			memset(&pc->evt, 0, sizeof(pc->evt));
			snprintf(pc->evt.reason, sizeof(pc->evt.reason),
				 "no time series (a run imported from a histogram)");
			continue;
		}
		lw_rng_stream(&rng, o->seed, rc->ident, cp->probe, 100);
		if (lw_evt_estimate(pc->bm, pc->nbm, o->model,
				    (double)o->horizon_ns / (double)o->block_ns, o->resamples, o->conf,
				    o->min_blocks, &rng, &pc->evt) < 0)
			return -1;
	}
	return 0;
}

static void rcache_free(struct rcache *rc)
{
	if (!rc->p)
		return;
	for (size_t i = 0; i < rc->r->np; i++) {
		for (int k = 0; k < LW_NPCT; k++)
			free(rc->p[i].boot[k]);
		free(rc->p[i].bm);
		lw_dist_free(&rc->p[i].bmd);
		lw_evt_est_free(&rc->p[i].evt);
	}
	free(rc->p);
	rc->p = NULL;
}

/* ---- JSON helpers ------------------------------------------------------ */

static json_t *jnum(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *jint(uint64_t x)
{
	return json_integer((json_int_t)x);
}

static json_t *jpair(double lo, double hi)
{
	if (!isfinite(lo) || !isfinite(hi))
		return json_null();
	return json_pack("[o, o]", jnum(lo), jnum(hi));
}

static json_t *jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static double median_of(const struct lw_dist *d)
{
	return d->n ? (double)lw_dist_percentile(d, 50) : NAN;
}

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
 * audio xruns in periods, video dropped frames in frames. */
static json_t *workloads_json(const struct lw_crun *r)
{
	const json_t *w = json_object_get(r->manifest, "workloads");
	uint64_t xruns, periods, dropped, frames;
	int hx, hp, hd, hf;

	if (!json_is_object(w) || !json_object_size(w))
		w = json_object_get(r->analysis, "workloads");
	if (!json_is_object(w) || !json_object_size(w))
		return json_null();
	hx = sum_workloads(w, NULL, "xruns", &xruns);
	hp = sum_workloads(w, "audio", "periods", &periods);
	hd = sum_workloads(w, "video", "dropped", &dropped);
	hf = sum_workloads(w, "video", "frames", &frames);
	return json_pack("{s:o, s:o, s:o, s:o}",
		"xruns", hx ? jint(xruns) : json_null(), "periods", hp ? jint(periods) : json_null(),
		"dropped_frames", hd ? jint(dropped) : json_null(),
		"frames", hf ? jint(frames) : json_null());
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

/* ---- the run objects -------------------------------------------------- */

static json_t *probe_json(const struct pcache *pc, const struct lw_cmp_opts *o)
{
	const struct lw_cprobe *cp = pc->cp;
	const struct lw_dist *d = &cp->d;
	json_t *pj = json_object(), *pcts = json_object(), *over = json_array(), *wc;
	double *tmp = malloc((o->resamples ? o->resamples : 1) * sizeof(double));

	json_object_set_new(pj, "count", jint(d->n));
	json_object_set_new(pj, "exact", json_boolean(d->exact));
	json_object_set_new(pj, "resolution_ns", jint(d->resolution_ns));
	json_object_set_new(pj, "min_ns", d->n ? jint(d->v[0]) : json_null());
	json_object_set_new(pj, "mean_ns", d->n ? jnum(lw_dist_mean(d)) : json_null());
	json_object_set_new(pj, "max_ns", d->n ? jint(d->v[d->k - 1]) : json_null());
	json_object_set_new(pj, "missed_periods", jint(cp->missed));
	json_object_set_new(pj, "dropped", jint(cp->dropped));
	for (int k = 0; k < LW_NPCT; k++) {
		double lo = NAN, hi = NAN;

		if (d->n && tmp && pc->boot[k]) {
			memcpy(tmp, pc->boot[k], o->resamples * sizeof(double));
			lw_interval(tmp, o->resamples, o->conf, &lo, &hi);
		}
		json_object_set_new(pcts, pct_name[k], json_pack("{s:o, s:o}",
			"value_ns", d->n ? jint(lw_dist_percentile(d, lw_pct[k])) : json_null(),
			"ci_ns", jpair(lo, hi)));
	}
	free(tmp);
	json_object_set_new(pj, "percentiles", pcts);
	for (size_t t = 0; t < o->nthr; t++) {
		uint64_t c = lw_dist_count_above(d, o->thr[t]);

		json_array_append_new(over, json_pack("{s:I, s:I, s:o}",
			"threshold_ns", (json_int_t)o->thr[t], "count", (json_int_t)c,
			"rate", d->n ? jnum((double)c / (double)d->n) : json_null()));
	}
	json_object_set_new(pj, "over", over);
	json_object_set_new(pj, "block_maxima", cp->nb ? json_pack("{s:I, s:I, s:o}",
		"block_ns", (json_int_t)o->block_ns, "blocks", (json_int_t)pc->nbm,
		"median_ns", jnum(median_of(&pc->bmd))) : json_null());
	if (pc->evt.ok) {
		wc = json_pack("{s:b, s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:f, s:I, s:o, s:o, s:o}",
			"estimated", 1, "model", lw_evt_model_name(o->model),
			"method", o->model == LW_EVT_GEV ? "probability-weighted moments" :
							   "maximum likelihood",
			"horizon_ns", (json_int_t)o->horizon_ns, "block_ns", (json_int_t)o->block_ns,
			"blocks", (json_int_t)pc->evt.blocks, "return_level_ns", jnum(pc->evt.level),
			"ci_ns", jpair(pc->evt.lo, pc->evt.hi), "confidence", o->conf,
			"resamples", (json_int_t)o->resamples,
			"loc_ns", jnum(pc->evt.fit.loc), "scale_ns", jnum(pc->evt.fit.scale),
			"shape", jnum(pc->evt.fit.shape));
	} else {
		wc = json_pack("{s:b, s:s, s:I}", "estimated", 0, "reason", pc->evt.reason,
			       "blocks", (json_int_t)pc->evt.blocks);
	}
	json_object_set_new(pj, "worst_case", wc);
	return pj;
}

static json_t *run_json(const struct rcache *rc, size_t index, const struct lw_cmp_opts *o)
{
	const struct lw_crun *r = rc->r;
	const json_t *m = r->manifest, *sys = json_object_get(m, "system");
	const json_t *pre = json_object_get(sys, "preempt"), *nohz = json_object_get(sys, "nohz_full");
	json_t *j, *probes = json_object();
	char id[32];

	snprintf(id, sizeof(id), "%016" PRIx64, lw_crun_ident(r));
	j = json_pack("{s:I, s:s, s:s, s:o, s:o, s:s, s:s, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?,"
		      " s:o, s:O?, s:O?, s:O?, s:O?, s:O?}",
		"index", (json_int_t)index, "label", r->label,
		"source", r->db_id ? "db" : "directory",
		"path", jstr_or_null(r->path),
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
		json_object_set_new(probes, lw_probe_name(r->p[i].probe), probe_json(&rc->p[i], o));
	json_object_set_new(j, "probes", probes);
	json_object_set_new(j, "workloads", workloads_json(r));
	json_object_set_new(j, "power", power_json(r));
	json_object_set_new(j, "idle", idle_json(r));
	json_object_set_new(j, "causes", causes_json(r));
	return j;
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
		      "unit", unit, "baseline", jnum(base), "value", jnum(v),
		      "change", jnum(v - base), "rel", jnum(rel));
	if (probe)
		json_object_set_new(m, "probe", json_string(probe));
	if (isinf(rel))
		json_object_set_new(m, "rel_infinite", json_true());
	return m;
}

/* @v: the verdict should the difference prove significant (better, worse,
 * or no significant difference when it is too small to matter), or n/a;
 * holm() decides significance over every metric of the comparison. */
static void set_verdict(json_t *m, const char *test, double p, const char *v, const char *note)
{
	json_object_set_new(m, "test", json_string(test));
	json_object_set_new(m, "p", jnum(p));
	json_object_set_new(m, "verdict", json_string(v));
	if (note)
		json_object_set_new(m, "note", json_string(note));
}

struct tested {
	json_t *m;
	double p;
};

static int cmp_tested(const void *a, const void *b)
{
	double x = ((const struct tested *)a)->p, y = ((const struct tested *)b)->p;

	return x < y ? -1 : x > y;
}

/*
 * Holm's step-down adjustment over the tested metrics of one comparison, so
 * that the chance of any verdict at all between two runs of one system stays
 * below alpha (a comparison tests a dozen metrics or more).  Adds "p_adjusted"
 * and turns verdicts whose adjusted p is not below alpha into "no
 * significant difference".
 */
static int holm(json_t *ms, double alpha)
{
	size_t n = json_array_size(ms), k = 0, i;
	struct tested *t = malloc((n ? n : 1) * sizeof(*t));
	double run_max = 0;
	json_t *m;

	if (!t)
		return error("out of memory");
	json_array_foreach(ms, i, m) {
		json_t *p = json_object_get(m, "p");

		if (!strcmp(json_string_value(json_object_get(m, "verdict")), LW_NA) || !json_is_number(p))
			continue;
		t[k].m = m;
		t[k++].p = json_number_value(p);
	}
	qsort(t, k, sizeof(*t), cmp_tested);
	for (i = 0; i < k; i++) {
		double adj = (double)(k - i) * t[i].p;

		if (adj > 1)
			adj = 1;
		if (adj > run_max)
			run_max = adj;
		json_object_set_new(t[i].m, "p_adjusted", json_real(run_max));
		if (!(run_max < alpha))
			json_object_set_new(t[i].m, "verdict", json_string(LW_NSD));
	}
	free(t);
	return 0;
}

static json_t *na_metric(json_t *m, const char *note)
{
	set_verdict(m, "none", NAN, LW_NA, note);
	return m;
}

/* Relative differences of paired bootstrap replicates, its interval and p. */
static void boot_rel(const double *a, const double *b, size_t n, double conf, double *lo,
		     double *hi, double *p)
{
	double *d = malloc((n ? n : 1) * sizeof(*d));
	size_t k = 0;

	*lo = *hi = *p = NAN;
	if (!d)
		return;
	for (size_t i = 0; i < n; i++)
		if (isfinite(a[i]) && isfinite(b[i]) && a[i] > 0)
			d[k++] = b[i] / a[i] - 1;
	if (k) {
		*p = lw_boot_p(d, k);
		lw_interval(d, k, conf, lo, hi);
	}
	free(d);
}

static void add_rate(json_t *ms, const char *probe, const char *name, uint64_t xa, uint64_t na,
		     uint64_t xb, uint64_t nb, const struct lw_cmp_opts *o)
{
	double ra = na ? (double)xa / (double)na : NAN, rb = nb ? (double)xb / (double)nb : NAN;
	json_t *m = metric(probe, name, "count", "count", (double)xa, (double)xb);
	double p = lw_rate_test(xa, na, xb, nb), rel = rel_change(ra, rb);

	json_object_set_new(m, "baseline_rate", jnum(ra));
	json_object_set_new(m, "rate", jnum(rb));
	json_object_set_new(m, "rate_rel", jnum(rel));
	set_verdict(m, "rate", p, verdict(1, rel, o->practical, 1), NULL);
	json_array_append_new(ms, m);
}

static void probe_metrics(json_t *ms, const struct pcache *a, const struct pcache *b,
			  const struct lw_cmp_opts *o)
{
	const char *pn = lw_probe_name(a->cp->probe);
	const struct lw_dist *da = &a->cp->d, *db = &b->cp->d;
	struct lw_mwu u;
	json_t *m;
	char name[48], note[200];

	if (!da->n || !db->n) {
		json_array_append_new(ms, na_metric(metric(pn, "distribution", "distribution", "ns",
							   NAN, NAN), "no samples"));
		return;
	}
	for (int k = 0; k < LW_NPCT; k++) {
		double va = (double)lw_dist_percentile(da, lw_pct[k]);
		double vb = (double)lw_dist_percentile(db, lw_pct[k]);
		double lo, hi, p, tail = 1 - lw_pct[k] / 100;

		m = metric(pn, pct_name[k], "percentile", "ns", va, vb);
		boot_rel(a->boot[k], b->boot[k], o->resamples, o->conf, &lo, &hi, &p);
		json_object_set_new(m, "ci_rel", jpair(lo, hi));
		if ((double)da->n * tail < 10 || (double)db->n * tail < 10) {
			snprintf(note, sizeof(note), "fewer than 10 samples beyond %s: not tested",
				 pct_name[k]);
			set_verdict(m, "bootstrap", p, LW_NA, note);
		} else {
			set_verdict(m, "bootstrap", p,
				    verdict(1, rel_change(va, vb), o->practical, 1), NULL);
		}
		json_array_append_new(ms, m);
	}

	m = metric(pn, "mean", "mean", "ns", lw_dist_mean(da), lw_dist_mean(db));
	{
		double p = lw_welch_p(lw_dist_mean(da), lw_dist_var(da), da->n, lw_dist_mean(db),
				      lw_dist_var(db), db->n);

		set_verdict(m, "welch", p, verdict(1, rel_change(lw_dist_mean(da),
				lw_dist_mean(db)), o->practical, 1), NULL);
	}
	json_array_append_new(ms, m);

	m = metric(pn, "max", "max", "ns", (double)da->v[da->k - 1], (double)db->v[db->k - 1]);
	json_array_append_new(ms, na_metric(m, "a single extreme is not tested: see blockmax and worst"));

	m = metric(pn, "blockmax", "block-maxima", "ns", median_of(&a->bmd), median_of(&b->bmd));
	json_object_set_new(m, "block_ns", jint(o->block_ns));
	if (a->bmd.n < 10 || b->bmd.n < 10) {
		snprintf(note, sizeof(note), "%" PRIu64 " and %" PRIu64 " blocks: at least 10 needed",
			 a->bmd.n, b->bmd.n);
		na_metric(m, note);
	} else {
		lw_mwu(&a->bmd, &b->bmd, &u);
		json_object_set_new(m, "cliffs_delta", jnum(u.cliffs_delta));
		set_verdict(m, "mann-whitney", u.p, verdict(1, rel_change(
			median_of(&a->bmd), median_of(&b->bmd)), o->practical, 1), NULL);
	}
	json_array_append_new(ms, m);

	m = metric(pn, "worst", "worst-case", "ns", a->evt.ok ? a->evt.level : NAN,
		   b->evt.ok ? b->evt.level : NAN);
	json_object_set_new(m, "horizon_ns", jint(o->horizon_ns));
	if (!a->evt.ok || !b->evt.ok) {
		snprintf(note, sizeof(note), "not extrapolated: %s: %s", a->evt.ok ? "run" : "baseline",
			 a->evt.ok ? b->evt.reason : a->evt.reason);
		na_metric(m, note);
	} else {
		double lo, hi, p;

		boot_rel(a->evt.boot, b->evt.boot, o->resamples < a->evt.nboot ? o->resamples :
			 a->evt.nboot, o->conf, &lo, &hi, &p);
		json_object_set_new(m, "ci_rel", jpair(lo, hi));
		set_verdict(m, "bootstrap", p, verdict(1, rel_change(a->evt.level,
			    b->evt.level), o->practical, 1), "an estimate from extreme-value fits");
	}
	json_array_append_new(ms, m);

	lw_mwu(da, db, &u);
	m = metric(pn, "distribution", "distribution", "ns", median_of(da), median_of(db));
	json_object_set_new(m, "u_b", jnum(u.u_b));
	json_object_set_new(m, "z", jnum(u.z));
	json_object_set_new(m, "cliffs_delta", jnum(u.cliffs_delta));
	json_object_set_new(m, "prob_superiority", jnum(u.ps));
	set_verdict(m, "mann-whitney", u.p, fabs(u.cliffs_delta) >= o->min_effect ?
		    (u.cliffs_delta > 0 ? LW_WORSE : LW_BETTER) : LW_NSD, NULL);
	json_array_append_new(ms, m);

	for (size_t t = 0; t < o->nthr; t++) {
		char d[32];

		snprintf(name, sizeof(name), "over:%s", lw_cmp_format_threshold(o->thr[t], d, sizeof(d)));
		add_rate(ms, pn, name, lw_dist_count_above(da, o->thr[t]), da->n,
			 lw_dist_count_above(db, o->thr[t]), db->n, o);
		json_object_set_new(json_array_get(ms, json_array_size(ms) - 1), "threshold_ns",
				    jint(o->thr[t]));
	}
	add_rate(ms, pn, "missed", a->cp->missed, da->n + a->cp->missed, b->cp->missed,
		 db->n + b->cp->missed, o);
	add_rate(ms, pn, "dropped", a->cp->dropped, da->n + a->cp->dropped, b->cp->dropped,
		 db->n + b->cp->dropped, o);
}

static uint64_t geti(const json_t *o, const char *k, int *have)
{
	json_t *v = json_object_get(o, k);

	*have = json_is_integer(v);
	return *have ? (uint64_t)json_integer_value(v) : 0;
}

/* xruns or dropped frames: events in exposures (periods, frames; the run's
 * duration when those are unknown). */
static void event_metric(json_t *ms, const json_t *ra, const json_t *rb, const char *name,
			 const char *key, const char *exposure, const struct lw_cmp_opts *o)
{
	const json_t *wa = json_object_get(ra, "workloads"), *wb = json_object_get(rb, "workloads");
	int ha, hb, hea, heb;
	uint64_t xa = geti(wa, key, &ha), xb = geti(wb, key, &hb);
	uint64_t ea = geti(wa, exposure, &hea), eb = geti(wb, exposure, &heb);

	if (!ha || !hb) {
		json_array_append_new(ms, na_metric(metric(NULL, name, "count", "count",
			ha ? (double)xa : NAN, hb ? (double)xb : NAN),
			!ha && !hb ? "not recorded" : !ha ? "not recorded in the baseline" :
							    "not recorded in the run"));
		return;
	}
	if (!hea || !heb || !ea || !eb) {
		int h1, h2;

		ea = geti(ra, "duration_ns", &h1) / LW_NSEC_PER_MSEC;
		eb = geti(rb, "duration_ns", &h2) / LW_NSEC_PER_MSEC;
	}
	add_rate(ms, NULL, name, xa, ea, xb, eb, o);
}

static void power_metric(json_t *ms, const json_t *ra, const json_t *rb, const struct lw_cmp_opts *o)
{
	const json_t *pa = json_object_get(ra, "power"), *pb = json_object_get(rb, "power");
	double va = json_number_value(json_object_get(pa, "mean_w"));
	double vb = json_number_value(json_object_get(pb, "mean_w"));
	json_t *m;

	if (json_is_null(pa) || json_is_null(pb) || !pa || !pb) {
		m = metric(NULL, "power", "power", "W", pa && !json_is_null(pa) ? va : NAN,
			   pb && !json_is_null(pb) ? vb : NAN);
		json_array_append_new(ms, na_metric(m, "not recorded"));
		return;
	}
	m = metric(NULL, "power", "power", "W", va, vb);
	if (json_is_number(json_object_get(pa, "stddev_w")) &&
	    json_is_number(json_object_get(pb, "stddev_w")) &&
	    json_is_integer(json_object_get(pa, "samples")) &&
	    json_is_integer(json_object_get(pb, "samples"))) {
		double sa = json_number_value(json_object_get(pa, "stddev_w"));
		double sb = json_number_value(json_object_get(pb, "stddev_w"));
		double p = lw_welch_p(va, sa * sa, (uint64_t)json_integer_value(json_object_get(pa, "samples")),
				      vb, sb * sb, (uint64_t)json_integer_value(json_object_get(pb, "samples")));

		set_verdict(m, "welch", p, verdict(1, rel_change(va, vb), o->practical, 1), NULL);
	} else {
		na_metric(m, "one average per run, no spread: not tested (rules can still judge it)");
	}
	json_array_append_new(ms, m);
}

/* idle residency and spike causes: shown side by side, neither direction better */
static void share_metrics(json_t *ms, const json_t *ra, const json_t *rb, const char *key,
			  const char *prefix)
{
	const json_t *a = json_object_get(ra, key), *b = json_object_get(rb, key);
	const char *k;
	json_t *v;
	char name[96];

	if (!json_is_object(a) && !json_is_object(b)) {
		json_array_append_new(ms, na_metric(metric(NULL, prefix, "info", "fraction", NAN, NAN),
						    "not recorded"));
		return;
	}
	/* every name either run has */
	for (int pass = 0; pass < 2; pass++) {
		const json_t *src = pass ? b : a, *other = pass ? a : b;

		json_object_foreach((json_t *)src, k, v) {
			json_t *x = json_object_get(other, k);

			if (pass && json_object_get(a, k))
				continue;
			snprintf(name, sizeof(name), "%s:%s", prefix, k);
			json_array_append_new(ms, na_metric(metric(NULL, name, "info", "fraction",
				pass ? (x ? json_number_value(x) : NAN) : json_number_value(v),
				pass ? json_number_value(v) : (x ? json_number_value(x) : NAN)),
				"informational: neither direction is better"));
		}
	}
}

static json_t *comparison_json(const struct rcache *base, const struct rcache *run,
			       const json_t *rbase, const json_t *rrun, size_t ib, size_t ir,
			       const struct lw_cmp_opts *o)
{
	json_t *ms = json_array();

	for (size_t i = 0; i < base->r->np; i++)
		for (size_t j = 0; j < run->r->np; j++)
			if (base->r->p[i].probe == run->r->p[j].probe)
				probe_metrics(ms, &base->p[i], &run->p[j], o);
	event_metric(ms, rbase, rrun, "xruns", "xruns", "periods", o);
	event_metric(ms, rbase, rrun, "dropped_frames", "dropped_frames", "frames", o);
	power_metric(ms, rbase, rrun, o);
	share_metrics(ms, rbase, rrun, "idle", "idle");
	share_metrics(ms, rbase, rrun, "causes", "cause");
	if (holm(ms, o->alpha) < 0) {
		json_decref(ms);
		return NULL;
	}
	return json_pack("{s:I, s:I, s:o}", "run", (json_int_t)ir, "baseline", (json_int_t)ib,
			 "metrics", ms);
}

json_t *lw_compare(const struct lw_crun *runs, size_t n, size_t baseline,
		   const struct lw_cmp_opts *o)
{
	struct rcache *rc = calloc(n ? n : 1, sizeof(*rc));
	json_t *doc = NULL, *rj, *cj, *thr;
	size_t i;

	if (!rc) {
		error("out of memory");
		return NULL;
	}
	if (n < 2 || baseline >= n) {
		error("compare: two runs at least, and a baseline among them");
		goto out;
	}
	for (i = 0; i < n; i++)
		if (rcache_fill(&rc[i], &runs[i], o, rc, i) < 0)
			goto out;
	rj = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(rj, run_json(&rc[i], i, o));
	cj = json_array();
	for (i = 0; i < n; i++) {
		json_t *one;

		if (i == baseline)
			continue;
		one = comparison_json(&rc[baseline], &rc[i], json_array_get(rj, baseline),
				      json_array_get(rj, i), baseline, i, o);
		if (!one) {
			json_decref(rj);
			json_decref(cj);
			goto out;
		}
		json_array_append_new(cj, one);
	}
	thr = json_array();
	for (i = 0; i < o->nthr; i++)
		json_array_append_new(thr, jint(o->thr[i]));
	doc = json_pack("{s:s, s:i, s:{s:s, s:s}, s:{s:f, s:f, s:f, s:f, s:I, s:I, s:o, s:s, s:s,"
			" s:{s:s, s:I, s:I, s:I}}, s:I, s:o, s:o}",
		"schema", LW_COMPARISON_SCHEMA, "version", LW_COMPARISON_VERSION,
		"tool", "name", "latwatt", "version", LW_VERSION,
		"settings", "alpha", o->alpha, "practical", o->practical, "min_effect", o->min_effect,
		"confidence", o->conf, "resamples", (json_int_t)o->resamples,
		"seed", (json_int_t)o->seed, "thresholds_ns", thr,
		"percentile_ci", "bootstrap (order statistics drawn from Beta)",
		"percentile_rule", "nearest rank",
		"evt", "model", lw_evt_model_name(o->model), "block_ns", (json_int_t)o->block_ns,
		"horizon_ns", (json_int_t)o->horizon_ns, "min_blocks", (json_int_t)o->min_blocks,
		"baseline", (json_int_t)baseline, "runs", rj, "comparisons", cj);
	if (!doc)
		error("compare: cannot build the comparison document");
	else
		json_object_set_new(doc, "probes", report_view(json_object_get(doc, "runs"),
			json_object_get(doc, "comparisons"), baseline));
out:
	for (i = 0; i < n; i++)
		rcache_free(&rc[i]);
	free(rc);
	return doc;
}

/*
 * The report view: "probes": {NAME: {"stats": {STAT: [one per run: {value_ns,
 * ci_low_ns, ci_high_ns, verdict, change}]}}} for p50 ... p99.99 and max, in
 * the words the HTML report uses (better, worse, same, inconclusive,
 * baseline, no data; higher, lower, equal for the max).
 */
static json_t *report_view(const json_t *runs, const json_t *cmps, size_t base)
{
	static const char *const stat[] = { "p50", "p90", "p99", "p99.9", "p99.99", "max" };
	json_t *probes = json_object(), *r, *pj;
	const char *pn;
	size_t i;

	json_object_foreach(json_object_get(json_array_get(runs, base), "probes"), pn, pj) {
		json_t *stats = json_object();

		for (size_t k = 0; k < sizeof(stat) / sizeof(stat[0]); k++) {
			json_t *arr = json_array();
			char name[96];

			snprintf(name, sizeof(name), "%s.%s", pn, stat[k]);
			json_array_foreach(runs, i, r) {
				const json_t *rp = json_object_get(json_object_get(r, "probes"), pn);
				const json_t *pc = json_object_get(json_object_get(rp, "percentiles"), stat[k]);
				const json_t *v = k == 5 ? json_object_get(rp, "max_ns") : json_object_get(pc, "value_ns");
				const json_t *ci = json_object_get(pc, "ci_ns"), *m = NULL, *c;
				const char *verdict = "no data";
				double change = 0;
				size_t ci_idx, mi;

				json_array_foreach(cmps, ci_idx, c) {
					if ((size_t)json_integer_value(json_object_get(c, "run")) != i)
						continue;
					json_array_foreach(json_object_get(c, "metrics"), mi, m)
						if (!strcmp(json_string_value(json_object_get(m, "name")), name))
							break;
					if (mi == json_array_size(json_object_get(c, "metrics")))
						m = NULL;
				}
				if (i == base && json_is_integer(v)) {
					verdict = "baseline";
				} else if (m && json_is_integer(v)) {
					const char *mv = json_string_value(json_object_get(m, "verdict"));
					double b = dval(m, "baseline"), x = dval(m, "value");

					change = isfinite(dval(m, "rel")) ? dval(m, "rel") : 0;
					if (k == 5)
						verdict = x > b ? "higher" : x < b ? "lower" : "equal";
					else if (!strcmp(mv, LW_BETTER) || !strcmp(mv, LW_WORSE))
						verdict = mv;
					else if (!strcmp(mv, LW_NSD))
						verdict = "same";
					else
						verdict = "inconclusive";
				}
				json_array_append_new(arr, json_pack("{s:O?, s:o, s:o, s:s, s:f}",
					"value_ns", v,
					"ci_low_ns", json_is_array(ci) ? json_integer((json_int_t)llround(
						json_number_value(json_array_get(ci, 0)))) : json_incref((json_t *)v),
					"ci_high_ns", json_is_array(ci) ? json_integer((json_int_t)llround(
						json_number_value(json_array_get(ci, 1)))) : json_incref((json_t *)v),
					"verdict", verdict, "change", change));
			}
			json_object_set_new(stats, stat[k], arr);
		}
		json_object_set_new(probes, pn, json_pack("{s:o}", "stats", stats));
	}
	return probes;
}

/* ---- text ------------------------------------------------------------- */

static const char *sval(const json_t *o, const char *k, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s && *s ? s : dflt;
}

static double dval(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A value in the metric's unit into @buf: latencies in us. */
static const char *fmt_val(double v, const char *unit, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "n/a");
	else if (!strcmp(unit, "ns"))
		snprintf(buf, len, "%.1f", v / 1e3);
	else if (!strcmp(unit, "count"))
		snprintf(buf, len, "%.0f", v);
	else if (!strcmp(unit, "W"))
		snprintf(buf, len, "%.3fW", v);
	else
		snprintf(buf, len, "%.3f", v);
	return buf;
}

/* "[lo,hi]" scaled, with @prec decimals; percentages signed */
static const char *fmt_ci(const json_t *pair, double scale, int prec, int pct, char *buf, size_t len)
{
	double lo = json_number_value(json_array_get(pair, 0)) * scale;
	double hi = json_number_value(json_array_get(pair, 1)) * scale;

	if (!json_is_array(pair))
		buf[0] = 0;
	else if (pct)
		snprintf(buf, len, "[%+.*f%%,%+.*f%%]", prec, lo, prec, hi);
	else
		snprintf(buf, len, " [%.*f,%.*f]", prec, lo, prec, hi);
	return buf;
}

static const char *fmt_p(double p, char *buf, size_t len)
{
	if (!isfinite(p))
		snprintf(buf, len, "-");
	else if (p < 0.001)
		snprintf(buf, len, "<0.001");
	else
		snprintf(buf, len, "%.3f", p);
	return buf;
}

static void print_metric(FILE *out, const json_t *m, const json_t *ra, const json_t *rb)
{
	const char *name = sval(m, "name", "?"), *unit = sval(m, "unit", ""), *kind = sval(m, "kind", "");
	const char *probe = sval(m, "probe", NULL), *short_name = name;
	char a[64], b[64], ch[32], ci[48], p[16], ca[48], cb[48], label[64];
	double rel = dval(m, "rel");
	const json_t *pa = NULL, *pb = NULL;

	if (probe) {
		short_name = name + strlen(probe) + 1;
		pa = json_object_get(json_object_get(ra, "probes"), probe);
		pb = json_object_get(json_object_get(rb, "probes"), probe);
	}
	snprintf(label, sizeof(label), "%s", short_name);
	fmt_val(dval(m, "baseline"), unit, a, sizeof(a));
	fmt_val(dval(m, "value"), unit, b, sizeof(b));
	ca[0] = cb[0] = 0;
	if (!strcmp(kind, "percentile")) {
		fmt_ci(json_object_get(json_object_get(json_object_get(pa, "percentiles"), short_name),
				       "ci_ns"), 1e-3, 1, 0, ca, sizeof(ca));
		fmt_ci(json_object_get(json_object_get(json_object_get(pb, "percentiles"), short_name),
				       "ci_ns"), 1e-3, 1, 0, cb, sizeof(cb));
	} else if (!strcmp(kind, "worst-case")) {
		fmt_ci(json_object_get(json_object_get(pa, "worst_case"), "ci_ns"), 1e-3, 0, 0,
		       ca, sizeof(ca));
		fmt_ci(json_object_get(json_object_get(pb, "worst_case"), "ci_ns"), 1e-3, 0, 0,
		       cb, sizeof(cb));
		char h[32];
		lw_format_duration((uint64_t)dval(m, "horizon_ns"), h, sizeof(h));
		snprintf(label, sizeof(label), "worst/%s est.", h);
	} else if (!strcmp(kind, "block-maxima")) {
		char h[32];
		lw_format_duration((uint64_t)dval(m, "block_ns"), h, sizeof(h));
		snprintf(label, sizeof(label), "max per %s", h);
	} else if (!strcmp(kind, "count") && isfinite(dval(m, "rate"))) {
		snprintf(ca, sizeof(ca), " (%.3g%%)", dval(m, "baseline_rate") * 100);
		snprintf(cb, sizeof(cb), " (%.3g%%)", dval(m, "rate") * 100);
		rel = dval(m, "rate_rel");
	} else if (!strcmp(kind, "distribution")) {
		snprintf(ca, sizeof(ca), " (median)");
		snprintf(cb, sizeof(cb), " (median)");
	}
	strncat(a, ca, sizeof(a) - strlen(a) - 1);
	strncat(b, cb, sizeof(b) - strlen(b) - 1);
	if (json_is_true(json_object_get(m, "rel_infinite")) ||
	    (!strcmp(kind, "count") && isinf(rel)))
		snprintf(ch, sizeof(ch), "new");
	else if (isfinite(rel))
		snprintf(ch, sizeof(ch), "%+.1f%%", rel * 100);
	else
		snprintf(ch, sizeof(ch), "-");
	if (!strcmp(kind, "distribution"))
		snprintf(ci, sizeof(ci), "delta %+.3f", dval(m, "cliffs_delta"));
	else
		fmt_ci(json_object_get(m, "ci_rel"), 100, 1, 1, ci, sizeof(ci));
	fprintf(out, "  %-15s %-24s %-24s %8s %-19s %7s  %s\n", label, a, b, ch, ci,
		fmt_p(dval(m, "p"), p, sizeof(p)), sval(m, "verdict", "?"));
}

void lw_compare_print(const json_t *doc, FILE *out)
{
	const json_t *runs = json_object_get(doc, "runs"), *r, *c;
	size_t i, base = (size_t)json_integer_value(json_object_get(doc, "baseline"));
	const json_t *set = json_object_get(doc, "settings");

	fprintf(out, "%-3s %-28s %-22s %-16s %-9s %-9s %-10s %s\n", "", "run", "kernel", "preempt",
		"nohz_full", "board", "status", "duration");
	json_array_foreach(runs, i, r) {
		char d[32] = "?";
		json_t *dur = json_object_get(r, "duration_ns");

		if (json_is_integer(dur))
			lw_format_duration((uint64_t)json_integer_value(dur), d, sizeof(d));
		fprintf(out, "%c%c  %-28s %-22s %-16s %-9s %-9s %-10s %s\n", (int)('A' + (i % 26)),
			i == base ? '*' : ' ', sval(r, "label", "?"), sval(r, "kernel_release", "?"),
			sval(r, "preempt_model", "?"), sval(r, "nohz_full", "off"),
			sval(r, "board", "?"), sval(r, "status", "?"), d);
	}
	fprintf(out, "(* baseline; latencies in us; %.0f%% intervals from %" JSON_INTEGER_FORMAT
		" seeded resamples; a verdict needs p < %g and a change beyond %.0f%%)\n",
		dval(set, "confidence") * 100, json_integer_value(json_object_get(set, "resamples")),
		dval(set, "alpha"), dval(set, "practical") * 100);
	json_array_foreach(json_object_get(doc, "comparisons"), i, c) {
		size_t ir = (size_t)json_integer_value(json_object_get(c, "run")), k;
		const json_t *ra = json_array_get(runs, base), *rb = json_array_get(runs, ir), *m;
		const char *probe = "";

		json_array_foreach(json_object_get(c, "metrics"), k, m) {
			const char *mp = sval(m, "probe", "");

			if (!k || strcmp(mp, probe)) {
				probe = mp;
				fprintf(out, "\n%c vs %c%s%s\n", (int)('A' + (ir % 26)), (int)('A' + (base % 26)),
					*probe ? ": probe " : ": workloads, power, idle, causes",
					probe);
				fprintf(out, "  %-15s %-24s %-24s %8s %-19s %7s  %s\n", "metric",
					"baseline", "run", "change", "CI of change", "p", "verdict");
			}
			print_metric(out, m, ra, rb);
		}
		/* why worst-case estimates were refused, once per probe */
		const char *pn;
		json_t *pj;
		json_object_foreach(json_object_get(rb, "probes"), pn, pj) {
			json_t *wc = json_object_get(pj, "worst_case");

			if (json_is_false(json_object_get(wc, "estimated")))
				fprintf(out, "  note: %s worst case of %c not extrapolated: %s\n", pn,
					(int)('A' + (ir % 26)), sval(wc, "reason", "?"));
		}
	}
	if (json_array_size(json_object_get(doc, "rules"))) {
		fprintf(out, "\nrules\n");
		json_array_foreach(json_object_get(doc, "rules"), i, r)
			fprintf(out, "  %-6s %-24s %s\n", sval(r, "result", "?"), sval(r, "rule", "?"),
				sval(r, "detail", ""));
	}
}
