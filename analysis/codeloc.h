/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The code behind a spike, from a kernel stack the trace holds
 * (ftrace:kernel_stack, taken by run --stacks' triggers), resolved through
 * the kernel symbols trace.dat carries: where the task that held the CPU
 * was, in words for a cause line.
 *
 * A stack is its frames innermost first, each a symbol and the offset in
 * it ("do_nanosleep", 0x6a); a frame with no symbol has sym NULL.
 *
 *  - At a wake-up (the stack of the event that woke the probe's thread):
 *    taken in an interrupt, the frames past the interrupt's entry
 *    (asm_sysvec_* on x86, el1h_64_irq on arm64) are the code it
 *    interrupted: "foo+0x3c", or "user space" when the entry is the last
 *    frame (or an entry from user space, el0t_*).  Not in an interrupt: the
 *    waker's own code, past the wake-up and tracing functions.
 *  - At a switch (the task leaving the CPU to the probe's thread): the
 *    first frame outside the scheduler, and the system call it is in:
 *    "do_nanosleep+0x6a (clock_nanosleep)"; "user space" when it was
 *    preempted on its way back to user space.
 */
#ifndef LW_CODELOC_H
#define LW_CODELOC_H

#include <stddef.h>
#include <stdint.h>

/* The place of code that is not the kernel's. */
#define LW_CODE_USER "user space"

struct lw_frame {
	const char *sym;	/* NULL: no symbol for the address */
	uint64_t off;
};

enum lw_stack_at { LW_STACK_WAKEUP = 0, LW_STACK_SWITCH = 1 };

/* The location in @buf; NULL when the stack says nothing (empty, or only
 * frames without symbols). */
const char *lw_stack_where(const struct lw_frame *f, int n, enum lw_stack_at at, char *buf,
			   size_t len);

/* The address of symbol @name in a kallsyms text ("ADDR T NAME [module]"
 * lines): 0, or -1 when it is not there. */
int lw_kallsyms_addr(const char *text, size_t len, const char *name, uint64_t *addr);

/* A preemptirq event's caller: its offset from _stext (caller_offs, a
 * signed 32-bit field) as an address. */
static inline uint64_t lw_preemptirq_addr(uint64_t stext, int32_t offs)
{
	return stext + (uint64_t)(int64_t)offs;
}

#endif
