// SPDX-License-Identifier: GPL-2.0-only
/*
 * latwatt import cyclictest FILE.json -o RUN: a histogram-only run directory
 * from real cyclictest --json output (rt-tests 2.x), which analyze accepts.
 *
 * rt-tests 2.x writes some keys with a trailing colon ("cmdline:",
 * "rt_test_version:"); both spellings are accepted.  Each thread carries a
 * histogram of whole microseconds ("histogram": {"15": 1, …}), "cycles",
 * "min", "max", "avg" and "cpu"; samples beyond the histogram are not listed,
 * so overflow = cycles - sum(histogram), at least the histogram's size (-h
 * on the command line it records), and the largest is "max".  cyclictest
 * counts no missed periods: they are unknown (null), not 0.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/summary.h"
#include "cmd/commands.h"
#include "lib/error.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/samples.h"
#include "lib/stats.h"
#include "lib/sysinfo.h"

static const char usage[] =
"usage: latwatt import cyclictest [OPTIONS] FILE.json -o RUN\n"
"\n"
"Turn the output of 'cyclictest --json=FILE.json' (rt-tests 2.x) into a\n"
"histogram-only run directory that 'latwatt analyze' reads.  Percentiles of\n"
"such a run have the histogram's 1us resolution.\n"
"\n"
"  -o, --output RUN        run directory to create\n"
"  -f, --force             replace the run in an existing non-empty RUN\n"
"  -h, --help              this text\n";

static json_t *get2(const json_t *o, const char *key)
{
	char colon[64];
	json_t *v = json_object_get(o, key);

	if (v)
		return v;
	snprintf(colon, sizeof(colon), "%s:", key);
	return json_object_get(o, colon);
}

/* The histogram size (us) cyclictest was given (-h N, -hN, --histogram=N,
 * --histogram N, and -H/--histofall the same), 0 when the command line does
 * not say.  Samples at or above it are its overflow. */
static uint64_t hist_size(const char *cmdline)
{
	static const char *const opt[] = { "-h", "--histogram", "-H", "--histofall" };
	char buf[1024], *save = NULL, *tok, *prev = NULL;
	uint64_t n = 0;

	if (!cmdline)
		return 0;
	snprintf(buf, sizeof(buf), "%s", cmdline);
	for (tok = strtok_r(buf, " \t", &save); tok; prev = tok, tok = strtok_r(NULL, " \t", &save))
		for (size_t i = 0; i < sizeof(opt) / sizeof(opt[0]); i++) {
			size_t l = strlen(opt[i]);
			const char *v = NULL;

			if (prev && !strcmp(prev, opt[i]))
				v = tok;
			else if (!strncmp(tok, opt[i], l) && tok[l] == '=' && opt[i][1] == '-')
				v = tok + l + 1;
			else if (!strncmp(tok, opt[i], l) && tok[l] && opt[i][1] != '-')
				v = tok + l;
			if (v) {
				char *end;
				unsigned long long x = strtoull(v, &end, 10);

				if (!*end && x > 0 && x <= LW_HIST_MAX_BUCKETS)
					n = x;
			}
		}
	return n;
}

/* One thread's histogram into lw_hist JSON; -1 with error() naming the place.
 * @size: cyclictest's histogram size (us), 0 when not known: then the
 * overflow is only known to lie beyond the last bucket with samples. */
static json_t *thread_hist(const char *file, const char *tid, const json_t *t, uint64_t size)
{
	json_t *h = json_object_get(t, "histogram"), *v;
	json_t *cycles = json_object_get(t, "cycles"), *min = json_object_get(t, "min");
	json_t *max = json_object_get(t, "max"), *avg = json_object_get(t, "avg");
	const char *key;
	struct lw_hist hist;
	uint64_t counted = 0, nb = 1;
	json_t *out;

	if (!json_is_object(h) || !json_is_integer(cycles) || !json_is_integer(min) ||
	    !json_is_integer(max) || !json_is_number(avg)) {
		error("%s: thread %s: needs \"histogram\", \"cycles\", \"min\", \"max\" and \"avg\"",
		      file, tid);
		return NULL;
	}
	if (json_integer_value(cycles) < 0 || json_integer_value(min) < 0 ||
	    json_integer_value(max) < json_integer_value(min)) {
		error("%s: thread %s: inconsistent cycles/min/max", file, tid);
		return NULL;
	}
	json_object_foreach(h, key, v) {
		char *end;
		unsigned long long b = strtoull(key, &end, 10);

		if (*end || !*key || !json_is_integer(v) || json_integer_value(v) < 0) {
			error("%s: thread %s: bad histogram entry \"%s\"", file, tid, key);
			return NULL;
		}
		if (b >= LW_HIST_MAX_BUCKETS) {
			error("%s: thread %s: histogram bucket \"%s\" (us) is beyond the %d this "
			      "import reads", file, tid, key, LW_HIST_MAX_BUCKETS);
			return NULL;
		}
		if (b + 1 > nb)
			nb = b + 1;
	}
	if (size > nb)		/* the overflow starts at cyclictest's -h */
		nb = size;
	if (lw_hist_init(&hist, 1000, (size_t)nb) < 0)
		return NULL;
	json_object_foreach(h, key, v) {
		hist.count[strtoull(key, NULL, 10)] += (uint64_t)json_integer_value(v);
		counted += (uint64_t)json_integer_value(v);
	}
	if (counted > (uint64_t)json_integer_value(cycles)) {
		error("%s: thread %s: histogram holds %llu samples, more than its %lld cycles", file,
		      tid, (unsigned long long)counted, (long long)json_integer_value(cycles));
		lw_hist_free(&hist);
		return NULL;
	}
	hist.total = (uint64_t)json_integer_value(cycles);
	hist.overflow = hist.total - counted;
	hist.min = (uint64_t)json_integer_value(min) * 1000;
	hist.max = (uint64_t)json_integer_value(max) * 1000;
	hist.overflow_max = hist.overflow ? hist.max : 0;
	hist.sum = (long double)json_number_value(avg) * 1000 * hist.total;
	/* the histogram was sized by cyclictest -h; overflow is beyond it */
	out = lw_hist_json(&hist);
	lw_hist_free(&hist);
	return out;
}

