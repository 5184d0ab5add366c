// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/sysfs.h"
#include "lib/ust.h"
#include "probes/plan.h"

#define X(name, NAME) [LW_PROBE_INDEX_##NAME] = &lw_probe_##name,
const struct lw_probe *const lw_probes[LW_NPROBES + 1] = { LW_PROBE_LIST };
#undef X

char *lw_probe_names(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < LW_NPROBES && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", lw_probes[i]->name);
	return buf;
}

int lw_probe_plan_series(const struct lw_probe_plan *p)
{
	int series = 0;

	for (size_t i = 0; lw_probes[i]; i++)
		if (lw_plan_on(lw_probes[i], p))
			series += (int)strlen((const char *)lw_probes[i]->samples) *
				  CPU_COUNT(lw_plan_cpus(lw_probes[i], p));
	return series;
}

void lw_probe_opts_default(struct lw_probe_opts *o)
{
	memset(o, 0, sizeof(*o));
	CPU_ZERO(&o->noise_cpus);
	for (size_t i = 0; lw_probes[i]; i++)
		for (size_t k = 0; k < LW_PROBE_PARAMS && lw_probes[i]->params[k].option; k++)
			*(uint64_t *)((char *)o + lw_probes[i]->params[k].offset) =
				lw_probes[i]->params[k].def;
}

int lw_parse_probes(const char *what, const char *s, unsigned *bits)
{
	const char *p = s;
	char names[128];

	*bits = 0;
	if (!s || !*s)
		return error("%s: empty probe list (%s)", what, lw_probe_names(names, sizeof(names)));
	while (*p) {
		size_t n = strcspn(p, ",");
		size_t i;

		for (i = 0; lw_probes[i]; i++)
			if (strlen(lw_probes[i]->name) == n && !strncmp(p, lw_probes[i]->name, n))
				break;
		if (!lw_probes[i])
			return error("%s: unknown probe '%.*s' (%s)", what, (int)n, p,
				     lw_probe_names(names, sizeof(names)));
		*bits |= lw_probes[i]->bit;
		p += n;
		if (*p == ',' && !*++p)
			return error("%s: bad probe list '%s' (trailing comma)", what, s);
	}
	return 0;
}

char *lw_format_probes(unsigned bits, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; lw_probes[i] && n < len; i++)
		if (bits & lw_probes[i]->bit)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "",
					      lw_probes[i]->name);
	return buf;
}

int lw_probe_param_set(struct lw_probe_opts *o, const struct lw_probe_param *pp, const char *s)
{
	return pp->parse(pp->option, s, (uint64_t *)((char *)o + pp->offset));
}

int lw_parse_timerlat_period(const char *what, const char *s, uint64_t *ns)
{
	if (lw_parse_usecs(what, s, ns) < 0)
		return -1;
	if (*ns < LW_TIMERLAT_PERIOD_MIN_NS || *ns > LW_TIMERLAT_PERIOD_MAX_NS)
		return error("%s: must be between 100us and 1s (the kernel's limits)", what);
	if (*ns % 1000)
		return error("%s: must be whole microseconds", what);
	return 0;
}

int lw_parse_noise_threshold(const char *what, const char *s, uint64_t *ns)
{
	if (lw_parse_usecs(what, s, ns) < 0)
		return -1;
	if (*ns < 100 || *ns > LW_NSEC_PER_SEC)
		return error("%s: must be between 100ns and 1s", what);
	return 0;
}

/* tracing_thresh, the osnoise tracer's gap threshold, is whole microseconds. */
int lw_parse_hwnoise_threshold(const char *what, const char *s, uint64_t *ns)
{
	if (lw_parse_usecs(what, s, ns) < 0)
		return -1;
	if (*ns < 1000 || *ns > LW_NSEC_PER_SEC)
		return error("%s: must be between 1us and 1s", what);
	if (*ns % 1000)
		return error("%s: must be whole microseconds (the kernel's tracing_thresh)", what);
	return 0;
}

/* A CPU list file ("" or "1-3"); an unreadable or empty file is an empty set. */
static void read_cpus(const char *root, const char *rel, cpu_set_t *out)
{
	char path[4096], buf[1024];
	int q;

	CPU_ZERO(out);
	snprintf(path, sizeof(path), "%s%s", root, rel);
	if (lw_read_file(path, buf, sizeof(buf)) <= 0)
		return;
	q = lw_set_quiet(1);
	if (lw_parse_cpulist(path, buf, NULL, out) < 0)
		CPU_ZERO(out);
	lw_set_quiet(q);
}

