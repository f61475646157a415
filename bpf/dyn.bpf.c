// SPDX-License-Identifier: GPL-2.0-only
/*
 * Events described at record time: any tracepoint by name, and uprobes.
 *
 * Tracepoint programs serve many tracepoints each: user space attaches
 * one to each tracepoint asked for, with the event's id as the link's
 * cookie, and describes each in tpconf at the event's index (id -
 * RC_DYN_BASE): an array, whose lookup the verifier inlines, where a hash
 * would cost a helper call and a hash of the key on every event. The
 * program copies the raw record the kernel made after ringcap's record
 * header: handle_tp_N (tp_fixed()) a record of N bytes with no
 * __data_loc field, with plain loads; handle_tp (tp_any()) any other, its
 * fixed part and the variable-length data its __data_loc/__rel_loc words
 * point at, with bpf_probe_read_kernel().
 *
 * The syscalls system's tracepoints (syscalls:sys_enter_NAME and
 * sys_exit_NAME) are recorded from the raw sys_enter and sys_exit
 * tracepoints instead, when this kernel has them with BTF: handle_sc_enter
 * and handle_sc_exit, by syscall number (sc_event()).
 *
 * One uprobe and one uretprobe program serve every probe: the link's
 * cookie is the event's id. All count per event in dstats.
 *
 * A kernel without attach cookies (before 5.15) has no way to tell a
 * program which of its links ran it: there, each tracepoint and probe
 * gets a program of its own, handle_tp_slot_K, handle_uprobe_slot_K or
 * handle_uretprobe_slot_K, whose slot K is a constant; the slots map
 * holds the event each serves (RC_SLOTS_TP and RC_SLOTS_PROBE of them).
 * A classic tracepoint program cannot read its own event's id either:
 * the kernel overwrites the first word of its record, and the verifier
 * refuses the read.
 */
#include "common.bpf.h"
/* follow's programs too, loaded when a command's children are followed (follow.bpf.h) */
#include "follow.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RC_DYN_MAX);
	__type(key, __u32);
	__type(value, struct rc_tp_conf);
} tpconf SEC(".maps");

/*
 * Each event's counters, per CPU. A tracepoint's are its program's alone,
 * which never nests in itself or another tracepoint program on a CPU (the
 * kernel skips such a run): plain adds. A probe's are written by uprobe
 * programs, which run preemptible, so two tasks on a CPU can interleave
 * in one: atomic adds.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RC_DYN_MAX);
	__type(key, __u32);
	__type(value, struct rc_dyn_stats);
} dstats SEC(".maps");

/* The event index + 1 at each slot program's slot (RC_SLOTS), or 0. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RC_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} slots SEC(".maps");

/* a record is built here: header, then the raw record, then padding */
#define TP_BUF (sizeof(struct rc_rec_hdr) + RC_TP_MAX_RAW + 8)

struct tp_buf {
	char data[TP_BUF];
};

/*
 * Two slots a CPU. TPBUF_PERF: the perf tracepoints' programs
 * (handle_tp*), which never nest in one another on a CPU: the kernel
 * skips a run while another is active there (trace_call_bpf(),
 * bpf_prog_active). TPBUF_SC: handle_sc_enter and handle_sc_exit with
 * the perf-buffer transport (with a BPF ring they build in the ring), BTF
 * programs, which that count does not guard: a perf tracepoint's program
 * in an interrupt can run in the middle of one, so they take a slot of
 * their own. They never nest in each other: both run only in a task's
 * system call, one at a time.
 */
enum { TPBUF_PERF, TPBUF_SC, TPBUF_SLOTS };

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TPBUF_SLOTS);
	__type(key, __u32);
	__type(value, struct tp_buf);
} tpbuf SEC(".maps");

static __always_inline struct rc_dyn_stats *dyn_stats(__u16 type)
{
	__u32 idx = type - RC_DYN_BASE;

	return bpf_map_lookup_elem(&dstats, &idx);
}

