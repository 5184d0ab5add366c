// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sequential designs (analysis/sequential.h) on seeded synthetic runs made
 * as real ones are: latencies autocorrelated (AR(1) on the log), in bursts
 * (whole 100 ms stretches 1.3 times slower), each run with a random effect
 * of its own (runs drift).  A baseline of NBASE runs, then runs added one
 * at a time, a look after each from MIN_RUNS to MAX_RUNS, stopping at the
 * first decision (optional stopping), deciding on the p99 alone or on
 * every metric (Holm over them):
 *   - the spending: the looks' alphas sum to alpha;
 *   - the decisions and their lines on hand-made documents;
 *   - A/A: a "different" decision in at most 5 % of AA_SEQS sequences, up
 *     to the binomial count a method holding 5 % exceeds with probability
 *     below 1e-4; the same sequences looked at with the plain alpha at
 *     every look exceed it (repeated looks inflate the false verdict rate:
 *     the test has teeth);
 *   - every latency 20 % longer (p99 too): decided worse in at least 90 %
 *     of SHIFT_SEQS sequences, never better; the mean number of runs is
 *     printed beside the fixed design (one look at the plain alpha) with
 *     the same power.
 */
#include "tests/unit/lw_test.h"

#include <math.h>

#include <gsl/gsl_cdf.h>

#include "analysis/compare.h"
#include "analysis/sequential.h"
#include "lib/samples.h"

#define N_SAMPLES  1200	/* 12 beyond the p99 */
#define PER_BLOCK  10		/* samples per 10 ms: a 1 kHz probe */
#define NBASE      10		/* the baseline's runs */
#define MIN_RUNS   2
#define MAX_RUNS   16
#define FIXED_MAX  8		/* fixed designs looked at up to this many runs */
#define AA_SEQS    300
#define SHIFT_SEQS 100
#define EFFECT     0.05		/* sd of a run's random effect on the log */

/* The time series of @p (as a run directory gives it) from @v in time order. */
static void set_series(struct lw_cprobe *p, const uint64_t *v, size_t n)
{
	struct lw_bbuild bb;

	lw_bbuild_init(&bb);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(lw_bbuild_add(&bb, i * LW_BLOCK_BASE_NS / PER_BLOCK, v[i]), 0);
	assert_int_equal(lw_bbuild_finish(&bb, &p->bs), 0);
	p->nb = n / PER_BLOCK;
	p->bmax = calloc(p->nb + 1, sizeof(*p->bmax));
	for (size_t i = 0; i < n; i++)
		if (v[i] + 1 > p->bmax[i / PER_BLOCK])
			p->bmax[i / PER_BLOCK] = v[i] + 1;
}

/*
 * A run as a machine gives it: log latency = log 10 us + run effect
 * (N(0, 0.05), drawn once per run) + AR(1) noise (phi 0.8, marginal sd
 * 0.3), and bursts: each 100 ms stretch with probability 0.2 runs 1.3
 * times slower.  Every latency times @scale.  Missed periods: 0 to 2.
 */
static void make_run(struct lw_crun *run, unsigned id, double scale, struct lw_rng *r)
{
	uint64_t *v = malloc(N_SAMPLES * sizeof(*v));
	double effect = EFFECT * lw_rng_normal(r), e = 0.3 * lw_rng_normal(r), burst = 1;
	size_t per = PER_BLOCK * (LW_BOOT_BLOCK_NS / LW_BLOCK_BASE_NS);
	struct lw_cprobe *p;
	char label[32];

	memset(run, 0, sizeof(*run));
	snprintf(label, sizeof(label), "r%u", id);
	run->label = strdup(label);
	run->manifest = json_pack("{s:s, s:s, s:I, s:{s:{s:s}}}", "status", "complete",
				  "board", label, "duration_ns",
				  (json_int_t)N_SAMPLES / PER_BLOCK * 10000000, "system", "kernel",
				  "release", "6.1.0-test");
	p = lw_crun_add_probe(run, LW_SAMPLE_CYCLIC);
	assert_non_null(p);
	assert_int_equal(lw_hist_init(&p->hist, 1000, 10000), 0);
	for (size_t i = 0; i < N_SAMPLES; i++) {
		if (i % per == 0)
			burst = lw_rng_uniform(r) < 0.2 ? 1.3 : 1;
		e = 0.8 * e + 0.3 * sqrt(1 - 0.64) * lw_rng_normal(r);
		v[i] = (uint64_t)(10000.0 * exp(effect + e) * burst * scale);
	}
	p->missed = (uint64_t)(lw_rng_uniform(r) * 3);
	for (size_t i = 0; i < N_SAMPLES; i++)
		lw_hist_add(&p->hist, v[i], i);
	set_series(p, v, N_SAMPLES);
	lw_sort_u64(v, N_SAMPLES);
	assert_int_equal(lw_dist_from_sorted(&p->d, v, N_SAMPLES), 0);
	free(v);
}

