// SPDX-License-Identifier: GPL-2.0-only
/* Every option form of `latwatt run`, parsed without side effects. */
#include "tests/unit/lw_test.h"
#include "cmd/runopts.h"
#include "analysis/sequential.h"
#include <math.h>
#include "lib/ust.h"

static cpu_set_t online;

static int parse(struct lw_run_opts *o, const char *args)
{
	static char buf[512];	/* the options point into it */
	char *argv[32], *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof(buf), "run %s", args);
	for (char *t = strtok_r(buf, " ", &save); t && argc < 31; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	lw_run_opts_default(o, &online);
	return lw_run_opts_parse(o, argc, argv, &online);
}

static int setup(void **st)
{
	CPU_ZERO(&online);
	for (int c = 0; c < 4; c++)
		CPU_SET(c, &online);
	return 0;
}

static void test_defaults(void **st)
{
	struct lw_run_opts o;

	assert_int_equal(parse(&o, "-o R"), 0);
	assert_string_equal(o.output, "R");
	assert_int_equal(o.duration_ns, 10000000000ULL);
	assert_int_equal(o.interval_ns, 1000000);
	assert_int_equal(o.priority, 95);
	assert_int_equal(o.pm_qos_us, -1);
	assert_int_equal(o.threshold_ns, 0);
	assert_int_equal(CPU_COUNT(&o.cpus), 4);
	assert_int_equal(o.progress, -1);
	assert_false(o.no_rt);
	assert_false(o.force);
	assert_string_equal(o.board, "local");
	assert_int_equal(o.lttng, LW_UST_AUTO);
	assert_int_equal(o.monitor_ns, 0);
	assert_int_equal(o.monitor_window_ns, 100000000);
	assert_int_equal(o.monitor_disk, 64 << 20);
	assert_true(o.power_rate_default);
}

static void test_every_option(void **st)
{
	struct lw_run_opts o;

	assert_int_equal(parse(&o, "--output=R -d 500ms -c 1-2 -i 250 --distance 50 -p 80 --no-rt "
				   "--pm-qos 10 --threshold 40 -b 900 --board rpi4 -f -q"), 0);
	assert_string_equal(o.output, "R");
	assert_int_equal(o.duration_ns, 500000000);
	assert_int_equal(CPU_COUNT(&o.cpus), 2);
	assert_true(CPU_ISSET(1, &o.cpus) && CPU_ISSET(2, &o.cpus));
	assert_int_equal(o.interval_ns, 250000);
	assert_int_equal(o.distance_ns, 50000);
	assert_int_equal(o.priority, 80);
	assert_true(o.no_rt);
	assert_int_equal(o.pm_qos_us, 10);
	assert_int_equal(o.threshold_ns, 40000);
	assert_int_equal(o.break_ns, 900000);
	assert_string_equal(o.board, "rpi4");
	assert_true(o.force);
	assert_int_equal(o.progress, 0);
	assert_false(o.stacks);
	assert_int_equal(parse(&o, "-o R --stacks"), 0);
	assert_true(o.stacks);

	assert_int_equal(parse(&o, "-o R --duration 2h --cpus all --interval 1ms --priority 99 "
				   "--progress --break-on 1ms --force"), 0);
	assert_int_equal(o.duration_ns, 7200000000000ULL);
	assert_int_equal(o.interval_ns, 1000000);
	assert_int_equal(o.break_ns, 1000000);
	assert_int_equal(o.progress, 1);
	assert_int_equal(CPU_COUNT(&o.cpus), 4);
	assert_int_equal(parse(&o, "-o R --lttng on --monitor 5m --monitor-window 2s "
				   "--monitor-disk 1G --power-rate 5"), 0);
	assert_int_equal(o.lttng, LW_UST_ON);
	assert_int_equal(o.monitor_ns, 300000000000ULL);
	assert_int_equal(o.monitor_window_ns, 2000000000ULL);
	assert_int_equal(o.monitor_disk, 1ULL << 30);
	assert_false(o.power_rate_default);
	assert_int_equal(parse(&o, "-o R --lttng=off --monitor=1s"), 0);
	assert_int_equal(o.lttng, LW_UST_OFF);
	assert_int_equal(o.monitor_ns, 1000000000ULL);
	assert_int_equal(parse(&o, "-oR -d30s -c0 -i100 -p1"), 0);
	assert_int_equal(o.duration_ns, 30000000000ULL);
	assert_int_equal(o.priority, 1);
}

