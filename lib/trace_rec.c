// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <tracefs.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/safefile.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/sysfs.h"
#include "lib/thread.h"
#include "lib/timeutil.h"
#include "lib/trace_rec.h"
#include "lib/tracedat.h"

/* The reader thread sleeps until the ring is this full (instance knob). */
#define BUFFER_PERCENT "10"
/* Reader threads are not realtime, but favoured over a load's tasks so that
 * a busy system does not starve them into losing events. */
#define READER_NICE    (-10)
#define IDLE_RETRY_NS  (10 * LW_NSEC_PER_MSEC)

const char *const lw_trace_default_events[] = {
	"sched:sched_switch", "sched:sched_wakeup", "sched:sched_waking",
	"sched:sched_migrate_task",
	"irq:irq_handler_entry", "irq:irq_handler_exit",
	"irq:softirq_entry", "irq:softirq_exit", "irq:softirq_raise",
	/* x86 vectors that bypass irq_handler_entry: the local timer and IPIs */
	"irq_vectors:local_timer_entry", "irq_vectors:local_timer_exit",
	"irq_vectors:reschedule_entry", "irq_vectors:reschedule_exit",
	"irq_vectors:call_function_entry", "irq_vectors:call_function_exit",
	"irq_vectors:call_function_single_entry", "irq_vectors:call_function_single_exit",
	"irq_vectors:irq_work_entry", "irq_vectors:irq_work_exit",
	"ipi:ipi_raise", "ipi:ipi_entry", "ipi:ipi_exit",
	"ipi:ipi_send_cpu", "ipi:ipi_send_cpumask",
	"timer:hrtimer_expire_entry", "timer:hrtimer_expire_exit", "timer:tick_stop",
	"power:cpu_idle", "power:cpu_frequency",
	"workqueue:workqueue_execute_start", "workqueue:workqueue_execute_end",
	NULL,
};

/* The threads whose wake-ups --stacks records a stack at: the probes' and
 * the workloads' realtime threads (names set in probes/ and workloads/). */
static const char *const stack_comms[] = {
	"lw-cyclic/*", "timerlat/*", "lw-timerlat*", "lw-audio*", "lw-video*", NULL,
};

/* The stacktrace triggers of --stacks: at the wake-up of one of those threads
 * (the code the waking interrupt found running) and at the switch to it (the
 * task leaving the CPU, where it left it); never from the idle task. */
static const struct { const char *event, *comm, *pid; } stack_triggers[] = {
	{ "sched/sched_waking", "comm", "common_pid" },
	{ "sched/sched_switch", "next_comm", "prev_pid" },
};

struct tcpu_ctx {
	struct trace_rec *tr;
	int cpu;
	struct tracefs_cpu *tcpu;
	int fd;				/* RUN/.trace-cpuN */
	char path[PATH_MAX + 128];
	pthread_t tid;
	int created;
	_Atomic uint64_t bytes;
	int err;			/* errno of a failed read */
	struct lw_blob stats;		/* per_cpu/cpuN/stats at the end */
	struct lw_page_scan scan;
	int scanned;
	off_t wstart;			/* monitor: where the window being saved began */
	uint64_t wfirst;		/* its first page's timestamp, 0: none yet */
};

/* A window of the trace saved around the monitor's spikes. */
struct mwin { uint64_t from_ns, to_ns, bytes; };

struct trace_rec {
	struct lw_part part;
	struct lw_trace_opts o;
	int prepared;			/* the instance is set up (lw_trace_new) */
	int active;			/* tracing in this run */
	char off_reason[PATH_MAX + 256];
	const char *tdir;		/* the tracing directory */
	char name[64];			/* instance name */
	char idir[PATH_MAX];		/* instance directory */
	struct tracefs_instance *inst;
	int ncpu;
	struct tcpu_ctx *c;
	char **enabled, **missing;
	int nenabled, nmissing;
	int stacks;			/* the --stacks triggers are set */
	struct lw_tracedat hdr;
	int long_size;
	int saved_marker_fd;		/* the run's marker fd before ours */
	int dfd;			/* the run directory's (borrowed) */
	int marker_fd, off_fd;
	uint64_t start_ns, stop_ns;
	_Atomic int quit;
	int threads;			/* reader threads were started */
	int removed;
	char rm_error[256];

	/* monitor mode: the writer's thread saves windows, the main thread
	 * stops; the lock keeps them apart */
	pthread_mutex_t lock;
	int stopping;
	struct lw_monitor_trace *mt;
	unsigned char *page, *hold;	/* one sub-buffer each */
	struct mwin *win;
	size_t nwin, capwin;
	uint64_t win_over_cap, win_empty, win_failed;
};

/* ---- small helpers ---- */

static int push_str(char ***v, int *n, const char *s)
{
	char **nv;

	for (int i = 0; i < *n; i++)
		if (!strcmp((*v)[i], s))
			return 0;
	nv = realloc(*v, (size_t)(*n + 1) * sizeof(*nv));
	if (!nv)
		return -1;
	*v = nv;
	if (!((*v)[*n] = strdup(s)))
		return -1;
	(*n)++;
	return 0;
}

static void free_strv(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int valid_name(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
			return 0;
	return 1;
}

int lw_trace_check_list(const char *what, const char *list)
{
	const char *p = list;

	if (!*list)
		return error("%s: empty event list", what);
	while (*p) {
		size_t n = strcspn(p, ",");
		const char *colon = memchr(p, ':', n);

		if (n == 7 && !strncmp(p, "default", 7)) {
			/* the default set */
		} else if (!colon || !valid_name(p, (size_t)(colon - p)) ||
			   (!(colon + 2 == p + n && colon[1] == '*') &&
			    !valid_name(colon + 1, (size_t)(p + n - colon - 1)))) {
			return error("%s: '%.*s' is not an event (SYSTEM:EVENT, SYSTEM:* or "
				     "default)", what, (int)n, p);
		}
		p += n;
		if (*p == ',') {
			p++;
			if (!*p)
				return error("%s: list ends with a comma", what);
		}
	}
	return 0;
}

static uint64_t stat_value(const char *stats, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = stats; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ':')
			return strtoull(p + klen + 1, NULL, 10);
	return 0;
}

static int inst_write(struct trace_rec *tr, const char *file, const char *value)
{
	char path[sizeof(tr->idir) + 1024];

	snprintf(path, sizeof(path), "%s/%s", tr->idir, file);
	return lw_write_file(path, value);
}

/* ---- event list ---- */

