// SPDX-License-Identifier: GPL-2.0-only
/* The state of a run as its files show it (analysis/runstate.h): a file that
 * holds less than the manifest says was written makes the run truncated,
 * and the analysis says so and analyzes what is there. */
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "analysis/analyze.h"
#include "analysis/compare.h"
#include "analysis/repeat.h"
#include "analysis/runstate.h"
#include "lib/safefile.h"
#include "lib/rundir.h"
#include "lib/samples.h"
#include "lib/sysfs.h"
#include "lib/journal.h"
#include "lib/writer.h"
#include "power/power.h"
#include "workloads/records.h"

static void write_samples(const char *run, int n)
{
	char path[512];
	struct lw_samples_writer *w;

	snprintf(path, sizeof(path), "%s/samples", run);
	w = lw_samples_create(LW_AT_PATH, path, 1000);
	assert_non_null(w);
	for (int i = 0; i < n; i++) {
		struct lw_sample s = { .expected_ns = 1000 + (uint64_t)i * 1000, .latency_ns = 5000,
				       .cpu = 0, .probe = LW_SAMPLE_CYCLIC };

		assert_int_equal(lw_samples_write(w, &s, 1), 0);
	}
	assert_int_equal(lw_samples_close(w), 0);
}

/* A run at @run whose manifest says it wrote 10 samples and ended @status. */
static void mk_run_at(const char *run, const char *status)
{
	struct lw_rundir rd;

	assert_int_equal(lw_rundir_create(&rd, run, 1), 0);
	json_object_set_new(rd.manifest, "samples", json_pack("{s:s, s:i, s:i, s:i}", "format",
		"latwatt-samples", "version", 1, "written", 10, "dropped", 0));
	lw_manifest_set_status(rd.manifest, status, strcmp(status, "complete") ?
			       "interrupted by SIGINT" : NULL);
	assert_int_equal(lw_rundir_save(&rd), 0);
	lw_rundir_close(&rd);
	write_samples(run, 10);
}

static char *mk_run(char *dir, const char *status)
{
	static char run[512];

	snprintf(run, sizeof(run), "%s/run", dir);
	mk_run_at(run, status);
	return run;
}

static void state_of(const char *run, struct lw_run_state *st)
{
	struct lw_rundir rd;

	assert_int_equal(lw_rundir_open(&rd, run), 0);
	assert_int_equal(lw_run_state(&rd, st), 0);
	lw_rundir_close(&rd);
}

static json_int_t tget(const struct lw_run_state *st, size_t i, const char *key)
{
	return json_integer_value(json_object_get(json_array_get(st->truncated, i), key));
}

static void test_samples(void **s)
{
	char *dir = lw_test_tmpdir(), *run = mk_run(dir, "complete"), path[600];
	struct lw_run_state st;

	state_of(run, &st);
	assert_string_equal(st.status, "complete");
	assert_null(st.truncated);
	lw_run_state_free(&st);

	/* cut at a record boundary: it read as complete */
	snprintf(path, sizeof(path), "%s/samples", run);
	assert_int_equal(truncate(path, LW_SAMPLES_HDR + 7 * sizeof(struct lw_sample)), 0);
	state_of(run, &st);
	assert_string_equal(st.status, "truncated");
	assert_string_equal(st.manifest_status, "complete");
	assert_string_equal(st.reason, "samples holds 7 of the 10 records the run wrote");
	assert_int_equal(tget(&st, 0, "found"), 7);
	assert_int_equal(tget(&st, 0, "expected"), 10);
	assert_int_equal(tget(&st, 0, "partial_bytes"), 0);
	lw_run_state_free(&st);

	/* and in a record */
	assert_int_equal(truncate(path, LW_SAMPLES_HDR + 7 * sizeof(struct lw_sample) + 5), 0);
	state_of(run, &st);
	assert_string_equal(st.status, "truncated");
	assert_int_equal(tget(&st, 0, "partial_bytes"), 5);
	assert_non_null(strstr(st.reason, "and part of one more"));
	lw_run_state_free(&st);

	/* whole, then part of a record more than the run wrote */
	write_samples(run, 10);
	assert_int_equal(truncate(path, LW_SAMPLES_HDR + 10 * sizeof(struct lw_sample) + 3), 0);
	state_of(run, &st);
	assert_string_equal(st.status, "truncated");
	assert_non_null(strstr(st.reason, "samples ends in part of a record (3 bytes) after its 10 records"));
	lw_run_state_free(&st);

	/* missing altogether */
	unlink(path);
	state_of(run, &st);
	assert_string_equal(st.status, "truncated");
	assert_int_equal(tget(&st, 0, "found"), 0);
	lw_run_state_free(&st);
	lw_test_rmdir(dir);
}

