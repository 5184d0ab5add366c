// SPDX-License-Identifier: GPL-2.0-only
/* A run as a report sees it: manifest, analysis, decimated samples. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analyze.h"
#include "analysis/summary.h"
#include "boards/board.h"
#include "lib/error.h"
#include "lib/input.h"
#include "lib/json.h"
#include "lib/samples.h"
#include "reports/report.h"
#include "workloads/rkind.h"

char *lw_fmt_us(double ns, char *buf, size_t len)
{
	double us = ns / 1e3;

	if (us < 10)
		snprintf(buf, len, "%.2f", us);
	else if (us < 100000)
		snprintf(buf, len, "%.1f", us);
	else
		snprintf(buf, len, "%.0f", us);
	return buf;
}

/* Compute analysis.json in memory for a run never analyzed: the same
 * analysis as `latwatt analyze`, with the trace pass, so that the report
 * has the spike, workload and power sections. */
static json_t *compute_analysis(const struct lw_rundir *rd)
{
	struct lw_analyze_opts o;
	struct lw_summary sum;
	json_t *doc;
	int partial;

	lw_analyze_opts_default(&o);
	if (lw_analyze_run(rd, &o, &sum, &doc, &partial) < 0)
		return NULL;
	lw_summary_free(&sum);
	return doc;
}

size_t lw_hwnoise_lines(const json_t *doc, char (*line)[LW_HOST_LINE], size_t max)
{
	const json_t *h = json_object_get(doc, "hwnoise"), *c;
	size_t i, n = 0;

	json_array_foreach(json_object_get(h, "per_cpu"), i, c) {
		double rt = lw_jnum(c, "runtime_us", 0), noise = lw_jnum(c, "noise_us", 0);

		if (n == max)
			break;
		snprintf(line[n++], LW_HOST_LINE, "hwnoise cpu %lld (interrupts off): %lld periods, "
			 "noise %.0fus of %.3f s (%.4f %% of the CPU), max single %lldus, %lld gaps "
			 "with no interference (hw), %lld NMIs", (long long)lw_jnum(c, "cpu", -1),
			 (long long)lw_jnum(c, "periods", 0), noise, rt / 1e6,
			 rt > 0 ? 100.0 * noise / rt : 0.0, (long long)lw_jnum(c, "max_single_us", 0),
			 (long long)lw_jnum(c, "hw_count", 0), (long long)lw_jnum(c, "nmi_count", 0));
	}
	return n;
}

size_t lw_host_lines(const json_t *doc, char (*line)[LW_HOST_LINE], size_t max)
{
	const json_t *h = json_object_get(doc, "host"), *k = json_object_get(doc, "kernel_attributable");
	const json_t *j = json_object_get(doc, "judge"), *p, *raw;
	const char *hv = lw_jstr(h, "hypervisor", "unknown"), *name;
	int vm = json_is_true(json_object_get(h, "virtual_machine"));
	size_t n = 0;

	if (!h || (!vm && !(lw_jnum(h, "host_ns", 0) > 0)) || !max)
		return 0;
	snprintf(line[n++], LW_HOST_LINE, "host (%s%s%s): %.1fus in %lld spikes charged to host: "
		 "causes%s; steal %s", vm ? "a virtual machine" : "steal reported",
		 !vm ? "" : strcmp(hv, "unknown") ? ": " : ", hypervisor not named",
		 !vm || !strcmp(hv, "unknown") ? "" : hv, lw_jnum(h, "host_ns", 0) / 1e3,
		 (long long)lw_jnum(h, "spikes", 0),
		 json_is_object(json_object_get(doc, "hwnoise")) && vm ?
		 " and hardware/firmware:host (the hwnoise loop's gaps)" : "",
		 json_is_object(json_object_get(h,
		 "steal_sampled")) ? "sampled per CPU (interpolated between samples)" : "not sampled");
	if (json_is_object(j) && n < max)
		snprintf(line[n++], LW_HOST_LINE, "latency budgets and threshold judged on the %s "
			 "figures: %.200s", strcmp(lw_jstr(j, "on", "raw"), "kernel") ? "raw" :
			 "kernel-attributable", lw_jstr(j, "why", "?"));
	json_object_foreach((json_t *)json_object_get(k, "probes"), name, p) {
		const json_t *a = json_object_get(p, "all");

		raw = json_object_get(json_object_get(json_object_get(doc, "probes"), name), "all");
		if (!a || n >= max)
			continue;
		snprintf(line[n++], LW_HOST_LINE, "kernel-attributable %.40s: p99 %.1fus (raw %.1f), "
			 "p99.9 %.1fus (raw %.1f), max %.1fus (raw %.1f)", name,
			 lw_jnum(a, "p99_ns", NAN) / 1e3, lw_jnum(raw, "p99_ns", NAN) / 1e3,
			 lw_jnum(a, "p99.9_ns", NAN) / 1e3, lw_jnum(raw, "p99.9_ns", NAN) / 1e3,
			 lw_jnum(a, "max_ns", NAN) / 1e3, lw_jnum(raw, "max_ns", NAN) / 1e3);
	}
	return n;
}

