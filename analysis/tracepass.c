// SPDX-License-Identifier: GPL-2.0-only
#include <event-parse.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/attrib.h"
#include "analysis/codeloc.h"
#include "analysis/hostadj.h"
#include "analysis/sample_merge.h"
#include "analysis/tasks.h"
#include "lib/trace_read.h"
#include "lib/tracedat.h"
#include "analysis/runstate.h"
#include "analysis/tracepass.h"
#include "boards/board.h"
#include "lib/error.h"
#include "lib/metrics.h"
#include "lib/safefile.h"
#include "lib/samples.h"
#include "lib/sort.h"
#include "lib/stats.h"
#include "lib/steal.h"
#include "lib/sysinfo.h"
#include "workloads/rkind.h"

#define MAX_STATES 16
#define STATE_BUSY (-1)
#define STATE_UNKNOWN (-2)

struct idle_table {
	int ncpus;
	char name[1024][MAX_STATES][24];
	uint64_t exit_ns[1024][MAX_STATES];
	unsigned char declared[1024][MAX_STATES];	/* the state gives an exit latency */
};

static uint64_t exit_latency(void *ctx, int cpu, int state)
{
	struct idle_table *t = ctx;

	if (cpu < 0 || cpu >= 1024 || state < 0 || state >= MAX_STATES || !t->declared[cpu][state])
		return LW_EXIT_LATENCY_NONE;
	return t->exit_ns[cpu][state];
}

static const char *state_name(void *ctx, int cpu, int state)
{
	struct idle_table *t = ctx;

	if (cpu < 0 || cpu >= 1024 || state < 0 || state >= MAX_STATES || !t->name[cpu][state][0])
		return NULL;
	return t->name[cpu][state];
}

/* A state without a cpuidle name (no cpuidle driver: the kernel's default
 * idle still traces its index) is named by that index. */
static const char *state_label(const struct idle_table *t, int cpu, int state, char *buf, size_t len)
{
	const char *n = state_name((void *)t, cpu, state);

	if (n)
		return n;
	snprintf(buf, len, "state%d", state);
	return buf;
}

static void load_idle_table(struct idle_table *t, const json_t *m)
{
	json_t *cpus = json_object_get(json_object_get(json_object_get(m, "system"), "cpuidle"), "cpus");
	json_t *c, *st;
	size_t i, j;

	json_array_foreach(cpus, i, c) {
		json_int_t cpu = json_integer_value(json_object_get(c, "cpu"));

		if (cpu < 0 || cpu >= 1024)
			continue;
		json_array_foreach(json_object_get(c, "states"), j, st) {
			if (j >= MAX_STATES)
				break;
			json_t *lat = json_object_get(st, "exit_latency_us");

			snprintf(t->name[cpu][j], sizeof(t->name[cpu][j]), "%s",
				 json_string_value(json_object_get(st, "name")) ?: "");
			t->declared[cpu][j] = json_is_integer(lat) && json_integer_value(lat) >= 0;
			t->exit_ns[cpu][j] = t->declared[cpu][j] ?
					     (uint64_t)json_integer_value(lat) * 1000 : 0;
		}
	}
}

/* A sample as the idle-state statistics need it: 16 bytes, written aside in
 * time order to a scratch file while the trace is read.  The latency is
 * whole: a stall of seconds is seconds here too (it was once held in 32
 * bits and read 4294967.3 us for any stall past 4.29 s). */
struct point {
	uint64_t latency;	/* ns */
	uint16_t cpu;
	uint8_t probe;
	int8_t state;		/* idle state at expected time; STATE_BUSY; STATE_UNKNOWN */
	uint32_t zero;		/* no padding of undefined bytes in the file */
};

/* ---- NO_HZ accounting ------------------------------------------------- */

#define MAX_SOURCES 64

struct source { const char *name; uint64_t count; };

struct nohz_cpu {
	int idle;		/* in an idle state now */
	int waiting;		/* entered idle, wake-up cause not seen yet */
	uint64_t idle_since, idle_ns, first, last;
	uint64_t ticks_idle, ticks_busy;
	uint64_t stop_ok, stop_kept, dep[8];
	uint64_t wakeups;
	struct source src[MAX_SOURCES];
	int nsrc;
	char (*names)[64];	/* storage for source names */
};

static const char *const tick_dep_names[] = {
	"POSIX_TIMER", "PERF_EVENTS", "SCHED", "CLOCK_UNSTABLE", "RCU", "RCU_EXP",
};

static void wake_source(struct nohz_cpu *n, const char *kind, const char *what)
{
	char label[64];
	int i;

	if (!n->waiting)
		return;
	n->waiting = 0;
	n->wakeups++;
	snprintf(label, sizeof(label), "%s:%s", kind, what ? what : "?");
	for (i = 0; i < n->nsrc; i++)
		if (!strcmp(n->names[i], label))
			break;
	if (i == n->nsrc) {
		if (n->nsrc == MAX_SOURCES) {
			i = MAX_SOURCES - 1;
			snprintf(n->names[i], 64, "other");
		} else {
			snprintf(n->names[i], 64, "%s", label);
			n->src[i].name = n->names[i];
			n->nsrc++;
		}
	}
	n->src[i].count++;
}

static int is_tick_fn(const char *fn)
{
	return fn && (!strcmp(fn, "tick_nohz_handler") || !strcmp(fn, "tick_sched_timer") ||
		      !strcmp(fn, "tick_nohz_highres_handler"));
}

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

/* ---- the pass ------------------------------------------------------------ */

/* x86 interrupt vectors that never pass through irq_handler_entry: the
 * local timer, IPIs, irq_work.  The local timer's wake-ups are named by the
 * hrtimer callbacks it runs, the others by their vector. */
static const char *const vectors[] = {
	"local_timer", "reschedule", "call_function", "call_function_single", "irq_work",
	"x86_platform_ipi", "thermal_apic", "threshold_apic", "deferred_error_apic",
	"spurious_apic", "error_apic", "reboot",
};
#define NVEC (sizeof(vectors) / sizeof(vectors[0]))

struct ids {
	int sw, waking, wakeup, irq_in, irq_out, sirq_in, sirq_out, hrt_in, hrt_out, idle, tick_stop,
	    freq, migrate, ipi_in, ipi_out, kstack;
	int sect_off[LW_SECT_KINDS], sect_on[LW_SECT_KINDS];	/* preemptirq */
	int vec_in[NVEC], vec_out[NVEC];
	int vec_min, vec_max;	/* range of their ids, to skip the search */
};

static void find_ids(struct lw_trace *t, struct ids *d)
{
	d->sw = lw_trace_event_id(t, "sched", "sched_switch");
	d->waking = lw_trace_event_id(t, "sched", "sched_waking");
	d->kstack = lw_trace_event_id(t, "ftrace", "kernel_stack");
	d->sect_off[LW_SECT_IRQS] = lw_trace_event_id(t, "preemptirq", "irq_disable");
	d->sect_on[LW_SECT_IRQS] = lw_trace_event_id(t, "preemptirq", "irq_enable");
	d->sect_off[LW_SECT_PREEMPT] = lw_trace_event_id(t, "preemptirq", "preempt_disable");
	d->sect_on[LW_SECT_PREEMPT] = lw_trace_event_id(t, "preemptirq", "preempt_enable");
	d->wakeup = lw_trace_event_id(t, "sched", "sched_wakeup");
	d->irq_in = lw_trace_event_id(t, "irq", "irq_handler_entry");
	d->irq_out = lw_trace_event_id(t, "irq", "irq_handler_exit");
	d->sirq_in = lw_trace_event_id(t, "irq", "softirq_entry");
	d->sirq_out = lw_trace_event_id(t, "irq", "softirq_exit");
	d->hrt_in = lw_trace_event_id(t, "timer", "hrtimer_expire_entry");
	d->hrt_out = lw_trace_event_id(t, "timer", "hrtimer_expire_exit");
	d->idle = lw_trace_event_id(t, "power", "cpu_idle");
	d->tick_stop = lw_trace_event_id(t, "timer", "tick_stop");
	d->freq = lw_trace_event_id(t, "power", "cpu_frequency");
	d->migrate = lw_trace_event_id(t, "sched", "sched_migrate_task");
	d->ipi_in = lw_trace_event_id(t, "ipi", "ipi_entry");
	d->ipi_out = lw_trace_event_id(t, "ipi", "ipi_exit");
	d->vec_min = INT_MAX;
	d->vec_max = -1;
	for (size_t i = 0; i < NVEC; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%s_entry", vectors[i]);
		d->vec_in[i] = lw_trace_event_id(t, "irq_vectors", name);
		snprintf(name, sizeof(name), "%s_exit", vectors[i]);
		d->vec_out[i] = lw_trace_event_id(t, "irq_vectors", name);
		for (int k = 0; k < 2; k++) {
			int id = k ? d->vec_out[i] : d->vec_in[i];

			if (id < 0)
				continue;
			d->vec_min = id < d->vec_min ? id : d->vec_min;
			d->vec_max = id > d->vec_max ? id : d->vec_max;
		}
	}
}

