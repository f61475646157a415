// SPDX-License-Identifier: GPL-2.0-only
/* Stacks taken off samples, stored once, named while recording (stacks.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/types.h>
#include "events.h"
#include "format/reader.h"
#include "util/util.h"
#include "capture/sideband.h"
#include "capture/stacks.h"
#include "format/format.h"
#include "format/writer_int.h"
#include "symbol/ksym.h"
#include "symbol/srcline.h"
#include "symbol/unwind.h"
#include "symbol/usym.h"
#include "util/keymap.h"
#include "util/mem.h"

#define PENDING_MAX  (4u << 20)	    /* bytes of definitions before a block is written */
#define NAME_MAX_LEN 4096	    /* a symbol's or file's name is cut there (C++ names can be long) */
#define REFRESH_NS   100000000ull /* on a miss, a process's mappings are read again at most this often */

struct frame_name {
	uint32_t sym;
	uint32_t off;
	uint32_t loc; /* its source location (LINES block); 0: none */
	bool named; /* a function; else a file and offset, or nothing */
	bool nowhere; /* a user address in no mapping read: looked up again after a refresh */
};

/* The key a frame's name is cached under: an address means the same in one image of a process. */
struct frame_key {
	uint32_t pid; /* 0: a kernel address */
	uint32_t gen; /* the process's image (struct proc_seen) */
	uint32_t caller;
	uint32_t __pad;
	uint64_t addr;
};

/* A process whose mappings were read: when, and its name then (an exec changes both). */
struct proc_seen {
	uint64_t when;	/* CLOCK_MONOTONIC of the last read of its mappings */
	uint64_t image; /* the image they are of (records.h RC_IMAGE()) */
	uint32_t gen;	/* images seen under this pid, counted */
};

struct rc_stacks {
	struct rc_keymap stacks; /* the stack's key (below) to its id */
	uint32_t nstacks;
	struct rc_keymap syms; /* name, NUL, file: to the symbol's id */
	uint32_t nsyms;
	struct rc_keymap frames; /* struct frame_key: to its index in names */
	struct frame_name *names;
	size_t nnames, names_cap;
	struct rc_keymap procs; /* pid: to its index in seen */
	struct proc_seen *seen;
	size_t nprocs, procs_cap;
	struct rc_ksyms *ksyms;
	bool ksyms_tried;
	struct rc_usym *usym;
	struct rc_unwind *unwind;	 /* --call-graph=dwarf: made at the first such sample */
	struct rc_strbuf psyms, pstacks; /* the definitions not yet written */
	uint32_t npsyms, npstacks;
	struct rc_strbuf key;
	struct rc_stacks_stats st;
	struct rc_sideband *sb; /* perf's side-band: mappings as they are made; NULL: none */
	uint64_t ts;		/* the time of the sample whose stack is named */
	/* its user frames unwound from a copy that are activations (rc_unwind__stack()) */
	uint64_t act[(RC_STACK_MAX + 63) / 64];
	/* source lines (rc_stacks__set_lines()): files and locations, each defined once */
	bool lines;
	struct rc_keymap files; /* path: its id */
	uint32_t nfiles;
	struct rc_keymap locs; /* its struct rc_disk_locframe entries: its id */
	uint32_t nlocs;
	struct rc_strbuf pfiles, plocs, plines; /* the definitions not yet written */
	uint32_t npfiles, nplocs, nplines;
	struct rc_strbuf lkey;
};

struct rc_stacks *rc_stacks__new(void)
{
	struct rc_stacks *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->usym = rc_usym__new();
	if (!t->usym) {
		free(t);
		return NULL;
	}
	return t;
}

