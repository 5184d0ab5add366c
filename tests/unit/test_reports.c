// SPDX-License-Identifier: GPL-2.0-only
/* Reports: budgets, escaping, SVG embedding, percentile intervals,
 * decimation of samples, gnuplot. */
#include <math.h>
#include <unistd.h>

#include "lw_test.h"
#include "lib/metrics.h"
#include "lib/samples.h"
#include "reports/report.h"

static void test_budget_forms(void **st)
{
	struct lw_rbudget b;

	assert_int_equal(lw_rbudget_parse(&b, "p99<100us"), 0);
	assert_ptr_equal(b.m, lw_metric_find("p99"));
	assert_string_equal(b.stat, "p99");
	assert_string_equal(b.probe, "");
	assert_true(b.strict);
	assert_true(b.limit == 100000);

	assert_int_equal(lw_rbudget_parse(&b, "p99.9<=2ms"), 0);
	assert_string_equal(b.stat, "p99.9");
	assert_string_equal(b.probe, "");
	assert_false(b.strict);
	assert_true(b.limit == 2e6);

	assert_int_equal(lw_rbudget_parse(&b, "cyclic.p99.99<50"), 0);	/* bare: us */
	assert_string_equal(b.probe, "cyclic");
	assert_string_equal(b.stat, "p99.99");
	assert_true(b.limit == 50000);

	assert_int_equal(lw_rbudget_parse(&b, "timerlat-irq.max<1500ns"), 0);
	assert_string_equal(b.probe, "timerlat-irq");
	assert_true(b.limit == 1500);

	assert_int_equal(lw_rbudget_parse(&b, "cyclic.missed<1"), 0);
	assert_ptr_equal(b.m, lw_metric_find("missed"));
	assert_true(b.limit == 1);

	assert_int_equal(lw_rbudget_parse(&b, "power<=6.5W"), 0);
	assert_ptr_equal(b.m, lw_metric_find("power"));
	assert_true(fabs(b.limit - 6500) < 1e-9);
	assert_int_equal(lw_rbudget_parse(&b, "power<900"), 0);	/* bare: mW */
	assert_true(b.limit == 900);

	assert_int_equal(lw_rbudget_parse(&b, "xruns<1"), 0);
	assert_ptr_equal(b.m, lw_metric_find("xruns"));
	assert_int_equal(lw_rbudget_parse(&b, "deadline_misses<=0"), 0);
	assert_ptr_equal(b.m, lw_metric_find("deadline_misses"));
	assert_string_equal(b.origin, "--budget deadline_misses<=0");
}

static void test_budget_errors(void **st)
{
	struct lw_rbudget b;

	assert_error(lw_rbudget_parse(&b, "p99>100us") < 0, "expected [PROBE.]STAT<VALUE");
	assert_error(lw_rbudget_parse(&b, "p98<100us") < 0, "unknown statistic 'p98'");
	assert_error(lw_rbudget_parse(&b, "p99<100parsecs") < 0, "unknown unit 'parsecs'");
	assert_error(lw_rbudget_parse(&b, "p99<-5") < 0, "not a non-negative number");
	assert_error(lw_rbudget_parse(&b, "p99<") < 0, "not a non-negative number");
	assert_error(lw_rbudget_parse(&b, "<5") < 0, "no statistic");
	assert_error(lw_rbudget_parse(&b, "cyclic.xruns<1") < 0, "not a per-probe figure");
	assert_error(lw_rbudget_parse(&b, "power<5us") < 0, "unknown unit 'us'");
	assert_error(lw_rbudget_parse(&b, "missed<1ms") < 0, "unknown unit 'ms'");
	assert_error(lw_rbudget_parse(&b, ".p99<1") < 0, "bad probe name");
}

/* A run held in memory: analysis.json only. */
static void fake_run(struct lw_rrun *r, const char *analysis)
{
	json_error_t err;

	memset(r, 0, sizeof(*r));
	r->analysis = json_loads(analysis, 0, &err);
	assert_non_null(r->analysis);
}

