// SPDX-License-Identifier: GPL-2.0-only
/*
 * The audio driver simulator.
 *
 * One "interrupt" thread (SCHED_FIFO, irq_prio) plays the DMA interrupt of
 * the sound card: it sleeps to each period boundary on an absolute
 * CLOCK_MONOTONIC timer, notes when it ran, publishes the boundary and wakes
 * the stream threads.  Each stream thread (SCHED_FIFO, prio, its own CPU)
 * then processes the period just captured: every voice copies the period
 * out of the DMA buffer, runs it through a cascade of biquads (high-pass,
 * two peaking EQs, low-pass...) and is mixed into the stream's output bus.
 * The number of voices is calibrated at start, on the stream's CPU and
 * priority, so that a period costs `load` x the period length.  The period
 * must be processed before the next boundary, else it is an xrun.  A stream
 * that falls behind by more than the buffer (periods x period) loses the
 * periods the DMA overwrote: they are recorded as skipped xruns.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/error.h"
#include "lib/json.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/samples.h"
#include "lib/sort.h"
#include "lib/thread.h"
#include "lib/timeutil.h"
#include "workloads/common.h"
#include "workloads/dsp.h"
#include "workloads/records.h"
#include "workloads/rkind.h"
#include "workloads/workload.h"

#define IRQ_TS_SLOTS     64	/* > the largest buffer (periods) */
#define SAMPLE_RING      (1u << 14)
#define RECORD_RING      (1u << 14)
#define WAIT_SLICE_NS    (50 * LW_NSEC_PER_MSEC)
#define READY_TIMEOUT_NS (10 * LW_NSEC_PER_SEC)
#define CAL_TRIALS       15
#define CAL_BLOCK        16	/* voices per calibration trial */
#define MAX_VOICES       (1u << 20)

struct audio_conf {
	uint64_t streams, rate, channels, period, periods, stages;
	double load;
	cpu_set_t cpu;
	uint64_t prio, irq_prio;
};

#define P(field) offsetof(struct audio_conf, field)
static const struct lw_wparam audio_params[] = {
	{ "streams",  LW_WP_UINT,   P(streams),  "1",     1, 16, NULL,
	  "number of streams, one processing thread each" },
	{ "rate",     LW_WP_UINT,   P(rate),     "48000", 8000, 384000, NULL,
	  "sample rate in Hz" },
	{ "channels", LW_WP_UINT,   P(channels), "2",     1, 32, NULL,
	  "channels per stream (interleaved)" },
	{ "period",   LW_WP_UINT,   P(period),   "128",   16, 16384, NULL,
	  "period size in frames (the interrupt interval)" },
	{ "periods",  LW_WP_UINT,   P(periods),  "2",     2, 32, NULL,
	  "periods per DMA buffer; falling further behind loses periods" },
	{ "load",     LW_WP_DOUBLE, P(load),     "0.3",   0, 4, NULL,
	  "DSP time per period as a fraction of the period (calibrated; >1 xruns)" },
	{ "stages",   LW_WP_UINT,   P(stages),   "4",     1, 32, NULL,
	  "biquad sections per voice" },
	{ "cpu",      LW_WP_CPUS,   P(cpu),      "all",   0, 0, NULL,
	  "CPUs: stream i runs on the i-th CPU of the list (cyclically)" },
	{ "prio",     LW_WP_UINT,   P(prio),     "80",    1, 99, NULL,
	  "SCHED_FIFO priority of the stream threads" },
	{ "irq_prio", LW_WP_UINT,   P(irq_prio), "90",    1, 99, NULL,
	  "SCHED_FIFO priority of the interrupt thread" },
	{ NULL },
};
#undef P

struct audio;

struct audio_stream {
	struct audio *a;
	int idx, cpu;
	pthread_t tid;
	_Atomic int ktid;	/* kernel thread id, as the trace names it */
	int created;
	struct lw_ring *ring;
	struct lw_rec_ring *rec;

	/* DSP */
	float *dma;			/* periods x period x channels: the DMA buffer */
	float *work;			/* one period */
	float *bus;			/* the stream's output mix */
	struct lw_biquad coef[32];
	struct lw_biquad_state *st;	/* voices x stages x channels */
	unsigned voices;

	/* calibration */
	double cal_ns_per_voice, cal_min_ns, cal_max_ns;

	/* results: written by the thread, read after join (xruns also live) */
	uint64_t periods, skipped, marked;
	_Atomic uint64_t xruns;
	int64_t worst_slack;
	uint64_t max_wakeup, max_proc, sum_proc;
	int err;
	char errmsg[128];
};

