// SPDX-License-Identifier: GPL-2.0-only
/*
 * rapl: /sys/class/powercap/intel-rapl:N: energy_uj, wrapping at
 * max_energy_range_uj.  The top-level zones are the total (psys alone when
 * every top-level zone is psys), the subzones parts of them.
 */
#include <stdio.h>
#include <string.h>

#include "lib/error.h"
#include "power/chan.h"
#include "power/sources.h"
#include "power/power.h"

static int discover_rapl(const struct lw_power_opts *o, struct lw_chans *cs)
{
	const char *root = o->root;
	char dir[PATH_MAX];
	int n, top = 0, psys = 0;
	char **l;

	if (lw_src_pathf(dir, sizeof(dir), "%s/sys/class/powercap", root) < 0)
		return 0;
	l = lw_src_list_dir(dir, "intel-rapl:", &n);
	for (int i = 0; i < n; i++)
		if (!strchr(strchr(l[i], ':') + 1, ':')) {
			char path[PATH_MAX], name[64];
			int err;

			top++;
			if (lw_src_pathf(path, sizeof(path), "%s/%s/name", dir, l[i]) == 0 &&
			    lw_src_read_str(path, name, sizeof(name), &err) > 0 && !strcmp(name, "psys"))
				psys++;
		}
	for (int i = 0; i < n; i++) {
		char base[PATH_MAX], path[PATH_MAX], name[64], parent[64] = "", label[160];
		struct lw_chan *c;
		int err, sub = strchr(strchr(l[i], ':') + 1, ':') != NULL;
		uint64_t range = 0;
		char why[256];

		if (lw_src_pathf(base, sizeof(base), "%s/%s", dir, l[i]) < 0)
			continue;
		if (lw_src_pathf(path, sizeof(path), "%s/energy_uj", base) < 0 || !lw_src_exists(path))
			continue;
		if (lw_src_pathf(path, sizeof(path), "%s/name", base) < 0 ||
		    lw_src_read_str(path, name, sizeof(name), &err) <= 0)
			snprintf(name, sizeof(name), "%s", l[i]);
		if (sub) {
			char pdir[PATH_MAX], *colon;

			if (lw_src_pathf(pdir, sizeof(pdir), "%s/%s", dir, l[i]) < 0)
				continue;
			colon = strrchr(pdir, ':');
			*colon = 0;
			if (lw_src_pathf(path, sizeof(path), "%s/name", pdir) == 0)
				lw_src_read_str(path, parent, sizeof(parent), &err);
		}
		c = lw_chan_add(cs, &lw_src_rapl, LW_CHAN_ENERGY);
		if (!c) {
			lw_src_free_list(l, n);
			return error("out of memory");
		}
		lw_src_pathf(c->p_main, sizeof(c->p_main), "%s/energy_uj", base);
		c->s_main = 1e-6;
		if (lw_src_pathf(path, sizeof(path), "%s/max_energy_range_uj", base) == 0 &&
		    lw_src_read_u64(path, &range, why, sizeof(why)) == 0)
			c->range = range;
		if (sub && *parent)
			snprintf(label, sizeof(label), "%s/%s", parent, name);
		else
			snprintf(label, sizeof(label), "%s", name);
		lw_chan_set_name(cs, c, "rapl", l[i], label);
		c->flags = LW_RAIL_ENERGY;
		if (!sub && (strcmp(name, "psys") || top == psys))
			c->flags |= LW_RAIL_TOTAL;
		snprintf(c->detail, sizeof(c->detail), "%s (wraps at %llu uJ)", c->p_main,
			 (unsigned long long)c->range);
	}
	lw_src_free_list(l, n);
	return 0;
}

const struct lw_power_source_type lw_src_rapl = {
	.name = "rapl",
	.label = "RAPL powercap",
	.help = "RAPL powercap energy counters (intel-rapl)",
	.discover = discover_rapl,
};
