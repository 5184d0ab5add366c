// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/monitor.h"
#include "lib/safefile.h"
#include "lib/stats.h"
#include "lib/parse.h"

#define SLOTS        4		/* intervals open at once */
#define LAG_NS       LW_NSEC_PER_SEC	/* how late a producer's samples may come */
#define MAX_SERIES   1024
#define MAX_WINDOWS  256
#define BUCKET_NS    1000ULL	/* 1 us, as analyze and cyclictest */
#define NBUCKETS     10000	/* to 10 ms; beyond is counted as overflow */
#define LOOKUP_CPUS  65536

struct mseries {
	unsigned probe;
	int cpu;
};

struct slot {
	int64_t idx;		/* interval number, -1: free */
	struct lw_hist *h;	/* per series */
	uint64_t *missed, *over;
};

struct history {
	struct lw_sample *buf;
	size_t head, n;		/* oldest at (head - n) mod cap */
};

struct lw_monitor {
	struct lw_monitor_opts o;
	uint64_t start;
	FILE *f;
	char path[PATH_MAX];
	struct lw_samples_writer *w;

	struct mseries series[MAX_SERIES];
	int nseries;
	int32_t *lookup;	/* probe * LOOKUP_CPUS + cpu -> series + 1 */
	struct slot slot[SLOTS];
	int64_t next_close;	/* the oldest interval not written yet */
	uint64_t newest;	/* latest expected_ns seen */
	int seen;

	struct history hist[LW_MAX_RINGS];
	struct { uint64_t from, to; } win[MAX_WINDOWS];
	int nwin;

	/* what happened */
	uint64_t intervals, late, spikes, windows, saved, saved_bytes, over_cap, overruns;
	uint64_t merged_windows;
	int failed;

	/* the kernel trace around spikes (NULL: the run does not trace) */
	struct lw_monitor_trace *mt;
	int tw_on;			/* a trace window waits for its post-window */
	uint64_t tw_from, tw_to;
	uint64_t tw_last;		/* newest sample when the last window was saved */
	uint64_t trace_windows, trace_saved, trace_spikes;
};

void lw_monitor_opts_default(struct lw_monitor_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->interval_ns = 300 * LW_NSEC_PER_SEC;
	o->pre_ns = 100 * LW_NSEC_PER_MSEC;
	o->post_ns = 100 * LW_NSEC_PER_MSEC;
	o->disk_cap = 64ULL << 20;
	o->history = 1u << 15;
}

static uint64_t line_bound(void)
{
	/* a full histogram: every bucket "[iiiii, cccccccccc]," plus the rest */
	return (uint64_t)NBUCKETS * 24 + 512;
}

void lw_monitor_bounds(const struct lw_monitor_opts *o, int rings, int series,
		       uint64_t duration_ns, uint64_t *mem, uint64_t *disk)
{
	uint64_t intervals = duration_ns / o->interval_ns + 2;

	*mem = (uint64_t)rings * o->history * sizeof(struct lw_sample) +
	       (uint64_t)SLOTS * (uint64_t)series * (NBUCKETS * sizeof(uint64_t) + 128);
	*disk = (o->threshold_ns ? o->disk_cap : 0) + intervals * (uint64_t)series * line_bound();
}

struct lw_monitor *lw_monitor_new(const struct lw_monitor_opts *o, int dfd, const char *dir,
				  uint64_t start_ns, struct lw_samples_writer *w)
{
	struct lw_monitor *m = calloc(1, sizeof(*m));
	json_t *hdr;

	if (!m) {
		error("out of memory");
		return NULL;
	}
	m->o = *o;
	m->start = start_ns;
	m->w = w;
	for (int i = 0; i < SLOTS; i++)
		m->slot[i].idx = -1;
	m->lookup = calloc((size_t)LW_SAMPLE_MAX * LOOKUP_CPUS, sizeof(*m->lookup));
	snprintf(m->path, sizeof(m->path), "%s/monitor", dir);
	/* in the run directory @dfd: a symlink planted there is replaced,
	 * never written through */
	if (m->lookup)
		m->f = lw_fcreate_at(dfd, m->path, 0644);
	if (!m->f) {
		if (!m->lookup)
			error("out of memory");
		lw_monitor_free(m);
		return NULL;
	}
	hdr = json_pack("{s:s, s:i, s:I, s:I, s:I, s:I, s:I}", "format", LW_MONITOR_FORMAT,
			"version", LW_MONITOR_VERSION, "interval_ns", (json_int_t)o->interval_ns,
			"start_ns", (json_int_t)start_ns, "threshold_ns", (json_int_t)o->threshold_ns,
			"pre_ns", (json_int_t)o->pre_ns, "post_ns", (json_int_t)o->post_ns);
	if (json_dumpf(hdr, m->f, JSON_COMPACT) < 0 || fputc('\n', m->f) == EOF ||
	    fflush(m->f)) {
		json_decref(hdr);
		error_errno("cannot write %s", m->path);
		lw_monitor_free(m);
		return NULL;
	}
	json_decref(hdr);
	return m;
}

