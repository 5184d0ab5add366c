// SPDX-License-Identifier: GPL-2.0-only
/*
 * The results store: blob codings, migrations from an older schema, a file
 * from a newer latwatt or not a database at all, two processes adding at
 * once, baselines, and a comparison from the store that equals the one from
 * the run directories.
 */
#include "tests/unit/lw_test.h"
#include "lib/safefile.h"

#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/db.h"
#include "lib/rundir.h"
#include "lib/samples.h"

/* A run directory of @n cyclic samples on two CPUs at 1 kHz, latencies
 * drawn from a lognormal around @median_ns. */
static void make_rundir(const char *path, size_t n, double median_ns, uint64_t seed)
{
	struct lw_rundir rd;
	struct lw_samples_writer *w;
	struct lw_rng r;
	char file[PATH_MAX];
	const uint64_t start = 1000000000ULL;

	assert_int_equal(lw_rundir_create(&rd, path, 0), 0);
	json_object_set_new(rd.manifest, "board", json_string("test-board"));
	json_object_set_new(rd.manifest, "duration_ns", json_integer((json_int_t)(n / 2) * 1000000));
	json_object_set_new(rd.manifest, "seed", json_integer((json_int_t)seed));
	json_object_set_new(rd.manifest, "system", json_pack("{s:{s:s}, s:{s:s, s:b}, s:s}",
		"kernel", "release", "6.12.0-rt", "preempt", "model", "PREEMPT_RT", "rt", 1,
		"nohz_full", "1"));
	lw_manifest_set_status(rd.manifest, "complete", NULL);
	assert_int_equal(lw_rundir_save(&rd), 0);
	w = lw_samples_create(LW_AT_PATH, lw_rundir_file(&rd, "samples", file, sizeof(file)), start);
	assert_non_null(w);
	lw_rng_seed(&r, seed);
	for (size_t i = 0; i < n; i++) {
		struct lw_sample s = {
			.expected_ns = start + (i / 2 + 1) * 1000000,
			.latency_ns = (uint64_t)(median_ns * exp(0.4 * lw_rng_normal(&r))),
			.cpu = (uint16_t)(i % 2),
			.probe = LW_SAMPLE_CYCLIC,
		};

		assert_int_equal(lw_samples_write(w, &s, 1), 0);
	}
	assert_int_equal(lw_samples_close(w), 0);
	lw_rundir_close(&rd);
	lw_rng_free(&r);
}

/* A run to store, not from a directory: manifests differ by @tag. */
static void make_crun(struct lw_crun *r, int tag)
{
	static const uint64_t v[] = { 1000, 2000, 2000, 5000, 70000 };
	struct lw_cprobe *p;

	memset(r, 0, sizeof(*r));
	r->label = strdup("x");
	r->manifest = json_pack("{s:s, s:i}", "status", "complete", "tag", tag);
	p = lw_crun_add_probe(r, LW_SAMPLE_CYCLIC);
	assert_int_equal(lw_dist_from_sorted(&p->d, v, 5), 0);
	assert_int_equal(lw_hist_init(&p->hist, 1000, 10000), 0);
	for (int i = 0; i < 5; i++)
		lw_hist_add(&p->hist, v[i], (uint64_t)i);
	p->nb = 3;
	p->bmax = calloc(3, sizeof(*p->bmax));
	p->bmax[0] = 2001;
	p->bmax[2] = 70001;
}

