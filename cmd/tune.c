// SPDX-License-Identifier: GPL-2.0-only
/*
 * latwatt tune: search the knobs that change at run time for the
 * configuration that meets the budgets at the lowest power.  Each candidate
 * is set (journaled, restored on every exit path), judged by runs of
 * 'latwatt run' one at a time with a look after each against the budgets
 * and against the best so far (cmd/runauto.h, the sequential designs of
 * 'run --repeat auto'), and the search says why it tries what it tries.
 * With --kernel (a QEMU board) or --boot-cmd, each run boots a kernel with
 * the candidate's command line instead: the boot-time knobs are searched
 * and nothing is set on this machine.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/failon.h"
#include "analysis/tune.h"
#include "boards/board.h"
#include "cmd/commands.h"
#include "cmd/runauto.h"
#include "cmd/runopts.h"
#include "lib/error.h"
#include "lib/journal.h"
#include "lib/json.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/safefile.h"
#include "lib/spawn.h"
#include "lib/tuneknobs.h"
#include "lib/words.h"
#include "reports/report.h"

static const char usage[] =
"usage: latwatt tune -o DIR [--board B] [--scenario S] [--budget RULE]... [OPTIONS]\n"
"\n"
"Search the kernel settings that change at run time for the one that meets\n"
"the budgets (the board's, the scenario's, --budget) at the lowest power.\n"
"Each candidate is set, judged by runs with a look after each (as 'run\n"
"--repeat auto': against the budgets, and against the best so far, so that\n"
"clear losers stop early) and restored; every knob changed is journaled\n"
"('latwatt cleanup' restores it after a SIGKILL).  The free knobs come first\n"
"(kept when they make the latency better), then the knobs that cost power in\n"
"order of their cost; the first candidate that meets every budget is the\n"
"recommendation.\n"
"\n"
"  -o, --output DIR        directory to create: DIR/cand-NN/run-NN (the runs),\n"
"                          DIR/tune.json, DIR/tune.html (the Pareto front),\n"
"                          DIR/apply.sh and DIR/cmdline.txt (the recommendation)\n"
"      --board NAME        board the runs are for, and its budgets (default local)\n"
"      --scenario NAME     the workload of the runs (a scenario file or name)\n"
"      --budget RULE       a budget to meet (repeatable), as run takes it,\n"
"                          e.g. 'cyclic.max<200us'\n"
"      --knobs LIST        knobs to search (default all): irq, tasks,\n"
"                          timer_migration, rt_throttle, idle, pmqos, governor;\n"
"                          at boot: isolcpus, nohz_full, rcu_nocbs, irqaffinity\n"
"  -c, --cpus LIST         CPUs measured (default: every online CPU but the\n"
"                          first, so that IRQs have somewhere to go; booting,\n"
"                          the board's realtime CPUs)\n"
"      --kernel K          each run boots K on the QEMU board (--board, e.g.\n"
"                          qemu-x86_64; K as 'scripts/qemu-board run' names it:\n"
"                          6.12-rt ...) with the candidate's kernel command line:\n"
"                          the boot-time knobs are searched, not the run-time\n"
"                          ones (they would set this machine, not the guest)\n"
"      --boot-cmd CMD      the same with any command that boots a kernel and\n"
"                          makes one run directory: its words, '{cmdline}' and\n"
"                          '{out}' replaced, then '--' and latwatt run's options;\n"
"                          run without a shell; its exit status 3 (the kernel\n"
"                          panicked) or 4 (timed out), as scripts/qemu-board's,\n"
"                          boots again, at most twice\n"
"  -d, --duration TIME     length of each run (default 5s)\n"
"      --min-runs M        first look against the best after M runs (default 2)\n"
"      --max-runs N        at most N runs a candidate (default 5, at least 2)\n"
"      --alpha P           false verdict rate of each candidate's looks\n"
"                          (default 0.05)\n"
"      --max-time TIME     stop the search after TIME (e.g. 10m); what was\n"
"                          judged so far is reported\n"
"      --grid              judge every combination of the knobs' levels against\n"
"                          the budgets instead of the greedy search (for\n"
"                          bench/: the same pick, at what cost)\n"
"      --sysfs-root DIR    read and write the knobs under DIR, a copy of / (tests;\n"
"                          the runs measure this system as it is)\n"
"      --no-plots          tune.html without the plot\n"
"  -h, --help              this text\n"
"\n"
"Exit status: 0 a recommendation met every budget, 1 every candidate broke a\n"
"budget (the best found is said), 2 error, or none was shown to meet every\n"
"budget but some were left undecided (cannot tell: more --max-runs may\n"
"decide), 128+N interrupted (the knobs are restored).\n";

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

struct params {
	const char *out, *board, *scenario, *cpus, *knobs, *root, *kernel, *boot_cmd;
	const char *budget[LW_RUN_MAX_BUDGETS];
	int nbudgets;
	uint64_t duration_ns, max_time_ns;
	unsigned min_runs, max_runs;
	double alpha;
	int plots;
	int grid;
};

#define MAX_BOOT_WORDS 32	/* --boot-cmd's words */