static int series_of(struct lw_monitor *m, const struct lw_sample *s)
{
	size_t key;

	if (s->probe == 0 || s->probe >= LW_SAMPLE_MAX)
		return -1;
	key = (size_t)s->probe * LOOKUP_CPUS + s->cpu;
	if (m->lookup[key])
		return m->lookup[key] - 1;
	if (m->nseries == MAX_SERIES)
		return -1;
	/* a new series: its histogram in every open slot */
	for (int k = 0; k < SLOTS; k++) {
		struct slot *sl = &m->slot[k];
		struct lw_hist *h = realloc(sl->h, (size_t)(m->nseries + 1) * sizeof(*h));
		uint64_t *mi, *ov;

		if (!h)
			return -1;
		sl->h = h;
		mi = realloc(sl->missed, (size_t)(m->nseries + 1) * sizeof(*mi));
		if (mi)
			sl->missed = mi;
		ov = mi ? realloc(sl->over, (size_t)(m->nseries + 1) * sizeof(*ov)) : NULL;
		if (!ov)
			return -1;
		sl->over = ov;
		if (lw_hist_init(&sl->h[m->nseries], BUCKET_NS, NBUCKETS) < 0)
			return -1;
		sl->missed[m->nseries] = sl->over[m->nseries] = 0;
	}
	m->series[m->nseries] = (struct mseries){ s->probe, s->cpu };
	m->lookup[key] = ++m->nseries;
	return m->nseries - 1;
}

static int64_t interval_of(const struct lw_monitor *m, uint64_t t)
{
	return t > m->start ? (int64_t)((t - m->start) / m->o.interval_ns) : 0;
}

/* Write interval @idx (its slot, or an empty line when nothing came). */
static int write_interval(struct lw_monitor *m, int64_t idx, int partial)
{
	struct slot *sl = &m->slot[idx % SLOTS];
	json_t *line, *ser = json_array();
	uint64_t from = m->start + (uint64_t)idx * m->o.interval_ns;
	int ret = 0;

	if (sl->idx == idx)
		for (int i = 0; i < m->nseries; i++) {
			if (!sl->h[i].total)
				continue;
			json_array_append_new(ser, json_pack("{s:s, s:i, s:I, s:I, s:o}",
				"probe", lw_probe_name(m->series[i].probe), "cpu", m->series[i].cpu,
				"missed", (json_int_t)sl->missed[i], "over", (json_int_t)sl->over[i],
				"histogram", lw_hist_json(&sl->h[i])));
		}
	line = json_pack("{s:I, s:I, s:o}", "start_ns", (json_int_t)from,
			 "end_ns", (json_int_t)(from + m->o.interval_ns), "series", ser);
	if (partial)
		json_object_set_new(line, "partial", json_true());
	if (json_dumpf(line, m->f, JSON_COMPACT) < 0 || fputc('\n', m->f) == EOF ||
	    fflush(m->f))
		ret = error_errno("cannot write %s", m->path);
	json_decref(line);
	/* the slot is free again */
	if (sl->idx == idx) {
		for (int i = 0; i < m->nseries; i++) {
			memset(sl->h[i].count, 0, sl->h[i].nbuckets * sizeof(*sl->h[i].count));
			sl->h[i].total = sl->h[i].overflow = sl->h[i].overflow_max = 0;
			sl->h[i].overflow_first = 0;
			sl->h[i].sum = 0;
			sl->h[i].min = UINT64_MAX;
			sl->h[i].max = 0;
			sl->missed[i] = sl->over[i] = 0;
		}
		sl->idx = -1;
	}
	m->intervals++;
	return ret;
}

static int in_window(const struct lw_monitor *m, uint64_t t)
{
	for (int i = 0; i < m->nwin; i++)
		if (t >= m->win[i].from && t <= m->win[i].to)
			return 1;
	return 0;
}