static void test_repeat_auto(void **st)
{
	struct lw_run_opts o;

	assert_int_equal(parse(&o, "-o R"), 0);
	assert_false(o.repeat_auto);
	assert_int_equal(o.min_runs, 3);
	assert_int_equal(o.max_runs, 10);
	assert_true(o.alpha == 0.05 && o.practical == 0.05);
	assert_int_equal(parse(&o, "-o R --repeat auto --against B --min-runs 2 --max-runs 20 "
				   "--alpha 0.01 --practical 10 --spending obrien-fleming "
				   "--decide-on p99 --decide-on xruns"), 0);
	assert_true(o.repeat_auto);
	assert_string_equal(o.against, "B");
	assert_int_equal(o.min_runs, 2);
	assert_int_equal(o.max_runs, 20);
	assert_true(o.alpha == 0.01 && fabs(o.practical - 0.10) < 1e-12);
	assert_int_equal(o.spending, LW_SEQ_OBF);
	assert_int_equal(o.ndecide, 2);
	assert_string_equal(o.decide_on[1], "xruns");
	/* without --against: the budgets decide (refused later, with the
	 * board known, when there is none) */
	assert_int_equal(parse(&o, "-o R --repeat auto --budget cyclic.max<1ms --max-runs 4"), 0);
	assert_true(o.repeat_auto);
	assert_null(o.against);
	assert_int_equal(o.nbudgets, 1);
}

static void test_bad_options(void **st)
{
	static const struct { const char *args, *err; } bad[] = {
		{ "-d 5x -o R", "--duration: unknown unit 'x'" },
		{ "-d 0 -o R", "--duration: must be more than 0" },
		{ "-d abc -o R", "--duration: 'abc' is not a duration" },
		{ "-c 9 -o R", "--cpus: CPU 9 is not online (online: 0-3)" },
		{ "-c 2-1 -o R", "--cpus: bad range" },
		{ "-i 5 -o R", "--interval: must be between 10us and 10s" },
		{ "-i 20s -o R", "--interval: must be between" },
		{ "-p 0 -o R", "--priority: 0 is out of range [1, 99]" },
		{ "-p 100 -o R", "--priority: 100 is out of range" },
		{ "--pm-qos -3 -o R", "--pm-qos: '-3' is not a non-negative integer" },
		{ "--bogus -o R", "unknown option '--bogus'" },
		{ "-Z -o R", "unknown option '-Z'" },
		{ "-o", "option -o needs a value" },
		{ "-d 1s", "no run directory: give -o RUN" },
		{ "-o R extra", "unexpected argument 'extra'" },
		{ "-o R --lttng maybe", "--lttng: 'maybe': auto, on or off" },
		{ "-o R --stacks --no-kallsyms", "--stacks needs the kernel trace and its symbols: "
						 "not with --no-kallsyms" },
		{ "-o R --trace off --stacks", "--stacks needs the kernel trace and its symbols: "
					       "not with --trace off" },
		{ "-o R --monitor 500ms", "--monitor: the interval is whole seconds, at least 1s" },
		{ "-o R --monitor 1500ms", "--monitor: the interval is whole seconds" },
		{ "-o R --monitor-window 11s", "--monitor-window: at most 10s" },
		{ "-o R --monitor-disk lots", "--monitor-disk" },
		{ "-o R --repeat 3 --against B", "--against is for --repeat auto" },
		{ "-o R --max-runs 5", "--max-runs is for --repeat auto" },
		{ "-o R --repeat auto --against B --min-runs 6 --max-runs 5", "--min-runs 6 is more than" },
		{ "-o R --repeat auto --against B --spending linear", "--spending: unknown spending" },
		{ "-o R --repeat auto --against B --decide-on p99>1", "--decide-on: 'p99>1' is not" },
		{ "-o R --repeat autox", "--repeat: 'autox' is not" },
	};
	struct lw_run_opts o;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_error(parse(&o, bad[i].args) < 0, bad[i].err);
}

