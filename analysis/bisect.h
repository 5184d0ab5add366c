/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bisection over an ordered list of versions (kernels) for the first one
 * whose runs are worse than the last good one's by a rule of the comparison
 * engine.  The search itself, without running or comparing anything: the
 * caller makes runs (ensure_runs) and judges two versions' groups of runs
 * against each other with the comparison engine (judge).
 *
 * First the endpoints: the bad version must be worse than the good one by
 * the rules, with repeats added to both up to the limit, else the search
 * stops there (nothing to bisect).  Then each step takes the middle of the
 * bracket and compares its runs with both ends:
 *
 *	worse than the last good, and the first bad not worse than it: like bad
 *	not worse than the last good, and the first bad worse than it: like good
 *	anything else: cannot tell yet; more runs of the middle version
 *
 * judged again at doubling run counts (repeat, 2 repeat, 4 repeat ... up to
 * max_repeat: few looks, so that false alarms stay near the comparison's own
 * rate) until it can tell or has max_repeat runs, where it stops and says so.
 * At the end the step found is confirmed between its own two ends (last
 * good against first bad, with repeats as for the endpoints): a wrong turn
 * on the way (a false alarm, a missed change) leaves two alike versions
 * there, and the search says it could not decide rather than name one.
 * A verdict of the comparison engine is significant or absent, so "cannot
 * tell" is what too few runs give, never a guess.
 */
#ifndef LW_BISECT_H
#define LW_BISECT_H

#include <stddef.h>

enum lw_bisect_class {
	LW_BISECT_UNSURE,		/* cannot tell (yet) */
	LW_BISECT_LIKE_GOOD,
	LW_BISECT_LIKE_BAD,
	LW_BISECT_SKIPPED,		/* gave no result (its jobs failed): neither */
};

enum lw_bisect_status {
	LW_BISECT_FOUND,		/* first_bad is the first bad version */
	LW_BISECT_NO_DIFFERENCE,	/* bad is not worse than good by the rules */
	LW_BISECT_UNDECIDED,		/* a version stayed "cannot tell" at max_repeat */
	LW_BISECT_ONLY_SKIPPED,		/* between last_good and first_bad only skipped
					 * versions are left: the first bad is one of
					 * them or first_bad */
};

/*
 * What ensure_runs returns for a version that cannot give a result (a lab
 * job that did not complete: a boot failure, a timeout, an infrastructure
 * error): the version is skipped, as 'git bisect skip' does, never counted
 * good or bad; the search takes the nearest other version of the bracket.
 * An end of the bracket (good, bad) that cannot run is an error.
 */
#define LW_BISECT_CANNOT_RUN (-2)

struct lw_bisect_ops {
	/* Make at least @n runs of version @v exist; returns how many there
	 * are (>= n), LW_BISECT_CANNOT_RUN (said why), or -1 after error(). */
	int (*ensure_runs)(void *ctx, size_t v, unsigned n);
	/* Is version @v worse than version @base by the rules, judged on all
	 * the runs of each?  *worse = 1 or 0; returns -1 after error(). */
	int (*judge)(void *ctx, size_t base, size_t v, int *worse);
};

struct lw_bisect_step {
	size_t version;
	enum lw_bisect_class cls;
	unsigned runs;			/* runs of the version when it was classified */
	int worse_than_good;		/* the two judgements behind cls */
	int bad_worse;
};

#define LW_BISECT_MAX_STEPS 64

struct lw_bisect_result {
	enum lw_bisect_status status;
	size_t last_good, first_bad;	/* the bracket at the end */
	size_t undecided;		/* UNDECIDED: that version */
	unsigned endpoint_runs;		/* runs of good and bad when they were confirmed */
	unsigned confirmed_runs;	/* runs of the last good and first bad when the
					 * step between them was confirmed (0: no step) */
	struct lw_bisect_step steps[LW_BISECT_MAX_STEPS];
	size_t nsteps;
};

/*
 * Bisect versions [0, nv) between @good and @bad (good < bad), starting
 * each version with @repeat runs and doubling them up to @max_repeat.  Returns 0 with @res filled (any status), -1 after error().
 */
int lw_bisect(size_t nv, size_t good, size_t bad, unsigned repeat, unsigned max_repeat,
	      const struct lw_bisect_ops *ops, void *ctx, struct lw_bisect_result *res);

/* Classify from the two judgements (see above). */
enum lw_bisect_class lw_bisect_classify(int worse_than_good, int bad_worse);

const char *lw_bisect_class_name(enum lw_bisect_class c);	/* "like good" ... */
const char *lw_bisect_status_name(enum lw_bisect_status s);	/* "found" ... */

#endif
