// SPDX-License-Identifier: GPL-2.0-only
/*
 * RUN/samples: a run directory (a real run's manifest) whose samples file is
 * the input, read as analyze (lw_summary_load, with the latency over time the
 * reports draw, serialized) and compare (lw_crun_load_dir: summary and block
 * maxima) read it.
 */
#include <sys/stat.h>

#include "analysis/compare.h"
#include "analysis/summary.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char run[512];
	char path[512];
	struct lw_rundir rd;
	struct lw_summary sum;
	struct lw_crun cr;

	if (!run[0]) {
		snprintf(run, sizeof(run), "%s/run", fz_dir());
		mkdir(run, 0700);
		fz_copy(FUZZ_SRC "/fuzz/fixtures/run-a/manifest.json", "run/manifest.json");
	}
	fz_write("run/samples", data, size, path, sizeof(path));
	if (lw_rundir_open(&rd, run) == 0) {
		if (lw_summary_load(&sum, &rd, 20000) == 0) {
			json_decref(lw_summary_json(&sum, &rd));
			lw_summary_free(&sum);
		}
		lw_rundir_close(&rd);
	}
	if (lw_crun_load_dir(&cr, run) == 0)
		lw_crun_free(&cr);
	return 0;
}
