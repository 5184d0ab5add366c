// SPDX-License-Identifier: GPL-2.0-only
/* Opening what latwatt reads: lib/input (regular files, caps, FIFOs and
 * devices refused at once, symlinks in run directories, the owner rule of
 * search paths from the environment, PATH lookups). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "lib/input.h"

static char *dir;

static int setup(void **st) { dir = lw_test_tmpdir(); return 0; }
static int teardown(void **st) { lw_test_rmdir(dir); return 0; }

static const char *at(const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void test_regular(void **st)
{
	size_t len;
	char *t;

	lw_test_write(at("f"), "hello\n", 6);
	t = lw_in_read(at("f"), 0, 100, &len);
	assert_non_null(t);
	assert_int_equal(len, 6);
	assert_string_equal(t, "hello\n");
	free(t);
	/* the cap: by size, before a byte is read */
	assert_error(lw_in_read(at("f"), 0, 5, &len) == NULL, "is 6 bytes, more than the 5");
	/* missing: quiet when optional */
	lw_clear_error();
	assert_int_equal(lw_in_open(at("none"), LW_IN_OPTIONAL, 0, NULL), -1);
	assert_int_equal(errno, ENOENT);
	assert_string_equal(lw_last_error(), "");
	assert_error(lw_in_open(at("none"), 0, 0, NULL) < 0, "cannot open");
}

/* A FIFO, a device, a directory: refused at once, never read or waited on. */
static void test_special(void **st)
{
	size_t len;

	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	assert_error(lw_in_read(at("fifo"), 0, 0, &len) == NULL, "is a FIFO, not a regular file");
	assert_error(lw_in_read("/dev/zero", 0, 0, &len) == NULL,
		     "/dev/zero is a character device, not a regular file");
	assert_error(lw_in_fopen(dir, 0, 0) == NULL, "is a directory, not a regular file");
}

/* In a run directory a symlink is refused, wherever it points. */
static void test_nofollow(void **st)
{
	size_t len;
	char *t;

	lw_test_write(at("secret"), "root:x:0:0\n", 11);
	assert_int_equal(symlink(at("secret"), at("board.yaml")), 0);
	assert_error(lw_in_read(at("board.yaml"), LW_IN_NOFOLLOW, 0, &len) == NULL,
		     "board.yaml is a symlink: refusing to follow it");
	assert_null(strstr(lw_last_error(), "root:x"));
	/* named by the user: followed */
	t = lw_in_read(at("board.yaml"), 0, 0, &len);
	assert_non_null(t);
	free(t);
	assert_int_equal(symlink("/dev/zero", at("power")), 0);
	assert_error(lw_in_open(at("power"), LW_IN_NOFOLLOW, 0, NULL) < 0, "is a symlink");
	assert_error(lw_in_open(at("power"), 0, 0, NULL) < 0, "a character device");
}

/* Search paths from the environment: the folder and the file owned by root
 * or us and not writable by group or others (a sticky folder may be). */
