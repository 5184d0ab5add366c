// SPDX-License-Identifier: GPL-2.0-only
/* SMI counts per CPU from MSR_SMI_COUNT (lib/smi.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/smi.h"
#include "lib/spawn.h"

#define SMI_SOURCE "MSR_SMI_COUNT (0x34) through /dev/cpu/N/msr"

__attribute__((format(printf, 1, 2)))
static json_t *unreadable(const char *fmt, ...)
{
	char why[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return json_pack("{s:s}", "reason", why);
}

/* The first vendor_id of @root/proc/cpuinfo, "" if none. */
static void cpu_vendor(const char *root, char *buf, size_t len)
{
	char path[PATH_MAX], line[256];
	FILE *f;

	buf[0] = 0;
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "vendor_id", 9) && strchr(line, ':')) {
			snprintf(buf, len, "%s", strchr(line, ':') + 1 + (strchr(line, ':')[1] == ' '));
			buf[strcspn(buf, "\n")] = 0;
			break;
		}
	fclose(f);
}

static void modprobe_msr(void)
{
	static const char *const argv[] = { "modprobe", "-q", "msr", NULL };
	struct lw_child c = { .argv = argv, .in = LW_CHILD_NULL, .out = LW_CHILD_NULL,
			      .err = LW_CHILD_NULL, .quiet = 1,
			      .timeout_ns = 10ULL * 1000000000ULL };

	lw_child_run(&c);	/* whether it worked, the device files say */
}

json_t *lw_smi_snapshot(const char *root, int load)
{
	char vendor[64], path[PATH_MAX];
	json_t *cpus;
	int nfound = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	if (!root)
		root = "";
	cpu_vendor(root, vendor, sizeof(vendor));
	if (!vendor[0])
		return unreadable("no x86 vendor_id in %s/proc/cpuinfo: MSR_SMI_COUNT is x86's",
				  root);
	if (strcmp(vendor, "GenuineIntel"))
		return unreadable("%s CPU: MSR_SMI_COUNT is Intel's (AMD has none)", vendor);
	snprintf(path, sizeof(path), "%s/dev/cpu/0/msr", root);
	if (access(path, F_OK) < 0 && load && !*root)
		modprobe_msr();
	if (access(path, F_OK) < 0)
		return unreadable("no %s (modprobe msr: the msr module is not there or not loaded)",
				  path);
	cpus = json_array();
	for (long cpu = 0; cpu < (ncpu > 0 ? ncpu : 1) && cpu < 4096; cpu++) {
		uint64_t v;
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), "%s/dev/cpu/%ld/msr", root, cpu);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT || errno == ENXIO)
				continue;	/* offline */
			int err = errno;

			json_decref(cpus);
			if (err == EACCES || err == EPERM)
				return unreadable("cannot open %s: not allowed (root and "
						  "CAP_SYS_RAWIO)", path);
			return unreadable("cannot open %s: %s", path, strerror(err));
		}
		n = pread(fd, &v, sizeof(v), LW_MSR_SMI_COUNT);
		close(fd);
		if (n != (ssize_t)sizeof(v)) {
			json_decref(cpus);
			return unreadable("%s refuses MSR 0x34 (a virtual machine, or a CPU "
					  "without the counter)", path);
		}
		/* the count is the low 32 bits */
		json_array_append_new(cpus, json_pack("{s:i, s:I}", "cpu", (int)cpu, "count",
						      (json_int_t)(v & 0xffffffffULL)));
		nfound++;
	}
	if (!nfound) {
		json_decref(cpus);
		return unreadable("no CPU's %s/dev/cpu/N/msr could be opened", root);
	}
	return json_pack("{s:o}", "cpus", cpus);
}

json_t *lw_smi_delta(const json_t *start, const json_t *end)
{
	const json_t *sc = json_object_get(start, "cpus"), *ec = json_object_get(end, "cpus"), *e, *s;
	json_t *cpus;
	json_int_t total = 0;
	size_t i, j;

	if (!json_is_array(sc) || !json_is_array(ec))
		return json_pack("{s:s, s:s}", "source", SMI_SOURCE, "reason",
				 json_string_value(json_object_get(json_is_array(sc) ? end : start,
								   "reason")) ?: "not read");
	cpus = json_array();
	json_array_foreach(ec, i, e) {
		json_int_t cpu = json_integer_value(json_object_get(e, "cpu"));
		json_int_t b = json_integer_value(json_object_get(e, "count"));

		json_array_foreach(sc, j, s) {
			json_int_t a = json_integer_value(json_object_get(s, "count"));

			if (json_integer_value(json_object_get(s, "cpu")) != cpu)
				continue;
			/* a 32-bit counter that wrapped */
			json_array_append_new(cpus, json_pack("{s:I, s:I, s:I, s:I}", "cpu", cpu,
				"start", a, "end", b, "count",
				(json_int_t)(((uint64_t)b - (uint64_t)a) & 0xffffffffULL)));
			total += (json_int_t)(((uint64_t)b - (uint64_t)a) & 0xffffffffULL);
		}
	}
	return json_pack("{s:s, s:o, s:I}", "source", SMI_SOURCE, "cpus", cpus, "total", total);
}
