// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/db.h"
#include "lib/error.h"
#include "lib/safefile.h"
#include "lib/rundir.h"
#include "lib/samples.h"

struct lw_db {
	sqlite3 *h;
	char *path;
};

/*
 * Migrations: migrations[i] takes the schema from version i to i + 1.
 * Never edit one that has shipped; add the next.
 */
static const char *const migrations[LW_DB_VERSION] = {
	/* 0 -> 1 */
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  ident TEXT NOT NULL UNIQUE,"		/* hash of the manifest */
	"  added TEXT NOT NULL,"		/* UTC, ISO 8601 */
	"  path TEXT,"				/* the directory it was added from */
	"  board TEXT, hostname TEXT, kernel_release TEXT, preempt_model TEXT,"
	"  rt INTEGER, nohz_full TEXT, status TEXT, start_utc TEXT, duration_ns INTEGER,"
	"  manifest TEXT NOT NULL,"		/* manifest.json */
	"  analysis TEXT"			/* RUN/analysis.json, when the run had one */
	");"
	"CREATE TABLE series ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  probe TEXT NOT NULL,"
	"  count INTEGER NOT NULL, missed INTEGER NOT NULL, dropped INTEGER NOT NULL,"
	"  p99_ns INTEGER, max_ns INTEGER,"
	"  histogram TEXT NOT NULL,"		/* lw_hist_json(), 1 us buckets */
	"  samples BLOB,"			/* sorted latencies, delta varints; NULL: none */
	"  block_ns INTEGER NOT NULL,"
	"  block_max BLOB,"			/* largest latency + 1 per block, varints */
	"  PRIMARY KEY (run_id, probe)"
	");"
	"CREATE TABLE baselines ("
	"  name TEXT PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  set_at TEXT NOT NULL"
	");",
	/* 1 -> 2: a label per run; finding runs by kernel */
	"ALTER TABLE runs ADD COLUMN label TEXT;"
	"CREATE INDEX runs_kernel ON runs(kernel_release, board);",
	/* 2 -> 3: a baseline is a set of runs (repeats of the reference) that
	 * grows; baselines.run_id stays the run it was set to */
	"CREATE TABLE baseline_runs ("
	"  name TEXT NOT NULL REFERENCES baselines(name) ON DELETE CASCADE,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  added TEXT NOT NULL,"
	"  PRIMARY KEY (name, run_id)"
	");"
	"INSERT INTO baseline_runs (name, run_id, added) SELECT name, run_id, set_at FROM baselines;",
};

static int dberr(struct lw_db *db, const char *what)
{
	return error("%s: %s: %s", db->path, what, sqlite3_errmsg(db->h));
}

static int exec(struct lw_db *db, const char *sql, const char *what)
{
	char *msg = NULL;

	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error("%s: %s: %s", db->path, what, msg ? msg : sqlite3_errmsg(db->h));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static void rollback(struct lw_db *db)
{
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
}

int lw_db_version(struct lw_db *db)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return dberr(db, "cannot read the schema version");
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (v < 0)
		return dberr(db, "cannot read the schema version");
	return v;
}

static int migrate(struct lw_db *db, int target)
{
	int v;
	char sql[64];

	/* IMMEDIATE: two processes opening a new file do not both migrate */
	if (exec(db, "BEGIN IMMEDIATE", "cannot lock the database") < 0)
		return -1;
	v = lw_db_version(db);
	if (v < 0)
		goto fail;
	if (v > LW_DB_VERSION) {
		error("%s: schema version %d is newer than this latwatt knows (%d): upgrade latwatt",
		      db->path, v, LW_DB_VERSION);
		goto fail;
	}
	for (; v < target; v++) {
		char what[64];

		snprintf(what, sizeof(what), "migration to schema version %d", v + 1);
		if (exec(db, migrations[v], what) < 0)
			goto fail;
	}
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
	if (exec(db, sql, "cannot set the schema version") < 0 ||
	    exec(db, "COMMIT", "cannot commit the migration") < 0)
		goto fail;
	return 0;
fail:
	rollback(db);
	return -1;
}

/*
 * WAL mode is kept in the file, so only whoever creates it switches.  Two
 * processes creating one file at once race for the switch, and SQLite
 * answers the loser "database is locked" at once, without its busy handler:
 * retry for as long as the busy timeout.
 */
