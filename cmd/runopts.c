// SPDX-License-Identifier: GPL-2.0-only
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "analysis/failon.h"
#include "analysis/sequential.h"
#include "cmd/runopts.h"
#include "lib/error.h"
#include "lib/parse.h"
#include "lib/trace_rec.h"
#include "lib/ust.h"
#include "power/sources.h"
#include "workloads/workload.h"
#include "workloads/loads.h"

/* The text of `latwatt run --help`, around the list of power sources. */
static const char usage_head[] =
"usage: latwatt run [OPTIONS] -o RUN\n"
"\n"
"Run latency probes (and workloads) and record every sample into the run\n"
"directory RUN.  Stop early with Ctrl-C: what was measured is kept and the\n"
"run is marked incomplete.\n"
"\n"
"  -o, --output RUN        run directory to create (must not exist or be empty)\n"
"  -d, --duration TIME     how long to run: 500ms, 30s, 5m, 2h (default 10s)\n"
"  -c, --cpus LIST         CPUs to measure, e.g. 0-3,6 or all (default all online)\n"
"  -i, --interval US       cyclic probe period in microseconds (default 1000)\n"
"      --distance US       add US to the interval of each next thread (default 0)\n"
"  -p, --priority N        SCHED_FIFO priority of the probe threads (default 95)\n"
"      --no-rt             run the probes SCHED_OTHER (no root needed; recorded)\n"
"      --pm-qos US         hold /dev/cpu_dma_latency at US for the run\n"
"                          (default: leave PM QoS as the system has it)\n"
"      --deepest-idle-state N[@CPULIST]  disable the cpuidle states deeper than\n"
"                          N (-1: all) on CPULIST (default: the measured CPUs)\n"
"                          for the run, put back after (rtla's and cyclictest's\n"
"                          --deepest-idle-state); repeatable for other CPUs;\n"
"                          refused where there is no cpuidle driver\n"
"      --threshold US      write a trace marker for every sample above US;\n"
"                          analyze then fails the run when a sample of a\n"
"                          wake-up probe is above it\n"
"      --budget RULE       a budget the run must meet, recorded in the run and\n"
"                          checked by analyze (repeatable): [PROBE.]STAT<VALUE\n"
"                          or <=, e.g. 'p99<100us', 'xruns<1' (latwatt(1),\n"
"                          RULES AND METRICS)\n"
"  -b, --break-on US       stop the run at the first sample above US (with\n"
"                          --on-threshold continue: its actions' threshold)\n"
"      --on-threshold ACTION  at a sample above --break-on (repeatable, in\n"
"                          order; rtla's --on-threshold): trace (keep the flight\n"
"                          recorder as it was there), signal:SIG[:PID] (PID a\n"
"                          number or parent, the default), exec:PROG [ARG]...\n"
"                          (words as --load's, no shell; the sample in\n"
"                          LATWATT_* variables), continue (measure on to the\n"
"                          end; without it the first such sample ends the run)\n"
"      --on-end ACTION     when the run ends (repeatable): signal:SIG[:PID],\n"
"                          exec:PROG [ARG]... (rtla's --on-end); the actions'\n"
"                          log in RUN/actions.json\n"
"      --aligned US        the cyclic threads wake at common instants: one\n"
"                          start, each next CPU's thread US later (0: all at\n"
"                          once), as cyclictest -A and rtla -A\n"
"      --warm-up TIME      samples of the run's first TIME go to\n"
"                          RUN/warmup-samples, not RUN/samples: no statistic\n"
"                          counts them (rtla --warm-up)\n"
"      --board NAME        board the run is for (default local)\n"
"  -f, --force             replace the run in an existing non-empty RUN\n"
"      --repeat N          N runs, one after another: RUN/run-01 ... RUN/run-NN,\n"
"                          each a run directory, and RUN/repeat.json (each\n"
"                          run's state; 'latwatt compare RUN' takes the\n"
"                          complete ones as one group)\n"
"      --settle TIME       pause between repeats (default 2s)\n"
"      --repeat auto       runs until the comparison with --against is decided\n"
"                          at --alpha, at most --max-runs: a look after each\n"
"                          run from --min-runs on, alpha spent over the looks\n"
"                          so that stopping early keeps the false verdict rate\n"
"                          (latwatt(1): Sequential designs); RUN/repeat.json\n"
"                          holds the looks and the decision.  Without\n"
"                          --against: until the budgets (--budget, the\n"
"                          scenario's, the board's) are decided PASS or FAIL\n"
"      --against BASELINE  the runs to compare with: a run directory or a\n"
"                          directory of repeats (as compare takes them)\n"
"      --min-runs M        first look after M runs (default 3)\n"
"      --max-runs N        at most N runs (default 10)\n"
"      --alpha P           false verdict rate over all the looks (default 0.05)\n"
"      --practical PCT     smallest change that matters, percent (default 5)\n"
"      --spending NAME     pocock (default: early stops) or obrien-fleming\n"
"                          (alpha kept for the last looks)\n"
"      --decide-on METRIC  decide on METRIC only (repeatable; e.g. p99,\n"
"                          cyclic.p99.9, xruns; default: every metric compare\n"
"                          tests)\n"
"      --until-decided     one run, lengthened until its latency budgets are\n"
"                          decided PASS or FAIL at --alpha, -d at the longest:\n"
"                          a look every --look-every at the stretches so far\n"
"                          (latwatt(1): Sequential designs)\n"
"      --look-every TIME   the stretch between looks (default 10s)\n"
"  -q, --quiet             no progress line\n"
"      --progress          progress line even when stderr is not a terminal\n"
"      --trace WHAT        kernel trace into RUN/trace.dat: off, default, or a\n"
"                          list of SYSTEM:EVENT, SYSTEM:* and default (default:\n"
"                          the default set when tracefs is usable, else off)\n"
"      --trace-buffer SIZE trace ring per CPU, e.g. 4M (default 4M); with\n"
"                          --break-on it is what the flight recorder keeps,\n"
"                          with --monitor the ring a spike's window comes from\n"
"      --no-kallsyms       leave kernel symbols out of trace.dat (about 5 MB)\n"
"      --stacks            a kernel stack at each wake-up of a probe or\n"
"                          workload thread while a task ran, and at each\n"
"                          switch to it: analyze names the code that delayed\n"
"                          a spike (as rtla timerlat -a); costs some us a\n"
"                          wake-up that found a task running\n"
"      --lttng WHEN        LTTng-UST events (latwatt:*): auto (default: when an\n"
"                          LTTng session daemon runs), on, off\n"
"      --monitor INTERVAL  long-term monitoring: a histogram and maximum per\n"
"                          INTERVAL (e.g. 5m, as OSADL plots) into RUN/monitor,\n"
"                          raw samples and kernel trace only around spikes\n"
"                          above --threshold (--trace off: none); memory and\n"
"                          disk bounded (printed)\n"
"      --monitor-window TIME  samples and trace kept before and after each spike\n"
"                          (default 100ms)\n"
"      --monitor-disk SIZE at most SIZE of raw samples and trace around spikes\n"
"                          (default 64M)\n"
"      --power-rate HZ     power sampling rate (default 10; 1 when only the\n"
"                          board's energy model is sampled)\n"
"      --power SOURCES     auto (default: sensors found, else the board's energy\n"
"                          model), off, or a list of ";
static const char usage_tail[] =
"\n"
"      --sysfs-root DIR    read power sensors and cpuidle under DIR (a copy)\n"
"      --iio-uri URI       read IIO power monitors through libiio (ip:HOST, usb:)\n"
"  -w, --workload SPEC     run a workload beside the probes (repeatable), e.g.\n"
"                          audio, audio:streams=2,load=0.5,cpu=1,\n"
"                          video:fps=30,width=1280,height=720,\n"
"                          stress:kind=io,intensity=0.5,cpus=0\n"
"                          ('latwatt workloads' lists them and their parameters)\n"
"      --scenario FILE|NAME  run a scenario file (workloads/scenarios/NAME.yaml;\n"
"                          'latwatt scenarios' lists them); options given\n"
"                          here override the file's\n"
"  -l, --load 'CMD ARGS'   run a program as a load: stress-ng, hackbench, rt-app\n"
"                          FILE.json or any other, repeatable; leading\n"
"                          cpus=LIST name=N policy=fifo prio=N nice=N\n"
"                          restart=yes words set where and how it runs\n"
"  -h, --help              this text\n"
"\n"
"Probes:\n";

