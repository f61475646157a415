/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Maps, settings and helpers every ringcap event source shares.
 *
 * User space creates the events, targets, stats and notify maps once and
 * hands the same fds to every source's object (bpf_map__reuse_fd), so all
 * sources write to one ring and count into one table.
 *
 * One program serves both transports: events is a BPF ring buffer, or a
 * perf event array when knobs.transport says so. knobs is read-only data,
 * so the verifier knows which branch runs and never checks the other.
 */
#ifndef RINGCAP_COMMON_BPF_H
#define RINGCAP_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "events.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096 * 16); /* replaced by user space's map */
} events SEC(".maps");

/*
 * knobs.transport RC_KNOB_RINGBUF_PCPU: a BPF ring buffer per CPU, this
 * one's at its CPU's index (rc_cpu_ring()), where the one shared ring
 * bounced its lock word and producer position between the CPUs (on the
 * bench machine, a two-CPU storm: 440 ns an event in one ring, 180 in a
 * ring each). User space picks it when more than one CPU runs (open.c):
 * on one CPU the lookup costs and the one ring shares nothing.
 *
 * The CPU is this program's for its whole run: tracepoint, perf event
 * and kprobe programs run with preemption off, uprobe programs (since
 * 6.0), sleepable ones (none of ours) and every program on PREEMPT_RT
 * with migration disabled. A
 * preempted program's ring is still its CPU's, which another program on
 * that CPU may write to meanwhile: each reservation takes the ring's
 * lock, as in the one ring. Otherwise (another mode) a one-entry map of
 * an array, which no program reaches: the verifier follows only the
 * branch knobs.transport names.
 */
struct rc_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1); /* replaced by user space's map */
	__type(key, __u32);
	__array(values, struct rc_ring);
} rings SEC(".maps");

/*
 * perfbuf: records are built here, then copied out by
 * bpf_perf_event_output(). One slot per event type and CPU: tracepoint
 * programs run with preemption off on every kernel of the matrix (6.1 to
 * 6.18; newer kernels may run tp_btf programs preemptible, which would
 * make these slots shared), a program never nests in itself (the kernel
 * skips it), and the two that share a type, syscall entry and exit, never
 * run in an interrupt. Uprobe programs, preemptible since 6.0, use none.
 */
struct rc_scratch {
	char data[RC_SCRATCH_SIZE];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RC_EV_SLOTS);
	__type(key, __u32);
	__type(value, struct rc_scratch);
} scratch SEC(".maps");

/* perfbuf --snapshot-on: a word per trigger, on rings user space waits on */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} notify SEC(".maps");

/*
 * tgids to trace when knobs.filter_pids is set: a bit each (events.h,
 * RC_TARGET_WORDS), as ftrace's pid filter keeps them. An array lookup,
 * which the verifier inlines, and a shift, where a hash lookup cost a
 * helper call and a hash on every event (50 ns on the bench machine).
 * Bits are set and cleared with atomic ors and ands, by follow.bpf.c and
 * by user space in its mapping of the map (BPF_F_MMAPABLE).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* replaced by user space's map */
	__type(key, __u32);
	__type(value, __u64);
} targets SEC(".maps");

/*
 * ringbuf: non-zero while the reader sleeps in epoll_wait(), set and
 * cleared by user space in its mapping of the map (rc_ringbuf__wait()).
 * Only a sleeping reader needs a wakeup (rc_wakeup_flags()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} reader SEC(".maps");

/*
 * The built-in sources' counters, a slot per event type and CPU. Plain
 * adds, no lock prefix: tracepoint programs run with preemption off on
 * every kernel of the matrix, a program never nests in itself on a CPU
 * (the kernel skips the run and counts it missed), and each slot has one
 * writer, or two that cannot interrupt each other (syscall entry and
 * exit, never in an interrupt). A program that can run in another context
 * on the same CPU (a preemptible uprobe, a sampler in a hard interrupt)
 * needs slots of its own, or atomics. since_query is every program's,
 * the preemptible uprobes' too: an interrupting or preempting one can
 * lose an update of it, which only moves a check (rc_wakeup_flags()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rc_bpf_stats);
} stats SEC(".maps");

const volatile struct rc_knobs knobs = {};

/*
 * The current task. One helper call gives its ids and its name, as plain
 * loads, where bpf_get_current_pid_tgid() and bpf_get_current_comm() cost
 * a call each (18 and 43 ns an event on the bench machine, kernel 6.18,
 * where every return pays for SRSO's safe RET).
 */
