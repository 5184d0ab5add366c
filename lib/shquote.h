/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Words for a POSIX shell on another machine (the remote side of ssh, which
 * runs its command line through the login shell): every word is quoted, so
 * data never becomes shell syntax.
 */
#ifndef LW_SHQUOTE_H
#define LW_SHQUOTE_H

#include <stddef.h>

/* A growing string: text appended with lw_sb_add/lw_sb_quote. */
struct lw_sb {
	char *s;
	size_t len, cap;
	int oom;		/* an allocation failed: s is incomplete */
};

void lw_sb_add(struct lw_sb *b, const char *text);
/* Append @word in single quotes ('it'\''s'), a word for sh whatever it holds. */
void lw_sb_quote(struct lw_sb *b, const char *word);
/* The string, or NULL after error("out of memory"). */
const char *lw_sb_str(struct lw_sb *b);
void lw_sb_free(struct lw_sb *b);

#endif