/* The usage: the power sources from their list, the probes (names and each
 * one's options) from theirs. */
void lw_run_usage(FILE *f)
{
	char names[128], list[256];

	fputs(usage_head, f);
	fputs(lw_power_sources_str(LW_SRC_ALL, list, sizeof(list)), f);
	fputs(usage_tail, f);
	fprintf(f, "      --probes LIST       %s (default: cyclic, plus timerlat\n"
		"                          where the kernel has the timerlat tracer)\n",
		lw_probe_names(names, sizeof(names)));
	for (size_t i = 0; lw_probes[i]; i++) {
		fputs(lw_probes[i]->help, f);
		for (size_t k = 0; k < LW_PROBE_PARAMS && lw_probes[i]->params[k].option; k++)
			fputs(lw_probes[i]->params[k].help, f);
	}
	fputs("\n"
	      "Exit status: 0 complete, 2 error, 128+N interrupted by signal N. With\n"
	      "--repeat auto, as compare's without --fail-on: 0 nothing found worse\n"
	      "(no change that matters, better, or undecided after --max-runs), 1 decided\n"
	      "worse, 2 error; 128+N interrupted (the runs measured are kept).  Against the\n"
	      "budgets: 0 PASS or undecided, 1 FAIL.\n", f);
}

enum {
	OPT_DISTANCE = 256, OPT_NO_RT, OPT_PM_QOS, OPT_THRESHOLD, OPT_BOARD, OPT_PROGRESS,
	OPT_TRACE, OPT_TRACE_BUFFER, OPT_NO_KALLSYMS, OPT_STACKS, OPT_LTTNG,
	OPT_MONITOR, OPT_MONITOR_WINDOW, OPT_MONITOR_DISK,
	OPT_POWER_RATE, OPT_POWER, OPT_SYSFS_ROOT, OPT_IIO_URI,
	OPT_PROBES, OPT_NOISE_CPUS,
	OPT_REPEAT, OPT_SETTLE, OPT_BUDGET,
	OPT_AGAINST, OPT_MIN_RUNS, OPT_MAX_RUNS, OPT_ALPHA, OPT_PRACTICAL, OPT_SPENDING,
	OPT_DECIDE_ON, OPT_UNTIL_DECIDED, OPT_LOOK_EVERY,
	OPT_ON_THRESHOLD, OPT_ON_END, OPT_DEEPEST_IDLE,
	OPT_ALIGNED, OPT_WARM_UP,
	OPT_PROBE_PARAM = 300,	/* + probe index * LW_PROBE_PARAMS + parameter */
	OPT_SCENARIO = 400,
};

