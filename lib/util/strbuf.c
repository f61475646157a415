// SPDX-License-Identifier: GPL-2.0-only
/* A growable byte buffer, for text lines and for serialised blocks. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "util/mem.h"

int rc_strbuf__reserve(struct rc_strbuf *sb, size_t extra)
{
	if (extra > SIZE_MAX / 2 - sb->len)
		return -ENOMEM;
	return rc_ensure_arr(&sb->buf, &sb->cap, sb->len + extra + 1, 256);
}

int rc_strbuf__append(struct rc_strbuf *sb, const void *data, size_t len)
{
	return rc_strbuf__put(sb, data, len);
}

int rc_strbuf__printf(struct rc_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n, err;

	va_start(ap, fmt);
	n = vsnprintf(sb->buf ? sb->buf + sb->len : NULL, sb->buf ? sb->cap - sb->len : 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if (sb->buf && (size_t)n < sb->cap - sb->len) {
		sb->len += n;
		return 0;
	}
	err = rc_strbuf__reserve(sb, n);
	if (err)
		return err;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	sb->len += n;
	return 0;
}

void rc_strbuf__free(struct rc_strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}
