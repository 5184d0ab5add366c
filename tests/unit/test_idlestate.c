// SPDX-License-Identifier: GPL-2.0-only
/* The samples in time order without holding them (analysis/sample_merge.h),
 * and the latency by idle state of the trace pass against a brute force:
 * every sample sorted by time, merged with the trace, the states counted. */
#include "tests/unit/lw_test.h"
#include "lib/safefile.h"
#include "analysis/sample_merge.h"
#include "analysis/summary.h"
#include "analysis/tracepass.h"
#include "lib/rundir.h"
#include "lib/stats.h"
#include "lib/trace_read.h"

struct rec { struct lw_sample s; uint64_t index; };

static int cmp_rec(const void *x, const void *y)
{
	const struct rec *p = x, *q = y;

	if (p->s.expected_ns != q->s.expected_ns)
		return p->s.expected_ns < q->s.expected_ns ? -1 : 1;
	return p->index < q->index ? -1 : p->index > q->index;
}

struct visit { uint64_t n, next; };

static int count_visit(void *ctx, const struct lw_sample *s, uint64_t index)
{
	struct visit *v = ctx;

	assert_int_equal(index, v->next);	/* file order, every record */
	v->next++;
	v->n++;
	return 0;
}

/* Batches as the writer drains the rings: cyclic on CPUs 0 and 1 (ties
 * between them), two audio streams on CPU 0 whose batches overlap in time,
 * records of an unknown probe and of a CPU beyond the trace's. */
static void test_merge_order(void **st)
{
	char *dir = lw_test_tmpdir(), path[512];
	struct lw_samples_writer *w;
	struct rec *all = calloc(4000, sizeof(*all)), *want = calloc(4000, sizeof(*want));
	size_t n = 0, nw = 0;
	uint64_t cyc[2] = { 0, 0 }, aud[2] = { 500, 700 };
	struct lw_sample_merge *m;
	struct visit v = { 0, 0 };
	struct lw_sample s;
	uint64_t index;
	int rr;

	snprintf(path, sizeof(path), "%s/samples", dir);
	w = lw_samples_create(LW_AT_PATH, path, 0);
	assert_non_null(w);
	for (int batch = 0; batch < 20; batch++) {
		for (int c = 0; c < 2; c++)
			for (int i = 0; i < 30; i++, cyc[c] += 1000)
				all[n++].s = (struct lw_sample){ .expected_ns = cyc[c], .latency_ns = 10 + i,
								 .cpu = (uint16_t)c, .probe = LW_SAMPLE_CYCLIC };
		for (int a = 0; a < 2; a++)
			for (int i = 0; i < 25; i++, aud[a] += 1333)
				all[n++].s = (struct lw_sample){ .expected_ns = aud[a], .latency_ns = 7,
								 .cpu = 0, .probe = LW_SAMPLE_AUDIO };
		all[n++].s = (struct lw_sample){ .expected_ns = 5, .cpu = 0, .probe = 9 };
		all[n++].s = (struct lw_sample){ .expected_ns = 5, .cpu = 7, .probe = LW_SAMPLE_CYCLIC };
	}
	for (size_t i = 0; i < n; i++) {
		all[i].index = i;
		assert_int_equal(lw_samples_write(w, &all[i].s, 1), 0);
		if (all[i].s.probe < LW_SAMPLE_MAX && all[i].s.cpu < 2)
			want[nw++] = all[i];
	}
	assert_int_equal(lw_samples_close(w), 0);
	qsort(want, nw, sizeof(*want), cmp_rec);

	m = lw_sample_merge_open(path, 0, 2, count_visit, &v);
	assert_non_null(m);
	assert_int_equal(v.n, n);
	assert_int_equal(lw_sample_merge_lanes(m), 4);	/* cyclic x2, audio split in two */
	for (size_t i = 0; i < nw; i++) {
		assert_int_equal(lw_sample_merge_next(m, &s, &index), 1);
		assert_int_equal(index, want[i].index);
		assert_int_equal(s.expected_ns, want[i].s.expected_ns);
		assert_int_equal(s.cpu, want[i].s.cpu);
		assert_int_equal(s.probe, want[i].s.probe);
	}
	rr = lw_sample_merge_next(m, &s, &index);
	assert_int_equal(rr, 0);
	lw_sample_merge_close(m);
	free(all);
	free(want);
	lw_test_rmdir(dir);
}

