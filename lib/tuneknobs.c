// SPDX-License-Identifier: GPL-2.0-only
/* The knobs latwatt tune searches (lib/tuneknobs.h). */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/parse.h"
#include "lib/sysfs.h"
#include "lib/tuneknobs.h"

#define CPU_DIR "/sys/devices/system/cpu"

static int first_measured(const struct lw_tune_sys *s)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &s->measured))
			return c;
	return -1;
}

/* The CPUs not measured: where IRQs go. */
static void housekeeping(const struct lw_tune_sys *s, cpu_set_t *hk)
{
	CPU_ZERO(hk);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &s->online) && !CPU_ISSET(c, &s->measured))
			CPU_SET(c, hk);
}

static void add_write(struct lw_sb *b, const char *value, const char *path)
{
	lw_sb_add(b, "printf '%s\\n' ");
	lw_sb_quote(b, value);
	lw_sb_add(b, " > ");
	lw_sb_quote(b, path);
	lw_sb_add(b, "\n");
}

/* irq: every IRQ whose affinity can be set, to the CPUs not measured */

static int irq_levels(const struct lw_tune_sys *s, char *why, size_t len)
{
	cpu_set_t hk;

	housekeeping(s, &hk);
	if (!CPU_COUNT(&hk)) {
		snprintf(why, len, "every online CPU is measured: no CPU to move IRQs to");
		return 0;
	}
	if (!s->nirq) {
		snprintf(why, len, "no IRQ under %s/proc/irq", s->root);
		return 0;
	}
	return 1;
}

static void irq_describe(const struct lw_tune_sys *s, int l, char *buf, size_t len)
{
	cpu_set_t hk;
	char list[256];

	housekeeping(s, &hk);
	snprintf(buf, len, "IRQs moved to CPU %s, off the measured CPUs (%d under /proc/irq; "
		 "those the kernel keeps in place stay)",
		 lw_format_cpulist(&hk, list, sizeof(list)), s->nirq);
}

static int irq_apply(const struct lw_tune_sys *s, int l, struct lw_knobs *k, char *done,
		     size_t len)
{
	cpu_set_t hk;
	char list[256], path[512];
	int moved = 0, q;


	housekeeping(s, &hk);
	lw_format_cpulist(&hk, list, sizeof(list));
	for (int i = 0; i < s->nirq; i++) {
		snprintf(path, sizeof(path), "%s/proc/irq/%d/smp_affinity_list", s->root, s->irq[i]);
		/* some IRQs cannot be moved (the kernel refuses with EIO):
		 * they stay, restored to what was read */
		int before = k->n;

		q = lw_set_quiet(1);
		if (lw_knob_write(k, path, list) == 0) {
			moved++;
		} else if (k->n > before) {	/* not changed: nothing to restore */
			k->n--;
			free(k->knob[k->n].path);
			free(k->knob[k->n].orig);
		}
		lw_set_quiet(q);
	}
	if (!moved)
		return error("irq: no IRQ under %s/proc/irq could be moved to CPU %s", s->root, list);
	snprintf(done, len, "%d of %d IRQs moved to CPU %s (the kernel keeps the others in place)",
		 moved, s->nirq, list);
	return 0;
}

static void irq_script(const struct lw_tune_sys *s, int l, struct lw_sb *b)
{
	cpu_set_t hk;
	char list[256];

	housekeeping(s, &hk);
	lw_format_cpulist(&hk, list, sizeof(list));
	lw_sb_add(b, "# IRQs off the measured CPUs (those the kernel cannot move stay)\n");
	lw_sb_add(b, "for f in /proc/irq/*/smp_affinity_list; do printf '%s\\n' ");
	lw_sb_quote(b, list);
	lw_sb_add(b, " > \"$f\" 2>/dev/null || :; done\n");
}

static void irq_cmdline(const struct lw_tune_sys *s, int l, struct lw_sb *b)
{
	cpu_set_t hk;
	char list[256];

	housekeeping(s, &hk);
	lw_sb_add(b, " irqaffinity=");
	lw_sb_add(b, lw_format_cpulist(&hk, list, sizeof(list)));
}

/* tasks: every task that can move, off the measured CPUs (each thread's
 * affinity through sched_setaffinity, journaled and set back) */

