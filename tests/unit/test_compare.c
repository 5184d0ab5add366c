// SPDX-License-Identifier: GPL-2.0-only
/*
 * The comparison against known distributions, with seeded synthetic runs:
 *   - two samples from one distribution (lognormal and gamma latency shapes)
 *     get no verdict (better/worse) on any metric in at least 95 % of 200
 *     trials, and the Mann-Whitney test alone rejects at about its level;
 *   - a 10 % shift (every latency 1.1 times longer, so the p99 too) is found
 *     worse at the p99 in at least 95 % of 200 trials.
 * And the document: schema, the runs, n/a where nothing was recorded.
 */
#include "tests/unit/lw_test.h"

#include <math.h>

#include "analysis/compare.h"
#include "lib/samples.h"

#define N_SAMPLES 20000
#define PER_BLOCK 20		/* samples per 10 ms: a 2 kHz probe */
#define TRIALS    100		/* per shape */

enum shape { LOGNORMAL, GAMMA };

static uint64_t draw(struct lw_rng *r, enum shape s)
{
	if (s == LOGNORMAL)	/* median 20 us, sigma 0.5: p99 about 64 us */
		return (uint64_t)(20000.0 * exp(0.5 * lw_rng_normal(r)));
	/* 5 us floor plus Gamma(2) of 8 us scale */
	return (uint64_t)(5000.0 + 8000.0 * lw_rng_gamma(r, 2));
}

static void make_run(struct lw_crun *run, const char *label, enum shape s, double scale,
		     struct lw_rng *r)
{
	uint64_t *v = malloc(N_SAMPLES * sizeof(*v));
	struct lw_cprobe *p;

	memset(run, 0, sizeof(*run));
	run->label = strdup(label);
	run->manifest = json_pack("{s:s, s:s, s:I, s:{s:{s:s}, s:{s:s, s:b}}}", "status", "complete",
				  "board", label, "duration_ns", (json_int_t)N_SAMPLES / PER_BLOCK * 10000000,
				  "system", "kernel", "release", "6.1.0-test", "preempt", "model",
				  "PREEMPT_RT", "rt", 1);
	p = lw_crun_add_probe(run, LW_PROBE_CYCLIC);
	assert_non_null(p);
	assert_int_equal(lw_hist_init(&p->hist, 1000, 10000), 0);
	p->nb = N_SAMPLES / PER_BLOCK;
	p->bmax = calloc(p->nb, sizeof(*p->bmax));
	for (size_t i = 0; i < N_SAMPLES; i++) {
		v[i] = (uint64_t)((double)draw(r, s) * scale);
		lw_hist_add(&p->hist, v[i], i);
		if (v[i] + 1 > p->bmax[i / PER_BLOCK])
			p->bmax[i / PER_BLOCK] = v[i] + 1;
	}
	lw_sort_u64(v, N_SAMPLES);
	assert_int_equal(lw_dist_from_sorted(&p->d, v, N_SAMPLES), 0);
	free(v);
}

static const char *verdict_of(const json_t *doc, const char *name)
{
	const json_t *ms = json_object_get(json_array_get(json_object_get(doc, "comparisons"), 0),
					   "metrics"), *m;
	size_t i;

	json_array_foreach(ms, i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), name))
			return json_string_value(json_object_get(m, "verdict"));
	fail_msg("no metric %s", name);
	return NULL;
}

static double p_of(const json_t *doc, const char *name)
{
	const json_t *ms = json_object_get(json_array_get(json_object_get(doc, "comparisons"), 0),
					   "metrics"), *m;
	size_t i;

	json_array_foreach(ms, i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), name))
			return json_number_value(json_object_get(m, "p"));
	return NAN;
}

static void opts(struct lw_cmp_opts *o)
{
	lw_cmp_opts_default(o);
	o->resamples = 500;		/* enough for a 95 % interval; keeps 400 trials fast */
	o->block_ns = 100000000;	/* 100 ms: 99 blocks of 200 samples */
	lw_cmp_add_threshold(o, 50000);
	lw_cmp_add_threshold(o, 100000);
}

