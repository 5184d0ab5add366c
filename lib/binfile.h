/* SPDX-License-Identifier: GPL-2.0-only */
/* Opening latwatt's binary files (samples, workload records): the header
 * read and its magic checked, with one set of errors. */
#ifndef LW_BINFILE_H
#define LW_BINFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Open @path, a file of a run directory (lib/input.h: a regular file, not a
 * symlink, at most @cap bytes; 0: no cap), and read its @len-byte header
 * into @hdr; its first 8 bytes must be @magic.  *body gets the number of
 * bytes after the header.  NULL after error() naming the file: cannot open
 * it, not a regular file, too large, a truncated header, or "not a latwatt
 * @what file (bad magic)".
 */
FILE *lw_binfile_open(const char *path, const char *magic, const char *what, void *hdr,
		      size_t len, uint64_t cap, uint64_t *body);

#endif
