/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a realtime engineer needs to know about the machine a run measured:
 * kernel and preemption model, NO_HZ and isolation, clocksource, idle states,
 * PM QoS, CPUs and frequency governors.  Read from /proc and /sys under a
 * root directory, so tests and offline checks can point it at a copy.
 */
#ifndef LW_SYSINFO_H
#define LW_SYSINFO_H

#include <jansson.h>
#include <stdint.h>

/* @root: "" or NULL for the running system, else a directory holding proc/
 * and sys/ trees.  Never fails: what cannot be read is left out or null. */
json_t *lw_sysinfo_collect(const char *root);

/* Warnings a realtime engineer cares about, as an array of strings.
 * @idle_budget_us: warn about enabled idle states whose exit latency exceeds
 * it (0: do not check). */
json_t *lw_sysinfo_warnings(const json_t *sys, uint64_t idle_budget_us);

/* The preemption model a kernel's version string (uname -v) and
 * /sys/kernel/realtime say: PREEMPT_RT, PREEMPT_DYNAMIC, PREEMPT_LAZY,
 * PREEMPT, none, or unknown (no version). */
const char *lw_preempt_model(const char *version, int rt_sysfs);

/* Steal time per CPU from @root/proc/stat, in ns: [{"cpu", "steal_ns"}]
 * (NULL when unreadable).  lw_steal_delta() turns a start and an end
 * snapshot into the run's {"source", "cpus": [{"cpu", "steal_ns"}],
 * "total_ns"}. */
json_t *lw_steal_snapshot(const char *root);
json_t *lw_steal_delta(const json_t *start, const json_t *end);

/* Convenience readers of a collected sysinfo. */
int lw_sysinfo_is_rt(const json_t *sys);
/* A virtual machine: sysinfo's "hypervisor" found one (the cpuinfo flag,
 * /sys/hypervisor/type, DMI or the device tree naming one). */
int lw_sysinfo_is_vm(const json_t *sys);
/* @cs is a clocksource that reads a CPU's or the hypervisor's counter. */
int lw_clocksource_stable(const char *cs);
const char *lw_sysinfo_preempt_model(const json_t *sys);

#endif
