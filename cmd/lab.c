// SPDX-License-Identifier: GPL-2.0-only
/*
 * latwatt lab submit|wait|fetch: jobs in a LAVA lab through its REST API
 * (cmd/lava_api.h), their run directories brought back as directories of
 * repeats that compare reads.
 *
 * submit sends each kernel's job (a rendered LAVA job definition) --repeat
 * times, interleaved (A1 B1 A2 B2 ...), so that the lab's scheduler puts
 * consecutive jobs on different idle devices and each kernel's repeats on
 * several; JOBS.json records them.  wait follows them to the end.  fetch
 * takes each complete job's run directory out of its log (the console
 * upload of boards/lava/latwatt-lava.sh) into OUT/KERNEL/run-NN, with the
 * lab, job and device in its manifest ("lab").  A job that did not
 * complete (boot failure, timeout, infrastructure error, canceled) is
 * reported as such and gives no run: it is never counted as a result.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "analysis/db.h"
#include "cmd/commands.h"
#include "cmd/lab.h"
#include "cmd/lava_api.h"
#include "lib/error.h"
#include "lib/input.h"
#include "lib/json.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/safefile.h"
#include "lib/sort.h"
#include "lib/spawn.h"
#include "lib/timeutil.h"

#define NS_PER_SEC 1000000000ULL
#define JOBS_SCHEMA "latwatt-lab-jobs"
#define JOBS_VERSION 1
#define MAX_KERNELS 32
#define MAX_REPEAT 99

static const char usage[] =
"usage: latwatt lab submit [OPTIONS] -o JOBS.json NAME=JOB.yaml [NAME=JOB.yaml...]\n"
"       latwatt lab wait [OPTIONS] JOBS.json\n"
"       latwatt lab fetch [OPTIONS] JOBS.json -o DIR\n"
"\n"
"Run latwatt in a LAVA lab and bring the runs home.  submit sends each\n"
"kernel's job NAME=JOB.yaml (a LAVA job definition, rendered: scripts/\n"
"lava-render job boards/lava/jobs/qemu-x86_64.yaml kernel_url=... upload=console)\n"
"--repeat times, interleaved (A1 B1 A2 B2 ...), each kernel's repeats going\n"
"round the lab's devices (where each device has a tag of its own name, as\n"
"scripts/lava-lab tags them; else the lab's scheduler places the jobs), and\n"
"records the jobs in JOBS.json.  wait\n"
"follows them to the end.  fetch takes each complete job's run directory\n"
"(sent over the console: the job's UPLOAD=console) into DIR/NAME/run-NN, with\n"
"the lab, job id and device in its manifest: 'latwatt compare DIR/A DIR/B'\n"
"(or 'latwatt compare --runner lava JOBS.json', which fetches them itself)\n"
"compares the kernels.  A job that did not complete (boot failure, timeout,\n"
"infrastructure error, canceled) is reported as such and gives no run.\n"
"\n"
"  -o, --output FILE|DIR   submit: the jobs file; fetch: where the runs go\n"
"  -r, --repeat N          submit: jobs of each kernel (default 1)\n"
"      --url URL           the LAVA server (default $LAVA_URL; wait and fetch:\n"
"                          the one JOBS.json names)\n"
"      --token-file FILE   the API token (default $LAVA_TOKEN, else the file\n"
"                          $LAVA_TOKEN_FILE); never on the command line\n"
"      --lab NAME          the lab's name in records (default $LAVA_LAB, or lava)\n"
"      --timeout TIME      wait: give up after TIME (default 30m)\n"
"      --interval TIME     wait: between two looks (default 5s)\n"
"  -q, --quiet             wait: no progress lines\n"
"      --results           wait, fetch: print each complete job's test cases as\n"
"                          LAVA recorded them (budgets and figures, with their\n"
"                          measurements and units); a failed one is a failure\n"
"      --db PATH           fetch: store each run fetched in the results store\n"
"                          PATH (latwatt db), labelled with its lab, job and\n"
"                          kernel; a run stored before keeps its db:ID\n"
"  -h, --help              this text\n"
"\n"
"Exit status: 0 done (wait: every job complete; fetch: every job's run\n"
"fetched); 1 a job did not complete or gave no run (named), or with\n"
"--results a test case failed (a budget broken); 2 error (the\n"
"server unreachable, bad input, wait's timeout).\n";

struct opts {
	const char *output, *url, *token_file, *lab, *db;
	uint64_t repeat, timeout_ns, interval_ns;
	int quiet, results;
	FILE *summary;				/* wait's last line (NULL: stdout) */
	volatile sig_atomic_t *stop;		/* wait: give up when it is set */
};

/* ---- the jobs file ---------------------------------------------------- */

static int name_ok(const char *n)
{
	return *n && *n != '.' && strlen(n) < 64 &&
	       strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-") ==
		       strlen(n);
}

