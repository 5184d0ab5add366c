// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>

#include "analysis/attrib.h"
#include "analysis/attrib_int.h"
#include "analysis/codeloc.h"
#include "lib/error.h"
#include "lib/sort.h"

static const char *const comp_names[LW_C_MAX] = {
	[LW_C_IDLE_EXIT] = "idle-exit", [LW_C_IRQ] = "irq", [LW_C_SOFTIRQ] = "softirq",
	[LW_C_TIMER] = "timer", [LW_C_PREEMPT] = "preempt", [LW_C_NONPREEMPT] = "non-preemptible",
	[LW_C_TIMER_LATE] = "timer-late", [LW_C_PROBE] = "probe", [LW_C_UNEXPLAINED] = "unexplained",
	[LW_C_IDLE_LATE] = "idle-late", [LW_C_TASK] = "task", [LW_C_WORK] = "work",
	[LW_C_BLOCKED] = "blocked", [LW_C_BACKLOG] = "backlog", [LW_C_THROTTLED] = "throttled",
	[LW_C_HOST] = "host", [LW_C_HWFW] = "hardware/firmware",
};

const char *lw_comp_kind_name(enum lw_comp_kind k)
{
	return k < LW_C_MAX ? comp_names[k] : "?";
}

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static const char *intern(struct lw_attrib *a, const char *s)
{
	size_t i;

	if (!s)
		s = "";
	if (a->nstr * 2 >= a->capstr) {
		size_t cap = a->capstr ? a->capstr * 2 : 256;
		char **t = calloc(cap, sizeof(*t));

		if (!t)
			return "";
		for (size_t k = 0; k < a->capstr; k++)
			if (a->str[k]) {
				i = hash(a->str[k]) & (cap - 1);
				while (t[i])
					i = (i + 1) & (cap - 1);
				t[i] = a->str[k];
			}
		free(a->str);
		a->str = t;
		a->capstr = cap;
	}
	i = hash(s) & (a->capstr - 1);
	while (a->str[i]) {
		if (!strcmp(a->str[i], s))
			return a->str[i];
		i = (i + 1) & (a->capstr - 1);
	}
	a->str[i] = strdup(s);
	if (!a->str[i])
		return "";
	a->nstr++;
	return a->str[i];
}

struct lw_attrib *lw_attrib_new(const struct lw_attrib_cfg *cfg)
{
	struct lw_attrib *a = calloc(1, sizeof(*a));

	if (!a || cfg->ncpus <= 0 || !(a->cpu = calloc((size_t)cfg->ncpus, sizeof(*a->cpu)))) {
		free(a);
		error("out of memory for spike attribution");
		return NULL;
	}
	a->cfg = *cfg;
	if (!a->cfg.keep)
		a->cfg.keep = LW_ATTRIB_KEEP_DEFAULT;
	a->tasks = calloc(TASKS, sizeof(*a->tasks));
	if (!a->tasks) {
		free(a->cpu);
		free(a);
		error("out of memory for spike attribution");
		return NULL;
	}
	for (int c = 0; c < cfg->ncpus; c++) {
		a->cpu[c].depth = 1;
		a->cpu[c].stack[0].kind = CTX_UNKNOWN;
		a->cpu[c].tick_stopped = -1;
		a->cpu[c].idle_state = -1;
		a->cpu[c].last_state = -1;
	}
	return a;
}

void lw_attrib_free(struct lw_attrib *a)
{
	if (!a)
		return;
	for (int c = 0; c < a->cfg.ncpus; c++)
		free(a->cpu[c].open);
	for (size_t i = 0; i < a->capstr; i++)
		free(a->str[i]);
	free(a->str);
	free(a->tasks);
	free(a->cpu);
	free(a->s);
	free(a->pend);
	free(a->ends);
	free(a->wait);
	free(a->free_slot);
	free(a->lost);
	free(a->causes);
	free(a->keep);
	free(a);
}

/* Heaps of slot numbers. */
typedef int (*before_fn)(const struct lw_attrib *a, int x, int y);

static uint64_t end_of(const struct lw_spike *s)
{
	return s->expected_ns + s->latency_ns;
}

static int pend_before(const struct lw_attrib *a, int x, int y)
{
	const struct lw_spike *p = &a->s[x], *q = &a->s[y];

	if (p->expected_ns != q->expected_ns)
		return p->expected_ns < q->expected_ns;
	return p->index < q->index;
}

static int end_before(const struct lw_attrib *a, int x, int y)
{
	return end_of(&a->s[x]) < end_of(&a->s[y]);
}

static void heap_push(const struct lw_attrib *a, int *h, size_t *n, int v, before_fn before)
{
	size_t i = (*n)++;

	while (i) {
		size_t up = (i - 1) / 2;

		if (!before(a, v, h[up]))
			break;
		h[i] = h[up];
		i = up;
	}
	h[i] = v;
}

static int heap_pop(const struct lw_attrib *a, int *h, size_t *n, before_fn before)
{
	int top = h[0], v = h[--*n];
	size_t i = 0;

	if (!*n)
		return top;
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && before(a, h[c + 1], h[c]))
			c++;
		if (!before(a, h[c], v))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = v;
	return top;
}

/* A free slot, -1 out of memory. */
static int slot_new(struct lw_attrib *a)
{
	if (!a->nfree) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		int **arr[] = { &a->pend, &a->ends, &a->wait, &a->free_slot };
		struct lw_spike *t;

		/* every list can hold every slot: grown first, harmless if the
		 * slots then cannot be */
		for (size_t k = 0; k < sizeof(arr) / sizeof(arr[0]); k++) {
			int *g = realloc(*arr[k], cap * sizeof(*g));

			if (!g)
				return -1;
			*arr[k] = g;
		}
		t = realloc(a->s, cap * sizeof(*t));
		if (!t)
			return -1;
		a->s = t;
		for (size_t i = cap; i > a->cap; i--)
			a->free_slot[a->nfree++] = (int)(i - 1);
		a->cap = cap;
	}
	return a->free_slot[--a->nfree];
}

int lw_attrib_add_spike(struct lw_attrib *a, const struct lw_spike *s)
{
	struct lw_spike *t;
	int i;

	if (s->cpu < 0 || s->cpu >= a->cfg.ncpus)
		return error("spike attribution: cpu %d outside 0-%d", s->cpu, a->cfg.ncpus - 1);
	if (a->started && s->expected_ns < a->now)
		return error("spike attribution: a spike at %llu ns given after an event at %llu ns",
			     (unsigned long long)s->expected_ns, (unsigned long long)a->now);
	i = slot_new(a);
	if (i < 0)
		return error("out of memory for spikes");
	t = &a->s[i];
	*t = *s;
	t->ncomp = 0;
	t->nseg = 0;
	t->seg_truncated = 0;
	t->dominant = -1;
	t->unattributable = NULL;
	t->open = t->done = 0;
	t->late_state = -1;
	t->late_exit_ns = LW_EXIT_LATENCY_NONE;
	t->late_ns = 0;
	t->host_ns = t->steal_ns = 0;
	t->dominant_ns = t->work_ns = t->waker_ns = t->blocked_ns = t->backlog_ns = 0;
	t->runnable_at_start = t->busy_at_start = 0;
	t->stage = t->waker_woken = t->ran = t->blocked = t->far = 0;
	t->cpus = t->wait_cpus = 0;
	for (int k = 0; k < 2; k++) {
		t->code[k].pid = -1;
		t->code[k].where = NULL;
	}
	memset(t->sect, 0, sizeof(t->sect));
	heap_push(a, a->pend, &a->npend, i, pend_before);
	return 0;
}

