// SPDX-License-Identifier: GPL-2.0-only
/* Workload descriptors: the list, and generic specs over parameter tables. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/error.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "workloads/workload.h"

#define LW_WORKLOAD_ENTRY(n) &lw_workload_##n,
const struct lw_workload *const lw_workloads[] = {
	LW_WORKLOADS(LW_WORKLOAD_ENTRY)
	NULL,
};
#undef LW_WORKLOAD_ENTRY

static const char *const type_names[] = {
	[LW_WP_UINT] = "integer", [LW_WP_DOUBLE] = "number", [LW_WP_TIME] = "time",
	[LW_WP_SIZE] = "size", [LW_WP_CPUS] = "cpus", [LW_WP_ENUM] = "choice",
	[LW_WP_BOOL] = "bool",
};

const struct lw_workload *lw_workload_find(const char *name)
{
	for (int i = 0; lw_workloads[i]; i++)
		if (!strcmp(lw_workloads[i]->name, name))
			return lw_workloads[i];
	return NULL;
}

const struct lw_wparam *lw_wparam_find(const struct lw_workload *w, const char *key)
{
	for (const struct lw_wparam *p = w->params; p->name; p++)
		if (!strcmp(p->name, key))
			return p;
	return NULL;
}

static char *names_of(const struct lw_workload *w, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (const struct lw_wparam *p = w->params; p->name && n < len; p++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", p->name);
	return buf;
}

static char *workload_names(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; lw_workloads[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", lw_workloads[i]->name);
	return buf;
}

static char *choices_of(const struct lw_wparam *p, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; p->choices[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", p->choices[i]);
	return buf;
}

/* Parse @value of @p into @field.  @what names it in errors. */
static int parse_value(const struct lw_wparam *p, const char *what, const char *value, void *field)
{
	uint64_t u;
	double d;
	cpu_set_t online, set;

	switch (p->type) {
	case LW_WP_UINT:
		if (lw_parse_uint(what, value, (uint64_t)p->min, (uint64_t)p->max, &u) < 0)
			return -1;
		memcpy(field, &u, sizeof(u));
		return 0;
	case LW_WP_DOUBLE:
		if (lw_parse_double(what, value, p->min, p->max, &d) < 0)
			return -1;
		memcpy(field, &d, sizeof(d));
		return 0;
	case LW_WP_TIME:
	case LW_WP_SIZE:
		if ((p->type == LW_WP_TIME ? lw_parse_usecs(what, value, &u) :
					     lw_parse_size(what, value, &u)) < 0)
			return -1;
		if ((double)u < p->min || (double)u > p->max) {
			char a[32], b[32];

			if (p->type == LW_WP_TIME)
				return error("%s: '%s' is out of range [%s, %s]", what, value,
					     lw_format_duration((uint64_t)p->min, a, sizeof(a)),
					     lw_format_duration((uint64_t)p->max, b, sizeof(b)));
			return error("%s: '%s' is out of range [%.0f, %.0f] bytes", what, value,
				     p->min, p->max);
		}
		memcpy(field, &u, sizeof(u));
		return 0;
	case LW_WP_CPUS:
		if (lw_online_cpus(&online) < 0 || lw_parse_cpulist(what, value, &online, &set) < 0)
			return -1;
		memcpy(field, &set, sizeof(set));
		return 0;
	case LW_WP_ENUM:
		for (int i = 0; p->choices[i]; i++)
			if (!strcmp(p->choices[i], value)) {
				memcpy(field, &i, sizeof(i));
				return 0;
			}
		{
			char c[256];

			return error("%s: '%s' is not one of: %s", what, value,
				     choices_of(p, c, sizeof(c)));
		}
	case LW_WP_BOOL: {
		static const char *const yes[] = { "1", "yes", "true", "on", NULL };
		static const char *const no[] = { "0", "no", "false", "off", NULL };

		for (int b = 0; b < 2; b++)
			for (const char *const *v = b ? yes : no; *v; v++)
				if (!strcasecmp(*v, value)) {
					memcpy(field, &b, sizeof(b));
					return 0;
				}
		return error("%s: '%s' is not a boolean (yes/no, true/false, 1/0, on/off)",
			     what, value);
	}
	}
	return error("%s: unknown parameter type", what);
}

