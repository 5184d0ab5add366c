// SPDX-License-Identifier: GPL-2.0-only
/*
 * The video driver simulator: capture, process, display.
 *
 * The capture stage (SCHED_FIFO, dma_prio) plays the camera's DMA engine:
 * at each vsync, on an absolute CLOCK_MONOTONIC timer, it moves a whole
 * frame into the next buffer of a ring (a memory-bandwidth burst of
 * width x height x 1.5 bytes for NV12) and wakes the processing stage.  The
 * processing stage (SCHED_FIFO, prio) converts the newest captured frame to
 * XRGB8888 (BT.601 or BT.709) and, when an output size is given, scales it
 * bilinearly: real pixel work on every pixel.  The frame captured at vsync k
 * must be ready before vsync k+1, when the display scans it out; a frame
 * ready later misses its vsync (dropped: the previous frame is shown again),
 * a frame overtaken by a newer capture before it was processed is skipped
 * (dropped too).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/error.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/thread.h"
#include "lib/timeutil.h"
#include "workloads/common.h"
#include "workloads/pixel.h"
#include "workloads/records.h"
#include "workloads/rkind.h"
#include "workloads/workload.h"

#define SLOTS            64
#define SAMPLE_RING      (1u << 12)
#define RECORD_RING      (1u << 12)
#define WAIT_SLICE_NS    (50 * LW_NSEC_PER_MSEC)

static const char *const formats[] = { "nv12", "yuyv", NULL };
static const char *const matrices[] = { "bt601", "bt709", NULL };

struct video_conf {
	double fps;
	uint64_t width, height, out_width, out_height, buffers;
	int format, matrix;
	cpu_set_t cpu;
	uint64_t prio, dma_prio;
};

#define P(field) offsetof(struct video_conf, field)
static const struct lw_wparam video_params[] = {
	{ "fps",        LW_WP_DOUBLE, P(fps),        "60",    1, 240, NULL,
	  "frame rate: one capture per vsync" },
	{ "width",      LW_WP_UINT,   P(width),      "1920",  16, 7680, NULL,
	  "capture width in pixels (even)" },
	{ "height",     LW_WP_UINT,   P(height),     "1080",  16, 4320, NULL,
	  "capture height in pixels (even)" },
	{ "format",     LW_WP_ENUM,   P(format),     "nv12",  0, 0, formats,
	  "capture pixel format" },
	{ "matrix",     LW_WP_ENUM,   P(matrix),     "bt709", 0, 0, matrices,
	  "YUV to RGB matrix (limited range)" },
	{ "out_width",  LW_WP_UINT,   P(out_width),  "0",     0, 7680, NULL,
	  "display width; 0: the capture width (no scaling)" },
	{ "out_height", LW_WP_UINT,   P(out_height), "0",     0, 4320, NULL,
	  "display height; 0: the capture height (no scaling)" },
	{ "buffers",    LW_WP_UINT,   P(buffers),    "4",     2, 16, NULL,
	  "frame buffers in the capture ring" },
	{ "cpu",        LW_WP_CPUS,   P(cpu),        "all",   0, 0, NULL,
	  "CPUs: processing on the first, capture on any of them" },
	{ "prio",       LW_WP_UINT,   P(prio),       "70",    1, 99, NULL,
	  "SCHED_FIFO priority of the processing thread" },
	{ "dma_prio",   LW_WP_UINT,   P(dma_prio),   "85",    1, 99, NULL,
	  "SCHED_FIFO priority of the capture (DMA) thread" },
	{ NULL },
};
#undef P

struct capture_slot {
	_Atomic uint64_t done_ns;	/* frame in its buffer */
	_Atomic uint64_t dma_ns;
};

struct video {
	struct lw_part part;
	struct video_conf c;
	char name[32];
	int no_rt;
	struct lw_run *run;
	struct lw_yuv_matrix m;

