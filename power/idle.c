// SPDX-License-Identifier: GPL-2.0-only
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/parse.h"
#include "lib/rundir.h"
#include "lib/sysfs.h"
#include "power/idle.h"

static int rd_u64(const char *root, int cpu, int s, const char *f, json_int_t *v)
{
	char path[PATH_MAX], buf[64], *end;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cpuidle/state%d/%s", root,
		 cpu, s, f);
	if (lw_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	*v = strtoll(buf, &end, 10);
	return *end ? -1 : 0;
}

json_t *lw_idle_snapshot(const char *root)
{
	char path[PATH_MAX], buf[4096];
	json_t *cpus = json_array();
	cpu_set_t online;

	root = root ? root : "";
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", root);
	int q = lw_set_quiet(1);
	int ok = lw_read_file(path, buf, sizeof(buf)) > 0 &&
		 lw_parse_cpulist(path, buf, NULL, &online) == 0;

	lw_set_quiet(q);
	for (int cpu = 0; ok && cpu < CPU_SETSIZE; cpu++) {
		json_t *states;

		if (!CPU_ISSET(cpu, &online))
			continue;
		states = json_array();
		for (int s = 0; s < 32; s++) {
			char name[64];
			json_int_t usage, time_us, lat = -1;

			snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name",
				 root, cpu, s);
			if (lw_read_file(path, name, sizeof(name)) < 0)
				break;
			if (rd_u64(root, cpu, s, "usage", &usage) < 0 ||
			    rd_u64(root, cpu, s, "time", &time_us) < 0)
				break;
			rd_u64(root, cpu, s, "latency", &lat);
			json_array_append_new(states, json_pack("{s:i, s:s, s:I, s:I, s:I}",
				"index", s, "name", name, "exit_latency_us", lat,
				"usage", usage, "time_us", time_us));
		}
		json_array_append_new(cpus, json_pack("{s:i, s:o}", "cpu", cpu, "states", states));
	}
	return json_pack("{s:o}", "cpus", cpus);
}

static const json_t *find_cpu(const json_t *snap, json_int_t cpu)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(snap, "cpus"), i, c)
		if (json_integer_value(json_object_get(c, "cpu")) == cpu)
			return c;
	return NULL;
}

json_t *lw_idle_delta(const json_t *start, const json_t *end, uint64_t duration_ns)
{
	json_t *cpus = json_array(), *c;
	size_t i;

	json_array_foreach(json_object_get(end, "cpus"), i, c) {
		json_int_t cpu = json_integer_value(json_object_get(c, "cpu"));
		const json_t *c0 = find_cpu(start, cpu);
		json_t *states = json_array(), *st;
		double idle_us = 0;
		size_t j;

		if (!c0)
			continue;
		json_array_foreach(json_object_get(c, "states"), j, st) {
			const json_t *st0 = json_array_get(json_object_get(c0, "states"), j);
			json_int_t du, dt;

			if (!st0 || strcmp(json_string_value(json_object_get(st0, "name")),
					   json_string_value(json_object_get(st, "name"))))
				continue;
			du = json_integer_value(json_object_get(st, "usage")) -
			     json_integer_value(json_object_get(st0, "usage"));
			dt = json_integer_value(json_object_get(st, "time_us")) -
			     json_integer_value(json_object_get(st0, "time_us"));
			if (du < 0 || dt < 0)
				du = dt = 0;	/* counters reset (CPU hotplug) */
			idle_us += (double)dt;
			json_array_append_new(states, json_pack("{s:O, s:O, s:O, s:I, s:I, s:f}",
				"index", json_object_get(st, "index"), "name", json_object_get(st, "name"),
				"exit_latency_us", json_object_get(st, "exit_latency_us"),
				"entries", du, "residency_us", dt,
				"residency", duration_ns ? (double)dt * 1e3 / (double)duration_ns : 0.0));
		}
		double active = duration_ns ? 1.0 - idle_us * 1e3 / (double)duration_ns : 0;

		/* no cpuidle states (no cpuidle driver): the counters know nothing */
		json_array_append_new(cpus, json_pack("{s:I, s:o, s:o}", "cpu", cpu, "states", states,
			"active", !json_array_size(states) ? json_null() :
			json_real(active < 0 ? 0.0 : active)));
	}
	return json_pack("{s:s, s:o}", "source", "cpuidle sysfs usage/time counters", "cpus", cpus);
}

static void print_part(FILE *out, const char *title, const json_t *part)
{
	size_t i, j;
	json_t *c, *st;

	if (!json_is_object(part))
		return;
	fprintf(out, "idle states (%s):\n", title);
	json_array_foreach(json_object_get(part, "cpus"), i, c) {
		if (!json_is_number(json_object_get(c, "active"))) {
			fprintf(out, "  cpu %-3lld no cpuidle counters (no cpuidle driver)\n",
				(long long)json_integer_value(json_object_get(c, "cpu")));
			continue;
		}
		fprintf(out, "  cpu %-3lld active %5.1f%%", (long long)json_integer_value(json_object_get(c, "cpu")),
			100 * json_real_value(json_object_get(c, "active")));
		json_array_foreach(json_object_get(c, "states"), j, st)
			fprintf(out, "  %s %5.1f%% (%lld)", json_string_value(json_object_get(st, "name")),
				100 * json_real_value(json_object_get(st, "residency")),
				(long long)json_integer_value(json_object_get(st, "entries")));
		fprintf(out, "\n");
	}
}

void lw_idle_print(FILE *out, const json_t *idle)
{
	print_part(out, "cpuidle counters: residency, entries", json_object_get(idle, "sysfs"));
	print_part(out, "traced cpu_idle events: residency, entries", json_object_get(idle, "trace"));
}
