/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the BPF programs and user space share besides the records (those are
 * lib/format/records.h): the knobs, counters and map layouts, the
 * kernel-to-user ABI.
 *
 * Included by BPF code (after vmlinux.h) and by user space (after
 * <linux/types.h>). Only __u32/__u64-style types, explicit padding, and a
 * size assertion on every struct: both compilers must agree on the layout.
 */
#ifndef RINGCAP_BPF_EVENTS_H
#define RINGCAP_BPF_EVENTS_H

#include "format/records.h"

/*
 * The targets map when knobs.filter_pids is set: a bit per tgid, 64 to a
 * word, for every tgid a 64-bit kernel can give (PID_MAX_LIMIT, 4M):
 * 512 KiB.
 */
#define RC_TGID_LIMIT	(1u << 22)
#define RC_TARGET_WORDS (RC_TGID_LIMIT / 64)

/*
 * The compat programs' hash maps (common.bpf.h, RC_COMPAT): syscalls in
 * progress at once without task storage (syscalls.bpf.c), processes
 * followed at once without atomic and/or (follow.bpf.c).
 */
#define RC_PENDING_MAX 16384
#define RC_FOLLOW_MAX  16384

/* rc_knobs.transport */
#define RC_KNOB_RINGBUF 0
#define RC_KNOB_PERFBUF 1
#define RC_KNOB_RINGBUF_PCPU 2 /* a BPF ring buffer per CPU: the rings map (common.bpf.h) */

/* Settings every program reads from .rodata, set by user space before load. */
struct rc_knobs {
	__u32 self_tgid;    /* ringcap itself: never traced */
	__u32 filter_pids;  /* only tgids in the targets map */
	__u32 filter_comm;  /* only tasks whose comm equals comm */
	__u32 transport;    /* RC_KNOB_*: the events map's type, or the rings map */
	__u64 wakeup_bytes; /* ringbuf: 0, kernel's adaptive wakeup; else force above this */
	char comm[RC_COMM_LEN];
	__u32 snap_type; /* perfbuf: notify user space when a record of this type is made */
	__s32 snap_nr;	 /* ... and, for syscalls, of this number (-1: any) */
	__u32 stacks;	 /* RC_KNOB_STACK_*: the stacks a sample takes */
	__u32 max_stack; /* frames a side: RC_STACK_MAX, or kernel.perf_event_max_stack if less */
};
_Static_assert(sizeof(struct rc_knobs) == 56, "rc_knobs layout");

/* rc_knobs.stacks */
#define RC_KNOB_STACK_KERNEL 0x1
#define RC_KNOB_STACK_USER   0x2

/* The largest record a BPF program makes, for the perfbuf scratch space. */
#define RC_SCRATCH_SIZE 512

/*
 * Per-CPU counters, one element of the stats map. made = dropped +
 * submitted; filtered counts events out of scope (not made, not drops).
 */
#define RC_EV_SLOTS 16 /* a power of two above the highest id, for masking */
_Static_assert(RC_EV_MAX <= RC_EV_SLOTS, "RC_EV_SLOTS too small");

struct rc_bpf_stats {
	__u64 made[RC_EV_SLOTS];
	__u64 dropped[RC_EV_SLOTS];
	__u64 filtered[RC_EV_SLOTS];
	__u64 since_query; /* bytes this CPU submitted, every program's, since it last looked */
	__u64 period_sum;  /* the sampling program's: its runs' sample periods, summed */
};

/*
 * Events described at record time (tracepoints by name, uprobes, a user's
 * BPF object): ids RC_DYN_BASE + index, counted per index in the dstats
 * map, not in rc_bpf_stats.
 */
#define RC_DYN_BASE RC_FIRST_DYN_ID
#define RC_DYN_MAX  1024
_Static_assert(RC_DYN_BASE + RC_DYN_MAX <= RC_MAX_EVENT_ID + 1, "dynamic ids are event ids");

struct rc_dyn_stats {
	__u64 made;
	__u64 dropped;
	__u64 filtered;
};

/* dyn.bpf.c's handle_tp_N: a program for each N, a multiple of 4, from 8 to this */
#define RC_TP_FIXED_MAX 192

/*
 * syscalls:sys_enter_NAME and sys_exit_NAME recorded from the raw
 * sys_enter and sys_exit tracepoints (dyn.bpf.c, handle_sc_*): the
 * scevents map's element nr * 2 (entry) or nr * 2 + 1 (exit) holds the
 * event's index + 1, or 0. Syscall numbers below RC_SC_NR_MAX.
 */
#define RC_SC_NR_MAX 1024

/*
 * dyn.bpf.c's sc_paths: the record sizes of the syscall events a
 * recording has, a bit each, set before the load so that the verifier
 * walks only those paths: RC_SC_PATH_ENTER(n) for an entry of n
 * arguments (0 to 6), RC_SC_PATH_EXIT for an exit
 */
#define RC_SC_PATH_ENTER(n) (1u << (n))
#define RC_SC_PATH_EXIT	    (1u << 7)
#define RC_SC_PATHS_ALL	    0xffu

/*
 * Kernels without BPF attach cookies (before 5.15): dyn.bpf.c's slot
 * programs, one per tracepoint or probe, each knowing its slot by its
 * name. The slots map's element at the slot holds the event's index + 1:
 * tracepoints at 0.., uprobes at RC_SLOT_UPROBE.., uretprobes at
 * RC_SLOT_URETPROBE...
 */
#define RC_SLOTS_TP	  64
#define RC_SLOTS_PROBE	  32
#define RC_SLOT_UPROBE	  RC_SLOTS_TP
#define RC_SLOT_URETPROBE (RC_SLOTS_TP + RC_SLOTS_PROBE)
#define RC_SLOTS	  (RC_SLOTS_TP + 2 * RC_SLOTS_PROBE)

/* tpconf map value, at the event's index: its id (the link's cookie) - RC_DYN_BASE */
struct rc_tp_conf {
	__u16 type;	 /* RC_DYN_BASE + index */
	__u16 fixed;	 /* the raw record's fixed part */
	__u16 nlocs;	 /* __data_loc / __rel_loc words to follow */
	__u16 ftrace_id; /* the tracepoint's, its records' common_type */
	__u16 loc_off[RC_TP_MAX_LOCS];
	__u8 loc_rel[RC_TP_MAX_LOCS];
	/*
	 * A syscall event's: where its format puts __syscall_nr, 12 where
	 * the common fields are 12 bytes (PREEMPT_RT's 6.1, with
	 * common_preempt_lazy_count); else 0. The kernel hands a perf
	 * tracepoint's BPF program a ctx of its own for syscall events
	 * (perf_call_bpf_enter(): the number as a long at 8, the arguments
	 * from 16), not the record its format describes.
	 */
	__u16 nr_off;
	__u16 __pad[3];
};
_Static_assert(sizeof(struct rc_tp_conf) == 40, "rc_tp_conf layout");

#endif /* RINGCAP_BPF_EVENTS_H */