_Static_assert(OPT_PROBE_PARAM + LW_NPROBES * LW_PROBE_PARAMS <= OPT_SCENARIO,
	       "room for the probes' parameters");

/* The options but the probes' parameters (added by run_options()). */
static const struct option fixed_opts[] = {
	{ "output",    required_argument, NULL, 'o' },
	{ "duration",  required_argument, NULL, 'd' },
	{ "cpus",      required_argument, NULL, 'c' },
	{ "interval",  required_argument, NULL, 'i' },
	{ "distance",  required_argument, NULL, OPT_DISTANCE },
	{ "priority",  required_argument, NULL, 'p' },
	{ "no-rt",     no_argument,       NULL, OPT_NO_RT },
	{ "pm-qos",    required_argument, NULL, OPT_PM_QOS },
	{ "deepest-idle-state", required_argument, NULL, OPT_DEEPEST_IDLE },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "budget",    required_argument, NULL, OPT_BUDGET },
	{ "break-on",  required_argument, NULL, 'b' },
	{ "on-threshold", required_argument, NULL, OPT_ON_THRESHOLD },
	{ "on-end",    required_argument, NULL, OPT_ON_END },
	{ "board",     required_argument, NULL, OPT_BOARD },
	{ "force",     no_argument,       NULL, 'f' },
	{ "repeat",    required_argument, NULL, OPT_REPEAT },
	{ "settle",    required_argument, NULL, OPT_SETTLE },
	{ "against",   required_argument, NULL, OPT_AGAINST },
	{ "min-runs",  required_argument, NULL, OPT_MIN_RUNS },
	{ "max-runs",  required_argument, NULL, OPT_MAX_RUNS },
	{ "alpha",     required_argument, NULL, OPT_ALPHA },
	{ "practical", required_argument, NULL, OPT_PRACTICAL },
	{ "spending",  required_argument, NULL, OPT_SPENDING },
	{ "decide-on", required_argument, NULL, OPT_DECIDE_ON },
	{ "until-decided", no_argument,   NULL, OPT_UNTIL_DECIDED },
	{ "look-every", required_argument, NULL, OPT_LOOK_EVERY },
	{ "aligned",   required_argument, NULL, OPT_ALIGNED },
	{ "warm-up",   required_argument, NULL, OPT_WARM_UP },
	{ "quiet",     no_argument,       NULL, 'q' },
	{ "progress",  no_argument,       NULL, OPT_PROGRESS },
	{ "power-rate", required_argument, NULL, OPT_POWER_RATE },
	{ "power",     required_argument, NULL, OPT_POWER },
	{ "sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT },
	{ "iio-uri",   required_argument, NULL, OPT_IIO_URI },
	{ "help",      no_argument,       NULL, 'h' },
	{ "trace",        required_argument, NULL, OPT_TRACE },
	{ "trace-buffer", required_argument, NULL, OPT_TRACE_BUFFER },
	{ "no-kallsyms",  no_argument,       NULL, OPT_NO_KALLSYMS },
	{ "stacks",       no_argument,       NULL, OPT_STACKS },
	{ "lttng",        required_argument, NULL, OPT_LTTNG },
	{ "monitor",        required_argument, NULL, OPT_MONITOR },
	{ "monitor-window", required_argument, NULL, OPT_MONITOR_WINDOW },
	{ "monitor-disk",   required_argument, NULL, OPT_MONITOR_DISK },
	{ "workload",  required_argument, NULL, 'w' },
	{ "probes",          required_argument, NULL, OPT_PROBES },
	{ "noise-cpus",      required_argument, NULL, OPT_NOISE_CPUS },
	{ "scenario",  required_argument, NULL, OPT_SCENARIO },
	{ "load",      required_argument, NULL, 'l' },
	{ NULL, 0, NULL, 0 },
};

