/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every thread latwatt starts: policy, priority and affinity set explicitly
 * (so a refused SCHED_FIFO fails pthread_create itself, synchronously), and a
 * small stack (LW_THREAD_STACK): memory is locked for realtime runs, and a
 * default 8 MB stack would be faulted in whole.
 */
#ifndef LW_THREAD_H
#define LW_THREAD_H

#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

/* Stack of every thread latwatt creates.  Memory is locked (mlockall
 * MCL_FUTURE) for realtime runs, so a default 8 MB stack would be faulted in
 * whole and delay the start of the run. */
#define LW_THREAD_STACK (256 * 1024)

struct lw_sched {
	int policy;		/* SCHED_FIFO, SCHED_OTHER, SCHED_BATCH, SCHED_IDLE */
	int priority;		/* SCHED_FIFO only */
	int cpu;		/* pinned to this CPU, or -1 */
	const cpu_set_t *cpus;	/* or to this set (when cpu < 0), or NULL: anywhere */
	size_t stack;		/* bytes; 0: LW_THREAD_STACK */
};

/* pthread_create with @s; 0, or -1 after error() naming @what (with the
 * remedy when SCHED_FIFO is refused). */
int lw_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, const struct lw_sched *s,
		    const char *what);

/*
 * A sleep a periodic thread (a sampler) can be woken from at once: it
 * sleeps until a CLOCK_MONOTONIC time, and lw_stopper_stop() from another
 * thread ends the sleep and every later one.
 */
struct lw_stopper {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	_Atomic int quit;
};
void lw_stopper_init(struct lw_stopper *s);
void lw_stopper_destroy(struct lw_stopper *s);
/* Sleep until @mono_ns; 1 when stopped (now or before), else 0. */
int lw_stopper_sleep_until(struct lw_stopper *s, uint64_t mono_ns);
void lw_stopper_stop(struct lw_stopper *s);

/* The stack a measurement loop touches before it starts, so that it takes
 * no page fault on it (memory is locked for realtime runs). */
#define LW_PREFAULT_STACK (64 * 1024)

/* Touch LW_PREFAULT_STACK bytes of the calling thread's stack. */
void lw_prefault_stack(void);

/* Move every thread of this process that may run on @cpus off them (the
 * writer, the main thread, a trace reader), where a busy loop holds them
 * (the noise probe's, the hwnoise probe's with interrupts off).  Pinned
 * threads elsewhere are left as they are; a thread whose mask would be
 * empty too. */
void lw_threads_off(const cpu_set_t *cpus);

#endif
