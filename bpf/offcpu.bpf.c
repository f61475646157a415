// SPDX-License-Identifier: GPL-2.0-only
/*
 * The off-CPU source (record --off-cpu): the time a task spends blocked,
 * and where it blocked, as bcc's offcputime and perf's --off-cpu measure
 * it. At sched_switch, a task in scope switched out asleep
 * (TASK_INTERRUPTIBLE or TASK_UNINTERRUPTIBLE, as perf's --off-cpu counts
 * it; not one preempted, which waits for a CPU, not for something) gets
 * its time and its kernel and user stacks kept in its task storage; when
 * it is switched in again, that storage, laid out as the record, gets the
 * header and the time blocked and goes to the ring as it is.
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
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct rc_offcpu_buf);
} offcpu SEC(".maps");

/* @prev goes to sleep: keep when, and its stacks (it is the current task) */
static __always_inline void switched_out(void *ctx, struct task_struct *prev)
{
	struct rc_offcpu_buf *b;
	bool cut;
	__u32 nk, nu;
	__u16 flags = 0;

	b = bpf_task_storage_get(&offcpu, prev, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!b)
		return;
	nk = rc_take_stack(ctx, b->frames, 0, &cut);
	if (nk > RC_STACK_MAX)
		nk = RC_STACK_MAX;
	if (cut)
		flags |= RC_SAMPLE_F_KSTACK_CUT;
	nu = rc_take_stack(ctx, &b->frames[nk], BPF_F_USER_STACK, &cut);
	if (nu > RC_STACK_MAX)
		nu = RC_STACK_MAX;
	if (cut)
		flags |= RC_SAMPLE_F_USTACK_CUT;
	b->e.hdr.flags = flags;
	b->e.nkernel = nk;
	b->e.nuser = nu;
	b->e.image = nu ? rc_image(prev) : 0;
	b->e.start = bpf_ktime_get_boot_ns();
}

/* @next wakes: its record, if it went to sleep while we watched */
static __always_inline void switched_in(void *ctx, struct rc_bpf_stats *st,
					struct task_struct *next)
{
	struct rc_offcpu_buf *b = bpf_task_storage_get(&offcpu, next, NULL, 0);
	__u32 nk, nu, size;
	__u64 now;

	if (!b || !b->e.start)
		return; /* not asleep since we looked: preempted, or blocked before the capture */
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
	if (knobs.transport == RC_KNOB_PERFBUF) {
		if (bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, b, size) < 0)
			rc_count_drop(st, RC_EV_OFFCPU);
	} else if (bpf_ringbuf_output(&events, b, size, rc_wakeup_flags(&st->since_query, size))) {
		rc_count_drop(st, RC_EV_OFFCPU);
	}
	b->e.start = 0; /* written: the next record needs a switch-out of its own */
}

SEC("tp_btf/sched_switch")
int BPF_PROG(handle_offcpu_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	struct rc_bpf_stats *st = rc_stats();

	if (!st)
		return 0;
	if (!preempt && (prev_state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)) &&
	    rc_task_wanted(prev))
		switched_out(ctx, prev);
	if (next->pid && next->tgid != knobs.self_tgid && rc_task_wanted(next))
		switched_in(ctx, st, next);
	return 0;
}
