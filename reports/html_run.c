// SPDX-License-Identifier: GPL-2.0-only
/* The HTML report of one run. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/parse.h"
#include "lib/samples.h"
#include "lib/stats.h"
#include "power/power.h"
#include "analysis/timeline.h"
#include "lib/sort.h"
#include "reports/page.h"
#include "workloads/rkind.h"

static const char *verdict_class(enum lw_verdict v)
{
	return v == LW_PASS ? "pass" : v == LW_FAIL ? "fail" : "skip";
}

static const char *verdict_word(enum lw_verdict v)
{
	return v == LW_PASS ? "pass" : v == LW_FAIL ? "FAIL" : "skipped";
}

void lw_report_checks_table(struct page *pg, const struct lw_checks *cs, const char *suite)
{
	int budgets = !strcmp(suite, "budgets");

	lw_pg_raw(pg, "<table class=\"checks\" data-suite=\"%s\">\n<tr><th class=\"l\">check</th>"
	       "%s<th>result</th><th>measured</th><th>limit</th><th class=\"l\">details</th></tr>\n",
	       suite, budgets ? "<th class=\"l\">rule</th><th class=\"l\">from</th>" : "");
	for (size_t i = 0; i < cs->n; i++) {
		const struct lw_check *c = &cs->c[i];

		if (strcmp(c->suite, suite))
			continue;
		lw_pg_raw(pg, "<tr data-check=\"");
		lw_pg_text(pg, c->name);
		lw_pg_raw(pg, "\" data-result=\"%s\"><td class=\"l\"><code>", verdict_class(c->result));
		lw_pg_text(pg, c->name);
		lw_pg_raw(pg, "</code></td>");
		if (budgets) {
			lw_pg_raw(pg, "<td class=\"l\"><code>");
			lw_pg_text(pg, c->rule);
			lw_pg_raw(pg, "</code></td><td class=\"l\">");
			lw_pg_text(pg, c->origin);
			lw_pg_raw(pg, "</td>");
		}
		lw_pg_raw(pg, "<td class=\"%s\">%s</td>", verdict_class(c->result),
		       verdict_word(c->result));
		if (c->result == LW_SKIP)
			lw_pg_raw(pg, "<td>-</td><td>-</td>");
		else
			lw_pg_raw(pg, "<td data-value=\"%.17g\">%.4g %s</td><td data-value=\"%.17g\">%.4g %s</td>",
			       c->measured, c->measured, c->unit, c->limit, c->limit, c->unit);
		lw_pg_raw(pg, "<td class=\"l\">");
		lw_pg_text(pg, c->message);
		lw_pg_raw(pg, "</td></tr>\n");
	}
	lw_pg_raw(pg, "</table>\n");
}

/* The class of a verdict's result word. */
static const char *outcome_class(const char *word)
{
	return !strcmp(word, "PASS") ? "pass" : !strcmp(word, "FAIL") ? "fail" :
	       !strcmp(word, "INCOMPLETE") ? "incomplete" : "skip";
}

/* The verdict block first: the same lines as `latwatt analyze` opens with. */
static void verdict_block(struct page *pg, const struct lw_rrun *r)
{
	struct lw_vline l[LW_VERDICT_LINES];
	size_t n = lw_verdict_lines(&r->verdict, l);

	lw_pg_raw(pg, "<div id=\"verdict\" data-verdict=\"%s\">\n<p><span class=\"verdict %s\">"
	       "<strong>%s</strong></span> ", outcome_class(l[0].result), outcome_class(l[0].result),
	       l[0].result);
	lw_pg_text(pg, l[0].text);
	lw_pg_raw(pg, "</p>\n");
	if (n > 1) {
		lw_pg_raw(pg, "<table class=\"vlines\">\n");
		for (size_t i = 1; i < n; i++) {
			lw_pg_raw(pg, "<tr data-line=\"");
			lw_pg_text(pg, l[i].label);
			lw_pg_raw(pg, "\"><th>");
			lw_pg_text(pg, l[i].label);
			lw_pg_raw(pg, "</th><td class=\"%s\">", l[i].result[0] ?
			       outcome_class(l[i].result) : "");
			lw_pg_text(pg, l[i].result);
			lw_pg_raw(pg, "</td><td>");
			lw_pg_text(pg, l[i].text);
			lw_pg_raw(pg, "</td></tr>\n");
		}
		lw_pg_raw(pg, "</table>\n");
	}
	lw_pg_raw(pg, "</div>\n");
}

static void header(struct page *pg, const struct lw_rrun *r)
{
	const json_t *run = json_object_get(r->analysis, "run");
	char buf[512], nohz[256];

	verdict_block(pg, r);
	lw_pg_section(pg, "run", "Run", 1);
	lw_pg_raw(pg, "<table class=\"kv\">\n");
	lw_pg_kv(pg, "board", lw_rrun_str(r, "board"));
	lw_pg_kv(pg, "kernel release", lw_rrun_str(r, "kernel_release"));
	lw_pg_kv(pg, "kernel version", lw_rrun_str(r, "kernel_version"));
	lw_pg_kv(pg, "preemption model", lw_rrun_str(r, "preempt"));
	lw_pg_kv(pg, "NO_HZ mode", lw_rrun_nohz(r, nohz, sizeof(nohz)));
	lw_pg_kv(pg, "kernel command line", lw_rrun_str(r, "cmdline"));
	lw_pg_kv(pg, "scenario", lw_rrun_str(r, "scenario"));
	lw_format_duration((uint64_t)lw_jnum(run, "duration_ns", 0), buf, sizeof(buf));
	if (json_is_object(json_object_get(run, "end")) && r->start_ns) {
		char actual[64];

		lw_format_duration((uint64_t)lw_jnum(json_object_get(run, "end"), "monotonic_ns", 0) -
				   r->start_ns, actual, sizeof(actual));
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " asked, %s measured",
			 actual);
	}
	lw_pg_kv(pg, "duration", lw_jnum(run, "duration_ns", 0) > 0 ? buf : "not recorded");
	snprintf(buf, sizeof(buf), "%s%s%s", lw_rrun_str(r, "status"),
		 json_is_string(json_object_get(run, "status_reason")) ? ": " : "",
		 json_is_string(json_object_get(run, "status_reason")) ?
		 lw_rrun_str(r, "status_reason") : "");
	lw_pg_kv(pg, "status", buf);
	lw_pg_kv(pg, "started (UTC)", lw_rrun_str(r, "start"));
	lw_pg_kv(pg, "CPUs measured", lw_rrun_str(r, "cpus"));
	lw_pg_kv(pg, "CPU", lw_rrun_str(r, "cpu_model"));
	lw_pg_kv(pg, "clocksource", lw_rrun_str(r, "clocksource"));
	lw_pg_kv(pg, "latwatt command", lw_rrun_str(r, "command"));
	lw_pg_kv(pg, "PM QoS (cpu_dma_latency)", lw_rrun_pmqos(r, buf, sizeof(buf)));
	lw_pg_kv(pg, "analysis", r->analysis_computed ?
	      "computed for this report (the run has no analysis.json of this version)" :
	      "analysis.json");
	lw_pg_raw(pg, "</table>\n");
	lw_pg_section_end(pg);
}

/* Per-probe percentile table: data attributes carry analysis.json's values. */
static void stats_table(struct page *pg, const char *probe, const json_t *p)
{
	const json_t *cpus = json_object_get(p, "cpus"), *row;
	size_t i, n = json_array_size(cpus);

	lw_pg_raw(pg, "<table class=\"stats\" data-probe=\"%s\">\n<tr><th>CPU</th><th>samples</th>",
	       probe);
	for (int k = 0; k < LW_NSTAT; k++)
		lw_pg_raw(pg, "<th>%s (us)</th>", lw_stat_names[lw_stat_columns[k]]);
	lw_pg_raw(pg, "<th>over threshold</th><th>missed periods</th><th>dropped</th></tr>\n");
	for (i = 0; i <= n; i++) {
		char cpu[16], attrs[96];

		row = i < n ? json_array_get(cpus, i) : json_object_get(p, "all");
		if (!row)
			continue;
		if (i < n)
			snprintf(cpu, sizeof(cpu), "%" JSON_INTEGER_FORMAT,
				 json_integer_value(json_object_get(row, "cpu")));
		else
			strcpy(cpu, "all");
		snprintf(attrs, sizeof(attrs), "data-probe=\"%s\" data-cpu=\"%s\"", probe, cpu);
		lw_pg_raw(pg, "<tr><th>%s</th><td %s data-key=\"count\" data-value=\"%.17g\">%.0f</td>",
		       cpu, attrs, lw_jnum(row, "count", 0), lw_jnum(row, "count", 0));
		for (int k = 0; k < LW_NSTAT; k++) {
			const char *key = lw_stat_keys[lw_stat_columns[k]];

			if (json_is_number(json_object_get(row, key)) && lw_jnum(row, "count", 0) > 0)
				lw_pg_td_ns(pg, attrs, key, lw_jnum(row, key, 0));
			else
				lw_pg_raw(pg, "<td %s data-key=\"%s\">-</td>", attrs, key);
		}
		if (json_is_number(json_object_get(row, "over_threshold")))
			lw_pg_raw(pg, "<td %s data-key=\"over_threshold\" data-value=\"%.17g\">%.0f</td>",
			       attrs, lw_jnum(row, "over_threshold", 0), lw_jnum(row, "over_threshold", 0));
		else
			lw_pg_raw(pg, "<td %s data-key=\"over_threshold\">-</td>", attrs);
		for (int k = 0; k < 2; k++) {	/* counts: null is unknown, never 0 */
			const char *key = k ? "dropped" : "missed_periods";

			if (json_is_number(json_object_get(row, key)))
				lw_pg_raw(pg, "<td %s data-key=\"%s\" data-value=\"%.17g\">%.0f</td>",
				       attrs, key, lw_jnum(row, key, 0), lw_jnum(row, key, 0));
			else
				lw_pg_raw(pg, "<td %s data-key=\"%s\">unknown</td>", attrs, key);
		}
		lw_pg_raw(pg, "</tr>\n");
	}
	lw_pg_raw(pg, "</table>\n");
}

