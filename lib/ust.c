// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one translation unit that defines the latwatt tracepoints and creates
 * their probes (lttng-ust wants exactly one; the defines must come before
 * the provider header is read, and lib/ust.h must not be read after it).
 */
#ifdef LW_HAVE_LTTNG
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "lib/ust_tp.h"
const int lw_ust_compiled_in = 1;
#else
const int lw_ust_compiled_in = 0;
#endif
