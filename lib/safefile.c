// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/input.h"
#include "lib/safefile.h"

int lw_safefile_walk_only;
static int no_openat2;	/* the kernel said ENOSYS once */

static int trusted(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

int lw_dir_check(int dfd, const char *path, int strict)
{
	struct stat st;
	uid_t me = geteuid();

	if (fstat(dfd, &st) < 0)
		return error_errno("cannot stat %s", path);
	if (!S_ISDIR(st.st_mode))
		return error("%s is not a directory", path);
	if (strict ? st.st_uid != me : !trusted(st.st_uid))
		return error("%s belongs to uid %u, not to %suid %u running latwatt: refusing to "
			     "write %s it", path, (unsigned)st.st_uid, strict || !me ? "" : "root or ",
			     (unsigned)me, strict ? "into" : "under");
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (strict || !(st.st_mode & S_ISVTX)))
		return error("%s is writable by %s (mode %04o): refusing to write %s it", path,
			     (st.st_mode & S_IWOTH) ? "others" : "its group",
			     (unsigned)(st.st_mode & 07777), strict ? "into" : "under");
	return 0;
}

static int has_dotdot(const char *name)
{
	for (const char *p = name; (p = strstr(p, "..")); p += 2)
		if ((p == name || p[-1] == '/') && (!p[2] || p[2] == '/'))
			return 1;
	return 0;
}

