/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host's time in each spike (analysis/attrib.h: lw_spike.host_ns), by
 * the spike's record index in RUN/samples: what the kernel-attributable
 * figures take off a sample's latency.  analysis.json carries it as
 * host.adjust, [[record index, host ns], ...] in record order, so that
 * analyze's twin figures and compare --judge kernel read the same.
 */
#ifndef LW_HOSTADJ_H
#define LW_HOSTADJ_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct lw_hostadj {
	uint64_t *index, *ns;	/* in record order once sorted */
	size_t n, cap;
};

/* 0, or -1 after error(). */
int lw_hostadj_add(struct lw_hostadj *h, uint64_t index, uint64_t ns);
void lw_hostadj_sort(struct lw_hostadj *h);
void lw_hostadj_free(struct lw_hostadj *h);
json_t *lw_hostadj_json(const struct lw_hostadj *h);
/* From host.adjust of an analysis document (@file names it in messages):
 * 0 (nothing when absent), -1 after error() when malformed. */
int lw_hostadj_from_json(struct lw_hostadj *h, const json_t *analysis, const char *file);
/* The latency @lat of record @index less its host time: for reads in
 * record order, *@cur starting at 0.  A sample never goes below 0. */
static inline uint64_t lw_hostadj_apply(const struct lw_hostadj *h, size_t *cur, uint64_t index,
					uint64_t lat)
{
	if (!h)
		return lat;
	while (*cur < h->n && h->index[*cur] < index)
		(*cur)++;
	if (*cur < h->n && h->index[*cur] == index)
		return h->ns[*cur] < lat ? lat - h->ns[*cur] : 0;
	return lat;
}

/* The whole periods a sample @lat late missed (@missed), of its lateness
 * less the host's time (@adj, lw_hostadj_apply()): with its probe's period
 * @period_ns known (0: not), floor(@adj / period), as the probes count
 * them (probes/cyclic.c, timerlat); else in proportion, floor(@missed *
 * @adj / @lat), which is never more than that and at most one less.  A
 * sample the host did not touch (@adj == @lat) keeps its own. */
static inline uint32_t lw_hostadj_missed(uint32_t missed, uint64_t lat, uint64_t adj,
					 uint64_t period_ns)
{
	uint64_t m;

	if (!missed || adj >= lat)
		return missed;
	m = period_ns ? adj / period_ns :
	    (uint64_t)((long double)missed * (long double)adj / (long double)lat);
	return m < missed ? (uint32_t)m : missed;
}

#endif
