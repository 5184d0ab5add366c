// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>

#include "analysis/analyze.h"
#include "analysis/compare.h"
#include "analysis/repeat.h"
#include "analysis/runstate.h"
#include "analysis/summary.h"
#include "lib/error.h"
#include "lib/input.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/samples.h"
#include "workloads/rkind.h"

/* ---- runs ------------------------------------------------------------- */

struct lw_cprobe *lw_crun_add_probe(struct lw_crun *r, unsigned probe)
{
	struct lw_cprobe *p = realloc(r->p, (r->np + 1) * sizeof(*p));

	if (!p) {
		error("out of memory");
		return NULL;
	}
	r->p = p;
	p = &r->p[r->np++];
	memset(p, 0, sizeof(*p));
	p->probe = probe;
	p->bmax_ns = LW_BLOCK_BASE_NS;
	return p;
}

/* The array @p of *@n elements of @size grown to hold index @idx: doubled
 * from @first (at most @max, which must exceed @idx), the new ones zero.
 * The array, or NULL after error() (@p is then still valid). */
static void *grow_zeroed(void *p, size_t *n, size_t idx, size_t first, size_t max, size_t size)
{
	size_t nn = *n ? *n : first;
	char *b;

	while (nn <= idx)
		nn *= 2;
	nn = nn < max ? nn : max;
	b = realloc(p, nn * size);
	if (!b) {
		error("out of memory");
		return NULL;
	}
	memset(b + *n * size, 0, (nn - *n) * size);
	*n = nn;
	return b;
}

/* 10 ms, 50 ms, 100 ms, 500 ms, 1 s, 5 s ...: x5 from a power of ten of the
 * base, else x2. */
static uint64_t bmax_next(uint64_t w)
{
	uint64_t q = w / LW_BLOCK_BASE_NS;

	while (q % 10 == 0)
		q /= 10;
	return q == 1 ? w * 5 : w * 2;
}

/* Each stretch into the next width: the maximum of those it covers. */
static int bmax_fold(struct lw_cprobe *p)
{
	uint64_t w = bmax_next(p->bmax_ns);
	size_t f = (size_t)(w / p->bmax_ns), n = (p->nb + f - 1) / f;

	if (w > UINT64_MAX / 16)
		return error("block maxima: stretches of %" PRIu64 " s", w / 1000000000);
	for (size_t j = 0; j < n; j++) {
		uint64_t mx = 0;

		for (size_t i = j * f; i < (j + 1) * f && i < p->nb; i++)
			mx = p->bmax[i] > mx ? p->bmax[i] : mx;
		p->bmax[j] = mx;
	}
	p->nb = n;
	p->bmax_ns = w;
	return 0;
}

int lw_bmax_coarsen(struct lw_cprobe *p, size_t cap)
{
	while (p->nb && !p->bmax[p->nb - 1])	/* past the last sample */
		p->nb--;
	while (p->nb > cap)
		if (bmax_fold(p) < 0)
			return -1;
	return 0;
}

int lw_bmax_add(struct lw_cprobe *p, uint64_t t_ns, uint64_t lat)
{
	uint64_t v = lat < UINT64_MAX ? lat + 1 : UINT64_MAX, idx;

	/* nb is the array's length while it grows: what lies beyond it after a
	 * fold is cleared when it grows again */
	while ((idx = t_ns / p->bmax_ns) >= LW_BMAX_CAP)
		if (bmax_fold(p) < 0)
			return -1;
	if (idx >= p->nb) {
		uint64_t *b = grow_zeroed(p->bmax, &p->nb, idx, 1024, LW_BMAX_CAP, sizeof(*b));

		if (!b)
			return -1;
		p->bmax = b;
	}
	if (v > p->bmax[idx])
		p->bmax[idx] = v;
	return 0;
}

void lw_crun_free(struct lw_crun *r)
{
	for (size_t i = 0; i < r->np; i++) {
		lw_dist_free(&r->p[i].d);
		lw_hist_free(&r->p[i].hist);
		free(r->p[i].bmax);
		lw_bseries_free(&r->p[i].bs);
	}
	free(r->p);
	free(r->label);
	free(r->path);
	json_decref(r->manifest);
	json_decref(r->analysis);
	memset(r, 0, sizeof(*r));
}

uint64_t lw_crun_ident(const struct lw_crun *r)
{
	char *s = json_dumps(r->manifest, JSON_COMPACT | JSON_SORT_KEYS);
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (const char *c = s ? s : ""; *c; c++) {
		h ^= (unsigned char)*c;
		h *= 0x100000001b3ULL;
	}
	free(s);
	return h;
}

/* No run spans more than this many 10 ms blocks (15 days): an expected time
 * further out is a corrupt record, not a reason to allocate gigabytes. */
#define MAX_BASE_BLOCKS (1UL << 27)

uint32_t lw_boot_bucket(uint64_t v)
{
	int e;

	if (v < (1u << LW_BOOT_SUB_BITS))
		return (uint32_t)v;
	e = 63 - __builtin_clzll(v);	/* >= LW_BOOT_SUB_BITS */
	return ((uint32_t)(e - LW_BOOT_SUB_BITS + 1) << LW_BOOT_SUB_BITS) +
	       (uint32_t)(v >> (e - LW_BOOT_SUB_BITS)) - (1u << LW_BOOT_SUB_BITS);
}

double lw_boot_value(uint32_t b)
{
	unsigned e;
	uint64_t lo, w;

	if (b < (1u << LW_BOOT_SUB_BITS))
		return b;
	e = (b >> LW_BOOT_SUB_BITS) + LW_BOOT_SUB_BITS - 1;
	lo = ((uint64_t)(1u << LW_BOOT_SUB_BITS) + (b & ((1u << LW_BOOT_SUB_BITS) - 1)))
	     << (e - LW_BOOT_SUB_BITS);
	w = 1ULL << (e - LW_BOOT_SUB_BITS);
	return (double)lo + (double)(w - 1) / 2;
}

void lw_bbuild_init(struct lw_bbuild *b)
{
	memset(b, 0, sizeof(*b));
	b->block_ns = LW_BOOT_BLOCK_NS;
}

/* The slot of @key (bucket + 1) in a table of @cap (a power of two): where
 * it is, or the empty one where it goes. */
static uint32_t bslot(const uint32_t *keys, uint32_t cap, uint32_t key)
{
	uint32_t i = (key * 2654435761u) & (cap - 1);

	while (keys[i] && keys[i] != key)
		i = (i + 1) & (cap - 1);
	return i;
}

/* A block of either form, slot by slot: slot @j's key (bucket + 1; 0 an
 * empty slot of a table), of bblock_slots() of them. */
static uint32_t bblock_slots(const struct lw_bblock *k)
{
	return k->cap ? k->cap : k->n;
}

static uint32_t bblock_key(const struct lw_bblock *k, uint32_t j)
{
	return k->cap ? k->key[j] : k->key[j] + 1;
}

/* Into a table of at least 2 (n + 1) slots, from either form. */
static int bblock_grow(struct lw_bblock *k)
{
	uint32_t cap = k->cap ? 2 * k->cap : 64, *key, *cnt;

	while (cap < 2 * (k->n + 1))
		cap *= 2;
	key = calloc(cap, sizeof(*key));
	cnt = calloc(cap, sizeof(*cnt));
	if (!key || !cnt) {
		free(key);
		free(cnt);
		return error("out of memory");
	}
	for (uint32_t j = 0; j < bblock_slots(k); j++) {
		uint32_t kk = bblock_key(k, j), i;

		if (!kk)
			continue;
		i = bslot(key, cap, kk);
		key[i] = kk;
		cnt[i] = k->cnt[j];
	}
	free(k->key);
	free(k->cnt);
	k->key = key;
	k->cnt = cnt;
	k->cap = cap;
	return 0;
}

static int bblock_put(struct lw_bblock *k, uint32_t bucket, uint32_t count)
{
	uint32_t i;

	if ((!k->cap || 2 * (k->n + 1) > k->cap) && bblock_grow(k) < 0)
		return -1;
	i = bslot(k->key, k->cap, bucket + 1);
	if (!k->key[i]) {
		k->key[i] = bucket + 1;
		k->n++;
	}
	k->cnt[i] += count;
	return 0;
}

/* The table's pairs into arrays of their size, as buckets (new arrays: a
 * table shrunk in place would leave its tail as holes between blocks). */
static int bblock_compact(struct lw_bblock *k)
{
	uint32_t j = 0, *key, *cnt;

	if (!k->cap)
		return 0;
	key = k->n ? malloc(k->n * sizeof(*key)) : NULL;
	cnt = k->n ? malloc(k->n * sizeof(*cnt)) : NULL;
	if (k->n && (!key || !cnt)) {
		free(key);
		free(cnt);
		return error("out of memory");
	}
	for (uint32_t i = 0; i < k->cap; i++)
		if (k->key[i]) {
			key[j] = k->key[i] - 1;
			cnt[j++] = k->cnt[i];
		}
	free(k->key);
	free(k->cnt);
	k->key = key;
	k->cnt = cnt;
	k->cap = 0;
	return 0;
}

static void bblock_free(struct lw_bblock *k)
{
	free(k->key);
	free(k->cnt);
	memset(k, 0, sizeof(*k));
}

/* Two blocks into one: block_ns doubles. */
static int bbuild_coarsen(struct lw_bbuild *b)
{
	size_t nn = (b->nblk + 1) / 2;

	for (size_t i = 0; i < b->nblk; i++) {
		struct lw_bblock *from = &b->b[i], *to = &b->b[i / 2];

		if (i / 2 == i)
			continue;
		if (i % 2 == 0) {	/* the first of its pair: moved whole */
			bblock_free(to);
			*to = *from;
			memset(from, 0, sizeof(*from));
			continue;
		}
		for (uint32_t j = 0; j < bblock_slots(from); j++) {
			uint32_t kk = bblock_key(from, j);

			if (kk && bblock_put(to, kk - 1, from->cnt[j]) < 0)
				return -1;
		}
		to->sum += from->sum;
		bblock_free(from);
		if (i / 2 + 2 < nn && bblock_compact(to) < 0)	/* not among the newest two */
			return -1;
	}
	b->nblk = nn;
	b->done = nn > 2 ? nn - 2 : 0;
	b->block_ns *= 2;
	return 0;
}

int lw_bbuild_add(struct lw_bbuild *b, uint64_t t_ns, uint64_t lat)
{
	uint64_t blk = t_ns / b->block_ns;

	while (blk >= 2 * LW_BOOT_MAX_BLOCKS) {
		if (bbuild_coarsen(b) < 0)
			return -1;
		blk = t_ns / b->block_ns;
	}
	if (blk >= b->cap) {
		struct lw_bblock *t = grow_zeroed(b->b, &b->cap, blk, 64, SIZE_MAX, sizeof(*t));

		if (!t)
			return -1;
		b->b = t;
	}
	/* when a block begins, those two behind it are compact: the samples of
	 * every CPU are past them (one that comes later all the same opens its
	 * table again, and the next sweep goes back to it) */
	if (blk >= b->nblk) {
		b->nblk = blk + 1;
		for (; b->done + 2 < b->nblk; b->done++)
			if (bblock_compact(&b->b[b->done]) < 0)
				return -1;
	} else if (blk < b->done) {
		b->done = blk;
	}
	b->b[blk].sum += (double)lat;
	return bblock_put(&b->b[blk], lw_boot_bucket(lat), 1);
}

void lw_bbuild_free(struct lw_bbuild *b)
{
	for (size_t i = 0; i < b->cap; i++)
		bblock_free(&b->b[i]);
	free(b->b);
	memset(b, 0, sizeof(*b));
}

void lw_bseries_free(struct lw_bseries *s)
{
	for (size_t i = 0; i < s->nblk; i++)
		bblock_free(&s->blk[i]);
	free(s->blk);
	memset(s, 0, sizeof(*s));
}

/* The blocks, compact, handed over: no copy. */
int lw_bbuild_finish(struct lw_bbuild *b, struct lw_bseries *out)
{
	memset(out, 0, sizeof(*out));
	if (!b->nblk) {
		lw_bbuild_free(b);
		return 0;
	}
	for (size_t i = 0; i < b->nblk; i++) {
		if (bblock_compact(&b->b[i]) < 0) {
			lw_bbuild_free(b);
			return -1;
		}
		for (uint32_t j = 0; j < b->b[i].n; j++)
			out->n += b->b[i].cnt[j];
	}
	for (size_t i = b->nblk; i < b->cap; i++)
		bblock_free(&b->b[i]);
	out->blk = b->b;
	out->nblk = b->nblk;
	out->block_ns = b->block_ns;
	memset(b, 0, sizeof(*b));
	return 0;
}

