// SPDX-License-Identifier: GPL-2.0-only
/* External loads: spec parsing, checks, and the run participant. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/input.h"
#include "lib/journal.h"
#include "lib/safefile.h"
#include "lib/spawn.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/sysfs.h"
#include "lib/timeutil.h"
#include "workloads/loads.h"

#define GRACE_NS	(3 * LW_NSEC_PER_SEC)	/* SIGTERM to SIGKILL */
#define POLL_NS		(20 * LW_NSEC_PER_MSEC)	/* monitor period */
#define MAX_RUNS_KEPT	256			/* per load in the manifest: the first
						   255 and the latest */

/* ---- spec parsing ---------------------------------------------------- */

static const struct {
	const char *program, *package;
} packages[] = {
	{ "stress-ng",  "stress-ng" },
	{ "hackbench",  "rt-tests" },
	{ "cyclictest", "rt-tests" },
	{ "oslat",      "rt-tests" },
	{ "rt-app",     "rt-app" },
	{ "iperf3",     "iperf3" },
	{ "fio",        "fio" },
};

const char *lw_load_package(const char *program)
{
	const char *base = strrchr(program, '/');

	base = base ? base + 1 : program;
	for (size_t i = 0; i < sizeof(packages) / sizeof(packages[0]); i++)
		if (!strcmp(base, packages[i].program))
			return packages[i].package;
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/*
 * Split @s into words in @out (at least strlen(s) + 1 bytes): blanks separate,
 * '…' and "…" quote, backslash escapes.  Fills @argv, NULL-terminated.
 */
static int split_words(const char *s, char *out, char **argv, int max, int *argc,
		       const char *what, const char *spec)
{
	const char *p = s;
	char *o = out;
	int n = 0;

	for (;;) {
		char quote = 0;
		int in_word = 0;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		if (n == max)
			return error("%s: more than %d words in '%s'", what, max, spec);
		argv[n] = o;
		while (*p) {
			if (quote) {
				if (*p == quote) {
					quote = 0;
				} else if (*p == '\\' && quote == '"' && p[1] && strchr("\"\\$`", p[1])) {
					*o++ = *++p;
				} else {
					*o++ = *p;
				}
				p++;
				continue;
			}
			if (*p == ' ' || *p == '\t' || *p == '\n')
				break;
			if (*p == '\'' || *p == '"') {
				quote = *p++;
				in_word = 1;
				continue;
			}
			if (*p == '\\') {
				if (!p[1])
					return error("%s: trailing backslash in '%s'", what, spec);
				p++;
			}
			*o++ = *p++;
			in_word = 1;
		}
		if (quote)
			return error("%s: unterminated %c quote in '%s'", what, quote, spec);
		(void)in_word;
		*o++ = 0;
		n++;
	}
	argv[n] = NULL;
	*argc = n;
	return 0;
}

static int parse_bool(const char *v, int *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1", NULL };
	static const char *const no[] = { "no", "false", "off", "0", NULL };

	for (int i = 0; yes[i]; i++)
		if (!strcasecmp(v, yes[i]))
			return *out = 1, 0;
	for (int i = 0; no[i]; i++)
		if (!strcasecmp(v, no[i]))
			return *out = 0, 0;
	return -1;
}

static int parse_int(const char *v, long min, long max, int *out)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(v, &end, 10);
	if (!*v || *end || errno || x < min || x > max)
		return -1;
	*out = (int)x;
	return 0;
}

static const struct {
	const char *name;
	int policy;
} policies[] = {
	{ "other", SCHED_OTHER }, { "batch", SCHED_BATCH }, { "idle", SCHED_IDLE },
	{ "fifo", SCHED_FIFO }, { "rr", SCHED_RR },
};

static const char *policy_name(int policy)
{
	switch (policy) {
	case SCHED_FIFO:  return "SCHED_FIFO";
	case SCHED_RR:    return "SCHED_RR";
	case SCHED_BATCH: return "SCHED_BATCH";
	case SCHED_IDLE:  return "SCHED_IDLE";
	default:          return "SCHED_OTHER";
	}
}

static int valid_name(const char *s)
{
	if (!*s || *s == '.' || strlen(s) >= 64)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._+-", *s))
			return 0;
	return 1;
}

/* A leading "key=value" word; @key gets the key (NUL-terminated). */
static int is_setting(const char *w, char *key, size_t len)
{
	size_t n = 0;

	while (w[n] && (islower((unsigned char)w[n]) || w[n] == '_'))
		n++;
	if (!n || w[n] != '=' || n >= len)
		return 0;
	memcpy(key, w, n);
	key[n] = 0;
	return 1;
}