/* The end of the data a __data_loc (or __rel_loc at @off) word points at. */
static __always_inline __u32 loc_end(void *ctx, __u16 off, bool rel)
{
	__u32 loc = 0;

	bpf_probe_read_kernel(&loc, sizeof(loc), ctx + off);
	return (loc & 0xffff) + (loc >> 16) + (rel ? off + sizeof(loc) : 0);
}

/* Copy @size bytes of record @buf to the ring; a full ring counts a drop. */
static __always_inline void output(void *ctx, void *buf, __u32 size, struct rc_dyn_stats *st)
{
	long err;

	if (knobs.transport == RC_KNOB_PERFBUF)
		err = bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, buf, size);
	else
		err = rc_ring_output(buf, size, rc_wakeup_flags_cpu(size));
	if (err)
		st->dropped++;
	else if (knobs.stacks)
		rc_emit_stack(ctx, buf);
}

/* The event index slot program @slot serves, or -1 when it serves none. */
static __always_inline __s32 slot_index(__u32 slot)
{
	__u32 *v = bpf_map_lookup_elem(&slots, &slot);

	return v && *v ? (__s32)(*v - 1) : -1;
}

/*
 * The config and counters (@st) of tracepoint event index @key when
 * current, @cur, is in scope, counted as made; NULL when the event is not
 * recorded.
 */
static __always_inline struct rc_tp_conf *tp_scope(__u32 key, struct task_struct *cur,
						   struct rc_dyn_stats **st)
{
	struct rc_tp_conf *c;

	c = bpf_map_lookup_elem(&tpconf, &key);
	if (!c || !c->type)
		return NULL; /* not a tracepoint of ours: an element never filled */
	*st = dyn_stats(c->type);
	if (!*st)
		return NULL;
	if (!rc_task_wanted(cur)) {
		(*st)->filtered++;
		return NULL;
	}
	(*st)->made++;
	return c;
}

/*
 * A syscall event's raw record @raw as a perf tracepoint's ctx gives it:
 * the number, a long, at 8. Where the format puts it at 12 (c->nr_off),
 * move it there, zeroes before it.
 */
static __always_inline void sc_nr_fix(const struct rc_tp_conf *c, __u32 *raw)
{
	if (c->nr_off == 12) {
		raw[3] = raw[2];
		raw[2] = 0;
	}
}

static __always_inline struct tp_buf *tp_buf(__u32 slot)
{
	return bpf_map_lookup_elem(&tpbuf, &slot);
}

/*
 * Any tracepoint: the record's fixed part and the data its __data_loc
 * words point at, read with bpf_probe_read_kernel(), truncated at
 * RC_TP_MAX_RAW.
 */
