// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stacks stored once (capture/stacks.c) and read back (format/stacktab.c):
 * samples as the BPF program writes them, frames and all, through the
 * recorder's interning into a file; the reader names every frame, shares
 * a stack between the samples that have it, and still has it after
 * skipping chunks with --since; with source lines too (LINES blocks), and
 * the build-ids of the files (BUILDIDS blocks): the kernel's and this
 * program's, as /sys/kernel/notes and the ELF note (read here with libelf)
 * give them.
 * Malformed STACKS, LINES and BUILDIDS payloads add nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "events.h"
#include "capture/stacks.h"
#include "format/format.h"
#include "format/stacktab.h"
#include "format/writer_int.h"
#include "symbol/ksym.h"
#include "capture_util.h"
#include "test_progs.h"

uint64_t stk_leaf(uint64_t x);
uint64_t stk_caller(uint64_t x);

static const int stk_leaf_line = __LINE__ + 1;
__attribute__((noinline)) uint64_t stk_leaf(uint64_t x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) uint64_t stk_caller(uint64_t x)
{
	return stk_leaf(x) + 2;
}

#define NREC 2000

/* @path's build-id: its NT_GNU_BUILD_ID note, read with libelf, in hex into @hex. */
static bool elf_build_id(const char *path, char *hex)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok = false;
	Elf_Scn *scn = NULL;
	Elf *e;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && !ok && (scn = elf_nextscn(e, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t off = 0, name, desc, i;
		GElf_Shdr sh;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !d)
			continue;
		while (!ok && (off = gelf_getnote(d, off, &nh, &name, &desc)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + name, "GNU", 4) || nh.n_descsz > 64)
				continue;
			for (i = 0; i < nh.n_descsz; i++)
				sprintf(hex + 2 * i, "%02x", ((unsigned char *)d->d_buf)[desc + i]);
			ok = nh.n_descsz > 0;
		}
	}
	elf_end(e);
	close(fd);
	return ok;
}

/* The kernel's build-id: the GNU note (type 3) of /sys/kernel/notes, in hex. */
static bool kernel_build_id(char *hex)
{
	unsigned char b[4096];
	uint32_t nh[3];
	size_t pos = 0, i;
	FILE *f = fopen("/sys/kernel/notes", "r");
	size_t n = f ? fread(b, 1, sizeof(b), f) : 0;

	if (f)
		fclose(f);
	while (pos + 12 <= n) {
		memcpy(nh, b + pos, sizeof(nh));
		if (nh[2] == 3 && nh[0] == 4 && !memcmp(b + pos + 12, "GNU", 4) && nh[1] <= 64 &&
		    pos + 16 + nh[1] <= n) {
			for (i = 0; i < nh[1]; i++)
				sprintf(hex + 2 * i, "%02x", b[pos + 16 + i]);
			return true;
		}
		pos += 12 + ((nh[0] + 3) & ~3u) + ((nh[1] + 3) & ~3u);
	}
	return false;
}

/* A sample of this process at @ts with kernel frame @kaddr and user frames leaf, caller. */
static size_t put_sample(unsigned char *p, uint64_t ts, uint64_t kaddr, bool other)
{
	struct rc_ev_sample e = {
		.hdr = { .ts = ts, .pid = getpid(), .tid = getpid(), .type = RC_EV_SAMPLE,
			 .cpu = 0, .comm = "test_progs" },
		.ip = kaddr,
		.period = 1000,
		.nkernel = 1,
		.nuser = 2,
		.image = 12345,
	};
	/* the first user frame is looked up as it is, a caller at its address - 1 */
	uint64_t frames[3] = { kaddr, (uint64_t)(uintptr_t)stk_leaf + 1,
			       (uint64_t)(uintptr_t)(other ? stk_leaf : stk_caller) + 2 };

	e.hdr.size = sizeof(e) + sizeof(frames);
	memcpy(p, &e, sizeof(e));
	memcpy(p + sizeof(e), frames, sizeof(frames));
	return e.hdr.size;
}