#define TASK_PF_NO_SETAFFINITY 0x04000000	/* include/linux/sched.h: bound to its CPUs */

static int tasks_levels(const struct lw_tune_sys *s, char *why, size_t len)
{
	cpu_set_t hk;

	housekeeping(s, &hk);
	if (!CPU_COUNT(&hk)) {
		snprintf(why, len, "every online CPU is measured: no CPU to move tasks to");
		return 0;
	}
	if (s->root[0]) {
		snprintf(why, len, "tasks are this system's, not files under %s (--sysfs-root)",
			 s->root);
		return 0;
	}
	return 1;
}

static void tasks_describe(const struct lw_tune_sys *s, int l, char *buf, size_t len)
{
	cpu_set_t hk;
	char list[256];

	housekeeping(s, &hk);
	snprintf(buf, len, "tasks moved to CPU %s, off the measured CPUs (each thread's CPU "
		 "affinity; kernel threads bound to a CPU stay, and latwatt's own)",
		 lw_format_cpulist(&hk, list, sizeof(list)));
}

/* The state and the flags of thread @tid of process @pid: 0, or -1 (gone). */
static int task_stat(long pid, long tid, char *state, unsigned long *flags)
{
	char path[96], buf[1024], *p;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/stat", pid, tid);
	if (lw_read_file(path, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')))
		return -1;
	p += 2;		/* ") S ppid ...": the state, field 3 */
	*state = *p;
	for (int field = 3; field < 9; field++) {	/* to the flags, field 9 */
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	*flags = strtoul(p, NULL, 10);
	return 0;
}

static long number(const char *name)
{
	char *end;
	long n = strtol(name, &end, 10);

	return end == name || *end || n <= 0 ? -1 : n;
}

/* Every thread on a measured CPU that can move, but this process's (the
 * runs it starts come later: not touched), into @m; the bound kernel
 * threads and our own counted. */
static int tasks_list(const struct lw_tune_sys *s, const cpu_set_t *hk, struct lw_knob_task **m,
		      int *n, int *bound, int *own)
{
	long self = (long)getpid();
	int cap = 0;
	struct dirent *e, *te;
	DIR *d = opendir("/proc");

	if (!d)
		return error_errno("cannot read /proc");
	while ((e = readdir(d))) {
		long pid = number(e->d_name), tid;
		char path[64];
		DIR *td;

		if (pid < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task", pid);
		td = opendir(path);
		while (td && (te = readdir(td))) {
			struct lw_knob_task *t;
			cpu_set_t from, on;
			unsigned long flags;
			char state;

			tid = number(te->d_name);
			if (tid < 0 || task_stat(pid, tid, &state, &flags) < 0 || state == 'Z' ||
			    state == 'X' || sched_getaffinity((pid_t)tid, sizeof(from), &from) < 0)
				continue;	/* gone, or going */
			CPU_AND(&on, &from, &s->measured);
			if (!CPU_COUNT(&on))
				continue;	/* off them already */
			if (pid == self) {
				(*own)++;
				continue;
			}
			if (flags & TASK_PF_NO_SETAFFINITY) {
				(*bound)++;
				continue;
			}
			if (*n == cap) {
				cap = cap ? 2 * cap : 256;
				t = realloc(*m, (size_t)cap * sizeof(*t));
				if (!t) {
					closedir(td);
					closedir(d);
					return error("out of memory");
				}
				*m = t;
			}
			t = &(*m)[*n];
			memset(t, 0, sizeof(*t));
			t->tid = (int)tid;
			t->start = lw_proc_starttime(tid);
			t->from = from;
			CPU_AND(&t->to, &from, hk);	/* the CPUs it had, but the measured */
			if (!CPU_COUNT(&t->to))
				t->to = *hk;
			if (t->start)
				(*n)++;
		}
		if (td)
			closedir(td);
	}
	closedir(d);
	return 0;
}

static int tasks_apply(const struct lw_tune_sys *s, int l, struct lw_knobs *k, char *done,
		       size_t len)
{
	struct lw_knob_task *m = NULL;
	int n = 0, bound = 0, own = 0, refused = 0, moved, first = -1;
	char hl[256], ml[256], why[160] = "";
	cpu_set_t hk;

	housekeeping(s, &hk);
	if (tasks_list(s, &hk, &m, &n, &bound, &own) < 0) {
		free(m);
		return -1;
	}
	moved = n ? lw_knob_affinity(k, m, n) : 0;
	if (moved < 0) {
		free(m);
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (m[i].err && m[i].err != ESRCH && !refused++)
			first = i;
	if (first >= 0) {
		char path[64], comm[32] = "?";

		snprintf(path, sizeof(path), "/proc/%d/comm", m[first].tid);
		if (lw_read_file(path, comm, sizeof(comm)) >= 0)
			comm[strcspn(comm, "\n")] = 0;
		snprintf(why, sizeof(why), " (task %d %s: %s)", m[first].tid, comm,
			 strerror(m[first].err));
	}
	free(m);
	snprintf(done, len, "%d task%s moved to CPU %s; left on CPU %s: %d kernel thread%s bound "
		 "to a CPU, %d that refused%s, %d of latwatt's own", moved, moved == 1 ? "" : "s",
		 lw_format_cpulist(&hk, hl, sizeof(hl)),
		 lw_format_cpulist(&s->measured, ml, sizeof(ml)), bound, bound == 1 ? "" : "s",
		 refused, why, own);
	return 0;
}

/* For apply.sh: from taskset's "pid N's current affinity list: 0-3,5", the
 * list the thread goes to as tasks_list() moves it (the CPUs it had but the
 * measured ones m, else the housekeeping ones hk), or nothing when it is
 * not on a measured CPU. */
static const char tasks_awk[] =
	"function set(l, a,   n, r, p, i, j) { n = split(l, r, \",\"); "
	"for (i = 1; i <= n; i++) if (split(r[i], p, \"-\") == 2) "
	"{ for (j = p[1] + 0; j <= p[2] + 0; j++) a[j] = 1 } else a[r[i] + 0] = 1 } "
	"{ set($NF, cur); set(m, meas); on = 0; out = \"\"; "
	"for (c in cur) { if (c in meas) on = 1; if (c + 0 > mx) mx = c + 0 } "
	"if (!on) exit; for (c = 0; c <= mx; c++) if ((c in cur) && !(c in meas)) "
	"out = out (out == \"\" ? \"\" : \",\") c; print (out == \"\" ? hk : out) }";

static void tasks_script(const struct lw_tune_sys *s, int l, struct lw_sb *b)
{
	cpu_set_t hk;
	char list[256], ml[256];

	(void)l;
	housekeeping(s, &hk);
	lw_format_cpulist(&hk, list, sizeof(list));
	lw_format_cpulist(&s->measured, ml, sizeof(ml));
	lw_sb_add(b, "# every thread on a measured CPU to the CPUs it had that are not measured\n"
		  "# (to the others when it had none); one off them already is left as it is,\n"
		  "# kernel threads bound to a CPU refuse and stay.  Tasks started later\n"
		  "# inherit their parent's: start what must run on the measured CPUs with\n"
		  "# its own (taskset -c)\n");
	lw_sb_add(b, "for t in /proc/[0-9]*/task/[0-9]*; do\n"
		  "\tto=$(taskset -p -c \"${t##*/}\" 2>/dev/null | awk -v m=");
	lw_sb_quote(b, ml);
	lw_sb_add(b, " -v hk=");
	lw_sb_quote(b, list);
	lw_sb_add(b, " ");
	lw_sb_quote(b, tasks_awk);
	lw_sb_add(b, ") &&\n\t\t[ -n \"$to\" ] && taskset -p -c \"$to\" \"${t##*/}\" >/dev/null 2>&1 || :\n"
		  "done\n");
}

static void tasks_cmdline(const struct lw_tune_sys *s, int l, struct lw_sb *b)
{
	/* no command line form: isolcpus= takes the CPUs out of the
	 * scheduler's balancing, which is not the same placement */
}

/* sysctls: one file, one value */

static const struct sysctl_knob {
	const char *file;	/* under /proc/sys */
	const char *value;
	const char *what;
} sysctls[] = {
	{ "kernel/timer_migration", "0", "timers stay on the CPU that armed them" },
	{ "kernel/sched_rt_runtime_us", "-1", "RT throttling off" },
};

static const struct sysctl_knob *sysctl_of(enum lw_tk_id id)
{
	return &sysctls[id == LW_TK_TIMER_MIGRATION ? 0 : 1];
}

static int tm_levels(const struct lw_tune_sys *s, char *why, size_t len)
{
	if (!s->timer_migration)
		snprintf(why, len, "no %s/proc/sys/kernel/timer_migration (a kernel without "
			 "CONFIG_SMP or NO_HZ_COMMON)", s->root);
	return s->timer_migration;
}

static int rt_levels(const struct lw_tune_sys *s, char *why, size_t len)
{
	if (!s->rt_runtime)
		snprintf(why, len, "no %s/proc/sys/kernel/sched_rt_runtime_us", s->root);
	return s->rt_runtime;
}

#define SYSCTL_FNS(pfx, id)								\
static void pfx##_describe(const struct lw_tune_sys *s, int l, char *buf, size_t len)	\
{											\
	snprintf(buf, len, "%s (%s = %s)", sysctl_of(id)->what, sysctl_of(id)->file,	\
		 sysctl_of(id)->value);							\
}											\
static int pfx##_apply(const struct lw_tune_sys *s, int l, struct lw_knobs *k,		\
		       char *done, size_t len)							\
{											\
	char path[512];									\
											\
	snprintf(path, sizeof(path), "%s/proc/sys/%s", s->root, sysctl_of(id)->file);	\
	return lw_knob_write(k, path, sysctl_of(id)->value);				\
}											\
static void pfx##_script(const struct lw_tune_sys *s, int l, struct lw_sb *b)		\
{											\
	char path[512];									\
											\
	snprintf(path, sizeof(path), "/proc/sys/%s", sysctl_of(id)->file);		\
	add_write(b, sysctl_of(id)->value, path);					\
}											\
static void pfx##_cmdline(const struct lw_tune_sys *s, int l, struct lw_sb *b)		\
{											\
	char word[128], *p;								\
											\
	snprintf(word, sizeof(word), " sysctl.%s=%s", sysctl_of(id)->file,		\
		 sysctl_of(id)->value);							\
	for (p = word; *p; p++)								\
		if (*p == '/')								\
			*p = '.';							\
	lw_sb_add(b, word);								\
}
SYSCTL_FNS(tm, LW_TK_TIMER_MIGRATION)
SYSCTL_FNS(rt, LW_TK_RT_THROTTLE)

/* The boot-time knobs: NAME=LIST on the kernel command line of the kernel
 * each run boots; the measured CPUs (isolcpus, nohz_full, rcu_nocbs) or
 * the others (irqaffinity). Nothing is set on this machine. */

static int boot_levels(const struct lw_tune_sys *s, char *why, size_t len)
{
	cpu_set_t hk;

	if (!s->boots) {
		snprintf(why, len, "set at boot: searched when each run boots a kernel "
			 "(--kernel, --boot-cmd)");
		return 0;
	}
	housekeeping(s, &hk);
	if (!CPU_COUNT(&hk)) {
		snprintf(why, len, "every CPU is measured: none left for the housekeeping");
		return 0;
	}
	return 1;
}

static void boot_list(const struct lw_tune_sys *s, int id, char *list, size_t len)
{
	cpu_set_t hk;

	housekeeping(s, &hk);
	lw_format_cpulist(id == LW_TK_IRQAFFINITY ? &hk : &s->measured, list, len);
}

/* "NAME=LIST", the knob's word on the kernel command line */
static void boot_word_add(const struct lw_tune_sys *s, int id, struct lw_sb *b)
{
	char list[256];

	boot_list(s, id, list, sizeof(list));
	lw_sb_add(b, lw_tunables[id].name);
	lw_sb_add(b, "=");
	lw_sb_add(b, list);
}

/* nothing is set on this machine */
static int boot_apply(const struct lw_tune_sys *s, int l, struct lw_knobs *k, char *done,
		      size_t len)
{
	(void)s; (void)l; (void)k;
	snprintf(done, len, "%s", "");
	return 0;
}

/* The callbacks take no knob: one set for each, as SYSCTL_FNS */
#define BOOT_FNS(pfx, id)								\
static void pfx##_describe(const struct lw_tune_sys *s, int l, char *buf, size_t len)	\
{											\
	char list[256];									\
											\
	(void)l;									\
	boot_list(s, id, list, sizeof(list));						\
	snprintf(buf, len, "%s=%s on the kernel command line", lw_tunables[id].name, list); \
}											\
static void pfx##_script(const struct lw_tune_sys *s, int l, struct lw_sb *b)		\
{											\
	(void)l;									\
	lw_sb_add(b, "# at boot: ");							\
	boot_word_add(s, id, b);							\
	lw_sb_add(b, " on the kernel command line (cmdline.txt)\n");			\
}											\
static void pfx##_cmdline(const struct lw_tune_sys *s, int l, struct lw_sb *b)		\
{											\
	(void)l;									\
	lw_sb_add(b, " ");								\
	boot_word_add(s, id, b);							\
}
BOOT_FNS(isol, LW_TK_ISOLCPUS)
BOOT_FNS(nohz, LW_TK_NOHZ_FULL)
BOOT_FNS(nocb, LW_TK_RCU_NOCBS)
BOOT_FNS(irqa, LW_TK_IRQAFFINITY)

/* idle: the l deepest idle states disabled on the measured CPUs */

static int idle_levels(const struct lw_tune_sys *s, char *why, size_t len)
{
	if (s->nidle < 2) {
		snprintf(why, len, s->nidle ? "one idle state (%s): nothing to disable" :
			 "no cpuidle driver (%s): no idle state to disable", s->nidle ?
			 s->idle_name[0] : s->driver);
		return 0;
	}
	return s->nidle - 1;	/* state 0 (POLL, or the shallowest) stays */
}

static void idle_describe(const struct lw_tune_sys *s, int l, char *buf, size_t len)
{
	char list[256];
	int from = s->nidle - l;

	snprintf(buf, len, "idle state%s %s%s (exit %u us%s) disabled on CPU %s",
		 l > 1 ? "s" : "", s->idle_name[from], l > 1 ? " and deeper" : "",
		 s->idle_lat[from], l > 1 ? " and more" : "",
		 lw_format_cpulist(&s->measured, list, sizeof(list)));
}

static int idle_apply(const struct lw_tune_sys *s, int l, struct lw_knobs *k, char *done,
		      size_t len)
{
	char path[512];

	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &s->measured))
			continue;
		for (int st = s->nidle - l; st < s->nidle; st++) {
			snprintf(path, sizeof(path), "%s" CPU_DIR "/cpu%d/cpuidle/state%d/disable",
				 s->root, c, st);
			if (lw_knob_write(k, path, "1") < 0)
				return -1;
		}
	}
	return 0;
}

static void idle_script(const struct lw_tune_sys *s, int l, struct lw_sb *b)
{
	char path[512];

	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &s->measured))
			continue;
		for (int st = s->nidle - l; st < s->nidle; st++) {
			snprintf(path, sizeof(path), CPU_DIR "/cpu%d/cpuidle/state%d/disable", c, st);
			add_write(b, "1", path);
		}
	}
}

