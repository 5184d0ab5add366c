// SPDX-License-Identifier: GPL-2.0-only
/* Where a kernel stack puts the code behind a spike: stacks as this host's
 * 6.18 kernel and Debian's arm64 kernels record them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/codeloc.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void test_wakeup_interrupting_user_space(void **state)
{
	/* a SCHED_FIFO spinner in user space when the probe's timer fired */
	const struct lw_frame f[] = {
		{ "trace_event_raw_event_sched_wakeup_template", 0x9d }, { "try_to_wake_up", 0x2a1 },
		{ "hrtimer_wakeup", 0x22 }, { "__hrtimer_run_queues", 0x136 },
		{ "hrtimer_interrupt", 0xff }, { "__sysvec_apic_timer_interrupt", 0x55 },
		{ "sysvec_apic_timer_interrupt", 0x6c }, { "asm_sysvec_apic_timer_interrupt", 0x1a },
	};
	char buf[128];

	(void)state;
	assert_string_equal(lw_stack_where(f, N(f), LW_STACK_WAKEUP, buf, sizeof(buf)), "user space");
}

static void test_wakeup_interrupting_kernel_code(void **state)
{
	/* the interrupt came in a driver's loop inside ioctl */
	const struct lw_frame f[] = {
		{ "trace_event_raw_event_sched_wakeup_template", 0x9d }, { "try_to_wake_up", 0x2a1 },
		{ "hrtimer_wakeup", 0x22 }, { "__hrtimer_run_queues", 0x136 },
		{ "hrtimer_interrupt", 0xff }, { "sysvec_apic_timer_interrupt", 0x6c },
		{ "asm_sysvec_apic_timer_interrupt", 0x1a }, { "foo_poll", 0x3c },
		{ "foo_ioctl", 0x80 }, { "__x64_sys_ioctl", 0x95 }, { "do_syscall_64", 0x82 },
		{ "entry_SYSCALL_64_after_hwframe", 0x76 },
	};
	const struct lw_frame arm[] = {
		{ "try_to_wake_up", 0x2a1 }, { "hrtimer_wakeup", 0x22 },
		{ "__hrtimer_run_queues", 0x136 }, { "hrtimer_interrupt", 0xff },
		{ "gic_handle_irq", 0x4c }, { "call_on_irq_stack", 0x24 },
		{ "el1_interrupt", 0x34 }, { "el1h_64_irq_handler", 0x18 }, { "el1h_64_irq", 0x64 },
		{ "bar_spin", 0x10 }, { "__arm64_sys_write", 0x20 },
	};
	char buf[128];

	(void)state;
	assert_string_equal(lw_stack_where(f, N(f), LW_STACK_WAKEUP, buf, sizeof(buf)),
			    "foo_poll+0x3c (ioctl)");
	assert_string_equal(lw_stack_where(arm, N(arm), LW_STACK_WAKEUP, buf, sizeof(buf)),
			    "bar_spin+0x10 (write)");
}