#ifndef RC_COMPAT
static __always_inline struct task_struct *rc_current(void)
{
	return bpf_get_current_task_btf();
}

/* Field @f of task @t, a BTF pointer: a plain load. */
#define RC_TASK(t, f) ((t)->f)
#define rc_compat_barrier(x)

/*
 * A task's name as two words. The kernel pads it with zeroes (since 5.17,
 * __set_task_comm()), so the bytes after the name are zeroes, as the
 * record format wants. A rename racing the read can mix the two names,
 * as it can under bpf_get_current_comm().
 */
static __always_inline void rc_comm_words(const struct task_struct *t, __u64 w[2])
{
	w[0] = *(const __u64 *)&t->comm[0];
	w[1] = *(const __u64 *)&t->comm[8];
}
#else /* RC_COMPAT */
/*
 * The compat objects (*.compat.bpf.o, built with -DRC_COMPAT), for kernels
 * without what the default ones use: bpf_get_current_task_btf (5.11),
 * task storage (5.11, syscalls.bpf.c), atomic and/or (5.12, follow.bpf.c),
 * sched_switch's prev_state (5.18, rc_task_state()). User space loads
 * them only where the default ones cannot load (rc_features__compat()).
 * The current task is an address, not a BTF pointer: every read of a task
 * goes through bpf_probe_read_kernel() with CO-RE relocations, BTF
 * tracepoints' arguments too (the helpers below take either).
 */
static __always_inline struct task_struct *rc_current(void)
{
	return (struct task_struct *)bpf_get_current_task();
}

#define RC_TASK(t, f)	     BPF_CORE_READ(t, f)

/*
 * After a pointer's NULL check: clang, given the helper calls of CO-RE
 * reads to schedule around, computes addresses in ring memory before the
 * check, which the verifier refuses ("pointer arithmetic on
 * ringbuf_mem_or_null").
 */
#define rc_compat_barrier(x) barrier_var(x)

/*
 * A task's name as two words, zeroes after its end: before 5.17 the kernel
 * leaves an older name's bytes after a shorter one (strlcpy()).
 */
static __always_inline void rc_comm_words(const struct task_struct *t, __u64 w[2])
{
	char *c = (char *)w;
	bool end = false;
	int i;

	w[0] = w[1] = 0;
	bpf_core_read(w, 16, &t->comm);
#pragma unroll
	for (i = 0; i < 16; i++) {
		end = end || !c[i];
		if (end)
			c[i] = 0;
	}
}
#endif /* RC_COMPAT */

/*
 * A system call's six arguments from its saved registers @regs, as the
 * kernel's syscall events read them (syscall_get_arguments()); regs is a
 * BTF pointer (tp_btf): plain loads. libbpf 1.1 stops at the fifth.
 */
#if defined(__TARGET_ARCH_x86)
#define RC_SYSCALL_ARG6(regs) ((regs)->r9)
#elif defined(__TARGET_ARCH_arm64)
#define RC_SYSCALL_ARG6(regs) (((struct user_pt_regs *)(regs))->regs[5])
#else
#define RC_SYSCALL_ARG6(regs) 0
#endif

static __always_inline void rc_syscall_args(__u64 *args, struct pt_regs *regs)
{
	args[0] = PT_REGS_PARM1_SYSCALL(regs);
	args[1] = PT_REGS_PARM2_SYSCALL(regs);
	args[2] = PT_REGS_PARM3_SYSCALL(regs);
	args[3] = PT_REGS_PARM4_SYSCALL(regs);
	args[4] = PT_REGS_PARM5_SYSCALL(regs);
	args[5] = RC_SYSCALL_ARG6(regs);
}

/*
 * Is task @t (registers @regs) in a 32-bit syscall? Its numbers are
 * another table's: the kernel's syscall events leave them out, and
 * the syscalls source flags them (RC_SYSCALL_F_COMPAT)
 * (ftrace_syscall_enter(), perf_syscall_enter():
 * arch_trace_is_compat_syscall()).
 */
