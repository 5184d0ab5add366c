// SPDX-License-Identifier: GPL-2.0-only
/* latwatt power: sources, estimate, import, show. */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boards/board.h"
#include "cmd/commands.h"
#include "lib/error.h"
#include "lib/parse.h"
#include "lib/timeutil.h"
#include "power/estimate.h"
#include "power/idle.h"
#include "power/import.h"
#include "power/power.h"
#include "power/sources.h"

/* The text of `latwatt power --help`, around the table of power sources. */
static const char usage_head[] =
"usage: latwatt power sources [--power SOURCES] [--sysfs-root DIR] [--iio-uri URI]\n"
"                             [--board NAME] [--json]\n"
"       latwatt power show RUN [--board NAME] [--json]\n"
"       latwatt power estimate RUN [--board NAME] [--power-rate HZ] [--force]\n"
"       latwatt power import RUN METER.csv (--offset S | --marker COLUMN)\n"
"                            [--column NAME[:W|mW|uW]]... [--time-col NAME]\n"
"                            [--time-unit s|ms|us|ns]\n"
"\n"
"sources   the power rails found here, each read twice 200ms apart; --power\n"
"          chooses the sources (auto: every sensor, else the energy model):\n";
static const char usage_tail[] =
"show      RUN/power summarized (per rail average, min, max, energy, gaps) and\n"
"          the idle-state residency of RUN/idle.json; estimates RUN/power from\n"
"          RUN/trace.dat first when the run has none\n"
"estimate  RUN/power from the traced power:cpu_idle and power:cpu_frequency\n"
"          events with the board's energy model (labelled estimated)\n"
"import    an external meter's CSV log, aligned to the run by --offset (the\n"
"          meter's time in seconds when the run started) or --marker (the\n"
"          first row where that column is set), added to RUN/power as rails\n"
"          meter/COLUMN; importing the same columns again replaces them\n"
"\n"
"Exit status: 0 done, 2 error.\n";

static void usage_print(FILE *out)
{
	fputs(usage_head, out);
	for (int i = 0; i < LW_SRC_NTYPES; i++)
		fprintf(out, "            %-8s %s\n", lw_power_source_types[i]->name,
			lw_power_source_types[i]->help);
	fputs(usage_tail, out);
}

enum { O_POWER = 256, O_ROOT, O_IIO, O_BOARD, O_JSON, O_RATE, O_FORCE, O_OFFSET, O_MARKER,
       O_COLUMN, O_TIMECOL, O_TIMEUNIT };

static const struct option opts[] = {
	{ "power", required_argument, NULL, O_POWER },
	{ "sysfs-root", required_argument, NULL, O_ROOT },
	{ "iio-uri", required_argument, NULL, O_IIO },
	{ "board", required_argument, NULL, O_BOARD },
	{ "json", no_argument, NULL, O_JSON },
	{ "power-rate", required_argument, NULL, O_RATE },
	{ "force", no_argument, NULL, O_FORCE },
	{ "offset", required_argument, NULL, O_OFFSET },
	{ "marker", required_argument, NULL, O_MARKER },
	{ "column", required_argument, NULL, O_COLUMN },
	{ "time-col", required_argument, NULL, O_TIMECOL },
	{ "time-unit", required_argument, NULL, O_TIMEUNIT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct popts {
	const char *power, *root, *iio_uri, *board;
	int json, force;
	double rate_hz;
	struct lw_import_opts imp;
	const char *cols[64];
	char *args[8];
	int nargs;
};

static int parse(struct popts *p, int argc, char **argv)
{
	int c;

	memset(p, 0, sizeof(*p));
	p->power = NULL;
	p->root = "";
	p->rate_hz = 10;
	p->imp.offset_s = NAN;
	p->imp.columns = p->cols;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case O_POWER: p->power = optarg; break;
		case O_ROOT:
			if (!*optarg)
				return error("--sysfs-root: empty directory name");
			p->root = optarg;
			break;
		case O_IIO: p->iio_uri = optarg; break;
		case O_BOARD: p->board = optarg; break;
		case O_JSON: p->json = 1; break;
		case O_FORCE: p->force = 1; break;
		case O_RATE:
			if (lw_parse_double("--power-rate", optarg, 0.1, 10000, &p->rate_hz) < 0)
				return -1;
			break;
		case O_OFFSET:
			if (lw_parse_double("--offset", optarg, -1e9, 1e9, &p->imp.offset_s) < 0)
				return -1;
			break;
		case O_MARKER: p->imp.marker = optarg; break;
		case O_COLUMN:
			if (p->imp.ncolumns == 64)
				return error("--column: at most 64");
			p->cols[p->imp.ncolumns++] = optarg;
			break;
		case O_TIMECOL: p->imp.time_col = optarg; break;
		case O_TIMEUNIT: p->imp.time_unit = optarg; break;
		case 'h':
			usage_print(stdout);
			return 1;
		default:	/* ':' or an unknown option */
			return lw_opt_error(c, argv, "power");
		}
	}
	for (; optind < argc; optind++) {
		if (p->nargs == 8)
			return error("too many arguments");
		p->args[p->nargs++] = argv[optind];
	}
	if (!isnan(p->imp.offset_s) && p->imp.marker)
		return error("give --offset or --marker, not both");
	return 0;
}

