// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace reading API and the trace.dat writer, on a run recorded by
 * latwatt (tests/data/trace-run, tests/data/make-trace-fixture.sh): event
 * counts against the manifest, timestamp order, field getters, markers
 * against the samples, loss windows, a byte-exact write round trip, page
 * scans, and malformed files.
 */
#include <fcntl.h>
#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>

#include "tests/unit/lw_test.h"
#include "lib/safefile.h"
#include "lib/trace_read.h"
#include "cmd/runopts.h"
#include "lib/samples.h"
#include "lib/trace_rec.h"
#include "lib/tracedat.h"

#define RUN  "tests/data/trace-run"
#define DAT  RUN "/trace.dat"

static char *dir;
static json_t *manifest, *mtrace;

static int setup(void **st)
{
	json_error_t e;

	dir = lw_test_tmpdir();
	manifest = json_load_file(RUN "/manifest.json", 0, &e);
	if (!manifest)
		return -1;
	mtrace = json_object_get(manifest, "trace");
	return mtrace ? 0 : -1;
}

static int teardown(void **st)
{
	json_decref(manifest);
	lw_test_rmdir(dir);
	return 0;
}

static uint64_t mtrace_int(const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(mtrace, key));
}

static uint64_t cpu_events(int cpu)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(mtrace, "cpus"), i, c)
		if (json_integer_value(json_object_get(c, "cpu")) == cpu)
			return (uint64_t)json_integer_value(json_object_get(c, "events"));
	return 0;
}