/* Lost windows that no spike can touch any more: ended before every live
 * spike and before the last event (spikes to come start after it). */
static void prune_lost(struct lw_attrib *a)
{
	uint64_t lo = a->started ? a->now : 0;
	const int *lists[] = { a->pend, a->ends, a->wait };
	const size_t ns[] = { a->npend, a->nends, a->nwait };
	size_t k = 0;

	for (size_t l = 0; l < 3; l++)
		for (size_t i = 0; i < ns[l]; i++)
			if (a->s[lists[l][i]].expected_ns < lo)
				lo = a->s[lists[l][i]].expected_ns;
	for (size_t i = 0; i < a->nlost; i++)
		if (a->lost[i].to >= lo)
			a->lost[k++] = a->lost[i];
	a->nlost = k;
}

int lw_attrib_add_lost(struct lw_attrib *a, int cpu, uint64_t from, uint64_t to)
{
	if (a->nlost == a->caplost)
		prune_lost(a);
	if (a->nlost == a->caplost) {
		size_t cap = a->caplost ? a->caplost * 2 : 64;
		struct lost *t = realloc(a->lost, cap * sizeof(*t));

		if (!t)
			return error("out of memory");
		a->lost = t;
		a->caplost = cap;
	}
	a->lost[a->nlost++] = (struct lost){ cpu, from, to, NULL };
	return 0;
}

int lw_attrib_add_untraced(struct lw_attrib *a, uint64_t from, uint64_t to)
{
	if (lw_attrib_add_lost(a, -1, from, to) < 0)
		return -1;
	a->lost[a->nlost - 1].why = "no trace window saved around it";
	return 0;
}

void lw_attrib_forget(struct lw_attrib *a)
{
	for (int c = 0; c < a->cfg.ncpus; c++) {
		struct cpu *p = &a->cpu[c];

		p->depth = 1;
		memset(&p->stack[0], 0, sizeof(p->stack[0]));
		p->stack[0].kind = CTX_UNKNOWN;
		p->tick_stopped = -1;
		p->idle_state = -1;
		p->idle_since = 0;
		p->has_wakee = 0;
		p->tentative = 0;
		p->last_state = -1;
	}
}

void lw_attrib_set_extent(struct lw_attrib *a, uint64_t first, uint64_t last)
{
	a->first = first;
	a->last = last;
	a->have_extent = 1;
}

static void segment(struct lw_spike *s, enum lw_comp_kind k, const char *name, uint64_t from,
		    uint64_t to)
{
	struct lw_segment *g = s->nseg ? &s->seg[s->nseg - 1] : NULL;

	if (g && g->kind == k && g->name == name && g->to_ns == from) {
		g->to_ns = to;
		return;
	}
	if (s->nseg == LW_ATTRIB_MAX_SEG) {
		s->seg_truncated = 1;
		return;
	}
	s->seg[s->nseg++] = (struct lw_segment){ from, to, k, name };
}

static void add_comp(struct lw_spike *s, enum lw_comp_kind k, const char *name, int pid, int stage,
		     uint64_t ns)
{
	int i, max = s->work ? LW_ATTRIB_MAX_COMP : LW_ATTRIB_SPIKE_COMP;

	for (i = 0; i < s->ncomp; i++)
		if (s->comp[i].kind == k && s->comp[i].name == name && s->comp[i].stage == stage)
			break;
	if (i == s->ncomp) {
		if (s->ncomp == max) {
			/* fold the rest into the last slot's kind: keep totals exact */
			i = s->ncomp - 1;
		} else {
			s->comp[i] = (struct lw_component){ k, name, 0, pid, stage };
			s->ncomp++;
		}
	}
	s->comp[i].ns += ns;
}

static const char *intern(struct lw_attrib *a, const char *s);

/* On a virtual machine, a stretch of @ns with no event at all in an
 * interrupt, softirq or timer callback, in a task while the probe's timer
 * was due (timer-late), or in the idle loop's way out (idle-exit), of
 * LW_HOST_GAP_NS or more: the host's. */
static int host_stretch(const struct lw_attrib *a, const struct lw_spike *s, enum lw_comp_kind k,
			uint64_t ns)
{
	return a->cfg.vm && !s->work && ns >= LW_HOST_GAP_NS &&
	       (k == LW_C_IRQ || k == LW_C_SOFTIRQ || k == LW_C_TIMER || k == LW_C_TIMER_LATE ||
		k == LW_C_IDLE_EXIT);
}

static void charge_task(struct lw_attrib *a, struct lw_spike *s, enum lw_comp_kind k,
			const char *name, int pid, uint64_t ns)
{
	uint64_t from = s->last - ns;

	if (!ns)
		return;
	if (host_stretch(a, s, k, ns)) {
		k = LW_C_HOST;
		name = intern(a, "gap");
		pid = -1;
	}
	segment(s, k, name, from, s->last);
	if (!s->work) {
		add_comp(s, k, name, pid, 0, ns);
		return;
	}
	/* a work window: the piece [from, last) split at the stages' ends */
	for (int st = 0; st < LW_WORK_STAGES && from < s->last; st++) {
		uint64_t to = st < LW_WORK_STAGES - 1 && s->stage_end[st] < s->last ?
			      s->stage_end[st] : s->last;

		if (to <= from)
			continue;
		add_comp(s, k, name, pid, st, to - from);
		from = to;
	}
}

static void charge(struct lw_attrib *a, struct lw_spike *s, enum lw_comp_kind k, const char *name,
		   uint64_t ns)
{
	charge_task(a, s, k, name, -1, ns);
}

static const char *state_name(struct lw_attrib *a, int cpu, int state)
{
	const char *n = a->cfg.state_name ? a->cfg.state_name(a->cfg.ctx, cpu, state) : NULL;
	char buf[32];

	if (n)
		return intern(a, n);
	snprintf(buf, sizeof(buf), "state%d", state);
	return intern(a, buf);
}

/* The declared exit latency of @state on @cpu (LW_EXIT_LATENCY_NONE: none). */
static uint64_t exit_latency(const struct lw_attrib *a, int cpu, int state)
{
	if (state < 0 || !a->cfg.exit_latency)
		return LW_EXIT_LATENCY_NONE;
	return a->cfg.exit_latency(a->cfg.ctx, cpu, state);
}

/* What the probe may spend of an idle state's exit: its declared latency. */
static uint64_t exit_budget(const struct lw_attrib *a, int cpu, int state)
{
	uint64_t ns = exit_latency(a, cpu, state);

	return ns == LW_EXIT_LATENCY_NONE ? 0 : ns;
}

/* The context is the probe's own thread. */
static int is_probe(const struct lw_spike *s, const struct ctx *x)
{
	if (s->tid >= 0)
		return x->pid == s->tid;
	return s->comm && x->name && !strcmp(x->name, s->comm);
}

/* @ns ending at s->last charged to the probe's own path, up to
 * LW_PROBE_PATH_NS a spike: the rest, first in the window, unexplained. */
static void charge_probe(struct lw_attrib *a, struct lw_spike *s, const char *name, uint64_t ns)
{
	uint64_t room = s->probe_ns < LW_PROBE_PATH_NS ? LW_PROBE_PATH_NS - s->probe_ns : 0;
	uint64_t in = ns < room ? ns : room, to = s->last;

	s->last = to - in;
	charge(a, s, LW_C_UNEXPLAINED, intern(a, ""), ns - in);
	s->last = to;
	charge(a, s, LW_C_PROBE, name, in);
	s->probe_ns += in;
}

/* ---- work windows ------------------------------------------------------ */

/* @pid (named @comm) is the thread @tid (named @name, where tid is -1). */
static int thread_is(int tid, const char *name, int pid, const char *comm)
{
	if (tid >= 0)
		return pid == tid;
	return pid > 0 && name && comm && !strcmp(name, comm);
}