static int set_wal(struct lw_db *db)
{
	for (int waited = 0;; waited += 10) {
		sqlite3_stmt *st;
		const char *mode;
		int rc = sqlite3_prepare_v2(db->h, "PRAGMA journal_mode=WAL", -1, &st, NULL);

		if (rc == SQLITE_OK) {
			rc = sqlite3_step(st);
			mode = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
			if (mode && !strcmp(mode, "wal")) {
				sqlite3_finalize(st);
				return 0;
			}
			sqlite3_finalize(st);
		}
		if ((rc & 0xff) == SQLITE_NOTADB)
			return error("%s: not an SQLite database", db->path);
		if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED &&
		     rc != SQLITE_ROW) || waited >= LW_DB_BUSY_MS)
			return dberr(db, "cannot set WAL mode");
		usleep(10000);
	}
}

/*
 * The directory of the database file, created if missing: the part of it
 * that exists (or, for the default path, $XDG_DATA_HOME or $HOME) is checked
 * as a folder chain (lib/safefile.h), every directory created below it is
 * opened without following a symlink, the folder that holds the file is
 * writable by no one else, and the file (and SQLite's files beside it) must
 * be a regular file of ours with one link.  latwatt runs as root:
 * a planted ~/.local/share/latwatt -> /etc must not become a place it writes.
 */
static int check_location(const char *file, size_t keep)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	char dir[PATH_MAX];
	const char *slash = strrchr(file, '/');
	struct stat st;
	int dfd;

	if (!slash || slash == file) {
		snprintf(dir, sizeof(dir), "%s", slash ? "/" : ".");
		keep = strlen(dir);
	} else {
		if ((size_t)(slash - file) >= sizeof(dir))
			return error("%s: path too long", file);
		memcpy(dir, file, (size_t)(slash - file));
		dir[slash - file] = 0;
		while (!keep) {	/* the deepest directory of it that exists */
			size_t k = strlen(dir);

			for (;;) {
				char c = dir[k];
				int found;

				dir[k] = 0;
				found = stat(dir, &st) == 0 || errno != ENOENT;
				dir[k] = c;
				if (found)
					break;
				while (k > 0 && dir[k - 1] != '/')
					k--;
				while (k > 1 && dir[k - 1] == '/')
					k--;
				if (!k)
					break;
			}
			if (!k)
				break;	/* relative, nothing of it exists: walk from "." */
			keep = k;
		}
	}
	dfd = lw_dir_walk(dir, keep > strlen(dir) ? strlen(dir) : keep, 0755);
	if (dfd < 0)
		return -1;
	/* SQLite makes FILE-wal, FILE-shm and FILE-journal beside it by name:
	 * no one else may write into that folder, sticky or not */
	if (lw_dir_check(dfd, dir, 1) < 0) {
		close(dfd);
		return -1;
	}
	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		char name[PATH_MAX];

		snprintf(name, sizeof(name), "%s%s", slash ? slash + 1 : file, suffix[i]);
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
			close(dfd);
			if (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode))
				return error("%s%s is %s: refusing to open it as the results database",
					     file, suffix[i],
					     S_ISLNK(st.st_mode) ? "a symlink" : "not a regular file");
			if (st.st_uid != geteuid())
				return error("%s%s belongs to uid %u, not to uid %u running latwatt: "
					     "refusing to open it as the results database", file,
					     suffix[i], (unsigned)st.st_uid, (unsigned)geteuid());
			return error("%s%s has %u links: refusing to open it as the results "
				     "database", file, suffix[i], (unsigned)st.st_nlink);
		}
	}
	close(dfd);
	return 0;
}

/* @keep: the length of the environment's part of the path */
static int default_path(char *buf, size_t len, size_t *keep)
{
	const char *x = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	int n;

	if (x && x[0] == '/') {	/* the spec says relative values are ignored */
		n = snprintf(buf, len, "%s/latwatt/results.db", x);
		if (keep)
			*keep = strlen(x);
	} else if (home && *home) {
		n = snprintf(buf, len, "%s/.local/share/latwatt/results.db", home);
		if (keep)
			*keep = strlen(home);
	} else {
		return error("no --db given, and neither XDG_DATA_HOME nor HOME is set");
	}
	if (n < 0 || (size_t)n >= len)
		return error("results database path too long");
	return 0;
}

