// SPDX-License-Identifier: GPL-2.0-only
/* Histogram and percentiles against a sorted-array reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/error.h"
#include "lib/stats.h"
#include "tests/unit/lw_test.h"

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The reference: nearest rank by definition, counting. */
static uint64_t ref_percentile(const uint64_t *sorted, size_t n, double q)
{
	for (size_t i = 0; i < n; i++)
		if ((double)(i + 1) >= q / 100.0 * (double)n - 1e-9)
			return sorted[i];
	return sorted[n - 1];
}

static uint64_t rnd(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static void test_percentiles_match_reference(void **st)
{
	uint64_t seed = 42;

	for (size_t n = 1; n < 3000; n = n * 3 + 1) {
		uint64_t *v = malloc(n * sizeof(*v)), *ref = malloc(n * sizeof(*ref));
		struct lw_stats s;

		for (size_t i = 0; i < n; i++) {
			/* heavy tail: mostly small, some huge, some 64-bit */
			uint64_t r = rnd(&seed);
			v[i] = (r % 100 == 0) ? r >> 8 : r % 50000;
		}
		memcpy(ref, v, n * sizeof(*v));
		qsort(ref, n, sizeof(*ref), cmp);
		lw_stats_compute(&s, v, n);
		assert_memory_equal(v, ref, n * sizeof(*v));	/* radix sort == qsort */
		assert_int_equal(s.count, n);
		assert_int_equal(s.min, ref[0]);
		assert_int_equal(s.max, ref[n - 1]);
		for (int k = 0; k < LW_NPCT; k++)
			assert_int_equal(s.pct[k], ref_percentile(ref, n, lw_pct[k]));
		assert_true(s.exact);
		free(v);
		free(ref);
	}
}

static void test_percentile_small_cases(void **st)
{
	uint64_t v[] = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };

	assert_int_equal(lw_percentile_sorted(v, 10, 50), 50);
	assert_int_equal(lw_percentile_sorted(v, 10, 90), 90);
	assert_int_equal(lw_percentile_sorted(v, 10, 99), 100);
	assert_int_equal(lw_percentile_sorted(v, 10, 10), 10);
	assert_int_equal(lw_percentile_sorted(v, 1, 99.99), 10);
}

static void test_hist_overflow_is_counted(void **st)
{
	struct lw_hist h;
	struct lw_stats s;
	int ovf;

	assert_int_equal(lw_hist_init(&h, 1000, 100), 0);	/* 0..99us */
	for (int i = 0; i < 95; i++)
		lw_hist_add(&h, 5000 + (uint64_t)i, (uint64_t)i);
	lw_hist_add(&h, 150000, 95);		/* overflow, first at cycle 95 */
	lw_hist_add(&h, 990000, 96);		/* the largest overflow */
	lw_hist_add(&h, 120000, 97);
	lw_hist_add(&h, 99999, 98);		/* last bucket, not overflow */
	lw_hist_add(&h, 100000, 99);		/* first value past the end */
	assert_int_equal(h.total, 100);
	assert_int_equal(h.overflow, 4);
	assert_int_equal(h.overflow_max, 990000);
	assert_int_equal(h.overflow_first, 95);
	assert_int_equal(h.count[99], 1);
	assert_int_equal(h.max, 990000);
	assert_int_equal(lw_hist_percentile(&h, 50, &ovf), 5999);
	assert_false(ovf);
	assert_int_equal(lw_hist_percentile(&h, 99, &ovf), 990000);
	assert_true(ovf);
	lw_stats_from_hist(&s, &h);
	assert_false(s.exact);
	assert_int_equal(s.count, 100);
	lw_hist_free(&h);
}

static void test_hist_json_round_trip(void **st)
{
	struct lw_hist h, g;
	json_t *j;

	assert_int_equal(lw_hist_init(&h, 1000, 50), 0);
	for (uint64_t i = 0; i < 1000; i++)
		lw_hist_add(&h, i * 61, i);
	j = lw_hist_json(&h);
	assert_int_equal(lw_hist_from_json(&g, j), 0);
	assert_int_equal(g.total, h.total);
	assert_int_equal(g.overflow, h.overflow);
	assert_int_equal(g.overflow_max, h.overflow_max);
	assert_memory_equal(g.count, h.count, 50 * sizeof(uint64_t));
	/* a count that disagrees with the total is refused */
	json_object_set_new(j, "total", json_integer(5));
	lw_set_quiet(1);
	{ struct lw_hist bad; assert_int_equal(lw_hist_from_json(&bad, j), -1); }
	lw_set_quiet(0);
	json_decref(j);
	lw_hist_free(&h);
	lw_hist_free(&g);
}