static int is_worker(const struct lw_spike *s, int pid, const char *comm)
{
	return thread_is(s->tid, s->comm, pid, comm);
}

static int is_waker(const struct lw_spike *s, int pid, const char *comm)
{
	return thread_is(s->waker_tid, s->waker_comm, pid, comm);
}

/* The thread the window follows now. */
static int follows(const struct lw_spike *s, int pid, const char *comm)
{
	return s->stage ? is_worker(s, pid, comm) : is_waker(s, pid, comm);
}

/* @ns ending at s->last in a thread's own context: its work (@k) up to what
 * is left of @budget (@used so far), first; the rest unexplained. */
static void charge_own(struct lw_attrib *a, struct lw_spike *s, enum lw_comp_kind k,
		       const char *name, uint64_t *used, uint64_t budget, uint64_t ns)
{
	uint64_t room = *used < budget ? budget - *used : 0;
	uint64_t in = ns < room ? ns : room, to = s->last;

	s->last = to - (ns - in);
	charge(a, s, k, name, in);
	*used += in;
	s->last = to;
	charge(a, s, LW_C_UNEXPLAINED, intern(a, ""), ns - in);
}

/* The worker's own running, @ns ending at s->last: before its processing
 * stage, when it was busy at the start, the earlier periods' (backlog). */
static void charge_worker(struct lw_attrib *a, struct lw_spike *s, uint64_t ns)
{
	uint64_t to = s->last, from = to - ns;

	if (s->busy_at_start && from < s->stage_end[1]) {
		uint64_t cut = to < s->stage_end[1] ? to : s->stage_end[1];

		s->last = cut;
		charge_own(a, s, LW_C_BACKLOG, intern(a, ""), &s->backlog_ns, s->work_budget_ns -
			   (s->work_ns < s->work_budget_ns ? s->work_ns : s->work_budget_ns), cut - from);
		s->last = to;
		ns = to - cut;
	}
	charge_own(a, s, LW_C_WORK, intern(a, ""), &s->work_ns, s->work_budget_ns -
		   (s->backlog_ns < s->work_budget_ns ? s->backlog_ns : s->work_budget_ns), ns);
}

/* A work window's worker could run and was kept off its CPU with nothing
 * above it: runnable since the start, or it had run already (the idle loop
 * in its place: real-time throttling). */
static int worker_held(const struct lw_spike *s)
{
	return s->work && s->stage && (s->ran || s->runnable_at_start);
}

/* A task's context in a work window (see attrib.h). */
static void account_work_task(struct lw_attrib *a, struct cpu *c, struct lw_spike *s,
			      const struct ctx *x, uint64_t ns)
{
	int kprio = s->stage ? s->kprio : s->waker_kprio;

	if (x->pid == 0 && worker_held(s)) {
		charge(a, s, LW_C_THROTTLED, intern(a, ""), ns);
		return;
	}
	if (follows(s, x->pid, x->name)) {
		if (c->tentative) {
			charge(a, s, LW_C_IDLE_EXIT, c->last_state >= 0 ?
			       state_name(a, s->cpu, c->last_state) : intern(a, "idle"), ns);
		} else if (s->stage) {
			s->ran = 1;
			charge_worker(a, s, ns);
		} else {
			charge_own(a, s, LW_C_WORK, x->name, &s->waker_ns,
				   s->waker_budget_ns + LW_PROBE_PATH_NS, ns);
		}
		return;
	}
	if (!s->stage && !s->waker_woken)
		charge_task(a, s, LW_C_TIMER_LATE, x->name, x->pid, ns);
	else if (kprio >= 0 && x->prio < kprio)
		charge_task(a, s, LW_C_PREEMPT, x->name, x->pid, ns);
	else if (s->wake_pending)
		charge_task(a, s, LW_C_TIMER_LATE, x->name, x->pid, ns);
	else if (worker_held(s))
		charge_task(a, s, LW_C_TASK, x->name, x->pid, ns);
	else
		charge_task(a, s, LW_C_NONPREEMPT, x->name, x->pid, ns);
}

/* Charge [s->last, to) to the context on top of @c's stack. */
static void account(struct lw_attrib *a, struct cpu *c, struct lw_spike *s, uint64_t to)
{
	const struct ctx *x = &c->stack[c->depth - 1];
	uint64_t ns;

	if (to <= s->last)
		return;
	ns = to - s->last;
	if (s->blocked) {
		/* asleep: charged once it is known what woke it */
		s->blocked_ns += ns;
		s->last = to;
		return;
	}
	/* charge() places each piece at [last - ns, last): advance as it goes */
	switch (x->kind) {
	case CTX_IRQ:
		s->last = to;
		if (x->after && !s->gap && !s->work && !strcmp(x->after, "hrtimer_wakeup"))
			charge_probe(a, s, x->after, ns);
		else if (x->after)
			charge(a, s, LW_C_TIMER, x->after, ns);
		else
			charge(a, s, LW_C_IRQ, x->name, ns);
		break;
	case CTX_SOFTIRQ:
		s->last = to;
		charge(a, s, LW_C_SOFTIRQ, x->name, ns);
		break;
	case CTX_TIMER:
		s->last = to;
		/* the probe's own timer callback wakes it: part of its path (a
		 * noise loop never sleeps: there it wakes someone else) */
		if (!s->gap && !s->work && !strcmp(x->name, "hrtimer_wakeup"))
			charge_probe(a, s, x->name, ns);
		else
			charge(a, s, LW_C_TIMER, x->name, ns);
		break;
	case CTX_IDLE: {
		uint64_t in = ns < s->idle_budget_left ? ns : s->idle_budget_left;
		const char *st = x->state >= 0 ? state_name(a, s->cpu, x->state) : intern(a, "idle");

		if (worker_held(s)) {
			s->last = to;
			charge(a, s, LW_C_THROTTLED, intern(a, ""), ns);
			break;
		}

		s->last += in;
		charge(a, s, LW_C_IDLE_EXIT, st, in);
		s->idle_budget_left -= in;
		s->last = to;
		if (ns > in) {
			/* idle past the exit latency: the state it was in, what it declares */
			if (s->late_state < 0 || s->late_state != x->state) {
				s->late_state = x->state;
				s->late_exit_ns = exit_latency(a, s->cpu, x->state);
			}
			s->late_ns += ns - in;
			charge(a, s, LW_C_IDLE_LATE, st, ns - in);
		}
		break;
	}
	case CTX_TASK:
		s->last = to;
		if (s->work) {
			account_work_task(a, c, s, x, ns);
		} else if (s->gap) {
			/* the loop's own thread: the CPU ran it and the trace saw nothing */
			if (is_probe(s, x))
				charge(a, s, LW_C_UNEXPLAINED, intern(a, ""), ns);
			else if (s->kprio >= 0 && x->prio < s->kprio)
				charge_task(a, s, LW_C_PREEMPT, x->name, x->pid, ns);
			else
				charge_task(a, s, LW_C_TASK, x->name, x->pid, ns);
		} else if (is_probe(s, x) && c->tentative) {
			/* woken onto an idle CPU, not seen running yet: the idle
			 * loop's way out (restarting the tick, leaving NO_HZ) */
			charge(a, s, LW_C_IDLE_EXIT, c->last_state >= 0 ?
			       state_name(a, s->cpu, c->last_state) : intern(a, "idle"), ns);
		} else if (is_probe(s, x))
			charge_probe(a, s, x->name, ns);
		else if (s->tid >= 0 && !s->woken_ns)
			charge_task(a, s, LW_C_TIMER_LATE, x->name, x->pid, ns);
		else if (s->kprio >= 0 && x->prio < s->kprio)
			charge_task(a, s, LW_C_PREEMPT, x->name, x->pid, ns);
		else if (s->wake_pending)
			/* woken from another CPU: this one does not know it yet */
			charge_task(a, s, LW_C_TIMER_LATE, x->name, x->pid, ns);
		else
			charge_task(a, s, LW_C_NONPREEMPT, x->name, x->pid, ns);
		break;
	default:
		s->last = to;
		charge(a, s, LW_C_UNEXPLAINED, intern(a, ""), ns);
		break;
	}
}