/* A spike's probe: a name, or the probe id the attribution engine writes. */
static const char *spike_probe(const json_t *e)
{
	const json_t *p = json_object_get(e, "probe");

	if (json_is_integer(p))
		return lw_probe_name((unsigned)json_integer_value(p));
	return json_is_string(p) ? json_string_value(p) : "?";
}

/* A monitored run's intervals (analysis.json "over_time"): the maximum and
 * p99.9 of each interval over hours, and every interval's histogram as a
 * column of a map (time across, latency up, count as colour). */
static void over_time_figures(struct page *pg, const json_t *ot, const char *name, double thr)
{
	const json_t *iv = json_object_get(ot, "intervals"), *row;
	double t0 = lw_jnum(json_array_get(iv, 0), "start_ns", 0);
	struct lw_script sc;
	char id[64], cap[320];
	FILE *f;
	size_t i;

	snprintf(id, sizeof(id), "maxima-%s", name);
	f = lw_script_open(&sc);
	if (f) {
		fprintf(f, "$m << EOD\n");
		json_array_foreach((json_t *)iv, i, row) {
			const json_t *p = json_object_get(json_object_get(row, "probes"), name);

			if (p)
				fprintf(f, "%.6f %.3f %.3f\n", (lw_jnum(row, "start_ns", 0) - t0) / 3.6e12,
					lw_jnum(p, "max_ns", 0) / 1e3, lw_jnum(p, lw_stat_keys[LW_STAT_P999], 0) / 1e3);
		}
		fprintf(f, "EOD\nset logscale y\nset grid\nset key outside right top\n"
			"set xlabel \"hours since the start of the run\"\n"
			"set ylabel \"latency (us), log scale\"\n");
		if (thr > 0)
			fprintf(f, "set arrow from graph 0, first %g to graph 1, first %g nohead dt 2 "
				"lc rgb \"#b00000\"\n", thr / 1e3, thr / 1e3);
		fprintf(f, "plot $m using 1:2 with steps lw 1.5 title \"maximum\", "
			"$m using 1:3 with steps lw 1 title \"p99.9\"\n");
	}
	snprintf(cap, sizeof(cap), "Latency over time of probe %s: the maximum and the p99.9 of "
		 "every %.0f s interval, all CPUs%s.", name, lw_jnum(ot, "interval_ns", 0) / 1e9,
		 thr > 0 ? ", the threshold dashed" : "");
	lw_pg_figure(pg, id, lw_script_close(&sc), 960, 380, cap);

	snprintf(id, sizeof(id), "histtime-%s", name);
	f = lw_script_open(&sc);
	if (f) {
		fprintf(f, "$h << EOD\n");
		json_array_foreach((json_t *)json_object_get(ot, "histograms"), i, row) {
			const json_t *h = json_object_get(json_object_get(row, "probes"), name), *b;
			double bw = lw_jnum(h, "bucket_ns", 1000) / 1e3, t = (lw_jnum(row, "start_ns", 0) - t0) /
									     3.6e12;
			size_t k;

			json_array_foreach(json_object_get(h, "buckets"), k, b)
				fprintf(f, "%.6f %.3f %.0f\n", t,
					(double)json_integer_value(json_array_get(b, 0)) * bw,
					(double)json_integer_value(json_array_get(b, 1)));
		}
		fprintf(f, "EOD\nset logscale y\nset logscale cb\nset grid\n"
			"set xlabel \"hours since the start of the run\"\n"
			"set ylabel \"latency (us), log scale\"\nset cblabel \"samples\"\n"
			"set palette rgbformulae 22,13,-31\n"
			"plot $h using 1:($2 > 0 ? $2 : 0.5):3 with points pt 5 ps 0.6 palette "
			"notitle\n");
	}
	snprintf(cap, sizeof(cap), "Histogram over time of probe %s (OSADL's 3-D view from "
		 "above): a column per interval (per group of intervals in a long run: 128 "
		 "columns at most), 1 us buckets up, the count of each as its colour, log "
		 "scales.", name);
	lw_pg_figure(pg, id, lw_script_close(&sc), 960, 420, cap);
}

/* A spike marker of the latency-over-time plot. */
struct marker {
	double t, us;
	int label;		/* its number in the spike table, 0: drawn without */
};

static int cmp_marker_us(const void *a, const void *b)
{
	const struct marker *x = a, *y = b;

	return (x->us < y->us) - (x->us > y->us);
}

/*
 * Number the markers, largest first, leaving unnumbered those that would
 * print over a number already placed (closer than @dx in time and a factor
 * @dy in latency: the plot's y axis is logarithmic).  The table under the
 * plot lists every spike with its number.
 */
static void place_labels(struct marker *m, size_t n, double dx, double dy)
{
	lw_qsort(m, n, sizeof(*m), cmp_marker_us);
	for (size_t i = 0; i < n; i++) {
		int clash = 0;

		for (size_t k = 0; k < i && !clash; k++)
			clash = m[k].label && fabs(m[k].t - m[i].t) < dx &&
				m[i].us > 0 && m[k].us / m[i].us < dy;
		if (clash)
			m[i].label = 0;
	}
}

/*
 * Latency over time of probe @name: each CPU's series of bucket maxima from
 * the analysis' "timeline" (@tp: its entry for the probe), merged down to
 * the report's --points, the top spikes circled with their numbers in the
 * spike table (else the largest samples).
 */
static void time_figure(struct page *pg, const struct lw_rrun *r, const char *name,
			const json_t *tp, double thr)
{
	const json_t *tl = json_object_get(r->analysis, "timeline"), *c, *pt, *e;
	const json_t *spk = json_object_get(json_object_get(r->analysis, "spikes"), "top");
	double bucket = lw_jnum(tl, "bucket_ns", 1), t0 = lw_jnum(tl, "t0_ns", 0);
	double span = fmax(lw_jnum(tl, "last_ns", 0), lw_jnum(json_object_get(r->analysis, "run"),
						     "duration_ns", 0));
	size_t i, j, ncpu = 0, nm = 0, nb = span > 0 ? (size_t)(span / bucket) + 1 : 1, k;
	size_t cap_m = json_array_size(spk) + LW_TIMELINE_TOP;
	struct marker *m = calloc(cap_m, sizeof(*m));
	char id[64], cap[320];
	struct lw_script sc;
	FILE *f;

	if (!m)
		return;

	k = nb > pg->o->points ? (nb + pg->o->points - 1) / pg->o->points : 1;
	snprintf(id, sizeof(id), "time-%s", name);
	f = lw_script_open(&sc);
	if (!f) {
		free(m);
		return;
	}
	json_array_foreach(json_object_get(tp, "cpus"), i, c) {
		double gmax = -1, gt = 0;
		long long g = -1;

		fprintf(f, "$t%zu << EOD\n", i);
		json_array_foreach(json_object_get(c, "points"), j, pt) {
			double t = json_number_value(json_array_get(pt, 0));
			double v = json_number_value(json_array_get(pt, 1));
			long long gi = (long long)(t / (bucket * (double)k));

			if (gi != g && gmax >= 0)
				fprintf(f, "%.6f %.3f\n", gt / 1e9, gmax / 1e3);
			if (gi != g) {
				g = gi;
				gmax = -1;
			}
			if (v > gmax) {
				gmax = v;
				gt = t;
			}
		}
		if (gmax >= 0)
			fprintf(f, "%.6f %.3f\n", gt / 1e9, gmax / 1e3);
		fprintf(f, "EOD\n");
		ncpu++;
	}
	/* the markers: the spikes the analysis explained, else the largest samples */
	if (json_array_size(spk)) {
		json_array_foreach((json_t *)spk, j, e)
			if (!strcmp(spike_probe(e), name) && nm < cap_m)
				m[nm++] = (struct marker){ (lw_jnum(e, "expected_ns", 0) - t0) / 1e9,
							  lw_jnum(e, "latency_ns", 0) / 1e3, (int)j + 1 };
	} else {
		json_array_foreach(json_object_get(tp, "top"), j, e)
			if (nm < cap_m)
				m[nm++] = (struct marker){ lw_jnum(e, "at_ns", 0) / 1e9,
							  lw_jnum(e, "latency_ns", 0) / 1e3, (int)j + 1 };
	}
	place_labels(m, nm, span / 1e9 * 0.03, 1.6);
	fprintf(f, "$s << EOD\n");
	for (j = 0; j < nm; j++) {
		fprintf(f, "%.6f %.3f \"", m[j].t, m[j].us);
		if (m[j].label)
			fprintf(f, "%d", m[j].label);
		fprintf(f, "\"\n");
	}
	fprintf(f, "EOD\nset logscale y\nset grid\nset key outside right top\n"
		"set xlabel \"time since the start of the run (s)\"\n"
		"set ylabel \"latency (us), log scale\"\nset xrange [0:%g]\n"
		"set offsets 0, 0, graph 0.12, 0\n", span / 1e9 * 1.01 + 1e-3);
	if (thr > 0)
		fprintf(f, "set arrow from graph 0, first %g to graph 1, first %g nohead dt 2 "
			"lc rgb \"#b00000\"\n", thr / 1e3, thr / 1e3);
	fprintf(f, "plot ");
	json_array_foreach(json_object_get(tp, "cpus"), i, c)
		fprintf(f, "%s$t%zu using 1:2 with lines lw 1 title \"CPU %d\"", i ? ", " : "", i,
			(int)lw_jnum(c, "cpu", 0));
	if (nm)
		fprintf(f, ", $s using 1:2 with points pt 6 ps 1.5 lc rgb \"#b00000\" title "
			"\"spikes\", $s using 1:2:3 with labels offset 0,1 font \",9\" "
			"tc rgb \"#b00000\" notitle");
	fprintf(f, "\n");
	snprintf(cap, sizeof(cap), "Latency over time of probe %s: the largest sample of each "
		 "%.3g ms per CPU (spikes survive), the %s circled and numbered as in the spike "
		 "table%s.", name, bucket * (double)k / 1e6, json_array_size(spk) ?
		 "spikes explained" : "largest samples",
		 thr > 0 ? ", the threshold dashed" : "");
	lw_pg_figure(pg, id, lw_script_close(&sc), 960, 380, cap);
	free(m);
	(void)ncpu;
}

