/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The library's log callback (lib/util/log.c).
 */
#ifndef RINGCAP_UTIL_LOG_H
#define RINGCAP_UTIL_LOG_H

#include <stdarg.h>

enum rc_print_level {
	RC_WARN,
	RC_INFO,
	RC_DEBUG,
};

typedef int (*rc_print_fn_t)(enum rc_print_level level, const char *fmt, va_list ap);

/**
 * rc_set_print() - set the library's log callback
 * @fn: called for every message, of every level; NULL: no messages at all
 *
 * The default prints warnings (RC_WARN) to stderr and drops the rest.
 * The callback is process-wide and may be called
 * from the library's writer thread during a capture: set it before opening
 * a session, not while one runs. errno is kept across a call to @fn.
 *
 * Return: the callback set before.
 */
rc_print_fn_t rc_set_print(rc_print_fn_t fn);

#endif /* RINGCAP_UTIL_LOG_H */
