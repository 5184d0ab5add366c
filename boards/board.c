// SPDX-License-Identifier: GPL-2.0-only
/* Board files: parsing and validation (format in boards/README.md); finding,
 * discovering, looking up and recording boards is boards/board_find.c. */
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
#include "lib/sysfs.h"
#include "lib/yamltree.h"
#include "lib/error.h"
#include "lib/input.h"
#include "lib/safefile.h"
#include "lib/parse.h"
#include "lib/powersrc.h"
#include "lib/rundir.h"
#include "lib/sort.h"

struct ctx {
	const char *file;
	int failed;
};

/* One error line: "file:line:col: key: message". */
static int bad(struct ctx *c, const struct lw_ynode *n, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int bad(struct ctx *c, const struct lw_ynode *n, const char *key, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->failed = 1;
	if (n)
		return error("%s:%d:%d: %s: %s", c->file, n->line, n->col, key, msg);
	return error("%s: %s: %s", c->file, key, msg);
}

static const char *type_name(const struct lw_ynode *n)
{
	return n->type == LW_Y_MAP ? "a mapping" : n->type == LW_Y_SEQ ? "a list" : "a scalar";
}

static int want_type(struct ctx *c, const struct lw_ynode *n, const char *key, enum lw_ytype t)
{
	static const char *const names[] = { "a scalar", "a mapping", "a list" };

	if (n->type != t)
		return bad(c, n, key, "must be %s, not %s", names[t], type_name(n));
	return 0;
}

/* Keys of @map must be in @known (NULL-terminated); "x-" keys are free. */
static int known_keys(struct ctx *c, const struct lw_ynode *map, const char *where,
		      const char *const *known)
{
	for (size_t i = 0; i < map->n; i++) {
		const struct lw_ynode *k = lw_ymap_key(map, i);
		const char *const *p;
		char list[512] = "";
		size_t len = 0;

		if (!strncmp(k->value, "x-", 2))
			continue;
		for (p = known; *p; p++)
			if (!strcmp(*p, k->value))
				break;
		if (*p)
			continue;
		for (p = known; *p && len < sizeof(list); p++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
						p == known ? "" : ", ", *p);
		/* the key itself is not repeated: an error never quotes the file */
		return bad(c, k, *where ? where : "(top)", "unknown key (known here: %s)", list);
	}
	return 0;
}

static int get_str(struct ctx *c, const struct lw_ynode *n, const char *key, char **out)
{
	if (want_type(c, n, key, LW_Y_SCALAR) < 0)
		return -1;
	free(*out);
	*out = strdup(n->value);
	return *out ? 0 : error("out of memory");
}

static int get_num(struct ctx *c, const struct lw_ynode *n, const char *key, double min,
		   double max, double *out)
{
	char *end;
	double v;

	if (want_type(c, n, key, LW_Y_SCALAR) < 0)
		return -1;
	errno = 0;
	v = strtod(n->value, &end);
	if (!*n->value || *end || errno || !isfinite(v) || n->quoted)
		return bad(c, n, key, "not a number");
	if (v < min || v > max)
		return bad(c, n, key, "%g is out of range [%g, %g]", v, min, max);
	*out = v;
	return 0;
}

static int get_uint(struct ctx *c, const struct lw_ynode *n, const char *key, uint64_t max,
		    uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (want_type(c, n, key, LW_Y_SCALAR) < 0)
		return -1;
	errno = 0;
	v = strtoull(n->value, &end, 10);
	if (!isdigit((unsigned char)n->value[0]) || *end || errno || n->quoted)
		return bad(c, n, key, "not a non-negative integer");
	if (v > max)
		return bad(c, n, key, "%llu is out of range [0, %llu]", v, (unsigned long long)max);
	*out = v;
	return 0;
}

static int get_bool(struct ctx *c, const struct lw_ynode *n, const char *key, int *out)
{
	static const char *const t[] = { "true", "True", "TRUE", "yes", "Yes", "on", NULL };
	static const char *const f[] = { "false", "False", "FALSE", "no", "No", "off", NULL };

	if (want_type(c, n, key, LW_Y_SCALAR) < 0)
		return -1;
	for (int i = 0; t[i]; i++)
		if (!strcmp(n->value, t[i]) && !n->quoted) {
			*out = 1;
			return 0;
		}
	for (int i = 0; f[i]; i++)
		if (!strcmp(n->value, f[i]) && !n->quoted) {
			*out = 0;
			return 0;
		}
	return bad(c, n, key, "not a boolean (true or false)");
}

/* A CPU list: [0, 2, 3], "1-3,6" or 5. */
static int get_cpus(struct ctx *c, const struct lw_ynode *n, const char *key, cpu_set_t *out)
{
	CPU_ZERO(out);
	if (n->type == LW_Y_SEQ) {
		for (size_t i = 0; i < n->n; i++) {
			uint64_t cpu;
			char k[256];

			snprintf(k, sizeof(k), "%s[%zu]", key, i);
			if (get_uint(c, n->kid[i], k, CPU_SETSIZE - 1, &cpu) < 0)
				return -1;
			CPU_SET(cpu, out);
		}
		return 0;
	}
	if (n->type != LW_Y_SCALAR)
		return bad(c, n, key, "must be a CPU list ([0, 1] or \"0-3,6\"), not %s", type_name(n));
	if (!*n->value)
		return 0;
	int q = lw_set_quiet(1);
	int ret = lw_parse_cpulist(key, n->value, NULL, out);

	lw_set_quiet(q);
	if (ret < 0)
		return bad(c, n, key, "not a CPU list (e.g. [1, 2] or \"1-3,6\")");
	return 0;
}

static int get_strlist(struct ctx *c, const struct lw_ynode *n, const char *key, char ***out,
		       int *count)
{
	size_t k = n->type == LW_Y_SEQ ? n->n : 1;

	if (n->type == LW_Y_MAP)
		return bad(c, n, key, "must be a list of strings, not a mapping");
	*out = calloc(k + 1, sizeof(char *));
	if (!*out)
		return error("out of memory");
	*count = 0;
	for (size_t i = 0; i < k; i++) {
		const struct lw_ynode *s = n->type == LW_Y_SEQ ? n->kid[i] : n;
		char kk[256];

		snprintf(kk, sizeof(kk), "%s[%zu]", key, i);
		if (get_str(c, s, kk, &(*out)[i]) < 0)
			return -1;
		(*count)++;
	}
	return 0;
}

/* "nohz_full=1-3 isolcpus=domain,managed_irq,1-3" -> the CPU list of @param */
static int cmdline_cpus(const char *cmdline, const char *param, cpu_set_t *out)
{
	size_t plen = strlen(param);
	const char *p = cmdline;

	while (p && *p) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, param, plen) && p[plen] == '=') {
			char val[256], list[256] = "";
			size_t n = strcspn(p + plen + 1, " ");
			char *tok, *save;

			if (n >= sizeof(val))
				return 0;
			memcpy(val, p + plen + 1, n);
			val[n] = 0;
			for (tok = strtok_r(val, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				if (isdigit((unsigned char)*tok))
					snprintf(list + strlen(list), sizeof(list) - strlen(list),
						 "%s%s", *list ? "," : "", tok);
			int q = lw_set_quiet(1);
			int ret = *list ? lw_parse_cpulist(param, list, NULL, out) : -1;

			lw_set_quiet(q);
			return ret == 0;
		}
		p = strchr(p, ' ');
	}
	return 0;
}

