// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's types an object's CO-RE relocations need
 * (rc_kbtf__write_core()), against libbpf's parse of the whole: the same
 * sizes, member offsets and enumerator values, and no pointer looked
 * behind. Host only: the guests' loads show the rest (every record test
 * relocates against it).
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "capture/session.h"
#include "run_util.h"
#include "test_progs.h"

/* @name's member @member in struct @id of @btf: its bit offset, -1 when absent */
static long member_off(const struct btf *btf, int id, const char *member)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m = btf_members(t);
	__u16 i;

	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member))
			return btf_member_bit_offset(t, i);
	return -1;
}

static long long enum_val(const struct btf *btf, int id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_enum *e = btf_enum(t);
	__u16 i;

	for (i = 0; i < btf_vlen(t); i++, e++)
		if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
			return e->val;
	return -1;
}

void test_core_btf(void)
{
	struct btf *local = NULL, *sub = NULL, *whole = NULL;
	struct rc_kbtf *k = NULL;
	struct rc_features f;
	char path[64];
	struct stat st, vst;
	int fd = -1, ws, ss, ptrs = 0;
	__u32 i;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		test__skip("no /sys/kernel/btf/vmlinux");
		return;
	}
	if (!ASSERT_OK(rc_features__probe_keep(&f, &k), "probe") || !ASSERT_TRUE(k, "kept"))
		goto out;
	/* what a program names: a flavour of task_struct, an enum, a typedef */
	local = btf__new_empty();
	if (!ASSERT_TRUE(local, "local btf"))
		goto out;
	btf__add_struct(local, "task_struct___flavour", 0);
	btf__add_enum(local, "bpf_func_id", 4);
	btf__add_typedef(local, "pid_t", 0);
	fd = memfd_create("core", MFD_CLOEXEC);
	if (!ASSERT_TRUE(fd > 0, "memfd"))
		goto out;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!ASSERT_OK(rc_kbtf__write_core(k, local, fd), "write core"))
		goto out;
	sub = btf__parse(path, NULL);
	whole = btf__load_vmlinux_btf();
	if (!ASSERT_TRUE(sub, "parse subset") || !ASSERT_TRUE(whole, "parse whole"))
		goto out;
	/* a few hundred types of the 100k and more */
	ASSERT_LT(btf__type_cnt(sub) * 20, btf__type_cnt(whole), "a small part");
	ws = btf__find_by_name_kind(whole, "task_struct", BTF_KIND_STRUCT);
	ss = btf__find_by_name_kind(sub, "task_struct", BTF_KIND_STRUCT);
	if (!ASSERT_TRUE(ws > 0 && ss > 0, "task_struct"))
		goto out;
	ASSERT_EQ(btf__resolve_size(sub, ss), btf__resolve_size(whole, ws), "its size");
	ASSERT_EQ(btf_vlen(btf__type_by_id(sub, ss)), btf_vlen(btf__type_by_id(whole, ws)),
		  "all its members");
	ASSERT_EQ(member_off(sub, ss, "tgid"), member_off(whole, ws, "tgid"), "tgid");
	ASSERT_EQ(member_off(sub, ss, "comm"), member_off(whole, ws, "comm"), "comm");
	ASSERT_TRUE(member_off(sub, ss, "tgid") > 0, "tgid found");
	/* held by value: thread_info whole, with its members */
	ws = btf__find_by_name_kind(whole, "thread_info", BTF_KIND_STRUCT);
	ss = btf__find_by_name_kind(sub, "thread_info", BTF_KIND_STRUCT);
	if (ASSERT_TRUE(ws > 0 && ss > 0, "thread_info"))
		ASSERT_EQ(btf__resolve_size(sub, ss), btf__resolve_size(whole, ws), "its size");
	ws = btf__find_by_name_kind(whole, "bpf_func_id", BTF_KIND_ENUM);
	ss = btf__find_by_name_kind(sub, "bpf_func_id", BTF_KIND_ENUM);
	if (ASSERT_TRUE(ws > 0 && ss > 0, "bpf_func_id"))
		ASSERT_EQ(enum_val(sub, ss, "BPF_FUNC_get_current_task_btf"),
			  enum_val(whole, ws, "BPF_FUNC_get_current_task_btf"), "an enumerator");
	ASSERT_TRUE(btf__find_by_name_kind(sub, "pid_t", BTF_KIND_TYPEDEF) > 0, "pid_t");
	/* pointers made void *: nothing behind them came along */
	for (i = 1; i < btf__type_cnt(sub); i++) {
		const struct btf_type *t = btf__type_by_id(sub, i);

		if (btf_is_ptr(t)) {
			ptrs++;
			ASSERT_EQ(t->type, 0, "void *");
		}
	}
	ASSERT_TRUE(ptrs > 0, "pointers kept");
	ASSERT_TRUE(btf__find_by_name_kind(sub, "mm_struct", BTF_KIND_STRUCT) < 0,
		    "mm_struct only pointed to");
	/* the fallback: the whole of it */
	if (ASSERT_OK(rc_kbtf__write_whole(k, fd), "write whole") && ASSERT_OK(fstat(fd, &st), "stat") &&
	    ASSERT_OK(stat("/sys/kernel/btf/vmlinux", &vst), "stat vmlinux"))
		ASSERT_EQ((long long)st.st_size, (long long)vst.st_size, "whole size");