struct tune {
	struct params *p;
	char qemu_board[PATH_MAX + 32];	/* --kernel: scripts/qemu-board beside this binary */
	struct lw_tune_sys sys;
	int want[LW_TK_N];		/* selected by --knobs */
	struct lw_knobs knobs;
	struct lw_journal journal;
	struct lw_board *board;
	struct lw_tune_result r;
	char self[PATH_MAX];
	char cpulist[256];
	struct timespec t0;
	int current;			/* the best so far: the base of the next candidates */
	int timed_out;
};

static int parse(struct params *p, int argc, char **argv)
{
	enum { O_BOARD = 256, O_SCENARIO, O_BUDGET, O_KNOBS, O_MINRUNS, O_MAXRUNS, O_ALPHA,
	       O_MAXTIME, O_NOPLOTS, O_GRID, O_ROOT, O_KERNEL, O_BOOTCMD };
	static const struct option opts[] = {
		{ "output",   required_argument, NULL, 'o' },
		{ "board",    required_argument, NULL, O_BOARD },
		{ "scenario", required_argument, NULL, O_SCENARIO },
		{ "budget",   required_argument, NULL, O_BUDGET },
		{ "knobs",    required_argument, NULL, O_KNOBS },
		{ "cpus",     required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "min-runs", required_argument, NULL, O_MINRUNS },
		{ "max-runs", required_argument, NULL, O_MAXRUNS },
		{ "alpha",    required_argument, NULL, O_ALPHA },
		{ "max-time", required_argument, NULL, O_MAXTIME },
		{ "no-plots", no_argument,       NULL, O_NOPLOTS },
		{ "grid",     no_argument,       NULL, O_GRID },
		{ "sysfs-root", required_argument, NULL, O_ROOT },
		{ "kernel",   required_argument, NULL, O_KERNEL },
		{ "boot-cmd", required_argument, NULL, O_BOOTCMD },
		{ "help",     no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t u;
	int c;

	p->board = "local";
	p->duration_ns = 5ULL * 1000000000ULL;
	p->min_runs = 2;
	p->max_runs = 5;
	p->alpha = 0.05;
	p->plots = 1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:c:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': p->out = optarg; break;
		case O_BOARD: p->board = optarg; break;
		case O_SCENARIO: p->scenario = optarg; break;
		case O_BUDGET: {
			struct lw_rule r;

			/* refused here, before any knob is set or run started */
			if (lw_rule_parse_lang(&lw_lang_budget, optarg, &r) < 0)
				return -1;
			if (p->nbudgets == LW_RUN_MAX_BUDGETS)
				return error("--budget: at most %d", LW_RUN_MAX_BUDGETS);
			p->budget[p->nbudgets++] = optarg;
			break;
		}
		case O_KNOBS: p->knobs = optarg; break;
		case 'c': p->cpus = optarg; break;
		case 'd':
			if (lw_parse_duration("--duration", optarg, &p->duration_ns) < 0)
				return -1;
			break;
		case O_MINRUNS:
			if (lw_parse_uint("--min-runs", optarg, 2, 50, &u) < 0)
				return -1;
			p->min_runs = (unsigned)u;
			break;
		case O_MAXRUNS:
			if (lw_parse_uint("--max-runs", optarg, 2, 50, &u) < 0)
				return -1;
			p->max_runs = (unsigned)u;
			break;
		case O_ALPHA:
			if (lw_parse_double("--alpha", optarg, 1e-6, 0.5, &p->alpha) < 0)
				return -1;
			break;
		case O_MAXTIME:
			if (lw_parse_duration("--max-time", optarg, &p->max_time_ns) < 0)
				return -1;
			break;
		case O_NOPLOTS: p->plots = 0; break;
		case O_GRID: p->grid = 1; break;
		case O_ROOT: p->root = optarg; break;
		case O_KERNEL: p->kernel = optarg; break;
		case O_BOOTCMD: p->boot_cmd = optarg; break;
		case 'h': return 1;
		default: return lw_opt_error(c, argv, "tune");
		}
	}
	if (optind < argc)
		return error("unexpected argument '%s' (see 'latwatt tune --help')", argv[optind]);
	if (!p->out)
		return error("tune needs -o DIR (see 'latwatt tune --help')");
	if (p->min_runs > p->max_runs)
		p->min_runs = p->max_runs;
	if (p->kernel && p->boot_cmd)
		return error("--kernel and --boot-cmd are two ways to boot: give one");
	if ((p->kernel || p->boot_cmd) && p->root)
		return error("--sysfs-root is for the knobs of this machine; booting (--%s), "
			     "nothing is set here", p->kernel ? "kernel" : "boot-cmd");
	if (p->kernel && p->scenario && strchr(p->scenario, '/'))
		return error("--scenario %s: with --kernel, a scenario the guest's latwatt "
			     "knows by name (a file here is not in the guest)", p->scenario);
	return 0;
}

static int select_knobs(struct tune *t)
{
	char *list, *tok, *save = NULL;

	if (!t->p->knobs || !strcmp(t->p->knobs, "all")) {
		for (int i = 0; i < LW_TK_N; i++)
			t->want[i] = 1;
		return 0;
	}
	list = strdup(t->p->knobs);
	if (!list)
		return error("out of memory");
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k = lw_tunable_by_name(tok);

		if (k < 0) {
			char names[256] = "";
			size_t n = 0;

			for (int i = 0; i < LW_TK_N && n < sizeof(names); i++)
				n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
						      i ? ", " : "", lw_tunables[i].name);
			error("--knobs: unknown knob '%s' (%s)", tok, names);
			free(list);
			return -1;
		}
		t->want[k] = 1;
	}
	free(list);
	return 0;
}

