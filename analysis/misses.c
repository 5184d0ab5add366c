// SPDX-License-Identifier: GPL-2.0-only
/* The deadline misses of the workloads explained by the trace pass
 * (analysis/tracepass.h: lw_misses_*()). */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/attrib.h"
#include "analysis/tasks.h"
#include "analysis/tracepass.h"
#include "lib/error.h"
#include "lib/samples.h"
#include "lib/sort.h"
#include "workloads/rkind.h"

/*
 * Every listed deadline miss explained from the trace by its own window: an
 * audio xrun at boundary B, a video frame dropped at vsync V, from B (V) to
 * the moment its work was done (B + interval + lateness), following the
 * thread that wakes the worker and the worker (a work window of the
 * attribution engine, analysis/attrib.h).  The record kinds
 * (workloads/rkind.h) give each window: its stages, its threads, what its
 * work should take.  The misses (LW_REC_LIST_MISSES at most a workload) are
 * held sorted by the start of their windows and given to the engine as the
 * trace reaches them; the engine hands each back once final.
 */
struct miss {
	json_t *m, *w;		/* the miss, its workload */
	const struct lw_rkind *rk;
	struct lw_miss_window win;
	uint64_t period_ns;
	char cause[160];
	int done;
	long backlog;		/* the latest earlier miss its worker was busy with, -1 */
};

struct lw_misses {
	struct miss *v;
	size_t n, next;
	const json_t *manifest;	/* whose the tasks are */
};

static int cmp_miss(const void *x, const void *y)
{
	const struct miss *p = x, *q = y;

	return p->win.start_ns < q->win.start_ns ? -1 : p->win.start_ns > q->win.start_ns;
}

struct lw_misses *lw_misses_new(json_t *workloads, const json_t *manifest)
{
	struct lw_misses *ms = calloc(1, sizeof(*ms));
	size_t cap = 0, i;
	const char *key;
	json_t *w, *m;

	if (!ms) {
		error("out of memory");
		return NULL;
	}
	ms->manifest = manifest;
	json_object_foreach(workloads, key, w) {
		const json_t *mw = json_object_get(json_object_get(manifest, "workloads"), key);
		double interval = json_number_value(json_object_get(w, "interval_ns"));
		const struct lw_rkind *rk = lw_rkind_find(json_string_value(json_object_get(w, "kind")));
		json_t *list;

		if (!rk || !rk->miss_window)
			continue;
		list = json_object_get(w, rk->list_key);
		json_array_foreach(list, i, m) {
			struct miss *x;

			if (ms->n == cap) {
				struct miss *t;

				cap = cap ? cap * 2 : 64;
				t = realloc(ms->v, cap * sizeof(*t));
				if (!t) {
					lw_misses_free(ms);
					error("out of memory");
					return NULL;
				}
				ms->v = t;
			}
			x = &ms->v[ms->n];
			memset(x, 0, sizeof(*x));
			x->backlog = -1;
			if (rk->miss_window(mw, w, m, &x->win) < 0)
				continue;	/* no deadline: not a miss the trace can place */
			x->m = m;
			x->w = w;
			x->rk = rk;
			x->period_ns = interval > 0 ? (uint64_t)llround(interval) : 0;
			ms->n++;
		}
	}
	lw_qsort(ms->v, ms->n, sizeof(*ms->v), cmp_miss);
	return ms;
}

static int same_thread(const struct lw_rthread *a, const struct lw_rthread *b)
{
	return a->tid >= 0 ? a->tid == b->tid : !strcmp(a->name, b->name);
}

static void miss_unattributable(struct miss *x, const char *why)
{
	snprintf(x->cause, sizeof(x->cause), "%s", LW_MISS_UNEXPLAINED);
	json_object_set_new(x->m, "cause", json_string(LW_MISS_UNEXPLAINED));
	json_object_set_new(x->m, "unattributable", json_string(why));
	x->done = 1;
}

