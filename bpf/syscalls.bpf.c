// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "syscalls" source: entry and exit paired into one record carrying the
 * number, the six arguments, the return value and the duration.
 *
 * Entry state lives in task-local storage, so it follows a thread across
 * CPUs and dies with it. A syscall already in progress when the capture
 * starts has no entry state, and its exit is not recorded.
 *
 * The compat object (RC_COMPAT: kernels before 5.11, without task
 * storage) keeps it in a hash map instead, by the task's address, not its
 * tid: a thread that execs in a multi-threaded process takes the leader's
 * tid inside the call (de_thread()), and its exit must still find its
 * entry. The entry is made at sys_enter and deleted at sys_exit, so the
 * map holds the calls in progress only; every call that enters passes
 * sys_exit (a killed thread's on its way out), but for exit and
 * exit_group, which make no entry. A call that finds the map full
 * (RC_PENDING_MAX calls in progress at once, in scope) is counted made
 * and dropped: its record is lost, and the ledger says so.
 */
#include "common.bpf.h"

#if defined(__TARGET_ARCH_x86)
#define RC_NR_EXIT	 60
#define RC_NR_EXIT_GROUP 231
#elif defined(__TARGET_ARCH_arm64)
#define RC_NR_EXIT	 93
#define RC_NR_EXIT_GROUP 94
#else
#define RC_NR_EXIT	 -1
#define RC_NR_EXIT_GROUP -1
#endif

/* a 32-bit task's (RC_SYSCALL_F_COMPAT): i386's numbers; arm32's */
#if defined(__TARGET_ARCH_x86)
#define RC_NR32_EXIT	   1
#define RC_NR32_EXIT_GROUP 252
#elif defined(__TARGET_ARCH_arm64)
#define RC_NR32_EXIT	   1
#define RC_NR32_EXIT_GROUP 248
#else
#define RC_NR32_EXIT	   -1
#define RC_NR32_EXIT_GROUP -1
#endif

/* exit or exit_group, of the table @flags say: they never return */
static __always_inline bool sc_noreturn(long id, __u16 flags)
{
	if (flags & RC_SYSCALL_F_COMPAT)
		return id == RC_NR32_EXIT || id == RC_NR32_EXIT_GROUP;
	return id == RC_NR_EXIT || id == RC_NR_EXIT_GROUP;
}

/*
 * A call's six arguments, as syscall_get_arguments() reads them: a 32-bit
 * task's on x86 from i386's registers (bx, cx, dx, si, di, bp); arm64's
 * 32-bit tasks pass theirs in the registers its own do
 */
static __always_inline void sc_args(__u64 *args, struct pt_regs *regs, __u16 flags)
{
#if defined(__TARGET_ARCH_x86)
	if (flags & RC_SYSCALL_F_COMPAT) {
		args[0] = regs->bx;
		args[1] = regs->cx;
		args[2] = regs->dx;
		args[3] = regs->si;
		args[4] = regs->di;
		args[5] = regs->bp;
		return;
	}
#endif
	rc_syscall_args(args, regs);
}

struct pending_call {
	__u64 ts;
	__s32 nr;    /* -1: nothing pending */
	__u32 flags; /* the record's: RC_SYSCALL_F_COMPAT */
	__u64 args[RC_SYSCALL_NARGS];
#ifdef RC_COMPAT
	/*
	 * The process that made the entry. The map is keyed by the task's
	 * address, which the kernel gives a new task once the old one is
	 * freed: an entry a call left that never reached sys_exit (a 32-bit
	 * task's exit, before sc_noreturn() knew its numbers) must not pair
	 * with the new task's first sys_exit (ret_from_fork's). Not the
	 * thread id: a thread that execs takes its leader's in the middle
	 * of the call.
	 */
	__u64 tgid;
#endif
};

#ifndef RC_COMPAT
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct pending_call);
} pending SEC(".maps");
#else
/* Preallocated: nothing allocated at sys_enter. ringcap-record(1), KERNELS. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RC_PENDING_MAX);
	__type(key, __u64); /* the task's address */
	__type(value, struct pending_call);
} pending SEC(".maps");
#endif

