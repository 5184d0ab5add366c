// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading a trace.dat header: the byte reader the structural check shares
 * (lib/tracedat_int.h), and lw_tracedat_read(), which reads a version 6
 * header back into struct lw_tracedat (the tests and the fuzz harness use
 * it to check what lw_tracedat_write() wrote).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/input.h"
#include "lib/tracedat.h"
#include "lib/tracedat_int.h"

int lw_rd_bytes(struct lw_rd *r, void *dst, uint64_t n, const char *what)
{
	uint64_t end = r->end ? r->end : r->size;

	if (r->off > end || n > end - r->off)
		return error("%s: truncated at byte %llu (%s needs %llu bytes, %llu left%s)",
			     r->path, (unsigned long long)r->off, what, (unsigned long long)n,
			     (unsigned long long)(r->off > end ? 0 : end - r->off),
			     end < r->size ? " in its section" : "");
	if (dst) {
		if (fread(dst, 1, (size_t)n, r->f) != n)
			return error_errno("cannot read %s", r->path);
	} else if (fseeko(r->f, (off_t)(r->off + n), SEEK_SET) < 0) {
		return error_errno("cannot read %s", r->path);
	}
	r->off += n;
	return 0;
}

int lw_rd_seek(struct lw_rd *r, uint64_t off, const char *what)
{
	if (off > r->size)
		return error("%s: %s at byte %llu lies beyond the end of the file (%llu bytes)",
			     r->path, what, (unsigned long long)off, (unsigned long long)r->size);
	if (fseeko(r->f, (off_t)off, SEEK_SET) < 0)
		return error_errno("cannot read %s", r->path);
	r->off = off;
	return 0;
}

int lw_rd_le(struct lw_rd *r, int bytes, uint64_t *v, const char *what)
{
	unsigned char tmp[8];

	if (lw_rd_bytes(r, tmp, (uint64_t)bytes, what) < 0)
		return -1;
	*v = 0;
	for (int i = bytes - 1; i >= 0; i--)
		*v = (*v << 8) | tmp[i];
	return 0;
}

int lw_rd_expect(struct lw_rd *r, const char *s, size_t n)
{
	char buf[16];
	uint64_t at = r->off;

	if (lw_rd_bytes(r, buf, n, s) < 0)
		return -1;
	if (memcmp(buf, s, n))
		return error("%s: byte %llu: expected \"%s\"", r->path, (unsigned long long)at, s);
	return 0;
}

int lw_rd_string(struct lw_rd *r, char *buf, size_t len, const char *what)
{
	uint64_t at = r->off, end = r->end ? r->end : r->size;

	for (size_t i = 0; ; i++) {
		int c;

		if (r->off >= end)
			return error("%s: truncated at byte %llu (in %s)", r->path,
				     (unsigned long long)r->off, what);
		c = fgetc(r->f);
		if (c == EOF)
			return error_errno("cannot read %s", r->path);
		r->off++;
		if (i < len)
			buf[i] = (char)c;
		if (!c)
			break;
		if (i + 1 >= len)
			return error("%s: byte %llu: %s is too long", r->path,
				     (unsigned long long)at, what);
	}
	return 0;
}

/* A declared size, against its limit. */
int lw_rd_size(struct lw_rd *r, int bytes, uint64_t *n, uint64_t max, const char *what)
{
	uint64_t at = r->off;

	if (lw_rd_le(r, bytes, n, what) < 0)
		return -1;
	if (*n > max)
		return error("%s: byte %llu: %s of %llu is more than the %llu this reader accepts",
			     r->path, (unsigned long long)at, what, (unsigned long long)*n,
			     (unsigned long long)max);
	return 0;
}

static int rd_blob_n(struct lw_rd *r, struct lw_blob *b, uint64_t n, const char *what)
{
	if (n > r->size - r->off)
		return error("%s: truncated at byte %llu (%s needs %llu bytes)", r->path,
			     (unsigned long long)r->off, what, (unsigned long long)n);
	b->data = malloc(n + 1);
	if (!b->data)
		return error("out of memory");
	b->len = n;
	b->data[n] = 0;
	return lw_rd_bytes(r, b->data, n, what);
}

/* A blob preceded by its size in @size_bytes little-endian bytes. */
static int rd_blob(struct lw_rd *r, struct lw_blob *b, int size_bytes, const char *what)
{
	uint64_t n;

	if (lw_rd_le(r, size_bytes, &n, what) < 0)
		return -1;
	return rd_blob_n(r, b, n, what);
}

/* An option's string payload: without its NUL. */
static void strip_nul(struct lw_blob *b)
{
	while (b->len && !b->data[b->len - 1])
		b->len--;
}

