// SPDX-License-Identifier: GPL-2.0-only
/* Scenario files: YAML into `latwatt run` options (workloads/scenario.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "lib/sysfs.h"
#include "lib/yamltree.h"
#include "lib/error.h"
#include "lib/input.h"
#include "lib/parse.h"
#include "workloads/scenario.h"

#ifndef LW_SCENARIO_DIR
#define LW_SCENARIO_DIR "/usr/local/share/latwatt/scenarios"
#endif

#define MAX_TEXT LW_YAML_MAX_TEXT	/* a scenario is a page of text, not a megabyte */

struct conv {
	struct lw_scenario *sc;
	const struct lw_scenario_keys *k;
	yaml_document_t *doc;
	const char *path;
	int cap;
};

static int at(const struct conv *c, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int at(const struct conv *c, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return error("%s:%zu:%zu: %s", c->path, n->start_mark.line + 1,
		     n->start_mark.column + 1, msg);
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int is_plain(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

static int is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);

	return s && is_plain(n) && (!*s || !strcmp(s, "~") || !strcasecmp(s, "null"));
}

/* 1 true, 0 false, -1 not a boolean (YAML 1.1 words, plain scalars only). */
static int boolean(const yaml_node_t *n)
{
	static const char *const t[] = { "true", "yes", "on", NULL };
	static const char *const f[] = { "false", "no", "off", NULL };
	const char *s = scalar(n);

	if (!s || !is_plain(n))
		return -1;
	for (int i = 0; t[i]; i++)
		if (!strcasecmp(s, t[i]))
			return 1;
	for (int i = 0; f[i]; i++)
		if (!strcasecmp(s, f[i]))
			return 0;
	return -1;
}

static const struct option *find_opt(const struct lw_scenario_keys *k, const char *name)
{
	for (const struct option *o = k->options; o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

static int in_list(const char *const *list, const char *name)
{
	for (int i = 0; list && list[i]; i++)
		if (!strcmp(list[i], name))
			return 1;
	return 0;
}

/* ---- ${...} ------------------------------------------------------------ */

static int read_cpus(const struct conv *c, const char *file, cpu_set_t *set)
{
	char path[PATH_MAX], buf[4096];
	const char *root = c->k->sysfs && *c->k->sysfs ? c->k->sysfs : "/sys";
	int quiet;
	int ret;

	CPU_ZERO(set);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/%s", root, file);
	if (lw_read_file(path, buf, sizeof(buf)) <= 0 || !strcmp(buf, "(null)"))
		return 0;	/* absent or empty: no such CPU */
	quiet = lw_set_quiet(1);
	ret = lw_parse_cpulist(path, buf, NULL, set);
	lw_set_quiet(quiet);
	return ret;
}

static int variable(const struct conv *c, const yaml_node_t *n, const char *name, char *out,
		    size_t len)
{
	cpu_set_t set, a, b;
	const char *hint = "";

	if (!strcmp(name, "online") || !strcmp(name, "nohz_full") || !strcmp(name, "isolated")) {
		if (read_cpus(c, name, &set) < 0)
			return at(c, n, "${%s}: cannot read the CPU list of %s", name, name);
		if (!strcmp(name, "nohz_full"))
			hint = " (boot the kernel with nohz_full=LIST, e.g. nohz_full=1 "
			       "isolcpus=1 rcu_nocbs=1)";
		else if (!strcmp(name, "isolated"))
			hint = " (boot the kernel with isolcpus=LIST)";
	} else if (!strcmp(name, "housekeeping")) {
		if (read_cpus(c, "online", &set) < 0 || read_cpus(c, "nohz_full", &a) < 0 ||
		    read_cpus(c, "isolated", &b) < 0)
			return at(c, n, "${%s}: cannot read the CPU lists", name);
		CPU_OR(&a, &a, &b);
		for (int i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &a))
				CPU_CLR(i, &set);
		hint = " (every online CPU is nohz_full or isolated)";
	} else {
		return at(c, n, "unknown variable ${%s} (online, nohz_full, isolated, "
			  "housekeeping)", name);
	}
	if (!CPU_COUNT(&set))
		return at(c, n, "${%s} is empty on this system%s", name, hint);
	lw_format_cpulist(&set, out, len);
	return 0;
}

/* @s with every ${NAME} replaced; malloc'ed, NULL after error(). */
static char *expand(const struct conv *c, const yaml_node_t *n, const char *s)
{
	size_t cap = strlen(s) + 1, len = 0;
	char *out = malloc(cap);

	if (!out) {
		error("out of memory");
		return NULL;
	}
	while (*s) {
		const char *end;
		char name[32], val[1024];
		size_t vl;

		if (s[0] != '$' || s[1] != '{') {
			out[len++] = *s++;
			continue;
		}
		end = strchr(s, '}');
		if (!end || (size_t)(end - s - 2) >= sizeof(name)) {
			at(c, n, "an unterminated ${ (variables: ${online}, ${nohz_full}, "
			   "${isolated}, ${housekeeping})");
			free(out);
			return NULL;
		}
		memcpy(name, s + 2, (size_t)(end - s - 2));
		name[end - s - 2] = 0;
		if (variable(c, n, name, val, sizeof(val)) < 0) {
			free(out);
			return NULL;
		}
		vl = strlen(val);
		cap += vl;
		{
			char *o = realloc(out, cap);

			if (!o) {
				free(out);
				error("out of memory");
				return NULL;
			}
			out = o;
		}
		memcpy(out + len, val, vl);
		len += vl;
		s = end + 1;
	}
	out[len] = 0;
	return out;
}

/* ---- conversion ---------------------------------------------------------- */

static int add_arg_sub(struct conv *c, const char *opt, char *value, const char *key,
		       const yaml_node_t *where, struct lw_scenario_sub *sub, int nsub)
{
	struct lw_scenario *sc = c->sc;
	struct lw_scenario_arg *a;

	if (sc->nargs == c->cap) {
		int cap = c->cap ? c->cap * 2 : 16;
		struct lw_scenario_arg *n = realloc(sc->arg, (size_t)cap * sizeof(*n));

		if (!n) {
			free(value);
			free(sub);
			return error("out of memory");
		}
		sc->arg = n;
		c->cap = cap;
	}
	a = &sc->arg[sc->nargs];
	a->sub = sub;
	a->nsub = nsub;
	a->opt = strdup(opt);
	a->key = strdup(key);
	a->value = value;
	a->line = (int)where->start_mark.line + 1;
	a->column = (int)where->start_mark.column + 1;
	sc->nargs++;
	if (!a->opt || !a->key)
		return error("out of memory");
	return 0;
}

static int add_arg(struct conv *c, const char *opt, char *value, const char *key,
		   const yaml_node_t *where)
{
	return add_arg_sub(c, opt, value, key, where, NULL, 0);
}

/* A scalar value, expanded; NULL after error(). */
static char *scalar_value(struct conv *c, const yaml_node_t *n, const char *key)
{
	if (n->type != YAML_SCALAR_NODE) {
		at(c, n, "%s: expected a value, not a %s", key,
		   n->type == YAML_MAPPING_NODE ? "mapping" : "list");
		return NULL;
	}
	if (is_null(n)) {
		at(c, n, "%s: no value", key);
		return NULL;
	}
	return expand(c, n, scalar(n));
}

/* A list of scalars joined with commas; NULL after error(). */
static char *joined(struct conv *c, const yaml_node_t *n, const char *key)
{
	size_t len = 0;
	char *out = NULL;

	if (n->data.sequence.items.start == n->data.sequence.items.top) {
		at(c, n, "%s: empty list", key);
		return NULL;
	}
	for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top;
	     i++) {
		yaml_node_t *item = yaml_document_get_node(c->doc, *i);
		char *v = scalar_value(c, item, key), *o;

		if (!v) {
			free(out);
			return NULL;
		}
		o = realloc(out, len + strlen(v) + 2);
		if (!o) {
			free(v);
			free(out);
			error("out of memory");
			return NULL;
		}
		out = o;
		len += (size_t)sprintf(out + len, "%s%s", len ? "," : "", v);
		free(v);
	}
	return out;
}

/* Check that @n, a mapping, has no key twice. */
static int no_duplicates(struct conv *c, const yaml_node_t *n)
{
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, p->key);

		if (!scalar(k))
			return at(c, k, "a key must be a plain word, not a %s",
				  k->type == YAML_MAPPING_NODE ? "mapping" : "list");
		for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *k2 = yaml_document_get_node(c->doc, q->key);

			if (!strcmp(scalar(k), scalar(k2)))
				return at(c, k, "a key given twice (first at line %zu)",
					  k2->start_mark.line + 1);
		}
	}
	return 0;
}

