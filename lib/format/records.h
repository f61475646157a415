/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The records of a capture, as the BPF programs write them into the ring
 * and as ringcap-file(5) stores them: the one definition of their layouts,
 * shared by bpf/ (through bpf/events.h), the capture engine, the format and
 * the decoders.
 *
 * Included by BPF code (after vmlinux.h, which has the fixed-width types) and
 * by user space. Only fixed-width types, explicit padding, and a size
 * assertion on every struct: both compilers must agree on the layout. Every
 * record size is a multiple of 8.
 */
#ifndef RINGCAP_FORMAT_RECORDS_H
#define RINGCAP_FORMAT_RECORDS_H

#ifndef __bpf__
#include <linux/types.h>
#include <stdint.h>
#endif

/*
 * Event ids, 1 to RC_MAX_EVENT_ID: the built-in ones (enum rc_event_type)
 * and ringcap's own below RC_FIRST_DYN_ID, those described at record time
 * (tracepoints, uprobes, a user's BPF object) from it on (ringcap-file(5)).
 */
#define RC_MAX_EVENT_ID 4095
#define RC_FIRST_DYN_ID 256

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

/**
 * struct rc_rec_hdr - the header every record in a capture starts with
 * @ts: the capture clock (rc_meta.clock_id), in ns
 * @pid: the process (thread group id)
 * @tid: the thread
 * @type: the id of the record's event in the capture's schema
 * @size: of the whole record, header included: a multiple of RC_REC_ALIGN,
 *	at least its event's size, at most RC_REC_MAX
 * @cpu: the CPU it was made on
 * @flags: per event; for syscall, 1: recorded at entry, the call did not
 *	return
 * @comm: the thread's name, NUL-padded (not always NUL-terminated)
 *
 * The layout of ringcap-file(5); the event's fields follow.
 */
struct rc_rec_hdr {
	uint64_t ts;
	uint32_t pid;
	uint32_t tid;
	uint16_t type; /* enum rc_event_type, or another event of the schema */
	uint16_t size;
	uint16_t cpu;
	uint16_t flags;
	char comm[RC_COMM_LEN];
};
_Static_assert(sizeof(struct rc_rec_hdr) == 40, "rc_rec_hdr layout");

#define RC_REC_ALIGN 8
#define RC_REC_MAX   65528 /* largest record size */

/* rc_ev_syscall.hdr.flags */
#define RC_SYSCALL_F_NORETURN 0x1 /* exit/exit_group: emitted at entry */
/* a 32-bit task's call: nr is of its table, not the 64-bit one the capture names */
#define RC_SYSCALL_F_COMPAT 0x2

struct rc_ev_syscall {
	struct rc_rec_hdr hdr;
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
	struct rc_rec_hdr hdr; /* the task switched out */
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
	struct rc_rec_hdr hdr; /* the waker */
	__u32 pid;
	__u32 tid;
	__s32 prio;
	__u32 target_cpu;
	char wakee_comm[RC_COMM_LEN];
};
_Static_assert(sizeof(struct rc_ev_wakeup) == 72, "rc_ev_wakeup layout");

struct rc_ev_fork {
	struct rc_rec_hdr hdr; /* the parent */
	__u32 child_pid;
	__u32 child_tid;
	char child_comm[RC_COMM_LEN];
};
_Static_assert(sizeof(struct rc_ev_fork) == 64, "rc_ev_fork layout");

struct rc_ev_exec {
	struct rc_rec_hdr hdr;
	__u32 old_tid;
	__u32 __pad;
	char filename[RC_FILENAME_LEN];
};
_Static_assert(sizeof(struct rc_ev_exec) == 304, "rc_ev_exec layout");

struct rc_ev_exit {
	struct rc_rec_hdr hdr;
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
	struct rc_rec_hdr hdr;
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
	struct rc_rec_hdr hdr;
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
	struct rc_rec_hdr hdr;
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
	struct rc_rec_hdr hdr; /* ts: of the record that follows the loss; cpu: the ring's */
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
	struct rc_rec_hdr hdr;
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
	struct rc_rec_hdr hdr; /* ts: of the snapshot's first record */
	__u64 seq;	      /* 1, 2, ... */
	__u64 nrec;	      /* records in the snapshot, which follow */
	__u64 last_ts;	      /* its last record's */
	__u64 taken_ts;	      /* when the rings were paused */
	__u32 reason;	      /* enum rc_snapshot_reason */
	__u32 __pad;
};
_Static_assert(sizeof(struct rc_rec_snapshot) == 80, "rc_rec_snapshot layout");

/* A tracepoint's record: the raw record the kernel made, after the header. */
#define RC_TP_MAX_RAW	  8192 /* PERF_MAX_TRACE_SIZE: the most a tracepoint gives */
#define RC_TP_MAX_LOCS	  8
#define RC_TP_F_TRUNCATED 0x1 /* hdr.flags: the raw record was longer than RC_TP_MAX_RAW */

#define RC_UPROBE_NARGS 6

/* the bpf_cookie of a uprobe link: RC_DYN_BASE + index */
struct rc_ev_uprobe {
	struct rc_rec_hdr hdr;
	__u64 args[RC_UPROBE_NARGS];
};
_Static_assert(sizeof(struct rc_ev_uprobe) == 88, "rc_ev_uprobe layout");

struct rc_ev_uretprobe {
	struct rc_rec_hdr hdr;
	__u64 ret;
};
_Static_assert(sizeof(struct rc_ev_uretprobe) == 48, "rc_ev_uretprobe layout");

#endif /* RINGCAP_FORMAT_RECORDS_H */
