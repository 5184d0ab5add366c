// SPDX-License-Identifier: GPL-2.0-only
/* Boards found (by name, in the board directories, or a run's own), a board
 * discovered from the system, the power model's lookups, a board as JSON
 * and recorded into a run directory. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "boards/board.h"
#include "boards/board_int.h"
#include "lib/metrics.h"
#include "lib/yamltree.h"
#include "lib/error.h"
#include "lib/input.h"
#include "lib/safefile.h"
#include "lib/sysfs.h"
#include "lib/parse.h"
#include "lib/powersrc.h"
#include "lib/rundir.h"
#include "lib/sort.h"

#ifndef LW_PREFIX
#define LW_PREFIX "/usr/local"
#endif

/* ---- discovery ---------------------------------------------------------- */

static int rread(const char *root, const char *path, char *buf, size_t len)
{
	char full[PATH_MAX];

	snprintf(full, sizeof(full), "%s%s", root ? root : "", path);
	return lw_read_file(full, buf, len);
}

void lw_board_discover(struct lw_board *b, const char *root)
{
	char buf[4096], path[256];
	cpu_set_t online;
	int first = 0;

	b->discovered = 1;
	if (rread(root, "/sys/devices/system/cpu/online", buf, sizeof(buf)) > 0) {
		int q = lw_set_quiet(1);

		if (lw_parse_cpulist("online", buf, NULL, &online) == 0) {
			if (!b->ncpus)
				b->ncpus = CPU_COUNT(&online);
			while (first < CPU_SETSIZE && !CPU_ISSET(first, &online))
				first++;
		}
		lw_set_quiet(q);
	}
	if (!b->arch && (!root || !*root)) {
		struct utsname u;

		if (uname(&u) == 0)
			b->arch = strdup(u.machine);
	}
	if (!b->nidle) {
		struct lw_idle_state *st = calloc(32, sizeof(*st));

		for (int s = 0; st && s < 32; s++) {
			char name[64];

			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name",
				 first, s);
			if (rread(root, path, name, sizeof(name)) < 0)
				break;
			st[s].name = strdup(name);
			st[s].exit_latency_us = st[s].target_residency_us = st[s].power_mw = -1;
			st[s].estimated = 1;
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/desc",
				 first, s);
			if (rread(root, path, buf, sizeof(buf)) >= 0)
				st[s].desc = strdup(buf);
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/latency",
				 first, s);
			if (rread(root, path, buf, sizeof(buf)) > 0)
				st[s].exit_latency_us = strtod(buf, NULL);
			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/residency", first, s);
			if (rread(root, path, buf, sizeof(buf)) > 0)
				st[s].target_residency_us = strtod(buf, NULL);
			b->nidle = s + 1;
		}
		if (b->nidle)
			b->idle = st;
		else
			free(st);
	}
	if (!b->nopp) {
		uint64_t f[64];
		int n = 0;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_available_frequencies", first);
		if (rread(root, path, buf, sizeof(buf)) > 0) {
			char *save, *tok;

			for (tok = strtok_r(buf, " ", &save); tok && n < 64; tok = strtok_r(NULL, " ", &save))
				f[n++] = strtoull(tok, NULL, 10);
		} else {
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_min_freq",
				 first);
			if (rread(root, path, buf, sizeof(buf)) > 0)
				f[n++] = strtoull(buf, NULL, 10);
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq",
				 first);
			if (rread(root, path, buf, sizeof(buf)) > 0 && (!n || strtoull(buf, NULL, 10) != f[0]))
				f[n++] = strtoull(buf, NULL, 10);
		}
		if (n) {
			b->opp = calloc((size_t)n, sizeof(*b->opp));
			for (int i = 0; b->opp && i < n; i++) {
				b->opp[i].freq_khz = f[i];
				b->opp[i].voltage_mv = b->opp[i].power_mw = -1;
				b->opp[i].estimated = 1;
			}
			if (b->opp) {
				b->nopp = n;
				lw_qsort(b->opp, (size_t)n, sizeof(*b->opp), lw_board_cmp_opp);
			}
		}
	}
}

