/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cyclic probe, the cyclictest method: one thread per CPU, pinned,
 * SCHED_FIFO, sleeping to absolute deadlines with clock_nanosleep() on
 * CLOCK_MONOTONIC and measuring how late it wakes, in nanoseconds.
 */
#ifndef LW_PROBE_CYCLIC_H
#define LW_PROBE_CYCLIC_H

#include <sched.h>
#include <stdint.h>

struct lw_part;

struct lw_cyclic_opts {
	cpu_set_t cpus;
	uint64_t interval_ns;	/* period of the first thread */
	uint64_t distance_ns;	/* added to the interval for each next thread */
	int priority;		/* SCHED_FIFO priority; ignored with no_rt */
	int no_rt;		/* SCHED_OTHER */
	uint64_t threshold_ns;	/* a sample above it writes a trace marker; 0: never */
	uint64_t break_ns;	/* a sample above it stops the run (--break-on); 0: never */
	int aligned;		/* --aligned: the threads' grids start at one instant */
	uint64_t align_ns;	/* --aligned US: each next thread US later than the one before */
};

struct lw_part *lw_cyclic_new(const struct lw_cyclic_opts *o);

/*
 * The first wake-up of thread @k (0 for the first measured CPU) of interval
 * @interval_ns: with --aligned, @t0 (the common start, 5 ms after the last
 * thread was made) plus one interval plus @k times @align_ns, so that the threads of one
 * interval wake at the same instants (align_ns 0) or @align_ns apart, as
 * cyclictest -A and rtla timerlat -A.
 */
static inline uint64_t lw_cyclic_first_wake(uint64_t t0, uint64_t interval_ns, int k,
					    uint64_t align_ns)
{
	return t0 + interval_ns + (uint64_t)k * align_ns;
}

#endif
