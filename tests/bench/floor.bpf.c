// SPDX-License-Identifier: GPL-2.0-only
/*
 * The benchmark's reference programs, for the lead table's like-for-like
 * comparison (README, Performance):
 *
 *   handle_floor      on a tracepoint, counts the run and nothing else:
 *                     what any BPF program there costs at the least
 *   handle_floor_btf  the same on the raw sys_exit tracepoint (tp_btf)
 *   handle_ref_N      reserves N bytes in a BPF ring buffer, fills them
 *                     (the time, pid and tid, zeroes), submits them with
 *                     ringcap's wake-up policy, and counts a full ring:
 *                     the least a recorder writing N-byte records can do
 *   handle_ref_btf_N  the same on the raw sys_exit tracepoint (tp_btf),
 *                     beside ringcap's built-in syscalls source
 *   handle_floor_sc   handle_floor on the raw sys_enter tracepoint (tp_btf),
 *                     for syscall number sc_nr only: ringcap's way to a
 *                     syscall event (syscalls:sys_enter_NAME)
 *   handle_ref_sc     handle_ref_56 the same way
 *   handle_pcpu_sc    handle_pcpu_56 the same way
 *   handle_pcpu_56    handle_ref_56 into this CPU's own BPF ring buffer, one
 *                     of an array of rings (BPF_MAP_TYPE_ARRAY_OF_MAPS)
 *                     indexed by the CPU: no ring shared between CPUs
 *   handle_batch_56   the same 56-byte records staged in a per-CPU array,
 *                     published FLOOR_BATCH (16) at a time with one
 *                     bpf_ringbuf_output()
 *                     into the shared ring: one reservation (one take of the
 *                     ring's lock) a batch
 *   handle_perf_56    the same record built on the stack and copied out by
 *                     bpf_perf_event_output() to this CPU's perf ring
 *   handle_pair_enter, handle_pair_exit
 *                     the least a recorder of ringcap's paired syscall
 *                     record can do: at sys_enter, the time and the
 *                     arguments into task storage; at sys_exit, a 112-byte
 *                     record (ringcap's rc_ev_syscall: the time, ids, the
 *                     number, the return value, the duration and the
 *                     arguments) reserved, filled and submitted
 *
 * N is 24, 56 (ringcap's record of a syscall tracepoint without
 * arguments: its 40-byte header and 16 raw bytes) or 112 (ringcap's
 * paired syscall record). Tracepoint programs never nest on a CPU (the
 * kernel skips one that would), so the per-CPU counts take plain adds.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "floor.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096 * 16); /* set by the runner */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct floor_counts);
} counts SEC(".maps");

/* ringcap's policy: force a wake-up at this many pending bytes, none below; 0: the kernel's */
const volatile __u64 wakeup_bytes = 0;
/*
 * -W: ringcap's check (bpf/common.bpf.h, rc_wakeup_flags()) instead: each
 * CPU asks the ring once every wakeup_bytes / 16 bytes it wrote, and only
 * while the reader sleeps (the reader map's word, set by the runner around
 * its poll)
 */
const volatile bool lazy_wakeup = false;
/* handle_*_sc: the syscall number recorded */
const volatile __s64 sc_nr = -1;

/* handle_pcpu_56: a ring a CPU, set by the runner (max_entries: the CPUs) */
struct pcpu_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096 * 16);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct pcpu_ring);
} rings SEC(".maps");

/* handle_batch_56: this CPU's records not yet published */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct floor_batch);
} batches SEC(".maps");

/* handle_perf_56 */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} pevents SEC(".maps");

static __always_inline struct floor_counts *my_counts(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counts, &zero);
}

SEC("tracepoint")
int handle_floor(void *ctx)
{
	struct floor_counts *c = my_counts();

	if (c)
		c->hits++;
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(handle_floor_btf, struct pt_regs *regs, long ret)
{
	struct floor_counts *c = my_counts();

	if (c)
		c->hits++;
	return 0;
}

/* -W: non-zero while the runner sleeps in its poll */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} reader SEC(".maps");

/* -W: bytes this CPU wrote since it last asked its ring */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} since SEC(".maps");

/* The flags for submitting @size bytes to @ring */
static __always_inline __u64 ring_wakeup_flags(void *ring, __u32 size)
{
	const volatile __u64 *asleep;
	__u32 zero = 0;
	__u64 *n;

	if (!wakeup_bytes)
		return 0;
	if (lazy_wakeup) {
		n = bpf_map_lookup_elem(&since, &zero);
		if (!n)
			return BPF_RB_NO_WAKEUP;
		*n += size;
		if (*n < wakeup_bytes / 16)
			return BPF_RB_NO_WAKEUP;
		*n = 0;
		asleep = bpf_map_lookup_elem(&reader, &zero);
		if (!asleep || !*asleep)
			return BPF_RB_NO_WAKEUP;
	}
	return bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
									   : BPF_RB_NO_WAKEUP;
}

static __always_inline __u64 wakeup_flags_sz(__u32 size)
{
	return ring_wakeup_flags(&events, size);
}

static __always_inline int ref(const __u32 size)
{
	__u64 *r = bpf_ringbuf_reserve(&events, size, 0);
	__u32 i;

	if (!r) {
		struct floor_counts *c = my_counts();

		if (c)
			c->dropped++;
		return 0;
	}
	r[0] = bpf_ktime_get_boot_ns();
	r[1] = bpf_get_current_pid_tgid();
#pragma unroll
	for (i = 2; i < size / 8; i++)
		r[i] = 0;
	bpf_ringbuf_submit(r, wakeup_flags_sz(size));
	return 0;
}

