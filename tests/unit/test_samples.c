// SPDX-License-Identifier: GPL-2.0-only
/* Sample file: round trip, truncation, wrong version, bad magic. */
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "lib/safefile.h"
#include "lib/samples.h"

static char *dir;

static int setup(void **st) { dir = lw_test_tmpdir(); return 0; }
static int teardown(void **st) { lw_test_rmdir(dir); return 0; }

static void write_file(const char *path, size_t n)
{
	struct lw_samples_writer *w = lw_samples_create(LW_AT_PATH, path, 12345);

	assert_non_null(w);
	for (size_t i = 0; i < n; i++) {
		struct lw_sample s = { .expected_ns = 1000000 * i, .latency_ns = 7 * i + 1,
				       .missed = (uint32_t)(i % 3), .cpu = (uint16_t)(i % 4),
				       .probe = LW_SAMPLE_CYCLIC, .flags = (uint8_t)(i & 1) };
		assert_int_equal(lw_samples_write(w, &s, 1), 0);
	}
	assert_int_equal(lw_samples_close(w), 0);
}

static void test_round_trip(void **st)
{
	char path[256];
	struct lw_samples_reader *r;
	struct lw_sample s;
	size_t i = 0;

	snprintf(path, sizeof(path), "%s/samples", dir);
	write_file(path, 10000);
	r = lw_samples_open(path);
	assert_non_null(r);
	assert_int_equal(lw_samples_start(r), 12345);
	assert_int_equal(lw_samples_count(r), 10000);
	while (lw_samples_next(r, &s) == 1) {
		assert_int_equal(s.expected_ns, 1000000 * i);
		assert_int_equal(s.latency_ns, 7 * i + 1);
		assert_int_equal(s.missed, i % 3);
		assert_int_equal(s.cpu, i % 4);
		assert_int_equal(s.probe, LW_SAMPLE_CYCLIC);
		assert_int_equal(s.flags, i & 1);
		i++;
	}
	assert_int_equal(i, 10000);
	lw_samples_close_reader(r);
}

static void test_truncated(void **st)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/samples", dir);
	write_file(path, 100);
	assert_int_equal(truncate(path, LW_SAMPLES_HDR + 24 * 50 + 10), 0);
	assert_error(lw_samples_open(path) == NULL, "truncated: 10 bytes after record 50");
	{	/* a run killed mid-write: every whole record, the partial one left out */
		int q = lw_set_quiet(1);
		struct lw_samples_reader *r = lw_samples_open_flags(path, LW_SAMPLES_PARTIAL_OK);
		struct lw_sample smp;
		int n = 0;

		lw_set_quiet(q);
		assert_non_null(r);
		assert_int_equal(lw_samples_count(r), 50);
		while (lw_samples_next(r, &smp) == 1)
			n++;
		assert_int_equal(n, 50);
		lw_samples_close_reader(r);
	}
	assert_int_equal(truncate(path, 20), 0);
	assert_error(lw_samples_open(path) == NULL, "truncated header");
	assert_int_equal(truncate(path, 0), 0);
	assert_error(lw_samples_open(path) == NULL, "truncated header");
}

static void test_bad_header(void **st)
{
	char path[256];
	unsigned char hdr[LW_SAMPLES_HDR] = "LWSAMPLE";
	uint32_t v = 99, rs = 24;

	snprintf(path, sizeof(path), "%s/samples", dir);
	memcpy(hdr + 8, &v, 4);
	memcpy(hdr + 12, &rs, 4);
	lw_test_write(path, hdr, sizeof(hdr));
	assert_error(lw_samples_open(path) == NULL, "version 99, this latwatt reads version 1");
	memcpy(hdr, "NOTLWSMP", 8);
	lw_test_write(path, hdr, sizeof(hdr));
	assert_error(lw_samples_open(path) == NULL, "not a latwatt sample file");
	memcpy(hdr, "LWSAMPLE", 8);
	v = 1;
	rs = 32;
	memcpy(hdr + 8, &v, 4);
	memcpy(hdr + 12, &rs, 4);
	lw_test_write(path, hdr, sizeof(hdr));
	assert_error(lw_samples_open(path) == NULL, "record size 32");
	assert_error(lw_samples_open("/nonexistent/samples") == NULL, "cannot open /nonexistent/samples");
}

static void test_probe_names(void **st)
{
	for (unsigned i = 1; i < LW_SAMPLE_MAX; i++)
		assert_int_equal(lw_probe_by_name(lw_probe_name(i)), (int)i);
	assert_int_equal(lw_probe_by_name("nope"), -1);
	assert_string_equal(lw_probe_name(200), "unknown");
}

/* Only the noise and hwnoise probes' samples are gaps, hwnoise's with
 * interrupts off in the kernel's osnoise/N; an unknown id is neither. */
static void test_probe_gaps(void **st)
{
	char buf[32];

	for (unsigned i = 0; i < LW_SAMPLE_MAX; i++) {
		assert_int_equal(lw_probe_gaps(i), i == LW_SAMPLE_NOISE || i == LW_SAMPLE_HWNOISE);
		assert_int_equal(lw_probe_irqs_off(i), i == LW_SAMPLE_HWNOISE);
	}
	assert_false(lw_probe_gaps(200));
	assert_false(lw_probe_irqs_off(200));
	assert_string_equal(lw_probe_loop_thread(LW_SAMPLE_NOISE, 3, buf, sizeof(buf)),
			    "lw-noise/3");
	assert_string_equal(lw_probe_loop_thread(LW_SAMPLE_HWNOISE, 1, buf, sizeof(buf)),
			    "osnoise/1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_header, setup, teardown),
		cmocka_unit_test(test_probe_names),
		cmocka_unit_test(test_probe_gaps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
