// SPDX-License-Identifier: GPL-2.0-only
/* latwatt db: the results store (runs and named baselines in an SQLite file). */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/db.h"
#include "cmd/commands.h"
#include "lib/error.h"
#include "lib/json.h"
#include "lib/parse.h"

static const char usage[] =
"usage: latwatt db [--db PATH] COMMAND [ARGS]\n"
"\n"
"The results store: runs and named baselines kept in an SQLite file, so that\n"
"runs can be compared after their directories are gone (compare db:ID,\n"
"baseline:NAME, --against-baseline NAME).\n"
"\n"
"  add [--label TEXT] [--no-samples] RUN...   store run directories; prints db:ID\n"
"  list [--json]                              the stored runs\n"
"  rm ID                                      remove a stored run\n"
"  baseline set NAME RUN                      name a run (a directory is stored first)\n"
"  baseline add NAME RUN...                   add runs (repeats of the reference) to the\n"
"                                             set baseline NAME stands for; a directory\n"
"                                             of repeats adds all its runs\n"
"  baseline get NAME                          print the baseline's db:ID\n"
"  baseline list [--json]                     every baseline\n"
"  baseline rm NAME                           forget a baseline (the run stays)\n"
"  path                                       print the database file's path\n"
"\n"
"      --db PATH       the database file (default $XDG_DATA_HOME/latwatt/results.db,\n"
"                      else ~/.local/share/latwatt/results.db)\n"
"      --label TEXT    a label for the runs added\n"
"      --no-samples    keep only the 1us histogram, not every latency (smaller)\n"
"      --json          print JSON\n"
"  -h, --help          this text\n"
"\n"
"Exit status: 0 done, 2 error.\n";

struct params {
	const char *db, *label;
	int no_samples, json;
	char **args;
	int nargs;
};

static int parse(struct params *p, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db",         required_argument, NULL, 'D' },
		{ "label",      required_argument, NULL, 'l' },
		{ "no-samples", no_argument,       NULL, 'n' },
		{ "json",       no_argument,       NULL, 'j' },
		{ "help",       no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'D':
			p->db = optarg;
			break;
		case 'l':
			p->label = optarg;
			break;
		case 'n':
			p->no_samples = 1;
			break;
		case 'j':
			p->json = 1;
			break;
		case 'h':
			return 1;
		default:	/* ':' or an unknown option */
			return lw_opt_error(c, argv, "db");
		}
	}
	p->args = argv + optind;
	p->nargs = argc - optind;
	return 0;
}

static int want_args(const struct params *p, int n, const char *what)
{
	if (p->nargs != n)
		return error("db %s: %s (see 'latwatt db --help')", p->args[0], what);
	return 0;
}

/* A stored run's id from a directory (stored first) or a db reference. */
static int run_id(struct lw_db *db, const char *ref, const char *label, int samples, int64_t *id,
		  int quiet)
{
	struct lw_crun r;
	int existed;

	if (lw_db_is_ref(ref) || (strspn(ref, "0123456789") == strlen(ref) && *ref))
		return lw_db_resolve(db, ref, id);
	if (lw_crun_load_dir(&r, ref) < 0)
		return -1;
	if (lw_db_add(db, &r, label, samples, id, &existed) < 0) {
		lw_crun_free(&r);
		return -1;
	}
	if (!quiet)
		printf("%s: %s db:%" PRId64 "\n", ref, existed ? "already stored as" : "stored as", *id);
	lw_crun_free(&r);
	return 0;
}

static void print_text(const char *s, int width)
{
	printf(" %-*.*s", width, width, s && *s ? s : "-");
}

static int list(struct lw_db *db, int as_json)
{
	json_t *rows = lw_db_list(db), *r;
	size_t i;

	if (!rows)
		return -1;
	if (as_json) {
		json_dumpf(rows, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(rows);
		return 0;
	}
	printf("%5s %-20s %-22s %-16s %-9s %-10s %-10s %8s %9s %9s %s\n", "id", "added", "kernel",
	       "preempt", "nohz_full", "board", "status", "duration", "p99(us)", "max(us)",
	       "label / baselines");
	json_array_foreach(rows, i, r) {
		char d[32] = "-", p99[32] = "-", mx[32] = "-";
		json_t *v;

		if (json_is_integer(v = json_object_get(r, "duration_ns")))
			lw_format_duration((uint64_t)json_integer_value(v), d, sizeof(d));
		if (json_is_integer(v = json_object_get(r, "cyclic_p99_ns")))
			snprintf(p99, sizeof(p99), "%.1f", (double)json_integer_value(v) / 1e3);
		if (json_is_integer(v = json_object_get(r, "cyclic_max_ns")))
			snprintf(mx, sizeof(mx), "%.1f", (double)json_integer_value(v) / 1e3);
		printf("%5" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(r, "id")));
		print_text(lw_jstr(r, "added", NULL), 20);
		print_text(lw_jstr(r, "kernel_release", NULL), 22);
		print_text(lw_jstr(r, "preempt_model", NULL), 16);
		print_text(lw_jstr(r, "nohz_full", "off"), 9);
		print_text(lw_jstr(r, "board", NULL), 10);
		print_text(lw_jstr(r, "status", NULL), 10);
		printf(" %8s %9s %9s %s", d, p99, mx, lw_jstr(r, "label", ""));
		if (lw_jstr(r, "baselines", NULL))
			printf("%s[baseline %s]", lw_jstr(r, "label", NULL) ? " " : "",
			       lw_jstr(r, "baselines", NULL));
		putchar('\n');
	}
	json_decref(rows);
	return 0;
}

