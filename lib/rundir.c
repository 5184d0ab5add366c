// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/input.h"
#include "lib/rundir.h"
#include "lib/safefile.h"
#include "lib/timeutil.h"

static int mkdir_p(const char *path)
{
	char tmp[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(tmp))
		return error("%s: path too long", path);
	memcpy(tmp, path, len + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return error_errno("cannot create %s", tmp);
		*p = '/';
	}
	if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
		return error_errno("cannot create %s", tmp);
	return 0;
}

static int dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = 0;
			break;
		}
	closedir(d);
	return empty;
}

int lw_rundir_create(struct lw_rundir *rd, const char *path, int force)
{
	struct stat st;
	int dfd;

	memset(rd, 0, sizeof(*rd));
	if (!path || !*path)
		return error("no run directory given (-o RUN)");
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return error("%s is a symlink: give the directory itself", path);
	if (stat(path, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return error("%s exists and is not a directory", path);
		if (!dir_is_empty(path) && !force)
			return error("%s exists and is not empty (use --force to replace its run)",
				     path);
	} else if (errno != ENOENT) {
		return error_errno("cannot stat %s", path);
	}
	if (mkdir_p(path) < 0)
		return -1;
	/* latwatt writes into it as root: the directory must be ours alone */
	dfd = lw_dir_open(path, 1);
	if (dfd < 0)
		return -1;
	close(dfd);
	rd->path = strdup(path);
	rd->manifest = json_object();
	if (!rd->path || !rd->manifest)
		return error("out of memory");
	json_object_set_new(rd->manifest, "schema", json_string(LW_MANIFEST_SCHEMA));
	json_object_set_new(rd->manifest, "version", json_integer(LW_MANIFEST_VERSION));
	json_object_set_new(rd->manifest, "tool",
			    json_pack("{s:s, s:s}", "name", "latwatt", "version", LW_VERSION));
	json_object_set_new(rd->manifest, "clock", json_string("CLOCK_MONOTONIC"));
	return 0;
}

const char *lw_json_problem(const json_error_t *err)
{
	/* jansson's own text quotes the input near the error: not printed */
	switch (json_error_code(err)) {
	case json_error_premature_end_of_input:	return "the JSON ends early";
	case json_error_end_of_input_expected:	return "more after the JSON value";
	case json_error_invalid_utf8:		return "not valid UTF-8";
	case json_error_null_character:		return "a NUL byte in a string";
	case json_error_null_byte_in_key:	return "a NUL byte in a key";
	case json_error_duplicate_key:		return "a key given twice";
	case json_error_numeric_overflow:	return "a number out of range";
	case json_error_item_not_found:
	case json_error_index_out_of_range:
	case json_error_wrong_type:		return "an unexpected value";
	case json_error_out_of_memory:		return "out of memory";
	case json_error_stack_overflow:		return "nested too deep";
	default:				return "not valid JSON";
	}
}

json_t *lw_json_load_flags(const char *path, int flags, uint64_t cap)
{
	json_error_t err;
	size_t len;
	char *text = lw_in_read(path, flags, cap, &len);
	json_t *v;

	if (!text)
		return NULL;
	v = json_loadb(text, len, 0, &err);
	free(text);
	if (!v) {
		if (err.line > 0)
			error("%s:%d:%d: %s", path, err.line, err.column, lw_json_problem(&err));
		else
			error("%s: %s", path, lw_json_problem(&err));
	}
	return v;
}

json_t *lw_json_load(const char *path)
{
	return lw_json_load_flags(path, 0, LW_CAP_JSON);
}

int lw_rundir_open(struct lw_rundir *rd, const char *path)
{
	char file[PATH_MAX];
	json_t *m;
	const char *schema;
	json_int_t version;

	memset(rd, 0, sizeof(*rd));
	if (snprintf(file, sizeof(file), "%s/manifest.json", path) >= (int)sizeof(file))
		return error("%s: path too long", path);
	if (access(path, F_OK) < 0)
		return error_errno("cannot open run directory %s", path);
	if (access(file, F_OK) < 0)
		return error("%s is not a run directory (no manifest.json)", path);
	m = lw_json_load_flags(file, LW_IN_NOFOLLOW, LW_CAP_MANIFEST);
	if (!m)
		return -1;
	if (!json_is_object(m)) {
		json_decref(m);
		return error("%s: not a JSON object", file);
	}
	schema = json_string_value(json_object_get(m, "schema"));
	if (!schema || strcmp(schema, LW_MANIFEST_SCHEMA)) {
		json_decref(m);
		return error("%s: not a latwatt manifest (schema is not \"%s\")", file,
			     LW_MANIFEST_SCHEMA);
	}
	version = json_integer_value(json_object_get(m, "version"));
	if (version < 1 || version > LW_MANIFEST_VERSION) {
		json_decref(m);
		return error("%s: manifest version %lld, this latwatt reads 1 to %d", file,
			     (long long)version, LW_MANIFEST_VERSION);
	}
	rd->path = strdup(path);
	rd->manifest = m;
	return 0;
}

const char *lw_rundir_file(const struct lw_rundir *rd, const char *name, char *buf, size_t len)
{
	/* names come from manifests too: a file inside the run directory,
	 * every component a name (no "", "." or "..") */
	for (const char *p = name;; ) {
		size_t n = strcspn(p, "/");

		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			error("%s: the manifest names a file outside the run directory", rd->path);
			buf[0] = 0;
			return buf;
		}
		if (!p[n])
			break;
		p += n + 1;
	}
	if ((size_t)snprintf(buf, len, "%s/%s", rd->path, name) >= len) {
		error("%s/%s: path too long", rd->path, name);
		buf[0] = 0;
	}
	return buf;
}

