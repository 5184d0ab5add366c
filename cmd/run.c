// SPDX-License-Identifier: GPL-2.0-only
/* latwatt run: the driver wiring of options to participants. */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <tracefs.h>
#include <unistd.h>

#include <limits.h>
#include <sys/stat.h>

#include "analysis/repeat.h"
#include "cmd/commands.h"
#include "cmd/runauto.h"
#include "cmd/rununtil.h"
#include "cmd/runopts.h"
#include "cmd/runscenario.h"
#include "lib/error.h"
#include "lib/parse.h"
#include "lib/idlecap.h"
#include "lib/pmqos.h"
#include "lib/rundir.h"
#include "lib/run.h"
#include "lib/safefile.h"
#include "lib/steal.h"
#include "lib/sysinfo.h"
#include "lib/thread.h"
#include "lib/trace_rec.h"
#include "lib/ust.h"
#include "probes/plan.h"
#include "boards/board.h"
#include "power/sampler.h"
#include "power/sources.h"
#include "workloads/workload.h"
#include "workloads/loads.h"

static json_t *argv_json(int argc, char **argv)
{
	json_t *a = json_array();

	json_array_append_new(a, json_string("latwatt"));
	for (int i = 0; i < argc; i++)
		json_array_append_new(a, json_string(argv[i]));
	return a;
}

/* Markers go to the top-level trace_marker until a trace instance of the
 * run's own replaces it. */
static int open_marker(json_t *manifest)
{
	const char *dir = tracefs_tracing_dir();
	char path[4096];
	int fd = -1;

	if (dir) {
		snprintf(path, sizeof(path), "%s/trace_marker", dir);
		fd = open(path, O_WRONLY | O_CLOEXEC);
	}
	json_object_set_new(manifest, "markers", fd >= 0 ?
		json_pack("{s:s}", "file", path) :
		json_pack("{s:n, s:s}", "file", "reason",
			  dir ? strerror(errno) : "tracefs is not mounted"));
	return fd;
}

static void *noop(void *arg) { return arg; }

/* Can this process create SCHED_FIFO threads at @prio?  Asked before the run
 * directory is created, so a refusal leaves nothing behind. */
static int check_rt_allowed(int prio)
{
	struct lw_sched sch = { .policy = SCHED_FIFO, .priority = prio, .cpu = -1 };
	pthread_t t;

	if (lw_thread_start(&t, noop, NULL, &sch, "a realtime thread") < 0)
		return -1;
	pthread_join(t, NULL);
	return 0;
}

/* Asked-for power sources must exist before the run directory is made: a
 * refusal leaves nothing behind. */
static int check_power_sources(const struct lw_run_opts *o, const struct lw_board *board)
{
	struct lw_power_opts po = {
		.root = o->sysfs_root, .mask = o->power_mask, .is_auto = o->power_auto,
		.iio_uri = o->iio_uri, .board = board,
	};
	struct lw_chans cs = { 0 };
	char l[64];
	int n;

	if (!o->power_mask || o->power_auto)
		return 0;
	if (lw_power_discover(&po, &cs) < 0)
		return -1;
	n = cs.n;
	lw_power_chans_free(&cs);
	if (!n)
		return error("--power %s: no such power source found%s%s",
			     lw_power_sources_str(o->power_mask, l, sizeof(l)),
			     o->sysfs_root && *o->sysfs_root ? " under " : "",
			     o->sysfs_root ? o->sysfs_root : "");
	return 0;
}

/*
 * Memory of a realtime run stays resident once touched (MCL_ONFAULT): the
 * probes prefault their rings and stacks before measuring, and the code
 * and data of the measured path are locked as it first runs, while the
 * libraries' pages nobody reads (most of every library mapped) are neither
 * read in nor locked, as mlockall(MCL_CURRENT) would do.  Kernels before
 * 4.4 lack MCL_ONFAULT: everything is locked there.
 */
static int lock_memory(void)
{
#ifdef MCL_ONFAULT
	if (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) == 0)
		return 0;
	if (errno != EINVAL)
		return error_errno("cannot lock memory for realtime probes (run as root, or use --no-rt)");
#endif
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		return error_errno("cannot lock memory for realtime probes (run as root, or use --no-rt)");
	return 0;
}

