// SPDX-License-Identifier: GPL-2.0-only
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/binfile.h"
#include "lib/error.h"
#include "lib/safefile.h"
#include "lib/run.h"
#include "lib/thread.h"
#include "workloads/records.h"

#if __BYTE_ORDER != __LITTLE_ENDIAN
#error "record files are little-endian; add byte swapping for this target"
#endif

#define MAX_RINGS      64
#define DRAIN_PERIOD_NS (50 * 1000 * 1000L)

struct lw_records {
	FILE *f;
	char *path;
	size_t size;
	struct lw_rec_ring *ring[MAX_RINGS];
	_Atomic int nrings;
	pthread_t thread;
	int running;
	_Atomic int quit;
	_Atomic int failed;
	uint64_t written;
};

static void put_hdr(unsigned char *b, const struct lw_records_hdr *h)
{
	uint32_t v = LW_RECORDS_VERSION;

	memset(b, 0, LW_RECORDS_HDR);
	memcpy(b, LW_RECORDS_MAGIC, 8);
	memcpy(b + 8, &v, 4);
	memcpy(b + 12, &h->record_size, 4);
	memcpy(b + 16, &h->start_mono, 8);
	memcpy(b + 24, h->kind, strnlen(h->kind, 16));
	memcpy(b + 40, h->instance, strnlen(h->instance, 32));
	memcpy(b + 72, &h->interval_num, 8);
	memcpy(b + 80, &h->interval_den, 8);
	memcpy(b + 88, &h->streams, 4);
}

struct lw_records *lw_records_create(int dfd, const char *path, const struct lw_records_hdr *h)
{
	struct lw_records *w = calloc(1, sizeof(*w));
	unsigned char hdr[LW_RECORDS_HDR];

	if (!w || !(w->path = strdup(path))) {
		free(w);
		error("out of memory");
		return NULL;
	}
	w->size = h->record_size;
	w->f = lw_fcreate_at(dfd, path, 0644);
	if (!w->f)
		goto fail;
	setvbuf(w->f, NULL, _IOFBF, 1 << 18);
	put_hdr(hdr, h);
	if (fwrite(hdr, sizeof(hdr), 1, w->f) != 1) {
		error_errno("cannot write %s", path);
		goto fail;
	}
	return w;
fail:
	if (w->f)
		fclose(w->f);
	free(w->path);
	free(w);
	return NULL;
}

struct lw_rec_ring *lw_records_ring(struct lw_records *w, size_t capacity)
{
	int n = atomic_load(&w->nrings);
	struct lw_rec_ring *r;
	size_t cap = 1;

	if (n == MAX_RINGS) {
		error("%s: too many record producers (%d)", w->path, MAX_RINGS);
		return NULL;
	}
	while (cap < capacity)
		cap <<= 1;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->buf = calloc(cap, w->size))) {
		free(r);
		error("out of memory for a record ring of %zu", cap);
		return NULL;
	}
	r->size = w->size;
	r->mask = cap - 1;
	w->ring[n] = r;
	atomic_store_explicit(&w->nrings, n + 1, memory_order_release);
	return r;
}

static int drain(struct lw_records *w)
{
	int n = atomic_load_explicit(&w->nrings, memory_order_acquire);

	for (int i = 0; i < n; i++) {
		struct lw_rec_ring *r = w->ring[i];
		size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
		size_t head = atomic_load_explicit(&r->head, memory_order_acquire);

		while (tail != head) {
			size_t idx = tail & r->mask, chunk = head - tail;

			if (chunk > r->mask + 1 - idx)
				chunk = r->mask + 1 - idx;
			if (fwrite(r->buf + idx * r->size, r->size, chunk, w->f) != chunk)
				return -1;
			tail += chunk;
			w->written += chunk;
			atomic_store_explicit(&r->tail, tail, memory_order_release);
		}
	}
	return 0;
}

