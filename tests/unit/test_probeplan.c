// SPDX-License-Identifier: GPL-2.0-only
/* Probe selection: --probes and friends, and where each probe runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cmd/runopts.h"
#include "lib/error.h"
#include "lib/parse.h"
#include "probes/plan.h"
#include "probes/timerlat.h"

/* The plan of probe NAME in p. */
#define W(NAME) (p.want[LW_PROBE_INDEX_##NAME])

static cpu_set_t cpus(const char *list)
{
	cpu_set_t s;

	assert_int_equal(lw_parse_cpulist("test", list, NULL, &s), 0);
	return s;
}

static struct lw_probe_env env(const char *online, const char *isolated, int timerlat)
{
	struct lw_probe_env e;

	memset(&e, 0, sizeof(e));
	e.online = cpus(online);
	if (isolated)
		e.isolated = cpus(isolated);
	e.have_timerlat = timerlat;
	e.have_timerlat_fd = timerlat;	/* a kernel of 6.5 on */
	if (!timerlat)
		strcpy(e.no_timerlat, "the kernel has no timerlat tracer");
	return e;
}

/* --timerlat-threads: user where the kernel has timerlat_fd, else the
 * kernel's with a note; user asked for where it has not is refused. */
static void test_timerlat_threads(void **state)
{
	struct lw_probe_opts o;
	struct lw_probe_plan p;
	struct lw_probe_env e = env("0-3", NULL, 1);
	int q;

	lw_probe_opts_default(&o);
	assert_int_equal(lw_probe_plan(&p, &o, &e.online, 1000000, &e), 0);
	assert_int_equal(W(TIMERLAT).param[1], LW_TL_THREADS_USER);
	assert_int_equal(p.nnotes, 0);
	o.timerlat_threads = LW_TL_THREADS_KERNEL;
	assert_int_equal(lw_probe_plan(&p, &o, &e.online, 1000000, &e), 0);
	assert_int_equal(W(TIMERLAT).param[1], LW_TL_THREADS_KERNEL);

	e.have_timerlat_fd = 0;
	strcpy(e.no_timerlat_fd, "the kernel has no osnoise/per_cpu/cpuN/timerlat_fd (Linux 6.5 on)");
	o.timerlat_threads = 0;
	assert_int_equal(lw_probe_plan(&p, &o, &e.online, 1000000, &e), 0);
	assert_int_equal(W(TIMERLAT).param[1], LW_TL_THREADS_KERNEL);
	assert_int_equal(p.nnotes, 1);
	assert_string_equal(p.note[0], "timerlat: kernel threads, no return-to-user latency (the "
			    "kernel has no osnoise/per_cpu/cpuN/timerlat_fd (Linux 6.5 on))");
	o.timerlat_threads = LW_TL_THREADS_USER;
	q = lw_set_quiet(1);
	assert_int_equal(lw_probe_plan(&p, &o, &e.online, 1000000, &e), -1);
	lw_set_quiet(q);
	assert_non_null(strstr(lw_last_error(), "--timerlat-threads user: the kernel has no"));
	/* an option of the timerlat probe without it */
	o.probes = LW_PROBES_CYCLIC;
	q = lw_set_quiet(1);
	assert_int_equal(lw_probe_plan(&p, &o, &e.online, 1000000, &e), -1);
	lw_set_quiet(q);
	assert_non_null(strstr(lw_last_error(), "--timerlat-threads: the timerlat probe is not"));
}

static int quiet_plan(struct lw_probe_plan *p, const struct lw_probe_opts *o, const char *list,
		      uint64_t interval, const struct lw_probe_env *e)
{
	cpu_set_t c = cpus(list);
	int q = lw_set_quiet(1), ret = lw_probe_plan(p, o, &c, interval, e);

	lw_set_quiet(q);
	return ret;
}