	uint64_t iv_num, iv_den;	/* frame interval = num/den ns */
	uint64_t t0;			/* vsync 0 */
	size_t frame_bytes;
	unsigned ow, oh;
	int scale;
	uint8_t *src[2];		/* what the sensor delivers, alternately */
	uint8_t **ring;			/* the capture buffers */
	uint32_t *rgb, *out;		/* converted frame, scaled frame */

	_Atomic uint32_t fired;
	struct capture_slot slot[SLOTS];
	_Atomic int quit;
	pthread_t dma, proc;
	int dma_created, proc_created;
	int proc_cpu;
	_Atomic int proc_tid, dma_tid;	/* kernel tids of the processing and capture threads */
	struct lw_ring *ring_s;
	struct lw_rec_ring *rec_r;
	struct lw_records *rec;
	uint64_t rec_written, rec_dropped;
	int rec_err;
	char rec_errmsg[256];

	/* results */
	uint64_t captured, max_capture;
	uint64_t frames, dropped, skipped, marked, max_latency, sum_proc, max_proc;
	_Atomic uint64_t live_dropped;
	int64_t worst_slack;
	uint64_t start_ns, stop_ns;
};

static inline uint64_t vsync(const struct video *v, uint64_t k)
{
	/* exact, no drift, no overflow: (k % den) * num < 240000 * 1e12 < 2^63 */
	return v->t0 + (k / v->iv_den) * v->iv_num + (k % v->iv_den) * v->iv_num / v->iv_den;
}

static inline int quitting(struct video *v)
{
	return lw_run_stopping(v->run) || atomic_load_explicit(&v->quit, memory_order_relaxed);
}

static void mark_drop(struct video *v, int cpu, uint64_t frame, uint64_t vs, int64_t late)
{
	char buf[192];
	struct lw_fmt f = { buf, buf + sizeof(buf) };

	lw_fmt_str(&f, "latwatt drop workload=");
	lw_fmt_str(&f, v->name);
	lw_fmt_str(&f, " frame=");
	lw_fmt_u64(&f, frame);
	lw_fmt_str(&f, " cpu=");
	lw_fmt_u64(&f, (uint64_t)cpu);
	lw_fmt_str(&f, " vsync_ns=");
	lw_fmt_u64(&f, vs);
	lw_fmt_str(&f, " lateness_ns=");
	lw_fmt_u64(&f, late > 0 ? (uint64_t)late : 0);
	lw_fmt_str(&f, "\n");
	lw_wl_deadline_miss(v->run, buf, (size_t)(f.p - buf));
	v->marked++;
}

static void *dma_main(void *arg)
{
	struct video *v = arg;
	uint64_t k = 0;

	atomic_store(&v->dma_tid, (int)gettid());
	pthread_setname_np(pthread_self(), "lw-video-dma");
	lw_prefault_stack();
	while (!quitting(v)) {
		uint64_t vs = vsync(v, k), t, done;
		struct timespec ts = lw_ns_to_ts(vs);
		struct capture_slot *s = &v->slot[k % SLOTS];
		int ret = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);

		if (ret == EINTR)
			continue;
		if (ret) {
			lw_run_request_stop(v->run, LW_STOP_ERROR, "video: clock_nanosleep failed");
			break;
		}
		t = lw_mono_ns();
		memcpy(v->ring[k % v->c.buffers], v->src[k & 1], v->frame_bytes);
		done = lw_mono_ns();
		atomic_store_explicit(&s->dma_ns, lw_wl_since(done, t), memory_order_relaxed);
		atomic_store_explicit(&s->done_ns, done, memory_order_relaxed);
		atomic_store_explicit(&v->fired, (uint32_t)(k + 1), memory_order_release);
		lw_wl_futex_wake(&v->fired);
		if (done - vs > v->max_capture)
			v->max_capture = done - vs;
		k++;
	}
	v->captured = k;
	v->stop_ns = lw_mono_ns();
	return NULL;
}

