// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one place that forks, execs and waits (tests/integration/layers.sh
 * checks that no other file does).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/spawn.h"
#include "lib/timeutil.h"

extern char **environ;

static const char *const step_words[] = {
	[LW_CHILD_STARTED] = "cannot run",
	[LW_CHILD_CGROUP] = "cannot put into its cgroup",
	[LW_CHILD_PGROUP] = "cannot create the process group of",
	[LW_CHILD_PDEATHSIG] = "cannot set the parent-death signal of",
	[LW_CHILD_REDIRECT] = "cannot redirect the output of",
	[LW_CHILD_CHDIR] = "cannot enter the directory of",
	[LW_CHILD_SETUP] = "cannot set up",
	[LW_CHILD_EXEC] = "cannot run",
	[LW_CHILD_FORK] = "cannot start",
};

/* @name as execvp() finds it: as is with a '/', else the first executable
 * regular file of that name in PATH.  0, or -1 with errno. */
static int find_program(const char *name, char *buf, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;
	int err = ENOENT;

	if (!*name) {
		errno = ENOENT;
		return -1;
	}
	if (strchr(name, '/')) {
		if ((size_t)snprintf(buf, len, "%s", name) >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		return 0;
	}
	if (!path)
		path = "/bin:/usr/bin";
	for (p = path; ; p = end + 1) {
		struct stat st;
		int n;

		end = strchrnul(p, ':');
		n = (int)(end - p);
		/* an empty entry is the current directory */
		if ((size_t)snprintf(buf, len, "%.*s%s%s", n, p, n ? "/" : "", name) < len &&
		    stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(buf, X_OK) == 0)
				return 0;
			err = EACCES;
		}
		if (!*end)
			break;
	}
	errno = err;
	return -1;
}

/* Our environment with @env applied (pointers into both, none copied). */
static char **make_env(const char *const *env)
{
	size_t n = 0, m = 0, k = 0;
	char **e;

	while (environ && environ[n])
		n++;
	while (env[m])
		m++;
	e = calloc(n + m + 1, sizeof(*e));
	if (!e)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t len = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		int replaced = 0;

		for (size_t j = 0; j < m && !replaced; j++)
			replaced = !strncmp(env[j], environ[i], len) &&
				   (env[j][len] == '=' || env[j][len] == 0);
		if (!replaced)
			e[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		if (strchr(env[j], '='))
			e[k++] = (char *)env[j];
	e[k] = NULL;
	return e;
}

/* Close every descriptor above 2 but @keep (async-signal-safe). */
static void close_fds_but(int keep)
{
	if (keep > 3)
		close_range(3, (unsigned)keep - 1, 0);
	if (close_range((unsigned)keep + 1, ~0U, 0) < 0)	/* before 5.9: one by one */
		for (int fd = keep + 1; fd < 4096; fd++)
			close(fd);
}

struct report {
	int err, step, setup;
};

/* The child: async-signal-safe calls only (we may have forked a threaded
 * process); a failure goes back through @errfd. */
static void __attribute__((noreturn))
child(const struct lw_child *c, const char *prog, char *const envp[], const int fd[3],
      pid_t parent, int errfd)
{
	struct report r = { 0 };
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int s = 1; s < (int)(8 * sizeof(c->sig_default)) && s < NSIG; s++)
		if (c->sig_default & LW_SIG_BIT(s))
			signal(s, SIG_DFL);
	/* into the cgroup first: all it starts, setsid or not, stays in */
	if (c->cgroup_fd > 0 && write(c->cgroup_fd, "0", 1) != 1) { r.step = LW_CHILD_CGROUP; goto fail; }
	if (c->pgroup && setpgid(0, 0) < 0) { r.step = LW_CHILD_PGROUP; goto fail; }
	if (c->pdeathsig) {
		if (prctl(PR_SET_PDEATHSIG, c->pdeathsig) < 0) { r.step = LW_CHILD_PDEATHSIG; goto fail; }
		if (getppid() != parent)
			_exit(127);	/* the parent is already gone */
	}
	for (int i = 0; i < 3; i++)
		if (fd[i] >= 0 && fd[i] != i && dup2(fd[i], i) < 0) { r.step = LW_CHILD_REDIRECT; goto fail; }
	if (c->err == LW_CHILD_TO_OUT && dup2(1, 2) < 0) { r.step = LW_CHILD_REDIRECT; goto fail; }
	if (c->dir_fd > 0 && fchdir(c->dir_fd) < 0) { r.step = LW_CHILD_CHDIR; goto fail; }
	if (c->setup && (r.setup = c->setup(c->setup_arg)) != 0) { r.step = LW_CHILD_SETUP; goto fail; }
	if (c->close_fds)
		close_fds_but(errfd);
	execve(prog, (char *const *)c->argv, envp);
	r.step = LW_CHILD_EXEC;
fail:
	r.err = errno;
	if (write(errfd, &r, sizeof(r)) < 0) {
		/* nothing more to say */
	}
	_exit(127);
}

