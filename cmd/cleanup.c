// SPDX-License-Identifier: GPL-2.0-only
/* latwatt cleanup: remove what a killed run left in the kernel. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "lib/error.h"
#include "lib/trace_rec.h"

static const char usage[] =
"usage: latwatt cleanup [--dry-run]\n"
"\n"
"Remove the trace instances (" LW_TRACE_INSTANCE_PREFIX "PID) of runs that were killed\n"
"without a chance to clean up (SIGKILL, a crash), and say what was removed.\n"
"Instances of runs still going are kept.\n"
"\n"
"  -n, --dry-run    only say what would be removed\n"
"  -h, --help       this text\n";

int cmd_cleanup(int argc, char **argv)
{
	int dry = 0, n;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "--dry-run")) {
			dry = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return LW_EXIT_OK;
		} else {
			error("unknown option '%s' (see 'latwatt cleanup --help')", argv[i]);
			return LW_EXIT_ERROR;
		}
	}
	n = lw_trace_cleanup(stdout, dry);
	if (n < 0)
		return LW_EXIT_ERROR;
	if (n == 0)
		printf("nothing to clean up\n");
	return LW_EXIT_OK;
}
