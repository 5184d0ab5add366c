// SPDX-License-Identifier: GPL-2.0-only
/*
 * The key figures of a run as measurements (suite "metrics", always
 * passing): what a board farm records next to the budgets, so that a trend
 * shows before a budget breaks.
 */
#include <string.h>

#include "lib/error.h"
#include "reports/report.h"

static int add(struct lw_checks *out, const char *name, double v, const char *unit,
	       const char *what)
{
	struct lw_check c = { .suite = "metrics", .result = LW_PASS, .measured = v };

	snprintf(c.name, sizeof(c.name), "%s", name);
	snprintf(c.unit, sizeof(c.unit), "%s", unit);
	snprintf(c.message, sizeof(c.message), "%s: %.10g %s", what, v, unit);
	return lw_checks_add(out, &c);
}

/* Latency statistics reported per probe (all CPUs together). */
static const enum lw_stat lat_stats[] = {
	LW_STAT_MEAN, LW_STAT_P50, LW_STAT_P99, LW_STAT_P999, LW_STAT_MAX
};

static const struct {
	const char *key, *name;
} counts[] = {
	{ "count", "samples" },
	{ "missed_periods", "missed" },
	{ "dropped", "dropped" },
	{ "over_threshold", "over" },
};

static int probe_metrics(const char *probe, const json_t *all, struct lw_checks *out)
{
	char name[96];

	if (!json_is_object(all) || json_integer_value(json_object_get(all, "count")) <= 0)
		return 0;
	for (size_t i = 0; i < sizeof(lat_stats) / sizeof(lat_stats[0]); i++) {
		const json_t *v = json_object_get(all, lw_stat_keys[lat_stats[i]]);

		if (!json_is_number(v))
			continue;
		snprintf(name, sizeof(name), "%.40s.%s", probe, lw_stat_names[lat_stats[i]]);
		if (add(out, name, json_number_value(v) / 1e3, "us", "latency") < 0)
			return -1;
	}
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		const json_t *v = json_object_get(all, counts[i].key);

		if (!json_is_number(v))
			continue;
		snprintf(name, sizeof(name), "%.40s.%s", probe, counts[i].name);
		if (add(out, name, json_number_value(v), "count", counts[i].key) < 0)
			return -1;
	}
	return 0;
}

int lw_report_lava_metrics(FILE *f, const struct lw_report_in *in)
{
	struct lw_checks m = { 0 };
	int ok = lw_run_metrics(in->run, &m) == 0 && lw_report_lava(f, &m, 1) == 0;

	lw_checks_free(&m);
	return ok ? 0 : -1;
}

int lw_run_metrics(const struct lw_rrun *r, struct lw_checks *out)
{
	const json_t *probes = lw_rrun_probes(r), *p, *w;
	const char *name;
	double mw = lw_rrun_power_mw(r);
	char buf[96];

	json_object_foreach((json_t *)probes, name, p)
		if (probe_metrics(name, json_object_get(p, "all"), out) < 0)
			return -1;
	json_object_foreach(json_object_get(r->analysis, "workloads"), name, w) {
		double misses = lw_workload_misses(w);

		if (misses < 0)
			continue;
		snprintf(buf, sizeof(buf), "workload.%.40s.misses", name);
		if (add(out, buf, misses, "count", lw_workload_kind(w, name)) < 0)
			return -1;
	}
	if (mw >= 0 && add(out, "power.average", mw, "mW", "average power") < 0)
		return -1;
	return 0;
}
