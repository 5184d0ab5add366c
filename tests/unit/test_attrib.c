// SPDX-License-Identifier: GPL-2.0-only
/* Spike attribution on synthetic traces with planted causes. */
#include "tests/unit/lw_test.h"
#include "analysis/attrib.h"
#include "lib/samples.h"

#define US 1000ULL
#define PROBE_TID 4242
#define PROBE_KPRIO 4		/* SCHED_FIFO 95 */
#define E (1000 * US)

static uint64_t exit_lat(void *ctx, int cpu, int state)
{
	static const uint64_t lat[] = { 1 * US, 2 * US, 150 * US };
	return state >= 0 && state < 3 ? lat[state] : LW_EXIT_LATENCY_NONE;
}

static const char *sname(void *ctx, int cpu, int state)
{
	static const char *const n[] = { "POLL", "C1", "C6", "C10" };
	return state >= 0 && state < 4 ? n[state] : NULL;
}

static struct lw_attrib *new_engine(void)
{
	struct lw_attrib_cfg cfg = { .ncpus = 2, .exit_latency = exit_lat, .state_name = sname };
	struct lw_attrib *a = lw_attrib_new(&cfg);

	assert_non_null(a);
	return a;
}

static void spike(struct lw_attrib *a, uint64_t expected, uint64_t latency)
{
	struct lw_spike s = { .expected_ns = expected, .latency_ns = latency, .cpu = 0,
			      .probe = LW_SAMPLE_CYCLIC, .tid = PROBE_TID, .kprio = PROBE_KPRIO };

	assert_int_equal(lw_attrib_add_spike(a, &s), 0);
}

static void ev(struct lw_attrib *a, uint64_t ts, enum lw_tev_kind k, int pid, int prio, int64_t arg,
	       const char *name)
{
	struct lw_tev e = { .ts = ts, .cpu = 0, .kind = k, .pid = pid, .prio = prio, .arg = arg,
			    .name = name };

	lw_attrib_event(a, &e);
}

/* The probe's own wake-up: timer callback, wake, switch in. */
static void wake_probe(struct lw_attrib *a, uint64_t at)
{
	ev(a, at, LW_TEV_TIMER_ENTRY, 0, 0, 0, "hrtimer_wakeup");
	ev(a, at + 1 * US, LW_TEV_WAKEUP, PROBE_TID, PROBE_KPRIO, 0, NULL);
	ev(a, at + 2 * US, LW_TEV_TIMER_EXIT, 0, 0, 0, NULL);
}

static const struct lw_component *find(const struct lw_spike *s, enum lw_comp_kind k, const char *name)
{
	for (int i = 0; i < s->ncomp; i++)
		if (s->comp[i].kind == k && !strcmp(s->comp[i].name, name))
			return &s->comp[i];
	return NULL;
}

static void assert_dominant(const struct lw_spike *s, enum lw_comp_kind k, const char *name,
			    uint64_t ns)
{
	const struct lw_component *c;
	uint64_t sum = 0;
	char label[128];

	assert_null(s->unattributable);
	assert_true(s->dominant >= 0);
	c = &s->comp[s->dominant];
	if (c->kind != k || strcmp(c->name, name))
		fail_msg("dominant cause is %s", lw_component_label(c, label, sizeof(label)));
	/* within 1 us of the planted duration */
	if (c->ns + US < ns || c->ns > ns + US)
		fail_msg("%s: %llu ns, planted %llu ns", name, (unsigned long long)c->ns,
			 (unsigned long long)ns);
	for (int i = 0; i < s->ncomp; i++)
		sum += s->comp[i].ns;
	assert_int_equal(sum, s->latency_ns);	/* every nanosecond charged once */
}