out:
	btf__free(whole);
	btf__free(sub);
	btf__free(local);
	rc_kbtf__free(k);
	if (fd >= 0)
		close(fd);
}

/*
 * The types the BTF tracepoint programs load against, from the walk
 * (rc_kbtf__trace_id()): libbpf's, by its own parse. And a recording
 * that loads every such program of ringcap's has libbpf parse none of
 * the kernel's BTF: its log (-vv) says when it does.
 */
void test_core_btf_trace_ids(void)
{
	static const char *const tps[] = { "sys_enter",		 "sys_exit",
					   "sched_switch",	 "sched_wakeup",
					   "sched_process_fork", "sched_process_exec",
					   "sched_process_exit" };
	const char *out = tmpfile_path("tp.rcap");
	struct btf *whole = NULL;
	struct rc_kbtf *k = NULL;
	struct run r = {};
	struct rc_features f;
	char name[64];
	size_t i;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		test__skip("no /sys/kernel/btf/vmlinux");
		return;
	}
	if (!ASSERT_OK(rc_features__probe_keep(&f, &k), "probe") || !ASSERT_TRUE(k, "kept"))
		goto out;
	whole = btf__load_vmlinux_btf();
	if (!ASSERT_TRUE(whole, "parse whole"))
		goto out;
	for (i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		snprintf(name, sizeof(name), "btf_trace_%s", tps[i]);
		ASSERT_EQ(rc_kbtf__trace_id(k, tps[i]),
			  btf__find_by_name_kind(whole, name, BTF_KIND_TYPEDEF), tps[i]);
	}
	ASSERT_EQ(rc_kbtf__trace_id(k, "sched_nonesuch"), -ENOENT, "not one of them");
	ASSERT_EQ(rc_kbtf__trace_id(NULL, "sys_enter"), -ENOENT, "no walk");
	if (!need_root())
		goto out;
	/* syscalls.bpf.c, sched.bpf.c, offcpu.bpf.c, and dyn.bpf.c with follow's programs */
	if (!ASSERT_EQ(run_sync(&r,
				(char *[]){ (char *)bin("ringcap"), "record", "-vv", "-e",
					    "syscalls,sched,syscalls:sys_enter_getppid",
					    "--off-cpu", "-o", (char *)out, "--", "true", NULL },
				60000),
		       0, "record"))
		goto out;
	ASSERT_TRUE(strstr(r.err, "CO-RE relocating"), "libbpf's log");
	ASSERT_TRUE(strstr(r.err, "handle_follow_fork"), "follow's programs");
	ASSERT_TRUE(!strstr(r.err, "loading kernel BTF"), "no parse of the kernel's BTF by libbpf");
out:
	run_free(&r);
	tmpdir_cleanup();
	btf__free(whole);
	rc_kbtf__free(k);
}