static int parse_expect(struct ctx *c, struct lw_board *b, const struct lw_ynode *m,
			const char *where)
{
	static const char *const known[] = { "preempt_rt", "cmdline", "expect", "nohz_full",
		"isolated", "isolcpus", "rcu_nocbs", "tracers", "tracers_rt", "notes", NULL };
	char key[128];

	if (want_type(c, m, where, LW_Y_MAP) < 0 || known_keys(c, m, where, known) < 0)
		return -1;
	for (size_t i = 0; i < m->n; i++) {
		const char *k = lw_ymap_key(m, i)->value;
		const struct lw_ynode *v = lw_ymap_val(m, i);
		int ret = 0;

		snprintf(key, sizeof(key), "%s.%s", where, k);
		if (!strcmp(k, "preempt_rt"))
			ret = get_bool(c, v, key, &b->kernel.preempt_rt);
		else if (!strcmp(k, "cmdline"))
			ret = get_str(c, v, key, &b->kernel.cmdline);
		else if (!strcmp(k, "expect"))
			ret = parse_expect(c, b, v, key);
		else if (!strcmp(k, "nohz_full"))
			ret = get_cpus(c, v, key, &b->kernel.nohz_full), b->kernel.has_nohz_full = 1;
		else if (!strcmp(k, "isolated") || !strcmp(k, "isolcpus"))
			ret = get_cpus(c, v, key, &b->kernel.isolated), b->kernel.has_isolated = 1;
		else if (!strcmp(k, "rcu_nocbs"))
			ret = get_cpus(c, v, key, &b->kernel.rcu_nocbs), b->kernel.has_rcu_nocbs = 1;
		else if (!strcmp(k, "tracers")) {
			for (int j = 0; j < b->kernel.ntracers; j++)
				free(b->kernel.tracers[j]);
			free(b->kernel.tracers);
			b->kernel.tracers = NULL;
			ret = get_strlist(c, v, key, &b->kernel.tracers, &b->kernel.ntracers);
		} else if (!strcmp(k, "tracers_rt")) {
			for (int j = 0; j < b->kernel.ntracers_rt; j++)
				free(b->kernel.tracers_rt[j]);
			free(b->kernel.tracers_rt);
			b->kernel.tracers_rt = NULL;
			ret = get_strlist(c, v, key, &b->kernel.tracers_rt, &b->kernel.ntracers_rt);
		}
		if (ret < 0)
			return -1;
	}
	return 0;
}

static int parse_cpus(struct ctx *c, struct lw_board *b, const struct lw_ynode *m)
{
	static const char *const known[] = { "count", "housekeeping", "realtime", "notes", NULL };
	const struct lw_ynode *v;
	uint64_t n;

	if (want_type(c, m, "cpus", LW_Y_MAP) < 0 || known_keys(c, m, "cpus", known) < 0)
		return -1;
	if ((v = lw_ymap_get(m, "count"))) {
		if (get_uint(c, v, "cpus.count", CPU_SETSIZE, &n) < 0)
			return -1;
		if (n == 0)
			return bad(c, v, "cpus.count", "must be at least 1");
		b->ncpus = (int)n;
	}
	if ((v = lw_ymap_get(m, "housekeeping"))) {
		if (get_cpus(c, v, "cpus.housekeeping", &b->housekeeping) < 0)
			return -1;
		b->has_housekeeping = 1;
	}
	if ((v = lw_ymap_get(m, "realtime"))) {
		if (get_cpus(c, v, "cpus.realtime", &b->realtime) < 0)
			return -1;
		b->has_realtime = 1;
	}
	if (b->has_housekeeping && b->has_realtime) {
		cpu_set_t both;

		CPU_AND(&both, &b->housekeeping, &b->realtime);
		if (CPU_COUNT(&both)) {
			char l[128];

			return bad(c, v, "cpus.realtime", "CPUs %s are also housekeeping CPUs",
				   lw_format_cpulist(&both, l, sizeof(l)));
		}
	}
	for (int cpu = b->ncpus; b->ncpus && cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &b->housekeeping) || CPU_ISSET(cpu, &b->realtime))
			return bad(c, lw_ymap_get(m, CPU_ISSET(cpu, &b->realtime) ? "realtime" :
						  "housekeeping"),
				   CPU_ISSET(cpu, &b->realtime) ? "cpus.realtime" : "cpus.housekeeping",
				   "CPU %d is beyond cpus.count (%d)", cpu, b->ncpus);
	return 0;
}

