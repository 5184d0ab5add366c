// SPDX-License-Identifier: GPL-2.0-only
/* latwatt run --until-decided: looks at one run's stretches (cmd/rununtil.h). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analyze.h"
#include "analysis/checks.h"
#include "analysis/failon.h"
#include "analysis/seqbudget.h"
#include "analysis/sequential.h"
#include "boards/board.h"
#include "cmd/commands.h"
#include "cmd/rununtil.h"
#include "lib/error.h"
#include "lib/json.h"
#include "lib/metrics.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/samples.h"
#include "lib/stats.h"

/* Stretches a probe's samples may be spread over while the rings drain. */
#define NSLOT 4

struct stretch {
	unsigned k;			/* which stretch the slot holds */
	uint64_t *v;			/* its latencies */
	size_t n, cap;
	uint64_t missed;
	double neff;			/* what its samples are worth independent */
};

struct probe_acc {
	struct stretch slot[NSLOT];
	uint64_t *bmax;			/* per 1 s block of the run: max latency + 1, 0 none */
};

struct lw_until {
	struct lw_run_looker looker;
	struct lw_seq_design d;		/* alpha, spending; runs: stretches */
	const struct lw_board *board;
	const json_t *manifest;
	struct lw_bseq sb;
	pthread_mutex_t mu;
	struct probe_acc p[LW_SAMPLE_MAX];
	size_t nblocks;
	unsigned closed;		/* stretches looked at (samples of these are late) */
	uint64_t late;			/* samples that came after their stretch's look */
	/* the look being made: its stretch's block maxima for lw_bseq */
	unsigned cur;
	double *bm;
	enum lw_bseq_decision dec;
	unsigned looks;			/* stretches at the last look (0: none yet) */
	char line[320];
	json_t *seq;			/* the manifest's "sequential" */
};

static const char METHOD[] =
	"group-sequential over the stretches of one run against the budgets: the alpha of "
	"each look spent from --alpha (Lan-DeMets spending function) over at most -d / "
	"--look-every looks, a false verdict at any look at most their sum (union bound); "
	"FAIL on a maximum or count a stretch broke, or a latency bound's lower bound above "
	"its limit; PASS when every latency budget's upper bound is under its limit "
	"(maxima: GEV return level of the 1 s block maxima; a percentile: the stretches' "
	"shares of samples over its limit, as batch means, and the pooled share's Wilson "
	"bound on the samples' worth as independent ones; other figures: the stretches' "
	"geometric mean, one-sided t); budgets the looks cannot judge "
	"(xruns, power, ...) judged on the whole run when it ends";

/* A latency figure of a probe, or its missed periods: what a stretch's
 * samples tell. */
static int live_metric(const struct lw_metric *m)
{
	return m && m->from == LW_MF_PROBE &&
	       (m->unit == LW_MU_NS || (m->key && !strcmp(m->key, "missed_periods")));
}

static int live_check(const struct lw_check *c)
{
	return !strcmp(c->suite, "budgets") && strcmp(c->metric, "threshold") &&
	       live_metric(lw_metric_find(c->metric));
}

static int feed(void *ctx, uint64_t start, const struct lw_sample *s, size_t n)
{
	struct lw_until *u = ctx;
	uint64_t every = u->looker.every_ns;

	pthread_mutex_lock(&u->mu);
	for (size_t i = 0; i < n; i++) {
		uint64_t at = s[i].expected_ns > start ? s[i].expected_ns - start : 0;
		unsigned k = (unsigned)(at / every);
		struct probe_acc *p;
		struct stretch *st;
		size_t b = (size_t)(at / LW_NSEC_PER_SEC);

		if (s[i].probe >= LW_SAMPLE_MAX)
			continue;
		p = &u->p[s[i].probe];
		if (b < u->nblocks && s[i].latency_ns + 1 > p->bmax[b])
			p->bmax[b] = s[i].latency_ns + 1;
		if (k < u->closed || k >= u->closed + NSLOT - 1) {
			u->late++;
			continue;
		}
		st = &p->slot[k % NSLOT];
		if (st->k != k) {
			st->k = k;
			st->n = 0;
			st->missed = 0;
		}
		if (st->n == st->cap) {
			size_t cap = st->cap ? st->cap * 2 : 4096;
			uint64_t *nv = realloc(st->v, cap * sizeof(*nv));

			if (!nv) {
				pthread_mutex_unlock(&u->mu);
				return error("out of memory");
			}
			st->v = nv;
			st->cap = cap;
		}
		st->v[st->n++] = s[i].latency_ns;
		st->missed += s[i].missed;
	}
	pthread_mutex_unlock(&u->mu);
	return 0;
}

