/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The restore journal: what a run changed in the kernel, written before each
 * change, so that a run killed with SIGKILL (no exit path runs) can be undone
 * by 'latwatt cleanup' or by the next 'latwatt run'.
 *
 * One JSON file per run, LW_STATE_DIR/run-PID.json, in a directory owned by
 * the user running latwatt and closed to everyone else (root: /run/latwatt,
 * on a tmpfs, so a reboot, which undoes the changes too, also forgets it):
 *
 *   pid, starttime     the run's process (starttime tells a reused pid apart)
 *   rundir             where its .trace-cpuN files are
 *   knobs              [[path, original content], ...] in the order changed
 *   instances          tracefs instances it created
 *   cgroups            cgroups it made for its external loads
 *   tasks              [[tid, starttime, CPU list], ...]: tasks whose CPU
 *                      affinity it changed, with the one they had
 *
 * Every addition rewrites the file atomically before the change is made;
 * a run that ends normally restores what it changed and removes its journal.
 */
#ifndef LW_JOURNAL_H
#define LW_JOURNAL_H

#include <jansson.h>
#include <stdio.h>

#ifndef LW_STATE_DIR
#define LW_STATE_DIR "/run/latwatt"
#endif

struct lw_journal {
	char path[4096];	/* "" when the run keeps no journal */
	json_t *doc;
};

/* Start the journal of this process for a run writing into @rundir.  Where
 * the state directory cannot be made (not root), the run keeps no journal:
 * returns 0 with j->path empty, and says so when root. */
int lw_journal_begin(struct lw_journal *j, const char *rundir);
/* Record, before the change is made: a knob with its original content, or a
 * name in "instances" / "cgroups".  0, or -1 after error() (then do not make
 * the change).  No-ops without a journal. */
int lw_journal_knob(struct lw_journal *j, const char *path, const char *orig);
int lw_journal_add(struct lw_journal *j, const char *list, const char *name);
/* Record, before their affinity is changed, the tasks @items ([tid,
 * starttime, CPU list] each; the reference is taken, whatever happens), in
 * one write. */
int lw_journal_tasks(struct lw_journal *j, json_t *items);
/* The run ended and restored everything: remove the journal. */
void lw_journal_end(struct lw_journal *j);

/* Undo what runs that are gone left behind, from their journals: knobs
 * written back (newest first), instances and cgroups removed (their
 * processes killed), tasks' CPU affinity set back (those still the same
 * task; one gone is skipped), .trace-cpuN files removed; each said on @out (NULL:
 * through note()).  Journal writes cut short by a SIGKILL
 * (run-PID.json.tmp.*: what they were about to record was not changed yet)
 * of runs that are gone are removed.  @dry_run: only say.  Returns the
 * number of journals replayed (and writes removed), or -1 if something
 * could not be undone. */
int lw_journal_replay(FILE *out, int dry_run);
/* Is @rundir the run directory of a live run with a journal? */
int lw_journal_rundir_live(const char *rundir);

/*
 * One run at a time: a run changes kernel settings (RT throttling, timerlat
 * and osnoise knobs, PM QoS) and restores what it found at its end, so a
 * second run started beside it would find the first one's values and put
 * them back under it, or restore the originals while the first still
 * measures.  lw_run_lock() takes LW_STATE_DIR/run.lock (an fcntl lock: the
 * kernel drops it when the process dies, SIGKILL included; its children
 * never hold it) and writes who holds it there; a second run is refused
 * with the pid and run directory of the live one.  0, or -1 after error().
 * Runs that cannot make the state directory (not root) change no kernel
 * settings: they take no lock (their run directories still lock each
 * other out, lib/rundir.h).
 */
int lw_run_lock(const char *output);
void lw_run_unlock(void);

/* Remove the .trace-cpuN files (and temporary files of writes cut short)
 * of a run that is gone from @rundir; the count, or -1. */
int lw_rundir_remove_cpu_files(const char *rundir, FILE *out, int dry_run);

/* Kill everything in the cgroup v2 directory @path (cgroup.kill) and remove
 * it; 0 or -1. */
int lw_cgroup_kill_remove(const char *path);

#endif
