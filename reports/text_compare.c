// SPDX-License-Identifier: GPL-2.0-only
/*
 * The comparison as a text table (latwatt compare, latwatt bisect): the
 * document of analysis/compare.c rendered, nothing computed again.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "lib/json.h"
#include "lib/parse.h"
#include "reports/report.h"

static const char *sval(const json_t *o, const char *k, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s && *s ? s : dflt;
}

/* A value in the metric's unit into @buf: latencies in us.  A figure the
 * runs do not have is "unknown" when they did not count it, "not recorded"
 * when they had nothing to count (no such workload), else "-" (not
 * computed: the note says why). */
static const char *fmt_val(double v, const char *unit, const char *note, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "%s", !note ? "-" : !strncmp(note, "unknown", 7) ? "unknown" :
			 !strncmp(note, "not recorded", 12) ? "not recorded" : "-");
	else if (!strcmp(unit, "ns"))
		snprintf(buf, len, "%.1f", v / 1e3);
	else if (!strcmp(unit, "count"))
		snprintf(buf, len, "%.0f", v);
	else if (!strcmp(unit, "W"))
		snprintf(buf, len, "%.3fW", v);
	else
		snprintf(buf, len, "%.3f", v);
	return buf;
}

/* "[lo,hi]" scaled, with @prec decimals; percentages signed */
static const char *fmt_ci(const json_t *pair, double scale, int prec, int pct, char *buf, size_t len)
{
	double lo = json_number_value(json_array_get(pair, 0)) * scale;
	double hi = json_number_value(json_array_get(pair, 1)) * scale;

	if (!json_is_array(pair))
		buf[0] = 0;
	else if (pct)
		snprintf(buf, len, "[%+.*f%%,%+.*f%%]", prec, lo, prec, hi);
	else
		snprintf(buf, len, " [%.*f,%.*f]", prec, lo, prec, hi);
	return buf;
}

static const char *fmt_p(double p, char *buf, size_t len)
{
	if (!isfinite(p))
		snprintf(buf, len, "-");
	else if (p < 0.001)
		snprintf(buf, len, "<0.001");
	else
		snprintf(buf, len, "%.3f", p);
	return buf;
}

/* A side's per-run counts into @buf (64 bytes or more): all of them when
 * they fit its column of 24, else the first few and "(first N of M)". */
static const char *fmt_counts(const json_t *counts, char *buf, size_t len)
{
	size_t n = json_array_size(counts), i, used = 0, room = 24;
	const json_t *v;

	for (int pass = 0; pass < 2; pass++, room = 10) {
		used = 0;
		buf[0] = 0;
		json_array_foreach(counts, i, v) {
			char one[24];
			int w = snprintf(one, sizeof(one), "%s%" JSON_INTEGER_FORMAT, i ? " " : "",
					 json_integer_value(v));

			if (used + (size_t)w > room && i)
				break;
			memcpy(buf + used, one, (size_t)w + 1);
			used += (size_t)w;
		}
		if (i == n)
			return buf;
	}
	snprintf(buf + used, len - used, " (first %zu of %zu)", i, n);
	return buf;
}

