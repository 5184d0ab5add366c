// SPDX-License-Identifier: GPL-2.0-only
/* latwatt report: HTML, JUnit, LAVA and Markdown reports of a run or of a
 * comparison of runs. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "lib/error.h"
#include "lib/safefile.h"
#include "lib/parse.h"
#include "reports/report.h"

static const char usage[] =
"usage: latwatt report [OPTIONS] RUN\n"
"       latwatt report [OPTIONS] --compare RUN_A RUN_B [RUN...]\n"
"       latwatt report [OPTIONS] --compare COMPARISON.json\n"
"\n"
"Reports of the run directory RUN, or of runs compared (the first is the\n"
"baseline; or the output of 'latwatt compare -o'): one self-contained HTML\n"
"file with plots drawn by gnuplot, JUnit XML and LAVA results for CI, and a\n"
"Markdown summary short enough for a merge-request comment.\n"
"\n"
"  -o, --output FILE       write the HTML report to FILE ('-': stdout)\n"
"      --junit FILE        write JUnit XML: a test case per budget or comparison rule\n"
"      --markdown FILE     write a Markdown summary ('-': stdout)\n"
"      --lava              print lava-test-case lines, or call lava-test-case\n"
"                          when it is on PATH\n"
"      --lava-metrics      the same for the run's key figures (latency statistics,\n"
"                          samples, missed periods, workload misses, power): one\n"
"                          passing test case each, with its measurement\n"
"      --compare           compare runs, or read a comparison JSON\n"
"      --budget SPEC       a budget to check, repeatable: [PROBE.]STAT<VALUE or <=,\n"
"                          STAT one of min mean p50 p90 p99 p99.9 p99.99 max (us,\n"
"                          or with ns ms s), missed dropped over xruns dropped_frames\n"
"                          deadline_misses (counts), power (mW, or W),\n"
"                          energy_per_period (uJ); see RULES AND METRICS in\n"
"                          latwatt(1)\n"
"                          e.g. --budget 'p99<100us' --budget 'cyclic.max<=1ms'\n"
"      --board NAME        check the budgets of board NAME (default: each run's own\n"
"                          board, boards/NAME.yaml or RUN/board.yaml)\n"
"      --tolerance PCT     comparison: a run significantly worse than the baseline\n"
"                          by more than PCT % fails (default 10)\n"
"      --points N          time buckets of the latency-over-time plot (default 1000)\n"
"      --no-plots          tables only, even when gnuplot is installed\n"
"  -h, --help              this text\n"
"\n"
"Exit status: 0 written and every budget and rule met, 1 a budget or rule\n"
"broken, 2 error.\n";

#define MAX_BUDGETS 64

struct out {
	const char *path;
	struct lw_atomic a;
	FILE *f;
};

static int out_open(struct out *o, const char *path)
{
	o->path = path;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	o->f = lw_atomic_fopen(&o->a, path, 0644);
	return o->f ? 0 : -1;
}

/* Close, and put in place if @ok; else remove what was written. */
static int out_close(struct out *o, int ok)
{
	int ret = 0;

	if (!o->f || o->f == stdout)
		return o->f && fflush(stdout) == EOF ? error_errno("cannot write to stdout") : 0;
	if (ok)
		ret = lw_atomic_commit(&o->a);
	else
		lw_atomic_abort(&o->a);
	o->f = NULL;
	return ret;
}

static int is_file(const char *path)
{
	size_t n = strlen(path);

	return n > 5 && !strcmp(path + n - 5, ".json") && access(path, F_OK) == 0;
}

