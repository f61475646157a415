// SPDX-License-Identifier: GPL-2.0-only
/* Levelled logging through a callback the program sets, as libbpf does. */
#include <stdarg.h>
#include <stdio.h>
#include "util/util.h"

static int default_print(enum rc_print_level level, const char *fmt, va_list ap)
{
	if (level > RC_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static rc_print_fn_t print_fn = default_print;

rc_print_fn_t rc_set_print(rc_print_fn_t fn)
{
	rc_print_fn_t old = print_fn;

	print_fn = fn;
	return old;
}

void rc_pr(enum rc_print_level level, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (print_fn) {
		va_start(ap, fmt);
		print_fn(level, fmt, ap);
		va_end(ap);
	}
	errno = saved;
}
