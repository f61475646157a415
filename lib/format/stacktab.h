/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The stacks and symbols a capture defines (STACKS blocks), as a reader
 * keeps them: every length and id checked, frames resolved to names.
 */
#ifndef RINGCAP_FORMAT_STACKTAB_H
#define RINGCAP_FORMAT_STACKTAB_H

#include <stddef.h>
#include <stdint.h>
#include "format/reader.h"
#include "format/format.h"
#include "util/idmap.h"

struct rc_stacktab_sym {
	char *name; /* NULL: none */
	char *dso;  /* NULL: none */
};

/* A file's build-id, of a BUILDIDS block: the file as STACKS names it, the id in hex. */
struct rc_stacktab_bid {
	char *file;
	char *hex;
};

/* A location of a LINES block: its frames as the block gives them; n 0: undefined. */
struct rc_stacktab_loc {
	struct rc_disk_locframe *frames;
	size_t n;
};

/**
 * struct rc_stacktab - zeroed is empty
 * @syms: by id; a slot whose dso and name are NULL is undefined
 * @nsyms: slots
 * @stacks: by id; frames NULL: undefined
 * @nstacks: slots
 * @lined: by stack id, its lines taken (a LINES block's); @nlined slots
 * @files: source files by id; NULL: undefined
 * @nfiles: slots
 * @locs: locations by id
 * @nlocs: slots
 * @bids: files' build-ids (BUILDIDS blocks), in the order defined
 * @nbids: entries
 * @bidmap: the hashes of their files' names to their indices in @bids
 */
struct rc_stacktab {
	struct rc_stacktab_sym *syms;
	size_t nsyms, syms_cap;
	struct rc_stack *stacks;
	size_t nstacks, stacks_cap;
	unsigned char *lined;
	size_t nlined, lined_cap;
	char **files;
	size_t nfiles, files_cap;
	struct rc_stacktab_loc *locs;
	size_t nlocs, locs_cap;
	struct rc_stacktab_bid *bids;
	size_t nbids, bids_cap;
	struct rc_idmap bidmap;
};

/**
 * rc_stacktab__add_block() - take the definitions of a STACKS block's payload
 * @t: the table
 * @p: the payload, its CRC checked
 * @len: its length
 *
 * A definition of an id already defined is passed over (the first stands).
 *
 * Return: 0; -EBADMSG with *@why set for a malformed payload, which adds
 * nothing; -ENOMEM.
 */
int rc_stacktab__add_block(struct rc_stacktab *t, const void *p, size_t len, const char **why);

/**
 * rc_stacktab__add_lines() - take the source lines of a LINES block's payload
 * @t: the table
 * @p: the payload, its CRC checked
 * @len: its length
 * @why: set to what is wrong when it is malformed
 *
 * A stack defined before, not yet given lines, whose frame count is the
 * block's for it, gets its frames' files and lines, and the functions
 * inlined at each inserted before it (RC_FRAME_F_INLINE). A stack not
 * defined, or given lines already, is passed over; so is a second
 * definition of a file or location id.
 *
 * Return: 0; -EBADMSG with *@why set for a malformed payload, which adds
 * nothing; -ENOMEM.
 */
int rc_stacktab__add_lines(struct rc_stacktab *t, const void *p, size_t len, const char **why);

/**
 * rc_stacktab__add_buildids() - take the build-ids of a BUILDIDS block's payload
 * @t: the table
 * @p: the payload, its CRC checked
 * @len: its length
 * @why: set to what is wrong when it is malformed
 *
 * A second build-id of a file is passed over (the first stands).
 *
 * Return: 0; -EBADMSG with *@why set for a malformed payload, which adds
 * nothing; -ENOMEM.
 */
int rc_stacktab__add_buildids(struct rc_stacktab *t, const void *p, size_t len, const char **why);

/**
 * rc_stacktab__build_id() - the build-id of a file frames are in
 * @t: the table
 * @file: the file as a symbol names it (struct rc_stacktab_sym's dso)
 *
 * Return: its build-id in lower-case hex, or NULL when none was given.
 */
const char *rc_stacktab__build_id(const struct rc_stacktab *t, const char *file);

/**
 * rc_stacktab__stack() - a defined stack
 * @t: the table
 * @id: its id
 *
 * Return: the stack, or NULL.
 */
const struct rc_stack *rc_stacktab__stack(const struct rc_stacktab *t, uint32_t id);

/**
 * rc_stacktab__free() - free the table's memory
 * @t: the table, left empty
 */
void rc_stacktab__free(struct rc_stacktab *t);

#endif /* RINGCAP_FORMAT_STACKTAB_H */