struct audio {
	struct lw_part part;
	struct audio_conf c;
	char name[32];
	int no_rt;
	struct lw_run *run;

	uint64_t period_num, period_den;	/* period = num/den ns */
	uint64_t t0;				/* boundary 0 */
	_Atomic uint32_t fired;			/* boundaries published */
	_Atomic uint64_t irq_ts[IRQ_TS_SLOTS];
	_Atomic uint32_t ready;
	_Atomic int quit;
	pthread_t irq;
	_Atomic int irq_tid;	/* the interrupt thread's kernel tid */
	int irq_created;
	uint64_t irq_count, irq_max_late;

	struct audio_stream *s;
	int nstreams;
	struct lw_records *rec;
	uint64_t rec_written, rec_dropped;
	int rec_err;
	char rec_errmsg[256];
	uint64_t start_ns, stop_ns;
};

static inline uint64_t boundary(const struct audio *a, uint64_t k)
{
	/* exact, no drift: k * num / den without overflowing 64 bits
	 * ((k % den) * num < 384000 * 16384e9 < 2^63) */
	return a->t0 + (k / a->period_den) * a->period_num +
	       (k % a->period_den) * a->period_num / a->period_den;
}

static inline int quitting(struct audio *a)
{
	return lw_run_stopping(a->run) || atomic_load_explicit(&a->quit, memory_order_relaxed);
}

