// SPDX-License-Identifier: GPL-2.0-only
/*
 * The structural check of a trace.dat before a parser sees it
 * (lw_tracedat_check_fd(), lib/tracedat.h): every size and range within
 * the file and the limits of lib/tracedat_int.h, the texts checked line by
 * line, event formats and their print formats checked token by token.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/input.h"
#include "lib/tracedat.h"
#include "lib/tracedat_int.h"

/* A descriptor of its own for the file open at @fd, read from its start
 * (/proc/self/fd: not the shared file offset of dup()). */
static int open_dup(int fd)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return open(proc, O_RDONLY | O_CLOEXEC);
}

/*
 * Text sections, read and checked line by line against the form the kernel
 * writes them in, so that the parsers behind the check (libtraceevent's)
 * only ever see that form.  @line returns NULL when a line is good, else
 * what is wrong with it.
 */
typedef const char *(*line_check)(const char *s, size_t n);

static int hexrun(const char *s, size_t n, size_t *i)
{
	size_t b = *i;

	while (*i < n && ((s[*i] >= '0' && s[*i] <= '9') || ((s[*i] | 32) >= 'a' && (s[*i] | 32) <= 'f')))
		(*i)++;
	return *i > b && *i - b <= 16;
}

static int decrun(const char *s, size_t n, size_t *i)
{
	size_t b = *i;

	while (*i < n && s[*i] >= '0' && s[*i] <= '9')
		(*i)++;
	return *i > b && *i - b <= 10;
}

static int printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\t' && s[i] != '\n')
			return 0;
	return 1;
}

/* "ffffffff81000000 T _stext" or "... t name\t[module]" */
static const char *kallsyms_line(const char *s, size_t n)
{
	size_t i = 0;

	if (!hexrun(s, n, &i) || i + 3 > n || s[i] != ' ' || s[i + 1] == ' ' || s[i + 2] != ' ' ||
	    i + 3 == n || !printable(s + i + 3, n - i - 3))
		return "not \"ADDRESS TYPE NAME\"";
	return NULL;
}

/* 0xffffffff82000000 : "format\n" */
static const char *printk_line(const char *s, size_t n)
{
	size_t i = 2;

	if (n < 2 || s[0] != '0' || s[1] != 'x' || !hexrun(s, n, &i) || n - i < 5 ||
	    memcmp(s + i, " : \"", 4) || s[n - 1] != '"' || !printable(s, n))
		return "not 0xADDRESS : \"FORMAT\"";
	return NULL;
}

/* "1234 comm" */
static const char *cmdline_line(const char *s, size_t n)
{
	size_t i = 0;

	if (!decrun(s, n, &i) || i + 1 >= n || s[i] != ' ' || !printable(s, n))
		return "not \"PID COMMAND\"";
	return NULL;
}

/* Read @n bytes of text; NUL-free, and each line good for @line (an
 * empty last line allowed).  *@out gets the text when asked (malloc'ed,
 * NUL-terminated). */
static int rd_text(struct lw_rd *r, uint64_t n, const char *what, line_check line, char **out)
{
	uint64_t at = r->off;
	char *buf;
	const char *p, *e;

	if (n > (r->end ? r->end : r->size) - r->off)
		return lw_rd_bytes(r, NULL, n, what);
	buf = malloc(n + 1);
	if (!buf)
		return error("out of memory for %s of %s", what, r->path);
	if (lw_rd_bytes(r, buf, n, what) < 0) {
		free(buf);
		return -1;
	}
	buf[n] = 0;
	if (memchr(buf, 0, n)) {
		uint64_t z = (uint64_t)((char *)memchr(buf, 0, n) - buf);

		free(buf);
		return error("%s: byte %llu: a NUL byte in %s", r->path,
			     (unsigned long long)(at + z), what);
	}
	for (p = buf; line && p < buf + n; p = e + 1) {
		const char *why;

		e = memchr(p, '\n', (size_t)(buf + n - p));
		if (!e)
			e = buf + n;
		if (e == p && e == buf + n)
			break;
		why = line(p, (size_t)(e - p));
		if (why) {
			error("%s: byte %llu: %s line %.40s%s: %s", r->path,
			      (unsigned long long)(at + (uint64_t)(p - buf)), what,
			      printable(p, (size_t)(e - p) < 40 ? (size_t)(e - p) : 40) ? p : "(binary)",
			      e - p > 40 ? "..." : "", why);
			free(buf);
			return -1;
		}
	}
	if (out)
		*out = buf;
	else
		free(buf);
	return 0;
}

/*
 * The print format's arguments are C expressions that libtraceevent's
 * parser takes apart, and that parser does not survive every malformed one.
 * They are checked here token by token against the shape kernels write:
 * a string, then comma-separated expressions of identifiers, numbers,
 * strings, operators, casts, calls and { value, "name" } lists, brackets
 * balanced and nested, every operator between operands.
 */