static __always_inline bool in_compat_syscall(const struct task_struct *t,
					      const struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	if (bpf_core_field_exists(t->thread_info.status))
		return RC_TASK(t, thread_info.status) & 0x0002; /* TS_COMPAT */
	return false;
#elif defined(__TARGET_ARCH_arm64)
	/* compat_user_mode(): the task's saved PSTATE says AArch32 (PSR_MODE32_BIT) */
	return regs->pstate & 0x10;
#else
	return false;
#endif
}

/* The targets word of @tgid, and its bit in it */
static __always_inline __u64 *rc_target_word(__u32 tgid, __u64 *bit)
{
	__u32 idx = tgid / 64;

	*bit = 1ull << (tgid % 64);
	return bpf_map_lookup_elem(&targets, &idx);
}

static __always_inline bool rc_targeted(__u32 tgid)
{
	__u64 bit, *w = rc_target_word(tgid, &bit);

	return w && (*w & bit);
}

/* Is task @t in scope? */
static __always_inline bool rc_task_wanted(const struct task_struct *t)
{
	__u32 tgid = RC_TASK(t, tgid);

	if (tgid == knobs.self_tgid)
		return false;
	if (knobs.filter_pids && !rc_targeted(tgid))
		return false;
	if (knobs.filter_comm) {
		const volatile __u64 *want = (const volatile __u64 *)knobs.comm;
		__u64 w[2];

		rc_comm_words(t, w);
		if (w[0] != want[0] || w[1] != want[1])
			return false;
	}
	return true;
}

static __always_inline struct rc_bpf_stats *rc_stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

/* Count an event of @type that was out of scope; returns 0 for the program. */
static __always_inline int rc_filtered(struct rc_bpf_stats *st, __u16 type)
{
	st->filtered[type & (RC_EV_SLOTS - 1)]++;
	return 0;
}

static __always_inline void rc_count_drop(struct rc_bpf_stats *st, __u16 type)
{
	st->dropped[type & (RC_EV_SLOTS - 1)]++;
}

#ifndef RC_COMPAT
/* The CPU task @t last ran on, or is woken to */
#define rc_task_cpu(t) BPF_CORE_READ(t, thread_info.cpu)
#else
/* task_struct's fields of older kernels: state before 5.14, cpu before 5.16 (x86) */
struct task_struct___old {
	long state;
	unsigned int cpu;
} __attribute__((preserve_access_index));

static __always_inline __u32 rc_task_cpu(struct task_struct *t)
{
	if (bpf_core_field_exists(t->thread_info.cpu))
		return BPF_CORE_READ(t, thread_info.cpu);
	return BPF_CORE_READ((struct task_struct___old *)t, cpu);
}

/*
 * sched_switch's prev_state, on kernels whose tracepoint does not pass it
 * (before 5.18): @t's state, read at the tracepoint as those kernels' own
 * sched_switch event read it (__trace_sched_switch_state()).
 */
static __always_inline unsigned int rc_task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___old *)t, state);
}
#endif

/*
 * At sched_process_exit, on kernels whose tracepoint has no group_dead:
 * the count of live threads was decremented before it (do_exit()).
 */
static __always_inline bool rc_group_dead(struct task_struct *p)
{
	return BPF_CORE_READ(p, signal, live.counter) == 0;
}

/*
 * Fill the common header of a record of @type and @size for task @t, the
 * current one (rc_current()). @h was checked once, by the caller: never
 * test it again here or in rc_submit() (rc_reserve_in()).
 */
#ifndef RC_COMPAT
static __always_inline void rc_fill_hdr(struct rc_rec_hdr *h, const struct task_struct *t,
					__u16 type, __u32 size)
{
	h->ts = bpf_ktime_get_boot_ns();
	h->pid = t->tgid;
	h->tid = t->pid;
	h->type = type;
	h->size = size;
	h->cpu = bpf_get_smp_processor_id();
	h->flags = 0;
	rc_comm_words(t, (__u64 *)h->comm);
}
#else
/*
 * The compat programs': @t is the current task, whose ids and name two
 * helpers give for less than three CO-RE reads (the name zero-padded,
 * strncpy() before 5.17's strscpy_pad()).
 */
