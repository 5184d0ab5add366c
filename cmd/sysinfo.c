// SPDX-License-Identifier: GPL-2.0-only
/* latwatt sysinfo: what a run records about this system, and what to fix. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "lib/error.h"
#include "lib/parse.h"
#include "lib/sysinfo.h"
#include "boards/board.h"
#include "power/sources.h"

static const char usage[] =
"usage: latwatt sysinfo [OPTIONS]\n"
"\n"
"Show what 'latwatt run' records about this system (kernel, preemption model,\n"
"NO_HZ and isolated CPUs, clocksource, hypervisor, idle states, PM QoS, CPUs,\n"
"cpufreq) and warn about what matters for realtime latency.\n"
"\n"
"      --json              print the JSON that goes into manifest.json\n"
"      --idle-budget US    warn about enabled idle states slower to exit than US\n"
"                          (default 100)\n"
"      --root DIR          read proc/ and sys/ under DIR (a copy of a board's)\n"
"      --board NAME        say how this system differs from board NAME (kernel,\n"
"                          isolation, idle states, power sensors); exit 1 if it does\n"
"  -h, --help              this text\n"
"\n"
"Exit status: 0, 1 when it differs from --board, or 2 on bad options.\n";

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s && *s ? s : "-";
}

/* "hypervisor   QEMU (cpuinfo flag hypervisor, DMI: QEMU Standard PC)" or "none found" */
static void print_hypervisor(const json_t *hv)
{
	json_t *e;
	size_t i;

	if (!json_is_true(json_object_get(hv, "virtual"))) {
		printf("hypervisor   none found\n");
		return;
	}
	printf("hypervisor   %s (", str(hv, "name"));
	json_array_foreach(json_object_get(hv, "evidence"), i, e)
		printf("%s%s", i ? ", " : "", json_string_value(e));
	if (json_is_string(json_object_get(hv, "vendor")))
		printf("; DMI: %s %s", str(hv, "vendor"), str(hv, "product"));
	printf(")\n");
}

static void print_text(const json_t *sys, const json_t *warnings)
{
	const json_t *k = json_object_get(sys, "kernel"), *p = json_object_get(sys, "preempt");
	const json_t *idle = json_object_get(sys, "cpuidle"), *cpu = json_object_get(sys, "cpu");
	json_t *c, *st, *w;
	size_t i, j;

	printf("kernel       %s %s\n", str(k, "release"), str(k, "version"));
	printf("preemption   %s%s%s%s\n", str(p, "model"),
	       json_is_string(json_object_get(p, "dynamic_mode")) ? " (mode " : "",
	       json_is_string(json_object_get(p, "dynamic_mode")) ? str(p, "dynamic_mode") : "",
	       json_is_string(json_object_get(p, "dynamic_mode")) ? ")" : "");
	printf("realtime     %s\n", lw_sysinfo_is_rt(sys) ? "yes (PREEMPT_RT)" : "no");
	printf("cmdline      %s\n", str(sys, "cmdline"));
	printf("nohz_full    %s\n", str(sys, "nohz_full"));
	printf("isolated     %s\n", str(sys, "isolated"));
	printf("clocksource  %s (available: %s)%s%s\n", str(json_object_get(sys, "clocksource"), "current"),
	       str(json_object_get(sys, "clocksource"), "available"),
	       json_is_string(json_object_get(json_object_get(sys, "clocksource"), "note")) ? ": " : "",
	       json_is_string(json_object_get(json_object_get(sys, "clocksource"), "note")) ?
	       str(json_object_get(sys, "clocksource"), "note") : "");
	print_hypervisor(json_object_get(sys, "hypervisor"));
	printf("cpus         %lld online (%s), %s\n",
	       (long long)json_integer_value(json_object_get(cpu, "count")), str(cpu, "online"),
	       str(cpu, "model"));
	if (json_is_integer(json_object_get(sys, "pm_qos_us"))) {
		long long q = json_integer_value(json_object_get(sys, "pm_qos_us"));

		if (q >= 2000000000LL)
			printf("pm qos       unset (no limit on idle-state exit latency)\n");
		else
			printf("pm qos       %lldus\n", q);
	}
	printf("timerlat     %s\n", json_is_true(json_object_get(sys, "timerlat")) ? "yes" : "no");
	printf("cpuidle      driver %s, governor %s\n", str(idle, "driver"), str(idle, "governor"));
	json_array_foreach(json_object_get(idle, "cpus"), i, c) {
		printf("  cpu%-3lld", (long long)json_integer_value(json_object_get(c, "cpu")));
		json_array_foreach(json_object_get(c, "states"), j, st)
			printf(" %s(exit %lldus, residency %lldus%s)", str(st, "name"),
			       (long long)json_integer_value(json_object_get(st, "exit_latency_us")),
			       (long long)json_integer_value(json_object_get(st, "target_residency_us")),
			       json_integer_value(json_object_get(st, "disabled")) ? ", disabled" : "");
		putchar('\n');
	}
	json_array_foreach(json_object_get(sys, "cpufreq"), i, c)
		printf("cpufreq cpu%lld governor %s driver %s\n",
		       (long long)json_integer_value(json_object_get(c, "cpu")), str(c, "governor"),
		       str(c, "driver"));
	json_array_foreach(warnings, i, w)
		printf("warning: %s\n", json_string_value(w));
}

