// SPDX-License-Identifier: GPL-2.0-only
/* The --fail-on grammar: good rules and what they mean, bad rules and the
 * message (with the position) each gets, and judging rules on a document. */
#include "tests/unit/lw_test.h"

#include "analysis/failon.h"

static void test_good_rules(void **st)
{
	static const struct {
		const char *text, *probe, *name;
		enum lw_rule_op op;
		enum lw_rule_kind kind;
		double bound;
	} good[] = {
		{ "p99>+10%",            "",             "p99",       LW_OP_GT, LW_RULE_REL,    0.10 },
		{ "p99>10%",             "",             "p99",       LW_OP_GT, LW_RULE_REL,    0.10 },
		{ "max>=+20%",           "",             "max",       LW_OP_GE, LW_RULE_REL,    0.20 },
		{ "p99.9>-2.5%",         "",             "p99.9",     LW_OP_GT, LW_RULE_REL,   -0.025 },
		{ "xruns>0",             "",             "xruns",     LW_OP_GT, LW_RULE_VALUE,  0 },
		{ "p99>150us",           "",             "p99",       LW_OP_GT, LW_RULE_VALUE,  150000 },
		{ "p99>150",             "",             "p99",       LW_OP_GT, LW_RULE_VALUE,  150000 },
		{ "mean<2ms",            "",             "mean",      LW_OP_LT, LW_RULE_VALUE,  2e6 },
		{ "cyclic.p99.9<=+5us",  "cyclic",       "p99.9",     LW_OP_LE, LW_RULE_CHANGE, 5000 },
		{ "timerlat-irq.worst>1s", "timerlat-irq", "worst",   LW_OP_GT, LW_RULE_VALUE,  1e9 },
		{ "over:50us>+50%",      "",             "over:50us", LW_OP_GT, LW_RULE_REL,    0.5 },
		{ "over:0.05ms>3",       "",             "over:50us", LW_OP_GT, LW_RULE_VALUE,  3 },
		{ "power>+0.5W",         "",             "power",     LW_OP_GT, LW_RULE_CHANGE, 0.5 },
		{ "power>500mW",         "",             "power",     LW_OP_GT, LW_RULE_VALUE,  0.5 },
		{ "dropped_frames>=1",   "",             "dropped_frames", LW_OP_GE, LW_RULE_VALUE, 1 },
		{ "cause:irq>0.5",       "",             "cause:irq", LW_OP_GT, LW_RULE_VALUE,  0.5 },
		{ "any:worse",           "",             "any",       LW_OP_WORSE, LW_RULE_VERDICT, 0 },
		{ "distribution:worse",  "",             "distribution", LW_OP_WORSE, LW_RULE_VERDICT, 0 },
		{ "cyclic.over:100us:worse", "cyclic",   "over:100us", LW_OP_WORSE, LW_RULE_VERDICT, 0 },
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct lw_rule r;
		int q = lw_set_quiet(1), ret = lw_rule_parse(good[i].text, &r);

		lw_set_quiet(q);
		if (ret < 0)
			fail_msg("'%s' refused: %s", good[i].text, lw_last_error());
		assert_string_equal(r.text, good[i].text);
		assert_string_equal(r.probe, good[i].probe);
		assert_string_equal(r.name, good[i].name);
		assert_int_equal(r.op, good[i].op);
		assert_int_equal(r.kind, good[i].kind);
		assert_float_equal(r.bound, good[i].bound, 1e-9);
	}
}

