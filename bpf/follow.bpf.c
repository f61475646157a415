// SPDX-License-Identifier: GPL-2.0-only
/*
 * Follow the processes a launched command forks: a child of a traced
 * process becomes a target itself. Threads share their tgid and need
 * nothing. A target is forgotten when its whole thread group is dead.
 * The targets bits change with atomic ors and ands (Linux 5.12).
 *
 * The compat object (RC_COMPAT: kernels before 5.12, whose one atomic is
 * add) sets and clears a bit with an atomic add of it, or of its negation:
 * right only when the bit was clear, or set, and no other CPU changes it
 * at the same time. The followed map makes it so: a tgid's entry is made
 * (BPF_NOEXIST) before its bit is set, and deleted before it is cleared,
 * and only the one that made or deleted it changes the bit. user space
 * adds its targets the same way (rc_bpf__add_target()). Without it, the
 * exit of two threads that both see their group dead (rc_group_dead())
 * would clear a bit twice, and borrow from the next tgid's. A fork that
 * finds the map full leaves its child unfollowed, counted in unfollowed.
 *
 * User space attaches this object after every source, so on the same
 * tracepoint the sources see a dying target before it is forgotten.
 */
#include "common.bpf.h"

/* compat only: RC_FOLLOW_MAX processes followed at once; the default object's is not created */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RC_FOLLOW_MAX);
	__type(key, __u32); /* tgid */
	__type(value, __u32);
} followed SEC(".maps");

/* compat: children a full followed map left unfollowed */
__u64 unfollowed = 0;

#ifndef RC_COMPAT
static __always_inline void target_set(__u32 tgid, __u64 *w, __u64 bit)
{
	__sync_fetch_and_or(w, bit); /* other tgids' bits share the word */
}

static __always_inline void target_clear(__u32 tgid, __u64 *w, __u64 bit)
{
	__sync_fetch_and_and(w, ~bit);
}
#else
#define RC_EEXIST 17 /* errno.h's, which BPF programs do not include */

static __always_inline void target_set(__u32 tgid, __u64 *w, __u64 bit)
{
	__u32 one = 1;
	long err = bpf_map_update_elem(&followed, &tgid, &one, BPF_NOEXIST);

	if (!err)
		__sync_fetch_and_add(w, bit); /* clear until now: no carry */
	else if (err != -RC_EEXIST)
		__sync_fetch_and_add(&unfollowed, 1);
}

static __always_inline void target_clear(__u32 tgid, __u64 *w, __u64 bit)
{
	if (!bpf_map_delete_elem(&followed, &tgid))
		__sync_fetch_and_add(w, -bit); /* set until now: no borrow */
}
#endif

SEC("tp_btf/sched_process_fork")
int BPF_PROG(handle_follow_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u64 bit, *w;

	if (ptgid == ctgid || !rc_targeted(ptgid))
		return 0;
	w = rc_target_word(ctgid, &bit);
	if (w)
		target_set(ctgid, w, bit);
	return 0;
}

static __always_inline int forget(struct task_struct *p, bool group_dead)
{
	__u64 bit, *w;
	__u32 tgid;

	if (!group_dead)
		return 0;
	tgid = p->tgid;
	w = rc_target_word(tgid, &bit);
	if (w)
		target_clear(tgid, w, bit);
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