int lw_json_save(const json_t *v, const char *path)
{
	struct lw_atomic a;
	FILE *f = lw_atomic_fopen(&a, path, 0644);

	if (!f)
		return -1;
	if (json_dumpf(v, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0) {
		lw_atomic_abort(&a);
		return error_errno("cannot write %s", path);
	}
	return lw_atomic_commit(&a);
}

int lw_rundir_save(struct lw_rundir *rd)
{
	char file[PATH_MAX];

	return lw_json_save(rd->manifest, lw_rundir_file(rd, "manifest.json", file, sizeof(file)));
}

void lw_rundir_close(struct lw_rundir *rd)
{
	json_decref(rd->manifest);
	free(rd->path);
	rd->manifest = NULL;
	rd->path = NULL;
}

int lw_manifest_set_status(json_t *m, const char *status, const char *reason)
{
	json_object_set_new(m, "status", json_string(status));
	if (reason && *reason)
		json_object_set_new(m, "status_reason", json_string(reason));
	else
		json_object_del(m, "status_reason");
	return 0;
}

uint64_t lw_manifest_samples_written(const json_t *m)
{
	json_t *w = json_object_get(json_object_get(m, "samples"), "written");

	return json_is_integer(w) && json_integer_value(w) >= 0 ?
	       (uint64_t)json_integer_value(w) : UINT64_MAX;
}

const char *lw_manifest_status(const json_t *m)
{
	const char *s = json_string_value(json_object_get(m, "status"));

	return s ? s : "unknown";
}

int lw_manifest_is_complete(const json_t *m)
{
	return !strcmp(lw_manifest_status(m), "complete");
}

json_t *lw_json_timestamp(uint64_t *mono_out)
{
	uint64_t mono = lw_clock_ns(CLOCK_MONOTONIC);
	struct timespec rt;
	struct tm tm;
	char iso[64];

	clock_gettime(CLOCK_REALTIME, &rt);
	gmtime_r(&rt.tv_sec, &tm);
	strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (mono_out)
		*mono_out = mono;
	return json_pack("{s:I, s:I, s:s}", "monotonic_ns", (json_int_t)mono, "realtime_ns",
			 (json_int_t)lw_ts_to_ns(&rt), "utc", iso);
}

json_t *lw_json_object_at(json_t *parent, const char *key)
{
	json_t *o = json_object_get(parent, key);

	if (!json_is_object(o)) {
		o = json_object();
		json_object_set_new(parent, key, o);
	}
	return o;
}
