// SPDX-License-Identifier: GPL-2.0-only
/* External load specs: words, settings, errors, quoting back, programs. */
#include <sched.h>

#include "tests/unit/lw_test.h"
#include "cmd/runopts.h"
#include "workloads/loads.h"

static cpu_set_t online;

static int setup(void **st)
{
	CPU_ZERO(&online);
	for (int c = 0; c < 4; c++)
		CPU_SET(c, &online);
	return 0;
}

static void assert_argv(const struct lw_load_spec *ls, const char *const *want)
{
	int i;

	for (i = 0; want[i]; i++) {
		assert_true(i < ls->argc);
		assert_string_equal(ls->argv[i], want[i]);
	}
	assert_int_equal(ls->argc, i);
	assert_null(ls->argv[i]);
}

static void test_words(void **st)
{
	struct lw_load_spec ls;
	static const char *const w1[] = { "stress-ng", "--cpu", "1", "--cpu-load", "50", NULL };
	static const char *const w2[] = { "sh", "-c", "echo 'a b' \"$x\"", "", "c d", NULL };
	static const char *const w3[] = { "x", "a b", "c\"d", "e\\f", NULL };

	assert_int_equal(lw_load_spec_parse(&ls, "  stress-ng\t--cpu 1  --cpu-load 50 ", "--load",
					    &online), 0);
	assert_argv(&ls, w1);
	assert_string_equal(ls.name, "");
	assert_false(ls.cpus_given);
	assert_int_equal(ls.policy, SCHED_OTHER);
	lw_load_spec_free(&ls);

	/* single quotes keep everything, double quotes allow \" and \\ */
	assert_int_equal(lw_load_spec_parse(&ls, "sh -c \"echo 'a b' \\\"\\$x\\\"\" '' c\\ d",
					    "--load", &online), 0);
	assert_argv(&ls, w2);
	lw_load_spec_free(&ls);
	assert_int_equal(lw_load_spec_parse(&ls, "x a' 'b \"c\\\"d\" 'e\\f'", "--load", &online), 0);
	assert_argv(&ls, w3);
	lw_load_spec_free(&ls);
}

static void test_settings(void **st)
{
	struct lw_load_spec ls;
	static const char *const w[] = { "hackbench", "-g", "2", "name=not-a-setting", NULL };

	assert_int_equal(lw_load_spec_parse(&ls, "name=bg cpus=1-2 policy=fifo prio=40 restart=yes "
					    "hackbench -g 2 name=not-a-setting", "--load",
					    &online), 0);
	assert_argv(&ls, w);
	assert_string_equal(ls.name, "bg");
	assert_true(ls.cpus_given);
	assert_int_equal(CPU_COUNT(&ls.cpus), 2);
	assert_true(CPU_ISSET(1, &ls.cpus) && CPU_ISSET(2, &ls.cpus));
	assert_int_equal(ls.policy, SCHED_FIFO);
	assert_int_equal(ls.prio, 40);
	assert_true(ls.restart);
	lw_load_spec_free(&ls);

	assert_int_equal(lw_load_spec_parse(&ls, "policy=batch nice=-5 restart=off cpus=all rt-app "
					    "x.json", "--load", &online), 0);
	assert_int_equal(ls.policy, SCHED_BATCH);
	assert_int_equal(ls.nice, -5);
	assert_false(ls.restart);
	assert_int_equal(CPU_COUNT(&ls.cpus), 4);
	lw_load_spec_free(&ls);

	assert_int_equal(lw_load_spec_parse(&ls, "policy=rr prio=99 /usr/bin/stress-ng", "--load",
					    &online), 0);
	assert_int_equal(ls.policy, SCHED_RR);
	lw_load_spec_free(&ls);
}