static void test_blobs(void **st)
{
	static const uint64_t v[] = { 0, 0, 3, 200, 200, 1ULL << 40, UINT64_MAX - 1 };
	/* the format stores of an older latwatt hold: one difference a sample */
	static const unsigned char ls1[] = { 'L', 'S', '1', 5, 0, 0, 3, 0, 0x80, 0x01 };
	struct lw_dist d, back;
	unsigned char *b;
	uint64_t *out;
	size_t len, n;

	assert_int_equal(lw_dist_from_sorted(&d, v, 7), 0);
	b = lw_db_pack_samples(&d, &len);
	assert_non_null(b);
	assert_int_equal(lw_db_unpack_dist(b, len, &back), 0);
	assert_int_equal(back.n, 7);
	assert_int_equal(back.k, 5);
	assert_memory_equal(back.v, d.v, 5 * sizeof(*d.v));
	assert_memory_equal(back.cum, d.cum, 5 * sizeof(*d.cum));
	assert_true(back.sum == d.sum);
	assert_int_equal(back.exact, 1);
	lw_dist_free(&back);
	/* truncated and padded blobs are refused */
	assert_error(lw_db_unpack_dist(b, len - 1, &back) < 0, "stored samples");
	b[2] = '3';
	assert_error(lw_db_unpack_dist(b, len, &back) < 0, "bad header");
	b[2] = '2';
	b[len - 1] = 0;		/* the last value seen 0 times */
	assert_error(lw_db_unpack_dist(b, len, &back) < 0, "corrupt");
	free(b);
	lw_dist_free(&d);
	/* a pair a distinct value, not a byte a sample */
	{
		uint64_t *many = malloc(100000 * sizeof(*many));

		for (int i = 0; i < 100000; i++)
			many[i] = 20000 + (uint64_t)(i / 40000);
		assert_int_equal(lw_dist_from_sorted(&d, many, 100000), 0);
		free(many);
		b = lw_db_pack_samples(&d, &len);
		assert_true(len < 32);
		assert_int_equal(lw_db_unpack_dist(b, len, &back), 0);
		assert_int_equal(back.n, 100000);
		assert_int_equal(lw_dist_percentile(&back, 50), 20001);
		lw_dist_free(&back);
		lw_dist_free(&d);
		free(b);
	}
	/* 0, 0, 3, 3, 131 */
	assert_int_equal(lw_db_unpack_dist(ls1, sizeof(ls1), &back), 0);
	assert_int_equal(back.n, 5);
	assert_int_equal(back.k, 3);
	assert_int_equal(back.v[2], 131);
	assert_int_equal(back.cum[0], 2);
	assert_int_equal(back.cum[1], 4);
	assert_int_equal(back.cum[2], 5);
	assert_true(back.sum == 137);
	lw_dist_free(&back);
	assert_error(lw_db_unpack_dist(ls1, sizeof(ls1) - 1, &back) < 0, "stored samples");
	b = lw_db_pack_u64(v, 7, &len);
	assert_int_equal(lw_db_unpack_u64(b, len, &out, &n), 0);
	assert_memory_equal(out, v, sizeof(v));
	free(out);
	assert_error(lw_db_unpack_u64(b, len - 2, &out, &n) < 0, "block maxima");
	free(b);
}

/* The largest latency per stretch: a long run's coarser width is stored and
 * read back; a store of an older latwatt that kept 10 ms however long the
 * run is folded on reading, keeping every maximum. */
static void test_block_widths(void **st)
{
	char *dir = lw_test_tmpdir(), path[PATH_MAX];
	struct lw_db *db;
	struct lw_crun r, back;
	struct lw_cprobe *p;
	int64_t id;
	int existed;

	snprintf(path, sizeof(path), "%s/w.db", dir);
	db = lw_db_open(path);
	assert_non_null(db);
	make_crun(&r, 7);
	p = &r.p[0];
	free(p->bmax);
	p->nb = LW_BMAX_CAP + 5;
	p->bmax = calloc(p->nb, sizeof(*p->bmax));
	p->bmax[0] = 2001;
	p->bmax[LW_BMAX_CAP + 3] = 90001;
	p->bmax[LW_BMAX_CAP + 4] = 80001;
	assert_int_equal(lw_db_add(db, &r, NULL, 1, &id, &existed), 0);
	assert_int_equal(lw_db_load(db, id, &back), 0);
	assert_int_equal(back.p[0].bmax_ns, 5 * LW_BLOCK_BASE_NS);
	assert_int_equal(back.p[0].nb, (LW_BMAX_CAP + 5 + 4) / 5);
	assert_int_equal(back.p[0].bmax[0], 2001);
	assert_int_equal(back.p[0].bmax[(LW_BMAX_CAP + 3) / 5], 90001);
	/* stored again at its width, read back at it */
	json_decref(back.manifest);
	back.manifest = json_pack("{s:s, s:i}", "status", "complete", "tag", 8);
	lw_crun_free(&r);
	assert_int_equal(lw_db_add(db, &back, NULL, 1, &id, &existed), 0);
	assert_false(existed);
	lw_crun_free(&back);
	assert_int_equal(lw_db_load(db, id, &r), 0);
	assert_int_equal(r.p[0].bmax_ns, 5 * LW_BLOCK_BASE_NS);
	assert_int_equal(r.p[0].nb, (LW_BMAX_CAP + 5 + 4) / 5);
	lw_crun_free(&r);
	lw_db_close(db);
	lw_test_rmdir(dir);
}