/* ---- finding boards ----------------------------------------------------- */

/* How many of lw_board_dirs() come first from $LATWATT_BOARDS. */
static int nenv_dirs;

const char *const *lw_board_dirs(void)
{
	static char *dirs[16];
	static char store[10][PATH_MAX];
	static int done;
	int n = 0, s = 0;

	if (done)
		return (const char *const *)dirs;
	done = 1;
	const char *env = getenv("LATWATT_BOARDS");

	if (env && *env) {
		char tmp[PATH_MAX * 2], *save, *tok;

		snprintf(tmp, sizeof(tmp), "%s", env);
		for (tok = strtok_r(tmp, ":", &save); tok && s < 4; tok = strtok_r(NULL, ":", &save)) {
			snprintf(store[s], sizeof(store[s]), "%s", tok);
			dirs[n++] = store[s++];
		}
	}
	nenv_dirs = n;
	/* never ./boards: a root latwatt would read board files from wherever it
	 * was started (a shared /tmp, a colleague's run directory) */
	{
		char exe[PATH_MAX - 64];
		ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (len > 0) {
			exe[len] = 0;
			char *slash = strrchr(exe, '/');

			if (slash) {
				*slash = 0;
				snprintf(store[s], sizeof(store[s]), "%s/boards", exe);
				dirs[n++] = store[s++];
				/* an O= build: the source tree's boards */
				snprintf(store[s], sizeof(store[s]), "%s/../boards", exe);
				dirs[n++] = store[s++];
				snprintf(store[s], sizeof(store[s]), "%s/../share/latwatt/boards", exe);
				dirs[n++] = store[s++];
			}
		}
	}
	snprintf(store[s], sizeof(store[s]), "/etc/latwatt/boards");
	dirs[n++] = store[s++];
	snprintf(store[s], sizeof(store[s]), "%s/share/latwatt/boards", LW_PREFIX);
	dirs[n++] = store[s++];
	dirs[n] = NULL;
	return (const char *const *)dirs;
}

/* The file of board @name in the search path: 0 (*@env set when it was
 * found through $LATWATT_BOARDS), 1 when there is none, -1 after error()
 * when a folder of $LATWATT_BOARDS may not be searched (lib/input.h). */
static int find_file(const char *name, char *out, size_t len, int *env)
{
	const char *const *dirs = lw_board_dirs();

	for (int i = 0; dirs[i]; i++) {
		struct stat st;

		*env = i < nenv_dirs;
		if (*env) {
			int r = lw_in_dir_trusted(dirs[i], "LATWATT_BOARDS");

			if (r < 0)
				return -1;
			if (r > 0)
				continue;
		}
		if ((size_t)snprintf(out, len, "%s/%s.yaml", dirs[i], name) < len &&
		    lstat(out, &st) == 0)
			return 0;
	}
	return 1;
}

struct lw_board *lw_board_find(const char *name, const char *root)
{
	char path[PATH_MAX];
	struct lw_board *b;
	int found, env;

	if (!name || !*name)
		name = "local";
	if (strchr(name, '/') || strstr(name, ".yaml")) {
		b = lw_board_load(name);
		if (b && b->discovered)
			lw_board_discover(b, root);
		return b;
	}
	found = find_file(name, path, sizeof(path), &env);
	if (found < 0)
		return NULL;
	if (found > 0) {
		if (!strcmp(name, "local")) {
			b = lw_board_alloc();
			if (!b) {
				error("out of memory");
				return NULL;
			}
			b->name = strdup("local");
			b->description = strdup("the machine latwatt runs on (discovered)");
			lw_board_discover(b, root);
			return b;
		}
		char dirs[1024] = "";
		size_t n = 0;

		for (const char *const *d = lw_board_dirs(); *d && n < sizeof(dirs); d++)
			n += (size_t)snprintf(dirs + n, sizeof(dirs) - n, "%s%s", n ? ", " : "", *d);
		error("board '%s' not found (looked in %s; 'latwatt boards' lists them)", name, dirs);
		return NULL;
	}
	b = lw_board_load_from(path, 0, env ? "LATWATT_BOARDS" : NULL);
	if (b && (b->discovered || !strcmp(name, "local")))
		lw_board_discover(b, root);
	return b;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "name")),
		      json_string_value(json_object_get(*(json_t *const *)b, "name")));
}