static int event_exists(struct trace_rec *tr, const char *sys, const char *ev)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tr->tdir, sys, ev);
	return access(path, R_OK) == 0;
}

static int enable_one(struct trace_rec *tr, const char *sys, const char *ev, int quiet_missing)
{
	char file[512], name[512];
	struct lw_blob fmt;

	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	if (!event_exists(tr, sys, ev)) {
		if (!quiet_missing)
			warning("trace: event %s does not exist in this kernel: skipped", name);
		return push_str(&tr->missing, &tr->nmissing, name);
	}
	for (int i = 0; i < tr->nenabled; i++)
		if (!strcmp(tr->enabled[i], name))
			return 0;
	snprintf(file, sizeof(file), "events/%s/%s/enable", sys, ev);
	if (inst_write(tr, file, "1") < 0) {
		warning("trace: cannot enable %s: skipped", name);
		return push_str(&tr->missing, &tr->nmissing, name);
	}
	snprintf(file, sizeof(file), "%s/events/%s/%s/format", tr->tdir, sys, ev);
	if (lw_blob_read(&fmt, file) < 0)
		return error_errno("cannot read %s", file);
	if (lw_tracedat_add_format(&tr->hdr, sys, &fmt) < 0) {
		lw_blob_free(&fmt);
		return error("out of memory");
	}
	return push_str(&tr->enabled, &tr->nenabled, name);
}

static int enable_system(struct trace_rec *tr, const char *sys)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int ret = 0, n = 0;

	snprintf(path, sizeof(path), "%s/events/%s", tr->tdir, sys);
	d = opendir(path);
	if (!d) {
		char name[300];

		warning("trace: event system %s does not exist in this kernel: skipped", sys);
		snprintf(name, sizeof(name), "%s:*", sys);
		return push_str(&tr->missing, &tr->nmissing, name);
	}
	while (!ret && (de = readdir(d)))
		if (de->d_name[0] != '.' && event_exists(tr, sys, de->d_name)) {
			ret = enable_one(tr, sys, de->d_name, 0);
			n++;
		}
	closedir(d);
	return ret;
}

static int enable_events(struct trace_rec *tr)
{
	const char *list = tr->o.events ? tr->o.events : "default";
	char *copy = strdup(list), *save = NULL;
	int ret = 0;

	if (!copy)
		return error("out of memory");
	for (char *tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');

		if (!strcmp(tok, "default")) {
			for (int i = 0; lw_trace_default_events[i] && !ret; i++) {
				char buf[128], *c;

				snprintf(buf, sizeof(buf), "%s", lw_trace_default_events[i]);
				c = strchr(buf, ':');
				*c = 0;
				ret = enable_one(tr, buf, c + 1, 1);
			}
		} else if (colon) {
			*colon = 0;
			ret = strcmp(colon + 1, "*") ? enable_one(tr, tok, colon + 1, 0)
						     : enable_system(tr, tok);
		}
	}
	free(copy);
	return ret;
}

/* --stacks: a stacktrace trigger on each of stack_triggers[] (its events
 * enabled); the stacks land in the instance's buffer as ftrace:kernel_stack,
 * right after the event that took them.  A kernel that refuses them: a
 * warning, and the run goes on without. */
static void set_stack_triggers(struct trace_rec *tr)
{
	for (size_t i = 0; i < sizeof(stack_triggers) / sizeof(stack_triggers[0]); i++) {
		char file[256], filter[512];
		size_t n;

		n = (size_t)snprintf(filter, sizeof(filter), "stacktrace if (");
		for (int j = 0; stack_comms[j]; j++)
			n += (size_t)snprintf(filter + n, sizeof(filter) - n, "%s%s ~ \"%s\"",
					      j ? " || " : "", stack_triggers[i].comm, stack_comms[j]);
		snprintf(filter + n, sizeof(filter) - n, ") && %s != 0", stack_triggers[i].pid);
		snprintf(file, sizeof(file), "events/%s/trigger", stack_triggers[i].event);
		if (inst_write(tr, file, filter) < 0) {
			warning("trace: cannot set a stacktrace trigger on %s: no stacks in this run",
				stack_triggers[i].event);
			return;
		}
	}
	tr->stacks = 1;
}

static int read_ftrace_formats(struct trace_rec *tr)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/events/ftrace", tr->tdir);
	d = opendir(path);
	if (!d)
		return error_errno("cannot open %s", path);
	while ((de = readdir(d))) {
		struct lw_blob fmt, *nf;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/ftrace/%s/format", tr->tdir, de->d_name);
		if (lw_blob_read(&fmt, path) < 0)
			continue;	/* "enable", "filter": not events */
		nf = realloc(tr->hdr.ftrace, (size_t)(tr->hdr.nftrace + 1) * sizeof(*nf));
		if (!nf) {
			lw_blob_free(&fmt);
			closedir(d);
			return error("out of memory");
		}
		tr->hdr.ftrace = nf;
		tr->hdr.ftrace[tr->hdr.nftrace++] = fmt;
	}
	closedir(d);
	return 0;
}

/* ---- reading the rings ---- */

/* Whatever the ring still holds: whole sub-buffers by splice, then the
 * partly filled one by read().  Called once tracing is off (or ending). */
static void drain_rest(struct tcpu_ctx *c)
{
	int n;

	while ((n = tracefs_cpu_write(c->tcpu, c->fd, true)) > 0)
		atomic_fetch_add(&c->bytes, (uint64_t)n);
	while ((n = tracefs_cpu_flush_write(c->tcpu, c->fd)) > 0)
		atomic_fetch_add(&c->bytes, (uint64_t)n);
	if (n < 0 && errno != EAGAIN && errno != EINTR && !c->err)
		c->err = errno;
}

static void *reader_main(void *arg)
{
	struct tcpu_ctx *c = arg;
	struct trace_rec *tr = c->tr;
	char name[16];

	snprintf(name, sizeof(name), "lw-trace/%d", c->cpu);
	pthread_setname_np(pthread_self(), name);
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), READER_NICE) < 0) {
		/* not allowed (no CAP_SYS_NICE): nice 0 */
	}
	for (;;) {
		int n = tracefs_cpu_write(c->tcpu, c->fd, false);

		if (n > 0) {
			atomic_fetch_add_explicit(&c->bytes, (uint64_t)n, memory_order_relaxed);
			continue;
		}
		if (atomic_load(&tr->quit))
			break;
		if (n < 0 && errno != EINTR && errno != EAGAIN) {
			c->err = errno;
			break;
		}
		/* woken without a whole sub-buffer to take: do not spin */
		struct timespec ts = lw_ns_to_ts(IDLE_RETRY_NS);
		nanosleep(&ts, NULL);
	}
	drain_rest(c);
	return NULL;
}