/* An interrupted run keeps its reason beside the truncation; a run still
 * "running" wrote no counts and is not checked. */
static void test_status_kept(void **s)
{
	char *dir = lw_test_tmpdir(), *run = mk_run(dir, "incomplete"), path[600];
	struct lw_run_state st;
	struct lw_rundir rd;

	state_of(run, &st);
	assert_string_equal(st.status, "incomplete");
	assert_string_equal(st.reason, "interrupted by SIGINT");
	lw_run_state_free(&st);
	snprintf(path, sizeof(path), "%s/samples", run);
	assert_int_equal(truncate(path, LW_SAMPLES_HDR + 4 * sizeof(struct lw_sample)), 0);
	state_of(run, &st);
	assert_string_equal(st.status, "truncated");
	assert_string_equal(st.reason, "samples holds 4 of the 10 records the run wrote; "
			    "the manifest says incomplete: interrupted by SIGINT");
	/* applied to the manifest, then applied again: the same */
	assert_int_equal(lw_rundir_open(&rd, run), 0);
	lw_run_state_apply(&st, rd.manifest);
	lw_run_state_free(&st);
	assert_int_equal(lw_run_state(&rd, &st), 0);
	lw_run_state_apply(&st, rd.manifest);
	assert_string_equal(lw_manifest_status(rd.manifest), "truncated");
	assert_string_equal(json_string_value(json_object_get(rd.manifest, "manifest_status")),
			    "incomplete");
	assert_string_equal(json_string_value(json_object_get(rd.manifest, "manifest_status_reason")),
			    "interrupted by SIGINT");
	assert_string_equal(json_string_value(json_object_get(rd.manifest, "status_reason")),
			    st.reason);
	assert_int_equal(lw_run_samples_flags(rd.manifest),
			 LW_SAMPLES_PARTIAL_OK | LW_SAMPLES_QUIET);
	lw_run_state_free(&st);
	lw_rundir_close(&rd);

	/* running: nothing to count against */
	mk_run(dir, "running");
	assert_int_equal(truncate(path, LW_SAMPLES_HDR + 4 * sizeof(struct lw_sample)), 0);
	state_of(run, &st);
	assert_string_equal(st.status, "running");
	lw_run_state_free(&st);
	lw_test_rmdir(dir);
}

/* Workload records, power rails, monitor intervals and the trace: each
 * against what the manifest says the run wrote. */
