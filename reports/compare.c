// SPDX-License-Identifier: GPL-2.0-only
/*
 * Comparison of runs for reports: the document of analysis/compare.c (the
 * one comparison engine), made from run directories or read from `latwatt
 * compare -o` output, read once into struct lw_comparison (reports/report.h):
 * groups with their figures, each run's own beneath, each group's
 * comparison with the baseline, the rules.  The views render that.
 */
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "analysis/failon.h"
#include "lib/error.h"
#include "lib/json.h"
#include "lib/parse.h"
#include "lib/samples.h"
#include "lib/sort.h"
#include "lib/stats.h"
#include "reports/report.h"

/* How verdicts are reached: doc/latwatt.1, LATWATT COMPARE, the section of
 * that name, paragraph by paragraph (tests/unit/test_reports.c keeps them
 * equal). */
const char *const lw_cmp_method[] = {
	"The run, not the sample, is the unit of evidence. Latency samples inside a run are "
	"dependent (a noisy second gives hundreds of high samples together) and a machine drifts "
	"between runs (other load, thermal state, memory layout, the boot), so millions of samples "
	"from one run say nothing about how much a second run of the same kernel would differ; "
	"tests that treat samples as independent call most differences between two runs of one "
	"kernel significant. latwatt therefore judges every metric from one figure per run (its "
	"p99, its mean, its rate of missed periods ...) and the spread of those figures between "
	"the runs of each group: a t test of the difference of the groups' means, of the logs of "
	"the figures for latencies and power (so the change is a ratio) and of the rates for "
	"counts. Welch's test (with the Welch-Satterthwaite degrees of freedom) when both groups "
	"have two runs or more; when one side has a single run and the other at least three, the "
	"prediction test of one new run from a set (the set's spread stands for both, t with "
	"runs - 2 degrees of freedom: a new kernel's run against a stored baseline of repeats). "
	"Each group's variance is taken at least as large as what one of its runs varies within "
	"itself (from the within-run bootstrap below; for counts, a Poisson count's variance; for "
	"histogram figures, the bucket width), so that a few runs that happen to agree cannot make "
	"a small difference significant. This test on per-run figures was chosen over a two-stage "
	"(hierarchical) bootstrap because with the few runs a comparison usually has (3 to 10 a "
	"side) a bootstrap of runs has only a handful of distinct resamples and its intervals are "
	"too narrow, while the t test is exact for normal per-run figures and robust to moderate "
	"departures; the dependence inside a run needs no model at all, since each run "
	"contributes one figure.",
	"With one run a side (or one and two) there is no run-to-run spread to judge by: every "
	"metric is shown with each side's figure and its within-run interval, the verdict is n/a, "
	"and the comparison says so and how many runs a side would find a --practical change "
	"(repeats_needed: a lower bound, from what a run varies within itself; runs also differ "
	"from one another).",
	"Per tested metric the comparison reports the smallest change it could have detected with "
	"the runs it had (min_detectable, mdc in the table): the change the test finds with "
	"probability 0.8 at level --alpha times the metric's share of the weights of the metrics "
	"tested (the first step of Holm's adjustment: alpha/k when each of k weighs 1; below for "
	"the per-CPU metrics), (t(1 - alpha/2k) + t(0.8)) times the standard error. \u201c5 runs "
	"a side detect 10 % in p99 here\u201d reads off it.",
	"And the design's power at the spread seen: how many runs a side the test would need to "
	"find a --practical change with probability 0.8 at the same level "
	"(min_detectable.runs_needed; one run's spread taken from the standard error the runs "
	"gave, normal approximation, at least 3 and at most 1000), printed for each probe's p99 as "
	"\u201cdesign: cyclic.p99 finds a 5% change with probability 0.8 at the spread seen with 12 "
	"runs a side (these runs: 18%)\u201d. latwatt run --repeat auto adds the runs until the "
	"answer is decided instead (see LATWATT RUN, Sequential designs).",
	"A verdict is better or worse when the change is significant after Holm's step-down "
	"adjustment (weighted, for the per-CPU metrics) over all metrics tested in one "
	"comparison, and larger than --practical (lower "
	"latency, fewer events and less power are better); else no significant difference, or n/a "
	"when it cannot be tested. So two groups of runs of one system get any verdict at all, and "
	"a CI gate with --fail-on any:worse fails, with probability at most --alpha. The proof is "
	"in bench/compare-calibration (A/A on real repeated runs, and a planted change) and "
	"tests/unit/test_compare.c (synthetic bursty runs with a run-level random effect).",
	NULL,
};

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static struct lw_cfig fig(double v, const json_t *ci)
{
	struct lw_cfig f = { v, NAN, NAN };

	if (json_is_array(ci) && json_is_number(json_array_get(ci, 0)) &&
	    json_is_number(json_array_get(ci, 1))) {
		f.lo = json_number_value(json_array_get(ci, 0));
		f.hi = json_number_value(json_array_get(ci, 1));
	}
	return f;
}

