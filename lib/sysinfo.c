// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/sysfs.h"
#include "lib/sysinfo.h"

#define PM_QOS_DEFAULT_US 2000000000LL	/* PM_QOS_CPU_LATENCY_DEFAULT_VALUE */

struct root {
	const char *dir;
};

static int rread(const struct root *r, const char *path, char *buf, size_t len)
{
	char full[PATH_MAX];

	snprintf(full, sizeof(full), "%s%s", r->dir, path);
	return lw_read_file(full, buf, len);
}

static json_t *rd_str(const struct root *r, const char *path)
{
	char buf[4096];

	if (rread(r, path, buf, sizeof(buf)) < 0)
		return json_null();
	return json_string(buf);
}

static json_t *rd_int(const struct root *r, const char *path)
{
	char buf[64], *end;
	long long v;

	if (rread(r, path, buf, sizeof(buf)) <= 0)
		return json_null();
	v = strtoll(buf, &end, 10);
	return *end ? json_null() : json_integer(v);
}

static json_t *kernel_info(const struct root *r)
{
	struct utsname u;

	if (!*r->dir && uname(&u) == 0)
		return json_pack("{s:s, s:s, s:s, s:s}", "sysname", u.sysname, "release", u.release,
				 "version", u.version, "machine", u.machine);
	return json_pack("{s:o, s:o, s:o}", "sysname", rd_str(r, "/proc/sys/kernel/ostype"),
			 "release", rd_str(r, "/proc/sys/kernel/osrelease"),
			 "version", rd_str(r, "/proc/sys/kernel/version"));
}

/* "none voluntary (full) lazy" -> "full" */
static json_t *dynamic_mode(const struct root *r)
{
	char buf[256], *a, *b;

	if (rread(r, "/sys/kernel/debug/sched/preempt", buf, sizeof(buf)) < 0)
		return json_null();
	a = strchr(buf, '(');
	b = a ? strchr(a, ')') : NULL;
	if (!a || !b)
		return json_null();
	*b = 0;
	return json_string(a + 1);
}

const char *lw_preempt_model(const char *version, int rt_sysfs)
{
	if (rt_sysfs || (version && strstr(version, "PREEMPT_RT")))
		return "PREEMPT_RT";
	if (!version)
		return "unknown";
	if (strstr(version, "PREEMPT_DYNAMIC"))
		return "PREEMPT_DYNAMIC";
	if (strstr(version, "PREEMPT_LAZY"))
		return "PREEMPT_LAZY";
	if (strstr(version, "PREEMPT"))
		return "PREEMPT";
	return "none";
}

static json_t *preempt_info(const struct root *r, const char *version)
{
	char buf[16];
	int rt_sysfs = rread(r, "/sys/kernel/realtime", buf, sizeof(buf)) > 0 && buf[0] == '1';
	int rt_ver = version && strstr(version, "PREEMPT_RT");
	const char *model = lw_preempt_model(version, rt_sysfs);
	json_t *mode = dynamic_mode(r);
	return json_pack("{s:b, s:b, s:b, s:s, s:o}", "rt", rt_ver || rt_sysfs,
			 "sys_kernel_realtime", rt_sysfs, "version_says_rt", !!rt_ver,
			 "model", model, "dynamic_mode", mode);
}

static int cpu_dirs(const struct root *r, int *cpus, int max)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *e;
	int n = 0;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu", r->dir);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		char *end;
		long c;

		if (strncmp(e->d_name, "cpu", 3) || !e->d_name[3])
			continue;
		c = strtol(e->d_name + 3, &end, 10);
		if (*end)
			continue;
		cpus[n++] = (int)c;
	}
	closedir(d);
	/* insertion sort: a few CPUs */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && cpus[j - 1] > cpus[j]; j--) {
			int t = cpus[j];

			cpus[j] = cpus[j - 1];
			cpus[j - 1] = t;
		}
	return n;
}

