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
	RC_EV_SAMPLE = 7, /* record -F / -c: a CPU sample */
	RC_EV_OFFCPU = 8, /* record --off-cpu: a task blocked, from switch-out to switch-in */
	RC_EV_STACK = 9,  /* record -e ... -g: the stack of the record before it */
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

/*
 * A CPU sample (profile.bpf.c): where the task was when the sampling
 * event fired. The program writes its stack after the record when
 * knobs.stacks asks for it: nkernel kernel frames, innermost first, then
 * nuser user frames, innermost first; user space takes them off, stores
 * each distinct stack once (a STACKS block, ringcap-file(5)) and puts its
 * id in stack_id. In a capture file nkernel and nuser are 0 and the
 * record is sizeof(struct rc_ev_sample) bytes.
 */
#define RC_STACK_MAX 127 /* frames a side: the kernel's default perf_event_max_stack */

/* rc_ev_sample.hdr.flags */
#define RC_SAMPLE_F_USER	 0x1 /* the sampled instruction was in user mode */
#define RC_SAMPLE_F_KSTACK_CUT	 0x2 /* the kernel stack filled RC_STACK_MAX frames: cut */
#define RC_SAMPLE_F_USTACK_CUT	 0x4 /* the user stack filled RC_STACK_MAX frames: cut */
#define RC_SAMPLE_F_USTACK_FAIL	 0x8 /* the user stack could not be read */
#define RC_SAMPLE_F_DWARF	 0x10 /* --call-graph=dwarf: a struct rc_ustack follows */

struct rc_ev_sample {
	struct rc_ev_hdr hdr;
	__u64 ip;	/* the sampled instruction */
	__u64 period;	/* the sampling event's count since the last sample (ns for cpu-clock) */
	__u32 stack_id; /* 0: none; set by user space */
	__u16 nkernel;	/* frames that follow, kernel then user: 0 in a file */
	__u16 nuser;
	__u64 image; /* the process's image: its start time plus its execs (RC_IMAGE()) */
};
_Static_assert(sizeof(struct rc_ev_sample) == 72, "rc_ev_sample layout");

/*
 * --call-graph=dwarf: what a sample carries for unwinding its user stack
 * offline (lib/symbol/unwind.h). After the struct rc_ev_sample (nuser 0,
 * RC_SAMPLE_F_DWARF) comes this: the task's user registers as the kernel
 * saved them (x86-64: struct pt_regs, the UAPI user_regs_struct's order,
 * 21 words; arm64: struct user_pt_regs, x0-x30, sp, pc, pstate, 34 words);
 * then the nkernel kernel frames, then the copied bytes of the user stack
 * from sp up. User space unwinds it into user frames and takes it all
 * off: it never reaches a file.
 */
#define RC_USTACK_NREGS	  34
#define RC_USTACK_MAX	  64000 /* bytes a sample copies, at most: a record's size is a __u16 */
#define RC_USTACK_DEFAULT 8192	/* perf's default */

/* rc_ustack.flags */
#define RC_USTACK_F_SHORT   0x1 /* fewer bytes than asked: a page unreadable, or the stack's end */
#define RC_USTACK_F_NOREGS  0x2 /* the task's user registers could not be read: no bytes */
#define RC_USTACK_F_KTHREAD 0x4 /* no user part: a kernel thread, or a thread never in user mode */

struct rc_ustack {
	__u64 regs[RC_USTACK_NREGS];
	__u64 sp;     /* the user stack pointer: the first byte copied */
	__u32 size;   /* bytes asked for */
	__u32 copied; /* bytes that follow, a multiple of 8 */
	__u32 flags;
	__u32 __pad;
};
_Static_assert(sizeof(struct rc_ustack) == 8 * RC_USTACK_NREGS + 24, "rc_ustack layout");

/*
 * Which image of a process a user address belongs to: an exec replaces
 * it (self_exec_id counts them), a reused pid is another process (its
 * leader's start time differs). Named stacks are kept by process image.
 */
#define RC_IMAGE(start_time, exec_id) ((start_time) + (exec_id))

/*
 * A task's time off the CPU, blocked (offcpu.bpf.c): written when it is
 * switched in again, its header the blocked task's, at that time; its
 * stack, taken when it was switched out, after it as for a sample, and
 * taken off the same way (the same layout from stack_id on).
 */
struct rc_ev_offcpu {
	struct rc_ev_hdr hdr;
	__u64 start;	/* when it was switched out */
	__u64 blocked;	/* ns, until it was switched in */
	__u32 stack_id; /* 0: none; set by user space */
	__u16 nkernel;
	__u16 nuser;
	__u64 image; /* as a sample's */
};
_Static_assert(sizeof(struct rc_ev_offcpu) == 72, "rc_ev_offcpu layout");
_Static_assert(__builtin_offsetof(struct rc_ev_offcpu, stack_id) ==
			   __builtin_offsetof(struct rc_ev_sample, stack_id) &&
		       __builtin_offsetof(struct rc_ev_offcpu, image) ==
			   __builtin_offsetof(struct rc_ev_sample, image),
	       "an off-CPU record's stack is where a sample's is");

/*
 * The stack of an event's record (record -g with -e), written by the same
 * program just after it, with its header's time, task and CPU; its frames
 * follow, taken off in user space as a sample's are (the same layout from
 * stack_id on). A reader pairs it with the record before it of that time,
 * thread and CPU.
 */
