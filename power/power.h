/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RUN/power: timestamped power samples per rail, measured or estimated.
 *
 * A text file, tab separated, one record a line, written as the run goes
 * (so an interrupted run keeps what was sampled):
 *
 *   latwatt-power <TAB> 1
 *   start_ns <TAB> NS                         CLOCK_MONOTONIC start of the run
 *   rail  ID NAME SOURCE KIND FLAGS DETAIL    KIND: measured | estimated
 *                                             FLAGS: energy,total or -
 *   s     ID TS_NS WATTS ENERGY_J VOLTS AMPS  "-" where a value is not known
 *   gap   ID TS_NS REASON                     the rail could not be read
 *   end_ns <TAB> NS
 *
 * A rail is declared before its first sample; rails from several writers
 * (a sampler, then `latwatt power import`) may follow one another.
 * ENERGY_J, on rails flagged "energy", is the energy counted since the
 * rail's first sample, wrap-around already undone.  Rails flagged "total"
 * add up to the board's power (subdomains such as RAPL core are not).
 */
#ifndef LW_POWER_H
#define LW_POWER_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#define LW_POWER_MAGIC   "latwatt-power"
#define LW_POWER_VERSION 1
#define LW_POWER_MAX_RAILS 1024	/* a file declaring more is refused */

enum lw_rail_flags {
	LW_RAIL_ENERGY    = 1 << 0,	/* the source counts energy */
	LW_RAIL_TOTAL     = 1 << 1,	/* part of the board total */
	LW_RAIL_ESTIMATED = 1 << 2,	/* from the energy model, not a sensor */
};

/* ---- writing ---- */
struct lw_power_writer;
/* Create @path (or append to it when @append and it exists). */
struct lw_power_writer *lw_power_create(int dfd, const char *path, uint64_t start_ns, int append);
/* A writer on @f, a file being written as a whole (lw_atomic_fopen()): the
 * header first when @header; lw_power_close() flushes it and leaves @f
 * open for the caller to commit or abort. */
struct lw_power_writer *lw_power_stream(FILE *f, const char *path, uint64_t start_ns, int header);
int lw_power_rail(struct lw_power_writer *w, int id, const char *name, const char *source,
		  unsigned flags, const char *detail);
/* A rail's name as lw_power_rail() writes it (spaces as '_'). */
void lw_power_rail_name(char *dst, size_t len, const char *name);
/* NAN for a value that is not known. */
int lw_power_sample(struct lw_power_writer *w, int rail, uint64_t ts, double watts,
		    double energy_j, double volts, double amps);
int lw_power_gap(struct lw_power_writer *w, int rail, uint64_t ts, const char *reason);
int lw_power_flush(struct lw_power_writer *w);
/* Writes end_ns (when not 0), closes and fsyncs. */
int lw_power_close(struct lw_power_writer *w, uint64_t end_ns);

/* ---- reading ---- */
struct lw_power_point {
	uint64_t ts;
	double w, e, v, a;		/* NAN when not known */
	int after_gap;			/* a gap was recorded since the previous point */
};

struct lw_power_rail {
	int id;
	char *name, *source, *detail;
	unsigned flags;
	struct lw_power_point *pt;
	size_t n, cap;
	size_t gaps;
	char *first_gap;		/* reason of the first gap */
	int gap_pending;		/* reading: a gap since the last sample */
	uint64_t last_ts;		/* reading: the last sample's time */
};

struct lw_power_data {
	uint64_t start_ns, end_ns;	/* end_ns 0 when the file has none */
	int disordered;			/* a rail's samples out of time order in the file */
	struct lw_power_rail *rail;
	int nrail;
};

/* Read a power file, every sample, each rail's in time order; errors name
 * file:line. */
struct lw_power_data *lw_power_read(const char *path);
/* Read it in one pass without keeping the samples: the rails (their
 * metadata, sample and gap counts) in the result, each sample given to
 * @point as read, in file order, with its rail and the rail's index (a
 * negative return stops and fails the scan); @point NULL: each rail keeps
 * its samples, in file order. */
struct lw_power_data *lw_power_scan(const char *path,
				    int (*point)(void *ctx, const struct lw_power_rail *r, int rail,
						 const struct lw_power_point *p),
				    void *ctx);
void lw_power_data_free(struct lw_power_data *d);
/* Copy the power file @path, checked whole first, line for line into @out,
 * leaving out the rails of source @source whose names are among @names
 * (their declarations, samples and gaps).  *@max_id: the highest rail id
 * kept (-1: none); *@dropped: how many declarations were left out. */
int lw_power_copy_without(const char *path, FILE *out, const char *source,
			  const char *const *names, int nnames, int *max_id, int *dropped);
int lw_power_find_rail(const struct lw_power_data *d, const char *name);

/*
 * Summary, the one analysis and budgets read:
 * {"estimated": bool, "total": {"average_w", "energy_j", "duration_s"},
 *  "rails": [{"name", "source", "kind", "total", "samples", "gaps",
 *             "average_w", "min_w", "max_w", "energy_j", "duration_s"}]}
 * Energy comes from the counter on energy rails, else from the watts
 * integrated over the time covered (intervals across a gap left out).
 */
json_t *lw_power_summarize(const struct lw_power_data *d);
/* The same of a power file, in memory that does not grow with it (a file
 * whose samples are out of time order is read whole and sorted). */
json_t *lw_power_summarize_file(const char *path);
/* Print a summary as text. */
void lw_power_print(FILE *out, const json_t *summary);

/* Energy counter helper: the increase from @prev to @cur of a counter that
 * wraps at @range (0: 64-bit, does not wrap). */
static inline uint64_t lw_counter_delta(uint64_t prev, uint64_t cur, uint64_t range)
{
	if (cur >= prev)
		return cur - prev;
	if (!range)
		return 0;	/* went backwards without a range: a reset, not energy */
	return range - prev + cur;
}

#endif
