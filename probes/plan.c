// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/knobs.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/ust.h"
#include "probes/plan.h"

static const struct {
	const char *name;
	unsigned bit;
} probe_bits[] = {
	{ "cyclic",   LW_PROBES_CYCLIC },
	{ "timerlat", LW_PROBES_TIMERLAT },
	{ "noise",    LW_PROBES_NOISE },
};
#define NBITS (sizeof(probe_bits) / sizeof(probe_bits[0]))

void lw_probe_opts_default(struct lw_probe_opts *o)
{
	memset(o, 0, sizeof(*o));
	CPU_ZERO(&o->noise_cpus);
	o->noise_threshold_ns = LW_NOISE_THRESHOLD_DEFAULT_NS;
}

int lw_parse_probes(const char *what, const char *s, unsigned *bits)
{
	const char *p = s;

	*bits = 0;
	if (!s || !*s)
		return error("%s: empty probe list (cyclic, timerlat, noise)", what);
	while (*p) {
		size_t n = strcspn(p, ",");
		size_t i;

		for (i = 0; i < NBITS; i++)
			if (strlen(probe_bits[i].name) == n && !strncmp(p, probe_bits[i].name, n))
				break;
		if (i == NBITS)
			return error("%s: unknown probe '%.*s' (cyclic, timerlat, noise)", what,
				     (int)n, p);
		*bits |= probe_bits[i].bit;
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
	for (size_t i = 0; i < NBITS && n < len; i++)
		if (bits & probe_bits[i].bit)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "",
					      probe_bits[i].name);
	return buf;
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
			return 0;
		}
		for (tok = strtok_r(list, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
			if (!strcmp(tok, "timerlat"))
				env->have_timerlat = 1;
	}
	if (!env->have_timerlat)
		snprintf(env->no_timerlat, sizeof(env->no_timerlat),
			 "the kernel has no timerlat tracer");
	return 0;
}

static void add_note(struct lw_probe_plan *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add_note(struct lw_probe_plan *p, const char *fmt, ...)
{
	va_list ap;

	if (p->nnotes == LW_PLAN_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(p->note[p->nnotes++], sizeof(p->note[0]), fmt, ap);
	va_end(ap);
}

static int last_cpu(const cpu_set_t *set)
{
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, set))
			return c;
	return -1;
}

