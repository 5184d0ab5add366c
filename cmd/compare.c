// SPDX-License-Identifier: GPL-2.0-only
/* latwatt compare RUN...: runs side by side against a baseline, verdicts, CI rules. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/db.h"
#include "analysis/failon.h"
#include "cmd/commands.h"
#include "cmd/lab.h"
#include "lib/error.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/sysinfo.h"
#include "reports/report.h"

static const char usage[] =
"usage: latwatt compare [OPTIONS] RUN...\n"
"       latwatt compare [OPTIONS] --group NAME RUN... --group NAME RUN...\n"
"\n"
"Compare runs, or groups of repeated runs of one system, each against a\n"
"baseline (the first unless --baseline): kernel, preemption model, nohz_full;\n"
"percentiles, mean, block maxima, counts above thresholds, missed periods,\n"
"xruns, dropped frames and power judged from the spread between runs (one\n"
"figure per run); an extreme-value estimate of the worst case from the pooled\n"
"block maxima; the distributions, idle residency and spike causes shown.\n"
"Per metric a verdict: better, worse, no significant difference, or n/a, and\n"
"the smallest change the runs could detect. With one run a side there is no\n"
"verdict: repeat the runs (latwatt run --repeat N).\n"
"\n"
"RUN is a run directory, a directory of repeats (latwatt run --repeat: its\n"
"complete runs form a group; one interrupted, killed or truncated is left out\n"
"with a note), db:ID (a run in the results store) or baseline:NAME; with\n"
"--runner lava, a jobs file of 'latwatt lab submit' (JOBS.json): its jobs'\n"
"runs are fetched from the lab (those fetched before are kept, in\n"
"JOBS.runs/ beside it, or --lab-cache DIR/JOBS/) and each kernel's form a\n"
"group named by the kernel; a job that did not complete is named and left out.\n"
"\n"
"  -g, --group NAME            the RUNs that follow form group NAME\n"
"  -b, --baseline RUN|NAME     compare against RUN or group NAME (default: the first)\n"
"  -B, --against-baseline NAME compare against the stored baseline NAME\n"
"      --db PATH               results store (default: see 'latwatt db --help')\n"
"      --runner dir|lava       what a RUN is: a run's directory (default) or a\n"
"                              LAVA lab's jobs file, JOBS.json\n"
"      --lab-cache DIR         --runner lava: fetch the runs into DIR/JOBS/\n"
"      --token-file FILE       --runner lava: the lab's API token (default\n"
"                              $LAVA_TOKEN, else the file $LAVA_TOKEN_FILE)\n"
"  -o, --output FILE           write the comparison JSON (latwatt-comparison) to FILE\n"
"      --json                  print the comparison JSON instead of the table\n"
"  -F, --fail-on RULE          exit 1 when RULE holds for a run (repeatable), e.g.\n"
"                              'p99>+10%', 'max>+20%', 'xruns>0', 'p99>150us', 'any:worse';\n"
"                              default: any:worse\n"
"  -t, --threshold US          count samples above US (repeatable; default 50 and 100)\n"
"      --alpha P               significance level (default 0.05)\n"
"      --practical PCT         smallest change that matters, percent (default 5)\n"
"      --confidence PCT        confidence of intervals, percent (default 95)\n"
"      --resamples N           bootstrap resamples (default 2000)\n"
"      --seed N                bootstrap seed (default 1)\n"
"      --block TIME            block length for maxima, a multiple of 10ms (default 1s)\n"
"      --horizon TIME          worst-case horizon (default 1h)\n"
"      --min-blocks N          fewest blocks to extrapolate from (default 30)\n"
"      --evt MODEL             gev (probability-weighted moments, default) or gumbel (ML)\n"
"      --judge kernel|raw      judge latency on the kernel-attributable figures (each\n"
"                              spike less the host's time analyze found in it) or on\n"
"                              the raw ones; default kernel when a run's sysinfo found\n"
"                              a virtual machine, else raw\n"
"  -q, --quiet                 no table\n"
"  -h, --help                  this text\n"
"\n"
"Exit status: 0 no rule failed, 1 a rule failed (regression), 2 error, or\n"
"--fail-on given and no rule could be judged (verdicts need 2 runs a side).\n";

#define MAX_RUNS  256
#define MAX_RULES 64
#define MAX_GROUPS 64

#define MAX_ITEMS 512

enum { JUDGE_AUTO, JUDGE_KERNEL, JUDGE_RAW };

struct item {
	const char *ref, *group;
};

struct params {
	struct item items[MAX_ITEMS];	/* the runs to load, after expand() */
	size_t nitems;
	char *owned[MAX_ITEMS];
	size_t nowned;
	struct lw_db *dbh;		/* opened for baseline sets */
	const char *runs[MAX_RUNS + 1];
	int group[MAX_RUNS + 1];	/* index into gname, -1: a group of its own */
	size_t nruns;
	const char *gname[MAX_GROUPS];
	size_t ngroups;
	const char *baseline;		/* a RUN reference, or NULL */
	char *baseline_buf;		/* "baseline:NAME" */
	const char *db;
	const char *output;
	int lava;			/* --runner lava: RUNs are jobs files */
	const char *lab_cache, *token_file;
	char *lab_owned[2 * MAX_RUNS];	/* the run directories and group names made */
	size_t nlab_owned;
	int json, quiet, have_thr;
	int judge;			/* JUDGE_* */
	struct lw_rule rules[MAX_RULES];
	size_t nrules;
	struct lw_cmp_opts o;
};

