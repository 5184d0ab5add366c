// SPDX-License-Identifier: GPL-2.0-only
/* latwatt tune's page: the verdict, the Pareto front plotted, the
 * candidates in the order tried (from tune.json's document only). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reports/page.h"
#include "reports/report.h"

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static void front_plot(struct page *pg, const json_t *cands, int rec)
{
	struct lw_script sc;
	FILE *f = lw_script_open(&sc);
	const json_t *c;
	size_t i;
	const char *kind = "estimated";

	if (!f)
		return;
	/* every candidate, then the front (by latency), then the recommendation */
	fprintf(f, "$all << EOD\n");
	json_array_foreach(cands, i, c) {
		double l = num(c, "latency_us"), lo = num(c, "latency_lower_us"),
		       hi = num(c, "latency_upper_us"), w = num(c, "power_w"),
		       wlo = num(c, "power_lower_w"), whi = num(c, "power_upper_w");

		if (isnan(l) || isnan(w))
			continue;
		if (!strcmp(str(c, "power_kind"), "measured"))
			kind = "measured";
		fprintf(f, "%g %g %g %g %g %g %zu\n", l, w, isnan(lo) ? l : lo, isnan(hi) ? l : hi,
			isnan(wlo) ? w : wlo, isnan(whi) ? w : whi, i + 1);
	}
	fprintf(f, "EOD\n$front << EOD\n");
	for (double last = -1;;) {	/* the front in ascending latency */
		double best = INFINITY;
		const json_t *bc = NULL;

		json_array_foreach(cands, i, c) {
			double l = num(c, "latency_us");

			if (json_is_true(json_object_get(c, "front")) && l > last && l < best) {
				best = l;
				bc = c;
			}
		}
		if (!bc)
			break;
		fprintf(f, "%g %g\n", best, num(bc, "power_w"));
		last = best;
	}
	fprintf(f, "EOD\n$rec << EOD\n");
	c = rec >= 0 ? json_array_get(cands, (size_t)rec) : NULL;
	if (c && !isnan(num(c, "latency_us")) && !isnan(num(c, "power_w")))
		fprintf(f, "%g %g\n", num(c, "latency_us"), num(c, "power_w"));
	fprintf(f, "EOD\nset grid\nset key outside right top Left reverse\n"
		"set offsets 0, graph 0.05, graph 0.15, 0\n"
		"set xrange [0:*]\nset yrange [0:*]\n"
		"set xlabel \"worst-case latency (us), estimate and interval\"\n"
		"set ylabel \"power (W, %s)\"\n"
		"plot $all using 1:2:3:4:5:6 with xyerrorbars pt 7 ps 1.2 lc rgb \"#777777\" "
		"title \"candidates\", $all using 1:2 with points pt 7 ps 1.2 lc rgb \"#777777\" notitle, "
		"$all using 1:2:(sprintf(\"%%d\", $7)) with labels offset 1,1 "
		"notitle, $front using 1:2 with linespoints lw 2 pt 7 lc rgb \"#1f77b4\" "
		"title \"Pareto front\", $front using 1:2 with points pt 7 ps 1.4 lc rgb \"#1f77b4\" "
		"notitle, $rec using 1:2 with points pt 6 ps 3 lw 2 "
		"lc rgb \"#d62728\" title \"recommended\"\n", kind);
	lw_pg_figure(pg, "tune-front", lw_script_close(&sc), 900, 420,
		     "Pareto front: each candidate's worst-case latency (the first latency budget's "
		     "figure, with its interval) against its power (the runs' mean, with its "
		     "interval); numbers are the candidates in the order tried.");
}

/* A cell of words, read from the left. */
static void td_text(struct page *pg, const char *s)
{
	lw_pg_raw(pg, "<td class=\"l\">");
	lw_pg_text(pg, s);
	lw_pg_raw(pg, "</td>");
}