/* Print the monitor's memory and disk bounds, and keep them in the manifest. */
static void monitor_bounds(const struct lw_monitor_opts *mo, const struct lw_run_opts *o,
			   const struct lw_probe_plan *plan, uint64_t trace_hdr, json_t *manifest)
{
	int trace = trace_hdr != 0;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t ring = trace ? (o->trace_buffer ? o->trace_buffer : LW_TRACE_DEFAULT_BUFFER) *
				(uint64_t)(ncpu > 0 ? ncpu : 1) : 0;
	int series = lw_probe_plan_series(plan) + 2 * o->nworkloads;
	int rings = series + o->nworkloads;
	uint64_t mem, disk;
	char iv[32];

	lw_monitor_bounds(mo, rings, series, o->duration_ns, &mem, &disk);
	if (trace) {
		/* two sub-buffers to copy with; the list of windows, each at
		 * least a 4 kB sub-buffer, grown by doubling */
		mem += 2 * 65536 + mo->disk_cap / 4096 * 2 * 24;
		disk += trace_hdr;	/* trace.dat's formats and symbols */
	}
	note("monitor: a histogram per %s; memory for it at most %.1f MB, disk at most %.1f MB "
	     "(raw samples%s around spikes at most %.1f MB%s)",
	     lw_format_duration(mo->interval_ns, iv, sizeof(iv)), (double)mem / 1048576,
	     (double)disk / 1048576, trace ? " and kernel trace" : "",
	     mo->threshold_ns ? (double)mo->disk_cap / 1048576 : 0.0,
	     mo->threshold_ns ? "" : ": none without --threshold");
	if (trace)
		note("monitor: kernel memory for the trace ring %.1f MB (%.1f MB per CPU, %ld CPUs; "
		     "--trace-buffer), overwritten until a spike; while trace.dat is assembled at "
		     "the end its windows are on disk twice (at most %.1f MB)", (double)ring / 1048576,
		     (double)ring / (double)(ncpu > 0 ? ncpu : 1) / 1048576, ncpu > 0 ? ncpu : 1,
		     (double)(disk + mo->disk_cap) / 1048576);
	json_object_set_new(manifest, "monitor_bounds", json_pack("{s:I, s:I, s:I, s:I, s:i, s:i}",
		"memory_bytes", (json_int_t)mem, "disk_bytes", (json_int_t)disk,
		"disk_bytes_assembling", (json_int_t)(trace ? disk + mo->disk_cap : disk),
		"kernel_trace_bytes", (json_int_t)ring, "series", series, "producers", rings));
}

static int add(struct lw_run *run, struct lw_part *p)
{
	if (!p)
		return -1;
	if (lw_run_add(run, p) < 0) {
		p->destroy(p);
		return -1;
	}
	return 0;
}

/* What became of the LTTng-UST provider (loaded once, before the memory
 * lock), for every run's manifest. */
static char ust_why[PATH_MAX + 160];

/* The budgets the run must meet (--budget, its scenario's "budget:"), for
 * analyze: the manifest's "budgets" [{rule, origin}]. */
static void record_budgets(const struct lw_run_opts *o, const struct lw_run_scenario *rs,
			   json_t *manifest)
{
	json_t *a = json_array();
	char origin[160];

	for (int i = 0; i < o->nbudgets; i++) {
		const char *b = o->budget[i];
		int from_file = 0;

		for (int k = 1; o->scenario && k <= rs->nfile && k < rs->argc; k++)
			if (b >= rs->argv[k] && b < rs->argv[k] + strlen(rs->argv[k]))
				from_file = 1;
		if (from_file)
			snprintf(origin, sizeof(origin), "scenario %s", rs->sc.name);
		else
			snprintf(origin, sizeof(origin), "run --budget");
		json_array_append_new(a, json_pack("{s:s, s:s}", "rule", b, "origin", origin));
	}
	json_object_set_new(manifest, "budgets", a);
}

/* The run's actions from --on-threshold and --on-end (checked when parsed). */
static int build_actions(const struct lw_run_opts *o, struct lw_actions *a)
{
	memset(a, 0, sizeof(*a));
	for (int i = 0; i < o->non_threshold; i++) {
		a->nthreshold++;
		if (lw_action_parse(&a->threshold[i], "--on-threshold", o->on_threshold[i]) < 0 ||
		    lw_action_resolve(&a->threshold[i], "--on-threshold") < 0)
			return -1;
		a->cont |= a->threshold[i].kind == LW_ACTION_CONTINUE;
		a->trace |= a->threshold[i].kind == LW_ACTION_TRACE;
	}
	for (int i = 0; i < o->non_end; i++) {
		a->nend++;
		if (lw_action_parse(&a->end[i], "--on-end", o->on_end[i]) < 0 ||
		    lw_action_resolve(&a->end[i], "--on-end") < 0)
			return -1;
	}
	return 0;
}

