// SPDX-License-Identifier: GPL-2.0-only
/* Where a kernel stack says the code behind a spike was (analysis/codeloc.h). */
#include <stdio.h>
#include <string.h>

#include "analysis/codeloc.h"

/* The tracing, wake-up and scheduler functions on the way to the stack:
 * never the code that held the CPU. */
static const char *const skip_prefix[] = {
	"trace_event_raw_event_", "__traceiter_", "trace_", "perf_trace_", "__trace_",
	"event_triggers_call", "stacktrace_trigger",
	"__schedule", "schedule", "preempt_schedule", "__cond_resched", "io_schedule",
	"finish_task_switch",
	"try_to_wake_up", "wake_up_", "__wake_up", "ttwu_", "hrtimer_wakeup",
	"raw_irqentry_exit_cond_resched", "irqentry_exit", "__el1_irq", "el1_interrupt",
	"arm64_preempt_schedule_irq",
	NULL,
};

/* An interrupt's or exception's entry: the frame below it is the code it
 * interrupted (none: user space). */
static const char *const entry_prefix[] = {
	"asm_sysvec_", "asm_common_interrupt", "asm_exc_", "asm_spurious_interrupt",
	"el1h_64_irq", "el1h_64_fiq", "el1h_64_error", "el0t_", NULL,
};

/* On the way back to user space: the task was preempted there, not in the kernel. */
static const char *const user_prefix[] = {
	"exit_to_user_mode", "irqentry_exit_to_user_mode", "syscall_exit_to_user_mode",
	"do_notify_resume", "el0_interrupt", "el0t_", "ret_to_user", NULL,
};

/* Busy-wait and clock-read helpers (whole names): a loop that spins calls
 * them, so the code that held the CPU is their caller (delay_tsc from a
 * driver's udelay(): the driver). */
static const char *const spin_helper[] = {
	"delay_tsc", "delay_loop", "delay_halt", "delay_halt_tpause", "delay_halt_mwaitx",
	"__delay", "__udelay", "__const_udelay", "__ndelay",
	"ktime_get", "ktime_get_mono_fast_ns", "ktime_get_raw_fast_ns", "ktime_get_with_offset",
	"read_tsc", "native_sched_clock", "sched_clock", "sched_clock_cpu", "local_clock",
	"arch_counter_get_cntvct", "arch_counter_get_cntpct",
	/* the clocksources' reads under ktime_get*() (hpet: the QEMU board's) */
	"read_hpet", "acpi_pm_read", "acpi_pm_read_verified", "kvm_clock_read",
	"kvm_clock_get_cycles", "pvclock_clocksource_read", "pvclock_clocksource_read_nowd",
	NULL,
};

static const char *const syscall_prefix[] = {
	"__x64_sys_", "__ia32_sys_", "__arm64_sys_", "__riscv_sys_", "__se_sys_", "__do_sys_",
	NULL,
};

static const char *prefixed(const char *sym, const char *const *tab)
{
	for (int i = 0; tab[i]; i++)
		if (!strncmp(sym, tab[i], strlen(tab[i])))
			return sym + strlen(tab[i]);
	return NULL;
}

static int named(const char *sym, const char *const *tab)
{
	for (int i = 0; tab[i]; i++)
		if (!strcmp(sym, tab[i]))
			return 1;
	return 0;
}

static const char *syscall_in(const struct lw_frame *f, int from, int n)
{
	for (int i = from; i < n; i++) {
		const char *s = f[i].sym ? prefixed(f[i].sym, syscall_prefix) : NULL;

		if (s && *s)
			return s;
	}
	return NULL;
}

const char *lw_stack_where(const struct lw_frame *f, int n, enum lw_stack_at at, char *buf,
			   size_t len)
{
	int i = 0;

	if (at == LW_STACK_WAKEUP)	/* in an interrupt: from its entry on */
		for (int j = n - 1; j >= 0; j--)
			if (f[j].sym && prefixed(f[j].sym, entry_prefix)) {
				i = j;
				break;
			}
	for (; i < n; i++) {
		const char *sc;

		if (!f[i].sym)
			continue;
		if (prefixed(f[i].sym, entry_prefix)) {
			if (i == n - 1 || !strncmp(f[i].sym, "el0t_", 5))
				break;		/* it interrupted user space */
			continue;		/* the frame below is what it interrupted */
		}
		if (prefixed(f[i].sym, user_prefix))
			break;
		if (prefixed(f[i].sym, skip_prefix))
			continue;
		if (named(f[i].sym, spin_helper) && i + 1 < n && f[i + 1].sym &&
		    !prefixed(f[i + 1].sym, entry_prefix) && !prefixed(f[i + 1].sym, user_prefix))
			continue;	/* its caller spun */
		sc = syscall_in(f, i, n);
		if (sc && strcmp(sc, f[i].sym))
			snprintf(buf, len, "%s+0x%llx (%s)", f[i].sym, (unsigned long long)f[i].off, sc);
		else
			snprintf(buf, len, "%s+0x%llx", f[i].sym, (unsigned long long)f[i].off);
		return buf;
	}
	if (i < n) {
		snprintf(buf, len, "%s", LW_CODE_USER);
		return buf;
	}
	return NULL;
}

int lw_kallsyms_addr(const char *text, size_t len, const char *name, uint64_t *addr)
{
	size_t nl = strlen(name);
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *sp;
		uint64_t v = 0;
		int digits = 0;

		if (!eol)
			eol = end;
		/* ADDR TYPE NAME: the name is the third field */
		sp = memchr(p, ' ', (size_t)(eol - p));
		if (sp && sp + 3 < eol && sp[2] == ' ' && (size_t)(eol - (sp + 3)) >= nl &&
		    !memcmp(sp + 3, name, nl) && (sp + 3 + nl == eol || sp[3 + nl] == '\t' ||
						  sp[3 + nl] == ' ')) {
			for (const char *q = p; q < sp; q++, digits++) {
				int d = *q >= '0' && *q <= '9' ? *q - '0' :
					*q >= 'a' && *q <= 'f' ? *q - 'a' + 10 :
					*q >= 'A' && *q <= 'F' ? *q - 'A' + 10 : -1;

				if (d < 0 || digits >= 16) {
					digits = -1;
					break;
				}
				v = v << 4 | (uint64_t)d;
			}
			if (digits > 0) {
				*addr = v;
				return 0;
			}
		}
		p = eol + 1;
	}
	return -1;
}
