// SPDX-License-Identifier: GPL-2.0-only
/* A LAVA server's REST API through curl (cmd/lava_api.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/lava_api.h"
#include "lib/error.h"
#include "lib/input.h"
#include "lib/rundir.h"
#include "lib/spawn.h"
#include "lib/timeutil.h"

#define LW_LAVA_API "api/v0.2/"

static int token_chars_ok(const char *t)
{
	return *t && strspn(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
		     strlen(t);
}

static int read_token(struct lw_lava *l, const char *file)
{
	char buf[512];
	FILE *f = fopen(file, "re");
	size_t n;

	if (!f)
		return error_errno("cannot read the token file %s", file);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	buf[strcspn(buf, "\r\n")] = 0;
	if (strlen(buf) >= sizeof(l->token) || !token_chars_ok(buf))
		return error("%s: not a LAVA API token (one line of letters, digits, '.', '_', '-')",
			     file);
	strcpy(l->token, buf);
	return 0;
}

int lw_lava_init(struct lw_lava *l, const char *url, const char *token_file, const char *lab)
{
	const char *tmp = getenv("TMPDIR");

	memset(l, 0, sizeof(*l));
	l->timeout_ns = 120 * 1000000000ULL;
	if (!url)
		url = getenv("LAVA_URL");
	if (!url || !*url)
		return error("no LAVA server: give --url URL or set LAVA_URL");
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
		return error("--url %s: not an http:// or https:// URL", url);
	if (strlen(url) + 2 > sizeof(l->url))
		return error("--url: too long");
	snprintf(l->url, sizeof(l->url), "%s%s", url, url[strlen(url) - 1] == '/' ? "" : "/");
	if (token_file) {
		if (read_token(l, token_file) < 0)
			return -1;
	} else if (getenv("LAVA_TOKEN") && *getenv("LAVA_TOKEN")) {
		const char *t = getenv("LAVA_TOKEN");

		if (strlen(t) >= sizeof(l->token) || !token_chars_ok(t))
			return error("LAVA_TOKEN: not a LAVA API token");
		strcpy(l->token, t);
	} else if (getenv("LAVA_TOKEN_FILE") && *getenv("LAVA_TOKEN_FILE")) {
		if (read_token(l, getenv("LAVA_TOKEN_FILE")) < 0)
			return -1;
	} else {
		return error("no LAVA API token: give --token-file FILE, or set LAVA_TOKEN or "
			     "LAVA_TOKEN_FILE");
	}
	if (!lab)
		lab = getenv("LAVA_LAB");
	snprintf(l->lab, sizeof(l->lab), "%s", lab && *lab ? lab : "lava");
	snprintf(l->scratch, sizeof(l->scratch), "%s/latwatt-lab.XXXXXX",
		 tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (!mkdtemp(l->scratch)) {
		l->scratch[0] = 0;
		return error_errno("cannot create a scratch directory in %s", tmp ? tmp : "/tmp");
	}
	return 0;
}

void lw_lava_free(struct lw_lava *l)
{
	char p[PATH_MAX];

	if (!l->scratch[0])
		return;
	for (const char *const *f = (const char *const[]){ "in.json", "out", "log", "up.tar.gz", NULL }; *f; f++) {
		snprintf(p, sizeof(p), "%s/%s", l->scratch, *f);
		unlink(p);
	}
	rmdir(l->scratch);
	explicit_bzero(l->token, sizeof(l->token));
	l->scratch[0] = 0;
}

int (*lw_lava_answer)(const char *path, const char *body, const char *out, long *status);

int lw_lava_request(struct lw_lava *l, const char *path, const char *body, const char *out,
		    long *status)
{
	char url[1024], in[PATH_MAX], code[64] = "", cfg[512], how[PATH_MAX + 2], maxt[32];
	const char *argv[24];
	struct lw_child c = { 0 };
	int n = 0, p[2], rc;
	size_t len;

	if ((size_t)snprintf(url, sizeof(url), "%s" LW_LAVA_API "%s", l->url, path) >= sizeof(url))
		return error("%s: URL too long", path);
	if (lw_lava_answer)
		return lw_lava_answer(path, body, out, status);
	snprintf(maxt, sizeof(maxt), "%llu", (unsigned long long)(l->timeout_ns / 1000000000ULL));
	argv[n++] = "curl";
	argv[n++] = "--silent";
	argv[n++] = "--show-error";
	argv[n++] = "--max-time";
	argv[n++] = maxt;
	argv[n++] = "--config";
	argv[n++] = "-";	/* the token's header, from stdin */
	argv[n++] = "--output";
	argv[n++] = out;
	argv[n++] = "--write-out";
	argv[n++] = "%{http_code}";
	if (body) {
		FILE *f;

		snprintf(in, sizeof(in), "%s/in.json", l->scratch);
		unlink(in);
		f = fopen(in, "wxe");
		if (!f || fputs(body, f) == EOF || fclose(f) == EOF)
			return error_errno("cannot write %s", in);
		snprintf(how, sizeof(how), "@%s", in);
		argv[n++] = "--header";
		argv[n++] = "Content-Type: application/json";
		argv[n++] = "--data-binary";
		argv[n++] = how;
	}
	argv[n++] = "--";
	argv[n++] = url;
	argv[n] = NULL;
	len = (size_t)snprintf(cfg, sizeof(cfg), "header = \"Authorization: Token %s\"\n", l->token);
	if (pipe2(p, O_CLOEXEC) < 0)
		return error_errno("pipe");
	/* a few hundred bytes: the pipe holds them before curl reads */
	if (write(p[1], cfg, len) != (ssize_t)len) {
		close(p[0]);
		close(p[1]);
		return error_errno("cannot give curl its config");
	}
	close(p[1]);
	explicit_bzero(cfg, sizeof(cfg));
	c.argv = argv;
	c.in = p[0];
	c.err = 0;
	c.timeout_ns = l->timeout_ns + 10 * 1000000000ULL;
	c.sig_default = LW_SIG_STOPS;
	c.quiet = 1;
	rc = lw_child_capture(&c, code, sizeof(code));
	close(p[0]);
	if (c.fail_step != LW_CHILD_STARTED) {
		errno = c.fail_errno;
		return c.fail_step == LW_CHILD_EXEC && c.fail_errno == ENOENT
			       ? error("curl not found: install curl (scripts/deps-lab.txt)")
			       : error_errno("cannot run curl");
	}
	if (rc != 0) {
		char st[64];

		lw_child_describe(c.status, st, sizeof(st));
		return error("%s: no answer (curl %s)", url, st);
	}
	*status = strtol(code, NULL, 10);
	return 0;
}

