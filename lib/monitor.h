/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Long-term monitoring (`latwatt run --monitor INTERVAL`), in the manner of
 * OSADL's QA farm: instead of every sample, the sample writer keeps
 *
 *   RUN/monitor   one JSON line per interval: per probe and CPU, the 1 us
 *                 histogram of the interval (lib/stats.h lw_hist_json), so
 *                 its maximum, count, missed periods and samples over the
 *                 threshold; a header line first:
 *                 {"format":"latwatt-monitor","version":1,"interval_ns":…,
 *                  "start_ns":…,"threshold_ns":…}
 *                 then {"start_ns":…,"end_ns":…,"series":[{"probe":"cyclic",
 *                  "cpu":0,"missed":…,"over":…,"late":…,"histogram":{…}}]}
 *   RUN/samples   only the raw samples around spikes (above the threshold):
 *                 a flight recorder keeps the last samples of every producer
 *                 and saves a window [spike - pre, spike + post] of all of
 *                 them, until the disk cap is reached.
 *   RUN/trace.dat the kernel trace around spikes, when the run traces: the
 *                 run's trace instance keeps a bounded ring per CPU in
 *                 overwrite mode (kernel memory), nothing is streamed;
 *                 once a spike's post-window has passed, the sample
 *                 writer's thread has the recorder freeze the ring, copy
 *                 its pages of the window out and resume (struct
 *                 lw_monitor_trace).  Spikes inside one window share it.
 *                 Those bytes count against the same disk cap.
 *
 * Memory is fixed when the run starts (a few interval histograms per
 * series, a history per producer) and the disk use is bounded by the cap
 * plus the interval lines; both are printed at the start.
 */
#ifndef LW_MONITOR_H
#define LW_MONITOR_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/samples.h"

#define LW_MONITOR_FORMAT  "latwatt-monitor"
#define LW_MONITOR_VERSION 1

struct lw_monitor_opts {
	uint64_t interval_ns;	/* histogram interval, >= 1 s */
	uint64_t threshold_ns;	/* spikes: samples above it; 0: no raw windows */
	uint64_t pre_ns, post_ns;	/* raw window around each spike */
	uint64_t disk_cap;	/* bytes of raw samples at most */
	size_t history;		/* samples of history per producer */
};

/* Defaults: interval 5 min, window 100 ms before and after, cap 64 MB. */
void lw_monitor_opts_default(struct lw_monitor_opts *o);

/*
 * The trace half of the flight recorder, shared by the monitor (the sample
 * writer's thread) and the trace recorder (lib/trace_rec.c), which sets
 * save and ctx in its start() and then ready.  save(ctx, from_ns) freezes
 * the ring, copies what it holds since @from_ns and resumes tracing: 1
 * saved, 0 not (past the cap, nothing recorded, stopping), -1 error.  The
 * recorder adds what it wrote to trace_bytes; both halves keep
 * sample_bytes + trace_bytes within cap.  A window still waiting for its
 * post-window when the run ends is pending: the recorder saves it as it stops.
 */
struct lw_monitor_trace {
	int (*save)(void *ctx, uint64_t from_ns);
	void *ctx;
	_Atomic int ready;
	uint64_t cap;
	_Atomic uint64_t sample_bytes, trace_bytes;
	_Atomic int pending;
	_Atomic uint64_t pending_from;
};

struct lw_monitor;
/* @dir: the run directory; @start_ns: the run's start (CLOCK_MONOTONIC);
 * @w: the samples file the windows go to (owned by the caller). */
struct lw_monitor *lw_monitor_new(const struct lw_monitor_opts *o, int dfd, const char *dir,
				  uint64_t start_ns, struct lw_samples_writer *w);
/* Spikes also get a kernel trace window through @mt (before the first feed). */
void lw_monitor_set_trace(struct lw_monitor *m, struct lw_monitor_trace *mt);
/* Samples drained from producer @ring (in its order). 0 or -1. */
int lw_monitor_feed(struct lw_monitor *m, int ring, const struct lw_sample *s, size_t n);
/* After a drain of every producer: close finished intervals, save or drop
 * history older than a window can reach.  0 or -1. */
int lw_monitor_tick(struct lw_monitor *m);
/* The end: every interval closed, every history decided.  0 or -1. */
int lw_monitor_close(struct lw_monitor *m);
/* What it did, for the manifest: intervals, spikes, windows, bytes, caps. */
json_t *lw_monitor_json(const struct lw_monitor *m);
void lw_monitor_free(struct lw_monitor *m);

/* The bounds printed at the start: memory for @rings producers and
 * @series probe-CPU series, disk for a run of @duration_ns. */
void lw_monitor_bounds(const struct lw_monitor_opts *o, int rings, int series,
		       uint64_t duration_ns, uint64_t *mem, uint64_t *disk);

#endif