static double elapsed_ns(const struct tune *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->t0.tv_sec) * 1e9 + (double)(now.tv_nsec - t->t0.tv_nsec);
}

static void pass_interrupt(struct lw_child *c, void *arg)
{
	(void)arg;
	if (interrupted)
		kill(c->pid, SIGINT);
}

/* @argv with its output into @logpath; its exit status, or -1. */
static int spawn(const char *const argv[], const char *logpath)
{
	struct lw_child c = { .argv = argv, .err = LW_CHILD_TO_OUT,
			      .sig_default = LW_SIG_BIT(SIGINT) | LW_SIG_BIT(SIGTERM),
			      .on_signal = pass_interrupt, .quiet = 1,
			      .pdeathsig = SIGTERM };	/* tune killed: the run stops and restores */
	int st, fd = lw_create(logpath, 0644);

	if (fd < 0)
		return -1;
	c.out = fd;
	st = lw_child_run(&c);
	if (st < 0)
		st = error("cannot run %s: %s", argv[0], strerror(c.fail_errno));
	close(fd);
	return st;
}

/* The kernel command line candidate @c's runs boot with: the board's words
 * that are no boot-time knob's, and the candidate's. */
static int boot_cmdline(const struct tune *t, const struct lw_tune_cand *c, char *buf, size_t len)
{
	struct lw_sb line = { 0 };
	int ret = lw_tune_boot_line(&t->sys, c->level, &line);

	if (ret == 0 && (size_t)snprintf(buf, len, "%s", line.s) >= len)
		ret = error("the kernel command line of %s is too long", c->name);
	lw_sb_free(&line);
	return ret;
}

#define MAX_REBOOTS 2

/* A failed boot's logs beside @path, renamed PATH.failed-N.*. */
static int keep_failed_boot(const char *path, int n)
{
	static const char *const ext[] = { "log", "console.log", "qemu.txt" };

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		char from[PATH_MAX + 32], to[PATH_MAX + 48];

		snprintf(from, sizeof(from), "%s.%s", path, ext[i]);
		snprintf(to, sizeof(to), "%s.failed-%d.%s", path, n, ext[i]);
		if (rename(from, to) < 0 && errno != ENOENT)
			return error_errno("cannot keep %s as %s", from, to);
	}
	{	/* what the guest left of the run, if anything */
		char to[PATH_MAX + 32];

		snprintf(to, sizeof(to), "%s.failed-%d", path, n);
		if (rename(path, to) < 0 && errno != ENOENT)
			return error_errno("cannot keep %s as %s", path, to);
	}
	return 0;
}

/* One run of candidate @c into @path, analyzed (analysis.json: power). */
static int one_run(struct tune *t, const struct lw_tune_cand *c, const char *path)
{
	const char *argv[64 + MAX_BOOT_WORDS + LW_RUN_MAX_BUDGETS * 2];
	char dur[32], log[PATH_MAX + 64], pmqos[32], cmdline[1024];
	char *words[MAX_BOOT_WORDS + 1] = { NULL };	/* --boot-cmd's, expanded */
	int n = 0, st;

	snprintf(dur, sizeof(dur), "%llums", (unsigned long long)(t->p->duration_ns / 1000000));
	if (t->sys.boots) {
		if (boot_cmdline(t, c, cmdline, sizeof(cmdline)) < 0)
			return -1;
		if (t->p->boot_cmd) {
			const struct lw_word_sub subs[] = { { "{cmdline}", cmdline }, { "{out}", path } };
			int k = lw_words_split(t->p->boot_cmd, subs, 2, words, MAX_BOOT_WORDS + 1);

			if (k < 0)
				return error("--boot-cmd: cannot use '%s'", t->p->boot_cmd);
			for (int i = 0; i < k; i++)
				argv[n++] = words[i];
		} else {
			argv[n++] = t->qemu_board;
			argv[n++] = "--board";
			argv[n++] = t->board->path;
			argv[n++] = "--latwatt";
			argv[n++] = t->self;
			argv[n++] = "--cmdline";
			argv[n++] = cmdline;
			argv[n++] = "run";
			argv[n++] = t->p->kernel;
			argv[n++] = "-o";
			argv[n++] = path;
		}
		argv[n++] = "--";
	} else {
		argv[n++] = t->self;
		argv[n++] = "run";
		argv[n++] = "-o";
		argv[n++] = path;
	}
	argv[n++] = "-q";
	argv[n++] = "-d";
	argv[n++] = dur;
	argv[n++] = "-c";
	argv[n++] = t->cpulist;
	if (!t->sys.boots || t->p->boot_cmd) {	/* qemu-board gives the guest its name */
		argv[n++] = "--board";
		argv[n++] = t->p->board;
	}
	if (t->p->scenario) {
		argv[n++] = "--scenario";
		argv[n++] = t->p->scenario;
	}
	for (int i = 0; i < t->p->nbudgets; i++) {
		argv[n++] = "--budget";
		argv[n++] = t->p->budget[i];
	}
	if (c->level[LW_TK_PMQOS]) {
		snprintf(pmqos, sizeof(pmqos), "%lld",
			 (long long)lw_tk_pmqos_us(&t->sys, c->level[LW_TK_PMQOS]));
		argv[n++] = "--pm-qos";
		argv[n++] = pmqos;
	}
	argv[n] = NULL;
	snprintf(log, sizeof(log), "%s.log", path);
	for (int boot = 1;; boot++) {
		st = spawn(argv, log);
		/* a boot that failed (scripts/qemu-board: 3 the kernel panicked or
		 * its init failed, 4 timed out) is booted again, at most twice:
		 * under multi-threaded TCG a guest can die of the emulation (an
		 * int3 oops while a static key is patched); its logs are kept */
		if (!t->sys.boots || (st != 3 && st != 4) || boot > MAX_REBOOTS || interrupted)
			break;
		if (keep_failed_boot(path, boot) < 0)
			break;
		printf("  %s: the boot failed: %s (status %d; %s.failed-%d.*): booted again "
		       "(%d of %d)\n", path, st == 3 ? "the kernel panicked or its init failed" :
		       "timed out", st, path, boot, boot, MAX_REBOOTS);
		fflush(stdout);
	}
	lw_words_free(words);
	if (st != 0) {
		if (interrupted)
			return error("interrupted by %s", strsignal(interrupted));
		return error("the run %s failed (exit status %d): see %s", path, st, log);
	}
	argv[0] = t->self;
	argv[1] = "analyze";
	argv[2] = path;
	argv[3] = NULL;
	snprintf(log, sizeof(log), "%s.analyze.log", path);
	st = spawn(argv, log);
	if (st != 0 && st != LW_EXIT_FAIL)
		return error("analyze %s failed (exit status %d): see %s", path, st, log);
	return 0;
}

