/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Stacks while recording: the frames the sampling program writes after
 * each sample are taken off, each distinct stack is stored once in the
 * file (a STACKS block, ringcap-file(5)) with its frames named, and the
 * sample keeps the stack's id.
 *
 * Naming happens here, when a stack is first seen, so that the file needs
 * nothing else to be read anywhere: kernel frames from /proc/kallsyms,
 * user frames from the process's mappings and files (symbol/usym.h): as
 * perf's side-band records said they were made, their files opened then
 * (capture/sideband.h), and from /proc/PID/maps when its first sample is
 * seen, so it may exit before the capture ends. It runs on the writer's
 * thread, never on the drain's.
 */
#ifndef RINGCAP_CAPTURE_STACKS_H
#define RINGCAP_CAPTURE_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rc_writer;
struct rc_stacks;
struct rc_sideband;

/**
 * struct rc_stacks_stats - what naming found, for the log and tests
 * @stacks: distinct stacks stored
 * @samples: samples whose stack was taken off
 * @frames: distinct frames named
 * @unnamed: of them, those without a symbol (a file and offset, or nothing)
 * @bad: sample records whose frame counts did not match their size (left as they were)
 * @over: samples past the file's most stacks (RC_MAX_STACK_ID), kept without one
 * @lines: of the frames named, those given a source location (rc_stacks__set_lines())
 * @dwarf: samples of a user task whose stack was unwound from a copy (--call-graph=dwarf)
 * @dwarf_full: of them, unwound to the outermost frame (or to RC_STACK_MAX frames)
 * @dwarf_copy_end: stopped by the end of the copy (a deeper stack than SIZE bytes)
 * @dwarf_early: stopped past the first frame otherwise: a frame had no CFI
 * @dwarf_nocfi: no caller found: the sampled address had no CFI (or no registers)
 * @dwarf_nofiles: none of the process's files read: it was gone when the writer met it
 * @dwarf_short: copies that came back short: a page could not be read, or
 *		 (most often, and harmless) the stack ended before SIZE bytes
 * @unwind_ns: the writer thread's CPU time spent unwinding them
 */
struct rc_stacks_stats {
	uint64_t stacks, samples, frames, unnamed, bad, over, lines;
	uint64_t dwarf, dwarf_full, dwarf_copy_end, dwarf_early, dwarf_nocfi, dwarf_nofiles,
	    dwarf_short, unwind_ns;
};

/**
 * rc_stacks__new() - the table for a capture
 *
 * Return: the table, or NULL with errno set.
 */
struct rc_stacks *rc_stacks__new(void);

/**
 * rc_stacks__load_kernel() - read the kernel's symbols now
 * @t: the table
 *
 * Once the capture's own BPF programs are loaded, so that their symbols
 * are among them, and before tracing starts: /proc/kallsyms is slow to
 * read (a second and more under emulation), and a writer busy reading it
 * would meet short-lived processes too late to read their mappings.
 * Without it, the first kernel frame reads them.
 *
 * Return: 0, or -errno (said: kernel frames are then left unnamed).
 */
int rc_stacks__load_kernel(struct rc_stacks *t);

/**
 * rc_stacks__set_lines() - give user frames their source lines and inline frames
 * @t: the table
 * @on: whether to, for processes first seen from now on
 *
 * User frames in files with DWARF (in them, or in their debug files) get
 * their source file and line, and the functions inlined at their address,
 * written in LINES blocks (ringcap-file(5)) after the STACKS blocks.
 */
void rc_stacks__set_lines(struct rc_stacks *t, bool on);

/**
 * rc_stacks__take() - take the stacks off the samples of a batch
 * @t: the table
 * @w: the writer the batch goes to next: new stacks are written to it first
 * @buf: whole records, as the rings gave them
 * @len: their length; set to what is left once the frames are taken off
 *
 * Return: 0, or -errno of the writer or of memory.
 */
int rc_stacks__take(struct rc_stacks *t, struct rc_writer *w, unsigned char *buf, size_t *len);

/**
 * rc_stacks__new_file() - start the definitions again, for a new file
 * @t: the table
 *
 * A file of a rotated run stands alone: the stacks, symbols, source files
 * and locations its samples name are defined in it. Called between two
 * files, when every definition made so far is written (rc_stacks__take()
 * writes them before it returns); what was learnt of processes and their
 * mappings is kept.
 */
void rc_stacks__new_file(struct rc_stacks *t);

/**
 * rc_stacks__set_sideband() - name user frames with perf's side-band too
 * @t: the table
 * @sb: the side-band (capture/sideband.h), or NULL to stop using it
 *
 * Before each batch, and on a miss, what the side-band saw is handed to
 * the symbolizer; a user frame is named through the mappings its process
 * had at the sample's time, then those read from /proc.
 */
void rc_stacks__set_sideband(struct rc_stacks *t, struct rc_sideband *sb);

/**
 * rc_stacks__stats() - the counts so far
 * @t: the table
 */
struct rc_stacks_stats rc_stacks__stats(const struct rc_stacks *t);

/**
 * rc_stacks__log() - say at the info level how the dwarf unwinding went
 * @t: the table
 *
 * One line (ringcap record -v), when samples were unwound from copies:
 * how many reached the outermost frame, stopped early, found no CFI; the
 * copies that came back short; the mean time an unwinding took.
 */
void rc_stacks__log(const struct rc_stacks *t);

/**
 * rc_stacks__free() - free the table
 * @t: the table, or NULL
 */
void rc_stacks__free(struct rc_stacks *t);

#endif /* RINGCAP_CAPTURE_STACKS_H */
