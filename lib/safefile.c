// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/safefile.h"

int lw_dir_check(int dfd, const char *path, int strict)
{
	struct stat st;
	uid_t me = geteuid();

	if (fstat(dfd, &st) < 0)
		return error_errno("cannot stat %s", path);
	if (!S_ISDIR(st.st_mode))
		return error("%s is not a directory", path);
	if (st.st_uid != me && (strict || st.st_uid != 0))
		return error("%s belongs to uid %u, not to uid %u running latwatt: refusing to write "
			     "into it", path, (unsigned)st.st_uid, (unsigned)me);
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (strict || !(st.st_mode & S_ISVTX)))
		return error("%s is writable by %s (mode %04o): refusing to write into it", path,
			     (st.st_mode & S_IWOTH) ? "others" : "its group",
			     (unsigned)(st.st_mode & 07777));
	return 0;
}

int lw_dir_open(const char *path, int strict)
{
	int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return error_errno("cannot open directory %s", path);
	if (lw_dir_check(dfd, path, strict) < 0) {
		close(dfd);
		return -1;
	}
	return dfd;
}

int lw_dir_of(const char *path, char *base, size_t len)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	char dir[4096];
	size_t dlen;

	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return error("%s: not a file name", path);
	if (strlen(name) >= len)
		return error("%s: file name too long", path);
	strcpy(base, name);
	if (!slash)
		return lw_dir_open(".", 0);
	dlen = slash == path ? 1 : (size_t)(slash - path);
	if (dlen >= sizeof(dir))
		return error("%s: path too long", path);
	memcpy(dir, path, dlen);
	dir[dlen] = 0;
	return lw_dir_open(dir, 0);
}

/* openat(O_DIRECTORY | O_NOFOLLOW), with ELOOP for a symlink (the kernel
 * says ENOTDIR). */
static int open_subdir(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0 && errno == ENOTDIR && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		errno = ELOOP;
	return fd;
}

