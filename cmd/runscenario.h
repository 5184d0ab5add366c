/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `latwatt run --scenario`: a scenario file (workloads/scenario.h) becomes
 * options of `latwatt run`.
 *
 * Each key of the file is turned into its long option and value,
 * "--KEY=VALUE", and all of them are parsed by lw_run_opts_parse() ahead of
 * the command line, so that the command line overrides the file (the last
 * value of an option wins; options that may be repeated, like --load, add to
 * the file's).  Each file option is first parsed alone so that a bad value is
 * reported at its FILE:LINE:COLUMN.  Nothing here knows what an option
 * means: a new option of `latwatt run` is a scenario key with no code.
 */
#ifndef LW_RUNSCENARIO_H
#define LW_RUNSCENARIO_H

#include <sched.h>

#include "cmd/runopts.h"
#include "workloads/scenario.h"

struct lw_run;

struct lw_run_scenario {
	struct lw_scenario sc;
	int loaded;
	char **argv;		/* "run", the file's options, then the command line's */
	int argc;
	int nfile;		/* how many of argv[1..] came from the file */
	int rt_throttled;	/* -1: read /proc/sys/kernel/sched_rt_runtime_us */
};

/* The scenario keys of `latwatt run`: its option table. */
void lw_run_scenario_keys(struct lw_scenario_keys *k, const char *sysfs);

/*
 * Load the scenario named in @o->scenario and parse it and the command line
 * (@argc, @argv as given to cmd_run) into @o, from defaults.  @o's strings
 * point into @rs afterwards: keep it until the run ends.  0, or -1 after
 * error().  Free @rs in both cases.
 */
int lw_run_scenario_apply(struct lw_run_scenario *rs, struct lw_run_opts *o, int argc,
			  char **argv, const cpu_set_t *online);
void lw_run_scenario_free(struct lw_run_scenario *rs);
/* The same for a scenario already in @rs->sc (rs->loaded set), e.g. loaded
 * with another sysfs root by tests. */
int lw_run_scenario_apply_loaded(struct lw_run_scenario *rs, struct lw_run_opts *o, int argc,
				 char **argv, const cpu_set_t *online);

/* RUN/scenario.yaml (a copy of the file) and the manifest's "scenario". */
int lw_run_scenario_record(const struct lw_run_scenario *rs, struct lw_run *run);

/*
 * Checks that look at the system, made before the run directory is created:
 * every --load program is installed (the Debian package is named if not) and
 * no load would starve the probes (see lw_run_check_starvation()).
 */
int lw_run_preflight(const struct lw_run_opts *o, const cpu_set_t *online);

/*
 * Priorities that would starve the probes, on the probe CPUs:
 *  - a SCHED_FIFO/RR thread at a priority >= the probe priority;
 *  - a busy SCHED_FIFO/RR load at any priority when RT throttling is off
 *    (@rt_throttled 0: /proc/sys/kernel/sched_rt_runtime_us is -1), which
 *    leaves nothing to the kernel threads the probes depend on.
 * Pure but for the rt-app JSON files it reads.  0, or -1 after error().
 */
int lw_run_check_starvation(const struct lw_run_opts *o, const cpu_set_t *online,
			    int rt_throttled);

#endif