const char *lw_cmp_run_name(const struct lw_comparison *c, size_t ri, char *buf, size_t len)
{
	for (size_t g = 0; g < c->ngroup; g++)
		if (ri >= c->group[g].first && ri < c->group[g].first + c->group[g].n) {
			if (c->group[g].n == 1)
				snprintf(buf, len, "%s", c->group[g].name);
			else
				snprintf(buf, len, "%s/%s", c->group[g].name, c->run[ri].label);
			return buf;
		}
	snprintf(buf, len, "%s", ri < c->nrun ? c->run[ri].label : "?");
	return buf;
}

const struct lw_cmetric *lw_cmp_metric(const struct lw_cmp_group *g, const char *name)
{
	for (size_t i = 0; i < g->nm; i++)
		if (!strcmp(g->m[i].name, name))
			return &g->m[i];
	return NULL;
}

static int read_metric(struct lw_cmetric *m, const json_t *j)
{
	const json_t *ci = json_object_get(j, "ci_rel"), *per = json_object_get(j, "per_run");
	int rate = json_is_number(json_object_get(j, "rate_rel"));

	m->name = str(j, "name") ?: "?";
	m->probe = str(j, "probe");
	m->kind = str(j, "kind") ?: "";
	m->unit = str(j, "unit") ?: "";
	m->verdict = str(j, "verdict") ?: LW_NA;
	m->note = str(j, "note");
	m->base = lw_jnum(j, "baseline", NAN);
	m->value = lw_jnum(j, "value", NAN);
	m->base_total = lw_jnum(j, "baseline_total", NAN);
	m->total = lw_jnum(j, "total", NAN);
	/* the change a verdict is judged on: of the rates for counts */
	m->rel = rate ? lw_jnum(j, "rate_rel", NAN) : lw_jnum(j, "rel", NAN);
	m->rel_infinite = json_is_true(json_object_get(j, "rel_infinite"));
	m->ci_lo = json_is_number(json_array_get(ci, 0)) ? json_number_value(json_array_get(ci, 0)) : NAN;
	m->ci_hi = json_is_number(json_array_get(ci, 1)) ? json_number_value(json_array_get(ci, 1)) : NAN;
	m->p_adj = lw_jnum(j, "p_adjusted", NAN);
	m->mdc = lw_jnum(json_object_get(j, "min_detectable"), "value", NAN);
	for (int s = 0; s < 2; s++) {
		const json_t *a = json_array_get(per, (size_t)s), *v;
		size_t i;

		m->nper[s] = json_array_size(a);
		if (!m->nper[s])
			continue;
		m->per[s] = calloc(m->nper[s], sizeof(*m->per[s]));
		if (!m->per[s])
			return error("out of memory");
		json_array_foreach(a, i, v)
			m->per[s][i] = json_is_number(v) ? json_number_value(v) : NAN;
	}
	return 0;
}