/* One period: every voice filters the captured period into the bus. */
static void process_period(struct audio_stream *s, const float *in, unsigned voices)
{
	const struct audio_conf *c = &s->a->c;
	size_t n = (size_t)(c->period * c->channels);
	size_t per_voice = (size_t)(c->stages * c->channels);
	float gain = voices ? 1.0f / (float)voices : 0;

	memset(s->bus, 0, n * sizeof(float));
	for (unsigned v = 0; v < voices; v++) {
		memcpy(s->work, in, n * sizeof(float));
		lw_biquad_cascade(s->coef, c->stages, s->st + (size_t)v * per_voice, s->work,
				  c->period, (unsigned)c->channels);
		lw_mix(s->bus, s->work, n, gain);
	}
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* Time CAL_BLOCK voices CAL_TRIALS times, here, at the stream's priority. */
static void calibrate(struct audio_stream *s)
{
	double t[CAL_TRIALS];

	process_period(s, s->dma, CAL_BLOCK);	/* warm caches and branch predictors */
	for (int i = 0; i < CAL_TRIALS; i++) {
		uint64_t t1 = lw_mono_ns();

		process_period(s, s->dma, CAL_BLOCK);
		t[i] = (double)(lw_mono_ns() - t1) / CAL_BLOCK;
	}
	lw_qsort(t, CAL_TRIALS, sizeof(t[0]), cmp_double);
	s->cal_ns_per_voice = t[CAL_TRIALS / 2];
	s->cal_min_ns = t[0];
	s->cal_max_ns = t[CAL_TRIALS - 1];
}

static void mark_xrun(struct audio_stream *s, int cpu, uint64_t period, uint64_t b, int64_t late)
{
	char buf[192];
	struct lw_fmt f = { buf, buf + sizeof(buf) };

	lw_fmt_str(&f, "latwatt xrun workload=");
	lw_fmt_str(&f, s->a->name);
	lw_fmt_str(&f, " stream=");
	lw_fmt_u64(&f, (uint64_t)s->idx);
	lw_fmt_str(&f, " cpu=");
	lw_fmt_u64(&f, (uint64_t)cpu);
	lw_fmt_str(&f, " period=");
	lw_fmt_u64(&f, period);
	lw_fmt_str(&f, " boundary_ns=");
	lw_fmt_u64(&f, b);
	lw_fmt_str(&f, " lateness_ns=");
	lw_fmt_u64(&f, late > 0 ? (uint64_t)late : 0);
	lw_fmt_str(&f, "\n");
	lw_wl_deadline_miss(s->a->run, buf, (size_t)(f.p - buf));
	s->marked++;
}

static void *stream_main(void *arg)
{
	struct audio_stream *s = arg;
	struct audio *a = s->a;
	const uint32_t periods = (uint32_t)a->c.periods;
	struct lw_sample smp = { .probe = LW_SAMPLE_AUDIO };
	uint64_t next = 0;
	char name[16];

	atomic_store(&s->ktid, (int)gettid());
	snprintf(name, sizeof(name), "lw-audio/%d", s->idx);
	pthread_setname_np(pthread_self(), name);
	lw_prefault_stack();

	calibrate(s);
	if (a->c.load > 0 && s->cal_ns_per_voice > 0) {
		double period_ns = (double)a->period_num / (double)a->period_den;
		double v = round(a->c.load * period_ns / s->cal_ns_per_voice);

		s->voices = v < 1 ? 1 : v > MAX_VOICES ? MAX_VOICES : (unsigned)v;
	}
	free(s->st);
	s->st = calloc((size_t)s->voices * a->c.stages * a->c.channels + 1, sizeof(*s->st));
	if (!s->st) {
		s->err = ENOMEM;
		snprintf(s->errmsg, sizeof(s->errmsg), "out of memory for %u voices", s->voices);
	}
	atomic_fetch_add(&a->ready, 1);
	lw_wl_futex_wake(&a->ready);
	if (s->err)
		return NULL;

	s->worst_slack = INT64_MAX;
	while (!quitting(a)) {
		uint32_t f = atomic_load_explicit(&a->fired, memory_order_acquire);
		uint32_t behind = f - (uint32_t)next;
		uint64_t run_ns, irq, b, end, wake;
		int64_t slack;
		struct lw_audio_record r;
		int cpu;

		if (!behind) {
			lw_wl_futex_wait(&a->fired, f, WAIT_SLICE_NS);
			continue;
		}
		run_ns = lw_mono_ns();
		cpu = sched_getcpu();
		if (behind > periods) {
			/* The DMA went round the buffer: periods next .. f-2 are lost. */
			for (uint32_t j = 0; j + 1 < behind; j++, next++) {
				/* the interrupt time is kept for the last IRQ_TS_SLOTS boundaries */
				int known = behind - j <= IRQ_TS_SLOTS;

				b = boundary(a, next);
				r = (struct lw_audio_record){
					.boundary_ns = b, .period = next,
					.irq_ns = known ? lw_wl_since(atomic_load(&a->irq_ts[next % IRQ_TS_SLOTS]), b) : 0,
					.slack_ns = (int64_t)boundary(a, next + 1) - (int64_t)run_ns,
					.stream = (uint16_t)s->idx, .cpu = (uint16_t)cpu,
					.flags = LW_REC_MISS | LW_REC_SKIPPED | LW_REC_MARKED,
				};
				mark_xrun(s, cpu, next, b, -(int64_t)r.slack_ns);
				lw_rec_push(s->rec, &r);
				if (r.slack_ns < s->worst_slack)
					s->worst_slack = r.slack_ns;
				s->periods++;
				s->skipped++;
				atomic_fetch_add_explicit(&s->xruns, 1, memory_order_relaxed);
			}
		}
		b = boundary(a, next);
		irq = atomic_load_explicit(&a->irq_ts[next % IRQ_TS_SLOTS], memory_order_relaxed);
		process_period(s, s->dma + (next % periods) * a->c.period * a->c.channels, s->voices);
		end = lw_mono_ns();
		slack = (int64_t)boundary(a, next + 1) - (int64_t)end;
		wake = run_ns > irq ? run_ns - irq : 0;

		r = (struct lw_audio_record){
			.boundary_ns = b, .period = next,
			.irq_ns = lw_wl_since(irq, b), .wakeup_ns = wake,
			.proc_ns = lw_wl_since(end, run_ns), .slack_ns = slack,
			.stream = (uint16_t)s->idx, .cpu = (uint16_t)cpu,
		};
		if (slack < 0) {
			r.flags = LW_REC_MISS | LW_REC_MARKED;
			mark_xrun(s, cpu, next, b, -slack);
			atomic_fetch_add_explicit(&s->xruns, 1, memory_order_relaxed);
		}
		lw_rec_push(s->rec, &r);

		smp.expected_ns = b;
		smp.latency_ns = run_ns > b ? run_ns - b : 0;
		smp.missed = slack < 0 ? 1 + (uint32_t)((uint64_t)-slack * a->period_den / a->period_num) : 0;
		smp.cpu = (uint16_t)cpu;
		smp.flags = slack < 0 ? LW_SAMPLE_OVER_THRESHOLD : 0;
		lw_ring_push(s->ring, &smp);

		s->periods++;
		s->sum_proc += r.proc_ns;
		if (r.proc_ns > s->max_proc)
			s->max_proc = r.proc_ns;
		if (wake > s->max_wakeup)
			s->max_wakeup = wake;
		if (slack < s->worst_slack)
			s->worst_slack = slack;
		next++;
	}
	return NULL;
}

static void *irq_main(void *arg)
{
	struct audio *a = arg;
	uint64_t k = 0;

	atomic_store(&a->irq_tid, (int)gettid());
	pthread_setname_np(pthread_self(), "lw-audio-irq");
	lw_prefault_stack();
	while (!quitting(a)) {
		uint64_t b = boundary(a, k), now;
		struct timespec ts = lw_ns_to_ts(b);
		int ret = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);

		if (ret == EINTR)
			continue;
		if (ret) {
			lw_run_request_stop(a->run, LW_STOP_ERROR, "audio: clock_nanosleep failed");
			break;
		}
		now = lw_mono_ns();
		atomic_store_explicit(&a->irq_ts[k % IRQ_TS_SLOTS], now, memory_order_relaxed);
		atomic_store_explicit(&a->fired, (uint32_t)(k + 1), memory_order_release);
		lw_wl_futex_wake(&a->fired);
		if (now - b > a->irq_max_late)
			a->irq_max_late = now - b;
		k++;
	}
	a->irq_count = k;
	a->stop_ns = lw_mono_ns();
	return NULL;
}

static void close_records(struct audio *a)
{
	if (a->rec && lw_records_close(a->rec, &a->rec_written, &a->rec_dropped) < 0) {
		a->rec_err = 1;
		snprintf(a->rec_errmsg, sizeof(a->rec_errmsg), "%s", lw_last_error());
	}
	a->rec = NULL;
}

static void audio_stop(struct lw_run *run, struct lw_part *p)
{
	struct audio *a = p->priv;

	atomic_store(&a->quit, 1);
	if (a->irq_created) {
		pthread_join(a->irq, NULL);
		a->irq_created = 0;
	}
	lw_wl_futex_wake(&a->fired);
	for (int i = 0; i < a->nstreams; i++)
		if (a->s[i].created) {
			pthread_join(a->s[i].tid, NULL);
			a->s[i].created = 0;
		}
	if (!a->stop_ns)
		a->stop_ns = lw_mono_ns();
	close_records(a);
}

static int alloc_stream(struct audio *a, struct audio_stream *s, int idx)
{
	const struct audio_conf *c = &a->c;
	size_t n = (size_t)(c->period * c->channels);
	double fs = (double)c->rate;

	s->a = a;
	s->idx = idx;
	s->cpu = lw_wl_cpu_nth(&c->cpu, idx);
	s->dma = calloc(n * c->periods, sizeof(float));
	s->work = calloc(n, sizeof(float));
	s->bus = calloc(n, sizeof(float));
	if (!s->dma || !s->work || !s->bus)
		return error("out of memory for audio stream %d", idx);
	/* The captured signal: a tone per channel and some deterministic noise. */
	for (size_t i = 0; i < n * c->periods; i++) {
		unsigned ch = (unsigned)(i % c->channels);
		double t = (double)(i / c->channels) / fs;
		uint32_t h = (uint32_t)(i * 2654435761u);

		s->dma[i] = (float)(0.5 * sin(2 * M_PI * (220.0 * (ch + 1) + 7 * idx) * t) +
				    0.05 * ((double)(h >> 8) / (1 << 24) - 0.5));
	}
	for (unsigned k = 0; k < c->stages; k++) {
		double nyq = fs / 2;

		switch (k % 4) {
		case 0: s->coef[k] = lw_biquad_highpass(fs, 40, M_SQRT1_2); break;
		case 1: s->coef[k] = lw_biquad_peaking(fs, fmin(1000, nyq * 0.4), 1.0, 3.0); break;
		case 2: s->coef[k] = lw_biquad_peaking(fs, fmin(4000, nyq * 0.6), 2.0, -4.0); break;
		default: s->coef[k] = lw_biquad_lowpass(fs, fmin(16000, nyq * 0.8), M_SQRT1_2); break;
		}
	}
	/* Calibration runs CAL_BLOCK voices: their state must exist then. */
	s->voices = 0;
	s->st = calloc((size_t)CAL_BLOCK * c->stages * c->channels, sizeof(*s->st));
	if (!s->st)
		return error("out of memory for audio stream %d", idx);
	return 0;
}