enum { T_OPERAND, T_OPEN, T_CLOSE, T_COMMA, T_SEMI, T_BINOP, T_STAR, T_UNARY, T_MEMBER, T_IDENT };

/* The field names of a format (pointers into its text). */
#define MAX_FIELDS 512
struct fnames {
	const char *name[MAX_FIELDS];
	size_t len[MAX_FIELDS];
	int n;
};

static int is_field(const struct fnames *f, const char *s, size_t n)
{
	for (int i = 0; i < f->n; i++)
		if (f->len[i] == n && !memcmp(f->name[i], s, n))
			return 1;
	return 0;
}

/* "REC->" or "(REC)->" ends at @s[i]: the record's own fields follow */
static int after_rec(const char *s, size_t i)
{
	while (i && (s[i - 1] == ' ' || s[i - 1] == ')'))
		i--;
	return i >= 3 && !memcmp(s + i - 3, "REC", 3) &&
	       (i == 3 || !(s[i - 4] == '_' || (s[i - 4] >= '0' && s[i - 4] <= '9') ||
			    ((s[i - 4] | 32) >= 'a' && (s[i - 4] | 32) <= 'z')));
}

static const char *print_fmt_check(const char *s, size_t n, const struct fnames *f)
{
	char stack[32];
	int depth = 0, prev = T_COMMA, first = 1, want_field = 0, divide = 0;
	size_t i = 0;

	while (i < n) {
		char c = s[i];
		int t;

		if (c == ' ' || c == '\t' || c == '\n') {
			i++;
			continue;
		}
		if (c == '"' || c == '\'') {
			for (i++; i < n && s[i] != c; i++)
				if (s[i] == '\\' && ++i >= n)
					break;
			if (i >= n)
				return "an unterminated string in the print format";
			i++;
			t = T_OPERAND;
		} else if ((c >= '0' && c <= '9')) {
			while (i < n && (s[i] == '_' || s[i] == '.' || (s[i] >= '0' && s[i] <= '9') ||
					 ((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z')))
				i++;
			t = T_OPERAND;
		} else if (c == '_' || ((c | 32) >= 'a' && (c | 32) <= 'z')) {
			while (i < n && (s[i] == '_' || (s[i] >= '0' && s[i] <= '9') ||
					 ((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z')))
				i++;
			t = T_IDENT;
		} else if (c == '(' || c == '[' || c == '{') {
			if (depth == (int)sizeof(stack))
				return "brackets nested too deep in the print format";
			if (c == '{' && prev != T_COMMA && prev != T_OPEN && prev != T_SEMI &&
			    prev != T_BINOP)
				return "a { list where no value may start in the print format";
			if (c == '[' && prev != T_OPERAND && prev != T_IDENT && prev != T_CLOSE)
				return "an index without a value in the print format";
			stack[depth++] = c;
			i++;
			t = T_OPEN;
		} else if (c == ')' || c == ']' || c == '}') {
			char want = c == ')' ? '(' : c == ']' ? '[' : '{';

			if (!depth || stack[--depth] != want)
				return "unbalanced brackets in the print format";
			/* "f()", and the end of a cast "(char *)" */
			if (prev != T_OPERAND && prev != T_IDENT && prev != T_CLOSE &&
			    prev != T_OPEN && !(c == ')' && prev == T_STAR) &&
			    !(c == '}' && prev == T_SEMI))
				return "a bracket closed after an operator in the print format";
			i++;
			t = T_CLOSE;
		} else if (c == ',') {
			if (prev != T_OPERAND && prev != T_IDENT && prev != T_CLOSE)
				return "an empty argument in the print format";
			i++;
			t = T_COMMA;
		} else if (c == ';') {
			/* statement expressions: ({ int x = (REC->a); ... ; }) */
			if (!depth || stack[depth - 1] != '{' ||
			    (prev != T_OPERAND && prev != T_IDENT && prev != T_CLOSE))
				return "a ; outside a { } block in the print format";
			i++;
			t = T_SEMI;
		} else if (c == '-' && i + 1 < n && s[i + 1] == '>') {
			/* libtraceevent looks REC->NAME up among the fields and
			 * does not survive a name that is not one */
			want_field = after_rec(s, i);
			i += 2;
			t = T_MEMBER;
		} else if (c == '.') {
			i++;
			t = T_MEMBER;
		} else if (strchr("+-*&!~/%|^<>=?:", c)) {
			size_t b = i++;

			if (i < n && strchr("&|<>=", s[i]) && (s[i] == c || s[i] == '=') && c != '?' && c != ':')
				i++;
			if (i - b == 1 && (c == '!' || c == '~'))
				t = T_UNARY;
			else if (i - b == 1 && (c == '*' || c == '&' || c == '-' || c == '+'))
				t = (prev == T_OPERAND || prev == T_IDENT || prev == T_CLOSE) ?
				    (c == '*' ? T_STAR : T_BINOP) : T_UNARY;
			else
				t = T_BINOP;
		} else {
			return "a character the print format cannot hold";
		}
		if (first) {
			if (c != '"')
				return "the print format does not begin with a string";
			first = 0;
		}
		/* libtraceevent folds constants, and an operand it cannot resolve
		 * counts as 0: only a non-zero number or a sizeof may divide */
		if (divide && !(t == T_OPERAND && c >= '1' && c <= '9') &&
		    !(t == T_IDENT && i >= 6 && !memcmp(s + i - 6, "sizeof", 6)))
			return "a division by something other than a non-zero number or a "
			       "sizeof in the print format";
		divide = t == T_BINOP && (c == '/' || c == '%') && i >= 1 && s[i - 1] == c;
		/* operators between operands */
		if ((t == T_BINOP || t == T_STAR) && prev != T_OPERAND && prev != T_IDENT &&
		    prev != T_CLOSE)
			return "an operator without a left operand in the print format";
		if (prev == T_MEMBER && t != T_IDENT)
			return "-> or . without a member name in the print format";
		if (prev == T_MEMBER && want_field) {
			size_t b = i;

			while (b && (s[b - 1] == '_' || (s[b - 1] >= '0' && s[b - 1] <= '9') ||
				     ((s[b - 1] | 32) >= 'a' && (s[b - 1] | 32) <= 'z')))
				b--;
			if (!is_field(f, s + b, i - b))
				return "REC-> names a field the format does not have";
			want_field = 0;
		}
		if (t == T_OPERAND && (prev == T_OPERAND || prev == T_IDENT) && c != '"')
			return "two values without an operator in the print format";
		prev = t;
	}
	if (first)
		return "an empty print format";
	if (depth)
		return "unbalanced brackets in the print format";
	if (prev != T_OPERAND && prev != T_IDENT && prev != T_CLOSE)
		return "the print format ends with an operator";
	return NULL;
}

/*
 * An event format ("name: N\nID: N\nformat:\n\tfield:...;\toffset:N;\t
 * size:N;\tsigned:N;\n...\nprint fmt: ..."): the lines libtraceevent's
 * parser relies on, each field within a record (records live in one
 * page), and a print format on one line.
 */
static const char *format_text(const char *s, size_t n, uint32_t page_size)
{
	const char *p = s, *end = s + n, *id, *fmt, *pf;
	int fields = 0;
	struct fnames *names;
	const char *why;

	if (n < 6 || memcmp(s, "name: ", 6))
		return "does not begin with \"name: \"";
	id = memmem(s, n, "\nID: ", 5);
	fmt = memmem(s, n, "\nformat:\n", 9);
	pf = memmem(s, n, "\nprint fmt: ", 12);
	if (!id || !fmt || !pf || id > fmt || fmt > pf)
		return "lacks \"ID:\", \"format:\" or \"print fmt:\" in that order";
	{
		size_t i = 5;

		if (!decrun(id, (size_t)(end - id), &i) || id[i] != '\n')
			return "ID is not a number";
		/* records hold the id in common_type, an unsigned short */
		if (strtoul(id + 5, NULL, 10) > 65535)
			return "ID beyond 65535";
	}
	if (!printable(s, (size_t)(fmt - s)))
		return "control characters in its name";
	for (p = fmt + 9; p < pf + 1; ) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		const char *o, *z;
		unsigned long off, size;

		if (!e)
			e = end;
		if (e == p) {		/* blank lines separate common and own fields */
			p = e + 1;
			continue;
		}
		if (e - p < 7 || memcmp(p, "\tfield:", 7))
			return "a field line does not begin with \"\\tfield:\"";
		if (!printable(p, (size_t)(e - p)))
			return "control characters in a field line";
		{
			/* "field:DECLARATION;" in plain ASCII, its brackets closed,
			 * ending in a name or "]" */
			const char *q = p + 7, *semi = memchr(q, ';', (size_t)(e - q));
			int br = 0;

			if (!semi || semi == q)
				return "a field line without \"TYPE NAME;\"";
			for (const char *x = q; x < semi; x++) {
				if ((unsigned char)*x < 0x20 || (unsigned char)*x > 0x7e)
					return "a field declaration that is not plain ASCII";
				br += *x == '[';
				br -= *x == ']';
				if (br < 0 || br > 1)
					return "unbalanced brackets in a field declaration";
			}
			if (br || !(semi[-1] == ']' || semi[-1] == '_' ||
				    (semi[-1] >= '0' && semi[-1] <= '9') ||
				    ((semi[-1] | 32) >= 'a' && (semi[-1] | 32) <= 'z')))
				return "a field declaration that does not end in its name";
		}
		o = memmem(p, (size_t)(e - p), "\toffset:", 8);
		z = memmem(p, (size_t)(e - p), "\tsize:", 6);
		if (!o || !z || sscanf(o, "\toffset:%lu;", &off) != 1 ||
		    sscanf(z, "\tsize:%lu;", &size) != 1)
			return "a field without offset or size";
		if (off > page_size || size > page_size || off + size > page_size)
			return "a field beyond any record";
		fields++;
		p = e + 1;
	}
	if (!fields)
		return "no fields";
	if (fields > MAX_FIELDS)
		return "more than 512 fields";
	pf += 12;
	if (!printable(pf, (size_t)(end - pf) - (end[-1] == '\n')))
		return "control characters in the print format";
	names = calloc(1, sizeof(*names));
	if (!names)
		return "out of memory";
	for (p = fmt + 9; p < pf - 11; ) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		const char *semi, *b;

		if (!e)
			e = end;
		semi = e - p > 7 ? memchr(p + 7, ';', (size_t)(e - p - 7)) : NULL;
		if (semi) {
			/* "field:TYPE NAME[N];": NAME */
			b = semi;
			if (b > p + 7 && b[-1] == ']')
				while (b > p + 7 && *--b != '[')
					;
			semi = b;
			while (b > p + 7 && (b[-1] == '_' || (b[-1] >= '0' && b[-1] <= '9') ||
					     ((b[-1] | 32) >= 'a' && (b[-1] | 32) <= 'z')))
				b--;
			names->name[names->n] = b;
			names->len[names->n++] = (size_t)(semi - b);
		}
		p = e + 1;
	}
	why = print_fmt_check(pf, (size_t)(end - pf), names);
	free(names);
	return why;
}

static int rd_format(struct lw_rd *r, uint64_t n, const char *what)
{
	uint64_t at = r->off;
	char *text = NULL;
	const char *why;

	if (rd_text(r, n, what, NULL, &text) < 0 || !text)
		return -1;
	why = format_text(text, n, r->info->page_size);
	if (why) {
		error("%s: byte %llu: %s %.60s: %s", r->path, (unsigned long long)at, what,
		      strncmp(text, "name: ", 6) ? "" : strtok(text + 6, "\n"), why);
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

/* header_page, header_event: text, and the kernel's long size from the
 * first. */
static int rd_header_text(struct lw_rd *r, const char *name, size_t namelen)
{
	uint64_t n;
	char *text = NULL;

	if (lw_rd_expect(r, name, namelen) < 0 || lw_rd_size(r, 8, &n, MAX_HDR_TEXT, name) < 0 ||
	    rd_text(r, n, name, NULL, &text) < 0 || !text)
		return -1;
	if (namelen == 12) {
		if (!strstr(text, "commit;") || !strstr(text, "field:")) {
			free(text);
			return error("%s: header_page does not describe a ring-buffer page", r->path);
		}
		r->long_size = lw_header_page_long_size(text);
	}
	free(text);
	return 0;
}

static int check_formats(struct lw_rd *r)
{
	uint64_t n, count;

	if (lw_rd_size(r, 4, &count, MAX_FORMATS, "ftrace format count") < 0)
		return -1;
	for (uint64_t i = 0; i < count; i++)
		if (lw_rd_size(r, 8, &n, MAX_FORMAT, "ftrace format size") < 0 ||
		    rd_format(r, n, "ftrace format") < 0)
			return -1;
	return 0;
}

static int check_systems(struct lw_rd *r)
{
	uint64_t n, count;
	char name[256];

	if (lw_rd_size(r, 4, &count, MAX_SYSTEMS, "system count") < 0)
		return -1;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t events;

		if (lw_rd_string(r, name, sizeof(name), "system name") < 0 ||
		    lw_rd_size(r, 4, &events, MAX_FORMATS, "event count") < 0)
			return -1;
		if (!name[0] || !printable(name, strlen(name)) || strchr(name, ' '))
			return error("%s: byte %llu: bad system name", r->path,
				     (unsigned long long)r->off);
		for (uint64_t j = 0; j < events; j++)
			if (lw_rd_size(r, 8, &n, MAX_FORMAT, "event format size") < 0 ||
			    rd_format(r, n, "event format") < 0)
				return -1;
	}
	return 0;
}

static int check_kallsyms(struct lw_rd *r)
{
	uint64_t n;

	return lw_rd_size(r, 4, &n, MAX_KALLSYMS, "kallsyms size") < 0 ||
	       rd_text(r, n, "kallsyms", kallsyms_line, NULL) < 0 ? -1 : 0;
}

static int check_printk(struct lw_rd *r)
{
	uint64_t n;

	return lw_rd_size(r, 4, &n, MAX_TEXT, "printk size") < 0 ||
	       rd_text(r, n, "printk formats", printk_line, NULL) < 0 ? -1 : 0;
}

static int check_cmdlines(struct lw_rd *r)
{
	uint64_t n;

	return lw_rd_size(r, 8, &n, MAX_TEXT, "cmdlines size") < 0 ||
	       rd_text(r, n, "cmdlines", cmdline_line, NULL) < 0 ? -1 : 0;
}

/* Every page of a CPU's data: its commit within the page (what kbuffer
 * trusts), whole pages only. */
static int check_pages(struct lw_rd *r, uint64_t cpu, uint64_t off, uint64_t size)
{
	uint32_t ps = r->info->page_size;
	uint64_t hdr = 8 + (uint64_t)r->long_size;

	if (off > r->size || size > r->size - off)
		return error("%s: data of cpu %llu (%llu bytes at %llu) lies beyond the end "
			     "of the file (%llu bytes)", r->path, (unsigned long long)cpu,
			     (unsigned long long)size, (unsigned long long)off,
			     (unsigned long long)r->size);
	for (uint64_t p = off; p + ps <= off + size; p += ps) {
		unsigned char b[16];
		uint64_t commit = 0;

		if (fseeko(r->f, (off_t)p, SEEK_SET) < 0 || fread(b, 1, 16, r->f) != 16)
			return error_errno("cannot read %s", r->path);
		for (int i = r->long_size - 1; i >= 0; i--)
			commit = (commit << 8) | b[8 + i];
		if ((commit & ((1u << 27) - 1)) > ps - hdr)
			return error("%s: cpu %llu: corrupt page at byte %llu (%llu bytes of events "
				     "in a %u-byte page)", r->path, (unsigned long long)cpu,
				     (unsigned long long)p,
				     (unsigned long long)(commit & ((1u << 27) - 1)), ps);
	}
	return 0;
}

static void take_clock(struct lw_rd *r, const char *clk)
{
	const char *b = strchr(clk, '['), *e = b ? strchr(b, ']') : NULL;

	if (b && e && (size_t)(e - b - 1) < sizeof(r->info->clock))
		snprintf(r->info->clock, sizeof(r->info->clock), "%.*s", (int)(e - b - 1), b + 1);
	else if (!b && strlen(clk) < sizeof(r->info->clock) && printable(clk, strlen(clk)))
		snprintf(r->info->clock, sizeof(r->info->clock), "%s", clk);
}

static int check_page_size(struct lw_rd *r)
{
	uint64_t v;

	if (lw_rd_le(r, 4, &v, "page size") < 0)
		return -1;
	if (v < 64 || v > (1u << 24) || (v & (v - 1)))
		return error("%s: byte %llu: implausible page size %llu", r->path,
			     (unsigned long long)(r->off - 4), (unsigned long long)v);
	r->info->page_size = (uint32_t)v;
	return 0;
}

/*
 * The options whose payload libtracecmd reads, besides the buffer and
 * section options: strings (NUL-terminated text), and fixed-size numbers.
 * Any other option (guests, time shifts, process maps, hooks, offsets) has
 * a structure of its own that is not checked, and is refused.
 */
static int check_option(struct lw_rd *r, uint64_t id, uint64_t n)
{
	static const struct { uint16_t id; uint16_t size; } fixed[] = {
		{ LW_TDOPT_CPUCOUNT, 4 }, { 11 /* TRACEID */, 8 }, { 14 /* TSC2NSEC */, 16 },
	};
	uint64_t at = r->off;
	char *text = NULL;

	switch (id) {
	case LW_TDOPT_DATE:
	case LW_TDOPT_CPUSTAT:
	case LW_TDOPT_TRACECLOCK:
	case LW_TDOPT_UNAME:
	case LW_TDOPT_VERSION:
		if (!n)
			return error("%s: byte %llu: option %llu is empty", r->path,
				     (unsigned long long)at, (unsigned long long)id);
		if (rd_text(r, n - 1, "option text", NULL, &text) < 0 || !text)
			return -1;
		free(text);
		if (lw_rd_expect(r, "", 1) < 0)
			return error("%s: byte %llu: option %llu does not end in a NUL", r->path,
				     (unsigned long long)at, (unsigned long long)id);
		return 0;
	default:
		break;
	}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (fixed[i].id == id) {
			if (n != fixed[i].size)
				return error("%s: byte %llu: option %llu has %llu bytes, not %u",
					     r->path, (unsigned long long)at, (unsigned long long)id,
					     (unsigned long long)n, fixed[i].size);
			return lw_rd_bytes(r, NULL, n, "option");
		}
	return error("%s: byte %llu: trace file option %llu is not read by latwatt", r->path,
		     (unsigned long long)at, (unsigned long long)id);
}

static int check_v6(struct lw_rd *r)
{
	uint64_t n, cpus;
	int has_clock = 0;
	char name[16];

	if (check_page_size(r) < 0 || rd_header_text(r, "header_page", 12) < 0 ||
	    rd_header_text(r, "header_event", 13) < 0 || check_formats(r) < 0 ||
	    check_systems(r) < 0 || check_kallsyms(r) < 0 || check_printk(r) < 0 ||
	    check_cmdlines(r) < 0 || lw_rd_size(r, 4, &cpus, MAX_CPUS, "cpu count") < 0)
		return -1;
	r->info->cpus = (int)cpus;
	if (lw_rd_bytes(r, name, 10, "section name") < 0)
		return -1;
	if (!memcmp(name, "options  ", 10)) {
		for (;;) {
			uint64_t id;

			if (lw_rd_le(r, 2, &id, "option id") < 0)
				return -1;
			if (id == LW_TDOPT_DONE)
				break;
			if (id == LW_TDOPT_BUFFER)
				return error("%s: byte %llu: buffer instances in a version 6 file are "
					     "not read", r->path, (unsigned long long)(r->off - 2));
			if (lw_rd_size(r, 4, &n, MAX_OPTION, "option size") < 0)
				return -1;
			if (id == LW_TDOPT_CPUCOUNT && n == 4) {
				/* libtracecmd sizes its CPU tables by this one,
				 * the data ranges below come by the header's */
				uint64_t oc;

				if (lw_rd_le(r, 4, &oc, "cpu count option") < 0)
					return -1;
				if (oc != cpus)
					return error("%s: byte %llu: the cpu count option says %llu "
						     "CPUs, the header %llu", r->path,
						     (unsigned long long)(r->off - 4),
						     (unsigned long long)oc, (unsigned long long)cpus);
				continue;
			}
			if (check_option(r, id, n) < 0)
				return -1;
			if (id == LW_TDOPT_TRACECLOCK)
				has_clock = 1;
		}
		if (lw_rd_bytes(r, name, 10, "section name") < 0)
			return -1;
	}
	if (!memcmp(name, "latency  ", 10))
		return error("%s: a latency-tracer trace (no per-CPU data) is not read", r->path);
	if (memcmp(name, "flyrecord", 10))
		return error("%s: byte %llu: expected \"flyrecord\"", r->path,
			     (unsigned long long)(r->off - 10));
	r->info->cpu_off = calloc(cpus + 1, sizeof(uint64_t));
	r->info->cpu_size = calloc(cpus + 1, sizeof(uint64_t));
	if (!r->info->cpu_off || !r->info->cpu_size)
		return error("out of memory");
	for (uint64_t c = 0; c < cpus; c++) {
		uint64_t o, s;

		if (lw_rd_le(r, 8, &o, "cpu data offset") < 0 || lw_rd_le(r, 8, &s, "cpu data size") < 0)
			return -1;
		r->info->cpu_off[c] = o;
		r->info->cpu_size[c] = s;
		if (o > r->size || s > r->size - o)
			return error("%s: data of cpu %llu (%llu bytes at %llu) lies beyond the end "
				     "of the file (%llu bytes)", r->path, (unsigned long long)c,
				     (unsigned long long)s, (unsigned long long)o,
				     (unsigned long long)r->size);
	}
	if (has_clock) {
		char clk[1024] = "";

		if (lw_rd_le(r, 8, &n, "trace clock size") < 0)
			return -1;
		if (n < sizeof(clk)) {
			if (lw_rd_bytes(r, clk, n, "trace clock") < 0)
				return -1;
			clk[n] = 0;
		} else if (lw_rd_bytes(r, NULL, n, "trace clock") < 0) {
			return -1;
		}
		take_clock(r, clk);
	}
	/* the pages last: the ranges were all checked against the file */
	for (uint64_t c = 0; c < cpus; c++)
		if (check_pages(r, c, r->info->cpu_off[c], r->info->cpu_size[c]) < 0)
			return -1;
	return 0;
}

/*
 * Version 7 (trace-cmd 3): sections found through options sections.  The
 * header sections are walked as in version 6, each within its declared
 * size; every CPU's data range and page is checked; compressed files are
 * refused (their sections could only be checked after decompressing them).
 */
enum {
	V7_HEADER_INFO = 16, V7_FTRACE_EVENTS, V7_EVENT_FORMATS, V7_KALLSYMS, V7_PRINTK,
	V7_CMDLINES, V7_BUFFER_TEXT,
};

/* Go to the section at @off, expect id @id, and limit reading to it. */
static int v7_section(struct lw_rd *r, uint64_t off, uint64_t id, const char *what)
{
	uint64_t sid, flags, sz;

	r->end = 0;
	if (lw_rd_seek(r, off, what) < 0 || lw_rd_le(r, 2, &sid, "section id") < 0 ||
	    lw_rd_le(r, 2, &flags, "section flags") < 0 || lw_rd_bytes(r, NULL, 4, "section string") < 0 ||
	    lw_rd_le(r, 8, &sz, "section size") < 0)
		return -1;
	if (sid != id)
		return error("%s: byte %llu: %s: section id %llu, expected %llu", r->path,
			     (unsigned long long)off, what, (unsigned long long)sid,
			     (unsigned long long)id);
	if (flags & 1)
		return error("%s: byte %llu: compressed %s: not read", r->path,
			     (unsigned long long)off, what);
	if (sz > r->size - r->off)
		return error("%s: byte %llu: %s of %llu bytes lies beyond the end of the file",
			     r->path, (unsigned long long)off, what, (unsigned long long)sz);
	r->end = r->off + sz;
	return 0;
}

static int v7_buffer(struct lw_rd *r, uint64_t optend, int *nbuf)
{
	char name[256], clk[256];
	uint64_t off, ps, cpus;

	if (lw_rd_le(r, 8, &off, "buffer offset") < 0 ||
	    lw_rd_string(r, name, sizeof(name), "buffer name") < 0 ||
	    lw_rd_string(r, clk, sizeof(clk), "buffer clock") < 0 ||
	    lw_rd_le(r, 4, &ps, "buffer page size") < 0 ||
	    lw_rd_size(r, 4, &cpus, MAX_CPUS, "buffer cpu count") < 0)
		return -1;
	if (ps != r->info->page_size)
		return error("%s: byte %llu: buffer %s has %llu-byte pages, the file %u", r->path,
			     (unsigned long long)r->off, name, (unsigned long long)ps,
			     r->info->page_size);
	if (!name[0]) {
		take_clock(r, clk);
		if ((int)cpus > r->info->cpus)
			r->info->cpus = (int)cpus;
	}
	(*nbuf)++;
	for (uint64_t c = 0; c < cpus; c++) {
		uint64_t id, o, s, here;

		if (lw_rd_le(r, 4, &id, "cpu id") < 0 || lw_rd_le(r, 8, &o, "cpu data offset") < 0 ||
		    lw_rd_le(r, 8, &s, "cpu data size") < 0)
			return -1;
		if (id >= MAX_CPUS)
			return error("%s: byte %llu: cpu id %llu", r->path,
				     (unsigned long long)(r->off - 20), (unsigned long long)id);
		here = r->off;
		if (check_pages(r, id, o, s) < 0 || lw_rd_seek(r, here, "option") < 0)
			return -1;
	}
	if (r->off > optend)
		return error("%s: byte %llu: buffer option longer than its size", r->path,
			     (unsigned long long)r->off);
	/* the flyrecord section itself: its header in the file */
	{
		uint64_t save = r->off, end = r->end;

		if (v7_section(r, off, LW_TDOPT_BUFFER, "buffer section") < 0)
			return -1;
		r->end = end;
		return lw_rd_seek(r, save, "option");
	}
}

static int check_v7(struct lw_rd *r)
{
	char comp[64], cver[64];
	uint64_t next, sections[V7_BUFFER_TEXT + 1] = { 0 };
	int nsec = 0, nbuf = 0;

	if (check_page_size(r) < 0 || lw_rd_string(r, comp, sizeof(comp), "compression name") < 0 ||
	    lw_rd_string(r, cver, sizeof(cver), "compression version") < 0)
		return -1;
	if (strcmp(comp, "none"))
		return error("%s: compressed (%s) version 7 trace files are not read; "
			     "'trace-cmd convert --compression none' makes one that is",
			     r->path, printable(comp, strlen(comp)) ? comp : "?");
	if (lw_rd_le(r, 8, &next, "options offset") < 0)
		return -1;
	r->info->cpus = 0;
	r->long_size = 8;
	while (next) {
		if (++nsec > MAX_SECTIONS)
			return error("%s: more than %d options sections (a loop?)", r->path,
				     MAX_SECTIONS);
		if (v7_section(r, next, 0, "options section") < 0)
			return -1;
		next = 0;
		for (;;) {
			uint64_t id, n, end;

			if (lw_rd_le(r, 2, &id, "option id") < 0 ||
			    lw_rd_size(r, 4, &n, MAX_OPTION, "option size") < 0)
				return -1;
			end = r->off + n;
			if (n > r->end - r->off)
				return lw_rd_bytes(r, NULL, n, "option");
			if (id == LW_TDOPT_DONE) {
				if (n != 8 || lw_rd_le(r, 8, &next, "next options offset") < 0)
					return error("%s: byte %llu: bad end of options", r->path,
						     (unsigned long long)r->off);
				break;
			}
			if (id >= V7_HEADER_INFO && id <= V7_CMDLINES) {
				if (n != 8 || lw_rd_le(r, 8, &sections[id], "section offset") < 0)
					return error("%s: byte %llu: bad section option", r->path,
						     (unsigned long long)r->off);
			} else if (id == LW_TDOPT_BUFFER) {
				if (v7_buffer(r, end, &nbuf) < 0)
					return -1;
			} else if (id == LW_TDOPT_CPUCOUNT && n == 4) {
				uint64_t c;

				if (lw_rd_size(r, 4, &c, MAX_CPUS, "cpu count") < 0)
					return -1;
				if ((int)c > r->info->cpus)
					r->info->cpus = (int)c;
			} else if (id == V7_BUFFER_TEXT) {
				return error("%s: a latency-tracer trace (no per-CPU data) is not read",
					     r->path);
			} else if (check_option(r, id, n) < 0) {
				return -1;
			}
			if (lw_rd_seek(r, end, "option") < 0)
				return -1;
		}
	}
	if (!sections[V7_HEADER_INFO])
		return error("%s: no header_page and header_event section", r->path);
	/* header_page first: it gives the long size the pages are read with;
	 * the pages were checked with 8, which a 4-byte kernel's pass too */
	if (v7_section(r, sections[V7_HEADER_INFO], V7_HEADER_INFO, "header section") < 0 ||
	    rd_header_text(r, "header_page", 12) < 0 || rd_header_text(r, "header_event", 13) < 0)
		return -1;
	if ((sections[V7_FTRACE_EVENTS] &&
	     (v7_section(r, sections[V7_FTRACE_EVENTS], V7_FTRACE_EVENTS, "ftrace formats") < 0 ||
	      check_formats(r) < 0)) ||
	    (sections[V7_EVENT_FORMATS] &&
	     (v7_section(r, sections[V7_EVENT_FORMATS], V7_EVENT_FORMATS, "event formats") < 0 ||
	      check_systems(r) < 0)) ||
	    (sections[V7_KALLSYMS] &&
	     (v7_section(r, sections[V7_KALLSYMS], V7_KALLSYMS, "kallsyms") < 0 ||
	      check_kallsyms(r) < 0)) ||
	    (sections[V7_PRINTK] &&
	     (v7_section(r, sections[V7_PRINTK], V7_PRINTK, "printk formats") < 0 ||
	      check_printk(r) < 0)) ||
	    (sections[V7_CMDLINES] &&
	     (v7_section(r, sections[V7_CMDLINES], V7_CMDLINES, "cmdlines") < 0 ||
	      check_cmdlines(r) < 0)))
		return -1;
	r->end = 0;
	if (!nbuf)
		return error("%s: no trace data (no buffer option)", r->path);
	if (r->info->cpus <= 0)
		return error("%s: no CPU count", r->path);
	return 0;
}

int lw_tracedat_check_info(const char *path, struct lw_tracedat_info *info)
{
	int fd = lw_in_open(path, info->open_flags, 0, NULL), ret;

	if (fd < 0)
		return -1;
	ret = lw_tracedat_check_fd(fd, path, info);
	close(fd);
	return ret;
}

int lw_tracedat_check_fd(int fd, const char *path, struct lw_tracedat_info *info)
{
	struct lw_rd r = { .path = path, .info = info, .long_size = 8 };
	struct stat st;
	char magic[10], ver[16];
	unsigned char el[2];
	int ret, want = info->want_ranges, flags = info->open_flags, dfd;

	memset(info, 0, sizeof(*info));
	info->want_ranges = want;
	info->open_flags = flags;
	info->cpus = -1;

	/* a reading of our own, from the start, whoever reads @fd after */
	dfd = open_dup(fd);
	r.f = dfd < 0 ? NULL : fdopen(dfd, "rb");
	if (!r.f) {
		if (dfd >= 0)
			close(dfd);
		return error_errno("cannot read %s", path);
	}
	if (fstat(fileno(r.f), &st) < 0) {
		fclose(r.f);
		return error_errno("cannot stat %s", path);
	}
	if (!S_ISREG(st.st_mode)) {
		fclose(r.f);
		return error("%s: not a regular file", path);
	}
	r.size = (uint64_t)st.st_size;
	ret = lw_rd_bytes(&r, magic, 10, "magic");
	if (!ret && memcmp(magic, "\x17\x08\x44tracing", 10))
		ret = error("%s: not a trace-cmd trace.dat file (bad magic)", path);
	if (!ret)
		ret = lw_rd_string(&r, ver, sizeof(ver), "version");
	if (!ret)
		ret = lw_rd_bytes(&r, el, 2, "endianness and long size");
	if (!ret && (el[0] > 1 || (el[1] != 4 && el[1] != 8)))
		ret = error("%s: byte %llu: bad endianness/long size %u/%u", path,
			    (unsigned long long)(r.off - 2), el[0], el[1]);
	if (!ret && el[0] != 0)
		ret = error("%s: big-endian trace files are not supported", path);
	if (!ret) {
		char *end;
		long v = strtol(ver, &end, 10);

		info->version = (int)v;
		if (*end || end == ver || v < 6 || v > 7)
			ret = error("%s: unsupported trace.dat version '%.8s' (6 and 7 are read)", path,
				    printable(ver, strlen(ver)) ? ver : "?");
		else if (v == 6)
			ret = check_v6(&r);
		else
			ret = check_v7(&r);
	}
	fclose(r.f);
	if (ret < 0 || !want) {
		free(info->cpu_off);
		free(info->cpu_size);
		info->cpu_off = info->cpu_size = NULL;
	}
	return ret;
}
