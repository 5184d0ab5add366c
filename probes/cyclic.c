// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/thread.h"
#include "lib/timeutil.h"
#include "probes/cyclic.h"
#include "probes/plan.h"
#include "probes/spike.h"

#define RING_SAMPLES   (1u << 16)
#define ALIGN_LEAD_NS  (5 * LW_NSEC_PER_MSEC)	/* --aligned: the start, after the last thread */

struct cyclic_thread {
	struct cyclic *c;
	struct lw_run *run;
	struct lw_ring *ring;
	pthread_t tid;
	int cpu;
	int k;			/* its place among the threads (--aligned) */
	uint64_t interval_ns;
	int created;
	_Atomic int ktid;	/* kernel thread id, as the trace shows it */
	/* results, written by the thread, read after join (max also live) */
	_Atomic uint64_t max_ns;
	uint64_t count, missed, over, min_ns;
	int err;		/* errno of a failed clock_nanosleep */
};

struct cyclic {
	struct lw_part part;
	struct lw_cyclic_opts o;
	struct cyclic_thread *t;
	int nthreads;
	/* --aligned: the instant every thread had started by, set once they
	 * all run (0 until then) */
	_Atomic uint64_t t0;
};

/* --aligned: wait (1 ms naps, before the measurement) until the starting
 * thread has made every thread and set the common start.  0 when the run
 * stops first. */
static uint64_t wait_t0(struct cyclic *c, struct lw_run *run)
{
	struct timespec nap = lw_ns_to_ts(LW_NSEC_PER_MSEC);
	uint64_t t0;

	while (!(t0 = atomic_load(&c->t0)) && !lw_run_stopping(run))
		nanosleep(&nap, NULL);
	return t0;
}

/* The measurement loop: sleep, read the clock, store, repeat. */
static void *cyclic_main(void *arg)
{
	struct cyclic_thread *t = arg;
	struct lw_run *run = t->run;
	const struct lw_cyclic_opts *o = &t->c->o;
	const uint64_t interval = t->interval_ns;
	struct lw_sample s = { .cpu = (uint16_t)t->cpu, .probe = LW_SAMPLE_CYCLIC };
	uint64_t next, now, lat, max = 0, min = UINT64_MAX;
	struct timespec ts;
	char name[16];

	atomic_store(&t->ktid, (int)gettid());
	snprintf(name, sizeof(name), "lw-cyclic/%d", t->cpu);
	pthread_setname_np(pthread_self(), name);
	lw_prefault_stack();

	if (o->aligned) {
		uint64_t t0 = wait_t0(t->c, run);

		if (!t0)
			return NULL;
		next = lw_cyclic_first_wake(t0, interval, t->k, o->align_ns);
	} else {
		next = lw_mono_ns() + interval;
	}
	while (!lw_run_stopping(run)) {
		int ret;

		ts = lw_ns_to_ts(next);
		ret = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (ret == EINTR)
			continue;
		if (ret) {
			t->err = ret;
			lw_run_request_stop(run, LW_STOP_ERROR, "cyclic: clock_nanosleep failed");
			break;
		}
		now = lw_mono_ns();
		lat = now > next ? now - next : 0;

		s.expected_ns = next;
		s.latency_ns = lat;
		s.missed = (uint32_t)(lat / interval);
		s.flags = 0;
		if (o->threshold_ns && lat > o->threshold_ns) {
			s.flags = LW_SAMPLE_OVER_THRESHOLD;
			lw_probe_spike(run, LW_SAMPLE_CYCLIC, t->cpu, next, lat);
			t->over++;
		}
		lw_ring_push(t->ring, &s);
		lw_ust_probe_sample(LW_SAMPLE_CYCLIC, t->cpu, next, lat);
		t->count++;
		t->missed += s.missed;
		if (lat > max) {
			max = lat;
			atomic_store_explicit(&t->max_ns, max, memory_order_relaxed);
		}
		if (lat < min)
			min = lat;
		if (o->break_ns && lat > o->break_ns) {
			char why[96];

			snprintf(why, sizeof(why), "cyclic: cpu %d latency %lluns above %lluns",
				 t->cpu, (unsigned long long)lat, (unsigned long long)o->break_ns);
			lw_run_threshold(run, &s, why);
		}
		/* Periods that passed while we were late are counted, not replayed. */
		next += interval * (1 + (uint64_t)s.missed);
	}
	t->min_ns = min;
	return NULL;
}

static void cyclic_stop(struct lw_run *run, struct lw_part *p)
{
	struct cyclic *c = p->priv;

	for (int i = 0; i < c->nthreads; i++)
		if (c->t[i].created) {
			pthread_join(c->t[i].tid, NULL);
			c->t[i].created = 0;
		}
}

static int cyclic_start(struct lw_run *run, struct lw_part *p)
{
	struct cyclic *c = p->priv;
	int n = 0;

	c->nthreads = CPU_COUNT(&c->o.cpus);
	c->t = calloc((size_t)c->nthreads, sizeof(*c->t));
	if (!c->t)
		return error("out of memory");
	for (int cpu = 0; cpu < CPU_SETSIZE && n < c->nthreads; cpu++) {
		struct cyclic_thread *t;
		struct lw_sched sch = { .policy = c->o.no_rt ? SCHED_OTHER : SCHED_FIFO,
					.priority = c->o.priority, .cpu = cpu };
		char what[48];

		if (!CPU_ISSET(cpu, &c->o.cpus))
			continue;
		t = &c->t[n];
		t->c = c;
		t->run = run;
		t->cpu = cpu;
		t->k = n;
		t->interval_ns = c->o.interval_ns + (uint64_t)n * c->o.distance_ns;
		t->ring = lw_run_ring(run, RING_SAMPLES);
		if (!t->ring)
			goto fail;
		snprintf(what, sizeof(what), "the cyclic probe on cpu %d", cpu);
		if (lw_thread_start(&t->tid, cyclic_main, t, &sch, what) < 0)
			goto fail;
		t->created = 1;
		n++;
	}
	/* every thread runs: one start for all, far enough ahead that each has
	 * seen it (its naps are 1 ms) before its first wake-up is due */
	if (c->o.aligned)
		atomic_store(&c->t0, lw_mono_ns() + ALIGN_LEAD_NS);
	return 0;
fail:
	lw_run_request_stop(run, LW_STOP_ERROR, "cyclic: start failed");
	cyclic_stop(run, p);
	return -1;
}

