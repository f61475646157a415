// SPDX-License-Identifier: GPL-2.0-only
/*
 * User stacks unwound from a copy with libdw's dwfl_frame (unwind.h): a
 * Dwfl a process, its files reported from the symbolizer's snapshot, the
 * thread's state given by callbacks that read the sample's registers and
 * stack copy, never the live process.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <gelf.h>
#include <elfutils/libdwfl.h>
#include "util/util.h"
#include "symbol/unwind.h"
#include "symbol/usym.h"

#define CACHE_MAX 16  /* processes whose files stay reported */
#define MODS_MAX  128 /* files reported, at most (libdw holds each open, its debug file too) */

struct uw_proc {
	Dwfl *dwfl; /* NULL: a free slot */
	int tgid;
	bool attached; /* dwfl_attach_state() succeeded: it has a module to take the arch from */
	uint64_t sig;  /* of the mappings reported (maps_sig()) */
	uint64_t used; /* the unwinder's tick at its last use */
	size_t nmods;  /* files reported */
};

/* The sample being unwound, for the callbacks. */
struct uw_sample {
	const struct rc_unwind_regs *in;
	uint32_t tid;
	uint64_t *ips;
	uint64_t *act; /* NULL, or a bit a frame: an activation past the first */
	size_t max, n;
	bool cut;	/* ips filled */
	bool past_copy; /* a read fell above the copy's end ... */
	size_t miss_at; /* ... while the caller of frame miss_at - 1 was unwound */
};

struct rc_unwind {
	struct rc_usym *usym;
	struct uw_proc procs[CACHE_MAX];
	uint64_t tick;
	size_t nmods, mods_max; /* files reported, in every process; the budget */
	struct uw_sample cur;
	Dwfl_Callbacks cb;
	char *debuginfo_path;
};

static pid_t uw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct rc_unwind *uw = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = uw;
	return uw->cur.tid;
}

static bool uw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct rc_unwind *uw = arg;
	const struct rc_unwind_regs *in = uw->cur.in;
	uint64_t sp;

	(void)dwfl;
#if defined(__x86_64__)
	sp = in->regs[19];
#elif defined(__aarch64__)
	sp = in->regs[31];
#else
	sp = 0;
#endif
	if (in->len < sizeof(*result) || addr < sp || addr - sp > in->len - sizeof(*result)) {
		/*
		 * Only a read above the copy says a bigger copy could have gone
		 * further: one below sp is of a garbage address (libdw's frame
		 * pointer fallback where there is no CFI reads through rbp/x29,
		 * a general register in code built without frame pointers).
		 */
		if (addr >= sp && addr - sp >= in->len) {
			((struct rc_unwind *)arg)->cur.past_copy = true;
			((struct rc_unwind *)arg)->cur.miss_at = uw->cur.n;
		}
		return false;
	}
	memcpy(result, (const char *)in->stack + (addr - sp), sizeof(*result));
	return true;
}

/* The sample's registers in DWARF's numbering (the psABIs'). */
static bool uw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct rc_unwind *uw = arg;
	const uint64_t *r = uw->cur.in->regs;
#if defined(__x86_64__)
	/* rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip, from struct pt_regs's words */
	static const unsigned char from[17] = { 10, 12, 11, 5, 13, 14, 4, 19, 9,
						8,  7,	6,  3, 2,  1,  0, 16 };
	Dwarf_Word dw[17];
	size_t i;

	for (i = 0; i < 17; i++)
		dw[i] = r[from[i]];
	return dwfl_thread_state_registers(thread, 0, 17, dw);
#elif defined(__aarch64__)
	/* x0-x30, sp; the pc apart */
	Dwarf_Word dw[32];
	size_t i;

	for (i = 0; i < 32; i++)
		dw[i] = r[i];
	if (!dwfl_thread_state_registers(thread, 0, 32, dw))
		return false;
	dwfl_thread_state_register_pc(thread, r[32]);
	return true;
#else
	(void)thread;
	(void)r;
	return false;
#endif
}

/* Has @elf a section named @name? */
static bool has_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n =
		    gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;

		if (n && !strcmp(n, name))
			return true;
	}
	return false;
}

/*
 * A file's debug file, for its .debug_frame, only when the file has no
 * .eh_frame. libdw asks for it whenever .eh_frame has no rule for an
 * address, which is at the outermost frame of every stack (_start's
 * return address is undefined): for Debian's libc, with libc6-dbg
 * installed, that read and decompressed its debug file anew for each
 * process unwound, most of a system-wide capture's unwinding time.
 */
static int uw_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			     Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);

	if (elf && has_section(elf, ".eh_frame"))
		return -1;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					    debuglink_crc, debuginfo_file_name);
}

