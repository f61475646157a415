/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's symbols, from /proc/kallsyms: the core kernel's, modules'
 * and BPF programs', at the addresses this boot gave them (KASLR
 * included), for naming kernel frames while recording.
 */
#ifndef RINGCAP_SYMBOL_KSYM_H
#define RINGCAP_SYMBOL_KSYM_H

#include <stdint.h>
#include <stdio.h>

struct rc_ksym {
	uint64_t addr;
	const char *name;
	const char *dso; /* "[kernel.kallsyms]", or the module's "[name]" ("[bpf]" for programs) */
};

struct rc_ksyms;

/**
 * rc_ksyms__load() - read the kernel's symbols
 * @path: NULL for /proc/kallsyms; a file of the same format (tests)
 *
 * Only code symbols (types t, T, w, W). Read as root: to others the
 * kernel shows every address as 0 (kernel.kptr_restrict), which is refused.
 *
 * Return: the table, or NULL with errno set: EPERM when the addresses are
 * hidden, ENOENT when there is no symbol.
 */
struct rc_ksyms *rc_ksyms__load(const char *path);

/**
 * rc_ksyms__load_file() - rc_ksyms__load() from an open stream
 * @f: kallsyms lines
 */
struct rc_ksyms *rc_ksyms__load_file(FILE *f);

/**
 * rc_ksyms__find() - the symbol an address is in
 * @k: the table
 * @addr: a kernel address
 * @off: set to @addr's offset into it
 *
 * Return: the highest symbol at or below @addr, NULL below the first;
 * valid until rc_ksyms__free().
 */
const struct rc_ksym *rc_ksyms__find(const struct rc_ksyms *k, uint64_t addr, uint64_t *off);

/**
 * rc_ksyms__free() - free the table
 * @k: the table, or NULL
 */
void rc_ksyms__free(struct rc_ksyms *k);

#endif /* RINGCAP_SYMBOL_KSYM_H */
