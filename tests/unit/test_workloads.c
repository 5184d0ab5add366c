// SPDX-License-Identifier: GPL-2.0-only
/* Workload descriptors, specs (good and bad), record files and summaries. */
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "lib/safefile.h"
#include "cmd/runopts.h"
#include "lib/parse.h"
#include "workloads/records.h"
#include "workloads/workload.h"

static json_t *params_of(const char *spec)
{
	struct lw_wspec *s;
	json_t *j;
	int q = lw_set_quiet(1);

	s = lw_wspec_parse(spec, "--workload");
	lw_set_quiet(q);
	if (!s)
		fail_msg("'%s' did not parse: %s", spec, lw_last_error());
	j = lw_wspec_json(s);
	lw_wspec_free(s);
	return j;
}

#define geti(j, k) json_integer_value(json_object_get((j), (k)))
#define getd(j, k) json_real_value(json_object_get((j), (k)))
#define gets(j, k) json_string_value(json_object_get((j), (k)))

static void test_list(void **state)
{
	int n = 0;

	for (int i = 0; lw_workloads[i]; i++, n++) {
		const struct lw_workload *w = lw_workloads[i];
		struct lw_wspec *s = lw_wspec_new(w);	/* every default parses */

		assert_non_null(s);
		assert_true(w->help && *w->help && w->create);
		for (const struct lw_wparam *p = w->params; p->name; p++) {
			assert_true(p->help && *p->help);
			assert_ptr_equal(lw_wparam_find(w, p->name), p);	/* names unique */
		}
		assert_int_equal(lw_wspec_check(s, NULL), 0);
		lw_wspec_free(s);
		assert_ptr_equal(lw_workload_find(w->name), w);
	}
	assert_true(n >= 3);
	assert_non_null(lw_workload_find("audio"));
	assert_non_null(lw_workload_find("video"));
	assert_non_null(lw_workload_find("stress"));
	assert_null(lw_workload_find("nosuch"));
}

static void test_defaults(void **state)
{
	json_t *a = params_of("audio"), *v = params_of("video"), *s = params_of("stress");

	assert_int_equal(geti(a, "streams"), 1);
	assert_int_equal(geti(a, "rate"), 48000);
	assert_int_equal(geti(a, "channels"), 2);
	assert_int_equal(geti(a, "period"), 128);
	assert_true(getd(a, "load") == 0.3);
	assert_int_equal(geti(v, "width"), 1920);
	assert_int_equal(geti(v, "height"), 1080);
	assert_true(getd(v, "fps") == 60);
	assert_string_equal(gets(v, "format"), "nv12");
	assert_string_equal(gets(s, "kind"), "cpu");
	assert_string_equal(gets(s, "policy"), "other");
	assert_int_equal(geti(s, "window"), 10000000);
	json_decref(a);
	json_decref(v);
	json_decref(s);
}

static void test_good_specs(void **state)
{
	json_t *j = params_of("audio:streams=2,rate=44100,period=256,load=0.5,cpu=0,prio=70");

	assert_int_equal(geti(j, "streams"), 2);
	assert_int_equal(geti(j, "rate"), 44100);
	assert_int_equal(geti(j, "period"), 256);
	assert_true(getd(j, "load") == 0.5);
	assert_string_equal(gets(j, "cpu"), "0");
	assert_int_equal(geti(j, "prio"), 70);
	json_decref(j);

	/* a CPU list keeps its commas; times and sizes take units */
	j = params_of("stress:kind=io,cpus=0,1,intensity=0.25,window=2ms,size=1M");
	assert_string_equal(gets(j, "kind"), "io");
	assert_string_equal(gets(j, "cpus"), "0-1");
	assert_true(getd(j, "intensity") == 0.25);
	assert_int_equal(geti(j, "window"), 2000000);
	assert_int_equal(geti(j, "size"), 1 << 20);
	json_decref(j);

	j = params_of("video:fps=30,width=1280,height=720,format=yuyv,matrix=bt601,out_width=640,out_height=360");
	assert_true(getd(j, "fps") == 30);
	assert_int_equal(geti(j, "width"), 1280);
	assert_string_equal(gets(j, "format"), "yuyv");
	assert_string_equal(gets(j, "matrix"), "bt601");
	assert_int_equal(geti(j, "out_height"), 360);
	json_decref(j);

	/* the last value of a repeated key wins */
	j = params_of("audio:load=0.1,load=1.2");
	assert_true(getd(j, "load") == 1.2);
	json_decref(j);
}

