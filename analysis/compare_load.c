// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runs to compare: loaded from a run directory (samples, manifest,
 * analysis.json) or a directory of repeats, with the largest latency of
 * each stretch of the run (block maxima) and the blocks of the within-run
 * bootstrap (struct lw_bseries) built as the samples are read.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
#include "lib/sort.h"

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
	p->cpu_id = -1;
	p->no_cpu = "the run has no per-CPU figures";
	return p;
}

/* Add CPU @cpu to probe @p (after those it has: ascending order); NULL
 * after error(). */
static struct lw_cprobe *add_cpu(struct lw_cprobe *p, int cpu)
{
	struct lw_cprobe *c = realloc(p->cpu, (p->ncpu + 1) * sizeof(*c));

	if (!c) {
		error("out of memory");
		return NULL;
	}
	p->cpu = c;
	c = &p->cpu[p->ncpu++];
	memset(c, 0, sizeof(*c));
	c->probe = p->probe;
	c->bmax_ns = LW_BLOCK_BASE_NS;
	c->cpu_id = cpu;
	return c;
}

/* The entry of CPU @cpu of @p, or NULL. */
static struct lw_cprobe *find_cpu(struct lw_cprobe *p, int cpu)
{
	size_t lo = 0, hi = p->ncpu;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->cpu[mid].cpu_id == cpu)
			return &p->cpu[mid];
		if (p->cpu[mid].cpu_id < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void cprobe_free(struct lw_cprobe *p)
{
	lw_dist_free(&p->d);
	lw_hist_free(&p->hist);
	free(p->bmax);
	lw_bseries_free(&p->bs);
	for (size_t i = 0; i < p->ncpu; i++)
		cprobe_free(&p->cpu[i]);
	free(p->cpu);
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
	for (size_t i = 0; i < r->np; i++)
		cprobe_free(&r->p[i]);
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

static int load_block_maxima(struct lw_crun *r, const char *path, const struct lw_hostadj *adj)
{
	size_t adj_cur = 0;
	/* a killed run may end in a partial record, as the summary allowed */
	struct lw_samples_reader *rd = lw_run_samples_open(path, r->manifest, LW_SAMPLES_QUIET);
	struct lw_cprobe *by_id[LW_SAMPLE_MAX] = { 0 };
	struct lw_bbuild bb[LW_SAMPLE_MAX];
	struct lw_cprobe *c;
	struct lw_sample s;
	uint64_t start, rec = 0, limit;
	int ret;

	if (!rd)
		return -1;
	for (unsigned i = 0; i < LW_SAMPLE_MAX; i++)
		lw_bbuild_init(&bb[i]);
	start = lw_samples_start(rd);
	limit = run_blocks(r->manifest, start);
	for (size_t i = 0; i < r->np; i++)
		if (r->p[i].probe < LW_SAMPLE_MAX)
			by_id[r->p[i].probe] = &r->p[i];
	while ((ret = lw_samples_next(rd, &s)) == 1) {
		struct lw_cprobe *p = s.probe < LW_SAMPLE_MAX ? by_id[s.probe] : NULL;
		uint64_t t = s.expected_ns > start ? s.expected_ns - start : 0;
		uint64_t idx = t / LW_BLOCK_BASE_NS;

		s.latency_ns = lw_hostadj_apply(adj && adj->n ? adj : NULL, &adj_cur, rec, s.latency_ns);
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
		if (p->ncpu && (c = find_cpu(p, s.cpu)) && lw_bmax_add(c, t, s.latency_ns) < 0) {
			ret = -1;
			break;
		}
	}
	lw_samples_close_reader(rd);
	for (unsigned i = 0; i < LW_SAMPLE_MAX; i++) {
		if (ret >= 0 && by_id[i] && lw_bbuild_finish(&bb[i], &by_id[i]->bs) < 0)
			ret = -1;
		lw_bbuild_free(&bb[i]);
	}
	if (ret < 0)
		return -1;
	/* trim the unused tail of the doubling */
	for (size_t i = 0; i < r->np; i++) {
		if (lw_bmax_coarsen(&r->p[i], LW_BMAX_CAP) < 0)
			return -1;
		for (size_t j = 0; j < r->p[i].ncpu; j++)
			if (lw_bmax_coarsen(&r->p[i].cpu[j], LW_BMAX_CAP) < 0)
				return -1;
	}
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
	return lw_crun_load_dir_judge(r, path, 0);
}

/* RUN/analysis.json, when there is one, into r->analysis; 0 or -1. */
static int load_analysis(struct lw_crun *r, const struct lw_rundir *rd)
{
	char file[PATH_MAX];

	lw_rundir_file(rd, "analysis.json", file, sizeof(file));
	if (access(file, F_OK) == 0 &&
	    !(r->analysis = lw_json_load_flags(file, LW_IN_NOFOLLOW, LW_CAP_JSON)))
		return -1;
	return 0;
}

int lw_crun_load_dir_judge(struct lw_crun *r, const char *path, int kernel)
{
	struct lw_rundir rd;
	struct lw_summary sum;
	struct lw_hostadj adj = { 0 };
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
	/* judged on the kernel-attributable figures: the host's time that
	 * analyze found in each spike (host.adjust) off its sample */
	if (kernel) {
		if (load_analysis(r, &rd) < 0) {
			lw_rundir_close(&rd);
			return -1;
		}
		r->kernel = json_is_array(json_object_get(json_object_get(r->analysis, "host"),
							  "adjust")) ? 1 : -1;
		if (r->kernel > 0 &&
		    lw_hostadj_from_json(&adj, r->analysis, lw_rundir_file(&rd, "analysis.json", file,
									   sizeof(file))) < 0) {
			json_decref(r->analysis);
			r->analysis = NULL;
			lw_rundir_close(&rd);
			return -1;
		}
		for (size_t i = 0; i < adj.n; i++)
			r->host_ns += adj.ns[i];
	}
	if (lw_summary_load_adj(&sum, &rd, 0, &adj) < 0) {
		lw_hostadj_free(&adj);
		json_decref(r->analysis);
		r->analysis = NULL;
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
		p->no_cpu = sum.from_histogram ? "no samples to tell the CPUs apart (a run imported "
			    "from a histogram, or monitored)" : NULL;
	}
	/* each CPU's series (after its probe's "all" row: sorted by probe,
	 * then CPU), from the samples */
	for (size_t i = 0; i < sum.n && !sum.from_histogram; i++) {
		struct lw_series *s = &sum.s[i];
		struct lw_cprobe *p = NULL, *c;

		if (s->cpu < 0)
			continue;
		for (size_t j = 0; j < r->np && !p; j++)
			p = r->p[j].probe == s->probe ? &r->p[j] : NULL;
		if (!p || (p->ncpu && p->cpu[p->ncpu - 1].cpu_id >= s->cpu))
			continue;
		if (!(c = add_cpu(p, s->cpu)) || lw_summary_dist(&sum, i, &c->d) < 0)
			goto out;
		c->missed = s->missed;
		c->missed_unknown = s->missed_unknown;
	}
	if (!sum.from_histogram &&
	    load_block_maxima(r, lw_rundir_file(&rd, "samples", file, sizeof(file)), &adj) < 0)
		goto out;
	if (!kernel && load_analysis(r, &rd) < 0)
		goto out;
	if (derive_extras(r, &rd) < 0)
		goto out;
	ret = 0;
out:
	lw_summary_free(&sum);
	lw_hostadj_free(&adj);
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
	lw_qsort(v, k, sizeof(*v), cmp_str);
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
