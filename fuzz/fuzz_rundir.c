// SPDX-License-Identifier: GPL-2.0-only
/*
 * A run directory's text files: the input is manifest.json, analysis.json,
 * histogram.json and power, separated by "\n--8<--\n" lines (an empty part:
 * the file is absent), beside a real run's samples.  Read as analyze,
 * report (lw_rrun_load, the run's metrics), compare (lw_crun_load_dir) and
 * power show (lw_power_read) read them.
 */
#include <sys/stat.h>

#include "analysis/compare.h"
#include "analysis/summary.h"
#include "fuzz/fuzz.h"
#include "power/power.h"
#include "reports/page.h"
#include "reports/report.h"

/* The report's plot scripts, for every histogram analysis.json holds. */
static void plots(const json_t *j, FILE *null, int depth)
{
	const char *key;
	json_t *v;
	size_t i;

	if (depth > 8)
		return;
	if (json_is_object(j)) {
		json_object_foreach((json_t *)j, key, v) {
			if (!strcmp(key, "histogram") && json_is_object(v)) {
				const json_t *h[1] = { v };
				const char *t[1] = { "fuzz" };

				lw_gp_histogram(null, h, t, 1, 1);
				lw_gp_cdf(null, h, t, 1, 1, json_object_get(j, "percentiles"));
			} else {
				plots(v, null, depth + 1);
			}
		}
	} else if (json_is_array(j)) {
		json_array_foreach((json_t *)j, i, v)
			plots(v, null, depth + 1);
	}
}

static const char *const files[] = { "manifest.json", "analysis.json", "histogram.json", "power" };
#define NFILES (sizeof(files) / sizeof(files[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char run[512];
	static FILE *null;
	const uint8_t *part[NFILES];
	size_t plen[NFILES];
	char path[512];
	struct lw_rundir rd;
	struct lw_summary sum;
	struct lw_crun cr;
	struct lw_rrun rr;
	struct lw_power_data *pd;

	if (!run[0]) {
		snprintf(run, sizeof(run), "%s/run", fz_dir());
		mkdir(run, 0700);
		fz_copy(FUZZ_SRC "/fuzz/fixtures/run-a/samples", "run/samples");
		null = fopen("/dev/null", "w");
	}
	fz_split(data, size, NFILES, part, plen);
	for (size_t i = 0; i < NFILES; i++) {
		char name[64];

		snprintf(name, sizeof(name), "run/%s", files[i]);
		if (plen[i])
			fz_write(name, part[i], plen[i], path, sizeof(path));
		else
			fz_unlink(name);
	}
	if (lw_rundir_open(&rd, run) == 0) {
		if (lw_summary_load(&sum, &rd, 20000) == 0) {
			json_decref(lw_summary_json(&sum, &rd));
			lw_summary_free(&sum);
		}
		lw_rundir_close(&rd);
	}
	if (lw_rrun_load(&rr, run) == 0) {
		struct lw_checks cs = { 0 };

		lw_run_metrics(&rr, &cs);
		lw_checks_free(&cs);
		/* analyze's text, as every view, from the analysis alone */
		if (lw_rrun_judge(&rr, NULL, NULL, 0, LW_JUDGE_AUTO) == 0)
			lw_report_text_run(null, rr.analysis, &rr.verdict, &rr.checks, 10);
		plots(rr.analysis, null, 0);
		lw_rrun_free(&rr);
	}
	if (lw_crun_load_dir(&cr, run) == 0)
		lw_crun_free(&cr);
	snprintf(path, sizeof(path), "%s/power", run);
	pd = lw_power_read(path);
	{
		/* the one-pass summary is the whole read's, or fails with it */
		json_t *s1 = lw_power_summarize_file(path);

		if (!!s1 != !!pd)
			abort();
		if (pd) {
			json_t *s = lw_power_summarize(pd);

			if (s && !json_equal(s, s1))
				abort();
			if (s)
				lw_power_print(null, s);
			json_decref(s);
			lw_power_data_free(pd);
		}
		json_decref(s1);
	}
	return 0;
}