static void process_frame(struct video *v, const uint8_t *f)
{
	unsigned w = (unsigned)v->c.width, h = (unsigned)v->c.height;

	if (v->c.format == LW_FMT_YUYV)
		lw_yuyv_to_xrgb(f, (size_t)w * 2, w, h, v->rgb, w, &v->m);
	else
		lw_nv12_to_xrgb(f, w, f + (size_t)w * h, w, w, h, v->rgb, w, &v->m);
	if (v->scale)
		lw_scale_xrgb(v->rgb, w, h, w, v->out, v->ow, v->oh, v->ow);
}

static void *proc_main(void *arg)
{
	struct video *v = arg;
	struct lw_sample smp = { .probe = LW_SAMPLE_VIDEO };
	uint64_t next = 0;

	atomic_store(&v->proc_tid, (int)gettid());
	pthread_setname_np(pthread_self(), "lw-video");
	lw_prefault_stack();
	v->worst_slack = INT64_MAX;
	while (!quitting(v)) {
		uint32_t f = atomic_load_explicit(&v->fired, memory_order_acquire);
		uint32_t behind = f - (uint32_t)next;
		struct capture_slot *s;
		struct lw_video_record r;
		uint64_t run_ns, vs, done, ready, wake;
		int64_t slack;
		int cpu;

		if (!behind) {
			lw_wl_futex_wait(&v->fired, f, WAIT_SLICE_NS);
			continue;
		}
		run_ns = lw_mono_ns();
		cpu = sched_getcpu();
		/* Only the newest frame is worth displaying: older ones are skipped. */
		for (; behind > 1; behind--, next++) {
			s = &v->slot[next % SLOTS];
			vs = vsync(v, next);
			r = (struct lw_video_record){
				.vsync_ns = vs, .frame = next,
				.capture_ns = lw_wl_since(atomic_load(&s->done_ns), vs),
				.dma_ns = atomic_load(&s->dma_ns),
				.slack_ns = (int64_t)vsync(v, next + 1) - (int64_t)run_ns,
				.slot = (uint16_t)(next % v->c.buffers), .cpu = (uint16_t)cpu,
				.flags = LW_REC_MISS | LW_REC_SKIPPED | LW_REC_MARKED,
			};
			mark_drop(v, cpu, next, vs, -(int64_t)r.slack_ns);
			lw_rec_push(v->rec_r, &r);
			if (r.slack_ns < v->worst_slack)
				v->worst_slack = r.slack_ns;
			v->frames++;
			v->skipped++;
			v->dropped++;
			atomic_fetch_add_explicit(&v->live_dropped, 1, memory_order_relaxed);
		}
		s = &v->slot[next % SLOTS];
		vs = vsync(v, next);
		done = atomic_load_explicit(&s->done_ns, memory_order_relaxed);
		process_frame(v, v->ring[next % v->c.buffers]);
		ready = lw_mono_ns();
		slack = (int64_t)vsync(v, next + 1) - (int64_t)ready;
		wake = run_ns > done ? run_ns - done : 0;
		r = (struct lw_video_record){
			.vsync_ns = vs, .frame = next,
			.capture_ns = lw_wl_since(done, vs), .dma_ns = atomic_load(&s->dma_ns),
			.wakeup_ns = wake, .proc_ns = lw_wl_since(ready, run_ns),
			.latency_ns = lw_wl_since(ready, vs), .slack_ns = slack,
			.slot = (uint16_t)(next % v->c.buffers), .cpu = (uint16_t)cpu,
		};
		if (slack < 0) {
			r.flags = LW_REC_MISS | LW_REC_MARKED;
			mark_drop(v, cpu, next, vs, -slack);
			v->dropped++;
			atomic_fetch_add_explicit(&v->live_dropped, 1, memory_order_relaxed);
		}
		lw_rec_push(v->rec_r, &r);

		smp.expected_ns = vs;
		smp.latency_ns = ready - vs;
		smp.missed = slack < 0 ? 1 + (uint32_t)((uint64_t)-slack * v->iv_den / v->iv_num) : 0;
		smp.cpu = (uint16_t)cpu;
		smp.flags = slack < 0 ? LW_SAMPLE_OVER_THRESHOLD : 0;
		lw_ring_push(v->ring_s, &smp);

		v->frames++;
		v->sum_proc += r.proc_ns;
		if (r.proc_ns > v->max_proc)
			v->max_proc = r.proc_ns;
		if (r.latency_ns > v->max_latency)
			v->max_latency = r.latency_ns;
		if (slack < v->worst_slack)
			v->worst_slack = slack;
		next++;
	}
	return NULL;
}

