// SPDX-License-Identifier: GPL-2.0-only
/* latwatt run --repeat auto: a look after each run (cmd/runauto.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analyze.h"
#include "boards/board.h"
#include "cmd/commands.h"
#include "cmd/runauto.h"
#include "lib/error.h"
#include "lib/json.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/samples.h"

static int budgets_prepare(struct lw_auto *a, const struct lw_run_opts *o,
			   const struct lw_board *b)
{
	json_t *rules;
	int nb = b ? b->nbudget : 0;

	if (!o->nbudgets && !nb)
		return error("--repeat auto needs --against BASELINE (a run directory or a "
			     "directory of repeats), or a budget to decide against (--budget, "
			     "a scenario's \"budget:\", the board's \"budgets:\"); board %s has "
			     "none", b && b->name ? b->name : "local");
	a->budgets = 1;
	a->board = b;
	rules = json_array();
	lw_bseq_opts_default(&a->sb.o);
	for (int i = 0; i < o->nbudgets; i++)
		json_array_append_new(rules, json_string(o->budget[i]));
	a->seq = json_pack("{s:s, s:s, s:f, s:I, s:I, s:n, s:o, s:I, s:I, s:[], s:s, s:n}",
		"method", "group-sequential against the budgets: the alpha of each look spent "
			  "from --alpha (Lan-DeMets spending function), a false verdict at any "
			  "look at most their sum (union bound); FAIL on a count or maximum a run "
			  "broke, or a latency bound's lower bound above its limit (at the look's "
			  "alpha over the latency budgets); PASS when no budget is broken and every "
			  "latency budget's upper bound is under its limit (maxima: GEV return "
			  "level; a percentile: the runs' shares of samples over its limit, the wider "
			  "of their t bound and the pooled share's Wilson bound on the samples' "
			  "worth as independent ones; other figures: the runs' geometric mean, "
			  "one-sided t)",
		"spending", lw_seq_spend_name(a->d.spend), "alpha", a->d.alpha,
		"min_runs", (json_int_t)a->d.min_runs, "max_runs", (json_int_t)a->d.max_runs,
		"against", "budget_rules", rules, "horizon_ns", (json_int_t)a->sb.o.horizon_ns,
		"block_ns", (json_int_t)a->sb.o.block_ns, "looks", "decision", "running", "reason");
	note("--repeat auto: against the budgets (%d of the board, %d of the run), %u to %u "
	     "runs, alpha %g spent over the looks (%s)", nb, o->nbudgets, a->d.min_runs,
	     a->d.max_runs, a->d.alpha, lw_seq_spend_name(a->d.spend));
	return 0;
}

/* The block maxima of a run's probe, in ns, as compare takes them: 1 s
 * blocks of the largest latency per stretch, the last (partial) left out. */
struct bmax_ctx {
	const struct lw_crun *r;
	uint64_t block_ns;
	double *v;
};

static int run_bmax(void *ctx, const char *probe, const double **v, size_t *n)
{
	struct bmax_ctx *c = ctx;
	int id = lw_probe_by_name(probe);
	const struct lw_cprobe *cp = NULL;
	size_t m, nblk, k = 0;

	for (size_t i = 0; id >= 0 && i < c->r->np; i++)
		if (c->r->p[i].probe == (unsigned)id)
			cp = &c->r->p[i];
	if (!cp || !cp->bmax_ns || !cp->nb || c->block_ns % cp->bmax_ns)
		return 1;
	m = (size_t)(c->block_ns / cp->bmax_ns);
	nblk = (cp->nb - 1) / m;
	free(c->v);
	c->v = malloc((nblk ? nblk : 1) * sizeof(*c->v));
	if (!c->v)
		return error("out of memory");
	for (size_t j = 0; j < nblk; j++) {
		uint64_t mx = 0;

		for (size_t i = j * m; i < (j + 1) * m; i++)
			if (cp->bmax[i] > mx)
				mx = cp->bmax[i];
		if (mx)
			c->v[k++] = (double)(mx - 1);
	}
	*v = c->v;
	*n = k;
	return 0;
}

/* A run's samples of @probe over a percentile budget's limit, and what
 * they are worth as independent samples: n over the variance inflation of
 * the means of the run's time blocks (its block bootstrap's series). */
