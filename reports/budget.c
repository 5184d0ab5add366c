// SPDX-License-Identifier: GPL-2.0-only
/* Budgets given on the command line ("p99<100us") and their evaluation. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/budgets.h"
#include "analysis/failon.h"
#include "boards/board.h"
#include "lib/error.h"
#include "lib/metrics.h"
#include "reports/report.h"

/* The coarse kind of a budget, for the callers of struct lw_rbudget. */
static enum lw_rb_metric rb_metric(const struct lw_metric *m)
{
	static const struct { const char *name; enum lw_rb_metric metric; } kinds[] = {
		{ "missed", LW_RB_MISSED }, { "dropped", LW_RB_DROPPED }, { "over", LW_RB_OVER },
		{ "xruns", LW_RB_XRUNS }, { "dropped_frames", LW_RB_DROPPED_FRAMES },
		{ "deadline_misses", LW_RB_DEADLINE_MISSES }, { "power", LW_RB_POWER },
	};

	if (m->from == LW_MF_PROBE && m->unit == LW_MU_NS)
		return LW_RB_LATENCY;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].name, m->name))
			return kinds[i].metric;
	return LW_RB_OTHER;
}

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
	b->metric = rb_metric(r.m);
	strcpy(b->probe, r.probe);
	strcpy(b->stat, r.name);
	b->strict = r.op == LW_OP_LT;
	b->limit = r.bound;
	return 0;
}

static const char *op_str(const struct lw_rbudget *b)
{
	return b->strict ? "<" : "<=";
}

static void judge(struct lw_check *c, const struct lw_rbudget *b, double measured, double limit)
{
	int ok = b->strict ? measured < limit : measured <= limit;

	c->measured = measured;
	c->limit = limit;
	c->result = ok ? LW_PASS : LW_FAIL;
	snprintf(c->message, sizeof(c->message), "measured %.10g %s, limit %s %.10g %s (%s)", measured,
		 c->unit, op_str(b), limit, c->unit, b->origin);
}

/* The unit a check shows @m in, and the factor from the registry's unit. */
static const char *check_unit(const struct lw_metric *m, double *mul)
{
	*mul = 1;
	switch (m->unit) {
	case LW_MU_NS:
		*mul = 1e-3;
		return "us";
	case LW_MU_W:
		*mul = 1e3;
		return "mW";
	case LW_MU_UJ:
		return "uJ";
	default:
		return "count";
	}
}

/* One check of @b on @probe (NULL: a figure of the run). */
static int eval_one(const struct lw_rbudget *b, const char *probe, const json_t *an,
		    struct lw_checks *out)
{
	struct lw_check c = { .suite = "budgets" };
	double mul, v = lw_metric_summary(b->m, an, probe);

	snprintf(c.unit, sizeof(c.unit), "%s", check_unit(b->m, &mul));
	if (probe)
		snprintf(c.name, sizeof(c.name), "budget.%s.%s", probe, b->stat);
	else
		snprintf(c.name, sizeof(c.name), "budget.%s", b->stat);
	if (isnan(v)) {
		c.result = LW_SKIP;
		if (probe)
			snprintf(c.message, sizeof(c.message), "%s of probe %s not recorded in this run",
				 b->stat, probe);
		else
			snprintf(c.message, sizeof(c.message), "%s not recorded in this run", b->stat);
		return lw_checks_add(out, &c);
	}
	/* a power budget's limit is in mW already (lw_lang_budget) */
	judge(&c, b, v * mul, b->m->unit == LW_MU_W ? b->limit : b->limit * mul);
	return lw_checks_add(out, &c);
}

int lw_rbudget_eval(const struct lw_rbudget *b, const struct lw_rrun *r, struct lw_checks *out)
{
	const json_t *probes = lw_rrun_probes(r), *p;
	struct lw_check c = { .suite = "budgets" };
	const char *name;
	double mul;

	if (!b->m->probe)
		return eval_one(b, NULL, r->analysis, out);
	if (b->probe[0])
		return eval_one(b, b->probe, r->analysis, out);
	if (!probes) {
		snprintf(c.name, sizeof(c.name), "budget.%s", b->stat);
		c.result = LW_SKIP;
		snprintf(c.unit, sizeof(c.unit), "%s", check_unit(b->m, &mul));
		snprintf(c.message, sizeof(c.message), "no probe recorded in this run");
		return lw_checks_add(out, &c);
	}
	json_object_foreach((json_t *)probes, name, p)
		if (eval_one(b, name, r->analysis, out) < 0)
			return -1;
	return 0;
}

/* "latency cyclic p99" -> "budget.cyclic.p99", "audio xruns" -> "budget.audio_xruns" */
static void board_check_name(const char *name, const char *suffix, char *out, size_t len)
{
	int lat = !strncmp(name, "latency ", 8);
	size_t n;

	snprintf(out, len, "budget.%s", lat ? name + 8 : name);
	for (char *p = out + 7; *p; p++)
		if (*p == ' ')
			*p = lat ? '.' : '_';
	n = strlen(out);
	if (suffix)
		snprintf(out + n, len - n, ".%s", suffix);
}

int lw_board_checks(const struct lw_rrun *r, const char *board, const char *suffix,
		    struct lw_checks *out)
{
	struct lw_board *b = lw_board_for_run(r->path, board);
	json_t *results = NULL, *e;
	size_t i;
	int ret = 0;

	if (!b)
		return -1;
	lw_budgets_check(b, r->analysis, &results);
	json_array_foreach(results, i, e) {
		struct lw_check c = { .suite = "budgets" };
		const json_t *pass = json_object_get(e, "pass");

		board_check_name(json_string_value(json_object_get(e, "name")) ?: "budget", suffix,
				 c.name, sizeof(c.name));
		snprintf(c.unit, sizeof(c.unit), "%s",
			 json_string_value(json_object_get(e, "unit")) ?: "");
		c.limit = json_number_value(json_object_get(e, "limit"));
		c.measured = json_number_value(json_object_get(e, "measured"));
		if (!json_is_boolean(pass)) {
			c.result = LW_SKIP;
			snprintf(c.message, sizeof(c.message), "%s not recorded in this run (board %s)",
				 json_string_value(json_object_get(e, "metric")) ?: "it", b->name);
		} else {
			c.result = json_is_true(pass) ? LW_PASS : LW_FAIL;
			snprintf(c.message, sizeof(c.message), "measured %.10g %s, limit <= %.10g %s "
				 "(board %s%s%s)", c.measured, c.unit, c.limit, c.unit, b->name,
				 b->path ? ", " : "", b->path ? b->path : "");
		}
		if (lw_checks_add(out, &c) < 0) {
			ret = -1;
			break;
		}
	}
	json_decref(results);
	lw_board_free(b);
	return ret;
}

double lw_rrun_power_mw(const struct lw_rrun *r)
{
	double w = lw_metric_summary(lw_metric_find("power"), r->analysis, NULL);

	return isnan(w) ? -1 : w * 1e3;
}
