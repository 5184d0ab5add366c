// SPDX-License-Identifier: GPL-2.0-only
/*
 * latwatt — realtime latency and power characterization for embedded Linux.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "lib/error.h"
#include "lib/rundir.h"

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
#define LW_ENTRY(n, h) { #n, cmd_##n, h },
	LW_COMMANDS(LW_ENTRY)
#undef LW_ENTRY
};

static int usage(FILE *out, int status)
{
	fprintf(out, "usage: latwatt [--version] [--help] COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\n'latwatt COMMAND --help' describes a command; 'man latwatt' all of them.\n");
	return status;
}

int main(int argc, char **argv)
{
	/* text from data never carries escape sequences to the terminal */
	lw_clean_stdout();
	if (argc < 2)
		return usage(stderr, LW_EXIT_ERROR);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
		return usage(stdout, LW_EXIT_OK);
	if (!strcmp(argv[1], "--version")) {
		printf("latwatt %s\n", LW_VERSION);
		return LW_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		return commands[i].fn(argc - 1, argv + 1);
	}
	error("'%s' is not a latwatt command (see 'latwatt --help')", argv[1]);
	return LW_EXIT_ERROR;
}