static int cyclic_finish(struct lw_run *run, struct lw_part *p)
{
	struct cyclic *c = p->priv;
	json_t *probes = lw_json_object_at(run->dir.manifest, "probes");
	json_t *threads = json_array();
	char cpus[256];

	for (int i = 0; i < c->nthreads; i++) {
		struct cyclic_thread *t = &c->t[i];

		json_array_append_new(threads, json_pack("{s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			"cpu", t->cpu, "tid", atomic_load(&t->ktid), "interval_ns", (json_int_t)t->interval_ns,
			"samples", (json_int_t)t->count,
			"dropped", (json_int_t)atomic_load(&t->ring->dropped),
			"missed_periods", (json_int_t)t->missed,
			"over_threshold", (json_int_t)t->over,
			"min_ns", (json_int_t)(t->count ? t->min_ns : 0),
			"max_ns", (json_int_t)atomic_load(&t->max_ns)));
		if (t->err)
			json_object_set_new(json_array_get(threads, json_array_size(threads) - 1),
					    "error", json_string(strerror(t->err)));
	}
	json_object_set_new(probes, "cyclic", json_pack("{s:i, s:s, s:I, s:I, s:s, s:i, s:I, s:I, s:o}",
		"probe_id", LW_SAMPLE_CYCLIC,
		"cpus", lw_format_cpulist(&c->o.cpus, cpus, sizeof(cpus)),
		"interval_ns", (json_int_t)c->o.interval_ns,
		"distance_ns", (json_int_t)c->o.distance_ns,
		"policy", c->o.no_rt ? "SCHED_OTHER" : "SCHED_FIFO",
		"priority", c->o.no_rt ? 0 : c->o.priority,
		"threshold_ns", (json_int_t)c->o.threshold_ns,
		"break_ns", (json_int_t)c->o.break_ns,
		"threads", threads));
	if (c->o.aligned)
		json_object_set_new(json_object_get(probes, "cyclic"), "aligned",
			json_pack("{s:I, s:I}", "start_ns", (json_int_t)atomic_load(&c->t0),
				  "offset_ns", (json_int_t)c->o.align_ns));
	return 0;
}

static void cyclic_progress(struct lw_run *run, struct lw_part *p, char *buf, size_t len)
{
	struct cyclic *c = p->priv;
	size_t n = 0;

	for (int i = 0; i < c->nthreads && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%scpu%d max %.1fus", i ? " " : "",
				      c->t[i].cpu,
				      (double)atomic_load(&c->t[i].max_ns) / 1e3);
}

static void cyclic_destroy(struct lw_part *p)
{
	struct cyclic *c = p->priv;

	free(c->t);
	free(c);
}

struct lw_part *lw_cyclic_new(const struct lw_cyclic_opts *o)
{
	struct cyclic *c = calloc(1, sizeof(*c));

	if (!c) {
		error("out of memory");
		return NULL;
	}
	c->o = *o;
	c->part = (struct lw_part){
		.name = "cyclic",
		.start = cyclic_start,
		.stop = cyclic_stop,
		.finish = cyclic_finish,
		.progress = cyclic_progress,
		.destroy = cyclic_destroy,
		.priv = c,
	};
	return &c->part;
}

/* Every measured CPU the busy loops leave. */
static int cyclic_plan(const struct lw_probe *d, struct lw_probe_plan *p,
		       const struct lw_plan_ctx *c)
{
	char a[256];

	(void)d;
	(void)c;
	if (!CPU_COUNT(&p->want[LW_PROBE_INDEX_CYCLIC].cpus))
		return error("--probes: no CPU left for the cyclic probe (the noise probe "
			     "takes %s); give --cpus more CPUs or other --noise-cpus",
			     lw_format_cpulist(&p->want[LW_PROBE_INDEX_NOISE].cpus, a, sizeof(a)));
	return 1;
}

static struct lw_part *cyclic_create(const struct lw_probe_plan *p,
				     const struct lw_probe_common *c,
				     const struct lw_probe_env *env)
{
	struct lw_cyclic_opts co = {
		.cpus = p->want[LW_PROBE_INDEX_CYCLIC].cpus, .interval_ns = c->interval_ns, .distance_ns = c->distance_ns,
		.priority = c->priority, .no_rt = c->no_rt, .threshold_ns = c->threshold_ns,
		.break_ns = c->break_ns, .aligned = c->aligned, .align_ns = c->align_ns,
	};

	(void)env;
	return lw_cyclic_new(&co);
}

static const char *cyclic_given(const struct lw_probe_opts *o)
{
	return o->aligned ? "--aligned" : NULL;
}

const struct lw_probe lw_probe_cyclic = {
	.name = "cyclic", .index = LW_PROBE_INDEX_CYCLIC, .bit = LW_PROBES_CYCLIC, .by_default = 1,
	.samples = { LW_SAMPLE_CYCLIC }, .cpus_rule = LW_PROBE_CPUS_SHARED,
	.given = cyclic_given, .plan = cyclic_plan, .create = cyclic_create, .help = "",
};
