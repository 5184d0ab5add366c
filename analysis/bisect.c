// SPDX-License-Identifier: GPL-2.0-only
/* Bisection over ordered versions, driven by a run maker and a judge. */
#include <stdlib.h>
#include <string.h>

#include "analysis/bisect.h"
#include "lib/error.h"

enum lw_bisect_class lw_bisect_classify(int worse_than_good, int bad_worse)
{
	if (worse_than_good && !bad_worse)
		return LW_BISECT_LIKE_BAD;
	if (!worse_than_good && bad_worse)
		return LW_BISECT_LIKE_GOOD;
	return LW_BISECT_UNSURE;
}

const char *lw_bisect_class_name(enum lw_bisect_class c)
{
	switch (c) {
	case LW_BISECT_LIKE_GOOD: return "like good";
	case LW_BISECT_LIKE_BAD:  return "like bad";
	case LW_BISECT_SKIPPED:   return "skipped (no result)";
	default:                  return "cannot tell";
	}
}

const char *lw_bisect_status_name(enum lw_bisect_status s)
{
	switch (s) {
	case LW_BISECT_FOUND:         return "found";
	case LW_BISECT_NO_DIFFERENCE: return "no difference";
	case LW_BISECT_ONLY_SKIPPED:  return "only skipped left";
	default:                      return "undecided";
	}
}

/*
 * The run counts at which a version is judged again: doubling (3, 6, 12 ...)
 * up to the limit.  Each look is another chance of a false alarm; few looks
 * keep that chance near the comparison's own rate, where a look after every
 * added run would multiply it.
 */
static unsigned next_look(unsigned n, unsigned max_repeat)
{
	return n >= max_repeat / 2 ? max_repeat : 2 * n;
}

/* The endpoints: bad must be worse than good, with repeats added to both. */
static int confirm(size_t good, size_t bad, unsigned repeat, unsigned max_repeat,
		   const struct lw_bisect_ops *ops, void *ctx, unsigned *runs)
{
	for (unsigned n = repeat;; n = next_look(n, max_repeat)) {
		int worse;

		int g = ops->ensure_runs(ctx, good, n), b = g < 0 ? g : ops->ensure_runs(ctx, bad, n);

		if (g == LW_BISECT_CANNOT_RUN || b == LW_BISECT_CANNOT_RUN)
			return error("bisect: the %s end of the bracket gave no result: it cannot "
				     "be skipped", g == LW_BISECT_CANNOT_RUN ? "good" : "bad");
		if (g < 0 || b < 0 || ops->judge(ctx, good, bad, &worse) < 0)
			return -1;
		*runs = n;
		if (worse)
			return 1;
		if (n >= max_repeat)
			return 0;
	}
}

/*
 * The version to try in (lo, hi): the middle, else the nearest to it that
 * was not skipped (above first, as the middle rounds down); hi when every
 * one was.
 */
static size_t pick(size_t lo, size_t hi, const unsigned char *skipped)
{
	size_t m = lo + (hi - lo) / 2;

	for (size_t d = 0; d < hi - lo; d++) {
		if (m + d < hi && !skipped[m + d])
			return m + d;
		if (d && d < m - lo && !skipped[m - d])
			return m - d;
	}
	return hi;
}

static int search(size_t good, size_t bad, unsigned repeat, unsigned max_repeat,
		  const struct lw_bisect_ops *ops, void *ctx, struct lw_bisect_result *res,
		  unsigned char *skipped);

int lw_bisect(size_t nv, size_t good, size_t bad, unsigned repeat, unsigned max_repeat,
	      const struct lw_bisect_ops *ops, void *ctx, struct lw_bisect_result *res)
{
	unsigned char *skipped;
	int r;

	memset(res, 0, sizeof(*res));
	if (good >= bad || bad >= nv)
		return error("bisect: the good version must come before the bad one");
	if (!repeat || max_repeat < repeat)
		return error("bisect: repeats must be at least 1 and at most the limit");
	skipped = calloc(nv, 1);
	if (!skipped)
		return error("out of memory");
	r = search(good, bad, repeat, max_repeat, ops, ctx, res, skipped);
	free(skipped);
	return r;
}

static int search(size_t good, size_t bad, unsigned repeat, unsigned max_repeat,
		  const struct lw_bisect_ops *ops, void *ctx, struct lw_bisect_result *res,
		  unsigned char *skipped)
{
	int r;

	res->last_good = good;
	res->first_bad = bad;
	r = confirm(good, bad, repeat, max_repeat, ops, ctx, &res->endpoint_runs);
	if (r < 0)
		return -1;
	if (!r) {
		res->status = LW_BISECT_NO_DIFFERENCE;
		return 0;
	}
	while (res->first_bad - res->last_good > 1) {
		size_t m = pick(res->last_good, res->first_bad, skipped);
		struct lw_bisect_step *st;

		if (m == res->first_bad) {
			/* every version between was skipped: which is first cannot be told */
			res->status = LW_BISECT_ONLY_SKIPPED;
			return 0;
		}
		if (res->nsteps == LW_BISECT_MAX_STEPS)
			return error("bisect: more than %d steps", LW_BISECT_MAX_STEPS);
		st = &res->steps[res->nsteps++];
		st->version = m;
		for (unsigned n = repeat;; n = next_look(n, max_repeat)) {
			int have = ops->ensure_runs(ctx, m, n);

			if (have == LW_BISECT_CANNOT_RUN) {
				st->cls = LW_BISECT_SKIPPED;
				break;
			}
			if (have < 0 || ops->judge(ctx, res->last_good, m, &st->worse_than_good) < 0 ||
			    ops->judge(ctx, m, res->first_bad, &st->bad_worse) < 0)
				return -1;
			st->runs = (unsigned)have;
			st->cls = lw_bisect_classify(st->worse_than_good, st->bad_worse);
			if (st->cls != LW_BISECT_UNSURE || (unsigned)have >= max_repeat)
				break;
			if ((unsigned)have > n)	/* runs left by an earlier, interrupted bisect */
				n = (unsigned)have;
		}
		if (st->cls == LW_BISECT_SKIPPED) {
			skipped[m] = 1;
			continue;
		}
		if (st->cls == LW_BISECT_UNSURE) {
			res->status = LW_BISECT_UNDECIDED;
			res->undecided = m;
			return 0;
		}
		if (st->cls == LW_BISECT_LIKE_BAD)
			res->first_bad = m;
		else
			res->last_good = m;
	}
	/*
	 * The step found must hold between its own two ends: one false alarm
	 * or miss on the way leaves two versions alike at the end, and that is
	 * said (undecided at the first bad), never named as the answer.
	 */
	if (res->nsteps) {
		r = confirm(res->last_good, res->first_bad, repeat, max_repeat, ops, ctx,
			    &res->confirmed_runs);
		if (r < 0)
			return -1;
		if (!r) {
			res->status = LW_BISECT_UNDECIDED;
			res->undecided = res->first_bad;
			return 0;
		}
	}
	res->status = LW_BISECT_FOUND;
	return 0;
}
