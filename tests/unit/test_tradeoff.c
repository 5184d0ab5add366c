// SPDX-License-Identifier: GPL-2.0-only
/* PM QoS trade-off: power from residency moved out of disallowed states,
 * and the recommendation against the board's latency budget. */
#include <math.h>

#include "tests/unit/lw_test.h"
#include "boards/board.h"
#include "analysis/tradeoff.h"
#include "analysis/analyze.h"
#include "lib/rundir.h"

static const char board_yaml[] =
	"format: 1\n"
	"name: tradeoff\n"
	"idle_states:\n"
	"  - {name: C1, exit_latency_us: 2, power_mw: 100}\n"
	"  - {name: C6, exit_latency_us: 150, power_mw: 10}\n"
	"model: {active_power_mw: 1000}\n"
	"static_power_mw: 500\n"
	"budgets:\n"
	"  latency_us: {cyclic: {p99: %d}}\n";

/* One CPU: half the time active, 20 % in C1, 30 % in C6.  Expected latency
 * (p99) 60 us at PM QoS 2, 90 us at 150, 200 us unconstrained. */
static json_t *doc(void)
{
	return json_pack("{s:{s:s, s:s, s:[{s:i, s:i}, {s:i, s:i}, {s:I, s:i}]},"
			 " s:{s:{s:[{s:f, s:[{s:s, s:f, s:f}, {s:s, s:f, s:f}]}]}}}",
		"tradeoff", "probe", "cyclic", "stat", "p99.9", "points",
		"pm_qos_us", 2, "p99_ns", 60000, "pm_qos_us", 150, "p99_ns", 90000,
		"pm_qos_us", (json_int_t)2000000000, "p99_ns", 200000,
		"idle", "sysfs", "cpus", "active", 0.5, "states",
		"name", "C1", "exit_latency_us", 2.0, "residency", 0.2,
		"name", "C6", "exit_latency_us", 150.0, "residency", 0.3);
}

static double point(const json_t *d, size_t i, const char *key)
{
	return json_number_value(json_object_get(json_array_get(json_object_get(
		json_object_get(d, "tradeoff"), "points"), i), key));
}

static struct lw_board *board(int p99_us)
{
	char buf[512];
	struct lw_board *b;

	snprintf(buf, sizeof(buf), board_yaml, p99_us);
	b = lw_board_parse("tradeoff.yaml", buf);
	assert_non_null(b);
	return b;
}

static void test_power_and_recommendation(void **st)
{
	struct lw_board *b = board(100);
	json_t *d = doc(), *t;

	lw_tradeoff_power(b, d);
	t = json_object_get(d, "tradeoff");
	assert_string_equal(json_string_value(json_object_get(t, "stat")), "p99");
	/* 500 static + 0.5 * 1000 active + 0.2 * 100 (C1) + 0.3 * 10 (C6) */
	assert_true(fabs(point(d, 2, "power_mw") - 1023) < 1e-6);
	assert_true(fabs(point(d, 1, "power_mw") - 1023) < 1e-6);	/* C6 allowed at 150 */
	/* at 2 us, C6's 30 % moves to C1: 500 + 500 + 0.5 * 100 */
	assert_true(fabs(point(d, 0, "power_mw") - 1050) < 1e-6);
	assert_true(fabs(point(d, 0, "latency_ns") - 60000) < 1e-6);
	/* p99 < 100 us: 150 is the least constraining value that meets it, for free */
	assert_int_equal(json_integer_value(json_object_get(t, "recommended_pm_qos_us")), 150);
	assert_true(fabs(json_number_value(json_object_get(t, "recommended_cost_mw"))) < 1e-6);
	json_decref(d);
	lw_board_free(b);

	b = board(80);	/* only 2 us meets 80 us: it costs 27 mW */
	d = doc();
	lw_tradeoff_power(b, d);
	t = json_object_get(d, "tradeoff");
	assert_int_equal(json_integer_value(json_object_get(t, "recommended_pm_qos_us")), 2);
	assert_true(fabs(json_number_value(json_object_get(t, "recommended_cost_mw")) - 27) < 1e-6);
	json_decref(d);
	lw_board_free(b);

	b = board(300);	/* no constraint meets 300 us: said in words */
	d = doc();
	lw_tradeoff_power(b, d);
	t = json_object_get(d, "tradeoff");
	assert_int_equal(json_integer_value(json_object_get(t, "recommended_pm_qos_us")), 2000000000);
	assert_string_equal(json_string_value(json_object_get(t, "recommended")), "no constraint");
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		lw_tradeoff_print(f, d);
		fclose(f);
		assert_non_null(strstr(buf, "recommended: no constraint"));
		assert_null(strstr(buf, "2000000000"));
		free(buf);
	}
	json_decref(d);
	lw_board_free(b);

	b = board(50);	/* nothing meets 50 us: no recommendation, and why */
	d = doc();
	lw_tradeoff_power(b, d);
	t = json_object_get(d, "tradeoff");
	assert_true(json_is_null(json_object_get(t, "recommended_pm_qos_us")));
	assert_non_null(strstr(json_string_value(json_object_get(t, "reason")), "not what limits"));
	json_decref(d);
	lw_board_free(b);
}