static void latency_sections(struct page *pg, const struct lw_rrun *r)
{
	const json_t *probes = lw_rrun_probes(r), *p;
	const json_t *tlp = json_object_get(json_object_get(r->analysis, "timeline"), "probes");
	const char *name;
	double thr = lw_jnum(r->analysis, "threshold_ns", 0);

	lw_pg_section(pg, "latency", "Latency", probes != NULL);
	if (!probes) {
		lw_pg_missing(pg, "Latency samples", "probes");
		lw_pg_section_end(pg);
		return;
	}
	if (!strcmp(lw_jstr(r->analysis, "source", ""), "histogram"))
		lw_pg_raw(pg, "<p>This run was imported from a histogram: percentiles have its bucket "
		       "resolution and there is no latency over time.</p>\n");
	if (!strcmp(lw_jstr(r->analysis, "source", ""), "monitor"))
		lw_pg_raw(pg, "<p>A monitored run: a histogram per interval, not every sample. "
		       "Percentiles have the 1 us bucket resolution; latency over time is the "
		       "maximum of each interval.</p>\n");
	json_object_foreach((json_t *)probes, name, p) {
		const json_t *cpus = json_object_get(p, "cpus"), *all = json_object_get(p, "all");
		size_t n = json_array_size(cpus), k = 0;
		const json_t **hist = calloc(n + 1, sizeof(*hist));
		const char **titles = calloc(n + 1, sizeof(*titles));
		char (*tbuf)[32] = calloc(n + 1, sizeof(*tbuf)), id[64], cap[256];
		struct lw_script sc;
		FILE *f;
		int probe_id = lw_probe_by_name(name);

		if (!hist || !titles || !tbuf) {
			free(hist);
			free(titles);
			free(tbuf);
			error("out of memory");
			continue;
		}
		lw_pg_raw(pg, "<h3>Probe ");
		lw_pg_text(pg, name);
		lw_pg_raw(pg, "</h3>\n");
		stats_table(pg, name, p);
		for (size_t i = 0; i < n; i++) {
			const json_t *c = json_array_get(cpus, i);

			if (!json_object_get(c, "histogram"))
				continue;
			hist[k] = json_object_get(c, "histogram");
			snprintf(tbuf[k], sizeof(tbuf[k]), "CPU %" JSON_INTEGER_FORMAT,
				 json_integer_value(json_object_get(c, "cpu")));
			titles[k] = tbuf[k];
			k++;
		}
		if (json_object_get(all, "histogram")) {
			hist[k] = json_object_get(all, "histogram");
			titles[k++] = "all CPUs";
		}

		/* histogram, OSADL style */
		snprintf(id, sizeof(id), "hist-%s", name);
		f = lw_script_open(&sc);
		if (f)
			lw_gp_histogram(f, hist, titles, k, 1);
		snprintf(cap, sizeof(cap), "Latency histogram of probe %s, 1 us buckets, counts on a "
			 "log scale, per CPU and all CPUs%s.", name,
			 lw_jnum(json_object_get(all, "histogram"), "overflow", 0) > 0 ?
			 "; samples beyond the last bucket (overflow) are drawn at the largest" : "");
		lw_pg_figure(pg, id, lw_script_close(&sc), 960, 420, cap);

		/* latency over time, from the analysis' timeline */
		if (json_is_object(json_object_get(tlp, name)))
			time_figure(pg, r, name, json_object_get(tlp, name), thr);
		/* monitored: the maxima over time and the histogram over time, OSADL style */
		if (json_object_get(r->analysis, "over_time") && probe_id > 0)
			over_time_figures(pg, json_object_get(r->analysis, "over_time"), name, thr);

		/* cumulative distribution */
		snprintf(id, sizeof(id), "cdf-%s", name);
		f = lw_script_open(&sc);
		if (f)
			lw_gp_cdf(f, hist, titles, k, 1, all);
		snprintf(cap, sizeof(cap), "Cumulative distribution of probe %s on a nines scale: "
			 "share of samples at or below a latency; the percentiles of all CPUs marked.",
			 name);
		lw_pg_figure(pg, id, lw_script_close(&sc), 960, 420, cap);
		free(hist);
		free(titles);
		free(tbuf);
	}
	lw_pg_section_end(pg);
}

/* Lanes of a spike timeline, from an event or component kind. */
static const char *const lanes[] = { "idle", "irq", "softirq", "timer", "task", "other" };

static int lane_of(const char *kind)
{
	static const struct { const char *kind; int lane; } map[] = {
		{ "idle", 0 }, { "idle-exit", 0 }, { "idle-late", 0 }, { "irq", 1 }, { "timer-late", 4 },
		{ "softirq", 2 }, { "timer", 3 }, { "task", 4 }, { "preempt", 4 },
		{ "non-preemptible", 4 }, { "probe", 4 },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(kind, map[i].kind))
			return map[i].lane;
	return 5;
}

/* Causes listed in the table and the chart; the rest are one "others" row. */
#define TOP_CAUSES 10

/* A row of a spike's timeline: from @a to @b us after the expected wake-up. */
struct trow {
	double a, b;
	const char *kind, *name;
};

/* Pixels of the plot area of a timeline figure, and of a label's character
 * (gnuplot's svg terminal, font size 8). */
#define TL_PLOT_PX 800.0
#define TL_CHAR_PX 5.5

/* The rows, each labelled only where its box is wide enough for the label
 * (the table above lists every component with its time): labels of short
 * pieces no longer print over each other.  The x range is set here. */
static void spike_rows(FILE *f, const struct trow *t, size_t n, double lat)
{
	double lo = 0, hi = lat, px;

	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, t[i].a);
		hi = fmax(hi, t[i].b);
	}
	hi += (hi - lo) * 0.04 + 1e-3;
	lo -= (hi - lo) * 0.04;
	px = TL_PLOT_PX / (hi - lo);
	for (size_t i = 0; i < n; i++) {
		int lane = lane_of(t[i].kind);
		const char *name = t[i].name && *t[i].name ? t[i].name : t[i].kind;
		double w = (t[i].b - t[i].a) * px;

		fprintf(f, "%g %d %g 0.3 ", (t[i].a + t[i].b) / 2, lane, fmax((t[i].b - t[i].a) / 2, 0.05));
		lw_gp_datum(f, w >= TL_CHAR_PX * (double)strlen(name) + 4 ? name : "");
		fprintf(f, " %d\n", lane + 1);
	}
	fprintf(f, "EOD\nset xrange [%g:%g]\n", lo, hi);
}

/* The components of a spike as "irq:eth0 12.0us, softirq:NET_RX 3.1us". */
static void components_text(const json_t *e, char *buf, size_t len)
{
	const json_t *comp = json_object_get(e, "components"), *c;
	size_t i, n = 0;

	buf[0] = 0;
	if (json_is_string(json_object_get(e, "cause_code")))	/* run --stacks */
		snprintf(buf, len, "code: %s; ", lw_jstr(e, "cause_code", ""));
	n = strlen(buf);
	if (json_is_string(json_object_get(e, "detail")))
		snprintf(buf + n, len - n, "%s", lw_jstr(e, "detail", ""));
	else if (json_is_string(json_object_get(e, "unattributable")))
		snprintf(buf + n, len - n, "unattributable: %s", lw_jstr(e, "unattributable", ""));
	else
		json_array_foreach((json_t *)comp, i, c) {
			n = strlen(buf);
			if (n + 1 >= len)
				break;
			snprintf(buf + n, len - n, "%s%s %.1fus", i ? ", " : "", lw_jstr(c, "cause", "?"),
				 lw_jnum(c, "ns", 0) / 1e3);
		}
}

