// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "sched" source: sched_switch, sched_wakeup, sched_process_fork,
 * sched_process_exec and sched_process_exit, from BTF tracepoints.
 *
 * An event is in scope when the task it is about is: either side of a
 * switch, the woken task, the parent of a fork. ringcap's own threads are
 * out of scope on every side, so its wake-ups never feed its own ring.
 * The other task's name is two loads from its task_struct, a BTF pointer
 * (rc_comm_words()), not bpf_probe_read_kernel(), a helper call.
 *
 * SEC("rc_tp_btf/NAME"): a tp_btf program, which user space loads against
 * the kernel's type it already knows, without libbpf's parse of all the
 * kernel's BTF (lib/capture/bpf/load.c, tp_btf_prepare()).
 */
#include "common.bpf.h"

#define TASK_REPORT	     0x7f
#define TASK_UNINTERRUPTIBLE 0x2
#define TASK_NOLOAD	     0x400
#define TASK_REPORT_IDLE     0x80

static __always_inline bool task_is_self(struct task_struct *t)
{
	return RC_TASK(t, tgid) == knobs.self_tgid;
}

/* The state letter the sched_switch tracepoint would print, as one bit. */
static __always_inline __u32 report_state(bool preempt, unsigned int state)
{
	if (preempt)
		return RC_TASK_PREEMPTED;
	if ((state & (TASK_UNINTERRUPTIBLE | TASK_NOLOAD)) == (TASK_UNINTERRUPTIBLE | TASK_NOLOAD))
		return TASK_REPORT_IDLE;
	state &= TASK_REPORT;
	return state & -state; /* lowest set bit, 0 when running */
}

/*
 * The compat object's handle_sched_switch has the prototype every kernel
 * has, without prev_state (5.18), and reads the state from prev.
 */
#ifndef RC_COMPAT
SEC("rc_tp_btf/sched_switch")
int BPF_PROG(handle_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
#else
SEC("rc_tp_btf/sched_switch")
int BPF_PROG(handle_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	unsigned int prev_state = rc_task_state(prev);
#endif
	struct rc_bpf_stats *st = rc_stats();
	struct rc_ev_switch *e;

	if (!st)
		return 0;
	if (task_is_self(prev) || task_is_self(next) ||
	    (!rc_task_wanted(prev) && !rc_task_wanted(next)))
		return rc_filtered(st, RC_EV_SCHED_SWITCH);
	e = rc_reserve(st, RC_EV_SCHED_SWITCH, sizeof(*e));
	if (!e)
		return rc_dropped(st, RC_EV_SCHED_SWITCH);
	rc_fill_hdr(&e->hdr, rc_current(), RC_EV_SCHED_SWITCH, sizeof(*e));
	e->prev_state = report_state(preempt, prev_state);
	e->prev_prio = prev->prio;
	e->next_pid = next->tgid;
	e->next_tid = next->pid;
	e->next_prio = next->prio;
	e->__pad = 0;
	rc_comm_words(next, (__u64 *)e->next_comm);
	rc_submit(ctx, st, e, sizeof(*e));
	return 0;
}

SEC("rc_tp_btf/sched_wakeup")
int BPF_PROG(handle_sched_wakeup, struct task_struct *p)
{
	struct task_struct *cur = rc_current();
	struct rc_bpf_stats *st = rc_stats();
	struct rc_ev_wakeup *e;

	if (!st)
		return 0;
	if (task_is_self(p) || !rc_task_wanted(p) || task_is_self(cur))
		return rc_filtered(st, RC_EV_SCHED_WAKEUP);
	e = rc_reserve(st, RC_EV_SCHED_WAKEUP, sizeof(*e));
	if (!e)
		return rc_dropped(st, RC_EV_SCHED_WAKEUP);
	rc_fill_hdr(&e->hdr, cur, RC_EV_SCHED_WAKEUP, sizeof(*e));
	e->pid = p->tgid;
	e->tid = p->pid;
	e->prio = p->prio;
	e->target_cpu = rc_task_cpu(p);
	rc_comm_words(p, (__u64 *)e->wakee_comm);
	rc_submit(ctx, st, e, sizeof(*e));
	return 0;
}

SEC("rc_tp_btf/sched_process_fork")
int BPF_PROG(handle_sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	struct rc_bpf_stats *st = rc_stats();
	struct rc_ev_fork *e;

	if (!st)
		return 0;
	if (!rc_task_wanted(parent))
		return rc_filtered(st, RC_EV_SCHED_FORK);
	e = rc_reserve(st, RC_EV_SCHED_FORK, sizeof(*e));
	if (!e)
		return rc_dropped(st, RC_EV_SCHED_FORK);
	rc_fill_hdr(&e->hdr, rc_current(), RC_EV_SCHED_FORK, sizeof(*e));
	e->child_pid = child->tgid;
	e->child_tid = child->pid;
	rc_comm_words(child, (__u64 *)e->child_comm);
	rc_submit(ctx, st, e, sizeof(*e));
	return 0;
}

SEC("rc_tp_btf/sched_process_exec")
int BPF_PROG(handle_sched_process_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	struct task_struct *cur = rc_current();
	struct rc_bpf_stats *st = rc_stats();
	struct rc_ev_exec *e;

	if (!st)
		return 0;
	if (!rc_task_wanted(cur))
		return rc_filtered(st, RC_EV_SCHED_EXEC);
	e = rc_reserve(st, RC_EV_SCHED_EXEC, sizeof(*e));
	if (!e)
		return rc_dropped(st, RC_EV_SCHED_EXEC);
	rc_fill_hdr(&e->hdr, cur, RC_EV_SCHED_EXEC, sizeof(*e));
	e->old_tid = old_pid;
	e->__pad = 0;
	if (bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), bprm->filename) < 0)
		e->filename[0] = '\0';
	rc_submit(ctx, st, e, sizeof(*e));
	return 0;
}

/*
 * The exit record. Kernels since 6.16 pass group_dead to the tracepoint;
 * older ones do not, and the verifier rejects a read past the prototype.
 * User space reads the prototype from the kernel's BTF and loads one of
 * the two programs below (rc_features). Without the argument, the group is
 * dead when its count of live threads, decremented before the tracepoint,
 * is 0: true for the last thread, and also for another thread whose exit
 * is still under way when the last one passes that point.
 */
static __always_inline int emit_exit(void *ctx, struct task_struct *p, bool group_dead)
{
	struct task_struct *cur = rc_current();
	struct rc_bpf_stats *st = rc_stats();
	struct rc_ev_exit *e;

	if (!st)
		return 0;
	if (!rc_task_wanted(cur))
		return rc_filtered(st, RC_EV_SCHED_EXIT);
	e = rc_reserve(st, RC_EV_SCHED_EXIT, sizeof(*e));
	if (!e)
		return rc_dropped(st, RC_EV_SCHED_EXIT);
	rc_fill_hdr(&e->hdr, cur, RC_EV_SCHED_EXIT, sizeof(*e));
	e->exit_code = p->exit_code;
	e->group_dead = group_dead;
	rc_submit(ctx, st, e, sizeof(*e));
	return 0;
}

SEC("rc_tp_btf/sched_process_exit")
int BPF_PROG(handle_sched_process_exit, struct task_struct *p)
{
	return emit_exit(ctx, p, rc_group_dead(p));
}

SEC("rc_tp_btf/sched_process_exit")
int BPF_PROG(handle_sched_process_exit_gd, struct task_struct *p, bool group_dead)
{
	return emit_exit(ctx, p, group_dead);
}