struct lw_db *lw_db_open_version(const char *path, int version)
{
	struct lw_db *db = calloc(1, sizeof(*db));
	char def[PATH_MAX];
	size_t keep = 0;

	if (!db) {
		error("out of memory");
		return NULL;
	}
	if (!path) {
		if (default_path(def, sizeof(def), &keep) < 0) {
			free(db);
			return NULL;
		}
		path = def;
	}
	if (check_location(path, keep) < 0) {
		free(db);
		return NULL;
	}
	db->path = strdup(path);
	if (!db->path) {
		free(db);
		error("out of memory");
		return NULL;
	}
	if (sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		error("%s: cannot open: %s", path, db->h ? sqlite3_errmsg(db->h) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(db->h, LW_DB_BUSY_MS);
	sqlite3_extended_result_codes(db->h, 1);
	/* A file that is not a database fails here, on its first read. */
	if (set_wal(db) < 0 ||
	    exec(db, "PRAGMA foreign_keys=ON", "cannot enable foreign keys") < 0 ||
	    exec(db, "PRAGMA synchronous=NORMAL", "cannot set synchronous") < 0 ||
	    migrate(db, version) < 0)
		goto fail;
	return db;
fail:
	lw_db_close(db);
	return NULL;
}

struct lw_db *lw_db_open(const char *path)
{
	return lw_db_open_version(path, LW_DB_VERSION);
}

void lw_db_close(struct lw_db *db)
{
	if (!db)
		return;
	sqlite3_close(db->h);
	free(db->path);
	free(db);
}

const char *lw_db_path(const struct lw_db *db)
{
	return db->path;
}

/* ---- blob codings -------------------------------------------------- */

struct buf {
	unsigned char *b;
	size_t n, cap;
};

static int put_varint(struct buf *b, uint64_t v)
{
	if (b->n + 10 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		unsigned char *nb = realloc(b->b, cap);

		if (!nb)
			return -1;
		b->b = nb;
		b->cap = cap;
	}
	while (v >= 0x80) {
		b->b[b->n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	b->b[b->n++] = (unsigned char)v;
	return 0;
}

static int get_varint(const unsigned char *b, size_t len, size_t *pos, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		unsigned char c;

		if (*pos >= len)
			return -1;
		c = b[(*pos)++];
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/*
 * A probe's exact latencies: "LS2", the sample count, the count of distinct
 * values, then per distinct value (ascending) its difference to the one
 * before and how many samples had it: as large as the distribution, not as
 * the run.  Stores written before held "LS1", the count and one difference
 * per sample (0 for a repeat); both are read.
 */
unsigned char *lw_db_pack_samples(const struct lw_dist *d, size_t *len)
{
	struct buf b = { 0 };
	uint64_t prev = 0, done = 0;
	/* the magic goes in as three one-byte varints: 'L', 'S', '2' < 0x80 */
	int bad = put_varint(&b, 'L') < 0 || put_varint(&b, 'S') < 0 || put_varint(&b, '2') < 0 ||
		  put_varint(&b, d->n) < 0 || put_varint(&b, d->k) < 0;

	for (size_t i = 0; i < d->k && !bad; i++) {
		bad = put_varint(&b, d->v[i] - prev) < 0 || put_varint(&b, d->cum[i] - done) < 0;
		prev = d->v[i];
		done = d->cum[i];
	}
	if (bad) {
		free(b.b);
		error("out of memory");
		return NULL;
	}
	*len = b.n;
	return b.b;
}

int lw_db_unpack_dist(const unsigned char *b, size_t len, struct lw_dist *d)
{
	size_t pos = 3, cap = 0;
	uint64_t cnt, k, prev = 0, seen = 0, run = 0, at = 0;
	int v2;

	memset(d, 0, sizeof(*d));
	if (len < 4 || memcmp(b, "LS", 2) || (b[2] != '1' && b[2] != '2') ||
	    get_varint(b, len, &pos, &cnt) < 0)
		return error("stored samples: bad header");
	v2 = b[2] == '2';
	if (v2 ? get_varint(b, len, &pos, &k) < 0 || k > cnt || k > (len - pos) / 2
	       : cnt > len - pos)	/* at least a byte a sample */
		return error("stored samples: bad header");
	if (!v2)
		k = cnt;
	/* each value goes in with its count once the next one differs (LS1
	 * repeats a value as differences of 0) */
	for (at = 0; at < k; at++) {
		uint64_t dv, c = 1;

		if (get_varint(b, len, &pos, &dv) < 0 || prev + dv < prev ||
		    (v2 && (get_varint(b, len, &pos, &c) < 0 || !c || c > cnt - seen)) ||
		    (at && v2 && !dv))
			goto corrupt;
		if (run && dv && lw_dist_push(d, &cap, prev, run) < 0)
			goto fail;
		run = dv || !at ? c : run + c;
		prev += dv;
		seen += c;
	}
	if (run && lw_dist_push(d, &cap, prev, run) < 0)
		goto fail;
	if (pos != len) {
		lw_dist_free(d);
		return error("stored samples: %zu bytes after the last sample", len - pos);
	}
	if (seen != cnt)
		goto corrupt;
	lw_dist_fit(d);
	d->exact = 1;
	d->resolution_ns = 1;
	return 0;
corrupt:
	lw_dist_free(d);
	return error("stored samples: corrupt at value %" PRIu64, at);
fail:
	lw_dist_free(d);
	return -1;
}

unsigned char *lw_db_pack_u64(const uint64_t *v, size_t n, size_t *len)
{
	struct buf b = { 0 };
	int bad = put_varint(&b, n) < 0;

	for (size_t i = 0; i < n && !bad; i++)
		bad = put_varint(&b, v[i]) < 0;
	if (bad) {
		free(b.b);
		error("out of memory");
		return NULL;
	}
	*len = b.n;
	return b.b;
}

int lw_db_unpack_u64(const unsigned char *b, size_t len, uint64_t **out, size_t *n)
{
	size_t pos = 0;
	uint64_t cnt, *v;

	if (get_varint(b, len, &pos, &cnt) < 0 || cnt > len - pos)
		return error("stored block maxima: bad header");
	v = malloc((cnt ? cnt : 1) * sizeof(*v));
	if (!v)
		return error("out of memory");
	for (uint64_t i = 0; i < cnt; i++)
		if (get_varint(b, len, &pos, &v[i]) < 0) {
			free(v);
			return error("stored block maxima: corrupt at %" PRIu64, i);
		}
	if (pos != len) {
		free(v);
		return error("stored block maxima: trailing bytes");
	}
	*out = v;
	*n = (size_t)cnt;
	return 0;
}

/* ---- runs ------------------------------------------------------------- */

static void utc_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int bind_json_str(sqlite3_stmt *st, int i, const json_t *v)
{
	const char *s = json_string_value(v);

	return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

static int find_ident(struct lw_db *db, const char *ident, int64_t *id)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db->h, "SELECT id FROM runs WHERE ident = ?", -1, &st, NULL) != SQLITE_OK)
		return dberr(db, "cannot look up a run");
	sqlite3_bind_text(st, 1, ident, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return dberr(db, "cannot look up a run");
	return rc == SQLITE_ROW;
}

static int add_series(struct lw_db *db, int64_t id, const struct lw_cprobe *p, int with_samples)
{
	static const char sql[] =
		"INSERT INTO series (run_id, probe, count, missed, dropped, p99_ns, max_ns, histogram,"
		" samples, block_ns, block_max) VALUES (?,?,?,?,?,?,?,?,?,?,?)";
	sqlite3_stmt *st;
	json_t *hj = lw_hist_json(&p->hist);
	char *hist = json_dumps(hj, JSON_COMPACT);
	unsigned char *smp = NULL, *bm = NULL;
	size_t smp_len = 0, bm_len = 0;
	int ret = -1;

	json_decref(hj);
	if (!hist)
		return error("out of memory");
	if (with_samples && p->d.exact && !(smp = lw_db_pack_samples(&p->d, &smp_len)))
		goto out;
	if (p->nb && !(bm = lw_db_pack_u64(p->bmax, p->nb, &bm_len)))
		goto out;
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
		dberr(db, "cannot store a probe");
		goto out;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, lw_probe_name(p->probe), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)p->d.n);
	/* -1: not recorded (imported from cyclictest) */
	sqlite3_bind_int64(st, 4, p->missed_unknown ? -1 : (sqlite3_int64)p->missed);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)p->dropped);
	if (p->d.n) {
		sqlite3_bind_int64(st, 6, (sqlite3_int64)lw_dist_percentile(&p->d, 99));
		sqlite3_bind_int64(st, 7, (sqlite3_int64)p->d.v[p->d.k - 1]);
	}
	sqlite3_bind_text(st, 8, hist, -1, SQLITE_STATIC);
	if (smp)
		sqlite3_bind_blob64(st, 9, smp, smp_len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 10, (sqlite3_int64)p->bmax_ns);
	if (bm)
		sqlite3_bind_blob64(st, 11, bm, bm_len, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		dberr(db, "cannot store a probe");
	else
		ret = 0;
	sqlite3_finalize(st);
out:
	free(hist);
	free(smp);
	free(bm);
	return ret;
}

int lw_db_add(struct lw_db *db, const struct lw_crun *r, const char *label, int with_samples,
	      int64_t *id, int *existed)
{
	static const char sql[] =
		"INSERT INTO runs (ident, added, path, board, hostname, kernel_release, preempt_model,"
		" rt, nohz_full, status, start_utc, duration_ns, manifest, analysis, label)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	const json_t *m = r->manifest, *sys = json_object_get(m, "system");
	const json_t *pre = json_object_get(sys, "preempt"), *dur = json_object_get(m, "duration_ns");
	char ident[32], now[32], *man = NULL, *an = NULL;
	sqlite3_stmt *st = NULL;
	int found;

	*existed = 0;
	snprintf(ident, sizeof(ident), "%016" PRIx64, lw_crun_ident(r));
	utc_now(now, sizeof(now));
	man = json_dumps(m, JSON_COMPACT | JSON_PRESERVE_ORDER);
	an = r->analysis ? json_dumps(r->analysis, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	if (!man || (r->analysis && !an)) {
		free(man);
		free(an);
		return error("out of memory");
	}
	if (exec(db, "BEGIN IMMEDIATE", "cannot lock the database") < 0)
		goto fail_free;
	found = find_ident(db, ident, id);
	if (found < 0)
		goto fail;
	if (found) {
		*existed = 1;
		rollback(db);
		free(man);
		free(an);
		return 0;
	}
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
		dberr(db, "cannot store the run");
		goto fail;
	}
	sqlite3_bind_text(st, 1, ident, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, now, -1, SQLITE_STATIC);
	if (r->path)
		sqlite3_bind_text(st, 3, r->path, -1, SQLITE_STATIC);
	bind_json_str(st, 4, json_object_get(m, "board"));
	bind_json_str(st, 5, json_object_get(sys, "hostname"));
	bind_json_str(st, 6, json_object_get(json_object_get(sys, "kernel"), "release"));
	bind_json_str(st, 7, json_object_get(pre, "model"));
	if (json_is_boolean(json_object_get(pre, "rt")))
		sqlite3_bind_int(st, 8, json_is_true(json_object_get(pre, "rt")));
	bind_json_str(st, 9, json_object_get(sys, "nohz_full"));
	sqlite3_bind_text(st, 10, lw_manifest_status(m), -1, SQLITE_TRANSIENT);
	bind_json_str(st, 11, json_object_get(json_object_get(m, "start"), "utc"));
	if (json_is_integer(dur))
		sqlite3_bind_int64(st, 12, json_integer_value(dur));
	sqlite3_bind_text(st, 13, man, -1, SQLITE_STATIC);
	if (an)
		sqlite3_bind_text(st, 14, an, -1, SQLITE_STATIC);
	if (label)
		sqlite3_bind_text(st, 15, label, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		dberr(db, "cannot store the run");
		goto fail;
	}
	sqlite3_finalize(st);
	st = NULL;
	*id = sqlite3_last_insert_rowid(db->h);
	for (size_t i = 0; i < r->np; i++)
		if (add_series(db, *id, &r->p[i], with_samples) < 0)
			goto fail;
	if (exec(db, "COMMIT", "cannot commit the run") < 0)
		goto fail;
	free(man);
	free(an);
	return 0;
fail:
	sqlite3_finalize(st);
	rollback(db);
fail_free:
	free(man);
	free(an);
	return -1;
}

static int load_series(struct lw_db *db, int64_t id, struct lw_crun *r)
{
	static const char sql[] = "SELECT probe, missed, dropped, histogram, samples, block_ns,"
				  " block_max FROM series WHERE run_id = ? ORDER BY rowid";
	sqlite3_stmt *st;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return dberr(db, "cannot read a run");
	sqlite3_bind_int64(st, 1, id);
	while (ret == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *pn = (const char *)sqlite3_column_text(st, 0);
		const char *hist = (const char *)sqlite3_column_text(st, 3);
		int probe = pn ? lw_probe_by_name(pn) : -1;
		struct lw_cprobe *p;
		json_error_t jerr;
		sqlite3_int64 bw;
		json_t *hj;

		bw = sqlite3_column_int64(st, 5);
		/* 10 ms, or a coarser width of a long run (analysis/compare.h) */
		if (probe < 0 || !hist || bw < (sqlite3_int64)LW_BLOCK_BASE_NS ||
		    bw % (sqlite3_int64)LW_BLOCK_BASE_NS || bw > (sqlite3_int64)1000000000000000LL) {
			ret = error("%s: run %" PRId64 ": probe '%s': unreadable row", db->path, id,
				    pn ? pn : "?");
			break;
		}
		p = lw_crun_add_probe(r, (unsigned)probe);
		if (!p) {
			ret = -1;
			break;
		}
		p->bmax_ns = (uint64_t)bw;
		p->no_cpu = "a run from the results store keeps its figures over all CPUs only";
		p->missed_unknown = sqlite3_column_int64(st, 1) < 0;
		p->missed = p->missed_unknown ? 0 : (uint64_t)sqlite3_column_int64(st, 1);
		p->dropped = (uint64_t)sqlite3_column_int64(st, 2);
		hj = json_loads(hist, 0, &jerr);
		if (!hj || lw_hist_from_json(&p->hist, hj) < 0) {
			json_decref(hj);
			ret = error("%s: run %" PRId64 ": probe %s: bad histogram", db->path, id, pn);
			break;
		}
		json_decref(hj);
		if (sqlite3_column_type(st, 4) == SQLITE_BLOB) {
			if (lw_db_unpack_dist(sqlite3_column_blob(st, 4),
					      (size_t)sqlite3_column_bytes(st, 4), &p->d) < 0) {
				ret = error("%s: run %" PRId64 ": probe %s: %s", db->path, id, pn,
					    lw_last_error());
				break;
			}
		} else {
			ret = lw_dist_from_hist(&p->d, &p->hist);
			p->from_hist = 1;
		}
		if (ret == 0 && sqlite3_column_type(st, 6) == SQLITE_BLOB &&
		    lw_db_unpack_u64(sqlite3_column_blob(st, 6), (size_t)sqlite3_column_bytes(st, 6),
				     &p->bmax, &p->nb) < 0)
			ret = error("%s: run %" PRId64 ": probe %s: %s", db->path, id, pn, lw_last_error());
		/* stored by an older latwatt at 10 ms however long the run */
		if (ret == 0 && lw_bmax_coarsen(p, LW_BMAX_CAP) < 0)
			ret = -1;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = dberr(db, "cannot read a run");
	sqlite3_finalize(st);
	return ret;
}

int lw_db_load(struct lw_db *db, int64_t id, struct lw_crun *r)
{
	static const char sql[] = "SELECT manifest, analysis, path FROM runs WHERE id = ?";
	sqlite3_stmt *st;
	json_error_t jerr;
	char label[32];
	int rc, bad_analysis;

	memset(r, 0, sizeof(*r));
	if (sqlite3_exec(db->h, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)	/* one snapshot */
		return dberr(db, "cannot read");
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
		rollback(db);
		return dberr(db, "cannot read a run");
	}
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		rollback(db);
		return rc == SQLITE_DONE ? error("%s: no run db:%" PRId64 " (see 'latwatt db list')",
						 db->path, id) : dberr(db, "cannot read a run");
	}
	snprintf(label, sizeof(label), "db:%" PRId64, id);
	r->label = strdup(label);
	r->db_id = id;
	if (sqlite3_column_type(st, 2) == SQLITE_TEXT)
		r->path = strdup((const char *)sqlite3_column_text(st, 2));
	r->manifest = json_loads((const char *)sqlite3_column_text(st, 0), 0, &jerr);
	bad_analysis = sqlite3_column_type(st, 1) == SQLITE_TEXT &&
		       !(r->analysis = json_loads((const char *)sqlite3_column_text(st, 1), 0, &jerr));
	sqlite3_finalize(st);
	if (!r->label || !r->manifest || bad_analysis) {
		rollback(db);
		lw_crun_free(r);
		return error("%s: run db:%" PRId64 ": stored %s unreadable", db->path, id,
			     bad_analysis ? "analysis" : "manifest");
	}
	if (load_series(db, id, r) < 0) {
		rollback(db);
		lw_crun_free(r);
		return -1;
	}
	rollback(db);	/* read-only: nothing to commit */
	return 0;
}

int lw_db_remove(struct lw_db *db, int64_t id)
{
	sqlite3_stmt *st;
	int rc;
	char *name = NULL;

	if (exec(db, "BEGIN IMMEDIATE", "cannot lock the database") < 0)
		return -1;
	if (sqlite3_prepare_v2(db->h, "SELECT name FROM baselines WHERE run_id = ?1 UNION"
			       " SELECT name FROM baseline_runs WHERE run_id = ?1", -1, &st,
			       NULL) != SQLITE_OK)
		goto fail_db;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		name = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (name) {
		error("%s: run db:%" PRId64 " is baseline '%s': set the baseline to another run first",
		      db->path, id, name);
		free(name);
		goto fail;
	}
	if (sqlite3_prepare_v2(db->h, "DELETE FROM runs WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		goto fail_db;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto fail_db;
	if (!sqlite3_changes(db->h)) {
		error("%s: no run db:%" PRId64, db->path, id);
		goto fail;
	}
	return exec(db, "COMMIT", "cannot commit");
fail_db:
	dberr(db, "cannot remove a run");
fail:
	rollback(db);
	return -1;
}

static json_t *column_json(sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return json_integer(sqlite3_column_int64(st, i));
	case SQLITE_FLOAT:
		return json_real(sqlite3_column_double(st, i));
	case SQLITE_TEXT:
		return json_string((const char *)sqlite3_column_text(st, i));
	default:
		return json_null();
	}
}

/* Rows of @sql as objects keyed by column name. */
static json_t *query_json(struct lw_db *db, const char *sql)
{
	sqlite3_stmt *st;
	json_t *rows;
	int rc;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
		dberr(db, "cannot list");
		return NULL;
	}
	rows = json_array();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *o = json_object();

		for (int i = 0; i < sqlite3_column_count(st); i++)
			json_object_set_new(o, sqlite3_column_name(st, i), column_json(st, i));
		json_array_append_new(rows, o);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		json_decref(rows);
		dberr(db, "cannot list");
		return NULL;
	}
	return rows;
}

