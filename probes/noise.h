/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The noise probe, the oslat / osnoise method, for isolated (nohz_full)
 * CPUs: one thread per noise CPU, pinned, reads CLOCK_MONOTONIC in a tight
 * loop and records every gap between two readings longer than the gap
 * threshold as a sample (probe LW_SAMPLE_NOISE, expected_ns = the gap's
 * start, latency_ns = its length).  See probes/gap.h.
 *
 * RT throttling: a SCHED_FIFO busy loop is stopped by the kernel for
 * sched_rt_period_us - sched_rt_runtime_us (50 ms of every second by
 * default), which the probe would then record as its own noise.  The probe
 * therefore sets /proc/sys/kernel/sched_rt_runtime_us to -1 for the run
 * (through the run's knob table, restored on every exit path) and records
 * the original value in the manifest.  Other CPUs keep running normally; the
 * plan (probes/plan.h) always leaves at least one CPU for housekeeping, and
 * every thread of latwatt already running is moved off the noise CPUs.
 * With --no-rt the loop runs SCHED_OTHER and nothing is changed.
 */
#ifndef LW_PROBE_NOISE_H
#define LW_PROBE_NOISE_H

#include <sched.h>
#include <stdint.h>

struct lw_part;

#define LW_RT_RUNTIME_KNOB "/proc/sys/kernel/sched_rt_runtime_us"

struct lw_noise_opts {
	cpu_set_t cpus;			/* one busy loop per CPU */
	cpu_set_t isolated;		/* isolcpus= / nohz_full= CPUs (for the manifest) */
	uint64_t gap_threshold_ns;	/* --noise-threshold: a longer gap is a sample */
	int priority;			/* SCHED_FIFO priority; ignored with no_rt */
	int no_rt;
	uint64_t threshold_ns;		/* --threshold: trace marker above it; 0 never */
	uint64_t break_ns;		/* --break-on; 0 never */
	const char *rt_runtime_knob;	/* NULL: LW_RT_RUNTIME_KNOB (tests point elsewhere) */
};

struct lw_part *lw_noise_new(const struct lw_noise_opts *o);

#endif
