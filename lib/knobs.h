/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel knobs changed by a run, saved before the first change and restored
 * on every exit path, in reverse order.  One table, not one copy per knob.
 */
#ifndef LW_KNOBS_H
#define LW_KNOBS_H

#include <sched.h>
#include <stddef.h>

#define LW_MAX_KNOBS 1024	/* --deepest-idle-state: one per CPU and idle state */

struct lw_knob {
	char *path;
	char *orig;	/* content before we first wrote it */
};

/* A task whose CPU affinity a knob changed (lw_knob_affinity()). */
struct lw_knob_task {
	int tid;
	unsigned long long start;	/* its start time: a tid used again is another task */
	cpu_set_t from, to;		/* its affinity before, and the one set */
	int err;			/* lw_knob_affinity(): 0 set, else the errno */
};

struct lw_journal;

struct lw_knobs {
	struct lw_knob knob[LW_MAX_KNOBS];
	int n;
	struct lw_knob_task *task;	/* tasks moved, to set back (grown as needed) */
	int ntask, task_cap;
	struct lw_journal *journal;	/* NULL: none; else each knob is journaled
					 * before it is first written */
};

/* Write @value to @path, saving its content first (once per path, in memory
 * and in the journal). */
int lw_knob_write(struct lw_knobs *k, const char *path, const char *value);
/* The same for a knob whose content cannot be written back as read (a
 * list of flags, one written at a time): @undo is what restores it. */
int lw_knob_write_undo(struct lw_knobs *k, const char *path, const char *value,
		       const char *undo);
/* Set the CPU affinity of the tasks @m[0..n) to their @to, after their
 * @from went into the journal (one write for all: a task that then could
 * not be moved is set back to what it has by a replay, which changes
 * nothing).  Each task's outcome is its @err (0: moved, and kept to be set
 * back; ESRCH: gone meanwhile).  The number moved, or -1 after error()
 * when the journal could not be written (nothing moved). */
int lw_knob_affinity(struct lw_knobs *k, struct lw_knob_task *m, int n);
/* Restore every knob (reverse order), then every task moved that is still
 * the same task (one gone is skipped; one started since is not touched);
 * returns the number that failed. */
int lw_knobs_restore(struct lw_knobs *k);

#endif