/* JOBS.json, checked: its jobs each with an id, a kernel name and a repeat. */
static json_t *jobs_load(const char *path)
{
	json_t *d = lw_json_load(path), *jobs, *j;
	const char *schema;
	size_t i;

	if (!d)
		return NULL;
	schema = json_string_value(json_object_get(d, "schema"));
	jobs = json_object_get(d, "jobs");
	if (!schema || strcmp(schema, JOBS_SCHEMA) || !json_is_array(jobs) ||
	    !json_is_string(json_object_get(d, "url"))) {
		json_decref(d);
		error("%s: not a jobs file of 'latwatt lab submit' (schema \"%s\")", path, JOBS_SCHEMA);
		return NULL;
	}
	json_array_foreach(jobs, i, j) {
		const char *k = json_string_value(json_object_get(j, "kernel"));

		if (!json_is_integer(json_object_get(j, "id")) || !k || !name_ok(k) ||
		    !json_is_integer(json_object_get(j, "repeat"))) {
			json_decref(d);
			error("%s: jobs[%zu]: needs an integer id and repeat and a kernel name", path, i);
			return NULL;
		}
	}
	return d;
}

static const char *job_kernel(const json_t *j)
{
	return json_string_value(json_object_get(j, "kernel"));
}

static long long job_id(const json_t *j)
{
	return (long long)json_integer_value(json_object_get(j, "id"));
}

static long long job_repeat(const json_t *j)
{
	return (long long)json_integer_value(json_object_get(j, "repeat"));
}

/* ---- submit ----------------------------------------------------------- */

#define MAX_DEVICES 64

/* The value of the top-level key @key of the job definition @def, into @buf
 * ("" when absent). */
static const char *top_key(const char *def, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	buf[0] = 0;
	for (const char *l = def; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *v;
		size_t n;

		if (strncmp(l, key, kl) || l[kl] != ':')
			continue;
		v = l + kl + 1;
		v += strspn(v, " \t\"'");
		n = strcspn(v, " \t\"'\r\n#");
		snprintf(buf, len, "%.*s", (int)n, v);
		return buf;
	}
	return buf;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * The lab's devices of type @type that a job can be placed on: health Good
 * and tagged with their own hostname (scripts/lava-lab tags its devices
 * so), in name order, into @dev.  How many; -1 after error().
 */
static int own_tag_devices(struct lw_lava *l, const char *type, char (*dev)[96], size_t max)
{
	char path[256];
	json_t *tags = lw_lava_json(l, "tags/?limit=1000", NULL), *devs, *d;
	size_t i, n = 0;

	if (!tags)
		return -1;
	snprintf(path, sizeof(path), "devices/?device_type=%s&limit=1000", type);
	devs = lw_lava_json(l, path, NULL);
	if (!devs) {
		json_decref(tags);
		return -1;
	}
	json_array_foreach(json_object_get(devs, "results"), i, d) {
		const char *host = lw_jstr(d, "hostname", "");
		json_t *tid, *t;
		size_t k, m;

		if (strcmp(lw_jstr(d, "health", ""), "Good") || strlen(host) >= 96 || n == max)
			continue;
		json_array_foreach(json_object_get(d, "tags"), k, tid)
			json_array_foreach(json_object_get(tags, "results"), m, t)
				if (json_equal(json_object_get(t, "id"), tid) &&
				    !strcmp(lw_jstr(t, "name", ""), host)) {
					snprintf(dev[n++], 96, "%s", host);
					goto next;
				}
next:
		;
	}
	lw_qsort(dev, n, sizeof(*dev), by_name);
	json_decref(tags);
	json_decref(devs);
	return (int)n;
}

int lw_lab_submit(struct lw_lava *l, const struct lw_lab_job *job, size_t nk, unsigned first,
		  unsigned repeat, const char *jobs_out)
{
	static char dev[MAX_DEVICES][96];
	char dtype[64] = "";
	json_t *doc, *jobs, *ts;
	int ret = -1, ndev = 0;

	doc = json_pack("{s:s, s:i, s:s, s:s, s:[]}", "schema", JOBS_SCHEMA, "version", JOBS_VERSION,
			"lab", l->lab, "url", l->url, "jobs");
	ts = lw_json_timestamp(NULL);
	if (!doc || !ts || json_object_set_new(doc, "submitted", ts) < 0) {
		json_decref(doc);
		json_decref(ts);
		return error("out of memory");
	}
	jobs = json_object_get(doc, "jobs");
	/* Placed when the lab's devices have tags of their own names: kernel
	 * k's repeat r on device (k + r - 1) mod D, so that each round keeps
	 * D devices busy and each kernel's repeats go round the devices (a
	 * kernel is not confounded with a device).  Else LAVA's scheduler
	 * places them. */
	for (size_t k = 0; k < nk; k++) {
		char type[64], tags[8];

		top_key(job[k].def, "device_type", type, sizeof(type));
		if (!*type || strspn(type, "abcdefghijklmnopqrstuvwxyz0123456789_-.") != strlen(type)) {
			error("%s: no device_type", job[k].file);
			goto out;
		}
		if (k == 0) {
			snprintf(dtype, sizeof(dtype), "%s", type);
			ndev = own_tag_devices(l, type, dev, MAX_DEVICES);
			if (ndev < 0)
				goto out;
		} else if (strcmp(type, dtype)) {
			ndev = 0;	/* several device types: the scheduler's */
		}
		if (*top_key(job[k].def, "tags", tags, sizeof(tags)) || strstr(job[k].def, "\ntags:"))
			ndev = 0;	/* a job with tags of its own keeps them */
	}
	if (ndev < 2)
		note("lab %s: the jobs are placed by the lab's scheduler (fewer than two %s devices "
		     "tagged with their own names, as scripts/lava-lab tags them)", l->lab, dtype);
	/* interleaved: repeat r of every kernel before repeat r + 1 of any */
	for (unsigned r = first; r < first + repeat; r++)
		for (size_t k = 0; k < nk; k++) {
			const char *d = job[k].def;
			const char *place = ndev >= 2 ? dev[(k + r - 1) % (unsigned)ndev] : NULL;
			char *def = NULL;
			json_t *body, *ans, *ids;
			char *text;

			if (place && asprintf(&def, "%s%stags:\n- %s\n", d,
					      d[strlen(d) - 1] == '\n' ? "" : "\n", place) < 0) {
				error("out of memory");
				goto save;
			}
			body = json_pack("{s:s}", "definition", def ? def : d);
			text = body ? json_dumps(body, 0) : NULL;
			free(def);
			json_decref(body);
			if (!text) {
				error("%s: the job is not UTF-8 text", job[k].file);
				goto save;
			}
			ans = lw_lava_json(l, "jobs/", text);
			free(text);
			ids = json_object_get(ans, "job_ids");
			if (!ans || !json_is_integer(json_array_get(ids, 0))) {
				if (ans)
					error("%sapi/v0.2/jobs/: no job id in the answer", l->url);
				json_decref(ans);
				goto save;
			}
			json_array_append_new(jobs, json_pack("{s:I, s:s, s:I, s:s, s:s?}", "id",
				json_integer_value(json_array_get(ids, 0)), "kernel", job[k].name,
				"repeat", (json_int_t)r, "job_file", job[k].file, "placed_on", place));
			note("lab %s: job %lld: %s repeat %u of %u%s%s", l->lab,
			     (long long)json_integer_value(json_array_get(ids, 0)), job[k].name,
			     r, first + repeat - 1, place ? " on " : "", place ? place : "");
			json_decref(ans);
		}
	ret = 0;
save:
	/* what was submitted is recorded, also after a failure */
	if (json_array_size(jobs) && lw_json_save(doc, jobs_out) < 0)
		ret = -1;
	else if (json_array_size(jobs) && ret < 0)
		note("the %zu jobs submitted are in %s", json_array_size(jobs), jobs_out);
out:
	json_decref(doc);
	return ret;
}

static int cmd_submit(const struct opts *o, int argc, char **argv)
{
	struct lw_lava l;
	struct lw_lab_job job[MAX_KERNELS] = { { 0 } };
	char names[MAX_KERNELS][64];
	int nk = argc, ret = LW_EXIT_ERROR;

	if (!o->output)
		return error("submit: give -o JOBS.json"), LW_EXIT_ERROR;
	if (!nk)
		return error("submit: give the jobs, NAME=JOB.yaml"), LW_EXIT_ERROR;
	if (nk > MAX_KERNELS)
		return error("submit: at most %d kernels", MAX_KERNELS), LW_EXIT_ERROR;
	for (int i = 0; i < nk; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq || eq == argv[i] || eq - argv[i] >= 64) {
			error("submit: '%s' is not NAME=JOB.yaml", argv[i]);
			goto out_defs;
		}
		snprintf(names[i], sizeof(names[i]), "%.*s", (int)(eq - argv[i]), argv[i]);
		job[i].name = names[i];
		job[i].file = eq + 1;
		if (!name_ok(names[i])) {
			error("submit: kernel name '%s': letters, digits, '.', '_', '+', '-' "
			      "(not '.' first)", names[i]);
			goto out_defs;
		}
		for (int k = 0; k < i; k++)
			if (!strcmp(names[k], names[i])) {
				error("submit: kernel name '%s' given twice", names[i]);
				goto out_defs;
			}
		if (!(job[i].def = lw_lab_job_read(job[i].file, NULL, NULL)))
			goto out_defs;
	}
	if (lw_lava_init(&l, o->url, o->token_file, o->lab) < 0)
		goto out_defs;
	if (lw_lab_submit(&l, job, (size_t)nk, 1, (unsigned)o->repeat, o->output) == 0)
		ret = LW_EXIT_OK;
	lw_lava_free(&l);
out_defs:
	for (int i = 0; i < nk; i++)
		free(job[i].def);
	return ret;
}

