// SPDX-License-Identifier: GPL-2.0-only
/* An external power meter's CSV log, aligned to a run and added to RUN/power. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/rundir.h"
#include "lib/safefile.h"
#include "power/import.h"
#include "power/power.h"

#define MAX_COLS 64

static int split_csv(char *line, char **f, int max, char sep)
{
	int n = 0;
	char *p = line;

	while (n < max) {
		while (*p == ' ')
			p++;
		if (*p == '"') {
			char *end = strchr(p + 1, '"');

			f[n++] = p + 1;
			if (end) {
				*end = 0;
				p = strchr(end + 1, sep);
			} else {
				p = NULL;
			}
		} else {
			f[n++] = p;
			p = strchr(p, sep);
		}
		if (!p)
			break;
		*p++ = 0;
	}
	for (int i = 0; i < n; i++) {
		size_t l = strlen(f[i]);

		while (l && (f[i][l - 1] == ' ' || f[i][l - 1] == '\r' || f[i][l - 1] == '\n'))
			f[i][--l] = 0;
	}
	return n;
}

/* Scale to watts from a column name's unit, 0 when it is not a power column. */
static double unit_scale(const char *name)
{
	static const struct { const char *suffix; double scale; } u[] = {
		{ "(mW)", 1e-3 }, { "[mW]", 1e-3 }, { "_mw", 1e-3 }, { " mW", 1e-3 },
		{ "(uW)", 1e-6 }, { "[uW]", 1e-6 }, { "_uw", 1e-6 },
		{ "(W)", 1 }, { "[W]", 1 }, { "_w", 1 }, { " W", 1 }, { "watts", 1 }, { "power", 1 },
	};
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		size_t l = strlen(u[i].suffix);

		if (n >= l && !strcasecmp(name + n - l, u[i].suffix) &&
		    (strcmp(u[i].suffix, "_mw") || !strcmp(name + n - l, "_mW") ||
		     !strcmp(name + n - l, "_mw")))
			return u[i].scale;
	}
	return 0;
}

static int parse_unit(const char *what, const char *u, double *scale)
{
	if (!strcmp(u, "W"))
		*scale = 1;
	else if (!strcmp(u, "mW"))
		*scale = 1e-3;
	else if (!strcmp(u, "uW"))
		*scale = 1e-6;
	else
		return error("%s: unit '%s' is not W, mW or uW", what, u);
	return 0;
}