/* The time no event explains, split by what the trace knows. */
static void unexplained_text(struct page *pg, const json_t *sp)
{
	const json_t *u = json_object_get(sp, "unexplained"), *st = json_object_get(sp, "steal"), *e;
	size_t i;

	if (!u || (!lw_jnum(u, "idle_late_ns", 0) && !lw_jnum(u, "running_ns", 0)))
		return;
	lw_pg_raw(pg, "<p class=\"unexplained\">");
	lw_pg_text(pg, "Time no event explains, by what the trace knows:");
	lw_pg_raw(pg, "</p>\n<ul class=\"unexplained\">\n");
	json_array_foreach(json_object_get(u, "idle_late"), i, e) {
		lw_pg_raw(pg, "<li data-cause=\"idle-late\">");
		lw_pg_textf(pg, "idle-late:%s: %.1f us in %.0f spikes, idle past the state's exit latency (",
			 lw_jstr(e, "state", "?"), lw_jnum(e, "ns", 0) / 1e3, lw_jnum(e, "spikes", 0));
		if (json_is_number(json_object_get(e, "exit_latency_ns")))
			lw_pg_textf(pg, "%.1f us declared)", lw_jnum(e, "exit_latency_ns", 0) / 1e3);
		else
			lw_pg_text(pg, "none declared)");
		lw_pg_raw(pg, "</li>\n");
	}
	if (lw_jnum(u, "running_ns", 0) > 0) {
		lw_pg_raw(pg, "<li data-cause=\"unexplained\">");
		lw_pg_textf(pg, "unexplained: %.1f us in %.0f spikes with the CPU running and no event "
			 "(interrupts off, firmware, SMI, a hypervisor)", lw_jnum(u, "running_ns", 0) / 1e3,
			 lw_jnum(u, "running_spikes", 0));
		lw_pg_raw(pg, "</li>\n");
	}
	if (st) {
		lw_pg_raw(pg, "<li data-cause=\"steal\">");
		if (lw_jnum(st, "total_ns", 0) > 0)
			lw_pg_textf(pg, "steal time the machine reported during the run: %.1f ms",
				 lw_jnum(st, "total_ns", 0) / 1e6);
		else
			lw_pg_text(pg, "steal time reported during the run: none (or not reported)");
		lw_pg_raw(pg, "</li>\n");
	}
	lw_pg_raw(pg, "</ul>\n");
}

/* The hwnoise probe's per-period figures: worded as the other views word them. */
static void hwnoise_text(struct page *pg, const json_t *doc)
{
	char line[16][LW_HOST_LINE];
	size_t n = lw_hwnoise_lines(doc, line, 16);

	if (!n)
		return;
	lw_pg_raw(pg, "<ul class=\"hwnoise\">\n");
	for (size_t i = 0; i < n; i++) {
		lw_pg_raw(pg, "<li data-hwnoise-line>");
		lw_pg_text(pg, line[i]);
		lw_pg_raw(pg, "</li>\n");
	}
	lw_pg_raw(pg, "</ul>\n");
}

/* The host's part (on a virtual machine): worded as the other views word it. */
static void host_text(struct page *pg, const json_t *doc)
{
	char line[8][LW_HOST_LINE];
	size_t n = lw_host_lines(doc, line, 8);

	if (!n)
		return;
	lw_pg_raw(pg, "<ul class=\"host\">\n");
	for (size_t i = 0; i < n; i++) {
		lw_pg_raw(pg, "<li data-host-line>");
		lw_pg_text(pg, line[i]);
		lw_pg_raw(pg, "</li>\n");
	}
	lw_pg_raw(pg, "</ul>\n");
}

/* How many samples were spikes, above which thresholds. */
static void spikes_intro(struct page *pg, const json_t *sp)
{
	const json_t *e;

	lw_pg_raw(pg, "<p>");
	lw_pg_textf(pg, "%.0f samples above the spike thresholds", lw_jnum(sp, "spikes_total",
									lw_jnum(sp, "count", 0)));
	if (json_is_number(json_object_get(sp, "attributed")))
		lw_pg_textf(pg, ": %.0f explained from the trace, %.0f not (lost trace events, or "
			 "outside the trace)", lw_jnum(sp, "attributed", 0), lw_jnum(sp, "unattributable", 0));
	lw_pg_raw(pg, ".</p>\n");
	if (json_object_size(json_object_get(sp, "thresholds"))) {
		/* per probe: the threshold used, where it came from, samples above it */
		const char *probe;

		lw_pg_raw(pg, "<ul class=\"thresholds\">\n");
		json_object_foreach((json_t *)json_object_get(sp, "thresholds"), probe, e) {
			lw_pg_raw(pg, "<li>");
			lw_pg_textf(pg, "%s: %.0f samples above %.1f us (%s)", probe, lw_jnum(e, "above", 0),
				 lw_jnum(e, "threshold_ns", 0) / 1e3, lw_jstr(e, "source", "?"));
			lw_pg_raw(pg, "</li>\n");
		}
		lw_pg_raw(pg, "</ul>\n");
	} else if (lw_jnum(sp, "threshold_ns", 0) > 0) {
		/* an older analysis: only a threshold of the spikes' own is theirs */
		lw_pg_raw(pg, "<p>");
		lw_pg_textf(pg, "Spikes: samples above %.1f us.", lw_jnum(sp, "threshold_ns", 0) / 1e3);
		lw_pg_raw(pg, "</p>\n");
	}
}

/* The causes of the spikes: a table (the TOP_CAUSES first, the rest as
 * others) and bars of their shares. */
static void causes_table(struct page *pg, const json_t *causes)
{
	size_t n = json_array_size(causes), shown = n > TOP_CAUSES + 1 ? TOP_CAUSES : n, i;
	double odom = 0, ons = 0, oshare = 0;
	const json_t *e;
	struct lw_script sc;
	FILE *f;
	int have_ns;

	have_ns = json_is_number(json_object_get(json_array_get(causes, 0), "ns"));
	lw_pg_raw(pg, "<table class=\"causes\">\n<tr><th class=\"l\">cause</th><th>spikes it "
	       "dominates</th>%s<th>share</th></tr>\n", have_ns ? "<th>time (us)</th>" : "");
	json_array_foreach((json_t *)causes, i, e) {
		if (i >= shown) {
			odom += lw_jnum(e, "count", 0);
			ons += lw_jnum(e, "ns", 0);
			oshare += lw_jnum(e, "share", 0);
			continue;
		}
		lw_pg_raw(pg, "<tr data-cause=\"");
		lw_pg_text(pg, lw_jstr(e, "cause", "?"));
		lw_pg_raw(pg, "\"><td class=\"l\">");
		lw_pg_text(pg, lw_jstr(e, "cause", "?"));
		lw_pg_raw(pg, "</td><td data-value=\"%.17g\">%.0f</td>", lw_jnum(e, "count", 0),
		       lw_jnum(e, "count", 0));
		if (have_ns)
			lw_pg_td_ns(pg, "", "ns", lw_jnum(e, "ns", 0));
		lw_pg_raw(pg, "<td data-key=\"share\" data-value=\"%.17g\">%.1f %%</td></tr>\n",
		       lw_jnum(e, "share", 0), lw_jnum(e, "share", 0) * 100);
	}
	if (shown < n) {
		lw_pg_raw(pg, "<tr data-cause=\"others\"><td class=\"l\">");
		lw_pg_textf(pg, "others (%zu causes)", n - shown);
		lw_pg_raw(pg, "</td><td data-value=\"%.17g\">%.0f</td>", odom, odom);
		if (have_ns)
			lw_pg_td_ns(pg, "", "ns", ons);
		lw_pg_raw(pg, "<td data-key=\"share\" data-value=\"%.17g\">%.1f %%</td></tr>\n",
		       oshare, oshare * 100);
	}
	lw_pg_raw(pg, "</table>\n");
	/* horizontal bars, the largest on top: the labels have the room
	 * they need at the left */
	f = lw_script_open(&sc);
	if (f) {
		size_t longest = 6;

		fprintf(f, "$d << EOD\n");
		for (size_t k = shown + (shown < n); k-- > 0;) {
			const char *name = k < shown ? lw_jstr(json_array_get(causes, k), "cause", "?") :
					   "others";
			double v = k < shown ? lw_jnum(json_array_get(causes, k), "share", 0) : oshare;

			lw_gp_datum(f, name);
			fprintf(f, " %g %zu\n", v * 100, shown + (shown < n) - 1 - k);
			longest = strlen(name) > longest ? strlen(name) : longest;
		}
		fprintf(f, "EOD\nset style fill solid 0.7\nset xrange [0:*]\n"
			"set yrange [-0.6:%zu.6]\nset grid xtics\nset xlabel \"share of spike "
			"time (%%)\"\nset lmargin %zu\nset ytics scale 0\n"
			"plot $d using ($2/2):3:($2/2):(0.35):ytic(1) with boxxyerror "
			"lc rgb \"#4060a0\" notitle\n", shown + (shown < n) - 1,
			longest < 60 ? longest + 2 : 62);
	}
	lw_pg_figure(pg, "causes", lw_script_close(&sc), 960, 80 + 28 * (int)(shown + (shown < n)),
		  have_ns ? "Share of all spike time charged to each cause; the rest as others." :
		  "Share of spikes by cause.");
}

