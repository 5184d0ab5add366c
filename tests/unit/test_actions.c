// SPDX-License-Identifier: GPL-2.0-only
/* run's threshold actions (lib/actions.h): every form parsed, the
 * environment of an exec, and the actions of an event fired in order. */
#include "tests/unit/lw_test.h"
#include "lib/actions.h"
#include "cmd/runopts.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_parse_forms(void **st)
{
	struct lw_action a;

	assert_int_equal(lw_action_parse(&a, "--on-threshold", "trace"), 0);
	assert_int_equal(a.kind, LW_ACTION_TRACE);
	assert_int_equal(lw_action_parse(&a, "--on-threshold", "continue"), 0);
	assert_int_equal(a.kind, LW_ACTION_CONTINUE);
	assert_int_equal(lw_action_parse(&a, "--on-threshold", "signal:USR1"), 0);
	assert_int_equal(a.kind, LW_ACTION_SIGNAL);
	assert_int_equal(a.signo, SIGUSR1);
	assert_int_equal(a.pid, 0);
	assert_int_equal(lw_action_parse(&a, "--on-end", "signal:SIGTERM:4242"), 0);
	assert_int_equal(a.signo, SIGTERM);
	assert_int_equal(a.pid, 4242);
	assert_int_equal(lw_action_parse(&a, "--on-end", "signal:2:parent"), 0);
	assert_int_equal(a.signo, SIGINT);
	assert_int_equal(a.pid, 0);
	assert_int_equal(lw_action_parse(&a, "--on-end", "signal:RTMIN+2"), 0);
	assert_int_equal(a.signo, SIGRTMIN + 2);
	assert_int_equal(lw_action_parse(&a, "--on-threshold",
					 "exec:/usr/bin/logger -t 'lat watt' \"a b\" c\\ d $HOME"), 0);
	assert_int_equal(a.kind, LW_ACTION_EXEC);
	assert_string_equal(a.argv[0], "/usr/bin/logger");
	assert_string_equal(a.argv[1], "-t");
	assert_string_equal(a.argv[2], "lat watt");
	assert_string_equal(a.argv[3], "a b");
	assert_string_equal(a.argv[4], "c d");
	assert_string_equal(a.argv[5], "$HOME");	/* nothing is expanded */
	assert_null(a.argv[6]);
	lw_action_free(&a);
}

static void test_parse_errors(void **st)
{
	struct lw_action a;

	assert_error(lw_action_parse(&a, "--on-threshold", "shell:ls") < 0, "not an action");
	assert_error(lw_action_parse(&a, "--on-end", "trace") < 0, "--on-threshold only");
	assert_error(lw_action_parse(&a, "--on-end", "continue") < 0, "--on-threshold only");
	assert_error(lw_action_parse(&a, "--on-threshold", "signal:") < 0, "needs a signal");
	assert_error(lw_action_parse(&a, "--on-threshold", "signal:NOPE") < 0, "not a signal");
	assert_error(lw_action_parse(&a, "--on-threshold", "signal:99") < 0, "not a signal");
	assert_error(lw_action_parse(&a, "--on-threshold", "signal:USR1:x") < 0,
		     "not a process id");
	assert_error(lw_action_parse(&a, "--on-threshold", "signal:USR1:0") < 0, "above 1");
	assert_error(lw_action_parse(&a, "--on-threshold", "signal:USR1:-5") < 0, "above 1");
	assert_error(lw_action_parse(&a, "--on-threshold", "signal:USR1:1") < 0, "above 1");
	assert_error(lw_action_parse(&a, "--on-threshold", "exec:") < 0, "needs a program");
	lw_action_free(&a);
	assert_error(lw_action_parse(&a, "--on-threshold", "exec:a 'b") < 0, "unterminated");
	lw_action_free(&a);
}

static void test_env(void **st)
{
	struct lw_action_event ev = {
		.event = "threshold", .has_sample = 1,
		.s = { .expected_ns = 123456789, .latency_ns = 812000, .cpu = 3,
		       .probe = LW_SAMPLE_CYCLIC },
		.threshold_ns = 500000, .run_dir = "/tmp/R", .crossings = 7,
	};
	const char *env[16];
	char text[2048];
	int n = lw_action_env(&ev, env, 16, text, sizeof(text)), seen = 0;

	for (int i = 0; i < n; i++) {
		seen += !strcmp(env[i], "LATWATT_LATENCY_NS=812000");
		seen += !strcmp(env[i], "LATWATT_TIME_NS=123456789");
		seen += !strcmp(env[i], "LATWATT_CPU=3");
		seen += !strcmp(env[i], "LATWATT_PROBE=cyclic");
		seen += !strcmp(env[i], "LATWATT_RUN_DIR=/tmp/R");
		seen += !strcmp(env[i], "LATWATT_EVENT=threshold");
		seen += !strcmp(env[i], "LATWATT_THRESHOLD_NS=500000");
		seen += !strcmp(env[i], "LATWATT_CROSSINGS=7");
		seen += !strcmp(env[i], "LATWATT_STATUS");	/* unset: not the end */
	}
	assert_int_equal(seen, 9);
	assert_null(env[n]);
	/* the end, with no crossing: the sample's variables unset */
	ev = (struct lw_action_event){ .event = "end", .status = "complete", .run_dir = "/R" };
	n = lw_action_env(&ev, env, 16, text, sizeof(text));
	seen = 0;
	for (int i = 0; i < n; i++) {
		seen += !strcmp(env[i], "LATWATT_LATENCY_NS");
		seen += !strcmp(env[i], "LATWATT_STATUS=complete");
	}
	assert_int_equal(seen, 2);
}

