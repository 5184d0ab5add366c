// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/sort.h"
#include "lib/stats.h"

#define Q_OF(id, name, key, q, ...) q,
#define NAME_OF(id, name, ...) name,
#define KEY_OF(id, name, key, ...) key,
#define ID_OF(id, ...) LW_STAT_##id,
/* what comes before min is what a comparison judges */
#define COMPARED_FIRST(id, name, key, q, cmp, help) \
	_Static_assert((LW_STAT_##id < LW_STAT_MIN) == (cmp), "LW_STATS: " name);
LW_STATS(COMPARED_FIRST)

const double lw_pct[LW_NPCT] = { LW_PCT_STATS(Q_OF) };
const char *const lw_pct_key[LW_NPCT] = { LW_PCT_STATS(KEY_OF) };
const char *const lw_stat_names[LW_NSTAT] = { LW_STATS(NAME_OF) };
const char *const lw_stat_keys[LW_NSTAT] = { LW_STATS(KEY_OF) };
const char *const lw_count_names[LW_NCOUNT] = { LW_COUNT_STATS(NAME_OF) };
const char *const lw_count_keys[LW_NCOUNT] = { LW_COUNT_STATS(KEY_OF) };
const enum lw_stat lw_stat_columns[LW_NSTAT] = {
	LW_STAT_MIN, LW_STAT_MEAN, LW_PCT_STATS(ID_OF) LW_STAT_MAX
};

const char *lw_stat_key(const char *name)
{
	for (int k = 0; k < LW_NSTAT; k++)
		if (!strcmp(lw_stat_names[k], name))
			return lw_stat_keys[k];
	return NULL;
}

static size_t rank(size_t n, double q)
{
	/* nearest rank: ceil(q/100 * n), at least 1 */
	double r = ceil(q / 100.0 * (double)n - 1e-9);
	size_t k = r < 1 ? 1 : (size_t)r;

	return k > n ? n : k;
}

uint64_t lw_pct_rank_n(uint64_t n, double q)
{
	double r = ceil(q / 100.0 * (double)n - 1e-9);
	uint64_t k = r < 1 ? 1 : (uint64_t)r;

	return k > n ? n : k;
}

static void sel_narrow(struct lw_rank_sel *s)
{
	if (s->span <= 1) {
		s->done = 1;
		s->value = s->lo;
		free(s->count);
		s->count = NULL;
		return;
	}
	s->width = s->span / LW_SEL_BUCKETS + (s->span % LW_SEL_BUCKETS != 0);
	memset(s->count, 0, LW_SEL_BUCKETS * sizeof(*s->count));
}

int lw_rank_sel_init(struct lw_rank_sel *s, const struct lw_hist *h, uint64_t rank)
{
	uint64_t cum = 0;
	size_t b;

	memset(s, 0, sizeof(*s));
	if (!h->total || rank < 1 || rank > h->total)
		return error("rank %llu out of 1..%llu", (unsigned long long)rank,
			     (unsigned long long)h->total);
	s->rank = rank;
	if (rank == 1 || rank == h->total) {	/* the extremes are known */
		s->done = 1;
		s->value = rank == 1 ? h->min : h->max;
		return 0;
	}
	for (b = 0; b < h->nbuckets && cum + h->count[b] < rank; b++)
		cum += h->count[b];
	s->below = cum;
	if (b < h->nbuckets) {
		s->lo = b * h->bucket_ns;
		s->span = h->bucket_ns;
	} else {
		s->lo = h->nbuckets * h->bucket_ns;
		s->span = h->overflow_max - s->lo + 1;	/* overflow_max >= lo > 0 */
	}
	/* the histogram's extremes narrow the range too */
	if (h->min > s->lo) {
		s->span -= h->min - s->lo < s->span ? h->min - s->lo : s->span - 1;
		s->lo = h->min;
	}
	if (h->max >= s->lo && h->max - s->lo < s->span - 1)
		s->span = h->max - s->lo + 1;
	s->count = calloc(LW_SEL_BUCKETS, sizeof(*s->count));
	if (!s->count)
		return error("out of memory");
	sel_narrow(s);
	return 0;
}

int lw_rank_sel_step(struct lw_rank_sel *s)
{
	uint64_t cum = s->below;
	size_t b;

	if (s->done)
		return 0;
	for (b = 0; b < LW_SEL_BUCKETS && cum + s->count[b] < s->rank; b++)
		cum += s->count[b];
	if (b == LW_SEL_BUCKETS)
		return error("the samples changed between two passes");
	s->below = cum;
	s->lo += b * s->width;
	s->span = s->span - b * s->width < s->width ? s->span - b * s->width : s->width;
	sel_narrow(s);
	return !s->done;
}

void lw_rank_sel_free(struct lw_rank_sel *s)
{
	free(s->count);
	s->count = NULL;
}

uint64_t lw_percentile_sorted(const uint64_t *v, size_t n, double q)
{
	return v[rank(n, q) - 1];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* LSD radix sort, 16 bits a pass, skipping passes where all keys agree. */
void lw_sort_u64(uint64_t *v, size_t n)
{
	uint64_t *tmp, *src = v, *dst, all_or = 0;
	size_t *cnt;

	if (n < 64) {
		for (size_t i = 1; i < n; i++)
			for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
				uint64_t t = v[j];
				v[j] = v[j - 1];
				v[j - 1] = t;
			}
		return;
	}
	tmp = malloc(n * sizeof(*tmp));
	cnt = malloc(65536 * sizeof(*cnt));
	if (!tmp || !cnt) {
		free(tmp);
		free(cnt);
		lw_qsort(v, n, sizeof(*v), cmp_u64);	/* no memory for the fast path */
		return;
	}
	for (size_t i = 0; i < n; i++)
		all_or |= v[i];
	dst = tmp;
	for (int shift = 0; shift < 64 && (all_or >> shift); shift += 16) {
		size_t sum = 0;

		memset(cnt, 0, 65536 * sizeof(*cnt));
		for (size_t i = 0; i < n; i++)
			cnt[(src[i] >> shift) & 0xffff]++;
		for (size_t i = 0; i < 65536; i++) {
			size_t c = cnt[i];
			cnt[i] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[cnt[(src[i] >> shift) & 0xffff]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	free(cnt);
}

void lw_stats_compute(struct lw_stats *s, uint64_t *v, size_t n)
{
	long double sum = 0;

	memset(s, 0, sizeof(*s));
	s->exact = 1;
	s->count = n;
	if (!n)
		return;
	lw_sort_u64(v, n);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->min = v[0];
	s->max = v[n - 1];
	s->mean = (double)(sum / n);
	for (int i = 0; i < LW_NPCT; i++)
		s->pct[i] = lw_percentile_sorted(v, n, lw_pct[i]);
}

int lw_hist_init(struct lw_hist *h, uint64_t bucket_ns, size_t nbuckets)
{
	memset(h, 0, sizeof(*h));
	if (!bucket_ns || !nbuckets)
		return error("histogram: bucket width and count must be positive");
	if (nbuckets > LW_HIST_MAX_BUCKETS)
		return error("histogram: %zu buckets, more than %d", nbuckets, LW_HIST_MAX_BUCKETS);
	h->count = calloc(nbuckets, sizeof(*h->count));
	if (!h->count)
		return error("out of memory for a histogram of %zu buckets", nbuckets);
	h->bucket_ns = bucket_ns;
	h->nbuckets = nbuckets;
	h->overflow_from = (uint64_t)nbuckets * bucket_ns;
	h->min = UINT64_MAX;
	return 0;
}

void lw_hist_free(struct lw_hist *h)
{
	free(h->count);
	h->count = NULL;
}

void lw_hist_add(struct lw_hist *h, uint64_t v, uint64_t cycle)
{
	uint64_t b = v / h->bucket_ns;

	if (b < h->nbuckets) {
		h->count[b]++;
	} else {
		if (!h->overflow)
			h->overflow_first = cycle;
		h->overflow++;
		if (v > h->overflow_max)
			h->overflow_max = v;
	}
	h->total++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

uint64_t lw_hist_percentile(const struct lw_hist *h, double q, int *in_overflow)
{
	uint64_t want, seen = 0;

	*in_overflow = 0;
	if (!h->total)
		return 0;
	want = (uint64_t)rank((size_t)h->total, q);
	for (size_t b = 0; b < h->nbuckets; b++) {
		seen += h->count[b];
		if (seen >= want) {
			/* the bucket's upper edge, but never above the known max */
			uint64_t edge = (b + 1) * h->bucket_ns - 1;
			return edge > h->max ? h->max : edge;
		}
	}
	/* in the overflow only the largest sample is known: the max */
	if (want >= h->total && h->max >= h->overflow_from)
		return h->max;
	*in_overflow = 1;
	return h->overflow_max;
}

void lw_stats_from_hist(struct lw_stats *s, const struct lw_hist *h)
{
	int ovf;

	memset(s, 0, sizeof(*s));
	s->count = h->total;
	if (!h->total)
		return;
	s->min = h->min;
	s->max = h->max;
	s->mean = (double)(h->sum / h->total);
	for (int i = 0; i < LW_NPCT; i++) {
		s->pct[i] = lw_hist_percentile(h, lw_pct[i], &ovf);
		/* beyond the last bucket only a bound is known, not the value
		 * (it was taken as the overflow's max: an exact-looking p99.9
		 * where 14 samples were only known to be above 400 us) */
		if (ovf) {
			s->above[i] = h->overflow_from;
			s->pct[i] = 0;
		}
	}
}

uint64_t lw_hist_count_above(const struct lw_hist *h, uint64_t thr, int *known)
{
	uint64_t n = 0;

	*known = 1;
	for (size_t b = 0; b < h->nbuckets; b++) {
		uint64_t lo = b * h->bucket_ns, hi = lo + h->bucket_ns;

		if (!h->count[b] || hi <= thr)
			continue;
		if (lo >= thr)
			n += h->count[b];
		else
			*known = 0;	/* the bucket straddles it */
	}
	if (h->overflow) {
		if (h->overflow_from >= thr) {
			n += h->overflow;
		} else if (h->overflow_max > thr) {
			*known = 0;
			n++;	/* the largest is surely above */
		}
	}
	return n;
}

json_t *lw_stats_json(const struct lw_stats *s)
{
	json_t *o = json_object();

	json_object_set_new(o, "count", json_integer((json_int_t)s->count));
	json_object_set_new(o, "min_ns", s->count ? json_integer((json_int_t)s->min) : json_null());
	json_object_set_new(o, "mean_ns", s->count ? json_real(s->mean) : json_null());
	for (int i = 0; i < LW_NPCT; i++) {
		json_object_set_new(o, lw_pct_key[i], s->count && !s->above[i] ?
				    json_integer((json_int_t)s->pct[i]) : json_null());
		if (s->count && s->above[i]) {
			char key[32];

			snprintf(key, sizeof(key), "%.*s_above_ns",
				 (int)(strlen(lw_pct_key[i]) - 3), lw_pct_key[i]);
			json_object_set_new(o, key, json_integer((json_int_t)s->above[i]));
		}
	}
	json_object_set_new(o, "max_ns", s->count ? json_integer((json_int_t)s->max) : json_null());
	json_object_set_new(o, "exact", json_boolean(s->exact));
	return o;
}

json_t *lw_hist_json(const struct lw_hist *h)
{
	json_t *b = json_array();

	for (size_t i = 0; i < h->nbuckets; i++)
		if (h->count[i])
			json_array_append_new(b, json_pack("[I, I]", (json_int_t)i,
							   (json_int_t)h->count[i]));
	return json_pack("{s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:f}",
		"bucket_ns", (json_int_t)h->bucket_ns, "nbuckets", (json_int_t)h->nbuckets,
		"buckets", b, "total", (json_int_t)h->total,
		"overflow", (json_int_t)h->overflow, "overflow_max_ns", (json_int_t)h->overflow_max,
		"overflow_from_ns", (json_int_t)h->overflow_from,
		"min_ns", (json_int_t)(h->total ? h->min : 0), "max_ns", (json_int_t)h->max,
		"sum_ns", (double)h->sum);
}

int lw_hist_from_json(struct lw_hist *h, const json_t *j)
{
	json_int_t bucket, nb, total, ovf, ovf_max, min, max;
	double sum;
	json_t *buckets, *e;
	json_error_t err;
	size_t i;
	uint64_t counted = 0;

	if (json_unpack_ex((json_t *)j, &err, 0, "{s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:I, s:F}",
			   "bucket_ns", &bucket, "nbuckets", &nb, "buckets", &buckets, "total", &total,
			   "overflow", &ovf, "overflow_max_ns", &ovf_max, "min_ns", &min,
			   "max_ns", &max, "sum_ns", &sum))
		return error("histogram: %s", err.text);
	if (bucket <= 0 || nb <= 0 || nb > LW_HIST_MAX_BUCKETS || total < 0 || ovf < 0 || min < 0 || max < min)
		return error("histogram: inconsistent header");
	if (lw_hist_init(h, (uint64_t)bucket, (size_t)nb) < 0)
		return -1;
	json_array_foreach(buckets, i, e) {
		json_int_t idx, cnt;

		if (json_unpack(e, "[I, I]", &idx, &cnt) || idx < 0 || idx >= nb || cnt < 0) {
			lw_hist_free(h);
			return error("histogram: bad bucket entry %zu", i);
		}
		h->count[idx] += (uint64_t)cnt;
		counted += (uint64_t)cnt;
	}
	if (counted + (uint64_t)ovf != (uint64_t)total) {
		lw_hist_free(h);
		return error("histogram: buckets hold %llu samples and overflow %lld, total says %lld",
			     (unsigned long long)counted, (long long)ovf, (long long)total);
	}
	h->total = (uint64_t)total;
	h->overflow = (uint64_t)ovf;
	h->overflow_max = (uint64_t)ovf_max;
	{
		const json_t *from = json_object_get(j, "overflow_from_ns");

		/* older files: the last bucket's edge */
		if (json_is_integer(from) && json_integer_value(from) > 0 &&
		    (uint64_t)json_integer_value(from) <= h->overflow_from)
			h->overflow_from = (uint64_t)json_integer_value(from);
	}
	h->min = (uint64_t)min;
	h->max = (uint64_t)max;
	h->sum = sum;
	return 0;
}

int lw_hist_merge(struct lw_hist *dst, const struct lw_hist *src)
{
	if (dst->bucket_ns != src->bucket_ns)
		return error("histogram: cannot merge %lluns buckets into %lluns buckets",
			     (unsigned long long)src->bucket_ns, (unsigned long long)dst->bucket_ns);
	if (src->nbuckets > dst->nbuckets) {
		uint64_t *c = realloc(dst->count, src->nbuckets * sizeof(*c));

		if (!c)
			return error("out of memory");
		memset(c + dst->nbuckets, 0, (src->nbuckets - dst->nbuckets) * sizeof(*c));
		dst->count = c;
		dst->nbuckets = src->nbuckets;
	}
	for (size_t b = 0; b < src->nbuckets; b++)
		dst->count[b] += src->count[b];
	/* the overflow is known to be at least the lowest of the edges of
	 * those that have one; with none, the edge of the widest */
	if (src->overflow && (!dst->overflow || src->overflow_from < dst->overflow_from))
		dst->overflow_from = src->overflow_from;
	else if (!dst->overflow && !src->overflow)
		dst->overflow_from = (uint64_t)dst->nbuckets * dst->bucket_ns;
	if (src->overflow && !dst->overflow)
		dst->overflow_first = src->overflow_first;
	dst->overflow += src->overflow;
	if (src->overflow_max > dst->overflow_max)
		dst->overflow_max = src->overflow_max;
	if (src->total && src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->total += src->total;
	dst->sum += src->sum;
	return 0;
}
