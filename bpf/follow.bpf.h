/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The follow programs (follow.bpf.c says what they do), in a header so
 * that a source's object carries them too (dyn.bpf.c): a recording that
 * follows a command's children then loads one object less, and libbpf
 * parses the kernel's BTF once less. User space loads them from one
 * object only (lib/capture/bpf/load.c, follow_host()). Included after
 * common.bpf.h.
 */
#ifndef RINGCAP_FOLLOW_BPF_H
#define RINGCAP_FOLLOW_BPF_H

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

/* rc_tp_btf: tp_btf, loaded by user space's handler (sched.bpf.c says why) */
SEC("rc_tp_btf/sched_process_fork")
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
SEC("rc_tp_btf/sched_process_exit")
int BPF_PROG(handle_follow_exit, struct task_struct *p)
{
	return forget(p, rc_group_dead(p));
}

SEC("rc_tp_btf/sched_process_exit")
int BPF_PROG(handle_follow_exit_gd, struct task_struct *p, bool group_dead)
{
	return forget(p, group_dead);
}

#endif /* RINGCAP_FOLLOW_BPF_H */
