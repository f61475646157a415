// SPDX-License-Identifier: GPL-2.0-only
/*
 * Source lines and inline frames through libdw: the CU of an address
 * (dwarf_addrdie()), its line (dwarf_getsrc_die()), the scopes that hold it
 * (dwarf_getscopes()), of which each DW_TAG_inlined_subroutine is a
 * function inlined there, whose DW_AT_call_file and DW_AT_call_line are
 * the line of the function it was inlined into, up to the
 * DW_TAG_subprogram, the function the code is in: what eu-addr2line -i
 * prints.
 *
 * The file is read with ELF_C_READ, as dso.c does (no SIGBUS when it is
 * truncated under us); libdw reads the debug sections it needs when the
 * Dwarf is made, after which libelf is told the descriptor is gone.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "symbol/srcline.h"
#include "util/keymap.h"
#include "util/mem.h"

/* A cached answer: @n frames from @first in the frames array. */
struct srcline_entry {
	uint32_t first;
	uint32_t n;
};

struct rc_srcline {
	Elf *elf;
	Dwarf *dw;
	void **bufs; /* the debug sections' bytes, each with a NUL after it */
	size_t nbufs, bufs_cap;
	struct rc_keymap cache; /* vaddr: index in entries */
	struct srcline_entry *entries;
	size_t nentries, entries_cap;
	struct rc_srcline_frame *frames;
	size_t nframes, frames_cap;
	/* a relative file's path joined to its CU's directory: its index in pathv */
	struct rc_keymap paths;
	char **pathv;
	size_t npaths, paths_cap;
};

/* Does @e have a .debug_info section (compressed or not) with bytes? */
static bool has_debug_info(Elf *e)
{
	Elf_Scn *scn = NULL;
	const char *name;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(e, &shstrndx))
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")))
			return true;
	}
	return false;
}

/*
 * Give each debug section's bytes a NUL after its end: libdw 0.188 takes
 * strings in .debug_line with strlen(), and a damaged section without a
 * NUL at its end is read past (AddressSanitizer finds it, test
 * symbol_bad_elf). Compressed sections are decompressed first, as libdw
 * would, so that it takes these bytes. Only a section whose last byte is
 * not a NUL is copied (.debug_line, ending with its last program's end).
 */
static int pad_debug_sections(struct rc_srcline *s)
{
	Elf_Scn *scn = NULL;
	const char *name;
	size_t shstrndx;
	GElf_Shdr sh;
	Elf_Data *d;
	char *copy;

	if (elf_getshdrstrndx(s->elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(s->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(s->elf, shstrndx, sh.sh_name);
		if (!name || (strncmp(name, ".debug_", 7) && strncmp(name, ".zdebug_", 8)))
			continue;
		/* what cannot be decompressed is left to libdw, which refuses it too */
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			continue;
		if (!strncmp(name, ".zdebug_", 8) && elf_compress_gnu(scn, 0, 0) < 0)
			continue;
		d = elf_getdata(scn, NULL);
		/* one that ends in a NUL already (most do: strings, DIEs) needs none */
		if (!d || !d->d_buf || !d->d_size || d->d_size == SIZE_MAX ||
		    !((const char *)d->d_buf)[d->d_size - 1])
			continue;
		if (rc_ensure_arr(&s->bufs, &s->bufs_cap, s->nbufs + 1, 16))
			return -ENOMEM;
		copy = malloc(d->d_size + 1);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, d->d_buf, d->d_size);
		copy[d->d_size] = '\0';
		/* libelf frees its own buffer at elf_end(), not d_buf: ours are freed after */
		d->d_buf = copy;
		s->bufs[s->nbufs++] = copy;
	}
	return 0;
}

struct rc_srcline *rc_srcline__open(int fd, const char *name)
{
	struct rc_srcline *s;
	int err = -ENOENT;

	elf_version(EV_CURRENT);
	s = calloc(1, sizeof(*s));
	if (!s)
		return rc_err_ptr(-ENOMEM);
	s->elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!s->elf || elf_kind(s->elf) != ELF_K_ELF || !has_debug_info(s->elf))
		goto err_out;
	if (pad_debug_sections(s)) {
		err = -ENOMEM;
		goto err_out;
	}
	s->dw = dwarf_begin_elf(s->elf, DWARF_C_READ, NULL);
	if (!s->dw) {
		pr_debug("srcline: '%s': %s\n", name, dwarf_errmsg(-1));
		err = -EBADMSG;
		goto err_out;
	}
	/* every section libdw takes is read: the descriptor is no more needed */
	elf_cntl(s->elf, ELF_C_FDDONE);
	return s;
err_out:
	elf_errno();
	rc_srcline__free(s);
	return rc_err_ptr(err);
}

/* The name of a function's DIE: its linkage name if any, as .symtab has it, else its name. */
static const char *die_func_name(Dwarf_Die *die)
{
	Dwarf_Attribute mem, *a;
	const char *name;

	a = dwarf_attr_integrate(die, DW_AT_linkage_name, &mem);
	if (!a)
		a = dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &mem);
	name = a ? dwarf_formstring(a) : NULL;
	return name ?: dwarf_diename(die);
}

/*
 * @file as eu-addr2line prints it: a relative name (DWARF 5's, of a file
 * in a directory named relative to the compilation's) after the CU's
 * DW_AT_comp_dir. Joined names are kept until rc_srcline__free(); on
 * -ENOMEM, @file as it is.
 */
