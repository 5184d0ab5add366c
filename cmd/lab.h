/* SPDX-License-Identifier: GPL-2.0-only */
/* Lab jobs as runs: what 'latwatt compare --runner lava' and 'latwatt bisect
 * --lava-job' take from cmd/lab.c. */
#ifndef LW_CMD_LAB_H
#define LW_CMD_LAB_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct lw_lava;

struct lw_lab_kernel {
	char name[64];		/* the kernel's name in the jobs file */
	char dir[PATH_MAX];	/* its directory of repeats (OUT/NAME) */
	size_t jobs, runs;	/* its jobs; those that gave a run */
	char why[512];		/* the first job without a run: why ("" none) */
};

/* One kernel's job: its name in the jobs file, its definition (rendered),
 * the file it came from (for messages). */
struct lw_lab_job {
	const char *name;
	char *def;
	const char *file;
};

/*
 * The LAVA job definition in @file (checked: text with 'actions'), every
 * @from in it replaced by @to (when @from is not NULL).  Allocated; NULL
 * after error().
 */
char *lw_lab_job_read(const char *file, const char *from, const char *to);

/*
 * Repeats @first .. @first + @repeat - 1 of each of the @nk jobs
 * submitted to @l, interleaved and placed round the lab's devices as
 * 'latwatt lab submit' places them, recorded in the jobs file @jobs_out
 * (also what was submitted before a failure).  0, or -1 after error().
 */
int lw_lab_submit(struct lw_lava *l, const struct lw_lab_job *job, size_t nk, unsigned first,
		  unsigned repeat, const char *jobs_out);

/*
 * 'latwatt lab wait' on @jobs_file, its progress and summary on stderr,
 * for at most @timeout_ns, looking every @interval_ns; given up (an error)
 * when *@stop is set.  LW_EXIT_OK every job complete, LW_EXIT_FAIL some
 * did not, LW_EXIT_ERROR after error().
 */
int lw_lab_wait(const char *jobs_file, const char *token_file, uint64_t timeout_ns,
		uint64_t interval_ns, volatile sig_atomic_t *stop);

/*
 * The jobs of @jobs_file ('latwatt lab submit') fetched into @out/KERNEL/
 * run-NN (those there already are kept: @out is a cache), through the
 * server the file names, the token from @token_file (NULL: the
 * environment, as 'latwatt lab').  A job that gave no result is named and
 * left out.  Its kernels into @k (at most @max), how many in *@nk.  -1
 * after error().
 */
int lw_lab_fetch_runs(const char *jobs_file, const char *out, const char *token_file,
		      struct lw_lab_kernel *k, size_t max, size_t *nk);

#endif
