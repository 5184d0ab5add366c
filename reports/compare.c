// SPDX-License-Identifier: GPL-2.0-only
/*
 * Comparison of runs for reports: percentiles with distribution-free 95 %
 * confidence intervals (order statistics), and a verdict of every run
 * against the baseline, or the same read from `latwatt compare -o` output.
 */
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/summary.h"
#include "lib/error.h"
#include "lib/samples.h"
#include "reports/report.h"

#define LW_COMPARISON_SCHEMA "latwatt-comparison"

const char *const lw_cmp_stat[LW_CMP_NSTAT] = { "p50", "p90", "p99", "p99.9", "p99.99", "max" };
static const double cmp_q[LW_CMP_NSTAT] = { 50, 90, 99, 99.9, 99.99, 100 };

/* The 1-based ranks lw_pci_sorted() reads among @n samples: the value's, and
 * the interval's ends (0 when an end is open: below the first sample or
 * beyond the last). */
static void pci_ranks(uint64_t n, double q, uint64_t r[3])
{
	double np, half, lo, hi;

	if (q >= 100) {			/* the maximum: no interval */
		r[0] = r[1] = r[2] = n;
		return;
	}
	r[0] = lw_pct_rank_n(n, q);
	/* Ranks (1-based) bracketing the q-quantile with 95 % confidence, from
	 * the normal approximation of the binomial count of samples below it. */
	np = (double)n * q / 100.0;
	half = 1.96 * sqrt(np * (1.0 - q / 100.0));
	lo = floor(np - half);
	hi = ceil(np + half) + 1;
	r[1] = lo < 1 ? 0 : (uint64_t)lo;
	r[2] = hi > (double)n ? 0 : (uint64_t)hi;
}

/* @at[0..2]: the samples at pci_ranks() (unused where a rank is 0). */
static void pci_fill(struct lw_pci *p, uint64_t n, double q, const uint64_t r[3],
		     const uint64_t at[3])
{
	memset(p, 0, sizeof(*p));
	p->count = n;
	if (!n) {
		p->hi = UINT64_MAX;
		return;
	}
	p->value = at[0];
	if (q >= 100) {
		p->lo = p->hi = at[0];
		return;
	}
	p->lo = r[1] ? at[1] : 0;
	p->hi = r[2] ? at[2] : UINT64_MAX;
	if (p->lo > p->value)
		p->lo = p->value;
	if (p->hi < p->value)
		p->hi = p->value;
}

void lw_pci_sorted(struct lw_pci *p, const uint64_t *v, size_t n, double q)
{
	uint64_t r[3] = { 0 }, at[3] = { 0 };

	if (n) {
		pci_ranks(n, q, r);
		for (int k = 0; k < 3; k++)
			at[k] = r[k] ? v[r[k] - 1] : 0;
	}
	pci_fill(p, n, q, r, at);
}

static struct lw_cmp_probe *cmp_probe(struct lw_comparison *c, const char *name)
{
	struct lw_cmp_probe *p;
	size_t cells = c->nrun * LW_CMP_NSTAT;

	for (size_t i = 0; i < c->nprobe; i++)
		if (!strcmp(c->probe[i].name, name))
			return &c->probe[i];
	p = realloc(c->probe, (c->nprobe + 1) * sizeof(*p));
	if (!p)
		return NULL;
	c->probe = p;
	p = &c->probe[c->nprobe];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->pci = calloc(cells, sizeof(*p->pci));
	p->verdict = calloc(cells, sizeof(*p->verdict));
	p->change = calloc(cells, sizeof(*p->change));
	if (!p->pci || !p->verdict || !p->change) {
		free(p->pci);
		free(p->verdict);
		free(p->change);
		return NULL;
	}
	for (size_t k = 0; k < cells; k++)
		p->pci[k].hi = UINT64_MAX;
	c->nprobe++;
	return p;
}

