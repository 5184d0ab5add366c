// SPDX-License-Identifier: GPL-2.0-only
/*
 * The text of `latwatt analyze`: the verdict block first, then the details
 * (latency per probe and CPU, spikes and their causes, latency by idle
 * state, NO_HZ, workloads, power, the checks), all rendered from the
 * analysis document and its verdict: nothing here reads the run directory.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/summary.h"
#include "analysis/tracepass.h"
#include "analysis/tradeoff.h"
#include "lib/json.h"
#include "lib/samples.h"
#include "lib/stats.h"
#include "power/idle.h"
#include "power/power.h"
#include "reports/report.h"
#include "workloads/workload.h"

/* Causes listed in the cause table; the rest are one "others" row. */
#define TOP_CAUSES 8
/* Components of a spike listed; the rest are one "others" row. */
#define TOP_COMPONENTS 5

/* A latency column: "-" where the count is 0, "unknown" for a null, ">400.0"
 * for a figure only bounded (a percentile in a histogram's overflow). */
static void lat_cell(FILE *out, const json_t *row, const char *key, int width)
{
	const json_t *v = json_object_get(row, key);
	char above[64], buf[32];

	if (json_integer_value(json_object_get(row, "count")) <= 0) {
		fprintf(out, " %*s", width, "-");
		return;
	}
	if (json_is_number(v)) {
		fprintf(out, " %*.1f", width, json_number_value(v) / 1e3);
		return;
	}
	snprintf(above, sizeof(above), "%.*s_above_ns", (int)(strlen(key) - 3), key);
	if (json_is_number(json_object_get(row, above))) {
		snprintf(buf, sizeof(buf), ">%.1f", lw_jnum(row, above, NAN) / 1e3);
		fprintf(out, " %*s", width, buf);
		return;
	}
	fprintf(out, " %*s", width, "unknown");
}

/* A count column: "-" where it does not apply (@na), "unknown" for a null. */
static void count_cell(FILE *out, const json_t *row, const char *key, int na, int width)
{
	const json_t *v = json_object_get(row, key);

	if (na)
		fprintf(out, " %*s", width, "-");
	else if (json_is_integer(v))
		fprintf(out, " %*" JSON_INTEGER_FORMAT, width, json_integer_value(v));
	else
		fprintf(out, " %*s", width, "unknown");
}

static void probe_row(FILE *out, const char *label, const json_t *row, int have_threshold)
{
	fprintf(out, "%5s", label);
	count_cell(out, row, "count", 0, 10);
	for (int k = 0; k < LW_NSTAT; k++)
		lat_cell(out, row, lw_stat_keys[lw_stat_columns[k]], 9);
	count_cell(out, row, "over_threshold", !have_threshold, 8);
	count_cell(out, row, "missed_periods", 0, 8);
	count_cell(out, row, "dropped", 0, 8);
	fputc('\n', out);
}

/* What "unknown" and ">N" in the probe table mean, when they appear. */
static void legend(FILE *out, const json_t *probes)
{
	int above = 0, missed = 0, over = 0;
	const json_t *p, *c;
	const char *name, *key;
	size_t i;

	json_object_foreach((json_t *)probes, name, p) {
		const json_t *all = json_object_get(p, "all");

		for (i = 0; all && i <= json_array_size(json_object_get(p, "cpus")); i++) {
			const json_t *v;

			c = i ? json_array_get(json_object_get(p, "cpus"), i - 1) : all;
			json_object_foreach((json_t *)c, key, v)
				above |= strstr(key, "_above_ns") != NULL;
			missed |= json_is_null(json_object_get(c, "missed_periods"));
			over |= json_is_integer(json_object_get(c, "over_threshold_at_least"));
		}
	}
	if (above)
		fprintf(out, ">N: the percentile lies in the histogram's overflow: N us or more, its "
			"value not known\n");
	if (over)
		fprintf(out, "over unknown: the histogram cannot count the samples above the "
			"threshold\n");
	if (missed)
		fprintf(out, "missed unknown: not recorded (cyclictest does not count missed "
			"periods)\n");
}