static __always_inline int tp_any(void *ctx, __u32 key)
{
	struct task_struct *cur = rc_current();
	struct trace_entry *common;
	struct rc_dyn_stats *st;
	struct rc_tp_conf *c;
	struct rc_rec_hdr *h;
	__u64 len, size, pad;
	struct tp_buf *b;
	__u32 i;

	c = tp_scope(key, cur, &st);
	if (!c)
		return 0;
	b = tp_buf(TPBUF_PERF);
	if (!b)
		goto drop;
	h = (void *)b->data;
	len = c->fixed;
	for (i = 0; i < RC_TP_MAX_LOCS && i < c->nlocs; i++) {
		__u64 end = loc_end(ctx, c->loc_off[i], c->loc_rel[i]);

		if (end > len)
			len = end;
	}
	rc_fill_hdr(h, cur, c->type, 0);
	if (len > RC_TP_MAX_RAW) {
		len = RC_TP_MAX_RAW;
		h->flags = RC_TP_F_TRUNCATED;
	}
	size = (sizeof(*h) + len + 7) & ~7u;
	h->size = size;
	/* the word the record ends in: zeroes in its padding, not what the last one left */
	pad = (sizeof(*h) + len) & ~7u;
	barrier_var(pad); /* the check below on the register the store uses */
	if (pad > TP_BUF - 8)
		goto drop; /* never: the bound, for the verifier */
	*(__u64 *)(b->data + pad) = 0;
	barrier_var(len);
	if (len > RC_TP_MAX_RAW)
		goto drop; /* never: the bound, for the verifier */
	if (bpf_probe_read_kernel(b->data + sizeof(*h), len, ctx))
		goto drop;
	barrier_var(size);
	if (size > TP_BUF)
		goto drop; /* never: the bound, for the verifier */
	/*
	 * The kernel hands BPF the raw record with its first 8 bytes (the
	 * common_type, flags and preempt count) overwritten by a pt_regs
	 * pointer: put back what is known, and never a kernel address.
	 */
	common = (void *)(b->data + sizeof(*h));
	common->type = c->ftrace_id;
	common->flags = 0;
	common->preempt_count = 0;
	common->pid = h->tid;
	if (len >= 16)
		sc_nr_fix(c, (__u32 *)(b->data + sizeof(*h)));
	output(ctx, b, size, st);
	return 0;
drop:
	/* made, and not in the ring: a drop, so that the counts still add up */
	st->dropped++;
	return 0;
}

SEC("tracepoint")
int handle_tp(void *ctx)
{
	return tp_any(ctx, bpf_get_attach_cookie(ctx) - RC_DYN_BASE);
}

/*
 * Without attach cookies: a program per tracepoint (RC_SLOTS_TP), each a
 * call of this one subprogram, which libbpf appends to those that load.
 * Inlined in each, tp_any() was 64 copies, half the object: libbpf read,
 * copied and relocated them all at every open, the slots loaded or not
 * (a tenth of a short recording's CPU on a kernel that never loads them).
 */
static __noinline int tp_slot(void *ctx, __u32 key)
{
	return tp_any(ctx, key);
}

#define TP_SLOT(k)                                                                                 \
	SEC("tracepoint")                                                                          \
	int handle_tp_slot_##k(void *ctx)                                                          \
	{                                                                                          \
		__s32 idx = slot_index(k);                                                         \
		return idx < 0 ? 0 : tp_slot(ctx, idx);                                            \
	}

/* clang-format off */
TP_SLOT(0) TP_SLOT(1) TP_SLOT(2) TP_SLOT(3) TP_SLOT(4) TP_SLOT(5) TP_SLOT(6) TP_SLOT(7)
TP_SLOT(8) TP_SLOT(9) TP_SLOT(10) TP_SLOT(11) TP_SLOT(12) TP_SLOT(13) TP_SLOT(14) TP_SLOT(15)
TP_SLOT(16) TP_SLOT(17) TP_SLOT(18) TP_SLOT(19) TP_SLOT(20) TP_SLOT(21) TP_SLOT(22) TP_SLOT(23)
TP_SLOT(24) TP_SLOT(25) TP_SLOT(26) TP_SLOT(27) TP_SLOT(28) TP_SLOT(29) TP_SLOT(30) TP_SLOT(31)
TP_SLOT(32) TP_SLOT(33) TP_SLOT(34) TP_SLOT(35) TP_SLOT(36) TP_SLOT(37) TP_SLOT(38) TP_SLOT(39)
TP_SLOT(40) TP_SLOT(41) TP_SLOT(42) TP_SLOT(43) TP_SLOT(44) TP_SLOT(45) TP_SLOT(46) TP_SLOT(47)
TP_SLOT(48) TP_SLOT(49) TP_SLOT(50) TP_SLOT(51) TP_SLOT(52) TP_SLOT(53) TP_SLOT(54) TP_SLOT(55)
TP_SLOT(56) TP_SLOT(57) TP_SLOT(58) TP_SLOT(59) TP_SLOT(60) TP_SLOT(61) TP_SLOT(62) TP_SLOT(63)
    /* clang-format on */
    _Static_assert(RC_SLOTS_TP == 64, "a handle_tp_slot_K for every slot");