/* How many blocks the run can span: to the manifest's end (or start plus
 * its duration), a minute of slack, at most MAX_BASE_BLOCKS; a manifest
 * with neither allows 11 hours (32 MB).  A record later than that is
 * corrupt, and must not size an allocation. */
static uint64_t run_blocks(const json_t *m, uint64_t start)
{
	json_int_t end = json_integer_value(json_object_get(json_object_get(m, "end"),
							    "monotonic_ns"));
	json_int_t dur = json_integer_value(json_object_get(m, "duration_ns"));
	uint64_t span;

	if (end > 0 && (uint64_t)end > start)
		span = (uint64_t)end - start;
	else if (dur > 0)
		span = (uint64_t)dur;
	else
		return 1UL << 22;
	span = span / LW_BLOCK_BASE_NS + 6000;
	return span < MAX_BASE_BLOCKS ? span : MAX_BASE_BLOCKS;
}

static int load_block_maxima(struct lw_crun *r, const char *path)
{
	/* a killed run may end in a partial record, as the summary allowed */
	struct lw_samples_reader *rd = lw_run_samples_open(path, r->manifest, LW_SAMPLES_QUIET);
	struct lw_cprobe *by_id[LW_PROBE_MAX] = { 0 };
	struct lw_bbuild bb[LW_PROBE_MAX];
	struct lw_sample s;
	uint64_t start, rec = 0, limit;
	int ret;

	if (!rd)
		return -1;
	for (unsigned i = 0; i < LW_PROBE_MAX; i++)
		lw_bbuild_init(&bb[i]);
	start = lw_samples_start(rd);
	limit = run_blocks(r->manifest, start);
	for (size_t i = 0; i < r->np; i++)
		if (r->p[i].probe < LW_PROBE_MAX)
			by_id[r->p[i].probe] = &r->p[i];
	while ((ret = lw_samples_next(rd, &s)) == 1) {
		struct lw_cprobe *p = s.probe < LW_PROBE_MAX ? by_id[s.probe] : NULL;
		uint64_t t = s.expected_ns > start ? s.expected_ns - start : 0;
		uint64_t idx = t / LW_BLOCK_BASE_NS;

		rec++;
		if (!p)
			continue;	/* the summary already refused unknown probes */
		if (idx >= limit) {
			ret = error("%s: record %" PRIu64 ": expected time %" PRIu64 " is %" PRIu64
				    " s after the start: later than the run can have lasted (the "
				    "manifest's end, and a minute)", path, rec, s.expected_ns,
				    (s.expected_ns - start) / 1000000000);
			break;
		}
		if (lw_bbuild_add(&bb[s.probe], t, s.latency_ns) < 0 ||
		    lw_bmax_add(p, t, s.latency_ns) < 0) {
			ret = -1;
			break;
		}
	}
	lw_samples_close_reader(rd);
	for (unsigned i = 0; i < LW_PROBE_MAX; i++) {
		if (ret >= 0 && by_id[i] && lw_bbuild_finish(&bb[i], &by_id[i]->bs) < 0)
			ret = -1;
		lw_bbuild_free(&bb[i]);
	}
	if (ret < 0)
		return -1;
	/* trim the unused tail of the doubling */
	for (size_t i = 0; i < r->np; i++)
		if (lw_bmax_coarsen(&r->p[i], LW_BMAX_CAP) < 0)
			return -1;
	return 0;
}

/* Power and idle residency when analysis.json does not have them (the run
 * was not analyzed, or by an older latwatt): from the one analysis of a run
 * (analysis/analyze.h) without its trace pass, so that they are what
 * `analyze` says; spike causes need `latwatt analyze`. */
static int derive_extras(struct lw_crun *r, const struct lw_rundir *rd)
{
	static const char *const keys[] = { "power", "idle", "budgets", "workloads" };
	struct lw_analyze_opts o;
	struct lw_summary sum;
	json_t *doc;
	int partial;

	if (r->analysis && json_object_get(r->analysis, "power") &&
	    json_object_get(r->analysis, "idle"))
		return 0;
	lw_analyze_opts_default(&o);
	o.trace = 0;
	if (lw_analyze_run(rd, &o, &sum, &doc, &partial) < 0)
		return -1;
	lw_summary_free(&sum);
	if (!r->analysis) {
		r->analysis = doc;
		return 0;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!json_object_get(r->analysis, keys[i]) && json_object_get(doc, keys[i]))
			json_object_set(r->analysis, keys[i], json_object_get(doc, keys[i]));
	json_decref(doc);
	return 0;
}