static struct lw_cmp_probe *cmp_probe(struct lw_comparison *c, const char *name)
{
	struct lw_cmp_probe *p;
	size_t rc = c->nrun * LW_CMP_NSTAT, gc = c->ngroup * LW_CMP_NSTAT;

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
	p->grp = calloc(gc, sizeof(*p->grp));
	p->run = calloc(rc, sizeof(*p->run));
	p->count = calloc(c->nrun, sizeof(*p->count));
	p->m = calloc(gc, sizeof(*p->m));
	c->nprobe++;
	if (!p->grp || !p->run || !p->count || !p->m)
		return NULL;
	for (size_t k = 0; k < gc; k++)
		p->grp[k] = (struct lw_cfig){ NAN, NAN, NAN };
	for (size_t k = 0; k < rc; k++)
		p->run[k] = (struct lw_cfig){ NAN, NAN, NAN };
	for (size_t k = 0; k < c->nrun; k++)
		p->count[k] = NAN;
	return p;
}

/* Largest share first (over the runs), then by name. */
static const struct lw_comparison *sort_c;

static int by_share(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	double mx = 0, my = 0;

	for (size_t r = 0; r < sort_c->nrun; r++) {
		double u = sort_c->share[r * sort_c->ncause + x], v = sort_c->share[r * sort_c->ncause + y];

		mx = isfinite(u) && u > mx ? u : mx;
		my = isfinite(v) && v > my ? v : my;
	}
	if (mx != my)
		return mx > my ? -1 : 1;
	return strcmp(sort_c->cause[x], sort_c->cause[y]);
}

/* A run's spike causes: the engine's (from analysis.json), else those of
 * the analysis the report made for a run never analyzed (with its trace
 * pass, as the run's own report shows them); NULL: none. */
static const json_t *run_causes(struct lw_comparison *c, const json_t *r, size_t i)
{
	const json_t *cs = json_object_get(r, "causes"), *sp;

	if (json_is_object(cs) || i >= c->nrun)
		return json_is_object(cs) ? cs : NULL;
	sp = json_object_get(json_object_get(c->run[i].analysis, "spikes"), "causes");
	if (!json_is_array(sp))
		return NULL;
	c->causes_computed = 1;
	return sp;
}

/* The share of cause @name in @cs (an object of shares, or the analysis'
 * array of {cause, share}); 0 when it is not there. */
static double cause_share(const json_t *cs, const char *name)
{
	const json_t *e;
	size_t i;

	if (json_is_object(cs))
		return json_is_number(json_object_get(cs, name)) ?
		       json_number_value(json_object_get(cs, name)) : 0;
	json_array_foreach(cs, i, e)
		if (!strcmp(str(e, "cause") ?: "", name) && json_is_number(json_object_get(e, "share")))
			return json_number_value(json_object_get(e, "share"));
	return 0;
}

static int add_cause(struct lw_comparison *c, const char *name)
{
	const char **names;

	for (size_t j = 0; j < c->ncause; j++)
		if (!strcmp(c->cause[j], name))
			return 0;
	names = realloc(c->cause, (c->ncause + 1) * sizeof(*names));
	if (!names)
		return error("out of memory");
	c->cause = names;
	c->cause[c->ncause++] = name;
	return 0;
}

