/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * User-space symbols for the addresses of user stacks (bpf_get_stack() with
 * BPF_F_USER_STACK), as perf resolves them: a process's executable mappings
 * are snapshotted while it runs, with its files kept open, and its
 * addresses resolved later, after it may have exited and its files been
 * deleted. Not safe against concurrent calls on one struct rc_usym.
 */
#ifndef RINGCAP_SYMBOL_USYM_H
#define RINGCAP_SYMBOL_USYM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

struct rc_usym;

/**
 * struct rc_usym_hit - what an address resolved to
 * @sym: the symbol's name, NULL if none was found; valid until rc_usym__free()
 * @sym_off: the address - the symbol's start (when @sym)
 * @dso: the mapping's object: the path of the mapped file, "[vdso]",
 *	 "[perf-PID.map]", "//anon" for anonymous code, "[vsyscall]" and other
 *	 named kernel mappings as /proc/PID/maps names them; NULL if no
 *	 mapping covers the address. Valid until rc_usym__free()
 * @file_off: the address's offset in the file (when @dso): for
 *	      "libc.so.6+0x1234"; in an anonymous mapping, its offset there;
 *	      for a perf map's symbol, the address itself
 * @build_id: the object's GNU build-id in hex, or NULL
 * @lines: the object's source lines (symbol/srcline.h), when
 *	   rc_usym__set_lines() asked for them and it has DWARF; else NULL.
 *	   Valid until rc_usym__free()
 * @vaddr: the address's ELF virtual address in the object (when @lines)
 */
struct rc_usym_hit {
	const char *sym;
	uint64_t sym_off;
	const char *dso;
	uint64_t file_off;
	const char *build_id;
	struct rc_srcline *lines;
	uint64_t vaddr;
};

/**
 * rc_usym__new() - an empty symbolizer
 *
 * Return: the symbolizer; NULL with errno ENOMEM.
 */
struct rc_usym *rc_usym__new(void);

/**
 * rc_usym__free() - close every file a symbolizer holds and free it
 * @u: the symbolizer, or NULL
 *
 * The names and paths it returned are freed with it.
 */
void rc_usym__free(struct rc_usym *u);

/**
 * rc_usym__set_lines() - read source lines too
 * @u: the symbolizer
 * @on: whether files snapshotted from now on have their DWARF read
 *
 * Off by default. On, a file without .debug_info has its debug file looked
 * for too (as one without .symtab does), and the DWARF of the debug file,
 * or of the file, is read with its symbols, for rc_usym_hit.lines.
 */
void rc_usym__set_lines(struct rc_usym *u, bool on);

/**
 * rc_usym__add_process() - snapshot a process's executable mappings
 * @u: the symbolizer
 * @tgid: the process
 *
 * Reads /proc/@tgid/maps now. Each executable mapping of a file is opened
 * through /proc/@tgid/map_files/START-END (which works for deleted files
 * and other mount namespaces), failing that /proc/@tgid/root/PATH, failing
 * that PATH. Files are shared by (st_dev, st_ino, st_size, st_mtim,
 * st_ctim) between mappings and processes, and kept open until their
 * symbols are read: at the first rc_usym__resolve() that needs them, or
 * now when the symbolizer holds 256 files open (or a quarter of
 * RLIMIT_NOFILE) already. A file without .symtab has its debug file looked
 * up and opened now (by build-id under $RINGCAP_DEBUG_DIR, default
 * /usr/lib/debug, then by .gnu_debuglink), its .symtab to be used instead.
 *
 * The [vdso] is read from /proc/@tgid/mem and parsed now. Anonymous
 * executable mappings (JIT code) are kept; a perf map, /tmp/perf-PID.map
 * (as the process's root and PID namespace name it), is read now if there
 * is one: owned by the process's user or root, a regular file, not a link.
 *
 * A second call for the same @tgid (after an exec or a dlopen()) replaces
 * its snapshot; what the first resolved stays valid. A file that cannot be
 * opened or parsed is no error: its addresses resolve to the file alone.
 *
 * Return: 0; -ESRCH if the process is gone (then an earlier snapshot is
 * kept); -EINVAL for a negative @tgid; -ENOMEM; -errno reading its maps.
 */
int rc_usym__add_process(struct rc_usym *u, int tgid);

/**
 * rc_usym__has() - has a process been snapshotted?
 * @u: the symbolizer
 * @tgid: the process
 *
 * Return: true if rc_usym__add_process() succeeded for @tgid once.
 */
bool rc_usym__has(const struct rc_usym *u, int tgid);

/**
 * rc_usym__resolve() - the symbol and mapping of an address of a process
 * @u: the symbolizer
 * @tgid: the process, snapshotted
 * @addr: the address, as in a user stack
 * @out: set to what @addr resolved to; zeroed on -ENOENT
 *
 * The address's offset in the mapped file (@addr - start + the mapping's
 * offset) becomes the ELF virtual address through the PT_LOAD segment that
 * holds it (offset - p_offset + p_vaddr), which is what the symbols say,
 * for PIE, shared libraries and fixed-address executables alike. The symbol
 * is the function whose [st_value, st_value + st_size) holds it, or, for
 * code no sized function covers, the nearest label before it. Addresses
 * outside the file mappings are looked up in the perf map.
 *
 * The first address of a file reads the file's symbols (once for every
 * process mapping it), which is when the file's descriptors are closed.
 *
 * Return: 0 when a symbol was found; 1 when only the mapping was (@out's
 * @dso and @file_off set); -ENOENT when no mapping covers @addr, or @tgid
 * was never snapshotted.
 */
int rc_usym__resolve(struct rc_usym *u, int tgid, uint64_t addr, struct rc_usym_hit *out);

