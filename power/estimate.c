// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/trace_read.h"
#include "boards/board.h"
#include "lib/error.h"
#include "lib/input.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/safefile.h"
#include "power/estimate.h"
#include "power/idle.h"
#include "power/model.h"
#include "power/power.h"

/* RUN/idle.json (NULL with error() when absent or malformed). */
static json_t *idle_load(const char *rundir)
{
	char path[PATH_MAX];
	json_t *j;
	const char *fmt;

	snprintf(path, sizeof(path), "%s/idle.json", rundir);
	j = lw_json_load_flags(path, LW_IN_NOFOLLOW, LW_CAP_MANIFEST);
	if (!j)
		return NULL;
	fmt = json_string_value(json_object_get(j, "format"));
	if (!fmt || strcmp(fmt, LW_IDLE_FORMAT) ||
	    json_integer_value(json_object_get(j, "version")) < 1 ||
	    json_integer_value(json_object_get(j, "version")) > LW_IDLE_VERSION) {
		json_decref(j);
		error("%s: not a latwatt idle file of version 1 to %d", path, LW_IDLE_VERSION);
		return NULL;
	}
	return j;
}

long lw_pm_feed_trace(const char *trace_path, struct lw_pm_model *m)
{
	/* through the trace reader: the file is validated before any library
	 * parses it, and no plugins are loaded */
	struct lw_trace *t = lw_trace_open(trace_path, LW_TRACE_RUNDIR);
	struct lw_trace_event ev;
	int idle, freq, ret;
	long n = 0;

	if (!t)
		return -1;
	idle = lw_trace_event_id(t, "power", "cpu_idle");
	freq = lw_trace_event_id(t, "power", "cpu_frequency");
	if (idle < 0) {
		lw_trace_close(t);
		return error("%s: the trace has no power:cpu_idle events (trace them to estimate power)",
			     trace_path);
	}
	while ((ret = lw_trace_next(t, &ev)) > 0) {
		uint64_t state, cpu_id;
		struct lw_pm_event pe;

		if (ev.id != idle && ev.id != freq)
			continue;
		if (lw_trace_u64(t, &ev, "state", &state) < 0 ||
		    lw_trace_u64(t, &ev, "cpu_id", &cpu_id) < 0)
			continue;
		pe.ts = ev.ts_ns;
		pe.cpu = (int)cpu_id;
		pe.type = ev.id == idle ? LW_PM_IDLE : LW_PM_FREQ;
		pe.value = (uint32_t)state;
		if (lw_pm_model_event(m, &pe) < 0) {
			ret = -1;
			break;
		}
		n++;
	}
	lw_trace_close(t);
	return ret < 0 ? -1 : n;
}

/* Idle state names of CPU 0 from the run's sysinfo. */
static int state_names(const json_t *manifest, const char **names, int max)
{
	const json_t *cpus = json_object_get(json_object_get(json_object_get(manifest, "system"),
							     "cpuidle"), "cpus");
	const json_t *st;
	size_t i;
	int n = 0;

	json_array_foreach(json_object_get(json_array_get(cpus, 0), "states"), i, st) {
		if (n >= max)
			break;
		names[n++] = json_string_value(json_object_get(st, "name"));
	}
	return n;
}

/* Does @manifest's trace hold only windows around spikes (a monitored
 * run)?  Then @kept_s is the time they cover. */
static int windows_only(const json_t *manifest, double *kept_s)
{
	const json_t *t = json_object_get(manifest, "trace"), *w;
	size_t i;

	*kept_s = 0;
	if (strcmp(json_string_value(json_object_get(t, "mode")) ?: "", "monitor"))
		return 0;
	json_array_foreach(json_object_get(t, "windows"), i, w)
		*kept_s += (double)(json_integer_value(json_object_get(w, "to_ns")) -
				    json_integer_value(json_object_get(w, "from_ns"))) / 1e9;
	return 1;
}

/* lw_power_estimate(); with @skipped, a monitored run's trace (windows
 * only) is not an error: said in a note, *@skipped set, 0 returned.  @say:
 * a note of the estimate made (analyze and report say it in their power
 * section instead, after the verdict). */
