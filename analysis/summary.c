// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/runstate.h"
#include "analysis/sample_merge.h"
#include "analysis/summary.h"
#include "analysis/teststat.h"
#include "lib/error.h"
#include "lib/input.h"
#include "lib/monitor.h"
#include "lib/parse.h"
#include "lib/samples.h"
#include "lib/sort.h"

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
 * probes.NAME.threads[] {cpu, dropped}, written when the run ends.  A run
 * killed before has none: its count is unknown (*@unknown), not 0.  A
 * workload's samples (audio, video: no probe entry) drop none unless
 * samples.dropped says so. */
static uint64_t manifest_dropped(const json_t *m, unsigned probe, int cpu, int *unknown)
{
	const json_t *p = json_object_get(json_object_get(m, "probes"), lw_probe_name(probe));
	json_t *t, *threads = json_object_get(p, "threads");
	const json_t *all = json_object_get(json_object_get(m, "samples"), "dropped");
	size_t i;
	uint64_t d = 0;

	*unknown = 0;
	if (!p && json_is_integer(all) && json_integer_value(all) == 0)
		return 0;
	if (!json_array_size(threads)) {
		*unknown = 1;
		return 0;
	}
	json_array_foreach(threads, i, t)
		if (cpu < 0 || json_integer_value(json_object_get(t, "cpu")) == cpu) {
			if (!json_is_integer(json_object_get(t, "dropped")))
				*unknown = 1;
			d += (uint64_t)json_integer_value(json_object_get(t, "dropped"));
		}
	return d;
}

/* (probe, cpu) -> series index + 1, for every series of @sum; CPUs are
 * 16-bit in the records, the "all" row is at cpu LOOKUP_ALL. */
#define LOOKUP_ALL 65536
#define LOOKUP_KEY(probe, cpu) ((size_t)(probe) * (LOOKUP_ALL + 1) + (size_t)(cpu))

static int32_t *lookup_new(void)
{
	int32_t *l = calloc(LW_SAMPLE_MAX * (LOOKUP_ALL + 1), sizeof(*l));

	if (!l)
		error("out of memory");
	return l;
}

static int32_t *lookup_of(const struct lw_summary *sum)
{
	int32_t *l = lookup_new();

	for (size_t i = 0; l && i < sum->n; i++)
		l[LOOKUP_KEY(sum->s[i].probe, sum->s[i].cpu < 0 ? LOOKUP_ALL : sum->s[i].cpu)] =
			(int32_t)i + 1;
	return l;
}

/*
 * Passes over @path until every selection is done: @sel[j] selects among
 * the samples of series @ser[j].  At most a handful of passes: one from a
 * 1 us histogram, seven for values in its overflow.
 */
static int select_passes(const struct lw_summary *sum, struct lw_rank_sel *sel,
			 const size_t *ser, size_t nsel)
{
	int32_t *lookup = lookup_of(sum);
	size_t *first = NULL, *next = NULL;
	int ret = 0;

	if (!lookup)
		return -1;
	first = malloc((sum->n + 1) * sizeof(*first));
	next = malloc((nsel + 1) * sizeof(*next));
	if (!first || !next) {
		ret = error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < sum->n; i++)
		first[i] = nsel;
	for (size_t j = nsel; j-- > 0;) {	/* chains in selection order */
		next[j] = first[ser[j]];
		first[ser[j]] = j;
	}
	for (int pass = 0; ret == 0; pass++) {
		struct lw_samples_reader *r;
		struct lw_sample smp;
		size_t open = 0;
		int rr;

		for (size_t j = 0; j < nsel; j++)
			open += !sel[j].done;
		if (!open)
			break;
		if (pass == 16) {
			ret = error("%s: selection did not converge", sum->samples);
			break;
		}
		r = lw_samples_open_flags(sum->samples, sum->samples_flags | LW_SAMPLES_QUIET);
		if (!r) {
			ret = -1;
			break;
		}
		size_t cur = 0;
		uint64_t rec = 0;

		while ((rr = lw_samples_next(r, &smp)) == 1) {
			smp.latency_ns = lw_hostadj_apply(sum->adj, &cur, rec++, smp.latency_ns);
			if (smp.probe == 0 || smp.probe >= LW_SAMPLE_MAX)
				continue;
			for (int k = 0; k < 2; k++) {
				int32_t si = lookup[LOOKUP_KEY(smp.probe, k ? LOOKUP_ALL : smp.cpu)];

				if (!si)
					continue;
				for (size_t j = first[si - 1]; j < nsel; j = next[j])
					lw_rank_sel_add(&sel[j], smp.latency_ns);
			}
		}
		lw_samples_close_reader(r);
		if (rr < 0) {
			ret = -1;
			break;
		}
		for (size_t j = 0; j < nsel && ret == 0; j++)
			if (lw_rank_sel_step(&sel[j]) < 0)
				ret = error("%s: %s", sum->samples, lw_last_error());
	}
out:
	free(first);
	free(next);
	free(lookup);
	return ret;
}