/* The run's power from its analysis.json: mean watts and their kind. */
static void run_power(const char *path, double *w, char *kind, size_t len)
{
	char file[PATH_MAX + 32];
	json_t *doc, *pw;

	*w = NAN;
	snprintf(file, sizeof(file), "%s/analysis.json", path);
	doc = json_load_file(file, 0, NULL);
	pw = doc ? json_object_get(doc, "power") : NULL;
	if (json_is_object(pw)) {
		json_t *avg = json_object_get(json_object_get(pw, "total"), "average_w");
		const char *k = json_string_value(json_object_get(pw, "kind"));

		if (json_is_number(avg))
			*w = json_number_value(avg);
		snprintf(kind, len, "%s", k ? k : "unlabelled");
	}
	json_decref(doc);
}

static void auto_opts(struct tune *t, struct lw_run_opts *o, const char *against)
{
	cpu_set_t online;

	lw_online_cpus(&online);
	lw_run_opts_default(o, &online);
	o->board = t->p->board;
	o->min_runs = t->p->min_runs;
	o->max_runs = t->p->max_runs;
	o->alpha = t->p->alpha;
	o->against = against;
	for (int i = 0; i < t->p->nbudgets; i++)
		o->budget[i] = t->p->budget[i];
	o->nbudgets = t->p->nbudgets;
	if (against) {	/* the latency figures that budgets judge */
		static const char *const dec[] = { "max", "p99" };

		o->decide_on[0] = dec[0];
		o->decide_on[1] = dec[1];
		o->ndecide = 2;
	}
}

/* Set candidate @c: what the last one changed restored, then its knobs. */
static int set_knobs(struct tune *t, struct lw_tune_cand *c)
{
	if (lw_knobs_restore(&t->knobs))
		warning("tune: some knobs could not be restored before the next candidate");
	for (int i = 0; i < LW_TK_N; i++) {
		if (!c->level[i])
			continue;
		if (lw_tunables[i].apply(&t->sys, c->level[i], &t->knobs, c->done[i],
					 sizeof(c->done[i])) < 0)
			return error("tune: cannot set %s for candidate %s", lw_tunables[i].name,
				     c->name);
		if (c->done[i][0])
			printf("  %s: %s\n", lw_tunables[i].name, c->done[i]);
	}
	fflush(stdout);
	return 0;
}

/* The candidate's latency for the front: the first maximum budget's
 * estimate and bounds (the worst case), else the first latency budget's;
 * a percentile judged as the share of samples over its limit gives its
 * runs' figures' geometric mean and two-sided interval instead (in us, not
 * the share). */
static void latency_figure(const struct tune *t, struct lw_tune_cand *c, const struct lw_bseq *sb)
{
	const struct lw_bseq_budget *b = NULL;

	for (size_t k = 0; k < sb->n; k++) {
		const struct lw_bseq_budget *x = &sb->b[k];

		if (!x->probe[0] || x->kind == LW_BSEQ_COUNT)
			continue;
		if (!b || (x->kind == LW_BSEQ_MAX && b->kind != LW_BSEQ_MAX))
			b = x;
	}
	if (!b)
		return;
	snprintf(c->lat_name, sizeof(c->lat_name), "%s", b->name);
	snprintf(c->lat_unit, sizeof(c->lat_unit), "%s", b->unit);
	if (b->kind == LW_BSEQ_EXCEED) {
		if (lw_bseq_mean_bounds(b->fig, b->nfig, t->p->alpha / 2, &c->lat, &c->lat_lo,
					&c->lat_hi) < 0)
			c->lat = b->worst;
		return;
	}
	c->lat = isnan(b->est) ? b->worst : b->est;
	c->lat_lo = b->lo;
	c->lat_hi = b->hi;
}

