// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/actions.h"
#include "lib/error.h"
#include "lib/input.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/spawn.h"

static const char *const kind_names[] = {
	[LW_ACTION_TRACE] = "trace",
	[LW_ACTION_SIGNAL] = "signal",
	[LW_ACTION_EXEC] = "exec",
	[LW_ACTION_CONTINUE] = "continue",
};

/* "USR1", "SIGUSR1", "10", "RTMIN+2": 0 when not a signal. */
static int signal_by_name(const char *s)
{
	uint64_t v;
	char *end;

	if (!strncmp(s, "SIG", 3))
		s += 3;
	if (*s >= '0' && *s <= '9') {
		errno = 0;
		v = strtoull(s, &end, 10);
		return !*end && !errno && v >= 1 && v <= (uint64_t)SIGRTMAX ? (int)v : 0;
	}
	for (int i = 1; i < SIGRTMIN; i++)
		if (sigabbrev_np(i) && !strcmp(sigabbrev_np(i), s))
			return i;
	if (!strncmp(s, "RTMIN", 5)) {
		if (!s[5])
			return SIGRTMIN;
		if (s[5] == '+' && s[6] >= '0' && s[6] <= '9') {
			v = strtoull(s + 6, &end, 10);
			return !*end && v <= (uint64_t)(SIGRTMAX - SIGRTMIN) ? SIGRTMIN + (int)v : 0;
		}
	}
	return 0;
}

static int parse_signal(struct lw_action *a, const char *opt, const char *spec, const char *arg)
{
	const char *colon = strchr(arg, ':');
	char name[32];
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);

	if (!n || n >= sizeof(name))
		return error("%s: '%s': signal:SIG[:PID] needs a signal (e.g. signal:USR1)", opt,
			     spec);
	memcpy(name, arg, n);
	name[n] = 0;
	a->signo = signal_by_name(name);
	if (!a->signo)
		return error("%s: '%s': '%s' is not a signal (a name such as USR1 or INT, or "
			     "a number)", opt, spec, name);
	if (!colon || !strcmp(colon + 1, "parent"))
		return 0;
	char *end;

	errno = 0;
	a->pid = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || errno)
		return error("%s: '%s': '%s' is not a process id (a number, or parent)", opt, spec,
			     colon + 1);
	if (a->pid <= 1)
		return error("%s: '%s': process id %ld: a process of its own, above 1 (no "
			     "process groups, not init)", opt, spec, a->pid);
	return 0;
}

int lw_action_parse(struct lw_action *a, const char *opt, const char *spec)
{
	int on_end = !strcmp(opt, "--on-end"), argc;

	memset(a, 0, sizeof(*a));
	a->spec = spec;
	if (!strcmp(spec, "trace") || !strcmp(spec, "continue")) {
		a->kind = !strcmp(spec, "trace") ? LW_ACTION_TRACE : LW_ACTION_CONTINUE;
		if (on_end)
			return error("%s: '%s' is an action of --on-threshold only (%s)", opt, spec,
				     a->kind == LW_ACTION_TRACE ?
				     "the trace is always kept at the end, in RUN/trace.dat" :
				     "there is nothing to go on with at the end");
		return 0;
	}
	if (!strncmp(spec, "signal:", 7)) {
		a->kind = LW_ACTION_SIGNAL;
		return parse_signal(a, opt, spec, spec + 7);
	}
	if (!strncmp(spec, "exec:", 5)) {
		a->kind = LW_ACTION_EXEC;
		a->words = malloc(strlen(spec + 5) + 1);
		if (!a->words)
			return error("out of memory");
		if (lw_split_words(spec + 5, a->words, a->argv, LW_ACTION_MAX_ARGS, &argc, opt,
				   spec) < 0)
			return -1;
		if (!argc)
			return error("%s: '%s': exec: needs a program (e.g. 'exec:/usr/bin/logger "
				     "spike')", opt, spec);
		return 0;
	}
	return error("%s: '%s' is not an action: trace, signal:SIG[:PID], exec:PROG [ARG]...%s",
		     opt, spec, on_end ? "" : " or continue");
}

int lw_action_resolve(struct lw_action *a, const char *opt)
{
	const char *prog = a->argv[0];

	if (a->kind != LW_ACTION_EXEC)
		return 0;
	if (strchr(prog, '/')) {
		if (access(prog, X_OK) < 0)
			return error("%s: '%s': %s: %s", opt, a->spec, prog, strerror(errno));
		snprintf(a->path, sizeof(a->path), "%s", prog);
		return 0;
	}
	switch (lw_in_which(prog, a->path, sizeof(a->path))) {
	case 0:
		return 0;
	case 1:
		return error("%s: '%s': %s not found in PATH", opt, a->spec, prog);
	default:
		return error("%s: '%s': %s: not run from a folder of PATH that others control",
			     opt, a->spec, prog);
	}
}

void lw_action_free(struct lw_action *a)
{
	free(a->words);
	a->words = NULL;
}

