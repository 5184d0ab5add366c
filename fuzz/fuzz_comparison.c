// SPDX-License-Identifier: GPL-2.0-only
/*
 * Comparison JSON (`latwatt compare -o`), read as `latwatt report` reads
 * it: its runs (two real runs, run-a and run-b beside it) loaded, its
 * intervals and verdicts taken, and the comparison's checks made.
 */
#include <sys/stat.h>

#include "fuzz/fuzz.h"
#include "reports/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int init;
	char path[512];
	struct lw_comparison c;

	if (!init) {
		for (int i = 0; i < 2; i++) {
			char name[64], dir[512];

			snprintf(dir, sizeof(dir), "%s/run-%c", fz_dir(), 'a' + i);
			mkdir(dir, 0700);
			snprintf(name, sizeof(name), "run-%c/manifest.json", 'a' + i);
			snprintf(dir, sizeof(dir), FUZZ_SRC "/fuzz/fixtures/%s", name);
			fz_copy(dir, name);
			snprintf(name, sizeof(name), "run-%c/samples", 'a' + i);
			snprintf(dir, sizeof(dir), FUZZ_SRC "/fuzz/fixtures/%s", name);
			fz_copy(dir, name);
		}
		init = 1;
	}
	fz_write("comparison.json", data, size, path, sizeof(path));
	memset(&c, 0, sizeof(c));
	if (lw_comparison_from_json(&c, path, 0.1) == 0) {
		struct lw_checks cs = { 0 };

		lw_comparison_checks(&c, &cs);
		lw_checks_free(&cs);
		lw_comparison_free(&c);
	}
	return 0;
}
