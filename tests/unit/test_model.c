// SPDX-License-Identifier: GPL-2.0-only
/* The energy model's arithmetic on a synthetic cpu_idle / cpu_frequency
 * sequence, its output in the power file format, and budget verdicts. */
#include <math.h>

#include "tests/unit/lw_test.h"
#include "lib/safefile.h"
#include "analysis/checks.h"
#include "boards/board.h"
#include "power/idle.h"
#include "power/model.h"
#include "power/power.h"

#define near(a, b) (fabs((a) - (b)) < 1e-9)
#define S 1000000000ULL
#define MS 1000000ULL

static const char board_text[] =
	"format: 1\n"
	"name: synth\n"
	"idle_states:\n"
	"  - {name: WFI, exit_latency_us: 1, power_mw: 100}\n"
	"  - {name: deep, exit_latency_us: 500, power_mw: 10}\n"
	"operating_points:\n"
	"  - {freq_khz: 1000000, power_mw: 1000}\n"
	"  - {freq_khz: 2000000, power_mw: 3000}\n"
	"static_power_mw: 500\n";

static struct lw_pm_model *run_sequence(struct lw_board *b)
{
	struct lw_pm_opts o = { .board = b, .ncpus = 2, .start_ns = 1 * S, .end_ns = 2 * S,
				.bin_ns = 100 * MS };
	const struct lw_pm_event ev[] = {
		/* before the window: sets the state, accounts nothing */
		{ 500 * MS, 0, LW_PM_IDLE, 0 },
		{ 600 * MS, 0, LW_PM_IDLE, LW_PM_IDLE_EXIT },
		/* cpu0: running at 2 GHz (3000 mW) until 1.2 s, deep (10 mW) to 1.7 s,
		 * running again, 1 GHz (1000 mW) from 1.8 s */
		{ 1200 * MS, 0, LW_PM_IDLE, 1 },
		/* cpu1's first event is an exit: idle since the start in the default
		 * state (WFI, 100 mW), then running at 2 GHz */
		{ 1500 * MS, 1, LW_PM_IDLE, LW_PM_IDLE_EXIT },
		{ 1700 * MS, 0, LW_PM_IDLE, LW_PM_IDLE_EXIT },
		{ 1800 * MS, 0, LW_PM_FREQ, 1000000 },
		/* after the window: ignored */
		{ 2500 * MS, 1, LW_PM_IDLE, 0 },
	};
	struct lw_pm_model *m = lw_pm_model_new(&o);

	assert_non_null(m);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		assert_int_equal(lw_pm_model_event(m, &ev[i]), 0);
	lw_pm_model_finish(m);
	return m;
}

static void test_arithmetic(void **st)
{
	struct lw_board *b = lw_board_parse("synth.yaml", board_text);
	struct lw_pm_model *m;
	json_t *idle, *c0, *c1;

	assert_non_null(b);
	m = run_sequence(b);
	/* cpu0: 0.2 s * 3000 + 0.5 s * 10 + 0.1 s * 3000 + 0.2 s * 1000 = 1105 mJ */
	assert_true(near(lw_pm_model_cpu_energy_j(m, 0), 1.105));
	/* cpu1: 0.5 s * 100 + 0.5 s * 3000 = 1550 mJ */
	assert_true(near(lw_pm_model_cpu_energy_j(m, 1), 1.550));
	/* plus 500 mW of static power for 1 s */
	assert_true(near(lw_pm_model_energy_j(m), 3.155));

	idle = lw_pm_model_idle(m);
	c0 = json_array_get(json_object_get(idle, "cpus"), 0);
	c1 = json_array_get(json_object_get(idle, "cpus"), 1);
	assert_true(near(json_real_value(json_object_get(c0, "active")), 0.5));
	json_t *deep = json_array_get(json_object_get(c0, "states"), 1);

	assert_string_equal(json_string_value(json_object_get(deep, "name")), "deep");
	assert_int_equal(json_integer_value(json_object_get(deep, "entries")), 1);
	assert_true(near(json_real_value(json_object_get(deep, "residency")), 0.5));
	/* the entry at 0.5 s is before the window: not counted */
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(c0, "states"),
									     0), "entries")), 0);
	json_t *unk = json_array_get(json_object_get(c1, "states"), 2);

	assert_string_equal(json_string_value(json_object_get(unk, "name")), "unknown");
	assert_true(near(json_real_value(json_object_get(unk, "residency")), 0.5));
	json_decref(idle);
	lw_pm_model_free(m);
	lw_board_free(b);
}

