// SPDX-License-Identifier: GPL-2.0-only
/* Budgets given on the command line ("p99<100us") and their evaluation. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boards/board.h"
#include "boards/budgets.h"
#include "lib/error.h"
#include "reports/report.h"

static const struct {
	const char *name;
	enum lw_rb_metric metric;
	int per_probe;
} metrics[] = {
	{ "missed",          LW_RB_MISSED,          1 },
	{ "dropped",         LW_RB_DROPPED,         1 },
	{ "over",            LW_RB_OVER,            1 },
	{ "xruns",           LW_RB_XRUNS,           0 },
	{ "dropped_frames",  LW_RB_DROPPED_FRAMES,  0 },
	{ "deadline_misses", LW_RB_DEADLINE_MISSES, 0 },
	{ "power",           LW_RB_POWER,           0 },
};

/* A number with an optional unit; @units: {suffix, multiplier}, first is the
 * default. */
struct unit { const char *sfx; double mul; };

static int parse_value(const char *spec, const char *s, const struct unit *u, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return error("--budget '%s': '%s' is not a non-negative number", spec, s);
	if (!*end) {
		*out = v * u[0].mul;
		return 0;
	}
	for (; u->sfx; u++)
		if (!strcmp(end, u->sfx)) {
			*out = v * u->mul;
			return 0;
		}
	return error("--budget '%s': unknown unit '%s'", spec, end);
}

int lw_rbudget_parse(struct lw_rbudget *b, const char *spec)
{
	static const struct unit lat[] = { { "us", 1e3 }, { "ns", 1 }, { "us", 1e3 },
					   { "ms", 1e6 }, { "s", 1e9 }, { NULL, 0 } };
	static const struct unit cnt[] = { { "", 1 }, { NULL, 0 } };
	static const struct unit pwr[] = { { "mW", 1 }, { "mW", 1 }, { "W", 1e3 }, { NULL, 0 } };
	char lhs[64];
	const char *op, *dot;
	size_t n;

	memset(b, 0, sizeof(*b));
	snprintf(b->origin, sizeof(b->origin), "--budget %s", spec);
	op = strchr(spec, '<');
	if (!op)
		return error("--budget '%s': expected [PROBE.]STAT<VALUE, e.g. p99<100us", spec);
	n = (size_t)(op - spec);
	if (!n || n >= sizeof(lhs))
		return error("--budget '%s': no statistic before '<'", spec);
	memcpy(lhs, spec, n);
	lhs[n] = 0;
	b->strict = op[1] != '=';
	op += b->strict ? 1 : 2;

	/* "cyclic.p99.9": the probe is what precedes the first dot, when what
	 * precedes it is not itself a statistic ("p99.9"). */
	dot = strchr(lhs, '.');
	if (dot && !lw_stat_key(lhs)) {
		size_t pl = (size_t)(dot - lhs);

		if (!pl || pl >= sizeof(b->probe))
			return error("--budget '%s': bad probe name", spec);
		memcpy(b->probe, lhs, pl);
		b->probe[pl] = 0;
		memmove(lhs, dot + 1, strlen(dot + 1) + 1);
	}
	if (strlen(lhs) >= sizeof(b->stat))
		return error("--budget '%s': unknown statistic '%s'", spec, lhs);
	strcpy(b->stat, lhs);
	if (lw_stat_key(lhs)) {
		b->metric = LW_RB_LATENCY;
		return parse_value(spec, op, lat, &b->limit);
	}
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		if (strcmp(metrics[i].name, lhs))
			continue;
		b->metric = metrics[i].metric;
		if (b->probe[0] && !metrics[i].per_probe)
			return error("--budget '%s': %s is not a per-probe figure", spec, lhs);
		return parse_value(spec, op, b->metric == LW_RB_POWER ? pwr : cnt, &b->limit);
	}
	return error("--budget '%s': unknown statistic '%s' (min mean p50 p90 p99 p99.9 p99.99 "
		     "max missed dropped over xruns dropped_frames deadline_misses power)", spec, lhs);
}

int lw_checks_add(struct lw_checks *cs, const struct lw_check *c)
{
	struct lw_check u = *c;
	int dup = 1;

	/* test case names stay unique: a second budget.cyclic.p99 (board and
	 * --budget) becomes budget.cyclic.p99-2 */
	for (size_t i = 0; i < cs->n; i++)
		if (!strcmp(cs->c[i].suite, c->suite) && !strcmp(cs->c[i].name, u.name)) {
			snprintf(u.name, sizeof(u.name), "%.80s-%d", c->name, ++dup);
			i = (size_t)-1;		/* and that one too */
		}
	c = &u;
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? cs->cap * 2 : 16;
		struct lw_check *nc = realloc(cs->c, cap * sizeof(*nc));

		if (!nc)
			return error("out of memory");
		cs->c = nc;
		cs->cap = cap;
	}
	cs->c[cs->n++] = *c;
	return 0;
}

void lw_checks_free(struct lw_checks *cs)
{
	free(cs->c);
	memset(cs, 0, sizeof(*cs));
}

