// SPDX-License-Identifier: GPL-2.0-only
/* External loads: the run participant that starts, supervises and stops them
 * (their specs: workloads/load_spec.c). */
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

/* ---- the participant ------------------------------------------------- */

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
	if (lw_load_is_rt_app(&l->s)) {
		const char *cfg = lw_load_rt_app_config(&l->s, what);

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
			const char *b = lw_load_base_name(l->s.argv[0]);
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
