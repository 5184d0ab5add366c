// SPDX-License-Identifier: GPL-2.0-only
/* SMI counts from MSR_SMI_COUNT, read from a copy of /proc/cpuinfo and
 * /dev/cpu/N/msr (regular files with the counter at offset 0x34). */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "lib/smi.h"

static void put(const char *root, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void put_msr(const char *root, int cpu, uint64_t count, int whole)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/dev/cpu/%d", root, cpu);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/dev/cpu/%d/msr", root, cpu);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &count, whole ? 8 : 4, LW_MSR_SMI_COUNT), whole ? 8 : 4);
	close(fd);
}

static char *tree(const char *vendor)
{
	char *root = lw_test_tmpdir(), path[512], text[128];

	snprintf(path, sizeof(path), "%s/proc", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/dev", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/dev/cpu", root);
	mkdir(path, 0755);
	snprintf(text, sizeof(text), "processor\t: 0\nvendor_id\t: %s\ncpu family\t: 6\n", vendor);
	put(root, "proc/cpuinfo", text);
	return root;
}

static const char *reason(const json_t *s)
{
	return json_string_value(json_object_get(s, "reason"));
}

static void test_counts_and_delta(void **st)
{
	char *root = tree("GenuineIntel");
	json_t *a, *b, *d;

	(void)st;
	/* CPU 0 only: the machine running the test may have one CPU */
	put_msr(root, 0, 0xfffffffeULL | (5ULL << 32), 1);	/* high bits are not the count */
	a = lw_smi_snapshot(root, 1);
	assert_null(reason(a));
	assert_int_equal(json_array_size(json_object_get(a, "cpus")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(
		json_object_get(a, "cpus"), 0), "count")), 0xfffffffeLL);
	put_msr(root, 0, 3, 1);		/* wrapped: 0xfffffffe -> 3 is 5 SMIs */
	b = lw_smi_snapshot(root, 1);
	d = lw_smi_delta(a, b);
	assert_string_equal(json_string_value(json_object_get(d, "source")),
			    "MSR_SMI_COUNT (0x34) through /dev/cpu/N/msr");
	assert_int_equal(json_integer_value(json_object_get(d, "total")), 5);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(
		json_object_get(d, "cpus"), 0), "count")), 5);
	json_decref(a);
	json_decref(b);
	json_decref(d);
	lw_test_rmdir(root);
}

static void test_unreadable_with_reason(void **st)
{
	char *amd = tree("AuthenticAMD"), *nomod = tree("GenuineIntel"), *vm = tree("GenuineIntel");
	char *arm = lw_test_tmpdir();
	json_t *s, *d;

	(void)st;
	s = lw_smi_snapshot(amd, 1);
	assert_string_equal(reason(s), "AuthenticAMD CPU: MSR_SMI_COUNT is Intel's (AMD has none)");
	d = lw_smi_delta(s, NULL);
	assert_string_equal(reason(d), "AuthenticAMD CPU: MSR_SMI_COUNT is Intel's (AMD has none)");
	assert_null(json_object_get(d, "total"));
	json_decref(s);
	json_decref(d);
	s = lw_smi_snapshot(nomod, 1);
	assert_non_null(strstr(reason(s), "/dev/cpu/0/msr (modprobe msr: the msr module"));
	json_decref(s);
	put_msr(vm, 0, 1, 0);		/* the MSR does not read whole */
	s = lw_smi_snapshot(vm, 1);
	assert_non_null(strstr(reason(s), "refuses MSR 0x34"));
	json_decref(s);
	s = lw_smi_snapshot(arm, 1);	/* no cpuinfo vendor: not x86 */
	assert_non_null(strstr(reason(s), "MSR_SMI_COUNT is x86's"));
	json_decref(s);
	lw_test_rmdir(amd);
	lw_test_rmdir(nomod);
	lw_test_rmdir(vm);
	lw_test_rmdir(arm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_and_delta),
		cmocka_unit_test(test_unreadable_with_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