/* The vector of an irq_vectors event id: index, entry (1) or exit (0); -1. */
static int vector_of(const struct ids *d, int id, int *entry)
{
	if (id < d->vec_min || id > d->vec_max)
		return -1;
	for (size_t i = 0; i < NVEC; i++)
		if (id == d->vec_in[i] || id == d->vec_out[i]) {
			*entry = id == d->vec_in[i];
			return (int)i;
		}
	return -1;
}

/* hrtimer callbacks are few: a direct-mapped cache saves the symbol search */
struct fn_cache { uint64_t addr; const char *name; };
#define FN_CACHE 256
/* Functions the trace has no symbol for (a trace without kallsyms): named
 * unknown-fn-N by first appearance, never by their address, which would put
 * kernel text addresses (KASLR's offset) in a 0644 analysis.json and report. */
#define FN_UNKNOWN 1024
struct fn_unknown { uint64_t addr[FN_UNKNOWN]; unsigned num[FN_UNKNOWN], n; };

static const char *function_name(struct lw_trace *t, const struct lw_trace_event *ev,
				 struct fn_cache *cache, struct fn_unknown *unk, char *buf,
				 size_t len)
{
	struct fn_cache *c;
	uint64_t addr;
	const char *fn;
	unsigned i, h;

	if (lw_trace_u64(t, ev, "function", &addr) < 0)
		return "?";
	c = &cache[(addr >> 4) % FN_CACHE];
	if (c->addr == addr && c->name)
		return c->name;
	fn = tep_find_function(lw_trace_tep(t), addr);
	if (fn) {
		c->addr = addr;
		c->name = fn;
	}
	if (fn)
		return fn;
	/* open addressing, by the address; a full table: unknown-fn */
	h = (unsigned)((addr >> 4) * 2654435761u) % FN_UNKNOWN;
	for (i = 0; i < FN_UNKNOWN; i++, h = (h + 1) % FN_UNKNOWN) {
		if (unk->addr[h] == addr)
			break;
		if (!unk->addr[h]) {
			unk->addr[h] = addr;
			unk->num[h] = ++unk->n;
			break;
		}
	}
	if (i == FN_UNKNOWN || !addr)
		return "unknown-fn";
	snprintf(buf, len, "unknown-fn-%u", unk->num[h]);
	return buf;
}

static const char *str_field(struct lw_trace *t, const struct lw_trace_event *ev, const char *f,
			     char *buf, size_t len)
{
	size_t n;
	const char *s = lw_trace_str(t, ev, f, &n);

	if (!s)
		return "?";
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return buf;
}

/* Thread ids and kernel priorities of the probes, from the manifest: the
 * probes' threads[], or for a workload's samples (audio) the threads its
 * record kind names (the audio workloads' streams[]). */
static void probe_threads(const json_t *m, unsigned probe, int cpu, int *tid, int *kprio)
{
	const struct lw_rkind *rk = lw_rkind_of_probe((int)probe);

	if (rk) {
		const json_t *w, *st;
		const char *key;
		size_t i;

		*tid = -1;
		*kprio = -1;
		json_object_foreach((json_t *)json_object_get(m, "workloads"), key, w) {
			const char *kind = json_string_value(json_object_get(w, "kind"));

			if (!kind || strcmp(kind, rk->kind) || !rk->threads_key)
				continue;
			json_array_foreach(json_object_get(w, rk->threads_key), i, st)
				if (json_integer_value(json_object_get(st, "cpu")) == cpu &&
				    json_integer_value(json_object_get(st, "tid")) > 0) {
					json_int_t prio = json_integer_value(json_object_get(st, "priority"));

					*tid = (int)json_integer_value(json_object_get(st, "tid"));
					*kprio = prio > 0 && prio < 100 ? 99 - (int)prio : 120;
					return;	/* several streams on one CPU: the first */
				}
		}
		return;
	}

	json_t *p = json_object_get(json_object_get(m, "probes"), lw_probe_name(probe));
	json_t *th;
	size_t i;
	const char *policy = json_string_value(json_object_get(p, "policy"));
	json_int_t prio = json_integer_value(json_object_get(p, "priority"));

	*tid = -1;
	*kprio = -1;
	json_array_foreach(json_object_get(p, "threads"), i, th)
		if (json_integer_value(json_object_get(th, "cpu")) == cpu &&
		    json_is_integer(json_object_get(th, "tid")))
			*tid = (int)json_integer_value(json_object_get(th, "tid"));
	if (policy && !strcmp(policy, "SCHED_OTHER"))
		*kprio = 120;
	else if (prio > 0 && prio < 100)
		*kprio = 99 - (int)prio;
}

/* The spike threshold of @probe and where it comes from (see tracepass.h). */
static uint64_t spike_threshold(const json_t *m, const json_t *analysis,
				const struct lw_tracepass_opts *o, unsigned probe, char *src, size_t len)
{
	const char *name = lw_probe_name(probe);
	json_int_t run_thr = json_integer_value(json_object_get(json_object_get(
				json_object_get(m, "probes"), name), "threshold_ns"));
	const struct lw_budget *best = NULL;

	if (probe < 16 && o->threshold_ns[probe]) {
		snprintf(src, len, "--spike-threshold");
		return o->threshold_ns[probe];
	}
	if (run_thr > 0) {
		snprintf(src, len, "the run's --threshold");
		return (uint64_t)run_thr;
	}
	for (int k = 0; o->board && k < o->board->nbudget; k++) {
		const struct lw_budget *b = &o->board->budget[k];

		if (b->m->probe && b->limit > 0 && (!b->probe || !strcmp(b->probe, name)) &&
		    (!best || b->limit < best->limit))
			best = b;
	}
	if (best) {
		snprintf(src, len, "board %s latency budget (%s %s <= %.1f us)", o->board->name,
			 best->probe ? best->probe : "every probe", best->stat ? best->stat : "max",
			 best->limit);
		return (uint64_t)(best->limit * 1e3);
	}
	if (lw_probe_gaps(probe)) {
		snprintf(src, len, "every gap (no --threshold and no latency budget)");
		return 0;
	}
	snprintf(src, len, "p99.9 (no --threshold and no latency budget)");
	return (uint64_t)json_integer_value(json_object_get(json_object_get(json_object_get(
		json_object_get(analysis, "probes"), name), "all"), lw_stat_keys[LW_STAT_P999]));
}

/*
 * The latency side of the PM QoS trade-off.  PM QoS at Q us keeps the cpuidle
 * governor out of every state whose exit latency exceeds Q; a sample that
 * woke from such a state would have woken from the deepest state still
 * allowed, so its latency is taken as measured, less the exit latency of
 * the state it was in, plus that of the allowed one.  One point per distinct
 * exit latency, and one for no constraint (2000000000 us, the kernel's).
 */
#define PM_QOS_NONE 2000000000LL

static uint64_t qos_latency(const struct idle_table *it, const struct point *p, int64_t q)
{
	uint64_t lat = p->latency;

	if (p->state >= 0 && p->cpu < 1024 && (int64_t)(it->exit_ns[p->cpu][p->state] / 1000) > q) {
		uint64_t from = it->exit_ns[p->cpu][p->state], to = 0;

		for (int s2 = 0; s2 < MAX_STATES && it->name[p->cpu][s2][0]; s2++)
			if ((int64_t)(it->exit_ns[p->cpu][s2] / 1000) <= q && it->exit_ns[p->cpu][s2] > to)
				to = it->exit_ns[p->cpu][s2];
		lat = lat > from - to ? lat - (from - to) : 0;
	}
	return lat;
}