int lw_crun_load_dir(struct lw_crun *r, const char *path)
{
	struct lw_rundir rd;
	struct lw_summary sum;
	char file[PATH_MAX];
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (lw_rundir_open(&rd, path) < 0)
		return -1;
	/* its status as its files show it (truncated, killed), as analyze
	 * says it: the table shows it, and the readers take what is there */
	{
		struct lw_run_state st;

		if (lw_run_state(&rd, &st) == 0) {
			lw_run_state_apply(&st, rd.manifest);
			lw_run_state_free(&st);
		}
	}
	if (lw_summary_load(&sum, &rd, 0) < 0) {
		lw_rundir_close(&rd);
		return -1;
	}
	r->label = strdup(path);
	r->path = strdup(path);
	r->manifest = json_incref(rd.manifest);
	if (!r->label || !r->path) {
		error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < sum.n; i++) {
		struct lw_series *s = &sum.s[i];
		struct lw_cprobe *p;

		if (s->cpu >= 0)
			continue;
		p = lw_crun_add_probe(r, s->probe);
		if (!p)
			goto out;
		if (sum.from_histogram ? lw_dist_from_hist(&p->d, &s->hist) :
		    lw_summary_dist(&sum, i, &p->d))
			goto out;
		p->hist = s->hist;		/* taken over */
		s->hist.count = NULL;
		p->missed = s->missed;
		p->missed_unknown = s->missed_unknown;
		p->from_hist = sum.from_histogram;
		p->dropped = s->dropped;
	}
	if (!sum.from_histogram &&
	    load_block_maxima(r, lw_rundir_file(&rd, "samples", file, sizeof(file))) < 0)
		goto out;
	lw_rundir_file(&rd, "analysis.json", file, sizeof(file));
	if (access(file, F_OK) == 0 &&
	    !(r->analysis = lw_json_load_flags(file, LW_IN_NOFOLLOW, LW_CAP_JSON)))
		goto out;
	if (derive_extras(r, &rd) < 0)
		goto out;
	ret = 0;
out:
	lw_summary_free(&sum);
	lw_rundir_close(&rd);
	if (ret < 0)
		lw_crun_free(r);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int lw_repeat_list(const char *path, char ***runs, size_t *n)
{
	char file[PATH_MAX], **v = NULL;
	struct dirent *e;
	size_t k = 0, cap = 0;
	DIR *d;

	*runs = NULL;
	*n = 0;
	snprintf(file, sizeof(file), "%s/manifest.json", path);
	if (access(file, F_OK) == 0)
		return 0;		/* a run itself */
	d = opendir(path);
	if (!d)
		return 0;		/* not a directory: loading it says why */
	while ((e = readdir(d))) {
		struct stat st;

		if (strncmp(e->d_name, LW_REPEAT_PREFIX, strlen(LW_REPEAT_PREFIX)))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		snprintf(file, sizeof(file), "%s/manifest.json", e->d_name);
		if (faccessat(dirfd(d), file, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
			continue;	/* a repeat that never started */
		if (k == cap) {
			char **nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));

			if (!nv)
				goto oom;
			v = nv;
		}
		if (asprintf(&v[k], "%s/%s", path, e->d_name) < 0)
			goto oom;
		k++;
	}
	closedir(d);
	qsort(v, k, sizeof(*v), cmp_str);
	/* the group is its complete runs (analysis/repeat.h) */
	for (size_t i = 0, j = 0, all = k; i < all; i++) {
		char why[1200];
		int ok = lw_repeat_run_complete(v[i], why, sizeof(why));

		if (ok < 0) {
			while (i < all)
				free(v[i++]);
			k = j;
			goto fail;
		}
		if (ok) {
			v[j++] = v[i];
		} else {
			note("%s: left out of the group: %s (a group is its complete runs)", v[i], why);
			free(v[i]);
		}
		k = j;
	}
	if (!k) {
		free(v);
		return error("%s: a directory of repeats with no complete run", path);
	}
	*runs = v;
	*n = k;
	return 0;
fail:
	while (k)
		free(v[--k]);
	free(v);
	return -1;
oom:
	closedir(d);
	while (k)
		free(v[--k]);
	free(v);
	return error("out of memory");
}

/* ---- options ---------------------------------------------------------- */

void lw_cmp_opts_default(struct lw_cmp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->alpha = 0.05;
	o->practical = 0.05;
	o->conf = 0.95;
	o->resamples = 2000;
	o->seed = 1;
	o->block_ns = LW_NSEC_PER_SEC;
	o->horizon_ns = 3600 * LW_NSEC_PER_SEC;
	o->min_blocks = LW_EVT_MIN_BLOCKS;
	o->model = LW_EVT_GEV;
}

int lw_cmp_add_threshold(struct lw_cmp_opts *o, uint64_t ns)
{
	for (size_t i = 0; i < o->nthr; i++)
		if (o->thr[i] == ns)
			return 0;
	if (o->nthr == LW_CMP_MAX_THRESHOLDS)
		return error("at most %d thresholds", LW_CMP_MAX_THRESHOLDS);
	o->thr[o->nthr++] = ns;
	/* kept ascending: the table reads better */
	for (size_t i = o->nthr - 1; i > 0 && o->thr[i] < o->thr[i - 1]; i--) {
		uint64_t t = o->thr[i];
		o->thr[i] = o->thr[i - 1];
		o->thr[i - 1] = t;
	}
	return 0;
}

static double dval(const json_t *o, const char *k);

/* ---- per-run computations ------------------------------------------- */

static const char *const pct_name[LW_NPCT] = { "p50", "p90", "p99", "p99.9", "p99.99" };

/* The per-run figures a comparison judges: the percentiles, the mean and
 * the median of the block maxima. */
enum { ST_MEAN = LW_NPCT, ST_BLOCKMAX, NST };
#define POWER 0.8		/* of the smallest detectable change */

struct pcache {
	const struct lw_cprobe *cp;
	double val[NST];		/* the run's figure */
	double wvar[NST];		/* variance of its log within the run (bootstrap) */
	double lo[NST], hi[NST];	/* its within-run interval */
	const char *ci_method;
	double *bm;			/* block maxima, ns, time order */
	size_t nbm;
	struct lw_dist bmd;		/* the same, as a distribution */
	struct lw_evt_est evt;
};

struct rcache {
	const struct lw_crun *r;
	struct pcache *p;		/* parallel to r->p */
	uint64_t ident;
};

static double median_of(const struct lw_dist *d)
{
	return d->n ? (double)lw_dist_percentile(d, 50) : NAN;
}

/* Has the run maxima to take blocks of @block_ns from? */
static int bmax_usable(const struct lw_cprobe *cp, uint64_t block_ns)
{
	return cp->nb && block_ns >= cp->bmax_ns && block_ns % cp->bmax_ns == 0;
}

/* Why a run has no block maxima of @block_ns (into @why), or 0. */
static int bmax_missing(const struct lw_cprobe *cp, uint64_t block_ns, char *why, size_t len)
{
	char w[32], b[32];

	if (!cp->nb) {
		snprintf(why, len, "no time series (a run imported from a histogram)");
		return 1;
	}
	if (!bmax_usable(cp, block_ns)) {
		snprintf(why, len, "the run keeps its largest latency per %s only (a long run): "
			 "--block %s is not a multiple of it", lw_format_duration(cp->bmax_ns, w, sizeof(w)),
			 lw_format_duration(block_ns, b, sizeof(b)));
		return 1;
	}
	return 0;
}

static int block_maxima(const struct lw_cprobe *cp, uint64_t block_ns, struct pcache *pc)
{
	size_t m = (size_t)(block_ns / cp->bmax_ns), nblk;
	uint64_t *sorted;

	pc->nbm = 0;
	if (!bmax_usable(cp, block_ns))
		return 0;	/* bmax_missing() says why */
	/* the last stretch holds the last sample and may be partial: left out */
	nblk = (cp->nb - 1) / m;
	pc->bm = malloc((nblk ? nblk : 1) * sizeof(*pc->bm));
	sorted = malloc((nblk ? nblk : 1) * sizeof(*sorted));
	if (!pc->bm || !sorted) {
		free(sorted);
		return error("out of memory");
	}
	for (size_t j = 0; j < nblk; j++) {
		uint64_t mx = 0;

		for (size_t i = j * m; i < (j + 1) * m; i++)
			if (cp->bmax[i] > mx)
				mx = cp->bmax[i];
		if (!mx)
			continue;	/* no sample in the whole block */
		sorted[pc->nbm] = mx - 1;
		pc->bm[pc->nbm++] = (double)(mx - 1);
	}
	lw_sort_u64(sorted, pc->nbm);
	if (lw_dist_from_sorted(&pc->bmd, sorted, pc->nbm) < 0) {
		free(sorted);
		return -1;
	}
	free(sorted);
	return 0;
}

/*
 * The run's own figures with their within-run intervals and the variance of
 * their logs: a moving-block bootstrap (blocks of the run, struct lw_bseries,
 * drawn with replacement, so that bursts stay whole), or, for a run
 * without time order (imported histogram, stored run), the bootstrap of
 * independent samples (order statistics drawn from Beta), labelled so.
 */
static int within_run(struct pcache *pc, const struct lw_cmp_opts *o, uint64_t ident)
{
	const struct lw_cprobe *cp = pc->cp;
	const struct lw_dist *d = &cp->d;
	unsigned R = o->resamples < LW_BOOT_MAX_RESAMPLES ? o->resamples : LW_BOOT_MAX_RESAMPLES;
	double *rep[LW_NPCT + 1] = { 0 }, *buf = NULL;
	struct lw_rng rng = { 0 };
	int ret = -1;

	for (int k = 0; k < NST; k++) {
		pc->val[k] = pc->lo[k] = pc->hi[k] = NAN;
		pc->wvar[k] = 0;
	}
	pc->val[ST_BLOCKMAX] = median_of(&pc->bmd);
	if (!d->n)
		return 0;
	for (int k = 0; k < LW_NPCT; k++)
		pc->val[k] = (double)lw_dist_percentile(d, lw_pct[k]);
	pc->val[ST_MEAN] = lw_dist_mean(d);
	if (R < 20)
		R = 20;
	for (int k = 0; k <= LW_NPCT; k++)
		if (!(rep[k] = malloc(R * sizeof(double)))) {
			error("out of memory");
			goto out;
		}
	if (lw_rng_stream(&rng, o->seed, ident, cp->probe, 200) < 0)
		goto out;
	if (cp->bs.nblk >= 2 && cp->bs.n == d->n) {
		/* a resample as counts over the buckets: values known to 1/256
		 * of a power of two (the figure itself is exact), O(buckets of
		 * the blocks drawn) a resample */
		const struct lw_bseries *bs = &cp->bs;
		uint64_t *cnt = calloc(LW_BOOT_NBUCKETS, sizeof(*cnt));

		pc->ci_method = "block bootstrap";
		if (!cnt) {
			error("out of memory");
			goto out;
		}
		for (unsigned r = 0; r < R; r++) {
			uint64_t m = 0, acc = 0, rank[LW_NPCT];
			double sum = 0;
			size_t v = 0;

			memset(cnt, 0, LW_BOOT_NBUCKETS * sizeof(*cnt));
			for (size_t j = 0; j < bs->nblk; j++) {
				size_t b = lw_rng_index(&rng, bs->nblk);

				const struct lw_bblock *k = &bs->blk[b];

				for (uint32_t i = 0; i < k->n; i++) {
					cnt[k->key[i]] += k->cnt[i];
					m += k->cnt[i];
				}
				sum += k->sum;
			}
			if (!m) {
				for (int k = 0; k <= LW_NPCT; k++)
					rep[k][r] = NAN;
				continue;
			}
			for (int k = 0; k < LW_NPCT; k++)
				rank[k] = lw_pct_rank(m, lw_pct[k]);
			for (int k = 0; k < LW_NPCT; k++) {
				while (acc + cnt[v] < rank[k])
					acc += cnt[v++];
				rep[k][r] = lw_boot_value((uint32_t)v);
			}
			rep[LW_NPCT][r] = sum / (double)m;
		}
		free(cnt);
	} else {
		double se = sqrt(lw_dist_var(d) / (double)d->n);

		pc->ci_method = "bootstrap of independent samples (the run has no time order)";
		for (unsigned r = 0; r < R; r++) {
			for (int k = 0; k < LW_NPCT; k++)
				rep[k][r] = (double)lw_boot_percentile(d, lw_pct[k], &rng);
			rep[LW_NPCT][r] = pc->val[ST_MEAN] + se * lw_rng_normal(&rng);
		}
	}
	free(buf);
	if (!(buf = malloc(R * sizeof(double)))) {
		error("out of memory");
		goto out;
	}
	for (int k = 0; k <= LW_NPCT; k++) {
		double mean, var;
		size_t n = 0;

		/* the log's variance, then the interval */
		for (unsigned r = 0; r < R; r++)
			if (rep[k][r] > 0)
				buf[n++] = log(rep[k][r]);
		lw_mean_var(buf, n, &mean, &var);
		pc->wvar[k] = var;
		n = 0;
		for (unsigned r = 0; r < R; r++)
			if (isfinite(rep[k][r]))
				rep[k][n++] = rep[k][r];
		lw_interval(rep[k], n, o->conf, &pc->lo[k], &pc->hi[k]);
	}
	/* a figure read off a histogram is known to its bucket only */
	for (int k = 0; k < LW_NPCT; k++)
		if (pc->val[k] > 0 && d->resolution_ns > 1) {
			double q = (double)d->resolution_ns / pc->val[k];

			if (q * q / 12 > pc->wvar[k])
				pc->wvar[k] = q * q / 12;
		}
	ret = 0;
out:
	for (int k = 0; k <= LW_NPCT; k++)
		free(rep[k]);
	free(buf);
	lw_rng_free(&rng);
	return ret;
}

/* Bootstrap streams are keyed by the run's identity (so a run gets the same
 * intervals whatever it is compared with); a run named twice gets a second
 * stream, or its two copies would be resampled in lockstep. */
static int rcache_fill(struct rcache *rc, const struct lw_crun *r, const struct lw_cmp_opts *o,
		       const struct rcache *before, size_t nbefore)
{
	rc->r = r;
	rc->ident = lw_crun_ident(r);
	for (size_t i = 0; i < nbefore; i++)
		if (before[i].ident == rc->ident) {
			rc->ident += 0x9e3779b97f4a7c15ULL;
			i = (size_t)-1;		/* again, against every earlier one */
		}
	rc->p = calloc(r->np ? r->np : 1, sizeof(*rc->p));
	if (!rc->p)
		return error("out of memory");
	for (size_t i = 0; i < r->np; i++) {
		const struct lw_cprobe *cp = &r->p[i];
		struct pcache *pc = &rc->p[i];
		struct lw_rng rng = { 0 };
		int ret;

		pc->cp = cp;
		if (block_maxima(cp, o->block_ns, pc) < 0 || within_run(pc, o, rc->ident) < 0)
			return -1;
		if (bmax_missing(cp, o->block_ns, pc->evt.reason, sizeof(pc->evt.reason)))
			continue;
		if (lw_rng_stream(&rng, o->seed, rc->ident, cp->probe, 100) < 0)
			return -1;
		ret = lw_evt_estimate(pc->bm, pc->nbm, o->model,
				      (double)o->horizon_ns / (double)o->block_ns, o->resamples, o->conf,
				      o->min_blocks, &rng, &pc->evt);
		lw_rng_free(&rng);
		if (ret < 0)
			return -1;
	}
	return 0;
}

static void rcache_free(struct rcache *rc)
{
	if (!rc->p)
		return;
	for (size_t i = 0; i < rc->r->np; i++) {
		free(rc->p[i].bm);
		lw_dist_free(&rc->p[i].bmd);
		lw_evt_est_free(&rc->p[i].evt);
	}
	free(rc->p);
	rc->p = NULL;
}

static const struct pcache *rc_probe(const struct rcache *rc, unsigned probe)
{
	for (size_t i = 0; i < rc->r->np; i++)
		if (rc->p[i].cp->probe == probe)
			return &rc->p[i];
	return NULL;
}

/* A group: runs rc[first .. first + n). */
struct gview {
	const struct lw_cgroup *g;
	const struct rcache *rc;	/* rc + first */
	size_t n;
};

/* Does every run of the group have @probe? */
static int group_has(const struct gview *g, unsigned probe)
{
	for (size_t i = 0; i < g->n; i++)
		if (!rc_probe(&g->rc[i], probe))
			return 0;
	return g->n > 0;
}

/*
 * The worst case of a group: one extreme-value fit to the block maxima of
 * all its runs pooled; its interval from a two-stage bootstrap (runs drawn
 * with replacement, then each drawn run's block maxima with replacement, the
 * fit repeated), so that it holds the run-to-run spread as well as the
 * spread inside a run.
 */
static int group_evt(const struct gview *g, unsigned probe, const struct lw_cmp_opts *o,
		     uint64_t key, struct lw_evt_est *est)
{
	double m = (double)o->horizon_ns / (double)o->block_ns, *pool, *bs = NULL, *lv = NULL;
	size_t np = 0, maxn = 0;
	struct lw_rng rng = { 0 };
	int ret = -1;

	memset(est, 0, sizeof(*est));
	for (size_t i = 0; i < g->n; i++) {
		const struct pcache *pc = rc_probe(&g->rc[i], probe);

		np += pc->nbm;
		if (bmax_missing(pc->cp, o->block_ns, est->reason, sizeof(est->reason)))
			return 0;
	}
	pool = malloc((np ? np : 1) * sizeof(*pool));
	if (!pool)
		return error("out of memory");
	np = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct pcache *pc = rc_probe(&g->rc[i], probe);

		memcpy(pool + np, pc->bm, pc->nbm * sizeof(*pool));
		np += pc->nbm;
	}
	if (lw_rng_stream(&rng, o->seed, key, probe, 300) < 0)
		goto out;
	if (lw_evt_estimate(pool, np, o->model, m, o->resamples, o->conf, o->min_blocks, &rng,
			    est) < 0)
		goto out;
	if (!est->ok || g->n < 2) {
		ret = 0;
		goto out;
	}
	/* two stages: runs, then blocks inside each */
	for (size_t i = 0; i < g->n; i++)
		maxn += rc_probe(&g->rc[i], probe)->nbm;
	bs = malloc(maxn * g->n * sizeof(*bs));
	lv = malloc((o->resamples ? o->resamples : 1) * sizeof(*lv));
	if (!bs || !lv) {
		error("out of memory");
		goto out;
	}
	{
		size_t nl = 0;

		for (unsigned r = 0; r < o->resamples; r++) {
			struct lw_evt_fit f;
			size_t k = 0;
			int q;

			for (size_t i = 0; i < g->n; i++) {
				const struct pcache *pc = rc_probe(&g->rc[lw_rng_index(&rng, g->n)], probe);

				for (size_t j = 0; j < pc->nbm; j++)
					bs[k++] = pc->bm[lw_rng_index(&rng, pc->nbm)];
			}
			q = lw_set_quiet(1);	/* a resample without spread: no fit, left out */
			if (lw_evt_fit(o->model, bs, k, &f) == 0) {
				double l = lw_evt_return_level(&f, m);

				if (isfinite(l))
					lv[nl++] = l;
			}
			lw_set_quiet(q);
		}
		lw_interval(lv, nl, o->conf, &est->lo, &est->hi);
	}
	ret = 0;
out:
	free(pool);
	free(bs);
	free(lv);
	lw_rng_free(&rng);
	return ret;
}

/* ---- JSON helpers ------------------------------------------------------ */