int lw_probe_plan(struct lw_probe_plan *p, const struct lw_probe_opts *o, const cpu_set_t *cpus,
		  uint64_t interval_ns, const struct lw_probe_env *env)
{
	unsigned want = o->probes ? o->probes : LW_PROBES_CYCLIC | LW_PROBES_TIMERLAT;
	char a[256], b[256];

	memset(p, 0, sizeof(*p));
	if (o->noise_cpus_set && !(want & LW_PROBES_NOISE))
		return error("--noise-cpus: the noise probe is not selected (--probes ...,noise)");
	if (o->timerlat_period_ns && !(want & LW_PROBES_TIMERLAT))
		return error("--timerlat-period: the timerlat probe is not selected "
			     "(--probes ...,timerlat)");
	p->noise_threshold_ns = o->noise_threshold_ns;
	p->timerlat_optional = !(o->probes & LW_PROBES_TIMERLAT);

	if (want & LW_PROBES_NOISE) {
		if (o->noise_cpus_set) {
			p->noise_cpus = o->noise_cpus;
		} else if (CPU_COUNT(&env->isolated)) {
			p->noise_cpus = env->isolated;
		} else {
			CPU_ZERO(&p->noise_cpus);
			CPU_SET(last_cpu(cpus), &p->noise_cpus);
		}
		if (CPU_EQUAL(&p->noise_cpus, &env->online) || CPU_COUNT(&env->online) < 2)
			return error("--noise-cpus: %s would take every online CPU (%s); leave at "
				     "least one for housekeeping",
				     lw_format_cpulist(&p->noise_cpus, a, sizeof(a)),
				     lw_format_cpulist(&env->online, b, sizeof(b)));
		p->noise = 1;
	}

	/* The timer probes measure the CPUs the busy loops leave them. */
	CPU_XOR(&p->cyclic_cpus, cpus, &p->noise_cpus);
	CPU_AND(&p->cyclic_cpus, &p->cyclic_cpus, cpus);
	p->timerlat_cpus = p->cyclic_cpus;

	if (want & LW_PROBES_TIMERLAT) {
		if (!env->have_timerlat) {
			want &= ~(unsigned)LW_PROBES_TIMERLAT;
			if (!(want & ~(unsigned)LW_PROBES_CYCLIC))
				want |= LW_PROBES_CYCLIC;
			snprintf(p->timerlat_skipped, sizeof(p->timerlat_skipped), "%s",
				 env->no_timerlat[0] ? env->no_timerlat : "not available");
			if (want == LW_PROBES_CYCLIC)
				add_note(p, "timerlat: %s; the cyclic probe alone", p->timerlat_skipped);
			else
				add_note(p, "timerlat: %s; running %s", p->timerlat_skipped,
					 lw_format_probes(want, a, sizeof(a)));
		} else {
			p->timerlat_period_ns = o->timerlat_period_ns;
			if (!p->timerlat_period_ns) {
				p->timerlat_period_ns = interval_ns - interval_ns % 1000;
				if (p->timerlat_period_ns < LW_TIMERLAT_PERIOD_MIN_NS) {
					p->timerlat_period_ns = LW_TIMERLAT_PERIOD_MIN_NS;
					add_note(p, "timerlat: period 100us, the kernel's minimum "
						 "(--interval is shorter)");
				} else if (p->timerlat_period_ns > LW_TIMERLAT_PERIOD_MAX_NS) {
					p->timerlat_period_ns = LW_TIMERLAT_PERIOD_MAX_NS;
					add_note(p, "timerlat: period 1s, the kernel's maximum");
				}
			}
			if (!CPU_COUNT(&p->timerlat_cpus)) {
				if (!p->timerlat_optional)
					return error("--probes: no CPU left for timerlat (the noise "
						     "probe takes %s); give --cpus more CPUs",
						     lw_format_cpulist(&p->noise_cpus, a, sizeof(a)));
				want &= ~(unsigned)LW_PROBES_TIMERLAT;
			} else {
				p->timerlat = 1;
			}
		}
	}

	if (want & LW_PROBES_CYCLIC) {
		if (!CPU_COUNT(&p->cyclic_cpus))
			return error("--probes: no CPU left for the cyclic probe (the noise probe "
				     "takes %s); give --cpus more CPUs or other --noise-cpus",
				     lw_format_cpulist(&p->noise_cpus, a, sizeof(a)));
		p->cyclic = 1;
	}
	if (p->noise && (p->cyclic || p->timerlat) &&
	    CPU_COUNT(&p->cyclic_cpus) != CPU_COUNT(cpus))
		add_note(p, "noise: cpu %s runs the busy loop alone; timer probes on %s",
			 lw_format_cpulist(&p->noise_cpus, a, sizeof(a)),
			 lw_format_cpulist(&p->cyclic_cpus, b, sizeof(b)));
	if (!p->cyclic && !p->timerlat && !p->noise)
		return error("--probes: no probe to run");
	return 0;
}

void lw_probe_plan_report(const struct lw_probe_plan *p, json_t *manifest)
{
	json_t *probes = lw_json_object_at(manifest, "probes");
	json_t *sel = json_array();

	for (int i = 0; i < p->nnotes; i++)
		note("%s", p->note[i]);
	if (p->cyclic)
		json_array_append_new(sel, json_string("cyclic"));
	if (p->timerlat)
		json_array_append_new(sel, json_string("timerlat"));
	if (p->noise)
		json_array_append_new(sel, json_string("noise"));
	json_object_set_new(probes, "selected", sel);
	json_object_set_new(probes, "lttng_ust", json_pack("{s:s, s:b, s:b}", "provider", "latwatt",
							   "built", lw_ust_built,
							   "loaded", lw_ust != NULL));
	if (p->timerlat_skipped[0])
		json_object_set_new(probes, "timerlat", json_pack("{s:b, s:s}", "ran", 0,
								   "reason", p->timerlat_skipped));
}