static void test_same_distribution(void **st)
{
	static const char *const names[] = { "cyclic.p50", "cyclic.p90", "cyclic.p99",
		"cyclic.p99.9", "cyclic.mean", "cyclic.blockmax", "cyclic.worst",
		"cyclic.distribution", "cyclic.over:50us", "cyclic.over:100us" };
	const size_t nn = sizeof(names) / sizeof(names[0]);
	int called[sizeof(names) / sizeof(names[0])] = { 0 }, any = 0, mwu_rejects = 0;
	struct lw_cmp_opts o;

	opts(&o);
	for (int t = 0; t < 2 * TRIALS; t++) {
		struct lw_crun runs[2];
		struct lw_rng r;
		char la[32], lb[32];
		json_t *doc;
		int some = 0;

		lw_rng_seed(&r, 1000 + (uint64_t)t);
		snprintf(la, sizeof(la), "a%d", t);
		snprintf(lb, sizeof(lb), "b%d", t);
		make_run(&runs[0], la, t < TRIALS ? LOGNORMAL : GAMMA, 1.0, &r);
		make_run(&runs[1], lb, t < TRIALS ? LOGNORMAL : GAMMA, 1.0, &r);
		o.seed = (uint64_t)t;
		doc = lw_compare(runs, 2, 0, &o);
		assert_non_null(doc);
		for (size_t k = 0; k < nn; k++) {
			const char *v = verdict_of(doc, names[k]);

			if (!strcmp(v, LW_BETTER) || !strcmp(v, LW_WORSE)) {
				called[k]++;
				some = 1;
			}
		}
		any += some;
		mwu_rejects += p_of(doc, "cyclic.distribution") < 0.05;
		json_decref(doc);
		lw_crun_free(&runs[0]);
		lw_crun_free(&runs[1]);
	}
	for (size_t k = 0; k < nn; k++)
		print_message("  %s: %d\n", names[k], called[k]);
	print_message("same distribution, %d trials: a verdict on any metric in %d;"
		      " Mann-Whitney p < 0.05 in %d\n", 2 * TRIALS, any, mwu_rejects);
	for (size_t k = 0; k < nn; k++)
		if (called[k] > 2 * TRIALS / 20)
			fail_msg("%s: a verdict in %d of %d trials of one distribution", names[k],
				 called[k], 2 * TRIALS);
	/* "no significant difference" overall in at least 95 % of the trials */
	assert_true(any <= 2 * TRIALS / 20);
	/* the test is not merely insensitive: it rejects at about its level
	 * (binomial(200, 0.05): 1..20 holds with probability > 0.999) */
	assert_in_range(mwu_rejects, 1, 20);
}

static void test_shift_detected(void **st)
{
	int p99_worse = 0, p50_worse = 0;
	struct lw_cmp_opts o;

	opts(&o);
	for (int t = 0; t < 2 * TRIALS; t++) {
		struct lw_crun runs[2];
		struct lw_rng r;
		char la[32], lb[32];
		json_t *doc;

		lw_rng_seed(&r, 5000 + (uint64_t)t);
		snprintf(la, sizeof(la), "a%d", t);
		snprintf(lb, sizeof(lb), "b%d", t);
		make_run(&runs[0], la, t < TRIALS ? LOGNORMAL : GAMMA, 1.0, &r);
		make_run(&runs[1], lb, t < TRIALS ? LOGNORMAL : GAMMA, 1.10, &r);
		o.seed = (uint64_t)t;
		doc = lw_compare(runs, 2, 0, &o);
		assert_non_null(doc);
		p99_worse += !strcmp(verdict_of(doc, "cyclic.p99"), LW_WORSE);
		p50_worse += !strcmp(verdict_of(doc, "cyclic.p50"), LW_WORSE);
		/* never the wrong way */
		assert_string_not_equal(verdict_of(doc, "cyclic.p99"), LW_BETTER);
		json_decref(doc);
		lw_crun_free(&runs[0]);
		lw_crun_free(&runs[1]);
	}
	print_message("10%% shift, %d trials: p99 worse in %d, p50 worse in %d\n", 2 * TRIALS,
		      p99_worse, p50_worse);
	assert_true(p99_worse >= 2 * TRIALS * 95 / 100);
	assert_true(p50_worse >= 2 * TRIALS * 95 / 100);
}

