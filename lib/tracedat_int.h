/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside lib/: the byte reader of a trace.dat header that the structural
 * check (lib/tracedat_check.c) and the reader (lib/tracedat_read.c) share.
 * Each call names the file and the byte offset in its error.
 */
#ifndef LW_TRACEDAT_INT_H
#define LW_TRACEDAT_INT_H

#include <stdint.h>
#include <stdio.h>

#include "lib/tracedat.h"

/*
 * Limits on what a header may declare: far above what a kernel writes (a
 * format is 1-3 KB, kallsyms 5-10 MB, a few hundred events), far below
 * what would make a parser behind the check allocate or loop for long.
 */
#define MAX_HDR_TEXT	(64u << 10)	/* header_page, header_event */
#define MAX_FORMAT	(256u << 10)	/* one event format */
#define MAX_FORMATS	65536u		/* ftrace formats; events of a system */
#define MAX_SYSTEMS	4096u
#define MAX_KALLSYMS	(256u << 20)
#define MAX_TEXT	(64u << 20)	/* printk formats, command lines */
#define MAX_OPTION	(64u << 20)
#define MAX_CPUS	8192u
#define MAX_SECTIONS	1024		/* v7 options sections */

struct lw_rd {
	FILE *f;
	const char *path;
	uint64_t off, size;
	uint64_t end;			/* of the region being read (file or section) */
	int long_size;			/* the kernel's, from header_page */
	struct lw_tracedat_info *info;
};

int lw_rd_bytes(struct lw_rd *r, void *dst, uint64_t n, const char *what);
int lw_rd_seek(struct lw_rd *r, uint64_t off, const char *what);
int lw_rd_le(struct lw_rd *r, int bytes, uint64_t *v, const char *what);
int lw_rd_expect(struct lw_rd *r, const char *s, size_t n);
int lw_rd_string(struct lw_rd *r, char *buf, size_t len, const char *what);
int lw_rd_size(struct lw_rd *r, int bytes, uint64_t *n, uint64_t max, const char *what);

#endif
