// SPDX-License-Identifier: GPL-2.0-only
/* latwatt tune: the knobs on a copy of sysfs/procfs, the front, the
 * recommendation and the script that applies it. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"

#include "analysis/tune.h"
#include "lib/knobs.h"
#include "lib/parse.h"
#include "lib/sysfs.h"
#include "lib/tuneknobs.h"

static void put(const char *root, const char *rel, const char *text)
{
	char path[1024], cmd[1200];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	lw_test_write(path, text, strlen(text));
}

static void get(const char *root, const char *rel, char *buf, size_t len)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_true(lw_read_file(path, buf, len) >= 0);
}

/* Two CPUs with three idle states (POLL, C1 2 us, C3 80 us), two IRQs. */
static char *fake_root(void)
{
	char *root = lw_test_tmpdir(), rel[256];
	static const char *const name[] = { "POLL", "C1", "C3" }, *const lat[] = { "0", "2", "80" };

	put(root, "sys/devices/system/cpu/online", "0-1\n");
	put(root, "sys/devices/system/cpu/cpuidle/current_driver", "haltpoll\n");
	for (int c = 0; c < 2; c++)
		for (int s = 0; s < 3; s++) {
			snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpuidle/state%d/name", c, s);
			put(root, rel, name[s]);
			snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpuidle/state%d/latency", c, s);
			put(root, rel, lat[s]);
			snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpuidle/state%d/disable", c, s);
			put(root, rel, "0\n");
		}
	put(root, "proc/sys/kernel/timer_migration", "1\n");
	put(root, "proc/sys/kernel/sched_rt_runtime_us", "950000\n");
	/* (a regular file is not truncated by a write, as sysfs is: values of one
	 * character, so that what is read back is what was written) */
	put(root, "proc/irq/12/smp_affinity_list", "1\n");
	put(root, "proc/irq/5/smp_affinity_list", "1\n");
	put(root, "proc/irq/default_smp_affinity", "3\n");
	return root;
}

