/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Steal time per CPU during a run: what the hypervisor reports it took from
 * each vCPU (the steal column of /proc/stat), sampled by a thread of its own
 * into RUN/steal, and read back to say how much of it fell in a window.
 *
 * RUN/steal is text, a line each:
 *
 *   # latwatt-steal 1 period_ns 20000000 user_hz 100
 *   # cpus 0 1
 *   <CLOCK_MONOTONIC ns> <steal ns of the first CPU listed> <of the next> ...
 *
 * The steal figures are the counters since boot (ns, from clock ticks of
 * 1/user_hz s: /proc/stat's resolution); a CPU not online is "-".  A row is
 * written when a counter moved, with the sample before it when that one
 * was not written, and at the start and the end: between two rows the
 * counters moved by the difference, spread over the interval (nothing is
 * known of where in it).  A run killed in the middle leaves whole rows;
 * a last partial row is ignored.
 */
#ifndef LW_STEAL_H
#define LW_STEAL_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#define LW_STEAL_FILE    "steal"
#define LW_STEAL_MAGIC   "latwatt-steal"
#define LW_STEAL_VERSION 1
#define LW_STEAL_PERIOD_NS (20 * 1000000ULL)	/* 50 Hz */
#define LW_STEAL_MAX_CPUS 1024

/* Per-CPU steal counters (ns) from a /proc/stat text: @ns[cpu], UINT64_MAX
 * for a CPU without a line.  Returns the highest CPU number + 1, 0 when
 * none. */
int lw_steal_parse(const char *text, uint64_t *ns, int max);

/* The run part that samples every @period_ns (0: LW_STEAL_PERIOD_NS) from
 * @root/proc/stat (NULL: the running system), its thread SCHED_OTHER on
 * @cpus (NULL: anywhere).  NULL after error(). */
struct lw_part;
struct lw_part *lw_steal_sampler_new(const char *root, uint64_t period_ns, const cpu_set_t *cpus);

/* RUN/steal read back. */
struct lw_steal {
	int ncpu;		/* columns */
	int *cpu;		/* the CPU of each column */
	size_t n;		/* rows */
	uint64_t *t;		/* n */
	uint64_t *v;		/* n * ncpu; UINT64_MAX: not known */
	uint64_t period_ns;
};
/* 1 read, 0 no such file, -1 malformed (after error() naming the file and
 * line). */
int lw_steal_load(const char *path, struct lw_steal *st);
void lw_steal_free(struct lw_steal *st);
/* Steal on @cpu in [@from, @to), interpolated linearly between the rows
 * around each end (0 outside the rows or for a CPU not sampled). */
uint64_t lw_steal_between(const struct lw_steal *st, int cpu, uint64_t from, uint64_t to);

#endif
