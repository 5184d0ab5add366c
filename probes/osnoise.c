// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/journal.h"
#include "lib/knobs.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/sysfs.h"
#include "lib/timeutil.h"
#include "probes/osnoise.h"

#define READ_PERIOD_NS (100 * LW_NSEC_PER_MSEC)

int lw_osn_path(const struct lw_osn *o, const char *rel, char *path, size_t len)
{
	const char *tdir = tracefs_tracing_dir();

	if (!tdir)
		return error("%s: tracefs is not mounted", o->who);
	if ((size_t)snprintf(path, len, "%s/%s", tdir, rel) >= len)
		return error("%s: path too long", tdir);
	return 0;
}

int lw_osn_options(const struct lw_osn *o, char *opts, size_t len)
{
	char path[4096];

	opts[0] = 0;
	if (lw_osn_path(o, "osnoise/options", path, sizeof(path)) < 0)
		return -1;
	if (lw_read_file(path, opts, len) < 0)
		opts[0] = 0;
	if (lw_osn_flag(opts, "OSNOISE_WORKLOAD") == 0)
		return error("%s: %s has NO_OSNOISE_WORKLOAD (another tool runs the osnoise "
			     "tracers with its own threads)", o->who, path);
	return 0;
}

int lw_osn_flag(const char *opts, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *p = opts; (p = strstr(p, opt)); p += n) {
		int word_end = !p[n] || p[n] == ' ' || p[n] == '\n';

		if (!word_end)
			continue;
		if (p == opts || p[-1] == ' ' || p[-1] == '\n')
			return 1;
		if (p - opts >= 3 && !strncmp(p - 3, "NO_", 3) &&
		    (p - 3 == opts || p[-4] == ' ' || p[-4] == '\n'))
			return 0;
	}
	return -1;
}

int lw_osn_knobs(struct lw_run *run, const struct lw_osn *o, const struct lw_osn_knob *k,
		 size_t n)
{
	char path[4096];

	for (size_t i = 0; i < n; i++) {
		if (lw_osn_path(o, k[i].file, path, sizeof(path)) < 0)
			return -1;
		if (k[i].optional && access(path, F_OK) < 0)
			continue;
		if (lw_knob_write(&run->knobs, path, k[i].value) < 0)
			return -1;
	}
	return 0;
}

/* Instances left by a latwatt that was killed (SIGKILL leaves no chance to
 * clean up) keep the tracer and its threads running: remove them. */
struct stale { const char *prefix; char names[8][80]; int n; };

static int find_stale(const char *name, void *ctx)
{
	struct stale *st = ctx;
	size_t n = strlen(st->prefix);
	const char *p;
	char *end;
	long pid;

	if (strncmp(name, st->prefix, n))
		return 0;
	p = name + n;
	pid = strtol(p, &end, 10);
	if (end == p || *end || pid <= 0 || pid == getpid())
		return 0;
	if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0;
	if (st->n < 8 && strlen(name) < sizeof(st->names[0]))
		strcpy(st->names[st->n++], name);
	return 0;
}

void lw_osn_remove_stale(const struct lw_osn *o)
{
	struct stale st = { .prefix = o->prefix, .n = 0 };

	tracefs_instances_walk(find_stale, &st);
	for (int i = 0; i < st.n; i++) {
		struct tracefs_instance *inst = tracefs_instance_alloc(NULL, st.names[i]);

		if (!inst)
			continue;
		tracefs_tracer_clear(inst);
		if (tracefs_instance_destroy(inst) == 0)
			note("%s: removed the trace instance %s left by a latwatt that was killed",
			     o->who, st.names[i]);
		tracefs_instance_free(inst);
	}
}

/* A tep handle with the ring buffer's page header and the events we read:
 * tracefs_local_events*() would also parse /proc/kallsyms, which takes
 * seconds on a slow board. */
static struct tep_handle *load_tep(const struct lw_osn *o, const char *const *formats)
{
	struct tep_handle *tep = tep_alloc();
	char *hdr = NULL, *fmt = NULL, file[128];
	int len = 0, ok = 1;

	if (!tep) {
		error("out of memory");
		return NULL;
	}
	hdr = tracefs_instance_file_read(NULL, "events/header_page", &len);
	if (!hdr || tep_parse_header_page(tep, hdr, len, sizeof(long)) < 0) {
		error_errno("%s: cannot read events/header_page", o->who);
		ok = 0;
	}
	for (size_t i = 0; ok && formats[i]; i++) {
		char sys[64];

		snprintf(file, sizeof(file), "events/%s/format", formats[i]);
		snprintf(sys, sizeof(sys), "%.*s", (int)strcspn(formats[i], "/"), formats[i]);
		if (!(fmt = tracefs_instance_file_read(NULL, file, &len))) {
			error_errno("%s: cannot read %s", o->who, file);
			ok = 0;
		} else if (tep_parse_event(tep, fmt, (unsigned long)len, sys)) {
			error("%s: cannot parse %s", o->who, file);
			ok = 0;
		}
		free(fmt);
		fmt = NULL;
	}
	free(hdr);
	if (!ok) {
		tep_free(tep);
		return NULL;
	}
	tep_set_file_bigendian(tep, tep_is_local_bigendian(tep) ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, (int)sizeof(long));
	tep_set_page_size(tep, getpagesize());
	return tep;
}

