// SPDX-License-Identifier: GPL-2.0-only
/*
 * RUN/steal (lib/steal.h) read back as analyze reads it, and the steal of
 * a few windows interpolated from it; and /proc/stat text parsed as the
 * sampler parses it.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "lib/steal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[512], *text;
	struct lw_steal st;
	uint64_t ns[64];

	fz_write("steal", data, size, path, sizeof(path));
	if (lw_steal_load(path, &st) == 1) {
		uint64_t lo = st.n ? st.t[0] : 0, hi = st.n ? st.t[st.n - 1] : 0;

		for (int c = -1; c <= st.ncpu; c++) {
			(void)lw_steal_between(&st, c, lo, hi);
			(void)lw_steal_between(&st, c, lo / 2 + hi / 2, hi + 1);
			(void)lw_steal_between(&st, c, hi, lo);
			(void)lw_steal_between(&st, c, 0, UINT64_MAX);
		}
		lw_steal_free(&st);
	}
	text = malloc(size + 1);
	if (text) {
		memcpy(text, data, size);
		text[size] = 0;
		(void)lw_steal_parse(text, ns, 64);
		free(text);
	}
	return 0;
}
