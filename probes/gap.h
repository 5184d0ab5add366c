/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Gap detection of the noise probe (the oslat / osnoise method): a thread
 * reads the clock in a tight loop; the time between two readings is the
 * loop's own cost, unless something else ran on the CPU in between (an
 * interrupt, a softirq, a kernel thread, a hypervisor, an SMI).  A delta
 * above the threshold is a gap: it started at the previous reading and
 * lasted the whole delta, as the kernel's osnoise tracer counts it.
 *
 * Pure and inline, so that the loop stays tight and the detector can be fed
 * synthetic timestamps in tests/unit/test_gap.c.
 */
#ifndef LW_PROBE_GAP_H
#define LW_PROBE_GAP_H

#include <stdint.h>

struct lw_gap {
	uint64_t threshold_ns;	/* a delta above it is a gap */
	uint64_t prev;		/* the previous reading */
	uint64_t first;		/* the first reading */
	uint64_t loops;		/* readings fed after the first */
	uint64_t gaps;		/* deltas above the threshold */
	uint64_t noise_ns;	/* sum of those deltas */
	uint64_t max_ns;	/* largest delta */
	uint64_t min_ns;	/* smallest delta: the loop's own cost */
	uint64_t skipped_ns;	/* time left out by lw_gap_resync() */
	uint64_t backwards;	/* readings before the previous one (counted as 0) */
};

static inline void lw_gap_init(struct lw_gap *g, uint64_t threshold_ns, uint64_t now)
{
	*g = (struct lw_gap){ .threshold_ns = threshold_ns, .prev = now, .first = now,
			      .min_ns = UINT64_MAX };
}

/*
 * Feed one clock reading.  Returns the delta when it is a gap (its start,
 * the previous reading, in *start), else 0.
 */
static inline uint64_t lw_gap_feed(struct lw_gap *g, uint64_t now, uint64_t *start)
{
	uint64_t d = 0;

	if (now >= g->prev)
		d = now - g->prev;
	else
		g->backwards++;
	*start = g->prev;
	g->prev = now;
	g->loops++;
	if (d < g->min_ns)
		g->min_ns = d;
	if (d > g->max_ns)
		g->max_ns = d;
	if (d <= g->threshold_ns)
		return 0;
	g->gaps++;
	g->noise_ns += d;
	return d;
}

/*
 * Restart the measurement at @now, leaving out the time since the last
 * reading: the probe's own bookkeeping after a gap (storing the sample,
 * writing a trace marker) is not noise of the system.
 */
static inline void lw_gap_resync(struct lw_gap *g, uint64_t now)
{
	if (now > g->prev)
		g->skipped_ns += now - g->prev;
	g->prev = now;
}

/* Time observed: from the first reading to the last, less the skipped time. */
static inline uint64_t lw_gap_observed_ns(const struct lw_gap *g)
{
	uint64_t span = g->prev > g->first ? g->prev - g->first : 0;

	return span > g->skipped_ns ? span - g->skipped_ns : 0;
}

#endif
