// SPDX-License-Identifier: GPL-2.0-only
/* cyclictest --json import, on real rt-tests output and malformed variants. */
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "analysis/analyze.h"
#include "analysis/checks.h"
#include "analysis/compare.h"
#include "analysis/verdict.h"
#include "reports/report.h"
#include "analysis/summary.h"
#include "cmd/commands.h"
#include "lib/samples.h"

#define DATA "tests/data/cyclictest/"
static char *dir;

static int setup(void **st) { dir = lw_test_tmpdir(); return 0; }
static int teardown(void **st) { lw_test_rmdir(dir); return 0; }

static int import(const char *file, const char *out)
{
	char *argv[] = { "import", "cyclictest", (char *)file, "-o", (char *)out, NULL };
	int q = lw_set_quiet(1), ret = cmd_import(5, argv);

	lw_set_quiet(q);
	return ret;
}

static void test_good_file(void **st)
{
	char run[300];
	struct lw_rundir rd;
	struct lw_summary sum;
	int seen = 0;

	snprintf(run, sizeof(run), "%s/run", dir);
	assert_int_equal(import(DATA "rt-tests-2.40.json", run), 0);
	assert_int_equal(lw_rundir_open(&rd, run), 0);
	assert_true(lw_manifest_is_complete(rd.manifest));
	assert_string_equal(json_string_value(json_object_get(json_object_get(rd.manifest, "imported"),
							      "rt_tests_version")), "2.40");
	assert_int_equal(lw_summary_load(&sum, &rd, 0), 0);
	assert_true(sum.from_histogram);
	for (size_t i = 0; i < sum.n; i++) {
		const struct lw_series *s = &sum.s[i];

		assert_int_equal(s->probe, LW_SAMPLE_CYCLIC);
		assert_false(s->stats.exact);
		if (s->cpu == 0) {	/* thread 0 of the fixture: min 15, max 7657, avg 63.25 */
			assert_int_equal(s->stats.count, 500);
			assert_int_equal(s->stats.min, 15000);
			assert_int_equal(s->stats.max, 7657000);
			assert_true(s->stats.mean > 63249 && s->stats.mean < 63251);
			assert_true(s->hist.overflow > 0);	/* -h 200: beyond 200us */
			seen++;
		} else if (s->cpu < 0) {
			assert_int_equal(s->stats.count, 1000);
			assert_int_equal(s->stats.max, 8230000);
			seen++;
		}
	}
	assert_int_equal(seen, 2);
	lw_summary_free(&sum);
	lw_rundir_close(&rd);
	/* a second import into the same directory is refused */
	assert_int_equal(import(DATA "rt-tests-2.40.json", run), LW_EXIT_ERROR);
	assert_true(strstr(lw_last_error(), "not empty") != NULL);
}

static void test_malformed_files(void **st)
{
	static const struct { const char *file, *err; } bad[] = {
		{ DATA "bad-syntax.json", "bad-syntax.json:" },
		{ DATA "bad-no-thread.json", "not cyclictest --json output" },
		{ DATA "bad-bucket.json", "thread 0: bad histogram entry \"abc\"" },
		{ DATA "bad-cycles.json", "thread 1: histogram holds 493 samples, more than its 10 cycles" },
		{ DATA "bad-missing-max.json", "thread 0: needs" },
		{ DATA "nonexistent.json", "nonexistent.json" },
	};
	char run[300];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(run, sizeof(run), "%s/run%zu", dir, i);
		assert_int_equal(import(bad[i].file, run), LW_EXIT_ERROR);
		if (!strstr(lw_last_error(), bad[i].err))
			fail_msg("%s: error '%s' lacks '%s'", bad[i].file, lw_last_error(), bad[i].err);
		assert_int_not_equal(access(run, F_OK), 0);	/* nothing created */
	}
}