static void test_merged_order_and_counts(void **st)
{
	struct lw_trace *t = lw_trace_open_run(RUN, 0);
	struct lw_trace_event ev;
	uint64_t n = 0, prev = 0, *per_cpu;
	int ret;

	assert_non_null(t);
	assert_string_equal(lw_trace_clock(t), "mono");
	assert_int_equal(lw_trace_cpus(t), (int)json_array_size(json_object_get(mtrace, "cpus")));
	per_cpu = calloc((size_t)lw_trace_cpus(t), sizeof(*per_cpu));
	while ((ret = lw_trace_next(t, &ev)) > 0) {
		assert_true(ev.ts_ns >= prev);
		assert_true(ev.cpu >= 0 && ev.cpu < lw_trace_cpus(t));
		assert_non_null(ev.event);
		assert_int_equal(ev.missed, 0);
		assert_true(ev.ts_ns >= mtrace_int("start_ns") && ev.ts_ns <= mtrace_int("stop_ns"));
		prev = ev.ts_ns;
		per_cpu[ev.cpu]++;
		n++;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(n, mtrace_int("events_recorded"));
	for (int c = 0; c < lw_trace_cpus(t); c++)
		assert_int_equal(per_cpu[c], cpu_events(c));
	/* at the end it stays at the end */
	assert_int_equal(lw_trace_next(t, &ev), 0);

	/* rewound, the same again */
	lw_trace_rewind(t);
	n = 0;
	while (lw_trace_next(t, &ev) > 0)
		n++;
	assert_int_equal(n, mtrace_int("events_recorded"));
	free(per_cpu);
	lw_trace_close(t);
}

static void test_per_cpu(void **st)
{
	struct lw_trace *t = lw_trace_open(DAT, 0);
	struct lw_trace_event ev;

	assert_non_null(t);
	for (int c = 0; c < lw_trace_cpus(t); c++) {
		uint64_t n = 0, prev = 0;

		while (lw_trace_next_cpu(t, c, &ev) > 0) {
			assert_int_equal(ev.cpu, c);
			assert_true(ev.ts_ns >= prev);
			prev = ev.ts_ns;
			n++;
		}
		assert_int_equal(n, cpu_events(c));
	}
	assert_error(lw_trace_next_cpu(t, lw_trace_cpus(t), &ev) < 0, "no cpu");
	/* a merged walk after per-CPU ones, rewound, sees everything */
	lw_trace_rewind(t);
	assert_int_equal(lw_trace_next_cpu(t, 0, &ev), 1);
	lw_trace_rewind(t);
	{
		uint64_t n = 0;

		while (lw_trace_next(t, &ev) > 0)
			n++;
		assert_int_equal(n, mtrace_int("events_recorded"));
	}
	lw_trace_close(t);
}

static void test_fields(void **st)
{
	struct lw_trace *t = lw_trace_open(DAT, 0);
	struct lw_trace_event ev;
	int sw, nsw = 0, nwake = 0;
	int wk;

	assert_non_null(t);
	sw = lw_trace_event_id(t, "sched", "sched_switch");
	wk = lw_trace_event_id(t, "sched", "sched_waking");
	assert_true(sw >= 0);
	assert_true(wk >= 0);
	assert_int_equal(lw_trace_event_id(t, "sched", "no_such_event"), -1);
	while (lw_trace_next(t, &ev) > 0) {
		if (ev.id == sw) {
			uint64_t prev_pid, next_pid;
			int64_t prio;
			size_t len;
			const char *comm = lw_trace_str(t, &ev, "next_comm", &len);

			assert_string_equal(ev.system, "sched");
			assert_string_equal(ev.name, "sched_switch");
			assert_int_equal(lw_trace_u64(t, &ev, "prev_pid", &prev_pid), 0);
			assert_int_equal(lw_trace_u64(t, &ev, "next_pid", &next_pid), 0);
			/* the task switched out is the one the event ran in */
			assert_int_equal(prev_pid, (uint64_t)ev.pid);
			assert_int_equal(lw_trace_s64(t, &ev, "next_prio", &prio), 0);
			assert_true(prio >= -1 && prio < 140);
			assert_non_null(comm);
			assert_true(len > 0 && len <= 16);
			if (next_pid == 0)
				assert_memory_equal(comm, "swapper", 7);
			/* the cache returns the same field for another pointer */
			assert_ptr_equal(lw_trace_field(t, &ev, "next_pid"),
					 lw_trace_field(t, &ev, (char[]){ "next_pid" }));
			assert_null(lw_trace_field(t, &ev, "no_such_field"));
			assert_int_equal(lw_trace_u64(t, &ev, "no_such_field", &next_pid), -1);
			assert_null(lw_trace_str(t, &ev, "no_such_field", &len));
			nsw++;
		} else if (ev.id == wk) {
			uint64_t pid;

			assert_int_equal(lw_trace_u64(t, &ev, "pid", &pid), 0);
			assert_true(pid > 0);
			/* the common fields are found too */
			assert_non_null(lw_trace_field(t, &ev, "common_pid"));
			nwake++;
		}
	}
	assert_true(nsw > 10);
	assert_true(nwake > 10);
	lw_trace_close(t);
}

/* Every marker is a sample over the threshold, and the other way round. */
static void test_markers_match_samples(void **st)
{
	struct lw_samples_reader *r = lw_samples_open(RUN "/samples");
	struct lw_trace *t = lw_trace_open(DAT, 0);
	struct lw_trace_event ev;
	struct lw_sample s, *over = NULL;
	size_t nover = 0, matched = 0;
	int print;

	assert_non_null(r);
	assert_non_null(t);
	while (lw_samples_next(r, &s) == 1)
		if (s.flags & LW_SAMPLE_OVER_THRESHOLD) {
			over = realloc(over, (nover + 1) * sizeof(*over));
			over[nover++] = s;
		}
	lw_samples_close_reader(r);
	assert_true(nover > 0);
	print = lw_trace_event_id(t, "ftrace", "print");
	assert_true(print >= 0);
	while (lw_trace_next(t, &ev) > 0) {
		unsigned long long cpu, lat, exp;
		char text[256];
		size_t len, i;
		const char *buf;

		if (ev.id != print)
			continue;
		buf = lw_trace_str(t, &ev, "buf", &len);
		assert_non_null(buf);
		assert_true(len < sizeof(text));
		memcpy(text, buf, len);
		text[len] = 0;
		assert_int_equal(sscanf(text, "latwatt spike probe=cyclic cpu=%llu latency_ns=%llu "
					"expected_ns=%llu", &cpu, &lat, &exp), 3);
		for (i = 0; i < nover; i++)
			if (over[i].cpu == cpu && over[i].expected_ns == exp)
				break;
		assert_true(i < nover);
		assert_int_equal(over[i].latency_ns, lat);
		assert_int_equal(ev.cpu, (int)cpu);
		/* same clock: the marker is written after the wake-up it reports */
		assert_true(ev.ts_ns >= exp + lat);
		assert_true(ev.ts_ns - (exp + lat) < 1000000);
		matched++;
	}
	assert_int_equal(matched, nover);
	free(over);
	lw_trace_close(t);
}

static void test_windows(void **st)
{
	struct lw_trace *t = lw_trace_open(DAT, 0);
	const struct lw_trace_window *w;
	json_t *bad;
	json_t *tr = json_pack("{s:[{s:i, s:[[I, I], [I, I]]}, {s:i, s:[]}]}", "cpus",
			       "cpu", 1, "incomplete", (json_int_t)100, (json_int_t)200,
			       (json_int_t)500, (json_int_t)600,
			       "cpu", 0, "incomplete");

	assert_non_null(t);
	assert_int_equal(lw_trace_load_windows(t, tr), 0);
	assert_int_equal(lw_trace_windows(t, 0, &w), 0);
	assert_int_equal(lw_trace_windows(t, 1, &w), 2);
	assert_int_equal(w[1].from_ns, 500);
	assert_int_equal(w[1].to_ns, 600);
	assert_int_equal(lw_trace_windows(t, 7, &w), 0);
	assert_int_equal(lw_trace_complete(t, 0, 0, 1000), 1);
	assert_int_equal(lw_trace_complete(t, 1, 0, 99), 1);
	assert_int_equal(lw_trace_complete(t, 1, 201, 499), 1);
	assert_int_equal(lw_trace_complete(t, 1, 150, 160), 0);
	assert_int_equal(lw_trace_complete(t, 1, 600, 700), 0);
	assert_int_equal(lw_trace_complete(t, -1, 550, 551), 0);
	assert_int_equal(lw_trace_complete(t, -1, 700, 800), 1);

	bad = json_pack("{s:[{s:i, s:[[I]]}]}", "cpus", "cpu", 0, "incomplete", (json_int_t)5);
	assert_error(lw_trace_load_windows(t, bad) < 0, "is not [from_ns, to_ns]");
	json_decref(bad);
	bad = json_pack("{s:i}", "cpus", 3);
	assert_error(lw_trace_load_windows(t, bad) < 0, "is not a list");
	json_decref(bad);
	json_decref(tr);
	lw_trace_close(t);
}

static void copy_range(const char *from, const char *to, uint64_t off, uint64_t len)
{
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	char *buf = malloc(len + 1);

	assert_true(in >= 0 && out >= 0 && buf);
	assert_int_equal(pread(in, buf, len, (off_t)off), (ssize_t)len);
	assert_int_equal(write(out, buf, len), (ssize_t)len);
	close(in);
	close(out);
	free(buf);
}

static char *slurp(const char *path, size_t *len)
{
	struct lw_blob b;

	assert_int_equal(lw_blob_read(&b, path), 0);
	*len = b.len;
	return b.data;
}

/* Read the header back, write the file again from it and the CPUs' data:
 * the same bytes. */
static void test_write_round_trip(void **st)
{
	struct lw_tracedat d;
	uint64_t *off, *size;
	char **paths, out[512];
	int *fds;
	size_t a_len, b_len;
	char *a, *b;

	assert_int_equal(lw_tracedat_read(DAT, &d, &off, &size), 0);
	assert_int_equal(d.cpus, json_array_size(json_object_get(mtrace, "cpus")));
	assert_non_null(strstr(d.clock.data, "[mono]"));
	assert_true(d.nsys > 0);
	assert_int_equal(d.kallsyms.len, 0);	/* recorded with --no-kallsyms */
	paths = calloc((size_t)d.cpus, sizeof(*paths));
	for (int c = 0; c < d.cpus; c++) {
		paths[c] = malloc(512);
		snprintf(paths[c], 512, "%s/cpu%d", dir, c);
		copy_range(DAT, paths[c], off[c], size[c]);
	}
	snprintf(out, sizeof(out), "%s/again.dat", dir);
	/* read through the descriptors: the files may be gone by name */
	fds = calloc((size_t)d.cpus, sizeof(*fds));
	for (int c = 0; c < d.cpus; c++) {
		char moved[600];

		fds[c] = open(paths[c], O_RDONLY | O_CLOEXEC);
		assert_true(fds[c] >= 0);
		snprintf(moved, sizeof(moved), "%s.moved", paths[c]);
		assert_int_equal(rename(paths[c], moved), 0);
	}
	assert_int_equal(lw_tracedat_write(LW_AT_PATH, out, &d, fds, (const char *const *)paths), 0);
	for (int c = 0; c < d.cpus; c++) {
		char moved[600];

		snprintf(moved, sizeof(moved), "%s.moved", paths[c]);
		assert_int_equal(rename(moved, paths[c]), 0);
		close(fds[c]);
	}
	free(fds);
	a = slurp(DAT, &a_len);
	b = slurp(out, &b_len);
	assert_int_equal(a_len, b_len);
	assert_memory_equal(a, b, a_len);
	free(a);
	free(b);

	/* the page scan of each CPU's data counts what the reader reads */
	for (int c = 0; c < d.cpus; c++) {
		struct lw_page_scan s;
		size_t len;
		char *data = slurp(paths[c], &len);

		assert_int_equal(lw_page_scan(data, len, d.page_size,
					      lw_header_page_long_size(d.header_page.data), 0, &s), 0);
		assert_int_equal(s.events, cpu_events(c));
		assert_int_equal(s.missed_pages, 0);
		assert_int_equal(s.bad_pages, 0);
		assert_int_equal(s.nwin, 0);

		/* fed a page at a time (as `run` reads its files in chunks): the same */
		{
			struct lw_page_scanner ps;
			struct lw_page_scan s3;

			assert_int_equal(lw_page_scan_begin(&ps, d.page_size,
				lw_header_page_long_size(d.header_page.data), 0, &s3), 0);
			for (size_t o = 0; o < len; o += d.page_size)
				lw_page_scan_feed(&ps, data + o,
						  len - o < d.page_size ? len - o : d.page_size);
			lw_page_scan_end(&ps);
			assert_int_equal(s3.events, s.events);
			assert_int_equal(s3.pages, s.pages);
			assert_int_equal(s3.bytes, s.bytes);
			assert_int_equal(s3.first_ns, s.first_ns);
			assert_int_equal(s3.last_ns, s.last_ns);
			lw_page_scan_free(&s3);
		}

		/* flag the third page "events missed before": one window, from the
		 * last event of the second page to the first of the third */
		if (len >= 3 * d.page_size) {
			struct lw_page_scan s1, s2;

			assert_int_equal(lw_page_scan(data, 2 * d.page_size, d.page_size, 8, 0, &s1), 0);
			data[2 * d.page_size + 8 + 3] |= (char)0x80;	/* commit bit 31 */
			assert_int_equal(lw_page_scan(data, len, d.page_size, 8, 0, &s2), 0);
			assert_int_equal(s2.missed_pages, 1);
			assert_int_equal(s2.missed_unknown, 1);
			assert_int_equal(s2.nwin, 1);
			assert_int_equal(s2.win[0].from_ns, s1.last_ns);
			assert_true(s2.win[0].to_ns >= s2.win[0].from_ns);
			assert_int_equal(s2.events, s.events);
			lw_page_scan_free(&s2);
		}
		/* a commit larger than the page: refused, not read beyond */
		data[8 + 2] = 0x7f;
		assert_int_equal(lw_page_scan(data, d.page_size, d.page_size, 8, 0, &s), 0);
		assert_int_equal(s.bad_pages, 1);
		free(data);
		free(paths[c]);
	}
	free(paths);
	free(off);
	free(size);
	lw_tracedat_free(&d);
}

static void write_damaged(const char *path, size_t keep, long poke_at, uint64_t poke)
{
	size_t len;
	char *a = slurp(DAT, &len);

	if (poke_at >= 0)
		memcpy(a + poke_at, &poke, 8);
	lw_test_write(path, a, keep ? keep : len);
	free(a);
}

static void test_malformed(void **st)
{
	char path[512];
	struct lw_tracedat d;
	uint64_t *off, *size;

	snprintf(path, sizeof(path), "%s/bad.dat", dir);
	lw_test_write(path, "", 0);
	assert_error(lw_trace_open(path, 0) == NULL, "truncated at byte 0");
	lw_test_write(path, "hello, this is not a trace file at all", 38);
	assert_error(lw_trace_open(path, 0) == NULL, "bad magic");
	lw_test_write(path, "\x17\x08\x44tracing" "9\0\0\x08", 14);
	assert_error(lw_trace_open(path, 0) == NULL, "unsupported trace.dat version '9'");
	write_damaged(path, 2000, -1, 0);
	assert_error(lw_trace_open(path, 0) == NULL, "truncated at byte");
	assert_error(lw_tracedat_read(path, &d, &off, &size) < 0, "truncated at byte");
	/* a header_page size far beyond the file */
	write_damaged(path, 0, 30, 1ULL << 40);
	assert_error(lw_trace_open(path, 0) == NULL, "byte 30: header_page of 1099511627776 is more than");
	/* cut inside the CPU data: the offsets point beyond the end */
	{
		size_t len;
		char *a = slurp(DAT, &len);

		free(a);
		write_damaged(path, len - 8192, -1, 0);
		assert_error(lw_trace_open(path, 0) == NULL, "lies beyond the end of the file");
	}
	/* text sections in the kernel's form only: a print format's expression
	 * broken (a { list after a value) is refused before libtraceevent
	 * parses it; so is a field beyond any record */
	{
		size_t len;
		char *a = slurp(DAT, &len), *pf = memmem(a, len, "print fmt: ", 11), *rec;

		assert_non_null(pf);
		rec = memmem(pf, len - (size_t)(pf - a), "REC->", 5);
		assert_non_null(rec);
		memcpy(rec + 3, " {", 2);
		lw_test_write(path, a, len);
		assert_error(lw_trace_open(path, 0) == NULL,
			     "a { list where no value may start in the print format");
		free(a);
	}
	/* a data page whose commit claims more than a page: refused at open,
	 * before kbuffer reads it */
	{
		struct lw_tracedat d0;
		uint64_t *o, *z;
		char want[64];

		assert_int_equal(lw_tracedat_read(DAT, &d0, &o, &z), 0);
		assert_true(z[0] >= d0.page_size);
		write_damaged(path, 0, (long)o[0] + 8, 0xffffff);
		snprintf(want, sizeof(want), "cpu 0: corrupt page at byte %llu",
			 (unsigned long long)o[0]);
		assert_error(lw_trace_open(path, 0) == NULL, want);
		lw_tracedat_free(&d0);
		free(o);
		free(z);
	}
	assert_error(lw_trace_open("/nonexistent/trace.dat", 0) == NULL, "cannot open");
	assert_error(lw_trace_open_run("/nonexistent", 0) == NULL, "/nonexistent");
}

static int parse_run(struct lw_run_opts *o, const char *args)
{
	static char buf[512];	/* the options point into it */
	char *argv[32], *save = NULL;
	int argc = 0;
	cpu_set_t online;

	CPU_ZERO(&online);
	CPU_SET(0, &online);
	CPU_SET(1, &online);
	snprintf(buf, sizeof(buf), "run -o R %s", args);
	for (char *t = strtok_r(buf, " ", &save); t && argc < 31; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	lw_run_opts_default(o, &online);
	return lw_run_opts_parse(o, argc, argv, &online);
}

/* --trace, --trace-buffer, --no-kallsyms, and the event list syntax. */
static void test_options(void **st)
{
	struct lw_run_opts o;

	assert_int_equal(parse_run(&o, ""), 0);
	assert_null(o.trace);
	assert_int_equal(o.trace_buffer, 0);
	assert_false(o.no_kallsyms);
	assert_int_equal(parse_run(&o, "--trace off"), 0);
	assert_string_equal(o.trace, "off");
	assert_int_equal(parse_run(&o, "--trace default"), 0);
	assert_string_equal(o.trace, "default");
	assert_int_equal(parse_run(&o, "--trace default,block:*,sched:sched_switch,irq_vectors:x.y-z"), 0);
	assert_int_equal(parse_run(&o, "--trace-buffer 8M --no-kallsyms"), 0);
	assert_int_equal(o.trace_buffer, 8ULL << 20);
	assert_true(o.no_kallsyms);
	assert_int_equal(parse_run(&o, "--trace-buffer 16k"), 0);

	assert_error(parse_run(&o, "--trace sched") < 0, "--trace: 'sched' is not an event");
	assert_error(parse_run(&o, "--trace sched:") < 0, "'sched:' is not an event");
	assert_error(parse_run(&o, "--trace :x") < 0, "':x' is not an event");
	assert_error(parse_run(&o, "--trace a:b,") < 0, "list ends with a comma");
	assert_error(parse_run(&o, "--trace a:b,,c:d") < 0, "'' is not an event");
	assert_error(parse_run(&o, "--trace off,sched:*") < 0, "'off' is not an event");
	assert_error(parse_run(&o, "--trace a/b:c") < 0, "'a/b:c' is not an event");
	assert_error(parse_run(&o, "--trace a:b*") < 0, "'a:b*' is not an event");
	assert_error(parse_run(&o, "--trace") < 0, "needs a value");
	assert_error(parse_run(&o, "--trace-buffer 1") < 0, "--trace-buffer: must be between");
	assert_error(parse_run(&o, "--trace-buffer 8G") < 0, "--trace-buffer: must be between");
	assert_error(parse_run(&o, "--trace-buffer lots") < 0, "--trace-buffer");
	assert_error(lw_trace_check_list("--x", "") < 0, "--x: empty event list");
	/* the default set is well formed */
	for (int i = 0; lw_trace_default_events[i]; i++)
		assert_int_equal(lw_trace_check_list("default", lw_trace_default_events[i]), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merged_order_and_counts),
		cmocka_unit_test(test_per_cpu),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_markers_match_samples),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_write_round_trip),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_options),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
