// SPDX-License-Identifier: GPL-2.0-only
/* Writing into directories that may hold planted links: lib/safefile. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "lib/rundir.h"
#include "lib/safefile.h"

static char *dir;

static int setup(void **st) { dir = lw_test_tmpdir(); return 0; }
static int teardown(void **st) { lw_test_rmdir(dir); return 0; }

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static int is_link(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

/* A symlink planted under the name is replaced, never written through. */
static void test_atomic_replaces_link(void **st)
{
	char victim[300], target[300];
	struct lw_atomic a;
	FILE *f;

	path_of(victim, sizeof(victim), "victim");
	path_of(target, sizeof(target), "out.json");
	lw_test_write(victim, "precious", 8);
	assert_int_equal(symlink(victim, target), 0);
	f = lw_atomic_fopen(&a, target, 0644);
	assert_non_null(f);
	fputs("new", f);
	assert_int_equal(lw_atomic_commit(&a), 0);
	assert_string_equal(slurp(victim), "precious");
	assert_false(is_link(target));
	assert_string_equal(slurp(target), "new");

	/* aborted: nothing left, the old file kept */
	f = lw_atomic_fopen(&a, target, 0644);
	fputs("half", f);
	lw_atomic_abort(&a);
	assert_string_equal(slurp(target), "new");
	assert_int_equal(entries(), 2);	/* victim and out.json: no temporary left */
}

static void test_create_replaces_link_and_hardlink(void **st)
{
	char victim[300], target[300];
	struct stat s;
	int fd;

	path_of(victim, sizeof(victim), "victim");
	path_of(target, sizeof(target), "samples");
	lw_test_write(victim, "precious", 8);
	assert_int_equal(symlink(victim, target), 0);
	fd = lw_create(target, LW_MODE_PRIVATE);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	assert_string_equal(slurp(victim), "precious");
	assert_int_equal(stat(target, &s), 0);
	assert_int_equal(s.st_mode & 0777, 0600);

	unlink(target);
	assert_int_equal(link(victim, target), 0);
	fd = lw_create(target, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "y", 1), 1);
	close(fd);
	assert_string_equal(slurp(victim), "precious");
}

static void test_append_refuses_links(void **st)
{
	char victim[300], target[300];
	int created;
	FILE *f;

	path_of(victim, sizeof(victim), "victim");
	path_of(target, sizeof(target), "power");
	lw_test_write(victim, "precious", 8);
	assert_int_equal(symlink(victim, target), 0);
	assert_error(lw_fappend(target, 0644, &created) == NULL, "is a symlink");
	unlink(target);
	assert_int_equal(link(victim, target), 0);
	assert_error(lw_fappend(target, 0644, &created) == NULL, "with one link");
	assert_string_equal(slurp(victim), "precious");
	unlink(target);
	f = lw_fappend(target, 0644, &created);
	assert_non_null(f);
	assert_true(created);
	fputs("a", f);
	fclose(f);
	f = lw_fappend(target, 0644, &created);
	assert_non_null(f);
	assert_false(created);
	fputs("b", f);
	fclose(f);
	assert_string_equal(slurp(target), "ab");
}

static void test_directory_rules(void **st)
{
	char sub[300], file[320];
	struct lw_rundir rd;

	path_of(sub, sizeof(sub), "shared");
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(chmod(sub, 0777), 0);
	snprintf(file, sizeof(file), "%s/x", sub);
	assert_error(lw_create(file, 0644) < 0, "writable by others (mode 0777)");
	assert_error(lw_rundir_create(&rd, sub, 0) < 0, "writable by others");
	/* sticky like /tmp: single files are fine (rename and O_EXCL are safe
	 * there), a run directory is not */
	assert_int_equal(chmod(sub, 01777), 0);
	{
		int fd = lw_create(file, 0644);

		assert_true(fd >= 0);
		close(fd);
	}
	assert_error(lw_rundir_create(&rd, sub, 1) < 0, "writable by others");
	assert_int_equal(chmod(sub, 0775), 0);
	assert_error(lw_create(file, 0644) < 0, "writable by its group");

	if (geteuid() == 0) {	/* another owner: only root can make one */
		assert_int_equal(chmod(sub, 0755), 0);
		assert_int_equal(unlink(file), 0);
		assert_int_equal(chown(sub, 65534, 65534), 0);
		assert_error(lw_rundir_create(&rd, sub, 0) < 0, "belongs to uid 65534");
		assert_error(lw_create(file, 0644) < 0, "belongs to uid 65534");
		assert_int_equal(chown(sub, 0, 0), 0);
	}
}