/* CIs of every probe of run @ri, from its samples (or histogram). */
static int run_cis(struct lw_comparison *c, size_t ri)
{
	struct lw_rrun *r = &c->run[ri];
	struct lw_rundir rd = { .path = r->path, .manifest = r->manifest };
	struct lw_summary sum;

	if (lw_summary_load(&sum, &rd, 0) < 0)
		return -1;
	for (size_t i = 0; i < sum.n; i++) {
		const struct lw_series *s = &sum.s[i];
		struct lw_cmp_probe *p;
		uint64_t rk[3 * LW_CMP_NSTAT] = { 0 }, at[3 * LW_CMP_NSTAT] = { 0 };

		if (s->cpu >= 0)
			continue;
		p = cmp_probe(c, lw_probe_name(s->probe));
		if (!p) {
			lw_summary_free(&sum);
			return error("out of memory");
		}
		if (!sum.from_histogram && s->stats.count) {
			/* every rank at once: a few passes over the samples file */
			uint64_t want[3 * LW_CMP_NSTAT];
			size_t nw = 0;

			for (int k = 0; k < LW_CMP_NSTAT; k++) {
				pci_ranks(s->stats.count, cmp_q[k], &rk[3 * k]);
				for (int e = 0; e < 3; e++)
					want[nw++] = rk[3 * k + e] ? rk[3 * k + e] : 1;
			}
			if (lw_summary_ranks(&sum, i, want, at, nw) < 0) {
				lw_summary_free(&sum);
				return -1;
			}
		}
		for (int k = 0; k < LW_CMP_NSTAT; k++) {
			struct lw_pci *pc = &p->pci[ri * LW_CMP_NSTAT + k];

			if (sum.from_histogram) {
				/* bucket resolution, no interval: the run has no samples */
				const char *key = lw_stat_key(lw_cmp_stat[k]);

				pc->count = s->stats.count;
				pc->value = k == LW_CMP_NSTAT - 1 ? s->stats.max :
					(uint64_t)json_integer_value(json_object_get(
						json_object_get(json_object_get(lw_rrun_probes(r),
						lw_probe_name(s->probe)), "all"), key));
				pc->lo = 0;
				pc->hi = UINT64_MAX;
				if (k == LW_CMP_NSTAT - 1)
					pc->lo = pc->hi = pc->value;
			} else {
				pci_fill(pc, s->stats.count, cmp_q[k], &rk[3 * k], &at[3 * k]);
			}
		}
	}
	lw_summary_free(&sum);
	return 0;
}

static void verdicts(struct lw_comparison *c)
{
	for (size_t pi = 0; pi < c->nprobe; pi++) {
		struct lw_cmp_probe *p = &c->probe[pi];

		for (size_t ri = 0; ri < c->nrun; ri++)
			for (int k = 0; k < LW_CMP_NSTAT; k++) {
				const struct lw_pci *b = &p->pci[c->baseline * LW_CMP_NSTAT + k];
				const struct lw_pci *x = &p->pci[ri * LW_CMP_NSTAT + k];
				char *v = p->verdict[ri * LW_CMP_NSTAT + k];

				if (v[0])		/* given by the comparison JSON */
					continue;
				p->change[ri * LW_CMP_NSTAT + k] = b->value ?
					((double)x->value - (double)b->value) / (double)b->value : 0;
				if (ri == c->baseline)
					strcpy(v, "baseline");
				else if (!b->count || !x->count)
					strcpy(v, "no data");
				else if (k == LW_CMP_NSTAT - 1)
					strcpy(v, x->value > b->value ? "higher" :
					       x->value < b->value ? "lower" : "equal");
				else if (b->hi != UINT64_MAX && x->lo > b->hi)
					strcpy(v, "worse");
				else if (x->hi != UINT64_MAX && x->hi < b->lo)
					strcpy(v, "better");
				else if (b->hi == UINT64_MAX || x->hi == UINT64_MAX)
					strcpy(v, "inconclusive");
				else
					strcpy(v, "same");
			}
	}
}

static int load_runs(struct lw_comparison *c, char **paths, size_t n)
{
	c->run = calloc(n, sizeof(*c->run));
	if (!c->run)
		return error("out of memory");
	for (size_t i = 0; i < n; i++) {
		if (lw_rrun_load(&c->run[i], paths[i]) < 0)
			return -1;
		c->nrun++;
	}
	for (size_t i = 0; i < n; i++)
		if (run_cis(c, i) < 0)
			return -1;
	return 0;
}

int lw_comparison_from_runs(struct lw_comparison *c, char **paths, size_t n, double tolerance)
{
	memset(c, 0, sizeof(*c));
	c->tolerance = tolerance;
	strcpy(c->source, "runs");
	if (n < 2)
		return error("a comparison needs at least two runs");
	if (load_runs(c, paths, n) < 0) {
		lw_comparison_free(c);
		return -1;
	}
	verdicts(c);
	return 0;
}

