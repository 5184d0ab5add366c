// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two-sample statistics against hand-computed values: Mann-Whitney U with
 * ties (the values scipy.stats.mannwhitneyu(method="asymptotic") gives,
 * derived by hand below), the exact rate test, the bootstrap of percentiles
 * against brute-force resampling, distributions from histograms.
 */
#include "tests/unit/lw_test.h"

#include <math.h>

#include "analysis/teststat.h"

static void dist_of(struct lw_dist *d, const uint64_t *v, size_t n)
{
	uint64_t *s = malloc(n * sizeof(*s));

	memcpy(s, v, n * sizeof(*s));
	lw_sort_u64(s, n);
	assert_int_equal(lw_dist_from_sorted(d, s, n), 0);
	free(s);
}

/*
 * A = {1, 2, 2, 4}, B = {2, 3, 5}.
 * U_B = #(b > a) + #(b = a)/2: b=2: 1 + 2/2 = 2; b=3: 3; b=5: 4; U_B = 9,
 * U_A = 12 - 9 = 3.  One tie group of t = 3 (the value 2): sum t^3 - t = 24.
 * var = na nb / 12 ((N + 1) - 24 / (N (N - 1))) = 8 - 24/42 = 7.4285714,
 * sd = 2.7255406; z = (|9 - 6| - 0.5) / sd = 0.9172492;
 * p = erfc(z / sqrt 2) = 0.3590121.  Cliff's delta 2 * 9/12 - 1 = 0.5.
 */
static void test_mwu_small_with_ties(void **st)
{
	static const uint64_t a[] = { 1, 2, 2, 4 }, b[] = { 2, 3, 5 };
	struct lw_dist da, db;
	struct lw_mwu u;

	dist_of(&da, a, 4);
	dist_of(&db, b, 3);
	assert_int_equal(lw_mwu(&da, &db, &u), 0);
	assert_float_equal(u.u_b, 9, 1e-12);
	assert_float_equal(u.u_a, 3, 1e-12);
	assert_float_equal(u.ties, 24, 1e-12);
	assert_float_equal(u.sd * u.sd, 7.428571428571429, 1e-9);
	assert_float_equal(u.z, 0.9172492321316785, 1e-9);
	assert_float_equal(u.p, 0.3590120537864295, 1e-9);
	assert_float_equal(u.cliffs_delta, 0.5, 1e-12);
	assert_float_equal(u.ps, 0.75, 1e-12);
	/* swapped: the same p, the opposite sign */
	assert_int_equal(lw_mwu(&db, &da, &u), 0);
	assert_float_equal(u.u_b, 3, 1e-12);
	assert_float_equal(u.z, -0.9172492321316785, 1e-9);
	assert_float_equal(u.p, 0.3590120537864295, 1e-9);
	assert_float_equal(u.cliffs_delta, -0.5, 1e-12);
	lw_dist_free(&da);
	lw_dist_free(&db);
}

/*
 * A = 1..10, B = 6..15: b = 6..10 beat 5..9 values of A and tie with one
 * each, b = 11..15 beat all ten: U_B = (5+6+7+8+9) + 5 * 0.5 + 50 = 87.5.
 * Five tie groups of two: sum t^3 - t = 30.
 * var = 100/12 (21 - 30/380) = 174.3421053, sd = 13.2038671,
 * z = (37.5 - 0.5) / sd = 2.8022094, p = 0.0050754.
 */
static void test_mwu_shifted(void **st)
{
	uint64_t a[10], b[10];
	struct lw_dist da, db;
	struct lw_mwu u;

	for (int i = 0; i < 10; i++) {
		a[i] = (uint64_t)(1 + i) * 1000;
		b[i] = (uint64_t)(6 + i) * 1000;
	}
	dist_of(&da, a, 10);
	dist_of(&db, b, 10);
	assert_int_equal(lw_mwu(&da, &db, &u), 0);
	assert_float_equal(u.u_b, 87.5, 1e-12);
	assert_float_equal(u.ties, 30, 1e-12);
	assert_float_equal(u.sd * u.sd, 174.34210526315792, 1e-8);
	assert_float_equal(u.z, 2.8022093709233373, 1e-9);
	assert_float_equal(u.p, 0.005075392315273926, 1e-10);
	lw_dist_free(&da);
	lw_dist_free(&db);
}

