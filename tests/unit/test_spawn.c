// SPDX-License-Identifier: GPL-2.0-only
/* Child processes: lib/spawn (exit status, signals, timeout, capture,
 * environment, a missing program, the child's own set-up). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "lib/parse.h"
#include "lib/spawn.h"
#include "lib/timeutil.h"

static void test_exit_status(void **st)
{
	const char *t[] = { "true", NULL }, *f[] = { "false", NULL };
	const char *three[] = { "sh", "-c", "exit 3", NULL };
	struct lw_child a = { .argv = t }, b = { .argv = f }, c = { .argv = three };

	assert_int_equal(lw_child_run(&a), 0);
	assert_int_equal(lw_child_run(&b), 1);
	assert_int_equal(lw_child_run(&c), 3);
	assert_int_equal(c.pid, 0);
}

static void test_signal(void **st)
{
	const char *argv[] = { "sh", "-c", "kill -TERM $$; sleep 5", NULL };
	struct lw_child c = { .argv = argv };
	char how[64];

	assert_int_equal(lw_child_run(&c), 128 + SIGTERM);
	assert_false(c.timed_out);
	lw_child_describe(c.status, how, sizeof(how));
	assert_string_equal(how, "was killed by SIGTERM");
}

/* Processes of group @pgid that are not zombies. */
static int running_in_group(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[300], buf[512], *p, state;
		int pgrp;
		FILE *f;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		buf[0] = 0;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
		p = strrchr(buf, ')');
		if (p && sscanf(p + 1, " %c %*d %d", &state, &pgrp) == 2 && pgrp == pgid &&
		    state != 'Z')
			n++;
	}
	closedir(d);
	return n;
}

static void test_timeout(void **st)
{
	/* the group goes: sleep's child of sh as well as sh */
	const char *argv[] = { "sh", "-c", "sleep 30 & sleep 30; wait", NULL };
	struct lw_child c = { .argv = argv, .pgroup = 1, .timeout_ns = 100 * LW_NSEC_PER_MSEC };
	uint64_t t0 = lw_mono_ns();
	pid_t pgid;

	assert_int_equal(lw_child_start(&c), 0);
	pgid = c.pid;
	assert_int_equal(lw_child_wait(&c), 128 + SIGKILL);
	assert_true(c.timed_out);
	assert_true(lw_mono_ns() - t0 < 10 * LW_NSEC_PER_SEC);
	/* nothing of the group is left running (what sh started is reaped by
	 * init, not by us, and may be a zombie for a moment) */
	usleep(100 * 1000);
	assert_int_equal(running_in_group(pgid), 0);
}

