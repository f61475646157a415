/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The stacks and symbols a capture defines (STACKS blocks), as a reader
 * keeps them: every length and id checked, frames resolved to names.
 */
#ifndef RINGCAP_FORMAT_STACKTAB_H
#define RINGCAP_FORMAT_STACKTAB_H

#include <stddef.h>
#include <stdint.h>
#include "ringcap.h"

struct rc_stacktab_sym {
	char *name; /* NULL: none */
	char *dso;  /* NULL: none */
};

/**
 * struct rc_stacktab - zeroed is empty
 * @syms: by id; a slot whose dso and name are NULL is undefined
 * @nsyms: slots
 * @stacks: by id; frames NULL: undefined
 * @nstacks: slots
 */
struct rc_stacktab {
	struct rc_stacktab_sym *syms;
	size_t nsyms, syms_cap;
	struct rc_stack *stacks;
	size_t nstacks, stacks_cap;
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