/* Why @s cannot be attributed for lost or absent trace, or NULL; a stretch
 * with no trace at all comes first. */
static int visited(const struct lw_spike *s, int cpu)
{
	if (!s->work)
		return cpu == s->cpu;
	return s->far || (s->cpus >> (cpu % 64) & 1);
}

static const char *overlaps_lost(const struct lw_attrib *a, const struct lw_spike *s)
{
	uint64_t from = s->expected_ns, to = s->expected_ns + s->latency_ns;
	const char *why = NULL;

	for (size_t i = 0; i < a->nlost; i++)
		if ((a->lost[i].cpu < 0 || visited(s, a->lost[i].cpu)) &&
		    a->lost[i].from <= to && a->lost[i].to >= from) {
			if (a->lost[i].why)
				return a->lost[i].why;
			why = "trace events were lost in this window";
		}
	return why;
}

/* A component of a work window that is not the cause: the worker's own work. */
static int own_work(const struct lw_spike *s, const struct lw_component *c)
{
	return s->work && c->kind == LW_C_WORK && !*c->name;
}

static void finish_spike(struct lw_spike *s)
{
	uint64_t best = 0;

	s->dominant = -1;
	s->dominant_ns = 0;
	for (int i = 0; i < s->ncomp; i++) {
		uint64_t ns = 0;

		if (own_work(s, &s->comp[i]))
			continue;
		/* a work window's cause: its time in every stage */
		for (int j = 0; j < s->ncomp; j++)
			if (s->comp[j].kind == s->comp[i].kind && s->comp[j].name == s->comp[i].name)
				ns += s->comp[j].ns;
		if (ns > best) {
			best = ns;
			s->dominant = i;
			s->dominant_ns = ns;
		}
	}
}

static struct task *task_slot(struct lw_attrib *a, int pid);

static const struct task *task_known(struct lw_attrib *a, int pid)
{
	const struct task *t = pid > 0 ? task_slot(a, pid) : NULL;

	return t && t->pid == pid ? t : NULL;
}

/* A task the trace named @comm, for a run that did not record the tid of a
 * workload's thread: -1 when none is known. */
static int task_by_name(struct lw_attrib *a, const char *comm)
{
	const char *n = comm && *comm ? intern(a, comm) : NULL;

	for (size_t i = 0; n && i < TASKS; i++)
		if (a->tasks[i].pid > 0 && a->tasks[i].comm == n)
			return a->tasks[i].pid;
	return -1;
}

static void visit(struct lw_spike *s, int cpu)
{
	if (cpu >= 64)
		s->far = 1;
	s->cpus |= 1ULL << (cpu % 64);
	s->wait_cpus = s->cpus;
}

/* Where a work window starts and what it follows (see attrib.h): the worker
 * already runnable (busy with an earlier period) or blocked, else the waker,
 * on the CPU each was last seen on. */
static void work_start(struct lw_attrib *a, struct lw_spike *s)
{
	const struct task *w, *k;

	if (s->tid < 0)
		s->tid = task_by_name(a, s->comm);
	if (s->waker_tid < 0)
		s->waker_tid = task_by_name(a, s->waker_comm);
	w = task_known(a, s->tid);
	k = task_known(a, s->waker_tid);

	s->stage = 0;
	if (w && w->state != LW_PREV_SLEEPING) {
		s->stage = 1;
		s->busy_at_start = 1;
		if (w->cpu >= 0 && w->cpu < a->cfg.ncpus)
			s->cpu = w->cpu;
		if (w->state == LW_PREV_BLOCKED) {
			s->blocked = 1;
		} else {
			s->woken_ns = s->expected_ns;
			s->runnable_at_start = 1;
		}
	} else if (k) {
		if (k->cpu >= 0 && k->cpu < a->cfg.ncpus)
			s->cpu = k->cpu;
		if (k->state == LW_PREV_BLOCKED)
			s->blocked = 1;	/* asleep in D: not on its timer */
		s->waker_woken = k->state == LW_PREV_RUNNABLE;
	}
	if (s->stage && s->kprio < 0 && w)
		s->kprio = w->prio;
	if (s->waker_kprio < 0 && k)
		s->waker_kprio = k->prio;
	visit(s, s->cpu);
}

/* The window in @slot is open on @c. */
static int open_on(struct cpu *c, int slot)
{
	if (c->nopen == c->capopen) {
		int cap = c->capopen ? c->capopen * 2 : 8;
		int *t = realloc(c->open, (size_t)cap * sizeof(*t));

		if (!t)
			return -1;
		c->open = t;
		c->capopen = cap;
	}
	c->open[c->nopen++] = slot;
	return 0;
}

static void close_on(struct cpu *c, int slot)
{
	for (int i = 0; i < c->nopen; i++)
		if (c->open[i] == slot) {
			c->open[i] = c->open[--c->nopen];
			break;
		}
}

static void open_window(struct lw_attrib *a, struct lw_spike *s)
{
	struct cpu *c;
	const struct ctx *base;

	if (s->work)
		work_start(a, s);
	c = &a->cpu[s->cpu];
	base = &c->stack[0];
	if (s->work && s->stage && base->kind == CTX_TASK && is_worker(s, base->pid, base->name))
		s->ran = 1;
	s->open = 1;
	s->last = s->expected_ns;
	s->idle_state = c->idle_state;
	s->idle_since_ns = c->idle_state >= 0 ? c->idle_since : 0;
	s->tick_stopped = c->tick_stopped;
	s->idle_budget_left = 0;
	s->probe_ns = 0;
	s->late_state = -1;
	s->late_exit_ns = LW_EXIT_LATENCY_NONE;
	s->late_ns = 0;
	s->wake_pending = 0;
	if (base->kind == CTX_IDLE)
		s->idle_budget_left = exit_budget(a, s->cpu, base->state);
	if ((a->have_extent && s->expected_ns < a->first) ||
	    (s->work && (!a->started || s->expected_ns < a->first_ev)))
		s->unattributable = "before the trace started";
	else if (base->kind == CTX_UNKNOWN && c->depth == 1)
		s->unattributable = "the CPU's state is unknown (no event on it yet)";
	if (open_on(c, (int)(s - a->s)) < 0) {
		s->unattributable = "out of memory";
		s->open = 0;
		s->done = 1;
		finish_spike(s);
		return;
	}
	a->nwork += s->work;
}

/* Closed: it waits for its CPU's next event. */
static void to_wait(struct lw_attrib *a, struct lw_spike *s)
{
	a->wait[a->nwait++] = (int)(s - a->s);
}

static void close_window(struct lw_attrib *a, struct lw_spike *s)
{
	struct cpu *c = &a->cpu[s->cpu];

	if (s->open) {
		account(a, c, s, end_of(s));
		close_on(c, (int)(s - a->s));
		a->nwork -= s->work;
	}
	if (s->blocked && s->blocked_ns)	/* still asleep at its end */
		charge(a, s, LW_C_BLOCKED, intern(a, ""), s->blocked_ns);
	s->blocked_ns = 0;
	s->open = 0;
	s->done = 1;
	finish_spike(s);
	to_wait(a, s);
}

