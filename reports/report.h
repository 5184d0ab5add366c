/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reports: what a run (or a comparison of runs) says, for people (one
 * self-contained HTML file with plots drawn by gnuplot) and for CI (JUnit
 * XML, LAVA test cases, a Markdown summary).
 *
 * Everything a report shows comes from the run directory: manifest.json,
 * analysis.json (computed in memory when the run was never analyzed) and
 * samples.  Sections whose data a run does not hold say "not recorded in
 * this run"; reports/README.md lists the keys each section reads.
 */
#ifndef LW_REPORT_H
#define LW_REPORT_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/checks.h"
#include "analysis/verdict.h"
#include "lib/rundir.h"
#include "lib/stats.h"

struct lw_metric;

/* ---- a run, as a report sees it ------------------------------------- */

struct lw_rrun {
	char *path;
	char *label;		/* short name for legends: directory name */
	json_t *manifest;	/* owned */
	json_t *analysis;	/* owned: analysis.json, or computed */
	int analysis_computed;	/* the run had no analysis.json */
	uint64_t start_ns;	/* manifest start.monotonic_ns (0: unknown) */
	struct lw_checks checks;	/* suite "budgets", judged (lw_rrun_judge()) */
	struct lw_run_verdict verdict;
};

int lw_rrun_load(struct lw_rrun *r, const char *path);
void lw_rrun_free(struct lw_rrun *r);
/*
 * The checks and the verdict of @r for a view: the analysis' own ("checks",
 * "verdict"), with the budgets of board @board instead of the run's board's
 * when @board is given, and the @nbudgets rules @budgets added (origin
 * "report --budget"); the verdict built again when anything was added, by
 * the same function the analysis used.  @judge (LW_JUDGE_AUTO: as the
 * analysis judged, its "judge") says what latency figures are judged on;
 * one other than the analysis' judges its checks again.  -1 after error().
 */
int lw_rrun_judge(struct lw_rrun *r, const char *board, const char *const *budgets,
		  size_t nbudgets, enum lw_judge judge);
/* The probes analysis.json has, in file order: json object of probe name ->
 * {"all":…, "cpus":[…]}; NULL when none. */
const json_t *lw_rrun_probes(const struct lw_rrun *r);
/* Run-level strings for headers ("not recorded" when absent; never NULL). */
const char *lw_rrun_str(const struct lw_rrun *r, const char *what);
/* PM QoS during the run ("held at 0 us", "system: no constraint"). */
const char *lw_rrun_pmqos(const struct lw_rrun *r, char *buf, size_t len);
/* The NO_HZ mode as far as the run records it, into @buf. */
const char *lw_rrun_nohz(const struct lw_rrun *r, char *buf, size_t len);

/* Workloads of analysis.json (workloads/summary.c): the kind ("audio",
 * "video", a stressor; "type" or "kind", else @name), the deadline misses
 * (the record kinds' keys of workloads/rkind.h, "xruns" "dropped", then
 * their metric names, "dropped_frames", then "misses"; -1 when the workload
 * has none, as stressors) and the periods or frames (the record kinds'
 * "periods" "frames", then "records" or "total"; -1 when unknown). */
const char *lw_workload_kind(const json_t *w, const char *name);
double lw_workload_misses(const json_t *w);
double lw_workload_total(const json_t *w);

/* ---- budgets -------------------------------------------------------- */


struct lw_rbudget {
	const struct lw_metric *m;	/* the registry's entry */
	char probe[32];		/* "" = every probe of the run */
	char stat[32];		/* the registry's name: p99, missed, xruns, power */
	int strict;		/* '<' rather than '<=' */
	double limit;		/* ns, count, mW or uJ */
	char origin[128];	/* "--budget p99<100us" or "boards/x.yaml:12" */
};

/* "[PROBE.]STAT OP VALUE", a rule of the one rule language
 * (analysis/failon.h, lw_lang_budget) over the figures a run's summary
 * holds: p99<100us, cyclic.max<=1ms, missed<1, dropped<=0, xruns<1,
 * dropped_frames<1, deadline_misses<1, power<=6.5W (bare latency values are
 * us, bare power mW).  OP is < or <=. */
int lw_rbudget_parse(struct lw_rbudget *b, const char *spec);

