// SPDX-License-Identifier: GPL-2.0-only
/* The report formats: one line each (reports/report.h). */
#include "reports/report.h"

const struct lw_report_format lw_report_formats[] = {
	{ "output", 'o', "FILE", LW_RF_DASH | LW_RF_PLOTS, lw_report_html_run,
	  lw_report_html_compare, "write the HTML report to FILE ('-': stdout)" },
	{ "junit", 0, "FILE", 0, lw_report_junit, lw_report_junit,
	  "write JUnit XML: a test case per budget or comparison rule" },
	{ "markdown", 0, "FILE", LW_RF_DASH, lw_report_markdown_run, lw_report_markdown_compare,
	  "write a Markdown summary ('-': stdout)" },
	{ "lava", 0, NULL, 0, lw_report_lava_checks, lw_report_lava_checks,
	  "print lava-test-case lines, or call lava-test-case\n"
	  "when it is on PATH" },
	{ "lava-metrics", 0, NULL, 0, lw_report_lava_metrics, NULL,
	  "the same for the run's key figures (latency statistics,\n"
	  "samples, missed periods, workload misses, power): one\n"
	  "passing test case each, with its measurement" },
};

const size_t lw_report_nformats = sizeof(lw_report_formats) / sizeof(lw_report_formats[0]);
_Static_assert(sizeof(lw_report_formats) / sizeof(lw_report_formats[0]) <= LW_REPORT_MAX_FORMATS,
	       "LW_REPORT_MAX_FORMATS");
