// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sequential designs against budgets (analysis/seqbudget.h) on seeded
 * synthetic runs: each run BLOCKS block maxima of 1 s, Gumbel with a
 * location of its own (runs drift: a run-level random effect), the checks
 * a run's analysis would give (the run's measured maximum against the
 * limit).  Runs are added one at a time, a look after each from the first
 * to MAX_RUNS, stopping at the first decision (optional stopping); the
 * bounds of a maximum from a two-stage bootstrap (runs, then blocks):
 *   - a budget the true distribution breaks (the limit at the true 1 h
 *     return level: the hardest such budget): decided PASS in at most 5 %
 *     of SEQS sequences, up to the binomial count a method holding 5 %
 *     exceeds with probability below 1e-4;
 *   - a budget clearly met (twice the true return level): decided PASS in
 *     every sequence, never FAIL;
 *   - a count budget a run broke: FAIL at that run, with the line;
 *   - a percentile's per-run figures: the bounds, PASS and FAIL;
 *   - the stretches of one run (run --until-decided): latencies whose logs
 *     are an AR(1) process (correlated over ~100 samples), cut into
 *     stretches of 2000 samples, the stretches' p99s judged after each
 *     from the third: a limit at the process's true p99 is passed in at
 *     most 5 % of SEQS sequences (as above), one 30 % above it in most.
 */
#include "tests/unit/lw_test.h"

#include <math.h>

#include <gsl/gsl_cdf.h>

#include "analysis/seqbudget.h"
#include "analysis/sequential.h"
#include "analysis/teststat.h"
#include "lib/sort.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#define BLOCKS    40		/* 1 s blocks a run: a 40 s run */
#define MAX_RUNS  6
#define SEQS      200
#define LOC       50.0		/* us */
#define SCALE     4.0
#define EFFECT    3.0		/* sd of a run's location, us */
#define HORIZON_M 3600.0	/* 1 h of 1 s blocks */

/* The true 1 h return level of a block maximum, the runs' locations drawn
 * N(LOC, EFFECT^2): G(z) = E[exp(-exp(-(z - LOC - e)/SCALE))] = 1 - 1/m,
 * by bisection over a fine normal quadrature. */
static double true_level(void)
{
	double lo = LOC, hi = LOC + 30 * SCALE;

	for (int it = 0; it < 100; it++) {
		double z = (lo + hi) / 2, g = 0, w = 0;

		for (int k = -400; k <= 400; k++) {
			double e = k * 0.01 * EFFECT, pw = exp(-0.5 * (k * 0.01) * (k * 0.01));

			g += pw * exp(-exp(-(z - LOC - e) / SCALE));
			w += pw;
		}
		if (g / w < 1 - 1 / HORIZON_M)
			lo = z;
		else
			hi = z;
	}
	return (lo + hi) / 2;
}

struct run {
	double bm[BLOCKS];	/* ns */
};

static int bmax_cb(void *ctx, const char *probe, const double **v, size_t *n)
{
	struct run *r = ctx;

	assert_string_equal(probe, "cyclic");
	*v = r->bm;
	*n = BLOCKS;
	return 0;
}

static void make_run(struct lw_rng *rng, struct run *r, double *max_us)
{
	double loc = LOC + EFFECT * lw_rng_normal(rng);

	*max_us = 0;
	for (int i = 0; i < BLOCKS; i++) {
		double us = loc - SCALE * log(-log(lw_rng_uniform(rng)));

		r->bm[i] = us * 1e3;
		if (us > *max_us)
			*max_us = us;
	}
}

static void max_check(struct lw_checks *cs, double measured, double limit)
{
	struct lw_check c = { .suite = "budgets", .name = "budget.cyclic.max", .metric = "max",
			      .unit = "us", .origin = "--budget" };

	c.measured = measured;
	c.limit = limit;
	c.result = measured < limit ? LW_PASS : LW_FAIL;
	snprintf(c.rule, sizeof(c.rule), "cyclic.max<%.10gus", limit);
	cs->n = 0;
	assert_int_equal(lw_checks_add(cs, &c), 0);
}

/* One sequence against @limit: its decision and the runs it took. */
static enum lw_bseq_decision sequence(struct lw_rng *rng, double limit, unsigned *runs)
{
	struct lw_seq_design d;
	struct lw_bseq s = { 0 };
	struct lw_checks cs = { 0 };
	enum lw_bseq_decision dec = LW_BSEQ_UNDECIDED;
	char line[320];

