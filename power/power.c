// SPDX-License-Identifier: GPL-2.0-only
/* RUN/power: writer, reader and summary. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/input.h"
#include "lib/safefile.h"
#include "lib/sort.h"
#include "power/power.h"

struct lw_power_writer {
	FILE *f;
	char *path;
	int failed;
	int borrowed;		/* lw_power_stream(): the caller closes f */
};

static void clean(char *dst, size_t len, const char *src)
{
	size_t i = 0;

	for (; src && *src && i + 1 < len; src++)
		dst[i++] = (*src == '\t' || *src == '\n' || *src == '\r') ? ' ' : *src;
	if (!i && len > 1)
		dst[i++] = '-';
	dst[i] = 0;
}

struct lw_power_writer *lw_power_create(int dfd, const char *path, uint64_t start_ns, int append)
{
	struct lw_power_writer *w = calloc(1, sizeof(*w));
	int created = 1;

	if (!w) {
		error("out of memory");
		return NULL;
	}
	w->f = append ? lw_fappend_at(dfd, path, 0644, &created) : lw_fcreate_at(dfd, path, 0644);
	if (!w->f) {
		free(w);
		return NULL;
	}
	w->path = strdup(path);
	if (created)
		fprintf(w->f, "%s\t%d\nstart_ns\t%llu\n", LW_POWER_MAGIC, LW_POWER_VERSION,
			(unsigned long long)start_ns);
	return w;
}

struct lw_power_writer *lw_power_stream(FILE *f, const char *path, uint64_t start_ns, int header)
{
	struct lw_power_writer *w = calloc(1, sizeof(*w));

	if (!w || !(w->path = strdup(path))) {
		free(w);
		error("out of memory");
		return NULL;
	}
	w->f = f;
	w->borrowed = 1;
	if (header)
		fprintf(w->f, "%s\t%d\nstart_ns\t%llu\n", LW_POWER_MAGIC, LW_POWER_VERSION,
			(unsigned long long)start_ns);
	return w;
}

void lw_power_rail_name(char *dst, size_t len, const char *name)
{
	clean(dst, len, name);
	for (char *p = dst; *p; p++)
		if (*p == ' ')
			*p = '_';
}

static int check(struct lw_power_writer *w, int ret)
{
	if (ret < 0 && !w->failed) {
		w->failed = 1;
		return error_errno("cannot write %s", w->path);
	}
	return ret < 0 ? -1 : 0;
}

int lw_power_rail(struct lw_power_writer *w, int id, const char *name, const char *source,
		  unsigned flags, const char *detail)
{
	char n[256], s[64], d[1024], fl[64] = "";

	lw_power_rail_name(n, sizeof(n), name);
	clean(s, sizeof(s), source);
	clean(d, sizeof(d), detail);
	if (flags & LW_RAIL_ENERGY)
		strcat(fl, "energy");
	if (flags & LW_RAIL_TOTAL)
		strcat(fl, *fl ? ",total" : "total");
	if (!*fl)
		strcpy(fl, "-");
	return check(w, fprintf(w->f, "rail\t%d\t%s\t%s\t%s\t%s\t%s\n", id, n, s,
				flags & LW_RAIL_ESTIMATED ? "estimated" : "measured", fl, d));
}

static void fmt_val(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.9g", v);
}

int lw_power_sample(struct lw_power_writer *w, int rail, uint64_t ts, double watts,
		    double energy_j, double volts, double amps)
{
	char a[32], b[32], c[32], d[32];

	fmt_val(a, sizeof(a), watts);
	fmt_val(b, sizeof(b), energy_j);
	fmt_val(c, sizeof(c), volts);
	fmt_val(d, sizeof(d), amps);
	return check(w, fprintf(w->f, "s\t%d\t%llu\t%s\t%s\t%s\t%s\n", rail,
				(unsigned long long)ts, a, b, c, d));
}

int lw_power_gap(struct lw_power_writer *w, int rail, uint64_t ts, const char *reason)
{
	char r[256];

	clean(r, sizeof(r), reason);
	return check(w, fprintf(w->f, "gap\t%d\t%llu\t%s\n", rail, (unsigned long long)ts, r));
}

int lw_power_flush(struct lw_power_writer *w)
{
	return check(w, fflush(w->f) == 0 ? 0 : -1);
}

