// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* Is @s[0..] a UTF-8 sequence of a printable character?  Its length, 0
 * when not, or -1 when @avail bytes are too few to tell. */
static int utf8_len_n(const unsigned char *s, size_t avail)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;

	if (!n || s[0] > 0xf4)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if (i >= avail)
			return -1;
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	}
	if (s[0] == 0xc2 && s[1] < 0xa0)	/* U+0080..U+009F: C1 controls */
		return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xf0 && s[1] < 0x90) ||
	    (s[0] == 0xf4 && s[1] > 0x8f) || (s[0] == 0xed && s[1] > 0x9f))
		return 0;			/* overlong, beyond U+10FFFF, surrogates */
	return (int)n;
}

static size_t utf8_len(const unsigned char *s)
{
	int n = utf8_len_n(s, 4);	/* NUL-terminated: a NUL ends it early */

	return n > 0 ? (size_t)n : 0;
}

char *lw_clean(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		size_t n;

		if (*p >= 0x20 && *p < 0x7f) {
			p++;
		} else if (*p >= 0x80 && (n = utf8_len(p))) {
			p += n;
		} else {
			*p++ = '?';
		}
	}
	return s;
}

const char *lw_clean_copy(const char *s, char *buf, size_t len)
{
	if (!s)
		return NULL;
	snprintf(buf, len, "%s", s);
	return lw_clean(buf);
}

int lw_fputs_clean(const char *s, FILE *f)
{
	char buf[1024];
	size_t n = strlen(s);

	for (size_t at = 0; at < n; ) {
		size_t k = n - at < sizeof(buf) - 1 ? n - at : sizeof(buf) - 1;

		/* never cut a UTF-8 sequence in two */
		while (k < n - at && k > 0 && ((unsigned char)s[at + k] & 0xc0) == 0x80)
			k--;
		if (!k)
			k = 1;
		memcpy(buf, s + at, k);
		buf[k] = 0;
		if (fputs(lw_clean(buf), f) == EOF)
			return EOF;
		at += k;
	}
	return 0;
}

/*
 * stdout through a filter (fopencookie): the text latwatt prints holds names
 * and strings from data (task names, manifests, board files, paths), and no
 * escape sequence of theirs reaches the terminal, or a file later shown on
 * one.  Newlines and tabs pass; a UTF-8 sequence cut between two writes is
 * carried over.
 */
struct clean_out {
	int fd;
	unsigned char seq[4];	/* a UTF-8 sequence begun, not yet whole */
	size_t have, need;
};

static int write_all(int fd, const unsigned char *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* May @c follow the lead byte @lead as the first continuation byte? */
static int second_ok(unsigned char lead, unsigned char c)
{
	if ((c & 0xc0) != 0x80)
		return 0;
	return !((lead == 0xc2 && c < 0xa0) || (lead == 0xe0 && c < 0xa0) ||
		 (lead == 0xf0 && c < 0x90) || (lead == 0xf4 && c > 0x8f) ||
		 (lead == 0xed && c > 0x9f));
}

static ssize_t clean_write(void *cookie, const char *buf, size_t size)
{
	struct clean_out *o = cookie;
	unsigned char out[8192];
	size_t n = 0;

	for (size_t i = 0; i < size; ) {
		unsigned char c = (unsigned char)buf[i];

		if (n + 8 > sizeof(out)) {
			if (write_all(o->fd, out, n) < 0)
				return -1;
			n = 0;
		}
		if (o->have) {
			if (o->have == 1 ? second_ok(o->seq[0], c) : (c & 0xc0) == 0x80) {
				o->seq[o->have++] = c;
				i++;
				if (o->have == o->need) {
					memcpy(out + n, o->seq, o->have);
					n += o->have;
					o->have = 0;
				}
				continue;
			}
			out[n++] = '?';		/* a sequence cut short */
			o->have = 0;
			continue;		/* @c again, on its own */
		}
		i++;
		if ((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t') {
			out[n++] = c;
		} else if (c >= 0xc2 && c <= 0xf4) {
			o->seq[0] = c;
			o->have = 1;
			o->need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		} else {
			out[n++] = '?';
		}
	}
	if (n && write_all(o->fd, out, n) < 0)
		return -1;
	return (ssize_t)size;
}

static int clean_close(void *cookie)
{
	struct clean_out *o = cookie;

	if (o->have)
		write_all(o->fd, (const unsigned char *)"?", 1);
	o->have = 0;
	return 0;
}

void lw_clean_stdout(void)
{
	static struct clean_out o = { .fd = STDOUT_FILENO };
	cookie_io_functions_t io = { .write = clean_write, .close = clean_close };
	FILE *f = fopencookie(&o, "w", io);

	if (!f)
		return;		/* unfiltered, rather than nothing */
	setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, 1 << 16);
	fflush(stdout);
	stdout = f;
}

static void report(const char *prefix, const char *fmt, va_list ap, int err)
{
	/* formatted aside first: the arguments may point into last[] itself */
	char msg[sizeof(last)];
	size_t n = (size_t)vsnprintf(msg, sizeof(msg), fmt, ap);

	if (err && n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(err));
	/* messages carry names and text from data: no control characters
	 * reach the terminal */
	lw_clean(msg);
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

	char msg[4096];

	if (quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", progname, lw_clean(msg));
}
