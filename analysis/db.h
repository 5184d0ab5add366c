/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The results store: an SQLite file keeping runs and named baselines across
 * kernel versions, so that a run can be compared against after its run
 * directory is gone.
 *
 * Per run it keeps the manifest, RUN/analysis.json when there is one, and per
 * probe: the 1 us histogram over all CPUs, every latency (sorted, delta- and
 * varint-coded: about one byte a sample; left out with --no-samples, when
 * comparisons fall back to the histogram), missed periods, dropped samples,
 * and the largest latency of every 10 ms.  A run loaded back
 * (lw_db_load()) is the same struct lw_crun a run directory gives.
 *
 * The schema is versioned with PRAGMA user_version and brought up to date by
 * numbered migrations, each in one transaction; a file from a newer latwatt
 * is refused.  WAL mode and a busy timeout let several processes add runs at
 * the same time; every write is one BEGIN IMMEDIATE transaction.
 *
 * Default file: $XDG_DATA_HOME/latwatt/results.db, else
 * ~/.local/share/latwatt/results.db (directories created).
 */
#ifndef LW_DB_H
#define LW_DB_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/compare.h"

#define LW_DB_VERSION 3
#define LW_DB_BUSY_MS 10000

struct lw_db;

/* @path NULL: the default file.  NULL after error(). */
struct lw_db *lw_db_open(const char *path);
/* For tests: migrate no further than @version. */
struct lw_db *lw_db_open_version(const char *path, int version);
void lw_db_close(struct lw_db *db);
const char *lw_db_path(const struct lw_db *db);
int lw_db_version(struct lw_db *db);		/* PRAGMA user_version */

/*
 * Store @r (loaded from a directory).  *existed is set when a run with the
 * same manifest is already stored; then nothing changes and *id is its id.
 */
int lw_db_add(struct lw_db *db, const struct lw_crun *r, const char *label, int with_samples,
	      int64_t *id, int *existed);
/* Load run @id as a run to compare, labelled "db:ID". */
int lw_db_load(struct lw_db *db, int64_t id, struct lw_crun *r);
/* Remove run @id; refused while a baseline names it. */
int lw_db_remove(struct lw_db *db, int64_t id);
/* Every run: [{"id", "label", "added", "board", "kernel_release", ...}]. */
json_t *lw_db_list(struct lw_db *db);

/* A baseline is a set of runs (repeats of the reference system): set makes
 * it {id}, add puts one more run in it (creating it when new). */
int lw_db_baseline_set(struct lw_db *db, const char *name, int64_t id);
int lw_db_baseline_add(struct lw_db *db, const char *name, int64_t id);
/* The runs of baseline @name, in the order they were added (allocated). */
int lw_db_baseline_runs(struct lw_db *db, const char *name, int64_t **ids, size_t *n);
int lw_db_baseline_get(struct lw_db *db, const char *name, int64_t *id);
int lw_db_baseline_remove(struct lw_db *db, const char *name);
json_t *lw_db_baselines(struct lw_db *db);	/* [{"name", "run", "set"}] */

/* A stored run named "db:ID", "ID" or "baseline:NAME" into *id. */
int lw_db_resolve(struct lw_db *db, const char *ref, int64_t *id);
/* Is @ref a reference to the store rather than a directory? */
int lw_db_is_ref(const char *ref);

/* The blob codings, exposed for tests. */
unsigned char *lw_db_pack_samples(const struct lw_dist *d, size_t *len);
/* A stored blob of either format into @d (allocated); 0, or -1 after error(). */
int lw_db_unpack_dist(const unsigned char *b, size_t len, struct lw_dist *d);
unsigned char *lw_db_pack_u64(const uint64_t *v, size_t n, size_t *len);
int lw_db_unpack_u64(const unsigned char *b, size_t len, uint64_t **v, size_t *n);

#endif
