// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "lib/error.h"
#include "lib/journal.h"
#include "lib/parse.h"
#include "lib/sysfs.h"
#include "lib/writer.h"
#include "lib/safefile.h"

#define JOURNAL_SCHEMA "latwatt-journal"

/* Is the run @pid (started at @start) still running?  When in doubt (its
 * start time unreadable), yes: undoing a live run's state would break it. */
static int alive(long pid, unsigned long long start)
{
	unsigned long long now;

	if (pid <= 0)
		return 0;
	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return 0;
	now = lw_proc_starttime(pid);
	return !start || !now || now == start;
}

/* The state directory, created if missing, checked (owned by us, closed
 * to others) whatever its state; a descriptor or -1 (quiet when @quiet). */
static int state_dir(int create, int quiet)
{
	const char *slash = strrchr(LW_STATE_DIR, '/');
	int q = quiet ? lw_set_quiet(1) : 0, dfd;

	if (!create && access(LW_STATE_DIR, F_OK) < 0) {
		if (quiet)
			lw_set_quiet(q);
		errno = ENOENT;
		return -1;
	}
	dfd = lw_dir_walk(LW_STATE_DIR, (size_t)(slash - LW_STATE_DIR), 0700);
	if (quiet)
		lw_set_quiet(q);
	return dfd;
}

static int save(struct lw_journal *j)
{
	struct lw_atomic a;
	FILE *f = lw_atomic_fopen(&a, j->path, 0600);

	if (!f)
		return -1;
	if (json_dumpf(j->doc, f, JSON_COMPACT) < 0) {
		lw_atomic_abort(&a);
		return error("cannot write %s", j->path);
	}
	return lw_atomic_commit(&a);
}

int lw_journal_begin(struct lw_journal *j, const char *rundir)
{
	char abs[PATH_MAX];
	int dfd;

	memset(j, 0, sizeof(*j));
	dfd = state_dir(1, geteuid() != 0);
	if (dfd < 0) {
		if (geteuid() == 0)
			warning("no restore journal in %s: a run killed with SIGKILL leaves its "
				"kernel settings for 'latwatt cleanup' to find by name only",
				LW_STATE_DIR);
		return 0;
	}
	close(dfd);
	/* only an absolute name: a replay from elsewhere must not take a
	 * relative one to mean its own directory */
	if (!realpath(rundir, abs))
		abs[0] = 0;
	snprintf(j->path, sizeof(j->path), "%s/run-%ld.json", LW_STATE_DIR, (long)getpid());
	j->doc = json_pack("{s:s, s:i, s:I, s:I, s:s, s:[], s:[], s:[], s:[]}", "schema",
			   JOURNAL_SCHEMA, "version", 1, "pid", (json_int_t)getpid(),
			   "starttime", (json_int_t)lw_proc_starttime(getpid()), "rundir", abs,
			   "knobs", "instances", "cgroups", "tasks");
	if (!j->doc) {
		j->path[0] = 0;
		return error("out of memory");
	}
	if (save(j) < 0) {
		json_decref(j->doc);
		j->doc = NULL;
		j->path[0] = 0;
		return -1;
	}
	return 0;
}

int lw_journal_knob(struct lw_journal *j, const char *path, const char *orig)
{
	if (!j || !j->doc)
		return 0;
	json_array_append_new(json_object_get(j->doc, "knobs"), json_pack("[s, s]", path, orig));
	return save(j);
}

int lw_journal_add(struct lw_journal *j, const char *list, const char *name)
{
	if (!j || !j->doc)
		return 0;
	json_array_append_new(json_object_get(j->doc, list), json_string(name));
	return save(j);
}

int lw_journal_tasks(struct lw_journal *j, json_t *items)
{
	if (!j || !j->doc) {
		json_decref(items);
		return 0;
	}
	json_array_extend(json_object_get(j->doc, "tasks"), items);
	json_decref(items);
	return save(j);
}

void lw_journal_end(struct lw_journal *j)
{
	if (j->path[0] && unlink(j->path) < 0 && errno != ENOENT)
		error_errno("cannot remove %s", j->path);
	json_decref(j->doc);
	j->doc = NULL;
	j->path[0] = 0;
}

/* ---- one run at a time ---------------------------------------------------- */

#define RUN_LOCK "run.lock"
static int run_lock_fd = -1;

