// SPDX-License-Identifier: GPL-2.0-only
/*
 * A load's specification (workloads/loads.h): parsing "[SETTING=VALUE ...]
 * PROGRAM [ARG ...]" into struct lw_load_spec, and the checks before a run
 * that look at the system (the program on PATH, rt-app's JSON, the realtime
 * threads a load asks for).  Starting, supervising and stopping the loads
 * is workloads/loads.c.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/input.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "workloads/loads.h"

/* ---- spec parsing ---------------------------------------------------- */

static const struct {
	const char *program, *package;
} packages[] = {
	{ "stress-ng",  "stress-ng" },
	{ "hackbench",  "rt-tests" },
	{ "cyclictest", "rt-tests" },
	{ "oslat",      "rt-tests" },
	{ "rt-app",     "rt-app" },
	{ "iperf3",     "iperf3" },
	{ "fio",        "fio" },
};

const char *lw_load_package(const char *program)
{
	const char *base = strrchr(program, '/');

	base = base ? base + 1 : program;
	for (size_t i = 0; i < sizeof(packages) / sizeof(packages[0]); i++)
		if (!strcmp(base, packages[i].program))
			return packages[i].package;
	return NULL;
}

const char *lw_load_base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static int parse_bool(const char *v, int *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1", NULL };
	static const char *const no[] = { "no", "false", "off", "0", NULL };

	for (int i = 0; yes[i]; i++)
		if (!strcasecmp(v, yes[i]))
			return *out = 1, 0;
	for (int i = 0; no[i]; i++)
		if (!strcasecmp(v, no[i]))
			return *out = 0, 0;
	return -1;
}

static int parse_int(const char *v, long min, long max, int *out)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(v, &end, 10);
	if (!*v || *end || errno || x < min || x > max)
		return -1;
	*out = (int)x;
	return 0;
}

static const struct {
	const char *name;
	int policy;
} policies[] = {
	{ "other", SCHED_OTHER }, { "batch", SCHED_BATCH }, { "idle", SCHED_IDLE },
	{ "fifo", SCHED_FIFO }, { "rr", SCHED_RR },
};

static int valid_name(const char *s)
{
	if (!*s || *s == '.' || strlen(s) >= 64)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._+-", *s))
			return 0;
	return 1;
}

/* A leading "key=value" word; @key gets the key (NUL-terminated). */
static int is_setting(const char *w, char *key, size_t len)
{
	size_t n = 0;

	while (w[n] && (islower((unsigned char)w[n]) || w[n] == '_'))
		n++;
	if (!n || w[n] != '=' || n >= len)
		return 0;
	memcpy(key, w, n);
	key[n] = 0;
	return 1;
}

int lw_load_spec_parse(struct lw_load_spec *ls, const char *spec, const char *what,
		       const cpu_set_t *online)
{
	char *words[LW_LOAD_MAX_ARGS + 16];
	int nwords, i, prio_given = 0, nice_given = 0;

	memset(ls, 0, sizeof(*ls));
	ls->policy = SCHED_OTHER;
	ls->words = malloc(strlen(spec) + 1);
	if (!ls->words)
		return error("out of memory");
	if (lw_split_words(spec, ls->words, words, LW_LOAD_MAX_ARGS + 15, &nwords, what, spec) < 0)
		return -1;
	for (i = 0; i < nwords; i++) {
		char key[32];
		const char *v;

		if (!is_setting(words[i], key, sizeof(key)))
			break;
		v = words[i] + strlen(key) + 1;
		if (!strcmp(key, "name")) {
			if (!valid_name(v))
				return error("%s: name '%s': use letters, digits and ._+- "
					     "(at most 63)", what, v);
			strcpy(ls->name, v);
		} else if (!strcmp(key, "cpus")) {
			char w[64];

			snprintf(w, sizeof(w), "%s: cpus", what);
			if (lw_parse_cpulist(w, v, online, &ls->cpus) < 0)
				return -1;
			ls->cpus_given = 1;
		} else if (!strcmp(key, "policy")) {
			size_t k;

			for (k = 0; k < sizeof(policies) / sizeof(policies[0]); k++)
				if (!strcmp(v, policies[k].name))
					break;
			if (k == sizeof(policies) / sizeof(policies[0]))
				return error("%s: policy '%s' is not one of: other, batch, idle, "
					     "fifo, rr", what, v);
			ls->policy = policies[k].policy;
		} else if (!strcmp(key, "prio")) {
			if (parse_int(v, 1, 99, &ls->prio) < 0)
				return error("%s: prio '%s': must be 1 to 99", what, v);
			prio_given = 1;
		} else if (!strcmp(key, "nice")) {
			if (parse_int(v, -20, 19, &ls->nice) < 0)
				return error("%s: nice '%s': must be -20 to 19", what, v);
			nice_given = 1;
		} else if (!strcmp(key, "restart")) {
			if (parse_bool(v, &ls->restart) < 0)
				return error("%s: restart '%s': yes or no", what, v);
		} else {
			return error("%s: unknown setting '%s' (name, cpus, policy, prio, nice, "
				     "restart) before the program in '%s'", what, key, spec);
		}
	}
	if (i == nwords)
		return error("%s: no program to run in '%s' (e.g. 'stress-ng --cpu 1')", what,
			     spec);
	if (nwords - i > LW_LOAD_MAX_ARGS)
		return error("%s: more than %d arguments in '%s'", what, LW_LOAD_MAX_ARGS, spec);
	if (ls->policy == SCHED_FIFO || ls->policy == SCHED_RR) {
		if (!prio_given)
			return error("%s: policy %s needs prio=1..99", what,
				     ls->policy == SCHED_FIFO ? "fifo" : "rr");
		if (nice_given)
			return error("%s: nice applies to policy other, batch or idle", what);
	} else if (prio_given) {
		return error("%s: prio applies to policy fifo or rr (give policy=fifo)", what);
	}
	for (ls->argc = 0; i < nwords; i++)
		ls->argv[ls->argc++] = words[i];
	ls->argv[ls->argc] = NULL;
	if (!*ls->argv[0])
		return error("%s: empty program name in '%s'", what, spec);
	if (!ls->name[0] && !valid_name(lw_load_base_name(ls->argv[0])))
		return error("%s: give the load a name=NAME ('%s' cannot name a log file)", what,
			     lw_load_base_name(ls->argv[0]));
	return 0;
}

