// SPDX-License-Identifier: GPL-2.0-only
/* latwatt workloads [NAME]: the workloads of `run -w` and their parameters. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "lib/error.h"
#include "workloads/workload.h"

static const char usage[] =
"usage: latwatt workloads [NAME]\n"
"\n"
"List the workloads that 'latwatt run -w SPEC' runs beside the probes, with\n"
"every parameter, its type, default and range.  A SPEC is NAME or\n"
"NAME:KEY=VALUE,KEY=VALUE...; CPU lists keep their commas (cpus=0,2-3).\n"
"\n"
"  -h, --help              this text\n"
"\n"
"Exit status: 0 listed, 2 unknown workload.\n";

int cmd_workloads(int argc, char **argv)
{
	const char *only = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return LW_EXIT_OK;
		}
		if (argv[i][0] == '-') {
			error("unknown option '%s' (see 'latwatt workloads --help')", argv[i]);
			return LW_EXIT_ERROR;
		}
		if (only) {
			error("unexpected argument '%s' (see 'latwatt workloads --help')", argv[i]);
			return LW_EXIT_ERROR;
		}
		only = argv[i];
	}
	if (only && !lw_workload_find(only)) {
		error("unknown workload '%s' (see 'latwatt workloads')", only);
		return LW_EXIT_ERROR;
	}
	lw_workloads_print(stdout, only);
	return LW_EXIT_OK;
}