/* ---- setup and teardown of the instance ---- */

/* The trace buffers' readers; with @files, the CPU files too (finish reads
 * them through these descriptors, never reopening them by name). */
static void close_cpus(struct trace_rec *tr, int files)
{
	for (int i = 0; i < tr->ncpu; i++) {
		struct tcpu_ctx *c = &tr->c[i];

		if (c->tcpu)
			tracefs_cpu_close(c->tcpu);
		c->tcpu = NULL;
		if (files) {
			if (c->fd >= 0)
				close(c->fd);
			c->fd = -1;
		}
	}
}

static void remove_instance(struct trace_rec *tr)
{
	if (!tr->inst)
		return;
	if (tracefs_instance_destroy(tr->inst) < 0 && access(tr->idir, F_OK) == 0) {
		snprintf(tr->rm_error, sizeof(tr->rm_error), "%s", strerror(errno));
		warning("cannot remove trace instance %s: %s (run 'latwatt cleanup')",
			tr->name, tr->rm_error);
	} else {
		tr->removed = 1;
	}
	tracefs_instance_free(tr->inst);
	tr->inst = NULL;
}

static void unlink_temp(struct trace_rec *tr)
{
	for (int i = 0; i < tr->ncpu; i++) {
		const char *base = strrchr(tr->c[i].path, '/');

		if (tr->c[i].path[0] && tr->dfd >= 0)
			unlinkat(tr->dfd, base ? base + 1 : tr->c[i].path, 0);
	}
}

/* Usable tracefs?  NULL, or why not.  The mount table is read first, and
 * libtracefs asked only when tracefs is usable: libtracefs 1.6 leaks a copy
 * of the tracing path at calls where it cannot validate the one it cached
 * (as when not root). */
static const char *tracefs_unusable(struct trace_rec *tr, char *buf, size_t len)
{
	char path[PATH_MAX] = "";
	struct mntent *me;
	FILE *f = setmntent("/proc/mounts", "r");

	while (f && (me = getmntent(f)))
		if (!strcmp(me->mnt_type, "tracefs")) {
			snprintf(path, sizeof(path), "%s/instances", me->mnt_dir);
			if (access(path, F_OK) == 0)
				break;
		}
	if (f)
		endmntent(f);
	if (!path[0])
		return "tracefs is not mounted";
	if (access(path, W_OK) < 0) {
		snprintf(buf, len, "cannot create trace instances in %s: %s", path, strerror(errno));
		return buf;
	}
	tr->tdir = tracefs_tracing_dir();
	return tr->tdir ? NULL : "tracefs is not mounted";
}

/* The instance, configured: done when the participant is made, before the
 * run's clock starts (setting the trace clock and the ring size takes tens of
 * milliseconds, which would otherwise be taken from the probes' duration). */
