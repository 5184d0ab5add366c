// SPDX-License-Identifier: GPL-2.0-only
/* The verdict of a run, built once from its analysis and checks. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/tracepass.h"
#include "analysis/verdict.h"
#include "lib/error.h"
#include "lib/samples.h"
#include "workloads/rkind.h"

static const char *const outcome_words[] = {
	[LW_OUTCOME_PASS] = "PASS", [LW_OUTCOME_FAIL] = "FAIL",
	[LW_OUTCOME_INCOMPLETE] = "INCOMPLETE", [LW_OUTCOME_NONE] = "NO VERDICT",
};

const char *lw_outcome_word(enum lw_outcome o)
{
	return (size_t)o < sizeof(outcome_words) / sizeof(outcome_words[0]) ? outcome_words[o] : "?";
}

int lw_verdict_exit(const struct lw_run_verdict *v)
{
	if (v->unreadable)
		return 2;
	switch (v->outcome) {
	case LW_OUTCOME_FAIL:
		return 1;
	case LW_OUTCOME_INCOMPLETE:
		return 2;
	default:
		return 0;
	}
}

static int64_t inum(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? (int64_t)json_number_value(v) : -1;
}

/* The check of the "budgets" suite that judges the misses of @metric
 * (its own metric first, then every workload's "deadline_misses"). */
static const struct lw_check *deadline_check(const struct lw_checks *cs, const char *metric)
{
	const struct lw_check *any = NULL;

	for (size_t i = 0; cs && i < cs->n; i++) {
		const struct lw_check *c = &cs->c[i];

		if (strcmp(c->suite, "budgets") || c->result == LW_SKIP)
			continue;
		if (!strcmp(c->metric, metric) && (!any || strcmp(any->metric, metric) ||
						   c->result == LW_FAIL))
			any = c;
		else if (!strcmp(c->metric, "deadline_misses") && !any)
			any = c;
	}
	return any;
}

static void deadlines(const json_t *an, const struct lw_checks *cs, struct lw_run_verdict *v)
{
	const json_t *w;
	const char *name;

	json_object_foreach((json_t *)json_object_get(an, "workloads"), name, w) {
		const char *kind = json_string_value(json_object_get(w, "kind"));
		const struct lw_rkind *rk = kind ? lw_rkind_find(kind) : NULL;
		const json_t *mc = json_object_get(w, "miss_causes"), *n;
		const struct lw_check *c;
		struct lw_deadline *d;
		const char *cause;

		if (!rk)
			continue;	/* no deadlines: stress, loads */
		if (v->ndl_total++ >= LW_VERDICT_DEADLINES)
			continue;
		d = &v->dl[v->ndl++];
		memset(d, 0, sizeof(*d));
		snprintf(d->workload, sizeof(d->workload), "%s", name);
		snprintf(d->noun, sizeof(d->noun), "%s", rk->noun);
		snprintf(d->unit, sizeof(d->unit), "%s", rk->total_key);
		d->total = inum(w, rk->total_key);
		d->misses = inum(w, rk->miss_key);
		c = deadline_check(cs, rk->metric);
		d->result = c ? c->result : LW_SKIP;
		if (c)
			snprintf(d->check, sizeof(d->check), "%.60s, %.90s", c->rule, c->origin);
		d->cause_misses = 0;
		json_object_foreach((json_t *)mc, cause, n) {
			int64_t k = json_is_integer(n) ? json_integer_value(n) : 0;

			if (!strcmp(cause, LW_MISS_UNEXPLAINED))
				continue;
			d->explained += k;
			if (k > d->cause_misses) {
				d->cause_misses = k;
				snprintf(d->cause, sizeof(d->cause), "%s", cause);
			}
		}
	}
}

