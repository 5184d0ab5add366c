// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>

#include "lib/json.h"

double lw_jnum(const json_t *o, const char *key, double dflt)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

const char *lw_jstr(const json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : dflt;
}

json_t *lw_jreal(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

json_t *lw_jint(uint64_t x)
{
	return json_integer((json_int_t)x);
}

json_t *lw_jpair(double lo, double hi)
{
	if (!isfinite(lo) || !isfinite(hi))
		return json_null();
	return json_pack("[o, o]", lw_jreal(lo), lw_jreal(hi));
}

json_t *lw_jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}
