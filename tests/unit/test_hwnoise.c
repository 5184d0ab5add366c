// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwnoise event decoding: osnoise/sample_threshold and ftrace/osnoise as
 * Debian's 6.12 PREEMPT_RT kernel prints them (events/.../format), records
 * built byte by byte, the gaps into samples and the periods summed; and
 * osnoise/options read for a flag.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <event-parse.h>

#include "lib/error.h"
#include "probes/hwnoise.h"
#include "probes/osnoise.h"

static const char gap_format[] =
	"name: sample_threshold\n"
	"ID: 512\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:u64 start;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 duration;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 interference;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"start %llu.%09u duration %llu ns interference %llu\", "
	"(REC->start) / 1000000000UL, (REC->start) % 1000000000UL, REC->duration, "
	"REC->interference\n";

static const char period_format[] =
	"name: osnoise\n"
	"ID: 16\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:u64 noise;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 runtime;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 max_sample;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int hw_count;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int nmi_count;\toffset:36;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int irq_count;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int softirq_count;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int thread_count;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"noise:%llu\\tmax_sample:%llu\\thw:%u\\tnmi:%u\\tirq:%u\\tsoftirq:%u\\t"
	"thread:%u\\n\", REC->noise, REC->max_sample, REC->hw_count, REC->nmi_count, "
	"REC->irq_count, REC->softirq_count, REC->thread_count\n";

static const char nmi_format[] =
	"name: nmi_noise\n"
	"ID: 511\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:u64 start;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 duration;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"start %llu.%09u duration %llu ns\", (REC->start) / 1000000000UL, "
	"(REC->start) % 1000000000UL, REC->duration\n";

static struct tep_handle *tep_with(int gap, int period)
{
	struct tep_handle *tep = tep_alloc();

	assert_non_null(tep);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, 8);
	if (gap)
		assert_int_equal(tep_parse_event(tep, gap_format, strlen(gap_format), "osnoise"), 0);
	if (period)
		assert_int_equal(tep_parse_event(tep, period_format, strlen(period_format),
						 "ftrace"), 0);
	assert_int_equal(tep_parse_event(tep, nmi_format, strlen(nmi_format), "osnoise"), 0);
	return tep;
}

static void put(unsigned char *b, size_t off, uint64_t v, size_t size)
{
	for (size_t i = 0; i < size; i++)
		b[off + i] = (unsigned char)(v >> (8 * i));
}

/* A gap: its length the sample's latency, its start the event's time minus
 * its length (the event is written as the gap ends). */
static void test_gap_into_sample(void **state)
{
	struct tep_handle *tep = tep_with(1, 1);
	struct lw_hwn_format f;
	struct lw_hwn_gap g;
	struct lw_sample s;
	unsigned char data[32] = { 0 };
	struct tep_record rec = { .ts = 13821069806ULL, .cpu = 1, .data = data, .size = 32 };

	(void)state;
	assert_int_equal(lw_hwnoise_format(tep, &f), 0);
	assert_int_equal(f.gap_id, 512);
	assert_int_equal(f.period_id, 16);
	put(data, 0, 512, 2);
	put(data, 8, 777, 8);			/* start, on the tracer's own clock */
	put(data, 16, 300000000, 8);		/* 300 ms */
	put(data, 24, 0, 8);
	assert_int_equal(lw_hwnoise_gap(&f, &rec, &g), 0);
	assert_int_equal(g.duration_ns, 300000000);
	assert_int_equal(g.interference, 0);
	assert_int_equal(g.cpu, 1);
	assert_int_equal(lw_hwnoise_sample(&g, &s), 1);
	assert_int_equal(s.probe, LW_SAMPLE_HWNOISE);
	assert_int_equal(s.latency_ns, 300000000);
	assert_int_equal(s.expected_ns, 13821069806ULL - 300000000);
	assert_int_equal(s.cpu, 1);
	assert_int_equal(s.missed, 0);
	/* an NMI inside: counted as interference */
	put(data, 24, 2, 8);
	assert_int_equal(lw_hwnoise_gap(&f, &rec, &g), 0);
	assert_int_equal(g.interference, 2);
	/* longer than its timestamp: not placed */
	g.ts = 1000;
	g.duration_ns = 2000;
	assert_int_equal(lw_hwnoise_sample(&g, &s), 0);
	tep_free(tep);
}

