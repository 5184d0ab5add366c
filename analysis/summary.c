// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/summary.h"
#include "lib/error.h"
#include "lib/samples.h"

/* Index of the series (@probe, @cpu), created if new; -1 on error.  An
 * index, not a pointer: creating a series moves the array. */
static long series_get(struct lw_summary *sum, unsigned probe, int cpu)
{
	struct lw_series *s;

	for (size_t i = 0; i < sum->n; i++)
		if (sum->s[i].probe == probe && sum->s[i].cpu == cpu)
			return (long)i;
	s = realloc(sum->s, (sum->n + 1) * sizeof(*s));
	if (!s) {
		error("out of memory");
		return -1;
	}
	sum->s = s;
	s = &sum->s[sum->n];
	memset(s, 0, sizeof(*s));
	s->probe = probe;
	s->cpu = cpu;
	if (lw_hist_init(&s->hist, LW_HIST_BUCKET_NS, LW_HIST_BUCKETS) < 0)
		return -1;
	return (long)sum->n++;
}

static int series_push(struct lw_series *s, uint64_t v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		uint64_t *nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv)
			return error("out of memory for %zu samples", cap);
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = v;
	return 0;
}

static int cmp_series(const void *a, const void *b)
{
	const struct lw_series *x = a, *y = b;

	if (x->probe != y->probe)
		return x->probe < y->probe ? -1 : 1;
	/* "all" (-1) last */
	if (x->cpu == y->cpu)
		return 0;
	if (x->cpu < 0)
		return 1;
	if (y->cpu < 0)
		return -1;
	return x->cpu < y->cpu ? -1 : 1;
}

/* Per-CPU dropped counts recorded by the probes in the manifest:
 * probes.NAME.threads[] {cpu, dropped}. */
static uint64_t manifest_dropped(const json_t *m, unsigned probe, int cpu)
{
	json_t *t, *threads = json_object_get(json_object_get(json_object_get(m, "probes"),
							      lw_probe_name(probe)), "threads");
	size_t i;
	uint64_t d = 0;

	json_array_foreach(threads, i, t)
		if (cpu < 0 || json_integer_value(json_object_get(t, "cpu")) == cpu)
			d += (uint64_t)json_integer_value(json_object_get(t, "dropped"));
	return d;
}

static int load_samples(struct lw_summary *sum, const struct lw_rundir *rd, const char *path)
{
	struct lw_samples_reader *r = lw_samples_open_flags(path, lw_manifest_is_complete(rd->manifest) ?
							     0 : LW_SAMPLES_PARTIAL_OK);
	struct lw_sample smp;
	uint64_t rec = 0;
	int ret;
	/* (probe, cpu) -> series index + 1; CPUs are 16-bit in the records */
	int32_t *lookup;
	const size_t ncpu = 65536;

	if (!r)
		return -1;
	lookup = calloc(LW_PROBE_MAX * (ncpu + 1), sizeof(*lookup));
	if (!lookup) {
		lw_samples_close_reader(r);
		return error("out of memory");
	}
	while ((ret = lw_samples_next(r, &smp)) == 1) {
		struct lw_series *s[2];
		long idx[2];

		rec++;
		if (smp.probe == 0 || smp.probe >= LW_PROBE_MAX) {
			ret = error("%s: record %" PRIu64 " has unknown probe id %u", path, rec,
				    smp.probe);
			break;
		}
		for (int k = 0; k < 2; k++) {
			size_t key = smp.probe * (ncpu + 1) + (k ? ncpu : smp.cpu);

			if (!lookup[key]) {
				idx[k] = series_get(sum, smp.probe, k ? -1 : smp.cpu);
				if (idx[k] < 0)
					break;
				lookup[key] = (int32_t)idx[k] + 1;
			}
			idx[k] = lookup[key] - 1;
		}
		if (idx[0] < 0 || idx[1] < 0) {
			ret = -1;
			break;
		}
		s[0] = &sum->s[idx[0]];
		s[1] = &sum->s[idx[1]];
		for (int k = 0; k < 2; k++) {
			if (series_push(s[k], smp.latency_ns) < 0) {
				ret = -1;
				break;
			}
			lw_hist_add(&s[k]->hist, smp.latency_ns, s[k]->n - 1);
			s[k]->missed += smp.missed;
			if (sum->threshold_ns && smp.latency_ns > sum->threshold_ns)
				s[k]->over++;
		}
		if (ret < 0)
			break;
	}
	lw_samples_close_reader(r);
	free(lookup);
	lookup = NULL;
	if (ret < 0)
		return -1;
	for (size_t i = 0; i < sum->n; i++) {
		struct lw_series *s = &sum->s[i];

		lw_stats_compute(&s->stats, s->v, s->n);
		s->dropped = manifest_dropped(rd->manifest, s->probe, s->cpu);
	}
	return 0;
}

