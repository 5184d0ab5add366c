// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workload summaries for `latwatt analyze`: read back every records file
 * (RUN/<instance>.records), and the manifest's "workloads" object, into one JSON object per
 * workload instance.  Record files are found by listing the directory, so a
 * run killed before it could write its manifest still gets its summaries.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/rundir.h"
#include "workloads/records.h"
#include "workloads/workload.h"

#define LIST_MISSES 20		/* deadline misses listed with their timestamps */

struct vec {
	uint64_t *v;
	size_t n, cap;
};

static int vec_push(struct vec *a, uint64_t x)
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
static uint64_t pct(const struct vec *a, double p)
{
	size_t k = (size_t)ceil(p * (double)a->n);

	return a->n ? a->v[k ? k - 1 : 0] : 0;
}

static json_t *dist(struct vec *a)
{
	double sum = 0;

	qsort(a->v, a->n, sizeof(*a->v), cmp_u64);
	for (size_t i = 0; i < a->n; i++)
		sum += (double)a->v[i];
	return json_pack("{s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I}",
		"count", (json_int_t)a->n, "min", (json_int_t)pct(a, 0),
		"mean", a->n ? sum / (double)a->n : 0.0,
		"p50", (json_int_t)pct(a, 0.5), "p90", (json_int_t)pct(a, 0.9),
		"p99", (json_int_t)pct(a, 0.99), "p999", (json_int_t)pct(a, 0.999),
		"max", (json_int_t)(a->n ? a->v[a->n - 1] : 0));
}

struct acc {
	struct vec a, b, c, d;		/* four distributions */
	uint64_t count, miss, skipped, first, last;
	int64_t worst;
	json_t *misses;
};

static int read_audio(struct lw_records_reader *r, struct acc *x)
{
	struct lw_audio_record rec;
	int ret;

	while ((ret = lw_records_next(r, &rec)) > 0) {
		x->count++;
		if (rec.boundary_ns < x->first)
			x->first = rec.boundary_ns;
		if (rec.boundary_ns > x->last)
			x->last = rec.boundary_ns;
		if (rec.slack_ns < x->worst)
			x->worst = rec.slack_ns;
		if (rec.flags & LW_REC_MISS) {
			x->miss++;
			if (json_array_size(x->misses) < LIST_MISSES)
				json_array_append_new(x->misses, json_pack("{s:I, s:I, s:i, s:i, s:I, s:b}",
					"boundary_ns", (json_int_t)rec.boundary_ns,
					"period", (json_int_t)rec.period, "stream", rec.stream,
					"cpu", rec.cpu, "lateness_ns", (json_int_t)-(int64_t)rec.slack_ns,
					"skipped", !!(rec.flags & LW_REC_SKIPPED)));
		}
		if (rec.flags & LW_REC_SKIPPED) {
			x->skipped++;
			continue;
		}
		if (vec_push(&x->a, rec.wakeup_ns) < 0 || vec_push(&x->b, rec.irq_ns) < 0 ||
		    vec_push(&x->c, (uint64_t)rec.irq_ns + rec.wakeup_ns) < 0 ||
		    vec_push(&x->d, rec.proc_ns) < 0)
			return -1;
	}
	return ret;
}

static int read_video(struct lw_records_reader *r, struct acc *x)
{
	struct lw_video_record rec;
	int ret;

	while ((ret = lw_records_next(r, &rec)) > 0) {
		x->count++;
		if (rec.vsync_ns < x->first)
			x->first = rec.vsync_ns;
		if (rec.vsync_ns > x->last)
			x->last = rec.vsync_ns;
		if (rec.slack_ns < x->worst)
			x->worst = rec.slack_ns;
		if (rec.flags & LW_REC_MISS) {
			x->miss++;
			if (json_array_size(x->misses) < LIST_MISSES)
				json_array_append_new(x->misses, json_pack("{s:I, s:I, s:i, s:I, s:b}",
					"vsync_ns", (json_int_t)rec.vsync_ns,
					"frame", (json_int_t)rec.frame, "cpu", rec.cpu,
					"lateness_ns", (json_int_t)-(int64_t)rec.slack_ns,
					"skipped", !!(rec.flags & LW_REC_SKIPPED)));
		}
		if (rec.flags & LW_REC_SKIPPED) {
			x->skipped++;
			continue;
		}
		if (vec_push(&x->a, rec.latency_ns) < 0 || vec_push(&x->b, rec.capture_ns) < 0 ||
		    vec_push(&x->c, rec.wakeup_ns) < 0 || vec_push(&x->d, rec.proc_ns) < 0)
			return -1;
	}
	return ret;
}

