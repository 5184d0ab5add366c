// SPDX-License-Identifier: GPL-2.0-only
/*
 * latwatt_idle: a planted truth for latwatt tune's idle knob in the QEMU
 * board, whose emulated CPUs have no cpuidle driver.
 *
 * Loaded where no other cpuidle driver is registered, it registers one,
 * "latwatt_idle", with three states on every CPU:
 *
 *   state0  POLL     the kernel's polling state
 *   state1  LW-HALT  HLT, exit latency 1 us
 *   state2  LW-DEEP  HLT, then a spin of exit_us microseconds before
 *                    the CPU goes back to work (interrupts are taken, the
 *                    task a wake-up made runnable waits): an exit latency
 *                    that is real, not only declared
 *
 * LW-DEEP declares exit_us as its exit latency and residency_us as its
 * target residency (module parameters, 400 and 300 by default), so the
 * governor picks it when the CPU is to sleep longer than residency_us,
 * and every wake-up from it is exit_us late.  Disabling it (sysfs
 * cpuN/cpuidle/state2/disable) takes the lateness away; LW-HALT costs
 * nothing.  For tests only: never load it on a machine that matters.
 */
#include <linux/cpuidle.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched/idle.h>

static unsigned int exit_us = 400;
module_param(exit_us, uint, 0444);
MODULE_PARM_DESC(exit_us, "LW-DEEP's exit latency, spun at each wake-up (us, at most 20000)");
static unsigned int residency_us = 300;
module_param(residency_us, uint, 0444);
MODULE_PARM_DESC(residency_us, "LW-DEEP's target residency (us)");

static void lw_halt(void)
{
	/* interrupts come on for the HLT and are taken at the wake-up */
	raw_safe_halt();
	raw_local_irq_disable();
}

static int lw_enter_halt(struct cpuidle_device *dev, struct cpuidle_driver *drv, int index)
{
	if (current_clr_polling_and_test())
		return index;
	lw_halt();
	return index;
}

static int lw_enter_deep(struct cpuidle_device *dev, struct cpuidle_driver *drv, int index)
{
	u64 t;

	if (current_clr_polling_and_test())
		return index;
	lw_halt();
	/*
	 * The exit: the wake-up's interrupt was handled, the task it woke
	 * waits until the CPU comes back from here.  Interrupts stay on, as
	 * a CPU's are while it powers up: the kernel's IPIs (a code patch's
	 * sync among them) are taken meanwhile.
	 */
	t = ktime_get_mono_fast_ns();
	raw_local_irq_enable();
	while (ktime_get_mono_fast_ns() - t < (u64)exit_us * NSEC_PER_USEC)
		cpu_relax();
	raw_local_irq_disable();
	return index;
}

static struct cpuidle_driver lw_idle_driver = {
	.name = "latwatt_idle",
	.owner = THIS_MODULE,
	.states = {
		{ /* state0: POLL, filled in by cpuidle_poll_state_init() */ },
		{
			.name = "LW-HALT",
			.desc = "HLT",
			.exit_latency = 1,
			.target_residency = 1,
			.enter = lw_enter_halt,
		},
		{
			.name = "LW-DEEP",
			.desc = "HLT, then exit_us spun",
			.enter = lw_enter_deep,
		},
	},
	.safe_state_index = 0,
	.state_count = 3,
};

static int __init lw_idle_init(void)
{
	if (exit_us > 20000 || !residency_us)
		return -EINVAL;
	cpuidle_poll_state_init(&lw_idle_driver);
	lw_idle_driver.states[2].exit_latency = exit_us;
	lw_idle_driver.states[2].target_residency = residency_us;
	return cpuidle_register(&lw_idle_driver, NULL);
}

static void __exit lw_idle_exit(void)
{
	cpuidle_unregister(&lw_idle_driver);
}

module_init(lw_idle_init);
module_exit(lw_idle_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("latwatt's planted idle states, for tests");