static json_t *jnum(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *jint(uint64_t x)
{
	return json_integer((json_int_t)x);
}

static json_t *jpair(double lo, double hi)
{
	if (!isfinite(lo) || !isfinite(hi))
		return json_null();
	return json_pack("[o, o]", jnum(lo), jnum(hi));
}

static json_t *jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* ---- extras: workloads, power, idle, causes -------------------------- */

/* Sum of @key over the workloads of kind @kind (NULL: any kind) in @w;
 * 1 when at least one had it. */
static int sum_workloads(const json_t *w, const char *kind, const char *key, uint64_t *out)
{
	const char *name;
	json_t *v;
	int found = 0;

	*out = 0;
	json_object_foreach((json_t *)w, name, v) {
		const char *k = json_string_value(json_object_get(v, "kind"));
		json_t *x = json_object_get(v, key);

		if (kind && (!k || strcmp(k, kind)))
			continue;
		if (json_is_integer(x) && json_integer_value(x) >= 0) {
			*out += (uint64_t)json_integer_value(x);
			found = 1;
		}
	}
	return found;
}

/* Workloads as recorded in the manifest (or, failing that, analysis.json):
 * for each record kind, its misses under its metric's name in its records
 * under its total key (audio "xruns" in "periods", video "dropped_frames"
 * in "frames"); null when no workload of the kind recorded them. */
static json_t *workloads_json(const struct lw_crun *r)
{
	const json_t *w = json_object_get(r->manifest, "workloads");
	const struct lw_rkind *k;
	json_t *o;

	if (!json_is_object(w) || !json_object_size(w))
		w = json_object_get(r->analysis, "workloads");
	if (!json_is_object(w) || !json_object_size(w))
		return json_null();
	o = json_object();
	for (size_t i = 0; (k = lw_rkind_at(i)); i++) {
		uint64_t miss, total;
		int hm = sum_workloads(w, k->kind, k->miss_key, &miss);
		int ht = sum_workloads(w, k->kind, k->total_key, &total);

		json_object_set_new(o, k->metric, hm ? jint(miss) : json_null());
		json_object_set_new(o, k->total_key, ht ? jint(total) : json_null());
	}
	return o;
}

/* analysis.json "power": {"kind", "total": {"average_w", "energy_j", ...}}
 * as `analyze` writes it; a plain {"mean_w", "stddev_w", "samples"} too. */
static json_t *power_json(const struct lw_crun *r)
{
	const json_t *p = json_object_get(r->analysis, "power");
	const json_t *tot = json_object_get(p, "total");
	json_t *m = json_object_get(tot, "average_w");

	if (json_is_number(m))
		return json_pack("{s:O, s:O?, s:O?, s:O?}", "mean_w", m,
			"energy_j", json_object_get(tot, "energy_j"),
			"duration_s", json_object_get(tot, "duration_s"),
			"source", json_object_get(p, "kind"));
	m = json_object_get(p, "mean_w");
	if (!json_is_number(m))
		return json_null();
	return json_pack("{s:O, s:O?, s:O?, s:O?}", "mean_w", m,
		"stddev_w", json_object_get(p, "stddev_w"), "samples", json_object_get(p, "samples"),
		"source", json_object_get(p, "source"));
}

/* name -> fraction, from an object of numbers or an array of objects with
 * @key (the name) and @val (the fraction). */
static json_t *shares_json(const json_t *src, const char *key, const char *val)
{
	const char *k;
	json_t *v, *o;
	size_t i;

	if (json_is_object(src)) {
		o = json_object();
		json_object_foreach((json_t *)src, k, v)
			if (json_is_number(v))
				json_object_set_new(o, k, json_real(json_number_value(v)));
		return o;
	}
	if (!json_is_array(src))
		return json_null();
	o = json_object();
	json_array_foreach(src, i, v) {
		json_t *name = json_object_get(v, key), *x = json_object_get(v, val);

		if (json_is_string(name) && json_is_number(x))
			json_object_set_new(o, json_string_value(name), json_real(json_number_value(x)));
	}
	return o;
}

/* Idle residency per state, averaged over the CPUs: analysis.json "idle":
 * {"trace"|"sysfs": {"cpus": [{"states": [{"name", "residency"}], "active"}]}}
 * as `analyze` writes it (the traced residency preferred: it is exact), or
 * a plain {"residency": {STATE: fraction}}. */
static json_t *idle_json(const struct lw_crun *r)
{
	const json_t *idle = json_object_get(r->analysis, "idle"), *cpus;

	cpus = json_object_get(json_object_get(idle, "trace"), "cpus");
	if (!json_array_size(cpus))
		cpus = json_object_get(json_object_get(idle, "sysfs"), "cpus");
	if (!json_array_size(cpus))
		cpus = json_object_get(idle, "cpus");
	json_t *c, *st, *o;
	size_t i, j, n;
	double active = 0;

	n = json_array_size(cpus);
	if (!n)
		return shares_json(json_object_get(idle, "residency"), NULL, NULL);
	o = json_object();
	json_array_foreach(cpus, i, c) {
		active += json_number_value(json_object_get(c, "active"));
		json_array_foreach(json_object_get(c, "states"), j, st) {
			const char *name = json_string_value(json_object_get(st, "name"));
			double x = json_number_value(json_object_get(st, "residency"));

			if (!name)
				continue;
			json_object_set_new(o, name, json_real(json_number_value(json_object_get(o, name)) +
							       x / (double)n));
		}
	}
	json_object_set_new(o, "active", json_real(active / (double)n));
	return o;
}

/* Spike causes: analysis.json "spikes": {"causes": [{"cause", "share"}]} as
 * the attribution writes it (or an object of cause -> share; or top-level). */
static json_t *causes_json(const struct lw_crun *r)
{
	const json_t *c = json_object_get(json_object_get(r->analysis, "spikes"), "causes");

	if (!c)
		c = json_object_get(r->analysis, "causes");
	return shares_json(c, "cause", "share");
}


/* ---- the run and group objects -------------------------------------- */

static json_t *wc_json(const struct lw_evt_est *e, const struct lw_cmp_opts *o, const char *spread)
{
	if (!e->ok)
		return json_pack("{s:b, s:s, s:I}", "estimated", 0, "reason", e->reason,
				 "blocks", (json_int_t)e->blocks);
	return json_pack("{s:b, s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:f, s:I, s:o, s:o, s:o, s:s}",
		"estimated", 1, "model", lw_evt_model_name(o->model),
		"method", o->model == LW_EVT_GEV ? "probability-weighted moments" : "maximum likelihood",
		"horizon_ns", (json_int_t)o->horizon_ns, "block_ns", (json_int_t)o->block_ns,
		"blocks", (json_int_t)e->blocks, "return_level_ns", jnum(e->level),
		"ci_ns", jpair(e->lo, e->hi), "confidence", o->conf,
		"resamples", (json_int_t)o->resamples,
		"loc_ns", jnum(e->fit.loc), "scale_ns", jnum(e->fit.scale), "shape", jnum(e->fit.shape),
		"ci_spread", spread);
}

/* A run without samples (imported from a histogram): percentile @k is not
 * known when it lies in the histogram's overflow; its bound then, else 0. */
static uint64_t hist_pct_bound(const struct lw_cprobe *cp, int k)
{
	int ovf;

	if (!cp->from_hist || !cp->hist.total)
		return 0;
	lw_hist_percentile(&cp->hist, lw_pct[k], &ovf);
	return ovf ? cp->hist.overflow_from : 0;
}

/*
 * Whether a run counted its missed periods: an imported run did not
 * (cyclictest counts none), nor one whose analysis.json says null.  Unknown
 * is never taken for 0.
 */
static int missed_known(const struct lw_crun *r, unsigned probe)
{
	const json_t *all = json_object_get(json_object_get(json_object_get(r->analysis, "probes"),
							    lw_probe_name(probe)), "all");

	if (json_is_object(json_object_get(r->manifest, "imported")))
		return 0;
	return !all || !json_is_null(json_object_get(all, "missed_periods"));
}

static json_t *probe_json(const struct lw_crun *r, const struct pcache *pc,
			  const struct lw_cmp_opts *o)
{
	const struct lw_cprobe *cp = pc->cp;
	const struct lw_dist *d = &cp->d;
	json_t *pj = json_object(), *pcts = json_object(), *over = json_array();

	json_object_set_new(pj, "count", jint(d->n));
	json_object_set_new(pj, "exact", json_boolean(d->exact));
	json_object_set_new(pj, "resolution_ns", jint(d->resolution_ns));
	json_object_set_new(pj, "min_ns", d->n ? jint(d->v[0]) : json_null());
	json_object_set_new(pj, "mean_ns", d->n ? jnum(lw_dist_mean(d)) : json_null());
	json_object_set_new(pj, "mean_ci_ns", jpair(pc->lo[ST_MEAN], pc->hi[ST_MEAN]));
	json_object_set_new(pj, "max_ns", d->n ? jint(d->v[d->k - 1]) : json_null());
	json_object_set_new(pj, "missed_periods", missed_known(r, cp->probe) ? jint(cp->missed) :
			    json_null());
	json_object_set_new(pj, "dropped", jint(cp->dropped));
	json_object_set_new(pj, "ci_method", jstr_or_null(pc->ci_method));
	for (int k = 0; k < LW_NPCT; k++) {
		uint64_t bound = hist_pct_bound(cp, k);
		json_t *e = json_pack("{s:o, s:o}",
			"value_ns", d->n && !bound ? jint(lw_dist_percentile(d, lw_pct[k])) : json_null(),
			"ci_ns", jpair(pc->lo[k], pc->hi[k]));

		if (bound)	/* in the histogram's overflow: at least this */
			json_object_set_new(e, "above_ns", jint(bound));
		json_object_set_new(pcts, pct_name[k], e);
	}
	json_object_set_new(pj, "percentiles", pcts);
	for (size_t t = 0; t < o->nthr; t++) {
		uint64_t c = lw_dist_count_above(d, o->thr[t]);
		int known = 1;

		if (cp->from_hist)
			c = lw_hist_count_above(&cp->hist, o->thr[t], &known);
		json_array_append_new(over, json_pack("{s:I, s:o, s:o}",
			"threshold_ns", (json_int_t)o->thr[t], "count", known ? jint(c) : json_null(),
			"rate", d->n && known ? jnum((double)c / (double)d->n) : json_null()));
		if (!known)
			json_object_set_new(json_array_get(over, json_array_size(over) - 1),
					    "at_least", jint(c));
	}
	json_object_set_new(pj, "over", over);
	json_object_set_new(pj, "block_maxima", bmax_usable(cp, o->block_ns) ? json_pack("{s:I, s:I, s:o}",
		"block_ns", (json_int_t)o->block_ns, "blocks", (json_int_t)pc->nbm,
		"median_ns", jnum(median_of(&pc->bmd))) : json_null());
	json_object_set_new(pj, "worst_case", wc_json(&pc->evt, o, "blocks of the run"));
	return pj;
}

static json_t *run_json(const struct rcache *rc, size_t index, size_t group,
			const struct lw_cmp_opts *o)
{
	const struct lw_crun *r = rc->r;
	const json_t *m = r->manifest, *sys = json_object_get(m, "system");
	const json_t *pre = json_object_get(sys, "preempt"), *nohz = json_object_get(sys, "nohz_full");
	json_t *j, *probes = json_object();
	char id[32];

	snprintf(id, sizeof(id), "%016" PRIx64, lw_crun_ident(r));
	j = json_pack("{s:I, s:I, s:s, s:s, s:o, s:o, s:s, s:s, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?,"
		      " s:o, s:O?, s:O?, s:O?, s:O?, s:O?}",
		"index", (json_int_t)index, "group", (json_int_t)group, "label", r->label,
		"source", r->db_id ? "db" : "directory",
		"path", jstr_or_null(r->path),
		"db_id", r->db_id ? json_integer(r->db_id) : json_null(),
		"ident", id,
		"status", lw_manifest_status(m),
		"board", json_object_get(m, "board"),
		"hostname", json_object_get(sys, "hostname"),
		"kernel_release", json_object_get(json_object_get(sys, "kernel"), "release"),
		"kernel_version", json_object_get(json_object_get(sys, "kernel"), "version"),
		"preempt_model", json_object_get(pre, "model"),
		"rt", json_object_get(pre, "rt"),
		"nohz_full", json_is_string(nohz) && *json_string_value(nohz) ?
			json_incref((json_t *)nohz) : json_null(),
		"isolated", json_object_get(sys, "isolated"),
		"pm_qos", json_object_get(m, "pm_qos"),
		"cpus", json_object_get(m, "cpus"),
		"duration_ns", json_object_get(m, "duration_ns"),
		"start_utc", json_object_get(json_object_get(m, "start"), "utc"));
	for (size_t i = 0; i < r->np; i++)
		json_object_set_new(probes, lw_probe_name(r->p[i].probe), probe_json(r, &rc->p[i], o));
	json_object_set_new(j, "probes", probes);
	json_object_set_new(j, "workloads", workloads_json(r));
	json_object_set_new(j, "power", power_json(r));
	json_object_set_new(j, "idle", idle_json(r));
	json_object_set_new(j, "causes", causes_json(r));
	return j;
}

/* The logs of the runs' figure @k into @x, and the mean of their within-run
 * variances into *wv; how many runs had a positive figure. */
static size_t group_logs(const struct gview *g, unsigned probe, int k, double *x, double *wv)
{
	size_t n = 0;

	*wv = 0;
	for (size_t i = 0; i < g->n; i++) {
		const struct pcache *pc = rc_probe(&g->rc[i], probe);

		if (!pc || !(pc->val[k] > 0))
			continue;
		x[n++] = log(pc->val[k]);
		*wv += pc->wvar[k];
	}
	if (n)
		*wv /= (double)n;
	return n;
}

/* A group's figure (geometric mean of its runs') and interval: from the
 * spread between its runs when it has two or more (t interval of the mean
 * log, the spread at least what a run varies within), else the run's
 * within-run interval. */
static json_t *group_stat(const struct gview *g, unsigned probe, int k, const struct lw_cmp_opts *o)
{
	double x[LW_CMP_MAX_GROUP_RUNS], wv, mean, var, lo, hi;
	size_t n = group_logs(g, probe, k, x, &wv);
	uint64_t bound = 0;

	/* a run that does not know it (in its histogram's overflow): the
	 * group does not either; the lowest bound of its runs' */
	for (size_t i = 0; k >= 0 && k < LW_NPCT && i < g->n; i++) {
		uint64_t b = hist_pct_bound(rc_probe(&g->rc[i], probe)->cp, k);

		if (b && (!bound || b < bound))
			bound = b;
	}
	if (bound)
		return json_pack("{s:o, s:o, s:I}", "value_ns", json_null(), "ci_ns", json_null(),
				 "above_ns", (json_int_t)bound);
	if (!n)
		return json_pack("{s:o, s:o}", "value_ns", json_null(), "ci_ns", json_null());
	lw_mean_var(x, n, &mean, &var);
	if (n >= 2) {
		double t = gsl_cdf_tdist_Qinv((1 - o->conf) / 2, (double)(n - 1));
		double se = sqrt((var > wv ? var : wv) / (double)n);

		lo = exp(mean - t * se);
		hi = exp(mean + t * se);
		return json_pack("{s:o, s:o, s:s}", "value_ns", jnum(exp(mean)), "ci_ns", jpair(lo, hi),
				 "ci_spread", "between runs");
	}
	{
		const struct pcache *pc = rc_probe(&g->rc[0], probe);

		return json_pack("{s:o, s:o, s:s}", "value_ns", jnum(exp(mean)),
				 "ci_ns", jpair(pc->lo[k], pc->hi[k]), "ci_spread", "within the run");
	}
}

static int group_json(const struct gview *g, size_t index, size_t first,
		      const struct lw_cmp_opts *o, json_t **out)
{
	json_t *j, *runs = json_array(), *probes = json_object();
	const struct lw_crun *r0 = g->rc[0].r;

	for (size_t i = 0; i < g->n; i++)
		json_array_append_new(runs, jint(first + i));
	j = json_pack("{s:I, s:s, s:o, s:I}", "index", (json_int_t)index, "name", g->g->name,
		      "runs", runs, "count", (json_int_t)g->n);
	for (size_t pi = 0; pi < r0->np; pi++) {
		unsigned probe = r0->p[pi].probe;
		json_t *pj, *pcts = json_object();
		struct lw_evt_est e;
		double mx = 0;

		if (!group_has(g, probe))
			continue;
		for (int k = 0; k < LW_NPCT; k++)
			json_object_set_new(pcts, pct_name[k], group_stat(g, probe, k, o));
		for (size_t i = 0; i < g->n; i++) {
			const struct lw_dist *d = &rc_probe(&g->rc[i], probe)->cp->d;

			if (d->n && (double)d->v[d->k - 1] > mx)
				mx = (double)d->v[d->k - 1];
		}
		if (group_evt(g, probe, o, g->rc[0].ident ^ (uint64_t)index, &e) < 0) {
			json_decref(j);
			json_decref(pcts);
			return -1;
		}
		pj = json_pack("{s:o, s:o, s:o, s:o}", "percentiles", pcts,
			       "mean", group_stat(g, probe, ST_MEAN, o), "max_ns", jnum(mx),
			       "worst_case", wc_json(&e, o, g->n >= 2 ?
					"runs, then blocks inside each run" : "blocks of the run"));
		lw_evt_est_free(&e);
		json_object_set_new(probes, lw_probe_name(probe), pj);
	}
	json_object_set_new(j, "probes", probes);
	*out = j;
	return 0;
}

/* ---- the metrics of one comparison ---------------------------------- */

static const char *verdict(int significant, double rel, double practical, int lower_better)
{
	if (!significant || !(fabs(rel) > practical))
		return LW_NSD;
	return (rel > 0) == lower_better ? LW_WORSE : LW_BETTER;
}

static double rel_change(double base, double v)
{
	if (!isfinite(base) || !isfinite(v))
		return NAN;
	if (base == 0)
		return v == 0 ? 0 : (v > 0 ? INFINITY : -INFINITY);
	return v / base - 1;
}

/* A metric object with the fields every metric has. */
static json_t *metric(const char *probe, const char *name, const char *kind, const char *unit,
		      double base, double v)
{
	char full[96];
	double rel = rel_change(base, v);
	json_t *m;

	snprintf(full, sizeof(full), "%s%s%s", probe ? probe : "", probe ? "." : "", name);
	m = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o}", "name", full, "kind", kind,
		      "unit", unit, "baseline", jnum(base), "value", jnum(v),
		      "change", jnum(v - base), "rel", jnum(rel));
	if (probe)
		json_object_set_new(m, "probe", json_string(probe));
	if (isinf(rel))
		json_object_set_new(m, "rel_infinite", json_true());
	return m;
}