/*
 * A record of exactly @n bytes (a multiple of 4) with no __data_loc field,
 * read from ctx with plain loads. bpf_probe_read_kernel() is a helper
 * call, 35 ns an event on the bench machine. The kernel lets a tracepoint
 * program read ctx only up to the end of the last field of every
 * tracepoint it is attached to (perf_event_set_bpf_prog(),
 * max_ctx_offset), so each size has a program of its own, handle_tp_N,
 * whose loads end at N; user space attaches each tracepoint to the one of
 * its size (rc_bpf__tp_prog()). The first word, rewritten, is not read;
 * the word after an odd last half is zeroes.
 */
static __always_inline int tp_fixed(void *ctx, const __u32 n)
{
	const __u32 size = sizeof(struct rc_rec_hdr) + ((n + 7) & ~7u);
	struct task_struct *cur = rc_current();
	struct trace_entry *common;
	struct rc_dyn_stats *st;
	struct rc_tp_conf *c;
	struct rc_rec_hdr *h;
	struct tp_buf *b;
	__u32 *raw, off;

	c = tp_scope(bpf_get_attach_cookie(ctx) - RC_DYN_BASE, cur, &st);
	if (!c)
		return 0;
	b = tp_buf(TPBUF_PERF);
	if (!b || c->fixed != n || c->nlocs) {
		st->dropped++; /* never: user space attached the program of this size */
		return 0;
	}
	h = (void *)b->data;
	rc_fill_hdr(h, cur, c->type, size);
	raw = (__u32 *)(b->data + sizeof(*h));
#pragma unroll
	for (off = 8; off + 8 <= n; off += 8)
		*(__u64 *)&raw[off / 4] = *(const __u64 *)(ctx + off);
	if (n % 8) {
		raw[n / 4 - 1] = *(const __u32 *)(ctx + n - 4);
		raw[n / 4] = 0;
	}
	common = (void *)raw;
	common->type = c->ftrace_id;
	common->flags = 0;
	common->preempt_count = 0;
	common->pid = h->tid;
	if (n >= 16)
		sc_nr_fix(c, raw);
	output(ctx, b, size, st);
	return 0;
}

#define TP_FIXED(n)                                                                                \
	SEC("tracepoint")                                                                          \
	int handle_tp_##n(void *ctx)                                                               \
	{                                                                                          \
		return tp_fixed(ctx, n);                                                           \
	}

/* 8 to RC_TP_FIXED_MAX bytes, every multiple of 4: all but 2% of 6.18's fixed-size tracepoints */
TP_FIXED(8)
TP_FIXED(12)
TP_FIXED(16)
TP_FIXED(20)
TP_FIXED(24)
TP_FIXED(28)
TP_FIXED(32)
TP_FIXED(36)
TP_FIXED(40)
TP_FIXED(44)
TP_FIXED(48)
TP_FIXED(52)
TP_FIXED(56)
TP_FIXED(60)
TP_FIXED(64)
TP_FIXED(68)
TP_FIXED(72)
TP_FIXED(76)
TP_FIXED(80)
TP_FIXED(84)
TP_FIXED(88)
TP_FIXED(92)
TP_FIXED(96)
TP_FIXED(100)
TP_FIXED(104)
TP_FIXED(108)
TP_FIXED(112)
TP_FIXED(116)
TP_FIXED(120)
TP_FIXED(124)
TP_FIXED(128)
TP_FIXED(132)
TP_FIXED(136)
TP_FIXED(140)
TP_FIXED(144)
TP_FIXED(148)
TP_FIXED(152)
TP_FIXED(156)
TP_FIXED(160)
TP_FIXED(164)
TP_FIXED(168)
TP_FIXED(172)
TP_FIXED(176)
TP_FIXED(180)
TP_FIXED(184)
TP_FIXED(188)
TP_FIXED(192)
_Static_assert(RC_TP_FIXED_MAX == 192, "a handle_tp_N for every N up to RC_TP_FIXED_MAX");

