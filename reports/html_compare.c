// SPDX-License-Identifier: GPL-2.0-only
/*
 * The HTML report comparing groups of runs (struct lw_comparison: the
 * document of analysis/compare.c, the one engine): the answer first (each
 * group's verdicts against the baseline group, or why there is none), then
 * each group as a column with its figures and each run's beneath, every
 * metric the engine judged, the plots (runs drawn in their group's colour,
 * one legend entry per group), spike causes and power, the rules, and how
 * verdicts are reached (the man page's words).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "lib/error.h"
#include "lib/parse.h"
#include "lib/stats.h"
#include "reports/page.h"

/* Groups drawn in a colour and named in a legend; the rest are "others". */
#define LEGEND_GROUPS 8
/* Causes named in the table and plot; the rest are summed as "others". */
#define TOP_CAUSES 8
/* Legend and tic labels are cut to this many characters (the end kept). */
#define LABEL_CHARS 28

static const char *const palette[LEGEND_GROUPS] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};
#define OTHERS_COLOR "#9a9a9a"

static const char *group_color(size_t g)
{
	return g < LEGEND_GROUPS ? palette[g] : OTHERS_COLOR;
}

/* @s cut to @max characters (UTF-8 aware), its end kept behind "...". */
static const char *short_label(const char *s, size_t max, char *buf, size_t len)
{
	size_t n = 0;
	const char *p;

	for (p = s; *p; p++)
		n += ((unsigned char)*p & 0xc0) != 0x80;
	if (n <= max) {
		snprintf(buf, len, "%s", s);
		return buf;
	}
	for (p = s; n > max - 3; p++)
		n -= ((unsigned char)*p & 0xc0) != 0x80;
	while (((unsigned char)*p & 0xc0) == 0x80)
		p++;
	snprintf(buf, len, "...%s", p);
	return buf;
}

static int is_sep(char ch)
{
	return ch == '/' || ch == '-' || ch == '_' || ch == ' ';
}

/*
 * A group in a legend: its name when it is short, else the part that tells
 * it from the other groups' (what all names share in front and behind, to
 * a separator, left out: "...6.12.3..." for "runs/vendor-6.12.3-rt-long"),
 * cut to LABEL_CHARS; and its runs.
 */
static const char *legend_label(const struct lw_comparison *c, size_t g, char *buf, size_t len)
{
	const char *name = c->group[g].name;
	size_t n = strlen(name), pre = n, suf = n;
	char mid[160], cut[160];

	if (n > LABEL_CHARS && c->ngroup > 1) {
		for (size_t k = 0; k < c->ngroup; k++) {
			const char *o = c->group[k].name;
			size_t on = strlen(o), i = 0;

			if (k == g)
				continue;
			while (i < pre && i < on && o[i] == name[i])
				i++;
			pre = i;
			for (i = 0; i < suf && i < on && o[on - 1 - i] == name[n - 1 - i]; i++)
				;
			suf = i;
		}
		while (pre && !is_sep(name[pre - 1]))		/* to the token's start */
			pre--;
		while (suf && !is_sep(name[n - suf]))		/* to the token's end */
			suf--;
		if (pre + suf >= n)
			pre = suf = 0;
		snprintf(mid, sizeof(mid), "%s%.*s%s", pre ? "..." : "", (int)(n - pre - suf), name + pre,
			 suf ? "..." : "");
		name = mid;
	}
	short_label(name, LABEL_CHARS, cut, sizeof(cut));
	snprintf(buf, len, "%.100s (%zu run%s)", cut, c->group[g].n, c->group[g].n == 1 ? "" : "s");
	return buf;
}

/* The CSS class of a verdict (no spaces). */
static const char *vclass(const char *v)
{
	return !v ? "baseline" : !strcmp(v, LW_WORSE) ? "worse" : !strcmp(v, LW_BETTER) ? "better" :
	       !strcmp(v, LW_NSD) ? "nsd" : "na";
}

static void us_text(struct page *pg, double ns)
{
	char b[32];

	if (isfinite(ns))
		lw_pg_text(pg, lw_fmt_us(ns, b, sizeof(b)));
	else
		lw_pg_text(pg, "unknown");
}

static void attr_num(struct page *pg, const char *name, double v)
{
	if (isfinite(v))
		lw_pg_raw(pg, " %s=\"%.17g\"", name, v);
}

/* ---- the answer ------------------------------------------------------- */

