// SPDX-License-Identifier: GPL-2.0-only
/* KCIDB export: path segments and origins as the schema's patterns take
 * them, and a run's document (tests/integration/kcidb.sh validates the
 * documents against the schema itself). */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "tests/unit/lw_test.h"
#include "reports/kcidb.h"

static void test_path(void **state)
{
	static const struct {
		const char *in, *dots, *flat;
	} cases[] = {
		{ "cyclic.p99", "cyclic.p99", "cyclic_p99" },
		{ "cyclic.p99.9", "cyclic.p99_9", "cyclic_p99_9" },	/* a decimal is one segment */
		{ "budget.cyclic.over:50us", "budget.cyclic.over_50us", "budget_cyclic_over_50us" },
		{ "compare..x.", "compare.x", "compare__x_" },		/* no empty segment */
		{ "runs/6.1-rt", "runs_6_1-rt", "runs_6_1-rt" },
		{ "", "_", "_" },
		{ ".", "_", "_" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_string_equal(lw_kcidb_path(cases[i].in, 1, buf, sizeof(buf)), cases[i].dots);
		assert_string_equal(lw_kcidb_path(cases[i].in, 0, buf, sizeof(buf)), cases[i].flat);
	}
	assert_string_equal(lw_kcidb_path("abcdefgh", 1, buf, 4), "abc");
}

static void test_origin(void **state)
{
	(void)state;
	assert_int_equal(lw_kcidb_origin_check("lab_a1"), 0);
	assert_error(lw_kcidb_origin_check("Lab") < 0, "origin 'Lab': KCIDB takes lowercase");
	assert_error(lw_kcidb_origin_check("a:b") < 0, "origin 'a:b'");
	assert_error(lw_kcidb_origin_check("") < 0, "origin ''");
}

/* The fixture run: one checkout and build, its verdict FAIL (the threshold
 * broken), p99 in seconds. */
static void test_run(void **state)
{
	struct lw_rrun r;
	json_t *doc, *t;
	size_t i, verdicts = 0, p99 = 0;

	(void)state;
	assert_int_equal(lw_rrun_load(&r, "tests/data/reports/run-a"), 0);
	assert_int_equal(lw_rrun_judge(&r, NULL, NULL, 0, LW_JUDGE_AUTO), 0);
	doc = lw_kcidb_runs(&r, 1, "lab");
	assert_non_null(doc);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "version"),
							    "major")), 5);
	assert_int_equal(json_array_size(json_object_get(doc, "builds")), 1);
	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		const char *path = json_string_value(json_object_get(t, "path"));
		const json_t *n = json_object_get(t, "number");

		assert_memory_equal(json_string_value(json_object_get(t, "id")), "lab:", 4);
		if (!strcmp(path, "latwatt.verdict")) {
			verdicts++;
			assert_string_equal(json_string_value(json_object_get(t, "status")), "FAIL");
		} else if (!strcmp(path, "latwatt.metrics.cyclic.p99")) {
			p99++;
			assert_string_equal(json_string_value(json_object_get(n, "unit")), "s");
			assert_true(fabs(json_real_value(json_object_get(n, "value")) - 235932e-9) <
				    1e-12);
		}
	}
	assert_int_equal(verdicts, 1);
	assert_int_equal(p99, 1);
	json_decref(doc);
	lw_rrun_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_origin),
		cmocka_unit_test(test_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