static void set_verdict(json_t *m, const char *test, double p, const char *v, const char *note)
{
	json_object_set_new(m, "test", json_string(test));
	json_object_set_new(m, "p", jnum(p));
	json_object_set_new(m, "verdict", json_string(v));
	if (note)
		json_object_set_new(m, "note", json_string(note));
}

static json_t *na_metric(json_t *m, const char *note)
{
	set_verdict(m, "none", NAN, LW_NA, note);
	json_object_set_new(m, "judged_on", json_null());
	json_object_set_new(m, "min_detectable", json_null());
	return m;
}

/*
 * "judged_on": the change a verdict is decided on, {"stat", "value",
 * "practical"}: stat is "rel" (value / baseline - 1) or "rate_rel" (the
 * same of rates); a verdict needs |value| > practical.  When the baseline
 * is 0 the relative change is infinite: the stat is then "change" (value -
 * baseline) and any change beyond 0 matters.
 */
static void judged_on(json_t *m, const char *stat, double value, double practical)
{
	if (isinf(value)) {
		stat = "change";
		value = dval(m, "change");
		practical = 0;
	}
	json_object_set_new(m, "judged_on", json_pack("{s:s, s:o, s:f}", "stat", stat,
			    "value", jnum(value), "practical", practical));
}

struct cmpctx {
	const struct gview *a, *b;	/* baseline, run */
	const json_t *rj;		/* every run's object */
	size_t fa, fb;			/* first run of each group in rj */
	const struct lw_cmp_opts *o;
};

#define ONE_RUN_NOTE "too few runs for a verdict (one a side): each side's figures and " \
		     "within-run intervals only; repeat the runs (see repeats_needed)"

/* The tentative verdict of a between-run test (holm() decides significance),
 * what it was judged on, and the test for the smallest detectable change. */
static void judge(json_t *m, const struct lw_runs_test *t, const char *stat, double judged,
		  double practical, double rate_base)
{
	if (!t->ok) {
		set_verdict(m, "none", NAN, LW_NA, ONE_RUN_NOTE);
		json_object_set_new(m, "judged_on", json_null());
		json_object_set_new(m, "min_detectable", json_null());
		return;
	}
	set_verdict(m, !strcmp(t->method, "welch") ? "runs-welch" : "runs-prediction", t->p,
		    verdict(1, judged, practical, 1), NULL);
	judged_on(m, stat, judged, practical);
	json_object_set_new(m, "runs_test", json_pack("{s:s, s:o, s:o, s:o, s:s, s:o}",
		"method", t->method, "diff", jnum(t->diff), "se", jnum(t->se), "df", jnum(t->df),
		"scale", rate_base >= 0 ? "rate" : "log", "rate_base", jnum(rate_base)));
}

/* A figure judged on the log scale: percentiles, mean, block maxima, power. */
static void log_metric(json_t *ms, const struct cmpctx *c, unsigned probe, const char *name,
		       const char *kind, const char *unit, const double *x, size_t na, double wa,
		       const double *y, size_t nb, double wb)
{
	struct lw_runs_test t;
	double ma, va, mb, vb;
	json_t *m;

	lw_mean_var(x, na, &ma, &va);
	lw_mean_var(y, nb, &mb, &vb);
	m = metric(probe == UINT_MAX ? NULL : lw_probe_name(probe), name, kind, unit, exp(ma), exp(mb));
	json_object_set_new(m, "runs", json_pack("[I, I]", (json_int_t)na, (json_int_t)nb));
	lw_runs_test(x, na, y, nb, wa, wb, c->o->conf, &t);
	json_object_set_new(m, "ci_rel", t.ok ? jpair(expm1(t.lo), expm1(t.hi)) : json_null());
	judge(m, &t, "rel", expm1(t.diff), c->o->practical, -1);
	json_array_append_new(ms, m);
}

static void stat_metric(json_t *ms, const struct cmpctx *c, unsigned probe, int k,
			const char *name, const char *kind)
{
	double x[LW_CMP_MAX_GROUP_RUNS], y[LW_CMP_MAX_GROUP_RUNS], wa, wb;
	size_t na = group_logs(c->a, probe, k, x, &wa), nb = group_logs(c->b, probe, k, y, &wb);

	if (na != c->a->n || nb != c->b->n) {
		json_array_append_new(ms, na_metric(metric(lw_probe_name(probe), name, kind, "ns",
			NAN, NAN), "a run has no such figure"));
		return;
	}
	log_metric(ms, c, probe, name, kind, "ns", x, na, wa, y, nb, wb);
}

/* Events in exposures, one rate per run; a run's rate varies at least as a
 * Poisson count does (mean rate / exposure).  A group's figure is the mean
 * count per run ("baseline", "value"); the counts themselves are kept, per
 * run and in total ("per_run", "baseline_total", "total"). */
static void rate_metric(json_t *ms, const struct cmpctx *c, const char *probe, const char *name,
			const uint64_t *xa, const uint64_t *ea, size_t na,
			const uint64_t *xb, const uint64_t *eb, size_t nb)
{
	double ra[LW_CMP_MAX_GROUP_RUNS], rb[LW_CMP_MAX_GROUP_RUNS];
	double ca = 0, cb = 0, mea = 0, meb = 0, mra, mrb, v, rel;
	uint64_t ta = 0, tb = 0;
	json_t *pa = json_array(), *pb = json_array();
	struct lw_runs_test t;
	json_t *m;

	for (size_t i = 0; i < na; i++) {
		ra[i] = ea[i] ? (double)xa[i] / (double)ea[i] : 0;
		ca += (double)xa[i];
		ta += xa[i];
		mea += (double)ea[i];
		json_array_append_new(pa, jint(xa[i]));
	}
	for (size_t i = 0; i < nb; i++) {
		rb[i] = eb[i] ? (double)xb[i] / (double)eb[i] : 0;
		cb += (double)xb[i];
		tb += xb[i];
		meb += (double)eb[i];
		json_array_append_new(pb, jint(xb[i]));
	}
	ca /= (double)na;
	cb /= (double)nb;
	mea /= (double)na;
	meb /= (double)nb;
	lw_mean_var(ra, na, &mra, &v);
	lw_mean_var(rb, nb, &mrb, &v);
	rel = rel_change(mra, mrb);
	m = metric(probe, name, "count", "count", ca, cb);
	json_object_set_new(m, "runs", json_pack("[I, I]", (json_int_t)na, (json_int_t)nb));
	json_object_set_new(m, "baseline_total", jint(ta));
	json_object_set_new(m, "total", jint(tb));
	json_object_set_new(m, "per_run", json_pack("[o, o]", pa, pb));
	json_object_set_new(m, "baseline_rate", jnum(mra));
	json_object_set_new(m, "rate", jnum(mrb));
	json_object_set_new(m, "rate_rel", jnum(rel));
	if (!(mea > 0) || !(meb > 0)) {
		json_array_append_new(ms, na_metric(m, "no exposure (periods, frames or time)"));
		return;
	}
	lw_runs_test(ra, na, rb, nb, mra / mea, mrb / meb, c->o->conf, &t);
	json_object_set_new(m, "ci_rel", t.ok && mra > 0 ? jpair(t.lo / mra, t.hi / mra) : json_null());
	judge(m, &t, "rate_rel", rel, c->o->practical, mra);
	json_array_append_new(ms, m);
}

/* The samples of every run of a group, pooled (for the informational
 * Mann-Whitney of the distributions); *owned when it was built. */
static int pool_dist(const struct gview *g, unsigned probe, struct lw_dist *out, int *owned)
{
	*owned = 0;
	*out = rc_probe(&g->rc[0], probe)->cp->d;
	for (size_t i = 1; i < g->n; i++) {
		struct lw_dist m;

		if (lw_dist_merge(out, &rc_probe(&g->rc[i], probe)->cp->d, &m) < 0) {
			if (*owned)
				lw_dist_free(out);
			return -1;
		}
		if (*owned)
			lw_dist_free(out);
		*out = m;
		*owned = 1;
	}
	return 0;
}