/* Judge candidate @i: runs one at a time until the budgets are decided, or
 * it is decided worse than the best so far, or --max-runs. */
static int judge(struct tune *t, int i)
{
	struct lw_tune_cand *c = &t->r.c[i];
	struct lw_run_opts ob, oa;
	struct lw_auto ab, aa;
	char dir[PATH_MAX], path[PATH_MAX + 16], best[PATH_MAX];
	int against = t->current >= 0 && t->current != i, ret = -1, stop = 0;
	double wv[64];
	unsigned wn = 0;

	memset(&ab, 0, sizeof(ab));
	memset(&aa, 0, sizeof(aa));
	snprintf(c->dir, sizeof(c->dir), "cand-%02d", i + 1);
	snprintf(c->power_kind, sizeof(c->power_kind), "none");
	c->lat = c->lat_lo = c->lat_hi = c->power_w = c->power_lo = c->power_hi = NAN;
	snprintf(dir, sizeof(dir), "%s/%s", t->p->out, c->dir);
	printf("\ncandidate %d: %s\n  why: %s\n", i + 1, c->name, c->why);
	fflush(stdout);
	if (lw_mkdir(dir, 0755) < 0 || set_knobs(t, c) < 0)
		return -1;
	auto_opts(t, &ob, NULL);
	if (lw_auto_prepare(&ab, &ob, t->board) < 0)
		goto out;
	if (against) {
		snprintf(best, sizeof(best), "%s/%s", t->p->out, t->r.c[t->current].dir);
		auto_opts(t, &oa, best);
		if (lw_auto_prepare(&aa, &oa, t->board) < 0)
			goto out;
	}
	for (unsigned r = 1; r <= t->p->max_runs && !stop && !interrupted; r++) {
		double w;
		int rb, ra = 0;

		if (t->p->max_time_ns && elapsed_ns(t) > (double)t->p->max_time_ns) {
			t->timed_out = 1;
			snprintf(c->line, sizeof(c->line), "stopped by --max-time after %u run%s",
				 r - 1, r == 2 ? "" : "s");
			break;
		}
		snprintf(path, sizeof(path), "%s/run-%02u", dir, r);
		if (one_run(t, c, path) < 0)
			goto out;
		c->runs = r;
		run_power(path, &w, c->power_kind, sizeof(c->power_kind));
		if (!isnan(w) && wn < 64)
			wv[wn++] = w;
		rb = lw_auto_look(&ab, path);
		if (rb < 0)
			goto out;
		if (against && !aa.st.stopped) {
			ra = lw_auto_look(&aa, path);
			if (ra < 0)
				goto out;
		}
		if (ab.sbruns) {
			c->dec = ab.sbdec;
			snprintf(c->line, sizeof(c->line), "%s", ab.sbline);
		}
		if (rb == 1) {
			stop = 1;
		} else if (ra == 1) {
			const struct lw_seq_look *f = &aa.st.final;

			c->worse_than_best = f->decision == LW_SEQ_DIFFERENT && f->worse;
			if (c->worse_than_best) {
				stop = 1;
				printf("  decided worse than %s: stopped early\n",
				       t->r.c[t->current].name);
			}
		}
	}
	if (against && aa.last.runs) {
		const struct lw_seq_look *l = aa.st.stopped ? &aa.st.final : &aa.last;

		lw_seq_line(l, c->vs_best, sizeof(c->vs_best));
		c->worse_than_best = l->decision == LW_SEQ_DIFFERENT && l->worse;
		c->better_than_best = (l->decision == LW_SEQ_DIFFERENT && !l->worse) ||
				      (aa.st.have_better && !c->worse_than_best);
	}
	latency_figure(t, c, &ab.sb);
	c->power_lo = c->power_hi = NAN;
	if (wn == 1 || lw_bseq_mean_bounds(wv, wn, t->p->alpha / 2, &c->power_w, &c->power_lo,
					   &c->power_hi) < 0)
		c->power_w = wn ? wv[0] : NAN;
	printf("  %s after %u run%s: %s\n", lw_bseq_decision_name(c->dec), c->runs,
	       c->runs == 1 ? "" : "s", c->line);
	if (c->vs_best[0])
		printf("  against %s: %s\n", t->r.c[t->current].name, c->vs_best);
	if (!isnan(c->power_lo))
		printf("  power %.3f W [%.3f, %.3f] (%s)\n", c->power_w, c->power_lo, c->power_hi,
		       c->power_kind);
	else if (!isnan(c->power_w))
		printf("  power %.3f W (%s, one run)\n", c->power_w, c->power_kind);
	fflush(stdout);
	ret = 0;
out:
	lw_auto_free(&ab);
	lw_auto_free(&aa);
	return ret;
}

/* A new candidate: @base's levels with knob @k at @l. */
static int add_cand(struct tune *t, int base, int k, int l, const char *why)
{
	struct lw_tune_cand *c;

	if (t->r.n == LW_TUNE_MAX_CANDS)
		return error("tune: at most %d candidates", LW_TUNE_MAX_CANDS);
	c = &t->r.c[t->r.n];
	memset(c, 0, sizeof(*c));
	if (base >= 0)
		memcpy(c->level, t->r.c[base].level, sizeof(c->level));
	if (k >= 0)
		c->level[k] = l;
	lw_tune_cand_name(c->level, c->name, sizeof(c->name));
	snprintf(c->why, sizeof(c->why), "%s", why);
	c->dec = LW_BSEQ_CONTINUE;
	return t->r.n++;
}

