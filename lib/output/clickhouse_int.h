/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ClickHouse's HTTP interface, for clickhouse.c only: a request a call,
 * over one kept-alive connection (clickhouse_http.c: libcurl, or a stub
 * answering -EOPNOTSUPP when built with NO_CURL=1).
 */
#ifndef RINGCAP_OUTPUT_CLICKHOUSE_INT_H
#define RINGCAP_OUTPUT_CLICKHOUSE_INT_H

#include <stddef.h>
#include <sys/uio.h>
#include "util/strbuf.h"

struct rc_ch_http;

#define RC_CH_ERR_LEN 512

/*
 * A client of the server at @url (a query string of its own, like
 * ?user=U&password=P, is kept: each request's parameters go after it);
 * NULL with errno set (EOPNOTSUPP without libcurl, EINVAL: not a URL,
 * ENOMEM), @err saying why. Messages name the server without the URL's
 * user:password@ and query string.
 */
struct rc_ch_http *rc_ch_http__new(const char *url, long timeout_s, char *err, size_t errlen);

/*
 * POST @body to the server, @query (NULL: none) as its query parameter and
 * @params (NULL: none; "a=1&b=2") after it; the answer's body into
 * @answer (NULL: dropped). 0 when the server answered 200; else -EIO with
 * @err "clickhouse at URL: ANSWER" (the server's first line, or libcurl's
 * reason: refused, timed out); -ENOMEM.
 */
int rc_ch_http__post(struct rc_ch_http *h, const char *query, const char *params,
		     const void *body, size_t len, struct rc_strbuf *answer, char *err,
		     size_t errlen);

/*
 * rc_ch_http__post() of a body in pieces, @n of them, @len bytes in all:
 * libcurl reads them one after the other, as it sends (no copy of the
 * whole made first; rewound, should it send again)
 */
int rc_ch_http__postv(struct rc_ch_http *h, const char *query, const char *params,
		      const struct iovec *iov, size_t n, size_t len, struct rc_strbuf *answer,
		      char *err, size_t errlen);

void rc_ch_http__free(struct rc_ch_http *h);

#endif /* RINGCAP_OUTPUT_CLICKHOUSE_INT_H */
