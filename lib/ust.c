// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loading the LTTng-UST provider (liblatwatt-ust.so, lib/ust_provider.c)
 * when a run wants LTTng.  The library is code run as root: it is taken only
 * from fixed places relative to the running binary, checked (regular file,
 * owner, permissions) on the descriptor that is then loaded, so that what
 * was checked is what runs.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/ust.h"

const struct lw_ust_ops *lw_ust;

#ifdef LW_HAVE_LTTNG
const int lw_ust_built = 1;
#else
const int lw_ust_built = 0;
#endif

/* A session daemon's pid file names a live process. */
static int pidfile_alive(const char *dir)
{
	char path[PATH_MAX], buf[32];
	FILE *f;
	long pid = 0;

	if (snprintf(path, sizeof(path), "%s/lttng-sessiond.pid", dir) >= (int)sizeof(path))
		return 0;
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		pid = strtol(buf, NULL, 10);
	fclose(f);
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

int lw_ust_sessiond_running(void)
{
	struct passwd *pw;
	char dir[PATH_MAX];

	if (pidfile_alive("/var/run/lttng"))	/* the root daemon, for every user */
		return 1;
	/* the user's own daemon: its home from the password database */
	pw = geteuid() ? getpwuid(geteuid()) : NULL;
	if (pw && pw->pw_dir && snprintf(dir, sizeof(dir), "%s/.lttng", pw->pw_dir) <
	    (int)sizeof(dir))
		return pidfile_alive(dir);
	return 0;
}

#if defined(LW_HAVE_LTTNG) && !defined(LW_STATIC)
/* Open @path if it is a library we may run: a regular file, not a symlink,
 * owned by root or by the owner of @exe_st, writable by no one else. */
static int open_checked(const char *path, const struct stat *exe_st, char *why, size_t len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, len, "%s: not a regular file", path);
	} else if (st.st_uid != 0 && st.st_uid != exe_st->st_uid) {
		snprintf(why, len, "%s: owned by uid %u, neither root nor the binary's owner",
			 path, (unsigned)st.st_uid);
	} else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, len, "%s: writable by group or others", path);
	} else {
		return fd;
	}
	close(fd);
	return -1;
}

static int load(char *why, size_t len)
{
	char exe[PATH_MAX], path[PATH_MAX + 64], fdpath[64];
	const char *const rel[] = { "/" LW_UST_LIBRARY, "/../lib/latwatt/" LW_UST_LIBRARY };
	struct stat exe_st;
	const struct lw_ust_ops *ops;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	void *h;
	int fd = -1;

	if (n <= 0 || stat("/proc/self/exe", &exe_st) < 0) {
		snprintf(why, len, "cannot find the running binary: %s", strerror(errno));
		return -1;
	}
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash) {
		snprintf(why, len, "cannot find the running binary's directory");
		return -1;
	}
	*slash = 0;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]) && fd < 0; i++) {
		snprintf(path, sizeof(path), "%s%s", exe, rel[i]);
		if (i && access(path, F_OK) < 0)
			break;	/* keep the reason of the first place */
		fd = open_checked(path, &exe_st, why, len);
	}
	if (fd < 0)
		return -1;
	/* load what was checked: the descriptor, not the name again */
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	h = dlopen(fdpath, RTLD_NOW | RTLD_LOCAL);
	close(fd);
	if (!h) {
		snprintf(why, len, "%s: %s", path, dlerror());
		return -1;
	}
	ops = dlsym(h, LW_UST_OPS_SYMBOL);
	if (!ops || ops->abi != LW_UST_ABI) {
		snprintf(why, len, "%s: not the provider of this latwatt (%s)", path,
			 ops ? "another version" : "no " LW_UST_OPS_SYMBOL);
		dlclose(h);
		return -1;
	}
	/* never unloaded: liblttng-ust's threads live until the process ends */
	lw_ust = ops;
	snprintf(why, len, "%s", path);
	return 0;
}
#else
static int load(char *why, size_t len)
{
#ifdef LW_STATIC
	snprintf(why, len, "a static latwatt cannot load the LTTng provider");
#else
	snprintf(why, len, "latwatt was built without liblttng-ust");
#endif
	return -1;
}
#endif

int lw_ust_load(enum lw_ust_mode mode, char *why, size_t len)
{
	char reason[PATH_MAX + 128];

	if (lw_ust) {
		snprintf(why, len, "loaded");
		return 0;
	}
	if (mode == LW_UST_OFF) {
		snprintf(why, len, "off (--lttng off)");
		return 0;
	}
	if (mode == LW_UST_AUTO && !lw_ust_sessiond_running()) {
		snprintf(why, len, "not loaded: no LTTng session daemon (--lttng on loads it)");
		return 0;
	}
	if (load(reason, sizeof(reason)) == 0) {
		snprintf(why, len, "loaded from %s", reason);
		return 0;
	}
	snprintf(why, len, "not loaded: %s", reason);
	if (mode == LW_UST_ON)
		return error("--lttng on: cannot load the LTTng provider: %s", reason);
	warning("LTTng session daemon found, but no LTTng events: %s", reason);
	return 0;
}
