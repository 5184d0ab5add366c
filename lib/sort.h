/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * qsort() for arrays that may be empty: qsort(NULL, 0, ...) is undefined
 * (glibc declares the base nonnull), and an empty array is often NULL here.
 */
#ifndef LW_SORT_H
#define LW_SORT_H

#include <stdlib.h>

static inline void lw_qsort(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif
