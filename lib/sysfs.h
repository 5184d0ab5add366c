/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small sysfs and procfs files: read one (a value, a name, a list), write
 * one.  Knobs that a run changes and must restore go through lib/knobs.h,
 * which writes with these.
 */
#ifndef LW_SYSFS_H
#define LW_SYSFS_H

#include <stddef.h>
#include <stdint.h>

/* Read a small sysfs/procfs file, newline stripped; -1 with errno if
 * unreadable. */
int lw_read_file(const char *path, char *buf, size_t len);
/* Write a string to a sysfs/procfs file; 0, or -1 after error(). */
int lw_write_file(const char *path, const char *value);

/* When process @pid started (field 22 of /proc/PID/stat, clock ticks since
 * boot): with the pid, what names a process for its whole life. 0 when
 * unreadable. */
unsigned long long lw_proc_starttime(long pid);

/* PM QoS: the system-wide CPU latency request in microseconds, or -1. */
#define LW_PMQOS_DEV "/dev/cpu_dma_latency"
int64_t lw_pmqos_read(const char *dev);

#endif
