// SPDX-License-Identifier: GPL-2.0-only
/* The verdict of a run: checks judged on an analysis document, the result
 * and its lines, the round trip through analysis.json, whose task a cause
 * is, and analyze's exit status on a real fixture. */
#include <fcntl.h>
#include <math.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"

#include "analysis/checks.h"
#include "analysis/tasks.h"
#include "analysis/tracepass.h"
#include "analysis/verdict.h"
#include "cmd/commands.h"
#include "reports/report.h"

#define RUN_A "tests/data/reports/run-a"

/* An analysis document: probes cyclic (max 2.224 ms on CPU 1) and video
 * (10 ms, a pipeline), audio with @xruns of 7496 periods and their causes,
 * spikes naming the worst's task, and the run's @status. */
static json_t *doc(int xruns, const char *status, int threshold_over)
{
	json_t *d = json_pack("{s:{s:s, s:s, s:{s:I}}, s:o}",
		"run", "status", status, "path", "R", "start", "monotonic_ns", (json_int_t)1000000000,
		"threshold_ns", threshold_over >= 0 ? json_integer(50000) : json_null());

	json_object_set_new(d, "probes", json_pack(
		"{s:{s:{s:I, s:I, s:I, s:o}, s:[{s:i, s:I, s:I}, {s:i, s:I, s:I}]},"
		" s:{s:{s:I, s:I, s:I, s:o}, s:[{s:i, s:I, s:I}]}}",
		"cyclic", "all", "count", (json_int_t)2000, "max_ns", (json_int_t)2224000,
		"p99_ns", (json_int_t)30000,
		"over_threshold", threshold_over >= 0 ? json_integer(threshold_over) : json_null(),
		"cpus", "cpu", 0, "count", (json_int_t)1000, "max_ns", (json_int_t)600000,
		"cpu", 1, "count", (json_int_t)1000, "max_ns", (json_int_t)2224000,
		"video", "all", "count", (json_int_t)300, "max_ns", (json_int_t)10028000,
		"p99_ns", (json_int_t)9000000,
		"over_threshold", threshold_over >= 0 ? json_integer(300) : json_null(),
		"cpus", "cpu", 0, "count", (json_int_t)300, "max_ns", (json_int_t)10028000));
	json_object_set_new(d, "workloads", json_pack(
		"{s:{s:s, s:I, s:I, s:{s:I, s:I}}, s:{s:s, s:I}}",
		"audio", "kind", "audio", "periods", (json_int_t)7496, "xruns", (json_int_t)xruns,
		"miss_causes", "timer-late:stress-ng-cpu", (json_int_t)(xruns ? xruns - 1 : 0),
		LW_MISS_UNEXPLAINED, (json_int_t)(xruns ? 1 : 0),
		"stress", "kind", "stress", "ops", (json_int_t)5));
	json_object_set_new(d, "spikes", json_pack(
		"{s:[{s:i, s:i, s:I, s:I, s:s, s:{s:i, s:s, s:b, s:s}}]}",
		"top", "cpu", 1, "probe", 1, "expected_ns", (json_int_t)3210000000,
		"latency_ns", (json_int_t)2224000, "cause", "timer-late:lw-noise/1",
		"cause_task", "pid", 4242, "name", "lw-noise/1", "this_run", 0, "role",
		"not this run"));
	return d;
}

static void judge(const json_t *an, const char *const *rules, size_t n, int threshold,
		  struct lw_checks *cs, struct lw_run_verdict *v)
{
	memset(cs, 0, sizeof(*cs));
	for (size_t i = 0; i < n; i++)
		assert_int_equal(lw_checks_rule_text(rules[i], "scenario av-stress", an, cs), 0);
	if (threshold)
		assert_int_equal(lw_checks_threshold(50000, "analyze --threshold", an, cs), 0);
	lw_verdict_build(an, cs, json_object_get(an, "problems"), v);
}

/* 39 xruns with the scenario's budget: FAIL, exit 1, the xruns and their
 * main cause on the workload's line, the worst with its task "not this run". */