/**
 * struct rc_usym_mapping - a code mapping as perf's side-band saw it made
 * @start: its first address
 * @end: past its last
 * @pgoff: its offset in the file
 * @path: the file's path as the process named it, or "[vdso]", "//anon", ...
 * @fd: the file, opened while the process lived (map_files), or -1; taken
 *	by rc_usym__note_map(), closed on error too
 * @st: its fstat() when @has_st (with @fd, or when @fd was an open file
 *	already handed over: the dso is then found by this identity)
 * @has_st: @st is set
 * @build_id: the build-id the kernel gave (PERF_RECORD_MISC_MMAP_BUILD_ID)
 * @build_id_size: its bytes; 0 when not given
 */
struct rc_usym_mapping {
	uint64_t start, end, pgoff;
	const char *path;
	int fd;
	struct stat st;
	bool has_st;
	unsigned char build_id[20];
	unsigned int build_id_size;
};

/**
 * rc_usym__note_image() - a process's new image, as the side-band saw it
 * @u: the symbolizer
 * @tgid: the process
 * @ts: when (the capture's clock)
 * @parent: the process it was forked from, its mappings then its own; 0
 *	    for an exec, whose image starts empty
 *
 * The side-band (capture/sideband.h) keeps a process's images by time: an
 * address at time T is looked up in the image begun last before T, among
 * the mappings made in it before T (rc_usym__resolve_at()). Those kept
 * apart from what rc_usym__add_process() snapshots, which stays the
 * fallback. Mappings noted in the image before with a time at or after
 * @ts (read out of order across CPUs) move to the new one.
 *
 * Return: 0; -EINVAL for a negative @tgid; -ENOMEM.
 */
int rc_usym__note_image(struct rc_usym *u, int tgid, uint64_t ts, int parent);

/**
 * rc_usym__note_map() - a code mapping a process made, as the side-band saw it
 * @u: the symbolizer
 * @tgid: the process
 * @ts: when (the capture's clock)
 * @mp: the mapping; its @fd is taken
 *
 * The mapping goes into @tgid's image current at @ts. Its file is the dso
 * of @mp->fd, or the dso already known by @mp->st; when the kernel gave a
 * build-id and the file's differs, the file is not used (its addresses
 * resolve to the path alone). "[vdso]" is read from /proc/@tgid/mem, or,
 * the process gone, taken from a vdso of the same size already read.
 *
 * Return: 0; -EINVAL; -ENOMEM.
 */
int rc_usym__note_map(struct rc_usym *u, int tgid, uint64_t ts, struct rc_usym_mapping *mp);

/**
 * rc_usym__resolve_at() - rc_usym__resolve() at a time, side-band first
 * @u: the symbolizer
 * @tgid: the process
 * @ts: when the address was taken (the capture's clock)
 * @addr: the address
 * @out: as for rc_usym__resolve()
 *
 * The mapping of @addr made last before @ts in @tgid's side-band image at
 * @ts; else the snapshot's (rc_usym__resolve()), unless that image began
 * with an exec the side-band saw the mappings of, or the snapshot was
 * taken in another of its images (rc_usym__add_process() notes when, on
 * CLOCK_BOOTTIME, the capture's clock); else, for an image begun by a
 * fork, the parent's at the fork.
 *
 * Return: as rc_usym__resolve().
 */
int rc_usym__resolve_at(struct rc_usym *u, int tgid, uint64_t ts, uint64_t addr,
			struct rc_usym_hit *out);

/**
 * struct rc_usym_map - a file's executable mapping in a snapshot
 * @start: its first address
 * @end: past its last
 * @pgoff: the file offset mapped at @start
 * @path: the file's path, as the process named it
 * @image: for the [vdso], its bytes (read from the process); NULL for a file
 * @image_len: their size
 * @bias: what the process adds to the file's ELF virtual addresses
 *	  (start - pgoff + p_offset - p_vaddr of the PT_LOAD segment mapped)
 */
struct rc_usym_map {
	uint64_t start, end, pgoff;
	const char *path;
	uint64_t bias;
	const void *image;
	size_t image_len;
};

/**
 * rc_usym__for_each_file() - the file mappings of a process's snapshot
 * @u: the symbolizer
 * @tgid: the process, snapshotted
 * @fn: called for each executable mapping of an ELF file (not files that
 *	could not be read) and for the [vdso] read from the process, with
 *	its bytes, in address order; a non-zero
 *	return stops the walk and is returned
 * @arg: for @fn
 *
 * Return: 0, @fn's non-zero return, or -ENOENT when @tgid was never
 * snapshotted.
 */
int rc_usym__for_each_file(const struct rc_usym *u, int tgid,
			   int (*fn)(const struct rc_usym_map *m, void *arg), void *arg);

/**
 * rc_usym__for_each_file_at() - the file mappings a process had at a time
 * @u: the symbolizer
 * @tgid: the process
 * @ts: when (the capture's clock), as for rc_usym__resolve_at()
 * @fn: as for rc_usym__for_each_file(); the mappings the side-band saw
 *	made before @ts in the image @ts is in, then the snapshot's (when it
 *	is of that image and the image is not an exec whose mappings the
 *	side-band saw), and, when there are none, the parent's at the fork
 * @arg: for @fn
 *
 * The files rc_usym__resolve_at() would name @ts's addresses through:
 * what an unwinder needs to report for a sample at @ts.
 *
 * Return: how many mappings went to @fn (0 when none is known), or @fn's
 * negative return.
 */
int rc_usym__for_each_file_at(const struct rc_usym *u, int tgid, uint64_t ts,
			      int (*fn)(const struct rc_usym_map *m, void *arg), void *arg);

#endif /* RINGCAP_SYMBOL_USYM_H */