int lw_rrun_load(struct lw_rrun *r, const char *path)
{
	struct lw_rundir rd;
	char file[PATH_MAX];
	const char *schema, *base;
	size_t len;

	memset(r, 0, sizeof(*r));
	if (lw_rundir_open(&rd, path) < 0)
		return -1;
	lw_rundir_file(&rd, "analysis.json", file, sizeof(file));
	if (access(file, F_OK) == 0) {
		r->analysis = lw_json_load_flags(file, LW_IN_NOFOLLOW, LW_CAP_JSON);
		if (!r->analysis)
			goto fail;
		schema = json_string_value(json_object_get(r->analysis, "schema"));
		if (!json_is_object(r->analysis) || !schema || strcmp(schema, LW_ANALYSIS_SCHEMA)) {
			error("%s: not a latwatt analysis (schema is not \"%s\")", file,
			      LW_ANALYSIS_SCHEMA);
			goto fail;
		}
		if (json_integer_value(json_object_get(r->analysis, "version")) != LW_ANALYSIS_VERSION) {
			/* an analysis by another version of latwatt: analyzed again */
			note("%s: analysis version %lld, this latwatt writes %d: the run is "
			     "analyzed again for this report", file,
			     (long long)json_integer_value(json_object_get(r->analysis, "version")),
			     LW_ANALYSIS_VERSION);
			json_decref(r->analysis);
			r->analysis = compute_analysis(&rd);
			if (!r->analysis)
				goto fail;
			r->analysis_computed = 1;
		}
		if (json_object_get(r->analysis, "probes") &&
		    !json_is_object(json_object_get(r->analysis, "probes"))) {
			error("%s: \"probes\" is not an object", file);
			goto fail;
		}
	} else {
		r->analysis = compute_analysis(&rd);
		if (!r->analysis)
			goto fail;
		r->analysis_computed = 1;
	}
	r->path = rd.path;
	r->manifest = rd.manifest;
	r->start_ns = (uint64_t)json_integer_value(json_object_get(json_object_get(r->manifest,
								   "start"), "monotonic_ns"));
	len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	base = path + len;
	while (base > path && base[-1] != '/')
		base--;
	r->label = strndup(base, (size_t)(path + len - base));
	if (!r->label) {
		lw_rrun_free(r);
		return error("out of memory");
	}
	return 0;
fail:
	json_decref(r->analysis);
	r->analysis = NULL;
	lw_rundir_close(&rd);
	return -1;
}

int lw_rrun_judge(struct lw_rrun *r, const char *board, const char *const *budgets,
		  size_t nbudgets, enum lw_judge judge)
{
	const json_t *an = r->analysis;
	struct lw_checks own = { 0 };
	char what[PATH_MAX + 32];
	int again = 0;

	lw_checks_free(&r->checks);
	snprintf(what, sizeof(what), "%s/analysis.json", r->path);
	if (lw_checks_from_json(json_object_get(an, "checks"), what, &own) < 0)
		return -1;
	if (judge != LW_JUDGE_AUTO) {
		int was = lw_checks_judge_kernel(an);

		lw_checks_set_judge(r->analysis, r->manifest, judge);
		again = was != lw_checks_judge_kernel(an);
		if (again && lw_checks_rejudge(&own, an) < 0)
			goto fail;
	}
	if (!board && !nbudgets && !again) {
		r->checks = own;
		lw_checks_unjudged(&r->checks, an);
		return lw_verdict_from_json(json_object_get(an, "verdict"), what, &r->verdict);
	}
	for (size_t i = 0; i < own.n; i++)
		if ((!board || strncmp(own.c[i].origin, "board ", 6)) &&
		    lw_checks_add(&r->checks, &own.c[i]) < 0)
			goto fail;
	lw_checks_free(&own);
	if (board) {
		struct lw_board *b = lw_board_for_run(r->path, board);
		int ret = b ? lw_checks_board(b, an, NULL, &r->checks) : -1;

		lw_board_free(b);
		if (ret < 0)
			goto fail;
	}
	for (size_t i = 0; i < nbudgets; i++)
		if (lw_checks_rule_text(budgets[i], "report --budget", an, &r->checks) < 0)
			goto fail;
	lw_checks_unjudged(&r->checks, an);
	lw_verdict_build(an, &r->checks, json_object_get(an, "problems"), &r->verdict);
	return 0;
fail:
	lw_checks_free(&own);
	return -1;
}

void lw_rrun_free(struct lw_rrun *r)
{
	lw_checks_free(&r->checks);
	json_decref(r->manifest);
	json_decref(r->analysis);
	free(r->path);
	free(r->label);
	memset(r, 0, sizeof(*r));
}

const json_t *lw_rrun_probes(const struct lw_rrun *r)
{
	const json_t *p = json_object_get(r->analysis, "probes");

	return json_is_object(p) && json_object_size(p) ? p : NULL;
}

