/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The run directory: one per run.
 *
 *   RUN/manifest.json   what ran, where, when, on which kernel; complete or not
 *   RUN/samples         probe samples (lib/samples.h)
 *   RUN/...             trace.dat, power, workload records, analysis.json
 *
 * manifest.json is written through jansson, atomically (temporary file and
 * rename), first when the run starts (status "running") and again when it
 * ends ("complete" or "incomplete" with a reason).  A run killed with
 * SIGKILL therefore still says "running" and is treated as incomplete.
 */
#ifndef LW_RUNDIR_H
#define LW_RUNDIR_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define LW_MANIFEST_SCHEMA  "latwatt-manifest"
#define LW_MANIFEST_VERSION 1
#define LW_VERSION          "0.1.0"

/* A directory of repeats (latwatt run --repeat): PARENT/repeat.json and one
 * run directory per repeat, PARENT/run-01, run-02 ... */
#define LW_REPEAT_PREFIX "run-"
#define LW_REPEAT_FILE   "repeat.json"

struct lw_rundir {
	char   *path;
	json_t *manifest;	/* owned */
	/* a run being written: the directory, opened once when it was made;
	 * every file of the run is made relative to it (lib/safefile.h), and
	 * it holds the directory's lock.  -1 for a run opened to be read. */
	int     dfd;
};

/* Create @path (and the folders missing above it), every folder on the way
 * checked and none a symlink (lib/safefile.h), and lock it for this process
 * (flock): a run directory another live process writes into is refused,
 * naming it.  An existing non-empty directory is refused unless @force, in
 * which case the files latwatt writes are replaced.  _at: @path's last
 * component made in the directory @dfd (a checked parent). */
int lw_rundir_create(struct lw_rundir *rd, const char *path, int force);
int lw_rundir_create_at(struct lw_rundir *rd, int dfd, const char *path, int force);
/* Lock the directory open at @dfd (@path names it) for this process, or
 * refuse it, naming the live process that holds it.  0 or -1. */
int lw_dir_lock(int dfd, const char *path);
/* Open an existing run directory and load and validate its manifest. */
int lw_rundir_open(struct lw_rundir *rd, const char *path);
/* "@path/@name" into @buf; returns @buf (truncation is an error()). */
const char *lw_rundir_file(const struct lw_rundir *rd, const char *name, char *buf, size_t len);
int lw_rundir_save(struct lw_rundir *rd);
void lw_rundir_close(struct lw_rundir *rd);

/* Manifest helpers. */
int lw_manifest_set_status(json_t *m, const char *status, const char *reason);
const char *lw_manifest_status(const json_t *m);	/* "complete", "incomplete", "running" */
int lw_manifest_is_complete(const json_t *m);
/* How many samples the run wrote to RUN/samples, or UINT64_MAX when the
 * manifest does not say (a run that did not end). */
uint64_t lw_manifest_samples_written(const json_t *m);
/* {"monotonic_ns":…, "realtime_ns":…, "utc":"2026-…Z"} for now. */
json_t *lw_json_timestamp(uint64_t *mono_out);
/* Get or create the object at @key in @parent. */
json_t *lw_json_object_at(json_t *parent, const char *key);

/* Write any JSON value to @path atomically (pretty, sorted keys off); _at:
 * in the directory @dfd (LW_AT_PATH: @path's folder, opened and checked). */
int lw_json_save(const json_t *v, const char *path);
int lw_json_save_at(int dfd, const json_t *v, const char *path);
/* Load a JSON file given by the user (lib/input.h, LW_CAP_JSON); errors
 * name the file, line and column and the problem, never the text there. */
json_t *lw_json_load(const char *path);
/* The same with lib/input.h's @flags (LW_IN_NOFOLLOW for a file of a run
 * directory) and @cap. */
json_t *lw_json_load_flags(const char *path, int flags, uint64_t cap);
/* What is wrong at a jansson error, in words of ours (jansson's text
 * quotes the input). */
const char *lw_json_problem(const json_error_t *err);

#endif
