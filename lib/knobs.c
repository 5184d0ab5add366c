// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/journal.h"
#include "lib/knobs.h"
#include "lib/parse.h"
#include "lib/sysfs.h"

int lw_knob_write(struct lw_knobs *k, const char *path, const char *value)
{
	return lw_knob_write_undo(k, path, value, NULL);
}

int lw_knob_write_undo(struct lw_knobs *k, const char *path, const char *value,
		       const char *undo)
{
	int i;

	for (i = 0; i < k->n; i++)
		if (!strcmp(k->knob[i].path, path))
			break;
	if (i == k->n) {
		char buf[4096];

		if (k->n == LW_MAX_KNOBS)
			return error("too many kernel knobs changed (%d)", LW_MAX_KNOBS);
		if (undo)
			snprintf(buf, sizeof(buf), "%s", undo);
		else if (lw_read_file(path, buf, sizeof(buf)) < 0)
			return error_errno("cannot read %s", path);
		if (lw_journal_knob(k->journal, path, buf) < 0)
			return -1;	/* unchanged: nothing to undo */
		k->knob[i].path = strdup(path);
		k->knob[i].orig = strdup(buf);
		if (!k->knob[i].path || !k->knob[i].orig)
			return error("out of memory");
		k->n++;
	}
	return lw_write_file(path, value);
}

int lw_knob_affinity(struct lw_knobs *k, struct lw_knob_task *m, int n)
{
	json_t *items = json_array();
	int moved = 0;

	if (!items)
		return error("out of memory");
	if (k->ntask + n > k->task_cap) {
		int cap = k->ntask + n + 64;
		struct lw_knob_task *t = realloc(k->task, (size_t)cap * sizeof(*t));

		if (!t) {
			json_decref(items);
			return error("out of memory");
		}
		k->task = t;
		k->task_cap = cap;
	}
	for (int i = 0; i < n; i++) {
		char list[1024];

		lw_format_cpulist(&m[i].from, list, sizeof(list));
		json_array_append_new(items, json_pack("[i, I, s]", m[i].tid,
						       (json_int_t)m[i].start, list));
	}
	if (lw_journal_tasks(k->journal, items) < 0)
		return -1;	/* nothing moved: nothing to undo */
	for (int i = 0; i < n; i++) {
		m[i].err = sched_setaffinity(m[i].tid, sizeof(m[i].to), &m[i].to) < 0 ? errno : 0;
		if (m[i].err)
			continue;
		k->task[k->ntask++] = m[i];
		moved++;
	}
	return moved;
}

int lw_knobs_restore(struct lw_knobs *k)
{
	int failed = 0;

	while (k->n > 0) {
		struct lw_knob *kn = &k->knob[--k->n];

		if (lw_write_file(kn->path, kn->orig) < 0)
			failed++;
		free(kn->path);
		free(kn->orig);
	}
	while (k->ntask > 0) {
		struct lw_knob_task *t = &k->task[--k->ntask];

		if (lw_proc_starttime(t->tid) != t->start)
			continue;	/* gone, or its tid is another task's now */
		if (sched_setaffinity(t->tid, sizeof(t->from), &t->from) < 0 && errno != ESRCH) {
			error_errno("cannot set the CPU affinity of task %d back", t->tid);
			failed++;
		}
	}
	free(k->task);
	k->task = NULL;
	k->task_cap = 0;
	return failed;
}
