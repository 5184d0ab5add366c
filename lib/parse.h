/* SPDX-License-Identifier: GPL-2.0-only */
/* Parsing of command-line values.  Pure functions: no output except error(). */
#ifndef LW_PARSE_H
#define LW_PARSE_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#define LW_NSEC_PER_USEC 1000ULL
#define LW_NSEC_PER_MSEC 1000000ULL
#define LW_NSEC_PER_SEC  1000000000ULL

/*
 * "500ms", "30s", "5m", "2h", "1500us", "100ns"; a bare number is seconds.
 * Returns 0, or -1 with error() naming @what (e.g. "--duration").
 */
int lw_parse_duration(const char *what, const char *s, uint64_t *ns);
/* A bare number in microseconds ("50"), or with a unit as above. */
int lw_parse_usecs(const char *what, const char *s, uint64_t *ns);
/* Unsigned integer in [min, max], decimal (or 0x hex). */
int lw_parse_uint(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Sizes: "4096", "64k", "2M", "1G" (binary multiples). */
int lw_parse_size(const char *what, const char *s, uint64_t *bytes);
/* Floating point in [min, max]. */
int lw_parse_double(const char *what, const char *s, double min, double max, double *out);

/*
 * CPU lists as the kernel writes them: "0-3,6,8-9".  "all" means @online.
 * Every CPU must be in @online (pass NULL to skip the check).
 */
int lw_parse_cpulist(const char *what, const char *s, const cpu_set_t *online, cpu_set_t *out);
/* Format a set as "0-3,6"; returns buf. */
char *lw_format_cpulist(const cpu_set_t *set, char *buf, size_t len);
/* The online CPUs (from sysfs; falls back to sched_getaffinity). */
int lw_online_cpus(cpu_set_t *out);

/*
 * The end of every command's getopt_long() switch: @c is ':' (an option
 * without its value) or anything else getopt returned for an unknown
 * option.  Prints one error naming the option and pointing at
 * 'latwatt @cmd --help'; returns -1.
 */
int lw_opt_error(int c, char **argv, const char *cmd);

/* A latency threshold as metric names spell it: "50us", "2ms", "1500ns". */
char *lw_format_threshold(uint64_t ns, char *buf, size_t len);
/* Format @ns as a short human duration ("2.67ms", "30s"). */
char *lw_format_duration(uint64_t ns, char *buf, size_t len);

/*
 * Split @s into words in @out (at least strlen(s) + 1 bytes): blanks separate,
 * '...' and "..." quote, backslash escapes, as a shell splits words but with
 * nothing expanded.  Fills @argv (@max words at most), NULL-terminated; 0, or
 * -1 after error() naming @what and quoting @spec.
 */
int lw_split_words(const char *s, char *out, char **argv, int max, int *argc,
		   const char *what, const char *spec);

#endif
