// SPDX-License-Identifier: GPL-2.0-only
/* The HTML page (well-formed XML, inline SVG, no external resource) and the
 * histogram and distribution plots both kinds of report draw. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/stats.h"
#include "reports/page.h"

static const char css[] =
"body{font-family:sans-serif;margin:1.5em auto;max-width:75em;color:#222;padding:0 1em}\n"
"h1{font-size:1.5em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;margin-top:1.6em}\n"
"table{border-collapse:collapse;margin:.6em 0}\n"
"th,td{border:1px solid #ccc;padding:.15em .5em;text-align:right;font-variant-numeric:tabular-nums}\n"
"th{background:#f0f0f0}td.l,th.l{text-align:left}\n"
"table.kv td{text-align:left}table.kv td:first-child{font-weight:bold;white-space:nowrap}\n"
"code,.mono{font-family:monospace;word-break:break-all}\n"
"figure{margin:1em 0}figcaption{font-size:.9em;color:#555}\n"
"svg.plot{max-width:100%;height:auto;border:1px solid #eee}\n"
".pass{color:#060;font-weight:bold}.fail{color:#b00;font-weight:bold}.skip{color:#777}\n"
".missing,.noplot{color:#777;font-style:italic}\n"
".verdict{font-size:1.2em;padding:.3em .6em;display:inline-block;border-radius:.2em}\n"
".verdict.pass{background:#e3f5e3}.verdict.fail{background:#fbe3e3}.verdict.skip{background:#eee}\n"
".verdict.incomplete{background:#fdf0d5}\n"
"table.vlines{border:none;margin:.4em 0 1em}table.vlines td,table.vlines th{border:none;"
"padding:.15em .6em .15em 0;vertical-align:top;text-align:left}\n"
"td.worse{background:#fbe3e3}td.better{background:#e3f5e3}\n"
/* the comparison page: a group's runs beneath its figure, its answer */
"ul.runs{list-style:none;margin:.2em 0 0;padding:0;font-size:.8em;color:#555}\n"
"td ul.runs{text-align:right}table.kv td ul.runs{text-align:left}\n"
".chg{font-size:.85em}.swatch{display:inline-block;width:.8em;height:.8em;margin-right:.35em}\n"
"div.verdict p.head{margin:0}ul.answer{margin:.3em 0 0 1.2em;padding:0;font-size:.8em;"
"font-weight:normal;color:#222}\n"
"td.note{font-size:.85em;color:#555}p.method{max-width:60em}\n"
"table.metrics td,table.metrics th{white-space:nowrap}table.metrics td.note{white-space:normal}\n"
"table.groups,table.runs,table.causes,table.power{display:block;overflow-x:auto;max-width:100%}\n";

void lw_pg_text(struct page *pg, const char *s)
{
	lw_xml_escape(pg->f, s ? s : "");
}

void lw_pg_textf(struct page *pg, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0) {
		lw_xml_escape(pg->f, s);
		free(s);
	}
	va_end(ap);
}

void lw_pg_raw(struct page *pg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(pg->f, fmt, ap);
	va_end(ap);
}

