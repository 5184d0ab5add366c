// SPDX-License-Identifier: GPL-2.0-only
/* latwatt lab: the run directory out of a LAVA job log (the console
 * upload), and where the server and its token come from. */
#include <stdlib.h>
#include <string.h>

#include "tests/unit/lw_test.h"
#include "cmd/commands.h"
#include "cmd/lava_api.h"

/* "hello, lab\n" is aGVsbG8sIGxhYgo= (11 bytes) */
static const char good[] =
	"- {\"dt\": \"x\", \"lvl\": \"info\", \"msg\": \"latwatt-upload-begin fake 3\"}\n"
	"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"booting\"}\n"
	"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"latwatt-upload-begin run.tar.gz 11\"}\n"
	"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"aGVsbG8s\"}\n"
	"- {\"dt\": \"x\", \"lvl\": \"debug\", \"msg\": \"not console: ignored\"}\n"
	"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"<LAVA_SIGNAL_LATWATT_UPLOAD 200>\"}\n"
	"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"IGxhYgo=\\r\"}\n"
	"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"latwatt-upload-end run.tar.gz\"}\n";

static int extract(const char *log, char *out, size_t *n, char *name)
{
	FILE *in = fmemopen((void *)log, strlen(log), "r"), *o = tmpfile();
	int r;

	assert_non_null(in);
	assert_non_null(o);
	r = lw_lava_log_upload(in, "job.log", o, name, 64);
	rewind(o);
	*n = fread(out, 1, 63, o);
	out[*n] = 0;
	fclose(in);
	fclose(o);
	return r;
}

static void test_upload(void **state)
{
	char out[64], name[64] = "", bad[2048];
	size_t n;

	(void)state;
	assert_int_equal(extract(good, out, &n, name), 1);
	assert_string_equal(name, "run.tar.gz");
	assert_int_equal(n, 11);
	assert_string_equal(out, "hello, lab\n");
	/* a plain console log */
	assert_int_equal(extract("latwatt-upload-begin r.tar.gz 3\nYWJj\nlatwatt-upload-end r\n",
				 out, &n, name), 1);
	assert_string_equal(out, "abc");
	/* none */
	assert_int_equal(extract("- {\"lvl\": \"target\", \"msg\": \"hello\"}\n", out, &n, name), 0);
	/* a line lost on the way */
	snprintf(bad, sizeof(bad), "%s", good);
	memcpy(strstr(bad, "aGVsbG8s"), "        ", 8);
	assert_error(extract(bad, out, &n, name) < 0, "run.tar.gz came back with 5 bytes of 11");
	/* no end */
	assert_error(extract("latwatt-upload-begin r.tar.gz 3\nYWJj\n", out, &n, name) < 0,
		     "r.tar.gz has no end line");
	/* not base64 */
	assert_error(extract("latwatt-upload-begin r.tar.gz 3\nYW*j\nlatwatt-upload-end r\n", out, &n,
			     name) < 0, "job.log:2: r.tar.gz is not base64 there");
	/* a name that would leave the directory */
	assert_error(extract("latwatt-upload-begin ../x 3\nYWJj\nlatwatt-upload-end r\n", out, &n,
			     name) < 0, "job.log:1: a malformed upload line");
}

static void test_init(void **state)
{
	struct lw_lava l;
	char *dir = lw_test_tmpdir(), tf[256];
	FILE *f;

	(void)state;
	unsetenv("LAVA_URL");
	unsetenv("LAVA_TOKEN");
	unsetenv("LAVA_TOKEN_FILE");
	unsetenv("LAVA_LAB");
	assert_error(lw_lava_init(&l, NULL, NULL, NULL) < 0, "no LAVA server: give --url URL");
	assert_error(lw_lava_init(&l, "ftp://x/", NULL, NULL) < 0, "not an http:// or https:// URL");
	assert_error(lw_lava_init(&l, "http://x", NULL, NULL) < 0, "no LAVA API token");
	setenv("LAVA_TOKEN", "abc def", 1);
	assert_error(lw_lava_init(&l, "http://x", NULL, NULL) < 0, "LAVA_TOKEN: not a LAVA API token");
	setenv("LAVA_TOKEN", "abc123", 1);
	assert_int_equal(lw_lava_init(&l, "http://x", NULL, NULL), 0);
	assert_string_equal(l.url, "http://x/");
	assert_string_equal(l.token, "abc123");
	assert_string_equal(l.lab, "lava");
	lw_lava_free(&l);
	/* a file beats the environment */
	snprintf(tf, sizeof(tf), "%s/token", dir);
	f = fopen(tf, "w");
	fputs("fromfile42\n", f);
	fclose(f);
	assert_int_equal(lw_lava_init(&l, "https://lab.example/", tf, "farm"), 0);
	assert_string_equal(l.token, "fromfile42");
	assert_string_equal(l.lab, "farm");
	lw_lava_free(&l);
	unsetenv("LAVA_TOKEN");
	lw_test_rmdir(dir);
}

static void test_usage(void **state)
{
	char *none[] = { "lab", "submit", "-o", "/nonexistent/j.json", NULL };
	char *what[] = { "lab", "frob", NULL };
	char *two[] = { "lab", "wait", "a.json", "b.json", NULL };
	char *twice[] = { "lab", "submit", "-o", "j.json", "a=boards/lava/jobs/qemu-x86_64.yaml", "a=y.yaml", NULL };

	(void)state;
	assert_error(cmd_lab(4, none) == LW_EXIT_ERROR, "submit: give the jobs, NAME=JOB.yaml");
	assert_error(cmd_lab(2, what) == LW_EXIT_ERROR, "unknown subcommand 'frob'");
	assert_error(cmd_lab(4, two) == LW_EXIT_ERROR, "lab wait: give one JOBS.json");
	assert_error(cmd_lab(6, twice) == LW_EXIT_ERROR, "kernel name 'a' given twice");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upload),
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_usage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
