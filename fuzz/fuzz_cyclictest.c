// SPDX-License-Identifier: GPL-2.0-only
/*
 * cyclictest --json output, imported as `latwatt import cyclictest FILE -o
 * RUN` does, then the imported run's histogram read as analyze reads it.
 */
#include "analysis/summary.h"
#include "cmd/commands.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[512], run[512];
	char *argv[] = { "import", "cyclictest", path, "-o", run, "-f", NULL };
	struct lw_rundir rd;
	struct lw_summary sum;

	fz_write("cyclictest.json", data, size, path, sizeof(path));
	snprintf(run, sizeof(run), "%s/run", fz_dir());
	if (cmd_import(6, argv) != 0)
		return 0;
	if (lw_rundir_open(&rd, run) == 0) {
		if (lw_summary_load(&sum, &rd, 0) == 0) {
			json_decref(lw_summary_json(&sum, &rd));
			lw_summary_free(&sum);
		}
		lw_rundir_close(&rd);
	}
	return 0;
}