void lw_pg_begin(struct page *pg, const char *title)
{
	lw_pg_raw(pg, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n"
	       "<head>\n<meta charset=\"utf-8\"/>\n<meta name=\"generator\" content=\"latwatt %s\"/>\n"
	       "<title>", LW_VERSION);
	lw_pg_text(pg, title);
	lw_pg_raw(pg, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", css);
	lw_pg_text(pg, title);
	lw_pg_raw(pg, "</h1>\n");
	if (!pg->o->plots)
		lw_pg_raw(pg, "<p class=\"noplot\" id=\"noplots\">Plots need gnuplot, which is not on "
		       "PATH (Debian: gnuplot-nox); the tables hold every figure.</p>\n");
}

void lw_pg_end(struct page *pg)
{
	lw_pg_raw(pg, "<footer><p class=\"missing\">latwatt %s report; plots drawn by gnuplot; "
	       "all times on CLOCK_MONOTONIC.</p></footer>\n</body>\n</html>\n", LW_VERSION);
}

void lw_pg_section(struct page *pg, const char *id, const char *title, int recorded)
{
	lw_pg_raw(pg, "<section id=\"%s\" data-section=\"%s\" data-state=\"%s\">\n<h2>", id, id,
	       recorded ? "recorded" : "not-recorded");
	lw_pg_text(pg, title);
	lw_pg_raw(pg, "</h2>\n");
}

void lw_pg_section_end(struct page *pg)
{
	lw_pg_raw(pg, "</section>\n");
}

void lw_pg_missing(struct page *pg, const char *what, const char *keys)
{
	lw_pg_raw(pg, "<p class=\"missing\">");
	lw_pg_textf(pg, "%s: not recorded in this run", what);
	if (keys) {
		lw_pg_raw(pg, " (analysis.json has no <code>");
		lw_pg_text(pg, keys);
		lw_pg_raw(pg, "</code>)");
	}
	lw_pg_raw(pg, ".</p>\n");
}

void lw_pg_figure(struct page *pg, const char *id, char *script, int w, int h, const char *caption)
{
	char *svg = NULL;

	lw_pg_raw(pg, "<figure id=\"fig-%s\">\n", id);
	if (pg->o->plots && script) {
		svg = lw_gnuplot_svg(script, id, w, h);
		if (svg) {
			fputs(svg, pg->f);
			fputc('\n', pg->f);
			pg->nplots++;
		} else {
			pg->failed++;
			lw_pg_raw(pg, "<p class=\"noplot\" data-plot=\"%s\">", id);
			lw_pg_textf(pg, "Plot not drawn: %s", lw_last_error());
			lw_pg_raw(pg, "</p>\n");
		}
	} else {
		lw_pg_raw(pg, "<p class=\"noplot\" data-plot=\"%s\">Plot not drawn: plots need gnuplot."
		       "</p>\n", id);
	}
	lw_pg_raw(pg, "<figcaption>");
	lw_pg_text(pg, caption);
	lw_pg_raw(pg, "</figcaption>\n</figure>\n");
	free(svg);
	free(script);
}

void lw_pg_th(struct page *pg, const char *s)
{
	lw_pg_raw(pg, "<th>");
	lw_pg_text(pg, s);
	lw_pg_raw(pg, "</th>");
}

void lw_pg_td(struct page *pg, const char *s)
{
	lw_pg_raw(pg, "<td>");
	lw_pg_text(pg, s);
	lw_pg_raw(pg, "</td>");
}

void lw_pg_kv(struct page *pg, const char *key, const char *value)
{
	lw_pg_raw(pg, "<tr><td>");
	lw_pg_text(pg, key);
	lw_pg_raw(pg, "</td><td>");
	lw_pg_text(pg, value);
	lw_pg_raw(pg, "</td></tr>\n");
}

void lw_pg_td_ns(struct page *pg, const char *attrs, const char *key, double ns)
{
	char us[32];

	lw_pg_raw(pg, "<td %s data-key=\"%s\" data-value=\"%.17g\">%s</td>", attrs, key, ns,
	       lw_fmt_us(ns, us, sizeof(us)));
}

/* A rail's figure in mW: "average_w" etc. (power/power.h's summary), or
 * "mean_mw" etc.; NAN when absent. */
double lw_rail_mw(const json_t *rail, const char *w_key, const char *mw_key)
{
	if (json_is_number(json_object_get(rail, w_key)))
		return lw_jnum(rail, w_key, 0) * 1e3;
	if (json_is_number(json_object_get(rail, mw_key)))
		return lw_jnum(rail, mw_key, 0);
	return NAN;
}

const char *lw_rail_kind(const json_t *rail)
{
	const char *k = lw_jstr(rail, "kind", NULL);

	if (!k)
		k = lw_jstr(rail, "source", "unlabelled");
	return strcmp(k, "measured") && strcmp(k, "estimated") ? "unlabelled" : k;
}

FILE *lw_script_open(struct lw_script *s)
{
	memset(s, 0, sizeof(*s));
	s->f = open_memstream(&s->buf, &s->len);
	if (!s->f)
		error_errno("cannot build a plot script");
	return s->f;
}

char *lw_script_close(struct lw_script *s)
{
	if (!s->f)
		return NULL;
	if (fclose(s->f) != 0) {
		free(s->buf);
		return NULL;
	}
	return s->buf;
}

/* ---- histogram and distribution ------------------------------------- */

/* Buckets of an analysis.json histogram: [[index, count], ...] sorted. */
static const json_t *buckets(const json_t *h)
{
	return json_object_get(h, "buckets");
}

static double hist_max_us(const json_t *h)
{
	const json_t *b = buckets(h);
	size_t n = json_array_size(b);
	double m = 0;

	if (n)
		m = (double)json_integer_value(json_array_get(json_array_get(b, n - 1), 0)) + 1;
	if (lw_jnum(h, "overflow", 0) > 0)
		m = fmax(m, lw_jnum(h, "overflow_max_ns", 0) / 1e3);
	return m * lw_jnum(h, "bucket_ns", 1000) / 1000;
}

static double hist_p_us(const json_t *h, double q)
{
	const json_t *b = buckets(h), *e;
	double total = lw_jnum(h, "total", 0), cum = 0, bw = lw_jnum(h, "bucket_ns", 1000) / 1e3;
	size_t i;

	json_array_foreach((json_t *)b, i, e) {
		cum += (double)json_integer_value(json_array_get(e, 1));
		if (cum >= q / 100.0 * total)
			return ((double)json_integer_value(json_array_get(e, 0)) + 1) * bw;
	}
	return hist_max_us(h);
}

/* The style of series @s: its own colour and title, or the default's. */
static void series_style(FILE *f, size_t s, size_t n, int bold_last, const char *const *titles,
			 const struct lw_gp_style *style)
{
	if (style) {
		fprintf(f, "%s lc rgb \"%s\" ", style[s].bold ? "2.5" : "1.2", style[s].color);
		if (style[s].title) {
			fprintf(f, "title ");
			lw_gp_quote(f, style[s].title);
		} else {
			fprintf(f, "notitle");
		}
		return;
	}
	fprintf(f, "%s title ", bold_last && s == n - 1 ? "2.5 lc rgb \"black\"" : "1.2");
	lw_gp_quote(f, titles[s]);
}

void lw_gp_histogram(FILE *f, const json_t *const *hist, const char *const *titles, size_t n,
		  int bold_last)
{
	lw_gp_histogram_styled(f, hist, titles, n, bold_last, NULL, NULL);
}

void lw_gp_histogram_styled(FILE *f, const json_t *const *hist, const char *const *titles, size_t n,
			 int bold_last, const struct lw_gp_style *style, const char *key)
{
	double xmax = 1, p99 = 0;
	int logx;

	for (size_t s = 0; s < n; s++) {
		xmax = fmax(xmax, hist_max_us(hist[s]));
		p99 = fmax(p99, hist_p_us(hist[s], 99));
	}
	/* OSADL plots are linear; a tail 10 times beyond p99 gets a log axis */
	logx = xmax > 10 * fmax(p99, 1);
	for (size_t s = 0; s < n; s++) {
		const json_t *b = buckets(hist[s]), *e;
		double bw = lw_jnum(hist[s], "bucket_ns", 1000) / 1e3;
		/* bucket indexes come from a file: in double, where a huge one is a
		 * huge x rather than an overflow */
		double prev = -2;
		size_t i;

		fprintf(f, "$h%zu << EOD\n", s);
		/* steps: each row holds until the next; gaps drop to the floor */
		json_array_foreach((json_t *)b, i, e) {
			double idx = (double)json_integer_value(json_array_get(e, 0));

			if (prev >= 0 && idx > prev + 1)
				fprintf(f, "%g 0.1\n", (prev + 1 + logx) * bw);
			else if (prev < 0 && idx > 0)
				fprintf(f, "%g 0.1\n", logx ? bw : 0.0);
			fprintf(f, "%g %" JSON_INTEGER_FORMAT "\n", (idx + logx) * bw,
				json_integer_value(json_array_get(e, 1)));
			prev = idx;
		}
		if (prev >= 0)
			fprintf(f, "%g 0.1\n", (prev + 1 + logx) * bw);
		if (lw_jnum(hist[s], "overflow", 0) > 0)
			fprintf(f, "%g %g\n%g 0.1\n", lw_jnum(hist[s], "overflow_max_ns", 0) / 1e3,
				lw_jnum(hist[s], "overflow", 0),
				lw_jnum(hist[s], "overflow_max_ns", 0) / 1e3 + bw);
		if (prev < 0)
			fprintf(f, "0 0.1\n");
		fprintf(f, "EOD\n");
	}
	fprintf(f, "set logscale y\nset yrange [0.8:*]\nset grid\nset key %s\n"
		"set xlabel \"latency (us)%s\"\nset ylabel \"samples (log)\"\n",
		key ? key : "top right", logx ? ", log scale" : "");
	if (logx)
		fprintf(f, "set logscale x\nset xrange [1:%g]\n", xmax * 1.2);
	else
		fprintf(f, "set xrange [0:%g]\n", ceil(xmax * 1.05 + 1));
	fprintf(f, "plot ");
	for (size_t s = 0; s < n; s++) {
		fprintf(f, "%s$h%zu using 1:2 with steps lw ", s ? ", " : "", s);
		series_style(f, s, n, bold_last, titles, style);
	}
	fprintf(f, "\n");
}

void lw_gp_cdf(FILE *f, const json_t *const *hist, const char *const *titles, size_t n,
	    int bold_last, const json_t *marks)
{
	lw_gp_cdf_styled(f, hist, titles, n, bold_last, marks, NULL, NULL);
}

void lw_gp_cdf_styled(FILE *f, const json_t *const *hist, const char *const *titles, size_t n,
		   int bold_last, const json_t *marks, const struct lw_gp_style *style, const char *key)
{
	double ymax = 1, xmax = 1;

	for (size_t s = 0; s < n; s++) {
		const json_t *b = buckets(hist[s]), *e;
		double total = lw_jnum(hist[s], "total", 0), cum = 0;
		double bw = lw_jnum(hist[s], "bucket_ns", 1000) / 1e3;
		size_t i;

		/* nines scale: y = -log10(1 - F), F the fraction at or below x */
		fprintf(f, "$c%zu << EOD\n", s);
		json_array_foreach((json_t *)b, i, e) {
			double x = ((double)json_integer_value(json_array_get(e, 0)) + 1) * bw;

			cum += (double)json_integer_value(json_array_get(e, 1));
			fprintf(f, "%g %g\n", x, -log10(fmax(1 - cum / total, 0.5 / total)));
			xmax = fmax(xmax, x);
		}
		if (lw_jnum(hist[s], "overflow", 0) > 0) {
			double x = lw_jnum(hist[s], "overflow_max_ns", 0) / 1e3;

			fprintf(f, "%g %g\n", x, -log10(0.5 / total));
			xmax = fmax(xmax, x);
		}
		if (total > 0)
			ymax = fmax(ymax, -log10(0.5 / total));
		fprintf(f, "EOD\n");
	}
	if (marks && n) {
		fprintf(f, "$m << EOD\n");
		for (int k = 0; k < LW_NPCT; k++) {
			const json_t *v = json_object_get(marks, lw_pct_key[k]);
			double us;

			if (!json_is_integer(v) || -log10(1 - lw_pct[k] / 100) > ymax + 1e-9)
				continue;
			us = (double)json_integer_value(v) / 1e3;
			fprintf(f, "%g %g \"%s %.1fus\"\n", us, -log10(1 - lw_pct[k] / 100),
				lw_stat_names[k], us);
		}
		fprintf(f, "EOD\n");
	}
	fprintf(f, "set logscale x\nset grid\nset key %s\nset xlabel \"latency (us), "
		"log scale\"\nset ylabel \"samples at or below\"\n", key ? key : "bottom right");
	fprintf(f,	/* tic labels are formats to gnuplot: "%%%%" is one '%' */
		"set ytics (\"0%%%%\" 0, \"50%%%%\" 0.30103, \"90%%%%\" 1, \"99%%%%\" 2, "
		"\"99.9%%%%\" 3, \"99.99%%%%\" 4, \"99.999%%%%\" 5, \"99.9999%%%%\" 6, "
		"\"99.99999%%%%\" 7)\n"
		"set yrange [0:%g]\nset xrange [*:%g]\n", ceil(ymax) + 0.2, xmax * 2);
	fprintf(f, "plot ");
	for (size_t s = 0; s < n; s++) {
		fprintf(f, "%s$c%zu using 1:2 with steps lw ", s ? ", " : "", s);
		series_style(f, s, n, bold_last, titles, style);
	}
	if (marks && n)
		fprintf(f, ", $m using 1:2 with points pt 7 ps 0.8 lc rgb \"#b00000\" notitle, "
			"$m using 1:2:3 with labels left offset 1,-0.6 font \",9\" tc rgb \"#b00000\" "
			"notitle");
	fprintf(f, "\n");
}