static const json_t *find_metric(const json_t *doc, const char *name)
{
	const json_t *m;
	size_t i;

	json_array_foreach(json_object_get(json_array_get(json_object_get(doc, "comparisons"), 0),
					   "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), name))
			return m;
	fail_msg("no metric %s", name);
	return NULL;
}

/* What a cyclictest histogram does not know is not a number: p99 of the
 * fixture lies beyond its -h 200 (23 samples only known to be 200 us or
 * more) and read as the max, 8230 us; missed periods read 0; samples over
 * 300 us read 0 though the max is above it. */
static void test_unknowns(void **st)
{
	char run[300], *text = NULL;
	struct lw_rundir rd;
	struct lw_summary sum;
	struct lw_cmp_opts o;
	struct lw_crun runs[2];
	const json_t *all, *m;
	json_t *doc;
	size_t len = 0;
	FILE *f;

	snprintf(run, sizeof(run), "%s/run", dir);
	assert_int_equal(import(DATA "rt-tests-2.40.json", run), 0);
	assert_int_equal(lw_rundir_open(&rd, run), 0);
	assert_int_equal(lw_summary_load(&sum, &rd, 300000), 0);
	doc = lw_summary_json(&sum, &rd);
	all = json_object_get(json_object_get(json_object_get(doc, "probes"), "cyclic"), "all");
	assert_int_equal(json_integer_value(json_object_get(all, "p90_ns")), 53999);
	assert_true(json_is_null(json_object_get(all, "p99_ns")));
	assert_int_equal(json_integer_value(json_object_get(all, "p99_above_ns")), 200000);
	assert_true(json_is_null(json_object_get(all, "p99.9_ns")));
	assert_int_equal(json_integer_value(json_object_get(all, "p99.9_above_ns")), 200000);
	assert_null(json_object_get(all, "p90_above_ns"));
	assert_int_equal(json_integer_value(json_object_get(all, "max_ns")), 8230000);
	assert_true(json_is_null(json_object_get(all, "missed_periods")));
	assert_true(json_is_null(json_object_get(all, "over_threshold")));
	assert_int_equal(json_integer_value(json_object_get(all, "over_threshold_at_least")), 1);
	json_decref(doc);
	lw_summary_free(&sum);
	/* analyze's text: the bound, unknown, and what they mean */
	{
		struct lw_analyze_opts ao;
		struct lw_checks cs = { 0 };
		struct lw_run_verdict rv;
		json_t *an;
		int partial;

		lw_analyze_opts_default(&ao);
		ao.threshold_ns = 300000;
		ao.have_threshold = 1;
		assert_true(lw_analyze_run(&rd, &ao, &sum, &an, &partial) >= 0);
		assert_int_equal(lw_checks_from_json(json_object_get(an, "checks"), "t", &cs), 0);
		assert_int_equal(lw_verdict_from_json(json_object_get(an, "verdict"), "t", &rv), 0);
		f = open_memstream(&text, &len);
		lw_report_text_run(f, an, &rv, &cs, 5);
		fclose(f);
		assert_non_null(strstr(text, "   >200.0    >200.0    8230.0    8230.0 "));
		assert_non_null(strstr(text, ">N: the percentile lies in the histogram's overflow"));
		assert_non_null(strstr(text, "missed unknown: not recorded (cyclictest does not count"));
		free(text);
		lw_checks_free(&cs);
		json_decref(an);
		lw_summary_free(&sum);
	}
	/* below the overflow, the buckets count exactly */
	assert_int_equal(lw_summary_load(&sum, &rd, 100000), 0);
	doc = lw_summary_json(&sum, &rd);
	all = json_object_get(json_object_get(json_object_get(doc, "probes"), "cyclic"), "all");
	assert_int_equal(json_integer_value(json_object_get(all, "over_threshold")), 36);
	json_decref(doc);
	lw_summary_free(&sum);
	lw_rundir_close(&rd);

	/* compare: no verdict on what is not known, the run named */
	assert_int_equal(lw_crun_load_dir(&runs[0], run), 0);
	assert_int_equal(lw_crun_load_dir(&runs[1], run), 0);
	lw_cmp_opts_default(&o);
	assert_int_equal(lw_cmp_add_threshold(&o, 300000), 0);
	doc = lw_compare(runs, 2, 0, &o);
	assert_non_null(doc);
	m = find_metric(doc, "cyclic.p99");
	assert_true(json_is_null(json_object_get(m, "value")));
	assert_non_null(strstr(json_string_value(json_object_get(m, "note")),
			       "is in its histogram's overflow (200 us or more)"));
	m = find_metric(doc, "cyclic.missed");
	assert_non_null(strstr(json_string_value(json_object_get(m, "note")),
			       "did not count missed periods (imported)"));
	m = find_metric(doc, "cyclic.over:300us");
	assert_non_null(strstr(json_string_value(json_object_get(m, "note")), "cannot count"));
	m = find_metric(doc, "cyclic.p90");
	assert_true(json_is_number(json_object_get(m, "value")));
	json_decref(doc);
	lw_crun_free(&runs[0]);
	lw_crun_free(&runs[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_good_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknowns, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
