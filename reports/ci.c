// SPDX-License-Identifier: GPL-2.0-only
/* Reports for CI: JUnit XML, LAVA test cases, a Markdown summary. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/input.h"
#include "lib/parse.h"
#include "lib/spawn.h"
#include "reports/page.h"

static const char *const suites[] = { "verdict", "budgets", "compare" };

/* @status: the run's state and why ("killed: ..."), a property of every
 * suite (NULL for a comparison). */
static int junit_write(FILE *f, const struct lw_checks *cs, const char *name, const char *status)
{
	char host[256] = "localhost", stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	gethostname(host, sizeof(host) - 1);
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"latwatt\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
		"disabled=\"0\" time=\"0\">\n", cs->n, lw_checks_count(cs, LW_FAIL));
	for (size_t s = 0; s < sizeof(suites) / sizeof(suites[0]); s++) {
		size_t n = 0, fail = 0, skip = 0;

		for (size_t i = 0; i < cs->n; i++)
			if (!strcmp(cs->c[i].suite, suites[s])) {
				n++;
				fail += cs->c[i].result == LW_FAIL;
				skip += cs->c[i].result == LW_SKIP;
			}
		if (!n)
			continue;
		fprintf(f, "  <testsuite name=\"latwatt.%s\" package=\"latwatt\" id=\"%zu\" "
			"tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" disabled=\"0\" "
			"time=\"0\" timestamp=\"%s\" hostname=\"", suites[s], s, n, fail, skip, stamp);
		lw_xml_escape(f, host);
		fprintf(f, "\">\n    <properties>\n      <property name=\"source\" value=\"");
		lw_xml_escape(f, name);
		fprintf(f, "\"/>\n      <property name=\"latwatt\" value=\"%s\"/>\n", LW_VERSION);
		if (status) {
			fprintf(f, "      <property name=\"run_status\" value=\"");
			lw_xml_escape(f, status);
			fprintf(f, "\"/>\n");
		}
		fprintf(f, "    </properties>\n");
		for (size_t i = 0; i < cs->n; i++) {
			const struct lw_check *c = &cs->c[i];

			if (strcmp(c->suite, suites[s]))
				continue;
			fprintf(f, "    <testcase name=\"");
			lw_xml_escape(f, c->name);
			fprintf(f, "\" classname=\"latwatt.%s\" time=\"0\"", suites[s]);
			if (c->result == LW_PASS) {
				fprintf(f, ">\n      <system-out>");
				lw_xml_escape(f, c->message);
				fprintf(f, "</system-out>\n    </testcase>\n");
				continue;
			}
			fprintf(f, ">\n      <%s message=\"", c->result == LW_FAIL ? "failure" : "skipped");
			lw_xml_escape(f, c->message);
			if (c->result == LW_FAIL) {
				fprintf(f, "\" type=\"%s\">measured=%.10g %s\nlimit=%.10g %s\n</failure>\n",
					!strcmp(suites[s], "budgets") ? "budget" :
					!strcmp(suites[s], "verdict") ? "verdict" : "regression",
					c->measured, c->unit, c->limit, c->unit);
			} else {
				fprintf(f, "\"/>\n");
			}
			fprintf(f, "    </testcase>\n");
		}
		fprintf(f, "    <system-out>latwatt %s: %zu checks, %zu failed, %zu skipped</system-out>\n"
			"  </testsuite>\n", suites[s], n, fail, skip);
	}
	fprintf(f, "</testsuites>\n");
	if (fflush(f) == EOF || ferror(f))
		return error_errno("cannot write the JUnit report");
	return 0;
}

/* LAVA test case names: letters, digits, '-', '_' and '.'. */
static void lava_name(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < len; i++) {
		char ch = in[i];

		out[i] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			 (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.' ? ch : '_';
	}
	out[i] = 0;
}

/* lava-test-case from an absolute PATH entry only root or this user
 * controls (lib/input.h); its path in @buf. */
static int helper_on_path(char *buf, size_t len)
{
	return lw_in_which("lava-test-case", buf, len) == 0;
}

static int run_helper(const char *helper, const char *name, const char *result,
		      const char *measurement, const char *units)
{
	const char *argv[9] = { "lava-test-case", name, "--result", result };
	struct lw_child c = { .argv = argv, .path = helper };
	int st, i = 4;

	if (measurement) {
		argv[i++] = "--measurement";
		argv[i++] = measurement;
		argv[i++] = "--units";
		argv[i++] = units;
	}
	argv[i] = NULL;
	fflush(stdout);
	st = lw_child_run(&c);
	if (st < 0)
		return -1;
	if (st)
		return error("lava-test-case %s failed (status %d)", name, st);
	return 0;
}

int lw_report_junit(FILE *f, const struct lw_report_in *in)
{
	char status[512];
	const char *reason = in->run ? lw_rrun_str(in->run, "status_reason") : NULL;

	if (in->run)
		snprintf(status, sizeof(status), "%s%s%s", lw_rrun_str(in->run, "status") ?: "unknown",
			 reason ? ": " : "", reason ? reason : "");
	return junit_write(f, in->checks, in->name, in->run ? status : NULL);
}

