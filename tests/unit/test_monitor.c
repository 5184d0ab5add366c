// SPDX-License-Identifier: GPL-2.0-only
/*
 * Long-term monitoring: interval histograms count every sample once, in
 * the interval of its expected time, although producers are drained out of
 * order; the raw windows hold exactly the samples around spikes; the disk
 * cap holds; and analyze's reader gets back what was written.
 */
#include "tests/unit/lw_test.h"
#include "lib/safefile.h"

#include <limits.h>
#include <sys/stat.h>

#include "analysis/summary.h"
#include "analysis/tracepass.h"
#include "lib/monitor.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/samples.h"

#define START  1000000000ULL
#define PERIOD 1000000ULL	/* 1 ms */
#define N      5000		/* 5 s a CPU */

/* Latency of sample @i on @cpu: spikes at a few known places. */
static uint64_t lat(int cpu, size_t i)
{
	if (cpu == 1 && (i == 1500 || i == 1502 || i == 4000))
		return 900000;	/* 900 us */
	return 3000 + (i * 37 + (size_t)cpu * 11) % 2000;
}

static void run_monitor_mt(const char *dir, uint64_t cap, struct lw_summary *sum_out,
			   json_t **info, struct lw_monitor_trace *mt)
{
	struct lw_monitor_opts o;
	struct lw_samples_writer *w;
	struct lw_monitor *m;
	struct lw_rundir rd;
	char file[PATH_MAX];

	assert_int_equal(lw_rundir_create(&rd, dir, 1), 0);
	lw_manifest_set_status(rd.manifest, "complete", NULL);
	assert_int_equal(lw_rundir_save(&rd), 0);
	w = lw_samples_create(LW_AT_PATH, lw_rundir_file(&rd, "samples", file, sizeof(file)), START);
	lw_monitor_opts_default(&o);
	o.interval_ns = LW_NSEC_PER_SEC;
	o.threshold_ns = 100000;
	o.pre_ns = o.post_ns = 10 * PERIOD;	/* 10 samples either side */
	o.disk_cap = cap;
	m = lw_monitor_new(&o, LW_AT_PATH, dir, START, w);
	assert_non_null(m);
	if (mt)
		lw_monitor_set_trace(m, mt);
	/* two producers drained in chunks of 100, CPU 1 lagging CPU 0 by 300 */
	for (size_t c = 0; c < N + 300; c += 100) {
		for (int cpu = 0; cpu < 2; cpu++) {
			struct lw_sample s[100];
			size_t from = cpu ? (c >= 300 ? c - 300 : SIZE_MAX) : c, k = 0;

			if (from == SIZE_MAX)
				continue;
			for (size_t i = from; i < from + 100 && i < N; i++)
				s[k++] = (struct lw_sample){ .expected_ns = START + (i + 1) * PERIOD,
					.latency_ns = lat(cpu, i), .cpu = (uint16_t)cpu,
					.probe = LW_SAMPLE_CYCLIC };
			assert_int_equal(lw_monitor_feed(m, cpu, s, k), 0);
		}
		assert_int_equal(lw_monitor_tick(m), 0);
	}
	assert_int_equal(lw_monitor_close(m), 0);
	*info = lw_monitor_json(m);
	lw_monitor_free(m);
	assert_int_equal(lw_samples_close(w), 0);
	assert_int_equal(lw_summary_load(sum_out, &rd, 0), 0);
	lw_rundir_close(&rd);
}

static void run_monitor(const char *dir, uint64_t cap, struct lw_summary *sum_out,
			json_t **info)
{
	run_monitor_mt(dir, cap, sum_out, info, NULL);
}

/* A stand-in for the trace recorder: what it was asked to save. */
struct fake_rec {
	struct lw_monitor_trace *mt;
	uint64_t from[8];
	int n;
	uint64_t bytes;		/* each window's size */
};

static int fake_save(void *ctx, uint64_t from)
{
	struct fake_rec *f = ctx;

	if (f->n < 8)
		f->from[f->n] = from;
	f->n++;
	atomic_fetch_add(&f->mt->trace_bytes, f->bytes);
	return 1;
}

