// SPDX-License-Identifier: GPL-2.0-only
/* Whose is a task: the run's own, or not (analysis/tasks.h). */
#include <stdio.h>
#include <string.h>

#include "analysis/tasks.h"

/* Any "tid" or "pid" equal to @pid anywhere under @j. */
static int has_id(const json_t *j, int pid)
{
	const char *k;
	const json_t *v;
	size_t i;

	if (json_is_object(j)) {
		json_object_foreach((json_t *)j, k, v) {
			if ((!strcmp(k, "tid") || !strcmp(k, "pid")) && json_is_integer(v) &&
			    json_integer_value(v) == pid)
				return 1;
			if ((json_is_object(v) || json_is_array(v)) && has_id(v, pid))
				return 1;
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			if ((json_is_integer(v) && json_integer_value(v) == pid) ||
			    ((json_is_object(v) || json_is_array(v)) && has_id(v, pid)))
				return 1;
	}
	return 0;
}

/* The load whose name or program @comm starts with ("stress-ng-cpu" is a
 * worker of the load "stress-ng"); NULL when none. */
static const char *load_by_name(const json_t *loads, const char *comm)
{
	const json_t *l;
	size_t i;

	json_array_foreach(loads, i, l) {
		const char *name = json_string_value(json_object_get(l, "name"));
		const char *prog = json_string_value(json_array_get(json_object_get(l, "argv"), 0));
		const char *base = prog ? strrchr(prog, '/') : NULL;

		base = base ? base + 1 : prog;
		/* comm is at most 15 characters: a prefix of the name also matches */
		if (name && *name && (!strncmp(comm, name, strlen(name)) ||
				      (strlen(comm) == 15 && !strncmp(name, comm, 15))))
			return name;
		if (base && *base && !strncmp(comm, base, strlen(base)))
			return name ? name : base;
	}
	return NULL;
}

int lw_task_of_run(const json_t *m, int pid, const char *comm, char *role, size_t len)
{
	const json_t *probes = json_object_get(m, "probes"), *wl = json_object_get(m, "workloads");
	const json_t *loads = json_object_get(m, "loads"), *tasks = json_object_get(m, "tasks");
	const json_t *v, *l;
	const char *k;
	size_t i;

	role[0] = 0;
	json_object_foreach((json_t *)probes, k, v)
		if (json_is_object(v) && has_id(v, pid)) {
			snprintf(role, len, "probe %s", k);
			return 1;
		}
	json_object_foreach((json_t *)wl, k, v)
		if (has_id(v, pid)) {
			snprintf(role, len, "workload %s", k);
			return 1;
		}
	json_array_foreach(loads, i, l)
		if (has_id(json_object_get(l, "runs"), pid)) {
			snprintf(role, len, "load %s", json_string_value(json_object_get(l, "name")) ?: "");
			return 1;
		}
	if (has_id(json_object_get(tasks, "latwatt"), pid)) {
		snprintf(role, len, "latwatt");
		return 1;
	}
	if (has_id(json_object_get(tasks, "loads"), pid) ||
	    (comm && json_array_size(loads) && load_by_name(loads, comm))) {
		const char *name = comm ? load_by_name(loads, comm) : NULL;

		snprintf(role, len, "load %s", name ? name : "");
		return 1;
	}
	if (!json_is_object(tasks))
		return -1;	/* recorded before runs listed their tasks */
	snprintf(role, len, "not this run");
	return 0;
}

void lw_tasks_annotate(json_t *spikes, const json_t *manifest)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(spikes, "top"), i, e) {
		json_t *t = json_object_get(e, "cause_task");
		char role[96];
		int ours;

		if (!json_is_object(t) || !json_is_integer(json_object_get(t, "pid")))
			continue;
		ours = lw_task_of_run(manifest, (int)json_integer_value(json_object_get(t, "pid")),
				      json_string_value(json_object_get(t, "name")), role, sizeof(role));
		json_object_set_new(t, "this_run", ours < 0 ? json_null() : json_boolean(ours));
		json_object_set_new(t, "role", role[0] ? json_string(role) : json_null());
	}
}
