// SPDX-License-Identifier: GPL-2.0-only
/* sysinfo on a fixture tree of a PREEMPT_RT arm64 board, and on this machine. */
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "lib/sysinfo.h"

#define ROOT "tests/data/sysroot/rt-arm64"

static int has_warning(const json_t *w, const char *text)
{
	size_t i;
	json_t *s;

	json_array_foreach(w, i, s)
		if (strstr(json_string_value(s), text))
			return 1;
	return 0;
}

static void test_fixture_board(void **st)
{
	json_t *sys = lw_sysinfo_collect(ROOT), *w, *cpus, *st1;

	assert_true(lw_sysinfo_is_rt(sys));
	assert_string_equal(lw_sysinfo_preempt_model(sys), "PREEMPT_RT");
	assert_string_equal(json_string_value(json_object_get(json_object_get(sys, "kernel"), "release")),
			    "6.1.0-57-rt-arm64");
	assert_string_equal(json_string_value(json_object_get(sys, "nohz_full")), "3");
	assert_string_equal(json_string_value(json_object_get(sys, "isolated")), "3");
	assert_string_equal(json_string_value(json_object_get(json_object_get(sys, "cpuidle"), "driver")),
			    "psci_idle");
	cpus = json_object_get(json_object_get(sys, "cpuidle"), "cpus");
	assert_int_equal(json_array_size(cpus), 4);
	st1 = json_array_get(json_object_get(json_array_get(cpus, 3), "states"), 1);
	assert_string_equal(json_string_value(json_object_get(st1, "name")), "cpu-sleep-0");
	assert_int_equal(json_integer_value(json_object_get(st1, "exit_latency_us")), 1200);
	assert_int_equal(json_integer_value(json_object_get(st1, "target_residency_us")), 3500);
	assert_int_equal(json_integer_value(json_object_get(st1, "disabled")), 1);
	assert_int_equal(json_array_size(json_object_get(sys, "cpufreq")), 4);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(sys, "cpu"), "count")), 4);
	assert_string_equal(json_string_value(json_object_get(json_object_get(sys, "cpu"), "model")),
			    "BCM2835");

	w = lw_sysinfo_warnings(sys, 100);
	assert_false(has_warning(w, "not PREEMPT_RT"));
	assert_false(has_warning(w, "no isolated CPUs"));
	assert_false(has_warning(w, "clocksource"));
	/* cpu-sleep-0 (1200us) is enabled on CPUs 0-2, disabled on 3 */
	assert_true(has_warning(w, "cpu 0: idle state cpu-sleep-0 is enabled with exit latency 1200us"));
	assert_true(has_warning(w, "cpu 2: idle state cpu-sleep-0"));
	assert_false(has_warning(w, "cpu 3: idle state"));
	json_decref(w);
	w = lw_sysinfo_warnings(sys, 2000);
	assert_false(has_warning(w, "idle state"));
	json_decref(w);
	json_decref(sys);
}

static void test_preempt_model(void **st)
{
	assert_string_equal(lw_preempt_model("#1 SMP PREEMPT_RT Debian", 0), "PREEMPT_RT");
	assert_string_equal(lw_preempt_model("#1 SMP PREEMPT_DYNAMIC", 0), "PREEMPT_DYNAMIC");
	assert_string_equal(lw_preempt_model("#1 SMP PREEMPT", 0), "PREEMPT");
	assert_string_equal(lw_preempt_model("#1 SMP Debian", 0), "none");
	assert_string_equal(lw_preempt_model("#1 SMP Debian", 1), "PREEMPT_RT");
	assert_string_equal(lw_preempt_model(NULL, 0), "unknown");
}

static void test_this_machine(void **st)
{
	json_t *sys = lw_sysinfo_collect(NULL);

	assert_non_null(json_string_value(json_object_get(json_object_get(sys, "kernel"), "release")));
	assert_true(json_integer_value(json_object_get(json_object_get(sys, "cpu"), "count")) >= 1);
	json_decref(sys);
}