/* Directories walked below a base: a symlinked component is refused. */
static void test_dir_walk(void **st)
{
	char path[400], other[300];
	int fd;

	snprintf(path, sizeof(path), "%s/a/b/c", dir);
	fd = lw_dir_walk(path, strlen(dir), 0755);
	assert_true(fd >= 0);
	close(fd);
	path_of(other, sizeof(other), "elsewhere");
	assert_int_equal(mkdir(other, 0755), 0);
	snprintf(path, sizeof(path), "%s/a/link", dir);
	assert_int_equal(symlink(other, path), 0);
	snprintf(path, sizeof(path), "%s/a/link/d", dir);
	assert_error(lw_dir_walk(path, strlen(dir), 0755) < 0, "a/link is a symlink");
	snprintf(path, sizeof(path), "%s/elsewhere/d", dir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/a/../x", dir);
	assert_error(lw_dir_walk(path, strlen(dir), 0755) < 0, "'..'");
	snprintf(path, sizeof(path), "%s/a/link", dir);
	assert_error(lw_mkdir(path, 0755) < 0, "is a symlink");
}

/* lw_open_beneath(), both ways: openat2(2) and the walk it falls back to
 * without it give the same answers. */
static void open_beneath_cases(int walk)
{
	char path[400];
	struct stat s;
	int dfd, fd;

	lw_safefile_walk_only = walk;
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/a/b", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/a/b/f", dir);
	lw_test_write(path, "x", 1);
	snprintf(path, sizeof(path), "%s/a/l", dir);
	assert_int_equal(symlink("b", path), 0);
	snprintf(path, sizeof(path), "%s/a/b/s", dir);
	assert_int_equal(symlink("f", path), 0);
	snprintf(path, sizeof(path), "%s/a/b/dangling", dir);
	assert_int_equal(symlink("../../made-through-a-link", path), 0);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);

	fd = lw_open_beneath(dfd, "a/b/f", O_RDONLY, 0);
	assert_true(fd >= 0);
	close(fd);
	fd = lw_open_beneath(dfd, "./a//b/", O_RDONLY | O_DIRECTORY, 0);
	assert_true(fd >= 0);
	close(fd);
	/* a symlink on the way, at the end, as a directory, as an O_PATH */
	errno = 0;
	assert_int_equal(lw_open_beneath(dfd, "a/l/f", O_RDONLY, 0), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(lw_open_beneath(dfd, "a/b/s", O_RDONLY, 0), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(lw_open_beneath(dfd, "a/l", O_RDONLY | O_DIRECTORY, 0), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(lw_open_beneath(dfd, "a/b/s", O_PATH, 0), -1);
	assert_int_equal(errno, ELOOP);
	/* created through a dangling symlink: never */
	assert_int_equal(lw_open_beneath(dfd, "a/b/dangling", O_WRONLY | O_CREAT, 0600), -1);
	assert_int_equal(errno, ELOOP);
	snprintf(path, sizeof(path), "%s/made-through-a-link", dir);
	assert_int_equal(access(path, F_OK), -1);
	/* not beneath */
	assert_int_equal(lw_open_beneath(dfd, "../x", O_RDONLY, 0), -1);
	assert_int_equal(errno, EXDEV);
	assert_int_equal(lw_open_beneath(dfd, "a/../a/b/f", O_RDONLY, 0), -1);
	assert_int_equal(errno, EXDEV);
	assert_int_equal(lw_open_beneath(dfd, "/etc/passwd", O_RDONLY, 0), -1);
	assert_int_equal(errno, EXDEV);
	/* made with its mode, close-on-exec */
	snprintf(path, sizeof(path), "%s/a/b/new", dir);
	fd = lw_open_beneath(dfd, "a/b/new", O_WRONLY | O_CREAT | O_EXCL, 0640);
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	assert_int_equal(stat(path, &s), 0);
	assert_int_equal(s.st_mode & 0777, 0640 & ~umask(022));
	assert_int_equal(lw_open_beneath(dfd, "a/b/missing", O_RDONLY, 0), -1);
	assert_int_equal(errno, ENOENT);
	close(dfd);
	lw_safefile_walk_only = 0;
}

static void test_open_beneath_openat2(void **st)
{
#ifdef SYS_openat2
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY, .resolve = RESOLVE_NO_SYMLINKS };
	long fd = syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));

	if (fd < 0 && errno == ENOSYS)
		skip();	/* a kernel before 5.6: the walk is all there is */
	assert_true(fd >= 0);
	close((int)fd);
	open_beneath_cases(0);
#else
	skip();
#endif
}

static void test_open_beneath_walk(void **st)
{
	open_beneath_cases(1);
}