static void test_parse_probes(void **state)
{
	unsigned bits;
	char buf[64];
	int q = lw_set_quiet(1);

	assert_int_equal(lw_parse_probes("--probes", "cyclic", &bits), 0);
	assert_int_equal(bits, LW_PROBES_CYCLIC);
	assert_int_equal(lw_parse_probes("--probes", "noise,cyclic,timerlat", &bits), 0);
	assert_int_equal(bits, LW_PROBES_CYCLIC | LW_PROBES_TIMERLAT | LW_PROBES_NOISE);
	assert_string_equal(lw_format_probes(bits, buf, sizeof(buf)), "cyclic,timerlat,noise");
	assert_int_equal(lw_parse_probes("--probes", "cyclic,osnoise", &bits), -1);
	assert_non_null(strstr(lw_last_error(), "unknown probe 'osnoise'"));
	assert_int_equal(lw_parse_probes("--probes", "", &bits), -1);
	assert_int_equal(lw_parse_probes("--probes", "cyclic,", &bits), -1);
	assert_int_equal(lw_parse_probes("--probes", ",cyclic", &bits), -1);
	assert_int_equal(lw_parse_probes("--probes", "cyc", &bits), -1);
	lw_set_quiet(q);
}

static void test_parse_values(void **state)
{
	uint64_t ns;
	int q = lw_set_quiet(1);

	assert_int_equal(lw_parse_timerlat_period("--timerlat-period", "500", &ns), 0);
	assert_int_equal(ns, 500000);
	assert_int_equal(lw_parse_timerlat_period("--timerlat-period", "1ms", &ns), 0);
	assert_int_equal(ns, 1000000);
	assert_int_equal(lw_parse_timerlat_period("--timerlat-period", "99", &ns), -1);
	assert_int_equal(lw_parse_timerlat_period("--timerlat-period", "2s", &ns), -1);
	assert_int_equal(lw_parse_timerlat_period("--timerlat-period", "150500ns", &ns), -1);
	assert_int_equal(lw_parse_noise_threshold("--noise-threshold", "1", &ns), 0);
	assert_int_equal(ns, 1000);
	assert_int_equal(lw_parse_noise_threshold("--noise-threshold", "0", &ns), -1);
	assert_int_equal(lw_parse_noise_threshold("--noise-threshold", "abc", &ns), -1);
	lw_set_quiet(q);
}

static void test_default_with_timerlat(void **state)
{
	struct lw_probe_opts o;
	struct lw_probe_plan p;
	struct lw_probe_env e = env("0-3", NULL, 1);
	cpu_set_t all = cpus("0-3");

	lw_probe_opts_default(&o);
	assert_int_equal(quiet_plan(&p, &o, "0-3", 1000000, &e), 0);
	assert_true(W(CYCLIC).on);
	assert_true(W(TIMERLAT).on);
	assert_true(W(TIMERLAT).optional);
	assert_false(W(NOISE).on);
	assert_true(CPU_EQUAL(&W(CYCLIC).cpus, &all));
	assert_true(CPU_EQUAL(&W(TIMERLAT).cpus, &all));
	assert_int_equal(W(TIMERLAT).param[0], 1000000);
	assert_int_equal(p.nnotes, 0);
}

static void test_default_without_timerlat(void **state)
{
	struct lw_probe_opts o;
	struct lw_probe_plan p;
	struct lw_probe_env e = env("0-1", NULL, 0);

	lw_probe_opts_default(&o);
	assert_int_equal(quiet_plan(&p, &o, "0-1", 1000000, &e), 0);
	assert_true(W(CYCLIC).on);
	assert_false(W(TIMERLAT).on);
	assert_int_equal(p.nnotes, 1);
	assert_string_equal(p.note[0],
			    "timerlat: the kernel has no timerlat tracer; the cyclic probe alone");
	assert_string_equal(W(TIMERLAT).skipped, "the kernel has no timerlat tracer");
}

