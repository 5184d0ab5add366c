// SPDX-License-Identifier: GPL-2.0-only
/* The metric registry (lib/metrics.h): one line per figure a rule can name. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/json.h"
#include "lib/metrics.h"
#include "lib/stats.h"

/* A probe's latency statistic and a probe's count, from lib/stats.h's lists. */
#define LAT(id, n, k, q, cmp, h) \
	{ .name = n, .probe = 1, .compared = cmp, .lower_better = 1, .unit = LW_MU_NS, \
	  .from = LW_MF_PROBE, .key = k, .label = "latency " n, .help = h },
#define COUNT(id, n, k, cmp, lbl, h) \
	{ .name = n, .probe = 1, .compared = cmp, .lower_better = 1, .unit = LW_MU_COUNT, \
	  .from = LW_MF_PROBE, .key = k, .label = lbl, .help = h },

const struct lw_metric lw_metrics[] = {
	LW_STATS(LAT)
	{ .name = "blockmax", .probe = 1, .compared = 1, .lower_better = 1, .unit = LW_MU_NS,
	  .from = LW_MF_NONE, .label = "block maxima",
	  .help = "median of the maxima of blocks of samples (comparisons)" },
	{ .name = "worst", .probe = 1, .compared = 1, .lower_better = 1, .unit = LW_MU_NS,
	  .from = LW_MF_NONE, .label = "worst case",
	  .help = "extrapolated worst case, the return level (comparisons)" },
	{ .name = "over:", .arg = "TIME", .probe = 1, .compared = 1, .lower_better = 1,
	  .unit = LW_MU_COUNT, .from = LW_MF_NONE, .label = "samples over",
	  .help = "samples over TIME, a rate of the run's samples (comparisons)" },
	LW_COUNT_STATS(COUNT)
	{ .name = "distribution", .probe = 1, .compared = 1, .lower_better = 1,
	  .unit = LW_MU_VERDICT, .from = LW_MF_NONE, .label = "distribution",
	  .help = "the whole latency distribution (comparisons, :worse only)" },
	{ .name = "xruns", .alias = { "audio_xruns" }, .compared = 1, .lower_better = 1,
	  .unit = LW_MU_COUNT, .from = LW_MF_MISSES, .key = "audio", .label = "audio xruns",
	  .help = "audio periods that missed their deadline" },
	{ .name = "dropped_frames", .compared = 1, .lower_better = 1, .unit = LW_MU_COUNT,
	  .from = LW_MF_MISSES, .key = "video", .label = "dropped frames",
	  .help = "video frames that missed their deadline" },
	{ .name = "deadline_misses", .lower_better = 1, .unit = LW_MU_COUNT, .from = LW_MF_MISSES,
	  .label = "deadline misses",
	  .help = "every workload's deadline misses (xruns + dropped frames)" },
	{ .name = "power", .alias = { "average_power" }, .compared = 1, .lower_better = 1,
	  .unit = LW_MU_W, .from = LW_MF_POWER, .label = "average power",
	  .help = "average power of the run" },
	{ .name = "energy_per_period", .alias = { "energy_per_audio_period" }, .lower_better = 1,
	  .unit = LW_MU_UJ, .from = LW_MF_ENERGY_PER_PERIOD, .label = "energy per audio period",
	  .help = "energy per audio period (board budgets)" },
	{ .name = "idle:", .arg = "STATE", .compared = 1, .lower_better = 0, .unit = LW_MU_SHARE,
	  .from = LW_MF_NONE, .label = "idle residency",
	  .help = "share of time in idle state STATE (comparisons)" },
	{ .name = "cause:", .arg = "NAME", .compared = 1, .lower_better = 0, .unit = LW_MU_SHARE,
	  .from = LW_MF_NONE, .label = "cause share",
	  .help = "share of latency spikes blamed on cause NAME (comparisons)" },
	{ .name = "any", .compared = 1, .lower_better = 1, .unit = LW_MU_VERDICT,
	  .from = LW_MF_NONE, .label = "any", .help = "any metric of a comparison (:worse only)" },
};

const size_t lw_nmetrics = sizeof(lw_metrics) / sizeof(lw_metrics[0]);

static int matches(const char *pattern, int prefix, const char *name)
{
	size_t n = strlen(pattern);

	return prefix ? !strncmp(name, pattern, n) && name[n] : !strcmp(name, pattern);
}

const struct lw_metric *lw_metric_find(const char *name)
{
	for (size_t i = 0; i < lw_nmetrics; i++) {
		const struct lw_metric *m = &lw_metrics[i];

		if (matches(m->name, m->arg != NULL, name))
			return m;
		for (size_t a = 0; a < sizeof(m->alias) / sizeof(m->alias[0]) && m->alias[a]; a++)
			if (matches(m->alias[a], m->arg != NULL, name))
				return m;
	}
	return NULL;
}

const char *lw_metric_unit_name(enum lw_metric_unit u)
{
	static const char *const names[] = {
		[LW_MU_NS] = "ns", [LW_MU_COUNT] = "count", [LW_MU_W] = "W",
		[LW_MU_UJ] = "uJ", [LW_MU_SHARE] = "share", [LW_MU_VERDICT] = "",
	};

	return (size_t)u < sizeof(names) / sizeof(names[0]) ? names[u] : "";
}

