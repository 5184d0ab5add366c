// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boards/board.h"
#include "lib/error.h"
#include "power/model.h"
#include "power/power.h"

#define MAX_IDX 32
#define ACTIVE  (-1)
#define UNKNOWN_IDLE (-2)	/* idle since before the first event, state not known */

struct cpu_state {
	int state;		/* ACTIVE, UNKNOWN_IDLE or an idle index */
	uint64_t khz;
	uint64_t last;		/* accounted up to here */
	int seen;
	double active_ns;
	double res_ns[MAX_IDX + 1];	/* [MAX_IDX]: unknown idle */
	uint64_t entries[MAX_IDX + 1];
	double *bin_mj;		/* energy per bin */
	double energy_mj;
};

struct lw_pm_model {
	struct lw_pm_opts o;
	struct cpu_state *c;
	size_t nbins;
	double idle_mw[MAX_IDX + 1];
	const char *idle_name[MAX_IDX + 1];
	int max_idx_seen;
	uint64_t unknown_state_events;
	double static_mw;
	int finished;
};

static const char *state_name(const struct lw_pm_opts *o, int idx)
{
	if (o->state_names && idx < o->nstate_names)
		return o->state_names[idx];
	if (idx < o->board->nidle)
		return o->board->idle[idx].name;
	return NULL;
}

/* An idle state the board says nothing of (and beyond the named ones): the
 * board lookup's fallbacks, else 0. */
static double default_idle_mw(const struct lw_board *b)
{
	double p = lw_board_idle_power(b, NULL);

	return p >= 0 ? p : 0;
}

struct lw_pm_model *lw_pm_model_new(const struct lw_pm_opts *o)
{
	struct lw_pm_model *m;

	if (!o->board || o->ncpus <= 0 || o->end_ns <= o->start_ns || !o->bin_ns) {
		error("energy model: bad window or no board");
		return NULL;
	}
	if (!lw_board_has_model(o->board)) {
		error("energy model: board '%s' has no power figures (power_mw on "
		      "operating_points, or a model: section)", o->board->name);
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m || !(m->c = calloc((size_t)o->ncpus, sizeof(*m->c)))) {
		free(m);
		error("out of memory");
		return NULL;
	}
	m->o = *o;
	m->nbins = (size_t)((o->end_ns - o->start_ns + o->bin_ns - 1) / o->bin_ns);
	for (int i = 0; i < o->ncpus; i++) {
		m->c[i].state = ACTIVE;
		m->c[i].khz = o->initial_khz ? o->initial_khz : lw_board_nominal_khz(o->board);
		m->c[i].last = o->start_ns;
		m->c[i].bin_mj = calloc(m->nbins, sizeof(double));
		if (!m->c[i].bin_mj) {
			lw_pm_model_free(m);
			error("out of memory");
			return NULL;
		}
	}
	for (int i = 0; i < MAX_IDX; i++) {
		const char *n = state_name(o, i);
		double p = n ? lw_board_idle_power(o->board, n) : -1;

		m->idle_name[i] = n;
		m->idle_mw[i] = p >= 0 ? p : default_idle_mw(o->board);	/* unnamed */
	}
	m->idle_mw[MAX_IDX] = default_idle_mw(o->board);
	m->static_mw = o->board->static_power_mw > 0 ? o->board->static_power_mw : 0;
	m->max_idx_seen = -1;
	return m;
}

static double cpu_power_mw(const struct lw_pm_model *m, const struct cpu_state *c)
{
	if (c->state == ACTIVE) {
		double p = lw_board_active_power(m->o.board, c->khz);

		return p > 0 ? p : 0;
	}
	return m->idle_mw[c->state == UNKNOWN_IDLE ? MAX_IDX : c->state];
}