static void test_timerlat_asked_but_absent(void **state)
{
	struct lw_probe_opts o;
	struct lw_probe_plan p;
	struct lw_probe_env e = env("0-1", NULL, 0);

	lw_probe_opts_default(&o);
	o.probes = LW_PROBES_TIMERLAT;
	assert_int_equal(quiet_plan(&p, &o, "0-1", 1000000, &e), 0);
	assert_true(W(CYCLIC).on);		/* the run still measures something */
	assert_false(W(TIMERLAT).on);
	assert_non_null(strstr(p.note[0], "the cyclic probe alone"));

	o.probes = LW_PROBES_TIMERLAT | LW_PROBES_NOISE;
	assert_int_equal(quiet_plan(&p, &o, "0-1", 1000000, &e), 0);
	assert_false(W(CYCLIC).on);
	assert_true(W(NOISE).on);
	assert_string_equal(p.note[0], "timerlat: the kernel has no timerlat tracer; running noise");
}

static void test_timerlat_period(void **state)
{
	struct lw_probe_opts o;
	struct lw_probe_plan p;
	struct lw_probe_env e = env("0-1", NULL, 1);

	lw_probe_opts_default(&o);
	assert_int_equal(quiet_plan(&p, &o, "0-1", 50000, &e), 0);
	assert_int_equal(W(TIMERLAT).param[0], 100000);
	assert_non_null(strstr(p.note[0], "100us"));
	assert_int_equal(quiet_plan(&p, &o, "0-1", 250500, &e), 0);
	assert_int_equal(W(TIMERLAT).param[0], 250000);	/* whole microseconds */
	o.timerlat_period_ns = 400000;
	assert_int_equal(quiet_plan(&p, &o, "0-1", 1000000, &e), 0);
	assert_int_equal(W(TIMERLAT).param[0], 400000);
	/* a period for a probe that was not asked for */
	o.probes = LW_PROBES_CYCLIC;
	assert_int_equal(quiet_plan(&p, &o, "0-1", 1000000, &e), -1);
	assert_non_null(strstr(lw_last_error(), "--timerlat-period"));
}

static void test_noise_default_cpu(void **state)
{
	struct lw_probe_opts o;
	struct lw_probe_plan p;
	struct lw_probe_env e = env("0-3", NULL, 1);
	cpu_set_t three = cpus("3"), rest = cpus("0-2");

	lw_probe_opts_default(&o);
	o.probes = LW_PROBES_CYCLIC | LW_PROBES_TIMERLAT | LW_PROBES_NOISE;
	assert_int_equal(quiet_plan(&p, &o, "0-3", 1000000, &e), 0);
	assert_true(W(NOISE).on && W(CYCLIC).on && W(TIMERLAT).on);
	assert_false(W(TIMERLAT).optional);
	assert_true(CPU_EQUAL(&W(NOISE).cpus, &three));
	assert_true(CPU_EQUAL(&W(CYCLIC).cpus, &rest));
	assert_true(CPU_EQUAL(&W(TIMERLAT).cpus, &rest));
	assert_int_equal(W(NOISE).param[0], LW_NOISE_THRESHOLD_DEFAULT_NS);
	assert_non_null(strstr(p.note[0], "noise: cpu 3 runs the busy loop alone"));
}

static void test_noise_on_isolated_cpus(void **state)
{
	struct lw_probe_opts o;
	struct lw_probe_plan p;
	struct lw_probe_env e = env("0-7", "4-7", 0);
	cpu_set_t iso = cpus("4-7"), hk = cpus("0-3");

	lw_probe_opts_default(&o);
	o.probes = LW_PROBES_CYCLIC | LW_PROBES_NOISE;
	assert_int_equal(quiet_plan(&p, &o, "0-7", 1000000, &e), 0);
	assert_true(CPU_EQUAL(&W(NOISE).cpus, &iso));
	assert_true(CPU_EQUAL(&W(CYCLIC).cpus, &hk));
}

