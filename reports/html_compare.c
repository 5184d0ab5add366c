// SPDX-License-Identifier: GPL-2.0-only
/* The HTML report comparing runs: overlaid histograms and distributions,
 * percentiles with confidence intervals and verdicts, causes and power side
 * by side. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/parse.h"
#include "reports/page.h"

static void runs_table(struct page *pg, const struct lw_comparison *c)
{
	static const struct { const char *label, *what; } rows[] = {
		{ "board", "board" }, { "kernel release", "kernel_release" },
		{ "kernel version", "kernel_version" }, { "preemption model", "preempt" },
		{ "scenario", "scenario" }, { "status", "status" }, { "started (UTC)", "start" },
	};

	pg_section(pg, "runs", "Runs", 1);
	pg_raw(pg, "<table class=\"kv runs\">\n<tr><th class=\"l\"></th>");
	for (size_t i = 0; i < c->nrun; i++) {
		pg_raw(pg, "<th class=\"l\">");
		pg_text(pg, c->run[i].label);
		pg_raw(pg, "%s</th>", i == c->baseline ? " (baseline)" : "");
	}
	pg_raw(pg, "</tr>\n<tr><td>path</td>");
	for (size_t i = 0; i < c->nrun; i++) {
		pg_raw(pg, "<td class=\"mono\">");
		pg_text(pg, c->run[i].path);
		pg_raw(pg, "</td>");
	}
	pg_raw(pg, "</tr>\n");
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		pg_raw(pg, "<tr><td>");
		pg_text(pg, rows[k].label);
		pg_raw(pg, "</td>");
		for (size_t i = 0; i < c->nrun; i++)
			pg_raw(pg, "<td>"), pg_text(pg, lw_rrun_str(&c->run[i], rows[k].what)),
			pg_raw(pg, "</td>");
		pg_raw(pg, "</tr>\n");
	}
	pg_raw(pg, "<tr><td>NO_HZ mode</td>");
	for (size_t i = 0; i < c->nrun; i++) {
		char nohz[256];

		pg_td(pg, lw_rrun_nohz(&c->run[i], nohz, sizeof(nohz)));
	}
	pg_raw(pg, "</tr>\n<tr><td>duration</td>");
	for (size_t i = 0; i < c->nrun; i++) {
		char d[64];
		double ns = jnum(c->run[i].manifest, "duration_ns", 0);

		pg_td(pg, ns > 0 ? lw_format_duration((uint64_t)ns, d, sizeof(d)) : "not recorded");
	}
	pg_raw(pg, "</tr>\n<tr><td>PM QoS</td>");
	for (size_t i = 0; i < c->nrun; i++) {
		char b[96];

		lw_rrun_pmqos(&c->run[i], b, sizeof(b));
		pg_td(pg, b);
	}
	pg_raw(pg, "</tr>\n</table>\n");
	pg_section_end(pg);
}

static void ci_cell(struct page *pg, const struct lw_comparison *c, const struct lw_cmp_probe *p,
		    size_t ri, int k)
{
	const struct lw_pci *x = &p->pci[ri * LW_CMP_NSTAT + k];
	const char *v = p->verdict[ri * LW_CMP_NSTAT + k];
	char a[32], lo[32], hi[32];

	if (!x->count) {
		pg_raw(pg, "<td>-</td>");
		return;
	}
	lw_fmt_us((double)x->value, a, sizeof(a));
	lw_fmt_us((double)x->lo, lo, sizeof(lo));
	if (x->hi == UINT64_MAX)
		strcpy(hi, "?");
	else
		lw_fmt_us((double)x->hi, hi, sizeof(hi));
	pg_raw(pg, "<td class=\"%s\" data-probe=\"%s\" data-run=\"%zu\" data-stat=\"%s\" "
	       "data-value=\"%" PRIu64 "\" data-ci-low=\"%" PRIu64 "\"", v, p->name, ri,
	       lw_cmp_stat[k], x->value, x->lo);
	if (x->hi != UINT64_MAX)
		pg_raw(pg, " data-ci-high=\"%" PRIu64 "\"", x->hi);
	pg_raw(pg, " data-verdict=\"%s\">%s", v, a);
	if (k < LW_CMP_NSTAT - 1)
		pg_raw(pg, " <small>[%s, %s]</small>", lo, hi);
	if (ri != c->baseline && strcmp(v, "no data"))
		pg_raw(pg, "<br/><small>%+.1f %% %s</small>", p->change[ri * LW_CMP_NSTAT + k] * 100,
		       v);
	pg_raw(pg, "</td>");
}

static void probe_section(struct page *pg, const struct lw_comparison *c,
			  const struct lw_cmp_probe *p)
{
	const json_t **hist = calloc(c->nrun, sizeof(*hist));
	const char **titles = calloc(c->nrun, sizeof(*titles));
	struct script sc;
	char id[64], cap[256];
	size_t n = 0;
	FILE *f;

	if (!hist || !titles) {
		free(hist);
		free(titles);
		error("out of memory");
		return;
	}
	for (size_t i = 0; i < c->nrun; i++) {
		const json_t *h = json_object_get(json_object_get(json_object_get(
			lw_rrun_probes(&c->run[i]), p->name), "all"), "histogram");

		if (!h)
			continue;
		hist[n] = h;
		titles[n++] = c->run[i].label;
	}
	pg_raw(pg, "<h3>Probe ");
	pg_text(pg, p->name);
	pg_raw(pg, "</h3>\n<table class=\"percentiles\" data-probe=\"%s\">\n<tr><th class=\"l\">"
	       "run</th><th>samples</th>", p->name);
	for (int k = 0; k < LW_CMP_NSTAT; k++)
		pg_raw(pg, "<th>%s (us)%s</th>", lw_cmp_stat[k],
		       k < LW_CMP_NSTAT - 1 ? " [95 % CI]" : "");
	pg_raw(pg, "</tr>\n");
	for (size_t ri = 0; ri < c->nrun; ri++) {
		pg_raw(pg, "<tr><th class=\"l\">");
		pg_text(pg, c->run[ri].label);
		pg_raw(pg, "%s</th><td>%" PRIu64 "</td>", ri == c->baseline ? " (baseline)" : "",
		       p->pci[ri * LW_CMP_NSTAT].count);
		for (int k = 0; k < LW_CMP_NSTAT; k++)
			ci_cell(pg, c, p, ri, k);
		pg_raw(pg, "</tr>\n");
	}
	pg_raw(pg, "</table>\n<p class=\"missing\">Intervals: distribution-free 95 %% confidence "
	       "intervals of the percentile (order statistics)%s; \"?\" where too few samples "
	       "bound it. Verdicts against the baseline: worse or better when the intervals do "
	       "not overlap.</p>\n", !strcmp(c->source, "comparison") ?
	       ", as the comparison file gives them where it does" : "");
	snprintf(id, sizeof(id), "cmp-hist-%s", p->name);
	f = script_open(&sc);
	if (f)
		gp_histogram(f, hist, titles, n, 0);
	snprintf(cap, sizeof(cap), "Latency histograms of probe %s, all CPUs of each run overlaid.",
		 p->name);
	pg_figure(pg, id, script_close(&sc), 960, 420, cap);
	snprintf(id, sizeof(id), "cmp-cdf-%s", p->name);
	f = script_open(&sc);
	if (f)
		gp_cdf(f, hist, titles, n, 0, NULL);
	snprintf(cap, sizeof(cap), "Cumulative distributions of probe %s on a nines scale, runs "
		 "overlaid.", p->name);
	pg_figure(pg, id, script_close(&sc), 960, 420, cap);
	free(hist);
	free(titles);
}

static void causes_section(struct page *pg, const struct lw_comparison *c)
{
	const char *names[32];
	size_t nn = 0, have = 0, i;
	struct script sc;
	FILE *f;

	for (size_t ri = 0; ri < c->nrun; ri++) {
		const json_t *cs = json_object_get(json_object_get(c->run[ri].analysis, "spikes"),
						   "causes"), *e;

		have += json_array_size(cs) > 0;
		json_array_foreach((json_t *)cs, i, e) {
			const char *s = jstr(e, "cause", "?");
			size_t k;

			for (k = 0; k < nn && strcmp(names[k], s); k++)
				;
			if (k == nn && nn < 32)
				names[nn++] = s;
		}
	}
	pg_section(pg, "causes", "Spike causes", have > 0);
	if (!have) {
		pg_missing(pg, "Spike causes in every run", "spikes.causes");
		pg_section_end(pg);
		return;
	}
	pg_raw(pg, "<table class=\"causes\">\n<tr><th class=\"l\">cause</th>");
	for (size_t ri = 0; ri < c->nrun; ri++)
		pg_th(pg, c->run[ri].label);
	pg_raw(pg, "</tr>\n");
	f = script_open(&sc);
	if (f)
		fprintf(f, "$d << EOD\n");
	for (size_t k = 0; k < nn; k++) {
		pg_raw(pg, "<tr><td class=\"l\">");
		pg_text(pg, names[k]);
		pg_raw(pg, "</td>");
		if (f)
			lw_gp_datum(f, names[k]);
		for (size_t ri = 0; ri < c->nrun; ri++) {
			const json_t *cs = json_object_get(json_object_get(c->run[ri].analysis,
									   "spikes"), "causes"), *e;
			double share = -1;

			json_array_foreach((json_t *)cs, i, e)
				if (!strcmp(jstr(e, "cause", "?"), names[k]))
					share = jnum(e, "share", 0);
			if (share < 0 && !json_array_size(cs))
				pg_raw(pg, "<td>-</td>");
			else
				pg_raw(pg, "<td>%.1f %%</td>", fmax(share, 0) * 100);
			if (f)
				fprintf(f, " %g", fmax(share, 0) * 100);
		}
		pg_raw(pg, "</tr>\n");
		if (f)
			fprintf(f, "\n");
	}
	pg_raw(pg, "</table>\n");
	if (f) {
		fprintf(f, "EOD\nset style data histogram\nset style histogram cluster gap 1\n"
			"set style fill solid 0.7\nset yrange [0:*]\nset grid ytics\n"
			"set ylabel \"share of spikes (%%)\"\nset xtics rotate by -30\nplot ");
		for (size_t ri = 0; ri < c->nrun; ri++) {
			fprintf(f, "%s$d using %zu%s title ", ri ? ", " : "", ri + 2,
				ri ? "" : ":xtic(1)");
			lw_gp_quote(f, c->run[ri].label);
		}
		fprintf(f, "\n");
	}
	pg_figure(pg, "cmp-causes", script_close(&sc), 900, 360,
		  "Share of spikes by cause, runs side by side.");
	pg_section_end(pg);
}

static void power_section(struct page *pg, const struct lw_comparison *c)
{
	const char *names[32];
	size_t nn = 0, have = 0, i;

	for (size_t ri = 0; ri < c->nrun; ri++) {
		const json_t *rails = json_object_get(json_object_get(c->run[ri].analysis, "power"),
						      "rails"), *e;

		have += json_array_size(rails) > 0;
		json_array_foreach((json_t *)rails, i, e) {
			const char *s = jstr(e, "name", "?");
			size_t k;

			for (k = 0; k < nn && strcmp(names[k], s); k++)
				;
			if (k == nn && nn < 32)
				names[nn++] = s;
		}
	}
	pg_section(pg, "power", "Power", have > 0);
	if (!have) {
		pg_missing(pg, "Power in every run", "power.rails");
		pg_section_end(pg);
		return;
	}
	pg_raw(pg, "<table class=\"power\">\n<tr><th class=\"l\">rail (mean mW)</th>");
	for (size_t ri = 0; ri < c->nrun; ri++)
		pg_th(pg, c->run[ri].label);
	pg_raw(pg, "</tr>\n");
	for (size_t k = 0; k < nn; k++) {
		pg_raw(pg, "<tr><td class=\"l\">");
		pg_text(pg, names[k]);
		pg_raw(pg, "</td>");
		for (size_t ri = 0; ri < c->nrun; ri++) {
			const json_t *rails = json_object_get(json_object_get(c->run[ri].analysis,
									      "power"), "rails"), *e, *hit = NULL;

			json_array_foreach((json_t *)rails, i, e)
				if (!strcmp(jstr(e, "name", "?"), names[k]))
					hit = e;
			if (hit)
				pg_raw(pg, "<td>%.1f <small>(%s)</small></td>",
				       rail_mw(hit, "average_w", "mean_mw"), rail_kind(hit));
			else
				pg_raw(pg, "<td>-</td>");
		}
		pg_raw(pg, "</tr>\n");
	}
	pg_raw(pg, "</table>\n");
	pg_section_end(pg);
}

int lw_report_html_compare(FILE *out, const struct lw_comparison *c, const struct lw_checks *cs,
			   const struct lw_report_opts *o)
{
	struct page pg = { .f = out, .o = o };
	size_t fail = lw_checks_count(cs, LW_FAIL), pass = lw_checks_count(cs, LW_PASS);
	const char *cls = fail ? "fail" : pass ? "pass" : "skip";
	char title[256];

	snprintf(title, sizeof(title), "latwatt comparison: %zu runs against %s", c->nrun,
		 c->run[c->baseline].label);
	pg_begin(&pg, title);
	pg_raw(&pg, "<p><span class=\"verdict %s\" id=\"verdict\" data-verdict=\"%s\">", cls, cls);
	if (fail)
		pg_textf(&pg, "FAIL: %zu of %zu comparison rules broken", fail, cs->n);
	else if (pass)
		pg_textf(&pg, "PASS: no significant regression beyond %.0f %% (%zu rules)",
			 c->tolerance * 100, cs->n);
	else
		pg_text(&pg, "no comparison rule could be decided");
	pg_raw(&pg, "</span></p>\n");
	runs_table(&pg, c);
	pg_section(&pg, "latency", "Latency", c->nprobe > 0);
	if (!c->nprobe)
		pg_missing(&pg, "Latency samples", "probes");
	for (size_t i = 0; i < c->nprobe; i++)
		probe_section(&pg, c, &c->probe[i]);
	pg_section_end(&pg);
	causes_section(&pg, c);
	power_section(&pg, c);
	pg_section(&pg, "rules", "Comparison rules", cs->n > 0);
	lw_report_checks_table(&pg, cs, "compare");
	pg_section_end(&pg);
	pg_end(&pg);
	if (fflush(out) == EOF || ferror(out))
		return error_errno("cannot write the report");
	if (pg.failed)
		warning("%d plot%s could not be drawn (see the report)", pg.failed,
			pg.failed > 1 ? "s" : "");
	return 0;
}