static void test_irq_before_wakeup(void **st)
{
	struct lw_attrib *a = new_engine();

	spike(a, E, 60 * US);
	ev(a, 0, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	ev(a, 10 * US, LW_TEV_IDLE, 0, 0, 1, NULL);		/* C1, exit 2 us */
	ev(a, E + 2 * US, LW_TEV_IDLE, 0, 0, -1, NULL);		/* woke */
	ev(a, E + 2 * US, LW_TEV_IRQ_ENTRY, 0, 0, 0, "eth0");
	ev(a, E + 52 * US, LW_TEV_IRQ_EXIT, 0, 0, 0, NULL);	/* 50 us in eth0 */
	wake_probe(a, E + 53 * US);
	ev(a, E + 57 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, E + 500 * US, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	lw_attrib_finish(a);
	const struct lw_spike *s = lw_attrib_get(a, 0);
	assert_dominant(s, LW_C_IRQ, "eth0", 50 * US);
	assert_non_null(find(s, LW_C_IDLE_EXIT, "C1"));
	/* C1's exit latency, then the idle loop's way out to the switch */
	assert_int_equal(find(s, LW_C_IDLE_EXIT, "C1")->ns, 4 * US);
	assert_int_equal(s->idle_state, 1);
	assert_int_equal(s->woken_ns, E + 54 * US);
	assert_int_equal(s->switched_in_ns, E + 57 * US);
	/* the timeline: in time order, contiguous, covering the window */
	assert_true(s->nseg >= 3);
	assert_int_equal(s->seg[0].kind, LW_C_IDLE_EXIT);
	assert_int_equal(s->seg[0].from_ns, E);
	assert_int_equal(s->seg[0].to_ns, E + 2 * US);
	assert_int_equal(s->seg[1].kind, LW_C_IRQ);
	assert_string_equal(s->seg[1].name, "eth0");
	assert_int_equal(s->seg[1].to_ns, E + 52 * US);
	for (int i = 1; i < s->nseg; i++)
		assert_int_equal(s->seg[i].from_ns, s->seg[i - 1].to_ns);
	assert_int_equal(s->seg[s->nseg - 1].to_ns, E + 60 * US);
	lw_attrib_free(a);
}

/* The probe switched in, then 145 us with no event before it read the
 * clock: its own path is a few us; the rest is the CPU running something
 * the trace does not see, not the probe. */
static void test_stall_in_probe_path(void **st)
{
	struct lw_attrib *a = new_engine();
	const struct lw_component *p;
	uint64_t probe = 0;

	spike(a, E, 150 * US);
	ev(a, 0, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	ev(a, 10 * US, LW_TEV_IDLE, 0, 0, 1, NULL);		/* C1, exit 2 us */
	ev(a, E + 1 * US, LW_TEV_IDLE, 0, 0, -1, NULL);
	wake_probe(a, E + 2 * US);				/* callback 2 us */
	ev(a, E + 5 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, E + 400 * US, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	lw_attrib_finish(a);
	const struct lw_spike *s = lw_attrib_get(a, 0);
	/* 2 us of callback + 18 of the thread's path: 127 us over */
	assert_dominant(s, LW_C_UNEXPLAINED, "", 127 * US);
	for (int i = 0; i < s->ncomp; i++)
		if (s->comp[i].kind == LW_C_PROBE)
			probe += s->comp[i].ns;
	assert_int_equal(probe, LW_PROBE_PATH_NS);
	p = find(s, LW_C_PROBE, "lw-cyclic/0");
	assert_non_null(p);
	assert_int_equal(p->ns, 18 * US);
	for (int i = 1; i < s->nseg; i++)
		assert_int_equal(s->seg[i].from_ns, s->seg[i - 1].to_ns);
	assert_int_equal(s->seg[s->nseg - 1].to_ns, E + 150 * US);
	lw_attrib_free(a);
}

static void test_higher_priority_task(void **st)
{
	struct lw_attrib *a = new_engine();

	spike(a, E, 202 * US);
	ev(a, E - 10 * US, LW_TEV_SWITCH, 777, 1, 0, "rt-hog");	/* FIFO 98 */
	wake_probe(a, E);
	ev(a, E + 200 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, E + 300 * US, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	lw_attrib_finish(a);
	assert_dominant(lw_attrib_get(a, 0), LW_C_PREEMPT, "rt-hog", 197 * US);
	lw_attrib_free(a);
}

static void test_deep_idle_exit(void **st)
{
	struct lw_attrib *a = new_engine();

	spike(a, E, 155 * US);
	ev(a, 0, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	ev(a, 5 * US, LW_TEV_IDLE, 0, 0, 2, NULL);		/* C6: exit 150 us */
	ev(a, E + 150 * US, LW_TEV_IDLE, 0, 0, -1, NULL);
	wake_probe(a, E + 150 * US);
	ev(a, E + 153 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	lw_attrib_finish(a);
	const struct lw_spike *s = lw_attrib_get(a, 0);
	assert_dominant(s, LW_C_IDLE_EXIT, "C6", 150 * US);
	assert_int_equal(s->idle_since_ns, 5 * US);
	assert_null(find(s, LW_C_UNEXPLAINED, ""));
	lw_attrib_free(a);
}

/* The CPU stayed idle 300 us past the expiry: the state's exit latency is
 * idle-exit, the rest idle-late in that state, never plain unexplained. */
static void test_idle_late(void **st)
{
	struct lw_attrib *a = new_engine();

	spike(a, E, 305 * US);
	ev(a, 0, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	ev(a, 5 * US, LW_TEV_IDLE, 0, 0, 0, NULL);		/* POLL: exit 1 us */
	ev(a, E + 300 * US, LW_TEV_IDLE, 0, 0, -1, NULL);	/* nothing said why */
	wake_probe(a, E + 300 * US);
	ev(a, E + 303 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	lw_attrib_finish(a);
	const struct lw_spike *s = lw_attrib_get(a, 0);
	assert_dominant(s, LW_C_IDLE_LATE, "POLL", 299 * US);
	/* the exit latency, and the idle loop's way out after the wake-up */
	assert_int_equal(find(s, LW_C_IDLE_EXIT, "POLL")->ns, 2 * US);
	assert_null(find(s, LW_C_UNEXPLAINED, ""));
	assert_int_equal(s->late_state, 0);
	assert_int_equal(s->late_exit_ns, 1 * US);
	assert_int_equal(s->late_ns, 299 * US);
	lw_attrib_free(a);
}

/* A state that declares no exit latency (no cpuidle driver): all of the
 * wait is idle-late, and the JSON says "none declared" (null). */
static void test_idle_late_none_declared(void **st)
{
	struct lw_attrib *a = new_engine();

	spike(a, E, 1205 * US);
	spike(a, 3 * E, 50 * US);
	ev(a, 0, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	ev(a, 5 * US, LW_TEV_IDLE, 0, 0, 3, NULL);		/* C10: none declared */
	ev(a, E + 1200 * US, LW_TEV_IDLE, 0, 0, -1, NULL);
	wake_probe(a, E + 1200 * US);
	ev(a, E + 1203 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, E + 1300 * US, LW_TEV_SWITCH, 31, 120, 0, "kworker/0:1");
	/* the second: a task ran and the timer fired late: not idle-late */
	wake_probe(a, 3 * E + 45 * US);
	ev(a, 3 * E + 48 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	lw_attrib_finish(a);
	const struct lw_spike *s = lw_attrib_get(a, 0);
	assert_dominant(s, LW_C_IDLE_LATE, "C10", 1200 * US);
	assert_int_equal(find(s, LW_C_IDLE_EXIT, "C10")->ns, 1 * US);	/* the way out */
	assert_int_equal(s->late_exit_ns, LW_EXIT_LATENCY_NONE);
	json_t *j = lw_attrib_json(a, 10), *u = json_object_get(j, "unexplained");
	json_t *late = json_array_get(json_object_get(u, "idle_late"), 0);

	assert_int_equal(json_array_size(json_object_get(u, "idle_late")), 1);
	assert_string_equal(json_string_value(json_object_get(late, "state")), "C10");
	assert_true(json_is_null(json_object_get(late, "exit_latency_ns")));
	assert_int_equal(json_integer_value(json_object_get(late, "ns")), 1200 * US);
	assert_int_equal(json_integer_value(json_object_get(late, "spikes")), 1);
	assert_int_equal(json_integer_value(json_object_get(u, "running_ns")), 0);
	/* the top spike carries its own idle-late detail */
	json_t *top = json_array_get(json_object_get(j, "top"), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(top, "idle_late"),
							      "state")), "C10");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(top, "idle_late"),
							    "excess_ns")), 1200 * US);
	json_decref(j);
	lw_attrib_free(a);
}

/* 50 timers expire together in one timer interrupt before the probe's: their
 * callbacks are short, the interrupt's work around each is not; all of it
 * is the storm's, not the interrupt vector's. */
static void test_timer_storm(void **st)
{
	struct lw_attrib *a = new_engine();
	uint64_t t = E - 5 * US;

	spike(a, E, 110 * US);
	ev(a, 0, LW_TEV_SWITCH, 31, 120, 0, "bash");
	ev(a, t, LW_TEV_IRQ_ENTRY, 0, 0, 0, "local_timer");
	t += 1 * US;
	for (int i = 0; i < 50; i++) {
		ev(a, t, LW_TEV_TIMER_ENTRY, 0, 0, 0, "timerfd_tmrproc");
		ev(a, t + US / 2, LW_TEV_TIMER_EXIT, 0, 0, 0, NULL);
		t += 2 * US;
	}
	wake_probe(a, t);	/* 3 us, its own */
	ev(a, t + 4 * US, LW_TEV_IRQ_EXIT, 0, 0, 0, NULL);
	ev(a, E + 110 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	lw_attrib_finish(a);
	/* from E: 96 us of the storm (of its 100), then the probe's own path */
	assert_dominant(lw_attrib_get(a, 0), LW_C_TIMER, "timerfd_tmrproc", 96 * US);
	assert_null(find(lw_attrib_get(a, 0), LW_C_IRQ, "local_timer"));
	lw_attrib_free(a);
}

/* ---- host interference (a virtual machine) ---- */

static struct lw_attrib *new_host_engine(int vm, uint64_t (*steal)(void *, int, uint64_t, uint64_t))
{
	struct lw_attrib_cfg cfg = { .ncpus = 2, .exit_latency = exit_lat, .state_name = sname,
				     .vm = vm, .steal = steal };
	struct lw_attrib *a = lw_attrib_new(&cfg);

	assert_non_null(a);
	return a;
}

static uint64_t comp_of(const struct lw_spike *s, enum lw_comp_kind k, const char *name)
{
	const struct lw_component *c = find(s, k, name);

	return c ? c->ns : 0;
}

/* Four spikes: the vCPU halted 30 ms past its wake-up (the host stopped
 * it), the probe's thread running with no event, another task running
 * while the timer came late, an interrupt.  On a virtual machine the first
 * two are host:gap; the task (interrupts off, maybe) and the interrupt stay
 * the kernel's.  Off one, nothing is the host's. */
static void host_gap_stream(struct lw_attrib *a)
{
	spike(a, E, 30005 * US);
	spike(a, 40 * E, 150 * US);
	spike(a, 50 * E, 202 * US);
	spike(a, 60 * E, 60 * US);
	ev(a, 0, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	ev(a, 5 * US, LW_TEV_IDLE, 0, 0, 0, NULL);		/* POLL: exit 1 us */
	ev(a, E + 30000 * US, LW_TEV_IDLE, 0, 0, -1, NULL);	/* 30 ms with no event */
	wake_probe(a, E + 30000 * US);
	ev(a, E + 30003 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, E + 30100 * US, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	/* 2: woken in time, then 130 us in its own context with no event */
	ev(a, 40 * E - 10 * US, LW_TEV_IDLE, 0, 0, 1, NULL);
	ev(a, 40 * E + 1 * US, LW_TEV_IDLE, 0, 0, -1, NULL);
	wake_probe(a, 40 * E + 2 * US);
	ev(a, 40 * E + 5 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, 40 * E + 400 * US, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	/* 3: a task runs; the probe's timer fires 200 us late */
	ev(a, 50 * E - 10 * US, LW_TEV_SWITCH, 31, 120, 0, "kworker/0:1");
	wake_probe(a, 50 * E + 197 * US);
	ev(a, 50 * E + 200 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, 50 * E + 400 * US, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	/* 4: an interrupt of 50 us */
	ev(a, 60 * E - 10 * US, LW_TEV_IDLE, 0, 0, 1, NULL);
	ev(a, 60 * E + 2 * US, LW_TEV_IDLE, 0, 0, -1, NULL);
	ev(a, 60 * E + 2 * US, LW_TEV_IRQ_ENTRY, 0, 0, 0, "eth0");
	ev(a, 60 * E + 52 * US, LW_TEV_IRQ_EXIT, 0, 0, 0, NULL);
	wake_probe(a, 60 * E + 53 * US);
	ev(a, 60 * E + 57 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, 60 * E + 500 * US, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	lw_attrib_finish(a);
}

/* The host stopped the vCPU 30 ms inside an interrupt handler, and 30 ms
 * while a task ran with the probe's timer due: with no event at all for
 * LW_HOST_GAP_NS or more, host:gap on a virtual machine; a 200 us handler
 * stays the kernel's. */
static void host_long_stream(struct lw_attrib *a)
{
	spike(a, E, 30060 * US);
	spike(a, 60 * E, 260 * US);
	spike(a, 100 * E, 30005 * US);
	spike(a, 140 * E, 30008 * US);
	ev(a, 0, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	ev(a, E - 10 * US, LW_TEV_IDLE, 0, 0, 1, NULL);
	ev(a, E - 5 * US, LW_TEV_IDLE, 0, 0, -1, NULL);
	ev(a, E - 5 * US, LW_TEV_IRQ_ENTRY, 0, 0, 0, "local_timer");
	ev(a, E + 30050 * US, LW_TEV_IRQ_EXIT, 0, 0, 0, NULL);
	wake_probe(a, E + 30051 * US);
	ev(a, E + 30055 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, E + 30100 * US, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	ev(a, 60 * E - 10 * US, LW_TEV_IDLE, 0, 0, 1, NULL);
	ev(a, 60 * E - 5 * US, LW_TEV_IDLE, 0, 0, -1, NULL);
	ev(a, 60 * E - 5 * US, LW_TEV_IRQ_ENTRY, 0, 0, 0, "eth0");
	ev(a, 60 * E + 250 * US, LW_TEV_IRQ_EXIT, 0, 0, 0, NULL);
	wake_probe(a, 60 * E + 251 * US);
	ev(a, 60 * E + 255 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, 60 * E + 300 * US, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	ev(a, 100 * E - 10 * US, LW_TEV_SWITCH, 31, 120, 0, "kworker/0:1");
	wake_probe(a, 100 * E + 30000 * US);
	ev(a, 100 * E + 30003 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, 100 * E + 30100 * US, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	/* woken onto the idle CPU in time, then 30 ms before it is seen running */
	ev(a, 140 * E - 10 * US, LW_TEV_IDLE, 0, 0, 1, NULL);
	ev(a, 140 * E + 1 * US, LW_TEV_IDLE, 0, 0, -1, NULL);
	wake_probe(a, 140 * E + 2 * US);
	ev(a, 140 * E + 30005 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, 140 * E + 30100 * US, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	lw_attrib_finish(a);
}

static void test_host_gap_long_stretch(void **st)
{
	struct lw_attrib *a = new_host_engine(1, NULL);

	host_long_stream(a);
	assert_dominant(lw_attrib_get(a, 0), LW_C_HOST, "gap", 30050 * US);
	assert_null(find(lw_attrib_get(a, 0), LW_C_IRQ, "local_timer"));
	assert_dominant(lw_attrib_get(a, 1), LW_C_IRQ, "eth0", 250 * US);
	assert_int_equal(lw_attrib_get(a, 1)->host_ns, 0);
	assert_dominant(lw_attrib_get(a, 2), LW_C_HOST, "gap", 30000 * US);
	assert_dominant(lw_attrib_get(a, 3), LW_C_HOST, "gap", 30001 * US);
	lw_attrib_free(a);
	/* bare metal: the handler's and the task's, as the trace says */
	a = new_host_engine(0, NULL);
	host_long_stream(a);
	assert_dominant(lw_attrib_get(a, 0), LW_C_IRQ, "local_timer", 30050 * US);
	assert_dominant(lw_attrib_get(a, 2), LW_C_TIMER_LATE, "kworker/0:1", 30000 * US);
	assert_dominant(lw_attrib_get(a, 3), LW_C_IDLE_EXIT, "C1", 30001 * US);
	lw_attrib_free(a);
}

/* A vCPU halted in an idle state and woken 300 us late (what halting costs
 * in a virtual machine, which PM QoS avoids): idle-late, the guest's
 * choice, not the host's; 30 ms silent (the host stopped it) is host:gap. */
static void test_host_idle_late_short(void **st)
{
	struct lw_attrib *a = new_host_engine(1, NULL);
	const struct lw_spike *s;

	spike(a, E, 305 * US);
	ev(a, 0, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	ev(a, 5 * US, LW_TEV_IDLE, 0, 0, 0, NULL);		/* POLL: exit 1 us */
	ev(a, E + 300 * US, LW_TEV_IDLE, 0, 0, -1, NULL);
	wake_probe(a, E + 300 * US);
	ev(a, E + 303 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	lw_attrib_finish(a);
	s = lw_attrib_get(a, 0);
	assert_dominant(s, LW_C_IDLE_LATE, "POLL", 299 * US);
	assert_int_equal(s->host_ns, 0);
	assert_null(find(s, LW_C_HOST, "gap"));
	lw_attrib_free(a);
	(void)st;
}

static void test_host_gap(void **st)
{
	struct lw_attrib *a = new_host_engine(1, NULL);
	const struct lw_spike *s;
	char label[64];

	host_gap_stream(a);
	s = lw_attrib_get(a, 0);
	assert_dominant(s, LW_C_HOST, "gap", 29999 * US);
	assert_string_equal(lw_spike_cause(s, label, sizeof(label)), "host:gap");
	assert_int_equal(s->host_ns, 29999 * US);
	assert_int_equal(comp_of(s, LW_C_IDLE_EXIT, "POLL"), 2 * US);	/* the kernel's */
	assert_int_equal(comp_of(s, LW_C_IDLE_LATE, "POLL"), 0);
	s = lw_attrib_get(a, 1);
	assert_dominant(s, LW_C_HOST, "gap", 127 * US);
	assert_null(find(s, LW_C_UNEXPLAINED, ""));
	s = lw_attrib_get(a, 2);
	assert_dominant(s, LW_C_TIMER_LATE, "kworker/0:1", 197 * US);
	assert_int_equal(s->host_ns, 0);
	s = lw_attrib_get(a, 3);
	assert_dominant(s, LW_C_IRQ, "eth0", 50 * US);
	assert_int_equal(s->host_ns, 0);
	json_t *j = lw_attrib_json(a, 10), *c, *u = json_object_get(j, "unexplained");
	size_t i;
	int seen = 0;

	json_array_foreach(json_object_get(j, "causes"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "cause")), "host:gap")) {
			seen = 1;
			assert_int_equal(json_integer_value(json_object_get(c, "count")), 2);
			assert_int_equal(json_integer_value(json_object_get(c, "ns")), 30126 * US);
		}
	assert_true(seen);
	/* no longer unexplained */
	assert_int_equal(json_integer_value(json_object_get(u, "idle_late_ns")), 0);
	assert_int_equal(json_integer_value(json_object_get(u, "running_ns")), 0);
	json_decref(j);
	lw_attrib_free(a);

	/* bare metal: the same stream is the kernel's (or unexplained) */
	a = new_host_engine(0, NULL);
	host_gap_stream(a);
	assert_dominant(lw_attrib_get(a, 0), LW_C_IDLE_LATE, "POLL", 29999 * US);
	assert_dominant(lw_attrib_get(a, 1), LW_C_UNEXPLAINED, "", 127 * US);
	for (size_t k = 0; k < lw_attrib_kept(a); k++)
		assert_int_equal(lw_attrib_get(a, k)->host_ns, 0);
	lw_attrib_free(a);
}

/* The hypervisor's steal per window (as RUN/steal would give it): 150 us in
 * the first spike's, 40 us in the second's, 100 us in the third's. */
static uint64_t fake_steal(void *ctx, int cpu, uint64_t from, uint64_t to)
{
	if (cpu != 0)
		return 0;
	if (from == 50 * E)
		return 150 * US;
	if (from == 60 * E)
		return 40 * US;
	if (from == E)
		return 100 * US;
	return 0;
}

static void test_host_steal(void **st)
{
	struct lw_attrib *a = new_host_engine(0, fake_steal);
	const struct lw_spike *s;
	char label[64];

	host_gap_stream(a);
	/* the task's spike: 150 us of its timer-late time was stolen */
	s = lw_attrib_get(a, 2);
	assert_dominant(s, LW_C_HOST, "steal", 150 * US);
	assert_string_equal(lw_spike_cause(s, label, sizeof(label)), "host:steal");
	assert_int_equal(comp_of(s, LW_C_TIMER_LATE, "kworker/0:1"), 47 * US);
	assert_int_equal(s->host_ns, 150 * US);
	assert_int_equal(s->steal_ns, 150 * US);
	/* the interrupt's: the trace explains it, steal or not; only the
	 * microsecond idle past C1's exit before the wake-up is taken */
	s = lw_attrib_get(a, 3);
	assert_dominant(s, LW_C_IRQ, "eth0", 50 * US);
	assert_int_equal(s->host_ns, comp_of(s, LW_C_HOST, "steal"));
	assert_true(s->host_ns <= 1 * US);
	assert_int_equal(s->steal_ns, 40 * US);
	/* not a virtual machine by sysinfo, but steal says the host: 100 us of
	 * the idle-late time is steal, the rest stays idle-late */
	s = lw_attrib_get(a, 0);
	assert_int_equal(comp_of(s, LW_C_HOST, "steal"), 100 * US);
	assert_int_equal(comp_of(s, LW_C_IDLE_LATE, "POLL"), 29899 * US);
	lw_attrib_free(a);

	/* on a virtual machine: steal first, the rest of the gap host:gap */
	a = new_host_engine(1, fake_steal);
	host_gap_stream(a);
	s = lw_attrib_get(a, 0);
	assert_int_equal(comp_of(s, LW_C_HOST, "steal"), 100 * US);
	assert_dominant(s, LW_C_HOST, "gap", 29899 * US);
	assert_int_equal(s->host_ns, 29999 * US);
	lw_attrib_free(a);
}

/* ---- noise-probe gaps: the busy loop never slept ---- */

#define NOISE_TID 5151
#define NOISE_KPRIO 4		/* SCHED_FIFO 95 */

static void gap(struct lw_attrib *a, uint64_t start, uint64_t len, int tid)
{
	struct lw_spike s = { .expected_ns = start, .latency_ns = len, .cpu = 0,
			      .probe = LW_SAMPLE_NOISE, .tid = tid, .kprio = NOISE_KPRIO,
			      .comm = "lw-noise/0", .gap = 1 };

	assert_int_equal(lw_attrib_add_spike(a, &s), 0);
}

static void assert_not_the_loop(const struct lw_spike *s)
{
	for (int i = 0; i < s->ncomp; i++)
		if (strstr(s->comp[i].name, "lw-noise") || strstr(s->comp[i].name, "latwatt") ||
		    s->comp[i].kind == LW_C_PROBE || s->comp[i].kind == LW_C_NONPREEMPT ||
		    s->comp[i].kind == LW_C_TIMER_LATE)
			fail_msg("a gap charged to the loop: %s:%s", lw_comp_kind_name(s->comp[i].kind),
				 s->comp[i].name);
}

/* The loop was created by latwatt and renamed after its first switch: the
 * trace calls it "latwatt"; its tid says it is the loop.  Four gaps: an
 * interrupt, the tick, a higher-priority task, and nothing at all. */
static void test_noise_gaps(void **st)
{
	struct lw_attrib *a = new_engine();

	gap(a, E, 22 * US, NOISE_TID);
	gap(a, 2 * E, 12 * US, NOISE_TID);
	gap(a, 3 * E, 205 * US, NOISE_TID);
	gap(a, 4 * E, 50 * US, NOISE_TID);
	gap(a, 5 * E, 80 * US, NOISE_TID);
	gap(a, 6 * E, 10 * US, NOISE_TID);
	ev(a, 0, LW_TEV_SWITCH, NOISE_TID, NOISE_KPRIO, 0, "latwatt");
	/* 1: an interrupt of 19 us */
	ev(a, E + 1 * US, LW_TEV_IRQ_ENTRY, 0, 0, 0, "virtio0-input.0");
	ev(a, E + 20 * US, LW_TEV_IRQ_EXIT, 0, 0, 0, NULL);
	/* 2: the tick: the local timer vector around the tick's hrtimer */
	ev(a, 2 * E + 1 * US, LW_TEV_IRQ_ENTRY, 0, 0, 0, "local_timer");
	ev(a, 2 * E + 2 * US, LW_TEV_TIMER_ENTRY, 0, 0, 0, "tick_nohz_handler");
	ev(a, 2 * E + 10 * US, LW_TEV_TIMER_EXIT, 0, 0, 0, NULL);
	ev(a, 2 * E + 11 * US, LW_TEV_IRQ_EXIT, 0, 0, 0, NULL);
	/* 3: a task of higher priority runs 200 us */
	ev(a, 3 * E + 2 * US, LW_TEV_SWITCH, 777, 1, 0, "rt-hog");
	ev(a, 3 * E + 202 * US, LW_TEV_SWITCH, NOISE_TID, NOISE_KPRIO, 0, "lw-noise/0");
	/* 4: nothing in the trace; a timer that wakes some other task */
	ev(a, 4 * E - 10 * US, LW_TEV_IRQ_ENTRY, 0, 0, 0, "x");
	ev(a, 4 * E - 9 * US, LW_TEV_IRQ_EXIT, 0, 0, 0, NULL);
	/* 5: a lower-priority task ran in the loop's place (throttled) */
	ev(a, 5 * E + 1 * US, LW_TEV_SWITCH, 31, 120, 0, "kworker/0:1");
	ev(a, 5 * E + 79 * US, LW_TEV_SWITCH, NOISE_TID, NOISE_KPRIO, 0, "lw-noise/0");
	/* 6: the timer of a sleeping task expires in the gap: a timer, not the probe */
	ev(a, 6 * E + 1 * US, LW_TEV_TIMER_ENTRY, 0, 0, 0, "hrtimer_wakeup");
	ev(a, 6 * E + 2 * US, LW_TEV_WAKEUP, 888, 120, 0, "sleeper");
	ev(a, 6 * E + 9 * US, LW_TEV_TIMER_EXIT, 0, 0, 0, NULL);
	ev(a, 7 * E, LW_TEV_IRQ_ENTRY, 0, 0, 0, "x");
	lw_attrib_finish(a);
	assert_dominant(lw_attrib_get(a, 0), LW_C_IRQ, "virtio0-input.0", 19 * US);
	assert_int_equal(find(lw_attrib_get(a, 0), LW_C_UNEXPLAINED, "")->ns, 3 * US);
	/* the interrupt's work after the callback is the tick's */
	assert_dominant(lw_attrib_get(a, 1), LW_C_TIMER, "tick_nohz_handler", 9 * US);
	assert_int_equal(find(lw_attrib_get(a, 1), LW_C_IRQ, "local_timer")->ns, 1 * US);
	assert_dominant(lw_attrib_get(a, 2), LW_C_PREEMPT, "rt-hog", 200 * US);
	assert_dominant(lw_attrib_get(a, 3), LW_C_UNEXPLAINED, "", 50 * US);
	assert_int_equal(lw_attrib_get(a, 3)->ncomp, 1);
	assert_dominant(lw_attrib_get(a, 4), LW_C_TASK, "kworker/0:1", 78 * US);
	assert_dominant(lw_attrib_get(a, 5), LW_C_TIMER, "hrtimer_wakeup", 8 * US);
	for (int i = 0; i < 6; i++)
		assert_not_the_loop(lw_attrib_get(a, i));
	json_t *j = lw_attrib_json(a, 10), *u = json_object_get(j, "unexplained");

	assert_int_equal(json_integer_value(json_object_get(u, "running_spikes")), 6);
	assert_int_equal(json_integer_value(json_object_get(u, "idle_late_ns")), 0);
	json_decref(j);
	lw_attrib_free(a);
}

/* A run that did not record the loop's tid: its name tells it. */
static void test_noise_gap_by_name(void **st)
{
	struct lw_attrib *a = new_engine();

	gap(a, E, 40 * US, -1);
	ev(a, 0, LW_TEV_SWITCH, NOISE_TID, NOISE_KPRIO, 0, "lw-noise/0");
	ev(a, 2 * E, LW_TEV_IRQ_ENTRY, 0, 0, 0, "x");
	lw_attrib_finish(a);
	assert_dominant(lw_attrib_get(a, 0), LW_C_UNEXPLAINED, "", 40 * US);
	assert_not_the_loop(lw_attrib_get(a, 0));
	lw_attrib_free(a);
}

static void test_lost_events_window(void **st)
{
	struct lw_attrib *a = new_engine();

	spike(a, E, 100 * US);
	spike(a, 2 * E, 100 * US);
	assert_int_equal(lw_attrib_add_lost(a, 0, E + 50 * US, E + 60 * US), 0);
	ev(a, 0, LW_TEV_SWITCH, 777, 1, 0, "rt-hog");
	wake_probe(a, E);
	ev(a, E + 98 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, E + 200 * US, LW_TEV_SWITCH, 777, 1, 0, "rt-hog");
	wake_probe(a, 2 * E);
	ev(a, 2 * E + 98 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	lw_attrib_finish(a);
	assert_non_null(lw_attrib_get(a, 0)->unattributable);
	assert_true(strstr(lw_attrib_get(a, 0)->unattributable, "lost") != NULL);
	assert_dominant(lw_attrib_get(a, 1), LW_C_PREEMPT, "rt-hog", 95 * US);
	json_t *j = lw_attrib_json(a, 10);
	assert_int_equal(json_integer_value(json_object_get(j, "unattributable")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "attributed")), 1);
	json_decref(j);
	lw_attrib_free(a);
}

/* A monitored run's trace: windows with no trace between them. */
static void test_untraced_gap_and_forget(void **st)
{
	struct lw_attrib *a = new_engine();

	spike(a, E, 100 * US);			/* in the first window */
	spike(a, 4 * E, 100 * US);		/* between the windows */
	spike(a, 5 * E + 5 * US, 20 * US);	/* the second window, before its first event */
	spike(a, 6 * E, 100 * US);		/* the second window */
	assert_int_equal(lw_attrib_add_untraced(a, 3 * E + 1, 5 * E - 1), 0);
	assert_int_equal(lw_attrib_add_untraced(a, 8 * E + 1, UINT64_MAX), 0);
	ev(a, 0, LW_TEV_SWITCH, 777, 1, 0, "rt-hog");
	wake_probe(a, E);
	ev(a, E + 98 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, E + 200 * US, LW_TEV_SWITCH, 778, 1, 0, "old-hog");
	/* the trace resumes: what the first window said is stale */
	lw_attrib_forget(a);
	ev(a, 5 * E + 30 * US, LW_TEV_SWITCH, 779, 1, 0, "new-hog");
	wake_probe(a, 6 * E);
	ev(a, 6 * E + 98 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, 8 * E, LW_TEV_SWITCH, 779, 1, 0, "new-hog");
	lw_attrib_finish(a);
	assert_dominant(lw_attrib_get(a, 0), LW_C_PREEMPT, "rt-hog", 95 * US);
	assert_string_equal(lw_attrib_get(a, 1)->unattributable, "no trace window saved around it");
	assert_non_null(lw_attrib_get(a, 2)->unattributable);
	assert_non_null(strstr(lw_attrib_get(a, 2)->unattributable, "unknown"));
	assert_dominant(lw_attrib_get(a, 3), LW_C_PREEMPT, "new-hog", 95 * US);
	lw_attrib_free(a);
	(void)st;
}

static void test_nonpreemptible_and_irqs_off(void **st)
{
	struct lw_attrib *a = new_engine();

	/* 1: a lower-priority task keeps the CPU after the probe is woken */
	spike(a, E, 104 * US);
	/* 2: the timer fires 80 us late while a lower-priority task runs */
	spike(a, 2 * E, 85 * US);
	ev(a, 0, LW_TEV_SWITCH, 31, 120, 0, "kworker/0:1");
	wake_probe(a, E);
	ev(a, E + 102 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, E + 200 * US, LW_TEV_SWITCH, 99, 120, 0, "bad-driver");
	wake_probe(a, 2 * E + 80 * US);
	ev(a, 2 * E + 83 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	lw_attrib_finish(a);
	assert_dominant(lw_attrib_get(a, 0), LW_C_NONPREEMPT, "kworker/0:1", 99 * US);
	assert_dominant(lw_attrib_get(a, 1), LW_C_TIMER_LATE, "bad-driver", 80 * US);
	lw_attrib_free(a);
}

/* run --stacks: the stacks of the task that held the CPU name its code in
 * the spike; a stack of another task, or taken for another thread, is not
 * the cause's code, and a stack changes nothing of what ran. */
static void stack(struct lw_attrib *a, uint64_t ts, int of, int for_tid, int at, const char *where)
{
	struct lw_tev e = { .ts = ts, .cpu = 0, .kind = LW_TEV_STACK, .pid = of,
			    .prev_pid = for_tid, .arg = at, .name = where, .has_cur = 0 };

	lw_attrib_event(a, &e);
}

static void test_code_behind_a_spike(void **st)
{
	struct lw_attrib *a = new_engine();
	const struct lw_spike *s;
	char buf[256];

	/* 1: a lower-priority task in a driver's ioctl keeps the CPU */
	spike(a, E, 104 * US);
	/* 2: the same, but the stacks are of another task and another thread */
	spike(a, 2 * E, 104 * US);
	/* 3: the same place at the wake-up and the switch: said once */
	spike(a, 3 * E, 104 * US);
	ev(a, 0, LW_TEV_SWITCH, 31, 120, 0, "kworker/0:1");
	wake_probe(a, E);
	stack(a, E + 1 * US, 31, PROBE_TID, 0, "foo_poll+0x3c (ioctl)");
	stack(a, E + 1 * US, 31, PROBE_TID, 0, "bar+0x1 (write)");	/* the first one counts */
	ev(a, E + 102 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	stack(a, E + 102 * US, 31, PROBE_TID, 1, "foo_ioctl+0x80 (ioctl)");
	ev(a, E + 200 * US, LW_TEV_SWITCH, 31, 120, 0, "kworker/0:1");
	wake_probe(a, 2 * E);
	stack(a, 2 * E + 1 * US, 77, PROBE_TID, 0, "user space");
	stack(a, 2 * E + 1 * US, 31, 999, 0, "baz+0x2");
	ev(a, 2 * E + 102 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, 3 * E - 10 * US, LW_TEV_SWITCH, 31, 120, 0, "kworker/0:1");
	wake_probe(a, 3 * E);
	stack(a, 3 * E + 1 * US, 31, PROBE_TID, 0, "foo_spin+0x10 (ioctl)");
	ev(a, 3 * E + 102 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	stack(a, 3 * E + 102 * US, 31, PROBE_TID, 1, "foo_spin+0x10 (ioctl)");
	lw_attrib_finish(a);
	s = lw_attrib_get(a, 0);
	assert_dominant(s, LW_C_NONPREEMPT, "kworker/0:1", 99 * US);
	assert_string_equal(lw_spike_where(s, buf, sizeof(buf)), "in foo_poll+0x3c (ioctl) at the "
			    "wake-up; left the CPU in foo_ioctl+0x80 (ioctl)");
	s = lw_attrib_get(a, 1);
	assert_dominant(s, LW_C_NONPREEMPT, "kworker/0:1", 99 * US);
	assert_null(lw_spike_where(s, buf, sizeof(buf)));
	assert_int_equal(s->code[0].pid, 77);
	assert_string_equal(s->code[0].where, "user space");
	assert_null(s->code[1].where);
	s = lw_attrib_get(a, 2);
	assert_string_equal(lw_spike_where(s, buf, sizeof(buf)), "in foo_spin+0x10 (ioctl) at the "
			    "wake-up and when it left the CPU");
	lw_attrib_free(a);
}

/* run --stacks: the probe's timer interrupt came 1.8 ms late and landed in
 * the user space of the task that ran meanwhile: with interrupts on there,
 * the task held nothing back: unexplained, the host's (host:gap) on a
 * virtual machine, not timer-late:ld.  Landing in the task's kernel code
 * (interrupts maybe off there), or with no stack: timer-late stays. */
static void late_in(struct lw_attrib *a, uint64_t at, const char *where)
{
	ev(a, at - 10 * US, LW_TEV_SWITCH, 31, 120, 0, "ld");
	wake_probe(a, at + 1800 * US);
	if (where)
		stack(a, at + 1801 * US, 31, PROBE_TID, 0, where);
	ev(a, at + 1803 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, at + 1900 * US, LW_TEV_SWITCH, 31, 120, 0, "ld");
}

static void test_host_timer_late_in_user_space(void **st)
{
	for (int vm = 0; vm <= 1; vm++) {
		struct lw_attrib *a = new_host_engine(vm, NULL);
		const struct lw_spike *s;

		for (int k = 1; k <= 3; k++)
			spike(a, 10 * k * E, 1805 * US);
		late_in(a, 10 * E, "user space");
		late_in(a, 20 * E, "foo_write+0x3c (write)");
		late_in(a, 30 * E, NULL);
		lw_attrib_finish(a);
		s = lw_attrib_get(a, 0);
		if (vm) {
			assert_dominant(s, LW_C_HOST, "gap", 1800 * US);
			assert_null(find(s, LW_C_TIMER_LATE, "ld"));
			for (int i = 0; i < s->nseg; i++)
				assert_int_not_equal(s->seg[i].kind, LW_C_TIMER_LATE);
		} else {
			assert_dominant(s, LW_C_UNEXPLAINED, "", 1800 * US);
			assert_null(find(s, LW_C_TIMER_LATE, "ld"));
		}
		assert_dominant(lw_attrib_get(a, 1), LW_C_TIMER_LATE, "ld", 1800 * US);
		assert_dominant(lw_attrib_get(a, 2), LW_C_TIMER_LATE, "ld", 1800 * US);
		lw_attrib_free(a);
	}
}

/* preemptirq sections: the longest irqs-off section overlapping a
 * timer-late spike is its code; a preempt-off one explains a non-preemptible
 * one; sections outside the window or on another CPU are not its, and a
 * section explains nothing a task of higher priority did. */
static void section(struct lw_attrib *a, int cpu, uint64_t from, uint64_t to, int kind,
		    const char *where)
{
	struct lw_tev e = { .ts = to, .cpu = cpu, .kind = LW_TEV_SECTION, .prev_pid = kind,
			    .arg = (int64_t)from, .name = where, .has_cur = 0 };

	lw_attrib_event(a, &e);
}

static void test_irqs_off_section(void **st)
{
	struct lw_attrib *a = new_engine();
	const struct lw_spike *s;
	char buf[256];

	/* 1: a task's 812 us with interrupts off holds the probe's timer */
	spike(a, E, 815 * US);
	/* 2: a task keeps preemption off 300 us after the probe is woken */
	spike(a, 3 * E, 304 * US);
	/* 3: a task of higher priority; a section in it is not the cause */
	spike(a, 5 * E, 204 * US);
	ev(a, 0, LW_TEV_SWITCH, 31, 120, 0, "kworker/0:1");
	section(a, 0, E - 500 * US, E - 400 * US, LW_SECT_IRQS, "early+0x1");	/* before */
	section(a, 0, E + 1 * US, E + 10 * US, LW_SECT_IRQS, "short+0x1");
	section(a, 0, E - 10 * US, E + 812 * US, LW_SECT_IRQS, "foo_isr+0x3c");
	section(a, 1, E - 10 * US, E + 812 * US, LW_SECT_IRQS, "other_cpu+0x1");	/* CPU 1 */
	wake_probe(a, E + 812 * US);
	ev(a, E + 814 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, E + 900 * US, LW_TEV_SWITCH, 31, 120, 0, "kworker/0:1");
	wake_probe(a, 3 * E);
	section(a, 0, 3 * E - 50 * US, 3 * E + 301 * US, LW_SECT_PREEMPT, "bar_lock+0x10");
	ev(a, 3 * E + 302 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, 5 * E - 10 * US, LW_TEV_SWITCH, 50, 2, 0, "rt-hog");
	wake_probe(a, 5 * E);
	section(a, 0, 5 * E + 10 * US, 5 * E + 100 * US, LW_SECT_IRQS, "hog_fn+0x5");
	ev(a, 5 * E + 202 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	lw_attrib_finish(a);

	s = lw_attrib_get(a, 0);
	assert_dominant(s, LW_C_TIMER_LATE, "kworker/0:1", 812 * US);
	assert_string_equal(lw_spike_where(s, buf, sizeof(buf)),
			    "irqs off 822 us in foo_isr+0x3c on CPU 0");
	assert_int_equal(s->sect[LW_SECT_IRQS].from, E - 10 * US);
	assert_int_equal(s->sect[LW_SECT_PREEMPT].to, 0);
	s = lw_attrib_get(a, 1);
	assert_dominant(s, LW_C_NONPREEMPT, "kworker/0:1", 301 * US);
	assert_string_equal(lw_spike_where(s, buf, sizeof(buf)),
			    "preempt off 351 us in bar_lock+0x10 on CPU 0");
	s = lw_attrib_get(a, 2);
	assert_dominant(s, LW_C_PREEMPT, "rt-hog", 200 * US);
	assert_int_equal(s->sect[LW_SECT_IRQS].to, 5 * E + 100 * US);
	assert_null(lw_spike_where(s, buf, sizeof(buf)));
	lw_attrib_free(a);
}

/* Hardware and firmware: a probe stall no event explains (as in
 * test_stall_in_probe_path) is hardware/firmware:SMI only on a CPU whose SMI
 * count moved; never on another CPU, without a count, or on a virtual
 * machine (the host's there).  A gap of a loop with interrupts off
 * (hwnoise) that no event explains is hardware/firmware; one an event
 * explains stays that event's.  @irqs_off_gap: 1 interrupts off, 2 with
 * 25 us of NMIs the tracer saw in the first gap (lw_spike.nmi_ns). */
static struct lw_attrib *stall(const unsigned char *smi, int vm, int irqs_off_gap)
{
	struct lw_attrib_cfg cfg = { .ncpus = 2, .exit_latency = exit_lat, .state_name = sname,
				     .smi_cpus = smi, .vm = vm };
	struct lw_attrib *a = lw_attrib_new(&cfg);
	struct lw_spike g = { .expected_ns = 3 * E, .latency_ns = 40 * US, .cpu = 0,
			      .probe = LW_SAMPLE_NOISE, .tid = 5151, .kprio = 4,
			      .comm = "lw-noise/0", .gap = 1, .irqs_off = irqs_off_gap & 1,
			      .nmi_ns = irqs_off_gap & 2 ? 25 * US : 0 };
	struct lw_spike g2 = g;

	assert_non_null(a);
	spike(a, E, 150 * US);
	g2.expected_ns = 4 * E;
	assert_int_equal(lw_attrib_add_spike(a, &g), 0);
	assert_int_equal(lw_attrib_add_spike(a, &g2), 0);
	ev(a, 0, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	ev(a, 10 * US, LW_TEV_IDLE, 0, 0, 1, NULL);
	ev(a, E + 1 * US, LW_TEV_IDLE, 0, 0, -1, NULL);
	wake_probe(a, E + 2 * US);
	ev(a, E + 5 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, E + 400 * US, LW_TEV_SWITCH, 5151, 4, 0, "lw-noise/0");
	/* the second gap: an NMI explains 30 of its 40 us */
	ev(a, 4 * E + 5 * US, LW_TEV_IRQ_ENTRY, 0, 0, 0, "NMI");
	ev(a, 4 * E + 35 * US, LW_TEV_IRQ_EXIT, 0, 0, 0, NULL);
	ev(a, 5 * E, LW_TEV_IRQ_ENTRY, 0, 0, 0, "x");
	lw_attrib_finish(a);
	return a;
}

static void test_hardware_firmware(void **st)
{
	static const unsigned char on0[2] = { 1, 0 }, on1[2] = { 0, 1 };
	struct lw_attrib *a;

	a = stall(on0, 0, 0);
	assert_dominant(lw_attrib_get(a, 0), LW_C_HWFW, "SMI", 127 * US);
	assert_dominant(lw_attrib_get(a, 1), LW_C_HWFW, "SMI", 40 * US);
	lw_attrib_free(a);
	a = stall(on1, 0, 0);		/* SMIs on the other CPU only */
	assert_dominant(lw_attrib_get(a, 0), LW_C_UNEXPLAINED, "", 127 * US);
	assert_dominant(lw_attrib_get(a, 1), LW_C_UNEXPLAINED, "", 40 * US);
	lw_attrib_free(a);
	a = stall(NULL, 0, 0);		/* no count */
	assert_dominant(lw_attrib_get(a, 0), LW_C_UNEXPLAINED, "", 127 * US);
	lw_attrib_free(a);
	a = stall(on0, 1, 0);		/* a virtual machine: the host's */
	assert_dominant(lw_attrib_get(a, 0), LW_C_HOST, "gap", 127 * US);
	assert_dominant(lw_attrib_get(a, 1), LW_C_HOST, "gap", 40 * US);
	assert_null(find(lw_attrib_get(a, 1), LW_C_HWFW, ""));
	lw_attrib_free(a);
	/* a virtual machine, interrupts off (hwnoise): the gap no event
	 * explains is the virtual hardware's, the host stopping the vCPU:
	 * hardware/firmware:host, still the host's time (host_ns); a stall of
	 * another probe stays host:gap, an NMI stays the NMI's */
	a = stall(NULL, 1, 1);
	assert_dominant(lw_attrib_get(a, 0), LW_C_HOST, "gap", 127 * US);
	assert_dominant(lw_attrib_get(a, 1), LW_C_HWFW, "host", 40 * US);
	assert_null(find(lw_attrib_get(a, 1), LW_C_HOST, "gap"));
	assert_int_equal(lw_attrib_get(a, 1)->host_ns, 40 * US);
	assert_dominant(lw_attrib_get(a, 2), LW_C_IRQ, "NMI", 30 * US);
	assert_int_equal(find(lw_attrib_get(a, 2), LW_C_HWFW, "host")->ns, 10 * US);
	lw_attrib_free(a);
	/* NMIs the hwnoise tracer saw in a gap with no trace event of theirs
	 * (osnoise:nmi_noise): their time is irq:NMI, the rest the hardware's
	 * (the host's on a virtual machine, less the NMIs) */
	a = stall(NULL, 0, 1 | 2);
	assert_dominant(lw_attrib_get(a, 1), LW_C_IRQ, "NMI", 25 * US);
	assert_int_equal(find(lw_attrib_get(a, 1), LW_C_HWFW, "")->ns, 15 * US);
	/* the second gap's NMI is in the trace (30 us): not counted twice */
	assert_dominant(lw_attrib_get(a, 2), LW_C_IRQ, "NMI", 30 * US);
	assert_int_equal(find(lw_attrib_get(a, 2), LW_C_HWFW, "")->ns, 10 * US);
	lw_attrib_free(a);
	a = stall(NULL, 1, 1 | 2);
	assert_dominant(lw_attrib_get(a, 1), LW_C_IRQ, "NMI", 25 * US);
	assert_int_equal(find(lw_attrib_get(a, 1), LW_C_HWFW, "host")->ns, 15 * US);
	assert_int_equal(lw_attrib_get(a, 1)->host_ns, 15 * US);
	assert_dominant(lw_attrib_get(a, 0), LW_C_HOST, "gap", 127 * US);	/* not a gap */
	lw_attrib_free(a);
	a = stall(NULL, 0, 1);		/* hwnoise: interrupts off, no count */
	assert_dominant(lw_attrib_get(a, 0), LW_C_UNEXPLAINED, "", 127 * US);	/* not a gap */
	assert_dominant(lw_attrib_get(a, 1), LW_C_HWFW, "", 40 * US);
	assert_dominant(lw_attrib_get(a, 2), LW_C_IRQ, "NMI", 30 * US);
	assert_int_equal(find(lw_attrib_get(a, 2), LW_C_HWFW, "")->ns, 10 * US);
	lw_attrib_free(a);
}

/* The probe's timer queued on the housekeeping CPU 1 (the probe's CPU 0 is
 * nohz_full, as in the QEMU guest of bench/attribution-recall/
 * qemu-nonpreempt): CPU 1 wakes it onto CPU 0, where a SCHED_OTHER task is
 * in the kernel, and CPU 0 learns of it by the reschedule IPI.
 * 1: preempt=none: the IPI comes at once, the task keeps the CPU until its
 *    next preemption point: non-preemptible.
 * 2: preempt=full, the IPI 10 ms late (an emulator, or interrupts off on
 *    CPU 0): the task switches at once when it comes; before, CPU 0 could
 *    not know the probe was woken: timer-late, not non-preemptible.
 * 3: a task of higher priority on CPU 0 is preempt, IPI or not. */
static void remote_wake(struct lw_attrib *a, uint64_t at)
{
	struct lw_tev e;

	e = (struct lw_tev){ .ts = at, .cpu = 1, .kind = LW_TEV_TIMER_ENTRY,
			     .name = "hrtimer_wakeup" };
	lw_attrib_event(a, &e);
	e = (struct lw_tev){ .ts = at + 1 * US, .cpu = 1, .kind = LW_TEV_WAKEUP, .pid = PROBE_TID,
			     .prio = PROBE_KPRIO, .arg = 0 };
	lw_attrib_event(a, &e);
	e = (struct lw_tev){ .ts = at + 2 * US, .cpu = 1, .kind = LW_TEV_TIMER_EXIT };
	lw_attrib_event(a, &e);
}

static void test_nonpreemptible_remote_wakeup(void **st)
{
	struct lw_attrib *a = new_engine();
	struct lw_tev e;
	const struct lw_spike *s;

	spike(a, E, 10050 * US);
	spike(a, 20 * E, 10070 * US);
	spike(a, 40 * E, 300 * US);
	ev(a, 0, LW_TEV_SWITCH, 129, 120, 0, "lw-unmap");
	e = (struct lw_tev){ .ts = 10 * US, .cpu = 1, .kind = LW_TEV_SWITCH, .pid = 0, .prio = 120,
			     .name = "swapper/1" };
	lw_attrib_event(a, &e);
	/* 1 */
	remote_wake(a, E + 50 * US);
	ev(a, E + 60 * US, LW_TEV_IRQ_ENTRY, 0, 0, 0, "reschedule");
	ev(a, E + 70 * US, LW_TEV_IRQ_EXIT, 0, 0, 0, NULL);
	ev(a, E + 10050 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	ev(a, E + 10100 * US, LW_TEV_SWITCH, 129, 120, 0, "lw-unmap");
	/* 2 */
	remote_wake(a, 20 * E + 50 * US);
	ev(a, 20 * E + 10050 * US, LW_TEV_IRQ_ENTRY, 0, 0, 0, "reschedule");
	ev(a, 20 * E + 10060 * US, LW_TEV_IRQ_EXIT, 0, 0, 0, NULL);
	ev(a, 20 * E + 10070 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	/* 3: a task of higher priority runs on: no IPI, and none needed */
	ev(a, 40 * E - 100 * US, LW_TEV_SWITCH, 555, 1, 0, "rt-hog");
	remote_wake(a, 40 * E);
	ev(a, 40 * E + 300 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	lw_attrib_finish(a);
	s = lw_attrib_get(a, 0);
	/* the timer 51 us late, the IPI 9 us after the wake-up; then the section */
	assert_dominant(s, LW_C_NONPREEMPT, "lw-unmap", 9980 * US);
	assert_int_equal(find(s, LW_C_TIMER_LATE, "lw-unmap")->ns, 60 * US);
	assert_int_equal(find(s, LW_C_IRQ, "reschedule")->ns, 10 * US);
	s = lw_attrib_get(a, 1);
	assert_dominant(s, LW_C_TIMER_LATE, "lw-unmap", 10050 * US);
	assert_int_equal(find(s, LW_C_NONPREEMPT, "lw-unmap")->ns, 10 * US);
	assert_dominant(lw_attrib_get(a, 2), LW_C_PREEMPT, "rt-hog", 299 * US);
	lw_attrib_free(a);
}

static void test_outside_trace_and_unknown_state(void **st)
{
	struct lw_attrib *a = new_engine();

	spike(a, 10 * US, 5 * US);	/* before any event on cpu 0 */
	spike(a, 9 * E, 5 * US);	/* after the trace ends */
	lw_attrib_set_extent(a, 100 * US, 2 * E);
	ev(a, 100 * US, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	ev(a, 2 * E, LW_TEV_SWITCH, 5, 120, 0, "x");
	lw_attrib_finish(a);
	assert_non_null(lw_attrib_get(a, 0)->unattributable);
	assert_string_equal(lw_attrib_get(a, 1)->unattributable, "after the trace ended");
	lw_attrib_free(a);
}

static void test_softirq_nested_irq(void **st)
{
	struct lw_attrib *a = new_engine();

	spike(a, E, 100 * US);
	ev(a, 0, LW_TEV_SWITCH, 31, 120, 0, "bash");
	ev(a, E - 5 * US, LW_TEV_SOFTIRQ_ENTRY, 0, 0, 0, "NET_RX");
	ev(a, E + 10 * US, LW_TEV_IRQ_ENTRY, 0, 0, 0, "ahci");
	ev(a, E + 20 * US, LW_TEV_IRQ_EXIT, 0, 0, 0, NULL);
	ev(a, E + 70 * US, LW_TEV_SOFTIRQ_EXIT, 0, 0, 0, NULL);
	wake_probe(a, E + 70 * US);
	ev(a, E + 73 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	lw_attrib_finish(a);
	const struct lw_spike *s = lw_attrib_get(a, 0);
	/* softirq time excludes the nested hard irq */
	assert_dominant(s, LW_C_SOFTIRQ, "NET_RX", 60 * US);
	assert_int_equal(find(s, LW_C_IRQ, "ahci")->ns, 10 * US);
	lw_attrib_free(a);
}

/* The kernel did not trace the switch from idle to the hog: the events
 * recorded in the hog's context (common_pid) tell it ran. */
static void test_untraced_switch(void **st)
{
	struct lw_attrib *a = new_engine();
	struct lw_tev e = { .cpu = 0 };

	spike(a, E, 2000 * US);
	ev(a, 0, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	ev(a, E - 40 * US, LW_TEV_WAKEUP, 555, 1, 0, "lw-hog");	/* woken, then silence */
	e = (struct lw_tev){ .ts = E + 5 * US, .cpu = 0, .kind = LW_TEV_TIMER_ENTRY,
			     .name = "hrtimer_wakeup", .has_cur = 1, .cur_pid = 555 };
	lw_attrib_event(a, &e);
	e = (struct lw_tev){ .ts = E + 6 * US, .cpu = 0, .kind = LW_TEV_WAKEUP, .pid = PROBE_TID,
			     .prio = PROBE_KPRIO, .has_cur = 1, .cur_pid = 555 };
	lw_attrib_event(a, &e);
	e = (struct lw_tev){ .ts = E + 7 * US, .cpu = 0, .kind = LW_TEV_TIMER_EXIT, .has_cur = 1,
			     .cur_pid = 555 };
	lw_attrib_event(a, &e);
	ev(a, E + 1995 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	lw_attrib_finish(a);
	assert_dominant(lw_attrib_get(a, 0), LW_C_PREEMPT, "lw-hog", 1988 * US);
	lw_attrib_free(a);
}

/* Two timers expire in one interrupt on an idle CPU: the hog's, then the
 * probe's; the events of the second still come from the idle task.  The
 * hog, of higher priority, runs once the interrupt ends (the switch to it
 * untraced), until it switches to the probe. */
static void test_two_timers_one_interrupt(void **st)
{
	struct lw_attrib *a = new_engine();
	struct lw_tev e;

	spike(a, E, 300 * US);
	ev(a, 0, LW_TEV_SWITCH, 0, 120, 0, "swapper");
	ev(a, 10 * US, LW_TEV_IDLE, 0, 0, 1, NULL);
	e = (struct lw_tev){ .ts = E + 1 * US, .kind = LW_TEV_TIMER_ENTRY, .name = "hrtimer_wakeup",
			     .has_cur = 1, .cur_pid = 0 };
	lw_attrib_event(a, &e);
	e = (struct lw_tev){ .ts = E + 2 * US, .kind = LW_TEV_WAKEUP, .pid = 555, .prio = 1,
			     .name = "lw-hog", .has_cur = 1, .cur_pid = 0 };
	lw_attrib_event(a, &e);
	e = (struct lw_tev){ .ts = E + 3 * US, .kind = LW_TEV_TIMER_EXIT, .has_cur = 1, .cur_pid = 0 };
	lw_attrib_event(a, &e);
	e = (struct lw_tev){ .ts = E + 4 * US, .kind = LW_TEV_TIMER_ENTRY, .name = "hrtimer_wakeup",
			     .has_cur = 1, .cur_pid = 0 };
	lw_attrib_event(a, &e);
	e = (struct lw_tev){ .ts = E + 5 * US, .kind = LW_TEV_WAKEUP, .pid = PROBE_TID,
			     .prio = PROBE_KPRIO, .name = "lw-cyclic/0", .has_cur = 1, .cur_pid = 0 };
	lw_attrib_event(a, &e);
	e = (struct lw_tev){ .ts = E + 6 * US, .kind = LW_TEV_TIMER_EXIT, .has_cur = 1, .cur_pid = 0 };
	lw_attrib_event(a, &e);
	ev(a, E + 295 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	lw_attrib_finish(a);
	assert_dominant(lw_attrib_get(a, 0), LW_C_PREEMPT, "lw-hog", 289 * US);
	lw_attrib_free(a);
}

static void count_done(void *ctx, const struct lw_spike *s)
{
	size_t *n = ctx;

	(*n)++;
	assert_true(s->unattributable == NULL || strstr(s->unattributable, "lost"));
}

/* Spikes streamed beside the events, as the trace pass gives them: memory
 * for the windows open at once and the kept ones, not for every spike; the
 * totals count every spike; the kept ones are the largest. */
static void test_streamed_spikes_bounded(void **st)
{
	size_t ndone = 0, n = 20000;
	struct lw_attrib_cfg cfg = { .ncpus = 2, .exit_latency = exit_lat, .state_name = sname,
				     .keep = 8, .done = count_done, .done_ctx = &ndone };
	struct lw_attrib *a = lw_attrib_new(&cfg);
	const json_t *c0;
	json_t *j;

	assert_non_null(a);
	ev(a, 0, LW_TEV_SWITCH, 777, 1, 0, "rt-hog");
	for (size_t i = 0; i < n; i++) {
		uint64_t e = E + i * 1000 * US, lat = (10 + i % 97) * US;

		spike(a, e, lat);
		wake_probe(a, e);
		ev(a, e + lat, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
		ev(a, e + lat + 50 * US, LW_TEV_SWITCH, 777, 1, 0, "rt-hog");
	}
	/* too late: events past its expected time were given */
	struct lw_spike late = { .expected_ns = E, .latency_ns = 10 * US, .cpu = 0, .tid = PROBE_TID };
	assert_int_equal(lw_attrib_add_spike(a, &late), -1);
	lw_attrib_finish(a);
	assert_int_equal(ndone, n);
	assert_true(lw_attrib_slots(a) <= 64);
	assert_int_equal(lw_attrib_kept(a), 8);
	for (size_t i = 0; i < lw_attrib_kept(a); i++) {
		assert_int_equal(lw_attrib_get(a, i)->latency_ns, 106 * US);
		assert_dominant(lw_attrib_get(a, i), LW_C_PREEMPT, "rt-hog", 104 * US);
		if (i)	/* in time order */
			assert_true(lw_attrib_get(a, i)->expected_ns > lw_attrib_get(a, i - 1)->expected_ns);
	}
	j = lw_attrib_json(a, 5);
	assert_int_equal(json_integer_value(json_object_get(j, "spikes_total")), n);
	assert_int_equal(json_integer_value(json_object_get(j, "attributed")), n);
	assert_int_equal(json_array_size(json_object_get(j, "top")), 5);
	c0 = json_array_get(json_object_get(j, "causes"), 0);
	assert_string_equal(json_string_value(json_object_get(c0, "cause")), "preempt:rt-hog");
	assert_int_equal(json_integer_value(json_object_get(c0, "count")), n);
	json_decref(j);
	lw_attrib_free(a);
	(void)st;
}

/* Events lost on a spike's CPU are learnt at that CPU's next event, after
 * the window closed: the spike waits for it before it is final. */
static void test_lost_learnt_after_close(void **st)
{
	struct lw_attrib *a = new_engine();
	struct lw_tev other = { .ts = E + 150 * US, .cpu = 1, .kind = LW_TEV_IRQ_ENTRY, .name = "x" };

	spike(a, E, 100 * US);
	ev(a, 0, LW_TEV_SWITCH, 777, 1, 0, "rt-hog");
	wake_probe(a, E);
	ev(a, E + 90 * US, LW_TEV_SWITCH, PROBE_TID, PROBE_KPRIO, 0, "lw-cyclic/0");
	lw_attrib_event(a, &other);	/* closes the window; CPU 0 says nothing yet */
	assert_int_equal(lw_attrib_add_lost(a, 0, E + 90 * US, E + 400 * US), 0);
	ev(a, E + 400 * US, LW_TEV_SWITCH, 777, 1, 0, "rt-hog");
	lw_attrib_finish(a);
	assert_non_null(lw_attrib_get(a, 0)->unattributable);
	assert_non_null(strstr(lw_attrib_get(a, 0)->unattributable, "lost"));
	lw_attrib_free(a);
	(void)st;
}

/* ---- work windows (deadline misses) ------------------------------------ */

#define WORKER 600		/* lw-audio/0, SCHED_FIFO 80 */
#define WORKER_KPRIO 19
#define WAKER 601		/* lw-audio-irq, SCHED_FIFO 90 */
#define WAKER_KPRIO 9
#define PERIOD (2667 * US)

static struct lw_spike got[8];
static int ngot;

static void work_done(void *ctx, const struct lw_spike *s)
{
	(void)ctx;
	if (s->work && ngot < 8)
		got[ngot++] = *s;
}

static struct lw_attrib *work_engine(void)
{
	struct lw_attrib_cfg cfg = { .ncpus = 2, .exit_latency = exit_lat, .state_name = sname,
				     .done = work_done };
	struct lw_attrib *a = lw_attrib_new(&cfg);

	assert_non_null(a);
	ngot = 0;
	return a;
}

/* A miss on CPU 0: the period starts at E, its work ends at E + @len; the
 * interrupt stage ends at E + @irq, the wake-up at E + @wake. */
static void work_window(struct lw_attrib *a, uint64_t len, uint64_t irq, uint64_t wake,
			uint64_t budget)
{
	struct lw_spike s = { .expected_ns = E, .latency_ns = len, .cpu = 0, .index = 7,
			      .work = 1, .tid = WORKER, .kprio = WORKER_KPRIO, .comm = "lw-audio/0",
			      .waker_tid = WAKER, .waker_kprio = WAKER_KPRIO, .waker_comm = "lw-audio-irq",
			      .work_budget_ns = budget, .period_ns = PERIOD,
			      .stage_end = { E + irq, E + wake } };

	assert_int_equal(lw_attrib_add_spike(a, &s), 0);
}

static void evc(struct lw_attrib *a, uint64_t ts, int cpu, enum lw_tev_kind k, int pid, int prio,
		int64_t arg, const char *name, int prev)
{
	struct lw_tev e = { .ts = ts, .cpu = cpu, .kind = k, .pid = pid, .prio = prio, .arg = arg,
			    .name = name, .prev_pid = prev };

	lw_attrib_event(a, &e);
}

/* The sum of a component over the stages (-1: any stage). */
static uint64_t comp_ns(const struct lw_spike *s, enum lw_comp_kind k, const char *name, int stage)
{
	uint64_t ns = 0;

	for (int i = 0; i < s->ncomp; i++)
		if (s->comp[i].kind == k && !strcmp(s->comp[i].name, name) &&
		    (stage < 0 || s->comp[i].stage == stage))
			ns += s->comp[i].ns;
	return ns;
}

static void assert_whole(const struct lw_spike *s)
{
	uint64_t sum = 0;

	for (int i = 0; i < s->ncomp; i++)
		sum += s->comp[i].ns;
	assert_int_equal(sum, s->latency_ns);
	for (int i = 1; i < s->nseg; i++)
		assert_int_equal(s->seg[i].from_ns, s->seg[i - 1].to_ns);
}

/* The interrupt thread on the worker's CPU wakes it on time; a SCHED_FIFO
 * task above the worker preempts its processing: the miss is that task's,
 * the worker's own running its work, by stage, every ns once. */
static void test_work_preempted(void **st)
{
	struct lw_attrib *a = work_engine();
	char label[128];

	work_window(a, 3500 * US, 8 * US, 12 * US, 1000 * US);
	evc(a, 0, 0, LW_TEV_SWITCH, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 0);
	evc(a, 100 * US, 0, LW_TEV_SWITCH, 0, 120, LW_PREV_SLEEPING, "swapper", WORKER);	/* waits */
	evc(a, 110 * US, 0, LW_TEV_SWITCH, WAKER, WAKER_KPRIO, 0, "lw-audio-irq", 0);
	evc(a, 120 * US, 0, LW_TEV_SWITCH, 0, 120, LW_PREV_SLEEPING, "swapper", WAKER);	/* its timer */
	evc(a, E + 3 * US, 0, LW_TEV_TIMER_ENTRY, 0, 0, 0, "hrtimer_wakeup", 0);
	evc(a, E + 4 * US, 0, LW_TEV_WAKEUP, WAKER, WAKER_KPRIO, 0, "lw-audio-irq", 0);
	evc(a, E + 5 * US, 0, LW_TEV_TIMER_EXIT, 0, 0, 0, NULL, 0);
	evc(a, E + 7 * US, 0, LW_TEV_SWITCH, WAKER, WAKER_KPRIO, 0, "lw-audio-irq", 0);
	evc(a, E + 10 * US, 0, LW_TEV_WAKEUP, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 0);
	evc(a, E + 11 * US, 0, LW_TEV_SWITCH, WORKER, WORKER_KPRIO, 0, "lw-audio/0", WAKER);
	/* 200 us of its work, then lw-spin (SCHED_FIFO 85) for 2.5 ms */
	evc(a, E + 211 * US, 0, LW_TEV_WAKEUP, 700, 14, 0, "lw-spin", 0);
	evc(a, E + 212 * US, 0, LW_TEV_SWITCH, 700, 14, 0, "lw-spin", WORKER);
	evc(a, E + 2712 * US, 0, LW_TEV_SWITCH, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 700);
	evc(a, E + 3600 * US, 0, LW_TEV_SWITCH, 0, 120, LW_PREV_SLEEPING, "swapper", WORKER);
	lw_attrib_finish(a);
	assert_int_equal(ngot, 1);
	const struct lw_spike *s = &got[0];
	assert_null(s->unattributable);
	assert_string_equal(lw_spike_cause(s, label, sizeof(label)), "preempt:lw-spin");
	assert_int_equal(s->dominant_ns, 2500 * US);
	assert_int_equal(comp_ns(s, LW_C_PREEMPT, "lw-spin", 2), 2500 * US);
	assert_int_equal(s->work_ns, 201 * US + 788 * US);
	assert_int_equal(comp_ns(s, LW_C_WORK, "", 2), 988 * US);
	assert_int_equal(comp_ns(s, LW_C_WORK, "", 1), 1 * US);	/* its switch in */
	/* the wake-up path: the idle CPU, the timer, the interrupt thread */
	assert_int_equal(comp_ns(s, LW_C_IDLE_EXIT, "C1", -1) + comp_ns(s, LW_C_IDLE_LATE, "C1", -1) +
			 comp_ns(s, LW_C_IDLE_EXIT, "idle", -1) + comp_ns(s, LW_C_IDLE_LATE, "idle", -1) +
			 comp_ns(s, LW_C_IDLE_EXIT, "state0", -1) + comp_ns(s, LW_C_IDLE_LATE, "state0", -1) +
			 comp_ns(s, LW_C_TIMER, "hrtimer_wakeup", 0) +
			 comp_ns(s, LW_C_WORK, "lw-audio-irq", -1), 10 * US);
	/* the worker woken, the interrupt thread above it still runs */
	assert_int_equal(comp_ns(s, LW_C_PREEMPT, "lw-audio-irq", 1), 1 * US);
	assert_int_equal(comp_ns(s, LW_C_TIMER, "hrtimer_wakeup", 0), 2 * US);
	assert_int_equal(comp_ns(s, LW_C_PROBE, "hrtimer_wakeup", -1), 0);	/* no probe path */
	assert_int_equal(s->woken_ns, E + 10 * US);
	assert_whole(s);
	/* not a spike: no totals */
	json_t *j = lw_attrib_json(a, 10);
	assert_int_equal(json_integer_value(json_object_get(j, "spikes_total")), 0);
	assert_int_equal(json_array_size(json_object_get(j, "top")), 0);
	json_decref(j);
	lw_attrib_free(a);
	(void)st;
}

/* The interrupt thread sleeps on the other CPU, where a task holds the CPU
 * with its timer due (timer-late); what the worker's CPU ran meanwhile is
 * no part of it; the window follows the wake-up to the worker's CPU. */
static void test_work_waker_elsewhere(void **st)
{
	struct lw_attrib *a = work_engine();
	char label[128];

	work_window(a, 3000 * US, 810 * US, 830 * US, 3000 * US);
	evc(a, 0, 1, LW_TEV_SWITCH, WAKER, WAKER_KPRIO, 0, "lw-audio-irq", 0);
	evc(a, 50 * US, 1, LW_TEV_SWITCH, 800, 120, LW_PREV_SLEEPING, "stress", WAKER);
	evc(a, 60 * US, 0, LW_TEV_SWITCH, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 0);
	evc(a, 70 * US, 0, LW_TEV_SWITCH, 801, 120, LW_PREV_SLEEPING, "other", WORKER);
	/* CPU 1: the timer fires 800 us late */
	evc(a, E + 800 * US, 1, LW_TEV_TIMER_ENTRY, 0, 0, 0, "hrtimer_wakeup", 0);
	evc(a, E + 801 * US, 1, LW_TEV_WAKEUP, WAKER, WAKER_KPRIO, 1, "lw-audio-irq", 0);
	evc(a, E + 802 * US, 1, LW_TEV_TIMER_EXIT, 0, 0, 0, NULL, 0);
	evc(a, E + 805 * US, 1, LW_TEV_SWITCH, WAKER, WAKER_KPRIO, 0, "lw-audio-irq", 800);
	evc(a, E + 810 * US, 1, LW_TEV_WAKEUP, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 0);
	evc(a, E + 815 * US, 0, LW_TEV_IRQ_ENTRY, 0, 0, 0, "reschedule", 0);
	evc(a, E + 816 * US, 0, LW_TEV_IRQ_EXIT, 0, 0, 0, NULL, 0);
	evc(a, E + 820 * US, 0, LW_TEV_SWITCH, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 801);
	evc(a, E + 3100 * US, 0, LW_TEV_SWITCH, 801, 120, LW_PREV_SLEEPING, "other", WORKER);
	evc(a, E + 3100 * US, 1, LW_TEV_SWITCH, 800, 120, LW_PREV_SLEEPING, "stress", WAKER);
	lw_attrib_finish(a);
	assert_int_equal(ngot, 1);
	const struct lw_spike *s = &got[0];
	assert_null(s->unattributable);
	assert_string_equal(lw_spike_cause(s, label, sizeof(label)), "timer-late:stress");
	assert_int_equal(comp_ns(s, LW_C_TIMER_LATE, "stress", 0), 800 * US);
	assert_int_equal(comp_ns(s, LW_C_TIMER_LATE, "other", -1) + comp_ns(s, LW_C_NONPREEMPT, "other", -1) +
			 comp_ns(s, LW_C_PREEMPT, "other", -1), 9 * US);	/* the IPI on its way */
	assert_int_equal(comp_ns(s, LW_C_IRQ, "reschedule", 1), 1 * US);
	assert_int_equal(s->cpu, 0);
	assert_int_equal(s->cpus, 3);	/* both CPUs */
	assert_int_equal(s->work_ns, 2180 * US);
	assert_whole(s);
	lw_attrib_free(a);
	(void)st;
}

/* Own work longer than the period is the cause; beyond what its work
 * should take, its running is the CPU taken elsewhere (unexplained). */
static void test_work_own_and_beyond(void **st)
{
	for (int k = 0; k < 2; k++) {
		struct lw_attrib *a = work_engine();
		char label[128];

		/* budget 4 ms (its work takes 3.1 ms: own work) or 1 ms (unexplained) */
		work_window(a, 3120 * US, 10 * US, 20 * US, k ? 1000 * US : 4000 * US);
		evc(a, 0, 0, LW_TEV_SWITCH, 0, 120, 0, "swapper", 0);
		evc(a, E + 10 * US, 0, LW_TEV_WAKEUP, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 0);
		evc(a, E + 20 * US, 0, LW_TEV_SWITCH, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 0);
		evc(a, E + 3200 * US, 0, LW_TEV_SWITCH, 0, 120, LW_PREV_SLEEPING, "swapper", WORKER);
		lw_attrib_finish(a);
		assert_int_equal(ngot, 1);
		const struct lw_spike *s = &got[0];
		if (!k) {
			assert_string_equal(lw_spike_cause(s, label, sizeof(label)), LW_OWN_WORK);
			assert_int_equal(s->work_ns, 3100 * US);
		} else {
			assert_string_equal(lw_spike_cause(s, label, sizeof(label)), "unexplained");
			assert_int_equal(s->work_ns, 1000 * US);
			assert_int_equal(comp_ns(s, LW_C_UNEXPLAINED, "", 2), 2100 * US);
		}
		assert_whole(s);
		lw_attrib_free(a);
	}
	(void)st;
}

/* The interrupt thread, once running, sleeps uninterruptibly (a page fault
 * waiting on a lock) until "latwatt" wakes it: blocked:latwatt. */
static void test_work_blocked(void **st)
{
	struct lw_attrib *a = work_engine();
	char label[128];

	work_window(a, 5000 * US, 4050 * US, 4060 * US, 1000 * US);
	evc(a, 0, 0, LW_TEV_SWITCH, WAKER, WAKER_KPRIO, 0, "lw-audio-irq", 0);
	evc(a, 10 * US, 0, LW_TEV_SWITCH, 900, 120, LW_PREV_SLEEPING, "latwatt", WAKER);
	evc(a, E + 5 * US, 0, LW_TEV_WAKEUP, WAKER, WAKER_KPRIO, 0, "lw-audio-irq", 0);
	evc(a, E + 10 * US, 0, LW_TEV_SWITCH, WAKER, WAKER_KPRIO, 0, "lw-audio-irq", 900);
	evc(a, E + 20 * US, 0, LW_TEV_SWITCH, 900, 120, LW_PREV_BLOCKED, "latwatt", WAKER);
	evc(a, E + 4020 * US, 0, LW_TEV_WAKEUP, WAKER, WAKER_KPRIO, 0, "lw-audio-irq", 0);
	evc(a, E + 4030 * US, 0, LW_TEV_SWITCH, WAKER, WAKER_KPRIO, 0, "lw-audio-irq", 900);
	evc(a, E + 4040 * US, 0, LW_TEV_WAKEUP, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 0);
	evc(a, E + 4050 * US, 0, LW_TEV_SWITCH, WORKER, WORKER_KPRIO, 0, "lw-audio/0", WAKER);
	evc(a, E + 5100 * US, 0, LW_TEV_SWITCH, 900, 120, LW_PREV_SLEEPING, "latwatt", WORKER);
	lw_attrib_finish(a);
	const struct lw_spike *s = &got[0];
	assert_string_equal(lw_spike_cause(s, label, sizeof(label)), "blocked:latwatt");
	assert_int_equal(comp_ns(s, LW_C_BLOCKED, "latwatt", 0), 4000 * US);
	/* while it slept, what ran is no cause: latwatt ran before its wake-ups */
	assert_int_equal(comp_ns(s, LW_C_NONPREEMPT, "latwatt", -1), 15 * US);
	/* the worker woken, the interrupt thread above it finishes */
	assert_int_equal(comp_ns(s, LW_C_PREEMPT, "lw-audio-irq", -1), 10 * US);
	assert_whole(s);
	lw_attrib_free(a);
	(void)st;
}

/* The worker still busy with the period before (preempted, runnable) when
 * this one starts: from the start, a task above it is preempt; a task below
 * it that runs once it has run is task, the CPU idle throttled (real-time
 * throttling); its running is work. */
static void test_work_runnable_at_start(void **st)
{
	struct lw_attrib *a = work_engine();
	char label[128];

	work_window(a, 3000 * US, 5 * US, 1000 * US, 2000 * US);
	evc(a, 0, 0, LW_TEV_SWITCH, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 0);
	evc(a, E - 500 * US, 0, LW_TEV_SWITCH, 700, 14, LW_PREV_RUNNABLE, "lw-spin", WORKER);
	evc(a, E + 1200 * US, 0, LW_TEV_SWITCH, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 700);
	evc(a, E + 1500 * US, 0, LW_TEV_SWITCH, 801, 120, LW_PREV_RUNNABLE, "other", WORKER);
	evc(a, E + 1600 * US, 0, LW_TEV_SWITCH, 0, 120, LW_PREV_SLEEPING, "swapper", 801);
	evc(a, E + 1610 * US, 0, LW_TEV_IDLE, 0, 0, 1, NULL, 0);
	evc(a, E + 1690 * US, 0, LW_TEV_IDLE, 0, 0, -1, NULL, 0);
	evc(a, E + 1700 * US, 0, LW_TEV_SWITCH, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 0);
	evc(a, E + 3100 * US, 0, LW_TEV_SWITCH, 801, 120, LW_PREV_SLEEPING, "other", WORKER);
	lw_attrib_finish(a);
	const struct lw_spike *s = &got[0];
	assert_true(s->runnable_at_start);
	assert_string_equal(lw_spike_cause(s, label, sizeof(label)), "preempt:lw-spin");
	assert_int_equal(comp_ns(s, LW_C_PREEMPT, "lw-spin", -1), 1200 * US);
	assert_int_equal(comp_ns(s, LW_C_TASK, "other", 2), 100 * US);
	assert_int_equal(comp_ns(s, LW_C_THROTTLED, "", 2), 100 * US);
	assert_int_equal(s->work_ns, 1600 * US);
	assert_whole(s);
	lw_attrib_free(a);
	(void)st;
}

/* The worker still busy with the period before when this one starts: its
 * running until it took this one up (the record's wake-up stage) is that
 * period's (backlog), the cause to follow; its own work is the rest. */
static void test_work_backlog(void **st)
{
	struct lw_attrib *a = work_engine();
	char label[128];

	work_window(a, 2900 * US, 5 * US, 1700 * US, 4000 * US);
	evc(a, 0, 0, LW_TEV_SWITCH, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 0);
	evc(a, E + 2 * US, 0, LW_TEV_TIMER_ENTRY, 0, 0, 0, "hrtimer_wakeup", 0);
	evc(a, E + 3 * US, 0, LW_TEV_WAKEUP, WAKER, WAKER_KPRIO, 0, "lw-audio-irq", 0);
	evc(a, E + 4 * US, 0, LW_TEV_TIMER_EXIT, 0, 0, 0, NULL, 0);
	evc(a, E + 5 * US, 0, LW_TEV_SWITCH, WAKER, WAKER_KPRIO, 0, "lw-audio-irq", WORKER);
	evc(a, E + 10 * US, 0, LW_TEV_SWITCH, WORKER, WORKER_KPRIO, 0, "lw-audio/0", WAKER);
	evc(a, E + 3000 * US, 0, LW_TEV_SWITCH, 0, 120, LW_PREV_SLEEPING, "swapper", WORKER);
	lw_attrib_finish(a);
	const struct lw_spike *s = &got[0];
	assert_true(s->runnable_at_start);
	assert_string_equal(lw_spike_cause(s, label, sizeof(label)), "backlog");
	assert_int_equal(s->backlog_ns, 1693 * US);
	assert_int_equal(comp_ns(s, LW_C_BACKLOG, "", -1), 1693 * US);
	assert_int_equal(s->work_ns, 1200 * US);
	assert_int_equal(comp_ns(s, LW_C_WORK, "", 2), 1200 * US);
	/* the interrupt thread, above it, ran first */
	assert_int_equal(comp_ns(s, LW_C_PREEMPT, "lw-audio-irq", -1), 5 * US);
	assert_whole(s);
	lw_attrib_free(a);
	(void)st;
}

/* The worker held (a page fault, D) in the middle of the period before when
 * this one starts: blocked until what woke it, then backlog until it takes
 * this one up. */
static void test_work_held_at_start(void **st)
{
	struct lw_attrib *a = work_engine();
	char label[128];

	work_window(a, 2800 * US, 5 * US, 1500 * US, 4000 * US);
	evc(a, 0, 0, LW_TEV_SWITCH, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 0);
	evc(a, E - 100 * US, 0, LW_TEV_SWITCH, 900, 120, LW_PREV_BLOCKED, "latwatt", WORKER);
	evc(a, E + 1000 * US, 0, LW_TEV_WAKEUP, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 0);
	evc(a, E + 1000 * US, 0, LW_TEV_SWITCH, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 900);
	evc(a, E + 2900 * US, 0, LW_TEV_SWITCH, 900, 120, LW_PREV_SLEEPING, "latwatt", WORKER);
	lw_attrib_finish(a);
	const struct lw_spike *s = &got[0];
	assert_true(s->busy_at_start);
	assert_false(s->runnable_at_start);
	assert_string_equal(lw_spike_cause(s, label, sizeof(label)), "blocked:latwatt");
	assert_int_equal(comp_ns(s, LW_C_BLOCKED, "latwatt", -1), 1000 * US);
	assert_int_equal(s->backlog_ns, 500 * US);
	assert_int_equal(s->work_ns, 1300 * US);
	assert_whole(s);
	lw_attrib_free(a);
	(void)st;
}

/* Events lost on a CPU the window went to: unattributable, never guessed;
 * a window before the trace, or past its end: the same. */
static void test_work_lost_and_outside(void **st)
{
	struct lw_attrib *a = work_engine();
	struct lw_spike early = { .expected_ns = 10 * US, .latency_ns = 500 * US, .cpu = 0,
				  .work = 1, .tid = WORKER, .kprio = WORKER_KPRIO, .waker_tid = WAKER,
				  .waker_kprio = WAKER_KPRIO, .index = 1 };
	struct lw_spike late = early;

	late.expected_ns = 20 * E;
	late.latency_ns = 3000 * US;
	late.index = 2;
	assert_int_equal(lw_attrib_add_spike(a, &early), 0);
	work_window(a, 3000 * US, 810 * US, 830 * US, 1000 * US);
	assert_int_equal(lw_attrib_add_spike(a, &late), 0);
	evc(a, 50 * US, 1, LW_TEV_SWITCH, WAKER, WAKER_KPRIO, 0, "lw-audio-irq", 0);
	evc(a, 60 * US, 1, LW_TEV_SWITCH, 800, 120, LW_PREV_SLEEPING, "stress", WAKER);
	evc(a, 60 * US, 0, LW_TEV_SWITCH, 801, 120, 0, "other", 0);
	evc(a, E + 801 * US, 1, LW_TEV_WAKEUP, WAKER, WAKER_KPRIO, 1, "lw-audio-irq", 0);
	evc(a, E + 805 * US, 1, LW_TEV_SWITCH, WAKER, WAKER_KPRIO, 0, "lw-audio-irq", 800);
	evc(a, E + 810 * US, 1, LW_TEV_WAKEUP, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 0);
	evc(a, E + 820 * US, 0, LW_TEV_SWITCH, WORKER, WORKER_KPRIO, 0, "lw-audio/0", 801);
	assert_int_equal(lw_attrib_add_lost(a, 1, E + 100 * US, E + 200 * US), 0);
	evc(a, E + 3100 * US, 0, LW_TEV_SWITCH, 801, 120, LW_PREV_SLEEPING, "other", WORKER);
	evc(a, E + 3100 * US, 1, LW_TEV_SWITCH, 800, 120, LW_PREV_SLEEPING, "stress", WAKER);
	lw_attrib_set_extent(a, 50 * US, E + 3100 * US);
	lw_attrib_finish(a);
	assert_int_equal(ngot, 3);
	for (int i = 0; i < 3; i++) {
		assert_non_null(got[i].unattributable);
		if (got[i].index == 1)
			assert_string_equal(got[i].unattributable, "before the trace started");
		else if (got[i].index == 2)
			assert_string_equal(got[i].unattributable, "after the trace ended");
		else
			assert_non_null(strstr(got[i].unattributable, "lost"));
	}
	lw_attrib_free(a);
	(void)st;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_irq_before_wakeup),
		cmocka_unit_test(test_stall_in_probe_path),
		cmocka_unit_test(test_higher_priority_task),
		cmocka_unit_test(test_deep_idle_exit),
		cmocka_unit_test(test_idle_late),
		cmocka_unit_test(test_idle_late_none_declared),
		cmocka_unit_test(test_host_gap),
		cmocka_unit_test(test_host_idle_late_short),
		cmocka_unit_test(test_host_gap_long_stretch),
		cmocka_unit_test(test_host_steal),
		cmocka_unit_test(test_timer_storm),
		cmocka_unit_test(test_noise_gaps),
		cmocka_unit_test(test_noise_gap_by_name),
		cmocka_unit_test(test_lost_events_window),
		cmocka_unit_test(test_untraced_gap_and_forget),
		cmocka_unit_test(test_nonpreemptible_and_irqs_off),
		cmocka_unit_test(test_code_behind_a_spike),
		cmocka_unit_test(test_host_timer_late_in_user_space),
		cmocka_unit_test(test_irqs_off_section),
		cmocka_unit_test(test_hardware_firmware),
		cmocka_unit_test(test_outside_trace_and_unknown_state),
		cmocka_unit_test(test_softirq_nested_irq),
		cmocka_unit_test(test_untraced_switch),
		cmocka_unit_test(test_two_timers_one_interrupt),
		cmocka_unit_test(test_nonpreemptible_remote_wakeup),
		cmocka_unit_test(test_streamed_spikes_bounded),
		cmocka_unit_test(test_lost_learnt_after_close),
		cmocka_unit_test(test_work_preempted),
		cmocka_unit_test(test_work_waker_elsewhere),
		cmocka_unit_test(test_work_own_and_beyond),
		cmocka_unit_test(test_work_blocked),
		cmocka_unit_test(test_work_runnable_at_start),
		cmocka_unit_test(test_work_backlog),
		cmocka_unit_test(test_work_held_at_start),
		cmocka_unit_test(test_work_lost_and_outside),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
