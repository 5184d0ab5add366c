/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Spike attribution: what a CPU did between a timer's expected expiry E and
 * the moment the probe read the clock W = E + latency, reconstructed from
 * the kernel trace.
 *
 * The engine keeps, per CPU, a stack of execution contexts: the base is the
 * running task or the idle loop (with its idle state), above it softirqs,
 * hard IRQs and hrtimer callbacks as they nest.  Every nanosecond of a spike
 * window is charged to the context on top of the stack at that moment, so
 * the components of a spike add up to its latency exactly (when the trace is
 * complete).  Charging rules for the base context:
 *
 *   idle (state S)          idle-exit S, up to S's declared exit latency; the
 *                           rest is idle-late S: the CPU stayed idle past the
 *                           time its wake-up was due (the hardware, firmware
 *                           or a hypervisor woke it late); with no exit
 *                           latency declared, all of it is idle-late
 *   the probe's own thread  probe (its wake-up path); but woken onto an idle
 *                           CPU and not yet seen running, idle-exit S: the
 *                           idle loop's way out (tick restart, NO_HZ exit)
 *   another task, before    timer-late: the timer's interrupt came late while
 *     the probe was woken   that task ran (interrupts disabled in it, or the
 *                           hardware or a hypervisor held the CPU: the trace
 *                           cannot tell which without the irqsoff tracer)
 *   another task of higher  preempt: it ran because it outranks the probe
 *     priority, after
 *   another task of lower   non-preemptible: the probe was runnable but that
 *     or equal priority     task did not yield (a preempt-disabled section);
 *                           but woken from another CPU, timer-late until this
 *                           CPU takes an interrupt (the reschedule IPI): till
 *                           then it cannot know of the wake-up
 *   nothing known           unexplained: the CPU's state was not known
 *
 * On a virtual machine (lw_attrib_cfg.vm, .steal) the time with no event is
 * the host's: host:steal as far as the hypervisor reported steal in the
 * window, host:gap where the CPU was running and the trace saw nothing, or
 * was silent for LW_HOST_GAP_NS or more where no handler or idle state
 * lasts that long (below).  A vCPU halted in an idle state and woken late
 * (idle-late, usually some 100 us in a virtual machine) stays idle-late:
 * it is what that idle state costs there, and the guest's choice.
 *
 * A work window (a deadline miss: lw_spike.work) runs from the start of a
 * period to the moment its work was done, and follows the threads that do
 * it: the waker (audio: the interrupt thread; video: the capture thread)
 * until it wakes the worker, then the worker.  It starts on the CPU the
 * waker was last seen on (the worker's, when the worker was already
 * runnable: still busy with an earlier period), and moves with the thread it
 * follows (its wake-up's target CPU, a switch in or a migration elsewhere).
 * The rules are those of a probe's spike, with the thread followed as the
 * probe: before the waker is woken, another task is timer-late; once the
 * thread followed is woken, a task of higher priority is preempt, of lower or
 * equal priority non-preemptible, but task once the worker has run in the
 * window or when it was runnable from the start (it ran in the worker's
 * place: throttled, or equal priority first);
 * an hrtimer callback is timer: (no probe path).  Then:
 *
 *   the worker running      work (its own work), up to work_budget_ns a
 *                           window; beyond it the CPU ran something the
 *                           trace does not see (a hypervisor): unexplained;
 *                           but backlog before the processing stage when it
 *                           was busy at the start (runnable or held, not
 *                           waiting for its wake-up): still busy with
 *                           earlier periods (the same budget)
 *   the waker running       work:WAKER, up to waker_budget_ns plus
 *                           LW_PROBE_PATH_NS; beyond it unexplained
 *   the CPU idle, the       throttled: kept off its CPU with nothing above
 *     worker runnable and   it (the kernel's real-time throttling)
 *     it ran before (or
 *     since the start)
 *   the thread followed     blocked:WAKER, charged when WAKER (the task or
 *     asleep after it was   interrupt that woke it) does; blocked when the
 *     woken (or held: D, T, window ends first
 *     t at the start)
 *
 * Every component is also split by stage, the window's times the record
 * gives (stage_end[]: interrupt, wake-up, processing).  The cause of a work
 * window is its largest component, summed over the stages, other than the
 * worker's own work; but own work alone longer than the period is the
 * cause (a backlog is the cause of the period it was busy with: the
 * caller's to follow).  Work windows have no part in the totals nor in the kept spikes:
 * the caller's done() gets them.
 *
 * A noise-probe gap (the busy loop did not run from E to W) is explained by
 * what ran instead: interrupts, softirqs, timers as above; another task is
 * preempt (it outranks the loop) or task (it ran in the loop's place: the
 * loop was throttled or blocked).  Time in the loop's own thread, with no
 * event, is unexplained (the CPU was running and the trace saw nothing:
 * interrupts off, firmware, SMI, a hypervisor): never charged to the loop.
 *
 * The kernel does not trace every switch (a switch out of the idle task can
 * go unrecorded while RCU is not watching), so the task an event was recorded
 * in (common_pid) also sets the base: a task seen running is running, with
 * the priority and name its last wake-up or switch gave; and a task woken
 * onto an idle CPU runs there once the waking interrupt returns.
 *
 * Input is a stream of normalized events (struct lw_tev) in timestamp order,
 * from any trace reader.  Spikes may be given all before the first event, or
 * streamed beside the events in time order: each before the first event past
 * its expected time.  A spike whose window overlaps lost events, or lies
 * outside the trace, is unattributable and never guessed.
 *
 * Memory does not grow with the trace nor with the number of spikes: a spike
 * is held while its window is open (and until its CPU's next event tells
 * whether events were lost in it), then folded into the totals per cause and
 * handed to the caller's done() callback; only the cfg.keep largest are kept
 * whole (components and timeline) for the listing.
 */
#ifndef LW_ATTRIB_H
#define LW_ATTRIB_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum lw_tev_kind {
	LW_TEV_SWITCH,		/* pid/prio/name: the next task; prev_pid; arg: the
				 * previous task's state (enum lw_prev_state) */
	LW_TEV_WAKEUP,		/* pid/prio/name: the task woken; arg: its target CPU or -1 */
	LW_TEV_IRQ_ENTRY,	/* name: the handler (irq_handler_entry, irq_vectors *_entry) */
	LW_TEV_IRQ_EXIT,
	LW_TEV_SOFTIRQ_ENTRY,	/* name: the vector (TIMER, NET_RX, RCU, ...) */
	LW_TEV_SOFTIRQ_EXIT,
	LW_TEV_TIMER_ENTRY,	/* name: the hrtimer callback function */
	LW_TEV_TIMER_EXIT,
	LW_TEV_IDLE,		/* arg: idle state index entered, or -1 on exit */
	LW_TEV_TICK_STOP,	/* arg: 1 the tick was stopped, 0 it could not be */
	LW_TEV_FREQ,		/* arg: new frequency, kHz */
	LW_TEV_MIGRATE,		/* pid: task migrated to this CPU (arg: from CPU) */
	LW_TEV_STACK,		/* a kernel stack (run --stacks): pid: the task it is
				 * of; prev_pid: the thread woken or switched to;
				 * arg: at its wake-up (0) or the switch (1); name:
				 * where it says the task was (analysis/codeloc.h) */
	LW_TEV_SECTION,		/* a preemptirq section ended (irq_enable or
				 * preempt_enable) on this CPU: arg: its start (ns);
				 * prev_pid: LW_SECT_IRQS or LW_SECT_PREEMPT; name:
				 * where it began (caller symbol+offset) or NULL */
	LW_TEV_MAX
};

/* The kinds of preemptirq sections (LW_TEV_SECTION). */
enum { LW_SECT_IRQS = 0, LW_SECT_PREEMPT = 1, LW_SECT_KINDS };

/* The state a switch leaves the previous task in. */
enum lw_prev_state {
	LW_PREV_RUNNABLE = 0,	/* preempted, or it yielded: still runnable */
	LW_PREV_SLEEPING = 1,	/* waits for an event (S) */
	LW_PREV_BLOCKED = 2,	/* held: uninterruptible (D: I/O, a lock, a page
				 * fault), stopped or traced (T, t) */
};

struct lw_tev {
	uint64_t ts;		/* CLOCK_MONOTONIC ns (trace clock "mono") */
	int cpu;
	enum lw_tev_kind kind;
	int pid;
	int prio;		/* kernel priority (0..99 RT, lower is higher; 120 normal) */
	int prev_pid;
	int64_t arg;
	const char *name;	/* only valid during lw_attrib_event() */
	/* the task current on the CPU when the event was recorded (the trace's
	 * common_pid), if known: it corrects the engine's view where the
	 * kernel did not trace a switch */
	int has_cur;
	int cur_pid;
};

enum lw_comp_kind {
	LW_C_IDLE_EXIT,
	LW_C_IRQ,
	LW_C_SOFTIRQ,
	LW_C_TIMER,
	LW_C_PREEMPT,
	LW_C_NONPREEMPT,
	LW_C_TIMER_LATE,
	LW_C_PROBE,
	LW_C_UNEXPLAINED,	/* the CPU running (or unknown), no event */
	LW_C_IDLE_LATE,		/* idle past the state's exit latency; name: the state */
	LW_C_TASK,		/* noise: another task ran in the loop's place */
	LW_C_WORK,		/* work window: the worker's own work (name ""), the waker's */
	LW_C_BLOCKED,		/* work window: the thread slept; name: what woke it */
	LW_C_BACKLOG,		/* work window: the worker busy with earlier periods */
	LW_C_THROTTLED,		/* work window: the CPU idle while the worker could run */
	LW_C_HOST,		/* the host's (a virtual machine): name "steal" or "gap" */
	LW_C_HWFW,		/* hardware/firmware: time with no event on a CPU whose
				 * SMI count moved (name "SMI"), or an hwnoise gap
				 * (interrupts off) no event explains (name ""; on a
				 * virtual machine "host": the vCPU stopped) */
	LW_C_MAX
};
const char *lw_comp_kind_name(enum lw_comp_kind k);	/* "irq", "idle-exit", ... */

#define LW_ATTRIB_MAX_COMP 24	/* a work window's, by stage; a spike keeps 12 */
#define LW_ATTRIB_SPIKE_COMP 12
#define LW_ATTRIB_MAX_SEG  24
#define LW_WORK_STAGES 3

/* What ran when: a piece of the window, in time order. */
struct lw_segment {
	uint64_t from_ns, to_ns;	/* CLOCK_MONOTONIC */
	enum lw_comp_kind kind;
	const char *name;
};

struct lw_component {
	enum lw_comp_kind kind;
	const char *name;	/* interned; "" where the kind says it all */
	uint64_t ns;
	int pid;		/* a task's (preempt, non-preemptible, timer-late,
				 * task): the first charged; -1 otherwise */
	int stage;		/* a work window's stage; 0 for a spike */
};

struct lw_spike {
	/* given */
	uint64_t expected_ns;
	uint64_t latency_ns;
	int cpu;
	unsigned probe;		/* enum lw_sample_id */
	int tid;		/* the probe thread's kernel tid, or -1 */
	int kprio;		/* its kernel priority, or -1 */
	const char *comm;	/* its name, to know it where tid is -1; or NULL */
	int gap;		/* a noise-probe gap: the thread busy-looped, never slept */
	int irqs_off;		/* that loop ran with interrupts off (hwnoise) */
	uint64_t nmi_ns;	/* with irqs_off: time of the NMIs the tracer saw in
				 * the gap (osnoise:nmi_noise), charged irq:NMI
				 * before the rest is hardware/firmware */
	uint64_t index;		/* caller's reference (sample number) */
	/* a work window (a deadline miss, see above), 0 for a spike: the
	 * worker is tid/kprio/comm, woken by the waker (tid and kprio -1,
	 * comm NULL where not known); its own running is work up to
	 * work_budget_ns, the waker's up to waker_budget_ns (plus
	 * LW_PROBE_PATH_NS); own work beyond period_ns is the cause; the
	 * window's stages end at stage_end[0] and stage_end[1] (absolute) */
	int work;
	int waker_tid, waker_kprio;
	const char *waker_comm;
	uint64_t work_budget_ns, waker_budget_ns, period_ns;
	uint64_t stage_end[LW_WORK_STAGES - 1];
	/* found */
	const char *unattributable;	/* the reason, or NULL */
	struct lw_component comp[LW_ATTRIB_MAX_COMP];
	int ncomp;
	int dominant;		/* index in comp, -1 if none */
	uint64_t dominant_ns;	/* its cause's time (a work window: over every stage) */
	uint64_t work_ns;	/* a work window: charged to the worker's own work */
	uint64_t waker_ns;	/* and to the waker's */
	uint64_t backlog_ns;	/* and to earlier periods' (backlog) */
	int runnable_at_start;	/* the worker was runnable at its start */
	int busy_at_start;	/* or held: busy with earlier periods, not waiting */
	struct lw_segment seg[LW_ATTRIB_MAX_SEG];	/* the first ones, merged */
	int nseg;
	int seg_truncated;	/* more segments than kept */
	int idle_state;		/* idle state at expected time, -1 if busy */
	uint64_t idle_since_ns;
	uint64_t woken_ns;	/* 0: no wake-up seen in the window */
	uint64_t switched_in_ns;
	int tick_stopped;	/* -1 unknown, 0 running, 1 stopped (last tick_stop before E) */
	/* the idle state charged idle-late, its declared exit latency (ns, or
	 * LW_EXIT_LATENCY_NONE) and the excess: the idle-late time */
	int late_state;		/* -1: none */
	uint64_t late_exit_ns;
	uint64_t late_ns;
	int freq_changes;
	int migrations;
	/* the host's time in the window (host: components) and the steal the
	 * hypervisor reported in it (interpolated, see lw_attrib_cfg.steal) */
	uint64_t host_ns;
	uint64_t steal_ns;
	/* the code the kernel's stacks name (LW_TEV_STACK): [0] the task
	 * running when the probe's thread was woken, [1] the task that left
	 * the CPU to it; pid -1 and where NULL when the trace has none */
	struct { int pid; const char *where; } code[2];
	/* the longest irqs-off and preempt-off sections (preemptirq
	 * tracepoints) on the spike's CPU overlapping its window, by kind
	 * (LW_SECT_*): where each began (NULL: not known), from == to == 0: none */
	struct { uint64_t from, to; const char *where; } sect[LW_SECT_KINDS];
	/* engine state */
	int wake_pending;	/* woken from another CPU, no interrupt here since */
	uint64_t last;
	uint64_t idle_budget_left;
	uint64_t probe_ns;	/* charged to the probe's own path so far */
	int open;
	int done;
	/* work windows: following the worker (1) or the waker (0); the waker
	 * woken; the worker seen running; asleep since, unaccounted; the CPUs
	 * visited (bit cpu % 64; far: one >= 64) and those still to see an
	 * event past its end before its lost windows are all known */
	int stage, waker_woken, ran, blocked, far;
	uint64_t blocked_ns;
	uint64_t cpus, wait_cpus;
};

/* The most of a spike charged to the probe's own wake-up path (its timer
 * callback, the switch to it, its return to user space): a few us on the
 * slowest boards; time beyond it in the probe's context, with no event, is
 * the CPU running something the trace does not see (unexplained). */
#define LW_PROBE_PATH_NS 20000ULL

/* On a virtual machine, the longest stretch with no trace event that an
 * interrupt handler, a softirq, a timer callback, a task running while
 * the probe's timer was due (timer-late) or the idle loop's way out
 * (idle-exit) is charged as such; a longer one is host:gap.  The tick (4 ms at HZ=250) would have made an event in a
 * task with interrupts on; a handler that runs 5 ms with none is the host
 * holding the vCPU far more often than a driver (lw_attrib_cfg.vm). */
#define LW_HOST_GAP_NS 5000000ULL

/* An idle state that declares no exit latency. */
#define LW_EXIT_LATENCY_NONE UINT64_MAX

struct lw_attrib_cfg {
	int ncpus;
	/* exit latency (ns, LW_EXIT_LATENCY_NONE where the state declares
	 * none) and name of idle state s on cpu c: may be NULL */
	uint64_t (*exit_latency)(void *ctx, int cpu, int state);
	const char *(*state_name)(void *ctx, int cpu, int state);
	void *ctx;
	/* the largest spikes kept whole, for lw_attrib_get() and the listing
	 * (0: LW_ATTRIB_KEEP_DEFAULT) */
	size_t keep;
	/* Host interference (not for work windows).  @vm: the run is on a
	 * virtual machine (sysinfo): time in the window in which the CPU
	 * produced no trace event and is charged unexplained (running) is
	 * host:gap, and so is a stretch of LW_HOST_GAP_NS or more with no
	 * event in an interrupt, softirq, timer callback, a timer-late task,
	 * the idle loop's way out, or halted past its idle state's exit
	 * latency (idle-late: shorter, it is the idle state's cost).  @steal, when given: the steal the
	 * hypervisor reported on @cpu in [from, to); that much of the window's
	 * time with no event (host:gap, unexplained, idle-late, timer-late)
	 * becomes host:steal, never time the trace explains (an interrupt, a
	 * task). */
	int vm;
	uint64_t (*steal)(void *steal_ctx, int cpu, uint64_t from, uint64_t to);
	void *steal_ctx;
	/* Hardware and firmware (not on a virtual machine, where it is the
	 * host's; not for work windows): @smi_cpus[cpu] != 0 when that CPU's
	 * SMI count moved during the run (RUN/manifest.json "smi"); then a
	 * spike's time that no event explains (unexplained) is
	 * hardware/firmware:SMI.  Never without a count that moved, except for
	 * a gap of a probe that ran with interrupts off (lw_spike.irqs_off):
	 * there nothing the kernel does can run unseen, so its unexplained
	 * time is hardware/firmware (on a virtual machine, what would be
	 * host:gap is hardware/firmware:host, the host's time still).  NULL:
	 * no count. */
	const unsigned char *smi_cpus;
	/* each spike once its attribution is final, in no set order; may be
	 * NULL.  The spike and its names live only during the call. */
	void (*done)(void *done_ctx, const struct lw_spike *s);
	void *done_ctx;
};
#define LW_ATTRIB_KEEP_DEFAULT 64

struct lw_attrib;
struct lw_attrib *lw_attrib_new(const struct lw_attrib_cfg *cfg);
void lw_attrib_free(struct lw_attrib *a);
/* Before the first event whose time is past the spike's expected time.
 * 0 or -1 (out of memory, bad cpu, too late). */
int lw_attrib_add_spike(struct lw_attrib *a, const struct lw_spike *s);
/* A window of @cpu (-1: every CPU) in which events may be missing: before
 * the event on @cpu that ends it (the first one after the loss); windows of
 * every CPU before the first event. */
int lw_attrib_add_lost(struct lw_attrib *a, int cpu, uint64_t from_ns, uint64_t to_ns);
/* A stretch of time with no trace at all (between the windows a monitored
 * run saved): spikes touching it are unattributable, "no trace window". */
int lw_attrib_add_untraced(struct lw_attrib *a, uint64_t from_ns, uint64_t to_ns);
/* The trace resumes after such a stretch: every CPU's state is unknown
 * again (call before the first event after it). */
void lw_attrib_forget(struct lw_attrib *a);
/* The trace's extent (first and last event), for windows outside it. */
void lw_attrib_set_extent(struct lw_attrib *a, uint64_t first_ns, uint64_t last_ns);
/* Events in timestamp order. */
void lw_attrib_event(struct lw_attrib *a, const struct lw_tev *ev);
/* After the last event: closes what is open. */
void lw_attrib_finish(struct lw_attrib *a);

/* After lw_attrib_finish(): the kept spikes (the cfg.keep largest), in order
 * of expected time. */
size_t lw_attrib_kept(const struct lw_attrib *a);
/* Spike slots allocated: the most spikes live at once, rounded up. */
size_t lw_attrib_slots(const struct lw_attrib *a);
const struct lw_spike *lw_attrib_get(const struct lw_attrib *a, size_t i);
/* The spike's cause: the label of its dominant component, "unattributable"
 * or "?" (nothing charged); a work window's own work longer than its period:
 * LW_OWN_WORK. */
#define LW_OWN_WORK "own work > period"
const char *lw_spike_cause(const struct lw_spike *s, char *buf, size_t len);
/* Its components, largest first: [{cause, kind, name, ns, share, pid?,
 * stage?}] (stage: @stages[its stage], for a work window when @stages is
 * given), and its timeline [{start_ns, end_ns, kind, name}] in time order. */
json_t *lw_spike_components_json(const struct lw_spike *s, const char *const *stages);
json_t *lw_spike_timeline_json(const struct lw_spike *s);

/* {"top":[the N largest spikes, each with its components (largest first)
 * and its "timeline" of {start_ns, end_ns, kind, name} pieces in time
 * order], "causes":[{cause, kind, name, count (as dominant), ns, share}…],
 * "spikes_total":N, "attributed":N, "unattributable":N, "total_latency_ns":…,
 * "unexplained":{"idle_late":[{state, exit_latency_ns (null: none declared),
 * ns, spikes}…], "idle_late_ns", "running_ns", "running_spikes"}}: the
 * totals over every spike, "top" from the kept ones (top_n at most cfg.keep) */
json_t *lw_attrib_json(const struct lw_attrib *a, size_t top_n);
/* Where the code of the spike's cause was, in words, else NULL: the
 * longest section with interrupts off (a cause of timer-late, unexplained
 * or non-preemptible) or preemption off (non-preemptible) that overlaps it
 * ("irqs off 812 us in foo_isr+0x3c on CPU 1"), and the stacks of the
 * cause's task ("in user space at the wake-up; left the CPU in
 * do_nanosleep+0x6a (clock_nanosleep)"). */
const char *lw_spike_where(const struct lw_spike *s, char *buf, size_t len);
/* "irq:eth0" etc. into buf. */
const char *lw_component_label(const struct lw_component *c, char *buf, size_t len);

#endif
