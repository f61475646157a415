// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tracepoint formats: real ones of this kernel, each odd type, malformed
 * and mangled text, every event of the running kernel, and globbing.
 */
#include <errno.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include "format/format.h"
#include "util/util.h"
#include "tracefs/tpformat.h"
#include "ft_formats.h"
#include "run_util.h"
#include "test_progs.h"

#define BASE 40 /* sizeof(struct rc_rec_hdr) */

/* sched:sched_switch, as Linux 6.18 gives it */
static const char sched_switch_fmt[] = FT_SWITCH_HEAD
    "print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s "
    "next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & "
    "((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 "
    "| 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 "
    "| 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - "
    "1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, "
    "\"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, "
    "\"I\" }) : \"R\", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | "
    "0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, "
    "REC->next_pid, REC->next_prio\n";

/* irq:irq_handler_entry, as Linux 6.18 gives it */
static const char irq_handler_entry_fmt[] = FT_IRQ_FMT;

/* dma:dma_map_sg, as Linux 6.18 gives it */
static const char dma_map_sg_fmt[] =
    "name: dma_map_sg\n"
    "ID: 431\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:__data_loc char[] device;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:int full_nents;\toffset:12;\tsize:4;\tsigned:1;\n"
    "\tfield:int full_ents;\toffset:16;\tsize:4;\tsigned:1;\n"
    "\tfield:bool truncated;\toffset:20;\tsize:1;\tsigned:0;\n"
    "\tfield:__data_loc u64[] phys_addrs;\toffset:24;\tsize:4;\tsigned:0;\n"
    "\tfield:__data_loc u64[] dma_addrs;\toffset:28;\tsize:4;\tsigned:0;\n"
    "\tfield:__data_loc unsigned int[] lengths;\toffset:32;\tsize:4;\tsigned:0;\n"
    "\tfield:enum dma_data_direction dir;\toffset:36;\tsize:4;\tsigned:0;\n"
    "\tfield:unsigned long attrs;\toffset:40;\tsize:8;\tsigned:0;\n"
    "\n"
    "print fmt: \"%s dir=%s nents=%d/%d ents=%d/%d%s dma_addrs=%s sizes=%s phys_addrs=%s "
    "attrs=%s\", __get_str(device), __print_symbolic(REC->dir, { 0, \"BIDIRECTIONAL\" }, { 1, "
    "\"TO_DEVICE\" }, { 2, \"FROM_DEVICE\" }, { 3, \"NONE\" }), ({ int __UNIQUE_ID_x_920 = "
    "(REC->full_nents); int __UNIQUE_ID_y_921 = (128); ((__UNIQUE_ID_x_920) < (__UNIQUE_ID_y_921) "
    "? (__UNIQUE_ID_x_920) : (__UNIQUE_ID_y_921)); }), REC->full_nents, ({ int __UNIQUE_ID_x_922 = "
    "(REC->full_ents); int __UNIQUE_ID_y_923 = (128); ((__UNIQUE_ID_x_922) < (__UNIQUE_ID_y_923) ? "
    "(__UNIQUE_ID_x_922) : (__UNIQUE_ID_y_923)); }), REC->full_ents, REC->truncated ? \" "
    "[TRUNCATED]\" : \"\", __print_array(__get_dynamic_array(dma_addrs), "
    "__get_dynamic_array_len(dma_addrs) / sizeof(u64), sizeof(u64)), "
    "__print_array(__get_dynamic_array(lengths), __get_dynamic_array_len(lengths) / "
    "sizeof(unsigned int), sizeof(unsigned int)), __print_array(__get_dynamic_array(phys_addrs), "
    "__get_dynamic_array_len(phys_addrs) / sizeof(u64), sizeof(u64)), __print_flags(REC->attrs, "
    "\"|\", { (1UL << 1), \"WEAK_ORDERING\" }, { (1UL << 2), \"WRITE_COMBINE\" }, { (1UL << 4), "
    "\"NO_KERNEL_MAPPING\" }, { (1UL << 5), \"SKIP_CPU_SYNC\" }, { (1UL << 6), "
    "\"FORCE_CONTIGUOUS\" }, { (1UL << 7), \"ALLOC_SINGLE_PAGES\" }, { (1UL << 8), \"NO_WARN\" }, "
    "{ (1UL << 9), \"PRIVILEGED\" }, { (1UL << 10), \"MMIO\" }, { (1UL << 11), \"CACHE_CLEAN\" "
    "})\n";

/* sock:sock_exceed_buf_limit, as Linux 6.18 gives it */
static const char sock_exceed_buf_limit_fmt[] =
    "name: sock_exceed_buf_limit\n"
    "ID: 2288\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:char name[32];\toffset:8;\tsize:32;\tsigned:0;\n"
    "\tfield:long sysctl_mem[3];\toffset:40;\tsize:24;\tsigned:1;\n"
    "\tfield:long allocated;\toffset:64;\tsize:8;\tsigned:1;\n"
    "\tfield:int sysctl_rmem;\toffset:72;\tsize:4;\tsigned:1;\n"
    "\tfield:int rmem_alloc;\toffset:76;\tsize:4;\tsigned:1;\n"
    "\tfield:int sysctl_wmem;\toffset:80;\tsize:4;\tsigned:1;\n"
    "\tfield:int wmem_alloc;\toffset:84;\tsize:4;\tsigned:1;\n"
    "\tfield:int wmem_queued;\toffset:88;\tsize:4;\tsigned:1;\n"
    "\tfield:int kind;\toffset:92;\tsize:4;\tsigned:1;\n"
    "\n"
    "print fmt: \"proto:%s sysctl_mem=%ld,%ld,%ld allocated=%ld sysctl_rmem=%d rmem_alloc=%d "
    "sysctl_wmem=%d wmem_alloc=%d wmem_queued=%d kind=%s\", REC->name, REC->sysctl_mem[0], "
    "REC->sysctl_mem[1], REC->sysctl_mem[2], REC->allocated, REC->sysctl_rmem, REC->rmem_alloc, "
    "REC->sysctl_wmem, REC->wmem_alloc, REC->wmem_queued, __print_symbolic(REC->kind, { 0, "
    "\"SK_MEM_SEND\" }, { 1, \"SK_MEM_RECV\" })\n";

/* syscalls:sys_enter_openat, as Linux 6.18 gives it */
static const char sys_enter_openat_fmt[] =
    "name: sys_enter_openat\n"
    "ID: 782\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
    "\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n"
    "\n"
    "print fmt: \"dfd: 0x%08lx, filename: 0x%08lx, flags: 0x%08lx, mode: 0x%08lx\", ((unsigned "
    "long)(REC->dfd)), ((unsigned long)(REC->filename)), ((unsigned long)(REC->flags)), ((unsigned "
    "long)(REC->mode))\n";