/* The largest wake-up latency, with what the trace pass said of it. */
static void worst(const json_t *an, struct lw_run_verdict *v)
{
	const json_t *probes = json_object_get(an, "probes"), *p, *c, *top, *e;
	const json_t *spikes = json_object_get(an, "spikes");
	struct lw_worst *w = &v->worst;
	int64_t start = inum(json_object_get(json_object_get(an, "run"), "start"), "monotonic_ns");
	const char *name;
	size_t i;
	int id = -1;

	memset(w, 0, sizeof(*w));
	w->cpu = -1;
	w->at_ns = -1;
	w->pid = -1;
	w->ours = -1;
	json_object_foreach((json_t *)probes, name, p) {
		const json_t *mx = json_object_get(json_object_get(p, "all"), "max_ns");
		int pid = lw_probe_by_name(name);

		if (pid < 0 || !lw_probe_wakeup((unsigned)pid) || !json_is_integer(mx))
			continue;
		if (!w->have || (uint64_t)json_integer_value(mx) > w->latency_ns) {
			w->have = 1;
			w->latency_ns = (uint64_t)json_integer_value(mx);
			snprintf(w->probe, sizeof(w->probe), "%s", name);
			id = pid;
			w->cpu = -1;
			json_array_foreach(json_object_get(p, "cpus"), i, c)
				if (json_is_integer(json_object_get(c, "max_ns")) &&
				    (uint64_t)json_integer_value(json_object_get(c, "max_ns")) ==
				    w->latency_ns) {
					w->cpu = (int)inum(c, "cpu");
					break;
				}
		}
	}
	if (!w->have)
		return;
	if (!json_is_object(spikes)) {
		snprintf(w->why, sizeof(w->why), "no trace analyzed");
		return;
	}
	top = json_object_get(spikes, "top");
	json_array_foreach(top, i, e) {
		if (inum(e, "probe") != id || (uint64_t)inum(e, "latency_ns") != w->latency_ns)
			continue;
		if (w->cpu < 0 || inum(e, "cpu") == w->cpu) {
			const char *cause = json_string_value(json_object_get(e, "cause"));
			const char *un = json_string_value(json_object_get(e, "unattributable"));
			const json_t *task = json_object_get(e, "cause_task");

			w->cpu = (int)inum(e, "cpu");
			if (start > 0 && inum(e, "expected_ns") >= start)
				w->at_ns = inum(e, "expected_ns") - start;
			if (un)
				snprintf(w->why, sizeof(w->why), "unattributable: %s", un);
			else
				snprintf(w->cause, sizeof(w->cause), "%s", cause ? cause : "");
			if (json_is_object(task)) {
				const json_t *ours = json_object_get(task, "this_run");
				const char *role = json_string_value(json_object_get(task, "role"));

				w->pid = (int)inum(task, "pid");
				w->ours = json_is_boolean(ours) ? json_is_true(ours) : -1;
				snprintf(w->task_role, sizeof(w->task_role), "%s", role ? role : "");
			}
			return;
		}
	}
	snprintf(w->why, sizeof(w->why), "not explained: not above the spike threshold");
}

/* " kernel-attributable, raw 880 us": a check judged on the
 * kernel-attributable figure says so, and what the raw one was. */
static const char *raw_words(const struct lw_check *c)
{
	static _Thread_local char buf[64];

	if (!c->kernel)
		return "";
	snprintf(buf, sizeof(buf), " kernel-attributable, raw %.10g%s%.7s", c->raw,
		 strcmp(c->unit, "count") ? " " : "", strcmp(c->unit, "count") ? c->unit : "");
	return buf;
}

void lw_verdict_build(const json_t *an, const struct lw_checks *cs, const json_t *problems,
		      struct lw_run_verdict *v)
{
	const json_t *run = json_object_get(an, "run"), *pr;
	const char *state = json_string_value(json_object_get(run, "status"));
	const char *reason = json_string_value(json_object_get(run, "status_reason"));
	size_t i;