char *lw_lab_job_read(const char *file, const char *from, const char *to)
{
	size_t len;
	char *def = lw_in_read(file, 0, 1 << 20, &len);

	if (!def)
		return NULL;
	if (strlen(def) != len || !strstr(def, "actions")) {
		error("%s: not a LAVA job definition (no 'actions')", file);
		free(def);
		return NULL;
	}
	if (from && strstr(def, from)) {
		size_t fl = strlen(from), tl = strlen(to), n = 0, at = 0;
		const char *p = def, *q;
		char *out;

		for (q = strstr(def, from); q; q = strstr(q + fl, from))
			n++;
		out = malloc(len + n * tl + 1);
		if (!out) {
			free(def);
			error("out of memory");
			return NULL;
		}
		for (; (q = strstr(p, from)); p = q + fl) {
			memcpy(out + at, p, (size_t)(q - p));
			at += (size_t)(q - p);
			memcpy(out + at, to, tl);
			at += tl;
		}
		strcpy(out + at, p);
		free(def);
		def = out;
	}
	return def;
}

/* ---- the state of jobs -------------------------------------------------- */

struct jstate {
	char state[24], health[24], device[96], comment[256];
	double start, end;	/* s since the epoch; NAN: not yet */
};

/* "2026-12-06T10:00:57.229615Z" as seconds since the epoch, NAN if not. */
static double iso_time(const char *s)
{
	struct tm tm = { 0 };
	const char *rest;
	double frac = 0;

	if (!s || !(rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)))
		return NAN;
	if (*rest == '.')
		frac = strtod(rest, NULL);
	return (double)timegm(&tm) + frac;
}

