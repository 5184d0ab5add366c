// SPDX-License-Identifier: GPL-2.0-only
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/binfile.h"
#include "lib/error.h"
#include "lib/safefile.h"
#include "lib/samples.h"

#if __BYTE_ORDER != __LITTLE_ENDIAN
#error "sample files are little-endian; add byte swapping for this target"
#endif

/* What the samples of each probe id are. */
static const struct {
	const char *name;
	int gaps;	/* gaps of a busy loop (start, length), not wake-up latencies */
	int pipeline;	/* a pipeline's end-to-end latency, not a wake-up */
	int irqs_off;	/* its loop ran with interrupts off */
	const char *loop;	/* its loop's thread is LOOP/CPU ("lw-NAME/CPU" if NULL) */
} kinds[LW_SAMPLE_MAX] = {
	[LW_SAMPLE_CYCLIC]          = { .name = "cyclic" },
	[LW_SAMPLE_TIMERLAT_IRQ]    = { .name = "timerlat-irq" },
	[LW_SAMPLE_TIMERLAT_THREAD] = { .name = "timerlat-thread" },
	[LW_SAMPLE_NOISE]           = { .name = "noise", .gaps = 1 },
	[LW_SAMPLE_AUDIO]           = { .name = "audio" },
	[LW_SAMPLE_VIDEO]           = { .name = "video", .pipeline = 1 },
	[LW_SAMPLE_TIMERLAT_USER]   = { .name = "timerlat-user" },
	[LW_SAMPLE_HWNOISE]         = { .name = "hwnoise", .gaps = 1, .irqs_off = 1,
					.loop = "osnoise" },
};

const char *lw_probe_name(unsigned id)
{
	return id < LW_SAMPLE_MAX && kinds[id].name ? kinds[id].name : "unknown";
}

int lw_probe_by_name(const char *name)
{
	for (unsigned i = 0; i < LW_SAMPLE_MAX; i++)
		if (kinds[i].name && !strcmp(kinds[i].name, name))
			return (int)i;
	return -1;
}

int lw_probe_gaps(unsigned id)
{
	return id < LW_SAMPLE_MAX && kinds[id].gaps;
}

int lw_probe_irqs_off(unsigned id)
{
	return id < LW_SAMPLE_MAX && kinds[id].irqs_off;
}

char *lw_probe_loop_thread(unsigned id, int cpu, char *buf, size_t len)
{
	if (id < LW_SAMPLE_MAX && kinds[id].loop)
		snprintf(buf, len, "%s/%d", kinds[id].loop, cpu);
	else
		snprintf(buf, len, "lw-%s/%d", lw_probe_name(id), cpu);
	return buf;
}

int lw_probe_wakeup(unsigned id)
{
	return id > 0 && id < LW_SAMPLE_MAX && kinds[id].name && !kinds[id].gaps &&
	       !kinds[id].pipeline;
}

struct lw_samples_writer {
	FILE *f;
	char *path;
};

struct lw_samples_writer *lw_samples_create(int dfd, const char *path, uint64_t start_mono)
{
	struct lw_samples_writer *w = calloc(1, sizeof(*w));
	unsigned char hdr[LW_SAMPLES_HDR] = { 0 };
	uint32_t v = LW_SAMPLES_VERSION, rs = sizeof(struct lw_sample);

	if (!w)
		return NULL;
	w->path = strdup(path);
	w->f = w->path ? lw_fcreate_at(dfd, path, 0644) : NULL;
	if (!w->f) {
		if (!w->path)
			error("out of memory");
		free(w->path);
		free(w);
		return NULL;
	}
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	memcpy(hdr, LW_SAMPLES_MAGIC, 8);
	memcpy(hdr + 8, &v, 4);
	memcpy(hdr + 12, &rs, 4);
	memcpy(hdr + 16, &start_mono, 8);
	/* the header on disk at once: a run killed before its first 1 MB of
	 * samples leaves a file that reads as a run with no samples yet */
	if (fwrite(hdr, sizeof(hdr), 1, w->f) != 1 || fflush(w->f) == EOF) {
		error_errno("cannot write %s", path);
		fclose(w->f);
		free(w->path);
		free(w);
		return NULL;
	}
	return w;
}

