// SPDX-License-Identifier: GPL-2.0-only
/*
 * Deadline misses explained by their own windows in the trace, and the record kinds
 * (workloads/rkind.h): each workload with records has a consistent
 * descriptor, and every consumer of misses (summaries, the trace pass, the
 * metric registry, comparisons, the run report) handles each one.
 */
#include <math.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "analysis/attrib.h"
#include "lib/safefile.h"
#include "analysis/compare.h"
#include "analysis/tracepass.h"
#include "lib/metrics.h"
#include "lib/samples.h"
#include "reports/report.h"
#include "workloads/records.h"
#include "workloads/rkind.h"
#include "workloads/workload.h"

static void misses_done(void *ctx, const struct lw_spike *s)
{
	if (s->work)
		lw_misses_done(ctx, s);
}

struct tev { struct lw_tev e; char name[16]; };

static int cmp_tev(const void *x, const void *y)
{
	const struct tev *p = x, *q = y;

	return p->e.ts < q->e.ts ? -1 : p->e.ts > q->e.ts;
}

/* One pid per thread name (the engine finds a thread the run did not give
 * the tid of by its name). */
static int pid_of(const struct lw_rthread *t)
{
	unsigned h = 0;

	if (t->tid > 0)
		return t->tid;
	for (const char *c = t->name; *c; c++)
		h = h * 31 + (unsigned char)*c;
	return 1000 + (int)(h % 30000);
}

static void put(struct tev *v, size_t *n, uint64_t ts, int cpu, enum lw_tev_kind k, int pid, int prio,
		int64_t arg, const char *name, int prev)
{
	v[*n].e = (struct lw_tev){ .ts = ts, .cpu = cpu, .kind = k, .pid = pid, .prio = prio,
				   .arg = arg, .prev_pid = prev };
	snprintf(v[*n].name, sizeof(v[*n].name), "%s", name);
	(*n)++;
}

/* The listed misses of @doc's workloads explained from a synthetic trace
 * (2 CPUs): for each, on its CPU, its waker wakes its worker 8 us into the
 * period, then "rt-hog" (SCHED_FIFO 98) holds the CPU until 100 us before
 * the end of the window; the worker then finishes.  @manifest names the
 * threads (NULL: the run predates it, they are known by name). */
static void explain(json_t *doc, const json_t *manifest)
{
	json_t *wl = json_object_get(doc, "workloads"), *w, *ev;
	struct lw_misses *ms = lw_misses_new(wl, manifest);
	struct lw_attrib_cfg cfg = { .ncpus = 2, .done = misses_done, .done_ctx = ms };
	struct lw_attrib *a = lw_attrib_new(&cfg);
	struct tev v[256];
	size_t n = 0, i;
	const char *key;

	assert_non_null(ms);
	assert_non_null(a);
	json_object_foreach(wl, key, w) {
		const struct lw_rkind *k = lw_rkind_find(json_string_value(json_object_get(w, "kind")));
		const json_t *mw = json_object_get(json_object_get(manifest, "workloads"), key);

		json_array_foreach(json_object_get(w, k->list_key), i, ev) {
			struct lw_miss_window win;
			int c, wk, wr;

			assert_int_equal(k->miss_window(mw, w, ev, &win), 0);
			c = win.cpu;
			wk = pid_of(&win.worker);
			wr = pid_of(&win.waker);
			if (c < 0 || c >= 2 || win.start_ns > 50000000)
				continue;	/* outside the trace */
			put(v, &n, win.start_ns - 500000, c, LW_TEV_SWITCH, wk, 19, 0, win.worker.name, 0);
			put(v, &n, win.start_ns - 400000, c, LW_TEV_SWITCH, wr, 9, LW_PREV_SLEEPING,
			    win.waker.name, wk);
			put(v, &n, win.start_ns - 300000, c, LW_TEV_SWITCH, 0, 120, LW_PREV_SLEEPING,
			    "swapper", wr);
			put(v, &n, win.start_ns + 5000, c, LW_TEV_WAKEUP, wr, 9, c, win.waker.name, 0);
			put(v, &n, win.start_ns + 6000, c, LW_TEV_SWITCH, wr, 9, 0, win.waker.name, 0);
			put(v, &n, win.start_ns + 8000, c, LW_TEV_WAKEUP, wk, 19, c, win.worker.name, 0);
			put(v, &n, win.start_ns + 9000, c, LW_TEV_SWITCH, 99, 1, LW_PREV_SLEEPING, "rt-hog", wr);
			put(v, &n, win.end_ns - 100000, c, LW_TEV_SWITCH, wk, 19, LW_PREV_SLEEPING,
			    win.worker.name, 99);
			put(v, &n, win.end_ns + 10000, c, LW_TEV_SWITCH, 0, 120, LW_PREV_SLEEPING, "swapper", wk);
		}
	}
	qsort(v, n, sizeof(*v), cmp_tev);
	for (i = 0; i < n; i++) {
		v[i].e.name = v[i].name;
		assert_int_equal(lw_misses_feed(ms, a, v[i].e.ts, 2), 0);
		lw_attrib_event(a, &v[i].e);
	}
	assert_int_equal(lw_misses_feed(ms, a, UINT64_MAX, 2), 0);
	lw_attrib_set_extent(a, n ? v[0].e.ts : 0, n ? v[n - 1].e.ts : 0);
	lw_attrib_finish(a);
	lw_misses_finish(ms);
	lw_attrib_free(a);
}