static __always_inline void rc_fill_hdr(struct rc_rec_hdr *h, const struct task_struct *t,
					__u16 type, __u32 size)
{
	__u64 id = bpf_get_current_pid_tgid();

	h->ts = bpf_ktime_get_boot_ns();
	h->pid = id >> 32;
	h->tid = (__u32)id;
	h->type = type;
	h->size = size;
	h->cpu = bpf_get_smp_processor_id();
	h->flags = 0;
	bpf_get_current_comm(h->comm, sizeof(h->comm));
}
#endif

/* RC_KNOB_RINGBUF_PCPU: this CPU's ring (rings), or NULL where it has none */
static __always_inline void *rc_cpu_ring(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&rings, &cpu);
}

/*
 * ringbuf: @size bytes reserved in the ring, this CPU's (RC_KNOB_RINGBUF_PCPU)
 * or the one; NULL when it is full. A CPU without a ring (one brought up
 * after the start) finds it full.
 */
static __always_inline void *rc_ring_reserve(__u32 size)
{
	if (knobs.transport == RC_KNOB_RINGBUF_PCPU) {
		void *ring = rc_cpu_ring();

		if (!ring)
			return NULL;
		return bpf_ringbuf_reserve(ring, size, 0);
	}
	return bpf_ringbuf_reserve(&events, size, 0);
}

/* ringbuf: @size bytes of @buf copied into the ring; 0, or a negative error (full) */
static __always_inline long rc_ring_output(void *buf, __u32 size, __u64 flags)
{
	if (knobs.transport == RC_KNOB_RINGBUF_PCPU) {
		void *ring = rc_cpu_ring();

		if (!ring)
			return -1; /* as full */
		return bpf_ringbuf_output(ring, buf, size, flags);
	}
	return bpf_ringbuf_output(&events, buf, size, flags);
}

/* ringbuf: the bytes pending in the ring the program writes to */
static __always_inline __u64 rc_ring_pending(void)
{
	if (knobs.transport == RC_KNOB_RINGBUF_PCPU) {
		void *ring = rc_cpu_ring();

		return ring ? bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) : 0;
	}
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
}

/*
 * Room for a record of @size bytes: in the ring, or perfbuf: this CPU's
 * scratch slot @slot, copied out by rc_submit(). NULL when the ring is
 * full. The caller checks the result once and fills the header
 * (rc_fill_hdr()) after the check, so the timestamp is taken after the
 * reservation and ring order and time order agree as closely as they can.
 *
 * One check, and no second one on any path: the 6.1 verifier does not know
 * that ring buffer memory checked once is not NULL, follows the second
 * check's NULL branch, and rejects the program for a reservation never
 * submitted ("Unreleased reference").
 */
static __always_inline void *rc_reserve_in(__u32 size, __u32 slot)
{
	if (knobs.transport == RC_KNOB_PERFBUF)
		return bpf_map_lookup_elem(&scratch, &slot);
	return rc_ring_reserve(size);
}

/* rc_reserve_in() for a built-in @type, counted as made in @st (rc_stats()). */
static __always_inline void *rc_reserve(struct rc_bpf_stats *st, __u16 type, __u32 size)
{
	__u32 slot = type & (RC_EV_SLOTS - 1);

	st->made[slot]++;
	return rc_reserve_in(size, slot);
}

/* A built-in record of @type that found the ring full; returns 0 for the program. */
static __always_inline int rc_dropped(struct rc_bpf_stats *st, __u16 type)
{
	rc_count_drop(st, type);
	return 0;
}

/* How often each CPU looks for a sleeping reader: 16 times a mark's worth. */
#define RC_WAKEUP_CHECKS 16

/*
 * ringbuf: the flags for submitting @size more bytes: wake the reader
 * only when it sleeps and knobs.wakeup_bytes of data are pending. Each
 * CPU looks once every wakeup_bytes / RC_WAKEUP_CHECKS bytes it submits,
 * counted in @since_query, one word a CPU for every program (the stats
 * map's): a wakeup comes at most that much a CPU late. It reads the reader map's word, and only when the
 * reader sleeps does it ask the ring (bpf_ringbuf_query(), a helper
 * call). An awake reader is reading, and sleeps again only with less
 * than the mark pending (rc_ringbuf__wait()): a check that finds it awake
 * has nothing to do.
 *
 * Before, every submit above the mark asked the ring and forced a
 * wakeup, the reader awake or not: each queued irq_work anew (a
 * self-IPI) once the last had run, 4,200 to 6,300 interrupts in a
 * two-CPU storm of 2M records, where this takes about 150. Those
 * wakeups also slowed the producers while the reader was behind, which
 * hid what a slow reader loses.
 *
 * With two CPUs producing, each checks for itself: neither needs to be
 * the one that crosses the mark. With a ring per CPU, each asks its own
 * ring, and its wakeup wakes the reader through that ring.
 */