static void test_bad_rules(void **st)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "", "--fail-on '': empty rule" },
		{ "p99", "--fail-on 'p99': at 4: expected an operator >, >=, <, <= or :worse after 'p99'" },
		{ "p98>+10%", "--fail-on 'p98>+10%': at 1: unknown metric 'p98' (p50, p90" },
		{ "p99>+10x", "--fail-on 'p99>+10x': at 8: unknown unit 'x' for p99 (ns, us, ms, s or %)" },
		{ "p99>", "--fail-on 'p99>': at 5: expected a number" },
		{ "p99>+", "--fail-on 'p99>+': at 6: expected a number" },
		{ "p99>1.", "at 7: expected a digit after '.'" },
		{ "xruns>1ms", "--fail-on 'xruns>1ms': at 8: unknown unit 'ms': xruns is a plain number" },
		{ "power>3V", "at 8: unknown unit 'V' for power (W, mW or %)" },
		{ "cyclc.p99>1", "--fail-on 'cyclc.p99>1': at 1: unknown probe 'cyclc'" },
		{ "cyclic.xruns>0", "at 1: xruns is not a metric of a probe" },
		{ "any>0", "--fail-on 'any>0': at 4: any only takes :worse" },
		{ "p99:better", "--fail-on 'p99:better': at 5: expected 'worse' after ':'" },
		{ "over:5parsecs>0", "at 6: '5parsecs' is not a threshold" },
		{ "over:>0", "at 1: unknown metric 'over:'" },
		{ "p99 > 10%", "--fail-on 'p99 > 10%': at 4: no spaces in a rule" },
		{ ">10%", "at 1: expected a metric" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct lw_rule r;

		assert_error(lw_rule_parse(bad[i].text, &r) < 0, bad[i].msg);
	}
}

static void test_eval(void **st)
{
	static const char doc_text[] =
		"{\"runs\": [{\"label\": \"a\"}, {\"label\": \"b\"}],"
		" \"comparisons\": [{\"run\": 1, \"baseline\": 0, \"metrics\": ["
		"  {\"name\": \"cyclic.p99\", \"probe\": \"cyclic\", \"unit\": \"ns\", \"baseline\": 100000,"
		"   \"value\": 112000, \"change\": 12000, \"rel\": 0.12, \"verdict\": \"worse\"},"
		"  {\"name\": \"cyclic.max\", \"probe\": \"cyclic\", \"unit\": \"ns\", \"baseline\": 1000000,"
		"   \"value\": 1100000, \"change\": 100000, \"rel\": 0.1, \"verdict\": \"n/a\"},"
		"  {\"name\": \"cyclic.missed\", \"probe\": \"cyclic\", \"unit\": \"count\", \"baseline\": 0,"
		"   \"value\": 3, \"change\": 3, \"rel\": null, \"rel_infinite\": true, \"verdict\": \"worse\"},"
		"  {\"name\": \"xruns\", \"unit\": \"count\", \"baseline\": null, \"value\": null,"
		"   \"change\": null, \"rel\": null, \"verdict\": \"n/a\", \"note\": \"not recorded\"}]}]}";
	static const struct {
		const char *rule, *result;
	} want[] = {
		{ "p99>+10%", "fail" }, { "p99>+15%", "pass" }, { "max>+20%", "pass" },
		{ "xruns>0", "undecided" }, { "p99>150us", "pass" }, { "p99>=112us", "fail" },
		{ "cyclic.p99>+11999ns", "fail" }, { "missed>+100%", "fail" }, { "missed>5", "pass" },
		{ "any:worse", "fail" }, { "max:worse", "undecided" }, { "p99.9>+1%", "undecided" },
	};
	const size_t n = sizeof(want) / sizeof(want[0]);
	struct lw_rule rules[sizeof(want) / sizeof(want[0])];
	json_error_t err;
	json_t *doc = json_loads(doc_text, 0, &err), *res;
	int failed = 0;

	assert_non_null(doc);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(lw_rule_parse(want[i].rule, &rules[i]), 0);
		failed += !strcmp(want[i].result, "fail");
	}
	assert_int_equal(lw_rules_eval(rules, n, doc), failed);
	res = json_object_get(doc, "rules");
	assert_int_equal(json_array_size(res), n);
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(res, i);

		assert_string_equal(json_string_value(json_object_get(e, "rule")), want[i].rule);
		if (strcmp(json_string_value(json_object_get(e, "result")), want[i].result))
			fail_msg("%s: %s, wanted %s (%s)", want[i].rule,
				 json_string_value(json_object_get(e, "result")), want[i].result,
				 json_string_value(json_object_get(e, "detail")));
	}
	assert_string_equal(json_string_value(json_object_get(doc, "result")), "regression");
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(res, 9), "detail")),
			       "cyclic.p99 cyclic.missed"));
	json_decref(doc);
}