static int time_unit(const char *u, double *to_s)
{
	static const struct { const char *n; double s; } t[] = {
		{ "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(u, t[i].n)) {
			*to_s = t[i].s;
			return 0;
		}
	return error("--time-unit: '%s' is not s, ms, us or ns", u);
}

/* The highest rail id in @path, -1 if there is no such file, -2 on error. */
static int max_rail_id(const char *path)
{
	struct lw_power_data *d;
	struct stat st;
	int max = -1;
	int q;

	if (lstat(path, &st) < 0)
		return -1;
	if (!S_ISREG(st.st_mode)) {
		error("%s is not a regular file: refusing to add to it", path);
		return -2;
	}
	q = lw_set_quiet(1);
	d = lw_power_read(path);
	lw_set_quiet(q);
	if (!d) {
		error("%s: cannot add to it (run 'latwatt power show' to see why)", path);
		return -2;
	}
	for (int i = 0; i < d->nrail; i++)
		if (d->rail[i].id > max)
			max = d->rail[i].id;
	lw_power_data_free(d);
	return max;
}

int lw_power_import_csv(const char *rundir, const char *csv, const struct lw_import_opts *o)
{
	char ppath[PATH_MAX], *line = NULL, *fld[MAX_COLS], *hdr[MAX_COLS];
	char *header = NULL;
	struct lw_rundir rd;
	FILE *f = NULL;
	size_t cap = 0;
	ssize_t len;
	long lineno = 0, rows = 0, outside = 0;
	int ncol = 0, tcol = -1, pcol[MAX_COLS], npcol = 0, first_id, ret = -1;
	double pscale[MAX_COLS], tscale = 1, t_start = NAN;
	uint64_t start_ns, end_ns;
	struct lw_power_writer *w = NULL;
	char sep = ',';
	struct { double t; double v[MAX_COLS]; } *buf = NULL;
	size_t nbuf = 0, bufcap = 0;

	if (lw_rundir_open(&rd, rundir) < 0)
		return -1;
	start_ns = (uint64_t)json_integer_value(json_object_get(json_object_get(rd.manifest, "start"),
								"monotonic_ns"));
	end_ns = (uint64_t)json_integer_value(json_object_get(json_object_get(rd.manifest, "end"),
							      "monotonic_ns"));
	if (!start_ns) {
		error("%s/manifest.json: the run has no start time", rundir);
		goto out;
	}
	if (isnan(o->offset_s) && !o->marker) {
		error("give --offset S (the meter's time at the start of the run) or --marker COLUMN");
		goto out;
	}
	if (o->time_unit && time_unit(o->time_unit, &tscale) < 0)
		goto out;
	f = fopen(csv, "r");
	if (!f) {
		error_errno("cannot open %s", csv);
		goto out;
	}
	/* header: the first line that is not a comment */
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (line[0] != '#' && len > 1)
			break;
	}
	if (len < 0) {
		error("%s: no header line", csv);
		goto out;
	}
	if (!strchr(line, ',') && strchr(line, ';'))
		sep = ';';
	else if (!strchr(line, ',') && strchr(line, '\t'))
		sep = '\t';
	header = strdup(line);
	ncol = split_csv(header, hdr, MAX_COLS, sep);
	for (int i = 0; i < ncol; i++) {
		if (o->time_col ? !strcmp(hdr[i], o->time_col) :
		    (tcol < 0 && (!strncasecmp(hdr[i], "time", 4) || !strcasecmp(hdr[i], "t") ||
				  !strncasecmp(hdr[i], "timestamp", 9) || !strncasecmp(hdr[i], "elapsed", 7) ||
				  !strncasecmp(hdr[i], "seconds", 7))))
			tcol = i;
	}
	if (tcol < 0 && o->time_col) {
		error("%s:%ld: no column '%s' (--time-col)", csv, lineno, o->time_col);
		goto out;
	}
	if (tcol < 0)
		tcol = 0;
	for (int c = 0; c < o->ncolumns; c++) {
		char name[256], *colon;
		int i;
		double s = 1;

		snprintf(name, sizeof(name), "%s", o->columns[c]);
		colon = strrchr(name, ':');
		if (colon) {
			*colon = 0;
			if (parse_unit("--column", colon + 1, &s) < 0)
				goto out;
		}
		for (i = 0; i < ncol; i++)
			if (!strcmp(hdr[i], name))
				break;
		if (i == ncol) {
			error("%s:%ld: no column '%s' (--column)", csv, lineno, name);
			goto out;
		}
		pcol[npcol] = i;
		pscale[npcol++] = s;
	}
	if (!o->ncolumns)
		for (int i = 0; i < ncol && npcol < MAX_COLS; i++)
			if (i != tcol && unit_scale(hdr[i]) > 0 &&
			    (!o->marker || strcmp(hdr[i], o->marker))) {
				pcol[npcol] = i;
				pscale[npcol++] = unit_scale(hdr[i]);
			}
	if (!npcol) {
		error("%s:%ld: no power column found (name one with --column NAME[:W|mW|uW]; "
		      "columns ending in (W), (mW), _w, _mw or power are taken by themselves)", csv, lineno);
		goto out;
	}
	int mcol = -1;

	if (o->marker) {
		for (int i = 0; i < ncol; i++)
			if (!strcmp(hdr[i], o->marker))
				mcol = i;
		if (mcol < 0) {
			error("%s:%ld: no column '%s' (--marker)", csv, lineno, o->marker);
			goto out;
		}
	}
	/* rows */
	while ((len = getline(&line, &cap, f)) >= 0) {
		int n;
		char *end;
		double t;

		lineno++;
		if (line[0] == '#' || len <= 1 || (len == 2 && line[0] == '\r'))
			continue;
		n = split_csv(line, fld, MAX_COLS, sep);
		if (n <= tcol) {
			error("%s:%ld: %d fields, the header has %d", csv, lineno, n, ncol);
			goto out;
		}
		errno = 0;
		t = strtod(fld[tcol], &end);
		if (end == fld[tcol] || *end || errno || !isfinite(t)) {
			error("%s:%ld: time '%s' is not a number", csv, lineno, fld[tcol]);
			goto out;
		}
		t *= tscale;
		if (mcol >= 0 && isnan(t_start) && mcol < n && *fld[mcol] &&
		    strtod(fld[mcol], NULL) != 0)
			t_start = t;
		if (nbuf == bufcap) {
			size_t nc = bufcap ? bufcap * 2 : 1024;
			void *nb = realloc(buf, nc * sizeof(*buf));

			if (!nb) {
				error("out of memory reading %s", csv);
				goto out;
			}
			buf = nb;
			bufcap = nc;
		}
		buf[nbuf].t = t;
		for (int c = 0; c < npcol; c++) {
			double v;

			if (pcol[c] >= n || !*fld[pcol[c]]) {
				buf[nbuf].v[c] = NAN;	/* the meter missed it: a gap */
				continue;
			}
			errno = 0;
			v = strtod(fld[pcol[c]], &end);
			if (end == fld[pcol[c]] || *end || errno || !isfinite(v)) {
				error("%s:%ld: %s '%s' is not a number", csv, lineno, hdr[pcol[c]],
				      fld[pcol[c]]);
				goto out;
			}
			buf[nbuf].v[c] = v * pscale[c];
		}
		nbuf++;
	}
	if (o->marker && isnan(t_start)) {
		error("%s: the marker column '%s' is never set", csv, o->marker);
		goto out;
	}
	if (!isnan(o->offset_s))
		t_start = o->offset_s;
	snprintf(ppath, sizeof(ppath), "%s/power", rundir);
	first_id = max_rail_id(ppath);
	if (first_id < -1)
		goto out;
	first_id++;
	w = lw_power_create(LW_AT_PATH, ppath, start_ns, 1);
	if (!w)
		goto out;
	for (int c = 0; c < npcol; c++) {
		char name[256], detail[PATH_MAX + 128];

		snprintf(name, sizeof(name), "meter/%s", hdr[pcol[c]]);
		snprintf(detail, sizeof(detail), "%s column %s, meter time %.6fs = run start", csv,
			 hdr[pcol[c]], t_start);
		if (lw_power_rail(w, first_id + c, name, "meter", LW_RAIL_TOTAL, detail) < 0)
			goto out;
	}
	for (size_t r = 0; r < nbuf; r++) {
		double rel = buf[r].t - t_start;
		uint64_t ts;

		if (rel < 0 || (end_ns && (double)start_ns + rel * 1e9 > (double)end_ns)) {
			outside++;
			continue;
		}
		ts = start_ns + (uint64_t)llround(rel * 1e9);
		for (int c = 0; c < npcol; c++) {
			if (isnan(buf[r].v[c])) {
				if (lw_power_gap(w, first_id + c, ts, "no reading in the meter log") < 0)
					goto out;
			} else if (lw_power_sample(w, first_id + c, ts, buf[r].v[c], NAN, NAN, NAN) < 0) {
				goto out;
			}
		}
		rows++;
	}
	if (!rows) {
		error("%s: no row falls within the run (%zu rows outside it: check --offset/--marker)",
		      csv, (size_t)outside);
		goto out;
	}
	ret = 0;
	note("%s/power: %ld rows of %d column%s from %s added (%ld outside the run left out)", rundir,
	     rows, npcol, npcol == 1 ? "" : "s", csv, outside);
out:
	if (w && lw_power_close(w, 0) < 0)
		ret = -1;
	free(buf);
	free(header);
	free(line);
	if (f)
		fclose(f);
	lw_rundir_close(&rd);
	return ret;
}
