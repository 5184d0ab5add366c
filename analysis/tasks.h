/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Whose is a task the trace names: one of the run's own (its probe threads,
 * its workloads' threads, its loads, latwatt's other threads), or not.  The
 * manifest records the ids: each probe thread's and workload thread's
 * "tid", each load run's "pid", and "tasks" ({"latwatt": [...], "loads":
 * [...]}: latwatt's threads and the loads' cgroup as the run ended).
 */
#ifndef LW_TASKS_H
#define LW_TASKS_H

#include <jansson.h>
#include <stddef.h>

/*
 * 1 when task @pid (named @comm) is the run's, with what it is in @role
 * ("probe cyclic", "workload audio", "load hackbench", "latwatt"); 0 when it
 * is not (@role "not this run"); -1 when the manifest cannot tell (a run
 * recorded before the manifest listed its tasks; @role "").
 */
int lw_task_of_run(const json_t *manifest, int pid, const char *comm, char *role, size_t len);

/* Each top spike's "cause_task" in @spikes (analysis.json's "spikes") gets
 * "this_run" (true, false or null) and "role". */
void lw_tasks_annotate(json_t *spikes, const json_t *manifest);

#endif