json_t *lw_db_list(struct lw_db *db)
{
	return query_json(db,
		"SELECT r.id, r.label, r.added, r.board, r.hostname, r.kernel_release, r.preempt_model,"
		" r.rt, r.nohz_full, r.status, r.start_utc, r.duration_ns, r.path,"
		" (SELECT group_concat(name, ',') FROM baseline_runs b WHERE b.run_id = r.id) AS baselines,"
		" s.count AS cyclic_count, s.p99_ns AS cyclic_p99_ns, s.max_ns AS cyclic_max_ns,"
		" s.samples IS NOT NULL AS samples_stored"
		" FROM runs r LEFT JOIN series s ON s.run_id = r.id AND s.probe = 'cyclic'"
		" ORDER BY r.id");
}

static int baseline_put(struct lw_db *db, const char *name, int64_t id, int reset);

int lw_db_baseline_set(struct lw_db *db, const char *name, int64_t id)
{
	return baseline_put(db, name, id, 1);
}

/* One statement with a name, an id and a time bound (as many of them as
 * it has placeholders). */
static int exec_name_id(struct lw_db *db, const char *sql, const char *name, int64_t id,
			const char *when)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return dberr(db, "cannot set a baseline");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, id);
	if (sqlite3_bind_parameter_count(st) >= 3)
		sqlite3_bind_text(st, 3, when, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		return error("%s: no run db:%" PRId64, db->path, id);
	if (rc != SQLITE_DONE)
		return dberr(db, "cannot set a baseline");
	return 0;
}

