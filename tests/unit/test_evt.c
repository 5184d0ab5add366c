// SPDX-License-Identifier: GPL-2.0-only
/* Extreme-value fits recover the parameters of samples drawn from known
 * Gumbel and GEV distributions; too few blocks are refused. */
#include "tests/unit/lw_test.h"

#include <math.h>

#include "analysis/evt.h"

/* Inverse CDF: Gumbel z = loc - scale ln(-ln U); GEV z = loc + scale ((-ln U)^-shape - 1) / shape */
static void draw(double *x, size_t n, double loc, double scale, double shape, uint64_t seed)
{
	struct lw_rng r;

	lw_rng_seed(&r, seed);
	for (size_t i = 0; i < n; i++) {
		double y = -log(lw_rng_uniform(&r));

		x[i] = shape == 0 ? loc - scale * log(y) : loc + scale * (pow(y, -shape) - 1) / shape;
	}
	lw_rng_free(&r);
}

static void test_formulas(void **st)
{
	struct lw_evt_fit g = { LW_EVT_GUMBEL, 0, 1, 0 }, f = { LW_EVT_GEV, 10, 2, 0.5 };

	/* -ln(-ln 0.99) = 4.600149226776579 */
	assert_float_equal(lw_evt_return_level(&g, 100), 4.600149226776579, 1e-9);
	assert_float_equal(lw_evt_quantile(&g, 0.99), 4.600149226776579, 1e-9);
	/* GEV: 10 + 2 ((-ln 0.99)^-0.5 - 1) / 0.5 = 10 + 4 (9.9749 - 1) */
	assert_float_equal(lw_evt_quantile(&f, 0.99), 10 + 4 * (pow(-log(0.99), -0.5) - 1), 1e-9);
	assert_int_equal(lw_evt_model_by_name("gumbel"), LW_EVT_GUMBEL);
	assert_int_equal(lw_evt_model_by_name("gev"), LW_EVT_GEV);
	assert_int_equal(lw_evt_model_by_name("weibull"), -1);
}

/*
 * Gumbel(100, 10), 1000 maxima.  Standard errors of the ML estimates are
 * about 1.05 scale / sqrt(n) = 0.33 (loc) and 0.78 scale / sqrt(n) = 0.25
 * (scale); the tolerances are four of them, over ten seeds.
 */
static void test_gumbel_ml_recovers(void **st)
{
	double x[1000];

	for (uint64_t seed = 1; seed <= 10; seed++) {
		struct lw_evt_fit f;

		draw(x, 1000, 100, 10, 0, seed);
		assert_int_equal(lw_evt_fit_gumbel_ml(x, 1000, &f), 0);
		assert_int_equal(f.model, LW_EVT_GUMBEL);
		assert_float_equal(f.loc, 100, 1.4);
		assert_float_equal(f.scale, 10, 1.0);
		assert_float_equal(f.shape, 0, 0);
	}
}

/* The same samples through the GEV by PWM: shape near 0 (SE about 0.03 at
 * n = 1000), loc and scale as above but looser. */
static void test_gev_pwm_on_gumbel(void **st)
{
	double x[1000];

	for (uint64_t seed = 1; seed <= 10; seed++) {
		struct lw_evt_fit f;

		draw(x, 1000, 100, 10, 0, seed);
		assert_int_equal(lw_evt_fit_gev_pwm(x, 1000, &f), 0);
		assert_float_equal(f.shape, 0, 0.1);
		assert_float_equal(f.loc, 100, 1.5);
		assert_float_equal(f.scale, 10, 1.2);
	}
}

/* A heavy tail (shape 0.2) and a bounded one (-0.2) are recognised. */
static void test_gev_pwm_shapes(void **st)
{
	static double x[4000];
	struct lw_evt_fit f;

	draw(x, 4000, 50, 5, 0.2, 3);
	assert_int_equal(lw_evt_fit_gev_pwm(x, 4000, &f), 0);
	assert_float_equal(f.shape, 0.2, 0.06);
	assert_float_equal(f.loc, 50, 0.5);
	assert_float_equal(f.scale, 5, 0.4);
	draw(x, 4000, 50, 5, -0.2, 4);
	assert_int_equal(lw_evt_fit_gev_pwm(x, 4000, &f), 0);
	assert_float_equal(f.shape, -0.2, 0.06);
}

/* The return level for 1000 blocks of Gumbel(100, 10) is
 * 100 + 10 (-ln(-ln(0.999))) = 169.0726; the estimate from 200 blocks
 * lands near it and its bootstrap interval covers it in most seeds. */
static void test_return_level_and_interval(void **st)
{
	double x[200];
	int covered = 0;

	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct lw_evt_est e;
		struct lw_rng r;

		draw(x, 200, 100, 10, 0, seed + 100);
		lw_rng_seed(&r, seed);
		assert_int_equal(lw_evt_estimate(x, 200, LW_EVT_GUMBEL, 1000, 500, 0.95, 30, &r, &e), 0);
		assert_true(e.ok);
		assert_float_equal(e.level, 169.07255070523718, 169.07 * 0.08);
		assert_true(e.lo < e.level && e.level < e.hi);
		covered += e.lo <= 169.07255070523718 && 169.07255070523718 <= e.hi;
		assert_int_equal(e.nboot, 500);
		lw_evt_est_free(&e);
		lw_rng_free(&r);
	}
	/* 95 % intervals: at least 16 of 20 (binomial: P(X < 16) < 0.02) */
	assert_true(covered >= 16);
}

static void test_refuses(void **st)
{
	double x[29];
	struct lw_evt_est e;
	struct lw_rng r;

	draw(x, 29, 100, 10, 0, 1);
	lw_rng_seed(&r, 1);
	assert_int_equal(lw_evt_estimate(x, 29, LW_EVT_GEV, 3600, 200, 0.95, 30, &r, &e), 0);
	assert_false(e.ok);
	assert_non_null(strstr(e.reason, "29 blocks: at least 30 are needed to extrapolate"));
	lw_evt_est_free(&e);
	/* constant maxima cannot be fitted: refused with the reason */
	for (int i = 0; i < 29; i++)
		x[i] = 5;
	assert_int_equal(lw_evt_estimate(x, 29, LW_EVT_GEV, 3600, 200, 0.95, 10, &r, &e), 0);
	assert_false(e.ok);
	assert_non_null(strstr(e.reason, "do not vary"));
	lw_evt_est_free(&e);
	assert_error(lw_evt_fit_gumbel_ml(x, 2, &(struct lw_evt_fit){ 0 }) < 0, "at least 3");
	lw_rng_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formulas),
		cmocka_unit_test(test_gumbel_ml_recovers),
		cmocka_unit_test(test_gev_pwm_on_gumbel),
		cmocka_unit_test(test_gev_pwm_shapes),
		cmocka_unit_test(test_return_level_and_interval),
		cmocka_unit_test(test_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
