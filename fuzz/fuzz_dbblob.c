// SPDX-License-Identifier: GPL-2.0-only
/*
 * The blobs of the results store (analysis/db.c): a probe's latencies (LS1
 * or LS2) and its largest latency per stretch, as a store from elsewhere may
 * hold them.  What reads back is a well-formed distribution, and packing it
 * again reads back the same.
 */
#include <string.h>

#include "analysis/db.h"
#include "analysis/teststat.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lw_dist d, again;
	unsigned char *b;
	uint64_t *v;
	size_t n, len;

	if (lw_db_unpack_u64(data, size, &v, &n) == 0)
		free(v);
	if (lw_db_unpack_dist(data, size, &d) < 0)
		return 0;
	for (size_t i = 0; i < d.k; i++)
		if ((i && (d.v[i] <= d.v[i - 1] || d.cum[i] <= d.cum[i - 1])) || !d.cum[i])
			__builtin_trap();
	if (d.k ? d.cum[d.k - 1] != d.n : d.n != 0)
		__builtin_trap();
	b = lw_db_pack_samples(&d, &len);
	if (!b || lw_db_unpack_dist(b, len, &again) < 0 || again.n != d.n || again.k != d.k ||
	    (d.k && (memcmp(again.v, d.v, d.k * sizeof(*d.v)) ||
		     memcmp(again.cum, d.cum, d.k * sizeof(*d.cum)))))
		__builtin_trap();
	free(b);
	lw_dist_free(&again);
	lw_dist_free(&d);
	return 0;
}
