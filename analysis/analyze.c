// SPDX-License-Identifier: GPL-2.0-only
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "analysis/analyze.h"
#include "analysis/runstate.h"
#include "analysis/timeline.h"
#include "analysis/tradeoff.h"
#include "boards/board.h"
#include "lib/error.h"
#include "power/estimate.h"
#include "power/idle.h"
#include "power/power.h"
#include "workloads/workload.h"

void lw_analyze_opts_default(struct lw_analyze_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->trace = 1;
	o->tp.top = 10;
}

/*
 * "power", "idle" and the trade-off of @doc for board @b; without a board
 * (the run's is not on this machine), the measured power and the idle
 * residency.
 */
static int power_tradeoff(const char *rundir, const struct lw_board *b, json_t *doc)
{
	struct lw_run_power rp;

	if (lw_power_analysis(rundir, b, 0, &rp) < 0)
		return -1;
	if (rp.power) {
		char path[PATH_MAX];
		json_t *tl;

		snprintf(path, sizeof(path), "%s/power", rundir);
		tl = lw_power_timeline(path, (uint64_t)json_integer_value(json_object_get(
			json_object_get(json_object_get(doc, "run"), "start"), "monotonic_ns")), 500);
		if (!tl) {
			json_decref(rp.power);
			json_decref(rp.idle);
			return -1;
		}
		json_object_set_new(rp.power, "timeline", tl);
	}
	json_object_set_new(doc, "power", rp.power ? rp.power : json_null());
	json_object_set_new(doc, "idle", rp.idle ? rp.idle : json_null());
	if (b)
		lw_tradeoff_power(b, doc);
	return 0;
}

/*
 * What the views' headers show of the run, from its manifest, into the
 * document's "run": the views read nothing else of the run directory.
 */
static void run_header(json_t *run, const json_t *m)
{
	const json_t *sys = json_object_get(m, "system"), *cmd = json_object_get(m, "command"), *w;
	const json_t *sc = json_object_get(m, "scenario");
	char line[4096];
	size_t i, n = 0;

	line[0] = 0;
	json_array_foreach(cmd, i, w)
		if (json_is_string(w) && n < sizeof(line))
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s", i ? " " : "",
					      json_string_value(w));
	json_object_set_new(run, "scenario", json_is_string(sc) ? json_incref((json_t *)sc) :
			    json_is_string(json_object_get(sc, "name")) ?
			    json_incref(json_object_get(sc, "name")) : json_null());
	json_object_set_new(run, "command", line[0] ? json_string(line) : json_null());
	json_object_set_new(run, "end", json_deep_copy(json_object_get(m, "end")));
	json_object_set_new(run, "cpus", json_deep_copy(json_object_get(m, "cpus")));
	json_object_set_new(run, "pm_qos", json_deep_copy(json_object_get(m, "pm_qos")));
	/* run --warm-up: its samples are in no figure */
	json_object_set_new(run, "warm_up", json_is_object(json_object_get(m, "warm_up")) ?
			    json_deep_copy(json_object_get(m, "warm_up")) : json_null());
	json_object_set_new(run, "system", json_pack("{s:O?, s:O?, s:O?, s:O?, s:O?, s:O?}",
		"cmdline", json_object_get(sys, "cmdline"),
		"nohz", json_object_get(sys, "nohz"),
		"nohz_full", json_object_get(sys, "nohz_full"),
		"cpu_model", json_object_get(json_object_get(sys, "cpu"), "model"),
		"clocksource", json_object_get(json_object_get(sys, "clocksource"), "current"),
		"machine", json_object_get(json_object_get(sys, "kernel"), "machine")));
}

/* A probes object of the summary without its histograms: the twin's
 * figures, not its distribution again. */
static json_t *probes_figures(const json_t *probes)
{
	json_t *out = json_deep_copy(probes), *p, *c;
	const char *k;
	size_t i;

	json_object_foreach(out, k, p) {
		json_object_del(json_object_get(p, "all"), "histogram");
		json_array_foreach(json_object_get(p, "cpus"), i, c)
			json_object_del(c, "histogram");
	}
	return out;
}

/*
 * "kernel_attributable": the latency figures with the host's time in each
 * spike's window taken off that spike (host.adjust, from the trace pass);
 * the samples below the spike threshold as they are.  Only for a run with
 * its samples (a monitored or imported run has none to take it from).
 */
