// SPDX-License-Identifier: GPL-2.0-only
/* latwatt report's table of formats: the messages it makes, and each file
 * format written where its option says. */
#include <jansson.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "cmd/commands.h"
#include "lib/rundir.h"

#define RUN_A "tests/data/reports/run-a"
#define RUN_B "tests/data/reports/run-b"

static int report(int argc, char **argv)
{
	return cmd_report(argc, argv);
}

static void test_messages(void **state)
{
	char *none[] = { "report", RUN_A, NULL };
	char *both[] = { "report", "-o", "-", "--markdown", "-", RUN_A, NULL };
	char *one[] = { "report", "--compare", "--lava-metrics", RUN_A, RUN_B, NULL };

	(void)state;
	assert_error(report(2, none) == LW_EXIT_ERROR, "nothing to write: give -o FILE, "
		     "--junit FILE, --markdown FILE, --lava or --lava-metrics");
	assert_error(report(6, both) == LW_EXIT_ERROR,
		     "-o - and --markdown - would both write to stdout");
	assert_error(report(5, one) == LW_EXIT_ERROR,
		     "--lava-metrics reports one run, not a comparison");
}

static void test_files(void **state)
{
	char *dir = lw_test_tmpdir(), md[256], xml[256], buf[64];
	char *argv[] = { "report", "--markdown", md, "--junit", xml, "--no-plots", RUN_A, NULL };
	FILE *f;

	(void)state;
	snprintf(md, sizeof(md), "%s/m.md", dir);
	snprintf(xml, sizeof(xml), "%s/j.xml", dir);
	/* the run was made with --threshold 100us and has samples above it: the
	 * files are written, and the exit status is the verdict's */
	assert_int_equal(report(7, argv), LW_EXIT_FAIL);
	f = fopen(md, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	assert_non_null(strstr(buf, "### latwatt:"));
	assert_non_null(strstr(buf, "**FAIL**"));
	fclose(f);
	f = fopen(xml, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	assert_non_null(strstr(buf, "<?xml"));
	fclose(f);
	lw_test_rmdir(dir);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int ch;

	assert_non_null(f);
	while ((ch = fgetc(f)) != EOF)
		fputc(ch, m);
	fclose(f);
	fclose(m);
	return buf;
}

/* DIR/NAME a directory of repeats: copies of the fixture runs @src. */
static void repeats(const char *dir, const char *name, const char *const *src, size_t n)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s' && echo '{}' >'%s/%s/repeat.json'", dir, name, dir,
		 name);
	assert_int_equal(system(cmd), 0);
	for (size_t i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s/%s/run-%02zu'", src[i], dir, name, i + 1);
		assert_int_equal(system(cmd), 0);
	}
}

/* The number in attribute @attr of the element that @at starts. */
static double attr(const char *at, const char *attr)
{
	char key[64];
	const char *p, *end = strchr(at, '>');

	snprintf(key, sizeof(key), " %s=\"", attr);
	p = strstr(at, key);
	if (!p || (end && p > end))
		return NAN;
	return strtod(p + strlen(key), NULL);
}

static const json_t *metric(const json_t *doc, const char *name)
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

static void near(double got, double want, const char *what)
{
	if (!(fabs(got - want) <= 1e-9 * fabs(want) + 1e-12))
		fail_msg("%s: the page says %.17g, compare %.17g", what, got, want);
}

/*
 * report --compare of two directories of repeats: each group one column
 * named by its directory, its figure, change, p and verdict those of
 * compare's engine (the same document `latwatt compare -o` writes), each
 * run's own figure beneath its group's; the method is the man page's.
 */
/* Run A's manifest and analysis as on a virtual machine whose host took
 * the time of its spikes (kernel_attributable: none over the threshold,
 * max 90 us), not yet judged on them (an analysis without "judge"). */
