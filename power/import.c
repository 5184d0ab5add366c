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
#include "lib/input.h"
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

/* The meter log being read: line by line, twice (the first pass checks
 * every row and finds the marker, the second writes the rows inside the
 * run), so that memory does not depend on the log's length. */
#define MAX_LINE 65536

struct csv {
	FILE *f;
	const char *path;
	char *line;
	size_t cap;
	long lineno;
	char sep;
	off_t body;		/* offset of the first line after the header */
	long body_line;
};

/* The next line that is not a comment or empty: 1, 0 at the end, -1 after
 * error() (a NUL byte, a line too long, a read error). */
static int csv_next(struct csv *c)
{
	ssize_t len;

	while ((len = getline(&c->line, &c->cap, c->f)) >= 0) {
		char *nul;

		c->lineno++;
		if ((nul = memchr(c->line, 0, (size_t)len)))
			return error("%s:%ld:%ld: a NUL byte: not a text CSV", c->path, c->lineno,
				     (long)(nul - c->line) + 1);
		if (len > MAX_LINE)
			return error("%s:%ld: a line of %zd bytes, longer than the %d this import "
				     "reads", c->path, c->lineno, len, MAX_LINE);
		if (c->line[0] == '#' || len <= 1 || (len == 2 && c->line[0] == '\r'))
			continue;
		return 1;
	}
	if (ferror(c->f))
		return error_errno("cannot read %s", c->path);
	return 0;
}

struct cols {
	int ncol, tcol, mcol, npcol, pcol[MAX_COLS];
	double pscale[MAX_COLS], tscale;
	char *hdr[MAX_COLS];
};

/* One row: its time (s, in the meter's clock), its readings (W; NAN: none,
 * a gap) and whether the marker is set in it.  -1 after error(). */
static int csv_row(struct csv *c, const struct cols *k, double *t, double *v, int *marked)
{
	char *fld[MAX_COLS], *end;
	int n = split_csv(c->line, fld, MAX_COLS, c->sep);

	if (n <= k->tcol)
		return error("%s:%ld: %d fields, the header has %d", c->path, c->lineno, n, k->ncol);
	errno = 0;
	*t = strtod(fld[k->tcol], &end);
	if (end == fld[k->tcol] || *end || errno || !isfinite(*t))
		return error("%s:%ld: time '%s' is not a number", c->path, c->lineno, fld[k->tcol]);
	*t *= k->tscale;
	*marked = k->mcol >= 0 && k->mcol < n && *fld[k->mcol] && strtod(fld[k->mcol], NULL) != 0;
	for (int i = 0; i < k->npcol; i++) {
		const char *f = k->pcol[i] < n ? fld[k->pcol[i]] : "";

		if (!*f) {
			v[i] = NAN;	/* the meter missed it: a gap */
			continue;
		}
		errno = 0;
		v[i] = strtod(f, &end);
		if (end == f || *end || errno || !isfinite(v[i]))
			return error("%s:%ld: %s '%s' is not a number", c->path, c->lineno,
				     k->hdr[k->pcol[i]], f);
		v[i] *= k->pscale[i];
	}
	return 0;
}