static void verdict_block(struct page *pg, const struct lw_comparison *c, const struct lw_checks *cs)
{
	size_t fail = lw_checks_count(cs, LW_FAIL), pass = lw_checks_count(cs, LW_PASS);
	size_t skip = lw_checks_count(cs, LW_SKIP), nl;
	const char *cls = fail ? "fail" : pass ? "pass" : "skip";
	char lines[4][256];

	lw_pg_raw(pg, "<div class=\"verdict %s\" id=\"verdict\" data-verdict=\"%s\">\n<p class=\"head\">",
	       cls, cls);
	if (fail)
		lw_pg_textf(pg, "FAIL: %zu of %zu comparison rules broken", fail, cs->n);
	else if (pass)
		lw_pg_textf(pg, "PASS: %zu comparison rule%s met", pass, pass == 1 ? "" : "s");
	else
		lw_pg_text(pg, cs->n ? "No verdict: no comparison rule could be judged" :
			"No verdict: no comparison rule was given");
	if ((fail || pass) && skip)
		lw_pg_textf(pg, "; %zu undecided", skip);
	lw_pg_raw(pg, "</p>\n<ul class=\"answer\">\n");
	nl = lw_cmp_summary(c, lines, 4);
	for (size_t i = 0, g = 0; i < nl; i++, g++) {
		while (g < c->ngroup && !c->group[g].compared)
			g++;
		if (g < c->ngroup && !strncmp(lines[i], c->group[g].name, strlen(c->group[g].name)))
			lw_pg_raw(pg, "<li data-group=\"%zu\" data-verdicts=\"%s\">", g,
			       c->group[g].verdicts ? "true" : "false");
		else	/* "first N of M" */
			lw_pg_raw(pg, "<li>");
		lw_pg_text(pg, lines[i]);
		lw_pg_raw(pg, "</li>\n");
	}
	lw_pg_raw(pg, "</ul>\n</div>\n<p class=\"missing\">Figures and verdicts are those of "
	       "<code>latwatt compare</code> (<a href=\"#method\">how verdicts are reached</a>).</p>\n");
}

/* ---- groups ----------------------------------------------------------- */

static void group_head(struct page *pg, const struct lw_comparison *c, const char *first)
{
	lw_pg_raw(pg, "<tr><th class=\"l\">%s</th>", first);
	for (size_t g = 0; g < c->ngroup; g++) {
		lw_pg_raw(pg, "<th class=\"l\" data-group=\"%zu\"><span class=\"swatch\" style=\"background:"
		       "%s\"></span>", g, group_color(g));
		lw_pg_text(pg, c->group[g].name);
		lw_pg_raw(pg, "<br/><small>%s%zu run%s</small></th>", g == c->baseline ? "baseline, " : "",
		       c->group[g].n, c->group[g].n == 1 ? "" : "s");
	}
	lw_pg_raw(pg, "</tr>\n");
}

/* A row of run-level strings: a group's value when its runs agree, else
 * each run's. */
static void groups_row(struct page *pg, const struct lw_comparison *c, const char *label,
		       const char *(*get)(const struct lw_rrun *, char *, size_t, const char *),
		       const char *what)
{
	char a[512], b[512];

	lw_pg_raw(pg, "<tr><td>");
	lw_pg_text(pg, label);
	lw_pg_raw(pg, "</td>");
	for (size_t g = 0; g < c->ngroup; g++) {
		const struct lw_cmp_group *cg = &c->group[g];
		int same = 1;

		get(&c->run[cg->first], a, sizeof(a), what);
		for (size_t i = 1; i < cg->n; i++)
			same &= !strcmp(a, get(&c->run[cg->first + i], b, sizeof(b), what));
		lw_pg_raw(pg, "<td>");
		if (same) {
			lw_pg_text(pg, a);
		} else {
			lw_pg_raw(pg, "<ul class=\"runs\">");
			for (size_t i = 0; i < cg->n; i++) {
				lw_pg_raw(pg, "<li>");
				lw_pg_textf(pg, "%s: %s", c->run[cg->first + i].label,
					 get(&c->run[cg->first + i], b, sizeof(b), what));
				lw_pg_raw(pg, "</li>");
			}
			lw_pg_raw(pg, "</ul>");
		}
		lw_pg_raw(pg, "</td>");
	}
	lw_pg_raw(pg, "</tr>\n");
}

static const char *get_str(const struct lw_rrun *r, char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "%s", lw_rrun_str(r, what));
	return buf;
}

static const char *get_nohz(const struct lw_rrun *r, char *buf, size_t len, const char *what)
{
	(void)what;
	return lw_rrun_nohz(r, buf, len);
}

static const char *get_pmqos(const struct lw_rrun *r, char *buf, size_t len, const char *what)
{
	(void)what;
	return lw_rrun_pmqos(r, buf, len);
}

static const char *get_duration(const struct lw_rrun *r, char *buf, size_t len, const char *what)
{
	double ns = lw_jnum(r->manifest, "duration_ns", 0);

	(void)what;
	if (ns > 0)
		return lw_format_duration((uint64_t)ns, buf, len);
	snprintf(buf, len, "not recorded");
	return buf;
}

static void groups_table(struct page *pg, const struct lw_comparison *c)
{
	static const struct { const char *label, *what; } rows[] = {
		{ "board", "board" }, { "kernel release", "kernel_release" },
		{ "kernel version", "kernel_version" }, { "preemption model", "preempt" },
		{ "scenario", "scenario" }, { "status", "status" },
	};

	lw_pg_section(pg, "runs", "Groups and their runs", 1);
	lw_pg_raw(pg, "<table class=\"kv runs\">\n");
	group_head(pg, c, "");
	lw_pg_raw(pg, "<tr><td>runs</td>");
	for (size_t g = 0; g < c->ngroup; g++) {
		lw_pg_raw(pg, "<td><ul class=\"runs\">");
		for (size_t i = 0; i < c->group[g].n; i++) {
			const struct lw_rrun *r = &c->run[c->group[g].first + i];

			lw_pg_raw(pg, "<li data-run=\"%zu\">", c->group[g].first + i);
			lw_pg_text(pg, r->label);
			lw_pg_raw(pg, " <small class=\"mono\">");
			lw_pg_text(pg, r->path);
			lw_pg_raw(pg, "</small></li>");
		}
		lw_pg_raw(pg, "</ul></td>");
	}
	lw_pg_raw(pg, "</tr>\n");
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++)
		groups_row(pg, c, rows[k].label, get_str, rows[k].what);
	groups_row(pg, c, "NO_HZ mode", get_nohz, NULL);
	groups_row(pg, c, "duration", get_duration, NULL);
	groups_row(pg, c, "PM QoS", get_pmqos, NULL);
	groups_row(pg, c, "started (UTC)", get_str, "start");
	lw_pg_raw(pg, "</table>\n");
	lw_pg_section_end(pg);
}

