/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small JSON helpers over jansson, in one place: the accessors that read a
 * member with a default, and the constructors that write a figure a run may
 * not have (a number that is not finite, a NULL string) as null.
 */
#ifndef LW_JSON_H
#define LW_JSON_H

#include <jansson.h>
#include <stdint.h>

/* Member @key of object @o: its number, or @dflt when it is absent or not a number. */
double lw_jnum(const json_t *o, const char *key, double dflt);
/* Member @key of object @o: its string, or @dflt when it is absent or not a string. */
const char *lw_jstr(const json_t *o, const char *key, const char *dflt);

/* @x as a real, or null when it is not finite. */
json_t *lw_jreal(double x);
/* @x as an integer. */
json_t *lw_jint(uint64_t x);
/* [lo, hi], or null when either is not finite. */
json_t *lw_jpair(double lo, double hi);
/* @s as a string, or null for NULL. */
json_t *lw_jstr_or_null(const char *s);

#endif