int lw_load_spec_parse(struct lw_load_spec *ls, const char *spec, const char *what,
		       const cpu_set_t *online)
{
	char *words[LW_LOAD_MAX_ARGS + 16];
	int nwords, i, prio_given = 0, nice_given = 0;

	memset(ls, 0, sizeof(*ls));
	ls->policy = SCHED_OTHER;
	ls->words = malloc(strlen(spec) + 1);
	if (!ls->words)
		return error("out of memory");
	if (split_words(spec, ls->words, words, LW_LOAD_MAX_ARGS + 15, &nwords, what, spec) < 0)
		return -1;
	for (i = 0; i < nwords; i++) {
		char key[32];
		const char *v;

		if (!is_setting(words[i], key, sizeof(key)))
			break;
		v = words[i] + strlen(key) + 1;
		if (!strcmp(key, "name")) {
			if (!valid_name(v))
				return error("%s: name '%s': use letters, digits and ._+- "
					     "(at most 63)", what, v);
			strcpy(ls->name, v);
		} else if (!strcmp(key, "cpus")) {
			char w[64];

			snprintf(w, sizeof(w), "%s: cpus", what);
			if (lw_parse_cpulist(w, v, online, &ls->cpus) < 0)
				return -1;
			ls->cpus_given = 1;
		} else if (!strcmp(key, "policy")) {
			size_t k;

			for (k = 0; k < sizeof(policies) / sizeof(policies[0]); k++)
				if (!strcmp(v, policies[k].name))
					break;
			if (k == sizeof(policies) / sizeof(policies[0]))
				return error("%s: policy '%s' is not one of: other, batch, idle, "
					     "fifo, rr", what, v);
			ls->policy = policies[k].policy;
		} else if (!strcmp(key, "prio")) {
			if (parse_int(v, 1, 99, &ls->prio) < 0)
				return error("%s: prio '%s': must be 1 to 99", what, v);
			prio_given = 1;
		} else if (!strcmp(key, "nice")) {
			if (parse_int(v, -20, 19, &ls->nice) < 0)
				return error("%s: nice '%s': must be -20 to 19", what, v);
			nice_given = 1;
		} else if (!strcmp(key, "restart")) {
			if (parse_bool(v, &ls->restart) < 0)
				return error("%s: restart '%s': yes or no", what, v);
		} else {
			return error("%s: unknown setting '%s' (name, cpus, policy, prio, nice, "
				     "restart) before the program in '%s'", what, key, spec);
		}
	}
	if (i == nwords)
		return error("%s: no program to run in '%s' (e.g. 'stress-ng --cpu 1')", what,
			     spec);
	if (nwords - i > LW_LOAD_MAX_ARGS)
		return error("%s: more than %d arguments in '%s'", what, LW_LOAD_MAX_ARGS, spec);
	if (ls->policy == SCHED_FIFO || ls->policy == SCHED_RR) {
		if (!prio_given)
			return error("%s: policy %s needs prio=1..99", what,
				     ls->policy == SCHED_FIFO ? "fifo" : "rr");
		if (nice_given)
			return error("%s: nice applies to policy other, batch or idle", what);
	} else if (prio_given) {
		return error("%s: prio applies to policy fifo or rr (give policy=fifo)", what);
	}
	for (ls->argc = 0; i < nwords; i++)
		ls->argv[ls->argc++] = words[i];
	ls->argv[ls->argc] = NULL;
	if (!*ls->argv[0])
		return error("%s: empty program name in '%s'", what, spec);
	if (!ls->name[0] && !valid_name(base_name(ls->argv[0])))
		return error("%s: give the load a name=NAME ('%s' cannot name a log file)", what,
			     base_name(ls->argv[0]));
	return 0;
}

void lw_load_spec_free(struct lw_load_spec *ls)
{
	free(ls->words);
	ls->words = NULL;
}

char *lw_load_format_argv(char *const *argv, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; argv[i] && n + 1 < len; i++) {
		const char *a = argv[i];
		int plain = *a != 0;

		for (const char *c = a; *c; c++)
			if (!isalnum((unsigned char)*c) && !strchr("-_./=:,+@%", *c))
				plain = 0;
		if (i)
			buf[n++] = ' ';
		if (plain) {
			n += (size_t)snprintf(buf + n, len - n, "%s", a);
		} else {
			buf[n++] = '\'';
			for (const char *c = a; *c && n + 5 < len; c++) {
				if (*c == '\'') {
					memcpy(buf + n, "'\\''", 4);
					n += 4;
				} else {
					buf[n++] = *c;
				}
			}
			if (n + 1 < len)
				buf[n++] = '\'';
		}
		if (n >= len)
			n = len - 1;
		buf[n] = 0;
	}
	return buf;
}

/* ---- checks that look at the system ---------------------------------- */

int lw_load_which(const char *program, char *buf, size_t len, const char *what)
{
	const char *pkg = lw_load_package(program);
	char hint[128] = "";

	if (pkg)
		snprintf(hint, sizeof(hint), " (install the Debian package %s)", pkg);
	if (strchr(program, '/')) {
		if (access(program, X_OK) < 0)
			return error("%s: %s: %s%s", what, program, strerror(errno), hint);
		if (!realpath(program, buf))
			return error_errno("%s: %s", what, program);
		return 0;
	}
	/* absolute entries of PATH only, the program and its folder held to
	 * the owner rule of lib/input.h: it runs as root */
	switch (lw_in_which(program, buf, len)) {
	case 0:
		return 0;
	case 1:
		return error("%s: %s not found in PATH%s", what, program, hint);
	default:
		return error("%s: %s: not run from a folder of PATH that others control", what,
			     program);
	}
}