static void video_stop(struct lw_run *run, struct lw_part *p)
{
	struct video *v = p->priv;

	atomic_store(&v->quit, 1);
	if (v->dma_created) {
		pthread_join(v->dma, NULL);
		v->dma_created = 0;
	}
	lw_wl_futex_wake(&v->fired);
	if (v->proc_created) {
		pthread_join(v->proc, NULL);
		v->proc_created = 0;
	}
	if (!v->stop_ns)
		v->stop_ns = lw_mono_ns();
	if (v->rec && lw_records_close(v->rec, &v->rec_written, &v->rec_dropped) < 0) {
		v->rec_err = 1;
		snprintf(v->rec_errmsg, sizeof(v->rec_errmsg), "%s", lw_last_error());
	}
	v->rec = NULL;
}

/* A test pattern: colour bars drifting with @phase, in the capture format. */
static void fill_pattern(const struct video *v, uint8_t *f, unsigned phase)
{
	static const uint8_t bars[8][3] = {	/* Y, U, V of white..black bars (BT.709) */
		{ 235, 128, 128 }, { 219, 16, 138 }, { 188, 154, 16 }, { 173, 42, 26 },
		{ 78, 214, 230 }, { 63, 102, 240 }, { 32, 240, 118 }, { 16, 128, 128 },
	};
	unsigned w = (unsigned)v->c.width, h = (unsigned)v->c.height;

	for (unsigned y = 0; y < h; y++)
		for (unsigned x = 0; x < w; x += 2) {
			const uint8_t *b = bars[((x + phase) * 8 / w) % 8];
			uint8_t y0 = (uint8_t)(b[0] + ((x ^ y) & 3)), y1 = (uint8_t)(b[0] + ((x + y) & 3));

			if (v->c.format == LW_FMT_YUYV) {
				uint8_t *p = f + (size_t)y * w * 2 + (size_t)x * 2;

				p[0] = y0; p[1] = b[1]; p[2] = y1; p[3] = b[2];
			} else {
				f[(size_t)y * w + x] = y0;
				f[(size_t)y * w + x + 1] = y1;
				if (!(y & 1)) {
					uint8_t *c = f + (size_t)w * h + (size_t)(y / 2) * w + x;

					c[0] = b[1];
					c[1] = b[2];
				}
			}
		}
}

static int video_alloc(struct video *v)
{
	size_t px = (size_t)v->c.width * v->c.height;

	v->frame_bytes = lw_frame_bytes(v->c.format, (unsigned)v->c.width, (unsigned)v->c.height);
	v->ring = calloc(v->c.buffers, sizeof(*v->ring));
	if (!v->ring)
		return error("out of memory");
	for (int i = 0; i < 2; i++)
		if (!(v->src[i] = malloc(v->frame_bytes)))
			return error("%s: out of memory for frames of %zu bytes", v->name, v->frame_bytes);
	for (uint64_t i = 0; i < v->c.buffers; i++) {
		if (!(v->ring[i] = malloc(v->frame_bytes)))
			return error("%s: out of memory for %llu frame buffers of %zu bytes", v->name,
				     (unsigned long long)v->c.buffers, v->frame_bytes);
		memset(v->ring[i], 0, v->frame_bytes);	/* fault the pages in now */
	}
	v->rgb = calloc(px, sizeof(uint32_t));
	if (v->scale)
		v->out = calloc((size_t)v->ow * v->oh, sizeof(uint32_t));
	if (!v->rgb || (v->scale && !v->out))
		return error("%s: out of memory for the display buffers", v->name);
	fill_pattern(v, v->src[0], 0);
	fill_pattern(v, v->src[1], (unsigned)v->c.width / 16);
	return 0;
}

static int video_start(struct lw_run *run, struct lw_part *p)
{
	struct video *v = p->priv;
	const struct video_conf *c = &v->c;
	struct lw_records_hdr h = {
		.record_size = sizeof(struct lw_video_record), .start_mono = run->start_mono,
		.kind = "video", .interval_num = v->iv_num, .interval_den = v->iv_den,
		.streams = 1,
	};
	struct lw_sched dma = {
		.policy = v->no_rt ? SCHED_OTHER : SCHED_FIFO, .priority = (int)c->dma_prio,
		.cpu = -1, .cpus = &c->cpu,
		.stack = LW_WL_STACK_SIZE,
	};
	struct lw_sched proc = {
		.policy = v->no_rt ? SCHED_OTHER : SCHED_FIFO, .priority = (int)c->prio,
		.cpu = v->proc_cpu,
		.stack = LW_WL_STACK_SIZE,
	};
	char path[4096], what[64];

	v->run = run;
	snprintf(h.instance, sizeof(h.instance), "%s", v->name);
	snprintf(what, sizeof(what), "%s.records", v->name);
	v->rec = lw_records_create(run->dir.dfd, lw_rundir_file(&run->dir, what, path, sizeof(path)),
				     &h);
	if (!v->rec)
		return -1;
	v->ring_s = lw_run_ring(run, SAMPLE_RING);
	v->rec_r = lw_records_ring(v->rec, RECORD_RING);
	if (!v->ring_s || !v->rec_r || lw_records_start(v->rec) < 0)
		goto fail;
	snprintf(what, sizeof(what), "%s processing thread on cpu %d", v->name, v->proc_cpu);
	if (lw_thread_start(&v->proc, proc_main, v, &proc, what) < 0)
		goto fail;
	v->proc_created = 1;
	v->t0 = lw_mono_ns() + v->iv_num / v->iv_den;
	v->start_ns = v->t0;
	snprintf(what, sizeof(what), "%s capture thread", v->name);
	if (lw_thread_start(&v->dma, dma_main, v, &dma, what) < 0)
		goto fail;
	v->dma_created = 1;
	return 0;
fail:
	video_stop(run, p);
	return -1;
}

