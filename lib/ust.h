/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * LTTng-UST events of latwatt, for the rest of the code.  With liblttng-ust
 * (LW_HAVE_LTTNG, set by the Makefile when pkg-config finds lttng-ust) each
 * call is an LTTng tracepoint: one predictable branch while no session
 * enables it, no allocation, safe from realtime threads.  Without LTTng the
 * calls compile to nothing.
 *
 * The provider and its log levels are described in lib/ust_tp.h; all
 * timestamps are CLOCK_MONOTONIC nanoseconds, as everywhere in latwatt.
 */
#ifndef LW_UST_H
#define LW_UST_H

#include <stdint.h>

#include "lib/samples.h"

/* 1 when the tracepoints are compiled in (for the manifest). */
extern const int lw_ust_compiled_in;

#ifdef LW_HAVE_LTTNG
#include "lib/ust_tp.h"
#define LW_UST_ENABLED 1

/* A probe sample above the run's --threshold (the one a trace marker is
 * written for). */
static inline void lw_ust_spike(unsigned probe, int cpu, uint64_t expected_ns, uint64_t latency_ns)
{
	tracepoint(latwatt, spike, lw_probe_name(probe), cpu, expected_ns, latency_ns);
}

/* Every probe sample (TRACE_DEBUG: enable it explicitly). */
static inline void lw_ust_probe_sample(unsigned probe, int cpu, uint64_t expected_ns,
				       uint64_t latency_ns)
{
	tracepoint(latwatt, probe_sample, lw_probe_name(probe), cpu, expected_ns, latency_ns);
}

/* One period of a workload: when it was due, when it started and ended. */
static inline void lw_ust_workload_period(const char *workload, int cpu, uint64_t seq,
					  uint64_t expected_ns, uint64_t start_ns, uint64_t end_ns)
{
	tracepoint(latwatt, workload_period, workload, cpu, seq, expected_ns, start_ns, end_ns);
}

/* A deadline missed by a workload; @what: "xrun", "dropped-frame", ... */
static inline void lw_ust_deadline_miss(const char *workload, const char *what, int cpu,
					uint64_t seq, uint64_t deadline_ns, uint64_t late_ns)
{
	tracepoint(latwatt, deadline_miss, workload, what, cpu, seq, deadline_ns, late_ns);
}

/* One power reading; @estimated: 1 from the energy model, 0 measured. */
static inline void lw_ust_power_sample(const char *rail, uint64_t time_ns, double watts,
				       int estimated)
{
	tracepoint(latwatt, power_sample, rail, time_ns, watts, estimated);
}

#else
#define LW_UST_ENABLED 0

static inline void lw_ust_spike(unsigned probe, int cpu, uint64_t expected_ns,
				uint64_t latency_ns) {}
static inline void lw_ust_probe_sample(unsigned probe, int cpu, uint64_t expected_ns,
				       uint64_t latency_ns) {}
static inline void lw_ust_workload_period(const char *workload, int cpu, uint64_t seq,
					  uint64_t expected_ns, uint64_t start_ns,
					  uint64_t end_ns) {}
static inline void lw_ust_deadline_miss(const char *workload, const char *what, int cpu,
					uint64_t seq, uint64_t deadline_ns, uint64_t late_ns) {}
static inline void lw_ust_power_sample(const char *rail, uint64_t time_ns, double watts,
				       int estimated) {}
#endif

#endif