static json_t *idle_states(const struct root *r, int cpu)
{
	json_t *states = json_array();
	char path[PATH_MAX];

	for (int s = 0; s < 32; s++) {
		char base[128], name[64];

		snprintf(base, sizeof(base), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d", cpu, s);
		snprintf(path, sizeof(path), "%s/name", base);
		if (rread(r, path, name, sizeof(name)) < 0)
			break;
		json_t *st = json_pack("{s:i, s:s}", "index", s, "name", name);
		static const char *const fields[][2] = {
			{ "desc", "desc" }, { "latency", "exit_latency_us" },
			{ "residency", "target_residency_us" }, { "disable", "disabled" },
			{ "usage", "usage" }, { "time", "time_us" },
		};
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", base, fields[i][0]);
			json_object_set_new(st, fields[i][1],
					    i == 0 ? rd_str(r, path) : rd_int(r, path));
		}
		json_array_append_new(states, st);
	}
	return states;
}

static json_t *cpu_info(const struct root *r)
{
	char buf[65536], model[256] = "";
	json_t *o = json_object();
	FILE *f;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", r->dir);
	f = fopen(path, "r");
	if (f) {
		while (fgets(buf, sizeof(buf), f)) {
			char *colon = strchr(buf, ':');

			if (!colon)
				continue;
			if (!strncmp(buf, "model name", 10) || !strncmp(buf, "Hardware", 8) ||
			    (!model[0] && !strncmp(buf, "CPU part", 8))) {
				snprintf(model, sizeof(model), "%s", colon + 2);
				model[strcspn(model, "\n")] = 0;
				if (!strncmp(buf, "model name", 10))
					break;
			}
		}
		fclose(f);
	}
	json_object_set_new(o, "model", model[0] ? json_string(model) : json_null());
	json_object_set_new(o, "online", rd_str(r, "/sys/devices/system/cpu/online"));
	json_object_set_new(o, "possible", rd_str(r, "/sys/devices/system/cpu/possible"));
	if (!*r->dir)
		json_object_set_new(o, "count", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	return o;
}

/* The "flags" line of the first CPU in cpuinfo holds " hypervisor " (x86:
 * CPUID leaf 1, ECX bit 31, which every hypervisor sets). */
static int cpuinfo_hypervisor(const struct root *r)
{
	char path[PATH_MAX], line[8192];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", r->dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "flags", 5) || !colon)
			continue;
		line[strcspn(line, "\n")] = 0;
		for (char *t = strtok(colon + 1, " \t"); t; t = strtok(NULL, " \t"))
			if (!strcmp(t, "hypervisor"))
				found = 1;
		break;
	}
	fclose(f);
	return found;
}

/* Machine names (DMI sys_vendor, product_name, the device tree's
 * compatible) that only a virtual machine has; the identity they name. */
static const struct { const char *word, *name; } vm_names[] = {
	{ "QEMU", "QEMU" }, { "KVM", "KVM" }, { "Bochs", "QEMU" }, { "VMware", "VMware" },
	{ "VirtualBox", "VirtualBox" }, { "innotek", "VirtualBox" }, { "Xen", "Xen" },
	{ "Virtual Machine", "Hyper-V" }, { "Amazon EC2", "KVM (Amazon EC2)" },
	{ "Google Compute Engine", "KVM (Google)" }, { "Parallels", "Parallels" },
	{ "linux,dummy-virt", "QEMU" }, { "cloud-hypervisor", "Cloud Hypervisor" },
	{ "Firecracker", "Firecracker" },
};

static const char *vm_name(const char *s)
{
	for (size_t i = 0; s && i < sizeof(vm_names) / sizeof(vm_names[0]); i++)
		if (strstr(s, vm_names[i].word))
			return vm_names[i].name;
	return NULL;
}

/* The hypervisor's identity: {"virtual", "evidence": [..], "name", "type",
 * "vendor", "product"}; "virtual" when any one source says so. */