/* One run a side: verdict rules cannot be judged, so they are undecided
 * (never "pass"), and with nothing judged the document says so; a rule on a
 * figure is still judged on the figure. */
static void test_eval_no_verdicts(void **st)
{
	static const char doc_text[] =
		"{\"runs\": [{\"label\": \"a\"}, {\"label\": \"b\"}],"
		" \"comparisons\": [{\"run\": 1, \"baseline\": 0, \"label\": \"B\", \"runs\": [1, 1],"
		"  \"verdicts\": false, \"metrics\": ["
		"  {\"name\": \"cyclic.p99\", \"probe\": \"cyclic\", \"unit\": \"ns\", \"baseline\": 100000,"
		"   \"value\": 300000, \"change\": 200000, \"rel\": 2.0, \"verdict\": \"n/a\","
		"   \"note\": \"too few runs for a verdict\"}]}]}";
	const char *const rules[] = { "any:worse", "p99:worse", "p99>+100%" };
	struct lw_rule r[3];
	json_error_t err;
	json_t *doc = json_loads(doc_text, 0, &err), *res;

	(void)st;
	assert_non_null(doc);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(lw_rule_parse(rules[i], &r[i]), 0);
	/* the verdict rules alone: nothing judged */
	assert_int_equal(lw_rules_eval(r, 2, doc), 0);
	res = json_object_get(doc, "rules");
	for (size_t i = 0; i < 2; i++) {
		json_t *e = json_array_get(res, i);

		assert_string_equal(json_string_value(json_object_get(e, "result")), "undecided");
		assert_true(json_is_null(json_object_get(e, "value")));
		assert_non_null(strstr(json_string_value(json_object_get(e, "detail")),
				       "B: no verdict with 1 run against 1: verdicts need at least 2 runs a side"));
	}
	assert_string_equal(json_string_value(json_object_get(doc, "result")), "undecided");
	/* a bound on the figure is judged on it */
	assert_int_equal(lw_rules_eval(r, 3, doc), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(doc,
		"rules"), 2), "result")), "fail");
	assert_string_equal(json_string_value(json_object_get(doc, "result")), "regression");
	json_decref(doc);
}

/* any:worse names the worse metrics, and says so when it names only some. */
static void test_any_capped(void **st)
{
	json_t *doc = json_pack("{s:[{s:s}, {s:s}], s:[{s:i, s:i, s:[]}]}", "runs", "label", "a",
				"label", "b", "comparisons", "run", 1, "baseline", 0, "metrics");
	json_t *ms = json_object_get(json_array_get(json_object_get(doc, "comparisons"), 0), "metrics");
	struct lw_rule r;
	char name[32];

	(void)st;
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "cyclic.m%d", i);
		json_array_append_new(ms, json_pack("{s:s, s:s}", "name", name, "verdict", "worse"));
	}
	assert_int_equal(lw_rule_parse("any:worse", &r), 0);
	assert_int_equal(lw_rules_eval(&r, 1, doc), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(doc,
		"rules"), 0), "detail")), "b: worse: cyclic.m0 cyclic.m1 cyclic.m2 cyclic.m3 "
		"cyclic.m4 cyclic.m5 cyclic.m6 cyclic.m7 (first 8 of 10)");
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_rules),
		cmocka_unit_test(test_bad_rules),
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_eval_no_verdicts),
		cmocka_unit_test(test_any_capped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