static int audio_start(struct lw_run *run, struct lw_part *p)
{
	struct audio *a = p->priv;
	const struct audio_conf *c = &a->c;
	struct lw_records_hdr h = {
		.record_size = sizeof(struct lw_audio_record), .start_mono = run->start_mono,
		.kind = "audio", .interval_num = a->period_num, .interval_den = a->period_den,
		.streams = (uint32_t)c->streams,
	};
	struct lw_sched irq_sched = {
		.policy = a->no_rt ? SCHED_OTHER : SCHED_FIFO, .priority = (int)c->irq_prio,
		.cpu = -1, .cpus = &c->cpu,
		.stack = LW_WL_STACK_SIZE,
	};
	char path[4096], what[64];
	uint64_t deadline;
	int n = 0;

	a->run = run;
	snprintf(h.instance, sizeof(h.instance), "%s", a->name);
	snprintf(what, sizeof(what), "%s.records", a->name);
	a->rec = lw_records_create(run->dir.dfd, lw_rundir_file(&run->dir, what, path, sizeof(path)),
				     &h);
	if (!a->rec)
		return -1;
	for (int i = 0; i < a->nstreams; i++) {
		struct audio_stream *s = &a->s[i];

		s->ring = lw_run_ring(run, SAMPLE_RING);
		s->rec = lw_records_ring(a->rec, RECORD_RING);
		if (!s->ring || !s->rec)
			goto fail;
	}
	if (lw_records_start(a->rec) < 0)
		goto fail;
	for (int i = 0; i < a->nstreams; i++) {
		struct audio_stream *s = &a->s[i];
		struct lw_sched sch = {
			.policy = a->no_rt ? SCHED_OTHER : SCHED_FIFO, .priority = (int)c->prio,
			.cpu = s->cpu,
			.stack = LW_WL_STACK_SIZE,
		};

		snprintf(what, sizeof(what), "%s stream %d on cpu %d", a->name, i, s->cpu);
		if (lw_thread_start(&s->tid, stream_main, s, &sch, what) < 0)
			goto fail;
		s->created = 1;
	}
	/* Each stream calibrates on its CPU before the first boundary. */
	deadline = lw_mono_ns() + READY_TIMEOUT_NS;
	while ((n = (int)atomic_load(&a->ready)) < a->nstreams) {
		if (lw_mono_ns() > deadline) {
			error("%s: the stream threads did not calibrate within %llus", a->name,
			      (unsigned long long)(READY_TIMEOUT_NS / LW_NSEC_PER_SEC));
			goto fail;
		}
		lw_wl_futex_wait(&a->ready, (uint32_t)n, WAIT_SLICE_NS);
	}
	for (int i = 0; i < a->nstreams; i++)
		if (a->s[i].err) {
			error("%s: stream %d: %s", a->name, i, a->s[i].errmsg);
			goto fail;
		}
	a->t0 = lw_mono_ns() + a->period_num / a->period_den;
	a->start_ns = a->t0;
	snprintf(what, sizeof(what), "%s interrupt thread", a->name);
	if (lw_thread_start(&a->irq, irq_main, a, &irq_sched, what) < 0)
		goto fail;
	a->irq_created = 1;
	return 0;
fail:
	audio_stop(run, p);
	return -1;
}

static json_t *stream_json(const struct audio *a, const struct audio_stream *s)
{
	return json_pack("{s:i, s:i, s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:{s:f, s:f, s:f, s:i, s:f}}",
		"stream", s->idx, "cpu", s->cpu, "tid", atomic_load(&s->ktid),
		"priority", a->no_rt ? 0 : (int)a->c.prio,
		"periods", (json_int_t)s->periods,
		"xruns", (json_int_t)atomic_load(&s->xruns),
		"skipped", (json_int_t)s->skipped,
		"worst_slack_ns", (json_int_t)(s->periods && s->worst_slack != INT64_MAX ? s->worst_slack : 0),
		"max_wakeup_ns", (json_int_t)s->max_wakeup,
		"max_proc_ns", (json_int_t)s->max_proc,
		"mean_proc_ns", (json_int_t)(s->periods > s->skipped ?
					     s->sum_proc / (s->periods - s->skipped) : 0),
		"calibration",
		"ns_per_voice", s->cal_ns_per_voice, "min_ns_per_voice", s->cal_min_ns,
		"max_ns_per_voice", s->cal_max_ns, "voices", (int)s->voices,
		"target_ns", a->c.load * (double)a->period_num / (double)a->period_den);
}