static int job_state(struct lw_lava *l, long long id, struct jstate *s)
{
	char path[64];
	json_t *j;

	snprintf(path, sizeof(path), "jobs/%lld/", id);
	j = lw_lava_json(l, path, NULL);
	if (!j)
		return -1;
	snprintf(s->state, sizeof(s->state), "%s", lw_jstr(j, "state", "unknown"));
	snprintf(s->health, sizeof(s->health), "%s", lw_jstr(j, "health", "unknown"));
	snprintf(s->device, sizeof(s->device), "%s", lw_jstr(j, "actual_device", ""));
	snprintf(s->comment, sizeof(s->comment), "%s", lw_jstr(j, "failure_comment", ""));
	s->start = iso_time(json_string_value(json_object_get(j, "start_time")));
	s->end = iso_time(json_string_value(json_object_get(j, "end_time")));
	json_decref(j);
	return 0;
}

static int finished(const struct jstate *s)
{
	return !strcmp(s->state, "Finished");
}

/* Why a finished job gave no result, in words. */
static const char *no_result_why(const struct jstate *s)
{
	if (!strcmp(s->health, "Canceled"))
		return "canceled";
	if (!strcmp(s->health, "Incomplete"))
		return "incomplete: an infrastructure or boot failure, or a timeout";
	return s->health;
}

/* Why job @id failed, as LAVA's log says in its last "job" result
 * ("Test: lava-test-shell timed out after 600 seconds"), into s->comment
 * when LAVA left no failure comment.  Quiet: the reason is a nicety. */
static void job_failure(struct lw_lava *l, long long id, struct jstate *s)
{
	char path[64], log[PATH_MAX], *line = NULL;
	size_t cap = 0;
	long st;
	FILE *f;

	if (*s->comment)
		return;
	snprintf(path, sizeof(path), "jobs/%lld/logs/", id);
	snprintf(log, sizeof(log), "%s/log", l->scratch);
	if (lw_lava_request(l, path, NULL, log, &st) < 0 || st != 200 || !(f = fopen(log, "re")))
		return;
	while (getline(&line, &cap, f) >= 0) {
		char *b = strchr(line, '{');
		json_t *j, *m;

		if (!b || !strstr(b, "\"case\": \"job\"") || !strstr(b, "error_msg"))
			continue;
		j = json_loads(b, 0, NULL);
		m = json_object_get(j, "msg");
		if (json_is_string(json_object_get(m, "error_msg")))
			snprintf(s->comment, sizeof(s->comment), "%s error: %s",
				 lw_jstr(m, "error_type", "job"), lw_jstr(m, "error_msg", ""));
		json_decref(j);
	}
	free(line);
	fclose(f);
}

/* How many of @n jobs ran at once at most (their start and end times). */
static size_t most_at_once(const struct jstate *s, size_t n)
{
	size_t best = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		if (isnan(s[i].start))
			continue;
		for (size_t j = 0; j < n; j++)
			k += !isnan(s[j].start) && s[j].start <= s[i].start &&
			     (isnan(s[j].end) || s[j].end > s[i].start);
		if (k > best)
			best = k;
	}
	return best;
}

/* ---- the test cases LAVA recorded ------------------------------------- */

/* Every result of the paged list api/v0.2/@path (LAVA pages a job's suites
 * and tests by number, 50 a page, and ignores limit=): one array, or NULL
 * after error(). */
static json_t *all_pages(struct lw_lava *l, const char *path)
{
	json_t *all = json_array();

	for (int page = 1; all; page++) {
		char p[160];
		json_t *ans;

		snprintf(p, sizeof(p), "%s?page=%d", path, page);
		if (!(ans = lw_lava_json(l, p, NULL))) {
			json_decref(all);
			return NULL;
		}
		if (json_array_extend(all, json_object_get(ans, "results")) < 0 ||
		    !json_is_string(json_object_get(ans, "next")) || page == 10000) {
			json_decref(ans);
			break;
		}
		json_decref(ans);
	}
	if (!all)
		error("out of memory");
	return all;
}

/*
 * The test cases of job @j as LAVA recorded them (api/v0.2/jobs/ID/tests/:
 * boards/lava/latwatt-lava.sh's latwatt, budgets and metrics sets, with
 * their measurements and units), one line each on stdout.  How many failed
 * (each named), or -1 after error().
 */