static void test_wakeup_in_a_busy_wait(void **state)
{
	/* Debian's 6.12-rt: the timer interrupted udelay() (a tail call to
	 * delay_tsc) in a module's function holding preemption off */
	const struct lw_frame f[] = {
		{ "trace_event_raw_event_sched_wakeup_template", 0x9d }, { "try_to_wake_up", 0x2a1 },
		{ "hrtimer_wakeup", 0x22 }, { "__hrtimer_run_queues", 0x136 },
		{ "hrtimer_interrupt", 0xff }, { "__sysvec_apic_timer_interrupt", 0x58 },
		{ "sysvec_apic_timer_interrupt", 0x6c }, { "asm_sysvec_apic_timer_interrupt", 0x1a },
		{ "delay_tsc", 0x37 }, { "latwatt_plant_preemptoff", 0x3f }, { "plant_write", 0x10b },
		{ "proc_reg_write", 0x5a }, { "vfs_write", 0xe8 }, { "ksys_write", 0x65 },
		{ "do_syscall_64", 0x82 }, { "entry_SYSCALL_64_after_hwframe", 0x76 },
	};
	/* arm64: a driver's clock-polling loop, ktime_get reading the counter */
	const struct lw_frame arm[] = {
		{ "try_to_wake_up", 0x2a1 }, { "hrtimer_wakeup", 0x22 },
		{ "hrtimer_interrupt", 0xff }, { "el1_interrupt", 0x34 }, { "el1h_64_irq", 0x64 },
		{ "arch_counter_get_cntvct", 0x8 }, { "ktime_get", 0x40 }, { "baz_wait_ready", 0x5c },
		{ "baz_probe", 0x88 },
	};
	/* Debian's 6.1-rt in the QEMU board: the interrupt came while the
	 * module's spin read the clock, hpet the clocksource (seen in a fresh
	 * chroot: the wake-up had read "in read_hpet+0x91") */
	const struct lw_frame hpet[] = {
		{ "try_to_wake_up", 0x2a1 }, { "hrtimer_wakeup", 0x22 },
		{ "asm_sysvec_apic_timer_interrupt", 0x1a }, { "read_hpet", 0x91 },
		{ "ktime_get_mono_fast_ns", 0x4c }, { "latwatt_plant_preemptoff", 0x95 },
		{ "plant_write", 0x10b },
	};
	/* a helper with nothing known below it stays named */
	const struct lw_frame alone[] = {
		{ "hrtimer_wakeup", 0x22 }, { "asm_sysvec_apic_timer_interrupt", 0x1a },
		{ "delay_tsc", 0x37 }, { NULL, 0 },
	};
	char buf[128];

	(void)state;
	assert_string_equal(lw_stack_where(f, N(f), LW_STACK_WAKEUP, buf, sizeof(buf)),
			    "latwatt_plant_preemptoff+0x3f");
	assert_string_equal(lw_stack_where(arm, N(arm), LW_STACK_WAKEUP, buf, sizeof(buf)),
			    "baz_wait_ready+0x5c");
	assert_string_equal(lw_stack_where(hpet, N(hpet), LW_STACK_WAKEUP, buf, sizeof(buf)),
			    "latwatt_plant_preemptoff+0x95");
	assert_string_equal(lw_stack_where(alone, N(alone), LW_STACK_WAKEUP, buf, sizeof(buf)),
			    "delay_tsc+0x37");
}

static void test_wakeup_from_a_task(void **state)
{
	/* woken by another task's futex wake: the waker's code */
	const struct lw_frame f[] = {
		{ "trace_event_raw_event_sched_wakeup_template", 0x9d }, { "try_to_wake_up", 0x2a1 },
		{ "wake_up_q", 0x4a }, { "futex_wake", 0x15d }, { "do_futex", 0x12e },
		{ "__x64_sys_futex", 0x127 }, { "do_syscall_64", 0x82 },
	};
	char buf[128];

	(void)state;
	assert_string_equal(lw_stack_where(f, N(f), LW_STACK_WAKEUP, buf, sizeof(buf)),
			    "futex_wake+0x15d (futex)");
}

static void test_switch_names_the_syscall(void **state)
{
	/* the spinner going back to sleep: clock_nanosleep */
	const struct lw_frame f[] = {
		{ "trace_event_raw_event_sched_switch", 0x1b4 }, { "__traceiter_sched_switch", 0x45 },
		{ "__schedule", 0x45a }, { "schedule", 0x27 }, { "do_nanosleep", 0x6a },
		{ "hrtimer_nanosleep", 0xb4 }, { "common_nsleep_timens", 0x51 },
		{ "__x64_sys_clock_nanosleep", 0xce }, { "do_syscall_64", 0x82 },
		{ "entry_SYSCALL_64_after_hwframe", 0x76 },
	};
	char buf[128];

	(void)state;
	assert_string_equal(lw_stack_where(f, N(f), LW_STACK_SWITCH, buf, sizeof(buf)),
			    "do_nanosleep+0x6a (clock_nanosleep)");
}

