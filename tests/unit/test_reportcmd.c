// SPDX-License-Identifier: GPL-2.0-only
/* latwatt report's table of formats: the messages it makes, and each file
 * format written where its option says. */
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "cmd/commands.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
