/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Idle-state accounting: per CPU, per idle state, how often it was entered
 * and how long it was resident during a run.  From the cpuidle sysfs
 * counters (usage, time) read at the start and the end of the run, and,
 * when the run was traced, from the power:cpu_idle events
 * (lw_idle_from_model(), power/model.h).  Written to RUN/idle.json:
 *
 *   {"format": "latwatt-idle", "version": 1, "duration_ns": N,
 *    "sysfs": {"cpus": [{"cpu": 0, "states": [{"index", "name",
 *              "exit_latency_us", "entries", "residency_us", "residency"}],
 *              "active": fraction}]},
 *    "trace": {same shape, from cpu_idle events} or absent}
 *
 * A run's analysis reads it through lw_power_analysis() (power/estimate.h).
 */
#ifndef LW_POWER_IDLE_H
#define LW_POWER_IDLE_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#define LW_IDLE_FORMAT  "latwatt-idle"
#define LW_IDLE_VERSION 1

/* The counters now: {"cpus": [{"cpu", "states": [{"index", "name",
 * "exit_latency_us", "usage", "time_us"}]}]}; @root "" is this machine. */
json_t *lw_idle_snapshot(const char *root);
/* Differences between two snapshots over @duration_ns (the "sysfs" part). */
json_t *lw_idle_delta(const json_t *start, const json_t *end, uint64_t duration_ns);
/* Print the residency table (both parts when both are there). */
void lw_idle_print(FILE *out, const json_t *idle);

#endif