static int setup_instance(struct trace_rec *tr)
{
	char path[PATH_MAX + 64], kb[32];
	struct utsname un;

	snprintf(tr->name, sizeof(tr->name), LW_TRACE_INSTANCE_PREFIX "%d", (int)getpid());
	snprintf(tr->idir, sizeof(tr->idir), "%s/instances/%s", tr->tdir, tr->name);
	if (access(tr->idir, F_OK) == 0) {
		/* our pid, not our instance: left by a killed run long ago */
		struct tracefs_instance *old = tracefs_instance_alloc(NULL, tr->name);

		note("removing the stale trace instance %s", tr->name);
		if (old) {
			tracefs_instance_destroy(old);
			tracefs_instance_free(old);
		}
	}
	tr->inst = tracefs_instance_create(tr->name);
	if (!tr->inst || !tracefs_instance_is_new(tr->inst))
		return error_errno("cannot create the trace instance %s", tr->idir);

	if (inst_write(tr, "tracing_on", "0") < 0 || inst_write(tr, "trace_clock", "mono") < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/trace_clock", tr->idir);
	if (lw_blob_read(&tr->hdr.clock, path) < 0)
		return error_errno("cannot read %s", path);
	while (tr->hdr.clock.len && tr->hdr.clock.data[tr->hdr.clock.len - 1] == '\n')
		tr->hdr.clock.data[--tr->hdr.clock.len] = 0;
	if (!strstr(tr->hdr.clock.data, "[mono]"))
		return error("%s: the trace clock did not switch to mono (%s)", path,
			     tr->hdr.clock.data);
	snprintf(kb, sizeof(kb), "%llu", (unsigned long long)((tr->o.buffer_bytes + 1023) / 1024));
	if (inst_write(tr, "buffer_size_kb", kb) < 0)
		return -1;
	inst_write(tr, "buffer_percent", BUFFER_PERCENT);	/* older kernels lack it */
	if (enable_events(tr) < 0)
		return -1;
	if (!tr->nenabled)
		warning("trace: none of the requested events exists; only markers are recorded");
	if (tr->o.stacks)
		set_stack_triggers(tr);
	/* markers (trace_marker) are always recorded: ftrace events need no enabling */
	if (event_exists(tr, "ftrace", "print") && push_str(&tr->enabled, &tr->nenabled,
							    "ftrace:print") < 0)
		return error("out of memory");

	/* what trace.dat's header needs, read now that the events are known */
	snprintf(path, sizeof(path), "%s/events/header_page", tr->tdir);
	if (lw_blob_read(&tr->hdr.header_page, path) < 0)
		return error_errno("cannot read %s", path);
	snprintf(path, sizeof(path), "%s/events/header_event", tr->tdir);
	if (lw_blob_read(&tr->hdr.header_event, path) < 0)
		return error_errno("cannot read %s", path);
	tr->long_size = lw_header_page_long_size(tr->hdr.header_page.data);
	snprintf(path, sizeof(path), "%s/printk_formats", tr->tdir);
	if (lw_blob_read(&tr->hdr.printk, path) < 0)
		lw_blob_set(&tr->hdr.printk, "");
	if (read_ftrace_formats(tr) < 0)
		return -1;
	if (uname(&un) == 0) {
		snprintf(path, sizeof(path), "%s %s %s %s", un.sysname, un.nodename, un.release,
			 un.machine);
		lw_blob_set(&tr->hdr.uname, path);
	}
	lw_blob_set(&tr->hdr.version, "latwatt " LW_VERSION);
	return 0;
}

/* Per-CPU rings and their files, markers: at start(). */
static int setup_files(struct lw_run *run, struct trace_rec *tr)
{
	char path[PATH_MAX + 64];
	int page_size = 0;

	tr->ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (tr->ncpu < 1)
		tr->ncpu = 1;
	tr->c = calloc((size_t)tr->ncpu, sizeof(*tr->c));
	tr->hdr.cpustat = calloc((size_t)tr->ncpu, sizeof(*tr->hdr.cpustat));
	if (!tr->c || !tr->hdr.cpustat)
		return error("out of memory");
	tr->hdr.cpus = tr->ncpu;
	for (int i = 0; i < tr->ncpu; i++)
		tr->c[i].fd = -1;
	for (int i = 0; i < tr->ncpu; i++) {
		struct tcpu_ctx *c = &tr->c[i];

		c->tr = tr;
		c->cpu = i;
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d", tr->idir, i);
		if (access(path, F_OK) < 0)
			continue;	/* not a possible CPU */
		c->tcpu = tracefs_cpu_open(tr->inst, i, tr->o.flight || tr->o.monitor);
		if (!c->tcpu)
			return error_errno("cannot open %s/trace_pipe_raw", path);
		if (!page_size)
			page_size = tracefs_cpu_read_size(c->tcpu);
		snprintf(path, sizeof(path), ".trace-cpu%d", i);
		lw_rundir_file(&run->dir, path, c->path, sizeof(c->path));
		/* kernel addresses: private; read back at finish through this
		 * descriptor; made in the run directory's */
		tr->dfd = run->dir.dfd;
		c->fd = lw_create_at(tr->dfd, c->path, LW_MODE_PRIVATE, O_RDWR);
		if (c->fd < 0)
			return -1;
	}
	if (page_size <= 0)
		return error("cannot learn the trace sub-buffer size of %s", tr->idir);
	tr->hdr.page_size = (uint32_t)page_size;
	if (tr->o.monitor) {
		tr->page = malloc((size_t)page_size);
		tr->hold = malloc((size_t)page_size);
		if (!tr->page || !tr->hold)
			return error("out of memory");
	}

	snprintf(path, sizeof(path), "%s/trace_marker", tr->idir);
	tr->marker_fd = open(path, O_WRONLY | O_CLOEXEC);
	if (tr->marker_fd < 0)
		return error_errno("cannot open %s", path);
	snprintf(path, sizeof(path), "%s/tracing_on", tr->idir);
	tr->off_fd = open(path, O_WRONLY | O_CLOEXEC);
	if (tr->off_fd < 0)
		return error_errno("cannot open %s", path);
	return 0;
}

static void teardown(struct lw_run *run, struct trace_rec *tr)
{
	if (tr->off_fd >= 0) {
		if (write(tr->off_fd, "0", 1) < 0) {
			/* removing the instance below stops it anyway */
		}
		run->trace_off_fd = -1;
		close(tr->off_fd);
		tr->off_fd = -1;
	}
	if (tr->marker_fd >= 0) {
		if (run->marker_fd == tr->marker_fd)
			run->marker_fd = tr->saved_marker_fd;
		close(tr->marker_fd);
		tr->marker_fd = -1;
	}
	close_cpus(tr, 0);
	remove_instance(tr);
}

static int monitor_save(void *ctx, uint64_t from);

static int trace_start(struct lw_run *run, struct lw_part *p)
{
	struct trace_rec *tr = p->priv;
	cpu_set_t online, readers;

	if (!tr->prepared)
		return 0;	/* --trace off, or no usable tracefs (off_reason says) */
	if (setup_files(run, tr) < 0) {
		teardown(run, tr);
		unlink_temp(tr);
		return -1;
	}

	/* markers of every participant go to our instance from now on */
	tr->saved_marker_fd = run->marker_fd;
	run->marker_fd = tr->marker_fd;
	run->trace_off_fd = tr->off_fd;
	tr->active = 1;

	tr->start_ns = lw_mono_ns();
	if (inst_write(tr, "tracing_on", "1") < 0) {
		teardown(run, tr);
		unlink_temp(tr);
		tr->active = 0;
		return -1;
	}
	if (tr->o.monitor && run->monitor_trace) {
		/* the monitor's spikes may ask for windows from now on */
		tr->mt = &run->mtrace;
		tr->mt->ctx = tr;
		tr->mt->save = monitor_save;
		atomic_store_explicit(&tr->mt->ready, 1, memory_order_release);
	}
	if (tr->o.flight || tr->o.monitor)
		return 0;

	/* reader threads: not realtime, away from the measured CPUs if possible */
	CPU_ZERO(&readers);
	if (lw_online_cpus(&online) == 0)
		for (int i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &online) && !CPU_ISSET(i, &run->cpus))
				CPU_SET(i, &readers);
	for (int i = 0; i < tr->ncpu; i++) {
		struct tcpu_ctx *c = &tr->c[i];
		pthread_attr_t attr;
		int ret;

		if (!c->tcpu)
			continue;
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, LW_THREAD_STACK);
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
		if (CPU_COUNT(&readers))
			pthread_attr_setaffinity_np(&attr, sizeof(readers), &readers);
		ret = pthread_create(&c->tid, &attr, reader_main, c);
		pthread_attr_destroy(&attr);
		if (ret) {
			error("cannot start the trace reader of cpu %d: %s", i, strerror(ret));
			p->stop(run, p);
			unlink_temp(tr);
			tr->active = 0;
			return -1;
		}
		c->created = 1;
		tr->threads = 1;
	}
	return 0;
}

/* Command lines: the kernel's saved_cmdlines, then every live thread the
 * kernel did not keep (its table is small). */