static void test_budget_eval(void **st)
{
	struct lw_rrun r;
	struct lw_rbudget b;
	struct lw_checks cs = { 0 };

	fake_run(&r, "{\"probes\": {"
		     " \"cyclic\": {\"all\": {\"count\": 10, \"p99_ns\": 120000, \"max_ns\": 300000,"
		     "  \"missed_periods\": 2, \"dropped\": 0, \"over_threshold\": null}},"
		     " \"noise\": {\"all\": {\"count\": 5, \"p99_ns\": 80000, \"max_ns\": 100000,"
		     "  \"missed_periods\": 0, \"dropped\": 0}}},"
		     "\"workloads\": {\"a\": {\"type\": \"audio\", \"misses\": 3},"
		     "  \"v\": {\"type\": \"video\", \"misses\": 0}},"
		     "\"power\": {\"rails\": [{\"name\": \"soc\", \"mean_mw\": 700},"
		     "  {\"name\": \"ddr\", \"mean_mw\": 300.5}]}}");
	/* every probe: one check each */
	assert_int_equal(lw_rbudget_parse(&b, "p99<100us"), 0);
	assert_int_equal(lw_rbudget_eval(&b, &r, &cs), 0);
	assert_int_equal(cs.n, 2);
	assert_string_equal(cs.c[0].name, "budget.cyclic.p99");
	assert_int_equal(cs.c[0].result, LW_FAIL);
	assert_true(cs.c[0].measured == 120 && cs.c[0].limit == 100);
	assert_string_equal(cs.c[0].unit, "us");
	assert_string_equal(cs.c[1].name, "budget.noise.p99");
	assert_int_equal(cs.c[1].result, LW_PASS);
	/* '<' against '<=' at the limit */
	assert_int_equal(lw_rbudget_parse(&b, "noise.max<100us"), 0);
	assert_int_equal(lw_rbudget_eval(&b, &r, &cs), 0);
	assert_int_equal(cs.c[2].result, LW_FAIL);
	assert_int_equal(lw_rbudget_parse(&b, "noise.max<=100us"), 0);
	assert_int_equal(lw_rbudget_eval(&b, &r, &cs), 0);
	assert_int_equal(cs.c[3].result, LW_PASS);
	/* counts; a null figure is skipped, a missing probe too */
	assert_int_equal(lw_rbudget_parse(&b, "cyclic.missed<=1"), 0);
	assert_int_equal(lw_rbudget_eval(&b, &r, &cs), 0);
	assert_int_equal(cs.c[4].result, LW_FAIL);
	assert_int_equal(lw_rbudget_parse(&b, "cyclic.over<1"), 0);
	assert_int_equal(lw_rbudget_eval(&b, &r, &cs), 0);
	assert_int_equal(cs.c[5].result, LW_SKIP);
	assert_int_equal(lw_rbudget_parse(&b, "timerlat-irq.p99<1ms"), 0);
	assert_int_equal(lw_rbudget_eval(&b, &r, &cs), 0);
	assert_int_equal(cs.c[6].result, LW_SKIP);
	assert_non_null(strstr(cs.c[6].message, "not recorded"));
	/* workloads and power */
	assert_int_equal(lw_rbudget_parse(&b, "xruns<1"), 0);
	assert_int_equal(lw_rbudget_eval(&b, &r, &cs), 0);
	assert_int_equal(cs.c[7].result, LW_FAIL);
	assert_true(cs.c[7].measured == 3);
	assert_int_equal(lw_rbudget_parse(&b, "dropped_frames<1"), 0);
	assert_int_equal(lw_rbudget_eval(&b, &r, &cs), 0);
	assert_int_equal(cs.c[8].result, LW_PASS);
	assert_int_equal(lw_rbudget_parse(&b, "deadline_misses<=3"), 0);
	assert_int_equal(lw_rbudget_eval(&b, &r, &cs), 0);
	assert_int_equal(cs.c[9].result, LW_PASS);
	assert_int_equal(lw_rbudget_parse(&b, "power<1W"), 0);
	assert_int_equal(lw_rbudget_eval(&b, &r, &cs), 0);
	assert_int_equal(cs.c[10].result, LW_FAIL);
	assert_true(fabs(cs.c[10].measured - 1000.5) < 1e-9);
	assert_int_equal(lw_checks_count(&cs, LW_FAIL), 5);
	assert_int_equal(lw_checks_count(&cs, LW_SKIP), 2);
	lw_checks_free(&cs);
	json_decref(r.analysis);

	/* a run without workloads or power: skipped, never passed */
	fake_run(&r, "{\"probes\": {}}");
	assert_int_equal(lw_rbudget_parse(&b, "xruns<1"), 0);
	assert_int_equal(lw_rbudget_eval(&b, &r, &cs), 0);
	assert_int_equal(lw_rbudget_parse(&b, "power<1W"), 0);
	assert_int_equal(lw_rbudget_eval(&b, &r, &cs), 0);
	assert_error(lw_rbudget_parse(&b, "p99<1W") < 0, "unknown unit 'W'");
	assert_int_equal(lw_rbudget_parse(&b, "p99<1ms"), 0);
	assert_int_equal(lw_rbudget_eval(&b, &r, &cs), 0);
	assert_int_equal(cs.n, 3);
	assert_int_equal(lw_checks_count(&cs, LW_SKIP), 3);
	lw_checks_free(&cs);
	json_decref(r.analysis);
}