/* RUN/histogram.json: {"probes":{"cyclic":{"cpus":[{"cpu":0,"missed_periods":…,
 * "histogram":{…lw_hist_json…}}]}}} — written by `latwatt import`. */
static int load_histograms(struct lw_summary *sum, const char *path)
{
	json_t *doc = lw_json_load(path), *probes, *p, *c;
	const char *name;
	size_t i;
	int ret = -1;

	if (!doc)
		return -1;
	probes = json_object_get(doc, "probes");
	if (!json_is_object(probes)) {
		error("%s: no \"probes\" object", path);
		goto out;
	}
	json_object_foreach(probes, name, p) {
		int id = lw_probe_by_name(name);

		if (id < 0) {
			error("%s: unknown probe '%s'", path, name);
			goto out;
		}
		json_array_foreach(json_object_get(p, "cpus"), i, c) {
			json_t *cpu = json_object_get(c, "cpu");
			struct lw_series *s, *all;
			struct lw_hist h;

			if (!json_is_integer(cpu)) {
				error("%s: probes.%s.cpus[%zu]: no cpu number", path, name, i);
				goto out;
			}
			if (lw_hist_from_json(&h, json_object_get(c, "histogram")) < 0) {
				error("%s: probes.%s.cpus[%zu]: %s", path, name, i, lw_last_error());
				goto out;
			}
			long si = series_get(sum, (unsigned)id, (int)json_integer_value(cpu));
			long ai = series_get(sum, (unsigned)id, -1);

			if (si < 0 || ai < 0) {
				lw_hist_free(&h);
				goto out;
			}
			s = &sum->s[si];
			all = &sum->s[ai];
			lw_hist_free(&s->hist);
			s->hist = h;
			s->missed = (uint64_t)json_integer_value(json_object_get(c, "missed_periods"));
			lw_stats_from_hist(&s->stats, &s->hist);
			if (lw_hist_merge(&all->hist, &s->hist) < 0)
				goto out;
			all->missed += s->missed;
		}
	}
	for (size_t k = 0; k < sum->n; k++)
		if (sum->s[k].cpu < 0)
			lw_stats_from_hist(&sum->s[k].stats, &sum->s[k].hist);
	sum->from_histogram = 1;
	ret = 0;
out:
	json_decref(doc);
	return ret;
}

int lw_summary_load(struct lw_summary *sum, const struct lw_rundir *rd, uint64_t threshold_ns)
{
	char path[PATH_MAX];
	int ret;

	memset(sum, 0, sizeof(*sum));
	sum->threshold_ns = threshold_ns;
	lw_rundir_file(rd, "samples", path, sizeof(path));
	if (access(path, F_OK) == 0) {
		ret = load_samples(sum, rd, path);
	} else {
		lw_rundir_file(rd, "histogram.json", path, sizeof(path));
		if (access(path, F_OK) < 0)
			return error("%s: no samples and no histogram.json: nothing to analyze", rd->path);
		ret = load_histograms(sum, path);
	}
	if (ret < 0) {
		lw_summary_free(sum);
		return -1;
	}
	if (sum->n)	/* qsort(NULL, 0) is undefined */
		qsort(sum->s, sum->n, sizeof(*sum->s), cmp_series);
	return 0;
}