static size_t put_other(unsigned char *p, uint64_t ts)
{
	struct rc_ev_exit e = { .hdr = { .ts = ts, .pid = 1, .tid = 1, .type = RC_EV_SCHED_EXIT,
					 .size = sizeof(e), .comm = "x" } };

	memcpy(p, &e, sizeof(e));
	return sizeof(e);
}

/*
 * The address of a kernel text symbol, read from /proc/kallsyms by the
 * test itself: 0 where the kernel hides them (not root, kptr_restrict) or
 * has no do_sys_open, which is no fault of ringcap's.
 */
static uint64_t kallsyms_addr(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], nm[256], type;
	unsigned long long a;
	uint64_t addr = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, nm) == 3 && a && type == 'T' &&
		    !strcmp(nm, "do_sys_open")) {
			addr = a;
			break;
		}
	if (f)
		fclose(f);
	return addr;
}

/*
 * @addr, 2 bytes into a kernel text symbol, named by ringcap's own table
 * (the one the recorder reads): a load or lookup that fails is ringcap's
 * failure.
 */
static bool kernel_symbol(uint64_t addr, char *name, size_t len)
{
	struct rc_ksyms *k = rc_ksyms__load(NULL);
	const struct rc_ksym *s;
	uint64_t off = 0;
	bool ok;

	if (!ASSERT_OK_PTR(k, "ringcap loads the kernel's symbols"))
		return false;
	s = rc_ksyms__find(k, addr, &off);
	ok = ASSERT_OK_PTR(s, "ringcap finds the kernel symbol") && ASSERT_EQ(off, 2, "its offset");
	if (ok)
		snprintf(name, len, "%s", s->name);
	rc_ksyms__free(k);
	return ok;
}

/* Does @fr say it is in this file, within a few lines of @line? */
static bool in_this_file(const struct rc_frame *fr, int line)
{
	size_t n = fr->file ? strlen(fr->file) : 0, m = strlen("test_stacks.c");

	return n >= m && !strcmp(fr->file + n - m, "test_stacks.c") && fr->line >= (uint32_t)line &&
	       fr->line <= (uint32_t)line + 3 && !(fr->flags & RC_FRAME_F_INLINE);
}