/* A run path of a comparison JSON: as written, else relative to the JSON. */
static char *resolve(const char *json_path, const char *p)
{
	char dir[PATH_MAX], *d, *out;

	if (p[0] == '/' || access(p, F_OK) == 0)
		return strdup(p);
	snprintf(dir, sizeof(dir), "%s", json_path);
	d = dirname(dir);
	if (asprintf(&out, "%s/%s", d, p) < 0)
		return NULL;
	return out;
}

static void take_stats(struct lw_comparison *c)
{
	const json_t *probes = json_object_get(c->doc, "probes"), *p;
	const char *name;

	json_object_foreach((json_t *)probes, name, p) {
		struct lw_cmp_probe *cp = cmp_probe(c, name);
		const json_t *stats = json_object_get(p, "stats");

		if (!cp)
			continue;
		for (int k = 0; k < LW_CMP_NSTAT; k++) {
			const json_t *arr = json_object_get(stats, lw_cmp_stat[k]), *e;
			size_t ri;

			json_array_foreach((json_t *)arr, ri, e) {
				struct lw_pci *pc;
				const char *v;

				if (ri >= c->nrun)
					break;
				pc = &cp->pci[ri * LW_CMP_NSTAT + k];
				if (json_is_integer(json_object_get(e, "value_ns")))
					pc->value = (uint64_t)json_integer_value(json_object_get(e, "value_ns"));
				if (json_is_integer(json_object_get(e, "ci_low_ns")))
					pc->lo = (uint64_t)json_integer_value(json_object_get(e, "ci_low_ns"));
				if (json_is_integer(json_object_get(e, "ci_high_ns")))
					pc->hi = (uint64_t)json_integer_value(json_object_get(e, "ci_high_ns"));
				else if (json_is_null(json_object_get(e, "ci_high_ns")))
					pc->hi = UINT64_MAX;
				v = json_string_value(json_object_get(e, "verdict"));
				if (v) {
					snprintf(cp->verdict[ri * LW_CMP_NSTAT + k], 24, "%s", v);
					cp->change[ri * LW_CMP_NSTAT + k] =
						json_number_value(json_object_get(e, "change"));
				}
			}
		}
	}
}