/* Account CPU @c from c->last up to @to in its current state. */
static void advance(struct lw_pm_model *m, struct cpu_state *c, uint64_t to)
{
	double p = cpu_power_mw(m, c);
	uint64_t t = c->last;

	if (to > m->o.end_ns)
		to = m->o.end_ns;
	if (to <= t)
		return;
	if (c->state == ACTIVE)
		c->active_ns += (double)(to - t);
	else
		c->res_ns[c->state == UNKNOWN_IDLE ? MAX_IDX : c->state] += (double)(to - t);
	c->energy_mj += p * (double)(to - t) / 1e9;
	while (t < to) {
		size_t bin = (size_t)((t - m->o.start_ns) / m->o.bin_ns);
		uint64_t bin_end = m->o.start_ns + (uint64_t)(bin + 1) * m->o.bin_ns;
		uint64_t seg = (to < bin_end ? to : bin_end) - t;

		if (bin >= m->nbins)
			break;
		c->bin_mj[bin] += p * (double)seg / 1e9;
		t += seg;
	}
	c->last = to;
}

int lw_pm_model_event(struct lw_pm_model *m, const struct lw_pm_event *ev)
{
	struct cpu_state *c;

	if (ev->cpu < 0 || ev->cpu >= m->o.ncpus)
		return error("energy model: event on cpu %d, the model has %d CPUs", ev->cpu,
			     m->o.ncpus);
	c = &m->c[ev->cpu];
	if (c->seen && ev->ts < c->last && ev->ts >= m->o.start_ns)
		return error("energy model: cpu %d: time goes backwards (%llu after %llu)", ev->cpu,
			     (unsigned long long)ev->ts, (unsigned long long)c->last);
	if (!c->seen && ev->type == LW_PM_IDLE && ev->value == LW_PM_IDLE_EXIT)
		c->state = UNKNOWN_IDLE;	/* it was idle before we saw anything */
	c->seen = 1;
	if (ev->ts > m->o.start_ns)
		advance(m, c, ev->ts);
	if (ev->type == LW_PM_FREQ) {
		c->khz = ev->value;
		return 0;
	}
	if (ev->value == LW_PM_IDLE_EXIT) {
		c->state = ACTIVE;
	} else {
		int idx = ev->value < MAX_IDX ? (int)ev->value : MAX_IDX;

		if (idx == MAX_IDX || !m->idle_name[idx])
			m->unknown_state_events++;
		c->state = idx == MAX_IDX ? UNKNOWN_IDLE : idx;
		if (ev->ts >= m->o.start_ns && ev->ts < m->o.end_ns)
			c->entries[idx]++;
		if (idx < MAX_IDX && idx > m->max_idx_seen)
			m->max_idx_seen = idx;
	}
	return 0;
}

void lw_pm_model_finish(struct lw_pm_model *m)
{
	if (m->finished)
		return;
	for (int i = 0; i < m->o.ncpus; i++)
		advance(m, &m->c[i], m->o.end_ns);
	m->finished = 1;
}

double lw_pm_model_cpu_energy_j(const struct lw_pm_model *m, int cpu)
{
	return cpu >= 0 && cpu < m->o.ncpus ? m->c[cpu].energy_mj / 1e3 : NAN;
}

double lw_pm_model_energy_j(const struct lw_pm_model *m)
{
	double e = m->static_mw * (double)(m->o.end_ns - m->o.start_ns) / 1e9;

	for (int i = 0; i < m->o.ncpus; i++)
		e += m->c[i].energy_mj;
	return e / 1e3;
}