void lw_load_spec_free(struct lw_load_spec *ls)
{
	free(ls->words);
	ls->words = NULL;
}

char *lw_load_format_argv(char *const *argv, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; argv[i] && n + 1 < len; i++) {
		const char *a = argv[i];
		int plain = *a != 0;

		for (const char *c = a; *c; c++)
			if (!isalnum((unsigned char)*c) && !strchr("-_./=:,+@%", *c))
				plain = 0;
		if (i)
			buf[n++] = ' ';
		if (plain) {
			n += (size_t)snprintf(buf + n, len - n, "%s", a);
		} else {
			buf[n++] = '\'';
			for (const char *c = a; *c && n + 5 < len; c++) {
				if (*c == '\'') {
					memcpy(buf + n, "'\\''", 4);
					n += 4;
				} else {
					buf[n++] = *c;
				}
			}
			if (n + 1 < len)
				buf[n++] = '\'';
		}
		if (n >= len)
			n = len - 1;
		buf[n] = 0;
	}
	return buf;
}

/* ---- checks that look at the system ---------------------------------- */

int lw_load_which(const char *program, char *buf, size_t len, const char *what)
{
	const char *pkg = lw_load_package(program);
	char hint[128] = "";

	if (pkg)
		snprintf(hint, sizeof(hint), " (install the Debian package %s)", pkg);
	if (strchr(program, '/')) {
		if (access(program, X_OK) < 0)
			return error("%s: %s: %s%s", what, program, strerror(errno), hint);
		if (!realpath(program, buf))
			return error_errno("%s: %s", what, program);
		return 0;
	}
	/* absolute entries of PATH only, the program and its folder held to
	 * the owner rule of lib/input.h: it runs as root */
	switch (lw_in_which(program, buf, len)) {
	case 0:
		return 0;
	case 1:
		return error("%s: %s not found in PATH%s", what, program, hint);
	default:
		return error("%s: %s: not run from a folder of PATH that others control", what,
			     program);
	}
}

int lw_load_is_rt_app(const struct lw_load_spec *ls)
{
	return !strcmp(lw_load_base_name(ls->argv[0]), "rt-app");
}

/* The configuration file argument of rt-app: its one non-option argument. */
const char *lw_load_rt_app_config(const struct lw_load_spec *ls, const char *what)
{
	const char *file = NULL;

	for (int i = 1; i < ls->argc; i++) {
		if (ls->argv[i][0] == '-')
			continue;
		if (file) {
			error("%s: rt-app takes one JSON file, got '%s' and '%s'", what, file,
			      ls->argv[i]);
			return NULL;
		}
		file = ls->argv[i];
	}
	if (!file)
		error("%s: rt-app needs its JSON file (rt-app FILE.json)", what);
	return file;
}

int lw_load_spec_check(const struct lw_load_spec *ls, const char *what)
{
	char path[PATH_MAX];
	int q;

	if (lw_load_which(ls->argv[0], path, sizeof(path), what) < 0)
		return -1;
	if (lw_load_is_rt_app(ls)) {
		const char *file = lw_load_rt_app_config(ls, what);
		json_t *cfg;

		if (!file)
			return -1;
		q = lw_set_quiet(1);
		cfg = lw_json_load(file);
		lw_set_quiet(q);
		if (!cfg) {
			char msg[512];

			snprintf(msg, sizeof(msg), "%s", lw_last_error());
			return error("%s: rt-app file %s", what, msg);
		}
		if (!json_is_object(json_object_get(cfg, "tasks"))) {
			json_decref(cfg);
			return error("%s: %s has no \"tasks\" object (not an rt-app file)", what,
				     file);
		}
		json_decref(cfg);
	}
	return 0;
}

