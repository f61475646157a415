/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Records the BPF programs write into the ring: the kernel-to-user ABI.
 *
 * Included by BPF code (after vmlinux.h) and by user space (after
 * <linux/types.h>). Only __u32/__u64-style types, explicit padding, and a
 * size assertion on every struct: both compilers must agree on the layout.
 * Every record size is a multiple of 8.
 */
#ifndef RINGCAP_BPF_EVENTS_H
#define RINGCAP_BPF_EVENTS_H

#define RC_COMM_LEN	 16
#define RC_FILENAME_LEN	 256
#define RC_SYSCALL_NARGS 6

enum rc_event_type {
	RC_EV_SYSCALL = 1,
	RC_EV_SCHED_SWITCH = 2,
	RC_EV_SCHED_WAKEUP = 3,
	RC_EV_SCHED_FORK = 4,
	RC_EV_SCHED_EXEC = 5,
	RC_EV_SCHED_EXIT = 6,
	RC_EV_MAX, /* one past the highest built-in id */
};

/* Common header of every record. pid is the thread group id, tid the thread. */
struct rc_ev_hdr {
	__u64 ts; /* CLOCK_BOOTTIME, ns */
	__u32 pid;
	__u32 tid;
	__u16 type; /* enum rc_event_type */
	__u16 size; /* whole record, header included */
	__u16 cpu;
	__u16 flags;
	char comm[RC_COMM_LEN];
};
_Static_assert(sizeof(struct rc_ev_hdr) == 40, "rc_ev_hdr layout");

/* rc_ev_syscall.hdr.flags */
#define RC_SYSCALL_F_NORETURN 0x1 /* exit/exit_group: emitted at entry */

struct rc_ev_syscall {
	struct rc_ev_hdr hdr;
	__u32 nr;
	__u32 __pad;
	__s64 ret;
	__u64 duration; /* ns from entry to exit */
	__u64 args[RC_SYSCALL_NARGS];
};
_Static_assert(sizeof(struct rc_ev_syscall) == 112, "rc_ev_syscall layout");

/* prev_state values: one bit, as the sched_switch tracepoint reports it */
#define RC_TASK_RUNNING	  0x000
#define RC_TASK_PREEMPTED 0x100 /* "R+" */

struct rc_ev_switch {
	struct rc_ev_hdr hdr; /* the task switched out */
	__u32 prev_state;
	__s32 prev_prio;
	__u32 next_pid;
	__u32 next_tid;
	__s32 next_prio;
	__u32 __pad;
	char next_comm[RC_COMM_LEN];
};
_Static_assert(sizeof(struct rc_ev_switch) == 80, "rc_ev_switch layout");

struct rc_ev_wakeup {
	struct rc_ev_hdr hdr; /* the waker */
	__u32 pid;
	__u32 tid;
	__s32 prio;
	__u32 target_cpu;
	char wakee_comm[RC_COMM_LEN];
};
_Static_assert(sizeof(struct rc_ev_wakeup) == 72, "rc_ev_wakeup layout");

struct rc_ev_fork {
	struct rc_ev_hdr hdr; /* the parent */
	__u32 child_pid;
	__u32 child_tid;
	char child_comm[RC_COMM_LEN];
};
_Static_assert(sizeof(struct rc_ev_fork) == 64, "rc_ev_fork layout");

struct rc_ev_exec {
	struct rc_ev_hdr hdr;
	__u32 old_tid;
	__u32 __pad;
	char filename[RC_FILENAME_LEN];
};
_Static_assert(sizeof(struct rc_ev_exec) == 304, "rc_ev_exec layout");

struct rc_ev_exit {
	struct rc_ev_hdr hdr;
	__s32 exit_code;
	__u32 group_dead;
};
_Static_assert(sizeof(struct rc_ev_exit) == 48, "rc_ev_exit layout");

/* Settings every program reads from .rodata, set by user space before load. */
struct rc_knobs {
	__u32 self_tgid;   /* ringcap itself: never traced */
	__u32 filter_pids; /* only tgids in the targets map */
	__u32 filter_comm; /* only tasks whose comm equals comm */
	__u32 __pad;
	__u64 wakeup_bytes; /* 0: kernel's adaptive wakeup; else force above this */
	char comm[RC_COMM_LEN];
};
_Static_assert(sizeof(struct rc_knobs) == 40, "rc_knobs layout");

/*
 * Per-CPU counters, one element of the stats map. made = dropped +
 * submitted; filtered counts events out of scope (not made, not drops).
 */
#define RC_EV_SLOTS 8 /* a power of two above the highest id, for masking */
_Static_assert(RC_EV_MAX <= RC_EV_SLOTS, "RC_EV_SLOTS too small");

struct rc_bpf_stats {
	__u64 made[RC_EV_SLOTS];
	__u64 dropped[RC_EV_SLOTS];
	__u64 filtered[RC_EV_SLOTS];
};

#endif /* RINGCAP_BPF_EVENTS_H */
