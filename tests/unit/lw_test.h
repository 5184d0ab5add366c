/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the unit tests: cmocka, temporary directories, expected errors. */
#ifndef LW_TEST_H
#define LW_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/error.h"

/* A fresh directory under /tmp, removed by lw_test_rmdir(). */
static inline char *lw_test_tmpdir(void)
{
	char *d = strdup("/tmp/latwatt-unit.XXXXXX");

	assert_non_null(mkdtemp(d));
	return d;
}

static inline void lw_test_rmdir(char *d)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	assert_int_equal(system(cmd), 0);
	free(d);
}

/* Assert that @failed (e.g. "f() < 0", "g() == NULL") holds, quietly, and
 * that the error message printed contains @want. */
#define assert_error(failed, want) do {						\
		int q_ = lw_set_quiet(1);					\
		lw_clear_error();						\
		assert_true(failed);						\
		lw_set_quiet(q_);						\
		if (!strstr(lw_last_error(), (want)))				\
			fail_msg("error '%s' does not contain '%s'",		\
				 lw_last_error(), (want));			\
	} while (0)

static inline void lw_test_write(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

#endif
