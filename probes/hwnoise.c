// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/sysfs.h"
#include "lib/thread.h"
#include "lib/timeutil.h"
#include "lib/ust.h"
#include "probes/hwnoise.h"
#include "probes/osnoise.h"
#include "probes/plan.h"
#include "probes/spike.h"

#define INSTANCE_PREFIX "latwatt-hwnoise-"
#define RING_SAMPLES    (1u << 16)
#define BUFFER_KB       1024	/* per CPU: gaps are few with IRQs off */

/* ---------------------------------------------------------------- decoding */

int lw_hwnoise_format(struct tep_handle *tep, struct lw_hwn_format *f)
{
	struct tep_event *g = tep_find_event_by_name(tep, "osnoise", "sample_threshold");
	struct tep_event *p = tep_find_event_by_name(tep, "ftrace", "osnoise");
	struct tep_event *n = tep_find_event_by_name(tep, "osnoise", "nmi_noise");
	const char *lacks = NULL;

	memset(f, 0, sizeof(*f));
	if (!g)
		return error("hwnoise: the kernel has no osnoise/sample_threshold event format");
	if (!p)
		return error("hwnoise: the kernel has no ftrace/osnoise event format");
	if (!n)
		return error("hwnoise: the kernel has no osnoise/nmi_noise event format");
	f->gap_id = g->id;
	f->period_id = p->id;
	f->nmi_id = n->id;
	f->nmi_duration = tep_find_field(n, "duration");
	f->start = tep_find_field(g, "start");
	f->duration = tep_find_field(g, "duration");
	f->interference = tep_find_field(g, "interference");
	f->noise = tep_find_field(p, "noise");
	f->runtime = tep_find_field(p, "runtime");
	f->max_sample = tep_find_field(p, "max_sample");
	f->hw_count = tep_find_field(p, "hw_count");
	f->nmi_count = tep_find_field(p, "nmi_count");
	f->irq_count = tep_find_field(p, "irq_count");
	f->softirq_count = tep_find_field(p, "softirq_count");
	f->thread_count = tep_find_field(p, "thread_count");
	if (!f->duration)
		lacks = "osnoise/sample_threshold: duration";
	else if (!f->interference)
		lacks = "osnoise/sample_threshold: interference";
	else if (!f->nmi_duration)
		lacks = "osnoise/nmi_noise: duration";
	else if (!f->noise || !f->max_sample || !f->hw_count || !f->nmi_count)
		lacks = "ftrace/osnoise: noise, max_sample, hw_count or nmi_count";
	if (lacks)
		return error("hwnoise: the event lacks %s", lacks);
	return 0;
}

int lw_hwnoise_gap(const struct lw_hwn_format *f, const struct tep_record *rec,
		   struct lw_hwn_gap *g)
{
	unsigned long long dur, intf;

	if (tep_read_number_field(f->duration, rec->data, &dur) ||
	    tep_read_number_field(f->interference, rec->data, &intf))
		return -1;
	g->ts = rec->ts;
	g->cpu = rec->cpu;
	g->duration_ns = dur;
	g->interference = intf;
	return 0;
}

int lw_hwnoise_nmi(const struct lw_hwn_format *f, const struct tep_record *rec,
		   struct lw_hwn_nmi *n)
{
	unsigned long long dur;

	if (tep_read_number_field(f->nmi_duration, rec->data, &dur) || dur > rec->ts)
		return -1;
	n->cpu = rec->cpu;
	n->ns = dur;
	n->start_ns = rec->ts - dur;
	return 0;
}

/* An optional field (runtime, irq/softirq/thread counts): 0 when absent. */
static int opt_field(struct tep_format_field *fl, const struct tep_record *rec,
		     unsigned long long *v)
{
	*v = 0;
	return fl ? tep_read_number_field(fl, rec->data, v) : 0;
}

int lw_hwnoise_period(const struct lw_hwn_format *f, const struct tep_record *rec,
		      struct lw_hwn_cpu *c)
{
	unsigned long long noise, rt, mx, hw, nmi, irq, sirq, thr;

