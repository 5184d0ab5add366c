/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Record kinds: how the workloads that keep per-period records and count
 * deadline misses (audio, video) are read back, summarized and reported.
 *
 * A workload with records points its descriptor's .records at one
 * const struct lw_rkind, defined in its own file beside the workload
 * (workloads/audio.c: audio_records).  The summaries (workloads/summary.c),
 * the trace pass (analysis/tracepass.c: the threads behind a probe's samples,
 * the cause of each miss), comparisons (analysis/compare.c) and the reports
 * (reports/rrun.c, reports/html_run.c) iterate over these descriptors, so
 * adding such a workload is its file plus its line in LW_WORKLOADS(); the
 * metric registry (lib/metrics.c), `report --help` and the man page name its
 * metric.  A miss is named in one generic form: a count under .miss_key, up
 * to LW_REC_LIST_MISSES entries under .list_key, each with .time_key (its
 * deadline, CLOCK_MONOTONIC ns), "cpu", "lateness_ns" and "skipped".
 *
 * The keys are those older runs were written with, so old files still read:
 *
 *	kind   miss_key  list_key      time_key     total_key  metric
 *	audio  xruns     xrun_list     boundary_ns  periods    xruns
 *	video  dropped   dropped_list  vsync_ns     frames     dropped_frames
 *
 * The metric name is also the key of the miss count in a comparison's
 * per-run "workloads" object, beside .total_key (analysis/compare_json.c).
 */
#ifndef LW_RKIND_H
#define LW_RKIND_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LW_REC_LIST_MISSES 1000	/* deadline misses listed with their timestamps */

struct lw_records_reader;
struct lw_records_hdr;

/* A growing vector of values, for a distribution. */
struct lw_rvec {
	uint64_t *v;
	size_t n, cap;
};

/* What reading a records file gathers: four distributions of the kind's
 * choosing, the counts, the span and the listed misses. */
struct lw_rec_acc {
	struct lw_rvec a, b, c, d;
	uint64_t count, miss, skipped, first, last;
	int64_t worst;
	json_t *misses;		/* the list, LW_REC_LIST_MISSES entries at most */
};

/* A thread of a workload as the trace knows it: its kernel tid (-1 where the
 * run did not record it), kernel priority (-1 unknown) and name. */
struct lw_rthread {
	int tid;
	int kprio;
	char name[16];
};

/* What the trace pass needs to explain a listed miss from the trace
 * (analysis/misses.c): the window from the start of its period (the
 * boundary, the vsync) to the moment its work was done, in three stages
 * (the first: audio boundary -> interrupt thread running, video vsync ->
 * frame captured; the worker's wake-up; its processing), the thread that
 * wakes the worker and the worker. */
struct lw_miss_window {
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC */
	uint64_t stage_ns[3];		/* the stages' lengths, from start_ns */
	uint64_t waker_work_ns;		/* the waker's own work in it (video: the copy) */
	uint64_t work_ns;		/* what a period's processing takes: twice the run's
					 * median processing time (0: unknown) */
	int cpu;			/* the CPU the record names */
	int processed;			/* 0: skipped, never processed */
	struct lw_rthread worker, waker;
};

struct lw_rkind {
	const char *kind;		/* "audio": the records header's and the manifest's kind */
	size_t record_size;		/* sizeof(struct lw_audio_record) */
	size_t record_size_v1;		/* in a version 1 file (read() widens those) */
	/* Read every record of @r into @x (with lw_rec_count()); 0 at the end,
	 * -1 after error(). */
	int (*read)(struct lw_records_reader *r, struct lw_rec_acc *x);
	/* Add the kind's own figures to summary @o: its record count under
	 * total_key, rates, the four distributions. */
	void (*summarize)(json_t *o, struct lw_rec_acc *x, const struct lw_records_hdr *h,
			  double span_ns);
	/* `latwatt analyze` text for summary @s of instance @name. */
	void (*print)(FILE *out, const char *name, const json_t *s);
	/* A listed miss @ev in words, for reports: "frame 7, CPU 1, 12.0 us late". */
	void (*miss_detail)(char *buf, size_t len, const json_t *ev);
	const char *miss_key;		/* summary and manifest key of the miss count: "xruns" */
	const char *list_key;		/* summary key of the listed misses: "xrun_list" */
	const char *time_key;		/* a listed miss's deadline, ns: "boundary_ns" */
	const char *total_key;		/* summary and manifest key of the record count: "periods" */
	const char *metric;		/* lib/metrics.c name of its misses: "xruns" */
	const char *noun;		/* its misses in words: "xruns", "dropped frames" */
	/* The LW_PROBE_* whose samples its threads write (-1: none), and the
	 * manifest array of those threads ({"cpu", "tid", "priority"}). */
	int probe;
	const char *threads_key;
	/* The window of listed miss @ev (lw_miss_window above) of the instance
	 * whose manifest entry is @m (may be NULL) and summary @s: 0, or -1
	 * when @ev holds no deadline. */
	int (*miss_window)(const json_t *m, const json_t *s, const json_t *ev,
			   struct lw_miss_window *w);
	const char *stage_names[3];	/* "interrupt", "wake-up", "processing" */
};

/* Helpers for miss_window(): @t from a manifest thread object {"tid",
 * "priority"} (@policy: the workload's; SCHED_OTHER or priority 0 is 120),
 * else named @name with @prio, the workload's parameter (0: unknown). */
void lw_rthread_get(struct lw_rthread *t, const json_t *th, const char *policy, const char *name,
		    int prio);
/* Twice the median of the summary's "proc_ns" distribution, 0 without one. */
uint64_t lw_rwork_budget(const json_t *s);

/* The @i-th workload kind with records, in LW_WORKLOADS() order; NULL past
 * the last.  for (i = 0; (k = lw_rkind_at(i)); i++) */
const struct lw_rkind *lw_rkind_at(size_t i);
/* The record kind named @kind; NULL when there is none. */
const struct lw_rkind *lw_rkind_find(const char *kind);
/* The record kind whose threads write the samples of @probe; NULL: none. */
const struct lw_rkind *lw_rkind_of_probe(int probe);

/* Helpers for the kinds' read() and summarize()/print(). */
int lw_rvec_push(struct lw_rvec *a, uint64_t x);
/* {"count","min","mean","p50","p90","p99","p999","max"}; sorts @a. */
json_t *lw_rvec_dist(struct lw_rvec *a);
/* Count one record (deadline @t_ns, @slack_ns, enum lw_record_flags @flags)
 * in @x: 1 when it is a miss that still fits in the list, else 0. */
int lw_rec_count(struct lw_rec_acc *x, uint64_t t_ns, int64_t slack_ns, uint32_t flags);
/* "    LABEL  min … max us" for a distribution of lw_rvec_dist(). */
void lw_rec_dist_line(FILE *out, const char *label, const json_t *d);

#endif