static int parse_idle(struct ctx *c, struct lw_board *b, const struct lw_ynode *s)
{
	static const char *const known[] = { "name", "desc", "exit_latency_us",
		"target_residency_us", "power_mw", "estimated", "source", "note", NULL };

	if (want_type(c, s, "idle_states", LW_Y_SEQ) < 0)
		return -1;
	b->idle = calloc(s->n + 1, sizeof(*b->idle));
	if (!b->idle)
		return error("out of memory");
	for (size_t i = 0; i < s->n; i++) {
		const struct lw_ynode *m = s->kid[i], *v;
		struct lw_idle_state *st = &b->idle[i];
		char where[64], key[128];

		snprintf(where, sizeof(where), "idle_states[%zu]", i);
		st->exit_latency_us = st->target_residency_us = st->power_mw = -1;
		st->line = m->line;
		b->nidle = (int)i + 1;
		if (want_type(c, m, where, LW_Y_MAP) < 0 || known_keys(c, m, where, known) < 0)
			return -1;
		if (!(v = lw_ymap_get(m, "name")))
			return bad(c, m, where, "missing key 'name'");
		snprintf(key, sizeof(key), "%s.name", where);
		if (get_str(c, v, key, &st->name) < 0)
			return -1;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(b->idle[j].name, st->name))
				return bad(c, v, key, "an idle state listed twice (also at line %d)",
					   b->idle[j].line);
		if ((v = lw_ymap_get(m, "desc"))) {
			snprintf(key, sizeof(key), "%s.desc", where);
			if (get_str(c, v, key, &st->desc) < 0)
				return -1;
		}
		if (!(v = lw_ymap_get(m, "exit_latency_us")))
			return bad(c, m, where, "missing key 'exit_latency_us'");
		snprintf(key, sizeof(key), "%s.exit_latency_us", where);
		if (get_num(c, v, key, 0, 1e9, &st->exit_latency_us) < 0)
			return -1;
		if ((v = lw_ymap_get(m, "target_residency_us"))) {
			snprintf(key, sizeof(key), "%s.target_residency_us", where);
			if (get_num(c, v, key, 0, 1e9, &st->target_residency_us) < 0)
				return -1;
		}
		if ((v = lw_ymap_get(m, "power_mw"))) {
			snprintf(key, sizeof(key), "%s.power_mw", where);
			if (get_num(c, v, key, 0, 1e7, &st->power_mw) < 0)
				return -1;
		}
		if ((v = lw_ymap_get(m, "estimated"))) {
			snprintf(key, sizeof(key), "%s.estimated", where);
			if (get_bool(c, v, key, &st->estimated) < 0)
				return -1;
		}
	}
	return 0;
}

int lw_board_cmp_opp(const void *a, const void *b)
{
	const struct lw_opp *x = a, *y = b;

	return x->freq_khz < y->freq_khz ? -1 : x->freq_khz > y->freq_khz;
}

static int parse_opps(struct ctx *c, struct lw_board *b, const struct lw_ynode *s)
{
	static const char *const known[] = { "freq_khz", "voltage_mv", "power_mw", "estimated",
		"source", "note", NULL };

	if (want_type(c, s, "operating_points", LW_Y_SEQ) < 0)
		return -1;
	b->opp = calloc(s->n + 1, sizeof(*b->opp));
	if (!b->opp)
		return error("out of memory");
	for (size_t i = 0; i < s->n; i++) {
		const struct lw_ynode *m = s->kid[i], *v;
		struct lw_opp *o = &b->opp[i];
		char where[64], key[128];

		snprintf(where, sizeof(where), "operating_points[%zu]", i);
		o->voltage_mv = o->power_mw = -1;
		o->line = m->line;
		b->nopp = (int)i + 1;
		if (want_type(c, m, where, LW_Y_MAP) < 0 || known_keys(c, m, where, known) < 0)
			return -1;
		if (!(v = lw_ymap_get(m, "freq_khz")))
			return bad(c, m, where, "missing key 'freq_khz'");
		snprintf(key, sizeof(key), "%s.freq_khz", where);
		if (get_uint(c, v, key, 100000000, &o->freq_khz) < 0)
			return -1;
		for (size_t j = 0; j < i; j++)
			if (b->opp[j].freq_khz == o->freq_khz)
				return bad(c, v, key, "%llu kHz listed twice (also at line %d)",
					   (unsigned long long)o->freq_khz, b->opp[j].line);
		if ((v = lw_ymap_get(m, "voltage_mv"))) {
			snprintf(key, sizeof(key), "%s.voltage_mv", where);
			if (get_num(c, v, key, 0, 1e5, &o->voltage_mv) < 0)
				return -1;
		}
		if ((v = lw_ymap_get(m, "power_mw"))) {
			snprintf(key, sizeof(key), "%s.power_mw", where);
			if (get_num(c, v, key, 0, 1e7, &o->power_mw) < 0)
				return -1;
		}
		if ((v = lw_ymap_get(m, "estimated"))) {
			snprintf(key, sizeof(key), "%s.estimated", where);
			if (get_bool(c, v, key, &o->estimated) < 0)
				return -1;
		}
	}
	if (b->nopp > 1) {
		for (int i = 0; i < b->nopp; i++)
			if (b->opp[i].freq_khz == 0)
				return bad(c, s->kid[i], "operating_points",
					   "freq_khz 0 (the fixed frequency) must be the only operating point");
	}
	lw_qsort(b->opp, (size_t)b->nopp, sizeof(*b->opp), lw_board_cmp_opp);
	return 0;
}

/* What power_sources may name: the sensors of LW_POWER_SOURCES(), and an
 * external meter (its log imported with `latwatt power import`). */
