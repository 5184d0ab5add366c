// SPDX-License-Identifier: GPL-2.0-only
/*
 * Deadline misses matched to the spike behind them, and the record kinds
 * (workloads/rkind.h): each workload with records has a consistent
 * descriptor, and every consumer of misses (summaries, the trace pass, the
 * metric registry, comparisons, the run report) handles each one.
 */
#include <math.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "lib/safefile.h"
#include "analysis/compare.h"
#include "analysis/tracepass.h"
#include "lib/metrics.h"
#include "lib/samples.h"
#include "reports/report.h"
#include "workloads/records.h"
#include "workloads/rkind.h"
#include "workloads/workload.h"

/* The spikes of the test's document ("spikes": {"all": [[cpu, expected_ns,
 * latency_ns, probe, cause]...]}) given to the matcher, in order or reversed:
 * the trace pass gives them in the order their attribution becomes final. */
static void match(json_t *doc, int reversed)
{
	const json_t *all = json_object_get(json_object_get(doc, "spikes"), "all");
	struct lw_misses *ms = lw_misses_new(json_object_get(doc, "workloads"));
	size_t n = json_array_size(all);

	assert_non_null(ms);
	for (size_t k = 0; k < n; k++) {
		const json_t *sp = json_array_get(all, reversed ? n - 1 - k : k);

		lw_misses_spike(ms, (int)json_integer_value(json_array_get(sp, 0)),
				(uint64_t)json_integer_value(json_array_get(sp, 1)),
				(uint64_t)json_integer_value(json_array_get(sp, 2)),
				json_string_value(json_array_get(sp, 4)));
	}
	lw_misses_finish(ms);
}

static void test_match(void **st)
{
	for (int rev = 0; rev < 2; rev++) {
		/* spikes: [cpu, expected_ns, latency_ns, probe, cause] */
		json_t *doc = json_pack("{s:{s:[[i, I, I, i, s], [i, I, I, i, s], [i, I, I, i, s],"
					" [i, I, I, i, s]]}, s:{s:{s:f, s:[{s:I, s:i, s:I}, {s:I, s:i, s:I}]}}}",
			"spikes", "all",
			0, (json_int_t)1000000, (json_int_t)400000, 5, "preempt:rt-hog",
			0, (json_int_t)1100000, (json_int_t)900000, 1, "irq:eth0",	/* larger */
			0, (json_int_t)1200000, (json_int_t)900000, 1, "irq:late",	/* as large, later */
			1, (json_int_t)1000000, (json_int_t)2000000, 1, "timer-late:x",	/* other CPU */
			"workloads", "audio", "interval_ns", 1000000.0, "xrun_list",
			"boundary_ns", (json_int_t)1500000, "cpu", 0, "lateness_ns", (json_int_t)200000,
			"boundary_ns", (json_int_t)9000000, "cpu", 0, "lateness_ns", (json_int_t)10000);
		json_t *list, *mc;

		match(doc, rev);
		list = json_object_get(json_object_get(json_object_get(doc, "workloads"), "audio"),
				       "xrun_list");
		/* the largest overlapping spike on the miss's CPU; of equals, the first */
		assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "cause")),
				    "irq:eth0");
		assert_int_equal(json_integer_value(json_object_get(json_object_get(
			json_array_get(list, 0), "spike"), "expected_ns")), 1100000);
		assert_string_equal(json_string_value(json_object_get(json_array_get(list, 1), "cause")),
				    "no spike on its CPU in that period");
		mc = json_object_get(json_object_get(json_object_get(doc, "workloads"), "audio"),
				     "miss_causes");
		assert_int_equal(json_integer_value(json_object_get(mc, "irq:eth0")), 1);
		json_decref(doc);
	}
	(void)st;
}

static int distinct(const char *a, const char *b)
{
	return strcmp(a, b) != 0;
}

/* The table: every descriptor complete, named as its workload, its keys its
 * own, its metric in the registry; the kinds that write records have one. */