/* Each run's power and spike causes (the engine's per-run objects). */
static int read_extras(struct lw_comparison *c)
{
	const json_t *runs = json_object_get(c->doc, "runs"), *r, *cs, *v = NULL;
	const char *k;
	size_t i, e, cells, *order = NULL;
	double *share;
	const char **names;

	c->power_w = calloc(c->nrun, sizeof(*c->power_w));
	c->power_kind = calloc(c->nrun, sizeof(*c->power_kind));
	if (!c->power_w || !c->power_kind)
		return error("out of memory");
	json_array_foreach(runs, i, r) {
		const json_t *pw = json_object_get(r, "power");

		c->power_w[i] = lw_jnum(pw, "mean_w", NAN);
		c->power_kind[i] = str(pw, "source");
		cs = run_causes(c, r, i);
		if (json_is_object(cs)) {
			json_object_foreach((json_t *)cs, k, v)
				if (add_cause(c, k) < 0)
					return -1;
		} else {
			json_array_foreach(cs, e, v)
				if (str(v, "cause") && add_cause(c, str(v, "cause")) < 0)
					return -1;
		}
	}
	cells = c->nrun * c->ncause;
	cells += !cells;
	c->share = malloc(cells * sizeof(*c->share));
	order = malloc((c->ncause ? c->ncause : 1) * sizeof(*order));
	share = malloc(cells * sizeof(*share));
	names = malloc((c->ncause ? c->ncause : 1) * sizeof(*names));
	if (!c->share || !order || !share || !names) {
		free(order);
		free(share);
		free(names);
		return error("out of memory");
	}
	json_array_foreach(runs, i, r) {
		cs = run_causes(c, r, i);
		for (size_t j = 0; j < c->ncause; j++)
			c->share[i * c->ncause + j] = cs ? cause_share(cs, c->cause[j]) : NAN;
	}
	for (size_t j = 0; j < c->ncause; j++)
		order[j] = j;
	sort_c = c;
	lw_qsort(order, c->ncause, sizeof(*order), by_share);
	for (size_t j = 0; j < c->ncause; j++) {
		names[j] = c->cause[order[j]];
		for (size_t ri = 0; ri < c->nrun; ri++)
			share[ri * c->ncause + j] = c->share[ri * c->ncause + order[j]];
	}
	free(c->cause);
	free(c->share);
	c->cause = names;
	c->share = share;
	free(order);
	return 0;
}

/*
 * The document into @c: groups (runs in group order, as the engine writes
 * them), per probe the groups' and the runs' figures, each compared group's
 * metrics.  @where names the document in errors.
 */
