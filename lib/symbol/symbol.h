/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a caller sets for naming addresses (lib/symbol/).
 */
#ifndef RINGCAP_SYMBOL_SYMBOL_H
#define RINGCAP_SYMBOL_SYMBOL_H

#include <stdbool.h>

/**
 * rc_set_debuginfod() - look debug files up on debuginfod servers too
 * @on: true to ask the servers of $DEBUGINFOD_URLS (when set and not empty)
 *	for the debug file of a stripped file that has a build-id and whose
 *	debug file is not found locally; false (the default) not to
 *
 * Process-wide, as libdebuginfod's settings (its environment variables)
 * are. The queries are made by the capture's writer thread when it first
 * meets a process's mappings, through libdebuginfod.so.1 loaded with
 * dlopen() (nothing is asked where it is missing, or in a static build):
 * a slow server stalls the writer. $DEBUGINFOD_TIMEOUT bounds a query, a
 * build-id is asked once, and none are asked after the servers could not
 * be reached or after 30 s of queries in all. Said once (RC_WARN) when
 * first asked.
 */
void rc_set_debuginfod(bool on);

#endif /* RINGCAP_SYMBOL_SYMBOL_H */
