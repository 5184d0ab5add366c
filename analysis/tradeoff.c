// SPDX-License-Identifier: GPL-2.0-only
/*
 * The power side of the PM QoS trade-off, and the recommendation.
 *
 * For each point of analysis.json's "tradeoff" (from the trace pass: the
 * latency expected under PM QoS Q), the residency measured per CPU and idle
 * state (analysis "idle") is moved from every state slower to exit than Q to
 * the deepest state still allowed, and priced with the board's model: the
 * state's power where the board gives it, else the model's idle (or poll)
 * power; active time at the active power; plus the board's static power.
 * The recommended value is the least constraining Q whose expected latency
 * meets the board's latency budget for that probe and statistic; its cost is
 * its power less the power with no constraint.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "boards/board.h"
#include "analysis/tradeoff.h"
#include "lib/metrics.h"
#include "lib/stats.h"

#define PM_QOS_NONE 2000000000.0

/* A state with no exit latency is polling (the board lookup's rule). */
static double state_power(const struct lw_board *b, const char *name, double exit_us)
{
	return lw_board_state_power(b, name, exit_us <= 0);
}

static double active_power(const struct lw_board *b)
{
	if (b->model.active_power_mw >= 0)
		return b->model.active_power_mw;
	for (int i = b->nopp - 1; i >= 0; i--)	/* the highest operating point */
		if (b->opp[i].power_mw >= 0)
			return b->opp[i].power_mw;
	return NAN;
}

/* Board power (mW) with the residency of @cpus under limit @q (us). */
static double power_at(const struct lw_board *b, const json_t *cpus, double q)
{
	double total = b->static_power_mw >= 0 ? b->static_power_mw : 0, act = active_power(b);
	const json_t *c, *st;
	size_t i, j;

	if (isnan(act))
		return NAN;
	json_array_foreach((json_t *)cpus, i, c) {
		const json_t *states = json_object_get(c, "states");
		double p = json_number_value(json_object_get(c, "active")) * act;
		const char *deep = NULL;
		double deep_exit = -1, moved = 0;

		json_array_foreach((json_t *)states, j, st) {	/* the deepest allowed state */
			double e = json_number_value(json_object_get(st, "exit_latency_us"));

			if (e <= q && e > deep_exit) {
				deep_exit = e;
				deep = json_string_value(json_object_get(st, "name"));
			}
		}
		json_array_foreach((json_t *)states, j, st) {
			const json_t *ej = json_object_get(st, "exit_latency_us");
			double e = json_number_value(ej);
			double r = json_number_value(json_object_get(st, "residency"));
			/* a traced state with no declared exit latency (the default
			 * idle of a kernel without a cpuidle driver) halts: idle power */
			double sp = state_power(b, json_string_value(json_object_get(st, "name")),
						json_is_number(ej) ? e : 1);

			if (e > q)
				moved += r;
			else if (!isnan(sp))
				p += r * sp;
			else
				return NAN;
		}
		if (moved > 0) {
			/* no state allowed at all: the CPU polls, at active power */
			double sp = deep ? state_power(b, deep, deep_exit) : act;

			if (isnan(sp))
				return NAN;
			p += moved * sp;
		}
		total += p;
	}
	return total;
}