/* This thread's CPU time, ns: what unwinding costs, whatever else runs */
static uint64_t cpu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The id of symbol @name (may be NULL) in file @dso, defining it when new. */
static int sym_id(struct rc_stacks *t, const char *name, const char *dso, uint32_t *id)
{
	size_t nlen = name ? strnlen(name, NAME_MAX_LEN) : 0, dlen = strnlen(dso, NAME_MAX_LEN);
	struct rc_disk_sym ds;
	static const char zeros[8];
	int added, err;

	t->key.len = 0;
	err = rc_strbuf__append(&t->key, name, nlen) ?: rc_strbuf__append(&t->key, "", 1);
	err = err ?: rc_strbuf__append(&t->key, dso, dlen);
	if (err)
		return err;
	/* past the ids a reader takes, a new name is none (0): its block stays readable */
	added = rc_keymap__intern(&t->syms, t->key.buf, t->key.len,
				  t->nsyms + 1 < RC_MAX_SYM_ID ? t->nsyms + 1 : 0, id);
	if (added <= 0 || !*id)
		return added < 0 ? added : 0;
	t->nsyms++;
	ds = (struct rc_disk_sym){ .id = *id, .name_len = nlen, .dso_len = dlen };
	err = rc_strbuf__append(&t->psyms, &ds, sizeof(ds));
	err = err ?: rc_strbuf__append(&t->psyms, name, nlen);
	err = err ?: rc_strbuf__append(&t->psyms, dso, dlen);
	err = err ?: rc_strbuf__append(&t->psyms, zeros, (8 - (nlen + dlen) % 8) % 8);
	t->npsyms++;
	return err;
}

static struct frame_name name_kernel(struct rc_stacks *t, uint64_t addr, bool caller)
{
	struct frame_name fn = {};
	const struct rc_ksym *ks = NULL;
	uint64_t off = 0;

	if (!t->ksyms_tried) {
		t->ksyms_tried = true;
		t->ksyms = rc_ksyms__load(NULL);
		if (!t->ksyms)
			pr_warn("kernel frames are not named: cannot read /proc/kallsyms: %s\n",
				strerror(errno));
	}
	if (t->ksyms)
		ks = rc_ksyms__find(t->ksyms, addr - caller, &off);
	if (ks && off < UINT32_MAX && !sym_id(t, ks->name, ks->dso, &fn.sym)) {
		fn.off = off + caller;
		fn.named = true;
	} else
		sym_id(t, NULL, "[kernel.kallsyms]", &fn.sym);
	return fn;
}

/* The id of source file @path, defining it when new. */
static int file_id(struct rc_stacks *t, const char *path, uint32_t *id)
{
	size_t len = strnlen(path, NAME_MAX_LEN);
	struct rc_disk_srcfile sf;
	static const char zeros[8];
	int added, err;

	if (!len) {
		*id = 0;
		return 0;
	}
	added = rc_keymap__intern(&t->files, path, len,
				  t->nfiles + 1 < RC_MAX_FILE_ID ? t->nfiles + 1 : 0, id);
	if (added <= 0 || !*id) /* past the ids a reader takes: unknown */
		return added < 0 ? added : 0;
	t->nfiles++;
	sf = (struct rc_disk_srcfile){ .id = *id, .len = len };
	err = rc_strbuf__append(&t->pfiles, &sf, sizeof(sf));
	err = err ?: rc_strbuf__append(&t->pfiles, path, len);
	err = err ?: rc_strbuf__append(&t->pfiles, zeros, (8 - len % 8) % 8);
	t->npfiles++;
	return err;
}

/*
 * The location of the ELF address @vaddr of @dso through its lines @sl:
 * the functions inlined there (named as symbols of @dso) and the lines,
 * as a location id, defined when new; 0 when DWARF says nothing of it.
 */
static int loc_id(struct rc_stacks *t, struct rc_srcline *sl, uint64_t vaddr, const char *dso,
		  uint32_t *id)
{
	struct rc_srcline_frame fr[RC_SRCLINE_MAX];
	struct rc_disk_locframe lf[RC_SRCLINE_MAX];
	struct rc_disk_loc dl;
	int n, i, added, err = 0;

	*id = 0;
	n = rc_srcline__find(sl, vaddr, fr, RC_SRCLINE_MAX < RC_MAX_LOC_FRAMES ? RC_SRCLINE_MAX
										: RC_MAX_LOC_FRAMES);
	if (n <= 0)
		return n;
	for (i = 0; !err && i < n; i++) {
		lf[i] = (struct rc_disk_locframe){ .line = fr[i].line };
		if (fr[i].file)
			err = file_id(t, fr[i].file, &lf[i].file);
		/* an inlined function's name; the last is the frame's, as its symbol names it */
		if (!err && i + 1 < n && fr[i].func)
			err = sym_id(t, fr[i].func, dso, &lf[i].sym);
	}
	if (err)
		return err;
	added = rc_keymap__intern(&t->locs, lf, n * sizeof(*lf),
				  t->nlocs + 1 < RC_MAX_LOC_ID ? t->nlocs + 1 : 0, id);
	if (added <= 0 || !*id) /* past the ids a reader takes: none */
		return added < 0 ? added : 0;
	t->nlocs++;
	dl = (struct rc_disk_loc){ .id = *id, .nframes = n };
	err = rc_strbuf__append(&t->plocs, &dl, sizeof(dl));
	err = err ?: rc_strbuf__append(&t->plocs, lf, n * sizeof(*lf));
	t->nplocs++;
	return err;
}