static const struct { const char *name; int listed; } source_types[] = {
#define SOURCE_TYPE(n, N, sensor) { #n, sensor },
	LW_POWER_SOURCES(SOURCE_TYPE)
#undef SOURCE_TYPE
	{ "meter", 1 },
};

static int source_type_known(const char *type, char *list, size_t len)
{
	size_t n = 0;
	int ok = 0;

	list[0] = 0;
	for (size_t i = 0; i < sizeof(source_types) / sizeof(source_types[0]); i++) {
		if (!source_types[i].listed)
			continue;
		ok |= !strcmp(source_types[i].name, type);
		n += (size_t)snprintf(list + n, n < len ? len - n : 0, "%s%s", n ? ", " : "",
				      source_types[i].name);
	}
	return ok;
}

static int parse_sources(struct ctx *c, struct lw_board *b, const struct lw_ynode *s)
{
	static const char *const known[] = { "type", "device", "rail", "note", NULL };

	if (want_type(c, s, "power_sources", LW_Y_SEQ) < 0)
		return -1;
	b->src = calloc(s->n + 1, sizeof(*b->src));
	if (!b->src)
		return error("out of memory");
	for (size_t i = 0; i < s->n; i++) {
		const struct lw_ynode *m = s->kid[i], *v;
		struct lw_board_source *src = &b->src[i];
		char where[64], key[128], types[128];

		snprintf(where, sizeof(where), "power_sources[%zu]", i);
		src->line = m->line;
		b->nsrc = (int)i + 1;
		if (want_type(c, m, where, LW_Y_MAP) < 0 || known_keys(c, m, where, known) < 0)
			return -1;
		if (!(v = lw_ymap_get(m, "type")))
			return bad(c, m, where, "missing key 'type'");
		snprintf(key, sizeof(key), "%s.type", where);
		if (get_str(c, v, key, &src->type) < 0)
			return -1;
		if (!source_type_known(src->type, types, sizeof(types)))
			return bad(c, v, key, "not a power source type (%s)", types);
		if ((v = lw_ymap_get(m, "device"))) {
			snprintf(key, sizeof(key), "%s.device", where);
			if (get_str(c, v, key, &src->device) < 0)
				return -1;
		}
		if ((v = lw_ymap_get(m, "rail"))) {
			snprintf(key, sizeof(key), "%s.rail", where);
			if (get_str(c, v, key, &src->rail) < 0)
				return -1;
		}
	}
	return 0;
}

/* A latency statistic of a run's summary, in the registry: p99, max, min ... */
static const struct lw_metric *latency_stat(const char *s)
{
	const struct lw_metric *m = lw_metric_find(s);

	return m && m->probe && m->unit == LW_MU_NS && m->from == LW_MF_PROBE ? m : NULL;
}

static int add_budget(struct lw_board *b, const struct lw_metric *m, const char *probe,
		      double limit, int line)
{
	struct lw_budget *nb = realloc(b->budget, (size_t)(b->nbudget + 1) * sizeof(*nb));

	if (!nb)
		return error("out of memory");
	b->budget = nb;
	nb = &b->budget[b->nbudget++];
	memset(nb, 0, sizeof(*nb));
	nb->m = m;
	nb->probe = probe ? strdup(probe) : NULL;
	nb->stat = m->probe ? strdup(m->name) : NULL;
	nb->limit = limit;
	nb->line = line;
	return 0;
}

static int parse_latency_map(struct ctx *c, struct lw_board *b, const struct lw_ynode *m,
			     const char *where, const char *probe)
{
	if (want_type(c, m, where, LW_Y_MAP) < 0)
		return -1;
	for (size_t i = 0; i < m->n; i++) {
		const struct lw_ynode *k = lw_ymap_key(m, i), *v = lw_ymap_val(m, i);
		const struct lw_metric *st = latency_stat(k->value);
		char key[192], list[256] = "";
		size_t len = 0;
		double lim;

		snprintf(key, sizeof(key), "%s.%s", where, k->value);
		if (st) {
			if (get_num(c, v, key, 0, 1e12, &lim) < 0 ||
			    add_budget(b, st, probe, lim, v->line) < 0)
				return -1;
		} else if (!probe && v->type == LW_Y_MAP) {
			if (parse_latency_map(c, b, v, key, k->value) < 0)
				return -1;
		} else {
			for (size_t j = 0; j < lw_nmetrics && len < sizeof(list); j++)
				if (latency_stat(lw_metrics[j].name))
					len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
								len ? ", " : "", lw_metrics[j].name);
			return bad(c, k, where, "a key that is not a latency statistic (%s)%s",
				   list, probe ? "" : " nor a probe name with its own statistics");
		}
	}
	return 0;
}

/*
 * A budget key other than latency_us: a name or alias of a run-level figure
 * of the registry (lib/metrics.h) that a run's summary holds, with the unit
 * of its limit as a suffix where it has one: audio_xruns, deadline_misses,
 * average_power_mw, average_power_w, energy_per_audio_period_uj.  NULL when
 * none; *scale turns the limit into mW (power), uJ or a count.
 */
static const struct lw_metric *budget_metric(const char *key, double *scale)
{
	static const struct { enum lw_metric_unit unit; const char *sfx; double mul; } units[] = {
		{ LW_MU_W, "_mw", 1 }, { LW_MU_W, "_w", 1000 }, { LW_MU_UJ, "_uj", 1 },
		{ LW_MU_COUNT, "", 1 },
	};
	size_t n = strlen(key);

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t sl = strlen(units[i].sfx);
		const struct lw_metric *m;
		char stem[96];

		if (n <= sl || n - sl >= sizeof(stem) || strcmp(key + n - sl, units[i].sfx))
			continue;
		memcpy(stem, key, n - sl);
		stem[n - sl] = 0;
		m = lw_metric_find(stem);
		if (m && !m->probe && m->from != LW_MF_NONE && m->unit == units[i].unit) {
			*scale = units[i].mul;
			return m;
		}
	}
	return NULL;
}

