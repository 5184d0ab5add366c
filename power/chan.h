/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A rail as the source files (power/src_*.c) fill it in, and the sysfs
 * helpers they share.  Private to power/: everyone else has
 * power/sources.h.
 *
 * A source's discover() adds its rails with lw_chan_add() and sets their
 * paths and scales; lw_chan_read() (power/sources.c) reads them by kind,
 * or through the source's read() for LW_CHAN_OWN.
 */
#ifndef LW_POWER_CHAN_H
#define LW_POWER_CHAN_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#ifdef LW_HAVE_IIO
#include <iio.h>
#endif

struct lw_chans;
struct lw_power_source_type;

enum lw_chan_kind {
	LW_CHAN_POWER,	/* a power reading, optional volts/amps beside it */
	LW_CHAN_VI,	/* volts * amps */
	LW_CHAN_ENERGY,	/* an energy counter */
	LW_CHAN_OWN,	/* read by its source's read() */
};

struct lw_chan {
	char name[192];
	char source[16];
	char detail[2 * PATH_MAX + 64];
	unsigned flags;
	enum lw_chan_kind kind;
	const struct lw_power_source_type *type;
	/* sysfs paths (empty when absent) and their scale to W, V, A or J */
	char p_main[PATH_MAX], p_volt[PATH_MAX], p_curr[PATH_MAX];
	char p_main_off[PATH_MAX], p_volt_off[PATH_MAX], p_curr_off[PATH_MAX];
	double s_main, s_volt, s_curr;
	int abs_curr;
	uint64_t range;			/* energy: wraps here (0: never) */
	/* energy and model state */
	int have_prev;
	uint64_t prev_raw, prev_ts;
	double acc_j;
#ifdef LW_HAVE_IIO
	struct iio_channel *ich[3];	/* main (power or current), voltage, current */
#endif
	void *priv;			/* the source's, freed with the rail */
};

/* A new rail of @type at the end of @cs.  NULL when out of memory. */
struct lw_chan *lw_chan_add(struct lw_chans *cs, const struct lw_power_source_type *type,
			    enum lw_chan_kind kind);
/* Take back the last rail lw_chan_add() gave (one found unusable). */
void lw_chan_drop_last(struct lw_chans *cs);
/* Name it "DEV/LABEL", or "DEV.ALT/LABEL" when that is taken; blanks become '_'. */
void lw_chan_set_name(struct lw_chans *cs, struct lw_chan *c, const char *dev, const char *alt,
		      const char *label);

/* ---- sysfs helpers ---- */

/* The file's text without the trailing newline; < 0 with errno in @err. */
int lw_src_read_str(const char *path, char *buf, size_t len, int *err);
/* A number or a counter; -1 with @why filled. */
int lw_src_read_num(const char *path, double *v, char *why, size_t whylen);
int lw_src_read_u64(const char *path, uint64_t *v, char *why, size_t whylen);
int lw_src_exists(const char *path);
/* snprintf into @out; -1 when it does not fit. */
int lw_src_pathf(char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Entries of @dir whose names start with @prefix, sorted (hwmon2 before
 * hwmon10); free with lw_src_free_list(). */
char **lw_src_list_dir(const char *dir, const char *prefix, int *count);
void lw_src_free_list(char **l, int n);

#endif