int lw_power_close(struct lw_power_writer *w, uint64_t end_ns)
{
	int ret = 0;

	if (!w)
		return 0;
	if (end_ns)
		ret = check(w, fprintf(w->f, "end_ns\t%llu\n", (unsigned long long)end_ns));
	if (fflush(w->f) != 0)
		ret = check(w, -1);
	if (w->borrowed) {
		ret = w->failed ? -1 : ret;
		free(w->path);
		free(w);
		return ret;
	}
	fsync(fileno(w->f));
	if (fclose(w->f) != 0 && !ret)
		ret = error_errno("cannot close %s", w->path);
	if (w->failed)
		ret = -1;
	free(w->path);
	free(w);
	return ret;
}

/* ---- reader ------------------------------------------------------------- */

void lw_power_data_free(struct lw_power_data *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->nrail; i++) {
		free(d->rail[i].name);
		free(d->rail[i].source);
		free(d->rail[i].detail);
		free(d->rail[i].first_gap);
		free(d->rail[i].pt);
	}
	free(d->rail);
	free(d);
}

int lw_power_find_rail(const struct lw_power_data *d, const char *name)
{
	for (int i = 0; i < d->nrail; i++)
		if (!strcmp(d->rail[i].name, name))
			return i;
	return -1;
}

static struct lw_power_rail *rail_by_id(struct lw_power_data *d, int id)
{
	/* ids are unique per file; the last declaration wins */
	for (int i = d->nrail - 1; i >= 0; i--)
		if (d->rail[i].id == id)
			return &d->rail[i];
	return NULL;
}

static int parse_val(const char *s, double *v)
{
	char *end;

	if (!strcmp(s, "-")) {
		*v = NAN;
		return 0;
	}
	errno = 0;
	*v = strtod(s, &end);
	return (*end || errno || end == s) ? -1 : 0;
}

static int split(char *line, char **f, int max)
{
	int n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = 0;
	}
	return n;
}