int lw_report_tune_html(FILE *out, const json_t *doc, const struct lw_report_opts *ro)
{
	struct page pg = { .f = out, .o = ro };
	const json_t *cands = json_object_get(doc, "candidates"), *c;
	const json_t *recj = json_object_get(doc, "recommended");
	int rec = json_is_integer(recj) ? (int)json_integer_value(recj) : -1;
	size_t i;

	lw_pg_begin(&pg, "latwatt tune");
	lw_pg_raw(&pg, "<p id=\"verdict\" class=\"%s\">", rec >= 0 ? "pass" :
		  json_integer_value(json_object_get(doc, "undecided")) ? "skip" : "fail");
	lw_pg_text(&pg, str(doc, "verdict"));
	lw_pg_raw(&pg, "</p>\n");
	lw_pg_section(&pg, "front", "Latency against power", 1);
	front_plot(&pg, cands, rec);
	lw_pg_section_end(&pg);
	lw_pg_section(&pg, "candidates", "Candidates, in the order tried", 1);
	lw_pg_raw(&pg, "<table class=\"candidates\">\n<tr>");
	lw_pg_th(&pg, "#");
	lw_pg_th(&pg, "configuration");
	lw_pg_th(&pg, "budgets");
	lw_pg_th(&pg, "runs");
	lw_pg_th(&pg, "latency (us)");
	lw_pg_th(&pg, "interval (us)");
	lw_pg_th(&pg, "power (W)");
	lw_pg_th(&pg, "front");
	lw_pg_th(&pg, "why tried");
	lw_pg_th(&pg, "against the best so far");
	lw_pg_raw(&pg, "</tr>\n");
	json_array_foreach(cands, i, c) {
		char buf[128];
		double l = num(c, "latency_us"), lo = num(c, "latency_lower_us"),
		       hi = num(c, "latency_upper_us"), w = num(c, "power_w");

		lw_pg_raw(&pg, "<tr%s data-index=\"%zu\">", (int)i == rec ? " class=\"recommended\"" :
			  "", i + 1);
		snprintf(buf, sizeof(buf), "%zu", i + 1);
		lw_pg_td(&pg, buf);
		if (json_is_string(json_object_get(c, "cmdline"))) {
			/* the runs booted a kernel: the command line they booted with */
			const char *cl = str(c, "cmdline");

			lw_pg_raw(&pg, "<td class=\"l\">");
			lw_pg_text(&pg, str(c, "name"));
			lw_pg_raw(&pg, "<br><code>");
			lw_pg_text(&pg, cl[0] ? cl : "(no word added)");
			lw_pg_raw(&pg, "</code></td>");
		} else {
			td_text(&pg, str(c, "name"));
		}
		snprintf(buf, sizeof(buf), "%s", str(c, "decision"));
		lw_pg_td(&pg, buf);
		snprintf(buf, sizeof(buf), "%lld",
			 (long long)json_integer_value(json_object_get(c, "runs")));
		lw_pg_td(&pg, buf);
		snprintf(buf, sizeof(buf), isnan(l) ? "-" : "%.1f", l);
		lw_pg_td(&pg, buf);
		if (isnan(lo) && isnan(hi))
			snprintf(buf, sizeof(buf), "-");
		else
			snprintf(buf, sizeof(buf), "[%.1f, %.1f]", lo, hi);
		lw_pg_td(&pg, buf);
		if (isnan(w))
			snprintf(buf, sizeof(buf), "none");
		else if (isnan(num(c, "power_lower_w")))
			snprintf(buf, sizeof(buf), "%.3f %s", w, str(c, "power_kind"));
		else
			snprintf(buf, sizeof(buf), "%.3f [%.3f, %.3f] %s", w,
				 num(c, "power_lower_w"), num(c, "power_upper_w"),
				 str(c, "power_kind"));
		lw_pg_td(&pg, buf);
		lw_pg_td(&pg, json_is_true(json_object_get(c, "front")) ? "yes" : "");
		td_text(&pg, str(c, "why"));
		td_text(&pg, str(c, "against_best"));
		lw_pg_raw(&pg, "</tr>\n");
	}
	lw_pg_raw(&pg, "</table>\n");
	lw_pg_section_end(&pg);
	lw_pg_end(&pg);
	return ferror(out) ? -1 : 0;
}