static void opts(struct lw_cmp_opts *o)
{
	lw_cmp_opts_default(o);
	o->resamples = 20;		/* the within-run floor only: few are enough here */
	o->block_ns = 100000000;
	lw_cmp_add_threshold(o, 30000);
}

/* The designs looked at: every metric (Holm over them), or the p99 only */
static const char *const p99_only[] = { "p99" };
static const struct {
	enum lw_seq_spend spend;
	int p99;
} designs[] = {
	{ LW_SEQ_POCOCK, 1 }, { LW_SEQ_OBF, 1 }, { LW_SEQ_NAIVE, 1 },
	{ LW_SEQ_POCOCK, 0 }, { LW_SEQ_OBF, 0 }, { LW_SEQ_NAIVE, 0 },
};
#define NDESIGNS ((int)(sizeof(designs) / sizeof(designs[0])))
#define NAIVE_P99 2	/* the plain alpha at every look, the p99 */
#define NAIVE_ALL 5	/* the same, every metric */

static const char *dname(int k, char *b, size_t len)
{
	snprintf(b, len, "%s, %s", lw_seq_spend_name(designs[k].spend),
		 designs[k].p99 ? "p99" : "every metric");
	return b;
}

/* What became of one sequence: per design the look that decided (0: none)
 * and whether it was worse; per number of runs whether one look at the
 * plain alpha (a fixed design of that many runs) found it worse. */
struct seq_out {
	unsigned stop[NDESIGNS];	/* the look that stopped it */
	struct lw_seq_state state[NDESIGNS];
	int decision[NDESIGNS], worse[NDESIGNS];
	int fixed[NDESIGNS][MAX_RUNS + 1];	/* the naive designs' looks: 1 better, 2 worse */
};

/* One sequence: the baseline and runs with latencies times @scale, looked
 * at after each run, until every design has decided and @full runs have
 * been looked at (for the fixed designs). */
static void sequence(unsigned seed, double scale, unsigned full, struct seq_out *so)
{
	struct lw_crun runs[NBASE + MAX_RUNS];
	struct lw_cmp_opts o;
	struct lw_rng r;
	size_t made = 0;

	memset(so, 0, sizeof(*so));
	opts(&o);
	assert_int_equal(lw_rng_seed(&r, seed), 0);
	for (; made < NBASE; made++)
		make_run(&runs[made], (unsigned)made, 1, &r);
	for (unsigned n = 1; n <= MAX_RUNS; n++) {
		int open = 0;
		struct lw_cgroup g[2] = { { "A", 0, NBASE }, { "B", NBASE, n } };
		json_t *doc;

		make_run(&runs[made], (unsigned)made, scale, &r);
		made++;
		if (n < MIN_RUNS)
			continue;
		doc = lw_compare_groups(runs, g, 2, 0, &o);
		assert_non_null(doc);
		for (int k = 0; k < NDESIGNS; k++) {
			struct lw_seq_design d;
			struct lw_seq_look l;

			lw_seq_design_default(&d);
			d.spend = designs[k].spend;
			if (designs[k].p99) {
				d.metrics = p99_only;
				d.nmetrics = 1;
			}
			d.min_runs = MIN_RUNS;
			d.max_runs = MAX_RUNS;
			assert_int_equal(lw_seq_judge(&d, n, doc, &l), 0);
			so->fixed[k][n] = l.decision == LW_SEQ_DIFFERENT ? 1 + l.worse : 0;
			if (so->stop[k])
				continue;
			if (lw_seq_next(&d, &so->state[k], &l)) {
				so->stop[k] = n;
				so->decision[k] = so->state[k].final.decision;
				so->worse[k] = so->state[k].final.worse;
			} else {
				open = 1;
			}
		}
		json_decref(doc);
		if (!open && n >= full)
			break;
	}
	for (size_t i = 0; i < made; i++)
		lw_crun_free(&runs[i]);
	lw_rng_free(&r);
}

