/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A growing buffer, for text and bytes (lib/util/strbuf.c).
 */
#ifndef RINGCAP_UTIL_STRBUF_H
#define RINGCAP_UTIL_STRBUF_H

#include <stddef.h>

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
 * rc_strbuf__append() - append bytes
 * @sb: the buffer
 * @data: the bytes; may be NULL when @len is 0
 * @len: how many
 *
 * Return: 0, or -ENOMEM (@sb is then as it was).
 */
int rc_strbuf__append(struct rc_strbuf *sb, const void *data, size_t len);

/**
 * rc_strbuf__free() - free a buffer's data
 * @sb: the buffer, left zeroed and fit to use again
 */
void rc_strbuf__free(struct rc_strbuf *sb);

#endif /* RINGCAP_UTIL_STRBUF_H */