/* Where the key @k of a mapping item ends in its spec. */
static int mark_sub(struct lw_scenario_sub **subs, int *nsub, size_t len, const yaml_node_t *k)
{
	struct lw_scenario_sub *n = realloc(*subs, (size_t)(*nsub + 1) * sizeof(*n));

	if (!n)
		return error("out of memory");
	n[*nsub].len = len;
	n[*nsub].line = (int)k->start_mark.line + 1;
	n[*nsub].column = (int)k->start_mark.column + 1;
	*subs = n;
	(*nsub)++;
	return 0;
}

/*
 * A mapping item of a repeated option, NAME: {KEY: VALUE, ...}, becomes
 * "NAME:KEY=VALUE,..." (a list value joined with commas); NULL after error().
 */
static char *mapping_spec(struct conv *c, const yaml_node_t *n, const char *key,
			  struct lw_scenario_sub **subs, int *nsub)
{
	yaml_node_t *name, *params;
	int first = 1;
	size_t len;
	char *out, *o;

	*subs = NULL;
	*nsub = 0;
	if (n->data.mapping.pairs.top - n->data.mapping.pairs.start != 1) {
		at(c, n, "%s: an item given as a mapping has one key, its name, with its "
		   "parameters under it (audio: {streams: 2})", key);
		return NULL;
	}
	name = yaml_document_get_node(c->doc, n->data.mapping.pairs.start->key);
	params = yaml_document_get_node(c->doc, n->data.mapping.pairs.start->value);
	if (!scalar(name) || is_null(name)) {
		at(c, name, "%s: the name of an item must be a word", key);
		return NULL;
	}
	out = expand(c, name, scalar(name));
	if (!out)
		return NULL;
	len = strlen(out);
	if (mark_sub(subs, nsub, len, name) < 0) {
		free(out);
		return NULL;
	}
	if (is_null(params))
		return out;		/* "audio:" alone: every parameter at its default */
	if (params->type != YAML_MAPPING_NODE) {
		at(c, params, "%s: %s: parameters are a mapping (KEY: VALUE), not a %s", key,
		   scalar(name), params->type == YAML_SEQUENCE_NODE ? "list" : "single value");
		free(out);
		return NULL;
	}
	if (no_duplicates(c, params) < 0) {
		free(out);
		return NULL;
	}
	for (yaml_node_pair_t *p = params->data.mapping.pairs.start;
	     p < params->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
		char *val;

		if (v->type == YAML_SEQUENCE_NODE)
			val = joined(c, v, scalar(k));
		else
			val = scalar_value(c, v, scalar(k));
		if (!val) {
			free(out);
			return NULL;
		}
		o = realloc(out, len + strlen(scalar(k)) + strlen(val) + 3);
		if (!o) {
			free(val);
			free(out);
			error("out of memory");
			return NULL;
		}
		out = o;
		len += (size_t)sprintf(out + len, "%c%s=%s", first ? ':' : ',', scalar(k), val);
		first = 0;
		free(val);
		if (mark_sub(subs, nsub, len, k) < 0) {
			free(out);
			return NULL;
		}
	}
	return out;
}