static void idle_cmdline(const struct lw_tune_sys *s, int l, struct lw_sb *b)
{
	/* per CPU and per state: no command line form (intel_idle.states_off
	 * is one driver's, for every CPU) */
}

/* pmqos: the run holds /dev/cpu_dma_latency under the l-th deepest state */

int64_t lw_tk_pmqos_us(const struct lw_tune_sys *s, int l)
{
	int st = s->nidle - l;

	if (st < 1 || st >= s->nidle)
		return 0;
	return s->idle_lat[st] ? (int64_t)s->idle_lat[st] - 1 : 0;
}

static int pmqos_levels(const struct lw_tune_sys *s, char *why, size_t len)
{
	int n = idle_levels(s, why, len);

	if (!n && s->nidle < 2)
		snprintf(why, len, "no cpuidle driver (%s): PM QoS limits no idle state",
			 s->driver);
	return n;
}

static void pmqos_describe(const struct lw_tune_sys *s, int l, char *buf, size_t len)
{
	snprintf(buf, len, "PM QoS %lld us held (every CPU: idle state %s and deeper out)",
		 (long long)lw_tk_pmqos_us(s, l), s->idle_name[s->nidle - l]);
}

static int pmqos_apply(const struct lw_tune_sys *s, int l, struct lw_knobs *k, char *done,
		       size_t len)
{
	return 0;	/* held by the run itself: run --pm-qos */
}