/* A series in descending time order is not a file latwatt wrote: refused
 * with the record named, not merged wrongly. */
static void test_merge_refuses_disorder(void **st)
{
	char *dir = lw_test_tmpdir(), path[512];
	struct lw_samples_writer *w;

	snprintf(path, sizeof(path), "%s/samples", dir);
	w = lw_samples_create(LW_AT_PATH, path, 0);
	assert_non_null(w);
	for (int i = 0; i < 40; i++) {
		struct lw_sample s = { .expected_ns = (uint64_t)(1000 - i), .cpu = 1,
				       .probe = LW_SAMPLE_CYCLIC };

		assert_int_equal(lw_samples_write(w, &s, 1), 0);
	}
	assert_int_equal(lw_samples_close(w), 0);
	assert_error(lw_sample_merge_open(path, 0, 2, NULL, NULL) == NULL,
		     "record 16 (cyclic, cpu 1) is out of time order");
	lw_test_rmdir(dir);
}

#define NSTATE 18	/* STATE_UNKNOWN (-2) .. 15, by state + 2 */

/* The states as the trace pass defines them: a sample takes the state of its
 * CPU before the first event at or after its expected time. */
static void brute_force(const char *run, int ncpus, uint64_t *vals[LW_SAMPLE_MAX][NSTATE],
			size_t cnt[LW_SAMPLE_MAX][NSTATE])
{
	char path[512];
	struct lw_samples_reader *r;
	struct lw_trace *t = lw_trace_open_run(run, 0);
	struct lw_trace_event ev;
	struct rec *pts;
	size_t n = 0, next = 0;
	int *cur, sw, idle;
	uint64_t v;

	assert_non_null(t);
	snprintf(path, sizeof(path), "%s/samples", run);
	r = lw_samples_open(path);
	assert_non_null(r);
	pts = calloc(lw_samples_count(r) + 1, sizeof(*pts));
	cur = calloc((size_t)ncpus, sizeof(*cur));
	for (uint64_t i = 0; lw_samples_next(r, &pts[n].s) == 1; i++) {
		pts[n].index = i;
		if (pts[n].s.probe < LW_SAMPLE_MAX && pts[n].s.cpu < ncpus)
			n++;
	}
	lw_samples_close_reader(r);
	qsort(pts, n, sizeof(*pts), cmp_rec);
	for (int c = 0; c < ncpus; c++)
		cur[c] = -2;
	sw = lw_trace_event_id(t, "sched", "sched_switch");
	idle = lw_trace_event_id(t, "power", "cpu_idle");
	for (unsigned p = 0; p < LW_SAMPLE_MAX; p++)
		for (int s = 0; s < NSTATE; s++)
			vals[p][s] = calloc(n + 1, sizeof(uint64_t));
	/* the points of one state: appended in time order */
#define PUT(pt, st) do {								\
		const struct lw_sample *s_ = &(pt)->s;					\
		vals[s_->probe][(st) + 2][cnt[s_->probe][(st) + 2]++] = s_->latency_ns;	\
	} while (0)
	while (lw_trace_next(t, &ev) == 1) {
		if (ev.cpu < 0 || ev.cpu >= ncpus)
			continue;
		for (; next < n && pts[next].s.expected_ns <= ev.ts_ns; next++)
			PUT(&pts[next], cur[pts[next].s.cpu]);
		if (ev.id == sw) {
			assert_int_equal(lw_trace_u64(t, &ev, "next_pid", &v), 0);
			if (v)
				cur[ev.cpu] = -1;
		} else if (ev.id == idle) {
			assert_int_equal(lw_trace_u64(t, &ev, "state", &v), 0);
			cur[ev.cpu] = v == UINT32_MAX || v == UINT64_MAX ? -1 : v < 16 ? (int)v : -2;
		}
	}
	for (; next < n; next++)
		PUT(&pts[next], -2);
#undef PUT
	free(cur);
	free(pts);
	lw_trace_close(t);
}