json_t *lw_board_list(void)
{
	json_t *seen = json_object(), *arr = json_array(), *sorted = json_array();
	const char *k;
	json_t *v;

	for (const char *const *d = lw_board_dirs(); *d; d++) {
		int env = d - lw_board_dirs() < nenv_dirs;
		DIR *dir;
		struct dirent *e;

		if (env && lw_in_dir_trusted(*d, "LATWATT_BOARDS") != 0)
			continue;	/* refused (said so) or missing */
		dir = opendir(*d);
		if (!dir)
			continue;
		while ((e = readdir(dir))) {
			size_t len = strlen(e->d_name);
			char path[PATH_MAX], name[256];
			struct lw_board *b;

			if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") || len - 5 >= sizeof(name))
				continue;
			snprintf(name, sizeof(name), "%.*s", (int)(len - 5), e->d_name);
			if (json_object_get(seen, name))
				continue;	/* an earlier directory wins */
			snprintf(path, sizeof(path), "%s/%s", *d, e->d_name);
			int q = lw_set_quiet(1);

			b = lw_board_load_from(path, 0, env ? "LATWATT_BOARDS" : NULL);
			lw_set_quiet(q);
			json_object_set_new(seen, name, json_pack("{s:s, s:s, s:o, s:o, s:o, s:b}",
				"name", name, "path", path,
				"arch", b && b->arch ? json_string(b->arch) : json_null(),
				"description", b && b->description ? json_string(b->description) : json_null(),
				"error", b ? json_null() : json_string(lw_last_error()),
				"budgets", b && b->nbudget > 0));
			lw_board_free(b);
		}
		closedir(dir);
	}
	if (!json_object_get(seen, "local"))
		json_object_set_new(seen, "local", json_pack("{s:s, s:n, s:n, s:s, s:n, s:b}",
			"name", "local", "path", "arch", "description",
			"the machine latwatt runs on (discovered)", "error", "budgets", 0));
	json_object_foreach(seen, k, v)
		json_array_append(arr, v);
	{
		size_t n = json_array_size(arr);
		json_t **tmp = calloc(n + 1, sizeof(*tmp));

		for (size_t i = 0; tmp && i < n; i++)
			tmp[i] = json_array_get(arr, i);
		if (tmp)
			lw_qsort(tmp, n, sizeof(*tmp), cmp_name);
		for (size_t i = 0; tmp && i < n; i++)
			json_array_append(sorted, tmp[i]);
		free(tmp);
	}
	json_decref(arr);
	json_decref(seen);
	return sorted;
}

/* ---- model lookups ------------------------------------------------------ */

static int is_poll(const char *name)
{
	return name && (!strcmp(name, "POLL") || !strcmp(name, "poll"));
}

double lw_board_state_power(const struct lw_board *b, const char *name, int polling)
{
	for (int i = 0; name && i < b->nidle; i++)
		if (b->idle[i].name && !strcmp(b->idle[i].name, name) && b->idle[i].power_mw >= 0)
			return b->idle[i].power_mw;
	if (polling || is_poll(name))
		return b->model.poll_power_mw >= 0 ? b->model.poll_power_mw :
		       lw_board_active_power(b, lw_board_nominal_khz(b));
	if (b->model.idle_power_mw >= 0)
		return b->model.idle_power_mw;
	for (int i = 0; i < b->nidle; i++)
		if (b->idle[i].name && !is_poll(b->idle[i].name) && b->idle[i].power_mw >= 0)
			return b->idle[i].power_mw;
	return -1;
}

double lw_board_idle_power(const struct lw_board *b, const char *name)
{
	return lw_board_state_power(b, name, 0);
}