/* "audio_xruns, dropped_frames, ...": every key budget_metric() takes. */
static const char *budget_keys(char *list, size_t size)
{
	static const struct { enum lw_metric_unit unit; const char *sfx; } sfx[] = {
		{ LW_MU_COUNT, "" }, { LW_MU_W, "_mw" }, { LW_MU_W, "_w" }, { LW_MU_UJ, "_uj" },
	};
	size_t len = (size_t)snprintf(list, size, "latency_us");

	for (size_t i = 0; i < lw_nmetrics && len < size; i++) {
		const struct lw_metric *m = &lw_metrics[i];
		const char *stem = m->alias[0] ? m->alias[0] : m->name;

		if (m->probe || m->from == LW_MF_NONE)
			continue;
		for (size_t k = 0; k < sizeof(sfx) / sizeof(sfx[0]) && len < size; k++)
			if (sfx[k].unit == m->unit)
				len += (size_t)snprintf(list + len, size - len, ", %s%s", stem,
							sfx[k].sfx);
	}
	if (len < size)
		snprintf(list + len, size - len, ", notes");
	return list;
}

static int parse_budgets(struct ctx *c, struct lw_board *b, const struct lw_ynode *m)
{
	const struct lw_metric *seen[64];
	const struct lw_ynode *seen_key[64];
	size_t nseen = 0;

	if (lw_yaml_is_null(m))
		return 0;
	if (want_type(c, m, "budgets", LW_Y_MAP) < 0)
		return -1;
	for (size_t i = 0; i < m->n; i++) {
		const struct lw_ynode *k = lw_ymap_key(m, i), *v = lw_ymap_val(m, i);
		const struct lw_metric *mt;
		char key[128], list[512];
		double lim, scale = 1;

		snprintf(key, sizeof(key), "budgets.%s", k->value);
		if (!strncmp(k->value, "x-", 2) || !strcmp(k->value, "notes"))
			continue;
		if (!strcmp(k->value, "latency_us")) {
			if (parse_latency_map(c, b, v, key, NULL) < 0)
				return -1;
			continue;
		}
		if (!(mt = budget_metric(k->value, &scale)))
			return bad(c, k, "budgets", "unknown key (known here: %s)",
				   budget_keys(list, sizeof(list)));
		for (size_t j = 0; j < nseen; j++)
			if (seen[j] == mt)
				return bad(c, k, key, "give %s or %s, not both", seen_key[j]->value,
					   k->value);
		if (nseen < sizeof(seen) / sizeof(seen[0])) {
			seen[nseen] = mt;
			seen_key[nseen++] = k;
		}
		if (get_num(c, v, key, 0, 1e12, &lim) < 0 ||
		    add_budget(b, mt, NULL, lim * scale, v->line) < 0)
			return -1;
	}
	return 0;
}

static int parse_model(struct ctx *c, struct lw_board *b, const struct lw_ynode *m)
{
	static const char *const known[] = { "active_power_mw", "idle_power_mw", "poll_power_mw",
		"notes", NULL };
	const struct lw_ynode *v;

	if (want_type(c, m, "model", LW_Y_MAP) < 0 || known_keys(c, m, "model", known) < 0)
		return -1;
	if ((v = lw_ymap_get(m, "active_power_mw")) &&
	    get_num(c, v, "model.active_power_mw", 0, 1e7, &b->model.active_power_mw) < 0)
		return -1;
	if ((v = lw_ymap_get(m, "idle_power_mw")) &&
	    get_num(c, v, "model.idle_power_mw", 0, 1e7, &b->model.idle_power_mw) < 0)
		return -1;
	if ((v = lw_ymap_get(m, "poll_power_mw")) &&
	    get_num(c, v, "model.poll_power_mw", 0, 1e7, &b->model.poll_power_mw) < 0)
		return -1;
	return 0;
}

struct lw_board *lw_board_alloc(void)
{
	struct lw_board *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->kernel.preempt_rt = -1;
	b->static_power_mw = -1;
	b->model.active_power_mw = b->model.idle_power_mw = b->model.poll_power_mw = -1;
	return b;
}

/* [user@]host: a user and a host of letters, digits, '.', '_' and '-' (the
 * host also ':' and '%' for IPv6), neither starting with '-': nothing that
 * ssh would read as an option or that a ProxyCommand of the ssh
 * configuration could expand into shell syntax. */
int lw_ssh_dest_ok(const char *s)
{
	const char *at = strchr(s, '@'), *host = at ? at + 1 : s;
	size_t ulen = at ? (size_t)(at - s) : 0;
	static const char word[] = "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";

	if (at && (!ulen || strspn(s, word) != ulen || s[0] == '-'))
		return 0;
	if (!*host || host[0] == '-' || host[0] == '.')
		return 0;
	for (const char *p = host; *p; p++)
		if (!strchr(word, *p) && *p != ':' && *p != '%')
			return 0;
	return 1;
}

/*
 * The ssh -o options a board file may give.  None carries a command, a
 * program or library to load, another configuration to read (Include,
 * Match, Host), a jump host (ProxyJump starts another ssh through a shell,
 * under the jump host's own configuration), a forwarding, an environment,
 * or a file that ssh writes: a known-hosts file of the board's is only read
 * (see lw_board->target.known_hosts).  The rest go in --ssh-option, given
 * by whoever runs latwatt, or in their ssh configuration.
 */
enum sshv {
	SV_WORD,	/* one word: letters, digits, and .,_+-^@: (yes, 22, aes128-ctr,+ssh-rsa) */
	SV_WORDS,	/* words of that kind separated by spaces (IPQoS, RekeyLimit) */
	SV_USER,	/* a user name as in lw_ssh_dest_ok() */
	SV_HOST,	/* a host name as in lw_ssh_dest_ok() */
	SV_PATH,	/* a file ssh only reads: printable, no quotes */
	SV_KNOWN,	/* UserKnownHostsFile: a path, made read-only by latwatt target */
};

