/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The run driver.  `latwatt run` builds a list of participants — trace
 * recorder, power sampler, probes, workloads, in that order — and hands it
 * to lw_run_execute(), which alone owns setup order, signals and cleanup:
 *
 *   1. SIGINT/SIGTERM/SIGHUP are blocked in every thread (the caller does it
 *      with lw_run_block_signals() before creating any thread); the main
 *      thread waits for them with sigtimedwait().  No async signal handler.
 *   2. Participants start in list order; a failed start stops the ones
 *      already started, in reverse order.
 *   3. The main thread waits for the duration, a signal, or a stop request
 *      (lw_run_request_stop(), callable from any thread: --break-on, a
 *      workload that gives up), printing a progress line on a terminal.
 *   4. Participants stop in reverse order, then finish (write their part of
 *      the manifest) in list order; knobs are restored; the manifest is
 *      saved as complete or incomplete with the reason.
 *
 * Probe samples go through the run's sample sink: each producer thread gets
 * its own single-producer ring (lw_run_ring()) before it starts, and one
 * non-realtime writer thread drains all rings into RUN/samples.  A full ring
 * drops the sample and counts it; nothing blocks the producer.  With a
 * warm-up (warmup_ns), the samples due before its end go to
 * RUN/warmup-samples (same format) instead.
 */
#ifndef LW_RUN_H
#define LW_RUN_H

#include <jansson.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/actions.h"
#include "lib/journal.h"
#include "lib/knobs.h"
#include "lib/monitor.h"
#include "lib/rundir.h"
#include "lib/samples.h"

struct lw_run;

struct lw_part {
	const char *name;
	/* Prepare and start threads.  0 or -1 (after error()). */
	int  (*start)(struct lw_run *run, struct lw_part *p);
	/* Stop threads/children and join/reap them.  Called only if start
	 * succeeded; must not fail. */
	void (*stop)(struct lw_run *run, struct lw_part *p);
	/* Record results into run->dir.manifest and write files.  Called after
	 * every participant has stopped, also for interrupted runs. */
	int  (*finish)(struct lw_run *run, struct lw_part *p);
	/* Optional: a few characters for the progress line. */
	void (*progress)(struct lw_run *run, struct lw_part *p, char *buf, size_t len);
	/* Optional: release memory (always called last). */
	void (*destroy)(struct lw_part *p);
	void *priv;
	int   started;
};

/* Single-producer, single-consumer ring of samples. */
struct lw_ring {
	struct lw_sample *buf;
	size_t mask;			/* capacity - 1, a power of two */
	_Atomic size_t head;		/* written by the producer */
	_Atomic size_t tail;		/* written by the writer thread */
	_Atomic uint64_t dropped;	/* samples lost because the ring was full */
	_Atomic uint64_t pushed;
};

/* Push one sample; never blocks.  Returns -1 (and counts a drop) if full. */
static inline int lw_ring_push(struct lw_ring *r, const struct lw_sample *s)
{
	size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);

	if (head - tail > r->mask) {
		atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
		return -1;
	}
	r->buf[head & r->mask] = *s;
	atomic_store_explicit(&r->head, head + 1, memory_order_release);
	atomic_fetch_add_explicit(&r->pushed, 1, memory_order_relaxed);
	return 0;
}

#define LW_MAX_PARTS 32

enum lw_stop_reason {
	LW_STOP_NONE = 0,
	LW_STOP_DURATION,	/* ran for the requested duration: complete */
	LW_STOP_SIGNAL,		/* SIGINT / SIGTERM / SIGHUP: incomplete */
	LW_STOP_BREAK,		/* --break-on threshold reached: complete, ended early */
	LW_STOP_ERROR,		/* a participant failed: incomplete */
	LW_STOP_DECIDED,	/* --until-decided: the looker decided; complete, ended early */
};

/*
 * A look at the samples while the run goes on (run --until-decided): @feed
 * gets every sample the writer thread drains, from that thread; @look is
 * called from the main thread for each stretch k of @every_ns (from
 * start_mono: [k every, (k + 1) every)) once it has ended and
 * LW_LOOK_GRACE_NS more have passed for the rings to drain (a sample of a
 * stretch already looked at comes too late for the looks: @feed counts it),
 * and, when the run ends at its duration, for the stretches that ended by
 * then, after the last sample is drained.  @look returns 1 to end the run
 * (LW_STOP_DECIDED, its @detail the reason), 0 to go on, -1 after error()
 * (the run stops: LW_STOP_ERROR).
 */
#define LW_LOOK_GRACE_NS (300 * LW_NSEC_PER_MSEC)
struct lw_run_looker {
	uint64_t every_ns;
	int (*feed)(void *ctx, uint64_t start_mono, const struct lw_sample *s, size_t n);
	int (*look)(void *ctx, unsigned k, char *detail, size_t len);
	void *ctx;
};

struct lw_run {
	struct lw_rundir dir;
	uint64_t duration_ns;
	uint64_t start_mono;		/* set by lw_run_execute before starting */
	cpu_set_t cpus;			/* measured CPUs */
	int progress;			/* print a progress line (stderr is a tty) */

	_Atomic int stop;		/* set: every thread should stop */
	_Atomic int stop_reason;	/* enum lw_stop_reason */
	int signo;			/* the signal that stopped the run */
	char stop_detail[256];		/* e.g. "cyclic: cpu 1 latency 812us" */