int lw_report_lava(FILE *f, const struct lw_checks *cs, int use_helper)
{
	char helper_path[4096];
	int helper = use_helper && helper_on_path(helper_path, sizeof(helper_path)), ret = 0;

	for (size_t i = 0; i < cs->n; i++) {
		const struct lw_check *c = &cs->c[i];
		const char *res = c->result == LW_PASS ? "pass" : c->result == LW_FAIL ? "fail" : "skip";
		char name[128], meas[64], units[16];

		lava_name(c->name, name, sizeof(name));
		snprintf(meas, sizeof(meas), "%g", c->measured);
		lava_name(!strcmp(c->unit, "%") ? "percent" : c->unit, units, sizeof(units));
		if (helper) {
			if (run_helper(helper_path, name, res, c->result == LW_SKIP ? NULL : meas, units) < 0)
				ret = -1;
		} else if (c->result == LW_SKIP) {
			fprintf(f, "lava-test-case %s --result skip\n", name);
		} else {
			fprintf(f, "lava-test-case %s --result %s --measurement %s --units %s\n", name,
				res, meas, units);
		}
	}
	if (fflush(f) == EOF || ferror(f))
		return error_errno("cannot write the LAVA results");
	return ret;
}

int lw_report_lava_checks(FILE *f, const struct lw_report_in *in)
{
	return lw_report_lava(f, in->checks, 1);
}

/* ---- Markdown -------------------------------------------------------- */

/* Table cells: no pipes or newlines. */
static void md(FILE *f, const char *s)
{
	for (; *s; s++)
		fputs(*s == '|' ? "\\|" : *s == '\n' ? " " : (char[2]){ *s, 0 }, f);
}

static void md_checks(FILE *f, const struct lw_checks *cs, const char *suite)
{
	size_t shown = 0, n = 0;
	int cmp = !strcmp(suite, "compare");

	for (size_t i = 0; i < cs->n; i++)
		n += !strcmp(cs->c[i].suite, suite);
	if (!n)
		return;
	fprintf(f, "\n| %s | result | measured | limit |\n| --- | --- | ---: | ---: |\n",
		!strcmp(suite, "budgets") ? "budget" : "rule");
	/* failures first; at most 20 rows so that it fits a comment */
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < cs->n && shown < 20; i++) {
			const struct lw_check *c = &cs->c[i];
			enum lw_verdict want = pass == 0 ? LW_FAIL : pass == 1 ? LW_PASS : LW_SKIP;

			if (strcmp(c->suite, suite) || c->result != want)
				continue;
			fprintf(f, "| `%s` | %s", c->name, want == LW_FAIL ? "**FAIL**" :
				want == LW_PASS ? "pass" : cmp ? "undecided" : "skipped");
			/* a rule that could not be judged says why */
			if (want == LW_SKIP && cmp && *c->message) {
				fputs(": ", f);
				md(f, c->message);
			}
			if (want == LW_SKIP)
				fprintf(f, " | - | - |\n");
			else if (c->kernel)	/* the figure judged, and the raw one */
				fprintf(f, " | %.4g %s kernel-attributable (raw %.4g) | %.4g %s |\n",
					c->measured, c->unit, c->raw, c->limit, c->unit);
			else
				fprintf(f, " | %.4g %s | %.4g %s |\n", c->measured, c->unit, c->limit,
					c->unit);
			shown++;
		}
	if (shown < n)
		fprintf(f, "\nThe first %zu of %zu; every one in the JUnit or HTML report.\n", shown, n);
}