static int read_v6(struct lw_rd *r, struct lw_tracedat *d, uint64_t **off, uint64_t **size)
{
	uint64_t v, count, id, n;
	char name[256];
	int cpustats = 0;

	if (lw_rd_le(r, 4, &v, "page size") < 0)
		return -1;
	d->page_size = (uint32_t)v;
	if (lw_rd_expect(r, "header_page", 12) < 0 ||
	    rd_blob(r, &d->header_page, 8, "header_page") < 0 ||
	    lw_rd_expect(r, "header_event", 13) < 0 ||
	    rd_blob(r, &d->header_event, 8, "header_event") < 0 ||
	    lw_rd_le(r, 4, &count, "ftrace format count") < 0)
		return -1;
	if (count > 4096)
		return error("%s: implausible ftrace format count", r->path);
	d->ftrace = calloc(count + 1, sizeof(*d->ftrace));
	if (!d->ftrace)
		return error("out of memory");
	for (uint64_t i = 0; i < count; i++, d->nftrace++)
		if (rd_blob(r, &d->ftrace[i], 8, "ftrace format") < 0)
			return -1;
	if (lw_rd_le(r, 4, &count, "system count") < 0)
		return -1;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t events;

		if (lw_rd_string(r, name, sizeof(name), "system name") < 0 ||
		    lw_rd_le(r, 4, &events, "event count") < 0)
			return -1;
		for (uint64_t j = 0; j < events; j++) {
			struct lw_blob fmt = { 0 };

			if (rd_blob(r, &fmt, 8, "event format") < 0 ||
			    lw_tracedat_add_format(d, name, &fmt) < 0) {
				lw_blob_free(&fmt);
				return -1;
			}
		}
	}
	if (rd_blob(r, &d->kallsyms, 4, "kallsyms") < 0 || rd_blob(r, &d->printk, 4, "printk") < 0 ||
	    rd_blob(r, &d->cmdlines, 8, "cmdlines") < 0 || lw_rd_le(r, 4, &v, "cpu count") < 0)
		return -1;
	if (v < 1 || v > 8192)
		return error("%s: implausible cpu count %llu", r->path, (unsigned long long)v);
	d->cpus = (int)v;
	d->cpustat = calloc(v, sizeof(*d->cpustat));
	*off = calloc(v, sizeof(**off));
	*size = calloc(v, sizeof(**size));
	if (!d->cpustat || !*off || !*size)
		return error("out of memory");
	if (lw_rd_expect(r, "options  ", 10) < 0)
		return -1;
	for (;;) {
		struct lw_blob b = { 0 };

		if (lw_rd_le(r, 2, &id, "option id") < 0)
			return -1;
		if (id == LW_TDOPT_DONE)
			break;
		if (lw_rd_le(r, 4, &n, "option size") < 0 || rd_blob_n(r, &b, n, "option") < 0) {
			lw_blob_free(&b);
			return -1;
		}
		strip_nul(&b);
		switch (id) {
		case LW_TDOPT_TRACECLOCK:
			lw_blob_free(&d->clock);
			d->clock = b;
			break;
		case LW_TDOPT_UNAME:
			lw_blob_free(&d->uname);
			d->uname = b;
			break;
		case LW_TDOPT_VERSION:
			lw_blob_free(&d->version);
			d->version = b;
			break;
		case LW_TDOPT_CPUSTAT:
			if (cpustats < d->cpus) {
				d->cpustat[cpustats++] = b;
				break;
			}
			/* fall through */
		default:
			lw_blob_free(&b);
			break;
		}
	}
	if (lw_rd_expect(r, "flyrecord", 10) < 0)
		return -1;
	for (int c = 0; c < d->cpus; c++) {
		if (lw_rd_le(r, 8, &(*off)[c], "cpu data offset") < 0 ||
		    lw_rd_le(r, 8, &(*size)[c], "cpu data size") < 0)
			return -1;
		if ((*off)[c] > r->size || (*size)[c] > r->size - (*off)[c])
			return error("%s: data of cpu %d lies beyond the end of the file", r->path, c);
	}
	lw_blob_free(&d->clock);
	return rd_blob(r, &d->clock, 8, "trace clock");
}

int lw_tracedat_read(const char *path, struct lw_tracedat *d, uint64_t **off, uint64_t **size)
{
	struct lw_tracedat_info info = { 0 };
	struct lw_rd r = { .path = path, .info = &info };
	struct stat st;
	char head[16];
	int ret, fd;

	memset(d, 0, sizeof(*d));
	*off = *size = NULL;
	fd = lw_in_open(path, 0, 0, NULL);
	if (fd < 0)
		return -1;
	if (lw_tracedat_check_fd(fd, path, &info) < 0) {
		close(fd);
		return -1;
	}
	if (info.version != 6) {
		close(fd);
		return error("%s: only version 6 files can be read back (this is %d)", path,
			     info.version);
	}
	r.f = fdopen(fd, "rb");
	if (!r.f) {
		close(fd);
		return error_errno("cannot open %s", path);
	}
	fstat(fileno(r.f), &st);
	r.size = (uint64_t)st.st_size;
	ret = lw_rd_bytes(&r, head, 14, "initial format") < 0 ? -1 : read_v6(&r, d, off, size);
	fclose(r.f);
	if (ret < 0) {
		lw_tracedat_free(d);
		free(*off);
		free(*size);
		*off = *size = NULL;
	}
	return ret;
}