static int baseline_put(struct lw_db *db, const char *name, int64_t id, int reset)
{
	char now[32];

	if (!*name || strchr(name, ':'))
		return error("baseline name '%s': must be non-empty and without ':'", name);
	utc_now(now, sizeof(now));
	if (exec(db, "BEGIN IMMEDIATE", "cannot lock the database") < 0)
		return -1;
	if (exec_name_id(db, reset ?
			 "INSERT INTO baselines (name, run_id, set_at) VALUES (?, ?, ?)"
			 " ON CONFLICT(name) DO UPDATE SET run_id = excluded.run_id,"
			 " set_at = excluded.set_at" :
			 "INSERT INTO baselines (name, run_id, set_at) VALUES (?, ?, ?)"
			 " ON CONFLICT(name) DO NOTHING", name, id, now) < 0 ||
	    (reset && exec_name_id(db, "DELETE FROM baseline_runs WHERE name = ? AND run_id != ?", name, id, now) < 0) ||
	    exec_name_id(db, "INSERT INTO baseline_runs (name, run_id, added) VALUES (?, ?, ?)"
			 " ON CONFLICT DO NOTHING", name, id, now) < 0) {
		rollback(db);
		return -1;
	}
	return exec(db, "COMMIT", "cannot set a baseline");
}