static void free_actions(struct lw_actions *a)
{
	for (int i = 0; i < a->nthreshold; i++)
		lw_action_free(&a->threshold[i]);
	for (int i = 0; i < a->nend; i++)
		lw_action_free(&a->end[i]);
	a->nthreshold = a->nend = 0;
}

/* One run into @output (@repeat: its place among repeats, or NULL; @pdfd:
 * the repeats' directory @output is made in, else LW_AT_PATH). */
static int one_run(const struct lw_run_opts *o, int pdfd, const char *output, json_t *repeat,
		   struct lw_run_scenario *rs, const struct lw_probe_env *env,
		   const struct lw_probe_plan *plan, struct lw_board *board, const cpu_set_t *online,
		   int argc, char **argv)
{
	struct lw_rundir rd;
	struct lw_run run;
	struct lw_monitor_opts mo;
	struct lw_actions acts;
	struct lw_until *until = NULL;
	char cpus[256];
	int ret = LW_EXIT_ERROR;

	if (build_actions(o, &acts) < 0) {
		free_actions(&acts);
		return LW_EXIT_ERROR;
	}
	if (lw_rundir_create_at(&rd, pdfd, output, o->force) < 0) {
		free_actions(&acts);
		return LW_EXIT_ERROR;
	}

	lw_run_init(&run, &rd);
	run.duration_ns = o->duration_ns;
	run.warmup_ns = o->warmup_ns;
	run.cpus = o->cpus;
	run.progress = o->progress < 0 ? isatty(STDERR_FILENO) : o->progress;
	run.threshold_ns = o->break_ns;
	if (acts.nthreshold || acts.nend)
		run.actions = &acts;
	json_object_set_new(run.dir.manifest, "command", argv_json(argc, argv));
	json_object_set_new(run.dir.manifest, "board", json_string(o->board));
	json_object_set_new(run.dir.manifest, "cpus", json_string(lw_format_cpulist(&o->cpus, cpus,
								    sizeof(cpus))));
	json_object_set_new(run.dir.manifest, "realtime", json_boolean(!o->no_rt));
	json_object_set_new(run.dir.manifest, "system", lw_sysinfo_collect(NULL));
	if (repeat)
		json_object_set_new(run.dir.manifest, "repeat", json_incref(repeat));
	run.marker_fd = open_marker(run.dir.manifest);
	lw_probe_plan_report(plan, run.dir.manifest);
	json_object_set_new(json_object_get(json_object_get(run.dir.manifest, "probes"), "lttng_ust"),
			    "detail", json_string(ust_why));
	if (o->scenario && lw_run_scenario_record(rs, &run) < 0)
		goto fail;
	record_budgets(o, rs, run.dir.manifest);

	struct lw_probe_common pc = {
		.interval_ns = o->interval_ns, .distance_ns = o->distance_ns,
		.priority = o->priority, .no_rt = o->no_rt, .threshold_ns = o->threshold_ns,
		.break_ns = o->break_ns, .aligned = o->probes.aligned,
		.align_ns = o->probes.align_ns,
	};
	/* monitored: a trace only around spikes, so only with --threshold */
	int no_spikes = o->monitor_ns && !o->threshold_ns;
	struct lw_trace_opts to = {
		.mode = no_spikes ? LW_TRACE_OFF :
			!o->trace ? LW_TRACE_AUTO : strcmp(o->trace, "off") ? LW_TRACE_ON : LW_TRACE_OFF,
		.off_reason = no_spikes ? "--monitor without --threshold: no spikes to keep a trace "
					  "around" : NULL,
		.events = o->trace && strcmp(o->trace, "off") ? o->trace : "default",
		/* --break-on: a flight recorder, frozen at the crossing; with
		 * --on-threshold continue and no trace action, the whole run */
		.buffer_bytes = o->trace_buffer,
		.flight = o->break_ns != 0 && !(acts.cont && !acts.trace),
		.monitor = o->monitor_ns != 0,
		.no_kallsyms = o->no_kallsyms,
		.stacks = o->stacks,
	};
	struct lw_part *tracer;
	cpu_set_t hk;

	CPU_AND(&hk, &board->housekeeping, online);
	struct lw_power_sampler_opts po = {
		.root = o->sysfs_root, .mask = o->power_mask, .is_auto = o->power_auto,
		.iio_uri = o->iio_uri, .rate_hz = o->power_rate_hz, .board = board,
		.rate_default = o->power_rate_default,
		.affinity = hk, .has_affinity = board->has_housekeeping && CPU_COUNT(&hk),
	};
	if (lw_board_record(board, run.dir.dfd, run.dir.path) < 0)
		goto fail;
	/* power first, around everything else: its samples span the run as
	 * the manifest's start and end do (the trace's set-up and stop took
	 * 0.11 s of a 3.11 s run outside them); then the trace, started before
	 * and stopped after what it records (lib/trace_rec.h) */
	if (add(&run, lw_power_sampler_new(&po)) < 0)
		goto fail;
	/* on a virtual machine, the steal per CPU through the run: how much the
	 * host took in each spike's window (analyze's host:steal) */
	if (lw_sysinfo_is_vm(json_object_get(run.dir.manifest, "system"))) {
		if (add(&run, lw_steal_sampler_new(NULL, 0,
						   po.has_affinity ? &hk : NULL)) < 0)
			goto fail;
	} else {
		json_object_set_new(run.dir.manifest, "steal_samples", json_pack("{s:n, s:s}",
			"file", "reason", "not a virtual machine (sysinfo's hypervisor)"));
	}
	tracer = lw_trace_new(&to);
	if (add(&run, tracer) < 0)
		goto fail;
	run.monitor_trace = o->monitor_ns && lw_trace_prepared(tracer);
	if (o->monitor_ns) {
		lw_monitor_opts_default(&mo);
		mo.interval_ns = o->monitor_ns;
		mo.threshold_ns = o->threshold_ns;
		mo.pre_ns = mo.post_ns = o->monitor_window_ns;
		mo.disk_cap = o->monitor_disk;
		run.monitor_opts = &mo;
		monitor_bounds(&mo, o, plan, run.monitor_trace ? lw_trace_header_bound(tracer) : 0,
			       run.dir.manifest);
	} else if (o->duration_ns >= 3600 * LW_NSEC_PER_SEC) {
		note("every sample of a run of %s is kept (24 bytes each); --monitor INTERVAL keeps "
		     "histograms per interval and samples around spikes, in bounded memory and disk",
		     lw_format_duration(o->duration_ns, cpus, sizeof(cpus)));
	}
	if (add(&run, lw_pmqos_new(o->pm_qos_us)) < 0)
		goto fail;
	if (o->nidle_caps && add(&run, lw_idlecap_new(o->idle_caps, o->nidle_caps)) < 0)
		goto fail;
	/* the loads before the probes and workloads: a fork while their
	 * threads run holds this process's mmap lock and write-protects its
	 * pages, and blocked both audio streams 2.5 ms at 0.13 s of an
	 * av-stress run (xruns "blocked:latwatt" in every such run) */
	if (o->nloads && add(&run, lw_loads_new(o->load, o->nloads, online, o->no_rt)) < 0)
		goto fail;
	for (size_t i = 0; lw_probes[i]; i++)
		if (lw_plan_on(lw_probes[i], plan) &&
		    add(&run, lw_probes[i]->create(plan, &pc, env)) < 0)
			goto fail;
	for (int i = 0; i < o->nworkloads; i++)
		if (add(&run, lw_workload_new(&run, o->workload[i], o->no_rt)) < 0)
			goto fail;
	if (o->until_decided && !(until = lw_until_start(o, board, &run)))
		goto fail;
	ret = lw_run_execute(&run);
	if (ret == LW_EXIT_OK || ret >= 128)
		note("run directory %s (%s)", run.dir.path, lw_manifest_status(run.dir.manifest));
	if (until)
		ret = lw_until_finish(until, &run, ret);
fail:
	lw_run_destroy(&run);
	free_actions(&acts);
	lw_until_free(until);
	return ret;
}