static int kernel_twin(const struct lw_rundir *rd, const struct lw_summary *sum, json_t *doc)
{
	const json_t *host = json_object_get(doc, "host");
	struct lw_hostadj adj;
	struct lw_summary twin;
	json_t *k, *tdoc;

	if (!host || sum->from_histogram || sum->from_monitor ||
	    !json_is_array(json_object_get(host, "adjust")))
		return 0;
	if (lw_hostadj_from_json(&adj, doc, "analysis") < 0)
		return -1;
	k = json_pack("{s:s, s:O, s:O, s:b}", "what", "latency less the host's time (host: "
		      "causes) in each spike's window; samples below the spike threshold as they are",
		      "host_ns", json_object_get(host, "host_ns"),
		      "spikes", json_object_get(host, "spikes"), "same_as_raw", adj.n == 0);
	if (!adj.n) {
		json_object_set_new(k, "probes", probes_figures(json_object_get(doc, "probes")));
	} else {
		if (lw_summary_load_adj(&twin, rd, sum->threshold_ns, &adj) < 0) {
			lw_hostadj_free(&adj);
			json_decref(k);
			return -1;
		}
		tdoc = lw_summary_json(&twin, rd);
		json_object_set_new(k, "probes", probes_figures(json_object_get(tdoc, "probes")));
		json_decref(tdoc);
		lw_summary_free(&twin);
	}
	lw_hostadj_free(&adj);
	json_object_set_new(doc, "kernel_attributable", k);
	return 0;
}

/* What could not be read, in the document's "problems". */
static void problem(json_t *doc, const char *what)
{
	json_t *p = json_object_get(doc, "problems");

	if (!p) {
		p = json_array();
		json_object_set_new(doc, "problems", p);
	}
	json_array_append_new(p, json_string(what));
}

int lw_analysis_checks(const json_t *doc, const json_t *m, const struct lw_board *b,
		       const char *const *budgets, size_t nbudgets, const char *origin,
		       struct lw_checks *out)
{
	const json_t *thr = json_object_get(doc, "threshold_ns"), *e;
	const char *src = json_string_value(json_object_get(doc, "threshold_source"));
	size_t i;

	if (b && lw_checks_board(b, doc, NULL, out) < 0)
		return -1;
	json_array_foreach(json_object_get(m, "budgets"), i, e) {
		const char *rule = json_string_value(json_object_get(e, "rule"));
		const char *from = json_string_value(json_object_get(e, "origin"));

		if (!rule)
			return error("manifest.json: budgets[%zu] has no rule", i);
		if (lw_checks_rule_text(rule, from ? from : "run --budget", doc, out) < 0)
			return -1;
	}
	for (i = 0; i < nbudgets; i++)
		if (lw_checks_rule_text(budgets[i], origin, doc, out) < 0)
			return -1;
	if (json_is_integer(thr) && json_integer_value(thr) > 0 &&
	    lw_checks_threshold((uint64_t)json_integer_value(thr), src ? src : "--threshold", doc,
				out) < 0)
		return -1;
	lw_checks_unjudged(out, doc);
	return 0;
}

void lw_analysis_judge(json_t *doc, const struct lw_checks *cs, struct lw_run_verdict *v)
{
	struct lw_run_verdict mine;

	if (!v)
		v = &mine;
	json_object_set_new(doc, "checks", lw_checks_json(cs, "budgets"));
	lw_verdict_build(doc, cs, json_object_get(doc, "problems"), v);
	json_object_set_new(doc, "verdict", lw_verdict_json(v));
}

/* The hwnoise probe's per-period figures per CPU, from the manifest (its
 * NMIs and threads stay there). */
static void hwnoise_figures(json_t *doc, const json_t *manifest)
{
	static const char *const keys[] = {
		"cpu", "periods", "runtime_us", "noise_us", "max_single_us", "hw_count",
		"nmi_count", "gaps", "gaps_max_ns",
	};
	const json_t *h = json_object_get(json_object_get(manifest, "probes"), "hwnoise"), *c;
	json_t *out, *cpus;
	size_t i;

	if (!json_is_array(json_object_get(h, "per_cpu")))
		return;
	cpus = json_array();
	json_array_foreach(json_object_get(h, "per_cpu"), i, c) {
		json_t *o = json_object();

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (json_is_integer(json_object_get(c, keys[k])))
				json_object_set(o, keys[k], json_object_get(c, keys[k]));
		json_array_append_new(cpus, o);
	}
	out = json_pack("{s:o}", "per_cpu", cpus);
	if (json_is_integer(json_object_get(h, "gap_threshold_ns")))
		json_object_set(out, "gap_threshold_ns", json_object_get(h, "gap_threshold_ns"));
	if (json_is_integer(json_object_get(h, "period_ns")))
		json_object_set(out, "period_ns", json_object_get(h, "period_ns"));
	json_object_set_new(out, "nmis", json_integer((json_int_t)json_array_size(
		json_object_get(h, "nmis")) + json_integer_value(json_object_get(h, "nmis_not_kept"))));
	json_object_set_new(doc, "hwnoise", out);
}