static int baselines(struct lw_db *db, int as_json)
{
	json_t *rows = lw_db_baselines(db), *r;
	size_t i;

	if (!rows)
		return -1;
	if (as_json) {
		json_dumpf(rows, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
	} else {
		json_array_foreach(rows, i, r)
			printf("%-20s db:%-6" JSON_INTEGER_FORMAT " %-22s %-10s set %s\n",
			       lw_jstr(r, "name", NULL), json_integer_value(json_object_get(r, "run")),
			       lw_jstr(r, "kernel_release", NULL) ?: "-", lw_jstr(r, "board", NULL) ?: "-",
			       lw_jstr(r, "set", NULL) ?: "-");
	}
	json_decref(rows);
	return 0;
}

static int run(struct lw_db *db, const struct params *p)
{
	const char *cmd = p->args[0];
	int64_t id;

	if (!strcmp(cmd, "add")) {
		int ret = 0;

		if (p->nargs < 2)
			return error("db add: no run directory given (see 'latwatt db --help')");
		for (int i = 1; i < p->nargs; i++) {
			if (lw_db_is_ref(p->args[i]))
				return error("db add: '%s' is already in the store", p->args[i]);
			if (run_id(db, p->args[i], p->label, !p->no_samples, &id, 0) < 0)
				ret = -1;
		}
		return ret;
	}
	if (!strcmp(cmd, "list"))
		return want_args(p, 1, "takes no arguments") < 0 ? -1 : list(db, p->json);
	if (!strcmp(cmd, "rm")) {
		if (want_args(p, 2, "needs one run id") < 0 || lw_db_resolve(db, p->args[1], &id) < 0)
			return -1;
		if (!strncmp(p->args[1], "baseline:", 9))
			return error("db rm: name the run by its id, not by a baseline");
		return lw_db_remove(db, id);
	}
	if (!strcmp(cmd, "path")) {
		printf("%s\n", lw_db_path(db));
		return 0;
	}
	if (strcmp(cmd, "baseline"))
		return error("db: unknown command '%s' (add, list, rm, baseline, path)", cmd);
	if (p->nargs < 2)
		return error("db baseline: set, add, get, list or rm (see 'latwatt db --help')");
	cmd = p->args[1];
	if (!strcmp(cmd, "set")) {
		if (p->nargs != 4)
			return error("db baseline set: needs NAME and RUN");
		if (run_id(db, p->args[3], p->label, !p->no_samples, &id, 1) < 0 ||
		    lw_db_baseline_set(db, p->args[2], id) < 0)
			return -1;
		printf("baseline %s: db:%" PRId64 "\n", p->args[2], id);
		return 0;
	}
	if (!strcmp(cmd, "add")) {
		int64_t *ids;
		size_t n;

		if (p->nargs < 4)
			return error("db baseline add: needs NAME and at least one RUN");
		for (int i = 3; i < p->nargs; i++) {
			char **sub = NULL;
			size_t ns = 0;

			if (!lw_db_is_ref(p->args[i]) && lw_repeat_list(p->args[i], &sub, &ns) < 0)
				return -1;
			for (size_t j = 0; j < (ns ? ns : 1); j++) {
				int r = run_id(db, ns ? sub[j] : p->args[i], p->label, !p->no_samples, &id, 1);

				if (r < 0 || lw_db_baseline_add(db, p->args[2], id) < 0) {
					while (j < ns)
						free(sub[j++]);
					free(sub);
					return -1;
				}
				if (ns)
					free(sub[j]);
			}
			free(sub);
		}
		if (lw_db_baseline_runs(db, p->args[2], &ids, &n) < 0)
			return -1;
		printf("baseline %s: %zu runs\n", p->args[2], n);
		free(ids);
		return 0;
	}
	if (!strcmp(cmd, "get")) {
		if (p->nargs != 3)
			return error("db baseline get: needs NAME");
		if (lw_db_baseline_get(db, p->args[2], &id) < 0)
			return -1;
		printf("db:%" PRId64 "\n", id);
		return 0;
	}
	if (!strcmp(cmd, "list"))
		return p->nargs != 2 ? error("db baseline list: takes no arguments") :
				       baselines(db, p->json);
	if (!strcmp(cmd, "rm"))
		return p->nargs != 3 ? error("db baseline rm: needs NAME") :
				       lw_db_baseline_remove(db, p->args[2]);
	return error("db baseline: unknown command '%s' (set, add, get, list, rm)", cmd);
}

int cmd_db(int argc, char **argv)
{
	struct params p = { 0 };
	struct lw_db *db;
	int r = parse(&p, argc, argv);

	if (r == 1) {
		fputs(usage, stdout);
		return LW_EXIT_OK;
	}
	if (r < 0)
		return LW_EXIT_ERROR;
	if (!p.nargs) {
		error("db: no command given (see 'latwatt db --help')");
		return LW_EXIT_ERROR;
	}
	db = lw_db_open(p.db);
	if (!db)
		return LW_EXIT_ERROR;
	r = run(db, &p);
	lw_db_close(db);
	return r < 0 ? LW_EXIT_ERROR : LW_EXIT_OK;
}