static int cmp_pt(const void *a, const void *b)
{
	const struct lw_power_point *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * One pass over @path: the header and the rails into @d; each sample, with
 * after_gap set, to @point (rail: its index in @d->rail), or appended to its
 * rail when @point is NULL.
 */
static int scan(const char *path, struct lw_power_data *d,
		int (*point)(void *ctx, const struct lw_power_rail *r, int rail, const struct lw_power_point *p), void *ctx)
{
	FILE *f = lw_in_fopen(path, LW_IN_NOFOLLOW, LW_CAP_POWER);
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long lineno = 0;
	int ret = -1, rerr;

	if (!f)
		return -1;
	while ((len = lw_in_getline(&line, &cap, f, LW_CAP_LINE, path, lineno + 1, &rerr)) >= 0) {
		char *fld[8];
		int n;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len || line[0] == '#')
			continue;
		n = split(line, fld, 8);
		if (lineno == 1) {
			if (strcmp(fld[0], LW_POWER_MAGIC) || n < 2) {
				error("%s:1: not a latwatt power file", path);
				goto out;
			}
			if (atoi(fld[1]) < 1 || atoi(fld[1]) > LW_POWER_VERSION) {
				error("%s:1: a power file version this latwatt does not read (1 to %d)",
				      path, LW_POWER_VERSION);
				goto out;
			}
			continue;
		}
		if (!strcmp(fld[0], "s") && n == 7) {
			struct lw_power_rail *r = rail_by_id(d, atoi(fld[1]));
			struct lw_power_point p = { 0 };
			char *end;

			if (!r) {
				error("%s:%ld: sample for a rail that was not declared", path, lineno);
				goto out;
			}
			p.ts = strtoull(fld[2], &end, 10);
			if (*end || parse_val(fld[3], &p.w) || parse_val(fld[4], &p.e) ||
			    parse_val(fld[5], &p.v) || parse_val(fld[6], &p.a)) {
				error("%s:%ld: malformed sample", path, lineno);
				goto out;
			}
			p.after_gap = r->gap_pending;
			r->gap_pending = 0;
			if (r->n && p.ts < r->last_ts)
				d->disordered = 1;
			r->last_ts = p.ts;
			if (point) {
				r->n++;
				if (point(ctx, r, (int)(r - d->rail), &p) < 0)
					goto out;
				continue;
			}
			if (r->n == r->cap) {
				size_t nc = r->cap ? r->cap * 2 : 256;
				struct lw_power_point *np = realloc(r->pt, nc * sizeof(*np));

				if (!np) {
					error("out of memory reading %s", path);
					goto out;
				}
				r->pt = np;
				r->cap = nc;
			}
			r->pt[r->n++] = p;
		} else if (!strcmp(fld[0], "gap") && n >= 3) {
			struct lw_power_rail *r = rail_by_id(d, atoi(fld[1]));

			if (!r) {
				error("%s:%ld: gap for a rail that was not declared", path, lineno);
				goto out;
			}
			r->gaps++;
			if (!r->first_gap)
				r->first_gap = strdup(n >= 4 ? fld[3] : "");
			/* the next sample comes after it: no interval across */
			r->gap_pending = 1;
		} else if (!strcmp(fld[0], "rail") && n >= 6) {
			struct lw_power_rail *nr;

			/* each sample line looks its rail up among these */
			if (d->nrail >= LW_POWER_MAX_RAILS) {
				error("%s:%ld: more than %d rails", path, lineno, LW_POWER_MAX_RAILS);
				goto out;
			}
			nr = realloc(d->rail, (size_t)(d->nrail + 1) * sizeof(*nr));
			if (!nr) {
				error("out of memory reading %s", path);
				goto out;
			}
			d->rail = nr;
			nr = &d->rail[d->nrail++];
			memset(nr, 0, sizeof(*nr));
			nr->id = atoi(fld[1]);
			nr->name = strdup(fld[2]);
			nr->source = strdup(fld[3]);
			nr->detail = strdup(n >= 7 ? fld[6] : "");
			if (!strcmp(fld[4], "estimated"))
				nr->flags |= LW_RAIL_ESTIMATED;
			else if (strcmp(fld[4], "measured")) {
				error("%s:%ld: a rail kind neither measured nor estimated", path,
				      lineno);
				goto out;
			}
			if (strstr(fld[5], "energy"))
				nr->flags |= LW_RAIL_ENERGY;
			if (strstr(fld[5], "total"))
				nr->flags |= LW_RAIL_TOTAL;
		} else if (!strcmp(fld[0], "start_ns") && n == 2) {
			d->start_ns = strtoull(fld[1], NULL, 10);
		} else if (!strcmp(fld[0], "end_ns") && n == 2) {
			d->end_ns = strtoull(fld[1], NULL, 10);
		} else {
			error("%s:%ld: unknown or malformed record", path, lineno);
			goto out;
		}
	}
	if (rerr < 0)
		goto out;
	if (lineno == 0) {
		error("%s: empty power file", path);
		goto out;
	}
	ret = 0;
out:
	free(line);
	fclose(f);
	return ret;
}

struct lw_power_data *lw_power_scan(const char *path,
				    int (*point)(void *ctx, const struct lw_power_rail *r, int rail, const struct lw_power_point *p),
				    void *ctx)
{
	struct lw_power_data *d = calloc(1, sizeof(*d));

	if (!d) {
		error("out of memory");
		return NULL;
	}
	if (scan(path, d, point, ctx) < 0) {
		lw_power_data_free(d);
		return NULL;
	}
	return d;
}

struct lw_power_data *lw_power_read(const char *path)
{
	struct lw_power_data *d = lw_power_scan(path, NULL, NULL);

	for (int i = 0; d && i < d->nrail; i++)
		lw_qsort(d->rail[i].pt, d->rail[i].n, sizeof(*d->rail[i].pt), cmp_pt);
	return d;
}

/* The rail declared under @id as the file is read: left out or kept. */
struct idstate { int id, dropped; };

