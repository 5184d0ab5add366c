// SPDX-License-Identifier: GPL-2.0-only
/*
 * iio: /sys/bus/iio/devices/iio:deviceN: in_powerN, or in_currentN with
 * in_voltageN (raw * scale, or input: mW, mA, mV); or libiio over
 * --iio-uri (ip:HOST, usb:..., local:).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "power/chan.h"
#include "power/sources.h"
#include "power/power.h"

/* in_<type><idx>_<what> or, for the one channel of a type, in_<type>_<what> */
static int iio_attr(const char *base, const char *type, int idx, const char *what, char *out,
		    size_t len)
{
	if (idx >= 0 && lw_src_pathf(out, len, "%s/in_%s%d_%s", base, type, idx, what) == 0 &&
	    lw_src_exists(out))
		return 1;
	if (lw_src_pathf(out, len, "%s/in_%s_%s", base, type, what) == 0 && lw_src_exists(out))
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
	if (lw_src_pathf(p, plen, "%s/in_%s%d_input", base, type, idx) == 0 && lw_src_exists(p)) {
		*scale = 1e-3;
		return 1;
	}
	if (lw_src_pathf(p, plen, "%s/in_%s%d_raw", base, type, idx) < 0 || !lw_src_exists(p))
		return 0;
	if (iio_attr(base, type, idx, "scale", sp, sizeof(sp)))
		lw_src_read_num(sp, &s, why, sizeof(why));
	iio_attr(base, type, idx, "offset", off, olen);
	*scale = s * 1e-3;		/* IIO ABI: raw * scale is mW, mA, mV */
	return 1;
}

static int discover_sysfs(const char *root, struct lw_chans *cs)
{
	char dir[PATH_MAX];
	int n;
	char **l;

	if (lw_src_pathf(dir, sizeof(dir), "%s/sys/bus/iio/devices", root) < 0)
		return 0;
	l = lw_src_list_dir(dir, "iio:device", &n);
	for (int d = 0; d < n; d++) {
		char base[PATH_MAX], path[PATH_MAX], dev[64];
		int err, npower = 0;

		if (lw_src_pathf(base, sizeof(base), "%s/%s", dir, l[d]) < 0)
			continue;
		if (lw_src_pathf(path, sizeof(path), "%s/name", base) < 0 ||
		    lw_src_read_str(path, dev, sizeof(dev), &err) <= 0)
			snprintf(dev, sizeof(dev), "%s", l[d]);
		for (int i = 0; i < 32; i++) {
			struct lw_chan *c;
			char p[PATH_MAX], off[PATH_MAX], label[32];
			double s;

			if (!iio_chan_paths(base, "power", i, p, sizeof(p), off, sizeof(off), &s))
				continue;
			c = lw_chan_add(cs, &lw_src_iio, LW_CHAN_POWER);
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
			lw_chan_set_name(cs, c, dev, l[d], label);
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
			c = lw_chan_add(cs, &lw_src_iio, LW_CHAN_VI);
			if (!c)
				goto oom;
			strcpy(c->p_curr, pc);
			strcpy(c->p_curr_off, oc);
			strcpy(c->p_volt, pv);
			strcpy(c->p_volt_off, ov);
			c->s_curr = sc;
			c->s_volt = sv;
			snprintf(label, sizeof(label), "ch%d", i);
			lw_chan_set_name(cs, c, dev, l[d], label);
			c->flags = LW_RAIL_TOTAL;
			snprintf(c->detail, sizeof(c->detail), "%s * %s", pv, pc);
		}
	}
	lw_src_free_list(l, n);
	return 0;
oom:
	lw_src_free_list(l, n);
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

static int discover_uri(const char *uri, struct lw_chans *cs)
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
				c = lw_chan_add(cs, &lw_src_iio, LW_CHAN_OWN);
				if (!c)
					return error("out of memory");
				c->ich[0] = ch;
				c->ich[1] = iio_find(dev, IIO_VOLTAGE, idx);
				c->ich[2] = pass == 0 ? iio_find(dev, IIO_CURRENT, idx) : ch;
				if (pass == 1 && !c->ich[1]) {
					lw_chan_drop_last(cs);
					continue;
				}
				if (pass == 0)
					npower++;
				snprintf(label, sizeof(label), "%s", iio_channel_get_id(ch));
				lw_chan_set_name(cs, c, dname, iio_device_get_id(dev), label);
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

/* A libiio rail (LW_CHAN_OWN): volts and amps beside it when it has them. */
static int read_lib(struct lw_chan *c, uint64_t now, double *w, double *e, double *v, double *a,
		    char *why, size_t whylen)
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
static int read_lib(struct lw_chan *c, uint64_t now, double *w, double *e, double *v, double *a,
		    char *why, size_t whylen)
{
	snprintf(why, whylen, "built without libiio");
	return -1;
}
#endif

/* Through libiio with --iio-uri, else through sysfs. */
static int discover_iio(const struct lw_power_opts *o, struct lw_chans *cs)
{
	if (!o->iio_uri)
		return discover_sysfs(o->root, cs);
#ifdef LW_HAVE_IIO
	return discover_uri(o->iio_uri, cs);
#else
	return error("--iio-uri: this latwatt was built without libiio (install "
		     "libiio-dev and rebuild)");
#endif
}

const struct lw_power_source_type lw_src_iio = {
	.name = "iio",
	.label = "IIO",
	.help = "IIO power monitors; through libiio with --iio-uri",
	.discover = discover_iio,
	.read = read_lib,
};

