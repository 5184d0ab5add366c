/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The timerlat probe: the kernel's timerlat tracer (PREEMPT_RT kernels and
 * others built with CONFIG_TIMERLAT_TRACER) run in a tracefs instance of our
 * own, "latwatt-timerlat-<pid>", never in the top-level buffer.
 *
 * The tracer arms a periodic hrtimer per CPU (osnoise/cpus, period
 * osnoise/timerlat_period_us) and records, for each activation, the timer
 * latency seen by the IRQ handler and then by the woken kernel thread
 * (event ftrace:timerlat: seqnum, context 0 = irq / 1 = thread, and
 * timer_latency in ns).  Both become samples, probes LW_SAMPLE_TIMERLAT_IRQ
 * and LW_SAMPLE_TIMERLAT_THREAD.
 *
 * expected_ns, the timer's expiry on CLOCK_MONOTONIC: the kernel computes
 * timer_latency = now - expiry with a fresh CLOCK_MONOTONIC reading and
 * writes the event right after, so the event's timestamp on the "mono" trace
 * clock minus timer_latency is the expiry, late by the few hundred ns it
 * takes to write the event.  The thread sample of an activation takes the
 * expiry derived from its IRQ sample (same seqnum, same CPU), so both
 * samples of one activation carry the same expected_ns.
 *
 * User-space threads (--timerlat-threads user, rtla timerlat -u; the default
 * where the kernel has osnoise/per_cpu/cpuN/timerlat_fd, Linux 6.5 on): the
 * kernel's timerlat/N threads are switched off (osnoise/options
 * NO_OSNOISE_WORKLOAD, restored to OSNOISE_WORKLOAD), and a thread of ours
 * per CPU, pinned, at the probes' priority, opens that CPU's timerlat_fd and
 * read()s it in a loop: each read() arms the timer and returns once the
 * thread, woken by it, runs.  The tracer records a third event per
 * activation, context 2 (return to user), when the thread calls read()
 * again: its timer_latency is how late the thread was back in user space
 * and in the kernel again, the whole path an application's thread takes.
 * It becomes a third sample, LW_SAMPLE_TIMERLAT_USER, with the activation's
 * expected_ns.
 *
 * Every osnoise/ knob changed is saved and restored through the run's knob
 * table; the instance is removed in stop() (the run driver calls it on
 * SIGINT/SIGTERM too).  Events are read with tracefs_iterate_raw_events() by
 * a SCHED_OTHER thread kept off the measured CPUs where there are others.
 */
#ifndef LW_PROBE_TIMERLAT_H
#define LW_PROBE_TIMERLAT_H

#include <sched.h>
#include <stdint.h>

#include "lib/samples.h"

struct lw_part;
struct tep_handle;
struct tep_format_field;
struct tep_record;

struct lw_timerlat_opts {
	cpu_set_t cpus;
	uint64_t period_ns;		/* whole microseconds, 100us..1s */
	int priority;			/* SCHED_FIFO priority of the timerlat/N threads */
	int no_rt;			/* leave the kernel's default priority */
	uint64_t threshold_ns;		/* trace marker above it; 0 never */
	uint64_t break_ns;		/* --break-on; 0 never */
	int optional;			/* not asked for: failing to start is a warning */
	int user;			/* user-space threads read timerlat_fd */
};

/* --timerlat-threads: LW_TL_THREADS_AUTO (0) lets the plan choose. */
enum { LW_TL_THREADS_AUTO, LW_TL_THREADS_KERNEL, LW_TL_THREADS_USER };
int lw_parse_timerlat_threads(const char *what, const char *s, uint64_t *v);

struct lw_part *lw_timerlat_new(const struct lw_timerlat_opts *o);

/* --- decoding, pure (tests/unit/test_timerlat.c) --- */

enum lw_tl_context { LW_TL_IRQ = 0, LW_TL_THREAD = 1, LW_TL_USER_RET = 2 };

/* One ftrace:timerlat event. */
struct lw_tl_event {
	uint64_t ts;			/* event time, "mono" trace clock, ns */
	int cpu;
	uint32_t seqnum;		/* activation number, per CPU */
	int context;			/* enum lw_tl_context */
	uint64_t latency_ns;		/* timer_latency */
};

/* Pairing state of one CPU: the expiry of its last IRQ sample. */
struct lw_tl_cpu {
	uint32_t seqnum;
	uint64_t expected_ns;
	int have;
};

/* Fields of the ftrace:timerlat event in a tep handle. */
struct lw_tl_format {
	int id;
	struct tep_format_field *seqnum, *context, *latency;
};

/* Find the event and its fields; -1 (error()) if the kernel lacks them. */
int lw_timerlat_format(struct tep_handle *tep, struct lw_tl_format *f);
/* Read one record of that event; -1 if a field cannot be read. */
int lw_timerlat_decode(const struct lw_tl_format *f, const struct tep_record *rec,
		       struct lw_tl_event *e);
/*
 * An event into a sample (threshold flags left to the caller).  Returns 1
 * with *s filled, 0 for events of another context or that cannot be placed
 * (latency larger than the timestamp).  The thread and return-to-user
 * samples of an activation take the expected_ns of its IRQ sample.
 */
int lw_timerlat_sample(struct lw_tl_cpu *st, const struct lw_tl_event *e, uint64_t period_ns,
		       struct lw_sample *s);

#endif