int lw_summary_ranks(const struct lw_summary *sum, size_t i, const uint64_t *rank,
		     uint64_t *value, size_t n)
{
	struct lw_rank_sel *sel;
	size_t *ser;
	int ret = 0;

	if (sum->from_histogram || !sum->samples)
		return error("no samples: ranks need the samples file");
	sel = calloc(n ? n : 1, sizeof(*sel));
	ser = calloc(n ? n : 1, sizeof(*ser));
	if (!sel || !ser) {
		free(sel);
		free(ser);
		return error("out of memory");
	}
	for (size_t j = 0; j < n && ret == 0; j++) {
		ser[j] = i;
		ret = lw_rank_sel_init(&sel[j], &sum->s[i].hist, rank[j]);
	}
	if (ret == 0)
		ret = select_passes(sum, sel, ser, n);
	for (size_t j = 0; j < n; j++) {
		if (ret == 0)
			value[j] = sel[j].value;
		lw_rank_sel_free(&sel[j]);
	}
	free(sel);
	free(ser);
	return ret;
}

/* Histogram buckets whose values one pass of lw_summary_dist() counts one
 * by one: 256 buckets of 1 us, 2 MB of counters. */
#define DIST_BATCH 256

/* One pass: the samples of series @i whose bucket has slot[b] >= 0 are
 * counted in cnt[slot * bucket_ns + value % bucket_ns]; the overflow's
 * values, when @ov, collected in @ov. */
static int dist_pass(const struct lw_summary *sum, size_t i, const int32_t *slot,
		     uint64_t *cnt, uint64_t *ov, size_t *nov)
{
	const struct lw_series *s = &sum->s[i];
	const struct lw_hist *h = &s->hist;
	struct lw_samples_reader *r = lw_samples_open_flags(sum->samples, sum->samples_flags | LW_SAMPLES_QUIET);
	struct lw_sample smp;
	size_t cur = 0;
	uint64_t rec = 0;
	int rr;

	if (!r)
		return -1;
	while ((rr = lw_samples_next(r, &smp)) == 1) {
		uint64_t b;

		smp.latency_ns = lw_hostadj_apply(sum->adj, &cur, rec++, smp.latency_ns);

		if (smp.probe != s->probe || (s->cpu >= 0 && smp.cpu != s->cpu))
			continue;
		b = smp.latency_ns / h->bucket_ns;
		if (b < h->nbuckets) {
			if (slot[b] >= 0)
				cnt[(size_t)slot[b] * h->bucket_ns + smp.latency_ns % h->bucket_ns]++;
		} else if (ov) {
			if (*nov == h->overflow) {
				rr = error("%s: the samples changed between two passes", sum->samples);
				break;
			}
			ov[(*nov)++] = smp.latency_ns;
		}
	}
	lw_samples_close_reader(r);
	return rr < 0 ? -1 : 0;
}

