/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Comparison of runs: each run against a baseline, per metric a verdict
 * (better, worse, no significant difference, n/a), into one JSON document of
 * schema "latwatt-comparison" (documented in doc/latwatt.1) from which the
 * text table is printed and the --fail-on rules are judged.
 *
 * A run to compare (struct lw_crun) is loaded from a run directory or from
 * the results store (analysis/db.h) and holds the same data either way:
 * per probe the latencies over all CPUs (every sample when kept, else the
 * 1 us histogram), missed periods, dropped samples, and the largest latency
 * of each 10 ms of the run (coarser for a long run: lw_bmax_add()), from
 * which block maxima are taken; the same per CPU (struct lw_cprobe.cpu)
 * when the run has its samples; the manifest; and RUN/analysis.json when
 * the run has one, for the sections other analyses add (workloads, power,
 * idle, spikes).
 */
#ifndef LW_COMPARE_H
#define LW_COMPARE_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/evt.h"
#include "analysis/compare_words.h"
#include "analysis/teststat.h"
#include "lib/stats.h"

#define LW_COMPARISON_SCHEMA  "latwatt-comparison"
#define LW_COMPARISON_VERSION 2
#define LW_BLOCK_BASE_NS      10000000ULL	/* 10 ms */
#define LW_BOOT_BLOCK_NS      100000000ULL	/* 100 ms: blocks of the within-run bootstrap */
#define LW_BOOT_MAX_RESAMPLES 400		/* within-run bootstrap resamples, at most */
#define LW_CMP_MAX_THRESHOLDS 16
#define LW_CMP_MAX_GROUP_RUNS 256

/*
 * A run in time order for the block bootstrap, in memory that does not grow
 * with its length: blocks of block_ns of expected time (LW_BOOT_BLOCK_NS;
 * a long run's are coarsened, two into one, whenever there would be more
 * than 2 * LW_BOOT_MAX_BLOCKS), each holding the counts of its latencies in
 * buckets of 1/256 of a power of two (lw_boot_bucket(): exact below 256 ns)
 * and their exact sum.
 */
#define LW_BOOT_MAX_BLOCKS 512
#define LW_BOOT_SUB_BITS   8
#define LW_BOOT_NBUCKETS   ((64 - LW_BOOT_SUB_BITS + 1) << LW_BOOT_SUB_BITS)

uint32_t lw_boot_bucket(uint64_t v);
double lw_boot_value(uint32_t bucket);	/* the middle of the bucket */

/* A block: its n buckets (lw_boot_bucket()) with their counts, while being
 * read an open-addressing table of cap slots (key bucket + 1, 0 empty),
 * compact (cap 0: the n pairs at the start, no spare room) once the run
 * has moved past it. */
struct lw_bblock {
	uint32_t *key, *cnt;
	uint32_t n, cap;
	double sum;
};

struct lw_bseries {
	uint64_t block_ns;
	size_t nblk;
	struct lw_bblock *blk;	/* compact: blk[b].key[i] is a bucket, cnt[i] its count */
	uint64_t n;		/* samples */
};

struct lw_bbuild {
	uint64_t block_ns;
	struct lw_bblock *b;
	size_t nblk, cap;
	size_t done;		/* blocks below it are compact */
};
void lw_bbuild_init(struct lw_bbuild *b);
/* The latency @lat of expected time @t_ns after the start. 0 or -1. */
int lw_bbuild_add(struct lw_bbuild *b, uint64_t t_ns, uint64_t lat);
/* Into @out (freed with lw_bseries_free()); frees @b.  0 or -1. */
int lw_bbuild_finish(struct lw_bbuild *b, struct lw_bseries *out);
void lw_bbuild_free(struct lw_bbuild *b);
void lw_bseries_free(struct lw_bseries *s);

/*
 * The largest latency of each stretch of a run, from which block maxima of
 * any multiple of the stretch are taken: 10 ms (LW_BLOCK_BASE_NS) while the
 * run is short, then, to stay within LW_BMAX_CAP stretches (1 MB), 50 ms,
 * 100 ms, 500 ms, 1 s, 5 s ... (each a multiple of the one before, so that
 * 1 s blocks are there up to 36 hours).
 */
#define LW_BMAX_CAP (1UL << 17)
struct lw_cprobe;
/* The latency @lat of expected time @t_ns after the start. 0 or -1. */
int lw_bmax_add(struct lw_cprobe *p, uint64_t t_ns, uint64_t lat);
/* The stretches after the last sample dropped, then each into the next
 * width until at most @cap remain.  0 or -1. */
int lw_bmax_coarsen(struct lw_cprobe *p, size_t cap);

