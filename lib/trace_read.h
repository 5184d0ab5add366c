/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading a run's kernel trace (RUN/trace.dat, version 6 as latwatt and
 * trace-cmd write it) event by event, in timestamp order, merged over the
 * CPUs or for one CPU.  The file is checked first (lw_tracedat_check_info());
 * the header (formats, kallsyms, command lines) is then parsed by
 * libtracecmd, and the events are read page by page with pread() and
 * libtraceevent's kbuffer — two 64 KiB chunks per CPU, whatever the length
 * of the trace, no allocation per event.  Version 7 files are refused with
 * the trace-cmd command that converts them.
 *
 *	struct lw_trace *t = lw_trace_open_run("RUN");
 *	struct lw_trace_event ev;
 *	int sw = lw_trace_event_id(t, "sched", "sched_switch");
 *
 *	while (lw_trace_next(t, &ev) > 0) {
 *		uint64_t next_pid;
 *
 *		if (ev.id == sw && lw_trace_u64(t, &ev, "next_pid", &next_pid) == 0)
 *			...;
 *	}
 *	lw_trace_close(t);
 *
 * Field lookups are by name, cached per event type (the name is compared by
 * pointer first, so string literals cost no strcmp after the first call).
 * Timestamps are the trace clock's; latwatt records with "mono", so they are
 * CLOCK_MONOTONIC ns like every probe sample.
 */
#ifndef LW_TRACE_READ_H
#define LW_TRACE_READ_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct lw_trace;
struct tep_handle;
struct tep_event;
struct tep_record;
struct tep_format_field;

struct lw_trace_event {
	uint64_t ts_ns;
	int cpu;
	int pid;			/* common_pid */
	int id;				/* event type id (see lw_trace_event_id()) */
	const char *system;		/* "sched"; "?" for an id without format */
	const char *name;		/* "sched_switch" */
	struct tep_event *event;	/* NULL for an id without format */
	struct tep_record *record;	/* valid until the next call on @t */
	/* events the kernel lost on this CPU just before this one: 0 none,
	 * N > 0 that many, -1 some (the kernel did not count them) */
	int64_t missed;
};

struct lw_trace_window {
	uint64_t from_ns, to_ns;
};

enum lw_trace_open_flags {
	/* Formerly "load libtraceevent plugins": plugins are never loaded, as
	 * libtraceevent would take them from $HOME and the environment. */
	LW_TRACE_PLUGINS = 1 << 0,
	/* a file of a run directory: a symlink there is refused (lib/input.h) */
	LW_TRACE_RUNDIR = 1 << 1,
};

/* Open a trace.dat.  A malformed file gets an error() naming it and the
 * offset, and NULL — never a crash. */
struct lw_trace *lw_trace_open(const char *path, int flags);
/* Open RUN/trace.dat and load the lost-event windows from the manifest. */
struct lw_trace *lw_trace_open_run(const char *rundir, int flags);
void lw_trace_close(struct lw_trace *t);

int lw_trace_cpus(const struct lw_trace *t);
const char *lw_trace_clock(const struct lw_trace *t);	/* "mono" */
struct tep_handle *lw_trace_tep(struct lw_trace *t);

/*
 * Next event: 1 (with *ev filled), 0 at the end, -1 on error.
 * lw_trace_next() merges all CPUs in timestamp order (ties: lower CPU
 * first); lw_trace_next_cpu() walks one CPU.  Each CPU has one cursor:
 * do not mix the two without lw_trace_rewind() in between.
 */
int lw_trace_next(struct lw_trace *t, struct lw_trace_event *ev);
int lw_trace_next_cpu(struct lw_trace *t, int cpu, struct lw_trace_event *ev);
void lw_trace_rewind(struct lw_trace *t);

/* The id of an event type in this file, or -1 if the file has no such event. */
int lw_trace_event_id(struct lw_trace *t, const char *system, const char *name);

/* Fields by name.  0 / -1 when the event has no such field. */
struct tep_format_field *lw_trace_field(struct lw_trace *t, const struct lw_trace_event *ev,
					const char *name);
int lw_trace_u64(struct lw_trace *t, const struct lw_trace_event *ev, const char *name,
		 uint64_t *v);
int lw_trace_s64(struct lw_trace *t, const struct lw_trace_event *ev, const char *name,
		 int64_t *v);
/* A string or char array field: a pointer into the record, and its length
 * up to the first NUL or trailing newline; NULL if no such field. */
const char *lw_trace_str(struct lw_trace *t, const struct lw_trace_event *ev, const char *name,
			 size_t *len);
/* 1 if every field of the event, and every dynamic array's data, lies
 * within its record: what libtraceevent's printing assumes. */
int lw_trace_record_ok(struct lw_trace *t, const struct lw_trace_event *ev);
/* The command name the trace knows for @pid ("<...>" if none). */
const char *lw_trace_comm(struct lw_trace *t, int pid);

/*
 * Lost-event windows: per CPU, [from_ns, to_ns] ranges in which the trace
 * may be missing events.  Loaded from a manifest's "trace" object (done by
 * lw_trace_open_run()); windows met while reading (ev->missed) are not
 * added here.
 */
int lw_trace_load_windows(struct lw_trace *t, const json_t *trace);
size_t lw_trace_windows(const struct lw_trace *t, int cpu, const struct lw_trace_window **w);
/* 1 if no loss window of @cpu (-1: of any CPU) overlaps [from_ns, to_ns]. */
int lw_trace_complete(const struct lw_trace *t, int cpu, uint64_t from_ns, uint64_t to_ns);

#endif
