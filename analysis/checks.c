// SPDX-License-Identifier: GPL-2.0-only
/* Checks: budgets, thresholds and rules judged against a run's figures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/checks.h"
#include "analysis/failon.h"
#include "boards/board.h"
#include "lib/error.h"
#include "lib/metrics.h"
#include "lib/samples.h"
#include "lib/sysinfo.h"

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
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? cs->cap * 2 : 16;
		struct lw_check *nc = realloc(cs->c, cap * sizeof(*nc));

		if (!nc)
			return error("out of memory");
		cs->c = nc;
		cs->cap = cap;
	}
	cs->c[cs->n++] = u;
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

/* "p99<=100us", "xruns<1", "power<=1500mW": the rule in the check's unit. */
static void rule_text(const struct lw_rule *r, const char *probe, double limit, const char *unit,
		      char *buf, size_t len)
{
	snprintf(buf, len, "%.20s%s%.20s%s%.10g%s", probe ? probe : "", probe ? "." : "", r->name,
		 r->op == LW_OP_LT ? "<" : "<=", limit, strcmp(unit, "count") ? unit : "");
}

/* The bound of a percentile @m of @probe that lies in a histogram's
 * overflow (analysis.json "p99_above_ns"), in the registry's unit; NAN when
 * there is none. */
static double above_bound(const struct lw_metric *m, const json_t *an, const char *probe)
{
	const json_t *all = json_object_get(json_object_get(json_object_get(an, "probes"),
							    probe ? probe : ""), "all");
	size_t l = m->key ? strlen(m->key) : 0;
	char key[48];

	if (!probe || m->from != LW_MF_PROBE || l < 4 || strcmp(m->key + l - 3, "_ns"))
		return NAN;
	snprintf(key, sizeof(key), "%.*s_above_ns", (int)(l - 3), m->key);
	return json_is_integer(json_object_get(all, key)) ?
	       (double)json_integer_value(json_object_get(all, key)) : NAN;
}

/* What a power or energy figure is (power.total.basis: measured, or which
 * board's model estimated it); NULL for other metrics. */
static const char *basis(const struct lw_metric *m, const json_t *an)
{
	if (m->from != LW_MF_POWER && m->from != LW_MF_ENERGY_PER_PERIOD)
		return NULL;
	return json_string_value(json_object_get(json_object_get(json_object_get(an, "power"),
								 "total"), "basis"));
}

int lw_judge_parse(const char *opt, const char *arg, enum lw_judge *j)
{
	if (!strcmp(arg, "kernel"))
		*j = LW_JUDGE_KERNEL;
	else if (!strcmp(arg, "raw"))
		*j = LW_JUDGE_RAW;
	else
		return error("%s: '%s' is not kernel or raw", opt, arg);
	return 0;
}

void lw_checks_set_judge(json_t *an, const json_t *m, enum lw_judge j)
{
	const json_t *sys = json_object_get(m, "system");
	const char *hv = json_string_value(json_object_get(json_object_get(sys, "hypervisor"),
							   "name"));
	int twin = json_is_object(json_object_get(an, "kernel_attributable"));
	int vm = lw_sysinfo_is_vm(sys), kernel;
	char why[256];

	kernel = twin && (j == LW_JUDGE_KERNEL || (j == LW_JUDGE_AUTO && vm));
	if (j == LW_JUDGE_AUTO && vm && kernel)
		snprintf(why, sizeof(why), "a virtual machine (%.40s), where the host's time in "
			 "the spikes is not the kernel's; --judge raw for the raw figures",
			 hv && strcmp(hv, "unknown") ? hv : "hypervisor not named");
	else if (j == LW_JUDGE_AUTO && vm)
		snprintf(why, sizeof(why), "a virtual machine, but no kernel-attributable figures "
			 "(no trace analyzed)");
	else if (j == LW_JUDGE_AUTO)
		snprintf(why, sizeof(why), "not a virtual machine");
	else if (j == LW_JUDGE_KERNEL && !kernel)
		snprintf(why, sizeof(why), "--judge kernel, but no kernel-attributable figures "
			 "(no trace analyzed)");
	else
		snprintf(why, sizeof(why), "--judge %s", kernel ? "kernel" : "raw");
	json_object_set_new(an, "judge", json_pack("{s:s, s:s}", "on", kernel ? "kernel" : "raw",
						   "why", why));
}

