// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <kbuffer.h>

#include "lib/error.h"
#include "lib/tracedat.h"

#define MAX_WINDOWS 4096	/* per CPU; later losses widen the last window */

/* ---- blobs ---- */

int lw_blob_read(struct lw_blob *b, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, len = 0;
	char *p;

	b->data = NULL;
	b->len = 0;
	if (fd < 0)
		return -1;
	p = malloc(cap);
	while (p) {
		ssize_t n;

		if (len + 1 >= cap) {
			char *q = realloc(p, cap * 2);

			if (!q) {
				free(p);
				p = NULL;
				errno = ENOMEM;
				break;
			}
			p = q;
			cap *= 2;
		}
		n = read(fd, p + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(p);
			p = NULL;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (!p)
		return -1;
	p[len] = 0;
	b->data = p;
	b->len = len;
	return 0;
}

int lw_blob_set(struct lw_blob *b, const char *s)
{
	b->len = strlen(s);
	b->data = strdup(s);
	if (!b->data) {
		b->len = 0;
		return -1;
	}
	return 0;
}

void lw_blob_free(struct lw_blob *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
}

int lw_tracedat_add_format(struct lw_tracedat *d, const char *system, struct lw_blob *fmt)
{
	struct lw_tracedat_system *s = NULL;
	struct lw_blob *f;

	for (int i = 0; i < d->nsys; i++)
		if (!strcmp(d->sys[i].name, system))
			s = &d->sys[i];
	if (!s) {
		struct lw_tracedat_system *ns = realloc(d->sys, (size_t)(d->nsys + 1) * sizeof(*ns));

		if (!ns)
			return -1;
		d->sys = ns;
		s = &d->sys[d->nsys];
		memset(s, 0, sizeof(*s));
		if (!(s->name = strdup(system)))
			return -1;
		d->nsys++;
	}
	f = realloc(s->fmt, (size_t)(s->n + 1) * sizeof(*f));
	if (!f)
		return -1;
	s->fmt = f;
	s->fmt[s->n++] = *fmt;
	fmt->data = NULL;
	fmt->len = 0;
	return 0;
}

void lw_tracedat_free(struct lw_tracedat *d)
{
	lw_blob_free(&d->header_page);
	lw_blob_free(&d->header_event);
	for (int i = 0; i < d->nftrace; i++)
		lw_blob_free(&d->ftrace[i]);
	free(d->ftrace);
	for (int i = 0; i < d->nsys; i++) {
		for (int j = 0; j < d->sys[i].n; j++)
			lw_blob_free(&d->sys[i].fmt[j]);
		free(d->sys[i].fmt);
		free(d->sys[i].name);
	}
	free(d->sys);
	lw_blob_free(&d->kallsyms);
	lw_blob_free(&d->printk);
	lw_blob_free(&d->cmdlines);
	lw_blob_free(&d->clock);
	lw_blob_free(&d->uname);
	lw_blob_free(&d->version);
	if (d->cpustat)
		for (int i = 0; i < d->cpus; i++)
			lw_blob_free(&d->cpustat[i]);
	free(d->cpustat);
	memset(d, 0, sizeof(*d));
}

/* ---- header assembly: a growing little-endian byte buffer ---- */

struct obuf {
	unsigned char *p;
	size_t len, cap;
	int oom;
};

static void put(struct obuf *b, const void *src, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		unsigned char *q;

		while (cap < b->len + n)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q) {
			b->oom = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void put_le(struct obuf *b, uint64_t v, int bytes)
{
	unsigned char tmp[8];

	for (int i = 0; i < bytes; i++)
		tmp[i] = (unsigned char)(v >> (8 * i));
	put(b, tmp, (size_t)bytes);
}

static void put_str0(struct obuf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
}

/* An option whose payload is a NUL-terminated string. */
static void put_opt_str(struct obuf *b, int id, const struct lw_blob *v)
{
	put_le(b, (uint64_t)id, 2);
	put_le(b, v->len + 1, 4);
	put(b, v->data ? v->data : "", v->len);
	put(b, "", 1);
}

static int copy_fd(int out, int in, uint64_t len, const char *from, const char *to)
{
	static char buf[1 << 16];
	loff_t off = 0;
	int use_cfr = 1;

	while ((uint64_t)off < len) {
		size_t want = len - (uint64_t)off > (1u << 30) ? (1u << 30) : (size_t)(len - (uint64_t)off);
		ssize_t n;

		if (use_cfr) {
			n = copy_file_range(in, &off, out, NULL, want, 0);
			if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
				      errno == EOPNOTSUPP)) {
				use_cfr = 0;
				continue;
			}
			if (n < 0)
				return error_errno("cannot copy %s into %s", from, to);
			if (n == 0)
				return error("%s: shorter than expected (%lld of %llu bytes)", from,
					     (long long)off, (unsigned long long)len);
			continue;
		}
		if (want > sizeof(buf))
			want = sizeof(buf);
		n = pread(in, buf, want, off);
		if (n <= 0)
			return n < 0 ? error_errno("cannot read %s", from) :
				error("%s: shorter than expected", from);
		if (write(out, buf, (size_t)n) != n)
			return error_errno("cannot write %s", to);
		off += n;
	}
	return 0;
}

int lw_tracedat_write(const char *path, const struct lw_tracedat *d, const char *const *cpu_paths)
{
	struct obuf b = { 0 };
	uint64_t *size = calloc((size_t)d->cpus + 1, sizeof(*size));
	int *fd = malloc(((size_t)d->cpus + 1) * sizeof(*fd));
	char tmp[4096];
	uint64_t data_off, off;
	int out = -1, ret = -1;
	const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

	if (!size || !fd) {
		free(size);
		free(fd);
		return error("out of memory");
	}
	for (int c = 0; c < d->cpus; c++)
		fd[c] = -1;
	for (int c = 0; c < d->cpus; c++) {
		struct stat st;

		if (!cpu_paths || !cpu_paths[c])
			continue;
		fd[c] = open(cpu_paths[c], O_RDONLY | O_CLOEXEC);
		if (fd[c] < 0 || fstat(fd[c], &st) < 0) {
			error_errno("cannot open %s", cpu_paths[c]);
			goto out;
		}
		/* whole sub-buffers only: a torn last one is left out */
		size[c] = (uint64_t)st.st_size - (uint64_t)st.st_size % d->page_size;
	}

	put(&b, magic, sizeof(magic));
	put_str0(&b, "6");
	put_le(&b, 0, 1);				/* little endian */
	put_le(&b, sizeof(long), 1);			/* user space long */
	put_le(&b, d->page_size, 4);

	put(&b, "header_page", 12);
	put_le(&b, d->header_page.len, 8);
	put(&b, d->header_page.data, d->header_page.len);
	put(&b, "header_event", 13);
	put_le(&b, d->header_event.len, 8);
	put(&b, d->header_event.data, d->header_event.len);

	put_le(&b, (uint64_t)d->nftrace, 4);
	for (int i = 0; i < d->nftrace; i++) {
		put_le(&b, d->ftrace[i].len, 8);
		put(&b, d->ftrace[i].data, d->ftrace[i].len);
	}
	put_le(&b, (uint64_t)d->nsys, 4);
	for (int i = 0; i < d->nsys; i++) {
		put_str0(&b, d->sys[i].name);
		put_le(&b, (uint64_t)d->sys[i].n, 4);
		for (int j = 0; j < d->sys[i].n; j++) {
			put_le(&b, d->sys[i].fmt[j].len, 8);
			put(&b, d->sys[i].fmt[j].data, d->sys[i].fmt[j].len);
		}
	}
	put_le(&b, d->kallsyms.len, 4);
	put(&b, d->kallsyms.data, d->kallsyms.len);
	put_le(&b, d->printk.len, 4);
	put(&b, d->printk.data, d->printk.len);
	put_le(&b, d->cmdlines.len, 8);
	put(&b, d->cmdlines.data, d->cmdlines.len);

	put_le(&b, (uint64_t)d->cpus, 4);
	put(&b, "options  ", 10);
	put_opt_str(&b, LW_TDOPT_TRACECLOCK, &d->clock);
	if (d->uname.len)
		put_opt_str(&b, LW_TDOPT_UNAME, &d->uname);
	if (d->version.len)
		put_opt_str(&b, LW_TDOPT_VERSION, &d->version);
	for (int c = 0; d->cpustat && c < d->cpus; c++)
		if (d->cpustat[c].len)
			put_opt_str(&b, LW_TDOPT_CPUSTAT, &d->cpustat[c]);
	put_le(&b, LW_TDOPT_CPUCOUNT, 2);
	put_le(&b, 4, 4);
	put_le(&b, (uint64_t)d->cpus, 4);
	put_le(&b, LW_TDOPT_DONE, 2);
	put(&b, "flyrecord", 10);

	/* the offsets depend on the header's length, which they are part of */
	data_off = b.len + (uint64_t)d->cpus * 16 + 8 + d->clock.len;
	data_off = (data_off + d->page_size - 1) / d->page_size * d->page_size;
	off = data_off;
	for (int c = 0; c < d->cpus; c++) {
		put_le(&b, size[c] ? off : 0, 8);
		put_le(&b, size[c], 8);
		off += size[c];
	}
	put_le(&b, d->clock.len, 8);
	put(&b, d->clock.data, d->clock.len);
	while (b.len < data_off)
		put(&b, "", 1);
	if (b.oom) {
		error("out of memory for the header of %s", path);
		goto out;
	}

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		error_errno("cannot create %s", tmp);
		goto out;
	}
	if (write(out, b.p, b.len) != (ssize_t)b.len) {
		error_errno("cannot write %s", tmp);
		goto out;
	}
	for (int c = 0; c < d->cpus; c++)
		if (size[c] && copy_fd(out, fd[c], size[c], cpu_paths[c], tmp) < 0)
			goto out;
	if (fsync(out) < 0) {
		error_errno("cannot write %s", tmp);
		goto out;
	}
	if (close(out) < 0) {
		out = -1;
		error_errno("cannot write %s", tmp);
		goto out;
	}
	out = -1;
	if (rename(tmp, path) < 0) {
		error_errno("cannot rename %s to %s", tmp, path);
		goto out;
	}
	ret = 0;
out:
	if (out >= 0) {
		close(out);
		unlink(tmp);
	}
	for (int c = 0; c < d->cpus; c++)
		if (fd[c] >= 0)
			close(fd[c]);
	free(fd);
	free(size);
	free(b.p);
	return ret;
}

