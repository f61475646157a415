/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A sorted table of symbols, address ranges with names, searched by address:
 * built once from an ELF symbol table or a perf map, then read only.
 */
#ifndef RINGCAP_SYMBOL_SYMTAB_H
#define RINGCAP_SYMBOL_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One symbol: [start, start + len), its name at an offset in the table's names. */
struct rc_sym {
	uint64_t start;
	uint32_t len;
	uint32_t name;
};

/**
 * struct rc_symtab - symbols sorted by address, one per address
 * @syms: the symbols, by start
 * @cnt: how many
 * @names: their NUL-terminated names, one after the other
 */
struct rc_symtab {
	struct rc_sym *syms;
	size_t cnt;
	char *names;
};

/*
 * What makes a symbol the one to keep among those at one address, by
 * weight (0x4, having a size, is the builder's own).
 */
#define RC_SYM_FUNC   0x8 /* STT_FUNC or STT_GNU_IFUNC, not a label */
#define RC_SYM_STRONG 0x2 /* not STB_WEAK */
#define RC_SYM_GLOBAL 0x1 /* STB_GLOBAL */

/* A table under construction: symbols in any order, aliases and all. */
struct rc_symtab_builder {
	struct rc_bsym *v;
	size_t cnt, cap;
	char *names;
	size_t names_len, names_cap;
	bool prefer_later;
};

/**
 * rc_symtab_builder__add() - add a symbol to a table under construction
 * @b: the builder, zeroed to start
 * @start: its address
 * @size: its size, 0 when unknown (a label, an assembly routine)
 * @sec_end: the end of its section, 0 when unknown: a symbol of size 0
 *	     reaches the next symbol, and never past this
 * @name: its name, copied
 * @flags: RC_SYM_*
 *
 * Return: 0; -ENOMEM; -E2BIG when the table would pass 2^32 bytes of names.
 */
int rc_symtab_builder__add(struct rc_symtab_builder *b, uint64_t start, uint64_t size,
			   uint64_t sec_end, const char *name, unsigned int flags);

/**
 * rc_symtab_builder__finish() - sort a builder's symbols into a table
 * @b: the builder, emptied (and fit to be freed) whatever the outcome
 * @t: the table, replaced
 *
 * Sorts by address and keeps one symbol per address, the best as perf's
 * choose_best_symbol() tells: a function over a label, sized over size 0,
 * not weak over weak, global over local, fewer leading underscores, the
 * longer name, then the first added (the last when @b->prefer_later).
 * Labels and symbols of size 0 inside a sized function are dropped: they
 * are the fallback for code no function covers. A symbol of size 0 reaches
 * the next symbol or the end of its section, whichever comes first.
 *
 * Return: 0, or -ENOMEM (@t is then empty).
 */
int rc_symtab_builder__finish(struct rc_symtab_builder *b, struct rc_symtab *t);

/**
 * rc_symtab_builder__free() - free a builder's symbols
 * @b: the builder, left zeroed
 */
void rc_symtab_builder__free(struct rc_symtab_builder *b);

/**
 * rc_symtab__find() - the symbol covering an address
 * @t: the table
 * @addr: the address
 * @off: set to @addr - the symbol's start
 *
 * Return: the symbol's name, owned by @t; NULL when none covers @addr.
 */
const char *rc_symtab__find(const struct rc_symtab *t, uint64_t addr, uint64_t *off);

/**
 * rc_symtab__free() - free a table
 * @t: the table, left empty
 */
void rc_symtab__free(struct rc_symtab *t);

#endif /* RINGCAP_SYMBOL_SYMTAB_H */
