/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One ELF object that processes map: a file, or the vdso's image. What it
 * takes to turn a file offset into a symbol: its PT_LOAD segments, its
 * build-id, and its symbols, read from it or from its separate debug file.
 */
#ifndef RINGCAP_SYMBOL_DSO_H
#define RINGCAP_SYMBOL_DSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "symbol/symtab.h"

struct rc_srcline;

/* A PT_LOAD segment: the file's bytes [off, off + filesz) are at vaddr. */
struct rc_dso_seg {
	uint64_t off;
	uint64_t filesz;
	uint64_t vaddr;
};

/**
 * struct rc_dso - an ELF object and its symbols
 * @name: its path as the process that first mapped it named it, or "[vdso]"
 * @build_id: its GNU build-id in hex, or NULL
 * @segs: its PT_LOAD segments with bytes in the file
 * @nr_segs: how many
 * @syms: its symbols, once loaded
 * @fd: the file, open until its symbols are loaded; -1
 * @dbg_fd: its separate debug file, the one to take .symtab from; -1
 * @loaded: @syms has been read (or could not be): @fd and @dbg_fd are closed
 * @want_lines: read its DWARF too when its symbols are read
 * @lines: its source lines (symbol/srcline.h), read with its symbols when
 *	   @want_lines and it or its debug file has DWARF; else NULL
 * @st: the file's identity (st_dev, st_ino, st_size, st_mtim, st_ctim); zero for an image
 * @img_hash: for an image, a hash of its bytes
 * @img_len: for an image, its size
 * @img: for an image, its bytes (an unwinder reads its CFI); NULL for a file
 */
struct rc_dso {
	char *name;
	char *build_id;
	struct rc_dso_seg *segs;
	size_t nr_segs;
	struct rc_symtab syms;
	int fd;
	int dbg_fd;
	bool loaded;
	bool want_lines;
	struct rc_srcline *lines;
	struct stat st;
	uint64_t img_hash;
	size_t img_len;
	void *img;
};

/**
 * struct rc_dso_where - where to look for a file's debug file
 * @root: the process's root ("/proc/PID/root"), NULL when it is ours
 * @debug_dir: the global debug directory: $RINGCAP_DEBUG_DIR or /usr/lib/debug
 * @lines: source lines are wanted: a file without .debug_info has its debug
 *	   file looked for too, and its DWARF is read with its symbols
 */
struct rc_dso_where {
	const char *root;
	const char *debug_dir;
	bool lines;
};

/**
 * rc_dso__open_fd() - an ELF file, its symbols to read later
 * @fd: the file, open; the dso's from now on, closed on error too
 * @st: its fstat()
 * @path: its path in the process that maps it, for the dso's name and the
 *	  debug file's search by .gnu_debuglink
 * @where: where else to look for its debug file
 *
 * Reads its headers, PT_LOAD segments and build-id now, and when it has no
 * .symtab (or, with @where->lines, no .debug_info), finds and opens its
 * separate debug file: by build-id in
 * @where->debug_dir/.build-id/, then by .gnu_debuglink in the file's
 * directory, its .debug/ and @where->debug_dir/DIR/. A debug file counts
 * when its build-id matches, or, when either has none, when the debuglink's
 * CRC does. Its symbols are read by rc_dso__load(), from the file
 * descriptors kept open, so that the file may be deleted meanwhile. A file
 * that is not ELF, or a damaged one, gives a dso with no segment: its
 * addresses resolve to the file alone.
 *
 * Return: the dso; NULL with errno ENOMEM.
 */
struct rc_dso *rc_dso__open_fd(int fd, const struct stat *st, const char *path,
			       const struct rc_dso_where *where);

/**
 * rc_dso__from_image() - an ELF object in memory, read at once
 * @img: its bytes (the vdso's, read from the process), not kept
 * @len: how many
 * @name: the dso's name, as "[vdso]"
 *
 * Return: the dso, its symbols loaded; NULL with errno ENOMEM.
 */
struct rc_dso *rc_dso__from_image(const void *img, size_t len, const char *name);

/**
 * rc_dso__load() - read a dso's symbols, if not yet done
 * @d: the dso
 *
 * Takes .symtab from the debug file when there is one, else the file's
 * .symtab, else its .dynsym; when @d->want_lines, reads the DWARF of the
 * debug file, else of the file, into @d->lines; then closes both. A failure leaves the dso
 * without symbols, not an error: its addresses resolve to the file alone.
 */
void rc_dso__load(struct rc_dso *d);

/**
 * rc_dso__fds() - the file descriptors a dso holds open
 * @d: the dso
 *
 * Return: 0, 1 or 2.
 */
int rc_dso__fds(const struct rc_dso *d);

/**
 * rc_dso__vaddr() - the ELF virtual address of a file offset
 * @d: the dso
 * @off: an offset in the file
 * @vaddr: set to @off - p_offset + p_vaddr of the PT_LOAD segment holding @off
 *
 * Return: true; false when no segment holds @off.
 */
bool rc_dso__vaddr(const struct rc_dso *d, uint64_t off, uint64_t *vaddr);

/**
 * rc_dso__free() - close and free a dso
 * @d: the dso, or NULL
 */
void rc_dso__free(struct rc_dso *d);

#endif /* RINGCAP_SYMBOL_DSO_H */
