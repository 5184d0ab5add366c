// SPDX-License-Identifier: GPL-2.0-only
/*
 * A planted timer storm, for tests/integration/tune-storm.sh and
 * bench/tune-storm: a task pinned to one CPU that arms a high-rate timer
 * and does a short burst of work at each expiry, at a realtime priority.
 *
 *   plant-timerstorm CPU PERIOD_US BURST_US PRIO SECS
 *
 * Process "lw-storm", SCHED_FIFO PRIO (0: SCHED_OTHER), its affinity CPU
 * alone, sleeps with clock_nanosleep(TIMER_ABSTIME) to the next multiple
 * of PERIOD_US and spins BURST_US at each wake-up, for SECS seconds (0:
 * until killed).  On that CPU this is a storm of timer interrupts and
 * wake-ups, and a task that runs BURST_US of every PERIOD_US ahead of
 * any lower priority: a probe woken meanwhile waits for the burst to end.
 * It is not an IRQ storm of a device: its interrupts are the local timer's.
 * It prints "ready" once pinned and at its priority, and "done WAKEUPS"
 * at its end.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t period, burst, end, next, n = 0;
	struct sched_param sp = { 0 };
	cpu_set_t set;
	int cpu, prio, secs;

	if (argc != 6) {
		fprintf(stderr, "usage: plant-timerstorm CPU PERIOD_US BURST_US PRIO SECS\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	period = strtoull(argv[2], NULL, 10) * 1000;
	burst = strtoull(argv[3], NULL, 10) * 1000;
	prio = atoi(argv[4]);
	secs = atoi(argv[5]);
	if (period == 0 || burst >= period) {
		fprintf(stderr, "plant-timerstorm: BURST_US must be under PERIOD_US\n");
		return 2;
	}
	prctl(PR_SET_NAME, "lw-storm", 0, 0, 0);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("plant-timerstorm: sched_setaffinity");
		return 1;
	}
	sp.sched_priority = prio;
	if (prio > 0 && sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
		perror("plant-timerstorm: sched_setscheduler");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	next = (now_ns() / period + 1) * period;
	end = secs > 0 ? now_ns() + (uint64_t)secs * 1000000000ull : UINT64_MAX;
	while (next < end) {
		struct timespec ts = { .tv_sec = (time_t)(next / 1000000000ull),
				       .tv_nsec = (long)(next % 1000000000ull) };
		uint64_t t;

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		n++;
		t = now_ns();
		while (now_ns() - t < burst)
			;
		next += period;
		if (next < t)	/* fell behind: the next period boundary */
			next = (t / period + 1) * period;
	}
	printf("done %llu\n", (unsigned long long)n);
	return 0;
}