static const struct {
	const char *name;
	enum sshv v;
} ssh_allowed[] = {
	{ "AddressFamily", SV_WORD },		{ "BatchMode", SV_WORD },
	{ "CertificateFile", SV_PATH },		{ "CheckHostIP", SV_WORD },
	{ "Ciphers", SV_WORD },			{ "Compression", SV_WORD },
	{ "ConnectionAttempts", SV_WORD },	{ "ConnectTimeout", SV_WORD },
	{ "GlobalKnownHostsFile", SV_PATH },	{ "HashKnownHosts", SV_WORD },
	{ "HostbasedAcceptedAlgorithms", SV_WORD }, { "HostKeyAlgorithms", SV_WORD },
	{ "HostKeyAlias", SV_HOST },		{ "IdentitiesOnly", SV_WORD },
	{ "IdentityFile", SV_PATH },		{ "IPQoS", SV_WORDS },
	{ "KbdInteractiveAuthentication", SV_WORD }, { "KexAlgorithms", SV_WORD },
	{ "MACs", SV_WORD },			{ "NumberOfPasswordPrompts", SV_WORD },
	{ "PasswordAuthentication", SV_WORD },	{ "Port", SV_WORD },
	{ "PreferredAuthentications", SV_WORD }, { "PubkeyAcceptedAlgorithms", SV_WORD },
	{ "PubkeyAcceptedKeyTypes", SV_WORD },	{ "PubkeyAuthentication", SV_WORD },
	{ "RekeyLimit", SV_WORDS },		{ "ServerAliveCountMax", SV_WORD },
	{ "ServerAliveInterval", SV_WORD },	{ "StrictHostKeyChecking", SV_WORD },
	{ "TCPKeepAlive", SV_WORD },		{ "UpdateHostKeys", SV_WORD },
	{ "User", SV_USER },			{ "UserKnownHostsFile", SV_KNOWN },
	{ "VerifyHostKeyDNS", SV_WORD },
};

/* Why an option that is not allowed is not, for the ones people reach for. */
static const char *ssh_refusal(const char *key, size_t len)
{
	static const struct {
		const char *name, *why;
	} never[] = {
		{ "PermitLocalCommand", "lets LocalCommand run a command" },
		{ "Include", "reads another ssh configuration" },
		{ "Match", "applies configuration by conditions, 'exec' runs a command" },
		{ "Host", "starts a configuration block" },
		{ "ProxyJump", "starts another ssh through a shell, under the jump host's own "
			       "configuration" },
		{ "ProxyUseFdpass", "belongs with ProxyCommand" },
		{ "PKCS11Provider", "loads a library" },
		{ "SecurityKeyProvider", "loads a library" },
		{ "IdentityAgent", "talks to an agent socket the file names" },
		{ "ForwardAgent", "hands this machine's keys to the board" },
		{ "ControlPath", "creates a socket where the file says" },
		{ "ControlMaster", "shares connections through a socket" },
		{ "LogLevel", "would print ssh's debugging of this machine's files" },
	};
	static const char cmd[] = "command";

	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		if (strlen(never[i].name) == len && !strncasecmp(never[i].name, key, len))
			return never[i].why;
	if (len > sizeof(cmd) - 1 && !strncasecmp(key + len - (sizeof(cmd) - 1), cmd, sizeof(cmd) - 1))
		return "runs a command";
	if (len > 7 && (!strncasecmp(key + len - 7, "Forward", 7) ||
			!strncasecmp(key, "Forward", 7) || !strncasecmp(key, "Tunnel", 6)))
		return "forwards connections";
	if (len > 3 && !strncasecmp(key + len - 3, "Env", 3))
		return "passes an environment";
	return "is not among the options a board file may give";
}

static int ssh_value_ok(enum sshv v, const char *s)
{
	static const char word[] = "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,_+-^@:";
	char buf[256];

	if (!*s)
		return 0;
	switch (v) {
	case SV_WORD:
		return strspn(s, word) == strlen(s);
	case SV_WORDS:
		for (const char *p = s; *p; p++)
			if (!strchr(word, *p) && !(*p == ' ' && p > s && p[-1] != ' ' && p[1]))
				return 0;
		return 1;
	case SV_USER:
	case SV_HOST:
		if ((size_t)snprintf(buf, sizeof(buf), v == SV_USER ? "%s@x" : "%s", s) >= sizeof(buf))
			return 0;
		return !strchr(s, '@') && lw_ssh_dest_ok(buf);
	case SV_PATH:
	case SV_KNOWN:
		for (const char *p = s; *p; p++)
			if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '"' || *p == '\\')
				return 0;
		return 1;
	}
	return 0;
}

/*
 * One ssh -o option of a board file: "Key=value" or "Key value" (ssh reads
 * both, the key in any case).  0 when allowed; -1 with @why set otherwise.
 * @known is set when it is a UserKnownHostsFile other than none or /dev/null.
 */
int lw_ssh_option_check(const char *opt, const char **why, int *known)
{
	size_t k = 0, i;
	const char *v;

	while (isalnum((unsigned char)opt[k]))
		k++;
	if (!k || (opt[k] != '=' && opt[k] != ' ' && opt[k] != '\t')) {
		*why = "not an ssh option Key=value or Key value";
		return -1;
	}
	for (v = opt; *v; v++)
		if (((unsigned char)*v < ' ' && *v != '\t') || *v == 0x7f) {
			*why = "holds a control character";
			return -1;
		}
	for (i = 0; i < sizeof(ssh_allowed) / sizeof(ssh_allowed[0]); i++)
		if (strlen(ssh_allowed[i].name) == k && !strncasecmp(ssh_allowed[i].name, opt, k))
			break;
	if (i == sizeof(ssh_allowed) / sizeof(ssh_allowed[0])) {
		*why = ssh_refusal(opt, k);
		return -1;
	}
	/* as ssh splits it: blanks, at most one '=', blanks */
	v = opt + k + strspn(opt + k, " \t");
	if (*v == '=')
		v += 1 + strspn(v + 1, " \t");
	if (!ssh_value_ok(ssh_allowed[i].v, v)) {
		*why = "has a value this option does not take in a board file";
		return -1;
	}
	if (ssh_allowed[i].v == SV_KNOWN && strcasecmp(v, "none") && strcmp(v, "/dev/null"))
		*known = 1;
	return 0;
}

