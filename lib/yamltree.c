// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lib/yamltree.h"
#include "lib/error.h"
#include "lib/input.h"

#define LW_STR_(x) #x
#define LW_STR(x) LW_STR_(x)

struct yparse {
	yaml_parser_t p;
	const char *name;
	int depth;
	long nodes;
};

static int perr(struct yparse *y, const yaml_mark_t *m, const char *what)
{
	return error("%s:%zu:%zu: %s", y->name, m->line + 1, m->column + 1, what);
}

static int next(struct yparse *y, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&y->p, ev)) {
		const char *prob = y->p.problem ? y->p.problem : "YAML syntax error";

		if (y->p.context)
			return error("%s:%zu:%zu: %s %s", y->name, y->p.problem_mark.line + 1,
				     y->p.problem_mark.column + 1, prob, y->p.context);
		return error("%s:%zu:%zu: %s", y->name, y->p.problem_mark.line + 1,
			     y->p.problem_mark.column + 1, prob);
	}
	return 0;
}

static struct lw_ynode *node_new(enum lw_ytype t, const yaml_mark_t *m)
{
	struct lw_ynode *n = calloc(1, sizeof(*n));

	if (!n) {
		error("out of memory");
		return NULL;
	}
	n->type = t;
	n->line = (int)m->line + 1;
	n->col = (int)m->column + 1;
	return n;
}

static int push(struct lw_ynode *n, struct lw_ynode *k, size_t *count, size_t *cap)
{
	if (*count == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct lw_ynode **nk = realloc(n->kid, nc * sizeof(*nk));

		if (!nk)
			return error("out of memory");
		n->kid = nk;
		*cap = nc;
	}
	n->kid[(*count)++] = k;
	return 0;
}

static struct lw_ynode *parse_node(struct yparse *y, yaml_event_t *ev);

/* Parse the items of a sequence or mapping whose start event was @start. */
static struct lw_ynode *parse_coll(struct yparse *y, yaml_event_t *start)
{
	int is_map = start->type == YAML_MAPPING_START_EVENT;
	struct lw_ynode *n = node_new(is_map ? LW_Y_MAP : LW_Y_SEQ, &start->start_mark);
	size_t count = 0, cap = 0;

	if (!n)
		return NULL;
	if (++y->depth > LW_YAML_MAX_DEPTH) {
		perr(y, &start->start_mark, "nested more than " LW_STR(LW_YAML_MAX_DEPTH) " deep");
		goto fail;
	}
	for (;;) {
		yaml_event_t ev;
		struct lw_ynode *k;

		if (next(y, &ev) < 0)
			goto fail;
		if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		k = parse_node(y, &ev);
		yaml_event_delete(&ev);
		if (!k)
			goto fail;
		if (is_map && !(count & 1) && k->type != LW_Y_SCALAR) {
			error("%s:%d:%d: mapping keys must be plain scalars", y->name, k->line, k->col);
			lw_yaml_free(k);
			goto fail;
		}
		if (is_map && !(count & 1) && count / 2 >= LW_YAML_MAX_KEYS) {
			error("%s:%d:%d: more than " LW_STR(LW_YAML_MAX_KEYS) " keys in one mapping",
			      y->name, k->line, k->col);
			lw_yaml_free(k);
			goto fail;
		}
		if (is_map && !(count & 1)) {
			for (size_t i = 0; i < count; i += 2)
				if (!strcmp(n->kid[i]->value, k->value)) {
					error("%s:%d:%d: a key given twice (first at line %d)", y->name,
					      k->line, k->col, n->kid[i]->line);
					lw_yaml_free(k);
					goto fail;
				}
		}
		if (push(n, k, &count, &cap) < 0) {
			lw_yaml_free(k);
			goto fail;
		}
	}
	y->depth--;
	n->n = is_map ? count / 2 : count;
	return n;
fail:
	n->n = is_map ? (count + 1) / 2 : count;
	/* an odd count leaves a key without value: free it through the seq path */
	if (is_map && (count & 1)) {
		n->type = LW_Y_SEQ;
		n->n = count;
	}
	lw_yaml_free(n);
	return NULL;
}

static struct lw_ynode *parse_node(struct yparse *y, yaml_event_t *ev)
{
	struct lw_ynode *n;

	if (++y->nodes > LW_YAML_MAX_NODES) {
		perr(y, &ev->start_mark, "more than " LW_STR(LW_YAML_MAX_NODES) " values");
		return NULL;
	}
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		n = node_new(LW_Y_SCALAR, &ev->start_mark);
		if (!n)
			return NULL;
		n->value = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		n->quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
			    ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
		if (!n->value) {
			free(n);
			error("out of memory");
			return NULL;
		}
		return n;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		return parse_coll(y, ev);
	case YAML_ALIAS_EVENT:
		perr(y, &ev->start_mark, "aliases (*name) are not supported here");
		return NULL;
	default:
		perr(y, &ev->start_mark, "unexpected YAML event");
		return NULL;
	}
}

