// SPDX-License-Identifier: GPL-2.0-only
/* lw_board_check(): how the running machine differs from its board. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "boards/board.h"
#include "lib/error.h"
#include "lib/parse.h"

static void diff(json_t *out, const char *what, json_t *expected, json_t *found,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void diff(json_t *out, const char *what, json_t *expected, json_t *found,
		 const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_array_append_new(out, json_pack("{s:s, s:o, s:o, s:s}", "what", what,
		"expected", expected ? expected : json_null(), "found", found ? found : json_null(),
		"message", msg));
}

static int lw_sysinfo_rt(const json_t *sys)
{
	return json_is_true(json_object_get(json_object_get(sys, "preempt"), "rt"));
}

static int sysfs_cpus(const char *s, cpu_set_t *out)
{
	CPU_ZERO(out);
	if (!s || !*s || !strcmp(s, "(null)"))
		return 0;
	int q = lw_set_quiet(1);
	int ret = lw_parse_cpulist("sysfs", s, NULL, out);

	lw_set_quiet(q);
	return ret;
}

static void check_set(json_t *out, const char *what, const cpu_set_t *want, const char *found)
{
	cpu_set_t have;
	char a[256], b[256];

	sysfs_cpus(found, &have);
	if (CPU_EQUAL(&have, want))
		return;
	lw_format_cpulist(want, a, sizeof(a));
	lw_format_cpulist(&have, b, sizeof(b));
	diff(out, what, json_string(a), json_string(b), "%s is %s, the board expects %s", what,
	     *b ? b : "empty", a);
}

/* aarch64 and arm64 are one architecture */
static int same_arch(const char *a, const char *b)
{
	if (!strcmp(a, b))
		return 1;
	if ((!strcmp(a, "arm64") && !strcmp(b, "aarch64")) || (!strcmp(a, "aarch64") && !strcmp(b, "arm64")))
		return 1;
	return !strncmp(a, "armv7", 5) && !strncmp(b, "armv7", 5);
}

static void check_idle(json_t *out, const struct lw_board *b, const json_t *sys)
{
	const json_t *cpus = json_object_get(json_object_get(sys, "cpuidle"), "cpus"), *c, *st;
	size_t i, j;

	if (!json_is_array(cpus))
		return;
	if (!json_array_size(cpus) && b->nidle) {
		diff(out, "idle_states", json_integer(b->nidle), json_integer(0),
		     "no cpuidle states on this machine, the board lists %d (%s%s)", b->nidle,
		     b->idle[0].name, b->nidle > 1 ? ", ..." : "");
		return;
	}
	json_array_foreach(cpus, i, c) {
		const json_t *states = json_object_get(c, "states");
		int cpu = (int)json_integer_value(json_object_get(c, "cpu"));
		char what[64];

		snprintf(what, sizeof(what), "cpu%d.idle_states", cpu);
		for (int k = 0; k < b->nidle; k++) {
			const struct lw_idle_state *bs = &b->idle[k];
			const json_t *found = NULL;

			json_array_foreach(states, j, st)
				if (!strcmp(json_string_value(json_object_get(st, "name")), bs->name))
					found = st;
			if (!found) {
				diff(out, what, json_string(bs->name), json_null(),
				     "cpu %d: idle state %s is missing", cpu, bs->name);
				continue;
			}
			double lat = (double)json_integer_value(json_object_get(found, "exit_latency_us"));

			if (json_is_integer(json_object_get(found, "exit_latency_us")) &&
			    fabs(lat - bs->exit_latency_us) > 0.5)
				diff(out, what, json_real(bs->exit_latency_us), json_real(lat),
				     "cpu %d: idle state %s exit latency is %.0fus, the board says %.0fus",
				     cpu, bs->name, lat, bs->exit_latency_us);
		}
		json_array_foreach(states, j, st) {
			const char *n = json_string_value(json_object_get(st, "name"));
			int known = 0;

			for (int k = 0; k < b->nidle; k++)
				known |= !strcmp(b->idle[k].name, n);
			if (!known)
				diff(out, what, json_null(), json_string(n),
				     "cpu %d: idle state %s is not in the board file (no power figure for it)",
				     cpu, n);
		}
	}
}