static void test_trace_windows(void **st)
{
	char *dir = lw_test_tmpdir();
	struct lw_monitor_trace mt = { 0 };
	struct fake_rec f = { .mt = &mt, .bytes = 4096 };
	struct lw_summary sum;
	json_t *info, *tw;

	mt.save = fake_save;
	mt.ctx = &f;
	atomic_store(&mt.ready, 1);
	run_monitor_mt(dir, 1 << 20, &sum, &info, &mt);
	/* spikes 1500 and 1502 share a window, 4000 has its own; each saved
	 * once its post-window passed, from pre before the spike */
	assert_int_equal(f.n, 2);
	assert_int_equal(f.from[0], START + (1500 + 1 - 10) * PERIOD);
	assert_int_equal(f.from[1], START + (4000 + 1 - 10) * PERIOD);
	assert_int_equal(atomic_load(&mt.pending), 0);
	tw = json_object_get(info, "trace_windows");
	assert_int_equal(json_integer_value(json_object_get(tw, "requested")), 2);
	assert_int_equal(json_integer_value(json_object_get(tw, "saved_while_running")), 2);
	assert_int_equal(json_integer_value(json_object_get(tw, "spikes")), 3);
	assert_int_equal(mt.cap, 1 << 20);
	assert_int_equal(atomic_load(&mt.sample_bytes), 2 * (23 + 21) * sizeof(struct lw_sample));
	json_decref(info);
	lw_summary_free(&sum);
	lw_test_rmdir(dir);

	/* the trace's bytes count against the one cap: the samples get the rest */
	dir = lw_test_tmpdir();
	memset(&f, 0, sizeof(f));
	memset(&mt, 0, sizeof(mt));
	f.mt = &mt;
	f.bytes = 1000 - 10 * sizeof(struct lw_sample);
	mt.save = fake_save;
	mt.ctx = &f;
	atomic_store(&mt.ready, 1);
	run_monitor_mt(dir, 1000, &sum, &info, &mt);
	assert_true(atomic_load(&mt.sample_bytes) + f.bytes <= 1000);
	json_decref(info);
	lw_summary_free(&sum);
	lw_test_rmdir(dir);

	/* a recorder never ready (tracing did not start): the window stays
	 * pending for it, nothing is saved */
	dir = lw_test_tmpdir();
	memset(&f, 0, sizeof(f));
	memset(&mt, 0, sizeof(mt));
	f.mt = &mt;
	mt.save = fake_save;
	mt.ctx = &f;
	run_monitor_mt(dir, 1 << 20, &sum, &info, &mt);
	assert_int_equal(f.n, 0);
	assert_int_equal(atomic_load(&mt.pending), 1);
	assert_int_equal(atomic_load(&mt.pending_from), START + (1500 + 1 - 10) * PERIOD);
	json_decref(info);
	lw_summary_free(&sum);
	lw_test_rmdir(dir);
	(void)st;
}

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n;

	assert_non_null(in);
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

/* The trace pass over the fixture run, its trace as a monitored run's with
 * one window [@from, @to] (@windows 0: traced throughout). */
static json_t *pass_with_window(const char *dir, int windows, uint64_t from, uint64_t to)
{
	static const char *const files[] = { "samples", "trace.dat", "manifest.json" };
	struct lw_tracepass_opts o = { .top = 1000 };
	char a[PATH_MAX], b[PATH_MAX];
	struct lw_summary sum;
	struct lw_rundir rd;
	json_t *doc, *m, *t;

	for (size_t i = 0; i < 3; i++) {
		snprintf(a, sizeof(a), "tests/data/trace-run/%s", files[i]);
		snprintf(b, sizeof(b), "%s/%s", dir, files[i]);
		copy_file(a, b);
	}
	if (windows) {
		m = json_load_file(b, 0, NULL);
		assert_non_null(m);
		t = json_object_get(m, "trace");
		json_object_set_new(t, "mode", json_string("monitor"));
		json_object_set_new(t, "windows", json_pack("[{s:I, s:I, s:I}]",
			"from_ns", (json_int_t)from, "to_ns", (json_int_t)to, "bytes", 4096));
		assert_int_equal(json_dump_file(m, b, 0), 0);
		json_decref(m);
	}
	assert_int_equal(lw_rundir_open(&rd, dir), 0);
	assert_int_equal(lw_summary_load(&sum, &rd, 0), 0);
	doc = lw_summary_json(&sum, &rd);
	assert_non_null(doc);
	assert_int_equal(lw_tracepass(&rd, doc, &o), 0);
	lw_summary_free(&sum);
	lw_rundir_close(&rd);
	return doc;
}

