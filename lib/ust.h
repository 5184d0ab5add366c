/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * LTTng-UST events of latwatt, for the rest of the code.  The tracepoint
 * provider lives in its own shared object, liblatwatt-ust.so, which
 * lw_ust_load() dlopen()s for `latwatt run` only, and only when LTTng is
 * wanted (a session daemon runs, or --lttng on): no other command, and no
 * run without LTTng, carries liblttng-ust or its listener threads.
 *
 * Until it is loaded each call is one predictable branch; once loaded, an
 * indirect call into an LTTng tracepoint (one more branch while no session
 * enables it, no allocation, safe from realtime threads).
 *
 * The provider and its log levels are described in lib/ust_tp.h; all
 * timestamps are CLOCK_MONOTONIC nanoseconds, as everywhere in latwatt.
 */
#ifndef LW_UST_H
#define LW_UST_H

#include <stddef.h>
#include <stdint.h>

#include "lib/samples.h"
#include "lib/ust_ops.h"

/*
 * The provider's calls, NULL until lw_ust_load() succeeds.  Written once,
 * by lw_ust_load() before any thread is started, and only read afterwards
 * (thread creation orders the write before every read).
 */
extern const struct lw_ust_ops *lw_ust;

enum lw_ust_mode {
	LW_UST_AUTO,	/* when an LTTng session daemon runs */
	LW_UST_ON,	/* always (a session may start during the run) */
	LW_UST_OFF,	/* never */
};

/* 1 when liblatwatt-ust.so was built with this latwatt. */
extern const int lw_ust_built;

/*
 * Load the provider as @mode asks.  It is looked for only next to the
 * running binary (/proc/self/exe: DIR/liblatwatt-ust.so in the build tree)
 * and in the installed layout (DIR/../lib/latwatt/liblatwatt-ust.so), never
 * through the environment; the file must be a regular file owned by root
 * or by the binary's owner and writable by no one else.  0 when loaded or
 * not wanted; -1 after error() when LW_UST_ON was asked and it cannot be
 * loaded (in auto mode a failure is a warning).  @why receives what was
 * done, for the manifest.
 */
int lw_ust_load(enum lw_ust_mode mode, char *why, size_t len);
/* 1 when an LTTng session daemon this process would register with runs. */
int lw_ust_sessiond_running(void);

/* A probe sample above the run's --threshold (the one a trace marker is
 * written for). */
static inline void lw_ust_spike(unsigned probe, int cpu, uint64_t expected_ns, uint64_t latency_ns)
{
	const struct lw_ust_ops *u = lw_ust;

	if (__builtin_expect(u != NULL, 0))
		u->spike(lw_probe_name(probe), cpu, expected_ns, latency_ns);
}

/* Every probe sample (TRACE_DEBUG: enable it explicitly). */
static inline void lw_ust_probe_sample(unsigned probe, int cpu, uint64_t expected_ns,
				       uint64_t latency_ns)
{
	const struct lw_ust_ops *u = lw_ust;

	if (__builtin_expect(u != NULL, 0))
		u->probe_sample(lw_probe_name(probe), cpu, expected_ns, latency_ns);
}

/* One period of a workload: when it was due, when it started and ended. */
static inline void lw_ust_workload_period(const char *workload, int cpu, uint64_t seq,
					  uint64_t expected_ns, uint64_t start_ns, uint64_t end_ns)
{
	const struct lw_ust_ops *u = lw_ust;

	if (__builtin_expect(u != NULL, 0))
		u->workload_period(workload, cpu, seq, expected_ns, start_ns, end_ns);
}

/* A deadline missed by a workload; @what: "xrun", "dropped-frame", ... */
static inline void lw_ust_deadline_miss(const char *workload, const char *what, int cpu,
					uint64_t seq, uint64_t deadline_ns, uint64_t late_ns)
{
	const struct lw_ust_ops *u = lw_ust;

	if (__builtin_expect(u != NULL, 0))
		u->deadline_miss(workload, what, cpu, seq, deadline_ns, late_ns);
}

/* One power reading; @estimated: 1 from the energy model, 0 measured. */
static inline void lw_ust_power_sample(const char *rail, uint64_t time_ns, double watts,
				       int estimated)
{
	const struct lw_ust_ops *u = lw_ust;

	if (__builtin_expect(u != NULL, 0))
		u->power_sample(rail, time_ns, watts, estimated);
}

#endif