double lw_board_active_power(const struct lw_board *b, uint64_t khz)
{
	const struct lw_opp *lo = NULL, *hi = NULL;

	for (int i = 0; i < b->nopp; i++) {
		const struct lw_opp *o = &b->opp[i];

		if (o->power_mw < 0)
			continue;
		if (o->freq_khz <= khz)
			lo = o;
		if (o->freq_khz >= khz && !hi)
			hi = o;
	}
	if (!lo && !hi)
		return b->model.active_power_mw;
	if (!lo)
		return hi->power_mw;
	if (!hi || hi == lo)
		return lo->power_mw;
	return lo->power_mw + (hi->power_mw - lo->power_mw) *
	       (double)(khz - lo->freq_khz) / (double)(hi->freq_khz - lo->freq_khz);
}

uint64_t lw_board_nominal_khz(const struct lw_board *b)
{
	return b->nopp ? b->opp[b->nopp - 1].freq_khz : 0;
}

int lw_board_has_model(const struct lw_board *b)
{
	if (b->model.active_power_mw >= 0)
		return 1;
	for (int i = 0; i < b->nopp; i++)
		if (b->opp[i].power_mw >= 0)
			return 1;
	return 0;
}

/* ---- JSON --------------------------------------------------------------- */

static json_t *num_or_null(double v)
{
	return v < 0 ? json_null() : json_real(v);
}

static json_t *cpus_json(const cpu_set_t *s, int has)
{
	char buf[256];

	return has ? json_string(lw_format_cpulist(s, buf, sizeof(buf))) : json_null();
}

/* What board JSON calls a budget: "latency", or the figure's board key
 * without unit (audio_xruns, average_power, energy_per_audio_period). */
static const char *budget_kind_name(const struct lw_budget *bu)
{
	if (bu->m->probe)
		return "latency";
	return bu->m->alias[0] ? bu->m->alias[0] : bu->m->name;
}

json_t *lw_board_to_json(const struct lw_board *b)
{
	json_t *o = json_object(), *a;

	json_object_set_new(o, "name", json_string(b->name));
	json_object_set_new(o, "description", b->description ? json_string(b->description) : json_null());
	json_object_set_new(o, "arch", b->arch ? json_string(b->arch) : json_null());
	json_object_set_new(o, "path", b->path ? json_string(b->path) : json_null());
	json_object_set_new(o, "emulated", json_boolean(b->emulated));
	json_object_set_new(o, "discovered", json_boolean(b->discovered));
	if (b->target.ssh) {
		json_t *t = json_pack("{s:s, s:s*, s:s*}", "ssh", b->target.ssh,
				      "identity", b->target.identity, "dir", b->target.dir);
		json_t *to = json_array();

		for (int i = 0; i < b->target.noptions; i++)
			json_array_append_new(to, json_string(b->target.options[i]));
		if (t && b->target.port)
			json_object_set_new(t, "port", json_integer(b->target.port));
		if (t)
			json_object_set_new(t, "options", to);
		else
			json_decref(to);
		json_object_set_new(o, "target", t ? t : json_null());
	}
	a = json_array();
	for (int i = 0; i < b->nsources; i++)
		json_array_append_new(a, json_string(b->sources[i]));
	json_object_set_new(o, "sources", a);
	json_object_set_new(o, "cpus", json_pack("{s:i, s:o, s:o}", "count", b->ncpus,
		"housekeeping", cpus_json(&b->housekeeping, b->has_housekeeping),
		"realtime", cpus_json(&b->realtime, b->has_realtime)));
	a = json_array();
	for (int i = 0; i < b->kernel.ntracers; i++)
		json_array_append_new(a, json_string(b->kernel.tracers[i]));
	json_object_set_new(o, "kernel", json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}",
		"preempt_rt", b->kernel.preempt_rt < 0 ? json_null() : json_boolean(b->kernel.preempt_rt),
		"cmdline", b->kernel.cmdline ? json_string(b->kernel.cmdline) : json_null(),
		"nohz_full", cpus_json(&b->kernel.nohz_full, b->kernel.has_nohz_full),
		"isolated", cpus_json(&b->kernel.isolated, b->kernel.has_isolated),
		"rcu_nocbs", cpus_json(&b->kernel.rcu_nocbs, b->kernel.has_rcu_nocbs),
		"tracers", a));
	a = json_array();
	for (int i = 0; i < b->nidle; i++)
		json_array_append_new(a, json_pack("{s:s, s:o, s:o, s:o, s:o, s:b}",
			"name", b->idle[i].name,
			"desc", b->idle[i].desc ? json_string(b->idle[i].desc) : json_null(),
			"exit_latency_us", num_or_null(b->idle[i].exit_latency_us),
			"target_residency_us", num_or_null(b->idle[i].target_residency_us),
			"power_mw", num_or_null(lw_board_idle_power(b, b->idle[i].name)),
			"estimated", b->idle[i].estimated || b->idle[i].power_mw < 0));
	json_object_set_new(o, "idle_states", a);
	a = json_array();
	for (int i = 0; i < b->nopp; i++)
		json_array_append_new(a, json_pack("{s:I, s:o, s:o, s:b}",
			"freq_khz", (json_int_t)b->opp[i].freq_khz,
			"voltage_mv", num_or_null(b->opp[i].voltage_mv),
			"power_mw", num_or_null(lw_board_active_power(b, b->opp[i].freq_khz)),
			"estimated", b->opp[i].estimated || b->opp[i].power_mw < 0));
	json_object_set_new(o, "operating_points", a);
	json_object_set_new(o, "static_power_mw", num_or_null(b->static_power_mw));
	json_object_set_new(o, "power", json_string(b->power ? b->power : "auto"));
	a = json_array();
	for (int i = 0; i < b->nsrc; i++)
		json_array_append_new(a, json_pack("{s:s, s:o, s:o}", "type", b->src[i].type,
			"device", b->src[i].device ? json_string(b->src[i].device) : json_null(),
			"rail", b->src[i].rail ? json_string(b->src[i].rail) : json_null()));
	json_object_set_new(o, "power_sources", a);
	a = json_array();
	for (int i = 0; i < b->nbudget; i++) {
		const struct lw_budget *bu = &b->budget[i];
		json_t *j = json_pack("{s:s, s:f}", "kind", budget_kind_name(bu),
				      "limit", bu->limit);

		if (bu->m->probe) {
			json_object_set_new(j, "probe", bu->probe ? json_string(bu->probe) : json_null());
			json_object_set_new(j, "stat", json_string(bu->stat));
		}
		json_array_append_new(a, j);
	}
	json_object_set_new(o, "budgets", a);
	return o;
}