/* btrfs:btrfs_all_work_done, as Linux 6.18 gives it */
static const char btrfs_all_work_done_fmt[] =
    "name: btrfs_all_work_done\n"
    "ID: 1970\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:u8 fsid[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:const void * wtag;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\n"
    "print fmt: \"%pU: work->%p\", REC->fsid, REC->wtag\n";

/* A __rel_loc event, in the syntax the kernel gives __data_loc fields. */
static const char rel_loc_fmt[] =
    "name: foo_rel_loc\n"
    "ID: 4242\n"
    "format:\n" FT_COMMON "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:__rel_loc char[] msg;\toffset:12;\tsize:4;\tsigned:0;\n"
    "\tfield:__rel_loc u32[] vals;\toffset:16;\tsize:4;\tsigned:0;\n"
    "\tfield:__data_loc char[] dev;\toffset:20;\tsize:4;\tsigned:0;\n"
    "\tfield:__data_loc cpumask_t cpumask;\toffset:24;\tsize:4;\tsigned:0;\n"
    "\n"
    "print fmt: \"x=%d msg=%s\", REC->x, __get_rel_str(msg)\n";

/* Every type the mapping treats apart, the kernel's or not (yet). */
static const char odd_fmt[] =
    "name: odd\n"
    "ID: 7\n"
    "format:\n" FT_COMMON "\tfield:__int128 big;\toffset:8;\tsize:16;\tsigned:1;\n"
    "\tfield:struct foo_key key;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned int flag:3;\toffset:32;\tsize:4;\tsigned:0;\n"
    "\tfield:u16 grid[2][3];\toffset:36;\tsize:12;\tsigned:0;\n"
    "\tfield:char comm[TASK_COMM_LEN];\toffset:48;\tsize:16;\tsigned:0;\n"
    "\tfield:unsigned long mask[NR_LONGS];\toffset:64;\tsize:16;\tsigned:0;\n"
    "\tfield:pgoff_t pages[NR];\toffset:80;\tsize:8;\tsigned:0;\n"
    "\tfield:bool ok;\toffset:88;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char mac[6];\toffset:89;\tsize:6;\tsigned:0;\n"
    "\tfield:s8 deltas[3];\toffset:95;\tsize:3;\tsigned:1;\n"
    "\tfield:void *ptrs[2];\toffset:104;\tsize:16;\tsigned:0;\n"
    "\tfield:__data_loc s8[] sdata;\toffset:120;\tsize:4;\tsigned:0;\n"
    "\tfield:__data_loc int[] ints;\toffset:124;\tsize:4;\tsigned:0;\n"
    "\tfield:__data_loc struct foo[] foos;\toffset:128;\tsize:4;\tsigned:0;\n"
    "\tfield:__data_loc unsigned long[] cpumask;\toffset:132;\tsize:4;\tsigned:0;\n"
    "\tfield:u32 odd3[3];\toffset:136;\tsize:10;\tsigned:0;\n"
    "\tfield:int pid;\toffset:148;\tsize:4;\tsigned:1;\n"
    "\tfield:unsigned long args[];\toffset:152;\tsize:0;\tsigned:0;\n"
    "\n"
    "print fmt: \"\"\n";

static bool field_is(const struct rc_tpformat *f, uint16_t i, const char *name, unsigned int off,
		     unsigned int size, unsigned int count, unsigned int kind, unsigned int hint)
{
	const struct rc_field *fld;
	char what[64];

	snprintf(what, sizeof(what), "%s field %u", f->name ?: "?", i);
	if (!ASSERT_LT(i, f->nfields, what))
		return false;
	fld = &f->fields[i];
	return ASSERT_STREQ(fld->name, name, what) & ASSERT_EQ(fld->offset, off, what) &
	       ASSERT_EQ(fld->size, size, what) & ASSERT_EQ(fld->count, count, what) &
	       ASSERT_EQ(fld->kind, kind, what) & ASSERT_EQ(fld->hint, hint, what) &
	       ASSERT_EQ(fld->enum_id, 0, what);
}

/*
 * What the capture format asks of a stored field (lib/format/header.c
 * check_field()), with a __data_loc's footprint its 4-byte loc word, and
 * what the BPF program relies on: the locs and their offsets.
 */
static bool invariants_hold(const struct rc_tpformat *f, uint16_t base, const char *what)
{
	unsigned int i, j, nlocs = 0;
	bool ok = true;

	ok &= ASSERT_TRUE(f->name && *f->name, what);
	ok &= ASSERT_TRUE(f->id > 0, what);
	ok &= ASSERT_TRUE(f->nfields <= RC_MAX_FIELDS, what);
	ok &= ASSERT_TRUE(f->nlocs <= RC_TP_MAX_LOCS, what);
	ok &= ASSERT_TRUE(base + f->size <= RC_REC_MAX, what);
	ok &= ASSERT_TRUE(f->text != NULL, what);
	for (i = 0; ok && i < f->nfields; i++) {
		const struct rc_field *fld = &f->fields[i];
		size_t end = (size_t)fld->offset + (size_t)fld->size * fld->count;
		bool int_size =
		    fld->size == 1 || fld->size == 2 || fld->size == 4 || fld->size == 8;

		ok &=
		    ASSERT_TRUE(fld->name && *fld->name && strlen(fld->name) <= RC_MAX_NAME, what);
		for (j = 0; ok && j < i; j++)
			ok &= ASSERT_TRUE(strcmp(fld->name, f->fields[j].name), what);
		ok &= ASSERT_TRUE(fld->count >= 1, what);
		ok &= ASSERT_TRUE(fld->offset >= base, what);
		ok &= ASSERT_TRUE(fld->hint == RC_HINT_NONE || fld->hint == RC_HINT_HEX, what);
		switch (fld->kind) {
		case RC_FIELD_UINT:
		case RC_FIELD_SINT:
			ok &= ASSERT_TRUE(int_size, what);
			break;
		case RC_FIELD_STR:
			ok &= ASSERT_TRUE(fld->count == 1 && fld->size, what);
			break;
		case RC_FIELD_DATA_LOC:
		case RC_FIELD_REL_LOC:
			ok &= ASSERT_TRUE(int_size && fld->count == 1, what);
			ok &= ASSERT_TRUE(nlocs < f->nlocs, what);
			if (!ok)
				break;
			ok &= ASSERT_EQ(f->loc_off[nlocs] + base, fld->offset, what);
			ok &= ASSERT_EQ(f->loc_rel[nlocs], fld->kind == RC_FIELD_REL_LOC, what);
			nlocs++;
			end = fld->offset + 4;
			break;
		default:
			ok &= ASSERT_TRUE(false, what);
		}
		if (ok && !ASSERT_TRUE(end <= base + f->size, what))
			printf("    field '%s' ends at %zu, the event at %u\n", fld->name, end,
			       base + f->size);
	}
	ok &= ASSERT_EQ(nlocs, f->nlocs, what);
	return ok;
}

