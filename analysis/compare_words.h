/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The words of a comparison's verdicts, as the comparison document
 * (analysis/compare.h) holds them and the rules (analysis/failon.h) and the
 * views read them.
 */
#ifndef LW_COMPARE_WORDS_H
#define LW_COMPARE_WORDS_H

#define LW_BETTER "better"
#define LW_WORSE  "worse"
#define LW_NSD    "no significant difference"
#define LW_NA     "n/a"

#endif
