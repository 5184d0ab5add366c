// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>

#include "analysis/attrib.h"
#include "lib/error.h"

#define MAX_DEPTH 16

enum ctx_kind { CTX_UNKNOWN, CTX_IDLE, CTX_TASK, CTX_SOFTIRQ, CTX_IRQ, CTX_TIMER };

struct ctx {
	enum ctx_kind kind;
	const char *name;	/* interned */
	int pid, prio, state;
	/* an interrupt just back from a timer callback: the timer interrupt's
	 * own work around each callback (taking it off the queue, tracing,
	 * re-arming) until its next event, charged to that callback */
	const char *after;
};

struct cpu {
	struct ctx stack[MAX_DEPTH];
	int depth;		/* >= 1: stack[0] is the base */
	int tick_stopped;	/* -1 unknown */
	int idle_state;		/* -1 busy or unknown */
	uint64_t idle_since;
	int *open;		/* indices of open spike windows */
	int nopen, capopen;
	/* a task woken onto this CPU while it idled: the one it will run once
	 * the interrupt returns (highest priority if several) */
	struct ctx wakee;
	int has_wakee;
	int tentative;		/* the base is the wakee, not yet seen running */
	int last_state;		/* the idle state last entered, -1 none */
};

struct lost { int cpu; uint64_t from, to; const char *why; };

/* What the trace said of a task: its priority and name. */
struct task { int pid; int prio; const char *comm; };
#define TASKS 8192	/* open addressing; old entries are overwritten */

struct cause {
	enum lw_comp_kind kind;
	const char *name;
	uint64_t count, ns;
};

#define LATE_STATES 16
struct late { const char *state; uint64_t exit_ns, ns, spikes; };

struct lw_attrib {
	struct lw_attrib_cfg cfg;
	struct cpu *cpu;
	/* the live spikes, in slots that are reused: each is in one of pend
	 * (not open yet: a heap by expected time), ends (open: a heap by the
	 * end of its window) or wait (closed, waiting for its CPU's next event
	 * to know whether events were lost in its window) */
	struct lw_spike *s;
	size_t cap;
	int *pend, *ends, *wait, *free_slot;
	size_t npend, nends, nwait, nfree;
	uint64_t now;		/* the last event's time */
	struct lost *lost;
	size_t nlost, caplost;
	uint64_t first, last;
	int have_extent, started;
	struct task *tasks;
	/* interned strings: a small open-addressing table */
	char **str;
	size_t nstr, capstr;
	/* totals over the spikes whose attribution is final */
	uint64_t n, unattr, total_ns, unattr_ns;
	struct cause *causes;
	size_t ncauses, capc;
	struct late late[LATE_STATES];
	size_t nlate;
	uint64_t late_ns, run_ns, run_spikes;
	/* the cfg.keep largest: a heap by latency, by expected time after
	 * lw_attrib_finish() */
	struct lw_spike *keep;
	size_t nkeep, capkeep;
};