void test_tpformat_parse_real(void)
{
	struct rc_tpformat f;
	char err[256] = "";
	int ret;

	test__start_subtest("sched_switch");
	ret = rc_tpformat__parse(&f, sched_switch_fmt, BASE, err, sizeof(err));
	if (ASSERT_OK(ret, err)) {
		ASSERT_STREQ(f.name, "sched_switch", "name");
		ASSERT_TRUE(f.system == NULL, "no system from the text");
		ASSERT_EQ(f.id, 372, "id");
		ASSERT_EQ(f.size, 64, "size");
		ASSERT_EQ(f.nlocs, 0, "nlocs");
		ASSERT_STREQ(f.text, sched_switch_fmt, "text");
		ASSERT_TRUE(f.text != sched_switch_fmt, "text copied");
		if (ASSERT_EQ(f.nfields, 7, "nfields")) {
			field_is(&f, 0, "prev_comm", 48, 16, 1, RC_FIELD_STR, RC_HINT_NONE);
			field_is(&f, 1, "prev_pid", 64, 4, 1, RC_FIELD_SINT, RC_HINT_NONE);
			field_is(&f, 2, "prev_prio", 68, 4, 1, RC_FIELD_SINT, RC_HINT_NONE);
			field_is(&f, 3, "prev_state", 72, 8, 1, RC_FIELD_SINT, RC_HINT_NONE);
			field_is(&f, 4, "next_comm", 80, 16, 1, RC_FIELD_STR, RC_HINT_NONE);
			field_is(&f, 5, "next_pid", 96, 4, 1, RC_FIELD_SINT, RC_HINT_NONE);
			field_is(&f, 6, "next_prio", 100, 4, 1, RC_FIELD_SINT, RC_HINT_NONE);
		}
		invariants_hold(&f, BASE, "sched_switch");
	}
	rc_tpformat__free(&f);
	ASSERT_TRUE(!f.fields && !f.name && !f.text && !f.nfields, "freed and empty");
	rc_tpformat__free(&f); /* twice: harmless */

	test__start_subtest("base_0");
	ret = rc_tpformat__parse(&f, sched_switch_fmt, 0, err, sizeof(err));
	if (ASSERT_OK(ret, err))
		field_is(&f, 0, "prev_comm", 8, 16, 1, RC_FIELD_STR, RC_HINT_NONE);
	rc_tpformat__free(&f);

	test__start_subtest("array");
	ret = rc_tpformat__parse(&f, sock_exceed_buf_limit_fmt, BASE, err, sizeof(err));
	if (ASSERT_OK(ret, err) && ASSERT_EQ(f.nfields, 9, "nfields")) {
		ASSERT_EQ(f.size, 96, "size");
		field_is(&f, 0, "name", 48, 32, 1, RC_FIELD_STR, RC_HINT_NONE);
		field_is(&f, 1, "sysctl_mem", 80, 8, 3, RC_FIELD_SINT, RC_HINT_NONE);
		field_is(&f, 2, "allocated", 104, 8, 1, RC_FIELD_SINT, RC_HINT_NONE);
		field_is(&f, 8, "kind", 132, 4, 1, RC_FIELD_SINT, RC_HINT_NONE);
		invariants_hold(&f, BASE, "sock_exceed_buf_limit");
	}
	rc_tpformat__free(&f);

	test__start_subtest("bytes_and_pointer");
	ret = rc_tpformat__parse(&f, btrfs_all_work_done_fmt, BASE, err, sizeof(err));
	if (ASSERT_OK(ret, err) && ASSERT_EQ(f.nfields, 2, "nfields")) {
		ASSERT_EQ(f.size, 32, "size");
		field_is(&f, 0, "fsid", 48, 1, 16, RC_FIELD_UINT, RC_HINT_HEX);
		field_is(&f, 1, "wtag", 64, 8, 1, RC_FIELD_UINT, RC_HINT_HEX);
	}
	rc_tpformat__free(&f);

	test__start_subtest("syscall");
	/* the kernel's size wins over the type's: int dfd is 8 bytes here */
	ret = rc_tpformat__parse(&f, sys_enter_openat_fmt, BASE, err, sizeof(err));
	if (ASSERT_OK(ret, err) && ASSERT_EQ(f.nfields, 5, "nfields")) {
		ASSERT_EQ(f.size, 48, "size");
		field_is(&f, 0, "__syscall_nr", 48, 4, 1, RC_FIELD_SINT, RC_HINT_NONE);
		field_is(&f, 1, "dfd", 56, 8, 1, RC_FIELD_UINT, RC_HINT_NONE);
		field_is(&f, 2, "filename", 64, 8, 1, RC_FIELD_UINT, RC_HINT_HEX);
		field_is(&f, 3, "flags", 72, 8, 1, RC_FIELD_UINT, RC_HINT_NONE);
		field_is(&f, 4, "mode", 80, 8, 1, RC_FIELD_UINT, RC_HINT_NONE);
	}
	rc_tpformat__free(&f);
}

