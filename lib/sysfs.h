/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small sysfs and procfs files: read one (a value, a name, a list), write
 * one.  Knobs that a run changes and must restore go through lib/knobs.h,
 * which writes with these.
 */
#ifndef LW_SYSFS_H
#define LW_SYSFS_H

#include <stddef.h>

/* Read a small sysfs/procfs file, newline stripped; -1 with errno if
 * unreadable. */
int lw_read_file(const char *path, char *buf, size_t len);
/* Write a string to a sysfs/procfs file; 0, or -1 after error(). */
int lw_write_file(const char *path, const char *value);

#endif