struct lw_cprobe {
	unsigned probe;			/* enum lw_sample_id */
	struct lw_dist d;		/* every CPU */
	struct lw_hist hist;		/* 1 us buckets, every CPU */
	uint64_t missed, dropped;
	int missed_unknown;		/* not recorded (imported from cyclictest) */
	int from_hist;			/* d is @hist's: no samples (imported) */
	uint64_t *bmax;			/* per bmax_ns: largest latency + 1; 0: no sample */
	size_t nb;
	uint64_t bmax_ns;		/* 10 ms, coarser for a long run (lw_bmax_add()) */
	/* the run in time order for the block bootstrap; nblk 0 when the run
	 * has no time series (imported, stored) */
	struct lw_bseries bs;
	/* Per CPU (cpu_id >= 0 in each; -1 in the all-CPU entry): each a
	 * probe of one CPU with its own d, missed, bmax (no hist, no bs), in
	 * ascending CPU order, from samples that carry the CPU; none (ncpu 0)
	 * for a run from a histogram (imported) or the results store, and
	 * no_cpu says why. */
	int cpu_id;
	struct lw_cprobe *cpu;
	size_t ncpu;
	const char *no_cpu;		/* static text, or NULL */
};

struct lw_crun {
	char *label;			/* as named on the command line */
	char *path;			/* run directory it came from (or was added from) */
	int64_t db_id;			/* 0: not from the results store */
	json_t *manifest;		/* owned */
	json_t *analysis;		/* RUN/analysis.json, or NULL */
	struct lw_cprobe *p;
	size_t np;
	/* loaded for judging on the kernel-attributable figures: 1 with the
	 * host's time (analysis.json host.adjust, host_ns in all) taken off
	 * its spikes, -1 asked but the run has no such analysis (raw); 0 raw */
	int kernel;
	uint64_t host_ns;
};

/*
 * A directory of repeats (latwatt run --repeat): PARENT/repeat.json and one
 * run directory per repeat, PARENT/run-01, run-02 ...  The paths of those
 * that are complete (analysis/repeat.h: by their files; each one left out
 * is named in a note with its state), in order, into *runs (allocated, each
 * allocated); *n = 0 when @path is not such a directory; -1 after error()
 * when none is complete.  (LW_REPEAT_PREFIX, LW_REPEAT_FILE: lib/rundir.h)
 */
int lw_repeat_list(const char *path, char ***runs, size_t *n);

/* Load a run directory (its samples, or its histogram when imported). */
int lw_crun_load_dir(struct lw_crun *r, const char *path);
/* The same, with @kernel the latency figures kernel-attributable: each
 * spike's host time, from the run's analysis.json (host.adjust, written by
 * analyze), taken off its sample (r->kernel says whether it could be). */
int lw_crun_load_dir_judge(struct lw_crun *r, const char *path, int kernel);
void lw_crun_free(struct lw_crun *r);
/* Add an empty probe (for loaders); NULL after error(). */
struct lw_cprobe *lw_crun_add_probe(struct lw_crun *r, unsigned probe);
/* A stable identity of the run: a hash of its manifest. */
uint64_t lw_crun_ident(const struct lw_crun *r);

struct lw_cmp_opts {
	double alpha;			/* significance level, 0.05 */
	double practical;		/* smallest relative change that matters, 0.05 */
	double conf;			/* confidence of intervals, 0.95 */
	unsigned resamples;		/* bootstrap resamples, 2000 */
	uint64_t seed;			/* 1 */
	uint64_t thr[LW_CMP_MAX_THRESHOLDS];	/* count samples above these */
	size_t nthr;
	uint64_t block_ns;		/* block maxima, 1 s */
	uint64_t horizon_ns;		/* worst-case horizon, 1 h */
	unsigned min_blocks;		/* 30 */
	enum lw_evt_model model;	/* GEV */
};

void lw_cmp_opts_default(struct lw_cmp_opts *o);
/* Add a threshold unless present; -1 after error() when there are too many. */
int lw_cmp_add_threshold(struct lw_cmp_opts *o, uint64_t ns);

/* A group of runs of one system (repeats): runs[first .. first + n). */
struct lw_cgroup {
	const char *name;
	size_t first, n;
};

/*
 * The comparison document of groups (each group against the baseline
 * group; the groups cover runs[] in order, each with at least one run);
 * NULL after error().  Verdicts come from the variation between the runs
 * of the groups (lw_runs_test() on per-run figures); with one run a side
 * there is none, and the comparison says how many runs it needs.
 */
json_t *lw_compare_groups(const struct lw_crun *runs, const struct lw_cgroup *groups, size_t ng,
			  size_t baseline, const struct lw_cmp_opts *o);
/* Each run a group of its own. */
json_t *lw_compare(const struct lw_crun *runs, size_t n, size_t baseline,
		   const struct lw_cmp_opts *o);

#endif