void test_tpformat_parse_locs(void)
{
	struct rc_tpformat f;
	struct rc_strbuf sb = {};
	char err[256] = "";
	int ret, i;

	test__start_subtest("data_loc_string");
	ret = rc_tpformat__parse(&f, irq_handler_entry_fmt, BASE, err, sizeof(err));
	if (ASSERT_OK(ret, err) && ASSERT_EQ(f.nfields, 2, "nfields")) {
		ASSERT_EQ(f.id, 225, "id");
		ASSERT_EQ(f.size, 16, "size");
		field_is(&f, 0, "irq", 48, 4, 1, RC_FIELD_SINT, RC_HINT_NONE);
		field_is(&f, 1, "name", 52, 1, 1, RC_FIELD_DATA_LOC, RC_HINT_NONE);
		ASSERT_EQ(f.nlocs, 1, "nlocs");
		ASSERT_EQ(f.loc_off[0], 12, "loc_off");
		ASSERT_EQ(f.loc_rel[0], 0, "loc_rel");
		invariants_hold(&f, BASE, "irq_handler_entry");
	}
	rc_tpformat__free(&f);

	test__start_subtest("data_loc_arrays");
	ret = rc_tpformat__parse(&f, dma_map_sg_fmt, BASE, err, sizeof(err));
	if (ASSERT_OK(ret, err) && ASSERT_EQ(f.nfields, 9, "nfields")) {
		ASSERT_EQ(f.size, 48, "size");
		field_is(&f, 0, "device", 48, 1, 1, RC_FIELD_DATA_LOC, RC_HINT_NONE);
		field_is(&f, 3, "truncated", 60, 1, 1, RC_FIELD_UINT, RC_HINT_NONE);
		field_is(&f, 4, "phys_addrs", 64, 8, 1, RC_FIELD_DATA_LOC, RC_HINT_HEX);
		field_is(&f, 5, "dma_addrs", 68, 8, 1, RC_FIELD_DATA_LOC, RC_HINT_HEX);
		field_is(&f, 6, "lengths", 72, 4, 1, RC_FIELD_DATA_LOC, RC_HINT_HEX);
		field_is(&f, 7, "dir", 76, 4, 1, RC_FIELD_UINT, RC_HINT_NONE);
		field_is(&f, 8, "attrs", 80, 8, 1, RC_FIELD_UINT, RC_HINT_NONE);
		if (ASSERT_EQ(f.nlocs, 4, "nlocs")) {
			ASSERT_EQ(f.loc_off[0], 8, "loc_off 0");
			ASSERT_EQ(f.loc_off[1], 24, "loc_off 1");
			ASSERT_EQ(f.loc_off[2], 28, "loc_off 2");
			ASSERT_EQ(f.loc_off[3], 32, "loc_off 3");
		}
		invariants_hold(&f, BASE, "dma_map_sg");
	}
	rc_tpformat__free(&f);

	test__start_subtest("rel_loc");
	ret = rc_tpformat__parse(&f, rel_loc_fmt, BASE, err, sizeof(err));
	if (ASSERT_OK(ret, err) && ASSERT_EQ(f.nfields, 5, "nfields")) {
		ASSERT_EQ(f.size, 28, "size");
		field_is(&f, 0, "x", 48, 4, 1, RC_FIELD_SINT, RC_HINT_NONE);
		field_is(&f, 1, "msg", 52, 1, 1, RC_FIELD_REL_LOC, RC_HINT_NONE);
		field_is(&f, 2, "vals", 56, 4, 1, RC_FIELD_REL_LOC, RC_HINT_HEX);
		field_is(&f, 3, "dev", 60, 1, 1, RC_FIELD_DATA_LOC, RC_HINT_NONE);
		/* as ipi:ipi_send_cpumask has it */
		field_is(&f, 4, "cpumask", 64, 8, 1, RC_FIELD_DATA_LOC, RC_HINT_HEX);
		if (ASSERT_EQ(f.nlocs, 4, "nlocs")) {
			ASSERT_EQ(f.loc_off[0], 12, "loc_off 0");
			ASSERT_EQ(f.loc_rel[0], 1, "loc_rel 0");
			ASSERT_EQ(f.loc_off[1], 16, "loc_off 1");
			ASSERT_EQ(f.loc_rel[1], 1, "loc_rel 1");
			ASSERT_EQ(f.loc_off[2], 20, "loc_off 2");
			ASSERT_EQ(f.loc_rel[2], 0, "loc_rel 2");
		}
		invariants_hold(&f, BASE, "rel_loc");
	}
	rc_tpformat__free(&f);

	test__start_subtest("too_many_locs");
	/* the BPF program copies RC_TP_MAX_LOCS; the others show their loc word */
	rc_strbuf__printf(&sb, "name: many_locs\nID: 9\nformat:\n" FT_COMMON);
	for (i = 0; i < RC_TP_MAX_LOCS + 2; i++)
		rc_strbuf__printf(
		    &sb, "\tfield:__data_loc char[] s%d;\toffset:%d;\tsize:4;\tsigned:0;\n", i,
		    8 + 4 * i);
	ret = rc_tpformat__parse(&f, sb.buf, BASE, err, sizeof(err));
	if (ASSERT_OK(ret, err) && ASSERT_EQ(f.nfields, RC_TP_MAX_LOCS + 2, "nfields")) {
		ASSERT_EQ(f.nlocs, RC_TP_MAX_LOCS, "nlocs");
		field_is(&f, RC_TP_MAX_LOCS - 1, "s7", BASE + 8 + 28, 1, 1, RC_FIELD_DATA_LOC,
			 RC_HINT_NONE);
		field_is(&f, RC_TP_MAX_LOCS, "s8", BASE + 8 + 32, 4, 1, RC_FIELD_UINT, RC_HINT_HEX);
		invariants_hold(&f, BASE, "many_locs");
	}
	rc_tpformat__free(&f);
	rc_strbuf__free(&sb);
}

void test_tpformat_parse_odd(void)
{
	struct rc_tpformat f;
	char err[256] = "";
	int ret;

	ret = rc_tpformat__parse(&f, odd_fmt, BASE, err, sizeof(err));
	if (!ASSERT_OK(ret, err))
		return;
	ASSERT_EQ(f.size, 152, "size: a flexible array ends it");
	if (ASSERT_EQ(f.nfields, 17, "nfields: the flexible array left out")) {
		field_is(&f, 0, "big", 48, 1, 16, RC_FIELD_UINT, RC_HINT_HEX);
		field_is(&f, 1, "key", 64, 1, 8, RC_FIELD_UINT, RC_HINT_HEX);
		field_is(&f, 2, "flag", 72, 1, 4, RC_FIELD_UINT, RC_HINT_HEX);
		field_is(&f, 3, "grid", 76, 1, 12, RC_FIELD_UINT, RC_HINT_HEX);
		field_is(&f, 4, "comm", 88, 16, 1, RC_FIELD_STR, RC_HINT_NONE);
		field_is(&f, 5, "mask", 104, 8, 2, RC_FIELD_UINT, RC_HINT_NONE);
		field_is(&f, 6, "pages", 120, 1, 8, RC_FIELD_UINT, RC_HINT_HEX);
		field_is(&f, 7, "ok", 128, 1, 1, RC_FIELD_UINT, RC_HINT_NONE);
		field_is(&f, 8, "mac", 129, 1, 6, RC_FIELD_UINT, RC_HINT_HEX);
		field_is(&f, 9, "deltas", 135, 1, 3, RC_FIELD_SINT, RC_HINT_NONE);
		field_is(&f, 10, "ptrs", 144, 8, 2, RC_FIELD_UINT, RC_HINT_HEX);
		field_is(&f, 11, "sdata", 160, 1, 1, RC_FIELD_DATA_LOC, RC_HINT_HEX);
		field_is(&f, 12, "ints", 164, 4, 1, RC_FIELD_DATA_LOC, RC_HINT_NONE);
		field_is(&f, 13, "foos", 168, 1, 1, RC_FIELD_DATA_LOC, RC_HINT_HEX);
		field_is(&f, 14, "cpumask", 172, 8, 1, RC_FIELD_DATA_LOC, RC_HINT_HEX);
		field_is(&f, 15, "odd3", 176, 1, 10, RC_FIELD_UINT, RC_HINT_HEX);
		field_is(&f, 16, "pid", 188, 4, 1, RC_FIELD_SINT, RC_HINT_NONE);
	}
	ASSERT_EQ(f.nlocs, 4, "nlocs");
	invariants_hold(&f, BASE, "odd");
	rc_tpformat__free(&f);
}