/* The header: the separator and the columns (time, power, marker). */
static int csv_header(struct csv *c, struct cols *k, char **header, const struct lw_import_opts *o)
{
	int r = csv_next(c);

	if (r <= 0)
		return r < 0 ? -1 : error("%s: no header line", c->path);
	c->sep = ',';
	if (!strchr(c->line, ',') && strchr(c->line, ';'))
		c->sep = ';';
	else if (!strchr(c->line, ',') && strchr(c->line, '\t'))
		c->sep = '\t';
	*header = strdup(c->line);
	if (!*header)
		return error("out of memory");
	k->ncol = split_csv(*header, k->hdr, MAX_COLS, c->sep);
	k->tcol = k->mcol = -1;
	for (int i = 0; i < k->ncol; i++) {
		const char *h = k->hdr[i];

		if (o->time_col ? !strcmp(h, o->time_col) :
		    (k->tcol < 0 && (!strncasecmp(h, "time", 4) || !strcasecmp(h, "t") ||
				     !strncasecmp(h, "timestamp", 9) || !strncasecmp(h, "elapsed", 7) ||
				     !strncasecmp(h, "seconds", 7))))
			k->tcol = i;
	}
	if (k->tcol < 0 && o->time_col)
		return error("%s:%ld: no column '%s' (--time-col)", c->path, c->lineno, o->time_col);
	if (k->tcol < 0)
		k->tcol = 0;
	for (int i = 0; i < o->ncolumns; i++) {
		char name[256], *colon;
		int j;
		double sc = 1;

		snprintf(name, sizeof(name), "%s", o->columns[i]);
		colon = strrchr(name, ':');
		if (colon) {
			*colon = 0;
			if (parse_unit("--column", colon + 1, &sc) < 0)
				return -1;
		}
		for (j = 0; j < k->ncol; j++)
			if (!strcmp(k->hdr[j], name))
				break;
		if (j == k->ncol)
			return error("%s:%ld: no column '%s' (--column)", c->path, c->lineno, name);
		k->pcol[k->npcol] = j;
		k->pscale[k->npcol++] = sc;
	}
	if (!o->ncolumns)
		for (int i = 0; i < k->ncol && k->npcol < MAX_COLS; i++)
			if (i != k->tcol && unit_scale(k->hdr[i]) > 0 &&
			    (!o->marker || strcmp(k->hdr[i], o->marker))) {
				k->pcol[k->npcol] = i;
				k->pscale[k->npcol++] = unit_scale(k->hdr[i]);
			}
	if (!k->npcol)
		return error("%s:%ld: no power column found (name one with --column NAME[:W|mW|uW]; "
			     "columns ending in (W), (mW), _w, _mw or power are taken by themselves)",
			     c->path, c->lineno);
	if (o->marker) {
		for (int i = 0; i < k->ncol; i++)
			if (!strcmp(k->hdr[i], o->marker))
				k->mcol = i;
		if (k->mcol < 0)
			return error("%s:%ld: no column '%s' (--marker)", c->path, c->lineno, o->marker);
	}
	c->body = ftello(c->f);
	c->body_line = c->lineno;
	if (c->body < 0)
		return error_errno("cannot read %s", c->path);
	return 0;
}

/* RUN/power as it was, without the rails an earlier import of the same
 * columns made, into @out (a file that replaces it); the first free rail id. */
