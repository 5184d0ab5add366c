/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Writing files as root into directories that may not be ours.
 *
 * Every file latwatt writes goes through here.  The directory that will hold
 * it is opened once and checked through its descriptor: it must be owned by
 * the user running latwatt (or by root), and not writable by group or others
 * unless it has the sticky bit (like /tmp).  The file is then created
 * relative to that descriptor with O_NOFOLLOW | O_EXCL, either fresh (an
 * existing entry of that name is unlinked first, never opened) or as a
 * unique temporary file renamed over the name when complete.  A symlink or
 * hard link planted under the name is therefore replaced, never written
 * through.
 *
 *	struct lw_atomic a;
 *	FILE *f = lw_atomic_fopen(&a, "RUN/analysis.json", 0644);
 *	... write to f ...
 *	return lw_atomic_commit(&a);	(or lw_atomic_abort(&a) on error)
 */
#ifndef LW_SAFEFILE_H
#define LW_SAFEFILE_H

#include <stdio.h>
#include <sys/types.h>

/* Mode for files that hold kernel addresses (trace.dat, kallsyms copies). */
#define LW_MODE_PRIVATE 0600

/* Check the directory open at @dfd (@path names it in messages). Strict:
 * owned by the running user and not writable by group or others, sticky or
 * not (the rule for a run directory).  Otherwise a root-owned sticky
 * directory such as /tmp is accepted too. */
int lw_dir_check(int dfd, const char *path, int strict);
/* Open the directory @path and check it; returns the descriptor or -1. */
int lw_dir_open(const char *path, int strict);
/* Open the directory that holds @path and check it; the last component of
 * @path is stored in @base (at most @len bytes).  Returns the descriptor. */
int lw_dir_of(const char *path, char *base, size_t len);
/* Create directory @path in a checked parent, or accept it if it exists and
 * passes the strict check.  0 or -1. */
int lw_mkdir(const char *path, mode_t mode);
/* Open the directory @path: its first @keep bytes name a directory that
 * must exist (followed, checked like lw_dir_of's); every component after
 * them is created if missing (mode @mode) and opened without following a
 * symlink, each checked strictly.  @keep 0: all of @path is walked.  Returns
 * the descriptor of the last directory, or -1. */
int lw_dir_walk(const char *path, size_t keep, mode_t mode);

/* Create @path fresh (an existing entry is removed first); returns an
 * O_WRONLY descriptor, or -1. */
int lw_create(const char *path, mode_t mode);
/* The same with extra open flags (O_RDWR instead of O_WRONLY, O_APPEND). */
int lw_create_flags(const char *path, mode_t mode, int flags);
/* lw_create as a stdio stream ("w" or "wb"). */
FILE *lw_fcreate(const char *path, mode_t mode);
/* Open @path for appending if it is a regular file of ours with one link
 * (never a symlink), else create it; *@created says which. */
FILE *lw_fappend(const char *path, mode_t mode, int *created);

/* A scratch file with no name: created in $TMPDIR (an absolute path; else
 * /tmp), the directory checked as lw_dir_open(dir, 0) does, with O_TMPFILE,
 * or where that is not supported under a unique name (O_EXCL | O_NOFOLLOW)
 * unlinked at once.  Nothing is left behind however the process ends.
 * Returns an O_RDWR descriptor (mode 0600), or -1. */
int lw_tmpfile(void);

struct lw_atomic {
	int   dfd;
	int   fd;
	FILE *f;
	char  base[256];
	char  tmp[288];
	const char *path;	/* borrowed for messages: keep it alive until commit */
};

/* A unique temporary file next to @path; lw_atomic_commit renames it over
 * @path.  Returns the descriptor (or the stream) or -1 (NULL). */
int lw_atomic_open(struct lw_atomic *a, const char *path, mode_t mode);
FILE *lw_atomic_fopen(struct lw_atomic *a, const char *path, mode_t mode);
/* Flush, sync, close and rename into place; on failure the temporary file
 * is removed.  0 or -1. */
int lw_atomic_commit(struct lw_atomic *a);
/* Close and remove the temporary file. */
void lw_atomic_abort(struct lw_atomic *a);

#endif