int lw_report_markdown_run(FILE *f, const struct lw_report_in *in)
{
	const struct lw_rrun *r = in->run;
	const struct lw_checks *cs = in->checks;
	const json_t *probes = lw_rrun_probes(r), *p;
	struct lw_vline l[LW_VERDICT_LINES];
	size_t n = lw_verdict_lines(&r->verdict, l);
	const char *name;
	char nohz[256];

	fprintf(f, "### latwatt: %s on %s — %s%s%s\n\n", lw_rrun_str(r, "kernel_release"),
		lw_rrun_str(r, "board"), strcmp(l[0].result, "PASS") ? "**" : "", l[0].result,
		strcmp(l[0].result, "PASS") ? "**" : "");
	md(f, l[0].text);
	fprintf(f, "\n\n");
	for (size_t i = 1; i < n; i++) {
		fprintf(f, "- **");
		md(f, l[i].label);
		fprintf(f, "**%s%s%s ", l[i].result[0] ? " " : "", l[i].result,
			l[i].result[0] ? ":" : ":");
		md(f, l[i].text);
		fprintf(f, "\n");
	}
	fprintf(f, "%s%s, %s, run %s (%s)\n", n > 1 ? "\n" : "", lw_rrun_str(r, "preempt"),
		lw_rrun_nohz(r, nohz, sizeof(nohz)), r->label, lw_rrun_str(r, "status"));
	{
		char hl[8][LW_HOST_LINE];
		size_t nh = lw_host_lines(r->analysis, hl, 8);

		for (size_t i = 0; i < nh; i++) {
			fprintf(f, "%s- ", i ? "" : "\n");
			md(f, hl[i]);
			fprintf(f, "\n");
		}
	}
	if (probes) {
		static const enum lw_stat lat[] = { LW_STAT_P50, LW_STAT_P99, LW_STAT_P999,
						    LW_STAT_MAX };

		fprintf(f, "\n| probe | samples |");
		for (size_t k = 0; k < sizeof(lat) / sizeof(lat[0]); k++)
			fprintf(f, " %s |", lw_stat_names[lat[k]]);
		fprintf(f, " missed | dropped |\n| --- | ---: |");
		for (size_t k = 0; k < sizeof(lat) / sizeof(lat[0]); k++)
			fprintf(f, " ---: |");
		fprintf(f, " ---: | ---: |\n");
		json_object_foreach((json_t *)probes, name, p) {
			const json_t *all = json_object_get(p, "all");
			static const char *const cnt[] = { "missed_periods", "dropped" };

			fprintf(f, "| %s | %.0f |", name, lw_jnum(all, "count", 0));
			for (size_t k = 0; k < sizeof(lat) / sizeof(lat[0]); k++) {
				char a[32];

				const char *key = lw_stat_keys[lat[k]];

				if (json_is_number(json_object_get(all, key)))
					fprintf(f, " %s us |", lw_fmt_us(lw_jnum(all, key, 0), a,
									  sizeof(a)));
				else
					fprintf(f, " unknown |");
			}
			for (size_t k = 0; k < sizeof(cnt) / sizeof(cnt[0]); k++)
				if (json_is_number(json_object_get(all, cnt[k])))
					fprintf(f, " %.0f |", lw_jnum(all, cnt[k], 0));
				else
					fprintf(f, " unknown |");
			fprintf(f, "\n");
		}
	} else {
		fprintf(f, "\nNo latency samples recorded.\n");
	}
	md_checks(f, cs, "budgets");
	if (fflush(f) == EOF || ferror(f))
		return error_errno("cannot write the Markdown summary");
	return 0;
}

/* A figure of a comparison table: "12.3 us", "unknown". */
static const char *md_fig(double ns, char *buf, size_t len)
{
	char us[32];

	if (!isfinite(ns))
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%s us", lw_fmt_us(ns, us, sizeof(us)));
	return buf;
}

int lw_report_markdown_compare(FILE *f, const struct lw_report_in *in)
{
	const struct lw_comparison *c = in->cmp;
	const struct lw_checks *cs = in->checks;
	size_t fail = lw_checks_count(cs, LW_FAIL), nl;
	char lines[4][256], a[48];

	fprintf(f, "### latwatt comparison against %s — %s\n\n", c->group[c->baseline].name,
		fail ? "**FAIL**" : lw_checks_count(cs, LW_PASS) ? "pass" : "undecided");
	nl = lw_cmp_summary(c, lines, 4);
	for (size_t i = 0; i < nl; i++) {
		fputs("- ", f);
		md(f, lines[i]);
		fputc('\n', f);
	}
	fprintf(f, "\nEach group's figure is the geometric mean of its runs'; beside it the change "
		"against the baseline and compare's verdict.\n");
	for (size_t pi = 0; pi < c->nprobe; pi++) {
		const struct lw_cmp_probe *p = &c->probe[pi];

		fprintf(f, "\n| %s |", p->name);
		for (size_t g = 0; g < c->ngroup; g++) {
			fputc(' ', f);
			md(f, c->group[g].name);
			fprintf(f, " (%s%zu run%s) |", g == c->baseline ? "baseline, " : "", c->group[g].n,
				c->group[g].n == 1 ? "" : "s");
		}
		fprintf(f, "\n| --- |");
		for (size_t g = 0; g < c->ngroup; g++)
			fprintf(f, " ---: |");
		fprintf(f, "\n");
		for (int k = 0; k < LW_CMP_NSTAT; k++) {
			fprintf(f, "| %s |", lw_stat_names[k]);
			for (size_t g = 0; g < c->ngroup; g++) {
				const struct lw_cmetric *m = p->m[g * LW_CMP_NSTAT + k];
				int worse = m && !strcmp(m->verdict, "worse");

				fprintf(f, " %s", md_fig(p->grp[g * LW_CMP_NSTAT + k].v, a, sizeof(a)));
				if (m && isfinite(m->rel))
					fprintf(f, " %+.1f %%", m->rel * 100);
				if (m && k < LW_CMP_NSTAT - 1)
					fprintf(f, ", %s%s%s", worse ? "**" : "",
						!strcmp(m->verdict, "n/a") ? "no verdict" : m->verdict,
						worse ? "**" : "");
				fprintf(f, " |");
			}
			fprintf(f, "\n");
		}
	}
	md_checks(f, cs, "compare");
	if (fflush(f) == EOF || ferror(f))
		return error_errno("cannot write the Markdown summary");
	return 0;
}