	lw_seq_design_default(&d);
	d.min_runs = 1;
	d.max_runs = MAX_RUNS;
	lw_bseq_opts_default(&s.o);
	s.o.resamples = 500;
	for (unsigned r = 1; r <= MAX_RUNS; r++) {
		struct run run;
		double mx;
		enum lw_bseq_decision k;

		make_run(rng, &run, &mx);
		max_check(&cs, mx, limit);
		s.o.seed = lw_rng_next(rng);
		assert_int_equal(lw_bseq_add_run(&s, &cs, bmax_cb, &run), 0);
		k = lw_bseq_judge(&s, lw_seq_alpha_at(&d, r), line, sizeof(line));
		if (k != LW_BSEQ_CONTINUE) {
			dec = k;
			*runs = r;
			break;
		}
		*runs = r;
	}
	lw_checks_free(&cs);
	lw_bseq_free(&s);
	return dec;
}

/* The count a method holding 5 % exceeds with probability below 1e-4. */
static unsigned allowed(unsigned n)
{
	unsigned k = 0;

	while (gsl_cdf_binomial_Q(k, 0.05, n) > 1e-4)
		k++;
	return k;
}

static void false_pass_rate(void **state)
{
	struct lw_rng rng = { 0 };
	double level = true_level();
	unsigned pass = 0, fail = 0, undecided = 0, runs = 0, sum = 0;

	(void)state;
	assert_int_equal(lw_rng_seed(&rng, 30), 0);
	for (int i = 0; i < SEQS; i++) {
		enum lw_bseq_decision d = sequence(&rng, level, &runs);

		pass += d == LW_BSEQ_PASS;
		fail += d == LW_BSEQ_FAIL;
		undecided += d == LW_BSEQ_UNDECIDED;
		sum += runs;
	}
	lw_rng_free(&rng);
	printf("limit at the true 1 h return level %.2f us: PASS %u, FAIL %u, undecided %u of %d "
	       "(mean %.1f runs); at most %u PASS allowed\n", level, pass, fail, undecided, SEQS,
	       (double)sum / SEQS, allowed(SEQS));
	assert_true(pass <= allowed(SEQS));
}

static void clearly_met(void **state)
{
	struct lw_rng rng = { 0 };
	double level = true_level();
	unsigned pass = 0, runs = 0, sum = 0;

	(void)state;
	assert_int_equal(lw_rng_seed(&rng, 31), 0);
	for (int i = 0; i < 50; i++) {
		enum lw_bseq_decision d = sequence(&rng, 2 * level, &runs);

		assert_int_not_equal(d, LW_BSEQ_FAIL);
		pass += d == LW_BSEQ_PASS;
		sum += runs;
	}
	lw_rng_free(&rng);
	printf("limit %.1f us (twice the return level): PASS in %u of 50 (mean %.1f runs)\n",
	       2 * level, pass, (double)sum / 50);
	assert_int_equal(pass, 50);
}

static void count_broken(void **state)
{
	struct lw_bseq s = { 0 };
	struct lw_checks cs = { 0 };
	struct lw_check c = { .suite = "budgets", .name = "budget.audio.xruns", .metric = "xruns",
			      .unit = "count", .rule = "audio.xruns<1", .limit = 1 };
	char line[320];
	json_t *j;

	(void)state;
	lw_bseq_opts_default(&s.o);
	/* a budget no run has a figure for (no audio workload): skipped,
	 * nothing to decide on alone */
	c.measured = NAN;
	c.result = LW_SKIP;
	assert_int_equal(lw_checks_add(&cs, &c), 0);
	assert_int_equal(lw_bseq_add_run(&s, &cs, NULL, NULL), 0);
	assert_int_equal(lw_bseq_judge(&s, 0.01, line, sizeof(line)), LW_BSEQ_CONTINUE);
	assert_non_null(strstr(line, "no run recorded a figure"));
	lw_bseq_free(&s);
	cs.n = 0;
	c.measured = 0;
	c.result = LW_PASS;
	assert_int_equal(lw_checks_add(&cs, &c), 0);
	assert_int_equal(lw_bseq_add_run(&s, &cs, NULL, NULL), 0);
	/* counts alone: nothing broken is PASS */
	assert_int_equal(lw_bseq_judge(&s, 0.01, line, sizeof(line)), LW_BSEQ_PASS);
	assert_string_equal(line, "audio xruns 0 < 1 in 1 run (audio.xruns<1)");
	cs.c[0].measured = 4;
	cs.c[0].result = LW_FAIL;
	assert_int_equal(lw_bseq_add_run(&s, &cs, NULL, NULL), 0);
	assert_int_equal(lw_bseq_judge(&s, 0.01, line, sizeof(line)), LW_BSEQ_FAIL);
	assert_string_equal(line, "audio xruns 4 in run 2 (audio.xruns<1)");
	j = lw_bseq_json(&s);
	assert_int_equal(json_array_size(j), 1);
	assert_true(json_is_true(json_object_get(json_array_get(j, 0), "broken")));
	json_decref(j);
	lw_checks_free(&cs);
	lw_bseq_free(&s);
}