static int run_exceed(void *ctx, const char *probe, double limit_ns, int le, uint64_t *over,
		      uint64_t *n, double *neff)
{
	struct bmax_ctx *c = ctx;
	int id = lw_probe_by_name(probe);
	const struct lw_cprobe *cp = NULL;
	const struct lw_dist *d;
	size_t lo;

	for (size_t i = 0; id >= 0 && i < c->r->np; i++)
		if (c->r->p[i].probe == (unsigned)id)
			cp = &c->r->p[i];
	if (!cp || !cp->d.n || !cp->d.exact)
		return 1;
	d = &cp->d;
	/* the first distinct value counted over the limit */
	lo = lw_bseq_first_over(d->v, d->k, limit_ns, le);
	*over = d->n - (lo ? d->cum[lo - 1] : 0);
	*n = d->n;
	/* on the logs of the latencies, as a stretch's worth is taken
	 * (lw_bseq_neff()): the raw means of blocks swing with every spike */
	if (cp->bs.nblk > 1) {
		struct lw_bseq_blk *bk = calloc(cp->bs.nblk, sizeof(*bk));

		if (!bk)
			return error("out of memory");
		for (size_t b = 0; b < cp->bs.nblk; b++) {
			const struct lw_bblock *k = &cp->bs.blk[b];

			for (uint32_t j = 0; j < k->n; j++) {
				double l = log(lw_boot_value(k->key[j]) + 1);

				bk[b].n += k->cnt[j];
				bk[b].sum += k->cnt[j] * l;
				bk[b].sum2 += k->cnt[j] * l * l;
			}
		}
		*neff = lw_bseq_neff_blocks(bk, cp->bs.nblk);
		free(bk);
	} else {
		*neff = (double)d->n;
	}
	return 0;
}

/* The run at @path: analyzed (no trace pass), its budgets judged, added. */
static int budgets_add(struct lw_auto *a, const char *path, const struct lw_crun *r)
{
	struct lw_analyze_opts ao;
	struct lw_rundir rd = { 0 };
	struct lw_summary sum;
	struct lw_checks cs = { 0 };
	struct bmax_ctx bc = { .r = r, .block_ns = a->sb.o.block_ns };
	json_t *doc = NULL;
	int partial = 0, ret = -1;

	memset(&sum, 0, sizeof(sum));
	if (lw_rundir_open(&rd, path) < 0)
		return -1;
	lw_analyze_opts_default(&ao);
	ao.trace = 0;
	if (lw_analyze_run(&rd, &ao, &sum, &doc, &partial) < 0)
		goto out;
	lw_summary_free(&sum);
	a->sb.exceed = run_exceed;
	a->sb.exceed_ctx = &bc;
	if (lw_analysis_checks(doc, rd.manifest, a->board, NULL, 0, NULL, &cs) < 0 ||
	    lw_bseq_add_run(&a->sb, &cs, run_bmax, &bc) < 0)
		goto out;
	ret = 0;
out:
	free(bc.v);
	lw_checks_free(&cs);
	json_decref(doc);
	lw_rundir_close(&rd);
	return ret;
}

static int budgets_broken(const struct lw_bseq *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->b[i].broken)
			return 1;
	return 0;
}

static int budgets_look(struct lw_auto *a, const char *path)
{
	struct lw_crun *r = &a->runs[a->n];
	double alpha;
	json_t *look;

	if (lw_crun_load_dir(r, path) < 0)
		return -1;
	a->n++;
	if (budgets_add(a, path, r) < 0)
		return -1;
	/* what a run measured breaking a budget needs no error rate: a look
	 * from the first run on; the others from --min-runs */
	if (a->n < a->d.min_runs && !budgets_broken(&a->sb))
		return 0;
	/* before --min-runs nothing is spent: only what was measured decides */
	alpha = a->n < a->d.min_runs ? 0 : lw_seq_alpha_at(&a->d, (unsigned)a->n);
	a->sbdec = lw_bseq_judge(&a->sb, alpha, a->sbline, sizeof(a->sbline));
	if (a->sbdec == LW_BSEQ_CONTINUE && a->n == a->d.max_runs)
		a->sbdec = LW_BSEQ_UNDECIDED;
	a->sbruns = (unsigned)a->n;
	look = json_pack("{s:I, s:f, s:s, s:s, s:o}", "runs", (json_int_t)a->n, "alpha_k", alpha,
			 "decision", lw_bseq_decision_name(a->sbdec), "reason", a->sbline,
			 "budgets", lw_bseq_json(&a->sb));
	json_array_append_new(json_object_get(a->seq, "looks"), look);
	note("look after %zu run%s (alpha %.2g): %s: %s", a->n, a->n == 1 ? "" : "s", alpha,
	     lw_bseq_decision_name(a->sbdec), a->sbline);
	return a->sbdec != LW_BSEQ_CONTINUE;
}