static json_t *hypervisor_info(const struct root *r)
{
	char type[64] = "", vendor[256] = "", product[256] = "", compat[512] = "";
	json_t *ev = json_array();
	const char *name = NULL;
	int n;

	if (cpuinfo_hypervisor(r))
		json_array_append_new(ev, json_string("cpuinfo flag hypervisor"));
	if (rread(r, "/sys/hypervisor/type", type, sizeof(type)) > 0) {
		json_array_append_new(ev, json_string("/sys/hypervisor/type"));
		name = !strcmp(type, "xen") ? "Xen" : NULL;
	} else {
		type[0] = 0;
	}
	if (rread(r, "/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor)) < 0)
		vendor[0] = 0;
	if (rread(r, "/sys/class/dmi/id/product_name", product, sizeof(product)) < 0)
		product[0] = 0;
	if (vm_name(vendor) || vm_name(product)) {
		json_array_append_new(ev, json_string("DMI"));
		if (!name)
			name = vm_name(vendor) ? vm_name(vendor) : vm_name(product);
	}
	/* the device tree's strings are NUL separated: read them as one */
	n = rread(r, "/sys/firmware/devicetree/base/compatible", compat, sizeof(compat));
	for (int i = 0; i < n - 1; i++)
		if (!compat[i])
			compat[i] = ' ';
	if (n > 0 && vm_name(compat)) {
		json_array_append_new(ev, json_string("device tree"));
		if (!name)
			name = vm_name(compat);
	}
	return json_pack("{s:b, s:o, s:s?, s:s?, s:s?, s:s?}",
			 "virtual", json_array_size(ev) > 0, "evidence", ev,
			 "name", name ? name : json_array_size(ev) ? "unknown" : NULL,
			 "type", type[0] ? type : NULL, "vendor", vendor[0] ? vendor : NULL,
			 "product", product[0] ? product : NULL);
}

/* Clocksources that read a counter of the CPU or of the hypervisor: cheap
 * and fine-grained.  The others are a fallback (jiffies, refined-jiffies:
 * the tick's resolution) or slow to read (acpi_pm, hpet: an I/O access,
 * which traps to the host on a virtual machine). */
static const char *const stable_clocks[] = {
	"tsc", "arch_sys_counter", "kvm-clock", "riscv_clocksource", "timer", "xen",
	"hyperv_clocksource_tsc_page", "tsc-early",
};

int lw_clocksource_stable(const char *cs)
{
	for (size_t i = 0; cs && i < sizeof(stable_clocks) / sizeof(stable_clocks[0]); i++)
		if (!strcmp(cs, stable_clocks[i]))
			return 1;
	return 0;
}

static json_t *clocksource_info(const struct root *r, const json_t *hv)
{
	json_t *cur = rd_str(r, "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	const char *cs = json_string_value(cur);
	char note[256] = "";

	if (cs && !lw_clocksource_stable(cs)) {
		if (!strcmp(cs, "jiffies") || !strcmp(cs, "refined-jiffies"))
			snprintf(note, sizeof(note), "%s counts ticks: time moves in steps of a "
				 "tick%s", cs, json_is_true(json_object_get(hv, "virtual")) ?
				 " (the hypervisor's clocks were found unusable)" : "");
		else
			snprintf(note, sizeof(note), "%s is not a CPU counter: reading it is slow%s",
				 cs, json_is_true(json_object_get(hv, "virtual")) ?
				 " (each read traps to the hypervisor)" : "");
	}
	json_t *o = json_pack("{s:O, s:o, s:o}", "current", cur,
		"available", rd_str(r, "/sys/devices/system/clocksource/clocksource0/available_clocksource"),
		"stable", cs ? json_boolean(lw_clocksource_stable(cs)) : json_null());

	if (note[0])
		json_object_set_new(o, "note", json_string(note));
	json_decref(cur);
	return o;
}

json_t *lw_sysinfo_collect(const char *rootdir)
{
	struct root r = { rootdir ? rootdir : "" };
	json_t *sys = json_object(), *kernel, *idle = json_array(), *freq = json_array();
	int cpus[1024], n = cpu_dirs(&r, cpus, 1024), online = 0;
	char path[PATH_MAX], buf[256];

	kernel = kernel_info(&r);
	json_object_set_new(sys, "kernel", kernel);
	json_object_set_new(sys, "cmdline", rd_str(&r, "/proc/cmdline"));
	json_object_set_new(sys, "preempt",
			    preempt_info(&r, json_string_value(json_object_get(kernel, "version"))));
	json_object_set_new(sys, "nohz_full", rd_str(&r, "/sys/devices/system/cpu/nohz_full"));
	json_object_set_new(sys, "isolated", rd_str(&r, "/sys/devices/system/cpu/isolated"));
	json_t *hv = hypervisor_info(&r);

	json_object_set_new(sys, "hypervisor", hv);
	json_object_set_new(sys, "clocksource", clocksource_info(&r, hv));
	for (int i = 0; i < n; i++) {
		json_t *st;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpus[i]);
		if (rread(&r, path, buf, sizeof(buf)) > 0 && buf[0] == '0')
			continue;
		online++;
		st = idle_states(&r, cpus[i]);
		if (json_array_size(st))
			json_array_append_new(idle, json_pack("{s:i, s:o}", "cpu", cpus[i], "states", st));
		else
			json_decref(st);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
			 cpus[i]);
		if (rread(&r, path, buf, sizeof(buf)) > 0) {
			json_t *c = json_pack("{s:i, s:s}", "cpu", cpus[i], "governor", buf);
			static const char *const f[][2] = {
				{ "scaling_driver", "driver" }, { "scaling_cur_freq", "cur_khz" },
				{ "scaling_min_freq", "min_khz" }, { "scaling_max_freq", "max_khz" },
			};
			for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
				snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/%s",
					 cpus[i], f[k][0]);
				json_object_set_new(c, f[k][1], k ? rd_int(&r, path) : rd_str(&r, path));
			}
			json_array_append_new(freq, c);
		}
	}
	json_object_set_new(sys, "cpuidle", json_pack("{s:o, s:o, s:o}",
		"driver", rd_str(&r, "/sys/devices/system/cpu/cpuidle/current_driver"),
		"governor", rd_str(&r, "/sys/devices/system/cpu/cpuidle/current_governor"),
		"cpus", idle));
	json_object_set_new(sys, "cpufreq", freq);
	json_t *cpu = cpu_info(&r);
	if (!json_object_get(cpu, "count"))
		json_object_set_new(cpu, "count", json_integer(online));
	json_object_set_new(sys, "cpu", cpu);
	if (!*r.dir) {
		int64_t q = lw_pmqos_read(LW_PMQOS_DEV);

		json_object_set_new(sys, "pm_qos_us", q >= 0 ? json_integer(q) : json_null());
		json_object_set_new(sys, "timer_slack_ns", rd_int(&r, "/proc/self/timerslack_ns"));
		json_object_set_new(sys, "hostname",
				    gethostname(buf, sizeof(buf)) == 0 ? json_string(buf) : json_null());
	} else {
		json_object_set_new(sys, "pm_qos_us", json_null());
		json_object_set_new(sys, "timer_slack_ns", json_null());
	}
	{
		char tracers[1024];
		int has = rread(&r, "/sys/kernel/tracing/available_tracers", tracers, sizeof(tracers)) >= 0;

		json_object_set_new(sys, "tracers", has ? json_string(tracers) : json_null());
		json_object_set_new(sys, "timerlat", json_boolean(has && strstr(tracers, "timerlat")));
		json_object_set_new(sys, "osnoise", json_boolean(has && strstr(tracers, "osnoise")));
	}
	return sys;
}

