/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libcurl, which ringcap export loads at run time (clickhouse_http.c):
 * whether it is there, for --version and record --check.
 */
#ifndef RINGCAP_OUTPUT_CLICKHOUSE_HTTP_H
#define RINGCAP_OUTPUT_CLICKHOUSE_HTTP_H

#include <stddef.h>

/**
 * rc_ch_http__libcurl_version() - the libcurl export would use
 * @err: why there is none, when there is none
 * @errlen: its size
 *
 * Loads libcurl.so.4 with dlopen() the first time (thread-safe; once a
 * process), as export's first client does, and asks it its version. A
 * build without libcurl (make NO_CURL=1) or a static one (no dlopen())
 * loads nothing.
 *
 * Return: libcurl's version at run time ("7.88.1"), static; NULL with errno
 * EOPNOTSUPP and @err saying why and how to fix it when it cannot be
 * loaded, lacks a function export calls, or this build has no libcurl.
 */
const char *rc_ch_http__libcurl_version(char *err, size_t errlen);

#endif /* RINGCAP_OUTPUT_CLICKHOUSE_HTTP_H */