static void test_errors(void **st)
{
	static const struct {
		const char *spec, *msg;
	} bad[] = {
		{ "",                          "--load: no program to run in ''" },
		{ "   ",                       "no program to run" },
		{ "cpus=1",                    "no program to run in 'cpus=1'" },
		{ "cpus=9 stress-ng",          "--load: cpus: CPU 9 is not online (online: 0-3)" },
		{ "cpus=x stress-ng",          "--load: cpus: bad CPU list 'x'" },
		{ "cpu=1 stress-ng",           "unknown setting 'cpu'" },
		{ "policy=deadline x",         "policy 'deadline' is not one of: other, batch, idle, fifo, rr" },
		{ "policy=fifo x",             "policy fifo needs prio=1..99" },
		{ "policy=rr prio=0 x",        "prio '0': must be 1 to 99" },
		{ "prio=10 x",                 "prio applies to policy fifo or rr" },
		{ "policy=fifo prio=10 nice=1 x", "nice applies to policy other, batch or idle" },
		{ "nice=20 x",                 "nice '20': must be -20 to 19" },
		{ "nice=1x x",                 "nice '1x'" },
		{ "restart=maybe x",           "restart 'maybe': yes or no" },
		{ "name=a/b x",                "name 'a/b': use letters, digits and ._+-" },
		{ "name=.hidden x",            "name '.hidden'" },
		{ "stress-ng 'open",           "unterminated ' quote in 'stress-ng 'open'" },
		{ "stress-ng \"open",          "unterminated \" quote" },
		{ "stress-ng \\",              "trailing backslash" },
		{ "'' --cpu 1",                "empty program name" },
		{ "/usr/bin/ --cpu 1",         "give the load a name=NAME" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct lw_load_spec ls;
		int q = lw_set_quiet(1), ret = lw_load_spec_parse(&ls, bad[i].spec, "--load",
								  &online);

		lw_set_quiet(q);
		lw_load_spec_free(&ls);
		if (ret == 0)
			fail_msg("'%s' was accepted", bad[i].spec);
		if (!strstr(lw_last_error(), bad[i].msg))
			fail_msg("'%s': error '%s' does not contain '%s'", bad[i].spec,
				 lw_last_error(), bad[i].msg);
	}
}

static void test_too_many_words(void **st)
{
	char spec[LW_LOAD_MAX_ARGS * 3 + 32];
	struct lw_load_spec ls;
	size_t n = 0;

	n += (size_t)snprintf(spec + n, sizeof(spec) - n, "x");
	for (int i = 0; i < LW_LOAD_MAX_ARGS; i++)
		n += (size_t)snprintf(spec + n, sizeof(spec) - n, " a");
	assert_error(lw_load_spec_parse(&ls, spec, "--load", &online) < 0,
		     "more than 128 arguments");
	lw_load_spec_free(&ls);
}

static void test_format_round_trip(void **st)
{
	static const char *const specs[] = {
		"stress-ng --cpu 1 --cpu-load=50",
		"sh -c 'echo \"it'\\''s\" $HOME; exit 3'",
		"x '' 'a b' c\\\\d",
		"rt-app /tmp/dir with space/x.json",
	};

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct lw_load_spec a, b;
		char buf[1024];

		assert_int_equal(lw_load_spec_parse(&a, specs[i], "--load", &online), 0);
		lw_load_format_argv(a.argv, buf, sizeof(buf));
		assert_int_equal(lw_load_spec_parse(&b, buf, "--load", &online), 0);
		assert_int_equal(a.argc, b.argc);
		for (int k = 0; k < a.argc; k++)
			assert_string_equal(a.argv[k], b.argv[k]);
		lw_load_spec_free(&a);
		lw_load_spec_free(&b);
	}
	{
		char *argv[] = { (char *)"stress-ng", (char *)"--cpu", (char *)"1", NULL };
		char buf[64];

		/* plain words stay as they are: the manifest reads like a shell line */
		assert_string_equal(lw_load_format_argv(argv, buf, sizeof(buf)),
				    "stress-ng --cpu 1");
	}
}

static void test_packages_and_which(void **st)
{
	char path[4096];
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	assert_string_equal(lw_load_package("stress-ng"), "stress-ng");
	assert_string_equal(lw_load_package("hackbench"), "rt-tests");
	assert_string_equal(lw_load_package("/usr/bin/rt-app"), "rt-app");
	assert_null(lw_load_package("sh"));

	/* the program where PATH's symlinks lead: what runs */
	assert_int_equal(lw_load_which("sh", path, sizeof(path), "--load"), 0);
	{
		char real[4096];

		assert_non_null(realpath("/bin/sh", real));
		assert_string_equal(path, real);
	}
	assert_int_equal(lw_load_which("/bin/sh", path, sizeof(path), "--load"), 0);
	assert_error(lw_load_which("/nonexistent/hackbench", path, sizeof(path), "--load") < 0,
		     "--load: /nonexistent/hackbench: No such file or directory (install the "
		     "Debian package rt-tests)");
	setenv("PATH", "/nonexistent", 1);
	assert_error(lw_load_which("hackbench", path, sizeof(path), "--load") < 0,
		     "--load: hackbench not found in PATH (install the Debian package rt-tests)");
	assert_error(lw_load_which("stress-ng", path, sizeof(path), "x.yaml:3:5: load") < 0,
		     "x.yaml:3:5: load: stress-ng not found in PATH (install the Debian package "
		     "stress-ng)");
	assert_error(lw_load_which("rt-app", path, sizeof(path), "--load") < 0,
		     "(install the Debian package rt-app)");
	assert_error(lw_load_which("my-tool", path, sizeof(path), "--load") < 0,
		     "--load: my-tool not found in PATH");
	if (old) {
		setenv("PATH", old, 1);
		free(old);
	}
}

static int collect(const struct lw_load_rt *rt, void *arg)
{
	char *buf = arg;
	size_t n = strlen(buf);

	snprintf(buf + n, 1024 - n, "[%s|%d|%d|%d|%d]", rt->who, rt->policy, rt->prio, rt->busy,
		 CPU_COUNT(&rt->cpus));
	return 0;
}

