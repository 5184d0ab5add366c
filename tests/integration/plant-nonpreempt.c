// SPDX-License-Identifier: GPL-2.0-only
/*
 * A planted kernel section the probe cannot preempt, for the attribution
 * tests and bench/attribution-recall, run inside a QEMU guest (busybox only:
 * built static by the caller, "cc -static -O2").
 *
 *   plant-nonpreempt CPU LOG SECS [MB]
 *
 * A SCHED_OTHER task "lw-unmap" on CPU maps MB (default 64) of anonymous
 * memory populated at once (MAP_POPULATE), unmaps it and starts again 50 ms later, for
 * SECS seconds.  Both calls spend their time in the kernel: faulting in and
 * zeroing every page, then tearing down the page tables and freeing every
 * page.  On a kernel without involuntary preemption (preempt=none) the
 * probe, woken meanwhile, waits for the next cond_resched() or the return
 * to user space; with preempt=full it runs at once.  Every call is one
 * line "nopreempt START_NS END_NS" of LOG (CLOCK_MONOTONIC, the trace
 * clock): the span in which a spike may have been caused by it.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>

#define MAX_SPANS 4096

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000ull),
			       .tv_nsec = (long)(t % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

int main(int argc, char **argv)
{
	static uint64_t span[MAX_SPANS][2];
	size_t n = 0, len;
	uint64_t end, next;
	cpu_set_t set;
	FILE *f;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: plant-nonpreempt CPU LOG SECS [MB]\n");
		return 2;
	}
	len = (size_t)(argc == 5 ? atoi(argv[4]) : 64) << 20;
	prctl(PR_SET_NAME, "lw-unmap", 0, 0, 0);
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 1;
	}
	end = now_ns() + (uint64_t)(atof(argv[3]) * 1e9);
	next = now_ns() + 50000000ull;
	while (next < end && n + 2 <= MAX_SPANS) {
		uint64_t t0, t1, t2;
		void *p;

		sleep_until(next);
		t0 = now_ns();
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		t1 = now_ns();
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		munmap(p, len);
		t2 = now_ns();
		span[n][0] = t0;
		span[n++][1] = t1;
		span[n][0] = t1;
		span[n++][1] = t2;
		next = t2 + 50000000ull;
	}
	f = fopen(argv[2], "w");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		fprintf(f, "nopreempt %llu %llu\n", (unsigned long long)span[i][0],
			(unsigned long long)span[i][1]);
	return fclose(f) ? 1 : 0;
}
