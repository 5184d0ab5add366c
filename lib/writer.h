/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The process that writes a run, recorded in its manifest ("writer"), so
 * that a run whose manifest still says "running" can be told apart: its
 * writer alive (it is running) or gone (it was killed: SIGKILL, a crash, a
 * reboot).  And the one change made to the manifest of such a run after
 * the fact: marking it killed.
 *
 *   "writer": {"pid": 1234, "starttime": 567890, "boot_id": "…"}
 *
 * starttime is field 22 of /proc/PID/stat (clock ticks since boot), which
 * tells a reused pid apart; boot_id (/proc/sys/kernel/random/boot_id) a
 * pid from before a reboot, or from another machine.
 */
#ifndef LW_WRITER_H
#define LW_WRITER_H

#include <jansson.h>
#include <stddef.h>

/* This process as a run's writer. */
json_t *lw_writer_json(void);
/* 1 when the writer @w names is alive on this boot, 0 when it is gone, -1
 * when @w names none (a run from before it was recorded). */
int lw_writer_alive(const json_t *w);

/*
 * The manifest of the run in @rundir, which still says "running" and whose
 * writer is gone, marked killed: status "killed", status_reason @why, and
 * "killed": {"marked_by", "at"}.  Only such a manifest is changed (a run
 * that ended, a live one, one whose writer is not @pid when @pid > 0 are
 * left as they are).  Read and written through the run directory's
 * descriptor, the manifest replaced atomically (lib/safefile.h), never
 * through a symlink.  @dry_run: only say.  What it did, in words, into @msg
 * (@len bytes) for the caller to say.  1 marked, 0 left alone, -1 after
 * error().
 */
int lw_manifest_mark_killed(const char *rundir, long pid, const char *by, int dry_run, char *msg,
			    size_t len);

#endif