static void test_capture(void **st)
{
	const char *echo[] = { "sh", "-c", "echo out; echo err >&2", NULL };
	const char *lots[] = { "sh", "-c", "i=0; while [ $i -lt 2000 ]; do echo 0123456789; "
			       "i=$((i+1)); done; exit 4", NULL };
	const char *slow[] = { "sh", "-c", "echo early; exec sleep 30", NULL };
	struct lw_child a = { .argv = echo, .err = LW_CHILD_TO_OUT };
	struct lw_child b = { .argv = lots };
	struct lw_child c = { .argv = slow, .timeout_ns = 200 * LW_NSEC_PER_MSEC };
	struct lw_child d = { .argv = echo, .err = LW_CHILD_NULL };
	char buf[64];

	assert_int_equal(lw_child_capture(&a, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "out\nerr\n");
	assert_int_equal(lw_child_capture(&d, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "out\n");
	/* more than fits: the start, and the child is not blocked on a full pipe */
	assert_int_equal(lw_child_capture(&b, buf, 12), 4);
	assert_string_equal(buf, "0123456789\n");
	/* a child that keeps the pipe open past its timeout */
	assert_int_equal(lw_child_capture(&c, buf, sizeof(buf)), 128 + SIGKILL);
	assert_true(c.timed_out);
	assert_string_equal(buf, "early\n");
}

/* Into a descriptor, from a pipe the parent writes. */
static void test_descriptors(void **st)
{
	const char *cat[] = { "cat", NULL };
	char path[] = "/tmp/latwatt-spawn.XXXXXX", buf[32] = "";
	int fd = mkstemp(path);
	struct lw_child c = { .argv = cat, .in = LW_CHILD_PIPE };

	assert_true(fd > 0);
	unlink(path);
	c.out = fd;
	assert_int_equal(lw_child_start(&c), 0);
	assert_true(c.in > 0);
	assert_int_equal(write(c.in, "through\n", 8), 8);
	close(c.in);
	assert_int_equal(lw_child_wait(&c), 0);
	assert_int_equal(pread(fd, buf, sizeof(buf) - 1, 0), 8);
	assert_string_equal(buf, "through\n");
	close(fd);
}

static void test_environment(void **st)
{
	const char *env[] = { "LW_SPAWN_A=new", "LW_SPAWN_B", "LW_SPAWN_C=added", NULL };
	const char *argv[] = { "sh", "-c", "echo \"${LW_SPAWN_A}-${LW_SPAWN_B-unset}-${LW_SPAWN_C}-"
			       "${LW_SPAWN_D}\"", NULL };
	struct lw_child c = { .argv = argv, .env = env }, plain = { .argv = argv };
	char buf[128];

	setenv("LW_SPAWN_A", "old", 1);
	setenv("LW_SPAWN_B", "gone", 1);
	setenv("LW_SPAWN_D", "kept", 1);
	assert_int_equal(lw_child_capture(&c, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "new-unset-added-kept\n");
	assert_int_equal(lw_child_capture(&plain, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "old-gone--kept\n");
	unsetenv("LW_SPAWN_A");
	unsetenv("LW_SPAWN_B");
	unsetenv("LW_SPAWN_D");
}

/* Not there: a failure to start naming it, not a status 127. */
static void test_missing_program(void **st)
{
	const char *argv[] = { "latwatt-no-such-program", NULL };
	const char *abs[] = { "x", NULL };
	struct lw_child c = { .argv = argv }, d = { .argv = abs, .path = "/nonexistent/x" };
	struct lw_child q = { .argv = argv, .quiet = 1 };

	assert_error(lw_child_run(&c) < 0, "cannot run latwatt-no-such-program: No such file");
	assert_int_equal(c.fail_step, LW_CHILD_EXEC);
	assert_int_equal(c.fail_errno, ENOENT);
	assert_error(lw_child_run(&d) < 0, "cannot run x: No such file");
	assert_int_equal(d.fail_step, LW_CHILD_EXEC);
	lw_clear_error();
	assert_int_equal(lw_child_run(&q), -1);
	assert_string_equal(lw_last_error(), "");
}

static int refuse(void *arg)
{
	errno = EPERM;
	return *(int *)arg;
}

/* The child's steps: its directory, its process group, the caller's own
 * set-up failing with a code of its own. */
static void test_child_steps(void **st)
{
	const char *pwd[] = { "pwd", NULL };
	const char *stat[] = { "cat", "/proc/self/stat", NULL };
	int dfd = open("/usr", O_RDONLY | O_DIRECTORY | O_CLOEXEC), code = 5;
	struct lw_child a = { .argv = pwd, .dir_fd = dfd };
	struct lw_child b = { .argv = stat, .pgroup = 1 };
	struct lw_child c = { .argv = pwd, .setup = refuse, .setup_arg = &code, .quiet = 1 };
	char buf[512];
	int pid, pgrp;

	assert_true(dfd > 0);
	assert_int_equal(lw_child_capture(&a, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/usr\n");
	close(dfd);
	assert_int_equal(lw_child_capture(&b, buf, sizeof(buf)), 0);
	/* pid (comm) state ppid pgrp */
	assert_int_equal(sscanf(buf, "%d (cat) %*c %*d %d", &pid, &pgrp), 2);
	assert_int_equal(pgrp, pid);
	assert_int_equal(lw_child_run(&c), -1);
	assert_int_equal(c.fail_step, LW_CHILD_SETUP);
	assert_int_equal(c.fail_setup, 5);
	assert_int_equal(c.fail_errno, EPERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_descriptors),
		cmocka_unit_test(test_environment),
		cmocka_unit_test(test_missing_program),
		cmocka_unit_test(test_child_steps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