static void idle_latency_brute_force(const char *run, int stalls)
{
	struct lw_tracepass_opts o = { .top = 5 };
	uint64_t *vals[LW_SAMPLE_MAX][NSTATE];
	size_t cnt[LW_SAMPLE_MAX][NSTATE] = { { 0 } }, groups = 0, seen = 0;
	struct lw_summary sum;
	struct lw_rundir rd;
	struct lw_trace *t;
	json_t *doc, *il, *e, *tr;
	int ncpus;

	assert_int_equal(lw_rundir_open(&rd, run), 0);
	assert_int_equal(lw_summary_load(&sum, &rd, 0), 0);
	doc = lw_summary_json(&sum, &rd);
	assert_non_null(doc);
	assert_int_equal(lw_tracepass(&rd, doc, &o), 0);
	t = lw_trace_open_run(run, 0);
	assert_non_null(t);
	ncpus = lw_trace_cpus(t);
	lw_trace_close(t);
	brute_force(run, ncpus, vals, cnt);

	il = json_object_get(doc, "idle_latency");
	for (unsigned p = 1; p < LW_SAMPLE_MAX; p++)
		for (int s = 0; s < NSTATE; s++) {
			json_t *arr = json_object_get(il, lw_probe_name(p));
			struct lw_stats stt;
			size_t i;

			if (!cnt[p][s])
				continue;
			groups++;
			lw_stats_compute(&stt, vals[p][s], cnt[p][s]);
			json_array_foreach(arr, i, e)
				if (json_integer_value(json_object_get(e, "index")) == s - 2) {
					seen++;
					assert_int_equal(json_integer_value(json_object_get(e, "count")), stt.count);
					assert_int_equal(json_integer_value(json_object_get(e, "p50_ns")), stt.pct[0]);
					assert_int_equal(json_integer_value(json_object_get(e, "p99_ns")), stt.pct[2]);
					assert_int_equal(json_integer_value(json_object_get(e, "p99.9_ns")), stt.pct[3]);
					assert_int_equal(json_integer_value(json_object_get(e, "max_ns")), stt.max);
				}
		}
	/* the fixture has samples both busy and in an idle state */
	assert_true(groups >= 2);
	assert_int_equal(seen, groups);
	for (unsigned p = 0; p < LW_SAMPLE_MAX; p++)
		for (int s = 0; s < NSTATE; s++)
			free(vals[p][s]);
	if (stalls) {
		/* no PM QoS limit: the latencies as measured, the stalls whole */
		tr = json_object_get(json_object_get(doc, "tradeoff"), "points");
		e = json_array_get(tr, json_array_size(tr) - 1);
		assert_int_equal(json_integer_value(json_object_get(e, "pm_qos_us")), 2000000000);
		assert_true(json_integer_value(json_object_get(e, "max_ns")) > (json_int_t)UINT32_MAX);
		json_decref(doc);
		lw_summary_free(&sum);
		lw_rundir_close(&rd);
		return;
	}

	/* the trade-off, as the sorting implementation computed it */
	tr = json_object_get(json_object_get(doc, "tradeoff"), "points");
	assert_int_equal(json_array_size(tr), 3);
	e = json_array_get(tr, 0);
	assert_int_equal(json_integer_value(json_object_get(e, "pm_qos_us")), 0);
	assert_int_equal(json_integer_value(json_object_get(e, "count")), 403);
	assert_int_equal(json_integer_value(json_object_get(e, "p50_ns")), 34080);
	assert_int_equal(json_integer_value(json_object_get(e, "p99_ns")), 57928);
	assert_int_equal(json_integer_value(json_object_get(e, "p99.9_ns")), 68553);
	e = json_array_get(tr, 1);
	assert_int_equal(json_integer_value(json_object_get(e, "pm_qos_us")), 1);
	assert_int_equal(json_integer_value(json_object_get(e, "p50_ns")), 34103);
	assert_int_equal(json_integer_value(json_object_get(e, "p99_ns")), 58928);
	assert_int_equal(json_integer_value(json_object_get(e, "p99.9_ns")), 69553);

	json_decref(doc);
	lw_summary_free(&sum);
	lw_rundir_close(&rd);
}

static void test_idle_latency_brute_force(void **st)
{
	idle_latency_brute_force("tests/data/trace-run", 0);
}

static void copy_file(const char *from, const char *to)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	char buf[65536];
	size_t n;

	assert_non_null(a);
	assert_non_null(b);
	while ((n = fread(buf, 1, sizeof(buf), a)) > 0)
		assert_int_equal(fwrite(buf, 1, n, b), n);
	fclose(a);
	assert_int_equal(fclose(b), 0);
}

/* Stalls of seconds (past 2^32 ns) stay whole in the latency by idle state:
 * it held them in 32 bits and printed 4294967.3 us for a 7 s stall. */