static int is_rt_app(const struct lw_load_spec *ls)
{
	return !strcmp(base_name(ls->argv[0]), "rt-app");
}

/* The configuration file argument of rt-app: its one non-option argument. */
static const char *rt_app_config(const struct lw_load_spec *ls, const char *what)
{
	const char *file = NULL;

	for (int i = 1; i < ls->argc; i++) {
		if (ls->argv[i][0] == '-')
			continue;
		if (file) {
			error("%s: rt-app takes one JSON file, got '%s' and '%s'", what, file,
			      ls->argv[i]);
			return NULL;
		}
		file = ls->argv[i];
	}
	if (!file)
		error("%s: rt-app needs its JSON file (rt-app FILE.json)", what);
	return file;
}

int lw_load_spec_check(const struct lw_load_spec *ls, const char *what)
{
	char path[PATH_MAX];
	int q;

	if (lw_load_which(ls->argv[0], path, sizeof(path), what) < 0)
		return -1;
	if (is_rt_app(ls)) {
		const char *file = rt_app_config(ls, what);
		json_t *cfg;

		if (!file)
			return -1;
		q = lw_set_quiet(1);
		cfg = lw_json_load(file);
		lw_set_quiet(q);
		if (!cfg) {
			char msg[512];

			snprintf(msg, sizeof(msg), "%s", lw_last_error());
			return error("%s: rt-app file %s", what, msg);
		}
		if (!json_is_object(json_object_get(cfg, "tasks"))) {
			json_decref(cfg);
			return error("%s: %s has no \"tasks\" object (not an rt-app file)", what,
				     file);
		}
		json_decref(cfg);
	}
	return 0;
}

static int rt_policy_of(const char *s)
{
	if (!s)
		return SCHED_OTHER;
	if (!strcmp(s, "SCHED_FIFO"))
		return SCHED_FIFO;
	if (!strcmp(s, "SCHED_RR"))
		return SCHED_RR;
	if (!strcmp(s, "SCHED_DEADLINE"))
		return SCHED_DEADLINE;
	return SCHED_OTHER;
}

/* Union of the "cpus" arrays of a task and its phases. */
static int rt_app_cpus(json_t *task, cpu_set_t *set)
{
	json_t *arrays[64], *phases = json_object_get(task, "phases"), *ph;
	const char *k;
	int n = 0, any = 0;

	arrays[n++] = json_object_get(task, "cpus");
	json_object_foreach(phases, k, ph)
		if (n < 64)
			arrays[n++] = json_object_get(ph, "cpus");
	CPU_ZERO(set);
	for (int i = 0; i < n; i++) {
		size_t j;
		json_t *c;

		json_array_foreach(arrays[i], j, c) {
			json_int_t cpu = json_integer_value(c);

			if (json_is_integer(c) && cpu >= 0 && cpu < CPU_SETSIZE) {
				CPU_SET((int)cpu, set);
				any = 1;
			}
		}
	}
	return any;
}

int lw_load_rt_threads(const struct lw_load_spec *ls, const cpu_set_t *online,
		       int (*fn)(const struct lw_load_rt *rt, void *arg), void *arg)
{
	struct lw_load_rt rt;
	char who[160];
	const char *name = ls->name[0] ? ls->name : base_name(ls->argv[0]);
	cpu_set_t base = ls->cpus_given ? ls->cpus : *online;

	rt.who = who;
	if (is_rt_app(ls)) {
		const char *file = rt_app_config(ls, "--load");
		json_t *cfg, *tasks, *task;
		const char *def, *tname;
		int ret = 0;

		if (!file || !(cfg = lw_json_load(file)))
			return -1;
		def = json_string_value(json_object_get(json_object_get(cfg, "global"),
							"default_policy"));
		tasks = json_object_get(cfg, "tasks");
		json_object_foreach(tasks, tname, task) {
			const char *pol = json_string_value(json_object_get(task, "policy"));
			json_t *pr = json_object_get(task, "priority");

			rt.policy = rt_policy_of(pol ? pol : def);
			if (rt.policy != SCHED_FIFO && rt.policy != SCHED_RR)
				continue;
			rt.prio = json_is_integer(pr) ? (int)json_integer_value(pr) : 10;
			if (!rt_app_cpus(task, &rt.cpus))
				rt.cpus = base;
			rt.busy = 0;
			snprintf(who, sizeof(who), "load %s: rt-app task %s", name, tname);
			ret = fn(&rt, arg);
			if (ret < 0)
				break;
		}
		json_decref(cfg);
		return ret;
	}

	rt.cpus = base;
	rt.busy = 1;
	if (ls->policy == SCHED_FIFO || ls->policy == SCHED_RR) {
		rt.policy = ls->policy;
		rt.prio = ls->prio;
		snprintf(who, sizeof(who), "load %s (policy=%s prio=%d)", name,
			 ls->policy == SCHED_FIFO ? "fifo" : "rr", ls->prio);
		if (fn(&rt, arg) < 0)
			return -1;
	}
	/* stress-ng --sched fifo|rr [--sched-prio N]: its stressors run so. */
	if (!strcmp(base_name(ls->argv[0]), "stress-ng")) {
		const char *sched = NULL;
		int prio = 99;

		for (int i = 1; i < ls->argc; i++) {
			const char *a = ls->argv[i], *v = NULL;

			if (!strncmp(a, "--sched=", 8))
				sched = a + 8;
			else if (!strcmp(a, "--sched") && i + 1 < ls->argc)
				sched = ls->argv[++i];
			else if (!strncmp(a, "--sched-prio=", 13))
				v = a + 13;
			else if (!strcmp(a, "--sched-prio") && i + 1 < ls->argc)
				v = ls->argv[++i];
			if (v && parse_int(v, 0, 99, &prio) < 0)
				prio = 99;
		}
		if (sched && (!strcmp(sched, "fifo") || !strcmp(sched, "rr"))) {
			rt.policy = !strcmp(sched, "fifo") ? SCHED_FIFO : SCHED_RR;
			rt.prio = prio;
			snprintf(who, sizeof(who), "load %s (stress-ng --sched %s --sched-prio %d)",
				 name, sched, prio);
			if (fn(&rt, arg) < 0)
				return -1;
		}
	}
	return 0;
}