	memset(v, 0, sizeof(*v));
	snprintf(v->state, sizeof(v->state), "%s", state ? state : "unknown");
	if (strcmp(v->state, "complete"))
		snprintf(v->reason, sizeof(v->reason), "the run is %s%s%s", v->state,
			 reason ? ": " : "", reason ? reason : "");
	v->unreadable = !strcmp(v->state, "truncated") || json_array_size(problems) > 0;
	json_array_foreach(problems, i, pr) {
		size_t l = strlen(v->reason);

		if (json_is_string(pr))
			snprintf(v->reason + l, sizeof(v->reason) - l, "%s%s", l ? "; " : "",
				 json_string_value(pr));
	}
	for (i = 0; cs && i < cs->n; i++) {
		const struct lw_check *c = &cs->c[i];

		if (strcmp(c->suite, "budgets"))
			continue;
		v->nchecks++;
		v->nskipped += c->result == LW_SKIP;
		if (c->result != LW_FAIL)
			continue;
		if (v->nbroken < LW_VERDICT_BROKEN) {
			const char *none = strstr(c->rule, ": none over ");

			if (isnan(c->measured))	/* not known, only bounded: say so */
				snprintf(v->broken[v->nbroken], sizeof(v->broken[0]), "%.50s: %.100s",
					 c->rule, c->message);
			else if (!strcmp(c->metric, "threshold") && none)
				snprintf(v->broken[v->nbroken], sizeof(v->broken[0]),
					 "%.*s: %.0f samples over %.20s%s (%.60s)",
					 (int)(none - c->rule), c->rule, c->measured,
					 none + strlen(": none over "), raw_words(c), c->origin);
			else
				snprintf(v->broken[v->nbroken], sizeof(v->broken[0]),
					 "%.50s: %.10g%s%s%s (%.60s)", c->rule, c->measured,
					 strcmp(c->unit, "count") ? " " : "",
					 strcmp(c->unit, "count") ? c->unit : "", raw_words(c), c->origin);
		}
		v->nbroken++;
	}
	deadlines(an, cs, v);
	worst(an, v);
	if (v->nbroken)
		v->outcome = LW_OUTCOME_FAIL;
	else if (v->reason[0])
		v->outcome = LW_OUTCOME_INCOMPLETE;
	else if (v->nchecks == v->nskipped)
		v->outcome = LW_OUTCOME_NONE;
	else
		v->outcome = LW_OUTCOME_PASS;
}

static const char *const result_names[] = {
	[LW_PASS] = "pass", [LW_FAIL] = "fail", [LW_SKIP] = "none",
};

static json_t *opt_int(int64_t v)
{
	return v < 0 ? json_null() : json_integer((json_int_t)v);
}