static void print_metric(FILE *out, const json_t *m, const json_t *ra, const json_t *rb)
{
	const char *name = sval(m, "name", "?"), *unit = sval(m, "unit", ""), *kind = sval(m, "kind", "");
	const char *probe = sval(m, "probe", NULL), *short_name = name, *note = sval(m, "note", NULL);
	char a[64], b[64], ch[32], ci[48], p[16], ca[48], cb[48], label[64], md[16];
	double rel = lw_jnum(m, "rel", NAN), mdc;
	const json_t *pa = NULL, *pb = NULL, *runs = json_object_get(m, "runs");
	int grouped = json_integer_value(json_array_get(runs, 0)) > 1 ||
		      json_integer_value(json_array_get(runs, 1)) > 1;

	if (probe) {
		short_name = name + strlen(probe) + 1;
		pa = json_object_get(json_object_get(ra, "probes"), probe);
		pb = json_object_get(json_object_get(rb, "probes"), probe);
	}
	snprintf(label, sizeof(label), "%s", short_name);
	fmt_val(lw_jnum(m, "baseline", NAN), unit, note, a, sizeof(a));
	fmt_val(lw_jnum(m, "value", NAN), unit, note, b, sizeof(b));
	ca[0] = cb[0] = 0;
	if (!strcmp(kind, "percentile")) {
		fmt_ci(json_object_get(json_object_get(json_object_get(pa, "percentiles"), short_name),
				       "ci_ns"), 1e-3, 1, 0, ca, sizeof(ca));
		fmt_ci(json_object_get(json_object_get(json_object_get(pb, "percentiles"), short_name),
				       "ci_ns"), 1e-3, 1, 0, cb, sizeof(cb));
	} else if (!strcmp(kind, "worst-case")) {
		fmt_ci(json_object_get(json_object_get(pa, "worst_case"), "ci_ns"), 1e-3, 0, 0,
		       ca, sizeof(ca));
		fmt_ci(json_object_get(json_object_get(pb, "worst_case"), "ci_ns"), 1e-3, 0, 0,
		       cb, sizeof(cb));
		char h[32];
		lw_format_duration((uint64_t)lw_jnum(m, "horizon_ns", NAN), h, sizeof(h));
		snprintf(label, sizeof(label), "worst/%s est.", h);
	} else if (!strcmp(kind, "block-maxima")) {
		char h[32];
		lw_format_duration((uint64_t)lw_jnum(m, "block_ns", NAN), h, sizeof(h));
		if (json_is_integer(json_object_get(m, "cpu")))	/* one CPU's */
			snprintf(label, sizeof(label), "cpu%" JSON_INTEGER_FORMAT " max/%s",
				 json_integer_value(json_object_get(m, "cpu")), h);
		else
			snprintf(label, sizeof(label), "max per %s", h);
	} else if (!strcmp(kind, "count") && json_object_get(m, "total")) {
		/* counts as counts: a group's total over its runs, and the mean of
		 * the runs' rates (what the verdict is judged on) */
		fmt_val(lw_jnum(m, "baseline_total", NAN), unit, note, a, sizeof(a));
		fmt_val(lw_jnum(m, "total", NAN), unit, note, b, sizeof(b));
		if (isfinite(lw_jnum(m, "baseline_rate", NAN)))
			snprintf(ca, sizeof(ca), " (%.3g%%)", lw_jnum(m, "baseline_rate", NAN) * 100);
		if (isfinite(lw_jnum(m, "rate", NAN)))
			snprintf(cb, sizeof(cb), " (%.3g%%)", lw_jnum(m, "rate", NAN) * 100);
		if (json_object_get(m, "rate_rel"))
			rel = lw_jnum(m, "rate_rel", NAN);
	} else if (!strcmp(kind, "distribution")) {
		snprintf(ca, sizeof(ca), " (median)");
		snprintf(cb, sizeof(cb), " (median)");
	}
	strncat(a, ca, sizeof(a) - strlen(a) - 1);
	strncat(b, cb, sizeof(b) - strlen(b) - 1);
	if (json_is_true(json_object_get(m, "rel_infinite")) ||
	    (!strcmp(kind, "count") && isinf(rel)))
		snprintf(ch, sizeof(ch), "new");
	else if (isfinite(rel))
		snprintf(ch, sizeof(ch), "%+.1f%%", rel * 100);
	else
		snprintf(ch, sizeof(ch), "-");
	if (!strcmp(kind, "distribution"))
		snprintf(ci, sizeof(ci), "delta %+.3f", lw_jnum(m, "cliffs_delta", NAN));
	else
		fmt_ci(json_object_get(m, "ci_rel"), 100, 1, 1, ci, sizeof(ci));
	mdc = lw_jnum(json_object_get(m, "min_detectable"), "value", NAN);
	if (isfinite(mdc) && mdc > 10)
		snprintf(md, sizeof(md), ">1000%%");
	else if (isfinite(mdc))
		snprintf(md, sizeof(md), "%.0f%%", mdc * 100);
	else
		snprintf(md, sizeof(md), "-");
	/* the p the verdict was decided on: Holm-adjusted */
	fprintf(out, "  %-15s %-24s %-24s %8s %-19s %8s %6s  %s\n", label, a, b, ch, ci,
		fmt_p(lw_jnum(m, "p_adjusted", NAN), p, sizeof(p)), md, sval(m, "verdict", "?"));
	if (!strcmp(kind, "count") && grouped && json_is_array(json_object_get(m, "per_run"))) {
		const json_t *per = json_object_get(m, "per_run");

		fmt_counts(json_array_get(per, 0), a, sizeof(a));
		fmt_counts(json_array_get(per, 1), b, sizeof(b));
		fprintf(out, "  %-15s %-24s %s\n", "  per run", a, b);
	}
}

