// SPDX-License-Identifier: GPL-2.0-only
/*
 * opensnoop for ringcap: every openat() of the processes named by
 * target_comm (all when empty), as a struct ringcap decodes from this
 * object's BTF.
 *
 *   clang -g -O2 -target bpf -I/usr/include/$(uname -m)-linux-gnu \
 *           -c examples/opensnoop.bpf.c -o opensnoop.bpf.o
 *   ringcap record --bpf opensnoop.bpf.o --event-type event \
 *           --set target_comm=cat -o open.rcap -- cat /etc/hostname
 *   ringcap report open.rcap
 *
 * Only UAPI headers: no vmlinux.h needed. -g keeps the BTF that describes
 * struct event; ringcap stores it in the capture.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define TASK_COMM_LEN 16
#define NAME_LEN      128

enum open_mode {
	OPEN_READ = 0,
	OPEN_WRITE = 1,
	OPEN_RDWR = 2,
};

struct open_args {
	__s32 dfd;
	__u32 flags;
	__u32 mode;
};

struct event {
	__u32 pid; /* ringcap shows these two and comm in its own columns */
	__u32 tid;
	char comm[TASK_COMM_LEN];
	struct open_args args;
	enum open_mode access;
	char filename[NAME_LEN];
};

/* what the syscalls:sys_enter_openat tracepoint gives (its format) */
struct sys_enter_openat {
	__u64 common;
	__s64 nr;
	__s64 dfd;
	const char *filename;
	__s64 flags;
	__s64 mode;
};

/*
 * clang writes into the BTF only the types a global or a function's
 * signature uses: this puts struct event there, for ringcap to decode with.
 */
struct event *unused_event __attribute__((unused));

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

const volatile char target_comm[TASK_COMM_LEN] = "";

static __always_inline int wanted(const char *comm)
{
	int i;

	if (!target_comm[0])
		return 1;
	for (i = 0; i < TASK_COMM_LEN; i++) {
		if (comm[i] != target_comm[i])
			return 0;
		if (!comm[i])
			return 1;
	}
	return 1;
}

SEC("tracepoint/syscalls/sys_enter_openat")
int trace_openat(struct sys_enter_openat *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct event *e;
	char comm[TASK_COMM_LEN];

	bpf_get_current_comm(comm, sizeof(comm));
	if (!wanted(comm))
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return 0;
	e->pid = id >> 32;
	e->tid = (__u32)id;
	__builtin_memcpy(e->comm, comm, sizeof(comm));
	e->args.dfd = ctx->dfd;
	e->args.flags = ctx->flags;
	e->args.mode = ctx->mode;
	e->access = ctx->flags & 3;
	bpf_probe_read_user_str(e->filename, sizeof(e->filename), ctx->filename);
	bpf_ringbuf_submit(e, 0);
	return 0;
}