void lw_tradeoff_power(const struct lw_board *b, json_t *doc)
{
	json_t *t = json_object_get(doc, "tradeoff"), *pts = json_object_get(t, "points"), *e;
	const json_t *cpus = json_object_get(json_object_get(json_object_get(doc, "idle"), "sysfs"),
					     "cpus");

	/* no cpuidle counters (no cpuidle driver): the residency the trace saw */
	if (!json_is_number(json_object_get(json_array_get(cpus, 0), "active")))
		cpus = json_object_get(json_object_get(json_object_get(doc, "idle"), "trace"), "cpus");
	if (!json_is_number(json_object_get(json_array_get(cpus, 0), "active")))
		cpus = NULL;
	const char *probe = json_string_value(json_object_get(t, "probe"));
	const struct lw_budget *bu = NULL;
	char key[32], reason[256];
	double base = NAN, rec = -1, rec_power = NAN;
	size_t i;

	if (!json_is_array(pts))
		return;
	for (int k = 0; k < b->nbudget && !bu; k++)
		if (b->budget[k].m->probe && b->budget[k].stat &&
		    (!b->budget[k].probe || (probe && !strcmp(b->budget[k].probe, probe))) &&
		    strcmp(b->budget[k].stat, "mean") && strcmp(b->budget[k].stat, "min"))
			bu = &b->budget[k];
	if (bu) {
		snprintf(key, sizeof(key), "%s_ns", bu->stat);
		json_object_set_new(t, "stat", json_string(bu->stat));
	} else {
		snprintf(key, sizeof(key), "%s", lw_stat_keys[LW_STAT_P999]);
	}
	json_array_foreach(pts, i, e) {
		double q = json_number_value(json_object_get(e, "pm_qos_us"));
		double p = json_is_array(cpus) ? power_at(b, cpus, q) : NAN;

		if (json_object_get(e, key))
			json_object_set(e, "latency_ns", json_object_get(e, key));
		json_object_set_new(e, "power_mw", isnan(p) ? json_null() : json_real(p));
		if (q >= PM_QOS_NONE)
			base = p;
	}
	{
		char what[384];

		/* not the run's power (analysis "power", which budgets read):
		 * what this board's model gives for this residency under each
		 * limit, busy time at the highest operating point */
		snprintf(what, sizeof(what), "board %s's energy model over this run's idle residency "
			 "(%s) of %zu CPUs, busy time at its highest operating point, plus static "
			 "power: for comparing the limits, not the run's power", b->name,
			 cpus == json_object_get(json_object_get(json_object_get(doc, "idle"), "trace"),
						 "cpus") ? "traced" : "cpuidle counters",
			 json_array_size(cpus));
		json_object_set_new(t, "power", json_string(json_is_array(cpus) ? what :
			"no idle residency recorded: power not estimated"));
	}
	if (!bu) {
		json_object_set_new(t, "recommended_pm_qos_us", json_null());
		json_object_set_new(t, "reason", json_string("the board has no latency budget to meet"));
		return;
	}
	/* the least constraining limit that meets the budget */
	json_array_foreach(pts, i, e) {
		double q = json_number_value(json_object_get(e, "pm_qos_us"));
		double lat = json_number_value(json_object_get(e, "latency_ns")) / 1e3;

		if (lat <= bu->limit && q > rec) {
			rec = q;
			rec_power = json_is_number(json_object_get(e, "power_mw")) ?
				    json_number_value(json_object_get(e, "power_mw")) : NAN;
		}
	}
	if (rec < 0) {
		snprintf(reason, sizeof(reason), "no PM QoS value brings %s %s under %.1f us: idle "
			 "states are not what limits it", probe ? probe : "?", bu->stat, bu->limit);
		json_object_set_new(t, "recommended_pm_qos_us", json_null());
	} else {
		if (rec >= PM_QOS_NONE)
			snprintf(reason, sizeof(reason), "%s %s meets %.1f us with no constraint",
				 probe ? probe : "?", bu->stat, bu->limit);
		else if (!isnan(rec_power) && !isnan(base))
			snprintf(reason, sizeof(reason), "the least constraining value whose expected %s "
				 "%s meets %.1f us; it costs %+.1f mW against no constraint",
				 probe ? probe : "?", bu->stat, bu->limit, rec_power - base);
		else
			snprintf(reason, sizeof(reason), "the least constraining value whose expected %s "
				 "%s meets %.1f us (power not estimated)", probe ? probe : "?", bu->stat,
				 bu->limit);
		json_object_set_new(t, "recommended_pm_qos_us", json_integer((json_int_t)rec));
		snprintf(key, sizeof(key), "%.0f us", rec);
		json_object_set_new(t, "recommended", json_string(rec >= PM_QOS_NONE ? "no constraint" :
								  key));
		json_object_set_new(t, "recommended_cost_mw", isnan(rec_power) || isnan(base) ?
				    json_null() : json_real(rec_power - base));
	}
	json_object_set_new(t, "reason", json_string(reason));
}

void lw_tradeoff_print(FILE *out, const json_t *doc)
{
	const json_t *t = json_object_get(doc, "tradeoff"), *e;
	size_t i;

	if (!t)
		return;
	fprintf(out, "\nPM QoS trade-off (%s %s expected under each limit)\n",
		json_string_value(json_object_get(t, "probe")) ?: "?",
		json_string_value(json_object_get(t, "stat")) ?: "?");
	fprintf(out, "  power: %s\n", json_string_value(json_object_get(t, "power")) ?: "?");
	fprintf(out, "  %12s %12s %10s  %s\n", "pm qos (us)", "latency (us)", "model (mW)",
		"idle states allowed");
	json_array_foreach(json_object_get(t, "points"), i, e) {
		double q = json_number_value(json_object_get(e, "pm_qos_us"));
		const json_t *a = json_object_get(e, "allowed_states"), *s;
		size_t k;
		char qs[24];

		if (q >= PM_QOS_NONE)
			snprintf(qs, sizeof(qs), "none");
		else
			snprintf(qs, sizeof(qs), "%.0f", q);
		fprintf(out, "  %12s %12.1f ", qs,
			json_number_value(json_object_get(e, "latency_ns")) / 1e3);
		if (json_is_number(json_object_get(e, "power_mw")))
			fprintf(out, "%10.1f ", json_number_value(json_object_get(e, "power_mw")));
		else
			fprintf(out, "%10s ", "-");
		json_array_foreach((json_t *)a, k, s)
			fprintf(out, "%s%s", k ? ", " : " ", json_string_value(s));
		fputc('\n', out);
	}
	if (json_number_value(json_object_get(t, "recommended_pm_qos_us")) >= PM_QOS_NONE)
		fprintf(out, "  recommended: no constraint: %s\n",
			json_string_value(json_object_get(t, "reason")) ?: "");
	else if (json_is_number(json_object_get(t, "recommended_pm_qos_us")))
		fprintf(out, "  recommended: %lld us: %s\n",
			(long long)json_integer_value(json_object_get(t, "recommended_pm_qos_us")),
			json_string_value(json_object_get(t, "reason")) ?: "");
	else
		fprintf(out, "  no recommendation: %s\n",
			json_string_value(json_object_get(t, "reason")) ?: "");
}
