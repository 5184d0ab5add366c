// SPDX-License-Identifier: GPL-2.0-only
/* Scenario files into `latwatt run` options, and the checks before a run. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/runscenario.h"
#include "lib/error.h"
#include "lib/safefile.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/sysfs.h"
#include "workloads/loads.h"
#include "workloads/workload.h"

/* A scenario says what to run, not where its result goes (-o is per run);
 * the threshold actions (a program run as root, a signal to any process) come
 * from the command line of who runs latwatt only, never from a file. */
static const char *const refused[] = { "scenario", "help", "output", "on-threshold", "on-end",
				       NULL };

void lw_run_scenario_keys(struct lw_scenario_keys *k, const char *sysfs)
{
	k->options = lw_run_long_options();
	k->repeatable = lw_run_repeatable;
	k->refused = refused;
	k->sysfs = sysfs;
}

static char *option_text(const struct lw_scenario_arg *a)
{
	size_t n = strlen(a->opt) + (a->value ? strlen(a->value) : 0) + 4;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "--%s%s%s", a->opt, a->value ? "=" : "", a->value ? a->value : "");
	return s;
}

static int rt_throttled(void)
{
	char buf[64];

	if (lw_read_file("/proc/sys/kernel/sched_rt_runtime_us", buf, sizeof(buf)) <= 0)
		return 1;	/* unknown: assume the default (throttled) */
	return strcmp(buf, "-1") != 0;
}

static int parse_alone(char *opt, const cpu_set_t *online)
{
	struct lw_run_opts scratch;
	char run[] = "run", dash_o[] = "-o", out[] = "-";
	char *av[] = { run, opt, dash_o, out, NULL };
	int quiet, ret;

	lw_run_opts_default(&scratch, online);
	quiet = lw_set_quiet(1);
	ret = lw_run_opts_parse(&scratch, 4, av, online);
	lw_set_quiet(quiet);
	return ret;
}

/*
 * Parse one option of the file alone, to report a bad value at its place.
 * For a mapping item, the spec is cut after each of its keys in turn: the
 * first cut that fails names the key to blame.
 */
static int check_one(const struct lw_scenario *sc, const struct lw_scenario_arg *a, char *opt,
		     const cpu_set_t *online)
{
	char prefix[160], copy[512];
	const char *msg;
	int line = a->line, column = a->column;
	size_t pl;

	if (parse_alone(opt, online) == 0)
		return 0;
	if (a->nsub) {
		size_t head = strlen(opt) - strlen(a->value);

		for (int k = 0; k < a->nsub; k++) {
			char *cut = strndup(opt, head + a->sub[k].len);
			int bad = !cut || parse_alone(cut, online) != 0;

			free(cut);
			if (bad) {
				line = a->sub[k].line;
				column = a->sub[k].column;
				break;
			}
		}
		parse_alone(opt, online);	/* the message of the whole item */
	}
	/* "--interval: must be ..." becomes "interval: must be ..." */
	msg = lw_last_error();
	pl = (size_t)snprintf(prefix, sizeof(prefix), "--%s: ", a->opt);
	if (!strncmp(msg, prefix, pl))
		msg += pl;
	snprintf(copy, sizeof(copy), "%s", msg);
	return error("%s:%d:%d: %s: %s", sc->path, line, column, a->key, copy);
}

/* Programs of the file's loads, at their place in the file. */
static int check_load(const struct lw_scenario *sc, const struct lw_scenario_arg *a,
		      const cpu_set_t *online)
{
	struct lw_load_spec ls;
	char where[PATH_MAX + 64];
	int ret;

	snprintf(where, sizeof(where), "%s:%d:%d: %s", sc->path, a->line, a->column, a->key);
	ret = lw_load_spec_parse(&ls, a->value, where, online);
	if (ret == 0)
		ret = lw_load_spec_check(&ls, where);
	lw_load_spec_free(&ls);
	return ret;
}

/* ---- checks before a run ------------------------------------------------ */

struct starve {
	const struct lw_run_opts *o;
	int throttled;
	const char *where;	/* "FILE:LINE:COL: " or "" */
};

