// SPDX-License-Identifier: GPL-2.0-only
/* Board files (boards/NAME.yaml): parsed and validated as `latwatt boards
 * check` does, then turned to JSON as a run records them. */
#include "boards/board.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct lw_board *b;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	fz_dir();
	b = lw_board_parse("fuzz.yaml", text);
	if (b) {
		json_decref(lw_board_to_json(b));
		lw_board_idle_power(b, "C1");
		lw_board_active_power(b, 1000000);
		lw_board_free(b);
	}
	free(text);
	return 0;
}
