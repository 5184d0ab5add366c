/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kinds of power source, listed once.  X(name, NAME, sensor):
 *
 *   name    what --power, board files (power_sources: type) and a rail's
 *           source call it; `const struct lw_power_source_type lw_src_<name>`
 *           in power/src_<name>.c reads it (power/sources.h)
 *   NAME    its bit, LW_SRC_<NAME> (enum lw_src_type)
 *   sensor  1: a sensor, looked for by `--power auto` and listed by a board's
 *           power_sources; 0: an estimate, taken by auto only when no sensor
 *           is found
 *
 * The order is the order of discovery (rails keep it) and of every list.
 * The list is in lib/ because boards/ checks a board file's source types
 * against it, and boards/ may not include power/ (power/ includes boards/).
 */
#ifndef LW_POWERSRC_H
#define LW_POWERSRC_H

#define LW_POWER_SOURCES(X)		\
	X(hwmon, HWMON, 1)		\
	X(iio, IIO, 1)			\
	X(rapl, RAPL, 1)		\
	X(battery, BATTERY, 1)		\
	X(model, MODEL, 0)

#endif