/* ---- latency ---------------------------------------------------------- */

/* "+5.4 % [-55.3 %, +148.4 %], p 0.61 after Holm: no significant difference" */
static void change_text(struct page *pg, const struct lw_comparison *c, const struct lw_cmetric *m)
{
	char p[32];

	if (m->rel_infinite)
		lw_pg_text(pg, "from 0");
	else if (isfinite(m->rel))
		lw_pg_textf(pg, "%+.1f %%", m->rel * 100);
	else
		lw_pg_text(pg, "change unknown");
	if (isfinite(m->ci_lo) && isfinite(m->ci_hi))
		lw_pg_textf(pg, " [%+.1f %%, %+.1f %%]", m->ci_lo * 100, m->ci_hi * 100);
	if (isfinite(m->p_adj)) {
		if (m->p_adj < 0.001)
			snprintf(p, sizeof(p), "< 0.001");
		else
			snprintf(p, sizeof(p), "%.3f", m->p_adj);
		lw_pg_textf(pg, ", p %s after Holm", p);
	}
	lw_pg_textf(pg, ": %s", !strcmp(m->verdict, LW_NA) ? "no verdict" : m->verdict);
	(void)c;
}

static void stat_cell(struct page *pg, const struct lw_comparison *c, const struct lw_cmp_probe *p,
		      size_t g, int k)
{
	const struct lw_cmp_group *cg = &c->group[g];
	const struct lw_cfig *f = &p->grp[g * LW_CMP_NSTAT + k];
	const struct lw_cmetric *m = p->m[g * LW_CMP_NSTAT + k];
	const char *v = g == c->baseline ? NULL : m ? m->verdict : LW_NA;

	lw_pg_raw(pg, "<td class=\"%s\" data-probe=\"%s\" data-group=\"%zu\" data-stat=\"%s\" "
	       "data-verdict=\"%s\"", vclass(v), p->name, g, lw_stat_names[k], v ? v : "baseline");
	attr_num(pg, "data-value", f->v);
	attr_num(pg, "data-ci-low", f->lo);
	attr_num(pg, "data-ci-high", f->hi);
	if (m) {
		attr_num(pg, "data-change", m->rel);
		attr_num(pg, "data-p", m->p_adj);
	}
	lw_pg_raw(pg, "><b>");
	us_text(pg, f->v);
	lw_pg_raw(pg, "</b>");
	if (isfinite(f->lo) && isfinite(f->hi)) {
		lw_pg_raw(pg, " <small>[");
		us_text(pg, f->lo);
		lw_pg_raw(pg, ", ");
		us_text(pg, f->hi);
		lw_pg_raw(pg, "]</small>");
	}
	if (m) {
		lw_pg_raw(pg, "<div class=\"chg\">");
		change_text(pg, c, m);
		lw_pg_raw(pg, "</div>");
	}
	lw_pg_raw(pg, "<ul class=\"runs\">");
	for (size_t i = 0; i < cg->n && cg->n > 1; i++) {
		size_t ri = cg->first + i;
		const struct lw_cfig *rf = &p->run[ri * LW_CMP_NSTAT + k];

		lw_pg_raw(pg, "<li data-run=\"%zu\"", ri);
		attr_num(pg, "data-value", rf->v);
		attr_num(pg, "data-ci-low", rf->lo);
		attr_num(pg, "data-ci-high", rf->hi);
		lw_pg_raw(pg, ">");
		lw_pg_text(pg, c->run[ri].label);
		lw_pg_raw(pg, " ");
		us_text(pg, rf->v);
		if (isfinite(rf->lo) && isfinite(rf->hi)) {
			lw_pg_raw(pg, " <small>[");
			us_text(pg, rf->lo);
			lw_pg_raw(pg, ", ");
			us_text(pg, rf->hi);
			lw_pg_raw(pg, "]</small>");
		}
		lw_pg_raw(pg, "</li>");
	}
	lw_pg_raw(pg, "</ul></td>");
}

/* The groups' figures per statistic: each run a small point, the group's
 * figure a larger one with its interval, groups side by side. */
