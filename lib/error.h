/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Error reporting.  One family, in the manner of git's usage.c:
 *
 *	return error("cannot open %s", path);		(prints, returns -1)
 *	return error_errno("cannot open %s", path);	(appends ": strerror(errno)")
 *
 * Library calls return 0 (or a count) on success and -1 on failure after
 * having printed one lowercase line that names the failing thing first.
 * Only commands exit; the exit codes below are the verdict of a command.
 */
#ifndef LW_ERROR_H
#define LW_ERROR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

enum lw_exit {
	LW_EXIT_OK          = 0,	/* passed / no regression */
	LW_EXIT_FAIL        = 1,	/* a budget or threshold was broken */
	LW_EXIT_ERROR       = 2,	/* bad input, or something failed */
	LW_EXIT_INTERRUPTED = 130,	/* stopped by SIGINT / SIGTERM, data kept */
};

const char *lw_progname(void);

int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int error_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Silence error()/warning() output in this thread (tests of bad input); returns previous. */
int lw_set_quiet(int quiet);
/*
 * The last message error() printed in this thread (quiet or not), and a way
 * to forget it: tests clear it before the call that must fail, so that a
 * call failing without a message cannot pass on an earlier one.
 */
const char *lw_last_error(void);
void lw_clear_error(void);

/*
 * Text from data (manifests, task names, board files, paths) for a
 * terminal: every control character (C0, DEL, C1) and every byte that is
 * not valid UTF-8 becomes '?', so that no escape sequence reaches the
 * terminal.  error(), warning() and note() do this to their messages.
 */
char *lw_clean(char *s);					/* in place; returns @s */
const char *lw_clean_copy(const char *s, char *buf, size_t len);	/* NULL for NULL */
int lw_fputs_clean(const char *s, FILE *f);			/* fputs() of it */
/* From here on, stdout passes what is printed through the same filter
 * (newlines and tabs kept): every command's text output. */
void lw_clean_stdout(void);

#endif
