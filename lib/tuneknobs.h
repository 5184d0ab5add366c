/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The knobs `latwatt tune` searches: settings that change at run time, and
 * the boot-time ones (isolcpus, nohz_full, rcu_nocbs, irqaffinity) where
 * each run boots a kernel; each a descriptor in one table (what it is, whether this system has it
 * and why not, its levels from 0 = as found upwards, how a level is set
 * through lib/knobs.h so that it is journaled and restored, and how it is
 * written in a shell script and on a kernel command line).  A knob that
 * costs power (it keeps CPUs out of low-power states) has its levels in
 * order of that cost.
 *
 * Everything is read and written under @root (a copy of / for the tests).
 */
#ifndef LW_TUNEKNOBS_H
#define LW_TUNEKNOBS_H

#include <sched.h>
#include <stdint.h>

#include "lib/knobs.h"
#include "lib/shquote.h"

#define LW_TK_MAX_IDLE 10
#define LW_TK_MAX_IRQ 256

/* The knobs, in the order the search tries them: the free ones first. */
#define LW_TUNE_KNOBS(X)		\
	X(irq, IRQ)			\
	X(tasks, TASKS)			\
	X(timer_migration, TIMER_MIGRATION) \
	X(rt_throttle, RT_THROTTLE)	\
	X(isolcpus, ISOLCPUS)		\
	X(nohz_full, NOHZ_FULL)		\
	X(rcu_nocbs, RCU_NOCBS)		\
	X(irqaffinity, IRQAFFINITY)	\
	X(idle, IDLE)			\
	X(pmqos, PMQOS)			\
	X(governor, GOVERNOR)

enum lw_tk_id {
#define X(n, u) LW_TK_##u,
	LW_TUNE_KNOBS(X)
#undef X
	LW_TK_N
};

/* What the system offers, read once (lw_tune_sys_read()). */
struct lw_tune_sys {
	char root[256];			/* "" for the live system */
	cpu_set_t online, measured;
	int nidle;			/* idle states of the first measured CPU; 0: no driver */
	char idle_name[LW_TK_MAX_IDLE][24];
	unsigned idle_lat[LW_TK_MAX_IDLE];	/* exit latency, us */
	char driver[32];		/* cpuidle driver, "none" */
	int cpufreq;			/* the measured CPUs have cpufreq governors */
	int have_perf_gov;		/* "performance" among them */
	int nirq;			/* IRQs whose affinity can be set */
	int irq[LW_TK_MAX_IRQ];
	int timer_migration;		/* /proc/sys/kernel/timer_migration exists */
	int rt_runtime;			/* /proc/sys/kernel/sched_rt_runtime_us exists */
	/* Each run boots a kernel with the candidate's command line (tune
	 * --kernel, --boot-cmd): the boot-time knobs are searched, on
	 * boot_base (the board's kernel.cmdline without their words); online
	 * and measured are the booted board's CPUs. */
	int boots;
	char boot_base[512];
};

struct lw_tunable {
	const char *name;
	const char *help;
	int costs_power;		/* its levels keep CPUs out of low-power states */
	/* Its levels above 0 on @s (0: not here, the reason in @why). */
	int (*levels)(const struct lw_tune_sys *s, char *why, size_t len);
	/* Level @l in words: "state C3 and deeper disabled on CPU 1". */
	void (*describe)(const struct lw_tune_sys *s, int l, char *buf, size_t len);
	/* Set level @l (> 0) through @k (saved and journaled first); what it
	 * did in words into @done ("" when describe() says it all). */
	int (*apply)(const struct lw_tune_sys *s, int l, struct lw_knobs *k, char *done,
		     size_t len);
	/* The shell lines that set level @l (> 0), and the kernel command line
	 * words that set it at boot (none when it has no such form). */
	void (*script)(const struct lw_tune_sys *s, int l, struct lw_sb *b);
	void (*cmdline)(const struct lw_tune_sys *s, int l, struct lw_sb *b);
	int boot;			/* set on the kernel command line alone */
};

extern const struct lw_tunable lw_tunables[LW_TK_N];

/* Read what @root offers for measuring @measured; 0 or -1 after error(). */
int lw_tune_sys_read(struct lw_tune_sys *s, const char *root, const cpu_set_t *measured);
/* The knob named @name, or -1. */
int lw_tunable_by_name(const char *name);
/* PM QoS (the pmqos knob) at level @l: the request in us, held by the
 * run (run --pm-qos): just under the exit latency of the l-th deepest
 * idle state. */
int64_t lw_tk_pmqos_us(const struct lw_tune_sys *s, int l);

#endif