#ifndef RC_COMPAT
/* sys_enter's entry state, in the task's storage */
static __always_inline int enter_call(struct task_struct *cur, struct pt_regs *regs, long id,
				      __u16 flags)
{
	struct pending_call *p;

	p = bpf_task_storage_get(&pending, cur, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!p)
		return 0;
	sc_args(p->args, regs, flags);
	p->flags = flags;
	p->nr = id;
	p->ts = bpf_ktime_get_boot_ns();
	return 0;
}
#else
/* sys_enter's entry in the pending map; a full map loses the call, counted. */
static __always_inline int enter_call(struct task_struct *cur, struct pt_regs *regs, long id,
				      __u16 flags)
{
	__u64 key = (__u64)cur;
	struct pending_call p;
	struct rc_bpf_stats *st;

	sc_args(p.args, regs, flags);
	p.flags = flags;
	p.nr = id;
	p.ts = bpf_ktime_get_boot_ns();
	p.tgid = bpf_get_current_pid_tgid() >> 32;
	if (!bpf_map_update_elem(&pending, &key, &p, BPF_ANY))
		return 0;
	st = rc_stats();
	if (st) {
		st->made[RC_EV_SYSCALL]++;
		rc_count_drop(st, RC_EV_SYSCALL);
	}
	return 0;
}
#endif

/* exit and exit_group never return: record them at entry. */
static __always_inline void emit_noreturn(void *ctx, struct task_struct *cur,
					  struct pt_regs *regs, long id, __u16 flags)
{
	struct rc_bpf_stats *st = rc_stats();
	struct rc_ev_syscall *e;

	if (!st)
		return;
	e = rc_reserve(st, RC_EV_SYSCALL, sizeof(*e));
	if (!e) {
		rc_dropped(st, RC_EV_SYSCALL);
		return;
	}
	rc_fill_hdr(&e->hdr, cur, RC_EV_SYSCALL, sizeof(*e));
	e->hdr.flags = RC_SYSCALL_F_NORETURN | flags;
	e->nr = id;
	e->__pad = 0;
	e->ret = 0;
	e->duration = 0;
	sc_args(e->args, regs, flags);
	rc_submit(ctx, st, e, sizeof(*e));
}

/* rc_tp_btf: tp_btf, loaded by user space's handler (sched.bpf.c says why) */
SEC("rc_tp_btf/sys_enter")
int BPF_PROG(handle_sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *cur = rc_current();
	__u16 flags;

	if (!rc_task_wanted(cur)) {
		struct rc_bpf_stats *st = rc_stats();

		return st ? rc_filtered(st, RC_EV_SYSCALL) : 0;
	}
	flags = in_compat_syscall(cur, regs) ? RC_SYSCALL_F_COMPAT : 0;
	if (sc_noreturn(id, flags)) {
		emit_noreturn(ctx, cur, regs, id, flags);
		return 0;
	}
	return enter_call(cur, regs, id, flags);
}

/* The record of a call that returns @ret, from its entry state @p. */
static __always_inline void emit_call(void *ctx, struct rc_bpf_stats *st, struct task_struct *cur,
				      const struct pending_call *p, long ret)
{
	struct rc_ev_syscall *e;

	e = rc_reserve(st, RC_EV_SYSCALL, sizeof(*e));
	if (!e) {
		rc_dropped(st, RC_EV_SYSCALL);
		return;
	}
	rc_fill_hdr(&e->hdr, cur, RC_EV_SYSCALL, sizeof(*e));
	e->hdr.flags = (__u16)p->flags;
	e->nr = p->nr;
	e->__pad = 0;
	e->ret = ret;
	e->duration = e->hdr.ts - p->ts;
	__builtin_memcpy(e->args, p->args, sizeof(e->args));
	rc_submit(ctx, st, e, sizeof(*e));
}

SEC("rc_tp_btf/sys_exit")
int BPF_PROG(handle_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *cur = rc_current();
	struct rc_bpf_stats *st;
	struct pending_call *p;

#ifndef RC_COMPAT
	p = bpf_task_storage_get(&pending, cur, NULL, 0);
#else
	__u64 key = (__u64)cur;

	p = bpf_map_lookup_elem(&pending, &key);
	if (p && p->tgid != bpf_get_current_pid_tgid() >> 32) {
		bpf_map_delete_elem(&pending, &key); /* another task's, left at this address */
		return 0;
	}
#endif
	if (!p || p->nr < 0)
		return 0;
	st = rc_stats();
	if (st)
		emit_call(ctx, st, cur, p, ret);
	p->nr = -1;
#ifdef RC_COMPAT
	bpf_map_delete_elem(&pending, &key); /* the map holds calls in progress only */
#endif
	return 0;
}