static const Dwfl_Thread_Callbacks uw_thread_cbs = {
	.next_thread = uw_next_thread,
	.memory_read = uw_memory_read,
	.set_initial_registers = uw_set_initial_registers,
};

struct rc_unwind *rc_unwind__new(struct rc_usym *u)
{
	struct rc_unwind *uw = calloc(1, sizeof(*uw));
	struct rlimit rl;

	if (!uw)
		return rc_err_ptr(-ENOMEM);

	uw->usym = u;
	/* a file and its debug file open for each: an eighth of what we may open */
	uw->mods_max = MODS_MAX;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 8 < MODS_MAX)
		uw->mods_max = rl.rlim_cur / 8 ?: 1;
	uw->cb.find_elf = dwfl_build_id_find_elf;
	uw->cb.find_debuginfo = uw_find_debuginfo;
	uw->cb.section_address = dwfl_offline_section_address;
	uw->cb.debuginfo_path = &uw->debuginfo_path;
	return uw;
}

static void proc_drop(struct rc_unwind *uw, struct uw_proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	uw->nmods -= p->nmods;
	memset(p, 0, sizeof(*p));
}

/* The least recently used process other than @keep, NULL when none */
static struct uw_proc *proc_lru(struct rc_unwind *uw, const struct uw_proc *keep)
{
	struct uw_proc *lru = NULL;
	size_t i;

	for (i = 0; i < CACHE_MAX; i++)
		if (uw->procs[i].dwfl && &uw->procs[i] != keep &&
		    (!lru || uw->procs[i].used < lru->used))
			lru = &uw->procs[i];
	return lru;
}

void rc_unwind__free(struct rc_unwind *uw)
{
	size_t i;

	if (!uw)
		return;
	for (i = 0; i < CACHE_MAX; i++)
		proc_drop(uw, &uw->procs[i]);
	free(uw);
}

void rc_unwind__forget(struct rc_unwind *uw, int tgid)
{
	size_t i;

	for (i = 0; i < CACHE_MAX; i++)
		if (uw->procs[i].dwfl && uw->procs[i].tgid == tgid)
			proc_drop(uw, &uw->procs[i]);
}

struct report_ctx {
	Dwfl *dwfl;
	int tgid;
	size_t nmods;
};

/*
 * The [vdso]'s bytes in a memory file, for libdw, which opens ELF objects
 * by name: its path under /proc/self/fd in @buf (64 bytes); the file's
 * descriptor, to close once reported, or -1.
 */
static int image_file(const struct rc_usym_map *m, char *buf)
{
	const char *p = m->image;
	size_t done = 0;
	ssize_t n;
	int fd;

	fd = memfd_create("ringcap-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	while (done < m->image_len) {
		n = write(fd, p + done, m->image_len - done);
		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += n;
	}
	snprintf(buf, 64, "/proc/self/fd/%d", fd);
	return fd;
}

/*
 * Report one file mapping: the file through map_files while the process
 * lives, else its path; the [vdso] from the bytes read of it.
 */