static void test_bad_specs(void **state)
{
	static const struct { const char *spec, *msg; } bad[] = {
		{ "", "empty workload spec" },
		{ "nosuch", "unknown workload 'nosuch' (workloads: audio, video, stress" },
		{ "audio:", "nothing after ':'" },
		{ "audio:streams", "'streams' is not KEY=VALUE" },
		{ "audio:=3", "missing parameter name" },
		{ "audio:foo=1", "unknown parameter 'foo' (parameters: streams, rate" },
		{ "audio:streams=0", "--workload: workload audio: streams: 0 is out of range [1, 16]" },
		{ "audio:streams=two", "streams: 'two' is not a non-negative integer" },
		{ "audio:load=abc", "load: 'abc' is not a number" },
		{ "audio:load=5", "load: 5 is out of range [0, 4]" },
		{ "audio:load=", "load: empty value" },
		{ "audio:cpu=1000", "cpu: CPU 1000 is not online" },
		{ "audio:cpu=1-0", "bad range 1-0" },
		{ "audio:streams=2,,load=1", "empty item" },
		{ "audio:load=1,", "empty item" },
		{ "audio:period=16,rate=384000", "period 16 frames at 384000 Hz is 41.7us, below 50us" },
		{ "video:width=1921", "width and height must be even" },
		{ "video:out_width=640", "give both out_width and out_height" },
		{ "video:format=rgb", "format: 'rgb' is not one of: nv12, yuyv" },
		{ "stress:kind=disk", "kind: 'disk' is not one of: cpu, memory, cache, io" },
		{ "stress:window=5", "window: '5' is out of range [100us, 1s]" },
		{ "stress:size=12q", "size: '12q' is not a size" },
		{ "stress:kind=messaging,size=1M", "too large for messaging" },
		{ "stress:kind=memory,size=2G", "too large for memory (at most 1G" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int q = lw_set_quiet(1);
		struct lw_wspec *s = lw_wspec_parse(bad[i].spec, "--workload");

		lw_set_quiet(q);
		if (s)
			fail_msg("'%s' was accepted", bad[i].spec);
		if (!strstr(lw_last_error(), bad[i].msg))
			fail_msg("'%s': error '%s' does not contain '%s'", bad[i].spec,
				 lw_last_error(), bad[i].msg);
		if (strncmp(lw_last_error(), "--workload: ", 12))
			fail_msg("'%s': error '%s' does not name the option", bad[i].spec,
				 lw_last_error());
	}
}

static void test_set_one_key(void **state)
{
	struct lw_wspec *s = lw_wspec_new(lw_workload_find("audio"));

	/* as a scenario file does it: one key at a time, errors name the place */
	assert_int_equal(lw_wspec_set(s, "cpu", "0,0", "scenario.yaml:12"), 0);
	assert_error(lw_wspec_set(s, "load", "2x", "scenario.yaml:13") < 0,
		     "scenario.yaml:13: workload audio: load: '2x' is not a number");
	assert_error(lw_wspec_set(s, "lod", "1", "scenario.yaml:14") < 0,
		     "scenario.yaml:14: workload audio: unknown parameter 'lod'");
	assert_int_equal(s->set, 1ULL << 7);	/* only cpu was set */
	lw_wspec_free(s);
}

static void test_format_round_trip(void **state)
{
	const char *specs[] = {
		"audio:streams=3,load=0.75,cpu=0",
		"video:fps=29.97,width=640,height=480,format=yuyv",
		"stress:kind=network,rate=10M,window=500us,policy=batch",
	};

	for (size_t i = 0; i < 3; i++) {
		struct lw_wspec *a = lw_wspec_parse(specs[i], NULL), *b;
		char buf[2048];
		json_t *ja, *jb;

		assert_non_null(a);
		lw_wspec_format(a, buf, sizeof(buf));
		b = lw_wspec_parse(buf, NULL);
		if (!b)
			fail_msg("'%s' does not parse back", buf);
		ja = lw_wspec_json(a);
		jb = lw_wspec_json(b);
		assert_true(json_equal(ja, jb));
		json_decref(ja);
		json_decref(jb);
		lw_wspec_free(a);
		lw_wspec_free(b);
	}
}

static void write_audio(const char *dir, int n, int xruns)
{
	struct lw_records_hdr h = {
		.record_size = sizeof(struct lw_audio_record), .start_mono = 1000,
		.kind = "audio", .instance = "audio", .interval_num = 128000000000ULL,
		.interval_den = 48000, .streams = 1,
	};
	char path[512];
	struct lw_records *w;
	struct lw_rec_ring *r;
	uint64_t written, dropped;

	snprintf(path, sizeof(path), "%s/audio.records", dir);
	w = lw_records_create(LW_AT_PATH, path, &h);
	assert_non_null(w);
	r = lw_records_ring(w, 4096);
	assert_non_null(r);
	assert_int_equal(lw_records_start(w), 0);
	for (int i = 0; i < n; i++) {
		struct lw_audio_record rec = {
			.boundary_ns = 5000000 + (uint64_t)i * 2666666, .period = (uint64_t)i,
			.irq_ns = 1000, .wakeup_ns = (uint64_t)(i + 1) * 100, .proc_ns = 800000,
			.slack_ns = i < xruns ? -5000 * (i + 1) : 1800000,
			.flags = i < xruns ? LW_REC_MISS : 0,
		};

		assert_int_equal(lw_rec_push(r, &rec), 0);
	}
	assert_int_equal(lw_records_close(w, &written, &dropped), 0);
	assert_int_equal(written, n);
	assert_int_equal(dropped, 0);
}

static void test_records_round_trip(void **state)
{
	char *dir = lw_test_tmpdir(), path[512];
	struct lw_records_hdr h;
	struct lw_records_reader *r;
	struct lw_audio_record rec;
	int n = 0;

	write_audio(dir, 1000, 3);
	snprintf(path, sizeof(path), "%s/audio.records", dir);
	r = lw_records_open(path, &h);
	assert_non_null(r);
	assert_string_equal(h.kind, "audio");
	assert_string_equal(h.instance, "audio");
	assert_int_equal(h.interval_den, 48000);
	assert_int_equal(lw_records_count(r), 1000);
	while (lw_records_next(r, &rec) > 0) {
		assert_int_equal(rec.period, n);
		assert_int_equal(rec.wakeup_ns, (n + 1) * 100);
		n++;
	}
	assert_int_equal(n, 1000);
	lw_records_close_reader(r);

	/* a run killed mid-write: whole records are kept, with a warning */
	assert_int_equal(truncate(path, LW_RECORDS_HDR + 10 * sizeof(rec) + 7), 0);
	{
		int q = lw_set_quiet(1);

		r = lw_records_open(path, &h);
		lw_set_quiet(q);
	}
	assert_non_null(r);
	assert_int_equal(lw_records_count(r), 10);
	lw_records_close_reader(r);

	/* not a record file, a future version, a short header */
	lw_test_write(path, "LWSAMPLE\1\0\0\0", 12);
	assert_error(lw_records_open(path, &h) == NULL, "truncated header");
	{
		unsigned char b[LW_RECORDS_HDR] = "LWRECORX";

		lw_test_write(path, b, sizeof(b));
		assert_error(lw_records_open(path, &h) == NULL, "not a latwatt record file");
		memcpy(b, "LWRECORD\x09\0\0\0", 12);
		lw_test_write(path, b, sizeof(b));
		assert_error(lw_records_open(path, &h) == NULL, "record file version 9");
	}
	lw_test_rmdir(dir);
}

static void test_summaries(void **state)
{
	char *dir = lw_test_tmpdir(), path[512];
	json_t *s, *a, *w;

	write_audio(dir, 1000, 3);
	s = lw_workload_summaries(dir);
	assert_non_null(s);
	a = json_object_get(s, "audio");
	assert_non_null(a);
	assert_string_equal(gets(a, "kind"), "audio");
	assert_int_equal(geti(a, "periods"), 1000);
	assert_int_equal(geti(a, "xruns"), 3);
	assert_int_equal(geti(a, "worst_slack_ns"), -15000);
	w = json_object_get(a, "wakeup_ns");
	assert_int_equal(geti(w, "min"), 100);
	assert_int_equal(geti(w, "p50"), 50000);	/* nearest rank of 100..100000 */
	assert_int_equal(geti(w, "p99"), 99000);
	assert_int_equal(geti(w, "max"), 100000);
	assert_int_equal(geti(json_object_get(a, "latency_ns"), "max"), 101000);
	assert_int_equal(json_array_size(json_object_get(a, "xrun_list")), 3);
	assert_int_equal(geti(json_array_get(json_object_get(a, "xrun_list"), 2), "lateness_ns"), 15000);
	/* 1000 periods of 2.667ms: 375 per second */
	assert_true(fabs(getd(a, "periods_per_s_per_stream") - 375) < 0.5);
	json_decref(s);

	/* a corrupt records file is an error naming it */
	snprintf(path, sizeof(path), "%s/video.records", dir);
	lw_test_write(path, "garbage", 7);
	assert_error(lw_workload_summaries(dir) == NULL, "video.records: truncated header");
	unlink(path);

	/* no workloads: an empty object */
	snprintf(path, sizeof(path), "%s/audio.records", dir);
	unlink(path);
	s = lw_workload_summaries(dir);
	assert_non_null(s);
	assert_int_equal(json_object_size(s), 0);
	json_decref(s);
	lw_test_rmdir(dir);
}

/* A stall of seconds (past 2^32 ns) is whole in the records and their
 * summaries: durations were held in 32 bits, saturated at 4.29 s, and the
 * slack at -2.15 s, so a 7 s stall read as 2147 ms late. */
static void test_long_stalls(void **state)
{
	char *dir = lw_test_tmpdir(), path[512];
	const uint64_t stall = 7000000000ULL;
	struct lw_records_hdr ha = {
		.record_size = sizeof(struct lw_audio_record), .start_mono = 1000,
		.kind = "audio", .instance = "audio", .interval_num = 1000000, .interval_den = 1,
		.streams = 1,
	}, hv = ha;
	struct lw_audio_record a = {
		.boundary_ns = 5000000, .irq_ns = stall - 1000, .wakeup_ns = 5000000000ULL,
		.proc_ns = 4500000000ULL, .slack_ns = -(int64_t)stall, .flags = LW_REC_MISS,
	};
	struct lw_video_record v = {
		.vsync_ns = 5000000, .capture_ns = 4400000000ULL, .dma_ns = 4300000000ULL,
		.wakeup_ns = 4600000000ULL, .proc_ns = 4700000000ULL, .latency_ns = stall,
		.slack_ns = -(int64_t)stall, .flags = LW_REC_MISS,
	};
	uint64_t written, dropped;
	struct lw_records *w;
	struct lw_rec_ring *r;
	json_t *s, *o;

	hv.record_size = sizeof(struct lw_video_record);
	snprintf(hv.kind, sizeof(hv.kind), "video");
	snprintf(hv.instance, sizeof(hv.instance), "video");
	snprintf(path, sizeof(path), "%s/audio.records", dir);
	assert_non_null(w = lw_records_create(LW_AT_PATH, path, &ha));
	assert_non_null(r = lw_records_ring(w, 64));
	assert_int_equal(lw_records_start(w), 0);
	assert_int_equal(lw_rec_push(r, &a), 0);
	assert_int_equal(lw_records_close(w, &written, &dropped), 0);
	snprintf(path, sizeof(path), "%s/video.records", dir);
	assert_non_null(w = lw_records_create(LW_AT_PATH, path, &hv));
	assert_non_null(r = lw_records_ring(w, 64));
	assert_int_equal(lw_records_start(w), 0);
	assert_int_equal(lw_rec_push(r, &v), 0);
	assert_int_equal(lw_records_close(w, &written, &dropped), 0);

	s = lw_workload_summaries(dir);
	assert_non_null(s);
	o = json_object_get(s, "audio");
	assert_int_equal(geti(o, "worst_slack_ns"), -(json_int_t)stall);
	assert_int_equal(geti(json_array_get(json_object_get(o, "xrun_list"), 0), "lateness_ns"),
			 stall);
	assert_int_equal(geti(json_object_get(o, "irq_ns"), "max"), stall - 1000);
	assert_int_equal(geti(json_object_get(o, "wakeup_ns"), "max"), 5000000000LL);
	assert_int_equal(geti(json_object_get(o, "latency_ns"), "max"), 5000000000LL + stall - 1000);
	assert_int_equal(geti(json_object_get(o, "proc_ns"), "max"), 4500000000LL);
	o = json_object_get(s, "video");
	assert_int_equal(geti(o, "worst_slack_ns"), -(json_int_t)stall);
	assert_int_equal(geti(json_array_get(json_object_get(o, "dropped_list"), 0), "lateness_ns"),
			 stall);
	assert_int_equal(geti(json_object_get(o, "latency_ns"), "max"), stall);
	assert_int_equal(geti(json_object_get(o, "capture_ns"), "max"), 4400000000LL);
	assert_int_equal(geti(json_object_get(o, "wakeup_ns"), "max"), 4600000000LL);
	assert_int_equal(geti(json_object_get(o, "proc_ns"), "max"), 4700000000LL);
	json_decref(s);
	lw_test_rmdir(dir);
}

/* Files of version 1 (40- and 48-byte records, 32-bit durations) still read. */
static void test_records_v1(void **state)
{
	char *dir = lw_test_tmpdir(), path[512];
	unsigned char b[LW_RECORDS_HDR + sizeof(struct lw_video_record_v1)] = "LWRECORD";
	struct lw_audio_record_v1 a = {
		.boundary_ns = 5000000, .irq_ns = 1000, .wakeup_ns = 2000, .proc_ns = 3000,
		.slack_ns = -4000, .cpu = 1, .flags = LW_REC_MISS,
	};
	struct lw_video_record_v1 v = {
		.vsync_ns = 5000000, .capture_ns = 100, .wakeup_ns = 200, .proc_ns = 300,
		.latency_ns = 9000, .slack_ns = -500, .cpu = 1, .flags = LW_REC_MISS,
	};
	uint32_t ver = 1, size = sizeof(a), streams = 1;
	uint64_t start = 1000, num = 1000000, den = 1;
	json_t *s, *o;

	memcpy(b + 8, &ver, 4);
	memcpy(b + 16, &start, 8);
	memcpy(b + 72, &num, 8);
	memcpy(b + 80, &den, 8);
	memcpy(b + 88, &streams, 4);
	memcpy(b + 12, &size, 4);
	memcpy(b + 24, "audio", 5);
	memcpy(b + 40, "audio", 5);
	memcpy(b + LW_RECORDS_HDR, &a, sizeof(a));
	snprintf(path, sizeof(path), "%s/audio.records", dir);
	lw_test_write(path, b, LW_RECORDS_HDR + sizeof(a));
	size = sizeof(v);
	memcpy(b + 12, &size, 4);
	memcpy(b + 24, "video", 5);
	memcpy(b + 40, "video", 5);
	memcpy(b + LW_RECORDS_HDR, &v, sizeof(v));
	snprintf(path, sizeof(path), "%s/video.records", dir);
	lw_test_write(path, b, LW_RECORDS_HDR + sizeof(v));

	s = lw_workload_summaries(dir);
	assert_non_null(s);
	o = json_object_get(s, "audio");
	assert_int_equal(geti(o, "xruns"), 1);
	assert_int_equal(geti(o, "worst_slack_ns"), -4000);
	assert_int_equal(geti(json_object_get(o, "latency_ns"), "max"), 3000);
	assert_int_equal(geti(json_object_get(o, "proc_ns"), "max"), 3000);
	o = json_object_get(s, "video");
	assert_int_equal(geti(o, "dropped"), 1);
	assert_int_equal(geti(o, "worst_slack_ns"), -500);
	assert_int_equal(geti(json_object_get(o, "latency_ns"), "max"), 9000);
	json_decref(s);

	/* a version 1 header with a version 2 record size is refused */
	size = sizeof(struct lw_video_record);
	memcpy(b + 12, &size, 4);
	lw_test_write(path, b, LW_RECORDS_HDR);
	assert_error(lw_workload_summaries(dir) == NULL, "a video record of version 1 is 48 bytes");
	lw_test_rmdir(dir);
}

static void test_run_option(void **state)
{
	char *ok[] = { "run", "-o", "R", "-w", "audio", "--workload=video:fps=30,width=640,height=480",
		       "-w", "stress:kind=cpu,cpus=0", NULL };
	char *bad[] = { "run", "-o", "R", "-w", "audio:load=9", NULL };
	char *none[] = { "run", "-o", "R", "-w", NULL };
	struct lw_run_opts o;
	cpu_set_t online;

	lw_online_cpus(&online);
	lw_run_opts_default(&o, &online);
	assert_int_equal(lw_run_opts_parse(&o, 8, ok, &online), 0);
	assert_int_equal(o.nworkloads, 3);
	assert_string_equal(o.workload[0], "audio");
	assert_string_equal(o.workload[1], "video:fps=30,width=640,height=480");
	assert_string_equal(o.workload[2], "stress:kind=cpu,cpus=0");
	lw_run_opts_default(&o, &online);
	assert_error(lw_run_opts_parse(&o, 5, bad, &online) < 0,
		     "--workload: workload audio: load: 9 is out of range [0, 4]");
	lw_run_opts_default(&o, &online);
	assert_error(lw_run_opts_parse(&o, 4, none, &online) < 0, "option -w needs a value");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_good_specs),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_set_one_key),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_records_round_trip),
		cmocka_unit_test(test_summaries),
		cmocka_unit_test(test_long_stalls),
		cmocka_unit_test(test_records_v1),
		cmocka_unit_test(test_run_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