/* The options of the statistics (--threshold ... --evt), @c as getopt_long()
 * gives it: 0 taken, -1 after error(), 1 not one of them. */
static int stat_option(struct params *p, int c, const char *arg)
{
	uint64_t u;
	double d;

	switch (c) {
	case 't':
		if (lw_parse_usecs("--threshold", arg, &u) < 0 ||
		    lw_cmp_add_threshold(&p->o, u) < 0)
			return -1;
		p->have_thr = 1;
		break;
	case 'a':
		if (lw_parse_double("--alpha", arg, 1e-9, 0.5, &p->o.alpha) < 0)
			return -1;
		break;
	case 'P':
		if (lw_parse_double("--practical", arg, 0, 1000, &d) < 0)
			return -1;
		p->o.practical = d / 100;
		break;
	case 'c':
		if (lw_parse_double("--confidence", arg, 50, 99.99, &d) < 0)
			return -1;
		p->o.conf = d / 100;
		break;
	case 'R':
		if (lw_parse_uint("--resamples", arg, 100, 1000000, &u) < 0)
			return -1;
		p->o.resamples = (unsigned)u;
		break;
	case 's':
		if (lw_parse_uint("--seed", arg, 0, UINT64_MAX, &p->o.seed) < 0)
			return -1;
		break;
	case 'k':
		if (lw_parse_duration("--block", arg, &u) < 0)
			return -1;
		if (!u || u % LW_BLOCK_BASE_NS)
			return error("--block: '%s' is not a multiple of 10ms", arg);
		p->o.block_ns = u;
		break;
	case 'H':
		if (lw_parse_duration("--horizon", arg, &u) < 0)
			return -1;
		if (!u)
			return error("--horizon: must be positive");
		p->o.horizon_ns = u;
		break;
	case 'm':
		if (lw_parse_uint("--min-blocks", arg, 3, 100000000, &u) < 0)
			return -1;
		p->o.min_blocks = (unsigned)u;
		break;
	case 'E': {
		int m = lw_evt_model_by_name(arg);

		if (m < 0)
			return error("--evt: unknown model '%s' (gev or gumbel)", arg);
		p->o.model = (enum lw_evt_model)m;
		break;
	}
	default:
		return 1;
	}
	return 0;
}