static void *writer_main(void *arg)
{
	struct lw_records *w = arg;
	struct timespec ts = { 0, DRAIN_PERIOD_NS };

	pthread_setname_np(pthread_self(), "lw-records");
	while (!atomic_load(&w->quit)) {
		if (drain(w) < 0) {
			atomic_store(&w->failed, errno ? errno : EIO);
			break;
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int lw_records_start(struct lw_records *w)
{
	pthread_attr_t attr;
	int ret;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, LW_THREAD_STACK);
	ret = pthread_create(&w->thread, &attr, writer_main, w);
	pthread_attr_destroy(&attr);

	if (ret)
		return error("%s: cannot start the record writer: %s", w->path, strerror(ret));
	w->running = 1;
	return 0;
}

int lw_records_close(struct lw_records *w, uint64_t *written, uint64_t *dropped)
{
	int ret = 0, failed;
	uint64_t d = 0;

	if (!w)
		return 0;
	if (w->running) {
		atomic_store(&w->quit, 1);
		pthread_join(w->thread, NULL);
	}
	failed = atomic_load(&w->failed);
	if (failed) {
		errno = failed;
		ret = error_errno("cannot write %s", w->path);
	} else if (drain(w) < 0) {
		ret = error_errno("cannot write %s", w->path);
	}
	if (fflush(w->f) || fsync(fileno(w->f)))
		ret = error_errno("cannot write %s", w->path);
	if (fclose(w->f) && !ret)
		ret = error_errno("cannot close %s", w->path);
	for (int i = 0; i < atomic_load(&w->nrings); i++) {
		d += atomic_load(&w->ring[i]->dropped);
		free(w->ring[i]->buf);
		free(w->ring[i]);
	}
	if (written)
		*written = w->written;
	if (dropped)
		*dropped = d;
	free(w->path);
	free(w);
	return ret;
}

struct lw_records_reader {
	FILE *f;
	char *path;
	size_t size;
	uint32_t version;
	uint64_t count, read;
};

struct lw_records_reader *lw_records_open(const char *path, struct lw_records_hdr *h)
{
	struct lw_records_reader *r = calloc(1, sizeof(*r));
	unsigned char b[LW_RECORDS_HDR];
	uint64_t body;

	if (!r || !(r->path = strdup(path))) {
		free(r);
		error("out of memory");
		return NULL;
	}
	r->f = lw_binfile_open(path, LW_RECORDS_MAGIC, "record", b, sizeof(b), 0, &body);
	if (!r->f)
		goto fail;
	memset(h, 0, sizeof(*h));
	memcpy(&h->version, b + 8, 4);
	memcpy(&h->record_size, b + 12, 4);
	memcpy(&h->start_mono, b + 16, 8);
	memcpy(h->kind, b + 24, 16);
	memcpy(h->instance, b + 40, 32);
	memcpy(&h->interval_num, b + 72, 8);
	memcpy(&h->interval_den, b + 80, 8);
	memcpy(&h->streams, b + 88, 4);
	if (h->version != LW_RECORDS_VERSION && h->version != 1) {
		error("%s: record file version %u, this latwatt reads versions 1 and %d", path,
		      h->version, LW_RECORDS_VERSION);
		goto fail;
	}
	if (h->record_size == 0 || h->record_size > 4096) {
		error("%s: bad record size %u", path, h->record_size);
		goto fail;
	}
	if (!h->interval_den || !h->interval_num) {
		error("%s: bad interval %llu/%llu in the header", path,
		      (unsigned long long)h->interval_num, (unsigned long long)h->interval_den);
		goto fail;
	}
	r->size = h->record_size;
	r->version = h->version;
	r->count = body / r->size;
	if (body % r->size)	/* a run killed mid-write: keep the whole records */
		warning("%s: truncated: %llu bytes after record %llu are ignored", path,
			(unsigned long long)(body % r->size), (unsigned long long)r->count);
	setvbuf(r->f, NULL, _IOFBF, 1 << 18);
	return r;
fail:
	if (r->f)
		fclose(r->f);
	free(r->path);
	free(r);
	return NULL;
}

uint64_t lw_records_count(const struct lw_records_reader *r) { return r->count; }
uint32_t lw_records_version(const struct lw_records_reader *r) { return r->version; }

int lw_records_next(struct lw_records_reader *r, void *rec)
{
	if (r->read == r->count)
		return 0;
	if (fread(rec, r->size, 1, r->f) != 1) {
		if (ferror(r->f))
			return error_errno("cannot read %s", r->path);
		return error("%s: truncated at record %llu", r->path, (unsigned long long)r->read);
	}
	r->read++;
	return 1;
}

void lw_records_close_reader(struct lw_records_reader *r)
{
	if (!r)
		return;
	fclose(r->f);
	free(r->path);
	free(r);
}