/* The count of @n trials that a method whose true rate is @p exceeds with
 * probability below @tail: the smallest x with P(X > x) < tail. */
static unsigned binom_upper(unsigned n, double p, double tail)
{
	unsigned x = 0;

	while (x < n && gsl_cdf_binomial_Q(x, p, n) >= tail)
		x++;
	return x;
}

static void test_spending(void **st)
{
	struct lw_seq_design d;
	double sum = 0;

	(void)st;
	lw_seq_design_default(&d);
	d.min_runs = 3;
	d.max_runs = 20;
	for (unsigned r = d.min_runs; r <= d.max_runs; r++) {
		double a = lw_seq_alpha_at(&d, r);

		assert_true(a > 0);
		sum += a;
	}
	assert_true(fabs(sum - d.alpha) < 1e-12);
	assert_true(lw_seq_alpha_at(&d, 2) == 0 && lw_seq_alpha_at(&d, 21) == 0);
	/* O'Brien-Fleming-type: alpha at t = 1, almost nothing early */
	assert_true(fabs(lw_seq_spent(LW_SEQ_OBF, 0.05, 1) - 0.05) < 1e-12);
	assert_true(lw_seq_spent(LW_SEQ_OBF, 0.05, 0.25) < 0.0001);
	/* Pocock-type: alpha ln(1 + (e - 1) t) */
	assert_true(fabs(lw_seq_spent(LW_SEQ_POCOCK, 0.05, 0.5) - 0.05 * log(1 + (M_E - 1) / 2)) < 1e-12);
	d.min_runs = 5;
	d.max_runs = 4;
	assert_error(lw_seq_design_check(&d) < 0, "fewest runs");
	assert_int_equal(lw_seq_spend_by_name("obrien-fleming"), LW_SEQ_OBF);
	assert_int_equal(lw_seq_spend_by_name("naive"), -1);
}

/* A metric of a comparison document as analysis/compare.c writes it. */
static json_t *metric(const char *name, const char *scale, double diff, double se, double df,
		      double base, double p)
{
	double judged = !strcmp(scale, "log") ? expm1(diff) : base > 0 ? diff / base : INFINITY;

	/* Holm over the two metrics of each document below */
	return json_pack("{s:s, s:s, s:f, s:f, s:{s:s, s:f, s:f}, s:{s:f, s:f, s:f, s:s, s:f}}",
			 "name", name, "verdict", LW_NSD, "p", p, "p_adjusted", fmin(1, 2 * p),
			 "judged_on", "stat",
			 isinf(judged) ? "change" : !strcmp(scale, "log") ? "rel" : "rate_rel",
			 "value", isinf(judged) ? diff : judged, "practical", 0.05, "runs_test",
			 "diff", diff, "se", se, "df", df, "scale", scale, "rate_base", base);
}

static json_t *doc_of(json_t *ms)
{
	return json_pack("{s:[{s:o}]}", "comparisons", "metrics", ms);
}