/*
 * target: { ssh: root@board, port: 22, identity: FILE, dir: /tmp, options: [..] }
 * Values travel to ssh as single arguments, never through a shell; neither
 * the destination nor an option can make ssh run a command (above).
 */
static int parse_target(struct ctx *c, struct lw_board *b, const struct lw_ynode *m)
{
	static const char *const known[] = { "ssh", "port", "identity", "dir", "options",
		"notes", NULL };
	const struct lw_ynode *v;
	uint64_t port;

	if (lw_yaml_is_null(m))
		return 0;
	if (want_type(c, m, "target", LW_Y_MAP) < 0 || known_keys(c, m, "target", known) < 0)
		return -1;
	if (!(v = lw_ymap_get(m, "ssh")))
		return bad(c, m, "target.ssh", "missing ([user@]host of the board)");
	if (get_str(c, v, "target.ssh", &b->target.ssh) < 0)
		return -1;
	if (!lw_ssh_dest_ok(b->target.ssh))
		return bad(c, v, "target.ssh", "not a [user@]host (letters, digits, '.', '_', '-', "
			   "not starting with '-')");
	if ((v = lw_ymap_get(m, "port"))) {
		if (get_uint(c, v, "target.port", 65535, &port) < 0)
			return -1;
		if (!port)
			return bad(c, v, "target.port", "port 0");
		b->target.port = (unsigned)port;
	}
	if ((v = lw_ymap_get(m, "identity")) && get_str(c, v, "target.identity", &b->target.identity) < 0)
		return -1;
	if ((v = lw_ymap_get(m, "dir"))) {
		if (get_str(c, v, "target.dir", &b->target.dir) < 0)
			return -1;
		if (b->target.dir[0] != '/')
			return bad(c, v, "target.dir", "not an absolute path");
	}
	if ((v = lw_ymap_get(m, "options")) &&
	    get_strlist(c, v, "target.options", &b->target.options, &b->target.noptions) < 0)
		return -1;
	for (int i = 0; i < b->target.noptions; i++) {
		const struct lw_ynode *o = v->type == LW_Y_SEQ ? v->kid[i] : v;
		const char *why;
		char key[64];
		size_t k = strspn(b->target.options[i], "abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");

		snprintf(key, sizeof(key), "target.options[%d]", i);
		if (lw_ssh_option_check(b->target.options[i], &why, &b->target.known_hosts) < 0)
			return bad(c, o, key, "%s%.*s%s%s (see SECURITY in latwatt(1))",
				   k && k < 40 ? "ssh option " : "", k && k < 40 ? (int)k : 0,
				   b->target.options[i], k && k < 40 ? ": " : "", why);
	}
	return 0;
}

