// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/knobs.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/sysfs.h"
#include "lib/thread.h"
#include "lib/timeutil.h"
#include "lib/ust.h"
#include "probes/osnoise.h"
#include "probes/plan.h"
#include "probes/spike.h"
#include "probes/timerlat.h"

#define INSTANCE_PREFIX "latwatt-timerlat-"
#define RING_SAMPLES    (1u << 16)

/* ---------------------------------------------------------------- decoding */

int lw_timerlat_format(struct tep_handle *tep, struct lw_tl_format *f)
{
	struct tep_event *ev = tep_find_event_by_name(tep, "ftrace", "timerlat");

	memset(f, 0, sizeof(*f));
	if (!ev)
		return error("timerlat: the kernel has no ftrace/timerlat event format");
	f->id = ev->id;
	f->seqnum = tep_find_field(ev, "seqnum");
	f->context = tep_find_field(ev, "context");
	f->latency = tep_find_field(ev, "timer_latency");
	if (!f->seqnum || !f->context || !f->latency)
		return error("timerlat: the ftrace/timerlat event lacks %s",
			     !f->seqnum ? "seqnum" : !f->context ? "context" : "timer_latency");
	return 0;
}

int lw_timerlat_decode(const struct lw_tl_format *f, const struct tep_record *rec,
		       struct lw_tl_event *e)
{
	unsigned long long seq, ctx, lat;

	if (tep_read_number_field(f->seqnum, rec->data, &seq) ||
	    tep_read_number_field(f->context, rec->data, &ctx) ||
	    tep_read_number_field(f->latency, rec->data, &lat))
		return -1;
	e->ts = rec->ts;
	e->cpu = rec->cpu;
	e->seqnum = (uint32_t)seq;
	e->context = (int)(int32_t)ctx;
	e->latency_ns = lat;
	return 0;
}

int lw_timerlat_sample(struct lw_tl_cpu *st, const struct lw_tl_event *e, uint64_t period_ns,
		       struct lw_sample *s)
{
	static const unsigned char probe[] = {
		[LW_TL_IRQ] = LW_SAMPLE_TIMERLAT_IRQ, [LW_TL_THREAD] = LW_SAMPLE_TIMERLAT_THREAD,
		[LW_TL_USER_RET] = LW_SAMPLE_TIMERLAT_USER,
	};
	uint64_t expected;

	if (e->context < LW_TL_IRQ || e->context > LW_TL_USER_RET)
		return 0;
	if (e->latency_ns > e->ts)
		return 0;
	expected = e->ts - e->latency_ns;
	if (e->context == LW_TL_IRQ) {
		st->seqnum = e->seqnum;
		st->expected_ns = expected;
		st->have = 1;
	} else if (st->have && st->seqnum == e->seqnum) {
		expected = st->expected_ns;
	}
	memset(s, 0, sizeof(*s));
	s->expected_ns = expected;
	s->latency_ns = e->latency_ns;
	s->missed = period_ns ? (uint32_t)(e->latency_ns / period_ns) : 0;
	s->cpu = (uint16_t)e->cpu;
	s->probe = probe[e->context];
	return 1;
}

int lw_parse_timerlat_threads(const char *what, const char *s, uint64_t *v)
{
	if (!strcmp(s, "user"))
		*v = LW_TL_THREADS_USER;
	else if (!strcmp(s, "kernel"))
		*v = LW_TL_THREADS_KERNEL;
	else
		return error("%s: '%s': user or kernel", what, s);
	return 0;
}

/* ------------------------------------------------------------- participant */

/* by context: irq, thread, return to user */
struct tl_cpu_stat {
	uint64_t count[3], max[3], over[3];
};

/* A user-space timerlat thread (--timerlat-threads user). */
struct tl_user {
	struct timerlat *tl;
	pthread_t tid;
	int cpu;
	int created;
	int fd;
	_Atomic int ktid;
	_Atomic int state;		/* 0 starting, 1 reading, -1 failed (err) */
	int err;			/* errno of the failed open() or read() */
	uint64_t reads;
};

