/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RUN/samples: every probe wake-up, fixed-size little-endian records after a
 * versioned header.
 *
 *   header (64 bytes):
 *     char     magic[8]     "LWSAMPLE"
 *     uint32   version      LW_SAMPLES_VERSION
 *     uint32   record_size  sizeof(struct lw_sample)
 *     uint64   start_mono   CLOCK_MONOTONIC ns at the start of the run
 *     uint8    reserved[40]
 *   records: struct lw_sample, until end of file
 *
 * A file whose length is not header + n * record_size is truncated: the
 * reader says so and how many whole records it holds.
 */
#ifndef LW_SAMPLES_H
#define LW_SAMPLES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LW_SAMPLES_MAGIC   "LWSAMPLE"
#define LW_SAMPLES_VERSION 1
#define LW_SAMPLES_HDR     64

/* Probe identifiers, stable: they are stored in files. */
enum lw_sample_id {
	LW_SAMPLE_CYCLIC          = 1,	/* clock_nanosleep wake-up latency */
	LW_SAMPLE_TIMERLAT_IRQ    = 2,	/* timerlat: IRQ latency */
	LW_SAMPLE_TIMERLAT_THREAD = 3,	/* timerlat: thread latency (woken, in the kernel) */
	LW_SAMPLE_NOISE           = 4,	/* busy-loop gap: start, length */
	LW_SAMPLE_AUDIO           = 5,	/* audio period wake-up (interrupt to thread) */
	LW_SAMPLE_VIDEO           = 6,	/* video frame capture-to-display */
	LW_SAMPLE_TIMERLAT_USER   = 7,	/* timerlat, user-space threads: return to user */
	LW_SAMPLE_HWNOISE         = 8,	/* osnoise with IRQs off: gap start, length */
	LW_SAMPLE_MAX
};

const char *lw_probe_name(unsigned id);	/* "cyclic", ...; "unknown" */
int lw_probe_by_name(const char *name);	/* -1 when unknown */
/* 1 when the samples of @id are the gaps of a busy loop (expected_ns its
 * start, latency_ns its length, thread "lw-NAME/CPU"), not wake-up latencies. */
int lw_probe_gaps(unsigned id);
/* 1 when the loop of @id ran with interrupts off (hwnoise): a gap no event
 * explains is the hardware's or firmware's. */
int lw_probe_irqs_off(unsigned id);
/* The name of the thread whose loop gives the gaps of @id on @cpu:
 * "lw-noise/3", or the kernel's "osnoise/3" (hwnoise); returns buf. */
char *lw_probe_loop_thread(unsigned id, int cpu, char *buf, size_t len);
/* 1 when the samples of @id are wake-up latencies: not a busy loop's gaps,
 * not a pipeline's end-to-end latency (video: capture to display). */
int lw_probe_wakeup(unsigned id);

enum lw_sample_flags {
	LW_SAMPLE_OVER_THRESHOLD = 1 << 0,	/* a trace marker was written for it */
};

struct lw_sample {
	uint64_t expected_ns;	/* CLOCK_MONOTONIC: when the wake-up was due */
	uint64_t latency_ns;	/* how late it ran (noise: gap length) */
	uint32_t missed;	/* whole periods skipped because of this lateness */
	uint16_t cpu;
	uint8_t  probe;		/* enum lw_sample_id */
	uint8_t  flags;		/* enum lw_sample_flags */
};
_Static_assert(sizeof(struct lw_sample) == 24, "sample record is 24 bytes");

/* The rings of samples a run has at most (a run's, which the monitor's
 * histories are indexed by). */
#define LW_MAX_RINGS 256

/* Writer: buffered; lw_samples_close() flushes and fsyncs. */
struct lw_samples_writer;
struct lw_samples_writer *lw_samples_create(int dfd, const char *path, uint64_t start_mono);
int lw_samples_write(struct lw_samples_writer *w, const struct lw_sample *s, size_t n);
int lw_samples_close(struct lw_samples_writer *w);

/* Reader: streams records; a bad magic, a wrong version or a truncated
 * file (a partial record at the end) fail lw_samples_open() with error(). */
struct lw_samples_reader;
struct lw_samples_reader *lw_samples_open(const char *path);
/* LW_SAMPLES_PARTIAL_OK: a run that did not complete (killed mid-write)
 * may end in a partial record: it is left out with a warning, and every
 * whole record read. */
#define LW_SAMPLES_PARTIAL_OK 1
/* LW_SAMPLES_QUIET: with PARTIAL_OK, no warning (a pass after the first). */
#define LW_SAMPLES_QUIET 2
/* LW_SAMPLES_SMALL_BUF: a 64 KB read buffer instead of 1 MB (one reader of
 * many open on the same file). */
#define LW_SAMPLES_SMALL_BUF 4
struct lw_samples_reader *lw_samples_open_flags(const char *path, unsigned flags);
/* The same, refusing a file larger than @max records (what the manifest
 * says was written: lw_manifest_samples_written()) and the header. */
struct lw_samples_reader *lw_samples_open_max(const char *path, unsigned flags, uint64_t max);
uint64_t lw_samples_start(const struct lw_samples_reader *r);
uint64_t lw_samples_count(const struct lw_samples_reader *r);	/* whole records */
/* 1 with *s filled, 0 at end, -1 on read error. */
int lw_samples_next(struct lw_samples_reader *r, struct lw_sample *s);
void lw_samples_close_reader(struct lw_samples_reader *r);

#endif
