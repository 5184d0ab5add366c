/* SPDX-License-Identifier: GPL-2.0-only */
/* Inside boards/: what the parser (board.c) and the rest (board_find.c) share. */
#ifndef LW_BOARD_INT_H
#define LW_BOARD_INT_H

#include "boards/board.h"

/* An empty board, its figures unknown; NULL when out of memory. */
struct lw_board *lw_board_alloc(void);
/* qsort() order of operating points: by frequency. */
int lw_board_cmp_opp(const void *a, const void *b);
/* The board file @path, opened with lib/input.h @flags (and from a trusted
 * search path named @origin, or NULL), parsed and checked against its name. */
struct lw_board *lw_board_load_from(const char *path, int flags, const char *origin);

#endif