static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	lw_xml_escape(f, s);
	fclose(f);
	return buf;
}

static void test_xml_escape(void **st)
{
	char *e = escaped("a<b & \"c\" 'd'>\x01\tok");

	assert_string_equal(e, "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;\xef\xbf\xbd\tok");
	free(e);
}

static void test_svg_embed(void **st)
{
	const char *svg =
		"<?xml version=\"1.0\" encoding=\"utf-8\"  standalone=\"no\"?>\n"
		"<svg \n width=\"600\" height=\"300\"\n xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<g id=\"gnuplot_canvas\">\n<defs>\n\t<circle id='gpDot' r='0.5'/>\n"
		"\t<use xlink:href='#gpDot' id='gpPt6'/>\n"
		"\t<filter id='textbox'/>\n</defs>\n"
		"<text filter='url(#textbox)'>id='not-an-attr'</text>\n"
		"<use href=\"#gpPt6\"/>\n</g>\n</svg>\n<!-- trailing -->\n";
	char *e = lw_svg_embed(svg, "p1");

	assert_non_null(e);
	{
		const char *want = "<svg class=\"plot\" data-plot=\"p1\" role=\"img\" \n width";

		assert_true(!strncmp(e, want, strlen(want)));
	}
	assert_null(strstr(e, "<?xml"));
	assert_null(strstr(e, "trailing"));
	assert_non_null(strstr(e, "id=\"p1-gnuplot_canvas\""));
	assert_non_null(strstr(e, "id='p1-gpDot'"));
	assert_non_null(strstr(e, "href='#p1-gpDot' id='p1-gpPt6'"));
	assert_non_null(strstr(e, "url(#p1-textbox)"));
	assert_non_null(strstr(e, "href=\"#p1-gpPt6\""));
	/* text content is not an attribute: only " id=" with a space counts,
	 * and the text here has "id=" after a '>' */
	assert_non_null(strstr(e, ">id='not-an-attr'<"));
	assert_true(!strcmp(e + strlen(e) - 6, "</svg>"));
	free(e);
	assert_error(lw_svg_embed("<html></html>", "p2") == NULL, "is not SVG");
	assert_error(lw_svg_embed("<svg>", "p3") == NULL, "is not SVG");
}


static void test_gnuplot(void **st)
{
	char *svg;

	if (!lw_gnuplot_available()) {
		skip();
		return;
	}
	svg = lw_gnuplot_svg("$d << EOD\n1 2\n2 4\nEOD\nplot $d with lines title \"a & b\"\n",
			     "t1", 320, 200);
	assert_non_null(svg);
	assert_true(!strncmp(svg, "<svg class=\"plot\" data-plot=\"t1\"",
			     strlen("<svg class=\"plot\" data-plot=\"t1\"")));
	assert_non_null(strstr(svg, "a &amp; b"));
	assert_non_null(strstr(svg, "id=\"t1-gnuplot_canvas\""));
	free(svg);
	/* a script gnuplot rejects: an error naming the plot and gnuplot's line */
	assert_error(lw_gnuplot_svg("plot $nodata with lines\n", "t2", 320, 200) == NULL,
		     "gnuplot failed on plot t2: ");
}

