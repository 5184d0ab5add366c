/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RUN/trace.dat: trace-cmd's file format, version 6 (trace-cmd.dat.v6(5)),
 * written around raw ring-buffer sub-buffers, so that `trace-cmd report`
 * and KernelShark open the traces latwatt records.
 *
 *   magic "\x17\x08\x44tracing" "6\0", endianness, long size, page size
 *   header_page, header_event          (events/header_page, header_event)
 *   ftrace event formats               (events/ftrace/<event>/format)
 *   event formats, per system          (only the events that were enabled)
 *   kallsyms, printk formats, saved command lines
 *   CPU count, "options  \0":
 *       TRACECLOCK (4), UNAME (5), VERSION (9), CPUSTAT (2) per CPU,
 *       CPUCOUNT (8), end (0)
 *   "flyrecord\0", per CPU: offset and size of its data
 *   trace clock text (v6 carries it here when the TRACECLOCK option is set)
 *   padding to a page boundary, then each CPU's sub-buffers, page by page
 *
 * The per-CPU data is the kernel's own sub-buffers, as spliced from
 * per_cpu/cpuN/trace_pipe_raw: nothing is parsed or rewritten.
 *
 * The writer and the page scan are lib/tracedat.c, the structural check
 * lib/tracedat_check.c, the reader lib/tracedat_read.c.
 */
#ifndef LW_TRACEDAT_H
#define LW_TRACEDAT_H

#include <stddef.h>
#include <stdint.h>

#define LW_TRACEDAT_VERSION 6

/* Option ids of the trace-cmd file format (trace-cmd.dat.v7(5)). */
enum {
	LW_TDOPT_DONE       = 0,
	LW_TDOPT_DATE       = 1,
	LW_TDOPT_CPUSTAT    = 2,
	LW_TDOPT_BUFFER     = 3,
	LW_TDOPT_TRACECLOCK = 4,
	LW_TDOPT_UNAME      = 5,
	LW_TDOPT_VERSION    = 9,
	LW_TDOPT_CPUCOUNT   = 8,
};

struct lw_blob {
	char  *data;
	size_t len;
};

struct lw_tracedat_system {
	char *name;
	struct lw_blob *fmt;
	int n;
};

/* Everything the header carries.  Blobs are owned (lw_tracedat_free). */
struct lw_tracedat {
	uint32_t page_size;		/* ring-buffer sub-buffer size */
	int cpus;
	struct lw_blob header_page, header_event;
	struct lw_blob *ftrace;		/* ftrace event formats */
	int nftrace;
	struct lw_tracedat_system *sys;
	int nsys;
	struct lw_blob kallsyms;	/* may be empty */
	struct lw_blob printk;
	struct lw_blob cmdlines;
	struct lw_blob clock;		/* content of trace_clock: "... [mono] ..." */
	struct lw_blob uname;		/* "Linux host 6.1.0 x86_64" */
	struct lw_blob version;		/* "latwatt 0.1.0" */
	struct lw_blob *cpustat;	/* per CPU, content of per_cpu/cpuN/stats */
};

/* Read a whole file into a blob (NUL-terminated, len excludes the NUL).
 * -1 with errno set (no message: callers decide whether it matters). */
int lw_blob_read(struct lw_blob *b, const char *path);
int lw_blob_set(struct lw_blob *b, const char *s);
void lw_blob_free(struct lw_blob *b);

/* Add the format of @system/@event (text) to @d; 0 or -1. */
int lw_tracedat_add_format(struct lw_tracedat *d, const char *system, struct lw_blob *fmt);
void lw_tracedat_free(struct lw_tracedat *d);

/*
 * Write @path: the header from @d, then the per-CPU data read from the
 * descriptors @cpu_fds[0 .. d->cpus-1] (raw sub-buffers, from offset 0 to
 * the last whole one; -1 for a CPU with none), named @cpu_names[] in
 * messages.  The descriptors are read at explicit offsets and left open:
 * a file unlinked meanwhile is still read whole.  Written to a temporary
 * name and renamed.  0 or -1 (error()).
 */
