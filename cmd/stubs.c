// SPDX-License-Identifier: GPL-2.0-only
#include "cmd/commands.h"
#include "lib/error.h"
int cmd_sysinfo(int argc, char **argv) { return error("sysinfo: not yet"), 2; }
int cmd_import(int argc, char **argv) { return error("import: not yet"), 2; }
