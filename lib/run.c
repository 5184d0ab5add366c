// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <limits.h>
#include <sched.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/smi.h"
#include "lib/writer.h"
#include "lib/sysinfo.h"
#include "lib/thread.h"
#include "lib/timeutil.h"

/* The writer wakes ten times a second: a probe ring of 65536 samples holds
 * 0.65 s even at the 10 us shortest interval. */
#define WRITER_PERIOD_NS (100 * LW_NSEC_PER_MSEC)
#define WAIT_SLICE_NS    (100 * LW_NSEC_PER_MSEC)

static void stop_sigset(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

void lw_run_block_signals(void)
{
	sigset_t set;

	stop_sigset(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int lw_run_settle(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / LW_NSEC_PER_SEC), (long)(ns % LW_NSEC_PER_SEC) };
	sigset_t set;
	siginfo_t si;
	int s;

	stop_sigset(&set);
	while ((s = sigtimedwait(&set, &si, &ts)) < 0 && errno == EINTR)
		;
	return s > 0 ? s : 0;
}

void lw_run_unblock_signals(void)
{
	sigset_t set;

	stop_sigset(&set);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

void lw_run_init(struct lw_run *run, struct lw_rundir *rd)
{
	memset(run, 0, sizeof(*run));
	run->dir = *rd;
	memset(rd, 0, sizeof(*rd));
	rd->dfd = -1;
	run->marker_fd = -1;
	run->trace_off_fd = -1;
	run->action_log = json_array();
	CPU_ZERO(&run->cpus);
	/* what runs killed before us left, then our own journal, before any
	 * part is made (the trace recorder makes its instance then) */
	if (lw_journal_replay(NULL, 0) < 0)
		warning("what a killed run left could not all be undone (see above)");
	if (lw_journal_begin(&run->journal, run->dir.path) < 0)
		warning("this run keeps no restore journal (see above)");
	run->knobs.journal = &run->journal;
}

int lw_run_add(struct lw_run *run, struct lw_part *p)
{
	if (run->nparts == LW_MAX_PARTS)
		return error("too many run participants (%d)", LW_MAX_PARTS);
	run->part[run->nparts++] = p;
	return 0;
}

struct lw_ring *lw_run_ring(struct lw_run *run, size_t capacity)
{
	struct lw_ring *r;
	size_t cap = 1;
	int n = atomic_load(&run->nrings);

	if (n == LW_MAX_RINGS) {
		error("too many sample producers (%d)", LW_MAX_RINGS);
		return NULL;
	}
	while (cap < capacity)
		cap <<= 1;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->buf = calloc(cap, sizeof(*r->buf)))) {
		free(r);
		error("out of memory for a sample ring of %zu", cap);
		return NULL;
	}
	r->mask = cap - 1;
	/* fault the ring in now, not in the probe's loop (a realtime run locks
	 * pages as they are touched) */
	for (size_t off = 0; off < cap * sizeof(*r->buf); off += 4096)
		((volatile unsigned char *)r->buf)[off] = 0;
	run->ring[n] = r;
	atomic_store_explicit(&run->nrings, n + 1, memory_order_release);
	return r;
}

void lw_run_request_stop(struct lw_run *run, enum lw_stop_reason why, const char *detail)
{
	int expected = LW_STOP_NONE;
	int off_fd = run->trace_off_fd;

	if (why == LW_STOP_BREAK && off_fd >= 0 && write(off_fd, "0", 1) < 0) {
		/* the recorder stops tracing itself a moment later */
	}

	if (atomic_compare_exchange_strong(&run->stop_reason, &expected, (int)why) && detail) {
		size_t n = strlen(detail);

		if (n >= sizeof(run->stop_detail))
			n = sizeof(run->stop_detail) - 1;
		memcpy(run->stop_detail, detail, n);
		run->stop_detail[n] = 0;
	}
	atomic_store(&run->stop, 1);
}