/* Open every window whose E has come and close every one whose W has, at @t. */
static void advance(struct lw_attrib *a, uint64_t t)
{
	while (a->npend && a->s[a->pend[0]].expected_ns <= t) {
		int i = heap_pop(a, a->pend, &a->npend, pend_before);

		open_window(a, &a->s[i]);
		if (a->s[i].open)
			heap_push(a, a->ends, &a->nends, i, end_before);
		else
			to_wait(a, &a->s[i]);
	}
	while (a->nends && end_of(&a->s[a->ends[0]]) <= t)
		close_window(a, &a->s[heap_pop(a, a->ends, &a->nends, end_before)]);
}

static int cmp_latency_asc(const struct lw_spike *p, const struct lw_spike *q)
{
	return p->latency_ns < q->latency_ns;
}

static void keep_swap(struct lw_spike *x, struct lw_spike *y)
{
	struct lw_spike t = *x;

	*x = *y;
	*y = t;
}

/* Among the cfg.keep largest?  The kept ones are a heap, smallest on top. */
static void keep_spike(struct lw_attrib *a, const struct lw_spike *s)
{
	size_t i;

	if (a->nkeep < a->cfg.keep) {
		if (a->nkeep == a->capkeep) {
			size_t cap = a->capkeep ? a->capkeep * 2 : 16;
			struct lw_spike *t;

			cap = cap < a->cfg.keep ? cap : a->cfg.keep;
			t = realloc(a->keep, cap * sizeof(*t));
			if (!t)
				return;	/* the totals still count it */
			a->keep = t;
			a->capkeep = cap;
		}
		i = a->nkeep++;
		a->keep[i] = *s;
		while (i && cmp_latency_asc(&a->keep[i], &a->keep[(i - 1) / 2])) {
			keep_swap(&a->keep[i], &a->keep[(i - 1) / 2]);
			i = (i - 1) / 2;
		}
		return;
	}
	if (!a->nkeep || s->latency_ns <= a->keep[0].latency_ns)
		return;
	a->keep[0] = *s;
	for (i = 0;;) {
		size_t c = 2 * i + 1;

		if (c >= a->nkeep)
			break;
		if (c + 1 < a->nkeep && cmp_latency_asc(&a->keep[c + 1], &a->keep[c]))
			c++;
		if (!cmp_latency_asc(&a->keep[c], &a->keep[i]))
			break;
		keep_swap(&a->keep[c], &a->keep[i]);
		i = c;
	}
}

/* The spike's share of the totals: per cause, and what stays unexplained. */
static void add_totals(struct lw_attrib *a, const struct lw_spike *s)
{
	int running = 0;

	a->n++;
	a->total_ns += s->latency_ns;
	if (s->unattributable) {
		a->unattr++;
		a->unattr_ns += s->latency_ns;
		return;
	}
	for (int k = 0; k < s->ncomp; k++) {
		const struct lw_component *c = &s->comp[k];
		size_t j;

		for (j = 0; j < a->ncauses; j++)
			if (a->causes[j].kind == c->kind && a->causes[j].name == c->name)
				break;
		if (j == a->ncauses) {
			if (a->ncauses == a->capc) {
				size_t cap = a->capc ? a->capc * 2 : 32;
				struct cause *t = realloc(a->causes, cap * sizeof(*t));

				if (t) {
					a->causes = t;
					a->capc = cap;
				}
			}
			if (a->ncauses < a->capc)
				a->causes[a->ncauses++] = (struct cause){ c->kind, c->name, 0, 0 };
		}
		if (j < a->ncauses) {
			a->causes[j].ns += c->ns;
			if (k == s->dominant)
				a->causes[j].count++;
		}
		if (c->kind == LW_C_UNEXPLAINED) {
			a->run_ns += c->ns;
			running = 1;
		}
		if (c->kind != LW_C_IDLE_LATE)
			continue;
		a->late_ns += c->ns;
		for (j = 0; j < a->nlate; j++)
			if (a->late[j].state == c->name)
				break;
		if (j == a->nlate) {
			if (a->nlate == LATE_STATES)
				j = a->nlate - 1;	/* more states than kept: the last row */
			else
				a->late[a->nlate++] = (struct late){ c->name, s->late_exit_ns, 0, 0 };
		}
		a->late[j].ns += c->ns;
		a->late[j].spikes++;
	}
	a->run_spikes += (uint64_t)running;
}

/* Components of one kind and name (and stage) made one again, in place. */
static void merge_comps(struct lw_spike *s)
{
	int n = 0;

	for (int i = 0; i < s->ncomp; i++) {
		int j;

		for (j = 0; j < n; j++)
			if (s->comp[j].kind == s->comp[i].kind && s->comp[j].name == s->comp[i].name &&
			    s->comp[j].stage == s->comp[i].stage)
				break;
		if (j < n) {
			s->comp[j].ns += s->comp[i].ns;
			continue;
		}
		s->comp[n++] = s->comp[i];
	}
	s->ncomp = n;
}

/* @ns of @s's time with no trace event moved to host:steal: host:gap first,
 * then unexplained, idle-late, timer-late.  Returns what was moved. */
static uint64_t take_steal(struct lw_attrib *a, struct lw_spike *s, uint64_t ns)
{
	static const enum lw_comp_kind order[] = {
		LW_C_HOST, LW_C_UNEXPLAINED, LW_C_IDLE_LATE, LW_C_TIMER_LATE,
	};
	const char *gap = intern(a, "gap"), *steal = intern(a, "steal");
	uint64_t moved = 0;

	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]) && moved < ns; o++)
		for (int i = 0; i < s->ncomp && moved < ns; i++) {
			struct lw_component *c = &s->comp[i];
			uint64_t take;

			if (c->kind != order[o] || (c->kind == LW_C_HOST && c->name != gap))
				continue;
			take = c->ns < ns - moved ? c->ns : ns - moved;
			if (take == c->ns) {
				c->kind = LW_C_HOST;
				c->name = steal;
				c->pid = -1;
			} else {
				c->ns -= take;
				add_comp(s, LW_C_HOST, steal, -1, 0, take);
			}
			moved += take;
		}
	return moved;
}

/* Time no event explains that is hardware's or firmware's
 * (lw_attrib_cfg.smi_cpus, lw_spike.irqs_off); after host_time(), which
 * takes it first on a virtual machine. */
static void hwfw_time(struct lw_attrib *a, struct lw_spike *s)
{
	int smi = a->cfg.smi_cpus && a->cfg.smi_cpus[s->cpu];
	const char *name;

	if (s->work || s->unattributable || a->cfg.vm || (!smi && !(s->gap && s->irqs_off)))
		return;
	name = intern(a, smi ? "SMI" : "");
	for (int i = 0; i < s->ncomp; i++)
		if (s->comp[i].kind == LW_C_UNEXPLAINED) {
			s->comp[i].kind = LW_C_HWFW;
			s->comp[i].name = name;
		}
	for (int i = 0; i < s->nseg; i++)
		if (s->seg[i].kind == LW_C_UNEXPLAINED) {
			s->seg[i].kind = LW_C_HWFW;
			s->seg[i].name = name;
		}
	merge_comps(s);
	finish_spike(s);
}

/* The probe's timer interrupt came late and landed in the user space of
 * the task that ran meanwhile (run --stacks): interrupts were on there, and
 * a kernel section with them off would have let it in where it ended, in
 * the kernel; so the task held nothing back and no event explains the
 * wait: unexplained (the host's on a virtual machine, hardware's or
 * firmware's where the SMI count moved), not timer-late:TASK. */
