// SPDX-License-Identifier: GPL-2.0-only
/*
 * timerlat event decoding: the ftrace/timerlat format as the kernel prints
 * it (events/ftrace/timerlat/format), records built byte by byte, and the
 * conversion of events into samples.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <event-parse.h>

#include "lib/error.h"
#include "probes/timerlat.h"

static const char timerlat_format[] =
	"name: timerlat\n"
	"ID: 18\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned int seqnum;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:int context;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:u64 timer_latency;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"seq:%u\\tcontext:%d\\ttimer_latency:%llu\\n\", REC->seqnum, "
	"REC->context, REC->timer_latency\n";

/* Debian's 6.1 PREEMPT_RT kernel (linux-image-6.1.0-54-rt-amd64): one more
 * common field, and the event's own fields elsewhere. */
static const char timerlat_format_rt[] =
	"name: timerlat\n"
	"ID: 17\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned char common_preempt_lazy_count;\toffset:8;\tsize:1;\tsigned:0;\n"
	"\n"
	"\tfield:unsigned int seqnum;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:int context;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:u64 timer_latency;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"seq:%u\\tcontext:%d\\ttimer_latency:%llu\\n\", REC->seqnum, "
	"REC->context, REC->timer_latency\n";

/* An older layout with the fields elsewhere: decoding goes by name. */
static const char timerlat_format_moved[] =
	"name: timerlat\n"
	"ID: 14\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:u64 timer_latency;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int seqnum;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:int context;\toffset:20;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"%llu\", REC->timer_latency\n";

static const char no_latency_format[] =
	"name: timerlat\n"
	"ID: 18\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\n"
	"\tfield:unsigned int seqnum;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:int context;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"seq:%u\", REC->seqnum\n";

static struct tep_handle *tep_with(const char *fmt)
{
	struct tep_handle *tep = tep_alloc();

	assert_non_null(tep);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, 8);
	assert_int_equal(tep_parse_event(tep, fmt, strlen(fmt), "ftrace"), 0);
	return tep;
}

static void put(unsigned char *b, size_t off, uint64_t v, size_t size)
{
	for (size_t i = 0; i < size; i++)
		b[off + i] = (unsigned char)(v >> (8 * i));
}

static void test_decode_current_layout(void **state)
{
	struct tep_handle *tep = tep_with(timerlat_format);
	struct lw_tl_format f;
	struct lw_tl_event e;
	unsigned char data[24] = { 0 };
	struct tep_record rec = { .ts = 5000123456ULL, .cpu = 3, .data = data, .size = 24 };

	assert_int_equal(lw_timerlat_format(tep, &f), 0);
	assert_int_equal(f.id, 18);
	put(data, 0, 18, 2);
	put(data, 8, 4242, 4);
	put(data, 12, 1, 4);
	put(data, 16, 11700, 8);
	assert_int_equal(lw_timerlat_decode(&f, &rec, &e), 0);
	assert_int_equal(e.ts, 5000123456ULL);
	assert_int_equal(e.cpu, 3);
	assert_int_equal(e.seqnum, 4242);
	assert_int_equal(e.context, LW_TL_THREAD);
	assert_int_equal(e.latency_ns, 11700);
	tep_free(tep);
}

static void test_decode_rt_layout(void **state)
{
	struct tep_handle *tep = tep_with(timerlat_format_rt);
	struct lw_tl_format f;
	struct lw_tl_event e;
	unsigned char data[32] = { 0 };
	struct tep_record rec = { .ts = 12667070123ULL, .cpu = 1, .data = data, .size = 32 };

	assert_int_equal(lw_timerlat_format(tep, &f), 0);
	assert_int_equal(f.id, 17);
	put(data, 0, 17, 2);
	put(data, 8, 1, 1);		/* preempt_lazy_count */
	put(data, 12, 0xfffffffe, 4);	/* seqnum wraps as an unsigned int */
	put(data, 16, 0, 4);
	put(data, 24, 932, 8);
	assert_int_equal(lw_timerlat_decode(&f, &rec, &e), 0);
	assert_int_equal(e.seqnum, 0xfffffffe);
	assert_int_equal(e.context, LW_TL_IRQ);
	assert_int_equal(e.latency_ns, 932);
	assert_int_equal(e.cpu, 1);
	tep_free(tep);
}

