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
#include "lib/metrics.h"
#include "lib/safefile.h"
#include "lib/parse.h"
#include "reports/report.h"

/* The usage text: the formats' lines (print_usage()) go between the two. */
static const char usage_head[] =
"usage: latwatt report [OPTIONS] RUN\n"
"       latwatt report [OPTIONS] --compare RUN_A RUN_B [RUN...]\n"
"       latwatt report [OPTIONS] --compare COMPARISON.json\n"
"\n"
"Reports of the run directory RUN, or of runs compared (the first is the\n"
"baseline; a directory of repeats is a group of its runs; or the output of\n"
"'latwatt compare -o'): one self-contained HTML file with plots drawn by\n"
"gnuplot, JUnit XML and LAVA results for CI, and a Markdown summary short\n"
"enough for a merge-request comment.\n"
"\n";
/* After the formats; then the names --budget takes, from the metric
 * registry (print_usage()), then usage_tail. */
static const char usage_budget[] =
"      --compare           compare runs, or read a comparison JSON\n"
"      --budget SPEC       a budget to check, repeatable: [PROBE.]STAT<VALUE or <=,\n";
static const char usage_tail[] =
"                          e.g. --budget 'p99<100us' --budget 'cyclic.max<=1ms'\n"
"      --board NAME        check the budgets of board NAME (default: each run's own\n"
"                          board, boards/NAME.yaml or RUN/board.yaml)\n"
"      --judge kernel|raw  judge the run's latency budgets and threshold on the\n"
"                          kernel-attributable figures (the host's time taken off\n"
"                          each spike) or on the raw ones (default: as analyze\n"
"                          judged them, kernel on a virtual machine)\n"
"      --tolerance PCT     comparison: a group significantly worse than the baseline\n"
"                          by more than PCT % fails (default 10); with one run a\n"
"                          side there is no verdict: undecided\n"
"      --points N          time buckets of the latency-over-time plot (default 1000)\n"
"      --no-plots          tables only, even when gnuplot is installed\n"
"  -h, --help              this text\n"
"\n"
"A run's report opens with its verdict, the same as 'latwatt analyze' gives\n"
"(with the budgets given here added).\n"
"\n"
"Exit status: 0 written, and the run's verdict PASS or NO VERDICT (for a\n"
"comparison: every budget and rule met; an undecided comparison rule neither\n"
"breaks nor meets); 1 a budget or rule broken (FAIL); 2 error, or the run\n"
"INCOMPLETE.\n";

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

#define HELP_COL 26
#define HELP_WIDTH 84	/* the column after which --budget's names wrap */

/* "-o" or "--junit", then @arg's " FILE" or " -" when given. */
static const char *format_opt(const struct lw_report_format *fm, const char *arg, char *buf,
			      size_t len)
{
	if (fm->shortopt)
		snprintf(buf, len, "-%c%s%s", fm->shortopt, arg ? " " : "", arg ? arg : "");
	else
		snprintf(buf, len, "--%s%s%s", fm->opt, arg ? " " : "", arg ? arg : "");
	return buf;
}

/* @text and "; see RULES AND METRICS in latwatt(1)" in lines of the help
 * column, broken at blanks. */
static void print_wrapped(const char *text)
{
	char all[1024];
	size_t col = 0;

	snprintf(all, sizeof(all), "%s; see RULES AND METRICS in latwatt(1)", text);
	for (const char *w = all; *w;) {
		size_t l = strcspn(w, " ");

		if (col && col + 1 + l > HELP_WIDTH - HELP_COL) {
			putchar('\n');
			col = 0;
		}
		printf("%*s%.*s", col ? 1 : HELP_COL, "", (int)l, w);
		col += (col ? 1 : 0) + l;
		w += l;
		w += strspn(w, " ");
	}
	putchar('\n');
}

static void print_usage(void)
{
	char col[64], names[512];

	fputs(usage_head, stdout);
	for (size_t i = 0; i < lw_report_nformats; i++) {
		const struct lw_report_format *fm = &lw_report_formats[i];

		if (fm->shortopt)
			snprintf(col, sizeof(col), "-%c, --%s%s%s", fm->shortopt, fm->opt,
				 fm->arg ? " " : "", fm->arg ? fm->arg : "");
		else
			snprintf(col, sizeof(col), "    --%s%s%s", fm->opt, fm->arg ? " " : "",
				 fm->arg ? fm->arg : "");
		printf("  %-*s%s", HELP_COL - 2, col, strlen(col) < HELP_COL - 2 ? "" : "  ");
		for (const char *h = fm->help;;) {
			size_t l = strcspn(h, "\n");

			printf("%.*s\n", (int)l, h);
			if (!h[l])
				break;
			h += l + 1;
			printf("%*s", HELP_COL, "");
		}
	}
	fputs(usage_budget, stdout);
	print_wrapped(lw_metric_budget_help(names, sizeof(names)));
	fputs(usage_tail, stdout);
}

