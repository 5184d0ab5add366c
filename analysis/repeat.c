// SPDX-License-Identifier: GPL-2.0-only
/* A directory of repeats as it is on disk (analysis/repeat.h). */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/repeat.h"
#include "analysis/runstate.h"
#include "lib/error.h"
#include "lib/rundir.h"
#include "lib/sort.h"

/* The state of the run at @path into @st; -1 when it has no manifest (not
 * started) or cannot be read. */
static int state_of(const char *path, struct lw_run_state *st)
{
	struct lw_rundir rd;
	int q = lw_set_quiet(1), ret;

	ret = lw_rundir_open(&rd, path);
	lw_set_quiet(q);
	if (ret < 0)
		return -1;
	ret = lw_run_state(&rd, st);
	lw_rundir_close(&rd);
	return ret;
}

int lw_repeat_run_complete(const char *path, char *why, size_t len)
{
	struct lw_run_state st;
	int ok;

	if (state_of(path, &st) < 0)
		return error("%s: %s", path, lw_last_error());
	ok = !strcmp(st.status, "complete");
	snprintf(why, len, "%s%s%s", st.status, *st.reason ? ": " : "", st.reason);
	lw_run_state_free(&st);
	return ok;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "run")),
		      json_string_value(json_object_get(*(json_t *const *)b, "run")));
}

json_t *lw_repeat_runs(const char *parent)
{
	json_t *out = json_array(), **v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	DIR *d = opendir(parent);

	if (!d) {
		json_decref(out);
		error_errno("cannot open %s", parent);
		return NULL;
	}
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		struct lw_run_state st;
		struct stat sb;
		json_t *o;

		if (strncmp(e->d_name, LW_REPEAT_PREFIX, strlen(LW_REPEAT_PREFIX)) ||
		    fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(sb.st_mode))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", parent, e->d_name) >= sizeof(path))
			continue;
		if (state_of(path, &st) < 0) {
			o = json_pack("{s:s, s:s}", "run", e->d_name, "status", "not started");
		} else {
			o = json_pack("{s:s, s:s}", "run", e->d_name, "status", st.status);
			if (*st.reason)
				json_object_set_new(o, "reason", json_string(st.reason));
			lw_run_state_free(&st);
		}
		if (n == cap) {
			json_t **nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));

			if (!nv) {
				json_decref(o);
				break;
			}
			v = nv;
		}
		v[n++] = o;
	}
	closedir(d);
	if (n)
		lw_qsort(v, n, sizeof(*v), cmp_name);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(out, v[i]);
	free(v);
	return out;
}
