/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A hook's command (bisect --run-cmd/--deploy, tune --boot-cmd) as the
 * words of an argv: split on spaces and tabs, no shell, no quotes, and
 * placeholders ("{version}", "{out}", "{cmdline}") replaced inside each word
 * after the split, so that a value with spaces stays one word.
 */
#ifndef LW_WORDS_H
#define LW_WORDS_H

#include <stddef.h>

struct lw_word_sub {
	const char *key;		/* "{out}" */
	const char *value;		/* NULL: left as written */
};

/* @word with every placeholder of @subs (@n of them) replaced; malloc'd,
 * NULL when out of memory. */
char *lw_word_expand(const char *word, const struct lw_word_sub *subs, size_t n);
/* @cmd's words, expanded, into @argv (at most @max - 1 and a NULL); their
 * count, or -1 after error() (none, too many, out of memory).  Free with
 * lw_words_free(). */
int lw_words_split(const char *cmd, const struct lw_word_sub *subs, size_t n, char **argv,
		   int max);
void lw_words_free(char **argv);

#endif