int lw_sysinfo_is_rt(const json_t *sys)
{
	return json_is_true(json_object_get(json_object_get(sys, "preempt"), "rt"));
}

int lw_sysinfo_is_vm(const json_t *sys)
{
	return json_is_true(json_object_get(json_object_get(sys, "hypervisor"), "virtual"));
}

const char *lw_sysinfo_preempt_model(const json_t *sys)
{
	const char *m = json_string_value(json_object_get(json_object_get(sys, "preempt"), "model"));

	return m ? m : "unknown";
}

static void warn(json_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(json_t *w, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(w, json_string(buf));
}

json_t *lw_sysinfo_warnings(const json_t *sys, uint64_t idle_budget_us)
{
	json_t *w = json_array(), *cpus, *c;
	const char *s;
	size_t i, j;
	json_int_t v;

	if (!lw_sysinfo_is_rt(sys))
		warn(w, "kernel is not PREEMPT_RT (preemption model %s)", lw_sysinfo_preempt_model(sys));
	else if ((s = json_string_value(json_object_get(json_object_get(sys, "preempt"),
							"dynamic_mode"))) && strcmp(s, "full"))
		warn(w, "preemption mode is '%s', not full", s);
	s = json_string_value(json_object_get(sys, "isolated"));
	if (!s || !*s)
		warn(w, "no isolated CPUs (isolcpus= on the kernel command line)");
	s = json_string_value(json_object_get(sys, "nohz_full"));
	if (!s || !*s || !strcmp(s, "(null)"))
		warn(w, "no nohz_full CPUs: the tick runs on every CPU");
	s = json_string_value(json_object_get(json_object_get(sys, "clocksource"), "current"));
	if (s && !lw_clocksource_stable(s))
		warn(w, "clocksource is %s: reading the clock may be slow or coarse", s);
	if (lw_sysinfo_is_vm(sys))
		warn(w, "a virtual machine (%s): the host's preemption of a vCPU shows as latency "
			"(analyze names it host:, compare judges the kernel-attributable figures)",
		     json_string_value(json_object_get(json_object_get(sys, "hypervisor"), "name")));
	v = json_integer_value(json_object_get(sys, "pm_qos_us"));
	if (json_is_integer(json_object_get(sys, "pm_qos_us")) && v >= PM_QOS_DEFAULT_US)
		warn(w, "PM QoS (cpu_dma_latency) is unset: deep idle states are allowed "
			"(measured as such; --pm-qos US holds a limit)");
	v = json_integer_value(json_object_get(sys, "timer_slack_ns"));
	if (v > 0)
		warn(w, "timer slack is %lldns for SCHED_OTHER threads (probes use SCHED_FIFO, which "
			"has none)", (long long)v);
	cpus = json_object_get(json_object_get(sys, "cpuidle"), "cpus");
	if (idle_budget_us) {
		json_array_foreach(cpus, i, c) {
			json_t *st;

			json_array_foreach(json_object_get(c, "states"), j, st) {
				json_int_t lat = json_integer_value(json_object_get(st, "exit_latency_us"));

				if (!json_integer_value(json_object_get(st, "disabled")) &&
				    (uint64_t)lat > idle_budget_us)
					warn(w, "cpu %lld: idle state %s is enabled with exit latency %lldus, "
						"above the %lluus budget",
					     (long long)json_integer_value(json_object_get(c, "cpu")),
					     json_string_value(json_object_get(st, "name")),
					     (long long)lat, (unsigned long long)idle_budget_us);
			}
		}
	}
	return w;
}

json_t *lw_steal_snapshot(const char *root)
{
	char path[PATH_MAX], line[512];
	long hz = sysconf(_SC_CLK_TCK);
	json_t *cpus;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/stat", root ? root : "");
	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (hz <= 0)
		hz = 100;
	cpus = json_array();
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[8];
		int cpu;

		/* cpuN user nice system idle iowait irq softirq steal ("cpu " is the sum) */
		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9' || sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9 || cpu < 0)
			continue;
		json_array_append_new(cpus, json_pack("{s:i, s:I}", "cpu", cpu, "steal_ns",
			(json_int_t)(v[7] * (1000000000ULL / (unsigned long long)hz))));
	}
	fclose(f);
	return cpus;
}

json_t *lw_steal_delta(const json_t *start, const json_t *end)
{
	json_t *cpus = json_array(), *e, *s;
	json_int_t total = 0;
	size_t i, j;

	json_array_foreach((json_t *)end, i, e) {
		json_int_t cpu = json_integer_value(json_object_get(e, "cpu")), d = -1;

		json_array_foreach((json_t *)start, j, s)
			if (json_integer_value(json_object_get(s, "cpu")) == cpu)
				d = json_integer_value(json_object_get(e, "steal_ns")) -
				    json_integer_value(json_object_get(s, "steal_ns"));
		if (d < 0)
			continue;	/* not online at the start, or the counter was reset */
		total += d;
		json_array_append_new(cpus, json_pack("{s:I, s:I}", "cpu", cpu, "steal_ns", d));
	}
	return json_pack("{s:s, s:o, s:I}", "source", "/proc/stat steal (the hypervisor's report)",
			 "cpus", cpus, "total_ns", total);
}
