// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run summary reads its samples in passes and keeps none: its figures
 * must be those of a full sort of every sample, bit for bit (percentiles,
 * mean, extremes), per CPU and over all CPUs, on random and adversarial
 * latencies; so must the exact distribution compare builds and any rank.
 */
#include "tests/unit/lw_test.h"
#include "lib/safefile.h"

#include <limits.h>
#include <math.h>

#include "analysis/summary.h"
#include "analysis/teststat.h"
#include "lib/rundir.h"
#include "lib/samples.h"

#define NCPU 3

struct ref {
	uint64_t *v;
	size_t n;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Latency of sample @i of the kind @kind. */
static uint64_t latency(int kind, size_t i, uint64_t *seed)
{
	uint64_t r = rnd(seed);

	switch (kind) {
	case 0:		/* lognormal-ish body, rare spikes, a few beyond the histogram */
		return r % 1000 == 0 ? 10000000 + r % 5000000 :
		       r % 97 == 0 ? 20000 + r % 200000 : 2000 + r % 3000 + (r >> 40) % 500;
	case 1:		/* one value */
		return 4242;
	case 2:		/* on bucket edges */
		return 1000 * (r % 6) + (r % 3) - (r % 6 ? 1 : 0);
	default:	/* most in the overflow, up to 2^64 - 1 */
		return i % 4 ? UINT64_MAX - r % 7 : 10000000 + r % 3;
	}
}

/* @adj: the host's time taken off every spike above 10 ms (every sample's
 * index is its record's: the noise sample is written last), as analyze's
 * kernel-attributable figures do; the figures must be those of the
 * adjusted samples sorted. */
static void one_kind_adj(int kind, int adj)
{
	struct lw_hostadj ha = { 0 };
	char *dir = lw_test_tmpdir(), file[PATH_MAX];
	struct lw_rundir rd;
	struct lw_samples_writer *w;
	struct lw_summary sum;
	struct ref ref[NCPU + 1] = { 0 };
	uint64_t seed = 99 + (uint64_t)kind;
	const size_t n = 30000;

	assert_int_equal(lw_rundir_create(&rd, dir, 1), 0);
	lw_manifest_set_status(rd.manifest, "complete", NULL);
	assert_int_equal(lw_rundir_save(&rd), 0);
	w = lw_samples_create(LW_AT_PATH, lw_rundir_file(&rd, "samples", file, sizeof(file)), 1);
	assert_non_null(w);
	for (size_t k = 0; k <= NCPU; k++)
		ref[k].v = malloc(n * sizeof(uint64_t));
	for (size_t i = 0; i < n; i++) {
		/* CPUs unevenly: CPU 2 gets a tenth */
		int cpu = i % 10 == 0 ? 2 : (int)(i % 2);
		struct lw_sample s = { .expected_ns = 1000 + i, .latency_ns = latency(kind, i, &seed),
				       .cpu = (uint16_t)cpu, .probe = LW_SAMPLE_CYCLIC };
		uint64_t v = s.latency_ns;

		assert_int_equal(lw_samples_write(w, &s, 1), 0);
		if (adj && v > 10000000) {
			uint64_t host = v - 3000 - i % 7;	/* back into the body */

			assert_int_equal(lw_hostadj_add(&ha, i, host), 0);
			v -= host;
		}
		ref[cpu].v[ref[cpu].n++] = v;
		ref[NCPU].v[ref[NCPU].n++] = v;
	}
	/* a second probe, so that series do not mix */
	{
		struct lw_sample s = { .expected_ns = 5, .latency_ns = 1, .cpu = 0,
				       .probe = LW_SAMPLE_NOISE };
		assert_int_equal(lw_samples_write(w, &s, 1), 0);
	}
	assert_int_equal(lw_samples_close(w), 0);

	if (adj)
		assert_true(ha.n > 10);
	assert_int_equal(lw_summary_load_adj(&sum, &rd, 0, adj ? &ha : NULL), 0);
	assert_int_equal(sum.n, 2 * 1 + NCPU + 1 /* noise cpu 0 + all */ );
	for (size_t i = 0; i < sum.n; i++) {
		const struct lw_series *s = &sum.s[i];
		struct ref *r;
		struct lw_stats want;
		struct lw_dist d, dw;
		uint64_t rank[6], got[6];

		if (s->probe != LW_SAMPLE_CYCLIC) {
			assert_int_equal(s->stats.count, 1);
			assert_int_equal(s->stats.pct[0], 1);
			continue;
		}
		r = &ref[s->cpu < 0 ? NCPU : s->cpu];
		lw_stats_compute(&want, r->v, r->n);	/* sorts r->v */
		assert_int_equal(s->stats.count, want.count);
		assert_int_equal(s->stats.min, want.min);
		assert_int_equal(s->stats.max, want.max);
		/* sums of latencies below 2^64 ns are exact in any order: the mean is
		 * the same bit for bit; beyond (kind 3), equal to rounding */
		if (kind != 3)
			assert_memory_equal(&s->stats.mean, &want.mean, sizeof(double));
		else
			assert_true(fabs(s->stats.mean - want.mean) <= 1e-12 * want.mean);
		for (int k = 0; k < LW_NPCT; k++)
			assert_int_equal(s->stats.pct[k], want.pct[k]);
		assert_true(s->stats.exact);

		/* the distribution compare uses: as from the sorted samples */
		assert_int_equal(lw_summary_dist(&sum, i, &d), 0);
		assert_int_equal(lw_dist_from_sorted(&dw, r->v, r->n), 0);
		assert_int_equal(d.k, dw.k);
		assert_int_equal(d.n, dw.n);
		assert_memory_equal(d.v, dw.v, d.k * sizeof(*d.v));
		assert_memory_equal(d.cum, dw.cum, d.k * sizeof(*d.cum));
		assert_true(kind == 3 || d.sum == dw.sum);
		assert_true(d.exact && d.resolution_ns == 1);
		lw_dist_free(&d);
		lw_dist_free(&dw);

		/* any ranks */
		for (int k = 0; k < 6; k++)
			rank[k] = 1 + rnd(&seed) % r->n;
		rank[0] = 1;
		rank[5] = r->n;
		assert_int_equal(lw_summary_ranks(&sum, i, rank, got, 6), 0);
		for (int k = 0; k < 6; k++)
			assert_int_equal(got[k], r->v[rank[k] - 1]);
	}
	lw_summary_free(&sum);
	lw_hostadj_free(&ha);
	for (size_t k = 0; k <= NCPU; k++)
		free(ref[k].v);
	lw_rundir_close(&rd);
	lw_test_rmdir(dir);
}

/* Missed periods in the kernel-attributable figures: those the host's time
 * made a sample miss are not counted; with the probe's period known (the
 * cyclic probe's interval in the manifest) as the probe counts them,
 * floor(lateness / period); without (a workload's), in proportion. */
static void test_host_missed(void **st)
{
	static const struct { uint64_t lat, host; uint32_t missed; uint8_t probe; } in[] = {
		{ 30500000, 30000000, 30, LW_SAMPLE_CYCLIC },	/* 0.5 ms left: none */
		{ 2500000, 400000, 2, LW_SAMPLE_CYCLIC },	/* 2.1 ms left: 2, exactly */
		{ 5000000, 0, 5, LW_SAMPLE_CYCLIC },		/* the host's none: its own */
		{ 4000000, 2000000, 3, LW_SAMPLE_AUDIO },	/* no period: 3 * 2 / 4 */
	};
	char *dir = lw_test_tmpdir(), file[PATH_MAX];
	struct lw_hostadj ha = { 0 };
	struct lw_rundir rd;
	struct lw_samples_writer *w;
	struct lw_summary sum;

	(void)st;
	assert_int_equal(lw_hostadj_missed(30, 30500000, 500000, 1000000), 0);
	assert_int_equal(lw_hostadj_missed(2, 2500000, 2100000, 1000000), 2);
	assert_int_equal(lw_hostadj_missed(2, 2500000, 2100000, 0), 1);	/* one less at most */
	assert_int_equal(lw_hostadj_missed(7, 7500000, 7500000, 1000000), 7);
	assert_int_equal(lw_hostadj_missed(0, 7500000, 10, 1000000), 0);
	assert_int_equal(lw_rundir_create(&rd, dir, 1), 0);
	json_object_set_new(rd.manifest, "probes",
			    json_pack("{s:{s:i, s:I}}", "cyclic", "probe_id", 1, "interval_ns",
				      (json_int_t)1000000));
	lw_manifest_set_status(rd.manifest, "complete", NULL);
	assert_int_equal(lw_rundir_save(&rd), 0);
	w = lw_samples_create(LW_AT_PATH, lw_rundir_file(&rd, "samples", file, sizeof(file)), 1);
	assert_non_null(w);
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct lw_sample s = { .expected_ns = 1000 + i, .latency_ns = in[i].lat,
				       .missed = in[i].missed, .probe = in[i].probe };

		assert_int_equal(lw_samples_write(w, &s, 1), 0);
		if (in[i].host)
			assert_int_equal(lw_hostadj_add(&ha, i, in[i].host), 0);
	}
	assert_int_equal(lw_samples_close(w), 0);
	for (int adj = 0; adj < 2; adj++) {
		assert_int_equal(lw_summary_load_adj(&sum, &rd, 0, adj ? &ha : NULL), 0);
		for (size_t i = 0; i < sum.n; i++) {
			if (sum.s[i].cpu >= 0)
				continue;
			if (sum.s[i].probe == LW_SAMPLE_CYCLIC)
				assert_int_equal(sum.s[i].missed, adj ? 0 + 2 + 5 : 30 + 2 + 5);
			else
				assert_int_equal(sum.s[i].missed, adj ? 1 : 3);
		}
		lw_summary_free(&sum);
	}
	lw_hostadj_free(&ha);
	lw_rundir_close(&rd);
	lw_test_rmdir(dir);
}

static void one_kind(int kind)
{
	one_kind_adj(kind, 0);
}

static void test_random(void **st) { one_kind(0); }
static void test_host_adjusted(void **st) { one_kind_adj(0, 1); }
static void test_one_value(void **st) { one_kind(1); }
static void test_bucket_edges(void **st) { one_kind(2); }
static void test_overflow(void **st) { one_kind(3); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_one_value),
		cmocka_unit_test(test_bucket_edges),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_host_adjusted),
		cmocka_unit_test(test_host_missed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
