// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/thread.h"
#include "lib/timeutil.h"

int lw_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, const struct lw_sched *s,
		    const char *what)
{
	struct sched_param sp = { .sched_priority = s->policy == SCHED_FIFO ? s->priority : 0 };
	pthread_attr_t attr;
	cpu_set_t one;
	int ret;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, s->stack ? s->stack : LW_THREAD_STACK);
	if (s->cpu >= 0) {
		CPU_ZERO(&one);
		CPU_SET(s->cpu, &one);
		pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
	} else if (s->cpus) {
		pthread_attr_setaffinity_np(&attr, sizeof(*s->cpus), s->cpus);
	}
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, s->policy);
	pthread_attr_setschedparam(&attr, &sp);
	ret = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	if (ret == EPERM && s->policy == SCHED_FIFO)
		return error("cannot start %s (SCHED_FIFO priority %d): %s "
			     "(run as root or with CAP_SYS_NICE, or use --no-rt)",
			     what, s->priority, strerror(ret));
	if (ret)
		return error("cannot start %s: %s", what, strerror(ret));
	return 0;
}

void lw_prefault_stack(void)
{
	volatile unsigned char buf[LW_PREFAULT_STACK];

	for (size_t i = 0; i < sizeof(buf); i += 4096)
		buf[i] = 0;
}

void lw_stopper_init(struct lw_stopper *s)
{
	pthread_condattr_t ca;	/* waits on CLOCK_MONOTONIC, as the ticks are */

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&s->lock, NULL);
	atomic_store(&s->quit, 0);
}

void lw_stopper_destroy(struct lw_stopper *s)
{
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
}

int lw_stopper_sleep_until(struct lw_stopper *s, uint64_t mono_ns)
{
	struct timespec ts = lw_ns_to_ts(mono_ns);
	int stop;

	pthread_mutex_lock(&s->lock);
	while (!(stop = atomic_load(&s->quit)) &&
	       pthread_cond_timedwait(&s->wake, &s->lock, &ts) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&s->lock);
	return stop;
}

void lw_stopper_stop(struct lw_stopper *s)
{
	pthread_mutex_lock(&s->lock);
	atomic_store(&s->quit, 1);
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
}

void lw_threads_off(const cpu_set_t *cpus)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);
		cpu_set_t m, keep;

		if (tid <= 0 || sched_getaffinity(tid, sizeof(m), &m) < 0)
			continue;
		CPU_XOR(&keep, &m, cpus);
		CPU_AND(&keep, &keep, &m);
		if (CPU_COUNT(&keep) && !CPU_EQUAL(&keep, &m))
			sched_setaffinity(tid, sizeof(keep), &keep);
	}
	closedir(d);
}