static void test_mwu_all_equal(void **st)
{
	static const uint64_t a[] = { 7, 7, 7 }, b[] = { 7, 7 };
	struct lw_dist da, db;
	struct lw_mwu u;

	dist_of(&da, a, 3);
	dist_of(&db, b, 2);
	assert_int_equal(lw_mwu(&da, &db, &u), 0);
	assert_float_equal(u.p, 1, 0);
	assert_float_equal(u.cliffs_delta, 0, 0);
	lw_dist_free(&da);
	lw_dist_free(&db);
}

/* Exact rate test, by hand: x = 5 events all in B, equal exposure:
 * P(j) = C(5, j) / 32; outcomes as unlikely as j = 5 are j = 0 and 5: p = 2/32.
 * x = 12, xb = 10: C(12,10) = 66; j in {0,1,2,10,11,12}: (1+12+66) 2 / 4096. */
static void test_rate_test(void **st)
{
	assert_float_equal(lw_rate_test(0, 1000, 5, 1000), 0.0625, 1e-12);
	assert_float_equal(lw_rate_test(2, 1000, 10, 1000), 158.0 / 4096, 1e-12);
	assert_float_equal(lw_rate_test(0, 1000, 0, 1000), 1, 0);
	/* unequal exposure: 3 in 1000 vs 6 in 2000 is the same rate */
	assert_true(lw_rate_test(3, 1000, 6, 2000) > 0.99);
	/* above 10000 events the normal approximation, with continuity
	 * correction: x = 20500, mean 10250, sd sqrt(20500/4) = 71.589;
	 * z = (250 - 0.5) / 71.589 = 3.4851672, p = 0.00049183 */
	assert_float_equal(lw_rate_test(10000, 1000000, 10500, 1000000), 0.0004918296547921499, 1e-10);
}

static void test_normal(void **st)
{
	assert_float_equal(lw_normal_quantile(0.975), 1.959963984540054, 1e-9);
	assert_float_equal(lw_normal_quantile(0.5), 0, 1e-12);
	assert_float_equal(lw_normal_quantile(1e-6), -4.753424308822899, 1e-8);
	assert_float_equal(lw_normal_p2(1.959963984540054), 0.05, 1e-12);
}

/* The order-statistic bootstrap draws percentiles with the law of a full
 * resample: compare with resampling 20 values 20000 times. */
static void test_boot_percentile_matches_resampling(void **st)
{
	uint64_t v[20], rs[20];
	struct lw_dist d;
	struct lw_rng r1, r2;
	double f1[21] = { 0 }, f2[21] = { 0 };
	const int N = 20000;

	for (int i = 0; i < 20; i++)
		v[i] = (uint64_t)(i + 1) * 10;
	dist_of(&d, v, 20);
	lw_rng_seed(&r1, 7);
	lw_rng_seed(&r2, 8);
	for (int t = 0; t < N; t++) {
		f1[lw_boot_percentile(&d, 90, &r1) / 10] += 1.0 / N;
		for (int i = 0; i < 20; i++)
			rs[i] = v[lw_rng_next(&r2) % 20];
		lw_sort_u64(rs, 20);
		f2[lw_percentile_sorted(rs, 20, 90) / 10] += 1.0 / N;
	}
	for (int i = 1; i <= 20; i++)
		if (fabs(f1[i] - f2[i]) > 0.015)
			fail_msg("rank %d: order statistics %.4f, resampling %.4f", i, f1[i], f2[i]);
	lw_dist_free(&d);
	lw_rng_free(&r1);
	lw_rng_free(&r2);
}