int lw_pm_model_write(struct lw_pm_model *m, struct lw_power_writer *w, int first_id)
{
	const unsigned fl = LW_RAIL_ESTIMATED | LW_RAIL_ENERGY;
	char detail[256], name[64];
	double tot_j = 0, *cpu_j = calloc((size_t)m->o.ncpus, sizeof(double));

	if (!cpu_j)
		return error("out of memory");
	snprintf(detail, sizeof(detail), "board %s energy model over traced idle states and "
		 "frequencies of %d CPUs, static %.0f mW", m->o.board->name, m->o.ncpus, m->static_mw);
	if (lw_power_rail(w, first_id, "model/total", "model", fl | LW_RAIL_TOTAL, detail) < 0)
		goto fail;
	for (int i = 0; i < m->o.ncpus; i++) {
		snprintf(name, sizeof(name), "model/cpu%d", i);
		if (lw_power_rail(w, first_id + 1 + i, name, "model", fl, "one CPU, from the trace") < 0)
			goto fail;
	}
	/* a first point at the start so that the first bin has its energy */
	if (lw_power_sample(w, first_id, m->o.start_ns, NAN, 0, NAN, NAN) < 0)
		goto fail;
	for (int i = 0; i < m->o.ncpus; i++)
		if (lw_power_sample(w, first_id + 1 + i, m->o.start_ns, NAN, 0, NAN, NAN) < 0)
			goto fail;
	for (size_t b = 0; b < m->nbins; b++) {
		uint64_t t0 = m->o.start_ns + (uint64_t)b * m->o.bin_ns;
		uint64_t t1 = t0 + m->o.bin_ns < m->o.end_ns ? t0 + m->o.bin_ns : m->o.end_ns;
		double dt = (double)(t1 - t0) / 1e9, bin_j = m->static_mw * dt / 1e3;

		for (int i = 0; i < m->o.ncpus; i++) {
			double j = m->c[i].bin_mj[b] / 1e3;

			bin_j += j;
			cpu_j[i] += j;
			if (lw_power_sample(w, first_id + 1 + i, t1, dt > 0 ? j / dt : NAN, cpu_j[i],
					    NAN, NAN) < 0)
				goto fail;
		}
		tot_j += bin_j;
		if (lw_power_sample(w, first_id, t1, dt > 0 ? bin_j / dt : NAN, tot_j, NAN, NAN) < 0)
			goto fail;
	}
	free(cpu_j);
	return 0;
fail:
	free(cpu_j);
	return -1;
}

json_t *lw_pm_model_idle(const struct lw_pm_model *m)
{
	json_t *cpus = json_array();
	double win = (double)(m->o.end_ns - m->o.start_ns);

	for (int i = 0; i < m->o.ncpus; i++) {
		const struct cpu_state *c = &m->c[i];
		json_t *states = json_array();

		for (int s = 0; s <= m->max_idx_seen; s++)
			json_array_append_new(states, json_pack("{s:i, s:o, s:I, s:f, s:f}",
				/* no cpuidle driver: the kernel's default idle, known by its index */
				"index", s, "name", m->idle_name[s] ? json_string(m->idle_name[s]) :
							json_sprintf("state%d", s),
				"entries", (json_int_t)c->entries[s], "residency_us", c->res_ns[s] / 1e3,
				"residency", c->res_ns[s] / win));
		if (c->res_ns[MAX_IDX] > 0 || c->entries[MAX_IDX])
			json_array_append_new(states, json_pack("{s:n, s:s, s:I, s:f, s:f}",
				"index", "name", "unknown", "entries", (json_int_t)c->entries[MAX_IDX],
				"residency_us", c->res_ns[MAX_IDX] / 1e3, "residency", c->res_ns[MAX_IDX] / win));
		json_array_append_new(cpus, json_pack("{s:i, s:o, s:f, s:b}", "cpu", i, "states", states,
			"active", c->active_ns / win, "traced", c->seen));
	}
	return json_pack("{s:s, s:o, s:I}", "source", "power:cpu_idle trace events", "cpus", cpus,
			 "unknown_state_events", (json_int_t)m->unknown_state_events);
}

void lw_pm_model_free(struct lw_pm_model *m)
{
	if (!m)
		return;
	for (int i = 0; m->c && i < m->o.ncpus; i++)
		free(m->c[i].bin_mj);
	free(m->c);
	free(m);
}