void lw_monitor_set_trace(struct lw_monitor *m, struct lw_monitor_trace *mt)
{
	m->mt = mt;
	mt->cap = m->o.disk_cap;
}

/* The pending trace window's post-window has passed: the recorder freezes
 * its ring and copies the window out.  Before the recorder is ready the
 * window stays pending. */
static void trace_save(struct lw_monitor *m)
{
	if (!atomic_load_explicit(&m->mt->ready, memory_order_acquire))
		return;
	atomic_store(&m->mt->pending, 0);
	if (m->mt->save(m->mt->ctx, m->tw_from) > 0)
		m->trace_saved++;
	m->tw_on = 0;
	m->tw_last = m->newest;
}

/* A spike at @t: a new trace window, unless one (pending or just saved)
 * holds it already. */
static void trace_spike(struct lw_monitor *m, uint64_t t, uint64_t from, uint64_t to)
{
	m->trace_spikes++;
	if (m->tw_on && t > m->tw_to)
		trace_save(m);	/* its post-window has passed */
	if (m->tw_on || (m->trace_windows && t <= m->tw_last))
		return;
	m->tw_on = 1;
	m->tw_from = from;
	m->tw_to = to;
	m->trace_windows++;
	atomic_store(&m->mt->pending_from, from);
	atomic_store(&m->mt->pending, 1);
}

static void add_window(struct lw_monitor *m, uint64_t t)
{
	uint64_t from = t > m->o.pre_ns ? t - m->o.pre_ns : 0, to = t + m->o.post_ns;

	m->spikes++;
	if (m->mt)
		trace_spike(m, t, from, to);
	for (int i = 0; i < m->nwin; i++)
		if (from <= m->win[i].to && to >= m->win[i].from) {	/* overlaps: widen */
			if (from < m->win[i].from)
				m->win[i].from = from;
			if (to > m->win[i].to)
				m->win[i].to = to;
			return;
		}
	m->windows++;
	if (m->nwin == MAX_WINDOWS) {	/* widen the latest rather than forget */
		m->merged_windows++;
		if (to > m->win[m->nwin - 1].to)
			m->win[m->nwin - 1].to = to;
		return;
	}
	m->win[m->nwin].from = from;
	m->win[m->nwin].to = to;
	m->nwin++;
}

/* The oldest sample of @h leaves the history: saved when a window holds it. */
static int evict(struct lw_monitor *m, struct history *h)
{
	size_t cap = m->o.history;
	const struct lw_sample *s = &h->buf[(h->head + cap - h->n) % cap];

	h->n--;
	if (!m->o.threshold_ns || !in_window(m, s->expected_ns))
		return 0;
	if (m->saved_bytes + sizeof(*s) +
	    (m->mt ? atomic_load(&m->mt->trace_bytes) : 0) > m->o.disk_cap) {
		m->over_cap++;
		return 0;
	}
	if (lw_samples_write(m->w, s, 1) < 0)
		return -1;
	m->saved++;
	m->saved_bytes += sizeof(*s);
	if (m->mt)
		atomic_store(&m->mt->sample_bytes, m->saved_bytes);
	return 0;
}

int lw_monitor_feed(struct lw_monitor *m, int ring, const struct lw_sample *s, size_t n)
{
	struct history *h = ring >= 0 && ring < LW_MAX_RINGS ? &m->hist[ring] : NULL;

	if (h && m->o.threshold_ns && !h->buf) {
		h->buf = malloc(m->o.history * sizeof(*h->buf));
		if (!h->buf)
			return error("out of memory for the monitor's history");
	}
	for (size_t i = 0; i < n; i++) {
		const struct lw_sample *x = &s[i];
		int64_t idx = interval_of(m, x->expected_ns);
		int si = series_of(m, x);
		struct slot *sl;

		if (si < 0)
			continue;
		if (!m->seen || x->expected_ns > m->newest)
			m->newest = x->expected_ns;
		m->seen = 1;
		if (idx < m->next_close) {
			m->late++;	/* its interval is written already */
		} else {
			sl = &m->slot[idx % SLOTS];
			/* an interval SLOTS ahead: write the ones it pushes out */
			while (idx >= m->next_close + SLOTS)
				if (write_interval(m, m->next_close++, 0) < 0)
					return -1;
			sl->idx = idx;
			lw_hist_add(&sl->h[si], x->latency_ns, sl->h[si].total);
			sl->missed[si] += x->missed;
			if (m->o.threshold_ns && x->latency_ns > m->o.threshold_ns)
				sl->over[si]++;
		}
		if (!h || !m->o.threshold_ns)
			continue;
		if (x->latency_ns > m->o.threshold_ns)
			add_window(m, x->expected_ns);
		if (h->n == m->o.history) {
			/* full: this one leaves before a late spike could claim it */
			const struct lw_sample *old = &h->buf[(h->head + m->o.history - h->n) %
							      m->o.history];

			if (old->expected_ns + m->o.pre_ns + LAG_NS >= m->newest)
				m->overruns++;
			if (evict(m, h) < 0)
				return -1;
		}
		h->buf[h->head] = *x;
		h->head = (h->head + 1) % m->o.history;
		h->n++;
	}
	return 0;
}