static int parse(struct params *p, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "group",            required_argument, NULL, 'g' },
		{ "baseline",         required_argument, NULL, 'b' },
		{ "against-baseline", required_argument, NULL, 'B' },
		{ "db",               required_argument, NULL, 'D' },
		{ "output",           required_argument, NULL, 'o' },
		{ "json",             no_argument,       NULL, 'j' },
		{ "fail-on",          required_argument, NULL, 'F' },
		{ "threshold",        required_argument, NULL, 't' },
		{ "alpha",            required_argument, NULL, 'a' },
		{ "practical",        required_argument, NULL, 'P' },
		{ "confidence",       required_argument, NULL, 'c' },
		{ "resamples",        required_argument, NULL, 'R' },
		{ "seed",             required_argument, NULL, 's' },
		{ "block",            required_argument, NULL, 'k' },
		{ "horizon",          required_argument, NULL, 'H' },
		{ "min-blocks",       required_argument, NULL, 'm' },
		{ "evt",              required_argument, NULL, 'E' },
		{ "judge",            required_argument, NULL, 'J' },
		{ "runner",           required_argument, NULL, 'U' },
		{ "lab-cache",        required_argument, NULL, 'C' },
		{ "token-file",       required_argument, NULL, 'T' },
		{ "quiet",            no_argument,       NULL, 'q' },
		{ "help",             no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, cur = -1, r;

	lw_cmp_opts_default(&p->o);
	optind = 0;
	opterr = 0;
	/* '-': RUNs come in order, each to the --group before it */
	while ((c = getopt_long(argc, argv, "-:g:b:B:o:F:t:qh", opts, NULL)) != -1) {
		if ((r = stat_option(p, c, optarg)) <= 0) {
			if (r < 0)
				return -1;
			continue;
		}
		switch (c) {
		case 1:
			if (p->nruns == MAX_RUNS)
				return error("at most %d runs at a time", MAX_RUNS);
			p->group[p->nruns] = cur;
			p->runs[p->nruns++] = optarg;
			break;
		case 'g':
			if (p->ngroups == MAX_GROUPS)
				return error("--group: at most %d groups", MAX_GROUPS);
			if (!*optarg || strchr(optarg, '\n'))
				return error("--group: '%s' is not a group name", optarg);
			for (size_t i = 0; i < p->ngroups; i++)
				if (!strcmp(p->gname[i], optarg))
					return error("--group %s: named twice", optarg);
			cur = (int)p->ngroups;
			p->gname[p->ngroups++] = optarg;
			break;
		case 'b':
			p->baseline = optarg;
			break;
		case 'B':
			free(p->baseline_buf);
			if (asprintf(&p->baseline_buf, "baseline:%s", optarg) < 0)
				return error("out of memory");
			p->baseline = p->baseline_buf;
			break;
		case 'D':
			p->db = optarg;
			break;
		case 'o':
			p->output = optarg;
			break;
		case 'j':
			p->json = 1;
			break;
		case 'F':
			if (p->nrules == MAX_RULES)
				return error("--fail-on: at most %d rules", MAX_RULES);
			if (lw_rule_parse(optarg, &p->rules[p->nrules]) < 0)
				return -1;
			p->nrules++;
			break;
		case 'q':
			p->quiet = 1;
			break;
		case 'J':
			if (strcmp(optarg, "kernel") && strcmp(optarg, "raw"))
				return error("--judge: '%s' is not kernel or raw", optarg);
			p->judge = strcmp(optarg, "kernel") ? JUDGE_RAW : JUDGE_KERNEL;
			break;
		case 'U':
			if (strcmp(optarg, "dir") && strcmp(optarg, "lava"))
				return error("--runner: '%s' is not dir or lava", optarg);
			p->lava = !strcmp(optarg, "lava");
			break;
		case 'C':
			p->lab_cache = optarg;
			break;
		case 'T':
			p->token_file = optarg;
			break;
		case 'h':
			return 1;
		default:	/* ':' or an unknown option */
			return lw_opt_error(c, argv, "compare");
		}
	}
	for (; optind < argc; optind++) {	/* after "--" */
		if (p->nruns == MAX_RUNS)
			return error("at most %d runs at a time", MAX_RUNS);
		p->group[p->nruns] = cur;
		p->runs[p->nruns++] = argv[optind];
	}
	for (size_t g = 0; g < p->ngroups; g++) {
		size_t i;

		for (i = 0; i < p->nruns && p->group[i] != (int)g; i++)
			;
		if (i == p->nruns)
			return error("--group %s: no runs follow it", p->gname[g]);
	}
	if (p->o.horizon_ns <= p->o.block_ns)
		return error("--horizon must be longer than --block");
	if (!p->lava && (p->lab_cache || p->token_file))
		return error("--%s: only with --runner lava", p->lab_cache ? "lab-cache" : "token-file");
	return 0;
}