static void test_fail_names_misses_and_cause(void **st)
{
	static const char *const rules[] = { "xruns<1", "dropped_frames<1" };
	json_t *an = doc(39, "complete", -1);
	struct lw_vline l[LW_VERDICT_LINES];
	struct lw_run_verdict v;
	struct lw_checks cs;
	size_t n;

	(void)st;
	judge(an, rules, 2, 0, &cs, &v);
	assert_int_equal(v.outcome, LW_OUTCOME_FAIL);
	assert_int_equal(lw_verdict_exit(&v), 1);
	assert_int_equal(v.nchecks, 2);
	assert_int_equal(v.nbroken, 1);
	assert_int_equal(v.nskipped, 1);	/* no video in this run */
	n = lw_verdict_lines(&v, l);
	assert_true(n <= LW_VERDICT_LINES);
	assert_string_equal(l[0].result, "FAIL");
	assert_string_equal(l[1].label, "audio");
	assert_string_equal(l[1].result, "FAIL");
	assert_non_null(strstr(l[1].text, "39 xruns in 7496 periods"));
	assert_non_null(strstr(l[1].text, "main cause timer-late:stress-ng-cpu (38 of 39)"));
	assert_string_equal(l[2].label, "worst");
	/* the wake-up probes' worst: not video's 10 ms pipeline latency */
	assert_non_null(strstr(l[2].text, "2224.0 us (cyclic, CPU 1, at 2.21 s)"));
	assert_non_null(strstr(l[2].text, "timer-late:lw-noise/1 (pid 4242, not this run)"));
	lw_checks_free(&cs);
	json_decref(an);
}

/* Nothing asked: NO VERDICT, never PASS, exit 0; the misses still shown. */
static void test_nothing_asked(void **st)
{
	json_t *an = doc(4, "complete", -1);
	struct lw_vline l[LW_VERDICT_LINES];
	struct lw_run_verdict v;
	struct lw_checks cs;

	(void)st;
	judge(an, NULL, 0, 0, &cs, &v);
	assert_int_equal(v.outcome, LW_OUTCOME_NONE);
	assert_int_equal(lw_verdict_exit(&v), 0);
	lw_verdict_lines(&v, l);
	assert_string_equal(l[0].result, "NO VERDICT");
	assert_non_null(strstr(l[1].text, "4 xruns in 7496 periods (no budget)"));
	lw_checks_free(&cs);
	json_decref(an);
}

/* The deadlines met: PASS, exit 0. */
static void test_pass(void **st)
{
	static const char *const rules[] = { "xruns<1" };
	json_t *an = doc(0, "complete", -1);
	struct lw_run_verdict v;
	struct lw_checks cs;

	(void)st;
	judge(an, rules, 1, 0, &cs, &v);
	assert_int_equal(v.outcome, LW_OUTCOME_PASS);
	assert_int_equal(lw_verdict_exit(&v), 0);
	lw_checks_free(&cs);
	json_decref(an);
}

/* The threshold is a check of the wake-up probes (not video's pipeline):
 * samples over it FAIL, exit 1; none over it and a check held: PASS. */
static void test_threshold(void **st)
{
	json_t *an = doc(0, "complete", 244);
	struct lw_run_verdict v;
	struct lw_checks cs;

	(void)st;
	judge(an, NULL, 0, 1, &cs, &v);
	assert_int_equal(cs.n, 1);	/* cyclic only */
	assert_string_equal(cs.c[0].name, "threshold.cyclic");
	assert_int_equal(cs.c[0].result, LW_FAIL);
	assert_int_equal(v.outcome, LW_OUTCOME_FAIL);
	assert_int_equal(lw_verdict_exit(&v), 1);
	assert_non_null(strstr(v.broken[0], "cyclic: 244 samples over 50us (analyze --threshold)"));
	lw_checks_free(&cs);
	json_decref(an);
	an = doc(0, "complete", 0);
	judge(an, NULL, 0, 1, &cs, &v);
	assert_int_equal(v.outcome, LW_OUTCOME_PASS);
	lw_checks_free(&cs);
	json_decref(an);
}

/* The document of doc() with "kernel_attributable": cyclic's figures with
 * the host's time taken off its spikes (p99 20 us, max 900 us, 3 samples
 * over the threshold), judged as @j decides for a run whose manifest says
 * virtual machine when @vm. */
