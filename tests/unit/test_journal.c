// SPDX-License-Identifier: GPL-2.0-only
/* Restore journals: telling a live run from one that is gone. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "tests/unit/lw_test.h"
#include "lib/journal.h"
#include "lib/sysfs.h"

/* Field 22 of /proc/self/stat, split independently: the start time. */
static unsigned long long field22(void)
{
	char buf[1024], *tok, *save = NULL, *p;
	int i = 3;

	assert_true(lw_read_file("/proc/self/stat", buf, sizeof(buf)) >= 0);
	p = strrchr(buf, ')');
	assert_non_null(p);
	for (tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save), i++)
		if (i == 22)
			return strtoull(tok, NULL, 10);
	fail_msg("no field 22 in /proc/self/stat");
	return 0;
}

/* The start time is field 22, and stays what it was while the process
 * grows (the field after it, the virtual size, does not: a journal that
 * kept that judged a live run gone once it had mapped its buffers, and the
 * next run's replay removed the live run's files). */
static void test_starttime_is_fixed(void **st)
{
	unsigned long long t0 = lw_proc_starttime(getpid());
	size_t len = 64 << 20;
	void *m;

	(void)st;
	assert_true(t0 > 0);
	assert_int_equal(t0, field22());
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	memset(m, 1, len);
	assert_int_equal(lw_proc_starttime(getpid()), t0);
	munmap(m, len);
	/* a command name with spaces and parentheses does not shift the fields */
	prctl(PR_SET_NAME, "a) b (c) d", 0, 0, 0);
	assert_int_equal(lw_proc_starttime(getpid()), t0);
	assert_int_equal(lw_proc_starttime(0), 0);
	assert_int_equal(lw_proc_starttime(-1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_starttime_is_fixed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