static char *lab_own(struct params *p, char *s)
{
	if (!s || p->nlab_owned == sizeof(p->lab_owned) / sizeof(p->lab_owned[0])) {
		free(s);
		error("out of memory");
		return NULL;
	}
	return p->lab_owned[p->nlab_owned++] = s;
}

/*
 * --runner lava: each RUN, a jobs file, fetched into its cache and replaced
 * by its kernels' directories of repeats, each kernel a group of its own
 * (named by the kernel; by JOBS:KERNEL when another jobs file has a kernel
 * of that name; by its --group when the jobs file has one kernel).
 */
static int lab_runs(struct params *p)
{
	static struct lw_lab_kernel k[MAX_GROUPS];
	const char *runs[MAX_RUNS + 1];
	int group[MAX_RUNS + 1];
	size_t n = 0;

	for (size_t i = 0; i < p->nruns; i++) {
		const char *jobs = p->runs[i], *base = strrchr(jobs, '/');
		size_t nk, bl;
		char *cache;

		base = base ? base + 1 : jobs;
		bl = strlen(base) > 5 && !strcmp(base + strlen(base) - 5, ".json") ?
			     strlen(base) - 5 : strlen(base);
		if (p->lab_cache ? asprintf(&cache, "%s/%.*s", p->lab_cache, (int)bl, base) < 0 :
				   asprintf(&cache, "%.*s.runs", (int)(base - jobs + bl), jobs) < 0)
			return error("out of memory");
		if (!lab_own(p, cache) ||
		    lw_lab_fetch_runs(jobs, cache, p->token_file, k, MAX_GROUPS, &nk) < 0)
			return -1;
		if (p->group[i] >= 0 && nk > 1)
			return error("--group %s: %s holds %zu kernels, and a group is one kernel's runs",
				     p->gname[p->group[i]], jobs, nk);
		for (size_t m = 0; m < nk; m++) {
			int g = p->group[i];
			char *dir, *name;

			if (!k[m].runs)
				return error("%s: kernel %s: none of its %zu jobs gave a run (above)", jobs,
					     k[m].name, k[m].jobs);
			if (n == MAX_RUNS)
				return error("at most %d runs at a time", MAX_RUNS);
			if (!(dir = lab_own(p, strdup(k[m].dir))))
				return -1;
			if (g < 0) {
				if (p->ngroups == MAX_GROUPS)
					return error("at most %d groups", MAX_GROUPS);
				if (!(name = lab_own(p, strdup(k[m].name))))
					return -1;
				for (size_t q = 0; q < p->ngroups; q++)
					if (!strcmp(p->gname[q], name)) {
						if (asprintf(&name, "%s:%s", jobs, k[m].name) < 0 ||
						    !lab_own(p, name))
							return error("out of memory");
						break;
					}
				g = (int)p->ngroups;
				p->gname[p->ngroups++] = name;
			}
			runs[n] = dir;
			group[n++] = g;
		}
	}
	memcpy(p->runs, runs, n * sizeof(*runs));
	memcpy(p->group, group, n * sizeof(*group));
	p->nruns = n;
	return 0;
}