/* An NMI: its start the event's time minus its duration. */
static void test_nmi(void **state)
{
	struct tep_handle *tep = tep_with(1, 1);
	struct lw_hwn_format f;
	struct lw_hwn_nmi n;
	unsigned char data[24] = { 0 };
	struct tep_record rec = { .ts = 5000000, .cpu = 1, .data = data, .size = 24 };

	(void)state;
	assert_int_equal(lw_hwnoise_format(tep, &f), 0);
	assert_int_equal(f.nmi_id, 511);
	put(data, 0, 511, 2);
	put(data, 16, 3200, 8);
	assert_int_equal(lw_hwnoise_nmi(&f, &rec, &n), 0);
	assert_int_equal(n.cpu, 1);
	assert_int_equal(n.ns, 3200);
	assert_int_equal(n.start_ns, 5000000 - 3200);
	rec.ts = 100;
	assert_int_equal(lw_hwnoise_nmi(&f, &rec, &n), -1);
	tep_free(tep);
}

/* The per-period figures are summed, the largest single noise kept. */
static void test_periods_summed(void **state)
{
	struct tep_handle *tep = tep_with(1, 1);
	struct lw_hwn_format f;
	struct lw_hwn_cpu c = { 0 };
	unsigned char data[56] = { 0 };
	struct tep_record rec = { .ts = 5, .cpu = 1, .data = data, .size = 56 };

	(void)state;
	assert_int_equal(lw_hwnoise_format(tep, &f), 0);
	put(data, 0, 16, 2);
	put(data, 8, 1373, 8);		/* noise, us */
	put(data, 16, 1000845, 8);	/* runtime, us */
	put(data, 24, 28, 8);		/* max single, us */
	put(data, 32, 879, 4);		/* hw */
	put(data, 36, 1, 4);		/* nmi */
	assert_int_equal(lw_hwnoise_period(&f, &rec, &c), 0);
	put(data, 8, 27, 8);
	put(data, 24, 12, 8);
	put(data, 32, 3, 4);
	put(data, 36, 0, 4);
	assert_int_equal(lw_hwnoise_period(&f, &rec, &c), 0);
	assert_int_equal(c.periods, 2);
	assert_int_equal(c.noise_us, 1400);
	assert_int_equal(c.runtime_us, 2001690);
	assert_int_equal(c.max_single_us, 28);
	assert_int_equal(c.hw, 882);
	assert_int_equal(c.nmi, 1);
	assert_int_equal(c.irq + c.softirq + c.thread, 0);
	tep_free(tep);
}

/* A kernel without either event is refused with the event named. */
static void test_formats_missing(void **state)
{
	struct tep_handle *tep = tep_with(0, 1);
	struct lw_hwn_format f;
	int q = lw_set_quiet(1);

	(void)state;
	assert_int_equal(lw_hwnoise_format(tep, &f), -1);
	assert_non_null(strstr(lw_last_error(), "osnoise/sample_threshold"));
	tep_free(tep);
	tep = tep_with(1, 0);
	assert_int_equal(lw_hwnoise_format(tep, &f), -1);
	lw_set_quiet(q);
	assert_non_null(strstr(lw_last_error(), "ftrace/osnoise"));
	tep_free(tep);
}

/* osnoise/options: a flag set, clear (NO_), or not listed by the kernel. */
static void test_options_flags(void **state)
{
	const char *o612 = "DEFAULTS OSNOISE_WORKLOAD NO_PANIC_ON_STOP NO_OSNOISE_PREEMPT_DISABLE "
			   "NO_OSNOISE_IRQ_DISABLE \n";
	const char *set = "DEFAULTS NO_OSNOISE_WORKLOAD OSNOISE_IRQ_DISABLE\n";
	const char *o61 = "DEFAULTS OSNOISE_WORKLOAD NO_PANIC_ON_STOP\n";

	(void)state;
	assert_int_equal(lw_osn_flag(o612, "OSNOISE_IRQ_DISABLE"), 0);
	assert_int_equal(lw_osn_flag(o612, "OSNOISE_WORKLOAD"), 1);
	assert_int_equal(lw_osn_flag(o612, "OSNOISE_PREEMPT_DISABLE"), 0);
	assert_int_equal(lw_osn_flag(set, "OSNOISE_IRQ_DISABLE"), 1);
	assert_int_equal(lw_osn_flag(set, "OSNOISE_WORKLOAD"), 0);
	assert_int_equal(lw_osn_flag(o61, "OSNOISE_IRQ_DISABLE"), -1);
	assert_int_equal(lw_osn_flag("", "OSNOISE_WORKLOAD"), -1);
	assert_int_equal(lw_osn_flag("XOSNOISE_WORKLOAD", "OSNOISE_WORKLOAD"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gap_into_sample),
		cmocka_unit_test(test_periods_summed),
		cmocka_unit_test(test_nmi),
		cmocka_unit_test(test_formats_missing),
		cmocka_unit_test(test_options_flags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
