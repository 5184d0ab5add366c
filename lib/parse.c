// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <getopt.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/parse.h"

static const struct unit {
	const char *suffix;
	uint64_t ns;
} time_units[] = {
	{ "ns", 1 },
	{ "us", LW_NSEC_PER_USEC },
	{ "ms", LW_NSEC_PER_MSEC },
	{ "s",  LW_NSEC_PER_SEC },
	{ "m",  60 * LW_NSEC_PER_SEC },
	{ "h",  3600 * LW_NSEC_PER_SEC },
	{ "d",  86400 * LW_NSEC_PER_SEC },
};

static int parse_time(const char *what, const char *s, uint64_t def_unit, uint64_t *ns)
{
	char *end;
	double v;
	uint64_t unit = def_unit;

	if (!s || !*s)
		return error("%s: empty value", what);
	if (!isdigit((unsigned char)*s) && *s != '.')
		return error("%s: '%s' is not a duration (e.g. 500ms, 30s, 5m, 2h)", what, s);
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return error("%s: '%s' is not a duration (e.g. 500ms, 30s, 5m, 2h)", what, s);
	if (*end) {
		size_t i;

		for (i = 0; i < sizeof(time_units) / sizeof(time_units[0]); i++)
			if (!strcmp(end, time_units[i].suffix))
				break;
		if (i == sizeof(time_units) / sizeof(time_units[0]))
			return error("%s: unknown unit '%s' in '%s' (use ns, us, ms, s, m, h, d)",
				     what, end, s);
		unit = time_units[i].ns;
	}
	if (v * (double)unit > 1e18)
		return error("%s: '%s' is too long", what, s);
	*ns = (uint64_t)llround(v * (double)unit);
	return 0;
}

int lw_parse_duration(const char *what, const char *s, uint64_t *ns)
{
	return parse_time(what, s, LW_NSEC_PER_SEC, ns);
}

int lw_parse_usecs(const char *what, const char *s, uint64_t *ns)
{
	return parse_time(what, s, LW_NSEC_PER_USEC, ns);
}

int lw_parse_uint(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return error("%s: empty value", what);
	if (!isdigit((unsigned char)*s))
		return error("%s: '%s' is not a non-negative integer", what, s);
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return error("%s: '%s' is not a non-negative integer", what, s);
	if (v < min || v > max)
		return error("%s: %llu is out of range [%llu, %llu]", what, v,
			     (unsigned long long)min, (unsigned long long)max);
	*out = v;
	return 0;
}

int lw_parse_size(const char *what, const char *s, uint64_t *bytes)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!s || !isdigit((unsigned char)*s))
		return error("%s: '%s' is not a size (e.g. 4096, 64k, 2M)", what, s ? s : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return error("%s: '%s' is too large", what, s);
	switch (tolower((unsigned char)*end)) {
	case 0: break;
	case 'k': shift = 10; end++; break;
	case 'm': shift = 20; end++; break;
	case 'g': shift = 30; end++; break;
	default:
		return error("%s: '%s' is not a size (e.g. 4096, 64k, 2M)", what, s);
	}
	if ((*end == 'b' || *end == 'B') && shift)
		end++;
	if (*end)
		return error("%s: '%s' is not a size (e.g. 4096, 64k, 2M)", what, s);
	if (shift && v > (~0ULL >> shift))
		return error("%s: '%s' is too large", what, s);
	*bytes = v << shift;
	return 0;
}

int lw_parse_double(const char *what, const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return error("%s: empty value", what);
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v))
		return error("%s: '%s' is not a number", what, s);
	if (v < min || v > max)
		return error("%s: %g is out of range [%g, %g]", what, v, min, max);
	*out = v;
	return 0;
}

int lw_online_cpus(cpu_set_t *out)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int ret = -1;

	if (f) {
		if (fgets(buf, sizeof(buf), f)) {
			buf[strcspn(buf, "\n")] = 0;
			int q = lw_set_quiet(1);
			ret = lw_parse_cpulist("online", buf, NULL, out);
			lw_set_quiet(q);
		}
		fclose(f);
	}
	if (ret < 0 && sched_getaffinity(0, sizeof(*out), out) < 0)
		return error_errno("cannot read the online CPUs");
	return 0;
}