static void test_kinds(void **st)
{
	const struct lw_rkind *k, *o;
	size_t n = 0;

	for (const struct lw_workload *const *w = lw_workloads; *w; w++) {
		if (!(k = (*w)->records))
			continue;
		n++;
		assert_string_equal(k->kind, (*w)->name);
		assert_true(k->record_size > 0 && k->record_size % 8 == 0);
		assert_non_null(k->read);
		assert_non_null(k->summarize);
		assert_non_null(k->print);
		assert_non_null(k->miss_detail);
		assert_non_null(k->miss_key);
		assert_non_null(k->list_key);
		assert_non_null(k->time_key);
		assert_non_null(k->total_key);
		assert_non_null(k->metric);
		assert_non_null(k->noun);
		assert_true(k->probe < 0 || (k->probe < LW_PROBE_MAX && k->threads_key));
		assert_ptr_equal(lw_rkind_find(k->kind), k);
		if (k->probe >= 0)
			assert_ptr_equal(lw_rkind_of_probe(k->probe), k);
		for (size_t i = 0; (o = lw_rkind_at(i)); i++)
			if (o != k)
				assert_true(distinct(o->miss_key, k->miss_key) &&
					    distinct(o->list_key, k->list_key) &&
					    distinct(o->metric, k->metric) &&
					    distinct(o->total_key, k->total_key) &&
					    distinct(o->metric, k->total_key));
		{
			const struct lw_metric *m = lw_metric_find(k->metric);

			assert_non_null(m);
			assert_string_equal(m->name, k->metric);
			assert_int_equal(m->from, LW_MF_MISSES);
			assert_string_equal(m->key, k->kind);
			assert_int_equal(m->unit, LW_MU_COUNT);
		}
	}
	assert_null(lw_rkind_at(n));
	assert_int_equal(n, 2);
	/* the workloads that write records, with their record structs */
	assert_int_equal(lw_rkind_find("audio")->record_size, sizeof(struct lw_audio_record));
	assert_int_equal(lw_rkind_find("video")->record_size, sizeof(struct lw_video_record));
	assert_int_equal(lw_rkind_find("audio")->probe, LW_PROBE_AUDIO);
	assert_null(lw_rkind_find("stress"));
	assert_null(lw_rkind_find(NULL));
	assert_null(lw_rkind_of_probe(LW_PROBE_CYCLIC));
	/* the keys older runs hold */
	assert_string_equal(lw_rkind_find("audio")->miss_key, "xruns");
	assert_string_equal(lw_rkind_find("audio")->list_key, "xrun_list");
	assert_string_equal(lw_rkind_find("video")->miss_key, "dropped");
	assert_string_equal(lw_rkind_find("video")->list_key, "dropped_list");
	assert_string_equal(lw_rkind_find("video")->metric, "dropped_frames");
}

/* A records file of each kind: its summary counts the misses under the
 * kind's keys, lists them, and prints; a kind without a descriptor is
 * refused. */
