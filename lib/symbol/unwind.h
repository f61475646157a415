/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * User stacks unwound from a copy (record --call-graph=dwarf), as perf's
 * unwind-libdw.c does: the registers a sample interrupted and the bytes of
 * stack above its stack pointer, walked by the call frame information of
 * the process's files (.eh_frame, or .debug_frame from the file or its
 * debug file) with libdw's dwfl_frame. The files are those of a process's
 * snapshot in a struct rc_usym (symbol/usym.h). Not safe against
 * concurrent calls on one struct rc_unwind.
 */
#ifndef RINGCAP_SYMBOL_UNWIND_H
#define RINGCAP_SYMBOL_UNWIND_H

#include <stddef.h>
#include <stdint.h>

struct rc_usym;
struct rc_unwind;

/* How an unwinding ended. */
enum rc_unwind_end {
	RC_UNWIND_FULL,	    /* at the outermost frame: as the CFI says (_start, a thread's start),
			     * or in a program's or ld.so's entry code without CFI (ld.so's _start) */
	RC_UNWIND_CUT,	    /* the frames given were filled: there may be more */
	RC_UNWIND_COPY_END, /* stopped by a read past the stack copy: SIZE was too small */
	RC_UNWIND_EARLY,    /* stopped past the first frame otherwise: a frame had no CFI */
	RC_UNWIND_NOCFI,    /* no caller at all: the sampled address has no CFI, or no file */
	RC_UNWIND_NOFILES,  /* none of the process's files could be read (it was gone) */
};

/**
 * struct rc_unwind_regs - what a sample gives to unwind from
 * @regs: the task's user registers as the kernel saves them: x86-64, struct
 *	  pt_regs (r15, r14, ..., ip, cs, flags, sp, ss: 21 words); arm64,
 *	  struct user_pt_regs (x0-x30, sp, pc, pstate: 34 words)
 * @stack: bytes of the user stack from the stack pointer up
 * @len: how many
 */
struct rc_unwind_regs {
	const uint64_t *regs;
	const void *stack;
	size_t len;
};

/**
 * rc_unwind__new() - an unwinder over a symbolizer's snapshots
 * @u: the symbolizer whose processes it unwinds; must outlive it
 *
 * Return: the unwinder; NULL with errno ENOMEM.
 */
struct rc_unwind *rc_unwind__new(struct rc_usym *u);

/**
 * rc_unwind__free() - free an unwinder and close the files it opened
 * @uw: the unwinder, or NULL
 */
void rc_unwind__free(struct rc_unwind *uw);

/**
 * rc_unwind__forget() - drop what is known of a process's files
 * @uw: the unwinder
 * @tgid: the process
 *
 * To call when its snapshot is taken again (an exec, a dlopen()): the next
 * unwinding of it reports its files anew.
 */
void rc_unwind__forget(struct rc_unwind *uw, int tgid);

/**
 * rc_unwind__stack() - unwind a user stack
 * @uw: the unwinder
 * @tgid: the process, snapshotted in the symbolizer (rc_usym__add_process())
 *	  or its mappings noted from the side-band (rc_usym__note_map())
 * @tid: the thread
 * @ts: the sample's time: the mappings are those the process had then
 *	(rc_usym__for_each_file_at())
 * @in: its registers and stack copy
 * @ips: set to the frames, innermost first: the sampled address, then
 *	 return addresses (as bpf_get_stack() gives them)
 * @act: NULL, or a bitmap of @max bits, set to those of the frames past the
 *	 first whose address is where to resume rather than a return address
 *	 (libdw's activations: the signal trampoline a handler returns to, at
 *	 its first instruction, and the frame the signal interrupted): named
 *	 as they are, not as a call (address - 1)
 * @max: room in @ips
 * @n: set to the frames found
 *
 * The files of the process's executable mappings at @ts are reported to
 * libdw at its first unwinding, and again when they differ from those
 * reported (an exec, a dlopen(), a reused pid: a signature of the
 * mappings is compared at each call), opened through
 * /proc/@tgid/map_files/ while the process lives, else by their path;
 * libdw keeps them, for the last 16 processes unwound.
 *
 * Return: how it ended (enum rc_unwind_end), or -ENOMEM.
 */
int rc_unwind__stack(struct rc_unwind *uw, int tgid, uint32_t tid, uint64_t ts,
		     const struct rc_unwind_regs *in, uint64_t *ips, uint64_t *act, size_t max,
		     size_t *n);

#endif /* RINGCAP_SYMBOL_UNWIND_H */
