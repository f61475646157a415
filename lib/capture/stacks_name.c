// SPDX-License-Identifier: GPL-2.0-only
/*
 * Naming the frames of the stacks stacks.c takes: kernel symbols, user
 * symbols through each process's mappings (symbol/usym.h), source lines;
 * each name, file and location defined once, and the definitions written
 * as STACKS blocks.
 */
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
#include "capture/stacks_int.h"
#include "format/format.h"
#include "format/writer_int.h"
#include "symbol/ksym.h"
#include "symbol/srcline.h"
#include "symbol/unwind.h"
#include "symbol/usym.h"
#include "util/keymap.h"
#include "util/mem.h"

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
	} else {
		sym_id(t, NULL, "[kernel.kallsyms]", &fn.sym);
	}
	if (!ks || !strcmp(ks->dso, "[kernel.kallsyms]"))
		rc_stacks__note_build_id(t, "[kernel.kallsyms]", rc_stacks__kernel_build_id(t));
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
struct proc_seen *rc_stacks__proc_of(struct rc_stacks *t, uint32_t pid, uint64_t image)
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
	if (found >= 0 && hit.dso)
		rc_stacks__note_build_id(t, hit.dso, hit.build_id);
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
int rc_stacks__emit(struct rc_stacks *t, struct rc_writer *w)
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
	/* the files the symbols name: the block stands alone, after them by choice */
	err = err ?: rc_stacks__emit_build_ids(t, w);
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
int rc_stacks__define(struct rc_stacks *t, uint32_t id, uint32_t pid, struct proc_seen *p,
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