static void probes_print(FILE *out, const json_t *doc)
{
	const json_t *probes = json_object_get(doc, "probes"), *p, *c;
	const json_t *thr = json_object_get(doc, "threshold_ns");
	int have_threshold = json_is_integer(thr) && json_integer_value(thr) > 0;
	const char *name, *src = lw_jstr(doc, "source", "samples");
	size_t i;

	if (!strcmp(src, "monitor"))
		fprintf(out, "\nmonitored: from interval histograms, percentiles have their bucket "
			"resolution (1us)\n");
	else if (!strcmp(src, "histogram"))
		fprintf(out, "\nfrom a histogram: percentiles have its bucket resolution (1us)\n");
	json_object_foreach((json_t *)probes, name, p) {
		fprintf(out, "\nprobe %s (latency in us)\n", name);
		fprintf(out, "%5s %10s", "cpu", "samples");
		for (int k = 0; k < LW_NSTAT; k++)
			fprintf(out, " %9s", lw_stat_names[lw_stat_columns[k]]);
		fprintf(out, " %8s %8s %8s\n", "over", "missed", "dropped");
		json_array_foreach(json_object_get(p, "cpus"), i, c) {
			char cpu[16];

			snprintf(cpu, sizeof(cpu), "%" JSON_INTEGER_FORMAT,
				 json_integer_value(json_object_get(c, "cpu")));
			probe_row(out, cpu, c, have_threshold);
		}
		if (json_is_object(json_object_get(p, "all")))
			probe_row(out, "all", json_object_get(p, "all"), have_threshold);
	}
	if (have_threshold)
		fprintf(out, "\nover: samples above %.1fus (%s)\n",
			(double)json_integer_value(thr) / 1e3, lw_jstr(doc, "threshold_source", "--threshold"));
	legend(out, probes);
}

/* The time no event explains, split by what the trace does know. */
static void unexplained_print(FILE *out, const json_t *sp)
{
	const json_t *u = json_object_get(sp, "unexplained"), *st = json_object_get(sp, "steal"), *v;
	size_t i;

	if (!u || (!(lw_jnum(u, "idle_late_ns", NAN) > 0) && !(lw_jnum(u, "running_ns", NAN) > 0) && !st))
		return;
	fprintf(out, "  time no event explains, by what the trace knows:\n");
	json_array_foreach(json_object_get(u, "idle_late"), i, v) {
		char lat[48];

		if (json_is_number(json_object_get(v, "exit_latency_ns")))
			snprintf(lat, sizeof(lat), "%.1fus", lw_jnum(v, "exit_latency_ns", NAN) / 1e3);
		else
			snprintf(lat, sizeof(lat), "none declared");
		fprintf(out, "    idle-late:%-16s %10.1fus in %lld spikes: idle past the state's exit "
			"latency (%s)\n", lw_jstr(v, "state", "?"), lw_jnum(v, "ns", NAN) / 1e3,
			(long long)lw_jnum(v, "spikes", NAN), lat);
	}
	if (lw_jnum(u, "running_ns", NAN) > 0)
		fprintf(out, "    %-26s %10.1fus in %lld spikes: the CPU was running and the trace "
			"saw nothing (interrupts off, firmware, SMI, hypervisor)\n", "unexplained",
			lw_jnum(u, "running_ns", NAN) / 1e3, (long long)lw_jnum(u, "running_spikes", NAN));
	if (st) {
		fprintf(out, "    steal time the machine reported during the run (/proc/stat):");
		if (!(lw_jnum(st, "total_ns", NAN) > 0))
			fprintf(out, " none (0: none, or the hypervisor does not report it)");
		json_array_foreach(json_object_get(st, "cpus"), i, v)
			if (lw_jnum(v, "steal_ns", NAN) > 0)
				fprintf(out, " cpu%lld %.1fms", (long long)lw_jnum(v, "cpu", NAN),
					lw_jnum(v, "steal_ns", NAN) / 1e6);
		fputc('\n', out);
	}
}

/* The host's part and the kernel-attributable figures: one line each. */
static void host_print(FILE *out, const json_t *doc)
{
	char line[8][LW_HOST_LINE];
	size_t n = lw_host_lines(doc, line, 8);

	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %s\n", line[i]);
}

static void causes_print(FILE *out, const json_t *sp)
{
	const json_t *causes = json_object_get(sp, "causes"), *c;
	size_t i, n = json_array_size(causes);
	double ons = 0, oshare = 0;
	long long odom = 0;

	if (!n)
		return;
	fprintf(out, "  %-40s %8s %10s %8s\n", "cause (by time charged)", "dominant", "time (us)",
		"share");
	json_array_foreach(causes, i, c) {
		if (i < TOP_CAUSES) {
			fprintf(out, "  %-40.40s %8lld %10.1f %7.1f%%\n", lw_jstr(c, "cause", "?"),
				(long long)lw_jnum(c, "count", NAN), lw_jnum(c, "ns", NAN) / 1e3,
				lw_jnum(c, "share", NAN) * 100);
			continue;
		}
		odom += (long long)lw_jnum(c, "count", NAN);
		ons += lw_jnum(c, "ns", NAN);
		oshare += lw_jnum(c, "share", NAN);
	}
	if (n > TOP_CAUSES) {
		char label[64];

		snprintf(label, sizeof(label), "others (%zu causes)", n - TOP_CAUSES);
		fprintf(out, "  %-40s %8lld %10.1f %7.1f%%\n", label, odom, ons / 1e3, oshare * 100);
	}
}