/* With @lines, the recorder gives user frames their source lines (this file is built -g). */
static void roundtrip(bool lines)
{
	struct rc_writer_opts wo = { .sz = sizeof(wo), .chunk_size = 16384 };
	size_t len = 0, i, cap = NREC * 128;
	unsigned char *buf = malloc(cap);
	struct rc_stacks *t = rc_stacks__new();
	struct rc_writer *w = NULL;
	struct rc_stacks_stats ss;
	const struct rc_rec_hdr *rec;
	struct rc_reader *r = NULL;
	uint32_t first_id = 0, other_id = 0, id;
	uint64_t kaddr = 0, nsamples = 0, late = 0;
	char kname[256], path[64];
	bool bid_checked = false;
	struct rc_meta m;
	int fd = -1, err;

	if (!ASSERT_OK_PTR(buf, "buffer") || !ASSERT_OK_PTR(t, "table"))
		goto out;
	rc_stacks__set_lines(t, lines);
	kaddr = kallsyms_addr();
	if (!kaddr) {
		test__skip("kernel symbols hidden (not root?) or no do_sys_open in /proc/kallsyms");
		goto out;
	}
	kaddr += 2;
	if (!kernel_symbol(kaddr, kname, sizeof(kname)))
		goto out;
	for (i = 0; i < NREC; i++)
		len += i % 3 == 2 ? put_other(buf + len, 1000 + i * 10)
				  : put_sample(buf + len, 1000 + i * 10, kaddr, i == NREC - 1);
	test_meta(&m);
	fd = memfd_create("stacks", 0);
	w = fd >= 0 ? rc_writer__new(fd, &m, &wo) : NULL;
	if (!ASSERT_OK_PTR(w, "writer"))
		goto out;
	err = rc_stacks__take(t, w, buf, &len);
	err = err ?: rc_writer__add(w, buf, len);
	err = err ?: rc_writer__finish(w);
	if (!ASSERT_OK(err, "write"))
		goto out;
	ss = rc_stacks__stats(t);
	ASSERT_EQ(ss.stacks, 2, "two distinct stacks");
	ASSERT_EQ(ss.samples, NREC - NREC / 3, "samples taken off");
	ASSERT_EQ(ss.unnamed, 0, "every frame named");
	/* the three user frames: stk_leaf, stk_caller's call, and stk_leaf's as a caller */
	ASSERT_EQ(ss.lines, lines ? 3 : 0, "frames given a source line");

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = rc_reader__open(path);
	if (!ASSERT_OK_PTR(r, "reader"))
		goto out;
	while ((err = rc_reader__next(r, &rec)) > 0) {
		const struct rc_stack *s;

		if (rec->type != RC_EV_SAMPLE)
			continue;
		nsamples++;
		if (!ASSERT_EQ(rec->size, sizeof(struct rc_ev_sample), "sample without its frames"))
			break;
		id = ((const struct rc_ev_sample *)rec)->stack_id;
		s = rc_reader__stack(r, id);
		if (!ASSERT_OK_PTR(s, "the stack is defined"))
			break;
		if (!first_id)
			first_id = id;
		if (rec->ts != 1000 + (NREC - 1) * 10) {
			if (!ASSERT_EQ(id, first_id, "one id for the same stack"))
				break;
			continue;
		}
		other_id = id;
		if (!ASSERT_EQ(s->nkernel, 1, "kernel frames") || !ASSERT_EQ(s->nuser, 2, "user frames"))
			break;
		ASSERT_EQ(s->pid, (uint32_t)getpid(), "the stack's process");
		ASSERT_STREQ(s->frames[0].sym, kname, "kernel frame named");
		ASSERT_EQ(s->frames[0].off, 2, "offset into it");
		ASSERT_STREQ(s->frames[0].dso, "[kernel.kallsyms]", "kernel file");
		ASSERT_STREQ(s->frames[1].sym, "stk_leaf", "user frame 0 named");
		ASSERT_EQ(s->frames[1].off, 1, "the first user frame: the address itself");
		ASSERT_STREQ(s->frames[2].sym, "stk_leaf", "caller frame named");
		ASSERT_EQ(s->frames[2].off, 2, "its offset: of the address, not of address - 1");
		ASSERT_HAS(s->frames[2].dso, "test_progs", "user file");
		ASSERT_TRUE(!s->frames[0].file && !s->frames[0].line, "no line for the kernel's");
		if (!bid_checked) {
			char want[160] = "", kwant[160] = "";

			bid_checked = true;
			if (ASSERT_TRUE(elf_build_id(s->frames[2].dso, want),
					"the program's build-id note"))
				ASSERT_STREQ(rc_reader__build_id(r, s->frames[2].dso), want,
					     "the program's build-id, as its note gives it");
			if (kernel_build_id(kwant))
				ASSERT_STREQ(rc_reader__build_id(r, "[kernel.kallsyms]"), kwant,
					     "the kernel's build-id, as /sys/kernel/notes's");
			ASSERT_TRUE(!rc_reader__build_id(r, "/no/such/file"), "none for another");
		}
		if (!lines) {
			ASSERT_TRUE(!s->frames[1].file && !s->frames[2].file, "no lines asked");
			continue;
		}
		/* stk_leaf + 1: in its first lines; its +2 as a caller is at +1 too */
		ASSERT_TRUE(in_this_file(&s->frames[1], stk_leaf_line), "the leaf's line");
		ASSERT_TRUE(in_this_file(&s->frames[2], stk_leaf_line), "the caller's line");
		ASSERT_EQ(s->frames[1].flags, 0, "not inlined");
	}
	ASSERT_EQ(err, 0, "read to the end");
	ASSERT_EQ(nsamples, NREC - NREC / 3, "samples read");
	ASSERT_TRUE(other_id && other_id != first_id, "another id for another stack");
	rc_reader__free(r);

	/* --since past most chunks: the definitions before are still read */
	r = rc_reader__open(path);
	if (!ASSERT_OK_PTR(r, "reader again"))
		goto out;
	rc_reader__set_range(r, 1000 + (NREC - 20) * 10, UINT64_MAX);
	nsamples = 0;
	while ((err = rc_reader__next(r, &rec)) > 0) {
		const struct rc_stack *s;

		if (rec->type != RC_EV_SAMPLE || rec->ts < 1000 + (NREC - 20) * 10)
			continue;
		late++;
		id = ((const struct rc_ev_sample *)rec)->stack_id;
		s = rc_reader__stack(r, id);
		if (!ASSERT_OK_PTR(s, "stack after a skip") ||
		    !ASSERT_OK_PTR(rc_reader__build_id(r, s->frames[s->nkernel].dso),
				   "build-ids after a skip"))
			break;
	}
	ASSERT_TRUE(late > 0, "samples after --since");
	ASSERT_TRUE(rc_reader__chunks(r) < 5, "chunks were skipped");
out:
	rc_reader__free(r);
	rc_writer__free(w);
	rc_stacks__free(t);
	if (fd >= 0)
		close(fd);
	free(buf);
}