/* The 1 s block maxima of @probe in the stretch being looked at, in ns. */
static int stretch_bmax(void *ctx, const char *probe, const double **v, size_t *n)
{
	struct lw_until *u = ctx;
	int id = lw_probe_by_name(probe);
	size_t per = (size_t)(u->looker.every_ns / LW_NSEC_PER_SEC), k = 0;
	size_t first = (size_t)u->cur * per;

	if (id <= 0 || id >= LW_SAMPLE_MAX || first + per > u->nblocks)
		return 1;
	for (size_t b = first; b < first + per; b++)
		if (u->p[id].bmax[b])
			u->bm[k++] = (double)(u->p[id].bmax[b] - 1);
	*v = u->bm;
	*n = k;
	return 0;
}

/* The samples of @probe in the stretch being looked at over @limit_ns
 * (sorted by stretch_doc()). */
static int stretch_exceed(void *ctx, const char *probe, double limit_ns, int le, uint64_t *over,
			  uint64_t *n, double *neff)
{
	struct lw_until *u = ctx;
	int id = lw_probe_by_name(probe);
	const struct stretch *st;

	if (id <= 0 || id >= LW_SAMPLE_MAX)
		return 1;
	st = &u->p[id].slot[u->cur % NSLOT];
	if (st->k != u->cur || !st->n)
		return 1;
	*over = st->n - lw_bseq_first_over(st->v, st->n, limit_ns, le);
	*n = st->n;
	*neff = st->neff;
	return 0;
}

/* The stretch @k's figures as an analysis document's "probes" (what the
 * checks read): every probe with samples in it (each stretch's samples
 * sorted). */
static json_t *stretch_doc(struct lw_until *u, unsigned k)
{
	json_t *probes = json_object();

	for (unsigned id = 1; id < LW_SAMPLE_MAX; id++) {
		struct stretch *st = &u->p[id].slot[k % NSLOT];
		struct lw_stats sts;
		json_t *all;

		if (st->k != k || !st->n)
			continue;
		memset(&sts, 0, sizeof(sts));
		st->neff = lw_bseq_neff(st->v, st->n);	/* in time order, before the sort */
		lw_stats_compute(&sts, st->v, st->n);
		all = lw_stats_json(&sts);
		json_object_set_new(all, "missed_periods", json_integer((json_int_t)st->missed));
		json_object_set_new(probes, lw_probe_name(id), json_pack("{s:o}", "all", all));
	}
	return json_pack("{s:o}", "probes", probes);
}

static int look(void *ctx, unsigned k, char *detail, size_t len)
{
	struct lw_until *u = ctx;
	struct lw_checks all = { 0 }, cs = { 0 };
	json_t *doc, *lk;
	double alpha;
	int ret = -1;
	unsigned n = k + 1;
	int broken = 0;

	pthread_mutex_lock(&u->mu);
	u->closed = k + 1;
	doc = stretch_doc(u, k);
	pthread_mutex_unlock(&u->mu);
	if (lw_analysis_checks(doc, u->manifest, u->board, NULL, 0, NULL, &all) < 0)
		goto out;
	for (size_t i = 0; i < all.n; i++)
		if (live_check(&all.c[i]) && lw_checks_add(&cs, &all.c[i]) < 0)
			goto out;
	/* the block maxima are final once the stretch is looked at: a sample
	 * of it that comes later is late for the blocks as for the figures */
	pthread_mutex_lock(&u->mu);
	u->cur = k;
	ret = lw_bseq_add_run(&u->sb, &cs, stretch_bmax, u);
	for (unsigned id = 1; id < LW_SAMPLE_MAX; id++) {
		struct stretch *st = &u->p[id].slot[k % NSLOT];

		if (st->k == k)
			st->n = st->missed = 0;
	}
	pthread_mutex_unlock(&u->mu);
	if (ret < 0)
		goto out;
	ret = 0;
	for (size_t i = 0; i < u->sb.n; i++)
		broken |= u->sb.b[i].broken;
	if (n < u->d.min_runs && !broken)
		goto out;
	alpha = n < u->d.min_runs ? 0 : lw_seq_alpha_at(&u->d, n);
	u->dec = lw_bseq_judge(&u->sb, alpha, u->line, sizeof(u->line));
	if (u->dec == LW_BSEQ_CONTINUE && n == u->d.max_runs)
		u->dec = LW_BSEQ_UNDECIDED;
	u->looks = n;
	lk = json_pack("{s:I, s:f, s:s, s:s, s:o}", "stretches", (json_int_t)n, "alpha_k", alpha,
		       "decision", lw_bseq_decision_name(u->dec), "reason", u->line,
		       "budgets", lw_bseq_json(&u->sb));
	json_array_append_new(json_object_get(u->seq, "looks"), lk);
	note("look after %u s (%u stretch%s, alpha %.2g): %s: %s",
	     (unsigned)(n * (u->looker.every_ns / LW_NSEC_PER_SEC)), n, n == 1 ? "" : "es", alpha,
	     lw_bseq_decision_name(u->dec), u->line);
	if (u->dec == LW_BSEQ_FAIL || u->dec == LW_BSEQ_PASS) {
		snprintf(detail, len, "%s after %u s: %s", lw_bseq_decision_name(u->dec),
			 (unsigned)(n * (u->looker.every_ns / LW_NSEC_PER_SEC)), u->line);
		ret = 1;
	}
out:
	lw_checks_free(&all);
	lw_checks_free(&cs);
	json_decref(doc);
	return ret;
}