static void test_output_file(void **st)
{
	struct lw_board *b = lw_board_parse("synth.yaml", board_text);
	struct lw_pm_model *m = run_sequence(b);
	char *dir = lw_test_tmpdir(), path[512];
	struct lw_power_writer *w;
	struct lw_power_data *d;
	json_t *s;
	int r;

	snprintf(path, sizeof(path), "%s/power", dir);
	w = lw_power_create(LW_AT_PATH, path, 1 * S, 0);
	assert_int_equal(lw_pm_model_write(m, w, 0), 0);
	assert_int_equal(lw_power_close(w, 2 * S), 0);
	d = lw_power_read(path);
	assert_non_null(d);
	assert_int_equal(d->nrail, 3);
	r = lw_power_find_rail(d, "model/total");
	assert_true(d->rail[r].flags & LW_RAIL_ESTIMATED);
	assert_int_equal(d->rail[r].n, 11);		/* the start, then 10 bins of 100 ms */
	/* bin 1.2-1.3 s: cpu0 deep 1 mJ, cpu1 WFI 10 mJ, static 50 mJ -> 0.61 W */
	assert_int_equal(d->rail[r].pt[3].ts, 1300 * MS);
	assert_true(fabs(d->rail[r].pt[3].w - 0.61) < 1e-6);
	s = lw_power_summarize(d);
	assert_string_equal(json_string_value(json_object_get(s, "kind")), "estimated");
	assert_true(json_is_true(json_object_get(s, "estimated")));
	assert_true(fabs(json_real_value(json_object_get(json_object_get(s, "total"), "energy_j")) - 3.155) < 1e-6);
	assert_true(fabs(json_real_value(json_object_get(json_object_get(s, "total"), "average_w")) - 3.155) < 1e-6);
	json_decref(s);
	lw_power_data_free(d);
	lw_pm_model_free(m);
	lw_board_free(b);
	lw_test_rmdir(dir);
}

static void test_bad_sequences(void **st)
{
	struct lw_board *b = lw_board_parse("synth.yaml", board_text);
	struct lw_pm_opts o = { .board = b, .ncpus = 1, .start_ns = S, .end_ns = 2 * S, .bin_ns = MS };
	struct lw_pm_model *m = lw_pm_model_new(&o);
	struct lw_pm_event e1 = { 1500 * MS, 0, LW_PM_IDLE, 0 }, e2 = { 1400 * MS, 0, LW_PM_IDLE, 1 };
	struct lw_pm_event e3 = { 1600 * MS, 3, LW_PM_IDLE, 0 };

	assert_int_equal(lw_pm_model_event(m, &e1), 0);
	assert_error(lw_pm_model_event(m, &e2) < 0, "cpu 0: time goes backwards");
	assert_error(lw_pm_model_event(m, &e3) < 0, "event on cpu 3, the model has 1 CPUs");
	lw_pm_model_free(m);
	o.end_ns = o.start_ns;
	assert_error(lw_pm_model_new(&o) == NULL, "bad window");
	lw_board_free(b);
	b = lw_board_parse("nopower.yaml", "format: 1\nname: nopower\n");
	o.board = b;
	o.end_ns = 2 * S;
	assert_error(lw_pm_model_new(&o) == NULL, "board 'nopower' has no power figures");
	lw_board_free(b);
}

static const char budget_board[] =
	"format: 1\n"
	"name: budgets\n"
	"budgets:\n"
	"  latency_us:\n"
	"    p99: 50\n"
	"    max: 100\n"
	"    timerlat: {p99.9: 10}\n"
	"  audio_xruns: 0\n"
	"  deadline_misses: 1\n"
	"  average_power_mw: 3000\n"
	"  energy_per_audio_period_uj: 5000\n";

static const struct lw_check *find_check(const struct lw_checks *cs, const char *name)
{
	for (size_t i = 0; i < cs->n; i++)
		if (!strcmp(cs->c[i].name, name))
			return &cs->c[i];
	fail_msg("no check %s", name);
	return NULL;
}

/* A board's budgets judged by the checks evaluator (analysis/checks.c). */
static void test_budgets(void **st)
{
	struct lw_board *b = lw_board_parse("budgets.yaml", budget_board);
	struct lw_checks cs = { 0 };
	const struct lw_check *mx, *epp;
	json_t *an;

	assert_non_null(b);
	/* workloads as analyze writes them: instances named by kind, numbered
	 * from the second on, each saying its kind */
	an = json_pack("{s:{s:{s:{s:f, s:f}}}, s:{s:{s:s, s:i, s:i}, s:{s:s, s:i}, s:{s:s, s:i}}, s:{s:{s:f, s:f}}}",
		"probes", "cyclic", "all", "p99_ns", 42000.0, "max_ns", 180000.0,
		"workloads", "audio", "kind", "audio", "xruns", 0, "periods", 1000,
		"video", "kind", "video", "dropped", 1, "video-1", "kind", "video", "dropped", 1,
		"power", "total", "average_w", 2.5, "energy_j", 4.0);
	assert_int_equal(lw_checks_board(b, an, NULL, &cs), 0);
	/* max 180 us > 100 us; deadline misses 0 + (1 + 1) > 1 */
	assert_int_equal(lw_checks_count(&cs, LW_FAIL), 2);
	assert_int_equal(find_check(&cs, "budget.cyclic.p99")->result, LW_PASS);
	mx = find_check(&cs, "budget.cyclic.max");
	assert_int_equal(mx->result, LW_FAIL);
	assert_true(near(mx->measured, 180.0));
	assert_true(near(mx->limit, 100.0));
	assert_string_equal(mx->unit, "us");
	/* the timerlat budget: that probe did not run */
	assert_int_equal(find_check(&cs, "budget.timerlat.p99.9")->result, LW_SKIP);
	assert_int_equal(find_check(&cs, "budget.deadline_misses")->result, LW_FAIL);
	assert_int_equal(find_check(&cs, "budget.power")->result, LW_PASS);
	/* 4 J over 1000 periods = 4000 uJ */
	epp = find_check(&cs, "budget.energy_per_period");
	assert_true(near(epp->measured, 4000.0));
	assert_int_equal(epp->result, LW_PASS);
	lw_checks_free(&cs);
	json_decref(an);

	/* all met */
	an = json_pack("{s:{s:{s:{s:f, s:f}}}}", "probes", "cyclic", "all", "p99_ns", 1000.0,
		       "max_ns", 2000.0);
	assert_int_equal(lw_checks_board(b, an, NULL, &cs), 0);
	assert_int_equal(lw_checks_count(&cs, LW_FAIL), 0);
	lw_checks_free(&cs);
	json_decref(an);
	lw_board_free(b);
}

