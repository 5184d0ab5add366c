/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * System management interrupts: the count per CPU in MSR_SMI_COUNT (0x34,
 * Intel since Nehalem), read through /dev/cpu/N/msr (the msr module), as
 * cyclictest --smi and turbostat do.  An SMI takes the CPU into firmware
 * where no kernel trace sees it: a count that moved during a run is the one
 * sign of it.
 *
 *	json_t *s = lw_smi_snapshot("", 1);	// start of the run
 *	...
 *	json_t *e = lw_smi_snapshot("", 0);	// end
 *	json_t *run = lw_smi_delta(s, e);	// RUN/manifest.json "smi"
 *
 * A snapshot is {"cpus": [{"cpu", "count"}]} or, where the counter cannot
 * be read, {"reason": "..."}: not x86, not Intel (AMD has no such MSR), no
 * msr module, a virtual machine that refuses the MSR, not root.  @root is
 * "" for this machine, else a directory with proc/cpuinfo and dev/cpu/N/msr
 * (regular files for tests).  @load: try "modprobe msr" when the device
 * files are missing (the module stays loaded).
 */
#ifndef LW_SMI_H
#define LW_SMI_H

#include <jansson.h>

#define LW_MSR_SMI_COUNT 0x34

json_t *lw_smi_snapshot(const char *root, int load);
/* {"source", "cpus": [{"cpu", "start", "end", "count"}], "total"} from two
 * snapshots; {"source", "reason"} when either could not be read. */
json_t *lw_smi_delta(const json_t *start, const json_t *end);

#endif