/* The runs of a stored baseline as db:ID references (none when it is one
 * run: then it is loaded as baseline:NAME, as before sets). */
static int baseline_set(struct params *p, const char *name, char ***sub, size_t *ns)
{
	int64_t *ids;
	size_t n;

	if (!p->dbh && !(p->dbh = lw_db_open(p->db)))
		return -1;
	if (lw_db_baseline_runs(p->dbh, name, &ids, &n) < 0)
		return -1;
	if (n > 1 && (*sub = calloc(n, sizeof(**sub)))) {
		for (size_t i = 0; i < n; i++)
			if (asprintf(&(*sub)[i], "db:%" PRId64, ids[i]) < 0) {
				while (i)
					free((*sub)[--i]);
				free(*sub);
				*sub = NULL;
				free(ids);
				return error("out of memory");
			}
		*ns = n;
	} else if (n > 1) {
		free(ids);
		return error("out of memory");
	}
	free(ids);
	return 0;
}

/*
 * The runs to load, in group order: each RUN with the group it belongs to
 * (its --group, else a group of its own named by it); a directory of
 * repeats stands for its runs.
 */
static int expand(struct params *p)
{
	for (size_t i = 0; i < p->nruns; i++) {
		const char *group = p->group[i] >= 0 ? p->gname[p->group[i]] : p->runs[i];
		char **sub = NULL;
		size_t ns = 0;

		/* a run named twice is two groups (compare a run with itself) */
		for (size_t k = 0, copy = 2; p->group[i] < 0 && k < p->nitems; k++)
			if (!strcmp(p->items[k].group, group)) {
				char *name;

				if (p->nowned == MAX_ITEMS)
					return error("at most %d runs at a time", MAX_ITEMS);
				if (asprintf(&name, "%s (%zu)", p->runs[i], copy++) < 0)
					return error("out of memory");
				p->owned[p->nowned++] = name;
				group = name;
				k = (size_t)-1;		/* again, against every earlier one */
			}

		if (!lw_db_is_ref(p->runs[i]) && lw_repeat_list(p->runs[i], &sub, &ns) < 0)
			return -1;
		if (!strncmp(p->runs[i], "baseline:", 9) && baseline_set(p, p->runs[i] + 9, &sub, &ns) < 0)
			return -1;
		for (size_t j = 0; j < (ns ? ns : 1); j++) {
			if (p->nitems == MAX_ITEMS || p->nowned == MAX_ITEMS) {
				for (; j < ns; j++)
					free(sub[j]);
				free(sub);
				return error("at most %d runs at a time", MAX_ITEMS);
			}
			p->items[p->nitems].group = group;
			p->items[p->nitems++].ref = ns ? sub[j] : p->runs[i];
			if (ns)
				p->owned[p->nowned++] = sub[j];
		}
		free(sub);
	}
	return 0;
}

/* Items reordered so that each group's runs are together (groups in the
 * order they first appear, the baseline's included); the groups into @g. */
static size_t group_items(struct params *p, struct lw_cgroup *g, const char *base_name, size_t *base)
{
	struct item sorted[MAX_ITEMS];
	size_t ng = 0, k = 0;

	for (size_t i = 0; i < p->nitems; i++) {
		size_t j;

		for (j = 0; j < ng && strcmp(g[j].name, p->items[i].group); j++)
			;
		if (j < ng)
			continue;
		g[ng].name = p->items[i].group;
		g[ng].first = k;
		for (size_t m = i; m < p->nitems; m++)
			if (!strcmp(p->items[m].group, g[ng].name))
				sorted[k++] = p->items[m];
		g[ng].n = k - g[ng].first;
		if (!strcmp(g[ng].name, base_name))
			*base = ng;
		ng++;
	}
	memcpy(p->items, sorted, k * sizeof(*sorted));
	return ng;
}