static void test_noise_keeps_a_housekeeping_cpu(void **state)
{
	struct lw_probe_opts o;
	struct lw_probe_plan p;
	struct lw_probe_env two = env("0-1", NULL, 0), one = env("0", NULL, 0);

	lw_probe_opts_default(&o);
	o.probes = LW_PROBES_NOISE;
	o.noise_cpus = cpus("0-1");
	o.noise_cpus_set = 1;
	assert_int_equal(quiet_plan(&p, &o, "0-1", 1000000, &two), -1);
	assert_non_null(strstr(lw_last_error(), "every online CPU"));
	o.noise_cpus_set = 0;
	assert_int_equal(quiet_plan(&p, &o, "0", 1000000, &one), -1);
	assert_non_null(strstr(lw_last_error(), "housekeeping"));
	/* one noise CPU of two is fine */
	o.noise_cpus = cpus("1");
	o.noise_cpus_set = 1;
	assert_int_equal(quiet_plan(&p, &o, "0-1", 1000000, &two), 0);
	assert_true(W(NOISE).on);
	assert_false(W(CYCLIC).on);
}

static void test_noise_leaves_no_cpu_for_cyclic(void **state)
{
	struct lw_probe_opts o;
	struct lw_probe_plan p;
	struct lw_probe_env e = env("0-1", NULL, 0);

	lw_probe_opts_default(&o);
	o.probes = LW_PROBES_CYCLIC | LW_PROBES_NOISE;
	assert_int_equal(quiet_plan(&p, &o, "1", 1000000, &e), -1);
	assert_non_null(strstr(lw_last_error(), "no CPU left for the cyclic probe"));
}

static void test_noise_cpus_without_noise(void **state)
{
	struct lw_probe_opts o;
	struct lw_probe_plan p;
	struct lw_probe_env e = env("0-1", NULL, 0);

	lw_probe_opts_default(&o);
	o.noise_cpus = cpus("1");
	o.noise_cpus_set = 1;
	assert_int_equal(quiet_plan(&p, &o, "0-1", 1000000, &e), -1);
	assert_non_null(strstr(lw_last_error(), "--noise-cpus"));
}

static void test_runopts(void **state)
{
	struct lw_run_opts o;
	cpu_set_t online = cpus("0-3"), one = cpus("2");
	char *ok[] = { "run", "-o", "R", "--probes", "cyclic,noise", "--noise-cpus", "2",
		       "--noise-threshold", "2us", "--timerlat-period", "250", NULL };
	char *bad1[] = { "run", "-o", "R", "--probes", "fast", NULL };
	char *bad2[] = { "run", "-o", "R", "--noise-cpus", "9", NULL };
	char *bad3[] = { "run", "-o", "R", "--timerlat-period", "10", NULL };
	char *bad4[] = { "run", "-o", "R", "--noise-threshold", "-5", NULL };
	int q;

	lw_run_opts_default(&o, &online);
	assert_int_equal(o.probes.probes, 0);
	assert_int_equal(o.probes.noise_threshold_ns, 5000);
	assert_int_equal(lw_run_opts_parse(&o, 11, ok, &online), 0);
	assert_int_equal(o.probes.probes, LW_PROBES_CYCLIC | LW_PROBES_NOISE);
	assert_true(o.probes.noise_cpus_set);
	assert_true(CPU_EQUAL(&o.probes.noise_cpus, &one));
	assert_int_equal(o.probes.noise_threshold_ns, 2000);
	assert_int_equal(o.probes.timerlat_period_ns, 250000);

	q = lw_set_quiet(1);
	lw_run_opts_default(&o, &online);
	assert_int_equal(lw_run_opts_parse(&o, 5, bad1, &online), -1);
	assert_non_null(strstr(lw_last_error(), "--probes"));
	lw_run_opts_default(&o, &online);
	assert_int_equal(lw_run_opts_parse(&o, 5, bad2, &online), -1);
	assert_non_null(strstr(lw_last_error(), "--noise-cpus"));
	lw_run_opts_default(&o, &online);
	assert_int_equal(lw_run_opts_parse(&o, 5, bad3, &online), -1);
	assert_non_null(strstr(lw_last_error(), "--timerlat-period"));
	lw_run_opts_default(&o, &online);
	assert_int_equal(lw_run_opts_parse(&o, 5, bad4, &online), -1);
	assert_non_null(strstr(lw_last_error(), "--noise-threshold"));
	lw_set_quiet(q);
}

