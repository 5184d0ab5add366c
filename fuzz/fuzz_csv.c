// SPDX-License-Identifier: GPL-2.0-only
/*
 * A power meter's CSV log, imported into a run as `latwatt power import RUN
 * meter.csv` does (columns by their header units, the first time-like
 * column), then RUN/power read back and summarized as `power show` does.
 */
#include <math.h>
#include <sys/stat.h>

#include "fuzz/fuzz.h"
#include "power/import.h"
#include "power/power.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char run[512];
	char csv[512], pw[512];
	struct lw_import_opts o = { .offset_s = 0 };
	struct lw_power_data *pd;

	if (!run[0]) {
		snprintf(run, sizeof(run), "%s/run", fz_dir());
		mkdir(run, 0700);
		fz_copy(FUZZ_SRC "/fuzz/fixtures/run-a/manifest.json", "run/manifest.json");
	}
	fz_unlink("run/power");
	fz_write("meter.csv", data, size, csv, sizeof(csv));
	if (lw_power_import_csv(run, csv, &o) < 0)
		return 0;
	snprintf(pw, sizeof(pw), "%s/power", run);
	pd = lw_power_read(pw);
	if (pd) {
		json_decref(lw_power_summarize(pd));
		lw_power_data_free(pd);
	}
	return 0;
}