static int report_map(const struct rc_usym_map *m, void *arg)
{
	struct report_ctx *rc = arg;
	const char *file = m->path;
	char buf[96];
	Dwfl_Module *mod;
	int n, img = -1;

	if (m->image) {
		img = image_file(m, buf);
		if (img < 0)
			return 0;
		file = buf;
	} else {
		n = snprintf(buf, sizeof(buf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
			     rc->tgid, m->start, m->end);
		if (n > 0 && (size_t)n < sizeof(buf) && !access(buf, R_OK))
			file = buf;
	}
	/* libdw opens the file itself: the memory file may go once it has */
	mod = dwfl_report_elf(rc->dwfl, m->path, file, -1, m->bias, true);
	if (img >= 0)
		close(img);
	if (!mod)
		pr_debug("unwind: %d: cannot report '%s': %s\n", rc->tgid, m->path,
			 dwfl_errmsg(-1));
	else
		rc->nmods++;
	return 0;
}

/* FNV-1a over a mapping, into the signature @arg points at */
static int sig_map(const struct rc_usym_map *m, void *arg)
{
	uint64_t *h = arg;
	const uint64_t v[] = { m->start, m->end, m->pgoff, m->bias, (uintptr_t)m->path };
	const unsigned char *b = (const unsigned char *)v;
	size_t i;

	for (i = 0; i < sizeof(v); i++)
		*h = (*h ^ b[i]) * 0x100000001b3ull;
	return 0;
}

/* What identifies the mappings @tgid had at @ts: a changed one asks for a new Dwfl. */
static uint64_t maps_sig(const struct rc_unwind *uw, int tgid, uint64_t ts)
{
	uint64_t h = 0xcbf29ce484222325ull;

	rc_usym__for_each_file_at(uw->usym, tgid, ts, sig_map, &h);
	return h;
}

/* The Dwfl of @tgid's mappings at @ts, reported at first use; NULL when it cannot have one. */
static struct uw_proc *proc_get(struct rc_unwind *uw, int tgid, uint64_t ts)
{
	struct uw_proc *p, *lru = &uw->procs[0];
	uint64_t sig = maps_sig(uw, tgid, ts);
	struct report_ctx rc;
	size_t i;

	uw->tick++;
	for (i = 0; i < CACHE_MAX; i++) {
		p = &uw->procs[i];
		if (p->dwfl && p->tgid == tgid) {
			if (p->sig == sig) {
				p->used = uw->tick;
				return p;
			}
			proc_drop(uw, p); /* an exec, a dlopen(), a reused pid */
		}
	}
	for (i = 0; i < CACHE_MAX; i++) {
		p = &uw->procs[i];
		if (!p->dwfl || (lru->dwfl && p->used < lru->used))
			lru = p;
	}
	proc_drop(uw, lru);
	p = lru;
	p->dwfl = dwfl_begin(&uw->cb);
	if (!p->dwfl)
		return NULL;
	p->tgid = tgid;
	p->sig = sig;
	p->used = uw->tick;
	rc = (struct report_ctx){ .dwfl = p->dwfl, .tgid = tgid };
	dwfl_report_begin(p->dwfl);
	rc_usym__for_each_file_at(uw->usym, tgid, ts, report_map, &rc);
	dwfl_report_end(p->dwfl, NULL, NULL);
	p->nmods = rc.nmods;
	uw->nmods += rc.nmods;
	/* within the budget of open files: the others' least recently used go */
	while (uw->nmods > uw->mods_max && (lru = proc_lru(uw, p)))
		proc_drop(uw, lru);
	/* the architecture from its modules: none, nothing to unwind with */
	p->attached = dwfl_attach_state(p->dwfl, NULL, tgid, &uw_thread_cbs, uw);
	if (!p->attached)
		pr_debug("unwind: %d: %s\n", tgid, dwfl_errmsg(-1));
	return p;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct uw_sample *s = arg;
	bool act = false;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	if (s->n == s->max) {
		s->cut = true;
		return DWARF_CB_ABORT;
	}
	/* as bpf_get_stack() gives them: callers by return address (the names take one off) */
	s->ips[s->n++] = pc;
	/*
	 * Past the first, is it an activation (libdw: this frame's or its
	 * caller's CFI is a signal frame's)? Asking unwinds its caller now,
	 * as the next step would, after n counts it (uw_memory_read()).
	 */
	if (s->act && s->n > 1 && dwfl_frame_pc(state, &pc, &act) && act)
		s->act[(s->n - 1) / 64] |= 1ull << ((s->n - 1) % 64);
	return DWARF_CB_OK;
}

/*
 * The code at the entry point of an ELF that a process starts in: ld.so's
 * _start and _dl_start_user (glibc: 0x40 bytes on x86-64), a program's
 * _start. It has no caller, and on x86-64 ld.so's has no CFI to say so,
 * so libdw fails the step past it: such a stack is whole all the same.
 * Where the entry point has CFI, that CFI ends the stack and the rule
 * does not apply: the bytes after it are other functions (a PIE's
 * deregister_tm_clones). Nor does it where @pc has CFI, nor in a library
 * other than the interpreter: a library's entry point, when set, is often
 * just the start of .text. @pc is the frame's address (a caller's return
 * address less one).
 */
#define ENTRY_CODE 64

static bool has_cfi(Dwfl_Module *mod, Dwarf_Addr addr)
{
	Dwarf_CFI *cfi;
	Dwarf_Frame *frame;
	Dwarf_Addr bias;
	int i;

	for (i = 0; i < 2; i++) {
		cfi = i ? dwfl_module_dwarf_cfi(mod, &bias) : dwfl_module_eh_cfi(mod, &bias);
		if (cfi && dwarf_cfi_addrframe(cfi, addr - bias, &frame) == 0) {
			free(frame);
			return true;
		}
	}
	return false;
}

/* @elf's program header of @type, if it has one. */
static bool find_phdr(Elf *elf, uint32_t type, GElf_Phdr *ph)
{
	size_t nph, i;

	if (elf_getphdrnum(elf, &nph))
		return false;
	for (i = 0; i < nph; i++)
		if (gelf_getphdr(elf, i, ph) && ph->p_type == type)
			return true;
	return false;
}

/* The interpreter a program names (PT_INTERP), or NULL. */
static const char *interp_of(Elf *elf)
{
	Elf_Data *d;
	GElf_Phdr ph;

	if (!find_phdr(elf, PT_INTERP, &ph) || !ph.p_filesz)
		return NULL;
	d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_BYTE);
	if (!d || !memchr(d->d_buf, 0, d->d_size))
		return NULL;
	return d->d_buf;
}