/* Who holds the run lock open at @fd: its pid from the kernel, its run
 * directory from what it wrote into the file. */
static int refuse_live(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char buf[PATH_MAX + 256];
	const char *dir = NULL;
	json_t *who = NULL;
	ssize_t n;
	int ret;

	if (fcntl(fd, F_GETLK, &fl) < 0 || fl.l_type == F_UNLCK)
		fl.l_pid = 0;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n > 0) {
		buf[n] = 0;
		who = json_loads(buf, 0, NULL);
		if (json_integer_value(json_object_get(who, "pid")) == fl.l_pid)
			dir = json_string_value(json_object_get(who, "output"));
	}
	if (fl.l_pid > 0)
		ret = error("another run is live on this machine (pid %ld%s%s): two runs at once "
			    "would restore each other's kernel settings; wait for it to end",
			    (long)fl.l_pid, dir ? ", run directory " : "", dir ? dir : "");
	else
		ret = error("another run is live on this machine: two runs at once would restore "
			    "each other's kernel settings; wait for it to end");
	json_decref(who);
	return ret;
}

int lw_run_lock(const char *output)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char abs[2 * PATH_MAX], cwd[PATH_MAX], *txt;
	struct stat st;
	int sdfd, fd;
	json_t *who;

	if (run_lock_fd >= 0)
		return 0;
	sdfd = state_dir(1, 1);
	if (sdfd < 0) {
		if (geteuid() == 0)
			warning("no run lock in %s: a run started beside this one would not be "
				"refused", LW_STATE_DIR);
		return 0;
	}
	fd = lw_open_beneath(sdfd, RUN_LOCK, O_RDWR | O_CREAT, 0600);
	close(sdfd);
	if (fd < 0)
		return error_errno("cannot open %s/%s", LW_STATE_DIR, RUN_LOCK);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_nlink != 1) {
		close(fd);
		return error("%s/%s is not a regular file of uid %u with one link: refusing it",
			     LW_STATE_DIR, RUN_LOCK, (unsigned)geteuid());
	}
	if (fcntl(fd, F_SETLK, &fl) < 0) {
		int ret = errno == EACCES || errno == EAGAIN ? refuse_live(fd) :
			  error_errno("cannot lock %s/%s", LW_STATE_DIR, RUN_LOCK);

		close(fd);
		return ret;
	}
	/* the run directory, as an absolute name (it may not be there yet) */
	abs[0] = 0;
	if (output && output[0] != '/' && getcwd(cwd, sizeof(cwd)))
		snprintf(abs, sizeof(abs), "%s/%s", cwd, output);
	else if (output)
		snprintf(abs, sizeof(abs), "%s", output);
	who = json_pack("{s:I, s:I, s:s}", "pid", (json_int_t)getpid(),
			"starttime", (json_int_t)lw_proc_starttime(getpid()), "output", abs);
	txt = who ? json_dumps(who, JSON_COMPACT) : NULL;
	if (!txt || ftruncate(fd, 0) < 0 || pwrite(fd, txt, strlen(txt), 0) < 0)
		warning("cannot write who holds %s/%s", LW_STATE_DIR, RUN_LOCK);
	free(txt);
	json_decref(who);
	run_lock_fd = fd;
	return 0;
}

void lw_run_unlock(void)
{
	if (run_lock_fd < 0)
		return;
	if (ftruncate(run_lock_fd, 0) < 0) {
		/* the next holder rewrites it */
	}
	close(run_lock_fd);	/* the lock with it */
	run_lock_fd = -1;
}

/* ---- replay ------------------------------------------------------------ */

/* What a replay undid, kept in the state directory (LW_STATE_DIR/replay.log,
 * restarted past REPLAY_LOG_MAX): a file that vanished from a run directory
 * can be traced to the process that removed it. */
#define REPLAY_LOG_MAX (256 * 1024)
static FILE *replay_log;
static int replay_logging;	/* in a replay that undoes: log on first use */

static void log_open(void)
{
	char path[sizeof(LW_STATE_DIR) + 16];
	struct stat st;
	int created, q = lw_set_quiet(1);

	snprintf(path, sizeof(path), "%s/replay.log", LW_STATE_DIR);
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > REPLAY_LOG_MAX)
		unlink(path);
	replay_log = lw_fappend(path, 0600, &created);
	lw_set_quiet(q);
}

