/* SPDX-License-Identifier: GPL-2.0-only */
/* Internal to reports/: the page being written (HTML that is also
 * well-formed XML) and small JSON readers. */
#ifndef LW_REPORT_PAGE_H
#define LW_REPORT_PAGE_H

#include <jansson.h>
#include <stdio.h>

#include "lib/json.h"
#include "reports/report.h"

struct page {
	FILE *f;
	const struct lw_report_opts *o;
	int nplots;		/* drawn */
	int failed;		/* plots gnuplot could not draw */
};

/* Text, escaped. */
void lw_pg_text(struct page *pg, const char *s);
void lw_pg_textf(struct page *pg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Raw markup (trusted, already escaped). */
void lw_pg_raw(struct page *pg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lw_pg_begin(struct page *pg, const char *title);
void lw_pg_end(struct page *pg);
/* <section id=@id data-section=@id data-state=...><h2>@title</h2> */
void lw_pg_section(struct page *pg, const char *id, const char *title, int recorded);
void lw_pg_section_end(struct page *pg);
/* "Not recorded in this run" with the analysis.json keys a producer fills. */
void lw_pg_missing(struct page *pg, const char *what, const char *keys);
/* A figure: the plot drawn by gnuplot from @script, or a note that plots
 * need gnuplot.  @script is freed. */
void lw_pg_figure(struct page *pg, const char *id, char *script, int w, int h, const char *caption);
/* Header row / cell helpers. */
void lw_pg_th(struct page *pg, const char *s);
void lw_pg_td(struct page *pg, const char *s);
/* A table row "key: value" of a definition table. */
void lw_pg_kv(struct page *pg, const char *key, const char *value);
/* A cell holding a latency (shown in us) with its exact value in ns as data
 * attributes: data-key, data-value and any extra attributes in @attrs. */
void lw_pg_td_ns(struct page *pg, const char *attrs, const char *key, double ns);

/* The checks of @suite ("budgets", "compare") as a table. */
void lw_report_checks_table(struct page *pg, const struct lw_checks *cs, const char *suite);

/* A power rail of analysis.json: a figure in mW from "average_w" (etc.,
 * watts, as power/power.h summarizes) or "mean_mw"; NAN when absent.  And
 * whether it was "measured" or "estimated" ("unlabelled" otherwise). */
double lw_rail_mw(const json_t *rail, const char *w_key, const char *mw_key);
const char *lw_rail_kind(const json_t *rail);

/* A gnuplot script in memory. */
struct lw_script {
	char *buf;
	size_t len;
	FILE *f;
};
FILE *lw_script_open(struct lw_script *s);
char *lw_script_close(struct lw_script *s);	/* the text, caller frees */

/* Plot scripts shared by run and comparison pages (data from analysis.json
 * histograms): write into @f. @series: histogram objects, @titles: names. */
void lw_gp_histogram(FILE *f, const json_t *const *hist, const char *const *titles, size_t n,
		  int bold_last);
void lw_gp_cdf(FILE *f, const json_t *const *hist, const char *const *titles, size_t n,
	    int bold_last, const json_t *marks);
/* The same with a style per series (@style[s]: its colour, "#rrggbb", its
 * title or NULL for none, bold) instead of @titles and @bold_last, and the
 * legend placed by @key (gnuplot's "set key" arguments; NULL: the default). */
struct lw_gp_style {
	const char *color;
	const char *title;
	int bold;
};
void lw_gp_histogram_styled(FILE *f, const json_t *const *hist, const char *const *titles, size_t n,
			 int bold_last, const struct lw_gp_style *style, const char *key);
void lw_gp_cdf_styled(FILE *f, const json_t *const *hist, const char *const *titles, size_t n,
		   int bold_last, const json_t *marks, const struct lw_gp_style *style, const char *key);

#endif