static void vm_run(const char *dir)
{
	char path[512];
	json_t *m = json_load_file(RUN_A "/manifest.json", 0, NULL);
	json_t *a = json_load_file(RUN_A "/analysis.json", 0, NULL);

	assert_non_null(m);
	assert_non_null(a);
	json_object_set_new(json_object_get(m, "system"), "hypervisor",
			    json_pack("{s:b, s:s}", "virtual", 1, "name", "QEMU"));
	json_object_set_new(a, "host", json_pack("{s:b, s:s, s:b, s:I, s:I}", "virtual_machine", 1,
						 "hypervisor", "QEMU", "steal_sampled", 0,
						 "host_ns", (json_int_t)9000000, "spikes",
						 (json_int_t)54));
	json_object_set_new(a, "kernel_attributable", json_pack(
		"{s:s, s:I, s:I, s:b, s:{s:{s:{s:I, s:I, s:I, s:I, s:I}}}}", "what", "t",
		"host_ns", (json_int_t)9000000, "spikes", (json_int_t)54, "same_as_raw", 0,
		"probes", "cyclic", "all", "count", (json_int_t)2979, "p99_ns", (json_int_t)60000,
		"p99.9_ns", (json_int_t)80000, "max_ns", (json_int_t)90000,
		"over_threshold", (json_int_t)0));
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	assert_int_equal(json_dump_file(m, path, 0), 0);
	snprintf(path, sizeof(path), "%s/analysis.json", dir);
	assert_int_equal(json_dump_file(a, path, 0), 0);
	json_decref(m);
	json_decref(a);
}

/* report --judge kernel judges the run's threshold and its --budget on the
 * kernel-attributable figures and says so; --judge raw on the raw ones;
 * without it, as the analysis judged (raw here: it has no "judge"). */
static void test_judge(void **state)
{
	char *dir = lw_test_tmpdir(), md[256], run[256], *buf = NULL;
	char *kernel[] = { "report", "--markdown", md, "--judge", "kernel", "--budget",
			   "cyclic.max<=100us", run, NULL };
	char *raw[] = { "report", "--markdown", md, "--judge", "raw", "--budget",
			"cyclic.max<=100us", run, NULL };
	char *dflt[] = { "report", "--markdown", md, run, NULL };
	char *bad[] = { "report", "--markdown", md, "--judge", "host", run, NULL };
	size_t len = 0;
	FILE *f;

	(void)state;
	snprintf(md, sizeof(md), "%s/m.md", dir);
	snprintf(run, sizeof(run), "%s/run", dir);
	assert_int_equal(mkdir(run, 0755), 0);
	vm_run(run);
	assert_int_equal(report(8, kernel), LW_EXIT_OK);
	f = fopen(md, "r");
	assert_non_null(f);
	assert_true(getdelim(&buf, &len, 0, f) > 0);
	fclose(f);
	assert_non_null(strstr(buf, " — PASS\n"));
	assert_non_null(strstr(buf, "- kernel-attributable cyclic: p99 60.0us (raw 235.9), "
			       "p99.9 80.0us (raw 2443.3), max 90.0us (raw 3113.6)"));
	assert_non_null(strstr(buf, "judged on the kernel-attributable figures: --judge kernel"));
	assert_non_null(strstr(buf, "| 0 count kernel-attributable (raw 54) |"));
	assert_non_null(strstr(buf, "| 90 us kernel-attributable (raw 3114) |"));
	assert_int_equal(unlink(md), 0);
	assert_int_equal(report(8, raw), LW_EXIT_FAIL);
	assert_int_equal(unlink(md), 0);
	assert_int_equal(report(4, dflt), LW_EXIT_FAIL);
	assert_error(report(6, bad) == LW_EXIT_ERROR, "--judge: 'host' is not kernel or raw");
	free(buf);
	lw_test_rmdir(dir);
}

