// SPDX-License-Identifier: GPL-2.0-only
/* Bisection on planted truths: a first bad version among simulated ones,
 * judged by a judge that is sure, one that needs runs before it sees the
 * change and makes false alarms, and endpoints that do not differ. */
#include "tests/unit/lw_test.h"

#include "analysis/bisect.h"
#include "analysis/teststat.h"

#define NV 12

struct sim {
	size_t first_bad;		/* planted: versions >= this are worse */
	size_t second_bad;		/* a second, later step (NV: none) */
	unsigned runs[NV];
	unsigned char cannot_run[NV];	/* versions whose runs all fail */
	unsigned tried[NV];		/* ensure_runs calls of each */
	unsigned total_runs, judgements;
	double detect_per_run;		/* chance that one run's worth of evidence shows a real change */
	double false_alarm;		/* chance of "worse" without a change */
	struct lw_rng rng;
	int noisy;
};

static int level(const struct sim *s, size_t v)
{
	return (v >= s->first_bad) + (v >= s->second_bad);
}

static int sim_ensure(void *ctx, size_t v, unsigned n)
{
	struct sim *s = ctx;

	s->tried[v]++;
	if (s->cannot_run[v])
		return LW_BISECT_CANNOT_RUN;
	while (s->runs[v] < n) {
		s->runs[v]++;
		s->total_runs++;
	}
	return (int)s->runs[v];
}

static int sim_judge(void *ctx, size_t base, size_t v, int *worse)
{
	struct sim *s = ctx;
	unsigned n = s->runs[base] < s->runs[v] ? s->runs[base] : s->runs[v];

	s->judgements++;
	if (!s->noisy) {
		*worse = level(s, v) > level(s, base);
		return 0;
	}
	if (level(s, v) > level(s, base)) {
		/* power grows with the runs of the smaller side */
		double miss = 1;

		for (unsigned i = 0; i < n; i++)
			miss *= 1 - s->detect_per_run;
		*worse = lw_rng_uniform(&s->rng) >= miss;
	} else {
		*worse = lw_rng_uniform(&s->rng) < s->false_alarm;
	}
	return 0;
}

static const struct lw_bisect_ops sim_ops = { sim_ensure, sim_judge };

static void test_classify(void **st)
{
	assert_int_equal(lw_bisect_classify(1, 0), LW_BISECT_LIKE_BAD);
	assert_int_equal(lw_bisect_classify(0, 1), LW_BISECT_LIKE_GOOD);
	assert_int_equal(lw_bisect_classify(0, 0), LW_BISECT_UNSURE);
	assert_int_equal(lw_bisect_classify(1, 1), LW_BISECT_UNSURE);
	assert_string_equal(lw_bisect_class_name(LW_BISECT_UNSURE), "cannot tell");
}

/* A judge that is always right: every planted position is found in
 * ceil(log2) steps with the first runs only. */
static void test_sure_judge(void **st)
{
	for (size_t fb = 1; fb < NV; fb++) {
		struct sim s = { .first_bad = fb, .second_bad = NV };
		struct lw_bisect_result r;

		assert_int_equal(lw_bisect(NV, 0, NV - 1, 3, 9, &sim_ops, &s, &r), 0);
		assert_int_equal(r.status, LW_BISECT_FOUND);
		assert_int_equal(r.first_bad, fb);
		assert_int_equal(r.last_good, fb - 1);
		assert_true(r.nsteps <= 4);		/* log2(11) rounded up */
		for (size_t i = 0; i < r.nsteps; i++)
			assert_int_equal(r.steps[i].runs, 3);
		assert_int_equal(r.confirmed_runs, 3);
		assert_int_equal(s.total_runs, 3 * (2 + r.nsteps));
	}
}

/* Endpoints that do not differ: repeats up to the limit, then the finding. */
static void test_no_difference(void **st)
{
	struct sim s = { .first_bad = NV, .second_bad = NV };
	struct lw_bisect_result r;

	assert_int_equal(lw_bisect(NV, 2, 9, 3, 6, &sim_ops, &s, &r), 0);
	assert_int_equal(r.status, LW_BISECT_NO_DIFFERENCE);
	assert_int_equal(r.endpoint_runs, 6);	/* looks at 3 and 6 */
	assert_int_equal(r.nsteps, 0);
	assert_int_equal(s.runs[2], 6);
	assert_int_equal(s.runs[9], 6);
}

/* Two changes: the middle version is worse than good and better than bad;
 * the search says it cannot tell there rather than pick a side. */
