// SPDX-License-Identifier: GPL-2.0-only
/* latwatt cleanup: undo what a killed run left in the kernel. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "lib/error.h"
#include "lib/journal.h"
#include "lib/trace_rec.h"
#include "lib/writer.h"

static const char usage[] =
"usage: latwatt cleanup [--dry-run] [RUN...]\n"
"\n"
"Undo what runs killed without a chance to clean up (SIGKILL, a crash) left\n"
"behind: from each run's restore journal (" LW_STATE_DIR "), the kernel\n"
"settings it changed are written back (RT throttling, timerlat and osnoise\n"
"settings, cpuidle states disabled), the processes of its external loads\n"
"are killed (their cgroup),\n"
"its trace instances (" LW_TRACE_INSTANCE_PREFIX "PID, " LW_TRACE_INSTANCE_PREFIX "timerlat-PID,\n"
LW_TRACE_INSTANCE_PREFIX "hwnoise-PID) removed and\n"
"the .trace-cpuN files in its run directory deleted, and its manifest, which\n"
"still says \"running\", marked \"killed\".  Trace instances of killed runs\n"
"without a journal are found by name.  Runs still going are left alone.  With\n"
"RUN: also the .trace-cpuN files left in those run directories, and their\n"
"manifests marked killed when they say running and their writer is gone.\n"
"PM QoS needs nothing: the kernel drops a request when its holder dies.\n"
"\n"
"  -n, --dry-run    only say what would be done\n"
"  -h, --help       this text\n";

int cmd_cleanup(int argc, char **argv)
{
	int dry = 0, n, total = 0, failed = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "--dry-run")) {
			dry = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return LW_EXIT_OK;
		} else if (argv[i][0] == '-') {
			error("unknown option '%s' (see 'latwatt cleanup --help')", argv[i]);
			return LW_EXIT_ERROR;
		}
	}
	n = lw_journal_replay(stdout, dry);
	if (n < 0)
		failed = 1;
	else
		total += n;
	n = lw_trace_cleanup(stdout, dry);
	if (n < 0)
		failed = 1;
	else
		total += n;
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		if (lw_journal_rundir_live(argv[i])) {
			printf("kept %s: its run is still going\n", argv[i]);
			continue;
		}
		n = lw_rundir_remove_cpu_files(argv[i], stdout, dry);
		if (n < 0)
			failed = 1;
		else
			total += n;
		/* a run that still says "running" with its writer gone */
		{
			char msg[512];

			n = lw_manifest_mark_killed(argv[i], -1, "cleanup", dry, msg, sizeof(msg));
			if (n > 0)
				printf("  %s\n", msg);
		}
		if (n < 0)
			failed = 1;
		else
			total += n;
	}
	if (failed)
		return LW_EXIT_ERROR;
	if (total == 0)
		printf("nothing to clean up\n");
	return LW_EXIT_OK;
}
