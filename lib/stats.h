/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Latency statistics.  Percentiles are exact (nearest rank over every
 * sample) when the samples are kept, which latwatt always does; runs imported
 * from a histogram get bucket-resolution percentiles and say so (exact = 0).
 *
 * The histogram counts its overflow honestly: how many samples fell beyond
 * the last bucket, the largest of them, and when the first one happened.
 */
#ifndef LW_STATS_H
#define LW_STATS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The statistics of a probe's latencies, one line each.  The percentile
 * tables below, the metric registry (lib/metrics.c), the comparison's
 * figures (analysis/compare.c, reports/compare.c), the views' columns and
 * the --help texts are made from these lists:
 *
 *   X(ID, NAME, KEY, Q, COMPARED, HELP)
 *	ID		LW_STAT_ID
 *	NAME		as rules, views and comparisons name it
 *	KEY		its key in analysis.json (probes.PROBE.all, .cpus[])
 *	Q		the percentile (0: not a percentile)
 *	COMPARED	a comparison judges it (those are the ones before min)
 *	HELP		one line for the registry and the man page
 *
 * Percentiles first, in increasing order: LW_PCT_STATS.
 */
#define LW_PCT_STATS(X) \
	X(P50,   "p50",    "p50_ns",    50,    1, "median latency") \
	X(P90,   "p90",    "p90_ns",    90,    1, "90th percentile of latency") \
	X(P99,   "p99",    "p99_ns",    99,    1, "99th percentile of latency") \
	X(P999,  "p99.9",  "p99.9_ns",  99.9,  1, "99.9th percentile of latency") \
	X(P9999, "p99.99", "p99.99_ns", 99.99, 1, "99.99th percentile of latency")
#define LW_STATS(X) \
	LW_PCT_STATS(X) \
	X(MEAN,  "mean",   "mean_ns",   0,     1, "mean latency") \
	X(MAX,   "max",    "max_ns",    0,     1, "largest latency") \
	X(MIN,   "min",    "min_ns",    0,     0, "smallest latency")

/*
 * The counts of a probe's summary, the same way:
 *
 *   X(ID, NAME, KEY, COMPARED, LABEL, HELP)
 */
#define LW_COUNT_STATS(X) \
	X(OVER,    "over",    "over_threshold", 0, "samples over", \
	  "samples over the run's own threshold (-t)") \
	X(MISSED,  "missed",  "missed_periods", 1, "missed periods", \
	  "periods the probe missed entirely") \
	X(DROPPED, "dropped", "dropped",        1, "dropped samples", \
	  "samples lost between the probe and the disk")

enum lw_stat {
#define LW_X_STAT_ID(id, ...) LW_STAT_##id,
	LW_STATS(LW_X_STAT_ID)
	LW_NSTAT
};
enum lw_count_stat {
	LW_COUNT_STATS(LW_X_STAT_ID)
	LW_NCOUNT
};
#undef LW_X_STAT_ID

#define LW_NPCT LW_STAT_MEAN			/* the percentiles come first */
#define LW_NSTAT_COMPARED LW_STAT_MIN		/* the figures a comparison judges */
extern const double lw_pct[LW_NPCT];		/* 50, 90, 99, 99.9, 99.99 */
extern const char *const lw_pct_key[LW_NPCT];	/* "p50_ns", ... "p99.99_ns" */
extern const char *const lw_stat_names[LW_NSTAT];	/* "p50", ... "min" */
extern const char *const lw_stat_keys[LW_NSTAT];	/* "p50_ns", ... "min_ns" */
extern const char *const lw_count_names[LW_NCOUNT];	/* "over", "missed", "dropped" */
extern const char *const lw_count_keys[LW_NCOUNT];	/* "over_threshold", ... */
/* The columns of a table of the statistics: min, mean, the percentiles, max. */
extern const enum lw_stat lw_stat_columns[LW_NSTAT];
/* The analysis.json key of the statistic named @name ("p99": "p99_ns"); NULL
 * when there is none. */
const char *lw_stat_key(const char *name);

struct lw_stats {
	uint64_t count;
	uint64_t min, max;
	double mean;
	uint64_t pct[LW_NPCT];
	/* From a histogram: a percentile in its overflow is not known, only
	 * that it is at least above[k] (the overflow's lower edge); 0: known. */
	uint64_t above[LW_NPCT];
	int exact;
};

/* Nearest-rank percentile of a sorted array: the smallest value with at
 * least q% of the samples at or below it.  n > 0. */