static void late_in_user_space(struct lw_attrib *a, struct lw_spike *s)
{
	int upid = s->code[0].where == intern(a, LW_CODE_USER) ? s->code[0].pid : -1;
	const char *none = intern(a, ""), *name = NULL;

	if (s->work || s->unattributable || upid <= 0)
		return;
	for (int i = 0; i < s->ncomp; i++)
		if (s->comp[i].kind == LW_C_TIMER_LATE && s->comp[i].pid == upid) {
			name = s->comp[i].name;
			s->comp[i].kind = LW_C_UNEXPLAINED;
			s->comp[i].name = none;
			s->comp[i].pid = -1;
		}
	if (!name)
		return;
	for (int i = 0; i < s->nseg; i++)
		if (s->seg[i].kind == LW_C_TIMER_LATE && s->seg[i].name == name) {
			s->seg[i].kind = LW_C_UNEXPLAINED;
			s->seg[i].name = none;
		}
	merge_comps(s);
	finish_spike(s);
}

/* The host's part of a spike (lw_attrib_cfg.vm, .steal). */
static void host_time(struct lw_attrib *a, struct lw_spike *s)
{
	const char *gap = intern(a, "gap");
	uint64_t steal = 0;

	s->host_ns = s->steal_ns = 0;
	if (s->work || s->unattributable || (!a->cfg.vm && !a->cfg.steal))
		return;
	if (a->cfg.vm) {
		/* idle-late is the idle state's cost, which the guest chose
		 * (a halted vCPU is woken by the host: that is what its idle
		 * states cost in a virtual machine, and PM QoS avoids it);
		 * only a stretch no idle state explains is the host's */
		int late_host = 0;

		for (int i = 0; i < s->ncomp; i++) {
			int late = s->comp[i].kind == LW_C_IDLE_LATE && s->comp[i].ns >= LW_HOST_GAP_NS;

			late_host |= late;
			if (s->comp[i].kind == LW_C_UNEXPLAINED || late) {
				s->comp[i].kind = LW_C_HOST;
				s->comp[i].name = gap;
			}
		}
		for (int i = 0; i < s->nseg; i++)
			if (s->seg[i].kind == LW_C_UNEXPLAINED ||
			    (late_host && s->seg[i].kind == LW_C_IDLE_LATE)) {
				s->seg[i].kind = LW_C_HOST;
				s->seg[i].name = gap;
			}
		merge_comps(s);
	}
	if (a->cfg.steal)
		steal = a->cfg.steal(a->cfg.steal_ctx, s->cpu, s->expected_ns, end_of(s));
	s->steal_ns = steal;
	if (steal > s->latency_ns)
		steal = s->latency_ns;
	if (steal) {
		take_steal(a, s, steal);
		merge_comps(s);
	}
	for (int i = 0; i < s->ncomp; i++)
		if (s->comp[i].kind == LW_C_HOST)
			s->host_ns += s->comp[i].ns;
	finish_spike(s);
}

/* The attribution of the spike in @slot is final: fold it in, free it. */
static void finalize(struct lw_attrib *a, int slot)
{
	struct lw_spike *s = &a->s[slot];
	const char *why = overlaps_lost(a, s);

	if (why)
		s->unattributable = why;
	late_in_user_space(a, s);
	host_time(a, s);
	hwfw_time(a, s);
	if (!s->work) {
		add_totals(a, s);
		keep_spike(a, s);
	}
	if (a->cfg.done)
		a->cfg.done(a->cfg.done_ctx, s);
	a->free_slot[a->nfree++] = slot;
}

/* Every closed spike of @cpu whose window ended before @t: no lost window
 * learnt from now on can touch it. */
static void finalize_cpu(struct lw_attrib *a, int cpu, uint64_t t)
{
	for (size_t i = 0; i < a->nwait;) {
		struct lw_spike *s = &a->s[a->wait[i]];

		if (s->work && end_of(s) < t && visited(s, cpu))
			/* a work window waits for every CPU it was on */
			s->wait_cpus &= ~(1ULL << (cpu % 64));
		if (s->work ? !s->wait_cpus && !s->far : s->cpu == cpu && end_of(s) < t) {
			int slot = a->wait[i];

			a->wait[i] = a->wait[--a->nwait];
			finalize(a, slot);
		} else {
			i++;
		}
	}
}

static void push(struct cpu *c, enum ctx_kind k, const char *name, int pid, int prio, int state)
{
	if (c->depth < MAX_DEPTH)
		c->depth++;
	c->stack[c->depth - 1] = (struct ctx){ k, name, pid, prio, state, NULL };
}

static int base_idle(const struct cpu *c)
{
	return c->stack[0].kind == CTX_IDLE || (c->stack[0].kind == CTX_TASK && c->stack[0].pid == 0);
}

/* Back in the idle loop with a task woken onto this CPU: it runs now, even
 * where the kernel did not trace the switch. */
static void run_wakee(struct cpu *c)
{
	if (c->has_wakee && c->depth == 1 && (base_idle(c) || c->tentative)) {
		c->stack[0] = c->wakee;
		c->tentative = 1;	/* until an event is seen in its context */
		c->idle_state = -1;
	}
}

static void clear_wakee(struct cpu *c)
{
	c->has_wakee = 0;
	c->tentative = 0;
}

static void pop(struct cpu *c, enum ctx_kind k)
{
	/* pop down to the matching context; a lost entry leaves nothing stale */
	for (int d = c->depth - 1; d >= 1; d--)
		if (c->stack[d].kind == k) {
			c->depth = d;
			run_wakee(c);
			return;
		}
}

static struct task *task_slot(struct lw_attrib *a, int pid)
{
	return &a->tasks[(unsigned)pid * 2654435761u % TASKS];
}

static void task_seen(struct lw_attrib *a, int pid, int prio, const char *comm)
{
	struct task *t = task_slot(a, pid);

	if (pid <= 0)
		return;
	if (t->pid != pid) {
		t->comm = NULL;
		t->cpu = -1;
		t->state = LW_PREV_RUNNABLE;
	}
	t->pid = pid;
	t->prio = prio;
	/* names rarely change: skip the hashing when it is the one known */
	if (comm && *comm && (!t->comm || strcmp(t->comm, comm)))
		t->comm = intern(a, comm);
}

/* Where @pid is and whether it can run, if the table knows it. */
static void task_at(struct lw_attrib *a, int pid, int cpu, int state)
{
	struct task *t = task_slot(a, pid);

	if (pid > 0 && t->pid == pid) {
		t->cpu = cpu;
		t->state = state;
	}
}

/* The interned name of @pid, from the table when it matches. */
static const char *task_comm(struct lw_attrib *a, int pid, const char *comm)
{
	const struct task *t = task_slot(a, pid);

	if (t->pid == pid && t->comm && comm && !strcmp(t->comm, comm))
		return t->comm;
	return intern(a, comm);
}

/* The event was recorded while @pid was current: make it the base if the
 * engine thought otherwise (an untraced switch). */
static void correct_base(struct lw_attrib *a, struct cpu *c, int pid)
{
	struct ctx *base = &c->stack[0];
	const struct task *t;
	char buf[24];

	if (pid == 0) {
		/* still in the idle task (several timers expire in one interrupt):
		 * a tentative wakee waits for the interrupt to end */
		if (base->kind == CTX_TASK && base->pid != 0)
			*base = (struct ctx){ CTX_TASK, intern(a, "swapper"), 0, 120, -1, NULL };
		return;
	}
	if (c->has_wakee && c->wakee.pid == pid)
		clear_wakee(c);	/* seen running: no longer a guess */
	if (base->kind == CTX_TASK && base->pid == pid)
		return;
	t = task_slot(a, pid);
	if (t->pid == pid && t->comm) {
		*base = (struct ctx){ CTX_TASK, t->comm, pid, t->prio, -1, NULL };
	} else {
		snprintf(buf, sizeof(buf), "pid %d", pid);
		*base = (struct ctx){ CTX_TASK, intern(a, buf), pid, t->pid == pid ? t->prio : 120, -1, NULL };
	}
}