static int read_maps(struct rc_stacks *t, uint32_t pid, struct proc_seen *p)
{
	int err = rc_usym__add_process(t->usym, pid);

	if (t->unwind && !err)
		rc_unwind__forget(t->unwind, pid); /* its files, reported anew */

	p->when = now_ns();
	if (err)
		pr_debug("stacks: cannot read the mappings of process %u: %s\n", pid, strerror(-err));
	return err;
}

/*
 * Process @pid in image @image (its start time and execs, from the
 * kernel): its mappings read when it is new to us, and again when the
 * image is another (an exec, or the pid reused), whose addresses mean
 * other things. The names of the image before stay with its stacks.
 */
static struct proc_seen *proc_of(struct rc_stacks *t, uint32_t pid, uint64_t image)
{
	uint32_t idx;
	int added = rc_keymap__intern(&t->procs, &pid, sizeof(pid), t->nprocs, &idx);
	struct proc_seen *p;

	if (added < 0)
		return NULL;
	if (added) {
		if (rc_ensure_arr(&t->seen, &t->procs_cap, t->nprocs + 1, 64))
			return NULL;
		memset(&t->seen[t->nprocs++], 0, sizeof(*t->seen));
	}
	p = &t->seen[idx];
	if (added || p->image != image) {
		if (!added)
			p->gen++;
		p->image = image;
		read_maps(t, pid, p);
	}
	return p;
}

/*
 * A user address at the time of the sample being named: what the
 * side-band saw mapped then first (capture/sideband.h), then the mappings
 * read from /proc. On a miss, what the side-band saw since the batch began,
 * the records of before the sample read first (rc_sideband__sync()).
 */
static int resolve_user(struct rc_stacks *t, uint32_t pid, uint64_t addr, struct rc_usym_hit *hit)
{
	int found = rc_usym__resolve_at(t->usym, pid, t->ts, addr, hit);

	if (found != -ENOENT || !t->sb)
		return found;
	rc_sideband__sync(t->sb, t->ts);
	if (rc_sideband__apply(t->sb, t->usym))
		pr_debug("stacks: out of memory noting the side-band's mappings\n");
	return rc_usym__resolve_at(t->usym, pid, t->ts, addr, hit);
}

static struct frame_name name_user(struct rc_stacks *t, uint32_t pid, struct proc_seen *p,
				   uint64_t addr, bool caller)
{
	struct frame_name fn = {};
	struct rc_usym_hit hit;
	int found;

	found = resolve_user(t, pid, addr - caller, &hit);
	/* mapped since the mappings were read (a dlopen()): read them again, not too often */
	if (found == -ENOENT && now_ns() - p->when >= REFRESH_NS && !read_maps(t, pid, p))
		found = resolve_user(t, pid, addr - caller, &hit);
	if (found == 0 && hit.sym && hit.sym_off < UINT32_MAX &&
	    !sym_id(t, hit.sym, hit.dso ? hit.dso : "[unknown]", &fn.sym)) {
		fn.off = hit.sym_off + caller;
		fn.named = true;
		if (hit.lines && !loc_id(t, hit.lines, hit.vaddr, hit.dso, &fn.loc) && fn.loc)
			t->st.lines++;
	} else if (found >= 0 && hit.dso && !sym_id(t, NULL, hit.dso, &fn.sym)) {
		fn.off = hit.file_off + caller < UINT32_MAX ? hit.file_off + caller : UINT32_MAX;
	} else {
		sym_id(t, NULL, "[unknown]", &fn.sym);
		fn.nowhere = found == -ENOENT;
	}
	return fn;
}