static int convert(struct conv *c, const char *name, const char *key, const yaml_node_t *keynode,
		   const yaml_node_t *v);

/* A mapping that groups options: KEY: {SUB: value} is --KEY-SUB. */
static int convert_group(struct conv *c, const char *name, const char *key, const yaml_node_t *v)
{
	if (no_duplicates(c, v) < 0)
		return -1;
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
		const char *ks = scalar(k) ? scalar(k) : "";
		char sub[128], subkey[160];

		if ((size_t)snprintf(sub, sizeof(sub), "%s-%s", name, ks) >= sizeof(sub))
			return at(c, k, "a key too long");
		snprintf(subkey, sizeof(subkey), "%s: %s", key, ks);
		if (convert(c, sub, subkey, k, yaml_document_get_node(c->doc, p->value)) < 0)
			return -1;
	}
	return 0;
}

static int convert(struct conv *c, const char *name, const char *key, const yaml_node_t *keynode,
		   const yaml_node_t *v)
{
	const struct option *o = find_opt(c->k, name);
	int repeat = o && in_list(c->k->repeatable, name);
	struct lw_scenario_sub *sub = NULL;
	int nsub = 0;
	char *val;

	if (v->type == YAML_MAPPING_NODE && !repeat)
		return convert_group(c, name, key, v);
	if (!o) {
		/* the key is not repeated: an error never quotes the file */
		if (strchr(key, ':'))
			return at(c, keynode, "unknown key in a group (no such option of 'latwatt "
				  "run')");
		return at(c, keynode, "unknown key (not an option of 'latwatt run'; see "
			  "'latwatt run --help')");
	}
	if (in_list(c->k->refused, name))
		return at(c, keynode, "key '%s' cannot be set in a scenario", key);
	if (o->has_arg == no_argument) {
		int b = boolean(v);

		if (b < 0)
			return at(c, v, "%s: a flag, give true or false", key);
		return b ? add_arg(c, name, NULL, key, v) : 0;
	}
	switch (v->type) {
	case YAML_MAPPING_NODE:		/* repeat */
		val = mapping_spec(c, v, key, &sub, &nsub);
		if (!val) {
			free(sub);
			return -1;
		}
		return add_arg_sub(c, name, val, key, v, sub, nsub);
	case YAML_SEQUENCE_NODE:
		if (!repeat) {
			val = joined(c, v, key);
			return val ? add_arg(c, name, val, key, v) : -1;
		}
		for (yaml_node_item_t *i = v->data.sequence.items.start;
		     i < v->data.sequence.items.top; i++) {
			yaml_node_t *item = yaml_document_get_node(c->doc, *i);

			if (item->type == YAML_MAPPING_NODE) {
				val = mapping_spec(c, item, key, &sub, &nsub);
				if (!val) {
					free(sub);
					return -1;
				}
				if (add_arg_sub(c, name, val, key, item, sub, nsub) < 0)
					return -1;
				continue;
			}
			val = scalar_value(c, item, key);
			if (!val || add_arg(c, name, val, key, item) < 0)
				return -1;
		}
		return 0;
	default:
		val = scalar_value(c, v, key);
		return val ? add_arg(c, name, val, key, v) : -1;
	}
}

