// SPDX-License-Identifier: GPL-2.0-only
/* RUN/steal: /proc/stat's steal column parsed, the file read back (and
 * refused where malformed), the steal in a window interpolated. */
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "lib/steal.h"

static void test_parse(void **st)
{
	uint64_t ns[8], tick = 1000000000ULL / (uint64_t)sysconf(_SC_CLK_TCK);
	static const char text[] =
		"cpu  20 0 20 200 0 0 0 27 0 0\ncpu0 10 0 10 100 0 0 0 3 0 0\n"
		"cpu2 1 0 1 1 0 0 0 9 0 0\nintr 2\n";

	assert_int_equal(lw_steal_parse(text, ns, 8), 3);
	assert_int_equal(ns[0], 3 * tick);
	assert_true(ns[1] == UINT64_MAX);	/* no line: not online */
	assert_int_equal(ns[2], 9 * tick);
	assert_int_equal(lw_steal_parse("intr 1\n", ns, 8), 0);
}

static char *put(const char *dir, const char *text)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/steal", dir);
	lw_test_write(path, text, strlen(text));
	return path;
}

static void test_load_between(void **st)
{
	char *dir = lw_test_tmpdir(), *path;
	struct lw_steal s;

	/* cpu 1 lost 30 ms between 1.00 s and 1.02 s, and 10 ms in the next
	 * 100 ms; cpu 3 was offline at first; a partial last row is ignored */
	path = put(dir, "# latwatt-steal 1 period_ns 20000000 user_hz 100\n# cpus 1 3\n"
		   "1000000000 500000000 -\n1020000000 530000000 0\n"
		   "1120000000 540000000 0\n1140000");
	assert_int_equal(lw_steal_load(path, &s), 1);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.ncpu, 2);
	assert_int_equal(s.period_ns, 20000000);
	/* all of the first interval */
	assert_int_equal(lw_steal_between(&s, 1, 1000000000, 1020000000), 30000000);
	/* half of it, spread evenly (interpolated) */
	assert_int_equal(lw_steal_between(&s, 1, 1005000000, 1015000000), 15000000);
	/* across two intervals: 5 ms of the first's 30, 50 ms of the second's 10 */
	assert_int_equal(lw_steal_between(&s, 1, 1015000000, 1070000000), 7500000 + 5000000);
	/* outside the rows, a CPU not sampled, an offline stretch */
	assert_int_equal(lw_steal_between(&s, 1, 2000000000, 2100000000), 0);
	assert_int_equal(lw_steal_between(&s, 0, 1000000000, 1020000000), 0);
	assert_int_equal(lw_steal_between(&s, 3, 1000000000, 1010000000), 0);
	lw_steal_free(&s);

	/* no file: 0; malformed: -1 naming the line */
	unlink(path);
	assert_int_equal(lw_steal_load(path, &s), 0);
	put(dir, "# latwatt-steal 1 period_ns 20000000 user_hz 100\n# cpus 0\n10 x\n");
	assert_error(lw_steal_load(path, &s) == -1, "steal:3: a steal figure is not a number");
	put(dir, "# latwatt-steal 1 period_ns 20000000 user_hz 100\n# cpus 0\n10 1\n5 2\n");
	assert_error(lw_steal_load(path, &s) == -1, "steal:4:");
	put(dir, "# latwatt-steal 1 period_ns 20000000 user_hz 100\n# cpus 0\n10 1 2\n");
	assert_error(lw_steal_load(path, &s) == -1, "more figures than CPUs");
	put(dir, "# latwatt-power 1\n");
	assert_error(lw_steal_load(path, &s) == -1, "steal:1: not a latwatt-steal file");
	put(dir, "# latwatt-steal 2 period_ns 20000000 user_hz 100\n");
	assert_error(lw_steal_load(path, &s) == -1, "unknown version");
	lw_test_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_load_between),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