int lw_mkdir(const char *path, mode_t mode)
{
	char base[256];
	int dfd = lw_dir_of(path, base, sizeof(base)), fd;

	if (dfd < 0)
		return -1;
	if (mkdirat(dfd, base, mode) < 0 && errno != EEXIST) {
		error_errno("cannot create %s", path);
		close(dfd);
		return -1;
	}
	fd = open_subdir(dfd, base);
	close(dfd);
	if (fd < 0)
		return errno == ELOOP ? error("%s is a symlink: refusing to follow it", path) :
					error_errno("cannot open directory %s", path);
	if (lw_dir_check(fd, path, 1) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int lw_dir_walk(const char *path, size_t keep, mode_t mode)
{
	char buf[4096], *save = NULL, *tok;
	size_t len = strlen(path), at;
	int dfd;

	if (len >= sizeof(buf) || keep > len)
		return error("%s: path too long", path);
	memcpy(buf, path, len + 1);
	if (keep) {
		buf[keep] = 0;
		dfd = lw_dir_open(buf, 0);
		buf[keep] = path[keep];
	} else {
		dfd = lw_dir_open(path[0] == '/' ? "/" : ".", 0);
	}
	for (tok = strtok_r(buf + keep, "/", &save); tok && dfd >= 0;
	     tok = strtok_r(NULL, "/", &save)) {
		int nfd;

		if (!strcmp(tok, "."))
			continue;
		at = (size_t)(tok - buf) + strlen(tok);
		if (!strcmp(tok, "..")) {
			error("%.*s: '..' in a directory to create", (int)at, path);
			close(dfd);
			return -1;
		}
		if (mkdirat(dfd, tok, mode) < 0 && errno != EEXIST) {
			error_errno("cannot create %.*s", (int)at, path);
			close(dfd);
			return -1;
		}
		nfd = open_subdir(dfd, tok);
		close(dfd);
		if (nfd < 0)
			return errno == ELOOP ?
				error("%.*s is a symlink: refusing to follow it", (int)at, path) :
				error_errno("cannot open directory %.*s", (int)at, path);
		memcpy(buf, path, at);	/* strtok_r cut it: the full prefix, for messages */
		buf[at] = 0;
		if (lw_dir_check(nfd, buf, 1) < 0) {
			close(nfd);
			return -1;
		}
		memcpy(buf, path, len + 1);
		buf[at] = 0;		/* where strtok_r left off */
		dfd = nfd;
	}
	return dfd;
}

static int create_at(int dfd, const char *base, const char *path, mode_t mode, int flags)
{
	int fd;

	if (unlinkat(dfd, base, 0) < 0 && errno != ENOENT)
		return error_errno("cannot replace %s", path);
	fd = openat(dfd, base, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return error_errno("cannot create %s", path);
	return fd;
}

int lw_create_flags(const char *path, mode_t mode, int flags)
{
	char base[256];
	int dfd = lw_dir_of(path, base, sizeof(base)), fd;

	if (dfd < 0)
		return -1;
	if (!(flags & O_ACCMODE))
		flags |= O_WRONLY;
	fd = create_at(dfd, base, path, mode, flags);
	close(dfd);
	return fd;
}

int lw_create(const char *path, mode_t mode)
{
	return lw_create_flags(path, mode, O_WRONLY);
}

FILE *lw_fcreate(const char *path, mode_t mode)
{
	int fd = lw_create(path, mode);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		error_errno("cannot open %s", path);
		close(fd);
	}
	return f;
}

FILE *lw_fappend(const char *path, mode_t mode, int *created)
{
	char base[256];
	int dfd = lw_dir_of(path, base, sizeof(base)), fd;
	struct stat st;
	FILE *f;

	*created = 0;
	if (dfd < 0)
		return NULL;
	fd = openat(dfd, base, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		fd = create_at(dfd, base, path, mode, O_WRONLY | O_APPEND);
		*created = fd >= 0;
	} else if (fd < 0) {
		if (errno == ELOOP)
			error("%s is a symlink: refusing to write through it", path);
		else
			error_errno("cannot open %s", path);
	} else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
		   st.st_uid != geteuid()) {
		error("%s is not a regular file of uid %u with one link: refusing to append to it",
		      path, (unsigned)geteuid());
		close(fd);
		fd = -1;
	}
	close(dfd);
	if (fd < 0)
		return NULL;
	fcntl(fd, F_SETFL, O_APPEND);	/* O_NONBLOCK off */
	f = fdopen(fd, "a");
	if (!f) {
		error_errno("cannot open %s", path);
		close(fd);
	}
	return f;
}

int lw_atomic_open(struct lw_atomic *a, const char *path, mode_t mode)
{
	memset(a, 0, sizeof(*a));
	a->fd = -1;
	a->path = path;
	a->dfd = lw_dir_of(path, a->base, sizeof(a->base));
	if (a->dfd < 0)
		return -1;
	for (int tries = 0; tries < 100; tries++) {
		uint64_t r;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid() << 20 ^
			    (uint64_t)tries;
		snprintf(a->tmp, sizeof(a->tmp), "%s.tmp.%012llx", a->base,
			 (unsigned long long)(r & 0xffffffffffffull));
		a->fd = openat(a->dfd, a->tmp,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (a->fd >= 0)
			return a->fd;
		if (errno != EEXIST)
			break;
	}
	error_errno("cannot create a temporary file for %s", path);
	close(a->dfd);
	a->dfd = -1;
	return -1;
}

FILE *lw_atomic_fopen(struct lw_atomic *a, const char *path, mode_t mode)
{
	if (lw_atomic_open(a, path, mode) < 0)
		return NULL;
	a->f = fdopen(a->fd, "w");
	if (!a->f) {
		error_errno("cannot open %s", path);
		lw_atomic_abort(a);
		return NULL;
	}
	return a->f;
}

int lw_atomic_commit(struct lw_atomic *a)
{
	int ret = 0;

	if (a->dfd < 0)
		return -1;
	if (a->f) {
		if (fflush(a->f) == EOF || ferror(a->f))
			ret = error_errno("cannot write %s", a->path);
		if (!ret && fsync(a->fd) < 0 && errno != EINVAL)
			ret = error_errno("cannot write %s", a->path);
		if (fclose(a->f) == EOF && !ret)
			ret = error_errno("cannot write %s", a->path);
	} else if (a->fd >= 0) {
		if (fsync(a->fd) < 0 && errno != EINVAL)
			ret = error_errno("cannot write %s", a->path);
		if (close(a->fd) < 0 && !ret)
			ret = error_errno("cannot write %s", a->path);
	}
	a->f = NULL;
	a->fd = -1;
	if (!ret && renameat(a->dfd, a->tmp, a->dfd, a->base) < 0)
		ret = error_errno("cannot rename %s into place", a->path);
	if (ret)
		unlinkat(a->dfd, a->tmp, 0);
	close(a->dfd);
	a->dfd = -1;
	return ret;
}

void lw_atomic_abort(struct lw_atomic *a)
{
	if (a->f)
		fclose(a->f);
	else if (a->fd >= 0)
		close(a->fd);
	if (a->dfd >= 0) {
		unlinkat(a->dfd, a->tmp, 0);
		close(a->dfd);
	}
	a->f = NULL;
	a->fd = -1;
	a->dfd = -1;
}

int lw_tmpfile(void)
{
	const char *dir = getenv("TMPDIR");
	int dfd, fd = -1;

	if (!dir || dir[0] != '/')
		dir = "/tmp";
	dfd = lw_dir_open(dir, 0);
	if (dfd < 0)
		return -1;
	fd = openat(dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, LW_MODE_PRIVATE);
	for (int tries = 0; fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EEXIST) &&
			    tries < 100; tries++) {
		char name[64];
		uint64_t r;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid() << 20 ^
			    (uint64_t)tries;
		snprintf(name, sizeof(name), "latwatt.scratch.%012llx",
			 (unsigned long long)(r & 0xffffffffffffull));
		fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    LW_MODE_PRIVATE);
		if (fd >= 0)
			unlinkat(dfd, name, 0);
	}
	if (fd < 0)
		error_errno("cannot create a scratch file in %s", dir);
	close(dfd);
	return fd;
}