static void test_judge(void **st)
{
	struct lw_seq_design d;
	struct lw_seq_look l;
	char line[256];
	json_t *doc;

	(void)st;
	lw_seq_design_default(&d);	/* 3 to 10 runs, Pocock-type */
	/* p99 18 % worse, p 1e-6: decided after 7 runs */
	doc = doc_of(json_pack("[o, o]", metric("cyclic.p99", "log", log(1.18), 0.03, 12, 0, 1e-6),
			       metric("cyclic.p50", "log", 0.01, 0.03, 12, 0, 0.74)));
	assert_int_equal(lw_seq_judge(&d, 7, doc, &l), 0);
	assert_int_equal(l.decision, LW_SEQ_DIFFERENT);
	assert_true(l.worse);
	assert_int_equal(l.tested, 2);
	lw_seq_line(&l, line, sizeof(line));
	assert_non_null(strstr(line, "decided after 7 runs: cyclic.p99 worse by 18 % ["));
	/* the same p against the p50 alone: not decided */
	{
		static const char *const p50[] = { "p50" };

		d.metrics = p50;
		d.nmetrics = 1;
		assert_int_equal(lw_seq_judge(&d, 7, doc, &l), 0);
		assert_int_equal(l.decision, LW_SEQ_CONTINUE);
		assert_int_equal(l.tested, 1);
		assert_int_equal(lw_seq_judge(&d, 10, doc, &l), 0);
		assert_int_equal(l.decision, LW_SEQ_UNDECIDED);
		lw_seq_line(&l, line, sizeof(line));
		assert_non_null(strstr(line, "undecided after 10 runs: the smallest change these runs "
				       "can detect is "));
		assert_non_null(strstr(line, "(cyclic.p50)"));
		d.nmetrics = 0;
	}
	json_decref(doc);
	/* everything within +/- 5 %, a count with no events either side: no
	 * change that matters */
	doc = doc_of(json_pack("[o, o]", metric("cyclic.p99", "log", 0.002, 0.005, 20, 0, 0.7),
			       metric("cyclic.missed", "rate", 0, 0, 20, 0, 1)));
	assert_int_equal(lw_seq_judge(&d, 5, doc, &l), 0);
	assert_int_equal(l.decision, LW_SEQ_NO_CHANGE);
	assert_int_equal(l.outside, 0);
	json_decref(doc);
	/* events against none holds it up */
	doc = doc_of(json_pack("[o, o]", metric("cyclic.p99", "log", 0.002, 0.005, 20, 0, 0.7),
			       metric("cyclic.missed", "rate", 1e-4, 5e-5, 20, 0, 0.2)));
	assert_int_equal(lw_seq_judge(&d, 5, doc, &l), 0);
	assert_int_equal(l.decision, LW_SEQ_CONTINUE);
	assert_int_equal(l.outside, 1);
	json_decref(doc);
	doc = json_object();
	assert_error(lw_seq_judge(&d, 5, doc, &l) < 0, "no comparison");
	json_decref(doc);
}

/* A look that finds only better goes on (looking for worse); the answer
 * at the end when nothing later decides. */
static void test_better_goes_on(void **st)
{
	struct lw_seq_design d;
	struct lw_seq_state s1 = { 0 }, s2 = { 0 };
	struct lw_seq_look better = { .runs = 3, .decision = LW_SEQ_DIFFERENT, .worse = 0 };
	struct lw_seq_look cont = { .runs = 4, .decision = LW_SEQ_CONTINUE };
	struct lw_seq_look worse = { .runs = 5, .decision = LW_SEQ_DIFFERENT, .worse = 1 };
	struct lw_seq_look last = { .runs = 10, .decision = LW_SEQ_UNDECIDED };

	(void)st;
	lw_seq_design_default(&d);
	assert_int_equal(lw_seq_next(&d, &s1, &better), 0);
	assert_int_equal(lw_seq_next(&d, &s1, &cont), 0);
	assert_int_equal(lw_seq_next(&d, &s1, &worse), 1);
	assert_true(s1.final.worse && s1.final.runs == 5);
	assert_int_equal(lw_seq_next(&d, &s2, &better), 0);
	assert_int_equal(lw_seq_next(&d, &s2, &last), 1);
	assert_int_equal(s2.final.decision, LW_SEQ_DIFFERENT);
	assert_true(!s2.final.worse && s2.final.runs == 3);
}

