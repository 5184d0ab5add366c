// SPDX-License-Identifier: GPL-2.0-only
#include <limits.h>
#include <unistd.h>

#include "boards/board.h"
#include "boards/budgets.h"
#include "boards/tradeoff.h"
#include "boards/verdict.h"
#include "lib/error.h"
#include "power/estimate.h"
#include "power/idle.h"
#include "power/power.h"

int lw_analysis_power_budgets(const char *rundir, const char *board, json_t *doc, FILE *out)
{
	char p1[PATH_MAX], p2[PATH_MAX];
	struct lw_board *b = lw_board_for_run(rundir, board);
	json_t *power = NULL, *idle, *results;
	int broken, q;

	if (!b)
		return -1;
	snprintf(p1, sizeof(p1), "%s/power", rundir);
	snprintf(p2, sizeof(p2), "%s/trace.dat", rundir);
	if (access(p1, F_OK) == 0 || access(p2, F_OK) == 0) {
		power = lw_power_analysis(rundir, b);
		if (!power) {
			lw_board_free(b);
			return -1;
		}
	}
	json_object_set_new(doc, "power", power ? power : json_null());
	q = lw_set_quiet(1);
	idle = lw_idle_summary(rundir);
	lw_set_quiet(q);
	json_object_set_new(doc, "idle", idle ? idle : json_null());
	lw_tradeoff_power(b, doc);
	broken = lw_budgets_check(b, doc, &results);
	json_object_set_new(doc, "budgets", json_pack("{s:s, s:i, s:o}", "board", b->name,
						      "broken", broken, "results", results));
	if (out) {
		if (power)
			lw_power_print(out, power);
		else
			fprintf(out, "power: not measured (no RUN/power) and no trace to estimate it from\n");
		if (idle)
			lw_idle_print(out, idle);
		lw_tradeoff_print(out, doc);
		lw_budgets_print(out, b->name, results);
	}
	lw_board_free(b);
	return broken;
}
