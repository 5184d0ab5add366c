/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Power sources: each discovered rail is a channel the sampler reads.
 *
 *   hwmon    /sys/class/hwmon/hwmonN: powerN_input (uW), energyN_input (uJ),
 *            currN_input (mA) with inN_input (mV); names from name, *_label
 *   iio      /sys/bus/iio/devices/iio:deviceN: in_powerN, in_currentN with
 *            in_voltageN (raw * scale, or input: mW, mA, mV); or libiio
 *            over --iio-uri (ip:HOST, usb:..., local:)
 *   rapl     /sys/class/powercap/intel-rapl:N: energy_uj, wrapping at
 *            max_energy_range_uj
 *   battery  /sys/class/power_supply/NAME: type Battery, power_now (uW) or
 *            current_now (uA) * voltage_now (uV)
 *   model    the board's energy model over the cpuidle residency counters
 *            and the current frequency (estimated)
 *
 * Every sysfs path is read under a root directory (--sysfs-root), so tests
 * and offline checks read a copy of a sysfs tree.
 */
#ifndef LW_POWER_SOURCES_H
#define LW_POWER_SOURCES_H

#include <jansson.h>
#include <limits.h>
#include <stdint.h>

struct lw_board;

enum lw_src_type {
	LW_SRC_HWMON   = 1 << 0,
	LW_SRC_IIO     = 1 << 1,
	LW_SRC_RAPL    = 1 << 2,
	LW_SRC_BATTERY = 1 << 3,
	LW_SRC_MODEL   = 1 << 4,
	LW_SRC_SENSORS = LW_SRC_HWMON | LW_SRC_IIO | LW_SRC_RAPL | LW_SRC_BATTERY,
};

/* "auto", "off", "model" or a comma list of hwmon,iio,rapl,battery,model.
 * auto: every sensor type; the model when no sensor is found. */
int lw_power_parse_sources(const char *what, const char *s, unsigned *mask, int *is_auto);
/* "hwmon,rapl" for a mask (static buffer not used: @buf). */
const char *lw_power_sources_str(unsigned mask, char *buf, size_t len);

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

/* What is there under @root, for sysinfo and board checks:
 * [{"type", "name", "path"}]. */
json_t *lw_power_discover_json(const char *root, const char *iio_uri);

#endif
