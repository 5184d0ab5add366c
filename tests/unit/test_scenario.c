// SPDX-License-Identifier: GPL-2.0-only
/*
 * Scenario files: every shipped scenario parses into run options; each bad
 * file under tests/data/scenarios/bad/ fails with the message on its first
 * line ("# expect: FILE:LINE:COLUMN: ..."); the key-to-option mapping; the
 * command line overriding the file; ${...} CPU variables; starvation checks.
 */
#include <dirent.h>
#include <getopt.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "cmd/runscenario.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/run.h"
#include "workloads/scenario.h"

#define SHIPPED	"workloads/scenarios"
#define BAD	"tests/data/scenarios/bad"
#define SYSFS	"tests/data/scenarios/sysfs"		/* 0-3 online, nohz_full 2-3 */
#define PLAIN	"tests/data/scenarios/sysfs-plain"	/* 0-3 online, no nohz_full */

static cpu_set_t online;

static int setup(void **st)
{
	CPU_ZERO(&online);
	for (int c = 0; c < 4; c++)
		CPU_SET(c, &online);
	return 0;
}

/* Load @path (sysfs @sysfs) and apply it with "run -o R" + @extra. */
static int apply(struct lw_run_scenario *rs, struct lw_run_opts *o, const char *path,
		 const char *sysfs, int throttled, char **extra)
{
	struct lw_scenario_keys k;
	char run[] = "run", dash_o[] = "-o", out[] = "R";
	char *argv[32] = { run, dash_o, out };
	int argc = 3;

	for (int i = 0; extra && extra[i]; i++)
		argv[argc++] = extra[i];
	memset(rs, 0, sizeof(*rs));
	rs->rt_throttled = throttled;
	rs->loaded = 1;
	lw_run_scenario_keys(&k, sysfs);
	if (lw_scenario_load(&rs->sc, path, &k) < 0)
		return -1;
	return lw_run_scenario_apply_loaded(rs, o, argc, argv, &online);
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a > b && !strcmp(s + a - b, suffix);
}

