// SPDX-License-Identifier: GPL-2.0-only
/* Runs and comparisons as KCIDB I/O JSON (reports/kcidb.h). */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/error.h"
#include "lib/json.h"
#include "lib/rundir.h"
#include "reports/kcidb.h"

/* The units of lw_check.unit as KCIDB numbers: the value times @scale, in
 * @unit with @prefix (NULL: none). */
static const struct {
	const char *ours, *unit, *prefix;
	double scale;
} units[] = {
	{ "ns", "s", "metric", 1e-9 },
	{ "us", "s", "metric", 1e-6 },
	{ "ms", "s", "metric", 1e-3 },
	{ "s", "s", "metric", 1 },
	{ "mW", "W", "metric", 1e-3 },
	{ "W", "W", "metric", 1 },
	{ "uJ", "J", "metric", 1e-6 },
	{ "J", "J", "metric", 1 },
	{ "%", "%", NULL, 1 },
	{ "count", NULL, NULL, 1 },
	{ "", NULL, NULL, 1 },
};

/* A KCIDB document being built: its three lists and the IDs already in
 * the first two. */
struct doc {
	const char *origin;
	json_t *root, *checkouts, *builds, *tests, *seen;
};

int lw_kcidb_origin_check(const char *origin)
{
	if (!*origin || strspn(origin, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(origin))
		return error("origin '%s': KCIDB takes lowercase letters, digits and '_'", origin);
	return 0;
}

char *lw_kcidb_path(const char *s, int dots, char *buf, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; s[i] && n + 1 < len; i++) {
		char c = s[i];

		if (c == '.' && dots && !(n && isdigit((unsigned char)buf[n - 1]) &&
					   isdigit((unsigned char)s[i + 1]))) {
			if (n && buf[n - 1] != '.')	/* no empty segment */
				buf[n++] = '.';
		} else if (isalnum((unsigned char)c) || c == '-' || c == '_')
			buf[n++] = c;
		else
			buf[n++] = '_';
	}
	while (n && buf[n - 1] == '.')
		n--;
	if (!n && len > 1)
		buf[n++] = '_';
	buf[n] = 0;
	return buf;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}
#define FNV_SEED 0xcbf29ce484222325ULL

static int put(json_t *o, const char *k, json_t *v)
{
	if (!v || json_object_set_new(o, k, v) < 0)
		return error("out of memory");
	return 0;
}

static int put_str(json_t *o, const char *k, const char *s)
{
	return s ? put(o, k, json_string(s)) : 0;
}

static const json_t *run_obj(const struct lw_rrun *r)
{
	return json_object_get(r->analysis, "run");
}

/* The run's kernel: release, version string, machine ("" when unknown). */
static const char *kstr(const struct lw_rrun *r, const char *what)
{
	const char *s = lw_rrun_str(r, what);

	return strcmp(s, "not recorded") ? s : "";
}

/* The IDs of the run's checkout and build. */
static void kernel_ids(const struct doc *d, const struct lw_rrun *r, char *co, size_t colen,
		       char *b, size_t blen)
{
	const char *rel = kstr(r, "kernel_release");
	uint64_t h = fnv1a(fnv1a(FNV_SEED, kstr(r, "kernel_version")), kstr(r, "machine"));

	snprintf(co, colen, "%s:%s", d->origin, *rel ? rel : "unknown");
	snprintf(b, blen, "%s:%s#%016" PRIx64, d->origin, *rel ? rel : "unknown", h);
}

/* The run's ID: the lab and job it came from, else its host and start. */
static void run_id(const struct doc *d, const struct lw_rrun *r, char *buf, size_t len)
{
	const json_t *lab = json_object_get(r->manifest, "lab");
	const char *host = lw_jstr(json_object_get(r->manifest, "system"), "hostname", "host");
	json_int_t ns = json_integer_value(json_object_get(json_object_get(run_obj(r), "start"),
							   "realtime_ns"));

	if (json_is_object(lab))
		snprintf(buf, len, "%s:%s-job%" JSON_INTEGER_FORMAT "-%s", d->origin,
			 lw_jstr(lab, "lab", "lab"), json_integer_value(json_object_get(lab, "job_id")),
			 host);
	else
		snprintf(buf, len, "%s:%s-%" JSON_INTEGER_FORMAT, d->origin, host, ns);
}

