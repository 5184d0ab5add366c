/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Writing files as root into directories that may not be ours.
 *
 * Every file latwatt writes goes through here.  The directory that will hold
 * it is opened once, with every folder on the way to it checked through its
 * descriptor (the folder chain, below), and the file is then created
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

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Mode for files that hold kernel addresses (trace.dat, kallsyms copies). */
#define LW_MODE_PRIVATE 0600

/*
 * The folder chain.  A directory latwatt writes into is reached from "/"
 * one folder at a time, following no symlink (a relative path is taken from
 * the working directory's own path; '..' only at its start), and every folder
 * on the way is checked through its descriptor:
 *
 *   on the way   owned by root or by the user running latwatt (its effective
 *                uid), and writable by group or others only with the sticky
 *                bit (like /tmp): then nobody else can rename or replace what
 *                comes next in it, which is ours or root's by the same rule
 *   the last     the same (a file's folder, e.g. a report's); or, strict:
 *                owned by the user running latwatt and writable by no one
 *                else, sticky or not (a run directory, the folder of the
 *                results database, directories latwatt makes)
 *
 * so that no one but root and that user can redirect what latwatt writes.
 */

/* Check the directory open at @dfd (@path names it in messages): strict, or
 * by the rule for folders on the way. */
int lw_dir_check(int dfd, const char *path, int strict);
/* Open the directory @path, its folder chain checked, the last folder
 * strictly if @strict; returns the descriptor or -1. */
int lw_dir_open(const char *path, int strict);
/* Open the directory that holds @path and check its chain; the last
 * component of @path is stored in @base (at most @len bytes).  Returns the
 * descriptor. */
int lw_dir_of(const char *path, char *base, size_t len);
/* Create directory @path in a checked parent, or accept it if it exists and
 * passes the strict check.  0 or -1. */
int lw_mkdir(const char *path, mode_t mode);
/* Open the directory @path: the folders within its first @keep bytes must
 * exist and pass the rule for the way; every component after them is
 * created if missing (mode @mode) and checked strictly.  @keep 0: all of
 * @path is created and checked so.  Returns the descriptor of the last
 * directory, or -1. */
int lw_dir_walk(const char *path, size_t keep, mode_t mode);
/* Open the directory @path, making every missing folder of it (mode 0755):
 * the chain checked, the last folder strictly.  The descriptor, or -1. */
int lw_dir_make(const char *path);

/* Open @name, relative to @dfd and beneath it (one component or several,
 * no '..', not absolute), following no symlink on the way or at the end:
 * openat2(2) with RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH where the kernel has
 * it, else a walk of openat(O_NOFOLLOW) one component at a time.  O_NOFOLLOW
 * and O_CLOEXEC are added to @flags.  A descriptor, or -1 with errno (ELOOP
 * for a symlink, EXDEV for '..' or an absolute name); prints nothing. */
int lw_open_beneath(int dfd, const char *name, int flags, mode_t mode);
/* Tests: 1 makes lw_open_beneath() walk even where openat2(2) exists. */
extern int lw_safefile_walk_only;

/*
 * Files.  Each call takes the descriptor of the directory that holds the
 * file (@dfd, e.g. a run directory's, opened once) and @path, whose last
 * component is the name created there and which names the file in
 * messages.  @dfd LW_AT_PATH: @path's folder is opened and checked now
 * (lw_dir_of()).
 */
#define LW_AT_PATH (-1)

/* Create @path fresh (an existing entry is removed first); returns an
 * O_WRONLY descriptor (@flags: O_RDWR instead, O_APPEND), or -1. */
int lw_create_at(int dfd, const char *path, mode_t mode, int flags);
int lw_create(const char *path, mode_t mode);
int lw_create_flags(const char *path, mode_t mode, int flags);
/* Copy @from (read as lib/input.h reads what it is given: a regular file of
 * at most @cap bytes) to @path created fresh in @dfd; 0, or -1 after error(). */
int lw_copy_file_at(const char *from, uint64_t cap, int dfd, const char *path);
/* lw_create as a stdio stream ("w"). */
FILE *lw_fcreate_at(int dfd, const char *path, mode_t mode);
FILE *lw_fcreate(const char *path, mode_t mode);
/* Open @path for appending if it is a regular file of ours with one link
 * (never a symlink), else create it; *@created says which. */
FILE *lw_fappend_at(int dfd, const char *path, mode_t mode, int *created);
FILE *lw_fappend(const char *path, mode_t mode, int *created);
/* Make the directory @path (or take it if it is there and passes the strict
 * check) and return its descriptor, or -1. */
int lw_mkdir_at(int dfd, const char *path, mode_t mode);

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

/* A unique temporary file next to @path (in @dfd); lw_atomic_commit renames
 * it over @path.  Returns the descriptor (or the stream) or -1 (NULL). */
int lw_atomic_open_at(struct lw_atomic *a, int dfd, const char *path, mode_t mode);
int lw_atomic_open(struct lw_atomic *a, const char *path, mode_t mode);
FILE *lw_atomic_fopen_at(struct lw_atomic *a, int dfd, const char *path, mode_t mode);
FILE *lw_atomic_fopen(struct lw_atomic *a, const char *path, mode_t mode);
/* Flush, sync, close and rename into place; on failure the temporary file
 * is removed.  0 or -1. */
int lw_atomic_commit(struct lw_atomic *a);
/* Close and remove the temporary file. */
void lw_atomic_abort(struct lw_atomic *a);

/*
 * A tree unpacked from elsewhere (a board's run directory, a lab's upload)
 * before it is taken in: 0 when it holds only directories and regular
 * files, not following links; else -1 after error() naming the first other
 * thing.  lw_tree_remove() removes such a tree, not following links.
 */
int lw_tree_plain(const char *dir);
void lw_tree_remove(const char *dir);

#endif
