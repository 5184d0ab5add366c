// SPDX-License-Identifier: GPL-2.0-only
/* Run directory and manifest: creation rules, round trip, validation. */
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "lib/rundir.h"
#include "lib/sysinfo.h"

static char *dir;

static int setup(void **st) { dir = lw_test_tmpdir(); return 0; }
static int teardown(void **st) { lw_test_rmdir(dir); return 0; }

static void test_manifest_round_trip(void **st)
{
	struct lw_rundir rd, back;
	char run[256];
	json_t *sys = lw_sysinfo_collect(NULL);

	snprintf(run, sizeof(run), "%s/a/b/run", dir);
	assert_int_equal(lw_rundir_create(&rd, run, 0), 0);
	json_object_set_new(rd.manifest, "start", lw_json_timestamp(NULL));
	json_object_set_new(rd.manifest, "system", sys);
	json_object_set_new(rd.manifest, "name", json_string("tab\t\"quote\" ünïcode"));
	lw_manifest_set_status(rd.manifest, "incomplete", "interrupted by SIGINT");
	assert_int_equal(lw_rundir_save(&rd), 0);

	assert_int_equal(lw_rundir_open(&back, run), 0);
	assert_true(json_equal(rd.manifest, back.manifest));
	assert_string_equal(lw_manifest_status(back.manifest), "incomplete");
	assert_false(lw_manifest_is_complete(back.manifest));
	lw_manifest_set_status(back.manifest, "complete", NULL);
	assert_null(json_object_get(back.manifest, "status_reason"));
	assert_true(lw_manifest_is_complete(back.manifest));
	lw_rundir_close(&rd);
	lw_rundir_close(&back);
}

static void test_refuses_non_empty(void **st)
{
	struct lw_rundir rd;
	char run[256], file[300];

	snprintf(run, sizeof(run), "%s/run", dir);
	assert_int_equal(mkdir(run, 0755), 0);
	assert_int_equal(lw_rundir_create(&rd, run, 0), 0);	/* empty: fine */
	lw_rundir_close(&rd);
	snprintf(file, sizeof(file), "%s/keep", run);
	lw_test_write(file, "x", 1);
	assert_error(lw_rundir_create(&rd, run, 0) < 0, "exists and is not empty (use --force");
	assert_int_equal(access(file, F_OK), 0);		/* nothing removed */
	assert_int_equal(lw_rundir_create(&rd, run, 1), 0);
	lw_rundir_close(&rd);
	assert_error(lw_rundir_create(&rd, file, 1) < 0, "is not a directory");
}

/* The run directory is opened once: its files follow it when it is renamed,
 * never a symlink put in its place; a second writer is refused while the
 * first holds it. */
static void test_written_through_its_descriptor(void **st)
{
	struct lw_rundir rd, other;
	char run[256], moved[256], elsewhere[256], file[300];

	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(moved, sizeof(moved), "%s/moved", dir);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", dir);
	assert_int_equal(lw_rundir_create(&rd, run, 0), 0);
	assert_true(rd.dfd >= 0);
	assert_error(lw_rundir_create(&other, run, 1) < 0, "a live run writes into it (pid ");
	assert_int_equal(mkdir(elsewhere, 0755), 0);
	assert_int_equal(rename(run, moved), 0);
	assert_int_equal(symlink(elsewhere, run), 0);
	assert_int_equal(lw_rundir_save(&rd), 0);
	snprintf(file, sizeof(file), "%s/manifest.json", moved);
	assert_int_equal(access(file, F_OK), 0);
	snprintf(file, sizeof(file), "%s/manifest.json", elsewhere);
	assert_int_equal(access(file, F_OK), -1);
	lw_rundir_close(&rd);
	assert_int_equal(rd.dfd, -1);
	/* closed: the lock is gone with it */
	assert_int_equal(lw_rundir_create(&other, moved, 1), 0);
	lw_rundir_close(&other);
}

static void test_open_rejects_bad_manifests(void **st)
{
	static const struct { const char *text, *err; } bad[] = {
		{ "{\"schema\": \"latwatt-manifest\", \"version\": 1,,}", "manifest.json:1:" },
		{ "[]", "not a JSON object" },
		{ "{\"schema\": \"other\", \"version\": 1}", "not a latwatt manifest" },
		{ "{\"schema\": \"latwatt-manifest\", \"version\": 7}", "manifest version 7" },
		{ "{\"schema\": \"latwatt-manifest\"", "manifest.json:1:" },
	};
	struct lw_rundir rd;
	char path[300];

	assert_error(lw_rundir_open(&rd, dir) < 0, "is not a run directory (no manifest.json)");
	assert_error(lw_rundir_open(&rd, "/nonexistent/run") < 0, "cannot open run directory");
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		lw_test_write(path, bad[i].text, strlen(bad[i].text));
		assert_error(lw_rundir_open(&rd, dir) < 0, bad[i].err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_manifest_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_non_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_written_through_its_descriptor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_rejects_bad_manifests, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