/* sched_switch's first lines, then @fields. */
static char *with_fields(const char *fields)
{
	struct rc_strbuf sb = {};

	rc_strbuf__printf(&sb, "name: t\nID: 1\nformat:\n" FT_COMMON "%s\nprint fmt: \"\"\n",
			  fields);
	return sb.buf;
}

static void expect_bad(const char *what, const char *text, uint16_t base, int expected,
		       const char *why)
{
	struct rc_tpformat f;
	char err[256] = "";
	int ret;

	memset(&f, 0xa5, sizeof(f)); /* need not be initialised */
	ret = rc_tpformat__parse(&f, text, base, err, sizeof(err));
	ASSERT_EQ(ret, expected, what);
	if (why)
		ASSERT_HAS(err, why, what);
	else
		ASSERT_TRUE(err[0], what);
	ASSERT_TRUE(!f.fields && !f.name && !f.text && !f.system && !f.nfields, what);
	rc_tpformat__free(&f);
}

static void expect_fields(const char *what, const char *fields, uint16_t base, int expected,
			  const char *why)
{
	char *text = with_fields(fields);
	struct rc_tpformat f;
	char err[256] = "";
	int ret;

	if (!expected) {
		ret = rc_tpformat__parse(&f, text, base, err, sizeof(err));
		if (ASSERT_OK(ret, what))
			invariants_hold(&f, base, what);
		rc_tpformat__free(&f);
	} else {
		expect_bad(what, text, base, expected, why);
	}
	free(text);
}

void test_tpformat_bad_input(void)
{
	struct rc_strbuf sb = {};
	struct rc_tpformat f;
	char name[300], *big;
	unsigned int i, seed = 1;
	int ret;

	test__start_subtest("not_a_format");
	expect_bad("empty", "", BASE, -EINVAL, "no 'name:' line");
	expect_bad("blank", "\n\n  \n", BASE, -EINVAL, "no 'name:' line");
	expect_bad("garbage", "hello world\n", BASE, -EINVAL, NULL);
	expect_bad("no ID", "name: t\nformat:\n" FT_COMMON, BASE, -EINVAL, "no 'ID:' line");
	expect_bad("no format", "name: t\nID: 3\n", BASE, -EINVAL, "no 'format:' line");
	expect_bad("no name", "ID: 3\nformat:\n" FT_COMMON, BASE, -EINVAL, "no 'name:' line");
	expect_bad("bad ID", "name: t\nID: 3x\nformat:\n", BASE, -EINVAL, "line 2: ID");
	expect_bad("ID 0", "name: t\nID: 0\nformat:\n", BASE, -EINVAL, "ID");
	expect_bad("huge ID", "name: t\nID: 99999999999\nformat:\n", BASE, -EINVAL, "ID");
	expect_bad("two IDs", "name: t\nID: 1\nID: 2\nformat:\n", BASE, -EINVAL, "second ID");
	expect_bad("empty name", "name: \nID: 1\nformat:\n", BASE, -EINVAL, "empty name");
	expect_bad("field first", "name: t\nID: 1\n" FT_COMMON "format:\n", BASE, -EINVAL,
		   "before the 'format:' line");
	expect_bad("not a field", "name: t\nID: 1\nformat:\n" FT_COMMON "\tjunk\n", BASE, -EINVAL,
		   "line 9: 'junk' is not a field");
	expect_bad("base", sched_switch_fmt, UINT16_MAX, -EINVAL, "header");

	test__start_subtest("bad_fields");
	expect_fields("no offset", "\tfield:int x;\tsize:4;\tsigned:1;\n", BASE, -EINVAL,
		      "without an offset");
	expect_fields("no size", "\tfield:int x;\toffset:8;\n", BASE, -EINVAL, "without");
	expect_fields("negative size", "\tfield:int x;\toffset:8;\tsize:-4;\tsigned:1;\n", BASE,
		      -EINVAL, "size '-4' is not a number");
	expect_fields("no colon", "\tfield:int x;\toffset 8;\tsize:4;\n", BASE, -EINVAL,
		      "not 'key:value'");
	expect_fields("no name", "\tfield:int;\toffset:8;\tsize:4;\tsigned:1;\n", BASE, -EINVAL,
		      "has no type");
	expect_fields("empty decl", "\tfield:;\toffset:8;\tsize:4;\tsigned:1;\n", BASE, -EINVAL,
		      "no field name");
	expect_fields("pointer, no name", "\tfield:void *;\toffset:8;\tsize:8;\n", BASE, -EINVAL,
		      "no field name");
	expect_fields("open array", "\tfield:int x[3;\toffset:8;\tsize:12;\n", BASE, -EINVAL,
		      "malformed array");
	expect_fields("text after array", "\tfield:int x[3]y;\toffset:8;\tsize:12;\n", BASE,
		      -EINVAL, "malformed array");
	expect_fields("twice",
		      "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n"
		      "\tfield:int x;\toffset:12;\tsize:4;\tsigned:1;\n",
		      BASE, -EINVAL, "field 'x' named twice");
	expect_fields("unknown key", "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\tnew:abc;\n",
		      BASE, 0, NULL);
	expect_fields("field special", "\tfield special:int x;\toffset:8;\tsize:4;\tsigned:1;\n",
		      BASE, 0, NULL);

	test__start_subtest("offsets");
	/* a record holds RC_REC_MAX bytes: header, raw record and all */
	expect_fields("fits", "\tfield:int x;\toffset:65484;\tsize:4;\tsigned:1;\n", BASE, 0, NULL);
	expect_fields("past the end", "\tfield:int x;\toffset:65485;\tsize:4;\tsigned:1;\n", BASE,
		      -EINVAL, "beyond a record's");
	expect_fields("fits with no base", "\tfield:int x;\toffset:65500;\tsize:4;\tsigned:1;\n", 0,
		      0, NULL);
	expect_fields("past u16", "\tfield:int x;\toffset:65536;\tsize:4;\tsigned:1;\n", 0, -EINVAL,
		      "beyond");
	expect_fields("past u32", "\tfield:int x;\toffset:4294967296;\tsize:4;\tsigned:1;\n", 0,
		      -EINVAL, "offset");
	expect_fields("huge size", "\tfield:char x[9];\toffset:8;\tsize:4294967295;\tsigned:0;\n",
		      BASE, -EINVAL, "beyond");
	expect_fields("common too", "\tfield:int common_x;\toffset:65530;\tsize:4;\tsigned:1;\n",
		      BASE, -EINVAL, "beyond");

	test__start_subtest("bounds");
	for (i = 0; i < RC_MAX_FIELDS; i++)
		rc_strbuf__printf(&sb, "\tfield:int f%u;\toffset:%u;\tsize:4;\tsigned:1;\n", i,
				  8 + 4 * i);
	expect_fields("most fields", sb.buf, BASE, 0, NULL);
	rc_strbuf__printf(&sb, "\tfield:int f%u;\toffset:%u;\tsize:4;\tsigned:1;\n", i, 8 + 4 * i);
	expect_fields("too many fields", sb.buf, BASE, -E2BIG, "more than 256 fields");
	rc_strbuf__free(&sb);

	memset(name, 'n', sizeof(name));
	snprintf(name + RC_MAX_NAME, sizeof(name) - RC_MAX_NAME,
		 ";\toffset:8;\tsize:4;\tsigned:1;\n");
	rc_strbuf__printf(&sb, "\tfield:int %s", name);
	expect_fields("longest name", sb.buf, BASE, 0, NULL);
	rc_strbuf__free(&sb);
	rc_strbuf__printf(&sb, "\tfield:int n%s", name);
	expect_fields("name too long", sb.buf, BASE, -EINVAL, "longer than 255");
	rc_strbuf__free(&sb);

	rc_strbuf__printf(&sb, "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;");
	for (i = 0; i < 200; i++)
		rc_strbuf__printf(&sb, "\tpad:%u;", i);
	expect_fields("line too long", sb.buf, BASE, -EINVAL, "field line longer");
	rc_strbuf__free(&sb);

	rc_strbuf__printf(&sb, "name: %s", name);
	expect_bad("event name too long", sb.buf, BASE, -EINVAL, "name");
	rc_strbuf__free(&sb);

	big = malloc(RC_TP_MAX_TEXT + 2);
	if (ASSERT_OK_PTR(big, "malloc")) {
		memset(big, ' ', RC_TP_MAX_TEXT + 1);
		memcpy(big, sched_switch_fmt, strlen(sched_switch_fmt));
		big[RC_TP_MAX_TEXT + 1] = '\0';
		expect_bad("text too long", big, BASE, -E2BIG, "longer than");
		big[RC_TP_MAX_TEXT] = '\0'; /* the longest taken */
		ret = rc_tpformat__parse(&f, big, BASE, NULL, 0);
		ASSERT_OK(ret, "longest text");
		rc_tpformat__free(&f);
	}
	free(big);

	test__start_subtest("binary");
	/* random bytes: refused, never a crash (run under ASan: make check) */
	big = malloc(4097);
	for (i = 0; big && i < 200; i++) {
		unsigned int j;

		for (j = 0; j < 4096; j++)
			big[j] = 1 + rand_r(&seed) % 255;
		big[4096] = '\0';
		ret = rc_tpformat__parse(&f, big, BASE, NULL, 0);
		ASSERT_EQ(ret, -EINVAL, "random bytes");
		rc_tpformat__free(&f);
	}
	free(big);
}