/*
 * Exact count, p50, p99, p99.9 and max of groups of the points, in memory
 * that does not depend on their number: a 1 us histogram per group from one
 * pass over the scratch file, then exact rank selection (lib/stats.h) in
 * further passes, as the summary does over RUN/samples.  A group per probe
 * and idle state, and one per PM QoS limit of the trade-off.
 */
#define GRP_BUCKETS 4096	/* 1 us up to 4 ms, beyond in the overflow: 32 KB */
#define NRANK 3
static const double grp_pct[NRANK] = { 50, 99, 99.9 };
#define NGRP (LW_SAMPLE_MAX * (MAX_STATES + 2) + MAX_STATES + 1)

struct grp {
	struct lw_hist h;
	struct lw_rank_sel sel[NRANK];
	int cpu;		/* of its first point: names the state */
};

struct idle_stats {
	FILE *f;		/* the points, in time order */
	uint64_t n;
	struct grp *idle[LW_SAMPLE_MAX][MAX_STATES + 2];	/* by state + 2 */
	int first_cpu;		/* of the first point */
	int pcpu[LW_SAMPLE_MAX];	/* of each probe's first point on a CPU < 1024; -1 */
	int has_cyclic, first_probe;
	/* the trade-off: its probe, its PM QoS limits (ascending), their groups */
	unsigned tprobe;
	int64_t q[MAX_STATES + 1];
	int nq;
	struct grp *trade[MAX_STATES + 1];
};

static int point_put(struct idle_stats *x, const struct lw_sample *s, int state)
{
	struct point p = { s->latency_ns, s->cpu, s->probe, (int8_t)state, 0 };

	if (!x->n)
		x->first_cpu = p.cpu;
	x->has_cyclic |= p.probe == LW_SAMPLE_CYCLIC;
	if (!x->first_probe)
		x->first_probe = p.probe;
	if (x->pcpu[p.probe] < 0 && p.cpu < 1024)
		x->pcpu[p.probe] = p.cpu;
	x->n++;
	if (fwrite(&p, sizeof(p), 1, x->f) != 1)
		return error_errno("cannot write the scratch file");
	return 0;
}

static struct grp *grp_new(int cpu)
{
	struct grp *g = calloc(1, sizeof(*g));

	if (!g || lw_hist_init(&g->h, 1000, GRP_BUCKETS) < 0) {
		free(g);
		error("out of memory");
		return NULL;
	}
	g->cpu = cpu;
	return g;
}

static void grp_free(struct grp *g)
{
	if (!g)
		return;
	for (int k = 0; k < NRANK; k++)
		lw_rank_sel_free(&g->sel[k]);
	lw_hist_free(&g->h);
	free(g);
}

static inline void grp_add(struct grp *g, uint64_t v, int pass)
{
	if (!pass) {
		lw_hist_add(&g->h, v, 0);
		return;
	}
	for (int k = 0; k < NRANK; k++)
		lw_rank_sel_add(&g->sel[k], v);
}

/* Every group that has points, in a list. */
static size_t grp_list(struct idle_stats *x, struct grp **all)
{
	size_t n = 0;

	for (unsigned p = 0; p < LW_SAMPLE_MAX; p++)
		for (int st = 0; st < MAX_STATES + 2; st++)
			if (x->idle[p][st])
				all[n++] = x->idle[p][st];
	for (int j = 0; j < x->nq; j++)
		if (x->trade[j])
			all[n++] = x->trade[j];
	return n;
}

/* One pass over the points: the histograms (@pass 0), or the selections. */
static int stats_pass(struct idle_stats *x, const struct idle_table *it, int pass)
{
	struct point buf[1024];
	size_t got;

	if (fflush(x->f) || fseeko(x->f, 0, SEEK_SET) < 0)
		return error_errno("cannot rewind the scratch file");
	while ((got = fread(buf, sizeof(*buf), sizeof(buf) / sizeof(*buf), x->f)) > 0)
		for (size_t i = 0; i < got; i++) {
			const struct point *p = &buf[i];
			struct grp **g;

			if (p->probe >= LW_SAMPLE_MAX || p->state < STATE_UNKNOWN || p->state >= MAX_STATES)
				return error("the scratch file changed under the analysis");
			g = &x->idle[p->probe][p->state + 2];
			if (!*g) {
				if (pass)
					return error("the scratch file changed under the analysis");
				*g = grp_new(p->cpu);
				if (!*g)
					return -1;
			}
			grp_add(*g, p->latency, pass);
			if (p->probe == x->tprobe)
				for (int j = 0; j < x->nq; j++)
					grp_add(x->trade[j], qos_latency(it, p, x->q[j]), pass);
		}
	if (ferror(x->f))
		return error_errno("cannot read the scratch file");
	return 0;
}

/* The trade-off's probe (the cyclic probe first, else that of the first
 * point) and its candidate limits: the exit latencies (us) of the states of
 * that probe's first CPU (boards have one idle-state table), ascending. */
static int tradeoff_setup(struct idle_stats *x, const struct idle_table *it)
{
	x->tprobe = x->has_cyclic ? LW_SAMPLE_CYCLIC : (unsigned)x->first_probe;
	if (!x->tprobe)
		return 0;
	x->q[x->nq++] = PM_QOS_NONE;
	for (int st = 0, cpu = x->pcpu[x->tprobe]; cpu >= 0 && st < MAX_STATES && it->name[cpu][st][0];
	     st++) {
		int64_t us = (int64_t)(it->exit_ns[cpu][st] / 1000);
		int seen = 0;

		for (int j = 0; j < x->nq; j++)
			seen |= x->q[j] == us;
		if (!seen && x->nq < MAX_STATES + 1)
			x->q[x->nq++] = us;
	}
	for (int a = 1; a < x->nq; a++)	/* ascending: the strictest limit first */
		for (int b = a; b > 0 && x->q[b - 1] > x->q[b]; b--) {
			int64_t t = x->q[b];

			x->q[b] = x->q[b - 1];
			x->q[b - 1] = t;
		}
	for (int j = 0; j < x->nq; j++)
		if (!(x->trade[j] = grp_new(-1)))
			return -1;
	return 0;
}

/* The histograms, then the passes that select the exact ranks. */
static int stats_compute(struct idle_stats *x, const struct idle_table *it)
{
	struct grp *all[NGRP];
	size_t n;

	if (tradeoff_setup(x, it) < 0 || stats_pass(x, it, 0) < 0)
		return -1;
	n = grp_list(x, all);
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < NRANK; k++)
			if (all[i]->h.total &&
			    lw_rank_sel_init(&all[i]->sel[k], &all[i]->h,
					     lw_pct_rank_n(all[i]->h.total, grp_pct[k])) < 0)
				return -1;
	for (int pass = 1;; pass++) {
		int open = 0;

		for (size_t i = 0; i < n; i++)
			for (int k = 0; k < NRANK; k++)
				open += all[i]->h.total && !all[i]->sel[k].done;
		if (!open)
			return 0;
		if (pass > 16)
			return error("idle-state percentiles: the selection did not converge");
		if (stats_pass(x, it, pass) < 0)
			return -1;
		for (size_t i = 0; i < n; i++)
			for (int k = 0; k < NRANK; k++)
				if (all[i]->h.total && lw_rank_sel_step(&all[i]->sel[k]) < 0)
					return error("idle-state percentiles: %s", lw_last_error());
	}
}

static void stats_free(struct idle_stats *x)
{
	struct grp *all[NGRP];
	size_t n;

	if (!x)
		return;
	n = grp_list(x, all);
	for (size_t i = 0; i < n; i++)
		grp_free(all[i]);
	if (x->f)
		fclose(x->f);
	free(x);
}