static int parse_root(struct conv *c, const yaml_node_t *root)
{
	if (!root)
		return error("%s: empty scenario (expected keys such as duration: 10s)", c->path);
	if (root->type != YAML_MAPPING_NODE)
		return at(c, root, "a scenario is a mapping of keys (duration: 10s ...), not a %s",
			  root->type == YAML_SEQUENCE_NODE ? "list" : "single value");
	if (no_duplicates(c, root) < 0)
		return -1;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(c->doc, p->value);

		if (!strcmp(scalar(k), "description")) {
			if (v->type != YAML_SCALAR_NODE || is_null(v))
				return at(c, v, "description: expected one line of text");
			free(c->sc->description);
			c->sc->description = strdup(scalar(v));
			continue;
		}
		if (convert(c, scalar(k), scalar(k), k, v) < 0)
			return -1;
	}
	return 0;
}

static void set_name(struct lw_scenario *sc, const char *path)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 5 && !strcmp(b + n - 5, ".yaml"))
		n -= 5;
	else if (n > 4 && !strcmp(b + n - 4, ".yml"))
		n -= 4;
	sc->name = strndup(b, n);
}

static int yaml_problem(const char *path, const yaml_parser_t *p)
{
	const yaml_mark_t *m = &p->problem_mark;

	if (p->error == YAML_MEMORY_ERROR)
		return error("%s: out of memory", path);
	if (p->context)
		return error("%s:%zu:%zu: %s %s (line %zu)", path, m->line + 1, m->column + 1,
			     p->problem ? p->problem : "syntax error", p->context,
			     p->context_mark.line + 1);
	return error("%s:%zu:%zu: %s", path, m->line + 1, m->column + 1,
		     p->problem ? p->problem : "syntax error");
}