int lw_yaml_check(const char *name, const char *text, size_t len)
{
	struct yparse y = { .name = name };
	yaml_event_t ev;
	int ret = 0;
	/* per open collection: a mapping?, and how many nodes it holds */
	char is_map[LW_YAML_MAX_DEPTH + 2];
	long kids[LW_YAML_MAX_DEPTH + 2];

	if (len > LW_YAML_MAX_TEXT)
		return error("%s: larger than %d bytes", name, LW_YAML_MAX_TEXT);
	if (!yaml_parser_initialize(&y.p))
		return error("%s: cannot initialise the YAML parser", name);
	yaml_parser_set_input_string(&y.p, (const unsigned char *)text, len);
	for (;;) {
		yaml_event_type_t type;

		/* a syntax error is the loader's to report, where it meets it */
		if (!yaml_parser_parse(&y.p, &ev))
			break;
		type = ev.type;
		int start = type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT;

		if ((start || type == YAML_SCALAR_EVENT || type == YAML_ALIAS_EVENT) &&
		    y.depth > 0 && is_map[y.depth] && ++kids[y.depth] > 2L * LW_YAML_MAX_KEYS)
			ret = perr(&y, &ev.start_mark,
				   "more than " LW_STR(LW_YAML_MAX_KEYS) " keys in one mapping");
		else if (start && ++y.depth > LW_YAML_MAX_DEPTH)
			ret = perr(&y, &ev.start_mark,
				   "nested more than " LW_STR(LW_YAML_MAX_DEPTH) " deep");
		else if (start) {
			is_map[y.depth] = type == YAML_MAPPING_START_EVENT;
			kids[y.depth] = 0;
		} else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT)
			y.depth--;
		else if ((type == YAML_SCALAR_EVENT || type == YAML_ALIAS_EVENT) &&
			 ++y.nodes > LW_YAML_MAX_NODES)
			ret = perr(&y, &ev.start_mark,
				   "more than " LW_STR(LW_YAML_MAX_NODES) " values");
		yaml_event_delete(&ev);
		if (ret < 0 || type == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&y.p);
	return ret;
}

struct lw_ynode *lw_yaml_parse(const char *name, const char *text, size_t len)
{
	struct yparse y = { .name = name };
	struct lw_ynode *root = NULL;
	yaml_event_t ev;
	int done = 0;

	if (len > LW_YAML_MAX_TEXT) {
		error("%s: larger than %d bytes", name, LW_YAML_MAX_TEXT);
		return NULL;
	}
	if (!yaml_parser_initialize(&y.p)) {
		error("%s: cannot initialise the YAML parser", name);
		return NULL;
	}
	yaml_parser_set_input_string(&y.p, (const unsigned char *)text, len);
	while (!done) {
		if (next(&y, &ev) < 0)
			goto fail;
		switch (ev.type) {
		case YAML_STREAM_START_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (root) {
				perr(&y, &ev.start_mark, "more than one YAML document");
				yaml_event_delete(&ev);
				goto fail;
			}
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			if (root) {
				perr(&y, &ev.start_mark, "more than one YAML document");
				yaml_event_delete(&ev);
				goto fail;
			}
			root = parse_node(&y, &ev);
			if (!root) {
				yaml_event_delete(&ev);
				goto fail;
			}
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&y.p);
	if (!root) {
		yaml_mark_t m = { 0, 0, 0 };

		root = node_new(LW_Y_MAP, &m);
	}
	return root;
fail:
	yaml_parser_delete(&y.p);
	lw_yaml_free(root);
	return NULL;
}

struct lw_ynode *lw_yaml_load(const char *path)
{
	size_t len;
	char *buf = lw_in_read(path, 0, LW_YAML_MAX_TEXT, &len);
	struct lw_ynode *n;

	if (!buf)
		return NULL;
	n = lw_yaml_parse(path, buf, len);
	free(buf);
	return n;
}

void lw_yaml_free(struct lw_ynode *n)
{
	size_t k;

	if (!n)
		return;
	k = n->type == LW_Y_MAP ? 2 * n->n : n->n;
	for (size_t i = 0; i < k; i++)
		lw_yaml_free(n->kid[i]);
	free(n->kid);
	free(n->value);
	free(n);
}

struct lw_ynode *lw_ymap_get(const struct lw_ynode *map, const char *key)
{
	if (!map || map->type != LW_Y_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++)
		if (!strcmp(lw_ymap_key(map, i)->value, key))
			return lw_ymap_val(map, i);
	return NULL;
}

int lw_yaml_is_null(const struct lw_ynode *n)
{
	return n && n->type == LW_Y_SCALAR && !n->quoted &&
	       (!*n->value || !strcmp(n->value, "~") || !strcmp(n->value, "null") ||
		!strcmp(n->value, "Null") || !strcmp(n->value, "NULL"));
}
