/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which probes a run starts, and where.
 *
 *   --probes cyclic,timerlat,noise   default: cyclic, plus timerlat where the
 *                                     kernel has the timerlat tracer
 *   --timerlat-period US              default: the run's --interval
 *   --noise-cpus LIST                 default: the isolated / nohz_full CPUs,
 *                                     else the last measured CPU
 *   --noise-threshold US              default 5us (the osnoise tracer's)
 *
 * A noise CPU is given to the busy loop alone: the cyclic probe and the
 * timerlat tracer measure the other CPUs (a SCHED_FIFO busy loop would
 * starve a timer thread of the same or lower priority on its CPU).  At least
 * one online CPU is always left for housekeeping.
 *
 * lw_probe_plan() is pure: it takes what the system offers in a struct
 * lw_probe_env (read by lw_probe_env_read(), or made up by the tests).
 */
#ifndef LW_PROBE_PLAN_H
#define LW_PROBE_PLAN_H

#include <jansson.h>
#include <sched.h>
#include <stdint.h>

enum lw_probe_bits {
	LW_PROBES_CYCLIC   = 1 << 0,
	LW_PROBES_TIMERLAT = 1 << 1,
	LW_PROBES_NOISE    = 1 << 2,
};

#define LW_NOISE_THRESHOLD_DEFAULT_NS 5000ULL
#define LW_TIMERLAT_PERIOD_MIN_NS     100000ULL		/* the kernel's limits */
#define LW_TIMERLAT_PERIOD_MAX_NS     1000000000ULL

/* Options of `latwatt run` that choose the probes (in struct lw_run_opts). */
struct lw_probe_opts {
	unsigned probes;		/* --probes; 0: the default */
	uint64_t timerlat_period_ns;	/* --timerlat-period; 0: --interval */
	cpu_set_t noise_cpus;		/* --noise-cpus */
	int noise_cpus_set;
	uint64_t noise_threshold_ns;	/* --noise-threshold */
};

/* What the system offers. */
struct lw_probe_env {
	cpu_set_t online;
	cpu_set_t isolated;		/* isolcpus= and nohz_full= CPUs */
	int have_timerlat;
	char no_timerlat[160];		/* why not, when !have_timerlat */
};

#define LW_PLAN_NOTES 4

struct lw_probe_plan {
	int cyclic, timerlat, noise;
	int timerlat_optional;		/* not asked for: a failure to start is a note */
	cpu_set_t cyclic_cpus, timerlat_cpus, noise_cpus;
	uint64_t timerlat_period_ns;
	uint64_t noise_threshold_ns;
	char timerlat_skipped[200];	/* set when timerlat was wanted but cannot run */
	char note[LW_PLAN_NOTES][200];
	int nnotes;
};

void lw_probe_opts_default(struct lw_probe_opts *o);
/* "cyclic,timerlat,noise" (any order, at least one) into LW_PROBES_* bits. */
int lw_parse_probes(const char *what, const char *s, unsigned *bits);
/* "cyclic,noise" from bits; returns buf. */
char *lw_format_probes(unsigned bits, char *buf, size_t len);
/* Option values (errors name the option). */
int lw_parse_timerlat_period(const char *what, const char *s, uint64_t *ns);
int lw_parse_noise_threshold(const char *what, const char *s, uint64_t *ns);

/* Read the online, isolated and nohz_full CPUs and whether tracefs offers
 * the timerlat tracer.  @sysroot: "" for the running system. */
int lw_probe_env_read(struct lw_probe_env *env, const char *sysroot);

/*
 * Decide.  @cpus: the run's measured CPUs (--cpus); @interval_ns: the
 * run's --interval.  Returns 0, or -1 after error() naming the option.
 */
int lw_probe_plan(struct lw_probe_plan *p, const struct lw_probe_opts *o, const cpu_set_t *cpus,
		  uint64_t interval_ns, const struct lw_probe_env *env);

/* Print the plan's notes (note()) and record the choice in the manifest
 * under "probes" ("selected", and a "timerlat" entry when it was skipped). */
void lw_probe_plan_report(const struct lw_probe_plan *p, json_t *manifest);

#endif