static void test_compare_groups(void **state)
{
	static const char *const a[] = { RUN_A, RUN_B }, *const b[] = { RUN_B, RUN_A, RUN_A };
	char *dir = lw_test_tmpdir(), html[256], json[256], ga[256], gb[256], cell[640];
	char *cmp[] = { "compare", "-q", "-o", json, ga, gb, NULL };
	char *rep[] = { "report", "--compare", "--no-plots", "-o", html, ga, gb, NULL };
	const char *const stats[] = { "p50", "p99", "mean" };
	json_t *doc;
	char *page, *at;
	int rc;

	(void)state;
	repeats(dir, "A", a, 2);
	repeats(dir, "B", b, 3);
	snprintf(html, sizeof(html), "%s/c.html", dir);
	snprintf(json, sizeof(json), "%s/c.json", dir);
	snprintf(ga, sizeof(ga), "%s/A", dir);
	snprintf(gb, sizeof(gb), "%s/B", dir);
	rc = cmd_compare(6, cmp);
	assert_true(rc == LW_EXIT_OK || rc == LW_EXIT_FAIL);
	assert_true(cmd_report(7, rep) <= LW_EXIT_FAIL);
	doc = lw_json_load(json);
	assert_non_null(doc);
	page = slurp(html);
	/* two groups, named by their directories, not four runs */
	snprintf(cell, sizeof(cell), "<h1>latwatt comparison: %s against %s</h1>", gb, ga);
	assert_non_null(strstr(page, cell));
	assert_null(strstr(page, "% baseline"));
	assert_non_null(strstr(page, "baseline, 2 runs</small>"));
	assert_non_null(strstr(page, "3 runs</small>"));
	for (size_t k = 0; k < 3; k++) {
		const json_t *m;
		char name[64];

		snprintf(name, sizeof(name), "cyclic.%s", stats[k]);
		m = metric(doc, name);
		snprintf(cell, sizeof(cell), "data-probe=\"cyclic\" data-group=\"1\" data-stat=\"%s\" "
			 "data-verdict=\"%s\"", stats[k], json_string_value(json_object_get(m, "verdict")));
		at = strstr(page, cell);
		if (!at)
			fail_msg("no cell %s", cell);
		near(attr(at, "data-value"), json_number_value(json_object_get(m, "value")), name);
		near(attr(at, "data-change"), json_number_value(json_object_get(m, "rel")), name);
		near(attr(at, "data-p"), json_number_value(json_object_get(m, "p_adjusted")), name);
		/* the baseline's cell: its figure, no change of its own */
		snprintf(cell, sizeof(cell), "data-probe=\"cyclic\" data-group=\"0\" data-stat=\"%s\" "
			 "data-verdict=\"baseline\"", stats[k]);
		at = strstr(page, cell);
		assert_non_null(at);
		near(attr(at, "data-value"), json_number_value(json_object_get(m, "baseline")), name);
		assert_true(isnan(attr(at, "data-change")));
	}
	/* each run's p99 beneath its group's: B's third run is runs[4] */
	snprintf(cell, sizeof(cell), "data-group=\"1\" data-stat=\"p99\"");
	at = strstr(page, cell);
	assert_non_null(at);
	at = strstr(at, "<li data-run=\"4\"");
	assert_non_null(at);
	near(attr(at, "data-value"), json_number_value(json_object_get(json_object_get(json_object_get(
		json_object_get(json_object_get(json_array_get(json_object_get(doc, "runs"), 4), "probes"),
		"cyclic"), "percentiles"), "p99"), "value_ns")), "runs[4] p99");
	/* the method is the man page's, not "intervals that do not overlap" */
	assert_null(strstr(page, "do not overlap"));
	assert_non_null(strstr(page, "A verdict is better or worse when the change is significant "
			       "after Holm&#39;s step-down adjustment"));
	free(page);
	json_decref(doc);
	lw_test_rmdir(dir);
}

/* One run a side: no verdict, said so and why, everywhere; never pass. */
static void test_compare_one_a_side(void **state)
{
	char *dir = lw_test_tmpdir(), html[256], md[256], xml[256];
	char *rep[] = { "report", "--compare", "--no-plots", "-o", html, "--markdown", md,
			"--junit", xml, RUN_A, RUN_B, NULL };
	char *page;

	(void)state;
	snprintf(html, sizeof(html), "%s/c.html", dir);
	snprintf(md, sizeof(md), "%s/c.md", dir);
	snprintf(xml, sizeof(xml), "%s/c.xml", dir);
	assert_int_equal(cmd_report(11, rep), LW_EXIT_OK);
	page = slurp(html);
	assert_non_null(strstr(page, "data-verdict=\"skip\""));
	assert_non_null(strstr(page, "No verdict: no comparison rule could be judged"));
	assert_non_null(strstr(page, "verdicts need at least 2 runs a side"));
	assert_null(strstr(page, "PASS"));
	free(page);
	page = slurp(md);
	assert_non_null(strstr(page, "— undecided"));
	assert_non_null(strstr(page, "| undecided: no verdict with 1 run against 1"));
	assert_null(strstr(page, "| pass |"));
	free(page);
	page = slurp(xml);
	assert_non_null(strstr(page, "<skipped message=\"no verdict with 1 run against 1"));
	assert_null(strstr(page, "<system-out>no significant"));
	free(page);
	lw_test_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_compare_groups),
		cmocka_unit_test(test_compare_one_a_side),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
