/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef LW_TIMEUTIL_H
#define LW_TIMEUTIL_H

#include <stdint.h>
#include <time.h>

static inline uint64_t lw_ts_to_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ULL + (uint64_t)ts->tv_nsec;
}

static inline struct timespec lw_ns_to_ts(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };
	return ts;
}

static inline uint64_t lw_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return lw_ts_to_ns(&ts);
}

/* The one clock of latwatt: every timestamp in a run directory is on it. */
static inline uint64_t lw_mono_ns(void) { return lw_clock_ns(CLOCK_MONOTONIC); }

#endif
