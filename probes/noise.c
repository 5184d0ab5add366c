// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/knobs.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/sysfs.h"
#include "lib/thread.h"
#include "lib/timeutil.h"
#include "lib/ust.h"
#include "probes/gap.h"
#include "probes/noise.h"
#include "probes/plan.h"
#include "probes/spike.h"

#define RING_SAMPLES   (1u << 16)
/* Beyond this, per-CPU kernel work starved on a non-isolated CPU shows. */
#define LONG_RUN_NS    (20 * LW_NSEC_PER_SEC)

struct noise_thread {
	struct noise *n;
	struct lw_run *run;
	struct lw_ring *ring;
	pthread_t tid;
	int cpu;
	int created;
	_Atomic int ktid;		/* kernel thread id, as the trace shows it */
	struct lw_gap gap;		/* written by the thread, read after join */
	_Atomic uint64_t max_ns;	/* live, for the progress line */
	uint64_t over;			/* gaps above --threshold */
	uint64_t start_ns, end_ns;
};

struct noise {
	struct lw_part part;
	struct lw_noise_opts o;
	struct noise_thread *t;
	int nthreads;
	char rt_runtime_orig[32];	/* "" when not read */
	int rt_runtime_changed;
	char rt_runtime_error[160];
};

/* The measurement loop: read the clock, compare, repeat.  Only a gap leaves
 * the two-instruction path; its bookkeeping is excluded by resync. */
static void *noise_main(void *arg)
{
	struct noise_thread *t = arg;
	struct lw_run *run = t->run;
	const struct lw_noise_opts *o = &t->n->o;
	struct lw_sample s = { .cpu = (uint16_t)t->cpu, .probe = LW_SAMPLE_NOISE };
	struct lw_gap g;
	uint64_t now, start, d, max = 0;
	char name[16];

	snprintf(name, sizeof(name), "lw-noise/%d", t->cpu);
	pthread_setname_np(pthread_self(), name);
	atomic_store(&t->ktid, (int)gettid());
	lw_prefault_stack();

	t->start_ns = lw_mono_ns();
	lw_gap_init(&g, o->gap_threshold_ns, t->start_ns);
	while (!lw_run_stopping(run)) {
		now = lw_mono_ns();
		d = lw_gap_feed(&g, now, &start);
		if (__builtin_expect(!d, 1))
			continue;
		s.expected_ns = start;
		s.latency_ns = d;
		s.flags = 0;
		if (o->threshold_ns && d > o->threshold_ns) {
			s.flags = LW_SAMPLE_OVER_THRESHOLD;
			lw_probe_spike(run, LW_SAMPLE_NOISE, t->cpu, start, d);
			t->over++;
		}
		lw_ring_push(t->ring, &s);
		lw_ust_probe_sample(LW_SAMPLE_NOISE, t->cpu, start, d);
		if (d > max) {
			max = d;
			atomic_store_explicit(&t->max_ns, max, memory_order_relaxed);
		}
		if (o->break_ns && d > o->break_ns) {
			char why[96];

			snprintf(why, sizeof(why), "noise: cpu %d gap %lluns above %lluns", t->cpu,
				 (unsigned long long)d, (unsigned long long)o->break_ns);
			lw_run_threshold(run, &s, why);
		}
		lw_gap_resync(&g, lw_mono_ns());
	}
	t->end_ns = g.prev;
	/* The largest delta may be below the gap threshold: publish it too. */
	atomic_store_explicit(&t->max_ns, g.max_ns, memory_order_relaxed);
	t->gap = g;
	return NULL;
}

static void rt_throttling_off(struct lw_run *run, struct noise *n)
{
	const char *knob = n->o.rt_runtime_knob ? n->o.rt_runtime_knob : LW_RT_RUNTIME_KNOB;
	int q;

	if (lw_read_file(knob, n->rt_runtime_orig, sizeof(n->rt_runtime_orig)) < 0) {
		snprintf(n->rt_runtime_error, sizeof(n->rt_runtime_error), "cannot read %s: %s",
			 knob, strerror(errno));
		n->rt_runtime_orig[0] = 0;
	} else if (strcmp(n->rt_runtime_orig, "-1")) {
		q = lw_set_quiet(1);
		if (lw_knob_write(&run->knobs, knob, "-1") < 0)
			snprintf(n->rt_runtime_error, sizeof(n->rt_runtime_error), "%s",
				 lw_last_error());
		else
			n->rt_runtime_changed = 1;
		lw_set_quiet(q);
	}
	if (n->rt_runtime_error[0])
		warning("noise: RT throttling stays on (%s); the busy loop will be stopped "
			"%s of every %s and record it as noise", n->rt_runtime_error,
			"sched_rt_period_us - sched_rt_runtime_us", "sched_rt_period_us");
}