struct timerlat {
	struct lw_part part;
	struct lw_timerlat_opts o;
	struct lw_run *run;
	struct lw_osn osn;		/* the instance and its reader */
	struct lw_tl_format fmt;
	struct lw_ring *ring;
	int active;			/* running (0 after an optional start failed) */
	char skipped[300];		/* why it did not run */
	int ncpus;
	struct lw_tl_cpu *pair;		/* [ncpus] */
	struct tl_cpu_stat *stat;	/* [ncpus] */
	_Atomic uint64_t max_live;
	uint64_t other_context, unplaced, read_errors;
	int kthreads_set, kthreads_found;
	struct tl_user *user;		/* [nuser], with o.user */
	int nuser;
	_Atomic int user_quit;
};

static void on_event(void *ctx, struct tep_event *ev, struct tep_record *rec)
{
	struct timerlat *tl = ctx;
	struct lw_run *run = tl->run;
	struct lw_tl_event e;
	struct lw_sample s;
	int k;

	if (ev->id != tl->fmt.id)
		return;
	if (lw_timerlat_decode(&tl->fmt, rec, &e) < 0) {
		tl->read_errors++;
		return;
	}
	if (e.cpu < 0 || e.cpu >= tl->ncpus)
		return;
	if (!lw_timerlat_sample(&tl->pair[e.cpu], &e, tl->o.period_ns, &s)) {
		if (e.context < LW_TL_IRQ || e.context > LW_TL_USER_RET)
			tl->other_context++;
		else
			tl->unplaced++;
		return;
	}
	k = e.context;
	if (tl->o.threshold_ns && s.latency_ns > tl->o.threshold_ns) {
		s.flags |= LW_SAMPLE_OVER_THRESHOLD;
		lw_probe_spike(run, s.probe, e.cpu, s.expected_ns, s.latency_ns);
		tl->stat[e.cpu].over[k]++;
	}
	lw_ring_push(tl->ring, &s);
	lw_ust_probe_sample(s.probe, e.cpu, s.expected_ns, s.latency_ns);
	tl->stat[e.cpu].count[k]++;
	if (s.latency_ns > tl->stat[e.cpu].max[k]) {
		tl->stat[e.cpu].max[k] = s.latency_ns;
		if (s.latency_ns > atomic_load_explicit(&tl->max_live, memory_order_relaxed))
			atomic_store_explicit(&tl->max_live, s.latency_ns, memory_order_relaxed);
	}
	if (tl->o.break_ns && s.latency_ns > tl->o.break_ns && !lw_run_stopping(run)) {
		char why[112];

		snprintf(why, sizeof(why), "%s: cpu %d latency %lluns above %lluns",
			 lw_probe_name(s.probe), e.cpu, (unsigned long long)s.latency_ns,
			 (unsigned long long)tl->o.break_ns);
		lw_run_threshold(run, &s, why);
	}
	return;
}

/* Room for a second of events (two per period, ~48 bytes each), 256 KiB to
 * 4 MiB per CPU: the reader takes them every READ_PERIOD_NS. */
static size_t buffer_kb(uint64_t period_ns)
{
	uint64_t kb = 2 * 48 * (LW_NSEC_PER_SEC / period_ns) / 1024;

	return kb < 256 ? 256 : kb > 4096 ? 4096 : (size_t)kb;
}

/* Give the timerlat/N kernel threads the probes' SCHED_FIFO priority (the
 * kernel starts them at FIFO 95).  They exist once the tracer runs and end
 * with it, so nothing needs restoring. */
static void set_kthread_priority(struct timerlat *tl)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	struct sched_param sp = { .sched_priority = tl->o.priority };

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[300], comm[64];
		int cpu;
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (lw_read_file(path, comm, sizeof(comm)) < 0 ||
		    sscanf(comm, "timerlat/%d", &cpu) != 1 || cpu < 0 || cpu >= CPU_SETSIZE ||
		    !CPU_ISSET(cpu, &tl->o.cpus))
			continue;
		tl->kthreads_found++;
		if (sched_setscheduler(pid, SCHED_FIFO, &sp) == 0)
			tl->kthreads_set++;
		else
			warning("timerlat: cannot set the priority of %s (pid %d): %s", comm,
				(int)pid, strerror(errno));
	}
	closedir(d);
}

/* A user-space timerlat thread: open its CPU's timerlat_fd (pinned to that
 * CPU first: the kernel takes it only from there), then read() it until the
 * run ends: each read() returns when the timer woke the thread, and the
 * next one records the return to user. */
