// SPDX-License-Identifier: GPL-2.0-only
/* latwatt boards: list, show and check board files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boards/board.h"
#include "cmd/commands.h"
#include "lib/error.h"
#include "lib/metrics.h"

static const char usage[] =
"usage: latwatt boards [list] [--json]\n"
"       latwatt boards show NAME|FILE [--json]\n"
"       latwatt boards check NAME|FILE...\n"
"\n"
"Board files (boards/NAME.yaml) describe a board's CPUs, expected kernel,\n"
"idle states and operating points with their power, power sources and\n"
"budgets.  'list' shows the boards found, 'show' one board as latwatt reads\n"
"it (with what 'local' discovers), 'check' validates files (exit 0 when\n"
"all are valid, 2 otherwise).\n"
"\n"
"Boards are looked up in $LATWATT_BOARDS (colon separated; a folder and file\n"
"used only when owned by root or you and not writable by others), the boards/\n"
"folder next to the latwatt binary (or ../boards from it), /etc/latwatt/boards\n"
"and PREFIX/share/latwatt/boards.  Never ./boards: name a file there as\n"
"./boards/NAME.yaml.\n";

static void print_text(const struct lw_board *b)
{
	json_t *j = lw_board_to_json(b), *a, *v;
	size_t i;

	printf("%s: %s\n", b->name, b->description ? b->description : "");
	printf("  file:       %s\n", b->path ? b->path : "(built in)");
	printf("  arch:       %s%s%s\n", b->arch ? b->arch : "?", b->emulated ? " (emulated)" : "",
	       b->discovered ? " (discovered)" : "");
	json_t *cpus = json_object_get(j, "cpus"), *k = json_object_get(j, "kernel");

	printf("  cpus:       %lld", (long long)json_integer_value(json_object_get(cpus, "count")));
	if (json_is_string(json_object_get(cpus, "housekeeping")))
		printf(", housekeeping %s", json_string_value(json_object_get(cpus, "housekeeping")));
	if (json_is_string(json_object_get(cpus, "realtime")))
		printf(", realtime %s", json_string_value(json_object_get(cpus, "realtime")));
	printf("\n  kernel:     %s", b->kernel.preempt_rt == 1 ? "PREEMPT_RT" :
	       b->kernel.preempt_rt == 0 ? "not PREEMPT_RT" : "any preemption model");
	static const char *const sets[] = { "nohz_full", "isolated", "rcu_nocbs" };
	for (int s = 0; s < 3; s++)
		if (json_is_string(json_object_get(k, sets[s])))
			printf(", %s=%s", sets[s], json_string_value(json_object_get(k, sets[s])));
	printf("\n");
	a = json_object_get(j, "idle_states");
	printf("  idle:       %s\n", json_array_size(a) ? "" : "(none listed)");
	json_array_foreach(a, i, v) {
		double p = json_real_value(json_object_get(v, "power_mw"));

		printf("    %-16s exit %6.0fus  residency %6.0fus  ", json_string_value(json_object_get(v, "name")),
		       json_real_value(json_object_get(v, "exit_latency_us")),
		       json_real_value(json_object_get(v, "target_residency_us")));
		if (json_is_real(json_object_get(v, "power_mw")))
			printf("%8.1f mW%s\n", p, json_is_true(json_object_get(v, "estimated")) ? " (estimated)" : "");
		else
			printf("   power ?\n");
	}
	a = json_object_get(j, "operating_points");
	printf("  opps:       %s\n", json_array_size(a) ? "" : "(none listed)");
	json_array_foreach(a, i, v) {
		printf("    %8lld kHz  ", (long long)json_integer_value(json_object_get(v, "freq_khz")));
		if (json_is_real(json_object_get(v, "voltage_mv")))
			printf("%6.0f mV  ", json_real_value(json_object_get(v, "voltage_mv")));
		else
			printf("          ");
		if (json_is_real(json_object_get(v, "power_mw")))
			printf("%8.1f mW%s\n", json_real_value(json_object_get(v, "power_mw")),
			       json_is_true(json_object_get(v, "estimated")) ? " (estimated)" : "");
		else
			printf("   power ?\n");
	}
	if (b->static_power_mw >= 0)
		printf("  static:     %.0f mW\n", b->static_power_mw);
	printf("  power:      %s", b->power ? b->power : "auto");
	for (int s = 0; s < b->nsrc; s++)
		printf("%s%s%s%s", s ? ", " : "; sources: ", b->src[s].type,
		       b->src[s].device ? ":" : "", b->src[s].device ? b->src[s].device : "");
	printf("\n  budgets:    %s\n", b->nbudget ? "" : "(none)");
	for (int s = 0; s < b->nbudget; s++) {
		const struct lw_budget *bu = &b->budget[s];

		json_t *bj = json_array_get(json_object_get(j, "budgets"), (size_t)s);
		if (bu->m->probe)
			printf("    latency %s %s <= %g us\n", bu->probe ? bu->probe : "(every probe)",
			       bu->stat, bu->limit);
		else
			printf("    %s <= %g\n", json_string_value(json_object_get(bj, "kind")), bu->limit);
	}
	for (int s = 0; s < b->nsources; s++)
		printf("%s%s\n", s ? "              " : "  sources:    ", b->sources[s]);
	json_decref(j);
}

static int list(int as_json)
{
	json_t *l = lw_board_list(), *v;
	size_t i;

	if (as_json) {
		char *s = json_dumps(l, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		puts(s);
		free(s);
	} else {
		printf("%-18s %-8s %-7s %s\n", "NAME", "ARCH", "BUDGETS", "DESCRIPTION");
		json_array_foreach(l, i, v) {
			const char *err = json_string_value(json_object_get(v, "error"));

			printf("%-18s %-8s %-7s %s\n", json_string_value(json_object_get(v, "name")),
			       json_is_string(json_object_get(v, "arch")) ?
			       json_string_value(json_object_get(v, "arch")) : "-",
			       json_is_true(json_object_get(v, "budgets")) ? "yes" : "no",
			       err ? err : json_is_string(json_object_get(v, "description")) ?
			       json_string_value(json_object_get(v, "description")) : "");
		}
	}
	json_decref(l);
	return LW_EXIT_OK;
}

int cmd_boards(int argc, char **argv)
{
	int as_json = 0, nargs = 0;
	const char *sub = "list";
	char *args[256];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			as_json = 1;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return LW_EXIT_OK;
		} else if (argv[i][0] == '-') {
			error("unknown option '%s' (see 'latwatt boards --help')", argv[i]);
			return LW_EXIT_ERROR;
		} else if (nargs < 256)
			args[nargs++] = argv[i];
	}
	if (nargs) {
		sub = args[0];
		memmove(args, args + 1, (size_t)--nargs * sizeof(*args));
	}
	if (!strcmp(sub, "list")) {
		if (nargs) {
			error("boards list: unexpected argument '%s'", args[0]);
			return LW_EXIT_ERROR;
		}
		return list(as_json);
	}
	if (!strcmp(sub, "show")) {
		struct lw_board *b;

		if (nargs != 1) {
			error("boards show: give one board NAME or FILE");
			return LW_EXIT_ERROR;
		}
		b = lw_board_find(args[0], NULL);
		if (!b)
			return LW_EXIT_ERROR;
		if (as_json) {
			json_t *j = lw_board_to_json(b);
			char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

			puts(s);
			free(s);
			json_decref(j);
		} else {
			print_text(b);
		}
		lw_board_free(b);
		return LW_EXIT_OK;
	}
	if (!strcmp(sub, "check")) {
		int bad = 0;

		if (!nargs) {
			error("boards check: give board names or files");
			return LW_EXIT_ERROR;
		}
		for (int i = 0; i < nargs; i++) {
			struct lw_board *b = lw_board_find(args[i], NULL);

			if (!b) {
				bad++;
				continue;
			}
			printf("%s: ok (%s)\n", b->path ? b->path : args[i], b->name);
			lw_board_free(b);
		}
		return bad ? LW_EXIT_ERROR : LW_EXIT_OK;
	}
	error("boards: unknown subcommand '%s' (list, show, check)", sub);
	return LW_EXIT_ERROR;
}