	if (tep_read_number_field(f->noise, rec->data, &noise) ||
	    tep_read_number_field(f->max_sample, rec->data, &mx) ||
	    tep_read_number_field(f->hw_count, rec->data, &hw) ||
	    tep_read_number_field(f->nmi_count, rec->data, &nmi) ||
	    opt_field(f->runtime, rec, &rt) || opt_field(f->irq_count, rec, &irq) ||
	    opt_field(f->softirq_count, rec, &sirq) || opt_field(f->thread_count, rec, &thr))
		return -1;
	c->periods++;
	c->runtime_us += rt;
	c->noise_us += noise;
	if (mx > c->max_single_us)
		c->max_single_us = mx;
	c->hw += hw;
	c->nmi += nmi;
	c->irq += irq;
	c->softirq += sirq;
	c->thread += thr;
	return 0;
}

int lw_hwnoise_sample(const struct lw_hwn_gap *g, struct lw_sample *s)
{
	if (g->duration_ns > g->ts)
		return 0;
	memset(s, 0, sizeof(*s));
	s->expected_ns = g->ts - g->duration_ns;
	s->latency_ns = g->duration_ns;
	s->cpu = (uint16_t)g->cpu;
	s->probe = LW_SAMPLE_HWNOISE;
	return 1;
}

/* ------------------------------------------------------------- participant */

struct hwnoise {
	struct lw_part part;
	struct lw_hwnoise_opts o;
	struct lw_run *run;
	struct lw_osn osn;
	struct lw_hwn_format fmt;
	struct lw_ring *ring;
	int active;
	int ncpus;
	struct lw_hwn_cpu *stat;	/* [ncpus] */
	struct lw_hwn_nmi *nmi;		/* [LW_HWN_NMIS] */
	size_t nnmi;
	uint64_t nmi_more;		/* NMIs past LW_HWN_NMIS */
	int *kthread;			/* [ncpus]: osnoise/N's pid, 0 unknown */
	uint64_t over;			/* gaps above --threshold */
	uint64_t unplaced, read_errors;
	_Atomic uint64_t max_live;
};

static void on_event(void *ctx, struct tep_event *ev, struct tep_record *rec)
{
	struct hwnoise *h = ctx;
	struct lw_run *run = h->run;
	struct lw_hwn_gap g;
	struct lw_sample s;

	if (rec->cpu < 0 || rec->cpu >= h->ncpus)
		return;
	if (ev->id == h->fmt.period_id) {
		if (lw_hwnoise_period(&h->fmt, rec, &h->stat[rec->cpu]) < 0)
			h->read_errors++;
		return;
	}
	if (ev->id == h->fmt.nmi_id) {
		struct lw_hwn_nmi n;

		if (lw_hwnoise_nmi(&h->fmt, rec, &n) < 0)
			h->read_errors++;
		else if (h->nnmi < LW_HWN_NMIS)
			h->nmi[h->nnmi++] = n;
		else
			h->nmi_more++;
		return;
	}
	if (ev->id != h->fmt.gap_id)
		return;
	if (lw_hwnoise_gap(&h->fmt, rec, &g) < 0) {
		h->read_errors++;
		return;
	}
	if (!lw_hwnoise_sample(&g, &s)) {
		h->unplaced++;
		return;
	}
	if (h->o.threshold_ns && s.latency_ns > h->o.threshold_ns) {
		s.flags |= LW_SAMPLE_OVER_THRESHOLD;
		lw_probe_spike(run, s.probe, g.cpu, s.expected_ns, s.latency_ns);
		h->over++;
	}
	lw_ring_push(h->ring, &s);
	lw_ust_probe_sample(s.probe, g.cpu, s.expected_ns, s.latency_ns);
	h->stat[g.cpu].gaps++;
	if (s.latency_ns > h->stat[g.cpu].gaps_max_ns)
		h->stat[g.cpu].gaps_max_ns = s.latency_ns;
	if (s.latency_ns > atomic_load_explicit(&h->max_live, memory_order_relaxed))
		atomic_store_explicit(&h->max_live, s.latency_ns, memory_order_relaxed);
	if (h->o.break_ns && s.latency_ns > h->o.break_ns && !lw_run_stopping(run)) {
		char why[112];

		snprintf(why, sizeof(why), "hwnoise: cpu %d gap %lluns above %lluns", g.cpu,
			 (unsigned long long)s.latency_ns, (unsigned long long)h->o.break_ns);
		lw_run_threshold(run, &s, why);
	}
}

/* The osnoise/N kernel threads (they exist once the tracer runs): their
 * pids for the manifest, so that analyze knows the loop's thread. */
static void find_kthreads(struct hwnoise *h)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

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
		    sscanf(comm, "osnoise/%d", &cpu) != 1 || cpu < 0 || cpu >= h->ncpus ||
		    !CPU_ISSET(cpu, &h->o.cpus))
			continue;
		h->kthread[cpu] = (int)pid;
	}
	closedir(d);
}