/* Stopped before the design ended (interrupted, or an error): what was
 * measured stays.  The line into @line, with the last look's @last when
 * there was one; the exit status. */
static int not_decided(struct lw_auto *a, int ret, const char *last, char *line, size_t len)
{
	int l = snprintf(line, len, "not decided: %s after %zu complete run%s",
			 ret >= 128 ? "interrupted" : "stopped by an error", a->n, a->n == 1 ? "" : "s");

	if (last && l > 0 && (size_t)l < len)
		snprintf(line + l, len - (size_t)l, " (the last look: %s)", last);
	json_object_set_new(a->seq, "decision", json_string(ret >= 128 ? "interrupted" : "error"));
	return ret == LW_EXIT_OK ? LW_EXIT_ERROR : ret;
}

/* The sequence's end: its reason, runs and exit status into repeat.json's
 * "sequential", the line on stdout; returns @status. */
static int say_end(struct lw_auto *a, const char *line, int status)
{
	json_object_set_new(a->seq, "reason", json_string(line));
	json_object_set_new(a->seq, "runs", json_integer((json_int_t)a->n));
	json_object_set_new(a->seq, "exit_status", json_integer(status));
	printf("%s\n", line);
	fflush(stdout);
	return status;
}

static int budgets_finish(struct lw_auto *a, int ret)
{
	char line[512];
	int status;

	if (ret == LW_EXIT_OK && a->sbruns && a->sbdec != LW_BSEQ_CONTINUE) {
		if (a->sbdec == LW_BSEQ_UNDECIDED)
			snprintf(line, sizeof(line), "undecided after %u run%s: %s", a->sbruns,
				 a->sbruns == 1 ? "" : "s", a->sbline);
		else
			snprintf(line, sizeof(line), "decided after %u run%s: %s: %s", a->sbruns,
				 a->sbruns == 1 ? "" : "s", lw_bseq_decision_name(a->sbdec), a->sbline);
		json_object_set_new(a->seq, "decision", json_string(lw_bseq_decision_name(a->sbdec)));
		status = a->sbdec == LW_BSEQ_FAIL ? LW_EXIT_FAIL : LW_EXIT_OK;
	} else {
		status = not_decided(a, ret, a->sbruns ? a->sbline : NULL, line, sizeof(line));
	}
	return say_end(a, line, status);
}

int lw_auto_prepare(struct lw_auto *a, const struct lw_run_opts *o, const struct lw_board *b)
{
	char **refs = NULL;
	size_t nref = 0;
	int ret = -1;

	memset(a, 0, sizeof(*a));
	lw_seq_design_default(&a->d);
	a->d.spend = (enum lw_seq_spend)o->spending;
	a->d.alpha = o->alpha;
	a->d.practical = o->practical;
	a->d.min_runs = o->min_runs;
	a->d.max_runs = o->max_runs;
	a->d.metrics = o->decide_on;
	a->d.nmetrics = (size_t)o->ndecide;
	if (lw_seq_design_check(&a->d) < 0)
		return -1;
	if (!o->against) {
		if (o->max_runs > LW_CMP_MAX_GROUP_RUNS)
			return error("--max-runs: at most %d", LW_CMP_MAX_GROUP_RUNS);
		a->runs = calloc(o->max_runs, sizeof(*a->runs));
		if (!a->runs)
			return error("out of memory");
		return budgets_prepare(a, o, b);
	}
	/* compare's defaults: samples above 50 and 100 us counted */
	lw_cmp_opts_default(&a->co);
	lw_cmp_add_threshold(&a->co, 50 * LW_NSEC_PER_USEC);
	lw_cmp_add_threshold(&a->co, 100 * LW_NSEC_PER_USEC);
	a->co.alpha = a->d.alpha;
	a->co.practical = a->d.practical;

	if (lw_repeat_list(o->against, &refs, &nref) < 0)
		return -1;
	a->nbase = nref ? nref : 1;
	if (a->nbase > LW_CMP_MAX_GROUP_RUNS || o->max_runs > LW_CMP_MAX_GROUP_RUNS) {
		error("--against %s: at most %d runs a side", o->against, LW_CMP_MAX_GROUP_RUNS);
		goto out;
	}
	a->runs = calloc(a->nbase + o->max_runs, sizeof(*a->runs));
	if (!a->runs) {
		error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < a->nbase; i++)
		if (lw_crun_load_dir(&a->runs[i], nref ? refs[i] : o->against) < 0) {
			a->nbase = i;
			goto out;
		}
	a->seq = json_pack("{s:s, s:s, s:f, s:f, s:I, s:I, s:s, s:I, s:[], s:s, s:n}",
		"method", "group-sequential: the alpha of each look spent from --alpha (Lan-DeMets "
			  "spending function), a false verdict at any look at most their sum (union "
			  "bound); no change that matters: two one-sided tests at the look's alpha",
		"spending", lw_seq_spend_name(a->d.spend), "alpha", a->d.alpha,
		"practical", a->d.practical, "min_runs", (json_int_t)a->d.min_runs,
		"max_runs", (json_int_t)a->d.max_runs, "against", o->against,
		"baseline_runs", (json_int_t)a->nbase, "looks", "decision", "running", "reason");
	if (a->d.nmetrics) {
		json_t *m = json_array();

		for (size_t i = 0; i < a->d.nmetrics; i++)
			json_array_append_new(m, json_string(a->d.metrics[i]));
		json_object_set_new(a->seq, "decide_on", m);
	} else {
		json_object_set_new(a->seq, "decide_on", json_null());
	}
	note("--repeat auto: against %zu run%s of %s, %u to %u runs, alpha %g spent over the "
	     "looks (%s)", a->nbase, a->nbase == 1 ? "" : "s", o->against, a->d.min_runs,
	     a->d.max_runs, a->d.alpha, lw_seq_spend_name(a->d.spend));
	ret = 0;
out:
	for (size_t i = 0; i < nref; i++)
		free(refs[i]);
	free(refs);
	return ret;
}