/* ---- the participant ------------------------------------------------- */

struct load_run {
	pid_t pid;
	uint64_t start_ns, end_ns;
	int status;			/* waitpid status */
	int ended;
	int stopped;			/* ended after our SIGTERM/SIGKILL */
};

struct load {
	struct lw_load_spec s;
	const char *spec;
	char path[PATH_MAX];		/* resolved program */
	char *argv[LW_LOAD_MAX_ARGS + 1];	/* what is executed (rt-app: the copy) */
	char config_copy[PATH_MAX];	/* rt-app: RUN/loads/NAME.json */
	int log_fd;
	char log_rel[128];

	/* current process group; 0 when not running */
	pid_t pid;
	int stopping;
	/* every group ever started, reaped in stop() */
	pid_t *groups;
	int ngroups, groups_cap;

	struct load_run runs[MAX_RUNS_KEPT];
	int nruns;			/* kept */
	uint64_t starts;		/* including those not kept */
	int failed;			/* ended by itself with a failure */
	int last_status;		/* of the last leader that ended */
};

struct loads {
	struct lw_part part;
	struct load *l;
	int n;
	int no_rt;
	cpu_set_t online;
	struct lw_run *run;
	char dir[PATH_MAX];		/* RUN/loads */
	int dfd;			/* RUN/loads, made in the run's directory */
	char cg[PATH_MAX];		/* our cgroup v2 for the loads, "" if none */
	int cg_fd;			/* its cgroup.procs, for the children */
	pthread_t monitor;
	int monitor_running;
	_Atomic int quit;
	_Atomic int up;			/* loads running, for the progress line */
};

static int add_group(struct load *l, pid_t pgid)
{
	if (l->ngroups == l->groups_cap) {
		int cap = l->groups_cap ? l->groups_cap * 2 : 8;
		pid_t *g = realloc(l->groups, (size_t)cap * sizeof(*g));

		if (!g)
			return -1;
		l->groups = g;
		l->groups_cap = cap;
	}
	l->groups[l->ngroups++] = pgid;
	return 0;
}

