/* SPDX-License-Identifier: GPL-2.0-only */
/* The power side of the PM QoS trade-off and the recommended value (tradeoff.c). */
#ifndef LW_TRADEOFF_H
#define LW_TRADEOFF_H

#include <jansson.h>
#include <stdio.h>

struct lw_board;

/* Fills power_mw per point of @doc's "tradeoff" (latency side from the trace
 * pass), the statistic of the board's latency budget, and
 * recommended_pm_qos_us / recommended_cost_mw / reason. */
void lw_tradeoff_power(const struct lw_board *b, json_t *doc);
void lw_tradeoff_print(FILE *out, const json_t *doc);

#endif