/* fixed_opts[], then an option per parameter of each probe (--timerlat-period,
 * --noise-threshold: their tables in probes/NAME.c). */
static const struct option *run_options(void)
{
	static struct option all[sizeof(fixed_opts) / sizeof(fixed_opts[0]) +
				 LW_NPROBES * LW_PROBE_PARAMS];
	size_t n = 0;

	if (all[0].name)
		return all;
	for (; fixed_opts[n].name; n++)
		all[n] = fixed_opts[n];
	for (size_t i = 0; lw_probes[i]; i++)
		for (size_t k = 0; k < LW_PROBE_PARAMS && lw_probes[i]->params[k].option; k++)
			all[n++] = (struct option){
				lw_probes[i]->params[k].option + 2, required_argument, NULL,
				OPT_PROBE_PARAM + (int)(i * LW_PROBE_PARAMS + k) };
	all[n] = (struct option){ NULL, 0, NULL, 0 };
	return all;
}

void lw_run_opts_default(struct lw_run_opts *o, const cpu_set_t *online)
{
	memset(o, 0, sizeof(*o));
	o->duration_ns = 10 * LW_NSEC_PER_SEC;
	o->repeat = 1;
	o->settle_ns = 2 * LW_NSEC_PER_SEC;
	o->look_every_ns = 10 * LW_NSEC_PER_SEC;
	{
		struct lw_seq_design d;

		lw_seq_design_default(&d);
		o->min_runs = d.min_runs;
		o->max_runs = d.max_runs;
		o->alpha = d.alpha;
		o->practical = d.practical;
		o->spending = d.spend;
	}
	o->cpus = *online;
	o->interval_ns = 1000 * LW_NSEC_PER_USEC;
	o->priority = 95;
	o->pm_qos_us = -1;
	o->progress = -1;
	o->board = "local";
	o->power_rate_hz = 10;
	o->power_rate_default = 1;
	o->monitor_window_ns = 100 * LW_NSEC_PER_MSEC;
	o->monitor_disk = 64ULL << 20;
	o->power = "auto";
	o->power_mask = LW_SRC_SENSORS;
	o->power_auto = 1;
	o->sysfs_root = "";
	lw_probe_opts_default(&o->probes);
}