/* A histogram's size is the reader's to bound, not the file's. */
static void test_hist_limit(void **st)
{
	struct lw_hist h;
	json_t *j;

	assert_error(lw_hist_init(&h, 1000, (size_t)LW_HIST_MAX_BUCKETS + 1) < 0, "more than 1000000");
	assert_int_equal(lw_hist_init(&h, 1000, 10), 0);
	lw_hist_add(&h, 2500, 0);
	j = lw_hist_json(&h);
	lw_hist_free(&h);
	json_object_set_new(j, "nbuckets", json_integer(100000000));
	assert_error(lw_hist_from_json(&h, j) < 0, "inconsistent header");
	json_decref(j);
}

static void test_hist_merge(void **st)
{
	struct lw_hist a, b;

	lw_hist_init(&a, 1000, 10);
	lw_hist_init(&b, 1000, 20);
	lw_hist_add(&a, 3000, 0);
	lw_hist_add(&b, 15000, 0);
	lw_hist_add(&b, 50000, 1);
	assert_int_equal(lw_hist_merge(&a, &b), 0);
	assert_int_equal(a.nbuckets, 20);
	assert_int_equal(a.count[3], 1);
	assert_int_equal(a.count[15], 1);
	assert_int_equal(a.overflow, 1);
	assert_int_equal(a.total, 3);
	assert_int_equal(a.max, 50000);
	lw_hist_free(&a);
	lw_hist_free(&b);
}

/* Every rank of @v by lw_rank_sel (passes over the array, as over a file)
 * equals the sorted array's, and the passes stay few. */
static void check_rank_sel(const uint64_t *v, size_t n, size_t step)
{
	uint64_t *ref = malloc(n * sizeof(*ref));
	struct lw_hist h;

	memcpy(ref, v, n * sizeof(*v));
	qsort(ref, n, sizeof(*ref), cmp);
	assert_int_equal(lw_hist_init(&h, 1000, 10000), 0);
	for (size_t i = 0; i < n; i++)
		lw_hist_add(&h, v[i], i);
	for (uint64_t r = 1; r <= n; r += step) {
		struct lw_rank_sel s;
		int passes = 0, more;

		assert_int_equal(lw_rank_sel_init(&s, &h, r), 0);
		do {
			for (size_t i = 0; i < n; i++)
				lw_rank_sel_add(&s, v[i]);
			more = lw_rank_sel_step(&s);
			assert_true(more >= 0);
			passes++;
		} while (more);
		assert_true(passes <= 8);
		assert_int_equal(s.value, ref[r - 1]);
		lw_rank_sel_free(&s);
	}
	/* and the percentiles lw_stats_compute() reports, rank for rank */
	for (int k = 0; k < LW_NPCT; k++)
		assert_int_equal(ref[lw_pct_rank_n(n, lw_pct[k]) - 1],
				 lw_percentile_sorted(ref, n, lw_pct[k]));
	lw_hist_free(&h);
	free(ref);
}

/* What a histogram cannot tell: a percentile in its overflow (a bound, not
 * the overflow's max), samples over a threshold inside a straddled bucket
 * or the overflow; the bound kept through JSON and merges. */
static void test_hist_unknowns(void **st)
{
	struct lw_hist h, w, back;
	struct lw_stats s;
	json_t *j;
	int known;

	assert_int_equal(lw_hist_init(&h, 1000, 400), 0);	/* cyclictest -h 400 */
	for (uint64_t i = 0; i < 986; i++)
		lw_hist_add(&h, 20000 + i * 100, i);
	for (uint64_t i = 0; i < 14; i++)			/* 14 beyond 400 us */
		lw_hist_add(&h, 450000 + i * 100000, 986 + i);
	lw_stats_from_hist(&s, &h);
	assert_int_equal(s.above[1], 0);			/* p90: in the buckets */
	assert_int_equal(s.above[2], 400000);			/* p99, p99.9: not known */
	assert_int_equal(s.above[3], 400000);
	assert_int_equal(s.pct[3], 0);
	assert_int_equal(s.max, 1750000);
	/* p99.99 is the 1000th of 1000: the largest sample, which is the max */
	assert_int_equal(s.above[4], 0);
	assert_int_equal(s.pct[4], 1750000);
	j = lw_stats_json(&s);
	assert_true(json_is_null(json_object_get(j, "p99.9_ns")));
	assert_int_equal(json_integer_value(json_object_get(j, "p99.9_above_ns")), 400000);
	assert_null(json_object_get(j, "p90_above_ns"));
	assert_int_equal(json_integer_value(json_object_get(j, "p90_ns")), 109999);
	json_decref(j);
	assert_int_equal(lw_hist_count_above(&h, 200000, &known), 14);
	assert_true(known);
	assert_int_equal(lw_hist_count_above(&h, 150500, &known), 14);	/* an empty bucket */
	assert_true(known);
	assert_int_equal(lw_hist_count_above(&h, 50050, &known), 14 + 676);
	assert_false(known);					/* 50 us holds samples */
	assert_int_equal(lw_hist_count_above(&h, 1000000, &known), 1);	/* the max, surely */
	assert_false(known);
	assert_int_equal(lw_hist_count_above(&h, 2000000, &known), 0);
	assert_true(known);
	/* kept through JSON, and a merge into a wider one keeps the lower bound */
	j = lw_hist_json(&h);
	assert_int_equal(lw_hist_from_json(&back, j), 0);
	json_decref(j);
	assert_int_equal(back.overflow_from, 400000);
	assert_int_equal(lw_hist_init(&w, 1000, 1000), 0);
	lw_hist_add(&w, 5000, 0);
	assert_int_equal(lw_hist_merge(&w, &back), 0);
	assert_int_equal(w.overflow_from, 400000);
	lw_stats_from_hist(&s, &w);
	assert_int_equal(s.above[3], 400000);
	assert_int_equal(s.pct[4], 1750000);
	lw_hist_free(&h);
	lw_hist_free(&w);
	lw_hist_free(&back);
}

static void test_rank_sel_matches_sort(void **st)
{
	uint64_t seed = 7;
	const size_t n = 2000;
	uint64_t *v = malloc(n * sizeof(*v));

	/* random, heavy tail reaching 64 bits */
	for (size_t i = 0; i < n; i++) {
		uint64_t r = rnd(&seed);
		v[i] = (r % 50 == 0) ? r >> (r % 60) : r % 80000;
	}
	check_rank_sel(v, n, 1);
	/* every sample equal */
	for (size_t i = 0; i < n; i++)
		v[i] = 12345;
	check_rank_sel(v, n, 7);
	/* all in one 1 us bucket, every value distinct */
	for (size_t i = 0; i < n; i++)
		v[i] = 5000 + (i * 7919) % 1000;
	check_rank_sel(v, n, 1);
	/* on the bucket edges */
	for (size_t i = 0; i < n; i++)
		v[i] = 1000 * (i % 5) + (i % 3) - 1 + (i % 5 == 0);
	check_rank_sel(v, n, 1);
	/* everything in the overflow, up to the largest value there is */
	for (size_t i = 0; i < n; i++)
		v[i] = i % 3 ? UINT64_MAX - (rnd(&seed) % 1000) : 10000000 + rnd(&seed) % 3;
	check_rank_sel(v, n, 1);
	/* the two extremes only, and 0 */
	for (size_t i = 0; i < n; i++)
		v[i] = i % 2 ? UINT64_MAX : 0;
	check_rank_sel(v, n, 1);
	/* one sample, two samples */
	check_rank_sel(v, 1, 1);
	check_rank_sel(v, 2, 1);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentiles_match_reference),
		cmocka_unit_test(test_percentile_small_cases),
		cmocka_unit_test(test_hist_overflow_is_counted),
		cmocka_unit_test(test_hist_json_round_trip),
		cmocka_unit_test(test_hist_merge),
		cmocka_unit_test(test_hist_limit),
		cmocka_unit_test(test_hist_unknowns),
		cmocka_unit_test(test_rank_sel_matches_sort),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