static void test_decode_by_field_name(void **state)
{
	struct tep_handle *tep = tep_with(timerlat_format_moved);
	struct lw_tl_format f;
	struct lw_tl_event e;
	unsigned char data[24] = { 0 };
	struct tep_record rec = { .ts = 77, .cpu = 0, .data = data, .size = 24 };

	assert_int_equal(lw_timerlat_format(tep, &f), 0);
	assert_int_equal(f.id, 14);
	put(data, 8, 0x1122334455ULL, 8);
	put(data, 16, 7, 4);
	put(data, 20, 0, 4);
	assert_int_equal(lw_timerlat_decode(&f, &rec, &e), 0);
	assert_int_equal(e.latency_ns, 0x1122334455ULL);
	assert_int_equal(e.seqnum, 7);
	assert_int_equal(e.context, LW_TL_IRQ);
	tep_free(tep);
}

static void test_format_without_latency_is_refused(void **state)
{
	struct tep_handle *tep = tep_with(no_latency_format);
	struct lw_tl_format f;
	int q = lw_set_quiet(1);

	assert_int_equal(lw_timerlat_format(tep, &f), -1);
	lw_set_quiet(q);
	assert_non_null(strstr(lw_last_error(), "timer_latency"));
	tep_free(tep);
}

static void test_format_absent_is_refused(void **state)
{
	struct tep_handle *tep = tep_alloc();
	struct lw_tl_format f;
	int q = lw_set_quiet(1);

	assert_int_equal(lw_timerlat_format(tep, &f), -1);
	lw_set_quiet(q);
	assert_non_null(strstr(lw_last_error(), "no ftrace/timerlat"));
	tep_free(tep);
}

static void test_irq_then_thread_share_the_expiry(void **state)
{
	struct lw_tl_cpu st = { 0 };
	struct lw_sample s;
	/* timer due at 1,000,000,000; IRQ 932ns late, event written at +1200 */
	struct lw_tl_event irq = { .ts = 1000001200, .cpu = 2, .seqnum = 9, .context = LW_TL_IRQ,
				   .latency_ns = 1200 };
	struct lw_tl_event thr = { .ts = 1000011900, .cpu = 2, .seqnum = 9,
				   .context = LW_TL_THREAD, .latency_ns = 11700 };

	assert_int_equal(lw_timerlat_sample(&st, &irq, 1000000, &s), 1);
	assert_int_equal(s.probe, LW_SAMPLE_TIMERLAT_IRQ);
	assert_int_equal(s.expected_ns, 1000000000);
	assert_int_equal(s.latency_ns, 1200);
	assert_int_equal(s.cpu, 2);
	assert_int_equal(s.missed, 0);
	assert_int_equal(s.flags, 0);

	assert_int_equal(lw_timerlat_sample(&st, &thr, 1000000, &s), 1);
	assert_int_equal(s.probe, LW_SAMPLE_TIMERLAT_THREAD);
	/* 1000011900 - 11700 = 1000000200: the IRQ's value wins */
	assert_int_equal(s.expected_ns, 1000000000);
	assert_int_equal(s.latency_ns, 11700);
}

static void test_thread_without_its_irq(void **state)
{
	struct lw_tl_cpu st = { 0 };
	struct lw_sample s;
	struct lw_tl_event irq = { .ts = 2000, .cpu = 0, .seqnum = 1, .context = LW_TL_IRQ,
				   .latency_ns = 500 };
	struct lw_tl_event thr = { .ts = 1005000, .cpu = 0, .seqnum = 2,
				   .context = LW_TL_THREAD, .latency_ns = 4000 };

	/* no IRQ seen at all: timestamp minus latency */
	assert_int_equal(lw_timerlat_sample(&st, &thr, 1000000, &s), 1);
	assert_int_equal(s.expected_ns, 1001000);
	/* IRQ of another activation (its own event lost): same */
	assert_int_equal(lw_timerlat_sample(&st, &irq, 1000000, &s), 1);
	assert_int_equal(lw_timerlat_sample(&st, &thr, 1000000, &s), 1);
	assert_int_equal(s.expected_ns, 1001000);
}

static void test_missed_periods(void **state)
{
	struct lw_tl_cpu st = { 0 };
	struct lw_sample s;
	struct lw_tl_event thr = { .ts = 50000000, .cpu = 1, .seqnum = 3,
				   .context = LW_TL_THREAD, .latency_ns = 2500000 };

	assert_int_equal(lw_timerlat_sample(&st, &thr, 1000000, &s), 1);
	assert_int_equal(s.missed, 2);
	assert_int_equal(lw_timerlat_sample(&st, &thr, 0, &s), 1);
	assert_int_equal(s.missed, 0);
}