/* --judge auto: kernel when the manifest of a run directory among the
 * items says virtual machine (sysinfo's hypervisor); its label in @vm. */
static int judge_kernel_auto(const struct params *p, const char **vm)
{
	for (size_t i = 0; i < p->nitems; i++) {
		struct lw_rundir rd;
		int q, is_vm;

		if (lw_db_is_ref(p->items[i].ref))
			continue;
		q = lw_set_quiet(1);	/* loading it says what is wrong with it */
		if (lw_rundir_open(&rd, p->items[i].ref) < 0) {
			lw_set_quiet(q);
			continue;
		}
		lw_set_quiet(q);
		is_vm = lw_sysinfo_is_vm(json_object_get(rd.manifest, "system"));
		lw_rundir_close(&rd);
		if (is_vm) {
			*vm = p->items[i].ref;
			return 1;
		}
	}
	return 0;
}

/* The comparison's "judge": what its latency verdicts were judged on, why,
 * and the runs that could not give kernel-attributable figures. */
static json_t *judge_json(const struct params *p, int kernel, const char *vm,
			  const struct lw_crun *runs, size_t n)
{
	json_t *raw = json_array();
	char why[1200];
	uint64_t host = 0;

	for (size_t i = 0; i < n; i++) {
		if (runs[i].kernel < 0)
			json_array_append_new(raw, json_string(runs[i].label));
		host += runs[i].host_ns;
	}
	if (p->judge == JUDGE_AUTO && kernel)
		snprintf(why, sizeof(why), "a virtual machine (sysinfo of %s): the host's time in "
			 "the spikes is not the kernel's (--judge raw for the raw figures)", vm);
	else if (p->judge == JUDGE_AUTO)
		snprintf(why, sizeof(why), "no run on a virtual machine");
	else
		snprintf(why, sizeof(why), "--judge %s", kernel ? "kernel" : "raw");
	return json_pack("{s:s, s:s, s:I, s:o}", "on", kernel ? "kernel" : "raw", "why", why,
			 "host_ns", (json_int_t)host, "runs_without_host_analysis", raw);
}

/* No rule could be judged: say why (the first rule's reason), 1; else 0. */
static int undecided(const json_t *doc)
{
	const char *res = json_string_value(json_object_get(doc, "result"));
	const json_t *rule = json_array_get(json_object_get(doc, "rules"), 0);

	if (!res || strcmp(res, LW_RULE_UNDECIDED))
		return 0;
	error("--fail-on: no rule could be judged, so nothing passed (%s)",
	      json_string_value(json_object_get(rule, "detail")) ?: "?");
	return 1;
}

