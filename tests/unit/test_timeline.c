// SPDX-License-Identifier: GPL-2.0-only
/* Latency and power over time at plot resolution (analysis/timeline.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/timeline.h"
#include "lib/samples.h"
#include "tests/unit/lw_test.h"

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static const json_t *points_of(const json_t *tl, const char *probe, int cpu)
{
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(json_object_get(tl, "probes"), probe),
					   "cpus"), i, c)
		if (json_integer_value(json_object_get(c, "cpu")) == cpu)
			return json_object_get(c, "points");
	return NULL;
}

/* Every bucket keeps its largest sample, per probe and CPU; a sample past
 * the span doubles the buckets' width, merging neighbours, so the maxima
 * are those of the wider buckets. */
static void test_buckets_and_growth(void **st)
{
	const uint64_t t0 = 5000000000ULL, step = 1000000;	/* 1 ms */
	const size_t n = 1000, nb = 10;
	uint64_t ref[2][20] = { { 0 } }, seed = 3;
	struct lw_timeline tl;
	json_t *j;
	const json_t *pts, *top;

	(void)st;
	lw_timeline_init(&tl, t0, n * step, nb);	/* 100 ms buckets */
	for (size_t i = 0; i < 2 * n; i++)		/* 2 s: past the span */
		for (int cpu = 0; cpu < 2; cpu++) {
			uint64_t lat = 1000 + rnd(&seed) % 50000;
			size_t b = i * 100 / n / 20;	/* the 200 ms bucket */

			if (i == 777 && cpu == 1)
				lat = 9000000000ULL;	/* a spike of 9 s: no 32-bit figure */
			if (lat > ref[cpu][b])
				ref[cpu][b] = lat;
			assert_int_equal(lw_timeline_add(&tl, LW_SAMPLE_CYCLIC, cpu, t0 + i * step, lat), 0);
		}
	/* another probe's samples are not mixed in */
	assert_int_equal(lw_timeline_add(&tl, LW_SAMPLE_NOISE, 0, t0, 99999999), 0);
	assert_int_equal(tl.width, 200000000);
	j = lw_timeline_json(&tl);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "bucket_ns")), 200000000);
	assert_int_equal(json_integer_value(json_object_get(j, "t0_ns")), t0);
	for (int cpu = 0; cpu < 2; cpu++) {
		pts = points_of(j, "cyclic", cpu);
		assert_int_equal(json_array_size(pts), nb);
		for (size_t b = 0; b < nb; b++) {
			const json_t *p = json_array_get(pts, b);

			assert_int_equal(json_integer_value(json_array_get(p, 1)), ref[cpu][b]);
			/* its time lies in its bucket */
			assert_true((uint64_t)json_integer_value(json_array_get(p, 0)) / 200000000 == b);
		}
	}
	pts = points_of(j, "noise", 0);
	assert_int_equal(json_array_size(pts), 1);
	assert_int_equal(json_integer_value(json_array_get(json_array_get(pts, 0), 1)), 99999999);
	top = json_object_get(json_object_get(json_object_get(j, "probes"), "cyclic"), "top");
	assert_int_equal(json_array_size(top), LW_TIMELINE_TOP);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(top, 0), "latency_ns")),
			 9000000000LL);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(top, 0), "cpu")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(top, 0), "at_ns")),
			 777 * step);
	for (size_t i = 1; i < LW_TIMELINE_TOP; i++)
		assert_true(json_integer_value(json_object_get(json_array_get(top, i - 1), "latency_ns")) >=
			    json_integer_value(json_object_get(json_array_get(top, i), "latency_ns")));
	json_decref(j);
	lw_timeline_free(&tl);
}

/* No sample: no timeline. */
static void test_empty(void **st)
{
	struct lw_timeline tl;

	(void)st;
	lw_timeline_init(&tl, 1, 0, 10);
	assert_null(lw_timeline_json(&tl));
	lw_timeline_free(&tl);
}

/* Power over time: the mean of each bucket's samples per rail, a gap
 * carried to the next point drawn. */
static void test_power_timeline(void **st)
{
	char *dir = lw_test_tmpdir(), path[512];
	FILE *f;
	json_t *j;
	const json_t *r0, *r1, *pts;

	(void)st;
	snprintf(path, sizeof(path), "%s/power", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "latwatt-power\t1\nstart_ns\t1000000000\n"
		"rail\t0\tcpu\tmodel\testimated\ttotal\t-\n"
		"rail\t1\tboard\thwmon\tmeasured\t-\t-\n");
	/* rail 0: 1 W then 3 W; rail 1: 2 W, a gap (inside the first bucket,
	 * so the line breaks after its point), 4 W */
	for (int i = 0; i < 100; i++)
		fprintf(f, "s\t0\t%llu\t%g\t-\t-\t-\n", 1000000000ULL + (unsigned long long)i * 10000000,
			i < 50 ? 1.0 : 3.0);
	for (int i = 0; i < 50; i++)
		fprintf(f, "s\t1\t%llu\t2\t-\t-\t-\n", 1000000000ULL + (unsigned long long)i * 10000000);
	fprintf(f, "gap\t1\t1500000000\tsensor read failed\n");
	for (int i = 50; i < 100; i++)
		fprintf(f, "s\t1\t%llu\t4\t-\t-\t-\n", 1000000000ULL + (unsigned long long)i * 10000000);
	fclose(f);
	j = lw_power_timeline(path, 1000000000ULL, 2);
	if (!j)
		fail_msg("%s", lw_last_error());
	r0 = json_array_get(json_object_get(j, "rails"), 0);
	r1 = json_array_get(json_object_get(j, "rails"), 1);
	assert_string_equal(json_string_value(json_object_get(r0, "kind")), "estimated");
	assert_string_equal(json_string_value(json_object_get(r1, "kind")), "measured");
	/* 1 s over 2 buckets: the width grows from 1 ms to 512 ms */
	assert_int_equal(json_integer_value(json_object_get(j, "bucket_ns")), 512000000);
	pts = json_object_get(r0, "points");
	assert_int_equal(json_array_size(pts), 2);
	assert_float_equal(json_real_value(json_array_get(json_array_get(pts, 0), 1)),
			   (50 * 1000.0 + 2 * 3000.0) / 52, 1e-6);
	pts = json_object_get(r1, "points");
	assert_int_equal(json_array_size(pts), 2);
	assert_int_equal(json_integer_value(json_array_get(json_array_get(pts, 0), 2)), 0);
	assert_int_equal(json_integer_value(json_array_get(json_array_get(pts, 1), 2)), 1);
	json_decref(j);
	lw_test_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets_and_growth),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_power_timeline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