#define REF(n)                                                                                     \
	SEC("tracepoint")                                                                          \
	int handle_ref_##n(void *ctx)                                                              \
	{                                                                                          \
		return ref(n);                                                                     \
	}                                                                                          \
	SEC("tp_btf/sys_exit")                                                                     \
	int BPF_PROG(handle_ref_btf_##n, struct pt_regs *regs, long ret)                           \
	{                                                                                          \
		return ref(n);                                                                     \
	}

REF(24)
REF(56)
REF(112)

static __always_inline void count_drops(__u64 n)
{
	struct floor_counts *c = my_counts();

	if (c)
		c->dropped += n;
}

static __always_inline int pcpu(void)
{
	__u32 cpu = bpf_get_smp_processor_id();
	void *ring = bpf_map_lookup_elem(&rings, &cpu);
	__u64 *r;
	__u32 i;

	if (!ring)
		return 0;
	r = bpf_ringbuf_reserve(ring, 56, 0);
	if (!r) {
		count_drops(1);
		return 0;
	}
	r[0] = bpf_ktime_get_boot_ns();
	r[1] = bpf_get_current_pid_tgid();
#pragma unroll
	for (i = 2; i < 56 / 8; i++)
		r[i] = 0;
	bpf_ringbuf_submit(r, ring_wakeup_flags(ring, 56));
	return 0;
}

SEC("tracepoint")
int handle_pcpu_56(void *ctx)
{
	return pcpu();
}

/* handle_pcpu_56 on the raw sys_enter tracepoint, as ringcap's syscall events are */
SEC("tp_btf/sys_enter")
int BPF_PROG(handle_pcpu_sc, struct pt_regs *regs, long id)
{
	if (id != sc_nr)
		return 0;
	return pcpu();
}

SEC("tracepoint")
int handle_batch_56(void *ctx)
{
	__u32 zero = 0, n;
	struct floor_batch *b = bpf_map_lookup_elem(&batches, &zero);
	__u64 *r;
	__u32 i;

	if (!b)
		return 0;
	n = b->n;
	if (n >= FLOOR_BATCH)
		n = 0;
	r = &b->recs[n * 7];
	r[0] = bpf_ktime_get_boot_ns();
	r[1] = bpf_get_current_pid_tgid();
#pragma unroll
	for (i = 2; i < 7; i++)
		r[i] = 0;
	n++;
	if (n == FLOOR_BATCH) {
		if (bpf_ringbuf_output(&events, b->recs, sizeof(b->recs),
				       wakeup_flags_sz(sizeof(b->recs))) < 0)
			count_drops(FLOOR_BATCH);
		n = 0;
	}
	b->n = n;
	return 0;
}

SEC("tracepoint")
int handle_perf_56(void *ctx)
{
	__u64 r[7] = {};

	r[0] = bpf_ktime_get_boot_ns();
	r[1] = bpf_get_current_pid_tgid();
	if (bpf_perf_event_output(ctx, &pevents, BPF_F_CURRENT_CPU, r, sizeof(r)) < 0)
		count_drops(1);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(handle_floor_sc, struct pt_regs *regs, long id)
{
	struct floor_counts *c;

	if (id != sc_nr)
		return 0;
	c = my_counts();
	if (c)
		c->hits++;
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(handle_ref_sc, struct pt_regs *regs, long id)
{
	if (id != sc_nr)
		return 0;
	return ref(56);
}

/* the sixth argument: libbpf 1.1 stops at the fifth */
#if defined(__TARGET_ARCH_x86)
#define PAIR_ARG6(regs) ((regs)->r9)
#elif defined(__TARGET_ARCH_arm64)
#define PAIR_ARG6(regs) (((struct user_pt_regs *)(regs))->regs[5])
#else
#define PAIR_ARG6(regs) 0
#endif

struct pair_entry {
	__u64 ts;
	__s64 nr; /* -1: nothing pending */
	__u64 args[6];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct pair_entry);
} entries SEC(".maps");

SEC("tp_btf/sys_enter")
int BPF_PROG(handle_pair_enter, struct pt_regs *regs, long id)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct pair_entry *e;

	e = bpf_task_storage_get(&entries, t, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!e)
		return 0;
	e->args[0] = PT_REGS_PARM1_SYSCALL(regs);
	e->args[1] = PT_REGS_PARM2_SYSCALL(regs);
	e->args[2] = PT_REGS_PARM3_SYSCALL(regs);
	e->args[3] = PT_REGS_PARM4_SYSCALL(regs);
	e->args[4] = PT_REGS_PARM5_SYSCALL(regs);
	e->args[5] = PAIR_ARG6(regs);
	e->nr = id;
	e->ts = bpf_ktime_get_boot_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(handle_pair_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct pair_entry *e;
	__u64 *r;

	e = bpf_task_storage_get(&entries, t, NULL, 0);
	if (!e || e->nr < 0)
		return 0;
	r = bpf_ringbuf_reserve(&events, 112, 0);
	if (!r) {
		struct floor_counts *c = my_counts();

		if (c)
			c->dropped++;
		e->nr = -1;
		return 0;
	}
	r[0] = bpf_ktime_get_boot_ns();
	r[1] = bpf_get_current_pid_tgid();
	r[2] = r[3] = r[4] = 0;
	r[5] = e->nr;
	r[6] = ret;
	r[7] = r[0] - e->ts;
	__builtin_memcpy(&r[8], e->args, sizeof(e->args));
	bpf_ringbuf_submit(r, wakeup_flags_sz(112));
	e->nr = -1;
	return 0;
}
