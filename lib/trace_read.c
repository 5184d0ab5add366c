// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <trace-cmd.h>

#include "lib/trace_read.h"
#include "lib/error.h"
#include "lib/input.h"
#include "lib/rundir.h"
#include "lib/tracedat.h"

#define FIELD_CACHE 16
#define CHUNK_PAGES 16	/* raw reads: pages per pread() */

/*
 * Raw reading (trace.dat version 6, what latwatt writes): each CPU's pages
 * are read in chunks into one of two buffers and walked with kbuffer; the
 * record handed out stays valid while the next one is read because a new
 * chunk always goes into the other buffer, and records alternate between
 * two slots.  Memory: two chunks per CPU, whatever the trace's length.
 * Other versions are read through libtracecmd's own record reading.
 */
struct cursor {
	uint64_t start, end, off;	/* this CPU's data in the file; next chunk */
	char *buf[2];
	size_t len[2];
	int cur;			/* buffer of the current page */
	int hold;			/* buffer of the last record handed out, or -1 */
	size_t page;			/* its offset in buf[cur] */
	int loaded, first;		/* a page is in the kbuffer; nothing read from it */
	long long missed;		/* of the loaded page, for its first record */
	struct kbuffer *kb;
	struct tep_record rec[2];
	int slot;
};

struct field_slot {
	const char *name;		/* the caller's pointer */
	struct tep_format_field *f;	/* NULL: the event has no such field */
};

struct ev_cache {
	struct tep_event *event;
	int looked;
	int nf;
	struct field_slot f[FIELD_CACHE];
};

struct lw_trace {
	char *path;
	struct tracecmd_input *h;
	struct tep_handle *tep;
	int cpus;
	char clock[32];
	int fd;				/* raw reading: the file, else -1 */
	uint32_t page_size;
	struct cursor *cur;		/* raw reading: per CPU */

	/* merged iteration: a min-heap of CPUs by their pending record */
	struct tep_record **pending;	/* per CPU */
	int *heap, nheap;
	int primed;
	struct tep_record *last;	/* returned last; freed on the next call */
	int err;			/* a read failed: -1 */

	struct ev_cache *cache;		/* by event id */
	int ncache;
	int max_id;			/* the largest id with a format: the cache's bound */

	struct lw_trace_window **win;	/* per CPU */
	size_t *nwin;
};

static void tracecmd_quiet_once(void)
{
	static int done;

	if (!done) {
		tracecmd_set_loglevel(TEP_LOG_ERROR);
		done = 1;
	}
}