json_t *lw_lava_json(struct lw_lava *l, const char *path, const char *body)
{
	char out[PATH_MAX], words[200] = "";
	json_t *j;
	long st;

	snprintf(out, sizeof(out), "%s/out", l->scratch);
	if (lw_lava_request(l, path, body, out, &st) < 0)
		return NULL;
	if (st < 200 || st > 299) {
		FILE *f = fopen(out, "re");

		if (f) {
			size_t n = fread(words, 1, sizeof(words) - 1, f);

			words[n] = 0;
			fclose(f);
			for (char *c = words; *c; c++)
				if (*c == '\n' || *c == '\r' || (unsigned char)*c < 32)
					*c = ' ';
			if (words[0] == '<')	/* an HTML page: its words are no help */
				words[0] = 0;
		}
		error("%s%s%s: HTTP %ld%s%s", l->url, LW_LAVA_API, path, st, *words ? ": " : "",
		      words);
		return NULL;
	}
	j = lw_json_load_flags(out, 0, 64 << 20);
	if (!j)
		error("%s%s%s: the answer is not JSON", l->url, LW_LAVA_API, path);
	return j;
}

/* ---- the console upload ---------------------------------------------- */

static int b64v(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

struct b64 {
	unsigned acc;
	int bits, pad;
	uint64_t bytes;
};

/* Decode the base64 of @s into @out; -1 on a character that is not. */
static int b64_line(struct b64 *b, const char *s, FILE *out)
{
	for (; *s; s++) {
		int v;

		if (*s == ' ' || *s == '\t' || *s == '\r')
			continue;
		if (*s == '=') {
			b->pad++;
			continue;
		}
		if (b->pad || (v = b64v((unsigned char)*s)) < 0)
			return -1;
		b->acc = (b->acc << 6) | (unsigned)v;
		b->bits += 6;
		if (b->bits >= 8) {
			b->bits -= 8;
			if (fputc((int)((b->acc >> b->bits) & 0xff), out) == EOF)
				return -2;
			b->bytes++;
		}
	}
	return 0;
}

/* The console text of one log line: a LAVA record's "msg" when its "lvl" is
 * "target", NULL for other records; a line that is no record as it is.
 * @j holds the parsed record (to be freed). */
static const char *console_text(char *line, json_t **j)
{
	char *s = line;

	*j = NULL;
	line[strcspn(line, "\r\n")] = 0;
	while (*s == '-' || *s == ' ')
		s++;
	if (*s == '{' && strstr(s, "\"lvl\"")) {
		const char *lvl;

		*j = json_loads(s, 0, NULL);
		lvl = json_string_value(json_object_get(*j, "lvl"));
		if (!lvl || strcmp(lvl, "target"))
			return NULL;
		return json_string_value(json_object_get(*j, "msg"));
	}
	return line;
}

int lw_lava_log_upload(FILE *log, const char *what, FILE *out, char *name, size_t len)
{
	char *line = NULL;
	size_t cap = 0;
	uint64_t size = 0, lineno = 0;
	struct b64 b = { 0 };
	int in = 0, ret = 0;
	json_t *j = NULL;

	while (getline(&line, &cap, log) >= 0) {
		const char *t;

		lineno++;
		json_decref(j);
		t = console_text(line, &j);
		if (!t)
			continue;
		if (!in) {
			char n[256];
			unsigned long long sz;
			char end;

			if (strncmp(t, "latwatt-upload-begin ", 21))
				continue;
			if (sscanf(t + 21, "%255s %llu%c", n, &sz, &end) != 2 || strchr(n, '/') ||
			    n[0] == '.') {
				ret = error("%s:%llu: a malformed upload line", what,
					    (unsigned long long)lineno);
				break;
			}
			snprintf(name, len, "%s", n);
			size = sz;
			in = 1;
			continue;
		}
		if (!strncmp(t, "latwatt-upload-end", 18)) {
			in = 2;
			break;
		}
		if (!strncmp(t, "<LAVA_SIGNAL_", 13))
			continue;	/* the wrapper's pacing signals */
		if (b64_line(&b, t, out) < 0) {
			ret = error("%s:%llu: %s is not base64 there", what,
				    (unsigned long long)lineno, name);
			break;
		}
	}
	json_decref(j);
	free(line);
	if (ret < 0)
		return -1;
	if (!in)
		return 0;
	if (in == 1)
		return error("%s: %s has no end line (the log stops inside it)", what, name);
	if (fflush(out) == EOF)
		return error_errno("cannot write the upload of %s", what);
	if (b.bytes != size)
		return error("%s: %s came back with %llu bytes of %llu (lines lost on the console?)",
			     what, name, (unsigned long long)b.bytes, (unsigned long long)size);
	return 1;
}