/* Parse @text; a success must hold up, a failure must say why. */
static bool parses_or_refuses(const char *text, const char *what)
{
	struct rc_tpformat f;
	char err[256] = "";
	bool ok;
	int ret;

	ret = rc_tpformat__parse(&f, text, BASE, err, sizeof(err));
	if (!ret)
		ok = invariants_hold(&f, BASE, what);
	else
		ok = ASSERT_TRUE(ret == -EINVAL && err[0], what);
	rc_tpformat__free(&f);
	return ok;
}

void test_tpformat_mangled(void)
{
	static const char *const texts[] = { sched_switch_fmt, dma_map_sg_fmt, odd_fmt,
					     rel_loc_fmt };
	static const char subst[] = ";:[]* \n\t9x_";
	char *buf, what[64];
	size_t t, i, j, len;

	for (t = 0; t < ARRAY_SIZE(texts); t++) {
		len = strlen(texts[t]);
		buf = malloc(len + 1);
		if (!ASSERT_OK_PTR(buf, "malloc"))
			return;
		/* every prefix: a file read while it changed, or cut short */
		for (i = 0; i <= len; i++) {
			memcpy(buf, texts[t], i);
			buf[i] = '\0';
			snprintf(what, sizeof(what), "text %zu cut at %zu", t, i);
			if (!parses_or_refuses(buf, what))
				break;
		}
		/* every byte replaced by each of a few that matter to the parser */
		memcpy(buf, texts[t], len + 1);
		for (i = 0; i < len; i++) {
			char c = buf[i];

			for (j = 0; j < sizeof(subst) - 1; j++) {
				buf[i] = subst[j];
				snprintf(what, sizeof(what), "text %zu, byte %zu as '%c'", t, i,
					 subst[j]);
				if (!parses_or_refuses(buf, what))
					goto next;
			}
			buf[i] = c;
		}
	next:
		free(buf);
	}
}

/* ---- the running kernel's tracefs --------------------------------------- */

/*
 * ringcap's tracefs: found, or mounted, by ringcap. Without root, skipped;
 * as root, where tracefs is mounted or the kernel has one to mount
 * (/proc/filesystems), ringcap's failure to find it or read it fails.
 */
static const char *tracefs_or_skip(void)
{
	const char *dir;
	char path[512];

	if (geteuid() != 0) {
		test__skip("tracefs needs root to mount it and read its events: run the tests "
			   "as root");
		return NULL;
	}
	if (!tracefs_mounted() && system("grep -qw tracefs /proc/filesystems")) {
		test__skip("this kernel has no tracefs");
		return NULL;
	}
	dir = rc_tracefs();
	if (!ASSERT_OK_PTR(dir, "ringcap finds or mounts tracefs"))
		return NULL;
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format", dir);
	if (!ASSERT_OK(access(path, R_OK), "its events readable"))
		return NULL;
	return dir;
}

struct walk {
	const char *tracefs;
	unsigned int n, bad, nfields, nlocs, nbytes;
	char last_sys[256], last_name[256];
};

/* The id file's number, or 0. */
static unsigned long read_id(const char *tracefs, const char *sys, const char *name)
{
	char path[1024];
	unsigned long id = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, sys, name);
	fp = fopen(path, "re");
	if (fp) {
		if (fscanf(fp, "%lu", &id) != 1)
			id = 0;
		fclose(fp);
	}
	return id;
}

