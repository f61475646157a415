/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Source lines and inline frames of an object's addresses, from its DWARF
 * (libdw), as eu-addr2line -i and perf's srcline find them. An object's
 * debug sections are read into memory once, so its file may be closed.
 */
#ifndef RINGCAP_SYMBOL_SRCLINE_H
#define RINGCAP_SYMBOL_SRCLINE_H

#include <stddef.h>
#include <stdint.h>

struct rc_srcline;

#define RC_SRCLINE_MAX 32 /* frames an address may have: inlined calls nested deeper are cut */

/**
 * struct rc_srcline_frame - a function an address is in, inlined or not
 * @func: its name (the linkage name when DWARF has one, as .symtab names
 *	  it), NULL when DWARF names none
 * @file: the source file of @line, as DWARF names it, after its CU's
 *	  DW_AT_comp_dir when relative (as eu-addr2line prints it);
 *	  NULL when not known
 * @line: for the innermost frame, the address's line; for the others,
 *	  the line of the call inlined into them; 0 when not known
 */
struct rc_srcline_frame {
	const char *func;
	const char *file;
	uint32_t line;
};

/**
 * rc_srcline__open() - read the DWARF of an ELF file
 * @fd: the file, open; not taken: it may be closed once this returns
 * @name: the file's name, for messages
 *
 * Return: the object's lines; NULL with errno ENOENT when it has no
 * .debug_info, ENOMEM, or EBADMSG for DWARF libdw refuses.
 */
struct rc_srcline *rc_srcline__open(int fd, const char *name);

/**
 * rc_srcline__find() - the source line and inline frames of an address
 * @s: the object's lines
 * @vaddr: the ELF virtual address (for a return address, the call's: minus one)
 * @out: set to the frames, innermost first: the functions inlined there,
 *	 then the function they are in, last. Strings are valid until
 *	 rc_srcline__free()
 * @max: room in @out
 *
 * Looked up once an address: an address asked again is answered from a cache.
 *
 * Return: how many frames (1 when nothing is inlined there); 0 when DWARF
 * says nothing of @vaddr; -ENOMEM.
 */
int rc_srcline__find(struct rc_srcline *s, uint64_t vaddr, struct rc_srcline_frame *out,
		     size_t max);

/**
 * rc_srcline__free() - free an object's lines
 * @s: the lines, or NULL
 */
void rc_srcline__free(struct rc_srcline *s);

#endif /* RINGCAP_SYMBOL_SRCLINE_H */