static int video_finish(struct lw_run *run, struct lw_part *p)
{
	struct video *v = p->priv;
	json_t *m = lw_wl_manifest_entry(run, v->name);
	char file[64];

	snprintf(file, sizeof(file), "%s.records", v->name);
	json_object_set_new(m, "kind", json_string("video"));
	json_object_set_new(m, "params", lw_wconfig_json(&lw_workload_video, &v->c));
	json_object_set_new(m, "records", json_pack("{s:s, s:s, s:i, s:I, s:I}",
		"file", file, "format", "latwatt-records", "version", LW_RECORDS_VERSION,
		"written", (json_int_t)v->rec_written, "dropped", (json_int_t)v->rec_dropped));
	json_object_set_new(m, "policy", json_string(v->no_rt ? "SCHED_OTHER" : "SCHED_FIFO"));
	json_object_set_new(m, "frame_interval_ns", json_real((double)v->iv_num / (double)v->iv_den));
	json_object_set_new(m, "frame_bytes", json_integer((json_int_t)v->frame_bytes));
	json_object_set_new(m, "cpu", json_integer(v->proc_cpu));
	json_object_set_new(m, "proc_thread", json_pack("{s:s, s:i, s:i, s:i}", "name", "lw-video",
		"cpu", v->proc_cpu, "tid", atomic_load(&v->proc_tid),
		"priority", v->no_rt ? 0 : (int)v->c.prio));
	json_object_set_new(m, "dma_thread", json_pack("{s:s, s:i, s:i}", "name", "lw-video-dma",
		"tid", atomic_load(&v->dma_tid), "priority", v->no_rt ? 0 : (int)v->c.dma_prio));
	json_object_set_new(m, "started_ns", json_integer((json_int_t)v->start_ns));
	json_object_set_new(m, "stopped_ns", json_integer((json_int_t)v->stop_ns));
	json_object_set_new(m, "vsyncs", json_integer((json_int_t)v->captured));
	json_object_set_new(m, "frames", json_integer((json_int_t)v->frames));
	json_object_set_new(m, "dropped", json_integer((json_int_t)v->dropped));
	json_object_set_new(m, "skipped", json_integer((json_int_t)v->skipped));
	json_object_set_new(m, "markers", json_integer((json_int_t)v->marked));
	json_object_set_new(m, "worst_slack_ns", json_integer(v->frames && v->worst_slack != INT64_MAX ?
							       (json_int_t)v->worst_slack : 0));
	json_object_set_new(m, "max_latency_ns", json_integer((json_int_t)v->max_latency));
	json_object_set_new(m, "max_capture_ns", json_integer((json_int_t)v->max_capture));
	json_object_set_new(m, "max_proc_ns", json_integer((json_int_t)v->max_proc));
	json_object_set_new(m, "mean_proc_ns", json_integer(v->frames > v->skipped ?
		(json_int_t)(v->sum_proc / (v->frames - v->skipped)) : 0));
	if (v->rec_err)
		return error("%s", v->rec_errmsg);
	return 0;
}

static void video_progress(struct lw_run *run, struct lw_part *p, char *buf, size_t len)
{
	struct video *v = p->priv;

	snprintf(buf, len, "%s dropped %llu", v->name,
		 (unsigned long long)atomic_load(&v->live_dropped));
}

static void video_destroy(struct lw_part *p)
{
	struct video *v = p->priv;

	for (uint64_t i = 0; v->ring && i < v->c.buffers; i++)
		free(v->ring[i]);
	free(v->ring);
	free(v->src[0]);
	free(v->src[1]);
	free(v->rgb);
	free(v->out);
	free(v);
}

static struct lw_part *video_create(const void *config, const struct lw_workload_env *env)
{
	struct video *v = calloc(1, sizeof(*v));

	if (!v) {
		error("out of memory");
		return NULL;
	}
	memcpy(&v->c, config, sizeof(v->c));
	v->no_rt = env->no_rt;
	lw_wl_instance_name(v->name, sizeof(v->name), "video", env->instance);
	v->part = (struct lw_part){
		.name = "video", .start = video_start, .stop = video_stop,
		.finish = video_finish, .progress = video_progress, .destroy = video_destroy,
		.priv = v,
	};
	v->iv_num = 1000 * LW_NSEC_PER_SEC;
	v->iv_den = (uint64_t)llround(v->c.fps * 1000);
	v->m = lw_yuv_matrix(v->c.matrix == 0 ? LW_BT601 : LW_BT709);
	v->ow = (unsigned)(v->c.out_width ? v->c.out_width : v->c.width);
	v->oh = (unsigned)(v->c.out_height ? v->c.out_height : v->c.height);
	v->scale = v->ow != v->c.width || v->oh != v->c.height;
	v->proc_cpu = lw_wl_cpu_nth(&v->c.cpu, 0);
	/* Frames are allocated (and locked) now, before the run's clock starts. */
	if (video_alloc(v) < 0) {
		video_destroy(&v->part);
		return NULL;
	}
	return &v->part;
}

static int video_check(const void *config, const char *where)
{
	const struct video_conf *c = config;

	if ((c->width | c->height) & 1)
		return error("%s: width and height must be even for %s (got %llux%llu)", where,
			     formats[c->format], (unsigned long long)c->width,
			     (unsigned long long)c->height);
	if (!c->out_width != !c->out_height)
		return error("%s: give both out_width and out_height, or neither", where);
	return 0;
}

