/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The tracefs instance of a probe built on the kernel's osnoise tracers
 * (timerlat, osnoise): one set-up for the timerlat probe (probes/timerlat.h)
 * and the hwnoise probe (probes/hwnoise.h).
 *
 *   - osnoise/ knobs written through the run's knob table (saved, journaled,
 *     restored on every exit and by `latwatt cleanup` after SIGKILL);
 *   - an instance of our own, PREFIX<pid>, journaled, with the "mono" trace
 *     clock (CLOCK_MONOTONIC, the run's clock), its buffer, and the event
 *     formats the probe decodes (a tep handle without /proc/kallsyms);
 *   - a reader thread, SCHED_OTHER and off the measured CPUs where there are
 *     others, that takes the events every 100 ms and hands each to the
 *     probe's callback, counting what the kernel could not keep;
 *   - instances left by a latwatt that was killed removed before a start.
 *
 * Errors start with the probe's name ("timerlat: ..."), which the probes
 * strip when they report why they did not run.
 */
#ifndef LW_PROBE_OSNOISE_H
#define LW_PROBE_OSNOISE_H

#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

struct lw_run;
struct tep_event;
struct tep_handle;
struct tep_record;
struct tracefs_instance;

/* A knob under tracefs (osnoise/cpus ...) and its value for the run. */
struct lw_osn_knob {
	const char *file;		/* relative to the tracing directory */
	const char *value;
	int optional;			/* left alone where the kernel lacks it */
};

typedef void (*lw_osn_event_fn)(void *ctx, struct tep_event *ev, struct tep_record *rec);

struct lw_osn {
	/* set before lw_osn_open() */
	const char *who;		/* "timerlat": messages, the reader "lw-timerlat" */
	const char *prefix;		/* "latwatt-timerlat-": the instance is PREFIX<pid> */
	cpu_set_t cpus;			/* measured: the reader keeps off them */
	lw_osn_event_fn on_event;
	void *ctx;
	/* the instance */
	char name[64];
	struct tracefs_instance *inst;
	int created;			/* the directory is ours to remove */
	struct tep_handle *tep;
	size_t buffer_kb;		/* per CPU */
	pthread_t reader;
	int reader_running;
	_Atomic int quit;
	/* losses */
	uint64_t lost;			/* events lost as the reader saw them */
	uint64_t lost_unknown;		/* losses of unknown size */
	uint64_t overrun, dropped;	/* the kernel's count (per_cpu/cpuN/stats) */
	uint64_t read_errors;
};

/* "TRACING/osnoise/options" into @path; -1 after error() without tracefs. */
int lw_osn_path(const struct lw_osn *o, const char *rel, char *path, size_t len);
/* Read osnoise/options into @opts (may be left empty: an older kernel has
 * no such file); -1 after error() when another tool has switched off the
 * kernel's workload threads (NO_OSNOISE_WORKLOAD). */
int lw_osn_options(const struct lw_osn *o, char *opts, size_t len);
/* Is the flag @opt set ("OPT" listed) or clear ("NO_OPT") in @opts; -1 when
 * the kernel does not list it. */
int lw_osn_flag(const char *opts, const char *opt);
/* Write @n knobs through the run's knob table. */
int lw_osn_knobs(struct lw_run *run, const struct lw_osn *o, const struct lw_osn_knob *k,
		 size_t n);
/* Remove instances PREFIX<pid> of processes that are gone. */
void lw_osn_remove_stale(const struct lw_osn *o);
/* Create and journal the instance, tracing off, "mono" clock, @buffer_kb
 * per CPU, and a tep handle with the ring buffer's page header and the
 * event formats @formats ("ftrace/timerlat", ..., NULL). */
int lw_osn_open(struct lw_run *run, struct lw_osn *o, size_t buffer_kb,
		const char *const *formats);
/* Enable the trace event SYSTEM/EVENT in the instance. */
int lw_osn_enable(struct lw_osn *o, const char *system, const char *event);
/* Start @tracer in the instance (EBUSY: another osnoise-based tracer runs). */
int lw_osn_tracer(struct lw_osn *o, const char *tracer);
/* Tracing on and the reader thread started. */
int lw_osn_start(struct lw_osn *o);
/* Tracing off, the reader stopped, what it had not taken read, the kernel's
 * losses read. */
void lw_osn_stop(struct lw_osn *o);
/* The tracer cleared, the instance removed, the tep handle freed; again is
 * harmless. */
void lw_osn_close(struct lw_osn *o);
/* Events lost, the larger of the reader's and the kernel's count. */
uint64_t lw_osn_losses(const struct lw_osn *o);

#endif