static int setup(struct lw_run *run, struct hwnoise *h)
{
	static const char *const formats[] = {
		"osnoise/sample_threshold", "osnoise/nmi_noise", "ftrace/osnoise", NULL,
	};
	char cpus[256], period[32], runtime[32], path[4096], opts[1024], thr[32];
	const struct lw_osn_knob knobs[] = {
		/* runtime first: the kernel refuses a runtime above the period */
		{ "osnoise/runtime_us",            "1",     0 },
		{ "osnoise/period_us",             period,  0 },
		{ "osnoise/runtime_us",            runtime, 0 },
		{ "osnoise/cpus",                  cpus,    0 },
		{ "osnoise/stop_tracing_us",       "0",     1 },
		{ "osnoise/stop_tracing_total_us", "0",     1 },
		{ "tracing_thresh",                thr,     0 },
	};
	int max_cpu = 0;

	if (lw_osn_options(&h->osn, opts, sizeof(opts)) < 0 ||
	    lw_osn_path(&h->osn, "osnoise/options", path, sizeof(path)) < 0)
		return -1;
	switch (lw_osn_flag(opts, "OSNOISE_IRQ_DISABLE")) {
	case -1:
		return error("hwnoise: the kernel's osnoise tracer has no OSNOISE_IRQ_DISABLE "
			     "option (Linux 6.4 on)");
	case 0:
		if (lw_knob_write_undo(&run->knobs, path, "OSNOISE_IRQ_DISABLE",
				       "NO_OSNOISE_IRQ_DISABLE") < 0)
			return -1;
		break;
	default:
		break;		/* set already: left so */
	}
	lw_format_cpulist(&h->o.cpus, cpus, sizeof(cpus));
	snprintf(period, sizeof(period), "%llu", (unsigned long long)(h->o.period_ns / 1000));
	snprintf(runtime, sizeof(runtime), "%llu", (unsigned long long)(h->o.runtime_ns / 1000));
	snprintf(thr, sizeof(thr), "%llu", (unsigned long long)(h->o.gap_threshold_ns / 1000));
	if (lw_osn_knobs(run, &h->osn, knobs, sizeof(knobs) / sizeof(knobs[0])) < 0 ||
	    lw_osn_open(run, &h->osn, BUFFER_KB, formats) < 0 ||
	    lw_hwnoise_format(h->osn.tep, &h->fmt) < 0 ||
	    lw_osn_enable(&h->osn, "osnoise", "sample_threshold") < 0 ||
	    lw_osn_enable(&h->osn, "osnoise", "nmi_noise") < 0)
		return -1;

	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &h->o.cpus))
			max_cpu = c;
	h->ncpus = max_cpu + 1;
	h->stat = calloc((size_t)h->ncpus, sizeof(*h->stat));
	h->kthread = calloc((size_t)h->ncpus, sizeof(*h->kthread));
	h->nmi = calloc(LW_HWN_NMIS, sizeof(*h->nmi));
	if (!h->stat || !h->kthread || !h->nmi)
		return error("out of memory");
	h->ring = lw_run_ring(run, RING_SAMPLES);
	if (!h->ring)
		return -1;
	if (lw_osn_tracer(&h->osn, "osnoise") < 0)
		return -1;
	find_kthreads(h);
	return lw_osn_start(&h->osn);
}

static int hwnoise_start(struct lw_run *run, struct lw_part *p)
{
	struct hwnoise *h = p->priv;

	h->run = run;
	/* the loop holds its CPUs with interrupts off a second at a time */
	lw_threads_off(&h->o.cpus);
	lw_osn_remove_stale(&h->osn);
	if (setup(run, h) < 0) {
		lw_osn_close(&h->osn);
		return -1;
	}
	h->active = 1;
	return 0;
}

static void hwnoise_stop(struct lw_run *run, struct lw_part *p)
{
	struct hwnoise *h = p->priv;

	(void)run;
	if (!h->active)
		return;
	lw_osn_stop(&h->osn);
	lw_osn_close(&h->osn);
}

