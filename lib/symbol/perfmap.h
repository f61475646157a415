/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf maps: the symbols a JIT writes for its code to /tmp/perf-PID.map,
 * one "START SIZE name" line each, START and SIZE in hex
 * (tools/perf/Documentation/jit-interface.txt).
 */
#ifndef RINGCAP_SYMBOL_PERFMAP_H
#define RINGCAP_SYMBOL_PERFMAP_H

#include <stdio.h>
#include "symbol/symtab.h"

/* Entries of one map at most; what follows is ignored. */
#define RC_PERFMAP_MAX (1u << 22)

/**
 * rc_perfmap__read() - read a perf map into a symbol table
 * @f: the map, read to its end
 * @t: the table, replaced
 *
 * Lines that do not parse are skipped. Of entries at one address, the
 * last written wins: a JIT that reuses its memory writes the new code
 * after the old.
 *
 * Return: 0; -ENOMEM; -EIO when reading fails (@t is then empty).
 */
int rc_perfmap__read(FILE *f, struct rc_symtab *t);

#endif /* RINGCAP_SYMBOL_PERFMAP_H */