static int raw_init(struct lw_trace *t, const struct lw_tracedat_info *info)
{
	int ls = tep_get_header_page_size(t->tep);
	enum kbuffer_long_size lsize = ls == 4 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8;
	enum kbuffer_endian end = tep_is_file_bigendian(t->tep) ? KBUFFER_ENDIAN_BIG :
								   KBUFFER_ENDIAN_LITTLE;

	t->page_size = info->page_size;
	posix_fadvise(t->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	t->cur = calloc((size_t)t->cpus, sizeof(*t->cur));
	if (!t->cur)
		return error("out of memory");
	for (int i = 0; i < t->cpus; i++) {
		struct cursor *c = &t->cur[i];

		c->start = c->off = info->cpu_off[i];
		c->hold = -1;
		c->end = info->cpu_off[i] + info->cpu_size[i] / t->page_size * t->page_size;
		c->kb = kbuffer_alloc(lsize, end);
		c->buf[0] = malloc((size_t)CHUNK_PAGES * t->page_size);
		c->buf[1] = malloc((size_t)CHUNK_PAGES * t->page_size);
		if (!c->kb || !c->buf[0] || !c->buf[1])
			return error("out of memory");
	}
	return 0;
}

static void raw_reset(struct lw_trace *t, int cpu)
{
	struct cursor *c = &t->cur[cpu];

	c->off = c->start;
	c->len[0] = c->len[1] = 0;
	c->cur = 0;
	c->hold = -1;
	c->page = 0;
	c->loaded = 0;
}

/* The next record of @cpu, or NULL at its end (*err set on a bad page). */
static struct tep_record *raw_next(struct lw_trace *t, int cpu, int *err)
{
	struct cursor *c = &t->cur[cpu];
	size_t hdr = 8 + (size_t)tep_get_header_page_size(t->tep);

	for (;;) {
		unsigned long long ts;
		struct tep_record *r;
		char *page;
		void *ev;

		if (c->loaded) {
			ev = c->first ? kbuffer_read_event(c->kb, &ts) : kbuffer_next_event(c->kb, &ts);
			if (ev) {
				page = c->buf[c->cur] + c->page;
				r = &c->rec[c->slot];
				c->slot ^= 1;
				memset(r, 0, sizeof(*r));
				r->ts = ts;
				r->cpu = cpu;
				r->data = ev;
				r->size = kbuffer_event_size(c->kb);
				r->record_size = kbuffer_curr_size(c->kb);
				r->offset = c->off - c->len[c->cur] + c->page +
					    (unsigned long long)kbuffer_curr_offset(c->kb);
				r->missed_events = c->first ? c->missed : 0;
				c->first = 0;
				c->hold = c->cur;
				if (r->size < 0 || (char *)ev < page ||
				    (size_t)((char *)ev - page) + (size_t)r->size > t->page_size) {
					*err = error("%s: cpu %d: corrupt event at byte %llu", t->path,
						     cpu, r->offset);
					return NULL;
				}
				return r;
			}
			c->loaded = 0;
			c->page += t->page_size;
		}
		if (c->page + t->page_size > c->len[c->cur]) {
			/* never over the record still in use (empty pages can make
			 * several chunks go by before the next record) */
			int nb = c->hold < 0 ? c->cur : c->hold ^ 1;
			uint64_t want = (uint64_t)CHUNK_PAGES * t->page_size;
			ssize_t n;

			if (c->off >= c->end)
				return NULL;
			if (want > c->end - c->off)
				want = c->end - c->off;
			n = pread(t->fd, c->buf[nb], want, (off_t)c->off);
			if (n < (ssize_t)t->page_size) {
				*err = n < 0 ? error_errno("cannot read %s", t->path) :
					error("%s: cpu %d: data ends early at byte %llu", t->path, cpu,
					      (unsigned long long)c->off);
				return NULL;
			}
			n -= n % t->page_size;
			c->off += (uint64_t)n;
			c->cur = nb;
			c->len[nb] = (size_t)n;
			c->page = 0;
		}
		page = c->buf[c->cur] + c->page;
		{
			uint64_t commit = 0;
			int ls = tep_get_header_page_size(t->tep);

			memcpy(&commit, page + 8, ls == 4 ? 4 : 8);
			if ((commit & ((1u << 27) - 1)) > t->page_size - hdr ||
			    kbuffer_load_subbuffer(c->kb, page) < 0) {
				*err = error("%s: cpu %d: corrupt page at byte %llu", t->path, cpu,
					     (unsigned long long)(c->off - c->len[c->cur] + c->page));
				return NULL;
			}
		}
		c->missed = kbuffer_missed_events(c->kb);
		c->loaded = 1;
		c->first = 1;
	}
}

/* Backends: the next record of @cpu (NULL at the end, or on error with
 * t->err set), and giving a record back. */
static struct tep_record *next_record(struct lw_trace *t, int cpu)
{
	int err = 0;
	struct tep_record *r;

	r = raw_next(t, cpu, &err);
	if (err)
		t->err = -1;
	return r;
}

/* Records carry ids the file chose; only those with a format are cached. */
static void set_max_id(struct lw_trace *t)
{
	int n = tep_get_events_count(t->tep);

	t->max_id = -1;
	for (int i = 0; i < n; i++) {
		struct tep_event *e = tep_get_event(t->tep, i);

		if (e && e->id > t->max_id)
			t->max_id = e->id;
	}
}

struct lw_trace *lw_trace_open(const char *path, int flags)
{
	struct lw_tracedat_info info = { .want_ranges = 1 };
	struct lw_trace *t;
	char proc[64];
	int fd;

	/* opened once (lib/input.h): the check, libtracecmd and the pages all
	 * read this file, whatever becomes of its name meanwhile */
	fd = lw_in_open(path, flags & LW_TRACE_RUNDIR ? LW_IN_NOFOLLOW : 0, 0, NULL);
	if (fd < 0)
		return NULL;
	if (lw_tracedat_check_fd(fd, path, &info) < 0) {
		close(fd);
		return NULL;
	}
	/* version 7 passed the structural check, but libtracecmd would read
	 * its pages (and other parts) unchecked: fuzzing made it allocate
	 * gigabytes on a 66 KB file.  trace-cmd itself converts. */
	if (info.version != 6) {
		close(fd);
		free(info.cpu_off);
		free(info.cpu_size);
		error("%s: a version %d trace file; latwatt reads version 6 (what it writes): "
		      "'trace-cmd convert --file-version 6 -i %s -o FILE.dat' makes one", path,
		      info.version, path);
		return NULL;
	}
	tracecmd_quiet_once();
	t = calloc(1, sizeof(*t));
	if (!t || !(t->path = strdup(path))) {
		close(fd);
		free(t);
		free(info.cpu_off);
		free(info.cpu_size);
		error("out of memory");
		return NULL;
	}
	t->fd = fd;
	/* libtracecmd parses the (checked) header only, of the same file; the
	 * pages are read here, each checked before kbuffer sees it.  Never
	 * plugins: they would be loaded from $HOME and the environment. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	t->h = tracecmd_open_head(proc, TRACECMD_FL_LOAD_NO_PLUGINS |
					TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!t->h) {
		error("%s: libtracecmd cannot read this trace file", path);
		close(fd);
		free(info.cpu_off);
		free(info.cpu_size);
		free(t->path);
		free(t);
		return NULL;
	}
	t->tep = tracecmd_get_tep(t->h);
	set_max_id(t);
	/* every per-CPU table is indexed up to the data ranges the check
	 * read (info.cpus of them); libtracecmd's own count must agree */
	t->cpus = info.cpus;
	if (tep_get_cpus(t->tep) != info.cpus) {
		error("%s: libtracecmd reads %d CPUs, the file's header %d", path,
		      tep_get_cpus(t->tep), info.cpus);
		lw_trace_close(t);
		free(info.cpu_off);
		free(info.cpu_size);
		return NULL;
	}
	snprintf(t->clock, sizeof(t->clock), "%s", info.clock);
	t->pending = calloc((size_t)t->cpus + 1, sizeof(*t->pending));
	t->heap = calloc((size_t)t->cpus + 1, sizeof(*t->heap));
	t->win = calloc((size_t)t->cpus + 1, sizeof(*t->win));
	t->nwin = calloc((size_t)t->cpus + 1, sizeof(*t->nwin));
	if (!t->pending || !t->heap || !t->win || !t->nwin) {
		lw_trace_close(t);
		free(info.cpu_off);
		free(info.cpu_size);
		error("out of memory");
		return NULL;
	}
	{
		int ret = raw_init(t, &info);

		free(info.cpu_off);
		free(info.cpu_size);
		if (ret < 0) {
			lw_trace_close(t);
			return NULL;
		}
	}
	return t;
}

struct lw_trace *lw_trace_open_run(const char *rundir, int flags)
{
	struct lw_rundir rd;
	struct lw_trace *t;
	json_t *tr;
	char path[4096];

	if (lw_rundir_open(&rd, rundir) < 0)
		return NULL;
	tr = json_object_get(rd.manifest, "trace");
	if (!json_is_object(tr) || !json_is_string(json_object_get(tr, "file"))) {
		const char *why = json_string_value(json_object_get(tr, "reason"));

		error("%s: the run has no kernel trace%s%s%s", rundir, why ? " (" : "",
		      why ? why : "", why ? ")" : "");
		lw_rundir_close(&rd);
		return NULL;
	}
	if (!lw_rundir_file(&rd, json_string_value(json_object_get(tr, "file")), path,
			    sizeof(path))) {
		lw_rundir_close(&rd);
		return NULL;
	}
	t = lw_trace_open(path, flags | LW_TRACE_RUNDIR);
	if (t && lw_trace_load_windows(t, tr) < 0) {
		lw_trace_close(t);
		t = NULL;
	}
	lw_rundir_close(&rd);
	return t;
}

void lw_trace_close(struct lw_trace *t)
{
	if (!t)
		return;
	for (int i = 0; t->cur && i < t->cpus; i++) {
		kbuffer_free(t->cur[i].kb);
		free(t->cur[i].buf[0]);
		free(t->cur[i].buf[1]);
	}
	free(t->cur);
	if (t->fd >= 0)
		close(t->fd);
	for (int i = 0; t->win && i < t->cpus; i++)
		free(t->win[i]);
	free(t->win);
	free(t->nwin);
	free(t->pending);
	free(t->heap);
	free(t->cache);
	if (t->h)
		tracecmd_close(t->h);
	free(t->path);
	free(t);
}

int lw_trace_cpus(const struct lw_trace *t) { return t->cpus; }
const char *lw_trace_clock(const struct lw_trace *t) { return t->clock; }
struct tep_handle *lw_trace_tep(struct lw_trace *t) { return t->tep; }

/* ---- event types ---- */

static struct ev_cache *cache_for(struct lw_trace *t, int id)
{
	struct ev_cache *c;

	if (id < 0 || id > t->max_id)
		return NULL;
	if (id >= t->ncache) {
		int n = t->ncache ? t->ncache : 256;
		struct ev_cache *nc;

		while (n <= id)
			n *= 2;
		nc = realloc(t->cache, (size_t)n * sizeof(*nc));
		if (!nc)
			return NULL;
		memset(nc + t->ncache, 0, (size_t)(n - t->ncache) * sizeof(*nc));
		t->cache = nc;
		t->ncache = n;
	}
	c = &t->cache[id];
	if (!c->looked) {
		c->event = tep_find_event(t->tep, id);
		c->looked = 1;
	}
	return c;
}

int lw_trace_event_id(struct lw_trace *t, const char *system, const char *name)
{
	struct tep_event *e = tep_find_event_by_name(t->tep, system, name);

	return e ? e->id : -1;
}

static void fill(struct lw_trace *t, struct tep_record *r, struct lw_trace_event *ev)
{
	struct ev_cache *c;

	ev->record = r;
	ev->ts_ns = r->ts;
	ev->cpu = r->cpu;
	ev->missed = r->missed_events;
	ev->id = tep_data_type(t->tep, r);
	ev->pid = tep_data_pid(t->tep, r);
	c = cache_for(t, ev->id);
	ev->event = c ? c->event : NULL;
	ev->system = ev->event ? ev->event->system : "?";
	ev->name = ev->event ? ev->event->name : "?";
}

/* ---- iteration ---- */

static int before(struct lw_trace *t, int a, int b)
{
	unsigned long long ta = t->pending[a]->ts, tb = t->pending[b]->ts;

	return ta < tb || (ta == tb && a < b);
}

static void sift_down(struct lw_trace *t, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i, tmp;

		if (l < t->nheap && before(t, t->heap[l], t->heap[m]))
			m = l;
		if (r < t->nheap && before(t, t->heap[r], t->heap[m]))
			m = r;
		if (m == i)
			return;
		tmp = t->heap[i];
		t->heap[i] = t->heap[m];
		t->heap[m] = tmp;
		i = m;
	}
}

