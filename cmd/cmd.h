/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RINGCAP_CMD_H
#define RINGCAP_CMD_H

#include <argp.h>
#include <stdint.h>

/* Each handler returns 0, or a negative errno after saying what failed. */
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_stat(int argc, char **argv);

/* Exit status of a report of a truncated file, after its records. */
#define RC_EXIT_TRUNCATED 2

extern int verbosity;
extern const struct argp common_argp; /* -v, shared by every subcommand */

/* Route libbpf's and libringcap's messages to stderr by verbosity. */
void setup_logging(void);
/* "ringcap: " + message on stderr. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Parse "64M", "4096", "1G" (powers of 1024). */
int parse_size(const char *s, uint64_t *out);
/* Human-readable byte count ("1.5 MB") into buf. */
const char *human_bytes(uint64_t n, char *buf, size_t len);

#endif