/* The options of the trace, the monitor and power (--trace ... --iio-uri), @c
 * as getopt_long() gives it: 0 taken, -1 after error(), 1 not one of them. */
static int trace_power_option(struct lw_run_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_TRACE:
		if (strcmp(arg, "off") && lw_trace_check_list("--trace", arg) < 0)
			return -1;
		o->trace = arg;
		break;
	case OPT_TRACE_BUFFER:
		if (lw_parse_size("--trace-buffer", arg, &o->trace_buffer) < 0)
			return -1;
		if (o->trace_buffer < 16 * 1024 || o->trace_buffer > (4ULL << 30))
			return error("--trace-buffer: must be between 16k and 4G per CPU");
		break;
	case OPT_STACKS:
		o->stacks = 1;
		break;
	case OPT_NO_KALLSYMS:
		o->no_kallsyms = 1;
		break;
	case OPT_LTTNG:
		if (!strcmp(arg, "auto"))
			o->lttng = LW_UST_AUTO;
		else if (!strcmp(arg, "on"))
			o->lttng = LW_UST_ON;
		else if (!strcmp(arg, "off"))
			o->lttng = LW_UST_OFF;
		else
			return error("--lttng: '%s': auto, on or off", arg);
		break;
	case OPT_MONITOR:
		if (lw_parse_duration("--monitor", arg, &o->monitor_ns) < 0)
			return -1;
		if (o->monitor_ns < LW_NSEC_PER_SEC ||
		    o->monitor_ns % LW_NSEC_PER_SEC)
			return error("--monitor: the interval is whole seconds, at least 1s");
		break;
	case OPT_MONITOR_WINDOW:
		if (lw_parse_duration("--monitor-window", arg, &o->monitor_window_ns) < 0)
			return -1;
		if (o->monitor_window_ns > 10 * LW_NSEC_PER_SEC)
			return error("--monitor-window: at most 10s");
		break;
	case OPT_MONITOR_DISK:
		if (lw_parse_size("--monitor-disk", arg, &o->monitor_disk) < 0)
			return -1;
		break;
	case OPT_POWER_RATE:
		if (lw_parse_double("--power-rate", arg, 0.1, 10000, &o->power_rate_hz) < 0)
			return -1;
		o->power_rate_default = 0;
		break;
	case OPT_POWER:
		if (lw_power_parse_sources("--power", arg, &o->power_mask, &o->power_auto) < 0)
			return -1;
		o->power = arg;
		break;
	case OPT_SYSFS_ROOT:
		if (!*arg)
			return error("--sysfs-root: empty directory name");
		o->sysfs_root = arg;
		break;
	case OPT_IIO_URI:
		if (!*arg)
			return error("--iio-uri: empty URI");
		o->iio_uri = arg;
		break;
	default:
		return 1;
	}
	return 0;
}

/* The options of the probes (--probes, --timerlat-period, --noise-*), as
 * trace_power_option(). */