static void test_rt_threads(void **st)
{
	struct lw_load_spec ls;
	char buf[1024];

	buf[0] = 0;
	assert_int_equal(lw_load_spec_parse(&ls, "stress-ng --cpu 1", "--load", &online), 0);
	assert_int_equal(lw_load_rt_threads(&ls, &online, collect, buf), 0);
	assert_string_equal(buf, "");		/* SCHED_OTHER: nothing to report */
	lw_load_spec_free(&ls);

	assert_int_equal(lw_load_spec_parse(&ls, "name=h cpus=2 policy=fifo prio=30 hackbench",
					    "--load", &online), 0);
	assert_int_equal(lw_load_rt_threads(&ls, &online, collect, buf), 0);
	assert_string_equal(buf, "[load h (policy=fifo prio=30)|1|30|1|1]");
	lw_load_spec_free(&ls);

	buf[0] = 0;
	assert_int_equal(lw_load_spec_parse(&ls, "stress-ng --sched rr --sched-prio 7 --cpu 1",
					    "--load", &online), 0);
	assert_int_equal(lw_load_rt_threads(&ls, &online, collect, buf), 0);
	assert_string_equal(buf, "[load stress-ng (stress-ng --sched rr --sched-prio 7)|2|7|1|4]");
	lw_load_spec_free(&ls);

	/* rt-app: FIFO tasks only, priority 10 by default, cpus of task and phases */
	buf[0] = 0;
	assert_int_equal(lw_load_spec_parse(&ls, "cpus=3 rt-app tests/data/scenarios/rt-app-fifo99.json",
					    "--load", &online), 0);
	assert_int_equal(lw_load_spec_check(&ls, "--load"), 0);
	assert_int_equal(lw_load_rt_threads(&ls, &online, collect, buf), 0);
	assert_non_null(strstr(buf, "[load rt-app: rt-app task ticker|1|50|0|1]"));
	assert_non_null(strstr(buf, "[load rt-app: rt-app task hog|1|99|0|1]"));
	assert_null(strstr(buf, "background"));
	lw_load_spec_free(&ls);

	/* rt-app needs one JSON file, readable and with "tasks" */
	assert_int_equal(lw_load_spec_parse(&ls, "rt-app", "--load", &online), 0);
	assert_error(lw_load_spec_check(&ls, "--load") < 0,
		     "--load: rt-app needs its JSON file (rt-app FILE.json)");
	lw_load_spec_free(&ls);
	assert_int_equal(lw_load_spec_parse(&ls, "rt-app a.json b.json", "--load", &online), 0);
	assert_error(lw_load_spec_check(&ls, "--load") < 0,
		     "rt-app takes one JSON file, got 'a.json' and 'b.json'");
	lw_load_spec_free(&ls);
	assert_int_equal(lw_load_spec_parse(&ls, "rt-app tests/data/scenarios/sysfs/devices/system/"
					    "cpu/online", "--load", &online), 0);
	assert_error(lw_load_spec_check(&ls, "--load") < 0, "--load: rt-app file ");
	lw_load_spec_free(&ls);
}

/* -l / --load and --scenario through `latwatt run`'s option parser. */
static void test_run_options(void **st)
{
	struct lw_run_opts o;
	char run[] = "run", o1[] = "-o", r[] = "R", l1[] = "-l", s1[] = "stress-ng --cpu 1",
	     l2[] = "--load=cpus=1 hackbench", l3[] = "--load", s3[] = "cpus=7 x",
	     sc[] = "--scenario", scn[] = "av", big[] = "--load=x";
	char *a1[] = { run, o1, r, l1, s1, l2, sc, scn, NULL };
	char *a2[] = { run, o1, r, l3, s3, NULL };
	char *a3[LW_RUN_MAX_LOADS + 5] = { run, o1, r };
	int n = 3;

	lw_run_opts_default(&o, &online);
	assert_int_equal(lw_run_opts_parse(&o, 8, a1, &online), 0);
	assert_int_equal(o.nloads, 2);
	assert_string_equal(o.load[0], "stress-ng --cpu 1");
	assert_string_equal(o.load[1], "cpus=1 hackbench");
	assert_string_equal(o.scenario, "av");

	lw_run_opts_default(&o, &online);
	assert_error(lw_run_opts_parse(&o, 5, a2, &online) < 0,
		     "--load: cpus: CPU 7 is not online (online: 0-3)");

	for (int i = 0; i <= LW_RUN_MAX_LOADS; i++)
		a3[n++] = big;
	a3[n] = NULL;
	lw_run_opts_default(&o, &online);
	assert_error(lw_run_opts_parse(&o, n, a3, &online) < 0, "--load: at most 16 loads");

	/* the repeatable options a scenario list repeats are real options */
	for (int i = 0; lw_run_repeatable[i]; i++) {
		const struct option *opt = lw_run_long_options();

		while (opt->name && strcmp(opt->name, lw_run_repeatable[i]))
			opt++;
		assert_non_null(opt->name);
		assert_int_equal(opt->has_arg, required_argument);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_too_many_words),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_packages_and_which),
		cmocka_unit_test(test_rt_threads),
		cmocka_unit_test(test_run_options),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