/* "-o FILE, --junit FILE, --markdown FILE, --lava or --lava-metrics" */
static const char *format_list(char *buf, size_t len)
{
	char o[64];
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < lw_report_nformats && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s",
				      !i ? "" : i + 1 < lw_report_nformats ? ", " : " or ",
				      format_opt(&lw_report_formats[i], lw_report_formats[i].arg, o,
						 sizeof(o)));
	return buf;
}

/* The formats' options (a format's option is its short option, or 256 + its
 * index) followed by @other (@size bytes, NULL-ended), and the short ones. */
static void format_options(struct option *opts, char *shortopts, const struct option *other,
			   size_t size)
{
	size_t ns = 0;

	shortopts[ns++] = ':';
	for (size_t i = 0; i < lw_report_nformats; i++) {
		const struct lw_report_format *fm = &lw_report_formats[i];

		opts[i] = (struct option){ fm->opt, fm->arg ? required_argument : no_argument, NULL,
					   fm->shortopt ? fm->shortopt : (int)(256 + i) };
		if (fm->shortopt) {
			shortopts[ns++] = fm->shortopt;
			if (fm->arg)
				shortopts[ns++] = ':';
		}
	}
	memcpy(opts + lw_report_nformats, other, size);
	shortopts[ns++] = 'h';
	shortopts[ns] = 0;
}

/* Some format asked for (the file, or "" for a flag, in @want), and no two
 * on stdout; *@plots set when one draws plots.  -1 after error(). */
static int check_wanted(const char *const *want, int *plots)
{
	const char *dash = NULL;
	char list[256], a[64], b[64];
	int nformats = 0;

	for (size_t i = 0; i < lw_report_nformats; i++) {
		if (!want[i])
			continue;
		nformats++;
		*plots |= lw_report_formats[i].flags & LW_RF_PLOTS;
		if (!(lw_report_formats[i].flags & LW_RF_DASH) || strcmp(want[i], "-"))
			continue;
		if (dash)
			return error("%s and %s would both write to stdout", dash,
				     format_opt(&lw_report_formats[i], "-", b, sizeof(b)));
		dash = format_opt(&lw_report_formats[i], "-", a, sizeof(a));
	}
	if (!nformats)
		return error("nothing to write: give %s", format_list(list, sizeof(list)));
	return 0;
}

/* Each format asked for in @want written from @in, in the table's order. */
static int write_wanted(const char *const *want, const struct lw_report_in *in)
{
	struct out out = { 0 };
	int ok;

	for (size_t i = 0; i < lw_report_nformats; i++) {
		const struct lw_report_format *fm = &lw_report_formats[i];
		lw_report_fn *write = in->run ? fm->run : fm->compare;

		if (!want[i])
			continue;
		if (!fm->arg) {
			if (write(stdout, in) != 0)
				return -1;
			continue;
		}
		if (out_open(&out, want[i]) < 0)
			return -1;
		ok = write(out.f, in) == 0;
		if (out_close(&out, ok) < 0 || !ok)
			return -1;
	}
	return 0;
}

/* A run's checks into @checks: its verdict, then its own checks (a run that
 * is not whole passes none: lw_checks_unjudged()). */
static int judge_run(struct lw_rrun *run, const char *board, const char **budget_text,
		     size_t nbudgets, enum lw_judge judge, struct lw_checks *checks)
{
	if (lw_rrun_judge(run, board, budget_text, nbudgets, judge) < 0 ||
	    lw_verdict_check(&run->verdict, checks) < 0)
		return -1;
	for (size_t i = 0; i < run->checks.n; i++)
		if (lw_checks_add(checks, &run->checks.c[i]) < 0)
			return -1;
	return 0;
}

/* A comparison's checks into @checks: its rules, then the budgets (the
 * board's and @budgets) of every run compared. */
