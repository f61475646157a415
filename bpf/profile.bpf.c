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

/*
 * --call-graph=dwarf: bytes of user stack to copy with each sample
 * (rc_ustack, format/records.h); 0 for frame-pointer stacks.
 */
const volatile __u32 ustack_size = 0;

/* Room for a stack copy starting anywhere in its last page, past RC_USTACK_MAX */
#define RC_USTACK_SPAN	(65536 + 4096)
#define RC_USTACK_PAGES (RC_USTACK_MAX / 4096 + 2)

#if defined(__TARGET_ARCH_x86)
#define RC_REGS_WORDS 21 /* struct pt_regs, r15 to ss */
#define RC_REGS_SP    19
#define RC_REGS_PC    16
#elif defined(__TARGET_ARCH_arm64)
#define RC_REGS_WORDS 34 /* struct user_pt_regs, x0 to pstate */
#define RC_REGS_SP    31
#define RC_REGS_PC    32
#endif

#define RC_PF_KTHREAD 0x00200000 /* include/linux/sched.h PF_KTHREAD, the same since 2.6 */

/*
 * A dwarf sample as it goes into the ring: the sample, the registers,
 * then its kernel frames and the stack's bytes, each as long as it is.
 */
struct rc_dwarf_buf {
	struct rc_ev_sample s;
	struct rc_ustack u;
	__u64 frames[RC_STACK_MAX];
	char stack[RC_USTACK_SPAN];
};

/*
 * Too big for a per-CPU array (32 KiB a value at most): an array of a
 * value a CPU (user space sets max_entries), indexed by the CPU. Only
 * handle_sample uses it, and it never nests in itself on a CPU.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rc_dwarf_buf);
} ustackbuf SEC(".maps");

#ifndef RC_COMPAT
/*
 * Copy ustack_size bytes of the user stack from @sp to @dst (after @nk
 * kernel frames in @b): in one read, or when a page of it cannot be read
 * (never faulted in, or past the stack's end: this runs in an interrupt
 * and cannot fault), page by page up to the first that cannot. Returns the
 * bytes copied, a multiple of 8.
 */
static __always_inline __u32 copy_ustack(struct rc_dwarf_buf *b, __u32 nk, __u64 sp)
{
	const __u32 want = ustack_size & ~7u;
	__u32 base = (nk & 0xff) * 8, off = 0, len, i;

	if (want > RC_USTACK_MAX)
		return 0;
	if (!bpf_probe_read_user((char *)b->frames + base, want, (const void *)sp))
		return want;
	for (i = 0; i < RC_USTACK_PAGES; i++) {
		len = 4096 - ((sp + off) & 4095);
		if (len > want - off)
			len = want - off;
		/* bounds the verifier sees, whatever the compiler made of the above */
		barrier_var(len);
		len &= 0x1fff;
		if (!len || len > 4096)
			break;
		barrier_var(off);
		off &= 0xffff;
		if (bpf_probe_read_user((char *)b->frames + base + off, len,
					(const void *)(sp + off)))
			break;
		off += len;
		if (off >= want)
			break;
	}
	return off & ~7u;
}

/*
 * A dwarf sample: the kernel stack as -g takes it, the task's user
 * registers (those it entered the kernel with, when the sample hit the
 * kernel) and a copy of its user stack, in one record, unwound in user
 * space (rc_stacks__take()).
 */
static __always_inline int sample_dwarf(struct bpf_perf_event_data *ctx, struct task_struct *t,
					struct rc_bpf_stats *st, __u16 flags)
{
	__u32 cpu = bpf_get_smp_processor_id(), nk = 0, size;
	struct rc_dwarf_buf *b;
	const void *regs;
	bool cut;

	b = bpf_map_lookup_elem(&ustackbuf, &cpu);
	if (!b)
		return rc_dropped(st, RC_EV_SAMPLE);
	if (knobs.stacks & RC_KNOB_STACK_KERNEL) {
		nk = rc_take_stack(ctx, b->frames, 0, &cut);
		if (nk > RC_STACK_MAX)
			nk = RC_STACK_MAX;
		if (cut)
			flags |= RC_SAMPLE_F_KSTACK_CUT;
	}
	b->u.size = ustack_size;
	b->u.copied = 0;
	b->u.flags = 0;
	b->u.__pad = 0;
	b->u.sp = 0;
	/*
	 * No user registers, as perf_sample_regs_user() decides: a kernel
	 * thread, by its flag, as one that borrows a process's mm
	 * (kthread_use_mm(): vhost, aio) has an mm but no user context. And a
	 * thread that never ran in user mode (an io_uring worker: user space's
	 * thread, created by the kernel), whose saved registers copy_thread()
	 * left with sp and pc 0.
	 */
	if (!RC_TASK(t, mm) || (RC_TASK(t, flags) & RC_PF_KTHREAD)) {
		b->u.flags = RC_USTACK_F_KTHREAD;
	} else {
		regs = (const void *)bpf_task_pt_regs(t);
		if (bpf_probe_read_kernel(b->u.regs, RC_REGS_WORDS * 8, regs)) {
			b->u.flags = RC_USTACK_F_NOREGS;
		} else if (!b->u.regs[RC_REGS_SP] && !b->u.regs[RC_REGS_PC]) {
			b->u.flags = RC_USTACK_F_KTHREAD;
		} else {
			b->u.sp = b->u.regs[RC_REGS_SP];
			b->u.copied = copy_ustack(b, nk, b->u.sp);
			if (b->u.copied < b->u.size)
				b->u.flags = RC_USTACK_F_SHORT;
		}
	}
	size = sizeof(b->s) + sizeof(b->u) + nk * sizeof(__u64) + (b->u.copied & 0xffff);
	rc_fill_hdr(&b->s.hdr, t, RC_EV_SAMPLE, size);
	b->s.hdr.flags = flags | RC_SAMPLE_F_DWARF;
	b->s.ip = PT_REGS_IP(&ctx->regs);
	b->s.period = ctx->sample_period;
	b->s.stack_id = 0;
	b->s.nkernel = nk;
	b->s.nuser = 0;
	b->s.image = RC_TASK(t, mm) ? rc_image(t) : 0;
	if (size > sizeof(*b))
		return 0; /* never: tells the verifier the size's bound */
	if (rc_output(ctx, st, b, size))
		rc_count_drop(st, RC_EV_SAMPLE);
	return 0;
}
#endif /* !RC_COMPAT: bpf_task_pt_regs() wants a BTF pointer (user space refuses dwarf there) */

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
#ifndef RC_COMPAT
	if (ustack_size)
		return sample_dwarf(ctx, t, st, flags);
#endif
	flags |= rc_take_stacks(ctx, b->frames, false, &nk, &nu);
	if ((knobs.stacks & RC_KNOB_STACK_USER) && !nu && RC_TASK(t, mm))
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
	b->s.image = RC_TASK(t, mm) ? rc_image(t) : 0;
	if (size > sizeof(*b))
		return 0; /* never: tells the verifier the size's bound */
	if (rc_output(ctx, st, b, size))
		rc_count_drop(st, RC_EV_SAMPLE);
	return 0;
}
