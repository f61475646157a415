/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The stack table's own state, shared by its files: stacks.c (taking
 * stacks off samples) and stacks_name.c (naming their frames, writing the
 * definitions).
 */
#ifndef RINGCAP_CAPTURE_STACKS_INT_H
#define RINGCAP_CAPTURE_STACKS_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "capture/stacks.h"
#include "format/format.h"
#include "symbol/usym.h"
#include "util/keymap.h"
#include "util/strbuf.h"

#define PENDING_MAX  (4u << 20)	    /* bytes of definitions before a block is written */
#define NAME_MAX_LEN 4096	    /* a symbol's or file's name is cut there (C++ names can be long) */
#define REFRESH_NS   100000000ull /* on a miss, a process's mappings are read again at most this often */

struct frame_name {
	uint32_t sym;
	uint32_t off;
	uint32_t loc; /* its source location (LINES block); 0: none */
	bool named; /* a function; else a file and offset, or nothing */
	bool nowhere; /* a user address in no mapping read: looked up again after a refresh */
};

/* The key a frame's name is cached under: an address means the same in one image of a process. */
struct frame_key {
	uint32_t pid; /* 0: a kernel address */
	uint32_t gen; /* the process's image (struct proc_seen) */
	uint32_t caller;
	uint32_t __pad;
	uint64_t addr;
};

/* A process whose mappings were read: when, and its name then (an exec changes both). */
struct proc_seen {
	uint64_t when;	/* CLOCK_MONOTONIC of the last read of its mappings */
	uint64_t image; /* the image they are of (records.h RC_IMAGE()) */
	uint32_t gen;	/* images seen under this pid, counted */
};

struct rc_stacks {
	struct rc_keymap stacks; /* the stack's key (below) to its id */
	uint32_t nstacks;
	struct rc_keymap syms; /* name, NUL, file: to the symbol's id */
	uint32_t nsyms;
	struct rc_keymap frames; /* struct frame_key: to its index in names */
	struct frame_name *names;
	size_t nnames, names_cap;
	struct rc_keymap procs; /* pid: to its index in seen */
	struct proc_seen *seen;
	size_t nprocs, procs_cap;
	struct rc_ksyms *ksyms;
	bool ksyms_tried;
	struct rc_usym *usym;
	struct rc_unwind *unwind;	 /* --call-graph=dwarf: made at the first such sample */
	struct rc_strbuf psyms, pstacks; /* the definitions not yet written */
	uint32_t npsyms, npstacks;
	struct rc_strbuf key;
	struct rc_stacks_stats st;
	struct rc_sideband *sb; /* perf's side-band: mappings as they are made; NULL: none */
	uint64_t ts;		/* the time of the sample whose stack is named */
	/* its user frames unwound from a copy that are activations (rc_unwind__stack()) */
	uint64_t act[(RC_STACK_MAX + 63) / 64];
	/* source lines (rc_stacks__set_lines()): files and locations, each defined once */
	bool lines;
	struct rc_keymap files; /* path: its id */
	uint32_t nfiles;
	struct rc_keymap locs; /* its struct rc_disk_locframe entries: its id */
	uint32_t nlocs;
	struct rc_strbuf pfiles, plocs, plines; /* the definitions not yet written */
	uint32_t npfiles, nplocs, nplines;
	struct rc_strbuf lkey;
	/* build-ids (stacks_bid.c): of each file named, noted once */
	struct rc_keymap bidfiles; /* a file's name: 1, when its build-id was noted */
	struct rc_strbuf pbids;	   /* the entries not yet written */
	uint32_t npbids;
	bool kbid_tried;
	char kbid[2 * RC_MAX_BUILDID + 1]; /* the kernel's, in hex; "": none */
};
/* stacks_name.c */
/* Process @pid in image @image: its mappings read when new to us, and again for another image. */
struct proc_seen *rc_stacks__proc_of(struct rc_stacks *t, uint32_t pid, uint64_t image);

/* stacks_bid.c */
/* Note @file's build-id @hex (either NULL: nothing), the first time the file is seen. */
int rc_stacks__note_build_id(struct rc_stacks *t, const char *file, const char *hex);
/* The running kernel's build-id in hex, read once; NULL: none. */
const char *rc_stacks__kernel_build_id(struct rc_stacks *t);
/* Write the build-ids noted and not yet written, as one BUILDIDS block. */
int rc_stacks__emit_build_ids(struct rc_stacks *t, struct rc_writer *w);
/* Write the definitions not yet written, as one STACKS block. */
int rc_stacks__emit(struct rc_stacks *t, struct rc_writer *w);
/*
 * Define a new stack @id of @pid: its entry and its frames, named. With
 * @from_tracepoint, the tracing machinery's frames at its top are left out.
 */
int rc_stacks__define(struct rc_stacks *t, uint32_t id, uint32_t pid, struct proc_seen *p,
		      const uint64_t *frames, uint16_t nk, uint16_t nu, uint32_t flags,
		      bool from_tracepoint);

#endif /* RINGCAP_CAPTURE_STACKS_INT_H */