static int audio_finish(struct lw_run *run, struct lw_part *p)
{
	struct audio *a = p->priv;
	json_t *m = lw_wl_manifest_entry(run, a->name), *streams = json_array();
	uint64_t periods = 0, xruns = 0, skipped = 0, marked = 0, maxw = 0;
	int64_t worst = INT64_MAX;
	char file[64];

	for (int i = 0; i < a->nstreams; i++) {
		struct audio_stream *s = &a->s[i];

		json_array_append_new(streams, stream_json(a, s));
		periods += s->periods;
		xruns += atomic_load(&s->xruns);
		skipped += s->skipped;
		marked += s->marked;
		if (s->max_wakeup > maxw)
			maxw = s->max_wakeup;
		if (s->periods && s->worst_slack < worst)
			worst = s->worst_slack;
	}
	snprintf(file, sizeof(file), "%s.records", a->name);
	json_object_set_new(m, "kind", json_string("audio"));
	json_object_set_new(m, "params", lw_wconfig_json(&lw_workload_audio, &a->c));
	json_object_set_new(m, "records", json_pack("{s:s, s:s, s:i, s:I, s:I}",
		"file", file, "format", "latwatt-records", "version", LW_RECORDS_VERSION,
		"written", (json_int_t)a->rec_written, "dropped", (json_int_t)a->rec_dropped));
	json_object_set_new(m, "policy", json_string(a->no_rt ? "SCHED_OTHER" : "SCHED_FIFO"));
	json_object_set_new(m, "period_ns", json_real((double)a->period_num / (double)a->period_den));
	json_object_set_new(m, "started_ns", json_integer((json_int_t)a->start_ns));
	json_object_set_new(m, "stopped_ns", json_integer((json_int_t)a->stop_ns));
	json_object_set_new(m, "boundaries", json_integer((json_int_t)a->irq_count));
	json_object_set_new(m, "periods", json_integer((json_int_t)periods));
	json_object_set_new(m, "xruns", json_integer((json_int_t)xruns));
	json_object_set_new(m, "skipped", json_integer((json_int_t)skipped));
	json_object_set_new(m, "markers", json_integer((json_int_t)marked));
	json_object_set_new(m, "worst_slack_ns", json_integer(worst == INT64_MAX ? 0 : (json_int_t)worst));
	json_object_set_new(m, "max_wakeup_ns", json_integer((json_int_t)maxw));
	json_object_set_new(m, "max_irq_ns", json_integer((json_int_t)a->irq_max_late));
	json_object_set_new(m, "streams", streams);
	json_object_set_new(m, "irq_thread", json_pack("{s:s, s:i, s:i}", "name", "lw-audio-irq",
		"tid", atomic_load(&a->irq_tid), "priority", a->no_rt ? 0 : (int)a->c.irq_prio));
	if (a->rec_err)
		return error("%s", a->rec_errmsg);
	return 0;
}

static void audio_progress(struct lw_run *run, struct lw_part *p, char *buf, size_t len)
{
	struct audio *a = p->priv;
	uint64_t x = 0;

	for (int i = 0; i < a->nstreams; i++)
		x += atomic_load(&a->s[i].xruns);
	snprintf(buf, len, "%s xruns %llu", a->name, (unsigned long long)x);
}

static void audio_destroy(struct lw_part *p)
{
	struct audio *a = p->priv;

	for (int i = 0; a->s && i < a->nstreams; i++) {
		free(a->s[i].dma);
		free(a->s[i].work);
		free(a->s[i].bus);
		free(a->s[i].st);
	}
	free(a->s);
	free(a);
}

static struct lw_part *audio_create(const void *config, const struct lw_workload_env *env)
{
	struct audio *a = calloc(1, sizeof(*a));

	if (!a) {
		error("out of memory");
		return NULL;
	}
	memcpy(&a->c, config, sizeof(a->c));
	a->no_rt = env->no_rt;
	lw_wl_instance_name(a->name, sizeof(a->name), "audio", env->instance);
	a->part = (struct lw_part){
		.name = "audio", .start = audio_start, .stop = audio_stop,
		.finish = audio_finish, .progress = audio_progress, .destroy = audio_destroy,
		.priv = a,
	};
	a->period_num = a->c.period * LW_NSEC_PER_SEC;
	a->period_den = a->c.rate;
	/* Buffers are allocated (and locked) now, before the run's clock starts. */
	a->nstreams = (int)a->c.streams;
	a->s = calloc((size_t)a->nstreams, sizeof(*a->s));
	if (!a->s) {
		error("out of memory");
		free(a);
		return NULL;
	}
	for (int i = 0; i < a->nstreams; i++)
		if (alloc_stream(a, &a->s[i], i) < 0) {
			audio_destroy(&a->part);
			return NULL;
		}
	return &a->part;
}

