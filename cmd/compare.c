// SPDX-License-Identifier: GPL-2.0-only
/* latwatt compare RUN...: runs side by side against a baseline, verdicts, CI rules. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/db.h"
#include "analysis/failon.h"
#include "cmd/commands.h"
#include "lib/error.h"
#include "lib/parse.h"
#include "lib/rundir.h"

static const char usage[] =
"usage: latwatt compare [OPTIONS] RUN...\n"
"\n"
"Compare runs side by side, each against a baseline (the first RUN unless\n"
"--baseline): kernel, preemption model, nohz_full; percentiles with bootstrap\n"
"intervals; Mann-Whitney U and Cliff's delta; counts above thresholds; block\n"
"maxima and an extreme-value estimate of the worst case; xruns, dropped\n"
"frames, power, idle residency and spike causes where the runs have them.\n"
"Per metric a verdict: better, worse, no significant difference, or n/a.\n"
"\n"
"RUN is a run directory, db:ID (a run in the results store) or baseline:NAME.\n"
"\n"
"  -b, --baseline RUN          compare against RUN (default: the first RUN)\n"
"  -B, --against-baseline NAME compare against the stored baseline NAME\n"
"      --db PATH               results store (default: see 'latwatt db --help')\n"
"  -o, --output FILE           write the comparison JSON (latwatt-comparison) to FILE\n"
"      --json                  print the comparison JSON instead of the table\n"
"  -F, --fail-on RULE          exit 1 when RULE holds for a run (repeatable), e.g.\n"
"                              'p99>+10%', 'max>+20%', 'xruns>0', 'p99>150us', 'any:worse';\n"
"                              default: any:worse\n"
"  -t, --threshold US          count samples above US (repeatable; default 50 and 100)\n"
"      --alpha P               significance level (default 0.05)\n"
"      --practical PCT         smallest change that matters, percent (default 5)\n"
"      --min-effect D          smallest |Cliff's delta| that matters (default 0.147)\n"
"      --confidence PCT        confidence of intervals, percent (default 95)\n"
"      --resamples N           bootstrap resamples (default 2000)\n"
"      --seed N                bootstrap seed (default 1)\n"
"      --block TIME            block length for maxima, a multiple of 10ms (default 1s)\n"
"      --horizon TIME          worst-case horizon (default 1h)\n"
"      --min-blocks N          fewest blocks to extrapolate from (default 30)\n"
"      --evt MODEL             gev (probability-weighted moments, default) or gumbel (ML)\n"
"  -q, --quiet                 no table\n"
"  -h, --help                  this text\n"
"\n"
"Exit status: 0 no rule failed, 1 a rule failed (regression), 2 error.\n";

#define MAX_RUNS  64
#define MAX_RULES 64

struct params {
	const char *runs[MAX_RUNS + 1];
	size_t nruns;
	const char *baseline;		/* a RUN reference, or NULL */
	char *baseline_buf;		/* "baseline:NAME" */
	const char *db;
	const char *output;
	int json, quiet, have_thr;
	struct lw_rule rules[MAX_RULES];
	size_t nrules;
	struct lw_cmp_opts o;
};

