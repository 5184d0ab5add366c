/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `latwatt run` does when a sample crosses the run's --break-on
 * threshold (--on-threshold ACTION) and when the run ends (--on-end ACTION),
 * in the manner of rtla timerlat's actions:
 *
 *   trace             keep the flight recorder as it was at the crossing
 *                     (tracing stops there; RUN/trace.dat holds it)
 *   signal:SIG[:PID]  kill(PID, SIG); PID a number or "parent" (the default:
 *                     the process that started latwatt)
 *   exec:PROG [ARG]…  run PROG with its words (split as --load's: quotes
 *                     and backslashes, nothing expanded, never a shell); the
 *                     crossing's figures go in its environment only
 *   continue          keep measuring after a crossing (--on-threshold only)
 *
 * The probes only publish a crossing (lib/run.h: lw_run_threshold()); the
 * actions run in the main thread.  Each fired action is logged with the time
 * and its outcome (RUN/actions.json).
 */
#ifndef LW_ACTIONS_H
#define LW_ACTIONS_H

#include <jansson.h>
#include <stdint.h>

#include "lib/samples.h"

#define LW_ACTION_MAX_ARGS	64
#define LW_MAX_ACTIONS		16
/* entries of RUN/actions.json's log at most: later crossings (with
 * continue) fire their actions and are counted only */
#define LW_ACTION_LOG_MAX	1000
/* how long an exec action may run before it is killed */
#define LW_ACTION_EXEC_TIMEOUT_NS (60ULL * 1000000000ULL)

enum lw_action_kind {
	LW_ACTION_TRACE,
	LW_ACTION_SIGNAL,
	LW_ACTION_EXEC,
	LW_ACTION_CONTINUE,
};

struct lw_action {
	enum lw_action_kind kind;
	const char *spec;		/* as given (not owned) */
	int signo;			/* signal */
	long pid;			/* signal: 0 the parent */
	char *words;			/* exec: storage of argv (owned) */
	char path[4096];		/* exec: the program (lw_action_resolve()) */
	char *argv[LW_ACTION_MAX_ARGS + 1];
};

/* A run's actions (cmd/run.c fills it from the options). */
struct lw_actions {
	struct lw_action threshold[LW_MAX_ACTIONS];	/* --on-threshold, in order */
	int nthreshold;
	struct lw_action end[LW_MAX_ACTIONS];		/* --on-end, in order */
	int nend;
	int cont;			/* continue is among threshold[] */
	int trace;			/* trace is among threshold[] */
};

/*
 * Parse @spec, an action of option @opt ("--on-threshold" or "--on-end":
 * trace and continue are --on-threshold's only).  Pure: looks at no file.
 * 0, or -1 after error().  Free with lw_action_free() in both cases.
 */
int lw_action_parse(struct lw_action *a, const char *opt, const char *spec);
void lw_action_free(struct lw_action *a);
/* exec: find the program before the run, as --load's are found (a name
 * with a '/' must be executable; else absolute entries of PATH only, the
 * program and its folder held to lib/input.h's owner rule: it runs as
 * root).  Other kinds: nothing.  0, or -1 after error() naming @opt. */
int lw_action_resolve(struct lw_action *a, const char *opt);

/* What the actions of one event are told. */
struct lw_action_event {
	const char *event;		/* "threshold" or "end" */
	int has_sample;			/* a crossing's figures in @s */
	struct lw_sample s;
	uint64_t threshold_ns;		/* --break-on */
	const char *run_dir;
	const char *status;		/* end: the run's status; NULL at a crossing */
	uint64_t crossings;		/* samples above the threshold so far */
	int traced;			/* trace: 1 tracing stopped at this crossing,
					 * 2 at an earlier one, 0 no trace recorded */
};

/*
 * Run the @n actions @a in order for @ev; each is appended to @log (a JSON
 * array) with its time (CLOCK_MONOTONIC and UTC) and outcome.  As rtla's,
 * an action that fails (a signal not sent, a program that cannot start or
 * exits with a status other than 0) ends the list: the ones after it are
 * logged as not run.  Returns the number that failed (0 or 1).
 */
int lw_actions_fire(const struct lw_action *a, int n, const struct lw_action_event *ev,
		    json_t *log);

/* The environment an exec action gets for @ev ("NAME=value", or "NAME" to
 * unset), into @buf of @nbuf entries with their text in @text; the count. */
int lw_action_env(const struct lw_action_event *ev, const char **env, int nenv,
		  char *text, size_t len);

#endif