int lw_checks_judge_kernel(const json_t *an)
{
	const char *on = json_string_value(json_object_get(json_object_get(an, "judge"), "on"));

	return on && !strcmp(on, "kernel");
}

/* A latency figure of a probe, which has a kernel-attributable twin: a
 * statistic of its latencies, or its samples over the threshold. */
static int has_twin(const struct lw_metric *m)
{
	return m->from == LW_MF_PROBE && m->key &&
	       (m->unit == LW_MU_NS || !strcmp(m->key, "over_threshold"));
}

/* The kernel-attributable twin of figure @m of @probe when @an is judged
 * on those (in the registry's unit); NAN when it is not, or has none. */
static double twin(const struct lw_metric *m, const json_t *an, const char *probe)
{
	const json_t *k = json_object_get(an, "kernel_attributable");

	if (!probe || !has_twin(m) || !lw_checks_judge_kernel(an) || !json_is_object(k))
		return NAN;
	return lw_metric_summary(m, k, probe);	/* its "probes" as the document's */
}

/* The words a check judged on the kernel-attributable figure adds. */
#define KERNEL_WORDS "judged on the kernel-attributable figure: host time taken off; raw"

/* One check of @r on @probe (NULL: a figure of the run). */
static int rule_one(const struct lw_rule *r, const char *origin, const char *probe,
		    const json_t *an, struct lw_checks *out)
{
	struct lw_check c = { .suite = "budgets" };
	double mul, v = lw_metric_summary(r->m, an, probe), limit, k;
	int ok;

	snprintf(c.unit, sizeof(c.unit), "%s", check_unit(r->m, &mul));
	/* a power bound is in mW already (lw_lang_budget) */
	limit = r->m->unit == LW_MU_W ? r->bound : r->bound * mul;
	c.limit = limit;
	snprintf(c.origin, sizeof(c.origin), "%s", origin);
	snprintf(c.metric, sizeof(c.metric), "%s", r->m->name);
	rule_text(r, probe, limit, c.unit, c.rule, sizeof(c.rule));
	if (probe)
		snprintf(c.name, sizeof(c.name), "budget.%.40s.%.40s", probe, r->name);
	else
		snprintf(c.name, sizeof(c.name), "budget.%.80s", r->name);
	if (isnan(v)) {
		double b = above_bound(r->m, an, probe) * mul;

		c.result = LW_SKIP;
		c.measured = NAN;
		snprintf(c.message, sizeof(c.message), "%s%s%s not recorded in this run (%s)",
			 r->name, probe ? " of probe " : "", probe ? probe : "", origin);
		/* a percentile in a histogram's overflow: not known, but at
		 * least its bound; above the limit, broken all the same */
		if (!isnan(b)) {
			c.result = (r->op == LW_OP_LT ? b >= limit : b > limit) ? LW_FAIL : LW_SKIP;
			snprintf(c.message, sizeof(c.message), "%s of probe %s not known: in the "
				 "histogram's overflow, %.10g %s or more; limit %s %.10g %s (%s)",
				 r->name, probe, b, c.unit, r->op == LW_OP_LT ? "<" : "<=", limit,
				 c.unit, origin);
		}
		return lw_checks_add(out, &c);
	}
	k = twin(r->m, an, probe);
	if (!isnan(k)) {
		c.kernel = 1;
		c.raw = v * mul;
		v = k;
	}
	c.measured = v * mul;
	ok = r->op == LW_OP_LT ? c.measured < limit : c.measured <= limit;
	c.result = ok ? LW_PASS : LW_FAIL;
	snprintf(c.message, sizeof(c.message), "measured %.10g %s, limit %s %.10g %s (%s)%s%s",
		 c.measured, c.unit, r->op == LW_OP_LT ? "<" : "<=", limit, c.unit, origin,
		 basis(r->m, an) ? "; the run's power, " : "", basis(r->m, an) ?: "");
	if (c.kernel) {
		size_t l = strlen(c.message);

		snprintf(c.message + l, sizeof(c.message) - l, "; " KERNEL_WORDS " %.10g %s",
			 c.raw, c.unit);
	}
	return lw_checks_add(out, &c);
}