/* The syscall events wanted, by number: see RC_SC_NR_MAX */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RC_SC_NR_MAX * 2);
	__type(key, __u32);
	__type(value, __u32);
} scevents SEC(".maps");

/* The number of the call @regs were saved for, as syscall_get_nr() takes it */
#if defined(__TARGET_ARCH_x86)
#define SC_NR(regs) ((regs)->orig_ax)
#elif defined(__TARGET_ARCH_arm64)
#define SC_NR(regs) ((regs)->syscallno)
#else
#define SC_NR(regs) (-1)
#endif

/* Argument @i (a constant) of the call @regs were saved for, as rc_syscall_args() reads it */
static __always_inline __u64 sc_arg(struct pt_regs *regs, const int i)
{
	switch (i) {
	case 0:
		return PT_REGS_PARM1_SYSCALL(regs);
	case 1:
		return PT_REGS_PARM2_SYSCALL(regs);
	case 2:
		return PT_REGS_PARM3_SYSCALL(regs);
	case 3:
		return PT_REGS_PARM4_SYSCALL(regs);
	case 4:
		return PT_REGS_PARM5_SYSCALL(regs);
	default:
		return RC_SYSCALL_ARG6(regs);
	}
}

/*
 * A syscall event's raw record at @raw, @words words after the number's
 * (the arguments, or the return value): see sc_event().
 */
static __always_inline void sc_fill_raw(__u64 *raw, const struct rc_tp_conf *c, __u32 tid,
					struct pt_regs *regs, long nr, long ret, const bool exit,
					const __u32 words)
{
	struct trace_entry *common = (void *)raw;

	raw[1] = (__u32)nr; /* __syscall_nr, and the hole after it */
	sc_nr_fix(c, (__u32 *)raw);
	if (exit) {
		raw[2] = ret;
	} else {
		if (words > 0)
			raw[2] = sc_arg(regs, 0);
		if (words > 1)
			raw[3] = sc_arg(regs, 1);
		if (words > 2)
			raw[4] = sc_arg(regs, 2);
		if (words > 3)
			raw[5] = sc_arg(regs, 3);
		if (words > 4)
			raw[6] = sc_arg(regs, 4);
		if (words > 5)
			raw[7] = sc_arg(regs, 5);
	}
	common->type = c->ftrace_id;
	common->flags = 0;
	common->preempt_count = 0;
	common->pid = tid;
}

/*
 * The record paths of sc_event() this recording takes (events.h,
 * RC_SC_PATH_*): user space clears the others before the load, so that
 * the verifier walks only these. Each path is a copy of the fill and
 * submit, and all eight cost it about 4 ms of CPU at every start.
 */
const volatile __u32 sc_paths = RC_SC_PATHS_ALL;

/*
 * ringbuf: a syscall event's record of @words words after the number
 * (a constant: bpf_ringbuf_reserve() takes only those), built where it
 * is reserved in the ring: no buffer of its own to copy it from, and
 * the time taken after the reservation, as the other sources take it.
 * 1 when submitted, its header in @copy with knobs.stacks (a submitted
 * record is not ours to read); 0 when the ring was full, counted.
 */
static __always_inline int sc_reserved(struct pt_regs *regs, const struct rc_tp_conf *c,
				       const struct task_struct *cur, long nr, long ret,
				       struct rc_dyn_stats *st, struct rc_rec_hdr *copy,
				       const bool exit, const __u32 words)
{
	const __u32 size = sizeof(struct rc_rec_hdr) + 16 + 8 * words;
	struct rc_rec_hdr *h;

	h = rc_ring_reserve(size);
	if (!h) {
		st->dropped++;
		return 0;
	}
	rc_compat_barrier(h);
	rc_fill_hdr(h, cur, c->type, size);
	sc_fill_raw((__u64 *)(h + 1), c, h->tid, regs, nr, ret, exit, words);
	if (knobs.stacks)
		*copy = *h;
	bpf_ringbuf_submit(h, rc_wakeup_flags_cpu(size));
	return 1;
}