static void write_file(const char *dir, const char *rel, const char *content)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static void test_env_from_a_copy(void **state)
{
	char dir[] = "/tmp/lw-env.XXXXXX", cmd[64];
	struct lw_probe_env e;
	cpu_set_t online = cpus("0-5"), iso = cpus("2-5");

	assert_non_null(mkdtemp(dir));
	write_file(dir, "sys/devices/system/cpu/online", "0-5\n");
	write_file(dir, "sys/devices/system/cpu/isolated", "4-5\n");
	write_file(dir, "sys/devices/system/cpu/nohz_full", "2-3,9\n");	/* 9 is offline */
	write_file(dir, "sys/kernel/tracing/available_tracers",
		   "timerlat osnoise hwlat blk function_graph function nop\n");
	assert_int_equal(lw_probe_env_read(&e, dir), 0);
	assert_true(CPU_EQUAL(&e.online, &online));
	assert_true(CPU_EQUAL(&e.isolated, &iso));
	assert_true(e.have_timerlat);
	assert_false(e.have_timerlat_fd);
	assert_non_null(strstr(e.no_timerlat_fd, "timerlat_fd"));
	write_file(dir, "sys/kernel/tracing/osnoise/per_cpu/cpu0/timerlat_fd", "");
	assert_int_equal(lw_probe_env_read(&e, dir), 0);
	assert_true(e.have_timerlat_fd);

	/* hwnoise: the osnoise tracer with OSNOISE_IRQ_DISABLE (6.4 on) */
	assert_false(e.have_hwnoise);
	assert_string_equal(e.no_hwnoise, "the kernel's osnoise tracer has no OSNOISE_IRQ_DISABLE "
			    "option (Linux 6.4 on)");
	write_file(dir, "sys/kernel/tracing/osnoise/options", "DEFAULTS OSNOISE_WORKLOAD "
		   "NO_PANIC_ON_STOP NO_OSNOISE_PREEMPT_DISABLE NO_OSNOISE_IRQ_DISABLE \n");
	assert_int_equal(lw_probe_env_read(&e, dir), 0);
	assert_true(e.have_hwnoise);

	write_file(dir, "sys/devices/system/cpu/isolated", "\n");
	write_file(dir, "sys/devices/system/cpu/nohz_full", "(null)\n");
	write_file(dir, "sys/kernel/tracing/available_tracers", "blk function nop\n");
	assert_int_equal(lw_probe_env_read(&e, dir), 0);
	assert_int_equal(CPU_COUNT(&e.isolated), 0);
	assert_false(e.have_timerlat);
	assert_string_equal(e.no_timerlat, "the kernel has no timerlat tracer");
	assert_false(e.have_hwnoise);
	assert_string_equal(e.no_hwnoise, "the kernel has no osnoise tracer");

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(lw_probe_env_read(&e, dir), 0);
	assert_false(e.have_timerlat);
	assert_non_null(strstr(e.no_timerlat, "cannot read"));
}

/* hwnoise: refused (exit 2's error) with the reason where the kernel lacks
 * it; a CPU of its own (the isolated ones, else the last), the shared probes
 * on the others; refused beside timerlat (asked for) and noise; the default
 * timerlat gives way (never both: one osnoise tracer at a time). */
