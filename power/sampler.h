/* SPDX-License-Identifier: GPL-2.0-only */
/* The power sampler run participant (power/sampler.c). */
#ifndef LW_POWER_SAMPLER_H
#define LW_POWER_SAMPLER_H

#include <sched.h>

struct lw_board;
struct lw_part;

struct lw_power_sampler_opts {
	const char *root;		/* --sysfs-root, "" for the live system */
	unsigned mask;			/* enum lw_src_type */
	int is_auto;			/* --power auto */
	const char *iio_uri;		/* --iio-uri */
	double rate_hz;			/* --power-rate */
	int rate_default;		/* not given: MODEL_RATE_HZ when only the
					 * energy model is sampled */
	const struct lw_board *board;	/* the energy model; may be NULL */
	cpu_set_t affinity;		/* where the sampler thread runs */
	int has_affinity;
};

struct lw_part *lw_power_sampler_new(const struct lw_power_sampler_opts *o);

#endif