static json_t *doc_twin(int vm, enum lw_judge j, int twin)
{
	json_t *an = doc(0, "complete", 244);
	json_t *m = json_pack("{s:{s:{s:b, s:s}}}", "system", "hypervisor", "virtual", vm,
			      "name", "QEMU");

	if (twin)
		json_object_set_new(an, "kernel_attributable", json_pack(
			"{s:b, s:{s:{s:{s:I, s:I, s:I, s:I, s:I}}}}", "same_as_raw", 0,
			"probes", "cyclic", "all", "count", (json_int_t)2000,
			"max_ns", (json_int_t)900000, "p99_ns", (json_int_t)20000,
			"over_threshold", (json_int_t)3, "missed_periods", (json_int_t)0));
	json_object_set_new(json_object_get(json_object_get(json_object_get(an, "probes"),
		"cyclic"), "all"), "missed_periods", json_integer(7));
	lw_checks_set_judge(an, m, j);
	json_decref(m);
	return an;
}

/* On a virtual machine the latency budgets and the threshold judge the
 * kernel-attributable figures, and say so with the raw figure beside;
 * counts that are not latencies stay raw; --judge raw restores the raw. */
static void test_kernel_attributable(void **st)
{
	static const char *const rules[] = { "cyclic.max<=1ms", "cyclic.p99<25us",
					     "cyclic.missed<1" };
	json_t *an = doc_twin(1, LW_JUDGE_AUTO, 1), *j;
	struct lw_run_verdict v;
	struct lw_checks cs, back = { 0 };

	(void)st;
	assert_true(lw_checks_judge_kernel(an));
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(an, "judge"),
						 "why")), "a virtual machine (QEMU), where"));
	judge(an, rules, 3, 1, &cs, &v);
	assert_int_equal(cs.n, 4);
	/* max: 900 us kernel-attributable (raw 2224 us) holds */
	assert_int_equal(cs.c[0].result, LW_PASS);
	assert_true(cs.c[0].kernel);
	assert_float_equal(cs.c[0].measured, 900, 1e-9);
	assert_float_equal(cs.c[0].raw, 2224, 1e-9);
	assert_non_null(strstr(cs.c[0].message, "judged on the kernel-attributable figure: host "
			       "time taken off; raw 2224 us"));
	/* p99: 20 us (raw 30 us) */
	assert_int_equal(cs.c[1].result, LW_PASS);
	assert_float_equal(cs.c[1].measured, 20, 1e-9);
	/* missed periods: not a latency, raw, no word of it */
	assert_int_equal(cs.c[2].result, LW_FAIL);
	assert_false(cs.c[2].kernel);
	assert_float_equal(cs.c[2].measured, 7, 1e-9);
	assert_null(strstr(cs.c[2].message, "kernel-attributable"));
	/* the threshold: 3 samples over, raw 244 */
	assert_int_equal(cs.c[3].result, LW_FAIL);
	assert_float_equal(cs.c[3].measured, 3, 1e-9);
	assert_non_null(strstr(v.broken[1], "cyclic: 3 samples over 50us kernel-attributable, "
			       "raw 244 (analyze --threshold)"));
	/* the worst wake-up stays the raw one */
	assert_int_equal(v.worst.latency_ns, 2224000);
	/* round trip through analysis.json */
	j = lw_checks_json(&cs, "budgets");
	assert_int_equal(lw_checks_from_json(j, "t", &back), 0);
	assert_true(back.c[0].kernel);
	assert_float_equal(back.c[0].raw, 2224, 1e-9);
	assert_false(back.c[2].kernel);
	json_decref(j);
	lw_checks_free(&back);
	/* --judge raw: the raw figures, judged again with their names kept */
	lw_checks_set_judge(an, NULL, LW_JUDGE_RAW);
	assert_false(lw_checks_judge_kernel(an));
	assert_int_equal(lw_checks_rejudge(&cs, an), 0);
	assert_int_equal(cs.n, 4);
	assert_string_equal(cs.c[0].name, "budget.cyclic.max");
	assert_int_equal(cs.c[0].result, LW_FAIL);
	assert_false(cs.c[0].kernel);
	assert_float_equal(cs.c[0].measured, 2224, 1e-9);
	assert_int_equal(cs.c[1].result, LW_FAIL);
	assert_float_equal(cs.c[3].measured, 244, 1e-9);
	assert_string_equal(cs.c[3].name, "threshold.cyclic");
	assert_null(strstr(cs.c[3].message, "kernel-attributable"));
	lw_checks_free(&cs);
	json_decref(an);
}