static json_t *idle_latency_json(const struct idle_stats *x, const struct idle_table *it)
{
	json_t *out = json_object();

	for (unsigned probe = 1; probe < LW_SAMPLE_MAX; probe++) {
		json_t *arr = NULL;

		for (int st = STATE_UNKNOWN; st < MAX_STATES; st++) {
			const struct grp *g = x->idle[probe][st + 2];
			char label[24];

			if (!g || !g->h.total)
				continue;
			if (!arr)
				arr = json_array();
			json_array_append_new(arr, json_pack("{s:s, s:i, s:I, s:I, s:I, s:I, s:I}",
				"state", st == STATE_BUSY ? "busy" : st == STATE_UNKNOWN ? "unknown" :
					 state_label(it, g->cpu, st, label, sizeof(label)),
				"index", st, "count", (json_int_t)g->h.total,
				"p50_ns", (json_int_t)g->sel[0].value, "p99_ns", (json_int_t)g->sel[1].value,
				"p99.9_ns", (json_int_t)g->sel[2].value, "max_ns", (json_int_t)g->h.max));
		}
		if (arr)
			json_object_set_new(out, lw_probe_name(probe), arr);
	}
	return out;
}

static json_t *tradeoff_json(const struct idle_stats *x, const struct idle_table *it)
{
	json_t *points;
	int c = x->first_cpu;

	if (!x->tprobe)
		return NULL;
	points = json_array();
	for (int j = 0; j < x->nq; j++) {
		const struct grp *g = x->trade[j];
		json_t *allowed = json_array();

		for (int s2 = 0; c < 1024 && s2 < MAX_STATES && it->name[c][s2][0]; s2++)
			if ((int64_t)(it->exit_ns[c][s2] / 1000) <= x->q[j])
				json_array_append_new(allowed, json_string(it->name[c][s2]));
		json_array_append_new(points, json_pack("{s:I, s:o, s:I, s:I, s:I, s:I, s:I, s:I}",
			"pm_qos_us", (json_int_t)x->q[j], "allowed_states", allowed,
			"count", (json_int_t)g->h.total, "p50_ns", (json_int_t)g->sel[0].value,
			"p99_ns", (json_int_t)g->sel[1].value, "p99.9_ns", (json_int_t)g->sel[2].value,
			"max_ns", (json_int_t)g->h.max, "latency_ns", (json_int_t)g->sel[2].value));
	}
	return json_pack("{s:s, s:s, s:s, s:o}", "probe", lw_probe_name(x->tprobe), "stat", "p99.9",
			 "model", "samples from a disallowed state wake from the deepest allowed one: "
			 "latency - exit latency of the state + exit latency of the allowed one",
			 "points", points);
}

static int cmp_source(const void *x, const void *y)
{
	const struct source *p = x, *q = y;

	return p->count < q->count ? 1 : p->count > q->count ? -1 : 0;
}

/*
 * A rate over too little time is not a rate: 2 ticks in 5.9 ms of idle read
 * 341.1 ticks/s, above the tick rate itself.  A rate is given over at least
 * LW_NOHZ_MIN_S of observed time, however many events (332 ticks in 0.28 s
 * of busy time read 1177 ticks/s, above HZ: over a short span the time's
 * own edges, cut at the trace's ends and by idle entries, weigh as much as
 * the count); else it is null, its count and time beside it.
 */
#define LW_NOHZ_MIN_S      1.0

int lw_nohz_rate_given(uint64_t count, double secs)
{
	(void)count;
	return secs >= LW_NOHZ_MIN_S;
}

static json_t *rate(uint64_t count, double secs)
{
	return lw_nohz_rate_given(count, secs) ? json_real((double)count / secs) : json_null();
}

static json_t *nohz_json(struct nohz_cpu *nz, int ncpus, uint64_t first, uint64_t last)
{
	json_t *cpus = json_array();
	double secs = last > first ? (double)(last - first) / 1e9 : 0;

	for (int c = 0; c < ncpus; c++) {
		struct nohz_cpu *n = &nz[c];
		json_t *deps = json_object(), *src = json_array();
		double idle_s = (double)n->idle_ns / 1e9, busy_s = secs - idle_s;

		if (!n->first)
			continue;
		for (int b = 0; b < 6; b++)
			if (n->dep[b])
				json_object_set_new(deps, tick_dep_names[b], json_integer((json_int_t)n->dep[b]));
		lw_qsort(n->src, (size_t)n->nsrc, sizeof(*n->src), cmp_source);
		for (int i = 0; i < n->nsrc && i < 12; i++)
			json_array_append_new(src, json_pack("{s:s, s:I, s:o}", "source", n->src[i].name,
				"count", (json_int_t)n->src[i].count,
				"per_s", rate(n->src[i].count, secs)));
		json_array_append_new(cpus, json_pack("{s:i, s:f, s:f, s:I, s:I, s:o, s:o, s:{s:I, s:I, s:o}, s:I, s:o, s:o}",
			"cpu", c, "idle_s", idle_s, "busy_s", busy_s,
			"ticks_idle", (json_int_t)n->ticks_idle, "ticks_busy", (json_int_t)n->ticks_busy,
			"ticks_per_s_idle", rate(n->ticks_idle, idle_s),
			"ticks_per_s_busy", rate(n->ticks_busy, busy_s),
			"tick_stop", "stopped", (json_int_t)n->stop_ok, "kept", (json_int_t)n->stop_kept,
			"kept_by", deps,
			"wakeups", (json_int_t)n->wakeups,
			"wakeups_per_s", rate(n->wakeups, secs),
			"wakeup_sources", src));
	}
	return json_pack("{s:f, s:f, s:o}", "duration_s", secs, "rate_min_s", LW_NOHZ_MIN_S,
			 "cpus", cpus);
}

/* The trace windows of a monitored run (manifest "trace"."windows"), in
 * time order; none for a run traced throughout. */
struct twins {
	uint64_t (*w)[2];
	size_t n;
	int monitor;
};

static int twins_load(struct twins *tw, const json_t *manifest)
{
	const json_t *tr = json_object_get(manifest, "trace"), *ws = json_object_get(tr, "windows");
	const json_t *v;
	size_t i;

	memset(tw, 0, sizeof(*tw));
	if (!json_is_string(json_object_get(tr, "mode")) ||
	    strcmp(json_string_value(json_object_get(tr, "mode")), "monitor"))
		return 0;
	tw->monitor = 1;
	tw->w = calloc(json_array_size(ws) + 1, sizeof(*tw->w));
	if (!tw->w)
		return error("out of memory");
	json_array_foreach(ws, i, v) {
		uint64_t from = (uint64_t)json_integer_value(json_object_get(v, "from_ns"));
		uint64_t to = (uint64_t)json_integer_value(json_object_get(v, "to_ns"));

		/* a window out of order or inside out is left out, never trusted */
		if (to < from || (tw->n && from <= tw->w[tw->n - 1][1]))
			continue;
		tw->w[tw->n][0] = from;
		tw->w[tw->n][1] = to;
		tw->n++;
	}
	return 0;
}

/* Every stretch outside the windows has no trace. */
static int twins_gaps(const struct twins *tw, struct lw_attrib *a)
{
	uint64_t from = 0;

	if (!tw->monitor)
		return 0;
	for (size_t i = 0; i < tw->n; i++) {
		if (tw->w[i][0] > from && lw_attrib_add_untraced(a, from, tw->w[i][0] - 1) < 0)
			return -1;
		from = tw->w[i][1] + 1;
	}
	return lw_attrib_add_untraced(a, from, UINT64_MAX);
}

/* Is [from, to] inside one window? */
static int twins_hold(const struct twins *tw, uint64_t from, uint64_t to)
{
	for (size_t i = 0; i < tw->n; i++)
		if (from >= tw->w[i][0] && to <= tw->w[i][1])
			return 1;
	return 0;
}

/* An NMI the hwnoise probe's tracer saw (manifest probes.hwnoise.nmis). */
struct nmi {
	uint64_t from, to;
	int cpu;
};

