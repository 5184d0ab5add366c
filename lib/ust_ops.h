/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The calls liblatwatt-ust.so (lib/ust_provider.c) offers the latwatt
 * binary: one table, found by name after dlopen(), checked by its ABI
 * number so that a library from another latwatt build is refused.
 */
#ifndef LW_UST_OPS_H
#define LW_UST_OPS_H

#include <stdint.h>

#define LW_UST_ABI        1
#define LW_UST_OPS_SYMBOL "lw_ust_provider_ops"
#define LW_UST_LIBRARY    "liblatwatt-ust.so"

struct lw_ust_ops {
	int abi;
	void (*spike)(const char *probe, int cpu, uint64_t expected_ns, uint64_t latency_ns);
	void (*probe_sample)(const char *probe, int cpu, uint64_t expected_ns,
			     uint64_t latency_ns);
	void (*workload_period)(const char *workload, int cpu, uint64_t seq,
				uint64_t expected_ns, uint64_t start_ns, uint64_t end_ns);
	void (*deadline_miss)(const char *workload, const char *what, int cpu, uint64_t seq,
			      uint64_t deadline_ns, uint64_t late_ns);
	void (*power_sample)(const char *rail, uint64_t time_ns, double watts, int estimated);
};

#endif