static int keep_other_rails(const char *ppath, FILE *out, const struct cols *k, int *first_id,
			    int *replaced, int *existed)
{
	char names[MAX_COLS][256];
	const char *np[MAX_COLS];
	struct stat st;
	int max_id;

	*first_id = 0;
	*replaced = 0;
	*existed = 0;
	if (lstat(ppath, &st) < 0) {
		if (errno != ENOENT)
			return error_errno("cannot open %s", ppath);
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return error("%s is not a regular file: refusing to add to it", ppath);
	*existed = 1;
	for (int i = 0; i < k->npcol; i++) {
		char n[256];

		snprintf(n, sizeof(n), "meter/%s", k->hdr[k->pcol[i]]);
		lw_power_rail_name(names[i], sizeof(names[i]), n);
		np[i] = names[i];
	}
	if (lw_power_copy_without(ppath, out, "meter", np, k->npcol, &max_id, replaced) < 0)
		return error("%s: cannot add to it (run 'latwatt power show' to see why)", ppath);
	*first_id = max_id + 1;
	return 0;
}

/*
 * Import is idempotent: the rails are named meter/COLUMN, and a rail of that
 * name from an earlier import (source "meter") is replaced, not added beside
 * (importing a log twice doubled the board's power).  RUN/power is written
 * whole to a new file renamed over it, so a failed import leaves it as it was.
 */
int lw_power_import_csv(const char *rundir, const char *csv, const struct lw_import_opts *o)
{
	char ppath[PATH_MAX], *header = NULL;
	struct csv c = { .path = csv };
	struct cols k = { .tscale = 1 };
	struct lw_rundir rd;
	struct lw_atomic at;
	struct lw_power_writer *w = NULL;
	FILE *out = NULL;
	long rows = 0, outside = 0, total = 0;
	int first_id, replaced, existed, ret = -1, r, marked;
	double t_start = NAN, t, v[MAX_COLS];
	uint64_t start_ns, end_ns;

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
	if (o->time_unit && time_unit(o->time_unit, &k.tscale) < 0)
		goto out;
	c.f = lw_in_fopen(csv, 0, LW_CAP_TEXT);
	if (!c.f)
		goto out;
	if (csv_header(&c, &k, &header, o) < 0)
		goto out;
	/* first pass: every row checked, the marker found */
	while ((r = csv_next(&c)) > 0) {
		if (csv_row(&c, &k, &t, v, &marked) < 0)
			goto out;
		if (marked && isnan(t_start))
			t_start = t;
		total++;
	}
	if (r < 0)
		goto out;
	if (o->marker && isnan(t_start)) {
		error("%s: the marker column '%s' is never set", csv, o->marker);
		goto out;
	}
	if (!isnan(o->offset_s))
		t_start = o->offset_s;

	/* second pass: the rows inside the run, into a new RUN/power */
	snprintf(ppath, sizeof(ppath), "%s/power", rundir);
	out = lw_atomic_fopen(&at, ppath, 0644);
	if (!out)
		goto out;
	if (keep_other_rails(ppath, out, &k, &first_id, &replaced, &existed) < 0)
		goto out;
	w = lw_power_stream(out, ppath, start_ns, !existed);
	if (!w)
		goto out;
	for (int i = 0; i < k.npcol; i++) {
		char name[256], detail[PATH_MAX + 128];

		snprintf(name, sizeof(name), "meter/%s", k.hdr[k.pcol[i]]);
		snprintf(detail, sizeof(detail), "%s column %s, meter time %.6fs = run start", csv,
			 k.hdr[k.pcol[i]], t_start);
		if (lw_power_rail(w, first_id + i, name, "meter", LW_RAIL_TOTAL, detail) < 0)
			goto out;
	}
	if (fseeko(c.f, c.body, SEEK_SET) < 0) {
		error_errno("%s: cannot read it a second time", csv);
		goto out;
	}
	c.lineno = c.body_line;
	while ((r = csv_next(&c)) > 0) {
		double rel;
		uint64_t ts;

		if (csv_row(&c, &k, &t, v, &marked) < 0)
			goto out;
		rel = t - t_start;
		/* inside [start, end] of the run, compared in whole ns (beyond 1e9 s
		 * from the start is outside any run, and would not fit in them) */
		if (rel < 0 || rel > 1e9) {
			outside++;
			continue;
		}
		ts = start_ns + (uint64_t)llround(rel * 1e9);
		if (end_ns && ts > end_ns) {
			outside++;
			continue;
		}
		for (int i = 0; i < k.npcol; i++) {
			if (isnan(v[i])) {
				if (lw_power_gap(w, first_id + i, ts, "no reading in the meter log") < 0)
					goto out;
			} else if (lw_power_sample(w, first_id + i, ts, v[i], NAN, NAN, NAN) < 0) {
				goto out;
			}
		}
		rows++;
	}
	if (r < 0)
		goto out;
	if (rows + outside != total) {
		error("%s changed while it was read (%ld rows, then %ld)", csv, total, rows + outside);
		goto out;
	}
	if (!rows) {
		error("%s: no row falls within the run (%ld rows outside it: check --offset/--marker)",
		      csv, outside);
		goto out;
	}
	r = lw_power_close(w, 0);
	w = NULL;
	if (r < 0)
		goto out;
	r = lw_atomic_commit(&at);
	out = NULL;
	if (r < 0)
		goto out;
	ret = 0;
	note("%s/power: %ld rows of %d column%s from %s added (%ld outside the run left out)%s",
	     rundir, rows, k.npcol, k.npcol == 1 ? "" : "s", csv, outside,
	     replaced ? "; the rails of an earlier import of these columns replaced" : "");
out:
	if (w)
		lw_power_close(w, 0);
	if (out)
		lw_atomic_abort(&at);
	free(header);
	free(c.line);
	if (c.f)
		fclose(c.f);
	lw_rundir_close(&rd);
	return ret;
}