/* Spikes inside the saved window keep the cause the whole trace gives them;
 * outside it, none is attributed. */
/* The spike of @list (a "top" listing) at @cpu and @e, or NULL. */
static const json_t *spike_at(const json_t *list, json_int_t cpu, json_int_t e)
{
	const json_t *s;
	size_t i;

	json_array_foreach(list, i, s)
		if (json_integer_value(json_object_get(s, "cpu")) == cpu &&
		    json_integer_value(json_object_get(s, "expected_ns")) == e)
			return s;
	return NULL;
}

static void test_trace_window_analysis(void **st)
{
	char *dir = lw_test_tmpdir();
	json_t *full = pass_with_window(dir, 0, 0, 0), *all, *mon, *mall, *tw, *s;
	uint64_t lo = UINT64_MAX, hi = 0, from, to;
	size_t i, in = 0, out = 0;

	/* every spike listed (fewer than --top) */
	all = json_object_get(json_object_get(full, "spikes"), "top");
	assert_true(json_array_size(all) >= 4);
	assert_int_equal(json_array_size(all),
			 json_integer_value(json_object_get(json_object_get(full, "spikes"), "spikes_total")));
	json_array_foreach(all, i, s) {
		uint64_t e = (uint64_t)json_integer_value(json_object_get(s, "expected_ns"));

		lo = e < lo ? e : lo;
		hi = e > hi ? e : hi;
	}
	/* the first half of the spikes' span, a little before the first */
	from = lo - 1000000;
	to = lo + (hi - lo) / 2;
	mon = pass_with_window(dir, 1, from, to);
	mall = json_object_get(json_object_get(mon, "spikes"), "top");
	assert_int_equal(json_array_size(mall), json_array_size(all));
	json_array_foreach(mall, i, s) {
		json_int_t cpu = json_integer_value(json_object_get(s, "cpu"));
		uint64_t e = (uint64_t)json_integer_value(json_object_get(s, "expected_ns"));
		uint64_t l = (uint64_t)json_integer_value(json_object_get(s, "latency_ns"));
		const char *cause = json_string_value(json_object_get(s, "cause"));
		const json_t *f = spike_at(all, cpu, (json_int_t)e);

		assert_non_null(f);
		if (e >= from && e + l <= to) {
			in++;
			assert_string_equal(cause, json_string_value(json_object_get(f, "cause")));
		} else {
			out++;
			assert_string_equal(cause, "unattributable");
		}
	}
	assert_true(in >= 1 && out >= 1);
	tw = json_object_get(json_object_get(mon, "spikes"), "trace_windows");
	assert_int_equal(json_integer_value(json_object_get(tw, "windows")), 1);
	assert_int_equal(json_integer_value(json_object_get(tw, "spikes_in_windows")), in);
	assert_int_equal(json_integer_value(json_object_get(tw, "spikes_without_trace")), out);
	json_decref(full);
	json_decref(mon);
	lw_test_rmdir(dir);
	(void)st;
}