static int done(const struct tune *t, int i)
{
	return t->r.c[i].dec == LW_BSEQ_PASS;
}

/* Every combination of the levels, in counting order (the first knob
 * fastest), each judged against the budgets alone. */
static int search_grid(struct tune *t, const int nl[LW_TK_N])
{
	int lv[LW_TK_N] = { 0 }, total = 1, i;
	char why[160];

	for (int k = 0; k < LW_TK_N; k++)
		total *= nl[k] + 1;
	if (total > LW_TUNE_MAX_CANDS)
		return error("--grid: %d combinations, at most %d", total, LW_TUNE_MAX_CANDS);
	for (int n = 0; n < total && !interrupted && !t->timed_out; n++) {
		snprintf(why, sizeof(why), "grid: combination %d of %d, judged against the budgets "
			 "alone", n + 1, total);
		i = add_cand(t, -1, -1, 0, why);
		if (i < 0)
			return -1;
		memcpy(t->r.c[i].level, lv, sizeof(lv));
		lw_tune_cand_name(lv, t->r.c[i].name, sizeof(t->r.c[i].name));
		if (judge(t, i) < 0)
			return -1;
		for (int k = 0; k < LW_TK_N; k++) {	/* the next combination */
			if (++lv[k] <= nl[k])
				break;
			lv[k] = 0;
		}
	}
	return 0;
}

static int search(struct tune *t)
{
	char why[640], what[256];
	int i, nl[LW_TK_N];

	printf("knobs:\n");
	for (int k = 0; k < LW_TK_N; k++) {
		char whynot[256] = "";

		nl[k] = t->want[k] ? lw_tunables[k].levels(&t->sys, whynot, sizeof(whynot)) : 0;
		if (t->want[k] && t->sys.boots && !lw_tunables[k].boot) {
			nl[k] = 0;
			snprintf(whynot, sizeof(whynot), "set at run time on this machine, not in "
				 "the kernel each run boots");
		}
		if (!t->want[k])
			printf("  %-16s not searched (--knobs)\n", lw_tunables[k].name);
		else if (!nl[k])
			printf("  %-16s not here: %s\n", lw_tunables[k].name, whynot);
		else
			printf("  %-16s %d level%s, %s\n", lw_tunables[k].name, nl[k],
			       nl[k] == 1 ? "" : "s", lw_tunables[k].costs_power ?
			       "costs power" : "free in the energy model");
	}
	/* the idle states per CPU cost less than the same limit on every CPU */
	if (nl[LW_TK_IDLE] && nl[LW_TK_PMQOS]) {
		printf("  pmqos: not searched: idle limits the same states on the measured CPUs "
		       "alone, at less power\n");
		nl[LW_TK_PMQOS] = 0;
	}

	if (t->p->grid)
		return search_grid(t, nl);
	i = add_cand(t, -1, -1, 0, "the system as found: the reference every knob is judged "
		     "against");
	if (i < 0 || judge(t, i) < 0)
		return -1;
	t->current = i;
	if (done(t, i)) {
		printf("\nthe system as found meets every budget: no knob to change\n");
		return 0;
	}
	for (int k = 0; k < LW_TK_N && !interrupted && !t->timed_out; k++) {
		if (!nl[k] || lw_tunables[k].costs_power)
			continue;
		lw_tunables[k].describe(&t->sys, 1, what, sizeof(what));
		snprintf(why, sizeof(why), "%s: free in the energy model, so tried before any knob "
			 "that costs power; the best so far (%s) is %s", what,
			 t->r.c[t->current].name, lw_bseq_decision_name(t->r.c[t->current].dec));
		i = add_cand(t, t->current, k, 1, why);
		if (i < 0 || judge(t, i) < 0)
			return -1;
		if (done(t, i))
			return 0;
		if (t->r.c[i].better_than_best) {
			printf("  kept: better than %s\n", t->r.c[t->current].name);
			t->current = i;
		} else {
			printf("  dropped: not decided better than %s\n", t->r.c[t->current].name);
		}
	}
	for (int k = 0; k < LW_TK_N && !interrupted && !t->timed_out; k++) {
		if (!nl[k] || !lw_tunables[k].costs_power)
			continue;
		for (int l = 1; l <= nl[k] && !interrupted && !t->timed_out; l++) {
			lw_tunables[k].describe(&t->sys, l, what, sizeof(what));
			snprintf(why, sizeof(why), "%s: the next step in order of power cost on %s "
				 "(each later one costs more, so the first to meet the budgets is "
				 "the recommendation)", what, t->r.c[t->current].name);
			i = add_cand(t, t->current, k, l, why);
			if (i < 0 || judge(t, i) < 0)
				return -1;
			if (done(t, i))
				return 0;
		}
	}
	return 0;
}

static int write_text(const char *path, const char *text)
{
	FILE *f = lw_fcreate(path, 0644);

	if (!f)
		return -1;
	fputs(text, f);
	if (fclose(f) != 0)
		return error_errno("cannot write %s", path);
	return 0;
}

