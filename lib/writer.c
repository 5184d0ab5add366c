// SPDX-License-Identifier: GPL-2.0-only
/* A run's writer, and marking a run whose writer is gone (lib/writer.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/rundir.h"
#include "lib/safefile.h"
#include "lib/sysfs.h"
#include "lib/writer.h"

#define BOOT_ID "/proc/sys/kernel/random/boot_id"

static const char *boot_id(char *buf, size_t len)
{
	size_t n;

	if (lw_read_file(BOOT_ID, buf, len) < 0)
		return NULL;
	n = strcspn(buf, "\n");
	buf[n] = 0;
	return n ? buf : NULL;
}

json_t *lw_writer_json(void)
{
	char b[64];

	return json_pack("{s:I, s:I, s:s?}", "pid", (json_int_t)getpid(),
			 "starttime", (json_int_t)lw_proc_starttime(getpid()),
			 "boot_id", boot_id(b, sizeof(b)));
}

int lw_writer_alive(const json_t *w)
{
	const char *bid = json_string_value(json_object_get(w, "boot_id"));
	json_int_t pid = json_integer_value(json_object_get(w, "pid"));
	unsigned long long start, now;
	char b[64];

	if (!json_is_object(w) || pid <= 0)
		return -1;
	if (bid && (!boot_id(b, sizeof(b)) || strcmp(bid, b)))
		return 0;	/* another boot, another machine */
	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return 0;
	start = (unsigned long long)json_integer_value(json_object_get(w, "starttime"));
	now = lw_proc_starttime((long)pid);
	/* when its start time cannot be read, alive: a live run is not killed */
	return !start || !now || now == start;
}

int lw_manifest_mark_killed(const char *rundir, long pid, const char *by, int dry_run, char *msg,
			    size_t len)
{
	char path[PATH_MAX], why[256], at[32];
	int dfd, fd, ret = 0;

	if (len)
		*msg = 0;
	const json_t *w;
	struct lw_atomic a;
	json_error_t err;
	struct tm tm;
	time_t t = time(NULL);
	json_t *m;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/manifest.json", rundir) >= sizeof(path))
		return error("%s: path too long", rundir);
	dfd = lw_dir_open(rundir, 0);
	if (dfd < 0)
		return -1;
	fd = openat(dfd, "manifest.json", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return errno == ENOENT ? 0 : error_errno("cannot open %s", path);
	m = json_loadfd(fd, 0, &err);
	close(fd);
	if (!m)
		return error("%s:%d:%d: %s", path, err.line, err.column, err.text);
	w = json_object_get(m, "writer");
	if (strcmp(lw_manifest_status(m), "running") || lw_writer_alive(w) != 0 ||
	    (pid > 0 && json_integer_value(json_object_get(w, "pid")) != pid))
		goto out;	/* ended, live, or not the one asked about */
	gmtime_r(&t, &tm);
	strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(why, sizeof(why), "killed (SIGKILL or a crash): its writer, pid %lld, was gone "
		 "before the run ended; marked by %s at %s",
		 (long long)json_integer_value(json_object_get(w, "pid")), by, at);
	ret = 1;
	snprintf(msg, len, "%s %s killed: %s", dry_run ? "would mark" : "marked", rundir, why);
	if (dry_run)
		goto out;
	lw_manifest_set_status(m, "killed", why);
	json_object_set_new(m, "killed", json_pack("{s:s, s:s}", "marked_by", by, "at", at));
	f = lw_atomic_fopen(&a, path, 0644);
	if (!f) {
		ret = -1;
		goto out;
	}
	if (json_dumpf(m, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0) {
		lw_atomic_abort(&a);
		ret = error_errno("cannot write %s", path);
		goto out;
	}
	if (lw_atomic_commit(&a) < 0)
		ret = -1;
out:
	json_decref(m);
	return ret;
}
