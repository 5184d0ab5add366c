// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "boards/board.h"
#include "boards/budgets.h"

/* analysis["a"]["b"]... as a number; NAN when absent. */
static double num_at(const json_t *root, const char *const *keys)
{
	const json_t *v = root;

	for (; *keys && v; keys++)
		v = json_object_get(v, *keys);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Sum of @key over every workload instance of @kind in analysis.json's
 * "workloads" object (instances are named audio, audio-1, ...; each says its
 * kind); NAN when the run has none of that kind. */
static double workload_sum(const json_t *analysis, const char *kind, const char *key)
{
	const json_t *wl = json_object_get(analysis, "workloads"), *v;
	const char *name;
	double sum = NAN;

	json_object_foreach((json_t *)wl, name, v) {
		const char *k = json_string_value(json_object_get(v, "kind"));
		const json_t *x = json_object_get(v, key);

		if (!k || strcmp(k, kind) || !json_is_number(x))
			continue;
		sum = (isnan(sum) ? 0 : sum) + json_number_value(x);
	}
	return sum;
}

/* The audio period of the first audio instance, ns (NAN: none). */
static double audio_period_ns(const json_t *analysis)
{
	const json_t *wl = json_object_get(analysis, "workloads"), *v;
	const char *name;

	json_object_foreach((json_t *)wl, name, v) {
		const char *k = json_string_value(json_object_get(v, "kind"));

		if (k && !strcmp(k, "audio") && json_is_number(json_object_get(v, "interval_ns")))
			return json_number_value(json_object_get(v, "interval_ns"));
	}
	return NAN;
}

static void result(json_t *out, const char *name, const char *metric, double measured,
		   double limit, const char *unit, int *broken)
{
	json_t *r = json_pack("{s:s, s:s, s:o, s:f, s:s}", "name", name, "metric", metric,
			      "measured", isnan(measured) ? json_null() : json_real(measured),
			      "limit", limit, "unit", unit);

	if (isnan(measured)) {
		json_object_set_new(r, "pass", json_null());
		json_object_set_new(r, "note", json_string("not measured in this run"));
	} else {
		int pass = measured <= limit;

		json_object_set_new(r, "pass", json_boolean(pass));
		if (!pass)
			(*broken)++;
	}
	json_array_append_new(out, r);
}

static void latency(const struct lw_budget *bu, const json_t *analysis, json_t *out, int *broken)
{
	const json_t *probes = json_object_get(analysis, "probes"), *p;
	char stat[32], name[128], metric[160];
	const char *pname;
	int any = 0;

	snprintf(stat, sizeof(stat), "%s_ns", bu->stat);
	json_object_foreach((json_t *)probes, pname, p) {
		const char *keys[] = { "all", stat, NULL };
		double ns;

		if (bu->probe && strcmp(bu->probe, pname))
			continue;
		any = 1;
		ns = num_at(p, keys);
		snprintf(name, sizeof(name), "latency %s %s", pname, bu->stat);
		snprintf(metric, sizeof(metric), "probes.%s.all.%s", pname, stat);
		result(out, name, metric, isnan(ns) ? NAN : ns / 1e3, bu->limit, "us", broken);
	}
	if (!any) {
		snprintf(name, sizeof(name), "latency %s %s", bu->probe ? bu->probe : "(any probe)",
			 bu->stat);
		snprintf(metric, sizeof(metric), "probes.%s.all.%s", bu->probe ? bu->probe : "*", stat);
		result(out, name, metric, NAN, bu->limit, "us", broken);
	}
}

int lw_budgets_check(const struct lw_board *b, const json_t *analysis, json_t **results)
{
	static const char *const k_misses[] = { "deadline_misses", NULL };
	static const char *const k_avg[] = { "power", "total", "average_w", NULL };
	static const char *const k_energy[] = { "power", "total", "energy_j", NULL };
	json_t *out = json_array();
	int broken = 0;

	for (int i = 0; i < b->nbudget; i++) {
		const struct lw_budget *bu = &b->budget[i];
		double v, x, d;

		switch (bu->kind) {
		case LW_BUDGET_LATENCY:
			latency(bu, analysis, out, &broken);
			break;
		case LW_BUDGET_XRUNS:
			result(out, "audio xruns", "workloads[kind=audio].xruns",
			       workload_sum(analysis, "audio", "xruns"), bu->limit, "count", &broken);
			break;
		case LW_BUDGET_DROPPED_FRAMES:
			result(out, "dropped frames", "workloads[kind=video].dropped",
			       workload_sum(analysis, "video", "dropped"), bu->limit, "count", &broken);
			break;
		case LW_BUDGET_DEADLINE_MISSES:
			v = num_at(analysis, k_misses);
			if (isnan(v)) {
				x = workload_sum(analysis, "audio", "xruns");
				d = workload_sum(analysis, "video", "dropped");
				v = isnan(x) && isnan(d) ? NAN : (isnan(x) ? 0 : x) + (isnan(d) ? 0 : d);
			}
			result(out, "deadline misses", "deadline_misses (xruns + dropped frames)", v,
			       bu->limit, "count", &broken);
			break;
		case LW_BUDGET_AVG_POWER:
			v = num_at(analysis, k_avg);
			result(out, "average power", "power.total.average_w", isnan(v) ? NAN : v * 1e3,
			       bu->limit, "mW", &broken);
			break;
		case LW_BUDGET_ENERGY_PER_PERIOD:
			x = workload_sum(analysis, "audio", "periods");
			v = num_at(analysis, k_energy);
			if (!isnan(v) && x > 0) {
				v = v / x * 1e6;
			} else {
				v = num_at(analysis, k_avg);
				d = audio_period_ns(analysis);
				v = isnan(v) || isnan(d) ? NAN : v * d / 1e3;
			}
			result(out, "energy per audio period", "power.total.energy_j / workloads[kind=audio].periods",
			       v, bu->limit, "uJ", &broken);
			break;
		}
	}
	*results = out;
	return broken;
}

void lw_budgets_print(FILE *out, const char *board, const json_t *results)
{
	const json_t *r;
	size_t i;
	int broken = 0, unmeasured = 0;

	fprintf(out, "budgets (board %s):\n", board);
	json_array_foreach(results, i, r) {
		const json_t *pass = json_object_get(r, "pass"), *m = json_object_get(r, "measured");

		fprintf(out, "  %-6s %-32s ", json_is_null(pass) ? "n/a" : json_is_true(pass) ? "ok" : "BROKEN",
			json_string_value(json_object_get(r, "name")));
		if (json_is_number(m))
			fprintf(out, "%12.3f", json_number_value(m));
		else
			fprintf(out, "%12s", "-");
		fprintf(out, " %-5s (limit %g)\n", json_string_value(json_object_get(r, "unit")),
			json_number_value(json_object_get(r, "limit")));
		broken += json_is_false(pass);
		unmeasured += json_is_null(pass);
	}
	if (!json_array_size(results))
		fprintf(out, "  (the board has no budgets)\n");
	fprintf(out, "verdict: %s", broken ? "FAIL" : "PASS");
	if (broken)
		fprintf(out, ", %d budget%s broken", broken, broken == 1 ? "" : "s");
	if (unmeasured)
		fprintf(out, " (%d not measured)", unmeasured);
	fprintf(out, "\n");
}