static void *user_main(void *arg)
{
	struct tl_user *u = arg;
	struct timerlat *tl = u->tl;
	char path[4200], name[16], buf[1024];
	const char *tdir = tracefs_tracing_dir();

	atomic_store(&u->ktid, (int)gettid());
	snprintf(name, sizeof(name), "lw-tlat/%d", u->cpu);
	pthread_setname_np(pthread_self(), name);
	lw_prefault_stack();
	snprintf(path, sizeof(path), "%s/osnoise/per_cpu/cpu%d/timerlat_fd", tdir ? tdir : "", u->cpu);
	u->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (u->fd < 0) {
		u->err = errno;
		atomic_store(&u->state, -1);
		return NULL;
	}
	atomic_store(&u->state, 1);
	while (!atomic_load_explicit(&tl->user_quit, memory_order_relaxed)) {
		if (read(u->fd, buf, sizeof(buf)) < 0) {
			if (errno == EINTR)
				continue;
			u->err = errno;
			atomic_store(&u->state, -1);
			lw_run_request_stop(tl->run, LW_STOP_ERROR, "timerlat: a read of timerlat_fd "
					    "failed");
			break;
		}
		u->reads++;
	}
	close(u->fd);
	u->fd = -1;
	return NULL;
}

/* Each read() returns within a period (at most 1 s) once the timer fires. */
static void stop_user_threads(struct timerlat *tl)
{
	atomic_store(&tl->user_quit, 1);
	for (int i = 0; i < tl->nuser; i++)
		if (tl->user[i].created) {
			pthread_join(tl->user[i].tid, NULL);
			tl->user[i].created = 0;
		}
}

/* A thread per CPU, each with its timerlat_fd open before this returns
 * (2 s at most), or -1 after error() with why. */
static int start_user_threads(struct lw_run *run, struct timerlat *tl)
{
	struct timespec nap = lw_ns_to_ts(LW_NSEC_PER_MSEC);
	uint64_t until;

	tl->user = calloc((size_t)CPU_COUNT(&tl->o.cpus), sizeof(*tl->user));
	if (!tl->user)
		return error("out of memory");
	for (int c = 0; c < tl->ncpus; c++) {
		struct tl_user *u = &tl->user[tl->nuser];
		struct lw_sched sch = { .policy = tl->o.no_rt ? SCHED_OTHER : SCHED_FIFO,
					.priority = tl->o.priority, .cpu = c };
		char what[64];

		if (!CPU_ISSET(c, &tl->o.cpus))
			continue;
		u->tl = tl;
		u->cpu = c;
		u->fd = -1;
		snprintf(what, sizeof(what), "the timerlat user thread on cpu %d", c);
		if (lw_thread_start(&u->tid, user_main, u, &sch, what) < 0)
			return -1;
		u->created = 1;
		tl->nuser++;
	}
	until = lw_mono_ns() + 2 * LW_NSEC_PER_SEC;
	for (int i = 0; i < tl->nuser; i++) {
		struct tl_user *u = &tl->user[i];

		while (!atomic_load(&u->state) && lw_mono_ns() < until)
			nanosleep(&nap, NULL);
		if (atomic_load(&u->state) < 0)
			return error("timerlat: cannot open osnoise/per_cpu/cpu%d/timerlat_fd: %s",
				     u->cpu, strerror(u->err));
		if (!atomic_load(&u->state))
			return error("timerlat: the user thread on cpu %d did not open its "
				     "timerlat_fd in 2 s", u->cpu);
	}
	(void)run;
	return 0;
}

static void teardown(struct timerlat *tl)
{
	stop_user_threads(tl);
	lw_osn_close(&tl->osn);
}