static void test_two_changes_undecided(void **st)
{
	struct sim s = { .first_bad = 4, .second_bad = 8 };
	struct lw_bisect_result r;

	assert_int_equal(lw_bisect(NV, 0, NV - 1, 3, 5, &sim_ops, &s, &r), 0);
	assert_int_equal(r.status, LW_BISECT_UNDECIDED);
	assert_int_equal(r.undecided, 5);
	assert_int_equal(r.steps[0].runs, 5);
}

/* A noisy judge: needs runs to see the change (35 % a run), false alarms
 * at 5 % a look.  Over 300 planted positions the first bad version is named
 * at least 80 % of the time; a wrong version at most 1 % (the rest: the
 * search says it could not decide, which is no harm). */
static void test_noisy_judge(void **st)
{
	unsigned found_right = 0, found_wrong = 0, trials = 300, runs = 0;

	for (unsigned t = 0; t < trials; t++) {
		struct sim s = { .second_bad = NV, .detect_per_run = 0.35, .false_alarm = 0.05,
				 .noisy = 1 };
		struct lw_bisect_result r;

		lw_rng_seed(&s.rng, 1000 + t);
		s.first_bad = 1 + t % (NV - 1);
		assert_int_equal(lw_bisect(NV, 0, NV - 1, 3, 12, &sim_ops, &s, &r), 0);
		lw_rng_free(&s.rng);
		runs += s.total_runs;
		if (r.status != LW_BISECT_FOUND)
			continue;
		if (r.first_bad == s.first_bad)
			found_right++;
		else
			found_wrong++;
	}
	print_message("noisy judge: %u of %u right, %u wrong, %.1f runs a bisect\n",
		      found_right, trials, found_wrong, (double)runs / trials);
	assert_true(found_right >= 0.80 * trials);
	assert_true(found_wrong <= 0.01 * trials);
}

/* A version that gives no result is skipped, never good or bad: the
 * nearest other one is tried, and the first bad is still found; with only
 * skipped versions left between the ends the search says so. */
static void test_skipped(void **st)
{
	for (size_t fb = 1; fb < NV; fb++)
		for (size_t sk = 1; sk < NV - 1; sk++) {
			struct sim s = { .first_bad = fb, .second_bad = NV };
			struct lw_bisect_result r;

			s.cannot_run[sk] = 1;
			assert_int_equal(lw_bisect(NV, 0, NV - 1, 3, 9, &sim_ops, &s, &r), 0);
			assert_int_equal(s.runs[sk], 0);
			assert_true(s.tried[sk] <= 1);
			if (sk == fb || sk + 1 == fb) {
				/* the first bad or the last good gives no result: which
				 * is first cannot be told, and that is said */
				assert_int_equal(r.status, LW_BISECT_ONLY_SKIPPED);
				assert_int_equal(r.last_good, sk - 1);
				assert_int_equal(r.first_bad, sk + 1);
				continue;
			}
			assert_int_equal(r.status, LW_BISECT_FOUND);
			assert_int_equal(r.first_bad, fb);
			for (size_t i = 0; i < r.nsteps; i++)
				if (r.steps[i].version == sk)
					assert_int_equal(r.steps[i].cls, LW_BISECT_SKIPPED);
		}
	{
		struct sim s = { .first_bad = 5, .second_bad = NV };
		struct lw_bisect_result r;

		s.cannot_run[0] = 1;
		assert_error(lw_bisect(NV, 0, NV - 1, 3, 9, &sim_ops, &s, &r) < 0, "good end");
	}
	assert_string_equal(lw_bisect_class_name(LW_BISECT_SKIPPED), "skipped (no result)");
}

static void test_bad_arguments(void **st)
{
	struct sim s = { .first_bad = 3, .second_bad = NV };
	struct lw_bisect_result r;

	assert_error(lw_bisect(NV, 5, 5, 3, 9, &sim_ops, &s, &r) < 0, "must come before");
	assert_error(lw_bisect(NV, 0, NV, 3, 9, &sim_ops, &s, &r) < 0, "must come before");
	assert_error(lw_bisect(NV, 0, 4, 3, 2, &sim_ops, &s, &r) < 0, "at most the limit");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_sure_judge),
		cmocka_unit_test(test_no_difference),
		cmocka_unit_test(test_two_changes_undecided),
		cmocka_unit_test(test_noisy_judge),
		cmocka_unit_test(test_skipped),
		cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
