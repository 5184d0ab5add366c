/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `latwatt power import RUN meter.csv`: an external power meter's log
 * (a CSV with a time column and one or more power columns) aligned to the
 * run and added to RUN/power as measured rails named meter/COLUMN.
 *
 * Alignment: --offset S says the meter's clock read S seconds when the run
 * started; --marker COLUMN takes the first row where COLUMN is set (not
 * empty, not 0) as the start of the run (a GPIO toggled by the run and
 * logged by the meter, or a note typed at the start).  A board-level meter
 * supersedes on-board sensors in the total (lw_power_summarize()).
 */
#ifndef LW_POWER_IMPORT_H
#define LW_POWER_IMPORT_H

struct lw_import_opts {
	double offset_s;		/* NAN: not given */
	const char *marker;		/* column */
	const char *const *columns;	/* "NAME" or "NAME:mW"; none: by unit in the header */
	int ncolumns;
	const char *time_col;		/* default: the first time-like column, else the first */
	const char *time_unit;		/* s (default), ms, us, ns */
};

int lw_power_import_csv(const char *rundir, const char *csv, const struct lw_import_opts *o);

#endif