/* records live in the cursors' buffers: nothing to free */
static void release_last(struct lw_trace *t)
{
	t->last = NULL;
}

int lw_trace_next(struct lw_trace *t, struct lw_trace_event *ev)
{
	struct tep_record *r;
	int cpu;

	release_last(t);
	if (!t->primed) {
		t->nheap = 0;
		for (int i = 0; i < t->cpus; i++) {
			if (!t->pending[i])
				t->pending[i] = next_record(t, i);
			if (t->pending[i])
				t->heap[t->nheap++] = i;
		}
		for (int i = t->nheap / 2 - 1; i >= 0; i--)
			sift_down(t, i);
		t->primed = 1;
	}
	if (!t->nheap)
		return t->err;
	cpu = t->heap[0];
	r = t->pending[cpu];
	t->pending[cpu] = next_record(t, cpu);
	if (!t->pending[cpu])
		t->heap[0] = t->heap[--t->nheap];
	sift_down(t, 0);
	t->last = r;
	fill(t, r, ev);
	return 1;
}

int lw_trace_next_cpu(struct lw_trace *t, int cpu, struct lw_trace_event *ev)
{
	struct tep_record *r;

	if (cpu < 0 || cpu >= t->cpus) {
		error("%s: no cpu %d (the trace has %d)", t->path, cpu, t->cpus);
		return -1;
	}
	release_last(t);
	t->primed = 0;	/* a merged walk after this rebuilds its heap */
	r = t->pending[cpu];
	t->pending[cpu] = NULL;
	if (!r)
		r = next_record(t, cpu);
	if (!r)
		return t->err;
	t->last = r;
	fill(t, r, ev);
	return 1;
}