static int load_one(const char *sys, const char *name, void *ctx)
{
	struct walk *w = ctx;
	struct rc_tpformat f;
	char err[256] = "", what[600];
	uint16_t i;
	int ret, cmp;

	snprintf(what, sizeof(what), "%s:%s", sys, name);
	/* sorted by system, then name; no repeats */
	cmp = strcmp(w->last_sys, sys) ?: strcmp(w->last_name, name);
	if (w->n)
		ASSERT_LT(cmp, 0, what);
	snprintf(w->last_sys, sizeof(w->last_sys), "%s", sys);
	snprintf(w->last_name, sizeof(w->last_name), "%s", name);
	w->n++;
	ret = rc_tpformat__load(&f, sys, name, BASE, err, sizeof(err));
	if (!ASSERT_OK(ret, what)) {
		printf("    %s: %s\n", what, err);
		w->bad++;
		return 0;
	}
	ASSERT_STREQ(f.system, sys, what);
	ASSERT_STREQ(f.name, name, what);
	ASSERT_EQ(f.id, read_id(w->tracefs, sys, name), what);
	ASSERT_TRUE(f.size >= 8, what); /* common_* */
	if (!invariants_hold(&f, BASE, what))
		w->bad++;
	w->nfields += f.nfields;
	w->nlocs += f.nlocs;
	for (i = 0; i < f.nfields; i++)
		w->nbytes += f.fields[i].hint == RC_HINT_HEX && f.fields[i].size == 1 &&
			     f.fields[i].kind == RC_FIELD_UINT;
	rc_tpformat__free(&f);
	return 0;
}

void test_tpformat_all_events(void)
{
	struct walk w = {};
	char pat[1024];
	glob_t g = {};
	size_t i, n = 0;
	int ret;

	w.tracefs = tracefs_or_skip();
	if (!w.tracefs)
		return;

	test__start_subtest("every_tracepoint");
	ret = rc_tracefs__glob("*:*", load_one, &w);
	ASSERT_EQ(ret, w.n, "count");
	ASSERT_EQ(w.bad, 0, "events that fail");
	ASSERT_TRUE(w.n > 100, "a kernel has hundreds of tracepoints");
	printf("    %u tracepoints, %u fields, %u variable-length, %u byte arrays\n", w.n,
	       w.nfields, w.nlocs, w.nbytes);
	/* the same set as a shell glob of the enable files sees */
	snprintf(pat, sizeof(pat), "%s/events/*/*/enable", w.tracefs);
	if (ASSERT_OK(glob(pat, 0, NULL, &g), "glob"))
		for (i = 0; i < g.gl_pathc; i++) {
			char *p = g.gl_pathv[i];

			/* events/SYS/NAME/enable with a format */
			strcpy(strrchr(p, '/'), "/format");
			n += !access(p, F_OK);
		}
	ASSERT_EQ(w.n, n, "tracepoints with an enable file");
	globfree(&g);

	test__start_subtest("ftrace_formats");
	/* not tracepoints, not globbed, but their formats parse too */
	{
		struct rc_tpformat f;
		struct dirent *de;
		char dir[1024], err[256];
		DIR *d;

		snprintf(dir, sizeof(dir), "%s/events/ftrace", w.tracefs);
		d = opendir(dir);
		if (!d) {
			test__skip("no events/ftrace");
			return;
		}
		n = 0;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			ret = rc_tpformat__load(&f, "ftrace", de->d_name, BASE, err, sizeof(err));
			if (ASSERT_OK(ret, de->d_name))
				invariants_hold(&f, BASE, de->d_name);
			else
				printf("    ftrace:%s: %s\n", de->d_name, err);
			rc_tpformat__free(&f);
			n++;
		}
		closedir(d);
		ASSERT_TRUE(n > 0, "ftrace events");
	}
}

struct names {
	unsigned int n;
	char list[64][600];
	int stop_after;
};

static int collect(const char *sys, const char *name, void *ctx)
{
	struct names *nm = ctx;

	if (nm->n < ARRAY_SIZE(nm->list))
		snprintf(nm->list[nm->n], sizeof(nm->list[0]), "%s:%s", sys, name);
	nm->n++;
	if (nm->stop_after && nm->n == (unsigned int)nm->stop_after)
		return -ECANCELED;
	return 1; /* positive: go on */
}

void test_tpformat_glob(void)
{
	struct names *nm = calloc(1, sizeof(*nm));
	unsigned int i;
	int ret;

	if (!ASSERT_OK_PTR(nm, "calloc") || !tracefs_or_skip())
		goto out;

	test__start_subtest("exact_prefix");
	ret = rc_tracefs__glob("sched:sched_swi*", collect, nm);
	if (ASSERT_EQ(ret, 1, "sched:sched_swi*"))
		ASSERT_STREQ(nm->list[0], "sched:sched_switch", "match");
	/* sched_swap_numa too, on a kernel with NUMA balancing */
	memset(nm, 0, sizeof(*nm));
	ret = rc_tracefs__glob("sched:sched_sw*", collect, nm);
	if (ASSERT_TRUE(ret >= 1 && ret <= (int)ARRAY_SIZE(nm->list), "sched:sched_sw*"))
		ASSERT_STREQ(nm->list[ret - 1], "sched:sched_switch", "sorted last");
	for (i = 0; i < nm->n && i < ARRAY_SIZE(nm->list); i++)
		ASSERT_TRUE(!strncmp(nm->list[i], "sched:sched_sw", 14), nm->list[i]);

	test__start_subtest("system");
	memset(nm, 0, sizeof(*nm));
	ret = rc_tracefs__glob("signal", collect, nm);
	ASSERT_EQ(ret, 2, "signal");
	ASSERT_EQ(nm->n, 2, "calls");
	ASSERT_STREQ(nm->list[0], "signal:signal_deliver", "sorted");
	ASSERT_STREQ(nm->list[1], "signal:signal_generate", "sorted");
	memset(nm, 0, sizeof(*nm));
	ret = rc_tracefs__glob("signal:*", collect, nm);
	ASSERT_EQ(ret, 2, "signal:*");

	test__start_subtest("event_name");
	/* no system is named so: an event in any system */
	memset(nm, 0, sizeof(*nm));
	ret = rc_tracefs__glob("sched_switch", collect, nm);
	if (ASSERT_EQ(ret, 1, "sched_switch"))
		ASSERT_STREQ(nm->list[0], "sched:sched_switch", "match");
	memset(nm, 0, sizeof(*nm));
	ret = rc_tracefs__glob("sys_enter_open*", collect, nm);
	ASSERT_TRUE(ret >= 2, "sys_enter_open*");
	for (i = 0; i < nm->n && i < ARRAY_SIZE(nm->list); i++)
		ASSERT_TRUE(!strncmp(nm->list[i], "syscalls:sys_enter_open", 23), nm->list[i]);
	memset(nm, 0, sizeof(*nm));
	ret = rc_tracefs__glob("*:irq_handler_entry", collect, nm);
	if (ASSERT_EQ(ret, 1, "*:irq_handler_entry"))
		ASSERT_STREQ(nm->list[0], "irq:irq_handler_entry", "match");

	test__start_subtest("no_match");
	memset(nm, 0, sizeof(*nm));
	ASSERT_EQ(rc_tracefs__glob("nonexistent:*", collect, nm), 0, "nonexistent:*");
	ASSERT_EQ(rc_tracefs__glob("nonexistent", collect, nm), 0, "nonexistent");
	ASSERT_EQ(rc_tracefs__glob("sched:nonexistent", collect, nm), 0, "sched:nonexistent");
	ASSERT_EQ(rc_tracefs__glob("ftrace:*", collect, nm), 0, "ftrace: not tracepoints");
	ASSERT_EQ(rc_tracefs__glob("sched:sched_switch:x", collect, nm), 0, "two colons");
	ASSERT_EQ(rc_tracefs__glob("../sched:*", collect, nm), 0, "a path");
	ASSERT_EQ(nm->n, 0, "no calls");
	ASSERT_EQ(rc_tracefs__glob("", collect, nm), -EINVAL, "empty");
	ASSERT_EQ(rc_tracefs__glob(":", collect, nm), -EINVAL, "':'");
	ASSERT_EQ(rc_tracefs__glob("sched:", collect, nm), -EINVAL, "no event");
	ASSERT_EQ(rc_tracefs__glob(":sched_switch", collect, nm), -EINVAL, "no system");

	test__start_subtest("stop");
	memset(nm, 0, sizeof(*nm));
	nm->stop_after = 3;
	ASSERT_EQ(rc_tracefs__glob("sched:*", collect, nm), -ECANCELED, "the callback's error");
	ASSERT_EQ(nm->n, 3, "calls");
out:
	free(nm);
}