int cmd_compare(int argc, char **argv)
{
	struct params *p = calloc(1, sizeof(*p));
	struct lw_crun *runs = NULL;
	struct lw_db *db = NULL;
	struct lw_cgroup groups[MAX_ITEMS];
	size_t n = 0, base = 0, i, ngroups;
	const char *base_name;
	json_t *doc = NULL;
	int ret = LW_EXIT_ERROR, failed, r, asked = 0, kernel;
	const char *vm = NULL;

	if (!p)
		return error("out of memory"), LW_EXIT_ERROR;
	r = parse(p, argc, argv);
	if (r == 1) {
		fputs(usage, stdout);
		ret = LW_EXIT_OK;
		goto out;
	}
	if (r < 0 || (p->lava && lab_runs(p) < 0))
		goto out;
	/* a baseline not among the runs (or groups) is put in front of them */
	if (p->baseline) {
		for (i = 0; i < p->nruns; i++)
			if (!strcmp(p->runs[i], p->baseline) ||
			    (p->group[i] >= 0 && !strcmp(p->gname[p->group[i]], p->baseline)))
				break;
		if (i == p->nruns) {
			if (p->nruns == MAX_RUNS) {
				error("at most %d runs at a time", MAX_RUNS);
				goto out;
			}
			memmove(p->runs + 1, p->runs, p->nruns * sizeof(*p->runs));
			memmove(p->group + 1, p->group, p->nruns * sizeof(*p->group));
			p->runs[0] = p->baseline;
			p->group[0] = -1;
			p->nruns++;
		}
	}
	r = expand(p);
	db = p->dbh;		/* opened for a baseline set, or NULL */
	if (r < 0)
		goto out;
	if (!p->nitems) {
		error("no runs given (see 'latwatt compare --help')");
		goto out;
	}
	base_name = p->items[0].group;
	for (i = 0; p->baseline && i < p->nitems; i++)
		if (!strcmp(p->items[i].group, p->baseline) || !strcmp(p->items[i].ref, p->baseline)) {
			base_name = p->items[i].group;
			break;
		}
	ngroups = group_items(p, groups, base_name, &base);
	if (ngroups < 2) {
		error(p->nitems > 1 ? "one group: nothing to compare it with (see 'latwatt compare --help')" :
				      "one run: nothing to compare it with (see 'latwatt compare --help')");
		goto out;
	}
	if (!p->have_thr) {
		lw_cmp_add_threshold(&p->o, 50 * LW_NSEC_PER_USEC);
		lw_cmp_add_threshold(&p->o, 100 * LW_NSEC_PER_USEC);
	}
	for (i = 0; i < p->nrules; i++)
		if (p->rules[i].threshold_ns && lw_cmp_add_threshold(&p->o, p->rules[i].threshold_ns) < 0)
			goto out;
	asked = p->nrules > 0;
	if (!p->nrules)
		lw_rule_parse("any:worse", &p->rules[p->nrules++]);

	kernel = p->judge == JUDGE_KERNEL || (p->judge == JUDGE_AUTO && judge_kernel_auto(p, &vm));
	runs = calloc(p->nitems, sizeof(*runs));
	if (!runs) {
		error("out of memory");
		goto out;
	}
	for (n = 0; n < p->nitems; n++) {
		const char *ref = p->items[n].ref;

		if (lw_db_is_ref(ref)) {
			int64_t id;

			if (!db && !(db = lw_db_open(p->db)))
				goto out;
			if (lw_db_resolve(db, ref, &id) < 0 || lw_db_load(db, id, &runs[n]) < 0)
				goto out;
			free(runs[n].label);
			runs[n].label = strdup(ref);
			if (!runs[n].label) {
				error("out of memory");
				n++;
				goto out;
			}
		} else if (lw_crun_load_dir_judge(&runs[n], ref, kernel) < 0) {
			goto out;
		}
		if (kernel && runs[n].kernel <= 0) {
			runs[n].kernel = -1;
			note("%s: no analysis with the host's time (latwatt analyze %s): its latency "
			     "figures are the raw ones", runs[n].label, ref);
		}
	}
	doc = lw_compare_groups(runs, groups, ngroups, base, &p->o);
	if (!doc)
		goto out;
	json_object_set_new(doc, "judge", judge_json(p, kernel, vm, runs, n));
	failed = lw_rules_eval(p->rules, p->nrules, doc);
	if (p->output && lw_json_save(doc, p->output) < 0)
		goto out;
	if (p->json) {
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
	} else if (!p->quiet) {
		lw_compare_print(doc, stdout);
	}
	ret = failed ? LW_EXIT_FAIL : LW_EXIT_OK;
	/* a gate that judged nothing has not passed (without --fail-on compare
	 * is a report: any:worse undecided is printed, and that is all) */
	if (asked && !failed && undecided(doc))
		ret = LW_EXIT_ERROR;
out:
	json_decref(doc);
	for (i = 0; i < n; i++)
		lw_crun_free(&runs[i]);
	free(runs);
	lw_db_close(db);
	free(p->baseline_buf);
	for (i = 0; i < p->nowned; i++)
		free(p->owned[i]);
	for (i = 0; i < p->nlab_owned; i++)
		free(p->lab_owned[i]);
	free(p);
	return ret;
}