static int failed(struct lw_child *c, enum lw_child_step step, int err)
{
	c->fail_step = step;
	c->fail_errno = err;
	errno = err;
	if (c->quiet)
		return -1;
	return error("%s %s: %s", step_words[step], c->argv[0], strerror(err));
}

static void close_if(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int lw_child_start(struct lw_child *c)
{
	char prog[PATH_MAX];
	int devnull = -1, ep[2] = { -1, -1 }, pp[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	int fd[3] = { -1, -1, -1 }, io[3] = { c->in, c->out, c->err }, err = 0;
	char **envp = environ;
	struct report r;
	pid_t self = getpid();
	ssize_t n;

	c->pid = 0;
	c->status = 0;
	c->timed_out = 0;
	c->fail_step = LW_CHILD_STARTED;
	c->fail_setup = 0;
	c->fail_errno = 0;
	if (!c->argv || !c->argv[0])
		return error("lw_child_start: no program");
	if (find_program(c->path ? c->path : c->argv[0], prog, sizeof(prog)) < 0)
		return failed(c, LW_CHILD_EXEC, errno);
	if (c->env && !(envp = make_env(c->env)))
		return failed(c, LW_CHILD_FORK, ENOMEM);
	for (int i = 0; i < 3 && !err; i++) {
		if (io[i] == LW_CHILD_NULL) {
			if (devnull < 0 && (devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
				err = errno;
			fd[i] = devnull;
		} else if (io[i] == LW_CHILD_PIPE) {
			if (pipe2(pp[i], O_CLOEXEC) < 0)
				err = errno;
			fd[i] = i ? pp[i][1] : pp[i][0];
		} else if (io[i] > 0) {
			fd[i] = io[i];
		}
	}
	if (!err && pipe2(ep, O_CLOEXEC) < 0)
		err = errno;
	if (!err) {
		fflush(NULL);	/* what we printed comes before what it prints */
		c->pid = fork();
		if (c->pid < 0)
			err = errno;
		else if (c->pid == 0)
			child(c, prog, envp, fd, self, ep[1]);
	}
	if (envp != environ)
		free(envp);
	close_if(&devnull);
	close_if(&ep[1]);
	for (int i = 0; i < 3; i++)
		close_if(i ? &pp[i][1] : &pp[i][0]);	/* the child's ends */
	if (err) {
		close_if(&ep[0]);
		for (int i = 0; i < 3; i++)
			close_if(i ? &pp[i][0] : &pp[i][1]);
		c->pid = 0;
		return failed(c, LW_CHILD_FORK, err);
	}
	/* also from here, so that a signal to the group right away finds it */
	if (c->pgroup)
		setpgid(c->pid, c->pid);
	do
		n = read(ep[0], &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	close(ep[0]);
	if (n == (ssize_t)sizeof(r)) {
		while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
			;
		c->pid = 0;
		for (int i = 0; i < 3; i++)
			close_if(i ? &pp[i][0] : &pp[i][1]);
		c->fail_setup = r.setup;
		return failed(c, (enum lw_child_step)r.step, r.err);
	}
	if (c->in == LW_CHILD_PIPE)
		c->in = pp[0][1];
	if (c->out == LW_CHILD_PIPE)
		c->out = pp[1][0];
	if (c->err == LW_CHILD_PIPE)
		c->err = pp[2][0];
	return 0;
}

static int status_of(struct lw_child *c)
{
	int st = c->status;

	c->pid = 0;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return error("%s: unexpected wait status 0x%x", c->argv[0], st);
}

static void kill_child(struct lw_child *c)
{
	kill(c->pgroup ? -c->pid : c->pid, SIGKILL);
	c->timed_out = 1;
}

int lw_child_wait(struct lw_child *c)
{
	uint64_t deadline = c->timeout_ns && !c->timed_out ? lw_mono_ns() + c->timeout_ns : 0;
	uint64_t step = 1000 * 1000;	/* 1 ms, growing to 20 ms */

	if (c->pid <= 0)
		return error("lw_child_wait: %s was not started", c->argv[0]);
	for (;;) {
		pid_t r = waitpid(c->pid, &c->status, deadline ? WNOHANG : 0);

		if (r == c->pid)
			return status_of(c);
		if (r < 0 && errno != EINTR) {
			c->pid = 0;
			return error_errno("cannot wait for %s", c->argv[0]);
		}
		if (r < 0) {
			if (c->on_signal)
				c->on_signal(c, c->on_signal_arg);
			continue;
		}
		/* r == 0: running, and there is a deadline */
		if (lw_mono_ns() >= deadline) {
			kill_child(c);
			deadline = 0;
			continue;
		}
		{
			uint64_t left = deadline - lw_mono_ns();
			struct timespec ts = lw_ns_to_ts(left < step ? left : step);

			if (nanosleep(&ts, NULL) < 0 && errno == EINTR && c->on_signal)
				c->on_signal(c, c->on_signal_arg);
			if (step < 20 * 1000 * 1000)
				step *= 2;
		}
	}
}

int lw_child_run(struct lw_child *c)
{
	if (lw_child_start(c) < 0)
		return -1;
	return lw_child_wait(c);
}

int lw_child_capture(struct lw_child *c, char *buf, size_t len)
{
	uint64_t deadline;
	size_t got = 0;
	int fd;

	c->out = LW_CHILD_PIPE;
	if (lw_child_start(c) < 0)
		return -1;
	fd = c->out;
	deadline = c->timeout_ns ? lw_mono_ns() + c->timeout_ns : 0;
	for (;;) {
		char sink[512];
		int room = got + 1 < len;
		ssize_t r;

		if (deadline) {
			uint64_t now = lw_mono_ns();
			struct pollfd p = { .fd = fd, .events = POLLIN };
			int ms = now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);

			r = poll(&p, 1, ms);
			if (r < 0 && errno == EINTR) {
				if (c->on_signal)
					c->on_signal(c, c->on_signal_arg);
				continue;
			}
			if (r == 0) {
				kill_child(c);	/* what it started may hold the pipe: stop reading */
				break;
			}
		}
		r = room ? read(fd, buf + got, len - 1 - got) : read(fd, sink, sizeof(sink));
		if (r < 0 && errno == EINTR) {
			if (c->on_signal)
				c->on_signal(c, c->on_signal_arg);
			continue;
		}
		if (r <= 0)
			break;
		if (room)
			got += (size_t)r;
	}
	if (len)
		buf[got] = 0;
	close(fd);
	c->out = LW_CHILD_PIPE;
	return lw_child_wait(c);
}

void lw_child_describe(int st, char *buf, size_t len)
{
	if (WIFEXITED(st))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "was killed by SIG%s",
			 sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "?");
	else
		snprintf(buf, len, "ended (status 0x%x)", st);
}

pid_t lw_child_reap_group(pid_t pgid, int *st, int nohang)
{
	pid_t pid;

	do
		pid = waitpid(-pgid, st, nohang ? WNOHANG : 0);
	while (pid < 0 && errno == EINTR && !nohang);
	return pid;
}

void lw_child_reap_nohang(pid_t pid)
{
	while (waitpid(pid, NULL, WNOHANG) < 0 && errno == EINTR)
		;
}
