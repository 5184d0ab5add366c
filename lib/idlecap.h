/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --deepest-idle-state N[@CPULIST]: for the CPUs of each set, every cpuidle
 * state deeper than N is disabled for the run
 * (/sys/devices/system/cpu/cpuC/cpuidle/stateK/disable = 1 for K > N; N -1:
 * every state), through lib/knobs.h: journaled before the first write and
 * put back as it was on every exit path ('latwatt cleanup' after a
 * SIGKILL).  As rtla's and cyclictest's --deepest-idle-state, per CPU set.
 * Always the live system's sysfs, never --sysfs-root's copy.
 */
#ifndef LW_IDLECAP_H
#define LW_IDLECAP_H

#include <sched.h>

#define LW_MAX_IDLE_CAPS 8

struct lw_idle_cap {
	int deepest;		/* the deepest state left enabled; -1: none */
	cpu_set_t cpus;
	int cpus_given;		/* @CPULIST; else the run's measured CPUs */
};

struct lw_part;
/* The run part that applies @n caps (copied); where the machine has no
 * cpuidle driver, or a CPU of a set has no idle states, its start fails
 * with the reason (as --pm-qos without /dev/cpu_dma_latency). */
struct lw_part *lw_idlecap_new(const struct lw_idle_cap *caps, int n);

/* Before the run: the machine has a cpuidle driver and every CPU of the
 * sets its idle states; 0, or -1 after error() with the reason. */
int lw_idlecap_check(const struct lw_idle_cap *caps, int n);

/* "N" or "N@CPULIST" (CPUs in @online); 0, or -1 after error() naming @what. */
int lw_idle_cap_parse(const char *what, const char *s, const cpu_set_t *online,
		      struct lw_idle_cap *out);

#endif
