/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Workloads: simulators that run beside the probes during `latwatt run` and
 * keep their own deadline accounting (audio periods, video frames), and
 * background stress.
 *
 * Each workload kind is one const descriptor, struct lw_workload, defined in
 * its own file (workloads/audio.c: `const struct lw_workload lw_workload_audio`)
 * and listed once in LW_WORKLOADS() below.  Adding a workload is one file
 * plus one line, in the manner of stress-ng's core-stressors.h.
 *
 * A descriptor carries a parameter table.  Its values live in a config
 * struct private to the workload (config_size bytes; each parameter names
 * the offset of its field), so that the command line, the scenario files and
 * `latwatt workloads` set and print every parameter generically:
 *
 *	-w audio                                   every parameter at its default
 *	-w audio:streams=2,load=0.5,cpu=1,prio=80
 *	-w stress:kind=io,intensity=0.5,cpus=0
 *
 *	struct lw_wspec *s = lw_wspec_parse("audio:streams=2", "--workload");
 *	struct lw_wspec *s = lw_wspec_new(lw_workload_find("audio"));
 *	lw_wspec_set(s, "streams", "2", "scenario.yaml:12");     (one key at a time)
 *	lw_wspec_check(s);                 cross-parameter checks of the workload
 *	struct lw_part *p = lw_wspec_create(s, &env);   a run participant
 *
 * A spec is "NAME" or "NAME:KEY=VALUE[,KEY=VALUE...]".  An item without '='
 * continues the previous value, so CPU lists keep their commas:
 * "stress:kind=cpu,cpus=0,2-3,intensity=0.5".
 *
 * Workload participants are added after the probes (cmd/run.c), so they
 * start when the probes are ready and stop before them.  Every thread they
 * create is joined in stop(); children are reaped there too.
 *
 * Files in the run directory:
 *	RUN/<instance>.records	per-period / per-frame records (workloads/records.h),
 *				<instance> is the kind ("audio") for the first of a
 *				kind in a run, then "audio-1", "audio-2"...
 * Manifest: "workloads": { "<instance>": { "kind":…, "params":{…}, summary… } }
 */
#ifndef LW_WORKLOAD_H
#define LW_WORKLOAD_H

#include <jansson.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct lw_part;
struct lw_rkind;

enum lw_wparam_type {
	LW_WP_UINT,	/* uint64_t, decimal or 0x hex, range [min, max] */
	LW_WP_DOUBLE,	/* double, range [min, max] */
	LW_WP_TIME,	/* uint64_t ns; a bare number is microseconds ("500", "2ms") */
	LW_WP_SIZE,	/* uint64_t bytes: "4096", "64k", "2M" */
	LW_WP_CPUS,	/* cpu_set_t: "1", "0-3", "all" (all online CPUs) */
	LW_WP_ENUM,	/* int: index into choices[] */
	LW_WP_BOOL,	/* int: 0/1 from "0" "1" "no" "yes" "false" "true" "off" "on" */
};

struct lw_wparam {
	const char *name;		/* key in specs and scenario files */
	enum lw_wparam_type type;
	size_t offset;			/* of the field in the config struct */
	const char *def;		/* default, as text, parsed like any value */
	double min, max;		/* UINT, DOUBLE, TIME (ns), SIZE (bytes) */
	const char *const *choices;	/* ENUM: NULL-terminated names */
	const char *help;		/* one line, lowercase */
};

/* What the run tells a workload when it is created. */
struct lw_workload_env {
	int no_rt;		/* --no-rt: SCHED_FIFO threads run SCHED_OTHER instead */
	int instance;		/* 0 for the first workload of this kind in the run, 1... */
	const char *rundir;	/* for files the workload keeps there (stress io) */
};

