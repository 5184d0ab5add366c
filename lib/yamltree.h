/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A YAML document as a small tree of mappings, sequences and scalars, each
 * node keeping the line and column libyaml marked for it, so that the
 * validators above it say "file:line:col: key: what is wrong".
 *
 * Anchors are accepted, aliases and multi-document streams are refused:
 * board and scenario files are plain data.
 */
#ifndef LW_YAMLTREE_H
#define LW_YAMLTREE_H

#include <stddef.h>

enum lw_ytype { LW_Y_SCALAR, LW_Y_MAP, LW_Y_SEQ };

struct lw_ynode {
	enum lw_ytype type;
	int line, col;			/* 1-based */
	char *value;			/* scalars */
	int quoted;			/* scalar was written in quotes */
	struct lw_ynode **kid;		/* seq: items; map: key, value, key, value ... */
	size_t n;			/* seq: items; map: pairs */
};

/*
 * Limits every YAML file latwatt reads is held to (board and scenario
 * files): a page or two of plain data, not a megabyte nested 50,000 deep,
 * which libyaml's loader takes seconds over.
 */
#define LW_YAML_MAX_TEXT  (1 << 20)	/* bytes */
#define LW_YAML_MAX_DEPTH 64		/* nested mappings and sequences */
#define LW_YAML_MAX_NODES 100000	/* scalars, mappings and sequences */
#define LW_YAML_MAX_KEYS  1000		/* keys of one mapping (duplicates are
					 * looked for pair by pair) */

/* Check @text against the limits above with libyaml's event parser (no
 * tree built): 0, or -1 after error("name:line:col: ...").  A syntax
 * error stops the check with 0: the loader that follows reports it. */
int lw_yaml_check(const char *name, const char *text, size_t len);

/* Parse @path; NULL after error("path:line:col: ...").  An empty file
 * gives an empty mapping. */
struct lw_ynode *lw_yaml_load(const char *path);
/* Same, from memory (@name is used in messages). */
struct lw_ynode *lw_yaml_parse(const char *name, const char *text, size_t len);
void lw_yaml_free(struct lw_ynode *n);

/* Map helpers: the value node for @key, or NULL. */
struct lw_ynode *lw_ymap_get(const struct lw_ynode *map, const char *key);
static inline struct lw_ynode *lw_ymap_key(const struct lw_ynode *m, size_t i) { return m->kid[2 * i]; }
static inline struct lw_ynode *lw_ymap_val(const struct lw_ynode *m, size_t i) { return m->kid[2 * i + 1]; }

/* A YAML null scalar ("", "~", "null", unquoted). */
int lw_yaml_is_null(const struct lw_ynode *n);

#endif