/* Summary of one records file; NULL after error(). */
static json_t *summarize_file(const char *path, const char *file, char *instance, size_t len)
{
	struct lw_records_hdr h;
	struct lw_records_reader *r = lw_records_open(path, &h);
	struct acc x = { .first = UINT64_MAX, .worst = INT64_MAX };
	json_t *o = NULL;
	double interval, span;
	int audio, ret;

	if (!r)
		return NULL;
	snprintf(instance, len, "%s", h.instance[0] ? h.instance : file);
	audio = !strcmp(h.kind, "audio");
	if (!audio && strcmp(h.kind, "video")) {
		error("%s: unknown workload kind '%s'", path, h.kind);
		goto out;
	}
	if (h.record_size != (audio ? sizeof(struct lw_audio_record) : sizeof(struct lw_video_record))) {
		error("%s: record size %u, a %s record is %zu bytes", path, h.record_size, h.kind,
		      audio ? sizeof(struct lw_audio_record) : sizeof(struct lw_video_record));
		goto out;
	}
	x.misses = json_array();
	ret = audio ? read_audio(r, &x) : read_video(r, &x);
	if (ret < 0) {
		json_decref(x.misses);
		goto out;
	}
	interval = (double)h.interval_num / (double)h.interval_den;
	span = x.count ? (double)(x.last - x.first) + interval : 0;
	o = json_pack("{s:s, s:s, s:I, s:f, s:f, s:I, s:I}",
		"kind", h.kind, "file", file, "records", (json_int_t)x.count,
		"interval_ns", interval, "span_s", span / 1e9,
		audio ? "xruns" : "dropped", (json_int_t)x.miss,
		"skipped", (json_int_t)x.skipped);
	if (audio) {
		json_object_set_new(o, "streams", json_integer(h.streams));
		json_object_set_new(o, "periods", json_integer((json_int_t)x.count));
		json_object_set_new(o, "periods_per_s_per_stream", json_real(span > 0 && h.streams ?
			(double)x.count / h.streams / (span / 1e9) : 0));
		json_object_set_new(o, "wakeup_ns", dist(&x.a));
		json_object_set_new(o, "irq_ns", dist(&x.b));
		json_object_set_new(o, "latency_ns", dist(&x.c));
		json_object_set_new(o, "proc_ns", dist(&x.d));
	} else {
		json_object_set_new(o, "frames", json_integer((json_int_t)x.count));
		json_object_set_new(o, "frames_per_s", json_real(span > 0 ? (double)x.count / (span / 1e9) : 0));
		json_object_set_new(o, "latency_ns", dist(&x.a));
		json_object_set_new(o, "capture_ns", dist(&x.b));
		json_object_set_new(o, "wakeup_ns", dist(&x.c));
		json_object_set_new(o, "proc_ns", dist(&x.d));
	}
	json_object_set_new(o, "worst_slack_ns", json_integer(x.count ? (json_int_t)x.worst : 0));
	json_object_set_new(o, audio ? "xrun_list" : "dropped_list", x.misses);
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
	if (access(path, F_OK) == 0 && !(manifest = lw_json_load(path)))
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

static void dist_line(FILE *out, const char *label, const json_t *d)
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

static json_int_t geti(const json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

void lw_workload_summaries_print(FILE *out, const json_t *summaries)
{
	const char *key;
	json_t *s;

	json_object_foreach((json_t *)summaries, key, s) {
		const char *kind = json_string_value(json_object_get(s, "kind"));

		if (!kind)
			kind = "?";
		if (!strcmp(kind, "audio")) {
			fprintf(out, "  %s: %lld periods (%lld streams), %lld xruns (%lld skipped), "
				"worst slack %.1fus\n", key, geti(s, "periods"), geti(s, "streams"),
				geti(s, "xruns"), geti(s, "skipped"),
				(double)geti(s, "worst_slack_ns") / 1e3);
			dist_line(out, "interrupt->thread", json_object_get(s, "wakeup_ns"));
			dist_line(out, "boundary->thread", json_object_get(s, "latency_ns"));
			dist_line(out, "processing", json_object_get(s, "proc_ns"));
		} else if (!strcmp(kind, "video")) {
			fprintf(out, "  %s: %lld frames, %lld dropped (%lld skipped), worst slack %.1fus\n",
				key, geti(s, "frames"), geti(s, "dropped"), geti(s, "skipped"),
				(double)geti(s, "worst_slack_ns") / 1e3);
			dist_line(out, "capture->display", json_object_get(s, "latency_ns"));
			dist_line(out, "capture (DMA)", json_object_get(s, "capture_ns"));
			dist_line(out, "processing", json_object_get(s, "proc_ns"));
		} else {
			fprintf(out, "  %s: %s %s, %.4g %s/s, intensity %g, cpus %s\n", key, kind,
				json_string_value(json_object_get(s, "stressor")) ?: "",
				json_real_value(json_object_get(s, "ops_per_s")),
				json_string_value(json_object_get(s, "unit")) ?: "ops",
				json_real_value(json_object_get(s, "intensity")),
				json_string_value(json_object_get(s, "cpus")) ?: "?");
		}
	}
}