static void test_other_files(void **s)
{
	char *dir = lw_test_tmpdir(), *run = mk_run(dir, "complete"), path[600];
	struct lw_records_hdr h = {
		.record_size = sizeof(struct lw_audio_record), .start_mono = 1000,
		.kind = "audio", .instance = "audio", .interval_num = 1000000, .interval_den = 1,
		.streams = 1,
	};
	struct lw_audio_record a = { .boundary_ns = 5000 };
	uint64_t written, dropped;
	struct lw_power_writer *pw;
	struct lw_records *w;
	struct lw_rec_ring *r;
	struct lw_run_state st;
	struct lw_rundir rd;

	snprintf(path, sizeof(path), "%s/audio.records", run);
	assert_non_null(w = lw_records_create(LW_AT_PATH, path, &h));
	assert_non_null(r = lw_records_ring(w, 64));
	assert_int_equal(lw_records_start(w), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(lw_rec_push(r, &a), 0);
	assert_int_equal(lw_records_close(w, &written, &dropped), 0);
	snprintf(path, sizeof(path), "%s/power", run);
	pw = lw_power_create(LW_AT_PATH, path, 1000, 0);
	assert_int_equal(lw_power_rail(pw, 0, "hw/a", "hwmon", LW_RAIL_TOTAL, "x"), 0);
	assert_int_equal(lw_power_sample(pw, 0, 1000, 1.0, NAN, NAN, NAN), 0);
	assert_int_equal(lw_power_sample(pw, 0, 2000, 1.0, NAN, NAN, NAN), 0);
	assert_int_equal(lw_power_close(pw, 3000), 0);
	snprintf(path, sizeof(path), "%s/monitor", run);
	lw_test_write(path, "{\"format\":\"latwatt-monitor\"}\n{}\n{}\n{\"cut", 39);
	snprintf(path, sizeof(path), "%s/trace.dat", run);
	lw_test_write(path, "tracing", 7);

	assert_int_equal(lw_rundir_open(&rd, run), 0);
	json_object_set_new(rd.manifest, "workloads", json_pack("{s:{s:{s:s, s:i}}}", "audio",
		"records", "file", "audio.records", "written", 5));
	json_object_set_new(rd.manifest, "power", json_pack("{s:{s:s}, s:[{s:s, s:i}]}",
		"file", "name", "power", "rails", "name", "hw/a", "samples", 4));
	json_object_set_new(rd.manifest, "monitor", json_pack("{s:i}", "intervals", 3));
	json_object_set_new(rd.manifest, "trace", json_pack("{s:s, s:[{s:i}, {s:i}]}", "file",
		"trace.dat", "cpus", "bytes", 4096, "bytes", 8192));
	assert_int_equal(lw_rundir_save(&rd), 0);
	lw_rundir_close(&rd);

	state_of(run, &st);
	assert_string_equal(st.status, "truncated");
	assert_int_equal(json_array_size(st.truncated), 4);
	assert_string_equal(st.reason,
		"audio.records holds 3 of the 5 records the run wrote; "
		"power holds 2 of the 4 samples of rail hw/a the run wrote; "
		"monitor holds 2 of the 3 intervals the run wrote; "
		"trace.dat holds 7 bytes, less than the 12288 bytes of trace the run recorded");
	assert_string_equal(json_string_value(json_object_get(json_array_get(st.truncated, 1), "rail")),
			    "hw/a");
	lw_run_state_free(&st);
	lw_test_rmdir(dir);
}

/* The analysis of a run cut at a record boundary: the run said complete
 * (and analyze PASS, exit 0); now run.status says truncated, with the
 * counts, and the samples that are there are analyzed. */
static void test_analysis(void **s)
{
	char *dir = lw_test_tmpdir(), run[512], cmd[1200], path[600];
	struct lw_analyze_opts o;
	struct lw_summary sum;
	struct lw_rundir rd;
	json_t *doc, *r;
	int partial;

	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(cmd, sizeof(cmd), "cp -r tests/data/trace-run '%s'", run);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/samples", run);
	assert_int_equal(truncate(path, LW_SAMPLES_HDR + 300 * sizeof(struct lw_sample) + 11), 0);
	lw_analyze_opts_default(&o);
	assert_int_equal(lw_rundir_open(&rd, run), 0);
	assert_true(lw_analyze_run(&rd, &o, &sum, &doc, &partial) >= 0);
	assert_int_equal(partial, 0);
	r = json_object_get(doc, "run");
	assert_string_equal(json_string_value(json_object_get(r, "status")), "truncated");
	assert_string_equal(json_string_value(json_object_get(r, "manifest_status")), "complete");
	assert_string_equal(json_string_value(json_object_get(r, "status_reason")),
			    "samples holds 300 of the 403 records the run wrote and part of one more");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(r,
			 "truncated"), 0), "found")), 300);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(
		json_object_get(doc, "probes"), "cyclic"), "all"), "count")), 300);
	json_decref(doc);
	lw_summary_free(&sum);
	lw_rundir_close(&rd);
	/* compare loads it too (it refused the partial record), and says so */
	{
		struct lw_crun cr;

		assert_int_equal(lw_crun_load_dir(&cr, run), 0);
		assert_string_equal(lw_manifest_status(cr.manifest), "truncated");
		assert_int_equal(cr.p[0].d.n, 300);
		lw_crun_free(&cr);
	}
	lw_test_rmdir(dir);
}

/* A directory of repeats stopped in its second run: every run directory
 * listed with its state; as a group, its complete runs only. */
static void test_repeats(void **s)
{
	char *dir = lw_test_tmpdir(), sub[600], **runs;
	json_t *j;
	size_t n;

	snprintf(sub, sizeof(sub), "%s/run-01", dir);
	mk_run_at(sub, "complete");
	snprintf(sub, sizeof(sub), "%s/run-02", dir);
	mk_run_at(sub, "incomplete");
	snprintf(sub, sizeof(sub), "%s/run-03", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	j = lw_repeat_runs(dir);
	assert_non_null(j);
	assert_int_equal(json_array_size(j), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 0), "status")),
			    "complete");
	assert_null(json_object_get(json_array_get(j, 0), "reason"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 1), "status")),
			    "incomplete");
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 1), "reason")),
			    "interrupted by SIGINT");
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 2), "status")),
			    "not started");
	json_decref(j);
	{
		int q = lw_set_quiet(1);

		assert_int_equal(lw_repeat_list(dir, &runs, &n), 0);
		lw_set_quiet(q);
	}
	assert_int_equal(n, 1);
	assert_non_null(strstr(runs[0], "/run-01"));
	free(runs[0]);
	free(runs);
	/* none complete: an error, not a run of its own */
	snprintf(sub, sizeof(sub), "%s/run-01/samples", dir);
	assert_int_equal(truncate(sub, 100), 0);
	assert_error(lw_repeat_list(dir, &runs, &n) < 0, "a directory of repeats with no complete run");
	lw_test_rmdir(dir);
}

