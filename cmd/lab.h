/* SPDX-License-Identifier: GPL-2.0-only */
/* Lab jobs as runs: what 'latwatt compare --runner lava' takes from cmd/lab.c. */
#ifndef LW_CMD_LAB_H
#define LW_CMD_LAB_H

#include <limits.h>
#include <stddef.h>

struct lw_lab_kernel {
	char name[64];		/* the kernel's name in the jobs file */
	char dir[PATH_MAX];	/* its directory of repeats (OUT/NAME) */
	size_t jobs, runs;	/* its jobs; those that gave a run */
};

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
