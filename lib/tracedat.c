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
#include "lib/safefile.h"
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
