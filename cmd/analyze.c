// SPDX-License-Identifier: GPL-2.0-only
/* latwatt analyze RUN: latency statistics of a run, written to RUN/analysis.json. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "analysis/summary.h"
#include "analysis/tracepass.h"
#include "analysis/analyze.h"
#include "analysis/failon.h"
#include "boards/board.h"
#include "cmd/commands.h"
#include "lib/error.h"
#include "lib/parse.h"
#include "lib/samples.h"
#include "reports/report.h"
#include "workloads/workload.h"

static const char usage[] =
"usage: latwatt analyze [OPTIONS] RUN\n"
"\n"
"Latency statistics of the run directory RUN, per probe and CPU: count, min,\n"
"mean, p50, p90, p99, p99.9, p99.99, max, samples over the threshold, missed\n"
"periods and dropped samples.  Writes RUN/analysis.json.\n"
"\n"
"      --threshold US      count samples above US (default: the run's --threshold)\n"
"      --histogram         print a cyclictest-compatible histogram (1us buckets)\n"
"      --probe NAME        probe for --histogram (default cyclic)\n"
"      --json              print analysis.json to stdout instead of the table\n"
"  -n, --no-write          do not write RUN/analysis.json\n"
"      --board NAME        check the budgets of board NAME (default: the run's)\n"
"      --budget RULE       a budget to check, repeatable: [PROBE.]STAT<VALUE or <=\n"
"                          (see 'latwatt report --help' and RULES AND METRICS in\n"
"                          latwatt(1)), e.g. --budget 'p99<100us' --budget 'xruns<1'\n"
"      --spike-threshold US  explain every sample above US (default: the run's\n"
"                          --threshold, else the board's latency budget, else\n"
"                          each probe's p99.9; noise: every gap)\n"
"      --top N             spikes listed in full (default 10)\n"
"      --no-trace          do not read RUN/trace.dat (no spikes, NO_HZ)\n"
"      --judge kernel|raw  judge budgets and the threshold on the latency figures\n"
"                          with the host's time taken off each spike (kernel-\n"
"                          attributable), or on the raw ones; default kernel on a\n"
"                          virtual machine (sysinfo's hypervisor), else raw\n"
"  -h, --help              this text\n"
"\n"
"With RUN/trace.dat: every spike explained from the kernel trace (idle exit,\n"
"IRQs, softirqs, timers, tasks, unexplained time), latency by the idle state\n"
"woken from, and NO_HZ effectiveness (ticks and wake-ups per second by source).\n"
"Power (RUN/power, or estimated from RUN/trace.dat with the board's energy\n"
"model), idle-state residency and the board's budgets are added.\n"
"\n"
"The first lines are the verdict: FAIL when a check broke (a budget of the\n"
"board, of the run or its scenario, one given here, or the threshold: no\n"
"sample of a wake-up probe above it), INCOMPLETE when none broke but the run\n"
"cannot pass (interrupted, killed, truncated, or its trace unreadable), PASS\n"
"when every check held, NO VERDICT when none applies.\n"
"\n"
"Exit status: 0 PASS or NO VERDICT, 1 FAIL, 2 INCOMPLETE or error (an\n"
"unreadable, truncated or malformed run, an unknown board).\n";

int cmd_analyze(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threshold", required_argument, NULL, 't' },
		{ "histogram", no_argument,       NULL, 'H' },
		{ "probe",     required_argument, NULL, 'P' },
		{ "json",      no_argument,       NULL, 'j' },
		{ "no-write",  no_argument,       NULL, 'n' },
		{ "help",      no_argument,       NULL, 'h' },
		{ "board",     required_argument, NULL, 'B' },
		{ "spike-threshold", required_argument, NULL, 'S' },
		{ "top",       required_argument, NULL, 'T' },
		{ "no-trace",  no_argument,       NULL, 'X' },
		{ "budget",    required_argument, NULL, 'U' },
		{ "judge",     required_argument, NULL, 'J' },
		{ NULL, 0, NULL, 0 },
	};
	const char *budgets[64];
	size_t nbudgets = 0;
	struct lw_analyze_opts ao;
	uint64_t v;
	int status, partial;
	int histogram = 0, as_json = 0, write = 1, probe = LW_SAMPLE_CYCLIC, c;
	struct lw_rundir rd;
	struct lw_summary sum;
	json_t *doc;
	char path[PATH_MAX];
	int ret = LW_EXIT_OK;

	lw_analyze_opts_default(&ao);

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":nh", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (lw_parse_usecs("--threshold", optarg, &ao.threshold_ns) < 0)
				return LW_EXIT_ERROR;
			ao.have_threshold = 1;
			break;
		case 'H':
			histogram = 1;
			break;
		case 'S':
			if (lw_parse_usecs("--spike-threshold", optarg, &v) < 0)
				return LW_EXIT_ERROR;
			for (int p = 1; p < LW_SAMPLE_MAX; p++)
				ao.tp.threshold_ns[p] = v ? v : 1;
			break;
		case 'T':
			if (lw_parse_uint("--top", optarg, 0, 100000, &v) < 0)
				return LW_EXIT_ERROR;
			ao.tp.top = (size_t)v;
			break;
		case 'X':
			ao.trace = 0;
			break;
		case 'U':
			if (nbudgets == sizeof(budgets) / sizeof(budgets[0]))
				return error("--budget: at most %zu budgets", nbudgets), LW_EXIT_ERROR;
			if (lw_rule_parse_lang(&lw_lang_budget, optarg, &(struct lw_rule){ 0 }) < 0)
				return LW_EXIT_ERROR;
			budgets[nbudgets++] = optarg;
			break;
		case 'P':
			probe = lw_probe_by_name(optarg);
			if (probe < 0)
				return error("--probe: unknown probe '%s'", optarg), LW_EXIT_ERROR;
			break;
		case 'j':
			as_json = 1;
			break;
		case 'n':
			write = 0;
			break;
		case 'B':
			ao.board = optarg;
			break;
		case 'J':
			if (lw_judge_parse("--judge", optarg, &ao.judge) < 0)
				return LW_EXIT_ERROR;
			break;
		case 'h':
			fputs(usage, stdout);
			return LW_EXIT_OK;
		default:	/* ':' or an unknown option */
			lw_opt_error(c, argv, "analyze");
			return LW_EXIT_ERROR;
		}
	}
	if (optind != argc - 1) {
		error(optind == argc ? "no run directory given (see 'latwatt analyze --help')" :
		      "one run directory at a time (see 'latwatt analyze --help')");
		return LW_EXIT_ERROR;
	}
	if (lw_rundir_open(&rd, argv[optind]) < 0)
		return LW_EXIT_ERROR;
	if (histogram)
		ao.trace = 0;	/* the histogram alone */
	ao.budgets = budgets;
	ao.nbudgets = nbudgets;
	status = lw_analyze_run(&rd, &ao, &sum, &doc, &partial);
	if (status < 0) {
		lw_rundir_close(&rd);
		return LW_EXIT_ERROR;
	}
	ret = status;
	if (!strcmp(lw_manifest_status(rd.manifest), "truncated"))
		error("%s: truncated: %s; what is there is analyzed", rd.path,
		      json_string_value(json_object_get(rd.manifest, "status_reason")) ?: "?");
	if (histogram) {
		if (lw_summary_print_histogram(&sum, (unsigned)probe, stdout) < 0)
			ret = LW_EXIT_ERROR;
	} else if (!as_json) {
		struct lw_checks cs = { 0 };
		struct lw_run_verdict rv;

		if (lw_checks_from_json(json_object_get(doc, "checks"), "analysis", &cs) < 0 ||
		    lw_verdict_from_json(json_object_get(doc, "verdict"), "analysis", &rv) < 0)
			ret = LW_EXIT_ERROR;
		else
			lw_report_text_run(stdout, doc, &rv, &cs, ao.tp.top);
		lw_checks_free(&cs);
	}
	if (as_json && !histogram) {
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
	}
	if (write && lw_json_save(doc, lw_rundir_file(&rd, "analysis.json", path, sizeof(path))) < 0)
		ret = LW_EXIT_ERROR;
	json_decref(doc);
	lw_summary_free(&sum);
	lw_rundir_close(&rd);
	return ret;
}
