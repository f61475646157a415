// SPDX-License-Identifier: GPL-2.0-only
/*
 * ELF objects for the symbolizer, through libelf: PT_LOAD segments, the
 * build-id note, .gnu_debuglink, separate debug files, .symtab/.dynsym.
 * Files are read with ELF_C_READ, not mapped: a file truncated under us
 * then fails a read instead of raising SIGBUS. Every size and offset comes
 * through libelf's checked accessors, and what they return is checked again
 * where we index with it.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "util/util.h"
#include "symbol/debuginfod.h"
#include "symbol/dso.h"
#include "symbol/srcline.h"
#include "util/mem.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

#define BUILD_ID_MAX 64	  /* bytes; GNU ld makes 20 (sha1), some 16 (md5) */
#define PHNUM_MAX    4096 /* more program headers than any object has */

/* What the headers say, before any symbol is read. */
struct elf_info {
	struct rc_dso_seg *segs;
	size_t nr_segs, segs_cap;
	unsigned char bid[BUILD_ID_MAX];
	size_t bid_len;
	bool has_symtab;
	bool has_debug_info;
	char link[NAME_MAX + 1]; /* .gnu_debuglink's file name, "" if none */
	uint32_t link_crc;
};

/* The GNU build-id among the notes of @data, if there is one. */
static void notes_build_id(Elf_Data *data, struct elf_info *in)
{
	size_t off = 0, next, name_off, desc_off;
	const unsigned char *p;
	GElf_Nhdr nh;

	if (!data || !data->d_buf)
		return;
	p = data->d_buf;
	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > off) {
		off = next;
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 || !nh.n_descsz ||
		    nh.n_descsz > BUILD_ID_MAX)
			continue;
		/* gelf_getnote() checks these; so do we before reading */
		if (name_off > data->d_size || data->d_size - name_off < 4 ||
		    desc_off > data->d_size || data->d_size - desc_off < nh.n_descsz)
			return;
		if (memcmp(p + name_off, "GNU", 4))
			continue;
		memcpy(in->bid, p + desc_off, nh.n_descsz);
		in->bid_len = nh.n_descsz;
		return;
	}
}

/* PT_LOAD segments with file bytes; the build-id from PT_NOTE if none was in a section. */
static int read_phdrs(Elf *e, struct elf_info *in, bool segs)
{
	size_t i, phnum;
	GElf_Phdr ph;
	int err;

	if (elf_getphdrnum(e, &phnum))
		return 0;
	if (phnum > PHNUM_MAX)
		phnum = PHNUM_MAX;
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(e, i, &ph))
			break;
		if (ph.p_type == PT_NOTE && !in->bid_len && ph.p_offset <= INT64_MAX &&
		    ph.p_filesz <= SIZE_MAX)
			notes_build_id(
			    elf_getdata_rawchunk(e, ph.p_offset, ph.p_filesz,
						 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR),
			    in);
		if (!segs || ph.p_type != PT_LOAD || !ph.p_filesz ||
		    ph.p_offset + ph.p_filesz < ph.p_offset)
			continue;
		err = rc_ensure_arr(&in->segs, &in->segs_cap, in->nr_segs + 1, 4);
		if (err)
			return err;
		in->segs[in->nr_segs++] = (struct rc_dso_seg){ .off = ph.p_offset,
							       .filesz = ph.p_filesz,
							       .vaddr = ph.p_vaddr };
	}
	return 0;
}

/* .gnu_debuglink: a file name, NUL, padding to 4, the file's CRC-32 in the ELF's byte order. */
static void read_debuglink(Elf *e, Elf_Scn *scn, struct elf_info *in)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n, crc_off;
	const char *p, *ident;
	uint32_t crc;

	ident = elf_getident(e, NULL);
	if (!d || !d->d_buf || !ident)
		return;
	p = d->d_buf;
	n = strnlen(p, d->d_size);
	if (!n || n >= d->d_size || n >= sizeof(in->link) || memchr(p, '/', n))
		return;
	crc_off = (n + 1 + 3) & ~(size_t)3;
	if (crc_off > d->d_size || d->d_size - crc_off < 4)
		return;
	memcpy(&crc, p + crc_off, 4);
	if (ident[EI_DATA] == ELFDATA2MSB)
		crc = __builtin_bswap32(crc);
	memcpy(in->link, p, n);
	in->link[n] = '\0';
	in->link_crc = crc;
}

