/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hwnoise probe (rtla hwnoise; hwlatdetect's method): the kernel's
 * osnoise tracer with interrupts disabled (osnoise/options
 * OSNOISE_IRQ_DISABLE, Linux 6.4 on), in a tracefs instance of our own,
 * "latwatt-hwnoise-<pid>" (probes/osnoise.h: the set-up timerlat shares).
 *
 * A kernel thread per measured CPU, osnoise/N, reads the time in a loop for
 * the runtime of each period (osnoise/runtime_us of osnoise/period_us) with
 * interrupts off: no IRQ, softirq or thread can run there, so a gap between
 * two readings longer than the threshold (tracing_thresh, set for the run:
 * --hwnoise-threshold, 5 us by default as rtla's; with 0 Debian's 6.12
 * reported gaps of 1.2 us under QEMU's emulation, half a million a second) is an
 * NMI's, or the hardware's or firmware's (an SMI, a hypervisor that stopped
 * the vCPU).  Each gap is an osnoise:sample_threshold event (start on the
 * tracer's own clock, duration, interference: the NMIs counted in it) and
 * becomes a sample, LW_SAMPLE_HWNOISE, a busy-loop gap as the noise
 * probe's: latency_ns its duration, expected_ns its start on the run's clock
 * (the event's timestamp on the "mono" trace clock minus the duration: the
 * event is written as the gap ends).  Each period ends with an ftrace:osnoise
 * event (noise, max single noise, runtime in us; the gaps with no
 * interference counted as hw_count; NMIs, IRQs, softirqs, threads): their
 * sums and maxima per CPU go to the manifest.  Each NMI in the loop
 * (osnoise:nmi_noise: its duration) goes to the manifest too (the first
 * LW_HWN_NMIS): analyze charges a gap's NMIs to irq:NMI, the rest of what no
 * event explains to hardware/firmware.
 *
 * Every knob changed (osnoise/cpus, period_us, runtime_us, stop_tracing_*,
 * the options flag) goes through the run's knob table and journal: restored
 * at the end, on SIGINT/SIGTERM and by `latwatt cleanup` after SIGKILL.
 * The osnoise tracers run one at a time: hwnoise and timerlat exclude each
 * other.
 */
#ifndef LW_PROBE_HWNOISE_H
#define LW_PROBE_HWNOISE_H

#include <sched.h>
#include <stdint.h>

#include "lib/samples.h"

struct lw_part;
struct tep_handle;
struct tep_format_field;
struct tep_record;

#define LW_HWNOISE_PERIOD_NS  1000000000ULL	/* osnoise's default period, 1 s */
#define LW_HWNOISE_RUNTIME_NS 1000000000ULL	/* and runtime: rtla hwnoise's */
#define LW_HWNOISE_THRESHOLD_NS 5000ULL		/* --hwnoise-threshold: rtla's 5 us */

struct lw_hwnoise_opts {
	cpu_set_t cpus;			/* an osnoise/N thread each */
	uint64_t period_ns, runtime_ns;	/* whole microseconds */
	uint64_t gap_threshold_ns;	/* --hwnoise-threshold: tracing_thresh, whole us */
	uint64_t threshold_ns;		/* --threshold: trace marker above it; 0 never */
	uint64_t break_ns;		/* --break-on; 0 never */
};

struct lw_part *lw_hwnoise_new(const struct lw_hwnoise_opts *o);

/* --- decoding, pure (tests/unit/test_hwnoise.c) --- */

/* Fields of osnoise:sample_threshold, ftrace:osnoise and osnoise:nmi_noise
 * in a tep handle. */
struct lw_hwn_format {
	int gap_id, period_id, nmi_id;
	struct tep_format_field *nmi_duration;
	struct tep_format_field *start, *duration, *interference;
	struct tep_format_field *noise, *runtime, *max_sample, *hw_count, *nmi_count,
				*irq_count, *softirq_count, *thread_count;
};

/* One osnoise:sample_threshold event: a gap. */
struct lw_hwn_gap {
	uint64_t ts;			/* event time, "mono" trace clock, ns */
	int cpu;
	uint64_t duration_ns;
	uint64_t interference;		/* NMIs (IRQs off) that entered in the gap */
};

/* One osnoise:nmi_noise event: an NMI in the loop (written as it ends). */
struct lw_hwn_nmi {
	int cpu;
	uint64_t start_ns;		/* the event's time minus its duration */
	uint64_t ns;
};

/* The NMIs kept for analyze (manifest probes.hwnoise.nmis), the rest counted. */
#define LW_HWN_NMIS 4096

/* The per-period figures of a CPU (ftrace:osnoise events summed). */
struct lw_hwn_cpu {
	uint64_t periods;
	uint64_t runtime_us, noise_us;	/* sums */
	uint64_t max_single_us;		/* the largest gap of any period */
	uint64_t hw, nmi, irq, softirq, thread;	/* counts, summed */
	uint64_t gaps, gaps_max_ns;	/* the gap events */
};

/* Find the events and their fields; -1 (error()) if the kernel lacks them. */
int lw_hwnoise_format(struct tep_handle *tep, struct lw_hwn_format *f);
/* Decode a gap event into @g; -1 if a field cannot be read. */
int lw_hwnoise_gap(const struct lw_hwn_format *f, const struct tep_record *rec,
		   struct lw_hwn_gap *g);
/* Add a period event's figures to @c; -1 if a field cannot be read. */
int lw_hwnoise_period(const struct lw_hwn_format *f, const struct tep_record *rec,
		      struct lw_hwn_cpu *c);
/* Decode an NMI event into @n; -1 if a field cannot be read or it cannot
 * be placed. */
int lw_hwnoise_nmi(const struct lw_hwn_format *f, const struct tep_record *rec,
		   struct lw_hwn_nmi *n);
/* A gap into a sample: 1, or 0 when it cannot be placed (longer than its
 * timestamp). */
int lw_hwnoise_sample(const struct lw_hwn_gap *g, struct lw_sample *s);

#endif