void lw_compare_print(const json_t *doc, FILE *out)
{
	const json_t *runs = json_object_get(doc, "runs"), *groups = json_object_get(doc, "groups");
	const json_t *r, *c, *g;
	size_t i, j, base = (size_t)json_integer_value(json_object_get(doc, "baseline"));
	const json_t *set = json_object_get(doc, "settings");

	fprintf(out, "%-3s %-28s %-22s %-16s %-9s %-9s %-10s %s\n", "", "run", "kernel", "preempt",
		"nohz_full", "board", "status", "duration");
	json_array_foreach(groups, i, g) {
		const json_t *idx;

		if (json_array_size(json_object_get(g, "runs")) > 1)
			fprintf(out, "%c%c  group %s: %zu runs\n", (int)('A' + (i % 26)),
				i == base ? '*' : ' ', sval(g, "name", "?"),
				json_array_size(json_object_get(g, "runs")));
		json_array_foreach(json_object_get(g, "runs"), j, idx) {
			char d[32] = "?";
			json_t *dur;

			r = json_array_get(runs, (size_t)json_integer_value(idx));
			dur = json_object_get(r, "duration_ns");
			if (json_is_integer(dur))
				lw_format_duration((uint64_t)json_integer_value(dur), d, sizeof(d));
			int head = !j && json_array_size(json_object_get(g, "runs")) == 1;

			fprintf(out, "%c%c  %-28s %-22s %-16s %-9s %-9s %-10s %s\n",
				head ? (int)('A' + (i % 26)) : ' ', head && i == base ? '*' : ' ',
				sval(r, "label", "?"), sval(r, "kernel_release", "?"),
				sval(r, "preempt_model", "?"), sval(r, "nohz_full", "off"),
				sval(r, "board", "?"), sval(r, "status", "?"), d);
		}
	}
	fprintf(out, "(* baseline; latencies in us; a group's latency or power is the geometric "
		"mean of its runs', a count\n the total over its runs (with the mean of their rates), "
		"a share the mean; %.0f%% intervals;\n verdicts from the spread between runs: p, "
		"adjusted by Holm over the metrics tested, < %g\n and a change beyond %.0f%%; mdc: "
		"smallest change these runs detect)\n",
		lw_jnum(set, "confidence", NAN) * 100, lw_jnum(set, "alpha", NAN),
		lw_jnum(set, "practical", NAN) * 100);
	if (json_is_object(json_object_get(doc, "judge")))
		fprintf(out, "latency judged on the %s: %s\n",
			strcmp(sval(json_object_get(doc, "judge"), "on", "raw"), "kernel") ? "raw figures" :
			"kernel-attributable figures (each spike less the host's time in it)",
			sval(json_object_get(doc, "judge"), "why", "?"));
	runs = groups;		/* the figures printed are the groups' */
	json_array_foreach(json_object_get(doc, "comparisons"), i, c) {
		size_t ir = (size_t)json_integer_value(json_object_get(c, "run")), k;
		const json_t *ra = json_array_get(runs, base), *rb = json_array_get(runs, ir), *m;
		const char *probe = "";

		json_array_foreach(json_object_get(c, "metrics"), k, m) {
			const char *mp = sval(m, "probe", "");

			if (!k || strcmp(mp, probe)) {
				probe = mp;
				fprintf(out, "\n%c vs %c%s%s\n", (int)('A' + (ir % 26)), (int)('A' + (base % 26)),
					*probe ? ": probe " : ": workloads, power, idle, causes",
					probe);
				fprintf(out, "  %-15s %-24s %-24s %8s %-19s %8s %6s  %s\n", "metric",
					"baseline", "run", "change", "CI of change", "p (Holm)", "mdc",
					"verdict");
			}
			print_metric(out, m, ra, rb);
		}
		/* the design's power at the spread seen, for the p99 of each probe */
		json_array_foreach(json_object_get(c, "metrics"), k, m) {
			const json_t *md = json_object_get(m, "min_detectable");
			const char *mn = sval(m, "name", "");
			size_t ln = strlen(mn);
			double v = lw_jnum(md, "value", NAN);
			char mv[32];

			if (ln < 4 || strcmp(mn + ln - 4, ".p99") ||
			    !json_is_integer(json_object_get(md, "runs_needed")))
				continue;
			if (v > 10)
				snprintf(mv, sizeof(mv), ">1000%%");
			else
				snprintf(mv, sizeof(mv), "%.0f%%", v * 100);
			fprintf(out, "  design: %s finds a %.0f%% change with probability %.1f at the "
				"spread seen with %" JSON_INTEGER_FORMAT "%s runs a side (these runs: "
				"%s)\n", mn, lw_jnum(set, "practical", NAN) * 100,
				lw_jnum(md, "power", NAN),
				json_integer_value(json_object_get(md, "runs_needed")),
				json_integer_value(json_object_get(md, "runs_needed")) >= 1000 ?
				" or more" : "", mv);
		}
		if (json_is_false(json_object_get(c, "verdicts")))
			fprintf(out, "  no verdict: too few runs to measure how runs vary from one "
				"another;\n  repeat the runs (run --repeat): at least %" JSON_INTEGER_FORMAT
				" a side for a %.0f%% change here\n",
				json_integer_value(json_object_get(c, "repeats_needed")),
				lw_jnum(set, "practical", NAN) * 100);
		/* what was judged per CPU, or why nothing was */
		json_array_foreach(json_object_get(c, "per_cpu"), k, m) {
			const json_t *cpus = json_object_get(m, "cpus");

			if (json_array_size(cpus))
				fprintf(out, "  per CPU: %s on %zu CPUs: %" JSON_INTEGER_FORMAT " tested "
					"(p99, max per 100ms; in Holm's family), %" JSON_INTEGER_FORMAT
					" shown: those with a verdict and the worst CPU of each figure\n",
					sval(m, "probe", "?"), json_array_size(cpus),
					json_integer_value(json_object_get(m, "tested")),
					json_integer_value(json_object_get(m, "shown")));
			else
				fprintf(out, "  per CPU: %s not judged: %s\n", sval(m, "probe", "?"),
					sval(m, "note", "no CPU measured in every run"));
		}
		/* why worst-case estimates were refused, once per probe */
		const char *pn;
		json_t *pj;
		json_object_foreach(json_object_get(rb, "probes"), pn, pj) {
			json_t *wc = json_object_get(pj, "worst_case");

			if (json_is_false(json_object_get(wc, "estimated")))
				fprintf(out, "  note: %s worst case of %c not extrapolated: %s\n", pn,
					(int)('A' + (ir % 26)), sval(wc, "reason", "?"));
		}
	}
	if (json_array_size(json_object_get(doc, "rules"))) {
		const char *res = sval(doc, "result", "?");

		fprintf(out, "\nrules\n");
		json_array_foreach(json_object_get(doc, "rules"), i, r)
			fprintf(out, "  %-9s %-24s %s\n", sval(r, "result", "?"), sval(r, "rule", "?"),
				sval(r, "detail", ""));
		fprintf(out, "result: %s%s\n", res, !strcmp(res, "undecided") ?
			" (no rule could be judged: this is not a pass)" : "");
	}
}