static void test_migrations(void **st)
{
	char *dir = lw_test_tmpdir(), path[PATH_MAX];
	struct lw_db *db;
	struct lw_crun r, back;
	int64_t id;
	int existed;
	json_t *list;
	sqlite3 *h;

	snprintf(path, sizeof(path), "%s/r.db", dir);
	/* a store as version 1 wrote it, with a run in it */
	db = lw_db_open_version(path, 1);
	assert_non_null(db);
	assert_int_equal(lw_db_version(db), 1);
	make_crun(&r, 1);
	/* version 1 has no label column: adding needs version 2 */
	assert_error(lw_db_add(db, &r, NULL, 1, &id, &existed) < 0, "label");
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "INSERT INTO runs (ident, added, manifest) VALUES"
				      " ('v1run', '2026-01-01T00:00:00Z', '{\"status\":\"complete\"}')",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	lw_db_close(db);
	/* opened by this latwatt: migrated, the old run kept */
	db = lw_db_open(path);
	assert_non_null(db);
	assert_int_equal(lw_db_version(db), LW_DB_VERSION);
	list = lw_db_list(db);
	assert_int_equal(json_array_size(list), 1);
	assert_true(json_is_null(json_object_get(json_array_get(list, 0), "label")));
	json_decref(list);
	assert_int_equal(lw_db_add(db, &r, "new", 1, &id, &existed), 0);
	assert_false(existed);
	assert_int_equal(id, 2);
	/* the same run again: found, not duplicated */
	assert_int_equal(lw_db_add(db, &r, "new", 1, &id, &existed), 0);
	assert_true(existed);
	assert_int_equal(id, 2);
	assert_int_equal(lw_db_load(db, 2, &back), 0);
	assert_string_equal(back.label, "db:2");
	assert_int_equal(back.np, 1);
	assert_int_equal(back.p[0].d.n, 5);
	assert_true(back.p[0].d.exact);
	assert_int_equal(back.p[0].nb, 3);
	assert_int_equal(back.p[0].bmax[2], 70001);
	assert_int_equal(lw_crun_ident(&back), lw_crun_ident(&r));
	lw_crun_free(&back);
	lw_crun_free(&r);
	lw_db_close(db);
	/* a file from a newer latwatt is refused, untouched */
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_error(lw_db_open(path) == NULL, "schema version 99 is newer than this latwatt knows");
	/* not a database */
	snprintf(path, sizeof(path), "%s/junk.db", dir);
	lw_test_write(path, "this is not sqlite, not at all, really not\n", 43);
	assert_error(lw_db_open(path) == NULL, "junk.db");
	lw_test_rmdir(dir);
}

/* Two processes, each adding 15 runs at the same moment to a new file (so
 * that they race on creating the schema too): every run lands. */