static int write_outputs(struct tune *t, const char *verdict)
{
	char path[PATH_MAX + 32], title[512];
	struct lw_sb sb = { 0 }, cl = { 0 };
	struct lw_report_opts ro = { .plots = t->p->plots && lw_gnuplot_available() };
	json_t *doc = lw_tune_json(&t->r, &t->sys, verdict);
	int ret = -1, k = t->r.recommended;
	FILE *f;

	if (!doc)
		return error("out of memory");
	snprintf(path, sizeof(path), "%s/tune.json", t->p->out);
	if (lw_json_save(doc, path) < 0)
		goto out;
	snprintf(path, sizeof(path), "%s/tune.html", t->p->out);
	f = lw_fcreate(path, 0644);
	if (!f || lw_report_tune_html(f, doc, &ro) < 0) {
		if (f)
			fclose(f);
		goto out;
	}
	if (fclose(f) != 0) {
		error_errno("cannot write %s", path);
		goto out;
	}
	if (k >= 0) {
		snprintf(title, sizeof(title), "%s: %s", t->r.c[k].name, t->r.c[k].line);
		if (lw_tune_script(&t->sys, t->r.c[k].level, title, &sb) < 0 ||
		    lw_tune_cmdline(&t->sys, t->r.c[k].level, &cl) < 0)
			goto out;
		snprintf(path, sizeof(path), "%s/apply.sh", t->p->out);
		if (write_text(path, sb.s) < 0)
			goto out;
		lw_sb_add(&cl, "\n");
		snprintf(path, sizeof(path), "%s/cmdline.txt", t->p->out);
		if (!lw_sb_str(&cl) || write_text(path, cl.s[0] == ' ' ? cl.s + 1 : cl.s) < 0)
			goto out;
		cl.s[strlen(cl.s) - 1] = 0;
		printf("apply it: sh %s/apply.sh; at boot, add to the kernel command line: %s\n",
		       t->p->out, cl.s[0] ? cl.s + (cl.s[0] == ' ') : "(nothing)");
	}
	ret = 0;
out:
	lw_sb_free(&sb);
	lw_sb_free(&cl);
	json_decref(doc);
	return ret;
}

/* No candidate decided PASS: either every one broke a budget (none meets),
 * or some were left undecided (none was shown to meet: cannot tell). */
static void say_none(const struct tune *t, char *v, size_t len)
{
	const char *when = t->timed_out ? " within --max-time" : interrupted ? " (interrupted)" : "";
	int u = t->r.undecided;

	if (!u)
		snprintf(v, len, "no configuration meets every budget%s", when);
	else
		snprintf(v, len, "no configuration was shown to meet every budget%s: %d of %d "
			 "undecided after their runs (more %s may decide)", when, u, t->r.n,
			 t->timed_out ? "--max-time" : "--max-runs");
}

static void say_verdict(struct tune *t, char *v, size_t len)
{
	int k = t->r.recommended, b = t->r.best;

	if (k >= 0) {
		const struct lw_tune_cand *c = &t->r.c[k];

		snprintf(v, len, "recommended: %s, meets every budget at alpha %g (%s)%s", c->name,
			 t->p->alpha, c->line, "");
		if (!isnan(c->power_w) && !isnan(t->r.c[0].power_w)) {
			size_t l = strlen(v);

			snprintf(v + l, len - l, "; power %.3f W (%s), %+.3f W against as found",
				 c->power_w, c->power_kind, c->power_w - t->r.c[0].power_w);
		}
	} else if (b >= 0) {
		const struct lw_tune_cand *c = &t->r.c[b];
		char iv[96] = "", none[160];

		if (!isnan(c->lat_lo) || !isnan(c->lat_hi))
			snprintf(iv, sizeof(iv), " [%.1f, %.1f]", c->lat_lo, c->lat_hi);
		say_none(t, none, sizeof(none));
		snprintf(v, len, "%s: the best found is %s, %s %.1f%s %s (%s)", none, c->name,
			 c->lat_name, c->lat, iv, c->lat_unit, c->line);
	} else {
		char none[160];

		say_none(t, none, sizeof(none));
		snprintf(v, len, "%s, and none had a latency figure to rank", none);
	}
}

/* The word of a boot-time knob (isolcpus=...), or of nothing. */
static int boot_word(const char *w)
{
	for (int k = 0; k < LW_TK_N; k++) {
		size_t l = strlen(lw_tunables[k].name);

		if (lw_tunables[k].boot && !strncmp(w, lw_tunables[k].name, l) && w[l] == '=')
			return 1;
	}
	return 0;
}

/*
 * Each run boots a kernel: the CPUs are the board's (cpus.count; measured:
 * --cpus, else its realtime CPUs, else all but the first), the base command
 * line its kernel.cmdline without the boot-time knobs' words, and with
 * --kernel the board must be a QEMU board's file.
 */