int lw_summary_dist(const struct lw_summary *sum, size_t i, struct lw_dist *d)
{
	const struct lw_hist *h = &sum->s[i].hist;
	int32_t *slot = NULL;
	uint64_t *cnt = NULL, *ov = NULL;
	size_t cap = 0, nov = 0, b = 0;
	int ret = -1;

	memset(d, 0, sizeof(*d));
	if (sum->from_histogram || !sum->samples)
		return error("no samples: an exact distribution needs the samples file");
	slot = malloc(h->nbuckets * sizeof(*slot));
	cnt = malloc((size_t)DIST_BATCH * h->bucket_ns * sizeof(*cnt));
	/* beyond the histogram's last bucket each value is kept (rare by design:
	 * the histogram reaches 10 ms) */
	ov = malloc((h->overflow ? h->overflow : 1) * sizeof(*ov));
	if (!slot || !cnt || !ov) {
		error("out of memory");
		goto out;
	}
	do {
		size_t from = b;
		int32_t used = 0;

		for (size_t k = 0; k < h->nbuckets; k++)
			slot[k] = -1;
		for (; b < h->nbuckets && used < DIST_BATCH; b++)
			if (h->count[b])
				slot[b] = used++;
		memset(cnt, 0, (size_t)DIST_BATCH * h->bucket_ns * sizeof(*cnt));
		/* the overflow is collected with the last batch */
		if ((used || (b == h->nbuckets && h->overflow)) &&
		    dist_pass(sum, i, slot, cnt, b == h->nbuckets ? ov : NULL, &nov) < 0)
			goto out;
		for (size_t k = from; k < b; k++) {
			if (slot[k] < 0)
				continue;
			for (uint64_t x = 0; x < h->bucket_ns; x++) {
				uint64_t c = cnt[(size_t)slot[k] * h->bucket_ns + x];

				if (c && lw_dist_push(d, &cap, k * h->bucket_ns + x, c) < 0)
					goto out;
			}
		}
	} while (b < h->nbuckets);
	lw_sort_u64(ov, nov);
	for (size_t k = 0; k < nov; k++) {
		size_t e = k;

		while (e + 1 < nov && ov[e + 1] == ov[k])
			e++;
		if (lw_dist_push(d, &cap, ov[k], e - k + 1) < 0)
			goto out;
		k = e;
	}
	if (d->n != h->total) {
		error("%s: the samples changed between two passes", sum->samples);
		goto out;
	}
	lw_dist_fit(d);
	d->exact = 1;
	d->resolution_ns = 1;
	ret = 0;
out:
	if (ret < 0)
		lw_dist_free(d);
	free(slot);
	free(cnt);
	free(ov);
	return ret;
}

/* Each probe's period where its missed periods are whole periods of its
 * lateness (the cyclic probe's interval, timerlat's period), else 0. */
static void probe_periods(const json_t *manifest, uint64_t period[LW_SAMPLE_MAX])
{
	const json_t *p = json_object_get(manifest, "probes");
	json_int_t cyc = json_integer_value(json_object_get(json_object_get(p, "cyclic"),
							  "interval_ns"));
	json_int_t tl = json_integer_value(json_object_get(json_object_get(p, "timerlat"),
							 "period_ns"));

	memset(period, 0, LW_SAMPLE_MAX * sizeof(*period));
	period[LW_SAMPLE_CYCLIC] = cyc > 0 ? (uint64_t)cyc : 0;
	period[LW_SAMPLE_TIMERLAT_IRQ] = period[LW_SAMPLE_TIMERLAT_THREAD] =
		period[LW_SAMPLE_TIMERLAT_USER] = tl > 0 ? (uint64_t)tl : 0;
}

