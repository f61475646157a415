/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Debug files from debuginfod servers (DEBUGINFOD_URLS), by build-id,
 * through elfutils' libdebuginfod loaded with dlopen() when first needed:
 * no build-time dependency, and nothing happens where it is not installed.
 * Off until rc_set_debuginfod(true).
 */
#ifndef RINGCAP_SYMBOL_DEBUGINFOD_H
#define RINGCAP_SYMBOL_DEBUGINFOD_H

#include <stddef.h>

/**
 * rc_debuginfod__find() - a debug file from a debuginfod server
 * @bid: the build-id, its bytes
 * @len: how many
 *
 * Asks the servers of $DEBUGINFOD_URLS for the debug file of @bid, as
 * libdebuginfod does (its cache first: $DEBUGINFOD_CACHE_PATH or
 * ~/.cache/debuginfod_client; $DEBUGINFOD_TIMEOUT, $DEBUGINFOD_MAXTIME and
 * $DEBUGINFOD_MAXSIZE bound each query). It blocks until the servers
 * answer. A build-id the servers could not give is not asked again; after
 * a failure to reach them (refused, unreachable, timed out) or once
 * queries have taken RC_DEBUGINFOD_BUDGET_S seconds in all, no more
 * queries are made in this process. Says once (RC_WARN) that it asks.
 * What comes back is not checked: the caller checks that it is the debug
 * file of @bid.
 *
 * Return: the file, open (the caller's to close); -ENOTSUP when off, with
 * no URLs, without libdebuginfod or after giving up; -ENOENT when the
 * servers do not have it; another -errno from libdebuginfod.
 */
int rc_debuginfod__find(const unsigned char *bid, size_t len);

/* Seconds of queries after which a process asks no more. */
#define RC_DEBUGINFOD_BUDGET_S 30

#endif /* RINGCAP_SYMBOL_DEBUGINFOD_H */
