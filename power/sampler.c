// SPDX-License-Identifier: GPL-2.0-only
/*
 * The power sampler: a run participant (after the trace recorder, before
 * the probes) with one non-realtime thread reading every rail at the
 * configured rate into RUN/power, and the cpuidle counters at the start and
 * end of the run into RUN/idle.json.  A rail that fails to read is a gap in
 * the file, never the end of the run.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "boards/board.h"
#include "lib/error.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/thread.h"
#include "lib/timeutil.h"
#include "power/idle.h"
#include "power/power.h"
#include "power/sampler.h"
#include "power/sources.h"

#define FLUSH_NS LW_NSEC_PER_SEC

/* Default rate when every rail is the board's energy model. */
#define MODEL_RATE_HZ 1.0

struct rail_state {
	int failing;
	uint64_t samples, failures, gaps;
	double last_w;
};

struct sampler {
	struct lw_part part;
	struct lw_power_sampler_opts o;
	struct lw_chans chans;
	struct rail_state *rs;
	struct lw_power_writer *w;
	json_t *idle_start;
	uint64_t idle_start_ns;
	pthread_t tid;
	int running;
	struct lw_stopper stop;		/* stop wakes the thread at once */
	/* thread results */
	uint64_t ticks, missed_ticks, cpu_ns;
	int write_failed;
};

/* Every rail read once at @now into RUN/power. */
static void read_all(struct sampler *s, uint64_t now)
{
	char why[512];

	for (int i = 0; i < s->chans.n; i++) {
		struct rail_state *r = &s->rs[i];
		double w, e, v, a;

		if (lw_chan_read(s->chans.c[i], now, &w, &e, &v, &a, why, sizeof(why)) < 0) {
			r->failures++;
			if (!r->failing) {
				r->failing = 1;
				r->gaps++;
				if (lw_power_gap(s->w, i, now, why) < 0)
					s->write_failed = 1;
			}
			continue;
		}
		r->failing = 0;
		r->samples++;
		if (lw_power_sample(s->w, i, now, w, e, v, a) < 0)
			s->write_failed = 1;
	}
}

/*
 * A sample of every rail when the sampler starts, one each period, and one
 * when it is stopped (the stop wakes it at once): the samples span the
 * whole run.  Without that last one, a run of 3 s sampled at 1 Hz (the
 * energy model's rate) lost its last second: 3.786 J over 2.0 s.
 */
static void *sampler_main(void *arg)
{
	struct sampler *s = arg;
	const uint64_t period = (uint64_t)(1e9 / s->o.rate_hz);
	uint64_t next = lw_mono_ns(), last_flush = next, cpu0;

	pthread_setname_np(pthread_self(), "lw-power");
	cpu0 = lw_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	for (;;) {
		uint64_t now = lw_mono_ns();

		read_all(s, now);
		s->ticks++;
		if (now - last_flush >= FLUSH_NS) {
			if (lw_power_flush(s->w) < 0)
				s->write_failed = 1;
			last_flush = now;
		}
		next += period;
		now = lw_mono_ns();
		if (next < now) {	/* fell behind: skip, do not burst */
			uint64_t behind = (now - next) / period + 1;

			s->missed_ticks += behind;
			next += behind * period;
		}
		if (lw_stopper_sleep_until(&s->stop, next))
			break;
	}
	read_all(s, lw_mono_ns());	/* the end of the run */
	s->cpu_ns = lw_clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	return NULL;
}

static int sampler_start(struct lw_run *run, struct lw_part *p)
{
	struct sampler *s = p->priv;
	struct lw_power_opts po = {
		.root = s->o.root, .mask = s->o.mask, .is_auto = s->o.is_auto,
		.iio_uri = s->o.iio_uri, .board = s->o.board,
	};
	char path[4096];
	struct lw_sched sch = { .policy = SCHED_OTHER, .cpu = -1,
				.cpus = s->o.has_affinity ? &s->o.affinity : NULL };

	s->idle_start = lw_idle_snapshot(s->o.root);
	s->idle_start_ns = lw_mono_ns();
	if (!s->o.mask && !s->o.is_auto)
		return 0;	/* --power off: idle accounting only */
	if (lw_power_discover(&po, &s->chans) < 0)
		return -1;
	if (s->o.rate_default) {
		int measured = 0;

		for (int i = 0; i < s->chans.n; i++)
			measured |= !(lw_chan_flags(s->chans.c[i]) & LW_RAIL_ESTIMATED);
		/* the model integrates residency counters: a sample a second loses
		 * no energy, and the sampler wakes ten times less */
		if (!measured)
			s->o.rate_hz = MODEL_RATE_HZ;
	}
	if (!s->chans.n) {
		if (!s->o.is_auto) {
			char l[64];

			return error("--power %s: no such power source found%s%s",
				     lw_power_sources_str(s->o.mask, l, sizeof(l)),
				     *s->o.root ? " under " : "", s->o.root);
		}
		return 0;	/* auto and nothing there: recorded in finish() */
	}
	s->rs = calloc((size_t)s->chans.n, sizeof(*s->rs));
	if (!s->rs)
		return error("out of memory");
	s->w = lw_power_create(run->dir.dfd, lw_rundir_file(&run->dir, "power", path, sizeof(path)),
			       run->start_mono, 0);
	if (!s->w)
		return -1;
	for (int i = 0; i < s->chans.n; i++)
		if (lw_power_rail(s->w, i, lw_chan_name(s->chans.c[i]), lw_chan_source(s->chans.c[i]),
				  lw_chan_flags(s->chans.c[i]), lw_chan_detail(s->chans.c[i])) < 0)
			return -1;
	if (lw_power_flush(s->w) < 0)
		return -1;
	if (lw_thread_start(&s->tid, sampler_main, s, &sch, "the power sampler") < 0)
		return -1;
	s->running = 1;
	return 0;
}

