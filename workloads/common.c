// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/run.h"
#include "lib/timeutil.h"
#include "workloads/common.h"

const char *lw_wl_policy_name(int policy)
{
	switch (policy) {
	case SCHED_FIFO:  return "SCHED_FIFO";
	case SCHED_RR:    return "SCHED_RR";
	case SCHED_BATCH: return "SCHED_BATCH";
	case SCHED_IDLE:  return "SCHED_IDLE";
	default:          return "SCHED_OTHER";
	}
}

int lw_wl_cpu_nth(const cpu_set_t *set, int n)
{
	int count = CPU_COUNT(set), k;

	if (!count)
		return -1;
	k = n % count;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, set) && k-- == 0)
			return cpu;
	return -1;
}

void lw_wl_futex_wait(_Atomic uint32_t *addr, uint32_t val, uint64_t timeout_ns)
{
	struct timespec ts = lw_ns_to_ts(timeout_ns);

	syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

void lw_wl_futex_wake(_Atomic uint32_t *addr)
{
	syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

void lw_wl_instance_name(char *buf, size_t len, const char *kind, int instance)
{
	if (instance)
		snprintf(buf, len, "%s-%d", kind, instance);
	else
		snprintf(buf, len, "%s", kind);
}

void lw_wl_deadline_miss(struct lw_run *run, const char *msg, size_t len)
{
	lw_run_mark(run, msg, len);
}

json_t *lw_wl_manifest_entry(struct lw_run *run, const char *instance)
{
	return lw_json_object_at(lw_json_object_at(run->dir.manifest, "workloads"), instance);
}
