/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sequential designs: runs are added one at a time and compared with a
 * baseline after each, until the answer is decided or a stated maximum of
 * runs is reached (latwatt run --repeat auto).
 *
 * Looking after every run and stopping at the first verdict would, at the
 * plain alpha, find a difference between two groups of one system far more
 * often than alpha (each look is another chance).  The error rate alpha is
 * instead spent over the looks (Lan and DeMets' spending functions): the
 * look after r of at most N runs may spend alpha_r = f(r/N) - f((r-1)/N)
 * (the first look, after the fewest runs M, f(M/N)), and its comparison is
 * made at that level (lw_compare_groups() with alpha = alpha_r, Holm over
 * the metrics inside it).  Whatever the correlation between the looks,
 * the chance of a false "different" at any of them is at most the sum of
 * the alpha_r (the union bound), which is f(1) = alpha: stopping at any
 * look, for any reason, keeps the false verdict rate at most alpha.  The
 * union bound gives away what the correlation of the looks would allow
 * (exact group-sequential boundaries), and buys validity for the per-run t
 * tests with Holm and variance floors, for which those boundaries are not
 * known.
 *
 * A look decides:
 *  - "different": a metric's verdict is better or worse at alpha_r (its
 *    change significant, and beyond --practical);
 *  - "no change that matters": every tested metric's (1 - 2 alpha_r)
 *    interval of the relative change lies within +/- practical (two
 *    one-sided tests at alpha_r each; an intersection of such claims needs
 *    no correction over the metrics); a count with no event on either
 *    side holds nothing up;
 *  - else "continue", and after N runs "undecided", with the smallest
 *    change those runs could detect.
 *
 * Pure: no I/O but error(); tests/unit/test_sequential.c.
 */
#ifndef LW_SEQUENTIAL_H
#define LW_SEQUENTIAL_H

#include <jansson.h>
#include <stddef.h>

#include "analysis/compare.h"

enum lw_seq_spend {
	LW_SEQ_POCOCK,		/* alpha ln(1 + (e - 1) t): spent evenly, early stops */
	LW_SEQ_OBF,		/* 2 - 2 Phi(z(1 - alpha/2) / sqrt t): kept for the last looks */
	LW_SEQ_NAIVE,		/* every look at alpha: NOT valid, for the tests' contrast */
};

struct lw_seq_design {
	enum lw_seq_spend spend;
	double alpha;			/* over all the looks, 0.05 */
	double practical;		/* smallest relative change that matters, 0.05 */
	unsigned min_runs;		/* first look, 3 */
	unsigned max_runs;		/* last look, 10 */
	/* the metrics decided on, as named in the comparison ("cyclic.p99")
	 * or without the probe ("p99": of every probe); none: every tested
	 * metric.  Holm over these. */
	const char *const *metrics;
	size_t nmetrics;
};

void lw_seq_design_default(struct lw_seq_design *d);
/* -1 after error() when the design is not one (min > max, min < 1 ...). */
int lw_seq_design_check(const struct lw_seq_design *d);
const char *lw_seq_spend_name(enum lw_seq_spend s);
int lw_seq_spend_by_name(const char *name);	/* -1 when unknown */
/* The alpha spent by information fraction @t (0 <= t <= 1). */
double lw_seq_spent(enum lw_seq_spend s, double alpha, double t);
/* The alpha of the look after @runs runs (min_runs <= runs <= max_runs). */
double lw_seq_alpha_at(const struct lw_seq_design *d, unsigned runs);

enum lw_seq_decision {
	LW_SEQ_CONTINUE,
	LW_SEQ_DIFFERENT,
	LW_SEQ_NO_CHANGE,
	LW_SEQ_UNDECIDED,	/* after max_runs */
};
const char *lw_seq_decision_name(enum lw_seq_decision d);

struct lw_seq_look {
	unsigned runs;
	double alpha_k;
	enum lw_seq_decision decision;
	int worse;			/* DIFFERENT with a metric worse */
	/* the metric the decision is worded on: the verdict with the smallest
	 * adjusted p (a worse one first); for NO_CHANGE the widest interval;
	 * for CONTINUE and UNDECIDED the p99 (else the metric whose smallest
	 * detectable change is smallest) */
	char metric[96];
	const char *verdict;		/* its verdict (LW_WORSE ...), or NULL */
	double rel, lo, hi;		/* its change and (1 - alpha_k) interval, fractions */
	double mdc;			/* its smallest detectable change, a fraction */
	unsigned tested;		/* metrics tested */
	unsigned outside;		/* tested metrics whose interval leaves +/- practical */
};

#define LW_SEQ_POWER 0.8	/* of the smallest detectable change, as compare's */

/*
 * Judge the comparison document @doc (lw_compare_groups() of the baseline
 * and the runs so far): its first comparison, at the look's alpha.  The
 * verdicts are taken again from each metric's adjusted p (deciding on every
 * metric, the document's own p_adjusted; on the metrics named, Holm over
 * them from their p) and judged change, so that one document serves any
 * alpha and any choice of metrics (the document's own verdicts are at the
 * alpha it was made with).  0, or -1 after error() when
 * @doc holds no comparison.
 */
int lw_seq_judge(const struct lw_seq_design *d, unsigned runs, const json_t *doc,
		 struct lw_seq_look *out);

/* Does every metric @d decides on name a metric of the comparison @doc?
 * 0, or -1 after error() naming the first that does not. */
int lw_seq_check_metrics(const struct lw_seq_design *d, const json_t *doc);

/*
 * One look: @runs[0 .. nbase) the baseline, @runs[nbase .. nbase + n) the
 * runs so far (n of them), compared at the look's alpha (@o otherwise as
 * given); the document into *@doc when @doc is not NULL.  0 or -1.
 */
int lw_seq_look(const struct lw_seq_design *d, const struct lw_crun *runs, size_t nbase, size_t n,
		const struct lw_cmp_opts *o, struct lw_seq_look *out, json_t **doc);

/*
 * The sequence over its looks: it stops at a look that finds a metric
 * worse, or no change that matters, or at the last look.  A look that finds
 * metrics better and none worse does not stop it (a kernel that saves power
 * must not end the search for its latency regression): it is kept, and is
 * the answer at the end when no later look decides.  Going on after it
 * keeps the rate: a false "different" at any look is within the union
 * bound.
 */
struct lw_seq_state {
	int stopped;
	struct lw_seq_look final;	/* once stopped: the answer */
	int have_better;
	struct lw_seq_look better;	/* the first look that found only better */
};
/* Take look @l (looks in order); 1 when the sequence stops (st->final). */
int lw_seq_next(const struct lw_seq_design *d, struct lw_seq_state *st,
		const struct lw_seq_look *l);

/* {runs, alpha_k, decision, metric, verdict, rel, ci_rel, min_detectable} */
json_t *lw_seq_look_json(const struct lw_seq_look *l);
/* "decided after 7 runs: cyclic.p99 worse by 18 % [9, 27]" and such. */
void lw_seq_line(const struct lw_seq_look *l, char *buf, size_t len);

#endif