static void dump(json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	puts(s);
	free(s);
}

static int do_sources(struct popts *p)
{
	struct lw_power_opts o = { .root = p->root, .iio_uri = p->iio_uri };
	struct lw_board *b = NULL;
	struct lw_chans cs;
	json_t *out;
	double w[2], e[2], v, a;
	char why[512];
	int ret = LW_EXIT_OK;

	if (lw_power_parse_sources("--power", p->power ? p->power : "auto", &o.mask, &o.is_auto) < 0)
		return LW_EXIT_ERROR;
	if ((o.mask & LW_SRC_MODEL) || p->board) {
		b = lw_board_find(p->board ? p->board : "local", p->root);
		if (!b)
			return LW_EXIT_ERROR;
		o.board = b;
	}
	if (lw_power_discover(&o, &cs) < 0) {
		lw_board_free(b);
		return LW_EXIT_ERROR;
	}
	out = json_array();
	for (int pass = 0; pass < 2; pass++) {
		uint64_t now = lw_mono_ns();

		for (int i = 0; i < cs.n; i++) {
			int ok = lw_chan_read(cs.c[i], now, &w[pass], &e[pass], &v, &a, why, sizeof(why));

			if (pass == 0)
				continue;
			json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:b, s:b, s:o, s:o, s:o, s:s}",
				"name", lw_chan_name(cs.c[i]), "source", lw_chan_source(cs.c[i]),
				"kind", lw_chan_flags(cs.c[i]) & LW_RAIL_ESTIMATED ? "estimated" : "measured",
				"total", !!(lw_chan_flags(cs.c[i]) & LW_RAIL_TOTAL),
				"energy_counter", !!(lw_chan_flags(cs.c[i]) & LW_RAIL_ENERGY),
				"watts", ok == 0 && !isnan(w[1]) ? json_real(w[1]) : json_null(),
				"volts", ok == 0 && !isnan(v) ? json_real(v) : json_null(),
				"amps", ok == 0 && !isnan(a) ? json_real(a) : json_null(),
				"detail", ok == 0 ? lw_chan_detail(cs.c[i]) : why));
		}
		if (pass == 0) {
			struct timespec ts = { 0, 200 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	if (p->json) {
		dump(out);
	} else if (!cs.n) {
		char list[256];

		printf("no power source found%s%s (%s)%s\n", *p->root ? " under " : "", p->root,
		       lw_power_sources_list(LW_SRC_SENSORS, 1, ", ", list, sizeof(list)),
		       o.is_auto ? "; 'latwatt power sources --power model' shows the energy model" : "");
	} else {
		json_t *r;
		size_t i;

		printf("%-32s %-8s %-9s %10s %9s %9s  %s\n", "RAIL", "SOURCE", "KIND", "WATTS", "VOLTS",
		       "AMPS", "DETAIL");
		json_array_foreach(out, i, r) {
			printf("%-32s %-8s %-9s ", json_string_value(json_object_get(r, "name")),
			       json_string_value(json_object_get(r, "source")),
			       json_string_value(json_object_get(r, "kind")));
			static const char *const k[] = { "watts", "volts", "amps" };
			for (int j = 0; j < 3; j++) {
				json_t *x = json_object_get(r, k[j]);

				if (json_is_real(x))
					printf(j ? "%9.3f " : "%10.4f ", json_real_value(x));
				else
					printf(j ? "%9s " : "%10s ", "-");
			}
			printf(" %s%s\n", json_string_value(json_object_get(r, "detail")),
			       json_is_true(json_object_get(r, "total")) ? "" : " (not in total)");
		}
	}
	json_decref(out);
	lw_power_chans_free(&cs);
	lw_board_free(b);
	return ret;
}

static int do_show(struct popts *p)
{
	struct lw_run_power rp;
	struct lw_board *b;
	int ret;

	if (p->nargs != 1) {
		error("power show: give one run directory");
		return LW_EXIT_ERROR;
	}
	b = lw_board_for_run(p->args[0], p->board);
	if (!b)
		return LW_EXIT_ERROR;
	ret = lw_power_analysis(p->args[0], b, 1, &rp);
	lw_board_free(b);
	if (ret < 0)
		return LW_EXIT_ERROR;
	if (p->json) {
		json_object_set_new(rp.power, "idle", rp.idle ? rp.idle : json_null());
		dump(rp.power);
	} else {
		lw_power_print(stdout, rp.power);
		if (rp.idle)
			lw_idle_print(stdout, rp.idle);
		json_decref(rp.idle);
	}
	json_decref(rp.power);
	return LW_EXIT_OK;
}

static int do_estimate(struct popts *p)
{
	struct lw_board *b;
	int ret;

	if (p->nargs != 1) {
		error("power estimate: give one run directory");
		return LW_EXIT_ERROR;
	}
	b = lw_board_for_run(p->args[0], p->board);
	if (!b)
		return LW_EXIT_ERROR;
	ret = lw_power_estimate(p->args[0], b, (uint64_t)(1e9 / p->rate_hz), p->force);
	lw_board_free(b);
	return ret < 0 ? LW_EXIT_ERROR : LW_EXIT_OK;
}

static int do_import(struct popts *p)
{
	if (p->nargs != 2) {
		error("power import: give a run directory and a CSV file");
		return LW_EXIT_ERROR;
	}
	return lw_power_import_csv(p->args[0], p->args[1], &p->imp) < 0 ? LW_EXIT_ERROR : LW_EXIT_OK;
}

int cmd_power(int argc, char **argv)
{
	struct popts p;
	const char *sub;
	int ret;

	if (argc < 2) {
		usage_print(stderr);
		return LW_EXIT_ERROR;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage_print(stdout);
		return LW_EXIT_OK;
	}
	sub = argv[1];
	ret = parse(&p, argc - 1, argv + 1);
	if (ret)
		return ret > 0 ? LW_EXIT_OK : LW_EXIT_ERROR;
	if (!strcmp(sub, "sources"))
		return p.nargs ? (error("power sources: unexpected argument '%s'", p.args[0]),
				  LW_EXIT_ERROR) : do_sources(&p);
	if (!strcmp(sub, "show"))
		return do_show(&p);
	if (!strcmp(sub, "estimate"))
		return do_estimate(&p);
	if (!strcmp(sub, "import"))
		return do_import(&p);
	error("power: unknown subcommand '%s' (sources, show, estimate, import)", sub);
	return LW_EXIT_ERROR;
}
