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
 *
 * N is 24, 56 (ringcap's record of a syscall tracepoint without
 * arguments: its 40-byte header and 16 raw bytes) or 112 (ringcap's
 * paired syscall record). Tracepoint programs never nest on a CPU (the
 * kernel skips one that would), so the per-CPU counts take plain adds.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
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

static __always_inline __u64 wakeup_flags(void)
{
	if (!wakeup_bytes)
		return 0;
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
									     : BPF_RB_NO_WAKEUP;
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
	bpf_ringbuf_submit(r, wakeup_flags());
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