static const char *const comp_names[LW_C_MAX] = {
	[LW_C_IDLE_EXIT] = "idle-exit", [LW_C_IRQ] = "irq", [LW_C_SOFTIRQ] = "softirq",
	[LW_C_TIMER] = "timer", [LW_C_PREEMPT] = "preempt", [LW_C_NONPREEMPT] = "non-preemptible",
	[LW_C_TIMER_LATE] = "timer-late", [LW_C_PROBE] = "probe", [LW_C_UNEXPLAINED] = "unexplained",
	[LW_C_IDLE_LATE] = "idle-late", [LW_C_TASK] = "task",
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

static void charge_task(struct lw_attrib *a, struct lw_spike *s, enum lw_comp_kind k,
			const char *name, int pid, uint64_t ns)
{
	int i;

	if (!ns)
		return;
	segment(s, k, name, s->last - ns, s->last);
	for (i = 0; i < s->ncomp; i++)
		if (s->comp[i].kind == k && s->comp[i].name == name)
			break;
	if (i == s->ncomp) {
		if (s->ncomp == LW_ATTRIB_MAX_COMP) {
			/* fold the rest into the last slot's kind: keep totals exact */
			i = s->ncomp - 1;
		} else {
			s->comp[i] = (struct lw_component){ k, name, 0, pid };
			s->ncomp++;
		}
	}
	s->comp[i].ns += ns;
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

/* Charge [s->last, to) to the context on top of @c's stack. */
static void account(struct lw_attrib *a, struct cpu *c, struct lw_spike *s, uint64_t to)
{
	const struct ctx *x = &c->stack[c->depth - 1];
	uint64_t ns;

	if (to <= s->last)
		return;
	ns = to - s->last;
	/* charge() places each piece at [last - ns, last): advance as it goes */
	switch (x->kind) {
	case CTX_IRQ:
		s->last = to;
		if (x->after && !s->gap && !strcmp(x->after, "hrtimer_wakeup"))
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
		if (!s->gap && !strcmp(x->name, "hrtimer_wakeup"))
			charge_probe(a, s, x->name, ns);
		else
			charge(a, s, LW_C_TIMER, x->name, ns);
		break;
	case CTX_IDLE: {
		uint64_t in = ns < s->idle_budget_left ? ns : s->idle_budget_left;
		const char *st = x->state >= 0 ? state_name(a, s->cpu, x->state) : intern(a, "idle");

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
		if (s->gap) {
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
static const char *overlaps_lost(const struct lw_attrib *a, const struct lw_spike *s)
{
	uint64_t from = s->expected_ns, to = s->expected_ns + s->latency_ns;
	const char *why = NULL;

	for (size_t i = 0; i < a->nlost; i++)
		if ((a->lost[i].cpu < 0 || a->lost[i].cpu == s->cpu) &&
		    a->lost[i].from <= to && a->lost[i].to >= from) {
			if (a->lost[i].why)
				return a->lost[i].why;
			why = "trace events were lost in this window";
		}
	return why;
}

static void finish_spike(struct lw_spike *s)
{
	uint64_t best = 0;

	s->dominant = -1;
	for (int i = 0; i < s->ncomp; i++)
		if (s->comp[i].ns > best) {
			best = s->comp[i].ns;
			s->dominant = i;
		}
}

static void open_window(struct lw_attrib *a, struct lw_spike *s)
{
	struct cpu *c = &a->cpu[s->cpu];
	const struct ctx *base = &c->stack[0];

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
	if (a->have_extent && s->expected_ns < a->first)
		s->unattributable = "before the trace started";
	else if (base->kind == CTX_UNKNOWN && c->depth == 1)
		s->unattributable = "the CPU's state is unknown (no event on it yet)";
	if (c->nopen == c->capopen) {
		int cap = c->capopen ? c->capopen * 2 : 8;
		int *t = realloc(c->open, (size_t)cap * sizeof(*t));

		if (!t) {
			s->unattributable = "out of memory";
			s->open = 0;
			s->done = 1;
			finish_spike(s);
			return;
		}
		c->open = t;
		c->capopen = cap;
	}
	c->open[c->nopen++] = (int)(s - a->s);
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
		for (int i = 0; i < c->nopen; i++)
			if (c->open[i] == (int)(s - a->s)) {
				c->open[i] = c->open[--c->nopen];
				break;
			}
	}
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

/* The attribution of the spike in @slot is final: fold it in, free it. */
static void finalize(struct lw_attrib *a, int slot)
{
	struct lw_spike *s = &a->s[slot];
	const char *why = overlaps_lost(a, s);

	if (why)
		s->unattributable = why;
	add_totals(a, s);
	keep_spike(a, s);
	if (a->cfg.done)
		a->cfg.done(a->cfg.done_ctx, s);
	a->free_slot[a->nfree++] = slot;
}

/* Every closed spike of @cpu whose window ended before @t: no lost window
 * learnt from now on can touch it. */
static void finalize_cpu(struct lw_attrib *a, int cpu, uint64_t t)
{
	for (size_t i = 0; i < a->nwait;) {
		const struct lw_spike *s = &a->s[a->wait[i]];

		if (s->cpu == cpu && end_of(s) < t) {
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
	if (t->pid != pid)
		t->comm = NULL;
	t->pid = pid;
	t->prio = prio;
	/* names rarely change: skip the hashing when it is the one known */
	if (comm && *comm && (!t->comm || strcmp(t->comm, comm)))
		t->comm = intern(a, comm);
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

void lw_attrib_event(struct lw_attrib *a, const struct lw_tev *ev)
{
	struct cpu *c;

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
		task_seen(a, ev->pid, ev->prio, ev->name);
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

			if (s->tid >= 0 && ev->pid == s->tid && !s->switched_in_ns)
				s->switched_in_ns = ev->ts;
		}
		break;
	case LW_TEV_WAKEUP: {
		int target = ev->arg >= 0 && ev->arg < a->cfg.ncpus ? (int)ev->arg : ev->cpu;
		struct cpu *tc = &a->cpu[target];

		task_seen(a, ev->pid, ev->prio, ev->name);
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

				if (s->tid >= 0 && ev->pid == s->tid && !s->woken_ns) {
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
		if (s->unattributable || !s->switched_in_ns)
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
	qsort(a->keep, a->nkeep, sizeof(*a->keep), cmp_expected);
}

size_t lw_attrib_kept(const struct lw_attrib *a) { return a->nkeep; }
size_t lw_attrib_slots(const struct lw_attrib *a) { return a->cap; }

const struct lw_spike *lw_attrib_get(const struct lw_attrib *a, size_t i)
{
	return i < a->nkeep ? &a->keep[i] : NULL;
}

const char *lw_spike_cause(const struct lw_spike *s, char *buf, size_t len)
{
	if (s->unattributable)
		return "unattributable";
	if (s->dominant < 0)
		return "?";
	return lw_component_label(&s->comp[s->dominant], buf, len);
}

const char *lw_component_label(const struct lw_component *c, char *buf, size_t len)
{
	if (c->name && *c->name)
		snprintf(buf, len, "%s:%s", lw_comp_kind_name(c->kind), c->name);
	else
		snprintf(buf, len, "%s", lw_comp_kind_name(c->kind));
	return buf;
}

static int cmp_latency_desc(const void *x, const void *y)
{
	const struct lw_spike *p = *(const struct lw_spike *const *)x;
	const struct lw_spike *q = *(const struct lw_spike *const *)y;

	return p->latency_ns < q->latency_ns ? 1 : p->latency_ns > q->latency_ns ? -1 : 0;
}

static int cmp_cause(const void *x, const void *y)
{
	const struct cause *p = x, *q = y;

	return p->ns < q->ns ? 1 : p->ns > q->ns ? -1 : 0;
}

static int cmp_comp(const void *x, const void *y)
{
	const struct lw_component *p = x, *q = y;

	return p->ns < q->ns ? 1 : p->ns > q->ns ? -1 : 0;
}

static json_t *spike_json(const struct lw_spike *s)
{
	struct lw_component sorted[LW_ATTRIB_MAX_COMP];
	json_t *comp = json_array();
	char label[160];
	json_t *o;

	memcpy(sorted, s->comp, (size_t)s->ncomp * sizeof(*sorted));
	qsort(sorted, (size_t)s->ncomp, sizeof(*sorted), cmp_comp);	/* largest first */
	for (int i = 0; i < s->ncomp; i++) {
		json_t *c = json_pack("{s:s, s:s, s:s, s:I, s:f}",
			"cause", lw_component_label(&sorted[i], label, sizeof(label)),
			"kind", lw_comp_kind_name(sorted[i].kind), "name", sorted[i].name,
			"ns", (json_int_t)sorted[i].ns,
			"share", s->latency_ns ? (double)sorted[i].ns / (double)s->latency_ns : 0.0);

		if (sorted[i].pid > 0)
			json_object_set_new(c, "pid", json_integer(sorted[i].pid));
		json_array_append_new(comp, c);
	}
	json_t *tl = json_array();

	for (int i = 0; i < s->nseg; i++)
		json_array_append_new(tl, json_pack("{s:I, s:I, s:s, s:s}",
			"start_ns", (json_int_t)s->seg[i].from_ns, "end_ns", (json_int_t)s->seg[i].to_ns,
			"kind", lw_comp_kind_name(s->seg[i].kind), "name", s->seg[i].name));
	o = json_pack("{s:i, s:i, s:I, s:I, s:I, s:o}", "cpu", s->cpu, "probe", (int)s->probe,
		      "expected_ns", (json_int_t)s->expected_ns, "latency_ns", (json_int_t)s->latency_ns,
		      "sample", (json_int_t)s->index, "components", comp);
	if (s->unattributable) {
		json_object_set_new(o, "cause", json_string("unattributable"));
		json_object_set_new(o, "unattributable", json_string(s->unattributable));
	} else if (s->dominant >= 0) {
		json_object_set_new(o, "cause", json_string(lw_component_label(&s->comp[s->dominant],
									      label, sizeof(label))));
		json_object_set_new(o, "cause_share",
				    json_real((double)s->comp[s->dominant].ns / (double)s->latency_ns));
		if (s->comp[s->dominant].pid > 0)
			json_object_set_new(o, "cause_task", json_pack("{s:i, s:s}",
				"pid", s->comp[s->dominant].pid, "name", s->comp[s->dominant].name));
	}
	json_object_set_new(o, "idle_state", s->idle_state >= 0 ? json_integer(s->idle_state) : json_null());
	if (s->idle_state >= 0)
		json_object_set_new(o, "idle_since_ns", json_integer((json_int_t)s->idle_since_ns));
	json_object_set_new(o, "woken_ns", s->woken_ns ? json_integer((json_int_t)s->woken_ns) : json_null());
	json_object_set_new(o, "switched_in_ns", s->switched_in_ns ?
			    json_integer((json_int_t)s->switched_in_ns) : json_null());
	json_object_set_new(o, "tick_stopped", s->tick_stopped < 0 ? json_null() :
			    json_boolean(s->tick_stopped));
	for (int i = 0; i < s->ncomp; i++)
		if (s->comp[i].kind == LW_C_IDLE_LATE) {
			json_object_set_new(o, "idle_late", json_pack("{s:s, s:o, s:I}",
				"state", s->comp[i].name, "exit_latency_ns",
				s->late_exit_ns == LW_EXIT_LATENCY_NONE ? json_null() :
				json_integer((json_int_t)s->late_exit_ns),
				"excess_ns", (json_int_t)s->late_ns));
			break;
		}
	json_object_set_new(o, "timeline", tl);
	if (s->seg_truncated)
		json_object_set_new(o, "timeline_truncated", json_true());
	json_object_set_new(o, "freq_changes", json_integer(s->freq_changes));
	json_object_set_new(o, "migrations", json_integer(s->migrations));
	return o;
}

/* What the trace knows of the time it cannot explain: idle past each state's
 * exit latency, apart from time with the CPU running and no event. */
static json_t *unexplained_json(const struct lw_attrib *a)
{
	json_t *arr = json_array();

	for (size_t j = 0; j < a->nlate; j++)
		json_array_append_new(arr, json_pack("{s:s, s:o, s:I, s:I}", "state", a->late[j].state,
			"exit_latency_ns", a->late[j].exit_ns == LW_EXIT_LATENCY_NONE ? json_null() :
			json_integer((json_int_t)a->late[j].exit_ns),
			"ns", (json_int_t)a->late[j].ns, "spikes", (json_int_t)a->late[j].spikes));
	return json_pack("{s:o, s:I, s:I, s:I}", "idle_late", arr, "idle_late_ns",
			 (json_int_t)a->late_ns, "running_ns", (json_int_t)a->run_ns,
			 "running_spikes", (json_int_t)a->run_spikes);
}

json_t *lw_attrib_json(const struct lw_attrib *a, size_t top_n)
{
	const struct lw_spike **by_lat = malloc((a->nkeep ? a->nkeep : 1) * sizeof(*by_lat));
	struct cause *causes = malloc((a->ncauses ? a->ncauses : 1) * sizeof(*causes));
	json_t *spikes = json_array(), *cj = json_array();
	char label[160];

	if (!by_lat || !causes) {
		free(by_lat);
		free(causes);
		json_decref(spikes);
		json_decref(cj);
		return NULL;
	}
	for (size_t i = 0; i < a->nkeep; i++)
		by_lat[i] = &a->keep[i];
	qsort(by_lat, a->nkeep, sizeof(*by_lat), cmp_latency_desc);
	for (size_t i = 0; i < a->nkeep && i < top_n; i++)
		json_array_append_new(spikes, spike_json(by_lat[i]));
	memcpy(causes, a->causes, a->ncauses * sizeof(*causes));
	qsort(causes, a->ncauses, sizeof(*causes), cmp_cause);
	for (size_t j = 0; j < a->ncauses; j++) {
		struct lw_component c = { causes[j].kind, causes[j].name, causes[j].ns, -1 };

		json_array_append_new(cj, json_pack("{s:s, s:s, s:s, s:I, s:I, s:f}",
			"cause", lw_component_label(&c, label, sizeof(label)),
			"kind", lw_comp_kind_name(c.kind), "name", c.name,
			"count", (json_int_t)causes[j].count, "ns", (json_int_t)causes[j].ns,
			"share", a->total_ns ? (double)causes[j].ns / (double)a->total_ns : 0.0));
	}
	if (a->unattr)
		json_array_append_new(cj, json_pack("{s:s, s:s, s:s, s:I, s:I, s:f}",
			"cause", "unattributable", "kind", "unattributable", "name", "",
			"count", (json_int_t)a->unattr, "ns", (json_int_t)a->unattr_ns,
			"share", a->total_ns ? (double)a->unattr_ns / (double)a->total_ns : 0.0));
	free(by_lat);
	free(causes);
	return json_pack("{s:I, s:I, s:I, s:I, s:o, s:o, s:o}",
		"spikes_total", (json_int_t)a->n, "attributed", (json_int_t)(a->n - a->unattr),
		"unattributable", (json_int_t)a->unattr, "total_latency_ns", (json_int_t)a->total_ns,
		"causes", cj, "unexplained", unexplained_json(a), "top", spikes);
}