static int parse(struct params *p, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "baseline",         required_argument, NULL, 'b' },
		{ "against-baseline", required_argument, NULL, 'B' },
		{ "db",               required_argument, NULL, 'D' },
		{ "output",           required_argument, NULL, 'o' },
		{ "json",             no_argument,       NULL, 'j' },
		{ "fail-on",          required_argument, NULL, 'F' },
		{ "threshold",        required_argument, NULL, 't' },
		{ "alpha",            required_argument, NULL, 'a' },
		{ "practical",        required_argument, NULL, 'P' },
		{ "min-effect",       required_argument, NULL, 'e' },
		{ "confidence",       required_argument, NULL, 'c' },
		{ "resamples",        required_argument, NULL, 'R' },
		{ "seed",             required_argument, NULL, 's' },
		{ "block",            required_argument, NULL, 'k' },
		{ "horizon",          required_argument, NULL, 'H' },
		{ "min-blocks",       required_argument, NULL, 'm' },
		{ "evt",              required_argument, NULL, 'E' },
		{ "quiet",            no_argument,       NULL, 'q' },
		{ "help",             no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t u;
	double d;
	int c;

	lw_cmp_opts_default(&p->o);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":b:B:o:F:t:qh", opts, NULL)) != -1) {
		switch (c) {
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
		case 't':
			if (lw_parse_usecs("--threshold", optarg, &u) < 0 ||
			    lw_cmp_add_threshold(&p->o, u) < 0)
				return -1;
			p->have_thr = 1;
			break;
		case 'a':
			if (lw_parse_double("--alpha", optarg, 1e-9, 0.5, &p->o.alpha) < 0)
				return -1;
			break;
		case 'P':
			if (lw_parse_double("--practical", optarg, 0, 1000, &d) < 0)
				return -1;
			p->o.practical = d / 100;
			break;
		case 'e':
			if (lw_parse_double("--min-effect", optarg, 0, 1, &p->o.min_effect) < 0)
				return -1;
			break;
		case 'c':
			if (lw_parse_double("--confidence", optarg, 50, 99.99, &d) < 0)
				return -1;
			p->o.conf = d / 100;
			break;
		case 'R':
			if (lw_parse_uint("--resamples", optarg, 100, 1000000, &u) < 0)
				return -1;
			p->o.resamples = (unsigned)u;
			break;
		case 's':
			if (lw_parse_uint("--seed", optarg, 0, UINT64_MAX, &p->o.seed) < 0)
				return -1;
			break;
		case 'k':
			if (lw_parse_duration("--block", optarg, &u) < 0)
				return -1;
			if (!u || u % LW_BLOCK_BASE_NS)
				return error("--block: '%s' is not a multiple of 10ms", optarg);
			p->o.block_ns = u;
			break;
		case 'H':
			if (lw_parse_duration("--horizon", optarg, &u) < 0)
				return -1;
			if (!u)
				return error("--horizon: must be positive");
			p->o.horizon_ns = u;
			break;
		case 'm':
			if (lw_parse_uint("--min-blocks", optarg, 3, 100000000, &u) < 0)
				return -1;
			p->o.min_blocks = (unsigned)u;
			break;
		case 'E': {
			int m = lw_evt_model_by_name(optarg);

			if (m < 0)
				return error("--evt: unknown model '%s' (gev or gumbel)", optarg);
			p->o.model = (enum lw_evt_model)m;
			break;
		}
		case 'q':
			p->quiet = 1;
			break;
		case 'h':
			return 1;
		default:	/* ':' or an unknown option */
			return lw_opt_error(c, argv, "compare");
		}
	}
	for (; optind < argc; optind++) {
		if (p->nruns == MAX_RUNS)
			return error("at most %d runs at a time", MAX_RUNS);
		p->runs[p->nruns++] = argv[optind];
	}
	if (p->o.horizon_ns <= p->o.block_ns)
		return error("--horizon must be longer than --block");
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	struct params *p = calloc(1, sizeof(*p));
	struct lw_crun *runs = NULL;
	struct lw_db *db = NULL;
	size_t n = 0, base = 0, i;
	json_t *doc = NULL;
	int ret = LW_EXIT_ERROR, failed, r;

	if (!p)
		return error("out of memory"), LW_EXIT_ERROR;
	r = parse(p, argc, argv);
	if (r == 1) {
		fputs(usage, stdout);
		ret = LW_EXIT_OK;
		goto out;
	}
	if (r < 0)
		goto out;
	/* the baseline: one of the runs, or put in front of them */
	if (p->baseline) {
		for (i = 0; i < p->nruns; i++)
			if (!strcmp(p->runs[i], p->baseline))
				break;
		if (i == p->nruns) {
			memmove(p->runs + 1, p->runs, p->nruns * sizeof(*p->runs));
			p->runs[0] = p->baseline;
			p->nruns++;
			i = 0;
		}
		base = i;
	}
	if (p->nruns < 2) {
		error(p->nruns ? "one run: nothing to compare it with (see 'latwatt compare --help')" :
				 "no runs given (see 'latwatt compare --help')");
		goto out;
	}
	if (!p->have_thr) {
		lw_cmp_add_threshold(&p->o, 50 * LW_NSEC_PER_USEC);
		lw_cmp_add_threshold(&p->o, 100 * LW_NSEC_PER_USEC);
	}
	for (i = 0; i < p->nrules; i++)
		if (p->rules[i].threshold_ns && lw_cmp_add_threshold(&p->o, p->rules[i].threshold_ns) < 0)
			goto out;
	if (!p->nrules)
		lw_rule_parse("any:worse", &p->rules[p->nrules++]);

	runs = calloc(p->nruns, sizeof(*runs));
	if (!runs) {
		error("out of memory");
		goto out;
	}
	for (n = 0; n < p->nruns; n++) {
		const char *ref = p->runs[n];

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
		} else if (lw_crun_load_dir(&runs[n], ref) < 0) {
			goto out;
		}
	}
	doc = lw_compare(runs, n, base, &p->o);
	if (!doc)
		goto out;
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
out:
	json_decref(doc);
	for (i = 0; i < n; i++)
		lw_crun_free(&runs[i]);
	free(runs);
	lw_db_close(db);
	free(p->baseline_buf);
	free(p);
	return ret;
}
