// SPDX-License-Identifier: GPL-2.0-only
/*
 * The noise participant under the real run driver, for a fraction of a
 * second: samples, manifest totals, trace markers (into a file standing for
 * trace_marker) and the RT throttling knob (a file standing for
 * /proc/sys/kernel/sched_rt_runtime_us), restored at the end.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/samples.h"
#include "lib/sysfs.h"
#include "probes/noise.h"

static void test_noise_run(void **st)
{
	char *dir = lw_test_tmpdir();
	char path[512], knob[512], marks[512], buf[64];
	struct lw_rundir rd;
	struct lw_run run;
	struct lw_noise_opts o;
	struct lw_samples_reader *r;
	struct lw_sample s;
	cpu_set_t online;
	int last = -1, root = geteuid() == 0, ret, q;
	uint64_t n = 0, sum = 0, flagged = 0;
	json_t *t;

	assert_int_equal(lw_online_cpus(&online), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &online))
			last = c;
	if (CPU_COUNT(&online) < 2)
		skip();

	snprintf(knob, sizeof(knob), "%s/sched_rt_runtime_us", dir);
	lw_test_write(knob, "950000\n", 7);
	snprintf(marks, sizeof(marks), "%s/trace_marker", dir);
	snprintf(path, sizeof(path), "%s/run", dir);

	memset(&o, 0, sizeof(o));
	CPU_SET(last, &o.cpus);
	o.gap_threshold_ns = 1000;
	o.threshold_ns = 2000;
	o.priority = 10;
	o.no_rt = !root;		/* SCHED_FIFO needs root; then the knob is used */
	o.rt_runtime_knob = knob;

	lw_run_block_signals();
	assert_int_equal(lw_rundir_create(&rd, path, 0), 0);
	lw_run_init(&run, &rd);
	run.duration_ns = 300 * LW_NSEC_PER_MSEC;
	run.marker_fd = open(marks, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	assert_true(run.marker_fd >= 0);
	assert_int_equal(lw_run_add(&run, lw_noise_new(&o)), 0);
	q = lw_set_quiet(1);
	ret = lw_run_execute(&run);
	lw_set_quiet(q);
	assert_int_equal(ret, 0);

	/* the knob: set to -1 for the run (when SCHED_FIFO), restored after */
	assert_true(lw_read_file(knob, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "950000");
	t = json_object_get(json_object_get(json_object_get(run.dir.manifest, "probes"), "noise"),
			    "rt_throttling");
	assert_non_null(t);
	if (root) {
		assert_int_equal(json_integer_value(json_object_get(t, "sched_rt_runtime_us")), 950000);
		assert_true(json_is_true(json_object_get(t, "disabled_for_run")));
	}

	/* the samples add up to the manifest's totals */
	t = json_array_get(json_object_get(json_object_get(json_object_get(run.dir.manifest,
			   "probes"), "noise"), "threads"), 0);
	assert_non_null(t);
	assert_int_equal(json_integer_value(json_object_get(t, "cpu")), last);
	assert_true(json_integer_value(json_object_get(t, "loops")) > 100000);
	snprintf(path, sizeof(path), "%s/run/samples", dir);
	r = lw_samples_open(path);
	assert_non_null(r);
	while (lw_samples_next(r, &s) == 1) {
		assert_int_equal(s.probe, LW_SAMPLE_NOISE);
		assert_int_equal(s.cpu, last);
		assert_true(s.latency_ns > 1000);
		assert_int_equal(!!(s.flags & LW_SAMPLE_OVER_THRESHOLD), s.latency_ns > 2000);
		n++;
		sum += s.latency_ns;
		flagged += s.latency_ns > 2000;
	}
	lw_samples_close_reader(r);
	assert_int_equal(n, json_integer_value(json_object_get(t, "gaps")));
	assert_int_equal(sum, json_integer_value(json_object_get(t, "noise_ns")));
	assert_int_equal(flagged, json_integer_value(json_object_get(t, "over_threshold")));

	/* one marker per flagged gap, in the form every probe writes */
	{
		FILE *f = fopen(marks, "r");
		char line[256];
		uint64_t lines = 0, lat, exp;
		int cpu;

		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			assert_int_equal(sscanf(line, "latwatt spike probe=noise cpu=%d latency_ns=%" SCNu64 " "
						"expected_ns=%" SCNu64, &cpu, &lat, &exp), 3);
			assert_int_equal(cpu, last);
			assert_true(lat > 2000);
			lines++;
		}
		fclose(f);
		assert_int_equal(lines, flagged);
	}
	lw_run_destroy(&run);
	lw_test_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noise_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