/* The spikes listed in full, one row each. */
static void top_table(struct page *pg, const json_t *top)
{
	const json_t *e;
	size_t i;

	lw_pg_raw(pg, "<table class=\"top\">\n<tr><th>#</th><th class=\"l\">probe</th><th>CPU</th>"
	       "<th>latency (us)</th><th class=\"l\">cause</th><th class=\"l\">detail</th></tr>\n");
	json_array_foreach((json_t *)top, i, e) {
		char detail[512];

		components_text(e, detail, sizeof(detail));
		lw_pg_raw(pg, "<tr><td>%zu</td><td class=\"l\">", i + 1);
		lw_pg_text(pg, spike_probe(e));
		lw_pg_raw(pg, "</td><td>%.0f</td>", lw_jnum(e, "cpu", -1));
		lw_pg_td_ns(pg, "data-spike=\"1\"", "latency_ns", lw_jnum(e, "latency_ns", 0));
		lw_pg_raw(pg, "<td class=\"l\">");
		lw_pg_text(pg, lw_jstr(e, "cause", "unknown"));
		lw_pg_raw(pg, "</td><td class=\"l\">");
		lw_pg_text(pg, detail);
		lw_pg_raw(pg, "</td></tr>\n");
	}
	lw_pg_raw(pg, "</table>\n");
}

/* Spike number @i + 1, @e: what its CPU did between the expected expiry and
 * the wake-up, as a timeline. */
static void spike_timeline(struct page *pg, const json_t *e, size_t i)
{
	const json_t *tlv = json_object_get(e, "timeline"), *comp, *ev;
	double x0 = lw_jnum(e, "expected_ns", 0), lat = lw_jnum(e, "latency_ns", 0) / 1e3, at = 0;
	struct trow rows[64];
	char id[32], cap[384];
	size_t j, nt;
	int exact = json_array_size(tlv) > 0;
	struct lw_script sc;
	FILE *f;

	comp = json_object_get(e, "components");
	if (!exact && !json_array_size(comp))
		return;
	snprintf(id, sizeof(id), "spike-%zu", i + 1);
	f = lw_script_open(&sc);
	if (!f)
		return;
	fprintf(f, "$e << EOD\n");
	nt = 0;
	if (exact) {
		json_array_foreach((json_t *)tlv, j, ev)
			if (nt < sizeof(rows) / sizeof(rows[0]))
				rows[nt++] = (struct trow){ (lw_jnum(ev, "start_ns", x0) - x0) / 1e3,
					(lw_jnum(ev, "end_ns", x0) - x0) / 1e3, lw_jstr(ev, "kind", "other"),
					lw_jstr(ev, "name", "") };
	} else {
		/* components in the order they were first charged; each lasts
		 * what was charged to it, so the bar ends at the wake-up */
		if (json_is_integer(json_object_get(e, "idle_since_ns")))
			rows[nt++] = (struct trow){ (lw_jnum(e, "idle_since_ns", x0) - x0) / 1e3, 0,
						    "idle", " " };
		json_array_foreach((json_t *)comp, j, ev) {
			double d = lw_jnum(ev, "ns", 0) / 1e3;

			if (nt < sizeof(rows) / sizeof(rows[0]))
				rows[nt++] = (struct trow){ at, at + d, lw_jstr(ev, "kind", "other"),
							    lw_jstr(ev, "cause", "") };
			at += d;
		}
	}
	spike_rows(f, rows, nt, lat);
	fprintf(f, "set ytics (");
	for (int l = 0; l < 6; l++)
		fprintf(f, "%s\"%s\" %d", l ? ", " : "", lanes[l], l);
	fprintf(f, ")\nset yrange [-0.6:5.6]\nset grid xtics\nset style fill solid 0.5\n"
		"set xlabel \"us after the expected wake-up\"\n"
		"set arrow from 0, graph 0 to 0, graph 1 nohead lc rgb \"black\" dt 2\n"
		"set arrow from %g, graph 0 to %g, graph 1 nohead lc rgb \"#b00000\" lw 2\n", lat,
		lat);
	if (json_is_integer(json_object_get(e, "woken_ns")))
		fprintf(f, "set arrow from %g, graph 0 to %g, graph 1 nohead lc rgb \"#2060c0\" "
			"dt 3\nset label \"woken\" at %g, graph 0.96 left offset 0.3,0 tc rgb "
			"\"#2060c0\"\n", (lw_jnum(e, "woken_ns", 0) - x0) / 1e3,
			(lw_jnum(e, "woken_ns", 0) - x0) / 1e3, (lw_jnum(e, "woken_ns", 0) - x0) / 1e3);
	fprintf(f, "plot $e using 1:2:3:4:6 with boxxyerror lc variable notitle, "
		"$e using 1:2:5 with labels font \",8\" notitle\n");
	snprintf(cap, sizeof(cap), "Spike %zu: CPU %.0f woke %.1f us late (red line); %s "
		 "between the expected expiry (dashed) and the wake-up%s.", i + 1,
		 lw_jnum(e, "cpu", -1), lat, "idle state, IRQs, softirqs, timers and tasks",
		 exact ? "" : " (each cause lasts the time charged to it, in the order first "
		 "charged)");
	lw_pg_figure(pg, id, lw_script_close(&sc), 960, 280, cap);
}

static void spikes_section(struct page *pg, const struct lw_rrun *r)
{
	const json_t *sp = json_object_get(r->analysis, "spikes"), *e, *causes, *top;
	size_t i;

	lw_pg_section(pg, "spikes", "Spikes and their causes", sp != NULL);
	if (!sp) {
		lw_pg_missing(pg, "Spike attribution (needs the kernel trace)", "spikes");
		lw_pg_section_end(pg);
		return;
	}
	causes = json_object_get(sp, "causes");
	top = json_object_get(sp, "top");
	spikes_intro(pg, sp);
	host_text(pg, r->analysis);
	hwnoise_text(pg, r->analysis);
	unexplained_text(pg, sp);
	if (json_array_size(causes))
		causes_table(pg, causes);
	else
		lw_pg_missing(pg, "Cause breakdown", "spikes.causes");
	if (!json_array_size(top)) {
		lw_pg_missing(pg, "Top spikes", "spikes.top");
		lw_pg_section_end(pg);
		return;
	}
	top_table(pg, top);
	/* a timeline per top spike: what the CPU did between expiry and wake-up */
	json_array_foreach((json_t *)top, i, e) {
		if (i >= 5)
			break;
		spike_timeline(pg, e, i);
	}
	lw_pg_section_end(pg);
}

/*
 * Residency per CPU as [{"cpu", "states": [{"state", "share"}]}]: from
 * idle.residency as is, else from RUN/idle.json's shape (power/idle.h) that
 * analyze copies into analysis.json: the traced part when there is one,
 * else the cpuidle counters.  A new reference, or NULL.
 */
static json_t *idle_residency(const json_t *idle, const char **src)
{
	const json_t *part, *c, *st;
	json_t *out;
	size_t i, j;

	*src = "";
	if (json_array_size(json_object_get(idle, "residency")))
		return json_incref(json_object_get(idle, "residency"));
	part = json_object_get(idle, "trace");
	*src = "traced cpu_idle events";
	if (!json_array_size(json_object_get(part, "cpus"))) {
		part = json_object_get(idle, "sysfs");
		*src = "cpuidle counters read at the start and the end";
	}
	if (!json_array_size(json_object_get(part, "cpus")))
		return NULL;
	out = json_array();
	json_array_foreach(json_object_get(part, "cpus"), i, c) {
		json_t *states = json_array();

		json_array_foreach(json_object_get(c, "states"), j, st)
			json_array_append_new(states, json_pack("{s:s, s:f}", "state",
				lw_jstr(st, "name", "?"), "share", lw_jnum(st, "residency", 0)));
		if (json_is_number(json_object_get(c, "active")))
			json_array_append_new(states, json_pack("{s:s, s:f}", "state", "running",
				"share", lw_jnum(c, "active", 0)));
		json_array_append_new(out, json_pack("{s:O, s:o}", "cpu", json_object_get(c, "cpu"),
						     "states", states));
	}
	return out;
}