static void test_summaries(void **st)
{
	char *dir = lw_test_tmpdir(), path[512];
	const struct lw_rkind *k;
	unsigned char rec[256];

	for (size_t i = 0; (k = lw_rkind_at(i)); i++) {
		struct lw_records_hdr h = {
			.record_size = (uint32_t)k->record_size, .start_mono = 1000,
			.interval_num = 1000000, .interval_den = 1, .streams = 1,
		};
		struct lw_records *w;
		struct lw_rec_ring *r;
		uint64_t written, dropped;
		json_t *s, *o, *list;
		char *text = NULL;
		size_t len = 0;
		FILE *f;

		assert_true(k->record_size <= sizeof(rec));
		snprintf(h.kind, sizeof(h.kind), "%s", k->kind);
		snprintf(h.instance, sizeof(h.instance), "%s", k->kind);
		snprintf(path, sizeof(path), "%s/%s.records", dir, k->kind);
		w = lw_records_create(LW_AT_PATH, path, &h);
		assert_non_null(w);
		r = lw_records_ring(w, 64);
		assert_non_null(r);
		assert_int_equal(lw_records_start(w), 0);
		/* audio's and video's records start with the deadline and its
		 * index, and end with the slack (int32), the stream or slot and
		 * the CPU (uint16) and the flags; a kind laid out otherwise needs
		 * its own writer here */
		for (int j = 0; j < 10; j++) {
			uint64_t t = 5000000 + (uint64_t)j * 1000000, idx = (uint64_t)j;
			int32_t slack = j == 4 || j == 7 ? -3000 * j : 200000;
			uint16_t cpu = 1;
			uint32_t flags = slack < 0 ? LW_REC_MISS : 0;

			memset(rec, 0, sizeof(rec));
			memcpy(rec, &t, 8);
			memcpy(rec + 8, &idx, 8);
			memcpy(rec + k->record_size - 12, &slack, 4);
			memcpy(rec + k->record_size - 6, &cpu, 2);
			memcpy(rec + k->record_size - 4, &flags, 4);
			assert_int_equal(lw_rec_push(r, rec), 0);
		}
		assert_int_equal(lw_records_close(w, &written, &dropped), 0);
		s = lw_workload_summaries(dir);
		assert_non_null(s);
		o = json_object_get(s, k->kind);
		assert_string_equal(json_string_value(json_object_get(o, "kind")), k->kind);
		assert_int_equal(json_integer_value(json_object_get(o, k->miss_key)), 2);
		assert_int_equal(json_integer_value(json_object_get(o, k->total_key)), 10);
		assert_int_equal(json_integer_value(json_object_get(o, "worst_slack_ns")), -21000);
		list = json_object_get(o, k->list_key);
		assert_int_equal(json_array_size(list), 2);
		assert_int_equal(json_integer_value(json_object_get(json_array_get(list, 1),
								    k->time_key)), 12000000);
		assert_int_equal(json_integer_value(json_object_get(json_array_get(list, 1),
								    "lateness_ns")), 21000);
		assert_int_equal(json_integer_value(json_object_get(json_array_get(list, 1), "cpu")), 1);
		f = open_memstream(&text, &len);
		lw_workload_summaries_print(f, s);
		fclose(f);
		assert_non_null(strstr(text, k->kind));
		free(text);
		json_decref(s);
		unlink(path);
	}

	/* a kind with no descriptor */
	{
		struct lw_records_hdr h = {
			.record_size = 40, .start_mono = 1000, .kind = "stress", .instance = "stress",
			.interval_num = 1, .interval_den = 1, .streams = 1,
		};
		uint64_t written, dropped;
		struct lw_records *w;

		snprintf(path, sizeof(path), "%s/stress.records", dir);
		w = lw_records_create(LW_AT_PATH, path, &h);
		assert_non_null(w);
		assert_non_null(lw_records_ring(w, 64));
		assert_int_equal(lw_records_start(w), 0);
		assert_int_equal(lw_records_close(w, &written, &dropped), 0);
		assert_error(lw_workload_summaries(dir) == NULL, "unknown workload kind 'stress'");
		unlink(path);
	}
	lw_test_rmdir(dir);
}

/* The trace pass, the metric registry and the report helpers read each
 * kind's misses from its keys. */
static void test_consumers(void **st)
{
	const struct lw_rkind *k;
	json_int_t total = 0;

	for (size_t i = 0; (k = lw_rkind_at(i)); i++) {
		json_t *an = json_pack("{s:{s:[[i, I, I, i, s]]}, s:{s:{s:s, s:f, s:i, s:i, s:[{s:I, s:i, s:I}]}}}",
			"spikes", "all", 1, (json_int_t)4900000, (json_int_t)300000, 1, "irq:eth0",
			"workloads", "w", "kind", k->kind, "interval_ns", 1000000.0, k->miss_key, 3,
			k->total_key, 30, k->list_key, k->time_key, (json_int_t)5000000, "cpu", 1,
			"lateness_ns", (json_int_t)1000);
		json_t *w = json_object_get(json_object_get(an, "workloads"), "w"), *cmpform;
		char buf[160];

		match(an, 0);
		assert_string_equal(json_string_value(json_object_get(json_array_get(
			json_object_get(w, k->list_key), 0), "cause")), "irq:eth0");
		assert_int_equal(json_integer_value(json_object_get(json_object_get(w, "miss_causes"),
								    "irq:eth0")), 1);
		assert_true(lw_metric_summary(lw_metric_find(k->metric), an, NULL) == 3);
		assert_true(lw_metric_summary(lw_metric_find("deadline_misses"), an, NULL) == 3);
		assert_true(lw_workload_misses(w) == 3);
		assert_true(lw_workload_total(w) == 30);
		cmpform = json_pack("{s:i}", k->metric, 4);
		assert_true(lw_workload_misses(cmpform) == 4);
		json_decref(cmpform);
		k->miss_detail(buf, sizeof(buf), json_array_get(json_object_get(w, k->list_key), 0));
		assert_non_null(strstr(buf, "CPU 1, 1.0 us late"));
		total += 3;
		json_decref(an);
	}
	assert_true(total > 0);
}

