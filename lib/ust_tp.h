/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * LTTng-UST tracepoint provider "latwatt".  Include lib/ust.h, not this
 * file: it is read several times by lttng's macros (once to declare, once
 * in lib/ust.c to create the probes).
 *
 * Events and log levels (lower is more severe):
 *
 *   latwatt:spike            TRACE_WARNING  a probe sample above --threshold
 *   latwatt:deadline_miss    TRACE_WARNING  a workload missed its deadline
 *   latwatt:power_sample     TRACE_INFO     one power reading of one rail
 *   latwatt:probe_sample     TRACE_DEBUG    every probe sample (high rate)
 *   latwatt:workload_period  TRACE_DEBUG    every workload period (high rate)
 *
 * The two high-rate events sit at TRACE_DEBUG so that a session can take
 * the rest without them:
 *
 *   lttng enable-event -u 'latwatt:*' --loglevel=TRACE_INFO
 *   lttng enable-event -u latwatt:probe_sample      (only when wanted)
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER latwatt

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "lib/ust_tp.h"

#if !defined(LW_UST_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define LW_UST_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

TRACEPOINT_EVENT(latwatt, spike,
	TP_ARGS(const char *, probe, int, cpu, uint64_t, expected_ns, uint64_t, latency_ns),
	TP_FIELDS(
		ctf_string(probe, probe)
		ctf_integer(int, cpu, cpu)
		ctf_integer(uint64_t, expected_ns, expected_ns)
		ctf_integer(uint64_t, latency_ns, latency_ns)
	)
)
TRACEPOINT_LOGLEVEL(latwatt, spike, TRACE_WARNING)

TRACEPOINT_EVENT(latwatt, probe_sample,
	TP_ARGS(const char *, probe, int, cpu, uint64_t, expected_ns, uint64_t, latency_ns),
	TP_FIELDS(
		ctf_string(probe, probe)
		ctf_integer(int, cpu, cpu)
		ctf_integer(uint64_t, expected_ns, expected_ns)
		ctf_integer(uint64_t, latency_ns, latency_ns)
	)
)
TRACEPOINT_LOGLEVEL(latwatt, probe_sample, TRACE_DEBUG)

TRACEPOINT_EVENT(latwatt, workload_period,
	TP_ARGS(const char *, workload, int, cpu, uint64_t, seq, uint64_t, expected_ns,
		uint64_t, start_ns, uint64_t, end_ns),
	TP_FIELDS(
		ctf_string(workload, workload)
		ctf_integer(int, cpu, cpu)
		ctf_integer(uint64_t, seq, seq)
		ctf_integer(uint64_t, expected_ns, expected_ns)
		ctf_integer(uint64_t, start_ns, start_ns)
		ctf_integer(uint64_t, end_ns, end_ns)
	)
)
TRACEPOINT_LOGLEVEL(latwatt, workload_period, TRACE_DEBUG)

TRACEPOINT_EVENT(latwatt, deadline_miss,
	TP_ARGS(const char *, workload, const char *, what, int, cpu, uint64_t, seq,
		uint64_t, deadline_ns, uint64_t, late_ns),
	TP_FIELDS(
		ctf_string(workload, workload)
		ctf_string(what, what)
		ctf_integer(int, cpu, cpu)
		ctf_integer(uint64_t, seq, seq)
		ctf_integer(uint64_t, deadline_ns, deadline_ns)
		ctf_integer(uint64_t, late_ns, late_ns)
	)
)
TRACEPOINT_LOGLEVEL(latwatt, deadline_miss, TRACE_WARNING)

TRACEPOINT_EVENT(latwatt, power_sample,
	TP_ARGS(const char *, rail, uint64_t, time_ns, double, watts, int, estimated),
	TP_FIELDS(
		ctf_string(rail, rail)
		ctf_integer(uint64_t, time_ns, time_ns)
		ctf_float(double, watts, watts)
		ctf_integer(int, estimated, estimated)
	)
)
TRACEPOINT_LOGLEVEL(latwatt, power_sample, TRACE_INFO)

#endif /* LW_UST_TP_H */

#include <lttng/tracepoint-event.h>
