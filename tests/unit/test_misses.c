// SPDX-License-Identifier: GPL-2.0-only
/* Deadline misses matched to the spike behind them. */
#include "tests/unit/lw_test.h"
#include "analysis/tracepass.h"

static void test_match(void **st)
{
	/* spikes: [cpu, expected_ns, latency_ns, probe, cause] */
	json_t *doc = json_pack("{s:{s:[[i, I, I, i, s], [i, I, I, i, s], [i, I, I, i, s]]},"
				" s:{s:{s:f, s:[{s:I, s:i, s:I}, {s:I, s:i, s:I}]}}}",
		"spikes", "all",
		0, (json_int_t)1000000, (json_int_t)400000, 5, "preempt:rt-hog",
		0, (json_int_t)1100000, (json_int_t)900000, 1, "irq:eth0",	/* larger */
		1, (json_int_t)1000000, (json_int_t)2000000, 1, "timer-late:x",	/* other CPU */
		"workloads", "audio", "interval_ns", 1000000.0, "xrun_list",
		"boundary_ns", (json_int_t)1500000, "cpu", 0, "lateness_ns", (json_int_t)200000,
		"boundary_ns", (json_int_t)9000000, "cpu", 0, "lateness_ns", (json_int_t)10000);
	json_t *list, *mc;

	lw_match_misses(doc);
	list = json_object_get(json_object_get(json_object_get(doc, "workloads"), "audio"), "xrun_list");
	/* the largest overlapping spike on the miss's CPU */
	assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "cause")),
			    "irq:eth0");
	assert_string_equal(json_string_value(json_object_get(json_array_get(list, 1), "cause")),
			    "no spike on its CPU in that period");
	mc = json_object_get(json_object_get(json_object_get(doc, "workloads"), "audio"), "miss_causes");
	assert_int_equal(json_integer_value(json_object_get(mc, "irq:eth0")), 1);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_match) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
