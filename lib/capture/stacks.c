// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stacks taken off samples (and unwound, for --call-graph=dwarf), stored
 * once (stacks.h); their frames are named in stacks_name.c.
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
		p = rc_stacks__proc_of(t, pid, e->image);
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
	return rc_stacks__define(t, *id, pid, p, frames, e->nkernel, e->nuser, flags,
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
	if (!rc_stacks__proc_of(t, e->hdr.pid, e->image))
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
		if (t->psyms.len + t->pstacks.len + t->pfiles.len + t->plocs.len + t->plines.len +
			    t->pbids.len >
		    PENDING_MAX)
			err = rc_stacks__emit(t, w);
	}
	if (out != in) { /* a tail the loop did not take: kept as it was */
		memmove(buf + out, buf + in, *len - in);
		out += *len - in;
	}
	*len = out;
	return err ?: rc_stacks__emit(t, w);
}

void rc_stacks__new_file(struct rc_stacks *t)
{
	/* ids count from 1 again: every symbol, stack, file and location is defined anew */
	rc_keymap__free(&t->stacks);
	rc_keymap__free(&t->syms);
	rc_keymap__free(&t->frames);
	rc_keymap__free(&t->files);
	rc_keymap__free(&t->locs);
	rc_keymap__free(&t->bidfiles);
	t->pbids.len = 0;
	t->npbids = 0;
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
	rc_keymap__free(&t->bidfiles);
	rc_strbuf__free(&t->pbids);
	rc_strbuf__free(&t->lkey);
	free(t);
}