static void test_document(void **st)
{
	struct lw_crun runs[3];
	struct lw_cmp_opts o;
	struct lw_rng r;
	json_t *doc, *run0, *c, *m;
	size_t i;

	opts(&o);
	lw_rng_seed(&r, 3);
	make_run(&runs[0], "base", LOGNORMAL, 1.0, &r);
	make_run(&runs[1], "slow", LOGNORMAL, 1.5, &r);
	make_run(&runs[2], "fast", LOGNORMAL, 0.6, &r);
	/* the slow run records workloads; the baseline does not */
	json_object_set_new(runs[1].manifest, "workloads",
			    json_pack("{s:{s:s, s:i, s:i}}", "audio", "kind", "audio", "xruns", 3,
				      "periods", 1000));
	/* power, idle and causes as analyze and the attribution write them */
	for (i = 0; i < 2; i++)
		runs[i].analysis = json_pack("{s:{s:s, s:{s:f, s:f}}, s:{s:[{s:[{s:s, s:f}, {s:s, s:f}],"
			" s:f}, {s:[{s:s, s:f}], s:f}]}, s:{s:[{s:s, s:f}, {s:s, s:f}]}}",
			"power", "kind", "measured", "total", "average_w", i ? 2.5 : 2.0, "energy_j", 20.0,
			"idle", "cpus", "states", "name", "POLL", "residency", 0.1, "name", "C1",
			"residency", 0.5, "active", 0.4, "states", "name", "C1", "residency", 0.7,
			"active", 0.3,
			"spikes", "causes", "cause", "irq:eth0", "share", i ? 0.5 : 0.25,
			"cause", "softirq:TIMER", "share", 0.75);
	doc = lw_compare(runs, 3, 0, &o);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")), "latwatt-comparison");
	{
		json_t *r0 = json_array_get(json_object_get(doc, "runs"), 0);

		assert_float_equal(json_number_value(json_object_get(json_object_get(r0, "power"), "mean_w")),
				   2.0, 1e-12);
		assert_float_equal(json_number_value(json_object_get(json_object_get(r0, "idle"), "C1")),
				   0.6, 1e-12);
		assert_float_equal(json_number_value(json_object_get(json_object_get(r0, "idle"), "POLL")),
				   0.05, 1e-12);
		assert_float_equal(json_number_value(json_object_get(json_object_get(r0, "idle"), "active")),
				   0.35, 1e-12);
		assert_float_equal(json_number_value(json_object_get(json_object_get(r0, "causes"),
				   "irq:eth0")), 0.25, 1e-12);
		/* the third run has none of them */
		assert_true(json_is_null(json_object_get(json_array_get(json_object_get(doc, "runs"), 2),
							 "power")));
	}
	assert_int_equal(json_integer_value(json_object_get(doc, "version")), 1);
	assert_int_equal(json_array_size(json_object_get(doc, "runs")), 3);
	assert_int_equal(json_array_size(json_object_get(doc, "comparisons")), 2);
	run0 = json_array_get(json_object_get(doc, "runs"), 0);
	assert_string_equal(json_string_value(json_object_get(run0, "kernel_release")), "6.1.0-test");
	assert_true(json_is_null(json_object_get(run0, "nohz_full")));
	assert_true(json_is_true(json_object_get(json_object_get(json_object_get(
		json_object_get(run0, "probes"), "cyclic"), "worst_case"), "estimated")));
	assert_string_equal(verdict_of(doc, "cyclic.p99"), LW_WORSE);
	assert_string_equal(verdict_of(doc, "cyclic.distribution"), LW_WORSE);
	assert_string_equal(verdict_of(doc, "xruns"), LW_NA);
	assert_string_equal(verdict_of(doc, "power"), LW_NA);	/* one average: not tested */
	assert_string_equal(verdict_of(doc, "idle:C1"), LW_NA);
	assert_string_equal(verdict_of(doc, "cause:irq:eth0"), LW_NA);
	{
		const json_t *ms = json_object_get(json_array_get(json_object_get(doc, "comparisons"), 0),
						   "metrics"), *mm;
		size_t k;
		int seen = 0;

		json_array_foreach(ms, k, mm) {
			const char *nm = json_string_value(json_object_get(mm, "name"));

			if (!strcmp(nm, "power")) {
				assert_float_equal(json_number_value(json_object_get(mm, "rel")), 0.25, 1e-12);
				seen++;
			} else if (!strcmp(nm, "cause:irq:eth0")) {
				assert_float_equal(json_number_value(json_object_get(mm, "value")), 0.5, 1e-12);
				seen++;
			}
		}
		assert_int_equal(seen, 2);
	}
	c = json_array_get(json_object_get(doc, "comparisons"), 1);
	assert_int_equal(json_integer_value(json_object_get(c, "run")), 2);
	json_array_foreach(json_object_get(c, "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), "cyclic.p99"))
			assert_string_equal(json_string_value(json_object_get(m, "verdict")), LW_BETTER);
	/* the table prints from the document */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		lw_compare_print(doc, f);
		fclose(f);
		assert_non_null(strstr(buf, "B vs A: probe cyclic"));
		assert_non_null(strstr(buf, "C vs A: probe cyclic"));
		assert_non_null(strstr(buf, "  xruns "));
		free(buf);
	}
	json_decref(doc);
	/* too few blocks: the worst case is refused and says why */
	o.block_ns = 1000000000;	/* 10 blocks of 1 s */
	doc = lw_compare(runs, 2, 0, &o);
	run0 = json_array_get(json_object_get(doc, "runs"), 0);
	m = json_object_get(json_object_get(json_object_get(run0, "probes"), "cyclic"), "worst_case");
	assert_true(json_is_false(json_object_get(m, "estimated")));
	assert_non_null(strstr(json_string_value(json_object_get(m, "reason")),
			       "9 blocks: at least 30 are needed to extrapolate"));
	assert_string_equal(verdict_of(doc, "cyclic.worst"), LW_NA);
	json_decref(doc);
	for (i = 0; i < 3; i++)
		lw_crun_free(&runs[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_distribution),
		cmocka_unit_test(test_shift_detected),
		cmocka_unit_test(test_document),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