/* Per run of @g: samples over @thr in samples, missed periods in periods,
 * or dropped samples in samples. */
enum cnt { CNT_OVER, CNT_MISSED, CNT_DROPPED };

static void probe_counts(const struct gview *g, unsigned probe, enum cnt what, uint64_t thr,
			 uint64_t *x, uint64_t *e)
{
	for (size_t i = 0; i < g->n; i++) {
		const struct lw_cprobe *cp = rc_probe(&g->rc[i], probe)->cp;

		x[i] = what == CNT_OVER ? lw_dist_count_above(&cp->d, thr) :
		       what == CNT_MISSED ? cp->missed : cp->dropped;
		e[i] = cp->d.n + (what == CNT_MISSED ? cp->missed : what == CNT_DROPPED ? cp->dropped : 0);
	}
}

/* A figure some run of either group does not know, not a number to judge:
 * percentile @k in its histogram's overflow (@what 0), samples over @thr
 * the histogram cannot count (1).  1 with
 * @note naming the run. */
static int unknown_figure(const struct cmpctx *c, unsigned probe, int k, int what, uint64_t thr,
			  char *note, size_t len)
{
	const struct gview *g[2] = { c->a, c->b };

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < g[s]->n; i++) {
			const struct lw_cprobe *cp = rc_probe(&g[s]->rc[i], probe)->cp;
			const char *run = g[s]->rc[i].r->label;
			uint64_t b;
			int known;

			if (what == 0 && (b = hist_pct_bound(cp, k))) {
				snprintf(note, len, "not known: %s of %s is in its histogram's overflow "
					 "(%.0f us or more)", pct_name[k], run, (double)b / 1e3);
				return 1;
			}
			if (what == 1 && cp->from_hist &&
			    (lw_hist_count_above(&cp->hist, thr, &known), !known)) {
				snprintf(note, len, "not known: the histogram of %s cannot count the "
					 "samples above %.0f us", run, (double)thr / 1e3);
				return 1;
			}
		}
	return 0;
}

static int probe_metrics(json_t *ms, const struct cmpctx *c, unsigned probe, const json_t *ga,
			 const json_t *gb)
{
	const struct lw_cmp_opts *o = c->o;
	const char *pn = lw_probe_name(probe);
	uint64_t xa[LW_CMP_MAX_GROUP_RUNS], ea[LW_CMP_MAX_GROUP_RUNS];
	uint64_t xb[LW_CMP_MAX_GROUP_RUNS], eb[LW_CMP_MAX_GROUP_RUNS];
	size_t na = c->a->n, nb = c->b->n;
	struct lw_dist da, db;
	int oa, ob, empty = 0;
	struct lw_mwu u;
	json_t *m, *wa, *wb;
	char name[48], note[200];

	for (size_t i = 0; i < na; i++)
		empty |= !rc_probe(&c->a->rc[i], probe)->cp->d.n;
	for (size_t i = 0; i < nb; i++)
		empty |= !rc_probe(&c->b->rc[i], probe)->cp->d.n;
	if (empty) {
		json_array_append_new(ms, na_metric(metric(pn, "distribution", "distribution", "ns",
							   NAN, NAN), "a run has no samples"));
		return 0;
	}
	for (int k = 0; k < LW_NPCT; k++) {
		double tail = 1 - lw_pct[k] / 100;
		uint64_t fewest = UINT64_MAX;

		if (unknown_figure(c, probe, k, 0, 0, note, sizeof(note))) {
			json_array_append_new(ms, na_metric(metric(pn, pct_name[k], "percentile", "ns",
				NAN, NAN), note));
			continue;
		}

		for (size_t i = 0; i < na + nb; i++) {
			uint64_t n = (i < na ? rc_probe(&c->a->rc[i], probe) :
				      rc_probe(&c->b->rc[i - na], probe))->cp->d.n;

			if (n < fewest)
				fewest = n;
		}
		if ((double)fewest * tail < 10) {
			double x[LW_CMP_MAX_GROUP_RUNS], y[LW_CMP_MAX_GROUP_RUNS], w, ma, mb, v;
			size_t nx = group_logs(c->a, probe, k, x, &w), ny = group_logs(c->b, probe, k, y, &w);

			lw_mean_var(x, nx, &ma, &v);
			lw_mean_var(y, ny, &mb, &v);
			snprintf(note, sizeof(note), "fewer than 10 samples beyond %s in a run: not tested",
				 pct_name[k]);
			json_array_append_new(ms, na_metric(metric(pn, pct_name[k], "percentile", "ns",
				exp(ma), exp(mb)), note));
			continue;
		}
		stat_metric(ms, c, probe, k, pct_name[k], "percentile");
	}
	stat_metric(ms, c, probe, ST_MEAN, "mean", "mean");

	m = metric(pn, "max", "max", "ns", dval(json_object_get(json_object_get(ga, "probes"), pn),
		   "max_ns"), dval(json_object_get(json_object_get(gb, "probes"), pn), "max_ns"));
	json_array_append_new(ms, na_metric(m, "a single extreme is not tested: see blockmax and worst"));

	{
		size_t fewest = SIZE_MAX;

		for (size_t i = 0; i < na + nb; i++) {
			size_t n = (i < na ? rc_probe(&c->a->rc[i], probe) :
				    rc_probe(&c->b->rc[i - na], probe))->nbm;

			if (n < fewest)
				fewest = n;
		}
		if (fewest < 10) {
			snprintf(note, sizeof(note), "%zu blocks in a run: at least 10 needed", fewest);
			m = metric(pn, "blockmax", "block-maxima", "ns", NAN, NAN);
			json_object_set_new(m, "block_ns", jint(o->block_ns));
			json_array_append_new(ms, na_metric(m, note));
		} else {
			stat_metric(ms, c, probe, ST_BLOCKMAX, "blockmax", "block-maxima");
			json_object_set_new(json_array_get(ms, json_array_size(ms) - 1), "block_ns",
					    jint(o->block_ns));
		}
	}

	wa = json_object_get(json_object_get(json_object_get(ga, "probes"), pn), "worst_case");
	wb = json_object_get(json_object_get(json_object_get(gb, "probes"), pn), "worst_case");
	m = metric(pn, "worst", "worst-case", "ns", dval(wa, "return_level_ns"),
		   dval(wb, "return_level_ns"));
	json_object_set_new(m, "horizon_ns", jint(o->horizon_ns));
	if (!json_is_true(json_object_get(wa, "estimated")) ||
	    !json_is_true(json_object_get(wb, "estimated"))) {
		snprintf(note, sizeof(note), "not extrapolated: %s: %s",
			 json_is_true(json_object_get(wa, "estimated")) ? "run" : "baseline",
			 json_string_value(json_object_get(json_is_true(json_object_get(wa, "estimated")) ?
				 wb : wa, "reason")) ?: "?");
		na_metric(m, note);
	} else {
		json_object_set_new(m, "ci_ns", json_pack("[O, O]", json_object_get(wa, "ci_ns"),
							  json_object_get(wb, "ci_ns")));
		na_metric(m, "an extrapolation: shown with each group's interval (runs and blocks "
			  "resampled), not judged; rules can judge it");
	}
	json_array_append_new(ms, m);

	if (pool_dist(c->a, probe, &da, &oa) < 0)
		return -1;
	if (pool_dist(c->b, probe, &db, &ob) < 0) {
		if (oa)
			lw_dist_free(&da);
		return -1;
	}
	lw_mwu(&da, &db, &u);
	m = metric(pn, "distribution", "distribution", "ns", median_of(&da), median_of(&db));
	json_object_set_new(m, "u_b", jnum(u.u_b));
	json_object_set_new(m, "z", jnum(u.z));
	json_object_set_new(m, "mwu_p", jnum(u.p));
	json_object_set_new(m, "cliffs_delta", jnum(u.cliffs_delta));
	json_object_set_new(m, "prob_superiority", jnum(u.ps));
	na_metric(m, "every sample pooled, shown, not judged: samples inside a run are dependent "
		  "(the percentiles are judged from per-run figures)");
	json_array_append_new(ms, m);
	if (oa)
		lw_dist_free(&da);
	if (ob)
		lw_dist_free(&db);

	for (size_t t = 0; t < o->nthr; t++) {
		char d[32];

		snprintf(name, sizeof(name), "over:%s", lw_format_threshold(o->thr[t], d, sizeof(d)));
		if (unknown_figure(c, probe, -1, 1, o->thr[t], note, sizeof(note))) {
			m = metric(pn, name, "count", "count", NAN, NAN);
			json_object_set_new(m, "threshold_ns", jint(o->thr[t]));
			json_array_append_new(ms, na_metric(m, note));
			continue;
		}
		probe_counts(c->a, probe, CNT_OVER, o->thr[t], xa, ea);
		probe_counts(c->b, probe, CNT_OVER, o->thr[t], xb, eb);
		rate_metric(ms, c, pn, name, xa, ea, na, xb, eb, nb);
		json_object_set_new(json_array_get(ms, json_array_size(ms) - 1), "threshold_ns",
				    jint(o->thr[t]));
	}
	{
		int ka = 1, kb = 1;

		for (size_t i = 0; i < na; i++)
			ka &= missed_known(c->a->rc[i].r, probe);
		for (size_t i = 0; i < nb; i++)
			kb &= missed_known(c->b->rc[i].r, probe);
		if (!ka || !kb) {
			/* the side that counted them shows its count */
			uint64_t ta = 0, tb = 0;

			probe_counts(c->a, probe, CNT_MISSED, 0, xa, ea);
			probe_counts(c->b, probe, CNT_MISSED, 0, xb, eb);
			for (size_t i = 0; i < na; i++)
				ta += xa[i];
			for (size_t i = 0; i < nb; i++)
				tb += xb[i];
			m = metric(pn, "missed", "count", "count", ka ? (double)ta / (double)na : NAN,
				   kb ? (double)tb / (double)nb : NAN);
			json_object_set_new(m, "runs", json_pack("[I, I]", (json_int_t)na, (json_int_t)nb));
			json_object_set_new(m, "baseline_total", ka ? jint(ta) : json_null());
			json_object_set_new(m, "total", kb ? jint(tb) : json_null());
			json_array_append_new(ms, na_metric(m, !ka && !kb ? "unknown: the runs did not "
				"count missed periods (imported)" : !ka ? "unknown: the baseline did not "
				"count missed periods (imported)" : "unknown: the run did not count missed "
				"periods (imported)"));
		} else {
			probe_counts(c->a, probe, CNT_MISSED, 0, xa, ea);
			probe_counts(c->b, probe, CNT_MISSED, 0, xb, eb);
			rate_metric(ms, c, pn, "missed", xa, ea, na, xb, eb, nb);
		}
	}
	probe_counts(c->a, probe, CNT_DROPPED, 0, xa, ea);
	probe_counts(c->b, probe, CNT_DROPPED, 0, xb, eb);
	rate_metric(ms, c, pn, "dropped", xa, ea, na, xb, eb, nb);
	return 0;
}

static uint64_t geti(const json_t *o, const char *k, int *have)
{
	json_t *v = json_object_get(o, k);

	*have = json_is_integer(v);
	return *have ? (uint64_t)json_integer_value(v) : 0;
}

/* A record kind's misses (xruns, dropped frames): events in exposures
 * (periods, frames; the run's duration in ms when those are unknown), one
 * rate per run. */
static void event_metric(json_t *ms, const struct cmpctx *c, const char *name, const char *key,
			 const char *exposure)
{
	uint64_t x[2][LW_CMP_MAX_GROUP_RUNS], e[2][LW_CMP_MAX_GROUP_RUNS];
	size_t n[2] = { c->a->n, c->b->n }, first[2] = { c->fa, c->fb };
	int missing[2] = { 0, 0 };

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < n[s]; i++) {
			const json_t *r = json_array_get(c->rj, first[s] + i);
			const json_t *w = json_object_get(r, "workloads");
			int hx, he, hd;

			x[s][i] = geti(w, key, &hx);
			e[s][i] = geti(w, exposure, &he);
			if (!hx)
				missing[s] = 1;
			if (!he || !e[s][i])
				e[s][i] = geti(r, "duration_ns", &hd) / LW_NSEC_PER_MSEC;
		}
	if (missing[0] || missing[1]) {
		json_array_append_new(ms, na_metric(metric(NULL, name, "count", "count", NAN, NAN),
			missing[0] && missing[1] ? "not recorded" : missing[0] ?
			"not recorded in the baseline" : "not recorded in the run"));
		return;
	}
	rate_metric(ms, c, NULL, name, x[0], e[0], n[0], x[1], e[1], n[1]);
}