int lw_comparison_from_json(struct lw_comparison *c, const char *path, double tolerance)
{
	const json_t *runs, *e;
	const char *schema;
	char **paths = NULL;
	size_t n, i;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->tolerance = tolerance;
	strcpy(c->source, "comparison");
	c->doc = lw_json_load(path);
	if (!c->doc)
		return -1;
	schema = json_string_value(json_object_get(c->doc, "schema"));
	if (!schema || strcmp(schema, LW_COMPARISON_SCHEMA)) {
		error("%s: not a latwatt comparison (schema is not \"%s\")", path,
		      LW_COMPARISON_SCHEMA);
		goto out;
	}
	if (json_integer_value(json_object_get(c->doc, "version")) != 1) {
		error("%s: comparison version %lld, this latwatt reads 1", path,
		      (long long)json_integer_value(json_object_get(c->doc, "version")));
		goto out;
	}
	runs = json_object_get(c->doc, "runs");
	n = json_array_size(runs);
	if (n < 2) {
		error("%s: \"runs\" must list at least two runs", path);
		goto out;
	}
	paths = calloc(n, sizeof(*paths));
	if (!paths) {
		error("out of memory");
		goto out;
	}
	json_array_foreach((json_t *)runs, i, e) {
		const char *p = json_string_value(json_object_get(e, "path"));

		if (!p) {
			error("%s: runs[%zu] has no \"path\"", path, i);
			goto out;
		}
		paths[i] = resolve(path, p);
		if (!paths[i]) {
			error("out of memory");
			goto out;
		}
	}
	if (json_is_integer(json_object_get(c->doc, "baseline"))) {
		json_int_t b = json_integer_value(json_object_get(c->doc, "baseline"));

		if (b < 0 || (size_t)b >= n) {
			error("%s: baseline %lld is not one of the %zu runs", path, (long long)b, n);
			goto out;
		}
		c->baseline = (size_t)b;
	}
	if (load_runs(c, paths, n) < 0)
		goto out;
	json_array_foreach((json_t *)runs, i, e) {
		const char *label = json_string_value(json_object_get(e, "label"));
		char *l = label ? strdup(label) : NULL;

		if (l) {
			free(c->run[i].label);
			c->run[i].label = l;
		}
	}
	take_stats(c);
	verdicts(c);
	ret = 0;
out:
	for (i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
	if (ret < 0)
		lw_comparison_free(c);
	return ret;
}

void lw_comparison_free(struct lw_comparison *c)
{
	for (size_t i = 0; i < c->nrun; i++)
		lw_rrun_free(&c->run[i]);
	free(c->run);
	for (size_t i = 0; i < c->nprobe; i++) {
		free(c->probe[i].pci);
		free(c->probe[i].verdict);
		free(c->probe[i].change);
	}
	free(c->probe);
	json_decref(c->doc);
	memset(c, 0, sizeof(*c));
}

static enum lw_verdict verdict_of(const char *s)
{
	if (!strcmp(s, "pass"))
		return LW_PASS;
	if (!strcmp(s, "fail"))
		return LW_FAIL;
	return LW_SKIP;
}

int lw_comparison_checks(const struct lw_comparison *c, struct lw_checks *out)
{
	const json_t *rules = json_object_get(c->doc, "rules"), *e;
	size_t i;

	if (json_is_array(rules)) {	/* the comparison's own rules */
		json_array_foreach((json_t *)rules, i, e) {
			struct lw_check ck = { .suite = "compare" };
			const char *name = json_string_value(json_object_get(e, "name"));
			const char *res = json_string_value(json_object_get(e, "result"));

			snprintf(ck.name, sizeof(ck.name), "%s", name ? name : "rule");
			ck.result = verdict_of(res ? res : "skip");
			ck.measured = json_number_value(json_object_get(e, "measured"));
			ck.limit = json_number_value(json_object_get(e, "limit"));
			snprintf(ck.unit, sizeof(ck.unit), "%s",
				 json_string_value(json_object_get(e, "unit")) ?: "");
			snprintf(ck.message, sizeof(ck.message), "%s",
				 json_string_value(json_object_get(e, "message")) ?: "");
			if (lw_checks_add(out, &ck) < 0)
				return -1;
		}
		return 0;
	}
	/* Our rule: a run must not be significantly worse than the baseline
	 * by more than the tolerance, at p50, p90, p99, p99.9 and p99.99. */
	for (size_t pi = 0; pi < c->nprobe; pi++) {
		const struct lw_cmp_probe *p = &c->probe[pi];

		for (size_t ri = 0; ri < c->nrun; ri++) {
			if (ri == c->baseline)
				continue;
			for (int k = 0; k < LW_CMP_NSTAT - 1; k++) {
				struct lw_check ck = { .suite = "compare", .unit = "%" };
				const char *v = p->verdict[ri * LW_CMP_NSTAT + k];
				double ch = p->change[ri * LW_CMP_NSTAT + k] * 100;
				char a[32], b[32];

				snprintf(ck.name, sizeof(ck.name), "compare.%s.%s.%s", p->name,
					 lw_cmp_stat[k], c->run[ri].label);
				ck.measured = ch;
				ck.limit = c->tolerance * 100;
				lw_fmt_us((double)p->pci[ri * LW_CMP_NSTAT + k].value, a, sizeof(a));
				lw_fmt_us((double)p->pci[c->baseline * LW_CMP_NSTAT + k].value, b,
					  sizeof(b));
				if (!strcmp(v, "no data") || !strcmp(v, "inconclusive")) {
					ck.result = LW_SKIP;
					snprintf(ck.message, sizeof(ck.message),
						 "%s: %s %s us against %s %s us (%s)", v,
						 c->run[ri].label, a, c->run[c->baseline].label, b,
						 !strcmp(v, "no data") ? "a run has no samples of this probe"
						 : "too few samples for a confidence interval");
				} else {
					ck.result = !strcmp(v, "worse") && ch > ck.limit ? LW_FAIL
											  : LW_PASS;
					snprintf(ck.message, sizeof(ck.message),
						 "%s: %s %s us against %s %s us, %+.1f %% (allowed "
						 "+%.0f %% when significant)", v, c->run[ri].label, a,
						 c->run[c->baseline].label, b, ch, ck.limit);
				}
				if (lw_checks_add(out, &ck) < 0)
					return -1;
			}
		}
	}
	return 0;
}