/* The name of a frame: cached by process image and address. */
static int name_frame(struct rc_stacks *t, uint32_t pid, struct proc_seen *p, uint64_t addr,
		      bool caller, struct frame_name *out)
{
	struct frame_key k = { .pid = pid, .gen = p ? p->gen : 0, .caller = caller, .addr = addr };
	uint32_t idx;
	int added = rc_keymap__intern(&t->frames, &k, sizeof(k), t->nnames, &idx);

	if (added < 0)
		return added;
	if (!added && !(t->names[idx].nowhere && now_ns() - p->when >= REFRESH_NS)) {
		*out = t->names[idx];
		return 0;
	}
	if (!added) { /* mapped since, maybe: a dlopen() */
		*out = name_user(t, pid, p, addr, caller);
		t->st.unnamed -= !t->names[idx].named && out->named;
		t->names[idx] = *out;
		return 0;
	}
	if (rc_ensure_arr(&t->names, &t->names_cap, t->nnames + 1, 1024))
		return -ENOMEM;
	*out = pid ? name_user(t, pid, p, addr, caller) : name_kernel(t, addr, caller);
	t->names[t->nnames++] = *out;
	t->st.frames++;
	if (!out->named)
		t->st.unnamed++;
	return 0;
}

/* Write the definitions not yet written, as one STACKS block. */
static int emit(struct rc_stacks *t, struct rc_writer *w)
{
	struct rc_disk_stacks ds = { .nsyms = t->npsyms, .nstacks = t->npstacks };
	struct rc_disk_lines dl = { .nfiles = t->npfiles, .nlocs = t->nplocs,
				    .nstacks = t->nplines };
	struct rc_strbuf *p = &t->key;
	int err = 0;

	if (t->npsyms || t->npstacks) {
		p->len = 0;
		err = rc_strbuf__append(p, &ds, sizeof(ds));
		err = err ?: rc_strbuf__append(p, t->psyms.buf, t->psyms.len);
		err = err ?: rc_strbuf__append(p, t->pstacks.buf, t->pstacks.len);
		err = err ?: rc_writer__add_stacks(w, p->buf, p->len);
	}
	/* after the stacks and the symbols it refers to */
	if (!err && (t->npfiles || t->nplocs || t->nplines)) {
		p->len = 0;
		err = rc_strbuf__append(p, &dl, sizeof(dl));
		err = err ?: rc_strbuf__append(p, t->pfiles.buf, t->pfiles.len);
		err = err ?: rc_strbuf__append(p, t->plocs.buf, t->plocs.len);
		err = err ?: rc_strbuf__append(p, t->plines.buf, t->plines.len);
		err = err ?: rc_writer__add_lines(w, p->buf, p->len);
	}
	t->psyms.len = t->pstacks.len = 0;
	t->npsyms = t->npstacks = 0;
	t->pfiles.len = t->plocs.len = t->plines.len = 0;
	t->npfiles = t->nplocs = t->nplines = 0;
	return err;
}

/*
 * Is the kernel address @addr the tracing machinery that ran our program:
 * the program itself, the tracepoint's BPF glue? A stack taken by a
 * program on a tracepoint starts with those frames.
 */
static bool tracing_frame(struct rc_stacks *t, uint64_t addr)
{
	static const char *const glue[] = { "bpf_trace_run",   "__traceiter_",	 "__bpf_trace_",
					    "bpf_trampoline_", "trace_call_bpf", "perf_trace_",
					    "perf_syscall_",   "perf_tp_event",	 "__bpf_prog_run",
					    "___bpf_prog_run" };
	const struct rc_ksym *ks;
	uint64_t off;
	size_t i;

	if (!t->ksyms)
		return false;
	ks = rc_ksyms__find(t->ksyms, addr - 1, &off); /* a return address: its call */
	if (!ks)
		return false;
	if (!strcmp(ks->dso, "[bpf]") && !strncmp(ks->name, "bpf_prog_", 9))
		return true;
	for (i = 0; i < ARRAY_SIZE(glue); i++)
		if (!strncmp(ks->name, glue[i], strlen(glue[i])))
			return true;
	return false;
}