struct rc_ev_stack {
	struct rc_ev_hdr hdr;
	__u64 event;	/* the type of the record it is the stack of */
	__u64 __unused;
	__u32 stack_id; /* set by user space */
	__u16 nkernel;
	__u16 nuser;
	__u64 image; /* as a sample's */
};
_Static_assert(sizeof(struct rc_ev_stack) == 72, "rc_ev_stack layout");
_Static_assert(__builtin_offsetof(struct rc_ev_stack, stack_id) ==
			   __builtin_offsetof(struct rc_ev_sample, stack_id) &&
		       __builtin_offsetof(struct rc_ev_stack, image) ==
			   __builtin_offsetof(struct rc_ev_sample, image),
	       "a stack record's stack is where a sample's is");

/* Per-CPU buffers for stack records: a task's program, an interrupt's, an NMI's, one more. */
#define RC_STACK_NEST 4

/*
 * Records user space adds to the stream (never made by a BPF program).
 * Their ids are above RC_EV_SLOTS: they have no BPF counters.
 */
#define RC_REC_LOST	64 /* the kernel lost records on a CPU's perf ring */
#define RC_REC_SNAPSHOT 65 /* a flight-recorder snapshot begins */
#define RC_REC_AUX                                                                                 \
	66 /* record -e PMU//: a record of the event's data ring about its AUX stream              \
	    */

/* rc_rec_lost.flags */
#define RC_LOST_F_AT_END 0x1 /* drops the kernel never reported: counted at stop */

struct rc_rec_lost {
	struct rc_ev_hdr hdr; /* ts: of the record that follows the loss; cpu: the ring's */
	__u64 lost;
	__u32 flags;
	__u32 __pad;
};
_Static_assert(sizeof(struct rc_rec_lost) == 56, "rc_rec_lost layout");

/*
 * rc_rec_aux: the data ring's record, kind its PERF_RECORD_* type:
 * AUX (11: offset, size, flags as the kernel gave them, PMU bits kept),
 * ITRACE_START (12: the task in hdr.pid/tid), LOST (2: value, records the
 * data ring lost) or AUX_OUTPUT_HW_ID (21: value, the hardware's id).
 * hdr.ts is the record's time (CLOCK_BOOTTIME), hdr.cpu its CPU.
 */
struct rc_rec_aux {
	struct rc_ev_hdr hdr;
	__u64 offset;
	__u64 size;
	__u64 flags;
	__u64 value;
	__u32 kind;
	__u32 __pad;
};
_Static_assert(sizeof(struct rc_rec_aux) == 80, "rc_rec_aux layout");

enum rc_snapshot_reason {
	RC_SNAP_SIGNAL = 1, /* SIGUSR2 */
	RC_SNAP_EXIT = 2,   /* the end of the capture */
	RC_SNAP_EVENT = 3,  /* --snapshot-on */
};

struct rc_rec_snapshot {
	struct rc_ev_hdr hdr; /* ts: of the snapshot's first record */
	__u64 seq;	      /* 1, 2, ... */
	__u64 nrec;	      /* records in the snapshot, which follow */
	__u64 last_ts;	      /* its last record's */
	__u64 taken_ts;	      /* when the rings were paused */
	__u32 reason;	      /* enum rc_snapshot_reason */
	__u32 __pad;
};
_Static_assert(sizeof(struct rc_rec_snapshot) == 80, "rc_rec_snapshot layout");

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

/* Settings every program reads from .rodata, set by user space before load. */
struct rc_knobs {
	__u32 self_tgid;    /* ringcap itself: never traced */
	__u32 filter_pids;  /* only tgids in the targets map */
	__u32 filter_comm;  /* only tasks whose comm equals comm */
	__u32 transport;    /* RC_KNOB_RINGBUF or RC_KNOB_PERFBUF: the events map's type */
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
#define RC_DYN_BASE 256
#define RC_DYN_MAX  1024
_Static_assert(RC_DYN_BASE + RC_DYN_MAX <= 4096, "dynamic ids are event ids");

struct rc_dyn_stats {
	__u64 made;
	__u64 dropped;
	__u64 filtered;
};

/* A tracepoint's record: the raw record the kernel made, after the header. */
#define RC_TP_MAX_RAW	  8192 /* PERF_MAX_TRACE_SIZE: the most a tracepoint gives */
#define RC_TP_MAX_LOCS	  8
#define RC_TP_F_TRUNCATED 0x1 /* hdr.flags: the raw record was longer than RC_TP_MAX_RAW */
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

#define RC_UPROBE_NARGS 6

/* the bpf_cookie of a uprobe link: RC_DYN_BASE + index */
struct rc_ev_uprobe {
	struct rc_ev_hdr hdr;
	__u64 args[RC_UPROBE_NARGS];
};
_Static_assert(sizeof(struct rc_ev_uprobe) == 88, "rc_ev_uprobe layout");

struct rc_ev_uretprobe {
	struct rc_ev_hdr hdr;
	__u64 ret;
};
_Static_assert(sizeof(struct rc_ev_uretprobe) == 48, "rc_ev_uretprobe layout");

#endif /* RINGCAP_BPF_EVENTS_H */