void lw_trace_rewind(struct lw_trace *t)
{
	release_last(t);
	t->err = 0;
	for (int i = 0; i < t->cpus; i++) {
		/* the first record, read again: it becomes the pending one */
		raw_reset(t, i);
		t->pending[i] = next_record(t, i);
	}
	t->primed = 0;
	t->nheap = 0;
}

/* ---- fields ---- */

struct tep_format_field *lw_trace_field(struct lw_trace *t, const struct lw_trace_event *ev,
					const char *name)
{
	struct ev_cache *c = cache_for(t, ev->id);
	struct tep_format_field *f;

	if (!c || !c->event)
		return NULL;
	for (int i = 0; i < c->nf; i++)
		if (c->f[i].name == name)
			return c->f[i].f;
	for (int i = 0; i < c->nf; i++)
		if (!strcmp(c->f[i].name, name))
			return c->f[i].f;
	f = tep_find_any_field(c->event, name);
	if (c->nf < FIELD_CACHE)
		c->f[c->nf++] = (struct field_slot){ name, f };
	return f;
}

int lw_trace_u64(struct lw_trace *t, const struct lw_trace_event *ev, const char *name,
		 uint64_t *v)
{
	struct tep_format_field *f = lw_trace_field(t, ev, name);
	const unsigned char *p;
	unsigned long long val;

	if (!f || (unsigned)f->offset + (unsigned)f->size > (unsigned)ev->record->size)
		return -1;
	p = (const unsigned char *)ev->record->data + f->offset;
	/* the common case, a file of this machine's byte order: read in place */
	if (tep_is_file_bigendian(t->tep) == tep_is_local_bigendian(t->tep)) {
		switch (f->size) {
		case 1: *v = p[0]; return 0;
		case 2: { uint16_t x; memcpy(&x, p, 2); *v = x; return 0; }
		case 4: { uint32_t x; memcpy(&x, p, 4); *v = x; return 0; }
		case 8: { uint64_t x; memcpy(&x, p, 8); *v = x; return 0; }
		default: break;
		}
	}
	if (tep_read_number_field(f, ev->record->data, &val) < 0)
		return -1;
	*v = val;
	return 0;
}