int lw_parse_cpulist(const char *what, const char *s, const cpu_set_t *online, cpu_set_t *out)
{
	const char *p = s;

	CPU_ZERO(out);
	if (!s || !*s)
		return error("%s: empty CPU list", what);
	if (!strcmp(s, "all")) {
		if (!online)
			return error("%s: 'all' needs the online set", what);
		*out = *online;
		return 0;
	}
	while (*p) {
		char *end;
		unsigned long a, b;

		if (!isdigit((unsigned char)*p))
			return error("%s: bad CPU list '%s' (e.g. 0-3,6)", what, s);
		a = strtoul(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return error("%s: bad CPU list '%s' (e.g. 0-3,6)", what, s);
			b = strtoul(p, &end, 10);
			p = end;
		}
		if (b < a)
			return error("%s: bad range %lu-%lu in '%s'", what, a, b, s);
		if (b >= CPU_SETSIZE)
			return error("%s: CPU %lu is beyond %d", what, b, CPU_SETSIZE - 1);
		for (unsigned long c = a; c <= b; c++) {
			if (online && !CPU_ISSET(c, online)) {
				char ol[256];

				return error("%s: CPU %lu is not online (online: %s)", what, c,
					     lw_format_cpulist(online, ol, sizeof(ol)));
			}
			CPU_SET(c, out);
		}
		if (*p == ',') {
			p++;
			if (!*p)
				return error("%s: bad CPU list '%s' (trailing comma)", what, s);
		} else if (*p) {
			return error("%s: bad CPU list '%s' (e.g. 0-3,6)", what, s);
		}
	}
	return 0;
}

char *lw_format_cpulist(const cpu_set_t *set, char *buf, size_t len)
{
	size_t n = 0;
	int c = 0;

	buf[0] = 0;
	while (c < CPU_SETSIZE) {
		int a;

		if (!CPU_ISSET(c, set)) {
			c++;
			continue;
		}
		a = c;
		while (c + 1 < CPU_SETSIZE && CPU_ISSET(c + 1, set))
			c++;
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", a);
		if (c > a && n < len)
			n += (size_t)snprintf(buf + n, len - n, "-%d", c);
		c++;
	}
	return buf;
}

char *lw_format_duration(uint64_t ns, char *buf, size_t len)
{
	if (ns >= 3600 * LW_NSEC_PER_SEC && ns % (3600 * LW_NSEC_PER_SEC) == 0)
		snprintf(buf, len, "%lluh", (unsigned long long)(ns / (3600 * LW_NSEC_PER_SEC)));
	else if (ns >= 60 * LW_NSEC_PER_SEC && ns % (60 * LW_NSEC_PER_SEC) == 0)
		snprintf(buf, len, "%llum", (unsigned long long)(ns / (60 * LW_NSEC_PER_SEC)));
	else if (ns >= LW_NSEC_PER_SEC)
		snprintf(buf, len, "%.3gs", (double)ns / 1e9);
	else if (ns >= LW_NSEC_PER_MSEC)
		snprintf(buf, len, "%.3gms", (double)ns / 1e6);
	else if (ns >= LW_NSEC_PER_USEC)
		snprintf(buf, len, "%.3gus", (double)ns / 1e3);
	else
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	return buf;
}

int lw_opt_error(int c, char **argv, const char *cmd)
{
	if (c == ':')
		return error("option %s needs a value", argv[optind - 1]);
	return error("unknown option '%s' (see 'latwatt %s --help')", argv[optind - 1], cmd);
}

char *lw_format_threshold(uint64_t ns, char *buf, size_t len)
{
	if (ns && ns % LW_NSEC_PER_MSEC == 0)
		snprintf(buf, len, "%" PRIu64 "ms", ns / (uint64_t)LW_NSEC_PER_MSEC);
	else if (ns && ns % LW_NSEC_PER_USEC == 0)
		snprintf(buf, len, "%" PRIu64 "us", ns / (uint64_t)LW_NSEC_PER_USEC);
	else
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	return buf;
}

/* The words of a --load or an exec action (lib/parse.h). */
int lw_split_words(const char *s, char *out, char **argv, int max, int *argc,
		   const char *what, const char *spec)
{
	const char *p = s;
	char *o = out;
	int n = 0;

	for (;;) {
		char quote = 0;
		int in_word = 0;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		if (n == max)
			return error("%s: more than %d words in '%s'", what, max, spec);
		argv[n] = o;
		while (*p) {
			if (quote) {
				if (*p == quote) {
					quote = 0;
				} else if (*p == '\\' && quote == '"' && p[1] && strchr("\"\\$`", p[1])) {
					*o++ = *++p;
				} else {
					*o++ = *p;
				}
				p++;
				continue;
			}
			if (*p == ' ' || *p == '\t' || *p == '\n')
				break;
			if (*p == '\'' || *p == '"') {
				quote = *p++;
				in_word = 1;
				continue;
			}
			if (*p == '\\') {
				if (!p[1])
					return error("%s: trailing backslash in '%s'", what, spec);
				p++;
			}
			*o++ = *p++;
			in_word = 1;
		}
		if (quote)
			return error("%s: unterminated %c quote in '%s'", what, quote, spec);
		(void)in_word;
		*o++ = 0;
		n++;
	}
	argv[n] = NULL;
	*argc = n;
	return 0;
}