static int setup(struct lw_run *run, struct timerlat *tl)
{
	static const char *const formats[] = { "ftrace/timerlat", NULL };
	char cpus[256], period[32], path[4096], opts[1024];
	const struct lw_osn_knob knobs[] = {
		{ "osnoise/cpus",                  cpus,   0 },
		{ "osnoise/timerlat_period_us",    period, 0 },
		{ "osnoise/stop_tracing_us",       "0",    1 },
		{ "osnoise/stop_tracing_total_us", "0",    1 },
		{ "osnoise/print_stack",           "0",    1 },
	};
	int max_cpu = 0;

	if (lw_osn_options(&tl->osn, opts, sizeof(opts)) < 0 ||
	    lw_osn_path(&tl->osn, "osnoise/options", path, sizeof(path)) < 0)
		return -1;
	/* User-space timerlat threads (rtla -u) switch off the kernel's own,
	 * before the tracer starts (it would start timerlat/N) */
	if (tl->o.user && lw_knob_write_undo(&run->knobs, path, "NO_OSNOISE_WORKLOAD",
					     "OSNOISE_WORKLOAD") < 0)
		return -1;

	lw_format_cpulist(&tl->o.cpus, cpus, sizeof(cpus));
	snprintf(period, sizeof(period), "%llu", (unsigned long long)(tl->o.period_ns / 1000));
	if (lw_osn_knobs(run, &tl->osn, knobs, sizeof(knobs) / sizeof(knobs[0])) < 0 ||
	    lw_osn_open(run, &tl->osn, buffer_kb(tl->o.period_ns), formats) < 0 ||
	    lw_timerlat_format(tl->osn.tep, &tl->fmt) < 0)
		return -1;

	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &tl->o.cpus))
			max_cpu = c;
	tl->ncpus = max_cpu + 1;
	tl->pair = calloc((size_t)tl->ncpus, sizeof(*tl->pair));
	tl->stat = calloc((size_t)tl->ncpus, sizeof(*tl->stat));
	if (!tl->pair || !tl->stat)
		return error("out of memory");
	tl->ring = lw_run_ring(run, RING_SAMPLES);
	if (!tl->ring)
		return -1;

	if (lw_osn_tracer(&tl->osn, "timerlat") < 0)
		return -1;
	if (!tl->o.no_rt && !tl->o.user)
		set_kthread_priority(tl);
	if (lw_osn_start(&tl->osn) < 0)
		return -1;
	if (tl->o.user && start_user_threads(run, tl) < 0)
		return -1;
	return 0;
}

static int timerlat_start(struct lw_run *run, struct lw_part *p)
{
	struct timerlat *tl = p->priv;

	const char *why;
	int q, ret;

	tl->run = run;
	lw_osn_remove_stale(&tl->osn);
	/* When timerlat was not asked for, a failure is one warning, not an error. */
	q = lw_set_quiet(0);
	lw_set_quiet(q || tl->o.optional);
	ret = setup(run, tl);
	lw_set_quiet(q);
	if (ret == 0) {
		tl->active = 1;
		return 0;
	}
	teardown(tl);
	why = lw_last_error();
	if (!strncmp(why, "timerlat: ", 10))
		why += 10;
	snprintf(tl->skipped, sizeof(tl->skipped), "%s", why);
	if (!tl->o.optional)
		return -1;
	warning("timerlat: not running (%s); the cyclic probe alone", tl->skipped);
	return 0;
}

static void timerlat_stop(struct lw_run *run, struct lw_part *p)
{
	struct timerlat *tl = p->priv;

	if (!tl->active)
		return;
	stop_user_threads(tl);	/* their last events in the buffer */
	lw_osn_stop(&tl->osn);
	teardown(tl);
}

/*
 * With user-space threads, the thread whose wake-up the thread and
 * return-to-user samples measure is ours: recorded under those samples'
 * probe names as the cyclic probe records its own (policy, priority, per CPU
 * the tid, and the samples the ring dropped: 0 when it dropped none, else
 * left out, unknown, the ring being shared), so that analyze finds that
 * thread's wake-up and switch-in behind their spikes.
 */
static void record_woken(struct timerlat *tl, json_t *probes)
{
	static const unsigned ids[] = { LW_SAMPLE_TIMERLAT_THREAD, LW_SAMPLE_TIMERLAT_USER };
	uint64_t dropped = atomic_load(&tl->ring->dropped);

	for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
		json_t *th = json_array();

		for (int i = 0; i < tl->nuser; i++) {
			json_t *t = json_pack("{s:i, s:i}", "cpu", tl->user[i].cpu,
					      "tid", atomic_load(&tl->user[i].ktid));

			if (!dropped)
				json_object_set_new(t, "dropped", json_integer(0));
			json_array_append_new(th, t);
		}
		json_object_set_new(probes, lw_probe_name(ids[k]), json_pack(
			"{s:i, s:s, s:s, s:i, s:o}", "probe_id", ids[k], "part_of", "timerlat",
			"policy", tl->o.no_rt ? "SCHED_OTHER" : "SCHED_FIFO",
			"priority", tl->o.no_rt ? 0 : tl->o.priority, "threads", th));
	}
}