static void test_hwnoise_plan(void **state)
{
	struct lw_probe_opts o;
	struct lw_probe_plan p;
	struct lw_probe_env e = env("0-3", NULL, 1);
	cpu_set_t all = cpus("0-3");
	int q;

	(void)state;
	lw_probe_opts_default(&o);
	o.probes = LW_PROBES_HWNOISE;
	strcpy(e.no_hwnoise, "the kernel has no osnoise tracer");
	q = lw_set_quiet(1);
	assert_int_equal(lw_probe_plan(&p, &o, &all, 1000000, &e), -1);
	lw_set_quiet(q);
	assert_string_equal(lw_last_error(), "--probes hwnoise: the kernel has no osnoise tracer");

	e.have_hwnoise = 1;
	assert_int_equal(lw_probe_plan(&p, &o, &all, 1000000, &e), 0);
	assert_true(W(HWNOISE).on);
	assert_int_equal(W(HWNOISE).param[0], 5000);	/* --hwnoise-threshold: rtla's 5 us */
	o.hwnoise_threshold_ns = 2000;
	assert_int_equal(lw_probe_plan(&p, &o, &all, 1000000, &e), 0);
	assert_int_equal(W(HWNOISE).param[0], 2000);
	/* its option without it */
	o.probes = LW_PROBES_CYCLIC;
	q = lw_set_quiet(1);
	assert_int_equal(lw_probe_plan(&p, &o, &all, 1000000, &e), -1);
	lw_set_quiet(q);
	assert_string_equal(lw_last_error(), "--hwnoise-threshold: the hwnoise probe is not selected "
			    "(--probes ...,hwnoise)");
	o.hwnoise_threshold_ns = 0;
	o.probes = LW_PROBES_HWNOISE;
	assert_int_equal(lw_probe_plan(&p, &o, &all, 1000000, &e), 0);
	assert_false(W(CYCLIC).on);
	assert_false(W(TIMERLAT).on);
	assert_true(CPU_EQUAL(&W(HWNOISE).cpus, &(cpu_set_t){ 0 }) == 0);
	{
		cpu_set_t three = cpus("3"), rest = cpus("0-2"), iso = cpus("2-3");

		assert_true(CPU_EQUAL(&W(HWNOISE).cpus, &three));
		o.probes = LW_PROBES_HWNOISE | LW_PROBES_CYCLIC;
		assert_int_equal(lw_probe_plan(&p, &o, &all, 1000000, &e), 0);
		assert_true(W(CYCLIC).on && W(HWNOISE).on);
		assert_true(CPU_EQUAL(&W(CYCLIC).cpus, &rest));
		e.isolated = iso;
		assert_int_equal(lw_probe_plan(&p, &o, &all, 1000000, &e), 0);
		assert_true(CPU_EQUAL(&W(HWNOISE).cpus, &iso));
		memset(&e.isolated, 0, sizeof(e.isolated));
	}
	o.probes = LW_PROBES_HWNOISE | LW_PROBES_TIMERLAT;
	q = lw_set_quiet(1);
	assert_int_equal(lw_probe_plan(&p, &o, &all, 1000000, &e), -1);
	assert_non_null(strstr(lw_last_error(), "hwnoise and timerlat"));
	o.probes = LW_PROBES_HWNOISE | LW_PROBES_NOISE;
	assert_int_equal(lw_probe_plan(&p, &o, &all, 1000000, &e), -1);
	assert_non_null(strstr(lw_last_error(), "hwnoise and noise"));
	/* one online CPU: none left for housekeeping */
	o.probes = LW_PROBES_HWNOISE;
	e = env("0", NULL, 0);
	e.have_hwnoise = 1;
	all = cpus("0");
	assert_int_equal(lw_probe_plan(&p, &o, &all, 1000000, &e), -1);
	lw_set_quiet(q);
	assert_non_null(strstr(lw_last_error(), "leave at least one for housekeeping"));
}

/* Every descriptor is whole, in its place in the list, and named by its
 * own --probes word; the series count is a sample id per CPU. */
