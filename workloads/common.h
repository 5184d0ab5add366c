/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the workloads (internal to workloads/). */
#ifndef LW_WORKLOADS_COMMON_H
#define LW_WORKLOADS_COMMON_H

#include <jansson.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/thread.h"

struct lw_run;

/* Stack of workload threads: room for 64k receive buffers and prefaulting. */
#define LW_WL_STACK_SIZE (512 * 1024)

const char *lw_wl_policy_name(int policy);

/* The @n-th CPU of @set, cyclically; -1 for an empty set. */
int lw_wl_cpu_nth(const cpu_set_t *set, int n);

/* Futex wait while *@addr == @val, at most @timeout_ns; wake every waiter. */
void lw_wl_futex_wait(_Atomic uint32_t *addr, uint32_t val, uint64_t timeout_ns);
void lw_wl_futex_wake(_Atomic uint32_t *addr);

/* "audio" for instance 0, "audio-2" for instance 2. */
void lw_wl_instance_name(char *buf, size_t len, const char *kind, int instance);

/*
 * A deadline miss: the one call site for every event a miss produces (the
 * trace marker through lw_run_mark(); an LTTng-UST event where it is built
 * in).  @msg is a complete marker line ("latwatt xrun workload=... \n").
 * Safe from realtime threads: no allocation, one write(2).
 */
void lw_wl_deadline_miss(struct lw_run *run, const char *msg, size_t len);

/* @to - @from for two CLOCK_MONOTONIC times, 0 when @to is not after @from. */
static inline uint64_t lw_wl_since(uint64_t to, uint64_t from) { return to > from ? to - from : 0; }

/* The manifest object of a workload instance: manifest.workloads.<instance>. */
json_t *lw_wl_manifest_entry(struct lw_run *run, const char *instance);

#endif
