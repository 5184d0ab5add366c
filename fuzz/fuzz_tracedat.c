// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat: the structural check, then the reader (lib/trace_read.h)
 * as analyze, tracedump and power estimate use it: every event merged over
 * the CPUs with field reads and tracedump's printing, then one CPU's walk,
 * then the header read back as lw_tracedat_read() does.
 */
#include <event-parse.h>
#include <trace-seq.h>

#include "lib/trace_read.h"
#include "fuzz/fuzz.h"
#include "lib/tracedat.h"

#define MAX_EVENTS 200000

static void walk(struct lw_trace *t, int cpu, struct trace_seq *s)
{
	struct lw_trace_event ev;
	int sw = lw_trace_event_id(t, "sched", "sched_switch");
	int idle = lw_trace_event_id(t, "power", "cpu_idle");

	for (int n = 0; n < MAX_EVENTS; n++) {
		uint64_t u;
		int64_t v;
		size_t len;

		if ((cpu < 0 ? lw_trace_next(t, &ev) : lw_trace_next_cpu(t, cpu, &ev)) <= 0)
			break;
		if (ev.id == sw) {
			lw_trace_u64(t, &ev, "next_pid", &u);
			lw_trace_s64(t, &ev, "prev_state", &v);
			lw_trace_str(t, &ev, "next_comm", &len);
		} else if (ev.id == idle) {
			lw_trace_u64(t, &ev, "state", &u);
			lw_trace_u64(t, &ev, "cpu_id", &u);
		} else {
			lw_trace_str(t, &ev, "buf", &len);
			lw_trace_u64(t, &ev, "ip", &u);
		}
		lw_trace_comm(t, ev.pid);
		if (s && lw_trace_record_ok(t, &ev)) {	/* as tracedump prints */
			trace_seq_reset(s);
			tep_print_event(lw_trace_tep(t), s, ev.record, "%s", TEP_PRINT_INFO);
			trace_seq_terminate(s);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[512];
	struct lw_trace *t;
	struct lw_tracedat d;
	uint64_t *off, *sz;

	fz_write("trace.dat", data, size, path, sizeof(path));
	t = lw_trace_open(path, 0);
	if (t) {
		struct trace_seq s;

		trace_seq_init(&s);
		walk(t, -1, &s);
		trace_seq_destroy(&s);
		lw_trace_rewind(t);
		walk(t, 0, NULL);
		lw_trace_close(t);
	}
	if (lw_tracedat_read(path, &d, &off, &sz) == 0) {
		lw_tracedat_free(&d);
		free(off);
		free(sz);
	}
	return 0;
}
