// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>

#include "analysis/sample_merge.h"
#include "lib/error.h"

#define series lw_merge_series

/* The lane of a record at time @t: the first whose last time is not after
 * @t, else a new one; -1 when every lane is taken. */
static int lane_of(struct series *s, uint64_t t)
{
	for (int l = 0; l < s->nlanes; l++)
		if (s->last[l] <= t) {
			s->last[l] = t;
			return l;
		}
	if (s->nlanes == LW_MERGE_MAX_LANES)
		return -1;
	s->last[s->nlanes] = t;
	return s->nlanes++;
}

int lw_merge_order(struct lw_merge_series *s, const struct lw_sample *smp, const char *path,
		   uint64_t index)
{
	int l = lane_of(s, smp->expected_ns);

	if (l < 0)
		return error("%s: record %llu (%s, cpu %u) is out of time order: its series needs "
			     "more than %d ascending runs", path, (unsigned long long)index,
			     lw_probe_name(smp->probe), smp->cpu, LW_MERGE_MAX_LANES);
	return l;
}

struct lane {
	struct lw_samples_reader *r;
	struct series replay;	/* the assignment of the series, replayed */
	unsigned probe;
	int cpu, lane, have;
	uint64_t pos;		/* records read */
	uint64_t index;		/* of head */
	struct lw_sample head;
};

struct lw_sample_merge {
	struct lane *lane;
	int nlanes;
};

/* The next record of @l's lane: 1, 0 at the end, -1 on error. */
static int lane_advance(struct lane *l)
{
	struct lw_sample s;
	int rr;

	while ((rr = lw_samples_next(l->r, &s)) == 1) {
		uint64_t i = l->pos++;

		if (s.probe != l->probe || s.cpu != l->cpu || lane_of(&l->replay, s.expected_ns) != l->lane)
			continue;
		l->head = s;
		l->index = i;
		l->have = 1;
		return 1;
	}
	l->have = 0;
	return rr;
}

struct lw_sample_merge *lw_sample_merge_open(const char *path, unsigned flags, int ncpus,
					     int (*visit)(void *ctx, const struct lw_sample *s,
							  uint64_t index),
					     void *ctx)
{
	struct lw_sample_merge *m = calloc(1, sizeof(*m));
	int32_t *map = calloc((size_t)LW_SAMPLE_MAX * (size_t)(ncpus > 0 ? ncpus : 1), sizeof(*map));
	struct series *ser = NULL;
	unsigned *ser_probe = NULL;
	int *ser_cpu = NULL;
	size_t nser = 0;
	struct lw_samples_reader *r = NULL;
	struct lw_sample s;
	uint64_t index = 0;
	int rr, k = 0;

	if (!m || !map) {
		error("out of memory");
		goto fail;
	}
	r = lw_samples_open_flags(path, flags);
	if (!r)
		goto fail;
	while ((rr = lw_samples_next(r, &s)) == 1) {
		uint64_t i = index++;
		int32_t *slot;

		if (visit && visit(ctx, &s, i) < 0)
			goto fail;
		if (s.probe >= LW_SAMPLE_MAX || s.cpu >= ncpus)
			continue;
		slot = &map[(size_t)s.probe * (size_t)ncpus + s.cpu];
		if (!*slot) {
			struct series *ns = realloc(ser, (nser + 1) * sizeof(*ns));
			unsigned *np = ns ? realloc(ser_probe, (nser + 1) * sizeof(*np)) : NULL;
			int *nc = np ? realloc(ser_cpu, (nser + 1) * sizeof(*nc)) : NULL;

			if (ns)
				ser = ns;
			if (np)
				ser_probe = np;
			if (!nc) {
				error("out of memory");
				goto fail;
			}
			ser_cpu = nc;
			memset(&ser[nser], 0, sizeof(*ser));
			ser_probe[nser] = s.probe;
			ser_cpu[nser] = s.cpu;
			*slot = (int32_t)++nser;
		}
		if (lw_merge_order(&ser[*slot - 1], &s, path, i) < 0)
			goto fail;
	}
	if (rr < 0)
		goto fail;
	lw_samples_close_reader(r);
	r = NULL;

	for (size_t j = 0; j < nser; j++)
		m->nlanes += ser[j].nlanes;
	m->lane = calloc(m->nlanes ? (size_t)m->nlanes : 1, sizeof(*m->lane));
	if (!m->lane) {
		error("out of memory");
		goto fail;
	}
	for (size_t j = 0; j < nser; j++)
		for (int l = 0; l < ser[j].nlanes; l++) {
			struct lane *ln = &m->lane[k++];

			ln->probe = ser_probe[j];
			ln->cpu = ser_cpu[j];
			ln->lane = l;
			ln->r = lw_samples_open_flags(path, flags | LW_SAMPLES_QUIET | LW_SAMPLES_SMALL_BUF);
			if (!ln->r || lane_advance(ln) < 0)
				goto fail;
		}
	free(map);
	free(ser);
	free(ser_probe);
	free(ser_cpu);
	return m;
fail:
	lw_samples_close_reader(r);
	free(map);
	free(ser);
	free(ser_probe);
	free(ser_cpu);
	lw_sample_merge_close(m);
	return NULL;
}

int lw_sample_merge_next(struct lw_sample_merge *m, struct lw_sample *s, uint64_t *index)
{
	struct lane *best = NULL;

	for (int l = 0; l < m->nlanes; l++) {
		struct lane *ln = &m->lane[l];

		if (ln->have && (!best || ln->head.expected_ns < best->head.expected_ns ||
				 (ln->head.expected_ns == best->head.expected_ns && ln->index < best->index)))
			best = ln;
	}
	if (!best)
		return 0;
	*s = best->head;
	if (index)
		*index = best->index;
	return lane_advance(best) < 0 ? -1 : 1;
}

int lw_sample_merge_lanes(const struct lw_sample_merge *m)
{
	return m->nlanes;
}

void lw_sample_merge_close(struct lw_sample_merge *m)
{
	if (!m)
		return;
	for (int l = 0; m->lane && l < m->nlanes; l++)
		lw_samples_close_reader(m->lane[l].r);
	free(m->lane);
	free(m);
}