/*
 * syscalls:sys_enter_NAME or sys_exit_NAME (@exit), from the raw
 * tracepoint, for syscall @nr: the record the kernel's syscall event
 * would have made (its format: the common fields, __syscall_nr as an int
 * at 8, or 12 on PREEMPT_RT's 6.1, then the arguments as longs from 16,
 * or the return value at 16),
 * the arguments from @regs as the kernel's own event reads them
 * (syscall_get_arguments()). The perf tracepoint the kernel's event goes
 * through costs the workload as much again as a BPF program's run:
 * a program that only counts slows a getppid() storm 1.9x there, 1.4x
 * here, every syscall of the system included.
 *
 * ringbuf: built in the ring (sc_reserved()), a program for each size a
 * syscall event's record can have: 16 bytes and a word for each
 * argument at entry, 24 at exit. perfbuf: built in this CPU's tp_buf
 * slot and copied out.
 */
static __always_inline int sc_event(void *ctx, struct pt_regs *regs, long nr, long ret,
				    const bool exit)
{
	struct task_struct *cur;
	struct rc_dyn_stats *st;
	struct rc_tp_conf *c;
	struct rc_rec_hdr *h;
	struct tp_buf *b;
	__u32 key, *idx;
	__u32 size;

	if ((unsigned long)nr >= RC_SC_NR_MAX)
		return 0; /* -1 (no syscall), x32's numbers */
	key = nr * 2 + exit;
	idx = bpf_map_lookup_elem(&scevents, &key);
	if (!idx || !*idx)
		return 0;
	cur = rc_current();
	if (in_compat_syscall(cur, regs))
		return 0;
	key = *idx - 1;
	c = bpf_map_lookup_elem(&tpconf, &key);
	/* its counters at the same index (type - RC_DYN_BASE): no wait for the config's load */
	st = bpf_map_lookup_elem(&dstats, &key);
	if (!c || !c->type || !st)
		return 0;
	if (!rc_task_wanted(cur)) {
		st->filtered++;
		return 0;
	}
	st->made++;
	if (knobs.transport != RC_KNOB_PERFBUF) {
		struct rc_rec_hdr copy;
		int r = -1; /* sc_reserved()'s: -1, no path taken */

		if (exit) {
			if ((sc_paths & RC_SC_PATH_EXIT) && ((c->fixed + 7) & ~7u) == 24)
				r = sc_reserved(regs, c, cur, nr, ret, st, &copy, true, 1);
		} else {
			switch ((c->fixed + 7) & ~7u) {
			case 16:
				if (sc_paths & RC_SC_PATH_ENTER(0))
					r = sc_reserved(regs, c, cur, nr, ret, st, &copy, false, 0);
				break;
			case 24:
				if (sc_paths & RC_SC_PATH_ENTER(1))
					r = sc_reserved(regs, c, cur, nr, ret, st, &copy, false, 1);
				break;
			case 32:
				if (sc_paths & RC_SC_PATH_ENTER(2))
					r = sc_reserved(regs, c, cur, nr, ret, st, &copy, false, 2);
				break;
			case 40:
				if (sc_paths & RC_SC_PATH_ENTER(3))
					r = sc_reserved(regs, c, cur, nr, ret, st, &copy, false, 3);
				break;
			case 48:
				if (sc_paths & RC_SC_PATH_ENTER(4))
					r = sc_reserved(regs, c, cur, nr, ret, st, &copy, false, 4);
				break;
			case 56:
				if (sc_paths & RC_SC_PATH_ENTER(5))
					r = sc_reserved(regs, c, cur, nr, ret, st, &copy, false, 5);
				break;
			case 64:
				if (sc_paths & RC_SC_PATH_ENTER(6))
					r = sc_reserved(regs, c, cur, nr, ret, st, &copy, false, 6);
				break;
			}
		}
		/* the stack after the event's record: one copy of rc_emit_stack() for all paths */
		if (r < 0)
			st->dropped++; /* never: user space checked the format */
		else if (r && knobs.stacks)
			rc_emit_stack(ctx, &copy);
		return 0;
	}
	b = tp_buf(TPBUF_SC);
	size = sizeof(*h) + ((c->fixed + 7) & ~7u);
	if (!b || size > sizeof(*h) + 64 || size % 8) {
		st->dropped++; /* never: user space checked the format */
		return 0;
	}
	h = (void *)b->data;
	rc_fill_hdr(h, cur, c->type, size);
	/* every argument: the record ends where size says */
	sc_fill_raw((__u64 *)(b->data + sizeof(*h)), c, h->tid, regs, nr, ret, exit, 6);
	output(ctx, b, size, st);
	return 0;
}