static void malformed(void)
{
	unsigned char p[256] = {};
	struct rc_disk_stacks ds = { .nsyms = 1, .nstacks = 1 };
	struct rc_disk_sym sy = { .id = 1, .name_len = 3, .dso_len = 4 };
	struct rc_disk_stack dk = { .id = 1, .nkernel = 1 };
	struct rc_disk_frame df = { .addr = 0x1000, .sym = 1, .off = 5 };
	struct rc_stacktab tab = {};
	const struct rc_stack *s;
	const char *why = NULL;
	size_t len = 0;

	memcpy(p, &ds, sizeof(ds));
	len += sizeof(ds);
	memcpy(p + len, &sy, sizeof(sy));
	memcpy(p + len + sizeof(sy), "fooxdso", 7);
	len += 16;
	memcpy(p + len, &dk, sizeof(dk));
	len += sizeof(dk);
	memcpy(p + len, &df, sizeof(df));
	len += sizeof(df);

	ASSERT_EQ(rc_stacktab__add_block(&tab, p, len - 1, &why), -EBADMSG, "cut short");
	ASSERT_TRUE(!rc_stacktab__stack(&tab, 1), "nothing added");
	ASSERT_EQ(rc_stacktab__add_block(&tab, p, len + 8, &why), -EBADMSG, "bytes after");
	dk.nkernel = 2; /* a frame more than the block holds */
	memcpy(p + sizeof(ds) + 16, &dk, sizeof(dk));
	ASSERT_EQ(rc_stacktab__add_block(&tab, p, len, &why), -EBADMSG, "too many frames");
	dk.nkernel = 1;
	dk.id = 0;
	memcpy(p + sizeof(ds) + 16, &dk, sizeof(dk));
	ASSERT_EQ(rc_stacktab__add_block(&tab, p, len, &why), -EBADMSG, "id 0");
	dk.id = 1;
	memcpy(p + sizeof(ds) + 16, &dk, sizeof(dk));
	sy.name_len = 200; /* past the end */
	memcpy(p + sizeof(ds), &sy, sizeof(sy));
	ASSERT_EQ(rc_stacktab__add_block(&tab, p, len, &why), -EBADMSG, "name past the end");
	ASSERT_TRUE(!rc_stacktab__stack(&tab, 1), "still nothing added");
	sy.name_len = 3;
	memcpy(p + sizeof(ds), &sy, sizeof(sy));
	if (!ASSERT_OK(rc_stacktab__add_block(&tab, p, len, &why), "well formed"))
		goto out;
	s = rc_stacktab__stack(&tab, 1);
	if (ASSERT_OK_PTR(s, "defined")) {
		ASSERT_STREQ(s->frames[0].sym, "foo", "name");
		ASSERT_STREQ(s->frames[0].dso, "xdso", "file");
		ASSERT_EQ(s->frames[0].off, 5, "offset");
	}
	/* a frame naming a symbol never defined: unknown, not a crash */
	df.sym = 99;
	dk.id = 2;
	memcpy(p + sizeof(ds) + 16, &dk, sizeof(dk));
	memcpy(p + sizeof(ds) + 16 + sizeof(dk), &df, sizeof(df));
	if (ASSERT_OK(rc_stacktab__add_block(&tab, p, len, &why), "undefined symbol")) {
		s = rc_stacktab__stack(&tab, 2);
		ASSERT_TRUE(s && !s->frames[0].sym && !s->frames[0].dso, "frame unknown");
	}
out:
	rc_stacktab__free(&tab);
}

