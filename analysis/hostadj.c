// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>

#include "analysis/hostadj.h"
#include "lib/error.h"

int lw_hostadj_add(struct lw_hostadj *h, uint64_t index, uint64_t ns)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		uint64_t *i = realloc(h->index, cap * sizeof(*i)), *n;

		if (!i)
			return error("out of memory");
		h->index = i;
		n = realloc(h->ns, cap * sizeof(*n));
		if (!n)
			return error("out of memory");
		h->ns = n;
		h->cap = cap;
	}
	h->index[h->n] = index;
	h->ns[h->n++] = ns;
	return 0;
}

/* Insertion order is nearly record order already (spikes end in time
 * order, give or take the ones open at once): an insertion sort. */
void lw_hostadj_sort(struct lw_hostadj *h)
{
	for (size_t i = 1; i < h->n; i++)
		for (size_t j = i; j > 0 && h->index[j - 1] > h->index[j]; j--) {
			uint64_t t = h->index[j];

			h->index[j] = h->index[j - 1];
			h->index[j - 1] = t;
			t = h->ns[j];
			h->ns[j] = h->ns[j - 1];
			h->ns[j - 1] = t;
		}
}

void lw_hostadj_free(struct lw_hostadj *h)
{
	free(h->index);
	free(h->ns);
	h->index = h->ns = NULL;
	h->n = h->cap = 0;
}

json_t *lw_hostadj_json(const struct lw_hostadj *h)
{
	json_t *a = json_array();

	for (size_t i = 0; i < h->n; i++)
		json_array_append_new(a, json_pack("[I, I]", (json_int_t)h->index[i],
						   (json_int_t)h->ns[i]));
	return a;
}

int lw_hostadj_from_json(struct lw_hostadj *h, const json_t *analysis, const char *file)
{
	const json_t *arr = json_object_get(json_object_get(analysis, "host"), "adjust"), *e;
	size_t i;

	h->index = h->ns = NULL;
	h->n = h->cap = 0;
	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return error("%s: host.adjust is not an array", file);
	json_array_foreach(arr, i, e) {
		const json_t *x = json_array_get(e, 0), *y = json_array_get(e, 1);

		if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_integer(x) ||
		    !json_is_integer(y) || json_integer_value(x) < 0 || json_integer_value(y) < 0 ||
		    (i && (uint64_t)json_integer_value(x) <= h->index[h->n - 1])) {
			lw_hostadj_free(h);
			return error("%s: host.adjust[%zu] is not [record index, ns] after the one "
				     "before", file, i);
		}
		if (lw_hostadj_add(h, (uint64_t)json_integer_value(x),
				   (uint64_t)json_integer_value(y)) < 0) {
			lw_hostadj_free(h);
			return -1;
		}
	}
	return 0;
}
