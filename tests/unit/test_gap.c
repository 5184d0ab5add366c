// SPDX-License-Identifier: GPL-2.0-only
/* The noise probe's gap detector, fed synthetic clock readings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "probes/gap.h"

/* Feed @n readings; collect the gaps found. */
static int feed(struct lw_gap *g, const uint64_t *t, int n, uint64_t *starts, uint64_t *lens)
{
	int k = 0;

	for (int i = 0; i < n; i++) {
		uint64_t start, d = lw_gap_feed(g, t[i], &start);

		if (d) {
			starts[k] = start;
			lens[k] = d;
			k++;
		}
	}
	return k;
}

static void test_steady_loop_has_no_gap(void **state)
{
	struct lw_gap g;
	uint64_t starts[4], lens[4];
	uint64_t t[1000];

	for (int i = 0; i < 1000; i++)
		t[i] = 1000 + 20 * (uint64_t)(i + 1);
	lw_gap_init(&g, 5000, 1000);
	assert_int_equal(feed(&g, t, 1000, starts, lens), 0);
	assert_int_equal(g.loops, 1000);
	assert_int_equal(g.gaps, 0);
	assert_int_equal(g.noise_ns, 0);
	assert_int_equal(g.min_ns, 20);
	assert_int_equal(g.max_ns, 20);
	assert_int_equal(lw_gap_observed_ns(&g), 20000);
}

static void test_gaps_start_and_length(void **state)
{
	/* 20ns loops, a 10us interrupt after 60, an 8us one after 10100. */
	const uint64_t t[] = { 20, 40, 60, 10060, 10080, 10100, 18100, 18120 };
	uint64_t starts[4], lens[4];
	struct lw_gap g;

	lw_gap_init(&g, 5000, 0);
	assert_int_equal(feed(&g, t, 8, starts, lens), 2);
	assert_int_equal(starts[0], 60);
	assert_int_equal(lens[0], 10000);
	assert_int_equal(starts[1], 10100);
	assert_int_equal(lens[1], 8000);
	assert_int_equal(g.gaps, 2);
	assert_int_equal(g.noise_ns, 18000);
	assert_int_equal(g.max_ns, 10000);
	assert_int_equal(g.min_ns, 20);
	assert_int_equal(g.loops, 8);
}

static void test_threshold_is_exclusive(void **state)
{
	const uint64_t t[] = { 5000, 10001 };
	uint64_t starts[2], lens[2];
	struct lw_gap g;

	lw_gap_init(&g, 5000, 0);
	assert_int_equal(feed(&g, t, 2, starts, lens), 1);	/* 5000 is not above 5000 */
	assert_int_equal(lens[0], 5001);
	assert_int_equal(starts[0], 5000);
	assert_int_equal(g.max_ns, 5001);
}

static void test_resync_leaves_out_bookkeeping(void **state)
{
	uint64_t start;
	struct lw_gap g;

	lw_gap_init(&g, 5000, 0);
	assert_int_equal(lw_gap_feed(&g, 20, &start), 0);
	assert_int_equal(lw_gap_feed(&g, 9020, &start), 9000);
	/* Storing the sample took 1.5us: not a gap of the system. */
	lw_gap_resync(&g, 10520);
	assert_int_equal(lw_gap_feed(&g, 10540, &start), 0);
	assert_int_equal(g.skipped_ns, 1500);
	assert_int_equal(g.max_ns, 9000);
	assert_int_equal(lw_gap_observed_ns(&g), 10540 - 1500);
}

static void test_backwards_reading_is_not_a_gap(void **state)
{
	uint64_t start;
	struct lw_gap g;

	lw_gap_init(&g, 5000, 100000);
	assert_int_equal(lw_gap_feed(&g, 90000, &start), 0);
	assert_int_equal(g.backwards, 1);
	assert_int_equal(g.min_ns, 0);
	/* the next delta counts from the new reading */
	assert_int_equal(lw_gap_feed(&g, 96000, &start), 6000);
	assert_int_equal(start, 90000);
}

static void test_nothing_fed(void **state)
{
	struct lw_gap g;

	lw_gap_init(&g, 5000, 42);
	assert_int_equal(g.loops, 0);
	assert_int_equal(lw_gap_observed_ns(&g), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady_loop_has_no_gap),
		cmocka_unit_test(test_gaps_start_and_length),
		cmocka_unit_test(test_threshold_is_exclusive),
		cmocka_unit_test(test_resync_leaves_out_bookkeeping),
		cmocka_unit_test(test_backwards_reading_is_not_a_gap),
		cmocka_unit_test(test_nothing_fed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
