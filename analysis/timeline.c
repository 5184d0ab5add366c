// SPDX-License-Identifier: GPL-2.0-only
/* Latency over time at plot resolution (analysis/timeline.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/timeline.h"
#include "lib/error.h"
#include "lib/samples.h"
#include "lib/sort.h"
#include "power/power.h"

void lw_timeline_init(struct lw_timeline *tl, uint64_t t0, uint64_t span, size_t n)
{
	memset(tl, 0, sizeof(*tl));
	tl->t0 = t0;
	tl->nbuckets = n ? n : 1;
	if (!span)
		span = 1000000000ULL;
	tl->width = (span + tl->nbuckets - 1) / tl->nbuckets;
	if (!tl->width)
		tl->width = 1;
}

static struct lw_tl_series *series(struct lw_timeline *tl, unsigned probe, int cpu)
{
	struct lw_tl_series *s;

	for (size_t i = 0; i < tl->n; i++)
		if (tl->s[i].probe == probe && tl->s[i].cpu == cpu)
			return &tl->s[i];
	s = realloc(tl->s, (tl->n + 1) * sizeof(*s));
	if (!s)
		return NULL;
	tl->s = s;
	s = &tl->s[tl->n];
	s->probe = probe;
	s->cpu = cpu;
	s->max = malloc(tl->nbuckets * sizeof(*s->max));
	s->at = calloc(tl->nbuckets, sizeof(*s->at));
	if (!s->max || !s->at) {
		free(s->max);
		free(s->at);
		return NULL;
	}
	for (size_t i = 0; i < tl->nbuckets; i++)
		s->max[i] = UINT64_MAX;
	tl->n++;
	return s;
}

/* Double the width: bucket i takes 2i and 2i + 1. */
static void widen(struct lw_timeline *tl)
{
	for (size_t k = 0; k < tl->n; k++) {
		struct lw_tl_series *s = &tl->s[k];

		for (size_t i = 0; i < tl->nbuckets; i++) {
			size_t a = 2 * i, b = 2 * i + 1;
			uint64_t m = UINT64_MAX, at = 0;

			if (a < tl->nbuckets && s->max[a] != UINT64_MAX) {
				m = s->max[a];
				at = s->at[a];
			}
			if (b < tl->nbuckets && s->max[b] != UINT64_MAX &&
			    (m == UINT64_MAX || s->max[b] > m)) {
				m = s->max[b];
				at = s->at[b];
			}
			s->max[i] = m;
			s->at[i] = at;
		}
	}
	tl->width *= 2;
}

static void top_add(struct lw_timeline *tl, unsigned probe, int cpu, uint64_t at, uint64_t lat)
{
	size_t i;
	typeof(tl->top[0]) *t = &tl->top[probe < 16 ? probe : 0];

	if (t->n == LW_TIMELINE_TOP && lat <= t->v[LW_TIMELINE_TOP - 1].latency)
		return;
	if (t->n < LW_TIMELINE_TOP)
		t->n++;
	for (i = t->n - 1; i > 0 && t->v[i - 1].latency < lat; i--)
		t->v[i] = t->v[i - 1];
	t->v[i] = (struct lw_tl_top){ .at = at, .latency = lat, .cpu = cpu };
}

int lw_timeline_add(struct lw_timeline *tl, unsigned probe, int cpu, uint64_t at,
		    uint64_t latency)
{
	struct lw_tl_series *s = series(tl, probe, cpu);
	uint64_t off = at > tl->t0 ? at - tl->t0 : 0;
	size_t b;

	if (!s)
		return error("out of memory");
	while (off / tl->width >= tl->nbuckets)
		widen(tl);
	b = (size_t)(off / tl->width);
	if (s->max[b] == UINT64_MAX || latency > s->max[b]) {
		s->max[b] = latency;
		s->at[b] = at;
	}
	top_add(tl, probe, cpu, at, latency);
	if (!tl->first || at < tl->first)
		tl->first = at;
	if (at > tl->last)
		tl->last = at;
	return 0;
}