static int import_cyclictest(const char *file, const char *output, int force)
{
	json_t *doc = lw_json_load(file), *threads, *t, *cpus = json_array(), *sys, *hist;
	struct lw_rundir rd;
	const char *tid, *model;
	char path[PATH_MAX];
	int ret = -1;

	if (!doc)
		goto out;
	threads = json_object_get(doc, "thread");
	if (!json_is_object(doc) || !json_is_object(threads) || !json_object_size(threads)) {
		error("%s: not cyclictest --json output (no \"thread\" object)", file);
		goto out;
	}
	json_object_foreach(threads, tid, t) {
		json_t *h = thread_hist(file, tid, t,
					hist_size(json_string_value(get2(doc, "cmdline")))),
		       *cpu = json_object_get(t, "cpu");

		if (!h)
			goto out;
		/* cyclictest does not count missed periods: unknown, not 0 */
		json_array_append_new(cpus, json_pack("{s:I, s:s, s:n, s:o}",
			"cpu", json_is_integer(cpu) && json_integer_value(cpu) >= 0 ?
			       json_integer_value(cpu) : strtoll(tid, NULL, 10),
			"thread", tid, "missed_periods", "histogram", h));
	}
	if (lw_rundir_create(&rd, output, force) < 0)
		goto out;
	sys = json_object_get(doc, "sysinfo");
	model = lw_preempt_model(json_string_value(json_object_get(sys, "version")),
				 json_integer_value(json_object_get(sys, "realtime")) == 1);
	json_object_set_new(rd.manifest, "status", json_string("complete"));
	json_object_set_new(rd.manifest, "imported", json_pack("{s:s, s:s, s:O?, s:O?, s:O?, s:O?}",
		"from", "cyclictest", "file", file,
		"cmdline", get2(doc, "cmdline"), "rt_tests_version", get2(doc, "rt_test_version"),
		"start_time", json_object_get(doc, "start_time"),
		"end_time", json_object_get(doc, "end_time")));
	json_object_set_new(rd.manifest, "system", json_pack("{s:{s:O?, s:O?, s:O?, s:O?}, s:{s:b, s:s}}",
		"kernel", "sysname", json_object_get(sys, "sysname"),
		"release", json_object_get(sys, "release"), "version", json_object_get(sys, "version"),
		"machine", json_object_get(sys, "machine"),
		"preempt", "rt", !strcmp(model, "PREEMPT_RT"), "model", model));
	json_object_set_new(rd.manifest, "board", json_string("local"));
	hist = json_pack("{s:s, s:i, s:{s:{s:O}}}", "schema", "latwatt-histogram", "version", 1,
			 "probes", "cyclic", "cpus", cpus);
	if (lw_json_save_at(rd.dfd, hist, lw_rundir_file(&rd, "histogram.json", path, sizeof(path))) == 0 &&
	    lw_rundir_save(&rd) == 0)
		ret = 0;
	json_decref(hist);
	lw_rundir_close(&rd);
out:
	json_decref(cpus);
	json_decref(doc);
	return ret;
}

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force",  no_argument,       NULL, 'f' },
		{ "help",   no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL;
	int force = 0, c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return LW_EXIT_OK;
		default:	/* ':' or an unknown option */
			lw_opt_error(c, argv, "import");
			return LW_EXIT_ERROR;
		}
	}
	if (argc - optind != 2 || strcmp(argv[optind], "cyclictest")) {
		error("usage: latwatt import cyclictest FILE.json -o RUN");
		return LW_EXIT_ERROR;
	}
	if (!output) {
		error("no run directory: give -o RUN");
		return LW_EXIT_ERROR;
	}
	return import_cyclictest(argv[optind + 1], output, force) < 0 ? LW_EXIT_ERROR : LW_EXIT_OK;
}