static int check_rt(const struct lw_load_rt *rt, void *arg)
{
	struct starve *s = arg;
	cpu_set_t both;
	char cpus[256], pol[16];

	/* the probe CPUs: the timer probes' and the noise probe's */
	CPU_OR(&both, &s->o->cpus, &s->o->probes.noise_cpus);
	CPU_AND(&both, &rt->cpus, &both);
	if (!CPU_COUNT(&both))
		return 0;
	lw_format_cpulist(&both, cpus, sizeof(cpus));
	snprintf(pol, sizeof(pol), "%s", rt->policy == SCHED_RR ? "SCHED_RR" : "SCHED_FIFO");
	if (rt->prio >= s->o->priority)
		return error("%s%s: %s priority %d on cpu %s would starve the probes there "
			     "(SCHED_FIFO priority %d): lower it below %d, or move it off "
			     "cpu %s", s->where, rt->who, pol, rt->prio, cpus, s->o->priority,
			     s->o->priority, cpus);
	if (rt->busy && !s->throttled)
		return error("%s%s: a busy %s load on probe cpu %s with RT throttling off "
			     "(/proc/sys/kernel/sched_rt_runtime_us is -1) starves the kernel "
			     "threads the probes need: move it off cpu %s, drop its policy, or "
			     "turn throttling on", s->where, rt->who, pol, cpus, cpus);
	return 0;
}

static int starve_load(const struct lw_run_opts *o, const char *spec, const cpu_set_t *online,
		       int throttled, const char *where)
{
	struct starve s = { .o = o, .throttled = throttled, .where = where };
	struct lw_load_spec ls;
	int ret = lw_load_spec_parse(&ls, spec, "--load", online);

	if (ret == 0)
		ret = lw_load_rt_threads(&ls, online, check_rt, &s);
	lw_load_spec_free(&ls);
	return ret;
}

/*
 * A workload's SCHED_FIFO threads, from its parameter table: every integer
 * parameter named "prio" or "..._prio" is a priority, its CPUs are the first
 * parameter of type cpus.  Workloads are periodic (busy=0).
 */
static int starve_workload(const struct lw_run_opts *o, const char *spec, int throttled,
			   const char *where)
{
	struct starve s = { .o = o, .throttled = throttled, .where = where };
	struct lw_wspec *ws = lw_wspec_parse(spec, "--workload");
	struct lw_load_rt rt = { .policy = SCHED_FIFO, .busy = 0 };
	const struct lw_wparam *p;
	char who[160];
	int ret = 0;

	if (!ws)
		return -1;
	CPU_ZERO(&rt.cpus);
	lw_online_cpus(&rt.cpus);
	for (p = ws->w->params; p->name; p++)
		if (p->type == LW_WP_CPUS) {
			memcpy(&rt.cpus, (char *)ws->config + p->offset, sizeof(rt.cpus));
			break;
		}
	rt.who = who;
	for (p = ws->w->params; p->name && ret == 0; p++) {
		size_t n = strlen(p->name);
		uint64_t v;

		if (p->type != LW_WP_UINT ||
		    (strcmp(p->name, "prio") && (n < 5 || strcmp(p->name + n - 5, "_prio"))))
			continue;
		memcpy(&v, (char *)ws->config + p->offset, sizeof(v));
		rt.prio = (int)v;
		snprintf(who, sizeof(who), "workload %s (%s=%d)", ws->w->name, p->name, rt.prio);
		ret = check_rt(&rt, &s);
	}
	lw_wspec_free(ws);
	return ret;
}

int lw_run_scenario_apply(struct lw_run_scenario *rs, struct lw_run_opts *o, int argc,
			  char **argv, const cpu_set_t *online)
{
	struct lw_scenario_keys keys;
	char path[PATH_MAX];

	memset(rs, 0, sizeof(*rs));
	rs->rt_throttled = -1;
	int fd = lw_scenario_open(o->scenario, path, sizeof(path));

	if (fd < 0)
		return -1;
	lw_run_scenario_keys(&keys, NULL);
	rs->loaded = 1;
	if (lw_scenario_load_fd(&rs->sc, fd, path, &keys) < 0)
		return -1;
	return lw_run_scenario_apply_loaded(rs, o, argc, argv, online);
}

