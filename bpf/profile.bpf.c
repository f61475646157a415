// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sampling source (record -F / -c): a perf event per CPU (cycles, or
 * cpu-clock where there is no hardware PMU) runs handle_sample at each
 * sample, which writes a struct rc_ev_sample, and the stacks knobs.stacks
 * asks for after it, into the ring every source shares.
 *
 * The program runs in the sampling event's overflow handler: a hard
 * interrupt (cpu-clock's hrtimer) or an NMI (cycles), on top of whatever
 * ran on the CPU, a tracepoint program of ours included. So it touches
 * nothing a task-context program uses mid-update: its own per-CPU buffer,
 * its own counter slot (RC_EV_SAMPLE) and period_sum. The ring's
 * since_query word is shared, and a sample landing inside another
 * program's update of it can lose one update, which only moves a wake-up
 * check (rc_wakeup_flags()).
 */
#include "common.bpf.h"

struct rc_sample_buf {
	struct rc_ev_sample s;
	__u64 frames[2 * RC_STACK_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rc_sample_buf);
} samplebuf SEC(".maps");


/*
 * Did the sample interrupt user mode? The kernel's user_mode(regs). The
 * context's registers are read a whole word at a time, as the verifier
 * wants them: x86-64's cs is the 18th word (the UAPI struct
 * user_regs_struct's layout, which the kernel's pt_regs has). Not
 * through vmlinux.h's struct pt_regs, whose cs is a u16 in a union since
 * the FRED rework (6.9): CO-RE makes that a 2-byte read, refused.
 */
#if defined(__TARGET_ARCH_x86)
#define RC_X86_CS_OFF	   (17 * 8)
#define rc_user_mode(regs) ((*(const __u64 *)((const char *)(regs) + RC_X86_CS_OFF) & 3) == 3)
#elif defined(__TARGET_ARCH_arm64)
#define rc_user_mode(regs) ((((struct user_pt_regs *)(regs))->pstate & 0xf) == 0) /* EL0t */
#else
#error "rc_user_mode(): unknown architecture"
#endif

SEC("perf_event")
int handle_sample(struct bpf_perf_event_data *ctx)
{
	struct task_struct *t = rc_current();
	struct rc_bpf_stats *st = rc_stats();
	struct rc_sample_buf *b;
	__u32 zero = 0, nk, nu, size;
	__u16 flags = 0;

	if (!st)
		return 0;
	/* every run, filtered too: against the event's count, the runs the kernel skipped */
	st->period_sum += ctx->sample_period;
	if (!rc_task_wanted(t))
		return rc_filtered(st, RC_EV_SAMPLE);
	st->made[RC_EV_SAMPLE]++;
	b = bpf_map_lookup_elem(&samplebuf, &zero);
	if (!b)
		return rc_dropped(st, RC_EV_SAMPLE);
	if (rc_user_mode(&ctx->regs))
		flags |= RC_SAMPLE_F_USER;
	flags |= rc_take_stacks(ctx, b->frames, false, &nk, &nu);
	if ((knobs.stacks & RC_KNOB_STACK_USER) && !nu && t->mm)
		flags |= RC_SAMPLE_F_USTACK_FAIL;
	size = sizeof(b->s) + (nk + nu) * sizeof(__u64);
	rc_fill_hdr(&b->s.hdr, t, RC_EV_SAMPLE, size);
	b->s.hdr.flags = flags;
	b->s.ip = PT_REGS_IP(&ctx->regs);
	b->s.period = ctx->sample_period;
	b->s.stack_id = 0;
	b->s.nkernel = nk;
	b->s.nuser = nu;
	/* a user address, in a frame or as the ip, is of the process's image */
	b->s.image = t->mm ? rc_image(t) : 0;
	if (size > sizeof(*b))
		return 0; /* never: tells the verifier the size's bound */
	if (knobs.transport == RC_KNOB_PERFBUF) {
		if (bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, b, size) < 0)
			rc_count_drop(st, RC_EV_SAMPLE);
		return 0;
	}
	if (bpf_ringbuf_output(&events, b, size, rc_wakeup_flags(&st->since_query, size)))
		rc_count_drop(st, RC_EV_SAMPLE);
	return 0;
}