static void idle_section(struct page *pg, const struct lw_rrun *r)
{
	const json_t *idle = json_object_get(r->analysis, "idle"), *e, *st, *pl;
	json_t *res, *by;
	const char *res_src, *probe;
	char cap[256];
	struct lw_script sc;
	FILE *f;
	size_t i, j;

	/* the analysis' latency by idle state: {PROBE: [{state, count, p50_ns, ...}]},
	 * flattened into rows */
	by = json_array();
	json_object_foreach((json_t *)json_object_get(r->analysis, "idle_latency"), probe, pl)
		json_array_foreach(pl, i, e) {
			json_t *row = json_deep_copy(e);

			json_object_set_new(row, "probe", json_string(probe));
			json_array_append_new(by, row);
		}
	res = idle_residency(idle, &res_src);
	lw_pg_section(pg, "idle", "Idle states", json_array_size(by) || json_array_size(res));
	lw_pg_raw(pg, "<h3>Latency by the idle state the CPU was in at the expected wake-up</h3>\n");
	if (json_array_size(by)) {
		lw_pg_raw(pg, "<table class=\"by-state\">\n<tr><th class=\"l\">probe</th>"
		       "<th class=\"l\">idle state</th><th>samples</th><th>p50 (us)</th>"
		       "<th>p99 (us)</th><th>max (us)</th></tr>\n");
		json_array_foreach(by, i, e) {
			lw_pg_raw(pg, "<tr data-probe=\"");
			lw_pg_text(pg, lw_jstr(e, "probe", "?"));
			lw_pg_raw(pg, "\" data-state=\"");
			lw_pg_text(pg, lw_jstr(e, "state", "?"));
			lw_pg_raw(pg, "\"><td class=\"l\">");
			lw_pg_text(pg, lw_jstr(e, "probe", "?"));
			lw_pg_raw(pg, "</td><td class=\"l\">");
			lw_pg_text(pg, lw_jstr(e, "state", "?"));
			lw_pg_raw(pg, "</td><td data-value=\"%.0f\">%.0f</td>", lw_jnum(e, "count", 0),
			       lw_jnum(e, "count", 0));
			lw_pg_td_ns(pg, "", "p50_ns", lw_jnum(e, "p50_ns", 0));
			lw_pg_td_ns(pg, "", "p99_ns", lw_jnum(e, "p99_ns", 0));
			lw_pg_td_ns(pg, "", "max_ns", lw_jnum(e, "max_ns", 0));
			lw_pg_raw(pg, "</tr>\n");
		}
		lw_pg_raw(pg, "</table>\n");
		f = lw_script_open(&sc);
		if (f) {
			fprintf(f, "$d << EOD\n");
			json_array_foreach(by, i, e) {
				char lbl[96];

				snprintf(lbl, sizeof(lbl), "%s %s", lw_jstr(e, "probe", "?"),
					 lw_jstr(e, "state", "?"));
				lw_gp_datum(f, lbl);
				fprintf(f, " %g %g %g\n", lw_jnum(e, "p50_ns", 0) / 1e3,
					lw_jnum(e, "p99_ns", 0) / 1e3, lw_jnum(e, "max_ns", 0) / 1e3);
			}
			fprintf(f, "EOD\nset style data histogram\nset style histogram cluster gap 1\n"
				"set style fill solid 0.7\nset logscale y\nset yrange [0.1:*]\n"
				"set grid ytics\nset ylabel \"latency (us), log scale\"\n"
				"set xtics rotate by -30 scale 0\nset key outside right top\n"
				"plot $d using 2:xtic(1) title \"p50\", '' using 3 title \"p99\", "
				"'' using 4 title \"max\"\n");
		}
		lw_pg_figure(pg, "idle-latency", lw_script_close(&sc), 960, 380,
			  "Wake-up latency by the idle state the CPU was in at the expected wake-up "
			  "(busy: not idle).");
	} else {
		lw_pg_missing(pg, "Latency by idle state (needs the kernel trace)", "idle_latency");
	}
	json_decref(by);
	lw_pg_raw(pg, "<h3>Idle residency per CPU</h3>\n");
	if (json_array_size(res)) {
		/* state names in order of first appearance */
		const char *names[16];
		size_t nn = 0;

		json_array_foreach((json_t *)res, i, e)
			json_array_foreach(json_object_get(e, "states"), j, st) {
				size_t k;
				const char *s = lw_jstr(st, "state", "?");

				for (k = 0; k < nn && strcmp(names[k], s); k++)
					;
				if (k == nn && nn < 16)
					names[nn++] = s;
			}
		lw_pg_raw(pg, "<table class=\"residency\">\n<tr><th>CPU</th>");
		for (size_t k = 0; k < nn; k++)
			lw_pg_th(pg, names[k]);
		lw_pg_raw(pg, "</tr>\n");
		f = lw_script_open(&sc);
		if (f)
			fprintf(f, "$d << EOD\n");
		json_array_foreach((json_t *)res, i, e) {
			lw_pg_raw(pg, "<tr><th>%.0f</th>", lw_jnum(e, "cpu", -1));
			if (f)
				fprintf(f, "\"CPU %.0f\"", lw_jnum(e, "cpu", -1));
			for (size_t k = 0; k < nn; k++) {
				double share = 0;

				json_array_foreach(json_object_get(e, "states"), j, st)
					if (!strcmp(lw_jstr(st, "state", "?"), names[k]))
						share = lw_jnum(st, "share", 0);
				lw_pg_raw(pg, "<td>%.1f %%</td>", share * 100);
				if (f)
					fprintf(f, " %g", share * 100);
			}
			lw_pg_raw(pg, "</tr>\n");
			if (f)
				fprintf(f, "\n");
		}
		lw_pg_raw(pg, "</table>\n");
		if (f) {
			fprintf(f, "EOD\nset style data histogram\nset style histogram rowstacked\n"
				"set style fill solid 0.7\nset boxwidth 0.6\nset yrange [0:100]\n"
				"set ylabel \"time in state (%%)\"\nset key outside right\nplot ");
			for (size_t k = 0; k < nn; k++) {
				fprintf(f, "%s$d using %zu%s title ", k ? ", " : "", k + 2,
					k ? "" : ":xtic(1)");
				lw_gp_quote(f, names[k]);
			}
			fprintf(f, "\n");
		}
		snprintf(cap, sizeof(cap), "Share of the run each CPU spent in each idle state%s%s%s.",
			 *res_src ? " (from " : "", res_src, *res_src ? ")" : "");
		lw_pg_figure(pg, "residency", lw_script_close(&sc), 800, 340, cap);
	} else {
		lw_pg_missing(pg, "Idle residency", "idle.sysfs or idle.trace");
	}
	json_decref(res);
	lw_pg_section_end(pg);
}

static void power_cell(struct page *pg, double v)
{
	if (isnan(v))
		lw_pg_raw(pg, "<td>-</td>");
	else
		lw_pg_raw(pg, "<td data-value=\"%.17g\">%.1f</td>", v, v);
}

/* Power over time from the analysis' "power"."timeline": a series per
 * rail, measured solid, estimated dashed, a recorded gap breaking the line.
 * The number of series drawn. */
static int power_series(FILE *f, const json_t *tl)
{
	const json_t *rl, *pt;
	size_t i, j;
	int n = 0;

	json_array_foreach(json_object_get(tl, "rails"), i, rl) {
		fprintf(f, "$p%zu << EOD\n", i);
		json_array_foreach(json_object_get(rl, "points"), j, pt) {
			if (json_integer_value(json_array_get(pt, 2)) && j)
				fprintf(f, "\n");	/* a gap: break the line */
			fprintf(f, "%.6f %g\n", json_number_value(json_array_get(pt, 0)) / 1e9,
				json_number_value(json_array_get(pt, 1)));
		}
		fprintf(f, "EOD\n");
	}
	fprintf(f, "set grid\nset key outside right top\nset xlabel \"time since the start of the run "
		"(s)\"\nset ylabel \"power (mW)\"\nplot ");
	json_array_foreach(json_object_get(tl, "rails"), i, rl) {
		char t[256];
		int est = !strcmp(lw_jstr(rl, "kind", ""), "estimated");

		if (!json_array_size(json_object_get(rl, "points")))
			continue;
		snprintf(t, sizeof(t), "%s (%s)", lw_jstr(rl, "name", "?"), est ? "estimated" : "measured");
		fprintf(f, "%s$p%zu using 1:2 with lines lw 1.5 %s title ", n ? ", " : "", i,
			est ? "dt 2" : "");
		lw_gp_quote(f, t);
		n++;
	}
	fprintf(f, "\n");
	return n;
}

static void power_section(struct page *pg, const struct lw_rrun *r)
{
	const json_t *pw = json_object_get(r->analysis, "power"), *rails, *e, *tot;
	struct lw_script sc;
	FILE *f;
	size_t i;
	int n;

	rails = json_object_get(pw, "rails");
	tot = json_object_get(pw, "total");
	lw_pg_section(pg, "power", "Power", json_array_size(rails) > 0);
	if (!json_array_size(rails)) {
		lw_pg_missing(pg, "Power (no sensor, and no trace for the energy model)", "power.rails");
		lw_pg_section_end(pg);
		return;
	}
	if (json_is_number(json_object_get(tot, "average_w")))
		lw_pg_raw(pg, "<p id=\"power-total\" data-value=\"%.17g\">Board total: %.1f mW average, "
		       "%.3f J over %.1f s (%s).</p>\n", lw_jnum(tot, "average_w", 0) * 1e3,
		       lw_jnum(tot, "average_w", 0) * 1e3, lw_jnum(tot, "energy_j", 0),
		       lw_jnum(tot, "duration_s", 0), json_is_true(json_object_get(pw, "estimated")) ?
		       "estimated" : "measured");
	lw_pg_raw(pg, "<table class=\"rails\">\n<tr><th class=\"l\">rail</th><th class=\"l\">measured or "
	       "estimated</th><th class=\"l\">source</th><th>mean (mW)</th><th>min (mW)</th>"
	       "<th>max (mW)</th><th>energy (mJ)</th></tr>\n");
	json_array_foreach((json_t *)rails, i, e) {
		double mj = json_is_number(json_object_get(e, "energy_j")) ? lw_jnum(e, "energy_j", 0) * 1e3
			: json_is_number(json_object_get(e, "energy_mj")) ? lw_jnum(e, "energy_mj", 0) : NAN;

		lw_pg_raw(pg, "<tr data-rail=\"");
		lw_pg_text(pg, lw_jstr(e, "name", "?"));
		lw_pg_raw(pg, "\" data-kind=\"%s\"><td class=\"l\">", lw_rail_kind(e));
		lw_pg_text(pg, lw_jstr(e, "name", "?"));
		lw_pg_raw(pg, "</td><td class=\"l\">%s</td><td class=\"l\">", lw_rail_kind(e));
		lw_pg_text(pg, json_object_get(e, "kind") ? lw_jstr(e, "source", "") : "");
		lw_pg_raw(pg, "</td>");
		power_cell(pg, lw_rail_mw(e, "average_w", "mean_mw"));
		power_cell(pg, lw_rail_mw(e, "min_w", "min_mw"));
		power_cell(pg, lw_rail_mw(e, "max_w", "max_mw"));
		power_cell(pg, mj);
		lw_pg_raw(pg, "</tr>\n");
	}
	lw_pg_raw(pg, "</table>\n");
	f = lw_script_open(&sc);
	if (!f) {
		lw_pg_section_end(pg);
		return;
	}
	n = power_series(f, json_object_get(pw, "timeline"));
	if (n <= 0) {
		fclose(f);
		free(sc.buf);
		lw_pg_missing(pg, "Power over time", "power.timeline");
		lw_pg_section_end(pg);
		return;
	}
	lw_pg_figure(pg, "power", lw_script_close(&sc), 960, 360,
		  "Power over time per rail: measured rails solid, estimated (energy model) dashed.");
	lw_pg_section_end(pg);
}

