// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <stdarg.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/failon.h"
#include "lib/error.h"
#include "lib/parse.h"
#include "lib/samples.h"

enum mclass { LATENCY, COUNT, POWER, FRACTION, VERDICT_ONLY };

static const struct mname {
	const char *name;
	enum mclass cls;
	int prefix;		/* "over:" + something */
	int run_level;		/* not a probe's metric */
} mnames[] = {
	{ "p50", LATENCY, 0, 0 }, { "p90", LATENCY, 0, 0 }, { "p99", LATENCY, 0, 0 },
	{ "p99.9", LATENCY, 0, 0 }, { "p99.99", LATENCY, 0, 0 }, { "mean", LATENCY, 0, 0 },
	{ "max", LATENCY, 0, 0 }, { "blockmax", LATENCY, 0, 0 }, { "worst", LATENCY, 0, 0 },
	{ "over:", COUNT, 1, 0 }, { "missed", COUNT, 0, 0 }, { "dropped", COUNT, 0, 0 },
	{ "distribution", VERDICT_ONLY, 0, 0 },
	{ "xruns", COUNT, 0, 1 }, { "dropped_frames", COUNT, 0, 1 }, { "power", POWER, 0, 1 },
	{ "idle:", FRACTION, 1, 1 }, { "cause:", FRACTION, 1, 1 }, { "any", VERDICT_ONLY, 0, 1 },
};

#define NAMES "p50, p90, p99, p99.9, p99.99, mean, max, blockmax, worst, over:TIME, " \
	      "missed, dropped, distribution, xruns, dropped_frames, power, idle:STATE, " \
	      "cause:NAME or any"