static void test_ignored_events(void **state)
{
	struct lw_tl_cpu st = { 0 };
	struct lw_sample s;
	struct lw_tl_event other = { .ts = 5000, .cpu = 0, .seqnum = 1, .context = 3,
				     .latency_ns = 100 };
	struct lw_tl_event neg = { .ts = 5000, .cpu = 0, .seqnum = 1, .context = -1,
				   .latency_ns = 100 };
	struct lw_tl_event early = { .ts = 100, .cpu = 0, .seqnum = 1, .context = LW_TL_IRQ,
				     .latency_ns = 5000 };
	struct lw_tl_event early_user = { .ts = 100, .cpu = 0, .seqnum = 1,
					  .context = LW_TL_USER_RET, .latency_ns = 5000 };

	assert_int_equal(lw_timerlat_sample(&st, &other, 1000000, &s), 0);
	assert_int_equal(lw_timerlat_sample(&st, &neg, 1000000, &s), 0);
	assert_int_equal(lw_timerlat_sample(&st, &early, 1000000, &s), 0);
	assert_int_equal(lw_timerlat_sample(&st, &early_user, 1000000, &s), 0);
	assert_int_equal(st.have, 0);
}

/* User-space threads (timerlat_fd): the return to user, context 2, is a
 * third sample of the activation, with the IRQ's expiry; without its IRQ,
 * timestamp minus latency. */
static void test_user_return_is_a_third_sample(void **state)
{
	struct lw_tl_cpu st = { 0 };
	struct lw_sample s;
	struct lw_tl_event irq = { .ts = 1000001200, .cpu = 1, .seqnum = 4, .context = LW_TL_IRQ,
				   .latency_ns = 1200 };
	struct lw_tl_event thr = { .ts = 1000006000, .cpu = 1, .seqnum = 4,
				   .context = LW_TL_THREAD, .latency_ns = 5800 };
	struct lw_tl_event ret = { .ts = 1000009500, .cpu = 1, .seqnum = 4,
				   .context = LW_TL_USER_RET, .latency_ns = 9100 };
	struct lw_tl_event lone = { .ts = 3000009000, .cpu = 1, .seqnum = 7,
				    .context = LW_TL_USER_RET, .latency_ns = 2500000 };

	assert_int_equal(lw_timerlat_sample(&st, &irq, 1000000, &s), 1);
	assert_int_equal(lw_timerlat_sample(&st, &thr, 1000000, &s), 1);
	assert_int_equal(s.probe, LW_SAMPLE_TIMERLAT_THREAD);
	assert_int_equal(lw_timerlat_sample(&st, &ret, 1000000, &s), 1);
	assert_int_equal(s.probe, LW_SAMPLE_TIMERLAT_USER);
	assert_string_equal(lw_probe_name(s.probe), "timerlat-user");
	assert_true(lw_probe_wakeup(s.probe));
	/* 1000009500 - 9100 = 1000000400: the IRQ's value wins */
	assert_int_equal(s.expected_ns, 1000000000);
	assert_int_equal(s.latency_ns, 9100);
	assert_int_equal(s.cpu, 1);
	assert_int_equal(s.missed, 0);
	assert_int_equal(lw_timerlat_sample(&st, &lone, 1000000, &s), 1);
	assert_int_equal(s.expected_ns, 3000009000 - 2500000);
	assert_int_equal(s.missed, 2);
}

static void test_threads_option(void **state)
{
	uint64_t v = 9;
	int q = lw_set_quiet(1);

	assert_int_equal(lw_parse_timerlat_threads("--timerlat-threads", "user", &v), 0);
	assert_int_equal(v, LW_TL_THREADS_USER);
	assert_int_equal(lw_parse_timerlat_threads("--timerlat-threads", "kernel", &v), 0);
	assert_int_equal(v, LW_TL_THREADS_KERNEL);
	assert_int_equal(lw_parse_timerlat_threads("--timerlat-threads", "both", &v), -1);
	assert_string_equal(lw_last_error(), "--timerlat-threads: 'both': user or kernel");
	lw_set_quiet(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_current_layout),
		cmocka_unit_test(test_decode_rt_layout),
		cmocka_unit_test(test_decode_by_field_name),
		cmocka_unit_test(test_format_without_latency_is_refused),
		cmocka_unit_test(test_format_absent_is_refused),
		cmocka_unit_test(test_irq_then_thread_share_the_expiry),
		cmocka_unit_test(test_thread_without_its_irq),
		cmocka_unit_test(test_missed_periods),
		cmocka_unit_test(test_ignored_events),
		cmocka_unit_test(test_user_return_is_a_third_sample),
		cmocka_unit_test(test_threads_option),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