static void tradeoff_section(struct page *pg, const struct lw_rrun *r)
{
	const json_t *t = json_object_get(r->analysis, "tradeoff"), *pts, *e;
	double rec = lw_jnum(t, "recommended_pm_qos_us", -1);
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
	char (*lab)[128];
	struct lw_script sc;
	char cap[256];
	FILE *f;
	size_t i, n;

	pts = json_object_get(t, "points");
	lw_pg_section(pg, "tradeoff", "Latency and power trade-off", json_array_size(pts) > 0);
	if (!json_array_size(pts)) {
		lw_pg_missing(pg, "Latency-power trade-off (a PM QoS sweep)", "tradeoff.points");
		lw_pg_section_end(pg);
		return;
	}
	lw_pg_raw(pg, "<p id=\"recommended\" data-value=\"%g\">", rec);
	if (rec >= 2e9)	/* the kernel's "no constraint" */
		lw_pg_textf(pg, "Recommended PM QoS: no constraint. %s", lw_jstr(t, "reason", ""));
	else if (rec >= 0)
		lw_pg_textf(pg, "Recommended PM QoS: %g us. %s", rec, lw_jstr(t, "reason", ""));
	else
		lw_pg_text(pg, "No PM QoS value is recommended.");
	lw_pg_raw(pg, "</p>\n<table class=\"tradeoff\">\n<tr><th>PM QoS</th><th>%s latency (us)"
	       "</th><th>power (mW)</th></tr>\n", lw_jstr(t, "stat", "p99"));
	n = json_array_size(pts);
	lab = calloc(n + 1, sizeof(*lab));
	json_array_foreach((json_t *)pts, i, e) {
		double q = lw_jnum(e, "pm_qos_us", -1), w = lw_jnum(e, "power_mw", 0);
		double l = lw_jnum(e, "latency_ns", 0) / 1e3;

		xmin = fmin(xmin, w);
		xmax = fmax(xmax, w);
		ymin = fmin(ymin, log10(fmax(l, 1e-3)));
		ymax = fmax(ymax, log10(fmax(l, 1e-3)));
		/* 2000000000 us is the kernel's "no constraint" */
		if (lab) {
			if (q >= 2e9)
				snprintf(lab[i], sizeof(lab[i]), "none");
			else
				snprintf(lab[i], sizeof(lab[i]), "%.0f us", q);
		}
		lw_pg_raw(pg, "<tr%s><td data-value=\"%.17g\">%s</td>", q == rec ?
		       " class=\"recommended\"" : "", q, lab ? lab[i] : "");
		lw_pg_td_ns(pg, "", "latency_ns", lw_jnum(e, "latency_ns", 0));
		lw_pg_raw(pg, "<td>%.1f</td></tr>\n", w);
	}
	/* points that would print their labels over each other share one label:
	 * "none, 1 us" on the first, nothing on the others */
	for (i = 0; lab && i < n; i++) {
		const json_t *a = json_array_get(pts, i);

		for (size_t k = 0; k < i; k++) {
			const json_t *b = json_array_get(pts, k);
			double dx = fabs(lw_jnum(a, "power_mw", 0) - lw_jnum(b, "power_mw", 0)) /
				    fmax(xmax - xmin, 1e-9);
			double dy = fabs(log10(fmax(lw_jnum(a, "latency_ns", 0) / 1e3, 1e-3)) -
					 log10(fmax(lw_jnum(b, "latency_ns", 0) / 1e3, 1e-3))) /
				    fmax(ymax - ymin, 1e-9);

			if (lab[k][0] && dx < 0.06 && dy < 0.08) {
				size_t len = strlen(lab[k]);

				snprintf(lab[k] + len, sizeof(lab[k]) - len, ", %s", lab[i]);
				lab[i][0] = 0;
				break;
			}
		}
	}
	f = lw_script_open(&sc);
	if (f)
		fprintf(f, "$d << EOD\n");
	json_array_foreach((json_t *)pts, i, e)
		if (f) {
			fprintf(f, "%g %g ", lw_jnum(e, "power_mw", 0), lw_jnum(e, "latency_ns", 0) / 1e3);
			lw_gp_datum(f, lab ? lab[i] : "");
			fprintf(f, " %d\n", lw_jnum(e, "pm_qos_us", -1) == rec);
		}
	free(lab);
	lw_pg_raw(pg, "</table>\n");
	if (f) {
		char yl[96];

		/* the statistic's name comes from analysis.json: quoted for gnuplot */
		snprintf(yl, sizeof(yl), "%s latency (us), log scale", lw_jstr(t, "stat", "p99"));
		fprintf(f, "EOD\nset grid\nset xlabel \"average power (mW)\"\nset ylabel ");
		lw_gp_quote(f, yl);
		fprintf(f, "\nset logscale y\nset offsets graph 0.05, graph 0.1, graph 0.1, "
			"graph 0.1\nplot $d using 1:2 with linespoints pt 7 lc rgb \"#4060a0\" title "
			"\"PM QoS setting\", $d using 1:2:3 with labels offset 0,1 font \",9\" notitle, "
			"$d using 1:($4 > 0 ? $2 : 1/0) with points pt 6 ps 3 lw 2 lc rgb \"#b00000\" title "
			"\"recommended\"\n");
	}
	snprintf(cap, sizeof(cap), "Latency against power for each PM QoS value; the recommended "
		 "value circled.");
	lw_pg_figure(pg, "tradeoff", lw_script_close(&sc), 800, 380, cap);
	lw_pg_section_end(pg);
}

/* A deadline miss: when, on which CPU, how late, and what caused it. */
struct miss {
	const char *workload;
	double t_ns, late_ns;
	int cpu;
	int lane, series;	/* the plot's lane (workload) and series (cause) */
	char cause[160], detail[160];
};

/* Misses listed in the table; the plot shows every listed one. */
#define TABLE_MISSES 20
/* Causes given a colour of their own in the plot; the rest are "others". */
#define PLOT_CAUSES 5

/* Every listed miss of a workload, with the cause the analysis gave it:
 * "events" [{t_ns, cause, detail}], or the list of its record kind
 * (workloads/rkind.h: "xrun_list", "dropped_list"). */
static size_t collect_misses(const char *name, const json_t *w, int have_trace,
			     struct miss *out, size_t max)
{
	const json_t *list = json_object_get(w, "events"), *ev;
	const struct lw_rkind *kind = NULL;
	size_t i, n = 0;

	for (size_t k = 0; !list && (kind = lw_rkind_at(k)); k++)
		list = json_object_get(w, kind->list_key);
	json_array_foreach((json_t *)list, i, ev) {
		struct miss *m = &out[n];

		if (n == max)
			break;
		memset(m, 0, sizeof(*m));
		m->workload = name;
		m->cpu = (int)lw_jnum(ev, "cpu", -1);
		m->late_ns = lw_jnum(ev, "lateness_ns", 0);
		if (!kind) {
			m->t_ns = lw_jnum(ev, "t_ns", 0);
			snprintf(m->detail, sizeof(m->detail), "%s", lw_jstr(ev, "detail", ""));
		} else {
			m->t_ns = lw_jnum(ev, kind->time_key, 0);
			kind->miss_detail(m->detail, sizeof(m->detail), ev);
		}
		snprintf(m->cause, sizeof(m->cause), "%s", lw_jstr(ev, "cause", have_trace ?
			 "not attributed" : "no trace analyzed"));
		n++;
	}
	return n;
}

