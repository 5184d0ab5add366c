/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Power sources: each discovered rail is a channel the sampler reads.
 *
 * Each kind of source is one const descriptor, struct lw_power_source_type,
 * in its own file (power/src_hwmon.c: `lw_src_hwmon`), listed once in
 * LW_POWER_SOURCES() (lib/powersrc.h): hwmon, iio, rapl, battery and model,
 * the board's energy model over the cpuidle counters.  --power, the help
 * texts, board files and the messages naming the sources take the list from
 * there.  The channels and their reading are power/sources.c's
 * (power/chan.h for the source files).
 *
 * Every sysfs path is read under a root directory (--sysfs-root), so tests
 * and offline checks read a copy of a sysfs tree.
 */
#ifndef LW_POWER_SOURCES_H
#define LW_POWER_SOURCES_H

#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/powersrc.h"

struct lw_board;

enum lw_src_index {
#define LW_SRC_INDEX(n, N, sensor) LW_SRC_I_##N,
	LW_POWER_SOURCES(LW_SRC_INDEX)
#undef LW_SRC_INDEX
	LW_SRC_NTYPES
};

enum lw_src_type {
#define LW_SRC_BIT(n, N, sensor) LW_SRC_##N = 1 << LW_SRC_I_##N,
	LW_POWER_SOURCES(LW_SRC_BIT)
#undef LW_SRC_BIT
#define LW_SRC_SENSOR_BIT(n, N, sensor) | ((sensor) ? LW_SRC_##N : 0)
	LW_SRC_SENSORS = 0 LW_POWER_SOURCES(LW_SRC_SENSOR_BIT),
#undef LW_SRC_SENSOR_BIT
	LW_SRC_ALL = (1 << LW_SRC_NTYPES) - 1,
};

/* "auto", "off", "model" or a comma list of hwmon,iio,rapl,battery,model.
 * auto: every sensor type; the model when no sensor is found. */
int lw_power_parse_sources(const char *what, const char *s, unsigned *mask, int *is_auto);
/* "hwmon,rapl" for a mask ("off" for none), in @buf. */
const char *lw_power_sources_str(unsigned mask, char *buf, size_t len);
/* The names (or with @labels, the labels: "hwmon, IIO") of the sources in
 * @mask, joined by @sep, in @buf. */
const char *lw_power_sources_list(unsigned mask, int labels, const char *sep, char *buf,
				  size_t len);

struct lw_chan;			/* one rail */

struct lw_chans {
	struct lw_chan **c;
	int n;
	void *iio_ctx;		/* libiio context when --iio-uri is used */
};

struct lw_power_opts {
	const char *root;	/* sysfs root: "" for the live system */
	unsigned mask;		/* enum lw_src_type */
	int is_auto;
	const char *iio_uri;	/* NULL: local IIO through sysfs */
	const struct lw_board *board;	/* for the model; may be NULL */
	int ncpus;		/* model: CPUs to account (0: every online CPU) */
};

/* Find the rails.  0 (possibly none found) or -1 after error(). */
int lw_power_discover(const struct lw_power_opts *o, struct lw_chans *out);
void lw_power_chans_free(struct lw_chans *cs);

/* Rail description. */
const char *lw_chan_name(const struct lw_chan *c);
const char *lw_chan_source(const struct lw_chan *c);
const char *lw_chan_detail(const struct lw_chan *c);
unsigned lw_chan_flags(const struct lw_chan *c);

/*
 * Read one rail at @now (CLOCK_MONOTONIC ns).  0 with the values (NAN where
 * not known; on energy rails the energy since the first read), or -1 with
 * @why filled (no error() printed: a failing sensor is a gap, not an error).
 */
int lw_chan_read(struct lw_chan *c, uint64_t now, double *w, double *e, double *v, double *a,
		 char *why, size_t whylen);

struct lw_power_source_type {
	const char *name;	/* "rapl", as LW_POWER_SOURCES() names it */
	const char *label;	/* "RAPL powercap", in messages */
	const char *help;	/* one line: what it reads (`latwatt power --help`) */
	/* Add the rails found to @cs (o->root is "" for the live system).
	 * 0, possibly with none found, or -1 after error(). */
	int (*discover)(const struct lw_power_opts *o, struct lw_chans *cs);
	/* Read a rail it added with kind LW_CHAN_OWN, as lw_chan_read() does;
	 * NULL when its rails are all read by kind (power/chan.h). */
	int (*read)(struct lw_chan *c, uint64_t now, double *w, double *e, double *v, double *a,
		    char *why, size_t whylen);
};

#define LW_SRC_DECLARE(n, N, sensor) extern const struct lw_power_source_type lw_src_##n;
LW_POWER_SOURCES(LW_SRC_DECLARE)
#undef LW_SRC_DECLARE

/* Every source, in list order (index enum lw_src_index). */
extern const struct lw_power_source_type *const lw_power_source_types[LW_SRC_NTYPES];

/* What is there under @root, for sysinfo and board checks:
 * [{"type", "name", "path"}]. */
json_t *lw_power_discover_json(const char *root, const char *iio_uri);

#endif