static int timerlat_finish(struct lw_run *run, struct lw_part *p)
{
	struct timerlat *tl = p->priv;
	json_t *probes = lw_json_object_at(run->dir.manifest, "probes");
	json_t *cpus = json_array();
	char list[256];

	if (!tl->active) {
		json_object_set_new(probes, "timerlat", json_pack("{s:b, s:s}", "ran", 0,
								   "reason", tl->skipped));
		return 0;
	}
	for (int c = 0; c < tl->ncpus; c++) {
		struct tl_cpu_stat *st = &tl->stat[c];

		if (!CPU_ISSET(c, &tl->o.cpus))
			continue;
		json_array_append_new(cpus, json_pack("{s:i, s:I, s:I, s:I, s:I, s:I, s:I}",
			"cpu", c,
			"irq_samples", (json_int_t)st->count[0],
			"irq_max_ns", (json_int_t)st->max[0],
			"irq_over_threshold", (json_int_t)st->over[0],
			"thread_samples", (json_int_t)st->count[1],
			"thread_max_ns", (json_int_t)st->max[1],
			"thread_over_threshold", (json_int_t)st->over[1]));
		if (tl->o.user) {
			json_t *u = json_pack("{s:I, s:I, s:I}",
					      "user_samples", (json_int_t)st->count[2],
					      "user_max_ns", (json_int_t)st->max[2],
					      "user_over_threshold", (json_int_t)st->over[2]);

			json_object_update(json_array_get(cpus, json_array_size(cpus) - 1), u);
			json_decref(u);
		}
	}
	json_object_set_new(probes, "timerlat", json_pack(
		"{s:b, s:{s:i, s:i}, s:s, s:s, s:s, s:I, s:s, s:i, s:I, s:I, s:I, s:b, s:I, s:I, s:I, s:I, s:o}",
		"ran", 1,
		"probe_ids", "irq", LW_SAMPLE_TIMERLAT_IRQ, "thread", LW_SAMPLE_TIMERLAT_THREAD,
		"instance", tl->osn.name,
		"trace_clock", "mono",
		"cpus", lw_format_cpulist(&tl->o.cpus, list, sizeof(list)),
		"period_ns", (json_int_t)tl->o.period_ns,
		"kthread_policy", tl->o.no_rt ? "kernel default (SCHED_FIFO 95)" : "SCHED_FIFO",
		"kthread_priority", tl->o.no_rt ? 95 : tl->o.priority,
		"kthreads_set", (json_int_t)tl->kthreads_set,
		"threshold_ns", (json_int_t)tl->o.threshold_ns,
		"break_ns", (json_int_t)tl->o.break_ns,
		"lost_events_unknown", tl->osn.lost_unknown > 0,
		"lost_events", (json_int_t)lw_osn_losses(&tl->osn),
		"dropped", (json_int_t)atomic_load(&tl->ring->dropped),
		"other_context_events", (json_int_t)tl->other_context,
		"read_errors", (json_int_t)(tl->read_errors + tl->osn.read_errors + tl->unplaced),
		"per_cpu", cpus));
	json_object_set_new(json_object_get(probes, "timerlat"), "buffer_kb_per_cpu",
			    json_integer((json_int_t)tl->osn.buffer_kb));
	json_object_set_new(json_object_get(probes, "timerlat"), "threads_mode",
			    json_string(tl->o.user ? "user" : "kernel"));
	if (tl->o.user) {
		json_t *th = json_array();

		json_object_set_new(json_object_get(json_object_get(probes, "timerlat"), "probe_ids"),
				    "user", json_integer(LW_SAMPLE_TIMERLAT_USER));
		for (int i = 0; i < tl->nuser; i++) {
			json_array_append_new(th, json_pack("{s:i, s:i, s:I}", "cpu", tl->user[i].cpu,
				"tid", atomic_load(&tl->user[i].ktid), "reads",
				(json_int_t)tl->user[i].reads));
			if (tl->user[i].err)
				json_object_set_new(json_array_get(th, (size_t)i), "error",
						    json_string(strerror(tl->user[i].err)));
		}
		json_object_set_new(json_object_get(probes, "timerlat"), "user_threads", th);
		json_object_set_new(json_object_get(probes, "timerlat"), "thread_policy",
				    json_string(tl->o.no_rt ? "SCHED_OTHER" : "SCHED_FIFO"));
		record_woken(tl, probes);
	}
	json_object_set_new(json_object_get(probes, "timerlat"), "expected_ns",
		json_string("event timestamp (mono trace clock) minus timer_latency; the thread "
			    "sample takes the value of the IRQ sample of the same activation"));
	if (lw_osn_losses(&tl->osn) || tl->osn.lost_unknown)
		warning("timerlat: %llu events lost in %s (the reader fell behind)",
			(unsigned long long)lw_osn_losses(&tl->osn), tl->osn.name);
	return 0;
}