void lw_summary_free(struct lw_summary *sum)
{
	for (size_t i = 0; i < sum->n; i++) {
		free(sum->s[i].v);
		lw_hist_free(&sum->s[i].hist);
	}
	free(sum->s);
	memset(sum, 0, sizeof(*sum));
}

static json_t *series_json(const struct lw_series *s, const struct lw_summary *sum)
{
	json_t *o = lw_stats_json(&s->stats);

	if (s->cpu >= 0)
		json_object_set_new(o, "cpu", json_integer(s->cpu));
	json_object_set_new(o, "over_threshold", sum->threshold_ns ?
			    json_integer((json_int_t)s->over) : json_null());
	json_object_set_new(o, "missed_periods", json_integer((json_int_t)s->missed));
	json_object_set_new(o, "dropped", json_integer((json_int_t)s->dropped));
	json_object_set_new(o, "histogram", lw_hist_json(&s->hist));
	return o;
}

json_t *lw_summary_json(const struct lw_summary *sum, const struct lw_rundir *rd)
{
	const json_t *m = rd->manifest, *sys = json_object_get(m, "system");
	const json_t *kernel = json_object_get(sys, "kernel"), *pre = json_object_get(sys, "preempt");
	json_t *doc = json_object(), *probes = json_object();

	json_object_set_new(doc, "schema", json_string(LW_ANALYSIS_SCHEMA));
	json_object_set_new(doc, "version", json_integer(LW_ANALYSIS_VERSION));
	json_object_set_new(doc, "run", json_pack("{s:s, s:s, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?}",
		"path", rd->path, "status", lw_manifest_status(m),
		"status_reason", json_object_get(m, "status_reason"),
		"board", json_object_get(m, "board"),
		"kernel_release", json_object_get(kernel, "release"),
		"kernel_version", json_object_get(kernel, "version"),
		"preempt_model", json_object_get(pre, "model"),
		"rt", json_object_get(pre, "rt"),
		"duration_ns", json_object_get(m, "duration_ns"),
		"start", json_object_get(m, "start")));
	json_object_set_new(doc, "source", json_string(sum->from_histogram ? "histogram" : "samples"));
	json_object_set_new(doc, "threshold_ns", sum->threshold_ns ?
			    json_integer((json_int_t)sum->threshold_ns) : json_null());
	for (size_t i = 0; i < sum->n; i++) {
		const struct lw_series *s = &sum->s[i];
		json_t *p = lw_json_object_at(probes, lw_probe_name(s->probe));

		if (s->cpu < 0)
			json_object_set_new(p, "all", series_json(s, sum));
		else
			json_array_append_new(json_object_get(p, "cpus") ? json_object_get(p, "cpus") :
					      (json_object_set_new(p, "cpus", json_array()),
					       json_object_get(p, "cpus")),
					      series_json(s, sum));
	}
	json_object_set_new(doc, "probes", probes);
	return doc;
}

static void us(FILE *out, uint64_t ns, int count)
{
	if (!count)
		fprintf(out, " %9s", "-");
	else
		fprintf(out, " %9.1f", (double)ns / 1e3);
}