static void test_aa_optional_stopping(void **st)
{
	unsigned diff[NDESIGNS] = { 0 }, nochange[NDESIGNS] = { 0 }, runs[NDESIGNS] = { 0 };
	unsigned limit = binom_upper(AA_SEQS, 0.05, 1e-4), fx[MAX_RUNS + 1] = { 0 };
	char b[64];

	(void)st;
	for (unsigned s = 0; s < AA_SEQS; s++) {
		struct seq_out so;

		sequence(7000 + s, 1, MAX_RUNS, &so);
		for (unsigned n = MIN_RUNS; n <= MAX_RUNS; n++)
			fx[n] += so.fixed[NAIVE_P99][n] > 0;
		for (int k = 0; k < NDESIGNS; k++) {
			diff[k] += so.decision[k] == LW_SEQ_DIFFERENT;
			nochange[k] += so.decision[k] == LW_SEQ_NO_CHANGE;
			runs[k] += so.stop[k];
		}
	}
	print_message("A/A, %u sequences of %d to %d runs against %d, a look after each run:\n",
		      AA_SEQS, MIN_RUNS, MAX_RUNS, NBASE);
	for (int k = 0; k < NDESIGNS; k++)
		print_message("  %-26s different in %3u (%4.1f %%), no change that matters in %3u, "
			      "%.1f runs on average\n", dname(k, b, sizeof(b)), diff[k],
			      100.0 * diff[k] / AA_SEQS, nochange[k], (double)runs[k] / AA_SEQS);
	for (unsigned n = MIN_RUNS; n <= MAX_RUNS; n += 2)
		print_message("  one look at the plain alpha after %u runs (a fixed design), p99: "
			      "different in %u (%.1f %%)\n", n, fx[n], 100.0 * fx[n] / AA_SEQS);
	print_message("a method at 5 %% exceeds %u of %u with probability below 1e-4\n", limit,
		      AA_SEQS);
	for (int k = 0; k < NDESIGNS; k++)
		if (designs[k].spend != LW_SEQ_NAIVE)
			assert_true(diff[k] <= limit);
	/* the plain alpha at every look: the limit broken */
	assert_true(diff[NAIVE_ALL] > limit);
}

static void test_shift_detected(void **st)
{
	unsigned worse[NDESIGNS] = { 0 }, better[NDESIGNS] = { 0 }, runs[NDESIGNS] = { 0 };
	unsigned fixed[2][MAX_RUNS + 1] = { { 0 } };
	const int seq[2] = { 0, 3 }, naive[2] = { NAIVE_P99, NAIVE_ALL };
	char b[64];

	(void)st;
	for (unsigned s = 0; s < SHIFT_SEQS; s++) {
		struct seq_out so;

		sequence(9000 + s, 1.2, FIXED_MAX, &so);
		for (int k = 0; k < NDESIGNS; k++) {
			worse[k] += so.decision[k] == LW_SEQ_DIFFERENT && so.worse[k];
			better[k] += so.decision[k] == LW_SEQ_DIFFERENT && !so.worse[k];
			runs[k] += so.stop[k];
		}
		for (unsigned n = MIN_RUNS; n <= FIXED_MAX; n++)
			for (int i = 0; i < 2; i++)
				fixed[i][n] += so.fixed[naive[i]][n] == 2;
	}
	print_message("every latency 20 %% longer, %u sequences of %d to %d runs against %d:\n",
		      SHIFT_SEQS, MIN_RUNS, MAX_RUNS, NBASE);
	for (int k = 0; k < NDESIGNS; k++)
		print_message("  %-26s worse in %3u, better in %u, %.2f runs on average\n",
			      dname(k, b, sizeof(b)), worse[k], better[k], (double)runs[k] / SHIFT_SEQS);
	for (unsigned n = MIN_RUNS; n <= FIXED_MAX; n++)
		print_message("  fixed design of %u runs at alpha 0.05: worse in %3u (p99), %3u (every "
			      "metric)\n", n, fixed[0][n], fixed[1][n]);
	for (int i = 0; i < 2; i++) {
		unsigned same;

		for (same = MIN_RUNS; same < FIXED_MAX && fixed[i][same] < worse[seq[i]]; same++)
			;
		print_message("  %s: %.2f runs on average; the fixed design of the same power "
			      "(%u of %u): %u%s runs\n", dname(seq[i], b, sizeof(b)),
			      (double)runs[seq[i]] / SHIFT_SEQS, worse[seq[i]], SHIFT_SEQS, same,
			      fixed[i][same] < worse[seq[i]] ? " or more" : "");
		/* the default spending (Pocock-type) finds it in 90 % at least, never better */
		assert_int_equal(better[seq[i]], 0);
		assert_true(worse[seq[i]] * 100 >= SHIFT_SEQS * 90);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spending),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_better_goes_on),
		cmocka_unit_test(test_aa_optional_stopping),
		cmocka_unit_test(test_shift_detected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