static int cmp_series(const void *a, const void *b)
{
	const struct lw_tl_series *x = a, *y = b;

	if (x->probe != y->probe)
		return x->probe < y->probe ? -1 : 1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

json_t *lw_timeline_json(const struct lw_timeline *tl)
{
	json_t *o, *probes;

	if (!tl->n)
		return NULL;
	lw_qsort(tl->s, tl->n, sizeof(*tl->s), cmp_series);
	probes = json_object();
	for (size_t k = 0; k < tl->n; k++) {
		const struct lw_tl_series *s = &tl->s[k];
		const char *name = lw_probe_name(s->probe);
		json_t *p = json_object_get(probes, name), *pts = json_array();

		if (!p) {
			json_t *top = json_array();
			typeof(tl->top[0]) const *t = &tl->top[s->probe < 16 ? s->probe : 0];

			for (size_t i = 0; i < t->n; i++)
				json_array_append_new(top, json_pack("{s:i, s:I, s:I}", "cpu", t->v[i].cpu,
					"at_ns", (json_int_t)(t->v[i].at > tl->t0 ?
							      t->v[i].at - tl->t0 : 0),
					"latency_ns", (json_int_t)t->v[i].latency));
			p = json_pack("{s:[], s:o}", "cpus", "top", top);
			json_object_set_new(probes, name, p);
		}
		for (size_t i = 0; i < tl->nbuckets; i++)
			if (s->max[i] != UINT64_MAX)
				json_array_append_new(pts, json_pack("[I, I]",
					(json_int_t)(s->at[i] > tl->t0 ? s->at[i] - tl->t0 : 0),
					(json_int_t)s->max[i]));
		json_array_append_new(json_object_get(p, "cpus"),
				      json_pack("{s:i, s:o}", "cpu", s->cpu, "points", pts));
	}
	o = json_pack("{s:I, s:I, s:I, s:I, s:o}", "t0_ns", (json_int_t)tl->t0,
		      "bucket_ns", (json_int_t)tl->width,
		      "first_ns", (json_int_t)(tl->first > tl->t0 ? tl->first - tl->t0 : 0),
		      "last_ns", (json_int_t)(tl->last > tl->t0 ? tl->last - tl->t0 : 0),
		      "probes", probes);
	return o;
}

void lw_timeline_free(struct lw_timeline *tl)
{
	for (size_t i = 0; i < tl->n; i++) {
		free(tl->s[i].max);
		free(tl->s[i].at);
	}
	free(tl->s);
	memset(tl, 0, sizeof(*tl));
}

/* ---- power over time --------------------------------------------------- */

struct pw_bucket {
	double sum;
	uint32_t n, seen;	/* samples with a value, and every sample */
	uint8_t before;		/* a gap before its first sample */
	uint8_t inside;		/* a gap between two of its samples */
};

struct pw_tl {
	uint64_t t0, width;
	size_t nb;
	struct pw_bucket *b[LW_POWER_MAX_RAILS];
	int err;
};

static void pw_widen(struct pw_tl *p)
{
	for (int r = 0; r < LW_POWER_MAX_RAILS; r++) {
		struct pw_bucket *b = p->b[r];

		if (!b)
			continue;
		for (size_t i = 0; i < p->nb; i++) {
			struct pw_bucket x = b[2 * i < p->nb ? 2 * i : p->nb - 1], y = { 0 };

			if (2 * i >= p->nb)
				x = y;
			if (2 * i + 1 < p->nb)
				y = b[2 * i + 1];
			if (x.seen)
				x.inside |= y.inside | y.before;
			else
				x.before |= y.before, x.inside |= y.inside;
			x.sum += y.sum;
			x.n += y.n;
			x.seen += y.seen;
			b[i] = x;
		}
	}
	p->width *= 2;
}

static int pw_point(void *ctx, const struct lw_power_rail *rl, int rail,
		    const struct lw_power_point *pt)
{
	struct pw_tl *p = ctx;
	uint64_t off = pt->ts > p->t0 ? pt->ts - p->t0 : 0;
	size_t i;

	(void)rl;
	if (rail < 0 || rail >= LW_POWER_MAX_RAILS)
		return 0;
	if (!p->b[rail] && !(p->b[rail] = calloc(p->nb, sizeof(struct pw_bucket)))) {
		p->err = 1;
		return -1;
	}
	while (off / p->width >= p->nb)
		pw_widen(p);
	i = (size_t)(off / p->width);
	if (pt->after_gap) {
		if (p->b[rail][i].seen)
			p->b[rail][i].inside = 1;
		else
			p->b[rail][i].before = 1;
	}
	p->b[rail][i].seen++;
	if (!isnan(pt->w)) {
		p->b[rail][i].sum += pt->w;
		p->b[rail][i].n++;
	}
	return 0;
}

json_t *lw_power_timeline(const char *path, uint64_t t0, size_t n)
{
	struct pw_tl p = { .t0 = t0, .nb = n ? n : 1, .width = 1000000 };
	struct lw_power_data *d = lw_power_scan(path, pw_point, &p);
	json_t *rails = NULL, *o = NULL;

	if (d && d->disordered) {
		/* out of time order (not a file latwatt writes): sorted in memory */
		lw_power_data_free(d);
		for (int r = 0; r < LW_POWER_MAX_RAILS; r++) {
			free(p.b[r]);
			p.b[r] = NULL;
		}
		p.width = 1000000;
		d = lw_power_read(path);
		for (int r = 0; d && r < d->nrail; r++)
			for (size_t k = 0; k < d->rail[r].n; k++)
				if (pw_point(&p, &d->rail[r], r, &d->rail[r].pt[k]) < 0)
					break;
	}
	if (!d || p.err) {
		if (p.err)
			error("out of memory");
		goto out;
	}
	rails = json_array();
	for (int r = 0; r < d->nrail && r < LW_POWER_MAX_RAILS; r++) {
		json_t *pts = json_array();
		int gap = 0;

		for (size_t i = 0; p.b[r] && i < p.nb; i++) {
			const struct pw_bucket *b = &p.b[r][i];

			/* a gap before the bucket's first sample breaks the line
			 * before its point; one inside it, after */
			gap |= b->before;
			if (!b->n) {
				gap |= b->inside;
				continue;
			}
			json_array_append_new(pts, json_pack("[I, f, i]",
				(json_int_t)(i * p.width + p.width / 2), b->sum / b->n * 1e3,
				gap && json_array_size(pts)));
			gap = b->inside;
		}
		json_array_append_new(rails, json_pack("{s:s, s:s, s:o}", "name", d->rail[r].name,
			"kind", d->rail[r].flags & LW_RAIL_ESTIMATED ? "estimated" : "measured",
			"points", pts));
	}
	o = json_pack("{s:I, s:o}", "bucket_ns", (json_int_t)p.width, "rails", rails);
out:
	for (int r = 0; r < LW_POWER_MAX_RAILS; r++)
		free(p.b[r]);
	lw_power_data_free(d);
	return o;
}