/* A LINES payload for stack @stack of one frame: file @file "a.c", a location of @nloc frames. */
static size_t lines_payload(unsigned char *p, uint32_t stack, uint32_t file, uint16_t nloc,
			    uint16_t nframes)
{
	struct rc_disk_lines dl = { .nfiles = 1, .nlocs = 1, .nstacks = 1 };
	struct rc_disk_srcfile sf = { .id = file, .len = 3 };
	struct rc_disk_loc loc = { .id = 1, .nframes = nloc };
	struct rc_disk_locframe lf = { .sym = 1, .file = 1, .line = 10 };
	struct rc_disk_stacklines sl = { .id = stack, .nframes = nframes };
	uint32_t locid = 1;
	size_t len = 0, i;

	memset(p, 0, 512);
	memcpy(p, &dl, sizeof(dl));
	len += sizeof(dl);
	memcpy(p + len, &sf, sizeof(sf));
	memcpy(p + len + sizeof(sf), "a.c", 3);
	len += 16;
	memcpy(p + len, &loc, sizeof(loc));
	len += sizeof(loc);
	for (i = 0; i < nloc && i < 8; i++) {
		/* the last is the frame's own: no symbol, line 20 */
		lf.sym = i + 1 < nloc ? 1 : 0;
		lf.line = i + 1 < nloc ? 10 : 20;
		memcpy(p + len, &lf, sizeof(lf));
		len += sizeof(lf);
	}
	memcpy(p + len, &sl, sizeof(sl));
	len += sizeof(sl);
	for (i = 0; i < nframes && i < 8; i++, len += sizeof(locid))
		memcpy(p + len, &locid, sizeof(locid));
	return (len + 7) & ~(size_t)7;
}