/* The folder chain: every folder from "/" is checked, not only the last. */
static void test_folder_chain(void **st)
{
	char path[400], cwd[PATH_MAX];
	struct lw_rundir rd;
	int fd;

	/* a symlink on the way is refused, whoever owns it */
	snprintf(path, sizeof(path), "%s/real", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(symlink("real", path), 0);
	snprintf(path, sizeof(path), "%s/link/out.json", dir);
	assert_error(lw_create(path, 0644) < 0, "link is a symlink");
	snprintf(path, sizeof(path), "%s/link/run", dir);
	assert_error(lw_rundir_create(&rd, path, 0) < 0, "link is a symlink");
	snprintf(path, sizeof(path), "%s/real/run", dir);
	assert_int_equal(access(path, F_OK), -1);
	/* '..' only to climb the working directory */
	snprintf(path, sizeof(path), "%s/real/../x", dir);
	assert_error(lw_create(path, 0644) < 0, "'..' inside a path");
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(path, sizeof(path), "%s/real", dir);
	assert_int_equal(chdir(path), 0);
	fd = lw_create("../real/rel", 0644);
	assert_true(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/real/rel", dir);
	assert_int_equal(access(path, F_OK), 0);
	/* a folder writable by others, without the sticky bit, anywhere above */
	snprintf(path, sizeof(path), "%s/real/sub", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/real", dir);
	assert_int_equal(chmod(path, 0777), 0);
	snprintf(path, sizeof(path), "%s/real/sub/out.json", dir);
	assert_error(lw_create(path, 0644) < 0, "real is writable by others (mode 0777)");
	assert_error(lw_create("sub/rel", 0644) < 0, "real is writable by others");
	snprintf(path, sizeof(path), "%s/real/sub/run", dir);
	assert_error(lw_rundir_create(&rd, path, 0) < 0, "real is writable by others");
	assert_int_equal(access(path, F_OK), -1);
	/* sticky, like /tmp: a fine folder on the way */
	snprintf(path, sizeof(path), "%s/real", dir);
	assert_int_equal(chmod(path, 01777), 0);
	snprintf(path, sizeof(path), "%s/real/sub/run", dir);
	assert_int_equal(lw_rundir_create(&rd, path, 0), 0);
	lw_rundir_close(&rd);
	if (geteuid() == 0) {	/* another owner above: only root can make one */
		snprintf(path, sizeof(path), "%s/real", dir);
		assert_int_equal(chmod(path, 0755), 0);
		assert_int_equal(chown(path, 65534, 65534), 0);
		snprintf(path, sizeof(path), "%s/real/sub/run2", dir);
		assert_error(lw_rundir_create(&rd, path, 0) < 0, "real belongs to uid 65534");
		assert_int_equal(access(path, F_OK), -1);
		snprintf(path, sizeof(path), "%s/real/sub/out.json", dir);
		assert_error(lw_create(path, 0644) < 0, "real belongs to uid 65534");
		assert_error(lw_create("sub/rel", 0644) < 0, "real belongs to uid 65534");
		snprintf(path, sizeof(path), "%s/real", dir);
		assert_int_equal(chown(path, 0, 0), 0);
	}
	assert_int_equal(chdir(cwd), 0);
}

/* error() with its own last message as an argument. */
static void test_error_formats_last_message(void **st)
{
	int q = lw_set_quiet(1);

	error("first %s", "message");
	error("again: %s", lw_last_error());
	lw_set_quiet(q);
	assert_string_equal(lw_last_error(), "again: first message");
}

/* The scratch file: in $TMPDIR, readable back, leaving no entry behind;
 * a $TMPDIR writable by others without the sticky bit is refused. */
static void test_tmpfile(void **st)
{
	char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL, buf[6] = { 0 };
	int fd;

	setenv("TMPDIR", dir, 1);
	fd = lw_tmpfile();
	assert_true(fd >= 0);
	assert_int_equal(entries(), 0);
	assert_int_equal(write(fd, "hello", 5), 5);
	assert_int_equal(pread(fd, buf, 5, 0), 5);
	assert_string_equal(buf, "hello");
	close(fd);
	assert_int_equal(entries(), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_error(lw_tmpfile() < 0, "writable by others");
	assert_int_equal(chmod(dir, 0700), 0);
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	free(old);
}

/* lw_copy_file_at: the copy is a new file of its own (a link planted at
 * the name is replaced, not written through); a source over the cap or
 * missing is refused naming it. */
static void test_copy_file(void **st)
{
	char from[PATH_MAX], to[PATH_MAX], victim[PATH_MAX];
	FILE *f;

	path_of(from, sizeof(from), "from.json");
	path_of(to, sizeof(to), "to.json");
	path_of(victim, sizeof(victim), "victim");
	f = fopen(from, "w");
	assert_non_null(f);
	fputs("{\"a\": 1}\n", f);
	fclose(f);
	f = fopen(victim, "w");
	assert_non_null(f);
	fputs("untouched", f);
	fclose(f);
	assert_int_equal(symlink(victim, to), 0);
	assert_int_equal(lw_copy_file_at(from, 1024, LW_AT_PATH, to), 0);
	assert_string_equal(slurp(to), "{\"a\": 1}\n");
	assert_string_equal(slurp(victim), "untouched");
	assert_error(lw_copy_file_at(from, 4, LW_AT_PATH, to) < 0, "from.json");
	path_of(from, sizeof(from), "missing.json");
	assert_error(lw_copy_file_at(from, 1024, LW_AT_PATH, to) < 0, "missing.json");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_atomic_replaces_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_replaces_link_and_hardlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_append_refuses_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_directory_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_beneath_openat2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_beneath_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folder_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tmpfile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_file, setup, teardown),
		cmocka_unit_test(test_error_formats_last_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
