// SPDX-License-Identifier: GPL-2.0-only
/* What every subcommand shares: verbosity, logging, sizes. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
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

/* the progress line shown, erased before a message (read_progress_start()) */
static struct read_progress *progress_shown;

static void progress_erase(void)
{
	if (progress_shown && progress_shown->shown) {
		status_clear(true);
		progress_shown->shown = false;
	}
}

void say(const char *fmt, ...)
{
	va_list ap;

	progress_erase();
	fputs("ringcap: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static int print_ringcap(enum rc_print_level level, const char *fmt, va_list ap)
{
	if ((int)level > verbosity)
		return 0;
	progress_erase();
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

#define PROGRESS_AFTER_NS   1000000000ull /* shown when reading takes longer */
#define PROGRESS_REFRESH_NS 250000000ull  /* then redrawn this often */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void progress_chunk(void *ctx, const struct rc_reader *r, uint64_t records)
{
	struct read_progress *p = ctx;
	uint64_t now, done = 0, left;
	char b[32], t[32], eta[48] = "";
	size_t i, n;
	double el;

	p->events += records;
	now = now_ns();
	if (now < p->next)
		return;
	p->next = now + PROGRESS_REFRESH_NS;
	n = rc_set__nfiles(p->set);
	for (i = 0; i < n; i++)
		done += rc_reader__offset(rc_set__reader(p->set, i));
	el = (now - p->t0) / 1e9;
	if (p->total && done && done < p->total) {
		left = (uint64_t)(el * (p->total - done) / done + 0.5);
		snprintf(eta, sizeof(eta), ", %" PRIu64 ":%02" PRIu64 " left", left / 60, left % 60);
	}
	if (p->total)
		status_line(true, "reading: %s of %s (%.0f%%), %" PRIu64 " events%s",
			    human_bytes(done, b, sizeof(b)), human_bytes(p->total, t, sizeof(t)),
			    done < p->total ? 100.0 * done / p->total : 100.0, p->events, eta);
	else
		status_line(true, "reading: %s, %" PRIu64 " events", human_bytes(done, b, sizeof(b)),
			    p->events);
	p->shown = true;
	progress_shown = p;
}

void read_progress_start(struct read_progress *p, struct rc_set *set)
{
	const char *env = getenv("RINGCAP_PROGRESS_AFTER_MS");
	size_t i, n = rc_set__nfiles(set);
	struct stat st;
	long ms;

	*p = (struct read_progress){ .set = set, .on = isatty(STDERR_FILENO) };
	if (!p->on)
		return;
	p->t0 = now_ns();
	p->after = PROGRESS_AFTER_NS;
	if (env && parse_long(env, 0, 3600000, &ms))
		p->after = ms * 1000000ull;
	p->next = p->t0 + p->after;
	for (i = 0; i < n; i++) {
		const char *path = rc_set__path(set, i);

		/* a pipe's size is not known: no share, no time left */
		if (!strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode)) {
			p->total = 0;
			break;
		}
		p->total += st.st_size;
	}
	for (i = 0; i < n; i++)
		rc_reader__on_chunk(rc_set__reader(set, i), progress_chunk, p);
}

void read_progress_end(struct read_progress *p)
{
	size_t i, n;

	if (!p->on)
		return;
	n = rc_set__nfiles(p->set);
	for (i = 0; i < n; i++)
		rc_reader__on_chunk(rc_set__reader(p->set, i), NULL, NULL);
	progress_erase();
	progress_shown = NULL;
}