/* Where a machine has both, the residency from the traced cpu_idle events
 * and from the cpuidle counters (usage, time) of the same second agree. */
static void test_trace_agrees_with_counters(void **st)
{
	struct lw_board *b = lw_board_parse("synth.yaml", board_text);
	struct lw_pm_opts o = { .board = b, .ncpus = 1, .start_ns = 1 * S, .end_ns = 2 * S,
				.bin_ns = 100 * MS };
	/* WFI 1.10-1.30 and 1.50-1.55, deep 1.60-1.90: 250 ms WFI (2), 300 ms deep (1) */
	const struct lw_pm_event ev[] = {
		{ 1100 * MS, 0, LW_PM_IDLE, 0 }, { 1300 * MS, 0, LW_PM_IDLE, LW_PM_IDLE_EXIT },
		{ 1500 * MS, 0, LW_PM_IDLE, 0 }, { 1550 * MS, 0, LW_PM_IDLE, LW_PM_IDLE_EXIT },
		{ 1600 * MS, 0, LW_PM_IDLE, 1 }, { 1900 * MS, 0, LW_PM_IDLE, LW_PM_IDLE_EXIT },
	};
	json_t *c0 = json_pack("{s:[{s:i, s:[{s:i, s:s, s:i, s:i, s:i}, {s:i, s:s, s:i, s:i, s:i}]}]}",
		"cpus", "cpu", 0, "states",
		"index", 0, "name", "WFI", "exit_latency_us", 1, "usage", 10, "time_us", 1000,
		"index", 1, "name", "deep", "exit_latency_us", 500, "usage", 3, "time_us", 7000);
	json_t *c1 = json_pack("{s:[{s:i, s:[{s:i, s:s, s:i, s:i, s:i}, {s:i, s:s, s:i, s:i, s:i}]}]}",
		"cpus", "cpu", 0, "states",
		"index", 0, "name", "WFI", "exit_latency_us", 1, "usage", 12, "time_us", 251000,
		"index", 1, "name", "deep", "exit_latency_us", 500, "usage", 4, "time_us", 307000);
	json_t *counters, *traced;
	struct lw_pm_model *m;

	assert_non_null(b);
	m = lw_pm_model_new(&o);
	assert_non_null(m);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		assert_int_equal(lw_pm_model_event(m, &ev[i]), 0);
	lw_pm_model_finish(m);
	json_t *delta = lw_idle_delta(c0, c1, 1 * S);

	counters = json_array_get(json_object_get(delta, "cpus"), 0);
	traced = lw_pm_model_idle(m);
	const json_t *tc = json_array_get(json_object_get(traced, "cpus"), 0);

	assert_true(fabs(json_number_value(json_object_get(counters, "active")) -
			 json_number_value(json_object_get(tc, "active"))) < 1e-9);
	for (size_t k = 0; k < 2; k++) {
		const json_t *a = json_array_get(json_object_get(counters, "states"), k);
		const json_t *t = json_array_get(json_object_get(tc, "states"), k);

		assert_string_equal(json_string_value(json_object_get(a, "name")),
				    json_string_value(json_object_get(t, "name")));
		assert_true(fabs(json_number_value(json_object_get(a, "residency")) -
				 json_number_value(json_object_get(t, "residency"))) < 1e-9);
		assert_int_equal(json_integer_value(json_object_get(a, "entries")),
				 json_integer_value(json_object_get(t, "entries")));
	}
	json_decref(delta);
	json_decref(traced);
	json_decref(c0);
	json_decref(c1);
	lw_pm_model_free(m);
	lw_board_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arithmetic),
		cmocka_unit_test(test_output_file),
		cmocka_unit_test(test_bad_sequences),
		cmocka_unit_test(test_budgets),
		cmocka_unit_test(test_trace_agrees_with_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