/* A writer that was alive a moment ago: a child that exited. */
static json_t *gone_writer(void)
{
	unsigned long long start;
	int fds[2], status;
	char c;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(fds[1]);
		if (read(fds[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(fds[0]);
	start = lw_proc_starttime(pid);
	assert_true(start > 0);
	assert_int_equal(write(fds[1], "x", 1), 1);
	close(fds[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return json_pack("{s:I, s:I}", "pid", (json_int_t)pid, "starttime", (json_int_t)start);
}

static void set_writer(const char *run, json_t *w)
{
	struct lw_rundir rd;

	assert_int_equal(lw_rundir_open(&rd, run), 0);
	json_object_set_new(rd.manifest, "writer", w);
	assert_int_equal(lw_rundir_save(&rd), 0);
	lw_rundir_close(&rd);
}

/* A run that still says "running": killed when its writer is gone (it was
 * read as running, and analyze said PASS), running while it is alive;
 * cleanup marks the manifest of a gone one, and only that. */
static void test_killed(void **s)
{
	char *dir = lw_test_tmpdir(), *run = mk_run(dir, "running"), path[600], other[600];
	struct lw_run_state st;
	struct lw_rundir rd;
	char msg[512];

	set_writer(run, lw_writer_json());
	state_of(run, &st);
	assert_string_equal(st.status, "running");
	lw_run_state_free(&st);
	assert_int_equal(lw_manifest_mark_killed(run, -1, "cleanup", 0, msg, sizeof(msg)), 0); /* alive */

	set_writer(run, gone_writer());
	state_of(run, &st);
	assert_string_equal(st.status, "killed");
	assert_non_null(strstr(st.reason, "killed (SIGKILL or a crash): its writer, pid"));
	lw_run_state_free(&st);
	/* another boot: gone too */
	set_writer(run, json_pack("{s:i, s:I, s:s}", "pid", (int)getpid(), "starttime",
				  (json_int_t)lw_proc_starttime(getpid()), "boot_id", "not-this-boot"));
	state_of(run, &st);
	assert_string_equal(st.status, "killed");
	lw_run_state_free(&st);
	/* no writer named (an older run): running, said so */
	assert_int_equal(lw_rundir_open(&rd, run), 0);
	json_object_del(rd.manifest, "writer");
	assert_int_equal(lw_rundir_save(&rd), 0);
	lw_rundir_close(&rd);
	state_of(run, &st);
	assert_string_equal(st.status, "running");
	assert_non_null(strstr(st.reason, "names no writer"));
	lw_run_state_free(&st);

	/* cleanup: a dry run says, then the manifest is marked */
	set_writer(run, gone_writer());
	assert_int_equal(lw_manifest_mark_killed(run, -1, "cleanup", 1, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "would mark"));
	state_of(run, &st);
	assert_string_equal(st.manifest_status, "running");
	lw_run_state_free(&st);
	assert_int_equal(lw_manifest_mark_killed(run, 1, "cleanup", 1, msg, sizeof(msg)), 0); /* pid 1's? */
	assert_int_equal(lw_manifest_mark_killed(run, -1, "cleanup", 0, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "marked "));
	assert_int_equal(lw_rundir_open(&rd, run), 0);
	assert_string_equal(lw_manifest_status(rd.manifest), "killed");
	assert_non_null(strstr(json_string_value(json_object_get(rd.manifest, "status_reason")),
			       "marked by cleanup at "));
	assert_string_equal(json_string_value(json_object_get(json_object_get(rd.manifest, "killed"),
							      "marked_by")), "cleanup");
	lw_rundir_close(&rd);
	state_of(run, &st);
	assert_string_equal(st.status, "killed");
	lw_run_state_free(&st);
	assert_int_equal(lw_manifest_mark_killed(run, -1, "cleanup", 0, msg, sizeof(msg)), 0); /* once */

	/* a manifest that is a symlink is not followed */
	snprintf(path, sizeof(path), "%s/manifest.json", run);
	snprintf(other, sizeof(other), "%s/elsewhere.json", dir);
	assert_int_equal(rename(path, other), 0);
	assert_int_equal(symlink(other, path), 0);
	assert_error(lw_manifest_mark_killed(run, -1, "cleanup", 0, msg, sizeof(msg)) < 0, "manifest.json");
	lw_test_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_status_kept),
		cmocka_unit_test(test_other_files),
		cmocka_unit_test(test_analysis),
		cmocka_unit_test(test_repeats),
		cmocka_unit_test(test_killed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
