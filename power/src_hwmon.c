// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwmon: /sys/class/hwmon/hwmonN: powerN_input (uW), energyN_input (uJ),
 * currN_input (mA) with inN_input (mV); names from name, *_label.
 */
#include <stdio.h>
#include <string.h>

#include "lib/error.h"
#include "power/chan.h"
#include "power/sources.h"
#include "power/power.h"

/* Attribute PRE<i>SUF (PRE alone when @i < 0) under base or base/device. */
static int hw_attr(const char *base, const char *pre, int i, const char *suf, char *out,
		   size_t len)
{
	char name[64];

	if (i < 0)
		snprintf(name, sizeof(name), "%s", pre);
	else
		snprintf(name, sizeof(name), "%s%d%s", pre, i, suf);
	if (lw_src_pathf(out, len, "%s/%s", base, name) == 0 && lw_src_exists(out))
		return 1;
	if (lw_src_pathf(out, len, "%s/device/%s", base, name) == 0 && lw_src_exists(out))
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
		    lw_src_read_str(path, out, len, &err) > 0)
			return;
	snprintf(out, len, "%s%d", def, i);
}

static int discover_hwmon(const struct lw_power_opts *o, struct lw_chans *cs)
{
	const char *root = o->root;
	char dir[PATH_MAX];
	int n;
	char **l;

	if (lw_src_pathf(dir, sizeof(dir), "%s/sys/class/hwmon", root) < 0)
		return 0;
	l = lw_src_list_dir(dir, "hwmon", &n);
	for (int h = 0; h < n; h++) {
		char base[PATH_MAX], path[PATH_MAX], dev[64];
		int err, npower = 0;

		if (lw_src_pathf(base, sizeof(base), "%s/%s", dir, l[h]) < 0)
			continue;
		if (!hw_attr(base, "name", -1, "", path, sizeof(path)) ||
		    lw_src_read_str(path, dev, sizeof(dev), &err) <= 0)
			snprintf(dev, sizeof(dev), "%s", l[h]);
		for (int i = 0; i < 32; i++) {
			char p[PATH_MAX];
			struct lw_chan *c;
			char label[96];
			static const char *const lf[] = { "power", "curr", "in", NULL };

			if (!hw_attr(base, "power", i, "_input", p, sizeof(p)) &&
			    !hw_attr(base, "power", i, "_average", p, sizeof(p)))
				continue;
			c = lw_chan_add(cs, &lw_src_hwmon, LW_CHAN_POWER);
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
			lw_chan_set_name(cs, c, dev, l[h], label);
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
				c = lw_chan_add(cs, &lw_src_hwmon, LW_CHAN_VI);
				if (!c)
					goto oom;
				strcpy(c->p_curr, pc);
				strcpy(c->p_volt, pv);
				c->s_curr = 1e-3;
				c->s_volt = 1e-3;
				hw_label(base, lf, i, "ch", label, sizeof(label));
				lw_chan_set_name(cs, c, dev, l[h], label);
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
			c = lw_chan_add(cs, &lw_src_hwmon, LW_CHAN_ENERGY);
			if (!c)
				goto oom;
			strcpy(c->p_main, p);
			c->s_main = 1e-6;		/* uJ */
			hw_label(base, lf, i, "energy", label, sizeof(label));
			lw_chan_set_name(cs, c, dev, l[h], label);
			c->flags = LW_RAIL_ENERGY | (npower ? 0 : LW_RAIL_TOTAL);
			snprintf(c->detail, sizeof(c->detail), "%s", p);
		}
	}
	lw_src_free_list(l, n);
	return 0;
oom:
	lw_src_free_list(l, n);
	return error("out of memory");
}

const struct lw_power_source_type lw_src_hwmon = {
	.name = "hwmon",
	.label = "hwmon",
	.help = "power, energy, current and voltage channels (INA2xx)",
	.discover = discover_hwmon,
};