static const char *full_path(struct rc_srcline *s, Dwarf_Die *cu, const char *file)
{
	size_t dlen, flen, sep;
	Dwarf_Attribute mem;
	const char *dir;
	uint32_t idx;
	char *joined;
	int added;

	if (file && !strcmp(file, "???")) /* libdw's name of DWARF 4's file 0: none */
		return NULL;
	if (!file || file[0] == '/')
		return file;
	dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &mem));
	if (!dir || !*dir)
		return file;
	dlen = strlen(dir);
	flen = strlen(file);
	sep = dir[dlen - 1] != '/';
	if (rc_ensure_arr(&s->pathv, &s->paths_cap, s->npaths + 1, 16))
		return file;
	joined = malloc(dlen + sep + flen + 1);
	if (!joined)
		return file;
	memcpy(joined, dir, dlen);
	joined[dlen] = '/';
	memcpy(joined + dlen + sep, file, flen + 1);
	added = rc_keymap__intern(&s->paths, joined, dlen + sep + flen, s->npaths, &idx);
	if (added <= 0) {
		free(joined);
		return added < 0 ? file : s->pathv[idx];
	}
	s->pathv[s->npaths++] = joined;
	return joined;
}

/* The call site of an inlined subroutine's DIE: its file (in @cu's table) and line. */
static void call_site(Dwarf_Die *die, Dwarf_Files *files, size_t nfiles,
		      struct rc_srcline_frame *out)
{
	Dwarf_Attribute mem;
	Dwarf_Word v;

	out->file = NULL;
	out->line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &mem), &v) == 0 && files && v < nfiles)
		out->file = dwarf_filesrc(files, v, NULL, NULL);
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &mem), &v) == 0 && v <= UINT32_MAX)
		out->line = v;
}

/* Look @vaddr up in the DWARF: its frames into @out (room for @max), their count. */
static size_t lookup(struct rc_srcline *s, uint64_t vaddr, struct rc_srcline_frame *out, size_t max)
{
	Dwarf_Die cu_mem, *cu, *scopes = NULL;
	Dwarf_Files *files = NULL;
	size_t n = 0, nfiles = 0;
	Dwarf_Line *line;
	int nscopes, i, lineno;

	cu = dwarf_addrdie(s->dw, vaddr, &cu_mem);
	if (!cu || !max)
		return 0;
	out[0] = (struct rc_srcline_frame){};
	line = dwarf_getsrc_die(cu, vaddr);
	if (line) {
		out[0].file = dwarf_linesrc(line, NULL, NULL);
		if (!dwarf_lineno(line, &lineno) && lineno > 0)
			out[0].line = lineno;
	}
	n = 1;
	if (dwarf_getsrcfiles(cu, &files, &nfiles))
		files = NULL;
	/*
	 * The innermost scope at @vaddr, then the scopes that hold it where
	 * it is (dwarf_getscopes() goes on from an inlined function to where
	 * it is defined, not where it was inlined), as eu-addr2line -i does.
	 */
	nscopes = dwarf_getscopes(cu, vaddr, &scopes);
	if (nscopes > 0) {
		Dwarf_Die inner = scopes[0];

		free(scopes);
		scopes = NULL;
		nscopes = dwarf_getscopes_die(&inner, &scopes);
	}
	for (i = 0; i < nscopes; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram &&
		    tag != DW_TAG_entry_point)
			continue;
		out[n - 1].func = die_func_name(&scopes[i]);
		if (tag != DW_TAG_inlined_subroutine)
			break;
		/* the function it is inlined into: at the call's line */
		if (n == max)
			break;
		call_site(&scopes[i], files, nfiles, &out[n]);
		out[n].func = NULL;
		n++;
	}
	free(scopes);
	for (i = 0; i < (int)n; i++)
		out[i].file = full_path(s, cu, out[i].file);
	elf_errno();
	dwarf_errno();
	return n;
}

int rc_srcline__find(struct rc_srcline *s, uint64_t vaddr, struct rc_srcline_frame *out, size_t max)
{
	struct srcline_entry *e;
	uint32_t idx;
	size_t n;
	int added;

	/* room first: a key interned is never without its entry */
	if (rc_ensure_arr(&s->entries, &s->entries_cap, s->nentries + 1, 256) ||
	    rc_ensure_arr(&s->frames, &s->frames_cap, s->nframes + RC_SRCLINE_MAX, 256) ||
	    s->nframes + RC_SRCLINE_MAX > UINT32_MAX)
		return -ENOMEM;
	added = rc_keymap__intern(&s->cache, &vaddr, sizeof(vaddr), s->nentries, &idx);
	if (added < 0)
		return added;
	if (added) {
		n = lookup(s, vaddr, s->frames + s->nframes, RC_SRCLINE_MAX);
		s->entries[s->nentries++] = (struct srcline_entry){ .first = s->nframes, .n = n };
		s->nframes += n;
	}
	e = &s->entries[idx];
	n = e->n < max ? e->n : max;
	memcpy(out, s->frames + e->first, n * sizeof(*out));
	return n;
}

void rc_srcline__free(struct rc_srcline *s)
{
	if (!s)
		return;
	dwarf_end(s->dw);
	elf_end(s->elf);
	while (s->nbufs)
		free(s->bufs[--s->nbufs]);
	free(s->bufs);
	rc_keymap__free(&s->cache);
	rc_keymap__free(&s->paths);
	while (s->npaths)
		free(s->pathv[--s->npaths]);
	free(s->pathv);
	free(s->entries);
	free(s->frames);
	free(s);
}