/* Actions run in order; one that fails ends the list, as rtla's. */
static void test_fire_in_order(void **st)
{
	struct lw_action a[4];
	struct lw_action_event ev = { .event = "threshold", .has_sample = 1,
		.s = { .latency_ns = 1234, .probe = LW_SAMPLE_CYCLIC }, .run_dir = "/tmp" };
	json_t *log = json_array();
	pid_t child;
	int status;
	char spec[64];

	/* a child that waits for SIGUSR2 */
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		pause();
		_exit(1);
	}
	snprintf(spec, sizeof(spec), "signal:USR2:%ld", (long)child);
	assert_int_equal(lw_action_parse(&a[0], "--on-threshold",
		"exec:/bin/sh -c 'test \"$LATWATT_LATENCY_NS\" = 1234'"), 0);
	assert_int_equal(lw_action_parse(&a[1], "--on-threshold", spec), 0);
	assert_int_equal(lw_action_parse(&a[2], "--on-threshold", "exec:/bin/false"), 0);
	assert_int_equal(lw_action_parse(&a[3], "--on-threshold", "continue"), 0);
	lw_set_quiet(1);
	assert_int_equal(lw_actions_fire(a, 4, &ev, log), 1);
	lw_set_quiet(0);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR2);
	assert_int_equal(json_array_size(log), 4);
	assert_true(json_is_true(json_object_get(json_array_get(log, 0), "ok")));
	assert_true(json_is_true(json_object_get(json_array_get(log, 1), "ok")));
	assert_true(json_is_false(json_object_get(json_array_get(log, 2), "ok")));
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(log, 2),
								 "outcome")), "status 1"));
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(log, 3),
								 "outcome")), "not run"));
	assert_null(json_object_get(json_array_get(log, 3), "time"));
	for (int i = 0; i < 4; i++)
		lw_action_free(&a[i]);
	json_decref(log);
}

/* A program that is not there is a failure with its reason, not status 127. */
static void test_exec_missing(void **st)
{
	struct lw_action a;
	struct lw_action_event ev = { .event = "end", .status = "complete", .run_dir = "/tmp" };
	json_t *log = json_array();

	assert_int_equal(lw_action_parse(&a, "--on-end", "exec:/nonexistent/prog"), 0);
	lw_set_quiet(1);
	assert_int_equal(lw_actions_fire(&a, 1, &ev, log), 1);
	lw_set_quiet(0);
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(log, 0),
								 "outcome")), "not found"));
	lw_action_free(&a);
	json_decref(log);
}

/* The program is found before the run, as --load's: PATH's absolute
 * folders, held to the owner rule. */
static void test_resolve(void **st)
{
	struct lw_action a;

	assert_int_equal(lw_action_parse(&a, "--on-end", "exec:latwatt-no-such-program x"), 0);
	assert_error(lw_action_resolve(&a, "--on-end") < 0, "not found in PATH");
	lw_action_free(&a);
	assert_int_equal(lw_action_parse(&a, "--on-end", "exec:/nonexistent/prog"), 0);
	assert_error(lw_action_resolve(&a, "--on-end") < 0, "/nonexistent/prog");
	lw_action_free(&a);
	assert_int_equal(lw_action_parse(&a, "--on-end", "exec:/bin/true"), 0);
	assert_int_equal(lw_action_resolve(&a, "--on-end"), 0);
	assert_string_equal(a.path, "/bin/true");
	lw_action_free(&a);
	assert_int_equal(lw_action_parse(&a, "--on-end", "signal:USR1"), 0);
	assert_int_equal(lw_action_resolve(&a, "--on-end"), 0);
}

/* run's options: repeatable, checked, --on-threshold needs --break-on. */
static int parse(struct lw_run_opts *o, int argc, char **argv)
{
	cpu_set_t online;

	CPU_ZERO(&online);
	CPU_SET(0, &online);
	lw_run_opts_default(o, &online);
	return lw_run_opts_parse(o, argc, argv, &online);
}

static void test_run_options(void **st)
{
	struct lw_run_opts o;
	char *ok[] = { "run", "-o", "R", "-b", "50", "--on-threshold", "trace",
		       "--on-threshold", "exec:/bin/echo spike", "--on-threshold", "continue",
		       "--on-end", "signal:USR1", NULL };
	char *no_break[] = { "run", "-o", "R", "--on-threshold", "trace", NULL };
	char *bad[] = { "run", "-o", "R", "-b", "50", "--on-threshold", "shell:ls", NULL };
	char *end_only[] = { "run", "-o", "R", "--on-end", "exec:/bin/true", NULL };

	assert_int_equal(parse(&o, 13, ok), 0);
	assert_int_equal(o.non_threshold, 3);
	assert_string_equal(o.on_threshold[1], "exec:/bin/echo spike");
	assert_int_equal(o.non_end, 1);
	assert_error(parse(&o, 5, no_break) < 0, "needs --break-on");
	assert_error(parse(&o, 7, bad) < 0, "not an action");
	assert_int_equal(parse(&o, 5, end_only), 0);
	assert_int_equal(o.non_end, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_fire_in_order),
		cmocka_unit_test(test_exec_missing),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_run_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
