// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/idlecap.h"
#include "lib/parse.h"
#include "lib/run.h"
#include "lib/sysfs.h"

#define CPU_DIR "/sys/devices/system/cpu"

struct idlecap {
	struct lw_part part;
	struct lw_idle_cap cap[LW_MAX_IDLE_CAPS];
	int n;
	json_t *done;		/* per set: what was disabled */
};

int lw_idle_cap_parse(const char *what, const char *s, const cpu_set_t *online,
		      struct lw_idle_cap *out)
{
	const char *at = strchr(s, '@');
	char num[16];
	size_t len = at ? (size_t)(at - s) : strlen(s);
	char *end;
	long v;

	memset(out, 0, sizeof(*out));
	if (!len || len >= sizeof(num))
		return error("%s: '%s': N or N@CPULIST (N an idle state index, -1 for none)",
			     what, s);
	memcpy(num, s, len);
	num[len] = 0;
	errno = 0;
	v = strtol(num, &end, 10);
	if (*end || errno || v < -1 || v > 1000)
		return error("%s: '%s': '%s' is not an idle state index (0, 1, ... or -1: every "
			     "state disabled)", what, s, num);
	out->deepest = (int)v;
	if (at) {
		if (lw_parse_cpulist(what, at + 1, online, &out->cpus) < 0)
			return -1;
		out->cpus_given = 1;
	}
	return 0;
}

/* The driver's name, or why there is none. */
static int driver(char *buf, size_t len)
{
	if (lw_read_file(CPU_DIR "/cpuidle/current_driver", buf, len) < 0)
		return error_errno("--deepest-idle-state: this machine has no cpuidle (cannot "
				   "read %s/cpuidle/current_driver)", CPU_DIR);
	if (!strcmp(buf, "none") || !*buf)
		return error("--deepest-idle-state: this machine has no cpuidle driver (%s/cpuidle/"
			     "current_driver: '%s'): its idle states cannot be disabled", CPU_DIR,
			     buf);
	return 0;
}

/* Every CPU of the sets has its idle states; @drv gets the driver. */
static int check(const struct lw_idle_cap *caps, int n, char *drv, size_t len)
{
	char path[160];

	if (driver(drv, len) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, &caps[i].cpus))
				continue;
			snprintf(path, sizeof(path), CPU_DIR "/cpu%d/cpuidle/state0", cpu);
			if (access(path, F_OK) < 0)
				return error("--deepest-idle-state: cpu %d has no idle states (no %s; "
					     "driver %s)", cpu, path, drv);
		}
	return 0;
}

int lw_idlecap_check(const struct lw_idle_cap *caps, int n)
{
	char drv[64];

	return check(caps, n, drv, sizeof(drv));
}

static int idlecap_start(struct lw_run *run, struct lw_part *p)
{
	struct idlecap *ic = p->priv;
	char drv[64], path[160], val[16];

	if (check(ic->cap, ic->n, drv, sizeof(drv)) < 0)
		return -1;
	ic->done = json_array();
	for (int i = 0; i < ic->n; i++) {
		const struct lw_idle_cap *c = &ic->cap[i];
		json_t *off = json_array(), *was = json_array();
		char cpus[256];

		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			int k;

			if (!CPU_ISSET(cpu, &c->cpus))
				continue;
			for (k = c->deepest + 1; ; k++) {
				snprintf(path, sizeof(path), CPU_DIR "/cpu%d/cpuidle/state%d/disable",
					 cpu, k);
				if (access(path, F_OK) < 0)
					break;
				if (lw_read_file(path, val, sizeof(val)) >= 0 && !strcmp(val, "1"))
					json_array_append_new(was, json_sprintf("cpu%d/state%d",
										cpu, k));
				if (lw_knob_write(&run->knobs, path, "1") < 0) {
					json_decref(off);
					json_decref(was);
					return -1;
				}
				json_array_append_new(off, json_sprintf("cpu%d/state%d", cpu, k));
			}
		}
		if (!json_array_size(off))
			note("--deepest-idle-state %d: CPUs %s have no idle state deeper than %d: "
			     "nothing to disable", c->deepest,
			     lw_format_cpulist(&c->cpus, cpus, sizeof(cpus)), c->deepest);
		json_array_append_new(ic->done, json_pack("{s:i, s:s, s:s, s:o, s:o}",
			"deepest", c->deepest, "cpus", lw_format_cpulist(&c->cpus, cpus, sizeof(cpus)),
			"driver", drv, "disabled", off, "already_disabled", was));
	}
	return 0;
}

static void idlecap_stop(struct lw_run *run, struct lw_part *p)
{
	/* the knobs are put back with every other one, after the finish */
}

static int idlecap_finish(struct lw_run *run, struct lw_part *p)
{
	struct idlecap *ic = p->priv;

	json_object_set_new(run->dir.manifest, "idle_cap", ic->done ? json_incref(ic->done) :
			    json_array());
	return 0;
}

static void idlecap_destroy(struct lw_part *p)
{
	struct idlecap *ic = p->priv;

	json_decref(ic->done);
	free(ic);
}

struct lw_part *lw_idlecap_new(const struct lw_idle_cap *caps, int n)
{
	struct idlecap *ic = calloc(1, sizeof(*ic));

	if (!ic || n > LW_MAX_IDLE_CAPS) {
		free(ic);
		error("out of memory");
		return NULL;
	}
	memcpy(ic->cap, caps, (size_t)n * sizeof(*caps));
	ic->n = n;
	ic->part = (struct lw_part){
		.name = "idle-cap",
		.start = idlecap_start,
		.stop = idlecap_stop,
		.finish = idlecap_finish,
		.destroy = idlecap_destroy,
		.priv = ic,
	};
	return &ic->part;
}