static void say(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(FILE *out, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (out)
		fprintf(out, "%s\n", buf);
	else
		note("%s", buf);
	if (replay_logging && !replay_log)
		log_open();
	if (replay_log) {
		struct timespec ts;
		char cmd[64] = "";

		clock_gettime(CLOCK_REALTIME, &ts);
		if (lw_read_file("/proc/self/comm", cmd, sizeof(cmd)) >= 0)
			cmd[strcspn(cmd, "\n")] = 0;
		fprintf(replay_log, "%lld.%03ld pid %ld (%s): %s\n", (long long)ts.tv_sec,
			ts.tv_nsec / 1000000, (long)getpid(), cmd, buf);
		fflush(replay_log);
	}
}

static int prefixed(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

int lw_cgroup_kill_remove(const char *path)
{
	char file[PATH_MAX], buf[64];
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	snprintf(file, sizeof(file), "%s/cgroup.kill", path);
	if (access(file, F_OK) == 0) {
		if (lw_write_file(file, "1") < 0)
			return -1;
	} else {	/* before Linux 5.14: every process, until none is left */
		snprintf(file, sizeof(file), "%s/cgroup.procs", path);
		for (int round = 0; round < 100; round++) {
			FILE *f = fopen(file, "re");
			long pid;
			int n = 0;

			if (!f)
				break;
			while (fscanf(f, "%ld", &pid) == 1) {
				kill((pid_t)pid, SIGKILL);
				n++;
			}
			fclose(f);
			if (!n)
				break;
			nanosleep(&ts, NULL);
		}
	}
	/* rmdir succeeds once the last process is gone */
	for (int i = 0; i < 200; i++) {
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		snprintf(file, sizeof(file), "%s/cgroup.events", path);
		if (lw_read_file(file, buf, sizeof(buf)) < 0)
			break;
		nanosleep(&ts, NULL);
	}
	return error_errno("cannot remove cgroup %s", path);
}

static int remove_instance(const char *name)
{
	struct tracefs_instance *inst;
	int ret = 0;

	if (!tracefs_instance_exists(name))
		return 0;
	inst = tracefs_instance_alloc(NULL, name);
	if (!inst)
		return error_errno("cannot open trace instance %s", name);
	tracefs_tracer_clear(inst);	/* timerlat: stop the tracer first */
	if (tracefs_instance_destroy(inst) < 0)
		ret = error_errno("cannot remove trace instance %s", name);
	tracefs_instance_free(inst);
	return ret < 0 ? -1 : 1;
}

int lw_rundir_remove_cpu_files(const char *rundir, FILE *out, int dry_run)
{
	int q = lw_set_quiet(1), dfd = lw_dir_open(rundir, 0), n = 0;
	struct dirent *e;
	DIR *d;

	lw_set_quiet(q);
	if (dfd < 0)
		return 0;	/* gone, or not ours to clean */
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return error_errno("cannot read %s", rundir);
	}
	while ((e = readdir(d))) {
		const char *p = e->d_name;

		const char *t = strstr(p, ".tmp.");

		/* .trace-cpuN, and NAME.tmp.XXXXXXXXXXXX of a write cut short */
		if (!(prefixed(p, ".trace-cpu") && p[10] && strspn(p + 10, "0123456789") == strlen(p + 10)) &&
		    !(t && t > p && strlen(t + 5) == 12 && strspn(t + 5, "0123456789abcdef") == 12))
			continue;
		if (dry_run || unlinkat(dfd, p, 0) == 0) {
			say(out, "%s %s/%s", dry_run ? "would remove" : "removed", rundir, p);
			n++;
		}
	}
	closedir(d);
	return n;
}

static int replay_one(int sdfd, const char *name, FILE *out, int dry_run)
{
	int fd = openat(sdfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), failed = 0;
	const char *rundir;
	json_t *doc, *knobs, *tasks, *v;
	json_error_t err;
	struct stat st;
	long pid;
	size_t i;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		close(fd);
		return error("%s/%s: not a journal of uid %u: left alone", LW_STATE_DIR, name,
			     (unsigned)geteuid());
	}
	doc = json_loadfd(fd, 0, &err);
	close(fd);
	if (!doc || strcmp(json_string_value(json_object_get(doc, "schema")) ?: "", JOURNAL_SCHEMA)) {
		json_decref(doc);
		/* a journal cut short: its run was killed while writing it, and
		 * what it was about to change is not changed yet */
		if (!dry_run)
			unlinkat(sdfd, name, 0);
		return 0;
	}
	pid = (long)json_integer_value(json_object_get(doc, "pid"));
	if (alive(pid, (unsigned long long)json_integer_value(json_object_get(doc, "starttime")))) {
		json_decref(doc);
		return 0;
	}
	say(out, "%s what run %ld left (it is gone):", dry_run ? "would undo" : "undoing", pid);
	knobs = json_object_get(doc, "knobs");
	for (i = json_array_size(knobs); i-- > 0;) {
		const char *path = json_string_value(json_array_get(json_array_get(knobs, i), 0));
		const char *orig = json_string_value(json_array_get(json_array_get(knobs, i), 1));

		if (!path || !orig || (!prefixed(path, "/proc/sys/") && !prefixed(path, "/sys/")) ||
		    strstr(path, "/../") || access(path, F_OK) < 0)
			continue;	/* gone with what it belonged to: nothing to restore */
		if (!dry_run && lw_write_file(path, orig) < 0) {
			failed++;
			continue;
		}
		say(out, "  %s %s to '%s'", dry_run ? "would restore" : "restored", path, orig);
	}
	tasks = json_object_get(doc, "tasks");	/* none in journals before it */
	for (i = json_array_size(tasks); i-- > 0;) {
		json_t *t = json_array_get(tasks, i);
		json_int_t tid = json_integer_value(json_array_get(t, 0));
		unsigned long long start = (unsigned long long)json_integer_value(json_array_get(t, 1));
		const char *list = json_string_value(json_array_get(t, 2));
		cpu_set_t set;
		int q;

		if (tid <= 0 || tid > INT_MAX || !start || !list ||
		    lw_proc_starttime((long)tid) != start)
			continue;	/* gone (or its tid is another task's): nothing to set back */
		q = lw_set_quiet(1);
		if (lw_parse_cpulist("journal", list, NULL, &set) < 0) {
			lw_set_quiet(q);
			continue;
		}
		lw_set_quiet(q);
		if (!dry_run && sched_setaffinity((pid_t)tid, sizeof(set), &set) < 0) {
			if (errno == ESRCH)
				continue;
			error_errno("cannot set the CPU affinity of task %lld back to %s",
				    (long long)tid, list);
			failed++;
			continue;
		}
		say(out, "  %s task %lld's CPU affinity to %s", dry_run ? "would set" : "set",
		    (long long)tid, list);
	}
	json_array_foreach(json_object_get(doc, "cgroups"), i, v) {
		const char *path = json_string_value(v);

		if (!path || !prefixed(path, "/sys/fs/cgroup/") || strstr(path, "/../") ||
		    access(path, F_OK) < 0)
			continue;
		if (!dry_run && lw_cgroup_kill_remove(path) < 0) {
			failed++;
			continue;
		}
		say(out, "  %s cgroup %s and what ran in it", dry_run ? "would kill" : "killed", path);
	}
	/* the recorder's and the timerlat and hwnoise probes' instances are named after the
	 * run's pid: not journaled one by one */
	json_array_append_new(json_object_get(doc, "instances"), json_sprintf("latwatt-%ld", pid));
	json_array_append_new(json_object_get(doc, "instances"),
			      json_sprintf("latwatt-timerlat-%ld", pid));
	json_array_append_new(json_object_get(doc, "instances"),
			      json_sprintf("latwatt-hwnoise-%ld", pid));
	json_array_foreach(json_object_get(doc, "instances"), i, v) {
		const char *inst = json_string_value(v);
		int r;

		if (!inst || !prefixed(inst, "latwatt-") || strchr(inst, '/'))
			continue;
		r = dry_run ? tracefs_instance_exists(inst) : remove_instance(inst);
		if (r < 0)
			failed++;
		else if (r > 0)
			say(out, "  %s trace instance %s (process %ld is gone)",
			    dry_run ? "would remove" : "removed", inst, pid);
	}
	/* its files, unless a live run writes into the same directory now (a
	 * run started again with --force where one was killed) */
	rundir = json_string_value(json_object_get(doc, "rundir"));
	if (rundir && rundir[0] == '/' && lw_journal_rundir_live(rundir))
		say(out, "  left %s alone: a live run writes into it", rundir);
	else if (rundir && rundir[0] == '/') {
		char msg[512];
		int r, untidy = 0;

		/* Bookkeeping of the run's own files, not the kernel's state: a
		 * directory that cannot be tidied (gone, replaced by a symlink,
		 * which is never followed) is said once and left; the journal
		 * goes all the same, or every later run would say it again. */
		if (lw_rundir_remove_cpu_files(rundir, out, dry_run) < 0)
			untidy = 1;
		/* its manifest, which still says running */
		r = lw_manifest_mark_killed(rundir, pid, "cleanup", dry_run, msg, sizeof(msg));
		if (r < 0)
			untidy = 1;
		else if (r > 0)
			say(out, "  %s", msg);
		if (untidy)
			say(out, "  left %s as it is (see above): the kernel's state is what a "
			    "journal restores", rundir);
	}
	json_decref(doc);
	if (!dry_run && !failed && unlinkat(sdfd, name, 0) < 0)
		failed++;
	return failed ? -1 : 1;
}

