/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A LAVA server's REST API (api/v0.2) for `latwatt lab`, through curl
 * (lib/spawn.h: an argv, no shell).  The API token never goes on a command
 * line: curl reads it from its standard input as a config line ("-K -").
 * Bodies go through files in a private scratch directory (mode 0700).
 */
#ifndef LW_LAVA_API_H
#define LW_LAVA_API_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

struct lw_lava {
	char url[512];		/* the server, ending in '/' */
	char token[256];
	char lab[64];		/* the lab's name, for records and messages */
	char scratch[256];	/* the private directory, removed by lw_lava_free() */
	uint64_t timeout_ns;	/* of one request */
};

/*
 * The server at @url (NULL: $LAVA_URL), its token read from @token_file
 * (NULL: $LAVA_TOKEN, else the file $LAVA_TOKEN_FILE), the lab named @lab
 * (NULL: $LAVA_LAB, else "lava").  -1 after error() naming what is missing.
 */
int lw_lava_init(struct lw_lava *l, const char *url, const char *token_file, const char *lab);
void lw_lava_free(struct lw_lava *l);

/* GET (or POST @body, JSON, when not NULL) api/v0.2/@path into the file
 * @out (created or truncated); the HTTP status in *@status.  -1 after
 * error() when no answer came (curl failed: the server is not there). */
int lw_lava_request(struct lw_lava *l, const char *path, const char *body, const char *out,
		    long *status);
/* Where lw_lava_request() gets its answers instead of the server, when set
 * (fuzz/fuzz_lava.c plays a server through it): @path's answer written to
 * @out, its status in *@status; 0, or -1 after error(). */
extern int (*lw_lava_answer)(const char *path, const char *body, const char *out,
			     long *status);

/* The same, the answer read as JSON; an HTTP status other than 2xx is an
 * error() naming it and the server's words.  NULL after error(). */
json_t *lw_lava_json(struct lw_lava *l, const char *path, const char *body);

/*
 * The run directory a job sent over its console (boards/lava/latwatt-lava.sh
 * --upload console: base64 lines between 'latwatt-upload-begin NAME SIZE'
 * and 'latwatt-upload-end NAME') out of the job log @log (LAVA's log: one
 * "- {dt, lvl, msg}" line per record; or a plain console log), decoded into
 * @out (a tar.gz).  Its NAME in @name.  1 found and whole, 0 none in the
 * log, -1 after error() (damaged: lines lost, bad base64; @what names the
 * log in messages).
 */
int lw_lava_log_upload(FILE *log, const char *what, FILE *out, char *name, size_t len);

#endif