static void test_dist_queries(void **st)
{
	static const uint64_t v[] = { 5, 1, 3, 3, 9, 3 };
	struct lw_dist d;

	dist_of(&d, v, 6);
	assert_int_equal(d.k, 4);
	assert_int_equal(d.n, 6);
	assert_int_equal(lw_dist_at_rank(&d, 1), 1);
	assert_int_equal(lw_dist_at_rank(&d, 2), 3);
	assert_int_equal(lw_dist_at_rank(&d, 4), 3);
	assert_int_equal(lw_dist_at_rank(&d, 5), 5);
	assert_int_equal(lw_dist_percentile(&d, 50), 3);
	assert_int_equal(lw_dist_percentile(&d, 100), 9);
	assert_int_equal(lw_dist_count_above(&d, 3), 2);
	assert_int_equal(lw_dist_count_above(&d, 0), 6);
	assert_int_equal(lw_dist_count_above(&d, 9), 0);
	assert_float_equal(lw_dist_mean(&d), 4, 1e-12);
	assert_float_equal(lw_dist_var(&d), 7.6, 1e-9);	/* (9+1+1+1+25+1)/5 */
	lw_dist_free(&d);
}

static void test_dist_from_hist(void **st)
{
	struct lw_hist h;
	struct lw_dist d;

	assert_int_equal(lw_hist_init(&h, 1000, 10), 0);
	lw_hist_add(&h, 1500, 0);
	lw_hist_add(&h, 1700, 1);
	lw_hist_add(&h, 4200, 2);
	lw_hist_add(&h, 25000, 3);	/* overflow */
	assert_int_equal(lw_dist_from_hist(&d, &h), 0);
	assert_int_equal(d.n, 4);
	assert_int_equal(d.k, 3);
	assert_false(d.exact);
	assert_int_equal(d.resolution_ns, 1000);
	assert_int_equal(lw_dist_at_rank(&d, 2), 1999);	/* upper edge */
	assert_int_equal(lw_dist_at_rank(&d, 3), 4999);
	assert_int_equal(lw_dist_at_rank(&d, 4), 25000);	/* the overflow at its max */
	assert_float_equal(lw_dist_mean(&d), (1500 + 1700 + 4200 + 25000) / 4.0, 1e-9);
	lw_dist_free(&d);
	lw_hist_free(&h);
}

static void test_rng_reproducible(void **st)
{
	struct lw_rng a, b, c;
	double sum = 0, sq = 0;

	lw_rng_stream(&a, 1, 2, 3, 4);
	lw_rng_stream(&b, 1, 2, 3, 4);
	lw_rng_stream(&c, 1, 2, 3, 5);
	assert_int_equal(lw_rng_next(&a), lw_rng_next(&b));
	assert_int_not_equal(lw_rng_next(&a), lw_rng_next(&c));
	/* gamma(3): mean 3, variance 3 */
	for (int i = 0; i < 100000; i++) {
		double g = lw_rng_gamma(&a, 3);
		sum += g;
		sq += g * g;
	}
	assert_float_equal(sum / 1e5, 3, 0.03);
	assert_float_equal(sq / 1e5 - (sum / 1e5) * (sum / 1e5), 3, 0.1);
	lw_rng_free(&a);
	lw_rng_free(&b);
	lw_rng_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mwu_small_with_ties),
		cmocka_unit_test(test_mwu_shifted),
		cmocka_unit_test(test_mwu_all_equal),
		cmocka_unit_test(test_rate_test),
		cmocka_unit_test(test_normal),
		cmocka_unit_test(test_boot_percentile_matches_resampling),
		cmocka_unit_test(test_dist_queries),
		cmocka_unit_test(test_dist_from_hist),
		cmocka_unit_test(test_rng_reproducible),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