int lw_trace_s64(struct lw_trace *t, const struct lw_trace_event *ev, const char *name,
		 int64_t *v)
{
	struct tep_format_field *f = lw_trace_field(t, ev, name);
	uint64_t u;

	if (!f || lw_trace_u64(t, ev, name, &u) < 0)
		return -1;
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8) {
		int shift = 64 - 8 * f->size;

		*v = (int64_t)(u << shift) >> shift;
	} else {
		*v = (int64_t)u;
	}
	return 0;
}

const char *lw_trace_str(struct lw_trace *t, const struct lw_trace_event *ev, const char *name,
			 size_t *len)
{
	struct tep_format_field *f = lw_trace_field(t, ev, name);
	const char *data = ev->record->data;
	unsigned size = (unsigned)ev->record->size, off, n;

	if (!f || (unsigned)f->offset > size)
		return NULL;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;

		if ((unsigned)f->offset + 4 > size)
			return NULL;
		memcpy(&loc, data + f->offset, 4);
		off = loc & 0xffff;
		n = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (unsigned)f->offset + 4;
	} else {
		off = (unsigned)f->offset;
		/* a flexible array ("char buf[]", size 0) runs to the record's end */
		n = f->size ? (unsigned)f->size : size - off;
	}
	if (off > size || n > size - off)
		return NULL;
	n = (unsigned)strnlen(data + off, n);
	while (n && data[off + n - 1] == '\n')
		n--;
	if (len)
		*len = n;
	return data + off;
}