static void test_concurrent_adds(void **st)
{
	char *dir = lw_test_tmpdir(), path[PATH_MAX];
	int go[2];
	pid_t pid[2];
	struct lw_db *db;
	json_t *list;

	snprintf(path, sizeof(path), "%s/shared.db", dir);
	assert_int_equal(pipe(go), 0);
	for (int c = 0; c < 2; c++) {
		pid[c] = fork();
		assert_true(pid[c] >= 0);
		if (pid[c] == 0) {
			char x;
			int bad = 0;

			close(go[1]);
			if (read(go[0], &x, 1) != 0)	/* released when the parent closes */
				_exit(3);
			for (int i = 0; i < 15 && !bad; i++) {
				struct lw_db *d = lw_db_open(path);
				struct lw_crun r;
				int64_t id;
				int existed;

				if (!d)
					_exit(4);
				make_crun(&r, c * 100 + i);
				bad = lw_db_add(d, &r, c ? "child1" : "child0", 1, &id, &existed) < 0 ||
				      existed;
				lw_crun_free(&r);
				lw_db_close(d);
			}
			_exit(bad ? 5 : 0);
		}
	}
	close(go[0]);
	close(go[1]);	/* both start now */
	for (int c = 0; c < 2; c++) {
		int status;

		assert_int_equal(waitpid(pid[c], &status, 0), pid[c]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	db = lw_db_open(path);
	assert_non_null(db);
	list = lw_db_list(db);
	assert_int_equal(json_array_size(list), 30);
	json_decref(list);
	lw_db_close(db);
	lw_test_rmdir(dir);
}

static void test_baselines(void **st)
{
	char *dir = lw_test_tmpdir(), path[PATH_MAX];
	struct lw_db *db;
	struct lw_crun r;
	int64_t id, got;
	int existed;
	json_t *b;

	snprintf(path, sizeof(path), "%s/b.db", dir);
	db = lw_db_open(path);
	make_crun(&r, 7);
	assert_int_equal(lw_db_add(db, &r, NULL, 1, &id, &existed), 0);
	lw_crun_free(&r);
	assert_error(lw_db_baseline_get(db, "release", &got) < 0, "no baseline 'release'");
	assert_int_equal(lw_db_baseline_set(db, "release", id), 0);
	assert_int_equal(lw_db_baseline_get(db, "release", &got), 0);
	assert_int_equal(got, id);
	assert_int_equal(lw_db_resolve(db, "baseline:release", &got), 0);
	assert_int_equal(got, id);
	assert_int_equal(lw_db_resolve(db, "db:12", &got), 0);
	assert_int_equal(got, 12);
	assert_error(lw_db_resolve(db, "db:x1", &got) < 0, "'db:x1' is not a stored run");
	assert_error(lw_db_baseline_set(db, "other", 999) < 0, "no run db:999");
	assert_error(lw_db_baseline_set(db, "a:b", id) < 0, "without ':'");
	assert_error(lw_db_remove(db, id) < 0, "is baseline 'release'");
	b = lw_db_baselines(db);
	assert_int_equal(json_array_size(b), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(b, 0), "name")), "release");
	json_decref(b);
	assert_int_equal(lw_db_baseline_remove(db, "release"), 0);
	assert_int_equal(lw_db_remove(db, id), 0);
	assert_error(lw_db_load(db, id, &r) < 0, "no run db:");
	assert_error(lw_db_remove(db, id) < 0, "no run db:");
	lw_db_close(db);
	lw_test_rmdir(dir);
}

static json_t *metrics_of(json_t *doc)
{
	return json_object_get(json_array_get(json_object_get(doc, "comparisons"), 0), "metrics");
}

/* The metrics over all CPUs (a stored run keeps no per-CPU figures): a new
 * array. */
static json_t *all_cpu_metrics(json_t *doc)
{
	json_t *out = json_array(), *m;
	size_t i;

	json_array_foreach(metrics_of(doc), i, m)
		if (!json_object_get(m, "cpu"))
			json_array_append(out, m);
	return out;
}

static const char *verdict_of_name(json_t *doc)	/* of cyclic.p50 */
{
	size_t i;
	json_t *m;

	json_array_foreach(metrics_of(doc), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), "cyclic.p50"))
			return json_string_value(json_object_get(m, "verdict"));
	return "none";
}

/* Compared from the store, runs give the very same metrics as from their
 * directories; stored without samples, they fall back to the histogram. */