/* The run's checkout and build, once each in the document. */
static int add_kernel(struct doc *d, const struct lw_rrun *r)
{
	char co[256], b[256], arch[64], comment[512];
	const char *rel = kstr(r, "kernel_release"), *ver = kstr(r, "kernel_version");
	const char *machine = kstr(r, "machine"), *preempt = kstr(r, "preempt");
	json_t *o, *misc;

	kernel_ids(d, r, co, sizeof(co), b, sizeof(b));
	if (!json_object_get(d->seen, co)) {
		o = json_object();
		if (!o || json_array_append_new(d->checkouts, o) < 0 ||
		    json_object_set_new(d->seen, co, json_true()) < 0)
			return error("out of memory");
		snprintf(comment, sizeof(comment), "Linux %s", *rel ? rel : "(release not recorded)");
		if (put_str(o, "id", co) || put_str(o, "origin", d->origin) ||
		    put_str(o, "comment", comment) || (*rel && put_str(o, "git_commit_name", rel)) ||
		    put(o, "valid", json_true()))
			return -1;
	}
	if (json_object_get(d->seen, b))
		return 0;
	o = json_object();
	misc = json_object();
	if (!o || !misc || json_array_append_new(d->builds, o) < 0 ||
	    json_object_set_new(d->seen, b, json_true()) < 0) {
		json_decref(misc);
		return error("out of memory");
	}
	lw_kcidb_path(machine, 0, arch, sizeof(arch));
	for (char *c = arch; *c; c++)
		*c = (char)(*c == '-' ? '_' : tolower((unsigned char)*c));
	snprintf(comment, sizeof(comment), "Linux %s %s %s", rel, ver, machine);
	if (put_str(o, "id", b) || put_str(o, "checkout_id", co) || put_str(o, "origin", d->origin) ||
	    put_str(o, "comment", comment) || (*machine && put_str(o, "architecture", arch)) ||
	    (*preempt && put_str(o, "config_name", preempt)) ||
	    /* it booted and ran the measurement: it was built */
	    put_str(o, "status", "PASS") || put_str(misc, "kernel_release", rel) ||
	    put_str(misc, "kernel_version", ver) || put_str(misc, "preempt_model", preempt) ||
	    put(o, "misc", misc))
		return -1;
	return 0;
}

/* What every test of run @r carries: build, start, duration, environment.
 * The test is appended to the list, which holds it. */
static json_t *test_base(struct doc *d, const struct lw_rrun *r, const char *id, const char *path,
			 const char *status)
{
	const json_t *run = run_obj(r), *lab = json_object_get(r->manifest, "lab");
	const char *host = lw_jstr(json_object_get(r->manifest, "system"), "hostname", "");
	const char *start = lw_jstr(json_object_get(run, "start"), "utc", NULL);
	json_t *t = json_object(), *env, *emisc, *misc;
	char co[256], b[256], comment[512];

	if (!t || json_array_append_new(d->tests, t) < 0) {
		error("out of memory");
		return NULL;
	}
	/* each held by its parent from here on */
	if (put(t, "environment", env = json_object()) || put(env, "misc", emisc = json_object()) ||
	    put(t, "misc", misc = json_object()))
		return NULL;
	kernel_ids(d, r, co, sizeof(co), b, sizeof(b));
	snprintf(comment, sizeof(comment), "board %s%s%s", lw_rrun_str(r, "board"),
		 *host ? ", host " : "", host);
	if (put_str(t, "id", id) || put_str(t, "build_id", b) || put_str(t, "origin", d->origin) ||
	    put_str(t, "path", path) || put_str(t, "status", status) ||
	    put_str(t, "start_time", start) ||
	    (json_is_number(json_object_get(run, "duration_ns")) &&
	     put(t, "duration", json_real(lw_jnum(run, "duration_ns", 0) / 1e9))) ||
	    put_str(env, "comment", comment) || put_str(emisc, "board", lw_rrun_str(r, "board")) ||
	    (*host && put_str(emisc, "host", host)) || put_str(emisc, "cpus", lw_rrun_str(r, "cpus")) ||
	    (json_is_object(lab) && put(emisc, "lab", json_deep_copy(lab))) ||
	    put_str(misc, "run", r->label) || put_str(misc, "latwatt", LW_VERSION))
		return NULL;
	return t;
}