static void collect_cmdlines(struct trace_rec *tr)
{
	struct lw_blob saved;
	char path[PATH_MAX];
	size_t cap, len;
	char *out;
	int *pids = NULL, npids = 0;
	DIR *proc;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/saved_cmdlines", tr->tdir);
	if (lw_blob_read(&saved, path) < 0)
		lw_blob_set(&saved, "");
	cap = saved.len + 65536;
	out = malloc(cap);
	if (!out) {
		tr->hdr.cmdlines = saved;
		return;
	}
	memcpy(out, saved.data, saved.len);
	len = saved.len;
	for (const char *p = saved.data; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		int *np = realloc(pids, (size_t)(npids + 1) * sizeof(*np));

		if (!np)
			break;
		pids = np;
		pids[npids++] = atoi(p);
	}
	lw_blob_free(&saved);

	proc = opendir("/proc");
	while (proc && (de = readdir(proc))) {
		DIR *task;
		struct dirent *te;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", de->d_name);
		task = opendir(path);
		while (task && (te = readdir(task))) {
			char comm[64];
			int tid, known = 0;

			if (!isdigit((unsigned char)te->d_name[0]))
				continue;
			tid = atoi(te->d_name);
			for (int i = 0; i < npids && !known; i++)
				known = pids[i] == tid;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/comm", de->d_name, te->d_name);
			if (known || lw_read_file(path, comm, sizeof(comm)) <= 0)
				continue;
			if (len + 96 > cap) {
				char *n = realloc(out, cap * 2);

				if (!n)
					break;
				out = n;
				cap *= 2;
			}
			len += (size_t)snprintf(out + len, cap - len, "%d %s\n", tid, comm);
		}
		if (task)
			closedir(task);
	}
	if (proc)
		closedir(proc);
	free(pids);
	out[len] = 0;
	tr->hdr.cmdlines.data = out;
	tr->hdr.cmdlines.len = len;
}

/* ---- monitor mode: windows around spikes ---- */

static uint64_t page_ts(const unsigned char *pg)
{
	uint64_t ts;

	memcpy(&ts, pg, sizeof(ts));
	return ts;
}

/* The bytes of events in a sub-buffer (its commit without the flags). */
static uint64_t page_len(const struct trace_rec *tr, const unsigned char *pg)
{
	uint64_t c64;
	uint32_t c32;

	if (tr->long_size == 4) {
		memcpy(&c32, pg + 8, sizeof(c32));
		return c32 & ((1u << 30) - 1);
	}
	memcpy(&c64, pg + 8, sizeof(c64));
	return c64 & ((1ull << 30) - 1);
}

/* Append one sub-buffer of @c's window, unless the cap is reached: 0, 1 past
 * the cap, -1 error (errno). */
