/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * External loads: real programs (stress-ng, hackbench, rt-app, or any other)
 * started beside the probes and workloads, and stopped and reaped by latwatt.
 *
 * A load is given as one string, the way env(1) takes a command:
 *
 *	[SETTING=VALUE ...] PROGRAM [ARG ...]
 *
 *	-l 'stress-ng --cpu 1 --cpu-load 50'
 *	-l 'cpus=0 name=bg hackbench --pipe --groups 2 --loops 1000000'
 *	-l 'cpus=1 restart=yes hackbench -g 1 -l 2000'
 *	-l 'rt-app workloads/rt-app/mp3.json'
 *
 * Words are split on blanks; '…' and "…" quote, a backslash escapes the next
 * character (inside "…" only before " \ $ `, as in sh); nothing is expanded
 * (there is no shell).  Leading words of the
 * form key=value are latwatt's settings for the load:
 *
 *	name=NAME	name in the manifest and of RUN/loads/NAME.log
 *			(default: the program's base name, then NAME-2, NAME-3…)
 *	cpus=LIST	CPU affinity of the load and its children ("0-1", "all")
 *	policy=P	other (default), batch, idle, fifo or rr
 *	prio=N		priority for fifo/rr, 1-99
 *	nice=N		nice value for other/batch, -20..19
 *	restart=yes	start the program again when it ends by itself with
 *			status 0 (hackbench runs a fixed number of loops)
 *
 * Each load runs in its own process group with RUN/loads as its working
 * directory, stdin from /dev/null, stdout and stderr into RUN/loads/NAME.log.
 * rt-app is run on a copy of its JSON file, RUN/loads/NAME.json, so that the
 * configuration and rt-app's own logs stay with the run.  On stop the load
 * gets SIGTERM (and stops what it started, as the tool means to), what is
 * left of its process group gets SIGTERM once it has ended, everything gets
 * SIGKILL after a grace period, and every process is reaped (latwatt is a
 * child subreaper, so orphans come back to it).  A load
 * that ends by itself with a failure stops the run with an error.
 *
 * Manifest: "loads": [ { "name", "spec", "argv", "command", "path",
 * "package", "cpus", "policy", "priority", "nice", "restart", "log",
 * "starts", "runs": [ { "pid", "start_ns", "end_ns", "exit_status" |
 * "signal", "stopped_by_latwatt" } ], "runs_not_kept" } ]: runs are the first
 * 255 and the latest; times are from the run's start.
 */
#ifndef LW_LOADS_H
#define LW_LOADS_H

#include <jansson.h>
#include <sched.h>
#include <stdint.h>

struct lw_part;

#define LW_LOAD_MAX_ARGS 128

struct lw_load_spec {
	char name[64];			/* "" until lw_loads_name() */
	int cpus_given;
	cpu_set_t cpus;
	int policy;			/* SCHED_OTHER, SCHED_FIFO, ... */
	int prio;			/* fifo/rr */
	int nice;
	int restart;
	int argc;
	char *argv[LW_LOAD_MAX_ARGS + 1];	/* NULL-terminated; owned */
	char *words;			/* storage of argv */
};

/*
 * Parse @spec.  CPUs must be in @online (NULL: no check).  @what prefixes
 * error messages ("--load").  Pure: looks at no file.  0, or -1 after error().
 * Free with lw_load_spec_free() in both cases.
 */
int lw_load_spec_parse(struct lw_load_spec *ls, const char *spec, const char *what,
		       const cpu_set_t *online);
void lw_load_spec_free(struct lw_load_spec *ls);

/* Debian package that ships @program (a base name), or NULL if unknown. */
const char *lw_load_package(const char *program);

/*
 * Find @program like execvp() would (a name with a '/' is taken as is):
 * absolute path into @buf.  -1 after error() naming the Debian package to
 * install when it is a known tool.
 */
int lw_load_which(const char *program, char *buf, size_t len, const char *what);

/*
 * Checks before a run that look at the system: the program exists and is
 * executable; an rt-app configuration is readable JSON.  0 or -1 after error().
 */
int lw_load_spec_check(const struct lw_load_spec *ls, const char *what);

/*
 * What a load asks of the scheduler, for the starvation checks of a run:
 * calls @fn once per thread group of the load that runs SCHED_FIFO or
 * SCHED_RR, with its CPUs, priority and whether it can be assumed to run
 * without sleeping (a stress-ng or hackbench under fifo; rt-app tasks are
 * periodic and report busy=0).  rt-app tasks are read from its JSON file.
 * 0, or -1 after error().
 */
struct lw_load_rt {
	const char *who;		/* "load stress-ng" or "load mp3: rt-app task AudioTick" */
	cpu_set_t cpus;
	int policy, prio, busy;
};
int lw_load_rt_threads(const struct lw_load_spec *ls, const cpu_set_t *online,
		       int (*fn)(const struct lw_load_rt *rt, void *arg), void *arg);

/* Between the spec (workloads/load_spec.c) and the participant: @path's
 * base name; whether the load is rt-app; rt-app's JSON file argument (NULL
 * after error() prefixed @what). */
const char *lw_load_base_name(const char *path);
int lw_load_is_rt_app(const struct lw_load_spec *ls);
const char *lw_load_rt_app_config(const struct lw_load_spec *ls, const char *what);

/* Quote @argv back into one shell-readable string (for the manifest). */
char *lw_load_format_argv(char *const *argv, char *buf, size_t len);

/*
 * The run participant for @n load specs (strings as given to --load).  Names
 * are made unique.  @no_rt: run fifo/rr loads SCHED_OTHER (--no-rt).
 * NULL after error().
 */
struct lw_part *lw_loads_new(const char *const *specs, int n, const cpu_set_t *online,
			     int no_rt);

#endif
