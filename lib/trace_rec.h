/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The trace recorder: a run participant that records kernel events into
 * RUN/trace.dat while the probes run.
 *
 *  - A tracefs instance of its own, "latwatt-<pid>", never the top-level
 *    buffer: another tool's tracing keeps working beside ours.  Trace clock
 *    "mono", so an event's timestamp is CLOCK_MONOTONIC, like every sample.
 *  - Streaming (the default): one non-realtime reader thread per CPU,
 *    pinned away from the measured CPUs when some CPU is left, splices
 *    whole sub-buffers from per_cpu/cpuN/trace_pipe_raw into RUN/.trace-cpuN
 *    (tracefs_cpu_write()); it sleeps until the ring is a tenth full, at nice -10.
 *    Nothing is parsed while recording.
 *  - Flight recorder (with --break-on): nothing is read during the run; the
 *    ring (overwrite mode) keeps the last --trace-buffer per CPU, tracing is
 *    switched off by the thread that saw the break (lw_run_request_stop()
 *    writes the instance's tracing_on), and the ring is read out at the end:
 *    the moments before the break are what is kept.
 *  - Monitor mode (--monitor with --threshold): as the flight recorder, the
 *    ring overwrites and nothing is read while nothing happens; when a
 *    spike's post-window has passed, the sample writer's thread (through
 *    struct lw_monitor_trace, lib/monitor.h) has the recorder switch
 *    tracing off, read each CPU's ring out (trace_pipe_raw, non-blocking)
 *    into RUN/.trace-cpuN, leaving out the pages that end before the
 *    window, and switch tracing on again.  A window that would pass the
 *    disk cap is taken back (the files truncated) and counted.  trace.dat
 *    then holds every saved window; the manifest lists them
 *    ("trace"."windows": [{from_ns, to_ns, bytes}]), from the latest first
 *    event over the CPUs to the moment tracing stopped: only there is the
 *    trace of every CPU whole.
 *  - At the end: tracing off, the rest of each ring flushed, the instance's
 *    per-CPU stats read, the instance removed; then trace.dat is assembled
 *    (lib/tracedat.h) and the manifest gets a "trace" object with the lost
 *    events per CPU and the windows in which events are missing.
 *
 * The participant must be started before and stopped after every other
 * participant but the power sampler (which spans the whole run), so that
 * their activity is traced.
 */
#ifndef LW_TRACE_REC_H
#define LW_TRACE_REC_H

#include <stdint.h>
#include <stdio.h>

struct lw_part;

#define LW_TRACE_INSTANCE_PREFIX "latwatt-"
#define LW_TRACE_DEFAULT_BUFFER  (4ULL << 20)	/* per CPU */

enum lw_trace_mode {
	LW_TRACE_AUTO = 0,	/* default events when tracefs is usable, else off */
	LW_TRACE_OFF,
	LW_TRACE_ON,		/* the events of @events; failing to trace is an error */
};

struct lw_trace_opts {
	enum lw_trace_mode mode;
	const char *events;	/* "default" or a list: "default,block:*,sched:sched_switch" */
	uint64_t buffer_bytes;	/* per CPU; 0: LW_TRACE_DEFAULT_BUFFER */
	int flight;		/* flight recorder (--break-on) */
	int monitor;		/* windows around the monitor's spikes (--monitor) */
	int no_kallsyms;	/* leave /proc/kallsyms out of trace.dat */
	/* a kernel stack (ftrace:kernel_stack, by stacktrace triggers) at each
	 * wake-up of a probe's or workload's thread while a task ran, and at
	 * each switch to it from a task: where the code that delayed it was */
	int stacks;
	const char *off_reason;	/* LW_TRACE_OFF: why, for the manifest (default "--trace off") */
};

/* The default event set, NULL-terminated "system:event" strings. */
extern const char *const lw_trace_default_events[];

/*
 * Check the syntax of an event list (for option parsing, no tracefs
 * access): comma-separated "system:event", "system:*" or "default".
 * 0, or -1 after error() naming @what.
 */
int lw_trace_check_list(const char *what, const char *list);

/* The participant. */
struct lw_part *lw_trace_new(const struct lw_trace_opts *o);
/* Will @p trace (its instance is set up)?  For the monitor's trace windows. */
int lw_trace_prepared(const struct lw_part *p);
/* The most trace.dat takes beside its data (event formats, kernel symbols,
 * command lines): for the monitor's disk bound.  0 when @p does not trace. */
uint64_t lw_trace_header_bound(const struct lw_part *p);

/*
 * Remove latwatt instances whose run is gone (the pid in the name no longer
 * lives, or is not latwatt).  Prints one line per instance removed to @out.
 * Returns the number removed, or -1 (error()).
 */
int lw_trace_cleanup(FILE *out, int dry_run);

#endif