/* ---- structural check ---- */

struct rd {
	FILE *f;
	const char *path;
	uint64_t off, size;
	struct lw_tracedat_info *info;
};

static int rd_bytes(struct rd *r, void *dst, uint64_t n, const char *what)
{
	if (n > r->size - r->off)
		return error("%s: truncated at byte %llu (%s needs %llu bytes, %llu left)", r->path,
			     (unsigned long long)r->off, what, (unsigned long long)n,
			     (unsigned long long)(r->size - r->off));
	if (dst) {
		if (fread(dst, 1, (size_t)n, r->f) != n)
			return error_errno("cannot read %s", r->path);
	} else if (fseeko(r->f, (off_t)(r->off + n), SEEK_SET) < 0) {
		return error_errno("cannot read %s", r->path);
	}
	r->off += n;
	return 0;
}

static int rd_le(struct rd *r, int bytes, uint64_t *v, const char *what)
{
	unsigned char tmp[8];

	if (rd_bytes(r, tmp, (uint64_t)bytes, what) < 0)
		return -1;
	*v = 0;
	for (int i = bytes - 1; i >= 0; i--)
		*v = (*v << 8) | tmp[i];
	return 0;
}

static int rd_expect(struct rd *r, const char *s, size_t n)
{
	char buf[16];
	uint64_t at = r->off;

	if (rd_bytes(r, buf, n, s) < 0)
		return -1;
	if (memcmp(buf, s, n))
		return error("%s: byte %llu: expected \"%s\"", r->path, (unsigned long long)at, s);
	return 0;
}

