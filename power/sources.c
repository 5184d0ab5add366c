// SPDX-License-Identifier: GPL-2.0-only
/* Power sources: the table of source types, the rails they find and the
 * reading of those rails.  Each type is power/src_NAME.c. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef LW_HAVE_IIO
#include <iio.h>
#endif

#include "lib/error.h"
#include "lib/sort.h"
#include "lib/sysfs.h"
#include "power/chan.h"
#include "power/power.h"
#include "power/sources.h"

const struct lw_power_source_type *const lw_power_source_types[LW_SRC_NTYPES] = {
#define LW_SRC_ENTRY(n, N, sensor) [LW_SRC_I_##N] = &lw_src_##n,
	LW_POWER_SOURCES(LW_SRC_ENTRY)
#undef LW_SRC_ENTRY
};

const char *lw_chan_name(const struct lw_chan *c) { return c->name; }
const char *lw_chan_source(const struct lw_chan *c) { return c->source; }
const char *lw_chan_detail(const struct lw_chan *c) { return c->detail; }
unsigned lw_chan_flags(const struct lw_chan *c) { return c->flags; }

const char *lw_power_sources_list(unsigned mask, int labels, const char *sep, char *buf,
				  size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < LW_SRC_NTYPES; i++)
		if (mask & (1u << i)) {
			const struct lw_power_source_type *t = lw_power_source_types[i];

			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? sep : "",
					      labels ? t->label : t->name);
		}
	return buf;
}

int lw_power_parse_sources(const char *what, const char *s, unsigned *mask, int *is_auto)
{
	char tmp[256], *save, *tok;

	*mask = 0;
	*is_auto = 0;
	if (!s || !*s)
		return error("%s: empty value", what);
	if (!strcmp(s, "auto")) {
		*mask = LW_SRC_SENSORS;
		*is_auto = 1;
		return 0;
	}
	if (!strcmp(s, "off") || !strcmp(s, "none"))
		return 0;
	if (strlen(s) >= sizeof(tmp))
		return error("%s: '%s' is too long", what, s);
	strcpy(tmp, s);
	for (tok = strtok_r(tmp, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < LW_SRC_NTYPES; i++)
			if (!strcmp(tok, lw_power_source_types[i]->name))
				break;
		if (i == LW_SRC_NTYPES) {
			char all[256];

			return error("%s: unknown power source '%s' (auto, off, or a list of %s)", what,
				     tok, lw_power_sources_list(LW_SRC_ALL, 0, ", ", all, sizeof(all)));
		}
		*mask |= 1u << i;
	}
	if (!*mask)
		return error("%s: no power source in '%s'", what, s);
	return 0;
}

const char *lw_power_sources_str(unsigned mask, char *buf, size_t len)
{
	lw_power_sources_list(mask, 0, ",", buf, len);
	if (!buf[0])
		snprintf(buf, len, "off");
	return buf;
}

/* ---- small sysfs helpers ------------------------------------------------ */

int lw_src_read_str(const char *path, char *buf, size_t len, int *err)
{
	int n = lw_read_file(path, buf, len);

	*err = n < 0 ? errno : 0;
	return n;
}

int lw_src_read_num(const char *path, double *v, char *why, size_t whylen)
{
	char buf[64], *end;
	int err = 0;

	if (lw_src_read_str(path, buf, sizeof(buf), &err) <= 0) {
		snprintf(why, whylen, "cannot read %s: %s", path, err ? strerror(err) : "empty");
		return -1;
	}
	errno = 0;
	*v = strtod(buf, &end);
	if (end == buf || *end || errno) {
		snprintf(why, whylen, "%s: '%s' is not a number", path, buf);
		return -1;
	}
	return 0;
}

int lw_src_read_u64(const char *path, uint64_t *v, char *why, size_t whylen)
{
	char buf[64], *end;
	int err = 0;

	if (lw_src_read_str(path, buf, sizeof(buf), &err) <= 0) {
		snprintf(why, whylen, "cannot read %s: %s", path, err ? strerror(err) : "empty");
		return -1;
	}
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (end == buf || *end || errno) {
		snprintf(why, whylen, "%s: '%s' is not a counter value", path, buf);
		return -1;
	}
	return 0;
}

int lw_src_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

int lw_src_pathf(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, len, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len ? 0 : -1;
}