/* What @e is made of: segments (when @segs), build-id, .symtab, .gnu_debuglink. */
static int elf_inspect(Elf *e, struct elf_info *in, bool segs)
{
	Elf_Scn *scn = NULL;
	const char *name;
	size_t shstrndx;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	int err;

	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
		return -ENOEXEC;
	if (elf_getshdrstrndx(e, &shstrndx))
		shstrndx = SHN_UNDEF;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && sh.sh_size)
			in->has_symtab = true;
		else if (sh.sh_type == SHT_NOTE && !in->bid_len)
			notes_build_id(elf_getdata(scn, NULL), in);
		else if (sh.sh_type == SHT_PROGBITS && shstrndx != SHN_UNDEF) {
			name = elf_strptr(e, shstrndx, sh.sh_name);
			if (name && !strcmp(name, ".gnu_debuglink") && !in->link[0])
				read_debuglink(e, scn, in);
			else if (name && sh.sh_size &&
				 (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")))
				in->has_debug_info = true;
		}
	}
	err = read_phdrs(e, in, segs);
	/* a section libelf rejects is not an error of ours: what it lacks is lacking */
	elf_errno();
	return err;
}

/* The executable section @ndx: its end; false when it is not one. */
static bool exec_section(Elf *e, size_t ndx, uint64_t *end)
{
	Elf_Scn *scn = elf_getscn(e, ndx);
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh))
		return false;
	if ((sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR))
		return false;
	*end = sh.sh_addr + sh.sh_size >= sh.sh_addr ? sh.sh_addr + sh.sh_size : 0;
	return true;
}

/* The symbols of @e's first section of @type (SHT_SYMTAB, SHT_DYNSYM) into @b: code only. */
static int read_syms(Elf *e, Elf64_Word type, struct rc_symtab_builder *b)
{
	Elf_Data *data, *xdata = NULL;
	Elf_Scn *scn = NULL, *sym_scn = NULL;
	size_t i, n, entsz, sym_ndx, last_ndx = SHN_UNDEF;
	uint64_t value, sec_end = 0;
	bool last_exec = false;
	unsigned int flags;
	const char *name;
	Elf32_Word xndx;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	GElf_Sym sym;
	size_t shndx;
	int err, st;

	if (!gelf_getehdr(e, &eh))
		return -ENOEXEC;
	while ((scn = elf_nextscn(e, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type && sh.sh_size) {
			sym_scn = scn;
			break;
		}
	}
	if (!sym_scn)
		return -ENOENT;
	sym_ndx = elf_ndxscn(sym_scn);
	/* SHT_SYMTAB_SHNDX: the section indexes that do not fit st_shndx */
	for (scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr xsh;

		if (gelf_getshdr(scn, &xsh) && xsh.sh_type == SHT_SYMTAB_SHNDX &&
		    xsh.sh_link == sym_ndx) {
			xdata = elf_getdata(scn, NULL);
			break;
		}
	}
	data = elf_getdata(sym_scn, NULL);
	entsz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
	if (!data || !entsz)
		return -EBADMSG;
	n = data->d_size / entsz;
	/* symbol 0 is the null symbol */
	for (i = 1; i < n; i++) {
		if (!gelf_getsymshndx(data, xdata, i, &sym, &xndx))
			break;
		st = GELF_ST_TYPE(sym.st_info);
		if ((st != STT_FUNC && st != STT_GNU_IFUNC && st != STT_NOTYPE) || !sym.st_name)
			continue;
		if (sym.st_shndx == SHN_XINDEX)
			shndx = xndx;
		else if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		else
			shndx = sym.st_shndx;
		/* in an executable section: labels and functions alike */
		if (shndx != last_ndx) {
			last_ndx = shndx;
			last_exec = exec_section(e, shndx, &sec_end);
		}
		if (!last_exec)
			continue;
		name = elf_strptr(e, sh.sh_link, sym.st_name);
		/* ARM's mapping symbols ($a, $d, $t, $x) are not code's names */
		if (!name || !name[0] || name[0] == '$')
			continue;
		value = sym.st_value;
		if (eh.e_machine == EM_ARM && st == STT_FUNC)
			value &= ~(uint64_t)1; /* the Thumb bit */
		flags = (st != STT_NOTYPE ? RC_SYM_FUNC : 0) |
			(GELF_ST_BIND(sym.st_info) != STB_WEAK ? RC_SYM_STRONG : 0) |
			(GELF_ST_BIND(sym.st_info) == STB_GLOBAL ? RC_SYM_GLOBAL : 0);
		err = rc_symtab_builder__add(b, value, sym.st_size, sec_end, name, flags);
		if (err)
			return err;
	}
	elf_errno();
	return 0;
}

/* The symbols of file @fd: .symtab's, or with @type SHT_DYNSYM, .dynsym's failing that. */
static int load_fd(int fd, Elf64_Word type, struct rc_symtab_builder *b)
{
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	int err;

	if (!e)
		return -ENOEXEC;
	err = read_syms(e, SHT_SYMTAB, b);
	if ((err || !b->cnt) && type == SHT_DYNSYM) {
		rc_symtab_builder__free(b);
		err = read_syms(e, SHT_DYNSYM, b);
	}
	elf_end(e);
	return err;
}

static char *hex(const unsigned char *p, size_t len)
{
	char *s = malloc(2 * len + 1);
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < len; i++)
		snprintf(s + 2 * i, 3, "%02x", p[i]);
	s[2 * len] = '\0';
	return s;
}

