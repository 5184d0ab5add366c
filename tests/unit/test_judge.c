// SPDX-License-Identifier: GPL-2.0-only
/*
 * compare on the kernel-attributable figures: runs whose spikes are the
 * host's (a vCPU stopped 3 ms, 40 times a run) against runs without: the
 * raw figures move and are judged worse; with each spike's host time (as
 * analyze writes it, analysis.json host.adjust) taken off, no verdict.
 */
#include "tests/unit/lw_test.h"
#include "lib/safefile.h"

#include <limits.h>
#include <math.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "lib/rundir.h"
#include "lib/samples.h"
#include "lib/stats.h"

#define NSAMP 20000
#define NRUNS 4
#define STOP_NS 3000000ULL
#define NSTOPS 40

/* @n cyclic samples at 1 kHz on two CPUs, lognormal around 10 us; with
 * @stops, NSTOPS (40) of them delayed by a 3 ms stop of the host's, listed in
 * analysis.json's host.adjust as analyze lists them. */
static void make_rundir(const char *path, uint64_t seed, int stops)
{
	struct lw_rundir rd;
	struct lw_samples_writer *w;
	struct lw_rng r;
	char file[PATH_MAX];
	const uint64_t start = 1000000000ULL;
	json_t *adj = json_array(), *an;

	assert_int_equal(lw_rundir_create(&rd, path, 0), 0);
	json_object_set_new(rd.manifest, "board", json_string("local"));
	json_object_set_new(rd.manifest, "duration_ns", json_integer(NSAMP / 2 * 1000000LL));
	json_object_set_new(rd.manifest, "system", json_pack("{s:{s:s}, s:{s:s, s:b}, s:{s:b}}",
		"kernel", "release", "6.12.0", "preempt", "model", "PREEMPT_DYNAMIC", "rt", 0,
		"hypervisor", "virtual", 1));
	lw_manifest_set_status(rd.manifest, "complete", NULL);
	assert_int_equal(lw_rundir_save(&rd), 0);
	w = lw_samples_create(LW_AT_PATH, lw_rundir_file(&rd, "samples", file, sizeof(file)), start);
	assert_non_null(w);
	lw_rng_seed(&r, seed);
	for (size_t i = 0; i < NSAMP; i++) {
		struct lw_sample s = {
			.expected_ns = start + (i / 2 + 1) * 1000000,
			.latency_ns = (uint64_t)(10000 * exp(0.4 * lw_rng_normal(&r))),
			.cpu = (uint16_t)(i % 2),
			.probe = LW_SAMPLE_CYCLIC,
		};

		if (stops && i % (NSAMP / NSTOPS) == 7 + seed % 100) {
			s.latency_ns += STOP_NS;
			json_array_append_new(adj, json_pack("[I, I]", (json_int_t)i, (json_int_t)STOP_NS));
		}
		assert_int_equal(lw_samples_write(w, &s, 1), 0);
	}
	assert_int_equal(lw_samples_close(w), 0);
	an = json_pack("{s:s, s:i, s:{s:b, s:I, s:I, s:o}}", "schema", "latwatt-analysis",
		       "version", 2, "host", "virtual_machine", 1,
		       "host_ns", (json_int_t)(stops ? NSTOPS * STOP_NS : 0),
		       "spikes", (json_int_t)(stops ? NSTOPS : 0), "adjust", adj);
	assert_int_equal(lw_json_save(an, lw_rundir_file(&rd, "analysis.json", file, sizeof(file))), 0);
	json_decref(an);
	lw_rundir_close(&rd);
	lw_rng_free(&r);
}

static const char *verdict_of(const json_t *doc, const char *name)
{
	const json_t *ms = json_object_get(json_array_get(json_object_get(doc, "comparisons"), 0),
					   "metrics"), *m;
	size_t i;

	json_array_foreach(ms, i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), name))
			return json_string_value(json_object_get(m, "verdict"));
	json_array_foreach(ms, i, m)
		print_message("%s\n", json_string_value(json_object_get(m, "name")));
	fail_msg("no metric %s", name);
	return NULL;
}

static json_t *compare_dirs(const char *dir, int kernel)
{
	struct lw_crun runs[2 * NRUNS];
	struct lw_cgroup g[2] = { { "control", 0, NRUNS }, { "stopped", NRUNS, NRUNS } };
	struct lw_cmp_opts o;
	char path[PATH_MAX];
	json_t *doc;

	lw_cmp_opts_default(&o);
	o.resamples = 100;
	o.block_ns = 100000000;
	lw_cmp_add_threshold(&o, 1000000);	/* over:1ms */
	for (int i = 0; i < 2 * NRUNS; i++) {
		snprintf(path, sizeof(path), "%s/r%d", dir, i);
		assert_int_equal(lw_crun_load_dir_judge(&runs[i], path, kernel), 0);
		assert_int_equal(runs[i].kernel, kernel ? 1 : 0);
		assert_int_equal(runs[i].host_ns, kernel && i >= NRUNS ? NSTOPS * STOP_NS : 0);
	}
	doc = lw_compare_groups(runs, g, 2, 0, &o);
	assert_non_null(doc);
	for (int i = 0; i < 2 * NRUNS; i++)
		lw_crun_free(&runs[i]);
	return doc;
}

static void test_judge_kernel(void **st)
{
	char *dir = lw_test_tmpdir(), path[PATH_MAX];
	json_t *raw, *kern;

	for (int i = 0; i < 2 * NRUNS; i++) {
		snprintf(path, sizeof(path), "%s/r%d", dir, i);
		make_rundir(path, 100 + (uint64_t)i, i >= NRUNS);
	}
	raw = compare_dirs(dir, 0);
	kern = compare_dirs(dir, 1);
	/* raw: the host's stops are 0.2 % of the samples, all above 1 ms */
	assert_string_equal(verdict_of(raw, "cyclic.over:1ms"), LW_WORSE);
	assert_string_equal(verdict_of(raw, "cyclic.p99.9"), LW_WORSE);
	/* kernel-attributable: the same body on both sides, no verdict */
	static const char *const lat[] = {
		"cyclic.p50", "cyclic.p99", "cyclic.p99.9", "cyclic.max", "cyclic.over:1ms",
		"cyclic.mean", "cyclic.distribution",
	};
	for (size_t k = 0; k < sizeof(lat) / sizeof(lat[0]); k++) {
		const char *v = verdict_of(kern, lat[k]);

		if (!strcmp(v, LW_WORSE) || !strcmp(v, LW_BETTER))
			fail_msg("%s: %s on the kernel-attributable figures", lat[k], v);
	}
	json_decref(raw);
	json_decref(kern);

	/* a run without host.adjust (not analyzed on this latwatt): raw, said */
	{
		struct lw_crun r;
		char file[PATH_MAX + 16];

		snprintf(path, sizeof(path), "%s/r0", dir);
		snprintf(file, sizeof(file), "%s/analysis.json", path);
		assert_int_equal(unlink(file), 0);
		assert_int_equal(lw_crun_load_dir_judge(&r, path, 1), 0);
		assert_int_equal(r.kernel, -1);
		lw_crun_free(&r);
		/* a malformed one: an error naming it */
		lw_test_write(file, "{\"host\": {\"adjust\": [[5, 1], [3, 1]]}}",
			      strlen("{\"host\": {\"adjust\": [[5, 1], [3, 1]]}}"));
		assert_error(lw_crun_load_dir_judge(&r, path, 1) < 0, "host.adjust[1]");
	}
	lw_test_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_judge_kernel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