/* A position-independent program (DF_1_PIE): a static-pie, when it names no interpreter. */
static bool is_pie(Elf *elf)
{
	Elf_Data *d;
	GElf_Phdr ph;
	GElf_Dyn dyn;
	size_t i;

	if (!find_phdr(elf, PT_DYNAMIC, &ph))
		return false;
	d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_DYN);
	for (i = 0; d && gelf_getdyn(d, i, &dyn) && dyn.d_tag != DT_NULL; i++)
		if (dyn.d_tag == DT_FLAGS_1)
			return dyn.d_un.d_val & DF_1_PIE;
	return false;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* A library's DT_SONAME, or NULL. */
static const char *soname_of(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Dyn dyn;
	Elf_Data *d;
	size_t i;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && gelf_getdyn(d, i, &dyn) && dyn.d_tag != DT_NULL; i++)
			if (dyn.d_tag == DT_SONAME)
				return elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
		return NULL;
	}
	return NULL;
}

struct interp_match {
	const char *file; /* the library's file name, */
	const char
	    *soname; /* and its DT_SONAME (glibc before 2.34: ld-2.31.so is ld-linux-x86-64.so.2) */
	bool found;
};

/* dwfl_getmodules(): does a program in the process name the library of @arg as its interpreter? */
static int names_interp(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
			void *arg)
{
	struct interp_match *m = arg;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	const char *interp = elf ? interp_of(elf) : NULL;

	(void)userdata, (void)name, (void)start;
	if (!interp)
		return DWARF_CB_OK;
	interp = base_name(interp);
	m->found = !strcmp(interp, m->file) || (m->soname && !strcmp(interp, m->soname));
	return m->found ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/*
 * Where a process can start: a program (it names an interpreter, or has
 * no dynamic section, or is a static-pie), or the interpreter that a
 * program of this process names, by file name or DT_SONAME. Not any other
 * library.
 */
static bool starts_processes(Dwfl *dwfl, Dwfl_Module *mod, Elf *elf)
{
	struct interp_match m = { .soname = soname_of(elf) };
	GElf_Phdr ph;

	if (interp_of(elf) || !find_phdr(elf, PT_DYNAMIC, &ph) || is_pie(elf))
		return true;
	/* the name reported: the mapping's path (the file may be opened through map_files) */
	m.file = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!m.file)
		return false;
	m.file = base_name(m.file);
	dwfl_getmodules(dwfl, names_interp, &m, 0);
	return m.found;
}

static bool at_entry_code(Dwfl *dwfl, Dwarf_Addr pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	GElf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	GElf_Ehdr eh;

	if (!elf || !gelf_getehdr(elf, &eh) || !eh.e_entry)
		return false;
	if (pc - bias < eh.e_entry || pc - bias >= eh.e_entry + ENTRY_CODE)
		return false;
	return !has_cfi(mod, eh.e_entry + bias) && !has_cfi(mod, pc) &&
	       starts_processes(dwfl, mod, elf);
}

int rc_unwind__stack(struct rc_unwind *uw, int tgid, uint32_t tid, uint64_t ts,
		     const struct rc_unwind_regs *in, uint64_t *ips, uint64_t *act, size_t max,
		     size_t *n)
{
	struct uw_proc *p;
	int ret;

	*n = 0;
	if (act)
		memset(act, 0, (max + 63) / 64 * sizeof(*act));
	p = proc_get(uw, tgid, ts);
	if (!p)
		return -ENOMEM;
	if (!p->nmods)
		return RC_UNWIND_NOFILES;
	if (!p->attached || !max)
		return RC_UNWIND_NOCFI;
	uw->cur = (struct uw_sample){ .in = in, .tid = tid, .ips = ips, .act = act, .max = max };
	ret = dwfl_getthread_frames(p->dwfl, tid, frame_cb, &uw->cur);
	*n = uw->cur.n;
	if (uw->cur.cut)
		return RC_UNWIND_CUT;
	/*
	 * libdw ends quietly, as at the outermost frame, when a return
	 * address cannot be read: the copy's end when the last frame's
	 * caller was looked for above it (a miss in an earlier frame, whose
	 * caller was found all the same, is not why it stopped).
	 */
	if (uw->cur.past_copy && uw->cur.miss_at == uw->cur.n)
		return RC_UNWIND_COPY_END;
	if (ret == 0 || (*n && at_entry_code(p->dwfl, ips[*n - 1] - (*n > 1))))
		return RC_UNWIND_FULL;
	return uw->cur.n <= 1 ? RC_UNWIND_NOCFI : RC_UNWIND_EARLY;
}