/* --deepest-idle-state N[@CPULIST]: the measured CPUs by default, sets apart. */
static void test_deepest_idle_state(void **st)
{
	struct lw_run_opts o;

	assert_int_equal(parse(&o, "-o R -c 1-2 --deepest-idle-state 1"), 0);
	assert_int_equal(o.nidle_caps, 1);
	assert_int_equal(o.idle_caps[0].deepest, 1);
	assert_int_equal(CPU_COUNT(&o.idle_caps[0].cpus), 2);
	assert_true(CPU_ISSET(1, &o.idle_caps[0].cpus) && CPU_ISSET(2, &o.idle_caps[0].cpus));
	/* -c after it still gives its CPUs */
	assert_int_equal(parse(&o, "-o R --deepest-idle-state -1 -c 3"), 0);
	assert_int_equal(o.idle_caps[0].deepest, -1);
	assert_int_equal(CPU_COUNT(&o.idle_caps[0].cpus), 1);
	assert_true(CPU_ISSET(3, &o.idle_caps[0].cpus));
	assert_int_equal(parse(&o, "-o R --deepest-idle-state 0@0 --deepest-idle-state 2@1-3"), 0);
	assert_int_equal(o.nidle_caps, 2);
	assert_int_equal(o.idle_caps[1].deepest, 2);
	assert_int_equal(CPU_COUNT(&o.idle_caps[1].cpus), 3);
	assert_error(parse(&o, "-o R --deepest-idle-state 0@0-1 --deepest-idle-state 1@1") < 0,
		     "CPUs 1 are in two sets");
	assert_error(parse(&o, "-o R --deepest-idle-state -2") < 0, "not an idle state index");
	assert_error(parse(&o, "-o R --deepest-idle-state x@1") < 0, "not an idle state index");
	assert_error(parse(&o, "-o R --deepest-idle-state @1") < 0, "N or N@CPULIST");
	assert_error(parse(&o, "-o R --deepest-idle-state 1@7") < 0, "--deepest-idle-state");
}

/* --aligned US and --warm-up TIME (cyclictest -A, rtla -A and --warm-up) */
static void test_aligned_warmup(void **st)
{
	static const struct { const char *args, *err; } bad[] = {
		{ "-o R --aligned", "option --aligned needs a value" },
		{ "-o R --aligned -5", "--aligned" },
		{ "-o R --aligned 2s", "--aligned: at most 1s between two threads" },
		{ "-o R -d 1s --warm-up 1s", "--warm-up: must be shorter than --duration" },
		{ "-o R --warm-up 20s", "--warm-up: must be shorter than --duration" },
		{ "-o R --warm-up soon", "--warm-up: 'soon' is not a duration" },
	};
	struct lw_run_opts o;

	assert_int_equal(parse(&o, "-o R"), 0);
	assert_false(o.probes.aligned);
	assert_int_equal(o.warmup_ns, 0);
	assert_int_equal(parse(&o, "-o R --aligned 0 --warm-up 500ms"), 0);
	assert_true(o.probes.aligned);
	assert_int_equal(o.probes.align_ns, 0);
	assert_int_equal(o.warmup_ns, 500000000);
	assert_int_equal(parse(&o, "-o R --aligned=20 -d 1m --warm-up=5s"), 0);
	assert_true(o.probes.aligned);
	assert_int_equal(o.probes.align_ns, 20000);
	assert_int_equal(o.warmup_ns, 5000000000ULL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_error(parse(&o, bad[i].args) < 0, bad[i].err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_option),
		cmocka_unit_test(test_repeat_auto),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_deepest_idle_state),
		cmocka_unit_test(test_aligned_warmup),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