/* rc_tp_btf: tp_btf, loaded by user space's handler (sched.bpf.c says why) */
SEC("rc_tp_btf/sys_enter")
int BPF_PROG(handle_sc_enter, struct pt_regs *regs, long id)
{
	return sc_event(ctx, regs, id, 0, false);
}

SEC("rc_tp_btf/sys_exit")
int BPF_PROG(handle_sc_exit, struct pt_regs *regs, long ret)
{
	/* the number as the kernel's sys_exit event takes it (syscall_get_nr()) */
	return sc_event(ctx, regs, SC_NR(regs), ret, true);
}

#if defined(__TARGET_ARCH_x86)
#define UPROBE_ARG6(regs) ((regs)->r9)
#elif defined(__TARGET_ARCH_arm64)
#define UPROBE_ARG6(regs) (((struct user_pt_regs *)(regs))->regs[5])
#else
#define UPROBE_ARG6(regs) 0
#endif

/* The stats of probe event @type when @cur is in scope, counted as made; else NULL. */
static __always_inline struct rc_dyn_stats *probe_scope(struct task_struct *cur, __u16 type)
{
	struct rc_dyn_stats *st = dyn_stats(type);

	if (!st)
		return NULL;
	if (!rc_task_wanted(cur)) {
		__sync_fetch_and_add(&st->filtered, 1);
		return NULL;
	}
	__sync_fetch_and_add(&st->made, 1);
	return st;
}

static __always_inline void submit_dyn(void *ctx, void *rec, __u32 size, struct rc_dyn_stats *st)
{
	if (knobs.transport == RC_KNOB_PERFBUF) {
		if (bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, rec, size) < 0)
			__sync_fetch_and_add(&st->dropped, 1);
		return;
	}
	bpf_ringbuf_submit(rec, rc_wakeup_flags_cpu(size));
}

/*
 * Uprobe programs run preemptible: since Linux 6.0 under migrate_disable()
 * and RCU Tasks Trace, not with preemption off, so on PREEMPT_RT or with
 * preempt=full another task can run the same program on the same CPU
 * while the first is inside it. No per-CPU buffer is safe to build a
 * record in. ringbuf: the record is built in its reservation; perfbuf: on
 * the program's stack, which is the task's own, then copied out.
 */
static __always_inline int uprobe_event(struct pt_regs *regs, __u16 type)
{
	struct task_struct *cur = rc_current();
	struct rc_ev_uprobe onstack, *e = &onstack;
	struct rc_dyn_stats *st = probe_scope(cur, type);

	if (!st)
		return 0;
	if (knobs.transport != RC_KNOB_PERFBUF) {
		e = rc_ring_reserve(sizeof(*e));
		if (!e) {
			__sync_fetch_and_add(&st->dropped, 1);
			return 0;
		}
	}
	rc_compat_barrier(e);
	rc_fill_hdr(&e->hdr, cur, type, sizeof(*e));
	e->args[0] = PT_REGS_PARM1(regs);
	e->args[1] = PT_REGS_PARM2(regs);
	e->args[2] = PT_REGS_PARM3(regs);
	e->args[3] = PT_REGS_PARM4(regs);
	e->args[4] = PT_REGS_PARM5(regs);
	e->args[5] = UPROBE_ARG6(regs);
	submit_dyn(regs, e, sizeof(*e), st);
	return 0;
}