int lw_auto_look(struct lw_auto *a, const char *path)
{
	json_t *doc = NULL;
	char line[512];

	if (a->n == a->d.max_runs)
		return error("--repeat auto: more runs than --max-runs");
	if (a->budgets)
		return budgets_look(a, path);
	if (lw_crun_load_dir(&a->runs[a->nbase + a->n], path) < 0)
		return -1;
	a->n++;
	if (a->n < a->d.min_runs)
		return 0;
	if (lw_seq_look(&a->d, a->runs, a->nbase, a->n, &a->co, &a->last, &doc) < 0)
		return -1;
	if (a->n == a->d.min_runs && lw_seq_check_metrics(&a->d, doc) < 0) {
		json_decref(doc);
		return error("--decide-on: %s", lw_last_error());
	}
	json_decref(doc);
	json_array_append_new(json_object_get(a->seq, "looks"), lw_seq_look_json(&a->last));
	lw_seq_line(&a->last, line, sizeof(line));
	note("look after %u run%s (alpha %.2g): %s", a->last.runs, a->last.runs == 1 ? "" : "s",
	     a->last.alpha_k, line);
	if (a->last.decision == LW_SEQ_DIFFERENT && !a->last.worse && !a->st.have_better)
		note("found better and nothing worse: the runs go on, looking for worse");
	return lw_seq_next(&a->d, &a->st, &a->last);
}

int lw_auto_finish(struct lw_auto *a, int ret)
{
	char line[512];
	int status;

	const struct lw_seq_look *f = &a->st.final;

	if (a->budgets)
		return budgets_finish(a, ret);
	if (ret == LW_EXIT_OK && a->st.stopped) {
		lw_seq_line(f, line, sizeof(line));
		if (f->runs < a->n) {	/* better, and the runs went on looking for worse */
			size_t l = strlen(line);

			snprintf(line + l, sizeof(line) - l, "; nothing worse in %zu runs", a->n);
		}
		json_object_set_new(a->seq, "decision", json_string(lw_seq_decision_name(f->decision)));
		json_object_set_new(a->seq, "worse", json_boolean(f->decision == LW_SEQ_DIFFERENT &&
								  f->worse));
		status = f->decision == LW_SEQ_DIFFERENT && f->worse ? LW_EXIT_FAIL : LW_EXIT_OK;
	} else {
		char last[400];

		if (a->last.runs)
			lw_seq_line(&a->last, last, sizeof(last));
		status = not_decided(a, ret, a->last.runs ? last : NULL, line, sizeof(line));
	}
	return say_end(a, line, status);
}

void lw_auto_free(struct lw_auto *a)
{
	for (size_t i = 0; a->runs && i < a->nbase + a->n; i++)
		lw_crun_free(&a->runs[i]);
	free(a->runs);
	json_decref(a->seq);
	lw_bseq_free(&a->sb);
	memset(a, 0, sizeof(*a));
}