/*
 * Frame @i of @n has location @loc: its place in the stack's location ids
 * (t->lkey), the frames before it given none.
 */
static int lines_of(struct rc_stacks *t, size_t i, size_t n, uint32_t loc)
{
	size_t have = t->lkey.len / sizeof(uint32_t);
	int err;

	if (!have) {
		err = rc_strbuf__reserve(&t->lkey, n * sizeof(uint32_t));
		if (err)
			return err;
		memset(t->lkey.buf, 0, n * sizeof(uint32_t));
		t->lkey.len = n * sizeof(uint32_t);
	}
	memcpy(t->lkey.buf + i * sizeof(uint32_t), &loc, sizeof(loc));
	return 0;
}

_Static_assert(RC_STACK_MAX <= 128, "rc_stacks.act: two words");

/* Is user frame @i of the record being taken an activation (t->act)? */
static bool act_at(const struct rc_stacks *t, size_t i)
{
	return i < RC_STACK_MAX && (t->act[i / 64] >> (i % 64) & 1);
}

/*
 * Define a new stack @id of @pid: its entry and its frames, named. With
 * @from_tracepoint, the tracing machinery's frames at its top are left out.
 */
static int define(struct rc_stacks *t, uint32_t id, uint32_t pid, struct proc_seen *p,
		  const uint64_t *frames, uint16_t nk, uint16_t nu, uint32_t flags,
		  bool from_tracepoint)
{
	struct rc_disk_stack dk;
	size_t i, skip = 0;
	int err;

	/* up to the deepest glue frame among the first few: an unwinder may repeat one */
	for (i = 0; from_tracepoint && i < nk && i < 8; i++)
		if (tracing_frame(t, frames[i]))
			skip = i + 1;
	frames += skip;
	nk -= skip;
	dk = (struct rc_disk_stack){
		.id = id, .pid = nu ? pid : 0, .nkernel = nk, .nuser = nu, .flags = flags
	};

	err = rc_strbuf__append(&t->pstacks, &dk, sizeof(dk));
	t->lkey.len = 0;
	for (i = 0; !err && i < (size_t)nk + nu; i++) {
		/*
		 * A stack taken on a tracepoint: its kernel frames are all
		 * return addresses. A user frame unwound from a copy may be
		 * where a signal handler resumes: named as it is.
		 */
		bool user = i >= nk, caller = i != nk && (i != 0 || from_tracepoint) &&
					      !(user && act_at(t, i - nk));
		struct rc_disk_frame df = { .addr = frames[i] };
		struct frame_name fn = {};

		err = name_frame(t, user ? pid : 0, user ? p : NULL, frames[i], caller, &fn);
		df.sym = fn.sym;
		df.off = fn.off;
		err = err ?: rc_strbuf__append(&t->pstacks, &df, sizeof(df));
		if (!err && fn.loc)
			err = lines_of(t, i, nk + nu, fn.loc);
	}
	/* its frames' locations, when one has any */
	if (!err && t->lkey.len) {
		static const char zeros[8];
		struct rc_disk_stacklines sl = { .id = id, .nframes = nk + nu };

		err = rc_strbuf__append(&t->plines, &sl, sizeof(sl));
		err = err ?: rc_strbuf__append(&t->plines, t->lkey.buf, t->lkey.len);
		err = err ?: rc_strbuf__append(&t->plines, zeros, (8 - t->lkey.len % 8) % 8);
		t->nplines++;
	}
	t->npstacks++;
	t->st.stacks++;
	return err;
}

/*
 * The stack of sample @e (its frames after it): its id, defined when new.
 * The key: the process and its image when there are user frames, the
 * counts, the flags, the frames.
 */