static int probe_option(struct lw_run_opts *o, int c, const char *arg, const cpu_set_t *online)
{
	if (c >= OPT_PROBE_PARAM && c < OPT_PROBE_PARAM + LW_NPROBES * LW_PROBE_PARAMS) {
		/* a parameter in its probe's table (probes/NAME.c) */
		int n = c - OPT_PROBE_PARAM;
		const struct lw_probe *d = lw_probes[n / LW_PROBE_PARAMS];

		return lw_probe_param_set(&o->probes, &d->params[n % LW_PROBE_PARAMS], arg) < 0 ?
		       -1 : 0;
	}
	switch (c) {
	case OPT_PROBES:
		if (lw_parse_probes("--probes", arg, &o->probes.probes) < 0)
			return -1;
		break;
	case OPT_NOISE_CPUS:
		if (lw_parse_cpulist("--noise-cpus", arg, online, &o->probes.noise_cpus) < 0)
			return -1;
		o->probes.noise_cpus_set = 1;
		break;
	default:
		return 1;
	}
	return 0;
}

/* --deepest-idle-state without @CPULIST takes the measured CPUs; no CPU in
 * two sets. */
static int idle_cap_sets(struct lw_run_opts *o)
{
	cpu_set_t seen, both;

	CPU_ZERO(&seen);
	for (int i = 0; i < o->nidle_caps; i++) {
		struct lw_idle_cap *c = &o->idle_caps[i];
		char list[256];

		if (!c->cpus_given)
			c->cpus = o->cpus;
		CPU_AND(&both, &seen, &c->cpus);
		if (CPU_COUNT(&both))
			return error("--deepest-idle-state: CPUs %s are in two sets",
				     lw_format_cpulist(&both, list, sizeof(list)));
		CPU_OR(&seen, &seen, &c->cpus);
	}
	return 0;
}