static void test_knobs_on_a_copy(void **state)
{
	char *root = fake_root(), why[256], buf[64], done[256];
	struct lw_tune_sys s;
	struct lw_knobs k = { 0 };
	cpu_set_t m;

	CPU_ZERO(&m);
	CPU_SET(1, &m);
	assert_int_equal(lw_tune_sys_read(&s, root, &m), 0);
	assert_int_equal(s.nidle, 3);
	assert_int_equal(s.nirq, 2);
	assert_int_equal(s.irq[0], 5);		/* in number order */
	assert_int_equal(s.irq[1], 12);
	assert_int_equal(lw_tunables[LW_TK_IRQ].levels(&s, why, sizeof(why)), 1);
	assert_int_equal(lw_tunables[LW_TK_IDLE].levels(&s, why, sizeof(why)), 2);
	assert_int_equal(lw_tunables[LW_TK_PMQOS].levels(&s, why, sizeof(why)), 2);
	assert_int_equal(lw_tunables[LW_TK_GOVERNOR].levels(&s, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "no cpufreq"));
	/* PM QoS just under the exit latency of the state it keeps out */
	assert_int_equal(lw_tk_pmqos_us(&s, 1), 79);
	assert_int_equal(lw_tk_pmqos_us(&s, 2), 1);

	/* the deepest state off on the measured CPU only, IRQs to CPU 0 */
	assert_int_equal(lw_tunables[LW_TK_IDLE].apply(&s, 1, &k, done, sizeof(done)), 0);
	assert_int_equal(lw_tunables[LW_TK_IRQ].apply(&s, 1, &k, done, sizeof(done)), 0);
	assert_int_equal(lw_tunables[LW_TK_TIMER_MIGRATION].apply(&s, 1, &k, done, sizeof(done)), 0);
	get(root, "sys/devices/system/cpu/cpu1/cpuidle/state2/disable", buf, sizeof(buf));
	assert_string_equal(buf, "1");
	get(root, "sys/devices/system/cpu/cpu1/cpuidle/state1/disable", buf, sizeof(buf));
	assert_string_equal(buf, "0");
	get(root, "sys/devices/system/cpu/cpu0/cpuidle/state2/disable", buf, sizeof(buf));
	assert_string_equal(buf, "0");
	get(root, "proc/irq/12/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "0");
	get(root, "proc/sys/kernel/timer_migration", buf, sizeof(buf));
	assert_string_equal(buf, "0");
	assert_int_equal(k.n, 4);

	/* restored, every one */
	assert_int_equal(lw_knobs_restore(&k), 0);
	get(root, "sys/devices/system/cpu/cpu1/cpuidle/state2/disable", buf, sizeof(buf));
	assert_string_equal(buf, "0");
	get(root, "proc/irq/5/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "1");
	get(root, "proc/sys/kernel/timer_migration", buf, sizeof(buf));
	assert_string_equal(buf, "1");

	/* tasks are not files: not on a copy */
	assert_int_equal(lw_tunables[LW_TK_TASKS].levels(&s, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "--sysfs-root"));

	/* every CPU measured: no CPU to move IRQs or tasks to */
	CPU_SET(0, &m);
	assert_int_equal(lw_tune_sys_read(&s, root, &m), 0);
	assert_int_equal(lw_tunables[LW_TK_IRQ].levels(&s, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "no CPU to move IRQs to"));
	assert_int_equal(lw_tunables[LW_TK_TASKS].levels(&s, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "no CPU to move tasks to"));
	lw_test_rmdir(root);
}

static void test_no_cpuidle_driver(void **state)
{
	char *root = lw_test_tmpdir(), why[256];
	struct lw_tune_sys s;
	cpu_set_t m;

	put(root, "sys/devices/system/cpu/online", "0-1\n");
	CPU_ZERO(&m);
	CPU_SET(1, &m);
	assert_int_equal(lw_tune_sys_read(&s, root, &m), 0);
	assert_int_equal(lw_tunables[LW_TK_IDLE].levels(&s, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "no cpuidle driver"));
	assert_int_equal(lw_tunables[LW_TK_PMQOS].levels(&s, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "PM QoS limits no idle state"));
	assert_int_equal(lw_tunables[LW_TK_TIMER_MIGRATION].levels(&s, why, sizeof(why)), 0);
	assert_int_equal(lw_tunables[LW_TK_IRQ].levels(&s, why, sizeof(why)), 0);
	assert_int_equal(lw_tunable_by_name("idle"), LW_TK_IDLE);
	assert_int_equal(lw_tunable_by_name("nohz_full"), LW_TK_NOHZ_FULL);
	assert_int_equal(lw_tunable_by_name("nohz"), -1);
	lw_test_rmdir(root);
}

static void cand(struct lw_tune_result *r, enum lw_bseq_decision d, double lat, double hi,
		 double w)
{
	struct lw_tune_cand *c = &r->c[r->n++];

	memset(c, 0, sizeof(*c));
	c->dec = d;
	c->lat = lat;
	c->lat_lo = lat * 0.9;
	c->lat_hi = hi;
	c->power_w = w;
	c->power_lo = w * 0.99;	/* runs that agree: intervals of +/- 1 % */
	c->power_hi = w * 1.01;
}

static void test_front_and_recommendation(void **state)
{
	struct lw_tune_result r = { 0 };

	cand(&r, LW_BSEQ_FAIL, 300, 350, 1.0);		/* as found: least power */
	cand(&r, LW_BSEQ_FAIL, 320, 400, 1.0);		/* dominated by the first */
	cand(&r, LW_BSEQ_PASS, 90, 110, 1.4);
	cand(&r, LW_BSEQ_PASS, 40, 50, 2.0);		/* lower latency, more power */
	cand(&r, LW_BSEQ_PASS, 95, 120, NAN);		/* no power: not on the front */
	lw_tune_finish(&r);
	assert_int_equal(r.c[0].front, 1);
	assert_int_equal(r.c[1].front, 0);
	assert_int_equal(r.c[2].front, 1);
	assert_int_equal(r.c[3].front, 1);
	assert_int_equal(r.c[4].front, 0);
	assert_int_equal(r.recommended, 2);	/* the lowest power that passes */
	assert_int_equal(r.best, 3);

	/* powers not told apart are a tie: the fewer knobs changed */
	memset(&r, 0, sizeof(r));
	cand(&r, LW_BSEQ_PASS, 90, 110, 1.000);
	r.c[0].level[LW_TK_IRQ] = 1;
	r.c[0].level[LW_TK_TIMER_MIGRATION] = 1;
	cand(&r, LW_BSEQ_PASS, 95, 120, 0.995);
	r.c[1].level[LW_TK_IRQ] = 1;
	cand(&r, LW_BSEQ_PASS, 80, 100, 1.004);
	lw_tune_finish(&r);
	assert_int_equal(r.recommended, 2);	/* as found (no knob), 0.4 % more */
	/* 20 % more, the intervals apart: the lower power */
	r.c[2].power_w = 1.2;
	r.c[2].power_lo = 1.15;
	r.c[2].power_hi = 1.25;
	lw_tune_finish(&r);
	assert_int_equal(r.recommended, 1);
	/* the shared machine's estimates: 0.33 to 2.0 W for one configuration
	 * (other work on the other CPU); intervals that overlap tell nothing */
	r.c[2].power_lo = 0.4;
	r.c[2].power_hi = 2.0;
	lw_tune_finish(&r);
	assert_int_equal(r.recommended, 2);
	/* one run: no interval, lower than nothing */
	r.c[2].power_lo = r.c[2].power_hi = NAN;
	lw_tune_finish(&r);
	assert_int_equal(r.recommended, 2);

	/* nothing passes: no recommendation, the best is said */
	memset(&r, 0, sizeof(r));
	cand(&r, LW_BSEQ_FAIL, 300, 350, 1.0);
	cand(&r, LW_BSEQ_UNDECIDED, 200, 260, 1.2);
	cand(&r, LW_BSEQ_FAIL, 150, NAN, 1.3);
	lw_tune_finish(&r);
	assert_int_equal(r.recommended, -1);
	assert_int_equal(r.best, 1);		/* an upper bound ranks before none */
}

static void test_script_and_cmdline(void **state)
{
	char *root = fake_root(), *cwd;
	struct lw_tune_sys s;
	struct lw_sb b = { 0 }, cl = { 0 };
	int level[LW_TK_N] = { 0 };
	cpu_set_t m;
	char name[160];

	CPU_ZERO(&m);
	CPU_SET(1, &m);
	assert_int_equal(lw_tune_sys_read(&s, root, &m), 0);
	level[LW_TK_IRQ] = 1;
	level[LW_TK_TASKS] = 1;
	level[LW_TK_TIMER_MIGRATION] = 1;
	level[LW_TK_IDLE] = 1;
	lw_tune_cand_name(level, name, sizeof(name));
	assert_string_equal(name, "irq + tasks + timer_migration + idle 1");
	assert_int_equal(lw_tune_script(&s, level, "a title\nreboot", &b), 0);
	/* the title stays a comment; every value and path is quoted */
	assert_null(strstr(b.s, "\nreboot"));
	assert_non_null(strstr(b.s, "printf '%s\\n' '1' > "
			       "'/sys/devices/system/cpu/cpu1/cpuidle/state2/disable'\n"));
	assert_null(strstr(b.s, "cpu0/cpuidle"));
	assert_non_null(strstr(b.s, "printf '%s\\n' '0' > '/proc/sys/kernel/timer_migration'\n"));
	assert_non_null(strstr(b.s, "for f in /proc/irq/*/smp_affinity_list; do printf '%s\\n' '0'"));
	/* each thread on CPU 1 moved as the knob moves it; a refusal (a bound
	 * kernel thread) passed over (test_script_moves_as_the_knob) */
	assert_non_null(strstr(b.s, "for t in /proc/[0-9]*/task/[0-9]*; do\n"
			       "\tto=$(taskset -p -c \"${t##*/}\" 2>/dev/null | awk -v m='1' -v hk='0' "));
	assert_non_null(strstr(b.s, "[ -n \"$to\" ] && taskset -p -c \"$to\" \"${t##*/}\" "
			       ">/dev/null 2>&1 || :\ndone\n"));
	assert_int_equal(lw_tune_cmdline(&s, level, &cl), 0);
	assert_string_equal(cl.s, " irqaffinity=0 sysctl.kernel.timer_migration=0");
	lw_sb_free(&b);
	lw_sb_free(&cl);

	/* the script reproduces the configuration: run it on the copy (its
	 * paths made relative to the copy) */
	memset(level, 0, sizeof(level));
	level[LW_TK_IDLE] = 2;
	assert_int_equal(lw_tune_script(&s, level, "t", &b), 0);
	cwd = getcwd(NULL, 0);
	assert_int_equal(chdir(root), 0);
	{
		char script[1024], cmd[1200], buf[32];
		FILE *f;

		snprintf(script, sizeof(script), "%s/apply.sh", root);
		f = fopen(script, "w");
		assert_non_null(f);
		/* absolute paths into the copy: /sys -> ./sys */
		for (const char *p = b.s; *p; p++) {
			if (!strncmp(p, "'/sys/", 6)) {
				fputs("'./sys/", f);
				p += 5;
				continue;
			}
			fputc(*p, f);
		}
		fclose(f);
		snprintf(cmd, sizeof(cmd), "sh '%s'", script);
		assert_int_equal(system(cmd), 0);
		get(root, "sys/devices/system/cpu/cpu1/cpuidle/state1/disable", buf, sizeof(buf));
		assert_string_equal(buf, "1");
		get(root, "sys/devices/system/cpu/cpu1/cpuidle/state2/disable", buf, sizeof(buf));
		assert_string_equal(buf, "1");
		get(root, "sys/devices/system/cpu/cpu1/cpuidle/state0/disable", buf, sizeof(buf));
		assert_string_equal(buf, "0");
	}
	assert_int_equal(chdir(cwd), 0);
	free(cwd);
	lw_sb_free(&b);
	lw_test_rmdir(root);
}

/* The boot-time knobs: searched only where each run boots a kernel, and
 * only with a CPU left for the housekeeping; their words on the command
 * line (the measured CPUs, the others for irqaffinity); nothing set here,
 * the script a comment; a name of the search. */
static void test_boot_knobs(void **state)
{
	struct lw_tune_sys s;
	struct lw_sb b = { 0 }, cl = { 0 };
	struct lw_knobs k = { 0 };
	int level[LW_TK_N] = { 0 };
	char why[256], name[160], done[64] = "x";

	(void)state;
	memset(&s, 0, sizeof(s));
	for (int c = 0; c < 4; c++)
		CPU_SET(c, &s.online);
	CPU_SET(2, &s.measured);
	CPU_SET(3, &s.measured);
	for (int i = 0; i < LW_TK_N; i++) {
		if (!lw_tunables[i].boot)
			continue;
		assert_int_equal(lw_tunables[i].levels(&s, why, sizeof(why)), 0);
		assert_non_null(strstr(why, "set at boot: searched when each run boots a kernel"));
	}
	s.boots = 1;
	assert_int_equal(lw_tunables[LW_TK_ISOLCPUS].levels(&s, why, sizeof(why)), 1);
	assert_int_equal(lw_tunables[LW_TK_IRQAFFINITY].apply(&s, 1, &k, done, sizeof(done)), 0);
	assert_string_equal(done, "");
	level[LW_TK_ISOLCPUS] = 1;
	level[LW_TK_NOHZ_FULL] = 1;
	level[LW_TK_RCU_NOCBS] = 1;
	level[LW_TK_IRQAFFINITY] = 1;
	assert_int_equal(lw_tune_cmdline(&s, level, &cl), 0);
	assert_string_equal(cl.s, " isolcpus=2-3 nohz_full=2-3 rcu_nocbs=2-3 irqaffinity=0-1");
	assert_int_equal(lw_tune_script(&s, level, "t", &b), 0);
	assert_non_null(strstr(b.s, "# at boot: isolcpus=2-3 on the kernel command line (cmdline.txt)\n"));
	assert_non_null(strstr(b.s, "# at boot: irqaffinity=0-1 on the kernel command line"));
	lw_tune_cand_name(level, name, sizeof(name));
	assert_string_equal(name, "isolcpus + nohz_full + rcu_nocbs + irqaffinity");
	lw_tunables[LW_TK_NOHZ_FULL].describe(&s, 1, why, sizeof(why));
	assert_string_equal(why, "nohz_full=2-3 on the kernel command line");
	/* every CPU measured: nothing left for the housekeeping */
	CPU_SET(0, &s.measured);
	CPU_SET(1, &s.measured);
	assert_int_equal(lw_tunables[LW_TK_NOHZ_FULL].levels(&s, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "none left for the housekeeping"));
	lw_sb_free(&b);
	lw_sb_free(&cl);
}

/* apply.sh moves a thread as the knob does (tasks_list()): on a measured
 * CPU, to the CPUs it had that are not measured, else to every one that is
 * not; off them already, left alone.  Run with a taskset of the test's that
 * reports the affinity FAKE_CUR for every thread and logs what it is told
 * to set: on 4 CPUs with CPU 1 measured. */
static void test_script_moves_as_the_knob(void **state)
{
	static const struct { const char *cur, *to; } cases[] = {
		{ "0-3", "0,2,3" }, { "1", "0,2-3" }, { "1,3", "3" }, { "2", NULL },
		{ "0,2-3", NULL }, { "1-2", "2" },
	};
	char *root = fake_root();
	struct lw_tune_sys s;
	struct lw_sb b = { 0 };
	int level[LW_TK_N] = { 0 };
	cpu_set_t m;
	char path[1024], cmd[4096], log[1024], line[256];
	FILE *f;

	(void)state;
	CPU_ZERO(&m);
	CPU_SET(1, &m);
	assert_int_equal(lw_tune_sys_read(&s, root, &m), 0);
	CPU_ZERO(&s.online);
	for (int c = 0; c < 4; c++)
		CPU_SET(c, &s.online);
	level[LW_TK_TASKS] = 1;
	assert_int_equal(lw_tune_script(&s, level, "t", &b), 0);
	snprintf(path, sizeof(path), "%s/apply.sh", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(b.s, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/taskset", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\n"
	      "[ $# = 3 ] && { echo \"pid $3's current affinity list: $FAKE_CUR\"; exit 0; }\n"
	      "echo \"$3\" >> \"$FAKE_LOG\"\n", f);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
	snprintf(log, sizeof(log), "%s/set.log", root);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = 0;

		unlink(log);
		snprintf(cmd, sizeof(cmd), "FAKE_CUR='%s' FAKE_LOG='%s' PATH='%s':\"$PATH\" sh '%s/apply.sh'",
			 cases[i].cur, log, root, root);
		assert_int_equal(system(cmd), 0);
		f = fopen(log, "r");
		if (!cases[i].to) {
			if (f)
				fail_msg("%s: told to move a thread off no measured CPU", cases[i].cur);
			continue;
		}
		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			cpu_set_t want, got;

			line[strcspn(line, "\n")] = 0;
			assert_int_equal(lw_parse_cpulist("moved to", line, NULL, &got), 0);
			assert_int_equal(lw_parse_cpulist("want", cases[i].to, NULL, &want), 0);
			if (!CPU_EQUAL(&got, &want))
				fail_msg("%s: moved to %s, not %s", cases[i].cur, line, cases[i].to);
			n++;
		}
		fclose(f);
		assert_true(n > 0);	/* every thread of this system, each told once */
	}
	lw_sb_free(&b);
	lw_test_rmdir(root);
}

/* A child that waits to be killed, on CPU @cpu alone. */
static pid_t pinned_child(int cpu)
{
	cpu_set_t set;
	pid_t pid;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		sched_setaffinity(0, sizeof(set), &set);
		for (;;)
			pause();
	}
	for (int i = 0; i < 1000; i++) {	/* until it has pinned itself */
		cpu_set_t now;

		if (sched_getaffinity(pid, sizeof(now), &now) == 0 && CPU_EQUAL(&now, &set))
			break;
		usleep(1000);
	}
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Tasks moved through the knobs (lw_knob_affinity()) are set back by
 * lw_knobs_restore(): one still there gets its affinity back, one gone is
 * passed over without a failure, and a tid that another task holds now
 * (its start time differs) is not touched. */
static void test_task_affinity_restored(void **state)
{
	struct lw_knobs k = { 0 };
	struct lw_knob_task m[3];
	cpu_set_t online, on_a, on_b, now;
	pid_t child[3];
	int a = -1, b = -1;

	assert_int_equal(lw_online_cpus(&online), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &online) && (a < 0 || b < 0))
			*(a < 0 ? &a : &b) = c;
	if (b < 0)
		skip();		/* one CPU: nowhere to move a task to */
	CPU_ZERO(&on_a);
	CPU_SET(a, &on_a);
	CPU_ZERO(&on_b);
	CPU_SET(b, &on_b);
	for (int i = 0; i < 3; i++) {
		child[i] = pinned_child(a);
		memset(&m[i], 0, sizeof(m[i]));
		m[i].tid = (int)child[i];
		m[i].start = lw_proc_starttime(child[i]);
		m[i].from = on_a;
		m[i].to = on_b;
	}
	m[2].start++;		/* as if child 2 were another task with its tid */
	assert_int_equal(lw_knob_affinity(&k, m, 3), 3);
	assert_int_equal(k.ntask, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(m[i].err, 0);
		assert_int_equal(sched_getaffinity(child[i], sizeof(now), &now), 0);
		assert_true(CPU_EQUAL(&now, &on_b));
	}
	reap(child[1]);
	assert_int_equal(lw_knobs_restore(&k), 0);
	assert_int_equal(k.ntask, 0);
	assert_int_equal(sched_getaffinity(child[0], sizeof(now), &now), 0);
	assert_true(CPU_EQUAL(&now, &on_a));
	assert_int_equal(sched_getaffinity(child[2], sizeof(now), &now), 0);
	assert_true(CPU_EQUAL(&now, &on_b));
	reap(child[0]);
	reap(child[2]);

	/* a task gone before it could be moved: counted out, nothing to restore */
	child[0] = pinned_child(a);
	m[0].tid = (int)child[0];
	m[0].start = lw_proc_starttime(child[0]);
	reap(child[0]);
	assert_int_equal(lw_knob_affinity(&k, m, 1), 0);
	assert_int_equal(m[0].err, ESRCH);
	assert_int_equal(k.ntask, 0);
	assert_int_equal(lw_knobs_restore(&k), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_knobs_on_a_copy),
		cmocka_unit_test(test_no_cpuidle_driver),
		cmocka_unit_test(test_front_and_recommendation),
		cmocka_unit_test(test_script_and_cmdline),
		cmocka_unit_test(test_boot_knobs),
		cmocka_unit_test(test_script_moves_as_the_knob),
		cmocka_unit_test(test_task_affinity_restored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
