/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RUN/<instance>.records: the per-period / per-frame records of a workload
 * (RUN/audio.records, RUN/video.records, RUN/audio-1.records for a second
 * audio workload), fixed-size little-endian records after a versioned header.
 *
 *   header (128 bytes):
 *     char     magic[8]      "LWRECORD"
 *     uint32   version       LW_RECORDS_VERSION
 *     uint32   record_size   sizeof the record of this kind
 *     uint64   start_mono    CLOCK_MONOTONIC ns at the start of the run
 *     char     kind[16]      "audio", "video" (NUL-padded)
 *     char     instance[32]  "audio", "audio-1" (NUL-padded)
 *     uint64   interval_num  nominal interval between boundaries is
 *     uint64   interval_den    interval_num / interval_den ns (audio: frames*1e9 / rate)
 *     uint32   streams       streams (audio) or 1 (video)
 *     uint8    reserved[44]  zero
 *   records: struct lw_audio_record or struct lw_video_record, until end of
 *   file, in the order they completed (streams interleaved).
 *
 * Every boundary is one record, processed or not: the record count of an
 * audio file is streams x periods, of a video file the number of vsyncs.
 * Timestamps are CLOCK_MONOTONIC (the trace's `mono` clock), so a record
 * joins the kernel trace on boundary_ns / vsync_ns.  Durations are whole
 * 64-bit ns (version 2; version 1 held them in 32 bits, saturated at 4.29 s,
 * and is still read: lw_records_next() widens its records).  A file whose
 * length is not header + n * size is truncated: the reader says so.
 */
#ifndef LW_RECORDS_H
#define LW_RECORDS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define LW_RECORDS_MAGIC   "LWRECORD"
#define LW_RECORDS_VERSION 2
#define LW_RECORDS_HDR     128

enum lw_record_flags {
	LW_REC_MISS    = 1 << 0,	/* deadline missed: an xrun / a dropped frame */
	LW_REC_SKIPPED = 1 << 1,	/* never processed: the thread was still busy or late */
	LW_REC_MARKED  = 1 << 2,	/* a trace marker was written for it */
};

/* One audio period of one stream. */
struct lw_audio_record {
	uint64_t boundary_ns;	/* CLOCK_MONOTONIC: the period boundary (DMA interrupt due) */
	uint64_t period;	/* index of the boundary, 0 = first */
	uint64_t irq_ns;	/* boundary -> interrupt thread running (its timer latency) */
	uint64_t wakeup_ns;	/* interrupt -> stream thread running */
	uint64_t proc_ns;	/* processing time of the period */
	int64_t  slack_ns;	/* next boundary - end of processing; < 0 is an xrun */
	uint16_t stream;
	uint16_t cpu;		/* CPU the stream thread processed it on */
	uint32_t flags;		/* enum lw_record_flags */
};
_Static_assert(sizeof(struct lw_audio_record) == 56, "audio record is 56 bytes");

/* One video frame. */
struct lw_video_record {
	uint64_t vsync_ns;	/* CLOCK_MONOTONIC: the vsync the frame was captured at */
	uint64_t frame;		/* index of the vsync, 0 = first */
	uint64_t capture_ns;	/* vsync -> frame in its ring buffer (DMA burst done) */
	uint64_t dma_ns;	/* length of the DMA burst (the copy) */
	uint64_t wakeup_ns;	/* capture done -> processing thread running */
	uint64_t proc_ns;	/* pixel processing time */
	uint64_t latency_ns;	/* capture vsync -> ready for display */
	int64_t  slack_ns;	/* display vsync (next one) - ready; < 0: dropped */
	uint16_t slot;		/* ring buffer slot */
	uint16_t cpu;		/* CPU of the processing thread */
	uint32_t flags;		/* enum lw_record_flags */
};
_Static_assert(sizeof(struct lw_video_record) == 72, "video record is 72 bytes");

/* Version 1 of the two (durations in 32 bits, saturated), read and widened. */
struct lw_audio_record_v1 {
	uint64_t boundary_ns, period;
	uint32_t irq_ns, wakeup_ns, proc_ns;
	int32_t  slack_ns;
	uint16_t stream, cpu;
	uint32_t flags;
};
_Static_assert(sizeof(struct lw_audio_record_v1) == 40, "audio record v1 is 40 bytes");
struct lw_video_record_v1 {
	uint64_t vsync_ns, frame;
	uint32_t capture_ns, dma_ns, wakeup_ns, proc_ns, latency_ns;
	int32_t  slack_ns;
	uint16_t slot, cpu;
	uint32_t flags;
};
_Static_assert(sizeof(struct lw_video_record_v1) == 48, "video record v1 is 48 bytes");

struct lw_records_hdr {
	uint32_t version;
	uint32_t record_size;
	uint64_t start_mono;
	char kind[17];
	char instance[33];
	uint64_t interval_num, interval_den;
	uint32_t streams;
};

/*
 * Writing.  Each producer thread gets its own single-producer ring
 * (lw_records_ring(), before it starts); one non-realtime writer thread
 * drains them into the file.  A full ring drops the record and counts it.
 */
struct lw_records;
struct lw_rec_ring {
	unsigned char *buf;
	size_t size;			/* record size */
	size_t mask;
	_Atomic size_t head, tail;
	_Atomic uint64_t dropped;
};

struct lw_records *lw_records_create(int dfd, const char *path, const struct lw_records_hdr *h);
struct lw_rec_ring *lw_records_ring(struct lw_records *w, size_t capacity);
int lw_records_start(struct lw_records *w);	/* the writer thread */
/* Stop the writer, drain, fsync, close.  -1 after error(); frees @w. */
int lw_records_close(struct lw_records *w, uint64_t *written, uint64_t *dropped);

static inline int lw_rec_push(struct lw_rec_ring *r, const void *rec)
{
	size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	unsigned char *dst, *end;
	const unsigned char *src = rec;

	if (head - tail > r->mask) {
		atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
		return -1;
	}
	dst = r->buf + (head & r->mask) * r->size;
	for (end = dst + r->size; dst < end; )
		*dst++ = *src++;
	atomic_store_explicit(&r->head, head + 1, memory_order_release);
	return 0;
}

/* Reading: lw_records_open() checks magic, version, record size (against
 * @record_size, 0: any) and truncation, with error() naming the file. */
struct lw_records_reader;
struct lw_records_reader *lw_records_open(const char *path, struct lw_records_hdr *h);
uint64_t lw_records_count(const struct lw_records_reader *r);
/* 1 with @rec filled (record_size bytes, as in the file), 0 at end, -1 on
 * error.  A kind's reader widens version 1 records (lw_records_version()). */
int lw_records_next(struct lw_records_reader *r, void *rec);
uint32_t lw_records_version(const struct lw_records_reader *r);
void lw_records_close_reader(struct lw_records_reader *r);

#endif
