/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel knobs changed by a run, saved before the first change and restored
 * on every exit path, in reverse order.  One table, not one copy per knob.
 */
#ifndef LW_KNOBS_H
#define LW_KNOBS_H

#include <stddef.h>

#define LW_MAX_KNOBS 1024	/* --deepest-idle-state: one per CPU and idle state */

struct lw_knob {
	char *path;
	char *orig;	/* content before we first wrote it */
};

struct lw_journal;

struct lw_knobs {
	struct lw_knob knob[LW_MAX_KNOBS];
	int n;
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
/* Restore every knob (reverse order); returns the number that failed. */
int lw_knobs_restore(struct lw_knobs *k);

#endif