static void power_metric(json_t *ms, const struct cmpctx *c)
{
	double v[2][LW_CMP_MAX_GROUP_RUNS], fl[2] = { 0, 0 };
	size_t n[2] = { c->a->n, c->b->n }, first[2] = { c->fa, c->fb };
	int missing[2] = { 0, 0 };

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < n[s]; i++) {
			const json_t *p = json_object_get(json_array_get(c->rj, first[s] + i), "power");
			double w = dval(p, "mean_w"), sd = dval(p, "stddev_w"), k = dval(p, "samples");

			if (!(w > 0)) {
				missing[s] = 1;
				continue;
			}
			v[s][i] = log(w);
			/* what the run's own average varies by, as a floor */
			if (sd > 0 && k > 1)
				fl[s] += sd * sd / (w * w * k) / (double)n[s];
		}
	if (missing[0] || missing[1]) {
		json_array_append_new(ms, na_metric(metric(NULL, "power", "power", "W", NAN, NAN),
						    "not recorded"));
		return;
	}
	log_metric(ms, c, UINT_MAX, "power", "power", "W", v[0], n[0], fl[0], v[1], n[1], fl[1]);
}

/* idle residency and spike causes: the groups' mean shares side by side,
 * neither direction better */
static void share_metrics(json_t *ms, const struct cmpctx *c, const char *key, const char *prefix)
{
	json_t *sum[2] = { json_object(), json_object() };
	size_t n[2] = { c->a->n, c->b->n }, first[2] = { c->fa, c->fb };
	int any = 0;
	const char *k;
	json_t *v;
	char name[96];

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < n[s]; i++) {
			const json_t *o = json_object_get(json_array_get(c->rj, first[s] + i), key);

			if (!json_is_object(o))
				continue;
			any = 1;
			json_object_foreach((json_t *)o, k, v) {
				double before = dval(sum[s], k);

				json_object_set_new(sum[s], k, json_real((isfinite(before) ? before : 0) +
						    json_number_value(v) / (double)n[s]));
			}
		}
	if (!any) {
		json_array_append_new(ms, na_metric(metric(NULL, prefix, "info", "fraction", NAN, NAN),
						    "not recorded"));
	} else {
		for (int pass = 0; pass < 2; pass++)
			json_object_foreach(sum[pass], k, v) {
				if (pass && json_object_get(sum[0], k))
					continue;
				snprintf(name, sizeof(name), "%s:%s", prefix, k);
				json_array_append_new(ms, na_metric(metric(NULL, name, "info", "fraction",
					dval(sum[0], k), dval(sum[1], k)),
					"informational: neither direction is better"));
			}
	}
	json_decref(sum[0]);
	json_decref(sum[1]);
}

struct tested {
	json_t *m;
	double p;
};

static int cmp_tested(const void *a, const void *b)
{
	double x = ((const struct tested *)a)->p, y = ((const struct tested *)b)->p;

	return x < y ? -1 : x > y;
}

/*
 * Holm's step-down adjustment over the tested metrics of one comparison, so
 * that the chance of any verdict at all between two groups of runs of one
 * system stays below alpha (a comparison tests a dozen metrics or more).
 * Adds "p_adjusted", turns verdicts whose adjusted p is not below alpha into
 * "no significant difference", and gives each tested metric the smallest
 * change it would have found (power 0.8 at alpha over the number tested,
 * the first step of Holm's).
 */
static int holm(json_t *ms, double alpha)
{
	size_t n = json_array_size(ms), k = 0, i;
	struct tested *t = malloc((n ? n : 1) * sizeof(*t));
	double run_max = 0;
	json_t *m;

	if (!t)
		return error("out of memory");
	json_array_foreach(ms, i, m) {
		json_t *p = json_object_get(m, "p");

		if (!strcmp(json_string_value(json_object_get(m, "verdict")), LW_NA) || !json_is_number(p))
			continue;
		t[k].m = m;
		t[k++].p = json_number_value(p);
	}
	qsort(t, k, sizeof(*t), cmp_tested);
	for (i = 0; i < k; i++) {
		double adj = (double)(k - i) * t[i].p;
		const json_t *rt = json_object_get(t[i].m, "runs_test");
		struct lw_runs_test rtest = { .ok = 1, .se = dval(rt, "se"), .df = dval(rt, "df") };
		double mdc = lw_runs_mdc(&rtest, alpha / (double)k, POWER), base = dval(rt, "rate_base");
		int rate = !strcmp(json_string_value(json_object_get(rt, "scale")) ?: "", "rate");

		if (adj > 1)
			adj = 1;
		if (adj > run_max)
			run_max = adj;
		json_object_set_new(t[i].m, "p_adjusted", json_real(run_max));
		if (!(run_max < alpha))
			json_object_set_new(t[i].m, "verdict", json_string(LW_NSD));
		json_object_set_new(t[i].m, "min_detectable", json_pack("{s:s, s:o, s:f, s:f}",
			"stat", rate ? "rate_rel" : "rel",
			"value", rate ? (base > 0 ? jnum(mdc / base) : json_null()) : jnum(expm1(mdc)),
			"power", POWER, "alpha", alpha / (double)k));
	}
	free(t);
	return 0;
}

/* With one run a side, how many runs a side would find a --practical change
 * of the percentiles and the mean: from what a run varies within itself, a
 * lower bound (runs also differ from one another). */
static unsigned repeats_needed(const struct cmpctx *c, const unsigned *probes, size_t np)
{
	unsigned need = 3;
	size_t tested = 0;

	for (size_t p = 0; p < np; p++)
		tested += LW_NPCT + 1;
	for (size_t p = 0; p < np; p++)
		for (int k = 0; k <= ST_MEAN; k++) {
			double x[LW_CMP_MAX_GROUP_RUNS], wa, wb;
			unsigned r;

			if (k < LW_NPCT && (double)rc_probe(&c->a->rc[0], probes[p])->cp->d.n *
			    (1 - lw_pct[k] / 100) < 10)
				continue;
			group_logs(c->a, probes[p], k, x, &wa);
			group_logs(c->b, probes[p], k, x, &wb);
			r = lw_runs_needed(sqrt(wa > wb ? wa : wb), log1p(c->o->practical),
					   c->o->alpha / (double)(tested ? tested : 1), POWER);
			if (r > need)
				need = r;
		}
	return need;
}

static json_t *comparison_json(const struct cmpctx *c, const json_t *ga, const json_t *gb,
			       size_t ib, size_t ir)
{
	json_t *ms = json_array(), *cj;
	const struct lw_crun *r0 = c->a->rc[0].r;
	const struct lw_rkind *k;
	unsigned probes[LW_PROBE_MAX];
	size_t np = 0;
	struct lw_runs_test t;
	double one = 0;

	for (size_t i = 0; i < r0->np; i++)
		if (group_has(c->a, r0->p[i].probe) && group_has(c->b, r0->p[i].probe)) {
			if (probe_metrics(ms, c, r0->p[i].probe, ga, gb) < 0) {
				json_decref(ms);
				return NULL;
			}
			if (np < LW_PROBE_MAX)
				probes[np++] = r0->p[i].probe;
		}
	for (size_t i = 0; (k = lw_rkind_at(i)); i++)
		event_metric(ms, c, k->metric, k->metric, k->total_key);
	power_metric(ms, c);
	share_metrics(ms, c, "idle", "idle");
	share_metrics(ms, c, "causes", "cause");
	if (holm(ms, c->o->alpha) < 0) {
		json_decref(ms);
		return NULL;
	}
	lw_runs_test(&one, c->a->n, &one, c->b->n, 0, 0, 0.95, &t);
	cj = json_pack("{s:I, s:I, s:s, s:s, s:[I, I], s:b}", "run", (json_int_t)ir,
		       "baseline", (json_int_t)ib, "label", c->b->g->name,
		       "baseline_label", c->a->g->name,
		       "runs", (json_int_t)c->a->n, (json_int_t)c->b->n, "verdicts", t.ok);
	json_object_set_new(cj, "repeats_needed", t.ok ? json_null() :
			    json_integer(repeats_needed(c, probes, np)));
	json_object_set_new(cj, "metrics", ms);
	return cj;
}