int lw_action_env(const struct lw_action_event *ev, const char **env, int nenv,
		  char *text, size_t len)
{
	struct { const char *name; int has; char val[64]; const char *str; } v[] = {
		{ "LATWATT_EVENT", 1, "", ev->event },
		{ "LATWATT_RUN_DIR", 1, "", ev->run_dir },
		{ "LATWATT_THRESHOLD_NS", 1, "", NULL },
		{ "LATWATT_CROSSINGS", 1, "", NULL },
		{ "LATWATT_STATUS", ev->status != NULL, "", ev->status },
		{ "LATWATT_PROBE", ev->has_sample, "", lw_probe_name(ev->s.probe) },
		{ "LATWATT_CPU", ev->has_sample, "", NULL },
		{ "LATWATT_LATENCY_NS", ev->has_sample, "", NULL },
		{ "LATWATT_TIME_NS", ev->has_sample, "", NULL },
	};
	size_t off = 0;
	int n = 0;

	snprintf(v[2].val, sizeof(v[2].val), "%" PRIu64, ev->threshold_ns);
	snprintf(v[3].val, sizeof(v[3].val), "%" PRIu64, ev->crossings);
	snprintf(v[6].val, sizeof(v[6].val), "%u", (unsigned)ev->s.cpu);
	snprintf(v[7].val, sizeof(v[7].val), "%" PRIu64, ev->s.latency_ns);
	snprintf(v[8].val, sizeof(v[8].val), "%" PRIu64, ev->s.expected_ns);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]) && n < nenv - 1; i++) {
		int w;

		/* one of ours inherited from our environment is unset, not passed on */
		if (!v[i].has)
			w = snprintf(text + off, len - off, "%s", v[i].name);
		else
			w = snprintf(text + off, len - off, "%s=%s", v[i].name,
				     v[i].str ? v[i].str : v[i].val);
		if (w < 0 || (size_t)w >= len - off)
			break;
		env[n++] = text + off;
		off += (size_t)w + 1;
	}
	env[n] = NULL;
	return n;
}

/* One action; its outcome in @why.  0 done, -1 failed. */
static int fire_one(const struct lw_action *a, const struct lw_action_event *ev, char *why,
		    size_t len)
{
	switch (a->kind) {
	case LW_ACTION_TRACE:
		if (!ev->traced) {
			snprintf(why, len, "no kernel trace is recorded in this run (--trace off, "
				 "or no tracefs)");
			return -1;
		}
		snprintf(why, len, ev->traced == 1 ?
			 "tracing stopped at the crossing: trace.dat keeps the flight recorder "
			 "up to it" :
			 "tracing had stopped at an earlier crossing: trace.dat ends there");
		return 0;
	case LW_ACTION_CONTINUE:
		snprintf(why, len, "the run goes on");
		return 0;
	case LW_ACTION_SIGNAL: {
		pid_t pid = a->pid ? (pid_t)a->pid : getppid();
		const char *name = sigabbrev_np(a->signo);

		if (pid <= 1) {
			snprintf(why, len, "no parent process to signal (latwatt's parent is gone)");
			return -1;
		}
		if (kill(pid, a->signo) < 0) {
			snprintf(why, len, "cannot send SIG%s to %ld: %s", name ? name : "?",
				 (long)pid, strerror(errno));
			return -1;
		}
		snprintf(why, len, "sent SIG%s to %ld%s", name ? name : "?", (long)pid,
			 a->pid ? "" : " (latwatt's parent)");
		return 0;
	}
	case LW_ACTION_EXEC: {
		const char *env[16];
		char text[1024 + 4096];
		struct lw_child c = {
			.argv = (const char *const *)a->argv, .path = *a->path ? a->path : NULL,
			.env = env, .in = LW_CHILD_NULL,
			.close_fds = 1, .sig_default = LW_SIG_STOPS, .pdeathsig = SIGTERM,
			.timeout_ns = LW_ACTION_EXEC_TIMEOUT_NS, .quiet = 1,
		};
		int st;

		lw_action_env(ev, env, 16, text, sizeof(text));
		if (lw_child_start(&c) < 0) {
			snprintf(why, len, "cannot run %s: %s", a->argv[0],
				 c.fail_step == LW_CHILD_EXEC && c.fail_errno == ENOENT ?
				 "not found" : strerror(c.fail_errno));
			return -1;
		}
		pid_t pid = c.pid;

		st = lw_child_wait(&c);
		if (st < 0) {
			snprintf(why, len, "cannot wait for %s", a->argv[0]);
			return -1;
		}
		if (c.timed_out) {
			snprintf(why, len, "%s killed after %llus", a->argv[0],
				 (unsigned long long)(LW_ACTION_EXEC_TIMEOUT_NS / 1000000000ULL));
			return -1;
		}
		char how[96];

		lw_child_describe(c.status, how, sizeof(how));
		snprintf(why, len, "%s (pid %ld) %s", a->argv[0], (long)pid, how);
		return st == 0 ? 0 : -1;
	}
	}
	snprintf(why, len, "unknown action");
	return -1;
}

int lw_actions_fire(const struct lw_action *a, int n, const struct lw_action_event *ev,
		    json_t *log)
{
	int failed = 0;

	for (int i = 0; i < n; i++) {
		char why[4200];
		json_t *e = json_pack("{s:s, s:s, s:s}", "event", ev->event, "action", a[i].spec,
				      "kind", kind_names[a[i].kind]);
		int ok;

		if (ev->has_sample)
			json_object_set_new(e, "sample", json_pack("{s:s, s:i, s:I, s:I}",
				"probe", lw_probe_name(ev->s.probe), "cpu", (int)ev->s.cpu,
				"expected_ns", (json_int_t)ev->s.expected_ns,
				"latency_ns", (json_int_t)ev->s.latency_ns));
		if (failed) {
			json_object_set_new(e, "outcome", json_string("not run: an action before "
								      "it failed"));
			json_object_set_new(e, "ok", json_false());
			json_array_append_new(log, e);
			continue;
		}
		json_object_set_new(e, "time", lw_json_timestamp(NULL));
		ok = fire_one(&a[i], ev, why, sizeof(why)) == 0;
		json_object_set_new(e, "ok", json_boolean(ok));
		json_object_set_new(e, "outcome", json_string(why));
		json_array_append_new(log, e);
		if (!ok) {
			warning("%s action '%s': %s", ev->event, a[i].spec, why);
			failed = 1;
		}
	}
	return failed;
}