static const char *cause_of(const json_t *list, size_t i)
{
	return json_string_value(json_object_get(json_array_get(list, i), "cause"));
}

/* Each miss explained by its own window, not by a spike: what held its
 * CPU while the worker was runnable; outside the trace it says so. */
static void test_match(void **st)
{
	for (int named = 0; named < 2; named++) {
		json_t *doc = json_pack("{s:{s:{s:s, s:f, s:{s:i, s:i}, s:s, s:{s:i, s:I}, s:["
					"{s:I, s:i, s:i, s:I, s:b, s:I, s:I, s:I},"
					"{s:I, s:i, s:i, s:I, s:b},"
					"{s:I, s:i, s:i, s:I, s:b}]}}}",
			"workloads", "audio", "kind", "audio", "interval_ns", 1000000.0,
			"params", "prio", 80, "irq_prio", 90, "policy", "SCHED_FIFO",
			"proc_ns", "count", 100, "p50", (json_int_t)300000, "xrun_list",
			"boundary_ns", (json_int_t)5000000, "stream", 0, "cpu", 0,
			"lateness_ns", (json_int_t)200000, "skipped", 0, "irq_ns", (json_int_t)6000,
			"wakeup_ns", (json_int_t)3000, "proc_ns", (json_int_t)1191000,
			"boundary_ns", (json_int_t)9000000, "stream", 0, "cpu", 5,
			"lateness_ns", (json_int_t)10000, "skipped", 0,
			"boundary_ns", (json_int_t)90000000, "stream", 0, "cpu", 0,
			"lateness_ns", (json_int_t)10000, "skipped", 0);
		json_t *manifest = json_pack("{s:{s:{s:[{s:i, s:i, s:i}], s:{s:i, s:i}}}}",
			"workloads", "audio", "streams", "stream", 0, "tid", 4321, "priority", 80,
			"irq_thread", "tid", 4320, "priority", 90);
		json_t *w = json_object_get(json_object_get(doc, "workloads"), "audio");
		json_t *list = json_object_get(w, "xrun_list"), *m0 = json_array_get(list, 0), *c;
		json_t *mc;
		size_t i;
		int stages = 0;

		explain(doc, named ? manifest : NULL);
		assert_string_equal(cause_of(list, 0), "preempt:rt-hog");
		assert_int_equal(json_integer_value(json_object_get(json_object_get(m0, "cause_task"),
								    "pid")), 99);
		assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(
			m0, "window"), "worker"), "name")), "lw-audio/0");
		assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(
			m0, "window"), "worker"), "tid")), named ? 4321 : -1);
		/* 9 us to the hog, then 1091 us of it: the processing stage's */
		json_array_foreach(json_object_get(m0, "components"), i, c)
			if (!strcmp(json_string_value(json_object_get(c, "cause")), "preempt:rt-hog")) {
				stages++;
				assert_string_equal(json_string_value(json_object_get(c, "stage")),
						    "processing");
				assert_int_equal(json_integer_value(json_object_get(c, "ns")), 1091000);
			}
		assert_int_equal(stages, 1);
		assert_int_equal(json_array_size(json_object_get(m0, "stages")), 3);
		assert_int_equal(json_integer_value(json_object_get(m0, "work_ns")), 100000);
		/* the window's components add up to it */
		{
			json_int_t sum = 0;

			json_array_foreach(json_object_get(m0, "components"), i, c)
				sum += json_integer_value(json_object_get(c, "ns"));
			assert_int_equal(sum, 1200000);
		}
		assert_string_equal(cause_of(list, 1), LW_MISS_UNEXPLAINED);
		assert_string_equal(json_string_value(json_object_get(json_array_get(list, 1),
			"unattributable")), "its CPU (5) is not in the trace");
		assert_string_equal(cause_of(list, 2), LW_MISS_UNEXPLAINED);
		assert_string_equal(json_string_value(json_object_get(json_array_get(list, 2),
			"unattributable")), "after the trace ended");
		mc = json_object_get(w, "miss_causes");
		assert_int_equal(json_integer_value(json_object_get(mc, "preempt:rt-hog")), 1);
		assert_int_equal(json_integer_value(json_object_get(mc, LW_MISS_UNEXPLAINED)), 2);
		assert_int_equal(json_object_size(mc), 2);
		json_decref(doc);
		json_decref(manifest);
	}
	(void)st;
}

