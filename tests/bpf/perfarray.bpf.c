// SPDX-License-Identifier: GPL-2.0-only
/*
 * A test object for record --bpf over a perf event array: on each
 * getppid() of the task named target_comm, a record with its pid, tid and
 * a sequence number, output to the calling CPU's ring.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct pa_event {
	__u32 pid;
	__u32 tid;
	__u64 seq;
};

/* clang writes into the BTF only the types a global or a signature uses */
struct pa_event *unused_pa_event __attribute__((unused));

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} pa_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} pa_seq SEC(".maps");

const volatile char target_comm[16] = "";

SEC("tracepoint/syscalls/sys_enter_getppid")
int pa_getppid(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pa_event e;
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
	cnt = bpf_map_lookup_elem(&pa_seq, &zero);
	if (!cnt)
		return 0;
	e.pid = id >> 32;
	e.tid = (__u32)id;
#ifdef PA_ATOMIC_SEQ
	/* one counter for every CPU's records: BPF atomic fetch-add, Linux 5.12 */
	e.seq = __sync_fetch_and_add(cnt, 1);
#else
	/* a plain increment, for a workload of one thread, loadable before 5.12 */
	e.seq = (*cnt)++;
#endif
	bpf_perf_event_output(ctx, &pa_events, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}
