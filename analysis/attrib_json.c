// SPDX-License-Identifier: GPL-2.0-only
/* The spike attribution read out: the spikes kept, a spike's cause and
 * components in words, and the "spikes" object of analysis.json. */
#include <stdlib.h>
#include <string.h>

#include "analysis/attrib.h"
#include "analysis/attrib_int.h"
#include "lib/error.h"
#include "lib/sort.h"

const struct lw_spike *lw_attrib_get(const struct lw_attrib *a, size_t i)
{
	return i < a->nkeep ? &a->keep[i] : NULL;
}

const char *lw_spike_cause(const struct lw_spike *s, char *buf, size_t len)
{
	if (s->unattributable)
		return "unattributable";
	if (s->work && s->period_ns && s->work_ns > s->period_ns)
		return LW_OWN_WORK;
	if (s->dominant < 0)
		return s->work_ns ? "work" : "?";
	return lw_component_label(&s->comp[s->dominant], buf, len);
}

/* The section of kind @k that explains a cause of kind @kind, or -1. */
static int section_for(const struct lw_spike *s, enum lw_comp_kind kind)
{
	int irqs = s->sect[LW_SECT_IRQS].to > 0, pre = s->sect[LW_SECT_PREEMPT].to > 0;
	uint64_t ni = s->sect[LW_SECT_IRQS].to - s->sect[LW_SECT_IRQS].from;
	uint64_t np = s->sect[LW_SECT_PREEMPT].to - s->sect[LW_SECT_PREEMPT].from;

	switch (kind) {
	case LW_C_TIMER_LATE:	/* the timer's interrupt held back */
	case LW_C_UNEXPLAINED:
		return irqs ? LW_SECT_IRQS : -1;
	case LW_C_NONPREEMPT:	/* either keeps the probe off its CPU */
		return irqs && (!pre || ni >= np) ? LW_SECT_IRQS : pre ? LW_SECT_PREEMPT : -1;
	default:
		return -1;
	}
}

const char *lw_spike_where(const struct lw_spike *s, char *buf, size_t len)
{
	int dom = !s->unattributable && s->dominant >= 0;
	int pid = dom ? s->comp[s->dominant].pid : -1;
	const char *w = pid > 0 && s->code[0].pid == pid ? s->code[0].where : NULL;
	const char *x = pid > 0 && s->code[1].pid == pid ? s->code[1].where : NULL;
	int k = dom ? section_for(s, s->comp[s->dominant].kind) : -1;
	size_t n = 0;

	if (!w && !x && k < 0)
		return NULL;
	buf[0] = 0;
	if (k >= 0) {
		n = (size_t)snprintf(buf, len, "%s off %.0f us", k == LW_SECT_IRQS ? "irqs" : "preempt",
				     (double)(s->sect[k].to - s->sect[k].from) / 1e3);
		if (n < len && s->sect[k].where)
			n += (size_t)snprintf(buf + n, len - n, " in %s", s->sect[k].where);
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, " on CPU %d", s->cpu);
	}
	if (n < len && (w || x))
		n += (size_t)snprintf(buf + n, len - n, "%s", n ? "; " : "");
	if (n < len && w && x && !strcmp(w, x))	/* one place, said once */
		snprintf(buf + n, len - n, "in %s at the wake-up and when it left the CPU", w);
	else if (n < len && w && x)
		snprintf(buf + n, len - n, "in %s at the wake-up; left the CPU in %s", w, x);
	else if (n < len && w)
		snprintf(buf + n, len - n, "in %s at the wake-up", w);
	else if (n < len && x)
		snprintf(buf + n, len - n, "left the CPU in %s", x);
	return buf;
}

const char *lw_component_label(const struct lw_component *c, char *buf, size_t len)
{
	if (c->name && *c->name)
		snprintf(buf, len, "%s:%s", lw_comp_kind_name(c->kind), c->name);
	else
		snprintf(buf, len, "%s", lw_comp_kind_name(c->kind));
	return buf;
}

static int cmp_latency_desc(const void *x, const void *y)
{
	const struct lw_spike *p = *(const struct lw_spike *const *)x;
	const struct lw_spike *q = *(const struct lw_spike *const *)y;

	return p->latency_ns < q->latency_ns ? 1 : p->latency_ns > q->latency_ns ? -1 : 0;
}

static int cmp_cause(const void *x, const void *y)
{
	const struct cause *p = x, *q = y;

	return p->ns < q->ns ? 1 : p->ns > q->ns ? -1 : 0;
}

static int cmp_comp(const void *x, const void *y)
{
	const struct lw_component *p = x, *q = y;

	return p->ns < q->ns ? 1 : p->ns > q->ns ? -1 : 0;
}