static void sampler_stop(struct lw_run *run, struct lw_part *p)
{
	struct sampler *s = p->priv;

	if (s->running) {
		lw_stopper_stop(&s->stop);
		pthread_join(s->tid, NULL);
		s->running = 0;
	}
}

static int sampler_finish(struct lw_run *run, struct lw_part *p)
{
	struct sampler *s = p->priv;
	uint64_t end = lw_mono_ns();
	json_t *pw = json_object(), *rails = json_array();
	char path[4096], l[64];
	int ret = 0;

	/* idle accounting from the counters */
	if (s->idle_start) {
		json_t *now = lw_idle_snapshot(s->o.root);
		json_t *idle = json_pack("{s:s, s:i, s:I, s:o}", "format", LW_IDLE_FORMAT,
					 "version", LW_IDLE_VERSION,
					 "duration_ns", (json_int_t)(end - s->idle_start_ns),
					 "sysfs", lw_idle_delta(s->idle_start, now, end - s->idle_start_ns));

		if (lw_json_save_at(run->dir.dfd, idle,
				    lw_rundir_file(&run->dir, "idle.json", path, sizeof(path))) < 0)
			ret = -1;
		json_decref(idle);
		json_decref(now);
	}
	json_object_set_new(pw, "sources", json_string(s->o.is_auto ? "auto" :
		lw_power_sources_str(s->o.mask, l, sizeof(l))));
	json_object_set_new(pw, "sysfs_root", json_string(*s->o.root ? s->o.root : "/"));
	if (s->o.iio_uri)
		json_object_set_new(pw, "iio_uri", json_string(s->o.iio_uri));
	json_object_set_new(pw, "rate_hz", json_real(s->o.rate_hz));
	if (s->w) {
		/* the run's end as the manifest says it (the parts stopped; what
		 * they write afterwards is not the run), so that every power
		 * figure is said against the same span as the estimate's */
		const json_t *me = json_object_get(json_object_get(run->dir.manifest, "end"),
						   "monotonic_ns");

		if (lw_power_close(s->w, json_is_integer(me) && json_integer_value(me) > 0 ?
					 (uint64_t)json_integer_value(me) : end) < 0)
			ret = -1;
		s->w = NULL;
		json_object_set_new(pw, "file", json_pack("{s:s, s:s, s:i}", "name", "power",
			"format", LW_POWER_MAGIC, "version", LW_POWER_VERSION));
		for (int i = 0; i < s->chans.n; i++)
			json_array_append_new(rails, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I}",
				"name", lw_chan_name(s->chans.c[i]), "source", lw_chan_source(s->chans.c[i]),
				"kind", lw_chan_flags(s->chans.c[i]) & LW_RAIL_ESTIMATED ? "estimated" : "measured",
				"samples", (json_int_t)s->rs[i].samples, "gaps", (json_int_t)s->rs[i].gaps,
				"failed_reads", (json_int_t)s->rs[i].failures));
		json_object_set_new(pw, "sampler", json_pack("{s:I, s:I, s:I, s:f}",
			"ticks", (json_int_t)s->ticks, "missed_ticks", (json_int_t)s->missed_ticks,
			"cpu_ns", (json_int_t)s->cpu_ns,
			"cpu_ns_per_tick", s->ticks ? (double)s->cpu_ns / (double)s->ticks : 0.0));
		if (s->write_failed)
			ret = error("power: cannot write RUN/power (see above)");
	} else {
		json_object_set_new(pw, "file", json_null());
		json_object_set_new(pw, "reason", json_string(!s->o.mask && !s->o.is_auto ?
			"power sampling off (--power off)" :
			"no power sensor found and the board has no energy model: "
			"estimate later with 'latwatt power estimate RUN --board NAME'"));
	}
	json_object_set_new(pw, "rails", rails);
	json_object_set_new(run->dir.manifest, "power", pw);
	return ret;
}

static void sampler_progress(struct lw_run *run, struct lw_part *p, char *buf, size_t len)
{
	struct sampler *s = p->priv;

	if (s->running && s->rs && s->chans.n)
		snprintf(buf, len, "power %d rails", s->chans.n);
	else
		buf[0] = 0;
}

static void sampler_destroy(struct lw_part *p)
{
	struct sampler *s = p->priv;

	if (s->w)
		lw_power_close(s->w, 0);
	lw_power_chans_free(&s->chans);
	json_decref(s->idle_start);
	free(s->rs);
	lw_stopper_destroy(&s->stop);
	free(s);
}

struct lw_part *lw_power_sampler_new(const struct lw_power_sampler_opts *o)
{
	struct sampler *s;

	if (!(o->rate_hz > 0) || o->rate_hz > 100000) {
		error("--power-rate: %g Hz is out of range (0, 100000]", o->rate_hz);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		error("out of memory");
		return NULL;
	}
	s->o = *o;
	if (!s->o.root)
		s->o.root = "";
	lw_stopper_init(&s->stop);
	s->part = (struct lw_part){
		.name = "power",
		.start = sampler_start,
		.stop = sampler_stop,
		.finish = sampler_finish,
		.progress = sampler_progress,
		.destroy = sampler_destroy,
		.priv = s,
	};
	return &s->part;
}