static int stack_of(struct rc_stacks *t, const struct rc_ev_sample *e, const uint64_t *frames,
		    uint32_t *id)
{
	uint32_t pid = e->nuser ? e->hdr.pid : 0, flags = 0;
	size_t nf = (size_t)e->nkernel + e->nuser;
	struct proc_seen *p = NULL;
	uint32_t head[4];
	int added, err;

	if (t->nstacks >= RC_MAX_STACK_ID - 1) {
		t->st.over++; /* as many stacks as a file takes: this sample keeps none */
		*id = 0;
		return 0;
	}
	if (pid) {
		p = proc_of(t, pid, e->image);
		if (!p)
			return -ENOMEM;
	}
	if (e->hdr.flags & RC_SAMPLE_F_KSTACK_CUT)
		flags |= RC_STACK_F_KERNEL_CUT;
	if (e->hdr.flags & RC_SAMPLE_F_USTACK_CUT)
		flags |= RC_STACK_F_USER_CUT;
	head[0] = pid;
	head[1] = (uint32_t)e->nkernel << 16 | e->nuser;
	head[2] = flags;
	head[3] = p ? p->gen : 0;
	t->key.len = 0;
	err = rc_strbuf__append(&t->key, head, sizeof(head));
	err = err ?: rc_strbuf__append(&t->key, frames, nf * sizeof(*frames));
	/* the same addresses, named otherwise: another stack (never seen, but cheap) */
	if (!err && (t->act[0] | t->act[1]))
		err = rc_strbuf__append(&t->key, t->act, sizeof(t->act));
	if (err)
		return err;
	added = rc_keymap__intern(&t->stacks, t->key.buf, t->key.len, t->nstacks + 1, id);
	if (added <= 0)
		return added;
	t->nstacks++;
	return define(t, *id, pid, p, frames, e->nkernel, e->nuser, flags,
		      e->hdr.type != RC_EV_SAMPLE);
}

/*
 * --call-graph=dwarf: sample @e's user stack, unwound from the registers
 * and stack bytes @u it carries, into @frames after its kernel frames;
 * sets its nuser and flags. Return: 0, or -ENOMEM.
 */
static int unwind_user(struct rc_stacks *t, struct rc_ev_sample *e, const struct rc_ustack *u,
		       const void *bytes, uint64_t *frames)
{
	struct rc_unwind_regs in = { .regs = (const uint64_t *)u->regs,
				     .stack = bytes,
				     .len = u->copied };
	uint64_t t0;
	size_t n;
	int end;

	if (u->flags & RC_USTACK_F_KTHREAD)
		return 0;
	t->st.dwarf++;
	t->st.dwarf_short += !!(u->flags & RC_USTACK_F_SHORT);
	if (u->flags & RC_USTACK_F_NOREGS) {
		e->hdr.flags |= RC_SAMPLE_F_USTACK_FAIL;
		t->st.dwarf_nocfi++;
		return 0;
	}
	if (!t->unwind) {
		t->unwind = rc_unwind__new(t->usym);
		if (!t->unwind)
			return -ENOMEM;
	}
	/* its mappings, read now if new: the files the unwinder needs */
	if (!proc_of(t, e->hdr.pid, e->image))
		return -ENOMEM;
	t0 = cpu_now_ns();
	end = rc_unwind__stack(t->unwind, e->hdr.pid, e->hdr.tid, e->hdr.ts, &in, frames + e->nkernel,
			       t->act, RC_STACK_MAX, &n);
	t->st.unwind_ns += cpu_now_ns() - t0;
	if (end < 0)
		return end;
	switch (end) {
	case RC_UNWIND_CUT:
		e->hdr.flags |= RC_SAMPLE_F_USTACK_CUT;
		/* fallthrough */
	case RC_UNWIND_FULL:
		t->st.dwarf_full++;
		break;
	case RC_UNWIND_COPY_END:
		t->st.dwarf_copy_end++;
		break;
	case RC_UNWIND_EARLY:
		t->st.dwarf_early++;
		break;
	case RC_UNWIND_NOFILES:
		t->st.dwarf_nofiles++;
		break;
	default:
		t->st.dwarf_nocfi++;
		break;
	}
	if (!n) { /* not even the sampled address: the one the registers give */
#if defined(__x86_64__)
		frames[e->nkernel] = u->regs[16];
#else
		frames[e->nkernel] = u->regs[32];
#endif
		n = 1;
	}
	e->nuser = n;
	return 0;
}

/*
 * A dwarf sample @rec of @size bytes (profile.bpf.c's layout,
 * format/records.h struct rc_ustack) into @e and @frames, as an fp sample's: its kernel
 * frames, then the user frames unwound. Return: 0; 1 when its sizes do not
 * add up (left as it is); -ENOMEM.
 */
