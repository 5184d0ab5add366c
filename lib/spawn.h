/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every child process latwatt starts, in the manner of git's run-command.h:
 * a program and its argv (never a shell), its environment, its standard
 * descriptors, its process group, cgroup and directory, a timeout, and its
 * output captured to a descriptor or a buffer.
 *
 *	const char *argv[] = { "lava-test-case", name, "--result", "pass", NULL };
 *	struct lw_child c = { .argv = argv, .path = helper };
 *	int st = lw_child_run(&c);	// exit status, 128+N for signal N, -1
 *
 * What fails in the child before the program runs (entering the cgroup,
 * the redirections, exec itself) comes back to the parent as a step and an
 * errno: lw_child_start() then returns -1, after error() unless @quiet, and
 * the child has been reaped.  A program that is not there is such a
 * failure (LW_CHILD_EXEC, ENOENT), not an exit status 127.
 *
 * A zeroed struct lw_child inherits everything: descriptor 0 in @in, @out,
 * @err, @cgroup_fd or @dir_fd means "not set" (descriptor 0 is stdin, never
 * a file or directory of ours).  After a fork a threaded program may only
 * make async-signal-safe calls: everything the child does is prepared
 * before the fork (the program's path, the environment), and @setup must
 * keep to such calls too.
 */
#ifndef LW_SPAWN_H
#define LW_SPAWN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* @in, @out, @err besides a descriptor > 0 (0: inherited) */
#define LW_CHILD_NULL	(-1)	/* /dev/null */
#define LW_CHILD_PIPE	(-2)	/* a pipe; the parent's end replaces the value */
#define LW_CHILD_TO_OUT	(-3)	/* @err only: where @out goes */

/* Where a child failed before its program ran (fail_step). */
enum lw_child_step {
	LW_CHILD_STARTED = 0,
	LW_CHILD_CGROUP,	/* writing to @cgroup_fd */
	LW_CHILD_PGROUP,	/* setpgid */
	LW_CHILD_PDEATHSIG,	/* prctl(PR_SET_PDEATHSIG) */
	LW_CHILD_REDIRECT,	/* the standard descriptors */
	LW_CHILD_CHDIR,		/* fchdir(@dir_fd) */
	LW_CHILD_SETUP,		/* @setup returned nonzero: fail_setup holds it */
	LW_CHILD_EXEC,		/* exec (ENOENT: not found) */
	LW_CHILD_FORK,		/* in the parent: the pipe or the fork */
};

struct lw_child {
	const char *const *argv;	/* argv[0] names the program */
	/* the program: a path (taken as is), or NULL: argv[0], which is
	 * looked up in PATH as execvp() would when it has no '/' */
	const char *path;
	/* "NAME=value" to set, "NAME" to unset, over our environment; NULL: ours */
	const char *const *env;
	int in, out, err;		/* see LW_CHILD_* */
	int pgroup;			/* a process group of its own (set from both sides) */
	int pdeathsig;			/* its signal when we die; it does not start if we are gone */
	int cgroup_fd;			/* a cgroup.procs it enters first, so that all it starts stays in */
	int dir_fd;			/* the directory it runs in */
	int close_fds;			/* close every descriptor above 2 (not only O_CLOEXEC ones) */
	/* signals set back to SIG_DFL (a mask of 1UL << SIGNAL); every signal
	 * is unblocked in the child whatever this says */
	unsigned long sig_default;
	int quiet;			/* no error() from lw_child_start(): the caller words it */
	/* last, in the child: 0, or a code of the caller's (> 0) with errno set */
	int (*setup)(void *arg);
	void *setup_arg;
	/* lw_child_wait(): nonzero: SIGKILL (to the group with @pgroup) after so long */
	uint64_t timeout_ns;
	/* lw_child_wait(): called when a signal interrupted the wait, to act on
	 * a flag its handler set (the wait goes on) */
	void (*on_signal)(struct lw_child *c, void *arg);
	void *on_signal_arg;

	/* set by the calls below */
	pid_t pid;
	int status;			/* the wait status (waitpid) */
	int timed_out;
	enum lw_child_step fail_step;	/* why lw_child_start() failed */
	int fail_setup;			/* @setup's code */
	int fail_errno;
};

/* The signals lw_child.sig_default usually names. */
#define LW_SIG_BIT(s)	(1UL << (s))
#define LW_SIG_STOPS	(LW_SIG_BIT(SIGINT) | LW_SIG_BIT(SIGTERM) | LW_SIG_BIT(SIGPIPE))

/* Start @c; 0, or -1 (after error() unless @quiet) with fail_step and
 * errno set.  @in/@out/@err LW_CHILD_PIPE become the parent's ends. */
int lw_child_start(struct lw_child *c);
/* Wait for @c: its exit status, 128+N when signal N ended it (also after
 * its timeout: 128+SIGKILL, timed_out set), -1 after error(). */
int lw_child_wait(struct lw_child *c);
/* Start and wait. */
int lw_child_run(struct lw_child *c);
/* Run @c with its output (stdout, and stderr too when @err is
 * LW_CHILD_TO_OUT) read into @buf, NUL-terminated: what does not fit is read
 * and dropped.  Its status as lw_child_wait(). */
int lw_child_capture(struct lw_child *c, char *buf, size_t len);

/* "exited with status N", "was killed by SIGKILL": wait status @st in words. */
void lw_child_describe(int st, char *buf, size_t len);

/*
 * What is left of a process group of ours: reap one of its processes
 * (waitpid(-@pgid)); its pid with *@st, 0 when none has ended (@nohang),
 * -1 with errno (ECHILD: nothing of it is left).
 */
pid_t lw_child_reap_group(pid_t pgid, int *st, int nohang);
/* Reap @pid if it has ended (an orphan reparented to us as subreaper). */
void lw_child_reap_nohang(pid_t pid);

#endif
