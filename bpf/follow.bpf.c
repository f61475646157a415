// SPDX-License-Identifier: GPL-2.0-only
/*
 * Follow the processes a launched command forks: a child of a traced
 * process becomes a target itself. Threads share their tgid and need
 * nothing. A target is forgotten when its whole thread group is dead.
 * The targets bits change with atomic ors and ands (Linux 5.12).
 *
 * User space attaches this object after every source, so on the same
 * tracepoint the sources see a dying target before it is forgotten.
 */
#include "common.bpf.h"

SEC("tp_btf/sched_process_fork")
int BPF_PROG(handle_follow_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u64 bit, *w;

	if (ptgid == ctgid || !rc_targeted(ptgid))
		return 0;
	w = rc_target_word(ctgid, &bit);
	if (w)
		__sync_fetch_and_or(w, bit); /* other tgids' bits share the word */
	return 0;
}

static __always_inline int forget(struct task_struct *p, bool group_dead)
{
	__u64 bit, *w;

	if (!group_dead)
		return 0;
	w = rc_target_word(p->tgid, &bit);
	if (w)
		__sync_fetch_and_and(w, ~bit);
	return 0;
}

/* Two variants, as in sched.bpf.c: user space loads the one the kernel's prototype fits. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_follow_exit, struct task_struct *p)
{
	return forget(p, rc_group_dead(p));
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_follow_exit_gd, struct task_struct *p, bool group_dead)
{
	return forget(p, group_dead);
}