int lw_trace_record_ok(struct lw_trace *t, const struct lw_trace_event *ev)
{
	const char *data = ev->record->data;
	unsigned size = (unsigned)ev->record->size;

	if (!ev->event)
		return 0;
	for (struct tep_format_field *f = ev->event->format.fields; f; f = f->next) {
		unsigned off = (unsigned)f->offset, fs = (unsigned)f->size;

		if (off > size || fs > size - off)
			return 0;
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			uint32_t loc;
			unsigned doff, dlen;

			if (fs < 4)
				return 0;
			memcpy(&loc, data + off, 4);
			doff = loc & 0xffff;
			dlen = loc >> 16;
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				doff += off + 4;
			if (doff > size || dlen > size - doff)
				return 0;
		}
	}
	return 1;
}

const char *lw_trace_comm(struct lw_trace *t, int pid)
{
	return tep_data_comm_from_pid(t->tep, pid);
}

/* ---- loss windows ---- */

int lw_trace_load_windows(struct lw_trace *t, const json_t *trace)
{
	json_t *cpus = json_object_get(trace, "cpus"), *c;
	size_t i;

	if (!cpus)
		return 0;
	if (!json_is_array(cpus))
		return error("%s: manifest \"trace\".\"cpus\" is not a list", t->path);
	json_array_foreach(cpus, i, c) {
		json_t *cpu = json_object_get(c, "cpu"), *inc = json_object_get(c, "incomplete"), *w;
		json_int_t n;
		size_t j;

		if (!json_is_integer(cpu) || (inc && !json_is_array(inc)))
			return error("%s: manifest \"trace\".\"cpus\"[%zu] is malformed", t->path, i);
		n = json_integer_value(cpu);
		if (n < 0 || n >= t->cpus || !inc || !json_array_size(inc))
			continue;
		free(t->win[n]);
		t->win[n] = calloc(json_array_size(inc), sizeof(**t->win));
		t->nwin[n] = 0;
		if (!t->win[n])
			return error("out of memory");
		json_array_foreach(inc, j, w) {
			json_t *a = json_array_get(w, 0), *b = json_array_get(w, 1);

			if (!json_is_integer(a) || !json_is_integer(b) ||
			    json_integer_value(b) < json_integer_value(a))
				return error("%s: manifest \"trace\".\"cpus\"[%zu].\"incomplete\"[%zu] "
					     "is not [from_ns, to_ns]", t->path, i, j);
			t->win[n][t->nwin[n]++] = (struct lw_trace_window){
				(uint64_t)json_integer_value(a), (uint64_t)json_integer_value(b) };
		}
	}
	return 0;
}

size_t lw_trace_windows(const struct lw_trace *t, int cpu, const struct lw_trace_window **w)
{
	if (cpu < 0 || cpu >= t->cpus) {
		*w = NULL;
		return 0;
	}
	*w = t->win[cpu];
	return t->nwin[cpu];
}

int lw_trace_complete(const struct lw_trace *t, int cpu, uint64_t from_ns, uint64_t to_ns)
{
	for (int c = cpu < 0 ? 0 : cpu; c < (cpu < 0 ? t->cpus : cpu + 1) && c < t->cpus; c++)
		for (size_t i = 0; i < t->nwin[c]; i++)
			if (t->win[c][i].from_ns <= to_ns && t->win[c][i].to_ns >= from_ns)
				return 0;
	return 1;
}