static int hwnoise_finish(struct lw_run *run, struct lw_part *p)
{
	struct hwnoise *h = p->priv;
	json_t *probes = lw_json_object_at(run->dir.manifest, "probes");
	json_t *cpus = json_array(), *threads = json_array();
	char list[256];

	if (!h->active)
		return 0;
	for (int c = 0; c < h->ncpus; c++) {
		const struct lw_hwn_cpu *st = &h->stat[c];

		if (!CPU_ISSET(c, &h->o.cpus))
			continue;
		json_array_append_new(cpus, json_pack(
			"{s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			"cpu", c,
			"periods", (json_int_t)st->periods,
			"runtime_us", (json_int_t)st->runtime_us,
			"noise_us", (json_int_t)st->noise_us,
			"max_single_us", (json_int_t)st->max_single_us,
			"hw_count", (json_int_t)st->hw,
			"nmi_count", (json_int_t)st->nmi,
			"irq_count", (json_int_t)st->irq,
			"softirq_count", (json_int_t)st->softirq,
			"thread_count", (json_int_t)st->thread,
			"gaps", (json_int_t)st->gaps,
			"gaps_max_ns", (json_int_t)st->gaps_max_ns));
		if (h->kthread[c] > 0) {
			json_t *t = json_pack("{s:i, s:i}", "cpu", c, "tid", h->kthread[c]);

			/* the ring is shared: its losses are known per CPU only
			 * when there were none */
			if (!atomic_load(&h->ring->dropped))
				json_object_set_new(t, "dropped", json_integer(0));
			json_array_append_new(threads, t);
		}
	}
	json_object_set_new(probes, "hwnoise", json_pack(
		"{s:b, s:{s:i}, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:b, s:I, s:I, s:I, s:s,"
		" s:o, s:o}",
		"ran", 1,
		"probe_ids", "gap", LW_SAMPLE_HWNOISE,
		"tracer", "osnoise",
		"options", "OSNOISE_IRQ_DISABLE",
		"instance", h->osn.name,
		"trace_clock", "mono",
		"period_ns", (json_int_t)h->o.period_ns,
		"runtime_ns", (json_int_t)h->o.runtime_ns,
		"gap_threshold_ns", (json_int_t)h->o.gap_threshold_ns,
		"threshold_ns", (json_int_t)h->o.threshold_ns,
		"break_ns", (json_int_t)h->o.break_ns,
		"lost_events_unknown", h->osn.lost_unknown > 0,
		"lost_events", (json_int_t)lw_osn_losses(&h->osn),
		"dropped", (json_int_t)atomic_load(&h->ring->dropped),
		"read_errors", (json_int_t)(h->read_errors + h->osn.read_errors + h->unplaced),
		"policy", "SCHED_OTHER",
		"threads", threads,
		"per_cpu", cpus));
	{
		json_t *nm = json_array();

		for (size_t i = 0; i < h->nnmi; i++)
			json_array_append_new(nm, json_pack("{s:i, s:I, s:I}", "cpu", h->nmi[i].cpu,
				"start_ns", (json_int_t)h->nmi[i].start_ns,
				"ns", (json_int_t)h->nmi[i].ns));
		json_object_set_new(json_object_get(probes, "hwnoise"), "nmis", nm);
		json_object_set_new(json_object_get(probes, "hwnoise"), "nmis_not_kept",
				    json_integer((json_int_t)h->nmi_more));
	}
	json_object_set_new(json_object_get(probes, "hwnoise"), "cpus",
			    json_string(lw_format_cpulist(&h->o.cpus, list, sizeof(list))));
	json_object_set_new(json_object_get(probes, "hwnoise"), "expected_ns",
		json_string("event timestamp (mono trace clock) minus the gap's duration"));
	if (lw_osn_losses(&h->osn) || h->osn.lost_unknown)
		warning("hwnoise: %llu events lost in %s (the reader fell behind)",
			(unsigned long long)lw_osn_losses(&h->osn), h->osn.name);
	return 0;
}

static void hwnoise_progress(struct lw_run *run, struct lw_part *p, char *buf, size_t len)
{
	struct hwnoise *h = p->priv;

	(void)run;
	if (h->active)
		snprintf(buf, len, "hwnoise max %.1fus", (double)atomic_load(&h->max_live) / 1e3);
	else if (len)
		buf[0] = 0;
}

static void hwnoise_destroy(struct lw_part *p)
{
	struct hwnoise *h = p->priv;

	lw_osn_close(&h->osn);
	free(h->stat);
	free(h->kthread);
	free(h->nmi);
	free(h);
}

struct lw_part *lw_hwnoise_new(const struct lw_hwnoise_opts *o)
{
	struct hwnoise *h = calloc(1, sizeof(*h));

