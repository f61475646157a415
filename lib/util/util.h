/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared inside libringcap, every layer's; not part of its interface. */
#ifndef RINGCAP_UTIL_UTIL_H
#define RINGCAP_UTIL_UTIL_H

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "util/log.h"
#include "util/strbuf.h"

__attribute__((format(printf, 2, 3))) void rc_pr(enum rc_print_level level, const char *fmt, ...);

#define pr_warn(fmt, ...)  rc_pr(RC_WARN, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)  rc_pr(RC_INFO, fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) rc_pr(RC_DEBUG, fmt, ##__VA_ARGS__)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * A thread of the library's own (the writer, the side-band reader), with
 * every signal blocked in it: the caller's handlers run on the caller's
 * thread, whose waits they interrupt and whose flags they set.
 */
static inline int rc_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* Now on @clk, in ns. */
static inline uint64_t rc_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Return NULL with errno set, as libbpf's constructors do. */
static inline void *rc_err_ptr(int err)
{
	errno = err < 0 ? -err : err;
	return NULL;
}

static inline int rc_put_u16(struct rc_strbuf *sb, uint16_t v)
{
	return rc_strbuf__append(sb, &v, sizeof(v));
}

static inline int rc_put_u32(struct rc_strbuf *sb, uint32_t v)
{
	return rc_strbuf__append(sb, &v, sizeof(v));
}

static inline int rc_put_u64(struct rc_strbuf *sb, uint64_t v)
{
	return rc_strbuf__append(sb, &v, sizeof(v));
}

/* A name or string: u16 length, then its bytes. */
int rc_put_str16(struct rc_strbuf *sb, const char *s);

#endif /* RINGCAP_UTIL_UTIL_H */