static void figures_plot(struct page *pg, const struct lw_comparison *c, const struct lw_cmp_probe *p)
{
	struct lw_script sc;
	FILE *f = lw_script_open(&sc);
	double w = 0.7 / (double)c->ngroup;
	char id[64], cap[256], lbl[160];
	int others = 0;

	if (!f)
		return;
	for (size_t g = 0; g < c->ngroup; g++) {
		fprintf(f, "$g%zu << EOD\n", g);
		for (int k = 0; k < LW_CMP_NSTAT; k++) {
			const struct lw_cfig *x = &p->grp[g * LW_CMP_NSTAT + k];
			double at = k + (g + 0.5) * w - 0.35;

			if (isfinite(x->v))
				fprintf(f, "%g %g %g %g\n", at, x->v / 1e3,
					(isfinite(x->lo) ? x->lo : x->v) / 1e3,
					(isfinite(x->hi) ? x->hi : x->v) / 1e3);
		}
		fprintf(f, "EOD\n$r%zu << EOD\n", g);
		for (int k = 0; k < LW_CMP_NSTAT; k++)
			for (size_t i = 0; i < c->group[g].n; i++) {
				const struct lw_cfig *x = &p->run[(c->group[g].first + i) * LW_CMP_NSTAT + k];

				if (isfinite(x->v) && x->v > 0)
					fprintf(f, "%g %g\n", k + (g + 0.5) * w - 0.35, x->v / 1e3);
			}
		fprintf(f, "EOD\n");
	}
	fprintf(f, "set logscale y\nset grid ytics\nset key outside right top Left reverse\n"
		"set ylabel \"latency (us), log scale\"\nset xrange [-0.6:%d.6]\nset xtics (", LW_CMP_NSTAT - 1);
	for (int k = 0; k < LW_CMP_NSTAT; k++)
		fprintf(f, "%s\"%s\" %d", k ? ", " : "", lw_stat_names[k], k);
	fprintf(f, ")\nset xtics nomirror\nplot ");
	for (size_t g = 0; g < c->ngroup; g++) {
		const char *col = group_color(g);

		fprintf(f, "%s$g%zu using 1:2:3:4 with yerrorbars pt 7 ps 1.1 lw 1.5 lc rgb \"%s\" ",
			g ? ", " : "", g, col);
		if (g < LEGEND_GROUPS) {
			fprintf(f, "title ");
			legend_label(c, g, lbl, sizeof(lbl));
			lw_gp_quote(f, lbl);
		} else if (!others++) {
			char t[64];

			snprintf(t, sizeof(t), "others (%zu groups)", c->ngroup - LEGEND_GROUPS);
			fprintf(f, "title ");
			lw_gp_quote(f, t);
		} else {
			fprintf(f, "notitle");
		}
		fprintf(f, ", $r%zu using 1:2 with points pt 6 ps 0.7 lc rgb \"%s\" notitle", g, col);
	}
	fprintf(f, ", NaN with points pt 6 ps 0.7 lc rgb \"#555555\" title \"each run\"\n");
	snprintf(id, sizeof(id), "cmp-groups-%s", p->name);
	snprintf(cap, sizeof(cap), "Probe %s: each group's figure (filled, with its interval) and "
		 "each of its runs' (rings), side by side per statistic.", p->name);
	lw_pg_figure(pg, id, lw_script_close(&sc), 960, 400, cap);
}

/* Histogram and distribution of every run, drawn in its group's colour,
 * one legend entry per group (the first LEGEND_GROUPS, then "others"). */
static void overlay_plots(struct page *pg, const struct lw_comparison *c, const struct lw_cmp_probe *p)
{
	const json_t **hist = calloc(c->nrun, sizeof(*hist));
	struct lw_gp_style *st = calloc(c->nrun, sizeof(*st));
	char (*names)[160] = calloc(c->ngroup + 1, sizeof(*names));
	int *titled = calloc(c->ngroup + 1, sizeof(*titled));
	struct lw_script sc;
	char id[64], cap[256];
	size_t n = 0;
	FILE *f;

	if (!hist || !st || !names || !titled) {
		error("out of memory");
		goto out;
	}
	for (size_t g = 0; g < c->ngroup; g++) {
		if (g < LEGEND_GROUPS)
			legend_label(c, g, names[g], sizeof(names[g]));
		else
			snprintf(names[LEGEND_GROUPS], sizeof(names[0]), "others (%zu groups)",
				 c->ngroup - LEGEND_GROUPS);
		for (size_t i = 0; i < c->group[g].n; i++) {
			size_t gi = g < LEGEND_GROUPS ? g : LEGEND_GROUPS;
			const json_t *h = json_object_get(json_object_get(json_object_get(
				lw_rrun_probes(&c->run[c->group[g].first + i]), p->name), "all"),
				"histogram");

			if (!h)
				continue;
			hist[n] = h;
			st[n].color = group_color(g);
			st[n].title = titled[gi]++ ? NULL : names[gi];
			n++;
		}
	}
	if (!n) {
		lw_pg_raw(pg, "<p class=\"missing\">No histogram of probe %s in the runs' analysis.json: "
		       "no distribution plots.</p>\n", p->name);
		goto out;
	}
	snprintf(id, sizeof(id), "cmp-hist-%s", p->name);
	f = lw_script_open(&sc);
	if (f)
		lw_gp_histogram_styled(f, hist, NULL, n, 0, st, "outside right top Left reverse");
	snprintf(cap, sizeof(cap), "Latency histograms of probe %s, all CPUs: every run, in its "
		 "group's colour.", p->name);
	lw_pg_figure(pg, id, lw_script_close(&sc), 960, 420, cap);
	snprintf(id, sizeof(id), "cmp-cdf-%s", p->name);
	f = lw_script_open(&sc);
	if (f)
		lw_gp_cdf_styled(f, hist, NULL, n, 0, NULL, st, "outside right top Left reverse");
	snprintf(cap, sizeof(cap), "Cumulative distributions of probe %s on a nines scale: every "
		 "run, in its group's colour.", p->name);
	lw_pg_figure(pg, id, lw_script_close(&sc), 960, 420, cap);
out:
	free(hist);
	free(st);
	free(names);
	free(titled);
}