static void test_gnuplot_missing(void **st)
{
	char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	setenv("PATH", "/nonexistent", 1);
	assert_false(lw_gnuplot_available());
	assert_error(lw_gnuplot_svg("plot x\n", "t3", 100, 100) == NULL, "gnuplot failed");
	if (path)
		setenv("PATH", path, 1);
	free(path);
}

/*
 * The comparison page's "How verdicts are reached" is the man page's
 * section of that name (LATWATT COMPARE), paragraph by paragraph: troff's
 * \- and quotes read as the page prints them, lines joined.
 */
static void test_method_is_the_man_page(void **st)
{
	FILE *f = fopen("doc/latwatt.1", "r");
	char line[1024], para[8192] = "";
	size_t np = 0;
	int in = 0;

	(void)st;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char out[2048], *o = out;

		line[strcspn(line, "\n")] = 0;
		if (!strcmp(line, ".SS How verdicts are reached")) {
			in = 1;
			continue;
		}
		if (!in)
			continue;
		if (!strncmp(line, ".SS", 3) || !strncmp(line, ".SH", 3) || !strcmp(line, ".PP")) {
			assert_non_null(lw_cmp_method[np]);
			if (strcmp(para, lw_cmp_method[np]))
				fail_msg("paragraph %zu differs from doc/latwatt.1:\n  page: %s\n  man:  %s",
					 np + 1, lw_cmp_method[np], para);
			np++;
			para[0] = 0;
			if (strcmp(line, ".PP"))
				break;
			continue;
		}
		for (const char *p = line; *p; p++) {
			if (!strncmp(p, "\\-", 2)) {
				*o++ = '-';
				p++;
			} else if (!strncmp(p, "\\(lq", 4) || !strncmp(p, "\\(rq", 4)) {
				o += sprintf(o, "%s", p[2] == 'l' ? "\u201c" : "\u201d");
				p += 3;
			} else {
				assert_true(*p != '\\');	/* an escape this test does not know */
				*o++ = *p;
			}
		}
		*o = 0;
		snprintf(para + strlen(para), sizeof(para) - strlen(para), "%s%s", *para ? " " : "", out);
	}
	fclose(f);
	assert_true(in);
	assert_true(np > 0);
	assert_null(lw_cmp_method[np]);
}

/* The hwnoise probe's per-period figures: a line per CPU, from analysis.json
 * alone; none without them. */
static void test_hwnoise_lines(void **state)
{
	char line[4][LW_HOST_LINE];
	json_t *doc = json_loads("{\"hwnoise\": {\"per_cpu\": [{\"cpu\": 1, \"periods\": 6, "
				 "\"runtime_us\": 6400000, \"noise_us\": 3200, \"max_single_us\": 532, "
				 "\"hw_count\": 4915, \"nmi_count\": 2}]}}", 0, NULL);

	(void)state;
	assert_non_null(doc);
	assert_int_equal(lw_hwnoise_lines(doc, line, 4), 1);
	assert_string_equal(line[0], "hwnoise cpu 1 (interrupts off): 6 periods, noise 3200us of "
			    "6.400 s (0.0500 % of the CPU), max single 532us, 4915 gaps with no "
			    "interference (hw), 2 NMIs");
	assert_int_equal(lw_hwnoise_lines(doc, line, 0), 0);
	json_decref(doc);
	doc = json_object();
	assert_int_equal(lw_hwnoise_lines(doc, line, 4), 0);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget_forms),
		cmocka_unit_test(test_hwnoise_lines),
		cmocka_unit_test(test_budget_errors),
		cmocka_unit_test(test_budget_eval),
		cmocka_unit_test(test_xml_escape),
		cmocka_unit_test(test_svg_embed),
		cmocka_unit_test(test_gnuplot),
		cmocka_unit_test(test_gnuplot_missing),
		cmocka_unit_test(test_method_is_the_man_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