static int load_samples(struct lw_summary *sum, const struct lw_rundir *rd, const char *path)
{
	struct lw_samples_reader *r = lw_run_samples_open(path, rd->manifest, 0);
	struct lw_sample smp;
	struct lw_rank_sel *sel = NULL;
	struct lw_merge_series *lanes = NULL;
	size_t *ser = NULL, nsel = 0, nlanes = 0;
	int *pk = NULL;
	uint64_t rec = 0, period[LW_SAMPLE_MAX], raw;
	size_t adj_cur = 0;
	int ret;
	int32_t *lookup;

	if (!r)
		return -1;
	sum->samples = strdup(path);
	sum->samples_flags = lw_run_samples_flags(rd->manifest);
	probe_periods(rd->manifest, period);
	lookup = lookup_new();
	if (!lookup || !sum->samples) {
		lw_samples_close_reader(r);
		return error("out of memory");
	}
	{
		const json_t *m = rd->manifest;
		uint64_t t0 = (uint64_t)json_integer_value(json_object_get(json_object_get(m, "start"),
									   "monotonic_ns"));
		uint64_t t1 = (uint64_t)json_integer_value(json_object_get(json_object_get(m, "end"),
									   "monotonic_ns"));

		lw_timeline_init(&sum->timeline, t0, t1 > t0 ? t1 - t0 :
				 (uint64_t)json_integer_value(json_object_get(m, "duration_ns")),
				 LW_TIMELINE_BUCKETS);
	}
	/* pass 1: the histograms, counts, extremes and sums, latency over time;
	 * each series in the time order the writer gives it
	 * (analysis/sample_merge.h) */
	while ((ret = lw_samples_next(r, &smp)) == 1) {
		long idx[2];

		raw = smp.latency_ns;
		smp.latency_ns = lw_hostadj_apply(sum->adj, &adj_cur, rec, smp.latency_ns);
		rec++;
		if (smp.probe == 0 || smp.probe >= LW_SAMPLE_MAX) {
			ret = error("%s: record %" PRIu64 " has unknown probe id %u", path, rec,
				    smp.probe);
			break;
		}
		/* the periods the host's time made it miss are not the kernel's */
		smp.missed = lw_hostadj_missed(smp.missed, raw, smp.latency_ns, period[smp.probe]);
		for (int k = 0; k < 2; k++) {
			size_t key = LOOKUP_KEY(smp.probe, k ? LOOKUP_ALL : smp.cpu);

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
		if ((size_t)idx[0] >= nlanes) {
			size_t nn = (size_t)idx[0] + 8;
			struct lw_merge_series *nl = realloc(lanes, nn * sizeof(*nl));

			if (!nl) {
				ret = error("out of memory");
				break;
			}
			memset(nl + nlanes, 0, (nn - nlanes) * sizeof(*nl));
			lanes = nl;
			nlanes = nn;
		}
		if (lw_merge_order(&lanes[idx[0]], &smp, path, rec - 1) < 0) {
			ret = -1;
			break;
		}
		for (int k = 0; k < 2; k++) {
			struct lw_series *s = &sum->s[idx[k]];

			lw_hist_add(&s->hist, smp.latency_ns, s->hist.total);
			s->missed += smp.missed;
			if (sum->threshold_ns && smp.latency_ns > sum->threshold_ns)
				s->over++;
		}
		if (lw_timeline_add(&sum->timeline, smp.probe, smp.cpu, smp.expected_ns,
				    smp.latency_ns) < 0) {
			ret = -1;
			break;
		}
	}
	lw_samples_close_reader(r);
	free(lookup);
	free(lanes);
	if (ret < 0)
		return -1;
	/* further passes: the exact percentiles */
	sel = calloc(sum->n * LW_NPCT + 1, sizeof(*sel));
	ser = calloc(sum->n * LW_NPCT + 1, sizeof(*ser));
	pk = calloc(sum->n * LW_NPCT + 1, sizeof(*pk));
	if (!sel || !ser || !pk) {
		ret = error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < sum->n && ret == 0; i++) {
		struct lw_series *s = &sum->s[i];
		struct lw_stats *st = &s->stats;

		memset(st, 0, sizeof(*st));
		st->exact = 1;
		st->count = s->hist.total;
		s->dropped = manifest_dropped(rd->manifest, s->probe, s->cpu, &s->dropped_unknown);
		if (!st->count)
			continue;
		st->min = s->hist.min;
		st->max = s->hist.max;
		st->mean = (double)(s->hist.sum / st->count);
		for (int k = 0; k < LW_NPCT && ret == 0; k++) {
			ser[nsel] = i;
			pk[nsel] = k;
			ret = lw_rank_sel_init(&sel[nsel++], &s->hist,
					       lw_pct_rank_n(st->count, lw_pct[k]));
		}
	}
	if (ret == 0)
		ret = select_passes(sum, sel, ser, nsel);
	for (size_t j = 0; j < nsel; j++) {
		if (ret == 0)
			sum->s[ser[j]].stats.pct[pk[j]] = sel[j].value;
		lw_rank_sel_free(&sel[j]);
	}
out:
	free(sel);
	free(ser);
	free(pk);
	return ret < 0 ? -1 : 0;
}

/* RUN/histogram.json: {"probes":{"cyclic":{"cpus":[{"cpu":0,"missed_periods":…,
 * "histogram":{…lw_hist_json…}}]}}} — written by `latwatt import`. */
static int load_histograms(struct lw_summary *sum, const char *path, const json_t *manifest)
{
	/* cyclictest counts no missed periods: older imports wrote 0 */
	int from_cyclictest = !strcmp(json_string_value(json_object_get(json_object_get(manifest,
					"imported"), "from")) ?: "", "cyclictest");
	json_t *doc = lw_json_load_flags(path, LW_IN_NOFOLLOW, LW_CAP_JSON), *probes, *p, *c;
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
			s->missed_unknown = from_cyclictest ||
					    !json_is_integer(json_object_get(c, "missed_periods"));
			lw_stats_from_hist(&s->stats, &s->hist);
			if (lw_hist_merge(&all->hist, &s->hist) < 0)
				goto out;
			all->missed += s->missed;
			all->missed_unknown |= s->missed_unknown;
		}
	}
	for (size_t k = 0; k < sum->n; k++) {
		struct lw_series *s = &sum->s[k];
		int known;

		if (s->cpu < 0)
			lw_stats_from_hist(&s->stats, &s->hist);
		/* over the threshold, as far as the buckets tell */
		if (sum->threshold_ns) {
			s->over = lw_hist_count_above(&s->hist, sum->threshold_ns, &known);
			s->over_unknown = !known;
		}
	}
	sum->from_histogram = 1;
	ret = 0;