static void timerlat_progress(struct lw_run *run, struct lw_part *p, char *buf, size_t len)
{
	struct timerlat *tl = p->priv;

	if (tl->active)
		snprintf(buf, len, "timerlat max %.1fus",
			 (double)atomic_load(&tl->max_live) / 1e3);
	else if (len)
		buf[0] = 0;
}

static void timerlat_destroy(struct lw_part *p)
{
	struct timerlat *tl = p->priv;

	teardown(tl);
	free(tl->pair);
	free(tl->stat);
	free(tl->user);
	free(tl);
}

struct lw_part *lw_timerlat_new(const struct lw_timerlat_opts *o)
{
	struct timerlat *tl = calloc(1, sizeof(*tl));

	if (!tl) {
		error("out of memory");
		return NULL;
	}
	tl->o = *o;
	tl->osn = (struct lw_osn){ .who = "timerlat", .prefix = INSTANCE_PREFIX, .cpus = o->cpus,
				   .on_event = on_event, .ctx = tl };
	tl->part = (struct lw_part){
		.name = "timerlat",
		.start = timerlat_start,
		.stop = timerlat_stop,
		.finish = timerlat_finish,
		.progress = timerlat_progress,
		.destroy = timerlat_destroy,
		.priv = tl,
	};
	return &tl->part;
}

static const char *timerlat_given(const struct lw_probe_opts *o)
{
	return o->timerlat_period_ns ? "--timerlat-period" :
	       o->timerlat_threads ? "--timerlat-threads" : NULL;
}

/*
 * Where the kernel has the tracer: the period (--timerlat-period, else the
 * run's --interval within the kernel's limits), on the measured CPUs the
 * busy loops leave.  Without the tracer, or without a CPU when it was not
 * asked for, it does not run; the cyclic probe then runs if nothing else
 * would.
 */
