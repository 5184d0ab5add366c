// SPDX-License-Identifier: GPL-2.0-only
/* The metric registry (lib/metrics.h): one line per figure a rule can name. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/metrics.h"

#define LAT(n, key, cmp, help) \
	{ n, NULL, { NULL }, 1, cmp, 1, LW_MU_NS, LW_MF_PROBE, key, "latency " n, help }

const struct lw_metric lw_metrics[] = {
	LAT("p50",    "p50_ns",    1, "median latency"),
	LAT("p90",    "p90_ns",    1, "90th percentile of latency"),
	LAT("p99",    "p99_ns",    1, "99th percentile of latency"),
	LAT("p99.9",  "p99.9_ns",  1, "99.9th percentile of latency"),
	LAT("p99.99", "p99.99_ns", 1, "99.99th percentile of latency"),
	LAT("mean",   "mean_ns",   1, "mean latency"),
	LAT("max",    "max_ns",    1, "largest latency"),
	LAT("min",    "min_ns",    0, "smallest latency"),
	{ "blockmax", NULL, { NULL }, 1, 1, 1, LW_MU_NS, LW_MF_NONE, NULL, "block maxima",
	  "median of the maxima of blocks of samples (comparisons)" },
	{ "worst", NULL, { NULL }, 1, 1, 1, LW_MU_NS, LW_MF_NONE, NULL, "worst case",
	  "extrapolated worst case, the return level (comparisons)" },
	{ "over:", "TIME", { NULL }, 1, 1, 1, LW_MU_COUNT, LW_MF_NONE, NULL, "samples over",
	  "samples over TIME, a rate of the run's samples (comparisons)" },
	{ "over", NULL, { NULL }, 1, 0, 1, LW_MU_COUNT, LW_MF_PROBE, "over_threshold",
	  "samples over", "samples over the run's own threshold (-t)" },
	{ "missed", NULL, { NULL }, 1, 1, 1, LW_MU_COUNT, LW_MF_PROBE, "missed_periods",
	  "missed periods", "periods the probe missed entirely" },
	{ "dropped", NULL, { NULL }, 1, 1, 1, LW_MU_COUNT, LW_MF_PROBE, "dropped",
	  "dropped samples", "samples lost between the probe and the disk" },
	{ "distribution", NULL, { NULL }, 1, 1, 1, LW_MU_VERDICT, LW_MF_NONE, NULL,
	  "distribution", "the whole latency distribution (comparisons, :worse only)" },
	{ "xruns", NULL, { "audio_xruns", NULL }, 0, 1, 1, LW_MU_COUNT, LW_MF_MISSES, "audio",
	  "audio xruns", "audio periods that missed their deadline" },
	{ "dropped_frames", NULL, { NULL }, 0, 1, 1, LW_MU_COUNT, LW_MF_MISSES, "video",
	  "dropped frames", "video frames that missed their deadline" },
	{ "deadline_misses", NULL, { NULL }, 0, 0, 1, LW_MU_COUNT, LW_MF_MISSES, NULL,
	  "deadline misses", "every workload's deadline misses (xruns + dropped frames)" },
	{ "power", NULL, { "average_power", NULL }, 0, 1, 1, LW_MU_W, LW_MF_POWER, NULL,
	  "average power", "average power of the run" },
	{ "energy_per_period", NULL, { "energy_per_audio_period", NULL }, 0, 0, 1, LW_MU_UJ,
	  LW_MF_ENERGY_PER_PERIOD, NULL, "energy per audio period",
	  "energy per audio period (board budgets)" },
	{ "idle:", "STATE", { NULL }, 0, 1, 0, LW_MU_SHARE, LW_MF_NONE, NULL, "idle residency",
	  "share of time in idle state STATE (comparisons)" },
	{ "cause:", "NAME", { NULL }, 0, 1, 0, LW_MU_SHARE, LW_MF_NONE, NULL, "cause share",
	  "share of latency spikes blamed on cause NAME (comparisons)" },
	{ "any", NULL, { NULL }, 0, 1, 1, LW_MU_VERDICT, LW_MF_NONE, NULL, "any",
	  "any metric of a comparison (:worse only)" },
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

static double num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The deadline misses a workload instance reports: its first count.  The
 * keys are the record kinds' miss keys and metric names (workloads/rkind.h,
 * above this layer) and the generic "misses"; tests/unit/test_misses.c
 * checks that every kind's key is here. */
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
		double x = what ? num(w, "periods") : misses_of(w);

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

	if (!isnan(v = num(json_object_get(p, "total"), "average_w")))
		return v;
	if (!isnan(v = num(p, "total_mw")))
		return v / 1e3;
	json_array_foreach(json_object_get(p, "rails"), i, rail)
		if (!isnan(v = num(rail, "mean_mw")))
			sum = (isnan(sum) ? 0 : sum) + v / 1e3;
	return sum;
}

/* The audio period of the first audio instance, ns (NAN: none). */
static double audio_period_ns(const json_t *an)
{
	const json_t *w;
	const char *name;

	json_object_foreach(json_object_get(an, "workloads"), name, w)
		if (!strcmp(kind_of(w, name), "audio") && !isnan(num(w, "interval_ns")))
			return num(w, "interval_ns");
	return NAN;
}

double lw_metric_summary(const struct lw_metric *m, const json_t *an, const char *probe)
{
	const json_t *all;
	double v, x;

	switch (m->from) {
	case LW_MF_PROBE:
		all = json_object_get(json_object_get(json_object_get(an, "probes"), probe), "all");
		if (json_object_get(all, "count") && !(num(all, "count") > 0))
			return NAN;	/* no sample: no figure */
		return num(all, m->key);
	case LW_MF_MISSES:
		if (!m->key && !isnan(v = num(an, "deadline_misses")))
			return v;
		return workload_sum(an, m->key, 0);
	case LW_MF_POWER:
		return power_w(an);
	case LW_MF_ENERGY_PER_PERIOD:
		x = workload_sum(an, "audio", 1);
		v = num(json_object_get(json_object_get(an, "power"), "total"), "energy_j");
		if (!isnan(v) && x > 0)
			return v / x * 1e6;
		v = num(json_object_get(json_object_get(an, "power"), "total"), "average_w");
		x = audio_period_ns(an);
		return isnan(v) || isnan(x) ? NAN : v * x / 1e3;
	case LW_MF_NONE:
		break;
	}
	return NAN;
}