static int read_doc(struct lw_comparison *c, const char *where)
{
	const json_t *doc = c->doc, *groups = json_object_get(doc, "groups");
	const json_t *runs = json_object_get(doc, "runs"), *cmps = json_object_get(doc, "comparisons");
	const json_t *set = json_object_get(doc, "settings"), *g, *cj;
	size_t i, next = 0;

	c->ngroup = json_array_size(groups);
	if (c->ngroup < 2 || !json_is_array(cmps))
		return error("%s: no \"groups\" and \"comparisons\" to show (not written by 'latwatt "
			     "compare -o'?)", where);
	c->group = calloc(c->ngroup, sizeof(*c->group));
	if (!c->group)
		return error("out of memory");
	c->alpha = lw_jnum(set, "alpha", NAN);
	c->practical = lw_jnum(set, "practical", NAN);
	c->conf = lw_jnum(set, "confidence", NAN);
	if (!json_is_integer(json_object_get(doc, "baseline")) ||
	    (size_t)json_integer_value(json_object_get(doc, "baseline")) >= c->ngroup)
		return error("%s: \"baseline\" is not one of the %zu groups", where, c->ngroup);
	c->baseline = (size_t)json_integer_value(json_object_get(doc, "baseline"));
	json_array_foreach(groups, i, g) {
		struct lw_cmp_group *cg = &c->group[i];
		const json_t *gr = json_object_get(g, "runs"), *idx;
		size_t k;

		cg->name = str(g, "name") ?: "?";
		cg->first = next;
		cg->n = json_array_size(gr);
		cg->repeats_needed = -1;
		json_array_foreach(gr, k, idx)
			if (!json_is_integer(idx) || (size_t)json_integer_value(idx) != next++)
				return error("%s: groups[%zu].runs: the runs of a group must follow each "
					     "other in \"runs\"", where, i);
		if (!cg->n)
			return error("%s: groups[%zu] has no runs", where, i);
	}
	if (next != json_array_size(runs) || next != c->nrun)
		return error("%s: the groups hold %zu runs, \"runs\" %zu", where, next,
			     json_array_size(runs));
	json_array_foreach(cmps, i, cj) {
		const json_t *ms = json_object_get(cj, "metrics"), *mj;
		json_int_t gi = json_integer_value(json_object_get(cj, "run"));
		struct lw_cmp_group *cg;
		size_t k;

		if (!json_is_integer(json_object_get(cj, "run")) || gi < 0 || (size_t)gi >= c->ngroup ||
		    (size_t)gi == c->baseline || c->group[gi].compared)
			return error("%s: comparisons[%zu]: \"run\" is not a group compared once", where, i);
		cg = &c->group[gi];
		cg->compared = 1;
		cg->verdicts = json_is_true(json_object_get(cj, "verdicts"));
		if (json_is_integer(json_object_get(cj, "repeats_needed")))
			cg->repeats_needed = (long)json_integer_value(json_object_get(cj, "repeats_needed"));
		cg->runs[0] = (size_t)json_integer_value(json_array_get(json_object_get(cj, "runs"), 0));
		cg->runs[1] = (size_t)json_integer_value(json_array_get(json_object_get(cj, "runs"), 1));
		cg->m = calloc(json_array_size(ms) + 1, sizeof(*cg->m));
		if (!cg->m)
			return error("out of memory");
		json_array_foreach(ms, k, mj) {
			if (!json_is_object(mj))
				continue;
			if (read_metric(&cg->m[cg->nm++], mj) < 0)
				return -1;
		}
	}
	if (read_extras(c) < 0)
		return -1;
	/* per probe: each group's figures, each run's */
	for (size_t gi = 0; gi < c->ngroup; gi++) {
		const json_t *probes = json_object_get(json_array_get(groups, gi), "probes"), *pj;
		const char *pn;

		json_object_foreach((json_t *)probes, pn, pj) {
			struct lw_cmp_probe *p = cmp_probe(c, pn);
			const json_t *pc = json_object_get(pj, "percentiles");

			if (!p)
				return error("out of memory");
			for (int k = 0; k < LW_CMP_NSTAT; k++) {
				const json_t *e = k < LW_NPCT ? json_object_get(pc, lw_stat_names[k]) :
						  json_object_get(pj, lw_stat_names[k]);
				struct lw_cfig *f = &p->grp[gi * LW_CMP_NSTAT + k];
				char name[96];

				if (k == LW_CMP_NSTAT - 1)
					*f = (struct lw_cfig){ lw_jnum(pj, "max_ns", NAN), NAN, NAN };
				else
					*f = fig(lw_jnum(e, "value_ns", NAN), json_object_get(e, "ci_ns"));
				snprintf(name, sizeof(name), "%s.%s", pn, lw_stat_names[k]);
				p->m[gi * LW_CMP_NSTAT + k] = lw_cmp_metric(&c->group[gi], name);
			}
		}
	}
	json_array_foreach(runs, i, g) {
		const json_t *probes = json_object_get(g, "probes"), *pj;
		const char *pn;

		json_object_foreach((json_t *)probes, pn, pj) {
			struct lw_cmp_probe *p = cmp_probe(c, pn);
			const json_t *pc = json_object_get(pj, "percentiles");

			if (!p)
				return error("out of memory");
			p->count[i] = lw_jnum(pj, "count", NAN);
			for (int k = 0; k < LW_NPCT; k++) {
				const json_t *e = json_object_get(pc, lw_stat_names[k]);

				p->run[i * LW_CMP_NSTAT + k] = fig(lw_jnum(e, "value_ns", NAN),
								   json_object_get(e, "ci_ns"));
			}
			p->run[i * LW_CMP_NSTAT + LW_NPCT] = fig(lw_jnum(pj, "mean_ns", NAN),
								 json_object_get(pj, "mean_ci_ns"));
			p->run[i * LW_CMP_NSTAT + LW_NPCT + 1] = (struct lw_cfig){ lw_jnum(pj, "max_ns", NAN),
										   NAN, NAN };
		}
	}
	return 0;
}

/* Load every run of the document for its histograms and header: @paths
 * in the document's order. */
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
	if (!c->doc || load_runs(c, rp, nr) < 0 || read_doc(c, "the comparison") < 0)
		goto out;
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

