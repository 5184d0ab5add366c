/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * PM QoS through /dev/cpu_dma_latency.  Left as the system has it unless a
 * value is asked for: idle-state exit latency is one of the things measured.
 * When held, the request lives as long as the file stays open; closing it
 * (stop, or the process dying) releases it.
 */
#ifndef LW_PMQOS_H
#define LW_PMQOS_H

#include <stdint.h>

struct lw_part;

/* (lw_pmqos_read() and LW_PMQOS_DEV are in lib/sysfs.h) */

/* A participant that holds @value_us for the run (value_us < 0: records the
 * system's value and changes nothing). */
struct lw_part *lw_pmqos_new(int64_t value_us);

#endif
