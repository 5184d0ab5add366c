/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the spike attribution: its state (struct lw_attrib), shared by the
 * engine (analysis/attrib.c) and what reads it out (analysis/attrib_json.c).
 */
#ifndef LW_ATTRIB_INT_H
#define LW_ATTRIB_INT_H

#include <stdint.h>

#include "analysis/attrib.h"

#define MAX_DEPTH 16

enum ctx_kind { CTX_UNKNOWN, CTX_IDLE, CTX_TASK, CTX_SOFTIRQ, CTX_IRQ, CTX_TIMER };

struct ctx {
	enum ctx_kind kind;
	const char *name;	/* interned */
	int pid, prio, state;
	/* an interrupt just back from a timer callback: the timer interrupt's
	 * own work around each callback (taking it off the queue, tracing,
	 * re-arming) until its next event, charged to that callback */
	const char *after;
};

struct cpu {
	struct ctx stack[MAX_DEPTH];
	int depth;		/* >= 1: stack[0] is the base */
	int tick_stopped;	/* -1 unknown */
	int idle_state;		/* -1 busy or unknown */
	uint64_t idle_since;
	int *open;		/* indices of open spike windows */
	int nopen, capopen;
	/* a task woken onto this CPU while it idled: the one it will run once
	 * the interrupt returns (highest priority if several) */
	struct ctx wakee;
	int has_wakee;
	int tentative;		/* the base is the wakee, not yet seen running */
	int last_state;		/* the idle state last entered, -1 none */
};

struct lost { int cpu; uint64_t from, to; const char *why; };

/* What the trace said of a task: its priority and name, the CPU it was last
 * seen on (-1 unknown) and its state (enum lw_prev_state; runnable once woken
 * or switched in). */
struct task { int pid; int prio; const char *comm; int cpu; int state; };
#define TASKS 8192	/* open addressing; old entries are overwritten */

struct cause {
	enum lw_comp_kind kind;
	const char *name;
	uint64_t count, ns;
};

#define LATE_STATES 16
struct late { const char *state; uint64_t exit_ns, ns, spikes; };

struct lw_attrib {
	struct lw_attrib_cfg cfg;
	struct cpu *cpu;
	/* the live spikes, in slots that are reused: each is in one of pend
	 * (not open yet: a heap by expected time), ends (open: a heap by the
	 * end of its window) or wait (closed, waiting for its CPU's next event
	 * to know whether events were lost in its window) */
	struct lw_spike *s;
	size_t cap;
	int *pend, *ends, *wait, *free_slot;
	size_t npend, nends, nwait, nfree;
	uint64_t now;		/* the last event's time */
	struct lost *lost;
	size_t nlost, caplost;
	uint64_t first, last;
	uint64_t first_ev;	/* the first event's time */
	int have_extent, started;
	size_t nwork;		/* work windows open */
	struct task *tasks;
	/* interned strings: a small open-addressing table */
	char **str;
	size_t nstr, capstr;
	/* totals over the spikes whose attribution is final */
	uint64_t n, unattr, total_ns, unattr_ns;
	struct cause *causes;
	size_t ncauses, capc;
	struct late late[LATE_STATES];
	size_t nlate;
	uint64_t late_ns, run_ns, run_spikes;
	/* the cfg.keep largest: a heap by latency, by expected time after
	 * lw_attrib_finish() */
	struct lw_spike *keep;
	size_t nkeep, capkeep;
};

#endif