static void top_spikes_print(FILE *out, const json_t *sp, size_t top)
{
	const json_t *list = json_object_get(sp, "top"), *c, *v;
	size_t i, j, n = json_array_size(list), shown = n < top ? n : top;
	long long total = (long long)lw_jnum(sp, "spikes_total", NAN);

	if (!shown)
		return;
	if (total > (long long)shown)
		fprintf(out, "  the %zu largest spikes of %lld:\n", shown, total);
	else
		fprintf(out, "  the spikes, largest first:\n");
	json_array_foreach(list, i, c) {
		size_t nc = json_array_size(json_object_get(c, "components"));
		double ons = 0, oshare = 0;

		if (i >= shown)
			break;
		fprintf(out, "  %-12s cpu %-3lld %9.1fus  %s", lw_probe_name((unsigned)lw_jnum(c, "probe", NAN)),
			(long long)lw_jnum(c, "cpu", NAN), lw_jnum(c, "latency_ns", NAN) / 1e3,
			lw_jstr(c, "cause", "?"));
		if (json_object_get(c, "unattributable"))
			fprintf(out, " (%s)", lw_jstr(c, "unattributable", "?"));
		fputc('\n', out);
		if (json_is_string(json_object_get(c, "cause_code")))	/* run --stacks */
			fprintf(out, "      code: %s\n", lw_jstr(c, "cause_code", ""));
		json_array_foreach(json_object_get(c, "components"), j, v) {
			if (j < TOP_COMPONENTS) {
				fprintf(out, "      %-36.36s %9.1fus %5.1f%%\n", lw_jstr(v, "cause", "?"),
					lw_jnum(v, "ns", NAN) / 1e3, lw_jnum(v, "share", NAN) * 100);
				continue;
			}
			ons += lw_jnum(v, "ns", NAN);
			oshare += lw_jnum(v, "share", NAN);
		}
		if (nc > TOP_COMPONENTS) {
			char label[48];

			snprintf(label, sizeof(label), "others (%zu)", nc - TOP_COMPONENTS);
			fprintf(out, "      %-36.36s %9.1fus %5.1f%%\n", label, ons / 1e3, oshare * 100);
		}
	}
}

static void spikes_print(FILE *out, const json_t *doc, size_t top)
{
	const json_t *sp = json_object_get(doc, "spikes"), *v;
	const char *key;

	if (!json_is_object(sp))
		return;
	fprintf(out, "\nspikes: %lld samples above the spike thresholds, %lld explained from the "
		"trace, %lld not (lost trace events, or outside the trace)\n",
		(long long)lw_jnum(sp, "spikes_total", NAN), (long long)lw_jnum(sp, "attributed", NAN),
		(long long)lw_jnum(sp, "unattributable", NAN));
	json_object_foreach((json_t *)json_object_get(sp, "thresholds"), key, v) {
		if (lw_jnum(v, "threshold_ns", NAN) > 0)
			fprintf(out, "  %s: %lld samples above %.1fus (%s)\n", key,
				(long long)lw_jnum(v, "above", NAN), lw_jnum(v, "threshold_ns", NAN) / 1e3,
				lw_jstr(v, "source", "?"));
		else
			fprintf(out, "  %s: %lld samples (%s)\n", key, (long long)lw_jnum(v, "above", NAN),
				lw_jstr(v, "source", "?"));
	}
	if ((v = json_object_get(sp, "trace_windows")))
		fprintf(out, "  monitored: %lld spikes inside the %lld trace windows saved, "
			"%lld with no trace window (not attributed)\n",
			(long long)lw_jnum(v, "spikes_in_windows", NAN), (long long)lw_jnum(v, "windows", NAN),
			(long long)lw_jnum(v, "spikes_without_trace", NAN));
	causes_print(out, sp);
	host_print(out, doc);
	unexplained_print(out, sp);
	top_spikes_print(out, sp, top);
}