int lw_until_check(const struct lw_run_opts *o, const struct lw_board *b)
{
	for (int k = 0; b && k < b->nbudget; k++)
		if (live_metric(b->budget[k].m))
			return 0;
	for (int i = 0; i < o->nbudgets; i++) {
		struct lw_rule r;

		if (lw_rule_parse_lang(&lw_lang_budget, o->budget[i], &r) < 0)
			return -1;
		if (live_metric(r.m))
			return 0;
	}
	return error("--until-decided needs a latency budget to decide on (--budget "
		     "'cyclic.p99<100us', a scenario's \"budget:\", the board's \"budgets:\"%s%s): "
		     "counts such as xruns and power are known only when a run ends",
		     b && b->name ? "; board " : "", b && b->name ? b->name : "");
}

struct lw_until *lw_until_start(const struct lw_run_opts *o, const struct lw_board *b,
				struct lw_run *run)
{
	struct lw_until *u;
	size_t per = (size_t)(o->look_every_ns / LW_NSEC_PER_SEC);
	char dur[32], every[32];
	int ok;

	u = calloc(1, sizeof(*u));
	if (!u) {
		error("out of memory");
		return NULL;
	}
	pthread_mutex_init(&u->mu, NULL);
	lw_seq_design_default(&u->d);
	u->d.alpha = o->alpha;
	u->d.spend = (enum lw_seq_spend)o->spending;
	u->d.max_runs = (unsigned)(o->duration_ns / o->look_every_ns);
	u->board = b;
	u->manifest = run->dir.manifest;
	lw_bseq_opts_default(&u->sb.o);
	u->sb.stretches = 1;
	u->sb.exceed = stretch_exceed;
	u->sb.exceed_ctx = u;
	u->nblocks = (size_t)(o->duration_ns / LW_NSEC_PER_SEC) + 1;
	u->bm = malloc(per * sizeof(*u->bm));
	ok = u->bm != NULL;
	for (unsigned id = 0; id < LW_SAMPLE_MAX; id++) {
		u->p[id].bmax = calloc(u->nblocks, sizeof(uint64_t));
		for (int s = 0; s < NSLOT; s++)
			u->p[id].slot[s].k = (unsigned)s;
		ok &= u->p[id].bmax != NULL;
	}
	if (!ok) {
		error("out of memory");
		lw_until_free(u);
		return NULL;
	}
	u->seq = json_pack("{s:s, s:s, s:f, s:I, s:I, s:I, s:I, s:I, s:[], s:s, s:n}",
		"method", METHOD, "spending", lw_seq_spend_name(u->d.spend), "alpha", u->d.alpha,
		"look_every_ns", (json_int_t)o->look_every_ns,
		"max_duration_ns", (json_int_t)o->duration_ns,
		"min_stretches", (json_int_t)u->d.min_runs,
		"max_stretches", (json_int_t)u->d.max_runs,
		"horizon_ns", (json_int_t)u->sb.o.horizon_ns, "looks", "decision", "running",
		"reason");
	u->looker = (struct lw_run_looker){ .every_ns = o->look_every_ns, .feed = feed,
					    .look = look, .ctx = u };
	run->looker = &u->looker;
	note("--until-decided: a look every %s from the %u%s, %s at the longest, alpha %g "
	     "spent over at most %u looks (%s)",
	     lw_format_duration(o->look_every_ns, every, sizeof(every)), u->d.min_runs,
	     u->d.min_runs == 1 ? "st" : u->d.min_runs == 2 ? "nd" : u->d.min_runs == 3 ? "rd" :
	     "th", lw_format_duration(o->duration_ns, dur, sizeof(dur)), u->d.alpha,
	     u->d.max_runs, lw_seq_spend_name(u->d.spend));
	return u;
}