static void test_every_shipped_scenario_parses(void **st)
{
	static const char *const want[] = { "idle", "audio", "video", "av", "av-stress",
					    "nohz-isolated", NULL };
	DIR *d = opendir(SHIPPED);
	struct dirent *e;
	int n = 0, seen[8] = { 0 };

	assert_non_null(d);
	while ((e = readdir(d))) {
		struct lw_run_scenario rs;
		struct lw_run_opts o;
		char path[512];
		int ret;

		if (!has_suffix(e->d_name, ".yaml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", SHIPPED, e->d_name);
		ret = apply(&rs, &o, path, SYSFS, 1, NULL);
		if (ret)
			fail_msg("%s: %s", path, lw_last_error());
		assert_non_null(rs.sc.description);
		assert_true(rs.nfile > 0);
		assert_true(o.duration_ns >= LW_NSEC_PER_SEC);
		for (int i = 0; want[i]; i++)
			if (!strcmp(rs.sc.name, want[i]))
				seen[i] = 1;
		/* every file option is a long option of `latwatt run` */
		for (int i = 1; i <= rs.nfile; i++)
			assert_true(!strncmp(rs.argv[i], "--", 2));
		lw_run_scenario_free(&rs);
		n++;
	}
	closedir(d);
	for (int i = 0; want[i]; i++)
		if (!seen[i])
			fail_msg("scenario %s is not shipped", want[i]);
	assert_true(n >= 6);
}

static void test_shipped_contents(void **st)
{
	struct lw_run_scenario rs;
	struct lw_run_opts o;
	char cpus[64];

	assert_int_equal(apply(&rs, &o, SHIPPED "/idle.yaml", SYSFS, 1, NULL), 0);
	assert_int_equal(o.nworkloads, 0);
	assert_int_equal(o.nloads, 0);
	assert_int_equal(CPU_COUNT(&o.cpus), 4);
	lw_run_scenario_free(&rs);

	assert_int_equal(apply(&rs, &o, SHIPPED "/av-stress.yaml", SYSFS, 1, NULL), 0);
	assert_int_equal(o.nworkloads, 3);
	assert_true(!strncmp(o.workload[0], "audio:", 6));
	assert_true(!strncmp(o.workload[1], "video:", 6));
	assert_true(!strncmp(o.workload[2], "stress:", 7));
	assert_int_equal(o.nloads, 2);
	assert_non_null(strstr(o.load[0], "hackbench"));
	assert_non_null(strstr(o.load[1], "stress-ng"));
	lw_run_scenario_free(&rs);

	assert_int_equal(apply(&rs, &o, SHIPPED "/av.yaml", SYSFS, 1, NULL), 0);
	assert_int_equal(o.nworkloads, 2);
	assert_int_equal(o.nloads, 0);
	lw_run_scenario_free(&rs);

	/* the noise probe on the nohz_full CPUs, the load on the others */
	assert_int_equal(apply(&rs, &o, SHIPPED "/nohz-isolated.yaml", SYSFS, 1, NULL), 0);
	assert_true(o.probes.noise_cpus_set);
	assert_string_equal(lw_format_cpulist(&o.probes.noise_cpus, cpus, sizeof(cpus)), "2-3");
	assert_int_equal(o.probes.noise_threshold_ns, 5000);
	assert_int_equal(o.probes.probes, LW_PROBES_CYCLIC | LW_PROBES_NOISE);
	assert_int_equal(o.nloads, 1);
	assert_non_null(strstr(o.load[0], "cpus=0-1 "));
	lw_run_scenario_free(&rs);

	/* and a clear error on a kernel without nohz_full */
	assert_error(apply(&rs, &o, SHIPPED "/nohz-isolated.yaml", PLAIN, 1, NULL) < 0,
		     "${nohz_full} is empty on this system (boot the kernel with nohz_full=");
	lw_run_scenario_free(&rs);
}

/* First line "# expect: MESSAGE". */
static void expected(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_non_null(fgets(buf, (int)len, f));
	fclose(f);
	if (strncmp(buf, "# expect: ", 10))
		fail_msg("%s: first line is not '# expect: MESSAGE'", path);
	memmove(buf, buf + 10, strlen(buf + 10) + 1);
	buf[strcspn(buf, "\n")] = 0;
}

static void test_bad_files(void **st)
{
	DIR *d = opendir(BAD);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		struct lw_run_scenario rs;
		struct lw_run_opts o;
		char path[512], want[512];
		int q, ret;

		if (!has_suffix(e->d_name, ".yaml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", BAD, e->d_name);
		expected(path, want, sizeof(want));
		q = lw_set_quiet(1);
		/* RT throttling off, so that busy fifo loads are refused */
		ret = apply(&rs, &o, path, SYSFS, 0, NULL);
		lw_set_quiet(q);
		if (ret == 0)
			fail_msg("%s was accepted; expected: %s", path, want);
		if (!strstr(lw_last_error(), want))
			fail_msg("%s:\n  error:    %s\n  expected: %s", path, lw_last_error(), want);
		/* the message names the file first */
		if (strncmp(lw_last_error(), BAD, strlen(BAD)))
			fail_msg("%s: message does not start with the file: %s", path,
				 lw_last_error());
		lw_run_scenario_free(&rs);
		n++;
	}
	closedir(d);
	assert_true(n >= 30);
}

/* The mapping itself, on an option table of the test's own. */
static const struct option test_opts[] = {
	{ "duration",     required_argument, NULL, 'd' },
	{ "flag",         no_argument,       NULL, 'f' },
	{ "other-flag",   no_argument,       NULL, 'F' },
	{ "cpus",         required_argument, NULL, 'c' },
	{ "trace",        required_argument, NULL, 't' },
	{ "trace-buffer", required_argument, NULL, 'b' },
	{ "noise-cpus",   required_argument, NULL, 'n' },
	{ "noise-threshold", required_argument, NULL, 'N' },
	{ "workload",     required_argument, NULL, 'w' },
	{ "load",         required_argument, NULL, 'l' },
	{ "scenario",     required_argument, NULL, 's' },
	{ NULL, 0, NULL, 0 },
};
static const char *const test_repeat[] = { "workload", "load", NULL };
static const char *const test_refused[] = { "scenario", NULL };

static int parse_text(struct lw_scenario *sc, const char *text)
{
	struct lw_scenario_keys k = { test_opts, test_repeat, test_refused, SYSFS };

	return lw_scenario_parse(sc, "t.yaml", text, strlen(text), &k);
}

static void assert_args(const struct lw_scenario *sc, const char *const *want)
{
	int i;

	for (i = 0; want[i]; i++) {
		char got[512];
		const struct lw_scenario_arg *a = &sc->arg[i];

		assert_true(i < sc->nargs);
		snprintf(got, sizeof(got), "--%s%s%s", a->opt, a->value ? "=" : "",
			 a->value ? a->value : "");
		assert_string_equal(got, want[i]);
	}
	assert_int_equal(sc->nargs, i);
}

static void test_mapping(void **st)
{
	struct lw_scenario sc;
	static const char text[] =
		"# a comment\n"
		"description: all the forms\n"
		"duration: 5s\n"
		"flag: yes\n"
		"other-flag: false\n"
		"cpus: [0, 2-3]\n"
		"trace: sched,irq\n"
		"noise:\n"
		"  cpus: ${nohz_full}\n"
		"  threshold: 5us\n"
		"trace-buffer: 4M\n"
		"workload:\n"
		"  - audio:\n"
		"      streams: 2\n"
		"      cpu: [1, 3]\n"
		"  - video\n"
		"  - stress: {kind: io}\n"
		"  - \"audio:load=0.5\"\n"
		"  - idle:\n"
		"load:\n"
		"  - cpus=${housekeeping} stress-ng --cpu 1\n"
		"  - hackbench -g 1\n";
	static const char *const want[] = {
		"--duration=5s", "--flag", "--cpus=0,2-3", "--trace=sched,irq",
		"--noise-cpus=2-3", "--noise-threshold=5us", "--trace-buffer=4M",
		"--workload=audio:streams=2,cpu=1,3", "--workload=video",
		"--workload=stress:kind=io", "--workload=audio:load=0.5", "--workload=idle",
		"--load=cpus=0-1 stress-ng --cpu 1", "--load=hackbench -g 1", NULL,
	};

	assert_int_equal(parse_text(&sc, text), 0);
	assert_string_equal(sc.name, "t");
	assert_string_equal(sc.description, "all the forms");
	assert_args(&sc, want);
	/* places are 1-based lines and columns of the values */
	assert_int_equal(sc.arg[0].line, 3);
	assert_int_equal(sc.arg[0].column, 11);
	assert_string_equal(sc.arg[4].key, "noise: cpus");
	assert_int_equal(sc.arg[4].line, 9);
	/* mapping items know where each of their keys ends */
	assert_int_equal(sc.arg[7].nsub, 3);
	assert_int_equal(sc.arg[7].sub[0].len, 5);		/* "audio" */
	assert_int_equal(sc.arg[7].sub[1].len, 15);		/* "audio:streams=2" */
	assert_int_equal(sc.arg[7].sub[2].line, 15);
	assert_int_equal(sc.arg[7].sub[2].column, 7);
	assert_int_equal((int)sc.text_len, (int)strlen(text));
	lw_scenario_free(&sc);

	/* anchors and aliases are plain YAML */
	assert_int_equal(parse_text(&sc, "duration: &d 3s\ntrace-buffer: *d\n"), 0);
	assert_string_equal(sc.arg[1].value, "3s");
	lw_scenario_free(&sc);

	/* quoted "true" is a string, not a flag */
	assert_error(parse_text(&sc, "flag: \"true\"\n") < 0, "t.yaml:1:7: flag: a flag");
	lw_scenario_free(&sc);
	assert_error(parse_text(&sc, "trace: [a, [b]]\n") < 0,
		     "t.yaml:1:12: trace: expected a value, not a list");
	lw_scenario_free(&sc);
	assert_error(parse_text(&sc, "noise: {colour: 1}\n") < 0,
		     "t.yaml:1:9: unknown key in a group (no such option");
	lw_scenario_free(&sc);
	assert_error(parse_text(&sc, "description: [a]\n") < 0,
		     "t.yaml:1:14: description: expected one line of text");
	lw_scenario_free(&sc);
	{
		static const char nul[] = "duration: 1\0\n";
		struct lw_scenario_keys k = { test_opts, test_repeat, test_refused, SYSFS };

		assert_error(lw_scenario_parse(&sc, "n.yaml", nul, sizeof(nul) - 1, &k) < 0,
			     "n.yaml: not a text file");
		lw_scenario_free(&sc);
	}
}

static void test_variables(void **st)
{
	struct lw_scenario sc;
	struct lw_scenario_keys k = { test_opts, test_repeat, test_refused, PLAIN };
	static const char t1[] = "cpus: ${online}\nnoise-cpus: ${housekeeping}\n";
	static const char t2[] = "cpus: ${isolated}\n";

	assert_int_equal(parse_text(&sc, "cpus: a${online}b${isolated}\n"), 0);
	assert_string_equal(sc.arg[0].value, "a0-3b2-3");
	lw_scenario_free(&sc);
	/* "(null)" and empty files mean no such CPU */
	assert_int_equal(lw_scenario_parse(&sc, "p.yaml", t1, strlen(t1), &k), 0);
	assert_string_equal(sc.arg[0].value, "0-3");
	assert_string_equal(sc.arg[1].value, "0-3");
	lw_scenario_free(&sc);
	assert_error(lw_scenario_parse(&sc, "p.yaml", t2, strlen(t2), &k) < 0,
		     "p.yaml:1:7: ${isolated} is empty on this system (boot the kernel with isolcpus=");
	lw_scenario_free(&sc);
}

static void test_command_line_overrides(void **st)
{
	struct lw_run_scenario rs;
	struct lw_run_opts o;
	char d[] = "-d", two[] = "2s", i[] = "--interval=500", l[] = "--load",
	     load[] = "stress-ng --vm 1", p[] = "-p", p92[] = "92";
	char *extra[] = { d, two, i, l, load, p, p92, NULL };

	assert_int_equal(apply(&rs, &o, SHIPPED "/av-stress.yaml", SYSFS, 1, extra), 0);
	assert_int_equal(o.duration_ns, 2 * LW_NSEC_PER_SEC);	/* file: 60s */
	assert_int_equal(o.interval_ns, 500 * LW_NSEC_PER_USEC);
	assert_int_equal(o.priority, 92);
	assert_int_equal(o.nworkloads, 3);
	assert_int_equal(o.nloads, 3);				/* repeated: added */
	assert_string_equal(o.load[2], "stress-ng --vm 1");
	assert_string_equal(o.output, "R");
	lw_run_scenario_free(&rs);

	/* a probe priority at or below the file's audio irq thread (90) is refused */
	{
		char p89[] = "89";
		char *ex2[] = { p, p89, NULL };

		assert_error(apply(&rs, &o, SHIPPED "/audio.yaml", SYSFS, 1, ex2) < 0,
			     "audio.yaml:16:5: workload audio (irq_prio=90): SCHED_FIFO priority "
			     "90 on cpu ");
		lw_run_scenario_free(&rs);
	}
	/* ... unless the probes run SCHED_OTHER, and the workloads with them */
	{
		char p89[] = "89", nort[] = "--no-rt";
		char *ex3[] = { p, p89, nort, NULL };

		assert_int_equal(apply(&rs, &o, SHIPPED "/audio.yaml", SYSFS, 1, ex3), 0);
		lw_run_scenario_free(&rs);
	}
}

static int load_opts(struct lw_run_opts *o, const char *spec)
{
	lw_run_opts_default(o, &online);
	o->output = "R";
	o->load[0] = spec;
	o->nloads = 1;
	return 0;
}

static void test_starvation(void **st)
{
	struct lw_run_opts o;

	/* a busy fifo load below the probes: fine while RT throttling is on */
	load_opts(&o, "cpus=1 policy=fifo prio=50 stress-ng --cpu 1");
	assert_int_equal(lw_run_check_starvation(&o, &online, 1), 0);
	assert_error(lw_run_check_starvation(&o, &online, 0) < 0,
		     "load stress-ng (policy=fifo prio=50): a busy SCHED_FIFO load on probe cpu 1 "
		     "with RT throttling off");
	/* off the probe CPUs: fine */
	CPU_CLR(1, &o.cpus);
	assert_int_equal(lw_run_check_starvation(&o, &online, 0), 0);
	/* rr counts as well */
	load_opts(&o, "cpus=2 policy=rr prio=97 hackbench");
	assert_error(lw_run_check_starvation(&o, &online, 1) < 0,
		     "SCHED_RR priority 97 on cpu 2 would starve the probes");
	/* the noise probe's CPUs are probe CPUs too */
	load_opts(&o, "cpus=3 policy=fifo prio=96 stress-ng --cpu 1");
	CPU_CLR(3, &o.cpus);
	assert_int_equal(lw_run_check_starvation(&o, &online, 1), 0);
	CPU_SET(3, &o.probes.noise_cpus);
	o.probes.noise_cpus_set = 1;
	assert_error(lw_run_check_starvation(&o, &online, 1) < 0,
		     "SCHED_FIFO priority 96 on cpu 3 would starve the probes");
	/* SCHED_OTHER loads never starve */
	load_opts(&o, "nice=-20 stress-ng --cpu 4");
	assert_int_equal(lw_run_check_starvation(&o, &online, 0), 0);
	/* stress-ng's own --sched; prio taken as 99 when not given */
	load_opts(&o, "stress-ng --cpu 1 --sched=rr");
	assert_error(lw_run_check_starvation(&o, &online, 1) < 0,
		     "(stress-ng --sched rr --sched-prio 99): SCHED_RR priority 99");
	load_opts(&o, "stress-ng --cpu 1 --sched fifo --sched-prio=20");
	assert_int_equal(lw_run_check_starvation(&o, &online, 1), 0);
	/* rt-app: tasks from its JSON, periodic, cpus from task or phases */
	load_opts(&o, "rt-app tests/data/scenarios/rt-app-fifo99.json");
	assert_error(lw_run_check_starvation(&o, &online, 0) < 0,
		     "load rt-app: rt-app task hog: SCHED_FIFO priority 99 on cpu 1");
	CPU_CLR(1, &o.cpus);
	assert_int_equal(lw_run_check_starvation(&o, &online, 0), 0);
	/* workloads: every *prio parameter on the workload's CPUs */
	lw_run_opts_default(&o, &online);
	/* (workload CPUs are checked against the real online CPUs: use 1) */
	o.workload[0] = "video:cpu=1,prio=20,dma_prio=95";
	o.nworkloads = 1;
	assert_error(lw_run_check_starvation(&o, &online, 1) < 0,
		     "workload video (dma_prio=95): SCHED_FIFO priority 95 on cpu 1");
	CPU_CLR(1, &o.cpus);
	assert_int_equal(lw_run_check_starvation(&o, &online, 1), 0);
	o.no_rt = 1;
	CPU_SET(1, &o.cpus);
	assert_int_equal(lw_run_check_starvation(&o, &online, 0), 0);
}

static void test_find(void **st)
{
	char path[512];

	setenv("LATWATT_SCENARIO_PATH", "/nonexistent:" SHIPPED, 1);
	assert_int_equal(lw_scenario_find("av-stress", path, sizeof(path)), 0);
	assert_string_equal(path, SHIPPED "/av-stress.yaml");
	assert_int_equal(lw_scenario_find(BAD "/empty.yaml", path, sizeof(path)), 0);
	assert_string_equal(path, BAD "/empty.yaml");
	assert_error(lw_scenario_find("no-such-scenario", path, sizeof(path)) < 0,
		     "no scenario named 'no-such-scenario' (looked in /nonexistent, " SHIPPED);
	assert_error(lw_scenario_find("missing.yaml", path, sizeof(path)) < 0,
		     "cannot open scenario missing.yaml");
	{
		char *desc = lw_scenario_describe(SHIPPED "/idle.yaml", NULL);

		assert_non_null(desc);
		assert_non_null(strstr(desc, "baseline"));
		free(desc);
	}
	assert_null(lw_scenario_describe(BAD "/empty.yaml", NULL));
	unsetenv("LATWATT_SCENARIO_PATH");
}

static void test_record(void **st)
{
	char *dir = lw_test_tmpdir();
	char run_dir[600], file[700], buf[8192];
	struct lw_run_scenario rs;
	struct lw_run_opts o;
	struct lw_rundir rd;
	struct lw_run run;
	json_t *sc;
	FILE *f;
	size_t n;

	snprintf(run_dir, sizeof(run_dir), "%s/run", dir);
	assert_int_equal(apply(&rs, &o, SHIPPED "/av.yaml", SYSFS, 1, NULL), 0);
	assert_int_equal(lw_rundir_create(&rd, run_dir, 0), 0);
	lw_run_init(&run, &rd);
	assert_int_equal(lw_run_scenario_record(&rs, &run), 0);
	sc = json_object_get(run.dir.manifest, "scenario");
	assert_non_null(sc);
	assert_string_equal(json_string_value(json_object_get(sc, "name")), "av");
	assert_string_equal(json_string_value(json_object_get(sc, "file")), "scenario.yaml");
	assert_non_null(strstr(json_string_value(json_object_get(sc, "source")),
			       "workloads/scenarios/av.yaml"));
	assert_int_equal(json_array_size(json_object_get(sc, "options")), rs.nfile);
	/* the copy is the file, byte for byte */
	snprintf(file, sizeof(file), "%s/scenario.yaml", run_dir);
	f = fopen(file, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_int_equal(n, rs.sc.text_len);
	assert_memory_equal(buf, rs.sc.text, n);
	lw_run_destroy(&run);
	lw_run_scenario_free(&rs);
	lw_test_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_shipped_scenario_parses),
		cmocka_unit_test(test_shipped_contents),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_mapping),
		cmocka_unit_test(test_variables),
		cmocka_unit_test(test_command_line_overrides),
		cmocka_unit_test(test_starvation),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_record),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