int lw_misses_feed(struct lw_misses *ms, struct lw_attrib *a, uint64_t t, int ncpus)
{
	for (; ms && ms->next < ms->n && ms->v[ms->next].win.start_ns <= t; ms->next++) {
		struct miss *x = &ms->v[ms->next];
		const struct lw_miss_window *w = &x->win;
		uint64_t periods = w->processed;
		struct lw_spike s;
		char why[64];

		if (w->cpu < 0 || w->cpu >= ncpus) {
			snprintf(why, sizeof(why), "its CPU (%d) is not in the trace", w->cpu);
			miss_unattributable(x, why);
			continue;
		}
		/* the worker still busy with earlier periods when this one began:
		 * their processing is its own work too (backlog) */
		x->backlog = -1;
		for (size_t j = ms->next; j-- > 0;)
			if (ms->v[j].rk == x->rk && ms->v[j].win.processed &&
			    ms->v[j].win.end_ns > w->start_ns && same_thread(&ms->v[j].win.worker, &w->worker)) {
				periods++;
				if (x->backlog < 0)
					x->backlog = (long)j;
			}
		s = (struct lw_spike){
			.expected_ns = w->start_ns, .latency_ns = w->end_ns - w->start_ns, .cpu = w->cpu,
			.probe = (unsigned)(x->rk->probe > 0 ? x->rk->probe : 0), .index = ms->next,
			.work = 1, .tid = w->worker.tid, .kprio = w->worker.kprio,
			.comm = w->worker.name, .waker_tid = w->waker.tid, .waker_kprio = w->waker.kprio,
			.waker_comm = w->waker.name, .work_budget_ns = w->work_ns * periods,
			.waker_budget_ns = w->waker_work_ns, .period_ns = x->period_ns,
			.stage_end = { w->start_ns + w->stage_ns[0],
				       w->start_ns + w->stage_ns[0] + w->stage_ns[1] },
		};
		if (lw_attrib_add_spike(a, &s) < 0)
			return -1;
	}
	return 0;
}

void lw_misses_done(struct lw_misses *ms, const struct lw_spike *s)
{
	struct miss *x;
	const struct lw_component *d;
	json_t *st;
	char buf[160];

	if (!ms || s->index >= ms->n)
		return;
	x = &ms->v[s->index];
	if (s->unattributable) {
		miss_unattributable(x, s->unattributable);
		return;
	}
	x->done = 1;
	snprintf(x->cause, sizeof(x->cause), "%s", lw_spike_cause(s, buf, sizeof(buf)));
	json_object_set_new(x->m, "cause", json_string(x->cause));
	d = s->dominant >= 0 ? &s->comp[s->dominant] : NULL;
	if (!strcmp(x->cause, LW_OWN_WORK)) {
		snprintf(buf, sizeof(buf), "own work %.2f ms > period %.2f ms", (double)s->work_ns / 1e6,
			 (double)s->period_ns / 1e6);
		json_object_set_new(x->m, "cause_detail", json_string(buf));
		json_object_set_new(x->m, "cause_share",
				    json_real((double)s->work_ns / (double)s->latency_ns));
	} else if (d) {
		json_object_set_new(x->m, "cause_share",
				    json_real((double)s->dominant_ns / (double)s->latency_ns));
		if (d->pid > 0) {
			char role[96];
			int ours = lw_task_of_run(ms->manifest, d->pid, d->name, role, sizeof(role));

			json_object_set_new(x->m, "cause_task", json_pack("{s:i, s:s, s:o, s:o}",
				"pid", d->pid, "name", d->name,
				"this_run", ours < 0 ? json_null() : json_boolean(ours),
				"role", role[0] ? json_string(role) : json_null()));
		}
	}
	st = json_array();
	for (int k = 0; k < 3; k++)
		json_array_append_new(st, json_pack("{s:s, s:I}", "stage", x->rk->stage_names[k],
						    "ns", (json_int_t)x->win.stage_ns[k]));
	json_object_set_new(x->m, "stages", st);
	json_object_set_new(x->m, "work_ns", json_integer((json_int_t)s->work_ns));
	json_object_set_new(x->m, "work_budget_ns", json_integer((json_int_t)s->work_budget_ns));
	json_object_set_new(x->m, "window", json_pack("{s:I, s:I, s:{s:i, s:s}, s:{s:i, s:s}, s:o}",
		"start_ns", (json_int_t)s->expected_ns, "end_ns", (json_int_t)(s->expected_ns + s->latency_ns),
		"worker", "tid", x->win.worker.tid, "name", x->win.worker.name,
		"waker", "tid", x->win.waker.tid, "name", x->win.waker.name,
		"woken_ns", s->woken_ns ? json_integer((json_int_t)s->woken_ns) : json_null()));
	json_object_set_new(x->m, "components", lw_spike_components_json(s, x->rk->stage_names));
	json_object_set_new(x->m, "timeline", lw_spike_timeline_json(s));
	if (s->seg_truncated)
		json_object_set_new(x->m, "timeline_truncated", json_true());
}