static int audio_check(const void *config, const char *where)
{
	const struct audio_conf *c = config;
	double period_ns = (double)c->period * 1e9 / (double)c->rate;

	if (period_ns < 50e3)
		return error("%s: period %llu frames at %llu Hz is %.1fus, below 50us", where,
			     (unsigned long long)c->period, (unsigned long long)c->rate,
			     period_ns / 1e3);
	if (period_ns > 1e9)
		return error("%s: period %llu frames at %llu Hz is longer than 1s", where,
			     (unsigned long long)c->period, (unsigned long long)c->rate);
	return 0;
}

/* ---- reading back: RUN/audio.records ------------------------------- */

/* The next record, a version 1 one widened. */
static int audio_next(struct lw_records_reader *r, struct lw_audio_record *rec)
{
	struct lw_audio_record_v1 o;
	int ret;

	if (lw_records_version(r) != 1)
		return lw_records_next(r, rec);
	ret = lw_records_next(r, &o);
	if (ret > 0)
		*rec = (struct lw_audio_record){
			.boundary_ns = o.boundary_ns, .period = o.period, .irq_ns = o.irq_ns,
			.wakeup_ns = o.wakeup_ns, .proc_ns = o.proc_ns, .slack_ns = o.slack_ns,
			.stream = o.stream, .cpu = o.cpu, .flags = o.flags,
		};
	return ret;
}

static int audio_read(struct lw_records_reader *r, struct lw_rec_acc *x)
{
	struct lw_audio_record rec;
	int ret;

	while ((ret = audio_next(r, &rec)) > 0) {
		if (lw_rec_count(x, rec.boundary_ns, rec.slack_ns, rec.flags))
			json_array_append_new(x->misses, json_pack("{s:I, s:I, s:i, s:i, s:I, s:b, s:I, s:I, s:I}",
				"boundary_ns", (json_int_t)rec.boundary_ns,
				"period", (json_int_t)rec.period, "stream", rec.stream,
				"cpu", rec.cpu, "lateness_ns", (json_int_t)-(int64_t)rec.slack_ns,
				"skipped", !!(rec.flags & LW_REC_SKIPPED),
				"irq_ns", (json_int_t)rec.irq_ns, "wakeup_ns", (json_int_t)rec.wakeup_ns,
				"proc_ns", (json_int_t)rec.proc_ns));
		if (rec.flags & LW_REC_SKIPPED)
			continue;
		if (lw_rvec_push(&x->a, rec.wakeup_ns) < 0 || lw_rvec_push(&x->b, rec.irq_ns) < 0 ||
		    lw_rvec_push(&x->c, rec.irq_ns + rec.wakeup_ns) < 0 ||
		    lw_rvec_push(&x->d, rec.proc_ns) < 0)
			return -1;
	}
	return ret;
}

static void audio_summarize(json_t *o, struct lw_rec_acc *x, const struct lw_records_hdr *h,
			    double span)
{
	json_object_set_new(o, "streams", json_integer(h->streams));
	json_object_set_new(o, "periods", json_integer((json_int_t)x->count));
	json_object_set_new(o, "periods_per_s_per_stream", json_real(span > 0 && h->streams ?
		(double)x->count / h->streams / (span / 1e9) : 0));
	json_object_set_new(o, "wakeup_ns", lw_rvec_dist(&x->a));
	json_object_set_new(o, "irq_ns", lw_rvec_dist(&x->b));
	json_object_set_new(o, "latency_ns", lw_rvec_dist(&x->c));
	json_object_set_new(o, "proc_ns", lw_rvec_dist(&x->d));
}

static long long geti(const json_t *o, const char *k)
{
	return (long long)json_integer_value(json_object_get(o, k));
}

static void audio_print(FILE *out, const char *name, const json_t *s)
{
	fprintf(out, "  %s: %lld periods (%lld streams), %lld xruns (%lld skipped), "
		"worst slack %.1fus\n", name, geti(s, "periods"), geti(s, "streams"),
		geti(s, "xruns"), geti(s, "skipped"), (double)geti(s, "worst_slack_ns") / 1e3);
	lw_rec_dist_line(out, "interrupt->thread", json_object_get(s, "wakeup_ns"));
	lw_rec_dist_line(out, "boundary->thread", json_object_get(s, "latency_ns"));
	lw_rec_dist_line(out, "processing", json_object_get(s, "proc_ns"));
}