/* LINES payloads: every length and id checked; a stack given lines once, if its frames match. */
static void lines_malformed(void)
{
	unsigned char p[256] = {}, q[512];
	struct rc_disk_stacks ds = { .nsyms = 1, .nstacks = 1 };
	struct rc_disk_sym sy = { .id = 1, .name_len = 3, .dso_len = 4 };
	struct rc_disk_stack dk = { .id = 1, .nkernel = 0, .nuser = 1 };
	struct rc_disk_frame df = { .addr = 0x1000, .sym = 1, .off = 5 };
	struct rc_stacktab tab = {};
	const struct rc_stack *s;
	const char *why = NULL;
	size_t len = 0, qlen;

	memcpy(p, &ds, sizeof(ds));
	len += sizeof(ds);
	memcpy(p + len, &sy, sizeof(sy));
	memcpy(p + len + sizeof(sy), "fooxdso", 7);
	len += 16;
	memcpy(p + len, &dk, sizeof(dk));
	len += sizeof(dk);
	memcpy(p + len, &df, sizeof(df));
	len += sizeof(df);
	if (!ASSERT_OK(rc_stacktab__add_block(&tab, p, len, &why), "stacks"))
		goto out;

	qlen = lines_payload(q, 1, 1, 2, 1);
	ASSERT_EQ(rc_stacktab__add_lines(&tab, q, qlen - 1, &why), -EBADMSG, "cut short");
	ASSERT_EQ(rc_stacktab__add_lines(&tab, q, qlen + 8, &why), -EBADMSG, "bytes after");
	ASSERT_EQ(rc_stacktab__add_lines(&tab, q, 12, &why), -EBADMSG, "shorter than its counts");
	qlen = lines_payload(q, 1, 0, 2, 1);
	ASSERT_EQ(rc_stacktab__add_lines(&tab, q, qlen, &why), -EBADMSG, "file id 0");
	qlen = lines_payload(q, 1, 1, 0, 1);
	ASSERT_EQ(rc_stacktab__add_lines(&tab, q, qlen, &why), -EBADMSG, "a location of no frame");
	qlen = lines_payload(q, 1, 1, 33, 1);
	ASSERT_EQ(rc_stacktab__add_lines(&tab, q, qlen, &why), -EBADMSG,
		  "a location past its frames' room");
	qlen = lines_payload(q, 0, 1, 2, 1);
	ASSERT_EQ(rc_stacktab__add_lines(&tab, q, qlen, &why), -EBADMSG, "stack id 0");
	qlen = lines_payload(q, 1, 1, 2, 5000);
	ASSERT_EQ(rc_stacktab__add_lines(&tab, q, qlen, &why), -EBADMSG, "too many frames");
	s = rc_stacktab__stack(&tab, 1);
	if (!ASSERT_TRUE(s && s->nuser == 1 && !s->frames[0].file, "nothing taken"))
		goto out;
	/* frames that are not the stack's: passed over, the stack as it was */
	qlen = lines_payload(q, 1, 2, 2, 2);
	ASSERT_OK(rc_stacktab__add_lines(&tab, q, qlen, &why), "another frame count");
	s = rc_stacktab__stack(&tab, 1);
	ASSERT_TRUE(s->nuser == 1 && !s->frames[0].file, "not taken for the stack");
	/* a stack never defined: passed over */
	qlen = lines_payload(q, 9, 3, 2, 1);
	ASSERT_OK(rc_stacktab__add_lines(&tab, q, qlen, &why), "a stack not defined");
	/* well formed: a function inlined into the frame */
	qlen = lines_payload(q, 1, 1, 2, 1);
	if (!ASSERT_OK(rc_stacktab__add_lines(&tab, q, qlen, &why), "well formed"))
		goto out;
	s = rc_stacktab__stack(&tab, 1);
	if (ASSERT_TRUE(s && s->nkernel == 0 && s->nuser == 2, "an inlined frame added")) {
		ASSERT_EQ(s->frames[0].flags, RC_FRAME_F_INLINE, "marked inline");
		ASSERT_STREQ(s->frames[0].sym, "foo", "its function");
		ASSERT_STREQ(s->frames[0].dso, "xdso", "the frame's file");
		ASSERT_EQ(s->frames[0].addr, 0x1000, "the frame's address");
		ASSERT_EQ(s->frames[0].off, 0, "no offset");
		ASSERT_STREQ(s->frames[0].file, "a.c", "its source");
		ASSERT_EQ(s->frames[0].line, 10, "its line");
		ASSERT_EQ(s->frames[1].flags, 0, "the frame itself");
		ASSERT_EQ(s->frames[1].off, 5, "its offset");
		ASSERT_EQ(s->frames[1].line, 20, "at the call's line");
	}
	/* lines once: a second block for it is passed over */
	qlen = lines_payload(q, 1, 1, 3, 1);
	ASSERT_OK(rc_stacktab__add_lines(&tab, q, qlen, &why), "again");
	s = rc_stacktab__stack(&tab, 1);
	ASSERT_TRUE(s && s->nuser == 2, "the first stands");
out:
	rc_stacktab__free(&tab);
}

/*
 * A few bytes of locations cannot make a stack of thousands of frames: a
 * stack of 512 user frames, each at a location of 31 inlined functions,
 * gets at most RC_MAX_INLINED inlined frames; the frames past them keep
 * their own lines. (Unbounded, it had 16,384 frames: 48 bytes each from
 * 4 bytes of the file, and report's functions pass is quadratic in them.)
 */
