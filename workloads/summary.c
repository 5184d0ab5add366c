// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload summaries for `latwatt analyze`: read back every records file
 * (RUN/<instance>.records), and the manifest's "workloads" object, into one JSON object per
 * workload instance.  Record files are found by listing the directory, so a
 * run killed before it could write its manifest still gets its summaries.
 * Each kind of records is read by its descriptor (workloads/rkind.h).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/input.h"
#include "lib/rundir.h"
#include "lib/sort.h"
#include "workloads/records.h"
#include "workloads/rkind.h"
#include "workloads/workload.h"

const struct lw_rkind *lw_rkind_at(size_t i)
{
	for (const struct lw_workload *const *w = lw_workloads; *w; w++)
		if ((*w)->records && !i--)
			return (*w)->records;
	return NULL;
}

const struct lw_rkind *lw_rkind_find(const char *kind)
{
	const struct lw_rkind *k;

	for (size_t i = 0; kind && (k = lw_rkind_at(i)); i++)
		if (!strcmp(k->kind, kind))
			return k;
	return NULL;
}

const struct lw_rkind *lw_rkind_of_probe(int probe)
{
	const struct lw_rkind *k;

	for (size_t i = 0; (k = lw_rkind_at(i)); i++)
		if (k->probe >= 0 && k->probe == probe)
			return k;
	return NULL;
}

int lw_rvec_push(struct lw_rvec *a, uint64_t x)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 4096;
		uint64_t *v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return error("out of memory");
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Nearest-rank percentile of a sorted vector. */
static uint64_t pct(const struct lw_rvec *a, double p)
{
	size_t k = (size_t)ceil(p * (double)a->n);

	return a->n ? a->v[k ? k - 1 : 0] : 0;
}

json_t *lw_rvec_dist(struct lw_rvec *a)
{
	double sum = 0;

	if (a->n)
		lw_qsort(a->v, a->n, sizeof(*a->v), cmp_u64);
	for (size_t i = 0; i < a->n; i++)
		sum += (double)a->v[i];
	return json_pack("{s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I}",
		"count", (json_int_t)a->n, "min", (json_int_t)pct(a, 0),
		"mean", a->n ? sum / (double)a->n : 0.0,
		"p50", (json_int_t)pct(a, 0.5), "p90", (json_int_t)pct(a, 0.9),
		"p99", (json_int_t)pct(a, 0.99), "p999", (json_int_t)pct(a, 0.999),
		"max", (json_int_t)(a->n ? a->v[a->n - 1] : 0));
}

int lw_rec_count(struct lw_rec_acc *x, uint64_t t_ns, int64_t slack_ns, uint32_t flags)
{
	x->count++;
	if (t_ns < x->first)
		x->first = t_ns;
	if (t_ns > x->last)
		x->last = t_ns;
	if (slack_ns < x->worst)
		x->worst = slack_ns;
	if (flags & LW_REC_SKIPPED)
		x->skipped++;
	if (!(flags & LW_REC_MISS))
		return 0;
	x->miss++;
	return json_array_size(x->misses) < LW_REC_LIST_MISSES;
}

