// SPDX-License-Identifier: GPL-2.0-only
#include "tests/unit/lw_test.h"
#include "lib/parse.h"

#define FAILED(x) ((x) < 0)

static void test_durations(void **st)
{
	static const struct { const char *s; uint64_t ns; } ok[] = {
		{ "500ms", 500000000ULL }, { "30s", 30000000000ULL }, { "5m", 300000000000ULL },
		{ "2h", 7200000000000ULL }, { "10", 10000000000ULL }, { "1.5s", 1500000000ULL },
		{ "250us", 250000ULL }, { "100ns", 100 }, { "1d", 86400000000000ULL }, { "0", 0 },
	};
	static const struct { const char *s, *err; } bad[] = {
		{ "", "empty" }, { "abc", "not a duration" }, { "10x", "unknown unit 'x'" },
		{ "-5s", "not a duration" }, { "5 s", "unknown unit" }, { "1e30h", "too long" },
		{ "s", "not a duration" }, { "nan", "not a duration" },
	};
	uint64_t ns;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(lw_parse_duration("--duration", ok[i].s, &ns), 0);
		assert_int_equal(ns, ok[i].ns);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_error(FAILED(lw_parse_duration("--duration", bad[i].s, &ns)), bad[i].err);
	assert_int_equal(lw_parse_usecs("-i", "250", &ns), 0);
	assert_int_equal(ns, 250000);
	assert_int_equal(lw_parse_usecs("-i", "2ms", &ns), 0);
	assert_int_equal(ns, 2000000);
}

static void test_cpulists(void **st)
{
	cpu_set_t online, set;
	char buf[64];

	CPU_ZERO(&online);
	for (int c = 0; c < 8; c++)
		CPU_SET(c, &online);
	assert_int_equal(lw_parse_cpulist("-c", "0-3,6", &online, &set), 0);
	assert_int_equal(CPU_COUNT(&set), 5);
	assert_true(CPU_ISSET(6, &set) && !CPU_ISSET(5, &set));
	assert_string_equal(lw_format_cpulist(&set, buf, sizeof(buf)), "0-3,6");
	assert_int_equal(lw_parse_cpulist("-c", "all", &online, &set), 0);
	assert_string_equal(lw_format_cpulist(&set, buf, sizeof(buf)), "0-7");
	assert_int_equal(lw_parse_cpulist("-c", "7", &online, &set), 0);
	assert_string_equal(lw_format_cpulist(&set, buf, sizeof(buf)), "7");
	assert_error(FAILED(lw_parse_cpulist("-c", "8", &online, &set)), "CPU 8 is not online (online: 0-7)");
	assert_error(FAILED(lw_parse_cpulist("-c", "3-1", &online, &set)), "bad range 3-1");
	assert_error(FAILED(lw_parse_cpulist("-c", "1,", &online, &set)), "trailing comma");
	assert_error(FAILED(lw_parse_cpulist("-c", "a", &online, &set)), "bad CPU list");
	assert_error(FAILED(lw_parse_cpulist("-c", "1-", &online, &set)), "bad CPU list");
	assert_error(FAILED(lw_parse_cpulist("-c", "", &online, &set)), "empty CPU list");
	assert_error(FAILED(lw_parse_cpulist("-c", "99999", &online, &set)), "beyond");
}

static void test_numbers(void **st)
{
	uint64_t v;
	double d;

	assert_int_equal(lw_parse_uint("-p", "95", 1, 99, &v), 0);
	assert_int_equal(v, 95);
	assert_error(FAILED(lw_parse_uint("-p", "100", 1, 99, &v)), "out of range [1, 99]");
	assert_error(FAILED(lw_parse_uint("-p", "-1", 1, 99, &v)), "not a non-negative integer");
	assert_error(FAILED(lw_parse_uint("-p", "9x", 1, 99, &v)), "not a non-negative integer");
	assert_int_equal(lw_parse_size("-b", "64k", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(lw_parse_size("-b", "2MB", &v), 0);
	assert_int_equal(v, 2 << 20);
	assert_error(FAILED(lw_parse_size("-b", "2X", &v)), "not a size");
	assert_int_equal(lw_parse_double("load", "0.3", 0, 4, &d), 0);
	assert_error(FAILED(lw_parse_double("load", "5", 0, 4, &d)), "out of range");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_cpulists),
		cmocka_unit_test(test_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
