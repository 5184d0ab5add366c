// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <stdarg.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_words.h"
#include "analysis/failon.h"
#include "lib/error.h"
#include "lib/json.h"
#include "lib/parse.h"
#include "lib/samples.h"

const struct lw_rule_lang lw_lang_failon = { "--fail-on", "metric", 0, 0, 0 };
const struct lw_rule_lang lw_lang_budget = { "--budget", "statistic", 1, 1, 1 };

static int bad(const struct lw_rule_lang *lang, const char *text, size_t pos, const char *fmt,
	       ...) __attribute__((format(printf, 4, 5)));

static int bad(const struct lw_rule_lang *lang, const char *text, size_t pos, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return error("%s '%s': at %zu: %s", lang->opt, text, pos + 1, msg);
}

/* The names @lang takes, for its messages. */
static const char *names(const struct lw_rule_lang *lang, char *buf, size_t len)
{
	return lw_metric_names(buf, len, lang->summary, !lang->summary);
}

/* The scale of @unit to the bound's unit for metric @m (0: not a unit of it). */
static double unit_scale(const struct lw_rule_lang *lang, const struct lw_metric *m,
			 const char *unit)
{
	static const struct { enum lw_metric_unit mu; const char *sfx; double mul; } units[] = {
		{ LW_MU_NS, "", 1e3 }, { LW_MU_NS, "ns", 1 }, { LW_MU_NS, "us", 1e3 },
		{ LW_MU_NS, "ms", 1e6 }, { LW_MU_NS, "s", 1e9 },
		{ LW_MU_W, "", 1 }, { LW_MU_W, "W", 1 }, { LW_MU_W, "mW", 1e-3 },
		{ LW_MU_UJ, "", 1 }, { LW_MU_UJ, "uJ", 1 }, { LW_MU_UJ, "mJ", 1e3 },
		{ LW_MU_UJ, "J", 1e6 },
		{ LW_MU_COUNT, "", 1 }, { LW_MU_SHARE, "", 1 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (units[i].mu == m->unit && !strcmp(units[i].sfx, unit)) {
			if (m->unit == LW_MU_W && lang->mw)	/* bounds in mW, bare mW */
				return *unit ? units[i].mul * 1e3 : 1;
			return units[i].mul;
		}
	return 0;
}

/* The metric of rule @text, its first @mend characters: [PROBE.]NAME of the
 * registry that @lang takes (a threshold for over:), into @r; *@namep points
 * at NAME in @metric.  0, or -1 after error(). */
static int rule_metric(const struct lw_rule_lang *lang, const char *text, size_t mend,
		       struct lw_rule *r, char metric[128], const char **namep)
{
	const struct lw_metric *mn;
	const char *name;
	char list[512];

	if (!mend)
		return lang->upper_only ? bad(lang, text, 0, "no %s before '<'", lang->noun) :
			bad(lang, text, 0, "expected a %s (%s)", lang->noun, names(lang, list, sizeof(list)));
	if (mend >= 128)
		return bad(lang, text, 0, "%s too long", lang->noun);
	memcpy(metric, text, mend);
	metric[mend] = 0;
	name = metric;
	/* "PROBE.NAME": probe names have no dots, "p99.9" has no probe */
	char *dot = strchr(metric, '.');
	if (dot == metric)
		return bad(lang, text, 0, "bad probe name (nothing before '.')");
	if (dot) {
		*dot = 0;
		if (lw_probe_by_name(metric) >= 0) {
			snprintf(r->probe, sizeof(r->probe), "%s", metric);
			name = dot + 1;
		} else {
			*dot = '.';
			if (!lw_metric_find(metric) && !strchr(metric, ':')) {
				size_t n = 0;

				list[0] = 0;
				for (unsigned p = 0; p < LW_SAMPLE_MAX && n < sizeof(list); p++)
					if (lw_probe_by_name(lw_probe_name(p)) == (int)p)
						n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
								      n ? ", " : "", lw_probe_name(p));
				*dot = 0;
				return bad(lang, text, 0, "unknown probe '%s' (%s)", metric, list);
			}
		}
	}
	mn = lw_metric_find(name);
	if (!mn)
		return bad(lang, text, (size_t)(name - metric), "unknown %s '%s' (%s)", lang->noun,
			   name, names(lang, list, sizeof(list)));
	if (!mn->probe && r->probe[0])
		return bad(lang, text, 0, lang->summary ? "%s is not a per-probe figure" :
			   "%s is not a metric of a probe", name);
	if (lang->summary && mn->from == LW_MF_NONE)
		return bad(lang, text, (size_t)(name - metric), "%s is not in a run's summary, only in "
			   "a comparison (latwatt compare --fail-on)", name);
	if (!lang->summary && !mn->compared)
		return bad(lang, text, (size_t)(name - metric), "%s is not in a comparison, only in a "
			   "run's summary (latwatt report --budget)", name);
	r->m = mn;
	/* the canonical name: an alias becomes its entry's name */
	if (mn->arg)
		snprintf(r->name, sizeof(r->name), "%s%s", mn->name, strchr(name, ':') + 1);
	else
		snprintf(r->name, sizeof(r->name), "%s", mn->name);
	if (!strcmp(mn->name, "over:")) {
		uint64_t ns;
		int q = lw_set_quiet(1);
		int bad_time = lw_parse_usecs("over", name + 5, &ns) < 0 || !ns;

		lw_set_quiet(q);
		if (bad_time)
			return bad(lang, text, (size_t)(name - metric) + 5, "'%s' is not a threshold "
				   "(a time such as 50us)", name + 5);
		r->threshold_ns = ns;
		char t[32];
		snprintf(r->name, sizeof(r->name), "over:%s", lw_format_threshold(ns, t, sizeof(t)));
	}
	*namep = name;
	return 0;
}

/* The operator, bound and unit of rule @text after its metric (at @mend),
 * @name as written, into @r.  0, or -1 after error(). */
static int rule_bound(const struct lw_rule_lang *lang, const char *text, size_t mend,
		      const char *name, struct lw_rule *r)
{
	const struct lw_metric *mn = r->m;
	size_t len = strlen(text), i, numstart;
	char unit[16];
	double scale = 1;
	int sign = 0;

	/* operator */
	i = mend;
	if (text[i] == '>')
		r->op = text[i + 1] == '=' ? LW_OP_GE : LW_OP_GT;
	else
		r->op = text[i + 1] == '=' ? LW_OP_LE : LW_OP_LT;
	i += text[i + 1] == '=' ? 2 : 1;
	/* bound */
	if (text[i] == '+' || text[i] == '-') {
		if (lang->upper_only)
			return bad(lang, text, i, "'%s' is not a non-negative number", text + i);
		sign = text[i++] == '+' ? 1 : -1;
	}
	numstart = i;
	while (isdigit((unsigned char)text[i]))
		i++;
	if (text[i] == '.') {
		i++;
		if (!isdigit((unsigned char)text[i]))
			return bad(lang, text, i, "expected a digit after '.'");
		while (isdigit((unsigned char)text[i]))
			i++;
	}
	if (i == numstart)
		return lang->upper_only ?
			bad(lang, text, i, "'%s' is not a non-negative number", text + i) :
			bad(lang, text, i, "expected a number");
	{
		char num[64];

		if (i - numstart >= sizeof(num))
			return bad(lang, text, numstart, "number too long");
		memcpy(num, text + numstart, i - numstart);
		num[i - numstart] = 0;
		r->bound = strtod(num, NULL);
	}
	if (len - i >= sizeof(unit))
		return bad(lang, text, i, "unknown unit '%s'", text + i);
	strcpy(unit, text + i);
	if (!strcmp(unit, "%") && !lang->upper_only) {
		r->kind = LW_RULE_REL;
		r->bound = (sign < 0 ? -r->bound : r->bound) / 100;
		return 0;
	}
	r->kind = sign ? LW_RULE_CHANGE : LW_RULE_VALUE;
	if (sign < 0)
		r->bound = -r->bound;
	scale = unit_scale(lang, mn, unit);
	if (!scale) {
		const char *pct = lang->upper_only ? "" : " or %";

		switch (mn->unit) {
		case LW_MU_NS:
			return bad(lang, text, i, "unknown unit '%s' for %s (ns, us, ms, s%s)", unit,
				   name, pct);
		case LW_MU_W:
			return bad(lang, text, i, "unknown unit '%s' for %s (W, mW%s)", unit, name,
				   pct);
		case LW_MU_UJ:
			return bad(lang, text, i, "unknown unit '%s' for %s (uJ, mJ, J%s)", unit,
				   name, pct);
		default:
			return bad(lang, text, i, "unknown unit '%s': %s is a plain number%s", unit,
				   name, lang->upper_only ? "" : " (or use %)");
		}
	}
	r->bound *= scale;
	return 0;
}

int lw_rule_parse_lang(const struct lw_rule_lang *lang, const char *text, struct lw_rule *r)
{
	size_t len = strlen(text), mend, i;
	const char *name = NULL, *opt = lang->opt;
	char metric[128];

	memset(r, 0, sizeof(*r));
	if (!len)
		return error("%s '': empty rule", opt);
	if (len >= sizeof(r->text))
		return error("%s '%.20s...': longer than %zu characters", opt, text,
			     sizeof(r->text) - 1);
	strcpy(r->text, text);
	for (i = 0; i < len; i++)
		if (isspace((unsigned char)text[i]))
			return bad(lang, text, i, "no spaces in a rule");
	/* the metric ends at the operator, or at ":worse" */
	mend = strcspn(text, "<>");
	if (lang->upper_only && (mend == len || text[mend] != '<'))
		return bad(lang, text, mend, "expected [PROBE.]STAT<VALUE or <=VALUE, e.g. p99<100us");
	if (mend == len) {
		const char *colon = strrchr(text, ':');

		if (!colon || strcmp(colon, ":worse") || colon == text) {
			if (colon && colon != text && !lw_metric_find(text))
				return bad(lang, text, (size_t)(colon - text) + 1,
					   "expected 'worse' after ':', or an operator >, >=, <, <=");
			return bad(lang, text, len, "expected an operator >, >=, <, <= or :worse "
				   "after '%s'", text);
		}
		mend = (size_t)(colon - text);
		r->op = LW_OP_WORSE;
		r->kind = LW_RULE_VERDICT;
	}
	if (rule_metric(lang, text, mend, r, metric, &name) < 0)
		return -1;
	if (r->op == LW_OP_WORSE)
		return 0;
	if (r->m->unit == LW_MU_VERDICT)
		return bad(lang, text, mend, "%s only takes :worse", name);
	return rule_bound(lang, text, mend, name, r);
}

int lw_rule_parse(const char *text, struct lw_rule *r)
{
	return lw_rule_parse_lang(&lw_lang_failon, text, r);
}

/* The metric of @c that rule @r names; NULL when there is none. */
static json_t *find_metric(const json_t *c, const struct lw_rule *r, char *full, size_t len)
{
	const json_t *ms = json_object_get(c, "metrics");
	const struct lw_metric *mn = r->m;
	const char *probe = r->probe;
	json_t *m;
	size_t i;

	if (mn->probe && !*probe) {
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
	snprintf(full, len, "%s%s%s", mn->probe ? probe : "", mn->probe ? "." : "", r->name);
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

static const char *rule_unit(const struct lw_rule *r, const json_t *m)
{
	if (r->kind == LW_RULE_VERDICT)
		return "";
	if (r->kind == LW_RULE_REL)
		return "%";
	return json_string_value(json_object_get(m, "unit")) ?: "";
}

/* The worse metrics named in the detail of any:worse, at most. */
#define ANY_SHOWN 8

/* Why a comparison has no verdicts: too few runs a side. */
static void no_verdicts(const json_t *c, const char *label, char *detail, size_t len)
{
	const json_t *runs = json_object_get(c, "runs");

	snprintf(detail, len, "%s: no verdict with %" JSON_INTEGER_FORMAT " run%s against %"
		 JSON_INTEGER_FORMAT ": " LW_RULE_RUNS_NEEDED, label,
		 json_integer_value(json_array_get(runs, 1)),
		 json_integer_value(json_array_get(runs, 1)) == 1 ? "" : "s",
		 json_integer_value(json_array_get(runs, 0)));
}

int lw_rules_eval(const struct lw_rule *rules, size_t n, json_t *doc)
{
	json_t *out = json_array(), *c, *runs = json_object_get(doc, "runs");
	size_t ci;
	int failed = 0, judged = 0;

	json_array_foreach(json_object_get(doc, "comparisons"), ci, c) {
		json_int_t ir = json_integer_value(json_object_get(c, "run"));
		const char *label = json_string_value(json_object_get(c, "label")) ?:
			json_string_value(json_object_get(json_array_get(runs, (size_t)ir), "label")) ?: "?";

		for (size_t k = 0; k < n; k++) {
			const struct lw_rule *r = &rules[k];
			char full[160], detail[320];
			const char *result = LW_RULE_UNDECIDED;
			double x = NAN;
			json_t *m = NULL, *e;

			if (!strcmp(r->name, "any")) {
				size_t i;
				json_t *mm;
				int nw = 0, tested = 0;

				snprintf(full, sizeof(full), "any");
				json_array_foreach(json_object_get(c, "metrics"), i, mm) {
					const char *v = json_string_value(json_object_get(mm, "verdict")) ?: "";

					tested += strcmp(v, LW_NA) != 0;
					nw += !strcmp(v, LW_WORSE);
				}
				if (nw) {
					int shown = 0;

					snprintf(detail, sizeof(detail), "%s: worse:", label);
					json_array_foreach(json_object_get(c, "metrics"), i, mm) {
						if (strcmp(json_string_value(json_object_get(mm, "verdict")) ?: "",
							   LW_WORSE) || shown == ANY_SHOWN)
							continue;
						shown++;
						snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail),
							 " %s", json_string_value(json_object_get(mm, "name")));
					}
					if (nw > ANY_SHOWN)
						snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail),
							 " (first %d of %d)", ANY_SHOWN, nw);
					result = "fail";
				} else if (json_is_false(json_object_get(c, "verdicts"))) {
					no_verdicts(c, label, detail, sizeof(detail));
				} else if (!tested) {
					snprintf(detail, sizeof(detail), "%s: no metric could be tested", label);
				} else {
					snprintf(detail, sizeof(detail), "%s: none of the %d metrics tested is "
						 "worse", label, tested);
					result = "pass";
				}
				x = nw;
			} else if (!(m = find_metric(c, r, full, sizeof(full)))) {
				snprintf(detail, sizeof(detail), "%s: no metric %s in this comparison",
					 label, full);
			} else if (r->kind == LW_RULE_VERDICT) {
				const char *v = json_string_value(json_object_get(m, "verdict")) ?: "?";

				if (!strcmp(v, LW_NA) && json_is_false(json_object_get(c, "verdicts"))) {
					no_verdicts(c, label, detail, sizeof(detail));
				} else if (!strcmp(v, LW_NA)) {
					const char *note = json_string_value(json_object_get(m, "note"));

					snprintf(detail, sizeof(detail), "%s: %s has no verdict%s%s", label, full,
						 note ? ": " : "", note ? note : "");
				} else {
					result = !strcmp(v, LW_WORSE) ? "fail" : "pass";
					snprintf(detail, sizeof(detail), "%s: %s %s", label, full, v);
				}
			} else {
				const char *what = r->kind == LW_RULE_VALUE ? "value" :
						   r->kind == LW_RULE_CHANGE ? "change" : "rel";
				const char *unit = json_string_value(json_object_get(m, "unit")) ?: "";
				/* a group's count is the mean per run of its runs' */
				int per_run = !strcmp(unit, "count") && r->kind != LW_RULE_REL &&
					json_integer_value(json_array_get(json_object_get(c, "runs"), 1)) > 1;

				x = lw_jnum(m, what, NAN);
				if (r->kind == LW_RULE_REL && json_is_true(json_object_get(m, "rel_infinite")))
					x = lw_jnum(m, "change", NAN) > 0 ? INFINITY : -INFINITY;
				if (isnan(x)) {
					const char *note = json_string_value(json_object_get(m, "note"));

					snprintf(detail, sizeof(detail), "%s: %s is unknown%s%s", label, full,
						 note ? ": " : "", note ? note : "");
				} else {
					result = compare_op(r->op, x, r->bound) ? "fail" : "pass";
					if (r->kind == LW_RULE_REL)
						snprintf(detail, sizeof(detail), "%s: %s %+.1f%%", label,
							 full, x * 100);
					else
						snprintf(detail, sizeof(detail), "%s: %s %s%g%s%s", label, full,
							 r->kind == LW_RULE_CHANGE && x >= 0 ? "+" : "",
							 !strcmp(unit, "ns") ? x / 1e3 : x,
							 !strcmp(unit, "ns") ? "us" : "",
							 per_run ? " (mean per run)" : "");
				}
			}
			if (!strcmp(result, "fail"))
				failed++;
			judged += strcmp(result, LW_RULE_UNDECIDED) != 0;
			if (!strcmp(result, LW_RULE_UNDECIDED))
				x = NAN;	/* nothing was measured */
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
	json_object_set_new(doc, "result", json_string(failed ? "regression" : judged ? "pass" :
						       LW_RULE_UNDECIDED));
	return failed;
}
