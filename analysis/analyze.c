// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>

#include "analysis/analyze.h"
#include "analysis/budgets.h"
#include "analysis/tradeoff.h"
#include "boards/board.h"
#include "lib/error.h"
#include "power/estimate.h"
#include "power/idle.h"
#include "power/power.h"
#include "workloads/workload.h"

void lw_analyze_opts_default(struct lw_analyze_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->trace = 1;
	o->tp.top = 10;
}

/*
 * "power", "idle", the trade-off and "budgets" of @doc for board @b; without
 * a board (the run's is not on this machine), the measured power and the
 * idle residency, and no budgets.
 */
static int power_budgets(const char *rundir, const struct lw_board *b, json_t *doc)
{
	struct lw_run_power rp;
	json_t *results;
	int broken;

	if (lw_power_analysis(rundir, b, 0, &rp) < 0)
		return -1;
	json_object_set_new(doc, "power", rp.power ? rp.power : json_null());
	json_object_set_new(doc, "idle", rp.idle ? rp.idle : json_null());
	if (!b) {
		json_object_set_new(doc, "budgets", json_null());
		return 0;
	}
	lw_tradeoff_power(b, doc);
	broken = lw_budgets_check(b, doc, &results);
	json_object_set_new(doc, "budgets", json_pack("{s:s, s:i, s:o}", "board", b->name,
						      "broken", broken, "results", results));
	return broken;
}

int lw_analyze_run(const struct lw_rundir *rd, const struct lw_analyze_opts *o,
		   struct lw_summary *sum, json_t **doc, int *partial)
{
	uint64_t threshold = o->threshold_ns;
	struct lw_tracepass_opts tp = o->tp;
	struct lw_board *b;
	json_t *wl;
	int broken;

	*doc = NULL;
	*partial = 0;
	if (!o->have_threshold)
		threshold = (uint64_t)json_integer_value(json_object_get(json_object_get(
			json_object_get(rd->manifest, "probes"), "cyclic"), "threshold_ns"));
	if (o->board) {
		b = lw_board_for_run(rd->path, o->board);
		if (!b)
			return -1;
	} else {
		/* a run from elsewhere may name a board this machine lacks:
		 * then no estimate, trade-off or budgets, the rest as usual */
		int q = lw_set_quiet(1);

		b = lw_board_for_run(rd->path, NULL);
		lw_set_quiet(q);
		if (!b)
			warning("%s: %s: the run's board is not on this machine: no power estimate, "
				"PM QoS trade-off or budgets", rd->path, lw_last_error());
	}
	if (lw_summary_load(sum, rd, threshold) < 0) {
		lw_board_free(b);
		return -1;
	}
	*doc = lw_summary_json(sum, rd);
	if (!*doc) {
		lw_summary_free(sum);
		lw_board_free(b);
		return error("out of memory");
	}
	wl = lw_workload_summaries(rd->path);	/* audio/video records, stress throughput */
	if (!wl)
		*partial = 1;
	if (o->trace) {
		/* the board's latency budget is a default spike threshold; the
		 * deadline misses get the cause of the spike behind each */
		tp.board = b;
		tp.workloads = json_object_size(wl) ? wl : NULL;
		if (lw_tracepass(rd, *doc, &tp) < 0) {
			/* the trace's sections come from the whole trace or not
			 * at all; the document says why they are missing */
			*partial = 1;
			json_object_set_new(*doc, "trace_error", json_string(lw_last_error()));
		}
	}
	if (json_object_size(wl))
		json_object_set(*doc, "workloads", wl);
	json_decref(wl);
	broken = power_budgets(rd->path, b, *doc);
	lw_board_free(b);
	if (broken < 0) {
		json_decref(*doc);
		*doc = NULL;
		lw_summary_free(sum);
	}
	return broken;
}

void lw_analysis_print_power(FILE *out, const json_t *doc)
{
	const json_t *power = json_object_get(doc, "power"), *idle = json_object_get(doc, "idle");
	const json_t *bud = json_object_get(doc, "budgets");

	if (json_is_object(power))
		lw_power_print(out, power);
	else
		fprintf(out, "power: not measured (no RUN/power) and no trace to estimate it from\n");
	if (json_is_object(idle))
		lw_idle_print(out, idle);
	if (!json_is_object(bud)) {
		fprintf(out, "budgets: the run's board is not on this machine\n");
		return;
	}
	lw_tradeoff_print(out, doc);
	lw_budgets_print(out, json_string_value(json_object_get(bud, "board")) ?: "?",
			 json_object_get(bud, "results"));
}