static int print_results(struct lw_lava *l, const json_t *j)
{
	char path[96];
	json_t *suites, *tests, *t, *su;
	size_t i, k;
	int failed = 0;

	snprintf(path, sizeof(path), "jobs/%lld/suites/", job_id(j));
	if (!(suites = all_pages(l, path)))
		return -1;
	snprintf(path, sizeof(path), "jobs/%lld/tests/", job_id(j));
	if (!(tests = all_pages(l, path))) {
		json_decref(suites);
		return -1;
	}
	json_array_foreach(tests, i, t) {
		const json_t *sid = json_object_get(t, "suite");
		const char *suite = json_is_string(sid) ? json_string_value(sid) : "?";
		const char *res = lw_jstr(t, "result", "unknown");
		const json_t *m = json_object_get(t, "measurement");
		double v = json_is_string(m) ? strtod(json_string_value(m), NULL) :
			   json_is_number(m) ? json_number_value(m) : NAN;

		json_array_foreach(suites, k, su)
			if (json_is_integer(sid) && json_equal(json_object_get(su, "id"), sid))
				suite = lw_jstr(su, "name", "?");
		printf("lab %s: job %lld (%s repeat %lld): %s/%s %s", l->lab, job_id(j), job_kernel(j),
		       job_repeat(j), suite, lw_jstr(t, "name", "?"), res);
		if (!isnan(v))
			printf(" %.6g%s%s", v, *lw_jstr(t, "unit", "") ? " " : "", lw_jstr(t, "unit", ""));
		printf("\n");
		failed += !strcmp(res, "fail");
	}
	if (!json_array_size(tests))
		printf("lab %s: job %lld (%s repeat %lld): no test cases\n", l->lab, job_id(j),
		       job_kernel(j), job_repeat(j));
	json_decref(suites);
	json_decref(tests);
	return failed;
}

/* ---- wait ------------------------------------------------------------- */

static int cmd_wait(const struct opts *o, const char *file)
{
	json_t *doc = jobs_load(file), *jobs, *j;
	struct lw_lava l;
	struct jstate *s = NULL;
	size_t n, i, done = 0, complete = 0;
	int failed = 0;
	double t0 = lw_mono_ns() / 1e9, lo = INFINITY, hi = 0;
	int ret = LW_EXIT_ERROR;
	FILE *sum = o->summary ? o->summary : stdout;

	if (!doc)
		return LW_EXIT_ERROR;
	if (lw_lava_init(&l, o->url ? o->url : lw_jstr(doc, "url", NULL), o->token_file,
			 o->lab ? o->lab : lw_jstr(doc, "lab", NULL)) < 0) {
		json_decref(doc);
		return LW_EXIT_ERROR;
	}
	jobs = json_object_get(doc, "jobs");
	n = json_array_size(jobs);
	s = calloc(n ? n : 1, sizeof(*s));
	if (!s) {
		error("out of memory");
		goto out;
	}
	while (done < n) {
		json_array_foreach(jobs, i, j) {
			struct jstate now;

			if (finished(&s[i]))
				continue;
			if (job_state(&l, job_id(j), &now) < 0)
				goto out;
			if (strcmp(now.state, s[i].state) && !o->quiet)
				note("lab %s: job %lld (%s repeat %lld): %s%s%s%s%s", l.lab, job_id(j),
				     job_kernel(j), job_repeat(j), now.state, *now.device ? " on " : "",
				     now.device, finished(&now) ? ", " : "",
				     finished(&now) ? now.health : "");
			s[i] = now;
			done += finished(&now);
		}
		if (done == n)
			break;
		if (o->stop && *o->stop) {
			error("lab %s: %zu of %zu jobs not finished when interrupted", l.lab, n - done, n);
			goto out;
		}
		if (lw_mono_ns() / 1e9 - t0 > o->timeout_ns / 1e9) {
			error("lab %s: %zu of %zu jobs not finished after %.0f s (--timeout)", l.lab,
			      n - done, n, o->timeout_ns / 1e9);
			goto out;
		}
		{
			struct timespec ts = lw_ns_to_ts(o->interval_ns);

			nanosleep(&ts, NULL);
		}
	}
	json_array_foreach(jobs, i, j) {
		if (!strcmp(s[i].health, "Complete")) {
			complete++;
			if (!isnan(s[i].start) && !isnan(s[i].end)) {
				lo = fmin(lo, s[i].end - s[i].start);
				hi = fmax(hi, s[i].end - s[i].start);
			}
		} else {
			job_failure(&l, job_id(j), &s[i]);
			note("lab %s: job %lld (%s repeat %lld) on %s: %s%s%s: no result", l.lab,
			     job_id(j), job_kernel(j), job_repeat(j), *s[i].device ? s[i].device : "no device",
			     no_result_why(&s[i]), *s[i].comment ? ": " : "", s[i].comment);
		}
	}
	json_array_foreach(jobs, i, j) {
		int r = o->results && !strcmp(s[i].health, "Complete") ? print_results(&l, j) : 0;

		if (r < 0)
			goto out;
		failed += r;
	}
	fprintf(sum, "lab %s: %zu jobs, %zu complete, %zu without a result; at most %zu ran at once",
		l.lab, n, complete, n - complete, most_at_once(s, n));
	if (complete)
		fprintf(sum, "; a job took %.0f-%.0f s", lo, hi);
	if (failed)
		fprintf(sum, "; %d test cases failed", failed);
	fprintf(sum, "\n");
	ret = complete == n && !failed ? LW_EXIT_OK : LW_EXIT_FAIL;
out:
	free(s);
	lw_lava_free(&l);
	json_decref(doc);
	return ret;
}

int lw_lab_wait(const char *jobs_file, const char *token_file, uint64_t timeout_ns,
		uint64_t interval_ns, volatile sig_atomic_t *stop)
{
	struct opts o = { .token_file = token_file, .timeout_ns = timeout_ns,
			  .interval_ns = interval_ns, .summary = stderr, .stop = stop };

	return cmd_wait(&o, jobs_file);
}