/* The window in @slot follows its thread to @to from @ts on. */
static void move_window(struct lw_attrib *a, struct lw_spike *s, int to, uint64_t ts)
{
	struct cpu *n;
	int slot = (int)(s - a->s);

	if (to < 0 || to >= a->cfg.ncpus || to == s->cpu)
		return;
	account(a, &a->cpu[s->cpu], s, ts);
	n = &a->cpu[to];
	if (open_on(n, slot) < 0)
		return;	/* out of memory: it stays where it is */
	close_on(&a->cpu[s->cpu], slot);
	s->cpu = to;
	visit(s, to);
	if (n->stack[0].kind == CTX_IDLE)
		s->idle_budget_left += exit_budget(a, to, n->stack[0].state);
	if (n->stack[0].kind == CTX_UNKNOWN && n->depth == 1 && !s->unattributable)
		s->unattributable = "the CPU's state is unknown (no event on it yet)";
}

/* The thread a work window followed was asleep until @ts: what woke it (a
 * task's pid, or -1). */
static void unblock(struct lw_attrib *a, struct lw_spike *s, const char *by, int pid, uint64_t ts)
{
	account(a, &a->cpu[s->cpu], s, ts);
	s->blocked = 0;
	s->last = ts;
	charge_task(a, s, LW_C_BLOCKED, by, pid, s->blocked_ns);
	s->blocked_ns = 0;
}

/* A wake-up (from @c, onto @target) of a thread a work window waits for. */
static void work_wakeup(struct lw_attrib *a, struct cpu *c, const struct lw_tev *ev, int target,
			const struct ctx *by)
{
	for (size_t i = 0; i < a->nends; i++) {
		struct lw_spike *s = &a->s[a->ends[i]];
		int worker, waker;

		if (!s->work || !s->open)
			continue;
		worker = is_worker(s, ev->pid, ev->name);
		waker = !s->stage && is_waker(s, ev->pid, ev->name);
		if ((!worker && !waker) || (worker && s->stage && !s->blocked) ||
		    (!worker && s->waker_woken && !s->blocked))
			continue;
		account(a, &a->cpu[s->cpu], s, ev->ts);
		if (s->blocked)	/* what woke it; the worker woken while the waker
				 * slept: not known */
			unblock(a, s, worker && !s->stage ? intern(a, "") : by->name,
				worker && !s->stage ? -1 : by->kind == CTX_TASK ? by->pid : -1, ev->ts);
		if (worker) {
			s->stage = 1;
			if (!s->woken_ns)
				s->woken_ns = ev->ts;
			if (s->kprio < 0)
				s->kprio = ev->prio;
		} else {
			s->waker_woken = 1;
			if (s->waker_kprio < 0)
				s->waker_kprio = ev->prio;
		}
		move_window(a, s, target, ev->ts);
		/* its CPU learns of it by an interrupt */
		s->wake_pending = target != ev->cpu;
	}
	(void)c;
}

/* A switch on @cpu: the thread followed went to sleep, or runs elsewhere. */
static void work_switch(struct lw_attrib *a, const struct lw_tev *ev)
{
	const struct task *prev = task_known(a, ev->prev_pid);

	for (size_t i = 0; i < a->nends; i++) {
		struct lw_spike *s = &a->s[a->ends[i]];

		if (!s->work || !s->open)
			continue;
		if (ev->arg != LW_PREV_RUNNABLE && ev->prev_pid > 0 && !s->blocked &&
		    (s->stage || s->waker_woken) &&
		    follows(s, ev->prev_pid, prev ? prev->comm : NULL)) {
			account(a, &a->cpu[s->cpu], s, ev->ts);
			s->blocked = 1;
		}
		if (ev->pid > 0 && follows(s, ev->pid, ev->name)) {
			if (s->blocked)	/* its wake-up was not traced */
				unblock(a, s, intern(a, ""), -1, ev->ts);
			move_window(a, s, ev->cpu, ev->ts);
			if (s->stage) {
				s->ran = 1;
				if (!s->switched_in_ns)
					s->switched_in_ns = ev->ts;
			}
		}
	}
}

/* A kernel stack: for the open spikes of the thread it was taken for, the
 * first one at each of its wake-up and its switch-in.  It changes nothing
 * of what ran. */
static void code_seen(struct lw_attrib *a, const struct lw_tev *ev)
{
	int at = ev->arg == 1 ? 1 : 0;

	if (!ev->name || ev->pid <= 0 || ev->prev_pid <= 0)
		return;
	for (int k = 0; k < a->cfg.ncpus; k++) {
		struct cpu *o = &a->cpu[k];

		for (int i = 0; i < o->nopen; i++) {
			struct lw_spike *s = &a->s[o->open[i]];

			if (!s->work && s->tid == ev->prev_pid && !s->code[at].where) {
				s->code[at].pid = ev->pid;
				s->code[at].where = intern(a, ev->name);
			}
		}
	}
}

/* A preemptirq section that ends now: for each open spike of its CPU that
 * it overlaps, the longest of its kind. */
static void section_seen(struct lw_attrib *a, const struct lw_tev *ev)
{
	int k = ev->prev_pid == LW_SECT_PREEMPT ? LW_SECT_PREEMPT : LW_SECT_IRQS;
	uint64_t from = ev->arg > 0 ? (uint64_t)ev->arg : 0;
	struct cpu *c;

	if (ev->cpu < 0 || ev->cpu >= a->cfg.ncpus || from > ev->ts)
		return;
	c = &a->cpu[ev->cpu];
	for (int i = 0; i < c->nopen; i++) {
		struct lw_spike *s = &a->s[c->open[i]];

		if (s->work || from >= s->expected_ns + s->latency_ns || ev->ts <= s->expected_ns)
			continue;
		if (ev->ts - from > s->sect[k].to - s->sect[k].from) {
			s->sect[k].from = from;
			s->sect[k].to = ev->ts;
			s->sect[k].where = ev->name ? intern(a, ev->name) : NULL;
		}
	}
}

