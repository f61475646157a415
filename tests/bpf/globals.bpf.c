// SPDX-License-Identifier: GPL-2.0-only
/*
 * Globals of every kind rc_btf__set_global() sets, and some it must refuse,
 * and an event struct as clang describes it, for tests/test_btfdesc.c. The
 * tests open it and may load it, never attach it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

enum rc_test_level {
	RC_TEST_LOW = 1,
	RC_TEST_MID = 5,
	RC_TEST_HIGH = 9,
};

struct rc_test_event {
	__u32 pid;
	char comm[16];
	enum rc_test_level level;
	__u64 ts;
	__u8 addr[4];
	__u32 flags : 4, kind : 4;
};

/* clang leaves out of the BTF a struct only reached through pointers */
struct rc_test_event *unused_event __attribute__((unused));

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

/* settable: const volatile, in .rodata */
const volatile int knob_int = -1;
const volatile __u8 knob_u8 = 7;
const volatile bool knob_bool = false;
const volatile enum rc_test_level knob_level = RC_TEST_LOW;
const volatile char knob_name[16] = "init";
const volatile __u64 knob_u64 = 0;

/* not settable */
const volatile __u32 knob_arr[2] = { 1, 2 }; /* const volatile, of a type not taken */
const int knob_const = 3;		     /* const, not volatile: the compiler may fold it */
int knob_data = 1;			     /* .data */
__u64 knob_bss;				     /* .bss */

SEC("tp/syscalls/sys_enter_getpgid")
int handle_getpgid(void *ctx)
{
	struct rc_test_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (e) {
		__builtin_memset(e, 0, sizeof(*e));
		e->level = knob_level;
		bpf_ringbuf_submit(e, 0);
	}
	knob_bss = knob_int + knob_u8 + knob_bool + knob_level + knob_name[0] + knob_u64 +
		   knob_const + knob_data + knob_arr[1];
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
