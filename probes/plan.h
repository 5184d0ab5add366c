/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which probes a run starts, and where.
 *
 *   --probes cyclic,timerlat,noise,hwnoise
 *                                     default: cyclic, plus timerlat where the
 *                                     kernel has the timerlat tracer
 *   --timerlat-period US              default: the run's --interval
 *   --noise-cpus LIST                 default: the isolated / nohz_full CPUs,
 *                                     else the last measured CPU
 *   --noise-threshold US              default 5us (the osnoise tracer's)
 *   --hwnoise-threshold US            default 5us (rtla hwnoise's)
 *
 * A noise CPU is given to the busy loop alone: the cyclic probe and the
 * timerlat tracer measure the other CPUs (a SCHED_FIFO busy loop would
 * starve a timer thread of the same or lower priority on its CPU).  At least
 * one online CPU is always left for housekeeping.
 *
 * lw_probe_plan() is pure: it takes what the system offers in a struct
 * lw_probe_env (read by lw_probe_env_read(), or made up by the tests).
 *
 * Each probe is a struct lw_probe in LW_PROBE_LIST: the plan (an entry
 * want[LW_PROBE_INDEX_NAME] per probe), the manifest's "selected", `latwatt
 * run`'s construction of the probes and its monitor's series count, --probes'
 * names and help, and the options of the probes' parameters (each probe's
 * params[] table) go through the list.
 * The probes that take CPUs alone plan first, then the shared ones on what
 * they leave; each from the last in the list to the first, so an earlier
 * probe can stand in for a later one that cannot run (cyclic for timerlat).
 */
#ifndef LW_PROBE_PLAN_H
#define LW_PROBE_PLAN_H

#include <jansson.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/samples.h"

/*
 * The probes, in the order of --probes and of the manifest's "selected": a
 * descriptor each (probes/NAME.c: const struct lw_probe lw_probe_NAME), and
 * a bit LW_PROBES_NAME in --probes' set.
 */
#define LW_PROBE_LIST X(cyclic, CYCLIC) X(timerlat, TIMERLAT) X(noise, NOISE) \
	X(hwnoise, HWNOISE)

#define X(name, NAME) LW_PROBE_INDEX_##NAME,
enum { LW_PROBE_LIST LW_NPROBES };
#undef X
#define X(name, NAME) LW_PROBES_##NAME = 1 << LW_PROBE_INDEX_##NAME,
enum lw_probe_bits { LW_PROBE_LIST };
#undef X

#define LW_NOISE_THRESHOLD_DEFAULT_NS 5000ULL
#define LW_TIMERLAT_PERIOD_MIN_NS     100000ULL		/* the kernel's limits */
#define LW_TIMERLAT_PERIOD_MAX_NS     1000000000ULL

/* Options of `latwatt run` that choose the probes (in struct lw_run_opts). */
struct lw_probe_opts {
	unsigned probes;		/* --probes; 0: the default */
	uint64_t timerlat_period_ns;	/* --timerlat-period; 0: --interval */
	uint64_t timerlat_threads;	/* --timerlat-threads user|kernel; 0: user where the
					 * kernel has timerlat_fd */
	cpu_set_t noise_cpus;		/* --noise-cpus */
	int noise_cpus_set;
	uint64_t noise_threshold_ns;	/* --noise-threshold */
	uint64_t hwnoise_threshold_ns;	/* --hwnoise-threshold */
	int aligned;			/* --aligned US given (the cyclic probe's) */
	uint64_t align_ns;		/* --aligned US: offset of each next thread */
};

/* What the system offers. */
struct lw_probe_env {
	cpu_set_t online;
	cpu_set_t isolated;		/* isolcpus= and nohz_full= CPUs */
	int have_timerlat;
	char no_timerlat[160];		/* why not, when !have_timerlat */
	int have_timerlat_fd;		/* user-space timerlat threads (Linux 6.5 on) */
	char no_timerlat_fd[160];	/* why not, when !have_timerlat_fd */
	int have_hwnoise;		/* the osnoise tracer with OSNOISE_IRQ_DISABLE (6.4 on) */
	char no_hwnoise[160];		/* why not, when !have_hwnoise */
};

#define LW_PLAN_NOTES 4

/* A probe's values of its parameters (its lw_probe.params, in that order). */
#define LW_PROBE_PARAMS 2

/* The plan of one probe: want[LW_PROBE_INDEX_NAME] of struct lw_probe_plan. */
struct lw_probe_want {
	int on;				/* it runs */
	int optional;			/* not asked for: a failure to start is a note */
	cpu_set_t cpus;
	char skipped[200];		/* set when it was wanted but cannot run */
	uint64_t param[LW_PROBE_PARAMS];
};

struct lw_probe_plan {
	struct lw_probe_want want[LW_NPROBES];
	char note[LW_PLAN_NOTES][200];
	int nnotes;
};

/* What every probe takes from the options of `latwatt run`. */
struct lw_probe_common {
	uint64_t interval_ns;		/* --interval */
	uint64_t distance_ns;		/* --distance */
	int priority;			/* --priority */
	int no_rt;			/* --no-rt */
	uint64_t threshold_ns;		/* --threshold: trace marker above it; 0 never */
	uint64_t break_ns;		/* --break-on; 0 never */
	int aligned;			/* --aligned: one start for the timer threads */
	uint64_t align_ns;		/* --aligned US: each next thread US later */
};

/* Where a probe runs. */
enum lw_probe_cpus {
	LW_PROBE_CPUS_SHARED,	/* the measured CPUs the LW_PROBE_CPUS_ALONE probes leave */
	LW_PROBE_CPUS_ALONE,	/* CPUs of its own choosing, given to it alone (a busy loop) */
};

/* What a probe's plan() is given. */
struct lw_plan_ctx {
	const struct lw_probe_opts *o;
	const cpu_set_t *cpus;		/* the run's measured CPUs (--cpus) */
	uint64_t interval_ns;		/* --interval */
	const struct lw_probe_env *env;
	unsigned *want;			/* LW_PROBES_* still wanted; plan() may change it */
};

struct lw_part;

/*
 * A probe's parameter: a value planned into want[].param[] (in the order of
 * the table), from its option in struct lw_probe_opts, or its default.
 */
struct lw_probe_param {
	const char *option;		/* "--noise-threshold" */
	size_t offset;			/* of its uint64_t in struct lw_probe_opts (0: not given) */
	uint64_t def;			/* 0: the probe's plan() chooses */
	int (*parse)(const char *what, const char *s, uint64_t *v);
	const char *help;		/* `latwatt run --help` lines */
};

struct lw_probe {
	const char *name;		/* in --probes and the manifest's "selected" */
	unsigned index;			/* LW_PROBE_INDEX_*: its want[] in the plan */
	unsigned bit;			/* LW_PROBES_* */
	int by_default;			/* in the default --probes */
	unsigned char samples[4];	/* its sample ids (enum lw_sample_id), 0 ends */
	enum lw_probe_cpus cpus_rule;
	/* An option of its own given (its spelling), refused when it is not
	 * selected; NULL when none.  May be NULL. */
	const char *(*given)(const struct lw_probe_opts *o);
	/*
	 * Its part of the plan, when wanted: an LW_PROBE_CPUS_ALONE probe
	 * chooses its CPUs (*cpus), a shared one finds them chosen.  Returns 1
	 * to run, 0 when it will not run, or -1 after error().
	 */
	int (*plan)(const struct lw_probe *d, struct lw_probe_plan *p, const struct lw_plan_ctx *c);
	/* The probe as the plan chose it; NULL after error(). */
	struct lw_part *(*create)(const struct lw_probe_plan *p, const struct lw_probe_common *c,
				  const struct lw_probe_env *env);
	/* `latwatt run --help` lines of its own options, after --probes (its
	 * parameters' follow) */
	const char *help;
	/* its parameters: want[].param[i] is params[i]'s (option NULL: none) */
	struct lw_probe_param params[LW_PROBE_PARAMS];
};

#define X(name, NAME) extern const struct lw_probe lw_probe_##name;
LW_PROBE_LIST
#undef X

/* In LW_PROBE_LIST order, then NULL: lw_probes[LW_PROBE_INDEX_NAME] is NAME's. */
extern const struct lw_probe *const lw_probes[LW_NPROBES + 1];

/* Does the plan run @d, and on which CPUs. */
static inline int lw_plan_on(const struct lw_probe *d, const struct lw_probe_plan *p)
{
	return p->want[d->index].on;
}

static inline const cpu_set_t *lw_plan_cpus(const struct lw_probe *d,
					    const struct lw_probe_plan *p)
{
	return &p->want[d->index].cpus;
}

/* "cyclic, timerlat, noise"; returns buf. */
char *lw_probe_names(char *buf, size_t len);
/* Series of samples the plan's probes write: a sample id per CPU each. */
int lw_probe_plan_series(const struct lw_probe_plan *p);
/* Add a note to the plan (printed by lw_probe_plan_report()). */
void lw_probe_plan_note(struct lw_probe_plan *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The last CPU of @set, -1 when empty. */
int lw_cpuset_last(const cpu_set_t *set);

void lw_probe_opts_default(struct lw_probe_opts *o);
/* "cyclic,timerlat,noise" (any order, at least one) into LW_PROBES_* bits. */
int lw_parse_probes(const char *what, const char *s, unsigned *bits);
/* "cyclic,noise" from bits; returns buf. */
char *lw_format_probes(unsigned bits, char *buf, size_t len);
/* Set parameter @pp's value in @o from @s.  0, or -1 after error() naming
 * its option. */
int lw_probe_param_set(struct lw_probe_opts *o, const struct lw_probe_param *pp, const char *s);
/* Option values (errors name the option). */
int lw_parse_timerlat_period(const char *what, const char *s, uint64_t *ns);
int lw_parse_noise_threshold(const char *what, const char *s, uint64_t *ns);
int lw_parse_hwnoise_threshold(const char *what, const char *s, uint64_t *ns);

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