/* No twin (no trace analyzed) or not a virtual machine: raw, no word of it;
 * --judge kernel on bare metal judges the twins. */
static void test_kernel_attributable_absent(void **st)
{
	static const char *const rules[] = { "cyclic.max<=1ms" };
	const enum lw_judge js[] = { LW_JUDGE_AUTO, LW_JUDGE_KERNEL, LW_JUDGE_AUTO };
	const int vm[] = { 1, 1, 0 }, twin[] = { 0, 0, 1 };

	(void)st;
	for (size_t i = 0; i < 3; i++) {
		json_t *an = doc_twin(vm[i], js[i], twin[i]);
		struct lw_run_verdict v;
		struct lw_checks cs;

		assert_false(lw_checks_judge_kernel(an));
		judge(an, rules, 1, 1, &cs, &v);
		assert_int_equal(cs.c[0].result, LW_FAIL);
		assert_float_equal(cs.c[0].measured, 2224, 1e-9);
		assert_null(strstr(cs.c[0].message, "kernel-attributable"));
		assert_null(strstr(cs.c[1].message, "kernel-attributable"));
		assert_null(strstr(v.broken[0], "kernel-attributable"));
		lw_checks_free(&cs);
		json_decref(an);
	}
	{
		json_t *an = doc_twin(0, LW_JUDGE_KERNEL, 1);
		struct lw_run_verdict v;
		struct lw_checks cs;

		assert_true(lw_checks_judge_kernel(an));
		judge(an, rules, 1, 0, &cs, &v);
		assert_int_equal(cs.c[0].result, LW_PASS);
		lw_checks_free(&cs);
		json_decref(an);
	}
}

/* A run that did not complete, or whose trace could not be read, is never
 * PASS: INCOMPLETE (exit 2), or FAIL when a check broke; unreadable input
 * exits 2 whatever the result. */
static void test_incomplete_never_pass(void **st)
{
	static const char *const rules[] = { "xruns<1" };
	static const char *const states[] = { "incomplete", "killed", "running", "truncated" };
	struct lw_run_verdict v;
	struct lw_checks cs;
	json_t *an;

	(void)st;
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		an = doc(0, states[i], -1);
		judge(an, rules, 1, 0, &cs, &v);
		assert_int_equal(v.outcome, LW_OUTCOME_INCOMPLETE);
		assert_int_equal(lw_verdict_exit(&v), 2);
		assert_non_null(strstr(v.reason, states[i]));
		lw_checks_free(&cs);
		json_decref(an);
	}
	an = doc(0, "complete", -1);
	json_object_set_new(an, "problems", json_pack("[s]", "the trace could not be read: x"));
	judge(an, rules, 1, 0, &cs, &v);
	assert_int_equal(v.outcome, LW_OUTCOME_INCOMPLETE);
	assert_int_equal(lw_verdict_exit(&v), 2);
	lw_checks_free(&cs);
	json_decref(an);
	an = doc(3, "complete", -1);
	json_object_set_new(an, "problems", json_pack("[s]", "the trace could not be read: x"));
	judge(an, rules, 1, 0, &cs, &v);
	assert_int_equal(v.outcome, LW_OUTCOME_FAIL);
	assert_int_equal(lw_verdict_exit(&v), 2);
	lw_checks_free(&cs);
	json_decref(an);
}

/* analysis.json holds the verdict; read back it is the same, line by line. */
static void test_round_trip(void **st)
{
	static const char *const rules[] = { "xruns<1", "p99<10us" };
	json_t *an = doc(39, "complete", 12), *j, *k;
	struct lw_vline a[LW_VERDICT_LINES], b[LW_VERDICT_LINES];
	struct lw_run_verdict v, w;
	struct lw_checks cs, back = { 0 };
	size_t na, nb;

	(void)st;
	judge(an, rules, 2, 1, &cs, &v);
	j = lw_verdict_json(&v);
	assert_int_equal(lw_verdict_from_json(j, "test", &w), 0);
	k = lw_verdict_json(&w);
	assert_true(json_equal(j, k));
	na = lw_verdict_lines(&v, a);
	nb = lw_verdict_lines(&w, b);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++)
		assert_string_equal(a[i].text, b[i].text);
	json_decref(k);
	k = lw_checks_json(&cs, "budgets");
	assert_int_equal(lw_checks_from_json(k, "test", &back), 0);
	assert_int_equal(back.n, cs.n);
	for (size_t i = 0; i < cs.n; i++) {
		assert_string_equal(back.c[i].rule, cs.c[i].rule);
		assert_int_equal(back.c[i].result, cs.c[i].result);
	}
	/* a malformed verdict is an error naming the file */
	json_object_set_new(j, "result", json_string("OK"));
	assert_error(lw_verdict_from_json(j, "R/analysis.json", &w) < 0,
		     "R/analysis.json: \"verdict\" is malformed");
	json_decref(j);
	json_decref(k);
	lw_checks_free(&back);
	lw_checks_free(&cs);
	json_decref(an);
}

