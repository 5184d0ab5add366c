/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `latwatt run` options, parsed into a struct with no side effects so that
 * every option form is unit-tested (tests/unit/test_runopts.c).
 */
#ifndef LW_RUNOPTS_H
#define LW_RUNOPTS_H

#include <getopt.h>
#include <stdio.h>
#include <sched.h>
#include <stdint.h>

#define LW_MAX_WORKLOAD_OPTS 16
#include "lib/actions.h"
#include "lib/idlecap.h"
#include "probes/plan.h"
#define LW_RUN_MAX_LOADS 16
#define LW_RUN_MAX_REPEAT 999
#define LW_RUN_MAX_BUDGETS 32
#define LW_RUN_MAX_DECIDE 16

struct lw_run_opts {
	const char *output;		/* -o RUN */
	uint64_t duration_ns;		/* -d, default 10s */
	cpu_set_t cpus;			/* -c, default: every online CPU */
	uint64_t interval_ns;		/* -i, default 1000us */
	uint64_t distance_ns;		/* --distance, default 0 */
	int priority;			/* -p, default 95 */
	int no_rt;			/* --no-rt */
	int64_t pm_qos_us;		/* --pm-qos, default -1: leave it */
	/* --deepest-idle-state N[@CPULIST], repeatable (sets apart); without
	 * @CPULIST the measured CPUs (filled in by the parse) */
	struct lw_idle_cap idle_caps[LW_MAX_IDLE_CAPS];
	int nidle_caps;
	uint64_t threshold_ns;		/* --threshold, default 0: no markers */
	uint64_t break_ns;		/* --break-on, default 0 */
	/* --on-threshold ACTION, --on-end ACTION: repeatable, checked, in order
	 * (lib/actions.h) */
	const char *on_threshold[LW_MAX_ACTIONS];
	int non_threshold;
	const char *on_end[LW_MAX_ACTIONS];
	int non_end;
	uint64_t warmup_ns;		/* --warm-up TIME, default 0: none */
	int force;			/* --force */
	unsigned repeat;		/* --repeat N, default 1 */
	/* --repeat auto: runs until decided against --against (analysis/sequential.h) */
	int repeat_auto;
	const char *against;		/* --against BASELINE */
	unsigned min_runs, max_runs;	/* --min-runs (3), --max-runs (10) */
	double alpha, practical;	/* --alpha (0.05), --practical (5 %: 0.05) */
	int spending;			/* --spending (enum lw_seq_spend), Pocock-type */
	/* --until-decided: one run, lengthened up to -d until its budgets are
	 * decided (cmd/rununtil.h), a look every --look-every (10 s) */
	int until_decided;
	uint64_t look_every_ns;
	const char *decide_on[LW_RUN_MAX_DECIDE];	/* --decide-on METRIC, repeatable */
	int ndecide;
	uint64_t settle_ns;		/* --settle, default 2s */
	int progress;			/* -1 auto (tty), 0 --quiet, 1 --progress */
	const char *board;		/* --board, default "local" */
	const char *trace;		/* --trace off|default|LIST; NULL: default if possible */
	uint64_t trace_buffer;		/* --trace-buffer, per CPU; 0: the recorder's default */
	int no_kallsyms;		/* --no-kallsyms */
	int stacks;			/* --stacks */
	int lttng;			/* --lttng auto|on|off (enum lw_ust_mode), default auto */
	uint64_t monitor_ns;		/* --monitor INTERVAL; 0: every sample kept */
	uint64_t monitor_window_ns;	/* --monitor-window, before and after a spike */
	uint64_t monitor_disk;		/* --monitor-disk, bytes of raw windows */
	double power_rate_hz;		/* --power-rate, default 10 */
	int power_rate_default;		/* --power-rate not given */
	const char *power;		/* --power, default "auto" */
	unsigned power_mask;		/* parsed --power (power/sources.h) */
	int power_auto;
	const char *sysfs_root;		/* --sysfs-root, default "" (this machine) */
	const char *iio_uri;		/* --iio-uri */
	const char *workload[LW_MAX_WORKLOAD_OPTS];	/* -w SPEC, checked, in order */
	int nworkloads;
	struct lw_probe_opts probes;	/* --probes, --timerlat-period, --noise-* */
	const char *scenario;		/* --scenario FILE|NAME (cmd/runscenario.c) */
	const char *load[LW_RUN_MAX_LOADS];	/* -l, --load SPEC, repeatable (workloads/loads.h) */
	int nloads;
	const char *budget[LW_RUN_MAX_BUDGETS];	/* --budget RULE, repeatable (checked) */
	int nbudgets;
};

void lw_run_usage(FILE *f);

void lw_run_opts_default(struct lw_run_opts *o, const cpu_set_t *online);
/* 0 ok, 1 --help was asked (usage printed), -1 bad option (error printed). */
int lw_run_opts_parse(struct lw_run_opts *o, int argc, char **argv, const cpu_set_t *online);

/*
 * For scenario files (cmd/runscenario.c): every scenario key is a long
 * option of this table, so a new option is a scenario key with no other
 * code.  Options that may be given more than once (each one adds an item)
 * are listed in lw_run_repeatable[]; a YAML list gives them once per item,
 * while for any other option a list is joined with commas.
 */
const struct option *lw_run_long_options(void);
extern const char *const lw_run_repeatable[];

#endif