int lw_checks_rule(const struct lw_rule *r, const char *origin, const json_t *an,
		   struct lw_checks *out)
{
	const json_t *probes = json_object_get(an, "probes"), *p;
	const char *name;
	size_t before = out->n;

	if (!r->m->probe)
		return rule_one(r, origin, NULL, an, out);
	if (r->probe[0])
		return rule_one(r, origin, r->probe, an, out);
	json_object_foreach((json_t *)probes, name, p)
		if (rule_one(r, origin, name, an, out) < 0)
			return -1;
	if (out->n == before) {
		struct lw_check c = { .suite = "budgets", .result = LW_SKIP, .measured = NAN };
		double mul;

		snprintf(c.name, sizeof(c.name), "budget.%.80s", r->name);
		snprintf(c.unit, sizeof(c.unit), "%s", check_unit(r->m, &mul));
		snprintf(c.origin, sizeof(c.origin), "%s", origin);
		snprintf(c.metric, sizeof(c.metric), "%s", r->m->name);
		c.limit = r->m->unit == LW_MU_W ? r->bound : r->bound * mul;
		rule_text(r, NULL, c.limit, c.unit, c.rule, sizeof(c.rule));
		snprintf(c.message, sizeof(c.message), "no probe recorded in this run (%s)", origin);
		return lw_checks_add(out, &c);
	}
	return 0;
}

int lw_checks_rule_text(const char *text, const char *origin, const json_t *an,
			struct lw_checks *out)
{
	struct lw_rule r;

	if (lw_rule_parse_lang(&lw_lang_budget, text, &r) < 0)
		return -1;
	return lw_checks_rule(&r, origin, an, out);
}

int lw_checks_board(const struct lw_board *b, const json_t *an, const char *suffix,
		    struct lw_checks *out)
{
	char origin[96];

	for (int i = 0; i < b->nbudget; i++) {
		const struct lw_budget *bu = &b->budget[i];
		struct lw_rule r = { .m = bu->m, .op = LW_OP_LE };
		size_t first = out->n;

		snprintf(r.name, sizeof(r.name), "%s", bu->m->name);
		if (bu->probe)
			snprintf(r.probe, sizeof(r.probe), "%s", bu->probe);
		/* board budgets are in us, counts, mW and uJ; rules in the
		 * registry's units but for power (mW) */
		r.bound = bu->m->unit == LW_MU_NS ? bu->limit * 1e3 : bu->limit;
		if (b->path && bu->line > 0)
			snprintf(origin, sizeof(origin), "board %.32s, %.40s:%d", b->name, b->path,
				 bu->line);
		else
			snprintf(origin, sizeof(origin), "board %.80s", b->name);
		if (lw_checks_rule(&r, origin, an, out) < 0)
			return -1;
		for (size_t k = first; suffix && k < out->n; k++) {
			size_t l = strlen(out->c[k].name);

			snprintf(out->c[k].name + l, sizeof(out->c[k].name) - l, ".%s", suffix);
		}
	}
	return 0;
}

