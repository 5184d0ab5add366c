/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The energy model: power estimated from idle-state residency and CPU
 * frequency, with the board's figures (power per CPU in each idle state,
 * active power per operating point, static power of the rest).
 *
 * Input is an abstract sequence of transitions (timestamp, CPU, idle-state
 * entry or exit, or a new frequency) — what power:cpu_idle and
 * power:cpu_frequency trace events say — so the arithmetic is tested on
 * synthetic sequences and fed from trace.dat by power/trace_feed.c.
 * Transitions must be in time order per CPU (CPUs may interleave).
 *
 * Before a CPU's first transition its state is not known: it is taken as
 * running, unless its first transition is an idle exit, in which case it
 * was idle since the start (in the board's default idle state).
 */
#ifndef LW_POWER_MODEL_H
#define LW_POWER_MODEL_H

#include <jansson.h>
#include <stdint.h>

struct lw_board;
struct lw_power_writer;

#define LW_PM_IDLE_EXIT 0xffffffffu	/* power:cpu_idle state on exit (PWR_EVENT_EXIT) */

enum lw_pm_type { LW_PM_IDLE, LW_PM_FREQ };

struct lw_pm_event {
	uint64_t ts;		/* CLOCK_MONOTONIC ns */
	int cpu;
	enum lw_pm_type type;
	uint32_t value;		/* IDLE: state index or LW_PM_IDLE_EXIT; FREQ: kHz */
};

struct lw_pm_opts {
	const struct lw_board *board;
	int ncpus;			/* CPUs 0 .. ncpus-1 */
	uint64_t start_ns, end_ns;	/* the window accounted */
	uint64_t bin_ns;		/* output period (e.g. 100ms for 10 Hz) */
	/* idle state names by index, the same on every CPU (from the run's
	 * sysinfo); NULL or fewer than needed: the board's list by index */
	const char *const *state_names;
	int nstate_names;
	uint64_t initial_khz;		/* 0: the board's nominal (highest OPP) */
};

struct lw_pm_model;

struct lw_pm_model *lw_pm_model_new(const struct lw_pm_opts *o);
/* Feed one transition; -1 (error()) on a CPU out of range or time going
 * backwards on a CPU. */
int lw_pm_model_event(struct lw_pm_model *m, const struct lw_pm_event *ev);
/* Close the window (accounts each CPU up to end_ns). */
void lw_pm_model_finish(struct lw_pm_model *m);
/* Write rails model/total (with static power; counts to the total) and
 * model/cpuN, starting at rail id @first_id.  After finish. */
int lw_pm_model_write(struct lw_pm_model *m, struct lw_power_writer *w, int first_id);
/* Total energy (J) over the window, static power included.  After finish. */
double lw_pm_model_energy_j(const struct lw_pm_model *m);
double lw_pm_model_cpu_energy_j(const struct lw_pm_model *m, int cpu);
/* Idle accounting from the transitions, the "trace" part of RUN/idle.json. */
json_t *lw_pm_model_idle(const struct lw_pm_model *m);
void lw_pm_model_free(struct lw_pm_model *m);

#endif