static int rd_string(struct rd *r, char *buf, size_t len, const char *what)
{
	uint64_t at = r->off;

	for (size_t i = 0; ; i++) {
		int c;

		if (r->off >= r->size)
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

static int check_v6(struct rd *r, int long_bytes)
{
	uint64_t n, count, cpus, v;
	int has_clock = 0;
	char name[256];

	if (rd_le(r, 4, &v, "page size") < 0)
		return -1;
	if (v < 64 || v > (1u << 24) || (v & (v - 1)))
		return error("%s: implausible page size %llu", r->path, (unsigned long long)v);
	r->info->page_size = (uint32_t)v;
	if (rd_expect(r, "header_page", 12) < 0 || rd_le(r, 8, &n, "header_page size") < 0 ||
	    rd_bytes(r, NULL, n, "header_page") < 0)
		return -1;
	if (rd_expect(r, "header_event", 13) < 0 || rd_le(r, 8, &n, "header_event size") < 0 ||
	    rd_bytes(r, NULL, n, "header_event") < 0)
		return -1;
	if (rd_le(r, 4, &count, "ftrace format count") < 0)
		return -1;
	for (uint64_t i = 0; i < count; i++)
		if (rd_le(r, 8, &n, "ftrace format size") < 0 ||
		    rd_bytes(r, NULL, n, "ftrace format") < 0)
			return -1;
	if (rd_le(r, 4, &count, "system count") < 0)
		return -1;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t events;

		if (rd_string(r, name, sizeof(name), "system name") < 0 ||
		    rd_le(r, 4, &events, "event count") < 0)
			return -1;
		for (uint64_t j = 0; j < events; j++)
			if (rd_le(r, 8, &n, "event format size") < 0 ||
			    rd_bytes(r, NULL, n, "event format") < 0)
				return -1;
	}
	if (rd_le(r, 4, &n, "kallsyms size") < 0 || rd_bytes(r, NULL, n, "kallsyms") < 0 ||
	    rd_le(r, 4, &n, "printk size") < 0 || rd_bytes(r, NULL, n, "printk formats") < 0 ||
	    rd_le(r, 8, &n, "cmdlines size") < 0 || rd_bytes(r, NULL, n, "cmdlines") < 0 ||
	    rd_le(r, 4, &cpus, "cpu count") < 0)
		return -1;
	if (cpus > 8192)
		return error("%s: implausible cpu count %llu", r->path, (unsigned long long)cpus);
	r->info->cpus = (int)cpus;
	if (rd_bytes(r, name, 10, "section name") < 0)
		return -1;
	if (!memcmp(name, "options  ", 10)) {
		for (;;) {
			uint64_t id;

			if (rd_le(r, 2, &id, "option id") < 0)
				return -1;
			if (id == LW_TDOPT_DONE)
				break;
			if (rd_le(r, 4, &n, "option size") < 0 || rd_bytes(r, NULL, n, "option") < 0)
				return -1;
			if (id == LW_TDOPT_TRACECLOCK)
				has_clock = 1;
		}
		if (rd_bytes(r, name, 10, "section name") < 0)
			return -1;
	}
	if (!memcmp(name, "latency  ", 10))
		return 0;
	if (memcmp(name, "flyrecord", 10))
		return error("%s: byte %llu: expected \"flyrecord\"", r->path,
			     (unsigned long long)(r->off - 10));
	if (r->info->want_ranges) {
		r->info->cpu_off = calloc(cpus + 1, sizeof(uint64_t));
		r->info->cpu_size = calloc(cpus + 1, sizeof(uint64_t));
		if (!r->info->cpu_off || !r->info->cpu_size)
			return error("out of memory");
	}
	for (uint64_t c = 0; c < cpus; c++) {
		uint64_t o, s;

		if (rd_le(r, 8, &o, "cpu data offset") < 0 || rd_le(r, 8, &s, "cpu data size") < 0)
			return -1;
		if (r->info->want_ranges) {
			r->info->cpu_off[c] = o;
			r->info->cpu_size[c] = s;
		}
		if (o > r->size || s > r->size - o)
			return error("%s: data of cpu %llu (%llu bytes at %llu) lies beyond the end "
				     "of the file (%llu bytes)", r->path, (unsigned long long)c,
				     (unsigned long long)s, (unsigned long long)o,
				     (unsigned long long)r->size);
	}
	if (has_clock) {
		char clk[1024] = "";
		const char *b, *e;

		if (rd_le(r, 8, &n, "trace clock size") < 0)
			return -1;
		if (n < sizeof(clk)) {
			if (rd_bytes(r, clk, n, "trace clock") < 0)
				return -1;
			clk[n] = 0;
		} else if (rd_bytes(r, NULL, n, "trace clock") < 0) {
			return -1;
		}
		b = strchr(clk, '[');
		e = b ? strchr(b, ']') : NULL;
		if (b && e && (size_t)(e - b - 1) < sizeof(r->info->clock))
			snprintf(r->info->clock, sizeof(r->info->clock), "%.*s", (int)(e - b - 1), b + 1);
	}
	(void)long_bytes;
	return 0;
}

int lw_tracedat_check(const char *path)
{
	struct lw_tracedat_info info = { 0 };

	return lw_tracedat_check_info(path, &info);
}

int lw_tracedat_check_info(const char *path, struct lw_tracedat_info *info)
{
	struct rd r = { .path = path, .info = info };
	struct stat st;
	char magic[10], ver[16];
	unsigned char el[2];
	int ret, want = info->want_ranges;

	memset(info, 0, sizeof(*info));
	info->want_ranges = want;
	info->cpus = -1;

	r.f = fopen(path, "rb");
	if (!r.f)
		return error_errno("cannot open %s", path);
	if (fstat(fileno(r.f), &st) < 0) {
		fclose(r.f);
		return error_errno("cannot stat %s", path);
	}
	r.size = (uint64_t)st.st_size;
	ret = rd_bytes(&r, magic, 10, "magic");
	if (!ret && memcmp(magic, "\x17\x08\x44tracing", 10))
		ret = error("%s: not a trace-cmd trace.dat file (bad magic)", path);
	if (!ret)
		ret = rd_string(&r, ver, sizeof(ver), "version");
	if (!ret)
		ret = rd_bytes(&r, el, 2, "endianness and long size");
	if (!ret && (el[0] > 1 || (el[1] != 4 && el[1] != 8)))
		ret = error("%s: byte 14: bad endianness/long size %u/%u", path, el[0], el[1]);
	if (!ret && el[0] != 0)
		ret = error("%s: big-endian trace files are not supported", path);
	if (!ret) {
		char *end;
		long v = strtol(ver, &end, 10);

		info->version = (int)v;
		if (*end || v < 6 || v > 7)
			ret = error("%s: unsupported trace.dat version '%s'", path, ver);
		else if (v == 6)
			ret = check_v6(&r, el[1]);
	}
	fclose(r.f);
	if (ret < 0) {
		free(info->cpu_off);
		free(info->cpu_size);
		info->cpu_off = info->cpu_size = NULL;
	}
	return ret;
}

static int rd_blob(struct rd *r, struct lw_blob *b, int size_bytes, const char *what)
{
	uint64_t n;

	if (rd_le(r, size_bytes, &n, what) < 0)
		return -1;
	if (n > r->size - r->off)
		return error("%s: truncated at byte %llu (%s needs %llu bytes)", r->path,
			     (unsigned long long)r->off, what, (unsigned long long)n);
	b->data = malloc(n + 1);
	if (!b->data)
		return error("out of memory");
	b->len = n;
	b->data[n] = 0;
	return rd_bytes(r, b->data, n, what);
}

static int rd_blob_n(struct rd *r, struct lw_blob *b, uint64_t n, const char *what)
{
	if (n > r->size - r->off)
		return error("%s: truncated at byte %llu (%s needs %llu bytes)", r->path,
			     (unsigned long long)r->off, what, (unsigned long long)n);
	b->data = malloc(n + 1);
	if (!b->data)
		return error("out of memory");
	b->len = n;
	b->data[n] = 0;
	return rd_bytes(r, b->data, n, what);
}

/* An option's string payload: without its NUL. */
static void strip_nul(struct lw_blob *b)
{
	while (b->len && !b->data[b->len - 1])
		b->len--;
}

static int read_v6(struct rd *r, struct lw_tracedat *d, uint64_t **off, uint64_t **size)
{
	uint64_t v, count, id, n;
	char name[256];
	int cpustats = 0;

	if (rd_le(r, 4, &v, "page size") < 0)
		return -1;
	d->page_size = (uint32_t)v;
	if (rd_expect(r, "header_page", 12) < 0 || rd_blob(r, &d->header_page, 8, "header_page") < 0 ||
	    rd_expect(r, "header_event", 13) < 0 || rd_blob(r, &d->header_event, 8, "header_event") < 0 ||
	    rd_le(r, 4, &count, "ftrace format count") < 0)
		return -1;
	if (count > 4096)
		return error("%s: implausible ftrace format count", r->path);
	d->ftrace = calloc(count + 1, sizeof(*d->ftrace));
	if (!d->ftrace)
		return error("out of memory");
	for (uint64_t i = 0; i < count; i++, d->nftrace++)
		if (rd_blob(r, &d->ftrace[i], 8, "ftrace format") < 0)
			return -1;
	if (rd_le(r, 4, &count, "system count") < 0)
		return -1;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t events;

		if (rd_string(r, name, sizeof(name), "system name") < 0 ||
		    rd_le(r, 4, &events, "event count") < 0)
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
	    rd_blob(r, &d->cmdlines, 8, "cmdlines") < 0 || rd_le(r, 4, &v, "cpu count") < 0)
		return -1;
	if (v < 1 || v > 8192)
		return error("%s: implausible cpu count %llu", r->path, (unsigned long long)v);
	d->cpus = (int)v;
	d->cpustat = calloc(v, sizeof(*d->cpustat));
	*off = calloc(v, sizeof(**off));
	*size = calloc(v, sizeof(**size));
	if (!d->cpustat || !*off || !*size)
		return error("out of memory");
	if (rd_expect(r, "options  ", 10) < 0)
		return -1;
	for (;;) {
		struct lw_blob b = { 0 };

		if (rd_le(r, 2, &id, "option id") < 0)
			return -1;
		if (id == LW_TDOPT_DONE)
			break;
		if (rd_le(r, 4, &n, "option size") < 0 || rd_blob_n(r, &b, n, "option") < 0) {
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
	if (rd_expect(r, "flyrecord", 10) < 0)
		return -1;
	for (int c = 0; c < d->cpus; c++) {
		if (rd_le(r, 8, &(*off)[c], "cpu data offset") < 0 ||
		    rd_le(r, 8, &(*size)[c], "cpu data size") < 0)
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
	struct rd r = { .path = path, .info = &info };
	struct stat st;
	char head[16];
	int ret;

	memset(d, 0, sizeof(*d));
	*off = *size = NULL;
	if (lw_tracedat_check_info(path, &info) < 0)
		return -1;
	if (info.version != 6)
		return error("%s: only version 6 files can be read back (this is %d)", path,
			     info.version);
	r.f = fopen(path, "rb");
	if (!r.f)
		return error_errno("cannot open %s", path);
	fstat(fileno(r.f), &st);
	r.size = (uint64_t)st.st_size;
	ret = rd_bytes(&r, head, 14, "initial format") < 0 ? -1 : read_v6(&r, d, off, size);
	fclose(r.f);
	if (ret < 0) {
		lw_tracedat_free(d);
		free(*off);
		free(*size);
		*off = *size = NULL;
	}
	return ret;
}

/* ---- page scan ---- */

int lw_header_page_long_size(const char *hp)
{
	const char *p = hp ? strstr(hp, "commit;") : NULL;
	int v;

	if (p && (p = strstr(p, "size:")) && sscanf(p, "size:%d", &v) == 1 && (v == 4 || v == 8))
		return v;
	return (int)sizeof(long);
}

static void add_window(struct lw_page_scan *s, uint64_t from, uint64_t to, int64_t count)
{
	if (to < from)
		to = from;
	if (s->nwin && (s->nwin == MAX_WINDOWS || s->win[s->nwin - 1].to_ns >= from)) {
		struct lw_window *w = &s->win[s->nwin - 1];

		if (to > w->to_ns)
			w->to_ns = to;
		w->count = (w->count < 0 || count < 0) ? -1 : w->count + count;
		return;
	}
	if (!(s->nwin & (s->nwin - 1)) || !s->win) {
		size_t cap = s->nwin ? s->nwin * 2 : 4;
		struct lw_window *w = realloc(s->win, cap * sizeof(*w));

		if (!w)
			return;	/* keep what we have; the counters stay exact */
		s->win = w;
	}
	s->win[s->nwin++] = (struct lw_window){ from, to, count };
}

int lw_page_scan_begin(struct lw_page_scanner *ps, uint32_t page_size, int long_size,
		       uint64_t start_ns, struct lw_page_scan *out)
{
	memset(out, 0, sizeof(*out));
	memset(ps, 0, sizeof(*ps));
	ps->kb = kbuffer_alloc(long_size == 4 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8,
			       KBUFFER_ENDIAN_LITTLE);
	ps->page = malloc(page_size);
	if (!ps->kb || !ps->page) {
		lw_page_scan_end(ps);
		return error("out of memory");
	}
	ps->page_size = page_size;
	ps->long_size = long_size;
	ps->prev_last = start_ns;
	ps->out = out;
	return 0;
}

void lw_page_scan_feed(struct lw_page_scanner *ps, const void *data, size_t len)
{
	struct lw_page_scan *s = ps->out;
	const unsigned char *p = data;
	uint32_t page_size = ps->page_size;
	size_t hdr = 8 + (size_t)ps->long_size;
	unsigned char *page = ps->page;

	for (size_t off = 0; off + page_size <= len; off += page_size) {
		unsigned long long ts;
		uint64_t commit = 0, first, last;
		void *ev;
		int missed;

		/* a private copy: kbuffer may swap, and the input may be read-only */
		memcpy(page, p + off, page_size);
		for (int i = ps->long_size - 1; i >= 0; i--)
			commit = (commit << 8) | page[8 + i];
		s->pages++;
		if ((commit & ((1u << 27) - 1)) > page_size - hdr ||
		    kbuffer_load_subbuffer(ps->kb, page) < 0) {
			s->bad_pages++;
			continue;
		}
		s->bytes += commit & ((1u << 27) - 1);
		missed = kbuffer_missed_events(ps->kb);
		ev = kbuffer_read_event(ps->kb, &ts);
		first = ev ? ts : kbuffer_subbuf_timestamp(ps->kb, page);
		if (missed) {
			s->missed_pages++;
			if (missed > 0)
				s->missed_events += (uint64_t)missed;
			else
				s->missed_unknown++;
			add_window(s, ps->prev_last, first, missed > 0 ? missed : -1);
		}
		last = first;
		while (ev) {
			s->events++;
			last = ts;
			ev = kbuffer_next_event(ps->kb, &ts);
		}
		if (s->events && !s->first_ns)
			s->first_ns = first;
		if (last > s->last_ns)
			s->last_ns = last;
		ps->prev_last = last;
	}
}

void lw_page_scan_end(struct lw_page_scanner *ps)
{
	if (ps->kb)
		kbuffer_free(ps->kb);
	free(ps->page);
	ps->kb = NULL;
	ps->page = NULL;
}

int lw_page_scan(const void *data, size_t len, uint32_t page_size, int long_size,
		 uint64_t start_ns, struct lw_page_scan *s)
{
	struct lw_page_scanner ps;

	if (lw_page_scan_begin(&ps, page_size, long_size, start_ns, s) < 0)
		return -1;
	lw_page_scan_feed(&ps, data, len);
	lw_page_scan_end(&ps);
	return 0;
}

void lw_page_scan_free(struct lw_page_scan *s)
{
	free(s->win);
	s->win = NULL;
	s->nwin = 0;
}