static void test_descriptors(void **state)
{
	struct lw_probe_plan p;
	unsigned bits, all = 0;
	char buf[128];

	(void)state;
	for (size_t i = 0; i < LW_NPROBES; i++) {
		const struct lw_probe *d = lw_probes[i];
		size_t h = strlen(d->help);

		assert_non_null(d);
		assert_int_equal(d->bit, 1u << i);
		assert_int_equal(lw_parse_probes("--probes", d->name, &bits), 0);
		assert_int_equal(bits, d->bit);
		assert_non_null(d->plan);
		assert_non_null(d->create);
		assert_true(d->samples[0] > 0);
		for (size_t k = 0; d->samples[k]; k++)
			assert_true(d->samples[k] < LW_SAMPLE_MAX);
		assert_true(h == 0 || d->help[h - 1] == '\n');
		all |= d->bit;
	}
	assert_null(lw_probes[LW_NPROBES]);
	assert_string_equal(lw_format_probes(all, buf, sizeof(buf)),
			    "cyclic,timerlat,noise,hwnoise");
	assert_string_equal(lw_probe_names(buf, sizeof(buf)), "cyclic, timerlat, noise, hwnoise");
	assert_true(lw_probe_gaps(lw_probe_noise.samples[0]));
	assert_true(lw_probe_gaps(lw_probe_hwnoise.samples[0]));
	assert_true(lw_probe_irqs_off(lw_probe_hwnoise.samples[0]));
	assert_false(lw_probe_irqs_off(lw_probe_noise.samples[0]));
	assert_false(lw_probe_hwnoise.by_default);
	assert_false(lw_probe_gaps(lw_probe_cyclic.samples[0]));

	memset(&p, 0, sizeof(p));
	W(CYCLIC).on = W(TIMERLAT).on = W(NOISE).on = 1;
	W(CYCLIC).cpus = W(TIMERLAT).cpus = cpus("0-2");
	W(NOISE).cpus = cpus("3");
	assert_int_equal(lw_probe_plan_series(&p), 3 + 3 * 3 + 1);	/* irq, thread, user */
	W(TIMERLAT).on = 0;
	assert_int_equal(lw_probe_plan_series(&p), 3 + 1);
}

/* --aligned is the cyclic probe's: refused without it. */
static void test_aligned_needs_cyclic(void **state)
{
	struct lw_probe_opts o;
	struct lw_probe_plan p;
	struct lw_probe_env e = env("0-3", NULL, 1);
	int q;

	lw_probe_opts_default(&o);
	o.aligned = 1;
	assert_int_equal(lw_probe_plan(&p, &o, &e.online, 1000000, &e), 0);
	o.probes = LW_PROBES_TIMERLAT;
	q = lw_set_quiet(1);
	assert_int_equal(lw_probe_plan(&p, &o, &e.online, 1000000, &e), -1);
	lw_set_quiet(q);
	assert_string_equal(lw_last_error(), "--aligned: the cyclic probe is not selected "
			    "(--probes ...,cyclic)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aligned_needs_cyclic),
		cmocka_unit_test(test_timerlat_threads),
		cmocka_unit_test(test_descriptors),
		cmocka_unit_test(test_parse_probes),
		cmocka_unit_test(test_parse_values),
		cmocka_unit_test(test_default_with_timerlat),
		cmocka_unit_test(test_default_without_timerlat),
		cmocka_unit_test(test_timerlat_asked_but_absent),
		cmocka_unit_test(test_timerlat_period),
		cmocka_unit_test(test_noise_default_cpu),
		cmocka_unit_test(test_noise_on_isolated_cpus),
		cmocka_unit_test(test_noise_keeps_a_housekeeping_cpu),
		cmocka_unit_test(test_noise_leaves_no_cpu_for_cyclic),
		cmocka_unit_test(test_noise_cpus_without_noise),
		cmocka_unit_test(test_runopts),
		cmocka_unit_test(test_env_from_a_copy),
		cmocka_unit_test(test_hwnoise_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