static void pmqos_script(const struct lw_tune_sys *s, int l, struct lw_sb *b)
{
	char v[32];

	snprintf(v, sizeof(v), "%lld", (long long)lw_tk_pmqos_us(s, l));
	lw_sb_add(b, "# PM QoS is held while the file stays open: this shell holds it on\n"
		  "# descriptor 9; source this script from the process that must keep it\n");
	lw_sb_add(b, "exec 9> /dev/cpu_dma_latency && printf '0x%08x' ");
	lw_sb_quote(b, v);
	lw_sb_add(b, " >&9\n");
}

static void pmqos_cmdline(const struct lw_tune_sys *s, int l, struct lw_sb *b)
{
}

/* governor: performance on the measured CPUs */

static int gov_levels(const struct lw_tune_sys *s, char *why, size_t len)
{
	if (!s->cpufreq) {
		snprintf(why, len, "no cpufreq on the measured CPUs (%s" CPU_DIR "/cpuN/cpufreq: "
			 "none; virtual machines have none)", s->root);
		return 0;
	}
	if (!s->have_perf_gov) {
		snprintf(why, len, "no performance governor among the available ones");
		return 0;
	}
	return 1;
}

static void gov_describe(const struct lw_tune_sys *s, int l, char *buf, size_t len)
{
	char list[256];

	snprintf(buf, len, "cpufreq governor performance on CPU %s",
		 lw_format_cpulist(&s->measured, list, sizeof(list)));
}