static void idle_latency_print(FILE *out, const json_t *doc)
{
	const json_t *il = json_object_get(doc, "idle_latency"), *v, *c;
	const char *key;
	size_t i;

	if (!json_object_size(il))
		return;
	fprintf(out, "\nlatency by the idle state the CPU was in at the expected time (us)\n");
	fprintf(out, "  %-16s %-12s %10s %9s %9s %9s\n", "probe", "state", "samples", "p50", "p99",
		"max");
	json_object_foreach((json_t *)il, key, v)
		json_array_foreach(v, i, c) {
			fprintf(out, "  %-16s %-12s", key, lw_jstr(c, "state", "?"));
			count_cell(out, c, "count", 0, 10);
			lat_cell(out, c, "p50_ns", 9);
			lat_cell(out, c, "p99_ns", 9);
			lat_cell(out, c, "max_ns", 9);
			fputc('\n', out);
		}
}

/* A rate of the NO_HZ table: "-" when null (too little time to say). */
static void rate_cell(FILE *out, const json_t *c, const char *key, int width)
{
	if (json_is_number(json_object_get(c, key)))
		fprintf(out, " %*.1f", width, lw_jnum(c, key, NAN));
	else
		fprintf(out, " %*s", width, "-");
}

static void nohz_print(FILE *out, const json_t *doc)
{
	const json_t *nz = json_object_get(doc, "nohz"), *c, *v;
	size_t i, j;

	if (!json_array_size(json_object_get(nz, "cpus")))
		return;
	fprintf(out, "\nNO_HZ: ticks and wake-ups per second (trace of %.1fs)\n",
		lw_jnum(nz, "duration_s", NAN));
	fprintf(out, "  %4s %6s %12s %12s %9s %9s %10s  %s\n", "cpu", "idle", "idle ticks/s",
		"busy ticks/s", "tick stop", "kept", "wakeups/s", "top wake-up sources (per s)");
	json_array_foreach(json_object_get(nz, "cpus"), i, c) {
		double idle = lw_jnum(c, "idle_s", NAN), busy = lw_jnum(c, "busy_s", NAN);
		const json_t *ts = json_object_get(c, "tick_stop");

		fprintf(out, "  %4lld %5.1f%%", (long long)lw_jnum(c, "cpu", NAN),
			idle + busy > 0 ? idle / (idle + busy) * 100 : 0);
		rate_cell(out, c, "ticks_per_s_idle", 12);
		rate_cell(out, c, "ticks_per_s_busy", 12);
		fprintf(out, " %9lld %9lld", (long long)lw_jnum(ts, "stopped", NAN),
			(long long)lw_jnum(ts, "kept", NAN));
		rate_cell(out, c, "wakeups_per_s", 10);
		fputc(' ', out);
		json_array_foreach(json_object_get(c, "wakeup_sources"), j, v) {
			if (j == 3)
				break;
			if (json_is_number(json_object_get(v, "per_s")))
				fprintf(out, " %s %.1f", lw_jstr(v, "source", "?"), lw_jnum(v, "per_s", NAN));
			else	/* too little time for a rate: the count */
				fprintf(out, " %s n=%.0f", lw_jstr(v, "source", "?"), lw_jnum(v, "count", NAN));
		}
		fputc('\n', out);
	}
	/* a rate over too little time is not given: say why (analysis/tracepass.c) */
	json_array_foreach(json_object_get(nz, "cpus"), i, c) {
		static const struct { const char *rate, *count, *secs, *what; } r[] = {
			{ "ticks_per_s_idle", "ticks_idle", "idle_s", "idle" },
			{ "ticks_per_s_busy", "ticks_busy", "busy_s", "busy time" },
		};

		for (size_t k = 0; k < sizeof(r) / sizeof(r[0]); k++)
			if (json_is_null(json_object_get(c, r[k].rate)))
				fprintf(out, "  cpu %.0f: %s ticks/s not given: too little %s (%.1f ms, "
					"%.0f ticks; a rate needs %.0f s)\n", lw_jnum(c, "cpu", NAN),
					k ? "busy" : "idle", r[k].what, lw_jnum(c, r[k].secs, NAN) * 1e3,
					lw_jnum(c, r[k].count, NAN), lw_jnum(nz, "rate_min_s", NAN));
		if (json_is_null(json_object_get(c, "wakeups_per_s")))
			fprintf(out, "  cpu %.0f: wake-ups per second not given: %.0f in a trace of "
				"%.1f ms (sources: counts, not rates)\n", lw_jnum(c, "cpu", NAN), lw_jnum(c, "wakeups", NAN),
				lw_jnum(nz, "duration_s", NAN) * 1e3);
	}
}