int lw_db_baseline_add(struct lw_db *db, const char *name, int64_t id)
{
	return baseline_put(db, name, id, 0);
}

int lw_db_baseline_runs(struct lw_db *db, const char *name, int64_t **ids, size_t *n)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db->h, "SELECT run_id FROM baseline_runs WHERE name = ?"
			       " ORDER BY added, run_id", -1, &st, NULL) != SQLITE_OK)
		return dberr(db, "cannot read a baseline");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			int64_t *v = realloc(*ids, (cap = cap ? 2 * cap : 16) * sizeof(*v));

			if (!v) {
				sqlite3_finalize(st);
				free(*ids);
				*ids = NULL;
				return error("out of memory");
			}
			*ids = v;
		}
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(*ids);
		*ids = NULL;
		return dberr(db, "cannot read a baseline");
	}
	if (!*n)
		return error("%s: no baseline '%s' (see 'latwatt db baseline list')", db->path, name);
	return 0;
}

int lw_db_baseline_get(struct lw_db *db, const char *name, int64_t *id)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db->h, "SELECT run_id FROM baselines WHERE name = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return dberr(db, "cannot read a baseline");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return error("%s: no baseline '%s' (see 'latwatt db baseline list')", db->path, name);
	if (rc != SQLITE_ROW)
		return dberr(db, "cannot read a baseline");
	return 0;
}