/* zlib's crc32() is the CRC .gnu_debuglink holds (binutils' bfd_calc_gnu_debuglink_crc32()). */
static int file_crc32(int fd, uint32_t *out)
{
	const size_t bufsz = 1 << 16;
	unsigned char *buf = malloc(bufsz);
	uLong crc = crc32(0L, Z_NULL, 0);
	off_t off = 0;
	ssize_t n;
	int err;

	if (!buf)
		return -ENOMEM;
	while ((n = pread(fd, buf, bufsz, off)) > 0) {
		crc = crc32(crc, buf, (uInt)n);
		off += n;
	}
	err = n < 0 ? -errno : 0;
	free(buf);
	if (!err)
		*out = (uint32_t)crc;
	return err;
}

/* How a candidate debug file is matched to its file. */
enum dbg_match {
	DBG_BY_ID,	  /* found by build-id: it must match when the file has one */
	DBG_BY_LINK,	  /* found by debuglink: build-ids match, or else the CRC */
	DBG_BY_ID_STRICT, /* from a server: it must have the file's build-id */
};

/*
 * Is @fd the debug file of the file @main (@main_st)? It must have a
 * .symtab, not be the file itself, and match as @how says.
 */
static bool debug_check(int fd, const struct elf_info *main, const struct stat *main_st,
			enum dbg_match how)
{
	struct elf_info dbg = { 0 };
	bool ok = false;
	uint32_t crc = 0;
	struct stat st;
	Elf *e;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (st.st_dev == main_st->st_dev && st.st_ino == main_st->st_ino))
		return false;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return false;
	ok = !elf_inspect(e, &dbg, false) && dbg.has_symtab;
	elf_end(e);
	if (!ok)
		goto out;
	if (main->bid_len && dbg.bid_len)
		ok = main->bid_len == dbg.bid_len && !memcmp(main->bid, dbg.bid, dbg.bid_len);
	else if (how == DBG_BY_LINK)
		ok = !file_crc32(fd, &crc) && crc == main->link_crc;
	else if (how == DBG_BY_ID_STRICT)
		ok = false;
out:
	free(dbg.segs);
	return ok;
}

/*
 * Is @path the debug file of the file @main (@main_st)? Its fd if so, -1 if not.
 * It must have a .symtab, not be the file itself, and match: by build-id when
 * both have one, else by the debuglink's CRC when found by debuglink.
 */
static int debug_try(const char *path, const struct elf_info *main, const struct stat *main_st,
		     bool by_link)
{
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (debug_check(fd, main, main_st, by_link ? DBG_BY_LINK : DBG_BY_ID))
		return fd;
	pr_debug("usym: '%s' is not the debug file it is named for\n", path);
	close(fd);
	return -1;
}