json_t *lw_compare_groups(const struct lw_crun *runs, const struct lw_cgroup *groups, size_t ng,
			  size_t baseline, const struct lw_cmp_opts *o)
{
	size_t n = 0, i;
	struct rcache *rc;
	struct gview *gv;
	json_t *doc = NULL, *rj = NULL, *gj = NULL, *cj = NULL, *thr;

	for (i = 0; i < ng; i++) {
		if (!groups[i].n || groups[i].first != n)
			return error("compare: group '%s' has no runs", groups[i].name), NULL;
		if (groups[i].n > LW_CMP_MAX_GROUP_RUNS)
			return error("compare: group '%s': at most %d runs", groups[i].name,
				     LW_CMP_MAX_GROUP_RUNS), NULL;
		n += groups[i].n;
	}
	if (ng < 2 || baseline >= ng) {
		error("compare: two runs or groups at least, and a baseline among them");
		return NULL;
	}
	rc = calloc(n, sizeof(*rc));
	gv = calloc(ng, sizeof(*gv));
	if (!rc || !gv) {
		error("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		if (rcache_fill(&rc[i], &runs[i], o, rc, i) < 0)
			goto out;
	rj = json_array();
	gj = json_array();
	for (size_t g = 0; g < ng; g++) {
		json_t *one;

		gv[g].g = &groups[g];
		gv[g].rc = rc + groups[g].first;
		gv[g].n = groups[g].n;
		for (i = 0; i < groups[g].n; i++)
			json_array_append_new(rj, run_json(&rc[groups[g].first + i], groups[g].first + i,
							   g, o));
		if (group_json(&gv[g], g, groups[g].first, o, &one) < 0)
			goto out;
		json_array_append_new(gj, one);
	}
	cj = json_array();
	for (size_t g = 0; g < ng; g++) {
		struct cmpctx c = { &gv[baseline], &gv[g], rj, groups[baseline].first, groups[g].first, o };
		json_t *one;

		if (g == baseline)
			continue;
		one = comparison_json(&c, json_array_get(gj, baseline), json_array_get(gj, g), baseline, g);
		if (!one)
			goto out;
		json_array_append_new(cj, one);
	}
	thr = json_array();
	for (i = 0; i < o->nthr; i++)
		json_array_append_new(thr, jint(o->thr[i]));
	doc = json_pack("{s:s, s:i, s:{s:s, s:s}, s:{s:f, s:f, s:f, s:I, s:I, s:o, s:s, s:s, s:s,"
			" s:s, s:I, s:f, s:{s:s, s:I, s:I, s:I}}, s:I, s:O, s:O, s:O}",
		"schema", LW_COMPARISON_SCHEMA, "version", LW_COMPARISON_VERSION,
		"tool", "name", "latwatt", "version", LW_VERSION,
		"settings", "alpha", o->alpha, "practical", o->practical,
		"confidence", o->conf, "resamples", (json_int_t)o->resamples,
		"seed", (json_int_t)o->seed, "thresholds_ns", thr,
		"inference", "t test on per-run figures (log scale for latencies and power, rates for "
			     "counts; Welch, or the prediction of one run from a set), Holm over the metrics",
		"percentile_ci", "within a run: block bootstrap (100 ms blocks, doubled until a run has at most 1024; "
		"values to 1/256 of a power of two); a group: t interval over its runs",
		"percentile_rule", "nearest rank",
		"within_run_method", "block bootstrap",
		"boot_block_ns", (json_int_t)LW_BOOT_BLOCK_NS, "power", POWER,
		"evt", "model", lw_evt_model_name(o->model), "block_ns", (json_int_t)o->block_ns,
		"horizon_ns", (json_int_t)o->horizon_ns, "min_blocks", (json_int_t)o->min_blocks,
		"baseline", (json_int_t)baseline, "runs", rj, "groups", gj, "comparisons", cj);
	if (!doc)
		error("compare: cannot build the comparison document");
	else
		json_object_set_new(doc, "baseline_run", jint(groups[baseline].first));
out:
	json_decref(rj);
	json_decref(gj);
	json_decref(cj);
	for (i = 0; rc && i < n; i++)
		rcache_free(&rc[i]);
	free(rc);
	free(gv);
	return doc;
}

json_t *lw_compare(const struct lw_crun *runs, size_t n, size_t baseline,
		   const struct lw_cmp_opts *o)
{
	struct lw_cgroup *g = calloc(n ? n : 1, sizeof(*g));
	json_t *doc;

	if (!g) {
		error("out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		g[i].name = runs[i].label;
		g[i].first = i;
		g[i].n = 1;
	}
	doc = lw_compare_groups(runs, g, n, baseline, o);
	free(g);
	return doc;
}

/* ---- text ------------------------------------------------------------- */

static const char *sval(const json_t *o, const char *k, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s && *s ? s : dflt;
}

static double dval(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A value in the metric's unit into @buf: latencies in us.  A figure the
 * runs do not have is "unknown" when they did not count it, "not recorded"
 * when they had nothing to count (no such workload), else "-" (not
 * computed: the note says why). */
static const char *fmt_val(double v, const char *unit, const char *note, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "%s", !note ? "-" : !strncmp(note, "unknown", 7) ? "unknown" :
			 !strncmp(note, "not recorded", 12) ? "not recorded" : "-");
	else if (!strcmp(unit, "ns"))
		snprintf(buf, len, "%.1f", v / 1e3);
	else if (!strcmp(unit, "count"))
		snprintf(buf, len, "%.0f", v);
	else if (!strcmp(unit, "W"))
		snprintf(buf, len, "%.3fW", v);
	else
		snprintf(buf, len, "%.3f", v);
	return buf;
}

/* "[lo,hi]" scaled, with @prec decimals; percentages signed */
static const char *fmt_ci(const json_t *pair, double scale, int prec, int pct, char *buf, size_t len)
{
	double lo = json_number_value(json_array_get(pair, 0)) * scale;
	double hi = json_number_value(json_array_get(pair, 1)) * scale;

	if (!json_is_array(pair))
		buf[0] = 0;
	else if (pct)
		snprintf(buf, len, "[%+.*f%%,%+.*f%%]", prec, lo, prec, hi);
	else
		snprintf(buf, len, " [%.*f,%.*f]", prec, lo, prec, hi);
	return buf;
}

static const char *fmt_p(double p, char *buf, size_t len)
{
	if (!isfinite(p))
		snprintf(buf, len, "-");
	else if (p < 0.001)
		snprintf(buf, len, "<0.001");
	else
		snprintf(buf, len, "%.3f", p);
	return buf;
}

/* A side's per-run counts into @buf (64 bytes or more): all of them when
 * they fit its column of 24, else the first few and "(first N of M)". */
static const char *fmt_counts(const json_t *counts, char *buf, size_t len)
{
	size_t n = json_array_size(counts), i, used = 0, room = 24;
	const json_t *v;

	for (int pass = 0; pass < 2; pass++, room = 10) {
		used = 0;
		buf[0] = 0;
		json_array_foreach(counts, i, v) {
			char one[24];
			int w = snprintf(one, sizeof(one), "%s%" JSON_INTEGER_FORMAT, i ? " " : "",
					 json_integer_value(v));

			if (used + (size_t)w > room && i)
				break;
			memcpy(buf + used, one, (size_t)w + 1);
			used += (size_t)w;
		}
		if (i == n)
			return buf;
	}
	snprintf(buf + used, len - used, " (first %zu of %zu)", i, n);
	return buf;
}

static void print_metric(FILE *out, const json_t *m, const json_t *ra, const json_t *rb)
{
	const char *name = sval(m, "name", "?"), *unit = sval(m, "unit", ""), *kind = sval(m, "kind", "");
	const char *probe = sval(m, "probe", NULL), *short_name = name, *note = sval(m, "note", NULL);
	char a[64], b[64], ch[32], ci[48], p[16], ca[48], cb[48], label[64], md[16];
	double rel = dval(m, "rel"), mdc;
	const json_t *pa = NULL, *pb = NULL, *runs = json_object_get(m, "runs");
	int grouped = json_integer_value(json_array_get(runs, 0)) > 1 ||
		      json_integer_value(json_array_get(runs, 1)) > 1;

	if (probe) {
		short_name = name + strlen(probe) + 1;
		pa = json_object_get(json_object_get(ra, "probes"), probe);
		pb = json_object_get(json_object_get(rb, "probes"), probe);
	}
	snprintf(label, sizeof(label), "%s", short_name);
	fmt_val(dval(m, "baseline"), unit, note, a, sizeof(a));
	fmt_val(dval(m, "value"), unit, note, b, sizeof(b));
	ca[0] = cb[0] = 0;
	if (!strcmp(kind, "percentile")) {
		fmt_ci(json_object_get(json_object_get(json_object_get(pa, "percentiles"), short_name),
				       "ci_ns"), 1e-3, 1, 0, ca, sizeof(ca));
		fmt_ci(json_object_get(json_object_get(json_object_get(pb, "percentiles"), short_name),
				       "ci_ns"), 1e-3, 1, 0, cb, sizeof(cb));
	} else if (!strcmp(kind, "worst-case")) {
		fmt_ci(json_object_get(json_object_get(pa, "worst_case"), "ci_ns"), 1e-3, 0, 0,
		       ca, sizeof(ca));
		fmt_ci(json_object_get(json_object_get(pb, "worst_case"), "ci_ns"), 1e-3, 0, 0,
		       cb, sizeof(cb));
		char h[32];
		lw_format_duration((uint64_t)dval(m, "horizon_ns"), h, sizeof(h));
		snprintf(label, sizeof(label), "worst/%s est.", h);
	} else if (!strcmp(kind, "block-maxima")) {
		char h[32];
		lw_format_duration((uint64_t)dval(m, "block_ns"), h, sizeof(h));
		snprintf(label, sizeof(label), "max per %s", h);
	} else if (!strcmp(kind, "count") && json_object_get(m, "total")) {
		/* counts as counts: a group's total over its runs, and the mean of
		 * the runs' rates (what the verdict is judged on) */
		fmt_val(dval(m, "baseline_total"), unit, note, a, sizeof(a));
		fmt_val(dval(m, "total"), unit, note, b, sizeof(b));
		if (isfinite(dval(m, "baseline_rate")))
			snprintf(ca, sizeof(ca), " (%.3g%%)", dval(m, "baseline_rate") * 100);
		if (isfinite(dval(m, "rate")))
			snprintf(cb, sizeof(cb), " (%.3g%%)", dval(m, "rate") * 100);
		if (json_object_get(m, "rate_rel"))
			rel = dval(m, "rate_rel");
	} else if (!strcmp(kind, "distribution")) {
		snprintf(ca, sizeof(ca), " (median)");
		snprintf(cb, sizeof(cb), " (median)");
	}
	strncat(a, ca, sizeof(a) - strlen(a) - 1);
	strncat(b, cb, sizeof(b) - strlen(b) - 1);
	if (json_is_true(json_object_get(m, "rel_infinite")) ||
	    (!strcmp(kind, "count") && isinf(rel)))
		snprintf(ch, sizeof(ch), "new");
	else if (isfinite(rel))
		snprintf(ch, sizeof(ch), "%+.1f%%", rel * 100);
	else
		snprintf(ch, sizeof(ch), "-");
	if (!strcmp(kind, "distribution"))
		snprintf(ci, sizeof(ci), "delta %+.3f", dval(m, "cliffs_delta"));
	else
		fmt_ci(json_object_get(m, "ci_rel"), 100, 1, 1, ci, sizeof(ci));
	mdc = dval(json_object_get(m, "min_detectable"), "value");
	if (isfinite(mdc) && mdc > 10)
		snprintf(md, sizeof(md), ">1000%%");
	else if (isfinite(mdc))
		snprintf(md, sizeof(md), "%.0f%%", mdc * 100);
	else
		snprintf(md, sizeof(md), "-");
	/* the p the verdict was decided on: Holm-adjusted */
	fprintf(out, "  %-15s %-24s %-24s %8s %-19s %8s %6s  %s\n", label, a, b, ch, ci,
		fmt_p(dval(m, "p_adjusted"), p, sizeof(p)), md, sval(m, "verdict", "?"));
	if (!strcmp(kind, "count") && grouped && json_is_array(json_object_get(m, "per_run"))) {
		const json_t *per = json_object_get(m, "per_run");

		fmt_counts(json_array_get(per, 0), a, sizeof(a));
		fmt_counts(json_array_get(per, 1), b, sizeof(b));
		fprintf(out, "  %-15s %-24s %s\n", "  per run", a, b);
	}
}

void lw_compare_print(const json_t *doc, FILE *out)
{
	const json_t *runs = json_object_get(doc, "runs"), *groups = json_object_get(doc, "groups");
	const json_t *r, *c, *g;
	size_t i, j, base = (size_t)json_integer_value(json_object_get(doc, "baseline"));
	const json_t *set = json_object_get(doc, "settings");

	fprintf(out, "%-3s %-28s %-22s %-16s %-9s %-9s %-10s %s\n", "", "run", "kernel", "preempt",
		"nohz_full", "board", "status", "duration");
	json_array_foreach(groups, i, g) {
		const json_t *idx;

		if (json_array_size(json_object_get(g, "runs")) > 1)
			fprintf(out, "%c%c  group %s: %zu runs\n", (int)('A' + (i % 26)),
				i == base ? '*' : ' ', sval(g, "name", "?"),
				json_array_size(json_object_get(g, "runs")));
		json_array_foreach(json_object_get(g, "runs"), j, idx) {
			char d[32] = "?";
			json_t *dur;

			r = json_array_get(runs, (size_t)json_integer_value(idx));
			dur = json_object_get(r, "duration_ns");
			if (json_is_integer(dur))
				lw_format_duration((uint64_t)json_integer_value(dur), d, sizeof(d));
			int head = !j && json_array_size(json_object_get(g, "runs")) == 1;

			fprintf(out, "%c%c  %-28s %-22s %-16s %-9s %-9s %-10s %s\n",
				head ? (int)('A' + (i % 26)) : ' ', head && i == base ? '*' : ' ',
				sval(r, "label", "?"), sval(r, "kernel_release", "?"),
				sval(r, "preempt_model", "?"), sval(r, "nohz_full", "off"),
				sval(r, "board", "?"), sval(r, "status", "?"), d);
		}
	}
	fprintf(out, "(* baseline; latencies in us; a group's latency or power is the geometric "
		"mean of its runs', a count\n the total over its runs (with the mean of their rates), "
		"a share the mean; %.0f%% intervals;\n verdicts from the spread between runs: p, "
		"adjusted by Holm over the metrics tested, < %g\n and a change beyond %.0f%%; mdc: "
		"smallest change these runs detect)\n",
		dval(set, "confidence") * 100, dval(set, "alpha"), dval(set, "practical") * 100);
	runs = groups;		/* the figures printed are the groups' */
	json_array_foreach(json_object_get(doc, "comparisons"), i, c) {
		size_t ir = (size_t)json_integer_value(json_object_get(c, "run")), k;
		const json_t *ra = json_array_get(runs, base), *rb = json_array_get(runs, ir), *m;
		const char *probe = "";

		json_array_foreach(json_object_get(c, "metrics"), k, m) {
			const char *mp = sval(m, "probe", "");

			if (!k || strcmp(mp, probe)) {
				probe = mp;
				fprintf(out, "\n%c vs %c%s%s\n", (int)('A' + (ir % 26)), (int)('A' + (base % 26)),
					*probe ? ": probe " : ": workloads, power, idle, causes",
					probe);
				fprintf(out, "  %-15s %-24s %-24s %8s %-19s %8s %6s  %s\n", "metric",
					"baseline", "run", "change", "CI of change", "p (Holm)", "mdc",
					"verdict");
			}
			print_metric(out, m, ra, rb);
		}
		if (json_is_false(json_object_get(c, "verdicts")))
			fprintf(out, "  no verdict: too few runs to measure how runs vary from one "
				"another;\n  repeat the runs (run --repeat): at least %" JSON_INTEGER_FORMAT
				" a side for a %.0f%% change here\n",
				json_integer_value(json_object_get(c, "repeats_needed")),
				dval(set, "practical") * 100);
		/* why worst-case estimates were refused, once per probe */
		const char *pn;
		json_t *pj;
		json_object_foreach(json_object_get(rb, "probes"), pn, pj) {
			json_t *wc = json_object_get(pj, "worst_case");

			if (json_is_false(json_object_get(wc, "estimated")))
				fprintf(out, "  note: %s worst case of %c not extrapolated: %s\n", pn,
					(int)('A' + (ir % 26)), sval(wc, "reason", "?"));
		}
	}
	if (json_array_size(json_object_get(doc, "rules"))) {
		const char *res = sval(doc, "result", "?");

		fprintf(out, "\nrules\n");
		json_array_foreach(json_object_get(doc, "rules"), i, r)
			fprintf(out, "  %-9s %-24s %s\n", sval(r, "result", "?"), sval(r, "rule", "?"),
				sval(r, "detail", ""));
		fprintf(out, "result: %s%s\n", res, !strcmp(res, "undecided") ?
			" (no rule could be judged: this is not a pass)" : "");
	}
}