json_t *lw_spike_components_json(const struct lw_spike *s, const char *const *stages)
{
	struct lw_component sorted[LW_ATTRIB_MAX_COMP];
	json_t *comp = json_array();
	char label[160];

	memcpy(sorted, s->comp, (size_t)s->ncomp * sizeof(*sorted));
	lw_qsort(sorted, (size_t)s->ncomp, sizeof(*sorted), cmp_comp);	/* largest first */
	for (int i = 0; i < s->ncomp; i++) {
		json_t *c = json_pack("{s:s, s:s, s:s, s:I, s:f}",
			"cause", lw_component_label(&sorted[i], label, sizeof(label)),
			"kind", lw_comp_kind_name(sorted[i].kind), "name", sorted[i].name,
			"ns", (json_int_t)sorted[i].ns,
			"share", s->latency_ns ? (double)sorted[i].ns / (double)s->latency_ns : 0.0);

		if (sorted[i].pid > 0)
			json_object_set_new(c, "pid", json_integer(sorted[i].pid));
		if (s->work && stages && sorted[i].stage >= 0 && sorted[i].stage < LW_WORK_STAGES)
			json_object_set_new(c, "stage", json_string(stages[sorted[i].stage]));
		json_array_append_new(comp, c);
	}
	return comp;
}

json_t *lw_spike_timeline_json(const struct lw_spike *s)
{
	json_t *tl = json_array();

	for (int i = 0; i < s->nseg; i++)
		json_array_append_new(tl, json_pack("{s:I, s:I, s:s, s:s}",
			"start_ns", (json_int_t)s->seg[i].from_ns, "end_ns", (json_int_t)s->seg[i].to_ns,
			"kind", lw_comp_kind_name(s->seg[i].kind), "name", s->seg[i].name));
	return tl;
}

static json_t *spike_json(const struct lw_spike *s)
{
	json_t *comp = lw_spike_components_json(s, NULL), *tl = lw_spike_timeline_json(s);
	char label[160], where[448];
	json_t *o;

	o = json_pack("{s:i, s:i, s:I, s:I, s:I, s:o}", "cpu", s->cpu, "probe", (int)s->probe,
		      "expected_ns", (json_int_t)s->expected_ns, "latency_ns", (json_int_t)s->latency_ns,
		      "sample", (json_int_t)s->index, "components", comp);
	if (s->unattributable) {
		json_object_set_new(o, "cause", json_string("unattributable"));
		json_object_set_new(o, "unattributable", json_string(s->unattributable));
	} else if (s->dominant >= 0) {
		json_object_set_new(o, "cause", json_string(lw_component_label(&s->comp[s->dominant],
									      label, sizeof(label))));
		json_object_set_new(o, "cause_share",
				    json_real((double)s->comp[s->dominant].ns / (double)s->latency_ns));
		if (s->comp[s->dominant].pid > 0)
			json_object_set_new(o, "cause_task", json_pack("{s:i, s:s}",
				"pid", s->comp[s->dominant].pid, "name", s->comp[s->dominant].name));
		if (lw_spike_where(s, where, sizeof(where)))
			json_object_set_new(o, "cause_code", json_string(where));
	}
	if (s->code[0].where || s->code[1].where) {
		json_t *code = json_object();
		static const char *const at[2] = { "wakeup", "switch" };

		for (int k = 0; k < 2; k++)
			if (s->code[k].where)
				json_object_set_new(code, at[k], json_pack("{s:i, s:s}",
					"pid", s->code[k].pid, "where", s->code[k].where));
		json_object_set_new(o, "code", code);
	}
	if (s->sect[LW_SECT_IRQS].to || s->sect[LW_SECT_PREEMPT].to) {
		json_t *sects = json_object();
		static const char *const kn[LW_SECT_KINDS] = { "irqs_off", "preempt_off" };

		for (int k = 0; k < LW_SECT_KINDS; k++)
			if (s->sect[k].to)
				json_object_set_new(sects, kn[k], json_pack("{s:I, s:I, s:I, s:o}",
					"start_ns", (json_int_t)s->sect[k].from,
					"end_ns", (json_int_t)s->sect[k].to,
					"ns", (json_int_t)(s->sect[k].to - s->sect[k].from),
					"where", s->sect[k].where ? json_string(s->sect[k].where) :
								   json_null()));
		json_object_set_new(o, "sections", sects);
	}
	json_object_set_new(o, "idle_state", s->idle_state >= 0 ? json_integer(s->idle_state) : json_null());
	if (s->idle_state >= 0)
		json_object_set_new(o, "idle_since_ns", json_integer((json_int_t)s->idle_since_ns));
	json_object_set_new(o, "woken_ns", s->woken_ns ? json_integer((json_int_t)s->woken_ns) : json_null());
	json_object_set_new(o, "switched_in_ns", s->switched_in_ns ?
			    json_integer((json_int_t)s->switched_in_ns) : json_null());
	json_object_set_new(o, "tick_stopped", s->tick_stopped < 0 ? json_null() :
			    json_boolean(s->tick_stopped));
	for (int i = 0; i < s->ncomp; i++)
		if (s->comp[i].kind == LW_C_IDLE_LATE) {
			json_object_set_new(o, "idle_late", json_pack("{s:s, s:o, s:I}",
				"state", s->comp[i].name, "exit_latency_ns",
				s->late_exit_ns == LW_EXIT_LATENCY_NONE ? json_null() :
				json_integer((json_int_t)s->late_exit_ns),
				"excess_ns", (json_int_t)s->late_ns));
			break;
		}
	json_object_set_new(o, "host_ns", json_integer((json_int_t)s->host_ns));
	json_object_set_new(o, "steal_ns", json_integer((json_int_t)s->steal_ns));
	json_object_set_new(o, "timeline", tl);
	if (s->seg_truncated)
		json_object_set_new(o, "timeline_truncated", json_true());
	json_object_set_new(o, "freq_changes", json_integer(s->freq_changes));
	json_object_set_new(o, "migrations", json_integer(s->migrations));
	return o;
}