static int put_page(struct trace_rec *tr, struct tcpu_ctx *c, const unsigned char *pg,
		    uint64_t *bytes, uint64_t cap_left)
{
	size_t ps = tr->hdr.page_size;

	if (*bytes + ps > cap_left)
		return 1;
	for (size_t done = 0; done < ps;) {
		ssize_t n = write(c->fd, pg + done, ps - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	if (!c->wfirst) {
		/* its first event's time: the page's own stamp may be older (a
		 * page read in part before carries the last read event's) */
		struct lw_page_scan sc = { 0 };

		if (lw_page_scan(pg, ps, tr->hdr.page_size, tr->long_size, 0, &sc) == 0 &&
		    sc.first_ns)
			c->wfirst = sc.first_ns;
		else
			c->wfirst = page_ts(pg) ? page_ts(pg) : 1;
		lw_page_scan_free(&sc);
	}
	*bytes += ps;
	atomic_fetch_add(&c->bytes, ps);
	return 0;
}

/* Read @c's ring out (tracing is off): its sub-buffers but those that end
 * before @from.  Past the cap, the ring is still emptied. */
static int copy_cpu(struct trace_rec *tr, struct tcpu_ctx *c, uint64_t from, uint64_t *bytes,
		    uint64_t cap_left, int *over)
{
	size_t ps = tr->hdr.page_size;
	int have = 0, ret = 0;

	for (int flush = 0; flush < 2; flush++)
		for (;;) {
			int n = flush ? tracefs_cpu_flush(c->tcpu, tr->page) :
					tracefs_cpu_read(c->tcpu, tr->page, true);

			if (n <= 0) {
				if (n < 0 && errno != EAGAIN && errno != EINTR && errno != ENODATA)
					ret = -1;
				break;
			}
			if ((size_t)n < ps)
				memset(tr->page + n, 0, ps - (size_t)n);
			if (!page_len(tr, tr->page) || *over || ret)
				continue;
			/* the page held back ends where this one begins */
			if (have && page_ts(tr->page) > from) {
				int r = put_page(tr, c, tr->hold, bytes, cap_left);

				*over |= r > 0;
				ret = r < 0 ? -1 : ret;
			}
			memcpy(tr->hold, tr->page, ps);
			have = 1;
		}
	if (have && !*over && !ret) {
		int r = put_page(tr, c, tr->hold, bytes, cap_left);

		*over |= r > 0;
		ret = r < 0 ? -1 : ret;
	}
	return ret;
}

static int push_window(struct trace_rec *tr, uint64_t from, uint64_t to, uint64_t bytes)
{
	if (tr->nwin == tr->capwin) {
		size_t cap = tr->capwin ? tr->capwin * 2 : 16;
		struct mwin *w = realloc(tr->win, cap * sizeof(*w));

		if (!w)
			return -1;
		tr->win = w;
		tr->capwin = cap;
	}
	tr->win[tr->nwin++] = (struct mwin){ from, to, bytes };
	return 0;
}

/* Freeze, copy out, resume; with tr->lock held.  1 saved, 0 not. */
static int save_window(struct trace_rec *tr, uint64_t from)
{
	struct lw_monitor_trace *mt = tr->mt;
	uint64_t used = atomic_load(&mt->sample_bytes) + atomic_load(&mt->trace_bytes);
	uint64_t cap_left = mt->cap > used ? mt->cap - used : 0, bytes = 0, lo = 0, freeze;
	int over = 0, failed = 0;

	if (!tr->active || tr->stopping)
		return 0;
	if (write(tr->off_fd, "0", 1) < 0) {
		tr->win_failed++;
		return 0;
	}
	freeze = lw_mono_ns();
	for (int i = 0; i < tr->ncpu; i++) {
		struct tcpu_ctx *c = &tr->c[i];

		if (!c->tcpu)
			continue;
		c->wstart = lseek(c->fd, 0, SEEK_END);
		c->wfirst = 0;
		if (c->wstart < 0 || copy_cpu(tr, c, from, &bytes, cap_left, &over) < 0) {
			if (!c->err)
				c->err = errno;
			failed = 1;
		}
		if (c->wfirst > lo)
			lo = c->wfirst;
	}
	if (write(tr->off_fd, "1", 1) < 0 && !failed) {
		warning("trace: cannot switch tracing on again in %s: %s", tr->name,
			strerror(errno));
		failed = 1;
	}
	/* never before the last window's end: the rings were emptied there */
	if (tr->nwin && lo <= tr->win[tr->nwin - 1].to_ns)
		lo = tr->win[tr->nwin - 1].to_ns + 1;
	if (over || failed || !bytes || push_window(tr, lo, freeze, bytes) < 0) {
		/* taken back: the files end where the window began */
		for (int i = 0; i < tr->ncpu; i++) {
			struct tcpu_ctx *c = &tr->c[i];

			if (c->tcpu && c->wstart >= 0 && lseek(c->fd, 0, SEEK_END) > c->wstart) {
				atomic_fetch_sub(&c->bytes, (uint64_t)(lseek(c->fd, 0, SEEK_END) -
								       c->wstart));
				if (ftruncate(c->fd, c->wstart) < 0 && !c->err)
					c->err = errno;
			}
		}
		if (over)
			tr->win_over_cap++;
		else if (failed || bytes)
			tr->win_failed++;
		else
			tr->win_empty++;
		return 0;
	}
	atomic_fetch_add(&mt->trace_bytes, bytes);
	return 1;
}

static int monitor_save(void *ctx, uint64_t from)
{
	struct trace_rec *tr = ctx;
	int r;

	pthread_mutex_lock(&tr->lock);
	r = save_window(tr, from);
	pthread_mutex_unlock(&tr->lock);
	return r;
}

static void trace_stop(struct lw_run *run, struct lw_part *p)
{
	struct trace_rec *tr = p->priv;
	char path[PATH_MAX + 64];

	if (!tr->active)
		return;
	if (tr->mt) {
		/* a window still waiting for its post-window is saved now */
		pthread_mutex_lock(&tr->lock);
		if (atomic_exchange(&tr->mt->pending, 0))
			save_window(tr, atomic_load(&tr->mt->pending_from));
		tr->stopping = 1;
		atomic_store(&tr->mt->ready, 0);
		pthread_mutex_unlock(&tr->lock);
	}
	/* off at once: the rings keep what they hold */
	if (write(tr->off_fd, "0", 1) < 0)
		warning("cannot stop tracing in %s: %s", tr->name, strerror(errno));
	tr->stop_ns = lw_mono_ns();
	run->trace_off_fd = -1;

	atomic_store(&tr->quit, 1);
	for (int i = 0; i < tr->ncpu; i++)
		if (tr->c[i].created)
			tracefs_cpu_stop(tr->c[i].tcpu);
	for (int i = 0; i < tr->ncpu; i++) {
		struct tcpu_ctx *c = &tr->c[i];

		if (c->created) {
			pthread_join(c->tid, NULL);
			c->created = 0;
		} else if (c->tcpu && !tr->mt) {
			drain_rest(c);	/* flight recorder: read the ring out now */
		}
	}
	for (int i = 0; i < tr->ncpu; i++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", tr->idir, i);
		if (tr->c[i].tcpu && lw_blob_read(&tr->c[i].stats, path) == 0) {
			/* as trace-cmd writes it: "CPU: N" first */
			char *s = malloc(tr->c[i].stats.len + 32);

			if (s) {
				snprintf(s, tr->c[i].stats.len + 32, "CPU: %d\n%s", i,
					 tr->c[i].stats.data);
				tr->hdr.cpustat[i].data = s;
				tr->hdr.cpustat[i].len = strlen(s);
			}
		}
	}
	collect_cmdlines(tr);
	teardown(run, tr);
}

/* ---- finish: trace.dat and the manifest ---- */

/* Pages read at a time when scanning a CPU's file: the scan's memory does
 * not grow with the trace. */
#define SCAN_CHUNK_PAGES 64

static int scan_cpu(struct trace_rec *tr, struct tcpu_ctx *c)
{
	struct lw_page_scanner ps;
	size_t chunk = (size_t)tr->hdr.page_size * SCAN_CHUNK_PAGES, have = 0;
	unsigned char *buf;
	off_t off = 0;
	int ret = 0;

	if (c->fd < 0)
		return error("%s: not open", c->path);
	buf = malloc(chunk);
	if (!buf)
		return error("out of memory");
	if (lw_page_scan_begin(&ps, tr->hdr.page_size, tr->long_size, tr->start_ns, &c->scan) < 0) {
		free(buf);
		return -1;
	}
	posix_fadvise(c->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	for (;;) {
		ssize_t n = pread(c->fd, buf + have, chunk - have, off);
		size_t whole;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = error_errno("cannot read %s", c->path);
			break;
		}
		off += n;
		have += (size_t)n;
		/* whole sub-buffers only; a torn last one is left out, as in trace.dat */
		whole = have - have % tr->hdr.page_size;
		if (whole && (have == chunk || n == 0)) {
			lw_page_scan_feed(&ps, buf, whole);
			memmove(buf, buf + whole, have - whole);
			have -= whole;
		}
		if (n == 0)
			break;
	}
	lw_page_scan_end(&ps);
	free(buf);
	c->scanned = ret == 0;
	return ret;
}

/* The latest first event over the CPUs: from there on every CPU is covered. */
static uint64_t first_kept(struct trace_rec *tr)
{
	uint64_t t = tr->start_ns;

	for (int i = 0; i < tr->ncpu; i++)
		if (tr->c[i].scan.first_ns > t)
			t = tr->c[i].scan.first_ns;
	return t < tr->stop_ns ? t : tr->stop_ns;
}

static json_t *strv_json(char **v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static int trace_finish(struct lw_run *run, struct lw_part *p)
{
	struct trace_rec *tr = p->priv;
	json_t *m = run->dir.manifest, *cpus, *t;
	const char **paths;
	int *fds;
	char path[PATH_MAX + 64];
	uint64_t total_events = 0, total_lost = 0, total_missed = 0;
	int complete = 1, ret = 0;

	if (!tr->active) {
		json_object_set_new(m, "trace", json_pack("{s:s, s:s}", "mode", "off",
							  "reason", tr->off_reason));
		return 0;
	}
	paths = calloc((size_t)tr->ncpu, sizeof(*paths));
	fds = malloc((size_t)tr->ncpu * sizeof(*fds));
	if (!paths || !fds) {
		free(paths);
		free(fds);
		return error("out of memory");
	}
	for (int i = 0; i < tr->ncpu; i++)
		fds[i] = -1;
	cpus = json_array();
	for (int i = 0; i < tr->ncpu; i++) {
		struct tcpu_ctx *c = &tr->c[i];
		json_t *o, *win;
		uint64_t overrun, commit_overrun, dropped, lost;

		if (!c->path[0])
			continue;
		paths[i] = c->path;
		fds[i] = c->fd;
		if (scan_cpu(tr, c) < 0)
			ret = -1;
		overrun = stat_value(c->stats.data, "overrun");
		commit_overrun = stat_value(c->stats.data, "commit overrun");
		dropped = stat_value(c->stats.data, "dropped events");
		lost = overrun + commit_overrun + dropped;
		win = json_array();
		for (size_t w = 0; w < c->scan.nwin; w++)
			json_array_append_new(win, json_pack("[I, I]",
				(json_int_t)c->scan.win[w].from_ns, (json_int_t)c->scan.win[w].to_ns));
		o = json_pack("{s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
			"cpu", i,
			"events", (json_int_t)c->scan.events,
			"bytes", (json_int_t)atomic_load(&c->bytes),
			"pages", (json_int_t)c->scan.pages,
			"first_ns", (json_int_t)c->scan.first_ns,
			"last_ns", (json_int_t)c->scan.last_ns,
			"overrun", (json_int_t)overrun,
			"commit_overrun", (json_int_t)commit_overrun,
			"dropped_events", (json_int_t)dropped,
			"missed_pages", (json_int_t)c->scan.missed_pages,
			"missed_events", (json_int_t)c->scan.missed_events,
			"missed_unknown", (json_int_t)c->scan.missed_unknown,
			"incomplete", win);
		if (c->err)
			json_object_set_new(o, "error", json_string(strerror(c->err)));
		if (c->scan.bad_pages)
			json_object_set_new(o, "bad_pages", json_integer(c->scan.bad_pages));
		json_array_append_new(cpus, o);
		total_events += c->scan.events;
		total_lost += lost;
		total_missed += c->scan.missed_pages;
		if (c->err || c->scan.bad_pages)
			complete = 0;
		/* a flight recorder overwrites by design: only its first flagged
		 * page (the start of what it kept) is expected */
		if (tr->o.monitor ? (commit_overrun || dropped) :
		    tr->o.flight ? (commit_overrun || dropped || c->scan.nwin > 1)
				 : (lost || c->scan.missed_pages))
			complete = 0;
	}

	if (!tr->o.no_kallsyms && lw_blob_read(&tr->hdr.kallsyms, "/proc/kallsyms") < 0)
		warning("cannot read /proc/kallsyms: trace.dat without kernel symbols");
	if (lw_tracedat_write(run->dir.dfd, lw_rundir_file(&run->dir, "trace.dat", path, sizeof(path)),
			      &tr->hdr, fds, paths) < 0)
		ret = -1;
	free(paths);
	free(fds);
	unlink_temp(tr);

	t = json_pack("{s:s, s:s, s:i, s:s, s:s, s:s, s:I, s:i, s:b, s:o, s:o, s:I, s:I, s:I, "
		      "s:I, s:I, s:b, s:b, s:o}",
		"file", "trace.dat",
		"format", "trace-cmd",
		"format_version", LW_TRACEDAT_VERSION,
		"mode", tr->o.monitor ? "monitor" : tr->o.flight ? "flight-recorder" : "stream",
		"instance", tr->name,
		"clock", "mono",
		"buffer_bytes_per_cpu", (json_int_t)tr->o.buffer_bytes,
		"page_size", (int)tr->hdr.page_size,
		"kallsyms", !tr->o.no_kallsyms && tr->hdr.kallsyms.len > 0,
		"events", strv_json(tr->enabled, tr->nenabled),
		"missing", strv_json(tr->missing, tr->nmissing),
		"start_ns", (json_int_t)tr->start_ns,
		"stop_ns", (json_int_t)tr->stop_ns,
		"events_recorded", (json_int_t)total_events,
		"lost_events", (json_int_t)total_lost,
		"missed_pages", (json_int_t)total_missed,
		"complete", complete && ret == 0,
		"instance_removed", tr->removed,
		"cpus", cpus);
	if (tr->o.stacks)	/* asked: whether the kernel took the triggers */
		json_object_set_new(t, "stacks", json_boolean(tr->stacks));
	if (tr->o.monitor) {
		json_t *w = json_array();
		uint64_t bytes = 0;

		for (size_t i = 0; i < tr->nwin; i++) {
			json_array_append_new(w, json_pack("{s:I, s:I, s:I}",
				"from_ns", (json_int_t)tr->win[i].from_ns,
				"to_ns", (json_int_t)tr->win[i].to_ns,
				"bytes", (json_int_t)tr->win[i].bytes));
			bytes += tr->win[i].bytes;
		}
		json_object_set_new(t, "windows", w);
		json_object_set_new(t, "window_bytes", json_integer((json_int_t)bytes));
		json_object_set_new(t, "windows_over_cap", json_integer((json_int_t)tr->win_over_cap));
		json_object_set_new(t, "windows_empty", json_integer((json_int_t)tr->win_empty));
		json_object_set_new(t, "windows_failed", json_integer((json_int_t)tr->win_failed));
		note("trace: %zu windows around spikes saved (%.1f MB)%s%s", tr->nwin,
		     (double)bytes / 1048576, tr->win_over_cap ? ", more past the disk cap" : "",
		     tr->win_failed ? ", some could not be read" : "");
	}
	json_object_set_new(m, "trace", t);
	snprintf(path, sizeof(path), "%s/trace_marker", tr->idir);
	json_object_set_new(m, "markers", json_pack("{s:s, s:s}", "file", path, "event",
						    "ftrace:print"));
	if (tr->o.monitor)	/* overwritten between windows by design */
		return ret;
	if (tr->o.flight && total_lost)
		note("trace: flight recorder: %llu older events overwritten; trace.dat holds "
		     "the last %s per CPU before the end", (unsigned long long)total_lost,
		     lw_format_duration(tr->stop_ns - first_kept(tr), path, sizeof(path)));
	else if (total_lost || total_missed)
		warning("trace: %llu events lost (%llu pages flagged); see \"trace\" in the "
			"manifest; a larger --trace-buffer helps", (unsigned long long)total_lost,
			(unsigned long long)total_missed);
	return ret;
}

static void trace_progress(struct lw_run *run, struct lw_part *p, char *buf, size_t len)
{
	struct trace_rec *tr = p->priv;
	uint64_t bytes = 0;

	if (tr->active && tr->o.monitor) {
		if (pthread_mutex_trylock(&tr->lock) == 0) {
			snprintf(buf, len, "trace: %zu windows", tr->nwin);
			pthread_mutex_unlock(&tr->lock);
		} else {
			snprintf(buf, len, "trace: saving a window");
		}
		return;
	}
	if (!tr->active || tr->o.flight) {
		snprintf(buf, len, "%s", tr->active ? "trace: ring" : "");
		return;
	}
	for (int i = 0; i < tr->ncpu; i++)
		bytes += atomic_load_explicit(&tr->c[i].bytes, memory_order_relaxed);
	snprintf(buf, len, "trace %.1fMB", (double)bytes / 1048576.0);
}

static void trace_destroy(struct lw_part *p)
{
	struct trace_rec *tr = p->priv;

	if (tr->c) {
		close_cpus(tr, 1);
		for (int i = 0; i < tr->ncpu; i++) {
			lw_blob_free(&tr->c[i].stats);
			lw_page_scan_free(&tr->c[i].scan);
		}
	}
	/* a start that failed half-way, or a run that never stopped us */
	if (tr->marker_fd >= 0)
		close(tr->marker_fd);
	if (tr->off_fd >= 0)
		close(tr->off_fd);
	remove_instance(tr);
	free(tr->c);
	free(tr->page);
	free(tr->hold);
	free(tr->win);
	pthread_mutex_destroy(&tr->lock);
	lw_tracedat_free(&tr->hdr);
	free_strv(tr->enabled, tr->nenabled);
	free_strv(tr->missing, tr->nmissing);
	free(tr);
}

struct lw_part *lw_trace_new(const struct lw_trace_opts *o)
{
	struct trace_rec *tr = calloc(1, sizeof(*tr));

	if (!tr) {
		error("out of memory");
		return NULL;
	}
	tr->o = *o;
	if (!tr->o.buffer_bytes)
		tr->o.buffer_bytes = LW_TRACE_DEFAULT_BUFFER;
	tr->marker_fd = tr->off_fd = tr->saved_marker_fd = tr->dfd = -1;
	pthread_mutex_init(&tr->lock, NULL);
	if (tr->o.mode == LW_TRACE_OFF) {
		snprintf(tr->off_reason, sizeof(tr->off_reason), "%s",
			 o->off_reason ? o->off_reason : "--trace off");
	} else {
		char why[PATH_MAX + 64];
		const char *unusable = tracefs_unusable(tr, why, sizeof(why));

		if (unusable && tr->o.mode == LW_TRACE_ON) {
			error("cannot trace: %s", unusable);
			pthread_mutex_destroy(&tr->lock);
			free(tr);
			return NULL;
		}
		if (unusable) {
			snprintf(tr->off_reason, sizeof(tr->off_reason), "%s", unusable);
			note("no kernel trace for this run: %s", unusable);
		} else if (setup_instance(tr) < 0) {
			remove_instance(tr);
			lw_tracedat_free(&tr->hdr);
			free_strv(tr->enabled, tr->nenabled);
			free_strv(tr->missing, tr->nmissing);
			pthread_mutex_destroy(&tr->lock);
			free(tr);
			return NULL;
		} else {
			tr->prepared = 1;
		}
	}
	tr->part = (struct lw_part){
		.name = "trace",
		.start = trace_start,
		.stop = trace_stop,
		.finish = trace_finish,
		.progress = trace_progress,
		.destroy = trace_destroy,
		.priv = tr,
	};
	return &tr->part;
}

uint64_t lw_trace_header_bound(const struct lw_part *p)
{
	const struct trace_rec *tr = p->priv;
	const struct lw_tracedat *d = &tr->hdr;
	uint64_t n = d->header_page.len + d->header_event.len + d->printk.len + d->clock.len +
		     d->uname.len + d->version.len;
	struct lw_blob ks;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	if (!tr->prepared)
		return 0;
	for (int i = 0; i < d->nftrace; i++)
		n += d->ftrace[i].len + 64;
	for (int i = 0; i < d->nsys; i++)
		for (int j = 0; j < d->sys[i].n; j++)
			n += d->sys[i].fmt[j].len + 64;
	if (!tr->o.no_kallsyms && lw_blob_read(&ks, "/proc/kallsyms") == 0) {
		n += ks.len * 2;	/* room for modules loaded during the run */
		lw_blob_free(&ks);
	}
	/* command lines (the kernel's table and every thread), CPU stats, the
	 * file's own sections */
	return n + (1 << 20) + (uint64_t)(ncpu > 0 ? ncpu : 1) * 4096;
}

int lw_trace_prepared(const struct lw_part *p)
{
	const struct trace_rec *tr = p->priv;

	return tr->prepared;
}

/* ---- latwatt cleanup ---- */

static int run_alive(int pid)
{
	char path[64], comm[64];

	if (pid == (int)getpid())
		return 0;	/* this is cleanup, not a run */
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (lw_read_file(path, comm, sizeof(comm)) < 0)
		return 0;
	return !strncmp(comm, "latwatt", 7);
}

int lw_trace_cleanup(FILE *out, int dry_run)
{
	const char *tdir = tracefs_tracing_dir();
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int removed = 0, failed = 0;

	if (!tdir) {
		fprintf(out, "tracefs is not mounted: no trace instance to remove\n");
		return 0;
	}
	snprintf(path, sizeof(path), "%s/instances", tdir);
	d = opendir(path);
	if (!d)
		return error_errno("cannot open %s", path);
	while ((de = readdir(d))) {
		/* latwatt-PID (the recorder) and latwatt-timerlat-PID */
		const char *dash = strrchr(de->d_name, '-'), *num = dash ? dash + 1 : de->d_name;
		char *end;
		long pid;
		struct tracefs_instance *inst;

		if (strncmp(de->d_name, LW_TRACE_INSTANCE_PREFIX, strlen(LW_TRACE_INSTANCE_PREFIX)))
			continue;
		pid = strtol(num, &end, 10);
		if (end == num || *end || pid <= 0 || pid > INT_MAX)
			continue;
		if (run_alive((int)pid)) {
			fprintf(out, "kept trace instance %s: run %ld is still going\n", de->d_name, pid);
			continue;
		}
		if (dry_run) {
			fprintf(out, "would remove trace instance %s (process %ld is gone)\n",
				de->d_name, pid);
			removed++;
			continue;
		}
		inst = tracefs_instance_alloc(NULL, de->d_name);
		if (inst)
			tracefs_tracer_clear(inst);	/* a timerlat tracer still running */
		if (!inst || tracefs_instance_destroy(inst) < 0) {
			error_errno("cannot remove trace instance %s/%s", path, de->d_name);
			failed++;
		} else {
			fprintf(out, "removed trace instance %s (process %ld is gone)\n",
				de->d_name, pid);
			removed++;
		}
		tracefs_instance_free(inst);
	}
	closedir(d);
	return failed ? -1 : removed;
}