out:
	json_decref(doc);
	return ret;
}

/* Add the interval histogram @h of (@probe, @cpu) to the run's series. */
static int monitor_add(struct lw_summary *sum, unsigned probe, int cpu, const struct lw_hist *h,
		       uint64_t missed, uint64_t over)
{
	long si = series_get(sum, probe, cpu), ai = series_get(sum, probe, -1);

	if (si < 0 || ai < 0 || lw_hist_merge(&sum->s[si].hist, h) < 0 ||
	    lw_hist_merge(&sum->s[ai].hist, h) < 0)
		return -1;
	sum->s[si].missed += missed;
	sum->s[ai].missed += missed;
	sum->s[si].over += over;
	sum->s[ai].over += over;
	return 0;
}

/* Histogram columns of the histogram-over-time view: at most this many;
 * past it, neighbours merge two into one and each holds twice the
 * intervals, so that a day of intervals takes no more memory than an hour. */
#define OT_COLUMNS 128

/* @from's histograms into @into's (the column after it). */
static int column_merge(json_t *into, const json_t *from)
{
	json_t *mine = json_object_get(into, "probes"), *h;
	const char *name;

	json_object_set(into, "end_ns", json_object_get(from, "end_ns"));
	json_object_foreach((json_t *)json_object_get(from, "probes"), name, h) {
		struct lw_hist a, b;
		const json_t *m = json_object_get(mine, name);
		int ok;

		if (!m) {
			json_object_set(mine, name, h);
			continue;
		}
		if (lw_hist_from_json(&a, m) < 0)
			return -1;
		if (lw_hist_from_json(&b, h) < 0) {
			lw_hist_free(&a);
			return -1;
		}
		ok = lw_hist_merge(&a, &b) == 0;
		if (ok)
			json_object_set_new(mine, name, lw_hist_json(&a));
		lw_hist_free(&a);
		lw_hist_free(&b);
		if (!ok)
			return -1;
	}
	return 0;
}

/* The interval's histograms (@probes: name -> histogram) into the columns. */
static int column_add(struct lw_summary *sum, const json_t *j, json_t *probes)
{
	json_t *cols = json_object_get(sum->over_time, "histograms");
	json_t *col = json_pack("{s:O, s:O, s:o}", "start_ns", json_object_get(j, "start_ns"),
				"end_ns", json_object_get(j, "end_ns"), "probes", probes);
	size_t n = json_array_size(cols);

	if (!col)
		return error("out of memory");
	if (n && sum->ot_fill < sum->ot_group) {
		int r = column_merge(json_array_get(cols, n - 1), col);

		json_decref(col);
		sum->ot_fill++;
		return r;
	}
	json_array_append_new(cols, col);
	sum->ot_fill = 1;
	if (++n <= OT_COLUMNS)
		return 0;
	/* n is odd: pairs merge, the new column stays alone */
	for (size_t k = 0; k + 1 < n; k += 2) {
		json_t *a = json_array_get(cols, k), *b = json_array_get(cols, k + 1);

		if (column_merge(a, b) < 0)
			return -1;
		json_array_set(cols, k / 2, a);
	}
	json_array_set(cols, n / 2, json_array_get(cols, n - 1));
	while (json_array_size(cols) > n / 2 + 1)
		json_array_remove(cols, json_array_size(cols) - 1);
	sum->ot_group *= 2;
	return 0;
}