static void test_compare_from_store(void **st)
{
	char *dir = lw_test_tmpdir(), a[PATH_MAX], b[PATH_MAX], path[PATH_MAX];
	struct lw_crun dirs[2], stored[2];
	struct lw_cmp_opts o;
	struct lw_db *db;
	json_t *d1, *d2;
	int64_t id[2];
	int existed;

	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(path, sizeof(path), "%s/s.db", dir);
	make_rundir(a, 8000, 20000, 1);
	make_rundir(b, 8000, 23000, 2);
	assert_int_equal(lw_crun_load_dir(&dirs[0], a), 0);
	assert_int_equal(lw_crun_load_dir(&dirs[1], b), 0);
	assert_int_equal(dirs[0].p[0].d.n, 8000);
	assert_true(dirs[0].p[0].nb >= 399 && dirs[0].p[0].nb <= 401);
	/* per CPU from the samples (they alternate between CPUs 0 and 1) */
	assert_int_equal(dirs[0].p[0].ncpu, 2);
	for (int c = 0; c < 2; c++) {
		assert_int_equal(dirs[0].p[0].cpu[c].cpu_id, c);
		assert_int_equal(dirs[0].p[0].cpu[c].d.n, 4000);
		assert_int_equal(dirs[0].p[0].cpu[c].nb, dirs[0].p[0].nb);
	}
	assert_null(dirs[0].p[0].no_cpu);
	lw_cmp_opts_default(&o);
	o.resamples = 300;
	o.block_ns = 100000000;
	lw_cmp_add_threshold(&o, 30000);
	d1 = lw_compare(dirs, 2, 0, &o);
	assert_non_null(d1);
	db = lw_db_open(path);
	assert_non_null(db);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(lw_db_add(db, &dirs[i], NULL, 1, &id[i], &existed), 0);
		assert_int_equal(lw_db_load(db, id[i], &stored[i]), 0);
		/* the store keeps no per-CPU figures, and says so */
		assert_int_equal(stored[i].p[0].ncpu, 0);
		assert_non_null(strstr(stored[i].p[0].no_cpu, "results store"));
	}
	d2 = lw_compare(stored, 2, 0, &o);
	assert_non_null(d2);
	{
		json_t *m1 = all_cpu_metrics(d1), *m2 = all_cpu_metrics(d2), *pc;

		if (!json_equal(m1, m2)) {
			char *x = json_dumps(m1, JSON_COMPACT), *y = json_dumps(m2, JSON_COMPACT);

			fail_msg("directory and store differ:\n%s\n%s", x, y);
		}
		json_decref(m1);
		json_decref(m2);
		/* per CPU: not from the store, and it says why */
		pc = json_array_get(json_object_get(json_array_get(json_object_get(d2, "comparisons"), 0),
						    "per_cpu"), 0);
		assert_int_equal(json_array_size(json_object_get(pc, "cpus")), 0);
		assert_non_null(strstr(json_string_value(json_object_get(pc, "note")), "results store"));
		assert_int_equal(json_array_size(metrics_of(d2)) + (size_t)json_integer_value(
			json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(d1,
			"comparisons"), 0), "per_cpu"), 0), "shown")), json_array_size(metrics_of(d1)));
	}
	/* one run a side: figures, no verdict */
	assert_string_equal(verdict_of_name(d1), "n/a");
	json_decref(d2);
	/* histogram only */
	lw_crun_free(&stored[0]);
	lw_crun_free(&stored[1]);
	lw_db_close(db);
	snprintf(path, sizeof(path), "%s/h.db", dir);
	db = lw_db_open(path);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(lw_db_add(db, &dirs[i], NULL, 0, &id[i], &existed), 0);
		assert_int_equal(lw_db_load(db, id[i], &stored[i]), 0);
		assert_false(stored[i].p[0].d.exact);
		/* percentiles within the 1 us bucket */
		double exact = (double)lw_dist_percentile(&dirs[i].p[0].d, 99);
		double hist = (double)lw_dist_percentile(&stored[i].p[0].d, 99);
		assert_true(hist >= exact && hist < exact + 1000);
	}
	d2 = lw_compare(stored, 2, 0, &o);
	assert_non_null(d2);
	assert_true(json_is_false(json_object_get(json_object_get(json_object_get(json_array_get(
		json_object_get(d2, "runs"), 0), "probes"), "cyclic"), "exact")));
	json_decref(d1);
	json_decref(d2);
	for (int i = 0; i < 2; i++) {
		lw_crun_free(&dirs[i]);
		lw_crun_free(&stored[i]);
	}
	lw_db_close(db);
	lw_test_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blobs),
		cmocka_unit_test(test_block_widths),
		cmocka_unit_test(test_migrations),
		cmocka_unit_test(test_concurrent_adds),
		cmocka_unit_test(test_baselines),
		cmocka_unit_test(test_compare_from_store),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
