// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/error.h"

static const char *progname = "latwatt";
/*
 * Per thread: a workload thread that silences its own expected failures
 * must not silence the main thread's, and the last message one thread
 * keeps is not overwritten by another's.
 */
static _Thread_local int quiet;
static _Thread_local char last[512];

const char *lw_progname(void) { return progname; }
int lw_set_quiet(int q) { int old = quiet; quiet = q; return old; }
const char *lw_last_error(void) { return last; }
void lw_clear_error(void) { last[0] = '\0'; }

static void report(const char *prefix, const char *fmt, va_list ap, int err)
{
	/* formatted aside first: the arguments may point into last[] itself */
	char msg[sizeof(last)];
	size_t n = (size_t)vsnprintf(msg, sizeof(msg), fmt, ap);

	if (err && n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(err));
	memcpy(last, msg, sizeof(last));
	if (!quiet)
		fprintf(stderr, "%s: %s%s\n", progname, prefix, last);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("error: ", fmt, ap, 0);
	va_end(ap);
	return -1;
}

int error_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	report("error: ", fmt, ap, err);
	va_end(ap);
	errno = err;
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	char save[sizeof(last)];

	memcpy(save, last, sizeof(last));
	va_start(ap, fmt);
	report("warning: ", fmt, ap, 0);
	va_end(ap);
	memcpy(last, save, sizeof(last));
}

void note(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}