static void percentile(void **state)
{
	struct lw_bseq s = { 0 };
	struct lw_checks cs = { 0 };
	struct lw_check c = { .suite = "budgets", .name = "budget.cyclic.p99", .metric = "p99",
			      .unit = "us", .rule = "cyclic.p99<100us", .limit = 100 };
	const double p99[] = { 40, 44, 38, 42 };
	double e, lo, hi;
	char line[320];

	(void)state;
	/* one figure: no bound */
	assert_int_equal(lw_bseq_mean_bounds(p99, 1, 0.05, &e, &lo, &hi), -1);
	assert_int_equal(lw_bseq_mean_bounds(p99, 4, 0.05, &e, &lo, &hi), 0);
	assert_true(lo < e && e < hi && lo > 36 && hi < 46);
	lw_bseq_opts_default(&s.o);
	for (size_t i = 0; i < 4; i++) {
		cs.n = 0;
		c.measured = p99[i];
		c.result = LW_PASS;
		assert_int_equal(lw_checks_add(&cs, &c), 0);
		assert_int_equal(lw_bseq_add_run(&s, &cs, NULL, NULL), 0);
		if (i == 0)	/* one run: no bound yet */
			assert_int_equal(lw_bseq_judge(&s, 0.01, line, sizeof(line)),
					 LW_BSEQ_CONTINUE);
	}
	assert_int_equal(lw_bseq_judge(&s, 0.01, line, sizeof(line)), LW_BSEQ_PASS);
	assert_non_null(strstr(line, "cyclic p99 upper bound"));
	lw_bseq_free(&s);
	/* the same figures against 30 us: broken with confidence */
	c.limit = 30;
	snprintf(c.rule, sizeof(c.rule), "cyclic.p99<30us");
	for (size_t i = 0; i < 4; i++) {
		cs.n = 0;
		c.measured = p99[i];
		c.result = LW_FAIL;
		assert_int_equal(lw_checks_add(&cs, &c), 0);
		assert_int_equal(lw_bseq_add_run(&s, &cs, NULL, NULL), 0);
	}
	assert_int_equal(lw_bseq_judge(&s, 0.01, line, sizeof(line)), LW_BSEQ_FAIL);
	assert_non_null(strstr(line, "cyclic p99 lower bound"));
	lw_checks_free(&cs);
	lw_bseq_free(&s);
}

/* One run of AR(1) log-latencies in stretches against a p99 @limit (us):
 * its decision and the stretches it took. */
#define ST_SAMPLES 2000
#define ST_MAX     15
#define AR_MU      log(50.0)
#define AR_SIGMA   0.3

static double v[ST_SAMPLES];

static uint64_t vns[ST_SAMPLES];	/* the stretch in time order, ns */

static int stretch_exceed(void *ctx, const char *probe, double limit_ns, int le, uint64_t *over,
			  uint64_t *n, double *neff)
{
	(void)ctx;
	(void)probe;
	*over = 0;
	for (int i = 0; i < ST_SAMPLES; i++)
		*over += le ? (double)vns[i] > limit_ns : (double)vns[i] >= limit_ns;
	*n = ST_SAMPLES;
	*neff = lw_bseq_neff(vns, ST_SAMPLES);
	return 0;
}

/* @share: judged on the shares over the limit (else on the stretches'
 * p99s, as runs' figures are). */