/* Checks (struct lw_check, struct lw_checks) are analysis/checks.h's. */
/* Evaluate @b against a run: one check per probe it applies to (skipped
 * when the run holds no data for it). */
int lw_rbudget_eval(const struct lw_rbudget *b, const struct lw_rrun *r, struct lw_checks *out);

/* The budgets of a board (boards/NAME.yaml; @board NULL: the run's own
 * board, see lw_board_for_run()) checked against the run by
 * lw_checks_board() (analysis/checks.h), one check each; "not measured" ones skipped.  @suffix
 * (or NULL) is appended to the names.  -1 after error() (unknown board). */
int lw_board_checks(const struct lw_rrun *r, const char *board, const char *suffix,
		    struct lw_checks *out);

/* Average power of the run in mW (the power analysis' total, else the sum
 * of its rails); -1 when not recorded. */
double lw_rrun_power_mw(const struct lw_rrun *r);
/* The run's key figures as passing checks of suite "metrics", each with its
 * measurement: per probe mean, p50, p99, p99.9, max (us) and samples,
 * missed, dropped, over (counts); per workload its misses; average power
 * (mW).  Only what the run recorded.  -1 after error(). */
int lw_run_metrics(const struct lw_rrun *r, struct lw_checks *out);

/* ---- comparison ----------------------------------------------------- */

/*
 * The comparison document of analysis/compare.c (the one engine: its
 * figures, intervals and verdicts; given run directories it is run first,
 * else read from `latwatt compare -o`), read once into what the views show:
 * groups (the runs of one system, each group a column) with their figures
 * and each run's own beneath, each group's comparison with the baseline
 * group metric by metric, and the rules.  The views render this and the
 * runs' analysis.json histograms (for plots) and nothing else.
 */
/* The figures of a probe a comparison shows, named by lw_stat_names[]:
 * p50 p90 p99 p99.9 p99.99 mean max (lib/stats.h), max last. */
#define LW_CMP_NSTAT LW_NSTAT_COMPARED

/* A figure with its interval; NAN: unknown (not recorded, not computed). */
struct lw_cfig {
	double v, lo, hi;
};

/* One metric of a group's comparison with the baseline group, as the
 * engine judged it (the strings point into the document). */
struct lw_cmetric {
	const char *name;		/* "cyclic.p99", "xruns", "idle:C1" */
	const char *probe;		/* NULL for run-wide metrics */
	const char *kind;		/* percentile, mean, max, count, power, info ... */
	const char *unit;		/* ns, count, W, fraction */
	const char *verdict;		/* better, worse, no significant difference, n/a */
	const char *note;		/* why n/a, or NULL */
	double base, value;		/* the groups' figures (a count: mean per run) */
	double base_total, total;	/* counts: summed over each group's runs */
	double rel, ci_lo, ci_hi;	/* the change the verdict is on, its interval */
	double p_adj;			/* Holm-adjusted p the verdict used; NAN: not tested */
	double mdc;			/* smallest detectable change; NAN */
	int rel_infinite;		/* the baseline is 0 */
	size_t nper[2];			/* counts: each run's, baseline group's and group's */
	double *per[2];
};

struct lw_cmp_group {
	const char *name;		/* as named: a directory of repeats, --group NAME */
	size_t first, n;		/* runs[first .. first + n) */
	/* its comparison with the baseline group (none for the baseline) */
	int compared;
	int verdicts;			/* 0: too few runs a side for any verdict */
	long repeats_needed;		/* runs a side for a --practical change; -1 */
	size_t runs[2];			/* runs of the baseline group and of this one */
	struct lw_cmetric *m;
	size_t nm;
};

struct lw_cmp_probe {
	char name[32];
	struct lw_cfig *grp;		/* [group * LW_CMP_NSTAT + stat]: the group's figure */
	struct lw_cfig *run;		/* [run * LW_CMP_NSTAT + stat]: each run's own */
	double *count;			/* [run]: samples */
	const struct lw_cmetric **m;	/* [group * LW_CMP_NSTAT + stat]; NULL: baseline, none */
};

