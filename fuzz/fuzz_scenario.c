// SPDX-License-Identifier: GPL-2.0-only
/* Scenario files (workloads/scenarios/NAME.yaml) converted into `latwatt
 * run` options with run's own keys, ${...} read from a sysfs copy. */
#include "cmd/runscenario.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lw_scenario_keys k;
	struct lw_scenario sc;

	fz_dir();
	lw_run_scenario_keys(&k, FUZZ_SRC "/tests/data/scenarios/sysfs");
	lw_scenario_parse(&sc, "fuzz.yaml", (const char *)data, size, &k);
	lw_scenario_free(&sc);
	return 0;
}