static void log_line(struct load *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void log_line(struct load *l, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = (int)sizeof(buf) - 1;
	if (write(l->log_fd, buf, (size_t)n) < 0) {
		/* the log is best effort; the manifest has the record */
	}
}

/* What the child sets for itself after the common steps of lib/spawn
 * (async-signal-safe calls only: we forked a threaded process); 0, or the
 * step of step_names[] that failed, with errno. */
struct child_arg {
	const struct loads *ls;
	const struct load *l;
};

static int child_setup(void *arg)
{
	const struct child_arg *a = arg;
	const struct load *l = a->l;
	struct sched_param sp = { .sched_priority = 0 };

	if (l->s.cpus_given && sched_setaffinity(0, sizeof(l->s.cpus), &l->s.cpus) < 0)
		return 5;
	if ((l->s.policy == SCHED_FIFO || l->s.policy == SCHED_RR) && !a->ls->no_rt) {
		sp.sched_priority = l->s.prio;
		if (sched_setscheduler(0, l->s.policy, &sp) < 0)
			return 6;
	} else if (l->s.policy == SCHED_BATCH || l->s.policy == SCHED_IDLE) {
		if (sched_setscheduler(0, l->s.policy, &sp) < 0)
			return 6;
	}
	if (l->s.nice && setpriority(PRIO_PROCESS, 0, l->s.nice) < 0)
		return 7;
	return 0;
}

static const char *const step_names[] = {
	"", "cannot create its process group", "cannot set its parent-death signal",
	"cannot redirect its output", "cannot enter the run directory",
	"cannot set its CPU affinity", "cannot set its scheduling policy",
	"cannot set its nice value", "cannot execute", "cannot enter the loads' cgroup",
};

/* lib/spawn's steps as step_names[] numbers them */
static const int spawn_steps[] = {
	[LW_CHILD_CGROUP] = 9, [LW_CHILD_PGROUP] = 1, [LW_CHILD_PDEATHSIG] = 2,
	[LW_CHILD_REDIRECT] = 3, [LW_CHILD_CHDIR] = 4, [LW_CHILD_EXEC] = 8,
};

/* Start one instance of @l; 0 or -1 after error(). */
static int spawn(struct lw_run *run, struct loads *ls, struct load *l)
{
	/*
	 * Into the loads' cgroup first (all it starts, setsid or not, stays
	 * in), a process group of its own, SIGTERM when latwatt dies, output
	 * into its log, in RUN/loads, and nothing else of ours goes with it: a
	 * descriptor of the trace (which libtracefs opens without O_CLOEXEC)
	 * held by a load, or by what it left behind with setsid, would keep
	 * the run's trace instance busy after the run.
	 */
	struct child_arg arg = { ls, l };
	struct lw_child c = {
		.argv = (const char *const *)l->argv, .path = l->path,
		.in = LW_CHILD_NULL, .out = l->log_fd, .err = l->log_fd,
		.pgroup = 1, .pdeathsig = SIGTERM, .cgroup_fd = ls->cg_fd > 0 ? ls->cg_fd : 0,
		.dir_fd = ls->dfd, .close_fds = 1, .sig_default = LW_SIG_BIT(SIGPIPE),
		.setup = child_setup, .setup_arg = &arg, .quiet = 1,
	};
	char cmd[4096];
	pid_t pid;
	int step;

	log_line(l, "# latwatt: start %llu at %llu ns: %s\n", (unsigned long long)l->starts + 1,
		 (unsigned long long)lw_mono_ns(), lw_load_format_argv(l->argv, cmd, sizeof(cmd)));
	if (lw_child_start(&c) < 0) {
		if (c.fail_step == LW_CHILD_FORK)
			return error_errno("load %s: cannot fork", l->s.name);
		step = c.fail_step == LW_CHILD_SETUP ? c.fail_setup : spawn_steps[c.fail_step];
		if (step == 6 && errno == EPERM)
			return error("load %s: cannot run %s at priority %d: %s (run as root, "
				     "or drop policy=)", l->s.name, policy_name(l->s.policy),
				     l->s.prio, strerror(errno));
		return error_errno("load %s: %s %s", l->s.name,
				   step_names[step > 0 && step <= 9 ? step : 8], l->path);
	}
	pid = c.pid;
	if (add_group(l, pid) < 0) {
		kill(-pid, SIGKILL);
		lw_child_wait(&c);
		return error("out of memory");
	}
	l->pid = pid;
	l->starts++;
	{
		/* The first runs, and always the latest in the last slot. */
		struct load_run *r = &l->runs[l->nruns < MAX_RUNS_KEPT ? l->nruns++ :
					       MAX_RUNS_KEPT - 1];

		memset(r, 0, sizeof(*r));
		r->pid = pid;
		r->start_ns = lw_mono_ns() - run->start_mono;
	}
	atomic_fetch_add(&ls->up, 1);
	return 0;
}

static struct load_run *current_run(struct load *l)
{
	if (l->nruns && l->runs[l->nruns - 1].pid == l->pid && !l->runs[l->nruns - 1].ended)
		return &l->runs[l->nruns - 1];
	return NULL;
}

/* The leader of @l ended with @st. */
static void leader_ended(struct lw_run *run, struct loads *ls, struct load *l, int st)
{
	struct load_run *r = current_run(l);
	char how[96];

	if (r) {
		r->ended = 1;
		r->status = st;
		r->end_ns = lw_mono_ns() - run->start_mono;
		r->stopped = l->stopping;
	}
	l->pid = 0;
	l->last_status = st;
	atomic_fetch_sub(&ls->up, 1);
	lw_child_describe(st, how, sizeof(how));
	log_line(l, "# latwatt: %s %s at %llu ns\n", l->s.argv[0], how,
		 (unsigned long long)lw_mono_ns());
}

/* Reap whatever of the groups of @l has ended, without waiting. */
static void reap_groups(struct lw_run *run, struct loads *ls, struct load *l)
{
	for (int g = 0; g < l->ngroups; g++) {
		pid_t pgid = l->groups[g], pid;
		int st;

		if (!pgid)
			continue;
		while ((pid = lw_child_reap_group(pgid, &st, 1)) > 0)
			if (pid == l->pid)
				leader_ended(run, ls, l, st);
		if (pid < 0 && errno == ECHILD)
			l->groups[g] = 0;	/* nothing of it is left */
	}
}

static void *monitor_main(void *arg)
{
	struct loads *ls = arg;
	struct lw_run *run = ls->run;
	struct timespec ts = lw_ns_to_ts(POLL_NS);

	pthread_setname_np(pthread_self(), "lw-loads");
	while (!atomic_load(&ls->quit)) {
		for (int i = 0; i < ls->n; i++) {
			struct load *l = &ls->l[i];
			pid_t leader = l->pid;
			int st;
			char how[96], why[400];

			reap_groups(run, ls, l);
			if (!leader || l->pid)
				continue;
			/* The leader ended by itself: end what it left behind. */
			kill(-leader, SIGTERM);
			st = l->last_status;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
				if (l->s.restart && !lw_run_stopping(run) && spawn(run, ls, l) < 0)
					lw_run_request_stop(run, LW_STOP_ERROR, lw_last_error());
				continue;
			}
			l->failed = 1;
			lw_child_describe(st, how, sizeof(how));
			snprintf(why, sizeof(why), "load %s %s (see %s)", l->s.name, how, l->log_rel);
			lw_run_request_stop(run, LW_STOP_ERROR, why);
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static int groups_left(struct load *l)
{
	for (int g = 0; g < l->ngroups; g++)
		if (l->groups[g])
			return 1;
	return 0;
}

/*
 * SIGTERM to each load's leader, which stops what it started the way the
 * tool means to (stress-ng takes half a second more when each of its
 * processes gets the signal itself); SIGTERM to what is left of a group once
 * its leader is gone; SIGKILL to every group after the grace period; reap all.
 */
static void stop_all(struct lw_run *run, struct loads *ls)
{
	uint64_t deadline;
	struct timespec ts = lw_ns_to_ts(5 * LW_NSEC_PER_MSEC);
	int left;

	for (int i = 0; i < ls->n; i++) {
		struct load *l = &ls->l[i];

		l->stopping = 1;
		for (int g = 0; g < l->ngroups; g++)
			if (l->groups[g])
				kill(l->groups[g] == l->pid ? l->pid : -l->groups[g], SIGTERM);
	}
	deadline = lw_mono_ns() + GRACE_NS;
	do {
		left = 0;
		for (int i = 0; i < ls->n; i++) {
			struct load *l = &ls->l[i];
			pid_t leader = l->pid;

			reap_groups(run, ls, l);
			if (leader && !l->pid)
				kill(-leader, SIGTERM);	/* what the leader left behind */
			left += groups_left(l);
		}
		if (left)
			nanosleep(&ts, NULL);
	} while (left && lw_mono_ns() < deadline);

	for (int i = 0; i < ls->n; i++) {
		struct load *l = &ls->l[i];

		for (int g = 0; g < l->ngroups; g++) {
			pid_t pgid = l->groups[g], pid;
			int st;

			if (!pgid)
				continue;
			log_line(l, "# latwatt: group %d still running after SIGTERM, SIGKILL\n",
				 (int)pgid);
			kill(-pgid, SIGKILL);
			while ((pid = lw_child_reap_group(pgid, &st, 0)) > 0)
				if (pid == l->pid)
					leader_ended(run, ls, l, st);
			l->groups[g] = 0;
		}
	}
}

/*
 * A cgroup v2 of the run's own for its loads, a child of latwatt's: what a
 * load starts stays in it, also a setsid'd daemon that left the load's
 * process group, and cgroup.kill ends all of it, at the end of the run or,
 * after a SIGKILL, from the journal ('latwatt cleanup', the next run).
 * Without cgroup v2 (or where latwatt may not make one) the process groups
 * alone are stopped.
 */
static int make_cgroup(struct lw_run *run, struct loads *ls)
{
	char line[PATH_MAX], file[PATH_MAX + 32], mnt[PATH_MAX] = "", *self = NULL;
	FILE *f = fopen("/proc/mounts", "re");
	int q;

	ls->cg[0] = 0;
	/* cgroup v2 at /sys/fs/cgroup, or beside v1 (/sys/fs/cgroup/unified) */
	while (f && fgets(line, sizeof(line), f)) {
		char dev[64], dir[PATH_MAX], type[32];

		if (sscanf(line, "%63s %4095s %31s", dev, dir, type) == 3 && !strcmp(type, "cgroup2") &&
		    !strncmp(dir, "/sys/fs/cgroup", 14) && !strchr(dir, '\\')) {
			snprintf(mnt, sizeof(mnt), "%s", dir);
			break;
		}
	}
	if (f)
		fclose(f);
	f = mnt[0] ? fopen("/proc/self/cgroup", "re") : NULL;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			self = line + 3;
			break;
		}
	fclose(f);
	if (!self)
		return 0;	/* no cgroup v2 */
	if ((size_t)snprintf(ls->cg, sizeof(ls->cg), "%s%s/latwatt-loads-%d", mnt,
			     strcmp(self, "/") ? self : "", (int)getpid()) >= sizeof(ls->cg)) {
		ls->cg[0] = 0;
		return 0;
	}
	if (lw_journal_add(&run->journal, "cgroups", ls->cg) < 0) {
		ls->cg[0] = 0;
		return -1;
	}
	if (access(ls->cg, F_OK) == 0) {	/* our pid, a killed run's cgroup */
		q = lw_set_quiet(1);
		lw_cgroup_kill_remove(ls->cg);
		lw_set_quiet(q);
	}
	if (mkdir(ls->cg, 0755) < 0) {
		if (geteuid() == 0)
			note("loads: no cgroup of their own (%s: %s): what they start outside "
			     "their process groups is not stopped with them", ls->cg,
			     strerror(errno));
		ls->cg[0] = 0;
		return 0;
	}
	snprintf(file, sizeof(file), "%s/cgroup.procs", ls->cg);
	ls->cg_fd = open(file, O_WRONLY | O_CLOEXEC);
	if (ls->cg_fd < 0) {
		int err = errno;

		rmdir(ls->cg);
		errno = err;
		return error_errno("cannot open %s", file);
	}
	json_object_set_new(lw_json_object_at(run->dir.manifest, "loads_control"), "cgroup",
			    json_string(ls->cg));
	return 0;
}

/* End what is left in the loads' cgroup (SIGTERM, a moment, then
 * cgroup.kill), reap what of it was ours, remove the cgroup. */
static void end_cgroup(struct loads *ls)
{
	char file[PATH_MAX + 32], buf[256];
	pid_t pids[256];
	int n = 0;
	FILE *f;

	if (!ls->cg[0])
		return;
	if (ls->cg_fd >= 0)
		close(ls->cg_fd);
	ls->cg_fd = -1;
	snprintf(file, sizeof(file), "%s/cgroup.procs", ls->cg);
	if ((f = fopen(file, "re"))) {
		long pid;

		while (n < 256 && fscanf(f, "%ld", &pid) == 1) {
			pids[n++] = (pid_t)pid;
			kill((pid_t)pid, SIGTERM);
		}
		fclose(f);
	}
	snprintf(file, sizeof(file), "%s/cgroup.events", ls->cg);
	for (int i = 0; n && i < 50; i++) {	/* up to half a second */
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (lw_read_file(file, buf, sizeof(buf)) >= 0 && strstr(buf, "populated 0"))
			break;
		nanosleep(&ts, NULL);
	}
	if (lw_cgroup_kill_remove(ls->cg) < 0)
		warning("the loads' cgroup %s is left for 'latwatt cleanup'", ls->cg);
	/* orphans reparented to us (we are their subreaper) */
	for (int i = 0; i < n; i++)
		lw_child_reap_nohang(pids[i]);
	ls->cg[0] = 0;
}

static void loads_stop(struct lw_run *run, struct lw_part *p)
{
	struct loads *ls = p->priv;

	if (ls->monitor_running) {
		atomic_store(&ls->quit, 1);
		pthread_join(ls->monitor, NULL);
		ls->monitor_running = 0;
	}
	stop_all(run, ls);
	end_cgroup(ls);
}

/* Files, resolved program, argv: everything before the first fork. */
static int prepare(struct lw_run *run, struct loads *ls, struct load *l)
{
	char what[96], file[PATH_MAX];
	int i;

	snprintf(what, sizeof(what), "load %s", l->s.name);
	if (lw_load_spec_check(&l->s, what) < 0 ||
	    lw_load_which(l->s.argv[0], l->path, sizeof(l->path), what) < 0)
		return -1;
	for (i = 0; i < l->s.argc; i++)
		l->argv[i] = l->s.argv[i];
	l->argv[i] = NULL;
	if (is_rt_app(&l->s)) {
		const char *cfg = rt_app_config(&l->s, what);

		if ((size_t)snprintf(l->config_copy, sizeof(l->config_copy), "%s/%.63s.json", ls->dir,
				     l->s.name) >= sizeof(l->config_copy))
			return error("%s: path too long", ls->dir);
		if (!cfg || lw_copy_file_at(cfg, LW_CAP_JSON, ls->dfd, l->config_copy) < 0)
			return -1;
		for (i = 1; i < l->s.argc; i++)
			if (l->argv[i] == cfg)
				l->argv[i] = l->config_copy;
	}
	snprintf(l->log_rel, sizeof(l->log_rel), "loads/%s.log", l->s.name);
	lw_rundir_file(&run->dir, l->log_rel, file, sizeof(file));
	l->log_fd = lw_create_at(ls->dfd, file, 0644, O_WRONLY | O_APPEND);
	if (l->log_fd < 0)
		return -1;
	return 0;
}

static int loads_start(struct lw_run *run, struct lw_part *p)
{
	struct loads *ls = p->priv;
	int i;

	ls->run = run;
	lw_rundir_file(&run->dir, "loads", ls->dir, sizeof(ls->dir));
	ls->dfd = lw_mkdir_at(run->dir.dfd, ls->dir, 0755);
	if (ls->dfd < 0)
		return -1;
	/* Orphans of a load (its leader died first) are reparented to us. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		return error_errno("cannot become a child subreaper for the loads");
	if (make_cgroup(run, ls) < 0)
		return -1;
	for (i = 0; i < ls->n; i++)
		if (prepare(run, ls, &ls->l[i]) < 0)
			goto fail;
	for (i = 0; i < ls->n; i++)
		if (spawn(run, ls, &ls->l[i]) < 0)
			goto fail;
	if (pthread_create(&ls->monitor, NULL, monitor_main, ls)) {
		error("cannot start the load monitor thread");
		goto fail;
	}
	ls->monitor_running = 1;
	return 0;
fail:
	stop_all(run, ls);
	end_cgroup(ls);
	return -1;
}

static json_t *runs_json(const struct load *l)
{
	json_t *a = json_array();

	for (int i = 0; i < l->nruns; i++) {
		const struct load_run *r = &l->runs[i];
		json_t *o = json_pack("{s:i, s:I}", "pid", (int)r->pid,
				      "start_ns", (json_int_t)r->start_ns);

		if (r->ended) {
			json_object_set_new(o, "end_ns", json_integer((json_int_t)r->end_ns));
			if (WIFEXITED(r->status))
				json_object_set_new(o, "exit_status",
						    json_integer(WEXITSTATUS(r->status)));
			else if (WIFSIGNALED(r->status))
				json_object_set_new(o, "signal", json_string(
					sigabbrev_np(WTERMSIG(r->status)) ?
					sigabbrev_np(WTERMSIG(r->status)) : "?"));
			json_object_set_new(o, "stopped_by_latwatt", json_boolean(r->stopped));
		}
		json_array_append_new(a, o);
	}
	return a;
}

static int loads_finish(struct lw_run *run, struct lw_part *p)
{
	struct loads *ls = p->priv;
	json_t *arr = json_array();

	for (int i = 0; i < ls->n; i++) {
		struct load *l = &ls->l[i];
		json_t *argv = json_array(), *o;
		char cmd[4096], cpus[256];
		const char *pkg = lw_load_package(l->s.argv[0]);
		int rt = l->s.policy == SCHED_FIFO || l->s.policy == SCHED_RR;

		for (int k = 0; l->argv[k]; k++)
			json_array_append_new(argv, json_string(l->argv[k]));
		o = json_pack("{s:s, s:s, s:o, s:s, s:s, s:o, s:s, s:s, s:i, s:i, s:b, s:s, s:I, s:o}",
			"name", l->s.name,
			"spec", l->spec,
			"argv", argv,
			"command", lw_load_format_argv(l->argv, cmd, sizeof(cmd)),
			"path", l->path,
			"package", pkg ? json_string(pkg) : json_null(),
			"cpus", lw_format_cpulist(l->s.cpus_given ? &l->s.cpus : &ls->online,
						  cpus, sizeof(cpus)),
			"policy", policy_name(rt && ls->no_rt ? SCHED_OTHER : l->s.policy),
			"priority", rt && !ls->no_rt ? l->s.prio : 0,
			"nice", l->s.nice,
			"restart", l->s.restart,
			"log", l->log_rel,
			"starts", (json_int_t)l->starts,
			"runs", runs_json(l));
		if (l->config_copy[0])
			json_object_set_new(o, "config", json_sprintf("loads/%s.json", l->s.name));
		if (l->starts > (uint64_t)l->nruns)
			json_object_set_new(o, "runs_not_kept",
					    json_integer((json_int_t)(l->starts - (uint64_t)l->nruns)));
		json_array_append_new(arr, o);
		if (!l->failed && l->nruns && l->runs[l->nruns - 1].ended &&
		    !l->runs[l->nruns - 1].stopped && !l->s.restart)
			warning("load %s ended before the run did (see %s)", l->s.name, l->log_rel);
	}
	json_object_set_new(run->dir.manifest, "loads", arr);
	return 0;
}

static void loads_progress(struct lw_run *run, struct lw_part *p, char *buf, size_t len)
{
	struct loads *ls = p->priv;

	snprintf(buf, len, "loads %d/%d", atomic_load(&ls->up), ls->n);
}

static void loads_destroy(struct lw_part *p)
{
	struct loads *ls = p->priv;

	for (int i = 0; i < ls->n; i++) {
		if (ls->l[i].log_fd >= 0)
			close(ls->l[i].log_fd);
		free(ls->l[i].groups);
		lw_load_spec_free(&ls->l[i].s);
	}
	if (ls->dfd >= 0)
		close(ls->dfd);
	free(ls->l);
	free(ls);
}

struct lw_part *lw_loads_new(const char *const *specs, int n, const cpu_set_t *online, int no_rt)
{
	struct loads *ls = calloc(1, sizeof(*ls));

	if (!ls || !(ls->l = calloc((size_t)(n ? n : 1), sizeof(*ls->l)))) {
		free(ls);
		error("out of memory");
		return NULL;
	}
	ls->online = *online;
	ls->no_rt = no_rt;
	ls->cg_fd = ls->dfd = -1;
	ls->part = (struct lw_part){
		.name = "loads",
		.start = loads_start,
		.stop = loads_stop,
		.finish = loads_finish,
		.progress = loads_progress,
		.destroy = loads_destroy,
		.priv = ls,
	};
	for (int i = 0; i < n; i++) {
		struct load *l = &ls->l[i];

		l->log_fd = -1;
		l->spec = specs[i];
		ls->n = i + 1;
		if (lw_load_spec_parse(&l->s, specs[i], "--load", online) < 0)
			goto fail;
		if (!l->s.name[0]) {
			const char *b = base_name(l->s.argv[0]);
			int k = 1;

			snprintf(l->s.name, sizeof(l->s.name), "%s", b);
			/* NAME, NAME-2, NAME-3 ... unique among the loads */
			for (int j = 0; j < i; j++)
				if (!strcmp(ls->l[j].s.name, l->s.name)) {
					snprintf(l->s.name, sizeof(l->s.name), "%.50s-%d", b, ++k);
					j = -1;
				}
		} else {
			for (int j = 0; j < i; j++)
				if (!strcmp(ls->l[j].s.name, l->s.name)) {
					error("--load: two loads named '%s'", l->s.name);
					goto fail;
				}
		}
	}
	return &ls->part;
fail:
	loads_destroy(&ls->part);
	return NULL;
}
