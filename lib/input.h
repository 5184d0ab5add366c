/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Opening what latwatt reads.
 *
 * Every file latwatt reads from a run directory, a search path or a name
 * given on the command line is opened here, once.  The open is O_NONBLOCK
 * (a FIFO's open never waits for a writer); the descriptor is then fstat'ed
 * and anything but a regular file (FIFO, device, socket, directory) is
 * refused, and so is a file larger than the cap its reader gives (from what
 * the manifest says the file holds, or a fixed bound for its kind), so that
 * a FIFO or /dev/zero planted in a run directory neither hangs a reader nor
 * fills its memory.  O_NONBLOCK is cleared for the reading.  Messages name
 * the file and the problem, never the file's content.
 *
 *	char *text = lw_in_read(path, LW_IN_NOFOLLOW, LW_CAP_JSON, &len);
 *	FILE *f = lw_in_fopen(path, LW_IN_NOFOLLOW, cap);
 */
#ifndef LW_INPUT_H
#define LW_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

enum {
	/* a symlink as the last component is refused: the files of a run
	 * directory, which whoever made the run directory could point at
	 * any file root can read */
	LW_IN_NOFOLLOW = 1 << 0,
	/* found through a search path of the environment (LATWATT_BOARDS,
	 * LATWATT_SCENARIO_PATH, PATH): the file and the folder holding it
	 * must be owned by root or the user running latwatt and not writable
	 * by group or others (the folder may be sticky, as /tmp is) */
	LW_IN_OWNED = 1 << 1,
	/* a missing file: -1 with errno ENOENT, and no message */
	LW_IN_OPTIONAL = 1 << 2,
};

/* Caps for files whose size no manifest gives (bytes). */
#define LW_CAP_YAML	(1 << 20)		/* board and scenario files */
#define LW_CAP_MANIFEST	(16ull << 20)		/* manifest.json, idle.json */
#define LW_CAP_JSON	(256ull << 20)		/* analysis.json, comparisons, cyclictest */
#define LW_CAP_TEXT	(1ull << 30)		/* CSV meter logs, RUN/monitor */
#define LW_CAP_POWER	(2ull << 30)		/* RUN/power: 100 Hz, 4 rails, 24 h */
#define LW_CAP_LINE	(64 << 10)		/* a line of a text file latwatt reads */

/*
 * Open @path for reading as above; @cap 0: no cap.  Returns the
 * descriptor (O_RDONLY | O_CLOEXEC, blocking), with its stat in @st when
 * not NULL, or -1 after error().
 */
int lw_in_open(const char *path, int flags, uint64_t cap, struct stat *st);
/* The same for @name in the directory open at @dfd (@path names it in
 * messages). */
int lw_in_openat(int dfd, const char *name, const char *path, int flags, uint64_t cap,
		 struct stat *st);
/* lw_in_open() as a stdio stream ("r"). */
FILE *lw_in_fopen(const char *path, int flags, uint64_t cap);
/* The whole file, NUL-terminated (the NUL not counted in *@len), read
 * through lw_in_open(); no more than @cap bytes are ever read.  NULL after
 * error(). */
char *lw_in_read(const char *path, int flags, uint64_t cap, size_t *len);
/* The same from an open descriptor (closed), @path naming it. */
char *lw_in_read_fd(int fd, const char *path, uint64_t cap, size_t *len);
/*
 * getline() that holds a line to @max bytes (newline included): a longer
 * one is an error naming @path and the line number @lineno, not memory
 * taken.  The line's length, -1 at the end of the file (*@err 0) or after
 * error() (*@err -1).
 */
ssize_t lw_in_getline(char **line, size_t *cap, FILE *f, size_t max, const char *path,
		      long lineno, int *err);

/*
 * A folder named by @origin (an environment variable): owned by root or
 * the user running latwatt and not writable by group or others unless
 * sticky.  0 when it may be searched, 1 when it does not exist, -1 after
 * error() naming it and @origin.
 */
int lw_in_dir_trusted(const char *dir, const char *origin);
/* The file @path found through @origin, opened with LW_IN_OWNED's checks
 * on it and its folder (messages name @origin); as lw_in_open(). */
int lw_in_open_trusted(const char *path, const char *origin, int flags, uint64_t cap,
		       struct stat *st);

/*
 * @program looked up in $PATH for running it as root: relative entries
 * (and empty ones, which mean the current directory) are skipped, and the
 * program found must pass lw_in_open_trusted()'s checks (on the program
 * and its folder).  A name with a '/' is taken as it is.  The path in @buf;
 * 0, 1 when not found (no message), or -1 after error().
 */
int lw_in_which(const char *program, char *buf, size_t len);

#endif
