// SPDX-License-Identifier: GPL-2.0-only
/* The state of a run as its files show it (analysis/runstate.h). */
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/runstate.h"
#include "lib/binfile.h"
#include "lib/error.h"
#include "lib/samples.h"
#include "lib/writer.h"
#include "power/power.h"
#include "workloads/records.h"

static void add_reason(struct lw_run_state *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_reason(struct lw_run_state *st, const char *fmt, ...)
{
	size_t n = strlen(st->reason);
	va_list ap;

	if (n && n + 2 < sizeof(st->reason)) {
		memcpy(st->reason + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(st->reason + n, sizeof(st->reason) - n, fmt, ap);
	va_end(ap);
}

static json_int_t jint(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* One file short of what the run wrote. */
static void short_file(struct lw_run_state *st, const char *file, const char *rail,
		       const char *unit, uint64_t found, uint64_t expected, uint64_t partial)
{
	json_t *e = json_pack("{s:s, s:s, s:I, s:I, s:I}", "file", file, "unit", unit,
			      "found", (json_int_t)found, "expected", (json_int_t)expected,
			      "partial_bytes", (json_int_t)partial);

	if (rail)
		json_object_set_new(e, "rail", json_string(rail));
	if (!st->truncated)
		st->truncated = json_array();
	json_array_append_new(st->truncated, e);
	if (found < expected && rail)
		add_reason(st, "%s holds %llu of the %llu samples of rail %s the run wrote", file,
			   (unsigned long long)found, (unsigned long long)expected, rail);
	else if (found < expected && !strcmp(unit, "bytes"))
		add_reason(st, "%s holds %llu bytes, less than the %llu bytes of trace the run "
			   "recorded", file, (unsigned long long)found, (unsigned long long)expected);
	else if (found < expected)
		add_reason(st, "%s holds %llu of the %llu %s the run wrote%s", file,
			   (unsigned long long)found, (unsigned long long)expected, unit,
			   partial ? " and part of one more" : "");
	else
		add_reason(st, "%s ends in part of a record (%llu bytes) after its %llu %s", file,
			   (unsigned long long)partial, (unsigned long long)found, unit);
}

/* A binary file of fixed-size records after a @hdr_len-byte header whose
 * record size is at byte 12 (RUN/samples, RUN/NAME.records): whole records
 * and the bytes of a partial one.  -1 when it cannot be read. */
static int count_records(const char *path, const char *magic, size_t hdr_len, uint64_t *n,
			 uint64_t *partial)
{
	unsigned char hdr[LW_RECORDS_HDR > LW_SAMPLES_HDR ? LW_RECORDS_HDR : LW_SAMPLES_HDR];
	uint64_t body;
	uint32_t rs;
	int q = lw_set_quiet(1);
	FILE *f = lw_binfile_open(path, magic, "run", hdr, hdr_len, 0, &body);

	lw_set_quiet(q);
	if (!f)
		return -1;
	fclose(f);
	memcpy(&rs, hdr + 12, 4);
	if (!rs)
		return -1;
	*n = body / rs;
	*partial = body % rs;
	return 0;
}

/* A file of records against the count the manifest holds. */
static void check_records(struct lw_run_state *st, const struct lw_rundir *rd, const char *file,
			  const char *magic, size_t hdr_len, const json_t *written)
{
	char path[PATH_MAX];
	uint64_t n = 0, partial = 0, want;
	struct stat sb;

	if (!json_is_integer(written) || json_integer_value(written) < 0 || strchr(file, '/'))
		return;
	want = (uint64_t)json_integer_value(written);
	if (!lw_rundir_file(rd, file, path, sizeof(path)))
		return;
	if (lstat(path, &sb) < 0 && errno == ENOENT) {
		if (want)
			short_file(st, file, NULL, "records", 0, want, 0);
		return;
	}
	if (count_records(path, magic, hdr_len, &n, &partial) < 0) {
		short_file(st, file, NULL, "records", 0, want, 0);
		return;
	}
	if (n < want || partial)
		short_file(st, file, NULL, "records", n, want, partial);
}

static int count_point(void *ctx, const struct lw_power_rail *r, int rail,
		       const struct lw_power_point *p)
{
	return 0;
}

/* Each power rail of the manifest against its samples in RUN/power; a rail
 * absent from the file is not counted (`power estimate --force` replaced
 * the file). */
static void check_power(struct lw_run_state *st, const struct lw_rundir *rd)
{
	const json_t *pw = json_object_get(rd->manifest, "power"), *r;
	struct lw_power_data *d;
	char path[PATH_MAX];
	size_t i;
	int q;

	if (!json_is_object(json_object_get(pw, "file")) || !json_array_size(json_object_get(pw, "rails")) ||
	    !lw_rundir_file(rd, "power", path, sizeof(path)))
		return;
	q = lw_set_quiet(1);
	d = lw_power_scan(path, count_point, NULL);
	lw_set_quiet(q);
	if (!d) {
		add_reason(st, "%s", lw_last_error());
		if (!st->truncated)
			st->truncated = json_array();
		json_array_append_new(st->truncated, json_pack("{s:s, s:s, s:s}", "file", "power",
			"unit", "samples", "error", lw_last_error()));
		return;
	}
	json_array_foreach(json_object_get(pw, "rails"), i, r) {
		const char *name = json_string_value(json_object_get(r, "name"));
		json_int_t want = jint(r, "samples");
		int k = name ? lw_power_find_rail(d, name) : -1;

		if (k >= 0 && want > 0 && d->rail[k].n < (size_t)want)
			short_file(st, "power", name, "samples", d->rail[k].n, (uint64_t)want, 0);
	}
	lw_power_data_free(d);
}

/* RUN/monitor: a header line and one whole line per interval. */
static void check_monitor(struct lw_run_state *st, const struct lw_rundir *rd)
{
	const json_t *mon = json_object_get(rd->manifest, "monitor");
	const json_t *iv = json_object_get(mon, "intervals");
	char path[PATH_MAX], buf[65536];
	uint64_t lines = 0;
	size_t got;
	FILE *f;

	if (!json_is_integer(iv) || !lw_rundir_file(rd, "monitor", path, sizeof(path)))
		return;
	f = fopen(path, "re");
	if (f) {
		while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
			for (char *p = buf; (p = memchr(p, '\n', got - (size_t)(p - buf))); p++)
				lines++;
		fclose(f);
	}
	if (lines && lines - 1 < (uint64_t)json_integer_value(iv))
		short_file(st, "monitor", NULL, "intervals", lines - 1,
			   (uint64_t)json_integer_value(iv), 0);
	else if (!lines && json_integer_value(iv) > 0)
		short_file(st, "monitor", NULL, "intervals", 0, (uint64_t)json_integer_value(iv), 0);
}

/* RUN/trace.dat holds at least the trace data of every CPU. */
static void check_trace(struct lw_run_state *st, const struct lw_rundir *rd)
{
	const json_t *tr = json_object_get(rd->manifest, "trace"), *c;
	char path[PATH_MAX];
	uint64_t want = 0;
	struct stat sb;
	size_t i;

	if (!json_is_array(json_object_get(tr, "cpus")) ||
	    strcmp(json_string_value(json_object_get(tr, "file")) ?: "", "trace.dat") ||
	    !lw_rundir_file(rd, "trace.dat", path, sizeof(path)))
		return;
	json_array_foreach(json_object_get(tr, "cpus"), i, c)
		if (jint(c, "bytes") > 0)
			want += (uint64_t)jint(c, "bytes");
	/* absent altogether: left behind on purpose (a run brought back without
	 * its trace, as LAVA's upload does); the analysis has no trace then */
	if (lstat(path, &sb) < 0)
		return;
	if ((uint64_t)sb.st_size < want)
		short_file(st, "trace.dat", NULL, "bytes", (uint64_t)sb.st_size, want, 0);
}

int lw_run_state(const struct lw_rundir *rd, struct lw_run_state *st)
{
	const json_t *m = rd->manifest, *w, *samples = json_object_get(m, "samples");
	const char *reason = json_string_value(json_object_get(m, "status_reason"));
	const char *name, *said = json_string_value(json_object_get(m, "manifest_status"));

	memset(st, 0, sizeof(*st));
	if (said)	/* applied before: what the manifest said is kept there */
		reason = json_string_value(json_object_get(m, "manifest_status_reason"));
	snprintf(st->manifest_status, sizeof(st->manifest_status), "%s",
		 said ? said : lw_manifest_status(m));
	st->status = st->manifest_status;
	/* "running" with its writer gone: killed (SIGKILL, a crash, a reboot)
	 * before anything could mark it; never complete */
	if (!strcmp(st->manifest_status, "running")) {
		const json_t *wr = json_object_get(m, "writer");

		switch (lw_writer_alive(wr)) {
		case 0:
			st->status = "killed";
			snprintf(st->reason, sizeof(st->reason), "killed (SIGKILL or a crash): its "
				 "writer, pid %lld, is gone and the run never ended; what it wrote "
				 "is analyzed", (long long)json_integer_value(json_object_get(wr, "pid")));
			return 0;
		case -1:
			snprintf(st->reason, sizeof(st->reason), "the manifest says running and names "
				 "no writer to tell whether it still is (a run killed before its end "
				 "looks the same)");
			return 0;
		default:
			snprintf(st->reason, sizeof(st->reason), "still running (pid %lld)",
				 (long long)json_integer_value(json_object_get(wr, "pid")));
			return 0;
		}
	}
	/* what a run that ended wrote; a run still "running" has no counts */
	if (strcmp(st->manifest_status, "running")) {
		check_records(st, rd, "samples", LW_SAMPLES_MAGIC, LW_SAMPLES_HDR,
			      json_object_get(samples, "written"));
		json_object_foreach((json_t *)json_object_get(m, "workloads"), name, w) {
			const json_t *rec = json_object_get(w, "records");

			check_records(st, rd, json_string_value(json_object_get(rec, "file")) ?: "",
				      LW_RECORDS_MAGIC, LW_RECORDS_HDR, json_object_get(rec, "written"));
		}
		check_power(st, rd);
		check_monitor(st, rd);
		check_trace(st, rd);
	}
	if (st->truncated) {
		st->status = "truncated";
		if (strcmp(st->manifest_status, "complete"))
			add_reason(st, "the manifest says %s%s%s", st->manifest_status,
				   reason ? ": " : "", reason ? reason : "");
	} else if (reason) {
		snprintf(st->reason, sizeof(st->reason), "%s", reason);
	}
	return 0;
}

void lw_run_state_free(struct lw_run_state *st)
{
	json_decref(st->truncated);
	st->truncated = NULL;
}

void lw_run_state_apply(const struct lw_run_state *st, json_t *m)
{
	const json_t *r = json_object_get(m, "status_reason");

	if (!strcmp(st->status, st->manifest_status) && !st->truncated)
		return;
	if (!json_object_get(m, "manifest_status")) {
		json_object_set_new(m, "manifest_status", json_string(st->manifest_status));
		if (json_is_string(r))
			json_object_set(m, "manifest_status_reason", (json_t *)r);
	}
	lw_manifest_set_status(m, st->status, st->reason);
	if (st->truncated)
		json_object_set(m, "truncated", st->truncated);
}

unsigned lw_run_samples_flags(const json_t *m)
{
	const char *s = lw_manifest_status(m);

	if (!strcmp(s, "complete"))
		return 0;
	if (!strcmp(s, "truncated"))	/* its status_reason says it */
		return LW_SAMPLES_PARTIAL_OK | LW_SAMPLES_QUIET;
	return LW_SAMPLES_PARTIAL_OK;
}

struct lw_samples_reader *lw_run_samples_open(const char *path, const json_t *m, unsigned extra)
{
	const char *s = lw_manifest_status(m);
	int final = !strcmp(s, "complete") || !strcmp(s, "incomplete") || !strcmp(s, "truncated");

	return lw_samples_open_max(path, lw_run_samples_flags(m) | extra,
				   final ? lw_manifest_samples_written(m) : UINT64_MAX);
}
