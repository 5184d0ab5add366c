// SPDX-License-Identifier: GPL-2.0-only
/* Power sources: discovery and reading of hwmon, IIO, RAPL, battery rails
 * and the energy model over the cpuidle counters. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef LW_HAVE_IIO
#include <iio.h>
#endif

#include "boards/board.h"
#include "lib/error.h"
#include "lib/knobs.h"
#include "lib/parse.h"
#include "power/power.h"
#include "power/sources.h"

enum chan_kind {
	K_POWER,	/* a power reading, optional volts/amps beside it */
	K_VI,		/* volts * amps */
	K_ENERGY,	/* an energy counter */
	K_IIO_LIB,	/* libiio channels */
	K_MODEL,	/* cpuidle residency * board power */
};

#define MAX_CPUS   256
#define MAX_STATES 16

struct model {
	const struct lw_board *b;
	char root[PATH_MAX];
	int ncpu;
	int cpu[MAX_CPUS];
	int nstate[MAX_CPUS];
	double state_mw[MAX_CPUS][MAX_STATES];
	char freq_path[MAX_CPUS][128];
	uint64_t prev_time[MAX_CPUS][MAX_STATES];	/* us */
	double active_fixed_mw;				/* no cpufreq */
};

struct lw_chan {
	char name[192];
	char source[16];
	char detail[2 * PATH_MAX + 64];
	unsigned flags;
	enum chan_kind kind;
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
	struct model *m;
};

const char *lw_chan_name(const struct lw_chan *c) { return c->name; }
const char *lw_chan_source(const struct lw_chan *c) { return c->source; }
const char *lw_chan_detail(const struct lw_chan *c) { return c->detail; }
unsigned lw_chan_flags(const struct lw_chan *c) { return c->flags; }

static const struct { const char *name; unsigned bit; } src_names[] = {
	{ "hwmon", LW_SRC_HWMON }, { "iio", LW_SRC_IIO }, { "rapl", LW_SRC_RAPL },
	{ "battery", LW_SRC_BATTERY }, { "model", LW_SRC_MODEL },
};

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
		size_t i;

		for (i = 0; i < sizeof(src_names) / sizeof(src_names[0]); i++)
			if (!strcmp(tok, src_names[i].name))
				break;
		if (i == sizeof(src_names) / sizeof(src_names[0]))
			return error("%s: unknown power source '%s' (auto, off, or a list of hwmon, "
				     "iio, rapl, battery, model)", what, tok);
		*mask |= src_names[i].bit;
	}
	if (!*mask)
		return error("%s: no power source in '%s'", what, s);
	return 0;
}

const char *lw_power_sources_str(unsigned mask, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < sizeof(src_names) / sizeof(src_names[0]); i++)
		if (mask & src_names[i].bit)
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? "," : "",
					      src_names[i].name);
	if (!n)
		snprintf(buf, len, "off");
	return buf;
}

/* ---- small sysfs helpers ------------------------------------------------ */

static int read_str(const char *path, char *buf, size_t len, int *err)
{
	int n = lw_read_file(path, buf, len);

	*err = n < 0 ? errno : 0;
	return n;
}