/*
 * RUN/repeat.json as the directory is: every run directory that exists with
 * its state (analysis/repeat.h), how many are complete, and, once the
 * repeats end, how they ended (@ret of the last run, @at: the run it
 * interrupted or NULL between runs, @after: the last run before it).
 */
static int save_repeat(int pdfd, const char *parent, json_t *rj, int ret, const char *at,
		       const char *after)
{
	json_t *runs = lw_repeat_runs(parent), *names = json_array(), *r;
	char path[PATH_MAX], why[64];
	size_t i, complete = 0;

	if (!runs) {
		json_decref(names);
		return -1;
	}
	json_array_foreach(runs, i, r) {
		json_array_append(names, json_object_get(r, "run"));
		complete += !strcmp(json_string_value(json_object_get(r, "status")), "complete");
	}
	json_object_set_new(rj, "runs", names);
	json_object_set_new(rj, "states", runs);
	json_object_set_new(rj, "complete", json_integer((json_int_t)complete));
	if (ret >= 0) {
		json_object_set_new(rj, "status", json_string(ret == LW_EXIT_OK ? "complete" :
							       "incomplete"));
		if (ret >= 128)
			snprintf(why, sizeof(why), "interrupted by SIG%s",
				 sigabbrev_np(ret - 128) ?: "?");
		else
			snprintf(why, sizeof(why), "error");
		if (ret == LW_EXIT_OK) {
			json_object_set_new(rj, "stopped", json_null());
		} else {
			json_t *st = json_pack("{s:s}", "reason", why);

			/* "during": the run it interrupted (none between runs);
			 * "after": the last run that finished (none before the first) */
			if (at)
				json_object_set_new(st, "during", json_string(at));
			if (after)
				json_object_set_new(st, "after", json_string(after));
			json_object_set_new(rj, "stopped", st);
		}
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/" LW_REPEAT_FILE, parent) >= sizeof(path))
		return error("%s: path too long", parent);
	return lw_json_save_at(pdfd, rj, path);
}

/*
 * --repeat N: RUN/run-01 ... RUN/run-NN, each a complete run directory, with
 * (--repeat auto, @au: a look after each run, up to --max-runs, stopping when
 * decided; the looks in repeat.json's "sequential", cmd/runauto.h)
 * a pause of --settle between them, and RUN/repeat.json saying what was
 * asked and the state of every run directory there (written at the start,
 * after each run and at the end).  A stop signal (during a run or a pause) ends the
 * repeats: the run it interrupted is kept, marked incomplete, as a single
 * run's would be; kernel state is restored by each run.
 */
static int repeat_runs(const struct lw_run_opts *o, struct lw_run_scenario *rs,
		       const struct lw_probe_env *env, const struct lw_probe_plan *plan,
		       struct lw_board *board, const cpu_set_t *online, struct lw_auto *au,
		       int argc, char **argv)
{
	json_t *rj;
	unsigned count = au ? o->max_runs : o->repeat;
	int ret = LW_EXIT_OK, pdfd, width = count > 99 ? 3 : 2;
	char name[32], last[32] = "";
	const char *at = NULL;

	/* made or taken like a run directory, and kept open: each run's
	 * directory is made in it */
	pdfd = lw_dir_make(o->output);
	if (pdfd < 0)
		return LW_EXIT_ERROR;
	if (lw_dir_lock(pdfd, o->output) < 0) {
		close(pdfd);
		return LW_EXIT_ERROR;
	}
	rj = json_pack("{s:s, s:i, s:o, s:I, s:I, s:s}", "schema", "latwatt-repeat",
		       "version", 1, "requested", au ? json_string("auto") : json_integer(o->repeat),
		       "settle_ns", (json_int_t)o->settle_ns, "duration_ns", (json_int_t)o->duration_ns,
		       "status", "running");
	if (au)
		json_object_set(rj, "sequential", au->seq);
	if (save_repeat(pdfd, o->output, rj, -1, NULL, NULL) < 0) {
		json_decref(rj);
		close(pdfd);
		return LW_EXIT_ERROR;
	}
	for (unsigned i = 1; i <= count; i++) {
		char path[PATH_MAX];
		json_t *where;

		snprintf(name, sizeof(name), LW_REPEAT_PREFIX "%0*u", width, i);
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", o->output, name) >= sizeof(path)) {
			ret = error("%s: path too long", o->output);
			break;
		}
		if (i > 1) {
			int sig = lw_run_settle(o->settle_ns);

			if (sig) {
				note("stopped by signal %d between repeats", sig);
				ret = 128 + sig;
				break;
			}
		}
		where = json_pack("{s:I, s:I, s:s}", "index", (json_int_t)i, "of", (json_int_t)count,
				  "parent", o->output);
		at = name;
		ret = one_run(o, pdfd, path, where, rs, env, plan, board, online, argc, argv);
		json_decref(where);
		if (ret != LW_EXIT_OK)
			break;
		at = NULL;
		snprintf(last, sizeof(last), "%s", name);
		if (au) {
			int r = lw_auto_look(au, path);

			if (r < 0)
				ret = LW_EXIT_ERROR;
			if (r != 0)
				break;
		}
		if (save_repeat(pdfd, o->output, rj, -1, NULL, NULL) < 0) {
			ret = LW_EXIT_ERROR;
			break;
		}
	}
	if (save_repeat(pdfd, o->output, rj, ret, at, *last ? last : NULL) < 0 && ret == LW_EXIT_OK)
		ret = LW_EXIT_ERROR;
	note("%s: %lld of %u repeats complete (%s)", o->output,
	     (long long)json_integer_value(json_object_get(rj, "complete")), count,
	     ret == LW_EXIT_OK ? "complete" : "incomplete");
	if (au) {
		int status = lw_auto_finish(au, ret);

		if (save_repeat(pdfd, o->output, rj, ret, at, *last ? last : NULL) < 0)
			status = LW_EXIT_ERROR;
		ret = status;
	}
	close(pdfd);
	json_decref(rj);
	return ret;
}

