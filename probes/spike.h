/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A probe sample above the run's --threshold: one trace marker, in the same
 * form for every probe so that the analysis finds them all,
 *
 *   latwatt spike probe=NAME cpu=N latency_ns=L expected_ns=E
 *
 * and the LTTng event latwatt:spike.  No allocation, one write(2): safe
 * from realtime threads.
 */
#ifndef LW_PROBE_SPIKE_H
#define LW_PROBE_SPIKE_H

#include <stdint.h>

#include "lib/run.h"
#include "lib/ust.h"

static inline void lw_probe_spike(struct lw_run *run, unsigned probe, int cpu,
				  uint64_t expected_ns, uint64_t latency_ns)
{
	char buf[128];
	struct lw_fmt f = { buf, buf + sizeof(buf) };

	lw_fmt_str(&f, "latwatt spike probe=");
	lw_fmt_str(&f, lw_probe_name(probe));
	lw_fmt_str(&f, " cpu=");
	lw_fmt_u64(&f, (uint64_t)cpu);
	lw_fmt_str(&f, " latency_ns=");
	lw_fmt_u64(&f, latency_ns);
	lw_fmt_str(&f, " expected_ns=");
	lw_fmt_u64(&f, expected_ns);
	lw_fmt_str(&f, "\n");
	lw_run_mark(run, buf, (size_t)(f.p - buf));
	lw_ust_spike(probe, cpu, expected_ns, latency_ns);
}

#endif