int lw_osn_open(struct lw_run *run, struct lw_osn *o, size_t buffer_kb,
		const char *const *formats)
{
	snprintf(o->name, sizeof(o->name), "%s%d", o->prefix, (int)getpid());
	if (tracefs_instance_exists(o->name))
		return error("%s: the trace instance %s exists already", o->who, o->name);
	if (lw_journal_add(&run->journal, "instances", o->name) < 0)
		return -1;
	o->inst = tracefs_instance_create(o->name);
	if (!o->inst)
		return error_errno("%s: cannot create the trace instance %s", o->who, o->name);
	o->created = 1;
	if (tracefs_trace_off(o->inst) < 0)
		return error_errno("%s: cannot stop tracing in %s", o->who, o->name);
	if (tracefs_instance_file_write(o->inst, "trace_clock", "mono") < 0)
		return error_errno("%s: cannot set the trace clock of %s to mono", o->who, o->name);
	o->buffer_kb = buffer_kb;
	if (tracefs_instance_set_buffer_size(o->inst, buffer_kb, -1) < 0)
		return error_errno("%s: cannot set the buffer of %s to %zu KiB", o->who, o->name,
				   buffer_kb);
	o->tep = load_tep(o, formats);
	return o->tep ? 0 : -1;
}

int lw_osn_enable(struct lw_osn *o, const char *system, const char *event)
{
	if (tracefs_event_enable(o->inst, system, event) < 0)
		return error_errno("%s: cannot enable the event %s/%s in %s", o->who, system, event,
				   o->name);
	return 0;
}

int lw_osn_tracer(struct lw_osn *o, const char *tracer)
{
	if (tracefs_tracer_set(o->inst, TRACEFS_TRACER_CUSTOM, tracer) < 0)
		return error_errno("%s: cannot start the %s tracer in %s%s", o->who, tracer, o->name,
				   errno == EBUSY ? " (osnoise or timerlat runs in another instance)"
						  : "");
	return 0;
}

static int on_raw(struct tep_event *ev, struct tep_record *rec, int cpu, void *ctx)
{
	struct lw_osn *o = ctx;

	(void)cpu;
	/* Losses as the reader sees them (when the library reports them); the
	 * kernel's own count comes from per_cpu/cpuN/stats at the end.
	 * (tracefs_follow_missed_events() is not used: libtracefs 1.6 never
	 * frees what it registers.) */
	if (rec->missed_events > 0)
		o->lost += (uint64_t)rec->missed_events;
	else if (rec->missed_events < 0)
		o->lost_unknown++;
	o->on_event(o->ctx, ev, rec);
	return 0;
}

static void drain(struct lw_osn *o)
{
	if (tracefs_iterate_raw_events(o->tep, o->inst, NULL, 0, on_raw, o) < 0)
		o->read_errors++;
}

static void *reader_main(void *arg)
{
	struct lw_osn *o = arg;
	struct timespec ts = lw_ns_to_ts(READ_PERIOD_NS);
	char name[16];

	snprintf(name, sizeof(name), "lw-%s", o->who);
	pthread_setname_np(pthread_self(), name);
	while (!atomic_load(&o->quit)) {
		drain(o);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void reader_affinity(const struct lw_osn *o, pthread_attr_t *attr)
{
	cpu_set_t online, away;

	if (lw_online_cpus(&online) < 0)
		return;
	CPU_XOR(&away, &online, &o->cpus);
	CPU_AND(&away, &away, &online);
	if (CPU_COUNT(&away))
		pthread_attr_setaffinity_np(attr, sizeof(away), &away);
}

int lw_osn_start(struct lw_osn *o)
{
	pthread_attr_t attr;

	if (tracefs_trace_on(o->inst) < 0)
		return error_errno("%s: cannot start tracing in %s", o->who, o->name);
	pthread_attr_init(&attr);
	reader_affinity(o, &attr);
	if (pthread_create(&o->reader, &attr, reader_main, o)) {
		pthread_attr_destroy(&attr);
		return error("%s: cannot start the reader thread", o->who);
	}
	pthread_attr_destroy(&attr);
	o->reader_running = 1;
	return 0;
}

/* Events the kernel could not keep for the reader: overwritten (overrun)
 * or refused (dropped events), from per_cpu/cpuN/stats. */
static void read_losses(struct lw_osn *o)
{
	for (int c = 0; c < CPU_SETSIZE; c++) {
		char file[64], *buf, *p;

		if (!CPU_ISSET(c, &o->cpus))
			continue;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", c);
		buf = tracefs_instance_file_read(o->inst, file, NULL);
		if (!buf)
			continue;
		if ((p = strstr(buf, "\noverrun:")))
			o->overrun += strtoull(p + 9, NULL, 10);
		if ((p = strstr(buf, "dropped events:")))
			o->dropped += strtoull(p + 15, NULL, 10);
		free(buf);
	}
}

void lw_osn_stop(struct lw_osn *o)
{
	if (!o->inst)
		return;
	tracefs_trace_off(o->inst);
	atomic_store(&o->quit, 1);
	if (o->reader_running) {
		pthread_join(o->reader, NULL);
		o->reader_running = 0;
	}
	drain(o);	/* what the reader had not taken yet */
	read_losses(o);
}

void lw_osn_close(struct lw_osn *o)
{
	if (o->reader_running) {
		atomic_store(&o->quit, 1);
		pthread_join(o->reader, NULL);
		o->reader_running = 0;
	}
	if (o->inst) {
		tracefs_trace_off(o->inst);
		tracefs_tracer_clear(o->inst);
		if (o->created && tracefs_instance_destroy(o->inst) < 0)
			warning("%s: cannot remove the trace instance %s: %s", o->who, o->name,
				strerror(errno));
		tracefs_instance_free(o->inst);
		o->inst = NULL;
	}
	if (o->tep) {
		tep_free(o->tep);
		o->tep = NULL;
	}
}

uint64_t lw_osn_losses(const struct lw_osn *o)
{
	return o->overrun + o->dropped > o->lost ? o->overrun + o->dropped : o->lost;
}