static void probe_section(struct page *pg, const struct lw_comparison *c, const struct lw_cmp_probe *p)
{
	lw_pg_raw(pg, "<h3>Probe ");
	lw_pg_text(pg, p->name);
	lw_pg_raw(pg, "</h3>\n<table class=\"groups\" data-probe=\"%s\">\n", p->name);
	group_head(pg, c, "latency (us)");
	lw_pg_raw(pg, "<tr><td class=\"l\">samples</td>");
	for (size_t g = 0; g < c->ngroup; g++) {
		double total = 0;

		for (size_t i = 0; i < c->group[g].n; i++)
			total += p->count[c->group[g].first + i];
		lw_pg_raw(pg, "<td data-group=\"%zu\" data-stat=\"samples\"", g);
		attr_num(pg, "data-value", total);
		lw_pg_raw(pg, "><b>");
		if (isfinite(total))
			lw_pg_textf(pg, "%.0f", total);
		else
			lw_pg_text(pg, "unknown");
		lw_pg_raw(pg, "</b><ul class=\"runs\">");
		for (size_t i = 0; i < c->group[g].n; i++) {
			size_t ri = c->group[g].first + i;

			lw_pg_raw(pg, "<li data-run=\"%zu\">", ri);
			lw_pg_text(pg, c->run[ri].label);
			if (isfinite(p->count[ri]))
				lw_pg_textf(pg, " %.0f", p->count[ri]);
			else
				lw_pg_text(pg, " unknown");
			lw_pg_raw(pg, "</li>");
		}
		lw_pg_raw(pg, "</ul></td>");
	}
	lw_pg_raw(pg, "</tr>\n");
	for (int k = 0; k < LW_CMP_NSTAT; k++) {
		lw_pg_raw(pg, "<tr><td class=\"l\">%s</td>", lw_stat_names[k]);
		for (size_t g = 0; g < c->ngroup; g++)
			stat_cell(pg, c, p, g, k);
		lw_pg_raw(pg, "</tr>\n");
	}
	lw_pg_raw(pg, "</table>\n<p class=\"missing\">");
	lw_pg_textf(pg, "Each group's figure (bold) is the geometric mean of its runs' figures, with its "
		 "%.0f %% interval from the spread between its runs (one run: the run's own interval); "
		 "beneath it, each run's own figure with its within-run interval (block bootstrap). "
		 "Beside a group's figure: its change against the baseline group with its interval, "
		 "the p-value the verdict was decided on (adjusted by Holm over every metric tested), "
		 "and the verdict of latwatt compare. The max is shown, not judged.",
		 c->conf * 100);
	lw_pg_raw(pg, "</p>\n");
	figures_plot(pg, c, p);
	overlay_plots(pg, c, p);
}

/* ---- every metric judged ---------------------------------------------- */

static void metric_value(struct page *pg, const struct lw_cmetric *m, int side)
{
	double v = side ? m->value : m->base;
	int count = !strcmp(m->unit, "count");

	if (count && m->nper[side] + m->nper[!side])	/* a count: the group's total */
		v = side ? m->total : m->base_total;
	if (!isfinite(v)) {
		lw_pg_text(pg, m->note && !strncmp(m->note, "not recorded", 12) ? "not recorded" :
			m->note && !strncmp(m->note, "unknown", 7) ? "unknown" : "-");
		return;
	}
	if (!strcmp(m->unit, "ns"))
		us_text(pg, v), lw_pg_text(pg, " us");
	else if (count)
		lw_pg_textf(pg, "%.0f", v);
	else if (!strcmp(m->unit, "W"))
		lw_pg_textf(pg, "%.3f W", v);
	else if (!strcmp(m->unit, "fraction"))
		lw_pg_textf(pg, "%.1f %%", v * 100);
	else
		lw_pg_textf(pg, "%g", v);
	if (count && m->nper[side] > 1) {
		lw_pg_raw(pg, "<ul class=\"runs\">");
		for (size_t i = 0; i < m->nper[side]; i++)
			lw_pg_raw(pg, "<li>%.0f</li>", m->per[side][i]);
		lw_pg_raw(pg, "</ul>");
	}
}