static void audio_miss_detail(char *buf, size_t len, const json_t *ev)
{
	const json_t *cpu = json_object_get(ev, "cpu");

	snprintf(buf, len, "period %.0f, stream %.0f, CPU %d, %.1f us late%s",
		 lw_jnum(ev, "period", 0), lw_jnum(ev, "stream", 0),
		 json_is_number(cpu) ? (int)json_number_value(cpu) : -1,
		 lw_jnum(ev, "lateness_ns", 0) / 1e3,
		 json_is_true(json_object_get(ev, "skipped")) ? ", skipped" : "");
}

static uint64_t jns(const json_t *o, const char *k)
{
	json_int_t v = json_integer_value(json_object_get(o, k));

	return v > 0 ? (uint64_t)v : 0;
}

/* Boundary B to the end of its processing: the interrupt thread's latency,
 * the stream thread's wake-up, its processing (the record's irq_ns,
 * wakeup_ns, proc_ns); it had to end at the next boundary. */
static int audio_miss_window(const json_t *m, const json_t *s, const json_t *ev,
			     struct lw_miss_window *w)
{
	const json_t *b = json_object_get(ev, "boundary_ns"), *st;
	const json_t *params = json_object_get(s, "params");
	const char *policy = json_string_value(json_object_get(s, "policy"));
	double interval = json_number_value(json_object_get(s, "interval_ns"));
	int64_t late = json_integer_value(json_object_get(ev, "lateness_ns"));
	json_int_t stream = json_integer_value(json_object_get(ev, "stream"));
	uint64_t len;
	char name[16];
	size_t i;

	if (!json_is_integer(b) || json_integer_value(b) <= 0 || !(interval > 0) || interval > 1e12)
		return -1;
	if (late > INT32_MAX)	/* from an int32 slack */
		late = INT32_MAX;
	memset(w, 0, sizeof(*w));
	w->start_ns = (uint64_t)json_integer_value(b);
	len = (uint64_t)llround(interval) + (late > 0 ? (uint64_t)late : 0);
	w->end_ns = w->start_ns + len;
	w->cpu = json_is_integer(json_object_get(ev, "cpu")) ?
		 (int)json_integer_value(json_object_get(ev, "cpu")) : -1;
	w->processed = !json_is_true(json_object_get(ev, "skipped"));
	w->stage_ns[0] = jns(ev, "irq_ns") < len ? jns(ev, "irq_ns") : len;
	if (w->processed) {
		w->stage_ns[2] = jns(ev, "proc_ns") < len - w->stage_ns[0] ? jns(ev, "proc_ns") :
				 len - w->stage_ns[0];
	}
	w->stage_ns[1] = len - w->stage_ns[0] - w->stage_ns[2];
	w->work_ns = lw_rwork_budget(s);
	snprintf(name, sizeof(name), "lw-audio/%d", (int)stream);
	lw_rthread_get(&w->worker, NULL, policy, name,
		       (int)json_integer_value(json_object_get(params, "prio")));
	json_array_foreach(json_object_get(m, "streams"), i, st)
		if (json_integer_value(json_object_get(st, "stream")) == stream)
			lw_rthread_get(&w->worker, st, policy, name, 0);
	lw_rthread_get(&w->waker, json_object_get(m, "irq_thread"), policy, "lw-audio-irq",
		       (int)json_integer_value(json_object_get(params, "irq_prio")));
	return 0;
}

static const struct lw_rkind audio_records = {
	.kind = "audio",
	.record_size = sizeof(struct lw_audio_record),
	.record_size_v1 = sizeof(struct lw_audio_record_v1),
	.read = audio_read,
	.summarize = audio_summarize,
	.print = audio_print,
	.miss_detail = audio_miss_detail,
	.miss_key = "xruns",
	.list_key = "xrun_list",
	.time_key = "boundary_ns",
	.total_key = "periods",
	.metric = "xruns",
	.noun = "xruns",
	.probe = LW_SAMPLE_AUDIO,
	.threads_key = "streams",
	.miss_window = audio_miss_window,
	.stage_names = { "interrupt", "wake-up", "processing" },
};

const struct lw_workload lw_workload_audio = {
	.name = "audio",
	.help = "audio driver: periodic DMA interrupt, SCHED_FIFO DSP per stream, xruns",
	.params = audio_params,
	.config_size = sizeof(struct audio_conf),
	.check = audio_check,
	.create = audio_create,
	.records = &audio_records,
};