static int gov_apply(const struct lw_tune_sys *s, int l, struct lw_knobs *k, char *done,
		     size_t len)
{
	char path[512];

	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &s->measured))
			continue;
		snprintf(path, sizeof(path), "%s" CPU_DIR "/cpu%d/cpufreq/scaling_governor",
			 s->root, c);
		if (lw_knob_write(k, path, "performance") < 0)
			return -1;
	}
	return 0;
}

static void gov_script(const struct lw_tune_sys *s, int l, struct lw_sb *b)
{
	char path[512];

	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &s->measured))
			continue;
		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/cpufreq/scaling_governor", c);
		add_write(b, "performance", path);
	}
}

static void gov_cmdline(const struct lw_tune_sys *s, int l, struct lw_sb *b)
{
	lw_sb_add(b, " cpufreq.default_governor=performance");
}

const struct lw_tunable lw_tunables[LW_TK_N] = {
	[LW_TK_IRQ] = { "irq", "IRQ affinity: every movable IRQ to the CPUs not measured", 0,
			irq_levels, irq_describe, irq_apply, irq_script, irq_cmdline, 0 },
	[LW_TK_TASKS] = { "tasks", "task affinity: every task that can move to the CPUs not "
			"measured", 0,
			tasks_levels, tasks_describe, tasks_apply, tasks_script, tasks_cmdline, 0 },
	[LW_TK_TIMER_MIGRATION] = { "timer_migration", "timer migration off "
			"(kernel.timer_migration = 0)", 0,
			tm_levels, tm_describe, tm_apply, tm_script, tm_cmdline, 0 },
	[LW_TK_RT_THROTTLE] = { "rt_throttle", "RT throttling off "
			"(kernel.sched_rt_runtime_us = -1)", 0,
			rt_levels, rt_describe, rt_apply, rt_script, rt_cmdline, 0 },
	[LW_TK_ISOLCPUS] = { "isolcpus", "isolcpus=CPUS at boot: the measured CPUs out of "
			"the scheduler's balancing", 0,
			boot_levels, isol_describe, boot_apply, isol_script, isol_cmdline, 1 },
	[LW_TK_NOHZ_FULL] = { "nohz_full", "nohz_full=CPUS at boot: no tick on the measured "
			"CPUs while one task runs", 0,
			boot_levels, nohz_describe, boot_apply, nohz_script, nohz_cmdline, 1 },
	[LW_TK_RCU_NOCBS] = { "rcu_nocbs", "rcu_nocbs=CPUS at boot: RCU callbacks off the "
			"measured CPUs", 0,
			boot_levels, nocb_describe, boot_apply, nocb_script, nocb_cmdline, 1 },
	[LW_TK_IRQAFFINITY] = { "irqaffinity", "irqaffinity=CPUS at boot: IRQs on the CPUs "
			"not measured", 0,
			boot_levels, irqa_describe, boot_apply, irqa_script, irqa_cmdline, 1 },
	[LW_TK_IDLE] = { "idle", "idle states disabled on the measured CPUs, deepest first", 1,
			idle_levels, idle_describe, idle_apply, idle_script, idle_cmdline, 0 },
	[LW_TK_PMQOS] = { "pmqos", "PM QoS (/dev/cpu_dma_latency) held under an idle state's "
			"exit latency, every CPU", 1,
			pmqos_levels, pmqos_describe, pmqos_apply, pmqos_script, pmqos_cmdline, 0 },
	[LW_TK_GOVERNOR] = { "governor", "cpufreq governor performance on the measured CPUs", 1,
			gov_levels, gov_describe, gov_apply, gov_script, gov_cmdline, 0 },
};