static void verdicts_section(struct page *pg, const struct lw_comparison *c)
{
	const struct lw_cmp_group *b = &c->group[c->baseline];

	lw_pg_section(pg, "verdicts", "Every metric compared", 1);
	lw_pg_raw(pg, "<p class=\"missing\">");
	lw_pg_textf(pg, "As latwatt compare prints them: a latency or power is a group's geometric mean, "
		 "a count the total over its runs (each run's beneath), a share the mean. p is "
		 "adjusted by Holm over the metrics tested; a verdict needs p < %g and a change beyond "
		 "%.0f %%; mdc is the smallest change these runs could detect.", c->alpha,
		 c->practical * 100);
	lw_pg_raw(pg, "</p>\n");
	for (size_t g = 0; g < c->ngroup; g++) {
		const struct lw_cmp_group *cg = &c->group[g];

		if (!cg->compared)
			continue;
		lw_pg_raw(pg, "<h3>");
		lw_pg_textf(pg, "%s against %s", cg->name, b->name);
		lw_pg_raw(pg, "</h3>\n<table class=\"metrics\" data-group=\"%zu\">\n<tr><th class=\"l\">"
		       "metric</th><th>", g);
		lw_pg_text(pg, b->name);
		lw_pg_raw(pg, "</th><th>");
		lw_pg_text(pg, cg->name);
		lw_pg_raw(pg, "</th><th>change</th><th>p (Holm)</th><th>mdc</th><th class=\"l\">verdict"
		       "</th><th class=\"l\">note</th></tr>\n");
		for (size_t i = 0; i < cg->nm; i++) {
			const struct lw_cmetric *m = &cg->m[i];

			lw_pg_raw(pg, "<tr data-metric=\"");
			lw_pg_text(pg, m->name);
			lw_pg_raw(pg, "\" data-verdict=\"%s\"", m->verdict);
			attr_num(pg, "data-p", m->p_adj);
			lw_pg_raw(pg, "><td class=\"l\">");
			lw_pg_text(pg, m->name);
			lw_pg_raw(pg, "</td><td>");
			metric_value(pg, m, 0);
			lw_pg_raw(pg, "</td><td>");
			metric_value(pg, m, 1);
			lw_pg_raw(pg, "</td><td>");
			if (m->rel_infinite)
				lw_pg_text(pg, "from 0");
			else if (isfinite(m->rel))
				lw_pg_textf(pg, "%+.1f %%", m->rel * 100);
			else
				lw_pg_text(pg, "-");
			if (isfinite(m->ci_lo) && isfinite(m->ci_hi))
				lw_pg_textf(pg, " [%+.1f, %+.1f] %%", m->ci_lo * 100, m->ci_hi * 100);
			lw_pg_raw(pg, "</td><td>");
			if (isfinite(m->p_adj))
				lw_pg_textf(pg, m->p_adj < 0.001 ? "< 0.001" : "%.3f", m->p_adj);
			else
				lw_pg_text(pg, "-");
			lw_pg_raw(pg, "</td><td>");
			if (isfinite(m->mdc))
				lw_pg_textf(pg, m->mdc > 10 ? "> 1000 %%" : "%.0f %%", m->mdc * 100);
			else
				lw_pg_text(pg, "-");
			lw_pg_raw(pg, "</td><td class=\"l %s\">", vclass(m->verdict));
			lw_pg_text(pg, !strcmp(m->verdict, LW_NA) ? "no verdict" : m->verdict);
			lw_pg_raw(pg, "</td><td class=\"l note\">");
			lw_pg_text(pg, m->note ? m->note : "");
			lw_pg_raw(pg, "</td></tr>\n");
		}
		lw_pg_raw(pg, "</table>\n");
	}
	lw_pg_section_end(pg);
}

/* ---- causes and power --------------------------------------------------- */

/* A group's mean share of cause @k (k == ncause: the causes past the top,
 * summed); NAN when none of its runs has causes. */
static double group_share(const struct lw_comparison *c, size_t g, size_t k, size_t top)
{
	double sum = 0;
	size_t n = 0;

	for (size_t i = 0; i < c->group[g].n; i++) {
		const double *sh = c->share + (c->group[g].first + i) * c->ncause;
		double v = 0;

		if (!isfinite(sh[0]))
			continue;
		if (k < top)
			v = sh[k];
		else
			for (size_t j = top; j < c->ncause; j++)
				v += sh[j];
		sum += v;
		n++;
	}
	return n ? sum / (double)n : NAN;
}

static double run_share(const struct lw_comparison *c, size_t ri, size_t k, size_t top)
{
	const double *sh = c->share + ri * c->ncause;
	double v = 0;

	if (!isfinite(sh[0]))
		return NAN;
	if (k < top)
		return sh[k];
	for (size_t j = top; j < c->ncause; j++)
		v += sh[j];
	return v;
}

