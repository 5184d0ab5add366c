/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the comparison engine: what judging (analysis/compare.c) and the
 * run and group objects of the comparison document (analysis/compare_json.c)
 * share.  Not for other callers: analysis/compare.h is the interface.
 */
#ifndef LW_COMPARE_INT_H
#define LW_COMPARE_INT_H

#include <jansson.h>

#include "analysis/compare.h"

/* The per-run figures a comparison judges: the percentiles, the mean and
 * the median of the block maxima. */
enum { ST_MEAN = LW_NPCT, ST_BLOCKMAX, NST };
#define POWER 0.8		/* of the smallest detectable change */

struct pcache {
	const struct lw_cprobe *cp;
	double val[NST];		/* the run's figure */
	double wvar[NST];		/* variance of its log within the run (bootstrap) */
	double lo[NST], hi[NST];	/* its within-run interval */
	const char *ci_method;
	double *bm;			/* block maxima, ns, time order */
	size_t nbm;
	struct lw_dist bmd;		/* the same, as a distribution */
	struct lw_evt_est evt;
	uint64_t bm_block_ns;		/* the blocks of bm */
	struct pcache *cpu;		/* per CPU, parallel to cp->cpu (when it has two or more) */
	size_t ncpu;
};

struct rcache {
	const struct lw_crun *r;
	struct pcache *p;		/* parallel to r->p (a view of one CPU: its figures) */
	size_t np;
	uint64_t ident;
};

/* A group: runs rc[first .. first + n). */
struct gview {
	const struct lw_cgroup *g;
	const struct rcache *rc;	/* rc + first */
	size_t n;
};

/* analysis/compare.c */
double lw_cmp_median(const struct lw_dist *d);
int lw_cmp_bmax_usable(const struct lw_cprobe *cp, uint64_t block_ns);
const struct pcache *lw_cmp_rc_probe(const struct rcache *rc, unsigned probe);
int lw_cmp_group_has(const struct gview *g, unsigned probe);
int lw_cmp_group_evt(const struct gview *g, unsigned probe, const struct lw_cmp_opts *o,
		     uint64_t key, struct lw_evt_est *est);

/* analysis/compare_json.c: a run's object of "runs", a group's of "groups" */
uint64_t lw_cmp_hist_pct_bound(const struct lw_cprobe *cp, int k);
int lw_cmp_missed_known(const struct lw_crun *r, unsigned probe);
json_t *lw_cmp_run_json(const struct rcache *rc, size_t index, size_t group,
			const struct lw_cmp_opts *o);
size_t lw_cmp_group_logs(const struct gview *g, unsigned probe, int k, double *x, double *wv);
int lw_cmp_group_json(const struct gview *g, size_t index, size_t first,
		      const struct lw_cmp_opts *o, json_t **out);

#endif