static void test_switch_preempted(void **state)
{
	/* preempted in the kernel by an interrupt: the code it interrupted */
	const struct lw_frame k[] = {
		{ "trace_event_raw_event_sched_switch", 0x1b4 }, { "__schedule", 0x45a },
		{ "preempt_schedule_irq", 0x3a }, { "irqentry_exit", 0x3c },
		{ "asm_sysvec_reschedule_ipi", 0x1a }, { "memset_orig", 0x33 },
		{ "clear_page_erms", 0x10 },
	};
	/* preempted on its way back to user space */
	const struct lw_frame u[] = {
		{ "trace_event_raw_event_sched_switch", 0x1b4 }, { "__schedule", 0x45a },
		{ "schedule", 0x27 }, { "irqentry_exit_to_user_mode", 0xb1 },
		{ "asm_sysvec_apic_timer_interrupt", 0x1a },
	};
	char buf[128];

	(void)state;
	assert_string_equal(lw_stack_where(k, N(k), LW_STACK_SWITCH, buf, sizeof(buf)),
			    "memset_orig+0x33");
	assert_string_equal(lw_stack_where(u, N(u), LW_STACK_SWITCH, buf, sizeof(buf)),
			    "user space");
}

static void test_nothing_known(void **state)
{
	const struct lw_frame f[] = { { NULL, 0 }, { "__schedule", 1 } };
	char buf[128];

	(void)state;
	assert_null(lw_stack_where(f, 0, LW_STACK_SWITCH, buf, sizeof(buf)));
	assert_null(lw_stack_where(f, N(f), LW_STACK_SWITCH, buf, sizeof(buf)));
}

static void test_kallsyms_lookup(void **state)
{
	static const char ks[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81000000 T _stext_not\n"
		"ffffffff81000010 T _stext\n"
		"ffffffffc0a01000 t foo_isr\t[foo]\n"
		"zzzz T broken\n"
		"ffffffff81000020 T last";
	uint64_t v = 0;

	(void)state;
	assert_int_equal(lw_kallsyms_addr(ks, sizeof(ks) - 1, "_stext", &v), 0);
	assert_int_equal(v, 0xffffffff81000010ULL);
	assert_int_equal(lw_kallsyms_addr(ks, sizeof(ks) - 1, "foo_isr", &v), 0);
	assert_int_equal(v, 0xffffffffc0a01000ULL);
	assert_int_equal(lw_kallsyms_addr(ks, sizeof(ks) - 1, "last", &v), 0);
	assert_int_equal(v, 0xffffffff81000020ULL);
	assert_int_equal(lw_kallsyms_addr(ks, sizeof(ks) - 1, "broken", &v), -1);
	assert_int_equal(lw_kallsyms_addr(ks, sizeof(ks) - 1, "_stex", &v), -1);
	assert_int_equal(lw_kallsyms_addr(ks, 0, "_stext", &v), -1);
	/* caller_offs is signed: a caller below _stext (init text) */
	assert_int_equal(lw_preemptirq_addr(0xffffffff81000000ULL, -0x10), 0xffffffff80fffff0ULL);
	assert_int_equal(lw_preemptirq_addr(0xffffffff81000000ULL, 0x3c), 0xffffffff8100003cULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wakeup_interrupting_user_space),
		cmocka_unit_test(test_wakeup_interrupting_kernel_code),
		cmocka_unit_test(test_wakeup_in_a_busy_wait),
		cmocka_unit_test(test_wakeup_from_a_task),
		cmocka_unit_test(test_switch_names_the_syscall),
		cmocka_unit_test(test_switch_preempted),
		cmocka_unit_test(test_nothing_known),
		cmocka_unit_test(test_kallsyms_lookup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
