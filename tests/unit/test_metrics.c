// SPDX-License-Identifier: GPL-2.0-only
/* The metric registry: names and aliases resolve, the readers read a run's
 * summary, the three rule users accept the registry's names, and the man
 * page describes every name. */
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"

#include "analysis/failon.h"
#include "boards/board.h"
#include "cmd/commands.h"
#include "lib/metrics.h"
#include "reports/report.h"

static void test_names_resolve(void **st)
{
	for (size_t i = 0; i < lw_nmetrics; i++) {
		const struct lw_metric *m = &lw_metrics[i];
		char name[64];

		snprintf(name, sizeof(name), "%s%s", m->name, m->arg ? "x" : "");
		assert_ptr_equal(lw_metric_find(name), m);
		for (size_t a = 0; a < 3 && m->alias[a]; a++) {
			snprintf(name, sizeof(name), "%s%s", m->alias[a], m->arg ? "x" : "");
			assert_ptr_equal(lw_metric_find(name), m);
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(lw_metrics[j].name, m->name))
				fail_msg("%s twice in the registry", m->name);
		/* every entry is for someone: a run's summary or a comparison */
		assert_true(m->from != LW_MF_NONE || m->compared);
		assert_non_null(m->label);
		assert_non_null(m->help);
	}
	assert_null(lw_metric_find("over:"));
	assert_null(lw_metric_find("p98"));
}

/* Each user takes every name its source holds, aliases included. */
static void test_every_name_parses(void **st)
{
	for (size_t i = 0; i < lw_nmetrics; i++) {
		const struct lw_metric *m = &lw_metrics[i];
		const char *names[4] = { m->name, m->alias[0], m->alias[1], m->alias[2] };

		for (size_t a = 0; a < 4 && names[a]; a++) {
			char text[96];
			struct lw_rule r;
			struct lw_rbudget b;
			int verdict = m->unit == LW_MU_VERDICT;

			snprintf(text, sizeof(text), "%s%s%s", names[a], m->arg ? "50us" : "",
				 verdict ? ":worse" : ">1");
			if (m->compared) {
				if (lw_rule_parse(text, &r) < 0)
					fail_msg("--fail-on '%s' refused", text);
				assert_ptr_equal(r.m, m);
			} else {
				assert_error(lw_rule_parse(text, &r) < 0, "not in a comparison");
			}
			snprintf(text, sizeof(text), "%s%s<1", names[a], m->arg ? "50us" : "");
			if (m->from != LW_MF_NONE) {
				if (lw_rbudget_parse(&b, text) < 0)
					fail_msg("--budget '%s' refused", text);
				assert_ptr_equal(b.m, m);
				assert_string_equal(b.stat, m->name);
			} else if (!verdict) {
				assert_error(lw_rbudget_parse(&b, text) < 0, "not in a run's summary");
			}
		}
	}
}

static void test_summary_readers(void **st)
{
	json_t *an = json_pack("{s:{s:{s:{s:i, s:f, s:i}}, s:{s:{s:i, s:f}}},"
			       " s:{s:{s:s, s:i, s:i, s:i}, s:{s:s, s:i}}, s:{s:{s:f, s:f}}}",
		"probes", "cyclic", "all", "count", 10, "p99_ns", 42000.0, "missed_periods", 2,
		"noise", "all", "count", 0, "p99_ns", 7.0,
		"workloads", "audio", "kind", "audio", "xruns", 3, "periods", 1000,
		"interval_ns", 1000000, "video", "kind", "video", "dropped", 4,
		"power", "total", "average_w", 2.5, "energy_j", 4.0);

	assert_true(lw_metric_summary(lw_metric_find("p99"), an, "cyclic") == 42000);
	assert_true(isnan(lw_metric_summary(lw_metric_find("p99"), an, "noise")));	/* no sample */
	assert_true(isnan(lw_metric_summary(lw_metric_find("p99"), an, "timerlat-irq")));
	assert_true(lw_metric_summary(lw_metric_find("missed"), an, "cyclic") == 2);
	assert_true(lw_metric_summary(lw_metric_find("audio_xruns"), an, NULL) == 3);
	assert_true(lw_metric_summary(lw_metric_find("dropped_frames"), an, NULL) == 4);
	assert_true(lw_metric_summary(lw_metric_find("deadline_misses"), an, NULL) == 7);
	assert_true(lw_metric_summary(lw_metric_find("power"), an, NULL) == 2.5);
	assert_true(fabs(lw_metric_summary(lw_metric_find("energy_per_period"), an, NULL) - 4000)
		    < 1e-6);
	assert_true(isnan(lw_metric_summary(lw_metric_find("worst"), an, "cyclic")));
	json_decref(an);
}