static enum lw_bseq_decision stretches(struct lw_rng *rng, double phi, double limit, int share,
				       unsigned *n)
{
	struct lw_seq_design d;
	struct lw_bseq s = { 0 };
	struct lw_checks cs = { 0 };
	struct lw_check c = { .suite = "budgets", .name = "budget.cyclic.p99", .metric = "p99",
			      .unit = "us", .rule = "cyclic.p99<limit", .limit = limit };
	enum lw_bseq_decision dec = LW_BSEQ_UNDECIDED;
	double x = AR_SIGMA * lw_rng_normal(rng);	/* stationary from the start */
	char line[320];

	lw_seq_design_default(&d);
	d.max_runs = ST_MAX;
	lw_bseq_opts_default(&s.o);
	s.stretches = 1;
	if (share)
		s.exceed = stretch_exceed;
	for (unsigned k = 1; k <= ST_MAX; k++) {
		for (int i = 0; i < ST_SAMPLES; i++) {
			x = phi * x + sqrt(1 - phi * phi) * AR_SIGMA * lw_rng_normal(rng);
			v[i] = exp(AR_MU + x);
			vns[i] = (uint64_t)(v[i] * 1e3);
		}
		lw_qsort(v, ST_SAMPLES, sizeof(v[0]), cmp_double);
		cs.n = 0;
		c.measured = v[(size_t)ceil(0.99 * ST_SAMPLES) - 1];
		c.result = c.measured < limit ? LW_PASS : LW_FAIL;
		assert_int_equal(lw_checks_add(&cs, &c), 0);
		assert_int_equal(lw_bseq_add_run(&s, &cs, NULL, NULL), 0);
		*n = k;
		if (k < d.min_runs)
			continue;
		dec = lw_bseq_judge(&s, lw_seq_alpha_at(&d, k), line, sizeof(line));
		if (dec != LW_BSEQ_CONTINUE)
			break;
		dec = LW_BSEQ_UNDECIDED;
	}
	if (dec == LW_BSEQ_PASS)
		assert_non_null(strstr(line, share ? "(stretches' shares over the limit)" :
					  "(stretches' mean)"));
	lw_checks_free(&cs);
	lw_bseq_free(&s);
	return dec;
}

static void stretches_of_one_run(void **state)
{
	static const double phis[] = { 0, 0.9, 0.99 };
	struct lw_rng rng = { 0 };
	double p99 = exp(AR_MU + gsl_cdf_ugaussian_Pinv(0.99) * AR_SIGMA);

	(void)state;
	assert_int_equal(lw_rng_seed(&rng, 32), 0);
	for (size_t f = 0; f < sizeof(phis) / sizeof(phis[0]); f++) {
		unsigned pass = 0, fail = 0, mean_pass = 0, far = 0, n = 0, sum = 0;

		for (int i = 0; i < SEQS; i++) {
			enum lw_bseq_decision d = stretches(&rng, phis[f], p99, 1, &n);

			pass += d == LW_BSEQ_PASS;
			fail += d == LW_BSEQ_FAIL;
		}
		/* the stretches' p99s fall under the p99 of all their samples
		 * when the samples are correlated: their mean passes the true
		 * p99 far more often than alpha */
		for (int i = 0; phis[f] >= 0.99 && i < SEQS; i++)
			mean_pass += stretches(&rng, phis[f], p99, 0, &n) == LW_BSEQ_PASS;
		for (int i = 0; i < 50; i++) {
			enum lw_bseq_decision d = stretches(&rng, phis[f], 1.3 * p99, 1, &n);

			assert_int_not_equal(d, LW_BSEQ_FAIL);
			far += d == LW_BSEQ_PASS;
			sum += n;
		}
		printf("stretches of one run, AR(1) %.2f, limit at the true p99 %.2f us: PASS %u, "
		       "FAIL %u of %d on the shares over it (at most %u PASS allowed), PASS %u on "
		       "the stretches' p99s; 30 %% above it: PASS %u of 50 after %.1f stretches\n",
		       phis[f], p99, pass, fail, SEQS, allowed(SEQS), mean_pass, far,
		       (double)sum / 50);
		assert_true(pass <= allowed(SEQS));
		if (phis[f] >= 0.99)
			assert_true(mean_pass > allowed(SEQS));
		if (phis[f] == 0)
			assert_true(far >= 45);
	}
	lw_rng_free(&rng);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(count_broken),
		cmocka_unit_test(percentile),
		cmocka_unit_test(clearly_met),
		cmocka_unit_test(false_pass_rate),
		cmocka_unit_test(stretches_of_one_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