/* ---- reading back: RUN/video.records ------------------------------- */

/* The next record, a version 1 one widened. */
static int video_next(struct lw_records_reader *r, struct lw_video_record *rec)
{
	struct lw_video_record_v1 o;
	int ret;

	if (lw_records_version(r) != 1)
		return lw_records_next(r, rec);
	ret = lw_records_next(r, &o);
	if (ret > 0)
		*rec = (struct lw_video_record){
			.vsync_ns = o.vsync_ns, .frame = o.frame, .capture_ns = o.capture_ns,
			.dma_ns = o.dma_ns, .wakeup_ns = o.wakeup_ns, .proc_ns = o.proc_ns,
			.latency_ns = o.latency_ns, .slack_ns = o.slack_ns, .slot = o.slot,
			.cpu = o.cpu, .flags = o.flags,
		};
	return ret;
}

static int video_read(struct lw_records_reader *r, struct lw_rec_acc *x)
{
	struct lw_video_record rec;
	int ret;

	while ((ret = video_next(r, &rec)) > 0) {
		if (lw_rec_count(x, rec.vsync_ns, rec.slack_ns, rec.flags))
			json_array_append_new(x->misses, json_pack("{s:I, s:I, s:i, s:I, s:b, s:I, s:I, s:I, s:I}",
				"vsync_ns", (json_int_t)rec.vsync_ns,
				"frame", (json_int_t)rec.frame, "cpu", rec.cpu,
				"lateness_ns", (json_int_t)-(int64_t)rec.slack_ns,
				"skipped", !!(rec.flags & LW_REC_SKIPPED),
				"capture_ns", (json_int_t)rec.capture_ns, "dma_ns", (json_int_t)rec.dma_ns,
				"wakeup_ns", (json_int_t)rec.wakeup_ns, "proc_ns", (json_int_t)rec.proc_ns));
		if (rec.flags & LW_REC_SKIPPED)
			continue;
		if (lw_rvec_push(&x->a, rec.latency_ns) < 0 || lw_rvec_push(&x->b, rec.capture_ns) < 0 ||
		    lw_rvec_push(&x->c, rec.wakeup_ns) < 0 || lw_rvec_push(&x->d, rec.proc_ns) < 0)
			return -1;
	}
	return ret;
}

static void video_summarize(json_t *o, struct lw_rec_acc *x, const struct lw_records_hdr *h,
			    double span)
{
	(void)h;
	json_object_set_new(o, "frames", json_integer((json_int_t)x->count));
	json_object_set_new(o, "frames_per_s", json_real(span > 0 ?
		(double)x->count / (span / 1e9) : 0));
	json_object_set_new(o, "latency_ns", lw_rvec_dist(&x->a));
	json_object_set_new(o, "capture_ns", lw_rvec_dist(&x->b));
	json_object_set_new(o, "wakeup_ns", lw_rvec_dist(&x->c));
	json_object_set_new(o, "proc_ns", lw_rvec_dist(&x->d));
}

static long long geti(const json_t *o, const char *k)
{
	return (long long)json_integer_value(json_object_get(o, k));
}

static void video_print(FILE *out, const char *name, const json_t *s)
{
	fprintf(out, "  %s: %lld frames, %lld dropped (%lld skipped), worst slack %.1fus\n",
		name, geti(s, "frames"), geti(s, "dropped"), geti(s, "skipped"),
		(double)geti(s, "worst_slack_ns") / 1e3);
	lw_rec_dist_line(out, "capture->display", json_object_get(s, "latency_ns"));
	lw_rec_dist_line(out, "capture (DMA)", json_object_get(s, "capture_ns"));
	lw_rec_dist_line(out, "processing", json_object_get(s, "proc_ns"));
}

