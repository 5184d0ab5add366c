// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/sysfs.h"

int lw_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int err = errno;

		close(fd);
		errno = err;	/* the caller may say why */
		return -1;
	}
	close(fd);
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return (int)n;
}

int lw_write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(value);
	ssize_t n;

	if (fd < 0)
		return error_errno("cannot open %s", path);
	n = write(fd, value, len);
	if (n < 0 || (size_t)n != len) {
		int ret = error_errno("cannot write '%s' to %s", value, path);
		close(fd);
		return ret;
	}
	close(fd);
	return 0;
}

int64_t lw_pmqos_read(const char *dev)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC);
	int32_t v;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, &v, sizeof(v));
	close(fd);
	return n == sizeof(v) ? v : -1;
}

/* Field 22 of /proc/PID/stat: when the process started, in clock ticks
 * since boot (fixed for the process's life); 0 when unreadable.  The
 * command name (field 2) may hold spaces and parentheses: fields are
 * counted from its closing parenthesis, the last one in the line. */
unsigned long long lw_proc_starttime(long pid)
{
	char path[64], buf[1024], *p;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (lw_read_file(path, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')))
		return 0;
	/* ") S ppid ...": field 3 (the state) starts two characters on */
	p += 2;
	for (int field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p)
			return 0;
		p++;
	}
	return strtoull(p, NULL, 10);
}