int cmd_run(int argc, char **argv)
{
	struct lw_run_opts o;
	struct lw_run_scenario rs = { 0 };
	struct lw_probe_env env;
	struct lw_probe_plan plan;
	struct lw_board *board = NULL;
	struct lw_auto au = { 0 };
	cpu_set_t online;
	int ret;

	if (lw_online_cpus(&online) < 0)
		return LW_EXIT_ERROR;
	lw_run_opts_default(&o, &online);
	ret = lw_run_opts_parse(&o, argc, argv, &online);
	if (ret)
		return ret > 0 ? LW_EXIT_OK : LW_EXIT_ERROR;
	ret = LW_EXIT_ERROR;
	if ((o.scenario && lw_run_scenario_apply(&rs, &o, argc, argv, &online) < 0) ||
	    lw_run_preflight(&o, &online) < 0 ||
	    (o.nidle_caps && lw_idlecap_check(o.idle_caps, o.nidle_caps) < 0))
		goto out;
	/* the probes as the scenario and the command line chose them */
	if (lw_probe_env_read(&env, "") < 0 ||
	    lw_probe_plan(&plan, &o.probes, &o.cpus, o.interval_ns, &env) < 0)
		goto out;

	board = lw_board_find(o.board, o.sysfs_root);
	if (!board || check_power_sources(&o, board) < 0)
		goto out;
	if (o.monitor_ns && !o.threshold_ns && o.trace && strcmp(o.trace, "off")) {
		error("--monitor keeps a kernel trace only around spikes: give --threshold, or "
		      "--trace off");
		goto out;
	}
	/* the baseline read before anything is measured */
	if (o.repeat_auto && lw_auto_prepare(&au, &o, board) < 0)
		goto out;
	if (o.until_decided && lw_until_check(&o, board) < 0)
		goto out;
	/* one run at a time on this machine: another would restore the kernel
	 * settings this one changed while it runs (and the reverse) */
	if (lw_run_lock(o.output) < 0)
		goto out;
	lw_run_block_signals();
	if (!o.no_rt && check_rt_allowed(o.priority) < 0)
		goto out;
	/* before the lock, and after the signals are blocked: liblttng-ust's
	 * threads inherit the mask */
	if (lw_ust_load((enum lw_ust_mode)o.lttng, ust_why, sizeof(ust_why)) < 0)
		goto out;
	if (!o.no_rt && lock_memory() < 0)
		goto out;
	ret = o.repeat > 1 || o.repeat_auto ?
	      repeat_runs(&o, &rs, &env, &plan, board, &online, o.repeat_auto ? &au : NULL, argc, argv) :
			     one_run(&o, LW_AT_PATH, o.output, NULL, &rs, &env, &plan, board, &online,
				     argc, argv);
out:
	lw_run_unlock();
	lw_auto_free(&au);
	lw_board_free(board);
	lw_run_scenario_free(&rs);
	return ret;
}
