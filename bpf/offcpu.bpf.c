// SPDX-License-Identifier: GPL-2.0-only
/*
 * The off-CPU source (record --off-cpu): the time a task spends blocked,
 * and where it blocked, as bcc's offcputime and perf's --off-cpu measure
 * it. At sched_switch, a task in scope switched out asleep
 * (TASK_INTERRUPTIBLE or TASK_UNINTERRUPTIBLE, as perf's --off-cpu counts
 * it; not one preempted, which waits for a CPU, not for something) gets
 * its time and its kernel and user stacks kept in an entry of a hash map
 * by thread; when it is switched in again, that entry, laid out as the
 * record, gets the header and the time blocked, goes to the ring as it
 * is, and is deleted.
 *
 * The map is preallocated (RC_OFFCPU_MAX entries): nothing is allocated
 * in sched_switch, where the runqueue lock is held (task storage
 * allocates there before Linux 6.4, which can deadlock under memory
 * pressure and sleeps on PREEMPT_RT). A block when it is full is made and
 * dropped, as a full ring's. A switch-in whose thread switched since
 * (counted by its nvcsw + nivcsw, which the kernel bumps before the
 * tracepoint) is not the end of that block: its entry is dropped, not
 * written with a time that includes running.
 *
 * A task blocked when the capture began has no switch-out, and one still
 * blocked when it ends no switch-in: neither makes a record.
 */
#include "common.bpf.h"

#define TASK_INTERRUPTIBLE   0x1
#define TASK_UNINTERRUPTIBLE 0x2

struct rc_offcpu_buf {
	struct rc_ev_offcpu e;
	__u64 frames[2 * RC_STACK_MAX];
	__u64 switches; /* the thread's nvcsw + nivcsw at the switch-out */
};

/* Threads blocked at once, in scope, that the map holds: 2 KiB each. */
#define RC_OFFCPU_MAX 8192

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RC_OFFCPU_MAX);
	__type(key, __u32);
	__type(value, struct rc_offcpu_buf);
} offcpu SEC(".maps");

/* The value a new entry is made from: a map's, too big for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rc_offcpu_buf);
} offcpu_zero SEC(".maps");

static __always_inline __u64 switches(const struct task_struct *t)
{
	return t->nvcsw + t->nivcsw;
}

/* @prev goes to sleep: keep when, and its stacks (it is the current task) */
static __always_inline void switched_out(void *ctx, struct rc_bpf_stats *st,
					 struct task_struct *prev)
{
	__u32 tid = prev->pid, zero = 0;
	struct rc_offcpu_buf *b, *z;
	__u32 nk, nu;

	z = bpf_map_lookup_elem(&offcpu_zero, &zero);
	if (!z || bpf_map_update_elem(&offcpu, &tid, z, BPF_ANY)) {
		st->made[RC_EV_OFFCPU]++; /* the map full: a block made, and dropped */
		st->dropped[RC_EV_OFFCPU]++;
		return;
	}
	b = bpf_map_lookup_elem(&offcpu, &tid);
	if (!b)
		return;
	b->e.hdr.flags = rc_take_stacks(ctx, b->frames, true, &nk, &nu);
	b->e.nkernel = nk;
	b->e.nuser = nu;
	b->e.image = nu ? rc_image(prev) : 0;
	b->switches = switches(prev);
	b->e.start = bpf_ktime_get_boot_ns();
}

/* @next wakes: its record, if it went to sleep while we watched */
static __always_inline void switched_in(void *ctx, struct rc_bpf_stats *st,
					struct task_struct *next)
{
	__u32 tid = next->pid, nk, nu, size;
	struct rc_offcpu_buf *b = bpf_map_lookup_elem(&offcpu, &tid);
	__u64 now;

	if (!b)
		return; /* not asleep since we looked: preempted, or blocked before the capture */
	if (!b->e.start || b->switches != switches(next)) {
		bpf_map_delete_elem(&offcpu, &tid); /* switched since: not this block's end */
		return;
	}
	nk = b->e.nkernel;
	nu = b->e.nuser;
	if (nk > RC_STACK_MAX || nu > RC_STACK_MAX)
		return; /* never: bounds the size for the verifier */
	now = bpf_ktime_get_boot_ns();
	size = sizeof(b->e) + (nk + nu) * sizeof(__u64);
	st->made[RC_EV_OFFCPU]++;
	b->e.hdr.ts = now;
	b->e.hdr.pid = next->tgid;
	b->e.hdr.tid = next->pid;
	b->e.hdr.type = RC_EV_OFFCPU;
	b->e.hdr.size = size;
	b->e.hdr.cpu = bpf_get_smp_processor_id();
	rc_comm_words(next, (__u64 *)b->e.hdr.comm);
	b->e.blocked = now - b->e.start;
	b->e.stack_id = 0;
	if (rc_output(ctx, st, b, size))
		rc_count_drop(st, RC_EV_OFFCPU);
	bpf_map_delete_elem(&offcpu, &tid); /* written: the next needs a switch-out of its own */
}

/*
 * The compat object's: without prev_state, as in sched.bpf.c. rc_tp_btf:
 * tp_btf, loaded by user space's handler (sched.bpf.c says why).
 */
#ifndef RC_COMPAT
SEC("rc_tp_btf/sched_switch")
int BPF_PROG(handle_offcpu_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
#else
SEC("rc_tp_btf/sched_switch")
int BPF_PROG(handle_offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	unsigned int prev_state = rc_task_state(prev);
#endif
	struct rc_bpf_stats *st = rc_stats();

	if (!st)
		return 0;
	if (!preempt && (prev_state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)) &&
	    rc_task_wanted(prev))
		switched_out(ctx, st, prev);
	if (next->pid && next->tgid != knobs.self_tgid && rc_task_wanted(next))
		switched_in(ctx, st, next);
	return 0;
}