static int timerlat_plan(const struct lw_probe *d, struct lw_probe_plan *p,
			 const struct lw_plan_ctx *c)
{
	const struct lw_probe_opts *o = c->o;
	uint64_t interval_ns = c->interval_ns;
	char a[256];

	(void)d;
	p->want[LW_PROBE_INDEX_TIMERLAT].optional = !(o->probes & LW_PROBES_TIMERLAT);
	if (!c->env->have_timerlat) {
		*c->want &= ~(unsigned)LW_PROBES_TIMERLAT;
		if (!(*c->want & ~(unsigned)LW_PROBES_CYCLIC))
			*c->want |= LW_PROBES_CYCLIC;
		snprintf(p->want[LW_PROBE_INDEX_TIMERLAT].skipped, sizeof(p->want[LW_PROBE_INDEX_TIMERLAT].skipped), "%s",
			 c->env->no_timerlat[0] ? c->env->no_timerlat : "not available");
		if (*c->want == LW_PROBES_CYCLIC)
			lw_probe_plan_note(p, "timerlat: %s; the cyclic probe alone",
					   p->want[LW_PROBE_INDEX_TIMERLAT].skipped);
		else
			lw_probe_plan_note(p, "timerlat: %s; running %s", p->want[LW_PROBE_INDEX_TIMERLAT].skipped,
					   lw_format_probes(*c->want, a, sizeof(a)));
		return 0;
	}
	if (!p->want[LW_PROBE_INDEX_TIMERLAT].param[0]) {
		p->want[LW_PROBE_INDEX_TIMERLAT].param[0] = interval_ns - interval_ns % 1000;
		if (p->want[LW_PROBE_INDEX_TIMERLAT].param[0] < LW_TIMERLAT_PERIOD_MIN_NS) {
			p->want[LW_PROBE_INDEX_TIMERLAT].param[0] = LW_TIMERLAT_PERIOD_MIN_NS;
			lw_probe_plan_note(p, "timerlat: period 100us, the kernel's minimum "
					   "(--interval is shorter)");
		} else if (p->want[LW_PROBE_INDEX_TIMERLAT].param[0] > LW_TIMERLAT_PERIOD_MAX_NS) {
			p->want[LW_PROBE_INDEX_TIMERLAT].param[0] = LW_TIMERLAT_PERIOD_MAX_NS;
			lw_probe_plan_note(p, "timerlat: period 1s, the kernel's maximum");
		}
	}
	/* user-space threads where the kernel has them, else its own */
	if (p->want[LW_PROBE_INDEX_TIMERLAT].param[1] == LW_TL_THREADS_USER &&
	    !c->env->have_timerlat_fd)
		return error("--timerlat-threads user: %s", c->env->no_timerlat_fd);
	if (p->want[LW_PROBE_INDEX_TIMERLAT].param[1] == LW_TL_THREADS_AUTO) {
		p->want[LW_PROBE_INDEX_TIMERLAT].param[1] = c->env->have_timerlat_fd ?
			LW_TL_THREADS_USER : LW_TL_THREADS_KERNEL;
		if (!c->env->have_timerlat_fd)
			lw_probe_plan_note(p, "timerlat: kernel threads, no return-to-user latency "
					   "(%s)", c->env->no_timerlat_fd);
	}
	if (!CPU_COUNT(&p->want[LW_PROBE_INDEX_TIMERLAT].cpus)) {
		if (!p->want[LW_PROBE_INDEX_TIMERLAT].optional)
			return error("--probes: no CPU left for timerlat (the noise probe takes "
				     "%s); give --cpus more CPUs",
				     lw_format_cpulist(&p->want[LW_PROBE_INDEX_NOISE].cpus, a, sizeof(a)));
		*c->want &= ~(unsigned)LW_PROBES_TIMERLAT;
		return 0;
	}
	return 1;
}

static struct lw_part *timerlat_create(const struct lw_probe_plan *p,
				       const struct lw_probe_common *c,
				       const struct lw_probe_env *env)
{
	struct lw_timerlat_opts tlo = {
		.cpus = p->want[LW_PROBE_INDEX_TIMERLAT].cpus, .period_ns = p->want[LW_PROBE_INDEX_TIMERLAT].param[0],
		.priority = c->priority, .no_rt = c->no_rt, .threshold_ns = c->threshold_ns,
		.break_ns = c->break_ns, .optional = p->want[LW_PROBE_INDEX_TIMERLAT].optional,
		.user = p->want[LW_PROBE_INDEX_TIMERLAT].param[1] == LW_TL_THREADS_USER,
	};

	(void)env;
	return lw_timerlat_new(&tlo);
}

const struct lw_probe lw_probe_timerlat = {
	.name = "timerlat", .index = LW_PROBE_INDEX_TIMERLAT, .bit = LW_PROBES_TIMERLAT,
	.by_default = 1,
	.samples = { LW_SAMPLE_TIMERLAT_IRQ, LW_SAMPLE_TIMERLAT_THREAD, LW_SAMPLE_TIMERLAT_USER },
	.cpus_rule = LW_PROBE_CPUS_SHARED,
	.given = timerlat_given, .plan = timerlat_plan, .create = timerlat_create,
	.help = "",
	.params = {
		{ .option = "--timerlat-period",
		  .offset = offsetof(struct lw_probe_opts, timerlat_period_ns),
		  .parse = lw_parse_timerlat_period,
		  .help =
"      --timerlat-period US  timerlat period, 100us..1s (default: --interval)\n" },
		{ .option = "--timerlat-threads",
		  .offset = offsetof(struct lw_probe_opts, timerlat_threads),
		  .parse = lw_parse_timerlat_threads,
		  .help =
"      --timerlat-threads user|kernel  timerlat's threads: ours reading\n"
"                          timerlat_fd, with the return-to-user latency\n"
"                          (rtla -u), or the kernel's (rtla -k); default user\n"
"                          where the kernel has timerlat_fd (6.5 on)\n" },
	},
};
