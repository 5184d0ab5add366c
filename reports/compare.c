// SPDX-License-Identifier: GPL-2.0-only
/*
 * Comparison of runs for reports: the figures, within-run intervals and
 * verdicts of analysis/compare.c (the one comparison engine), for run
 * directories or read from `latwatt compare -o` output.
 */
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "lib/parse.h"
#include "analysis/summary.h"
#include "lib/error.h"
#include "lib/samples.h"
#include "reports/report.h"


const char *const lw_cmp_stat[LW_CMP_NSTAT] = { "p50", "p90", "p99", "p99.9", "p99.99", "max" };

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
	return 0;
}

static void take_stats(struct lw_comparison *c);

/*
 * From run directories: the comparison document of analysis/compare (each
 * directory a group of its own, a directory of repeats a group of its runs),
 * read as `latwatt compare -o` output is: one engine for every verdict.
 */
int lw_comparison_from_runs(struct lw_comparison *c, char **paths, size_t n, double tolerance)
{
	struct lw_cmp_opts o;
	struct lw_crun *cr = NULL;
	struct lw_cgroup *g = NULL;
	char **rp = NULL;
	size_t nr = 0, i;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->tolerance = tolerance;
	strcpy(c->source, "runs");
	if (n < 2)
		return error("a comparison needs at least two runs");
	g = calloc(n, sizeof(*g));
	if (!g)
		return error("out of memory");
	for (i = 0; i < n; i++) {
		char **sub = NULL, **nrp;
		size_t ns = 0;

		if (lw_repeat_list(paths[i], &sub, &ns) < 0)
			goto out;
		nrp = realloc(rp, (nr + (ns ? ns : 1)) * sizeof(*rp));
		if (!nrp) {
			while (ns)
				free(sub[--ns]);
			free(sub);
			error("out of memory");
			goto out;
		}
		rp = nrp;
		g[i].name = paths[i];
		g[i].first = nr;
		g[i].n = ns ? ns : 1;
		if (ns) {
			memcpy(rp + nr, sub, ns * sizeof(*sub));
			nr += ns;
		} else if (!(rp[nr++] = strdup(paths[i]))) {
			error("out of memory");
			goto out;
		}
		free(sub);
	}
	cr = calloc(nr, sizeof(*cr));
	if (!cr) {
		error("out of memory");
		goto out;
	}
	for (i = 0; i < nr; i++)
		if (lw_crun_load_dir(&cr[i], rp[i]) < 0)
			goto out;
	lw_cmp_opts_default(&o);
	lw_cmp_add_threshold(&o, 50 * LW_NSEC_PER_USEC);
	lw_cmp_add_threshold(&o, 100 * LW_NSEC_PER_USEC);
	c->doc = lw_compare_groups(cr, g, n, 0, &o);
	if (!c->doc || load_runs(c, rp, nr) < 0)
		goto out;
	take_stats(c);
	ret = 0;
out:
	for (i = 0; cr && i < nr; i++)
		lw_crun_free(&cr[i]);
	free(cr);
	for (i = 0; i < nr; i++)
		free(rp[i]);
	free(rp);
	free(g);
	if (ret < 0)
		lw_comparison_free(c);
	return ret;
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

/* The figures, within-run intervals and verdicts of the comparison's report
 * view (analysis/compare.c); a cell it does not have is "no data". */
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
				pc->count = (uint64_t)json_integer_value(json_object_get(json_object_get(
					json_object_get(json_array_get(json_object_get(c->doc, "runs"), ri),
							"probes"), name), "count"));
				if (json_is_integer(json_object_get(e, "value_ns"))) {
					pc->value = (uint64_t)json_integer_value(json_object_get(e, "value_ns"));
					if (!pc->count)	/* a document without the runs' counts */
						pc->count = (uint64_t)json_integer_value(json_object_get(
							json_object_get(json_object_get(lw_rrun_probes(&c->run[ri]),
							name), "all"), "count")) ?: 1;
				}
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
	/* compare writes at most 64; each one listed is a run loaded */
	if (n > 64) {
		error("%s: \"runs\" lists %zu runs, more than the 64 compare compares", path, n);
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
	if (json_is_integer(json_object_get(c->doc, "baseline_run")) ||
	    json_is_integer(json_object_get(c->doc, "baseline"))) {
		json_int_t b = json_integer_value(json_object_get(c->doc, "baseline_run") ?:
						  json_object_get(c->doc, "baseline"));

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