int lw_scenario_parse(struct lw_scenario *sc, const char *path, const char *text, size_t len,
		      const struct lw_scenario_keys *k)
{
	yaml_parser_t parser;
	yaml_document_t doc, more;
	struct conv c = { .sc = sc, .k = k, .doc = &doc, .path = path };
	int ret;

	memset(sc, 0, sizeof(*sc));
	sc->path = strdup(path);
	sc->text = malloc(len + 1);
	if (!sc->path || !sc->text)
		return error("out of memory");
	memcpy(sc->text, text, len);
	sc->text[len] = 0;
	sc->text_len = len;
	set_name(sc, path);
	if (memchr(text, 0, len))
		return error("%s: not a text file (contains a NUL byte)", path);

	/* depth, size and count first, as board files: libyaml's loader is
	 * slow on deep nesting */
	if (lw_yaml_check(path, sc->text, len) < 0)
		return -1;
	if (!yaml_parser_initialize(&parser))
		return error("out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)sc->text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		ret = yaml_problem(path, &parser);
		yaml_parser_delete(&parser);
		return ret;
	}
	ret = parse_root(&c, yaml_document_get_root_node(&doc));
	yaml_document_delete(&doc);
	if (ret == 0) {
		if (!yaml_parser_load(&parser, &more)) {
			ret = yaml_problem(path, &parser);
		} else {
			yaml_node_t *r = yaml_document_get_root_node(&more);

			if (r)
				ret = error("%s:%zu:%zu: a second document: a scenario is one "
					    "document", path, r->start_mark.line + 1,
					    r->start_mark.column + 1);
			yaml_document_delete(&more);
		}
	}
	yaml_parser_delete(&parser);
	return ret;
}

int lw_scenario_load_fd(struct lw_scenario *sc, int fd, const char *path,
			const struct lw_scenario_keys *k)
{
	char *buf;
	size_t n;
	int ret;

	memset(sc, 0, sizeof(*sc));
	if (fd < 0)
		return -1;
	buf = lw_in_read_fd(fd, path, MAX_TEXT, &n);
	if (!buf)
		return -1;
	ret = lw_scenario_parse(sc, path, buf, n, k);
	free(buf);
	return ret;
}

int lw_scenario_load(struct lw_scenario *sc, const char *path, const struct lw_scenario_keys *k)
{
	memset(sc, 0, sizeof(*sc));
	return lw_scenario_load_fd(sc, lw_in_open(path, 0, MAX_TEXT, NULL), path, k);
}

void lw_scenario_free(struct lw_scenario *sc)
{
	for (int i = 0; i < sc->nargs; i++) {
		free(sc->arg[i].opt);
		free(sc->arg[i].value);
		free(sc->arg[i].key);
		free(sc->arg[i].sub);
	}
	free(sc->arg);
	free(sc->path);
	free(sc->name);
	free(sc->description);
	free(sc->text);
	memset(sc, 0, sizeof(*sc));
}

/* ---- finding scenarios ------------------------------------------------- */