int lw_db_baseline_remove(struct lw_db *db, const char *name)
{
	sqlite3_stmt *st;
	int rc;

	if (exec_name_id(db, "DELETE FROM baseline_runs WHERE name = ?", name, 0, "") < 0)
		return -1;
	if (sqlite3_prepare_v2(db->h, "DELETE FROM baselines WHERE name = ?", -1, &st, NULL) != SQLITE_OK)
		return dberr(db, "cannot remove a baseline");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return dberr(db, "cannot remove a baseline");
	if (!sqlite3_changes(db->h))
		return error("%s: no baseline '%s'", db->path, name);
	return 0;
}

json_t *lw_db_baselines(struct lw_db *db)
{
	return query_json(db, "SELECT b.name, b.run_id AS run, b.set_at AS \"set\", r.kernel_release,"
			      " r.board, r.label, (SELECT count(*) FROM baseline_runs x"
			      " WHERE x.name = b.name) AS runs FROM baselines b JOIN runs r ON r.id = b.run_id"
			      " ORDER BY b.name");
}

int lw_db_is_ref(const char *ref)
{
	return !strncmp(ref, "db:", 3) || !strncmp(ref, "baseline:", 9);
}

int lw_db_resolve(struct lw_db *db, const char *ref, int64_t *id)
{
	const char *s = ref;
	char *end;
	long long v;

	if (!strncmp(ref, "baseline:", 9))
		return lw_db_baseline_get(db, ref + 9, id);
	if (!strncmp(ref, "db:", 3))
		s = ref + 3;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno || v <= 0)
		return error("'%s' is not a stored run (db:ID, ID or baseline:NAME)", ref);
	*id = v;
	return 0;
}