static void lines_bounded(void)
{
	const size_t nf = RC_MAX_FRAMES, nloc = RC_MAX_LOC_FRAMES;
	struct rc_disk_stacks ds = { .nsyms = 1, .nstacks = 1 };
	struct rc_disk_sym sy = { .id = 1, .name_len = 3, .dso_len = 4 };
	struct rc_disk_stack dk = { .id = 1, .nuser = nf };
	struct rc_disk_lines dl = { .nfiles = 1, .nlocs = 1, .nstacks = 1 };
	struct rc_disk_srcfile sf = { .id = 1, .len = 3 };
	struct rc_disk_loc loc = { .id = 1, .nframes = nloc };
	struct rc_disk_stacklines sl = { .id = 1, .nframes = nf };
	struct rc_stacktab tab = {};
	const struct rc_stack *s;
	const char *why = NULL;
	unsigned char *p = calloc(1, 64 + nf * sizeof(struct rc_disk_frame) + nloc * 16 + nf * 4);
	size_t len = 0, i, inl = 0;
	uint32_t one = 1;

	if (!ASSERT_OK_PTR(p, "calloc"))
		return;
	memcpy(p, &ds, sizeof(ds));
	len += sizeof(ds);
	memcpy(p + len, &sy, sizeof(sy));
	memcpy(p + len + sizeof(sy), "fooxdso", 7);
	len += 16;
	memcpy(p + len, &dk, sizeof(dk));
	len += sizeof(dk);
	for (i = 0; i < nf; i++, len += sizeof(struct rc_disk_frame)) {
		struct rc_disk_frame df = { .addr = 0x1000 + i, .sym = 1, .off = i };

		memcpy(p + len, &df, sizeof(df));
	}
	if (!ASSERT_OK(rc_stacktab__add_block(&tab, p, len, &why), "stacks"))
		goto out;
	len = 0;
	memcpy(p, &dl, sizeof(dl));
	len += sizeof(dl);
	memcpy(p + len, &sf, sizeof(sf));
	memcpy(p + len + sizeof(sf), "a.c", 3);
	len += 16;
	memcpy(p + len, &loc, sizeof(loc));
	len += sizeof(loc);
	for (i = 0; i < nloc; i++, len += sizeof(struct rc_disk_locframe)) {
		bool inlined = i + 1 < nloc;
		struct rc_disk_locframe lf = { .sym = inlined ? 1 : 0,
					       .file = 1,
					       .line = inlined ? 10 : 20 };

		memcpy(p + len, &lf, sizeof(lf));
	}
	memcpy(p + len, &sl, sizeof(sl));
	len += sizeof(sl);
	for (i = 0; i < nf; i++, len += sizeof(one))
		memcpy(p + len, &one, sizeof(one));
	if (!ASSERT_OK(rc_stacktab__add_lines(&tab, p, len, &why), "lines"))
		goto out;
	s = rc_stacktab__stack(&tab, 1);
	if (!ASSERT_OK_PTR(s, "stack"))
		goto out;
	ASSERT_EQ(s->nkernel, 0, "no kernel frames");
	ASSERT_TRUE(s->nuser <= nf + RC_MAX_INLINED, "frames bounded");
	for (i = 0; i < s->nuser; i++)
		inl += !!(s->frames[i].flags & RC_FRAME_F_INLINE);
	ASSERT_EQ(s->nuser - inl, nf, "every frame of the stack kept");
	ASSERT_TRUE(inl > 0 && inl <= RC_MAX_INLINED, "inlined frames, up to the bound");
	ASSERT_EQ(s->frames[0].flags, RC_FRAME_F_INLINE, "the first frame's inlined functions");
	ASSERT_EQ(s->frames[s->nuser - 1].flags, 0, "the last frame alone");
	ASSERT_EQ(s->frames[s->nuser - 1].line, 20, "with its own line");
	ASSERT_EQ(s->frames[s->nuser - 1].off, nf - 1, "and its offset");
	ASSERT_STREQ(s->frames[s->nuser - 1].file, "a.c", "and file");
out:
	rc_stacktab__free(&tab);
	free(p);
}

/* A BUILDIDS entry for @file with the @n bytes 0x11, 0x22, ... at @p: its length. */
static size_t bid_entry(unsigned char *p, const char *file, unsigned int n)
{
	struct rc_disk_buildid db = { .file_len = strlen(file), .id_len = n };
	size_t len = sizeof(db) + db.file_len + n, i;

	memcpy(p, &db, sizeof(db));
	memcpy(p + sizeof(db), file, db.file_len);
	for (i = 0; i < n; i++)
		p[sizeof(db) + db.file_len + i] = 0x11 * (i % 15 + 1);
	memset(p + len, 0, (8 - len % 8) % 8);
	return (len + 7) & ~(size_t)7;
}

