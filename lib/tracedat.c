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
#include "lib/input.h"
#include "lib/safefile.h"
#include "lib/tracedat.h"

#define MAX_WINDOWS 4096	/* per CPU; later losses widen the last window */

/* A descriptor of its own for the file open at @fd, read from its start
 * (/proc/self/fd: not the shared file offset of dup()). */
static int open_dup(int fd)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return open(proc, O_RDONLY | O_CLOEXEC);
}

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

int lw_tracedat_write(int dfd, const char *path, const struct lw_tracedat *d, const int *cpu_fds,
		      const char *const *cpu_names)
{
	struct obuf b = { 0 };
	uint64_t *size = calloc((size_t)d->cpus + 1, sizeof(*size));
	char tmp[4096];
	uint64_t data_off, off;
	int out = -1, ret = -1;
	struct lw_atomic at;
	const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

	if (!size)
		return error("out of memory");
	for (int c = 0; c < d->cpus; c++) {
		struct stat st;

		if (!cpu_fds || cpu_fds[c] < 0)
			continue;
		if (fstat(cpu_fds[c], &st) < 0) {
			error_errno("cannot read %s", cpu_names[c]);
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

	/* kallsyms and the events hold kernel addresses: 0600, never through a link */
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	out = lw_atomic_open_at(&at, dfd, path, LW_MODE_PRIVATE);
	if (out < 0)
		goto out;
	if (write(out, b.p, b.len) != (ssize_t)b.len) {
		error_errno("cannot write %s", tmp);
		goto out;
	}
	for (int c = 0; c < d->cpus; c++)
		if (size[c] && copy_fd(out, cpu_fds[c], size[c], cpu_names[c], tmp) < 0)
			goto out;
	out = -1;
	if (lw_atomic_commit(&at) < 0)
		goto out;
	ret = 0;
out:
	if (out >= 0)
		lw_atomic_abort(&at);
	free(size);
	free(b.p);
	return ret;
}

/* ---- structural check ---- */

/*
 * Limits on what a header may declare: far above what a kernel writes (a
 * format is 1-3 KB, kallsyms 5-10 MB, a few hundred events), far below
 * what would make a parser behind the check allocate or loop for long.
 */
#define MAX_HDR_TEXT	(64u << 10)	/* header_page, header_event */
#define MAX_FORMAT	(256u << 10)	/* one event format */
#define MAX_FORMATS	65536u		/* ftrace formats; events of a system */
#define MAX_SYSTEMS	4096u
#define MAX_KALLSYMS	(256u << 20)
#define MAX_TEXT	(64u << 20)	/* printk formats, command lines */
#define MAX_OPTION	(64u << 20)
#define MAX_CPUS	8192u
#define MAX_SECTIONS	1024		/* v7 options sections */

struct rd {
	FILE *f;
	const char *path;
	uint64_t off, size;
	uint64_t end;			/* of the region being read (file or section) */
	int long_size;			/* the kernel's, from header_page */
	struct lw_tracedat_info *info;
};

static int rd_bytes(struct rd *r, void *dst, uint64_t n, const char *what)
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

static int rd_seek(struct rd *r, uint64_t off, const char *what)
{
	if (off > r->size)
		return error("%s: %s at byte %llu lies beyond the end of the file (%llu bytes)",
			     r->path, what, (unsigned long long)off, (unsigned long long)r->size);
	if (fseeko(r->f, (off_t)off, SEEK_SET) < 0)
		return error_errno("cannot read %s", r->path);
	r->off = off;
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
static int rd_size(struct rd *r, int bytes, uint64_t *n, uint64_t max, const char *what)
{
	uint64_t at = r->off;

	if (rd_le(r, bytes, n, what) < 0)
		return -1;
	if (*n > max)
		return error("%s: byte %llu: %s of %llu is more than the %llu this reader accepts",
			     r->path, (unsigned long long)at, what, (unsigned long long)*n,
			     (unsigned long long)max);
	return 0;
}

/*
 * Text sections, read and checked line by line against the form the kernel
 * writes them in, so that the parsers behind the check (libtraceevent's)
 * only ever see that form.  @line returns NULL when a line is good, else
 * what is wrong with it.
 */
typedef const char *(*line_check)(const char *s, size_t n);

static int hexrun(const char *s, size_t n, size_t *i)
{
	size_t b = *i;

	while (*i < n && ((s[*i] >= '0' && s[*i] <= '9') || ((s[*i] | 32) >= 'a' && (s[*i] | 32) <= 'f')))
		(*i)++;
	return *i > b && *i - b <= 16;
}

static int decrun(const char *s, size_t n, size_t *i)
{
	size_t b = *i;

	while (*i < n && s[*i] >= '0' && s[*i] <= '9')
		(*i)++;
	return *i > b && *i - b <= 10;
}

static int printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\t' && s[i] != '\n')
			return 0;
	return 1;
}

/* "ffffffff81000000 T _stext" or "... t name\t[module]" */
static const char *kallsyms_line(const char *s, size_t n)
{
	size_t i = 0;

	if (!hexrun(s, n, &i) || i + 3 > n || s[i] != ' ' || s[i + 1] == ' ' || s[i + 2] != ' ' ||
	    i + 3 == n || !printable(s + i + 3, n - i - 3))
		return "not \"ADDRESS TYPE NAME\"";
	return NULL;
}

/* 0xffffffff82000000 : "format\n" */
static const char *printk_line(const char *s, size_t n)
{
	size_t i = 2;

	if (n < 2 || s[0] != '0' || s[1] != 'x' || !hexrun(s, n, &i) || n - i < 5 ||
	    memcmp(s + i, " : \"", 4) || s[n - 1] != '"' || !printable(s, n))
		return "not 0xADDRESS : \"FORMAT\"";
	return NULL;
}

/* "1234 comm" */
static const char *cmdline_line(const char *s, size_t n)
{
	size_t i = 0;

	if (!decrun(s, n, &i) || i + 1 >= n || s[i] != ' ' || !printable(s, n))
		return "not \"PID COMMAND\"";
	return NULL;
}

/* Read @n bytes of text; NUL-free, and each line good for @line (an
 * empty last line allowed).  *@out gets the text when asked (malloc'ed,
 * NUL-terminated). */
static int rd_text(struct rd *r, uint64_t n, const char *what, line_check line, char **out)
{
	uint64_t at = r->off;
	char *buf;
	const char *p, *e;

	if (n > (r->end ? r->end : r->size) - r->off)
		return rd_bytes(r, NULL, n, what);
	buf = malloc(n + 1);
	if (!buf)
		return error("out of memory for %s of %s", what, r->path);
	if (rd_bytes(r, buf, n, what) < 0) {
		free(buf);
		return -1;
	}
	buf[n] = 0;
	if (memchr(buf, 0, n)) {
		uint64_t z = (uint64_t)((char *)memchr(buf, 0, n) - buf);

		free(buf);
		return error("%s: byte %llu: a NUL byte in %s", r->path,
			     (unsigned long long)(at + z), what);
	}
	for (p = buf; line && p < buf + n; p = e + 1) {
		const char *why;

		e = memchr(p, '\n', (size_t)(buf + n - p));
		if (!e)
			e = buf + n;
		if (e == p && e == buf + n)
			break;
		why = line(p, (size_t)(e - p));
		if (why) {
			error("%s: byte %llu: %s line %.40s%s: %s", r->path,
			      (unsigned long long)(at + (uint64_t)(p - buf)), what,
			      printable(p, (size_t)(e - p) < 40 ? (size_t)(e - p) : 40) ? p : "(binary)",
			      e - p > 40 ? "..." : "", why);
			free(buf);
			return -1;
		}
	}
	if (out)
		*out = buf;
	else
		free(buf);
	return 0;
}

/*
 * The print format's arguments are C expressions that libtraceevent's
 * parser takes apart, and that parser does not survive every malformed one.
 * They are checked here token by token against the shape kernels write:
 * a string, then comma-separated expressions of identifiers, numbers,
 * strings, operators, casts, calls and { value, "name" } lists, brackets
 * balanced and nested, every operator between operands.
 */
enum { T_OPERAND, T_OPEN, T_CLOSE, T_COMMA, T_SEMI, T_BINOP, T_STAR, T_UNARY, T_MEMBER, T_IDENT };

/* The field names of a format (pointers into its text). */
#define MAX_FIELDS 512
struct fnames {
	const char *name[MAX_FIELDS];
	size_t len[MAX_FIELDS];
	int n;
};

static int is_field(const struct fnames *f, const char *s, size_t n)
{
	for (int i = 0; i < f->n; i++)
		if (f->len[i] == n && !memcmp(f->name[i], s, n))
			return 1;
	return 0;
}

/* "REC->" or "(REC)->" ends at @s[i]: the record's own fields follow */
static int after_rec(const char *s, size_t i)
{
	while (i && (s[i - 1] == ' ' || s[i - 1] == ')'))
		i--;
	return i >= 3 && !memcmp(s + i - 3, "REC", 3) &&
	       (i == 3 || !(s[i - 4] == '_' || (s[i - 4] >= '0' && s[i - 4] <= '9') ||
			    ((s[i - 4] | 32) >= 'a' && (s[i - 4] | 32) <= 'z')));
}

static const char *print_fmt_check(const char *s, size_t n, const struct fnames *f)
{
	char stack[32];
	int depth = 0, prev = T_COMMA, first = 1, want_field = 0, divide = 0;
	size_t i = 0;

	while (i < n) {
		char c = s[i];
		int t;

		if (c == ' ' || c == '\t' || c == '\n') {
			i++;
			continue;
		}
		if (c == '"' || c == '\'') {
			for (i++; i < n && s[i] != c; i++)
				if (s[i] == '\\' && ++i >= n)
					break;
			if (i >= n)
				return "an unterminated string in the print format";
			i++;
			t = T_OPERAND;
		} else if ((c >= '0' && c <= '9')) {
			while (i < n && (s[i] == '_' || s[i] == '.' || (s[i] >= '0' && s[i] <= '9') ||
					 ((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z')))
				i++;
			t = T_OPERAND;
		} else if (c == '_' || ((c | 32) >= 'a' && (c | 32) <= 'z')) {
			while (i < n && (s[i] == '_' || (s[i] >= '0' && s[i] <= '9') ||
					 ((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z')))
				i++;
			t = T_IDENT;
		} else if (c == '(' || c == '[' || c == '{') {
			if (depth == (int)sizeof(stack))
				return "brackets nested too deep in the print format";
			if (c == '{' && prev != T_COMMA && prev != T_OPEN && prev != T_SEMI &&
			    prev != T_BINOP)
				return "a { list where no value may start in the print format";
			if (c == '[' && prev != T_OPERAND && prev != T_IDENT && prev != T_CLOSE)
				return "an index without a value in the print format";
			stack[depth++] = c;
			i++;
			t = T_OPEN;
		} else if (c == ')' || c == ']' || c == '}') {
			char want = c == ')' ? '(' : c == ']' ? '[' : '{';

			if (!depth || stack[--depth] != want)
				return "unbalanced brackets in the print format";
			/* "f()", and the end of a cast "(char *)" */
			if (prev != T_OPERAND && prev != T_IDENT && prev != T_CLOSE &&
			    prev != T_OPEN && !(c == ')' && prev == T_STAR) &&
			    !(c == '}' && prev == T_SEMI))
				return "a bracket closed after an operator in the print format";
			i++;
			t = T_CLOSE;
		} else if (c == ',') {
			if (prev != T_OPERAND && prev != T_IDENT && prev != T_CLOSE)
				return "an empty argument in the print format";
			i++;
			t = T_COMMA;
		} else if (c == ';') {
			/* statement expressions: ({ int x = (REC->a); ... ; }) */
			if (!depth || stack[depth - 1] != '{' ||
			    (prev != T_OPERAND && prev != T_IDENT && prev != T_CLOSE))
				return "a ; outside a { } block in the print format";
			i++;
			t = T_SEMI;
		} else if (c == '-' && i + 1 < n && s[i + 1] == '>') {
			/* libtraceevent looks REC->NAME up among the fields and
			 * does not survive a name that is not one */
			want_field = after_rec(s, i);
			i += 2;
			t = T_MEMBER;
		} else if (c == '.') {
			i++;
			t = T_MEMBER;
		} else if (strchr("+-*&!~/%|^<>=?:", c)) {
			size_t b = i++;

			if (i < n && strchr("&|<>=", s[i]) && (s[i] == c || s[i] == '=') && c != '?' && c != ':')
				i++;
			if (i - b == 1 && (c == '!' || c == '~'))
				t = T_UNARY;
			else if (i - b == 1 && (c == '*' || c == '&' || c == '-' || c == '+'))
				t = (prev == T_OPERAND || prev == T_IDENT || prev == T_CLOSE) ?
				    (c == '*' ? T_STAR : T_BINOP) : T_UNARY;
			else
				t = T_BINOP;
		} else {
			return "a character the print format cannot hold";
		}
		if (first) {
			if (c != '"')
				return "the print format does not begin with a string";
			first = 0;
		}
		/* libtraceevent folds constants, and an operand it cannot resolve
		 * counts as 0: only a non-zero number or a sizeof may divide */
		if (divide && !(t == T_OPERAND && c >= '1' && c <= '9') &&
		    !(t == T_IDENT && i >= 6 && !memcmp(s + i - 6, "sizeof", 6)))
			return "a division by something other than a non-zero number or a "
			       "sizeof in the print format";
		divide = t == T_BINOP && (c == '/' || c == '%') && i >= 1 && s[i - 1] == c;
		/* operators between operands */
		if ((t == T_BINOP || t == T_STAR) && prev != T_OPERAND && prev != T_IDENT &&
		    prev != T_CLOSE)
			return "an operator without a left operand in the print format";
		if (prev == T_MEMBER && t != T_IDENT)
			return "-> or . without a member name in the print format";
		if (prev == T_MEMBER && want_field) {
			size_t b = i;

			while (b && (s[b - 1] == '_' || (s[b - 1] >= '0' && s[b - 1] <= '9') ||
				     ((s[b - 1] | 32) >= 'a' && (s[b - 1] | 32) <= 'z')))
				b--;
			if (!is_field(f, s + b, i - b))
				return "REC-> names a field the format does not have";
			want_field = 0;
		}
		if (t == T_OPERAND && (prev == T_OPERAND || prev == T_IDENT) && c != '"')
			return "two values without an operator in the print format";
		prev = t;
	}
	if (first)
		return "an empty print format";
	if (depth)
		return "unbalanced brackets in the print format";
	if (prev != T_OPERAND && prev != T_IDENT && prev != T_CLOSE)
		return "the print format ends with an operator";
	return NULL;
}

/*
 * An event format ("name: N\nID: N\nformat:\n\tfield:...;\toffset:N;\t
 * size:N;\tsigned:N;\n...\nprint fmt: ..."): the lines libtraceevent's
 * parser relies on, each field within a record (records live in one
 * page), and a print format on one line.
 */
static const char *format_text(const char *s, size_t n, uint32_t page_size)
{
	const char *p = s, *end = s + n, *id, *fmt, *pf;
	int fields = 0;
	struct fnames *names;
	const char *why;

	if (n < 6 || memcmp(s, "name: ", 6))
		return "does not begin with \"name: \"";
	id = memmem(s, n, "\nID: ", 5);
	fmt = memmem(s, n, "\nformat:\n", 9);
	pf = memmem(s, n, "\nprint fmt: ", 12);
	if (!id || !fmt || !pf || id > fmt || fmt > pf)
		return "lacks \"ID:\", \"format:\" or \"print fmt:\" in that order";
	{
		size_t i = 5;

		if (!decrun(id, (size_t)(end - id), &i) || id[i] != '\n')
			return "ID is not a number";
		/* records hold the id in common_type, an unsigned short */
		if (strtoul(id + 5, NULL, 10) > 65535)
			return "ID beyond 65535";
	}
	if (!printable(s, (size_t)(fmt - s)))
		return "control characters in its name";
	for (p = fmt + 9; p < pf + 1; ) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		const char *o, *z;
		unsigned long off, size;

		if (!e)
			e = end;
		if (e == p) {		/* blank lines separate common and own fields */
			p = e + 1;
			continue;
		}
		if (e - p < 7 || memcmp(p, "\tfield:", 7))
			return "a field line does not begin with \"\\tfield:\"";
		if (!printable(p, (size_t)(e - p)))
			return "control characters in a field line";
		{
			/* "field:DECLARATION;" in plain ASCII, its brackets closed,
			 * ending in a name or "]" */
			const char *q = p + 7, *semi = memchr(q, ';', (size_t)(e - q));
			int br = 0;

			if (!semi || semi == q)
				return "a field line without \"TYPE NAME;\"";
			for (const char *x = q; x < semi; x++) {
				if ((unsigned char)*x < 0x20 || (unsigned char)*x > 0x7e)
					return "a field declaration that is not plain ASCII";
				br += *x == '[';
				br -= *x == ']';
				if (br < 0 || br > 1)
					return "unbalanced brackets in a field declaration";
			}
			if (br || !(semi[-1] == ']' || semi[-1] == '_' ||
				    (semi[-1] >= '0' && semi[-1] <= '9') ||
				    ((semi[-1] | 32) >= 'a' && (semi[-1] | 32) <= 'z')))
				return "a field declaration that does not end in its name";
		}
		o = memmem(p, (size_t)(e - p), "\toffset:", 8);
		z = memmem(p, (size_t)(e - p), "\tsize:", 6);
		if (!o || !z || sscanf(o, "\toffset:%lu;", &off) != 1 ||
		    sscanf(z, "\tsize:%lu;", &size) != 1)
			return "a field without offset or size";
		if (off > page_size || size > page_size || off + size > page_size)
			return "a field beyond any record";
		fields++;
		p = e + 1;
	}
	if (!fields)
		return "no fields";
	if (fields > MAX_FIELDS)
		return "more than 512 fields";
	pf += 12;
	if (!printable(pf, (size_t)(end - pf) - (end[-1] == '\n')))
		return "control characters in the print format";
	names = calloc(1, sizeof(*names));
	if (!names)
		return "out of memory";
	for (p = fmt + 9; p < pf - 11; ) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		const char *semi, *b;

		if (!e)
			e = end;
		semi = e - p > 7 ? memchr(p + 7, ';', (size_t)(e - p - 7)) : NULL;
		if (semi) {
			/* "field:TYPE NAME[N];": NAME */
			b = semi;
			if (b > p + 7 && b[-1] == ']')
				while (b > p + 7 && *--b != '[')
					;
			semi = b;
			while (b > p + 7 && (b[-1] == '_' || (b[-1] >= '0' && b[-1] <= '9') ||
					     ((b[-1] | 32) >= 'a' && (b[-1] | 32) <= 'z')))
				b--;
			names->name[names->n] = b;
			names->len[names->n++] = (size_t)(semi - b);
		}
		p = e + 1;
	}
	why = print_fmt_check(pf, (size_t)(end - pf), names);
	free(names);
	return why;
}

static int rd_format(struct rd *r, uint64_t n, const char *what)
{
	uint64_t at = r->off;
	char *text = NULL;
	const char *why;

	if (rd_text(r, n, what, NULL, &text) < 0 || !text)
		return -1;
	why = format_text(text, n, r->info->page_size);
	if (why) {
		error("%s: byte %llu: %s %.60s: %s", r->path, (unsigned long long)at, what,
		      strncmp(text, "name: ", 6) ? "" : strtok(text + 6, "\n"), why);
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

/* header_page, header_event: text, and the kernel's long size from the
 * first. */
static int rd_header_text(struct rd *r, const char *name, size_t namelen)
{
	uint64_t n;
	char *text = NULL;

	if (rd_expect(r, name, namelen) < 0 || rd_size(r, 8, &n, MAX_HDR_TEXT, name) < 0 ||
	    rd_text(r, n, name, NULL, &text) < 0 || !text)
		return -1;
	if (namelen == 12) {
		if (!strstr(text, "commit;") || !strstr(text, "field:")) {
			free(text);
			return error("%s: header_page does not describe a ring-buffer page", r->path);
		}
		r->long_size = lw_header_page_long_size(text);
	}
	free(text);
	return 0;
}

static int check_formats(struct rd *r)
{
	uint64_t n, count;

	if (rd_size(r, 4, &count, MAX_FORMATS, "ftrace format count") < 0)
		return -1;
	for (uint64_t i = 0; i < count; i++)
		if (rd_size(r, 8, &n, MAX_FORMAT, "ftrace format size") < 0 ||
		    rd_format(r, n, "ftrace format") < 0)
			return -1;
	return 0;
}

static int check_systems(struct rd *r)
{
	uint64_t n, count;
	char name[256];

	if (rd_size(r, 4, &count, MAX_SYSTEMS, "system count") < 0)
		return -1;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t events;

		if (rd_string(r, name, sizeof(name), "system name") < 0 ||
		    rd_size(r, 4, &events, MAX_FORMATS, "event count") < 0)
			return -1;
		if (!name[0] || !printable(name, strlen(name)) || strchr(name, ' '))
			return error("%s: byte %llu: bad system name", r->path,
				     (unsigned long long)r->off);
		for (uint64_t j = 0; j < events; j++)
			if (rd_size(r, 8, &n, MAX_FORMAT, "event format size") < 0 ||
			    rd_format(r, n, "event format") < 0)
				return -1;
	}
	return 0;
}

static int check_kallsyms(struct rd *r)
{
	uint64_t n;

	return rd_size(r, 4, &n, MAX_KALLSYMS, "kallsyms size") < 0 ||
	       rd_text(r, n, "kallsyms", kallsyms_line, NULL) < 0 ? -1 : 0;
}

static int check_printk(struct rd *r)
{
	uint64_t n;

	return rd_size(r, 4, &n, MAX_TEXT, "printk size") < 0 ||
	       rd_text(r, n, "printk formats", printk_line, NULL) < 0 ? -1 : 0;
}

static int check_cmdlines(struct rd *r)
{
	uint64_t n;

	return rd_size(r, 8, &n, MAX_TEXT, "cmdlines size") < 0 ||
	       rd_text(r, n, "cmdlines", cmdline_line, NULL) < 0 ? -1 : 0;
}

/* Every page of a CPU's data: its commit within the page (what kbuffer
 * trusts), whole pages only. */
static int check_pages(struct rd *r, uint64_t cpu, uint64_t off, uint64_t size)
{
	uint32_t ps = r->info->page_size;
	uint64_t hdr = 8 + (uint64_t)r->long_size;

	if (off > r->size || size > r->size - off)
		return error("%s: data of cpu %llu (%llu bytes at %llu) lies beyond the end "
			     "of the file (%llu bytes)", r->path, (unsigned long long)cpu,
			     (unsigned long long)size, (unsigned long long)off,
			     (unsigned long long)r->size);
	for (uint64_t p = off; p + ps <= off + size; p += ps) {
		unsigned char b[16];
		uint64_t commit = 0;

		if (fseeko(r->f, (off_t)p, SEEK_SET) < 0 || fread(b, 1, 16, r->f) != 16)
			return error_errno("cannot read %s", r->path);
		for (int i = r->long_size - 1; i >= 0; i--)
			commit = (commit << 8) | b[8 + i];
		if ((commit & ((1u << 27) - 1)) > ps - hdr)
			return error("%s: cpu %llu: corrupt page at byte %llu (%llu bytes of events "
				     "in a %u-byte page)", r->path, (unsigned long long)cpu,
				     (unsigned long long)p,
				     (unsigned long long)(commit & ((1u << 27) - 1)), ps);
	}
	return 0;
}

static void take_clock(struct rd *r, const char *clk)
{
	const char *b = strchr(clk, '['), *e = b ? strchr(b, ']') : NULL;

	if (b && e && (size_t)(e - b - 1) < sizeof(r->info->clock))
		snprintf(r->info->clock, sizeof(r->info->clock), "%.*s", (int)(e - b - 1), b + 1);
	else if (!b && strlen(clk) < sizeof(r->info->clock) && printable(clk, strlen(clk)))
		snprintf(r->info->clock, sizeof(r->info->clock), "%s", clk);
}

static int check_page_size(struct rd *r)
{
	uint64_t v;

	if (rd_le(r, 4, &v, "page size") < 0)
		return -1;
	if (v < 64 || v > (1u << 24) || (v & (v - 1)))
		return error("%s: byte %llu: implausible page size %llu", r->path,
			     (unsigned long long)(r->off - 4), (unsigned long long)v);
	r->info->page_size = (uint32_t)v;
	return 0;
}

/*
 * The options whose payload libtracecmd reads, besides the buffer and
 * section options: strings (NUL-terminated text), and fixed-size numbers.
 * Any other option (guests, time shifts, process maps, hooks, offsets) has
 * a structure of its own that is not checked, and is refused.
 */
static int check_option(struct rd *r, uint64_t id, uint64_t n)
{
	static const struct { uint16_t id; uint16_t size; } fixed[] = {
		{ LW_TDOPT_CPUCOUNT, 4 }, { 11 /* TRACEID */, 8 }, { 14 /* TSC2NSEC */, 16 },
	};
	uint64_t at = r->off;
	char *text = NULL;

	switch (id) {
	case LW_TDOPT_DATE:
	case LW_TDOPT_CPUSTAT:
	case LW_TDOPT_TRACECLOCK:
	case LW_TDOPT_UNAME:
	case LW_TDOPT_VERSION:
		if (!n)
			return error("%s: byte %llu: option %llu is empty", r->path,
				     (unsigned long long)at, (unsigned long long)id);
		if (rd_text(r, n - 1, "option text", NULL, &text) < 0 || !text)
			return -1;
		free(text);
		if (rd_expect(r, "", 1) < 0)
			return error("%s: byte %llu: option %llu does not end in a NUL", r->path,
				     (unsigned long long)at, (unsigned long long)id);
		return 0;
	default:
		break;
	}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (fixed[i].id == id) {
			if (n != fixed[i].size)
				return error("%s: byte %llu: option %llu has %llu bytes, not %u",
					     r->path, (unsigned long long)at, (unsigned long long)id,
					     (unsigned long long)n, fixed[i].size);
			return rd_bytes(r, NULL, n, "option");
		}
	return error("%s: byte %llu: trace file option %llu is not read by latwatt", r->path,
		     (unsigned long long)at, (unsigned long long)id);
}

static int check_v6(struct rd *r)
{
	uint64_t n, cpus;
	int has_clock = 0;
	char name[16];

	if (check_page_size(r) < 0 || rd_header_text(r, "header_page", 12) < 0 ||
	    rd_header_text(r, "header_event", 13) < 0 || check_formats(r) < 0 ||
	    check_systems(r) < 0 || check_kallsyms(r) < 0 || check_printk(r) < 0 ||
	    check_cmdlines(r) < 0 || rd_size(r, 4, &cpus, MAX_CPUS, "cpu count") < 0)
		return -1;
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
			if (id == LW_TDOPT_BUFFER)
				return error("%s: byte %llu: buffer instances in a version 6 file are "
					     "not read", r->path, (unsigned long long)(r->off - 2));
			if (rd_size(r, 4, &n, MAX_OPTION, "option size") < 0)
				return -1;
			if (id == LW_TDOPT_CPUCOUNT && n == 4) {
				/* libtracecmd sizes its CPU tables by this one,
				 * the data ranges below come by the header's */
				uint64_t oc;

				if (rd_le(r, 4, &oc, "cpu count option") < 0)
					return -1;
				if (oc != cpus)
					return error("%s: byte %llu: the cpu count option says %llu "
						     "CPUs, the header %llu", r->path,
						     (unsigned long long)(r->off - 4),
						     (unsigned long long)oc, (unsigned long long)cpus);
				continue;
			}
			if (check_option(r, id, n) < 0)
				return -1;
			if (id == LW_TDOPT_TRACECLOCK)
				has_clock = 1;
		}
		if (rd_bytes(r, name, 10, "section name") < 0)
			return -1;
	}
	if (!memcmp(name, "latency  ", 10))
		return error("%s: a latency-tracer trace (no per-CPU data) is not read", r->path);
	if (memcmp(name, "flyrecord", 10))
		return error("%s: byte %llu: expected \"flyrecord\"", r->path,
			     (unsigned long long)(r->off - 10));
	r->info->cpu_off = calloc(cpus + 1, sizeof(uint64_t));
	r->info->cpu_size = calloc(cpus + 1, sizeof(uint64_t));
	if (!r->info->cpu_off || !r->info->cpu_size)
		return error("out of memory");
	for (uint64_t c = 0; c < cpus; c++) {
		uint64_t o, s;

		if (rd_le(r, 8, &o, "cpu data offset") < 0 || rd_le(r, 8, &s, "cpu data size") < 0)
			return -1;
		r->info->cpu_off[c] = o;
		r->info->cpu_size[c] = s;
		if (o > r->size || s > r->size - o)
			return error("%s: data of cpu %llu (%llu bytes at %llu) lies beyond the end "
				     "of the file (%llu bytes)", r->path, (unsigned long long)c,
				     (unsigned long long)s, (unsigned long long)o,
				     (unsigned long long)r->size);
	}
	if (has_clock) {
		char clk[1024] = "";

		if (rd_le(r, 8, &n, "trace clock size") < 0)
			return -1;
		if (n < sizeof(clk)) {
			if (rd_bytes(r, clk, n, "trace clock") < 0)
				return -1;
			clk[n] = 0;
		} else if (rd_bytes(r, NULL, n, "trace clock") < 0) {
			return -1;
		}
		take_clock(r, clk);
	}
	/* the pages last: the ranges were all checked against the file */
	for (uint64_t c = 0; c < cpus; c++)
		if (check_pages(r, c, r->info->cpu_off[c], r->info->cpu_size[c]) < 0)
			return -1;
	return 0;
}

/*
 * Version 7 (trace-cmd 3): sections found through options sections.  The
 * header sections are walked as in version 6, each within its declared
 * size; every CPU's data range and page is checked; compressed files are
 * refused (their sections could only be checked after decompressing them).
 */
enum {
	V7_HEADER_INFO = 16, V7_FTRACE_EVENTS, V7_EVENT_FORMATS, V7_KALLSYMS, V7_PRINTK,
	V7_CMDLINES, V7_BUFFER_TEXT,
};

/* Go to the section at @off, expect id @id, and limit reading to it. */
static int v7_section(struct rd *r, uint64_t off, uint64_t id, const char *what)
{
	uint64_t sid, flags, sz;

	r->end = 0;
	if (rd_seek(r, off, what) < 0 || rd_le(r, 2, &sid, "section id") < 0 ||
	    rd_le(r, 2, &flags, "section flags") < 0 || rd_bytes(r, NULL, 4, "section string") < 0 ||
	    rd_le(r, 8, &sz, "section size") < 0)
		return -1;
	if (sid != id)
		return error("%s: byte %llu: %s: section id %llu, expected %llu", r->path,
			     (unsigned long long)off, what, (unsigned long long)sid,
			     (unsigned long long)id);
	if (flags & 1)
		return error("%s: byte %llu: compressed %s: not read", r->path,
			     (unsigned long long)off, what);
	if (sz > r->size - r->off)
		return error("%s: byte %llu: %s of %llu bytes lies beyond the end of the file",
			     r->path, (unsigned long long)off, what, (unsigned long long)sz);
	r->end = r->off + sz;
	return 0;
}

static int v7_buffer(struct rd *r, uint64_t optend, int *nbuf)
{
	char name[256], clk[256];
	uint64_t off, ps, cpus;

	if (rd_le(r, 8, &off, "buffer offset") < 0 ||
	    rd_string(r, name, sizeof(name), "buffer name") < 0 ||
	    rd_string(r, clk, sizeof(clk), "buffer clock") < 0 ||
	    rd_le(r, 4, &ps, "buffer page size") < 0 ||
	    rd_size(r, 4, &cpus, MAX_CPUS, "buffer cpu count") < 0)
		return -1;
	if (ps != r->info->page_size)
		return error("%s: byte %llu: buffer %s has %llu-byte pages, the file %u", r->path,
			     (unsigned long long)r->off, name, (unsigned long long)ps,
			     r->info->page_size);
	if (!name[0]) {
		take_clock(r, clk);
		if ((int)cpus > r->info->cpus)
			r->info->cpus = (int)cpus;
	}
	(*nbuf)++;
	for (uint64_t c = 0; c < cpus; c++) {
		uint64_t id, o, s, here;

		if (rd_le(r, 4, &id, "cpu id") < 0 || rd_le(r, 8, &o, "cpu data offset") < 0 ||
		    rd_le(r, 8, &s, "cpu data size") < 0)
			return -1;
		if (id >= MAX_CPUS)
			return error("%s: byte %llu: cpu id %llu", r->path,
				     (unsigned long long)(r->off - 20), (unsigned long long)id);
		here = r->off;
		if (check_pages(r, id, o, s) < 0 || rd_seek(r, here, "option") < 0)
			return -1;
	}
	if (r->off > optend)
		return error("%s: byte %llu: buffer option longer than its size", r->path,
			     (unsigned long long)r->off);
	/* the flyrecord section itself: its header in the file */
	{
		uint64_t save = r->off, end = r->end;

		if (v7_section(r, off, LW_TDOPT_BUFFER, "buffer section") < 0)
			return -1;
		r->end = end;
		return rd_seek(r, save, "option");
	}
}

static int check_v7(struct rd *r)
{
	char comp[64], cver[64];
	uint64_t next, sections[V7_BUFFER_TEXT + 1] = { 0 };
	int nsec = 0, nbuf = 0;

	if (check_page_size(r) < 0 || rd_string(r, comp, sizeof(comp), "compression name") < 0 ||
	    rd_string(r, cver, sizeof(cver), "compression version") < 0)
		return -1;
	if (strcmp(comp, "none"))
		return error("%s: compressed (%s) version 7 trace files are not read; "
			     "'trace-cmd convert --compression none' makes one that is",
			     r->path, printable(comp, strlen(comp)) ? comp : "?");
	if (rd_le(r, 8, &next, "options offset") < 0)
		return -1;
	r->info->cpus = 0;
	r->long_size = 8;
	while (next) {
		if (++nsec > MAX_SECTIONS)
			return error("%s: more than %d options sections (a loop?)", r->path,
				     MAX_SECTIONS);
		if (v7_section(r, next, 0, "options section") < 0)
			return -1;
		next = 0;
		for (;;) {
			uint64_t id, n, end;

			if (rd_le(r, 2, &id, "option id") < 0 ||
			    rd_size(r, 4, &n, MAX_OPTION, "option size") < 0)
				return -1;
			end = r->off + n;
			if (n > r->end - r->off)
				return rd_bytes(r, NULL, n, "option");
			if (id == LW_TDOPT_DONE) {
				if (n != 8 || rd_le(r, 8, &next, "next options offset") < 0)
					return error("%s: byte %llu: bad end of options", r->path,
						     (unsigned long long)r->off);
				break;
			}
			if (id >= V7_HEADER_INFO && id <= V7_CMDLINES) {
				if (n != 8 || rd_le(r, 8, &sections[id], "section offset") < 0)
					return error("%s: byte %llu: bad section option", r->path,
						     (unsigned long long)r->off);
			} else if (id == LW_TDOPT_BUFFER) {
				if (v7_buffer(r, end, &nbuf) < 0)
					return -1;
			} else if (id == LW_TDOPT_CPUCOUNT && n == 4) {
				uint64_t c;

				if (rd_size(r, 4, &c, MAX_CPUS, "cpu count") < 0)
					return -1;
				if ((int)c > r->info->cpus)
					r->info->cpus = (int)c;
			} else if (id == V7_BUFFER_TEXT) {
				return error("%s: a latency-tracer trace (no per-CPU data) is not read",
					     r->path);
			} else if (check_option(r, id, n) < 0) {
				return -1;
			}
			if (rd_seek(r, end, "option") < 0)
				return -1;
		}
	}
	if (!sections[V7_HEADER_INFO])
		return error("%s: no header_page and header_event section", r->path);
	/* header_page first: it gives the long size the pages are read with;
	 * the pages were checked with 8, which a 4-byte kernel's pass too */
	if (v7_section(r, sections[V7_HEADER_INFO], V7_HEADER_INFO, "header section") < 0 ||
	    rd_header_text(r, "header_page", 12) < 0 || rd_header_text(r, "header_event", 13) < 0)
		return -1;
	if ((sections[V7_FTRACE_EVENTS] &&
	     (v7_section(r, sections[V7_FTRACE_EVENTS], V7_FTRACE_EVENTS, "ftrace formats") < 0 ||
	      check_formats(r) < 0)) ||
	    (sections[V7_EVENT_FORMATS] &&
	     (v7_section(r, sections[V7_EVENT_FORMATS], V7_EVENT_FORMATS, "event formats") < 0 ||
	      check_systems(r) < 0)) ||
	    (sections[V7_KALLSYMS] &&
	     (v7_section(r, sections[V7_KALLSYMS], V7_KALLSYMS, "kallsyms") < 0 ||
	      check_kallsyms(r) < 0)) ||
	    (sections[V7_PRINTK] &&
	     (v7_section(r, sections[V7_PRINTK], V7_PRINTK, "printk formats") < 0 ||
	      check_printk(r) < 0)) ||
	    (sections[V7_CMDLINES] &&
	     (v7_section(r, sections[V7_CMDLINES], V7_CMDLINES, "cmdlines") < 0 ||
	      check_cmdlines(r) < 0)))
		return -1;
	r->end = 0;
	if (!nbuf)
		return error("%s: no trace data (no buffer option)", r->path);
	if (r->info->cpus <= 0)
		return error("%s: no CPU count", r->path);
	return 0;
}

int lw_tracedat_check_info(const char *path, struct lw_tracedat_info *info)
{
	int fd = lw_in_open(path, info->open_flags, 0, NULL), ret;

	if (fd < 0)
		return -1;
	ret = lw_tracedat_check_fd(fd, path, info);
	close(fd);
	return ret;
}

int lw_tracedat_check_fd(int fd, const char *path, struct lw_tracedat_info *info)
{
	struct rd r = { .path = path, .info = info, .long_size = 8 };
	struct stat st;
	char magic[10], ver[16];
	unsigned char el[2];
	int ret, want = info->want_ranges, flags = info->open_flags, dfd;

	memset(info, 0, sizeof(*info));
	info->want_ranges = want;
	info->open_flags = flags;
	info->cpus = -1;

	/* a reading of our own, from the start, whoever reads @fd after */
	dfd = open_dup(fd);
	r.f = dfd < 0 ? NULL : fdopen(dfd, "rb");
	if (!r.f) {
		if (dfd >= 0)
			close(dfd);
		return error_errno("cannot read %s", path);
	}
	if (fstat(fileno(r.f), &st) < 0) {
		fclose(r.f);
		return error_errno("cannot stat %s", path);
	}
	if (!S_ISREG(st.st_mode)) {
		fclose(r.f);
		return error("%s: not a regular file", path);
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
		ret = error("%s: byte %llu: bad endianness/long size %u/%u", path,
			    (unsigned long long)(r.off - 2), el[0], el[1]);
	if (!ret && el[0] != 0)
		ret = error("%s: big-endian trace files are not supported", path);
	if (!ret) {
		char *end;
		long v = strtol(ver, &end, 10);

		info->version = (int)v;
		if (*end || end == ver || v < 6 || v > 7)
			ret = error("%s: unsupported trace.dat version '%.8s' (6 and 7 are read)", path,
				    printable(ver, strlen(ver)) ? ver : "?");
		else if (v == 6)
			ret = check_v6(&r);
		else
			ret = check_v7(&r);
	}
	fclose(r.f);
	if (ret < 0 || !want) {
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
