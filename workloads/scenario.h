/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Scenario files: workloads/scenarios/NAME.yaml, read with libyaml.
 *
 * A scenario is `latwatt run` options written down.  Every key is the long
 * name of a `latwatt run` option and its value is what would follow the
 * option on the command line, so any new option of `latwatt run` is a
 * scenario key with no code here:
 *
 *	description: audio and video together     (the one key that is not an option)
 *	duration: 30s                  -> --duration=30s
 *	no-rt: true                    -> --no-rt          (a flag: true or false)
 *	cpus: [0, 1]                   -> --cpus=0,1       (a list joins with commas)
 *	load:                          -> --load=... once per item, for the
 *	  - stress-ng --cpu 1             options that may be repeated
 *	workload:                      -> --workload=audio:streams=2,cpu=1
 *	  - audio:                        (a mapping item of a repeated option:
 *	      streams: 2                   NAME:KEY=VALUE,...; a list value is
 *	      cpu: 1                       joined with commas)
 *	  - video                        -> --workload=video
 *	noise:                         -> --noise-cpus=1 --noise-threshold=5us
 *	  cpus: 1                         (a mapping groups options by prefix)
 *	  threshold: 5us
 *
 * Values may use ${online}, ${nohz_full}, ${isolated} and ${housekeeping}
 * (online CPUs that are neither nohz_full nor isolated), read from sysfs when
 * the file is loaded; an empty one is an error naming the place.
 *
 * This file knows YAML and the shape of an option table, nothing of what the
 * options mean: cmd/runscenario.c feeds the arguments through
 * lw_run_opts_parse() and checks each value there, with its place in the
 * file.  Errors name FILE:LINE:COLUMN (1-based, from libyaml's marks).
 */
#ifndef LW_SCENARIO_H
#define LW_SCENARIO_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* A key of a mapping item: the value's first @len bytes end with it. */
struct lw_scenario_sub {
	size_t len;
	int line, column;
};

struct lw_scenario_arg {
	char *opt;		/* long option name, "interval" */
	char *value;		/* NULL for a flag */
	char *key;		/* as written, for messages: "noise: cpus" */
	int line, column;	/* 1-based place of the value */
	struct lw_scenario_sub *sub;	/* mapping items: where each key is */
	int nsub;
};

struct lw_scenario {
	char *path;		/* the file read */
	char *name;		/* its base name without .yaml */
	char *description;	/* NULL if none */
	char *text;		/* the whole file, copied into a run */
	size_t text_len;
	struct lw_scenario_arg *arg;
	int nargs;
};

/* What keys may be and where ${...} are read. */
struct lw_scenario_keys {
	const struct option *options;		/* the option table, { NULL } ended */
	const char *const *repeatable;		/* options a list repeats; NULL ended */
	const char *const *refused;		/* options a scenario cannot set */
	const char *sysfs;			/* NULL or "": /sys */
};

/* Read and convert @path.  0, or -1 after error(); free in both cases. */
int lw_scenario_load(struct lw_scenario *sc, const char *path, const struct lw_scenario_keys *k);
/* The same from @fd (lw_scenario_open(); closed; -1: fails at once). */
int lw_scenario_load_fd(struct lw_scenario *sc, int fd, const char *path,
			const struct lw_scenario_keys *k);
/* Same from memory; @path names it in messages. */
int lw_scenario_parse(struct lw_scenario *sc, const char *path, const char *text, size_t len,
		      const struct lw_scenario_keys *k);
void lw_scenario_free(struct lw_scenario *sc);

/*
 * Where scenarios are looked up, in order: $LATWATT_SCENARIO_PATH (colon
 * separated; their count in *@nenv when not NULL), workloads/scenarios
 * beside the latwatt binary or its parent (a source tree, an O= build),
 * then the installed LW_SCENARIO_DIR.  Returns the count; strings are
 * static until the next call.
 */
int lw_scenario_dirs(const char **dirs, int max, int *nenv);
/*
 * @arg is a file if it has a '/' or ends in .yaml/.yml, else a NAME looked up
 * in the directories above; a folder of $LATWATT_SCENARIO_PATH and a file
 * found there are held to the owner rule of lib/input.h (LW_IN_OWNED), and
 * refused otherwise.  Path into @buf; the file opened (lib/input.h), or -1
 * after error().
 */
int lw_scenario_open(const char *arg, char *buf, size_t len);
/* The same, closing the file: 0 or -1. */
int lw_scenario_find(const char *arg, char *buf, size_t len);

/* The description line of a scenario file, or NULL (malloc'ed); @origin:
 * the search path of the environment it was found through, or NULL. */
char *lw_scenario_describe(const char *path, const char *origin);

#endif