	if (!h) {
		error("out of memory");
		return NULL;
	}
	h->o = *o;
	h->osn = (struct lw_osn){ .who = "hwnoise", .prefix = INSTANCE_PREFIX, .cpus = o->cpus,
				  .on_event = on_event, .ctx = h };
	h->part = (struct lw_part){
		.name = "hwnoise",
		.start = hwnoise_start,
		.stop = hwnoise_stop,
		.finish = hwnoise_finish,
		.progress = hwnoise_progress,
		.destroy = hwnoise_destroy,
		.priv = h,
	};
	return &h->part;
}

/*
 * Where the kernel's osnoise tracer has OSNOISE_IRQ_DISABLE: the isolated or
 * nohz_full CPUs, else the last measured CPU, given to it alone (its loop
 * holds the CPU with interrupts off).  It is never in the default set, and
 * is refused beside timerlat (the osnoise tracers run one at a time) and
 * beside noise (a CPU's loop each).
 */
static int hwnoise_plan(const struct lw_probe *d, struct lw_probe_plan *p,
			const struct lw_plan_ctx *c)
{
	const struct lw_probe_env *env = c->env;
	struct lw_probe_want *w = &p->want[d->index];
	char a[256], b[256];

	if (!env->have_hwnoise) {
		snprintf(w->skipped, sizeof(w->skipped), "%s",
			 env->no_hwnoise[0] ? env->no_hwnoise : "not available");
		return error("--probes hwnoise: %s", w->skipped);
	}
	if (c->o->probes & LW_PROBES_TIMERLAT)
		return error("--probes: hwnoise and timerlat both need the kernel's osnoise "
			     "tracers, which run one at a time; choose one");
	if (*c->want & LW_PROBES_NOISE)
		return error("--probes: hwnoise and noise each take a CPU for a loop of their "
			     "own; choose one");
	if (!w->param[0])
		w->param[0] = LW_HWNOISE_THRESHOLD_NS;
	if (CPU_COUNT(&env->isolated)) {
		CPU_AND(&w->cpus, &env->isolated, c->cpus);
	} else {
		CPU_ZERO(&w->cpus);
		CPU_SET(lw_cpuset_last(c->cpus), &w->cpus);
	}
	if (!CPU_COUNT(&w->cpus))
		CPU_SET(lw_cpuset_last(c->cpus), &w->cpus);
	if (CPU_EQUAL(&w->cpus, &env->online) || CPU_COUNT(&env->online) < 2)
		return error("--probes hwnoise: cpu %s would take every online CPU (%s) with "
			     "interrupts off; leave at least one for housekeeping",
			     lw_format_cpulist(&w->cpus, a, sizeof(a)),
			     lw_format_cpulist(&env->online, b, sizeof(b)));
	return 1;
}

static const char *hwnoise_given(const struct lw_probe_opts *o)
{
	return o->hwnoise_threshold_ns ? "--hwnoise-threshold" : NULL;
}

static struct lw_part *hwnoise_create(const struct lw_probe_plan *p,
				      const struct lw_probe_common *c,
				      const struct lw_probe_env *env)
{
	struct lw_hwnoise_opts ho = {
		.cpus = p->want[LW_PROBE_INDEX_HWNOISE].cpus,
		.period_ns = LW_HWNOISE_PERIOD_NS, .runtime_ns = LW_HWNOISE_RUNTIME_NS,
		.gap_threshold_ns = p->want[LW_PROBE_INDEX_HWNOISE].param[0],
		.threshold_ns = c->threshold_ns, .break_ns = c->break_ns,
	};

	(void)env;
	return lw_hwnoise_new(&ho);
}

const struct lw_probe lw_probe_hwnoise = {
	.name = "hwnoise", .index = LW_PROBE_INDEX_HWNOISE, .bit = LW_PROBES_HWNOISE,
	.samples = { LW_SAMPLE_HWNOISE }, .cpus_rule = LW_PROBE_CPUS_ALONE,
	.given = hwnoise_given, .plan = hwnoise_plan, .create = hwnoise_create,
	.help = "",
	.params = {
		{ .option = "--hwnoise-threshold",
		  .offset = offsetof(struct lw_probe_opts, hwnoise_threshold_ns),
		  .parse = lw_parse_hwnoise_threshold,
		  .help =
"      --hwnoise-threshold US  a gap of the hwnoise loop (interrupts off)\n"
"                          longer than US is a sample (whole us, default 5)\n" },
	},
};