static void noise_stop(struct lw_run *run, struct lw_part *p)
{
	struct noise *n = p->priv;

	for (int i = 0; i < n->nthreads; i++)
		if (n->t[i].created) {
			pthread_join(n->t[i].tid, NULL);
			n->t[i].created = 0;
		}
}

static int noise_start(struct lw_run *run, struct lw_part *p)
{
	struct noise *n = p->priv;
	char list[256];
	int i = 0;

	n->nthreads = CPU_COUNT(&n->o.cpus);
	n->t = calloc((size_t)n->nthreads, sizeof(*n->t));
	if (!n->t)
		return error("out of memory");
	if (!n->o.no_rt) {
		cpu_set_t shared;

		rt_throttling_off(run, n);
		CPU_XOR(&shared, &n->o.cpus, &n->o.isolated);
		CPU_AND(&shared, &shared, &n->o.cpus);
		if (CPU_COUNT(&shared) && run->duration_ns > LONG_RUN_NS)
			warning("noise: cpu %s is not isolated (isolcpus=, nohz_full=): its per-CPU "
				"kernel work waits while the busy loop runs",
				lw_format_cpulist(&shared, list, sizeof(list)));
	}
	lw_threads_off(&n->o.cpus);

	for (int cpu = 0; cpu < CPU_SETSIZE && i < n->nthreads; cpu++) {
		struct noise_thread *t;
		struct lw_sched sch = { .policy = n->o.no_rt ? SCHED_OTHER : SCHED_FIFO,
					.priority = n->o.priority, .cpu = cpu };
		char what[48];

		if (!CPU_ISSET(cpu, &n->o.cpus))
			continue;
		t = &n->t[i];
		t->n = n;
		t->run = run;
		t->cpu = cpu;
		t->ring = lw_run_ring(run, RING_SAMPLES);
		if (!t->ring)
			goto fail;
		snprintf(what, sizeof(what), "the noise probe on cpu %d", cpu);
		if (lw_thread_start(&t->tid, noise_main, t, &sch, what) < 0)
			goto fail;
		t->created = 1;
		i++;
	}
	return 0;
fail:
	lw_run_request_stop(run, LW_STOP_ERROR, "noise: start failed");
	noise_stop(run, p);
	return -1;
}

static int noise_finish(struct lw_run *run, struct lw_part *p)
{
	struct noise *n = p->priv;
	json_t *probes = lw_json_object_at(run->dir.manifest, "probes");
	json_t *threads = json_array();
	json_t *rt;
	char cpus[256];

	for (int i = 0; i < n->nthreads; i++) {
		struct noise_thread *t = &n->t[i];
		const struct lw_gap *g = &t->gap;
		uint64_t obs = lw_gap_observed_ns(g);

		if (!t->ring)
			continue;
		json_array_append_new(threads, json_pack(
			"{s:i, s:i, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:I}",
			"cpu", t->cpu, "tid", atomic_load(&t->ktid),
			"isolated", CPU_ISSET(t->cpu, &n->o.isolated),
			"loops", (json_int_t)g->loops,
			"gaps", (json_int_t)g->gaps,
			"noise_ns", (json_int_t)g->noise_ns,
			"max_gap_ns", (json_int_t)g->max_ns,
			"min_loop_ns", (json_int_t)(g->loops ? g->min_ns : 0),
			"observed_ns", (json_int_t)obs,
			"start_ns", (json_int_t)t->start_ns,
			"end_ns", (json_int_t)t->end_ns,
			"cpu_available_percent", obs ? 100.0 * (double)(obs - (g->noise_ns < obs ?
						g->noise_ns : obs)) / (double)obs : 0.0,
			"skipped_ns", (json_int_t)g->skipped_ns,
			"over_threshold", (json_int_t)t->over,
			"dropped", (json_int_t)atomic_load(&t->ring->dropped)));
	}
	if (n->o.no_rt)
		rt = json_pack("{s:s}", "policy", "SCHED_OTHER: not throttled, preempted by other tasks");
	else
	{
		rt = json_pack("{s:o, s:b}",
			       "sched_rt_runtime_us", n->rt_runtime_orig[0] ?
					json_integer(strtoll(n->rt_runtime_orig, NULL, 10)) : json_null(),
			       "disabled_for_run", n->rt_runtime_changed ||
						   !strcmp(n->rt_runtime_orig, "-1"));
		if (n->rt_runtime_error[0])
			json_object_set_new(rt, "error", json_string(n->rt_runtime_error));
	}
	json_object_set_new(probes, "noise", json_pack(
		"{s:i, s:s, s:s, s:I, s:s, s:i, s:I, s:I, s:o, s:o}",
		"probe_id", LW_SAMPLE_NOISE,
		"method", "busy loop reading CLOCK_MONOTONIC; a delta above gap_threshold_ns is a "
			  "gap (expected_ns = start, latency_ns = length)",
		"cpus", lw_format_cpulist(&n->o.cpus, cpus, sizeof(cpus)),
		"gap_threshold_ns", (json_int_t)n->o.gap_threshold_ns,
		"policy", n->o.no_rt ? "SCHED_OTHER" : "SCHED_FIFO",
		"priority", n->o.no_rt ? 0 : n->o.priority,
		"threshold_ns", (json_int_t)n->o.threshold_ns,
		"break_ns", (json_int_t)n->o.break_ns,
		"rt_throttling", rt,
		"threads", threads));
	return 0;
}