int lw_comparison_from_json(struct lw_comparison *c, const char *path, double tolerance)
{
	const json_t *runs, *e;
	const char *schema;
	char **paths = NULL;
	json_int_t version;
	size_t n = 0, i;
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
	/* version 1 had the same groups, runs and comparisons */
	version = json_integer_value(json_object_get(c->doc, "version"));
	if (version < 1 || version > LW_COMPARISON_VERSION) {
		error("%s: comparison version %lld, this latwatt reads 1 to %d", path,
		      (long long)version, LW_COMPARISON_VERSION);
		goto out;
	}
	runs = json_object_get(c->doc, "runs");
	n = json_array_size(runs);
	if (n < 2) {
		error("%s: \"runs\" must list at least two runs", path);
		goto out;
	}
	/* each one listed is a run loaded */
	if (n > 512) {
		error("%s: \"runs\" lists %zu runs, more than the 512 compare compares", path, n);
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
	if (load_runs(c, paths, n) < 0 || read_doc(c, path) < 0)
		goto out;
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
		free(c->probe[i].grp);
		free(c->probe[i].run);
		free(c->probe[i].count);
		free(c->probe[i].m);
	}
	free(c->probe);
	for (size_t g = 0; c->group && g < c->ngroup; g++) {
		for (size_t i = 0; i < c->group[g].nm; i++) {
			free(c->group[g].m[i].per[0]);
			free(c->group[g].m[i].per[1]);
		}
		free(c->group[g].m);
	}
	free(c->group);
	free(c->power_w);
	free(c->power_kind);
	free(c->cause);
	free(c->share);
	json_decref(c->doc);
	memset(c, 0, sizeof(*c));
}

/* ---- the answer ------------------------------------------------------ */

/* The verdicts a group's comparison holds: worse and better metrics named
 * (the first few, "first N of M"), or why there is none. */
static void group_summary(const struct lw_comparison *c, const struct lw_cmp_group *g, char *buf,
			  size_t len)
{
	const struct lw_cmp_group *b = &c->group[c->baseline];
	size_t tested = 0, nw = 0, nb = 0, off;

	for (size_t i = 0; i < g->nm; i++) {
		tested += strcmp(g->m[i].verdict, LW_NA) != 0;
		nw += !strcmp(g->m[i].verdict, LW_WORSE);
		nb += !strcmp(g->m[i].verdict, LW_BETTER);
	}
	off = (size_t)snprintf(buf, len, "%s against %s (%zu run%s against %zu): ", g->name, b->name,
			       g->n, g->n == 1 ? "" : "s", b->n);
	if (off >= len)
		return;
	if (!g->verdicts) {
		snprintf(buf + off, len - off, "no verdict: too few runs to measure how runs vary "
			 "from one another; verdicts need at least 2 runs a side (or 3 against 1)");
		if (g->repeats_needed > 0) {
			off = strlen(buf);
			snprintf(buf + off, len - off, ", at least %ld a side for a %.0f %% change here "
				 "(latwatt run --repeat N)", g->repeats_needed, c->practical * 100);
		}
		return;
	}
	if (!tested) {
		snprintf(buf + off, len - off, "no verdict: no metric could be tested");
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		const char *want = pass ? LW_BETTER : LW_WORSE;
		size_t n = pass ? nb : nw, shown = 0;

		if (!n)
			continue;
		off = strlen(buf);
		snprintf(buf + off, len - off, "%s%s", pass && nw ? "; " : "", want);
		for (size_t i = 0; i < g->nm && shown < 3; i++) {
			const struct lw_cmetric *m = &g->m[i];

			if (strcmp(m->verdict, want))
				continue;
			off = strlen(buf);
			if (m->rel_infinite)
				snprintf(buf + off, len - off, "%s %s (from 0)", shown ? "," : "", m->name);
			else
				snprintf(buf + off, len - off, "%s %s %+.1f %%", shown ? "," : "", m->name,
					 m->rel * 100);
			shown++;
		}
		if (shown < n) {
			off = strlen(buf);
			snprintf(buf + off, len - off, " (first %zu of %zu)", shown, n);
		}
	}
	off = strlen(buf);
	if (!nw && !nb)
		snprintf(buf + off, len - off, "no significant difference in the %zu metrics tested "
			 "(p after Holm %s %.2g, or a change within %.0f %%)", tested, "\u2265",
			 c->alpha, c->practical * 100);
	else
		snprintf(buf + off, len - off, "; %zu other metric%s tested: no significant "
			 "difference", tested - nw - nb, tested - nw - nb == 1 ? "" : "s");
}

