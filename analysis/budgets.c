// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/budgets.h"
#include "boards/board.h"
#include "lib/metrics.h"

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
	char name[128], metric[160];
	const char *pname;
	int any = 0;

	json_object_foreach((json_t *)probes, pname, p) {
		double ns;

		if (bu->probe && strcmp(bu->probe, pname))
			continue;
		any = 1;
		ns = lw_metric_summary(bu->m, analysis, pname);
		snprintf(name, sizeof(name), "latency %s %s", pname, bu->m->name);
		snprintf(metric, sizeof(metric), "probes.%s.all.%s", pname, bu->m->key);
		result(out, name, metric, isnan(ns) ? NAN : ns / 1e3, bu->limit, "us", broken);
	}
	if (!any) {
		snprintf(name, sizeof(name), "latency %s %s", bu->probe ? bu->probe : "(any probe)",
			 bu->m->name);
		snprintf(metric, sizeof(metric), "probes.%s.all.%s", bu->probe ? bu->probe : "*",
			 bu->m->key);
		result(out, name, metric, NAN, bu->limit, "us", broken);
	}
}

int lw_budgets_check(const struct lw_board *b, const json_t *analysis, json_t **results)
{
	json_t *out = json_array();
	int broken = 0;

	for (int i = 0; i < b->nbudget; i++) {
		const struct lw_budget *bu = &b->budget[i];
		const struct lw_metric *m = bu->m;
		double v;

		if (m->probe) {
			latency(bu, analysis, out, &broken);
			continue;
		}
		v = lw_metric_summary(m, analysis, NULL);
		if (m->unit == LW_MU_W)		/* board power budgets are in mW */
			result(out, m->label, m->name, isnan(v) ? NAN : v * 1e3, bu->limit, "mW",
			       &broken);
		else
			result(out, m->label, m->name, v, bu->limit, lw_metric_unit_name(m->unit),
			       &broken);
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