static int from_tree(struct ctx *c, struct lw_board *b, const struct lw_ynode *root)
{
	static const char *const known[] = { "format", "name", "description", "arch", "emulated",
		"discover", "sources", "notes", "cpus", "kernel", "idle_states", "operating_points",
		"static_power_mw", "model", "power", "power_sources", "budgets", "qemu", "lava",
		"target", NULL };
	const struct lw_ynode *v;
	uint64_t fmt;
	int discover = 0;

	if (root->type != LW_Y_MAP)
		return bad(c, root, "(top)", "a board file is a mapping of keys, not %s",
			   type_name(root));
	if (known_keys(c, root, "", known) < 0)
		return -1;
	if (!(v = lw_ymap_get(root, "format")))
		return bad(c, NULL, "format", "missing (this latwatt reads board format %d)",
			   LW_BOARD_FORMAT);
	if (get_uint(c, v, "format", 1000, &fmt) < 0)
		return -1;
	if (fmt != LW_BOARD_FORMAT)
		return bad(c, v, "format", "board format %llu, this latwatt reads format %d",
			   (unsigned long long)fmt, LW_BOARD_FORMAT);
	if (!(v = lw_ymap_get(root, "name")))
		return bad(c, NULL, "name", "missing");
	if (get_str(c, v, "name", &b->name) < 0)
		return -1;
	for (const char *p = b->name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
			return bad(c, v, "name", "use letters, digits, '-', '_' and '.'");
	if (!*b->name)
		return bad(c, v, "name", "empty");
	if ((v = lw_ymap_get(root, "description")) && get_str(c, v, "description", &b->description) < 0)
		return -1;
	if ((v = lw_ymap_get(root, "arch")) && get_str(c, v, "arch", &b->arch) < 0)
		return -1;
	if ((v = lw_ymap_get(root, "emulated")) && get_bool(c, v, "emulated", &b->emulated) < 0)
		return -1;
	if ((v = lw_ymap_get(root, "discover")) && get_bool(c, v, "discover", &discover) < 0)
		return -1;
	b->discovered = discover;
	if ((v = lw_ymap_get(root, "sources")) &&
	    get_strlist(c, v, "sources", &b->sources, &b->nsources) < 0)
		return -1;
	if ((v = lw_ymap_get(root, "cpus")) && parse_cpus(c, b, v) < 0)
		return -1;
	if ((v = lw_ymap_get(root, "kernel")) && parse_expect(c, b, v, "kernel") < 0)
		return -1;
	if (b->kernel.cmdline) {
		if (!b->kernel.has_nohz_full)
			b->kernel.has_nohz_full = cmdline_cpus(b->kernel.cmdline, "nohz_full",
							       &b->kernel.nohz_full);
		if (!b->kernel.has_isolated)
			b->kernel.has_isolated = cmdline_cpus(b->kernel.cmdline, "isolcpus",
							      &b->kernel.isolated);
		if (!b->kernel.has_rcu_nocbs)
			b->kernel.has_rcu_nocbs = cmdline_cpus(b->kernel.cmdline, "rcu_nocbs",
							       &b->kernel.rcu_nocbs);
	}
	if ((v = lw_ymap_get(root, "idle_states")) && parse_idle(c, b, v) < 0)
		return -1;
	if ((v = lw_ymap_get(root, "operating_points")) && parse_opps(c, b, v) < 0)
		return -1;
	if ((v = lw_ymap_get(root, "static_power_mw")) &&
	    get_num(c, v, "static_power_mw", 0, 1e7, &b->static_power_mw) < 0)
		return -1;
	if ((v = lw_ymap_get(root, "model")) && parse_model(c, b, v) < 0)
		return -1;
	if ((v = lw_ymap_get(root, "power"))) {
		if (get_str(c, v, "power", &b->power) < 0)
			return -1;
		if (strcmp(b->power, "measured") && strcmp(b->power, "estimated") &&
		    strcmp(b->power, "auto"))
			return bad(c, v, "power", "not measured, estimated or auto");
	}
	if ((v = lw_ymap_get(root, "power_sources")) && !lw_yaml_is_null(v) &&
	    parse_sources(c, b, v) < 0)
		return -1;
	if ((v = lw_ymap_get(root, "budgets")) && parse_budgets(c, b, v) < 0)
		return -1;
	if ((v = lw_ymap_get(root, "target")) && parse_target(c, b, v) < 0)
		return -1;
	if (b->power && !strcmp(b->power, "estimated") && !lw_board_has_model(b) && !discover)
		return bad(c, lw_ymap_get(root, "power"), "power",
			   "'estimated' needs power_mw figures on idle_states or operating_points "
			   "(or a model: section)");
	return 0;
}

static struct lw_board *parse_tree(const char *name, struct lw_ynode *root)
{
	struct ctx c = { .file = name };
	struct lw_board *b = lw_board_alloc();

	if (!b) {
		error("out of memory");
		return NULL;
	}
	if (from_tree(&c, b, root) < 0) {
		lw_board_free(b);
		return NULL;
	}
	return b;
}

struct lw_board *lw_board_parse(const char *name, const char *text)
{
	struct lw_ynode *root = lw_yaml_parse(name, text, strlen(text));
	struct lw_board *b;

	if (!root)
		return NULL;
	b = parse_tree(name, root);
	lw_yaml_free(root);
	return b;
}

/*
 * Read and parse @path, opened once through lib/input.h (@flags; @origin:
 * the environment variable of the search path it was found through, whose
 * owner rule it is held to).  The bytes parsed are kept in b->text: they
 * are what RUN/board.yaml and the copy for `latwatt target` get, never the
 * file read again.
 */
struct lw_board *lw_board_load_from(const char *path, int flags, const char *origin)
{
	struct lw_ynode *root;
	struct lw_board *b;
	const char *base, *dot;
	size_t len;
	char *text;
	int fd;

	fd = origin ? lw_in_open_trusted(path, origin, flags, LW_CAP_YAML, NULL) :
		      lw_in_open(path, flags, LW_CAP_YAML, NULL);
	if (fd < 0 || !(text = lw_in_read_fd(fd, path, LW_CAP_YAML, &len)))
		return NULL;
	root = lw_yaml_parse(path, text, len);
	if (!root) {
		free(text);
		return NULL;
	}
	b = parse_tree(path, root);
	lw_yaml_free(root);
	if (!b) {
		free(text);
		return NULL;
	}
	b->text = text;
	b->text_len = len;
	b->path = strdup(path);
	/* boards/NAME.yaml must say name: NAME, or lookups by name would lie */
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dot = strstr(base, ".yaml");
	if (dot && strcmp(base, "board.yaml") && (strlen(b->name) != (size_t)(dot - base) ||
		    strncmp(base, b->name, (size_t)(dot - base)))) {
		error("%s: name: does not match the file name (expected '%.*s')", path,
		      (int)(dot - base), base);
		lw_board_free(b);
		return NULL;
	}
	return b;
}

struct lw_board *lw_board_load(const char *path)
{
	return lw_board_load_from(path, 0, NULL);
}

void lw_board_free(struct lw_board *b)
{
	if (!b)
		return;
	free(b->text);
	free(b->name);
	free(b->description);
	free(b->arch);
	free(b->target.ssh);
	free(b->target.identity);
	free(b->target.dir);
	for (int i = 0; i < b->target.noptions; i++)
		free(b->target.options[i]);
	free(b->target.options);
	free(b->path);
	for (int i = 0; i < b->nsources; i++)
		free(b->sources[i]);
	free(b->sources);
	free(b->kernel.cmdline);
	for (int i = 0; i < b->kernel.ntracers; i++)
		free(b->kernel.tracers[i]);
	free(b->kernel.tracers);
	for (int i = 0; i < b->kernel.ntracers_rt; i++)
		free(b->kernel.tracers_rt[i]);
	free(b->kernel.tracers_rt);
	for (int i = 0; i < b->nidle; i++) {
		free(b->idle[i].name);
		free(b->idle[i].desc);
	}
	free(b->idle);
	free(b->opp);
	free(b->power);
	for (int i = 0; i < b->nsrc; i++) {
		free(b->src[i].type);
		free(b->src[i].device);
		free(b->src[i].rail);
	}
	free(b->src);
	for (int i = 0; i < b->nbudget; i++) {
		free(b->budget[i].probe);
		free(b->budget[i].stat);
	}
	free(b->budget);
	free(b);
}