static void causes_section(struct page *pg, const struct lw_comparison *c)
{
	size_t top = c->ncause < TOP_CAUSES ? c->ncause : TOP_CAUSES;
	size_t rows = top + (c->ncause > top);
	double xmax = 1;
	struct lw_script sc;
	char lbl[160], cap[200];
	int others = 0;
	FILE *f;

	lw_pg_section(pg, "causes", "Spike causes", c->ncause > 0);
	if (!c->ncause) {
		lw_pg_missing(pg, "Spike causes in every run", "spikes.causes");
		lw_pg_section_end(pg);
		return;
	}
	lw_pg_raw(pg, "<table class=\"causes\">\n");
	group_head(pg, c, "cause (share of spike time)");
	for (size_t k = 0; k < rows; k++) {
		lw_pg_raw(pg, "<tr data-cause=\"");
		lw_pg_text(pg, k < top ? c->cause[k] : "others");
		lw_pg_raw(pg, "\"><td class=\"l\">");
		if (k < top)
			lw_pg_text(pg, c->cause[k]);
		else
			lw_pg_textf(pg, "others (%zu causes)", c->ncause - top);
		lw_pg_raw(pg, "</td>");
		for (size_t g = 0; g < c->ngroup; g++) {
			double v = group_share(c, g, k, top);

			lw_pg_raw(pg, "<td><b>");
			if (isfinite(v))
				lw_pg_textf(pg, "%.1f %%", v * 100);
			else
				lw_pg_text(pg, "not recorded");
			lw_pg_raw(pg, "</b>");
			if (c->group[g].n > 1) {
				lw_pg_raw(pg, "<ul class=\"runs\">");
				for (size_t i = 0; i < c->group[g].n; i++) {
					double r = run_share(c, c->group[g].first + i, k, top);

					lw_pg_raw(pg, "<li>");
					lw_pg_text(pg, c->run[c->group[g].first + i].label);
					if (isfinite(r))
						lw_pg_textf(pg, " %.1f %%", r * 100);
					else
						lw_pg_text(pg, " not recorded");
					lw_pg_raw(pg, "</li>");
				}
				lw_pg_raw(pg, "</ul>");
			}
			lw_pg_raw(pg, "</td>");
		}
		lw_pg_raw(pg, "</tr>\n");
	}
	lw_pg_raw(pg, "</table>\n");
	if (c->ncause > top)
		lw_pg_raw(pg, "<p class=\"missing\">The first %zu of %zu causes, by their largest share in "
		       "a run; the rest summed as others.</p>\n", top, c->ncause);
	if (c->causes_computed)
		lw_pg_raw(pg, "<p class=\"missing\">Some runs were never analyzed: their causes come from "
		       "this report's own analysis of their trace. latwatt compare reads causes from "
		       "analysis.json only, so the metrics above have none for them; run latwatt "
		       "analyze on the runs for both.</p>\n");
	/* horizontal bars: the causes' names read level, cut to LABEL_CHARS */
	f = lw_script_open(&sc);
	if (f) {
		double h = 0.8 / (double)c->ngroup;

		for (size_t g = 0; g < c->ngroup; g++) {
			fprintf(f, "$s%zu << EOD\n", g);
			for (size_t k = 0; k < rows; k++) {
				double v = group_share(c, g, k, top), y = (double)(rows - 1 - k) +
					0.4 - ((double)g + 0.5) * h;

				if (!isfinite(v))
					continue;
				xmax = fmax(xmax, v * 100);
				fprintf(f, "%g %g %g %g %g %g\n", v * 50, y, 0.0, v * 100, y - h * 0.45,
					y + h * 0.45);
			}
			fprintf(f, "EOD\n");
		}
		fprintf(f, "set style fill solid 0.8 noborder\nset grid xtics\nset xrange [0:%g]\n"
			"set yrange [-0.6:%zu.6]\nset xlabel \"share of spike time (%%)\"\n"
			"set key outside right top Left reverse\nset lmargin %d\nset ytics (", xmax * 1.08,
			rows - 1, LABEL_CHARS + 2);
		for (size_t k = 0; k < rows; k++) {
			if (k < top)
				short_label(c->cause[k], LABEL_CHARS, lbl, sizeof(lbl));
			else
				snprintf(lbl, sizeof(lbl), "others (%zu)", c->ncause - top);
			fprintf(f, "%s", k ? ", " : "");
			lw_gp_quote(f, lbl);
			fprintf(f, " %zu", rows - 1 - k);
		}
		fprintf(f, ")\nset ytics nomirror scale 0\nplot ");
		for (size_t g = 0; g < c->ngroup; g++) {
			fprintf(f, "%s$s%zu using 3:2:3:4:5:6 with boxxyerror lc rgb \"%s\" ", g ? ", " : "",
				g, group_color(g));
			if (g < LEGEND_GROUPS) {
				legend_label(c, g, lbl, sizeof(lbl));
				fprintf(f, "title ");
				lw_gp_quote(f, lbl);
			} else if (!others++) {
				snprintf(lbl, sizeof(lbl), "others (%zu groups)", c->ngroup - LEGEND_GROUPS);
				fprintf(f, "title ");
				lw_gp_quote(f, lbl);
			} else {
				fprintf(f, "notitle");
			}
		}
		fprintf(f, "\n");
	}
	snprintf(cap, sizeof(cap), "Share of spike time by cause, each group's mean over its runs: "
		 "the first %zu causes%s.", top, c->ncause > top ? " and the rest as others" : "");
	lw_pg_figure(pg, "cmp-causes", lw_script_close(&sc), 960, 110 + (int)rows * (10 + 12 *
		  (int)(c->ngroup > 2 ? c->ngroup : 2)), cap);
	lw_pg_section_end(pg);
}

static void power_section(struct page *pg, const struct lw_comparison *c)
{
	const struct lw_cmp_group *first = NULL;
	const struct lw_cmetric *pm = NULL;
	int have = 0;

	for (size_t i = 0; i < c->nrun; i++)
		have |= isfinite(c->power_w[i]);
	for (size_t g = 0; g < c->ngroup && !first; g++)
		if (c->group[g].compared)
			first = &c->group[g];
	lw_pg_section(pg, "power", "Power", have);
	if (!have) {
		lw_pg_missing(pg, "Power in every run", "power.total.average_w");
		lw_pg_section_end(pg);
		return;
	}
	lw_pg_raw(pg, "<table class=\"power\">\n");
	group_head(pg, c, "average power");
	lw_pg_raw(pg, "<tr><td class=\"l\">W</td>");
	for (size_t g = 0; g < c->ngroup; g++) {
		const struct lw_cmp_group *cg = &c->group[g];

		pm = lw_cmp_metric(g == c->baseline ? first : cg, "power");
		lw_pg_raw(pg, "<td data-group=\"%zu\"><b>", g);
		if (pm && isfinite(g == c->baseline ? pm->base : pm->value))
			lw_pg_textf(pg, "%.3f W", g == c->baseline ? pm->base : pm->value);
		else
			lw_pg_text(pg, "not recorded in every run");
		lw_pg_raw(pg, "</b>");
		if (pm && g != c->baseline) {
			lw_pg_raw(pg, "<div class=\"chg\">");
			change_text(pg, c, pm);
			lw_pg_raw(pg, "</div>");
		}
		lw_pg_raw(pg, "<ul class=\"runs\">");
		for (size_t i = 0; i < cg->n; i++) {
			size_t ri = cg->first + i;

			lw_pg_raw(pg, "<li>");
			lw_pg_text(pg, c->run[ri].label);
			if (isfinite(c->power_w[ri]))
				lw_pg_textf(pg, " %.3f W (%s)", c->power_w[ri],
					 c->power_kind[ri] ? c->power_kind[ri] : "unlabelled");
			else
				lw_pg_text(pg, " not recorded");
			lw_pg_raw(pg, "</li>");
		}
		lw_pg_raw(pg, "</ul></td>");
	}
	lw_pg_raw(pg, "</tr>\n</table>\n<p class=\"missing\">A group's power is the geometric mean of "
	       "its runs' averages.</p>\n");
	lw_pg_section_end(pg);
}