/* The plot's series: the PLOT_CAUSES most frequent causes, then "others". */
static size_t cause_series(struct miss *ms, size_t nm, const char **names)
{
	size_t nn = 0, *count = calloc(nm + 1, sizeof(*count));
	const char **all = calloc(nm + 1, sizeof(*all));

	if (!count || !all) {
		free(count);
		free(all);
		return 0;
	}
	for (size_t i = 0; i < nm; i++) {
		size_t k;

		for (k = 0; k < nn && strcmp(all[k], ms[i].cause); k++)
			;
		if (k == nn)
			all[nn++] = ms[i].cause;
		count[k]++;
	}
	for (size_t s = 0; s < PLOT_CAUSES && s < nn; s++) {
		size_t best = s;

		for (size_t k = s + 1; k < nn; k++)
			if (count[k] > count[best])
				best = k;
		if (best != s) {
			const char *t = all[s];
			size_t c = count[s];

			all[s] = all[best];
			count[s] = count[best];
			all[best] = t;
			count[best] = c;
		}
	}
	for (size_t i = 0; i < nm; i++) {
		size_t k;

		for (k = 0; k < PLOT_CAUSES && k < nn && strcmp(all[k], ms[i].cause); k++)
			;
		ms[i].series = (int)k;	/* PLOT_CAUSES (or nn): others */
	}
	for (size_t k = 0; k < PLOT_CAUSES && k < nn; k++)
		names[k] = all[k];
	nn = nn > PLOT_CAUSES ? PLOT_CAUSES + 1 : nn;
	free(count);
	free(all);
	return nn;
}

static void misses_plot(struct page *pg, const struct lw_rrun *r, struct miss *ms, size_t nm,
			const char *const *rows, size_t nlanes)
{
	static const char *const colours[] = { "#b00000", "#1f60c0", "#208020", "#c08000",
					       "#8040a0", "#707070" };
	const char *names[PLOT_CAUSES + 1] = { NULL };
	double dur = lw_jnum(json_object_get(r->analysis, "run"), "duration_ns", 0);
	size_t ns = cause_series(ms, nm, names);
	struct lw_script sc;
	FILE *f = lw_script_open(&sc);

	if (!f)
		return;
	for (size_t s = 0; s < ns; s++) {
		fprintf(f, "$d%zu << EOD\n", s);
		for (size_t i = 0; i < nm; i++)
			if ((size_t)ms[i].series == s)
				fprintf(f, "%.6f %.3f\n", (ms[i].t_ns - (double)r->start_ns) / 1e9,
					ms[i].lane + ((double)s - (double)(ns - 1) / 2) * 0.12);
		fprintf(f, "EOD\n");
	}
	fprintf(f, "set grid\nset xlabel \"time since the start of the run (s)\"\n"
		"set yrange [-0.7:%zu.7]\nset ytics (", nlanes - 1);
	for (size_t l = 0; l < nlanes; l++) {
		fprintf(f, "%s", l ? ", " : "");
		lw_gp_quote(f, rows[l]);
		fprintf(f, " %zu", l);
	}
	fprintf(f, ")\nset key below left Left reverse maxrows 3\n");
	if (dur > 0)
		fprintf(f, "set xrange [0:%g]\n", dur / 1e9);
	fprintf(f, "set offsets graph 0.02, graph 0.02, 0, 0\nplot ");
	for (size_t s = 0; s < ns; s++) {
		char t[200];

		snprintf(t, sizeof(t), "%s", s < PLOT_CAUSES && names[s] ? names[s] : "others");
		fprintf(f, "%s$d%zu using 1:2 with points pt 7 ps 1.2 lc rgb \"%s\" title ",
			s ? ", " : "", s, colours[s < 6 ? s : 5]);
		lw_gp_quote(f, t);
	}
	fprintf(f, "\n");
	lw_pg_figure(pg, "workloads", lw_script_close(&sc), 960, 140 + 50 * (int)nlanes + 20 * (int)ns,
		  "Deadline misses over time, a row per workload, coloured by the cause the "
		  "analysis found behind each (the spike on its CPU in its period); "
		  "the most frequent causes have their own colour.");
}

static void workloads_section(struct page *pg, const struct lw_rrun *r)
{
	const json_t *wl = json_object_get(r->analysis, "workloads"), *w;
	int have_trace = json_is_object(json_object_get(r->analysis, "spikes"));
	const char *name, *rows[64];
	size_t nm = 0, nlanes = 0, total = 0, cap = 0, listed;
	struct miss *ms;

	lw_pg_section(pg, "workloads", "Workloads", json_object_size(wl) > 0);
	json_object_foreach((json_t *)wl, name, w) {
		const struct lw_rkind *rk = lw_rkind_find(lw_workload_kind(w, name));

		cap += rk ? json_array_size(json_object_get(w, rk->list_key)) : 0;
		cap += json_array_size(json_object_get(w, "events"));
	}
	ms = calloc(cap + 1, sizeof(*ms));
	if (!json_object_size(wl) || !ms) {
		lw_pg_missing(pg, "Workloads (audio xruns, video drops)", "workloads");
		lw_pg_section_end(pg);
		free(ms);
		return;
	}
	lw_pg_raw(pg, "<table class=\"workloads\">\n<tr><th class=\"l\">workload</th><th class=\"l\">"
	       "kind</th><th>periods or frames</th><th>deadline misses</th></tr>\n");
	json_object_foreach((json_t *)wl, name, w) {
		double miss = lw_workload_misses(w), tot = lw_workload_total(w);
		const char *kind = lw_workload_kind(w, name);
		const struct lw_rkind *rk = lw_rkind_find(kind);
		size_t got;

		lw_pg_raw(pg, "<tr data-workload=\"");
		lw_pg_text(pg, name);
		lw_pg_raw(pg, "\"><td class=\"l\">");
		lw_pg_text(pg, name);
		lw_pg_raw(pg, "</td><td class=\"l\">");
		lw_pg_text(pg, kind);
		if (tot >= 0)
			lw_pg_raw(pg, "</td><td>%.0f</td>", tot);
		else
			lw_pg_raw(pg, "</td><td>-</td>");
		if (miss >= 0)
			lw_pg_raw(pg, "<td data-value=\"%.17g\">%.0f %s</td></tr>\n", miss, miss,
			       rk ? rk->noun : "misses");
		else
			lw_pg_raw(pg, "<td>%s</td></tr>\n", rk ? "unknown" : "- (no deadlines)");
		got = collect_misses(name, w, have_trace, ms + nm, cap - nm);
		if (got && nlanes < sizeof(rows) / sizeof(rows[0])) {
			for (size_t i = nm; i < nm + got; i++)
				ms[i].lane = (int)nlanes;
			rows[nlanes++] = name;
			nm += got;
		}
		total += miss > 0 ? (size_t)miss : 0;
	}
	lw_pg_raw(pg, "</table>\n");
	if (!nm) {
		lw_pg_raw(pg, "<p>No xrun or dropped frame %s in this run.</p>\n",
		       total ? "listed" : "happened");
		lw_pg_section_end(pg);
		free(ms);
		return;
	}
	listed = nm < TABLE_MISSES ? nm : TABLE_MISSES;
	if (total > listed)
		lw_pg_raw(pg, "<p id=\"misses-listed\">The first %zu of %zu deadline misses:</p>\n",
		       listed, total);
	lw_pg_raw(pg, "<table class=\"misses\">\n<tr><th class=\"l\">workload</th><th>time (s)</th>"
	       "<th class=\"l\">cause</th><th class=\"l\">detail</th></tr>\n");
	for (size_t i = 0; i < listed; i++) {
		lw_pg_raw(pg, "<tr><td class=\"l\">");
		lw_pg_text(pg, ms[i].workload);
		lw_pg_raw(pg, "</td><td>%.3f</td><td class=\"l\">", (ms[i].t_ns - (double)r->start_ns) / 1e9);
		lw_pg_text(pg, ms[i].cause);
		lw_pg_raw(pg, "</td><td class=\"l\">");
		lw_pg_text(pg, ms[i].detail);
		lw_pg_raw(pg, "</td></tr>\n");
	}
	lw_pg_raw(pg, "</table>\n");
	if (nm < total)
		lw_pg_raw(pg, "<p>The plot shows the %zu misses the analysis lists, of %zu.</p>\n", nm,
		       total);
	misses_plot(pg, r, ms, nm, rows, nlanes);
	free(ms);
	lw_pg_section_end(pg);
}

int lw_report_html_run(FILE *out, const struct lw_report_in *in)
{
	const struct lw_rrun *r = in->run;
	const struct lw_checks *cs = in->checks;
	const struct lw_report_opts *o = in->ro;
	struct page pg = { .f = out, .o = o };
	char title[256];

	snprintf(title, sizeof(title), "latwatt report: %s, %s", lw_rrun_str(r, "board"),
		 lw_rrun_str(r, "kernel_release"));
	lw_pg_begin(&pg, title);
	header(&pg, r);
	latency_sections(&pg, r);
	spikes_section(&pg, r);
	idle_section(&pg, r);
	power_section(&pg, r);
	tradeoff_section(&pg, r);
	workloads_section(&pg, r);
	lw_pg_section(&pg, "budgets", "Checks: budgets and thresholds", r->checks.n > 0);
	if (r->checks.n)
		lw_report_checks_table(&pg, cs, "budgets");
	else
		lw_pg_raw(&pg, "<p class=\"missing\">No budget or threshold applies to this run: give "
		       "some with --budget (e.g. p99&lt;100us), in the scenario or the board file, "
		       "or run with --threshold.</p>\n");
	lw_pg_section_end(&pg);
	lw_pg_end(&pg);
	if (fflush(out) == EOF || ferror(out))
		return error_errno("cannot write the report");
	if (pg.failed)
		warning("%d plot%s could not be drawn (see the report)", pg.failed,
			pg.failed > 1 ? "s" : "");
	return 0;
}
