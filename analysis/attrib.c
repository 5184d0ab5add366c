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

struct lw_attrib {
	struct lw_attrib_cfg cfg;
	struct cpu *cpu;
	struct lw_spike *s;	/* sorted by expected_ns once events start */
	size_t n, cap;
	int *by_end;		/* spike indices sorted by E + latency */
	size_t next_open, next_close;
	struct lost *lost;
	size_t nlost, caplost;
	uint64_t first, last;
	int have_extent, started;
	struct task *tasks;
	/* interned strings: a small open-addressing table */
	char **str;
	size_t nstr, capstr;
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
	free(a->by_end);
	free(a->lost);
	free(a);
}

int lw_attrib_add_spike(struct lw_attrib *a, const struct lw_spike *s)
{
	if (a->started)
		return error("spike attribution: spikes must be added before events");
	if (s->cpu < 0 || s->cpu >= a->cfg.ncpus)
		return error("spike attribution: cpu %d outside 0-%d", s->cpu, a->cfg.ncpus - 1);
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		struct lw_spike *t = realloc(a->s, cap * sizeof(*t));

		if (!t)
			return error("out of memory for %zu spikes", cap);
		a->s = t;
		a->cap = cap;
	}
	a->s[a->n] = *s;
	a->s[a->n].ncomp = 0;
	a->s[a->n].nseg = 0;
	a->s[a->n].seg_truncated = 0;
	a->s[a->n].dominant = -1;
	a->s[a->n].unattributable = NULL;
	a->s[a->n].open = a->s[a->n].done = 0;
	a->s[a->n].late_state = -1;
	a->s[a->n].late_exit_ns = LW_EXIT_LATENCY_NONE;
	a->s[a->n].late_ns = 0;
	a->n++;
	return 0;
}

int lw_attrib_add_lost(struct lw_attrib *a, int cpu, uint64_t from, uint64_t to)
{
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

static int cmp_start(const void *x, const void *y)
{
	const struct lw_spike *p = x, *q = y;

	return p->expected_ns < q->expected_ns ? -1 : p->expected_ns > q->expected_ns;
}

static struct lw_attrib *sort_ctx;
static int cmp_end(const void *x, const void *y)
{
	const struct lw_spike *p = &sort_ctx->s[*(const int *)x], *q = &sort_ctx->s[*(const int *)y];
	uint64_t a = p->expected_ns + p->latency_ns, b = q->expected_ns + q->latency_ns;

	return a < b ? -1 : a > b;
}

static void start(struct lw_attrib *a)
{
	a->started = 1;
	qsort(a->s, a->n, sizeof(*a->s), cmp_start);
	a->by_end = malloc((a->n ? a->n : 1) * sizeof(*a->by_end));
	if (!a->by_end) {
		for (size_t i = 0; i < a->n; i++)
			a->s[i].unattributable = "out of memory";
		a->n = 0;
		return;
	}
	for (size_t i = 0; i < a->n; i++)
		a->by_end[i] = (int)i;
	sort_ctx = a;
	qsort(a->by_end, a->n, sizeof(*a->by_end), cmp_end);
	sort_ctx = NULL;
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

static void charge(struct lw_attrib *a, struct lw_spike *s, enum lw_comp_kind k, const char *name,
		   uint64_t ns)
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
			s->comp[i] = (struct lw_component){ k, name, 0 };
			s->ncomp++;
		}
	}
	s->comp[i].ns += ns;
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
		if (x->after)
			charge(a, s, !s->gap && !strcmp(x->after, "hrtimer_wakeup") ? LW_C_PROBE :
				     LW_C_TIMER, x->after, ns);
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
		charge(a, s, !s->gap && !strcmp(x->name, "hrtimer_wakeup") ? LW_C_PROBE : LW_C_TIMER,
		       x->name, ns);
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
				charge(a, s, LW_C_PREEMPT, x->name, ns);
			else
				charge(a, s, LW_C_TASK, x->name, ns);
		} else if (is_probe(s, x) && c->tentative) {
			/* woken onto an idle CPU, not seen running yet: the idle
			 * loop's way out (restarting the tick, leaving NO_HZ) */
			charge(a, s, LW_C_IDLE_EXIT, c->last_state >= 0 ?
			       state_name(a, s->cpu, c->last_state) : intern(a, "idle"), ns);
		} else if (is_probe(s, x))
			charge(a, s, LW_C_PROBE, x->name, ns);
		else if (s->tid >= 0 && !s->woken_ns)
			charge(a, s, LW_C_TIMER_LATE, x->name, ns);
		else if (s->kprio >= 0 && x->prio < s->kprio)
			charge(a, s, LW_C_PREEMPT, x->name, ns);
		else if (s->wake_pending)
			/* woken from another CPU: this one does not know it yet */
			charge(a, s, LW_C_TIMER_LATE, x->name, ns);
		else
			charge(a, s, LW_C_NONPREEMPT, x->name, ns);
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
			return;
		}
		c->open = t;
		c->capopen = cap;
	}
	c->open[c->nopen++] = (int)(s - a->s);
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

