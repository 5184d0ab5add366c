// SPDX-License-Identifier: GPL-2.0-only
/*
 * battery: /sys/class/power_supply/NAME of type Battery: power_now (uW), or
 * current_now (uA) * voltage_now (uV).
 */
#include <stdio.h>
#include <string.h>

#include "lib/error.h"
#include "power/chan.h"
#include "power/sources.h"
#include "power/power.h"

static int discover_battery(const struct lw_power_opts *o, struct lw_chans *cs)
{
	const char *root = o->root;
	char dir[PATH_MAX];
	int n;
	char **l;

	if (lw_src_pathf(dir, sizeof(dir), "%s/sys/class/power_supply", root) < 0)
		return 0;
	l = lw_src_list_dir(dir, "", &n);
	for (int i = 0; i < n; i++) {
		char base[PATH_MAX], path[PATH_MAX], type[32];
		struct lw_chan *c;
		int err;

		if (lw_src_pathf(base, sizeof(base), "%s/%s", dir, l[i]) < 0 ||
		    lw_src_pathf(path, sizeof(path), "%s/type", base) < 0 ||
		    lw_src_read_str(path, type, sizeof(type), &err) <= 0 || strcmp(type, "Battery"))
			continue;
		lw_src_pathf(path, sizeof(path), "%s/power_now", base);
		if (lw_src_exists(path)) {
			c = lw_chan_add(cs, &lw_src_battery, LW_CHAN_POWER);
			if (!c)
				goto oom;
			strcpy(c->p_main, path);
			c->s_main = 1e-6;		/* uW */
			lw_src_pathf(c->p_volt, sizeof(c->p_volt), "%s/voltage_now", base);
			if (lw_src_exists(c->p_volt))
				c->s_volt = 1e-6;	/* uV */
			else
				c->p_volt[0] = 0;
		} else {
			char pc[PATH_MAX], pv[PATH_MAX];

			lw_src_pathf(pc, sizeof(pc), "%s/current_now", base);
			lw_src_pathf(pv, sizeof(pv), "%s/voltage_now", base);
			if (!lw_src_exists(pc) || !lw_src_exists(pv))
				continue;
			c = lw_chan_add(cs, &lw_src_battery, LW_CHAN_VI);
			if (!c)
				goto oom;
			strcpy(c->p_curr, pc);
			strcpy(c->p_volt, pv);
			c->s_curr = 1e-6;	/* uA */
			c->s_volt = 1e-6;	/* uV */
		}
		c->abs_curr = 1;	/* drivers disagree on the sign when discharging */
		lw_chan_set_name(cs, c, "battery", l[i], l[i]);
		c->flags = LW_RAIL_TOTAL;
		snprintf(c->detail, sizeof(c->detail), "%s", base);
	}
	lw_src_free_list(l, n);
	return 0;
oom:
	lw_src_free_list(l, n);
	return error("out of memory");
}

const struct lw_power_source_type lw_src_battery = {
	.name = "battery",
	.label = "battery",
	.help = "batteries: power_now, or current_now * voltage_now",
	.discover = discover_battery,
};