int lw_samples_write(struct lw_samples_writer *w, const struct lw_sample *s, size_t n)
{
	if (n && fwrite(s, sizeof(*s), n, w->f) != n)
		return error_errno("cannot write %s", w->path);
	return 0;
}

int lw_samples_close(struct lw_samples_writer *w)
{
	int ret = 0;

	if (!w)
		return 0;
	if (fflush(w->f) || fsync(fileno(w->f)))
		ret = error_errno("cannot write %s", w->path);
	if (fclose(w->f) && !ret)
		ret = error_errno("cannot close %s", w->path);
	free(w->path);
	free(w);
	return ret;
}

struct lw_samples_reader {
	FILE *f;
	uint64_t start;
	uint64_t count;
	uint64_t read;
	char *path;
};

struct lw_samples_reader *lw_samples_open(const char *path)
{
	return lw_samples_open_flags(path, 0);
}

struct lw_samples_reader *lw_samples_open_flags(const char *path, unsigned flags)
{
	return lw_samples_open_max(path, flags, UINT64_MAX);
}

struct lw_samples_reader *lw_samples_open_max(const char *path, unsigned flags, uint64_t max)
{
	struct lw_samples_reader *r = calloc(1, sizeof(*r));
	unsigned char hdr[LW_SAMPLES_HDR];
	uint64_t body, cap = 0;
	uint32_t v, rs;

	if (!r)
		return NULL;
	/* what the manifest says was written, and a partial record */
	if (max < (UINT64_MAX - LW_SAMPLES_HDR) / sizeof(struct lw_sample) - 1)
		cap = LW_SAMPLES_HDR + (max + 1) * sizeof(struct lw_sample) - 1;
	r->f = lw_binfile_open(path, LW_SAMPLES_MAGIC, "sample", hdr, sizeof(hdr), cap, &body);
	if (!r->f)
		goto fail;
	memcpy(&v, hdr + 8, 4);
	memcpy(&rs, hdr + 12, 4);
	memcpy(&r->start, hdr + 16, 8);
	if (v != LW_SAMPLES_VERSION) {
		error("%s: sample file version %u, this latwatt reads version %d", path, v,
		      LW_SAMPLES_VERSION);
		goto fail;
	}
	if (rs != sizeof(struct lw_sample)) {
		error("%s: record size %u, expected %zu", path, rs, sizeof(struct lw_sample));
		goto fail;
	}
	r->count = body / rs;
	if (body % rs && (flags & LW_SAMPLES_PARTIAL_OK)) {
		if (!(flags & LW_SAMPLES_QUIET))
			warning("%s: the run did not complete: the %llu bytes after record %llu are "
				"left out", path, (unsigned long long)(body % rs),
				(unsigned long long)r->count);
	} else if (body % rs) {
		error("%s: truncated: %llu bytes after record %llu, a record is %u bytes", path,
		      (unsigned long long)(body % rs), (unsigned long long)r->count, rs);
		goto fail;
	}
	r->path = strdup(path);
	setvbuf(r->f, NULL, _IOFBF, flags & LW_SAMPLES_SMALL_BUF ? 1 << 16 : 1 << 20);
	return r;
fail:
	if (r->f)
		fclose(r->f);
	free(r);
	return NULL;
}

uint64_t lw_samples_start(const struct lw_samples_reader *r) { return r->start; }
uint64_t lw_samples_count(const struct lw_samples_reader *r) { return r->count; }

int lw_samples_next(struct lw_samples_reader *r, struct lw_sample *s)
{
	if (r->read == r->count)
		return 0;
	if (fread(s, sizeof(*s), 1, r->f) != 1) {
		if (ferror(r->f))
			return error_errno("cannot read %s", r->path);
		return error("%s: truncated at record %llu", r->path,
			     (unsigned long long)r->read);
	}
	r->read++;
	return 1;
}

void lw_samples_close_reader(struct lw_samples_reader *r)
{
	if (!r)
		return;
	fclose(r->f);
	free(r->path);
	free(r);
}