/* A miss whose worker was still busy with the late period before it takes
 * that period's cause, and says so. */
static void test_knock_on(void **st)
{
	json_t *doc = json_pack("{s:{s:{s:s, s:f, s:{s:i, s:i}, s:s, s:{s:i, s:I}, s:["
				"{s:I, s:i, s:i, s:I, s:b, s:I, s:I, s:I},"
				"{s:I, s:i, s:i, s:I, s:b, s:I, s:I, s:I}]}}}",
		"workloads", "audio", "kind", "audio", "interval_ns", 2000000.0,
		"params", "prio", 80, "irq_prio", 90, "policy", "SCHED_FIFO",
		"proc_ns", "count", 100, "p50", (json_int_t)2000000, "xrun_list",
		"boundary_ns", (json_int_t)5000000, "stream", 0, "cpu", 0,
		"lateness_ns", (json_int_t)500000, "skipped", 0, "irq_ns", (json_int_t)3000,
		"wakeup_ns", (json_int_t)3000, "proc_ns", (json_int_t)2494000,
		"boundary_ns", (json_int_t)7000000, "stream", 0, "cpu", 0,
		"lateness_ns", (json_int_t)100000, "skipped", 0, "irq_ns", (json_int_t)3000,
		"wakeup_ns", (json_int_t)497000, "proc_ns", (json_int_t)1600000);
	json_t *manifest = json_pack("{s:{s:{s:[{s:i, s:i, s:i}], s:{s:i, s:i}}}}",
		"workloads", "audio", "streams", "stream", 0, "tid", 4321, "priority", 80,
		"irq_thread", "tid", 4320, "priority", 90);
	json_t *w = json_object_get(json_object_get(doc, "workloads"), "audio");
	json_t *list = json_object_get(w, "xrun_list"), *b = json_array_get(list, 1);
	struct lw_misses *ms = lw_misses_new(json_object_get(doc, "workloads"), manifest);
	struct lw_attrib_cfg cfg = { .ncpus = 1, .done = misses_done, .done_ctx = ms };
	struct lw_attrib *a = lw_attrib_new(&cfg);
	/* [us, kind, pid, prio, arg, name, prev] */
	static const struct { uint64_t us; enum lw_tev_kind k; int pid, prio; int64_t arg;
			      const char *name; int prev; } evs[] = {
		{ 4000, LW_TEV_SWITCH, 4321, 19, 0, "lw-audio/0", 0 },
		{ 4100, LW_TEV_SWITCH, 4320, 9, LW_PREV_SLEEPING, "lw-audio-irq", 4321 },
		{ 4200, LW_TEV_SWITCH, 0, 120, LW_PREV_SLEEPING, "swapper", 4320 },
		{ 5002, LW_TEV_WAKEUP, 4320, 9, 0, "lw-audio-irq", 0 },
		{ 5003, LW_TEV_SWITCH, 4320, 9, 0, "lw-audio-irq", 0 },
		{ 5005, LW_TEV_WAKEUP, 4321, 19, 0, "lw-audio/0", 0 },
		{ 5006, LW_TEV_SWITCH, 4321, 19, LW_PREV_SLEEPING, "lw-audio/0", 4320 },
		{ 5300, LW_TEV_WAKEUP, 99, 1, 0, "rt-hog", 0 },
		{ 5301, LW_TEV_SWITCH, 99, 1, LW_PREV_RUNNABLE, "rt-hog", 4321 },
		{ 6200, LW_TEV_SWITCH, 4321, 19, LW_PREV_SLEEPING, "lw-audio/0", 99 },
		{ 7002, LW_TEV_WAKEUP, 4320, 9, 0, "lw-audio-irq", 0 },
		{ 7003, LW_TEV_SWITCH, 4320, 9, LW_PREV_RUNNABLE, "lw-audio-irq", 4321 },
		{ 7005, LW_TEV_SWITCH, 4321, 19, LW_PREV_SLEEPING, "lw-audio/0", 4320 },
		{ 9110, LW_TEV_SWITCH, 0, 120, LW_PREV_SLEEPING, "swapper", 4321 },
	};

	assert_non_null(a);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		struct lw_tev e = { .ts = evs[i].us * 1000, .kind = evs[i].k, .pid = evs[i].pid,
				    .prio = evs[i].prio, .arg = evs[i].arg, .name = evs[i].name,
				    .prev_pid = evs[i].prev };

		assert_int_equal(lw_misses_feed(ms, a, e.ts, 1), 0);
		lw_attrib_event(a, &e);
	}
	assert_int_equal(lw_misses_feed(ms, a, UINT64_MAX, 1), 0);
	lw_attrib_finish(a);
	lw_misses_finish(ms);
	lw_attrib_free(a);
	assert_string_equal(cause_of(list, 0), "preempt:rt-hog");
	/* busy with the first until 7.5 ms (0.5 ms), its own work 1.6 ms: the
	 * first's cause */
	assert_string_equal(cause_of(list, 1), "preempt:rt-hog");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(b, "knock_on"), "start_ns")),
			 5000000);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(b, "cause_task"), "pid")), 99);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(w, "miss_causes"),
							    "preempt:rt-hog")), 2);
	json_decref(doc);
	json_decref(manifest);
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
		assert_true(k->probe < 0 || (k->probe < LW_SAMPLE_MAX && k->threads_key));
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
	assert_int_equal(lw_rkind_find("audio")->probe, LW_SAMPLE_AUDIO);
	assert_null(lw_rkind_find("stress"));
	assert_null(lw_rkind_find(NULL));
	assert_null(lw_rkind_of_probe(LW_SAMPLE_CYCLIC));
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
		 * index, and end with the slack (int64), the stream or slot and
		 * the CPU (uint16) and the flags; a kind laid out otherwise needs
		 * its own writer here */
		for (int j = 0; j < 10; j++) {
			uint64_t t = 5000000 + (uint64_t)j * 1000000, idx = (uint64_t)j;
			int64_t slack = j == 4 || j == 7 ? -3000 * j : 200000;
			uint16_t cpu = 1;
			uint32_t flags = slack < 0 ? LW_REC_MISS : 0;

			memset(rec, 0, sizeof(rec));
			memcpy(rec, &t, 8);
			memcpy(rec + 8, &idx, 8);
			memcpy(rec + k->record_size - 16, &slack, 8);
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
		json_t *an = json_pack("{s:{s:{s:s, s:f, s:i, s:i, s:[{s:I, s:i, s:I}]}}}",
			"workloads", "w", "kind", k->kind, "interval_ns", 1000000.0, k->miss_key, 3,
			k->total_key, 30, k->list_key, k->time_key, (json_int_t)5000000, "cpu", 1,
			"lateness_ns", (json_int_t)1000);
		json_t *w = json_object_get(json_object_get(an, "workloads"), "w"), *cmpform;
		char buf[160];

		assert_non_null(k->miss_window);
		for (int s = 0; s < 3; s++)
			assert_non_null(k->stage_names[s]);
		explain(an, NULL);
		assert_string_equal(json_string_value(json_object_get(json_array_get(
			json_object_get(w, k->list_key), 0), "cause")), "preempt:rt-hog");
		assert_int_equal(json_integer_value(json_object_get(json_object_get(w, "miss_causes"),
								    "preempt:rt-hog")), 1);
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
	assert_int_equal(lw_report_html_run(f, &(struct lw_report_in){ .run = &r, .checks = &cs,
								  .ro = &ro }), 0);
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
		cmocka_unit_test(test_knock_on),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_summaries),
		cmocka_unit_test(test_consumers),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
