// SPDX-License-Identifier: GPL-2.0-only
#include "lib/words.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"

/* room for @need more bytes and a NUL in @r (capacity @cap) */
static int grow(char **r, size_t *cap, size_t len, size_t need)
{
	char *t;

	if (len + need + 1 <= *cap)
		return 0;
	*cap = (len + need + 1) * 2;
	t = realloc(*r, *cap);
	if (!t)
		return -1;
	*r = t;
	return 0;
}

char *lw_word_expand(const char *word, const struct lw_word_sub *subs, size_t n)
{
	size_t cap = strlen(word) + 1, len = 0;
	char *r = malloc(cap);

	if (!r)
		return NULL;
	while (*word) {
		const struct lw_word_sub *s = NULL;

		for (size_t i = 0; i < n && !s; i++)
			if (subs[i].value && !strncmp(word, subs[i].key, strlen(subs[i].key)))
				s = &subs[i];
		if (s) {
			size_t l = strlen(s->value);

			if (grow(&r, &cap, len, l) < 0)
				goto oom;
			memcpy(r + len, s->value, l);
			len += l;
			word += strlen(s->key);
		} else {
			if (grow(&r, &cap, len, 1) < 0)
				goto oom;
			r[len++] = *word++;
		}
	}
	r[len] = '\0';
	return r;
oom:
	free(r);
	return NULL;
}

int lw_words_split(const char *cmd, const struct lw_word_sub *subs, size_t n, char **argv,
		   int max)
{
	char *copy = strdup(cmd), *save = NULL, *w;
	int k = 0;

	if (!copy)
		return error("out of memory");
	argv[0] = NULL;
	for (w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (k == max - 1) {
			free(copy);
			lw_words_free(argv);
			return error("a hook's command has more than %d words", max - 1);
		}
		argv[k] = lw_word_expand(w, subs, n);
		if (!argv[k]) {
			free(copy);
			lw_words_free(argv);
			return error("out of memory");
		}
		argv[++k] = NULL;
	}
	free(copy);
	if (!k)
		return error("an empty hook command");
	return k;
}

void lw_words_free(char **argv)
{
	for (; *argv; argv++) {
		free(*argv);
		*argv = NULL;
	}
}