/* One interval line: into the run's series, its per-probe row of
 * sum->over_time (all CPUs: count, max, p99 and p99.9 at bucket
 * resolution, over), and its histograms into the columns of the
 * histogram-over-time view. */
static int monitor_line(struct lw_summary *sum, const char *path, size_t lineno, json_t *j)
{
	json_t *ser = json_object_get(j, "series"), *e, *row, *probes, *hists;
	struct lw_hist iv[LW_SAMPLE_MAX];
	uint64_t over[LW_SAMPLE_MAX] = { 0 }, missed[LW_SAMPLE_MAX] = { 0 };
	int have[LW_SAMPLE_MAX] = { 0 }, ret = -1;
	size_t i;

	if (!json_is_integer(json_object_get(j, "start_ns")) ||
	    !json_is_integer(json_object_get(j, "end_ns")) || !json_is_array(ser))
		return error("%s:%zu: not an interval line (start_ns, end_ns, series)", path, lineno);
	json_array_foreach(ser, i, e) {
		const char *name = json_string_value(json_object_get(e, "probe"));
		json_t *cpu = json_object_get(e, "cpu");
		int id = name ? lw_probe_by_name(name) : -1;
		uint64_t mi = (uint64_t)json_integer_value(json_object_get(e, "missed"));
		uint64_t ov = (uint64_t)json_integer_value(json_object_get(e, "over"));
		struct lw_hist h;

		if (id <= 0 || !json_is_integer(cpu) || json_integer_value(cpu) < 0 ||
		    json_integer_value(cpu) > 65535) {
			error("%s:%zu: series %zu: unknown probe or bad cpu", path, lineno, i);
			goto out;
		}
		if (lw_hist_from_json(&h, json_object_get(e, "histogram")) < 0) {
			error("%s:%zu: series %zu: %s", path, lineno, i, lw_last_error());
			goto out;
		}
		if (monitor_add(sum, (unsigned)id, (int)json_integer_value(cpu), &h, mi, ov) < 0 ||
		    (!have[id] && lw_hist_init(&iv[id], h.bucket_ns, h.nbuckets) < 0)) {
			lw_hist_free(&h);
			goto out;
		}
		have[id] = 1;
		if (lw_hist_merge(&iv[id], &h) < 0) {
			lw_hist_free(&h);
			goto out;
		}
		over[id] += ov;
		missed[id] += mi;
		lw_hist_free(&h);
	}
	probes = json_object();
	hists = json_object();
	for (int p = 1; p < LW_SAMPLE_MAX; p++) {
		int ovf;

		if (!have[p])
			continue;
		json_object_set_new(probes, lw_probe_name((unsigned)p), json_pack(
			"{s:I, s:I, s:I, s:I, s:I, s:I}",
			"count", (json_int_t)iv[p].total, "max_ns", (json_int_t)iv[p].max,
			"p99_ns", (json_int_t)lw_hist_percentile(&iv[p], 99, &ovf),
			"p99.9_ns", (json_int_t)lw_hist_percentile(&iv[p], 99.9, &ovf),
			"over", (json_int_t)over[p], "missed", (json_int_t)missed[p]));
		json_object_set_new(hists, lw_probe_name((unsigned)p), lw_hist_json(&iv[p]));
	}
	if (column_add(sum, j, hists) < 0) {
		json_decref(probes);
		goto out;
	}
	row = json_pack("{s:O, s:O, s:o}", "start_ns", json_object_get(j, "start_ns"),
			"end_ns", json_object_get(j, "end_ns"), "probes", probes);
	if (json_is_true(json_object_get(j, "partial")))
		json_object_set_new(row, "partial", json_true());
	json_array_append_new(json_object_get(sum->over_time, "intervals"), row);
	ret = 0;
out:
	for (int p = 1; p < LW_SAMPLE_MAX; p++)
		if (have[p])
			lw_hist_free(&iv[p]);
	return ret;
}