	/* trace_marker of the trace instance (or top level); -1 if none.
	 * The trace recorder may replace it in its start(). */
	int marker_fd;
	/* tracing_on of the trace instance, -1 if none: a --break-on stop
	 * writes "0" to it at once, from the thread that saw the break. */
	int trace_off_fd;

	struct lw_part *part[LW_MAX_PARTS];
	int nparts;

	/*
	 * Threshold actions (lib/actions.h; set before lw_run_execute(), NULL:
	 * none).  A probe thread that sees a sample above --break-on calls
	 * lw_run_threshold(), which publishes the sample in a one-slot mailbox
	 * (crossings while the slot is full are counted, not queued) and, without
	 * "continue", requests the stop; the main thread runs the actions and
	 * frees the slot.  The log of what was fired goes to RUN/actions.json.
	 */
	const struct lw_actions *actions;
	uint64_t threshold_ns;		/* --break-on */
	_Atomic int spike_state;	/* 0 free, 1 being written, 2 ready */
	struct lw_sample spike;		/* the crossing in the slot */
	int spike_froze;		/* its thread stopped tracing ("trace") */
	_Atomic int trace_frozen;	/* "trace" with "continue": tracing stopped once */
	_Atomic uint64_t crossings;	/* samples above --break-on */
	uint64_t crossings_fired;	/* crossings the actions ran for */
	uint64_t crossings_unlogged;	/* of those, not in the log (LW_ACTION_LOG_MAX) */
	int has_first;
	struct lw_sample first;		/* the first crossing the actions ran for */
	json_t *action_log;		/* [{event, action, time, ok, outcome}] */

	struct lw_knobs knobs;
	/* what the run changed in the kernel, for 'latwatt cleanup' after a
	 * SIGKILL (lib/journal.h); knobs.journal points here */
	struct lw_journal journal;

	/* sample sink */
	struct lw_ring *ring[LW_MAX_RINGS];
	_Atomic int nrings;
	struct lw_samples_writer *samples;
	pthread_t writer;
	int writer_running;
	_Atomic int writer_quit;
	uint64_t samples_written;	/* into RUN/samples */
	uint64_t samples_measured;	/* drained from the rings (monitor: more than written) */
	uint64_t samples_dropped;
	/* --warm-up: the samples due in the run's first warmup_ns (expected_ns
	 * before start_mono + warmup_ns) go to RUN/warmup-samples instead, out
	 * of RUN/samples, the monitor and every statistic */
	uint64_t warmup_ns;
	struct lw_samples_writer *warmup;
	uint64_t warmup_written;
	/* long-term monitoring (lib/monitor.h): set before lw_run_execute() to
	 * keep interval histograms and windows around spikes, not every sample */
	const struct lw_monitor_opts *monitor_opts;
	struct lw_monitor *monitor;
	/* set before lw_run_execute() when the trace recorder keeps windows
	 * around the monitor's spikes: the two halves meet in mtrace */
	int monitor_trace;
	struct lw_monitor_trace mtrace;
	/* set before lw_run_execute() to look at the samples as they come */
	const struct lw_run_looker *looker;
	unsigned looked;		/* stretches looked at */
};

/* Block the stop signals in the calling thread (and so in threads it
 * creates later).  Child processes must unblock them before exec
 * (lw_run_unblock_signals()). */
void lw_run_block_signals(void);
void lw_run_unblock_signals(void);
/* Wait @ns with the stop signals blocked (between repeated runs): 0, or the
 * stop signal that came. */
int lw_run_settle(uint64_t ns);

/* Initialise @run for the directory @rd (ownership moves to @run). */
void lw_run_init(struct lw_run *run, struct lw_rundir *rd);
int lw_run_add(struct lw_run *run, struct lw_part *p);
/* A new ring of @capacity samples (rounded up to a power of two), drained
 * by the writer.  Call from start(), before the producer thread runs. */
struct lw_ring *lw_run_ring(struct lw_run *run, size_t capacity);
/* Request the run to end (any thread, async-signal-safe). */
void lw_run_request_stop(struct lw_run *run, enum lw_stop_reason why, const char *detail);
static inline int lw_run_stopping(struct lw_run *run)
{
	return atomic_load_explicit(&run->stop, memory_order_relaxed);
}
/* A sample above --break-on, from the probe thread that took it: no
 * allocation, no lock, at most one write(2) (tracing off).  @detail is the
 * stop reason when the run stops at it. */
void lw_run_threshold(struct lw_run *run, const struct lw_sample *s, const char *detail);
/* Run it all.  Returns an exit status: 0 complete, 2 error, 128+signo. */
int lw_run_execute(struct lw_run *run);
void lw_run_destroy(struct lw_run *run);

/* Write a trace marker (no allocation, one write(2)); safe from RT threads. */
void lw_run_mark(struct lw_run *run, const char *msg, size_t len);

/* Tiny formatter for hot paths: appends "key=value " pairs to a buffer. */
struct lw_fmt { char *p, *end; };
void lw_fmt_str(struct lw_fmt *f, const char *s);
void lw_fmt_u64(struct lw_fmt *f, uint64_t v);

#endif
