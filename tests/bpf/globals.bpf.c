// SPDX-License-Identifier: GPL-2.0-only
/*
 * Globals of every kind rc_btf__set_global() sets, and some it must refuse,
 * for tests/test_btfdesc.c. Only opened, never loaded: the program just
 * reads them all so that none is dropped.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

enum rc_test_level {
	RC_TEST_LOW = 1,
	RC_TEST_MID = 5,
	RC_TEST_HIGH = 9,
};

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
	knob_bss = knob_int + knob_u8 + knob_bool + knob_level + knob_name[0] + knob_u64 +
		   knob_const + knob_data + knob_arr[1];
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