/* ---- fetch ------------------------------------------------------------ */

static int run_tar(const char *const *argv, char *buf, size_t len, const char *what)
{
	struct lw_child c = { .argv = argv, .in = LW_CHILD_NULL, .err = LW_CHILD_TO_OUT,
			      .quiet = 1, .sig_default = LW_SIG_STOPS };
	char st[64];
	int rc = lw_child_capture(&c, buf, len);

	if (c.fail_step != LW_CHILD_STARTED)
		return error("cannot run tar for %s", what);
	if (rc != 0) {
		lw_child_describe(c.status, st, sizeof(st));
		buf[strcspn(buf, "\n")] = 0;
		return error("%s: tar %s: %s", what, st, buf);
	}
	return 0;
}

/* The tar.gz @tgz holding the directory @top, unpacked into @dest (which
 * must not exist), its entries checked first: directories and regular files
 * under @top only. */
static int unpack_run(const char *tgz, const char *top, const char *dest, const char *what)
{
	static char buf[1 << 18];
	char stage[PATH_MAX + 64], from[PATH_MAX + 400];
	const char *list[] = { "tar", "-t", "-v", "-z", "-f", tgz, NULL };
	const char *x[] = { "tar", "-x", "-z", "-f", tgz, "--no-same-owner",
			    "--no-same-permissions", "-C", stage, "--", top, NULL };
	size_t tl = strlen(top);

	if (run_tar(list, buf, sizeof(buf), what) < 0)
		return -1;
	for (char *line = buf, *nl; *line; line = nl + 1) {
		char *name;

		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = 0;
		name = strrchr(line, ' ');
		if ((line[0] != '-' && line[0] != 'd') || !name || strncmp(name + 1, top, tl) ||
		    (name[1 + tl] && name[1 + tl] != '/') || strstr(name, "/../"))
			return error("%s: the upload holds '%s': refused (directories and files "
				     "under %s only)", what, line, top);
	}
	if ((size_t)snprintf(stage, sizeof(stage), "%s.partXXXXXX", dest) >= sizeof(stage))
		return error("%s: path too long", dest);
	if (!mkdtemp(stage))
		return error_errno("cannot create a directory beside %s", dest);
	if (run_tar(x, buf, sizeof(buf), what) < 0 ||
	    lw_tree_plain(stage) < 0)
		goto fail;
	snprintf(from, sizeof(from), "%s/%s", stage, top);
	if (rename(from, dest) < 0) {
		error_errno("cannot move the run to %s", dest);
		goto fail;
	}
	rmdir(stage);
	return 0;
fail:
	lw_tree_remove(stage);
	return -1;
}

/* manifest.json's "lab": where the run was made. */
static int record_lab(const char *run, const struct lw_lava *l, const json_t *j,
		      const struct jstate *s)
{
	struct lw_rundir rd = { 0 };
	json_t *o;

	if (lw_rundir_open(&rd, run) < 0)
		return -1;
	o = json_pack("{s:s, s:s, s:I, s:s, s:s, s:I, s:s, s:s}", "lab", l->lab, "url", l->url,
		      "job_id", (json_int_t)job_id(j), "device", s->device, "kernel", job_kernel(j),
		      "repeat", (json_int_t)job_repeat(j), "health", s->health, "fetched_by",
		      "latwatt lab fetch");
	if (!o || json_object_set_new(rd.manifest, "lab", o) < 0) {
		lw_rundir_close(&rd);
		return error("out of memory");
	}
	if (lw_rundir_save(&rd) < 0) {
		lw_rundir_close(&rd);
		return -1;
	}
	lw_rundir_close(&rd);
	return 0;
}

/* Job @j into @out/KERNEL/run-NN: 1 fetched (or there already), 0 no
 * result (said why), -1 after error(). */
