// SPDX-License-Identifier: GPL-2.0-only
/* ringcap: dispatch to a subcommand by exact name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct cmd commands[] = {
	{ "record", cmd_record, "capture events into a file" },
	{ "report", cmd_report, "decode a capture: events, or a summary" },
	{ "stat", cmd_stat, "counters of a capture: captured and dropped, per CPU" },
	{ "export", cmd_export, "load captures into ClickHouse" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: ringcap [--version] [--help] COMMAND [ARGS]\n\n"
		   "Trace capture over BPF ring buffers, into compressed capture files.\n\n"
		   "Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nSee 'ringcap COMMAND --help' and ringcap(1).\n");
}

int main(int argc, char **argv)
{
	char name[64];
	size_t i;
	int err;

	if (argc < 2) {
		usage(stderr);
		return EXIT_FAILURE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return EXIT_SUCCESS;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		print_version();
		return fflush(stdout) || ferror(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		snprintf(name, sizeof(name), "ringcap %s", commands[i].name);
		argv[1] = name;
		setup_logging();
		err = commands[i].fn(argc - 1, argv + 1);
		if (fflush(stdout) || ferror(stdout)) {
			if (errno != EPIPE)
				fprintf(stderr, "ringcap: failed to write output: %s\n",
					strerror(errno));
			return EXIT_FAILURE;
		}
		if (err > 0)
			return err;
		return err ? EXIT_FAILURE : EXIT_SUCCESS;
	}
	fprintf(stderr, "ringcap: unknown command '%s': see 'ringcap --help'\n", argv[1]);
	return RC_EXIT_USAGE;
}
