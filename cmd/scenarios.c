// SPDX-License-Identifier: GPL-2.0-only
/* latwatt scenarios: list the scenario files, show or check one. */
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/runscenario.h"
#include "lib/error.h"
#include "lib/input.h"
#include "lib/parse.h"
#include "lib/sort.h"
#include "workloads/scenario.h"

static const char usage[] =
"usage: latwatt scenarios [-v] [--check] [NAME|FILE...]\n"
"\n"
"Without a name, list the scenarios 'latwatt run --scenario NAME' finds, with\n"
"their description.  With names, show the options of 'latwatt run' each\n"
"scenario stands for (every key of a scenario file is the long option of the\n"
"same name).\n"
"\n"
"  -v, --verbose    also print where each scenario file is\n"
"      --check      check the files as 'latwatt run' would (values, CPUs,\n"
"                   load programs, priorities); exit 2 on the first error\n"
"  -h, --help       this text\n"
"\n"
"Scenarios are looked up in $LATWATT_SCENARIO_PATH (colon separated; a folder\n"
"and file used only when owned by root or you and not writable by others),\n"
"workloads/scenarios beside the binary, then the installed directory.\n";

struct entry {
	char name[NAME_MAX + 1];
	char path[PATH_MAX];
	int env;		/* found through $LATWATT_SCENARIO_PATH */
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

static int list(int verbose)
{
	const char *dirs[16];
	struct entry *e = NULL;
	size_t n = 0, cap = 0;
	int nenv, nd = lw_scenario_dirs(dirs, 16, &nenv);

	for (int d = 0; d < nd; d++) {
		DIR *dir;
		struct dirent *de;

		if (d < nenv && lw_in_dir_trusted(dirs[d], "LATWATT_SCENARIO_PATH") != 0)
			continue;	/* refused (said so) or missing */
		dir = opendir(dirs[d]);
		if (!dir)
			continue;
		while ((de = readdir(dir))) {
			size_t len = strlen(de->d_name);
			size_t i;

			if (len <= 5 || strcmp(de->d_name + len - 5, ".yaml") || de->d_name[0] == '.')
				continue;
			for (i = 0; i < n; i++)
				if (!strncmp(e[i].name, de->d_name, len - 5) && !e[i].name[len - 5])
					break;
			if (i < n)
				continue;	/* an earlier directory has it */
			if (n == cap) {
				struct entry *ne = realloc(e, (cap = cap ? cap * 2 : 16) * sizeof(*e));

				if (!ne) {
					closedir(dir);
					free(e);
					return error("out of memory");
				}
				e = ne;
			}
			snprintf(e[n].name, sizeof(e[n].name), "%.*s", (int)(len - 5), de->d_name);
			snprintf(e[n].path, sizeof(e[n].path), "%s/%s", dirs[d], de->d_name);
			e[n].env = d < nenv;
			n++;
		}
		closedir(dir);
	}
	if (n)
		lw_qsort(e, n, sizeof(*e), by_name);
	for (size_t i = 0; i < n; i++) {
		char *desc = lw_scenario_describe(e[i].path,
						  e[i].env ? "LATWATT_SCENARIO_PATH" : NULL);

		printf("%-16s %s\n", e[i].name, desc ? desc : "(no description)");
		if (verbose) {
			char abs[PATH_MAX];

			printf("%-16s %s\n", "", realpath(e[i].path, abs) ? abs : e[i].path);
		}
		free(desc);
	}
	if (!n) {
		char looked[1024];
		size_t lo = 0;

		looked[0] = 0;
		for (int d = 0; d < nd && lo < sizeof(looked); d++)
			lo += (size_t)snprintf(looked + lo, sizeof(looked) - lo, "%s%s",
					       d ? ", " : "", dirs[d]);
		note("no scenario found (looked in %s)", looked);
	}
	free(e);
	return 0;
}

/* Show (and with @check, check) one scenario. */
static int show(const char *arg, int check, int verbose)
{
	struct lw_run_scenario rs;
	struct lw_run_opts o;
	cpu_set_t online;
	char run[] = "run", dash_o[] = "-o", out[] = "-";
	char *argv[] = { run, dash_o, out, NULL };
	int ret;

	if (lw_online_cpus(&online) < 0)
		return -1;
	lw_run_opts_default(&o, &online);
	o.scenario = arg;
	ret = lw_run_scenario_apply(&rs, &o, 3, argv, &online);
	if (ret == 0 && check)
		ret = lw_run_preflight(&o, &online);
	if (ret == 0) {
		printf("%s: %s\n", rs.sc.name, rs.sc.description ? rs.sc.description :
		       "(no description)");
		if (verbose)
			printf("  file %s\n", rs.sc.path);
		for (int i = 1; i <= rs.nfile; i++)
			printf("  %s\n", rs.argv[i]);
	}
	lw_run_scenario_free(&rs);
	return ret;
}

int cmd_scenarios(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "check",   no_argument, NULL, 'C' },
		{ "help",    no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, verbose = 0, check = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			verbose = 1;
			break;
		case 'C':
			check = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return LW_EXIT_OK;
		default:
			error("unknown option '%s' (see 'latwatt scenarios --help')",
			      argv[optind - 1]);
			return LW_EXIT_ERROR;
		}
	}
	if (optind == argc)
		return list(verbose) < 0 ? LW_EXIT_ERROR : LW_EXIT_OK;
	for (int i = optind; i < argc; i++)
		if (show(argv[i], check, verbose) < 0)
			return LW_EXIT_ERROR;
	return LW_EXIT_OK;
}