const char *lw_metric_names(char *buf, size_t len, int summary, int compared)
{
	size_t n = 0, k = 0, total = 0;

	for (size_t i = 0; i < lw_nmetrics; i++)
		total += (!summary || lw_metrics[i].from != LW_MF_NONE) &&
			 (!compared || lw_metrics[i].compared);
	buf[0] = 0;
	for (size_t i = 0; i < lw_nmetrics && n < len; i++) {
		const struct lw_metric *m = &lw_metrics[i];

		if ((summary && m->from == LW_MF_NONE) || (compared && !m->compared))
			continue;
		k++;
		n += (size_t)snprintf(buf + n, len - n, "%s%s%s", k == 1 ? "" :
				      k == total ? " or " : ", ", m->name, m->arg ? m->arg : "");
	}
	return buf;
}

/* The deadline misses a workload instance reports: its first count.  The
 * keys are the record kinds' miss keys and metric names (workloads/rkind.h,
 * above this layer) and the generic "misses"; tests/unit/test_misses.c
 * checks that every kind's key is here. */
const char *lw_metric_budget_help(char *buf, size_t len)
{
	/* the units a run's summary holds, in this order, and how rules write them */
	static const struct {
		enum lw_metric_unit unit;
		const char *words;
	} units[] = {
		{ LW_MU_NS, "us, or with ns ms s" }, { LW_MU_COUNT, "counts" },
		{ LW_MU_W, "mW, or W" }, { LW_MU_UJ, "uJ" },
	};
	size_t n = 0;

	buf[0] = 0;
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		const char *sep = u ? ", " : "STAT one of ";

		for (size_t i = 0; i < lw_nmetrics && n < len; i++) {
			const struct lw_metric *m = &lw_metrics[i];

			if (m->from == LW_MF_NONE || m->unit != units[u].unit)
				continue;
			n += (size_t)snprintf(buf + n, len - n, "%s%s", sep, m->name);
			sep = " ";
		}
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, " (%s)", units[u].words);
	}
	return buf;
}

static double misses_of(const json_t *w)
{
	static const char *const keys[] = { "xruns", "dropped", "dropped_frames", "misses" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (json_is_number(json_object_get(w, keys[i])))
			return json_number_value(json_object_get(w, keys[i]));
	return NAN;
}

static const char *kind_of(const json_t *w, const char *name)
{
	const char *k = json_string_value(json_object_get(w, "type"));

	if (!k)
		k = json_string_value(json_object_get(w, "kind"));
	return k ? k : name;
}

/* Sum of the misses (@what 0) or periods (@what 1) over the workloads of
 * kind @kind (NULL: every one); NAN when there is none. */
static double workload_sum(const json_t *an, const char *kind, int what)
{
	const json_t *w;
	const char *name;
	double sum = NAN;

	json_object_foreach(json_object_get(an, "workloads"), name, w) {
		double x = what ? lw_jnum(w, "periods", NAN) : misses_of(w);

		if ((kind && strcmp(kind_of(w, name), kind)) || isnan(x))
			continue;
		sum = (isnan(sum) ? 0 : sum) + x;
	}
	return sum;
}

static double power_w(const json_t *an)
{
	const json_t *p = json_object_get(an, "power"), *rail;
	double sum = NAN, v;
	size_t i;

	if (!isnan(v = lw_jnum(json_object_get(p, "total"), "average_w", NAN)))
		return v;
	if (!isnan(v = lw_jnum(p, "total_mw", NAN)))
		return v / 1e3;
	json_array_foreach(json_object_get(p, "rails"), i, rail)
		if (!isnan(v = lw_jnum(rail, "mean_mw", NAN)))
			sum = (isnan(sum) ? 0 : sum) + v / 1e3;
	return sum;
}

/* The audio period of the first audio instance, ns (NAN: none). */
static double audio_period_ns(const json_t *an)
{
	const json_t *w;
	const char *name;

	json_object_foreach(json_object_get(an, "workloads"), name, w)
		if (!strcmp(kind_of(w, name), "audio") && !isnan(lw_jnum(w, "interval_ns", NAN)))
			return lw_jnum(w, "interval_ns", NAN);
	return NAN;
}

double lw_metric_summary(const struct lw_metric *m, const json_t *an, const char *probe)
{
	const json_t *all;
	double v, x;

	switch (m->from) {
	case LW_MF_PROBE:
		all = json_object_get(json_object_get(json_object_get(an, "probes"), probe), "all");
		if (json_object_get(all, "count") && !(lw_jnum(all, "count", NAN) > 0))
			return NAN;	/* no sample: no figure */
		return lw_jnum(all, m->key, NAN);
	case LW_MF_MISSES:
		if (!m->key && !isnan(v = lw_jnum(an, "deadline_misses", NAN)))
			return v;
		return workload_sum(an, m->key, 0);
	case LW_MF_POWER:
		return power_w(an);
	case LW_MF_ENERGY_PER_PERIOD:
		x = workload_sum(an, "audio", 1);
		v = lw_jnum(json_object_get(json_object_get(an, "power"), "total"), "energy_j", NAN);
		if (!isnan(v) && x > 0)
			return v / x * 1e6;
		v = lw_jnum(json_object_get(json_object_get(an, "power"), "total"), "average_w", NAN);
		x = audio_period_ns(an);
		return isnan(v) || isnan(x) ? NAN : v * x / 1e3;
	case LW_MF_NONE:
		break;
	}
	return NAN;
}
