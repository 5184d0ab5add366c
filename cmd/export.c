// SPDX-License-Identifier: GPL-2.0-only
/*
 * latwatt export --kcidb FILE: runs, a directory of repeats or a comparison
 * as KCIDB I/O JSON (reports/kcidb.h).  An export rather than a format of
 * `report`: report's formats are views of one run or of one comparison,
 * each opening with its verdict, while a KCIDB submission is data about a
 * set of runs (a group of repeats with no baseline is one) under the
 * submitter's origin.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "cmd/commands.h"
#include "lib/error.h"
#include "lib/parse.h"
#include "lib/safefile.h"
#include "reports/kcidb.h"

static const char usage[] =
"usage: latwatt export --kcidb FILE [OPTIONS] RUN|REPEATS\n"
"       latwatt export --kcidb FILE [OPTIONS] RUN_A RUN_B [RUN...]\n"
"       latwatt export --kcidb FILE [OPTIONS] COMPARISON.json\n"
"\n"
"Write a run, a directory of repeats (each run), runs compared (the first is\n"
"the baseline; a directory of repeats is a group of its runs) or the output\n"
"of 'latwatt compare -o' as KCIDB I/O JSON (schema 5.3), the format KernelCI's\n"
"database takes: the kernel as a checkout and a build; the run's verdict, its\n"
"budgets and its key figures (latency statistics in seconds, counts, power in\n"
"watts) as tests of that build; a comparison's rules as tests of the build of\n"
"the group they judge.\n"
"\n"
"      --kcidb FILE        write the KCIDB JSON to FILE ('-': stdout)\n"
"      --origin NAME       the submitting CI system, KCIDB's origin, the prefix\n"
"                          of every ID (lowercase, digits, '_'; default latwatt)\n"
"      --tolerance PCT     comparison: a group significantly worse than the\n"
"                          baseline by more than PCT % fails (default 10)\n"
"  -h, --help              this text\n"
"\n"
"Exit status: 0 written, 2 error.\n";

static int is_json_file(const char *path)
{
	size_t n = strlen(path);

	return n > 5 && !strcmp(path + n - 5, ".json") && access(path, F_OK) == 0;
}

static int write_doc(const json_t *doc, const char *path)
{
	struct lw_atomic a;
	FILE *f;

	if (!strcmp(path, "-")) {
		if (json_dumpf(doc, stdout, JSON_INDENT(1)) < 0 || fputc('\n', stdout) == EOF ||
		    fflush(stdout) == EOF)
			return error_errno("cannot write to stdout");
		return 0;
	}
	f = lw_atomic_fopen(&a, path, 0644);
	if (!f)
		return -1;
	if (json_dumpf(doc, f, JSON_INDENT(1)) < 0 || fputc('\n', f) == EOF) {
		lw_atomic_abort(&a);
		return error_errno("cannot write %s", path);
	}
	return lw_atomic_commit(&a);
}

/* One run, or the runs of a directory of repeats, judged. */
static json_t *export_runs(const char *path, const char *origin)
{
	char **sub = NULL, *one[1] = { (char *)path };
	size_t ns = 0, n, loaded = 0;
	struct lw_rrun *runs;
	json_t *doc = NULL;

	if (lw_repeat_list(path, &sub, &ns) < 0)
		return NULL;
	n = ns ? ns : 1;
	runs = calloc(n, sizeof(*runs));
	if (!runs) {
		error("out of memory");
		goto out;
	}
	for (; loaded < n; loaded++)
		if (lw_rrun_load(&runs[loaded], ns ? sub[loaded] : one[0]) < 0 ||
		    lw_rrun_judge(&runs[loaded], NULL, NULL, 0, LW_JUDGE_AUTO) < 0) {
			loaded++;
			goto out;
		}
	doc = lw_kcidb_runs(runs, n, origin);
out:
	for (size_t i = 0; runs && i < loaded; i++)
		lw_rrun_free(&runs[i]);
	free(runs);
	for (size_t i = 0; i < ns; i++)
		free(sub[i]);
	free(sub);
	return doc;
}

static json_t *export_comparison(char **paths, size_t n, double tolerance, const char *origin)
{
	struct lw_comparison cmp;
	struct lw_checks rules = { 0 };
	json_t *doc = NULL;

	if (n == 1 ? lw_comparison_from_json(&cmp, paths[0], tolerance)
		   : lw_comparison_from_runs(&cmp, paths, n, tolerance))
		return NULL;
	for (size_t i = 0; i < cmp.nrun; i++)
		if (lw_rrun_judge(&cmp.run[i], NULL, NULL, 0, LW_JUDGE_AUTO) < 0)
			goto out;
	if (lw_comparison_checks(&cmp, &rules) < 0)
		goto out;
	doc = lw_kcidb_comparison(&cmp, &rules, origin);
out:
	lw_checks_free(&rules);
	lw_comparison_free(&cmp);
	return doc;
}

int cmd_export(int argc, char **argv)
{
	enum { OPT_KCIDB = 256, OPT_ORIGIN, OPT_TOLERANCE };
	static const struct option opts[] = {
		{ "kcidb",     required_argument, NULL, OPT_KCIDB },
		{ "origin",    required_argument, NULL, OPT_ORIGIN },
		{ "tolerance", required_argument, NULL, OPT_TOLERANCE },
		{ "help",      no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *kcidb = NULL, *origin = LW_KCIDB_ORIGIN;
	double tolerance = 10;
	json_t *doc;
	size_t n;
	int c, ret;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_KCIDB:
			kcidb = optarg;
			break;
		case OPT_ORIGIN:
			origin = optarg;
			if (lw_kcidb_origin_check(origin) < 0)
				return LW_EXIT_ERROR;
			break;
		case OPT_TOLERANCE:
			if (lw_parse_double("--tolerance", optarg, 0, 1000, &tolerance) < 0)
				return LW_EXIT_ERROR;
			break;
		case 'h':
			fputs(usage, stdout);
			return LW_EXIT_OK;
		default:
			lw_opt_error(c, argv, "export");
			return LW_EXIT_ERROR;
		}
	}
	if (!kcidb) {
		error("nothing to write: give --kcidb FILE (see 'latwatt export --help')");
		return LW_EXIT_ERROR;
	}
	if (optind == argc) {
		error("no run directory given (see 'latwatt export --help')");
		return LW_EXIT_ERROR;
	}
	n = (size_t)(argc - optind);
	if (n == 1 && !is_json_file(argv[optind]))
		doc = export_runs(argv[optind], origin);
	else
		doc = export_comparison(argv + optind, n, tolerance / 100, origin);
	if (!doc)
		return LW_EXIT_ERROR;
	ret = write_doc(doc, kcidb) < 0 ? LW_EXIT_ERROR : LW_EXIT_OK;
	json_decref(doc);
	return ret;
}