static __always_inline __u64 rc_wakeup_flags(__u64 *since_query, __u32 size)
{
	const __u64 every = knobs.wakeup_bytes / RC_WAKEUP_CHECKS;
	const volatile __u64 *asleep;
	__u32 zero = 0;

	if (!knobs.wakeup_bytes)
		return 0;
	*since_query += size;
	if (*since_query < every)
		return BPF_RB_NO_WAKEUP;
	*since_query = 0;
	asleep = bpf_map_lookup_elem(&reader, &zero);
	if (!asleep || !*asleep)
		return BPF_RB_NO_WAKEUP;
	if (rc_ring_pending() >= knobs.wakeup_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

/* rc_wakeup_flags() for a program that has not looked up the stats map (rc_stats()) */
static __always_inline __u64 rc_wakeup_flags_cpu(__u32 size)
{
	struct rc_bpf_stats *st = rc_stats();

	return st ? rc_wakeup_flags(&st->since_query, size) : BPF_RB_NO_WAKEUP;
}

/* --snapshot-on: tell user space that a record of the chosen kind was made. */
static __always_inline void rc_trigger(void *ctx, const struct rc_rec_hdr *h)
{
	__u64 ts = h->ts;

	if (h->type != knobs.snap_type)
		return;
	if (h->type == RC_EV_SYSCALL && knobs.snap_nr >= 0 &&
	    ((const struct rc_ev_syscall *)h)->nr != (__u32)knobs.snap_nr)
		return;
	bpf_perf_event_output(ctx, &notify, BPF_F_CURRENT_CPU, &ts, sizeof(ts));
}

static __always_inline void rc_emit_stack(void *ctx, const struct rc_rec_hdr *ev);

/*
 * Copy @size bytes of @buf into the ring: for records built in a buffer
 * of the program's own (a sample, an off-CPU record, an event's stack).
 * Return: 0, or the helper's negative error (a full ring).
 */
static __always_inline long rc_output(void *ctx, struct rc_bpf_stats *st, void *buf, __u32 size)
{
	if (knobs.transport == RC_KNOB_PERFBUF)
		return bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, buf, size);
	return rc_ring_output(buf, size, rc_wakeup_flags(&st->since_query, size));
}

/*
 * Submit a record of @size bytes from rc_reserve(); ringbuf: waking the
 * reader as rc_wakeup_flags() says.
 *
 * perfbuf: copy it to this CPU's ring; the perf event's own settings
 * decide the wakeups. A full ring counts a drop here, and the kernel
 * reports it in the ring too (PERF_RECORD_LOST).
 */
static __always_inline void rc_submit(void *ctx, struct rc_bpf_stats *st, void *rec, __u32 size)
{
	struct rc_rec_hdr h;

	if (knobs.stacks)
		h = *(struct rc_rec_hdr *)rec; /* a submitted record is not ours to read */
	if (knobs.transport == RC_KNOB_PERFBUF) {
		if (bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, rec, size) < 0)
			rc_count_drop(st, ((struct rc_rec_hdr *)rec)->type);
		else if (knobs.stacks)
			rc_emit_stack(ctx, &h);
		if (knobs.snap_type)
			rc_trigger(ctx, rec);
		return;
	}
	bpf_ringbuf_submit(rec, rc_wakeup_flags(&st->since_query, size));
	if (knobs.stacks)
		rc_emit_stack(ctx, &h);
}

/*
 * A stack into @frames, at most knobs.max_stack frames; frames taken.
 * @cut: set when it filled them, so that it may go on (the kernel stops at
 * the smaller of the buffer and kernel.perf_event_max_stack, which
 * knobs.max_stack is); left false when there is none.
 */