int cmd_sysinfo(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json",        no_argument,       NULL, 'j' },
		{ "idle-budget", required_argument, NULL, 'b' },
		{ "root",        required_argument, NULL, 'r' },
		{ "help",        no_argument,       NULL, 'h' },
		{ "board",       required_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 },
	};
	const char *board = NULL;
	json_t *diffs = NULL;
	int ret = LW_EXIT_OK;
	uint64_t budget_us = 100;
	const char *root = NULL;
	int as_json = 0, c;
	json_t *sys, *warnings;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			as_json = 1;
			break;
		case 'b':
			if (lw_parse_uint("--idle-budget", optarg, 0, 10000000, &budget_us) < 0)
				return LW_EXIT_ERROR;
			break;
		case 'r':
			root = optarg;
			break;
		case 'B':
			board = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return LW_EXIT_OK;
		default:	/* ':' or an unknown option */
			lw_opt_error(c, argv, "sysinfo");
			return LW_EXIT_ERROR;
		}
	}
	if (optind != argc) {
		error("unexpected argument '%s' (see 'latwatt sysinfo --help')", argv[optind]);
		return LW_EXIT_ERROR;
	}
	sys = lw_sysinfo_collect(root);
	warnings = lw_sysinfo_warnings(sys, budget_us);
	if (board) {
		struct lw_board *b = lw_board_find(board, root);

		if (!b) {
			json_decref(warnings);
			json_decref(sys);
			return LW_EXIT_ERROR;
		}
		json_object_set_new(sys, "power_sources", lw_power_discover_json(root, NULL));
		diffs = lw_board_check(b, sys);
		if (json_array_size(diffs))
			ret = LW_EXIT_FAIL;
		json_object_set_new(sys, "board_check", json_pack("{s:s, s:O}", "board", b->name,
								  "differences", diffs));
		lw_board_free(b);
	}
	if (as_json) {
		json_object_set(sys, "warnings", warnings);
		json_dumpf(sys, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
	} else {
		print_text(sys, warnings);
		if (diffs) {
			json_t *d;
			size_t i;

			printf("board %s: %s\n", board, json_array_size(diffs) ?
			       "this system differs:" : "this system matches");
			json_array_foreach(diffs, i, d)
				printf("  differs: %s\n", json_string_value(json_object_get(d, "message")));
		}
	}
	json_decref(diffs);
	json_decref(warnings);
	json_decref(sys);
	return ret;
}