int lw_power_copy_without(const char *path, FILE *out, const char *source,
			  const char *const *names, int nnames, int *max_id, int *dropped)
{
	struct lw_power_data *d = lw_power_scan(path, NULL, NULL);
	struct idstate ids[LW_POWER_MAX_RAILS];
	int nids = 0, ret = -1;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;

	*max_id = -1;
	*dropped = 0;
	if (!d)		/* checked whole first: nothing is copied from a bad file */
		return -1;
	lw_power_data_free(d);
	f = fopen(path, "r");
	if (!f)
		return error_errno("cannot open %s", path);
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *tab = strchr(line, '\t');
		int id = tab ? atoi(tab + 1) : 0, k;

		if (tab && !strncmp(line, "rail\t", 5)) {
			char *name = strchr(tab + 1, '\t'), *src = name ? strchr(name + 1, '\t') : NULL;
			int drop = 0;

			if (name && src) {
				char *e = strchr(src + 1, '\t');
				size_t nl = (size_t)(src - name - 1), sl = e ? (size_t)(e - src - 1) : 0;

				if (e && sl == strlen(source) && !strncmp(src + 1, source, sl))
					for (int i = 0; i < nnames && !drop; i++)
						drop = strlen(names[i]) == nl && !strncmp(name + 1, names[i], nl);
			}
			for (k = 0; k < nids && ids[k].id != id; k++)
				;
			if (k == nids && nids < LW_POWER_MAX_RAILS)
				ids[nids++].id = id;
			if (k < LW_POWER_MAX_RAILS)
				ids[k].dropped = drop;
			*dropped += drop;
			if (drop)
				continue;
			if (id > *max_id)
				*max_id = id;
		} else if (tab && (!strncmp(line, "s\t", 2) || !strncmp(line, "gap\t", 4))) {
			for (k = 0; k < nids && ids[k].id != id; k++)
				;
			if (k < nids && ids[k].dropped)
				continue;
		}
		if (fwrite(line, 1, (size_t)len, out) != (size_t)len) {
			error_errno("cannot write the new %s", path);
			goto out;
		}
	}
	if (ferror(f)) {
		error_errno("cannot read %s", path);
		goto out;
	}
	ret = 0;
out:
	free(line);
	fclose(f);
	return ret;
}

/* ---- summary ------------------------------------------------------------ */

/* What a rail's summary needs of its points, taken one at a time in time
 * order. */
struct rail_acc {
	double energy, covered, minw, maxw;
	uint64_t first, last;		/* of the samples that hold a value */
	int spans;			/* first and last are set */
	size_t nw;
	struct lw_power_point prev;
	int have_prev;
};

static void acc_init(struct rail_acc *x)
{
	memset(x, 0, sizeof(*x));
	x->minw = INFINITY;
	x->maxw = -INFINITY;
}

static void acc_point(struct rail_acc *x, unsigned flags, const struct lw_power_point *p)
{
	const struct lw_power_point *q = &x->prev;

	if (!isnan(p->w) || ((flags & LW_RAIL_ENERGY) && !isnan(p->e))) {
		if (!x->spans || p->ts < x->first)
			x->first = p->ts;
		if (!x->spans || p->ts > x->last)
			x->last = p->ts;
		x->spans = 1;
	}
	if (!isnan(p->w)) {
		x->nw++;
		if (p->w < x->minw)
			x->minw = p->w;
		if (p->w > x->maxw)
			x->maxw = p->w;
	}
	if (x->have_prev && !p->after_gap) {
		double dt = (double)(p->ts - q->ts) / 1e9;

		if (flags & LW_RAIL_ENERGY) {
			if (!isnan(p->e) && !isnan(q->e)) {
				x->energy += p->e - q->e;
				x->covered += dt;
			}
		} else if (!isnan(p->w) && !isnan(q->w)) {
			x->energy += (p->w + q->w) / 2 * dt;
			x->covered += dt;
		}
	}
	x->prev = *p;
	x->have_prev = 1;
}