static void noise_progress(struct lw_run *run, struct lw_part *p, char *buf, size_t len)
{
	struct noise *n = p->priv;
	size_t k = 0;

	for (int i = 0; i < n->nthreads && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%snoise%d max %.1fus", i ? " " : "",
				      n->t[i].cpu, (double)atomic_load(&n->t[i].max_ns) / 1e3);
}

static void noise_destroy(struct lw_part *p)
{
	struct noise *n = p->priv;

	free(n->t);
	free(n);
}

struct lw_part *lw_noise_new(const struct lw_noise_opts *o)
{
	struct noise *n = calloc(1, sizeof(*n));

	if (!n) {
		error("out of memory");
		return NULL;
	}
	n->o = *o;
	n->part = (struct lw_part){
		.name = "noise",
		.start = noise_start,
		.stop = noise_stop,
		.finish = noise_finish,
		.progress = noise_progress,
		.destroy = noise_destroy,
		.priv = n,
	};
	return &n->part;
}

static const char *noise_given(const struct lw_probe_opts *o)
{
	return o->noise_cpus_set ? "--noise-cpus" : NULL;
}

/* --noise-cpus, else the isolated and nohz_full CPUs, else the last
 * measured CPU; never every online CPU. */
static int noise_plan(const struct lw_probe *d, struct lw_probe_plan *p,
		      const struct lw_plan_ctx *c)
{
	const struct lw_probe_opts *o = c->o;
	const struct lw_probe_env *env = c->env;
	char a[256], b[256];

	(void)d;
	if (o->noise_cpus_set) {
		p->want[LW_PROBE_INDEX_NOISE].cpus = o->noise_cpus;
	} else if (CPU_COUNT(&env->isolated)) {
		p->want[LW_PROBE_INDEX_NOISE].cpus = env->isolated;
	} else {
		CPU_ZERO(&p->want[LW_PROBE_INDEX_NOISE].cpus);
		CPU_SET(lw_cpuset_last(c->cpus), &p->want[LW_PROBE_INDEX_NOISE].cpus);
	}
	if (CPU_EQUAL(&p->want[LW_PROBE_INDEX_NOISE].cpus, &env->online) || CPU_COUNT(&env->online) < 2)
		return error("--noise-cpus: %s would take every online CPU (%s); leave at "
			     "least one for housekeeping",
			     lw_format_cpulist(&p->want[LW_PROBE_INDEX_NOISE].cpus, a, sizeof(a)),
			     lw_format_cpulist(&env->online, b, sizeof(b)));
	return 1;
}

static struct lw_part *noise_create(const struct lw_probe_plan *p,
				    const struct lw_probe_common *c,
				    const struct lw_probe_env *env)
{
	struct lw_noise_opts no = {
		.cpus = p->want[LW_PROBE_INDEX_NOISE].cpus, .isolated = env->isolated,
		.gap_threshold_ns = p->want[LW_PROBE_INDEX_NOISE].param[0], .priority = c->priority,
		.no_rt = c->no_rt, .threshold_ns = c->threshold_ns, .break_ns = c->break_ns,
	};

	return lw_noise_new(&no);
}

const struct lw_probe lw_probe_noise = {
	.name = "noise", .index = LW_PROBE_INDEX_NOISE, .bit = LW_PROBES_NOISE,
	.samples = { LW_SAMPLE_NOISE }, .cpus_rule = LW_PROBE_CPUS_ALONE,
	.given = noise_given, .plan = noise_plan, .create = noise_create,
	.help =
"      --noise-cpus LIST   CPUs of the noise busy loops (default: the isolated or\n"
"                          nohz_full CPUs, else the last of --cpus); the timer\n"
"                          probes measure the other CPUs\n",
	.params = {
		{ .option = "--noise-threshold",
		  .offset = offsetof(struct lw_probe_opts, noise_threshold_ns),
		  .def = LW_NOISE_THRESHOLD_DEFAULT_NS, .parse = lw_parse_noise_threshold,
		  .help =
"      --noise-threshold US  a busy-loop gap longer than US is a sample (default 5)\n" },
	},
};