static void bids_malformed(void)
{
	struct rc_disk_buildids dh = { .n = 2 };
	unsigned char p[512] = {};
	struct rc_disk_buildid db;
	struct rc_stacktab tab = {};
	const char *why = NULL;
	size_t len = sizeof(dh);

	memcpy(p, &dh, sizeof(dh));
	len += bid_entry(p + len, "/bin/x", 20);
	len += bid_entry(p + len, "[kernel.kallsyms]", 3);
	ASSERT_EQ(rc_stacktab__add_buildids(&tab, p, len - 1, &why), -EBADMSG, "cut short");
	ASSERT_EQ(rc_stacktab__add_buildids(&tab, p, len + 8, &why), -EBADMSG, "bytes after");
	ASSERT_EQ(rc_stacktab__add_buildids(&tab, p, 4, &why), -EBADMSG, "shorter than its count");
	memcpy(&db, p + 8, sizeof(db));
	db.id_len = 0;
	memcpy(p + 8, &db, sizeof(db));
	ASSERT_EQ(rc_stacktab__add_buildids(&tab, p, len, &why), -EBADMSG, "an id of 0 bytes");
	db.id_len = 20;
	db.file_len = 0;
	memcpy(p + 8, &db, sizeof(db));
	ASSERT_EQ(rc_stacktab__add_buildids(&tab, p, len, &why), -EBADMSG, "a file of 0 bytes");
	db.file_len = 300;
	memcpy(p + 8, &db, sizeof(db));
	ASSERT_EQ(rc_stacktab__add_buildids(&tab, p, len, &why), -EBADMSG, "a file past the end");
	ASSERT_TRUE(!rc_stacktab__build_id(&tab, "/bin/x") && !tab.nbids, "nothing taken");
	db.file_len = 6;
	memcpy(p + 8, &db, sizeof(db));
	if (!ASSERT_OK(rc_stacktab__add_buildids(&tab, p, len, &why), "well formed"))
		goto out;
	ASSERT_STREQ(rc_stacktab__build_id(&tab, "/bin/x"),
		     "112233445566778899aabbccddeeff1122334455", "the file's 20 bytes, in hex");
	ASSERT_STREQ(rc_stacktab__build_id(&tab, "[kernel.kallsyms]"), "112233", "the kernel's");
	ASSERT_TRUE(!rc_stacktab__build_id(&tab, "/bin"), "none for a prefix");
	/* a second definition of a file: the first stands */
	len = sizeof(dh);
	dh.n = 1;
	memcpy(p, &dh, sizeof(dh));
	len += bid_entry(p + len, "/bin/x", 2);
	ASSERT_OK(rc_stacktab__add_buildids(&tab, p, len, &why), "a second definition");
	ASSERT_STREQ(rc_stacktab__build_id(&tab, "/bin/x"),
		     "112233445566778899aabbccddeeff1122334455", "the first stands");
	ASSERT_EQ(tab.nbids, 2, "two files");
	/*
	 * a name with a NUL in it: refused whole (it once went into the table
	 * cut at the NUL, and a later entry of the same bytes read past that copy)
	 */
	len = sizeof(dh);
	dh.n = 2;
	memcpy(p, &dh, sizeof(dh));
	len += bid_entry(p + len, "/bin/nul-inside", 4);
	len += bid_entry(p + len, "/bin/nul-inside", 4);
	p[sizeof(dh) + sizeof(db) + 4] = '\0'; /* "/bin\0nul-inside" */
	ASSERT_EQ(rc_stacktab__add_buildids(&tab, p, len, &why), -EBADMSG, "a NUL in a name");
	ASSERT_EQ(tab.nbids, 2, "nothing more taken");
out:
	rc_stacktab__free(&tab);
}

void test_stacks_roundtrip(void)
{
	if (test__start_subtest("symbols"))
		roundtrip(false);
	if (test__start_subtest("lines"))
		roundtrip(true);
}

void test_stacks_malformed(void)
{
	if (test__start_subtest("stacks"))
		malformed();
	if (test__start_subtest("lines"))
		lines_malformed();
	if (test__start_subtest("lines_bounded"))
		lines_bounded();
	if (test__start_subtest("build_ids"))
		bids_malformed();
}