int lw_run_opts_parse(struct lw_run_opts *o, int argc, char **argv, const cpu_set_t *online)
{
	const char *seq_given = NULL;	/* an option of --repeat auto */
	int look_given = 0;
	char dbuf[32], lbuf[32];
	uint64_t v;
	int c, taken;

	optind = 0;	/* full re-initialisation: parsing may run more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:d:c:i:p:b:fqhw:l:", run_options(), NULL)) != -1) {
		if ((taken = trace_power_option(o, c, optarg)) <= 0 ||
		    (taken = probe_option(o, c, optarg, online)) <= 0) {
			if (taken < 0)
				return -1;
			continue;
		}
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'd':
			if (lw_parse_duration("--duration", optarg, &o->duration_ns) < 0)
				return -1;
			if (o->duration_ns == 0)
				return error("--duration: must be more than 0");
			break;
		case 'c':
			if (lw_parse_cpulist("--cpus", optarg, online, &o->cpus) < 0)
				return -1;
			break;
		case 'i':
			if (lw_parse_usecs("--interval", optarg, &o->interval_ns) < 0)
				return -1;
			if (o->interval_ns < 10 * LW_NSEC_PER_USEC || o->interval_ns > 10 * LW_NSEC_PER_SEC)
				return error("--interval: must be between 10us and 10s");
			break;
		case OPT_DISTANCE:
			if (lw_parse_usecs("--distance", optarg, &o->distance_ns) < 0)
				return -1;
			break;
		case 'p':
			if (lw_parse_uint("--priority", optarg, 1, 99, &v) < 0)
				return -1;
			o->priority = (int)v;
			break;
		case OPT_NO_RT:
			o->no_rt = 1;
			break;
		case OPT_PM_QOS:
			if (lw_parse_uint("--pm-qos", optarg, 0, 2000000000, &v) < 0)
				return -1;
			o->pm_qos_us = (int64_t)v;
			break;
		case OPT_DEEPEST_IDLE:
			if (o->nidle_caps == LW_MAX_IDLE_CAPS)
				return error("--deepest-idle-state: at most %d CPU sets",
					     LW_MAX_IDLE_CAPS);
			if (lw_idle_cap_parse("--deepest-idle-state", optarg, online,
					      &o->idle_caps[o->nidle_caps]) < 0)
				return -1;
			o->nidle_caps++;
			break;
		case OPT_THRESHOLD:
			if (lw_parse_usecs("--threshold", optarg, &o->threshold_ns) < 0)
				return -1;
			break;
		case 'b':
			if (lw_parse_usecs("--break-on", optarg, &o->break_ns) < 0)
				return -1;
			break;
		case OPT_ON_THRESHOLD:
		case OPT_ON_END: {
			int end = c == OPT_ON_END;
			const char *name = end ? "--on-end" : "--on-threshold";
			int *n = end ? &o->non_end : &o->non_threshold;
			struct lw_action a;
			int bad = lw_action_parse(&a, name, optarg);

			lw_action_free(&a);
			if (bad)
				return -1;
			if (*n == LW_MAX_ACTIONS)
				return error("%s: at most %d actions", name, LW_MAX_ACTIONS);
			(end ? o->on_end : o->on_threshold)[(*n)++] = optarg;
			break;
		}
		case OPT_BOARD:
			o->board = optarg;
			break;
		case 'f':
			o->force = 1;
			break;
		case 'q':
			o->progress = 0;
			break;
		case OPT_PROGRESS:
			o->progress = 1;
			break;
		case OPT_REPEAT: {
			uint64_t n;

			if (!strcmp(optarg, "auto")) {
				o->repeat_auto = 1;
				o->repeat = 1;
				break;
			}
			if (lw_parse_uint("--repeat", optarg, 1, LW_RUN_MAX_REPEAT, &n) < 0)
				return -1;
			o->repeat = (unsigned)n;
			o->repeat_auto = 0;
			break;
		}
		case OPT_AGAINST:
			o->against = optarg;
			seq_given = "--against";
			break;
		case OPT_MIN_RUNS:
		case OPT_MAX_RUNS: {
			uint64_t n;
			const char *name = c == OPT_MIN_RUNS ? "--min-runs" : "--max-runs";

			if (lw_parse_uint(name, optarg, 1, LW_RUN_MAX_REPEAT, &n) < 0)
				return -1;
			*(c == OPT_MIN_RUNS ? &o->min_runs : &o->max_runs) = (unsigned)n;
			seq_given = name;
			break;
		}
		case OPT_ALPHA:
			if (lw_parse_double("--alpha", optarg, 1e-9, 0.5, &o->alpha) < 0)
				return -1;
			seq_given = "--alpha";
			break;
		case OPT_PRACTICAL: {
			double d;

			if (lw_parse_double("--practical", optarg, 0, 1000, &d) < 0)
				return -1;
			o->practical = d / 100;
			seq_given = "--practical";
			break;
		}
		case OPT_SPENDING:
			if ((o->spending = lw_seq_spend_by_name(optarg)) < 0)
				return error("--spending: unknown spending function '%s' (pocock or "
					     "obrien-fleming)", optarg);
			seq_given = "--spending";
			break;
		case OPT_UNTIL_DECIDED:
			o->until_decided = 1;
			break;
		case OPT_LOOK_EVERY:
			if (lw_parse_duration("--look-every", optarg, &o->look_every_ns) < 0)
				return -1;
			if (o->look_every_ns < LW_NSEC_PER_SEC || o->look_every_ns % LW_NSEC_PER_SEC)
				return error("--look-every %s: whole seconds, at least 1s (the looks "
					     "take maxima of 1 s blocks)", optarg);
			look_given = 1;
			break;
		case OPT_DECIDE_ON: {
			if (!*optarg || strpbrk(optarg, "<>= "))
				return error("--decide-on: '%s' is not a metric name (p99, "
					     "cyclic.p99.9, xruns)", optarg);
			if (o->ndecide == LW_RUN_MAX_DECIDE)
				return error("--decide-on: at most %d metrics", LW_RUN_MAX_DECIDE);
			o->decide_on[o->ndecide++] = optarg;
			seq_given = "--decide-on";
			break;
		}
		case OPT_ALIGNED:
			if (lw_parse_usecs("--aligned", optarg, &o->probes.align_ns) < 0)
				return -1;
			if (o->probes.align_ns > LW_NSEC_PER_SEC)
				return error("--aligned: at most 1s between two threads");
			o->probes.aligned = 1;
			break;
		case OPT_WARM_UP:
			if (lw_parse_duration("--warm-up", optarg, &o->warmup_ns) < 0)
				return -1;
			break;
		case OPT_SETTLE:
			if (lw_parse_duration("--settle", optarg, &o->settle_ns) < 0)
				return -1;
			break;
		case 'h':
			lw_run_usage(stdout);
			return 1;
		case 'w': {
			struct lw_wspec *ws = lw_wspec_parse(optarg, "--workload");

			if (!ws)
				return -1;
			lw_wspec_free(ws);
			if (o->nworkloads == LW_MAX_WORKLOAD_OPTS)
				return error("--workload: at most %d workloads", LW_MAX_WORKLOAD_OPTS);
			o->workload[o->nworkloads++] = optarg;
			break;
		}
		case OPT_SCENARIO:
			o->scenario = optarg;
			break;
		case OPT_BUDGET: {
			struct lw_rule r;

			if (lw_rule_parse_lang(&lw_lang_budget, optarg, &r) < 0)
				return -1;
			if (o->nbudgets == LW_RUN_MAX_BUDGETS)
				return error("--budget: at most %d budgets", LW_RUN_MAX_BUDGETS);
			o->budget[o->nbudgets++] = optarg;
			break;
		}
		case 'l': {
			struct lw_load_spec ls;
			int bad = lw_load_spec_parse(&ls, optarg, "--load", online);

			lw_load_spec_free(&ls);
			if (bad)
				return -1;
			if (o->nloads == LW_RUN_MAX_LOADS)
				return error("--load: at most %d loads", LW_RUN_MAX_LOADS);
			o->load[o->nloads++] = optarg;
			break;
		}
		default:	/* ':' or an unknown option */
			return lw_opt_error(c, argv, "run");
		}
	}
	if (optind < argc)
		return error("unexpected argument '%s' (see 'latwatt run --help')", argv[optind]);
	if (!o->output)
		return error("no run directory: give -o RUN");
	if (!CPU_COUNT(&o->cpus))
		return error("--cpus: no CPU selected");
	if (idle_cap_sets(o) < 0)
		return -1;
	if (o->non_threshold && !o->break_ns)
		return error("--on-threshold: needs --break-on US, the threshold its actions fire "
			     "at (rtla's -T/-i)");
	if (o->warmup_ns && o->warmup_ns >= o->duration_ns)
		return error("--warm-up: must be shorter than --duration (nothing would be "
			     "measured)");
	if (o->until_decided) {
		if (o->repeat_auto || o->repeat > 1)
			return error("--until-decided lengthens one run; --repeat adds runs: give "
				     "one of them");
		if (o->monitor_ns)
			return error("--until-decided looks at every sample; --monitor keeps "
				     "histograms: give one of them");
		if (seq_given && strcmp(seq_given, "--alpha") && strcmp(seq_given, "--spending"))
			return error("%s is for --repeat auto (--until-decided: -d is the "
				     "longest the run may last, --look-every how often it looks)",
				     seq_given);
		if (o->duration_ns < 3 * o->look_every_ns)
			return error("--until-decided: -d %s gives fewer than 3 looks of "
				     "--look-every %s", lw_format_duration(o->duration_ns, dbuf,
				     sizeof(dbuf)), lw_format_duration(o->look_every_ns, lbuf,
				     sizeof(lbuf)));
	} else if (seq_given && !o->repeat_auto) {
		return error("%s is for --repeat auto%s", seq_given,
			     !strcmp(seq_given, "--alpha") || !strcmp(seq_given, "--spending") ?
			     " or --until-decided" : "");
	}
	if (look_given && !o->until_decided)
		return error("--look-every is for --until-decided");
	/* without --against, the budgets decide: the board's are known once
	 * it is found (cmd/runauto.c refuses a design with none) */
	if (o->repeat_auto && o->min_runs > o->max_runs)
		return error("--min-runs %u is more than --max-runs %u", o->min_runs, o->max_runs);
	/* stacks are recorded in the trace and read through its kernel symbols */
	if (o->stacks && (o->no_kallsyms || (o->trace && !strcmp(o->trace, "off"))))
		return error("--stacks needs the kernel trace and its symbols: not with %s",
			     o->no_kallsyms ? "--no-kallsyms" : "--trace off");
	return 0;
}

const struct option *lw_run_long_options(void)
{
	return run_options();
}

const char *const lw_run_repeatable[] = {
	"workload",
	"load",
	"budget",
	"decide-on",
	"deepest-idle-state",
	NULL,
};
