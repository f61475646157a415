// SPDX-License-Identifier: GPL-2.0-only
/* What every subcommand shares: verbosity, logging, sizes. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "cmd.h"
#include "ringcap.h"

int verbosity;

static const struct argp_option common_opts[] = {
	{ "verbose", 'v', NULL, 0, "More messages: -v for libbpf's log, -vv for debug", -1 },
	/* -h as ringcap -h takes it: --help (argp's own short form is -?) */
	{ NULL, 'h', NULL, OPTION_HIDDEN, NULL, -1 },
	{},
};

static error_t parse_common(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'v':
		verbosity++;
		return 0;
	case 'h':
		argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

const struct argp common_argp = { .options = common_opts, .parser = parse_common };

void say(const char *fmt, ...)
{
	va_list ap;

	fputs("ringcap: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static int print_ringcap(enum rc_print_level level, const char *fmt, va_list ap)
{
	if ((int)level > verbosity)
		return 0;
	fputs("ringcap: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

/* libbpf's log is for -v: a failure is explained by ringcap's own message. */
static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!verbosity || (level == LIBBPF_DEBUG && verbosity < 2))
		return 0;
	fputs("libbpf: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

void setup_logging(void)
{
	rc_set_print(print_ringcap);
	libbpf_set_print(print_libbpf);
}

bool parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	if (*s == '-')
		return -EINVAL;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

/* Binary units, as --ringbuf-size takes them. */
const char *human_bytes(uint64_t n, char *buf, size_t len)
{
	if (n < 10240)
		snprintf(buf, len, "%llu B", (unsigned long long)n);
	else if (n < 10485760)
		snprintf(buf, len, "%.1f KiB", n / 1024.0);
	else if (n < 10737418240ull)
		snprintf(buf, len, "%.1f MiB", n / 1048576.0);
	else
		snprintf(buf, len, "%.1f GiB", n / 1073741824.0);
	return buf;
}

void status_line(bool tty, const char *fmt, ...)
{
	struct winsize ws;
	char line[512];
	size_t width = sizeof(line) - 1;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (!tty) {
		fprintf(stderr, "%s\n", line);
		return;
	}
	/* one terminal line, never wrapped, so that \r redraws it */
	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 1 &&
	    (size_t)ws.ws_col - 1 < width)
		width = ws.ws_col - 1;
	line[width] = '\0';
	fprintf(stderr, "\r%s\033[K", line);
}

void status_clear(bool tty)
{
	if (tty)
		fprintf(stderr, "\r\033[K");
}

void raise_nofile(void)
{
	struct rlimit rl;

	/* a set of captures holds a descriptor a file: a long rotated run has many */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl); /* best effort: the set says EMFILE if short */
	}
}