static void checks_print(FILE *out, const json_t *doc, const struct lw_checks *cs)
{
	static const char *const words[] = { [LW_PASS] = "ok", [LW_FAIL] = "BROKEN",
					     [LW_SKIP] = "n/a" };

	fprintf(out, "\nchecks (budgets and thresholds):\n");
	if (!cs->n) {
		fprintf(out, "  none: no budget or threshold applies to this run");
		if (json_is_string(json_object_get(doc, "board_checked")))
			fprintf(out, " (board %s has no budgets)", lw_jstr(doc, "board_checked", "?"));
		fputc('\n', out);
		return;
	}
	for (size_t i = 0; i < cs->n; i++) {
		const struct lw_check *c = &cs->c[i];

		fprintf(out, "  %-6s %-32s ", words[c->result], c->rule);
		if (isnan(c->measured))
			fprintf(out, "%12s", "-");
		else
			fprintf(out, "%12.10g", c->measured);
		fprintf(out, " %-5s %s", c->unit, c->origin);
		if (c->kernel)	/* the figure judged, and the raw one */
			fprintf(out, "; kernel-attributable, raw %.10g", c->raw);
		fputc('\n', out);
	}
}

/* The hwnoise probe's per-period figures, a line per CPU. */
static void hwnoise_print(FILE *out, const json_t *doc)
{
	char line[16][LW_HOST_LINE];
	size_t n = lw_hwnoise_lines(doc, line, 16);

	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s\n", i ? "" : "\n", line[i]);
}

/* SMIs the run counted (MSR_SMI_COUNT at its start and end): only when some. */
static void smi_print(FILE *out, const json_t *doc)
{
	const json_t *smi = json_object_get(doc, "smi"), *c;
	size_t i;

	if (!(lw_jnum(smi, "total", NAN) > 0))
		return;
	fprintf(out, "SMIs during the run: %lld (", (long long)lw_jnum(smi, "total", NAN));
	json_array_foreach(json_object_get(smi, "cpus"), i, c)
		fprintf(out, "%scpu%lld %lld", i ? ", " : "", (long long)lw_jnum(c, "cpu", NAN),
			(long long)lw_jnum(c, "count", NAN));
	fprintf(out, "): firmware time no kernel trace sees\n");
}

void lw_report_text_run(FILE *out, const json_t *doc, const struct lw_run_verdict *v,
			const struct lw_checks *cs, size_t top)
{
	const json_t *run = json_object_get(doc, "run"), *wl = json_object_get(doc, "workloads");
	const char *reason = lw_jstr(run, "status_reason", NULL);
	const json_t *power = json_object_get(doc, "power"), *idle = json_object_get(doc, "idle");

	lw_verdict_print(out, v);
	fprintf(out, "\nrun %s: %s%s%s\n", lw_jstr(run, "path", "?"), lw_jstr(run, "status", "?"),
		reason ? ", " : "", reason ? reason : "");
	fprintf(out, "kernel %s (%s), board %s%s%s\n", lw_jstr(run, "kernel_release", "?"),
		lw_jstr(run, "preempt_model", "?"), lw_jstr(run, "board", "?"),
		json_is_string(json_object_get(run, "scenario")) ? ", scenario " : "",
		lw_jstr(run, "scenario", ""));
	if (json_is_object(json_object_get(run, "warm_up")))
		fprintf(out, "warm-up: the samples of the first %.3g s (%.0f) kept apart in "
			"RUN/%s, in no figure below\n",
			lw_jnum(json_object_get(run, "warm_up"), "duration_ns", 0) / 1e9,
			lw_jnum(json_object_get(run, "warm_up"), "samples", 0),
			lw_jstr(json_object_get(run, "warm_up"), "file", "warmup-samples"));
	smi_print(out, doc);
	probes_print(out, doc);
	hwnoise_print(out, doc);
	if (json_object_get(doc, "over_time"))
		lw_summary_print_over_time(json_object_get(doc, "over_time"), out);
	spikes_print(out, doc, top);
	if (json_object_size(wl)) {
		fprintf(out, "\nworkloads\n");
		lw_workload_summaries_print(out, wl);
		lw_misses_print(out, doc);
	}
	idle_latency_print(out, doc);
	nohz_print(out, doc);
	fputc('\n', out);
	if (json_is_object(power))
		lw_power_print(out, power);
	else
		fprintf(out, "power: not measured (no RUN/power) and no trace to estimate it from\n");
	if (json_is_object(idle))
		lw_idle_print(out, idle);
	if (json_object_get(doc, "tradeoff"))
		lw_tradeoff_print(out, doc);
	checks_print(out, doc, cs);
}