json_t *lw_board_check(const struct lw_board *b, const json_t *sys)
{
	json_t *out = json_array();
	const json_t *v;
	const char *s;

	if (b->arch && (s = json_string_value(json_object_get(json_object_get(sys, "kernel"),
							       "machine"))) && !same_arch(b->arch, s))
		diff(out, "arch", json_string(b->arch), json_string(s),
		     "architecture is %s, the board is %s", s, b->arch);
	if (b->ncpus && (v = json_object_get(json_object_get(sys, "cpu"), "count")) &&
	    json_integer_value(v) != b->ncpus)
		diff(out, "cpus.count", json_integer(b->ncpus), json_incref((json_t *)v),
		     "%lld CPUs online, the board has %d", (long long)json_integer_value(v), b->ncpus);
	if (b->kernel.preempt_rt >= 0) {
		v = json_object_get(json_object_get(sys, "preempt"), "rt");
		if (json_is_boolean(v) && json_is_true(v) != b->kernel.preempt_rt) {
			const char *model = json_string_value(json_object_get(json_object_get(sys,
									"preempt"), "model"));

			diff(out, "preempt_rt", json_boolean(b->kernel.preempt_rt), json_incref((json_t *)v),
			     b->kernel.preempt_rt ? "kernel is not PREEMPT_RT (preemption model %s)" :
			     "kernel is PREEMPT_RT, the board expects it not to be (%s)",
			     model ? model : "unknown");
		}
	}
	if (b->kernel.has_nohz_full)
		check_set(out, "nohz_full", &b->kernel.nohz_full,
			  json_string_value(json_object_get(sys, "nohz_full")));
	if (b->kernel.has_isolated)
		check_set(out, "isolated", &b->kernel.isolated,
			  json_string_value(json_object_get(sys, "isolated")));
	if (b->kernel.cmdline) {
		const char *cl = json_string_value(json_object_get(sys, "cmdline"));
		char want[1024], *save, *tok;

		snprintf(want, sizeof(want), "%s", b->kernel.cmdline);
		for (tok = strtok_r(want, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			const char *p = cl;
			size_t n = strlen(tok);
			int found = 0;

			while (p && (p = strstr(p, tok))) {
				if ((p == cl || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ')) {
					found = 1;
					break;
				}
				p += n;
			}
			if (!found)
				diff(out, "cmdline", json_string(tok), cl ? json_string(cl) : NULL,
				     "%s is missing from the kernel command line", tok);
		}
	}
	for (int i = 0; i < b->kernel.ntracers; i++) {
		s = json_string_value(json_object_get(sys, "tracers"));
		if (!s || !strstr(s, b->kernel.tracers[i]))
			diff(out, "tracers", json_string(b->kernel.tracers[i]), s ? json_string(s) : NULL,
			     "tracer %s is not available", b->kernel.tracers[i]);
	}
	for (int i = 0; i < b->kernel.ntracers_rt && lw_sysinfo_rt(sys); i++) {
		s = json_string_value(json_object_get(sys, "tracers"));
		if (!s || !strstr(s, b->kernel.tracers_rt[i]))
			diff(out, "tracers", json_string(b->kernel.tracers_rt[i]), s ? json_string(s) : NULL,
			     "tracer %s is not available on this PREEMPT_RT kernel", b->kernel.tracers_rt[i]);
	}
	check_idle(out, b, sys);
	/* power sources: what lw_power_discover_json() put in sysinfo */
	v = json_object_get(sys, "power_sources");
	for (int i = 0; i < b->nsrc; i++) {
		const json_t *src;
		size_t j;
		int found = 0;

		if (!strcmp(b->src[i].type, "meter"))
			continue;	/* an external meter is not on the machine */
		if (!json_is_array(v)) {
			diff(out, "power_sources", json_string(b->src[i].type), NULL,
			     "power sources were not probed (expected %s%s%s)", b->src[i].type,
			     b->src[i].device ? " " : "", b->src[i].device ? b->src[i].device : "");
			break;
		}
		json_array_foreach(v, j, src) {
			const char *t = json_string_value(json_object_get(src, "type"));
			const char *n = json_string_value(json_object_get(src, "name"));

			if (t && !strcmp(t, b->src[i].type) &&
			    (!b->src[i].device || (n && strstr(n, b->src[i].device))))
				found = 1;
		}
		if (!found)
			diff(out, "power_sources", json_string(b->src[i].device ? b->src[i].device :
							       b->src[i].type), NULL,
			     "power sensor %s%s%s is missing", b->src[i].type,
			     b->src[i].device ? " " : "", b->src[i].device ? b->src[i].device : "");
	}
	return out;
}