static int nmi_cmp(const void *a, const void *b)
{
	const struct nmi *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

/* The NMIs of the manifest, sorted by start; NULL (and 0) when none. */
static struct nmi *nmis_load(const json_t *m, size_t *n)
{
	const json_t *arr = json_object_get(json_object_get(json_object_get(m, "probes"),
							    "hwnoise"), "nmis"), *v;
	struct nmi *out;
	size_t i;

	*n = 0;
	if (!json_array_size(arr) || !(out = calloc(json_array_size(arr), sizeof(*out))))
		return NULL;
	json_array_foreach(arr, i, v) {
		json_int_t cpu = json_integer_value(json_object_get(v, "cpu"));
		json_int_t from = json_integer_value(json_object_get(v, "start_ns"));
		json_int_t ns = json_integer_value(json_object_get(v, "ns"));

		if (cpu < 0 || from <= 0 || ns <= 0)
			continue;	/* not trusted */
		out[*n] = (struct nmi){ (uint64_t)from, (uint64_t)from + (uint64_t)ns, (int)cpu };
		(*n)++;
	}
	lw_qsort(out, *n, sizeof(*out), nmi_cmp);
	return out;
}

/* Time of @cpu's NMIs inside [from, to). */
static uint64_t nmi_in(const struct nmi *v, size_t n, int cpu, uint64_t from, uint64_t to)
{
	size_t lo = 0, hi = n;
	uint64_t ns = 0;

	while (lo < hi) {	/* the first starting at or after from - 1 ms */
		size_t mid = (lo + hi) / 2;

		if (v[mid].from + 1000000 < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && v[lo].from < to; lo++) {
		uint64_t a = v[lo].from > from ? v[lo].from : from;
		uint64_t b = v[lo].to < to ? v[lo].to : to;

		if (v[lo].cpu == cpu && b > a)
			ns += b - a;
	}
	return ns;
}

/* The spikes, from the samples in time order beside the trace. */
struct spike_pass {
	const struct twins *tw;
	uint64_t in_window;
	const struct lw_rundir *rd;
	struct lw_attrib *a;
	int ncpus;
	const uint64_t *thr;
	uint64_t *above;
	char (*noise_comm)[16];
	const struct nmi *nmis;		/* the hwnoise tracer's NMIs, by start */
	size_t nnmis;
	struct lw_misses *misses;
	/* the host's time per spike (lw_spike.host_ns), and its totals */
	struct lw_hostadj adj;
	uint64_t host_ns, host_spikes, steal_ns, steal_spikes;
	int adj_failed;
};

/* A spike's attribution is final; a deadline miss's window is. */
static void spike_done(void *ctx, const struct lw_spike *s)
{
	struct spike_pass *sp = ctx;

	if (s->work) {
		lw_misses_done(sp->misses, s);
		return;
	}
	sp->steal_ns += s->steal_ns;
	sp->steal_spikes += s->steal_ns > 0;
	if (!s->host_ns)
		return;
	sp->host_ns += s->host_ns;
	sp->host_spikes++;
	if (lw_hostadj_add(&sp->adj, s->index, s->host_ns) < 0)
		sp->adj_failed = 1;
}

static uint64_t steal_in(void *ctx, int cpu, uint64_t from, uint64_t to)
{
	return lw_steal_between(ctx, cpu, from, to);
}

/* @smp, the sample at record @idx, is a spike if above its threshold. */
static int spike_of(struct spike_pass *sp, const struct lw_sample *smp, uint64_t idx)
{
	struct lw_spike s;

	if (smp->probe >= LW_SAMPLE_MAX || smp->cpu >= sp->ncpus || smp->latency_ns <= sp->thr[smp->probe])
		return 0;
	s = (struct lw_spike){ .expected_ns = smp->expected_ns, .latency_ns = smp->latency_ns,
			       .cpu = smp->cpu, .probe = smp->probe, .index = idx };
	sp->above[smp->probe]++;
	if (sp->tw->monitor &&
	    twins_hold(sp->tw, smp->expected_ns, smp->expected_ns + smp->latency_ns))
		sp->in_window++;
	probe_threads(sp->rd->manifest, smp->probe, smp->cpu, &s.tid, &s.kprio);
	if (lw_probe_gaps(smp->probe)) {
		/* a gap: the loop ran through it; known by its name in runs that
		 * did not record its tid */
		s.gap = 1;
		s.irqs_off = lw_probe_irqs_off(smp->probe);
		if (s.irqs_off)
			s.nmi_ns = nmi_in(sp->nmis, sp->nnmis, smp->cpu, smp->expected_ns,
					  smp->expected_ns + smp->latency_ns);
		if (!sp->noise_comm[smp->cpu][0])
			lw_probe_loop_thread(smp->probe, smp->cpu, sp->noise_comm[smp->cpu],
					     sizeof(sp->noise_comm[smp->cpu]));
		s.comm = sp->noise_comm[smp->cpu];
	}
	return lw_attrib_add_spike(sp->a, &s);
}

/* The state of one trace pass, from its setup to its JSON. */
struct tpass {
	const struct lw_rundir *rd;
	json_t *analysis;
	const struct lw_tracepass_opts *o;
	char path[PATH_MAX], fnbuf[64], comm[32];
	struct fn_cache fns[FN_CACHE];	/* names live as long as @t */
	struct fn_unknown *unk;
	struct lw_trace *t;
	struct lw_sample_merge *mg;
	struct lw_attrib *a;
	struct idle_table *it;
	struct nohz_cpu *nz;
	struct idle_stats *x;
	uint64_t thr[LW_SAMPLE_MAX], above[LW_SAMPLE_MAX], first, last;
	char thr_src[LW_SAMPLE_MAX][128];
	char (*noise_comm)[16];
	struct nmi *nmis;
	struct lw_sample nx;		/* the next sample, record nxi; mr its reading */
	uint64_t nxi;
	int mr;
	struct spike_pass sp;
	size_t top;
	struct ids id;
	int ncpus, *cur_state;
	/* per CPU, what a kernel stack recorded next belongs to (run
	 * --stacks: the trigger's event comes right before it): the thread
	 * woken or switched to, and which (enum lw_stack_at; -1 none) */
	struct { int pid, at; } *sk;
	char where[192];
	/* per CPU and kind (LW_SECT_*), the preemptirq section open: since
	 * when (0: none) and its caller's offset from _stext; _stext from the
	 * trace's kernel symbols (stext_known: 0 not looked up, 1 found, -1 not) */
	struct { uint64_t from; int32_t offs; } (*sect)[LW_SECT_KINDS];
	uint64_t stext;
	int stext_known;
	unsigned char *smi_cpus;	/* per CPU: its SMI count moved during the run */
	struct twins tw;
	size_t twi;			/* the window the events are in */
	uint64_t untraced;		/* time between them */
	struct lw_steal steal;		/* RUN/steal, when the run has it */
	int has_steal, vm;
};

/* Phase 1: the trace opened, the tables, the attribution, the windows, the
 * spike thresholds, the samples' merge and the scratch file of idle states. */
static int tp_setup(struct tpass *p)
{
	const struct lw_rundir *rd = p->rd;
	struct idle_stats *x;
	int fd;

	p->t = lw_trace_open_run(rd->path, 0);
	if (!p->t)
		return -1;
	p->ncpus = lw_trace_cpus(p->t);
	p->it = calloc(1, sizeof(*p->it));
	p->unk = calloc(1, sizeof(*p->unk));
	p->nz = calloc((size_t)p->ncpus, sizeof(*p->nz));
	p->cur_state = malloc((size_t)p->ncpus * sizeof(*p->cur_state));
	p->sk = calloc((size_t)p->ncpus, sizeof(*p->sk));
	p->sect = calloc((size_t)p->ncpus, sizeof(*p->sect));
	p->smi_cpus = calloc((size_t)p->ncpus, 1);
	x = p->x = calloc(1, sizeof(*p->x));
	if (!p->it || !p->unk || !p->nz || !p->cur_state || !p->sk || !p->sect || !p->smi_cpus || !x)
		return error("out of memory");
	for (unsigned pr = 0; pr < LW_SAMPLE_MAX; pr++)
		x->pcpu[pr] = -1;
	for (int c = 0; c < p->ncpus; c++) {
		p->cur_state[c] = STATE_UNKNOWN;
		p->sk[c].at = -1;
		p->nz[c].names = calloc(MAX_SOURCES, 64);
		if (!p->nz[c].names)
			return error("out of memory");
	}
	load_idle_table(p->it, rd->manifest);
	p->sp = (struct spike_pass){ .tw = &p->tw, .rd = rd, .ncpus = p->ncpus, .thr = p->thr,
				     .above = p->above };
	struct lw_attrib_cfg cfg = { .ncpus = p->ncpus, .exit_latency = exit_latency,
				     .state_name = state_name, .ctx = p->it, .keep = p->top,
				     .done = spike_done, .done_ctx = &p->sp };
	char stealf[PATH_MAX];

	/* host interference: on a virtual machine, and the steal it reported */
	p->vm = cfg.vm = lw_sysinfo_is_vm(json_object_get(rd->manifest, "system"));
	p->has_steal = lw_steal_load(lw_rundir_file(rd, LW_STEAL_FILE, stealf, sizeof(stealf)),
				     &p->steal);
	if (p->has_steal < 0)
		return -1;
	if (p->has_steal) {
		cfg.steal = steal_in;
		cfg.steal_ctx = &p->steal;
	}
	/* the CPUs whose SMI count moved during the run (lib/smi.h) */
	{
		const json_t *c;
		size_t i;

		json_array_foreach(json_object_get(json_object_get(rd->manifest, "smi"), "cpus"), i, c) {
			json_int_t cpu = json_integer_value(json_object_get(c, "cpu"));

			if (cpu >= 0 && cpu < p->ncpus &&
			    json_integer_value(json_object_get(c, "count")) > 0)
				p->smi_cpus[cpu] = 1;
		}
		cfg.smi_cpus = p->smi_cpus;
	}

	if (p->o->workloads && !(p->sp.misses = lw_misses_new(p->o->workloads, rd->manifest)))
		return -1;
	p->a = p->sp.a = lw_attrib_new(&cfg);
	if (!p->a || twins_load(&p->tw, rd->manifest) < 0 || twins_gaps(&p->tw, p->a) < 0)
		return -1;

	for (unsigned pr = 1; pr < LW_SAMPLE_MAX; pr++)
		p->thr[pr] = spike_threshold(rd->manifest, p->analysis, p->o, pr, p->thr_src[pr],
					     sizeof(p->thr_src[pr]));
	p->noise_comm = calloc((size_t)p->ncpus, sizeof(*p->noise_comm));
	if (!p->noise_comm)
		return error("out of memory");
	p->sp.noise_comm = p->noise_comm;
	p->sp.nmis = p->nmis = nmis_load(rd->manifest, &p->sp.nnmis);

	/* every sample in time order beside the trace: the spikes, each as
	 * its window opens; the idle state of each sample, written aside */
	p->mg = lw_sample_merge_open(lw_rundir_file(rd, "samples", p->path, sizeof(p->path)),
				     lw_run_samples_flags(rd->manifest) | LW_SAMPLES_QUIET,
				     p->ncpus, NULL, NULL);
	if (!p->mg)
		return -1;
	fd = lw_tmpfile();
	if (fd < 0)
		return -1;
	x->f = fdopen(fd, "w+b");
	if (!x->f) {
		close(fd);
		return error_errno("cannot open the scratch file");
	}
	setvbuf(x->f, NULL, _IOFBF, 1 << 16);
	p->mr = lw_sample_merge_next(p->mg, &p->nx, &p->nxi);
	if (p->mr < 0)
		return -1;
	find_ids(p->t, &p->id);
	return 0;
}

/* An event past the saved window the events were in: what the last one said
 * of each CPU is stale, and the time between is not traced. */
static void tp_next_window(struct tpass *p, uint64_t ts)
{
	const struct twins *tw = &p->tw;
	struct nohz_cpu *nz = p->nz;
	uint64_t end = tw->w[p->twi][1];

	for (int c = 0; c < p->ncpus; c++) {
		if (nz[c].idle && end > nz[c].idle_since)
			nz[c].idle_ns += end - nz[c].idle_since;
		nz[c].idle = nz[c].waiting = 0;
		p->cur_state[c] = STATE_UNKNOWN;
	}
	p->untraced += ts - end;
	while (p->twi < tw->n && ts > tw->w[p->twi][1])
		p->twi++;
	lw_attrib_forget(p->a);
}

/* Every sample due by @ts: whether it is a spike, and its CPU's idle state
 * as the events so far say.  0 or -1. */
static int tp_samples_due(struct tpass *p, uint64_t ts)
{
	while (p->mr == 1 && p->nx.expected_ns <= ts) {
		if (spike_of(&p->sp, &p->nx, p->nxi) < 0 ||
		    point_put(p->x, &p->nx, p->cur_state[p->nx.cpu]) < 0)
			return -1;
		p->mr = lw_sample_merge_next(p->mg, &p->nx, &p->nxi);
		if (p->mr < 0)
			return -1;
	}
	return 0;
}

/* A kernel stack (ftrace:kernel_stack) taken by a trigger of run --stacks
 * on the event before it (@at, enum lw_stack_at; -1: not after one): its
 * frames resolved through the trace's kernel symbols, and where they say
 * the task current then was (analysis/codeloc.h), for the spikes of the
 * thread woken or switched to.  The task is the event's common_pid, not
 * the switch's next task: has_cur stays 0. */
#define MAX_FRAMES 64
static int stack_decode(struct tpass *p, const struct lw_trace_event *ev, struct lw_tev *e, int at)
{
	struct tep_handle *tep = lw_trace_tep(p->t);
	struct tep_format_field *f = lw_trace_field(p->t, ev, "caller");
	struct lw_frame fr[MAX_FRAMES];
	int ls = tep_get_long_size(tep), n = 0;
	uint64_t size = 0;

	if (at < 0 || !f || ev->pid <= 0 || (ls != 4 && ls != 8) ||
	    lw_trace_u64(p->t, ev, "size", &size) < 0 || f->offset < 0 ||
	    (size_t)f->offset > (size_t)ev->record->size)
		return 1;
	if (size > ((size_t)ev->record->size - (size_t)f->offset) / (size_t)ls)
		size = ((size_t)ev->record->size - (size_t)f->offset) / (size_t)ls;
	for (uint64_t i = 0; i < size && n < MAX_FRAMES; i++) {
		const unsigned char *d = (const unsigned char *)ev->record->data + f->offset +
					 i * (size_t)ls;
		uint64_t addr = ls == 8 ? tep_read_number(tep, d, 8) : tep_read_number(tep, d, 4);

		if (!addr || addr == (ls == 8 ? UINT64_MAX : UINT32_MAX))
			break;	/* ULONG_MAX ends the stacks of older kernels */
		fr[n].sym = tep_find_function(tep, addr);
		fr[n].off = fr[n].sym ? addr - tep_find_function_address(tep, addr) : 0;
		n++;
	}
	e->name = lw_stack_where(fr, n, (enum lw_stack_at)at, p->where, sizeof(p->where));
	if (!e->name)
		return 1;
	e->kind = LW_TEV_STACK;
	e->pid = ev->pid;
	e->prev_pid = p->sk[ev->cpu].pid;
	e->arg = at;
	e->has_cur = 0;
	return 0;
}

/* _stext's address, from the kernel symbols trace.dat carries: what a
 * preemptirq event's caller_offs counts from.  Looked up once. */
static int stext_of(struct tpass *p, uint64_t *stext)
{
	struct lw_tracedat d;
	uint64_t *off, *size;

	if (!p->stext_known) {
		p->stext_known = -1;
		if (lw_tracedat_read(p->path, &d, &off, &size) == 0) {
			if (d.kallsyms.len &&
			    lw_kallsyms_addr(d.kallsyms.data, d.kallsyms.len, "_stext", &p->stext) == 0)
				p->stext_known = 1;
			lw_tracedat_free(&d);
			free(off);
			free(size);
		}
	}
	*stext = p->stext;
	return p->stext_known > 0 ? 0 : -1;
}

/* A preemptirq event (CONFIG_PREEMPTIRQ_TRACEPOINTS): kind @k's section
 * opens at a disable and closes at the enable on the same CPU (the kernel
 * traces only the outermost ones); a closed one goes to the attribution
 * with where it began: the disable's caller, symbol+offset. */
static int section_decode(struct tpass *p, const struct lw_trace_event *ev, struct lw_tev *e,
			  int k, int on)
{
	struct tep_handle *tep = lw_trace_tep(p->t);
	int64_t offs = 0;
	uint64_t stext, addr;
	const char *fn;

	if (!on) {
		if (lw_trace_s64(p->t, ev, "caller_offs", &offs) < 0)
			offs = 0;
		p->sect[ev->cpu][k].from = ev->ts_ns;
		p->sect[ev->cpu][k].offs = (int32_t)offs;
		return 1;
	}
	if (!p->sect[ev->cpu][k].from)
		return 1;	/* its start is before the trace */
	e->kind = LW_TEV_SECTION;
	e->arg = (int64_t)p->sect[ev->cpu][k].from;
	e->prev_pid = k;
	e->has_cur = 0;
	e->name = NULL;
	if (stext_of(p, &stext) == 0) {
		addr = lw_preemptirq_addr(stext, p->sect[ev->cpu][k].offs);
		fn = tep_find_function(tep, addr);
		if (fn) {
			snprintf(p->where, sizeof(p->where), "%s+0x%llx", fn,
				 (unsigned long long)(addr - tep_find_function_address(tep, addr)));
			e->name = p->where;
		}
	}
	p->sect[ev->cpu][k].from = 0;
	return 0;
}

/*
 * Phase 2, one event: @ev read into @e for the attribution, with what it
 * says of its CPU's idle state, NO_HZ counters and wake-up sources; 0 to
 * pass @e on, 1 to leave the event out.
 */
static int tp_decode(struct tpass *p, const struct lw_trace_event *ev, struct lw_tev *e)
{
	struct lw_trace *t = p->t;
	const struct ids *id = &p->id;
	struct nohz_cpu *n = &p->nz[ev->cpu];
	int *cur_state = p->cur_state;
	char *comm = p->comm;
	const size_t commlen = sizeof(p->comm);
	uint64_t v;
	int vec, vec_entry, sk_at = p->sk[ev->cpu].at;

	p->sk[ev->cpu].at = -1;	/* a stack belongs to the event just before it */
	if (ev->id == id->kstack)
		return stack_decode(p, ev, e, sk_at);
	for (int k = 0; k < LW_SECT_KINDS; k++)
		if (ev->id == id->sect_off[k] || ev->id == id->sect_on[k])
			return section_decode(p, ev, e, k, ev->id == id->sect_on[k]);
	if (ev->id == id->sw) {
		e->kind = LW_TEV_SWITCH;
		lw_trace_u64(t, ev, "next_pid", &v);
		e->pid = (int)v;
		lw_trace_u64(t, ev, "prev_pid", &v);
		e->prev_pid = (int)v;
		lw_trace_u64(t, ev, "next_prio", &v);
		e->prio = (int)v;
		/* the kernel's report of the previous task's state: none of
		 * the low 8 bits (R, R+ when preempted) is runnable, S
		 * waits for an event, the rest (D, T, t, ...) is held */
		v = 0;
		lw_trace_u64(t, ev, "prev_state", &v);
		e->arg = !(v & 0xff) ? LW_PREV_RUNNABLE : (v & 0xff) == 1 ? LW_PREV_SLEEPING :
			LW_PREV_BLOCKED;
		e->name = str_field(t, ev, "next_comm", comm, commlen);
		p->sk[ev->cpu].pid = e->pid;
		p->sk[ev->cpu].at = LW_STACK_SWITCH;
		if (cur_state[ev->cpu] == STATE_UNKNOWN || e->pid != 0)
			cur_state[ev->cpu] = e->pid ? STATE_BUSY : cur_state[ev->cpu];
		if (e->pid)
			wake_source(n, "task", e->name);
	} else if (ev->id == id->waking || ev->id == id->wakeup) {
		e->kind = LW_TEV_WAKEUP;
		lw_trace_u64(t, ev, "pid", &v);
		e->pid = (int)v;
		lw_trace_u64(t, ev, "prio", &v);
		e->prio = (int)v;
		e->name = str_field(t, ev, "comm", comm, commlen);
		e->arg = lw_trace_u64(t, ev, "target_cpu", &v) == 0 ? (int64_t)v : -1;
		if (ev->id == id->waking) {
			p->sk[ev->cpu].pid = e->pid;
			p->sk[ev->cpu].at = LW_STACK_WAKEUP;
		}
	} else if (ev->id == id->irq_in) {
		e->kind = LW_TEV_IRQ_ENTRY;
		e->name = str_field(t, ev, "name", comm, commlen);
		wake_source(n, "irq", e->name);
	} else if (ev->id == id->irq_out) {
		e->kind = LW_TEV_IRQ_EXIT;
	} else if (ev->id == id->sirq_in || ev->id == id->sirq_out) {
		lw_trace_u64(t, ev, "vec", &v);
		e->kind = ev->id == id->sirq_in ? LW_TEV_SOFTIRQ_ENTRY : LW_TEV_SOFTIRQ_EXIT;
		e->name = v < sizeof(softirq_names) / sizeof(softirq_names[0]) ? softirq_names[v] : "?";
		if (ev->id == id->sirq_in)
			wake_source(n, "softirq", e->name);
	} else if (ev->id == id->hrt_in) {
		e->kind = LW_TEV_TIMER_ENTRY;
		e->name = function_name(t, ev, p->fns, p->unk, p->fnbuf, sizeof(p->fnbuf));
		if (is_tick_fn(e->name)) {
			if (n->idle)
				n->ticks_idle++;
			else
				n->ticks_busy++;
		}
		wake_source(n, "timer", e->name);
	} else if (ev->id == id->hrt_out) {
		e->kind = LW_TEV_TIMER_EXIT;
	} else if (ev->id == id->ipi_in || ev->id == id->ipi_out) {
		e->kind = ev->id == id->ipi_in ? LW_TEV_IRQ_ENTRY : LW_TEV_IRQ_EXIT;
		e->name = "IPI";
		if (ev->id == id->ipi_in)
			wake_source(n, "ipi", str_field(t, ev, "reason", comm, commlen));
	} else if ((vec = vector_of(id, ev->id, &vec_entry)) >= 0) {
		e->kind = vec_entry ? LW_TEV_IRQ_ENTRY : LW_TEV_IRQ_EXIT;
		e->name = vectors[vec];
		if (vec_entry && strcmp(vectors[vec], "local_timer"))
			wake_source(n, "ipi", vectors[vec]);
	} else if (ev->id == id->idle) {
		lw_trace_u64(t, ev, "state", &v);
		e->kind = LW_TEV_IDLE;
		e->arg = v == UINT32_MAX || v == UINT64_MAX ? -1 : (int64_t)v;
		if (e->arg >= 0) {
			cur_state[ev->cpu] = e->arg < MAX_STATES ? (int)e->arg : STATE_UNKNOWN;
			if (!n->idle) {
				n->idle = 1;
				n->idle_since = ev->ts_ns;
			}
			n->waiting = 1;
		} else {
			cur_state[ev->cpu] = STATE_BUSY;
			if (n->idle)
				n->idle_ns += ev->ts_ns - n->idle_since;
			n->idle = 0;
		}
	} else if (ev->id == id->tick_stop) {
		uint64_t ok = 0, dep = 0;

		lw_trace_u64(t, ev, "success", &ok);
		lw_trace_u64(t, ev, "dependency", &dep);
		e->kind = LW_TEV_TICK_STOP;
		e->arg = ok != 0;
		if (ok) {
			n->stop_ok++;
		} else {
			n->stop_kept++;
			for (int b = 0; b < 6; b++)
				if (dep & (1ULL << b))
					n->dep[b]++;
		}
	} else if (ev->id == id->freq) {
		e->kind = LW_TEV_FREQ;
		lw_trace_u64(t, ev, "state", &v);
		e->arg = (int64_t)v;
	} else if (ev->id == id->migrate) {
		lw_trace_u64(t, ev, "dest_cpu", &v);
		if ((int)v != ev->cpu)	/* counted on the destination */
			return 1;
		e->kind = LW_TEV_MIGRATE;
		lw_trace_u64(t, ev, "pid", &v);
		e->pid = (int)v;
	}
	return 0;
}

/* Phase 2: every event in time order, and beside it every sample due before
 * it (a spike to explain, its CPU's idle state); 0, or -1 (a CPU's data that
 * cannot be read to its end: an error said where). */
static int tp_walk(struct tpass *p)
{
	struct lw_trace_event ev;
	int more;

	while ((more = lw_trace_next(p->t, &ev)) == 1) {
		struct lw_tev e = { .ts = ev.ts_ns, .cpu = ev.cpu, .kind = LW_TEV_MAX, .pid = -1,
				    .has_cur = 1, .cur_pid = ev.pid };
		struct nohz_cpu *n;

		if (ev.cpu < 0 || ev.cpu >= p->ncpus)
			continue;
		if (p->tw.n && p->twi < p->tw.n && ev.ts_ns > p->tw.w[p->twi][1]) {
			/* the samples due up to the window's end keep what
			 * the window said of their CPU */
			if (tp_samples_due(p, p->tw.w[p->twi][1]) < 0)
				return -1;
			tp_next_window(p, ev.ts_ns);
		}
		n = &p->nz[ev.cpu];
		if (!p->first)
			p->first = ev.ts_ns;
		p->last = ev.ts_ns;
		if (ev.missed)	/* events lost on this CPU since its previous event */
			lw_attrib_add_lost(p->a, ev.cpu, n->last ? n->last : p->first, ev.ts_ns);
		if (!n->first)
			n->first = ev.ts_ns;
		n->last = ev.ts_ns;
		/* the deadline misses whose period starts by now, each by its own window */
		if (lw_misses_feed(p->sp.misses, p->a, ev.ts_ns, p->ncpus) < 0)
			return -1;
		/* every sample due before this event: its CPU's idle state */
		if (tp_samples_due(p, ev.ts_ns) < 0)
			return -1;
		if (tp_decode(p, &ev, &e))
			continue;
		if (e.kind != LW_TEV_MAX)
			lw_attrib_event(p->a, &e);
	}
	/* a CPU's data that cannot be read to its end (a corrupt event): no
	 * figure from the rest, which lacks it (the merged walk went on with
	 * the other CPUs, an error said where) */
	return more < 0 ? -1 : 0;
}

/* Phase 3: the samples after the last event (their idle state not known),
 * the idle statistics, the misses' last windows, the attribution closed. */
static int tp_finish(struct tpass *p)
{
	while (p->mr == 1) {	/* after the last event: not known */
		if (spike_of(&p->sp, &p->nx, p->nxi) < 0 || point_put(p->x, &p->nx, STATE_UNKNOWN) < 0)
			return -1;
		p->mr = lw_sample_merge_next(p->mg, &p->nx, &p->nxi);
	}
	if (p->mr < 0 || stats_compute(p->x, p->it) < 0 ||
	    lw_misses_feed(p->sp.misses, p->a, UINT64_MAX, p->ncpus) < 0)
		return -1;
	for (int c = 0; c < p->ncpus; c++)
		if (p->nz[c].idle)
			p->nz[c].idle_ns += p->nz[c].last - p->nz[c].idle_since;
	lw_attrib_set_extent(p->a, p->first, p->last);
	lw_attrib_finish(p->a);

	lw_misses_finish(p->sp.misses);
	p->sp.misses = NULL;
	return 0;
}

/* "host": what the host took from the spikes (lw_attrib_cfg.vm, .steal) and
 * each spike's share by record index, for the kernel-attributable figures. */
static void host_json(struct tpass *p)
{
	const json_t *hv = json_object_get(json_object_get(p->rd->manifest, "system"), "hypervisor");
	json_t *h;

	lw_hostadj_sort(&p->sp.adj);
	h = json_pack("{s:b, s:O?, s:o, s:I, s:I, s:I, s:I}",
		"virtual_machine", p->vm, "hypervisor", json_object_get(hv, "name"),
		"steal_sampled", p->has_steal ? json_pack("{s:I, s:s}", "period_ns",
			(json_int_t)p->steal.period_ns, "note", "steal per CPU sampled every period "
			"(counters of /proc/stat, clock-tick resolution); a window's share is "
			"interpolated linearly across the samples around it") : json_false(),
		"host_ns", (json_int_t)p->sp.host_ns, "spikes", (json_int_t)p->sp.host_spikes,
		"steal_in_windows_ns", (json_int_t)p->sp.steal_ns,
		"steal_spikes", (json_int_t)p->sp.steal_spikes);
	if (p->sp.adj_failed)
		json_object_set_new(h, "adjust_error", json_string("out of memory: no twin figures"));
	else
		json_object_set_new(h, "adjust", lw_hostadj_json(&p->sp.adj));
	json_object_set_new(p->analysis, "host", h);
}

/* Phase 4: "spikes" (with the thresholds and the trace windows), "idle_latency",
 * "tradeoff" and "nohz" into the analysis. */
static void tp_json(struct tpass *p)
{
	json_t *analysis = p->analysis, *spikes = lw_attrib_json(p->a, p->top);

	if (spikes) {
		json_t *th = json_object(), *ths = json_object();
		json_t *probes = json_object_get(analysis, "probes");

		for (unsigned pr = 1; pr < LW_SAMPLE_MAX; pr++) {
			json_object_set_new(th, lw_probe_name(pr), json_integer((json_int_t)p->thr[pr]));
			if (json_object_get(probes, lw_probe_name(pr)))	/* the probes that ran */
				json_object_set_new(ths, lw_probe_name(pr), json_pack("{s:I, s:s, s:I}",
					"threshold_ns", (json_int_t)p->thr[pr], "source", p->thr_src[pr],
					"above", (json_int_t)p->above[pr]));
		}
		if (p->tw.monitor)
			json_object_set_new(spikes, "trace_windows", json_pack("{s:I, s:I, s:I}",
				"windows", (json_int_t)p->tw.n,
				"spikes_in_windows", (json_int_t)p->sp.in_window,
				"spikes_without_trace",
				(json_int_t)(json_integer_value(json_object_get(spikes, "spikes_total")) -
					     (json_int_t)p->sp.in_window)));
		json_object_set_new(spikes, "thresholds_ns", th);
		json_object_set_new(spikes, "thresholds", ths);
		if (json_is_object(json_object_get(p->rd->manifest, "steal")))
			json_object_set_new(spikes, "steal",
					    json_deep_copy(json_object_get(p->rd->manifest, "steal")));
		lw_tasks_annotate(spikes, p->rd->manifest);
		json_object_set_new(analysis, "spikes", spikes);
		host_json(p);
	}
	json_object_set_new(analysis, "idle_latency", idle_latency_json(p->x, p->it));
	{
		json_t *tr = tradeoff_json(p->x, p->it);

		if (tr)
			json_object_set_new(analysis, "tradeoff", tr);
	}
	/* per second of trace: the stretches between windows are not */
	json_object_set_new(analysis, "nohz", nohz_json(p->nz, p->ncpus, p->first + p->untraced,
							p->last));
}

static void tp_free(struct tpass *p)
{
	lw_misses_free(p->sp.misses);
	if (p->nz)
		for (int c = 0; c < p->ncpus; c++)
			free(p->nz[c].names);
	free(p->nz);
	free(p->noise_comm);
	free(p->nmis);
	free(p->cur_state);
	free(p->sk);
	free(p->sect);
	free(p->smi_cpus);
	stats_free(p->x);
	free(p->it);
	lw_attrib_free(p->a);
	lw_hostadj_free(&p->sp.adj);
	lw_steal_free(&p->steal);
	free(p->tw.w);
	free(p->unk);
	lw_sample_merge_close(p->mg);
	lw_trace_close(p->t);
}

int lw_tracepass(const struct lw_rundir *rd, json_t *analysis, const struct lw_tracepass_opts *o)
{
	struct tpass *p;
	int ret = -1;

	p = calloc(1, sizeof(*p));
	if (!p)
		return error("out of memory");
	lw_rundir_file(rd, "trace.dat", p->path, sizeof(p->path));
	if (access(p->path, F_OK) < 0) {
		free(p);
		return 1;
	}
	p->rd = rd;
	p->analysis = analysis;
	p->o = o;
	p->top = o->top ? o->top : 20;
	if (tp_setup(p) == 0 && tp_walk(p) == 0 && tp_finish(p) == 0) {
		tp_json(p);
		ret = 0;
	}
	tp_free(p);
	free(p);
	return ret;
}
