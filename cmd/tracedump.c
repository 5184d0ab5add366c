// SPDX-License-Identifier: GPL-2.0-only
/* latwatt tracedump: a run's kernel trace through the reading API. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "lib/trace_read.h"
#include "cmd/commands.h"
#include "lib/error.h"
#include "lib/parse.h"

static const char usage[] =
"usage: latwatt tracedump [OPTIONS] RUN|FILE.dat\n"
"\n"
"Print the kernel trace of a run (RUN/trace.dat) event by event, in\n"
"timestamp order, with CLOCK_MONOTONIC nanosecond timestamps, one a line:\n"
"  TIMESTAMP_NS CPU PID SYSTEM:EVENT COMMAND: FIELDS\n"
"\n"
"  -c, --cpu N       only the events of CPU N\n"
"  -e, --event S:E   only events S:E (repeatable, up to 16)\n"
"  -n, --limit N     stop after N events\n"
"  -s, --summary     counts per event and per CPU, lost events and windows\n"
"      --count       only count the events (a speed test of the reader)\n"
"  -h, --help        this text\n";

enum { OPT_COUNT = 256 };

static const struct option opts[] = {
	{ "cpu",     required_argument, NULL, 'c' },
	{ "event",   required_argument, NULL, 'e' },
	{ "limit",   required_argument, NULL, 'n' },
	{ "summary", no_argument,       NULL, 's' },
	{ "count",   no_argument,       NULL, OPT_COUNT },
	{ "help",    no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct type_count {
	const char *system, *name;
	uint64_t n;
};

static int summary(struct lw_trace *t, int cpu, uint64_t limit)
{
	struct lw_trace_event ev;
	struct type_count *tc = NULL;
	int ntc = 0, cpus = lw_trace_cpus(t), ret = 0;
	uint64_t *per_cpu = calloc((size_t)cpus, sizeof(*per_cpu)), total = 0, first = 0, last = 0;
	uint64_t missed_known = 0, missed_unknown = 0;

	if (!per_cpu)
		return error("out of memory");
	while (total < limit && (ret = cpu >= 0 ? lw_trace_next_cpu(t, cpu, &ev) : lw_trace_next(t, &ev)) > 0) {
		int i;

		for (i = 0; i < ntc; i++)
			if (tc[i].name == ev.name)
				break;
		if (i == ntc) {
			struct type_count *n = realloc(tc, (size_t)(ntc + 1) * sizeof(*n));

			if (!n) {
				free(tc);
				free(per_cpu);
				return error("out of memory");
			}
			tc = n;
			tc[ntc++] = (struct type_count){ ev.system, ev.name, 0 };
		}
		tc[i].n++;
		per_cpu[ev.cpu]++;
		if (!total)
			first = ev.ts_ns;
		last = ev.ts_ns;
		total++;
		if (ev.missed > 0)
			missed_known += (uint64_t)ev.missed;
		else if (ev.missed < 0)
			missed_unknown++;
	}
	printf("events %llu, clock %s, from %llu to %llu ns\n", (unsigned long long)total,
	       lw_trace_clock(t), (unsigned long long)first, (unsigned long long)last);
	for (int i = 0; i < ntc; i++)
		printf("  %10llu  %s:%s\n", (unsigned long long)tc[i].n, tc[i].system, tc[i].name);
	for (int c = 0; c < cpus; c++) {
		const struct lw_trace_window *w;
		size_t nw = lw_trace_windows(t, c, &w);

		printf("cpu %d: %llu events, %zu loss windows\n", c, (unsigned long long)per_cpu[c], nw);
		for (size_t i = 0; i < nw; i++)
			printf("  incomplete %llu .. %llu ns\n", (unsigned long long)w[i].from_ns,
			       (unsigned long long)w[i].to_ns);
	}
	printf("lost events seen in pages: %llu counted, %llu pages without a count\n",
	       (unsigned long long)missed_known, (unsigned long long)missed_unknown);
	free(tc);
	free(per_cpu);
	return ret < 0 ? -1 : 0;
}

int cmd_tracedump(int argc, char **argv)
{
	const char *events[16];
	int nevents = 0, cpu = -1, sum = 0, count = 0, c, ret = 0;
	uint64_t limit = UINT64_MAX, v, n = 0;
	struct lw_trace *t;
	struct lw_trace_event ev;
	struct stat st;
	int ids[16];

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:e:n:sh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (lw_parse_uint("--cpu", optarg, 0, 8191, &v) < 0)
				return LW_EXIT_ERROR;
			cpu = (int)v;
			break;
		case 'e':
			if (nevents == 16)
				return error("--event: at most 16"), LW_EXIT_ERROR;
			if (!strchr(optarg, ':'))
				return error("--event: '%s' is not SYSTEM:EVENT", optarg), LW_EXIT_ERROR;
			events[nevents++] = optarg;
			break;
		case 'n':
			if (lw_parse_uint("--limit", optarg, 1, UINT64_MAX, &limit) < 0)
				return LW_EXIT_ERROR;
			break;
		case 's':
			sum = 1;
			break;
		case OPT_COUNT:
			count = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return LW_EXIT_OK;
		default:	/* ':' or an unknown option */
			lw_opt_error(c, argv, "tracedump");
			return LW_EXIT_ERROR;
		}
	}
	if (optind != argc - 1) {
		error("give one run directory or trace file (see 'latwatt tracedump --help')");
		return LW_EXIT_ERROR;
	}
	if (stat(argv[optind], &st) < 0) {
		error_errno("cannot open %s", argv[optind]);
		return LW_EXIT_ERROR;
	}
	t = S_ISDIR(st.st_mode) ? lw_trace_open_run(argv[optind], count ? 0 : LW_TRACE_PLUGINS)
				: lw_trace_open(argv[optind], count ? 0 : LW_TRACE_PLUGINS);
	if (!t)
		return LW_EXIT_ERROR;
	if (cpu >= lw_trace_cpus(t)) {
		error("--cpu: the trace has %d CPUs", lw_trace_cpus(t));
		lw_trace_close(t);
		return LW_EXIT_ERROR;
	}
	for (int i = 0; i < nevents; i++) {
		char sys[128];
		const char *colon = strchr(events[i], ':');

		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - events[i]), events[i]);
		ids[i] = lw_trace_event_id(t, sys, colon + 1);
		if (ids[i] < 0)
			warning("--event: the trace has no %s", events[i]);
	}
	if (sum) {
		ret = summary(t, cpu, limit);
		lw_trace_close(t);
		return ret < 0 ? LW_EXIT_ERROR : LW_EXIT_OK;
	}

	struct trace_seq s;

	trace_seq_init(&s);
	while (n < limit && (ret = cpu >= 0 ? lw_trace_next_cpu(t, cpu, &ev) : lw_trace_next(t, &ev)) > 0) {
		int keep = !nevents;

		for (int i = 0; i < nevents && !keep; i++)
			keep = ev.id == ids[i];
		if (!keep)
			continue;
		n++;
		if (count)
			continue;
		trace_seq_reset(&s);
		if (lw_trace_record_ok(t, &ev))
			tep_print_event(lw_trace_tep(t), &s, ev.record, "%s", TEP_PRINT_INFO);
		else
			trace_seq_puts(&s, "(a field lies beyond the record: not printed)");
		trace_seq_terminate(&s);
		while (s.len && s.buffer[s.len - 1] == '\n')
			s.buffer[--s.len] = 0;
		/* the command name last before the fields: it may hold spaces */
		printf("%llu %d %d %s:%s%s %s: %s\n", (unsigned long long)ev.ts_ns, ev.cpu, ev.pid,
		       ev.system, ev.name, ev.missed ? " [after-lost-events]" : "",
		       lw_trace_comm(t, ev.pid), s.buffer);
	}
	trace_seq_destroy(&s);
	if (count)
		printf("%llu events\n", (unsigned long long)n);
	lw_trace_close(t);
	if (fflush(stdout) != 0)
		return LW_EXIT_ERROR;
	return ret < 0 ? LW_EXIT_ERROR : LW_EXIT_OK;
}