/* A symlink met where a directory was wanted: the kernel says ENOTDIR. */
static int fix_errno(int dfd, const char *name, int fd)
{
	struct stat st;
	int err = errno;

	if (fd < 0 && err == ENOTDIR && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		err = ELOOP;
	errno = err;
	return fd;
}

static int open_walk(int dfd, const char *name, int flags, mode_t mode)
{
	char buf[PATH_MAX], *p, *slash;
	int cur = dfd, fd;

	if (strlen(name) >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(buf, name);
	for (p = buf; (slash = strchr(p, '/')); p = slash + 1) {
		*slash = 0;
		if (!*p || !strcmp(p, "."))
			continue;
		fd = fix_errno(cur, p, openat(cur, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
		if (cur != dfd) {
			int err = errno;

			close(cur);
			errno = err;
		}
		if (fd < 0)
			return -1;
		cur = fd;
	}
	if (!*p)
		p = ".";
	fd = fix_errno(cur, p, openat(cur, p, flags, mode));
	if (cur != dfd) {
		int err = errno;

		close(cur);
		errno = err;
	}
	return fd;
}

/* O_PATH | O_NOFOLLOW opens a symlink itself, either way: not one of ours */
static int no_link(int fd)
{
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) {
		close(fd);
		errno = ELOOP;
		return -1;
	}
	return fd;
}

int lw_open_beneath(int dfd, const char *name, int flags, mode_t mode)
{
	flags |= O_NOFOLLOW | O_CLOEXEC;
	if (!(flags & O_CREAT) && (flags & O_TMPFILE) != O_TMPFILE)
		mode = 0;
	if (!*name || name[0] == '/' || has_dotdot(name)) {
		errno = *name ? EXDEV : ENOENT;
		return -1;
	}
#ifdef SYS_openat2
	if (!lw_safefile_walk_only && !no_openat2) {
		struct open_how how = {
			.flags = (uint64_t)flags, .mode = mode,
			.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH,
		};
		int fd = (int)syscall(SYS_openat2, dfd, name, &how, sizeof(how));

		if (fd >= 0 || errno != ENOSYS)	/* the last one not followed: ENOTDIR */
			return no_link(fix_errno(dfd, name, fd));
		no_openat2 = 1;	/* before Linux 5.6 */
	}
#endif
	return no_link(open_walk(dfd, name, flags, mode));
}

/*
 * A path made absolute and cut into components: a relative one is taken
 * from the working directory's path (the kernel's, free of symlinks), and
 * '..' may only climb that; anywhere else it is refused, as a lexical '..'
 * after a symlink would name another place than the kernel's.
 */
#define MAX_COMPONENTS 256

struct chain {
	char  buf[PATH_MAX];
	char *c[MAX_COMPONENTS];
	int   n;
	int   keep;		/* components that come from the first @keep bytes */
};

static int chain_add(struct chain *ch, char *p, const char *path, int *dotdot_ok)
{
	char *save = NULL, *tok;

	for (tok = strtok_r(p, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			if (!*dotdot_ok)
				return error("%s: '..' inside a path to write to: give it without",
					     path);
			if (ch->n)
				ch->n--;
			continue;
		}
		*dotdot_ok = 0;
		if (ch->n == MAX_COMPONENTS)
			return error("%s: too many folders", path);
		ch->c[ch->n++] = tok;
	}
	return 0;
}

/* @path into @ch; the components within its first @keep bytes (and the
 * working directory's) counted in ch->keep. */
static int chain_split(struct chain *ch, const char *path, size_t keep)
{
	size_t len = strlen(path), at = 0;
	int dotdot_ok = 0;
	char *kept, *rest;

	ch->n = 0;
	if (!*path)
		return error("an empty path");
	if (keep > len)
		keep = len;
	if (path[0] != '/') {
		if (!getcwd(ch->buf, sizeof(ch->buf)))
			return error_errno("%s: cannot learn the working directory", path);
		at = strlen(ch->buf) + 1;
		if (chain_add(ch, ch->buf, path, &dotdot_ok) < 0)
			return -1;
		dotdot_ok = 1;	/* "../x": the working directory's parent */
	}
	if (at + len + 2 > sizeof(ch->buf))
		return error("%s: path too long", path);
	/* the kept part and the rest cut apart */
	kept = ch->buf + at;
	memcpy(kept, path, keep);
	kept[keep] = 0;
	rest = kept + keep + 1;
	memcpy(rest, path + keep, len - keep + 1);
	if (chain_add(ch, kept, path, &dotdot_ok) < 0)
		return -1;
	ch->keep = ch->n;
	if (chain_add(ch, rest, path, &dotdot_ok) < 0)
		return -1;
	if (ch->keep > ch->n)
		ch->keep = ch->n;
	return 0;
}

/* "/a/b" of the first @n components, for messages. */
static const char *chain_path(const struct chain *ch, int n, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '/';
	buf[1] = 0;
	for (int i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "/%s", ch->c[i]);
	return buf;
}

/*
 * Open the directory @path from "/", following no symlink, each folder
 * checked on its descriptor before anything below it is opened.  The
 * folders within @path's first @keep bytes (and the working directory's)
 * must exist and pass the rule for the way; those after them are made
 * (@mode) when missing if @create, and checked strictly if @strict_keep;
 * the last one strictly if @last_strict.  Returns the descriptor of the
 * last one (O_RDONLY), or -1.
 */
static int chain_open(const char *path, size_t keep, int create, int strict_keep, int last_strict,
		      mode_t mode)
{
	struct chain ch;
	char shown[PATH_MAX + 16];
	int cur, i;

	if (chain_split(&ch, path, keep) < 0)
		return -1;
	cur = open("/", (ch.n ? O_PATH : O_RDONLY) | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return error_errno("cannot open /");
	if (lw_dir_check(cur, "/", !ch.n && last_strict) < 0) {
		close(cur);
		return -1;
	}
	for (i = 0; i < ch.n; i++) {
		int last = i == ch.n - 1, made = i >= ch.keep && create;
		int flags = (last ? O_RDONLY : O_PATH) | O_DIRECTORY, fd;

		chain_path(&ch, i + 1, shown, sizeof(shown));
		fd = lw_open_beneath(cur, ch.c[i], flags, 0);
		if (fd < 0 && errno == ENOENT && made) {
			if (mkdirat(cur, ch.c[i], mode) < 0 && errno != EEXIST) {
				error_errno("cannot create %s", shown);
				close(cur);
				return -1;
			}
			fd = lw_open_beneath(cur, ch.c[i], flags, 0);
		}
		close(cur);
		if (fd < 0) {
			if (errno == ELOOP)
				return error("%s is a symlink: refusing to follow it (give the path "
					     "without symlinks)", shown);
			if (errno == ENOTDIR)
				return error("%s is not a directory", shown);
			if (errno == ENOENT)	/* the directory asked for, not what is missing of it */
				chain_path(&ch, ch.n, shown, sizeof(shown));
			return error_errno("cannot open directory %s", shown);
		}
		if (lw_dir_check(fd, shown, (i >= ch.keep && strict_keep) ||
						(last && last_strict)) < 0) {
			close(fd);
			return -1;
		}
		cur = fd;
	}
	return cur;
}

int lw_dir_open(const char *path, int strict)
{
	return chain_open(path, SIZE_MAX, 0, 0, strict, 0);
}

int lw_dir_walk(const char *path, size_t keep, mode_t mode)
{
	return chain_open(path, keep, 1, 1, 1, mode);
}

int lw_dir_make(const char *path)
{
	return chain_open(path, 0, 1, 0, 1, 0755);
}

int lw_dir_of(const char *path, char *base, size_t len)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	char dir[PATH_MAX];
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

/* @path's last component, checked as a name (@base, @len); the directory to
 * make it in: @dfd dup()ed, or @path's folder opened now. */
static int dir_for(int dfd, const char *path, char *base, size_t len)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	int fd;

	if (dfd < 0)
		return lw_dir_of(path, base, len);
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return error("%s: not a file name", path);
	if (strlen(name) >= len)
		return error("%s: file name too long", path);
	strcpy(base, name);
	fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return error_errno("%s", path);
	return fd;
}

int lw_mkdir_at(int dfd, const char *path, mode_t mode)
{
	char base[256];
	int pfd = dir_for(dfd, path, base, sizeof(base)), fd;

	if (pfd < 0)
		return -1;
	if (mkdirat(pfd, base, mode) < 0 && errno != EEXIST) {
		error_errno("cannot create %s", path);
		close(pfd);
		return -1;
	}
	fd = lw_open_beneath(pfd, base, O_RDONLY | O_DIRECTORY, 0);
	close(pfd);
	if (fd < 0)
		return errno == ELOOP ? error("%s is a symlink: refusing to follow it", path) :
					error_errno("cannot open directory %s", path);
	if (lw_dir_check(fd, path, 1) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int lw_mkdir(const char *path, mode_t mode)
{
	int fd = lw_mkdir_at(LW_AT_PATH, path, mode);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int create_at(int dfd, const char *base, const char *path, mode_t mode, int flags)
{
	int fd;

	if (unlinkat(dfd, base, 0) < 0 && errno != ENOENT)
		return error_errno("cannot replace %s", path);
	fd = lw_open_beneath(dfd, base, flags | O_CREAT | O_EXCL, mode);
	if (fd < 0)
		return error_errno("cannot create %s", path);
	return fd;
}

int lw_create_at(int dfd, const char *path, mode_t mode, int flags)
{
	char base[256];
	int pfd = dir_for(dfd, path, base, sizeof(base)), fd;

	if (pfd < 0)
		return -1;
	if (!(flags & O_ACCMODE))
		flags |= O_WRONLY;
	fd = create_at(pfd, base, path, mode, flags);
	close(pfd);
	return fd;
}

int lw_create_flags(const char *path, mode_t mode, int flags)
{
	return lw_create_at(LW_AT_PATH, path, mode, flags);
}

int lw_create(const char *path, mode_t mode)
{
	return lw_create_at(LW_AT_PATH, path, mode, O_WRONLY);
}

FILE *lw_fcreate_at(int dfd, const char *path, mode_t mode)
{
	int fd = lw_create_at(dfd, path, mode, O_WRONLY);
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

FILE *lw_fcreate(const char *path, mode_t mode)
{
	return lw_fcreate_at(LW_AT_PATH, path, mode);
}

FILE *lw_fappend_at(int dfd, const char *path, mode_t mode, int *created)
{
	char base[256];
	int pfd, fd;
	struct stat st;
	FILE *f;

	*created = 0;
	pfd = dir_for(dfd, path, base, sizeof(base));
	if (pfd < 0)
		return NULL;
	fd = lw_open_beneath(pfd, base, O_WRONLY | O_APPEND | O_NONBLOCK, 0);
	if (fd < 0 && errno == ENOENT) {
		fd = create_at(pfd, base, path, mode, O_WRONLY | O_APPEND);
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
	close(pfd);
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

FILE *lw_fappend(const char *path, mode_t mode, int *created)
{
	return lw_fappend_at(LW_AT_PATH, path, mode, created);
}

int lw_atomic_open_at(struct lw_atomic *a, int dfd, const char *path, mode_t mode)
{
	memset(a, 0, sizeof(*a));
	a->fd = -1;
	a->path = path;
	a->dfd = dir_for(dfd, path, a->base, sizeof(a->base));
	if (a->dfd < 0)
		return -1;
	for (int tries = 0; tries < 100; tries++) {
		uint64_t r;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid() << 20 ^
			    (uint64_t)tries;
		snprintf(a->tmp, sizeof(a->tmp), "%s.tmp.%012llx", a->base,
			 (unsigned long long)(r & 0xffffffffffffull));
		a->fd = lw_open_beneath(a->dfd, a->tmp, O_WRONLY | O_CREAT | O_EXCL, mode);
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

int lw_atomic_open(struct lw_atomic *a, const char *path, mode_t mode)
{
	return lw_atomic_open_at(a, LW_AT_PATH, path, mode);
}

FILE *lw_atomic_fopen_at(struct lw_atomic *a, int dfd, const char *path, mode_t mode)
{
	if (lw_atomic_open_at(a, dfd, path, mode) < 0)
		return NULL;
	a->f = fdopen(a->fd, "w");
	if (!a->f) {
		error_errno("cannot open %s", path);
		lw_atomic_abort(a);
		return NULL;
	}
	return a->f;
}

FILE *lw_atomic_fopen(struct lw_atomic *a, const char *path, mode_t mode)
{
	return lw_atomic_fopen_at(a, LW_AT_PATH, path, mode);
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

int lw_copy_file_at(const char *from, uint64_t cap, int dfd, const char *to)
{
	char buf[65536];
	int in = lw_in_open(from, 0, cap, NULL), out;
	ssize_t n;

	if (in < 0)
		return -1;
	out = lw_create_at(dfd, to, 0644, O_WRONLY);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (n < 0)
		error_errno("cannot copy %s to %s", from, to);
	close(in);
	if (close(out) < 0 && n >= 0)
		n = error_errno("cannot write %s", to);
	return n < 0 ? -1 : 0;
}

/* Only directories and regular files come home. */
static int plain_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if ((flag == FTW_F && S_ISREG(st->st_mode)) || flag == FTW_D || flag == FTW_DP)
		return 0;
	error("%s: not a regular file or directory: refused", path);
	return 1;
}

int lw_tree_plain(const char *dir)
{
	return nftw(dir, plain_entry, 16, FTW_PHYS) ? -1 : 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void lw_tree_remove(const char *dir)
{
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