/* The threshold @ns on probe @name (@p its "probes" entry). */
static int threshold_one(uint64_t ns, const char *origin, const char *name, const json_t *p,
			 const json_t *an, struct lw_checks *out)
{
	struct lw_check c = { .suite = "budgets", .limit = 0 };
	const json_t *over = json_object_get(json_object_get(p, "all"), "over_threshold");
	const json_t *kover = json_object_get(json_object_get(json_object_get(json_object_get(
		json_object_get(an, "kernel_attributable"), "probes"), name), "all"),
		"over_threshold");

	snprintf(c.name, sizeof(c.name), "threshold.%.80s", name);
	snprintf(c.unit, sizeof(c.unit), "count");
	snprintf(c.origin, sizeof(c.origin), "%s", origin);
	snprintf(c.metric, sizeof(c.metric), "threshold");
	snprintf(c.rule, sizeof(c.rule), "%.32s: none over %.10gus", name, (double)ns / 1e3);
	if (!json_is_integer(over)) {
		c.result = LW_SKIP;
		c.measured = NAN;
		snprintf(c.message, sizeof(c.message), "samples over %.10g us not counted in "
			 "this run (%s)", (double)ns / 1e3, origin);
		return lw_checks_add(out, &c);
	}
	c.measured = (double)json_integer_value(over);
	if (lw_checks_judge_kernel(an) && json_is_integer(kover)) {
		c.kernel = 1;
		c.raw = c.measured;
		c.measured = (double)json_integer_value(kover);
	}
	c.result = c.measured > 0 ? LW_FAIL : LW_PASS;
	snprintf(c.message, sizeof(c.message), "%.0f samples of probe %s above %.10g us (%s)",
		 c.measured, name, (double)ns / 1e3, origin);
	if (c.kernel) {
		size_t l = strlen(c.message);

		snprintf(c.message + l, sizeof(c.message) - l, "; " KERNEL_WORDS " %.0f", c.raw);
	}
	return lw_checks_add(out, &c);
}

int lw_checks_threshold(uint64_t ns, const char *origin, const json_t *an,
			struct lw_checks *out)
{
	const json_t *probes = json_object_get(an, "probes"), *p;
	const char *name;

	json_object_foreach((json_t *)probes, name, p) {
		int id = lw_probe_by_name(name);

		if (id < 0 || !lw_probe_wakeup((unsigned)id))
			continue;
		if (threshold_one(ns, origin, name, p, an, out) < 0)
			return -1;
	}
	return 0;
}

int lw_checks_rejudge(struct lw_checks *cs, const json_t *an)
{
	for (size_t i = 0; i < cs->n; i++) {
		struct lw_check *c = &cs->c[i];
		struct lw_checks one = { 0 };
		const struct lw_metric *m = lw_metric_find(c->metric);
		const char *none = strstr(c->rule, ": none over ");
		char probe[40];
		int ret = 0, q;

		if (strcmp(c->suite, "budgets"))
			continue;
		if (!strcmp(c->metric, "threshold") && none) {
			double us = strtod(none + strlen(": none over "), NULL);

			snprintf(probe, sizeof(probe), "%.*s", (int)(none - c->rule), c->rule);
			ret = threshold_one((uint64_t)llround(us * 1e3), c->origin, probe,
					    json_object_get(json_object_get(an, "probes"), probe), an,
					    &one);
		} else if (m && has_twin(m)) {
			struct lw_rule r;

			q = lw_set_quiet(1);
			ret = lw_rule_parse_lang(&lw_lang_budget, c->rule, &r);
			lw_set_quiet(q);
			if (ret < 0 || !r.probe[0])
				continue;	/* another shape, or no probe: left as judged */
			ret = rule_one(&r, c->origin, r.probe[0] ? r.probe : NULL, an, &one);
		} else {
			continue;
		}
		if (ret < 0) {
			lw_checks_free(&one);
			return -1;
		}
		if (one.n == 1) {
			memcpy(one.c[0].name, c->name, sizeof(c->name));
			*c = one.c[0];
		}
		lw_checks_free(&one);
	}
	return 0;
}