void lw_attrib_event(struct lw_attrib *a, const struct lw_tev *ev)
{
	struct cpu *c;

	if (ev->kind == LW_TEV_STACK || ev->kind == LW_TEV_SECTION) {
		/* windows due by now open (and those past close) first */
		advance(a, ev->ts);
		if (ev->ts > a->now)
			a->now = ev->ts;
		if (ev->kind == LW_TEV_STACK)
			code_seen(a, ev);
		else
			section_seen(a, ev);
		return;
	}
	if (!a->started)
		a->first_ev = ev->ts;
	a->started = 1;
	advance(a, ev->ts);
	if (ev->ts > a->now)
		a->now = ev->ts;
	if (ev->cpu < 0 || ev->cpu >= a->cfg.ncpus)
		return;
	if (a->nwait)
		finalize_cpu(a, ev->cpu, ev->ts);
	c = &a->cpu[ev->cpu];
	/* charge the time up to this event to the context before it */
	for (int i = 0; i < c->nopen; i++)
		account(a, c, &a->s[c->open[i]], ev->ts);
	if (ev->has_cur && ev->kind != LW_TEV_SWITCH && ev->kind != LW_TEV_IDLE)
		correct_base(a, c, ev->cur_pid);
	c->stack[c->depth - 1].after = NULL;	/* only up to the next event */

	switch (ev->kind) {
	case LW_TEV_SWITCH:
		task_at(a, ev->prev_pid, ev->cpu, ev->arg == LW_PREV_BLOCKED ? LW_PREV_BLOCKED :
			ev->arg ? LW_PREV_SLEEPING : LW_PREV_RUNNABLE);
		task_seen(a, ev->pid, ev->prio, ev->name);
		task_at(a, ev->pid, ev->cpu, LW_PREV_RUNNABLE);
		if (a->nwork)
			work_switch(a, ev);
		clear_wakee(c);
		c->depth = 1;	/* a switch happens in task context */
		if (ev->pid == 0) {
			c->stack[0] = (struct ctx){ CTX_IDLE, intern(a, "idle"), 0, 120, c->idle_state, NULL };
		} else {
			c->stack[0] = (struct ctx){ CTX_TASK, task_comm(a, ev->pid, ev->name), ev->pid,
						    ev->prio, -1, NULL };
		}
		for (int i = 0; i < c->nopen; i++) {
			struct lw_spike *s = &a->s[c->open[i]];

			if (!s->work && s->tid >= 0 && ev->pid == s->tid && !s->switched_in_ns)
				s->switched_in_ns = ev->ts;
		}
		break;
	case LW_TEV_WAKEUP: {
		int target = ev->arg >= 0 && ev->arg < a->cfg.ncpus ? (int)ev->arg : ev->cpu;
		struct cpu *tc = &a->cpu[target];

		task_seen(a, ev->pid, ev->prio, ev->name);
		task_at(a, ev->pid, target, LW_PREV_RUNNABLE);
		if (a->nwork)
			work_wakeup(a, c, ev, target, &c->stack[c->depth - 1]);
		if (ev->pid > 0 && (base_idle(tc) || tc->tentative) &&
		    (!tc->has_wakee || ev->prio < tc->wakee.prio)) {
			const struct task *t = task_slot(a, ev->pid);

			tc->wakee = (struct ctx){ CTX_TASK, t->pid == ev->pid && t->comm ? t->comm :
						  intern(a, ev->name), ev->pid, ev->prio, -1, NULL };
			tc->has_wakee = 1;
			if (tc == c)
				run_wakee(c);	/* woken from task context: no interrupt to end */
		}
	}
		for (int k = 0; k < a->cfg.ncpus; k++) {	/* a wake-up may come from another CPU */
			struct cpu *o = &a->cpu[k];

			for (int i = 0; i < o->nopen; i++) {
				struct lw_spike *s = &a->s[o->open[i]];

				if (!s->work && s->tid >= 0 && ev->pid == s->tid && !s->woken_ns) {
					account(a, o, s, ev->ts);
					s->woken_ns = ev->ts;
					/* the CPU learns of it by an interrupt */
					s->wake_pending = k != ev->cpu;
				}
			}
		}
		break;
	case LW_TEV_IRQ_ENTRY:
		push(c, CTX_IRQ, intern(a, ev->name), 0, 0, -1);
		for (int i = 0; i < c->nopen; i++)
			a->s[c->open[i]].wake_pending = 0;	/* a remote wake-up reached it */
		break;
	case LW_TEV_IRQ_EXIT:
		pop(c, CTX_IRQ);
		break;
	case LW_TEV_SOFTIRQ_ENTRY:
		push(c, CTX_SOFTIRQ, intern(a, ev->name), 0, 0, -1);
		break;
	case LW_TEV_SOFTIRQ_EXIT:
		pop(c, CTX_SOFTIRQ);
		break;
	case LW_TEV_TIMER_ENTRY:
		push(c, CTX_TIMER, intern(a, ev->name), 0, 0, -1);
		break;
	case LW_TEV_TIMER_EXIT: {
		int d = c->depth;

		pop(c, CTX_TIMER);
		if (c->depth < d && c->stack[c->depth - 1].kind == CTX_IRQ)
			c->stack[c->depth - 1].after = c->stack[c->depth].name;
		break;
	}
	case LW_TEV_IDLE:
		if (ev->arg >= 0) {
			c->idle_state = (int)ev->arg;
			c->last_state = (int)ev->arg;
			c->idle_since = ev->ts;
			clear_wakee(c);
			c->depth = 1;
			c->stack[0] = (struct ctx){ CTX_IDLE, intern(a, "idle"), 0, 120, (int)ev->arg, NULL };
			for (int i = 0; i < c->nopen; i++) {
				struct lw_spike *s = &a->s[c->open[i]];

				/* entering idle inside a window: its exit is owed too */
				s->idle_budget_left += exit_budget(a, s->cpu, (int)ev->arg);
			}
		} else {
			c->idle_state = -1;
			/* back in the idle loop's task context (swapper) */
			if (c->stack[0].kind == CTX_IDLE)
				c->stack[0] = (struct ctx){ CTX_TASK, intern(a, "swapper"), 0, 120, -1, NULL };
			run_wakee(c);
		}
		break;
	case LW_TEV_TICK_STOP:
		c->tick_stopped = ev->arg ? 1 : 0;
		break;
	case LW_TEV_FREQ:
		for (int i = 0; i < c->nopen; i++)
			a->s[c->open[i]].freq_changes++;
		break;
	case LW_TEV_MIGRATE:
		for (int i = 0; i < c->nopen; i++)
			a->s[c->open[i]].migrations++;
		task_at(a, ev->pid, ev->cpu, task_known(a, ev->pid) ? task_known(a, ev->pid)->state :
			LW_PREV_RUNNABLE);
		for (size_t i = 0; a->nwork && i < a->nends; i++) {
			struct lw_spike *s = &a->s[a->ends[i]];

			if (s->work && s->open && ev->pid > 0 &&
			    follows(s, ev->pid, task_known(a, ev->pid) ? task_known(a, ev->pid)->comm : NULL))
				move_window(a, s, ev->cpu, ev->ts);
		}
		break;
	default:
		break;
	}
}

/* Not closed when the trace ended: why it cannot be attributed (lost
 * events in its window, which finalize() finds, say it first). */
static void cut_short(struct lw_attrib *a, struct lw_spike *s)
{
	if (!s->unattributable)
		s->unattributable = a->have_extent && s->expected_ns > a->last ?
				    "after the trace ended" : "the trace ends inside this window";
}

static int cmp_expected(const void *x, const void *y)
{
	const struct lw_spike *p = x, *q = y;

	if (p->expected_ns != q->expected_ns)
		return p->expected_ns < q->expected_ns ? -1 : 1;
	return p->index < q->index ? -1 : p->index > q->index;
}

void lw_attrib_finish(struct lw_attrib *a)
{
	/* windows past the end of the trace cannot be reconstructed */
	for (size_t i = 0; i < a->nends; i++) {
		struct lw_spike *s = &a->s[a->ends[i]];

		/* closed as usual where the probe already runs (what is left is
		 * its own return path); a loss in the window still says so */
		if (s->unattributable || !s->switched_in_ns || s->work)
			cut_short(a, s);
		close_window(a, s);
	}
	a->nends = 0;
	while (a->npend) {
		struct lw_spike *s = &a->s[heap_pop(a, a->pend, &a->npend, pend_before)];

		cut_short(a, s);
		s->done = 1;
		finish_spike(s);
		to_wait(a, s);
	}
	/* lost windows are all known now */
	while (a->nwait)
		finalize(a, a->wait[--a->nwait]);
	lw_qsort(a->keep, a->nkeep, sizeof(*a->keep), cmp_expected);
}

size_t lw_attrib_kept(const struct lw_attrib *a) { return a->nkeep; }
size_t lw_attrib_slots(const struct lw_attrib *a) { return a->cap; }