static json_t *opt_str(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

json_t *lw_verdict_json(const struct lw_run_verdict *v)
{
	json_t *dl = json_array(), *broken = json_array(), *o;
	const struct lw_worst *w = &v->worst;

	for (size_t i = 0; i < v->ndl; i++) {
		const struct lw_deadline *d = &v->dl[i];

		json_array_append_new(dl, json_pack("{s:s, s:s, s:s, s:o, s:o, s:s, s:o, s:o, s:I, s:I}",
			"workload", d->workload, "noun", d->noun, "unit", d->unit,
			"total", opt_int(d->total), "misses", opt_int(d->misses),
			"result", result_names[d->result], "check", opt_str(d->check),
			"cause", opt_str(d->cause), "cause_misses", (json_int_t)d->cause_misses,
			"explained", (json_int_t)d->explained));
	}
	for (size_t i = 0; i < v->nbroken && i < LW_VERDICT_BROKEN; i++)
		json_array_append_new(broken, json_string(v->broken[i]));
	o = json_pack("{s:s, s:i, s:b, s:s, s:o, s:o, s:I, s:I, s:I, s:I, s:o}",
		"result", lw_outcome_word(v->outcome), "exit_status", lw_verdict_exit(v),
		"unreadable", v->unreadable,
		"state", v->state, "reason", opt_str(v->reason), "deadlines", dl,
		"deadline_workloads", (json_int_t)v->ndl_total,
		"checks", (json_int_t)v->nchecks, "broken", (json_int_t)v->nbroken,
		"not_judged", (json_int_t)v->nskipped, "broken_checks", broken);
	json_object_set_new(o, "worst", !w->have ? json_null() :
		json_pack("{s:s, s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o}",
			  "probe", w->probe, "cpu", opt_int(w->cpu),
			  "latency_ns", (json_int_t)w->latency_ns, "at_ns", opt_int(w->at_ns),
			  "cause", opt_str(w->cause), "why", opt_str(w->why),
			  "pid", opt_int(w->pid),
			  "this_run", w->ours < 0 ? json_null() : json_boolean(w->ours),
			  "task_role", opt_str(w->task_role)));
	return o;
}

/* Copy string @key of @o into @buf; a null is "". */
static int get_str(const json_t *o, const char *key, char *buf, size_t len)
{
	const json_t *s = json_object_get(o, key);

	if (json_is_null(s)) {
		buf[0] = 0;
		return 0;
	}
	if (!json_is_string(s) || strlen(json_string_value(s)) >= len)
		return -1;
	snprintf(buf, len, "%s", json_string_value(s));
	return 0;
}

static int get_int(const json_t *o, const char *key, int64_t *v)
{
	const json_t *x = json_object_get(o, key);

	if (json_is_null(x)) {
		*v = -1;
		return 0;
	}
	if (!json_is_integer(x))
		return -1;
	*v = json_integer_value(x);
	return 0;
}

int lw_verdict_from_json(const json_t *j, const char *what, struct lw_run_verdict *v)
{
	const char *res = json_string_value(json_object_get(j, "result"));
	const json_t *e, *w = json_object_get(j, "worst");
	int64_t n;
	size_t i;
	int o;

	memset(v, 0, sizeof(*v));
	for (o = 0; o <= LW_OUTCOME_NONE && (!res || strcmp(res, outcome_words[o])); o++)
		;
	if (o > LW_OUTCOME_NONE || get_str(j, "state", v->state, sizeof(v->state)) ||
	    get_str(j, "reason", v->reason, sizeof(v->reason)) ||
	    get_int(j, "checks", &n) || n < 0)
		goto bad;
	v->outcome = (enum lw_outcome)o;
	v->unreadable = json_is_true(json_object_get(j, "unreadable"));
	v->nchecks = (size_t)n;
	if (get_int(j, "broken", &n) || n < 0)
		goto bad;
	v->nbroken = (size_t)n;
	if (get_int(j, "not_judged", &n) || n < 0)
		goto bad;
	v->nskipped = (size_t)n;
	if (get_int(j, "deadline_workloads", &n) || n < 0)
		goto bad;
	v->ndl_total = (size_t)n;
	json_array_foreach(json_object_get(j, "broken_checks"), i, e)
		if (i < LW_VERDICT_BROKEN && json_is_string(e))
			snprintf(v->broken[i], sizeof(v->broken[i]), "%s", json_string_value(e));
	json_array_foreach(json_object_get(j, "deadlines"), i, e) {
		struct lw_deadline *d;
		const char *r = json_string_value(json_object_get(e, "result"));
		int k;

		if (i >= LW_VERDICT_DEADLINES)
			break;
		d = &v->dl[v->ndl++];
		for (k = 0; k < 3 && (!r || strcmp(r, result_names[k])); k++)
			;
		if (k == 3 || get_str(e, "workload", d->workload, sizeof(d->workload)) ||
		    get_str(e, "noun", d->noun, sizeof(d->noun)) ||
		    get_str(e, "unit", d->unit, sizeof(d->unit)) ||
		    get_str(e, "check", d->check, sizeof(d->check)) ||
		    get_str(e, "cause", d->cause, sizeof(d->cause)) ||
		    get_int(e, "total", &d->total) || get_int(e, "misses", &d->misses) ||
		    get_int(e, "cause_misses", &d->cause_misses) ||
		    get_int(e, "explained", &d->explained))
			goto bad;
		d->result = (enum lw_verdict)k;
	}
	v->worst.cpu = -1;
	v->worst.at_ns = -1;
	v->worst.pid = -1;
	v->worst.ours = -1;
	if (json_is_object(w)) {
		struct lw_worst *x = &v->worst;
		const json_t *ours = json_object_get(w, "this_run");
		int64_t cpu, pid;

		x->have = 1;
		if (get_str(w, "probe", x->probe, sizeof(x->probe)) ||
		    get_str(w, "cause", x->cause, sizeof(x->cause)) ||
		    get_str(w, "why", x->why, sizeof(x->why)) ||
		    get_str(w, "task_role", x->task_role, sizeof(x->task_role)) ||
		    get_int(w, "cpu", &cpu) || get_int(w, "pid", &pid) ||
		    get_int(w, "at_ns", &x->at_ns) || get_int(w, "latency_ns", &n) || n < 0)
			goto bad;
		x->latency_ns = (uint64_t)n;
		x->cpu = (int)cpu;
		x->pid = (int)pid;
		x->ours = json_is_boolean(ours) ? json_is_true(ours) : -1;
	}
	return 0;
bad:
	return error("%s: \"verdict\" is malformed", what);
}