/* Board budget keys: the old ones, the registry's names, and refusals. */
static void test_board_keys(void **st)
{
	static const char board[] =
		"format: 1\nname: k\nbudgets:\n"
		"  xruns: 0\n"
		"  power_w: 2\n"
		"  energy_per_period_uj: 10\n";
	struct lw_board *b = lw_board_parse("k.yaml", board);

	assert_non_null(b);
	assert_int_equal(b->nbudget, 3);
	assert_ptr_equal(b->budget[0].m, lw_metric_find("xruns"));
	assert_ptr_equal(b->budget[1].m, lw_metric_find("power"));
	assert_true(b->budget[1].limit == 2000);
	assert_ptr_equal(b->budget[2].m, lw_metric_find("energy_per_period"));
	lw_board_free(b);
	assert_error(lw_board_parse("k.yaml", "format: 1\nname: k\nbudgets:\n  p99: 1\n") == NULL,
		     "k.yaml:4:3: budgets: unknown key (known here: latency_us, audio_xruns");
	assert_error(lw_board_parse("k.yaml", "format: 1\nname: k\nbudgets:\n  xruns_mw: 1\n") ==
		     NULL, "k.yaml:4:3: budgets: unknown key");
	assert_error(lw_board_parse("k.yaml", "format: 1\nname: k\nbudgets:\n  xruns: 1\n"
				    "  audio_xruns: 2\n") == NULL, "give xruns or audio_xruns, not both");
}

/* doc/latwatt.1, section RULES AND METRICS, names every metric and alias. */
static int has_word(const char *text, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = strstr(text, w); p; p = strstr(p + 1, w)) {
		char before = p == text ? ' ' : p[-1], after = p[n];

		if (isalnum((unsigned char)before) || before == '_' || before == '.')
			continue;
		if (w[n - 1] != ':' && (isalnum((unsigned char)after) || after == '_' ||
					after == ':' || (after == '.' && isdigit((unsigned char)p[n + 1]))))
			continue;
		return 1;
	}
	return 0;
}

static void test_man_page(void **st)
{
	FILE *f = fopen("doc/latwatt.1", "r");
	static char page[1 << 20];
	size_t n;
	char *sec, *end;

	assert_non_null(f);
	n = fread(page, 1, sizeof(page) - 1, f);
	fclose(f);
	page[n] = 0;
	sec = strstr(page, "\n.SH RULES AND METRICS\n");
	assert_non_null(sec);
	end = strstr(sec + 1, "\n.SH ");
	if (end)
		*end = 0;
	for (size_t i = 0; i < lw_nmetrics; i++) {
		const struct lw_metric *m = &lw_metrics[i];

		if (!has_word(sec, m->name))
			fail_msg("doc/latwatt.1 RULES AND METRICS does not describe %s", m->name);
		for (size_t a = 0; a < 3 && m->alias[a]; a++)
			if (!has_word(sec, m->alias[a]))
				fail_msg("doc/latwatt.1 RULES AND METRICS does not name the alias %s",
					 m->alias[a]);
	}
}

/* `latwatt report --help` lists the names --budget takes from the registry:
 * every name it lists is a registry name a run's summary holds, and every
 * such name is listed. */
static void test_report_help_names(void **st)
{
	char path[PATH_MAX], text[8192], *names, *end, *w, *dir = lw_test_tmpdir();
	char *av[] = { "report", "--help", NULL };
	int saved, fd, listed[64] = { 0 };
	FILE *f;
	size_t n;

	(void)st;
	assert_true(lw_nmetrics <= 64);
	snprintf(path, sizeof(path), "%s/help", dir);
	fflush(stdout);
	saved = dup(1);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	dup2(fd, 1);
	close(fd);
	assert_int_equal(cmd_report(2, av), LW_EXIT_OK);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	names = strstr(text, "STAT one of ");
	assert_non_null(names);
	names += strlen("STAT one of ");
	end = strstr(names, "; see RULES AND METRICS");
	assert_non_null(end);
	*end = 0;
	/* the units in parentheses are words of the text, not names */
	for (char *p = names; (p = strchr(p, '('));) {
		char *q = strchr(p, ')');

		assert_non_null(q);
		memset(p, ' ', (size_t)(q - p + 1));
	}
	for (w = strtok(names, " ,\n"); w; w = strtok(NULL, " ,\n")) {
		const struct lw_metric *m = lw_metric_find(w);

		if (!m || strcmp(m->name, w))
			fail_msg("report --help lists '%s', not a name of the registry", w);
		if (m->from == LW_MF_NONE)
			fail_msg("report --help lists '%s', which no run's summary holds", w);
		listed[m - lw_metrics] = 1;
	}
	for (size_t i = 0; i < lw_nmetrics; i++)
		if (lw_metrics[i].from != LW_MF_NONE && !listed[i])
			fail_msg("report --help does not list %s", lw_metrics[i].name);
	lw_test_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_resolve),
		cmocka_unit_test(test_every_name_parses),
		cmocka_unit_test(test_summary_readers),
		cmocka_unit_test(test_board_keys),
		cmocka_unit_test(test_man_page),
		cmocka_unit_test(test_report_help_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
