// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plots through gnuplot's svg terminal.  The script (with its data inline as
 * $name << EOD blocks) is written to gnuplot's standard input; the SVG goes
 * to a temporary file, is read back, and made embeddable: no XML prolog,
 * every id prefixed so that several plots can live in one page.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/input.h"
#include "lib/spawn.h"
#include "reports/report.h"

/* gnuplot's path (lib/input.h: from an absolute PATH entry that only root
 * or this user control), or NULL. */
static const char *gnuplot_path(void)
{
	static char path[4096];
	int r = lw_in_which("gnuplot", path, sizeof(path));

	if (r < 0)
		note("no plots: gnuplot is not run from a folder of PATH that others control");
	return r == 0 ? path : NULL;
}

int lw_gnuplot_available(void)
{
	return gnuplot_path() != NULL;
}

void lw_xml_escape(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
				fputs("\xef\xbf\xbd", f);	/* not allowed in XML 1.0 */
			else
				fputc(*p, f);
		}
	}
}

/*
 * A gnuplot string for untrusted text.  Single quotes: gnuplot expands
 * `backquotes` (a shell command) inside double-quoted strings, never inside
 * single-quoted ones, where the only special character is ' (doubled).
 * Control characters would end the command line: they become spaces.
 */
void lw_gp_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\'')
			fputc('\'', f);
		fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p, f);	/* enhanced text is off */
	}
	fputc('\'', f);
}

/* A string column of an inline data block: data lines are never expanded,
 * and have no escapes, so " (which would end the column) becomes '. */
void lw_gp_datum(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p == '"' ? '\'' : *p, f);
	fputc('"', f);
}

/* Append to a growing string. */
struct sbuf { char *s; size_t n, cap; };

static int sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->n + n + 1) * 2;
		char *ns = realloc(b->s, cap);

		if (!ns)
			return -1;
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
	return 0;
}

char *lw_svg_embed(const char *svg, const char *id)
{
	const char *p = strstr(svg, "<svg"), *end;
	struct sbuf b = { 0 };
	char attr[256];
	int bad = 0;

	if (!p || !(end = strstr(p, "</svg>"))) {
		error("gnuplot output for plot %s is not SVG", id);
		return NULL;
	}
	end += strlen("</svg>");
	snprintf(attr, sizeof(attr), "<svg class=\"plot\" data-plot=\"%s\" role=\"img\"", id);
	bad |= sb_add(&b, attr, strlen(attr));
	p += 4;
	while (p < end && !bad) {
		/* id='x' / id="x", href='#x', url(#x): prefix x with "@id-" */
		const char *next = NULL, *cut = NULL;
		static const char *const pat[] = { " id='", " id=\"", "href='#", "href=\"#", "url(#" };

		for (size_t k = 0; k < sizeof(pat) / sizeof(pat[0]); k++) {
			const char *q = strstr(p, pat[k]);

			if (q && q < end && (!next || q < next)) {
				next = q;
				cut = q + strlen(pat[k]);
			}
		}
		if (!next) {
			bad |= sb_add(&b, p, (size_t)(end - p));
			break;
		}
		bad |= sb_add(&b, p, (size_t)(cut - p));
		bad |= sb_add(&b, id, strlen(id));
		bad |= sb_add(&b, "-", 1);
		p = cut;
	}
	if (bad) {
		free(b.s);
		error("out of memory");
		return NULL;
	}
	return b.s;
}

static char *slurp(const char *path, size_t max)
{
	FILE *f = fopen(path, "r");
	struct sbuf b = { 0 };
	char buf[65536];
	size_t n;

	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && b.n < max)
		if (sb_add(&b, buf, n) < 0) {
			free(b.s);
			fclose(f);
			return NULL;
		}
	fclose(f);
	if (!b.s)
		b.s = strdup("");
	return b.s;
}

char *lw_gnuplot_svg(const char *script, const char *id, int width, int height)
{
	char dir[] = "/tmp/latwatt-plot.XXXXXX", out[64], err[64];
	char *svg = NULL, *res = NULL;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	const char *gnuplot = gnuplot_path();
	/* -d: no ~/.gnuplot or system gnuplotrc, whoever's HOME this is */
	const char *argv[] = { "gnuplot", "-d", NULL };
	struct lw_child c = { .argv = argv, .path = gnuplot, .in = LW_CHILD_PIPE,
			   .quiet = 1 };
	FILE *gp = NULL;
	int st, werr = 0, efd;

	if (!gnuplot) {
		error("gnuplot failed on plot %s: not found", id);
		return NULL;
	}
	if (!mkdtemp(dir)) {
		error_errno("cannot create a temporary directory for gnuplot");
		return NULL;
	}
	snprintf(out, sizeof(out), "%s/plot.svg", dir);
	snprintf(err, sizeof(err), "%s/stderr", dir);
	sigaction(SIGPIPE, &ign, &old);		/* gnuplot may die mid-script */
	/* its stderr into our own new directory, its script on a pipe */
	efd = open(err, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (efd < 0) {
		error_errno("cannot create %s", err);
		goto out;
	}
	c.err = efd;
	st = lw_child_start(&c);
	close(efd);
	if (st < 0) {
		error("gnuplot failed on plot %s: cannot run %s: %s", id, gnuplot,
		      strerror(c.fail_errno));
		goto out;
	}
	if (!(gp = fdopen(c.in, "w"))) {
		error_errno("cannot run gnuplot");
		close(c.in);
		lw_child_wait(&c);
		goto out;
	}
	fprintf(gp, "set terminal svg size %d,%d font \"sans,11\" background \"white\"\n"
		"set output '%s'\nset encoding utf8\nset termoption noenhanced\n",
		width, height, out);
	fputs(script, gp);
	fputs("\nunset output\n", gp);
	if (fflush(gp) == EOF || ferror(gp))
		werr = errno ? errno : EPIPE;
	fclose(gp);
	st = lw_child_wait(&c);
	if (st != 0 || werr) {
		char *e = slurp(err, 4096), *line = NULL;

		/* gnuplot's message is the last non-empty line: "line N: ..." */
		for (char *t = e ? strtok(e, "\n") : NULL; t; t = strtok(NULL, "\n"))
			if (*t && strspn(t, " \t^") != strlen(t))
				line = t + strspn(t, " \t");
		error("gnuplot failed on plot %s: %s", id,
		      line ? line : st == -1 ? "cannot wait for it" : "no message");
		free(e);
		goto out;
	}
	svg = slurp(out, 64 << 20);
	if (!svg) {
		error_errno("cannot read %s written by gnuplot", out);
		goto out;
	}
	res = lw_svg_embed(svg, id);
out:
	sigaction(SIGPIPE, &old, NULL);
	free(svg);
	unlink(out);
	unlink(err);
	rmdir(dir);
	return res;
}