int cmd_report(int argc, char **argv)
{
	enum { OPT_JUNIT = 256, OPT_MARKDOWN, OPT_LAVA, OPT_COMPARE, OPT_BUDGET, OPT_TOLERANCE,
	       OPT_POINTS, OPT_NO_PLOTS, OPT_BOARD, OPT_LAVA_METRICS };
	static const struct option opts[] = {
		{ "output",    required_argument, NULL, 'o' },
		{ "junit",     required_argument, NULL, OPT_JUNIT },
		{ "markdown",  required_argument, NULL, OPT_MARKDOWN },
		{ "lava",      no_argument,       NULL, OPT_LAVA },
		{ "compare",   no_argument,       NULL, OPT_COMPARE },
		{ "budget",    required_argument, NULL, OPT_BUDGET },
		{ "tolerance", required_argument, NULL, OPT_TOLERANCE },
		{ "points",    required_argument, NULL, OPT_POINTS },
		{ "no-plots",  no_argument,       NULL, OPT_NO_PLOTS },
		{ "board",     required_argument, NULL, OPT_BOARD },
		{ "lava-metrics", no_argument,    NULL, OPT_LAVA_METRICS },
		{ "help",      no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *html = NULL, *junit = NULL, *markdown = NULL, *board = NULL;
	int lava = 0, lava_metrics = 0, compare = 0, no_plots = 0, c, ret = LW_EXIT_ERROR, ok = 1;
	static struct lw_rbudget budgets[MAX_BUDGETS];
	size_t nbudgets = 0;
	double tolerance = 10;
	uint64_t points = 1000;
	struct lw_report_opts ro;
	struct lw_checks checks = { 0 };
	struct lw_rrun run = { 0 };
	struct lw_comparison cmp = { 0 };
	int have_run = 0, have_cmp = 0;
	struct out out = { 0 };

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			html = optarg;
			break;
		case OPT_JUNIT:
			junit = optarg;
			break;
		case OPT_MARKDOWN:
			markdown = optarg;
			break;
		case OPT_LAVA:
			lava = 1;
			break;
		case OPT_COMPARE:
			compare = 1;
			break;
		case OPT_BUDGET:
			if (nbudgets == MAX_BUDGETS)
				return error("--budget: at most %d budgets", MAX_BUDGETS), LW_EXIT_ERROR;
			if (lw_rbudget_parse(&budgets[nbudgets++], optarg) < 0)
				return LW_EXIT_ERROR;
			break;
		case OPT_TOLERANCE:
			if (lw_parse_double("--tolerance", optarg, 0, 1000, &tolerance) < 0)
				return LW_EXIT_ERROR;
			break;
		case OPT_POINTS:
			if (lw_parse_uint("--points", optarg, 10, 100000, &points) < 0)
				return LW_EXIT_ERROR;
			break;
		case OPT_NO_PLOTS:
			no_plots = 1;
			break;
		case OPT_BOARD:
			board = optarg;
			break;
		case OPT_LAVA_METRICS:
			lava_metrics = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return LW_EXIT_OK;
		default:	/* ':' or an unknown option */
			lw_opt_error(c, argv, "report");
			return LW_EXIT_ERROR;
		}
	}
	if (!html && !junit && !markdown && !lava && !lava_metrics) {
		error("nothing to write: give -o FILE, --junit FILE, --markdown FILE, --lava or "
		      "--lava-metrics");
		return LW_EXIT_ERROR;
	}
	if (html && markdown && !strcmp(html, "-") && !strcmp(markdown, "-")) {
		error("-o - and --markdown - would both write to stdout");
		return LW_EXIT_ERROR;
	}
	if (!compare && optind != argc - 1) {
		error(optind == argc ? "no run directory given (see 'latwatt report --help')" :
		      "one run directory at a time, or --compare (see 'latwatt report --help')");
		return LW_EXIT_ERROR;
	}
	if (compare && lava_metrics) {
		error("--lava-metrics reports one run, not a comparison");
		return LW_EXIT_ERROR;
	}
	if (compare && argc - optind < 1) {
		error("--compare: give two or more run directories, or a comparison JSON");
		return LW_EXIT_ERROR;
	}
	if (compare && argc - optind == 1 && !is_file(argv[optind])) {
		error("--compare: %s is not a comparison JSON; give two or more run directories",
		      argv[optind]);
		return LW_EXIT_ERROR;
	}
	ro.points = (size_t)points;
	ro.plots = !no_plots && lw_gnuplot_available();
	if (!no_plots && !ro.plots && html)
		warning("gnuplot is not on PATH: the report has tables but no plots "
			"(install gnuplot-nox)");

	if (!compare) {
		if (lw_rrun_load(&run, argv[optind]) < 0)
			goto out;
		have_run = 1;
		if (lw_board_checks(&run, board, NULL, &checks) < 0)
			goto out;
		for (size_t i = 0; i < nbudgets; i++)
			if (lw_rbudget_eval(&budgets[i], &run, &checks) < 0)
				goto out;
	} else {
		if (argc - optind == 1 ? lw_comparison_from_json(&cmp, argv[optind], tolerance / 100)
				       : lw_comparison_from_runs(&cmp, argv + optind,
								 (size_t)(argc - optind),
								 tolerance / 100))
			goto out;
		have_cmp = 1;
		if (lw_comparison_checks(&cmp, &checks) < 0)
			goto out;
		/* budgets hold for every run compared */
		for (size_t ri = 0; ri < cmp.nrun; ri++) {
			if (lw_board_checks(&cmp.run[ri], board, cmp.run[ri].label, &checks) < 0)
				goto out;
			for (size_t i = 0; i < nbudgets; i++) {
				size_t first = checks.n;

				if (lw_rbudget_eval(&budgets[i], &cmp.run[ri], &checks) < 0)
					goto out;
				for (size_t k = first; k < checks.n; k++) {
					size_t l = strlen(checks.c[k].name);

					snprintf(checks.c[k].name + l, sizeof(checks.c[k].name) - l, ".%s",
						 cmp.run[ri].label);
				}
			}
		}
	}

	if (html) {
		if (out_open(&out, html) < 0)
			goto out;
		ok = (have_run ? lw_report_html_run(out.f, &run, &checks, &ro)
			       : lw_report_html_compare(out.f, &cmp, &checks, &ro)) == 0;
		if (out_close(&out, ok) < 0 || !ok)
			goto out;
	}
	if (junit) {
		if (out_open(&out, junit) < 0)
			goto out;
		ok = lw_report_junit(out.f, &checks, have_run ? run.path : argc - optind == 1 ?
				     argv[optind] : "runs compared") == 0;
		if (out_close(&out, ok) < 0 || !ok)
			goto out;
	}
	if (markdown) {
		if (out_open(&out, markdown) < 0)
			goto out;
		ok = (have_run ? lw_report_markdown_run(out.f, &run, &checks)
			       : lw_report_markdown_compare(out.f, &cmp, &checks)) == 0;
		if (out_close(&out, ok) < 0 || !ok)
			goto out;
	}
	if (lava && lw_report_lava(stdout, &checks, 1) < 0)
		goto out;
	if (lava_metrics) {
		struct lw_checks m = { 0 };

		ok = lw_run_metrics(&run, &m) == 0 && lw_report_lava(stdout, &m, 1) == 0;
		lw_checks_free(&m);
		if (!ok)
			goto out;
	}
	ret = lw_checks_count(&checks, LW_FAIL) ? LW_EXIT_FAIL : LW_EXIT_OK;
out:
	if (have_run)
		lw_rrun_free(&run);
	if (have_cmp)
		lw_comparison_free(&cmp);
	lw_checks_free(&checks);
	return ret;
}