static json_t *rail_summary(const struct lw_power_rail *r, const struct rail_acc *x,
			    double *avg_out, double *energy_out, double *dur_out)
{
	double avg = NAN;

	if (x->covered > 0)
		avg = x->energy / x->covered;
	else if (x->nw == 1)
		avg = x->minw;
	*avg_out = avg;
	*energy_out = x->covered > 0 ? x->energy : NAN;
	*dur_out = x->covered;
	return json_pack("{s:s, s:s, s:s, s:s, s:b, s:b, s:I, s:I, s:o, s:o, s:o, s:o, s:f, s:o}",
		"name", r->name, "source", r->source, "detail", r->detail ? r->detail : "",
		"kind", r->flags & LW_RAIL_ESTIMATED ? "estimated" : "measured",
		"total", !!(r->flags & LW_RAIL_TOTAL), "energy_counter", !!(r->flags & LW_RAIL_ENERGY),
		"samples", (json_int_t)r->n, "gaps", (json_int_t)r->gaps,
		"average_w", isnan(avg) ? json_null() : json_real(avg),
		"min_w", x->nw ? json_real(x->minw) : json_null(),
		"max_w", x->nw ? json_real(x->maxw) : json_null(),
		"energy_j", x->covered > 0 ? json_real(x->energy) : json_null(),
		"duration_s", x->covered,
		"first_gap", r->first_gap ? json_string(r->first_gap) : json_null());
}

static json_t *summarize(const struct lw_power_data *d, const struct rail_acc *acc);

json_t *lw_power_summarize(const struct lw_power_data *d)
{
	struct rail_acc *acc = calloc((size_t)(d->nrail ? d->nrail : 1), sizeof(*acc));
	json_t *s;

	if (!acc)
		return NULL;
	for (int i = 0; i < d->nrail; i++) {
		acc_init(&acc[i]);
		for (size_t k = 0; k < d->rail[i].n; k++)
			acc_point(&acc[i], d->rail[i].flags, &d->rail[i].pt[k]);
	}
	s = summarize(d, acc);
	free(acc);
	return s;
}

/* A sample into the accumulator of its rail (@ctx: one per rail the file
 * can declare). */
static int file_point(void *ctx, const struct lw_power_rail *r, int rail,
		      const struct lw_power_point *p)
{
	acc_point((struct rail_acc *)ctx + rail, r->flags, p);
	return 0;
}

json_t *lw_power_summarize_file(const char *path)
{
	struct rail_acc *acc = malloc(LW_POWER_MAX_RAILS * sizeof(*acc));
	struct lw_power_data *d;
	json_t *s = NULL;

	if (!acc) {
		error("out of memory");
		return NULL;
	}
	for (int i = 0; i < LW_POWER_MAX_RAILS; i++)
		acc_init(&acc[i]);
	d = lw_power_scan(path, file_point, acc);
	if (d && d->disordered) {
		/* samples out of time order (not a file latwatt writes): sorted
		 * in memory */
		lw_power_data_free(d);
		d = lw_power_read(path);
		s = d ? lw_power_summarize(d) : NULL;
	} else if (d) {
		s = summarize(d, acc);
	}
	if (d && !s)
		error("out of memory");
	lw_power_data_free(d);
	free(acc);
	return s;
}