struct lw_comparison {
	struct lw_rrun *run;		/* every run, in group order */
	size_t nrun;
	struct lw_cmp_group *group;
	size_t ngroup;
	size_t baseline;		/* index of the baseline group */
	struct lw_cmp_probe *probe;
	size_t nprobe;
	double *power_w;		/* [run]: average power, W; NAN: not recorded */
	const char **power_kind;	/* [run]: measured, estimated, or NULL */
	const char **cause;		/* every spike cause a run names, largest share first */
	size_t ncause;
	double *share;			/* [run * ncause + cause]: share; NAN: no causes */
	int causes_computed;		/* some from the report's analysis, not compare's */
	double alpha, practical, conf;	/* the engine's settings */
	double tolerance;		/* allowed relative worsening, 0.10 = 10 % */
	json_t *doc;			/* the comparison document */
	char source[16];		/* "runs" or "comparison" */
};

/* From run directories (each a group; a directory of repeats a group of its
 * runs), through analysis/compare.h. */
int lw_comparison_from_runs(struct lw_comparison *c, char **paths, size_t n, double tolerance);
/* From `latwatt compare -o` output: its runs are loaded from their paths. */
int lw_comparison_from_json(struct lw_comparison *c, const char *path, double tolerance);
void lw_comparison_free(struct lw_comparison *c);
/* Run @ri as checks name it: its group's name, and its own within a group
 * of more ("A/run-02"). */
const char *lw_cmp_run_name(const struct lw_comparison *c, size_t ri, char *buf, size_t len);
/* A group's metric named @name ("cyclic.over:50us"), or NULL. */
const struct lw_cmetric *lw_cmp_metric(const struct lw_cmp_group *g, const char *name);
/*
 * The comparison's answer in at most @max lines of @len bytes into @lines:
 * per compared group its verdicts (worse and better metrics, the first few
 * and "first N of M"), no significant difference, or no verdict and why.
 * Returns the number of lines.
 */
size_t lw_cmp_summary(const struct lw_comparison *c, char (*lines)[256], size_t max);
/* The comparison rules as checks: the document's rules (--fail-on), else
 * "no percentile worse than the baseline by more than the tolerance" per
 * compared group, probe and percentile; undecided ones skipped with why. */
int lw_comparison_checks(const struct lw_comparison *c, struct lw_checks *out);
/* How verdicts are reached, as the man page says it (LATWATT COMPARE):
 * paragraphs, NULL-ended; tests/unit/test_reports.c checks them against
 * doc/latwatt.1. */
extern const char *const lw_cmp_method[];

/* ---- plots (gnuplot) ------------------------------------------------ */

/* 1 when a gnuplot executable is on PATH. */
int lw_gnuplot_available(void);
/*
 * Run gnuplot on @script (terminal and output are set here: svg of
 * @width x @height) and return the <svg> element, its XML prolog removed,
 * every id prefixed with @id (so many plots share a page) and the
 * attributes class="plot" data-plot="@id" added.  NULL after error().
 */
char *lw_gnuplot_svg(const char *script, const char *id, int width, int height);
/* Turn a whole SVG document into an embeddable element (exposed for tests). */
char *lw_svg_embed(const char *svg, const char *id);

/* ---- the verdict block ---------------------------------------------- */

#define LW_VERDICT_LINES 5

/* One line of the verdict block: "verdict FAIL 1 of 3 checks broken",
 * "audio FAIL 4 xruns in 7496 periods (...)", "worst 2224.0 us (...)". */
struct lw_vline {
	char label[40];
	char result[16];	/* "PASS", "FAIL", "NO VERDICT", or "" */
	char text[512];
};

/* The lines of the verdict block of @v (at most LW_VERDICT_LINES): the
 * result, a line per workload with deadlines, the worst latency and its
 * cause, the broken checks no workload's line names.  Every view words the
 * verdict through this. */
size_t lw_verdict_lines(const struct lw_run_verdict *v, struct lw_vline *out);
/* The verdict as one check of suite "verdict" (the CI views' first test
 * case): PASS passes, FAIL and INCOMPLETE fail, NO VERDICT is skipped. */
int lw_verdict_check(const struct lw_run_verdict *v, struct lw_checks *out);
/* The block as text (the first lines of `latwatt analyze`). */
void lw_verdict_print(FILE *f, const struct lw_run_verdict *v);

/* The text of `latwatt analyze` for analysis document @doc: the verdict
 * @v, then the details, the checks @cs last; @top spikes in full. */
void lw_report_text_run(FILE *out, const json_t *doc, const struct lw_run_verdict *v,
			const struct lw_checks *cs, size_t top);
