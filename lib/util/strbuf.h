/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A growing buffer, for text and bytes (lib/util/strbuf.c).
 */
#ifndef RINGCAP_UTIL_STRBUF_H
#define RINGCAP_UTIL_STRBUF_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/**
 * struct rc_strbuf - a growing buffer, for text and bytes
 * @buf: the data, NUL-terminated once anything was added; NULL before
 * @len: bytes of data, the NUL not counted
 * @cap: bytes allocated
 *
 * Starts zeroed; set @len to 0 to reuse the allocation.
 */
struct rc_strbuf {
	char *buf;
	size_t len;
	size_t cap;
};

/**
 * rc_strbuf__printf() - append formatted text
 * @sb: the buffer
 * @fmt: printf(3)'s format
 * @...: its arguments
 *
 * Return: 0; -ENOMEM; or -EINVAL when vsnprintf(3) fails (@sb is then as
 * it was).
 */
int rc_strbuf__printf(struct rc_strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/**
 * rc_strbuf__reserve() - make room for more bytes
 * @sb: the buffer
 * @extra: bytes to add after @sb->len, a NUL after them not counted
 *
 * Return: 0, or -ENOMEM (@sb is then as it was).
 */
int rc_strbuf__reserve(struct rc_strbuf *sb, size_t extra);

/**
 * rc_strbuf__room() - where to write @n more bytes
 * @sb: the buffer
 * @n: the most bytes the caller writes there, before rc_strbuf__commit()
 *
 * Return: the end of the data, with room for @n bytes and a NUL; NULL
 * (ENOMEM) when it cannot grow.
 */
static inline char *rc_strbuf__room(struct rc_strbuf *sb, size_t n)
{
	if (sb->cap - sb->len <= n && rc_strbuf__reserve(sb, n))
		return NULL;
	return sb->buf + sb->len;
}

/**
 * rc_strbuf__commit() - count @n bytes written at rc_strbuf__room()
 * @sb: the buffer
 * @n: bytes written, at most the room asked for
 */
static inline void rc_strbuf__commit(struct rc_strbuf *sb, size_t n)
{
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

/**
 * rc_strbuf__append() - append bytes
 * @sb: the buffer
 * @data: the bytes; may be NULL when @len is 0
 * @len: how many
 *
 * Return: 0, or -ENOMEM (@sb is then as it was).
 */
int rc_strbuf__append(struct rc_strbuf *sb, const void *data, size_t len);

/**
 * rc_strbuf__put() - rc_strbuf__append(), inline
 * @sb: the buffer
 * @data: the bytes; may be NULL when @len is 0
 * @len: how many
 *
 * For the formats, which append a few bytes at a time, millions of times.
 *
 * Return: 0, or -ENOMEM (@sb is then as it was).
 */
static inline int rc_strbuf__put(struct rc_strbuf *sb, const void *data, size_t len)
{
	char *p = rc_strbuf__room(sb, len);

	if (!p)
		return -ENOMEM;
	if (len)
		memcpy(p, data, len);
	rc_strbuf__commit(sb, len);
	return 0;
}

/* @v in decimal, its digits ending at @end: the first digit. */
static inline char *rc_fmt_u64(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/**
 * rc_strbuf__put_u64() - append a number in decimal, as printf's "%llu"
 * @sb: the buffer
 * @v: the number
 *
 * Return: 0, or -ENOMEM.
 */
static inline int rc_strbuf__put_u64(struct rc_strbuf *sb, uint64_t v)
{
	char d[20], *p = rc_fmt_u64(d + sizeof(d), v);

	return rc_strbuf__put(sb, p, d + sizeof(d) - p);
}

/**
 * rc_strbuf__put_s64() - append a signed number in decimal, as "%lld"
 * @sb: the buffer
 * @v: the number
 *
 * Return: 0, or -ENOMEM.
 */
static inline int rc_strbuf__put_s64(struct rc_strbuf *sb, int64_t v)
{
	char d[21], *p = rc_fmt_u64(d + sizeof(d), v < 0 ? -(uint64_t)v : (uint64_t)v);

	if (v < 0)
		*--p = '-';
	return rc_strbuf__put(sb, p, d + sizeof(d) - p);
}

/**
 * rc_strbuf__put_u64_0() - append a number in decimal, zero-padded, as "%0*llu"
 * @sb: the buffer
 * @v: the number
 * @width: at least this many digits, at most 20
 *
 * Return: 0, or -ENOMEM.
 */
static inline int rc_strbuf__put_u64_0(struct rc_strbuf *sb, uint64_t v, unsigned int width)
{
	char d[20], *p = rc_fmt_u64(d + sizeof(d), v);

	while (d + sizeof(d) - p < (long)width && p > d)
		*--p = '0';
	return rc_strbuf__put(sb, p, d + sizeof(d) - p);
}

/**
 * rc_strbuf__put_hex() - append a number in lower-case hex, as "%llx"
 * @sb: the buffer
 * @v: the number
 *
 * Return: 0, or -ENOMEM.
 */
static inline int rc_strbuf__put_hex(struct rc_strbuf *sb, uint64_t v)
{
	char d[16], *p = d + sizeof(d);

	do {
		*--p = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v);
	return rc_strbuf__put(sb, p, d + sizeof(d) - p);
}

/**
 * rc_strbuf__free() - free a buffer's data
 * @sb: the buffer, left zeroed and fit to use again
 */
void rc_strbuf__free(struct rc_strbuf *sb);

#endif /* RINGCAP_UTIL_STRBUF_H */