static void test_idle_latency_long_stalls(void **st)
{
	const char *src = "tests/data/trace-run";
	char *dir = lw_test_tmpdir(), from[512], to[512];
	struct lw_samples_reader *r;
	struct lw_samples_writer *w;
	struct lw_sample s;
	uint64_t i = 0, big = 0;

	snprintf(from, sizeof(from), "%s/manifest.json", src);
	snprintf(to, sizeof(to), "%s/manifest.json", dir);
	copy_file(from, to);
	snprintf(from, sizeof(from), "%s/trace.dat", src);
	snprintf(to, sizeof(to), "%s/trace.dat", dir);
	copy_file(from, to);
	snprintf(from, sizeof(from), "%s/samples", src);
	snprintf(to, sizeof(to), "%s/samples", dir);
	r = lw_samples_open(from);
	assert_non_null(r);
	w = lw_samples_create(LW_AT_PATH, to, lw_samples_start(r));
	assert_non_null(w);
	while (lw_samples_next(r, &s) == 1) {
		if (i++ % 7 == 3) {	/* 4.3 s to 7.0 s, some of them the max */
			s.latency_ns += UINT32_MAX + (i % 5) * 700000000ull;
			big++;
		}
		assert_int_equal(lw_samples_write(w, &s, 1), 0);
	}
	lw_samples_close_reader(r);
	assert_int_equal(lw_samples_close(w), 0);
	assert_true(big > 10);
	idle_latency_brute_force(dir, 1);
	lw_test_rmdir(dir);
}

/* NO_HZ rates only over enough time, however many events (332 ticks in
 * 0.28 s of busy time read 1177 ticks/s, above HZ): 2 ticks in 5.9 ms of idle
 * read 341.1 ticks/s, above the tick rate; the fixture's 0 ticks in 0 ms of
 * idle read 0.0 ticks/s. */
static void test_nohz_rates_need_time(void **st)
{
	const char *run = "tests/data/trace-run";
	struct lw_tracepass_opts o = { .top = 5 };
	struct lw_summary sum;
	struct lw_rundir rd;
	json_t *doc, *nz, *c;
	size_t i;
	int seen = 0;

	assert_false(lw_nohz_rate_given(2, 0.0059));
	assert_false(lw_nohz_rate_given(0, 0));
	assert_false(lw_nohz_rate_given(99, 0.5));
	assert_false(lw_nohz_rate_given(332, 0.282));
	assert_true(lw_nohz_rate_given(0, 1.0));
	assert_true(lw_nohz_rate_given(3, 2.5));

	assert_int_equal(lw_rundir_open(&rd, run), 0);
	assert_int_equal(lw_summary_load(&sum, &rd, 0), 0);
	doc = lw_summary_json(&sum, &rd);
	assert_int_equal(lw_tracepass(&rd, doc, &o), 0);
	nz = json_object_get(doc, "nohz");
	assert_true(json_number_value(json_object_get(nz, "duration_s")) < 1);	/* 0.2 s */
	json_array_foreach(json_object_get(nz, "cpus"), i, c) {
		double idle = json_number_value(json_object_get(c, "idle_s"));
		json_int_t ticks = json_integer_value(json_object_get(c, "ticks_idle"));

		assert_true(idle < 1 && ticks < 100);
		assert_true(json_is_null(json_object_get(c, "ticks_per_s_idle")));
		assert_true(json_is_null(json_object_get(c, "ticks_per_s_busy")));
		/* the count and the time are there */
		assert_true(json_is_integer(json_object_get(c, "ticks_idle")));
		assert_true(json_is_real(json_object_get(c, "idle_s")));
		if (json_integer_value(json_object_get(c, "wakeups")) < 100)
			assert_true(json_is_null(json_object_get(c, "wakeups_per_s")));
		seen++;
	}
	assert_int_equal(seen, 2);
	assert_int_equal(json_number_value(json_object_get(nz, "rate_min_s")), 1);
	json_decref(doc);
	lw_summary_free(&sum);
	lw_rundir_close(&rd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_order),
		cmocka_unit_test(test_merge_refuses_disorder),
		cmocka_unit_test(test_idle_latency_brute_force),
		cmocka_unit_test(test_idle_latency_long_stalls),
		cmocka_unit_test(test_nohz_rates_need_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