int lw_run_scenario_apply_loaded(struct lw_run_scenario *rs, struct lw_run_opts *o, int argc,
				 char **argv, const cpu_set_t *online)
{
	int i, n, throttled = rs->rt_throttled >= 0 ? rs->rt_throttled : rt_throttled();

	rs->argv = calloc((size_t)(rs->sc.nargs + argc + 1), sizeof(*rs->argv));
	if (!rs->argv)
		return error("out of memory");
	rs->argv[0] = strdup("run");
	if (!rs->argv[0])
		return error("out of memory");
	n = 1;
	for (i = 0; i < rs->sc.nargs; i++) {
		const struct lw_scenario_arg *a = &rs->sc.arg[i];

		rs->argv[n] = option_text(a);
		if (!rs->argv[n])
			return error("out of memory");
		n++;
		rs->argc = n;
		if (check_one(&rs->sc, a, rs->argv[n - 1], online) < 0)
			return -1;
		if (!strcmp(a->opt, "load") && check_load(&rs->sc, a, online) < 0)
			return -1;
	}
	rs->nfile = n - 1;
	for (i = 1; i < argc; i++) {
		rs->argv[n] = strdup(argv[i]);
		if (!rs->argv[n])
			return error("out of memory");
		n++;
	}
	rs->argc = n;
	lw_run_opts_default(o, online);
	if (lw_run_opts_parse(o, rs->argc, rs->argv, online) != 0)
		return -1;
	/* Starvation of the file's loads, named at their place (with the
	 * probes as the command line may have changed them). */
	for (i = 0; i < rs->sc.nargs && !o->no_rt; i++) {
		const struct lw_scenario_arg *a = &rs->sc.arg[i];
		char where[PATH_MAX + 32];

		snprintf(where, sizeof(where), "%s:%d:%d: ", rs->sc.path, a->line, a->column);
		if (!strcmp(a->opt, "load") && starve_load(o, a->value, online, throttled, where) < 0)
			return -1;
		if (!strcmp(a->opt, "workload") && starve_workload(o, a->value, throttled, where) < 0)
			return -1;
	}
	return 0;
}

void lw_run_scenario_free(struct lw_run_scenario *rs)
{
	for (int i = 0; rs->argv && i < rs->argc; i++)
		free(rs->argv[i]);
	free(rs->argv);
	if (rs->loaded)
		lw_scenario_free(&rs->sc);
	memset(rs, 0, sizeof(*rs));
}

int lw_run_scenario_record(const struct lw_run_scenario *rs, struct lw_run *run)
{
	char file[PATH_MAX], abs[PATH_MAX];
	json_t *opts = json_array();
	int fd;
	ssize_t w;

	lw_rundir_file(&run->dir, "scenario.yaml", file, sizeof(file));
	fd = lw_create_at(run->dir.dfd, file, 0644, O_WRONLY);
	if (fd < 0) {
		json_decref(opts);
		return -1;
	}
	w = write(fd, rs->sc.text, rs->sc.text_len);
	if (w != (ssize_t)rs->sc.text_len || close(fd) < 0) {
		if (w == (ssize_t)rs->sc.text_len)
			fd = -1;
		else
			close(fd);
		json_decref(opts);
		return error_errno("cannot write %s", file);
	}
	for (int i = 1; i <= rs->nfile; i++)
		json_array_append_new(opts, json_string(rs->argv[i]));
	json_object_set_new(run->dir.manifest, "scenario", json_pack("{s:s, s:o, s:s, s:s, s:o}",
		"name", rs->sc.name,
		"description", rs->sc.description ? json_string(rs->sc.description) : json_null(),
		"source", realpath(rs->sc.path, abs) ? abs : rs->sc.path,
		"file", "scenario.yaml",
		"options", opts));
	return 0;
}

int lw_run_check_starvation(const struct lw_run_opts *o, const cpu_set_t *online,
			    int rt_throttled)
{
	if (o->no_rt)
		return 0;	/* probes, workloads and loads all run SCHED_OTHER */
	for (int i = 0; i < o->nworkloads; i++)
		if (starve_workload(o, o->workload[i], rt_throttled, "") < 0)
			return -1;
	for (int i = 0; i < o->nloads; i++)
		if (starve_load(o, o->load[i], online, rt_throttled, "") < 0)
			return -1;
	return 0;
}

int lw_run_preflight(const struct lw_run_opts *o, const cpu_set_t *online)
{
	for (int i = 0; i < o->nloads; i++) {
		struct lw_load_spec ls;
		int ret = lw_load_spec_parse(&ls, o->load[i], "--load", online);

		if (ret == 0)
			ret = lw_load_spec_check(&ls, "--load");
		lw_load_spec_free(&ls);
		if (ret < 0)
			return -1;
	}
	return lw_run_check_starvation(o, online, rt_throttled());
}
