// SPDX-License-Identifier: GPL-2.0-only
/*
 * The LTTng-UST tracepoint provider "latwatt", built alone into
 * liblatwatt-ust.so (never into the latwatt binary): the one translation
 * unit that defines the tracepoints and creates their probes, and the table
 * of calls lib/ust.c finds in it after dlopen().  Loading it loads
 * liblttng-ust and its listener threads, which is why only `run` does, and
 * only when LTTng is wanted.
 */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "lib/ust_tp.h"

#include "lib/ust_ops.h"

static void spike(const char *probe, int cpu, uint64_t expected_ns, uint64_t latency_ns)
{
	tracepoint(latwatt, spike, probe, cpu, expected_ns, latency_ns);
}

static void probe_sample(const char *probe, int cpu, uint64_t expected_ns, uint64_t latency_ns)
{
	tracepoint(latwatt, probe_sample, probe, cpu, expected_ns, latency_ns);
}

static void workload_period(const char *workload, int cpu, uint64_t seq, uint64_t expected_ns,
			    uint64_t start_ns, uint64_t end_ns)
{
	tracepoint(latwatt, workload_period, workload, cpu, seq, expected_ns, start_ns, end_ns);
}

static void deadline_miss(const char *workload, const char *what, int cpu, uint64_t seq,
			  uint64_t deadline_ns, uint64_t late_ns)
{
	tracepoint(latwatt, deadline_miss, workload, what, cpu, seq, deadline_ns, late_ns);
}

static void power_sample(const char *rail, uint64_t time_ns, double watts, int estimated)
{
	tracepoint(latwatt, power_sample, rail, time_ns, watts, estimated);
}

const struct lw_ust_ops lw_ust_provider_ops = {
	.abi = LW_UST_ABI,
	.spike = spike,
	.probe_sample = probe_sample,
	.workload_period = workload_period,
	.deadline_miss = deadline_miss,
	.power_sample = power_sample,
};