size_t lw_cmp_summary(const struct lw_comparison *c, char (*lines)[256], size_t max)
{
	size_t n = 0, compared = 0;

	for (size_t g = 0; g < c->ngroup; g++)
		compared += c->group[g].compared;
	for (size_t g = 0; g < c->ngroup && n < max; g++) {
		if (!c->group[g].compared)
			continue;
		if (n + 1 == max && compared > max) {
			snprintf(lines[n], 256, "(first %zu of %zu groups compared; each in its "
				 "verdicts below)", n, compared);
			n++;
			break;
		}
		group_summary(c, &c->group[g], lines[n++], 256);
	}
	return n;
}

/* ---- checks ---------------------------------------------------------- */

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

	if (json_is_array(rules)) {	/* the comparison's own rules (--fail-on) */
		json_array_foreach((json_t *)rules, i, e) {
			struct lw_check ck = { .suite = "compare" };
			const char *name = json_string_value(json_object_get(e, "name"));
			const char *res = json_string_value(json_object_get(e, "result"));

			snprintf(ck.name, sizeof(ck.name), "%s", name ? name : "rule");
			/* undecided (or anything else) is skipped with its reason */
			ck.result = verdict_of(res ? res : LW_RULE_UNDECIDED);
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
	/* Our rule: no percentile of a group judged worse than the baseline's
	 * by more than the tolerance (the engine's verdicts). */
	for (size_t gi = 0; gi < c->ngroup; gi++) {
		const struct lw_cmp_group *g = &c->group[gi];

		if (!g->compared)
			continue;
		for (size_t pi = 0; pi < c->nprobe; pi++) {
			const struct lw_cmp_probe *p = &c->probe[pi];

			for (int k = 0; k < LW_NPCT; k++) {
				const struct lw_cmetric *m = p->m[gi * LW_CMP_NSTAT + k];
				struct lw_check ck = { .suite = "compare", .unit = "%" };
				char a[32], b[32], why[200];

				snprintf(ck.name, sizeof(ck.name), "compare.%s.%s.%s", p->name,
					 lw_stat_names[k], g->name);
				ck.limit = c->tolerance * 100;
				if (!m) {
					ck.result = LW_SKIP;
					snprintf(ck.message, sizeof(ck.message), "%s has no %s "
						 "in both groups", g->name, p->name);
				} else if (!strcmp(m->verdict, LW_NA)) {
					ck.result = LW_SKIP;
					if (!g->verdicts)
						snprintf(why, sizeof(why), "no verdict with %zu run%s against "
							 "%zu: %s", g->runs[1], g->runs[1] == 1 ? "" : "s",
							 g->runs[0], LW_RULE_RUNS_NEEDED);
					else
						snprintf(why, sizeof(why), "%s", m->note ?: "not tested");
					snprintf(ck.message, sizeof(ck.message), "%s", why);
				} else {
					ck.measured = m->rel * 100;
					ck.result = !strcmp(m->verdict, LW_WORSE) && ck.measured > ck.limit ?
						    LW_FAIL : LW_PASS;
					snprintf(ck.message, sizeof(ck.message), "%s: %s %s us against %s "
						 "%s us, %+.1f %% (p %.3f after Holm); fails when worse by "
						 "more than %.0f %%", m->verdict, g->name,
						 lw_fmt_us(m->value, a, sizeof(a)),
						 c->group[c->baseline].name, lw_fmt_us(m->base, b, sizeof(b)),
						 ck.measured, m->p_adj, ck.limit);
				}
				if (lw_checks_add(out, &ck) < 0)
					return -1;
			}
		}
	}
	return 0;
}