static int estimate(const char *rundir, const struct lw_board *b, uint64_t bin_ns, int force,
		    int *skipped, int say)
{
	char path[PATH_MAX], tpath[PATH_MAX];
	struct lw_rundir rd;
	const char *names[32];
	struct lw_pm_opts o = { .board = b, .bin_ns = bin_ns };
	struct lw_pm_model *m;
	struct lw_power_writer *w;
	json_t *idle;
	long n;
	int ret = -1;

	if (lw_rundir_open(&rd, rundir) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/power", rundir);
	snprintf(tpath, sizeof(tpath), "%s/trace.dat", rundir);
	if (!force && access(path, F_OK) == 0) {
		error("%s exists (measured or estimated before): use --force to replace it", path);
		goto out;
	}
	if (access(tpath, R_OK) < 0) {
		error_errno("%s: cannot estimate power without the run's trace", tpath);
		goto out;
	}
	o.start_ns = (uint64_t)json_integer_value(json_object_get(json_object_get(rd.manifest, "start"),
								  "monotonic_ns"));
	o.end_ns = (uint64_t)json_integer_value(json_object_get(json_object_get(rd.manifest, "end"),
								"monotonic_ns"));
	if (!o.start_ns || o.end_ns <= o.start_ns) {
		error("%s/manifest.json: no start and end time (a run killed before it ended?)", rundir);
		goto out;
	}
	{
		double kept;

		/* idle states between windows are unknown: an estimate would
		 * extrapolate a few seconds to the whole run */
		if (windows_only(rd.manifest, &kept)) {
			if (skipped) {
				note("%s: no power estimate: a monitored run's trace holds only the "
				     "windows around spikes (%.1f s)", rundir, kept);
				*skipped = 1;
				ret = 0;
			} else {
				error("%s: a monitored run's trace holds only the windows around "
				      "spikes (%.1f s of %.1f s): no power estimate from it (measure "
				      "with --power)", tpath, kept, (double)(o.end_ns - o.start_ns) / 1e9);
			}
			goto out;
		}
	}
	o.ncpus = (int)json_integer_value(json_object_get(json_object_get(json_object_get(rd.manifest,
						"system"), "cpu"), "count"));
	if (o.ncpus < b->ncpus)
		o.ncpus = b->ncpus;
	if (o.ncpus <= 0)
		o.ncpus = 1;
	o.nstate_names = state_names(rd.manifest, names, 32);
	o.state_names = names;
	m = lw_pm_model_new(&o);
	if (!m)
		goto out;
	n = lw_pm_feed_trace(tpath, m);
	if (n < 0) {
		lw_pm_model_free(m);
		goto out;
	}
	lw_pm_model_finish(m);
	w = lw_power_create(LW_AT_PATH, path, o.start_ns, 0);
	if (!w) {
		lw_pm_model_free(m);
		goto out;
	}
	ret = lw_pm_model_write(m, w, 0);
	if (lw_power_close(w, o.end_ns) < 0)
		ret = -1;
	/* the traced idle accounting joins the counters' */
	int q = lw_set_quiet(1);

	idle = idle_load(rundir);
	lw_set_quiet(q);
	if (!idle) {
		idle = json_pack("{s:s, s:i, s:I}", "format", LW_IDLE_FORMAT, "version", LW_IDLE_VERSION,
				 "duration_ns", (json_int_t)(o.end_ns - o.start_ns));
	}
	json_object_set_new(idle, "trace", lw_pm_model_idle(m));
	snprintf(path, sizeof(path), "%s/idle.json", rundir);
	if (lw_json_save(idle, path) < 0)
		ret = -1;
	json_decref(idle);
	if (ret == 0 && say)
		note("%s/power: estimated %.3f J (%.3f W average) over %.2f s, the run from its "
		     "start to its end, from %ld trace events, board %s",
		     rundir, lw_pm_model_energy_j(m),
		     lw_pm_model_energy_j(m) / ((double)(o.end_ns - o.start_ns) / 1e9),
		     (double)(o.end_ns - o.start_ns) / 1e9, n, b->name);
	lw_pm_model_free(m);
out:
	lw_rundir_close(&rd);
	return ret;
}

int lw_power_estimate(const char *rundir, const struct lw_board *b, uint64_t bin_ns, int force)
{
	return estimate(rundir, b, bin_ns, force, NULL, 1);
}

static int no_point(void *ctx, const struct lw_power_rail *r, int rail,
		    const struct lw_power_point *p)
{
	return 0;
}

/* The board whose model estimated RUN/power from the trace (the detail of
 * its model/total rail, as lw_pm_model_write() writes it) into @name; 0
 * when RUN/power is not such an estimate (measured, or the model sampled
 * during the run). */
static int trace_estimate_board(const char *path, char *name, size_t len)
{
	static const char pre[] = "board ", mid[] = " energy model over traced ";
	struct lw_power_data *d;
	int q = lw_set_quiet(1), found = 0, r;

	d = lw_power_scan(path, no_point, NULL);
	lw_set_quiet(q);
	r = d ? lw_power_find_rail(d, "model/total") : -1;
	if (r >= 0 && !strcmp(d->rail[r].source, "model") &&
	    !strncmp(d->rail[r].detail, pre, strlen(pre))) {
		const char *b = d->rail[r].detail + strlen(pre), *e = strstr(b, mid);

		if (e && (size_t)(e - b) < len) {
			snprintf(name, len, "%.*s", (int)(e - b), b);
			found = 1;
		}
	}
	lw_power_data_free(d);
	return found;
}

int lw_power_analysis(const char *rundir, const struct lw_board *b, int need,
		      struct lw_run_power *out)
{
	char path[PATH_MAX], tpath[PATH_MAX], by[128];
	int have, q;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/power", rundir);
	snprintf(tpath, sizeof(tpath), "%s/trace.dat", rundir);
	have = access(path, F_OK) == 0;
	/* an estimate made with another board's model is not this board's
	 * power: its budgets were checked against it (board rpi4's average
	 * power read 1999 mW from board local's model, beside rpi4's trade-off
	 * at 4240 mW).  Estimated again with this board's model; a measured
	 * RUN/power is the run's own and is kept. */
	if (have && b && trace_estimate_board(path, by, sizeof(by)) && strcmp(by, b->name) &&
	    access(tpath, F_OK) == 0) {
		note("%s: estimated with board %s's energy model: estimated again with board %s's",
		     path, by, b->name);
		if (estimate(rundir, b, 100 * LW_NSEC_PER_MSEC, 1, NULL, 0) < 0)
			return -1;
	}
	if (!have && b && (need || access(tpath, F_OK) == 0)) {
		int skipped = 0;

		/* analyze and report: a monitored run's trace is no error */
		if (estimate(rundir, b, 100 * LW_NSEC_PER_MSEC, 0, need ? NULL : &skipped, 0) < 0)
			return -1;
		have = !skipped;
	}
	if (have || need) {
		out->power = lw_power_summarize_file(path);
		if (!out->power)
			return -1;
	}
	q = lw_set_quiet(1);	/* a run without idle information has no idle section */
	out->idle = idle_load(rundir);
	lw_set_quiet(q);
	return 0;
}