static void test_owned(void **st)
{
	int fd;

	assert_int_equal(mkdir(at("sp"), 0755), 0);
	lw_test_write(at("sp/b.yaml"), "x: 1\n", 5);
	assert_int_equal(chmod(at("sp/b.yaml"), 0644), 0);
	fd = lw_in_open_trusted(at("sp/b.yaml"), "LATWATT_BOARDS", 0, 0, NULL);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lw_in_dir_trusted(at("sp"), "LATWATT_BOARDS"), 0);
	assert_int_equal(lw_in_dir_trusted(at("missing"), "LATWATT_BOARDS"), 1);

	assert_int_equal(chmod(at("sp/b.yaml"), 0664), 0);
	assert_error(lw_in_open_trusted(at("sp/b.yaml"), "LATWATT_BOARDS", 0, 0, NULL) < 0,
		     "b.yaml (from LATWATT_BOARDS) is writable by its group (mode 0664): not read");
	assert_int_equal(chmod(at("sp/b.yaml"), 0644), 0);
	assert_int_equal(chmod(at("sp"), 0777), 0);
	assert_error(lw_in_open_trusted(at("sp/b.yaml"), "LATWATT_BOARDS", 0, 0, NULL) < 0,
		     "sp (from LATWATT_BOARDS) is writable by others (mode 0777): not read");
	assert_error(lw_in_dir_trusted(at("sp"), "LATWATT_SCENARIO_PATH") < 0,
		     "(from LATWATT_SCENARIO_PATH) is writable by others");
	/* sticky (as /tmp): the file's owner keeps it ours */
	assert_int_equal(chmod(at("sp"), 01777), 0);
	fd = lw_in_open_trusted(at("sp/b.yaml"), "LATWATT_BOARDS", 0, 0, NULL);
	assert_true(fd >= 0);
	close(fd);
	/* a symlink is not followed there */
	assert_int_equal(chmod(at("sp"), 0755), 0);
	assert_int_equal(symlink("b.yaml", at("sp/l.yaml")), 0);
	assert_error(lw_in_open_trusted(at("sp/l.yaml"), "LATWATT_BOARDS", 0, 0, NULL) < 0,
		     "is a symlink");
	if (geteuid() == 0) {
		assert_int_equal(chown(at("sp/b.yaml"), 65534, 65534), 0);
		assert_error(lw_in_open_trusted(at("sp/b.yaml"), "LATWATT_BOARDS", 0, 0, NULL) < 0,
			     "b.yaml (from LATWATT_BOARDS) belongs to uid 65534, not to root or uid 0");
		assert_int_equal(chown(at("sp/b.yaml"), 0, 0), 0);
		assert_int_equal(chown(at("sp"), 65534, 65534), 0);
		assert_error(lw_in_open_trusted(at("sp/b.yaml"), "LATWATT_BOARDS", 0, 0, NULL) < 0,
			     "sp (from LATWATT_BOARDS) belongs to uid 65534");
	} else {
		print_message("not root: the owner checks are left to security.sh\n");
	}
}

/* PATH: absolute entries only, each program's folder held to the rule. */
static void test_which(void **st)
{
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL, buf[4096], cwd[4096];
	char path[1100];

	assert_int_equal(mkdir(at("bin"), 0755), 0);
	lw_test_write(at("bin/lwprog"), "#!/bin/sh\n", 10);
	assert_int_equal(chmod(at("bin/lwprog"), 0755), 0);
	snprintf(path, sizeof(path), "%s:/usr/bin", at("bin"));
	setenv("PATH", path, 1);
	assert_int_equal(lw_in_which("lwprog", buf, sizeof(buf)), 0);
	assert_string_equal(buf, at("bin/lwprog"));
	assert_int_equal(lw_in_which("no-such-program-here", buf, sizeof(buf)), 1);
	/* an empty entry or "." is the current directory: never */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(at("bin")), 0);
	setenv("PATH", ":.:bin", 1);
	assert_int_equal(lw_in_which("lwprog", buf, sizeof(buf)), 1);
	assert_int_equal(chdir(cwd), 0);
	/* a folder of PATH others may write to: refused, naming it */
	assert_int_equal(chmod(at("bin"), 0775), 0);
	setenv("PATH", path, 1);
	assert_error(lw_in_which("lwprog", buf, sizeof(buf)) < 0,
		     "bin (from PATH) is writable by its group");
	if (old)
		setenv("PATH", old, 1);
	free(old);
}

/* Text from data for a terminal: control characters and bytes that are not
 * UTF-8 become '?', printable UTF-8 stays. */
static void test_clean(void **st)
{
	char a[] = "run\x1b]0;x\x07\x1b[2J ok";
	char b[] = "caf\xc3\xa9 \xe2\x86\x92 \xc2\x9b" "31m \xff\xfe \xe2\x86";
	char buf[8];

	assert_string_equal(lw_clean(a), "run?]0;x??[2J ok");
	assert_string_equal(lw_clean(b), "caf\xc3\xa9 \xe2\x86\x92 ??31m ?? ??");
	assert_string_equal(lw_clean_copy("a\tb\nc", buf, sizeof(buf)), "a?b?c");
	assert_null(lw_clean_copy(NULL, buf, sizeof(buf)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_regular, setup, teardown),
		cmocka_unit_test_setup_teardown(test_special, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nofollow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_owned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_which, setup, teardown),
		cmocka_unit_test(test_clean),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