static int bad(const char *text, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(const char *text, size_t pos, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return error("--fail-on '%s': at %zu: %s", text, pos + 1, msg);
}

static const struct mname *find_name(const char *name)
{
	for (size_t i = 0; i < sizeof(mnames) / sizeof(mnames[0]); i++) {
		const struct mname *m = &mnames[i];

		if (m->prefix ? !strncmp(name, m->name, strlen(m->name)) && name[strlen(m->name)] :
				!strcmp(name, m->name))
			return m;
	}
	return NULL;
}

int lw_rule_parse(const char *text, struct lw_rule *r)
{
	const struct mname *mn;
	size_t len = strlen(text), mend, i, numstart;
	const char *name;
	char metric[128], unit[16];
	double scale = 1;
	int sign = 0;

	memset(r, 0, sizeof(*r));
	if (!len)
		return error("--fail-on '': empty rule");
	if (len >= sizeof(r->text))
		return error("--fail-on '%.20s...': longer than %zu characters", text, sizeof(r->text) - 1);
	strcpy(r->text, text);
	for (i = 0; i < len; i++)
		if (isspace((unsigned char)text[i]))
			return bad(text, i, "no spaces in a rule");
	/* the metric ends at the operator, or at ":worse" */
	mend = strcspn(text, "<>");
	if (mend == len) {
		const char *colon = strrchr(text, ':');

		if (!colon || strcmp(colon, ":worse") || colon == text) {
			if (colon && colon != text && !find_name(text))
				return bad(text, (size_t)(colon - text) + 1,
					   "expected 'worse' after ':', or an operator >, >=, <, <=");
			return bad(text, len, "expected an operator >, >=, <, <= or :worse after '%s'",
				   text);
		}
		mend = (size_t)(colon - text);
		r->op = LW_OP_WORSE;
		r->kind = LW_RULE_VERDICT;
	}
	if (!mend)
		return bad(text, 0, "expected a metric (" NAMES ")");
	memcpy(metric, text, mend);
	metric[mend] = 0;
	name = metric;
	/* "PROBE.NAME": probe names have no dots, "p99.9" has no probe */
	char *dot = strchr(metric, '.');
	if (dot) {
		*dot = 0;
		if (lw_probe_by_name(metric) >= 0) {
			snprintf(r->probe, sizeof(r->probe), "%s", metric);
			name = dot + 1;
		} else {
			*dot = '.';
			if (!find_name(metric) && !strchr(metric, ':'))
				return bad(text, 0, "unknown probe '%s' (cyclic, timerlat-irq, "
					   "timerlat-thread, noise, audio, video)",
					   (*dot = 0, metric));
		}
	}
	mn = find_name(name);
	if (!mn)
		return bad(text, (size_t)(name - metric), "unknown metric '%s' (" NAMES ")", name);
	if (mn->run_level && r->probe[0])
		return bad(text, 0, "%s is not a metric of a probe", name);
	snprintf(r->name, sizeof(r->name), "%s", name);
	if (!strcmp(mn->name, "over:")) {
		uint64_t ns;
		int q = lw_set_quiet(1);
		int bad_time = lw_parse_usecs("over", name + 5, &ns) < 0 || !ns;

		lw_set_quiet(q);
		if (bad_time)
			return bad(text, (size_t)(name - metric) + 5, "'%s' is not a threshold "
				   "(a time such as 50us)", name + 5);
		r->threshold_ns = ns;
		char t[32];
		snprintf(r->name, sizeof(r->name), "over:%s", lw_cmp_format_threshold(ns, t, sizeof(t)));
	}
	if (r->op == LW_OP_WORSE)
		return 0;
	if (mn->cls == VERDICT_ONLY)
		return bad(text, mend, "%s only takes :worse", name);
	/* operator */
	i = mend;
	if (text[i] == '>')
		r->op = text[i + 1] == '=' ? LW_OP_GE : LW_OP_GT;
	else
		r->op = text[i + 1] == '=' ? LW_OP_LE : LW_OP_LT;
	i += text[i + 1] == '=' ? 2 : 1;
	/* bound */
	if (text[i] == '+' || text[i] == '-')
		sign = text[i++] == '+' ? 1 : -1;
	numstart = i;
	while (isdigit((unsigned char)text[i]))
		i++;
	if (text[i] == '.') {
		i++;
		if (!isdigit((unsigned char)text[i]))
			return bad(text, i, "expected a digit after '.'");
		while (isdigit((unsigned char)text[i]))
			i++;
	}
	if (i == numstart)
		return bad(text, i, "expected a number");
	{
		char num[64];

		if (i - numstart >= sizeof(num))
			return bad(text, numstart, "number too long");
		memcpy(num, text + numstart, i - numstart);
		num[i - numstart] = 0;
		r->bound = strtod(num, NULL);
	}
	if (len - i >= sizeof(unit))
		return bad(text, i, "unknown unit '%s'", text + i);
	strcpy(unit, text + i);
	if (!strcmp(unit, "%")) {
		r->kind = LW_RULE_REL;
		r->bound = (sign < 0 ? -r->bound : r->bound) / 100;
		return 0;
	}
	r->kind = sign ? LW_RULE_CHANGE : LW_RULE_VALUE;
	if (sign < 0)
		r->bound = -r->bound;
	switch (mn->cls) {
	case LATENCY:
		if (!*unit || !strcmp(unit, "us"))
			scale = 1e3;
		else if (!strcmp(unit, "ns"))
			scale = 1;
		else if (!strcmp(unit, "ms"))
			scale = 1e6;
		else if (!strcmp(unit, "s"))
			scale = 1e9;
		else
			return bad(text, i, "unknown unit '%s' for %s (ns, us, ms, s or %%)", unit, name);
		break;
	case POWER:
		if (!*unit || !strcmp(unit, "W"))
			scale = 1;
		else if (!strcmp(unit, "mW"))
			scale = 1e-3;
		else
			return bad(text, i, "unknown unit '%s' for %s (W, mW or %%)", unit, name);
		break;
	default:
		if (*unit)
			return bad(text, i, "unknown unit '%s': %s is a plain number (or use %%)",
				   unit, name);
	}
	r->bound *= scale;
	return 0;
}

/* The metric of @c that rule @r names; NULL when there is none. */
static json_t *find_metric(const json_t *c, const struct lw_rule *r, char *full, size_t len)
{
	const json_t *ms = json_object_get(c, "metrics");
	const struct mname *mn = find_name(r->name);
	const char *probe = r->probe;
	json_t *m;
	size_t i;

	if (!mn->run_level && !*probe) {
		/* default probe: cyclic when compared, else the first */
		probe = NULL;
		json_array_foreach(ms, i, m) {
			const char *p = json_string_value(json_object_get(m, "probe"));

			if (p && (!probe || !strcmp(p, "cyclic")))
				probe = p;
		}
		if (!probe)
			probe = "cyclic";
	}
	snprintf(full, len, "%s%s%s", mn->run_level ? "" : probe, mn->run_level ? "" : ".", r->name);
	json_array_foreach(ms, i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")) ?: "", full))
			return m;
	return NULL;
}

static int compare_op(enum lw_rule_op op, double x, double bound)
{
	switch (op) {
	case LW_OP_GT: return x > bound;
	case LW_OP_GE: return x >= bound;
	case LW_OP_LT: return x < bound;
	case LW_OP_LE: return x <= bound;
	default: return 0;
	}
}

static double num(const json_t *m, const char *k)
{
	json_t *v = json_object_get(m, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *rule_unit(const struct lw_rule *r, const json_t *m)
{
	if (r->kind == LW_RULE_VERDICT)
		return "";
	if (r->kind == LW_RULE_REL)
		return "%";
	return json_string_value(json_object_get(m, "unit")) ?: "";
}

int lw_rules_eval(const struct lw_rule *rules, size_t n, json_t *doc)
{
	json_t *out = json_array(), *c, *runs = json_object_get(doc, "runs");
	size_t ci;
	int failed = 0;

	json_array_foreach(json_object_get(doc, "comparisons"), ci, c) {
		json_int_t ir = json_integer_value(json_object_get(c, "run"));
		const char *label = json_string_value(json_object_get(c, "label")) ?:
			json_string_value(json_object_get(json_array_get(runs, (size_t)ir), "label")) ?: "?";

		for (size_t k = 0; k < n; k++) {
			const struct lw_rule *r = &rules[k];
			char full[160], detail[320];
			const char *result = "n/a";
			double x = NAN;
			json_t *m = NULL, *e;

			if (!strcmp(r->name, "any")) {
				size_t i;
				json_t *mm;
				int nw = 0;

				snprintf(full, sizeof(full), "any");
				snprintf(detail, sizeof(detail), "%s: worse:", label);
				json_array_foreach(json_object_get(c, "metrics"), i, mm) {
					if (strcmp(json_string_value(json_object_get(mm, "verdict")) ?: "",
						   LW_WORSE))
						continue;
					if (nw++ < 8)
						snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail),
							 " %s", json_string_value(json_object_get(mm, "name")));
				}
				if (!nw)
					snprintf(detail, sizeof(detail), "%s: no metric is worse", label);
				result = nw ? "fail" : "pass";
				x = nw;
			} else if (!(m = find_metric(c, r, full, sizeof(full)))) {
				snprintf(detail, sizeof(detail), "%s: no metric %s in this comparison",
					 label, full);
			} else if (r->kind == LW_RULE_VERDICT) {
				const char *v = json_string_value(json_object_get(m, "verdict")) ?: "?";

				result = !strcmp(v, LW_NA) ? "n/a" : !strcmp(v, LW_WORSE) ? "fail" : "pass";
				snprintf(detail, sizeof(detail), "%s: %s %s", label, full, v);
			} else {
				const char *what = r->kind == LW_RULE_VALUE ? "value" :
						   r->kind == LW_RULE_CHANGE ? "change" : "rel";

				x = num(m, what);
				if (r->kind == LW_RULE_REL && json_is_true(json_object_get(m, "rel_infinite")))
					x = num(m, "change") > 0 ? INFINITY : -INFINITY;
				if (isnan(x)) {
					const char *note = json_string_value(json_object_get(m, "note"));

					snprintf(detail, sizeof(detail), "%s: %s is n/a%s%s", label, full,
						 note ? ": " : "", note ? note : "");
				} else {
					result = compare_op(r->op, x, r->bound) ? "fail" : "pass";
					if (r->kind == LW_RULE_REL)
						snprintf(detail, sizeof(detail), "%s: %s %+.1f%%", label,
							 full, x * 100);
					else
						snprintf(detail, sizeof(detail), "%s: %s %s%g%s", label, full,
							 r->kind == LW_RULE_CHANGE && x >= 0 ? "+" : "",
							 !strcmp(json_string_value(json_object_get(m, "unit")) ?: "", "ns") ?
							 x / 1e3 : x,
							 !strcmp(json_string_value(json_object_get(m, "unit")) ?: "", "ns") ?
							 "us" : "");
				}
			}
			if (!strcmp(result, "fail"))
				failed++;
			e = json_pack("{s:s, s:I, s:s, s:s, s:s}", "rule", r->text, "run", ir,
				      "metric", full, "result", result, "detail", detail);
			json_object_set_new(e, "value", isfinite(x) ? json_real(x) : json_null());
			/* the same in the words of the report's checks */
			json_object_set_new(e, "name", json_string(r->text));
			{	/* relative rules in percent there */
				double sc = r->kind == LW_RULE_REL ? 100 : 1;

				json_object_set_new(e, "measured", isfinite(x) ? json_real(x * sc) : json_null());
				json_object_set_new(e, "limit", json_real(r->bound * sc));
			}
			json_object_set_new(e, "unit", json_string(rule_unit(r, m)));
			json_object_set_new(e, "message", json_string(detail));
			json_array_append_new(out, e);
		}
	}
	json_object_set_new(doc, "rules", out);
	json_object_set_new(doc, "result", json_string(failed ? "regression" : "pass"));
	return failed;
}