static const char *const check_status[] = { [LW_PASS] = "PASS", [LW_FAIL] = "FAIL",
					    [LW_SKIP] = "SKIP" };

/* @c's measurement as a KCIDB number on @t, when it has one. */
static int add_number(json_t *t, const struct lw_check *c)
{
	json_t *n;

	if (c->result == LW_SKIP || !isfinite(c->measured))
		return 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(units[i].ours, c->unit))
			continue;
		n = json_object();
		if (put(t, "number", n) || put(n, "value", json_real(c->measured * units[i].scale)) ||
		    put_str(n, "unit", units[i].unit) || put_str(n, "prefix", units[i].prefix))
			return -1;
		return 0;
	}
	return 0;	/* a unit of no known kind: the message says it */
}

/* Check @c of run @r as a test: "latwatt.@group.NAME" (NULL: NAME, which
 * names its kind), with @status or the check's own. */
static int add_check(struct doc *d, const struct lw_rrun *r, const char *rid,
		     const struct lw_check *c, const char *group, const char *status)
{
	char path[256], name[160], id[512];
	json_t *t;

	lw_kcidb_path(c->name, 1, name, sizeof(name));
	snprintf(path, sizeof(path), "latwatt.%s%s%s", group ? group : "", group ? "." : "", name);
	snprintf(id, sizeof(id), "%s:%s", rid, path);
	t = test_base(d, r, id, path, status ? status : check_status[c->result]);
	if (!t || add_number(t, c) < 0 ||
	    (*c->message && put_str(t, "comment", c->message)))
		return -1;
	return 0;
}

static const char *const outcome_status[] = {
	[LW_OUTCOME_PASS] = "PASS", [LW_OUTCOME_FAIL] = "FAIL",
	[LW_OUTCOME_INCOMPLETE] = "ERROR", [LW_OUTCOME_NONE] = "SKIP",
};

/* Run @r: its kernel, verdict, budgets and key figures. */
static int add_run(struct doc *d, const struct lw_rrun *r)
{
	struct lw_vline vl[LW_VERDICT_LINES];
	size_t nvl = lw_verdict_lines(&r->verdict, vl);
	char rid[512], id[600], excerpt[LW_VERDICT_LINES * 600];
	struct lw_checks m = { 0 };
	size_t n = 0;
	json_t *t;
	int ret = -1;

	if (add_kernel(d, r) < 0)
		return -1;
	run_id(d, r, rid, sizeof(rid));
	snprintf(id, sizeof(id), "%s:latwatt.verdict", rid);
	t = test_base(d, r, id, "latwatt.verdict", r->verdict.unreadable ? "ERROR" :
		      outcome_status[r->verdict.outcome]);
	excerpt[0] = 0;
	for (size_t i = 0; i < nvl && n < sizeof(excerpt); i++)
		n += (size_t)snprintf(excerpt + n, sizeof(excerpt) - n, "%s %s%s%s\n", vl[i].label,
				      vl[i].result, *vl[i].result ? " " : "", vl[i].text);
	if (!t || put_str(t, "log_excerpt", excerpt) < 0)
		return -1;
	for (size_t i = 0; i < r->checks.n; i++)
		if (add_check(d, r, rid, &r->checks.c[i], NULL, NULL) < 0)
			return -1;
	if (lw_run_metrics(r, &m) < 0)
		goto out;
	for (size_t i = 0; i < m.n; i++)
		if (add_check(d, r, rid, &m.c[i], "metrics", "DONE") < 0)
			goto out;
	ret = 0;
out:
	lw_checks_free(&m);
	return ret;
}