static void test_intervals_and_windows(void **st)
{
	char *dir = lw_test_tmpdir(), file[PATH_MAX];
	struct lw_summary sum;
	struct lw_samples_reader *r;
	struct lw_sample s;
	json_t *info, *iv;
	size_t saved = 0;

	run_monitor(dir, 1 << 20, &sum, &info);
	assert_true(sum.from_monitor);
	/* every sample counted once; maxima and minima as fed */
	for (size_t i = 0; i < sum.n; i++) {
		assert_int_equal(sum.s[i].stats.count, sum.s[i].cpu < 0 ? 2 * N : N);
		assert_int_equal(sum.s[i].stats.max, sum.s[i].cpu == 0 ? 4999 : 900000);
		assert_false(sum.s[i].stats.exact);	/* bucket resolution, and says so */
	}
	/* 5 s of samples due at 1..5000 ms after the start: intervals 0..5 */
	iv = json_object_get(sum.over_time, "intervals");
	assert_int_equal(json_array_size(iv), 6);
	for (size_t k = 0; k < 6; k++) {
		json_t *c = json_object_get(json_object_get(json_array_get(iv, k), "probes"), "cyclic");
		uint64_t want = k == 0 ? 2 * 999 : k == 5 ? 2 : 2 * 1000, max = 0;

		/* sample i is due (i + 1) ms after the start */
		for (size_t i = 0; i < N; i++)
			for (int cpu = 0; cpu < 2; cpu++)
				if ((i + 1) / 1000 == k && lat(cpu, i) > max)
					max = lat(cpu, i);
		assert_int_equal(json_integer_value(json_object_get(c, "count")), want);
		assert_int_equal(json_integer_value(json_object_get(c, "max_ns")), max);
	}
	assert_int_equal(json_integer_value(json_object_get(info, "late_samples")), 0);
	assert_int_equal(json_integer_value(json_object_get(info, "spikes")), 3);
	assert_int_equal(json_integer_value(json_object_get(info, "windows")), 2);
	/* the windows: samples due within 10 ms of a spike, both CPUs */
	snprintf(file, sizeof(file), "%s/samples", dir);
	r = lw_samples_open(file);
	assert_non_null(r);
	while (lw_samples_next(r, &s) == 1) {
		uint64_t i = (s.expected_ns - START) / PERIOD - 1;

		assert_true((i >= 1490 && i <= 1512) || (i >= 3990 && i <= 4010));
		saved++;
	}
	lw_samples_close_reader(r);
	assert_int_equal(saved, 2 * (23 + 21));
	assert_int_equal(json_integer_value(json_object_get(info, "window_samples_saved")), saved);
	json_decref(info);
	lw_summary_free(&sum);
	lw_test_rmdir(dir);
}

static void test_disk_cap(void **st)
{
	char *dir = lw_test_tmpdir(), file[PATH_MAX];
	struct lw_summary sum;
	struct stat sb;
	json_t *info;

	run_monitor(dir, 10 * sizeof(struct lw_sample), &sum, &info);
	snprintf(file, sizeof(file), "%s/samples", dir);
	assert_int_equal(stat(file, &sb), 0);
	assert_int_equal(sb.st_size, LW_SAMPLES_HDR + 10 * sizeof(struct lw_sample));
	assert_int_equal(json_integer_value(json_object_get(info, "window_samples_saved")), 10);
	assert_int_equal(json_integer_value(json_object_get(info, "window_samples_over_cap")),
			 2 * (23 + 21) - 10);
	json_decref(info);
	lw_summary_free(&sum);
	lw_test_rmdir(dir);
}

