// SPDX-License-Identifier: GPL-2.0-only
/* Opening what latwatt reads: regular files only, capped, never waiting on
 * a FIFO; search paths from the environment held to an owner rule. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/input.h"

static const char *kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" :
	       S_ISDIR(m) ? "a directory" : S_ISLNK(m) ? "a symlink" : "not a regular file";
}

/* Owned by root or by us, and not writable by group or others (a folder
 * may be, with the sticky bit). */
static int owned(const struct stat *st, const char *path, const char *origin)
{
	uid_t me = geteuid();

	if (st->st_uid != me && st->st_uid != 0)
		return error("%s (from %s) belongs to uid %u, not to root or uid %u running "
			     "latwatt: not read", path, origin, (unsigned)st->st_uid, (unsigned)me);
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX)))
		return error("%s (from %s) is writable by %s (mode %04o): not read", path, origin,
			     (st->st_mode & S_IWOTH) ? "others" : "its group",
			     (unsigned)(st->st_mode & 07777));
	return 0;
}

/*
 * The entry is looked at before it is opened: O_PATH (with O_NOFOLLOW where
 * asked) gives a descriptor that opens nothing, a device or FIFO is refused
 * on its fstat, and only a regular file is then opened for reading, through
 * /proc/self/fd (the same inode, whatever happens to the name meanwhile).
 * Without /proc the name is opened again with O_NONBLOCK and must be the
 * same inode.
 */
static int open_regular(int dfd, const char *name, const char *path, int flags, struct stat *st)
{
	int nofollow = flags & (LW_IN_NOFOLLOW | LW_IN_OWNED) ? O_NOFOLLOW : 0;
	int pfd = openat(dfd, name, O_PATH | O_CLOEXEC | nofollow), fd, e;
	struct stat again;
	char proc[64];

	if (pfd < 0) {
		e = errno;
		if (!(e == ENOENT && (flags & LW_IN_OPTIONAL)))
			error_errno("cannot open %s", path);
		errno = e;
		return -1;
	}
	if (fstat(pfd, st) < 0) {
		e = errno;
		error_errno("cannot stat %s", path);
		close(pfd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		if (S_ISLNK(st->st_mode))
			error("%s is a symlink: refusing to follow it", path);
		else
			error("%s is %s, not a regular file", path, kind(st->st_mode));
		close(pfd);
		errno = S_ISLNK(st->st_mode) ? ELOOP : EINVAL;
		return -1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)	/* no /proc */
		fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | nofollow);
	e = errno;
	close(pfd);
	if (fd < 0) {
		errno = e;
		error_errno("cannot open %s", path);
		errno = e;
		return -1;
	}
	if (fstat(fd, &again) < 0 || again.st_dev != st->st_dev || again.st_ino != st->st_ino) {
		error("%s changed while it was opened", path);
		close(fd);
		errno = ESTALE;
		return -1;
	}
	*st = again;
	return fd;
}

static int open_at(int dfd, const char *name, const char *path, int flags, uint64_t cap,
		   struct stat *out, const char *origin)
{
	struct stat st;
	int fd = open_regular(dfd, name, path, flags, &st);

	if (fd < 0)
		return -1;
	if (origin && owned(&st, path, origin) < 0) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	if (cap && (uint64_t)st.st_size > cap) {
		error("%s is %llu bytes, more than the %llu it may hold: not read", path,
		      (unsigned long long)st.st_size, (unsigned long long)cap);
		close(fd);
		errno = EFBIG;
		return -1;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		error_errno("%s", path);
		close(fd);
		return -1;
	}
	if (out)
		*out = st;
	return fd;
}

int lw_in_openat(int dfd, const char *name, const char *path, int flags, uint64_t cap,
		 struct stat *st)
{
	return open_at(dfd, name, path, flags & ~LW_IN_OWNED, cap, st, NULL);
}

int lw_in_open(const char *path, int flags, uint64_t cap, struct stat *st)
{
	if (flags & LW_IN_OWNED)
		return lw_in_open_trusted(path, "a search path", flags, cap, st);
	return open_at(AT_FDCWD, path, path, flags, cap, st, NULL);
}

/* The folder holding @path, opened and checked; its last component in
 * *@base.  Returns the descriptor, or -1. */
static int trusted_dir_of(const char *path, const char *origin, const char **base)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	struct stat st;
	size_t n;
	int dfd;

	*base = slash ? slash + 1 : path;
	n = !slash ? 1 : slash == path ? 1 : (size_t)(slash - path);
	if (n >= sizeof(dir))
		return error("%s: path too long", path);
	memcpy(dir, slash ? path : ".", n);
	dir[n] = 0;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return error_errno("cannot open %s (from %s)", dir, origin);
	if (fstat(dfd, &st) < 0 || owned(&st, dir, origin) < 0) {
		close(dfd);
		return -1;
	}
	return dfd;
}