/* What the trace knows of the time it cannot explain: idle past each state's
 * exit latency, apart from time with the CPU running and no event. */
static json_t *unexplained_json(const struct lw_attrib *a)
{
	json_t *arr = json_array();

	for (size_t j = 0; j < a->nlate; j++)
		json_array_append_new(arr, json_pack("{s:s, s:o, s:I, s:I}", "state", a->late[j].state,
			"exit_latency_ns", a->late[j].exit_ns == LW_EXIT_LATENCY_NONE ? json_null() :
			json_integer((json_int_t)a->late[j].exit_ns),
			"ns", (json_int_t)a->late[j].ns, "spikes", (json_int_t)a->late[j].spikes));
	return json_pack("{s:o, s:I, s:I, s:I}", "idle_late", arr, "idle_late_ns",
			 (json_int_t)a->late_ns, "running_ns", (json_int_t)a->run_ns,
			 "running_spikes", (json_int_t)a->run_spikes);
}

json_t *lw_attrib_json(const struct lw_attrib *a, size_t top_n)
{
	const struct lw_spike **by_lat = malloc((a->nkeep ? a->nkeep : 1) * sizeof(*by_lat));
	struct cause *causes = malloc((a->ncauses ? a->ncauses : 1) * sizeof(*causes));
	json_t *spikes = json_array(), *cj = json_array();
	char label[160];

	if (!by_lat || !causes) {
		free(by_lat);
		free(causes);
		json_decref(spikes);
		json_decref(cj);
		return NULL;
	}
	for (size_t i = 0; i < a->nkeep; i++)
		by_lat[i] = &a->keep[i];
	if (a->nkeep)	/* qsort and memcpy of NULL, 0 are undefined */
		lw_qsort(by_lat, a->nkeep, sizeof(*by_lat), cmp_latency_desc);
	for (size_t i = 0; i < a->nkeep && i < top_n; i++)
		json_array_append_new(spikes, spike_json(by_lat[i]));
	if (a->ncauses) {
		memcpy(causes, a->causes, a->ncauses * sizeof(*causes));
		lw_qsort(causes, a->ncauses, sizeof(*causes), cmp_cause);
	}
	for (size_t j = 0; j < a->ncauses; j++) {
		struct lw_component c = { causes[j].kind, causes[j].name, causes[j].ns, -1, 0 };

		json_array_append_new(cj, json_pack("{s:s, s:s, s:s, s:I, s:I, s:f}",
			"cause", lw_component_label(&c, label, sizeof(label)),
			"kind", lw_comp_kind_name(c.kind), "name", c.name,
			"count", (json_int_t)causes[j].count, "ns", (json_int_t)causes[j].ns,
			"share", a->total_ns ? (double)causes[j].ns / (double)a->total_ns : 0.0));
	}
	if (a->unattr)
		json_array_append_new(cj, json_pack("{s:s, s:s, s:s, s:I, s:I, s:f}",
			"cause", "unattributable", "kind", "unattributable", "name", "",
			"count", (json_int_t)a->unattr, "ns", (json_int_t)a->unattr_ns,
			"share", a->total_ns ? (double)a->unattr_ns / (double)a->total_ns : 0.0));
	free(by_lat);
	free(causes);
	return json_pack("{s:I, s:I, s:I, s:I, s:o, s:o, s:o}",
		"spikes_total", (json_int_t)a->n, "attributed", (json_int_t)(a->n - a->unattr),
		"unattributable", (json_int_t)a->unattr, "total_latency_ns", (json_int_t)a->total_ns,
		"causes", cj, "unexplained", unexplained_json(a), "top", spikes);
}