static int judge_comparison(struct lw_comparison *cmp, const char *board,
			    const struct lw_rbudget *budgets, size_t nbudgets,
			    struct lw_checks *checks)
{
	if (lw_comparison_checks(cmp, checks) < 0)
		return -1;
	/* budgets hold for every run compared */
	for (size_t ri = 0; ri < cmp->nrun; ri++) {
		char rn[256];

		lw_cmp_run_name(cmp, ri, rn, sizeof(rn));
		if (lw_board_checks(&cmp->run[ri], board, rn, checks) < 0)
			return -1;
		for (size_t i = 0; i < nbudgets; i++) {
			size_t first = checks->n;

			if (lw_rbudget_eval(&budgets[i], &cmp->run[ri], checks) < 0)
				return -1;
			for (size_t k = first; k < checks->n; k++) {
				size_t l = strlen(checks->c[k].name);

				snprintf(checks->c[k].name + l, sizeof(checks->c[k].name) - l, ".%s",
					 rn);
			}
		}
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	/* a format's option is its short option, or 256 + its index */
	enum { OPT_COMPARE = 256 + LW_REPORT_MAX_FORMATS, OPT_BUDGET, OPT_TOLERANCE, OPT_POINTS,
	       OPT_NO_PLOTS, OPT_BOARD, OPT_JUDGE };
	static const struct option other[] = {
		{ "compare",   no_argument,       NULL, OPT_COMPARE },
		{ "budget",    required_argument, NULL, OPT_BUDGET },
		{ "tolerance", required_argument, NULL, OPT_TOLERANCE },
		{ "points",    required_argument, NULL, OPT_POINTS },
		{ "no-plots",  no_argument,       NULL, OPT_NO_PLOTS },
		{ "board",     required_argument, NULL, OPT_BOARD },
		{ "judge",     required_argument, NULL, OPT_JUDGE },
		{ "help",      no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option opts[LW_REPORT_MAX_FORMATS + sizeof(other) / sizeof(other[0])];
	char shortopts[2 * LW_REPORT_MAX_FORMATS + 4], a[64];
	const char *want[LW_REPORT_MAX_FORMATS] = { NULL };	/* the file, or "" for a flag */
	const char *board = NULL;
	enum lw_judge judge = LW_JUDGE_AUTO;
	int compare = 0, no_plots = 0, c, ret = LW_EXIT_ERROR;
	static struct lw_rbudget budgets[MAX_BUDGETS];
	const char *budget_text[MAX_BUDGETS];
	size_t nbudgets = 0;
	double tolerance = 10;
	uint64_t points = 1000;
	struct lw_report_opts ro;
	struct lw_checks checks = { 0 };
	struct lw_rrun run = { 0 };
	struct lw_comparison cmp = { 0 };
	int have_run = 0, have_cmp = 0, plots = 0;
	struct lw_report_in in;

	format_options(opts, shortopts, other, sizeof(other));

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		size_t fi;

		for (fi = 0; fi < lw_report_nformats; fi++)
			if (c == opts[fi].val)
				break;
		if (fi < lw_report_nformats) {
			want[fi] = lw_report_formats[fi].arg ? optarg : "";
			continue;
		}
		switch (c) {
		case OPT_COMPARE:
			compare = 1;
			break;
		case OPT_BUDGET:
			if (nbudgets == MAX_BUDGETS)
				return error("--budget: at most %d budgets", MAX_BUDGETS), LW_EXIT_ERROR;
			budget_text[nbudgets] = optarg;
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
		case OPT_JUDGE:
			if (lw_judge_parse("--judge", optarg, &judge) < 0)
				return LW_EXIT_ERROR;
			break;
		case 'h':
			print_usage();
			return LW_EXIT_OK;
		default:	/* ':' or an unknown option */
			lw_opt_error(c, argv, "report");
			return LW_EXIT_ERROR;
		}
	}
	if (check_wanted(want, &plots) < 0)
		return LW_EXIT_ERROR;
	if (!compare && optind != argc - 1) {
		error(optind == argc ? "no run directory given (see 'latwatt report --help')" :
		      "one run directory at a time, or --compare (see 'latwatt report --help')");
		return LW_EXIT_ERROR;
	}
	for (size_t i = 0; i < lw_report_nformats; i++)
		if (compare && want[i] && !lw_report_formats[i].compare) {
			error("%s reports one run, not a comparison",
			      format_opt(&lw_report_formats[i], NULL, a, sizeof(a)));
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
	if (!no_plots && !ro.plots && plots)
		warning("gnuplot is not on PATH: the report has tables but no plots "
			"(install gnuplot-nox)");

	if (!compare) {
		if (lw_rrun_load(&run, argv[optind]) < 0)
			goto out;
		have_run = 1;
		if (judge_run(&run, board, budget_text, nbudgets, judge, &checks) < 0)
			goto out;
	} else {
		if (argc - optind == 1 ? lw_comparison_from_json(&cmp, argv[optind], tolerance / 100)
				       : lw_comparison_from_runs(&cmp, argv + optind,
								 (size_t)(argc - optind),
								 tolerance / 100))
			goto out;
		have_cmp = 1;
		if (judge_comparison(&cmp, board, budgets, nbudgets, &checks) < 0)
			goto out;
	}

	in = (struct lw_report_in){
		.run = have_run ? &run : NULL, .cmp = have_cmp ? &cmp : NULL, .checks = &checks,
		.ro = &ro,
		.name = have_run ? run.path : argc - optind == 1 ? argv[optind] : "runs compared",
	};
	if (write_wanted(want, &in) < 0)
		goto out;
	if (have_run)
		ret = lw_verdict_exit(&run.verdict);
	else
		ret = lw_checks_count(&checks, LW_FAIL) ? LW_EXIT_FAIL : LW_EXIT_OK;
out:
	if (have_run)
		lw_rrun_free(&run);
	if (have_cmp)
		lw_comparison_free(&cmp);
	lw_checks_free(&checks);
	return ret;
}
