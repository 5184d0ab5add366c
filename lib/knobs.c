// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/journal.h"
#include "lib/knobs.h"
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
	return failed;
}