static void close_window(struct lw_attrib *a, struct lw_spike *s)
{
	struct cpu *c = &a->cpu[s->cpu];

	if (s->open) {
		account(a, c, s, s->expected_ns + s->latency_ns);
		for (int i = 0; i < c->nopen; i++)
			if (c->open[i] == (int)(s - a->s)) {
				c->open[i] = c->open[--c->nopen];
				break;
			}
	}
	s->open = 0;
	s->done = 1;
	finish_spike(s);
}

/* Open every window whose E has come and close every one whose W has, at @t. */
static void advance(struct lw_attrib *a, uint64_t t, int inclusive_close)
{
	while (a->next_open < a->n && a->s[a->next_open].expected_ns <= t) {
		struct lw_spike *s = &a->s[a->next_open++];

		if (!s->done)
			open_window(a, s);
	}
	while (a->next_close < a->n) {
		struct lw_spike *s = &a->s[a->by_end[a->next_close]];
		uint64_t end = s->expected_ns + s->latency_ns;

		if (end > t || (!inclusive_close && end == t))
			break;
		if (!s->open && !s->done)	/* opened and closed between two events */
			open_window(a, s);
		close_window(a, s);
		a->next_close++;
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

	if (!a->started)
		start(a);
	advance(a, ev->ts, 1);
	if (ev->cpu < 0 || ev->cpu >= a->cfg.ncpus)
		return;
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

void lw_attrib_finish(struct lw_attrib *a)
{
	if (!a->started)
		start(a);
	/* lost windows may be learnt while reading: checked once, at the end */
	for (size_t i = 0; i < a->n; i++) {
		const char *why = overlaps_lost(a, &a->s[i]);

		if (why)
			a->s[i].unattributable = why;
	}
	/* windows past the end of the trace cannot be reconstructed */
	for (size_t i = 0; i < a->n; i++) {
		struct lw_spike *s = &a->s[i];

		if (s->done)
			continue;
		/* the probe already runs: what is left is its own return path */
		if (s->open && s->switched_in_ns && !s->unattributable) {
			close_window(a, s);
			continue;
		}
		if (!s->unattributable)
			s->unattributable = a->have_extent && s->expected_ns > a->last ?
					    "after the trace ended" : "the trace ends inside this window";
		if (s->open)
			close_window(a, s);
		s->done = 1;
		finish_spike(s);
	}
}

const struct lw_spike *lw_attrib_get(const struct lw_attrib *a, size_t i) { return &a->s[i]; }

const char *lw_component_label(const struct lw_component *c, char *buf, size_t len)
{
	if (c->name && *c->name)
		snprintf(buf, len, "%s:%s", lw_comp_kind_name(c->kind), c->name);
	else
		snprintf(buf, len, "%s", lw_comp_kind_name(c->kind));
	return buf;
}

struct cause {
	enum lw_comp_kind kind;
	const char *name;
	uint64_t count, ns;
};

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
	for (int i = 0; i < s->ncomp; i++)
		json_array_append_new(comp, json_pack("{s:s, s:s, s:s, s:I, s:f}",
			"cause", lw_component_label(&sorted[i], label, sizeof(label)),
			"kind", lw_comp_kind_name(sorted[i].kind), "name", sorted[i].name,
			"ns", (json_int_t)sorted[i].ns,
			"share", s->latency_ns ? (double)sorted[i].ns / (double)s->latency_ns : 0.0));
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
	struct late { const char *state; uint64_t exit_ns, ns, spikes; } late[16];
	size_t nlate = 0;
	uint64_t late_ns = 0, run_ns = 0, run_spikes = 0;
	json_t *arr = json_array();

	for (size_t i = 0; i < a->n; i++) {
		const struct lw_spike *s = &a->s[i];
		int running = 0;

		if (s->unattributable)
			continue;
		for (int k = 0; k < s->ncomp; k++) {
			const struct lw_component *c = &s->comp[k];
			size_t j;

			if (c->kind == LW_C_UNEXPLAINED) {
				run_ns += c->ns;
				running = 1;
			}
			if (c->kind != LW_C_IDLE_LATE)
				continue;
			late_ns += c->ns;
			for (j = 0; j < nlate; j++)
				if (late[j].state == c->name)
					break;
			if (j == nlate) {
				if (nlate == sizeof(late) / sizeof(late[0]))
					j = nlate - 1;	/* more states than kept: the last row */
				else
					late[nlate++] = (struct late){ c->name, s->late_exit_ns, 0, 0 };
			}
			late[j].ns += c->ns;
			late[j].spikes++;
		}
		run_spikes += (uint64_t)running;
	}
	for (size_t j = 0; j < nlate; j++)
		json_array_append_new(arr, json_pack("{s:s, s:o, s:I, s:I}", "state", late[j].state,
			"exit_latency_ns", late[j].exit_ns == LW_EXIT_LATENCY_NONE ? json_null() :
			json_integer((json_int_t)late[j].exit_ns),
			"ns", (json_int_t)late[j].ns, "spikes", (json_int_t)late[j].spikes));
	return json_pack("{s:o, s:I, s:I, s:I}", "idle_late", arr, "idle_late_ns", (json_int_t)late_ns,
			 "running_ns", (json_int_t)run_ns, "running_spikes", (json_int_t)run_spikes);
}

json_t *lw_attrib_json(const struct lw_attrib *a, size_t top_n)
{
	const struct lw_spike **by_lat = malloc((a->n ? a->n : 1) * sizeof(*by_lat));
	struct cause *causes = NULL;
	size_t ncauses = 0, capc = 0, unattr = 0;
	uint64_t total = 0, unattr_ns = 0;
	json_t *spikes = json_array(), *cj = json_array();
	char label[160];

	if (!by_lat)
		return NULL;
	for (size_t i = 0; i < a->n; i++) {
		const struct lw_spike *s = &a->s[i];

		by_lat[i] = s;
		total += s->latency_ns;
		if (s->unattributable) {
			unattr++;
			unattr_ns += s->latency_ns;
			continue;
		}
		for (int k = 0; k < s->ncomp; k++) {
			size_t j;

			for (j = 0; j < ncauses; j++)
				if (causes[j].kind == s->comp[k].kind && causes[j].name == s->comp[k].name)
					break;
			if (j == ncauses) {
				if (ncauses == capc) {
					size_t cap = capc ? capc * 2 : 32;
					struct cause *t = realloc(causes, cap * sizeof(*t));

					if (!t)
						continue;
					causes = t;
					capc = cap;
				}
				causes[ncauses++] = (struct cause){ s->comp[k].kind, s->comp[k].name, 0, 0 };
			}
			causes[j].ns += s->comp[k].ns;
			if (k == s->dominant)
				causes[j].count++;
		}
	}
	qsort(by_lat, a->n, sizeof(*by_lat), cmp_latency_desc);
	for (size_t i = 0; i < a->n && i < top_n; i++)
		json_array_append_new(spikes, spike_json(by_lat[i]));
	qsort(causes, ncauses, sizeof(*causes), cmp_cause);
	for (size_t j = 0; j < ncauses; j++) {
		struct lw_component c = { causes[j].kind, causes[j].name, causes[j].ns };

		json_array_append_new(cj, json_pack("{s:s, s:s, s:s, s:I, s:I, s:f}",
			"cause", lw_component_label(&c, label, sizeof(label)),
			"kind", lw_comp_kind_name(c.kind), "name", c.name,
			"count", (json_int_t)causes[j].count, "ns", (json_int_t)causes[j].ns,
			"share", total ? (double)causes[j].ns / (double)total : 0.0));
	}
	if (unattr)
		json_array_append_new(cj, json_pack("{s:s, s:s, s:s, s:I, s:I, s:f}",
			"cause", "unattributable", "kind", "unattributable", "name", "",
			"count", (json_int_t)unattr, "ns", (json_int_t)unattr_ns,
			"share", total ? (double)unattr_ns / (double)total : 0.0));
	free(by_lat);
	free(causes);
	/* every spike, compact, so that deadline misses can be matched to them */
	json_t *all = json_array();

	for (size_t i = 0; i < a->n; i++) {
		const struct lw_spike *s = &a->s[i];

		json_array_append_new(all, json_pack("[i, I, I, i, s]", s->cpu,
			(json_int_t)s->expected_ns, (json_int_t)s->latency_ns, (int)s->probe,
			s->unattributable ? "unattributable" : s->dominant >= 0 ?
			lw_component_label(&s->comp[s->dominant], label, sizeof(label)) : "?"));
	}
	return json_pack("{s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o}",
		"spikes_total", (json_int_t)a->n, "attributed", (json_int_t)(a->n - unattr),
		"unattributable", (json_int_t)unattr, "total_latency_ns", (json_int_t)total,
		"causes", cj, "unexplained", unexplained_json(a), "top", spikes, "all", all);
}
