// SPDX-License-Identifier: GPL-2.0-only
/*
 * model: the board's energy model over the cpuidle residency counters and
 * the current frequency (estimated).  --power auto takes it when no sensor
 * is found and the board has power figures.
 */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boards/board.h"
#include "lib/error.h"
#include "lib/parse.h"
#include "power/chan.h"
#include "power/sources.h"
#include "power/power.h"

#define MAX_CPUS   256
#define MAX_STATES 16

struct model {
	const struct lw_board *b;
	char root[PATH_MAX];
	int ncpu;
	int cpu[MAX_CPUS];
	int nstate[MAX_CPUS];
	double state_mw[MAX_CPUS][MAX_STATES];
	char freq_path[MAX_CPUS][128];
	uint64_t prev_time[MAX_CPUS][MAX_STATES];	/* us */
	double active_fixed_mw;				/* no cpufreq */
};

static int discover_model(const struct lw_power_opts *o, struct lw_chans *cs)
{
	const struct lw_board *b = o->board;
	char path[PATH_MAX], buf[4096];
	cpu_set_t online;
	struct lw_chan *c;
	struct model *m;
	int err, missing = 0;
	char nopower[256] = "";

	if (!(o->mask & LW_SRC_MODEL) && (!b || !lw_board_has_model(b)))
		return 0;	/* auto found no sensor, and the board has no model either */
	if (!b)
		return error("power model: no board (give --board)");
	if (!lw_board_has_model(b))
		return error("power model: board '%s' has no power figures (power_mw on "
			     "operating_points or a model: section)", b->name);
	lw_src_pathf(path, sizeof(path), "%s/sys/devices/system/cpu/online", o->root);
	if (lw_src_read_str(path, buf, sizeof(buf), &err) <= 0 ||
	    lw_parse_cpulist(path, buf, NULL, &online) < 0)
		return error("power model: cannot read the online CPUs from %s", path);
	m = calloc(1, sizeof(*m));
	c = m ? lw_chan_add(cs, &lw_src_model, LW_CHAN_OWN) : NULL;
	if (!c) {
		free(m);
		return error("out of memory");
	}
	c->priv = m;
	m->b = b;
	snprintf(m->root, sizeof(m->root), "%s", o->root ? o->root : "");
	for (int cpu = 0; cpu < CPU_SETSIZE && m->ncpu < MAX_CPUS; cpu++) {
		int k = m->ncpu;

		if (!CPU_ISSET(cpu, &online))
			continue;
		if (o->ncpus && k >= o->ncpus)
			break;
		m->cpu[k] = cpu;
		for (int s = 0; s < MAX_STATES; s++) {
			char name[64];
			double p;

			lw_src_pathf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name",
			      o->root, cpu, s);
			if (lw_src_read_str(path, name, sizeof(name), &err) < 0)
				break;
			p = lw_board_idle_power(b, name);
			if (p < 0) {
				missing++;
				if (!strstr(nopower, name) && strlen(nopower) + strlen(name) + 3 < sizeof(nopower))
					snprintf(nopower + strlen(nopower), sizeof(nopower) - strlen(nopower),
						 "%s%s", *nopower ? ", " : "", name);
				p = 0;
			}
			m->state_mw[k][s] = p;
			m->nstate[k] = s + 1;
		}
		lw_src_pathf(m->freq_path[k], sizeof(m->freq_path[k]),
		      "%s/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", o->root, cpu);
		if (!lw_src_exists(m->freq_path[k]))
			m->freq_path[k][0] = 0;
		m->ncpu++;
	}
	int counters = 0;

	for (int k = 0; k < m->ncpu; k++)
		counters += m->nstate[k];
	if (!counters) {
		/* no cpuidle driver: the counters would call every CPU active */
		lw_chan_drop_last(cs);
		if (o->is_auto)
			return 0;	/* analyze estimates from the trace's cpu_idle events */
		return error("power model: no cpuidle counters under %s/sys/devices/system/cpu (no "
			     "cpuidle driver): every CPU would count as active; with --power auto the "
			     "power is estimated from the trace's power:cpu_idle events instead",
			     o->root ? o->root : "");
	}
	m->active_fixed_mw = lw_board_active_power(b, lw_board_nominal_khz(b));
	snprintf(c->name, sizeof(c->name), "model/%s", b->name);
	c->flags = LW_RAIL_TOTAL | LW_RAIL_ESTIMATED | LW_RAIL_ENERGY;
	snprintf(c->detail, sizeof(c->detail),
		 "board %s energy model over cpuidle residency of %d CPUs%s%s%s", b->name, m->ncpu,
		 b->static_power_mw >= 0 ? " plus static power" : "",
		 missing ? "; no power figure (counted as 0 mW) for idle states: " : "",
		 missing ? nopower : "");
	return 0;
}

static int model_read(struct lw_chan *c, uint64_t now, double *w, double *e, double *v, double *a,
		      char *why, size_t whylen)
{
	struct model *m = c->priv;
	double dt = c->have_prev ? (double)(now - c->prev_ts) / 1e9 : 0, energy_mj = 0;

	for (int k = 0; k < m->ncpu; k++) {
		double idle_s = 0, freq_mw = m->active_fixed_mw;
		char path[PATH_MAX];

		if (m->freq_path[k][0]) {
			double khz;

			if (lw_src_read_num(m->freq_path[k], &khz, why, whylen) < 0)
				return -1;
			freq_mw = lw_board_active_power(m->b, (uint64_t)khz);
		}
		for (int s = 0; s < m->nstate[k]; s++) {
			uint64_t t;

			lw_src_pathf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cpuidle/state%d/time",
			      m->root, m->cpu[k], s);
			if (lw_src_read_u64(path, &t, why, whylen) < 0)
				return -1;
			if (c->have_prev) {
				double d = (double)lw_counter_delta(m->prev_time[k][s], t, 0) / 1e6;

				if (d > dt)
					d = dt;
				idle_s += d;
				energy_mj += d * m->state_mw[k][s];
			}
			m->prev_time[k][s] = t;
		}
		if (c->have_prev) {
			double active = dt - idle_s;

			energy_mj += (active > 0 ? active : 0) * freq_mw;
		}
	}
	if (c->have_prev && m->b->static_power_mw >= 0)
		energy_mj += dt * m->b->static_power_mw;
	if (!c->have_prev) {
		c->have_prev = 1;
		c->prev_ts = now;
		c->acc_j = 0;
		*w = NAN;
		*e = 0;
		return 0;
	}
	c->acc_j += energy_mj / 1e3;
	*w = dt > 0 ? energy_mj / 1e3 / dt : NAN;
	*e = c->acc_j;
	c->prev_ts = now;
	return 0;
}

const struct lw_power_source_type lw_src_model = {
	.name = "model",
	.label = "the board's energy model",
	.help = "the board's energy model over cpuidle counters (estimated)",
	.discover = discover_model,
	.read = model_read,
};