/* ---- rules and method ------------------------------------------------- */

static void rules_section(struct page *pg, const struct lw_comparison *c, const struct lw_checks *cs)
{
	lw_pg_section(pg, "rules", "Comparison rules", cs->n > 0);
	if (!strcmp(c->source, "runs"))
		lw_pg_raw(pg, "<p class=\"missing\">The rule: no percentile of a group worse than the "
		       "baseline's (compare's verdict) by more than %.0f %% (--tolerance).</p>\n",
		       c->tolerance * 100);
	lw_pg_raw(pg, "<table class=\"checks\" data-suite=\"compare\">\n<tr><th class=\"l\">rule</th>"
	       "<th>result</th><th>measured</th><th>limit</th><th class=\"l\">details</th></tr>\n");
	for (size_t i = 0; i < cs->n; i++) {
		const struct lw_check *k = &cs->c[i];
		const char *res = k->result == LW_PASS ? "pass" : k->result == LW_FAIL ? "fail" :
				  "undecided";

		if (strcmp(k->suite, "compare"))
			continue;
		lw_pg_raw(pg, "<tr data-check=\"");
		lw_pg_text(pg, k->name);
		lw_pg_raw(pg, "\" data-result=\"%s\"><td class=\"l\"><code>", res);
		lw_pg_text(pg, k->name);
		lw_pg_raw(pg, "</code></td><td class=\"%s\">%s</td>", k->result == LW_SKIP ? "skip" : res,
		       k->result == LW_FAIL ? "FAIL" : res);
		if (k->result == LW_SKIP)
			lw_pg_raw(pg, "<td>-</td><td>-</td>");
		else
			lw_pg_raw(pg, "<td>%.4g %s</td><td>%.4g %s</td>", k->measured, k->unit, k->limit,
			       k->unit);
		lw_pg_raw(pg, "<td class=\"l\">");
		lw_pg_text(pg, k->message);
		lw_pg_raw(pg, "</td></tr>\n");
	}
	lw_pg_raw(pg, "</table>\n");
	lw_pg_section_end(pg);
}

static void method_section(struct page *pg)
{
	lw_pg_section(pg, "method", "How verdicts are reached", 1);
	lw_pg_raw(pg, "<p class=\"missing\">As latwatt(1) says it (LATWATT COMPARE); the methods of "
	       "each metric, the within-run bootstrap among them, are under its \"Metrics and "
	       "methods\".</p>\n");
	for (size_t i = 0; lw_cmp_method[i]; i++) {
		lw_pg_raw(pg, "<p class=\"method\">");
		lw_pg_text(pg, lw_cmp_method[i]);
		lw_pg_raw(pg, "</p>\n");
	}
	lw_pg_section_end(pg);
}

int lw_report_html_compare(FILE *out, const struct lw_report_in *in)
{
	const struct lw_comparison *c = in->cmp;
	const struct lw_checks *cs = in->checks;
	const struct lw_report_opts *o = in->ro;
	struct page pg = { .f = out, .o = o };
	size_t compared = 0, last = 0;
	char title[512];

	for (size_t g = 0; g < c->ngroup; g++)
		if (c->group[g].compared) {
			compared++;
			last = g;
		}
	if (compared == 1)
		snprintf(title, sizeof(title), "latwatt comparison: %s against %s", c->group[last].name,
			 c->group[c->baseline].name);
	else
		snprintf(title, sizeof(title), "latwatt comparison: %zu groups against %s", compared,
			 c->group[c->baseline].name);
	lw_pg_begin(&pg, title);
	verdict_block(&pg, c, cs);
	groups_table(&pg, c);
	lw_pg_section(&pg, "latency", "Latency", c->nprobe > 0);
	if (!c->nprobe)
		lw_pg_missing(&pg, "Latency samples", "probes");
	for (size_t i = 0; i < c->nprobe; i++)
		probe_section(&pg, c, &c->probe[i]);
	lw_pg_section_end(&pg);
	verdicts_section(&pg, c);
	causes_section(&pg, c);
	power_section(&pg, c);
	rules_section(&pg, c, cs);
	method_section(&pg);
	lw_pg_end(&pg);
	if (fflush(out) == EOF || ferror(out))
		return error_errno("cannot write the report");
	if (pg.failed)
		warning("%d plot%s could not be drawn (see the report)", pg.failed,
			pg.failed > 1 ? "s" : "");
	return 0;
}