/* Steal time per CPU from proc/stat, start to end, in ns. */
static void test_steal(void **st)
{
	char *root = lw_test_tmpdir(), path[512];
	long hz = sysconf(_SC_CLK_TCK);
	static const char t0[] =
		"cpu  10 0 10 100 0 0 0 7 0 0\ncpu0 5 0 5 50 0 0 0 3 0 0\n"
		"cpu1 5 0 5 50 0 0 0 4 0 0\nintr 1\n";
	static const char t1[] =
		"cpu  20 0 20 200 0 0 0 27 0 0\ncpu0 10 0 10 100 0 0 0 3 0 0\n"
		"cpu1 10 0 10 100 0 0 0 24 0 0\ncpu2 1 0 1 1 0 0 0 9 0 0\nintr 2\n";
	json_t *a, *b, *d;

	snprintf(path, sizeof(path), "%s/proc", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/stat", root);
	lw_test_write(path, t0, strlen(t0));
	a = lw_steal_snapshot(root);
	lw_test_write(path, t1, strlen(t1));
	b = lw_steal_snapshot(root);
	assert_int_equal(json_array_size(a), 2);	/* the "cpu" total line is not a CPU */
	d = lw_steal_delta(a, b);
	/* cpu1: 20 ticks; cpu2 was not there at the start */
	assert_int_equal(json_array_size(json_object_get(d, "cpus")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(d, "cpus"), 1),
							    "steal_ns")), 20 * (1000000000 / hz));
	assert_int_equal(json_integer_value(json_object_get(d, "total_ns")), 20 * (1000000000 / hz));
	assert_null(lw_steal_snapshot("/nonexistent"));
	json_decref(a);
	json_decref(b);
	json_decref(d);
	lw_test_rmdir(root);
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[1024], *slash;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(path, 0755);
		*slash = '/';
	}
	lw_test_write(path, text, strlen(text));
}

static const char *hv(const json_t *sys, const char *k)
{
	return json_string_value(json_object_get(json_object_get(sys, "hypervisor"), k));
}

/* The hypervisor's identity and the clocksource's note, from a fake root. */
static void test_hypervisor(void **st)
{
	char *root = lw_test_tmpdir();
	json_t *sys, *w, *cs;

	/* a QEMU x86 guest that fell back to refined-jiffies */
	put(root, "proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n");
	put(root, "sys/class/dmi/id/sys_vendor", "QEMU\n");
	put(root, "sys/class/dmi/id/product_name", "Standard PC (i440FX + PIIX, 1996)\n");
	put(root, "sys/devices/system/clocksource/clocksource0/current_clocksource", "refined-jiffies\n");
	put(root, "sys/devices/system/clocksource/clocksource0/available_clocksource",
	    "refined-jiffies jiffies\n");
	sys = lw_sysinfo_collect(root);
	assert_true(lw_sysinfo_is_vm(sys));
	assert_string_equal(hv(sys, "name"), "QEMU");
	assert_string_equal(hv(sys, "vendor"), "QEMU");
	assert_int_equal(json_array_size(json_object_get(json_object_get(sys, "hypervisor"),
							 "evidence")), 2);
	cs = json_object_get(sys, "clocksource");
	assert_true(json_is_false(json_object_get(cs, "stable")));
	assert_non_null(strstr(json_string_value(json_object_get(cs, "note")), "steps of a tick"));
	w = lw_sysinfo_warnings(sys, 0);
	assert_true(has_warning(w, "clocksource is refined-jiffies"));
	assert_true(has_warning(w, "a virtual machine (QEMU)"));
	json_decref(w);
	json_decref(sys);

	/* Xen names itself; kvm-clock is stable */
	put(root, "proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme\n");
	put(root, "sys/class/dmi/id/sys_vendor", "Dell Inc.\n");
	put(root, "sys/hypervisor/type", "xen\n");
	put(root, "sys/devices/system/clocksource/clocksource0/current_clocksource", "kvm-clock\n");
	sys = lw_sysinfo_collect(root);
	assert_true(lw_sysinfo_is_vm(sys));
	assert_string_equal(hv(sys, "name"), "Xen");
	assert_string_equal(hv(sys, "type"), "xen");
	assert_true(json_is_true(json_object_get(json_object_get(sys, "clocksource"), "stable")));
	assert_null(json_object_get(json_object_get(sys, "clocksource"), "note"));
	json_decref(sys);

	/* an arm64 guest on QEMU's virt machine: the device tree says it */
	put(root, "sys/hypervisor/type", "");
	put(root, "sys/firmware/devicetree/base/compatible", "linux,dummy-virt\0");
	sys = lw_sysinfo_collect(root);
	assert_true(lw_sysinfo_is_vm(sys));
	assert_string_equal(hv(sys, "name"), "QEMU");
	json_decref(sys);
	lw_test_rmdir(root);

	/* the board fixture is bare metal */
	sys = lw_sysinfo_collect(ROOT);
	assert_false(lw_sysinfo_is_vm(sys));
	assert_null(hv(sys, "name"));
	json_decref(sys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_board),
		cmocka_unit_test(test_preempt_model),
		cmocka_unit_test(test_this_machine),
		cmocka_unit_test(test_steal),
		cmocka_unit_test(test_hypervisor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
