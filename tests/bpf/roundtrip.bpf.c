// SPDX-License-Identifier: GPL-2.0-only
/*
 * A test object for record --bpf: on each getppid() of the task named
 * target_comm, a record whose every field follows from its sequence
 * number, so that a test can check each decoded value.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

enum rt_color {
	RT_RED = 1,
	RT_GREEN = 2,
	RT_BLUE = 4,
};

struct rt_inner {
	__u32 a;
	__s16 b;
	__u8 c[3];
};

struct rt_event {
	__u32 pid;
	__u32 tid;
	char comm[16];
	__u64 seq;
	struct rt_inner inner;
	__u32 arr[4];
	enum rt_color color;
	char tag[8];
	__s64 neg;
};

/*
 * clang writes into the BTF only the types a global or a function's
 * signature uses: this puts struct rt_event there, for ringcap to decode with.
 */
struct rt_event *unused_rt_event __attribute__((unused));

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} rt_events SEC(".maps");

/* a second map of another type, so that the ring is found by its type */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} rt_seq SEC(".maps");

const volatile char target_comm[16] = "";
const volatile __u32 tag_base = 0;

SEC("tracepoint/syscalls/sys_enter_getppid")
int rt_getppid(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), seq;
	struct rt_event *e;
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
	cnt = bpf_map_lookup_elem(&rt_seq, &zero);
	if (!cnt)
		return 0;
	/*
	 * A plain increment: the workloads recorded with this object are one
	 * thread. An atomic fetch-add would need Linux 5.12.
	 */
	seq = (*cnt)++;
	e = bpf_ringbuf_reserve(&rt_events, sizeof(*e), 0);
	if (!e)
		return 0;
	__builtin_memset(e, 0, sizeof(*e));
	e->pid = id >> 32;
	e->tid = (__u32)id;
	__builtin_memcpy(e->comm, comm, sizeof(comm));
	e->seq = seq;
	e->inner.a = seq * 3;
	e->inner.b = -(__s16)(seq & 0x7fff);
	e->inner.c[0] = seq & 0xff;
	e->inner.c[1] = 1;
	e->inner.c[2] = 2;
	for (i = 0; i < 4; i++)
		e->arr[i] = seq + i;
	e->color = seq % 3 == 0 ? RT_RED : seq % 3 == 1 ? RT_GREEN : RT_BLUE;
	e->tag[0] = 't';
	e->tag[1] = 'g';
	e->tag[2] = '0' + (tag_base + seq) % 10;
	e->neg = -(__s64)seq;
	bpf_ringbuf_submit(e, 0);
	return 0;
}