int lw_analyze_run(const struct lw_rundir *rd, const struct lw_analyze_opts *o,
		   struct lw_summary *sum, json_t **doc, int *partial)
{
	uint64_t threshold = o->threshold_ns;
	struct lw_tracepass_opts tp = o->tp;
	struct lw_run_state st;
	struct lw_checks cs = { 0 };
	struct lw_run_verdict v;
	struct lw_board *b;
	json_t *wl;
	char msg[512];

	*doc = NULL;
	*partial = 0;
	/* the run as its files show it: a file cut short makes it truncated,
	 * and every reader below then takes the whole records that are there */
	if (lw_run_state(rd, &st) < 0)
		return -1;
	lw_run_state_apply(&st, rd->manifest);
	lw_run_state_free(&st);
	if (!o->have_threshold)
		threshold = (uint64_t)json_integer_value(json_object_get(json_object_get(
			json_object_get(rd->manifest, "probes"), "cyclic"), "threshold_ns"));
	if (o->board) {
		b = lw_board_for_run(rd->path, o->board);
		if (!b)
			return -1;
	} else {
		/* a run from elsewhere may name a board this machine lacks:
		 * then no estimate, trade-off or budgets, the rest as usual */
		int q = lw_set_quiet(1);

		b = lw_board_for_run(rd->path, NULL);
		lw_set_quiet(q);
		if (!b)
			warning("%s: %s: the run's board is not on this machine: no power estimate, "
				"PM QoS trade-off or budgets", rd->path, lw_last_error());
	}
	if (lw_summary_load(sum, rd, threshold) < 0) {
		lw_board_free(b);
		return -1;
	}
	*doc = lw_summary_json(sum, rd);
	if (!*doc) {
		lw_summary_free(sum);
		lw_board_free(b);
		return error("out of memory");
	}
	run_header(json_object_get(*doc, "run"), rd->manifest);
	/* SMIs counted at the start and the end of the run (lib/smi.h) */
	if (json_is_object(json_object_get(rd->manifest, "smi")))
		json_object_set_new(*doc, "smi", json_deep_copy(json_object_get(rd->manifest, "smi")));
	hwnoise_figures(*doc, rd->manifest);
	if (threshold)
		json_object_set_new(*doc, "threshold_source", json_string(o->have_threshold ?
				    "analyze --threshold" : "run --threshold"));
	wl = lw_workload_summaries(rd->path);	/* audio/video records, stress throughput */
	if (!wl) {
		*partial = 1;
		snprintf(msg, sizeof(msg), "the workload records could not be read: %s",
			 lw_last_error());
		problem(*doc, msg);
	}
	if (o->trace) {
		/* the board's latency budget is a default spike threshold; each
		 * listed deadline miss is explained by its own window */
		tp.board = b;
		tp.workloads = json_object_size(wl) ? wl : NULL;
		lw_clear_error();
		if (lw_tracepass(rd, *doc, &tp) < 0) {
			*partial = 1;
			snprintf(msg, sizeof(msg), "the trace could not be read: %s", lw_last_error());
			problem(*doc, msg);
			json_object_set_new(*doc, "trace_error", json_string(lw_last_error()));
		} else if (kernel_twin(rd, sum, *doc) < 0) {
			*partial = 1;
			snprintf(msg, sizeof(msg), "the kernel-attributable figures could not be "
				 "computed: %s", lw_last_error());
			problem(*doc, msg);
		}
	}
	if (json_object_size(wl))
		json_object_set(*doc, "workloads", wl);
	json_decref(wl);
	lw_checks_set_judge(*doc, rd->manifest, o->judge);
	if (power_tradeoff(rd->path, b, *doc) < 0 ||
	    lw_analysis_checks(*doc, rd->manifest, b, o->budgets, o->nbudgets, "--budget",
			       &cs) < 0) {
		lw_checks_free(&cs);
		lw_board_free(b);
		json_decref(*doc);
		*doc = NULL;
		lw_summary_free(sum);
		return -1;
	}
	json_object_set_new(*doc, "board_checked", b ? json_string(b->name) : json_null());
	lw_analysis_judge(*doc, &cs, &v);
	lw_checks_free(&cs);
	lw_board_free(b);
	return lw_verdict_exit(&v);
}