static void video_miss_detail(char *buf, size_t len, const json_t *ev)
{
	const json_t *cpu = json_object_get(ev, "cpu");

	snprintf(buf, len, "frame %.0f, CPU %d, %.1f us late%s",
		 json_number_value(json_object_get(ev, "frame")),
		 json_is_number(cpu) ? (int)json_number_value(cpu) : -1,
		 json_number_value(json_object_get(ev, "lateness_ns")) / 1e3,
		 json_is_true(json_object_get(ev, "skipped")) ? ", skipped" : "");
}

static uint64_t jns(const json_t *o, const char *k)
{
	json_int_t v = json_integer_value(json_object_get(o, k));

	return v > 0 ? (uint64_t)v : 0;
}

/* Vsync V to the frame ready: its capture (the capture thread's latency and
 * the copy), the processing thread's wake-up, the processing (the record's
 * capture_ns, wakeup_ns, proc_ns); it had to be ready by the next vsync. */
static int video_miss_window(const json_t *m, const json_t *s, const json_t *ev,
			     struct lw_miss_window *w)
{
	const json_t *v = json_object_get(ev, "vsync_ns");
	const json_t *params = json_object_get(s, "params");
	const char *policy = json_string_value(json_object_get(s, "policy"));
	double interval = json_number_value(json_object_get(s, "interval_ns"));
	int64_t late = json_integer_value(json_object_get(ev, "lateness_ns"));
	uint64_t len;

	if (!json_is_integer(v) || json_integer_value(v) <= 0 || !(interval > 0) || interval > 1e12)
		return -1;
	if (late > INT32_MAX)	/* from an int32 slack */
		late = INT32_MAX;
	memset(w, 0, sizeof(*w));
	w->start_ns = (uint64_t)json_integer_value(v);
	len = (uint64_t)llround(interval) + (late > 0 ? (uint64_t)late : 0);
	w->end_ns = w->start_ns + len;
	w->cpu = json_is_integer(json_object_get(ev, "cpu")) ?
		 (int)json_integer_value(json_object_get(ev, "cpu")) : -1;
	w->processed = !json_is_true(json_object_get(ev, "skipped"));
	w->stage_ns[0] = jns(ev, "capture_ns") < len ? jns(ev, "capture_ns") : len;
	if (w->processed)
		w->stage_ns[2] = jns(ev, "proc_ns") < len - w->stage_ns[0] ? jns(ev, "proc_ns") :
				 len - w->stage_ns[0];
	w->stage_ns[1] = len - w->stage_ns[0] - w->stage_ns[2];
	w->waker_work_ns = jns(ev, "dma_ns");
	w->work_ns = lw_rwork_budget(s);
	lw_rthread_get(&w->worker, json_object_get(m, "proc_thread"), policy, "lw-video",
		       (int)json_integer_value(json_object_get(params, "prio")));
	lw_rthread_get(&w->waker, json_object_get(m, "dma_thread"), policy, "lw-video-dma",
		       (int)json_integer_value(json_object_get(params, "dma_prio")));
	return 0;
}

static const struct lw_rkind video_records = {
	.kind = "video",
	.record_size = sizeof(struct lw_video_record),
	.record_size_v1 = sizeof(struct lw_video_record_v1),
	.read = video_read,
	.summarize = video_summarize,
	.print = video_print,
	.miss_detail = video_miss_detail,
	.miss_key = "dropped",
	.list_key = "dropped_list",
	.time_key = "vsync_ns",
	.total_key = "frames",
	.metric = "dropped_frames",
	.noun = "dropped frames",
	.probe = -1,
	.threads_key = NULL,
	.miss_window = video_miss_window,
	.stage_names = { "capture", "wake-up", "processing" },
};

const struct lw_workload lw_workload_video = {
	.name = "video",
	.help = "video driver: capture DMA burst per vsync, YUV to RGB (and scaling), dropped frames",
	.params = video_params,
	.config_size = sizeof(struct video_conf),
	.check = video_check,
	.create = video_create,
	.records = &video_records,
};