static int fetch_job(struct lw_lava *l, const json_t *j, const char *out, char *why, size_t wl)
{
	char dir[PATH_MAX], dest[PATH_MAX + 16], path[64], log[PATH_MAX], tgz[PATH_MAX], name[256];
	char what[128], top[256];
	struct jstate s;
	FILE *lf, *tf;
	long st;
	int r;

	snprintf(dir, sizeof(dir), "%s/%s", out, job_kernel(j));
	snprintf(dest, sizeof(dest), "%s/" LW_REPEAT_PREFIX "%02lld", dir, job_repeat(j));
	snprintf(what, sizeof(what), "job %lld (%s repeat %lld)", job_id(j), job_kernel(j),
		 job_repeat(j));
	if (access(dest, F_OK) == 0) {
		note("%s: %s is there already", what, dest);
		return 1;
	}
	if (job_state(l, job_id(j), &s) < 0)
		return -1;
	if (!finished(&s)) {
		note("lab %s: %s: %s, not finished: no result yet ('latwatt lab wait')", l->lab,
		     what, s.state);
		snprintf(why, wl, "job %lld: %s, not finished", job_id(j), s.state);
		return 0;
	}
	if (strcmp(s.health, "Complete")) {
		job_failure(l, job_id(j), &s);
		note("lab %s: %s on %s: %s%s%s: no result", l->lab, what,
		     *s.device ? s.device : "no device", no_result_why(&s), *s.comment ? ": " : "",
		     s.comment);
		snprintf(why, wl, "job %lld on %s: %s%s%s", job_id(j),
			 *s.device ? s.device : "no device", no_result_why(&s), *s.comment ? ": " : "",
			 s.comment);
		return 0;
	}
	snprintf(path, sizeof(path), "jobs/%lld/logs/", job_id(j));
	snprintf(log, sizeof(log), "%s/log", l->scratch);
	snprintf(tgz, sizeof(tgz), "%s/up.tar.gz", l->scratch);
	if (lw_lava_request(l, path, NULL, log, &st) < 0)
		return -1;
	if (st != 200)
		return error("lab %s: %s: its log: HTTP %ld", l->lab, what, st);
	lf = fopen(log, "re");
	unlink(tgz);
	tf = fopen(tgz, "wxe");
	if (!lf || !tf) {
		if (lf)
			fclose(lf);
		if (tf)
			fclose(tf);
		return error_errno("cannot open %s", lf ? tgz : log);
	}
	r = lw_lava_log_upload(lf, what, tf, name, sizeof(name));
	fclose(lf);
	if (fclose(tf) == EOF && r > 0)
		return error_errno("cannot write %s", tgz);
	if (r < 0) {
		snprintf(why, wl, "job %lld on %s: its upload is damaged", job_id(j), s.device);
		return 0;	/* damaged: said, no result */
	}
	if (r == 0) {
		note("lab %s: %s on %s: complete, but its log holds no run directory (the job's "
		     "UPLOAD is not console, or latwatt failed on the device): no result", l->lab,
		     what, s.device);
		snprintf(why, wl, "job %lld on %s: complete, but no run directory in its log",
			 job_id(j), s.device);
		return 0;
	}
	snprintf(top, sizeof(top), "%s", name);
	if (strlen(top) > 7 && !strcmp(top + strlen(top) - 7, ".tar.gz"))
		top[strlen(top) - 7] = 0;
	if (lw_mkdir(dir, 0755) < 0 || unpack_run(tgz, top, dest, what) < 0 ||
	    record_lab(dest, l, j, &s) < 0)
		return -1;
	note("lab %s: %s on %s: %s", l->lab, what, s.device, dest);
	return 1;
}

/* The run of job @j, fetched into @run, stored in @db (once: a run stored
 * before keeps its id), labelled "LAB job ID: KERNEL repeat R". */
static int store_run(struct lw_db *db, const struct lw_lava *l, const json_t *j, const char *run)
{
	struct lw_crun r = { 0 };
	char label[256];
	int64_t id;
	int existed, rc;

	if (lw_crun_load_dir(&r, run) < 0)
		return -1;
	snprintf(label, sizeof(label), "%s job %lld: %s repeat %lld", l->lab, job_id(j),
		 job_kernel(j), job_repeat(j));
	rc = lw_db_add(db, &r, label, 1, &id, &existed);
	lw_crun_free(&r);
	if (rc < 0)
		return -1;
	printf("lab %s: job %lld (%s repeat %lld): %s db:%" PRId64 "\n", l->lab, job_id(j),
	       job_kernel(j), job_repeat(j), existed ? "already stored as" : "stored as", id);
	return 0;
}

/* The jobs of @doc into @out; per kernel its jobs and runs into @k (when
 * not NULL); each run fetched stored in @db (when not NULL).  The jobs
 * fetched, or -1 after error(). */
static long fetch_all(struct lw_lava *l, const json_t *doc, const char *out,
		      struct lw_lab_kernel *k, size_t max, size_t *nk, int results, int *failed,
		      struct lw_db *db)
{
	const json_t *j;
	size_t i, got = 0;
	int dfd = lw_dir_make(out);

	if (dfd < 0)
		return -1;
	close(dfd);
	json_array_foreach(json_object_get(doc, "jobs"), i, j) {
		char why[512] = "";
		int r = fetch_job(l, j, out, why, sizeof(why));
		size_t m;

		if (r < 0)
			return -1;
		got += (size_t)r;
		if (db && r == 1) {
			char run[PATH_MAX];

			snprintf(run, sizeof(run), "%s/%s/" LW_REPEAT_PREFIX "%02lld", out,
				 job_kernel(j), job_repeat(j));
			if (store_run(db, l, j, run) < 0)
				return -1;
		}
		if (results && r == 1) {
			int f = print_results(l, j);

			if (f < 0)
				return -1;
			*failed += f;
		}
		if (!k)
			continue;
		for (m = 0; m < *nk && strcmp(k[m].name, job_kernel(j)); m++)
			;
		if (m == *nk) {
			if (m == max)
				return error("at most %zu kernels", max);
			memset(&k[m], 0, sizeof(k[m]));
			snprintf(k[m].name, sizeof(k[m].name), "%s", job_kernel(j));
			snprintf(k[m].dir, sizeof(k[m].dir), "%s/%s", out, job_kernel(j));
			(*nk)++;
		}
		k[m].jobs++;
		k[m].runs += (size_t)r;
		if (!r && !*k[m].why)
			snprintf(k[m].why, sizeof(k[m].why), "%s", why);
	}
	return (long)got;
}

int lw_lab_fetch_runs(const char *jobs_file, const char *out, const char *token_file,
		      struct lw_lab_kernel *k, size_t max, size_t *nk)
{
	json_t *doc = jobs_load(jobs_file);
	struct lw_lava l;
	long got;