/* The budgets the looks did not judge, on the whole run's analysis (no
 * trace pass): the first broken one into @why; 1 broken, 0 none, -1. */
static int others_broken(struct lw_until *u, struct lw_run *run, char *why, size_t len)
{
	struct lw_analyze_opts ao;
	struct lw_summary sum;
	struct lw_checks cs = { 0 };
	json_t *doc = NULL;
	int partial = 0, ret = -1;

	memset(&sum, 0, sizeof(sum));
	lw_analyze_opts_default(&ao);
	ao.trace = 0;
	if (lw_analyze_run(&run->dir, &ao, &sum, &doc, &partial) < 0)
		goto out;
	lw_summary_free(&sum);
	if (lw_analysis_checks(doc, run->dir.manifest, u->board, NULL, 0, NULL, &cs) < 0)
		goto out;
	ret = 0;
	for (size_t i = 0; i < cs.n && !ret; i++)
		if (!live_check(&cs.c[i]) && cs.c[i].result == LW_FAIL) {
			snprintf(why, len, "%.96s: %.200s (%.79s; judged on the whole run)", cs.c[i].name,
				 cs.c[i].message, cs.c[i].rule);
			ret = 1;
		}
out:
	lw_checks_free(&cs);
	json_decref(doc);
	return ret;
}

int lw_until_finish(struct lw_until *u, struct lw_run *run, int ret)
{
	char line[1024], other[512];
	const char *dec;
	int status = LW_EXIT_OK, r;
	unsigned secs = (unsigned)(u->looks * (u->looker.every_ns / LW_NSEC_PER_SEC));

	if (ret != LW_EXIT_OK) {
		snprintf(line, sizeof(line), "not decided: %s after %u look%s%s%s",
			 ret >= 128 ? "interrupted" : "stopped by an error", u->looks,
			 u->looks == 1 ? "" : "s", *u->line ? " (the last: " : "",
			 *u->line ? u->line : "");
		if (*u->line)
			strncat(line, ")", sizeof(line) - strlen(line) - 1);
		dec = ret >= 128 ? "interrupted" : "error";
		status = ret;
	} else {
		r = others_broken(u, run, other, sizeof(other));
		if (r < 0)
			return LW_EXIT_ERROR;
		if (!u->looks)
			snprintf(u->line, sizeof(u->line), "the run ended before a look");
		if (r) {
			snprintf(line, sizeof(line), "decided after %u s: FAIL: %s", secs, other);
			dec = "FAIL";
			status = LW_EXIT_FAIL;
		} else if (u->dec == LW_BSEQ_FAIL || u->dec == LW_BSEQ_PASS) {
			snprintf(line, sizeof(line), "decided after %u s: %s: %s", secs,
				 lw_bseq_decision_name(u->dec), u->line);
			dec = lw_bseq_decision_name(u->dec);
			status = u->dec == LW_BSEQ_FAIL ? LW_EXIT_FAIL : LW_EXIT_OK;
		} else {
			snprintf(line, sizeof(line), "undecided after %u s (the longest, -d): %s",
				 secs, u->line);
			dec = "undecided";
		}
	}
	json_object_set_new(u->seq, "decision", json_string(dec));
	json_object_set_new(u->seq, "reason", json_string(line));
	json_object_set_new(u->seq, "stretches", json_integer((json_int_t)u->looks));
	json_object_set_new(u->seq, "late_samples", json_integer((json_int_t)u->late));
	json_object_set_new(u->seq, "budgets", lw_bseq_json(&u->sb));
	json_object_set_new(u->seq, "exit_status", json_integer(status));
	json_object_set(run->dir.manifest, "sequential", u->seq);
	if (lw_rundir_save(&run->dir) < 0 && status == LW_EXIT_OK)
		status = LW_EXIT_ERROR;
	printf("%s\n", line);
	fflush(stdout);
	return status;
}

void lw_until_free(struct lw_until *u)
{
	if (!u)
		return;
	for (unsigned id = 0; id < LW_SAMPLE_MAX; id++) {
		free(u->p[id].bmax);
		for (int s = 0; s < NSLOT; s++)
			free(u->p[id].slot[s].v);
	}
	free(u->bm);
	lw_bseq_free(&u->sb);
	json_decref(u->seq);
	pthread_mutex_destroy(&u->mu);
	free(u);
}