/* The text of `latwatt compare` for comparison document @doc (also
 * `latwatt bisect`'s evidence). */
void lw_compare_print(const json_t *doc, FILE *out);

/* ---- output --------------------------------------------------------- */

/* XML-escape @s (text and attribute values); invalid control characters
 * become U+FFFD. */
void lw_xml_escape(FILE *f, const char *s);
/* Untrusted text for gnuplot: lw_gp_quote in commands (single quotes, which
 * gnuplot never expands), lw_gp_datum inside an inline data block (double
 * quotes, the only string syntax of data; data is never expanded). */
void lw_gp_quote(FILE *f, const char *s);
void lw_gp_datum(FILE *f, const char *s);

struct lw_report_opts {
	size_t points;		/* time buckets of the latency-over-time plot */
	int plots;		/* 0: tables only (no gnuplot, or --no-plots) */
};

/* What a format's writer is given (cmd/report.c's table of formats): one
 * run, or runs compared. */
struct lw_report_in {
	const struct lw_rrun *run;		/* NULL for a comparison */
	const struct lw_comparison *cmp;	/* NULL for one run */
	const struct lw_checks *checks;		/* budgets and rules, judged */
	const struct lw_report_opts *ro;
	const char *name;			/* what is reported: RUN, COMPARISON.json */
};
/* A writer in that table: 0, or -1 after error(). */
typedef int lw_report_fn(FILE *f, const struct lw_report_in *in);

/* The writers of the formats (lw_report_formats[]), one signature. */
lw_report_fn lw_report_html_run, lw_report_html_compare;
lw_report_fn lw_report_junit;			/* the run's state a property of each suite */
lw_report_fn lw_report_markdown_run, lw_report_markdown_compare;
lw_report_fn lw_report_lava_checks;		/* the checks */
lw_report_fn lw_report_lava_metrics;		/* the run's key figures (lw_run_metrics()) */
/* latwatt tune's page from its tune.json document (reports/tune.c). */
int lw_report_tune_html(FILE *f, const json_t *doc, const struct lw_report_opts *ro);
/* lava-test-case lines on @f, or through the lava-test-case helper when it
 * is on PATH and @use_helper. */
int lw_report_lava(FILE *f, const struct lw_checks *cs, int use_helper);

/*
 * The formats `latwatt report` writes, in this order.  With an @arg the
 * format goes to the file its option names ('-': stdout, when LW_RF_DASH);
 * without, the option is a flag and the format goes to stdout.  @help: the
 * --help text, its lines after the first indented.  A new format is a writer
 * of type lw_report_fn and a line in reports/formats.c.
 */
enum {
	LW_RF_DASH  = 1 << 0,	/* '-' is stdout, said in its help; two such cannot share it */
	LW_RF_PLOTS = 1 << 1,	/* draws plots: says so when gnuplot is missing */
};
struct lw_report_format {
	const char *opt;		/* long option */
	char shortopt;			/* or 0 */
	const char *arg;		/* "FILE", or NULL: a flag */
	unsigned flags;			/* LW_RF_* */
	lw_report_fn *run, *compare;	/* compare NULL: one run only */
	const char *help;
};
#define LW_REPORT_MAX_FORMATS 16
extern const struct lw_report_format lw_report_formats[];
extern const size_t lw_report_nformats;

/* "123.4" us, with a sensible number of decimals. */
char *lw_fmt_us(double ns, char *buf, size_t len);

/*
 * The host's part of a run, worded once for every view, from analysis.json
 * alone: on a virtual machine (or where the host took time), the "host"
 * line (what the host took from the spikes), what the budgets were judged
 * on ("judge"), and one "kernel-attributable PROBE: p99 ..us (raw ..), ..."
 * line per probe.  Up to @max lines into @line; how many.
 */
#define LW_HOST_LINE 320
size_t lw_host_lines(const json_t *doc, char (*line)[LW_HOST_LINE], size_t max);

/*
 * The hwnoise probe's per-period figures (analysis.json "hwnoise", the
 * osnoise tracer's with interrupts off), worded once for every view: one
 * line per CPU.  Up to @max lines into @line; how many (0 without them).
 */
size_t lw_hwnoise_lines(const json_t *doc, char (*line)[LW_HOST_LINE], size_t max);

#endif
