/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the libFuzzer harnesses (fuzz/fuzz_NAME.c): latwatt's parsers
 * read files, so each input is written to a file of a private directory
 * (made once per process) and handed to the same library calls the
 * commands make.  Errors are expected and silenced; a crash, a sanitizer
 * report, a hang or an allocation past libFuzzer's limit is a finding.
 */
#ifndef LW_FUZZ_H
#define LW_FUZZ_H

#include <fcntl.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fz_root[256];

static int fz_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static inline void fz_cleanup(void)
{
	if (fz_root[0])
		nftw(fz_root, fz_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* The private directory, created at the first call (removed at exit). */
static inline const char *fz_dir(void)
{
	if (!fz_root[0]) {
		/* memory-backed when there is one: the parsers' writers fsync */
		const char *t = getenv("TMPDIR");

		if (!t || !*t)
			t = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
		snprintf(fz_root, sizeof(fz_root), "%s/latwatt-fuzz.XXXXXX", t);
		if (!mkdtemp(fz_root)) {
			perror(fz_root);
			abort();
		}
		lw_set_quiet(getenv("FUZZ_VERBOSE") == NULL);
		atexit(fz_cleanup);
	}
	return fz_root;
}

/* Write @size bytes to DIR/@name (DIR/@name's path in @path); 0 or -1. */
static inline int fz_write(const char *name, const void *data, size_t size, char *path,
			   size_t len)
{
	int fd;
	const char *p = data;

	snprintf(path, len, "%s/%s", fz_dir(), name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		perror(path);
		abort();
	}
	while (size) {
		ssize_t n = write(fd, p, size);

		if (n <= 0) {
			perror(path);
			abort();
		}
		p += n;
		size -= (size_t)n;
	}
	close(fd);
	return 0;
}

/* Copy the file @from (a fixture) to DIR/@name; aborts on failure. */
static inline void fz_copy(const char *from, const char *name)
{
	char path[512], *buf;
	FILE *f = fopen(from, "rb");
	long n;

	if (!f || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0) {
		perror(from);
		abort();
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		perror(from);
		abort();
	}
	fclose(f);
	fz_write(name, buf, (size_t)n, path, sizeof(path));
	free(buf);
}

/* Remove DIR/@name (a file). */
static inline void fz_unlink(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", fz_dir(), name);
	unlink(path);
}

/*
 * Split an input into @n parts at the separator line "\n--8<--\n" (the
 * first part is everything before the first one): harnesses that need
 * several files take them from one input.  Parts not present are empty.
 */
#define FZ_SEP "\n--8<--\n"
static inline void fz_split(const uint8_t *data, size_t size, int n, const uint8_t **part,
			    size_t *plen)
{
	const size_t sl = sizeof(FZ_SEP) - 1;

	for (int i = 0; i < n; i++) {
		const uint8_t *e = NULL;

		if (i < n - 1)
			e = memmem(data, size, FZ_SEP, sl);
		part[i] = data;
		plen[i] = e ? (size_t)(e - data) : size;
		if (e) {
			size -= plen[i] + sl;
			data = e + sl;
		} else {
			data += size;
			size = 0;
		}
	}
}

#endif