/* RUN/monitor (lib/monitor.h): a header line, then one line per interval. */
static int load_monitor(struct lw_summary *sum, const char *path)
{
	FILE *f = lw_in_fopen(path, LW_IN_NOFOLLOW, LW_CAP_TEXT);
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t n;
	int ret = 0, rerr = 0;

	if (!f)
		return -1;
	/* a line is an interval's histograms: 16 MB is far past any */
	while (ret == 0 && (n = lw_in_getline(&line, &cap, f, 16 << 20, path, (long)lineno + 1,
					      &rerr)) > 0) {
		json_error_t err;
		json_t *j;

		lineno++;
		j = json_loadb(line, (size_t)n, 0, &err);
		if (!j) {
			ret = error("%s:%zu:%d: %s", path, lineno, err.column, lw_json_problem(&err));
			break;
		}
		if (lineno == 1) {
			const char *fmt = json_string_value(json_object_get(j, "format"));

			if (!fmt || strcmp(fmt, LW_MONITOR_FORMAT))
				ret = error("%s:1: not a latwatt monitor file", path);
			else if (json_integer_value(json_object_get(j, "version")) != LW_MONITOR_VERSION)
				ret = error("%s:1: monitor file version %lld, this latwatt reads %d", path,
					    (long long)json_integer_value(json_object_get(j, "version")),
					    LW_MONITOR_VERSION);
			else if (json_integer_value(json_object_get(j, "interval_ns")) <= 0)
				ret = error("%s:1: no interval_ns", path);
			else {
				sum->over_time = json_pack("{s:O, s:[], s:[]}", "interval_ns",
							   json_object_get(j, "interval_ns"),
							   "intervals", "histograms");
				sum->ot_group = 1;
			}
		} else {
			ret = monitor_line(sum, path, lineno, j);
		}
		json_decref(j);
	}
	if (ret == 0 && rerr < 0)
		ret = -1;
	if (ret == 0 && !lineno)
		ret = error("%s: empty", path);
	free(line);
	fclose(f);
	if (ret < 0)
		return -1;
	for (size_t k = 0; k < sum->n; k++)
		lw_stats_from_hist(&sum->s[k].stats, &sum->s[k].hist);
	sum->from_histogram = 1;
	sum->from_monitor = 1;
	return 0;
}

int lw_summary_load(struct lw_summary *sum, const struct lw_rundir *rd, uint64_t threshold_ns)
{
	return lw_summary_load_adj(sum, rd, threshold_ns, NULL);
}

int lw_summary_load_adj(struct lw_summary *sum, const struct lw_rundir *rd, uint64_t threshold_ns,
			const struct lw_hostadj *adj)
{
	char path[PATH_MAX];
	int ret;

	memset(sum, 0, sizeof(*sum));
	sum->threshold_ns = threshold_ns;
	sum->adj = adj && adj->n ? adj : NULL;
	lw_rundir_file(rd, "monitor", path, sizeof(path));
	if (access(path, F_OK) == 0) {
		/* RUN/samples holds only the windows around spikes */
		ret = load_monitor(sum, path);
		if (ret == 0)
			for (size_t k = 0; k < sum->n; k++)
				sum->s[k].dropped = manifest_dropped(rd->manifest, sum->s[k].probe,
								     sum->s[k].cpu,
								     &sum->s[k].dropped_unknown);
		if (ret < 0) {
			lw_summary_free(sum);
			return -1;
		}
		lw_qsort(sum->s, sum->n, sizeof(*sum->s), cmp_series);
		return 0;
	}
	lw_rundir_file(rd, "samples", path, sizeof(path));
	if (access(path, F_OK) == 0) {
		ret = load_samples(sum, rd, path);
	} else {
		lw_rundir_file(rd, "histogram.json", path, sizeof(path));
		if (access(path, F_OK) < 0)
			return error("%s: no samples and no histogram.json: nothing to analyze", rd->path);
		ret = load_histograms(sum, path, rd->manifest);
	}
	if (ret < 0) {
		lw_summary_free(sum);
		return -1;
	}
	lw_qsort(sum->s, sum->n, sizeof(*sum->s), cmp_series);
	return 0;
}

void lw_summary_free(struct lw_summary *sum)
{
	for (size_t i = 0; i < sum->n; i++)
		lw_hist_free(&sum->s[i].hist);
	free(sum->s);
	free(sum->samples);
	json_decref(sum->over_time);
	lw_timeline_free(&sum->timeline);
	memset(sum, 0, sizeof(*sum));
}