int lw_scenario_dirs(const char **dirs, int max, int *nenv)
{
	static char env[4096], exe1[PATH_MAX + 32], exe2[PATH_MAX + 32];
	const char *e = getenv("LATWATT_SCENARIO_PATH");
	char exe[PATH_MAX];
	ssize_t len;
	int n = 0;

	if (e && *e) {
		snprintf(env, sizeof(env), "%s", e);
		for (char *s = env, *tok; n < max && (tok = strsep(&s, ":"));)
			if (*tok)
				dirs[n++] = tok;
	}
	if (nenv)
		*nenv = n;
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		char *slash;

		exe[len] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			snprintf(exe1, sizeof(exe1), "%s/workloads/scenarios", exe);
			snprintf(exe2, sizeof(exe2), "%s/../workloads/scenarios", exe);
			if (n < max)
				dirs[n++] = exe1;
			if (n < max)
				dirs[n++] = exe2;
		}
	}
	if (n < max)
		dirs[n++] = LW_SCENARIO_DIR;
	return n;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

int lw_scenario_open(const char *arg, char *buf, size_t len)
{
	const char *dirs[16];
	char looked[2048];
	size_t lo = 0;
	struct stat st;
	int n, nenv;

	if (!*arg)
		return error("--scenario: empty name");
	if (strchr(arg, '/') || ends_with(arg, ".yaml") || ends_with(arg, ".yml")) {
		if ((size_t)snprintf(buf, len, "%s", arg) >= len)
			return error("%s: path too long", arg);
		if (stat(arg, &st) < 0)
			return error_errno("cannot open scenario %s", arg);
		return lw_in_open(arg, 0, MAX_TEXT, NULL);
	}
	n = lw_scenario_dirs(dirs, 16, &nenv);
	looked[0] = 0;
	for (int i = 0; i < n; i++) {
		if (i < nenv) {
			int r = lw_in_dir_trusted(dirs[i], "LATWATT_SCENARIO_PATH");

			if (r < 0)
				return -1;
		}
		if ((size_t)snprintf(buf, len, "%s/%s.yaml", dirs[i], arg) < len &&
		    lstat(buf, &st) == 0)
			return i < nenv ? lw_in_open_trusted(buf, "LATWATT_SCENARIO_PATH", 0,
							     MAX_TEXT, NULL) :
					  lw_in_open(buf, 0, MAX_TEXT, NULL);
		if (lo < sizeof(looked))
			lo += (size_t)snprintf(looked + lo, sizeof(looked) - lo, "%s%s",
					       i ? ", " : "", dirs[i]);
	}
	return error("no scenario named '%s' (looked in %s; 'latwatt scenarios' lists them)",
		     arg, looked);
}

int lw_scenario_find(const char *arg, char *buf, size_t len)
{
	int fd = lw_scenario_open(arg, buf, len);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

char *lw_scenario_describe(const char *path, const char *origin)
{
	int fd = origin ? lw_in_open_trusted(path, origin, 0, MAX_TEXT, NULL) :
			  lw_in_open(path, 0, MAX_TEXT, NULL);
	yaml_parser_t parser;
	yaml_document_t doc;
	char *desc = NULL, *buf;
	size_t n;
	int q;

	/* a listing: a file over the limits just has no description */
	if (fd < 0 || !(buf = lw_in_read_fd(fd, path, MAX_TEXT, &n)))
		return NULL;
	q = lw_set_quiet(1);
	if (lw_yaml_check(path, buf, n) < 0 || !yaml_parser_initialize(&parser)) {
		lw_set_quiet(q);
		free(buf);
		return NULL;
	}
	lw_set_quiet(q);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, n);
	if (yaml_parser_load(&parser, &doc)) {
		yaml_node_t *root = yaml_document_get_root_node(&doc);

		if (root && root->type == YAML_MAPPING_NODE)
			for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
			     p < root->data.mapping.pairs.top; p++) {
				const char *k = scalar(yaml_document_get_node(&doc, p->key));
				const char *v = scalar(yaml_document_get_node(&doc, p->value));

				if (k && v && !strcmp(k, "description")) {
					desc = strdup(v);
					break;
				}
			}
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&parser);
	free(buf);
	return desc;
}