int lw_probe_env_read(struct lw_probe_env *env, const char *sysroot)
{
	const char *root = sysroot ? sysroot : "";
	cpu_set_t nohz;
	char path[4096], buf[4096];
	const char *tdir;

	memset(env, 0, sizeof(*env));
	if (*root) {
		read_cpus(root, "/sys/devices/system/cpu/online", &env->online);
	} else if (lw_online_cpus(&env->online) < 0) {
		return -1;
	}
	read_cpus(root, "/sys/devices/system/cpu/isolated", &env->isolated);
	read_cpus(root, "/sys/devices/system/cpu/nohz_full", &nohz);
	CPU_OR(&env->isolated, &env->isolated, &nohz);
	CPU_AND(&env->isolated, &env->isolated, &env->online);

	if (*root) {
		snprintf(path, sizeof(path), "%s/sys/kernel/tracing", root);
		tdir = path;
	} else if (access("/sys/kernel/tracing/available_tracers", F_OK) == 0 || errno == EACCES) {
		/* The usual place (also when unreadable: not root).  Asking
		 * tracefs_tracing_dir() again where it cannot look leaks its
		 * path in libtracefs 1.6. */
		tdir = "/sys/kernel/tracing";
	} else {
		tdir = tracefs_tracing_dir();	/* elsewhere, or mounts it */
	}
	if (!tdir) {
		snprintf(env->no_timerlat, sizeof(env->no_timerlat), "tracefs is not mounted");
		snprintf(env->no_hwnoise, sizeof(env->no_hwnoise), "tracefs is not mounted");
		return 0;
	}
	if ((size_t)snprintf(buf, sizeof(buf), "%s/available_tracers", tdir) >= sizeof(buf))
		return error("%s: path too long", tdir);
	{
		char list[4096];
		char *tok, *save = NULL;

		if (lw_read_file(buf, list, sizeof(list)) < 0) {
			snprintf(env->no_timerlat, sizeof(env->no_timerlat),
				 "cannot read %.100s: %s", buf, strerror(errno));
			snprintf(env->no_hwnoise, sizeof(env->no_hwnoise), "%s", env->no_timerlat);
			return 0;
		}
		for (tok = strtok_r(list, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
			if (!strcmp(tok, "timerlat"))
				env->have_timerlat = 1;
			if (!strcmp(tok, "osnoise"))
				env->have_hwnoise = 1;
		}
	}
	/* hwnoise: the osnoise tracer with interrupts off (Linux 6.4 on) */
	if (!env->have_hwnoise) {
		snprintf(env->no_hwnoise, sizeof(env->no_hwnoise),
			 "the kernel has no osnoise tracer");
	} else {
		char opts[1024];

		if ((size_t)snprintf(buf, sizeof(buf), "%s/osnoise/options", tdir) >= sizeof(buf) ||
		    lw_read_file(buf, opts, sizeof(opts)) < 0 || !strstr(opts, "OSNOISE_IRQ_DISABLE")) {
			env->have_hwnoise = 0;
			snprintf(env->no_hwnoise, sizeof(env->no_hwnoise),
				 "the kernel's osnoise tracer has no OSNOISE_IRQ_DISABLE option "
				 "(Linux 6.4 on)");
		}
	}
	if (!env->have_timerlat)
		snprintf(env->no_timerlat, sizeof(env->no_timerlat),
			 "the kernel has no timerlat tracer");
	/* user-space timerlat threads: a timerlat_fd per CPU (Linux 6.5 on) */
	{
		int cpu = 0;

		while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &env->online))
			cpu++;
		env->have_timerlat_fd = env->have_timerlat &&
			(size_t)snprintf(buf, sizeof(buf), "%s/osnoise/per_cpu/cpu%d/timerlat_fd",
					 tdir, cpu) < sizeof(buf) && access(buf, F_OK) == 0;
		if (!env->have_timerlat_fd)
			snprintf(env->no_timerlat_fd, sizeof(env->no_timerlat_fd),
				 "the kernel has no osnoise/per_cpu/cpuN/timerlat_fd (Linux 6.5 on)");
	}
	return 0;
}

void lw_probe_plan_note(struct lw_probe_plan *p, const char *fmt, ...)
{
	va_list ap;

	if (p->nnotes == LW_PLAN_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(p->note[p->nnotes++], sizeof(p->note[0]), fmt, ap);
	va_end(ap);
}

int lw_cpuset_last(const cpu_set_t *set)
{
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, set))
			return c;
	return -1;
}