size_t lw_checks_count(const struct lw_checks *cs, enum lw_verdict v)
{
	size_t n = 0;

	for (size_t i = 0; i < cs->n; i++)
		n += cs->c[i].result == v;
	return n;
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

/* Sum of one count over every workload of @type (NULL: every workload);
 * -1 when the run has no such workload. */
static double workload_misses(const json_t *an, const char *type)
{
	const json_t *wl = json_object_get(an, "workloads"), *w;
	const char *name;
	double sum = -1;

	json_object_foreach((json_t *)wl, name, w) {
		const char *t = lw_workload_kind(w, name);
		double m = lw_workload_misses(w);

		if ((type && strcmp(t, type)) || m < 0)
			continue;
		sum = (sum < 0 ? 0 : sum) + m;
	}
	return sum;
}

/* Average power of the run in mW: power.total_mw, else the sum of the
 * rails' mean_mw; -1 when not recorded. */
static double run_power(const json_t *an)
{
	const json_t *p = json_object_get(an, "power"), *rail;
	double sum = -1;
	size_t i;

	if (json_is_number(json_object_get(json_object_get(p, "total"), "average_w")))
		return json_number_value(json_object_get(json_object_get(p, "total"), "average_w")) * 1e3;
	if (json_is_number(json_object_get(p, "total_mw")))
		return json_number_value(json_object_get(p, "total_mw"));
	json_array_foreach(json_object_get(p, "rails"), i, rail)
		if (json_is_number(json_object_get(rail, "mean_mw")))
			sum = (sum < 0 ? 0 : sum) + json_number_value(json_object_get(rail, "mean_mw"));
	return sum;
}

static int eval_probe(const struct lw_rbudget *b, const char *probe, const json_t *all,
		      struct lw_checks *out)
{
	struct lw_check c = { .suite = "budgets" };
	const char *key = NULL;
	const json_t *v;

	snprintf(c.name, sizeof(c.name), "budget.%s.%s", probe, b->stat);
	switch (b->metric) {
	case LW_RB_LATENCY:
		key = lw_stat_key(b->stat);
		strcpy(c.unit, "us");
		break;
	case LW_RB_MISSED:
		key = "missed_periods";
		break;
	case LW_RB_DROPPED:
		key = "dropped";
		break;
	case LW_RB_OVER:
		key = "over_threshold";
		break;
	default:
		return 0;
	}
	if (!c.unit[0])
		strcpy(c.unit, "count");
	v = json_object_get(all, key);
	if (!json_is_number(v) || !json_integer_value(json_object_get(all, "count"))) {
		c.result = LW_SKIP;
		snprintf(c.message, sizeof(c.message), "%s of probe %s not recorded in this run",
			 b->stat, probe);
		return lw_checks_add(out, &c);
	}
	if (b->metric == LW_RB_LATENCY)
		judge(&c, b, json_number_value(v) / 1e3, b->limit / 1e3);
	else
		judge(&c, b, json_number_value(v), b->limit);
	return lw_checks_add(out, &c);
}

int lw_rbudget_eval(const struct lw_rbudget *b, const struct lw_rrun *r, struct lw_checks *out)
{
	const json_t *probes = lw_rrun_probes(r), *p;
	struct lw_check c = { .suite = "budgets" };
	const char *name;
	double m = -1;

	switch (b->metric) {
	case LW_RB_LATENCY:
	case LW_RB_MISSED:
	case LW_RB_DROPPED:
	case LW_RB_OVER:
		if (b->probe[0]) {
			return eval_probe(b, b->probe, json_object_get(json_object_get(probes, b->probe),
								       "all"), out);
		}
		if (!probes) {
			snprintf(c.name, sizeof(c.name), "budget.%s", b->stat);
			c.result = LW_SKIP;
			strcpy(c.unit, b->metric == LW_RB_LATENCY ? "us" : "count");
			snprintf(c.message, sizeof(c.message), "no probe recorded in this run");
			return lw_checks_add(out, &c);
		}
		json_object_foreach((json_t *)probes, name, p)
			if (eval_probe(b, name, json_object_get(p, "all"), out) < 0)
				return -1;
		return 0;
	case LW_RB_XRUNS:
		m = workload_misses(r->analysis, "audio");
		break;
	case LW_RB_DROPPED_FRAMES:
		m = workload_misses(r->analysis, "video");
		break;
	case LW_RB_DEADLINE_MISSES:
		m = workload_misses(r->analysis, NULL);
		break;
	case LW_RB_POWER:
		m = run_power(r->analysis);
		break;
	}
	snprintf(c.name, sizeof(c.name), "budget.%s", b->stat);
	strcpy(c.unit, b->metric == LW_RB_POWER ? "mW" : "count");
	if (m < 0) {
		c.result = LW_SKIP;
		snprintf(c.message, sizeof(c.message), "%s not recorded in this run", b->stat);
	} else {
		judge(&c, b, m, b->limit);
	}
	return lw_checks_add(out, &c);
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