void lw_summary_print(const struct lw_summary *sum, const struct lw_rundir *rd, FILE *out)
{
	const json_t *m = rd->manifest, *sys = json_object_get(m, "system");
	const char *reason = json_string_value(json_object_get(m, "status_reason"));
	unsigned probe = 0;

	fprintf(out, "run %s: %s%s%s\n", rd->path, lw_manifest_status(m), reason ? ", " : "",
		reason ? reason : "");
	fprintf(out, "kernel %s (%s), board %s\n",
		json_string_value(json_object_get(json_object_get(sys, "kernel"), "release")) ?: "?",
		json_string_value(json_object_get(json_object_get(sys, "preempt"), "model")) ?: "?",
		json_string_value(json_object_get(m, "board")) ?: "?");
	if (sum->from_histogram)
		fprintf(out, "from a histogram: percentiles have its bucket resolution (1us)\n");
	for (size_t i = 0; i < sum->n; i++) {
		const struct lw_series *s = &sum->s[i];
		const struct lw_stats *st = &s->stats;

		if (s->probe != probe) {
			probe = s->probe;
			fprintf(out, "\nprobe %s (latency in us)\n", lw_probe_name(probe));
			fprintf(out, "%5s %10s %9s %9s %9s %9s %9s %9s %9s %9s %8s %8s %8s\n", "cpu",
				"samples", "min", "mean", "p50", "p90", "p99", "p99.9", "p99.99",
				"max", "over", "missed", "dropped");
		}
		if (s->cpu < 0)
			fprintf(out, "%5s", "all");
		else
			fprintf(out, "%5d", s->cpu);
		fprintf(out, " %10" PRIu64, st->count);
		us(out, st->min, (int)st->count);
		if (st->count)
			fprintf(out, " %9.1f", st->mean / 1e3);
		else
			fprintf(out, " %9s", "-");
		for (int k = 0; k < LW_NPCT; k++)
			us(out, st->pct[k], (int)st->count);
		us(out, st->max, (int)st->count);
		if (sum->threshold_ns)
			fprintf(out, " %8" PRIu64, s->over);
		else
			fprintf(out, " %8s", "-");
		fprintf(out, " %8" PRIu64 " %8" PRIu64 "\n", s->missed, s->dropped);
	}
	if (sum->threshold_ns)
		fprintf(out, "\nover: samples above %.1fus\n", (double)sum->threshold_ns / 1e3);
}

int lw_summary_print_histogram(const struct lw_summary *sum, unsigned probe, FILE *out)
{
	const struct lw_series *row[1024];
	size_t n = 0, nb = 0;

	for (size_t i = 0; i < sum->n && n < 1024; i++)
		if (sum->s[i].probe == probe && sum->s[i].cpu >= 0) {
			row[n++] = &sum->s[i];
			if (sum->s[i].hist.nbuckets > nb)
				nb = sum->s[i].hist.nbuckets;
		}
	if (!n)
		return error("no samples of probe %s", lw_probe_name(probe));
	fprintf(out, "# Histogram\n");
	for (size_t b = 0; b < nb; b++) {
		uint64_t any = 0;

		for (size_t t = 0; t < n; t++)
			any |= b < row[t]->hist.nbuckets ? row[t]->hist.count[b] : 0;
		if (!any)
			continue;
		fprintf(out, "%06zu", b);
		for (size_t t = 0; t < n; t++)
			fprintf(out, "%s%06" PRIu64, t ? "\t" : " ",
				b < row[t]->hist.nbuckets ? row[t]->hist.count[b] : 0);
		fputc('\n', out);
	}
#define ROW(label, fmt, expr) do {						\
		fprintf(out, "# %s:", label);					\
		for (size_t t = 0; t < n; t++)					\
			fprintf(out, fmt, expr);				\
		fputc('\n', out);						\
	} while (0)
	ROW("Total", " %09" PRIu64, row[t]->hist.total);
	ROW("Min Latencies", " %05" PRIu64, row[t]->hist.total ? row[t]->hist.min / 1000 : 0);
	ROW("Avg Latencies", " %05" PRIu64,
	    row[t]->hist.total ? (uint64_t)(row[t]->hist.sum / row[t]->hist.total / 1000) : 0);
	ROW("Max Latencies", " %05" PRIu64, row[t]->hist.max / 1000);
	ROW("Histogram Overflows", " %05" PRIu64, row[t]->hist.overflow);
#undef ROW
	fprintf(out, "# Histogram Overflow at cycle number:\n");
	for (size_t t = 0; t < n; t++) {
		fprintf(out, "# Thread %zu:", t);
		if (row[t]->hist.overflow)
			fprintf(out, " %05" PRIu64 "%s", row[t]->hist.overflow_first,
				row[t]->hist.overflow > 1 ? " # first of many" : "");
		fputc('\n', out);
	}
	return 0;
}