static int cmp_str(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t lx = strlen(x), ly = strlen(y);

	/* hwmon2 before hwmon10 */
	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

char **lw_src_list_dir(const char *dir, const char *prefix, int *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **l = NULL;
	int n = 0;

	*count = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		char **nl;

		if (strncmp(e->d_name, prefix, strlen(prefix)) || e->d_name[0] == '.')
			continue;
		nl = realloc(l, (size_t)(n + 1) * sizeof(*l));
		if (!nl)
			break;
		l = nl;
		l[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n)
		lw_qsort(l, (size_t)n, sizeof(*l), cmp_str);
	*count = n;
	return l;
}

void lw_src_free_list(char **l, int n)
{
	for (int i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

struct lw_chan *lw_chan_add(struct lw_chans *cs, const struct lw_power_source_type *type,
			    enum lw_chan_kind kind)
{
	struct lw_chan **nc = realloc(cs->c, (size_t)(cs->n + 1) * sizeof(*nc));
	struct lw_chan *c;

	if (!nc)
		return NULL;
	cs->c = nc;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	cs->c[cs->n++] = c;
	snprintf(c->source, sizeof(c->source), "%s", type->name);
	c->type = type;
	c->kind = kind;
	return c;
}

static void chan_free(struct lw_chan *c)
{
	free(c->priv);
	free(c);
}

void lw_chan_drop_last(struct lw_chans *cs)
{
	chan_free(cs->c[--cs->n]);
}

static int name_taken(const struct lw_chans *cs, const char *name)
{
	for (int i = 0; i < cs->n - 1; i++)
		if (!strcmp(cs->c[i]->name, name))
			return 1;
	return 0;
}

void lw_chan_set_name(struct lw_chans *cs, struct lw_chan *c, const char *dev, const char *alt,
		     const char *label)
{
	snprintf(c->name, sizeof(c->name), "%s/%s", dev, label);
	if (name_taken(cs, c->name))
		snprintf(c->name, sizeof(c->name), "%s.%s/%s", dev, alt, label);
	for (char *p = c->name; *p; p++)
		if (*p == ' ' || *p == '\t')
			*p = '_';
}


/*
 * Each source in the mask, in list order.  An estimate not asked for by name
 * (the model) is tried under --power auto when no sensor was found; it
 * declines without error when it has nothing to estimate from.
 */
int lw_power_discover(const struct lw_power_opts *o, struct lw_chans *out)
{
	struct lw_power_opts so = *o;

	so.root = o->root ? o->root : "";
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < LW_SRC_NTYPES; i++) {
		unsigned bit = 1u << i;

		if (!(o->mask & bit) && !(o->is_auto && !(LW_SRC_SENSORS & bit) && out->n == 0))
			continue;
		if (lw_power_source_types[i]->discover(&so, out) < 0) {
			lw_power_chans_free(out);
			return -1;
		}
	}
	return 0;
}

void lw_power_chans_free(struct lw_chans *cs)
{
	for (int i = 0; i < cs->n; i++)
		chan_free(cs->c[i]);
	free(cs->c);
#ifdef LW_HAVE_IIO
	if (cs->iio_ctx)
		iio_context_destroy(cs->iio_ctx);
#endif
	memset(cs, 0, sizeof(*cs));
}

static int read_scaled(const char *p, const char *off, double scale, double *out, char *why,
		       size_t whylen)
{
	double v, o = 0;

	if (lw_src_read_num(p, &v, why, whylen) < 0)
		return -1;
	if (off && *off && lw_src_read_num(off, &o, why, whylen) < 0)
		return -1;
	*out = (v + o) * scale;
	return 0;
}

int lw_chan_read(struct lw_chan *c, uint64_t now, double *w, double *e, double *v, double *a,
		 char *why, size_t whylen)
{
	*w = *e = *v = *a = NAN;
	switch (c->kind) {
	case LW_CHAN_POWER:
		if (read_scaled(c->p_main, c->p_main_off, c->s_main, w, why, whylen) < 0)
			return -1;
		/* voltage and current beside a power reading are extras: a failure
		 * there leaves them unknown but keeps the sample */
		if (c->p_volt[0] && read_scaled(c->p_volt, c->p_volt_off, c->s_volt, v, why, whylen) < 0)
			*v = NAN;
		if (c->p_curr[0] && read_scaled(c->p_curr, c->p_curr_off, c->s_curr, a, why, whylen) < 0)
			*a = NAN;
		if (c->abs_curr && !isnan(*a))
			*a = fabs(*a);
		return 0;
	case LW_CHAN_VI:
		if (read_scaled(c->p_volt, c->p_volt_off, c->s_volt, v, why, whylen) < 0 ||
		    read_scaled(c->p_curr, c->p_curr_off, c->s_curr, a, why, whylen) < 0) {
			*v = *a = NAN;
			return -1;
		}
		if (c->abs_curr)
			*a = fabs(*a);
		*w = *v * *a;
		return 0;
	case LW_CHAN_ENERGY: {
		uint64_t raw, delta;

		if (lw_src_read_u64(c->p_main, &raw, why, whylen) < 0)
			return -1;
		if (!c->have_prev) {
			c->have_prev = 1;
			c->prev_raw = raw;
			c->prev_ts = now;
			*e = 0;
			return 0;
		}
		if (c->range && raw > c->range) {
			snprintf(why, whylen, "%s: %llu is beyond max_energy_range_uj %llu", c->p_main,
				 (unsigned long long)raw, (unsigned long long)c->range);
			return -1;
		}
		delta = lw_counter_delta(c->prev_raw, raw, c->range);
		c->acc_j += (double)delta * c->s_main;
		if (now > c->prev_ts)
			*w = (double)delta * c->s_main / ((double)(now - c->prev_ts) / 1e9);
		*e = c->acc_j;
		c->prev_raw = raw;
		c->prev_ts = now;
		return 0;
	}
	case LW_CHAN_OWN:
		if (c->type->read)
			return c->type->read(c, now, w, e, v, a, why, whylen);
		break;
	}
	snprintf(why, whylen, "unknown channel kind");
	return -1;
}

json_t *lw_power_discover_json(const char *root, const char *iio_uri)
{
	struct lw_power_opts o = { .root = root ? root : "", .mask = LW_SRC_SENSORS,
				   .iio_uri = iio_uri };
	struct lw_chans cs;
	json_t *a = json_array();
	int q = lw_set_quiet(1);

	if (lw_power_discover(&o, &cs) == 0) {
		for (int i = 0; i < cs.n; i++)
			json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:b}",
				"type", cs.c[i]->source, "name", cs.c[i]->name,
				"detail", cs.c[i]->detail,
				"total", !!(cs.c[i]->flags & LW_RAIL_TOTAL)));
		lw_power_chans_free(&cs);
	}
	lw_set_quiet(q);
	return a;
}