/* ---- boards and runs ---------------------------------------------------- */

static int write_text(int dfd, const char *to, const char *text, size_t len)
{
	FILE *out = lw_fcreate_at(dfd, to, 0644);
	int ret = 0;

	if (!out)
		return -1;
	if (fwrite(text, 1, len, out) != len)
		ret = error_errno("cannot write %s", to);
	if (fclose(out) != 0 && !ret)
		ret = error_errno("cannot write %s", to);
	return ret;
}

int lw_board_record(const struct lw_board *b, int dfd, const char *rundir)
{
	char path[PATH_MAX];
	json_t *j = lw_board_to_json(b);
	int ret;

	snprintf(path, sizeof(path), "%s/board.json", rundir);
	ret = lw_json_save_at(dfd, j, path);
	json_decref(j);
	if (ret < 0)
		return -1;
	if (b->text) {
		snprintf(path, sizeof(path), "%s/board.yaml", rundir);
		return write_text(dfd, path, b->text, b->text_len);
	}
	return 0;
}

struct lw_board *lw_board_for_run(const char *rundir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	json_t *m;
	struct lw_board *b;

	if (name && *name)
		return lw_board_find(name, NULL);
	snprintf(path, sizeof(path), "%s/board.yaml", rundir);
	if (lstat(path, &st) == 0 || errno != ENOENT)
		return lw_board_load_from(path, LW_IN_NOFOLLOW, NULL);
	snprintf(path, sizeof(path), "%s/manifest.json", rundir);
	m = lw_json_load_flags(path, LW_IN_NOFOLLOW, LW_CAP_MANIFEST);
	if (!m)
		return NULL;
	name = json_string_value(json_object_get(m, "board"));
	b = lw_board_find(name ? name : "local", NULL);
	json_decref(m);
	return b;
}