struct lw_wspec *lw_wspec_new(const struct lw_workload *w)
{
	struct lw_wspec *s = calloc(1, sizeof(*s));
	int q;

	if (!s || !(s->config = calloc(1, w->config_size))) {
		free(s);
		error("out of memory");
		return NULL;
	}
	s->w = w;
	for (const struct lw_wparam *p = w->params; p->name; p++) {
		char what[128];

		snprintf(what, sizeof(what), "workload %s: default of %s", w->name, p->name);
		/* A default that does not parse is a bug of the descriptor. */
		q = lw_set_quiet(0);
		if (parse_value(p, what, p->def, (char *)s->config + p->offset) < 0) {
			lw_set_quiet(q);
			lw_wspec_free(s);
			return NULL;
		}
		lw_set_quiet(q);
	}
	return s;
}

int lw_wspec_set(struct lw_wspec *s, const char *key, const char *value, const char *where)
{
	const struct lw_wparam *p = lw_wparam_find(s->w, key);
	char what[256], names[512];

	if (!p)
		return error("%s%sworkload %s: unknown parameter '%s' (parameters: %s)",
			     where ? where : "", where ? ": " : "", s->w->name, key,
			     names_of(s->w, names, sizeof(names)));
	snprintf(what, sizeof(what), "%s%sworkload %s: %s", where ? where : "", where ? ": " : "",
		 s->w->name, key);
	if (!value || !*value)
		return error("%s: empty value", what);
	if (parse_value(p, what, value, (char *)s->config + p->offset) < 0)
		return -1;
	s->set |= 1ULL << (p - s->w->params);
	return 0;
}

int lw_wspec_check(const struct lw_wspec *s, const char *where)
{
	char w[256];

	if (!s->w->check)
		return 0;
	snprintf(w, sizeof(w), "%s%sworkload %s", where ? where : "", where ? ": " : "", s->w->name);
	return s->w->check(s->config, w);
}

struct lw_wspec *lw_wspec_parse(const char *spec, const char *where)
{
	const char *colon;
	char name[64], *items = NULL, *key = NULL, *val = NULL;
	const struct lw_workload *w;
	struct lw_wspec *s;
	const char *pre = where ? where : "", *sep = where ? ": " : "";