int lw_in_open_trusted(const char *path, const char *origin, int flags, uint64_t cap,
		       struct stat *st)
{
	const char *base;
	int dfd = trusted_dir_of(path, origin, &base), fd;

	if (dfd < 0)
		return -1;
	fd = open_at(dfd, base, path, flags | LW_IN_OWNED, cap, st, origin);
	close(dfd);
	return fd;
}

int lw_in_dir_trusted(const char *dir, const char *origin)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	int ret;

	if (dfd < 0) {
		if (errno == ENOENT)
			return 1;
		return error_errno("cannot open %s (from %s)", dir, origin);
	}
	ret = fstat(dfd, &st) < 0 ? error_errno("cannot stat %s", dir) : owned(&st, dir, origin);
	close(dfd);
	return ret;
}

FILE *lw_in_fopen(const char *path, int flags, uint64_t cap)
{
	int fd = lw_in_open(path, flags, cap, NULL);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f) {
		error_errno("cannot open %s", path);
		close(fd);
	}
	return f;
}

char *lw_in_read_fd(int fd, const char *path, uint64_t cap, size_t *len)
{
	size_t n = 0, size = 0;
	char *buf = NULL;

	for (;;) {
		ssize_t got;

		if (size - n < 2) {
			size_t want = size ? size * 2 : 8192;
			char *nb;

			if (cap && want > cap + 2)
				want = (size_t)cap + 2;
			if (want <= size) {
				error("%s grew past %llu bytes while read: not read", path,
				      (unsigned long long)cap);
				goto fail;
			}
			nb = realloc(buf, want);
			if (!nb) {
				error("out of memory reading %s", path);
				goto fail;
			}
			buf = nb;
			size = want;
		}
		got = read(fd, buf + n, size - n - 1);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			error_errno("cannot read %s", path);
			goto fail;
		}
		if (!got)
			break;
		n += (size_t)got;
		if (cap && n > cap) {
			error("%s grew past %llu bytes while read: not read", path,
			      (unsigned long long)cap);
			goto fail;
		}
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
fail:
	close(fd);
	free(buf);
	return NULL;
}

char *lw_in_read(const char *path, int flags, uint64_t cap, size_t *len)
{
	int fd = lw_in_open(path, flags, cap, NULL);

	return fd < 0 ? NULL : lw_in_read_fd(fd, path, cap, len);
}

ssize_t lw_in_getline(char **line, size_t *cap, FILE *f, size_t max, const char *path,
		      long lineno, int *err)
{
	size_t n = 0;
	int c;

	*err = 0;
	while ((c = getc_unlocked(f)) != EOF) {
		if (n + 2 > *cap) {
			size_t nc = *cap ? *cap * 2 : 256;
			char *nl;

			if (nc > max + 2)
				nc = max + 2;
			if (nc <= *cap) {
				*err = error("%s:%ld: a line longer than %zu bytes", path, lineno, max);
				return -1;
			}
			nl = realloc(*line, nc);
			if (!nl) {
				*err = error("out of memory reading %s", path);
				return -1;
			}
			*line = nl;
			*cap = nc;
		}
		if (!c) {
			*err = error("%s:%ld: a NUL byte: not a text file", path, lineno);
			return -1;
		}
		(*line)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (ferror(f)) {
		*err = error_errno("cannot read %s", path);
		return -1;
	}
	if (!n)
		return -1;
	(*line)[n] = 0;
	return (ssize_t)n;
}

int lw_in_which(const char *program, char *buf, size_t len)
{
	const char *path = getenv("PATH"), *p;

	if (!*program)
		return 1;
	if (strchr(program, '/')) {
		if ((size_t)snprintf(buf, len, "%s", program) >= len)
			return error("%s: path too long", program);
		return access(buf, X_OK) == 0 ? 0 : 1;
	}
	if (!path || !*path)
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	for (p = path; *p;) {
		size_t n = strcspn(p, ":");
		struct stat st;
		int fd;

		/* relative entries (an empty one is the current directory):
		 * never, as root */
		if (n && p[0] == '/' && (size_t)snprintf(buf, len, "%.*s/%s", (int)n, p, program) < len &&
		    stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0) {
			char real[PATH_MAX];

			/* the entry of PATH, then the program where its
			 * symlinks lead (Debian's alternatives), which is
			 * what runs */
			buf[n] = 0;
			if (lw_in_dir_trusted(buf, "PATH") != 0)
				return -1;
			buf[n] = '/';
			if (!realpath(buf, real))
				return error_errno("cannot resolve %s", buf);
			fd = lw_in_open_trusted(real, "PATH", 0, 0, NULL);
			if (fd < 0)
				return -1;
			close(fd);
			if ((size_t)snprintf(buf, len, "%s", real) >= len)
				return error("%s: path too long", real);
			return 0;
		}
		p += n + (p[n] == ':');
	}
	return 1;
}