static int read_num(const char *path, double *v, char *why, size_t whylen)
{
	char buf[64], *end;
	int err = 0;

	if (read_str(path, buf, sizeof(buf), &err) <= 0) {
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

static int read_u64(const char *path, uint64_t *v, char *why, size_t whylen)
{
	char buf[64], *end;
	int err = 0;

	if (read_str(path, buf, sizeof(buf), &err) <= 0) {
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

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static int pathf(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int pathf(char *out, size_t len, const char *fmt, ...)
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

/* Entries of @dir whose names start with @prefix, sorted; free with free_list. */
static char **list_dir(const char *dir, const char *prefix, int *count)
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
		qsort(l, (size_t)n, sizeof(*l), cmp_str);
	*count = n;
	return l;
}

static void free_list(char **l, int n)
{
	for (int i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

static struct lw_chan *chan_add(struct lw_chans *cs, const char *source, enum chan_kind kind)
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
	snprintf(c->source, sizeof(c->source), "%s", source);
	c->kind = kind;
	return c;
}

static int name_taken(const struct lw_chans *cs, const char *name)
{
	for (int i = 0; i < cs->n - 1; i++)
		if (!strcmp(cs->c[i]->name, name))
			return 1;
	return 0;
}

static void set_name(struct lw_chans *cs, struct lw_chan *c, const char *dev, const char *alt,
		     const char *label)
{
	snprintf(c->name, sizeof(c->name), "%s/%s", dev, label);
	if (name_taken(cs, c->name))
		snprintf(c->name, sizeof(c->name), "%s.%s/%s", dev, alt, label);
	for (char *p = c->name; *p; p++)
		if (*p == ' ' || *p == '\t')
			*p = '_';
}

/* ---- hwmon -------------------------------------------------------------- */

/* Attribute PRE<i>SUF (PRE alone when @i < 0) under base or base/device. */
static int hw_attr(const char *base, const char *pre, int i, const char *suf, char *out,
		   size_t len)
{
	char name[64];

	if (i < 0)
		snprintf(name, sizeof(name), "%s", pre);
	else
		snprintf(name, sizeof(name), "%s%d%s", pre, i, suf);
	if (pathf(out, len, "%s/%s", base, name) == 0 && exists(out))
		return 1;
	if (pathf(out, len, "%s/device/%s", base, name) == 0 && exists(out))
		return 1;
	out[0] = 0;
	return 0;
}

/* The first of PRE<i>_label that exists, else DEF<i>. */
static void hw_label(const char *base, const char *const *pres, int i, const char *def,
		     char *out, size_t len)
{
	char path[PATH_MAX];
	int err;

	for (; *pres; pres++)
		if (hw_attr(base, *pres, i, "_label", path, sizeof(path)) &&
		    read_str(path, out, len, &err) > 0)
			return;
	snprintf(out, len, "%s%d", def, i);
}

static int discover_hwmon(const char *root, struct lw_chans *cs)
{
	char dir[PATH_MAX];
	int n;
	char **l;

	if (pathf(dir, sizeof(dir), "%s/sys/class/hwmon", root) < 0)
		return 0;
	l = list_dir(dir, "hwmon", &n);
	for (int h = 0; h < n; h++) {
		char base[PATH_MAX], path[PATH_MAX], dev[64];
		int err, npower = 0;

		if (pathf(base, sizeof(base), "%s/%s", dir, l[h]) < 0)
			continue;
		if (!hw_attr(base, "name", -1, "", path, sizeof(path)) ||
		    read_str(path, dev, sizeof(dev), &err) <= 0)
			snprintf(dev, sizeof(dev), "%s", l[h]);
		for (int i = 0; i < 32; i++) {
			char p[PATH_MAX];
			struct lw_chan *c;
			char label[96];
			static const char *const lf[] = { "power", "curr", "in", NULL };

			if (!hw_attr(base, "power", i, "_input", p, sizeof(p)) &&
			    !hw_attr(base, "power", i, "_average", p, sizeof(p)))
				continue;
			c = chan_add(cs, "hwmon", K_POWER);
			if (!c)
				goto oom;
			npower++;
			strcpy(c->p_main, p);
			c->s_main = 1e-6;		/* uW */
			if (hw_attr(base, "in", i, "_input", c->p_volt, sizeof(c->p_volt)))
				c->s_volt = 1e-3;	/* mV */
			if (hw_attr(base, "curr", i, "_input", c->p_curr, sizeof(c->p_curr)))
				c->s_curr = 1e-3;	/* mA */
			hw_label(base, lf, i, "power", label, sizeof(label));
			set_name(cs, c, dev, l[h], label);
			c->flags = LW_RAIL_TOTAL;
			snprintf(c->detail, sizeof(c->detail), "%s", c->p_main);
		}
		if (!npower) {
			/* INA3221 and the like: bus voltage and current per channel */
			for (int i = 0; i < 32; i++) {
				char pc[PATH_MAX], pv[PATH_MAX], label[96];
				struct lw_chan *c;
				static const char *const lf[] = { "curr", "in", NULL };

				if (!hw_attr(base, "curr", i, "_input", pc, sizeof(pc)) ||
				    !hw_attr(base, "in", i, "_input", pv, sizeof(pv)))
					continue;
				c = chan_add(cs, "hwmon", K_VI);
				if (!c)
					goto oom;
				strcpy(c->p_curr, pc);
				strcpy(c->p_volt, pv);
				c->s_curr = 1e-3;
				c->s_volt = 1e-3;
				hw_label(base, lf, i, "ch", label, sizeof(label));
				set_name(cs, c, dev, l[h], label);
				c->flags = LW_RAIL_TOTAL;
				snprintf(c->detail, sizeof(c->detail), "%s * %s", pv, pc);
			}
		}
		for (int i = 0; i < 32; i++) {
			char p[PATH_MAX], label[96];
			struct lw_chan *c;
			static const char *const lf[] = { "energy", NULL };

			if (!hw_attr(base, "energy", i, "_input", p, sizeof(p)))
				continue;
			c = chan_add(cs, "hwmon", K_ENERGY);
			if (!c)
				goto oom;
			strcpy(c->p_main, p);
			c->s_main = 1e-6;		/* uJ */
			hw_label(base, lf, i, "energy", label, sizeof(label));
			set_name(cs, c, dev, l[h], label);
			c->flags = LW_RAIL_ENERGY | (npower ? 0 : LW_RAIL_TOTAL);
			snprintf(c->detail, sizeof(c->detail), "%s", p);
		}
	}
	free_list(l, n);
	return 0;
oom:
	free_list(l, n);
	return error("out of memory");
}

/* ---- RAPL powercap ------------------------------------------------------ */

static int discover_rapl(const char *root, struct lw_chans *cs)
{
	char dir[PATH_MAX];
	int n, top = 0, psys = 0;
	char **l;

	if (pathf(dir, sizeof(dir), "%s/sys/class/powercap", root) < 0)
		return 0;
	l = list_dir(dir, "intel-rapl:", &n);
	for (int i = 0; i < n; i++)
		if (!strchr(strchr(l[i], ':') + 1, ':')) {
			char path[PATH_MAX], name[64];
			int err;

			top++;
			if (pathf(path, sizeof(path), "%s/%s/name", dir, l[i]) == 0 &&
			    read_str(path, name, sizeof(name), &err) > 0 && !strcmp(name, "psys"))
				psys++;
		}
	for (int i = 0; i < n; i++) {
		char base[PATH_MAX], path[PATH_MAX], name[64], parent[64] = "", label[160];
		struct lw_chan *c;
		int err, sub = strchr(strchr(l[i], ':') + 1, ':') != NULL;
		uint64_t range = 0;
		char why[256];

		if (pathf(base, sizeof(base), "%s/%s", dir, l[i]) < 0)
			continue;
		if (pathf(path, sizeof(path), "%s/energy_uj", base) < 0 || !exists(path))
			continue;
		if (pathf(path, sizeof(path), "%s/name", base) < 0 ||
		    read_str(path, name, sizeof(name), &err) <= 0)
			snprintf(name, sizeof(name), "%s", l[i]);
		if (sub) {
			char pdir[PATH_MAX], *colon;

			if (pathf(pdir, sizeof(pdir), "%s/%s", dir, l[i]) < 0)
				continue;
			colon = strrchr(pdir, ':');
			*colon = 0;
			if (pathf(path, sizeof(path), "%s/name", pdir) == 0)
				read_str(path, parent, sizeof(parent), &err);
		}
		c = chan_add(cs, "rapl", K_ENERGY);
		if (!c) {
			free_list(l, n);
			return error("out of memory");
		}
		pathf(c->p_main, sizeof(c->p_main), "%s/energy_uj", base);
		c->s_main = 1e-6;
		if (pathf(path, sizeof(path), "%s/max_energy_range_uj", base) == 0 &&
		    read_u64(path, &range, why, sizeof(why)) == 0)
			c->range = range;
		if (sub && *parent)
			snprintf(label, sizeof(label), "%s/%s", parent, name);
		else
			snprintf(label, sizeof(label), "%s", name);
		set_name(cs, c, "rapl", l[i], label);
		c->flags = LW_RAIL_ENERGY;
		if (!sub && (strcmp(name, "psys") || top == psys))
			c->flags |= LW_RAIL_TOTAL;
		snprintf(c->detail, sizeof(c->detail), "%s (wraps at %llu uJ)", c->p_main,
			 (unsigned long long)c->range);
	}
	free_list(l, n);
	return 0;
}

/* ---- power_supply (battery) --------------------------------------------- */

static int discover_battery(const char *root, struct lw_chans *cs)
{
	char dir[PATH_MAX];
	int n;
	char **l;

	if (pathf(dir, sizeof(dir), "%s/sys/class/power_supply", root) < 0)
		return 0;
	l = list_dir(dir, "", &n);
	for (int i = 0; i < n; i++) {
		char base[PATH_MAX], path[PATH_MAX], type[32];
		struct lw_chan *c;
		int err;

		if (pathf(base, sizeof(base), "%s/%s", dir, l[i]) < 0 ||
		    pathf(path, sizeof(path), "%s/type", base) < 0 ||
		    read_str(path, type, sizeof(type), &err) <= 0 || strcmp(type, "Battery"))
			continue;
		pathf(path, sizeof(path), "%s/power_now", base);
		if (exists(path)) {
			c = chan_add(cs, "battery", K_POWER);
			if (!c)
				goto oom;
			strcpy(c->p_main, path);
			c->s_main = 1e-6;		/* uW */
			pathf(c->p_volt, sizeof(c->p_volt), "%s/voltage_now", base);
			if (exists(c->p_volt))
				c->s_volt = 1e-6;	/* uV */
			else
				c->p_volt[0] = 0;
		} else {
			char pc[PATH_MAX], pv[PATH_MAX];

			pathf(pc, sizeof(pc), "%s/current_now", base);
			pathf(pv, sizeof(pv), "%s/voltage_now", base);
			if (!exists(pc) || !exists(pv))
				continue;
			c = chan_add(cs, "battery", K_VI);
			if (!c)
				goto oom;
			strcpy(c->p_curr, pc);
			strcpy(c->p_volt, pv);
			c->s_curr = 1e-6;	/* uA */
			c->s_volt = 1e-6;	/* uV */
		}
		c->abs_curr = 1;	/* drivers disagree on the sign when discharging */
		set_name(cs, c, "battery", l[i], l[i]);
		c->flags = LW_RAIL_TOTAL;
		snprintf(c->detail, sizeof(c->detail), "%s", base);
	}
	free_list(l, n);
	return 0;
oom:
	free_list(l, n);
	return error("out of memory");
}

/* ---- IIO through sysfs -------------------------------------------------- */

/* in_<type><idx>_<what> or, for the one channel of a type, in_<type>_<what> */
static int iio_attr(const char *base, const char *type, int idx, const char *what, char *out,
		    size_t len)
{
	if (idx >= 0 && pathf(out, len, "%s/in_%s%d_%s", base, type, idx, what) == 0 && exists(out))
		return 1;
	if (pathf(out, len, "%s/in_%s_%s", base, type, what) == 0 && exists(out))
		return 1;
	out[0] = 0;
	return 0;
}

/* Set @p_main (raw or input) and its scale (to mW, mA or mV, then SI). */
static int iio_chan_paths(const char *base, const char *type, int idx, char *p, size_t plen,
			  char *off, size_t olen, double *scale)
{
	char sp[PATH_MAX], why[128];
	double s = 1;

	off[0] = 0;
	if (pathf(p, plen, "%s/in_%s%d_input", base, type, idx) == 0 && exists(p)) {
		*scale = 1e-3;
		return 1;
	}
	if (pathf(p, plen, "%s/in_%s%d_raw", base, type, idx) < 0 || !exists(p))
		return 0;
	if (iio_attr(base, type, idx, "scale", sp, sizeof(sp)))
		read_num(sp, &s, why, sizeof(why));
	iio_attr(base, type, idx, "offset", off, olen);
	*scale = s * 1e-3;		/* IIO ABI: raw * scale is mW, mA, mV */
	return 1;
}

static int discover_iio_sysfs(const char *root, struct lw_chans *cs)
{
	char dir[PATH_MAX];
	int n;
	char **l;

	if (pathf(dir, sizeof(dir), "%s/sys/bus/iio/devices", root) < 0)
		return 0;
	l = list_dir(dir, "iio:device", &n);
	for (int d = 0; d < n; d++) {
		char base[PATH_MAX], path[PATH_MAX], dev[64];
		int err, npower = 0;

		if (pathf(base, sizeof(base), "%s/%s", dir, l[d]) < 0)
			continue;
		if (pathf(path, sizeof(path), "%s/name", base) < 0 ||
		    read_str(path, dev, sizeof(dev), &err) <= 0)
			snprintf(dev, sizeof(dev), "%s", l[d]);
		for (int i = 0; i < 32; i++) {
			struct lw_chan *c;
			char p[PATH_MAX], off[PATH_MAX], label[32];
			double s;

			if (!iio_chan_paths(base, "power", i, p, sizeof(p), off, sizeof(off), &s))
				continue;
			c = chan_add(cs, "iio", K_POWER);
			if (!c)
				goto oom;
			npower++;
			strcpy(c->p_main, p);
			strcpy(c->p_main_off, off);
			c->s_main = s;
			if (iio_chan_paths(base, "voltage", i, c->p_volt, sizeof(c->p_volt),
					   c->p_volt_off, sizeof(c->p_volt_off), &s))
				c->s_volt = s;
			if (iio_chan_paths(base, "current", i, c->p_curr, sizeof(c->p_curr),
					   c->p_curr_off, sizeof(c->p_curr_off), &s))
				c->s_curr = s;
			snprintf(label, sizeof(label), "power%d", i);
			set_name(cs, c, dev, l[d], label);
			c->flags = LW_RAIL_TOTAL;
			snprintf(c->detail, sizeof(c->detail), "%s", p);
		}
		if (npower)
			continue;
		for (int i = 0; i < 32; i++) {
			struct lw_chan *c;
			char pc[PATH_MAX], pv[PATH_MAX], oc[PATH_MAX], ov[PATH_MAX], label[32];
			double sc, sv;

			if (!iio_chan_paths(base, "current", i, pc, sizeof(pc), oc, sizeof(oc), &sc) ||
			    !iio_chan_paths(base, "voltage", i, pv, sizeof(pv), ov, sizeof(ov), &sv))
				continue;
			c = chan_add(cs, "iio", K_VI);
			if (!c)
				goto oom;
			strcpy(c->p_curr, pc);
			strcpy(c->p_curr_off, oc);
			strcpy(c->p_volt, pv);
			strcpy(c->p_volt_off, ov);
			c->s_curr = sc;
			c->s_volt = sv;
			snprintf(label, sizeof(label), "ch%d", i);
			set_name(cs, c, dev, l[d], label);
			c->flags = LW_RAIL_TOTAL;
			snprintf(c->detail, sizeof(c->detail), "%s * %s", pv, pc);
		}
	}
	free_list(l, n);
	return 0;
oom:
	free_list(l, n);
	return error("out of memory");
}

/* ---- IIO through libiio (--iio-uri) ------------------------------------- */

#ifdef LW_HAVE_IIO
static struct iio_channel *iio_find(struct iio_device *dev, enum iio_chan_type t, long idx)
{
	unsigned n = iio_device_get_channels_count(dev);

	for (unsigned i = 0; i < n; i++) {
		struct iio_channel *ch = iio_device_get_channel(dev, i);

		if (!iio_channel_is_output(ch) && iio_channel_get_type(ch) == t &&
		    (idx < 0 || iio_channel_get_index(ch) == idx))
			return ch;
	}
	return NULL;
}

static int discover_iio_uri(const char *uri, struct lw_chans *cs)
{
	struct iio_context *ctx = iio_create_context_from_uri(uri);
	unsigned ndev;

	if (!ctx)
		return error("--iio-uri %s: cannot open the IIO context: %s", uri, strerror(errno));
	if (iio_context_set_timeout(ctx, 2000) < 0) {
		/* keep the default timeout */
	}
	cs->iio_ctx = ctx;
	ndev = iio_context_get_devices_count(ctx);
	for (unsigned d = 0; d < ndev; d++) {
		struct iio_device *dev = iio_context_get_device(ctx, d);
		const char *dname = iio_device_get_name(dev) ? iio_device_get_name(dev) :
				    iio_device_get_id(dev);
		unsigned nch = iio_device_get_channels_count(dev);
		int npower = 0;

		for (int pass = 0; pass < 2; pass++) {
			for (unsigned i = 0; i < nch; i++) {
				struct iio_channel *ch = iio_device_get_channel(dev, i);
				enum iio_chan_type t = iio_channel_get_type(ch);
				long idx = iio_channel_get_index(ch);
				struct lw_chan *c;
				char label[64];

				if (iio_channel_is_output(ch))
					continue;
				if (pass == 0 && t != IIO_POWER)
					continue;
				if (pass == 1 && (npower || t != IIO_CURRENT))
					continue;
				c = chan_add(cs, "iio", K_IIO_LIB);
				if (!c)
					return error("out of memory");
				c->ich[0] = ch;
				c->ich[1] = iio_find(dev, IIO_VOLTAGE, idx);
				c->ich[2] = pass == 0 ? iio_find(dev, IIO_CURRENT, idx) : ch;
				if (pass == 1 && !c->ich[1]) {
					cs->n--;
					free(c);
					continue;
				}
				if (pass == 0)
					npower++;
				snprintf(label, sizeof(label), "%s", iio_channel_get_id(ch));
				set_name(cs, c, dname, iio_device_get_id(dev), label);
				c->flags = LW_RAIL_TOTAL;
				snprintf(c->detail, sizeof(c->detail), "%s %s/%s", uri,
					 iio_device_get_id(dev), iio_channel_get_id(ch));
			}
		}
	}
	return 0;
}

/* input, else (raw + offset) * scale; in mW, mA, mV */
static int iio_lib_read(struct iio_channel *ch, double *v, char *why, size_t whylen)
{
	double raw, scale = 1, off = 0;
	int ret;

	if (iio_channel_find_attr(ch, "input")) {
		ret = iio_channel_attr_read_double(ch, "input", v);
		if (ret < 0)
			goto fail;
		return 0;
	}
	ret = iio_channel_attr_read_double(ch, "raw", &raw);
	if (ret < 0)
		goto fail;
	if (iio_channel_find_attr(ch, "scale") &&
	    (ret = iio_channel_attr_read_double(ch, "scale", &scale)) < 0)
		goto fail;
	if (iio_channel_find_attr(ch, "offset") &&
	    (ret = iio_channel_attr_read_double(ch, "offset", &off)) < 0)
		goto fail;
	*v = (raw + off) * scale;
	return 0;
fail:
	snprintf(why, whylen, "iio %s: %s", iio_channel_get_id(ch), strerror(-ret));
	return -1;
}
#endif

/* ---- the energy model over cpuidle counters ------------------------------ */

static int discover_model(const struct lw_power_opts *o, struct lw_chans *cs)
{
	const struct lw_board *b = o->board;
	char path[PATH_MAX], buf[4096];
	cpu_set_t online;
	struct lw_chan *c;
	struct model *m;
	int err, missing = 0;
	char nopower[256] = "";

	if (!b)
		return error("power model: no board (give --board)");
	if (!lw_board_has_model(b))
		return error("power model: board '%s' has no power figures (power_mw on "
			     "operating_points or a model: section)", b->name);
	pathf(path, sizeof(path), "%s/sys/devices/system/cpu/online", o->root);
	if (read_str(path, buf, sizeof(buf), &err) <= 0 ||
	    lw_parse_cpulist(path, buf, NULL, &online) < 0)
		return error("power model: cannot read the online CPUs from %s", path);
	m = calloc(1, sizeof(*m));
	c = m ? chan_add(cs, "model", K_MODEL) : NULL;
	if (!c) {
		free(m);
		return error("out of memory");
	}
	c->m = m;
	m->b = b;
	snprintf(m->root, sizeof(m->root), "%s", o->root ? o->root : "");
	for (int cpu = 0; cpu < CPU_SETSIZE && m->ncpu < MAX_CPUS; cpu++) {
		int k = m->ncpu;

		if (!CPU_ISSET(cpu, &online))
			continue;
		if (o->ncpus && k >= o->ncpus)
			break;
		m->cpu[k] = cpu;
		for (int s = 0; s < MAX_STATES; s++) {
			char name[64];
			double p;

			pathf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name",
			      o->root, cpu, s);
			if (read_str(path, name, sizeof(name), &err) < 0)
				break;
			p = lw_board_idle_power(b, name);
			if (p < 0) {
				missing++;
				if (!strstr(nopower, name) && strlen(nopower) + strlen(name) + 3 < sizeof(nopower))
					snprintf(nopower + strlen(nopower), sizeof(nopower) - strlen(nopower),
						 "%s%s", *nopower ? ", " : "", name);
				p = 0;
			}
			m->state_mw[k][s] = p;
			m->nstate[k] = s + 1;
		}
		pathf(m->freq_path[k], sizeof(m->freq_path[k]),
		      "%s/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", o->root, cpu);
		if (!exists(m->freq_path[k]))
			m->freq_path[k][0] = 0;
		m->ncpu++;
	}
	int counters = 0;

	for (int k = 0; k < m->ncpu; k++)
		counters += m->nstate[k];
	if (!counters) {
		/* no cpuidle driver: the counters would call every CPU active */
		cs->n--;
		free(c->m);
		free(c);
		if (o->is_auto)
			return 0;	/* analyze estimates from the trace's cpu_idle events */
		return error("power model: no cpuidle counters under %s/sys/devices/system/cpu (no "
			     "cpuidle driver): every CPU would count as active; with --power auto the "
			     "power is estimated from the trace's power:cpu_idle events instead",
			     o->root ? o->root : "");
	}
	m->active_fixed_mw = lw_board_active_power(b, lw_board_nominal_khz(b));
	snprintf(c->name, sizeof(c->name), "model/%s", b->name);
	c->flags = LW_RAIL_TOTAL | LW_RAIL_ESTIMATED | LW_RAIL_ENERGY;
	snprintf(c->detail, sizeof(c->detail),
		 "board %s energy model over cpuidle residency of %d CPUs%s%s%s", b->name, m->ncpu,
		 b->static_power_mw >= 0 ? " plus static power" : "",
		 missing ? "; no power figure (counted as 0 mW) for idle states: " : "",
		 missing ? nopower : "");
	return 0;
}

static int model_read(struct lw_chan *c, uint64_t now, double *w, double *e, char *why,
		      size_t whylen)
{
	struct model *m = c->m;
	double dt = c->have_prev ? (double)(now - c->prev_ts) / 1e9 : 0, energy_mj = 0;

	for (int k = 0; k < m->ncpu; k++) {
		double idle_s = 0, freq_mw = m->active_fixed_mw;
		char path[PATH_MAX];

		if (m->freq_path[k][0]) {
			double khz;

			if (read_num(m->freq_path[k], &khz, why, whylen) < 0)
				return -1;
			freq_mw = lw_board_active_power(m->b, (uint64_t)khz);
		}
		for (int s = 0; s < m->nstate[k]; s++) {
			uint64_t t;

			pathf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cpuidle/state%d/time",
			      m->root, m->cpu[k], s);
			if (read_u64(path, &t, why, whylen) < 0)
				return -1;
			if (c->have_prev) {
				double d = (double)lw_counter_delta(m->prev_time[k][s], t, 0) / 1e6;

				if (d > dt)
					d = dt;
				idle_s += d;
				energy_mj += d * m->state_mw[k][s];
			}
			m->prev_time[k][s] = t;
		}
		if (c->have_prev) {
			double active = dt - idle_s;

			energy_mj += (active > 0 ? active : 0) * freq_mw;
		}
	}
	if (c->have_prev && m->b->static_power_mw >= 0)
		energy_mj += dt * m->b->static_power_mw;
	if (!c->have_prev) {
		c->have_prev = 1;
		c->prev_ts = now;
		c->acc_j = 0;
		*w = NAN;
		*e = 0;
		return 0;
	}
	c->acc_j += energy_mj / 1e3;
	*w = dt > 0 ? energy_mj / 1e3 / dt : NAN;
	*e = c->acc_j;
	c->prev_ts = now;
	return 0;
}

/* ---- public ------------------------------------------------------------- */

int lw_power_discover(const struct lw_power_opts *o, struct lw_chans *out)
{
	const char *root = o->root ? o->root : "";
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (o->mask & LW_SRC_HWMON)
		ret |= discover_hwmon(root, out);
	if (!ret && (o->mask & LW_SRC_IIO)) {
		if (o->iio_uri) {
#ifdef LW_HAVE_IIO
			ret |= discover_iio_uri(o->iio_uri, out);
#else
			ret = error("--iio-uri: this latwatt was built without libiio (install "
				    "libiio-dev and rebuild)");
#endif
		} else {
			ret |= discover_iio_sysfs(root, out);
		}
	}
	if (!ret && (o->mask & LW_SRC_RAPL))
		ret |= discover_rapl(root, out);
	if (!ret && (o->mask & LW_SRC_BATTERY))
		ret |= discover_battery(root, out);
	if (!ret && ((o->mask & LW_SRC_MODEL) || (o->is_auto && out->n == 0 && o->board &&
						   lw_board_has_model(o->board)))) {
		struct lw_power_opts mo = *o;

		mo.root = root;
		ret |= discover_model(&mo, out);
	}
	if (ret) {
		lw_power_chans_free(out);
		return -1;
	}
	return 0;
}

void lw_power_chans_free(struct lw_chans *cs)
{
	for (int i = 0; i < cs->n; i++) {
		free(cs->c[i]->m);
		free(cs->c[i]);
	}
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

	if (read_num(p, &v, why, whylen) < 0)
		return -1;
	if (off && *off && read_num(off, &o, why, whylen) < 0)
		return -1;
	*out = (v + o) * scale;
	return 0;
}

int lw_chan_read(struct lw_chan *c, uint64_t now, double *w, double *e, double *v, double *a,
		 char *why, size_t whylen)
{
	*w = *e = *v = *a = NAN;
	switch (c->kind) {
	case K_POWER:
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
	case K_VI:
		if (read_scaled(c->p_volt, c->p_volt_off, c->s_volt, v, why, whylen) < 0 ||
		    read_scaled(c->p_curr, c->p_curr_off, c->s_curr, a, why, whylen) < 0) {
			*v = *a = NAN;
			return -1;
		}
		if (c->abs_curr)
			*a = fabs(*a);
		*w = *v * *a;
		return 0;
	case K_ENERGY: {
		uint64_t raw, delta;

		if (read_u64(c->p_main, &raw, why, whylen) < 0)
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
	case K_IIO_LIB:
#ifdef LW_HAVE_IIO
	{
		double main, vv, aa;

		if (iio_lib_read(c->ich[0], &main, why, whylen) < 0)
			return -1;
		if (c->ich[1] && iio_lib_read(c->ich[1], &vv, why, whylen) == 0)
			*v = vv / 1e3;
		if (c->ich[2] && iio_lib_read(c->ich[2], &aa, why, whylen) == 0)
			*a = aa / 1e3;
		if (iio_channel_get_type(c->ich[0]) == IIO_POWER)
			*w = main / 1e3;
		else if (!isnan(*v) && !isnan(*a))
			*w = *v * *a;
		else {
			snprintf(why, whylen, "iio %s: no voltage", iio_channel_get_id(c->ich[0]));
			return -1;
		}
		return 0;
	}
#else
		snprintf(why, whylen, "built without libiio");
		return -1;
#endif
	case K_MODEL:
		return model_read(c, now, w, e, why, whylen);
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
