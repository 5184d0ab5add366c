/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The verdict of a run: the answer every view gives first.  Built once from
 * the analysis document (RUN/analysis.json) and the run's checks, stored in
 * the document as "verdict", and rendered by every view (analyze's text,
 * HTML, Markdown, JUnit, LAVA) without computing anything again.
 *
 *   FAIL        a check broke: a budget (the board's, the scenario's, one
 *               given on the command line) or the threshold
 *   INCOMPLETE  no check broke, but the run cannot pass: it was interrupted,
 *               killed or is still running, a file is truncated, or a part
 *               of the analysis could not be read (the trace)
 *   PASS        every check that could be judged held, and at least one did
 *   NO VERDICT  nothing was asked: no budget and no threshold applies
 *
 * Beside the result it names, for each workload with deadlines, how many it
 * missed and their main cause; the worst wake-up latency with its CPU, time
 * and dominant cause; and the broken checks.
 */
#ifndef LW_VERDICT_H
#define LW_VERDICT_H

#include <jansson.h>
#include <stdint.h>

#include "analysis/checks.h"

enum lw_outcome {
	LW_OUTCOME_PASS,
	LW_OUTCOME_FAIL,
	LW_OUTCOME_INCOMPLETE,
	LW_OUTCOME_NONE,
};

#define LW_VERDICT_DEADLINES 4		/* workloads named in the verdict */
#define LW_VERDICT_BROKEN    4		/* broken checks named in the verdict */

/* A workload with deadlines (audio periods, video frames). */
struct lw_deadline {
	char workload[32];	/* "audio", "audio-1" */
	char noun[24];		/* "xruns", "dropped frames" */
	char unit[16];		/* "periods", "frames" */
	int64_t total;		/* periods or frames, -1 unknown */
	int64_t misses;		/* -1 unknown */
	enum lw_verdict result;	/* LW_SKIP: no budget judges it */
	char check[160];	/* the check that judged it: "xruns<1 (scenario av-stress)" */
	char cause[128];	/* the main cause of its misses, "" none known */
	int64_t cause_misses;	/* the misses it lies behind */
	int64_t explained;	/* misses with a cause */
};

/* The largest wake-up latency of the run. */
struct lw_worst {
	int have;
	char probe[32];
	int cpu;		/* -1 unknown */
	uint64_t latency_ns;
	int64_t at_ns;		/* expected wake-up, from the start of the run; -1 unknown */
	char cause[128];	/* its dominant cause, "" when the trace does not say */
	char why[96];		/* why no cause: "no trace", "outside the trace" */
	int pid;		/* the cause's task, -1 none or unknown */
	int ours;		/* the task is one of the run's: 1, not: 0, unknown: -1 */
	char task_role[32];	/* what it is in the run: "probe", "load hackbench" */
};

struct lw_run_verdict {
	enum lw_outcome outcome;
	int unreadable;		/* a file is truncated or could not be read: exit 2 */
	char state[16];		/* complete, incomplete, truncated, killed, running */
	char reason[256];	/* why it is not complete, or what could not be read */
	struct lw_deadline dl[LW_VERDICT_DEADLINES];
	size_t ndl, ndl_total;	/* named here, and in the run */
	struct lw_worst worst;
	size_t nchecks, nbroken, nskipped;
	char broken[LW_VERDICT_BROKEN][320];	/* "xruns 4 (<1, scenario av-stress)" */
};

/*
 * Build the verdict of the analysis document @an from the checks @cs (the
 * "budgets" suite) and the analysis' own problems (@problems: NULL, or an
 * array of strings saying what could not be read).
 */
void lw_verdict_build(const json_t *an, const struct lw_checks *cs, const json_t *problems,
		      struct lw_run_verdict *v);
json_t *lw_verdict_json(const struct lw_run_verdict *v);
/* Read back what lw_verdict_json() wrote; -1 after error() naming @what. */
int lw_verdict_from_json(const json_t *j, const char *what, struct lw_run_verdict *v);

const char *lw_outcome_word(enum lw_outcome o);	/* "PASS", "NO VERDICT", ... */
/* The exit status the verdict asks for: 0 PASS or NO VERDICT, 1 FAIL,
 * 2 INCOMPLETE, and 2 whatever the result when an input was truncated or
 * unreadable (bad input is an error, as everywhere). */
int lw_verdict_exit(const struct lw_run_verdict *v);

#endif
