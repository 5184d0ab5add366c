// SPDX-License-Identifier: GPL-2.0-only
/* Budgets given on the command line ("p99<100us") and their evaluation. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/failon.h"
#include "boards/board.h"
#include "lib/error.h"
#include "lib/metrics.h"
#include "reports/report.h"

int lw_rbudget_parse(struct lw_rbudget *b, const char *spec)
{
	struct lw_rule r;

	memset(b, 0, sizeof(*b));
	snprintf(b->origin, sizeof(b->origin), "--budget %s", spec);
	if (lw_rule_parse_lang(&lw_lang_budget, spec, &r) < 0)
		return -1;
	if (strlen(r.probe) >= sizeof(b->probe) || strlen(r.name) >= sizeof(b->stat))
		return error("--budget '%s': name too long", spec);
	b->m = r.m;
	strcpy(b->probe, r.probe);
	strcpy(b->stat, r.name);
	b->strict = r.op == LW_OP_LT;
	b->limit = r.bound;
	return 0;
}

int lw_rbudget_eval(const struct lw_rbudget *b, const struct lw_rrun *r, struct lw_checks *out)
{
	struct lw_rule rule = { .m = b->m, .op = b->strict ? LW_OP_LT : LW_OP_LE,
				.bound = b->limit };

	snprintf(rule.probe, sizeof(rule.probe), "%s", b->probe);
	snprintf(rule.name, sizeof(rule.name), "%s", b->stat);
	return lw_checks_rule(&rule, b->origin, r->analysis, out);
}

int lw_board_checks(const struct lw_rrun *r, const char *board, const char *suffix,
		    struct lw_checks *out)
{
	struct lw_board *b = lw_board_for_run(r->path, board);
	int ret = b ? lw_checks_board(b, r->analysis, suffix, out) : -1;

	lw_board_free(b);
	return ret;
}

double lw_rrun_power_mw(const struct lw_rrun *r)
{
	double w = lw_metric_summary(lw_metric_find("power"), r->analysis, NULL);

	return isnan(w) ? -1 : w * 1e3;
}