static json_t *analyze_with(const char *run, const char *board)
{
	struct lw_analyze_opts o;
	struct lw_summary sum;
	struct lw_rundir rd;
	json_t *doc;
	int partial, q;

	lw_analyze_opts_default(&o);
	o.board = board;
	assert_int_equal(lw_rundir_open(&rd, run), 0);
	q = lw_set_quiet(1);
	assert_true(lw_analyze_run(&rd, &o, &sum, &doc, &partial) >= 0);
	lw_set_quiet(q);
	lw_summary_free(&sum);
	lw_rundir_close(&rd);
	return doc;
}

static const json_t *budget(const json_t *doc, const char *metric)
{
	const json_t *r;
	size_t i;

	json_array_foreach(json_object_get(doc, "checks"), i, r)
		if (!strcmp(json_string_value(json_object_get(r, "metric")) ?: "", metric))
			return r;
	fail_msg("no check of '%s'", metric);
	return NULL;
}

/* The same quantity, the same figure: analyzed with board rpi4 after the
 * run's power was estimated with another board's model, the budget read
 * that model's figure (1999 mW) beside rpi4's trade-off (4240 mW).  Now
 * RUN/power is estimated again with rpi4's model, the budget says which
 * model it is, and the trade-off says it is another quantity. */
static void test_power_figures_agree(void **st)
{
	char *dir = lw_test_tmpdir(), run[512], cmd[1200];
	json_t *a, *b;
	const json_t *r;
	double w;

	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(cmd, sizeof(cmd), "cp -r tests/data/trace-run '%s'", run);
	assert_int_equal(system(cmd), 0);
	a = analyze_with(run, "imx8mp-evk");
	b = analyze_with(run, "rpi4");
	w = json_real_value(json_object_get(json_object_get(json_object_get(b, "power"), "total"),
					    "average_w"));
	r = budget(b, "power");
	assert_true(fabs(json_number_value(json_object_get(r, "measured")) - w * 1e3) < 1e-6);
	assert_non_null(strstr(json_string_value(json_object_get(r, "message")),
			       "the run's power, estimated: board rpi4 energy model"));
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(json_object_get(b,
			"power"), "total"), "basis")), "estimated: board rpi4 energy model"));
	/* rpi4's model, not the one before */
	assert_true(fabs(w - json_real_value(json_object_get(json_object_get(json_object_get(a,
			"power"), "total"), "average_w"))) > 0.1);
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(b, "tradeoff"),
			"power")), "board rpi4's energy model over this run's idle residency"));
	json_decref(a);
	json_decref(b);
	/* a fresh rpi4 analysis gives the same power */
	snprintf(cmd, sizeof(cmd), "rm -f '%s/power' '%s/idle.json'", run, run);
	assert_int_equal(system(cmd), 0);
	b = analyze_with(run, "rpi4");
	assert_true(fabs(w - json_real_value(json_object_get(json_object_get(json_object_get(b,
			"power"), "total"), "average_w"))) < 1e-9);
	json_decref(b);
	lw_test_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_and_recommendation),
		cmocka_unit_test(test_power_figures_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