static int boot_setup(struct tune *t, cpu_set_t *online, cpu_set_t *measured)
{
	const struct lw_board *b = t->board;
	char *copy, *save = NULL, *w;
	size_t len = 0;

	memset(&t->sys, 0, sizeof(t->sys));
	t->sys.boots = 1;
	snprintf(t->sys.driver, sizeof(t->sys.driver), "none");
	if (b->ncpus <= 0)
		return error("board %s gives no cpus.count: which CPUs the kernel it boots has "
			     "is not known", b->name);
	CPU_ZERO(online);
	for (int c = 0; c < b->ncpus && c < CPU_SETSIZE; c++)
		CPU_SET(c, online);
	if (t->p->cpus) {
		if (lw_parse_cpulist("--cpus", t->p->cpus, online, measured) < 0)
			return -1;
	} else if (b->has_realtime) {
		CPU_AND(measured, &b->realtime, online);
	} else {
		*measured = *online;
		CPU_CLR(0, measured);
	}
	if (!CPU_COUNT(measured))
		return error("no CPU of board %s to measure", b->name);
	t->sys.online = *online;
	t->sys.measured = *measured;
	if (t->p->kernel) {
		char top[PATH_MAX], *slash;

		if (!b->path || !b->text || !strstr(b->text, "\nqemu:"))
			return error("--kernel: board %s is not a QEMU board (no qemu: section in "
				     "its file)", b->name);
		snprintf(top, sizeof(top), "%s", t->self);
		slash = strrchr(top, '/');
		snprintf(t->qemu_board, sizeof(t->qemu_board), "%.*s/scripts/qemu-board",
			 slash ? (int)(slash - top) : 1, slash ? top : ".");
		if (access(t->qemu_board, X_OK))
			return error_errno("--kernel: cannot run %s", t->qemu_board);
	}
	copy = strdup(b->kernel.cmdline ? b->kernel.cmdline : "");
	if (!copy)
		return error("out of memory");
	for (w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (boot_word(w))
			continue;
		len += (size_t)snprintf(t->sys.boot_base + len, sizeof(t->sys.boot_base) - len,
					"%s%s", len ? " " : "", w);
		if (len >= sizeof(t->sys.boot_base)) {
			free(copy);
			return error("board %s: kernel.cmdline is too long", b->name);
		}
	}
	free(copy);
	return 0;
}

int cmd_tune(int argc, char **argv)
{
	struct params p = { 0 };
	struct tune t = { .p = &p, .current = -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	cpu_set_t online, measured;
	char verdict[1024];
	ssize_t sl;
	int r, rc = LW_EXIT_ERROR, journaled = 0, restore_failed = 0;

	r = parse(&p, argc, argv);
	if (r > 0) {
		fputs(usage, stdout);
		return LW_EXIT_OK;
	}
	if (r < 0 || select_knobs(&t) < 0)
		return LW_EXIT_ERROR;
	t.board = lw_board_find(p.board, NULL);
	if (!t.board)
		return LW_EXIT_ERROR;
	sl = readlink("/proc/self/exe", t.self, sizeof(t.self) - 1);
	if (sl <= 0) {
		error_errno("cannot find this binary (/proc/self/exe)");
		goto out;
	}
	t.self[sl] = 0;
	if (p.kernel || p.boot_cmd) {
		if (boot_setup(&t, &online, &measured) < 0)
			goto out;
	} else {
		if (lw_online_cpus(&online) < 0)
			goto out;
		if (p.cpus) {
			if (lw_parse_cpulist("--cpus", p.cpus, &online, &measured) < 0)
				goto out;
		} else {
			measured = online;
			if (CPU_COUNT(&online) > 1)
				for (int c = 0; c < CPU_SETSIZE; c++)
					if (CPU_ISSET(c, &online)) {
						CPU_CLR(c, &measured);
						break;
					}
		}
		if (lw_tune_sys_read(&t.sys, p.root ? p.root : "", &measured) < 0)
			goto out;
	}
	lw_format_cpulist(&t.sys.measured, t.cpulist, sizeof(t.cpulist));
	if (!p.nbudgets && !t.board->nbudget) {
		error("tune needs a budget to meet: --budget RULE, or a board with \"budgets:\" "
		      "(board %s has none)", p.board);
		goto out;
	}
	if (lw_mkdir(p.out, 0755) < 0)
		goto out;
	if (lw_journal_begin(&t.journal, p.out) < 0)
		goto out;
	journaled = 1;
	t.knobs.journal = &t.journal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t.t0);
	printf("tune: CPU %s measured, runs of %.3g s, %u to %u runs a candidate, alpha %g\n",
	       t.cpulist, (double)p.duration_ns / 1e9, p.min_runs, p.max_runs, p.alpha);
	if (t.sys.boots)
		printf("each run boots %s%s with the candidate's kernel command line, on \"%s\"\n",
		       p.kernel ? p.kernel : "a kernel through --boot-cmd",
		       p.kernel ? " on the QEMU board" : "", t.sys.boot_base);
	r = search(&t);
	restore_failed = lw_knobs_restore(&t.knobs);
	if (restore_failed)
		warning("tune: %d knob%s could not be restored: 'latwatt cleanup' tries again from "
			"the journal", restore_failed, restore_failed == 1 ? "" : "s");
	else
		printf("\nevery knob restored\n");
	if (r < 0 && !interrupted)
		goto out;
	lw_tune_finish(&t.r);
	say_verdict(&t, verdict, sizeof(verdict));
	printf("%s\n", verdict);
	if (write_outputs(&t, verdict) < 0)
		goto out;
	printf("%s/tune.json, %s/tune.html\n", p.out, p.out);
	rc = interrupted ? 128 + interrupted : t.r.recommended >= 0 ? LW_EXIT_OK :
	     t.r.undecided ? LW_EXIT_ERROR : LW_EXIT_FAIL;
out:
	if (journaled) {
		restore_failed += lw_knobs_restore(&t.knobs);
		if (!restore_failed)
			lw_journal_end(&t.journal);
	}
	lw_board_free(t.board);
	return rc;
}
