// SPDX-License-Identifier: GPL-2.0-only
/*
 * A test object for record --bpf: a struct with no pid, tid or comm, with
 * a nested struct and an array of structs, emitted on each getppid() of
 * the task named target_comm to both a BPF ring buffer and a perf event
 * array, so that a test records the one it names with --map. What is not
 * drained is harmless: the ring buffer fills, the perf output finds no
 * ring (-ENOENT).
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct np_inner {
	__u32 a;
	__s16 b;
	__u8 c;
	__u8 d;
};

struct np_pair {
	__u16 x;
	__u16 y;
};

struct np_event {
	__u64 seq;
	struct np_inner inner;
	struct np_pair pairs[2];
};

/* clang writes into the BTF only the types a global or a signature uses */
struct np_event *unused_np_event __attribute__((unused));

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} np_ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} np_perf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} np_seq SEC(".maps");

const volatile char target_comm[16] = "";

SEC("tracepoint/syscalls/sys_enter_getppid")
int np_getppid(void *ctx)
{
	struct np_event e = {};
	char comm[16];
	__u32 zero = 0;
	__u64 *cnt;
	int i;

	bpf_get_current_comm(comm, sizeof(comm));
	for (i = 0; i < 16; i++) {
		if (comm[i] != target_comm[i])
			return 0;
		if (!comm[i])
			break;
	}
	cnt = bpf_map_lookup_elem(&np_seq, &zero);
	if (!cnt)
		return 0;
	/*
	 * A plain increment: the workloads recorded with this object are one
	 * thread. An atomic fetch-add would need Linux 5.12.
	 */
	e.seq = (*cnt)++;
	e.inner.a = e.seq * 3;
	e.inner.b = -(__s16)(e.seq & 0x7fff);
	e.inner.c = e.seq & 0xff;
	e.inner.d = 7;
	for (i = 0; i < 2; i++) {
		e.pairs[i].x = e.seq + i;
		e.pairs[i].y = i;
	}
	bpf_ringbuf_output(&np_ring, &e, sizeof(e), 0);
	bpf_perf_event_output(ctx, &np_perf, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}