static __always_inline int uretprobe_event(struct pt_regs *regs, __u16 type)
{
	struct task_struct *cur = rc_current();
	struct rc_ev_uretprobe onstack, *e = &onstack;
	struct rc_dyn_stats *st = probe_scope(cur, type);

	if (!st)
		return 0;
	if (knobs.transport != RC_KNOB_PERFBUF) {
		e = rc_ring_reserve(sizeof(*e));
		if (!e) {
			__sync_fetch_and_add(&st->dropped, 1);
			return 0;
		}
	}
	rc_compat_barrier(e);
	rc_fill_hdr(&e->hdr, cur, type, sizeof(*e));
	e->ret = PT_REGS_RC(regs);
	submit_dyn(regs, e, sizeof(*e), st);
	return 0;
}

SEC("uprobe")
int handle_uprobe(struct pt_regs *regs)
{
	return uprobe_event(regs, bpf_get_attach_cookie(regs));
}

SEC("uretprobe")
int handle_uretprobe(struct pt_regs *regs)
{
	return uretprobe_event(regs, bpf_get_attach_cookie(regs));
}

/*
 * Without attach cookies: a program per probe (RC_SLOTS_PROBE of each
 * kind), each a call of one subprogram, as the tracepoints' (tp_slot()).
 */
static __noinline int uprobe_slot(struct pt_regs *regs, __u32 idx)
{
	return uprobe_event(regs, RC_DYN_BASE + idx);
}

static __noinline int uretprobe_slot(struct pt_regs *regs, __u32 idx)
{
	return uretprobe_event(regs, RC_DYN_BASE + idx);
}

#define PROBE_SLOT(k)                                                                              \
	SEC("uprobe")                                                                              \
	int handle_uprobe_slot_##k(struct pt_regs *regs)                                           \
	{                                                                                          \
		__s32 idx = slot_index(RC_SLOT_UPROBE + k);                                        \
		return idx < 0 ? 0 : uprobe_slot(regs, idx);                                       \
	}                                                                                          \
	SEC("uretprobe")                                                                           \
	int handle_uretprobe_slot_##k(struct pt_regs *regs)                                        \
	{                                                                                          \
		__s32 idx = slot_index(RC_SLOT_URETPROBE + k);                                     \
		return idx < 0 ? 0 : uretprobe_slot(regs, idx);                                    \
	}

/* clang-format off */
PROBE_SLOT(0) PROBE_SLOT(1) PROBE_SLOT(2) PROBE_SLOT(3)
PROBE_SLOT(4) PROBE_SLOT(5) PROBE_SLOT(6) PROBE_SLOT(7)
PROBE_SLOT(8) PROBE_SLOT(9) PROBE_SLOT(10) PROBE_SLOT(11)
PROBE_SLOT(12) PROBE_SLOT(13) PROBE_SLOT(14) PROBE_SLOT(15)
PROBE_SLOT(16) PROBE_SLOT(17) PROBE_SLOT(18) PROBE_SLOT(19)
PROBE_SLOT(20) PROBE_SLOT(21) PROBE_SLOT(22) PROBE_SLOT(23)
PROBE_SLOT(24) PROBE_SLOT(25) PROBE_SLOT(26) PROBE_SLOT(27)
PROBE_SLOT(28) PROBE_SLOT(29) PROBE_SLOT(30) PROBE_SLOT(31)
    /* clang-format on */
    _Static_assert(RC_SLOTS_PROBE == 32, "a handle_u*probe_slot_K for every slot");