static void test_bad_monitor_file(void **st)
{
	char *dir = lw_test_tmpdir(), file[PATH_MAX];
	struct lw_rundir rd;
	struct lw_summary sum;
	FILE *f;

	assert_int_equal(lw_rundir_create(&rd, dir, 1), 0);
	assert_int_equal(lw_rundir_save(&rd), 0);
	snprintf(file, sizeof(file), "%s/monitor", dir);
	f = fopen(file, "w");
	fprintf(f, "{\"format\":\"latwatt-monitor\",\"version\":1,\"interval_ns\":1000000000}\n"
		   "{\"start_ns\":1,\"end_ns\":2,\"series\":[{\"probe\":\"cyclic\",\"cpu\":0,"
		   "\"histogram\":{\"bucket_ns\":1000}}]}\n");
	fclose(f);
	assert_error(lw_summary_load(&sum, &rd, 0) < 0, "monitor:2: series 0");
	f = fopen(file, "w");
	fprintf(f, "{\"format\":\"other\"}\n");
	fclose(f);
	assert_error(lw_summary_load(&sum, &rd, 0) < 0, "monitor:1: not a latwatt monitor file");
	f = fopen(file, "w");
	fprintf(f, "{\"format\":\"latwatt-monitor\",\"version\":1,\"interval_ns\":1}\n{oops\n");
	fclose(f);
	assert_error(lw_summary_load(&sum, &rd, 0) < 0, "monitor:2:");
	lw_rundir_close(&rd);
	lw_test_rmdir(dir);
}

/* A long monitored run: a row of maxima per interval, but at most 128
 * histogram columns, merged in time order, every sample kept. */
static void test_histogram_columns_bounded(void **st)
{
	char *dir = lw_test_tmpdir(), file[PATH_MAX];
	const size_t n = 300;
	struct lw_summary sum;
	struct lw_rundir rd;
	json_t *cols, *c;
	uint64_t total = 0, prev_end = 0;
	FILE *f;
	size_t i;

	assert_int_equal(lw_rundir_create(&rd, dir, 1), 0);
	lw_manifest_set_status(rd.manifest, "complete", NULL);
	assert_int_equal(lw_rundir_save(&rd), 0);
	f = fopen(lw_rundir_file(&rd, "monitor", file, sizeof(file)), "w");
	assert_non_null(f);
	fprintf(f, "{\"format\":\"latwatt-monitor\",\"version\":1,\"interval_ns\":1000}\n");
	for (i = 0; i < n; i++)	/* interval i: i + 1 samples in bucket i % 50 */
		fprintf(f, "{\"start_ns\":%zu,\"end_ns\":%zu,\"series\":[{\"probe\":\"cyclic\","
			"\"cpu\":0,\"missed\":0,\"over\":0,\"histogram\":{\"bucket_ns\":1000,"
			"\"nbuckets\":100,\"buckets\":[[%zu,%zu]],\"total\":%zu,\"overflow\":0,"
			"\"overflow_max_ns\":0,\"min_ns\":%zu,\"max_ns\":%zu,\"sum_ns\":%zu}}]}\n",
			i * 1000, (i + 1) * 1000, i % 50, i + 1, i + 1, i % 50 * 1000, i % 50 * 1000 + 999,
			(i + 1) * (i % 50 * 1000));
	assert_int_equal(fclose(f), 0);
	assert_int_equal(lw_summary_load(&sum, &rd, 0), 0);
	assert_int_equal(json_array_size(json_object_get(sum.over_time, "intervals")), n);
	cols = json_object_get(sum.over_time, "histograms");
	assert_true(json_array_size(cols) <= 128 && json_array_size(cols) >= 64);
	json_array_foreach(cols, i, c) {
		uint64_t from = (uint64_t)json_integer_value(json_object_get(c, "start_ns"));

		assert_int_equal(from, prev_end);	/* contiguous, in order */
		prev_end = (uint64_t)json_integer_value(json_object_get(c, "end_ns"));
		total += (uint64_t)json_integer_value(json_object_get(json_object_get(
			json_object_get(c, "probes"), "cyclic"), "total"));
	}
	assert_int_equal(prev_end, n * 1000);
	assert_int_equal(total, n * (n + 1) / 2);
	lw_summary_free(&sum);
	lw_rundir_close(&rd);
	lw_test_rmdir(dir);
	(void)st;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intervals_and_windows),
		cmocka_unit_test(test_histogram_columns_bounded),
		cmocka_unit_test(test_disk_cap),
		cmocka_unit_test(test_trace_windows),
		cmocka_unit_test(test_trace_window_analysis),
		cmocka_unit_test(test_bad_monitor_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