static int take_dwarf(struct rc_stacks *t, struct rc_ev_sample *e, const unsigned char *rec,
		      size_t size, uint64_t *frames)
{
	size_t fixed = sizeof(*e) + sizeof(struct rc_ustack);
	struct rc_ustack u;

	if (size < fixed)
		return 1;
	memcpy(&u, rec + sizeof(*e), sizeof(u));
	if (e->nuser || e->nkernel > RC_STACK_MAX || u.copied % 8 ||
	    size - fixed != (size_t)e->nkernel * sizeof(uint64_t) + u.copied)
		return 1;
	memcpy(frames, rec + fixed, (size_t)e->nkernel * sizeof(uint64_t));
	return unwind_user(t, e, &u, rec + fixed + (size_t)e->nkernel * sizeof(uint64_t), frames);
}

/* What rc_stacks__take() does with a record (frames_of()) */
enum take_what {
	TAKE_STACK,    /* its stack's frames are in the buffer: intern them */
	TAKE_NO_STACK, /* a dwarf sample whose sizes do not add up: kept without a stack */
	TAKE_KEEP,     /* not ours, or damaged: kept as it is */
};

/*
 * Record @rec of @size bytes, its first bytes in @e: its frames into
 * @fbuf (kernel, then user), unwound for a dwarf sample. Return: an enum
 * take_what, or -ENOMEM.
 */
static int frames_of(struct rc_stacks *t, struct rc_ev_sample *e, const unsigned char *rec,
		     size_t size, uint64_t *fbuf)
{
	int err;

	memset(t->act, 0, sizeof(t->act)); /* only a dwarf sample's frames have any */
	if ((e->hdr.type != RC_EV_SAMPLE && e->hdr.type != RC_EV_OFFCPU &&
	     e->hdr.type != RC_EV_STACK) ||
	    size < sizeof(*e))
		return TAKE_KEEP;
	memcpy(e, rec, sizeof(*e));
	if (e->hdr.type == RC_EV_SAMPLE && (e->hdr.flags & RC_SAMPLE_F_DWARF)) {
		e->hdr.flags &= ~RC_SAMPLE_F_DWARF;
		err = take_dwarf(t, e, rec, size, fbuf);
		if (err > 0)
			t->st.bad++;
		return err < 0 ? err : err ? TAKE_NO_STACK : TAKE_STACK;
	}
	if (size - sizeof(*e) != ((size_t)e->nkernel + e->nuser) * sizeof(uint64_t) ||
	    e->nkernel > RC_STACK_MAX || e->nuser > RC_STACK_MAX) {
		t->st.bad++;
		return TAKE_KEEP;
	}
	memcpy(fbuf, rec + sizeof(*e), size - sizeof(*e));
	if (size == sizeof(*e)) {
		if (e->hdr.type != RC_EV_SAMPLE)
			return TAKE_KEEP; /* an off-CPU or stack record without a stack */
		/* a sample without -g: the stack of its one instruction */
		fbuf[0] = e->ip;
		if (e->hdr.flags & RC_SAMPLE_F_USER)
			e->nuser = 1;
		else
			e->nkernel = 1;
	}
	return TAKE_STACK;
}