/* debug_try() on @path under the process's root and as it is, in the order @root_first says. */
static int debug_try_at(const struct rc_dso_where *w, bool root_first, const char *path,
			const struct elf_info *main, const struct stat *main_st, bool by_link)
{
	char buf[PATH_MAX];
	int fd, pass, n;

	for (pass = 0; pass < 2; pass++) {
		if ((pass == 0) == root_first) {
			if (!w->root)
				continue;
			n = snprintf(buf, sizeof(buf), "%s%s", w->root, path);
			if (n < 0 || (size_t)n >= sizeof(buf))
				continue;
			fd = debug_try(buf, main, main_st, by_link);
		} else {
			fd = debug_try(path, main, main_st, by_link);
		}
		if (fd >= 0)
			return fd;
	}
	return -1;
}

/* The debug file of @path, found as gdb and perf look: by build-id, then by debuglink. */
static int debug_find_local(const char *path, const struct elf_info *in, const struct stat *st,
			    const struct rc_dso_where *w)
{
	char cand[PATH_MAX], dir[PATH_MAX], bid[2 * BUILD_ID_MAX + 1];
	const char *slash;
	size_t i;
	int fd, n;

	if (in->bid_len >= 2) {
		for (i = 0; i < in->bid_len; i++)
			snprintf(bid + 2 * i, 3, "%02x", in->bid[i]);
		n = snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug", w->debug_dir, bid,
			     bid + 2);
		/* the global directory is ours first, the container's second */
		if (n > 0 && (size_t)n < sizeof(cand)) {
			fd = debug_try_at(w, false, cand, in, st, false);
			if (fd >= 0)
				return fd;
		}
	}
	slash = strrchr(path, '/');
	if (!in->link[0] || !slash || path[0] != '/' || (size_t)(slash - path) >= sizeof(dir))
		return -1;
	memcpy(dir, path, slash - path);
	dir[slash - path] = '\0';
	for (i = 0; i < 3; i++) {
		if (i == 0)
			n = snprintf(cand, sizeof(cand), "%s/%s", dir, in->link);
		else if (i == 1)
			n = snprintf(cand, sizeof(cand), "%s/.debug/%s", dir, in->link);
		else
			n = snprintf(cand, sizeof(cand), "%s%s/%s", w->debug_dir, dir, in->link);
		if (n < 0 || (size_t)n >= sizeof(cand))
			continue;
		/* the file's own directory is the process's; the global one ours */
		fd = debug_try_at(w, i < 2, cand, in, st, true);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

/*
 * The debug file of @path: found locally, else (when rc_set_debuginfod()
 * allows it) from a debuginfod server by build-id, checked to have it.
 */
static int debug_find(const char *path, const struct elf_info *in, const struct stat *st,
		      const struct rc_dso_where *w)
{
	int fd = debug_find_local(path, in, st, w);

	if (fd >= 0 || !in->bid_len)
		return fd;
	fd = rc_debuginfod__find(in->bid, in->bid_len);
	if (fd < 0)
		return -1;
	if (debug_check(fd, in, st, DBG_BY_ID_STRICT)) {
		pr_debug("usym: '%s': its debug file from debuginfod\n", path);
		return fd;
	}
	pr_warn("debuginfod: what came back for '%s' is not its debug file\n", path);
	close(fd);
	return -1;
}

static struct rc_dso *dso_new(const char *name)
{
	struct rc_dso *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->name = strdup(name);
	if (!d->name) {
		free(d);
		return NULL;
	}
	d->fd = d->dbg_fd = -1;
	return d;
}

/* Take the segments and build-id of @in. */
static void dso_take(struct rc_dso *d, struct elf_info *in)
{
	d->segs = in->segs;
	d->nr_segs = in->nr_segs;
	in->segs = NULL;
	if (in->bid_len)
		d->build_id = hex(in->bid, in->bid_len);
}

struct rc_dso *rc_dso__open_fd(int fd, const struct stat *st, const char *path,
			       const struct rc_dso_where *where)
{
	struct elf_info in = { 0 };
	struct rc_dso *d;
	Elf *e;
	int err;

	elf_version(EV_CURRENT);
	d = dso_new(path);
	if (!d) {
		close(fd);
		return rc_err_ptr(-ENOMEM);
	}
	d->fd = fd;
	d->st = *st;
	e = elf_begin(fd, ELF_C_READ, NULL);
	err = e ? elf_inspect(e, &in, true) : -ENOEXEC;
	if (err) {
		pr_debug("usym: '%s': no symbols: %s\n", path,
			 err == -ENOEXEC ? "not ELF" : strerror(-err));
		free(in.segs);
		elf_end(e);
		close(d->fd);
		d->fd = -1;
		d->loaded = true;
		return d;
	}
	dso_take(d, &in);
	d->want_lines = where->lines;
	if (!in.has_symtab || (where->lines && !in.has_debug_info))
		d->dbg_fd = debug_find(path, &in, st, where);
	elf_end(e);
	return d;
}

struct rc_dso *rc_dso__from_image(const void *img, size_t len, const char *name)
{
	struct rc_symtab_builder b = { 0 };
	struct elf_info in = { 0 };
	struct rc_dso *d;
	char *copy;
	Elf *e;
	int err;

	elf_version(EV_CURRENT);
	d = dso_new(name);
	/* elf_memory() takes a writable image */
	copy = len ? malloc(len) : NULL;
	if (!d || (len && !copy)) {
		rc_dso__free(d);
		free(copy);
		return rc_err_ptr(-ENOMEM);
	}
	memcpy(copy, img, len);
	d->loaded = true;
	e = elf_memory(copy, len);
	err = e ? elf_inspect(e, &in, true) : -ENOEXEC;
	if (!err) {
		dso_take(d, &in);
		err = read_syms(e, SHT_SYMTAB, &b);
		if (err || !b.cnt) {
			rc_symtab_builder__free(&b);
			err = read_syms(e, SHT_DYNSYM, &b);
		}
	}
	err = err ?: rc_symtab_builder__finish(&b, &d->syms);
	if (err)
		pr_debug("usym: %s: no symbols: %s\n", name, strerror(-err));
	rc_symtab_builder__free(&b);
	free(in.segs);
	elf_end(e);
	d->img = copy; /* elf_memory() did not take it: kept for an unwinder */
	return d;
}

/* The DWARF of the debug file, else of the file: what has none leaves @d->lines NULL. */
static void dso_load_lines(struct rc_dso *d)
{
	if (d->dbg_fd >= 0)
		d->lines = rc_srcline__open(d->dbg_fd, d->name);
	if (!d->lines && d->fd >= 0)
		d->lines = rc_srcline__open(d->fd, d->name);
	if (!d->lines && errno != ENOENT)
		pr_debug("usym: '%s': no source lines: %s\n", d->name, strerror(errno));
}

void rc_dso__load(struct rc_dso *d)
{
	struct rc_symtab_builder b = { 0 };
	int err = -ENOENT;

	if (d->loaded)
		return;
	if (d->dbg_fd >= 0) {
		err = load_fd(d->dbg_fd, SHT_SYMTAB, &b);
		if (err || !b.cnt)
			rc_symtab_builder__free(&b);
	}
	if (!b.cnt && d->fd >= 0)
		err = load_fd(d->fd, SHT_DYNSYM, &b);
	err = err ?: rc_symtab_builder__finish(&b, &d->syms);
	if (err)
		pr_debug("usym: '%s': no symbols: %s\n", d->name, strerror(-err));
	rc_symtab_builder__free(&b);
	if (d->want_lines)
		dso_load_lines(d);
	if (d->fd >= 0)
		close(d->fd);
	if (d->dbg_fd >= 0)
		close(d->dbg_fd);
	d->fd = d->dbg_fd = -1;
	d->loaded = true;
}

int rc_dso__fds(const struct rc_dso *d)
{
	return (d->fd >= 0) + (d->dbg_fd >= 0);
}

bool rc_dso__vaddr(const struct rc_dso *d, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < d->nr_segs; i++) {
		const struct rc_dso_seg *s = &d->segs[i];

		if (off >= s->off && off - s->off < s->filesz) {
			*vaddr = off - s->off + s->vaddr;
			return true;
		}
	}
	return false;
}

void rc_dso__free(struct rc_dso *d)
{
	if (!d)
		return;
	if (d->fd >= 0)
		close(d->fd);
	if (d->dbg_fd >= 0)
		close(d->dbg_fd);
	rc_symtab__free(&d->syms);
	rc_srcline__free(d->lines);
	free(d->img);
	free(d->segs);
	free(d->build_id);
	free(d->name);
	free(d);
}
