/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The records of RUN/samples in time order (expected_ns, ties in file
 * order), in memory that does not depend on their number.
 *
 * The records of one probe on one CPU are in time order in the file: each
 * probe thread has a ring, drained in order.  Several rings of one probe on
 * one CPU (audio streams) interleave their batches, so a (probe, CPU) series
 * is split into lanes, each record going to the first lane of its series
 * whose last time is not after its own: every lane is in time order, and a
 * k-way merge of the lanes is the whole file in time order.  Each lane reads
 * the file with its own small buffer: the file is read once per lane, plus
 * once to find them.  A series that needs more than LW_MERGE_MAX_LANES lanes
 * (records far out of order: not a file latwatt wrote) is refused with an
 * error naming the file and the record.
 */
#ifndef LW_SAMPLE_MERGE_H
#define LW_SAMPLE_MERGE_H

#include <stdint.h>

#include "lib/samples.h"

#define LW_MERGE_MAX_LANES 16

struct lw_sample_merge;

/* The lanes of one (probe, CPU) series: the last time each has taken. */
struct lw_merge_series {
	uint64_t last[LW_MERGE_MAX_LANES];
	int nlanes;
};
/*
 * The order rule on its own, for a reader that takes the records in file
 * order (the summary): @smp, record @index of @path, goes to a lane of its
 * series @s; -1 after error() naming the record when the series needs more
 * than LW_MERGE_MAX_LANES (not a file latwatt wrote).  Every command that
 * reads samples holds them to it, with a trace or without.
 */
int lw_merge_order(struct lw_merge_series *s, const struct lw_sample *smp, const char *path,
		   uint64_t index);

/* Every record of the file is given to @visit (may be NULL) in file order
 * with its index, while the lanes are found; a negative return from @visit
 * stops and fails the open.  Records whose probe >= LW_SAMPLE_MAX or cpu >=
 * @ncpus are visited but not merged.  @flags: as lw_samples_open_flags(). */
struct lw_sample_merge *lw_sample_merge_open(const char *path, unsigned flags, int ncpus,
					     int (*visit)(void *ctx, const struct lw_sample *s,
							  uint64_t index),
					     void *ctx);
/* 1 with *@s (and *@index, its record index, if not NULL) filled, 0 at the
 * end, -1 on error. */
int lw_sample_merge_next(struct lw_sample_merge *m, struct lw_sample *s, uint64_t *index);
/* Lanes found (the number of times the file is read to merge). */
int lw_sample_merge_lanes(const struct lw_sample_merge *m);
void lw_sample_merge_close(struct lw_sample_merge *m);

#endif