static int rt_policy_of(const char *s)
{
	if (!s)
		return SCHED_OTHER;
	if (!strcmp(s, "SCHED_FIFO"))
		return SCHED_FIFO;
	if (!strcmp(s, "SCHED_RR"))
		return SCHED_RR;
	if (!strcmp(s, "SCHED_DEADLINE"))
		return SCHED_DEADLINE;
	return SCHED_OTHER;
}

/* Union of the "cpus" arrays of a task and its phases. */
static int rt_app_cpus(json_t *task, cpu_set_t *set)
{
	json_t *arrays[64], *phases = json_object_get(task, "phases"), *ph;
	const char *k;
	int n = 0, any = 0;

	arrays[n++] = json_object_get(task, "cpus");
	json_object_foreach(phases, k, ph)
		if (n < 64)
			arrays[n++] = json_object_get(ph, "cpus");
	CPU_ZERO(set);
	for (int i = 0; i < n; i++) {
		size_t j;
		json_t *c;

		json_array_foreach(arrays[i], j, c) {
			json_int_t cpu = json_integer_value(c);

			if (json_is_integer(c) && cpu >= 0 && cpu < CPU_SETSIZE) {
				CPU_SET((int)cpu, set);
				any = 1;
			}
		}
	}
	return any;
}

int lw_load_rt_threads(const struct lw_load_spec *ls, const cpu_set_t *online,
		       int (*fn)(const struct lw_load_rt *rt, void *arg), void *arg)
{
	struct lw_load_rt rt;
	char who[160];
	const char *name = ls->name[0] ? ls->name : lw_load_base_name(ls->argv[0]);
	cpu_set_t base = ls->cpus_given ? ls->cpus : *online;

	rt.who = who;
	if (lw_load_is_rt_app(ls)) {
		const char *file = lw_load_rt_app_config(ls, "--load");
		json_t *cfg, *tasks, *task;
		const char *def, *tname;
		int ret = 0;

		if (!file || !(cfg = lw_json_load(file)))
			return -1;
		def = json_string_value(json_object_get(json_object_get(cfg, "global"),
							"default_policy"));
		tasks = json_object_get(cfg, "tasks");
		json_object_foreach(tasks, tname, task) {
			const char *pol = json_string_value(json_object_get(task, "policy"));
			json_t *pr = json_object_get(task, "priority");

			rt.policy = rt_policy_of(pol ? pol : def);
			if (rt.policy != SCHED_FIFO && rt.policy != SCHED_RR)
				continue;
			rt.prio = json_is_integer(pr) ? (int)json_integer_value(pr) : 10;
			if (!rt_app_cpus(task, &rt.cpus))
				rt.cpus = base;
			rt.busy = 0;
			snprintf(who, sizeof(who), "load %s: rt-app task %s", name, tname);
			ret = fn(&rt, arg);
			if (ret < 0)
				break;
		}
		json_decref(cfg);
		return ret;
	}

	rt.cpus = base;
	rt.busy = 1;
	if (ls->policy == SCHED_FIFO || ls->policy == SCHED_RR) {
		rt.policy = ls->policy;
		rt.prio = ls->prio;
		snprintf(who, sizeof(who), "load %s (policy=%s prio=%d)", name,
			 ls->policy == SCHED_FIFO ? "fifo" : "rr", ls->prio);
		if (fn(&rt, arg) < 0)
			return -1;
	}
	/* stress-ng --sched fifo|rr [--sched-prio N]: its stressors run so. */
	if (!strcmp(lw_load_base_name(ls->argv[0]), "stress-ng")) {
		const char *sched = NULL;
		int prio = 99;

		for (int i = 1; i < ls->argc; i++) {
			const char *a = ls->argv[i], *v = NULL;

			if (!strncmp(a, "--sched=", 8))
				sched = a + 8;
			else if (!strcmp(a, "--sched") && i + 1 < ls->argc)
				sched = ls->argv[++i];
			else if (!strncmp(a, "--sched-prio=", 13))
				v = a + 13;
			else if (!strcmp(a, "--sched-prio") && i + 1 < ls->argc)
				v = ls->argv[++i];
			if (v && parse_int(v, 0, 99, &prio) < 0)
				prio = 99;
		}
		if (sched && (!strcmp(sched, "fifo") || !strcmp(sched, "rr"))) {
			rt.policy = !strcmp(sched, "fifo") ? SCHED_FIFO : SCHED_RR;
			rt.prio = prio;
			snprintf(who, sizeof(who), "load %s (stress-ng --sched %s --sched-prio %d)",
				 name, sched, prio);
			if (fn(&rt, arg) < 0)
				return -1;
		}
	}
	return 0;
}