static json_t *series_json(const struct lw_series *s, const struct lw_summary *sum)
{
	json_t *o = lw_stats_json(&s->stats);

	if (s->cpu >= 0)
		json_object_set_new(o, "cpu", json_integer(s->cpu));
	json_object_set_new(o, "over_threshold", sum->threshold_ns && !s->over_unknown ?
			    json_integer((json_int_t)s->over) : json_null());
	if (s->over_unknown)	/* only those surely above are known */
		json_object_set_new(o, "over_threshold_at_least", json_integer((json_int_t)s->over));
	json_object_set_new(o, "missed_periods", s->missed_unknown ? json_null() :
			    json_integer((json_int_t)s->missed));
	json_object_set_new(o, "dropped", s->dropped_unknown ? json_null() :
			    json_integer((json_int_t)s->dropped));
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
	/* the run's state as its files show it, where it differs from what the
	 * manifest says (analysis/runstate.h) */
	if (json_object_get(m, "manifest_status"))
		json_object_set(json_object_get(doc, "run"), "manifest_status",
				json_object_get(m, "manifest_status"));
	if (json_object_get(m, "truncated"))
		json_object_set(json_object_get(doc, "run"), "truncated", json_object_get(m, "truncated"));
	json_object_set_new(doc, "source", json_string(sum->from_monitor ? "monitor" :
						     sum->from_histogram ? "histogram" : "samples"));
	if (sum->over_time)
		json_object_set(doc, "over_time", sum->over_time);
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
	if (!sum->from_monitor && !sum->from_histogram && sum->timeline.n)
		json_object_set_new(doc, "timeline", lw_timeline_json(&sum->timeline));
	return doc;
}

/* Rows of the latency-over-time table at most: longer runs group intervals. */
#define OVER_TIME_ROWS 48

/* The monitored run's maxima over time, OSADL-style, one row per interval
 * (or group of intervals): the maximum and the sample count per probe. */
void lw_summary_print_over_time(const json_t *ot, FILE *out)
{
	const json_t *iv = json_object_get(ot, "intervals");
	size_t n = json_array_size(iv), group = (n + OVER_TIME_ROWS - 1) / OVER_TIME_ROWS;
	uint64_t t0 = n ? (uint64_t)json_integer_value(json_object_get(json_array_get(iv, 0),
									"start_ns")) : 0;
	char d[32];

	if (!n)
		return;
	fprintf(out, "\nlatency over time: maximum per %s (us), samples\n",
		lw_format_duration((uint64_t)json_integer_value(json_object_get(ot, "interval_ns")) *
				   group, d, sizeof(d)));
	fprintf(out, "%10s", "from");
	for (unsigned p = 1; p < LW_SAMPLE_MAX; p++)
		for (size_t i = 0; i < n; i++)
			if (json_object_get(json_object_get(json_array_get(iv, i), "probes"),
					    lw_probe_name(p))) {
				fprintf(out, " %12s %10s", lw_probe_name(p), "samples");
				break;
			}
	fputc('\n', out);
	for (size_t r = 0; r < n; r += group) {
		uint64_t from = (uint64_t)json_integer_value(json_object_get(json_array_get(iv, r),
									     "start_ns"));

		fprintf(out, "%10s", lw_format_duration(from - t0, d, sizeof(d)));
		for (unsigned p = 1; p < LW_SAMPLE_MAX; p++) {
			uint64_t max = 0, cnt = 0;
			int any = 0;

			for (size_t i = 0; i < n; i++)
				any |= json_object_get(json_object_get(json_array_get(iv, i), "probes"),
						       lw_probe_name(p)) != NULL;
			if (!any)
				continue;
			for (size_t i = r; i < r + group && i < n; i++) {
				const json_t *x = json_object_get(json_object_get(json_array_get(iv, i),
									"probes"), lw_probe_name(p));
				uint64_t m = (uint64_t)json_integer_value(json_object_get(x, "max_ns"));

				cnt += (uint64_t)json_integer_value(json_object_get(x, "count"));
				if (m > max)
					max = m;
			}
			if (cnt)
				fprintf(out, " %12.1f %10" PRIu64, (double)max / 1e3, cnt);
			else
				fprintf(out, " %12s %10s", "-", "0");
		}
		fputc('\n', out);
	}
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
