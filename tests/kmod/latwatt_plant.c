// SPDX-License-Identifier: GPL-2.0-only
/*
 * latwatt_plant: a planted truth for run --stacks in the QEMU board.
 *
 * Writing "irqsoff US" to /proc/latwatt_plant runs latwatt_plant_irqsoff(),
 * which keeps interrupts off on the calling CPU for US microseconds;
 * "preemptoff US" runs latwatt_plant_preemptoff(), which keeps preemption
 * off as long.  Both spin with udelay() until the monotonic clock (the trace's
 * mono clock) has moved US microseconds.  Reading the file gives one line per
 * section held, "KIND CPU START_NS END_NS", the truth a test checks analyze
 * against.  For tests only: never load it on a machine that matters.
 */
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define PLANT_MAX_US	20000	/* 20 ms: long enough for a test, short of a watchdog */
#define PLANT_LOG	256

struct plant_rec {
	const char *kind;
	int cpu;
	u64 start_ns, end_ns;
};

static DEFINE_MUTEX(plant_lock);	/* the log and its writers */
static struct plant_rec plant_log[PLANT_LOG];
static unsigned int plant_n;

static void plant_spin(u64 start, unsigned int us)
{
	while (ktime_get_mono_fast_ns() - start < (u64)us * NSEC_PER_USEC)
		udelay(5);
}

static noinline __attribute__((__noipa__)) void latwatt_plant_irqsoff(unsigned int us, struct plant_rec *r)
{
	unsigned long flags;

	local_irq_save(flags);
	r->cpu = raw_smp_processor_id();
	r->start_ns = ktime_get_mono_fast_ns();
	plant_spin(r->start_ns, us);
	r->end_ns = ktime_get_mono_fast_ns();
	local_irq_restore(flags);
}

static noinline __attribute__((__noipa__)) void latwatt_plant_preemptoff(unsigned int us, struct plant_rec *r)
{
	preempt_disable();
	r->cpu = raw_smp_processor_id();
	r->start_ns = ktime_get_mono_fast_ns();
	plant_spin(r->start_ns, us);
	r->end_ns = ktime_get_mono_fast_ns();
	preempt_enable();
}

static ssize_t plant_write(struct file *file, const char __user *ubuf, size_t len, loff_t *pos)
{
	char buf[32], *arg;
	struct plant_rec r = { 0 };
	unsigned int us;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	arg = strchr(buf, ' ');
	if (!arg)
		return -EINVAL;
	*arg++ = 0;
	if (kstrtouint(strim(arg), 10, &us) || !us || us > PLANT_MAX_US)
		return -EINVAL;
	if (!strcmp(buf, "irqsoff")) {
		r.kind = "irqsoff";
		latwatt_plant_irqsoff(us, &r);
	} else if (!strcmp(buf, "preemptoff")) {
		r.kind = "preemptoff";
		latwatt_plant_preemptoff(us, &r);
	} else {
		return -EINVAL;
	}
	mutex_lock(&plant_lock);
	if (plant_n < PLANT_LOG)
		plant_log[plant_n++] = r;
	mutex_unlock(&plant_lock);
	return len;
}

static int plant_show(struct seq_file *m, void *v)
{
	mutex_lock(&plant_lock);
	for (unsigned int i = 0; i < plant_n; i++)
		seq_printf(m, "%s %d %llu %llu\n", plant_log[i].kind, plant_log[i].cpu,
			   plant_log[i].start_ns, plant_log[i].end_ns);
	mutex_unlock(&plant_lock);
	return 0;
}

static int plant_open(struct inode *inode, struct file *file)
{
	return single_open(file, plant_show, NULL);
}

static const struct proc_ops plant_ops = {
	.proc_open = plant_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
	.proc_write = plant_write,
};

static struct proc_dir_entry *plant_entry;

static int __init plant_init(void)
{
	plant_entry = proc_create("latwatt_plant", 0600, NULL, &plant_ops);
	return plant_entry ? 0 : -ENOMEM;
}

static void __exit plant_exit(void)
{
	proc_remove(plant_entry);
}

module_init(plant_init);
module_exit(plant_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("latwatt test module: IRQs or preemption off for a given time");