/*
 * Plan the wanted probes whose CPU rule is @rule, from the last in the table
 * to the first (so an earlier probe can stand in for a later one that cannot
 * run).  @taken (if not NULL) gathers the CPUs of those that run, and
 * @first (if not NULL) the first of them planned.  Returns how many run, or
 * -1 after error().
 */
static int plan_rule(enum lw_probe_cpus rule, struct lw_probe_plan *p,
		     const struct lw_plan_ctx *c, cpu_set_t *taken, const struct lw_probe **first)
{
	int n = 0;

	for (size_t i = LW_NPROBES; i-- > 0;) {
		const struct lw_probe *d = lw_probes[i];
		int r;

		if (d->cpus_rule != rule || !(*c->want & d->bit))
			continue;
		r = d->plan(d, p, c);
		if (r < 0)
			return -1;
		if (!r)
			continue;
		p->want[d->index].on = 1;
		if (taken)
			CPU_OR(taken, taken, &p->want[d->index].cpus);
		if (first && !*first)
			*first = d;
		n++;
	}
	return n;
}

/* The probes that take CPUs alone choose first; the shared ones measure the
 * CPUs they leave. */
int lw_probe_plan(struct lw_probe_plan *p, const struct lw_probe_opts *o, const cpu_set_t *cpus,
		  uint64_t interval_ns, const struct lw_probe_env *env)
{
	unsigned want = o->probes;
	struct lw_plan_ctx c = { .o = o, .cpus = cpus, .interval_ns = interval_ns, .env = env,
				 .want = &want };
	const struct lw_probe *alone = NULL;
	cpu_set_t taken, shared;
	int nalone, nshared;
	char a[256], b[256];

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < LW_NPROBES; i++) {
		const struct lw_probe *d = lw_probes[i];

		if (!o->probes && d->by_default)
			want |= d->bit;
		for (size_t k = 0; k < LW_PROBE_PARAMS && d->params[k].option; k++) {
			uint64_t v = *(const uint64_t *)((const char *)o + d->params[k].offset);

			p->want[i].param[k] = v ? v : d->params[k].def;
		}
	}
	for (size_t i = LW_NPROBES; i-- > 0;) {
		const struct lw_probe *d = lw_probes[i];
		const char *opt = !(want & d->bit) && d->given ? d->given(o) : NULL;

		if (opt)
			return error("%s: the %s probe is not selected (--probes ...,%s)", opt,
				     d->name, d->name);
	}

	CPU_ZERO(&taken);
	nalone = plan_rule(LW_PROBE_CPUS_ALONE, p, &c, &taken, &alone);
	if (nalone < 0)
		return -1;
	CPU_XOR(&shared, cpus, &taken);
	CPU_AND(&shared, &shared, cpus);
	for (size_t i = 0; i < LW_NPROBES; i++)
		if (lw_probes[i]->cpus_rule == LW_PROBE_CPUS_SHARED)
			p->want[i].cpus = shared;
	nshared = plan_rule(LW_PROBE_CPUS_SHARED, p, &c, NULL, NULL);
	if (nshared < 0)
		return -1;

	if (nalone && nshared && CPU_COUNT(&shared) != CPU_COUNT(cpus))
		lw_probe_plan_note(p, "%s: cpu %s runs the busy loop alone; timer probes on %s",
				   alone->name, lw_format_cpulist(&taken, a, sizeof(a)),
				   lw_format_cpulist(&shared, b, sizeof(b)));
	if (!nalone && !nshared)
		return error("--probes: no probe to run");
	return 0;
}

void lw_probe_plan_report(const struct lw_probe_plan *p, json_t *manifest)
{
	json_t *probes = lw_json_object_at(manifest, "probes");
	json_t *sel = json_array();

	for (int i = 0; i < p->nnotes; i++)
		note("%s", p->note[i]);
	for (size_t i = 0; lw_probes[i]; i++)
		if (lw_plan_on(lw_probes[i], p))
			json_array_append_new(sel, json_string(lw_probes[i]->name));
	json_object_set_new(probes, "selected", sel);
	json_object_set_new(probes, "lttng_ust", json_pack("{s:s, s:b, s:b}", "provider", "latwatt",
							   "built", lw_ust_built,
							   "loaded", lw_ust != NULL));
	for (size_t i = 0; lw_probes[i]; i++) {
		const char *why = p->want[i].skipped;

		if (why[0])
			json_object_set_new(probes, lw_probes[i]->name,
					    json_pack("{s:b, s:s}", "ran", 0, "reason", why));
	}
}