void test_tpformat_load(void)
{
	struct rc_tpformat f;
	char err[256], *text = NULL;
	int ret;

	if (!tracefs_or_skip())
		return;

	test__start_subtest("read_format");
	ret = rc_tracefs__read_format("sched", "sched_switch", &text);
	if (ASSERT_OK(ret, "read") && ASSERT_OK_PTR(text, "text")) {
		ASSERT_TRUE(!strncmp(text, "name: sched_switch\nID: ", 23), "starts");
		ASSERT_HAS(text, "\tfield:char prev_comm[16];", "prev_comm");
		ASSERT_HAS(text, "print fmt: ", "to the end");
	}
	free(text);
	ASSERT_EQ(rc_tracefs__read_format("sched", "nonexistent", &text), -ENOENT, "no event");
	ASSERT_TRUE(text == NULL, "no text");
	ASSERT_EQ(rc_tracefs__read_format("..", "sched", &text), -EINVAL, "..");
	ASSERT_EQ(rc_tracefs__read_format("sched/../sched", "sched_switch", &text), -EINVAL, "/");
	ASSERT_EQ(rc_tracefs__read_format("", "sched_switch", &text), -EINVAL, "empty");

	test__start_subtest("load");
	ret = rc_tpformat__load(&f, "block", "block_rq_issue", BASE, err, sizeof(err));
	if (ASSERT_OK(ret, err)) {
		const struct rc_field *fld;
		struct rc_event_desc ev = { .nfields = f.nfields, .fields = f.fields };

		ASSERT_STREQ(f.system, "block", "system");
		ASSERT_STREQ(f.name, "block_rq_issue", "name");
		/* a field named as the record header's comm: kept, the kernel's name */
		fld = rc_event__field(&ev, "comm");
		if (ASSERT_OK_PTR(fld, "comm"))
			ASSERT_EQ(fld->kind, RC_FIELD_STR, "comm is a string");
		fld = rc_event__field(&ev, "cmd");
		if (ASSERT_OK_PTR(fld, "cmd"))
			ASSERT_EQ(fld->kind, RC_FIELD_DATA_LOC, "cmd");
		ASSERT_EQ(f.nlocs, 1, "nlocs");
		invariants_hold(&f, BASE, "block_rq_issue");
	}
	rc_tpformat__free(&f);
	err[0] = '\0';
	ret = rc_tpformat__load(&f, "sched", "nonexistent", BASE, err, sizeof(err));
	ASSERT_EQ(ret, -ENOENT, "no such event");
	ASSERT_STREQ(err, "no tracepoint sched:nonexistent", "message");
	ASSERT_TRUE(!f.name && !f.system && !f.fields, "empty");
	ret = rc_tpformat__load(&f, "a/b", "c", BASE, err, sizeof(err));
	ASSERT_EQ(ret, -EINVAL, "a path");
	rc_tpformat__free(&f);
}

#define SC_HEAD                                                                                    \
	"name: sys_enter_x\nID: 1\nformat:\n"                                                     \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                  \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                  \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"          \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"                              \
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
#define SC_ARG(t, n, off) "\tfield:" t " " n ";\toffset:" #off ";\tsize:8;\tsigned:0;\n"
#define SC_TAIL "\nprint fmt: \"\"\n"

/*
 * A syscall's arguments, as record -e syscalls counts them: the 8-byte
 * fields in line after __syscall_nr, and not what follows them (Linux
 * 6.19's copy of a user string, a __data_loc)
 */
void test_tpformat_syscall_nargs(void)
{
	static const struct {
		const char *what, *text;
		int want;
	} cases[] = {
		{ "getppid: none", SC_HEAD SC_TAIL, 0 },
		{ "read: three",
		  SC_HEAD SC_ARG("unsigned int", "fd", 16) SC_ARG("char *", "buf", 24)
		      SC_ARG("size_t", "count", 32) SC_TAIL,
		  3 },
		{ "openat of 6.19: four, its filename's copy not an argument",
		  SC_HEAD SC_ARG("int", "dfd", 16) SC_ARG("const char *", "filename", 24)
		      SC_ARG("int", "flags", 32) SC_ARG("umode_t", "mode", 40)
		  "\tfield:__data_loc char[] __filename_val;\toffset:48;\tsize:4;\tsigned:0;\n" SC_TAIL,
		  4 },
		{ "mmap: six",
		  SC_HEAD SC_ARG("unsigned long", "addr", 16) SC_ARG("unsigned long", "len", 24)
		      SC_ARG("unsigned long", "prot", 32) SC_ARG("unsigned long", "flags", 40)
			  SC_ARG("unsigned long", "fd", 48) SC_ARG("unsigned long", "off", 56) SC_TAIL,
		  6 },
		{ "seven: not a syscall's",
		  SC_HEAD SC_ARG("long", "a", 16) SC_ARG("long", "b", 24) SC_ARG("long", "c", 32)
		      SC_ARG("long", "d", 40) SC_ARG("long", "e", 48) SC_ARG("long", "f", 56)
			  SC_ARG("long", "g", 64) SC_TAIL,
		  -1 },
		{ "a gap: the fields before it",
		  SC_HEAD SC_ARG("long", "a", 16) SC_ARG("long", "b", 32) SC_TAIL, 1 },
		{ "cut before the print fmt", SC_HEAD SC_ARG("long", "a", 16), -1 },
		{ "no __syscall_nr", "name: x\nformat:\n" SC_TAIL, -1 },
		{ "empty", "", -1 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ASSERT_EQ(rc_tpformat__syscall_nargs(cases[i].text), cases[i].want, cases[i].what);
}