void lw_misses_finish(struct lw_misses *ms)
{
	if (!ms)
		return;
	for (size_t i = 0; i < ms->n; i++) {	/* in time order: a backlog's cause is known */
		struct miss *x = &ms->v[i];
		json_t *counts = json_object_get(x->w, "miss_causes");

		if (!x->done)	/* never given to the engine: the pass ended first */
			miss_unattributable(x, "after the trace ended");
		if (!strcmp(x->cause, "backlog") && x->backlog >= 0 &&
		    strcmp(ms->v[x->backlog].cause, LW_MISS_UNEXPLAINED)) {
			/* busy with a period that was itself late: that period's cause */
			const struct miss *b = &ms->v[x->backlog];

			snprintf(x->cause, sizeof(x->cause), "%s", b->cause);
			json_object_set_new(x->m, "cause", json_string(x->cause));
			json_object_set_new(x->m, "knock_on", json_pack("{s:I, s:s}", "start_ns",
				(json_int_t)b->win.start_ns, "cause", b->cause));
			json_object_del(x->m, "cause_task");
			json_object_del(x->m, "cause_detail");
			if (json_object_get(b->m, "cause_task"))
				json_object_set(x->m, "cause_task", json_object_get(b->m, "cause_task"));
			if (json_object_get(b->m, "cause_detail"))
				json_object_set(x->m, "cause_detail", json_object_get(b->m, "cause_detail"));
		}
		if (!counts) {
			counts = json_object();
			json_object_set_new(x->w, "miss_causes", counts);
		}
		json_object_set_new(counts, x->cause, json_integer(json_integer_value(
			json_object_get(counts, x->cause)) + 1));
	}
	lw_misses_free(ms);
}

void lw_misses_free(struct lw_misses *ms)
{
	if (!ms)
		return;
	free(ms->v);
	free(ms);
}

struct count { const char *cause; json_int_t n; };

static int cmp_count(const void *x, const void *y)
{
	const struct count *p = x, *q = y;

	if (p->n != q->n)
		return p->n < q->n ? 1 : -1;
	return strcmp(p->cause, q->cause);
}

void lw_misses_print(FILE *out, const json_t *analysis)
{
	const json_t *w, *v;
	const char *key, *cause;

	json_object_foreach((json_t *)json_object_get(analysis, "workloads"), key, w) {
		const json_t *mc = json_object_get(w, "miss_causes");
		size_t n = 0, k = json_object_size(mc);
		struct count *c = k ? calloc(k, sizeof(*c)) : NULL;
		const struct lw_rkind *rk = lw_rkind_find(json_string_value(json_object_get(w, "kind")));
		json_int_t listed = 0, all = rk ? json_integer_value(json_object_get(w, rk->miss_key)) : 0;

		if (!c)
			continue;
		json_object_foreach((json_t *)mc, cause, v) {
			c[n++] = (struct count){ cause, json_integer_value(v) };
			listed += json_integer_value(v);
		}
		lw_qsort(c, n, sizeof(*c), cmp_count);
		if (listed < all)
			fprintf(out, "  %s: the first %" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT
				" deadline misses by cause (each from its own window in the trace):", key,
				listed, all);
		else
			fprintf(out, "  %s: deadline misses by cause (each from its own window in the "
				"trace):", key);
		for (size_t i = 0; i < n; i++)
			fprintf(out, "%s %s %lld", i ? ";" : "", c[i].cause, (long long)c[i].n);
		fputc('\n', out);
		free(c);
	}
}