uint64_t lw_percentile_sorted(const uint64_t *v, size_t n, double q);
/* Sort @v in place (radix sort: latencies are many) and fill @s. */
void lw_stats_compute(struct lw_stats *s, uint64_t *v, size_t n);
void lw_sort_u64(uint64_t *v, size_t n);

/*
 * Exact nearest-rank selection in memory that does not depend on the number
 * of samples, for samples that can be read again (a file): start from the
 * histogram of a first pass, then every further pass over the same samples
 * counts, in LW_SEL_BUCKETS sub-buckets, only the values inside the range
 * known to hold the rank, narrowing it until it is one value wide.  From a
 * 1 us histogram one more pass finds the exact value; values in the
 * histogram's overflow take at most seven.
 */
#define LW_SEL_BUCKETS 1024
struct lw_rank_sel {
	uint64_t rank;		/* 1-based, among every sample */
	uint64_t lo, span;	/* values in [lo, lo + span) hold it */
	uint64_t width;		/* of a sub-bucket */
	uint64_t below;		/* samples below lo */
	uint64_t *count;	/* LW_SEL_BUCKETS; NULL once done */
	uint64_t value;		/* the answer, once done */
	int done;
};
struct lw_hist;
/* Rank @rank (1 <= rank <= h->total) of the samples @h counted. */
int lw_rank_sel_init(struct lw_rank_sel *s, const struct lw_hist *h, uint64_t rank);
static inline void lw_rank_sel_add(struct lw_rank_sel *s, uint64_t v)
{
	if (!s->done && v >= s->lo && v - s->lo < s->span)
		s->count[(v - s->lo) / s->width]++;
}
/* After a pass: narrow the range; 1 when another pass is needed, 0 when
 * done (s->value set), -1 when the pass did not see the samples the
 * histogram did (the data changed between passes). */
int lw_rank_sel_step(struct lw_rank_sel *s);
void lw_rank_sel_free(struct lw_rank_sel *s);
/* Nearest rank of @q percent among @n samples (as lw_percentile_sorted()). */
uint64_t lw_pct_rank_n(uint64_t n, double q);

struct lw_hist {
	uint64_t bucket_ns;	/* width of a bucket */
	size_t nbuckets;
	uint64_t *count;
	uint64_t total;
	uint64_t min, max;
	long double sum;
	uint64_t overflow;		/* samples >= overflow_from */
	uint64_t overflow_max;		/* the largest of them */
	uint64_t overflow_first;	/* index (cycle) of the first one */
	/* What the overflow's samples are known to be at least: the last
	 * bucket's upper edge (nbuckets * bucket_ns), the lowest of those
	 * merged into it when they differ. */
	uint64_t overflow_from;
};

/* The most buckets a histogram may have: 1 s at 1 us (8 MB); a file that
 * declares more is refused rather than allocated. */
#define LW_HIST_MAX_BUCKETS 1000000

int lw_hist_init(struct lw_hist *h, uint64_t bucket_ns, size_t nbuckets);
void lw_hist_free(struct lw_hist *h);
/* @cycle: the sample's index, kept for the first overflow. */
void lw_hist_add(struct lw_hist *h, uint64_t v, uint64_t cycle);
/* Percentile from the buckets: the upper edge of the bucket holding it, or
 * overflow_max when it falls in the overflow (*in_overflow set: then it is
 * not known, only that it is at least overflow_from) — but the rank of the
 * largest sample is the max, known. */
uint64_t lw_hist_percentile(const struct lw_hist *h, double q, int *in_overflow);
/* Samples above @thr_ns: *@known 0 when the histogram cannot tell (@thr_ns
 * inside a bucket that holds samples, or between overflow_from and
 * overflow_max); then the count is of those surely above. */
uint64_t lw_hist_count_above(const struct lw_hist *h, uint64_t thr_ns, int *known);
/* Add @src into @dst (same bucket width; @dst grows to the wider of the two). */
int lw_hist_merge(struct lw_hist *dst, const struct lw_hist *src);
void lw_stats_from_hist(struct lw_stats *s, const struct lw_hist *h);

/* {"count":…, "min_ns":…, "mean_ns":…, "p50_ns":…, …, "max_ns":…, "exact":…};
 * a percentile that is not known (above[k]) is null, with "p99.9_above_ns":
 * the bound it is at least. */
json_t *lw_stats_json(const struct lw_stats *s);
/* {"bucket_ns":…, "buckets":[[index,count],… nonzero only], "overflow":…, …} */
json_t *lw_hist_json(const struct lw_hist *h);
/* Inverse of lw_hist_json (for imported and stored runs). */
int lw_hist_from_json(struct lw_hist *h, const json_t *j);

#endif