/* run-PID.json.tmp.XXXXXXXXXXXX: a journal write cut short by a SIGKILL.
 * What it was about to record was not changed yet (the journal is written
 * before each change): once its run is gone, it goes. */
static int remove_cut_short(int sdfd, const char *name, FILE *out, int dry_run)
{
	int fd = openat(sdfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	long pid = strtol(name + 4, NULL, 10);
	json_t *doc;
	struct stat st;
	int n = 0;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return 0;	/* not ours: left alone */
	}
	doc = json_loadfd(fd, 0, NULL);
	close(fd);
	if (!alive(pid, (unsigned long long)json_integer_value(json_object_get(doc, "starttime"))) &&
	    (dry_run || unlinkat(sdfd, name, 0) == 0)) {
		say(out, "%s %s/%s (a journal write of run %ld cut short)",
		    dry_run ? "would remove" : "removed", LW_STATE_DIR, name, pid);
		n = 1;
	}
	json_decref(doc);
	return n;
}

int lw_journal_replay(FILE *out, int dry_run)
{
	int sdfd = state_dir(0, 1), n = 0, failed = 0;
	struct dirent *e;
	DIR *d;

	if (sdfd < 0)
		return errno == ENOENT || errno == EACCES ? 0 : -1;
	d = fdopendir(dup(sdfd));
	if (!d) {
		close(sdfd);
		return error_errno("cannot read %s", LW_STATE_DIR);
	}
	replay_logging = !dry_run;
	while ((e = readdir(d))) {
		int r;

		if (!prefixed(e->d_name, "run-") || !strstr(e->d_name, ".json"))
			continue;
		if (strstr(e->d_name, ".tmp.")) {
			n += remove_cut_short(sdfd, e->d_name, out, dry_run);
			continue;
		}
		r = replay_one(sdfd, e->d_name, out, dry_run);
		if (r < 0)
			failed++;
		else
			n += r;
	}
	if (replay_log)
		fclose(replay_log);
	replay_log = NULL;
	replay_logging = 0;
	closedir(d);
	close(sdfd);
	return failed ? -1 : n;
}

int lw_journal_rundir_live(const char *rundir)
{
	char abs[PATH_MAX];
	int sdfd = state_dir(0, 1), live = 0;
	struct dirent *e;
	DIR *d;

	if (sdfd < 0 || !realpath(rundir, abs)) {
		if (sdfd >= 0)
			close(sdfd);
		return 0;
	}
	d = fdopendir(sdfd);
	if (!d) {
		close(sdfd);
		return 0;
	}
	while (!live && (e = readdir(d))) {
		int fd;
		json_t *doc;

		if (!prefixed(e->d_name, "run-") || strstr(e->d_name, ".tmp."))
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		doc = json_loadfd(fd, 0, NULL);
		close(fd);
		live = doc && !strcmp(json_string_value(json_object_get(doc, "rundir")) ?: "", abs) &&
		       alive((long)json_integer_value(json_object_get(doc, "pid")),
			     (unsigned long long)json_integer_value(json_object_get(doc, "starttime")));
		json_decref(doc);
	}
	closedir(d);
	return live;
}