	*nk = 0;
	if (!doc)
		return -1;
	if (lw_lava_init(&l, lw_jstr(doc, "url", NULL), token_file, lw_jstr(doc, "lab", NULL)) < 0) {
		json_decref(doc);
		return -1;
	}
	got = fetch_all(&l, doc, out, k, max, nk, 0, NULL, NULL);
	if (got >= 0)
		note("lab %s: %s: %ld of %zu jobs gave a run (in %s)", l.lab, jobs_file, got,
		     json_array_size(json_object_get(doc, "jobs")), out);
	lw_lava_free(&l);
	json_decref(doc);
	return got < 0 ? -1 : 0;
}

static int cmd_fetch(const struct opts *o, const char *file)
{
	json_t *doc = jobs_load(file);
	struct lw_lava l;
	size_t n;
	struct lw_db *db = NULL;
	long got;
	int ret = LW_EXIT_ERROR, failed = 0;

	if (!doc)
		return LW_EXIT_ERROR;
	if (!o->output) {
		json_decref(doc);
		return error("fetch: give -o DIR"), LW_EXIT_ERROR;
	}
	if (lw_lava_init(&l, o->url ? o->url : lw_jstr(doc, "url", NULL), o->token_file,
			 o->lab ? o->lab : lw_jstr(doc, "lab", NULL)) < 0) {
		json_decref(doc);
		return LW_EXIT_ERROR;
	}
	n = json_array_size(json_object_get(doc, "jobs"));
	if (o->db && !(db = lw_db_open(o->db)))
		goto out;
	got = fetch_all(&l, doc, o->output, NULL, 0, NULL, o->results, &failed, db);
	if (got < 0)
		goto out;
	printf("lab %s: %ld of %zu jobs fetched into %s%s", l.lab, got, n, o->output,
	       (size_t)got == n ? "" : "; the others gave no result (above)");
	if (failed)
		printf("; %d test cases failed", failed);
	printf("\n");
	ret = (size_t)got == n && !failed ? LW_EXIT_OK : LW_EXIT_FAIL;
out:
	lw_db_close(db);
	lw_lava_free(&l);
	json_decref(doc);
	return ret;
}

/* ---- command ------------------------------------------------------------ */

int cmd_lab(int argc, char **argv)
{
	enum { OPT_URL = 256, OPT_TOKEN_FILE, OPT_LAB, OPT_TIMEOUT, OPT_INTERVAL, OPT_RESULTS, OPT_DB };
	static const struct option lopts[] = {
		{ "output",     required_argument, NULL, 'o' },
		{ "repeat",     required_argument, NULL, 'r' },
		{ "url",        required_argument, NULL, OPT_URL },
		{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
		{ "lab",        required_argument, NULL, OPT_LAB },
		{ "timeout",    required_argument, NULL, OPT_TIMEOUT },
		{ "interval",   required_argument, NULL, OPT_INTERVAL },
		{ "quiet",      no_argument,       NULL, 'q' },
		{ "results",    no_argument,       NULL, OPT_RESULTS },
		{ "db",         required_argument, NULL, OPT_DB },
		{ "help",       no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .repeat = 1, .timeout_ns = 30 * 60 * NS_PER_SEC,
			  .interval_ns = 5 * NS_PER_SEC };
	const char *sub;
	int c;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? LW_EXIT_ERROR : LW_EXIT_OK;
	}
	sub = argv[1];
	if (strcmp(sub, "submit") && strcmp(sub, "wait") && strcmp(sub, "fetch")) {
		error("lab: unknown subcommand '%s': submit, wait or fetch (see 'latwatt lab --help')",
		      sub);
		return LW_EXIT_ERROR;
	}
	argc--;
	argv++;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:r:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case 'r':
			if (lw_parse_uint("--repeat", optarg, 1, MAX_REPEAT, &o.repeat) < 0)
				return LW_EXIT_ERROR;
			break;
		case OPT_URL:
			o.url = optarg;
			break;
		case OPT_TOKEN_FILE:
			o.token_file = optarg;
			break;
		case OPT_LAB:
			if (!name_ok(optarg))
				return error("--lab '%s': letters, digits, '.', '_', '+', '-'", optarg),
				       LW_EXIT_ERROR;
			o.lab = optarg;
			break;
		case OPT_TIMEOUT:
			if (lw_parse_duration("--timeout", optarg, &o.timeout_ns) < 0)
				return LW_EXIT_ERROR;
			break;
		case OPT_INTERVAL:
			if (lw_parse_duration("--interval", optarg, &o.interval_ns) < 0)
				return LW_EXIT_ERROR;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case OPT_RESULTS:
			o.results = 1;
			break;
		case OPT_DB:
			o.db = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return LW_EXIT_OK;
		default:
			lw_opt_error(c, argv, "lab");
			return LW_EXIT_ERROR;
		}
	}
	if (!strcmp(sub, "submit"))
		return cmd_submit(&o, argc - optind, argv + optind);
	if (argc - optind != 1) {
		error("lab %s: give one JOBS.json (see 'latwatt lab --help')", sub);
		return LW_EXIT_ERROR;
	}
	return !strcmp(sub, "wait") ? cmd_wait(&o, argv[optind]) : cmd_fetch(&o, argv[optind]);
}