/* Summary of one records file; NULL after error(). */
static json_t *summarize_file(const char *path, const char *file, char *instance, size_t len)
{
	struct lw_records_hdr h;
	struct lw_records_reader *r = lw_records_open(path, &h);
	struct lw_rec_acc x = { .first = UINT64_MAX, .worst = INT64_MAX };
	const struct lw_rkind *k;
	json_t *o = NULL;
	double interval, span;
	int ret;

	if (!r)
		return NULL;
	snprintf(instance, len, "%s", h.instance[0] ? h.instance : file);
	k = lw_rkind_find(h.kind);
	if (!k) {
		error("%s: unknown workload kind '%s'", path, h.kind);
		goto out;
	}
	if (h.record_size != (h.version == 1 ? k->record_size_v1 : k->record_size)) {
		error("%s: record size %u, a %s record of version %u is %zu bytes", path,
		      h.record_size, h.kind, h.version,
		      h.version == 1 ? k->record_size_v1 : k->record_size);
		goto out;
	}
	x.misses = json_array();
	ret = k->read(r, &x);
	if (ret < 0) {
		json_decref(x.misses);
		goto out;
	}
	interval = (double)h.interval_num / (double)h.interval_den;
	span = x.count ? (double)(x.last - x.first) + interval : 0;
	o = json_pack("{s:s, s:s, s:I, s:f, s:f, s:I, s:I}",
		"kind", h.kind, "file", file, "records", (json_int_t)x.count,
		"interval_ns", interval, "span_s", span / 1e9,
		k->miss_key, (json_int_t)x.miss, "skipped", (json_int_t)x.skipped);
	k->summarize(o, &x, &h, span);
	json_object_set_new(o, "worst_slack_ns", json_integer(x.count ? (json_int_t)x.worst : 0));
	json_object_set_new(o, k->list_key, x.misses);
out:
	free(x.a.v);
	free(x.b.v);
	free(x.c.v);
	free(x.d.v);
	lw_records_close_reader(r);
	return o;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a > b && !strcmp(s + a - b, suffix);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

json_t *lw_workload_summaries(const char *rundir)
{
	json_t *out = json_object(), *manifest = NULL, *mw;
	struct dirent **names = NULL;
	char path[4096];
	int n;

	snprintf(path, sizeof(path), "%s/manifest.json", rundir);
	if (access(path, F_OK) == 0 &&
	    !(manifest = lw_json_load_flags(path, LW_IN_NOFOLLOW, LW_CAP_MANIFEST)))
		goto fail;
	n = scandir(rundir, &names, NULL, by_name);
	if (n < 0) {
		error_errno("cannot read the run directory %s", rundir);
		goto fail;
	}
	for (int i = 0; i < n; i++) {
		char instance[256];
		json_t *s = NULL;
		int bad = 0;

		if (ends_with(names[i]->d_name, ".records")) {
			snprintf(path, sizeof(path), "%s/%s", rundir, names[i]->d_name);
			s = summarize_file(path, names[i]->d_name, instance, sizeof(instance));
			if (s)
				json_object_set_new(out, instance, s);
			else
				bad = 1;
		}
		free(names[i]);
		if (bad) {
			while (++i < n)
				free(names[i]);
			free(names);
			goto fail;
		}
	}
	free(names);

	/* What only the run knew: parameters, calibration, stress throughput. */
	mw = manifest ? json_object_get(manifest, "workloads") : NULL;
	if (json_is_object(mw)) {
		const char *key;
		json_t *v;

		json_object_foreach(mw, key, v) {
			json_t *s = json_object_get(out, key);
			static const char *const keep[] = {
				"params", "spec", "policy", "boundaries", "vsyncs", "markers",
				"max_irq_ns", "started_ns", "stopped_ns", "stressor", "unit",
				"intensity", "cpus", "size", "ops", "ops_per_s", "workers",
				"records",
			};

			if (!s) {
				json_t *k = json_object_get(v, "kind");

				s = json_object();
				json_object_set_new(s, "kind", k ? json_incref(k) : json_string("unknown"));
				json_object_set_new(out, key, s);
			}
			for (size_t k = 0; k < sizeof(keep) / sizeof(keep[0]); k++)
				if (json_object_get(v, keep[k]))
					json_object_set(s, keep[k], json_object_get(v, keep[k]));
			if (json_is_array(json_object_get(v, "streams"))) {
				json_t *cal = json_array(), *st;
				size_t idx;

				json_array_foreach(json_object_get(v, "streams"), idx, st)
					json_array_append(cal, json_object_get(st, "calibration"));
				json_object_set_new(s, "calibration", cal);
			}
		}
	}
	json_decref(manifest);
	return out;
fail:
	json_decref(manifest);
	json_decref(out);
	return NULL;
}

void lw_rthread_get(struct lw_rthread *t, const json_t *th, const char *policy, const char *name,
		    int prio)
{
	const json_t *tid = json_object_get(th, "tid"), *p = json_object_get(th, "priority");
	int other = policy && !strcmp(policy, "SCHED_OTHER");

	t->tid = json_is_integer(tid) && json_integer_value(tid) > 0 ? (int)json_integer_value(tid) : -1;
	if (json_is_integer(p))
		prio = (int)json_integer_value(p);
	t->kprio = other || (json_is_integer(p) && !prio) ? 120 : prio > 0 && prio < 100 ?
		   99 - prio : -1;
	snprintf(t->name, sizeof(t->name), "%s", name);
}

uint64_t lw_rwork_budget(const json_t *s)
{
	json_int_t p50 = json_integer_value(json_object_get(json_object_get(s, "proc_ns"), "p50"));

	return p50 > 0 ? 2 * (uint64_t)p50 : 0;
}

void lw_rec_dist_line(FILE *out, const char *label, const json_t *d)
{
	if (!json_is_object(d) || !json_integer_value(json_object_get(d, "count")))
		return;
	fprintf(out, "    %-22s min %8.1f  p50 %8.1f  p99 %8.1f  p99.9 %8.1f  max %8.1f us\n", label,
		(double)json_integer_value(json_object_get(d, "min")) / 1e3,
		(double)json_integer_value(json_object_get(d, "p50")) / 1e3,
		(double)json_integer_value(json_object_get(d, "p99")) / 1e3,
		(double)json_integer_value(json_object_get(d, "p999")) / 1e3,
		(double)json_integer_value(json_object_get(d, "max")) / 1e3);
}

void lw_workload_summaries_print(FILE *out, const json_t *summaries)
{
	const char *key;
	json_t *s;

	json_object_foreach((json_t *)summaries, key, s) {
		const char *kind = json_string_value(json_object_get(s, "kind"));
		const struct lw_rkind *k = lw_rkind_find(kind);

		if (!kind)
			kind = "?";
		if (k) {
			k->print(out, key, s);
			continue;
		}
		fprintf(out, "  %s: %s %s, %.4g %s/s, intensity %g, cpus %s\n", key, kind,
			json_string_value(json_object_get(s, "stressor")) ?: "",
			json_real_value(json_object_get(s, "ops_per_s")),
			json_string_value(json_object_get(s, "unit")) ?: "ops",
			json_real_value(json_object_get(s, "intensity")),
			json_string_value(json_object_get(s, "cpus")) ?: "?");
	}
}
