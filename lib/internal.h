/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared inside libringcap; not part of its interface. */
#ifndef RINGCAP_INTERNAL_H
#define RINGCAP_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include "ringcap.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "ringcap-file(5) v1 is little-endian; this host is not"
#endif

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

/* How often a drain writes what it read: --flush-ms, or --wakeup-ms alone, or 1 s. */
static inline uint64_t rc_flush_ns(const struct rc_record_opts *o)
{
	/* --wakeup-ms without --flush-ms: what was read is written as often */
	if (o->wakeup_ms && !o->flush_ms)
		return o->wakeup_ms * 1000000ull;
	return (o->flush_ms ? o->flush_ms : 1000) * 1000000ull;
}

/*
 * How long a drain may sleep at @now, in ms rounded up: until the next
 * flush or @end, whichever comes first, and --wakeup-ms at most (read at
 * least this often, woken or not).
 */
static inline int rc_wait_ms(const struct rc_record_opts *o, uint64_t now, uint64_t next_flush,
			     uint64_t end)
{
	uint64_t until = next_flush < end ? next_flush : end;

	if (o->wakeup_ms && now + o->wakeup_ms * 1000000ull < until)
		until = now + o->wakeup_ms * 1000000ull;
	return (until - now + 999999) / 1000000;
}

/*
 * The next record of a run of @len bytes of records, from *@pos, which it
 * moves past: 1 and *@h; 0 at the end; -EBADMSG when the run ends inside a
 * record header, -EINVAL for a size that is not a whole record of it.
 */
static inline int rc_rec__next(const void *recs, size_t len, size_t *pos, struct rc_rec_hdr *h)
{
	if (*pos >= len)
		return 0;
	if (len - *pos < sizeof(*h))
		return -EBADMSG;
	memcpy(h, (const unsigned char *)recs + *pos, sizeof(*h));
	if (h->size < sizeof(*h) || h->size % RC_REC_ALIGN || h->size > len - *pos)
		return -EINVAL;
	*pos += h->size;
	return 1;
}

/* Return NULL with errno set, as libbpf's constructors do. */
static inline void *rc_err_ptr(int err)
{
	errno = err < 0 ? -err : err;
	return NULL;
}

int rc_strbuf__reserve(struct rc_strbuf *sb, size_t extra);

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

/* Serialise the file header block payload for @meta. */
int rc_format__header(struct rc_strbuf *sb, const struct rc_meta *meta);
#endif /* RINGCAP_INTERNAL_H */