/* A comparison holds each kind's misses and records per run, and judges
 * them under the kind's metric. */
static void test_compare(void **st)
{
	struct lw_crun runs[2];
	struct lw_cmp_opts o;
	const struct lw_rkind *k;
	json_t *doc, *ms;
	size_t j;

	lw_cmp_opts_default(&o);
	o.resamples = 20;
	for (int r = 0; r < 2; r++) {
		json_t *wl = json_object();

		assert_int_equal(lw_crun_load_dir(&runs[r], r ? "tests/data/reports/run-b" :
						  "tests/data/reports/run-a"), 0);
		for (size_t i = 0; (k = lw_rkind_at(i)); i++)
			json_object_set_new(wl, k->kind, json_pack("{s:s, s:i, s:i}", "kind", k->kind,
				k->miss_key, 2 + r, k->total_key, 100));
		json_object_set_new(runs[r].manifest, "workloads", wl);
	}
	doc = lw_compare(runs, 2, 0, &o);
	assert_non_null(doc);
	for (int r = 0; r < 2; r++) {
		const json_t *w = json_object_get(json_array_get(json_object_get(doc, "runs"), r),
						  "workloads");

		for (size_t i = 0; (k = lw_rkind_at(i)); i++) {
			assert_int_equal(json_integer_value(json_object_get(w, k->metric)), 2 + r);
			assert_int_equal(json_integer_value(json_object_get(w, k->total_key)), 100);
		}
	}
	ms = json_object_get(json_array_get(json_object_get(doc, "comparisons"), 0), "metrics");
	for (size_t i = 0; (k = lw_rkind_at(i)); i++) {
		const json_t *m;
		int found = 0;

		json_array_foreach(ms, j, m)
			if (!strcmp(json_string_value(json_object_get(m, "name")) ?: "", k->metric))
				found++;
		assert_int_equal(found, 1);
	}
	json_decref(doc);
	for (int r = 0; r < 2; r++)
		lw_crun_free(&runs[r]);
}

/* The run report's workload table and list of misses, for each kind. */
static void test_report(void **st)
{
	struct lw_rrun r;
	struct lw_report_opts ro = { .points = 100, .plots = 0 };
	struct lw_checks cs = { 0 };
	const struct lw_rkind *k;
	json_t *wl = json_object();
	char *html = NULL, want[200];
	size_t len = 0;
	FILE *f;

	assert_int_equal(lw_rrun_load(&r, "tests/data/reports/run-a"), 0);
	for (size_t i = 0; (k = lw_rkind_at(i)); i++)
		json_object_set_new(wl, k->kind, json_pack("{s:s, s:i, s:i, s:[{s:I, s:i, s:I}]}",
			"kind", k->kind, k->miss_key, 1, k->total_key, 50, k->list_key, k->time_key,
			(json_int_t)(r.start_ns + 1000000), "cpu", 0, "lateness_ns", (json_int_t)2000));
	json_object_set_new(r.analysis, "workloads", wl);
	f = open_memstream(&html, &len);
	assert_int_equal(lw_report_html_run(f, &r, &cs, &ro), 0);
	fclose(f);
	for (size_t i = 0; (k = lw_rkind_at(i)); i++) {
		char detail[160];

		snprintf(want, sizeof(want), "1 %s</td>", k->noun);
		assert_non_null(strstr(html, want));
		k->miss_detail(detail, sizeof(detail), json_array_get(json_object_get(
			json_object_get(wl, k->kind), k->list_key), 0));
		assert_non_null(strstr(html, detail));
	}
	free(html);
	lw_rrun_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_summaries),
		cmocka_unit_test(test_consumers),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