	if (!spec || !*spec) {
		error("%s%sempty workload spec (e.g. audio:streams=2)", pre, sep);
		return NULL;
	}
	colon = strchr(spec, ':');
	if ((colon ? (size_t)(colon - spec) : strlen(spec)) >= sizeof(name)) {
		error("%s%sworkload name too long in '%s'", pre, sep, spec);
		return NULL;
	}
	snprintf(name, sizeof(name), "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
	w = lw_workload_find(name);
	if (!w) {
		char names[256];

		error("%s%sunknown workload '%s' (workloads: %s; see 'latwatt workloads')", pre, sep,
		      name, workload_names(names, sizeof(names)));
		return NULL;
	}
	s = lw_wspec_new(w);
	if (!s)
		return NULL;
	if (colon) {
		char *save = NULL, *tok;
		size_t vlen = 0;

		items = strdup(colon + 1);
		val = calloc(1, strlen(colon + 1) + 1);
		if (!items || !val) {
			error("out of memory");
			goto fail;
		}
		if (!*items) {
			error("%s%sworkload %s: nothing after ':' in '%s'", pre, sep, name, spec);
			goto fail;
		}
		/* key=value items; an item without '=' continues the previous value */
		for (tok = strtok_r(items, ",", &save); ; tok = strtok_r(NULL, ",", &save)) {
			char *eq = tok ? strchr(tok, '=') : NULL;

			if (key && (!tok || eq)) {
				if (lw_wspec_set(s, key, val, where) < 0)
					goto fail;
				key = NULL;
			}
			if (!tok)
				break;
			if (eq) {
				*eq = 0;
				key = tok;
				if (!*key) {
					error("%s%sworkload %s: missing parameter name before '=' in '%s'",
					      pre, sep, name, spec);
					goto fail;
				}
				strcpy(val, eq + 1);
				vlen = strlen(val);
			} else if (key) {
				val[vlen++] = ',';
				strcpy(val + vlen, tok);
				vlen += strlen(tok);
			} else {
				error("%s%sworkload %s: '%s' is not KEY=VALUE in '%s'", pre, sep, name,
				      tok, spec);
				goto fail;
			}
		}
		/* "audio:" or "audio:,," : strtok skipped empty items; detect "," runs */
		if (strstr(colon + 1, ",,") || colon[1] == ',' ||
		    colon[strlen(colon) - 1] == ',') {
			error("%s%sworkload %s: empty item in '%s'", pre, sep, name, spec);
			goto fail;
		}
	}
	if (lw_wspec_check(s, where) < 0)
		goto fail;
	free(items);
	free(val);
	return s;
fail:
	free(items);
	free(val);
	lw_wspec_free(s);
	return NULL;
}

static json_t *value_json(const struct lw_wparam *p, const void *field)
{
	uint64_t u;
	double d;
	int i;
	char buf[256];

	switch (p->type) {
	case LW_WP_UINT:
	case LW_WP_TIME:
	case LW_WP_SIZE:
		memcpy(&u, field, sizeof(u));
		return json_integer((json_int_t)u);
	case LW_WP_DOUBLE:
		memcpy(&d, field, sizeof(d));
		return json_real(d);
	case LW_WP_CPUS:
		return json_string(lw_format_cpulist(field, buf, sizeof(buf)));
	case LW_WP_ENUM:
		memcpy(&i, field, sizeof(i));
		return json_string(p->choices[i]);
	case LW_WP_BOOL:
		memcpy(&i, field, sizeof(i));
		return json_boolean(i);
	}
	return json_null();
}

/* The value as a spec would write it. */
static char *value_text(const struct lw_wparam *p, const void *field, char *buf, size_t len)
{
	uint64_t u;
	double d;
	int i;

	switch (p->type) {
	case LW_WP_UINT:
	case LW_WP_SIZE:
		memcpy(&u, field, sizeof(u));
		snprintf(buf, len, "%llu", (unsigned long long)u);
		break;
	case LW_WP_TIME:
		memcpy(&u, field, sizeof(u));
		snprintf(buf, len, "%lluns", (unsigned long long)u);
		break;
	case LW_WP_DOUBLE:
		memcpy(&d, field, sizeof(d));
		snprintf(buf, len, "%g", d);
		break;
	case LW_WP_CPUS:
		lw_format_cpulist(field, buf, len);
		break;
	case LW_WP_ENUM:
		memcpy(&i, field, sizeof(i));
		snprintf(buf, len, "%s", p->choices[i]);
		break;
	case LW_WP_BOOL:
		memcpy(&i, field, sizeof(i));
		snprintf(buf, len, "%s", i ? "yes" : "no");
		break;
	}
	return buf;
}

json_t *lw_wconfig_json(const struct lw_workload *w, const void *config)
{
	json_t *o = json_object();

	for (const struct lw_wparam *p = w->params; p->name; p++)
		json_object_set_new(o, p->name, value_json(p, (const char *)config + p->offset));
	return o;
}

json_t *lw_wspec_json(const struct lw_wspec *s)
{
	return lw_wconfig_json(s->w, s->config);
}

char *lw_wspec_format(const struct lw_wspec *s, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s", s->w->name);

	for (const struct lw_wparam *p = s->w->params; p->name && n < len; p++) {
		char v[256];

		n += (size_t)snprintf(buf + n, len - n, "%c%s=%s", p == s->w->params ? ':' : ',',
				      p->name, value_text(p, (const char *)s->config + p->offset,
							  v, sizeof(v)));
	}
	return buf;
}

struct lw_part *lw_wspec_create(const struct lw_wspec *s, const struct lw_workload_env *env)
{
	return s->w->create(s->config, env);
}

struct lw_part *lw_workload_part(struct lw_run *run, const struct lw_wspec *s, int no_rt)
{
	struct lw_workload_env env = { .no_rt = no_rt, .rundir = run->dir.path };