static __always_inline __u32 rc_take_stack(void *ctx, __u64 *frames, __u64 flags, bool *cut)
{
	long n = bpf_get_stack(ctx, frames, RC_STACK_MAX * sizeof(__u64), flags);

	*cut = false;
	if (n <= 0)
		return 0;
	*cut = n >= (long)(knobs.max_stack * sizeof(__u64));
	return ((__u32)n / sizeof(__u64)) & 0xff;
}

/*
 * The current task's stacks into @frames, as knobs.stacks asks (with
 * @all, both whatever it says): the kernel's, then the user's after it.
 * Their frame counts in *@nk and *@nu; the header flags that say which
 * was cut.
 */
static __always_inline __u16 rc_take_stacks(void *ctx, __u64 *frames, bool all, __u32 *nk,
					    __u32 *nu)
{
	__u16 flags = 0;
	bool cut;

	*nk = *nu = 0;
	if (all || (knobs.stacks & RC_KNOB_STACK_KERNEL)) {
		*nk = rc_take_stack(ctx, frames, 0, &cut);
		if (*nk > RC_STACK_MAX)
			*nk = RC_STACK_MAX;
		if (cut)
			flags |= RC_SAMPLE_F_KSTACK_CUT;
	}
	if (all || (knobs.stacks & RC_KNOB_STACK_USER)) {
		*nu = rc_take_stack(ctx, &frames[*nk & 0xff], BPF_F_USER_STACK, &cut);
		if (*nu > RC_STACK_MAX)
			*nu = RC_STACK_MAX;
		if (cut)
			flags |= RC_SAMPLE_F_USTACK_CUT;
	}
	return flags;
}

/* The image of @t's process: its leader's start time and execs (format/records.h RC_IMAGE()). */
static __always_inline __u64 rc_image(const struct task_struct *t)
{
	const struct task_struct *leader = RC_TASK(t, group_leader);

	return RC_IMAGE(RC_TASK(leader, start_time), RC_TASK(leader, self_exec_id));
}

/*
 * record -g with -e: a stack record after an event's, made in a per-CPU
 * buffer of its nesting level (a task's program, then an interrupt's on
 * top of it, then an NMI's), as the kernel's bpf_trace_nest_level picks
 * perf_event_output()'s: a level is taken with a plain increment, which an
 * interrupt between its load and its store can only see whole. The
 * buffers and the level are every source's (user space shares the maps).
 * Its counters: slot RC_EV_STACK, from any context: atomic adds.
 */
struct rc_stack_buf {
	struct rc_ev_stack s;
	__u64 frames[2 * RC_STACK_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RC_STACK_NEST);
	__type(key, __u32);
	__type(value, struct rc_stack_buf);
} stackbufs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} stacknest SEC(".maps");

static __always_inline void rc_emit_stack(void *ctx, const struct rc_rec_hdr *ev)
{
	struct rc_bpf_stats *st = rc_stats();
	__u32 zero = 0, lvl, nk, nu, size;
	struct rc_stack_buf *b;
	__u32 *nest;
	__u16 flags;
	long err;

	nest = bpf_map_lookup_elem(&stacknest, &zero);
	if (!nest || !st)
		return;
	lvl = *nest;
	*nest = lvl + 1;
	__sync_fetch_and_add(&st->made[RC_EV_STACK], 1);
	b = lvl < RC_STACK_NEST ? bpf_map_lookup_elem(&stackbufs, &lvl) : NULL;
	if (!b) {
		__sync_fetch_and_add(&st->dropped[RC_EV_STACK], 1);
		goto out;
	}
	flags = rc_take_stacks(ctx, b->frames, true, &nk, &nu);
	size = sizeof(b->s) + (nk + nu) * sizeof(__u64);
	b->s.hdr = *ev;
	b->s.hdr.type = RC_EV_STACK;
	b->s.hdr.size = size;
	b->s.hdr.flags = flags;
	b->s.event = ev->type;
	b->s.__unused = 0;
	b->s.stack_id = 0;
	b->s.nkernel = nk;
	b->s.nuser = nu;
	b->s.image = nu ? rc_image(rc_current()) : 0;
	err = rc_output(ctx, st, b, size);
	if (err)
		__sync_fetch_and_add(&st->dropped[RC_EV_STACK], 1);
out:
	*nest = lvl;
}

#endif /* RINGCAP_COMMON_BPF_H */