static const char *const result_names[] = {
	[LW_PASS] = "pass", [LW_FAIL] = "fail", [LW_SKIP] = "skip",
};

json_t *lw_checks_json(const struct lw_checks *cs, const char *suite)
{
	json_t *a = json_array();

	for (size_t i = 0; i < cs->n; i++) {
		const struct lw_check *c = &cs->c[i];

		if (suite && strcmp(c->suite, suite))
			continue;
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:s, s:s, s:s, s:s}",
			"suite", c->suite, "name", c->name, "metric", c->metric,
			"result", result_names[c->result],
			"measured", isnan(c->measured) ? json_null() : json_real(c->measured),
			"limit", isnan(c->limit) ? json_null() : json_real(c->limit),
			"unit", c->unit, "rule", c->rule, "origin", c->origin,
			"message", c->message));
		if (c->kernel) {
			json_t *e = json_array_get(a, json_array_size(a) - 1);

			json_object_set_new(e, "judged_on", json_string("kernel"));
			json_object_set_new(e, "raw_measured", json_real(c->raw));
		}
	}
	return a;
}

static int str_into(const json_t *o, const char *key, char *buf, size_t len)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (!s || strlen(s) >= len)
		return -1;
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

int lw_checks_from_json(const json_t *a, const char *what, struct lw_checks *out)
{
	const json_t *e;
	size_t i;

	if (!json_is_array(a))
		return error("%s: \"checks\" is not an array", what);
	json_array_foreach(a, i, e) {
		struct lw_check c = { 0 };
		const char *res = json_string_value(json_object_get(e, "result"));
		const json_t *m = json_object_get(e, "measured"), *l = json_object_get(e, "limit");
		int r;

		for (r = 0; r < 3 && (!res || strcmp(res, result_names[r])); r++)
			;
		if (r == 3 || str_into(e, "suite", c.suite, sizeof(c.suite)) ||
		    str_into(e, "name", c.name, sizeof(c.name)) ||
		    str_into(e, "metric", c.metric, sizeof(c.metric)) ||
		    str_into(e, "unit", c.unit, sizeof(c.unit)) ||
		    str_into(e, "rule", c.rule, sizeof(c.rule)) ||
		    str_into(e, "origin", c.origin, sizeof(c.origin)) ||
		    str_into(e, "message", c.message, sizeof(c.message)) ||
		    !(json_is_number(m) || json_is_null(m)) || !(json_is_number(l) || json_is_null(l)))
			return error("%s: checks[%zu] is malformed", what, i);
		c.result = (enum lw_verdict)r;
		if (json_is_number(json_object_get(e, "raw_measured"))) {
			c.kernel = 1;
			c.raw = json_number_value(json_object_get(e, "raw_measured"));
		}
		c.measured = json_is_number(m) ? json_number_value(m) : NAN;
		c.limit = json_is_number(l) ? json_number_value(l) : NAN;
		if (lw_checks_add(out, &c) < 0)
			return -1;
	}
	return 0;
}

void lw_checks_unjudged(struct lw_checks *cs, const json_t *an)
{
	const char *st = json_string_value(json_object_get(json_object_get(an, "run"), "status"));

	if (st && !strcmp(st, "complete"))
		return;
	for (size_t i = 0; i < cs->n; i++) {
		struct lw_check *ck = &cs->c[i];
		char m[sizeof(ck->message) + 80];

		if (ck->result != LW_PASS)
			continue;
		snprintf(m, sizeof(m), "not judged: the run is %s; held on what it measured: %s",
			 st ? st : "of unknown state", ck->message);
		memcpy(ck->message, m, sizeof(ck->message) - 1);
		ck->message[sizeof(ck->message) - 1] = 0;
		ck->result = LW_SKIP;
	}
}