static json_t *summarize(const struct lw_power_data *d, const struct rail_acc *acc)
{
	json_t *rails = json_array();
	double tot_w = 0, tot_e = 0, tot_d = 0;
	uint64_t from = 0, to = 0;
	char basis[1024] = "";
	int spans = 0, ntotal = 0, estimated = 0, measured = 0, total_ok = 1, meter = 0;
	json_t *total = NULL;

	/* a board-level meter, when there is one, is the total on its own */
	for (int i = 0; i < d->nrail; i++)
		if ((d->rail[i].flags & LW_RAIL_TOTAL) && !strcmp(d->rail[i].source, "meter"))
			meter = 1;
	for (int i = 0; i < d->nrail; i++) {
		double avg, e, dur;
		json_t *j = rail_summary(&d->rail[i], &acc[i], &avg, &e, &dur);
		int in_total = (d->rail[i].flags & LW_RAIL_TOTAL) &&
			       (!meter || !strcmp(d->rail[i].source, "meter"));

		json_object_set_new(j, "total", json_boolean(in_total));
		json_array_append_new(rails, j);
		if (!in_total)
			continue;
		ntotal++;
		if (d->rail[i].flags & LW_RAIL_ESTIMATED)
			estimated = 1;
		else
			measured = 1;
		if (isnan(avg)) {
			total_ok = 0;
			continue;
		}
		/* what the total is: the measured rails by name, an estimate by
		 * its model (the rail's detail names the board) */
		snprintf(basis + strlen(basis), sizeof(basis) - strlen(basis), "%s%s%s%s",
			 *basis ? "; " : "", d->rail[i].flags & LW_RAIL_ESTIMATED ? "estimated: " :
			 "measured: ", d->rail[i].flags & LW_RAIL_ESTIMATED && d->rail[i].detail &&
			 *d->rail[i].detail ? d->rail[i].detail : d->rail[i].name,
			 d->rail[i].flags & LW_RAIL_ESTIMATED ? "" : " (a sensor or meter of the run)");
		tot_w += avg;
		if (!isnan(e))
			tot_e += e;
		if (dur > tot_d)
			tot_d = dur;
		if (acc[i].spans && (!spans || acc[i].first < from))
			from = acc[i].first;
		if (acc[i].spans && (!spans || acc[i].last > to))
			to = acc[i].last;
		spans |= acc[i].spans;
	}
	/* the span the samples cover, said against the run's (the file's
	 * start_ns and end_ns) */
	if (ntotal && total_ok)
		total = json_pack("{s:f, s:f, s:f, s:i, s:s, s:o, s:o, s:o}", "average_w", tot_w,
			"energy_j", tot_e, "duration_s", tot_d, "rails", ntotal, "basis", basis,
			"from_s", spans && from >= d->start_ns ?
				  json_real((double)(from - d->start_ns) / 1e9) : json_null(),
			"to_s", spans && to >= d->start_ns ?
				json_real((double)(to - d->start_ns) / 1e9) : json_null(),
			"run_s", d->end_ns > d->start_ns ? json_real((double)(d->end_ns - d->start_ns) / 1e9) :
				 json_null());
	return json_pack("{s:s, s:i, s:s, s:b, s:o, s:o}",
		"format", LW_POWER_MAGIC, "version", LW_POWER_VERSION,
		"kind", !ntotal ? "none" : estimated && measured ? "mixed" :
			estimated ? "estimated" : "measured",
		"estimated", estimated,
		"total", total ? total : json_null(),
		"rails", rails);
}

void lw_power_print(FILE *out, const json_t *s)
{
	const json_t *tot = json_object_get(s, "total"), *r;
	size_t i;

	fprintf(out, "power (%s):\n", json_string_value(json_object_get(s, "kind")));
	if (json_is_object(tot)) {
		const json_t *from = json_object_get(tot, "from_s"), *to = json_object_get(tot, "to_s");
		const json_t *run = json_object_get(tot, "run_s");

		fprintf(out, "  total        %9.3f W average, %10.3f J over %.1fs",
			json_real_value(json_object_get(tot, "average_w")),
			json_real_value(json_object_get(tot, "energy_j")),
			json_real_value(json_object_get(tot, "duration_s")));
		if (json_is_real(from) && json_is_real(to))
			fprintf(out, " (%.2f s to %.2f s of the run", json_real_value(from),
				json_real_value(to));
		if (json_is_real(from) && json_is_real(to) && json_is_real(run))
			fprintf(out, "'s %.2f s", json_real_value(run));
		fprintf(out, "%s\n", json_is_real(from) && json_is_real(to) ? ")" : "");
		if (json_is_string(json_object_get(tot, "basis")))
			fprintf(out, "  (%s)\n", json_string_value(json_object_get(tot, "basis")));
	} else {
		fprintf(out, "  total        not known (no rail counts towards it, or one has no data)\n");
	}
	json_array_foreach(json_object_get(s, "rails"), i, r) {
		const json_t *avg = json_object_get(r, "average_w");

		fprintf(out, "  %-24s %-9s ", json_string_value(json_object_get(r, "name")),
			json_string_value(json_object_get(r, "kind")));
		if (json_is_real(avg))
			fprintf(out, "avg %8.3f W  min %8.3f  max %8.3f", json_real_value(avg),
				json_real_value(json_object_get(r, "min_w")),
				json_real_value(json_object_get(r, "max_w")));
		else
			fprintf(out, "no data");
		fprintf(out, "  %lld samples", (long long)json_integer_value(json_object_get(r, "samples")));
		if (json_integer_value(json_object_get(r, "gaps")))
			fprintf(out, ", %lld gaps (%s)",
				(long long)json_integer_value(json_object_get(r, "gaps")),
				json_string_value(json_object_get(r, "first_gap")));
		fprintf(out, "%s\n", json_is_true(json_object_get(r, "total")) ? "" : "  (not in total)");
	}
}