int lw_tunable_by_name(const char *name)
{
	for (int i = 0; i < LW_TK_N; i++)
		if (!strcmp(lw_tunables[i].name, name))
			return i;
	return -1;
}

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

int lw_tune_sys_read(struct lw_tune_sys *s, const char *root, const cpu_set_t *measured)
{
	char path[512], buf[256];
	int c0;
	DIR *d;
	struct dirent *e;

	memset(s, 0, sizeof(*s));
	snprintf(s->root, sizeof(s->root), "%s", root ? root : "");
	snprintf(path, sizeof(path), "%s" CPU_DIR "/online", s->root);
	if (lw_read_file(path, buf, sizeof(buf)) < 0)
		return error_errno("cannot read %s", path);
	if (lw_parse_cpulist(path, buf, NULL, &s->online) < 0)
		return -1;
	CPU_AND(&s->measured, measured, &s->online);
	c0 = first_measured(s);
	if (c0 < 0)
		return error("no online CPU among the measured ones");

	snprintf(path, sizeof(path), "%s" CPU_DIR "/cpuidle/current_driver", s->root);
	if (lw_read_file(path, s->driver, sizeof(s->driver)) < 0)
		snprintf(s->driver, sizeof(s->driver), "none");
	for (int st = 0; st < LW_TK_MAX_IDLE; st++) {
		snprintf(path, sizeof(path), "%s" CPU_DIR "/cpu%d/cpuidle/state%d/name", s->root,
			 c0, st);
		if (lw_read_file(path, s->idle_name[st], sizeof(s->idle_name[st])) < 0)
			break;
		snprintf(path, sizeof(path), "%s" CPU_DIR "/cpu%d/cpuidle/state%d/latency",
			 s->root, c0, st);
		s->idle_lat[st] = lw_read_file(path, buf, sizeof(buf)) < 0 ? 0 :
				  (unsigned)strtoul(buf, NULL, 10);
		s->nidle = st + 1;
	}

	snprintf(path, sizeof(path), "%s" CPU_DIR "/cpu%d/cpufreq/scaling_available_governors",
		 s->root, c0);
	if (lw_read_file(path, buf, sizeof(buf)) >= 0) {
		s->cpufreq = 1;
		s->have_perf_gov = strstr(buf, "performance") != NULL;
	}

	snprintf(path, sizeof(path), "%s/proc/sys/kernel/timer_migration", s->root);
	s->timer_migration = exists(path);
	snprintf(path, sizeof(path), "%s/proc/sys/kernel/sched_rt_runtime_us", s->root);
	s->rt_runtime = exists(path);

	snprintf(path, sizeof(path), "%s/proc/irq", s->root);
	d = opendir(path);
	while (d && (e = readdir(d)) && s->nirq < LW_TK_MAX_IRQ) {
		char *end;
		long n = strtol(e->d_name, &end, 10);

		if (end == e->d_name || *end || n < 0)
			continue;
		snprintf(path, sizeof(path), "%s/proc/irq/%ld/smp_affinity_list", s->root, n);
		if (exists(path))
			s->irq[s->nirq++] = (int)n;
	}
	if (d)
		closedir(d);
	/* in number order, so that the journal and the script read the same */
	for (int i = 1; i < s->nirq; i++)
		for (int j = i; j > 0 && s->irq[j - 1] > s->irq[j]; j--) {
			int t = s->irq[j];

			s->irq[j] = s->irq[j - 1];
			s->irq[j - 1] = t;
		}
	return 0;
}
