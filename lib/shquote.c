// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/shquote.h"

static void put(struct lw_sb *b, const char *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *s;

		while (cap < b->len + n + 1)
			cap *= 2;
		s = realloc(b->s, cap);
		if (!s) {
			b->oom = 1;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void lw_sb_add(struct lw_sb *b, const char *text)
{
	put(b, text, strlen(text));
}

void lw_sb_quote(struct lw_sb *b, const char *word)
{
	const char *p = word, *q;

	put(b, "'", 1);
	while ((q = strchr(p, '\'')) != NULL) {
		put(b, p, (size_t)(q - p));
		put(b, "'\\''", 4);
		p = q + 1;
	}
	put(b, p, strlen(p));
	put(b, "'", 1);
}

const char *lw_sb_str(struct lw_sb *b)
{
	if (b->oom) {
		error("out of memory");
		return NULL;
	}
	if (!b->s)
		put(b, "", 0);
	return b->oom ? (error("out of memory"), NULL) : b->s;
}

void lw_sb_free(struct lw_sb *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}
