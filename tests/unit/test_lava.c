// SPDX-License-Identifier: GPL-2.0-only
/* LAVA results: the key figures of a run as measurements (lw_run_metrics)
 * and the lava-test-case lines they make. */
#include <math.h>
#include <stdlib.h>

#include "lw_test.h"
#include "reports/report.h"

static const struct lw_check *find(const struct lw_checks *cs, const char *name)
{
	for (size_t i = 0; i < cs->n; i++)
		if (!strcmp(cs->c[i].name, name))
			return &cs->c[i];
	return NULL;
}

/* tests/data/reports/run-a: one cyclic probe on two CPUs, 2979 samples, no
 * power, no workload (its analysis.json). */
static void test_metrics_of_a_run(void **st)
{
	struct lw_rrun r = { 0 };
	struct lw_checks cs = { 0 };
	const struct lw_check *c;

	assert_int_equal(lw_rrun_load(&r, "tests/data/reports/run-a"), 0);
	assert_int_equal(lw_run_metrics(&r, &cs), 0);

	c = find(&cs, "cyclic.p99");
	assert_non_null(c);
	assert_string_equal(c->suite, "metrics");
	assert_int_equal(c->result, LW_PASS);
	assert_string_equal(c->unit, "us");
	assert_true(fabs(c->measured - 235.932) < 1e-9);
	c = find(&cs, "cyclic.max");
	assert_non_null(c);
	assert_true(fabs(c->measured - 3113.562) < 1e-9);
	c = find(&cs, "cyclic.samples");
	assert_non_null(c);
	assert_string_equal(c->unit, "count");
	assert_true(c->measured == 2979);
	c = find(&cs, "cyclic.missed");
	assert_non_null(c);
	assert_true(c->measured == 16);
	assert_non_null(find(&cs, "cyclic.mean"));
	assert_non_null(find(&cs, "cyclic.p50"));
	assert_non_null(find(&cs, "cyclic.p99.9"));
	assert_non_null(find(&cs, "cyclic.dropped"));
	/* not recorded: no case at all rather than a made-up zero */
	assert_null(find(&cs, "power.average"));
	assert_int_equal(lw_checks_count(&cs, LW_FAIL), 0);
	assert_int_equal(lw_checks_count(&cs, LW_SKIP), 0);
	lw_checks_free(&cs);
	lw_rrun_free(&r);
}

/* Power and workloads come from analysis.json when it has them. */
static void test_metrics_power_and_workloads(void **st)
{
	struct lw_rrun r = { 0 };
	struct lw_checks cs = { 0 };
	const struct lw_check *c;
	json_t *an;

	assert_int_equal(lw_rrun_load(&r, "tests/data/reports/run-a"), 0);
	an = r.analysis;	/* in memory only */
	json_object_set_new(an, "power", json_pack("{s:{s:f}}", "total", "average_w", 1.5));
	json_object_set_new(an, "workloads", json_pack("{s:{s:s,s:i,s:i}, s:{s:s}}",
						       "audio0", "type", "audio", "xruns", 3,
						       "periods", 1000, "stress0", "type", "cpu"));
	assert_int_equal(lw_run_metrics(&r, &cs), 0);
	c = find(&cs, "power.average");
	assert_non_null(c);
	assert_string_equal(c->unit, "mW");
	assert_true(fabs(c->measured - 1500) < 1e-9);
	c = find(&cs, "workload.audio0.misses");
	assert_non_null(c);
	assert_true(c->measured == 3);
	assert_int_equal(c->result, LW_PASS);
	/* a stressor has no deadlines */
	assert_null(find(&cs, "workload.stress0.misses"));
	lw_checks_free(&cs);
	lw_rrun_free(&r);
}

/* The lines as LAVA's lava-test-case takes them (no helper on PATH). */
static void test_metrics_lava_lines(void **st)
{
	struct lw_rrun r = { 0 };
	struct lw_checks cs = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	assert_non_null(f);
	setenv("PATH", "/nonexistent", 1);
	assert_int_equal(lw_rrun_load(&r, "tests/data/reports/run-a"), 0);
	assert_int_equal(lw_run_metrics(&r, &cs), 0);
	assert_int_equal(lw_report_lava(f, &cs, 1), 0);
	fclose(f);
	if (path) {
		setenv("PATH", path, 1);
		free(path);
	}
	assert_non_null(strstr(buf, "lava-test-case cyclic.p99 --result pass --measurement 235.932 "
				    "--units us\n"));
	assert_non_null(strstr(buf, "lava-test-case cyclic.samples --result pass --measurement 2979 "
				    "--units count\n"));
	free(buf);
	lw_checks_free(&cs);
	lw_rrun_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics_of_a_run),
		cmocka_unit_test(test_metrics_power_and_workloads),
		cmocka_unit_test(test_metrics_lava_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