static int doc_init(struct doc *d, const char *origin)
{
	json_t *v = json_object();

	memset(d, 0, sizeof(*d));
	if (lw_kcidb_origin_check(origin) < 0) {
		json_decref(v);
		return -1;
	}
	d->origin = origin;
	d->root = json_object();
	d->checkouts = json_array();
	d->builds = json_array();
	d->tests = json_array();
	d->seen = json_object();
	if (!d->root || !d->checkouts || !d->builds || !d->tests || !d->seen || !v ||
	    json_object_set_new(v, "major", json_integer(LW_KCIDB_MAJOR)) < 0 ||
	    json_object_set_new(v, "minor", json_integer(LW_KCIDB_MINOR)) < 0 ||
	    json_object_set_new(d->root, "version", v) < 0 ||
	    json_object_set(d->root, "checkouts", d->checkouts) < 0 ||
	    json_object_set(d->root, "builds", d->builds) < 0 ||
	    json_object_set(d->root, "tests", d->tests) < 0)
		return error("out of memory");
	return 0;
}

/* The document, or NULL when @ok is 0. */
static json_t *doc_end(struct doc *d, int ok)
{
	json_decref(d->checkouts);
	json_decref(d->builds);
	json_decref(d->tests);
	json_decref(d->seen);
	if (!ok) {
		json_decref(d->root);
		return NULL;
	}
	return d->root;
}

json_t *lw_kcidb_runs(const struct lw_rrun *runs, size_t n, const char *origin)
{
	struct doc d;
	int ok = doc_init(&d, origin) == 0;

	for (size_t i = 0; ok && i < n; i++)
		ok = add_run(&d, &runs[i]) == 0;
	return doc_end(&d, ok);
}

/* The group a rule of @c judges: the one whose name ends its name
 * ("compare.cyclic.p99.GROUP"), else the first compared group. */
static size_t rule_group(const struct lw_comparison *c, const char *name, size_t *strip)
{
	size_t nl = strlen(name), first = c->ngroup;

	*strip = 0;
	for (size_t g = 0; g < c->ngroup; g++) {
		size_t gl = strlen(c->group[g].name);

		if (c->group[g].compared && first == c->ngroup)
			first = g;
		if (gl + 1 < nl && !strcmp(name + nl - gl, c->group[g].name) &&
		    name[nl - gl - 1] == '.') {
			*strip = gl + 1;
			return g;
		}
	}
	return first < c->ngroup ? first : c->baseline;
}

json_t *lw_kcidb_comparison(const struct lw_comparison *c, const struct lw_checks *rules,
			    const char *origin)
{
	struct doc d;
	uint64_t h = FNV_SEED;
	char rid[512];
	int ok = doc_init(&d, origin) == 0;

	for (size_t i = 0; ok && i < c->nrun; i++) {
		ok = add_run(&d, &c->run[i]) == 0;
		run_id(&d, &c->run[i], rid, sizeof(rid));
		h = fnv1a(h, rid);
	}
	for (size_t i = 0; ok && i < rules->n; i++) {
		struct lw_check ck = rules->c[i];
		size_t strip, g = rule_group(c, ck.name, &strip);
		const struct lw_cmp_group *grp = &c->group[g];
		char gname[128];

		ck.name[strlen(ck.name) - strip] = 0;
		snprintf(rid, sizeof(rid), "%s:compare-%016" PRIx64 "-%s", origin, h,
			 lw_kcidb_path(grp->name, 0, gname, sizeof(gname)));
		/* a rule is a test of the build of the group it judges */
		ok = add_check(&d, &c->run[grp->first], rid, &ck, NULL, NULL) == 0;
	}
	return doc_end(&d, ok);
}