struct lw_workload {
	const char *name;		/* "audio" */
	const char *help;		/* one line */
	const struct lw_wparam *params;	/* table ending with { .name = NULL } */
	size_t config_size;
	/* Optional: checks across parameters (e.g. sizes of a pixel format).
	 * 0, or -1 after error() naming @where and the parameters. */
	int (*check)(const void *config, const char *where);
	/* A run participant for @config (copied).  NULL after error(). */
	struct lw_part *(*create)(const void *config, const struct lw_workload_env *env);
	/* Its per-period records and deadline misses (workloads/rkind.h);
	 * NULL for a workload that writes none, as stress. */
	const struct lw_rkind *records;
};

/*
 * The list.  Each X(name) refers to `const struct lw_workload lw_workload_<name>`,
 * the order is the order of `latwatt workloads`.
 */
#define LW_WORKLOADS(X)	\
	X(audio)	\
	X(video)	\
	X(stress)

#define LW_WORKLOAD_DECLARE(n) extern const struct lw_workload lw_workload_##n;
LW_WORKLOADS(LW_WORKLOAD_DECLARE)
#undef LW_WORKLOAD_DECLARE

/* Every workload, in list order, NULL-terminated. */
extern const struct lw_workload *const lw_workloads[];
const struct lw_workload *lw_workload_find(const char *name);
const struct lw_wparam *lw_wparam_find(const struct lw_workload *w, const char *key);

/* A workload with its parameter values. */
struct lw_wspec {
	const struct lw_workload *w;
	void *config;			/* w->config_size bytes */
	uint64_t set;			/* bit i: params[i] was given explicitly */
};

/* Every parameter at its default.  NULL after error() (out of memory). */
struct lw_wspec *lw_wspec_new(const struct lw_workload *w);
/* Parse "NAME[:KEY=VALUE,...]"; @where prefixes error messages (e.g.
 * "--workload", "scenario.yaml:12").  Runs lw_wspec_check().  NULL after
 * error(). */
struct lw_wspec *lw_wspec_parse(const char *spec, const char *where);
/* Set one parameter from text.  0, or -1 after error() of the form
 * "WHERE: workload audio: load: '2x' is not a number". */
int lw_wspec_set(struct lw_wspec *s, const char *key, const char *value, const char *where);
/* Run the workload's cross-parameter check. */
int lw_wspec_check(const struct lw_wspec *s, const char *where);
/* Every parameter with its value ({"streams":2, "load":0.3, "cpu":"1", ...}). */
json_t *lw_wspec_json(const struct lw_wspec *s);
/* The same for a workload's config struct (what a workload's finish() records). */
json_t *lw_wconfig_json(const struct lw_workload *w, const void *config);
/* "audio:streams=2,load=0.3,..." with every parameter (for logs); @buf. */
char *lw_wspec_format(const struct lw_wspec *s, char *buf, size_t len);
/* The run participant; the spec may be freed afterwards. */
struct lw_part *lw_wspec_create(const struct lw_wspec *s, const struct lw_workload_env *env);

struct lw_run;
/*
 * The participant for @s in @run (not added: cmd/run.c adds it after the
 * probes), numbered after the workloads of the same kind already in @run
 * ("audio", then "audio-1"...).  lw_workload_new() parses @spec first
 * (errors say "--workload").  NULL after error().
 */
struct lw_part *lw_workload_part(struct lw_run *run, const struct lw_wspec *s, int no_rt);
struct lw_part *lw_workload_new(struct lw_run *run, const char *spec, int no_rt);
void lw_wspec_free(struct lw_wspec *s);

/* `latwatt workloads`: every workload and its parameters with defaults. */
void lw_workloads_print(FILE *out, const char *only);

/*
 * For `latwatt analyze`: read every RUN/<instance>.records and the
 * manifest's "workloads" object and return one summary object per workload
 * instance: {"audio": {"kind":"audio", "periods":…, "xruns":…,
 * "wakeup_ns":{"min","p50","p99","max"}, "worst_slack_ns":…, ...}, ...}.
 * An empty object when the run had no workload; NULL after error() (a
 * malformed records file, naming it).
 */
json_t *lw_workload_summaries(const char *rundir);
/* Print those summaries as text. */
void lw_workload_summaries_print(FILE *out, const json_t *summaries);

#endif