/* Whose is a task: the manifest's probe, workload and load ids, its
 * "tasks", a load's worker by name; else not this run, or unknown for a
 * run that did not list its tasks. */
static void test_tasks(void **st)
{
	json_t *m = json_pack("{s:{s:{s:[{s:i, s:i}]}}, s:{s:{s:[{s:i}]}},"
			      " s:[{s:s, s:[s], s:[{s:i}]}], s:{s:[i], s:[i]}}",
			      "probes", "cyclic", "threads", "cpu", 0, "tid", 100,
			      "workloads", "audio", "streams", "tid", 200,
			      "loads", "name", "stress-ng", "argv", "stress-ng", "runs", "pid", 300,
			      "tasks", "latwatt", 400, "loads", 500);
	char role[64];

	(void)st;
	assert_int_equal(lw_task_of_run(m, 100, "lw-cyclic/0", role, sizeof(role)), 1);
	assert_string_equal(role, "probe cyclic");
	assert_int_equal(lw_task_of_run(m, 200, "lw-audio/0", role, sizeof(role)), 1);
	assert_string_equal(role, "workload audio");
	assert_int_equal(lw_task_of_run(m, 300, "stress-ng", role, sizeof(role)), 1);
	assert_string_equal(role, "load stress-ng");
	assert_int_equal(lw_task_of_run(m, 400, "lw-trace/0", role, sizeof(role)), 1);
	assert_string_equal(role, "latwatt");
	assert_int_equal(lw_task_of_run(m, 501, "stress-ng-cpu", role, sizeof(role)), 1);
	assert_string_equal(role, "load stress-ng");
	/* named like a probe of this run, but another run's */
	assert_int_equal(lw_task_of_run(m, 4242, "lw-noise/1", role, sizeof(role)), 0);
	assert_string_equal(role, "not this run");
	json_object_del(m, "tasks");
	assert_int_equal(lw_task_of_run(m, 4242, "lw-noise/1", role, sizeof(role)), -1);
	json_decref(m);
}

/* analyze's exit status is the verdict's: the fixture run was made with
 * --threshold 100us and has samples above it (FAIL, exit 1); with a
 * threshold nothing crosses, the one check held (PASS, exit 0); the
 * verdict's first line comes first. */
static void test_analyze_exit(void **st)
{
	char *dir = lw_test_tmpdir(), run[512], out[512], cmd[1200], line[256];
	char *fail_av[] = { "analyze", "-n", "--no-trace", run, NULL };
	char *none_av[] = { "analyze", "-n", "--no-trace", "--threshold", "10s", run, NULL };
	int saved, fd;
	FILE *f;

	(void)st;
	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(cmd, sizeof(cmd), "cp -r %s %s", RUN_A, run);
	assert_int_equal(system(cmd), 0);
	snprintf(out, sizeof(out), "%s/out", dir);
	fflush(stdout);
	saved = dup(1);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 1);
	close(fd);
	assert_int_equal(cmd_analyze(4, fail_av), LW_EXIT_FAIL);
	fflush(stdout);
	dup2(saved, 1);
	f = fopen(out, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_non_null(strstr(line, "verdict: FAIL: "));
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 1);
	close(fd);
	assert_int_equal(cmd_analyze(6, none_av), LW_EXIT_OK);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	f = fopen(out, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_non_null(strstr(line, "verdict: PASS: "));
	lw_test_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fail_names_misses_and_cause),
		cmocka_unit_test(test_nothing_asked),
		cmocka_unit_test(test_pass),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_kernel_attributable),
		cmocka_unit_test(test_kernel_attributable_absent),
		cmocka_unit_test(test_incomplete_never_pass),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_tasks),
		cmocka_unit_test(test_analyze_exit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