	for (int i = 0; i < run->nparts; i++)
		if (!strcmp(run->part[i]->name, s->w->name))
			env.instance++;
	return lw_wspec_create(s, &env);
}

struct lw_part *lw_workload_new(struct lw_run *run, const char *spec, int no_rt)
{
	struct lw_wspec *s = lw_wspec_parse(spec, "--workload");
	struct lw_part *p;

	if (!s)
		return NULL;
	p = lw_workload_part(run, s, no_rt);
	lw_wspec_free(s);
	return p;
}

void lw_wspec_free(struct lw_wspec *s)
{
	if (!s)
		return;
	free(s->config);
	free(s);
}

static char *size_text(double v, char *buf, size_t len)
{
	static const char sfx[] = "kMGT";
	uint64_t u = (uint64_t)v;
	int i = -1;

	while (u && u % 1024 == 0 && i < 3) {
		u /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu", (unsigned long long)u);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)u, sfx[i]);
	return buf;
}

static void range_text(const struct lw_wparam *p, char *buf, size_t len)
{
	char a[32], b[32];

	switch (p->type) {
	case LW_WP_UINT:
		snprintf(buf, len, "%.0f..%.0f", p->min, p->max);
		break;
	case LW_WP_DOUBLE:
		snprintf(buf, len, "%g..%g", p->min, p->max);
		break;
	case LW_WP_TIME:
		snprintf(buf, len, "%s..%s", lw_format_duration((uint64_t)p->min, a, sizeof(a)),
			 lw_format_duration((uint64_t)p->max, b, sizeof(b)));
		break;
	case LW_WP_SIZE:
		snprintf(buf, len, "%s..%s", size_text(p->min, a, sizeof(a)),
			 size_text(p->max, b, sizeof(b)));
		break;
	case LW_WP_ENUM:
		choices_of(p, buf, len);
		for (char *c = buf; *c; c++)
			if (*c == ',' && c[1] == ' ') {
				memmove(c, c + 1, strlen(c));
				*c = '|';
			}
		break;
	case LW_WP_CPUS:
		snprintf(buf, len, "cpu list or all");
		break;
	case LW_WP_BOOL:
		snprintf(buf, len, "yes|no");
		break;
	}
}

void lw_workloads_print(FILE *out, const char *only)
{
	for (int i = 0; lw_workloads[i]; i++) {
		const struct lw_workload *w = lw_workloads[i];

		if (only && strcmp(only, w->name))
			continue;
		fprintf(out, "%s%s — %s\n", i && !only ? "\n" : "", w->name, w->help);
		fprintf(out, "  %-11s %-7s %-12s %-20s %s\n", "parameter", "type", "default",
			"range", "meaning");
		for (const struct lw_wparam *p = w->params; p->name; p++) {
			char r[128];

			range_text(p, r, sizeof(r));
			if (strlen(r) > 20)	/* long lists of choices get a line of their own */
				fprintf(out, "  %-11s %-7s %-12s %s\n  %33s%-20s %s\n", p->name,
					type_names[p->type], p->def, r, "", "", p->help);
			else
				fprintf(out, "  %-11s %-7s %-12s %-20s %s\n", p->name,
					type_names[p->type], p->def, r, p->help);
		}
	}
}