int rc_stacks__take(struct rc_stacks *t, struct rc_writer *w, unsigned char *buf, size_t *len)
{
	uint64_t fbuf[2 * RC_STACK_MAX];
	size_t in = 0, out = 0;
	int err = 0, what;

	/* the mappings made up to now: before the samples of the batch are named */
	if (t->sb && rc_sideband__apply(t->sb, t->usym))
		pr_debug("stacks: out of memory noting the side-band's mappings\n");
	while (!err && *len - in >= sizeof(struct rc_rec_hdr)) {
		struct rc_ev_sample e;
		size_t size;

		memcpy(&e.hdr, buf + in, sizeof(e.hdr));
		size = e.hdr.size;
		if (size < sizeof(e.hdr) || size > *len - in)
			break; /* never: the drain checked every record */
		t->ts = e.hdr.ts; /* the side-band's mappings as of it */
		what = frames_of(t, &e, buf + in, size, fbuf);
		if (what < 0) {
			err = what;
			break;
		}
		if (what == TAKE_KEEP) {
			if (out != in)
				memmove(buf + out, buf + in, size);
			in += size;
			out += size;
			continue;
		}
		e.stack_id = 0;
		if (what == TAKE_STACK) {
			err = stack_of(t, &e, fbuf, &e.stack_id);
			if (err)
				break;
			t->st.samples++;
		}
		e.nkernel = e.nuser = 0;
		e.hdr.size = sizeof(e);
		memcpy(buf + out, &e, sizeof(e));
		in += size;
		out += sizeof(e);
		if (t->psyms.len + t->pstacks.len + t->pfiles.len + t->plocs.len + t->plines.len >
		    PENDING_MAX)
			err = emit(t, w);
	}
	if (out != in) { /* a tail the loop did not take: kept as it was */
		memmove(buf + out, buf + in, *len - in);
		out += *len - in;
	}
	*len = out;
	return err ?: emit(t, w);
}

void rc_stacks__new_file(struct rc_stacks *t)
{
	/* ids count from 1 again: every symbol, stack, file and location is defined anew */
	rc_keymap__free(&t->stacks);
	rc_keymap__free(&t->syms);
	rc_keymap__free(&t->frames);
	rc_keymap__free(&t->files);
	rc_keymap__free(&t->locs);
	t->nstacks = t->nsyms = t->nfiles = t->nlocs = 0;
	t->nnames = 0;
	t->psyms.len = t->pstacks.len = 0;
	t->npsyms = t->npstacks = 0;
	t->pfiles.len = t->plocs.len = t->plines.len = 0;
	t->npfiles = t->nplocs = t->nplines = 0;
}

int rc_stacks__load_kernel(struct rc_stacks *t)
{
	t->ksyms_tried = true;
	rc_ksyms__free(t->ksyms);
	t->ksyms = rc_ksyms__load(NULL);
	if (t->ksyms)
		return 0;
	pr_warn("kernel frames will not be named: cannot read /proc/kallsyms: %s\n", strerror(errno));
	return -errno;
}

void rc_stacks__set_sideband(struct rc_stacks *t, struct rc_sideband *sb)
{
	t->sb = sb;
}

void rc_stacks__set_lines(struct rc_stacks *t, bool on)
{
	t->lines = on;
	rc_usym__set_lines(t->usym, on);
}

struct rc_stacks_stats rc_stacks__stats(const struct rc_stacks *t)
{
	return t->st;
}

void rc_stacks__log(const struct rc_stacks *t)
{
	const struct rc_stacks_stats *s = &t->st;

	if (!s->dwarf)
		return;
	pr_info("dwarf unwinding: %llu user stacks: %llu to the outermost frame, %llu stopped "
		"at the copy's end, %llu stopped early, %llu without CFI, %llu of processes gone "
		"before their files were read; %llu short copies; %.1f us a stack\n",
		(unsigned long long)s->dwarf, (unsigned long long)s->dwarf_full,
		(unsigned long long)s->dwarf_copy_end, (unsigned long long)s->dwarf_early,
		(unsigned long long)s->dwarf_nocfi, (unsigned long long)s->dwarf_nofiles,
		(unsigned long long)s->dwarf_short, s->unwind_ns / 1e3 / s->dwarf);
}

void rc_stacks__free(struct rc_stacks *t)
{
	if (!t)
		return;
	rc_keymap__free(&t->stacks);
	rc_keymap__free(&t->syms);
	rc_keymap__free(&t->frames);
	rc_keymap__free(&t->procs);
	free(t->names);
	free(t->seen);
	rc_ksyms__free(t->ksyms);
	rc_unwind__free(t->unwind);
	rc_usym__free(t->usym);
	rc_strbuf__free(&t->psyms);
	rc_strbuf__free(&t->pstacks);
	rc_strbuf__free(&t->key);
	rc_keymap__free(&t->files);
	rc_keymap__free(&t->locs);
	rc_strbuf__free(&t->pfiles);
	rc_strbuf__free(&t->plocs);
	rc_strbuf__free(&t->plines);
	rc_strbuf__free(&t->lkey);
	free(t);
}