int lw_tracedat_write(int dfd, const char *path, const struct lw_tracedat *d, const int *cpu_fds,
		      const char *const *cpu_names);

struct lw_tracedat_info {
	int version;
	int cpus;		/* -1 when not known (version 7) */
	uint32_t page_size;
	char clock[32];		/* the selected trace clock; "" when not known */
	/* version 6, when the caller sets want_ranges: each CPU's data
	 * (malloc'ed, cpus entries; the caller frees them) */
	int want_ranges;
	uint64_t *cpu_off, *cpu_size;
	int open_flags;		/* lib/input.h flags for lw_tracedat_check_info()'s
				 * open (LW_IN_NOFOLLOW in a run directory) */
};
/*
 * Structural check of a trace.dat before a parser sees it: magic, version,
 * every section size and every CPU data range within the file, with what it
 * learnt in @info.  Version 6 files are walked completely; later versions
 * only by their initial format.  0, or -1 after error() naming the file and
 * the byte offset.
 */
int lw_tracedat_check_info(const char *path, struct lw_tracedat_info *info);
/* The same on the file open at @fd (read through a descriptor of its own:
 * @fd's offset is left alone); @path names it in messages. */
int lw_tracedat_check_fd(int fd, const char *path, struct lw_tracedat_info *info);

/*
 * Read a version 6 file's header back into @d (as lw_tracedat_write()
 * wrote it), with each CPU's data range in @off[] and @size[] (malloc'ed,
 * d->cpus entries).  0, or -1 after error().
 */
int lw_tracedat_read(const char *path, struct lw_tracedat *d, uint64_t **off, uint64_t **size);

/*
 * Scan of raw sub-buffers (a CPU's data, @len bytes at @data, @page_size
 * each) without decoding any event: per page, its timestamp, whether the
 * kernel flagged events lost before it, and the last event's timestamp.
 */
struct lw_page_scan {
	uint64_t pages, events, bytes;
	uint64_t first_ns, last_ns;	/* 0 when there are no events */
	uint64_t missed_pages;		/* pages flagged "events missed before" */
	uint64_t missed_events;		/* sum of the counts the kernel stored */
	uint64_t missed_unknown;	/* flagged pages without a stored count */
	int bad_pages;			/* pages the decoder refused */
	/* windows where events were lost: [from_ns, to_ns] */
	struct lw_window { uint64_t from_ns, to_ns; int64_t count; } *win;
	size_t nwin;
};
/* @start_ns: the start of tracing, the left edge of a loss on the first
 * page.  @long_size: the kernel's (from header_page), 4 or 8. */
int lw_page_scan(const void *data, size_t len, uint32_t page_size, int long_size,
		 uint64_t start_ns, struct lw_page_scan *out);
void lw_page_scan_free(struct lw_page_scan *s);
/* The same, fed in pieces of whole pages (a file read in bounded chunks):
 * begin, feed as often as needed (in file order), end.  @out is filled as
 * the pages come; lw_page_scan_free() it afterwards. */
struct kbuffer;
struct lw_page_scanner {
	struct kbuffer *kb;
	unsigned char *page;
	uint32_t page_size;
	int long_size;
	uint64_t prev_last;
	struct lw_page_scan *out;
};
int lw_page_scan_begin(struct lw_page_scanner *ps, uint32_t page_size, int long_size,
		       uint64_t start_ns, struct lw_page_scan *out);
void lw_page_scan_feed(struct lw_page_scanner *ps, const void *data, size_t len);
void lw_page_scan_end(struct lw_page_scanner *ps);

/* The kernel's long size from header_page text ("local_t commit; ...size:N"). */
int lw_header_page_long_size(const char *header_page);

#endif