const char *lw_rrun_str(const struct lw_rrun *r, const char *what)
{
	static const struct {
		const char *what, *key, *sub;	/* analysis.json run.KEY or run.KEY.SUB */
	} keys[] = {
		{ "board", "board", NULL }, { "kernel_release", "kernel_release", NULL },
		{ "kernel_version", "kernel_version", NULL }, { "preempt", "preempt_model", NULL },
		{ "machine", "system", "machine" }, { "cmdline", "system", "cmdline" },
		{ "status", "status", NULL }, { "status_reason", "status_reason", NULL },
		{ "start", "start", "utc" }, { "clocksource", "system", "clocksource" },
		{ "cpu_model", "system", "cpu_model" }, { "cpus", "cpus", NULL },
		{ "scenario", "scenario", NULL }, { "command", "command", NULL },
	};
	const json_t *run = json_object_get(r->analysis, "run");
	const char *s = NULL;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const json_t *v;

		if (strcmp(keys[i].what, what))
			continue;
		v = json_object_get(run, keys[i].key);
		if (keys[i].sub)
			v = json_object_get(v, keys[i].sub);
		s = json_string_value(v);
		break;
	}
	return s && *s ? s : "not recorded";
}

static int word_value(const char *cmdline, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = cmdline; p && *p; ) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, key, kl)) {
			size_t n = strcspn(p + kl, " ");

			if (n >= len)
				n = len - 1;
			memcpy(out, p + kl, n);
			out[n] = 0;
			return 1;
		}
		p = strchr(p, ' ');
	}
	return 0;
}

const char *lw_rrun_nohz(const struct lw_rrun *r, char *buf, size_t len)
{
	const json_t *sys = json_object_get(json_object_get(r->analysis, "run"), "system");
	const char *mode = lw_jstr(sys, "nohz", NULL);
	const char *full = lw_jstr(sys, "nohz_full", NULL);
	const char *cmdline = lw_jstr(sys, "cmdline", NULL);
	char v[128];

	if (mode && *mode) {
		snprintf(buf, len, "%s", mode);
	} else if (full && *full) {
		snprintf(buf, len, "NO_HZ_FULL on CPUs %s", full);
	} else if (cmdline && word_value(cmdline, "nohz_full=", v, sizeof(v))) {
		snprintf(buf, len, "nohz_full=%s on the command line", v);
	} else if (cmdline && word_value(cmdline, "nohz=", v, sizeof(v)) && !strcmp(v, "off")) {
		snprintf(buf, len, "periodic tick (nohz=off)");
	} else {
		snprintf(buf, len, "no nohz_full CPUs (idle tickless mode not recorded)");
	}
	return buf;
}

const char *lw_rrun_pmqos(const struct lw_rrun *r, char *buf, size_t len)
{
	const json_t *q = json_object_get(json_object_get(r->analysis, "run"), "pm_qos");
	const json_t *held = json_object_get(q, "held_value_us");
	const json_t *sys = json_object_get(q, "system_value_us");
	const char *mode = json_string_value(json_object_get(q, "mode"));

	if (!q || !mode)
		snprintf(buf, len, "not recorded");
	else if (!strcmp(mode, "held") && json_is_integer(held))
		snprintf(buf, len, "held at %" JSON_INTEGER_FORMAT " us for the run",
			 json_integer_value(held));
	else if (json_is_integer(sys) && json_integer_value(sys) >= 2000000000)
		snprintf(buf, len, "left as the system had it (no constraint)");
	else if (json_is_integer(sys))
		snprintf(buf, len, "left as the system had it (%" JSON_INTEGER_FORMAT " us)",
			 json_integer_value(sys));
	else
		snprintf(buf, len, "%s", mode);
	return buf;
}

const char *lw_workload_kind(const json_t *w, const char *name)
{
	const char *k = json_string_value(json_object_get(w, "type"));

	if (!k)
		k = json_string_value(json_object_get(w, "kind"));
	return k ? k : name;
}

static int number_at(const json_t *w, const char *key, double *v)
{
	const json_t *x = key ? json_object_get(w, key) : NULL;

	if (!json_is_number(x))
		return 0;
	*v = json_number_value(x);
	return 1;
}

/* The first count @w holds: the record kinds' summary keys (@total: their
 * record counts, "periods" "frames"; else their misses, "xruns" "dropped"),
 * then (misses only) their metric names as a comparison writes them
 * ("dropped_frames"), then the generic @last ("records" "total", "misses"). */
static double first_count(const json_t *w, int total, const char *const *last, size_t nlast)
{
	const struct lw_rkind *k;
	double v;

	for (size_t i = 0; (k = lw_rkind_at(i)); i++)
		if (number_at(w, total ? k->total_key : k->miss_key, &v))
			return v;
	for (size_t i = 0; !total && (k = lw_rkind_at(i)); i++)
		if (number_at(w, k->metric, &v))
			return v;
	for (size_t i = 0; i < nlast; i++)
		if (number_at(w, last[i], &v))
			return v;
	return -1;
}

double lw_workload_misses(const json_t *w)
{
	static const char *const last[] = { "misses" };

	return first_count(w, 0, last, sizeof(last) / sizeof(last[0]));
}

double lw_workload_total(const json_t *w)
{
	static const char *const last[] = { "records", "total" };

	return first_count(w, 1, last, sizeof(last) / sizeof(last[0]));
}