void lw_run_threshold(struct lw_run *run, const struct lw_sample *s, const char *detail)
{
	const struct lw_actions *a = run->actions;
	int expected = 0, froze = 0;

	atomic_fetch_add_explicit(&run->crossings, 1, memory_order_relaxed);
	/* "trace" with "continue": the flight recorder is kept as it was at
	 * the first crossing (without "continue" the stop does it) */
	if (a && a->cont && a->trace && !atomic_exchange(&run->trace_frozen, 1)) {
		int off_fd = run->trace_off_fd;

		froze = off_fd >= 0 && write(off_fd, "0", 1) == 1;
	}
	if (atomic_compare_exchange_strong(&run->spike_state, &expected, 1)) {
		run->spike = *s;
		run->spike_froze = froze || !(a && a->cont);
		atomic_store_explicit(&run->spike_state, 2, memory_order_release);
	}
	if (!(a && a->cont))
		lw_run_request_stop(run, LW_STOP_BREAK, detail);
}

void lw_run_mark(struct lw_run *run, const char *msg, size_t len)
{
	int fd = run->marker_fd;

	if (fd >= 0 && write(fd, msg, len) < 0) {
		/* nothing to do from a realtime thread; the sample keeps its flag */
	}
}

void lw_fmt_str(struct lw_fmt *f, const char *s)
{
	while (*s && f->p < f->end)
		*f->p++ = *s++;
}

void lw_fmt_u64(struct lw_fmt *f, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n && f->p < f->end)
		*f->p++ = tmp[--n];
}

/* @n samples into RUN/samples (or the monitor) and the looker, or the
 * warm-up's file for those due before the warm-up ends; the count of the
 * first into *@kept. */
static int sink(struct lw_run *run, int ring, const struct lw_sample *s, size_t n, size_t *kept)
{
	const uint64_t end = run->start_mono + run->warmup_ns;

	*kept = 0;
	while (n) {
		int warm = run->warmup && s->expected_ns < end;
		size_t k = 1;

		while (k < n && (run->warmup && s[k].expected_ns < end) == warm)
			k++;
		if (warm) {
			if (lw_samples_write(run->warmup, s, k) < 0)
				return -1;
			run->warmup_written += k;
		} else if (run->monitor ? lw_monitor_feed(run->monitor, ring, s, k) < 0 :
			   lw_samples_write(run->samples, s, k) < 0) {
			return -1;
		} else if (run->looker &&
			   run->looker->feed(run->looker->ctx, run->start_mono, s, k) < 0) {
			return -1;
		} else {
			*kept += k;
		}
		s += k;
		n -= k;
	}
	return 0;
}

/* Drain every ring once; returns samples written to RUN/samples or -1. */
static long drain(struct lw_run *run)
{
	int n = atomic_load_explicit(&run->nrings, memory_order_acquire);
	long total = 0;

	for (int i = 0; i < n; i++) {
		struct lw_ring *r = run->ring[i];
		size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
		size_t head = atomic_load_explicit(&r->head, memory_order_acquire);

		while (tail != head) {
			size_t idx = tail & r->mask;
			size_t chunk = head - tail;

			if (chunk > r->mask + 1 - idx)
				chunk = r->mask + 1 - idx;
			size_t kept;

			if (sink(run, i, &r->buf[idx], chunk, &kept) < 0)
				return -1;
			tail += chunk;
			total += (long)kept;
			atomic_store_explicit(&r->tail, tail, memory_order_release);
		}
	}
	return total;
}