int lw_monitor_tick(struct lw_monitor *m)
{
	if (!m->seen)
		return 0;
	/* intervals no producer can still add to */
	while (m->start + (uint64_t)(m->next_close + 1) * m->o.interval_ns + LAG_NS <= m->newest)
		if (write_interval(m, m->next_close++, 0) < 0)
			return -1;
	if (!m->o.threshold_ns)
		return 0;
	if (m->tw_on && m->newest >= m->tw_to)
		trace_save(m);
	/* history no spike can still reach */
	for (int r = 0; r < LW_MAX_RINGS; r++) {
		struct history *h = &m->hist[r];

		while (h->n && h->buf[(h->head + m->o.history - h->n) % m->o.history].expected_ns +
		       m->o.pre_ns + LAG_NS < m->newest)
			if (evict(m, h) < 0)
				return -1;
	}
	/* windows no sample can still fall in */
	for (int i = 0; i < m->nwin;)
		if (m->win[i].to + m->o.pre_ns + 2 * LAG_NS < m->newest)
			m->win[i] = m->win[--m->nwin];
		else
			i++;
	return 0;
}

int lw_monitor_close(struct lw_monitor *m)
{
	int64_t last = m->seen ? interval_of(m, m->newest) : -1;

	for (int r = 0; r < LW_MAX_RINGS; r++)
		while (m->hist[r].n)
			if (evict(m, &m->hist[r]) < 0)
				return -1;
	while (m->next_close <= last) {
		int64_t idx = m->next_close++;

		if (write_interval(m, idx, idx == last) < 0)
			return -1;
	}
	if (fsync(fileno(m->f)) < 0)
		return error_errno("cannot write %s", m->path);
	return 0;
}

json_t *lw_monitor_json(const struct lw_monitor *m)
{
	json_t *j = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
		"file", "monitor", "interval_ns", (json_int_t)m->o.interval_ns,
		"threshold_ns", (json_int_t)m->o.threshold_ns,
		"pre_ns", (json_int_t)m->o.pre_ns, "post_ns", (json_int_t)m->o.post_ns,
		"disk_cap_bytes", (json_int_t)m->o.disk_cap,
		"intervals", (json_int_t)m->intervals,
		"late_samples", (json_int_t)m->late, "spikes", (json_int_t)m->spikes,
		"windows", (json_int_t)m->windows,
		"window_samples_saved", (json_int_t)m->saved,
		"window_bytes_saved", (json_int_t)m->saved_bytes,
		"window_samples_over_cap", (json_int_t)m->over_cap,
		"history_overruns", (json_int_t)m->overruns);

	/* the recorder's part: RUN/trace.dat, "windows" under "trace" */
	if (j && m->mt)
		json_object_set_new(j, "trace_windows", json_pack("{s:I, s:I, s:I}",
			"requested", (json_int_t)m->trace_windows,
			"saved_while_running", (json_int_t)m->trace_saved,
			"spikes", (json_int_t)m->trace_spikes));
	return j;
}

void lw_monitor_free(struct lw_monitor *m)
{
	if (!m)
		return;
	if (m->f)
		fclose(m->f);
	for (int k = 0; k < SLOTS; k++) {
		for (int i = 0; i < m->nseries && m->slot[k].h; i++)
			lw_hist_free(&m->slot[k].h[i]);
		free(m->slot[k].h);
		free(m->slot[k].missed);
		free(m->slot[k].over);
	}
	for (int r = 0; r < LW_MAX_RINGS; r++)
		free(m->hist[r].buf);
	free(m->lookup);
	free(m);
}