static void *writer_main(void *arg)
{
	struct lw_run *run = arg;
	struct timespec ts = lw_ns_to_ts(WRITER_PERIOD_NS);

	pthread_setname_np(pthread_self(), "lw-writer");
	while (!atomic_load(&run->writer_quit)) {
		long n = drain(run);

		if (n >= 0 && run->monitor && lw_monitor_tick(run->monitor) < 0)
			n = -1;
		if (n < 0) {
			lw_run_request_stop(run, LW_STOP_ERROR, "cannot write the sample file");
			break;
		}
		run->samples_written += (uint64_t)n;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static int writer_start(struct lw_run *run)
{
	struct lw_sched sch = { .policy = SCHED_OTHER, .cpu = -1 };
	char path[4096];

	run->samples = lw_samples_create(run->dir.dfd,
					 lw_rundir_file(&run->dir, "samples", path, sizeof(path)),
					 run->start_mono);
	if (!run->samples)
		return -1;
	if (run->warmup_ns) {
		run->warmup = lw_samples_create(run->dir.dfd,
						lw_rundir_file(&run->dir, "warmup-samples", path,
							       sizeof(path)),
						run->start_mono);
		if (!run->warmup)
			goto fail;
	}
	if (run->monitor_opts) {
		run->monitor = lw_monitor_new(run->monitor_opts, run->dir.dfd, run->dir.path,
					      run->start_mono, run->samples);
		if (!run->monitor)
			goto fail;
		if (run->monitor_trace)
			lw_monitor_set_trace(run->monitor, &run->mtrace);
	}
	if (lw_thread_start(&run->writer, writer_main, run, &sch, "the sample writer") < 0)
		goto fail;
	run->writer_running = 1;
	return 0;
fail:
	lw_samples_close(run->samples);
	run->samples = NULL;
	if (run->warmup)
		lw_samples_close(run->warmup);
	run->warmup = NULL;
	return -1;
}

static int writer_stop(struct lw_run *run)
{
	long n;
	int ret = 0;

	if (run->writer_running) {
		atomic_store(&run->writer_quit, 1);
		pthread_join(run->writer, NULL);
		run->writer_running = 0;
	}
	if (!run->samples)
		return 0;
	n = drain(run);	/* what the producers pushed after the last pass */
	if (n < 0)
		ret = -1;
	else
		run->samples_written += (uint64_t)n;
	for (int i = 0; i < atomic_load(&run->nrings); i++)
		run->samples_dropped += atomic_load(&run->ring[i]->dropped);
	if (run->monitor) {
		if (lw_monitor_close(run->monitor) < 0)
			ret = -1;
		json_t *mj = lw_monitor_json(run->monitor);

		run->samples_measured = run->samples_written;
		run->samples_written = (uint64_t)json_integer_value(json_object_get(mj,
								"window_samples_saved"));
		json_object_set_new(run->dir.manifest, "monitor", mj);
		lw_monitor_free(run->monitor);
		run->monitor = NULL;
	}
	if (lw_samples_close(run->samples) < 0)
		ret = -1;
	run->samples = NULL;
	if (run->warmup && lw_samples_close(run->warmup) < 0)
		ret = -1;
	run->warmup = NULL;
	return ret;
}

static void progress_line(struct lw_run *run, uint64_t now, int final)
{
	char buf[512], el[32], tot[32];
	size_t n;

	if (!run->progress)
		return;
	uint64_t el_s = (now - run->start_mono) / LW_NSEC_PER_SEC;
	uint64_t left_s = run->duration_ns / LW_NSEC_PER_SEC > el_s ?
			  run->duration_ns / LW_NSEC_PER_SEC - el_s : 0;

	snprintf(el, sizeof(el), "%llus", (unsigned long long)el_s);
	n = (size_t)snprintf(buf, sizeof(buf), "\r%s / %s (%llus left) ", el,
			     lw_format_duration(run->duration_ns, tot, sizeof(tot)),
			     (unsigned long long)left_s);
	for (int i = 0; i < run->nparts && n < sizeof(buf) - 1; i++) {
		struct lw_part *p = run->part[i];

		if (p->progress && p->started) {
			buf[n++] = ' ';
			p->progress(run, p, buf + n, sizeof(buf) - n);
			n += strlen(buf + n);
		}
	}
	if (n > sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	fprintf(stderr, "%.*s\033[K%s", (int)n, buf, final ? "\n" : "");
	fflush(stderr);
}

static const char *reason_text(struct lw_run *run, char *buf, size_t len)
{
	switch (atomic_load(&run->stop_reason)) {
	case LW_STOP_SIGNAL:
		snprintf(buf, len, "interrupted by SIG%s",
			 sigabbrev_np(run->signo) ? sigabbrev_np(run->signo) : "?");
		return buf;
	case LW_STOP_BREAK:
		snprintf(buf, len, "break: %s", run->stop_detail);
		return buf;
	case LW_STOP_DECIDED:
		snprintf(buf, len, "decided: %s", run->stop_detail);
		return buf;
	case LW_STOP_ERROR:
		snprintf(buf, len, "error: %s", run->stop_detail);
		return buf;
	default:
		return NULL;
	}
}

static void save_actions(struct lw_run *run)
{
	char path[4096];
	json_t *doc = json_pack("{s:s, s:i, s:I, s:I, s:I, s:I, s:O}", "schema", "latwatt-actions",
				"version", 1, "threshold_ns", (json_int_t)run->threshold_ns,
				"crossings", (json_int_t)atomic_load(&run->crossings),
				"crossings_fired", (json_int_t)run->crossings_fired,
				"crossings_unlogged", (json_int_t)run->crossings_unlogged,
				"actions", run->action_log);

	if (lw_json_save_at(run->dir.dfd, doc, lw_rundir_file(&run->dir, "actions.json", path,
							      sizeof(path))) < 0)
		warning("the log of the run's actions could not be written (see above)");
	json_decref(doc);
}

/* The event the actions are told of; @s: a crossing, or NULL. */
static void action_event(struct lw_run *run, struct lw_action_event *ev, const char *event,
			 const struct lw_sample *s, char *dir, size_t len)
{
	memset(ev, 0, sizeof(*ev));
	ev->event = event;
	if (s) {
		ev->has_sample = 1;
		ev->s = *s;
	}
	ev->threshold_ns = run->threshold_ns;
	ev->crossings = atomic_load(&run->crossings);
	if (!realpath(run->dir.path, dir))
		snprintf(dir, len, "%s", run->dir.path);
	ev->run_dir = dir;
}

/* A crossing in the slot: run the --on-threshold actions for it (main thread). */
static void fire_threshold(struct lw_run *run)
{
	struct lw_action_event ev;
	struct lw_sample s;
	char dir[PATH_MAX];
	int traced;

	if (!run->actions || atomic_load_explicit(&run->spike_state, memory_order_acquire) != 2)
		return;
	/* without "continue" the run stops at its first crossing: the ones
	 * its threads see before they stop are counted only */
	if (!run->actions->cont && run->crossings_fired)
		return;
	s = run->spike;
	traced = run->trace_off_fd < 0 ? 0 : run->spike_froze ? 1 : 2;
	if (!run->has_first) {
		run->first = s;
		run->has_first = 1;
	}
	action_event(run, &ev, "threshold", &s, dir, sizeof(dir));
	ev.traced = traced;
	if (json_array_size(run->action_log) < LW_ACTION_LOG_MAX) {
		lw_actions_fire(run->actions->threshold, run->actions->nthreshold, &ev,
				run->action_log);
		save_actions(run);
	} else {	/* a storm of crossings with continue: fired, counted, not logged */
		json_t *scratch = json_array();

		lw_actions_fire(run->actions->threshold, run->actions->nthreshold, &ev, scratch);
		json_decref(scratch);
		run->crossings_unlogged++;
	}
	run->crossings_fired++;
	atomic_store_explicit(&run->spike_state, 0, memory_order_release);
}

/* The end: the --on-end actions, once the run directory is saved. */
static void fire_end(struct lw_run *run)
{
	struct lw_action_event ev;
	char dir[PATH_MAX];

	action_event(run, &ev, "end", run->has_first ? &run->first : NULL, dir, sizeof(dir));
	ev.status = lw_manifest_status(run->dir.manifest);
	lw_actions_fire(run->actions->end, run->actions->nend, &ev, run->action_log);
	save_actions(run);
}

/* The manifest's "actions": what was asked and where the log is. */
static void record_actions(struct lw_run *run)
{
	const struct lw_actions *a = run->actions;
	json_t *th = json_array(), *end = json_array();

	for (int i = 0; i < a->nthreshold; i++)
		json_array_append_new(th, json_string(a->threshold[i].spec));
	for (int i = 0; i < a->nend; i++)
		json_array_append_new(end, json_string(a->end[i].spec));
	json_object_set_new(run->dir.manifest, "actions", json_pack("{s:o, s:o, s:b, s:I, s:I, "
		"s:I, s:s}", "on_threshold", th, "on_end", end, "continue", a->cont,
		"threshold_ns", (json_int_t)run->threshold_ns,
		"crossings", (json_int_t)atomic_load(&run->crossings),
		"crossings_fired", (json_int_t)run->crossings_fired, "log", "actions.json"));
}

/* Up to this many tasks of each kind are recorded. */
#define MAX_TASKS 4096

/* The ids in @dir (/proc/self/task) or in the file @list (cgroup.threads),
 * appended to @a. */
static void tids_of(const char *dir, const char *list, json_t *a)
{
	if (dir) {
		DIR *d = opendir(dir);
		struct dirent *e;

		while (d && (e = readdir(d)) && json_array_size(a) < MAX_TASKS)
			if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
				json_array_append_new(a, json_integer(atoll(e->d_name)));
		if (d)
			closedir(d);
	} else {
		FILE *f = fopen(list, "re");
		long long t;

		while (f && json_array_size(a) < MAX_TASKS && fscanf(f, "%lld", &t) == 1)
			json_array_append_new(a, json_integer(t));
		if (f)
			fclose(f);
	}
}

/*
 * The run's own tasks as the run ends, so that the analysis can tell a
 * cause that belongs to the run from one that does not: latwatt's threads
 * (probes, workloads, the trace readers, the power sampler) and what runs
 * in the loads' cgroup.  The manifest's "tasks": {"latwatt": [tid…],
 * "loads": [tid…]}.
 */
static void record_tasks(json_t *m)
{
	const char *cg = json_string_value(json_object_get(json_object_get(m, "loads_control"),
							    "cgroup"));
	json_t *own = json_array(), *loads = json_array();
	char file[4200];

	tids_of("/proc/self/task", NULL, own);
	if (cg && strlen(cg) < 4096) {
		snprintf(file, sizeof(file), "%s/cgroup.threads", cg);
		tids_of(NULL, file, loads);
	}
	json_object_set_new(m, "tasks", json_pack("{s:o, s:o}", "latwatt", own, "loads", loads));
}

/* When the next stretch may be looked at. */
static uint64_t next_look(const struct lw_run *run)
{
	return run->start_mono + (run->looked + 1) * run->looker->every_ns + LW_LOOK_GRACE_NS;
}

/* Look at the next stretch; 1 when the run is to end (decided, or an
 * error), 0 to go on.  @ended: the run has ended already (its stop reason
 * stays). */
static int look(struct lw_run *run, int ended)
{
	char detail[sizeof(run->stop_detail)] = "";
	int r = run->looker->look(run->looker->ctx, run->looked++, detail, sizeof(detail));

	if (r < 0) {
		snprintf(detail, sizeof(detail), "--until-decided: %s", lw_last_error());
		if (ended) {
			atomic_store(&run->stop_reason, LW_STOP_ERROR);
			snprintf(run->stop_detail, sizeof(run->stop_detail), "%s", detail);
		} else {
			lw_run_request_stop(run, LW_STOP_ERROR, detail);
		}
		return 1;
	}
	if (r > 0 && !ended)
		lw_run_request_stop(run, LW_STOP_DECIDED, detail);
	return r > 0;
}

int lw_run_execute(struct lw_run *run)
{
	json_t *m = run->dir.manifest;
	sigset_t set;
	uint64_t end, last_progress = 0, now;
	int i, ret = LW_EXIT_OK, started = 0;
	char reason[320];
	const char *why;
	json_t *steal, *smi;

	stop_sigset(&set);
	steal = lw_steal_snapshot(NULL);
	/* SMIs: the count per CPU at the start and the end (lib/smi.h) */
	smi = lw_smi_snapshot("", 1);
	if (json_is_string(json_object_get(smi, "reason")))
		note("SMIs not counted: %s", json_string_value(json_object_get(smi, "reason")));
	json_object_set_new(m, "start", lw_json_timestamp(&run->start_mono));
	json_object_set_new(m, "duration_ns", json_integer((json_int_t)run->duration_ns));
	/* who writes it: a run still "running" whose writer is gone was killed */
	json_object_set_new(m, "writer", lw_writer_json());
	lw_manifest_set_status(m, "running", NULL);
	if (lw_rundir_save(&run->dir) < 0) {
		json_decref(steal);
		json_decref(smi);
		return LW_EXIT_ERROR;
	}

	if (writer_start(run) < 0) {
		ret = LW_EXIT_ERROR;
		goto finish;
	}
	for (i = 0; i < run->nparts; i++) {
		if (run->part[i]->start(run, run->part[i]) < 0) {
			lw_run_request_stop(run, LW_STOP_ERROR, run->part[i]->name);
			snprintf(run->stop_detail, sizeof(run->stop_detail), "%s: %s",
				 run->part[i]->name, lw_last_error());
			break;
		}
		run->part[i]->started = 1;
		started++;
	}

	end = run->start_mono + run->duration_ns;
	while (!lw_run_stopping(run)) {
		siginfo_t si;
		struct timespec ts;
		uint64_t left;

		now = lw_mono_ns();
		if (now >= end) {
			lw_run_request_stop(run, LW_STOP_DURATION, NULL);
			break;
		}
		if (run->looker && now >= next_look(run) && look(run, 0))
			break;
		if (now - last_progress >= LW_NSEC_PER_SEC) {
			progress_line(run, now, 0);
			last_progress = now;
		}
		left = end - now;
		if (run->looker && next_look(run) > now && next_look(run) - now < left)
			left = next_look(run) - now;
		ts = lw_ns_to_ts(left < WAIT_SLICE_NS ? left : WAIT_SLICE_NS);
		if (sigtimedwait(&set, &si, &ts) > 0) {
			run->signo = si.si_signo;
			lw_run_request_stop(run, LW_STOP_SIGNAL, NULL);
		}
		fire_threshold(run);
	}
	progress_line(run, lw_mono_ns(), 1);
	if (run->actions) {
		/* the crossing that stopped the run: its thread may still be
		 * filling the slot */
		for (int k = 0; k < 1000 && atomic_load(&run->spike_state) == 1; k++)
			sched_yield();
		fire_threshold(run);
	}
	record_tasks(m);

	for (i = started - 1; i >= 0; i--)
		run->part[i]->stop(run, run->part[i]);
	if (writer_stop(run) < 0 && atomic_load(&run->stop_reason) != LW_STOP_ERROR)
		lw_run_request_stop(run, LW_STOP_ERROR, "cannot write the sample file");
	/* the stretches that ended with the run, on every sample they have */
	while (run->looker && atomic_load(&run->stop_reason) == LW_STOP_DURATION &&
	       run->start_mono + (run->looked + 1) * run->looker->every_ns <=
	       run->start_mono + run->duration_ns && !look(run, 1))
		;

finish:
	json_object_set_new(m, "end", lw_json_timestamp(NULL));
	if (steal) {	/* time the hypervisor ran something else on our CPUs */
		json_t *st_end = lw_steal_snapshot(NULL);

		if (st_end)
			json_object_set_new(m, "steal", lw_steal_delta(steal, st_end));
		json_decref(st_end);
		json_decref(steal);
	}
	if (smi) {
		json_t *smi_end = json_is_array(json_object_get(smi, "cpus")) ?
				  lw_smi_snapshot("", 0) : NULL;

		json_object_set_new(m, "smi", lw_smi_delta(smi, smi_end));
		json_decref(smi_end);
		json_decref(smi);
	}
	json_object_set_new(m, "samples", json_pack("{s:s, s:i, s:I, s:I}",
		"format", "latwatt-samples", "version", LW_SAMPLES_VERSION,
		"written", (json_int_t)run->samples_written,
		"dropped", (json_int_t)run->samples_dropped));
	if (run->warmup_ns)	/* kept apart, in no statistic */
		json_object_set_new(m, "warm_up", json_pack("{s:I, s:s, s:I, s:s}",
			"duration_ns", (json_int_t)run->warmup_ns, "file", "warmup-samples",
			"samples", (json_int_t)run->warmup_written,
			"rule", "samples due (expected_ns) before start + duration_ns"));
	if (run->monitor_opts)	/* only the windows around spikes were written */
		json_object_set_new(json_object_get(m, "samples"), "measured",
				    json_integer((json_int_t)run->samples_measured));
	for (i = 0; i < run->nparts; i++)
		if (run->part[i]->started && run->part[i]->finish &&
		    run->part[i]->finish(run, run->part[i]) < 0 &&
		    atomic_load(&run->stop_reason) != LW_STOP_ERROR) {
			atomic_store(&run->stop_reason, LW_STOP_ERROR);
			snprintf(run->stop_detail, sizeof(run->stop_detail), "%s: %s",
				 run->part[i]->name, lw_last_error());
		}
	if (lw_knobs_restore(&run->knobs))
		warning("some kernel settings could not be restored (see above; 'latwatt "
			"cleanup' tries again)");

	if (run->actions)
		record_actions(run);
	why = reason_text(run, reason, sizeof(reason));
	switch (atomic_load(&run->stop_reason)) {
	case LW_STOP_DURATION:
	case LW_STOP_BREAK:
	case LW_STOP_DECIDED:
		lw_manifest_set_status(m, ret ? "incomplete" : "complete", why);
		break;
	case LW_STOP_SIGNAL:
		lw_manifest_set_status(m, "incomplete", why);
		ret = 128 + run->signo;
		break;
	default:
		lw_manifest_set_status(m, "incomplete", why ? why : "error");
		ret = LW_EXIT_ERROR;
		break;
	}
	if (lw_rundir_save(&run->dir) < 0)
		ret = LW_EXIT_ERROR;
	if (run->actions && run->actions->nend)
		fire_end(run);
	else if (run->actions)
		save_actions(run);
	if (why && ret != LW_EXIT_OK)
		note("run %s: %s", lw_manifest_status(m), why);
	return ret;
}

void lw_run_destroy(struct lw_run *run)
{
	for (int i = 0; i < run->nparts; i++)
		if (run->part[i]->destroy)
			run->part[i]->destroy(run->part[i]);
	for (int i = 0; i < atomic_load(&run->nrings); i++) {
		free(run->ring[i]->buf);
		free(run->ring[i]);
	}
	if (run->marker_fd >= 0)
		close(run->marker_fd);
	/* the parts removed their instances and cgroups; a knob that could not
	 * be restored keeps the journal for 'latwatt cleanup' */
	if (!run->knobs.n)
		lw_journal_end(&run->journal);
	json_decref(run->journal.doc);
	run->journal.doc = NULL;
	json_decref(run->action_log);
	run->action_log = NULL;
	lw_rundir_close(&run->dir);
}
